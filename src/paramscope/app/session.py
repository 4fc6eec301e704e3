"""The page's state: the link it was opened with, the model in view, the link that rebuilds it.

State lives in the URL and in this session's ``st.session_state``, never in module globals.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from paramscope.app import ui_explore, ui_hub
from paramscope.app.controls import clear_controls
from paramscope.app.parameters import downloads, model_label
from paramscope.app.picker import picker_value
from paramscope.app.text import quoted
from paramscope.engine import run as run_settings
from paramscope.io import link
from paramscope.model import Model

TABS = ("Parameters", "Memory", "Compute", "Your model", "Compare", "Architecture", "Why so big?")
TAB_KEY = link.TAB_KEY  # the open tab is part of the link (?tab=Memory, ?tab=Why-so-big) when not the first
SHARE = "Share: the link to exactly this model, its breakdown and its config.json"
SHARE_KEY = "share"


def restore_from_link_once() -> None:
    """On a session's first run, and when the browser's Back or Forward button brings back an address the page wrote
    before, rebuild the model (and run settings, tab, explore choices) from the address bar's query."""
    if "model" in st.session_state:
        if not history_navigation():
            return
        clear_controls()  # the address bar wins: every control re-reads the model it rebuilds
        st.session_state.pop("unreached", None)
        ui_explore.forget_restored()
        st.session_state[TAB_KEY] = tab_from_link(st.query_params.get(TAB_KEY, TABS[0])) or TABS[0]
    query = st.query_params.to_dict()
    model, warnings = link.model_from_query(query)
    warnings += repeated_keys()
    explore = ui_explore.restore_from_query(query)  # compare and sweep choices; a whole model under x_spec
    if explore.model is not None:
        model, warnings = link.edits_from_query(explore.model, query, [])
    if link.HUB_KEY in query:  # ?hf=ORG/NAME&revision=REV plus edits
        try:
            hub_model = ui_hub.model_from_hub(query[link.HUB_KEY], query.get(link.REVISION_KEY, "main"))
        except ValueError as exc:
            warnings.append(f"{exc}; showing {model_label(model)} instead")
            if ui_hub.next_step(exc):  # the Hub may answer later: the link keeps the id (and says what to do now)
                st.session_state.unreached = {k: query[k] for k in (link.HUB_KEY, link.REVISION_KEY) if k in query}
                warnings.append(ui_hub.NEXT_STEP)
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


def history_navigation() -> bool:
    """Whether this run is the browser's Back or Forward button (Streamlit reruns with the address it restored)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.is_history_navigation)


def repeated_keys() -> list[str]:
    """A warning for each key the address bar states more than once (the page, like Streamlit, reads the last)."""
    out = []
    for key in list(st.query_params)[:200]:
        values = st.query_params.get_all(key)
        if len(values) > 1:
            out.append(f"{key[:40]}: stated {len(values)} times in the link; the last, {values[-1][:40]!r}, is used")
    return out


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
    """Show ``model`` on every tab, with every control (an upload, one tower of a multimodal config)."""
    st.session_state.model = model
    st.session_state.preset = picker_value(model)
    clear_controls()
    st.toast(f"Now showing your {quoted(model.model_type)} model on every tab.", icon=":material/check_circle:")


def show_link_warnings(model: Model) -> None:
    """Problems with the link the page was opened with, shown until the model is changed."""
    if st.session_state.get("link_model") != model:
        st.session_state.link_warnings = []
    for warning in st.session_state.get("link_warnings", []):
        st.warning(f"Link: {quoted(warning)}", icon=":material/link:")


def link_query(model: Model, settings: object) -> dict[str, str]:
    """The query that rebuilds this page: the preset plus the edited keys, or the whole config encoded (``x_spec``)
    plus the edits for a model that started elsewhere (an upload); then the run settings, the explore tabs' choices,
    the tab. A Hub id the page could not reach stays until the user moves on."""
    unreached = st.session_state.get("unreached")
    if unreached and model != st.session_state.get("link_model"):  # the user moved on: the id is dropped
        unreached = st.session_state.unreached = None
    query = dict(unreached) if unreached else ui_explore.upload_link(model)
    query.update(run_settings.settings_to_query(settings))
    query.update(ui_explore.current_query())
    tab = open_tab()
    if tab != TABS[0]:
        query[TAB_KEY] = tab_slug(tab)
    return query


def share_section(model: Model) -> None:
    """Under the tabs, a section with the full address (a copy button on its right) and the model's files, drawn
    only while open: the address bar always holds the same link, which this section shows. Drawn by the page's full
    run, not by a control's move: while it is closed a move sends neither it nor its header, and while it is open a
    move reruns the page (``parameters_alone``), so that its link and files follow (docs/benchmarks.md)."""
    box = st.expander(SHARE, key=SHARE_KEY, on_change="rerun")
    if box.open:
        base = (st.context.url or "").split("?", 1)[0]
        base = base if not base or base.endswith("/") else base + "/"
        with box:
            st.caption("Link to exactly this model, as the address bar holds it (copy button on the right):")
            st.code(f"{base}?{urlencode(st.query_params.to_dict())}", language=None, wrap_lines=True)
            downloads(model, model.summary)  # a whole model's tree has its towers as subtrees


def open_tab() -> str:
    """The tab open now (a tab's ``.open`` is fixed when the page draws the tabs; a fragment's rerun sees the value
    of the run that drew it)."""
    return st.session_state.get(TAB_KEY) or st.session_state.first_tab


def parameters_alone() -> bool:
    """Whether the Parameters tab is open and the Share section closed: then a control's move reruns only the
    model's view (a fragment); with another tab or the section open it reruns the page, which shows them too. Read
    from session state, as a fragment's rerun must."""
    return open_tab() == TABS[0] and not st.session_state.get(SHARE_KEY)


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
