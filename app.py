"""ParamScope: where do a transformer's parameters go?

`streamlit run app.py`. The page only arranges widgets and draws what the engine returns:
the sidebar picks a preset and edits its fields (Hugging Face names), the main area shows the exact
count, the charts and the table, and the address bar always holds a link that rebuilds the page.
State lives in the URL and in this session's st.session_state, never in module globals.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from paramscope.app import ICON, freeze_imports, page_style, ui_explore, ui_hub
from paramscope.app.controls import apply_controls, emptied_note, model_controls, run_controls, whole_controls
from paramscope.app.picker import preset_picker
from paramscope.app.session import (
    TAB_KEY,
    TABS,
    keep_url_in_sync,
    link_query,
    parameters_alone,
    restore_from_link_once,
    share_section,
    show_link_warnings,
    use_uploaded_model,
)
from paramscope.app.tabs import RUN_TABS, other_tabs, parameters_tab
from paramscope.app.text import quoted
from paramscope.model import Model


# ================================================================================================ the page
def page() -> None:
    st.set_page_config(page_title="ParamScope", page_icon=ICON, layout="wide", initial_sidebar_state="auto")
    st.title("ParamScope", anchor=False)
    st.markdown(
        "**Exact parameter count of a transformer, component by component:** pick a preset, "
        "move a control, share the link."
    )
    page_style.apply()
    st.session_state.full_run = True  # cleared at the end: a run without it is a rerun of model_view alone
    restore_from_link_once()
    ui_explore.keep_state()
    messages = st.container()  # filled by model_view
    tabs = st.tabs(TABS, key=TAB_KEY, default=st.session_state.first_tab, on_change="rerun")
    tab = dict(zip(TABS, tabs, strict=True))
    with st.sidebar:
        preset_picker()
        picked: Model = st.session_state.model
        uses = RUN_TABS if picked.has_formulas else ("Memory", "Compute")  # a multimodal model's costs only
        shown = picked.cost_spec is not None and any(tab[name].open for name in uses)
        settings = run_controls(shown=shown)
    # A control's move reruns only the model's view (a fragment) while the Parameters tab alone is open, the whole
    # page otherwise (a fragment calling st.rerun instead reset widgets)
    (model_view_fragment if parameters_alone() else model_view)(tab, messages, settings)
    model: Model = st.session_state.model
    share_section(model)  # under the tabs, so that the charts are in view beside the controls
    if tab["Your model"].open:
        with tab["Your model"]:
            ui_explore.render_upload(on_use=use_uploaded_model)
    other_tabs(model, tab, settings)
    st.session_state.drawn_for, st.session_state.full_run = model, False


def model_view(tab: dict, messages: DeltaGenerator, settings: object) -> None:
    """The model in view: its controls in the sidebar, the Parameters tab, the messages and the address bar's link.

    Run as a fragment (``model_view_fragment``) a control's move reruns only this (docs/benchmarks.md says what it
    saves); a move there that starts another model, or reaches a fragment whose page has since opened another tab or
    the Share section, reruns the whole page once the controls are drawn.
    """
    error, culprit = apply_controls()
    model: Model = st.session_state.model
    drawn = st.session_state.get("drawn_for", model)
    rerun_page = not st.session_state.get("full_run") and model != drawn
    rerun_page = rerun_page and (model.reset() != drawn.reset() or not parameters_alone())
    if not rerun_page:
        with messages.container():  # written on every run: Streamlit lets a fragment's rerun write only where the
            show_link_warnings(model)  # last full run wrote, and an edit's error appears on a rerun of this alone
            emptied_note()
            if error:
                st.error(
                    f"Not applied: {quoted(error.rstrip('.'))}. The page shows the last valid model.",
                    icon=":material/error:",
                )
        if tab["Parameters"].open:  # only the open tab runs
            with tab["Parameters"]:
                parameters_tab(model)
    with st.sidebar:
        if model.has_formulas or model.counted_by == "towers":
            page_style.phone_pie(model.summary)
        if model.has_formulas:
            model_controls(error, culprit)
        elif model.counted_by == "towers":
            whole_controls()
            st.caption(ui_hub.what_runs(model))
        else:
            st.caption(f"No controls for the whole model, counted by transformers. {ui_hub.what_runs(model)}")
    if rerun_page:  # only now: a rerun before the controls are drawn resets them to their widgets' defaults (the
        st.rerun()  # slider's 0, a toggle's false, a list's first item: streamlit#11266), which became the model
    keep_url_in_sync(link_query(model, settings))


model_view_fragment = st.fragment(model_view)


freeze_imports()
page()
