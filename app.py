"""ParamScope: where do a transformer's parameters go?

`streamlit run app.py`. The page only arranges widgets and draws what the engine returns:
the sidebar picks a preset and edits its fields (Hugging Face names), the main area shows the exact
count, the charts and the table, and the address bar always holds a link that rebuilds the page.
State lives in the URL and in this session's st.session_state, never in module globals.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from paramscope.app import page_style, ui_costs, ui_explore, ui_hub
from paramscope.app.controls import apply_controls, clear_controls, model_controls, run_controls
from paramscope.app.parameters import (
    DETAILS,
    breakdown_charts,
    component_table,
    downloads,
    headline_numbers,
    model_label,
    tree_chart,
)
from paramscope.engine import run as run_settings
from paramscope.engine.spec import Spec, validate
from paramscope.io import link, presets
from paramscope.model import Model

TABS = ("Parameters", "Memory", "Compute", "Your model", "Compare", "Architecture", "Why so big?")
TAB_KEY = link.TAB_KEY  # the open tab is part of the link (?tab=Memory, ?tab=Why-so-big) when not the first
RUN_TABS = ("Memory", "Compute", "Compare", "Why so big?")  # the tabs that use the run settings


# ================================================================================================ the page
def page() -> None:
    st.set_page_config(
        page_title="ParamScope", page_icon=":material/data_usage:", layout="wide", initial_sidebar_state="auto"
    )
    st.title("ParamScope", anchor=False)
    st.markdown(
        "**Exact parameter count of a transformer, component by component:** pick a preset, "
        "move a control, share the link."
    )
    page_style.apply()
    st.session_state.full_run = True  # cleared at the end: a run without it is a rerun of model_view alone
    restore_from_link_once()
    ui_explore.keep_state()
    messages, link_slot = st.container(), st.container()  # filled by model_view
    tabs = st.tabs(TABS, key=TAB_KEY, default=st.session_state.first_tab, on_change="rerun")
    tab = dict(zip(TABS, tabs, strict=True))
    with st.sidebar:
        preset_picker()
        shown = st.session_state.model.has_formulas and any(tab[name].open for name in RUN_TABS)
        settings = run_controls(shown=shown)
    model_view(tab, messages, link_slot, settings)
    model: Model = st.session_state.model
    if tab["Your model"].open:
        with tab["Your model"]:
            ui_explore.render_upload(on_use=use_uploaded_model)
    if not model.has_formulas:
        needs_formulas(model, tab)
    else:
        other_tabs(model, tab, settings)
    st.session_state.drawn_for, st.session_state.full_run = model, False


@st.fragment
def model_view(tab: dict, messages: DeltaGenerator, link_slot: DeltaGenerator, settings: object) -> None:
    """The model in view: its controls in the sidebar, the Parameters tab, the messages and the link.

    A control's move reruns only this (``st.fragment``, see docs/benchmarks.md for what it saves); a move that
    changes what another open tab shows, or that starts another model, reruns the whole page instead.
    """
    error, culprit = apply_controls()
    model: Model = st.session_state.model
    drawn = st.session_state.get("drawn_for", model)
    if not st.session_state.get("full_run") and model != drawn:
        if model.reset() != drawn.reset() or any(tab[name].open for name in TABS if name != "Parameters"):
            st.rerun()
    with messages:
        show_link_warnings(model)
        if error:
            st.error(f"Not applied: {error.rstrip('.')}. The page shows the last valid model.", icon=":material/error:")
    if tab["Parameters"].open:  # only the open tab runs
        with tab["Parameters"]:
            parameters_tab(model)
    with st.sidebar:
        if model.has_formulas:
            model_controls(error, culprit)
        else:
            st.caption("No controls: this model type has no family row (formulas). Pick a preset to edit a model.")
    with link_slot:
        query = share_link(model, settings)
    keep_url_in_sync(query)


def parameters_tab(model: Model) -> None:
    """The exact total and its parts, the charts, the whole tree (on demand) and the downloads."""
    if not model.has_formulas:  # a model type without a family row: transformers' count and module tree
        ui_hub.render_counted_by_transformers(model, on_use=use_model)
        if model.hub_id:
            ui_hub.render_checkpoint(model)
        return
    spec, summary = model.spec, model.summary
    headline_numbers(model, summary)
    if model.hub_id:
        ui_hub.render_checkpoint(model)
    breakdown_charts(spec)
    details = st.expander(DETAILS, key="details", on_change="rerun")
    if details.open:  # drawn only while open: it is the heaviest part of the page
        with details:
            tree_chart(spec)
            component_table(spec, summary)
    downloads(model, summary)


def other_tabs(model: Model, tab: dict, settings: object) -> None:
    """Memory, Compute, Compare, Architecture and Why so big?, each drawn only while open."""
    spec = model.spec
    if tab["Memory"].open:
        with tab["Memory"]:
            cost_tab("render_memory_tab", spec, settings)
    if tab["Compute"].open:
        with tab["Compute"]:
            cost_tab("render_compute_tab", spec, settings)
    if tab["Compare"].open:
        with tab["Compare"]:
            ui_explore.render_compare(model_label(model), spec, settings)
    if tab["Architecture"].open:
        with tab["Architecture"]:
            ui_explore.render_diagram(spec, model_label(model))
    if tab["Why so big?"].open:
        with tab["Why so big?"]:
            ui_explore.render_sweep(spec, model.preset or None, settings)


def needs_formulas(model: Model, tab: dict) -> None:
    """The tabs that need a family row's formulas, for a model counted by transformers alone."""
    for name in TABS:
        if name not in ("Parameters", "Your model") and tab[name].open:
            with tab[name]:
                st.info(
                    f"{name} needs the formulas of a family row, and {model.model_type} has none yet: only its "
                    "exact parameter count (by transformers) is shown. Pick a preset or another model.",
                    icon=":material/info:",
                )


# ============================================================================================= state
def restore_from_link_once() -> None:
    """On a session's first run, rebuild the model (and run settings) from the address bar's query."""
    if "model" in st.session_state:
        return
    query = st.query_params.to_dict()
    model, warnings = link.model_from_query(query)
    explore = ui_explore.restore_from_query(query)  # compare and sweep choices; a whole model under x_spec
    if explore.model is not None:
        model, warnings = link.edits_from_query(explore.model, query, [])
    if link.HUB_KEY in query:  # ?hf=ORG/NAME&revision=REV plus edits
        try:
            hub_model = ui_hub.model_from_hub(query[link.HUB_KEY], query.get(link.REVISION_KEY, "main"))
        except ValueError as exc:
            warnings.append(f"{exc}; showing {model_label(model)} instead")
        else:
            model, warnings = link.edits_from_query(hub_model, query, [])
    st.session_state.preset = picker_value(model)
    st.session_state.model = st.session_state.link_model = model
    warnings += explore.warnings
    settings, run_warnings = run_settings.settings_from_query(query)
    st.session_state.run_settings = settings
    warnings += run_warnings
    tab = tab_from_link(query.get(TAB_KEY, TABS[0]))
    st.session_state.first_tab = tab or TABS[0]
    if tab is None:
        warnings.append(f"{TAB_KEY}: no tab named {query[TAB_KEY][:40]!r}; showing {TABS[0]}")
    st.session_state.link_warnings = warnings


def tab_slug(name: str) -> str:
    """A tab's name as a link writes it: no spaces or question marks ("Why so big?" -> "Why-so-big")."""
    return "-".join(name.replace("?", "").split())


def tab_from_link(text: str) -> str | None:
    """The tab a link names, by its slug or its name, in any letter case (``None`` when there is none)."""
    wanted = tab_slug(str(text)).casefold()
    return next((name for name in TABS if tab_slug(name).casefold() == wanted), None)


def use_uploaded_model(text: str) -> None:
    """The Your model tab's button: show the uploaded model on every tab, with every control."""
    use_model(ui_explore.model_from_upload(text))


def use_model(model: Model) -> None:
    """Show ``model`` on every tab, with every control (an upload, a multimodal config's language model)."""
    st.session_state.model = model
    st.session_state.preset = picker_value(model)
    clear_controls()
    st.toast(f"Now showing your {model.model_type} model on every tab.", icon=":material/check_circle:")


def load_preset() -> None:
    """The picker moved: start from the preset or the Hub model it names; every control re-reads it.

    A Hub id that cannot be read keeps the model in view and says why under the picker.
    """
    wanted = str(st.session_state.preset or "").strip()
    st.session_state.hub_error = ""
    name = presets.named(wanted)
    try:
        if name:
            model = presets.model(name)
        elif "/" in wanted:
            model = ui_hub.model_from_hub(*ui_hub.parse_target(wanted))
        else:
            raise ValueError(f"no preset named {wanted[:60]!r}; a Hugging Face id is ORG/NAME, e.g. Qwen/Qwen3-8B")
    except ValueError as exc:
        st.session_state.hub_error = str(exc)
        st.session_state.preset = picker_value(st.session_state.model)
        return
    st.session_state.model = model
    st.session_state.preset = picker_value(model)
    clear_controls()


def show_link_warnings(model: Model) -> None:
    """Problems with the link the page was opened with, shown until the model is changed."""
    if st.session_state.get("link_model") != model:
        st.session_state.link_warnings = []
    for warning in st.session_state.get("link_warnings", []):
        st.warning(f"Link: {warning}", icon=":material/link:")


def share_link(model: Model, settings: object) -> dict[str, str]:
    """The query that rebuilds this page, and the full address with a copy button.

    The model is the preset plus the edited keys, or the whole config encoded (``x_spec``) plus the edits
    for a model that started elsewhere (an upload); then the run settings, the explore tabs' choices, the tab.
    """
    query = ui_explore.upload_link(model)
    query.update(run_settings.settings_to_query(settings))
    query.update(ui_explore.current_query())
    tab = st.session_state.get(TAB_KEY) or st.session_state.first_tab
    if tab != TABS[0]:
        query[TAB_KEY] = tab_slug(tab)
    base = (st.context.url or "").split("?", 1)[0]
    base = base if not base or base.endswith("/") else base + "/"
    st.caption("Link to exactly this model (copy button on the right):")
    st.code(f"{base}?{urlencode(query)}", language=None, wrap_lines=True)
    return query


def keep_url_in_sync(query: dict[str, str]) -> None:
    """The address bar always shows the link to what is on screen (only when it changed).

    One ``st.query_params.from_dict`` per change: one browser history entry, keys in a fixed order. Widget
    ``bind="query-params"`` does not serve here: it clamps or silently drops a bad value (a link must warn
    and keep the preset's value), lets the URL win over code on the first run (so a combination such as
    heads that do not divide the width could not be refused), and a bound key cannot be written through
    ``st.query_params``, so the link could no longer be written in one piece.
    """
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)


# ============================================================================================ sidebar
def preset_picker() -> None:
    """One search box: a preset by name, family or Hub name, or any Hub id ``ORG/NAME`` (``@REVISION``) typed in."""
    model: Model = st.session_state.model
    names = [n for members in presets.by_family().values() for n in members]
    if st.session_state.preset not in names:
        names.insert(0, st.session_state.preset)
    st.selectbox(
        "Model: a preset or a Hugging Face id",
        names,
        key="preset",
        format_func=preset_label,
        on_change=load_preset,
        accept_new_options=True,
        help="Type to search presets by family, name or Hub name (qwen3 8b), or type any Hub id such as "
        "Qwen/Qwen3-8B (add @REVISION for a branch, tag or commit) and press Enter: only its config.json is "
        "read. Every preset is a real config.json, its count checked against transformers in the tests.",
    )
    if st.session_state.get("hub_error"):
        st.error(st.session_state.hub_error, icon=":material/cloud_off:")
    if model.hub_id:
        at = f" @ {model.revision}" if model.revision != "main" else ""
        st.caption(f"From the Hub: [{model.hub_id}](https://huggingface.co/{model.hub_id}){at} · config.json only")
        return
    if not model.preset:
        st.caption(f"Your {model.model_type} model (from the Your model tab or a link)")
        return
    p = presets.get(model.preset)
    source = f"[source]({p.source})" if p.source.startswith("https://") else p.source
    st.caption(f"{p.title} · {p.family} · {source}")


def preset_label(name: str) -> str:
    """A picker entry: family, title and Hub name of a preset (so that typing any of them finds it)."""
    if name not in presets.names():
        return name
    p = presets.get(name)
    return f"{p.family} › {p.title}" + (f" · {p.hub_id}" if p.hub_id else "")


def picker_value(model: Model) -> str:
    """What the picker shows for a model: its preset, its Hub id (with ``@revision``), or a label."""
    if model.hub_id:
        return model.hub_id + (f"@{model.revision}" if model.revision != "main" else "")
    return model.preset or f"your {model.model_type} model"


def cost_tab(name: str, spec: Spec, settings: object) -> None:
    """A Memory or Compute tab; a setting that does not apply to this model is explained, not a crash."""
    try:
        getattr(ui_costs, name)(validate(spec), settings)
    except ValueError as exc:
        st.error(f"{exc}", icon=":material/error:")


page()
