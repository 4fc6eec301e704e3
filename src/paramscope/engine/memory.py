"""Memory: bytes per GPU for inference (weights + KV cache) and training (weights, gradients, optimizer
states, activations), as a :class:`~paramscope.engine.tree.Node` tree whose counts are bytes.

Every number is an exact integer number of bytes under a stated convention (docs/memory-and-flops.md):

* weights: parameters times bytes per element; quantized formats (fp8, int8, int4, mxfp4) quantize the weight
  matrices of the transformer layers only and keep embeddings, the LM head, norms and biases in 16 bit,
  with their scales counted separately (:data:`QUANT`); mxfp4 quantizes a mixture's routed experts alone, their
  biases in fp32.
* KV cache: ``2 * layers * num_key_value_heads * head_dim * tokens * batch * bytes``, sliding-window
  layers capped at their window, MLA caching ``kv_lora_rank + qk_rope_head_dim`` per token and layer (plus
  ``index_head_dim`` with DeepSeek-V3.2's indexer),
  encoder-decoders caching decoder self-attention and cross-attention.
* training: mixed precision keeps fp32 master weights in the optimizer (AdamW: 2 + 2 + 12 = 16 bytes per
  parameter, as in the ZeRO paper), ZeRO stages 1-3 shard optimizer / gradients / weights over the GPUs,
  and activations follow Korthikanti et al. 2022 (Table 2), generalized per component.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from paramscope.engine.components import EMBEDDING_PATHS
from paramscope.engine.hardware import ACCELERATORS, GiB
from paramscope.engine.params import count, paren, qkv_width, rename, values_width
from paramscope.engine.run import (
    MAX_BATCH,
    MAX_SEQ,
    TRAIN_DTYPES,
    RunSettings,
    check,
    experts_beyond_the_run,
    resolved_kv_dtype,
    resolved_seq,
    serving_batch,
)
from paramscope.engine.spec import ATTENTION_GROUPS, Spec, Stack, validate
from paramscope.engine.tree import Node, group, repeated

#: Bits per element of each storage format.
BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4, "mxfp4": 4}


@dataclass(frozen=True)
class ExpertsLayout:
    """How a serving engine's kernel holds a format's routed experts after loading, on the GPUs it runs on: the
    packed values and their scales padded to its tiles, and the checkpoint's scales where it keeps them besides.
    The gate and up matrices are one fused matrix (gate_up), the down matrix another."""

    source: str
    capability: tuple[tuple[int, int], tuple[int, int]]  # the CUDA compute capabilities it runs on: [from, to)
    intermediate: int  # an expert's intermediate size on one GPU, rounded up to a multiple of this
    values: int  # the packed values' two sides (bytes along the input, outputs), each rounded up to a multiple
    scale_rows: int  # the swizzled scales' outputs rounded up to a multiple of this
    scale_blocks: int  # their blocks along the input rounded up to a multiple of this
    keeps_scales: bool  # the checkpoint's scales stay allocated beside the swizzled copy


#: vLLM 0.19's MXFP4 experts on Hopper (its default backend there, the Triton kernel of triton_kernels' matmul_ogs;
#: read in the vllm 0.19.0 wheel): fused_moe/oracle/mxfp4.py rounds the intermediate size per GPU up to 64;
#: utils/mxfp4_utils._swizzle_mxfp4 lays the values out in HopperMXValueLayout (both sides to 64) and the scales in
#: HopperMXScaleLayout (outputs to 256, blocks to 2); quantization/mxfp4.py keeps the loaded w13/w2_weight_scale
#: parameters registered beside the swizzled copy, and the biases become fp32
VLLM_MXFP4_HOPPER = ExpertsLayout(
    "vLLM's Triton MXFP4 kernel on Hopper (triton_kernels' Hopper layouts: values padded to 64, the swizzled "
    "scales' rows to 256, the checkpoint's scales kept beside them)",
    ((9, 0), (10, 0)),
    intermediate=64,
    values=64,
    scale_rows=256,
    scale_blocks=2,
    keeps_scales=True,
)


@dataclass(frozen=True)
class Quant:
    """How a quantized format stores a weight matrix of shape (in, out) (``nn.Linear(in, out)``)."""

    bits: int
    group: int  # input elements per scale group; 0 = one group per output row; -1 = one per tensor
    scale_bytes: int  # bytes of scale (+ zero point) per group
    label: str
    #: a mixture of experts quantizes its routed experts alone (the rest of its layers in 16 bit), their biases in fp32
    #: (gpt-oss's MXFP4 checkpoint, as transformers' and vLLM's kernels hold it)
    experts_only: bool = False
    #: a serving engine's fused experts keep their workspace after its profile (vLLM's fused_moe kernels; not its MXFP4
    #: kernel for gpt-oss, whose logs show none)
    moe_workspace: bool = True
    #: how a serving engine's kernel holds the routed experts, where it re-lays them (vLLM's MXFP4 on Hopper)
    serving_experts: ExpertsLayout | None = None


#: Conventions for the quantized formats (weights only).
QUANT: dict[str, Quant] = {
    "fp8": Quant(8, -1, 4, "fp8 (E4M3) weights, one fp32 scale per matrix"),
    "int8": Quant(8, 0, 2, "int8 weights, one fp16 scale per output channel (row)"),
    "int4": Quant(4, 128, 4, "int4 weights in groups of 128 input elements, fp16 scale + fp16 zero per group"),
    "mxfp4": Quant(
        4,
        32,
        1,
        "MXFP4 (OCP microscaling): 4-bit E2M1 values in blocks of 32 input elements, one 8-bit E8M0 scale per block",
        experts_only=True,
        moe_workspace=False,
        serving_experts=VLLM_MXFP4_HOPPER,
    ),
}

#: 8-bit Adam (Dettmers et al. 2022): both moments in 8 bit, one fp32 absmax per block of 2048 elements.
ADAM8BIT_BLOCK = 2048

PARTS = ("weights", "kv_cache", "gradients", "optimizer", "activations", "transient", "allocator", "runtime", "reserve")

#: What the runtime line is, in a table's note column; RUNTIME_NOTE says where the number comes from.
RUNTIME_SHORT = (
    "assumed (not from the model), included in the total: the CUDA context and workspaces (run_runtime_mib; 0 "
    "leaves it out)"
)
#: What the runtime line assumes, and where the number comes from.
RUNTIME_NOTE = (
    "an assumption, not a count: the CUDA context and the framework's workspaces (cuBLAS, the caching allocator) "
    "on each GPU; the context alone is 'about 700+ MB depending on the CUDA version and device' (PyTorch forums, "
    "discuss.pytorch.org/t/high-gpu-memory-overhead/81330). Set it to what nvidia-smi shows for an idle process "
    "of yours, or to 0 to leave it out"
)


def _nbytes(elements: int, bits: int) -> int:
    """Bytes holding ``elements`` values of ``bits`` bits each (rounded up to a whole byte)."""
    return -(-elements * bits // 8)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# ------------------------------------------------------------------------------------------- weights
def _in_layers(path: str) -> bool:
    return path.startswith("layers/") or "/layers/" in path


@dataclass(frozen=True)
class Layout:
    """How one model is split over GPUs: tensor (``tp``), pipeline (``pp``) and expert (``ep``) parallelism."""

    tp: int = 1
    pp: int = 1
    ep: int = 1

    @property
    def expert_split(self) -> int:
        """The GPUs one expert's matrices are split over: the tensor-parallel ones without expert parallelism (vLLM's
        and Megatron's default: each expert sharded like a dense MLP), none with it (an expert whole on its GPU)."""
        return self.tp if self.ep == 1 else 1

    def copies(self, path: str, repeat: int, spec: Spec) -> int:
        """Copies of a layer leaf one GPU holds: its stage's share of the layers (the largest stage: ceil), and
        for experts its share of each layer's experts."""
        if "/experts/" in path and spec.num_experts:
            layers = max(repeat // spec.num_experts, 1)
            return _ceil_div(layers, self.pp) * _ceil_div(spec.num_experts, self.ep)
        return _ceil_div(repeat, self.pp)


ONE_GPU = Layout()


#: The dtypes in which a checkpoint's loader keeps some of a class's weights in fp32 (transformers' dtype plan)
FP32_KEPT = ("fp16", "bf16")


def fp32_weights(spec: Spec, dtype: str) -> tuple[str, ...]:
    """The component paths (globs) whose weights a checkpoint loaded in ``dtype`` keeps in fp32: the class's
    ``_keep_in_fp32_modules_strict`` (and what its modeling file makes fp32) in fp16 and bf16, its
    ``_keep_in_fp32_modules`` in fp16 alone; none in fp32 or a quantized format."""
    if dtype not in FP32_KEPT:
        return ()
    return spec.fp32_weights + (spec.fp32_weights_fp16 if dtype == "fp16" else ())


#: Where weight_bytes says a format quantizing the experts alone keeps their biases
EXPERT_BIASES = "the experts' biases (the MXFP4 kernels' format)"


def weight_bytes(spec: Spec, dtype: str, layout: Layout = ONE_GPU, within: str = "") -> Node:
    """Bytes of the weights stored in ``dtype`` on one GPU, split into layer matrices, quantization scales,
    embeddings + LM head, and everything else (norms, biases, ...); ``within`` a component path: the part of them
    under it alone (a decode step's unread experts).

    With a layout: each layer matrix is split over ``tp`` GPUs (Megatron's column- and row-parallel halves), the
    vocabulary too (vocab-parallel embedding and head); the largest of ``pp`` stages holds ceil(layers/pp) layers
    and the larger of the embedding (first stage) and the head (last stage); experts split over ``ep``, each whole,
    or, without expert parallelism, each sharded over ``tp`` like a dense MLP (vLLM's and Megatron's default).
    Norms and biases stay whole on every tensor-parallel GPU (an overestimate by the column-parallel biases).
    """
    tree = count(spec)
    bits = BITS[dtype]
    quant = QUANT.get(dtype)
    keep_bits = 16 if quant else bits  # quantized formats keep the rest in 16 bit
    tp = layout.tp
    matrix_elems = 0
    unquantized_elems = 0  # layer matrices a format quantizing the experts alone keeps in 16 bit
    scale_bytes = 0
    matrices = 0
    emb_elems = 0
    head_elems = 0
    other_elems = 0
    kept = fp32_weights(spec, dtype)
    fp32_elems = 0
    fp32_paths: list[str] = []
    tower_elems = 0 if within else tree.get("towers")  # a multimodal model's other towers: whole on every GPU
    if dtype in FP32_KEPT and not within:
        fp32_elems = spec.towers_fp32_fp16 if dtype == "fp16" else spec.towers_fp32
        tower_elems -= fp32_elems
        fp32_paths += ["part of the towers (the whole class's lists)"] if fp32_elems else []
    leaves = list(tree.leaves())
    has_experts = any("/experts/" in leaf.path and leaf.matrix and leaf.count for leaf in leaves)
    for leaf in leaves:
        if not leaf.count or leaf.path == "towers" or not (leaf.path + "/").startswith(within + "/" if within else ""):
            continue
        m = leaf.matrix
        # the class keeps it in fp32 (a glob ending in ".weight": the layer's matrix, not its bias)
        glob = next((g for g in kept if fnmatchcase(leaf.path, g.removesuffix(".weight"))), None)
        if glob is not None:
            fp32_paths.append(glob if glob.endswith(".weight") else leaf.path)
        if m and _in_layers(leaf.path):
            copies = layout.copies(leaf.path, leaf.repeat, spec)
            n_in, n_out, _ = m
            expert = "/experts/" in leaf.path
            split = layout.expert_split if expert else tp
            weights = _ceil_div(n_in * n_out, split) * copies
            biases = (leaf.count // leaf.repeat - n_in * n_out) * copies
            if glob is not None:
                fp32_elems += weights if glob.endswith(".weight") else weights + biases
                other_elems += biases if glob.endswith(".weight") else 0
                continue
            if quant and quant.experts_only and has_experts:
                if not expert:  # kept in 16 bit beside the quantized experts
                    unquantized_elems += weights
                    other_elems += biases
                    continue
                fp32_elems += biases
                if biases and EXPERT_BIASES not in fp32_paths:
                    fp32_paths.append(EXPERT_BIASES)
            else:
                other_elems += biases
            matrix_elems += weights
            matrices += copies
            if quant:
                if quant.group < 0:
                    groups = 1
                elif quant.group == 0:
                    groups = n_out
                else:
                    groups = n_out * _ceil_div(n_in, quant.group)
                scale_bytes += _ceil_div(groups, split) * quant.scale_bytes * copies
        elif leaf.path in EMBEDDING_PATHS:  # vocabulary and position tables, an untied head: split by vocabulary
            if glob is not None:
                fp32_elems += _ceil_div(leaf.count, tp)
            elif leaf.path == "head/lm":
                head_elems += _ceil_div(leaf.count, tp)
            else:
                emb_elems += _ceil_div(leaf.count, tp)
        else:
            n = (
                leaf.count // leaf.repeat * layout.copies(leaf.path, leaf.repeat, spec)
                if _in_layers(leaf.path)
                else leaf.count
            )
            if glob is not None:
                fp32_elems += n
            else:
                other_elems += n
    emb_elems = max(emb_elems, head_elems) if layout.pp > 1 else emb_elems + head_elems
    b = bits / 8
    kb = keep_bits / 8
    children = [
        Node(
            "weights/matrices",
            _nbytes(matrix_elems, bits),
            f"{matrix_elems:,} layer matrix weights × {b:g} B",
            note="the weight matrices of the transformer layers",
        ),
    ]
    if quant:
        children.append(Node("weights/scales", scale_bytes, f"{matrices:,} matrices: {quant.label}", note=quant.label))
    if unquantized_elems:
        children.append(
            Node(
                "weights/unquantized",
                _nbytes(unquantized_elems, keep_bits),
                f"{unquantized_elems:,} attention, router and other layer matrix weights × {kb:g} B",
                note=f"the layer matrices outside the routed experts, kept in 16 bit ({dtype} quantizes a mixture's "
                "experts alone, as gpt-oss's checkpoint and transformers' and vLLM's MXFP4 kernels hold it)",
            )
        )
    if fp32_elems:
        children.append(
            Node(
                "weights/fp32",
                4 * fp32_elems,
                f"{fp32_elems:,} weights kept in fp32 × 4 B",
                note=f"loaded in {dtype}, these stay in fp32 (the class's _keep_in_fp32_modules lists, parameters "
                f"its modeling file makes fp32, or a format's kernels): {', '.join(fp32_paths)}",
            )
        )
    children += [
        Node(
            "weights/embeddings",
            _nbytes(emb_elems, keep_bits),
            f"{emb_elems:,} embedding + LM head weights × {kb:g} B",
            note="kept in 16 bit" if quant else "",
        ),
        Node(
            "weights/other",
            _nbytes(other_elems, keep_bits),
            f"{other_elems:,} norm, bias and other weights × {kb:g} B",
            note="kept in 16 bit" if quant else "",
        ),
    ]
    if tower_elems:
        children.append(
            Node(
                "weights/towers",
                _nbytes(tower_elems, keep_bits),
                f"{tower_elems:,} vision / audio tower and projector weights × {kb:g} B",
                note="the whole model's other towers and projectors, whole on every GPU"
                + (", kept in 16 bit" if quant else ""),
            )
        )
    return group("weights", children)


def _round_up(n: int, multiple: int) -> int:
    return _ceil_div(n, multiple) * multiple


def kernel_layout(spec: Spec, dtype: str, layout: Layout, gpu: str) -> Node | None:
    """What a serving engine's kernel holds for the routed experts beyond the checkpoint's bytes on one GPU of
    ``gpu``, where its format names a layout for that GPU (:attr:`Quant.serving_experts`); None elsewhere.

    Per expert a GPU holds, with I_p its intermediate size on that GPU rounded up: the fused gate_up (in hidden_size,
    out 2·I_p) and the down matrix (in I_p, out hidden_size), each as packed values (⌈in/2⌉ bytes × out, both sides
    padded), swizzled scales (out × ⌈in/32⌉, padded), the checkpoint's scales where kept, and fp32 biases."""
    quant = QUANT.get(dtype)
    cc = ACCELERATORS[gpu].capability
    kernel = quant.serving_experts if quant else None
    if kernel is None or cc is None or not kernel.capability[0] <= cc < kernel.capability[1] or not spec.is_moe:
        return None
    routed = "layers/moe/experts"  # a mixture's routed experts (not JetMoE's attention experts)
    leaves = [
        leaf for leaf in count(spec).leaves() if leaf.path.startswith(f"{routed}/") and leaf.matrix and leaf.count
    ]
    if not leaves:
        return None
    experts = max(layout.copies(leaf.path, leaf.repeat, spec) for leaf in leaves)
    layers = _ceil_div(spec.num_moe_layers, layout.pp)
    h = spec.hidden_size
    rows = [leaf for leaf in leaves if leaf.path.rsplit("/", 1)[1] in ("down", "o")]  # in: the intermediate size
    columns = [leaf for leaf in leaves if leaf not in rows]
    inner = max(leaf.matrix.n_in for leaf in rows) if rows else max(leaf.matrix.n_out for leaf in columns)
    i_p = _round_up(_ceil_div(inner, layout.expert_split), kernel.intermediate)
    biased = any(leaf.count // leaf.repeat > leaf.matrix.n_in * leaf.matrix.n_out for leaf in leaves)
    block = quant.group

    def held(n_in: int, n_out: int) -> int:
        values = _round_up(_ceil_div(n_in, 2), kernel.values) * _round_up(n_out, kernel.values)
        blocks = _ceil_div(n_in, block)
        scales = _round_up(n_out, kernel.scale_rows) * _round_up(blocks, kernel.scale_blocks)
        return values + scales + (n_out * blocks if kernel.keeps_scales else 0) + (4 * n_out if biased else 0)

    per_expert = (held(h, len(columns) * i_p) if columns else 0) + (held(i_p, h) if rows else 0)
    stored = weight_bytes(spec, dtype, layout, within=routed).count
    extra = experts * per_expert - stored
    return Node(
        "weights/kernel_layout",
        extra,
        f"{layers:,} layers × {experts // max(layers, 1):,} experts × (gate_up and down as the kernel holds them; "
        "I_p = moe_intermediate_size"
        + (f"/{layout.expert_split}" if layout.expert_split > 1 else "")
        + f" rounded up to {kernel.intermediate}: {i_p:,}) − their checkpoint bytes",
        note=kernel.source,
    )


# ------------------------------------------------------------------------------------------ KV cache
def _encoder_only(spec: Spec) -> bool:
    return not spec.is_encoder_decoder and (spec.architecture == "masked_lm" or spec.encoder_only)


def params_on_gpu(spec: Spec, layout: Layout = ONE_GPU) -> int:
    """The parameters one GPU holds under ``layout`` (fp32 weight bytes / 4: nothing quantized)."""
    return count(spec).count if layout == ONE_GPU else weight_bytes(spec, "fp32", layout).count // 4


def kv_cache(
    spec: Spec, tokens: int, batch: int, kv_dtype: str, layout: Layout = ONE_GPU, prompt: bool = False
) -> Node:
    """Bytes of the key/value cache for ``batch`` sequences of ``tokens`` tokens, on one GPU of ``layout``:
    the largest pipeline stage's layers, and ceil(kv heads / tp) heads (MLA's latent is not split by heads).

    ``prompt``: the cache right after transformers' prefill, whose sliding-window layers still hold the whole prompt
    (the attention's view keeps it until the first decode step crops it to the window)."""
    spec = validate(spec)
    if layout != ONE_GPU:
        whole = kv_cache(spec, tokens, batch, kv_dtype, prompt=prompt)
        if not whole.count:
            return whole
        layers = spec.num_decoder_layers if spec.is_encoder_decoder else spec.num_hidden_layers
        heads_of: dict[str, int] = {}  # each group's cache split by its own KV heads (Gemma 4's full, MiMo's sliding)
        for g in spec.attention_groups(_decoder_stack(spec)):
            if g.spec.kv_projections and g.layers > g.sliding:
                heads_of["kv_cache/self"] = g.spec.kv_heads
            if g.spec.kv_projections and g.sliding:
                heads_of["kv_cache/sliding"] = g.spec.kv_heads
        if spec.mlstm_layers:  # an mLSTM's state splits by its own heads
            heads_of["kv_cache/mlstm_state"] = spec.mlstm_heads
        one = spec.is_mla or spec.shared_kv_head  # one latent, or one key/value head: not split by heads
        kids = []
        for k in whole.children:
            heads = 1 if one else heads_of.get(k.path, spec.kv_heads)
            share, of = _ceil_div(layers, layout.pp) * _ceil_div(heads, layout.tp), layers * heads
            kids.append(k._replace(count=-(-k.count * share // of), children=()))
        how = f"per GPU: ceil(layers/{layout.pp}) layers"
        how += "" if spec.is_mla else f", ceil(kv heads/{layout.tp}) heads"
        return Node("kv_cache", sum(k.count for k in kids), f"{whole.formula}, {how}", kids, note=how)
    bits = BITS[kv_dtype]
    b = f"{bits / 8:g}"
    stateful = spec.ssm_layers or spec.time_mixing_layers or spec.mlstm_layers
    if not spec.has_attention and not stateful or _encoder_only(spec):
        why = "no attention" if not spec.has_attention else "encoder-only: nothing is generated, nothing cached"
        return Node("kv_cache", 0, "0", note=why)
    if spec.shared_kv_head:
        return group("kv_cache", _compressed_cache(spec, tokens, batch, bits, prompt))
    kinds = _decoder_stack(spec)
    layers, layers_expr = kinds.attention, kinds.expr("attention")  # the other mixers keep a state instead
    states = _recurrent_states(kinds, spec, batch, bits)
    children: list[Node] = []
    per_token, per_expr = 0, ""
    for g in spec.attention_groups(kinds):
        if not g.spec.kv_projections:  # Gemma 4: keys and values of an earlier layer
            note = f"{g.layers:,} layers reuse an earlier layer's keys and values: nothing cached"
            children.append(Node(f"kv_cache/{g.path}", 0, "0", note=note))
            continue
        per_token, per_expr, note = _per_token(g.spec)
        per_expr = rename(per_expr, g.renames)
        full, sliding = g.layers - g.sliding, g.sliding
        if full:
            n = g.expr if full == g.layers else f"full_layers={full}"
            shape = f"{per_token}×{tokens}×{batch}"
            children.append(
                _kv_node("kv_cache/self", (full, n), per_token * tokens, f"{per_expr}*tokens", shape, batch, bits, note)
            )
        if sliding:
            window = tokens if prompt or not spec.cache_window else min(tokens, spec.sliding_window or 0)
            n = g.expr if sliding == g.layers else f"sliding_window_layers={sliding}"
            note = f"sliding window of {spec.sliding_window:,} tokens: the cache never holds more"
            expr = f"{per_expr}*min(tokens, sliding_window)"
            if not spec.cache_window:
                note = f"sliding window of {spec.sliding_window:,} tokens, but the class's cache keeps every token"
                expr = f"{per_expr}*tokens"
            elif prompt:
                note = (
                    f"sliding window of {spec.sliding_window:,} tokens, holding the whole prompt until the first step"
                )
                expr = f"{per_expr}*tokens"
            shape = f"{per_token}×{window}×{batch}"
            children.append(
                _kv_node("kv_cache/sliding", (sliding, n), per_token * window, expr, shape, batch, bits, note)
            )
    children += states
    if spec.is_encoder_decoder:
        source = spec.source_positions or tokens  # Whisper's encoder always emits source_positions frames
        children.append(
            Node(
                "kv_cache/cross",
                _nbytes(layers * per_token * source * batch, bits),
                f"{per_expr}*{'source_positions' if spec.source_positions else 'source_tokens'}*batch*{b} B",
                repeat=layers,
                repeat_name=layers_expr,
                shape=f"{per_token}×{source}×{batch}",
                note="cross-attention keys/values of the encoder output "
                + ("(its source_positions frames)" if spec.source_positions else "(source length = tokens)"),
            )
        )
    return group("kv_cache", children)


def _compressed_cache(spec: Spec, tokens: int, batch: int, bits: int, prompt: bool = False) -> list[Node]:
    """DeepSeek-V4's cache per sequence and layer, as its cache classes keep it: the sliding window of the one
    key/value head (keys and values apart in plain sliding layers, one tensor where the keys are the values); on the
    compressed layers one entry per rate tokens (compressed sparse attention: head_dim plus the indexer's key), the
    tokens since the last entry (key/value and gate, at the projections' width) and, for compressed sparse attention,
    the previous window of rate entries that the next one overlaps. Right after the prefill (``prompt``) the window
    and the tokens since the last entry are views of the whole prompt's keys and projections, which they keep alive
    until the first step (measured on an H200: the class's defaults cut to 4 layers, at 8,192 tokens)."""
    hd, n = spec.head_size, spec.num_hidden_layers
    w = tokens if prompt else min(tokens, spec.sliding_window or tokens)
    plain, compressed = n - spec.csa_layers - spec.hca_layers, spec.csa_layers + spec.hca_layers
    window = "head_dim*tokens" if prompt else "head_dim*min(tokens, sliding_window)"

    def pending(rate: int, name: str) -> tuple[int, str]:
        """The tokens since the last entry (views of the whole prompt right after the prefill), and their formula."""
        return (tokens, "tokens") if prompt else (tokens % rate, f"(tokens mod {name})")

    out = []
    if plain:
        note = f"sliding window of {spec.sliding_window:,} tokens, keys and values apart"
        layers = (plain, f"sliding_attention_layers={plain}")
        out.append(
            _kv_node("kv_cache/sliding", layers, 2 * hd * w, f"2*{window}", f"2×{w}×{hd}×{batch}", batch, bits, note)
        )
    if compressed:
        note = "the compressed layers' window: one tensor, the keys being the values"
        layers = (compressed, "(csa_layers + hca_layers)")
        out.append(_kv_node("kv_cache/window", layers, hd * w, window, f"{w}×{hd}×{batch}", batch, bits, note))
    if spec.hca_layers:
        m = spec.hca_rate
        since, since_expr = pending(m, "hca_rate")
        per = (tokens // m) * hd + 2 * since * hd
        expr = f"(tokens//hca_rate + 2*{since_expr})*head_dim"
        note = "one entry per hca_rate tokens, and the key/value and gate of the tokens since the last"
        out.append(
            _kv_node("kv_cache/hca", (spec.hca_layers, "hca_layers"), per, expr, f"{per}×{batch}", batch, bits, note)
        )
    if spec.csa_layers:
        m, i = spec.csa_rate, spec.index_head_dim
        since, since_expr = pending(m, "csa_rate")
        per = (tokens // m) * (hd + i) + since * 2 * (2 * hd + 2 * i) + (2 * m * (hd + i) if tokens >= m else 0)
        overlap = " + 2*csa_rate" if tokens >= m else ""  # the window the next entry overlaps, once there is one
        expr = f"(tokens//csa_rate + 4*{since_expr}{overlap})*(head_dim + index_head_dim)"
        note = "one entry per csa_rate tokens with the indexer's key, the tokens since the last, the overlapped window"
        out.append(
            _kv_node("kv_cache/csa", (spec.csa_layers, "csa_layers"), per, expr, f"{per}×{batch}", batch, bits, note)
        )
    return out


def _kv_node(
    path: str, layers: tuple[int, str], elements: int, expr: str, shape: str, batch: int, bits: int, note: str
) -> Node:
    """The cache of ``layers`` (how many, and that count by name) keeping ``elements`` each per sequence."""
    n, name = layers
    return Node(
        path,
        _nbytes(n * elements * batch, bits),
        f"{expr}*batch*{bits / 8:g} B",
        repeat=n,
        repeat_name=name,
        shape=shape,
        note=note,
    )


def _per_token(spec: Spec) -> tuple[int, str, str]:
    """Elements one attention layer caches per token: its keys and values (or MLA's latent), by name, and a note."""
    if not spec.is_mla:
        kv, hd, vd = spec.kv_heads, spec.head_size, spec.value_size
        if vd != hd:  # MiMo-V2-Flash: values narrower than keys
            return kv * (hd + vd), "num_key_value_heads*(head_dim + v_head_dim)", ""
        return 2 * kv * hd, "2*num_key_value_heads*head_dim", ""
    per_token = (spec.kv_lora_rank or 0) + (spec.qk_rope_head_dim or 0)
    per_token += spec.index_head_dim if spec.index_n_heads else 0
    per_expr = "(kv_lora_rank + qk_rope_head_dim" + (" + index_head_dim)" if spec.index_n_heads else ")")
    note = "multi-head latent attention caches the compressed latent and the rotary key"
    if spec.index_n_heads:
        note += ", and the sparse-attention indexer its own key"
    return per_token, per_expr, note


def _decoder_stack(spec: Spec) -> Stack:
    """The layers that generate: the decoder of an encoder-decoder, else the whole stack."""
    if spec.is_encoder_decoder:
        return spec.stack(spec.num_decoder_layers, "num_decoder_layers")
    return spec.stack(spec.num_hidden_layers, "num_hidden_layers")


@dataclass(frozen=True)
class _State:
    """A constant state per sequence and layer, of the layers of one kind in a stack."""

    kind: str  # the Stack count it is kept for
    path: str
    nbytes: int
    formula: str
    shape: str
    what: str


def _recurrent_states(kinds: Stack, spec: Spec, batch: int, bits: int) -> list[Node]:
    """What linear-attention (Gated DeltaNet), state-space (Mamba), short-convolution (LFM2) and time-mixing (RWKV)
    layers keep per sequence instead of a cache that grows: the convolution's last ``kernel`` inputs (or the last
    token) in the cache's precision, and the recurrent state in fp32 (as transformers keeps it, whatever the
    model's precision; lightning attention's and the mLSTM's in the cache's precision, as their classes keep them).
    Constants in the tokens."""
    out: list[Node] = []
    for state in _states(kinds, spec, bits):
        n = getattr(kinds, state.kind)
        out.append(
            Node(
                f"kv_cache/{state.path}",
                n * batch * state.nbytes,
                f"{paren(state.formula)}*batch",
                repeat=n,
                repeat_name=kinds.expr(state.kind),
                shape=f"{state.shape}×{batch}",
                note=f"{state.what}, whatever the number of tokens",
            )
        )
    return out


def _states(kinds: Stack, spec: Spec, bits: int) -> list[_State]:
    """The state of each kind of layer in ``kinds`` that keeps one, per sequence and layer."""
    b = f"{bits / 8:g} B"
    out = []
    if kinds.linear_attention:
        nv, dk, dv = spec.linear_num_value_heads, spec.linear_key_head_dim, spec.linear_value_head_dim
        conv = spec.linear_conv_channels * spec.linear_conv_kernel_dim
        out.append(
            _State(
                kind="linear_attention",
                path="linear_state",
                nbytes=_nbytes(conv, bits) + 4 * nv * dk * dv,
                formula="(2*linear_num_key_heads*linear_key_head_dim + linear_num_value_heads*linear_value_head_dim)"
                f"*linear_conv_kernel_dim*{b} + linear_num_value_heads*linear_key_head_dim*linear_value_head_dim*4 B",
                shape=f"({conv} + {nv * dk * dv})",
                what="linear attention: a constant state per sequence (convolution window, and one fp32 matrix per "
                "value head)",
            )
        )
    if kinds.time_mixing:
        h = spec.hidden_size
        out.append(
            _State(
                kind="time_mixing",
                path="time_mixing_state",
                nbytes=2 * _nbytes(h, bits) + 3 * 4 * h,
                formula=f"2*hidden_size*{b} + 3*hidden_size*4 B",
                shape=f"5×{h}",
                what="RWKV: the last token's input to time and channel mixing, and the WKV numerator, denominator and "
                "running maximum in fp32 (as RwkvModel keeps them)",
            )
        )
    if kinds.lightning:
        heads, d = spec.num_attention_heads, spec.head_size
        out.append(
            _State(
                kind="lightning",
                path="lightning_state",
                nbytes=_nbytes(heads * d * d, bits),
                formula=f"num_attention_heads*head_dim^2*{b}",
                shape=f"{heads}×{d}×{d}",
                what="lightning attention: one head_dim x head_dim matrix per head (the sum of k·vᵀ), kept in the "
                "model's precision",
            )
        )
    if kinds.mlstm:
        n, qk, v = spec.mlstm_heads, spec.mlstm_qk_dim, spec.mlstm_v_dim
        dk, dv = qk // n, v // n
        out.append(
            _State(
                kind="mlstm",
                path="mlstm_state",
                nbytes=_nbytes(n * (dk * dv + dk + 1), bits),
                formula=f"(mlstm_qk_dim*mlstm_v_dim/mlstm_heads + mlstm_qk_dim + mlstm_heads)*{b}",
                shape=f"{n}×({dk}×{dv} + {dk} + 1)",
                what="mLSTM: per head a key head dim x value head dim matrix memory, a normalizer of key head dim and "
                "a stabilizer, kept in the model's precision",
            )
        )
    if kinds.short_conv:
        h, k = spec.hidden_size, spec.short_conv_kernel
        out.append(
            _State(
                kind="short_conv",
                path="conv_state",
                nbytes=_nbytes(h * k, bits),
                formula=f"hidden_size*short_conv_kernel*{b}",
                shape=f"{h * k}",
                what="short convolutions: the last short_conv_kernel inputs per channel",
            )
        )
    if kinds.ssm:
        k, state, channels = spec.ssm_conv_kernel, spec.ssm_inner * spec.ssm_state_size, spec.ssm_conv_channels
        expr = "(ssm_inner + 2*ssm_groups*ssm_state_size)" if spec.ssm_version == 2 else "ssm_inner"
        out.append(
            _State(
                kind="ssm",
                path="ssm_state",
                nbytes=_nbytes(channels * k, bits) + 4 * state,
                formula=f"{expr}*ssm_conv_kernel*{b} + ssm_inner*ssm_state_size*4 B",
                shape=f"({channels * k} + {state})",
                what="state-space layers: a constant state per sequence (convolution window, and the fp32 state of "
                "ssm_state_size per inner channel)",
            )
        )
    return out


# --------------------------------------------------------------------------------- training: states
def _opt_bytes_per_param(dtype: str, optimizer: str) -> tuple[int, str]:
    mixed = dtype != "fp32"
    master = 4 if mixed else 0
    if optimizer == "adamw":
        return master + 8, ("fp32 master + " if mixed else "") + "fp32 m + fp32 v"
    if optimizer == "sgd":
        return master + 4, ("fp32 master + " if mixed else "") + "fp32 momentum"
    return master + 2, ("fp32 master + " if mixed else "") + "8-bit m + 8-bit v"


def model_states(params: int, dtype: str = "bf16", optimizer: str = "adamw", zero: int = 0, gpus: int = 1) -> Node:
    """Weights, gradients and optimizer states per GPU for ``params`` parameters (ZeRO stage ``zero``).

    Mixed precision (bf16/fp16): 2-byte weights and gradients, the optimizer holds fp32 master weights
    (AdamW: 2 + 2 + 12 = 16 bytes per parameter, K = 12 in the ZeRO paper). fp32: 4 + 4 + 8.
    ZeRO 1 shards the optimizer states, 2 also the gradients, 3 also the weights: a shard holds
    ceil(params / gpus) elements.
    """
    wb = BITS[dtype] // 8
    shard = _ceil_div(params, gpus)
    w_n = shard if zero >= 3 else params
    g_n = shard if zero >= 2 else params
    o_n = shard if zero >= 1 else params
    w_expr = "ceil(params/gpus)" if zero >= 3 else "params"
    g_expr = "ceil(params/gpus)" if zero >= 2 else "params"
    o_expr = "ceil(params/gpus)" if zero >= 1 else "params"
    k, what = _opt_bytes_per_param(dtype, optimizer)
    opt_children = [Node("optimizer/states", o_n * k, f"{o_expr}*{k} B", note=what)]
    if optimizer == "adam8bit":
        blocks = _ceil_div(o_n, ADAM8BIT_BLOCK)
        opt_children.append(
            Node(
                "optimizer/scales",
                blocks * 2 * 4,
                f"ceil({o_expr}/{ADAM8BIT_BLOCK})*2*4 B",
                note=f"one fp32 absmax per block of {ADAM8BIT_BLOCK} for each of the two 8-bit moments",
            )
        )
    return group(
        "",
        [
            Node("weights", w_n * wb, f"{w_expr}*{wb} B", note=f"{dtype} weights"),
            Node("gradients", g_n * wb, f"{g_expr}*{wb} B", note=f"{dtype} gradients"),
            group("optimizer", opt_children),
        ],
    )


# ----------------------------------------------------------------------------- training: activations
@dataclass(frozen=True)
class _Act:
    """Per-token activation terms of one component: (name, bytes, formula)."""

    terms: tuple[tuple[str, int, str], ...]

    def node(self, path: str, tokens: int, tp: int = 1, sp: bool = False) -> Node:
        """The terms for ``tokens`` tokens; under tensor parallelism each is split over ``tp`` GPUs except the
        layer inputs and dropout masks, which Megatron keeps whole unless sequence parallelism splits them too
        (Korthikanti et al. 2022, Table 2)."""
        kids = []
        for n, b, f in self.terms:
            if not b:
                continue
            whole = n in _REPLICATED and not sp
            split = 1 if whole else tp
            kids.append(
                Node(f"{path}/{n}", -(-b * tokens // split), f"tokens*({f})" + (f"/{split}" if split > 1 else ""))
            )
        return group(path, kids)


#: Activation terms tensor parallelism leaves whole on every GPU (sequence parallelism splits them).
_REPLICATED = frozenset({"input", "dropout_mask", "router"})


def _keys_seen(spec: Spec, seq: int) -> int:
    """The keys each query's scores are computed for: every key of the sequence, or, where the window is computed block
    by block (``blocked_attention``), the window's only."""
    return min(seq, spec.sliding_window) if spec.blocked_attention and spec.sliding_window else seq


def _keys_expr(spec: Spec) -> str:
    return "min(seq, sliding_window)" if spec.blocked_attention and spec.sliding_window else "seq"


CONV_MODULE = (
    "an estimate: the first linear layer's output, the GLU's, the convolution's and the activation's (its norms are "
    "counted with the layer's)"
)


def _attention_terms(
    spec: Spec, e: int, kv_len: int, store_scores: bool, dropout: bool, cross: bool, skip_input: bool
) -> list[tuple[str, int, str]]:
    """Korthikanti's 11sbh + 5as^2b for one attention block, per query token, generalized:
    input 2h, Q/K/V at their own widths (GQA, MLA), softmax output 2as (+ dropout mask as and dropout
    output 2as with dropout), the context fed to the output projection, the output dropout mask h."""
    h, heads = spec.hidden_size, spec.num_attention_heads
    out: list[tuple[str, int, str]] = []
    if not skip_input:
        out.append(("input", e * h, f"{e}*hidden_size"))
    if spec.is_mla:
        qk = (spec.qk_nope_head_dim or 0) + (spec.qk_rope_head_dim or 0)
        vd = spec.v_head_dim or 0
        qkv = heads * (2 * qk + vd)
        out.append(("qkv", e * qkv, f"{e}*num_attention_heads*(2*(qk_nope_head_dim + qk_rope_head_dim) + v_head_dim)"))
        latent = (spec.kv_lora_rank or 0) + (spec.q_lora_rank or 0)
        out.append(("latent", e * latent, f"{e}*(kv_lora_rank + q_lora_rank)"))
        ctx, ctx_expr = heads * vd, "num_attention_heads*v_head_dim"
    else:
        # DeepSeek-V4's one key/value head is one projection
        qkv, expr = qkv_width(spec, projections=1 if spec.shared_kv_head else None)
        out.append(("qkv", e * qkv, f"{e}*{paren(expr)}"))
        ctx, ctx_expr = values_width(spec)
    if store_scores:  # a class that writes the scores out keeps its fp32 softmax output and its 16-bit cast
        kept, kept_expr = (4 + e, f"(4 + {e})") if spec.scores_bytes else (e, f"{e}")
        per = kept + (1 + e if dropout else 0)
        expr = f"({kept_expr} + 1 + {e})" if dropout else kept_expr
        keys = "source_len" if cross else _keys_expr(spec)
        out.append(("scores", per * heads * kv_len, f"{expr}*num_attention_heads*{keys}"))
    out.append(("context", e * ctx, f"{e}*{ctx_expr}"))
    if dropout:
        out.append(("dropout_mask", h, "hidden_size"))
    return out


def _eager_attention_terms(spec: Spec, e: int, liger: bool = False, frozen: bool = False) -> list[tuple[str, int, str]]:
    """What transformers' eager attention keeps beyond Korthikanti's q, k, v and context (rotary embeddings keep only
    cos and sin, SDPA's output is already laid out for the output projection): SDPA's log-sum-exp (fp32, one per head
    and token), a q/k norm's fp32 copy of q and k and its 16-bit result (as any eager norm; per head as Qwen3's, or
    over all heads as OLMo 2's and OLMoE's), the fp32 copy alone where the norm's weight is frozen (LoRA: no weight
    gradient needs the normalized tensor; OLMoE's LoRA read 0.968 without q/k norms, Qwen3-30B's 1.017 with the 16-bit
    result), and after one fused projection of q, k and v the rotated q and k, which are copies, while v, a view,
    keeps the projection's output whole (measured on an H100: ModernBERT)."""
    out: list[tuple[str, int, str]] = []
    qk, qk_expr = qkv_width(spec, projections=1 if spec.kv_projections else 0)  # q and k together
    if "qkv" in spec.fused and spec.position_embedding == "rotary" and not spec.is_mla and not liger:
        out.append(("rotated_qk", e * qk, f"{e}*{paren(qk_expr)}"))
    if spec.qk_norm in ("head", "full") and not spec.is_mla:
        k = e if liger else 4 if frozen else 4 + e  # Liger's RMSNorm: its input only; a frozen weight: fp32 copy
        out.append(("qk_norm", k * qk, f"{k}*{paren(qk_expr)}"))
    out.append(("logsumexp", 4 * spec.num_attention_heads, "4*num_attention_heads"))
    return out


#: The heads whose loss is ``CrossEntropyLoss`` on the logits as the head returns them (16-bit under autocast), unless
#: the class calls transformers' ``loss_function`` (``Spec.loss_upcast``: ModernBERT, T5Gemma), which upcasts them
LOSS_ON_16BIT = ("masked_lm", "seq2seq_lm")


def _loss_on_16bit(spec: Spec) -> bool:
    return spec.architecture in LOSS_ON_16BIT and not spec.loss_upcast


def _mlp_terms(
    spec: Spec,
    e: int,
    size: int,
    size_expr: str,
    dropout: bool,
    skip_input: bool,
    eager: bool = False,
    amp: bool = False,
    liger: bool = False,
    upcast: bool = False,
) -> list[tuple[str, int, str]]:
    """Korthikanti's 19sbh for the GeLU MLP (input 2h, GeLU input 8h, GeLU output 8h, dropout mask h),
    generalized to any width f; a gated MLP keeps gate, up, act(gate) and their product: 4 * 2f; transformers' ReLU
    MLP (OPT) keeps one 2f. transformers' written-out tanh-GeLU (``gelu_new``) keeps x³'s input, tanh and 1 + tanh
    besides; under CUDA's autocast ``torch.pow`` runs in fp32, so x³'s input, tanh and 1 + tanh are fp32 and 0.5*x
    stays 16-bit (measured on an H100: GPT-2 and Phi-2 keep 6 bytes per intermediate element more than in bf16); gated
    (T5 v1.1's gated-gelu) the GeLU's output is fp32 too, and so is its product with up, which the down projection
    casts back (18f + 2 * 2f, measured: Flan-T5). T5 casts the hidden to its fp32 output projection's dtype first:
    under autocast the projection keeps a second 16-bit copy of a ReLU's output (measured: T5)."""
    h = spec.hidden_size
    out: list[tuple[str, int, str]] = []
    if not skip_input:
        out.append(("input", e * h, f"{e}*hidden_size"))
    # ReLU keeps its output, which is the second projection's input too: one tensor where GeLU keeps two
    k = (3 if liger else 4) if spec.mlp_gated else 1 if eager and spec.hidden_act == "relu" else 2
    tanh_gelu = eager and spec.hidden_act == "gelu_new" and not liger
    if upcast and spec.mlp_gated:  # QLoRA: bitsandbytes returns gate and up in its input's fp32; the product's cast
        out.append(("hidden", (8 + e) * size, f"(8 + {e})*{size_expr}"))
    elif tanh_gelu and spec.mlp_gated and amp:  # T5 v1.1: up and the fp32 product's 16-bit cast for the down projection
        out.append(("hidden", 2 * e * size, f"2*{e}*{size_expr}"))
        out.append(("gelu_terms", 18 * size, f"18*{size_expr}"))  # fp32 x, tanh, 1 + tanh, GeLU; 16-bit 0.5*x
    else:
        out.append(("hidden", k * e * size, f"{k}*{e}*{size_expr}"))
    if tanh_gelu and spec.mlp_gated and not amp:  # the gate's x³ input, tanh, 0.5*x and 1 + tanh
        out.append(("gelu_terms", 3 * e * size, f"3*{e}*{size_expr}"))
    if eager and amp and spec.down_proj_fp32 and not spec.mlp_gated:  # the 16-bit cast of the fp32 cast of the hidden
        out.append(("down_input", e * size, f"{e}*{size_expr}"))
    if eager and not spec.mlp_gated and spec.hidden_act == "gelu_new":
        if amp:  # fp32 x, tanh, 1 + tanh and 16-bit 0.5*x, in place of the 16-bit GeLU input (counted in hidden)
            out.append(("gelu_terms", 12 * size, f"12*{size_expr}"))
        else:  # x³'s input is the GeLU input; tanh, 0.5*x and 1 + tanh
            out.append(("gelu_terms", 3 * e * size, f"3*{e}*{size_expr}"))
    if dropout:
        out.append(("dropout_mask", h, "hidden_size"))
    return out


def _state_terms(spec: Spec, e: int, kind: str) -> list[tuple[str, int, str]]:
    """A linear-attention or state-space layer, by analogy with Korthikanti's attention terms: the layer input,
    the input projections' outputs, the convolution's output, and the mixer's output with its gate (2 × the
    inner width). An estimate: the fused kernels of each family keep slightly different tensors."""
    h = spec.hidden_size
    if kind == "lightning":
        inner, expr = spec.num_attention_heads * spec.head_size, "num_attention_heads*head_dim"
        return [
            ("input", e * h, f"{e}*hidden_size"),
            ("projections", 4 * e * inner, f"4*{e}*{expr}"),
            ("mixer", 2 * e * inner, f"2*{e}*{expr}"),
        ]
    if kind == "mlstm":  # q, k, v, the output gate and the two gates; the cell's output and its normed, gated copy
        qk, v, n = spec.mlstm_qk_dim, spec.mlstm_v_dim, spec.mlstm_heads
        return [
            ("input", e * h, f"{e}*hidden_size"),
            ("projections", e * (2 * qk + 2 * v + 2 * n), f"{e}*(2*mlstm_qk_dim + 2*mlstm_v_dim + 2*mlstm_heads)"),
            ("mixer", 2 * e * v, f"2*{e}*mlstm_v_dim"),
        ]
    if kind == "time_mixing":
        a = spec.time_mixing_size
        return [
            ("input", e * h, f"{e}*hidden_size"),
            ("projections", 3 * e * a, f"3*{e}*time_mixing_size"),
            ("mixer", 2 * e * a, f"2*{e}*time_mixing_size"),
        ]
    if kind == "short_conv":
        return [
            ("input", e * h, f"{e}*hidden_size"),
            ("projections", 3 * e * h, f"3*{e}*hidden_size"),
            ("conv", e * h, f"{e}*hidden_size"),
            ("mixer", 2 * e * h, f"2*{e}*hidden_size"),
        ]
    if kind == "ssm":
        n, inner, inner_expr = spec.ssm_state_size, spec.ssm_inner, "ssm_inner"
        conv, conv_expr = spec.ssm_conv_channels, "ssm_conv_channels"
        if spec.ssm_version == 1:  # in_proj (x and z), then x_proj (time step, B, C)
            proj, proj_expr = 2 * inner + spec.ssm_dt_rank + 2 * n, "(2*ssm_inner + ssm_dt_rank + 2*ssm_state_size)"
        else:
            proj = 2 * inner + 2 * spec.ssm_groups * n + spec.ssm_heads
            proj_expr = "(2*ssm_inner + 2*ssm_groups*ssm_state_size + ssm_heads)"
    else:
        nv = spec.linear_num_value_heads
        inner, inner_expr = nv * spec.linear_value_head_dim, "linear_num_value_heads*linear_value_head_dim"
        conv, conv_expr = spec.linear_conv_channels, "linear_conv_channels"
        proj = 2 * spec.linear_num_key_heads * spec.linear_key_head_dim + 2 * inner + 2 * nv
        proj_expr = (
            "(2*linear_num_key_heads*linear_key_head_dim + 2*linear_num_value_heads*linear_value_head_dim "
            "+ 2*linear_num_value_heads)"
        )
    return [
        ("input", e * h, f"{e}*hidden_size"),
        ("projections", e * proj, f"{e}*{proj_expr}"),
        ("conv", e * conv, f"{e}*{conv_expr}"),
        ("mixer", 2 * e * inner, f"2*{e}*{inner_expr}"),
    ]


def _scan_io_kept(spec: Spec, e: int, amp: bool) -> tuple[str, int, str]:
    """What transformers' Mamba (its PyTorch path, without mamba_ssm) keeps around the selective scan, per token and
    layer, found with ``bench/fake_peaks.py``'s step replay of Mamba-130m under AMP (24,576 bytes a token and layer
    beyond the other terms): the time step plus its bias and its softplus (16 bit), the input as fp32 for the scan's
    ``B·u``, the scan's output plus ``D·u`` in fp32, the output projection's 16-bit input, and under autocast the
    convolution's 16-bit cast of the fp32 copy the fallback convolution makes of its input (its weight is fp32)."""
    k = 8 + 3 * e + (e if amp else 0)
    return ("scan_io", k * spec.ssm_inner, f"{k}*ssm_inner")


RESIDUAL_FP32 = ": the residual stream follows the fp32 embedding under autocast"
LIGER_NORM_KEPT = "Liger-Kernel's RMSNorm keeps only its input (the fp32 residual under autocast) and a scale per row"
NORM_KEPT = (
    "what each eager norm keeps (RMSNorm/LayerNorm as transformers writes them): its input in fp32 (a copy of a 16-bit "
    "input; under autocast the fp32 residual itself), and its normalized output, the output the next projection keeps"
)


def _chunked_scan_kept(spec: Spec) -> tuple[str, int, str]:
    """What Mamba-2's chunked scan as transformers writes it without mamba-ssm's kernels keeps for the backward pass,
    in fp32, a token: the decay mask L and the scores C·B of its chunk (ssm_chunk per head each), B and C per head and
    their copies for the products (4 per head and state), the input, its discretized copy and the two halves of the
    output (4 ssm_inner), and the chunk states thrice (fit to two models measured on an H200 with
    bench/peak_anatomy.py: Mamba-Codestral, whose chunk is 256, and Nemotron-H, 128; within 2.5 % of both)."""
    heads, n, d, q = spec.ssm_heads, spec.ssm_state_size, spec.ssm_inner, max(spec.ssm_chunk, 1)
    return (
        "chunked_scan",
        4 * (2 * heads * q + 4 * heads * n + 4 * d + 3 * d * n // q),
        "4*(2*ssm_heads*ssm_chunk + 4*ssm_heads*ssm_state_size + 4*ssm_inner + 3*ssm_inner*ssm_state_size/ssm_chunk)",
    )


def _chunked_delta_kept(spec: Spec, e: int, amp: bool) -> tuple[str, int, str]:
    """What the gated delta rule as transformers writes it without flash-linear-attention's kernels
    (``torch_chunk_gated_delta_rule``, chunks of 64 tokens) keeps for the backward pass, a token: in fp32, six tensors
    of the keys' width per value head (q and k normed and scaled, k·β and its decayed copy, in the head-major and the
    chunked layout), five of the values' width (six under AMP, whose v·β stays fp32), two of a chunk's (the decays and
    the solved system) and the chunk states; in the compute dtype, the matrix products' own casts: seven of the keys'
    width, four of the values', three of a chunk's and two of each state (counted with saved-tensor hooks on the CPU
    on Qwen3-Next's layer with other key and value widths and head counts; with the terms above, 1.001 of what an
    H200 kept in LoRA without recomputation)."""
    heads, dk, dv, c = (
        spec.linear_num_value_heads,
        spec.linear_key_head_dim,
        spec.linear_value_head_dim,
        GATED_DELTA_CHUNK,
    )
    v32 = 6 if amp else 5
    state = heads * dk * dv // c
    return (
        "chunked_delta_rule",
        4 * (heads * (6 * dk + v32 * dv + 2 * c) + state) + e * (heads * (7 * dk + 4 * dv + 3 * c) + 2 * state),
        f"4*(linear_num_value_heads*(6*linear_key_head_dim + {v32}*linear_value_head_dim + {2 * c}) + "
        f"linear_num_value_heads*linear_key_head_dim*linear_value_head_dim/{c}) + "
        f"{e}*(linear_num_value_heads*(7*linear_key_head_dim + 4*linear_value_head_dim + {3 * c}) + "
        f"2*linear_num_value_heads*linear_key_head_dim*linear_value_head_dim/{c})",
    )


def _element_bytes(settings: RunSettings) -> int:
    """Bytes of one activation element: 4 in fp32, 2 in the 16-bit formats (autocast's and the quantized formats'
    compute dtype)."""
    return 4 if settings.dtype == "fp32" else 2


def _upcast(settings: RunSettings) -> bool:
    """PEFT's QLoRA recipe in 16 bit: ``prepare_model_for_kbit_training`` upcasts every weight that is not NF4
    (embeddings, norms, LM head) to fp32, so the embedding's output, and every layer's input, is fp32 under autocast."""
    qlora = settings.mode == "finetune" and settings.quant == "nf4" and settings.precision == "amp"
    return qlora and _element_bytes(settings) < 4


def _eager(settings: RunSettings) -> tuple[bool, int, bool]:
    """Whether transformers' eager modules run (with Liger-Kernel's in place of a few: :func:`_liger`), the bytes of an
    element of the residual stream, and whether autocast runs over fp32 weights (AMP training: the embedding's output,
    and so every layer's input, stays fp32)."""
    e = _element_bytes(settings)
    amp = settings.mode == "training" and settings.precision == "amp" and e < 4
    return settings.kernels != "fused", 4 if amp or _upcast(settings) else e, amp


def _adapters_everywhere(settings: RunSettings) -> bool:
    """LoRA on every linear layer with PEFT's fp32 adapters under autocast."""
    return settings.mode == "finetune" and settings.precision == "amp" and settings.lora_targets == "all-linear"


def _liger(settings: RunSettings) -> bool:
    """Liger-Kernel over transformers' modules (measured with saved-tensor hooks on an H200, Liger-Kernel 0.8.5): its
    RMSNorm keeps only its input (and one fp32 scale a row), its SwiGLU keeps gate and up (the product is the down
    projection's input; SiLU is recomputed), and its fused linear cross-entropy keeps no logits but the gradient of
    the head's input and, where the head trains, the head's fp32 gradient, both computed in the forward pass."""
    return settings.kernels == "liger"


def _norm_bytes(spec: Spec, e: int, r: int, liger: bool = False) -> int:
    """Bytes per element one eager norm keeps, measured with saved-tensor hooks on transformers' classes. An RMSNorm
    written out: 16-bit: an fp32 copy of the input, the normalized tensor and the weighted output in 16 bit (4 + 2e);
    under autocast: the fp32 input and normalized tensor (8, the casts apart: :func:`_casts`); fp32: input,
    normalized tensor and output (12). LayerNorm, one native op: its input and its output (2r; under autocast it runs
    in fp32 and the next projections keep their casts)."""
    if spec.norm_type == "layernorm":
        return 2 * r if r == e else r
    if liger:  # Liger's RMSNorm: its input, in the residual's dtype
        return r
    if r < 4:
        return 4 + 2 * e
    return 8 if e < 4 else 12


def _casts(spec: Spec) -> int:
    """Under autocast each projection casts the norm's fp32 output to 16 bit anew and keeps its copy: q, k and v (one
    fused qkv), gate and up (one fused gate_up, or one up)."""
    attn = (1 if "qkv" in spec.fused else 3) if spec.has_attention else 0
    mlp = 1 if "gate_up" in spec.fused or not spec.mlp_gated else 2
    return attn + mlp


def _stack(
    spec: Spec, prefix: str, layers: int, expr: str, e: int, seq: int, tokens: int, settings: RunSettings, cross: bool
) -> Node:
    """Activation bytes of a stack of ``layers`` layers for ``tokens`` = batch*seq tokens; each component
    is repeated over the layers that hold it (dense MLP and expert layers apart), as in the parameter tree."""
    h = spec.hidden_size
    dropout = settings.dropout
    tp, sp = settings.tp, settings.sp
    eager, r, amp = _eager(settings)
    liger = _liger(settings)
    upcast = _upcast(settings) and eager and not liger  # QLoRA's fp32 residual
    if settings.recompute == "full":
        split = tp if sp else 1
        one = Node(
            f"{prefix}/input",
            -(-r * h * tokens // split),
            f"tokens*{r}*hidden_size" + (f"/{split}" if split > 1 else ""),
            note="full recomputation: only the layer input is kept (Korthikanti: 2sbh, 2sbh/t with sequence "
            "parallelism)" + (RESIDUAL_FP32 if r > e else ""),
        )
        return group(prefix, [repeated(one, layers, expr)])
    # transformers runs gpt-oss's attention sinks eagerly: the scores are kept
    store_scores = (
        not settings.flash or eager and (spec.attention_sinks or spec.scores_bytes > 0)
    ) and settings.recompute != "selective"
    parts: list[Node] = []
    kinds = spec.stack(layers, expr)
    for g in spec.attention_groups(kinds):  # Gemma 4: each group at its own widths
        att = _attention_terms(g.spec, e, _keys_seen(spec, seq), store_scores, dropout, cross=False, skip_input=eager)
        att += _eager_attention_terms(g.spec, e, liger, settings.mode == "finetune") if eager else []
        terms = tuple((name, b, rename(f, g.renames)) for name, b, f in att)
        parts.append(repeated(_Act(terms).node(f"{prefix}/{g.path}", tokens, tp, sp), g.layers, g.expr))
    if kinds.attention:
        if cross:
            catt = _attention_terms(spec, e, seq, store_scores, dropout, cross=True, skip_input=eager)
            parts.append(repeated(_Act(tuple(catt)).node(f"{prefix}/cross_attention", tokens, tp, sp), layers, expr))
    if spec.conv_module_kernel and not cross:  # a Conformer's convolution module, in every layer
        terms = [] if eager else [("input", e * h, f"{e}*hidden_size")]  # eager: the norm's output, counted there
        terms += [
            ("start", 2 * e * h, f"2*{e}*hidden_size"),
            ("glu", e * h, f"{e}*hidden_size"),
            ("conv", e * h, f"{e}*hidden_size"),
            ("act", e * h, f"{e}*hidden_size"),
        ]
        node = _Act(tuple(terms)).node(f"{prefix}/conv_module", tokens, tp, sp)
        parts.append(repeated(node._replace(note=CONV_MODULE), layers, expr))
    for kind in ("linear_attention", "ssm", "short_conv", "time_mixing", "lightning", "mlstm"):
        if getattr(kinds, kind):
            terms = _state_terms(spec, e, kind)
            if kind == "ssm" and eager and spec.ssm_version == 1:
                terms.append(
                    (
                        "selective_scan",
                        (12 + e) * spec.ssm_inner * spec.ssm_state_size,
                        f"(12 + {e})*ssm_inner*ssm_state_size",
                    )
                )
                terms.append(_scan_io_kept(spec, e, amp))
            if kind == "ssm" and eager and spec.ssm_version == 2:
                terms.append(_chunked_scan_kept(spec))
            if kind == "linear_attention" and eager and spec.linear_kind == "gated_deltanet":
                terms.append(_chunked_delta_kept(spec, e, amp))
            node = _Act(tuple(terms)).node(f"{prefix}/{kind}", tokens, tp, sp)
            parts.append(repeated(node, getattr(kinds, kind), kinds.expr(kind)))
    shared_input = spec.parallel_attn and spec.has_attention or eager  # eager: the norms' outputs are counted there
    n_moe, moe_expr, n_dense, dense_expr = kinds.moe, kinds.expr("moe"), kinds.mlp, kinds.expr("mlp")
    wide = min(spec.wide_mlp_layers, n_dense)  # Gemma 4: the KV-sharing layers' MLPs are twice as wide
    if n_dense > wide:
        mlp = _mlp_terms(spec, e, spec.ffn_size, "intermediate_size", dropout, shared_input, eager, amp, liger, upcast)
        expr = f"({dense_expr} - wide_mlp_layers)" if wide else dense_expr
        parts.append(repeated(_Act(tuple(mlp)).node(f"{prefix}/mlp", tokens, tp, sp), n_dense - wide, expr))
    if wide:
        mlp = _mlp_terms(
            spec, e, 2 * spec.ffn_size, "2*intermediate_size", dropout, shared_input, eager, amp, liger, upcast
        )
        parts.append(repeated(_Act(tuple(mlp)).node(f"{prefix}/wide_mlp", tokens, tp, sp), wide, "wide_mlp_layers"))
    if n_moe:
        terms: list[tuple[str, int, str]] = []
        if not shared_input:
            terms.append(("input", e * h, f"{e}*hidden_size"))
        terms.append(("router", e * spec.num_experts, f"{e}*num_experts"))
        # transformers' grouped experts (torch's grouped_mm, which autocast does not cast) compute in the fp32 weights'
        # dtype under AMP; a class that loops over its experts (DBRX) is autocast's as any linear layer
        xe = 4 if amp and not spec.experts_loop else e
        adapted = _adapters_everywhere(settings) and spec.lora_moe == "tensors" and not spec.experts_loop
        frozen = settings.mode == "finetune" and not adapted and eager and not spec.experts_loop
        if frozen and spec.mlp_gated and not spec.clamped_swiglu:
            # frozen grouped experts: grouped_mm keeps no input for a weight that takes no gradient; gate_up's output
            # and act(gate) stay for the product's backward (measured on an H200: Qwen1.5-MoE's LoRA)
            per_expert = [("hidden", 3 * xe * spec.expert_size, f"3*{xe}*moe_intermediate_size")]
        else:
            per_expert = _mlp_terms(spec, xe, spec.expert_size, "moe_intermediate_size", False, skip_input=False)
        ex = sum(b for _, b, _ in per_expert)
        terms.append(
            (
                "experts",
                spec.num_experts_per_tok * ex,
                f"num_experts_per_tok*({' + '.join(f for _, _, f in per_expert)})",
            )
        )
        if eager:  # grouped experts: each chosen expert's output, kept for its routing weight's gradient (the input
            # gathered per chosen expert is the experts' input above)
            k = spec.num_experts_per_tok
            terms.append(("dispatch", xe * h * k, f"num_experts_per_tok*{xe}*hidden_size"))
        if spec.shared_expert_size:
            sh = _mlp_terms(spec, e, spec.shared_expert_size, "shared_expert_intermediate_size", False, True)
            terms.append(("shared_experts", sum(b for _, b, _ in sh), " + ".join(f for _, _, f in sh)))
        if dropout:
            terms.append(("dropout_mask", h, "hidden_size"))
        parts.append(repeated(_Act(tuple(terms)).node(f"{prefix}/moe", tokens, tp, sp), n_moe, moe_expr))
        if adapted:
            parts.append(repeated(_merged_experts(spec, settings, n_moe, prefix), n_moe, moe_expr))
    if spec.recurrent_units:
        r = spec.recurrent_units
        one = Node(
            f"{prefix}/recurrent",
            e * h * (r + 1) * tokens,
            f"tokens*{e}*hidden_size*(recurrent_units + 1)",
            note="the RNN input and its hidden states",
        )
        parts.append(repeated(one, layers, expr))
    n_norms = spec.norms_per_layer + (spec.cross_norms if cross else 0)
    if eager:
        split = tp if sp else 1
        k, casts = _norm_bytes(spec, e, r, liger), _casts(spec) if amp else 0
        if upcast and spec.norm_type != "layernorm":  # its fp32 input; the frozen weight keeps no normalized copy
            k, casts = 4, _casts(spec)
        one = Node(
            f"{prefix}/norms",
            -(-(n_norms * k + casts * e) * h * tokens // split),
            f"tokens*({n_norms}*{k}"
            + (f" + {casts}*{e}" if casts else "")
            + ")*hidden_size"
            + (f"/{split}" if split > 1 else ""),
            note=(LIGER_NORM_KEPT if liger and spec.norm_type != "layernorm" else NORM_KEPT)
            + (f"; autocast's {casts} bf16 casts of the norms' outputs, one per projection" if casts else ""),
        )
        parts.append(repeated(one, layers, expr))
    elif n_norms:
        split = tp if sp else 1
        one = Node(
            f"{prefix}/norms",
            -(-n_norms * e * h * tokens // split),
            f"tokens*{n_norms}*{e}*hidden_size" + (f"/{split}" if split > 1 else ""),
            note="the input of each norm" + (" (split by sequence parallelism)" if split > 1 else ""),
        )
        parts.append(repeated(one, layers, expr))
    if (
        _adapters_everywhere(settings) and eager and not upcast
    ):  # QLoRA: the projections' casts of the fp32 input are counted with the norms
        q = spec.num_attention_heads * spec.head_size if kinds.attention else 0
        one = Node(
            f"{prefix}/adapters",
            e * (h + q) * tokens // (tp if sp else 1),
            f"tokens*{e}*(hidden_size + num_attention_heads*head_dim)",
            note="PEFT's fp32 adapters under autocast: their own 16-bit copies of their inputs, beyond what the frozen "
            "base stops keeping (measured on an H100 without recomputation: Llama 2/3.1, Mistral, Mistral NeMo, "
            "Qwen2.5; 3.5-4.0 hidden_size a token and layer)",
        )
        parts.append(repeated(one, layers, expr))
    note = ""
    if settings.recompute == "selective":
        note = "selective recomputation: attention scores recomputed in the backward pass"
    elif settings.flash:
        note = "FlashAttention: the attention scores are never stored"
    return group(prefix, parts, note=note)


def activations(spec: Spec, settings: RunSettings, seq: int) -> Node:
    """Activation bytes kept for the backward pass of one micro-batch (``settings.batch`` x ``seq``)."""
    e = _element_bytes(settings)
    tokens = settings.batch * seq
    h = spec.hidden_size
    parts: list[Node] = []
    if settings.dropout:
        parts.append(Node("activations/embedding", h * tokens, "tokens*hidden_size", note="embedding dropout mask"))
    if spec.is_encoder_decoder:
        stacks = [
            ("activations/encoder/layers", spec.num_hidden_layers, "num_hidden_layers", False),
            ("activations/decoder/layers", spec.num_decoder_layers, "num_decoder_layers", True),
        ]
    else:
        stacks = [("activations/layers", spec.num_hidden_layers, "num_hidden_layers", False)]
    for prefix, layers, layers_expr, cross in stacks:
        parts.append(_stack(spec, prefix, layers, layers_expr, e, seq, tokens, settings, cross=cross))
    eager, r, amp = _eager(settings)
    liger = _liger(settings)
    head: list[Node] = []
    if spec.final_norm and eager:  # under autocast the head keeps its 16-bit cast (Liger's loss takes its output)
        k = _norm_bytes(spec, e, r, liger) + (e if amp and not liger else 0)
        if _upcast(settings) and spec.norm_type != "layernorm":  # QLoRA: the frozen fp32 norm keeps its input
            k = 4
        note = LIGER_NORM_KEPT if liger and spec.norm_type != "layernorm" else NORM_KEPT
        head.append(Node("activations/head/final_norm", k * h * tokens, f"tokens*{k}*hidden_size", note=note))
    elif spec.final_norm:
        head.append(Node("activations/head/final_norm", e * h * tokens, f"tokens*{e}*hidden_size"))
    if spec.lm_head:
        if spec.architecture == "masked_lm" and spec.mlm_transform:
            head.append(
                Node(
                    "activations/head/transform",
                    3 * e * h * tokens,
                    f"tokens*3*{e}*hidden_size",
                    note="dense input, activation input and norm input of the MLM transform",
                )
            )
        if not (eager and spec.final_norm):  # eager: the final norm's output is the head's input
            head.append(Node("activations/head/input", e * spec.embed_width * tokens, f"tokens*{e}*hidden_size"))
        if eager and not liger:
            head.append(
                Node(
                    "activations/head/logits",
                    4 * spec.vocab_size * tokens,
                    "tokens*4*vocab_size",
                    note="transformers' loss: the logits upcast to fp32, log_softmax's output kept (Korthikanti: 4sbv)",
                )
            )
            if amp and _loss_on_16bit(spec):
                head.append(
                    Node(
                        "activations/head/logits_16bit",
                        e * spec.vocab_size * tokens,
                        f"tokens*{e}*vocab_size",
                        note="a masked LM's or an encoder-decoder's loss takes the 16-bit logits under CUDA's "
                        "autocast and keeps them too (measured on an H200 and an H100: BertForMaskedLM, T5, Flan-T5, "
                        "mT5; CPU autocast does not)",
                    )
                )
            if spec.logit_softcap:
                head.append(
                    Node(
                        "activations/head/softcap",
                        e * spec.vocab_size * tokens,
                        f"tokens*{e}*vocab_size",
                        note="final_logit_softcapping: tanh's output kept",
                    )
                )
        else:
            g = r if liger else e  # Liger's gradient of the head's input is in that input's dtype
            head.append(
                Node(
                    "activations/head/loss_grad",
                    g * spec.embed_width * tokens,
                    f"tokens*{g}*hidden_size",
                    note="a fused, chunked loss (Liger-Kernel's fused linear cross-entropy, Megatron's) keeps no "
                    "logits: it computes the gradient of the head's input in the forward pass",
                )
            )
            if liger and settings.mode == "training":
                w = 4 if amp else e  # the head's own dtype
                head.append(
                    Node(
                        "activations/head/head_grad",
                        w * spec.vocab_size * spec.embed_width,
                        f"{w}*vocab_size*hidden_size",
                        note="Liger-Kernel's fused linear cross-entropy computes the head's gradient in the forward "
                        "pass, in the head's dtype (it becomes the head's gradient in the backward pass)",
                    )
                )
    if spec.lm_head and eager and _upcast(settings):
        head.append(
            Node(
                "activations/head/weight_cast",
                e * spec.vocab_size * spec.embed_width,
                f"{e}*vocab_size*hidden_size",
                note="autocast's 16-bit copy of the head, which prepare_model_for_kbit_training left in fp32, kept for "
                "the backward pass",
            )
        )
    if head:
        parts.append(group("activations/head", head))
    if amp:
        parts.append(_weight_casts(spec, settings, kept=True))
    return group("activations", parts)


def _merged_experts(spec: Spec, settings: RunSettings, n_moe: int, prefix: str) -> Node:
    """One MoE layer's expert tensors as PEFT's ``ParamWrapper`` hands them to transformers' grouped experts: the
    adapters folded in, ``W + s·A·B``, one full copy of every expert's matrices in the base weights' dtype, made on
    every forward pass and kept by ``grouped_mm`` for the backward pass (measured on an H200 with
    bench/peak_anatomy.py: OLMoE's LoRA without recomputation, 12.0 GiB of its 38.5 GiB kept)."""
    layout = Layout(settings.tp, settings.pp, settings.ep)
    b = 4 if _upcast(settings) else _element_bytes(settings)
    per_layer = _expert_matrix_elements(spec, Layout(1, 1, 1)) // max(n_moe, 1)
    local = per_layer * _ceil_div(spec.num_experts, layout.ep) // spec.num_experts
    split = f"/{layout.ep}" if layout.ep > 1 else ""
    k = 3 if spec.mlp_gated else 2
    by_name = per_layer == spec.num_experts * k * spec.hidden_size * spec.expert_size
    elements = f"num_experts*{k}*hidden_size*moe_intermediate_size" if by_name else "expert_matrix_elements_per_layer"
    return Node(
        f"{prefix}/merged_experts",
        b * local,
        f"{b}*{elements}{split}",
        note="PEFT's adapters folded into a full copy of the layer's expert tensors, kept by grouped_mm",
    )


def _expert_matrix_elements(spec: Spec, layout: Layout) -> int:
    """The elements of the experts' matrices on one GPU (an expert whole on its expert-parallel GPU, or split over
    the tensor-parallel ones)."""
    return sum(
        _ceil_div(leaf.matrix[0] * leaf.matrix[1], layout.expert_split) * layout.copies(leaf.path, leaf.repeat, spec)
        for leaf in count(spec).leaves()
        if leaf.count and leaf.matrix and "/experts/" in leaf.path and _in_layers(leaf.path)
    )


def _weight_casts(spec: Spec, settings: RunSettings, kept: bool) -> Node:
    """Autocast's 16-bit copies of the fp32 weight matrices (its cache, cleared when the autocast region ends): kept
    for the backward pass by every layer's matrices without recomputation, by the LM head alone with it; the copies
    of recomputed layers live only through the forward pass (``kept=False``). transformers' grouped experts call
    torch's grouped_mm, which autocast does not cast: their fp32 weights get no copy (measured on an H200 with
    bench/peak_anatomy.py: Nemotron-3-Nano)."""
    layout = Layout(settings.tp, settings.pp, settings.ep)
    w = weight_bytes(spec, "bf16", layout)
    tree = count(spec)
    head = tree.get("head/lm") or tree.get("embedding/token")
    full = settings.recompute == "full"
    layers = w.get("weights/matrices")
    if spec.num_experts and not spec.experts_loop:  # transformers' grouped experts: no autocast cast
        layers -= 2 * _expert_matrix_elements(spec, layout)
    if settings.zero >= 3:  # each GPU gathers, casts and keeps its shard's share (FSDP, ZeRO-3)
        head, layers = _ceil_div(head, settings.gpus), _ceil_div(layers, settings.gpus)
    if kept:
        if _liger(settings):  # Liger's fused loss computes the head's gradients in the forward pass: no copy kept
            head = 0
        n = 2 * _ceil_div(head, layout.tp) + (0 if full else layers)
        parts = ([] if full else ["layer_matrix_weights"]) + (["lm_head_weights"] if head else [])
        expr = f"2*({' + '.join(parts)})" if len(parts) > 1 else f"2*{parts[0]}" if parts else "0"
        note = "autocast's bf16 copies of the fp32 weights, kept by the backward pass"
        return Node(
            "activations/weight_casts",
            n,
            expr,
            note=note + (" (the LM head's: the layers are recomputed)" if full and head else ""),
        )
    return Node(
        "transient/weight_casts",
        layers,
        "2*layer_matrix_weights",
        note="autocast caches a bf16 copy of every fp32 weight until the forward pass ends (recomputed layers keep "
        "none)",
    )


# ------------------------------------------------------------------------------------------- totals
#: The phases of a step, in order, and what each one is.
PHASES = {
    "prefill": "the prompt's forward pass (transformers: the whole prompt at once; a serving engine: its profile of "
    "one chunk and its sampler)",
    "decode": "a decode step: the cache of the whole prompt, extended by one token",
    "forward": "the end of the forward pass: the loss being computed",
    "loss_backward": "the start of the backward pass: the loss's gradient with respect to every logit",
    "backward": "the end of the backward pass: every gradient, and the first layer recomputed or freed",
    "step": "the optimizer step: weights, gradients and optimizer states",
}


def phases(spec: Spec, settings: RunSettings) -> list[Node]:
    """Bytes on one GPU during each phase of the run (:data:`PHASES`): children ``weights``, ``kv_cache``
    (inference) or ``gradients``, ``optimizer``, ``activations`` (training), and ``transient`` (what the phase holds
    briefly); no runtime or allocator lines. The peak is the largest."""
    spec = validate(spec)
    settings = check(settings)
    seq = resolved_seq(settings, spec.max_position_embeddings)
    layout = Layout(settings.tp, settings.pp, settings.ep)
    if settings.mode == "inference":
        return _inference_phases(spec, settings, seq, layout)
    if settings.mode == "finetune":
        states = _finetune_states(spec, settings, layout)
    else:
        amp = settings.precision == "amp" and settings.dtype != "fp32"
        params = params_on_gpu(spec, layout)
        states = list(
            model_states(
                params, "fp32" if amp else settings.dtype, settings.optimizer, settings.zero, settings.gpus
            ).children
        )
        if amp:
            states[0] = states[0]._replace(
                note="fp32 weights (PyTorch AMP: autocast computes in " + settings.dtype + ")"
            )
    weights, grads, optimizer = states
    kept = activations(spec, settings, seq)
    none = Node("gradients", 0, "0", note="not yet allocated (zero_grad(set_to_none=True), PyTorch's default)")
    fwd, bwd = _loss_transients(spec, settings, seq)
    out = [_phase("forward", [weights, none, optimizer, kept], fwd)]
    if bwd.count:
        out.append(_phase("loss_backward", [weights, none, optimizer, kept], bwd))
    last = _first_layer(spec, settings, seq, kept)
    recomputed = _recomputed_scores(spec, settings, seq, layout)
    out.append(_phase("backward", [weights, grads, optimizer, last], _adapter_input(spec, settings, seq, recomputed)))
    out.append(_phase("step", [weights, grads, optimizer], group("transient", [])))
    return out


def _recomputed_scores(spec: Spec, settings: RunSettings, seq: int, layout: Layout) -> Node:
    """With full recomputation, the layer recomputed in the backward pass holds its forward's working set again: for a
    class that writes its attention scores out, ``scores_bytes`` bytes per score (measured on an H100: Falcon-7B's
    LoRA with checkpointing peaked there)."""
    if settings.recompute != "full" or not spec.scores_bytes or not spec.has_attention:
        return group("transient", [])
    b = spec.scores_bytes
    scores = settings.batch * spec.num_attention_heads * seq * _keys_seen(spec, seq)
    tp = layout.tp
    node = Node(
        "transient/scores",
        -(-b * scores // tp),
        f"{b}*batch*num_attention_heads*seq*{_keys_expr(spec)}" + (f"/{tp}" if tp > 1 else ""),
        note=f"the recomputed layer's attention scores, {b} bytes each as the class computes them",
    )
    return group("transient", [node])


def _adapter_input(spec: Spec, settings: RunSettings, seq: int, transient: Node) -> Node:
    """``transient`` with, for LoRA on every linear layer under autocast with full recomputation, the recomputed layer's
    down projection's input as PEFT's fp32 adapters take it: PEFT's fp32 copy, and autocast's 16-bit cast of that copy
    for lora_A, (4 + 2) * intermediate_size a token (measured on an H100 with bench/peak_anatomy.py: Qwen2.5-7B with
    Liger-Kernel, whose loss leaves the backward pass's start as the step's peak)."""
    dense = spec.stack(spec.num_hidden_layers, "num_hidden_layers").mlp
    if not (_adapters_everywhere(settings) and dense and settings.recompute == "full" and not _upcast(settings)):
        return transient
    e = _element_bytes(settings)
    tokens = settings.batch * seq
    node = Node(
        "transient/adapter_input",
        -(-(4 + e) * spec.ffn_size * tokens // settings.tp),
        f"tokens*(4 + {e})*intermediate_size" + (f"/{settings.tp}" if settings.tp > 1 else ""),
        note="the recomputed layer's down projection's input as PEFT's fp32 adapters take it: its fp32 copy and "
        "autocast's 16-bit cast of that copy",
    )
    return group("transient", [*transient.children, node])


def _phase(name: str, parts: list[Node], transient: Node) -> Node:
    kids = [*parts, transient] if transient.count else parts
    return Node(name, sum(k.count for k in kids), " + ".join(k.path for k in kids), tuple(kids), note=PHASES[name])


def _first_layer(spec: Spec, settings: RunSettings, seq: int, kept: Node) -> Node:
    """What the end of the backward pass holds of the activations: one layer's (with full recomputation, the
    checkpointed layer inputs besides: the first layer is recomputed last)."""
    full = (
        kept
        if settings.recompute == "none"
        else activations(spec, dataclasses.replace(settings, recompute="none"), seq)
    )
    one = sum(_one_layer(spec, n) for n in full.walk() if n.path.endswith("/layers"))
    inputs = sum(n.count for n in kept.walk() if n.path.endswith("/layers/input"))
    return Node(
        "activations",
        inputs + one,
        "checkpointed layer inputs + one layer's activations" if inputs else "one layer's activations",
        note="the backward pass has freed every other layer's activations",
    )


_MIXERS = (*ATTENTION_GROUPS, "linear_attention", "ssm", "short_conv", "time_mixing", "lightning", "mlstm")
_FEED_FORWARD = ("mlp", "wide_mlp", "moe", "merged_experts")


def _one_layer(spec: Spec, layers: Node) -> int:
    """The activation bytes of the stack's first layer, the one recomputed last: its mixer (the largest kind where
    layers differ; attention and Mamba together where they run side by side) and its feed-forward block (the dense MLP
    where the first layers are dense, as DeepSeek's; else the largest kind), or the larger of the two where no layer
    holds both (Nemotron-H); norms and the rest as every layer holds them (measured on an H200: DeepSeek-V2-Lite cut
    to 4 layers, AMP training with recomputation, whose MoE layers' working set the end of the backward pass never
    holds)."""
    copies = {c.path.rsplit("/", 1)[-1]: c.per_copy for c in layers.children}
    if spec.sublayers > 1:  # LongCat-Flash: one copy of each
        return sum(copies.values())
    mixers = [b for name, b in copies.items() if name in _MIXERS]
    mixer = sum(mixers) if spec.ssm_beside_attention else max(mixers, default=0)
    dense = copies.get("mlp", 0) * (2 if spec.macaron_ffn else 1)
    moe = copies.get("moe", 0) + copies.get("merged_experts", 0)
    kinds = spec.stack(spec.num_hidden_layers, "num_hidden_layers")
    if spec.moe_beside_mlp:
        ffn = dense + moe
    elif kinds.first_k_dense and dense:
        ffn = dense
    else:
        ffn = max(dense, copies.get("wide_mlp", 0), moe)
    rest = sum(b for name, b in copies.items() if name not in _MIXERS and name not in _FEED_FORWARD)
    single = spec.num_hidden_layers <= spec.mixer_only_layers + spec.ffn_only_layers  # each layer one block
    return (max(mixer, ffn) if single else mixer + ffn) + rest


def _loss_transients(spec: Spec, settings: RunSettings, seq: int) -> tuple[Node, Node]:
    """What the end of the forward pass and the start of the backward pass hold briefly. transformers' loss: the
    logits in the compute dtype and their fp32 upcast (log_softmax's fp32 output is kept), then the backward pass's
    fp32 gradient of log_softmax's output and of its input; under AMP with full recomputation, autocast's bf16
    copies of every layer's weights until the forward pass ends. A fused chunked loss: one chunk's logits."""
    e = _element_bytes(settings)
    eager, _, amp = _eager(settings)
    eager = eager and not _liger(settings)  # transformers' own loss
    tokens = settings.batch * seq
    v, h = spec.vocab_size, spec.embed_width
    fwd: list[Node] = []
    bwd: list[Node] = []
    if spec.lm_head and eager and amp and _loss_on_16bit(spec):  # the 16-bit logits are kept
        note = "a loss on 16-bit logits under autocast (measured on an H100: BertForMaskedLM, T5)"
        fwd.append(Node("transient/logits", e * v * tokens, f"tokens*{e}*vocab_size", note=note))
        bwd.append(Node("transient/logits_grad", 2 * e * v * tokens, f"tokens*2*{e}*vocab_size", note=note))
    elif spec.lm_head and eager:
        fwd.append(
            Node(
                "transient/logits",
                (e + 4) * v * tokens,
                f"tokens*({e} + 4)*vocab_size",
                note="the head's logits and their fp32 upcast (transformers' ForCausalLMLoss: logits.float())",
            )
        )
        bwd.append(
            Node(
                "transient/logits_grad",
                8 * v * tokens,
                "tokens*8*vocab_size",
                note="log_softmax's backward: the fp32 gradient of its output and of its input",
            )
        )
    elif spec.lm_head:
        fwd.append(
            Node(
                "transient/loss_chunk",
                8 * h * tokens,
                "tokens*8*hidden_size",
                note="one chunk's fp32 logits and their gradient: the chunk is tokens*hidden_size/vocab_size "
                "tokens (Liger-Kernel's fused linear cross-entropy)",
            )
        )
    if amp and settings.recompute == "full":
        fwd.append(_weight_casts(spec, settings, kept=False))
    return group("transient", fwd), group("transient", bwd)


def _inference_phases(spec: Spec, settings: RunSettings, seq: int, layout: Layout) -> list[Node]:
    """transformers' generate: the whole prompt in one forward pass (``logits_to_keep=1``), its own cache rules; a
    serving engine: chunks of at most ``chunk`` tokens, sliding layers at their window."""
    weights = weight_bytes(spec, settings.dtype, layout)
    kv_dtype = resolved_kv_dtype(settings)
    batch = settings.batch
    if settings.serving:
        relaid = kernel_layout(spec, settings.dtype, layout, settings.gpu)
        weights = group("weights", [*weights.children, relaid]) if relaid else weights
        # the engine sets aside what its profile of one full chunk allocated, whatever the run's own prompts are
        # (vLLM's determine_available_memory); a sequence's cache takes whole blocks
        cache = kv_cache(spec, _whole_blocks(seq), batch, kv_dtype, layout)
        chunk = serving_batch(settings)[0]
        return [_phase("prefill", [weights, cache], _layer_transient(spec, settings, chunk, seq, layout))]
    prompt = kv_cache(spec, seq, batch, kv_dtype, layout, prompt=True)
    prefill = _phase("prefill", [weights, prompt], _layer_transient(spec, settings, batch * seq, seq, layout))
    copy = _cache_copy(prompt, spec)
    return [prefill, _phase("decode", [weights, prompt], group("transient", [copy]))]


def _cache_copy(cache: Node, spec: Spec) -> Node:
    """A decode step's DynamicCache appends with torch.cat: one layer's keys (or values) exist twice for a moment."""
    layers = max(spec.num_decoder_layers if spec.is_encoder_decoder else spec.num_hidden_layers, 1)
    n = cache.count // layers // 2
    return Node(
        "transient/cache_copy",
        n,
        "kv_cache / layers / 2",
        note="torch.cat in the cache's update: one layer's keys copied once",
    )


#: A serving engine's sampler, bytes per logit beyond the logits themselves (their fp32 copy, the probabilities and
#: what sampling makes of them): 13, fitted to vLLM 0.19's profile of Llama 3.1 8B in bf16 (1.89 GiB) and fp32
#: (2.21 GiB) at 8,192 tokens and 1,024 sequences (docs/measurements/vllm-logs-*.json)
SAMPLER_BYTES = 13
#: What vLLM's profile allocates outside PyTorch's allocator, per GPU: one GPU, and with tensor parallelism (vLLM
#: 0.19's logs: 0.24-0.27 GiB and 2.06-2.21 GiB)
NON_TORCH = 0.25
NON_TORCH_TP = 2.1

#: transformers' torch_chunk_gated_delta_rule: its default chunk of tokens
GATED_DELTA_CHUNK = 64


def _layer_transient(spec: Spec, settings: RunSettings, tokens: int, seq: int, layout: Layout) -> Node:
    """One layer's working set for ``tokens`` tokens in one forward pass without gradients (measured on an H100
    against transformers' prefill: 6f + 8h bytes a token for a gated bf16 MLP): the larger of the MLP's (the
    residual, the norm's output, the MLP's input and output: 4h, and its intermediates: gate, up and their
    product, 3f, or the fused gate_up's 2f) and the attention's (4h, q, k, v and their rotated copies); experts: the
    tokens gathered per chosen expert (each h + 4 * moe_intermediate_size, or as they are scattered back the input, the
    output, the weighted output and its copy in token order, fp32 where the router's weights are: measured on an H100
    and replayed, bench/fake_peaks.py: Kimi K2, DeepSeek-V2-Lite, MiniMax-M2); eager
    attention (gpt-oss's sinks): three copies of the scores. Then the logits of the last tokens, and their fp32
    upcast."""
    e = _element_bytes(settings)
    h, tp = spec.hidden_size, layout.tp
    kinds = spec.stack(spec.num_hidden_layers, "num_hidden_layers")
    qkv, qkv_expr = qkv_width(spec)
    # a sliding window SDPA cannot express as is_causal: transformers makes its boolean mask once, and SDPA a float
    # copy of it for the whole batch in each layer (replayed, bench/fake_peaks.py: StarCoder2 at 16,384 tokens)
    window = spec.sliding_window if kinds.sliding and not spec.blocked_attention and not spec.scores_bytes else 0
    mask = bool(window) and seq > window and not settings.serving
    options: list[tuple[int, str, str]] = [
        (
            e * (4 * h + 2 * qkv + (seq if mask else 0)),
            f"{e}*(4*hidden_size + 2*{paren(qkv_expr)}" + (" + seq)" if mask else ")"),
            "attention: q, k, v and rotated q, k" + (", and the window's mask as floats" if mask else ""),
        )
    ]
    if spec.scores_bytes and spec.has_attention and not settings.serving:  # a serving engine: its own kernels
        b = spec.scores_bytes
        n = e * (4 * h + 2 * qkv) + b * spec.num_attention_heads * _keys_seen(spec, seq)
        options.append(
            (
                n,
                f"{e}*(4*hidden_size + 2*{paren(qkv_expr)}) + {b}*num_attention_heads*{_keys_expr(spec)}",
                f"the class's own attention: {b} bytes per score",
            )
        )
    if spec.index_n_heads and not spec.csa_layers and spec.has_attention and not settings.serving:
        # torch.matmul folds one sequence's queries into one matrix; a batch copies the keys out for every query
        d, heads = spec.index_head_dim, spec.index_n_heads
        width, width_expr = (
            (max(d + heads, 2 * heads), "max(index_head_dim + index_n_heads, 2*index_n_heads)")
            if settings.batch > 1
            else (2 * heads, "2*index_n_heads")
        )
        options.append(
            (
                e * (4 * h + 2 * qkv) + 4 * width * _keys_seen(spec, seq),
                f"{e}*(4*hidden_size + 2*{paren(qkv_expr)}) + 4*{width_expr}*{_keys_expr(spec)}",
                "the lightning indexer as transformers writes it: every query's fp32 score against every key for each "
                "indexer head, twice (scaled, then its ReLU), or, in a batch, once beside the keys copied out for "
                "every query by the product (measured on an H100: DeepSeek-V3.2 at 2 x 4,096 and 1 x 6,144)",
            )
        )
    if spec.attention_sinks and spec.has_attention and not settings.serving:
        # DeepSeek-V4's compressed layers score every key and every compressed entry in one row (its compressed sparse
        # layers, one entry per csa_rate tokens, are the widest)
        if spec.csa_layers and spec.csa_rate:
            keys, keys_expr = seq + seq // spec.csa_rate, "(seq + seq//csa_rate)"
        elif spec.hca_layers and spec.hca_rate:
            keys, keys_expr = seq + seq // spec.hca_rate, "(seq + seq//hca_rate)"
        else:
            keys, keys_expr = seq, "seq"
        n = e * (4 * h + 2 * qkv + 3 * spec.num_attention_heads * keys)
        options.append(
            (
                n,
                f"{e}*(4*hidden_size + 2*{paren(qkv_expr)} + 3*num_attention_heads*{keys_expr})",
                "eager attention: three copies of the scores"
                + (", each query against every key and every compressed entry" if keys > seq else ""),
            )
        )
    if kinds.mlp:
        k = 4 if "gate_up" in spec.fused else 3 if spec.mlp_gated else 2
        k += 2 if not spec.mlp_gated and spec.hidden_act == "gelu_new" else 0  # tanh-GeLU's temporaries
        k += 1 if not spec.mlp_gated and spec.hidden_act == "relu2" else 0  # the ReLU's output, then its square
        options.append(
            (
                e * (4 * h + k * spec.ffn_size),
                f"{e}*(4*hidden_size + {k}*intermediate_size)",
                "the MLP: its input, output and intermediates",
            )
        )
    if kinds.ssm and spec.ssm_version == 1 and not settings.serving:
        d, n, heads = spec.ssm_inner, spec.ssm_state_size, max(spec.ssm_heads, 1)  # Zamba scans head by head
        scan = "ssm_inner/ssm_heads" if spec.ssm_heads > 1 else "ssm_inner"
        options.append(
            (
                12 * d // heads * n + (5 * e + 8) * d + 4 * e * h,
                f"12*{scan}*ssm_state_size + {5 * e + 8}*ssm_inner + {4 * e}*hidden_size",
                "the selective scan as transformers writes it without mamba-ssm's kernels: the discretized A and B "
                "and B·x for every token (fp32), with the projections, the time step and the scan's outputs",
            )
        )
    if kinds.ssm and spec.ssm_version == 2 and not settings.serving:
        heads, n, d, q = spec.ssm_heads, spec.ssm_state_size, spec.ssm_inner, max(spec.ssm_chunk, 1)
        options.append(
            (
                4 * (3 * heads * n + 3 * heads * q + 8 * d + 3 * d * n // q) + 4 * e * h,
                "4*(3*ssm_heads*ssm_state_size + 3*ssm_heads*ssm_chunk + 8*ssm_inner + "
                f"3*ssm_inner*ssm_state_size/ssm_chunk) + {4 * e}*hidden_size",
                "Mamba-2's chunked scan as transformers writes it without mamba-ssm's kernels, every tensor it makes "
                "alive until it returns, in fp32: B and C for every head and B's decay, the segment sums, scores and "
                "their masked copy of each chunk, the inputs, outputs and chunk states",
            )
        )
    if kinds.linear_attention and spec.linear_kind == "gated_deltanet" and not settings.serving:
        heads, dk, dv = spec.linear_num_value_heads, spec.linear_key_head_dim, spec.linear_value_head_dim
        keys, values = spec.linear_num_key_heads * dk, heads * dv
        c = GATED_DELTA_CHUNK
        f = 4 if "in_qkvz" in spec.fused else 2  # a fused projection stays alive beside the convolution's output
        options.append(
            (
                4 * heads * (6 * dk + 4 * dv + 3 * c) + e * (f * (keys + values) + 3 * h),
                f"4*linear_num_value_heads*(6*linear_key_head_dim + 4*linear_value_head_dim + {3 * c}) + "
                f"{e}*({f}*(linear_num_key_heads*linear_key_head_dim + linear_num_value_heads*linear_value_head_dim) "
                "+ 3*hidden_size)",
                "the gated delta rule as transformers writes it without flash-linear-attention's kernels (chunks of "
                f"{c} tokens, in fp32: q, k, v and their products with the decay and beta, the solved values and "
                "keys, the output, and each chunk's decays, system and scores), beside the projections, the "
                "convolution's output and the gate (replayed on the CPU, bench/fake_peaks.py, and measured on an "
                "H100: Qwen3-Next)",
            )
        )
    # a serving engine's fused experts keep a workspace of their own (_profile)
    if kinds.moe and spec.experts_loop and not settings.serving:
        k, n = spec.num_experts_per_tok, spec.num_experts
        options.append(
            (
                e * (4 * h + k * (2 * h + 4 * spec.expert_size) // n),
                f"{e}*(4*hidden_size + num_experts_per_tok*(2*hidden_size + 4*moe_intermediate_size)/num_experts)",
                "the experts one after another, each on its share of the tokens (measured on an H100: DBRX)",
            )
        )
    elif kinds.moe and not settings.serving:
        w = 4 if spec.routing_fp32 else e  # the weighted outputs and their copy in token order
        slot = max(e * (h + 4 * spec.expert_size), (2 * e + 2 * w) * h)
        expr = f"max({e}*(hidden_size + 4*moe_intermediate_size), {2 * e + 2 * w}*hidden_size)"
        options.append(
            (
                e * 4 * h + spec.num_experts_per_tok * slot,
                f"{e}*4*hidden_size + num_experts_per_tok*{expr}",
                "the experts: each token gathered once per chosen expert, its output weighted and put back in token "
                "order" + (" in fp32 (the router's weights are fp32)" if spec.routing_fp32 else ""),
            )
        )
    per, expr, what = max(options)
    kids = [
        Node(
            "transient/layer",
            -(-per * tokens // tp),
            f"tokens*{expr}" + (f"/{tp}" if tp > 1 else ""),
            note=f"one layer's working set, {what}; tokens = {tokens:,}",
        )
    ]
    if settings.serving:
        return _profile(spec, settings, kids[0], layout)
    if spec.lm_head and spec.logits_every_token:
        # after the last layer (its working set freed): every prompt token's logits beside the final norm's output
        head = [
            Node(
                "transient/logits",
                e * spec.vocab_size * tokens,
                f"tokens*{e}*vocab_size",
                note="the logits of every prompt token: the class's forward takes no logits_to_keep, and they are "
                "made after the layers, whose working set is freed by then (measured on an H100: Qwen2-Audio)",
            ),
            Node("transient/hidden", e * h * tokens, f"tokens*{e}*hidden_size", note="the final norm's output"),
        ]
        if sum(n.count for n in head) >= kids[0].count:
            kids = head
    elif spec.lm_head:
        rows = settings.batch if spec.architecture != "masked_lm" else tokens
        kids.append(
            Node(
                "transient/logits",
                (e + 4) * spec.vocab_size * rows,
                f"batch*({e} + 4)*vocab_size",
                note="the last token's logits (logits_to_keep=1) and their fp32 upcast",
            )
        )
    if mask:
        kids.append(
            Node("transient/window_mask", seq * seq, "seq*seq", note="the sliding window's boolean mask, made once")
        )
    if spec.position_embedding == "learned" and not spec.is_encoder_decoder and not settings.serving:
        kids.append(
            Node(
                "transient/embeddings",
                e * h * (tokens + seq),
                f"(tokens + seq)*{e}*hidden_size",
                note="the token embeddings, which the model's forward keeps beside their sum with the positions' "
                "rows, and those rows (replayed, bench/fake_peaks.py: StarCoderBase)",
            )
        )
    return group("transient", kids)


def _profile(spec: Spec, settings: RunSettings, layer: Node, layout: Layout) -> Node:
    """What a serving engine's profile allocates beside the weights (vLLM's ``profile_run``: one forward pass of
    ``chunk`` tokens, then its sampler over ``max_seqs`` requests), the larger of one layer's working set and the
    sampler's (every token's hidden state, the logits of the last tokens, their fp32 copy and what sampling makes of
    them); with experts the fused kernels' workspace, which stays allocated (not an MXFP4 kernel's, measured: vLLM
    0.19's Triton kernel for gpt-oss); and what it allocates outside PyTorch
    (workspaces, and with tensor parallelism the communication buffers). Measured in vLLM 0.19's logs
    (docs/measurements/vllm-logs-*.json)."""
    e, h, tp = _element_bytes(settings), spec.hidden_size, layout.tp
    tokens, rows = serving_batch(settings)
    sampler = [
        Node(
            "transient/hidden",
            e * h * tokens,
            f"chunk*{e}*hidden_size",
            note=f"every token's hidden state; chunk = {tokens:,} tokens",
        ),
        Node(
            "transient/logits",
            (e + SAMPLER_BYTES) * spec.vocab_size * rows if spec.lm_head else 0,
            f"max_seqs*({e} + {SAMPLER_BYTES})*vocab_size",
            note=f"the sampler over max_seqs = {rows:,} requests: their last tokens' logits, whole on every "
            f"tensor-parallel GPU, and {SAMPLER_BYTES} bytes a logit in fp32 (measured: vLLM 0.19, Llama 3.1 8B in "
            "bf16 and fp32)",
        ),
    ]
    kids = [layer] if layer.count >= sum(n.count for n in sampler) else sampler
    quant = QUANT.get(settings.dtype)
    if spec.is_moe and (quant is None or quant.moe_workspace):
        k, n_, k_expr = spec.num_experts_per_tok, _ceil_div(spec.expert_size, tp), "moe_intermediate_size"
        kids.append(
            Node(
                "transient/moe_workspace",
                e * tokens * k * (3 * n_ + h),
                f"chunk*num_experts_per_tok*{e}*(3*{k_expr}" + (f"/{tp}" if tp > 1 else "") + " + hidden_size)",
                note="the fused experts' workspace (each token's gate and up, their product and its output for "
                "each chosen expert), kept allocated after the forward pass",
            )
        )
    gib = NON_TORCH_TP if tp > 1 else NON_TORCH
    kids.append(
        Node(
            "transient/non_torch",
            int(gib * 2**30),
            f"{gib:g} GiB (measured)",
            note="allocated outside PyTorch during the profile: cuBLAS workspaces"
            + (", and NCCL's and the custom all-reduce's buffers" if tp > 1 else "")
            + " (vLLM 0.19's logs: 0.24-0.27 GiB on one GPU, 2.06-2.21 GiB per GPU with tensor parallelism)",
        )
    )
    return group("transient", kids)


def peak_phase(steps: list[Node]) -> Node:
    """The phase whose bytes are the run's peak (the allocator's margin grows with them, so it peaks there too)."""
    return max(steps, key=lambda p: p.count)


def fp8_cache_alternative(spec: Spec, settings: RunSettings) -> Node | None:
    """The memory tree with an fp8 KV cache, where ``kv_dtype="auto"`` keeps a bf16 cache under quantized weights
    (None elsewhere): the answer offered beside the one the settings give."""
    if settings.mode != "inference" or settings.kv_dtype != "auto" or settings.dtype in TRAIN_DTYPES:
        return None
    return memory(spec, dataclasses.replace(settings, kv_dtype="fp8"))


def memory(spec: Spec, settings: RunSettings) -> Node:
    """The memory tree (bytes per GPU) at the run's peak: the children of the largest of :func:`phases` (``weights``,
    ``kv_cache`` or ``gradients``, ``optimizer``, ``activations``, and the phase's ``transient``), then the
    ``allocator``'s margin and the ``runtime``; a serving engine's: the ``runtime`` and the ``reserve`` it leaves
    unallocated instead of a margin. The root count is the total, its note names the phase."""
    spec = validate(spec)
    settings = check(settings)
    peak = peak_phase(phases(spec, settings))
    kids = list(peak.children)
    mib = settings.runtime_mib
    runtime = Node("runtime", mib * 2**20, f"{mib:,} MiB (assumed)", note=RUNTIME_SHORT)
    capacity = ACCELERATORS[settings.gpu].capacity
    if settings.mode == "inference" and settings.serving:
        kids += [runtime, _reserve(settings, capacity, runtime.count)]
    else:
        kids += [_allocator(peak, capacity - peak.count - runtime.count), runtime]
    return Node(
        "",
        sum(k.count for k in kids),
        " + ".join(k.path for k in kids),
        tuple(kids),
        note=f"peak: {peak.path}, {peak.note}",
    )


def _reserve(settings: RunSettings, capacity: int, runtime: int) -> Node:
    """What a serving engine leaves outside ``gpu_memory_utilization`` beyond the runtime, which lives there: vLLM
    measures its share of the GPU after the CUDA context is made, and sizes its cache from the bytes its profile
    allocated, so the context, CUDA graphs and the caching allocator's margin all come out of the rest."""
    left = capacity - int(capacity * settings.gpu_util)
    return Node(
        "reserve",
        max(left - runtime, 0),
        f"(1 - gpu_util={settings.gpu_util:g})*capacity - runtime",
        note="outside gpu_memory_utilization, less the runtime held there: the engine never allocates it (its CUDA "
        "graphs and the allocator's margin take from it)",
    )


#: Tokens a serving engine's cache block holds: it allocates whole blocks (vLLM's default block_size)
KV_BLOCK = 16


def _whole_blocks(tokens: int) -> int:
    """The tokens of cache a serving engine allocates for a sequence of ``tokens``: whole blocks of ``KV_BLOCK``."""
    return _round_up(tokens, KV_BLOCK)


def serving_capacity(spec: Spec, settings: RunSettings, capacity: int) -> dict[str, int | None]:
    """A serving engine's cache budget on one GPU, as vLLM sizes it (``determine_available_memory``):
    ``gpu_memory_utilization`` × capacity less the weights and what its profile allocated (one forward pass of
    ``chunk`` tokens, the sampler over ``max_seqs`` rows) all goes to the KV cache. Returns the budget, the tokens of
    cache it holds in whole blocks of ``KV_BLOCK`` tokens and the sequences of the run's length that run at once (at
    most ``max_seqs``); no tokens (``None``) where the cache does not grow with them (a scan's state, one a
    sequence). A run fits exactly when its cache fits this budget (:func:`needed` of its tree)."""
    seq = resolved_seq(settings, spec.max_position_embeddings)
    empty = memory(spec, dataclasses.replace(settings, serving=True, batch=1, seq=1))
    budget = max(capacity - (needed(empty) - empty.get("kv_cache")), 0)
    layout, kv_dtype = Layout(settings.tp, settings.pp, settings.ep), resolved_kv_dtype(settings)
    per_seq = kv_cache(spec, _whole_blocks(seq), 1, kv_dtype, layout).count
    per_token = max(kv_cache(spec, 1, 1, kv_dtype, layout).count, 1)
    grows = kv_cache(spec, 2, 1, kv_dtype, layout).count > per_token
    return {
        "kv_budget_bytes": budget,
        "kv_tokens": budget // (per_token * KV_BLOCK) * KV_BLOCK if grows else None,
        "sequences": min(budget // per_seq, serving_batch(settings)[1]) if per_seq else 0,
    }


def serving_room(spec: Spec, settings: RunSettings, capacity: int, gpu_name: str) -> str:
    """In words, what a serving engine's budget (:func:`serving_capacity`) holds on one GPU: its cache in GiB and
    tokens and the sequences of the run's length at once, or that the weights and the profile leave it none."""
    cap = serving_capacity(spec, settings, capacity)
    room = f"{cap['kv_budget_bytes'] / GiB:,.2f} GiB of "
    share = f"{settings.gpu_util:g} of the {gpu_name}"
    if not cap["kv_budget_bytes"]:
        return room + f"cache: the weights and what the profile allocates take all of {share}"
    n, seq = cap["sequences"] or 0, resolved_seq(settings, spec.max_position_embeddings)
    kind = f"KV cache, {cap['kv_tokens']:,} tokens" if cap["kv_tokens"] is not None else "state cache"
    if cap["kv_tokens"] is not None and spec.sliding_window_layers:
        kind += " (were every layer to keep every token: its sliding layers keep their window)"
    return (
        f"{room}{kind} in {share}: {n:,} sequence{'s' if n != 1 else ''} of {seq:,} tokens at once (at most max_seqs "
        f"= {serving_batch(settings)[1]:,})"
    )


#: The caching allocator's margin: what it reserves beyond the bytes allocated at the peak (freed blocks it keeps,
#: split and rounded), as a share of that peak: 0.5-39 %, median 9 %, over 107 runs of transformers on an H100 and an
#: H200 (docs/measurements/h*-peaks-*.json: max_memory_reserved against max_memory_allocated). It gives way near the
#: GPU's capacity: before reporting out of memory the allocator returns its cached blocks and tries again (SmolLM2-360M
#: at 72.5 GiB allocated reserved 73.0 GiB under a 79.18 GiB cap, and ran).
ALLOCATOR_SHARE = 0.1


def _allocator(peak: Node, room: int) -> Node:
    """The margin over the peak, at most the ``room`` the GPU has left above the peak and the runtime (negative: the
    run does not fit, and the margin is shown whole)."""
    share = int(peak.count * ALLOCATOR_SHARE)
    formula = f"{ALLOCATOR_SHARE:g}*peak"
    bounded = 0 <= room  # a run that does not fit keeps the whole margin: nothing is squeezed
    return Node(
        "allocator",
        min(share, room) if bounded else share,
        f"min({formula}, capacity - peak - runtime)" if bounded else formula,
        note="PyTorch's caching allocator reserves more than it allocates (freed blocks it keeps, split and rounded: "
        "0.5-39 % of the peak measured on an H100 and an H200), and returns them before it runs out: near the GPU's "
        "capacity the margin shrinks to what is left; nvidia-smi sees the reserved bytes",
    )


#: Bits per weight of QLoRA's NF4 with double quantization (Dettmers et al. 2023, section 3): 4 bits, plus an fp8
#: constant per 64 weights and an fp32 constant per 256 of those: 4 + 8/64 + 32/(64*256) = 4.127.
NF4_BITS = 4 + 8 / 64 + 32 / (64 * 256)


def _finetune_states(spec: Spec, settings: RunSettings, layout: Layout = ONE_GPU) -> list[Node]:
    """LoRA fine-tuning: the frozen base (16 bit, or NF4 on the layer matrices), the adapters in the compute dtype
    with their gradients, and the optimizer state of the adapters only (fp32, as QLoRA's paged AdamW keeps it)."""
    from paramscope.engine.lora import lora_params

    adapters = lora_params(spec, settings.lora_rank, settings.lora_targets).count
    if layout != ONE_GPU:  # the adapters split as the layers they adapt
        adapters = -(-adapters * params_on_gpu(spec, layout) // count(spec).count)
    e = _element_bytes(settings)
    a = 4 if settings.precision == "amp" else e  # PEFT makes the adapters in fp32; autocast computes in 16 bit
    base = weight_bytes(spec, settings.dtype, layout)
    if settings.quant == "nf4":
        matrices = base.find("weights/matrices")
        elements = (matrices.count if matrices else 0) // e
        nf4 = math.ceil(elements * NF4_BITS / 8)
        rest = base.count - (matrices.count if matrices else 0)
        r = 4 if _upcast(settings) else e
        frozen = Node(
            "weights/base",
            nf4 + rest // e * r,
            f"{elements:,} layer matrix weights × 4.127 bits (NF4 + double "
            f"quantization) + {rest // e:,} embedding, norm and bias weights × {r} B",
            note="frozen, QLoRA NF4"
            + (
                "; PEFT's prepare_model_for_kbit_training upcasts the weights that are not NF4 to fp32 (measured on "
                "an H200: Llama 3.1 8B, Qwen2.5 7B, Qwen3 14B, Mistral 7B)"
                if r == 4
                else ""
            ),
        )
    else:
        frozen = Node("weights/base", base.count, f"all weights × {e} B", note="frozen")
    opt_bytes, opt_text = _opt_bytes_per_param("fp32", settings.optimizer)  # states only: no fp32 master copy
    lora = f"lora_params (rank {settings.lora_rank}, {settings.lora_targets}) = {adapters:,}"
    n, zero = settings.gpus, settings.zero  # ZeRO shards over the GPUs as in training (FSDP-QLoRA: stage 3)

    def shard(stage: int, node: Node) -> Node:
        if zero < stage or n == 1:
            return node
        return Node(node.path, -(-node.count // n), f"({node.formula}) / {n} GPUs", node.children, note=node.note)

    adapter_weights = Node("weights/adapters", adapters * a, f"{lora} × {a} B", note="trained")
    return [
        shard(3, group("weights", [frozen, adapter_weights])),
        shard(2, Node("gradients", adapters * a, f"{lora} × {a} B", note="adapters only: the base is frozen")),
        shard(
            1, Node("optimizer", adapters * opt_bytes, f"{lora} × {opt_bytes} B", note=f"adapters only ({opt_text})")
        ),
    ]


def parts(tree: Node) -> dict[str, int]:
    """Bytes per part (``weights``, ``kv_cache``, ``gradients``, ``optimizer``, ``activations``) and ``total``."""
    out = {p: tree.get(p) for p in PARTS}
    out["total"] = tree.count
    return out


def needed(tree: Node) -> int:
    """What must fit on one GPU of a :func:`memory` tree: the peak phase and the runtime (a serving engine's: with the
    reserve it leaves unallocated, so that it fits exactly when its cache fits :func:`serving_capacity`'s budget).
    The allocator's margin is left out: the caching allocator returns its cached blocks before it reports out of
    memory (measured near an H100's capacity)."""
    return tree.count - tree.get("allocator")


def needed_bytes(spec: Spec, settings: RunSettings) -> int:
    """:func:`needed` of the run's memory tree."""
    return needed(memory(spec, settings))


def sweep(spec: Spec, settings: RunSettings, field: str, values: list[int]) -> list[dict[str, int]]:
    """:func:`parts` at each value of ``field`` (``seq`` or ``batch``), the other settings unchanged."""
    return [parts(memory(spec, dataclasses.replace(settings, **{field: v}))) for v in values]


def _bisect(lo: int, hi: int, holds: Callable[[int], bool]) -> tuple[int, int]:
    """Neighbours ``(n, n + 1)`` in [lo, hi] where a monotone ``holds`` turns false; ``holds(lo)`` is true and
    ``holds(hi)`` false on entry (not evaluated)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


def context_window(spec: Spec) -> str:
    """The model's own context window in words: its tokens, or none stated (a scan without positions)."""
    n = spec.max_position_embeddings
    return f"the model's context is {n:,} tokens" if n > 0 else "the model states no context window"


def max_fit(spec: Spec, settings: RunSettings, capacity: int, field: str = "seq") -> int | None:
    """The largest ``seq`` (or ``batch``) whose peak fits in ``capacity`` bytes.

    ``None`` when even 1 does not fit; the search limit when everything up to it fits: for ``seq`` the model's own
    context window (``max_position_embeddings``), for ``batch`` MAX_BATCH.
    """
    if field not in ("seq", "batch"):
        raise ValueError("field: seq or batch")
    limit = MAX_BATCH
    if field == "seq":  # no longer than the model's own context window
        limit = min(MAX_SEQ, spec.max_position_embeddings) if spec.max_position_embeddings > 0 else MAX_SEQ
    at: Callable[[int], int] = lambda v: needed_bytes(spec, dataclasses.replace(settings, **{field: v}))  # noqa: E731
    if at(1) > capacity:
        return None
    if at(limit) <= capacity:
        return limit
    return _bisect(1, limit, lambda v: at(v) <= capacity)[0]  # at(1) fits, at(limit) does not


@dataclass(frozen=True)
class GpusNeeded:
    """The smallest GPU count that fits, how the work is split over them, and the bytes each then holds."""

    gpus: int
    how: str  # in words: "ZeRO-3 over 16 GPUs", "tensor parallelism over 8 GPUs × 2 pipeline stages"
    per_gpu: int
    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1


#: GPUs that one NVLink domain joins (an HGX / DGX node): tensor parallelism stays within them, as it needs the
#: fast links for its all-reduce in every layer; pipeline stages go across nodes (Megatron-LM's practice).
NODE_GPUS = 8


def layout_problems(spec: Spec, settings: RunSettings) -> list[str]:
    """What Megatron-LM and vLLM would refuse in the settings' layout, in words (none: an empty list): tensor
    parallelism that does not split the heads, expert parallelism beyond a stage's GPUs."""
    return [
        problem
        for problem in (experts_beyond_the_run(settings, spec.is_moe), heads_not_split(spec, settings))
        if problem
    ]


def heads_not_split(spec: Spec, settings: RunSettings) -> str:
    """Why the settings' tensor parallelism cannot split this model's attention heads ("" when it can): Megatron-LM
    and vLLM refuse a degree that does not divide them."""
    heads = spec.num_attention_heads if spec.has_attention else 0
    if settings.tp == 1 or not heads or heads % settings.tp == 0:
        return ""
    return (
        f"TP = {settings.tp} does not divide the {heads:,} attention heads (num_attention_heads): Megatron-LM and vLLM "
        "refuse it; the figures split the layers as if it did."
    )


def gpus_needed(spec: Spec, settings: RunSettings, capacity: int, limit: int = 4096) -> GpusNeeded | None:
    """The fewest GPUs of ``capacity`` bytes that hold the run; ``None`` when even ``limit`` GPUs do not.

    Tensor parallelism stays within one node's 8 GPUs, at a degree that divides the attention heads (as Megatron-LM
    and vLLM require); :class:`Layout` splits every matrix, the vocabulary and the KV heads, the norms stay whole.
    Training and fine-tuning: for each degree, ZeRO-3 over the fewest data-parallel groups that fit (with sequence
    parallelism beside tensor parallelism, as Megatron runs them, so the activations split too), as computed by
    :func:`memory`; the layout with the fewest GPUs wins, the smaller degree on a tie. Inference: every tensor-parallel
    degree times the fewest pipeline stages that fit with it (stages within a node too: 3 GPUs as 3 stages); the
    fewest GPUs win, then the fewest stages; for MoE the experts of a stage split over its GPUs (expert
    parallelism).
    """
    heads = spec.num_attention_heads if spec.has_attention else NODE_GPUS
    degrees = [t for t in range(1, NODE_GPUS + 1) if heads % t == 0] or [1]
    if settings.mode != "inference":
        best: GpusNeeded | None = None
        for tp in degrees:
            run = lambda n, tp=tp: dataclasses.replace(  # noqa: E731
                settings, gpus=n, zero=3, tp=tp, pp=1, ep=1, sp=settings.sp or tp > 1
            )
            groups = limit // tp
            if not groups or needed_bytes(spec, run(groups)) > capacity:
                continue
            dp = _bisect(0, groups, lambda n, run=run: needed_bytes(spec, run(n)) > capacity)[1]
            if best is None or tp * dp < best.gpus:
                how = f"ZeRO-3 (parameters, gradients and optimizer state sharded) over {dp} data-parallel GPUs"
                if tp > 1:
                    how = (
                        f"tensor and sequence parallelism over {tp} GPUs (matrices and activations split) × ZeRO-3 "
                        f"over {dp} data-parallel group{'s' if dp > 1 else ''}"
                    )
                best = GpusNeeded(gpus=tp * dp, how=how, per_gpu=needed_bytes(spec, run(dp)), tp=tp, dp=dp)
        return best

    def layout(tp: int, pp: int) -> tuple[int, RunSettings]:
        run = dataclasses.replace(settings, tp=tp, pp=pp, ep=tp if spec.is_moe else 1)
        return needed_bytes(spec, run), run

    experts = ", the experts split over the same GPUs (expert parallelism)" if spec.is_moe else ""
    stages = max(1, min(limit, spec.num_hidden_layers + spec.num_decoder_layers))
    found: list[tuple[int, int, int]] = []  # (GPUs, stages, degree): the fewest GPUs, then the fewest stages
    for tp in degrees:
        most = max(1, min(stages, limit // tp))
        if layout(tp, most)[0] > capacity:
            continue
        pp = _bisect(1, most, lambda pp, tp=tp: layout(tp, pp)[0] > capacity)[1] if layout(tp, 1)[0] > capacity else 1
        found.append((tp * pp, pp, tp))
    if not found:
        return None
    _, pp, tp = min(found)
    ep = tp if spec.is_moe else 1
    how = f"tensor parallelism over {tp} GPUs (matrices, vocabulary and KV heads split; norms whole on each)"
    if pp > 1:
        how = (
            f"tensor parallelism over {tp} GPU{'s' if tp > 1 else ''} in each of {pp} pipeline stages (a stage holds "
            f"ceil(layers/{pp}) layers, the first the embedding, the last the head)"
        )
    return GpusNeeded(gpus=tp * pp, how=how + experts, per_gpu=layout(tp, pp)[0], tp=tp, pp=pp, ep=ep)


#: The precisions of the every-precision table (accelerate's ``estimate-memory`` shows the first five; mxfp4 for a
#: mixture of experts, where it differs from int4).
PRECISIONS = ("fp32", "bf16", "fp8", "int8", "int4", "mxfp4")


def every_precision(spec: Spec, settings: RunSettings) -> dict[str, dict[str, int]]:
    """Inference weights and KV cache (the cache in bf16, fp32 for fp32 weights) per GPU at each precision, and
    what is :func:`needed`."""
    out: dict[str, dict[str, int]] = {}
    for dtype in PRECISIONS:
        if QUANT.get(dtype) and QUANT[dtype].experts_only and not spec.is_moe and dtype != settings.dtype:
            continue  # a dense model's mxfp4 bytes are int4's: shown when chosen
        kv = "fp32" if dtype == "fp32" else "bf16"
        tree = memory(spec, dataclasses.replace(settings, mode="inference", dtype=dtype, kv_dtype=kv))
        out[dtype] = {"weights": tree.get("weights"), "kv_cache": tree.get("kv_cache"), "needed": needed(tree)}
    return out
