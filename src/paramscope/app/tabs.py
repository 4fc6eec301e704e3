"""The tabs below the headline: the Parameters tab, and Memory, Compute, Compare, Architecture and Why so big?, each
drawn only while open (``st.tabs(..., on_change="rerun")``)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from paramscope.app import ui_costs, ui_explore, ui_hub
from paramscope.app.parameters import (
    DETAILS,
    breakdown_charts,
    component_table,
    headline_notes,
    headline_numbers,
    model_label,
    tree_chart,
)
from paramscope.app.session import TABS, use_model
from paramscope.app.text import quoted
from paramscope.engine.spec import Spec, validate
from paramscope.families.wholes import NO_LANGUAGE_MODEL
from paramscope.model import Model

RUN_TABS = ("Memory", "Compute", "Compare", "Why so big?")  # the tabs that use the run settings


def parameters_tab(model: Model) -> None:
    """The exact total and its parts, the charts and the whole tree (on demand); the downloads are in the section
    under the tabs that holds the link."""
    if not model.has_formulas:  # a whole model composed from its towers, or a type counted by transformers
        ui_hub.render_whole_or_long_tail(model, on_use=use_model)
        if model.hub_id:
            ui_hub.render_checkpoint(model)
        return
    spec, summary = model.spec, model.summary
    headline_numbers(model, summary)
    if model.hub_id:
        ui_hub.render_checkpoint(model)
    breakdown_charts(summary)
    headline_notes(model)
    details = st.expander(DETAILS, key="details", on_change="rerun")
    if details.open:  # drawn only while open: it is the heaviest part of the page
        with details:
            tree_chart(summary)
            component_table(spec, summary)


def other_tabs(model: Model, tab: dict, settings: object) -> None:
    """Memory, Compute, Compare, Architecture and Why so big?, each drawn only while open. A multimodal model
    counted by transformers has its costs (its language model's, with the other towers as weights) and no more."""
    spec = model.cost_spec
    for name, render in (("Memory", ui_costs.render_memory_tab), ("Compute", ui_costs.render_compute_tab)):
        if tab[name].open and spec is not None:
            with tab[name]:
                if not model.has_formulas:
                    ui_hub.render_costs_of_towers(model)
                if name == "Memory":
                    ui_costs.render_stored_format(model.stored_format, settings)
                cost_tab(render, spec, settings)
    if not model.has_formulas:
        needs_formulas(model, tab, ("Compare", "Architecture", "Why so big?") if spec is not None else TABS)
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
    """The tabs of ``names`` that need one stack's formulas, for a model counted by transformers or a whole model
    of towers (whose Memory and Compute run on its language model, where it has one)."""
    towers = " or one of its towers (the buttons on the Parameters tab)" if model.towers else ""
    for name in names:
        if name not in ("Parameters", "Your model") and tab[name].open:
            if model.counted_by != "towers":
                why = f"{name} needs the formulas of a family row, and {model.model_type} has none yet"
            elif name in ("Memory", "Compute"):
                why = f"{model.model_type} has {NO_LANGUAGE_MODEL}"
            else:
                why = f"{name} runs on one stack of layers, and {model.model_type} is a whole model of several towers"
            with tab[name]:
                st.info(
                    f"{why}: only its exact parameter count is shown. Pick a preset, another model{towers}.",
                    icon=":material/info:",
                )


def cost_tab(render: Callable[[Spec, object], None], spec: Spec, settings: object) -> None:
    """A Memory or Compute tab; a setting that does not apply to this model is explained, not a crash."""
    try:
        render(validate(spec), settings)
    except ValueError as exc:
        st.error(quoted(exc), icon=":material/error:")
