"""Plotly figures for the explore tabs: model comparison, dimension sweeps, "where the parameters go".

Pure functions from engine results (:mod:`paramscope.analysis.compare`, :mod:`paramscope.analysis.sweep`) to figures; no
Streamlit. Component kinds take their labels and colours from the component registry.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from paramscope.analysis.compare import Comparison
from paramscope.app.charts import marker_line
from paramscope.engine.components import KINDS
from paramscope.engine.spec import percent, short

_FONT = dict(family="Source Sans Pro, sans-serif")
_LEGEND = dict(orientation="h", yanchor="top", y=-0.22, x=0)
#: The compared models' colours: none of the component kinds' (blue embeddings, orange attention ...), so that the
#: bars per model and the totals split by component never read as the same thing.
MODEL_COLOURS = ("#17becf", "#e377c2", "#bcbd22")
DIMENSION_LABELS = {
    "num_hidden_layers": "layers (num_hidden_layers)",
    "hidden_size": "width (hidden_size)",
    "vocab_size": "vocabulary (vocab_size)",
    "num_experts": "experts (num_experts)",
}


def _layout(fig: go.Figure, height: int, **kw: Any) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=50, b=10), font=_FONT, **kw)
    fig.update_xaxes(exponentformat="B")  # 1B, as the labels say (Plotly's SI format would say 1G)
    fig.update_yaxes(exponentformat="B")
    return fig


def _hover(n: float) -> str:
    return f"{n:,.0f} ({short(n)})"


# ------------------------------------------------------------------------------------------ compare
def compare_bars(c: Comparison, log: bool = False) -> go.Figure:
    """Grouped bars: one group per component kind, one bar per model."""
    kinds = list(c.kinds)
    fig = go.Figure()
    for i, label in enumerate(c.labels):
        values = [c.kinds[k][i] for k in kinds]
        fig.add_bar(
            name=label,
            x=[KINDS[k].label for k in kinds],
            y=values,
            marker_color=MODEL_COLOURS[i % len(MODEL_COLOURS)],
            text=[short(v) if v else "" for v in values],
            textposition="outside",
            hovertext=[_hover(v) for v in values],
            hovertemplate="%{x}<br>%{hovertext}<extra>" + label.replace("<", "‹") + "</extra>",
        )
    fig.update_yaxes(title_text="parameters", type="log" if log else "linear")
    return _layout(fig, 420, barmode="group", title="Parameters per component", legend=_LEGEND)


def compare_totals(c: Comparison) -> go.Figure:
    """Stacked horizontal bars: each model's total split into component kinds."""
    fig = go.Figure()
    for kind, counts in c.kinds.items():
        fig.add_bar(
            name=KINDS[kind].label,
            y=list(c.labels),
            x=list(counts),
            orientation="h",
            marker_color=KINDS[kind].colour,
            hovertext=[_hover(v) for v in counts],
            hovertemplate="%{y}: %{hovertext}<extra>" + KINDS[kind].label + "</extra>",
        )
    for label, total in zip(c.labels, c.totals, strict=True):  # each bar's total at its end
        fig.add_annotation(x=total, y=label, text=f" {short(total)}", showarrow=False, xanchor="left")
    fig.update_xaxes(title_text="parameters", range=[0, 1.15 * max(c.totals, default=1)])
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, 120 + 60 * len(c.labels), barmode="stack", title="Totals", legend=_LEGEND)


# -------------------------------------------------------------------------------------------- sweep
def _x_title(field: str) -> str:
    return DIMENSION_LABELS.get(field, field)


def _family_markers(fig: go.Figure, points: Sequence[dict[str, Any]], key: str, **kw: Any) -> None:
    """The real models as labelled diamonds; models at the same value within 5 % of each other's count share one
    diamond and one label ("Llama 3 70B · Llama 3.1 70B"), so no two labels sit on each other; labels may run past
    the plot's edge instead of being cut there."""
    groups: list[list[dict[str, Any]]] = []
    for p in sorted((p for p in points if p[key]), key=lambda p: (p["value"], p[key])):
        last = groups[-1][-1] if groups else None
        if last is not None and last["value"] == p["value"] and p[key] <= 1.05 * last[key]:
            groups[-1].append(p)
        else:
            groups.append([p])
    if not groups:
        return
    fig.add_scatter(
        x=[g[0]["value"] for g in groups],
        y=[g[0][key] for g in groups],
        mode="markers+text",
        name="real models",
        text=[" · ".join(p["title"] for p in g) for g in groups],  # as Compare names models
        textposition="top center",
        cliponaxis=False,
        marker=dict(symbol="diamond", size=11, color="#6b7280", line=dict(width=1, color="white")),
        hovertext=["<br>".join(f"{p['title']}: {_hover(p[key])}" for p in g) for g in groups],
        hovertemplate="%{hovertext}<extra></extra>",
        **kw,
    )


def sweep_params(
    rows: Sequence[dict[str, Any]],
    field: str,
    points: Sequence[dict[str, Any]] = (),
    current: int | None = None,
    log: bool = True,
) -> go.Figure:
    """Total, non-embedding and embedding parameters against the swept value, real models marked."""
    x = [r["value"] for r in rows]
    fig = go.Figure()
    for key, name, colour, dash in (
        ("total", "total", "#6b7280", "solid"),
        ("non_embedding", "non-embedding", "#e45756", "solid"),
        ("embedding", "embedding", "#4c78a8", "solid"),
        ("kaplan_12LD2", "Kaplan 12·L·d²", "#9ca3af", "dash"),
    ):
        fig.add_scatter(
            x=x,
            y=[r[key] for r in rows],
            mode="lines+markers",
            name=name,
            line=dict(color=colour, dash=dash),
            hovertext=[_hover(r[key]) for r in rows],
            hovertemplate="%{x:,}: %{hovertext}<extra>" + name + "</extra>",
        )
    _family_markers(fig, points, "total")
    marker_line(fig, current, "this model", log)
    axis = "log" if log else "linear"
    fig.update_xaxes(title_text=_x_title(field), type=axis, **_ticks(x, log, _whole))
    lines = ("total", "non_embedding", "embedding", "kaplan_12LD2")  # every line drawn: the ticks reach the lowest
    ys = [r[k] for r in rows for k in lines if r.get(k, 0) > 0] + [p["total"] for p in points if p["total"]]
    fig.update_yaxes(title_text="parameters", type=axis, **_ticks(ys, log, short))
    return _layout(fig, 440, title="Parameters", legend=_LEGEND)


def sweep_share(rows: Sequence[dict[str, Any]], field: str, current: int | None = None, log: bool = True) -> go.Figure:
    """The embedding share of the total (%) against the swept value."""
    fig = go.Figure()
    fig.add_scatter(
        x=[r["value"] for r in rows],
        y=[100 * r["embedding_share"] for r in rows],
        mode="lines+markers",
        name="embedding share",
        line=dict(color="#4c78a8"),
        hovertemplate="%{x:,}: %{y:.1f} %<extra></extra>",
    )
    marker_line(fig, current, "this model", log)
    x = [r["value"] for r in rows]
    fig.update_xaxes(title_text=_x_title(field), type="log" if log else "linear", **_ticks(x, log, _whole))
    fig.update_yaxes(title_text="% of all parameters", rangemode="tozero")
    return _layout(fig, 320, title="Embedding share", showlegend=False)


def sweep_kaplan(rows: Sequence[dict[str, Any]], field: str, current: int | None = None, log: bool = True) -> go.Figure:
    """How far Kaplan's 12·L·d² is from the exact non-embedding count (%), and from the total (%)."""
    fig = go.Figure()
    x = [r["value"] for r in rows]
    for key, name, colour in (
        ("kaplan_error_pct", "vs non-embedding", "#e45756"),
        ("kaplan_vs_total_pct", "vs total", "#6b7280"),
    ):
        fig.add_scatter(
            x=x,
            y=[r[key] for r in rows],
            mode="lines+markers",
            name=name,
            line=dict(color=colour),
            hovertemplate="%{x:,}: %{y:+.3f} %<extra>" + name + "</extra>",
        )
    fig.add_hline(y=0, line_color="#9ca3af")
    marker_line(fig, current, "this model", log)
    fig.update_xaxes(title_text=_x_title(field), type="log" if log else "linear", **_ticks(x, log, _whole))
    fig.update_yaxes(title_text="(12·L·d² − exact) / exact, %")
    return _layout(fig, 340, title="Kaplan's approximation: error", legend=_LEGEND)


def sweep_costs(
    rows: Sequence[dict[str, Any]], field: str, current: int | None = None, log: bool = True
) -> go.Figure | None:
    """Memory (inference, training; GB) and training FLOPs per token against the swept value; ``None``
    when the rows carry no cost columns (the model's costs cannot be computed under the run settings)."""
    has_mem = any("inference_gb" in r for r in rows)
    has_flops = any("training_flops_per_token" in r for r in rows)
    if not (has_mem or has_flops):
        return None
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    x = [r["value"] for r in rows]
    for key, name, colour in (
        ("inference_gb", "inference memory", "#54a24b"),
        ("training_gb", "training memory", "#b279a2"),
    ):
        if has_mem:
            fig.add_scatter(
                x=x,
                y=[r.get(key) for r in rows],
                mode="lines+markers",
                name=name + " (GB)",
                line=dict(color=colour),
                hovertemplate="%{x:,}: %{y:,.2f} GB<extra>" + name + "</extra>",
                secondary_y=False,
            )
    if has_flops:
        fig.add_scatter(
            x=x,
            y=[r.get("training_flops_per_token") for r in rows],
            mode="lines+markers",
            name="training FLOPs / token",
            line=dict(color="#f58518", dash="dash"),
            hovertemplate="%{x:,}: %{y:.3s} FLOPs per token<extra></extra>",
            secondary_y=True,
        )
    marker_line(fig, current, "this model", log)
    axis = "log" if log else "linear"
    fig.update_xaxes(title_text=_x_title(field), type=axis, **_ticks(x, log, _whole))
    memory = [r.get(k) for r in rows for k in ("inference_gb", "training_gb") if r.get(k)]
    flops = [r.get("training_flops_per_token") for r in rows if r.get("training_flops_per_token")]
    fig.update_yaxes(title_text="GB per GPU", type=axis, secondary_y=False, **_ticks(memory, log, _gb_tick))
    fig.update_yaxes(title_text="FLOPs per training token", type=axis, secondary_y=True, **_ticks(flops, log, short))
    return _layout(fig, 380, title="Memory and training compute", legend=_LEGEND)


def _gb_tick(v: float) -> str:
    return f"{v:,.3g}" if v < 1000 else f"{v:,.0f}"


def _whole(v: float) -> str:
    return f"{v:,.0f}"


def _ticks(values: Sequence[float], log: bool, text: Any) -> dict[str, Any]:
    """Ticks every label of which carries its magnitude: on a log axis 1, 2 and 5 times each power of ten within the
    values' range, labelled by ``text`` (Plotly labels the ticks between powers of ten 2, 3, 5, and a log axis spanning
    about a decade 12.02054B, 2, 3, 5 ...); nothing to set on a linear axis or without values."""
    if not log or not values:
        return {}
    lo, hi = min(values), max(values)
    ticks = [m * 10**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1) for m in (1, 2, 5)]
    inside = [t for t in ticks if lo <= t <= hi]
    if len(inside) < 2:  # a narrow range: its ends, and a middle value
        inside = [lo, math.sqrt(lo * hi), hi]
    return {"tickvals": inside, "ticktext": [text(t) for t in inside]}


# ------------------------------------------------------------------------------------- where it goes
def where_bars(rows: Sequence[dict[str, Any]], title: str) -> go.Figure:
    """Horizontal bars of parameters per component kind with their share (rows of ``where_it_goes``)."""
    fig = go.Figure()
    fig.add_bar(
        y=[KINDS[r["component"]].label for r in rows],
        x=[r["params"] for r in rows],
        orientation="h",
        marker_color=[KINDS[r["component"]].colour for r in rows],
        text=[f"{percent(100 * r['share'])}  ({short(r['params'])})" for r in rows],
        textposition="auto",
        hovertext=[_hover(r["params"]) for r in rows],
        hovertemplate="%{y}: %{hovertext}<extra></extra>",
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title_text="parameters")
    return _layout(fig, 80 + 45 * len(rows), title=title, showlegend=False)
