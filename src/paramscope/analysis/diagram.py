"""The architecture, drawn: a Graphviz DOT diagram of a model's parameter tree.

Every parameterized part of :func:`paramscope.engine.params.count`'s tree is a box with its name, weight shape
and exact count (per copy, and the repeat when the part is repeated per layer or per expert); every
group (embedding, the layer stack drawn as one layer, attention, MLP, experts, the head ...) is a cluster. Tied
weights are a dashed box joined to the table they share by a dashed "tied" edge. Data flows top to bottom.

Labels are built from numbers and fixed names; the only text from the input (the activation name) goes
through :func:`esc` like every other label, so no input can break out of a DOT string.
"""

from __future__ import annotations

from paramscope.engine.components import KINDS, kind_of, label, lighten
from paramscope.engine.spec import Spec, short, validate
from paramscope.engine.tree import Node

MAX_LABEL = 120

_NAMES = {
    "qkv": "q, k, v projections",
    "o": "output projection (o)",
    "q": "q projection",
    "q_a": "q down-projection (q_a)",
    "q_b": "q up-projection (q_b)",
    "kv_a": "kv down-projection (kv_a)",
    "kv_b": "kv up-projection (kv_b)",
    "gate": "gate projection",
    "up": "up projection",
    "down": "down projection",
    "router": "router",
    "shared_expert_gate": "shared-expert gate",
    "token": "token embedding",
    "position": "position embedding",
    "token_type": "token-type embedding",
    "projection": "projection",
    "lm": "LM head",
    "lm_bias": "LM head bias",
    "dense": "dense",
    "ih": "input weights (ih)",
    "hh": "recurrent weights (hh)",
    "bias": "biases",
    "relative_attention_bias": "relative attention bias",
    "final_norm": "final norm",
    "norm": "norms",
    "q_a_norm": "q_a norm",
    "kv_a_norm": "kv_a norm",
    "qk_norm": "q/k norms",
    "q_norm": "q norm",
    "k_norm": "k norm",
    "pooler": "pooler",
    "relative_key": "relative position keys",
    "query_scale": "query scale per channel",
    "start": "projection into the GLU",
    "end": "projection out",
    "output_proj": "output projection",
}
_GROUPS = {
    "layers": "the layer stack",
    "experts": "routed experts",
    "shared_experts": "shared experts",
    "encoder": "encoder",
    "decoder": "decoder",
}


#: Parts drawn beside the flow rather than in it.
_SIDE = ("relative_attention_bias",)


def esc(text: object) -> str:
    """``text`` made safe inside a double-quoted DOT string.

    Control characters are dropped, backslashes become ``/`` (a trailing backslash would escape the
    closing quote), double quotes are escaped, and the text is cut to :data:`MAX_LABEL` characters.
    """
    s = "".join(ch for ch in str(text) if ch.isprintable())[:MAX_LABEL]
    return s.replace("\\", "/").replace('"', '\\"')


def _label(*lines: str) -> str:
    """A quoted DOT label: each line escaped, joined by centred line breaks."""
    return '"' + "\\n".join(esc(line) for line in lines if line) + '"'


def _times(node: Node) -> list[str]:
    """``["× 1,664 copies = 14,394,851,328", "(num_hidden_layers - ...)*num_experts"]`` for a repeated node."""
    if node.repeat == 1 and not node.repeat_name:
        return []
    name = node.repeat_name
    shown = name if name.startswith("(") and name.endswith(")") else f"({name})"
    return [f"× {node.repeat:,} = {node.count:,}", shown if name else ""]


class _Dot:
    def __init__(self, spec: Spec, tree: Node):
        self.spec = spec
        self.tree = tree
        self.lines: list[str] = []
        self.ids: dict[str, str] = {}
        self.clusters: dict[str, str] = {}
        self.edges: list[str] = []

    # ------------------------------------------------------------------ ids
    def nid(self, path: str) -> str:
        if path not in self.ids:
            self.ids[path] = f"n{len(self.ids)}"
        return self.ids[path]

    def cid(self, path: str) -> str:
        if path not in self.clusters:
            self.clusters[path] = f"cluster_{len(self.clusters)}"
        return self.clusters[path]

    # ------------------------------------------------------------------ boxes
    def leaf_lines(self, node: Node) -> list[str]:
        s = self.spec
        name = node.name
        lines = [_NAMES.get(name, name.replace("_", " "))]
        if name == "qkv":
            q, kv = s.num_attention_heads * s.head_size, s.kv_heads * s.head_size
            h = s.hidden_size
            gate = f" (+ gate {h}×{q})" if s.attn_output_gate else ""
            lines.append(f"q {h}×{q}{gate} · k {h}×{kv} · v {h}×{kv}")
            lines.append(f"{s.num_attention_heads} heads of {s.head_size}, {s.kv_heads} kv heads")
            if s.attention_bias:
                lines.append("with biases")
        elif node.shape:
            lines.append(node.shape)
        if node.note and node.count == 0:
            lines.append("tied: counted once")
        else:
            lines.append(f"{node.per_copy:,} params ({short(node.per_copy)})")
            lines += _times(node)
        if node.note and node.count:
            lines.append(node.note)
        return lines

    def box(self, node: Node, indent: str) -> None:
        kind = kind_of(node.path)
        style = '"rounded,filled,dashed"' if node.count == 0 and node.note else '"rounded,filled"'
        self.lines.append(
            f"{indent}{self.nid(node.path)} [label={_label(*self.leaf_lines(node))}, "
            f'fillcolor="{fill(kind)}", style={style}];'
        )

    def group_lines(self, node: Node) -> list[str]:
        s = self.spec
        name = node.name
        lines = [_GROUPS.get(name) or _lower(label(node.path))]
        if name == "layers":
            n = s.num_decoder_layers if node.path.startswith("decoder") else s.num_hidden_layers
            lines[0] = f"the layer stack: {n:,} layers, one drawn"
            if s.shared_blocks:
                lines.append(
                    f"a Mamba mixer in every layer; {s.shared_block_uses:,} of them first run one of "
                    f"{s.shared_blocks:,} shared transformer blocks"
                )
            elif s.ssm_beside_attention:
                lines.append("attention and the Mamba mixer side by side in every layer")
            elif s.mixer_only_layers:
                lines.append("each layer holds one of the blocks drawn: a mixer or a feed-forward block")
            elif s.linear_attention_layers or s.lightning_layers or 0 < s.ssm_layers < s.num_hidden_layers:
                lines.append("each layer holds one of the mixers drawn side by side")
            if s.parallel_attn:
                lines.append("attention and MLP in parallel")
        attention_experts = name == "experts" and "/attention/" in node.path + "/"
        if attention_experts:  # JetMoE: query and output projections as experts
            lines[0] = "attention experts (q and o)"
            lines.append(f"{s.attention_experts:,} experts, {s.num_experts_per_tok} active per token")
        elif name == "mlp" or name in ("experts", "shared_experts"):
            act = s.hidden_act or "?"
            lines.append(f"{'gated, ' if s.mlp_gated else ''}activation {act}")
        if name == "experts" and not attention_experts:
            lines.append(f"{s.num_experts:,} experts, {s.num_experts_per_tok} active per token")
        if node.note:
            lines.append(node.note)
        if node.repeat > 1 or node.repeat_name:
            lines.append(f"{node.per_copy:,} per copy ({short(node.per_copy)})")
            lines += _times(node)
        else:
            lines.append(f"{node.count:,} params ({short(node.count)})")
        return lines

    def cluster(self, node: Node, indent: str) -> None:
        kind = kind_of(node.path + "/x")
        self.lines.append(f"{indent}subgraph {self.cid(node.path)} {{")
        self.lines.append(f"{indent}  label={_label(*self.group_lines(node))};")
        fills = f'style="rounded,filled"; fillcolor="{fill(kind, cluster=True)}"; color="#9ca3af"; fontcolor="#4b5563";'
        self.lines.append(f"{indent}  {fills}")  # a group's label sits on its light fill, in either theme
        for child in node.children:
            self.emit(child, indent + "  ")
        self.lines.append(f"{indent}}}")

    def emit(self, node: Node, indent: str) -> None:
        if node.children:
            self.cluster(node, indent)
        elif node.count or node.note:
            self.box(node, indent)

    # ------------------------------------------------------------------ flow
    def first(self, node: Node) -> Node:
        stages = self.stages(node)
        return self.first(stages[0][0]) if stages else node

    def last(self, node: Node) -> Node:
        stages = self.stages(node)
        return self.last(stages[-1][-1]) if stages else node

    def stages(self, node: Node) -> list[list[Node]]:
        """The children of ``node`` in data-flow order, as stages (parts in one stage run side by side)."""
        kids = {c.name: c for c in node.children}
        if not node.children:
            return []
        if node.name == "layers":
            order: list[list[str]] = [["norm"]]
            if self.spec.parallel_attn:
                order += [["attention", "mlp", "moe"], ["recurrent"]]
            else:  # a hybrid's layers hold attention or linear attention: drawn side by side
                order += [["attention", "linear_attention"], ["cross_attention"], ["mlp", "moe"], ["recurrent"]]
        elif node.name in ("mlp", "experts", "shared_experts"):
            order = [["gate", "up"], ["down"]]
        elif node.name == "moe":
            order = [["router"], ["experts", "shared_experts", "shared_expert_gate"]]
        elif node.name in ("attention", "cross_attention"):
            order = [["qkv", "q", "q_a"], ["q_a_norm"], ["q_b"], ["kv_a"], ["kv_a_norm"], ["kv_b"], ["qk_norm"]]
            order += [["q_norm", "k_norm"], ["o"]]
            if "q" in kids or "q_a" in kids:  # MLA: q and kv paths run side by side
                order = [["q", "q_a", "kv_a"], ["q_a_norm", "kv_a_norm"], ["q_b", "kv_b"], ["o"]]
        elif node.name == "embedding":
            order = [["token", "position", "token_type"], ["norm"], ["projection"]]
        elif node.name == "head":
            order = [["transform"], ["projection"], ["lm", "lm_bias"]]
        elif node.name in ("encoder", "decoder"):
            order = [["embedding"], ["layers"], ["final_norm"]]
        elif node.name == "recurrent":
            order = [["ih", "hh", "bias"]]
        else:
            return [[c] for c in node.children]
        stages = [[kids[n] for n in stage if n in kids] for stage in order]
        stages = [st for st in stages if st]
        placed = {c.path for st in stages for c in st}
        stages += [[c] for c in node.children if c.path not in placed and c.name not in _SIDE]
        return stages

    def attrs(self, src: Node, dst: Node) -> list[str]:
        out = []
        if src.children:
            out.append(f"ltail={self.cid(src.path)}")
        if dst.children:
            out.append(f"lhead={self.cid(dst.path)}")
        return out

    def edge(self, src: Node, dst: Node, *extra: str) -> None:
        a, b = self.last(src), self.first(dst)
        attrs = self.attrs(src, dst) + list(extra)
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        self.edges.append(f"  {self.nid(a.path)} -> {self.nid(b.path)}{tail};")

    def flow(self, node: Node) -> None:
        """Edges between consecutive stages inside ``node`` (recursively)."""
        stages = self.stages(node)
        for before, after in zip(stages, stages[1:], strict=False):
            for a in before:
                for b in after:
                    self.edge(a, b)
        for child in node.children:
            if child.children:
                self.flow(child)
            elif child.name == "relative_attention_bias":
                attention = node.find(f"{node.path}/layers/attention")
                if attention is not None:
                    self.edge(child, attention, "style=dashed", 'label="bias on scores"')

    # ------------------------------------------------------------------ whole graph
    def build(self, title: str, outside: str) -> str:
        tree = self.tree
        top = {c.name: c for c in tree.children}
        # Graphviz's spline router now and then loses an edge between the two stacks of an encoder-decoder
        # (about 2% of random encoder-decoders: "triangulation failed ... lost edge"); straight edges never fail.
        splines = "splines=line, " if "encoder" in top else ""
        self.lines = [
            "digraph model {",
            # transparent, the text outside the boxes in the page theme's grey (``outside``)
            f"  graph [rankdir=TB, compound=true, newrank=true, {splines}fontname=Helvetica, fontsize=11, "
            f'bgcolor="transparent", fontcolor="{outside}", labelloc=t, label={_label(title)}];',
            '  node [shape=box, fontname=Helvetica, fontsize=10, color="#6b7280"];',
            f'  edge [color="#6b7280", fontcolor="{outside}", arrowsize=0.6, fontname=Helvetica, fontsize=9];',
            f'  input [shape=plaintext, fontcolor="{outside}", label="token ids"];',
        ]
        for child in tree.children:
            self.emit(child, "  ")
        chain = [top[n] for n in ("embedding", "encoder", "decoder", "layers", "final_norm", "head") if n in top]
        ends = []
        if chain:
            into = [f"lhead={self.cid(chain[0].path)}"] if chain[0].children else []
            self.edges.append(f"  input -> {self.nid(self.first(chain[0]).path)}" + _attr(into))
        for a, b in zip(chain, chain[1:], strict=False):
            if a.name == "encoder" and b.name == "decoder":
                cross = b.find("decoder/layers/cross_attention")
                if cross is not None:
                    self.edge(a, cross, 'label="encoder states"', "style=bold")
                if "embedding" in top:
                    self.edge(top["embedding"], b, 'label="target tokens"')
                continue
            self.edge(a, b)
        for node in tree.children:
            if node.children:
                self.flow(node)
        if "head" in top or "final_norm" in top or "layers" in top:
            self.lines.append(f'  output [shape=plaintext, fontcolor="{outside}", label="logits / hidden states"];')
            ends.append(chain[-1])
        for end in ends:
            out_of = [f"ltail={self.cid(end.path)}"] if end.children else []
            self.edges.append(f"  {self.nid(self.last(end).path)} -> output" + _attr(out_of))
        if "pooler" in top and chain:
            self.edge(chain[-1] if chain[-1].name != "head" else chain[-2], top["pooler"])
        lm = tree.find("head/lm")
        token = tree.find("embedding/token")
        if lm is not None and token is not None and lm.count == 0 and lm.note:
            self.edges.append(
                f"  {self.nid(token.path)} -> {self.nid(lm.path)} "
                '[style=dashed, dir=none, constraint=false, color="#db2777", label="tied"];'
            )
        return "\n".join(self.lines + self.edges + ["}"]) + "\n"


def _attr(attrs: list[str]) -> str:
    return f" [{', '.join(a for a in attrs)}];" if attrs else ";"


def _lower(text: str) -> str:
    """'Experts (MoE)' -> 'experts (MoE)'; 'MLP' and 'LM head' stay as they are."""
    return text if text[1:2].isupper() else text[0].lower() + text[1:]


def fill(kind: str, cluster: bool = False) -> str:
    """A box's fill: its kind's colour (the charts' colour) lightened so dark text reads on it in either theme;
    a cluster's fill lighter still."""
    return lighten(KINDS[kind].colour, 0.8 if cluster else 0.6)


#: The grey of the text outside the boxes (title, input, output, edge labels) on a light page and on a dark one (4.8:1
#: and 8.0:1).
OUTSIDE_TEXT = {"light": "#6b7280", "dark": "#a3a9b3"}


def to_dot(spec: Spec, tree: Node, title: str = "", theme: str = "light") -> str:
    """Graphviz DOT source for ``spec`` drawn from its parameter ``tree`` (``count(spec)``).

    ``title`` (escaped like every label) heads the drawing; by default it is the model type and total. ``theme``
    (light or dark) sets the grey of the text outside the boxes; the boxes read the same in both.
    """
    spec = validate(spec)
    head = title or f"{spec.model_type} · {tree.count:,} parameters ({short(tree.count)})"
    return _Dot(spec, tree).build(head, OUTSIDE_TEXT[theme])
