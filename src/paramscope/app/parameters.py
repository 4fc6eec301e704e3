"""The Parameters tab: the exact total and its parts, the charts, the whole tree; the model's downloads."""

from __future__ import annotations

import json

import streamlit as st

from paramscope.app import charts, ui_explore
from paramscope.app.text import quoted
from paramscope.engine.components import EMBEDDING_CONVENTION
from paramscope.engine.params import summarize
from paramscope.engine.spec import Spec, percent, short, validate
from paramscope.engine.tree import Summary
from paramscope.io import link, presets
from paramscope.model import Model

DETAILS = "The whole tree, every component and the total's formula"


def model_label(model: Model) -> str:
    """The model in view, as the comparison names models: the preset's title (or the Hub id), marked when the
    controls changed it."""
    name = presets.get(model.preset).title if model.preset else model.hub_id or f"your {model.model_type} model"
    return name if not model.edits else f"{name} (edited)"


def headline_numbers(model: Model, summary: Summary) -> None:
    """The exact total, its short form, embedding vs non-embedding, active per token, change vs preset: one HTML
    element (``charts.headline``), in the theme's text colour."""
    spec, preset = model.spec, model_label(model.reset())
    base_total = summarize(model.reset().spec).total
    diff = summary.total - base_total
    change = f"{diff:+,} ({diff / base_total:+.1%}) vs {preset}" if diff and base_total else ""
    share = summary.embedding / summary.total if summary.total else 0
    first = [
        charts.Number("Total parameters", f"{summary.total:,}", change, "Every parameter; tied weights once"),
        charts.Number("Short form", short(summary.total)),
    ]
    if spec.is_moe:
        first.append(
            charts.Number(
                "Active per token",
                f"{summary.active:,}",
                f"{summary.active_without_input_embedding:,} without the input embedding table",
                f"{validate(spec).num_experts_per_tok} of {spec.num_experts} experts per MoE layer. The line under it "
                "leaves out the input embedding table (a looked-up row), as gpt-oss's card counts",
            )
        )
    else:
        kinds = charts.layer_kinds(summary)
        if len(kinds) == 1:
            layer = sum(n for _, n in kinds[0][2])
            first.append(charts.Number("One layer", f"{layer:,}", tip="Parameters of one block"))
    second = [
        charts.Number("Embedding", f"{summary.embedding:,}", tip=EMBEDDING_CONVENTION),
        charts.Number("Non-embedding", f"{summary.non_embedding:,}"),
        charts.Number("Embedding share", f"{share:.1%}"),
    ]
    st.html(charts.headline([first, second]))


def headline_notes(model: Model) -> None:
    """Under the charts (so that the charts stay in view beside the controls): the embedding convention, what the
    count leaves out, and the edits against the preset."""
    preset = model_label(model.reset())
    lines = [f"Convention: {EMBEDDING_CONVENTION}. Tied weights are counted once."]
    lines += [f"Not in this count: {quoted(note)}." for note in model.notes]
    changed = link.changed(model)
    if changed:
        moves = "; ".join(f"{quoted(name)} {quoted(before)} → {quoted(after)}" for name, before, after in changed)
        lines.append(f"Changed from **{quoted(preset)}** (keys of its config.json): {moves}")
    st.caption("\n\n".join(lines))  # one element, a paragraph each: a move redraws every element


def breakdown_charts(summary: Summary) -> None:
    """Where the parameters go (pie), by component (bars with their exact counts), and one layer of each kind when
    layers differ. Built on every run, not cached: that takes 1-3 ms, less than ``st.cache_data`` took to hash the
    spec and unpickle the figures (docs/benchmarks.md)."""
    both = st.container(horizontal=True)  # side by side, one above the other on a phone
    both.plotly_chart(charts.pie(summary), config=charts.PLOTLY_CONFIG)
    both.html(charts.bars(summary))
    layers = charts.layer_bars(summary)
    if layers is not None:
        st.plotly_chart(layers, config=charts.PLOTLY_CONFIG)


def tree_chart(summary: Summary) -> None:
    st.plotly_chart(charts.treemap(summary), config=charts.PLOTLY_CONFIG)


def component_table(spec: Spec, summary: Summary) -> None:
    """Every component with its count, share and formula; then the total written out, symbol by symbol."""
    rows = [
        {
            "Component": r.component,
            "Parameters": f"{r.params:,}",
            "Share": percent(r.share),
            "Formula (Hugging Face names)": f"`{r.formula}`",
            "Note": r.note,
        }
        for r in charts.component_rows(summary)
    ]
    st.table(rows, hide_index=True, border="horizontal")
    tex, used = charts.total_latex(summary)
    legend = charts.legend_latex(charts.symbol_values(spec, used))
    st.latex(r"\begin{gathered}" + tex + r"\\[1em]" + legend + r"\end{gathered}")


def downloads(model: Model, summary: Summary) -> None:
    """The breakdown and the config as files, made when a button is clicked (not on every move of a control)."""
    stem = (model.preset or model.model_type) + ("-edited" if model.edits else "")
    row = st.container(horizontal=True)
    row.download_button(
        "Breakdown (CSV)", lambda: charts.breakdown_csv(summary), f"{stem}-params.csv", "text/csv", on_click="ignore"
    )
    link = ui_explore.upload_link(model)  # reads the session: made here, not in the click's thread
    row.download_button(
        "Breakdown (JSON)",
        lambda: charts.breakdown_json(summary, model.preset, link),
        f"{stem}-params.json",
        "application/json",
        on_click="ignore",
    )
    row.download_button(
        "config.json (Hugging Face)",
        lambda: json.dumps(model.config, indent=2),
        f"{stem}-config.json",
        "application/json",
        on_click="ignore",
        help="The config the model was read from, with your edits: transformers builds the same total from it.",
    )
