"""ParamScope: where do a transformer's parameters go?

`streamlit run app.py`. The page only arranges widgets and draws what the engine returns:
the sidebar picks a preset and edits its fields (Hugging Face names), the main area shows the exact
count, the charts and the table, and the address bar always holds a link that rebuilds the page.
State lives in the URL and in this session's st.session_state, never in module globals.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from paramscope.app import page_style, ui_costs, ui_explore, ui_hub
from paramscope.app.controls import apply_controls, model_controls, run_controls
from paramscope.app.parameters import (
    DETAILS,
    breakdown_charts,
    component_table,
    downloads,
    headline_numbers,
    model_label,
    tree_chart,
)
from paramscope.app.picker import preset_picker
from paramscope.app.session import (
    TAB_KEY,
    TABS,
    keep_url_in_sync,
    restore_from_link_once,
    share_link,
    show_link_warnings,
    use_model,
    use_uploaded_model,
)
from paramscope.engine.spec import Spec, validate
from paramscope.model import Model

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
        shown = st.session_state.model.cost_spec is not None and any(tab[name].open for name in RUN_TABS)
        settings = run_controls(shown=shown)
    model_view(tab, messages, link_slot, settings)
    model: Model = st.session_state.model
    if tab["Your model"].open:
        with tab["Your model"]:
            ui_explore.render_upload(on_use=use_uploaded_model)
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
    """Memory, Compute, Compare, Architecture and Why so big?, each drawn only while open. A multimodal model
    counted by transformers has its costs (its language model's, with the other towers as weights) and no more."""
    spec = model.cost_spec
    for name, render in (("Memory", ui_costs.render_memory_tab), ("Compute", ui_costs.render_compute_tab)):
        if tab[name].open and spec is not None:
            with tab[name]:
                if not model.has_formulas:
                    ui_hub.render_costs_of_towers(model)
                cost_tab(render, spec, settings)
    if not model.has_formulas:
        needs_formulas(model, tab, ("Compare", "Architecture", "Why so big?") if spec else TABS)
        return
    if tab["Compare"].open:
        with tab["Compare"]:
            ui_explore.render_compare(model_label(model), spec, settings)
    if tab["Architecture"].open:
        with tab["Architecture"]:
            ui_explore.render_diagram(spec, model_label(model))
    if tab["Why so big?"].open:
        with tab["Why so big?"]:
            ui_explore.render_sweep(spec, model.preset or None, settings)


def needs_formulas(model: Model, tab: dict, names: tuple[str, ...]) -> None:
    """The tabs of ``names`` that need a family row's formulas, for a model counted by transformers."""
    towers = " or one of its towers (the buttons on the Parameters tab)" if model.towers else ""
    for name in names:
        if name not in ("Parameters", "Your model") and tab[name].open:
            with tab[name]:
                st.info(
                    f"{name} needs the formulas of a family row, and {model.model_type} has none yet: only its "
                    f"exact parameter count (by transformers) is shown. Pick a preset, another model{towers}.",
                    icon=":material/info:",
                )


def cost_tab(render: Callable[[Spec, object], None], spec: Spec, settings: object) -> None:
    """A Memory or Compute tab; a setting that does not apply to this model is explained, not a crash."""
    try:
        render(validate(spec), settings)
    except ValueError as exc:
        st.error(f"{exc}", icon=":material/error:")


page()
