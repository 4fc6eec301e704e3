"""What the page draws, built from the parameter tree: Plotly figures, the component table, the total's
formula in LaTeX and the downloadable breakdowns. No Streamlit here; every function is pure.

Labels and colours come from the component registry (:mod:`paramscope.engine.components`), so that
"attention" is the same colour in the pie, the bars and the treemap, for every model and on every rerun.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
import re
from dataclasses import dataclass
from types import MappingProxyType

import plotly.graph_objects as go

from paramscope.engine.components import EMBEDDING_CONVENTION, colour, components, label
from paramscope.engine.spec import ATTENTION_GROUPS, Spec, short, validate
from paramscope.engine.tree import Node, Summary

#: Every chart's Plotly config: no logo, and a short toolbar (image, zoom, pan, reset) that leaves the chart's title
#: readable on a phone, where the toolbar does not hide until hovered.
PLOTLY_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["zoomIn2d", "zoomOut2d", "autoScale2d", "lasso2d", "select2d"],
}


def marker_line(fig: go.Figure, x: float | None, text: str, log: bool = False) -> None:
    """A dotted vertical line at ``x`` (the model in view, the chosen setting) with its label on top, in a grey seen
    in both themes (3.3:1 on white, 5.7:1 on dark). The label is placed by hand: on a log axis an annotation's x is
    log10(x), which ``add_vline``'s own annotation would take a second time."""
    if x is None:
        return
    fig.add_vline(x=x, line_dash="dot", line_color="#878e9a")
    at = math.log10(x) if log and x > 0 else x
    fig.add_annotation(x=at, y=1, yref="paper", text=text, showarrow=False, xanchor="left", yanchor="bottom")


# ------------------------------------------------------------------------------------------ components
GROUP_COLOUR = "rgba(128, 128, 128, 0.22)"


def component_of(path: str, comps: list[Node]) -> str:
    """The component path that holds ``path`` ('' for a group above the components)."""
    for c in comps:
        if path == c.path or path.startswith(c.path + "/"):
            return c.path
    return ""


# ------------------------------------------------------------------------------------------ formulas
def _is_auto(node: Node) -> bool:
    return bool(node.children) and node.formula == " + ".join(c.name for c in node.children if c.count)


def _paren(expr: str) -> str:
    return f"({expr})" if ("+" in expr or " - " in expr) else expr


def _parts(node: Node, outer: str) -> tuple[str, str]:
    """(extra repeat factor beyond ``outer``, expression for one copy) of ``node``."""
    own = node.repeat_name
    if own == outer:
        extra = ""
    elif outer and own.startswith(outer + "*"):
        extra = own[len(outer) + 1 :]
    else:
        extra = own
    if _is_auto(node):
        kids = [_parts(c, own) for c in node.children if c.count]
        factors = {f for f, _ in kids}
        if len(kids) > 1 and len(factors) == 1 and "" not in factors:
            (common,) = factors
            inner = f"{common}*({' + '.join(e for _, e in kids)})"
        else:
            inner = " + ".join(f"{f}*{_paren(e)}" if f else e for f, e in kids)
    else:
        inner = node.formula
    return extra, inner


def expanded_formula(node: Node) -> str:
    """``node``'s count as one expression in spec field names, children written out (not named)."""
    extra, inner = _parts(node, "")
    return f"{extra}*{_paren(inner)}" if extra else inner


#: Field name -> LaTeX symbol for the written-out total.
SYMBOLS = MappingProxyType(
    {
        "vocab_size": "V",
        "hidden_size": "d",
        "num_hidden_layers": "L",
        "num_decoder_layers": r"L_{\mathrm{dec}}",
        "num_attention_heads": "n_h",
        "num_key_value_heads": r"n_{kv}",
        "head_dim": "d_h",
        "intermediate_size": r"d_{\mathrm{ff}}",
        "moe_intermediate_size": r"d_{\mathrm{exp}}",
        "shared_expert_intermediate_size": r"d_{\mathrm{sh}}",
        "num_experts": "E",
        "max_position_embeddings": "T",
        "type_vocab_size": "V_{\\mathrm{type}}",
        "embedding_size": "d_e",
        "recurrent_units": "r",
        "num_hidden_groups": "G",
        "relative_attention_num_buckets": "B",
        "first_k_dense_replace": r"k_{\mathrm{dense}}",
        "q_lora_rank": "r_q",
        "kv_lora_rank": r"r_{kv}",
        "qk_nope_head_dim": r"d_{\mathrm{nope}}",
        "qk_rope_head_dim": r"d_{\mathrm{rope}}",
        "v_head_dim": "d_v",
        "num_moe_layers": r"L_{\mathrm{moe}}",
        "dense_layers": r"L_{\mathrm{dense}}",
    }
)
_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(=\d+)?|(\d+)|(\*)|(\^)|([()+\-])|(\s+)|(.)")


def to_latex(expr: str) -> tuple[str, list[str]]:
    """A formula in field names as LaTeX with short symbols, and the field names it uses (in order)."""
    out: list[str] = []
    used: list[str] = []
    for m in _TOKEN.finditer(expr):
        name, _, number, star, caret, op, space, other = m.groups()
        if name:
            sym = SYMBOLS.get(name)
            if sym is None:
                sym = r"\mathrm{" + name.replace("_", r"\_") + "}"
            elif name not in used:
                used.append(name)
            out.append(sym)
        elif number:
            out.append(number)
        elif star:
            out.append(r" \cdot ")
        elif caret:
            out.append("^")
        elif op:
            out.append(f" {op} " if op in "+-" else op)
        elif other:
            out.append(other)
    return "".join(out), used


def symbol_values(spec: Spec, names: list[str]) -> list[tuple[str, str, int]]:
    """(symbol, field name, value) for the fields a formula uses."""
    s = validate(spec)
    kinds = s.stack(s.num_hidden_layers, "num_hidden_layers")
    extra = {"num_moe_layers": kinds.moe, "dense_layers": kinds.mlp}
    rows = []
    for name in names:
        value = extra[name] if name in extra else getattr(s, name, None)
        if name == "moe_intermediate_size":
            value = s.expert_size
        if name == "shared_expert_intermediate_size":
            value = s.shared_expert_size
        if isinstance(value, int) and not isinstance(value, bool):
            rows.append((SYMBOLS[name], name, value))
    return rows


def legend_latex(rows: list[tuple[str, str, int]]) -> str:
    """What the symbols stand for, as one LaTeX table: symbol, field name, value."""
    body = r" \\ ".join(
        rf"{sym} & \texttt{{{name.replace('_', chr(92) + '_')}}} & {value:,}".replace(",", "{,}")
        for sym, name, value in rows
    )
    return r"\begin{array}{lll}" + body + r"\end{array}"


def total_latex(summary: Summary) -> tuple[str, list[str]]:
    """The total as a sum over components, one per line, ending in the exact number."""
    lines = []
    used: list[str] = []
    for c in components(summary.tree):
        if not c.count:
            continue
        tex, names = to_latex(expanded_formula(c))
        used += [n for n in names if n not in used]
        lines.append(rf"&{'+' if lines else '='} {tex} && \text{{{label(c.path)}}}")
    lines.append(rf"&= {summary.total:,}".replace(",", "{,}"))
    body = r" \\ ".join(lines)
    return r"\begin{aligned} N " + body + r"\end{aligned}", used


# ------------------------------------------------------------------------------------------ table
@dataclass(frozen=True)
class Row:
    component: str
    path: str
    params: int
    share: float  # percent of the total
    formula: str
    note: str


def component_rows(summary: Summary) -> list[Row]:
    """One row per component, in tree order (tied heads included, with their note)."""
    total = summary.total or 1
    rows = []
    for c in components(summary.tree):
        if not c.count and not c.note:
            continue
        note = c.note or (f"{c.repeat} copies" if c.repeat > 1 else "")
        rows.append(Row(label(c.path), c.path, c.count, 100 * c.count / total, expanded_formula(c), note))
    return rows


def breakdown_csv(summary: Summary) -> str:
    """Every node of the tree: path, parameters, share of the total, repeat, shape, formula, note."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["path", "params", "share_percent", "repeat", "shape", "formula", "note"])
    total = summary.total or 1
    for n in summary.tree.walk():
        w.writerow(
            [n.path or "total", n.count, f"{100 * n.count / total:.4f}", n.repeat, n.shape, n.full_formula, n.note]
        )
    return buf.getvalue()


def breakdown_json(summary: Summary, preset: str, link: dict[str, str]) -> str:
    """The headline numbers, the link that rebuilds the model and the whole tree."""
    data = {
        "preset": preset,
        "link_query": link,
        "total": summary.total,
        "embedding": summary.embedding,
        "non_embedding": summary.non_embedding,
        "active_per_token": summary.active,
        "convention": EMBEDDING_CONVENTION,
        "tree": summary.tree.to_dict(),
    }
    return json.dumps(data, indent=1)


# ------------------------------------------------------------------------------------------ figures
_FONT = dict(family="Source Sans Pro, sans-serif")


def _figure(traces: list[dict], height: int, **layout: object) -> go.Figure:
    """A figure built in one step from plain dicts (a tenth of the time of Plotly's property-by-property
    updates), without Plotly's own template: Streamlit themes it in the browser (light or dark), and the
    default template would add ~6 kB and most of the build time to every figure."""
    margin = dict(l=8, r=8, t=36, b=8) | layout.pop("margin", {})
    for axis in ("xaxis", "yaxis"):  # ticks read 1B, as the labels do (Plotly's SI format would say 1G)
        layout[axis] = {"exponentformat": "B", **layout.get(axis, {})}
    return go.Figure(
        {"data": traces, "layout": dict(template="none", height=height, margin=margin, font=_FONT, **layout)}
    )


SMALL_SHARE = 0.005  # pie slices below this share of the total are grouped
OTHER_COLOUR = "#9d9d9d"


def _slices(summary: Summary) -> tuple[list[str], list[int], list[str]]:
    """The pie's slices: one per component (tied copies have none), slivers grouped into one slice so that every
    slice can carry a label; their labels, counts and colours."""
    comps = [c for c in components(summary.tree) if c.count]
    small = [c for c in comps if c.count < SMALL_SHARE * summary.total]
    if len(small) > 1:
        comps = [c for c in comps if c not in small]
    labels = [label(c.path) for c in comps]
    values = [c.count for c in comps]
    colours = [colour(c.path) for c in comps]
    if len(small) > 1:
        labels.append(f"{len(small)} small parts (< {SMALL_SHARE:.1%} each)")
        values.append(sum(c.count for c in small))
        colours.append(OTHER_COLOUR)
    return labels, values, colours


def pie(summary: Summary) -> go.Figure:
    """Where the parameters go: one slice per component (tied copies have no slice)."""
    labels, values, colours = _slices(summary)
    pie = dict(
        type="pie",
        labels=labels,
        values=values,
        customdata=[[f"{v:,}", short(v)] for v in values],
        marker=dict(colors=colours, line=dict(width=1, color="rgba(255,255,255,0.6)")),
        hole=0.45,
        sort=False,
        direction="clockwise",
        texttemplate="%{percent:.1%}",
        textposition="inside",
        insidetextorientation="horizontal",
        hovertemplate="<b>%{label}</b><br>%{customdata[0][0]} parameters<br>%{percent}<extra></extra>",
    )
    return _figure(
        [pie],
        340,  # with its legend, inside a 900-pixel window beside the controls
        title=dict(text="Where the parameters go", x=0),
        annotations=[dict(text=f"<b>{short(summary.total)}</b>", showarrow=False, font=dict(size=18))],
        uniformtext=dict(minsize=10, mode="hide"),
        legend=dict(orientation="h", yanchor="top", y=-0.02, x=0),
    )


def pie_svg(summary: Summary, size: int = 88) -> str:
    """The pie as a small static donut (an SVG image: the same slices and colours, clockwise from the top) with the
    total and the share of its three largest slices beside it: what the side panel shows on a phone while a control
    moves. Every text in it is the engine's (component names and numbers), escaped all the same."""
    labels, values, colours = _slices(summary)
    total, c, r_out, r_in = sum(values), size / 2, size / 2 - 1, size * 0.27
    paths, start = [], 0.0
    for value, fill in zip(values, colours, strict=True):
        end = start + value / total if total else start
        if end - start >= 0.9999:  # one slice: a ring (an arc cannot close on itself)
            paths.append(
                f'<circle cx="{c}" cy="{c}" r="{(r_out + r_in) / 2:.2f}" fill="none" stroke="{fill}" '
                f'stroke-width="{r_out - r_in:.2f}"/>'
            )
        elif end > start:
            big = 1 if end - start > 0.5 else 0
            pts = [
                (c + r * math.sin(2 * math.pi * a), c - r * math.cos(2 * math.pi * a))
                for r, a in ((r_out, start), (r_out, end), (r_in, end), (r_in, start))
            ]
            (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
            paths.append(
                f'<path d="M{x0:.2f},{y0:.2f} A{r_out:.2f},{r_out:.2f} 0 {big} 1 {x1:.2f},{y1:.2f} '
                f'L{x2:.2f},{y2:.2f} A{r_in:.2f},{r_in:.2f} 0 {big} 0 {x3:.2f},{y3:.2f} Z" fill="{fill}"/>'
            )
        start = end
    ranked = sorted(zip(values, labels, colours, strict=True), reverse=True)[:3]
    legend = "".join(
        f'<div><span style="color:{fill}">&#9632;</span> {html.escape(name)} {value / total:.1%}</div>'
        for value, name, fill in ranked
        if total
    )
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}">{"".join(paths)}</svg>'
    image = base64.b64encode(svg.encode()).decode()  # an image: st.html's sanitizer drops inline <svg>
    return (
        f'<div class="mini-pie"><img src="data:image/svg+xml;base64,{image}" width="{size}" height="{size}" '
        f'alt="Where the parameters go: a donut of the parts below"><div><div class="mini-pie-total">'
        f"{summary.total:,} parameters</div>{legend}</div></div>"
    )


def bars(summary: Summary) -> str:
    """Parameters by component, largest first: each name with its exact count beside a bar of its length, as HTML
    (a bar too thin to draw, such as a norm beside a 1T model's experts, still shows its count; a hover gives its
    share). Drawn by the browser as text and boxes, not as a second Plotly chart: it has nothing to zoom or hover,
    and Plotly took about half of the browser's script time of a control's move to draw it (docs/benchmarks.md).
    Every text in it is the engine's (component names and numbers), escaped all the same."""
    comps = sorted((c for c in components(summary.tree) if c.count), key=lambda c: -c.count)
    top = max((c.count for c in comps), default=0)
    rows = "".join(
        f'<div class="ps-bar-name">{html.escape(label(c.path))}<br><span class="ps-bar-count">{c.count:,}</span></div>'
        f'<div class="ps-bar-track" title="{c.count / summary.total:.1%} of the total">'
        f'<div class="ps-bar" style="width:{100 * c.count / top:.2f}%;background:{colour(c.path)}"></div></div>'
        for c in comps
    )
    title = '<div class="ps-bars-title">By component</div>'
    return f'<div class="ps-bars">{title}<div class="ps-bars-grid">{rows}</div></div>'


@dataclass(frozen=True)
class Number:
    """One headline number: its label, its value as shown, a line under it (the change against the preset, a short
    form, what the value leaves out) and its tip (a convention, a formula), shown on a hover, a tap or a focus."""

    label: str
    value: str
    under: str = ""
    tip: str = ""


def headline(rows: list[list[Number]]) -> str:
    """The headline numbers as HTML, a row of them per list (each row wraps on a phone). One element for all, where
    a ``st.metric`` each with its row made eight: a control's move redraws every element (docs/benchmarks.md). A
    label with a tip can take the keyboard's focus (a tap on a phone) and shows the tip under it, and a screen reader
    reads the tip with the label. Every text is escaped (the change against the preset can name a Hub id)."""

    def cell(n: Number) -> str:
        label = html.escape(n.label)
        if n.tip:
            tip = html.escape(n.tip)
            label = (
                f'<div class="ps-number-label" tabindex="0" data-tip="{tip}">{label}'
                f'<span class="ps-visually-hidden">: {tip}</span></div>'
            )
        else:
            label = f'<div class="ps-number-label">{label}</div>'
        under = f'<div class="ps-number-under">{html.escape(n.under)}</div>' if n.under else ""
        return (
            f'<div class="ps-number" data-label="{html.escape(n.label)}">{label}'
            f'<div class="ps-number-value">{html.escape(n.value)}</div>{under}</div>'
        )

    body = "".join(f'<div class="ps-numbers">{"".join(cell(n) for n in row)}</div>' for row in rows if row)
    return f'<div class="ps-headline">{body}</div>'


#: Gemma 4's groups of attention layers (Spec.attention_groups), each a kind of layer of its own.
GROUP_KINDS = dict(
    zip(
        ATTENTION_GROUPS,
        ("sliding ", "full-attention ", "sliding, shared-KV ", "full-attention, shared-KV "),
        strict=True,
    )
)
#: DeepSeek-V4's compressors, each making its layers a kind of their own.
COMPRESSORS = {"csa_compressor": "compressed sparse ", "hca_compressor": "heavily compressed "}


def layer_kinds(summary: Summary) -> list[tuple[str, int, list[tuple[str, int]]]]:
    """Each kind of layer (dense, MoE, encoder, decoder, Gemma 4's sliding and full-attention, DeepSeek-V4's plain
    and compressed): (name, how many, [(component, params in one layer)])."""
    out = []
    for stack in summary.tree.walk():
        if stack.name != "layers" or not stack.children:
            continue
        prefix = stack.path.rsplit("/", 1)[0] + " " if "/" in stack.path else ""
        kids = {c.name: c for c in stack.children}
        layers = max(c.repeat for c in stack.children)
        variants: list[tuple[str, int | None, list[Node]]] = [("", None, list(stack.children))]
        groups = [c for c in stack.children if c.name in GROUP_KINDS]
        compressors = [c for c in stack.children if c.name in COMPRESSORS]
        if len(groups) > 1:  # the KV-sharing layers hold the wide MLPs, the others the plain ones
            others = [c for c in stack.children if c.name not in GROUP_KINDS]
            variants = []
            for g in groups:
                skip = "mlp" if g.name.startswith("shared_kv") and "wide_mlp" in kids else "wide_mlp"
                variants.append((GROUP_KINDS[g.name], g.repeat, [g, *[c for c in others if c.name != skip]]))
        elif compressors:  # a layer holds one compressor or none
            others = [c for c in stack.children if c.name not in COMPRESSORS]
            plain = layers - sum(c.repeat for c in compressors)
            variants = [("sliding ", plain, others)] if plain else []
            variants += [(COMPRESSORS[c.name], c.repeat, [*others, c]) for c in compressors]
        elif "mlp" in kids and "moe" in kids and kids["mlp"].repeat + kids["moe"].repeat <= layers:
            variants = [
                ("dense ", None, [c for c in stack.children if c.name != "moe"]),
                ("MoE ", None, [c for c in stack.children if c.name != "mlp"]),
            ]
        for kind, n, parts in variants:
            parts = [c for c in parts if c.count]
            if not parts:
                continue
            n = n or next((c.repeat for c in parts if c.name in ("mlp", "moe")), parts[0].repeat)
            per = {c.path: c.count // max(c.repeat, 1) for c in parts}
            attention = next((c.repeat for c in parts if c.name == "attention"), 0)
            if attention and n > attention and n % attention == 0:  # a Conformer: two MLPs in each of its layers
                per.update({c.path: c.count // attention for c in parts if c.name == "mlp"})
                n = attention
            name = f"{prefix}{kind}layer"
            out.append((name[0].upper() + name[1:], n, [(c.path, per[c.path]) for c in parts]))
    return out


def layer_bars(summary: Summary) -> go.Figure | None:
    """One layer of each kind, stacked by component; ``None`` when every layer is alike."""
    kinds = layer_kinds(summary)
    if len(kinds) < 2:
        return None
    xs = [f"{name} ×{n}" for name, n, _ in kinds]
    paths = []
    for _, _, parts in kinds:
        paths += [p for p, _ in parts if p not in paths]
    by_kind = [dict(parts) for _, _, parts in kinds]
    traces, seen = [], set()
    for p in paths:
        name = label(p).removeprefix("Encoder ").removeprefix("Decoder ")
        name = name[0].upper() + name[1:]
        vals = [d.get(p, 0) for d in by_kind]
        traces.append(
            dict(
                type="bar",
                x=xs,
                y=vals,
                name=name,
                marker=dict(color=colour(p)),
                legendgroup=name,
                showlegend=name not in seen,
                customdata=[f"{v:,}" for v in vals],
                hovertemplate=f"<b>{name}</b><br>%{{customdata}} parameters per layer<extra></extra>",
            )
        )
        seen.add(name)
    return _figure(
        traces,
        360,
        barmode="stack",
        title=dict(text="One layer of each kind", x=0),
        legend=dict(orientation="h", yanchor="top", y=-0.12, x=0),
        yaxis=dict(title="parameters per layer"),
    )


def treemap(summary: Summary) -> go.Figure:
    """The whole tree, every box the sum of the boxes inside it (click a box to zoom in)."""
    comps = components(summary.tree)
    ids, parents, values, labels, colours, hover = [], [], [], [], [], []
    for n in summary.tree.walk():
        if not n.count:
            continue
        ids.append(n.path or "model")
        parents.append("" if not n.path else (n.path.rsplit("/", 1)[0] if "/" in n.path else "model"))
        values.append(n.count)
        comp = component_of(n.path, comps)
        labels.append("Model" if not n.path else (label(n.path) if n.path == comp else n.name.replace("_", " ")))
        colours.append(colour(comp) if comp else GROUP_COLOUR)
        copies = f" ({n.repeat:,} copies)" if n.repeat > 1 else ""
        hover.append(f"{n.path or 'total'}<br>{n.count:,} parameters{copies}<br>{n.shape}")
    tree = dict(
        type="treemap",
        ids=ids,
        parents=parents,
        values=values,
        labels=labels,
        branchvalues="total",
        marker=dict(colors=colours),
        customdata=hover,
        maxdepth=3,
        texttemplate="%{label}<br>%{percentRoot:.1%}",
        hovertemplate="%{customdata}<extra></extra>",
    )
    return _figure([tree], 460, title=dict(text="The whole tree (click to zoom)", x=0))
