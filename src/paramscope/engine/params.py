"""Exact parameter counts: one spec in, one tree out.

Every leaf is a weight (or a small set of weights) of the real implementation, with its exact count,
its shape and the formula in the spec's field names. Tied weights are counted once: the tied copy
appears with count 0 and a note saying where it is counted.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from paramscope.engine.components import embedding_params
from paramscope.engine.spec import AttentionGroup, Spec, Stack, validate
from paramscope.engine.tree import Matrix, Node, Summary, group, repeated, tuple_new


def top_level(expr: str, ops: str) -> int:
    """Where the first of ``ops`` stands outside every parenthesis in ``expr`` (``a + b`` but not ``a*(b + c)``);
    -1 when none does."""
    depth = 0
    for i, ch in enumerate(expr):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and ch in ops:
            return i
    return -1


@cache
def paren(expr: str) -> str:
    """Parenthesize an expression with a top-level sum or difference (``a + b`` but not ``a*(b + c)``)."""
    return f"({expr})" if top_level(expr, "+-") >= 0 else expr


def linear(path: str, n_in: int, in_expr: str, n_out: int, out_expr: str, bias: bool) -> Node:
    """An ``nn.Linear(n_in, n_out, bias)``: ``(in + 1)*out`` with a bias, ``in*out`` without."""
    out = paren(out_expr)
    weight = f"{paren(in_expr)}*{out}"
    formula = f"({in_expr} + 1)*{out}" if bias else weight
    count = n_in * n_out + (n_out if bias else 0)
    return tuple_new(
        Node, (path, count, formula, (), 1, "", f"{n_in}×{n_out}", "", tuple_new(Matrix, (n_in, n_out, weight)))
    )


def depthwise_conv(path: str, channels: int, channels_expr: str, kernel: int, kernel_expr: str, bias: bool) -> Node:
    """A depthwise ``nn.Conv1d`` (groups = channels): one kernel of ``kernel`` taps per channel, and a bias each."""
    formula = f"{channels_expr}*{kernel_expr}" + (f" + {channels_expr}" if bias else "")
    note = "depthwise Conv1d: one kernel per channel" + (" and a bias" if bias else "")
    return Node(path, channels * kernel + (channels if bias else 0), formula, shape=f"{channels}×1×{kernel}", note=note)


def norm(
    path: str, spec: Spec, width: int, expr: str, copies: int = 1, copies_expr: str = "", bias: bool | None = None
) -> Node:
    """``copies`` norms of ``width``: LayerNorm has a weight and (optionally, ``bias`` or else the spec's
    ``norm_bias``) a bias, RMSNorm a weight, and a bias only where ``bias`` asks for one (xLSTM's layer norms)."""
    layer = spec.norm_type == "layernorm"
    per = 2 if (spec.norm_bias if bias is None else bias) and (layer or bias) else 1
    formula = f"{copies_expr}*{expr}" if copies != 1 else expr
    if per == 2:
        formula = f"2*{formula}" if copies == 1 else f"{copies_expr}*2*{expr}"
    shape = f"{copies}×{'LayerNorm' if layer else 'RMSNorm'}({width})"
    if per == 2 and not layer:
        shape += " with a bias"
    return tuple_new(Node, (path, copies * per * width, formula, (), 1, "", shape, "", None))


# ---------------------------------------------------------------------------------------- blocks
def attention(prefix: str, spec: Spec) -> Node:
    """Self- or cross-attention: q, k, v, output projection, optional q/k norms."""
    h = spec.hidden_size
    heads, kv, hd = spec.num_attention_heads, spec.kv_heads, spec.head_size
    if spec.is_mla:
        return _mla(prefix, spec)
    if spec.attention_experts:
        return _moa(prefix, spec)
    if spec.shared_kv_head:
        return _one_kv_head(prefix, spec)
    q = 2 if spec.attn_output_gate else 1  # with an output gate (Qwen3-Next), q_proj also emits one per query
    qkv_out, out_expr = qkv_width(spec, q)
    # Zamba2's shared blocks attend over the hidden state and the input embeddings side by side
    a, a_expr = (2 * h, "2*hidden_size") if spec.shared_blocks else (h, "hidden_size")
    qkv = linear(f"{prefix}/qkv", a, a_expr, qkv_out, out_expr, spec.attention_bias)
    if spec.attention_bias and spec.key_bias is False:  # Whisper: biases on q and v, none on k
        biases, bias_expr = (q * heads + kv) * hd, "(num_attention_heads + num_key_value_heads)*head_dim"
        qkv = qkv._replace(count=h * qkv_out + biases, formula=f"hidden_size*{paren(out_expr)} + {bias_expr}")
    parts = [qkv, linear(f"{prefix}/o", *values_width(spec), h, "hidden_size", spec.out_bias)]
    qk_bias = spec.qk_norm_bias
    if spec.qk_norm == "head":  # a q norm and, where the layer projects its own keys, a k norm
        copies = 2 if spec.kv_projections else 1
        parts.append(norm(f"{prefix}/qk_norm", spec, hd, "head_dim", copies, str(copies), qk_bias))
    elif spec.qk_norm == "full":
        q = norm(f"{prefix}/q_norm", spec, heads * hd, "num_attention_heads*head_dim", bias=qk_bias)
        k = norm(f"{prefix}/k_norm", spec, kv * hd, "num_key_value_heads*head_dim", bias=qk_bias)
        parts.append(Node(f"{prefix}/qk_norm", q.count + k.count, f"{q.formula} + {k.formula}"))
    if spec.attention_sinks:
        parts.append(Node(f"{prefix}/sinks", heads, "num_attention_heads", shape=str(heads)))
    if spec.attention_gate_proj:
        parts.append(linear(f"{prefix}/gate", h, "hidden_size", heads * hd, "num_attention_heads*head_dim", False))
    if spec.attention_head_gate:
        parts.append(linear(f"{prefix}/gate", h, "hidden_size", heads, "num_attention_heads", False))
    if spec.dynamic_mask:
        note = "a learned decay per KV head (dynamic mask)"
        parts.append(Node(f"{prefix}/decay", kv, "num_key_value_heads", shape=str(kv), note=note))
        width, expr = kv * hd, "num_key_value_heads*head_dim"
        parts.append(linear(f"{prefix}/dt", width, expr, kv, "num_key_value_heads", spec.attention_bias))
    for name, on in (("position_key", spec.position_key_proj), ("position_query", spec.position_query_proj)):
        if on:  # DeBERTa: the relative-position table mapped to keys (c2p) or queries (p2c), with a bias
            parts.append(linear(f"{prefix}/{name}", h, "hidden_size", heads * hd, "num_attention_heads*head_dim", True))
    if spec.sub_norms:
        parts.append(norm(f"{prefix}/sub_norm", spec, h, "hidden_size"))
    if spec.relative_key_proj:  # a Conformer's relative positions (Gemma 4's audio tower: relative_k_proj)
        keys = linear(f"{prefix}/relative_key", h, "hidden_size", heads * hd, "num_attention_heads*head_dim", False)
        parts.append(keys._replace(note="relative_k_proj: the sinusoids of the relative positions projected to keys"))
        note = "per_dim_scale: a learned scale per query channel"
        parts.append(Node(f"{prefix}/query_scale", hd, "head_dim", shape=f"{hd}", note=note))
    return group(prefix, parts)


def sparse_cross_attention(prefix: str, spec: Spec) -> Node:
    """Cross-attention of its own in some layers (BLIP-2's Q-Former): q from the hidden states, k and v from the
    encoder's states (``encoder_hidden_size`` wide, else the hidden size), each a linear layer with the attention's
    biases, and the output projection."""
    h, width = spec.hidden_size, spec.num_attention_heads * spec.head_size
    w_expr = "num_attention_heads*head_dim"
    source, source_expr = (
        (spec.encoder_hidden_size, "encoder_hidden_size") if spec.encoder_hidden_size else (h, "hidden_size")
    )
    bias = spec.attention_bias
    return group(
        prefix,
        [
            linear(f"{prefix}/q", h, "hidden_size", width, w_expr, bias),
            linear(f"{prefix}/k", source, source_expr, width, w_expr, bias),
            linear(f"{prefix}/v", source, source_expr, width, w_expr, bias),
            linear(f"{prefix}/o", width, w_expr, h, "hidden_size", spec.out_bias),
        ],
        note="queries from the layer's states, keys and values from the encoder's",
    )


def qkv_width(spec: Spec, queries: int = 1, projections: int | None = None) -> tuple[int, str]:
    """The outputs of a layer's q, k and v projections together, and their formula: ``queries`` x heads of queries (2
    with an output gate), then the keys and values the layer projects (``projections``, by default
    ``Spec.kv_projections``: 2 keys and values, 1 keys that give the values too, 0 none); values ``v_head_dim`` wide
    where they differ from the keys."""
    heads, kv, hd, vd = spec.num_attention_heads, spec.kv_heads, spec.head_size, spec.value_size
    n = spec.kv_projections if projections is None else projections
    q_expr = "2*num_attention_heads" if queries == 2 else "num_attention_heads"
    if not n:
        return queries * heads * hd, f"{q_expr}*head_dim"
    if vd != hd and n == 2:  # MiMo-V2-Flash: values narrower than queries and keys
        width = (queries * heads + kv) * hd + kv * vd
        return width, f"({q_expr} + num_key_value_heads)*head_dim + num_key_value_heads*v_head_dim"
    if kv == heads:
        return (queries + n) * heads * hd, f"{queries + n}*num_attention_heads*head_dim"
    return (queries * heads + n * kv) * hd, f"({q_expr} + {n}*num_key_value_heads)*head_dim".replace(" 1*", " ")


def values_width(spec: Spec) -> tuple[int, str]:
    """The width of all heads' values (the output projection's input), and its formula."""
    if spec.value_size != spec.head_size:
        return spec.num_attention_heads * spec.value_size, "num_attention_heads*v_head_dim"
    return spec.num_attention_heads * spec.head_size, "num_attention_heads*head_dim"


def _moa(prefix: str, spec: Spec) -> Node:
    """JetMoE's mixture of attention heads: keys and values from one shared projection; each expert a query
    projection to num_key_value_heads heads and an output projection back, num_experts_per_tok of them per token
    (so num_attention_heads = num_key_value_heads x num_experts_per_tok); a router; one output bias."""
    h, kv, hd = spec.hidden_size, spec.kv_heads, spec.head_size
    inner, expr = kv * hd, "num_key_value_heads*head_dim"
    expert = group(
        f"{prefix}/experts",
        [
            linear(f"{prefix}/experts/q", h, "hidden_size", inner, expr, False),
            linear(f"{prefix}/experts/o", inner, expr, h, "hidden_size", False),
        ],
    )
    return group(
        prefix,
        [
            linear(f"{prefix}/kv", h, "hidden_size", 2 * inner, f"2*{expr}", False),
            linear(f"{prefix}/router", h, "hidden_size", spec.attention_experts, "attention_experts", False),
            repeated(expert, spec.attention_experts, "attention_experts"),
            Node(f"{prefix}/bias", h, "hidden_size", shape=f"{h}", note="one bias after the experts' sum"),
        ],
    )


def _mla(prefix: str, spec: Spec) -> Node:
    """DeepSeek-V2 multi-head latent attention (low-rank q and compressed kv)."""
    h, heads = spec.hidden_size, spec.num_attention_heads
    nope, rope, vd = spec.qk_nope_head_dim or 0, spec.qk_rope_head_dim or 0, spec.v_head_dim or 0
    kv_rank = spec.kv_lora_rank or 0
    qk = "(qk_nope_head_dim + qk_rope_head_dim)"
    parts: list[Node] = []
    if spec.q_lora_rank is None:
        parts.append(linear(f"{prefix}/q", h, "hidden_size", heads * (nope + rope), f"num_attention_heads*{qk}", False))
    else:
        r = spec.q_lora_rank
        parts += [
            linear(f"{prefix}/q_a", h, "hidden_size", r, "q_lora_rank", spec.attention_bias),
            norm(f"{prefix}/q_a_norm", spec, r, "q_lora_rank"),
            linear(f"{prefix}/q_b", r, "q_lora_rank", heads * (nope + rope), f"num_attention_heads*{qk}", False),
        ]
    parts += [
        linear(
            f"{prefix}/kv_a", h, "hidden_size", kv_rank + rope, "kv_lora_rank + qk_rope_head_dim", spec.attention_bias
        ),
        norm(f"{prefix}/kv_a_norm", spec, kv_rank, "kv_lora_rank"),
        linear(
            f"{prefix}/kv_b",
            kv_rank,
            "kv_lora_rank",
            heads * (nope + vd),
            "num_attention_heads*(qk_nope_head_dim + v_head_dim)",
            False,
        ),
        linear(f"{prefix}/o", heads * vd, "num_attention_heads*v_head_dim", h, "hidden_size", spec.out_bias),
    ]
    if spec.attention_head_gate:  # Ling: a sigmoid gate per head on the output
        parts.append(linear(f"{prefix}/gate", h, "hidden_size", heads, "num_attention_heads", False))
    if spec.index_n_heads:
        parts.append(_indexer(f"{prefix}/indexer", spec))
    return group(prefix, parts)


def dense_mlps(prefix: str, spec: Spec, kinds: Stack) -> list[tuple[Node, int, str]]:
    """The dense MLPs of a stack, each with the layers that hold it: one width, or Gemma 4's KV-sharing layers'
    MLPs twice as wide (``wide_mlp_layers``)."""
    wide = min(spec.wide_mlp_layers, kinds.mlp)
    expr = f"({kinds.expr('mlp')} - wide_mlp_layers)" if wide else kinds.expr("mlp")
    out = []
    if kinds.mlp > wide:
        out.append((mlp(f"{prefix}/mlp", spec, spec.ffn_size, "intermediate_size"), kinds.mlp - wide, expr))
    if wide:
        out.append((mlp(f"{prefix}/wide_mlp", spec, 2 * spec.ffn_size, "2*intermediate_size"), wide, "wide_mlp_layers"))
    return out


def per_layer_input(prefix: str, spec: Spec) -> Node:
    """Gemma 4 and Gemma 3n: each layer gates its slice of the per-layer inputs in (hidden_size to
    hidden_size_per_layer_input), projects it back and normalises the sum."""
    h, p = spec.hidden_size, spec.per_layer_input
    path = f"{prefix}/per_layer_input"
    return group(
        path,
        [
            linear(f"{path}/gate", h, "hidden_size", p, "hidden_size_per_layer_input", False),
            linear(f"{path}/projection", p, "hidden_size_per_layer_input", h, "hidden_size", False),
            norm(f"{path}/norm", spec, h, "hidden_size"),
        ],
    )


def altup(prefix: str, spec: Spec) -> Node:
    """Gemma 3n's AltUp in one layer: the router (an RMSNorm, then hidden_size -> altup_num_inputs) that weighs the
    streams, the prediction coefficients (altup_num_inputs -> altup_num_inputs^2: each stream from all of them) and
    the correction coefficients (altup_num_inputs -> altup_num_inputs), and a scale per channel of the corrected
    active stream."""
    h, n = spec.hidden_size, spec.altup_num_inputs
    path = f"{prefix}/altup"
    note = "scales the corrected active stream, per channel"
    return group(
        path,
        [
            norm(f"{path}/router_norm", spec, h, "hidden_size"),
            linear(f"{path}/router", h, "hidden_size", n, "altup_num_inputs", False),
            linear(f"{path}/prediction_coefs", n, "altup_num_inputs", n * n, "altup_num_inputs^2", False),
            linear(f"{path}/correction_coefs", n, "altup_num_inputs", n, "altup_num_inputs", False),
            Node(f"{path}/output_scale", h, "hidden_size", shape=str(h), note=note),
        ],
    )


def laurel(prefix: str, spec: Spec) -> Node:
    """Gemma 3n's LAuReL (learned augmented residual layer) in one layer: hidden_size -> laurel_rank -> hidden_size
    beside attention, then a norm."""
    h, r = spec.hidden_size, spec.laurel_rank or 0
    path = f"{prefix}/laurel"
    return group(
        path,
        [
            linear(f"{path}/left", h, "hidden_size", r, "laurel_rank", False),
            linear(f"{path}/right", r, "laurel_rank", h, "hidden_size", False),
            norm(f"{path}/norm", spec, h, "hidden_size"),
        ],
    )


def altup_projections(path: str, spec: Spec) -> Node:
    """Gemma 3n's AltUp projections between the one stream and the others (altup_num_inputs - 1 of them, each
    hidden_size -> hidden_size): from the embeddings at the input, back before the final norm at the output."""
    h, n = spec.hidden_size, spec.altup_num_inputs
    return repeated(linear(path, h, "hidden_size", h, "hidden_size", False), max(n - 1, 0), "(altup_num_inputs - 1)")


def group_attention(prefix: str, group: AttentionGroup) -> Node:
    """One layer of an attention group, its formulas in the model's own names (``global_head_dim`` in Gemma 4's
    full-attention layers)."""
    node = attention(f"{prefix}/{group.path}", group.spec)
    return _renamed(node, group.renames) if group.renames else node


@cache
def _renamer(renames: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern matching every field name of ``renames`` as a whole word, and each name's replacement."""
    return re.compile(r"\b(" + "|".join(re.escape(old) for old, _ in renames) + r")\b"), dict(renames)


def rename(text: str, renames: tuple[tuple[str, str], ...]) -> str:
    """``text`` (a formula) with each field name of ``renames`` replaced by the model's own name for it."""
    if not renames:
        return text
    pattern, names = _renamer(renames)
    return pattern.sub(lambda m: names[m[1]], text)


def _renamed(node: Node, renames: tuple[tuple[str, str], ...]) -> Node:
    m = node.matrix
    return node._replace(
        formula=rename(node.formula, renames),
        children=tuple(_renamed(c, renames) for c in node.children),
        matrix=m._replace(formula=rename(m.formula, renames)) if m else None,
    )


def _one_kv_head(prefix: str, spec: Spec) -> Node:
    """DeepSeek-V4's attention: queries through a low-rank bottleneck (q_a, its norm, q_b), one key/value head (kv and
    its norm) whose keys are its values, the output through o_groups groups of rank o_lora_rank (o_a, one block per
    group, then o_b), a learned sink per head."""
    h, heads, hd = spec.hidden_size, spec.num_attention_heads, spec.head_size
    r, g, o = spec.q_lora_rank or 0, spec.o_groups, spec.o_lora_rank
    per_group = heads * hd // g
    return group(
        prefix,
        [
            linear(f"{prefix}/q_a", h, "hidden_size", r, "q_lora_rank", False),
            norm(f"{prefix}/q_a_norm", spec, r, "q_lora_rank"),
            linear(f"{prefix}/q_b", r, "q_lora_rank", heads * hd, "num_attention_heads*head_dim", False),
            linear(f"{prefix}/kv", h, "hidden_size", hd, "head_dim", False),
            norm(f"{prefix}/kv_norm", spec, hd, "head_dim"),
            linear(
                f"{prefix}/o_a",
                per_group,
                "num_attention_heads*head_dim//o_groups",
                g * o,
                "o_groups*o_lora_rank",
                False,
            ),
            linear(f"{prefix}/o_b", g * o, "o_groups*o_lora_rank", h, "hidden_size", False),
            Node(f"{prefix}/sinks", heads, "num_attention_heads", shape=str(heads)),
        ],
    )


def compressor(prefix: str, spec: Spec, sparse: bool) -> Node:
    """DeepSeek-V4's compressor beside a layer's sliding window: a key/value and a gate projection of every token, a
    learned bias per position within the rate's window, a norm; compressed sparse attention's (``sparse``) entries
    are 2 x head_dim wide and its lightning indexer has the same parts at index_head_dim, a query projection from
    the query latent and a weight per indexer head."""
    h, hd = spec.hidden_size, spec.head_size
    rate, rate_expr = (spec.csa_rate, "csa_rate") if sparse else (spec.hca_rate, "hca_rate")
    w, w_expr = (2 * hd, "2*head_dim") if sparse else (hd, "head_dim")
    parts = [
        linear(f"{prefix}/kv", h, "hidden_size", w, w_expr, False),
        linear(f"{prefix}/gate", h, "hidden_size", w, w_expr, False),
        Node(f"{prefix}/position_bias", rate * w, f"{rate_expr}*{w_expr}", shape=f"{rate}×{w}"),
        norm(f"{prefix}/kv_norm", spec, hd, "head_dim"),
    ]
    if sparse:
        i, ih, r = spec.index_head_dim, spec.index_n_heads, spec.q_lora_rank or 0
        path = f"{prefix}/indexer"
        indexer = [
            linear(f"{path}/kv", h, "hidden_size", 2 * i, "2*index_head_dim", False),
            linear(f"{path}/gate", h, "hidden_size", 2 * i, "2*index_head_dim", False),
            Node(f"{path}/position_bias", rate * 2 * i, f"{rate_expr}*2*index_head_dim", shape=f"{rate}×{2 * i}"),
            norm(f"{path}/kv_norm", spec, i, "index_head_dim"),
            linear(f"{path}/q_b", r, "q_lora_rank", ih * i, "index_n_heads*index_head_dim", False),
            linear(f"{path}/weights", h, "hidden_size", ih, "index_n_heads", False),
        ]
        parts.append(group(path, indexer))
    return group(prefix, parts)


def hyper_connections(prefix: str, spec: Spec) -> Node:
    """DeepSeek-V4's two hyper-connections per layer (around attention and around the MLP): each mixes hc_mult
    residual streams with a projection of all of them to (2 + hc_mult) x hc_mult weights, a bias for each and three
    scales. Bare parameters, not linear layers."""
    n, h = spec.hc_mult, spec.hidden_size
    one = (2 + n) * n * (n * h + 1) + 3
    formula = "2*((2 + hc_mult)*hc_mult*(hc_mult*hidden_size + 1) + 3)"
    return Node(f"{prefix}/hyper_connections", 2 * one, formula, shape=f"2×({(2 + n) * n}×{n * h} + {(2 + n) * n} + 3)")


def _kda(prefix: str, spec: Spec) -> Node:
    """Kimi Delta Attention (Kimi Linear): q, k and v projections apart, a depthwise causal convolution over the
    three, a per-channel forget gate through a low-rank pair (hidden_size → head dim → heads × head dim) with dt_bias
    per channel and A_log per head, beta per head, an output gate through another low-rank pair, a gated RMSNorm over
    a head, the output projection; no biases. Ling's (``kda_full_gates``): each gate one hidden_size → heads × head
    dim projection."""
    h, kern = spec.hidden_size, spec.linear_conv_kernel_dim
    n, d = spec.linear_num_value_heads, spec.linear_value_head_dim
    w, w_expr, d_expr = n * d, "linear_num_value_heads*linear_value_head_dim", "linear_value_head_dim"
    projections = [linear(f"{prefix}/{name}", h, "hidden_size", w, w_expr, False) for name in ("q", "k", "v")]

    def gate(name: str) -> list[Node]:  # Kimi's low-rank pair, or Ling's one full-rank projection
        if spec.linear_kind == "kda_full_gates":
            return [linear(f"{prefix}/{name}", h, "hidden_size", w, w_expr, False)]
        return [
            linear(f"{prefix}/{name}_a", h, "hidden_size", d, d_expr, False),
            linear(f"{prefix}/{name}_b", d, d_expr, w, w_expr, False),
        ]

    decay = Node(
        f"{prefix}/decay", w + n, f"{w_expr} + linear_num_value_heads", shape=f"{w} + {n}", note="dt_bias and A_log"
    )
    return group(
        prefix,
        [
            *projections,
            depthwise_conv(f"{prefix}/conv", 3 * w, f"3*{w_expr}", kern, "linear_conv_kernel_dim", bias=False),
            *gate("forget"),
            decay,
            linear(f"{prefix}/beta", h, "hidden_size", n, "linear_num_value_heads", False),
            *gate("gate"),
            norm(f"{prefix}/norm", spec, d, d_expr),
            linear(f"{prefix}/out", w, w_expr, h, "hidden_size", False),
        ],
    )


def _rglru(prefix: str, spec: Spec) -> Node:
    """Griffin's recurrent block (RecurrentGemma): two branches in from hidden_size to the RG-LRU's width (linear_y,
    linear_x), a depthwise causal convolution with biases, the RG-LRU (a recurrence parameter per channel and two
    block-diagonal gates, a heads × block × block weight and a bias each), linear_out back; biases on every layer."""
    h, kern, n, b = (
        spec.hidden_size,
        spec.linear_conv_kernel_dim,
        spec.linear_num_value_heads,
        spec.linear_value_head_dim,
    )
    w, w_expr = n * b, "linear_num_value_heads*linear_value_head_dim"
    gates = 2 * (n * b * b + n * b)
    gates_expr = "2*(linear_num_value_heads*linear_value_head_dim^2 + linear_num_value_heads*linear_value_head_dim)"
    return group(
        prefix,
        [
            linear(f"{prefix}/in_y", h, "hidden_size", w, w_expr, True),
            linear(f"{prefix}/in_x", h, "hidden_size", w, w_expr, True),
            depthwise_conv(f"{prefix}/conv", w, w_expr, kern, "linear_conv_kernel_dim", bias=True),
            Node(f"{prefix}/recurrence", w, w_expr, shape=f"{w}", note="the RG-LRU's recurrence parameter"),
            Node(
                f"{prefix}/gates",
                gates,
                gates_expr,
                shape=f"2×({n}×{b}×{b} + {n}×{b})",
                note="input and recurrence gates",
            ),
            linear(f"{prefix}/out", w, w_expr, h, "hidden_size", True),
        ],
    )


def linear_attention(prefix: str, spec: Spec) -> Node:
    """Gated DeltaNet (Qwen3-Next, Qwen3.5): q, k, v and the output gate z from one projection, per-head decay
    inputs b and a, a depthwise causal convolution over q, k and v, two learned values per value head (dt_bias,
    A_log), a gated RMSNorm over a value head, the output projection. Kimi Delta Attention: :func:`_kda`."""
    if spec.linear_kind == "rglru":
        return _rglru(prefix, spec)
    if spec.linear_kind != "gated_deltanet":
        return _kda(prefix, spec)
    h, kern = spec.hidden_size, spec.linear_conv_kernel_dim
    nv = spec.linear_num_value_heads
    key = spec.linear_num_key_heads * spec.linear_key_head_dim
    value = nv * spec.linear_value_head_dim
    k_expr, v_expr = "linear_num_key_heads*linear_key_head_dim", "linear_num_value_heads*linear_value_head_dim"
    conv = spec.linear_conv_channels
    return group(
        prefix,
        [
            linear(f"{prefix}/in_qkvz", h, "hidden_size", 2 * key + 2 * value, f"(2*{k_expr} + 2*{v_expr})", False),
            linear(f"{prefix}/in_ba", h, "hidden_size", 2 * nv, "2*linear_num_value_heads", False),
            depthwise_conv(
                f"{prefix}/conv", conv, f"(2*{k_expr} + {v_expr})", kern, "linear_conv_kernel_dim", bias=False
            ),
            Node(
                f"{prefix}/dt_bias", nv, "linear_num_value_heads", shape=str(nv), note="the time step's bias per head"
            ),
            Node(f"{prefix}/A_log", nv, "linear_num_value_heads", shape=str(nv), note="the decay rate per head"),
            norm(f"{prefix}/norm", spec, spec.linear_value_head_dim, "linear_value_head_dim"),
            linear(f"{prefix}/out", value, v_expr, h, "hidden_size", False),
        ],
    )


def ssm(prefix: str, spec: Spec) -> Node:
    """A Mamba (1) or Mamba-2 (2) mixer. Mamba: in_proj to x and z, a depthwise convolution over x, x_proj to the
    time step's rank and B and C, dt_proj back to the inner width, A_log (inner x state), D. Mamba-2: one in_proj
    to z, x, B, C (per group) and a time step per head, the convolution over x, B and C, dt_bias, A_log and D per
    head, a gated RMSNorm over the inner width (unless ``ssm_norm`` is off). Both end in out_proj. Zamba's x_proj and
    dt_proj are parameter tensors split over its heads (``ssm_proj_tensors``), of the same sizes."""
    h, inner, n, k = spec.hidden_size, spec.ssm_inner, spec.ssm_state_size, spec.ssm_conv_kernel
    bias = spec.ssm_proj_bias
    out_bias = bias if spec.ssm_out_bias is None else spec.ssm_out_bias
    if spec.ssm_version == 1:
        r = spec.ssm_dt_rank
        conv_expr = "ssm_inner"
        middle = [
            linear(f"{prefix}/x_proj", inner, "ssm_inner", r + 2 * n, "ssm_dt_rank + 2*ssm_state_size", False),
            linear(f"{prefix}/dt_proj", r, "ssm_dt_rank", inner, "ssm_inner", True),
            Node(f"{prefix}/A_log", inner * n, "ssm_inner*ssm_state_size", shape=f"({inner}, {n})"),
            Node(f"{prefix}/D", inner, "ssm_inner", shape=f"({inner},)"),
        ]
        if spec.ssm_proj_tensors:  # no nn.Linear: LoRA and quantizers pass them by (their matmuls: flops._ssm)
            note = "a parameter tensor, one slice per head: no linear layer"
            middle[:2] = [part._replace(matrix=None, note=note) for part in middle[:2]]
        if spec.ssm_inner_norms:
            middle.append(norm(f"{prefix}/dt_B_C_norms", spec, r + 2 * n, "(ssm_dt_rank + 2*ssm_state_size)"))
        in_out, in_expr = 2 * inner, "2*ssm_inner"
    else:
        heads, gn = spec.ssm_heads, spec.ssm_groups * n
        conv_expr = "(ssm_inner + 2*ssm_groups*ssm_state_size)"
        middle = [
            Node(f"{prefix}/dt_A_D", 3 * heads, "3*ssm_heads", shape=f"3×({heads},)", note="dt_bias, A_log and D"),
        ]
        if spec.ssm_norm:
            middle.append(norm(f"{prefix}/norm", spec, inner, "ssm_inner"))
        in_out, in_expr = 2 * inner + 2 * gn + heads, "(2*ssm_inner + 2*ssm_groups*ssm_state_size + ssm_heads)"
    conv = depthwise_conv(f"{prefix}/conv", spec.ssm_conv_channels, conv_expr, k, "ssm_conv_kernel", spec.ssm_conv_bias)
    return group(
        prefix,
        [
            linear(f"{prefix}/in_proj", h, "hidden_size", in_out, in_expr, bias),
            conv,
            *middle,
            linear(f"{prefix}/out_proj", inner, "ssm_inner", h, "hidden_size", out_bias),
        ],
    )


def short_conv(prefix: str, spec: Spec) -> Node:
    """LFM2's short convolution: in_proj to two gates and the input (3 × hidden_size), a depthwise causal
    convolution of short_conv_kernel taps over the gated input, out_proj; biases on all three or none."""
    h, k, bias = spec.hidden_size, spec.short_conv_kernel, spec.short_conv_bias
    return group(
        prefix,
        [
            linear(f"{prefix}/in_proj", h, "hidden_size", 3 * h, "3*hidden_size", bias),
            depthwise_conv(f"{prefix}/conv", h, "hidden_size", k, "short_conv_kernel", bias),
            linear(f"{prefix}/out_proj", h, "hidden_size", h, "hidden_size", bias),
        ],
    )


def conv_module(prefix: str, spec: Spec) -> Node:
    """A Conformer's convolution module (Gemma 4's audio tower: lconv1d): a bias-free linear layer to 2 x hidden_size
    halved by a GLU, a depthwise convolution of conv_module_kernel taps without a bias, a bias-free linear layer back
    (its two norms are counted with the layer's)."""
    h, k = spec.hidden_size, spec.conv_module_kernel
    if spec.conv_glu_channels:
        return _conv1d_module(prefix, spec)
    return group(
        prefix,
        [
            linear(f"{prefix}/start", h, "hidden_size", 2 * h, "2*hidden_size", False),
            depthwise_conv(f"{prefix}/conv", h, "hidden_size", k, "conv_module_kernel", bias=False),
            linear(f"{prefix}/end", h, "hidden_size", h, "hidden_size", False),
        ],
    )


def _conv1d_module(prefix: str, spec: Spec) -> Node:
    """Phi-4-multimodal's convolution module (its two norms are counted with the layer's), every layer a Conv1d with a
    bias (no nn.Linear: LoRA's all-linear passes them by): a pointwise one to 2 x conv_glu_channels halved by a GLU
    that adds two learned biases (b1, b2), a depthwise one of conv_module_kernel taps and conv_depthwise_multiplier
    outputs a channel, a pointwise one to conv_separable_channels, and a pointwise one from hidden_size to
    conv_glu_channels at the end (the widths the class declares; a forward pass needs all of them equal to
    hidden_size and a multiplier of 1)."""
    h, k, e = spec.hidden_size, spec.conv_module_kernel, spec.conv_glu_channels
    m, s = spec.conv_depthwise_multiplier, spec.conv_separable_channels
    return group(
        prefix,
        [
            Node(
                f"{prefix}/glu",
                2 * e * h + 4 * e,
                "2*conv_glu_channels*hidden_size + 4*conv_glu_channels",
                shape=f"{h}×{2 * e} + {2 * e} + 2×{e}",
                note="a pointwise Conv1d to 2 x conv_glu_channels with a bias, halved by a GLU, and its b1 and b2",
            ),
            Node(
                f"{prefix}/conv",
                h * m * k + h * m,
                "hidden_size*conv_depthwise_multiplier*(conv_module_kernel + 1)",
                shape=f"{h * m}×1×{k} + {h * m}",
                note="depthwise Conv1d with a bias: conv_depthwise_multiplier kernels per channel",
            ),
            Node(
                f"{prefix}/pointwise",
                h * m * s + s,
                "hidden_size*conv_depthwise_multiplier*conv_separable_channels + conv_separable_channels",
                shape=f"{h * m}×{s} + {s}",
                note="pointwise Conv1d with a bias",
            ),
            Node(
                f"{prefix}/end",
                h * e + e,
                "(hidden_size + 1)*conv_glu_channels",
                shape=f"{h}×{e} + {e}",
                note="pointwise Conv1d with a bias",
            ),
        ],
    )


def time_mixing(prefix: str, spec: Spec) -> Node:
    """RWKV's time mixing: key, value and receptance of time_mixing_size from the hidden state (each mixed with the
    previous token's by a learned vector), a decay and a bonus per channel, the output projection."""
    h, a = spec.hidden_size, spec.time_mixing_size
    parts = [linear(f"{prefix}/{name}", h, "hidden_size", a, "time_mixing_size", False) for name in ("key", "value")]
    return group(
        prefix,
        [
            *parts,
            linear(f"{prefix}/receptance", h, "hidden_size", a, "time_mixing_size", False),
            Node(f"{prefix}/decay", 2 * a, "2*time_mixing_size", shape=f"{a} + {a}", note="time_decay and time_first"),
            Node(f"{prefix}/time_mix", 3 * h, "3*hidden_size", shape=f"3×({h},)", note="token-shift mix of k, v and r"),
            linear(f"{prefix}/output", a, "time_mixing_size", h, "hidden_size", False),
        ],
    )


def lightning(prefix: str, spec: Spec) -> Node:
    """MiniMax's lightning attention: one qkv_proj to 3 x heads x head_dim, an output gate of heads x head_dim, an
    RMSNorm over heads x head_dim on the attended values, out_proj; no biases. Linear attention: no softmax, no
    cache that grows."""
    h, inner = spec.hidden_size, spec.num_attention_heads * spec.head_size
    expr = "num_attention_heads*head_dim"
    return group(
        prefix,
        [
            linear(f"{prefix}/in_qkv", h, "hidden_size", 3 * inner, f"3*{expr}", False),
            linear(f"{prefix}/output_gate", h, "hidden_size", inner, expr, False),
            norm(f"{prefix}/norm", spec, inner, expr),
            linear(f"{prefix}/out", inner, expr, h, "hidden_size", False),
        ],
    )


def mlstm(prefix: str, spec: Spec) -> Node:
    """xLSTM's mLSTM cell: queries and keys (mlstm_qk_dim wide), values and a sigmoid output gate (mlstm_v_dim) from
    the layer input, an input and a forget gate per head (always with a bias), a LayerNorm over each value head, and
    out_proj back to hidden_size; the projections and the head norm carry biases with ``mlstm_bias``. With "qkv_o" in
    ``fused`` (weight_mode "fused"), q, k, v and the output gate are one linear layer and the two gates another: the
    same weights."""
    h, n, qk, v, bias = spec.hidden_size, spec.mlstm_heads, spec.mlstm_qk_dim, spec.mlstm_v_dim, spec.mlstm_bias
    if "qkv_o" in spec.fused:
        parts = [
            linear(f"{prefix}/qkv_o", h, "hidden_size", 2 * qk + 2 * v, "2*mlstm_qk_dim + 2*mlstm_v_dim", bias),
            linear(f"{prefix}/if_gates", h, "hidden_size", 2 * n, "2*mlstm_heads", True),
        ]
    else:
        parts = [
            linear(f"{prefix}/q", h, "hidden_size", qk, "mlstm_qk_dim", bias),
            linear(f"{prefix}/k", h, "hidden_size", qk, "mlstm_qk_dim", bias),
            linear(f"{prefix}/v", h, "hidden_size", v, "mlstm_v_dim", bias),
            linear(f"{prefix}/o_gate", h, "hidden_size", v, "mlstm_v_dim", bias),
            linear(f"{prefix}/i_gate", h, "hidden_size", n, "mlstm_heads", True),
            linear(f"{prefix}/f_gate", h, "hidden_size", n, "mlstm_heads", True),
        ]
    note = "a LayerNorm over each value head" + (", weight and bias" if bias else ", weight only")
    head_norm = Node(
        f"{prefix}/norm",
        (2 if bias else 1) * v,
        "2*mlstm_v_dim" if bias else "mlstm_v_dim",
        shape=f"{n}×LayerNorm({v // n})",
        note=note,
    )
    return group(prefix, [*parts, head_norm, linear(f"{prefix}/out", v, "mlstm_v_dim", h, "hidden_size", bias)])


def _indexer(prefix: str, spec: Spec) -> Node:
    """DeepSeek-V3.2's lightning indexer: queries from the q latent, one shared key, a LayerNorm (weight and
    bias) on it, and a weight per head; it picks the tokens each query attends to."""
    h, n, d, r = spec.hidden_size, spec.index_n_heads, spec.index_head_dim, spec.q_lora_rank or 0
    return group(
        prefix,
        [
            linear(f"{prefix}/q", r, "q_lora_rank", n * d, "index_n_heads*index_head_dim", False),
            linear(f"{prefix}/k", h, "hidden_size", d, "index_head_dim", False),
            Node(f"{prefix}/k_norm", 2 * d, "2*index_head_dim", shape=f"1×LayerNorm({d})"),
            linear(f"{prefix}/weights", h, "hidden_size", n, "index_n_heads", False),
        ],
    )


def mlp(prefix: str, spec: Spec, size: int, size_expr: str, bias: bool | None = None) -> Node:
    """Dense feed-forward: up (and gate, when gated) then down, with biases as ``bias`` or else ``spec.mlp_bias``."""
    h = spec.hidden_size
    if spec.channel_mixing:  # RWKV: key (up), value (down), a receptance gate, token-shift mix of key and receptance
        return group(
            prefix,
            [
                linear(f"{prefix}/up", h, "hidden_size", size, size_expr, False),
                linear(f"{prefix}/down", size, size_expr, h, "hidden_size", False),
                linear(f"{prefix}/receptance", h, "hidden_size", h, "hidden_size", False),
                Node(f"{prefix}/time_mix", 2 * h, "2*hidden_size", shape=f"2×({h},)", note="token-shift mix of k, r"),
            ],
        )
    parts = []
    b = spec.mlp_bias if bias is None else bias
    if spec.mlp_gated:
        parts.append(linear(f"{prefix}/gate", h, "hidden_size", size, size_expr, b))
    parts.append(linear(f"{prefix}/up", h, "hidden_size", size, size_expr, b))
    parts.append(linear(f"{prefix}/down", size, size_expr, h, "hidden_size", b))
    if spec.sub_norms:
        parts.append(norm(f"{prefix}/sub_norm", spec, size, size_expr))
    if spec.act_params:
        n = spec.act_params
        parts.append(Node(f"{prefix}/act", n, str(n), shape=str(n), note="learned activation scalars"))
    return group(prefix, parts)


def moe(prefix: str, spec: Spec) -> Node:
    """Router, routed experts, shared experts (and their gate)."""
    h = spec.hidden_size
    one = mlp(f"{prefix}/experts", spec, spec.expert_size, "moe_intermediate_size", spec.expert_bias)
    slots = spec.num_experts + spec.zero_experts
    slots_expr = "num_experts + zero_experts" if spec.zero_experts else "num_experts"
    parts = [
        linear(f"{prefix}/router", h, "hidden_size", slots, slots_expr, spec.router_bias),
        repeated(one, spec.num_experts, "num_experts"),
    ]
    if spec.zero_experts:
        z, i = spec.zero_experts, spec.expert_size
        parts.append(
            Node(
                f"{prefix}/zero_experts",
                z * 2 * i * h,
                "zero_experts*2*moe_intermediate_size*hidden_size",
                shape=f"{z}×{2 * i}×{h}",
                note="gate_up rows transformers allocates for the zero-computation experts, which never compute",
            )
        )
    if spec.shared_expert_size:
        expr = "shared_expert_intermediate_size"
        parts.append(mlp(f"{prefix}/shared_experts", spec, spec.shared_expert_size, expr))
        if spec.shared_expert_gate:
            parts.append(linear(f"{prefix}/shared_expert_gate", h, "hidden_size", 1, "1", False))
    if spec.expert_score_bias:
        e = spec.num_experts
        note = "added to the router's scores to balance the experts; a parameter, kept frozen"
        parts.append(Node(f"{prefix}/expert_bias", e, "num_experts", shape=str(e), note=note))
    if spec.router_scales:
        e = spec.num_experts
        note = "the router's scale per input channel and per expert"
        parts.append(Node(f"{prefix}/router_scales", h + e, "hidden_size + num_experts", shape=f"{h} + {e}", note=note))
    if spec.moe_norms:
        parts.append(norm(f"{prefix}/norms", spec, h, "hidden_size", spec.moe_norms, str(spec.moe_norms)))
    if spec.moe_output_bias:
        parts.append(Node(f"{prefix}/bias", h, "hidden_size", shape=f"{h}", note="one bias after the experts' sum"))
    return group(prefix, parts)


def shared_block(prefix: str, spec: Spec) -> Node:
    """One of Zamba2's shared transformer blocks: a norm over [hidden state, input embeddings] (2 x hidden_size),
    attention reading them, a norm and the MLP."""
    h = spec.hidden_size
    return group(
        prefix,
        [
            norm(f"{prefix}/input_norm", spec, 2 * h, "2*hidden_size"),
            attention(f"{prefix}/attention", spec),
            norm(f"{prefix}/mlp_norm", spec, h, "hidden_size"),
            mlp(f"{prefix}/mlp", spec, spec.ffn_size, "intermediate_size"),
        ],
    )


def block_linear(path: str, spec: Spec) -> Node:
    """The linear layer each use of a Zamba2 shared block keeps of its own, on the block's output."""
    h = spec.hidden_size
    return linear(path, h, "hidden_size", h, "hidden_size", False)


def block_adapters(prefix: str, spec: Spec) -> Node:
    """One set of a Zamba2 shared block's adapters: two linear layers each (down to shared_adapter_rank and back up)
    beside the MLP's gate_up and, with shared_attention_adapters, beside q, k and v (2 x hidden_size wide)."""
    h, r, i = spec.hidden_size, spec.shared_adapter_rank, spec.ffn_size
    ups = [("mlp/gate_up", h, "hidden_size", 2 * i, "2*intermediate_size")]
    if spec.shared_attention_adapters:
        ups += [(f"attention/{n}", 2 * h, "2*hidden_size", 2 * h, "2*hidden_size") for n in ("q", "k", "v")]
    parts = []
    for name, n_in, in_expr, n_out, out_expr in ups:
        parts.append(linear(f"{prefix}/{name}_down", n_in, in_expr, r, "shared_adapter_rank", False))
        parts.append(linear(f"{prefix}/{name}_up", r, "shared_adapter_rank", n_out, out_expr, False))
    return group(prefix, parts)


def recurrent(prefix: str, spec: Spec) -> Node:
    """One RNN cell of hidden size H per embedding channel (input size 1)."""
    h, r = spec.hidden_size, spec.recurrent_units
    return group(
        prefix,
        [
            Node(f"{prefix}/ih", h * r, "hidden_size*recurrent_units", shape=f"{h}×({r}×1)"),
            Node(f"{prefix}/hh", h * r * r, "hidden_size*recurrent_units^2", shape=f"{h}×({r}×{r})"),
            Node(f"{prefix}/bias", h * 2 * r, "hidden_size*2*recurrent_units", shape=f"{h}×2×{r}"),
        ],
    )


def _shared_by_layers(prefix: str, spec: Spec) -> list[Node]:
    """What a stack holds once for all its layers: DeBERTa's relative-position table (and its LayerNorm) and the
    convolution (and its LayerNorm) beside the first layer."""
    h = spec.hidden_size
    out: list[Node] = []
    if spec.relative_table:
        rows = spec.relative_table
        out.append(
            Node(
                f"{prefix}/relative_position",
                rows * h,
                "relative_table*hidden_size",
                shape=f"{rows}×{h}",
                note="relative positions, shared by all layers",
            )
        )
    if spec.relative_table_norm:
        out.append(norm(f"{prefix}/relative_position_norm", spec, h, "hidden_size"))
    if spec.encoder_conv_kernel:
        k, g = spec.encoder_conv_kernel, spec.encoder_conv_groups
        weights = h * (h // g) * k + h
        conv = Node(
            f"{prefix}/conv/conv",
            weights,
            "hidden_size*(hidden_size/encoder_conv_groups)*encoder_conv_kernel + hidden_size",
            shape=f"{h}×{h // g}×{k}",
            note="Conv1d with a bias, beside the first layer",
        )
        out.append(group(f"{prefix}/conv", [conv, norm(f"{prefix}/conv/norm", spec, h, "hidden_size")]))
    return out


#: The block each kind of mixer builds (:class:`~paramscope.engine.spec.Stack` counts the layers of each kind).
MIXERS = {
    "attention": attention,
    "ssm": ssm,
    "linear_attention": linear_attention,
    "short_conv": short_conv,
    "time_mixing": time_mixing,
    "lightning": lightning,
    "mlstm": mlstm,
}


def layer_stack(prefix: str, spec: Spec, layers: int, layers_expr: str, cross: bool = False) -> Node:
    """``layers`` layers, each block counted over the layers that hold it (:meth:`Spec.stack`)."""
    copies = layers
    if spec.num_hidden_groups is not None and not cross:
        copies, layers_expr = spec.num_hidden_groups, "num_hidden_groups"
    kinds = spec.stack(copies, layers_expr)
    parts: list[Node] = []
    for kind, block in MIXERS.items():
        if kind == "attention":  # Zamba2's shared blocks hold theirs
            groups = () if spec.shared_blocks else spec.attention_groups(kinds)
            parts += [repeated(group_attention(prefix, g), g.layers, g.expr) for g in groups]
        elif getattr(kinds, kind):
            parts.append(repeated(block(f"{prefix}/{kind}", spec), getattr(kinds, kind), kinds.expr(kind)))
    if spec.shared_blocks:  # their attention and MLP are counted once per block, not per use
        adapters = block_adapters(f"{prefix}/shared_block_adapters", spec)
        parts += [
            repeated(shared_block(f"{prefix}/shared_block", spec), spec.shared_blocks, "shared_blocks"),
            repeated(block_linear(f"{prefix}/shared_block_linear", spec), spec.shared_block_uses, "shared_block_uses"),
            repeated(adapters, spec.shared_adapters, "shared_adapters"),
        ]
    if cross:
        parts.append(repeated(attention(f"{prefix}/cross_attention", spec), copies, layers_expr))
    if kinds.mlp and not spec.shared_blocks:
        parts += [repeated(block, n, expr) for block, n, expr in dense_mlps(prefix, spec, kinds)]
    if kinds.moe:
        parts.append(repeated(moe(f"{prefix}/moe", spec), kinds.moe, kinds.expr("moe")))
    if spec.conv_module_kernel and not cross:
        parts.append(repeated(conv_module(f"{prefix}/conv_module", spec), copies, layers_expr))
    if spec.per_layer_input:
        parts.append(repeated(per_layer_input(prefix, spec), copies, layers_expr))
    if spec.altup_num_inputs:
        parts.append(repeated(altup(prefix, spec), copies, layers_expr))
    if spec.laurel_rank is not None:
        parts.append(repeated(laurel(prefix, spec), copies, layers_expr))
    if spec.csa_layers:
        parts.append(repeated(compressor(f"{prefix}/csa_compressor", spec, True), spec.csa_layers, "csa_layers"))
    if spec.hca_layers:
        parts.append(repeated(compressor(f"{prefix}/hca_compressor", spec, False), spec.hca_layers, "hca_layers"))
    if spec.hc_mult:
        parts.append(repeated(hyper_connections(prefix, spec), copies, layers_expr))
    if spec.recurrent_units:
        parts.append(repeated(recurrent(f"{prefix}/recurrent", spec), copies, layers_expr))
    if spec.cross_attn_layers and not cross:  # their q/k/v/o are the attention's, counted over every layer
        hd = spec.head_size
        note = "the layers that attend to the vision tower: q/k norms and two tanh gates beside q/k/v/o"
        extras = Node(
            f"{prefix}/cross_attention_extras", 2 * hd + 2, "2*head_dim + 2", shape=f"2×RMSNorm({hd}) + 2", note=note
        )
        parts.append(repeated(extras, spec.cross_attn_layers, "cross_attn_layers"))
    if spec.cross_attention_frequency and not cross:
        every = spec.cross_attention_frequency
        n, n_expr = -(-copies // every), f"ceil({layers_expr}/cross_attention_frequency)"
        parts += [
            repeated(sparse_cross_attention(f"{prefix}/cross_attention", spec), n, n_expr),
            repeated(norm(f"{prefix}/cross_attention_norm", spec, spec.hidden_size, "hidden_size"), n, n_expr),
        ]
    if spec.text_mlp and not cross:
        text = mlp(f"{prefix}/text_mlp", spec, spec.ffn_size, "intermediate_size")
        parts += [
            repeated(text, copies, layers_expr),
            repeated(norm(f"{prefix}/text_mlp_norm", spec, spec.hidden_size, "hidden_size"), copies, layers_expr),
        ]
    if spec.gated_layers and not cross:
        note = "tanh gates on the attention and the MLP of the gated layers"
        parts.append(
            Node(f"{prefix}/gates", 2 * spec.gated_layers, "2*gated_layers", shape=f"{spec.gated_layers}×2", note=note)
        )
    if spec.layer_scales:
        h = spec.hidden_size
        scales = Node(f"{prefix}/layer_scale", 2 * h, "2*hidden_size", shape=f"2×{h}", note="two learned scales")
        parts.append(repeated(scales, copies, layers_expr))
    if not cross:
        parts += _shared_by_layers(prefix, spec)
    n_norms = spec.norms_per_layer + (spec.cross_norms if cross else 0)
    h = spec.hidden_size
    if n_norms and not spec.first_layer_attn_norm and copies and not cross:
        # one norm fewer in the first layer: its attention reads the embeddings' norm
        if n_norms > 1:
            per = norm(f"{prefix}/norm", spec, h, "hidden_size", n_norms - 1, str(n_norms - 1))
            parts.append(repeated(per, copies, layers_expr))
        attn_norm = norm(f"{prefix}/attention_norm", spec, h, "hidden_size")
        if copies > 1:
            parts.append(repeated(attn_norm, copies - 1, f"({layers_expr} - 1)"))
    elif n_norms:
        bias = True if spec.rms_norm_bias and spec.norm_type == "rmsnorm" else None  # xLSTM's (its final norm: none)
        parts.append(
            repeated(norm(f"{prefix}/norm", spec, h, "hidden_size", n_norms, str(n_norms), bias), copies, layers_expr)
        )
    note = ""
    if spec.num_hidden_groups is not None and not cross:
        note = f"{spec.num_hidden_groups} parameter set(s) shared by all {layers} layers"
    return group(prefix, parts, note=note)


def _albert_style(spec: Spec) -> bool:
    """ALBERT factorizes every embedding table and maps it in with a bias (encoders with an MLM transform);
    OPT-350m projects only the token table in and out, without biases."""
    return spec.mlm_transform


def _table_width(spec: Spec) -> tuple[int, str]:
    """Width of the position / token-type tables: ALBERT factorizes all of them, OPT only the token table."""
    if spec.embedding_size is None or not _albert_style(spec):
        return spec.hidden_size, "hidden_size"
    return spec.embedding_size, "embedding_size"


def _positions(prefix: str, spec: Spec, source: bool = False) -> list[Node]:
    """The learned (or stored sinusoidal) position table; an encoder with ``source_positions`` (Whisper) has its own
    length, a frozen sinusoidal table stored as a parameter."""
    e, e_expr = _table_width(spec)
    out: list[Node] = []
    if source and spec.source_positions:
        rows, note = spec.source_positions, "sinusoids stored as a (frozen) parameter"
        out.append(Node(f"{prefix}/position", rows * e, f"source_positions*{e_expr}", shape=f"{rows}×{e}", note=note))
    elif spec.position_embedding in ("learned", "sinusoidal") and spec.max_position_embeddings:
        rows = spec.max_position_embeddings + spec.position_offset
        expr = "max_position_embeddings" + (f" + {spec.position_offset}" if spec.position_offset else "")
        note = "fixed sinusoidal table stored as a parameter" if spec.position_embedding == "sinusoidal" else ""
        out.append(Node(f"{prefix}/position", rows * e, f"{paren(expr)}*{e_expr}", shape=f"{rows}×{e}", note=note))
    elif spec.position_embedding == "learned_2d":
        rows, note = spec.max_position_embeddings, "one table per image axis: a patch adds its column's and its row's"
        out.append(
            Node(
                f"{prefix}/position",
                2 * rows * e,
                f"2*max_position_embeddings*{e_expr}",
                shape=f"2×{rows}×{e}",
                note=note,
            )
        )
    return out


def _audio_input(spec: Spec, prefix: str) -> list[Node]:
    """Whisper's encoder input (and an audio tower's, Qwen2-Audio's, Voxtral's): two Conv1d of kernel 3 with biases,
    mel bins to hidden_size, then hidden_size to hidden_size at stride 2."""
    h, mel = spec.hidden_size, spec.audio_mel_bins
    convs = [
        Node(f"{prefix}/conv1", mel * h * 3 + h, "audio_mel_bins*hidden_size*3 + hidden_size", shape=f"{mel}×{h}×3"),
        Node(f"{prefix}/conv2", h * h * 3 + h, "hidden_size*hidden_size*3 + hidden_size", shape=f"{h}×{h}×3"),
    ]
    return [group(prefix, convs, note="mel frames in: two convolutions instead of a token table")]


def _subsampling(spec: Spec, prefix: str) -> Node:
    """A Conformer's audio input (Gemma 4's, Gemma 3n's): mel frames through two convolutions without biases (one input
    channel to subsampling_channels over subsampling_taps taps, then to subsampling_out_channels over
    subsampling_out_taps), each followed by a norm with one weight per channel and no bias, then a bias-free linear
    layer from subsampling_freq x subsampling_out_channels features (the frequency bins the convolutions leave, by the
    channels) to hidden_size."""
    h, a, b = spec.hidden_size, spec.subsampling_channels, spec.subsampling_out_channels
    k1, k2, f = spec.subsampling_taps, spec.subsampling_out_taps, spec.subsampling_freq
    if spec.subsampling_stages:
        return _nemo_subsampling(spec, prefix)
    return group(
        prefix,
        [
            Node(f"{prefix}/conv1", k1 * a, "subsampling_taps*subsampling_channels", shape=f"1×{a}×({k1} taps)"),
            Node(f"{prefix}/norm1", a, "subsampling_channels", shape=f"norm({a}), no bias"),
            Node(
                f"{prefix}/conv2",
                k2 * a * b,
                "subsampling_out_taps*subsampling_channels*subsampling_out_channels",
                shape=f"{a}×{b}×({k2} taps)",
            ),
            Node(f"{prefix}/norm2", b, "subsampling_out_channels", shape=f"norm({b}), no bias"),
            linear(f"{prefix}/projection", f * b, "subsampling_freq*subsampling_out_channels", h, "hidden_size", False),
        ],
        note="mel frames in: two subsampling convolutions and a projection instead of a token table",
    )


def _nemo_subsampling(spec: Spec, prefix: str) -> Node:
    """Phi-4-multimodal's audio input (NeMo's subsampling): mel frames through a convolution of subsampling_taps taps
    (3 x 3, stride 2) from one channel to subsampling_channels, then subsampling_stages - 1 stages of a depthwise
    convolution (3 x 3, stride 2) and a pointwise one, every convolution with a bias, then a linear layer with a bias
    from subsampling_freq x subsampling_channels features (the frequency bins the stages leave, by the channels) to
    hidden_size."""
    h, c, k, f, n = (
        spec.hidden_size,
        spec.subsampling_channels,
        spec.subsampling_taps,
        spec.subsampling_freq,
        spec.subsampling_stages,
    )
    stage = group(
        f"{prefix}/stages",
        [
            Node(
                f"{prefix}/stages/depthwise",
                (k + 1) * c,
                "(subsampling_taps + 1)*subsampling_channels",
                shape=f"{c}×1×({k} taps) + {c}",
            ),
            Node(
                f"{prefix}/stages/pointwise",
                c * c + c,
                "(subsampling_channels + 1)*subsampling_channels",
                shape=f"{c}×{c} + {c}",
            ),
        ],
    )
    return group(
        prefix,
        [
            Node(
                f"{prefix}/conv1",
                (k + 1) * c,
                "(subsampling_taps + 1)*subsampling_channels",
                shape=f"1×{c}×({k} taps) + {c}",
            ),
            repeated(stage, n - 1, "(subsampling_stages - 1)"),
            linear(f"{prefix}/projection", f * c, "subsampling_freq*subsampling_channels", h, "hidden_size", True),
        ],
        note="mel frames in: NeMo's stride-2 subsampling convolutions and a projection instead of a token table",
    )


def _image_input(spec: Spec) -> list[Node]:
    """A vision encoder's input: a convolution of kernel and stride patch_size from num_channels to hidden_size (a
    Conv3d over temporal_patch frames for Qwen's towers, an unfolded nn.Linear for Llama 4's; in every case one
    matrix applied to each flattened patch), and a learned class token in front of the patches."""
    h, c, p, t = spec.hidden_size, spec.num_channels, spec.patch_size, spec.temporal_patch
    bias = " + hidden_size" if spec.patch_bias else ""
    frames, frames_expr, kernel = (t, "temporal_patch*", f"{t}×{p}×{p}") if t > 1 else (1, "", f"{p}×{p}")
    weight = f"num_channels*{frames_expr}patch_size^2*hidden_size"
    out = [
        Node(
            "embedding/patch",
            c * frames * p * p * h + (h if spec.patch_bias else 0),
            f"{weight}{bias}",
            shape=f"{c}×{kernel}×{h}",
            note=f"a {c}×{kernel} convolution of stride {p}: {spec.patches:,} patches per image, each a token",
            matrix=Matrix(c * frames * p * p, h, weight) if spec.patch_linear else None,
        )
    ]
    if spec.class_token:
        out.append(Node("embedding/class", h, "hidden_size", shape=f"{h}", note="the class token, before the patches"))
    if spec.register_tokens:
        n = spec.register_tokens
        note = "learned tokens after the class token, dropped at the output"
        out.append(Node("embedding/registers", n * h, "register_tokens*hidden_size", shape=f"{n}×{h}", note=note))
    if spec.mask_token:
        out.append(Node("embedding/mask", h, "hidden_size", shape=f"{h}", note="stands in for masked patches"))
    if spec.max_num_tiles:  # Mllama: tables per supported aspect ratio (+ 1: none), each with a tanh gate
        rows, t, pos = spec.tile_ratios + 1, spec.max_num_tiles, spec.max_position_embeddings
        note = "per aspect ratio, a position for every patch (and the class token) of every tile; the gate it shares"
        out.append(
            Node(
                "embedding/tile_position",
                rows * t * pos * h + 1,
                "(tile_ratios + 1)*max_num_tiles*max_position_embeddings*hidden_size + 1",
                shape=f"{rows}×{t * pos * h} + 1",
                note=note + " with the position table",
            )
        )
        note = "before and after the local layers, an embedding per aspect ratio of each tile, and its gate"
        out.append(
            Node(
                "embedding/tile",
                2 * (rows * t * h + 1),
                "2*((tile_ratios + 1)*max_num_tiles*hidden_size + 1)",
                shape=f"2×({rows}×{t * h} + 1)",
                note=note,
            )
        )
    return out


def _merger(path: str, spec: Spec, norm_width: int, norm_expr: str) -> Node:
    """Qwen's patch merger: a norm (of ``norm_width``), then an MLP with biases from merge_size^2 x hidden_size to the
    same width and on to merger_out."""
    w, w_expr = spec.merge_size**2 * spec.hidden_size, "merge_size^2*hidden_size"
    return group(
        path,
        [
            norm(f"{path}/norm", spec, norm_width, norm_expr),
            linear(f"{path}/fc1", w, w_expr, w, w_expr, True),
            linear(f"{path}/fc2", w, w_expr, spec.merger_out, "merger_out", True),
        ],
    )


def _glm4v_merger(spec: Spec) -> list[Node]:
    """GLM-4V's merger: a convolution of kernel and stride merge_size (with a bias) folds merge_size^2 patches into one
    token of merger_out, then a bias-free projection, a LayerNorm with a bias and a gated MLP merger_mlp wide without
    biases."""
    h, m, o, f = spec.hidden_size, spec.merge_size, spec.merger_out, spec.merger_mlp
    fold = Node(
        "head/downsample",
        o * h * m * m + o,
        "merger_out*hidden_size*merge_size^2 + merger_out",
        shape=f"{h}×{m}×{m}×{o}",
        note="merge_size × merge_size patches into one token of merger_out (a convolution)",
    )
    merger = [
        linear("head/merger/proj", o, "merger_out", o, "merger_out", False),
        Node("head/merger/norm", 2 * o, "2*merger_out", shape=f"1×LayerNorm({o})"),
        linear("head/merger/gate", o, "merger_out", f, "merger_mlp", False),
        linear("head/merger/up", o, "merger_out", f, "merger_mlp", False),
        linear("head/merger/down", f, "merger_mlp", o, "merger_out", False),
    ]
    return [fold, group("head/merger", merger)]


def _attention_pool(spec: Spec) -> Node:
    """SigLIP's pooling head: a learned probe attends to every patch (``nn.MultiheadAttention``: one in-projection
    of 3 × hidden with a bias, the out-projection with a bias), then a LayerNorm and an MLP with biases."""
    h, i = spec.hidden_size, spec.intermediate_size or 0
    prefix = "head/pool"
    return group(
        prefix,
        [
            Node(f"{prefix}/probe", h, "hidden_size", shape=f"{h}", note="the query that attends to the patches"),
            # nn.MultiheadAttention's in_proj_weight is a parameter, not a linear layer (LoRA leaves it alone)
            linear(f"{prefix}/in_proj", h, "hidden_size", 3 * h, "3*hidden_size", True)._replace(matrix=None),
            linear(f"{prefix}/out_proj", h, "hidden_size", h, "hidden_size", True),
            norm(f"{prefix}/norm", spec, h, "hidden_size"),
            linear(f"{prefix}/fc1", h, "hidden_size", i, "intermediate_size", True),
            linear(f"{prefix}/fc2", i, "intermediate_size", h, "hidden_size", True),
        ],
    )


def _relative_bias(prefix: str, spec: Spec, layers: int) -> list[Node]:
    # held by the first layer: none without layers (a Conformer's, Phi-4-multimodal's audio tower's, by the model)
    if spec.position_embedding != "relative" or not (layers or spec.macaron_ffn):
        return []
    b, heads = spec.relative_attention_num_buckets, spec.num_attention_heads
    return [
        Node(
            f"{prefix}/relative_attention_bias",
            b * heads,
            "relative_attention_num_buckets*num_attention_heads",
            shape=f"{b}×{heads}",
            # a Conformer's (Phi-4-multimodal's audio tower) is the model's own, not its first layer's
            note="shared by all layers" if spec.macaron_ffn else "held by the first layer, shared by all",
        )
    ]


def _count(spec: Spec) -> Node:
    h, v, e = spec.hidden_size, spec.vocab_size, spec.embed_width
    e_expr = "hidden_size" if spec.embedding_size is None else "embedding_size"
    factorized = spec.embedding_size is not None and spec.embedding_size != h
    top: list[Node] = []

    # ---- embeddings
    emb: list[Node] = []
    if v and spec.extra_token_rows:
        x = spec.extra_token_rows
        note = f"{x:,} rows beyond vocab_size (the LM head keeps vocab_size)"
        emb.append(
            Node("embedding/token", (v + x) * e, f"(vocab_size + {x})*{e_expr}", shape=f"{v + x}×{e}", note=note)
        )
    elif v:
        emb.append(Node("embedding/token", v * e, f"vocab_size*{e_expr}", shape=f"{v}×{e}"))
    if spec.image_size:
        emb += _image_input(spec)
    if spec.audio_mel_bins and not spec.is_encoder_decoder:
        emb += _audio_input(spec, "embedding/audio")
    if spec.subsampling_channels or spec.subsampling_out_channels:
        emb.append(_subsampling(spec, "embedding/audio"))
    if spec.per_layer_input:
        w, w_expr, rows = (
            spec.num_hidden_layers * spec.per_layer_input,
            "num_hidden_layers*hidden_size_per_layer_input",
            spec.per_layer_vocab,
        )
        emb += [
            Node(
                "embedding/per_layer",
                rows * w,
                f"vocab_size_per_layer_input*{w_expr}",
                shape=f"{rows}×{w}",
                note="per-layer inputs: a row per token, a hidden_size_per_layer_input slice for each layer",
            ),
            linear("embedding/per_layer_projection", h, "hidden_size", w, w_expr, False),
            norm("embedding/per_layer_norm", spec, spec.per_layer_input, "hidden_size_per_layer_input"),
        ]
    if spec.altup_num_inputs:
        emb.append(altup_projections("embedding/altup_projections", spec))
    if not spec.is_encoder_decoder:
        emb += _positions("embedding", spec)
    t, t_expr = _table_width(spec)
    if spec.type_vocab_size:
        emb.append(
            Node(
                "embedding/token_type",
                spec.type_vocab_size * t,
                f"type_vocab_size*{t_expr}",
                shape=f"{spec.type_vocab_size}×{t}",
            )
        )
    if spec.embedding_norm and not spec.is_encoder_decoder:
        emb.append(norm("embedding/norm", spec, t, t_expr))
    if factorized:
        emb.append(linear("embedding/projection", e, "embedding_size", h, "hidden_size", _albert_style(spec)))
    top.append(group("embedding", emb))

    # ---- the stacks
    if spec.is_encoder_decoder:
        for name, n, expr, cross in (
            ("encoder", spec.num_hidden_layers, "num_hidden_layers", False),
            ("decoder", spec.num_decoder_layers, "num_decoder_layers", True),
        ):
            stack: list[Node] = []
            if v and (not spec.share_stack_embeddings or (name == "encoder" and spec.encoder_embedding)):
                stack.append(Node(f"{name}/embedding/token", v * h, "vocab_size*hidden_size", shape=f"{v}×{h}"))
            stack += _audio_input(spec, "encoder/embedding/audio") if name == "encoder" and spec.audio_mel_bins else []
            stack += _positions(f"{name}/embedding", spec, source=name == "encoder")
            if spec.embedding_norm:
                stack.append(norm(f"{name}/embedding/norm", spec, h, "hidden_size"))
            stack += _relative_bias(name, spec, n)
            stack.append(layer_stack(f"{name}/layers", spec, n, expr, cross=cross))
            if spec.final_norm:
                stack.append(norm(f"{name}/final_norm", spec, h, "hidden_size"))
            top.append(group(name, stack))
    else:
        top += _relative_bias("layers", spec, spec.num_hidden_layers)  # an encoder-only T5 (T5EncoderModel)
        top.append(layer_stack("layers", spec, spec.num_hidden_layers, "num_hidden_layers"))
        if spec.final_norm:
            top.append(norm("final_norm", spec, h, "hidden_size"))

    # ---- heads
    head: list[Node] = []
    if spec.architecture in ("masked_lm", "causal_lm") and spec.mlm_transform and v:  # BertLMHeadModel too
        head.append(
            group(
                "head/transform",
                [
                    linear("head/transform/dense", h, "hidden_size", e, e_expr, spec.mlm_transform_bias),
                    norm("head/transform/norm", spec, e, e_expr),
                ],
            )
        )
    if factorized and not _albert_style(spec):  # OPT's project_out belongs to the decoder, head or not
        head.append(linear("head/projection", h, "hidden_size", e, "embedding_size", False))
    if spec.architecture == "discriminator":  # ELECTRA: was each token replaced? a dense layer, then one logit
        head.append(
            group(
                "head/discriminator",
                [
                    linear("head/discriminator/dense", h, "hidden_size", h, "hidden_size", True),
                    linear("head/discriminator/prediction", h, "hidden_size", 1, "1", True),
                ],
            )
        )
    if spec.architecture == "image_classification" and spec.num_labels:
        head.append(linear("head/classifier", h, "hidden_size", spec.num_labels, "num_labels", True))
    if spec.attention_pool:
        head.append(_attention_pool(spec))
    if spec.merge_size and spec.merger_mlp:
        head += _glm4v_merger(spec)
    elif spec.merge_size:
        note = "merge_size × merge_size patches into one token of merger_out"
        head.append(_merger("head/merger", spec, h, "hidden_size")._replace(note=note))
    if spec.deepstack_mergers:  # they normalise the merged patches, not each patch
        deep = _merger("head/deepstack_merger", spec, spec.merge_size**2 * h, "merge_size^2*hidden_size")
        head.append(repeated(deep, spec.deepstack_mergers, "deepstack_mergers"))
    if spec.adapter_width:
        i, a, o = spec.ffn_size, spec.adapter_width, spec.adapter_out
        adapter = [
            linear("head/vision_adapter/fc1", i, "intermediate_size", a, "adapter_width", False),
            linear("head/vision_adapter/fc2", o, "adapter_out", o, "adapter_out", False),
        ]
        head.append(group("head/vision_adapter", adapter, note="after the pixel shuffle"))
    if spec.pooled_projection:
        p = spec.pooled_projection
        head.append(linear("head/pooled_projection", h, "hidden_size", p, "pooled_projection", True))
    if spec.altup_num_inputs:  # Gemma 3n: the other AltUp streams projected back before the final norm
        head.append(altup_projections("head/altup_unembed_projections", spec))
    if spec.output_proj_dims:
        head.append(linear("head/output_proj", h, "hidden_size", spec.output_proj_dims, "output_proj_dims", True))
    if spec.hc_mult:  # DeepSeek-V4: the streams mixed into one before the final norm
        n, h = spec.hc_mult, spec.hidden_size
        head.append(Node("head/hyper_head", n * n * h + n + 1, "hc_mult*hc_mult*hidden_size + hc_mult + 1"))
    if spec.lm_head:
        if spec.tie_word_embeddings:
            head.append(Node("head/lm", 0, "0 (tied)", shape=f"{e}×{v}", note="tied to embedding/token: counted once"))
        else:
            head.append(linear("head/lm", e, e_expr, v, "vocab_size", False))
        if spec.lm_head_bias:
            head.append(Node("head/lm_bias", v, "vocab_size", shape=f"{v}"))
            if spec.lm_head_bias_pair and not spec.tie_word_embeddings:
                head.append(
                    Node("head/lm_decoder_bias", v, "vocab_size", shape=f"{v}", note="untied from head/lm_bias")
                )
    if head:
        tied = next((n.note for n in head if n.note), "")
        top.append(group("head", head, note=tied))
    if spec.pooler:
        top.append(linear("pooler", h, "hidden_size", h, "hidden_size", True))
    if spec.towers_params:
        note = "the other towers (vision, audio) and projectors beside this language model, counted apart"
        top.append(Node("towers", spec.towers_params, "towers_params", note=note))

    return group("", top)


@lru_cache(maxsize=512)
def _count_cached(spec: Spec) -> Node:
    return _count(spec)


def count(spec: Spec) -> Node:
    """The exact parameter tree of ``spec`` (validated first; raises ``ValueError`` on a bad spec)."""
    return _count_cached(validate(spec))


def active_params(spec: Spec, tree: Node) -> int:
    """Parameters that touch one token: all but the routed experts (of the feed-forward blocks and, in a mixture of
    attention heads, of the attention) not chosen for it, and a multimodal model's other towers."""
    idle = tree.get("layers/moe/zero_experts") + tree.get("towers")  # never computed; no text token reads a tower
    for experts, n in routed_experts(spec, tree):  # one expert repeated n times in each layer that holds them
        idle += (n - spec.num_experts_per_tok) * (experts.repeat // n) * experts.per_copy
    return tree.count - idle


def routed_experts(spec: Spec, tree: Node) -> list[tuple[Node, int]]:
    """The tree's routed experts, each node with how many experts it holds per layer: the feed-forward experts and,
    in a mixture of attention heads (JetMoE), the attention's."""
    out = []
    for path, n in (("layers/moe/experts", spec.num_experts), ("layers/attention/experts", spec.attention_experts)):
        experts = tree.find(path) if n else None
        if experts is not None:
            out.append((experts, n))
    return out


def summarize(spec: Spec) -> Summary:
    """Total, embedding, non-embedding and active-per-token counts, all read off one tree."""
    tree = count(spec)
    emb = embedding_params(tree)
    return Summary(
        total=tree.count,
        embedding=emb,
        non_embedding=tree.count - emb,
        active=active_params(spec, tree),
        tree=tree,
        input_embedding=emb - tree.get("head/lm"),
    )
