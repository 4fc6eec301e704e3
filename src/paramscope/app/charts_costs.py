"""Plotly figures for the Memory and Compute tabs. Pure functions of engine results: no Streamlit here.

Memory axes are in GB (10^9 bytes); every hover also gives GiB (2^30 bytes) and the exact byte count.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from paramscope.app.charts import marker_line
from paramscope.engine.hardware import GB, GiB
from paramscope.engine.memory import PARTS
from paramscope.engine.tree import Node

PART_LABELS = {
    "weights": "Weights",
    "kv_cache": "KV cache",
    "gradients": "Gradients",
    "optimizer": "Optimizer states",
    "activations": "Activations",
    "transient": "Transient (the peak phase)",
    "allocator": "Allocator margin",
    "runtime": "Runtime (assumed)",
    "reserve": "Outside gpu_memory_utilization",
}
PART_COLOURS = {
    "weights": "#4c78a8",
    "kv_cache": "#f58518",
    "gradients": "#e45756",
    "optimizer": "#b279a2",
    "activations": "#54a24b",
    "transient": "#eeca3b",
    "allocator": "#bab0ac",
    "runtime": "#9d9da1",
    "reserve": "#d8d8d8",
}
FLOP_COLOURS = {
    "attention matmuls": "#f58518",
    "attention scores": "#ffbf79",
    "MLP": "#e45756",
    "experts (MoE)": "#b279a2",
    "recurrent": "#eeca3b",
    "LM head": "#4c78a8",
    "other": "#79706e",
}

_LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2), height=380)


def _hover(n: int) -> str:
    return f"{n / GB:,.3f} GB<br>{n / GiB:,.3f} GiB<br>{n:,} bytes"


def _capacity_line(fig: go.Figure, capacity: int | None, label: str) -> None:
    """A dashed line at the GPU's memory, named in the legend (a label on the plot would sit on the bars and their
    values, in either theme and on a phone)."""
    if capacity:
        name = f"{label}: {capacity / GB:,.0f} GB"
        fig.add_hline(y=capacity / GB, line=dict(dash="dash", color="#d62728"), showlegend=True, name=name)


def memory_bar(parts: dict[str, int], capacity: int | None = None, gpu_label: str = "", title: str = "") -> go.Figure:
    """One stacked bar of the memory parts (GB) with a dashed line at the GPU's capacity; each part's GB inside it
    where it is tall enough to read."""
    fig = go.Figure()
    for p in PARTS:
        n = parts.get(p, 0)
        if not n:
            continue
        fig.add_bar(
            x=["per GPU"],
            y=[n / GB],
            name=PART_LABELS[p],
            marker_color=PART_COLOURS[p],
            hovertext=[_hover(n)],
            hoverinfo="text+name",
            text=[f"{n / GB:,.2f}"],
            textposition="inside",
        )
    _capacity_line(fig, capacity, gpu_label or "GPU")
    top = max(parts.get("total", 0), capacity or 0) / GB
    fig.update_layout(
        barmode="stack",
        title=title or "Memory per GPU",
        yaxis_title="GB (10⁹ bytes)",
        yaxis_range=[0, top * 1.12 if top else 1],
        uniformtext=dict(minsize=10, mode="hide"),  # a part too thin for a readable label shows it on hover alone
        **_LAYOUT,
    )
    return fig


def memory_phases(
    steps: Sequence[Node],
    peak: str,
    capacity: int | None = None,
    gpu_label: str = "",
    held: float = 0.0,
    held_what: str = "the runtime",
) -> go.Figure:
    """One stacked bar per phase of the run (GB allocated: weights, cache, states, activations, the phase's
    transient), the peak phase named, the capacity as a line, with what is held outside the phases (``held``, GB:
    the runtime, and a serving engine's reserve) subtracted from it so that a bar under the line fits."""
    fig = go.Figure()
    names = [p.path.replace("_", " ") + (" (peak)" if p.path == peak else "") for p in steps]
    for part in PARTS:
        ys = [p.get(part) for p in steps]
        if not any(ys):
            continue
        fig.add_bar(
            x=names,
            y=[y / GB for y in ys],
            name=PART_LABELS[part],
            marker_color=PART_COLOURS[part],
            hovertext=[_hover(y) for y in ys],
            hoverinfo="text+name",
        )
    if capacity:
        room = capacity / GB - held
        fig.add_hline(
            y=room,
            line=dict(dash="dash", color="#d62728"),
            showlegend=True,
            name=f"{gpu_label or 'GPU'} less {held_what}: {room:,.1f} GB",
        )
    fig.update_layout(barmode="stack", title="Memory through the run", yaxis_title="GB (10⁹ bytes)", **_LAYOUT)
    return fig


def memory_sweep(
    xs: Sequence[int],
    rows: Sequence[dict[str, int]],
    x_title: str,
    capacity: int | None = None,
    gpu_label: str = "",
    marker: int | None = None,
    log_x: bool = True,
) -> go.Figure:
    """Stacked areas of the memory parts against ``xs`` (context length or batch), capacity as a line."""
    fig = go.Figure()
    for p in PARTS:
        ys = [r.get(p, 0) for r in rows]
        if not any(ys):
            continue
        fig.add_scatter(
            x=list(xs),
            y=[y / GB for y in ys],
            name=PART_LABELS[p],
            stackgroup="memory",
            mode="lines",
            line=dict(color=PART_COLOURS[p], width=0.5),
            hovertext=[_hover(y) for y in ys],
            hoverinfo="text+name+x",
        )
    _capacity_line(fig, capacity, gpu_label or "GPU")
    if marker:
        marker_line(fig, marker, "chosen", log_x)
    fig.update_layout(xaxis_title=x_title, yaxis_title="GB (10⁹ bytes)", **_LAYOUT)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.3))  # under the axis title, not over it
    if log_x:  # each value swept, written out (Plotly's own log ticks read "2 3 4 5 ... 1000 2 3": no magnitudes)
        fig.update_xaxes(type="log", tickvals=list(xs), ticktext=[f"{x:,}" for x in xs])
    return fig


def flop_kind(path: str) -> str:
    """The chart category of a FLOPs-tree leaf."""
    name = path.rsplit("/", 1)[-1]
    if "/attention/" in path or "/cross_attention/" in path:
        return "attention scores" if name.startswith(("scores", "values")) else "attention matmuls"
    if "/mlp/" in path:
        return "MLP"
    if "/moe/" in path:
        return "experts (MoE)"
    if path.endswith("/recurrent"):
        return "recurrent"
    if path == "head/lm":
        return "LM head"
    return "other"


def flops_breakdown(tree: Node, seq: int) -> dict[str, int]:
    """Forward FLOPs per sequence grouped by kind (attention matmuls, scores, MLP, experts, LM head ...)."""
    out: dict[str, int] = {}
    for leaf in tree.leaves():
        if leaf.count:
            kind = flop_kind(leaf.path)
            out[kind] = out.get(kind, 0) + leaf.count
    return out


def flops_bar(tree: Node, seq: int) -> go.Figure:
    """Horizontal bars: forward FLOPs per token by kind, with the share of the total."""
    groups = flops_breakdown(tree, seq)
    total = sum(groups.values()) or 1
    kinds = [k for k in FLOP_COLOURS if k in groups]
    per_token = [groups[k] / seq for k in kinds]
    fig = go.Figure(
        go.Bar(
            y=kinds,
            x=[v / 1e9 for v in per_token],
            orientation="h",
            marker_color=[FLOP_COLOURS[k] for k in kinds],
            text=[f"{100 * groups[k] / total:.1f}%" for k in kinds],
            textposition="auto",
            hovertext=[f"{v:,.0f} FLOPs per token" for v in per_token],
            hoverinfo="text+y",
        )
    )
    fig.update_layout(
        title=f"Forward FLOPs per token at {seq:,} tokens",
        xaxis_title="GFLOPs per token",
        yaxis=dict(autorange="reversed"),
        **{**_LAYOUT, "height": 320},
    )
    return fig
