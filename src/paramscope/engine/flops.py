"""Compute: forward FLOPs of one sequence as a :class:`~paramscope.engine.tree.Node` tree, training FLOPs, 6ND,
Chinchilla-optimal tokens, training time and MFU.

Conventions (those of nanoGPT's ``transformer_sizing.ipynb`` and the PaLM paper, Appendix B):

* a matrix multiply ``(m × k) @ (k × n)`` costs ``2·m·k·n`` FLOPs (one multiply and one add per
  multiply-accumulate); only weight matmuls and the two attention matmuls are counted; biases, norms,
  activations, softmax and embedding lookups are not;
* the LM head is counted (``2·hidden·vocab`` per token) even when it is tied to the embedding;
* attention: ``QKᵀ`` and ``A·V`` cost ``2·heads·head_dim`` per (query, key) pair each. By default every
  query sees every key of the sequence (non-causal: nanoGPT, PaLM's ``12·L·H·Q·T``); with ``causal``
  query ``i`` sees keys ``0..i`` only (``T(T+1)/2`` pairs), sliding-window layers at most ``window``
  keys. Encoders and cross-attention are always bidirectional;
* MoE layers cost the router and ``num_experts_per_tok`` experts per token;
* training = 3 × forward (the backward pass costs twice the forward).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from paramscope.engine import params as P
from paramscope.engine.hardware import Accelerator
from paramscope.engine.params import summarize
from paramscope.engine.run import RunSettings, check, resolved_seq
from paramscope.engine.spec import Spec, validate
from paramscope.engine.tree import Node, group, repeated

CHINCHILLA_TOKENS_PER_PARAM = 20


def _matmuls(node: Node, tokens: int, tokens_expr: str, fraction: tuple[int, int] = (1, 1)) -> list[Node]:
    """2 FLOPs per weight per token for every weight matrix in ``node`` (one copy of a block).

    ``fraction`` (k, n) scales copies that only a k-of-n share of the tokens visits (routed experts)."""
    out: list[Node] = []
    for leaf in node.leaves():
        m = leaf.matrix
        if not m or not leaf.count:
            continue
        weights = m.n_in * m.n_out
        copies = leaf.repeat
        k, n = fraction
        flops = 2 * weights * tokens * copies * k // n
        formula = f"2*{tokens_expr}*{m.formula}"
        if copies > 1:
            formula = f"2*{tokens_expr}*{leaf.repeat_name}*{m.formula}"
            if (k, n) != (1, 1):
                formula = f"2*{tokens_expr}*num_experts_per_tok*{m.formula}"
        out.append(Node(leaf.path, flops, formula, shape=leaf.shape))
    return out


def _expert_matmuls(block: Node, seq: int, chosen: int, experts: int) -> list[Node]:
    """The weight matmuls of a block whose ``experts`` child runs ``chosen`` of its ``experts`` copies per token (a
    mixture of experts, or of attention heads); every other child runs for every token."""
    out: list[Node] = []
    for child in block.children:
        routed = child.path.endswith("/experts") and experts
        out += _matmuls(child, seq, "seq", (chosen, experts) if routed else (1, 1))
    return out


def attention_pairs(seq: int, causal: bool, window: int | None = None) -> int:
    """(query, key) pairs in one sequence: ``seq²`` non-causal, ``seq(seq+1)/2`` causal, each query
    limited to ``window`` keys when a sliding window is given."""
    w = seq if window is None else min(window, seq)
    if not causal:
        return seq * w
    if seq <= w:
        return seq * (seq + 1) // 2
    return w * (w + 1) // 2 + (seq - w) * w


def _pairs_expr(causal: bool, window: bool) -> str:
    if window:
        return "seq*min(seq, sliding_window)" if not causal else "causal pairs within sliding_window"
    return "seq^2" if not causal else "seq*(seq + 1)/2"


def _score_nodes(
    spec: Spec, prefix: str, pairs: int, pairs_expr: str, renames: tuple[tuple[str, str], ...] = ()
) -> list[Node]:
    """Q·Kᵀ and softmax·V over ``pairs`` (query, key) pairs, the formulas in the model's own names (``renames``)."""
    heads = spec.num_attention_heads
    if spec.is_mla:
        qk = (spec.qk_nope_head_dim or 0) + (spec.qk_rope_head_dim or 0)
        vd = spec.v_head_dim or 0
        qk_expr = "num_attention_heads*(qk_nope_head_dim + qk_rope_head_dim)"
        v_expr = "num_attention_heads*v_head_dim"
    else:
        qk, vd = spec.head_size, spec.value_size
        qk_expr = P.rename("num_attention_heads*head_dim", renames)
        v_expr = P.rename(P.values_width(spec)[1], renames)
    return [
        Node(f"{prefix}/scores", 2 * heads * qk * pairs, f"2*{qk_expr}*{pairs_expr}", note="Q·Kᵀ"),
        Node(f"{prefix}/values", 2 * heads * vd * pairs, f"2*{v_expr}*{pairs_expr}", note="softmax(Q·Kᵀ)·V"),
    ]


def _entries_seen(seq: int, rate: int, causal: bool, limit: int = 0) -> int:
    """(query, compressed entry) pairs in one sequence when every ``rate`` tokens make one entry: each query sees the
    entries of the whole sequence (causal: of the tokens up to it), at most ``limit`` of them when one is given."""
    if not causal:
        entries = seq // rate
        return seq * (min(entries, limit) if limit else entries)

    def prefix(x: int) -> int:  # sum over t = 1..x of t // rate
        q, r = divmod(x, rate)
        return rate * q * (q - 1) // 2 + q * (r + 1)

    if not limit:
        return prefix(seq)
    full = limit * rate  # from this token on a query sees limit entries
    return prefix(min(seq, full - 1)) + limit * max(0, seq - full + 1)


def _compressed(spec: Spec, prefix: str, layers: int, seq: int, causal: bool, sparse: bool) -> Node:
    """DeepSeek-V4's compressed attention beside the sliding window: the compressor's projections of every token,
    every query against the compressed entries it sees (compressed sparse attention: the index_topk the indexer picks,
    after the indexer scored every entry with index_n_heads x index_head_dim), with the one key/value head."""
    name = "csa" if sparse else "hca"
    path = f"{prefix}/{name}_compressor"
    rate = spec.csa_rate if sparse else spec.hca_rate
    expr = f"{name}_layers"
    kids = [repeated(n, layers, expr) for n in _matmuls(P.compressor(path, spec, sparse), seq, "seq")]
    pairs = _entries_seen(seq, rate, causal, spec.index_topk if sparse else 0)
    pairs_expr = f"compressed entries seen ({name}_rate" + (", index_topk)" if sparse else ")")
    kids += [repeated(n, layers, expr) for n in _score_nodes(spec, path, pairs, pairs_expr)]
    if sparse:
        scored = _entries_seen(seq, rate, causal)
        h, d = spec.index_n_heads, spec.index_head_dim
        note = "the indexer's q·k of every entry a query sees, per indexer head"
        one = Node(
            f"{path}/indexer_scores", 2 * h * d * scored, "2*index_n_heads*index_head_dim*entries seen", note=note
        )
        kids.append(repeated(one, layers, expr))
    return group(path, kids)


def _recurrent(block: Node, layers: int, expr: str, seq: int, state: Node) -> Node:
    """Linear-attention, state-space or short-convolution layers: the block's projections and depthwise convolution
    (2 FLOPs per weight per token) and ``state``, its per-token state update or gating (linear in the tokens, no s²
    term)."""
    kids = [repeated(n, layers, expr) for n in _matmuls(block, seq, "seq")]
    conv = block.find(f"{block.path}/conv")
    if conv is not None:
        kids.append(repeated(Node(conv.path, 2 * conv.count * seq, f"2*seq*{P.paren(conv.formula)}"), layers, expr))
    return group(block.path, [*kids, repeated(state, layers, expr)])


def _linear_attention(spec: Spec, prefix: str, layers: int, expr: str, seq: int) -> Node:
    """Gated DeltaNet layers; the delta rule per token and value head reads the state with the key, writes the
    corrected outer product and reads it with the query: 3 products of key dim x value dim, 2 FLOPs each."""
    nv, dk, dv = spec.linear_num_value_heads, spec.linear_key_head_dim, spec.linear_value_head_dim
    rule = Node(
        f"{prefix}/linear_attention/state",
        6 * nv * dk * dv * seq,
        "6*seq*linear_num_value_heads*linear_key_head_dim*linear_value_head_dim",
        note="delta rule: linear in the tokens",
    )
    block = P.linear_attention(f"{prefix}/linear_attention", spec)
    return _recurrent(block, layers, expr, seq, rule)


def _ssm(spec: Spec, prefix: str, layers: int, expr: str, seq: int) -> Node:
    """Mamba layers; the selective scan per token and state element: decay, input, update and readout (6 FLOPs,
    as for the delta rule)."""
    scan = Node(
        f"{prefix}/ssm/scan",
        6 * spec.ssm_inner * spec.ssm_state_size * seq,
        "6*seq*ssm_inner*ssm_state_size",
        note="selective scan: linear in the tokens",
    )
    if spec.ssm_proj_tensors:  # Zamba's x_proj and dt_proj are tensors, no linear layers, but multiply all the same
        spec = dataclasses.replace(spec, ssm_proj_tensors=False)
    return _recurrent(P.ssm(f"{prefix}/ssm", spec), layers, expr, seq, scan)


def _short_conv(spec: Spec, prefix: str, layers: int, expr: str, seq: int) -> Node:
    """LFM2's short convolutions; besides projections and convolution, two gates multiply per channel and token."""
    gates = Node(f"{prefix}/short_conv/gates", 2 * spec.hidden_size * seq, "2*seq*hidden_size", note="B·x and C·conv")
    return _recurrent(P.short_conv(f"{prefix}/short_conv", spec), layers, expr, seq, gates)


def _lightning(spec: Spec, prefix: str, layers: int, expr: str, seq: int) -> Node:
    """Lightning attention layers, in the recurrent form: per token and head, k·vᵀ added to the head_dim x head_dim
    state and q read against it, 2 products of head_dim² at 2 FLOPs each (the blockwise kernel's intra-block
    products are not counted)."""
    state = Node(
        f"{prefix}/lightning/state",
        4 * spec.num_attention_heads * spec.head_size**2 * seq,
        "4*seq*num_attention_heads*head_dim^2",
        note="linear in the tokens",
    )
    return _recurrent(P.lightning(f"{prefix}/lightning", spec), layers, expr, seq, state)


def _mlstm(spec: Spec, prefix: str, layers: int, expr: str, seq: int) -> Node:
    """xLSTM's mLSTM layers, in the recurrent form: per token and head, k·vᵀ added to the matrix memory (key head dim
    x value head dim) and q read against it, 2 products at 2 FLOPs each (the normalizer's and the gates' few FLOPs per
    channel, and the chunkwise kernel's intra-chunk products, are not counted)."""
    state = Node(
        f"{prefix}/mlstm/state",
        4 * spec.mlstm_qk_dim * spec.mlstm_v_dim // spec.mlstm_heads * seq,
        "4*seq*mlstm_qk_dim*mlstm_v_dim/mlstm_heads",
        note="matrix memory: linear in the tokens",
    )
    return _recurrent(P.mlstm(f"{prefix}/mlstm", spec), layers, expr, seq, state)


def _time_mixing(spec: Spec, prefix: str, layers: int, expr: str, seq: int) -> Node:
    """RWKV's time mixing; its WKV recurrence per token and channel: decay, bonus, weighted sums of numerator and
    denominator and the division, about 8 FLOPs."""
    wkv = Node(f"{prefix}/time_mixing/wkv", 8 * spec.time_mixing_size * seq, "8*seq*time_mixing_size", note="WKV")
    return _recurrent(P.time_mixing(f"{prefix}/time_mixing", spec), layers, expr, seq, wkv)


def _relative_keys(spec: Spec, prefix: str, seq: int) -> list[Node]:
    """A Conformer's relative position keys (Gemma 4's and Gemma 3n's audio towers): the sinusoids of the relative
    positions (relative_positions as the row reads them, else the window//2 + 1 of the sliding window or of the
    sequence without one) projected once, and every query against them."""
    w = spec.sliding_window or seq
    positions, heads, hd = spec.relative_positions or w // 2 + 1, spec.num_attention_heads, spec.head_size
    if spec.relative_positions:
        pos = "relative_positions"
    else:
        pos = "(sliding_window//2 + 1)" if spec.sliding_window else "(seq//2 + 1)"
    return [
        Node(
            f"{prefix}/relative_key",
            2 * positions * spec.hidden_size * heads * hd,
            f"2*{pos}*hidden_size*num_attention_heads*head_dim",
            note="the relative positions' keys, projected once",
        ),
        Node(
            f"{prefix}/relative_scores",
            2 * heads * hd * positions * seq,
            f"2*seq*num_attention_heads*head_dim*{pos}",
            note="each query against the relative positions' keys",
        ),
    ]


def _stack(spec: Spec, prefix: str, layers: int, layers_expr: str, seq: int, causal: bool, cross: bool) -> Node:
    parts: list[Node] = []
    kinds = spec.stack(layers, layers_expr)
    if kinds.linear_attention:
        parts.append(_linear_attention(spec, prefix, kinds.linear_attention, kinds.expr("linear_attention"), seq))
    if kinds.ssm:
        parts.append(_ssm(spec, prefix, kinds.ssm, kinds.expr("ssm"), seq))
    if kinds.short_conv:
        parts.append(_short_conv(spec, prefix, kinds.short_conv, kinds.expr("short_conv"), seq))
    if kinds.time_mixing:
        parts.append(_time_mixing(spec, prefix, kinds.time_mixing, kinds.expr("time_mixing"), seq))
    if kinds.lightning:
        parts.append(_lightning(spec, prefix, kinds.lightning, kinds.expr("lightning"), seq))
    if kinds.mlstm:
        parts.append(_mlstm(spec, prefix, kinds.mlstm, kinds.expr("mlstm"), seq))
    if spec.shared_blocks:  # each use of a Zamba2 shared block: its own linear layer and one set of adapters
        own = [P.block_linear(f"{prefix}/shared_block_linear", spec)]
        own += P.block_adapters(f"{prefix}/shared_block_adapters", spec).children
        kids = [repeated(n, spec.shared_block_uses, "shared_block_uses") for n in _matmuls(group("", own), seq, "seq")]
        parts.append(group(f"{prefix}/shared_block_uses", kids))
    layers, layers_expr = kinds.attention, kinds.expr("attention")
    if layers:
        kids = []
        self_causal = causal  # the caller passes False for encoders: they are bidirectional
        for g in spec.attention_groups(kinds):  # Gemma 4: sliding and full layers of their own widths
            att = P.group_attention(prefix, g)
            if spec.relative_key_proj:  # its keys are projected once for the positions, not for each token
                att = att._replace(children=tuple(c for c in att.children if not c.path.endswith("/relative_key")))
                kids += [repeated(n, g.layers, g.expr) for n in _relative_keys(g.spec, f"{prefix}/{g.path}", seq)]
            kids += [
                repeated(n, g.layers, g.expr)
                for n in _expert_matmuls(att, seq, spec.num_experts_per_tok, spec.attention_experts)
            ]
            full, sliding, path = g.layers - g.sliding, g.sliding, f"{prefix}/{g.path}"
            if full:
                pairs = attention_pairs(seq, self_causal)
                expr = g.expr if not sliding else f"full_layers={full}"
                kids += [
                    repeated(n, full, expr)
                    for n in _score_nodes(g.spec, path, pairs, _pairs_expr(self_causal, False), g.renames)
                ]
            if sliding:
                pairs = attention_pairs(seq, self_causal, spec.sliding_window)
                expr = g.expr if not full else f"sliding_window_layers={sliding}"
                for n in _score_nodes(g.spec, path, pairs, _pairs_expr(self_causal, True), g.renames):
                    kids.append(
                        repeated(
                            Node(
                                n.path.replace("/scores", "/scores_window").replace("/values", "/values_window"),
                                n.count,
                                n.formula,
                                note=n.note + " (sliding window)",
                            ),
                            sliding,
                            expr,
                        )
                    )
        parts.append(group(f"{prefix}/attention", kids))
        if cross:  # each target token reads every source position (Whisper: its encoder's source_positions frames)
            source = "seq*source_positions" if spec.source_positions else "seq*source_len"
            catt = P.attention(f"{prefix}/cross_attention", spec)
            ckids = [repeated(n, layers, layers_expr) for n in _matmuls(catt, seq, "seq")]
            ckids += [
                repeated(n, layers, layers_expr)
                for n in _score_nodes(spec, f"{prefix}/cross_attention", seq * (spec.source_positions or seq), source)
            ]
            parts.append(group(f"{prefix}/cross_attention", ckids))
    for n, sparse in ((spec.csa_layers, True), (spec.hca_layers, False)):
        if n:
            parts.append(_compressed(spec, prefix, n, seq, causal, sparse))
    n_dense, n_moe, moe_expr = kinds.mlp, kinds.moe, kinds.expr("moe")
    if n_dense:
        kids = [repeated(n, k, e) for mlp, k, e in P.dense_mlps(prefix, spec, kinds) for n in _matmuls(mlp, seq, "seq")]
        parts.append(group(f"{prefix}/mlp", kids))
    if n_moe:
        moe = P.moe(f"{prefix}/moe", spec)
        kids = _expert_matmuls(moe, seq, spec.num_experts_per_tok, spec.num_experts)
        parts.append(
            group(
                f"{prefix}/moe",
                [repeated(n, n_moe, moe_expr) for n in kids],
                note=f"router + {spec.num_experts_per_tok} of {spec.num_experts} experts per token",
            )
        )
    if spec.conv_module_kernel and not cross:  # a Conformer's convolution module: two linear layers, a convolution
        block = P.conv_module(f"{prefix}/conv_module", spec)
        conv = block.find(f"{block.path}/conv")
        one = _matmuls(block, seq, "seq")
        if spec.conv_glu_channels:  # Phi-4-multimodal's: Conv1d layers, each a multiply-add per parameter per frame
            one = [Node(c.path, 2 * c.count * seq, f"2*seq*{P.paren(c.formula)}") for c in block.children]
        elif conv is not None:
            one.append(Node(conv.path, 2 * conv.count * seq, f"2*seq*{P.paren(conv.formula)}"))
        parts.append(group(block.path, [repeated(n, kinds.layers, kinds.layers_expr) for n in one]))
    if spec.per_layer_input:  # Gemma 4: each layer's gate and projection of its per-layer input
        block = P.per_layer_input(prefix, spec)
        parts.append(
            group(block.path, [repeated(n, kinds.layers, kinds.layers_expr) for n in _matmuls(block, seq, "seq")])
        )
    if spec.altup_num_inputs:  # Gemma 3n: the router runs twice a layer (to predict and to correct the streams)
        kids = []
        for n in _matmuls(P.altup(prefix, spec), seq, "seq"):
            if n.path.endswith("/router"):
                n = n._replace(count=2 * n.count, formula=f"2*{n.formula}", note="run twice: to predict and to correct")
            kids.append(repeated(n, kinds.layers, kinds.layers_expr))
        parts.append(group(f"{prefix}/altup", kids))
    if spec.laurel_rank:  # Gemma 3n: LAuReL's two low-rank projections
        block = P.laurel(prefix, spec)
        parts.append(
            group(block.path, [repeated(n, kinds.layers, kinds.layers_expr) for n in _matmuls(block, seq, "seq")])
        )
    if spec.recurrent_units:
        h, r = spec.hidden_size, spec.recurrent_units
        one = Node(
            f"{prefix}/recurrent",
            2 * seq * (h * r + h * r * r),
            "2*seq*hidden_size*(recurrent_units + recurrent_units^2)",
        )
        parts.append(repeated(one, kinds.layers, kinds.layers_expr))
    return group(prefix, parts)


def forward(spec: Spec, seq: int, causal: bool = False) -> Node:
    """Forward FLOPs of one sequence of ``seq`` tokens (batch 1).

    Encoder-decoders: the encoder reads ``seq`` source tokens (Whisper: its ``source_positions`` frames) and the
    decoder writes ``seq`` target tokens.
    """
    spec = validate(spec)
    h, v, e = spec.hidden_size, spec.vocab_size, spec.embed_width
    encoder_only = spec.architecture == "masked_lm" or spec.encoder_only
    top: list[Node] = []
    if spec.embedding_size is not None and spec.embedding_size != h:
        top.append(Node("embedding/projection", 2 * seq * e * h, "2*seq*embedding_size*hidden_size"))
    if spec.per_layer_input:  # Gemma 4: the embeddings projected to every layer's per-layer input
        w = spec.num_hidden_layers * spec.per_layer_input
        formula = "2*seq*hidden_size*num_hidden_layers*hidden_size_per_layer_input"
        top.append(Node("embedding/per_layer_projection", 2 * seq * h * w, formula))
    if spec.altup_num_inputs > 1:  # Gemma 3n: the embeddings projected into each other AltUp stream
        n, formula = spec.altup_num_inputs - 1, "2*seq*(altup_num_inputs - 1)*hidden_size^2"
        top.append(Node("embedding/altup_projections", 2 * seq * n * h * h, formula))
    if spec.image_size:  # every token but the class token is a patch
        pixels = spec.num_channels * spec.temporal_patch * spec.patch_size**2
        frames = "temporal_patch*" if spec.temporal_patch > 1 else ""
        patches, expr = (seq - 1, "(seq - 1)") if spec.class_token else (seq, "seq")
        top.append(
            Node(
                "embedding/patch",
                2 * max(patches, 0) * pixels * h,
                f"2*{expr}*num_channels*{frames}patch_size^2*hidden_size",
                note="the patch convolution: one matrix on each patch",
            )
        )
    if spec.subsampling_channels or spec.subsampling_out_channels:  # a Conformer's audio input
        features = spec.subsampling_freq * spec.subsampling_out_channels
        top.append(
            Node(
                "embedding/audio/projection",
                2 * seq * features * h,
                "2*seq*subsampling_freq*subsampling_out_channels*hidden_size",
                note="the projection of each frame's features (the convolutions before it are not counted)",
            )
        )
    if spec.is_encoder_decoder:
        source = spec.source_positions or seq  # Whisper's encoder always reads its source_positions frames
        top.append(_stack(spec, "encoder/layers", spec.num_hidden_layers, "num_hidden_layers", source, False, False))
        top.append(_stack(spec, "decoder/layers", spec.num_decoder_layers, "num_decoder_layers", seq, causal, True))
    else:
        top.append(
            _stack(spec, "layers", spec.num_hidden_layers, "num_hidden_layers", seq, causal and not encoder_only, False)
        )
    head: list[Node] = []
    if spec.architecture == "masked_lm" and spec.mlm_transform and v:
        head.append(
            Node(
                "head/transform", 2 * seq * h * e, f"2*seq*hidden_size*{'embedding_size' if e != h else 'hidden_size'}"
            )
        )
    if spec.lm_head:
        if spec.embedding_size is not None and spec.embedding_size != h and spec.architecture == "causal_lm":
            head.append(Node("head/projection", 2 * seq * h * e, "2*seq*hidden_size*embedding_size"))
        e_expr = "embedding_size" if spec.embedding_size is not None else "hidden_size"
        head.append(
            Node(
                "head/lm",
                2 * seq * e * v,
                f"2*seq*{e_expr}*vocab_size",
                note="counted even when tied to the embedding: the matmul still runs",
            )
        )
    if spec.altup_num_inputs > 1:  # Gemma 3n: each other AltUp stream projected back before the final norm
        n, formula = spec.altup_num_inputs - 1, "2*seq*(altup_num_inputs - 1)*hidden_size^2"
        head.append(Node("head/altup_unembed_projections", 2 * seq * n * h * h, formula))
    if spec.architecture == "image_classification" and spec.num_labels:
        head.append(
            Node("head/classifier", 2 * h * spec.num_labels, "2*hidden_size*num_labels", note="class token only")
        )
    if spec.merge_size:  # Qwen's towers: merge_size^2 patches become one token, merged by an MLP
        merged, w, o = seq // spec.merge_size**2, spec.merge_size**2 * h, spec.merger_out
        copies = 1 + spec.deepstack_mergers
        head.append(
            Node(
                "head/merger",
                2 * copies * merged * (w * w + w * o),
                f"2*{copies}*(seq/merge_size^2)*(merge_size^4*hidden_size^2 + merge_size^2*hidden_size*merger_out)",
                note="the merger" + (" and the DeepStack mergers" if spec.deepstack_mergers else ""),
            )
        )
    if spec.output_proj_dims:
        out = spec.output_proj_dims
        head.append(
            Node("head/output_proj", 2 * seq * h * out, "2*seq*hidden_size*output_proj_dims", note="every frame")
        )
    if spec.pooled_projection:
        pooled = 2 * h * spec.pooled_projection
        head.append(Node("head/pooled_projection", pooled, "2*hidden_size*pooled_projection", note="one token"))
    if spec.attention_pool:
        i = spec.intermediate_size or 0
        head.append(
            Node(
                "head/pool",
                2 * (2 * h * h + 2 * seq * h * h + 2 * seq * h + i * h * 2),
                "2*(2*hidden_size^2 + 2*seq*hidden_size^2 + 2*seq*hidden_size + 2*hidden_size*intermediate_size)",
                note="one probe query: its q and out projections and MLP once, k and v over every patch",
            )
        )
    if head:
        top.append(group("head", head))
    if spec.pooler:
        top.append(Node("pooler", 2 * h * h, "2*hidden_size^2", note="first token only"))
    root = group("", top)
    return Node("", root.count, root.formula, root.children)


# ------------------------------------------------------------------------------------------- totals
@dataclass(frozen=True)
class Compute:
    """Headline compute numbers for a spec and run settings."""

    seq: int
    forward_per_sequence: int
    forward_per_token: int  # forward_per_sequence / seq, rounded to a whole FLOP
    training_per_token: int  # 3 x forward_per_token
    tokens: int  # training tokens D (Chinchilla-optimal when the settings say 0)
    training_total: int  # training_per_token x tokens
    params: int
    active_params: int
    six_nd: int  # 6 x active params x tokens
    chinchilla_tokens: int  # 20 x params
    tree: Node


def chinchilla_tokens(params: int) -> int:
    """Compute-optimal training tokens: 20 per parameter (Hoffmann et al. 2022, Table 3: 70B -> 1.4T)."""
    return CHINCHILLA_TOKENS_PER_PARAM * params


def six_nd(params: int, tokens: int) -> int:
    """Kaplan et al. 2020's C ≈ 6·N·D training FLOPs."""
    return 6 * params * tokens


def palm_flops_per_token(params: int, layers: int, heads: int, head_dim: int, seq: int) -> int:
    """PaLM (Chowdhery et al. 2022, Appendix B) model FLOPs per training token: ``6N + 12·L·H·Q·T``."""
    return 6 * params + 12 * layers * heads * head_dim * seq


def compute(spec: Spec, settings: RunSettings) -> Compute:
    spec = validate(spec)
    settings = check(settings)
    seq = resolved_seq(settings, spec.max_position_embeddings)
    tree = forward(spec, seq, settings.causal)
    per_token = (2 * tree.count + seq) // (2 * seq)  # rounded half up, in integers
    s = summarize(spec)
    tokens = settings.tokens or chinchilla_tokens(s.total)
    return Compute(
        seq=seq,
        forward_per_sequence=tree.count,
        forward_per_token=per_token,
        training_per_token=3 * per_token,
        tokens=tokens,
        training_total=3 * per_token * tokens,
        params=s.total,
        active_params=s.active,
        six_nd=six_nd(s.active, tokens),
        chinchilla_tokens=chinchilla_tokens(s.total),
        tree=tree,
    )


def training_seconds(total_flops: float, gpus: int, peak_flops: float, mfu: float) -> float:
    """Wall-clock seconds to execute ``total_flops`` on ``gpus`` devices of ``peak_flops`` at ``mfu``."""
    if gpus < 1 or peak_flops <= 0 or not 0 < mfu <= 1:
        raise ValueError("training time needs at least one GPU, a positive peak and 0 < mfu <= 1")
    return total_flops / (gpus * peak_flops * mfu)


def mfu(tokens_per_second: float, flops_per_token: float, gpus: int, peak_flops: float) -> float:
    """Model FLOPs utilization: achieved model FLOP/s over the peak of all devices (PaLM, Appendix B)."""
    if gpus < 1 or peak_flops <= 0:
        raise ValueError("MFU needs at least one GPU and a positive peak")
    return tokens_per_second * flops_per_token / (gpus * peak_flops)


def time_for(c: Compute, gpu: Accelerator, gpus: int, mfu_value: float) -> float:
    return training_seconds(c.training_total, gpus, gpu.bf16_flops, mfu_value)


def human_seconds(seconds: float) -> str:
    """3.2 days, 5.1 hours, 42 minutes, ..."""
    if not math.isfinite(seconds):
        return str(seconds)
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.2f} {unit}"
    return f"{seconds:.2f} seconds"
