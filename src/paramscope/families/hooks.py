"""The readings that are not one config key to one Spec field, each written once and reused by the rows.

A hook takes the reader (``Cfg``) and the values read so far, and sets Spec fields in place.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from paramscope.engine.spec import LIMITS, Spec, SpecError
from paramscope.engine.tree import Node
from paramscope.families.schema import BeyondRow, Cfg, Hook, as_indices, as_int

Values = dict[str, Any]


def _window(window: object) -> int | None:
    """A stated ``sliding_window``: none where it is absent, 0 or a flag."""
    return None if not window or isinstance(window, bool) else as_int("sliding_window", window)


def sliding_window(c: Cfg, d: Values) -> None:
    """Mistral-style windows: ``sliding_window`` unless ``use_sliding_window`` is false (every layer slides)."""
    use = c.get("use_sliding_window")
    window = c.get("sliding_window")
    d["sliding_window"] = None if use is False else _window(window)


def window_stated(c: Cfg, d: Values) -> None:
    """``sliding_window`` as stated (CWM, Mellum, Flint, Kolibri, LFM3: their config classes have no
    ``use_sliding_window``, a file's leftover one is ignored, and the layer types say which layers slide)."""
    d["sliding_window"] = _window(c.get("sliding_window"))


def per_layer(c: Cfg, n: int, allowed: tuple[str, ...], *keys: str) -> list[str] | None:
    """The per-layer list under the first of ``keys`` the config holds (``layer_types`` by default), checked as the
    classes check it: one of ``allowed`` (any name when empty) for each of the ``n`` layers; ``None`` when there is
    no list."""
    keys = keys or ("layer_types",)
    types = c.get(*keys)
    if not isinstance(types, list):
        return None
    if len(types) < n or any(not isinstance(t, str) or (allowed and t not in allowed) for t in types[:n]):
        names = " or ".join(f'"{a}"' for a in allowed) or "a layer type"
        raise SpecError(c.stated(*keys) or keys[0], f"expected {names} for each of the {n} layers")
    return types[:n]


def slide(d: Values, sliding: int, needs_window: str = "") -> None:
    """``sliding`` of the layers attend within the window; with none there is no window at all (0 would mean every
    layer, Mistral style). ``needs_window`` names a family whose sliding layers cannot run without one."""
    d["sliding_window_layers"] = sliding
    if not sliding:
        d["sliding_window"] = None
    elif needs_window and not d["sliding_window"]:
        raise SpecError("sliding_window", f"{needs_window}'s sliding layers need a window: state one")


def sliding_every(
    period: int, first_full: bool = False, key: str = "sliding_window_pattern", needs_window: str = ""
) -> Hook:
    """Sliding and full attention layers: ``layer_types`` names them; without it every ``period``-th layer
    (``sliding_window_pattern`` where the config states one) attends fully and the others slide, as the config
    classes fill ``layer_types`` in (Gemma 2 and gpt-oss every 2nd, Command-R 2, OLMo 3 and EXAONE 4 every 4th,
    Gemma 3 every 6th); with ``first_full`` the full layers are the first of each period (Granite SWA: 0, 4, 8 ...);
    ``key`` names the config's period (AFMoE: ``global_attn_every_n_layers``); ``needs_window`` as for :func:`slide`."""

    def hook(c: Cfg, d: Values) -> None:
        n = d["num_hidden_layers"]
        types = per_layer(c, n, ("sliding_attention", "full_attention"))
        if types is not None:
            sliding = types.count("sliding_attention")
        else:
            every = c.get(key, default=period)
            every = every if isinstance(every, int) and not isinstance(every, bool) and every > 0 else period
            sliding = sum(1 for i in range(n) if (i + (not first_full)) % every)
        slide(d, sliding, needs_window)

    hook.__name__ = hook.__qualname__ = f"sliding_every_{period}" + ("_first" if first_full else "")
    return hook


def gemma4_layers(c: Cfg, d: Values) -> None:
    """Gemma 4, as Gemma4TextConfig fills it in: ``layer_types`` (every sixth layer full by default, the last always
    full); full-attention layers ``global_head_dim`` wide, with ``num_global_key_value_heads`` KV heads when
    ``attention_k_eq_v`` (their values the keys' projection), or as ``per_layer_config`` says (one value per layer
    type); the last ``num_kv_shared_layers`` reuse keys and values (every layer type must come before them), their
    MLPs twice as wide with ``use_double_wide_mlp``; per-layer inputs unless ``hidden_size_per_layer_input`` is 0; an
    MoE block beside every MLP with ``enable_moe_block``."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("sliding_attention", "full_attention"))
    if types is None:
        types = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)]
    types = [*types[:-1], "full_attention"] if types else []
    slide(d, types.count("sliding_attention"), "Gemma 4")
    if d["sliding_window"] and c.get("use_bidirectional_attention") == "all":
        d["sliding_window"] = d["sliding_window"] // 2 + 1  # a window each side
    k_eq_v = bool(d["global_k_eq_v"])
    if not k_eq_v:
        d["global_kv_heads"] = None  # read only with attention_k_eq_v
    overrides = c.get("per_layer_config")
    if isinstance(overrides, Mapping):  # written by transformers in place of global_head_dim
        d["global_head_dim"] = d["global_kv_heads"] = None
        per_type: dict[str, set[tuple[int, int | None]]] = {}
        for i, kind in enumerate(types):
            own = next((v for k, v in overrides.items() if str(k).lstrip("0") == str(i).lstrip("0")), None)
            own = own if isinstance(own, Mapping) else {}
            dims = (as_int("per_layer_config", own.get("head_dim", d["head_dim"])), own.get("num_key_value_heads"))
            per_type.setdefault(kind, set()).add(dims)
        if any(len(v) > 1 for v in per_type.values()):
            raise SpecError("per_layer_config", "layers of one type differ: Gemma 4's rotary embedding refuses it")
        for kind, ((head, kv),) in per_type.items():
            if kind == "sliding_attention":
                d["head_dim"], d["num_key_value_heads"] = head, kv if kv is not None else d["num_key_value_heads"]
            else:
                d["global_head_dim"], d["global_kv_heads"] = head, as_int("per_layer_config", kv) if kv else None
    shared = d["kv_shared_layers"] or 0
    if shared:
        if shared > n or set(types[: n - shared]) != set(types):
            raise SpecError(
                "num_kv_shared_layers",
                "every layer type must come before the layers that share keys and values (Gemma4TextConfig refuses it)",
            )
        d["kv_shared_sliding"] = types[n - shared :].count("sliding_attention")
    d["wide_mlp_layers"] = shared if c.bool("use_double_wide_mlp", default=False) else 0
    if not d["per_layer_input"]:
        d["per_layer_vocab"] = 0
    if c.bool("enable_moe_block", default=False):
        if not d.get("num_experts") or not d.get("moe_intermediate_size"):
            raise SpecError("num_experts", "enable_moe_block needs num_experts and moe_intermediate_size")
        d.update(moe_beside_mlp=True, router_scales=True, moe_norms=3)
    else:
        d["num_experts"] = 0


def gemma3n_layers(c: Cfg, d: Values) -> None:
    """Gemma 3n, as Gemma3nTextConfig fills it in and its classes build it: ``intermediate_size`` one width or one per
    layer (layers of different widths are counted by transformers), ``layer_types`` of exactly num_hidden_layers
    entries (every fifth layer full by default), ``activation_sparsity_pattern`` one value per layer (it sizes
    nothing); the last ``num_kv_shared_layers`` reuse the keys and values of the last earlier layer of their type, as
    ``kv_sharing_modes`` picks them; per-layer inputs, AltUp's streams and LAuReL in every layer. What the class builds
    but no forward pass can run (no AltUp stream, per-layer inputs of width 0 that keep their norms, more layers
    sharing keys and values than there are) is counted by transformers."""
    n = d["num_hidden_layers"]
    widths = c.get("intermediate_size")
    if isinstance(widths, list):
        if len(widths) != n:
            raise SpecError(
                "intermediate_size",
                f"holds {len(widths):,} widths for {n:,} layers (Gemma3nTextConfig takes one, or one per layer)",
            )
        sizes = {as_int("intermediate_size", w) for w in widths}
        if len(sizes) > 1:
            raise BeyondRow("intermediate_size", "layers of different MLP widths")
        d["intermediate_size"] = sizes.pop() if sizes else None
    else:
        d["intermediate_size"] = as_int("intermediate_size", widths) if widths is not None else None
    sparsity = c.get("activation_sparsity_pattern")
    if sparsity is not None and (
        not isinstance(sparsity, list)
        or len(sparsity) != n
        or any(isinstance(x, bool) or not isinstance(x, int | float) for x in sparsity)
    ):
        raise SpecError("activation_sparsity_pattern", f"expected one number for each of the {n:,} layers")
    stated = c.get("layer_types")
    if stated is not None and (not isinstance(stated, list) or len(stated) != n):
        raise SpecError("layer_types", f"expected one entry for each of the {n:,} layers (Gemma3nTextConfig)")
    types = per_layer(c, n, ("sliding_attention", "full_attention"))
    if types is None:
        types = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]
    slide(d, types.count("sliding_attention"), "Gemma 3n")
    shared = d["kv_shared_layers"]
    if shared < 0:
        raise SpecError("num_kv_shared_layers", "must not be negative")
    if shared:
        first = n - shared  # as kv_sharing_modes slices it, negative too
        if set(types[0:first]) != set(types):
            raise SpecError(
                "num_kv_shared_layers",
                "every layer type must come before the layers that share keys and values (Gemma3nTextConfig "
                "refuses it)",
            )
        if shared > n and n:
            raise BeyondRow("num_kv_shared_layers", f"{shared:,} layers sharing keys and values, of {n:,}")
        d["kv_shared_layers"] = min(shared, n)
        d["kv_shared_sliding"] = types[max(first, 0) :].count("sliding_attention")
    if not d["per_layer_input"]:
        raise BeyondRow("hidden_size_per_layer_input", "per-layer inputs of width 0, each layer keeping its norm")
    pad, rows = c.get("pad_token_id"), d["per_layer_vocab"]
    if isinstance(pad, int) and not isinstance(pad, bool) and isinstance(rows, int) and 0 <= rows <= pad:
        raise SpecError(
            "vocab_size_per_layer_input",
            f"{rows:,} rows leave no row for the padding token (pad_token_id = {pad:,}); transformers refuses to "
            "build it",
        )
    if d["altup_num_inputs"] < 1:
        raise BeyondRow("altup_num_inputs", "no AltUp stream (each layer's AltUp keeps its norm and scale)")


#: DeepSeek-V4's layer kinds, and the compress ratio of each in the legacy ``compress_ratios`` lists.
V4_KINDS = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}


def deepseek_v4_layers(c: Cfg, d: Values) -> None:
    """DeepSeek-V4, as DeepseekV4Config fills it in: ``layer_types``, else the legacy ``compress_ratios`` (0, 4 or 128
    per layer), else two heavily compressed layers, then heavily compressed and compressed sparse in turn; the rates
    from ``compress_rates`` (or the legacy ``compress_rate_csa`` / ``compress_rate_hca``)."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, tuple(V4_KINDS.values()))
    ratios = c.get("compress_ratios")
    if types is None and isinstance(ratios, list):
        if len(ratios) < n or any(isinstance(r, bool) or r not in V4_KINDS for r in ratios[:n]):
            raise SpecError("compress_ratios", f"expected 0, 4 or 128 for each of the {n} layers")
        types = [V4_KINDS[r] for r in ratios[:n]]
    if types is None:
        rest = ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention" for i in range(n - 2)]
        types = ["heavily_compressed_attention"] * min(n, 2) + rest
    d["csa_layers"] = types.count("compressed_sparse_attention")
    d["hca_layers"] = types.count("heavily_compressed_attention")
    if not d["sliding_window"]:
        raise SpecError("sliding_window", "DeepSeek-V4 attends within a window in every layer: state one")
    if not d["o_groups"] or d["o_groups"] < 1:
        raise SpecError("o_groups", "the output projection needs at least 1 group")
    rates = c.get("compress_rates")
    rates = rates if isinstance(rates, Mapping) else {}
    for field, legacy, kind, default in (
        ("csa_rate", "compress_rate_csa", "compressed_sparse_attention", 4),
        ("hca_rate", "compress_rate_hca", "heavily_compressed_attention", 128),
    ):
        where = legacy if c.get(legacy) is not None else "compress_rates"
        d[field] = as_int(where, c.get(legacy, default=rates.get(kind, default)))
        if d[field] < 1:
            raise SpecError(where, f"a compress rate must be at least 1 (got {d[field]})")


def v4_buffers(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """DeepSeek-V4's routers keep buffers a checkpoint stores: a correction bias per expert in the learned-routing
    layers, and in the hash-routing layers (the first num_hash_layers, or as mlp_layer_types says) an expert id per
    vocabulary entry and chosen expert (int64)."""
    n = spec.num_hidden_layers
    kinds = config.get("mlp_layer_types")
    if isinstance(kinds, list):
        hashed = kinds[:n].count("hash_moe")
    else:
        legacy = config.get("num_hash_layers")
        hashed = min(n, legacy if isinstance(legacy, int) and not isinstance(legacy, bool) else 3)
    bias = (n - hashed) * spec.num_experts
    ids = hashed * spec.vocab_size * spec.num_experts_per_tok
    return (
        f"router buffers in the checkpoint, not parameters: {bias:,} correction biases (e_score_correction_bias) and "
        f"{ids:,} int64 expert ids of the {hashed} hash-routed layers (tid2eid); its multi-token-prediction layers "
        "are not built by transformers"
    )


def mimo_layers(c: Cfg, d: Values) -> None:
    """MiMo-V2-Flash: ``layer_types`` (by default the first layer and every sixth full, the rest sliding, as
    MiMoV2FlashConfig fills it in); ``sliding_window_size`` is the window less the query's own token."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("sliding_attention", "full_attention"))
    if types is None:
        types = ["full_attention" if i == 0 or not (i + 1) % 6 else "sliding_attention" for i in range(n)]
    size = c.get("sliding_window_size")
    if size is not None:
        d["sliding_window"] = as_int("sliding_window_size", size) + 1
    slide(d, types.count("sliding_attention"), "MiMo-V2-Flash")


def head_dim_stated(c: Cfg, d: Values) -> None:
    """The attention reads ``head_dim`` without a fallback (HunYuan MoE, Ministral): it must be stated."""
    if c.get("head_dim") is None:
        raise SpecError("head_dim", "the class has no default for it (it would not build): state the width of a head")


def helium_output_width(c: Cfg, d: Values) -> None:
    """Helium: ``o_proj`` is hidden_size × hidden_size whatever the heads give it (HeliumAttention), so heads ×
    head_dim other than hidden_size is built by transformers but cannot run: counted by transformers."""
    heads, width, head_dim = d.get("num_attention_heads"), d.get("hidden_size"), d.get("head_dim")
    if not isinstance(heads, int) or heads <= 0 or not isinstance(width, int):
        return
    head_dim = head_dim if head_dim is not None else width // heads
    if heads * head_dim != width:
        key = c.stated("head_dim") or "num_attention_heads"
        raise BeyondRow(
            key,
            f"num_attention_heads × head_dim ({heads:,} × {head_dim:,}) is not hidden_size ({width:,}), which "
            "HeliumAttention's o_proj reads (transformers builds it, though no forward pass can run)",
        )


def mla_qk_head_dim(c: Cfg, d: Values) -> None:
    """LongCat-Flash: ``qk_head_dim`` (default qk_nope_head_dim + qk_rope_head_dim) sizes ``q_b_proj``; any other
    value is built by transformers but cannot run (each query is split into its nope and rope parts): counted by
    transformers."""
    stated = c.int("qk_head_dim")
    nope, rope = d.get("qk_nope_head_dim") or 0, d.get("qk_rope_head_dim") or 0
    if stated is not None and stated != nope + rope:
        raise BeyondRow(
            "qk_head_dim",
            f"{stated:,} is not qk_nope_head_dim + qk_rope_head_dim ({nope:,} + {rope:,}), the parts each query of "
            "q_b_proj is split into (transformers builds it, though no forward pass can run)",
        )


def logit_softcap(c: Cfg, d: Values) -> None:
    """Gemma 2 and later: the final logits are soft-capped (tanh) when ``final_logit_softcapping`` is set; the memory
    estimate keeps the tanh's output."""
    d["logit_softcap"] = c.get("final_logit_softcapping") is not None


def same_biases(c: Cfg, d: Values) -> None:
    """InternLM3: transformers' Llama classes build it, so its config refuses ``qkv_bias`` different from ``bias``."""
    if d["attention_bias"] != d["mlp_bias"]:
        raise SpecError(
            c.stated("qkv_bias", "attention_bias") or "qkv_bias", "InternLM3Config refuses it different from bias"
        )


def sliding_layer_types(c: Cfg, d: Values) -> None:
    """Ministral: ``layer_types`` names the sliding layers; without it every layer slides when ``sliding_window`` is
    set (as MinistralConfig fills the list in)."""
    types = per_layer(c, d["num_hidden_layers"], ("sliding_attention", "full_attention"))
    if types is not None:
        slide(d, types.count("sliding_attention"))


def named_sliding_layers(c: Cfg, d: Values) -> None:
    """Mellum: ``layer_types`` names the sliding layers; without it none slide (MellumConfig fills the list with
    full attention)."""
    types = per_layer(c, d["num_hidden_layers"], ("sliding_attention", "full_attention"))
    slide(d, types.count("sliding_attention") if types is not None else 0)


def glm5_indexers(c: Cfg, d: Values) -> None:
    """GLM-5: every layer runs its own DeepSeek-V3.2 indexer unless ``indexer_types`` (or ``index_topk_pattern``, or
    ``index_topk_freq`` with ``index_skip_topk_offset``) makes some layers reuse the previous layer's choice; those
    layers have no indexer, which no row describes yet."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("full", "shared"), "indexer_types")
    if types is None:
        pattern = c.get("index_topk_pattern")
        if isinstance(pattern, str):
            types = ["shared" if ch == "S" else "full" for ch in pattern[:n]]
        elif isinstance(pattern, list):
            types = ["shared" if t == "shared" else "full" for t in pattern[:n]]
        else:
            freq = max(c.int("index_topk_freq", default=1), 1)
            offset = c.int("index_skip_topk_offset", default=2)
            types = ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(n)]
    if "shared" in types:
        raise BeyondRow(
            c.stated("indexer_types", "index_topk_pattern", "index_topk_freq") or "indexer_types",
            f"{types.count('shared')} layer(s) reuse the previous layer's indexer (no indexer of their own)",
        )


def flint_layers(c: Cfg, d: Values) -> None:
    """Flint, as FlintConfig fills it in: ``layer_types``, else full attention on the first two layers, on every
    fourth from the second and on the last, sliding elsewhere; ``mlp_only_layers`` (by default the first two) and the
    layers ``decoder_sparse_step`` skips hold a dense MLP, the others routed experts."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("sliding_attention", "full_attention"))
    if types is None:
        types = ["full_attention" if i < 2 or i % 4 == 1 or i == n - 1 else "sliding_attention" for i in range(n)]
    slide(d, types.count("sliding_attention"))
    sparse_step(c, d, default_only=(0, 1))


def ungated_shared_expert(c: Cfg, d: Values) -> None:
    """Flint, Kolibri: one shared expert ``shared_expert_intermediate_size`` wide beside the routed ones, added in
    full (no gate), whenever it has a width."""
    d["num_shared_experts"] = 1 if d.get("shared_expert_intermediate_size") else 0


def gpt_neo_layers(c: Cfg, d: Values) -> None:
    """GPT-Neo: ``attention_types`` (``[[["global", "local"], 12]]`` by default) expands to one type per layer, as
    GPTNeoConfig expands it, unless the file states that list itself (``attention_layers``, which transformers then
    keeps); the local layers attend within ``window_size`` tokens."""
    n = d["num_hidden_layers"]
    stated = c.get("attention_layers")  # the expanded list, as config.json files also hold it: it wins
    if isinstance(stated, list):
        if len(stated) != n:
            raise SpecError("attention_layers", f"holds {len(stated)} layers; num_layers is {n}")
        types = per_layer(c, n, ("global", "local"), "attention_layers") or []
    else:
        spec = c.get("attention_types")
        spec = [[["global", "local"], 12]] if spec is None else spec
        types = []
        for item in spec if isinstance(spec, list) else [None]:
            kinds, times = item if isinstance(item, list) and len(item) == 2 else (None, None)
            if not isinstance(kinds, list) or any(k not in ("global", "local") for k in kinds):
                raise SpecError("attention_types", 'expected [[["global", "local"], times], ...]')
            types += kinds * as_int("attention_types", times)
        if len(types) != n:
            raise SpecError("attention_types", f"expands to {len(types)} layers; num_layers is {n}")
    d["sliding_window"] = c.int("window_size")
    slide(d, types.count("local"), needs_window="GPT-Neo")


def olmo_hybrid_layers(c: Cfg, d: Values) -> None:
    """OLMo Hybrid, as OlmoHybridConfig fills it in: ``layer_types``, else every fourth layer full attention and the
    others Gated DeltaNet, the last layer full where that leaves none."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("linear_attention", "full_attention"))
    if types is None:
        types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(n)]
        if n and "full_attention" not in types:
            types[-1] = "full_attention"
    linear = types.count("linear_attention")
    if not 0 < linear < n:  # as OlmoHybridConfig refuses it
        raise SpecError(
            c.stated("layer_types") or "num_hidden_layers", "needs a linear-attention and an attention layer"
        )
    d["linear_attention_layers"] = linear


def gemma4_nominal_image(c: Cfg, d: Values) -> None:
    """Gemma 4's vision tower takes images of any size, up to 280 pooled tokens (the processor's max_soft_tokens) of
    ``pooling_kernel_size`` x ``pooling_kernel_size`` patches each; the nominal image is the largest square within
    that: 16 x 16 tokens (768 px at patch_size 16 and a 3 x 3 pool)."""
    k = c.int("pooling_kernel_size", default=3)
    if k < 1:
        raise SpecError("pooling_kernel_size", f"must be at least 1 (got {k})")
    d["image_size"] = 16 * k * (d["patch_size"] or 0)


def _conformer(c: Cfg, d: Values, prefix: str, kernel: str, floor_left: bool = False) -> None:
    """A Conformer's checks and window (Gemma 4's and Gemma 3n's audio towers): the attention reads blocks of
    ``{prefix}attention_chunk_size`` frames against ``{prefix}attention_context_left - 1`` frames before them (at
    least 0 where ``floor_left``: Gemma 3n's) and ``{prefix}attention_context_right`` after (the sliding window: chunk
    + left - 1 + right keys). What transformers builds but cannot run, it counts: heads that do not divide the width
    (q, k and v narrower than the output projection reads), a convolution of no taps, a window of no frames."""
    heads, width = d["num_attention_heads"], d["hidden_size"]
    if isinstance(heads, int) and heads > 0 and isinstance(width, int) and width % heads:
        raise BeyondRow(
            f"{prefix}num_attention_heads",
            f"{heads} does not divide hidden_size {width:,}: transformers builds q, k and v {heads} × "
            f"{width // heads} wide, which its output projection ({width:,} wide) cannot read",
        )
    if d["conv_module_kernel"] == 0:
        raise BeyondRow(kernel, "a convolution of no taps: transformers builds it but cannot run it")
    names = (f"{prefix}attention_chunk_size", f"{prefix}attention_context_left", f"{prefix}attention_context_right")
    chunk, left, right = (c.int(name, default=0) for name in names)
    past = max(0, left - 1) if floor_left else left - 1
    window = chunk + past + right
    if chunk < 1 or window < 1:
        raise BeyondRow(
            names[0],
            f"blocks of {chunk} frames against a context of {window} frames: transformers builds it but cannot run it",
        )
    d["sliding_window"] = window
    # the relative positions whose keys are projected: Gemma 3n's the window's span past and future, Gemma 4's half
    # its window
    d["relative_positions"] = past + right + 1 if floor_left else window // 2 + 1


def gemma4_audio(c: Cfg, d: Values) -> None:
    """Gemma 4's audio tower (Gemma4AudioConfig): the subsampling convolutions' channels are the first two of
    ``subsampling_conv_channels`` (transformers reads no more, and cannot build fewer), each convolution 3 x 3, and the
    projection reads ``subsampling_conv_channels[0] // 4`` bins by the second's channels; the attention as
    :func:`_conformer` reads it."""
    key = "subsampling_conv_channels"
    channels = c.get(key)
    if not isinstance(channels, list) or len(channels) < 2:
        raise SpecError(key, "expected a list of two channel counts (the two subsampling convolutions)")
    first, second = (as_int(key, n) for n in channels[:2])
    if first < 0 or second < 0:
        raise SpecError(key, f"channel counts must not be negative (got {first}, {second})")
    d["subsampling_channels"], d["subsampling_out_channels"] = first, second
    d["subsampling_taps"] = d["subsampling_out_taps"] = 9
    d["subsampling_freq"] = first // 4
    _conformer(c, d, "", "conv_kernel_size")


def _pairs(c: Cfg, key: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The first two (time, frequency) pairs of a Gemma 3n subsampling list (``sscp_conv_kernel_size``)."""
    value = c.get(key)
    if not isinstance(value, list) or len(value) < 2:
        raise SpecError(key, "expected a list of two [time, frequency] pairs (the two subsampling convolutions)")
    out = []
    for pair in value[:2]:
        if not isinstance(pair, list) or len(pair) != 2:
            raise SpecError(key, f"expected [time, frequency] pairs, got {json.dumps(pair)[:40]}")
        a, b = (as_int(key, n) for n in pair)
        if max(abs(a), abs(b)) > 4_096:
            raise SpecError(key, f"each size must be at most 4,096 (got {a:,}, {b:,})")
        out.append((a, b))
    return out[0], out[1]


def gemma3n_audio(c: Cfg, d: Values) -> None:
    """Gemma 3n's audio encoder (Gemma3nAudioConfig): the subsampling convolutions' channels are the first two of
    ``sscp_conv_channel_size``, their kernels (height x width taps) the first two pairs of ``sscp_conv_kernel_size``;
    the projection reads the frequency bins the convolutions leave of ``input_feat_size`` (each padded by one bin a
    side: (bins + 2 - kernel width) // stride width + 1, twice, as transformers computes it) by the last channel count
    listed (the second, unless
    more are listed: then transformers builds a projection the convolutions cannot feed, and counts it). The attention
    as :func:`_conformer` reads it, its keys prefixed ``conf_``."""
    key = "sscp_conv_channel_size"
    channels = c.get(key)
    if not isinstance(channels, list) or len(channels) < 2:
        raise SpecError(key, "expected a list of two channel counts (the two subsampling convolutions)")
    first, second, last = (as_int(key, n) for n in (*channels[:2], channels[-1]))
    if min(first, second, last) < 0:
        raise SpecError(key, f"channel counts must not be negative (got {json.dumps(channels)[:40]})")
    kernels, strides = _pairs(c, "sscp_conv_kernel_size"), _pairs(c, "sscp_conv_stride_size")
    if min(*kernels[0], *kernels[1]) < 0:
        raise SpecError("sscp_conv_kernel_size", "a kernel size must not be negative: transformers cannot build it")
    if 0 in (strides[0][1], strides[1][1]):
        raise SpecError("sscp_conv_stride_size", "a frequency stride of 0: transformers cannot build it")
    bins = c.int("input_feat_size", default=0)
    if not 0 <= bins <= 1_048_576:
        raise SpecError("input_feat_size", f"must be between 0 and 1,048,576, got {bins:,}")
    f0 = (bins + 2 - kernels[0][1]) // strides[0][1] + 1
    f1 = (f0 + 2 - kernels[1][1]) // strides[1][1] + 1
    if f1 < 0:
        raise SpecError(
            "input_feat_size",
            f"{bins} bins leave {f1} after the subsampling convolutions: transformers cannot build the projection",
        )
    if min(*kernels[0], *kernels[1]) < 1 or min(*strides[0], *strides[1]) < 1:
        raise BeyondRow(
            "sscp_conv_kernel_size" if min(*kernels[0], *kernels[1]) < 1 else "sscp_conv_stride_size",
            "a subsampling convolution of no taps or a stride below 1: transformers builds it but cannot run it",
        )
    if len(channels) > 2 and last != second:
        raise BeyondRow(
            key,
            f"the projection reads the last channel count listed ({last:,}) but the second convolution gives {second:,}"
            ": transformers builds it but cannot run it",
        )
    if f0 < 1 or f1 < 1:
        raise BeyondRow(
            "input_feat_size",
            f"{bins} bins leave {min(f0, f1)} after a subsampling convolution: transformers builds it, cannot run it",
        )
    d["subsampling_channels"], d["subsampling_out_channels"] = first, second
    d["subsampling_taps"], d["subsampling_out_taps"] = kernels[0][0] * kernels[0][1], kernels[1][0] * kernels[1][1]
    d["subsampling_freq"] = f1
    _conformer(c, d, "conf_", "conf_conv_kernel_size", floor_left=True)


def phi4_multimodal_audio(c: Cfg, d: Values) -> None:
    """Phi-4-multimodal's audio tower (Phi4MultimodalAudioConfig): NeMo's subsampling runs int(log2(time_reduction))
    stride-2 stages (the config refuses an odd time_reduction; log2 of 0 fails), each halving the frequency bins of
    ``input_size`` as ``floor((bins - 1) / 2 + 1)`` (the config's ``nemo_final_size``, which a file stating it keeps);
    the relative-position table holds ``bias_max_distance`` rows for each side (one side when ``bias_symmetric``);
    the attention reads the whole clip (no sliding window: ``chunk_size`` -1). What transformers builds but cannot
    run, it counts: a convolution of no taps, a depthwise multiplier of 0, no relative distances."""
    reduction = c.int("time_reduction", default=8)
    if reduction % 2:
        raise SpecError("time_reduction", f"must be a multiple of 2 (got {reduction}): the config refuses it")
    if not 0 < reduction <= 2**20:
        raise SpecError("time_reduction", f"must be between 2 and {2**20:,} (got {reduction:,}): log2 of it is taken")
    stages = int(math.log2(reduction))
    bins = c.int("input_size", default=80)
    stated = c.data.get("nemo_final_size")
    if stated is not None:
        final = as_int("nemo_final_size", stated)
    else:
        if not 0 <= bins <= 1_048_576:
            raise SpecError("input_size", f"must be between 0 and 1,048,576, got {bins:,}")
        final = bins
        for _ in range(stages):
            final = math.floor((final - 1) / 2 + 1)
    if final < 0:
        raise SpecError(
            c.stated("nemo_final_size") or "input_size",
            f"leaves {final} frequency bins: transformers cannot build the subsampling's projection",
        )
    channels = d["subsampling_channels"]
    if isinstance(channels, int) and channels < 1:
        raise SpecError("nemo_conv_channels", f"must be at least 1 (got {channels}): transformers cannot build it")
    distance = c.int("bias_max_distance", default=1000)
    if distance < 0:
        raise SpecError("bias_max_distance", f"must not be negative (got {distance}): the table cannot be built")
    heads = d["num_attention_heads"]
    if isinstance(heads, int) and heads < 1:
        raise SpecError("num_attention_heads", f"must be at least 1 (got {heads}): the head width divides by it")
    for key, field in (("kernel_size", "conv_module_kernel"), ("depthwise_multiplier", "conv_depthwise_multiplier")):
        if isinstance(d[field], int) and d[field] < 0:
            raise SpecError(key, f"must not be negative (got {d[field]}): transformers cannot build it")
    if d["conv_module_kernel"] == 0 or d["conv_depthwise_multiplier"] == 0 or distance == 0:
        key = "kernel_size" if d["conv_module_kernel"] == 0 else "depthwise_multiplier"
        key = "bias_max_distance" if distance == 0 else key
        raise BeyondRow(key, "0: transformers builds it but cannot run it")
    d["subsampling_stages"] = stages
    d["subsampling_out_channels"] = channels
    d["subsampling_taps"] = 9
    d["subsampling_freq"] = final
    d["relative_attention_num_buckets"] = distance if c.bool("bias_symmetric", default=False) else 2 * distance
    # no position table: the frames of a 30 s clip (10 ms mel frames, time_reduction of them a token) are nominal
    d["max_position_embeddings"] = 3000 // reduction


def siglip2_nominal_image(c: Cfg, d: Values) -> None:
    """SigLIP 2 takes images of any shape up to ``num_patches`` patches; the nominal image is the square grid its
    position table is resized from: int(sqrt(num_patches)) patches a side (16 x 16 at the default 256)."""
    d["image_size"] = math.isqrt(d["max_position_embeddings"] or 0) * (d["patch_size"] or 0)


def sinusoid_width(c: Cfg, d: Values) -> None:
    """XGLM builds its sinusoidal positions with a step of log(10000) / (hidden_size // 2 - 1): a width under 4 cannot
    be built (transformers divides by zero)."""
    if d["hidden_size"] is not None and d["hidden_size"] < 4:
        raise SpecError(
            "hidden_size", f"XGLM's sinusoidal positions need a width of at least 4 (got {d['hidden_size']})"
        )


def q_lora_stated(c: Cfg, d: Values) -> None:
    """A.X K1: the config class takes no null ``q_lora_rank`` (its queries always pass the low-rank projection)."""
    if d.get("q_lora_rank") is None:
        raise SpecError("q_lora_rank", "AXK1Config needs a number: its queries always pass the low-rank projection")


def sparse_without_experts(c: Cfg, d: Values) -> None:
    """Mellum, Kolibri: a sparse layer stays a (parameter-free) expert block when there are no experts, which no row
    describes (Qwen3-MoE falls back to a dense MLP instead)."""
    dense = len(d.get("mlp_only_layers") or ())
    if d.get("num_experts") == 0 and d["num_hidden_layers"] > dense:
        raise BeyondRow(c.stated("num_local_experts", "num_experts") or "num_experts", "sparse layers without experts")


def axk1_mlp_layers(c: Cfg, d: Values) -> None:
    """A.X K1, as AXK1Config fills it in: ``mlp_layer_types``, else layer i holds experts when it is at least
    ``first_k_dense_replace`` (1) and a multiple of ``moe_layer_freq`` (1)."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("dense", "sparse"), "mlp_layer_types")
    if types is None:
        first = c.int("first_k_dense_replace", default=1)
        freq = c.int("moe_layer_freq", default=1)
        if freq < 1:
            raise SpecError("moe_layer_freq", f"must be at least 1 (got {freq})")
        types = ["sparse" if i >= first and i % freq == 0 else "dense" for i in range(n)]
    d["mlp_only_layers"] = tuple(i for i, t in enumerate(types) if t == "dense")
    d["first_k_dense_replace"] = 0


def cross_attention_beyond(c: Cfg, d: Values) -> None:
    """GPT-2, GPT-BigCode, XGLM, BERT, RoBERTa, XLM-R, ELECTRA: ``add_cross_attention`` adds a cross-attention block
    and its norm to every layer (a decoder for an encoder-decoder wrapper), which no row describes."""
    if c.bool("add_cross_attention", default=False):
        raise BeyondRow("add_cross_attention", "cross-attention in every layer (a decoder for an encoder-decoder)")


#: MllamaTextConfig's cross-attention layers when the file leaves ``cross_attention_layers`` out (or null).
MLLAMA_CROSS_LAYERS = [3, 8, 13, 18, 23, 28, 33, 38]
#: MllamaVisionConfig's aspect ratios when the file leaves ``supported_aspect_ratios`` out (for 4 tiles).
MLLAMA_ASPECT_RATIOS = [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]]


def mllama_cross_layers(c: Cfg, d: Values) -> None:
    """Mllama's language model: the layers ``cross_attention_layers`` lists (an index the stack does not have
    names none) attend to the vision tower's states, each with q/k norms and two tanh gates."""
    listed = c.get("cross_attention_layers")
    indices = as_indices("cross_attention_layers", MLLAMA_CROSS_LAYERS if listed is None else listed)
    d["cross_attn_layers"] = sum(1 for i in indices if 0 <= i < d["num_hidden_layers"])


def mllama_vision(c: Cfg, d: Values) -> None:
    """Mllama's vision tower: the local transformer's ``num_hidden_layers`` and the global transformer's
    ``num_global_layers`` (two tanh gates each) are one stack of layers built alike; the tile tables have a row per
    supported aspect ratio and one more (``supported_aspect_ratios``; the default list, stated or not, needs
    ``max_num_tiles`` 4, as MllamaVisionConfig.validate_architecture checks)."""
    ratios = c.get("supported_aspect_ratios")
    ratios = MLLAMA_ASPECT_RATIOS if ratios is None else ratios
    if ratios == MLLAMA_ASPECT_RATIOS and d["max_num_tiles"] != 4:
        raise SpecError(
            "max_num_tiles",
            f"must be 4 with the default supported_aspect_ratios (got {d['max_num_tiles']:,}; MllamaVisionConfig "
            "refuses another): state other supported_aspect_ratios for more tiles",
        )
    if not isinstance(ratios, list) or not all(isinstance(r, list) for r in ratios):
        raise SpecError("supported_aspect_ratios", "expected a list of [width, height] tile counts")
    if len(ratios) > 65_536:
        raise SpecError("supported_aspect_ratios", f"{len(ratios):,} ratios is more than the supported 65,536")
    d["tile_ratios"] = len(ratios)
    if d["max_num_tiles"] < 1:
        raise SpecError("max_num_tiles", f"must be at least 1 (got {d['max_num_tiles']})")
    layers = {}
    for key, default in (("num_hidden_layers", 32), ("num_global_layers", 8)):
        layers[key] = c.int(key, default=default)
        if not 0 <= layers[key] <= 100_000:
            raise SpecError(key, f"must be between 0 and 100,000 (got {layers[key]:,})")
    d["gated_layers"] = layers["num_global_layers"]
    d["num_hidden_layers"] = layers["num_hidden_layers"] + layers["num_global_layers"]


def heads_divide_width(c: Cfg, d: Values) -> None:
    """BLIP-2's attention modules refuse a width their heads do not divide (the config classes do not check it)."""
    heads, width = d.get("num_attention_heads"), d.get("hidden_size")
    if isinstance(heads, int) and heads > 0 and isinstance(width, int) and width % heads:
        key = c.stated("num_attention_heads") or "num_attention_heads"
        raise SpecError(key, f"{heads:,} does not divide hidden_size {width:,}; the attention refuses to build")


def qformer_layers(c: Cfg, d: Values) -> None:
    """BLIP-2's Q-Former: cross-attention in layer 0 and every ``cross_attention_frequency``-th layer after it
    (transformers divides the layer index by it: 0 is refused), its keys and values ``encoder_hidden_size`` wide."""
    if d["cross_attention_frequency"] < 1:
        key = c.stated("cross_attention_frequency") or "cross_attention_frequency"
        raise SpecError(
            key, f"must be at least 1 (got {d['cross_attention_frequency']:,}): each layer's index is divided by it"
        )
    if d["encoder_hidden_size"] < 1:
        key = c.stated("encoder_hidden_size") or "encoder_hidden_size"
        raise SpecError(key, f"must be at least 1 (got {d['encoder_hidden_size']:,})")
    heads_divide_width(c, d)


def iquestcoder_options(c: Cfg, d: Values) -> None:
    """IQuestCoder: IQuestCoderConfig refuses ``use_sliding_window`` and ``clip_qkv`` (no released checkpoint uses
    them)."""
    if c.data.get("use_sliding_window"):
        raise SpecError("use_sliding_window", "IQuestCoderConfig does not support it")
    if c.data.get("clip_qkv") is not None:
        raise SpecError("clip_qkv", "IQuestCoderConfig does not support it")


def mlp_ratio(c: Cfg, d: Values) -> None:
    """Qwen2-VL's vision tower: the MLP is ``mlp_ratio`` x embed_dim wide."""
    ratio = c.int("mlp_ratio", default=4)  # a whole number, as Qwen2VLVisionConfig types it
    if ratio < 1:
        raise SpecError("mlp_ratio", f"must be at least 1 (got {ratio})")
    d["intermediate_size"] = d["hidden_size"] * ratio if d["hidden_size"] is not None else None


def dinov2(c: Cfg, d: Values) -> None:
    """DINOv2: the MLP is ``mlp_ratio`` x hidden_size wide, or with ``use_swiglu_ffn`` a gated SiLU MLP of two
    thirds of that rounded up to a multiple of 8 (biases either way); a mask token unless ``use_mask_token`` is
    false."""
    ratio = c.int("mlp_ratio", default=4)  # a whole number, as Dinov2Config types it
    if ratio < 1:
        raise SpecError("mlp_ratio", f"must be at least 1 (got {ratio})")
    width = d["hidden_size"] * ratio if d["hidden_size"] is not None else None
    d["mlp_gated"] = c.bool("use_swiglu_ffn", default=False)
    if d["mlp_gated"] and width is not None:
        width = (int(width * 2 / 3) + 7) // 8 * 8
        d["hidden_act"] = "silu"
    d["intermediate_size"] = width
    d["mask_token"] = c.bool("use_mask_token", default=True)


def dinov2_registers(c: Cfg, d: Values) -> None:
    """DINOv2 with registers: DINOv2's MLP; its config has no ``use_mask_token`` (the class always builds the mask
    token)."""
    dinov2(c, d)
    d["mask_token"] = True


def dinov3_biases(c: Cfg, d: Values) -> None:
    """DINOv3: a bias on the value projection exactly where the query has one (the row's one switch for both; the
    key's is its own, when they have one); a config that sets them apart otherwise is counted by transformers."""
    if c.bool("value_bias", default=True) != d["attention_bias"]:
        raise BeyondRow(c.stated("value_bias") or "value_bias", "a value bias unlike the query's")
    if d["key_bias"] and not d["attention_bias"]:
        raise BeyondRow("key_bias", "a key bias without query and value biases")


def internvl_vision(c: Cfg, d: Values) -> None:
    """InternVL's tower: ``image_size`` and ``patch_size`` as [height, width] pairs (square here), ``norm_type``
    ("layer_norm" with biases or "rms_norm"), RMSNorms over the full query and key width with ``use_qk_norm``, the
    position table unless ``use_absolute_position_embeddings`` is false, a final LayerNorm
    unless ``use_mean_pooling`` (after RMSNorm layers no row describes it: counted by transformers)."""
    for key in ("image_size", "patch_size"):
        value = c.get(key)
        sides = value if isinstance(value, list) else [value, value]
        if len(sides) != 2 or sides[0] != sides[1]:
            raise SpecError(key, f"only square images and patches are described here (got {str(value)[:40]})")
        d[key] = as_int(key, sides[0])
        if d[key] == 0:  # the class still builds its patch convolution (and divides by the patch size)
            raise SpecError(key, "0 is not described here: InternVL's vision tower still builds a patch embedding")
    kind = c.get("norm_type")
    if kind not in ("layer_norm", "rms_norm"):
        raise SpecError("norm_type", f'expected "layer_norm" or "rms_norm", got {str(kind)[:40]}')
    d["norm_type"] = "layernorm" if kind == "layer_norm" else "rmsnorm"
    d["qk_norm"] = "full" if c.bool("use_qk_norm", default=False) else "none"
    d["qk_norm_bias"] = False  # its q/k norms are RMSNorms whatever norm_type says
    if not c.bool("use_absolute_position_embeddings", default=True):
        d["position_embedding"] = "none"
    if c.bool("use_mask_token", default=False):
        raise BeyondRow("use_mask_token", "a learned mask token for masked-image pretraining")
    d["final_norm"] = not c.bool("use_mean_pooling", default=True)
    if d["final_norm"] and kind == "rms_norm":
        raise BeyondRow(c.stated("use_mean_pooling") or "use_mean_pooling", "a LayerNorm after RMSNorm layers")


def doge_cdmoe(c: Cfg, d: Values) -> None:
    """Doge: ``is_moe`` swaps the MLP for a cross-domain mixture of experts (product-key expert embeddings), which no
    row describes."""
    if c.bool("is_moe", default=False):
        raise BeyondRow("is_moe", "a cross-domain mixture of experts (product-key expert embeddings)")


def merger_mlp_width(c: Cfg, d: Values) -> None:
    """GLM-4V's tower: a merger MLP of no width (intermediate_size 0) is counted by transformers (no row describes a
    merger without its MLP)."""
    if not d.get("merger_mlp"):
        raise BeyondRow(c.stated("intermediate_size") or "intermediate_size", "a merger without its MLP")


def laguna_attention(c: Cfg, d: Values) -> None:
    """Laguna: ``num_attention_heads_per_layer`` (every layer the same here: layers of their own head counts are
    counted by transformers), a gate per head on the attention output (``gating`` true or "per-head") or one per
    channel (otherwise, g_proj heads x head_dim wide)."""
    n = d["num_hidden_layers"]
    per_layer_heads = c.get("num_attention_heads_per_layer")
    if isinstance(per_layer_heads, list):
        if len(per_layer_heads) != n:
            raise SpecError("num_attention_heads_per_layer", f"holds {len(per_layer_heads)} layers; there are {n}")
        if len(set(per_layer_heads)) > 1:
            raise BeyondRow("num_attention_heads_per_layer", "layers with different numbers of heads")
        if per_layer_heads:
            d["num_attention_heads"] = as_int("num_attention_heads_per_layer", per_layer_heads[0])
    gating = c.get("gating", default=True)
    per_head = gating is True or gating == "per-head"
    d["attention_head_gate"], d["attention_gate_proj"] = per_head, not per_head
    if c.bool("moe_apply_router_weight_on_input", default=False):
        raise SpecError("moe_apply_router_weight_on_input", "transformers' Laguna does not support it")


def post_norms(c: Cfg, d: Values) -> None:
    """HyperCLOVA X: ``use_post_norm`` adds an RMSNorm after attention and after the MLP (four norms a layer)."""
    d["norms_per_layer"] = 4 if c.bool("use_post_norm", default=True) else 2


def cohere2_moe_layers(c: Cfg, d: Values) -> None:
    """Command A MoE: ``mlp_layer_types`` ("dense" / "sparse") or the first ``first_k_dense_replace`` layers hold a
    dense MLP; without ``layer_types`` the dense prefix slides by ``prefix_dense_sliding_window_pattern`` and the rest
    by ``sliding_window_pattern`` (and ``first_k_dense_replace`` must lie between 0 and the layer count, or the
    config lays out another number of layer types and refuses itself); the norm is an RMSNorm when ``rms_norm_eps`` is
    set (a weight either way)."""
    n = d["num_hidden_layers"]
    mlp_types = per_layer(c, n, ("dense", "sparse"), "mlp_layer_types")
    types = per_layer(c, n, ("sliding_attention", "full_attention"))
    first = d["first_k_dense_replace"] or 0
    if types is None and not 0 <= first <= n:
        # Cohere2MoeConfig lays out first_k_dense_replace prefix layer types and num_hidden_layers - k others
        raise SpecError(
            "first_k_dense_replace",
            f"must be between 0 and num_hidden_layers ({n}) without layer_types, got {first} "
            "(Cohere2MoeConfig refuses it)",
        )
    first = min(first, n)
    dense = tuple(i for i, t in enumerate(mlp_types) if t == "dense") if mlp_types else tuple(range(first))
    d["mlp_only_layers"] = dense
    d["first_k_dense_replace"] = 0
    if types is not None:
        slide(d, types.count("sliding_attention"))
    else:
        prefix, rest = (
            as_int(k, c.get(k, default=v))
            for k, v in (("prefix_dense_sliding_window_pattern", 1), ("sliding_window_pattern", 4))
        )
        if prefix < 1 or rest < 1:
            raise SpecError("sliding_window_pattern", "a pattern of full-attention layers must be at least 1")
        slide(d, sum(1 for i in range(first) if (i + 1) % prefix) + sum(1 for i in range(n - first) if (i + 1) % rest))
    if c.get("rms_norm_eps") is not None:
        d["norm_type"] = "rmsnorm"


def modernbert_local_attention(c: Cfg, d: Values) -> None:
    """ModernBERT: ``layer_types`` names each layer "full_attention" or "sliding_attention"; without it every
    ``global_attn_every_n_layers``-th layer from the first attends globally and the others see ``local_attention``
    tokens around each query (what the FLOPs count; encoders keep no cache)."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("sliding_attention", "full_attention"))
    if types is not None:
        sliding = types.count("sliding_attention")
    else:
        every = c.int("global_attn_every_n_layers", default=3)
        if every < 1:
            raise SpecError("global_attn_every_n_layers", f"must be at least 1 (got {every})")
        sliding = sum(1 for i in range(n) if i % every)
    window = c.int("local_attention", default=128)
    d["sliding_window"], d["sliding_window_layers"] = (window, sliding) if sliding and window > 0 else (None, 0)


def rope_factors(c: Cfg, d: Values) -> None:
    """Phi-3 LongRoPE: ``short_factor`` and ``long_factor`` hold one entry per rotary frequency, (head size ×
    partial_rotary_factor) // 2 of them; transformers refuses any other length (so a head-size edit needs new
    factors)."""
    rope = c.get("rope_parameters") or c.get("rope_scaling")
    if not isinstance(rope, dict) or not d.get("num_attention_heads"):
        return
    partial = rope.get("partial_rotary_factor", c.get("partial_rotary_factor", default=1.0))
    if not isinstance(partial, (int, float)) or isinstance(partial, bool):
        return
    # checked twice by transformers: over hidden_size // heads (Phi3Config) and over head_dim (the rope utilities)
    sizes = {
        d["hidden_size"] // d["num_attention_heads"],
        d.get("head_dim") or d["hidden_size"] // d["num_attention_heads"],
    }
    for key in ("short_factor", "long_factor"):
        factors = rope.get(key)
        for size in sorted(sizes):
            wanted = int(size * partial) // 2
            if isinstance(factors, list) and len(factors) != wanted:
                raise SpecError(
                    "rope_scaling",
                    f"{key} has {len(factors)} entries but a head of {size} has {wanted} rotary frequencies; "
                    "transformers refuses it (a head-size edit of a LongRoPE model needs new factors)",
                )


def query_scale(c: Cfg, d: Values) -> None:
    """Gemma 2 and 3 scale their queries by ``query_pre_attn_scalar ** -0.5``: read, so that a 0, with which
    transformers cannot build the attention, is refused (schema.ZERO_KEYS); it sizes nothing."""
    c.get("query_pre_attn_scalar")


def llama4_layers(c: Cfg, d: Values) -> None:
    """Llama 4: ``moe_layers`` (or every ``interleave_moe_layer_step``-th layer) hold experts, the rest a dense MLP
    of ``intermediate_size_mlp``; rotary layers attend within ``attention_chunk_size`` (their cache never holds
    more), the NoPE layers (every ``no_rope_layer_interval``-th) attend fully."""
    n = d["num_hidden_layers"]
    moe = c.get("moe_layers")
    if isinstance(moe, list):
        chosen = set(as_indices("moe_layers", moe))
    else:
        step = c.int("interleave_moe_layer_step", default=1)
        if step < 1:
            raise SpecError("interleave_moe_layer_step", f"must be at least 1 (got {step})")
        chosen = set(range(step - 1, n, step))
    if d.get("num_experts") == 0 and any(i < n for i in chosen):  # its MoE layers keep their shared expert
        key = c.stated("num_local_experts") or "num_local_experts"
        raise SpecError(key, "0 is not described here: Llama 4's MoE layers still build a router and a shared expert")
    d["mlp_only_layers"] = tuple(i for i in range(n) if i not in chosen)
    rope = c.get("no_rope_layers")
    if not isinstance(rope, list) or not rope:
        interval = c.int("no_rope_layer_interval", default=4)
        rope = [int((i + 1) % interval != 0) for i in range(n)] if interval else [1] * n
    chunk = c.get("attention_chunk_size")
    chunked = sum(1 for r in rope[:n] if r)
    if isinstance(chunk, int) and not isinstance(chunk, bool) and chunk > 0 and chunked:
        d["sliding_window"], d["sliding_window_layers"] = chunk, chunked
    else:
        d["sliding_window"] = None


def sparse_step(c: Cfg, d: Values, default_only: tuple[int, ...] = ()) -> None:
    """Qwen-MoE: a layer holds experts when (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers
    (``default_only`` where the config leaves it out)."""
    n = d["num_hidden_layers"]
    step = c.int("decoder_sparse_step", default=1)
    if step < 1:
        raise SpecError("decoder_sparse_step", f"must be at least 1 (got {step})")
    only = c.get("mlp_only_layers")
    listed = set(as_indices("mlp_only_layers", only)) if only is not None else set(default_only)
    d["mlp_only_layers"] = tuple(sorted(listed | {i for i in range(n) if (i + 1) % step}))


def ernie_moe_layers(c: Cfg, d: Values) -> None:
    """ERNIE 4.5 MoE: layer i holds experts when (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i
    <= moe_layer_end_index (-1: the last layer); the others keep the dense MLP. The experts never carry biases,
    while ``use_bias`` gives the dense and shared MLPs theirs, which one switch cannot say: refused."""
    n = d["num_hidden_layers"]
    step = c.int("moe_layer_interval", default=1)
    if step < 1:
        raise SpecError("moe_layer_interval", f"must be at least 1 (got {step})")
    start = c.int("moe_layer_start_index", default=1)
    end = c.int("moe_layer_end_index", default=-1)
    end = n - 1 if end == -1 else end
    d["mlp_only_layers"] = tuple(i for i in range(n) if (i + 1) % step or not start <= i <= end)
    if d.get("mlp_bias") and len(d["mlp_only_layers"]) < n and d.get("num_experts"):
        raise SpecError(
            "use_bias", "with experts, ERNIE 4.5 MoE biases the dense MLPs but not the experts; not modelled"
        )


def mlp_layer_types(c: Cfg, d: Values) -> None:
    """DeepSeek-V3.2: ``mlp_layer_types`` ("dense" / "sparse" per layer) says which layers hold experts; without it
    the first ``first_k_dense_replace`` are dense. Its indexer reads the q latent, so ``q_lora_rank`` is needed."""
    types = per_layer(c, d["num_hidden_layers"], ("dense", "sparse"), "mlp_layer_types")
    if types is not None:
        d["mlp_only_layers"] = tuple(i for i, t in enumerate(types) if t == "dense")
        d["first_k_dense_replace"] = 0
    if d.get("index_n_heads") and d.get("q_lora_rank") is None:
        raise SpecError("q_lora_rank", "DeepSeek-V3.2's indexer reads the query latent: q_lora_rank is required")


def _kda_heads(d: Values, heads: int, size: int) -> None:
    """Kimi Delta Attention: one head count and one head size serve queries, keys and values."""
    d["linear_num_key_heads"] = d["linear_num_value_heads"] = heads
    d["linear_key_head_dim"] = d["linear_value_head_dim"] = size


def kimi_linear(c: Cfg, d: Values) -> None:
    """Kimi Linear, as KimiLinearConfig fills it in: the Hub file's ``linear_attn_config`` (``num_heads``,
    ``head_dim``, ``short_conv_kernel_size``; ``full_attn_layers`` and ``kda_layers`` numbered from 1, together
    naming every layer) over the top-level linear keys; ``layer_types`` first, else those lists, else every
    fourth layer after the first attends fully (layers 4, 8, ...); ``mlp_layer_types``, else the first
    ``first_k_dense_replace`` (1) layers dense."""
    n = d["num_hidden_layers"]
    nested = c.get("linear_attn_config")
    nested = nested if isinstance(nested, Mapping) else {}
    for field, key in (
        ("linear_num_value_heads", "num_heads"),
        ("linear_value_head_dim", "head_dim"),
        ("linear_conv_kernel_dim", "short_conv_kernel_size"),
    ):
        if nested.get(key) is not None:
            d[field] = as_int(f"linear_attn_config.{key}", nested[key])
    _kda_heads(d, d["linear_num_value_heads"], d["linear_value_head_dim"])
    types = per_layer(c, n, ("linear_attention", "full_attention"))
    if types is not None:
        d["linear_attention_layers"] = types.count("linear_attention")
    elif "full_attn_layers" in nested and "kda_layers" in nested:
        listed = {}
        for key in ("full_attn_layers", "kda_layers"):
            layers = nested[key]
            if not isinstance(layers, list) or len(layers) > n:
                raise SpecError(f"linear_attn_config.{key}", f"expected a list of at most {n:,} layer numbers")
            for layer in layers:
                if type(layer) is not int or not 1 <= layer <= n:
                    raise SpecError(f"linear_attn_config.{key}", f"layers are numbered 1 to {n:,} (got {layer!r})")
                listed[layer] = key
        if len(listed) < n:  # KimiLinearConfig leaves such a layer's type empty, which it then refuses
            missing = min(set(range(1, n + 1)) - set(listed))
            raise SpecError("linear_attn_config.kda_layers", f"layer {missing} is in neither list: name every layer")
        d["linear_attention_layers"] = n - sum(1 for key in listed.values() if key == "full_attn_layers")
    else:
        d["linear_attention_layers"] = n - max(0, n - 1) // 4
    if c.get("mlp_layer_types") is None:
        d["first_k_dense_replace"] = c.int("first_k_dense_replace", default=1)
    mlp_layer_types(c, d)


def bailing_hybrid(c: Cfg, d: Values) -> None:
    """Ling's hybrids, as BailingHybridConfig fills them in: KDA layers of num_attention_heads heads of head_dim
    (or the linear_num_heads, linear_head_dim and linear_conv_kernel_dim it copies them to, where a saved file states
    them: it saves head_dim as qk_rope_head_dim); ``layer_types``, else the last layer of every ``layer_group_size``
    (6) attends fully (latent attention); ``mlp_layer_types``, else the first ``first_k_dense_replace`` (2) dense."""
    n = d["num_hidden_layers"]
    heads = c.int("linear_num_heads") or d["num_attention_heads"]  # a saved file states the copies it made
    size = c.int("linear_head_dim", "head_dim", default=128)
    _kda_heads(d, heads, size)
    d["linear_conv_kernel_dim"] = c.int("linear_conv_kernel_dim", "short_conv_kernel_size", default=4)
    types = per_layer(c, n, ("linear_attention", "full_attention"))
    if types is not None:
        d["linear_attention_layers"] = types.count("linear_attention")
    else:
        group = c.int("layer_group_size", default=6)
        if group < 1:
            raise SpecError("layer_group_size", f"must be at least 1 (got {group})")
        d["linear_attention_layers"] = n - n // group
    mlp_layer_types(c, d)


def recurrent_gemma(c: Cfg, d: Values) -> None:
    """RecurrentGemma (Griffin), as RecurrentGemmaConfig reads it: ``block_types`` repeated over the layers (at most
    100 rounds), "recurrent" blocks holding an RG-LRU of ``lru_width`` (the width by default) in heads of
    lru_width // num_attention_heads, the others local attention over ``attention_window_size``; MLPs
    intermediate_size // 2 wide."""
    n, heads = d["num_hidden_layers"], d["num_attention_heads"]
    if n == 0:  # RecurrentGemmaConfig divides by it (final_w_init_variance_scale)
        raise SpecError("num_hidden_layers", "RecurrentGemmaConfig needs at least 1 layer")
    kinds = c.get("block_types")
    if not isinstance(kinds, list | tuple) or not kinds or any(k not in ("recurrent", "attention") for k in kinds):
        raise SpecError("block_types", 'expected a list of "recurrent" and "attention"')
    if n > 100 * len(kinds):
        raise SpecError(
            "num_hidden_layers", f"RecurrentGemma repeats block_types at most 100 times ({100 * len(kinds)})"
        )
    recurrent = sum(kinds.count("recurrent") for _ in range(n // len(kinds))) + kinds[: n % len(kinds)].count(
        "recurrent"
    )
    lru = c.int("lru_width") or d["hidden_size"]
    if heads and lru % heads:
        raise SpecError("lru_width", f"{lru:,} is not a multiple of num_attention_heads {heads}")
    d["linear_attention_layers"] = recurrent
    d["linear_num_key_heads"] = d["linear_num_value_heads"] = heads
    d["linear_key_head_dim"], d["linear_value_head_dim"] = 1, lru // heads if heads else 0
    d["linear_conv_kernel_dim"] = c.int("conv1d_width", default=4)
    d["intermediate_size"] = c.int("intermediate_size") // 2
    if not d["intermediate_size"]:  # the MLP keeps its down_proj bias at width 0, which no row describes
        raise BeyondRow("intermediate_size", "an MLP of width 0 (intermediate_size // 2) with its biases")
    d["sliding_window"] = _window(c.get("attention_window_size"))
    d["sliding_window_layers"] = n - recurrent


def linear_attention_layers(c: Cfg, d: Values) -> None:
    """Qwen3-Next and Qwen3.5: ``layer_types`` names each layer "linear_attention" (Gated DeltaNet) or
    "full_attention"; without it every ``full_attention_interval``-th layer (4) attends fully, as the config
    classes fill ``layer_types`` in."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("linear_attention", "full_attention"))
    if types is not None:
        d["linear_attention_layers"] = types.count("linear_attention")
        return
    every = c.int("full_attention_interval", default=4)
    if every < 1:
        raise SpecError("full_attention_interval", f"must be at least 1 (got {every})")
    d["linear_attention_layers"] = sum(1 for i in range(n) if (i + 1) % every)


def lightning_layers(c: Cfg, d: Values) -> None:
    """MiniMax: ``layer_types`` names each layer "linear_attention" (lightning attention) or "full_attention";
    without it the layers alternate, the first attending fully, as MiniMaxConfig fills ``layer_types`` in."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("linear_attention", "full_attention"))
    d["lightning_layers"] = types.count("linear_attention") if types is not None else n // 2


def mamba_sizes(c: Cfg, d: Values) -> None:
    """Mamba and Mamba-2: a state-space mixer of inner width expand * hidden_size (Mamba: unless the
    config states ``intermediate_size``, which its class then uses; Mamba-2 always recomputes it), and Mamba's
    time-step rank ``"auto"`` is ceil(hidden_size / 16)."""
    h = d["hidden_size"]
    inner = _expand_width(c, "expand", h)
    if d.get("ssm_inner") is None:
        d["ssm_inner"] = inner
    heads = d.get("ssm_heads")
    head = c.int("head_dim", default=64) if heads else 0  # Mamba-2 only: Mamba reads no head_dim
    if heads and heads * head != d["ssm_inner"]:
        raise SpecError(
            "num_heads",
            f"Mamba2Config requires num_heads × head_dim ({heads} × {head}) to equal expand × hidden_size "
            f"({d['ssm_inner']:,})",
        )
    if d.get("ssm_version") == 1:  # Mamba-2 has no time-step projection: its time_step_rank builds nothing
        d["ssm_dt_rank"] = _time_step_rank(c, "time_step_rank", h)


def _expand_width(c: Cfg, key: str, hidden: int) -> int:
    """A Mamba mixer's inner width, ``key`` (expand, mamba_expand) × hidden_size: a whole number, as the config
    classes require (they refuse 1.5), at least 1."""
    expand = c.int(key, default=2)
    if expand < 1:
        raise SpecError(key, f"must be at least 1 (got {expand})")
    return expand * hidden


def _time_step_rank(c: Cfg, key: str, hidden: int) -> int:
    """Mamba's time-step rank: ``key`` (time_step_rank, mamba_dt_rank), ``"auto"`` being ceil(hidden_size / 16)."""
    rank = c.get(key, default="auto")
    return -(-hidden // 16) if rank == "auto" else as_int(key, rank)


def mamba2_inner(c: Cfg, d: Values) -> None:
    """Mamba-2 mixers in hybrids (Bamba, Granite 4.0, Falcon-H1): the inner width is the one the row reads
    (Falcon-H1's ``mamba_d_ssm``) or else mamba_expand × hidden_size, split into mamba_n_heads heads of
    mamba_d_head ("auto": the quotient), as the config classes check."""
    if d.get("ssm_inner") is None:
        d["ssm_inner"] = _expand_width(c, "mamba_expand", d["hidden_size"])
    inner, heads = d["ssm_inner"], d["ssm_heads"]
    head = c.get("mamba_d_head", default="auto")
    head = inner // heads if head == "auto" and heads else as_int("mamba_d_head", head)
    if not heads or inner % heads or head * heads != inner:
        raise SpecError("mamba_n_heads", f"{heads} heads of {head} must fill the mixer's inner width ({inner:,})")


def attn_layer_indices(c: Cfg, d: Values) -> None:
    """Bamba: the layers ``attn_layer_indices`` lists attend; every other layer is a Mamba-2 mixer."""
    n = d["num_hidden_layers"]
    listed = set(as_indices("attn_layer_indices", c.get("attn_layer_indices") or []))
    d["ssm_layers"] = n - len({i for i in listed if i < n})


#: Zamba2Config's layers when layers_block_type is null: 54 Mamba-2 layers, the shared transformer in 9 of them.
ZAMBA2_DEFAULT_LAYERS = ["mamba"] + (["mamba"] * 5 + ["hybrid"]) * 7 + ["mamba"] * 4 + ["hybrid"]
ZAMBA2_DEFAULT_LAYERS += ["mamba"] * 3 + ["hybrid"] + ["mamba"] * 2


def zamba2_layers(c: Cfg, d: Values) -> None:
    """Zamba2: every layer a Mamba-2 mixer; the layers ``layers_block_type`` names "hybrid" run a shared transformer
    block first (the others are "mamba", or "linear_attention" as transformers now renames them). The blocks are
    num_mem_blocks sets of weights used round-robin, so no more of them exist than hybrid layers."""
    n = d["num_hidden_layers"]
    # (Zamba2Config also maps layer_types onto layers_block_type, but then sizes its adapter lists from the default
    # 54-layer pattern: a config naming layer_types is refused here, pointing to layers_block_type)
    if c.data.get("layer_types") is not None and c.data.get("layers_block_type") is None:
        raise SpecError("layer_types", "Zamba2 reads layers_block_type: name the layers there")
    types = c.get("layers_block_type")
    if types is None:
        types = ZAMBA2_DEFAULT_LAYERS
    if not isinstance(types, list) or len(types) != n:
        raise SpecError("layers_block_type", f"must name each of the {n} layers (num_hidden_layers)")
    if any(t not in ("mamba", "linear_attention", "hybrid") for t in types):
        raise SpecError("layers_block_type", 'expected "mamba" (or "linear_attention") or "hybrid" for each layer')
    uses, blocks = types.count("hybrid"), d["shared_blocks"]
    if blocks < 1:
        raise SpecError("num_mem_blocks", "must be at least 1")
    d["shared_block_uses"] = uses
    d["mixer_only_layers"] = n - uses  # the MLP is the shared block's: only the hybrid layers run one
    # Every use builds a block holding the adapters of the uses with its id (use % num_mem_blocks); transformers then
    # ties the blocks of a repeated id together, but only when tie_word_embeddings is true (it ties nothing else):
    # untied, each use keeps its own block and its copies of the adapters.
    if d["tie_word_embeddings"]:
        d["shared_blocks"], d["shared_adapters"] = min(blocks, uses), uses
    else:
        d["shared_blocks"] = uses
        d["shared_adapters"] = sum(sum(1 for i in range(uses) if i % blocks == j % blocks) for j in range(uses))


def zamba_layers(c: Cfg, d: Values) -> None:
    """Zamba (v1): every layer a Mamba mixer of mamba_expand × hidden_size (time-step rank ``"auto"``: ceil(hidden_size
    / 16)), its x_proj and dt_proj split over n_mamba_heads, which must divide that width (Mamba's sizes all the same);
    the layers ``layers_block_type`` names "hybrid" first run the one shared attention and MLP block, each through a
    linear layer of its own. Without the list, ZambaConfig names 3 + (num_hidden_layers - 3) layers: two Mamba layers,
    a hybrid one, then layer 3 + i is hybrid when i % attn_layer_period == attn_layer_offset. The class ties the
    block's copies in the hybrid layers together only when tie_word_embeddings is true (as Zamba2's), and then refuses
    a single hybrid layer (its tie finds no other copy)."""
    n, h = d["num_hidden_layers"], d["hidden_size"]
    d["ssm_inner"] = _expand_width(c, "mamba_expand", h)
    d["ssm_dt_rank"] = _time_step_rank(c, "mamba_dt_rank", h)
    heads = c.int("n_mamba_heads", default=2)
    if heads < 1 or d["ssm_inner"] % heads:
        raise SpecError(
            "n_mamba_heads", f"{heads} heads must divide the mixers' width ({d['ssm_inner']:,}), as ZambaConfig checks"
        )
    d["ssm_heads"] = heads  # the selective scan runs head by head (its working set: memory._layer_transient)
    width = c.int("attention_hidden_size")  # null or 0: 2 × hidden_size, as the class derives it
    if width:
        if width < 0:
            raise SpecError("attention_hidden_size", f"must not be negative (got {width})")
        if width != 2 * h:
            raise BeyondRow(
                "attention_hidden_size",
                f"{width:,} is not 2 × hidden_size ({2 * h:,}), the width of the [hidden state, embeddings] the shared "
                "block reads (transformers builds it, though no forward pass can run)",
            )
    if not d.get("head_dim"):  # attention_head_dim null or 0: derived (2 × hidden_size // num_attention_heads)
        d["head_dim"] = None
    key = c.stated("layer_types", "layers_block_type")  # transformers' alias layer_types wins over the attribute
    types = c.get("layer_types", "layers_block_type")
    if types is None:
        key = "num_hidden_layers"
        if n < 3:
            raise SpecError(key, f"ZambaConfig names at least 3 layers without layers_block_type (got {n})")
        period, offset = c.int("attn_layer_period", default=6), c.int("attn_layer_offset", default=4)
        if period == 0 and n > 3:
            raise SpecError("attn_layer_period", "must not be 0: ZambaConfig takes the layer index modulo it")
        uses = 1 + sum(1 for i in range(n - 3) if i % period == offset)
    else:
        key = key or "layers_block_type"
        if not isinstance(types, list) or len(types) != n:
            raise SpecError(key, f"must name each of the {n} layers (num_hidden_layers)")
        if any(t not in ("mamba", "linear_attention", "hybrid") for t in types):
            raise SpecError(key, 'expected "mamba" (or "linear_attention") or "hybrid" for each layer')
        uses = types.count("hybrid")
    tied = bool(d.get("tie_word_embeddings"))
    if tied and uses == 1:
        raise SpecError(
            key,
            "one hybrid layer with tie_word_embeddings true: transformers refuses to build it (it ties the shared "
            "block's copies and finds no other): name none or two and more, or untie the embeddings",
        )
    d["shared_block_uses"] = uses
    d["mixer_only_layers"] = n - uses  # the MLP is the shared block's: only the hybrid layers run one
    d["shared_blocks"] = min(1, uses) if tied else uses  # untied, each hybrid layer keeps its own copy


def _factor(c: Cfg, key: str, default: float) -> float:
    """A float key of a strict config class (xLSTMConfig's ``qk_dim_factor``): a JSON number with a decimal point, as
    the class refuses ``1`` or ``true``; finite."""
    value = c.get(key, default=default)
    if type(value) is not float:
        shown = json.dumps(value)[:40] if isinstance(value, int | str) or value is None else type(value).__name__
        raise SpecError(key, f"expected a number with a decimal point, got {shown} (xLSTMConfig refuses it)")
    if not math.isfinite(value):
        raise SpecError(key, f"expected a finite number, got {value}")
    return value


def _xlstm_width(h: int, factor: float, key: str) -> int:
    """``int(hidden_size * factor)``, as xLSTMLayer sizes its q/k and v projections; refused where transformers
    cannot build the layer (a negative width)."""
    width = h * factor
    if not math.isfinite(width) or width > LIMITS["mlstm_v_dim"]:
        raise SpecError(key, f"hidden_size × {key} is larger than the supported maximum {LIMITS['mlstm_v_dim']:,}")
    if int(width) < 0:
        raise SpecError(key, f"gives a negative width ({int(width):,}): transformers cannot build the layer")
    return int(width)


def xlstm_round_up(x: float, multiple: int) -> int:
    """transformers' ``round_up_to_next_multiple_of`` (configuration_xlstm.py), the same float arithmetic."""
    return int(((x + multiple - 1) // multiple) * multiple)


def xlstm_sizes(c: Cfg, d: Values) -> None:
    """xLSTM: every layer an mLSTM cell and a gated feed-forward block. The cell's q and k are int(hidden_size ×
    qk_dim_factor) wide and its v and output gate int(hidden_size × v_dim_factor) (the layer's own width, not the
    config's qk_dim, rounded up to 64), split over num_heads; the feed-forward block is round_up(hidden_size ×
    ffn_proj_factor, ffn_round_up_to_multiple_of) wide, in transformers' float arithmetic. Refused where the classes
    cannot build it (no heads, a negative width, a multiple of 0); counted by transformers where they build what no
    forward pass can run (heads that do not divide a width, a width of 0, a token table of embedding_dim beside blocks
    of hidden_size) or a stack whose num_blocks disagrees with num_hidden_layers (the blocks follow the one, the cache
    and the initialisation the other)."""
    h, heads = d["hidden_size"], d["mlstm_heads"]
    if heads < 1:
        raise SpecError("num_heads", f"must be at least 1 (got {heads}): xLSTMLayer divides its widths by it")
    qk = _xlstm_width(h, _factor(c, "qk_dim_factor", 0.5), "qk_dim_factor")
    v = _xlstm_width(h, _factor(c, "v_dim_factor", 1.0), "v_dim_factor")
    multiple = c.int("ffn_round_up_to_multiple_of", default=64)
    if multiple == 0:
        raise SpecError("ffn_round_up_to_multiple_of", "must not be 0: xLSTMFeedForward divides by it")
    if abs(multiple) > LIMITS["intermediate_size"]:
        raise SpecError("ffn_round_up_to_multiple_of", f"larger than the supported {LIMITS['intermediate_size']:,}")
    x = h * _factor(c, "ffn_proj_factor", 2.667)
    if not math.isfinite(x) or abs(x) > LIMITS["intermediate_size"]:
        raise SpecError("ffn_proj_factor", f"hidden_size × ffn_proj_factor is beyond {LIMITS['intermediate_size']:,}")
    ffn = xlstm_round_up(x, multiple)
    if ffn < 0:
        raise SpecError("ffn_proj_factor", f"gives a negative width ({ffn:,}): transformers cannot build the layer")
    mode = c.get("weight_mode", default="single")
    if mode not in ("single", "fused"):
        shown = json.dumps(mode)[:40] if isinstance(mode, int | float | str) else type(mode).__name__
        raise SpecError("weight_mode", f'expected "single" or "fused", got {shown} (xLSTMConfig refuses it)')
    other_names = {key: c.int(key) for key in ("embedding_dim", "num_blocks")}  # null: the class takes the other
    if (other_names["embedding_dim"] or 0) < 0:
        raise SpecError("embedding_dim", "must not be negative: transformers cannot build the token table")
    # what the classes build but no row describes: counted by transformers
    if ffn == 0:
        raise BeyondRow("ffn_proj_factor", "gives a feed-forward block of width 0, which no row describes")
    for width, key in ((qk, "qk_dim_factor"), (v, "v_dim_factor")):
        if not width:
            raise BeyondRow(key, "gives a width of 0: transformers builds it, though no forward pass can run")
        if width % heads:
            raise BeyondRow(
                "num_heads",
                f"{heads} heads do not divide int(hidden_size × {key}) = {width:,}: transformers builds it, though no "
                "forward pass can run",
            )
    for key, name, what in (
        ("embedding_dim", "hidden_size", "the token table is embedding_dim wide, the blocks hidden_size"),
        ("num_blocks", "num_hidden_layers", "num_blocks blocks are built, the cache and initialisation read the other"),
    ):
        stated = other_names[key]
        if stated is not None and stated != d[name]:
            default = "" if c.stated(name) else ", the class default"
            raise BeyondRow(key, f"{stated:,} differs from {name} ({d[name]:,}{default}): {what}")
    d.update(mlstm_qk_dim=qk, mlstm_v_dim=v, intermediate_size=ffn)
    d["fused"] = ("qkv_o", "gate_up") if mode == "fused" else ()


def jamba_layers(c: Cfg, d: Values) -> None:
    """Jamba: layer i attends when i % attn_layer_period == attn_layer_offset (else a Mamba mixer), and holds
    experts when i % expert_layer_period == expert_layer_offset and num_experts > 1 (else a dense MLP). The
    mixers are expand × hidden_size wide, their time-step rank ``"auto"`` ceil(hidden_size / 16). An offset must be
    smaller than its period (JambaConfig refuses it otherwise)."""
    n, h = d["num_hidden_layers"], d["hidden_size"]
    periods = {}
    for key, default in (("attn_layer_period", 8), ("attn_layer_offset", 4), ("expert_layer_period", 2)):
        periods[key] = c.int(key, default=default)
    periods["expert_layer_offset"] = c.int("expert_layer_offset", default=1)
    for key in ("attn_layer_period", "expert_layer_period"):
        if periods[key] < 1:
            raise SpecError(key, f"must be at least 1 (got {periods[key]})")
    for kind in ("attn", "expert"):
        offset, period = periods[f"{kind}_layer_offset"], periods[f"{kind}_layer_period"]
        if offset >= period:  # JambaConfig.validate_architecture
            shown = f"{offset}" if c.stated(f"{kind}_layer_offset") else f"the default {offset}"
            raise SpecError(
                f"{kind}_layer_offset",
                f"must be smaller than {kind}_layer_period ({period}), got {shown} (JambaConfig refuses it)",
            )
    attn = sum(1 for i in range(n) if i % periods["attn_layer_period"] == periods["attn_layer_offset"])
    d["ssm_layers"] = n - attn
    moe = {i for i in range(n) if i % periods["expert_layer_period"] == periods["expert_layer_offset"]}
    d["mlp_only_layers"] = tuple(i for i in range(n) if i not in moe)
    if (d.get("num_experts") or 0) <= 1:
        d["num_experts"] = 0
    d["ssm_inner"] = _expand_width(c, "mamba_expand", h)
    d["ssm_dt_rank"] = _time_step_rank(c, "mamba_dt_rank", h)


#: Nemotron-H's block letters (``hybrid_override_pattern``) and the legacy names transformers still reads.
NEMOTRON_H_BLOCKS = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}
LEGACY_BLOCKS = {"mamba": "linear_attention", "attention": "full_attention"}


def granite_hybrid(c: Cfg, d: Values) -> None:
    """Granite 4.0 (GraniteMoeHybrid): ``layer_types`` names each layer "linear_attention" (Mamba-2) or
    "full_attention" (or by the legacy names "mamba" and "attention"); without it every layer is Mamba. Every layer
    has a gated shared MLP of ``shared_intermediate_size``: with experts it is the shared expert beside them,
    without experts it is the layer's only MLP."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("mamba", "attention", *LEGACY_BLOCKS.values()), "layer_types", "layers_block_type")
    mixers = [LEGACY_BLOCKS.get(t, t) for t in types] if types is not None else ["linear_attention"] * n
    d["ssm_layers"] = mixers.count("linear_attention")
    if d.get("num_experts"):
        d["num_shared_experts"] = 1
    else:
        d["intermediate_size"] = d["shared_expert_intermediate_size"]


def nemotron_h_layers(c: Cfg, d: Values) -> None:
    """Nemotron-H: each layer is one RMSNorm and one block, a Mamba-2 mixer, attention, a (ReLU²) MLP or experts,
    as ``layers_block_type`` lists them (else ``hybrid_override_pattern``'s letters M, *, - and E). The list's
    length is the depth: NemotronHConfig ignores ``num_hidden_layers``. The Mamba-2 mixer's inner width is
    mamba_num_heads × mamba_head_dim; experts exist only in "moe" layers, each beside one shared MLP."""
    types = c.get("layers_block_type", "layer_types")
    key = c.stated("layers_block_type", "layer_types") or "layers_block_type"
    if types is None and isinstance(pattern := c.get("hybrid_override_pattern"), str):
        key = "hybrid_override_pattern"
        if any(ch not in NEMOTRON_H_BLOCKS for ch in pattern):
            raise SpecError(key, "expected only the letters M (Mamba), * (attention), - (MLP) and E (experts)")
        types = [NEMOTRON_H_BLOCKS[ch] for ch in pattern]
    if types is None:
        types = ["linear_attention", "moe", "full_attention", "mlp"]  # the class's default
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise SpecError(key, "expected a list of block names, one per layer")
    types = [LEGACY_BLOCKS.get(t, t) for t in types]
    if any(t not in NEMOTRON_H_BLOCKS.values() for t in types):
        raise SpecError(key, 'expected "linear_attention", "full_attention", "mlp" or "moe" for each layer')
    n = len(types)
    if n > 100_000:
        raise SpecError(key, f"{n:,} layers is more than the supported maximum 100,000")
    d["num_hidden_layers"] = n
    d["ssm_layers"] = types.count("linear_attention")
    d["mixer_only_layers"] = d["ssm_layers"] + types.count("full_attention")
    d["ffn_only_layers"] = n - d["mixer_only_layers"]
    d["ssm_inner"] = d["ssm_heads"] * c.int("mamba_head_dim", default=64)
    if "moe" not in types:
        d["num_experts"] = 0
        return
    d["mlp_only_layers"] = tuple(i for i, t in enumerate(types) if t != "moe")
    if c.get("moe_latent_size") is not None:
        raise SpecError("moe_latent_size", "experts behind a latent projection (Nemotron 3 Super) are not counted yet")
    if d.get("mlp_bias"):
        raise SpecError("mlp_bias", "NemotronH's experts have no biases beside biased MLPs: not counted yet")


def lfm2_layers(c: Cfg, d: Values) -> None:
    """LFM2: ``layer_types`` names each layer "conv" (a short convolution) or anything else (attention, as
    Lfm2DecoderLayer reads it); without it the layers ``full_attn_idxs`` lists attend (all of them when it is absent
    too), as Lfm2Config fills ``layer_types`` in. The MLP's width is adjusted as Lfm2MLP adjusts it: with
    ``block_auto_adjust_ff_dim``, 2/3 of intermediate_size, times ``block_ffn_dim_multiplier``, rounded up to a
    multiple of ``block_multiple_of``."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ())  # Lfm2DecoderLayer attends in every layer not named "conv"
    if types is not None:
        d["short_conv_layers"] = types.count("conv")
    else:
        listed = c.get("full_attn_idxs")
        attends = set(as_indices("full_attn_idxs", listed)) if listed is not None else set(range(n))
        d["short_conv_layers"] = sum(1 for i in range(n) if i not in attends)
    size = d["intermediate_size"]
    if size is None or not c.bool("block_auto_adjust_ff_dim", default=True):
        return
    size = int(2 * size / 3)
    multiplier = c.get("block_ffn_dim_multiplier")
    if multiplier is not None:
        if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)) or not multiplier >= 0:
            raise SpecError("block_ffn_dim_multiplier", f"expected a number of at least 0, got {str(multiplier)[:40]}")
        multiple = c.int("block_multiple_of", default=256)
        if multiple < 1:
            raise SpecError("block_multiple_of", f"must be at least 1 (got {multiple})")
        size = multiple * -(-int(multiplier * size) // multiple)
    d["intermediate_size"] = size


def lfm3_layers(c: Cfg, d: Values) -> None:
    """LFM3, as Lfm3Config fills it in: ``layer_types`` ("conv", "full_attention", "sliding_attention"), else full
    attention in every fourth layer from the third, sliding attention in every fourth from the fifth and short
    convolutions between; with ``use_sandwich_norm`` a norm after the mixer and after the MLP too (four a layer), with
    ``use_attention_gate`` a sigmoid gate per head on the attention output."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ("conv", "full_attention", "sliding_attention"))
    if types is None:
        types = [
            "full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i > 0 else "conv"
            for i in range(n)
        ]
    d["short_conv_layers"] = types.count("conv")
    window_stated(c, d)
    slide(d, types.count("sliding_attention"), needs_window="LFM3")
    d["norms_per_layer"] = 4 if c.bool("use_sandwich_norm", default=True) else 2
    d["attention_head_gate"] = c.bool("use_attention_gate", default=True)


def lfm2_moe_layers(c: Cfg, d: Values) -> None:
    """LFM2-MoE: ``layer_types`` names each layer "conv" or attention, and must be stated (Lfm2MoeConfig fills in
    nothing and its layers index it); the first ``num_dense_layers`` keep a dense MLP of intermediate_size, as
    written (no auto-adjustment), the others route to experts."""
    n = d["num_hidden_layers"]
    types = per_layer(c, n, ())
    if types is None:
        raise SpecError(
            "layer_types", f'Lfm2MoeConfig has no default: state "conv" or "full_attention" for each of the {n} layers'
        )
    d["short_conv_layers"] = types.count("conv")


def shared_expert_gate(c: Cfg, d: Values) -> None:
    """Qwen-MoE: one shared expert, with its sigmoid gate, whenever it has a width."""
    ungated_shared_expert(c, d)
    d["shared_expert_gate"] = bool(d["num_shared_experts"])


def multi_query(c: Cfg, d: Values) -> None:
    """GPT-BigCode: ``multi_query`` means one key/value head."""
    d["num_key_value_heads"] = 1 if c.bool("multi_query") else d["num_attention_heads"]


def use_qk_norm(c: Cfg, d: Values) -> None:
    """GLM-4.5: ``use_qk_norm`` adds an RMSNorm over head_dim on queries and keys."""
    d["qk_norm"] = "head" if c.bool("use_qk_norm", default=False) else "none"


def cohere_qk_norm(c: Cfg, d: Values) -> None:
    """Command-R: ``use_qk_norm`` adds a weight-only LayerNorm over every query head and every key head."""
    d["qk_norm"] = "full" if c.bool("use_qk_norm", default=False) else "none"


def qk_layernorm(c: Cfg, d: Values) -> None:
    """Phi: ``qk_layernorm`` adds a LayerNorm over head_dim on queries and keys."""
    d["qk_norm"] = "head" if c.bool("qk_layernorm") else "none"


def stablelm_layout(c: Cfg, d: Values) -> None:
    """StableLM: ``use_parallel_residual`` drops the second norm; ``qk_layernorm`` adds one bias-free LayerNorm
    of head_dim per query head and per key head (``StableLmLayerNormPerHead``)."""
    d["norms_per_layer"] = 1 if d["parallel_attn"] else 2
    d["qk_norm"] = "full" if c.bool("qk_layernorm") else "none"


def hunyuan_moe(c: Cfg, d: Values) -> None:
    """HunYuan MoE: every layer routes to ``moe_topk`` of ``num_experts`` experts of intermediate_size beside one
    shared MLP of the same width. ``moe_topk`` may be a list per layer (the released configs repeat one number; one
    shorter than the layers cannot be built); the experts' count may not, as HunYuanMoEV1Experts builds num_experts
    experts in every layer."""
    if isinstance(c.get("num_experts"), list):
        raise SpecError("num_experts", "a list per layer cannot be built by transformers' HunYuanMoEV1Experts")
    top, n = c.get("moe_topk", default=1), d["num_hidden_layers"]
    if isinstance(top, list):
        if len(top) < n:  # HunYuanMoEV1Gate reads moe_topk[layer_idx] in every layer
            raise SpecError(
                "moe_topk", f"holds {len(top)} layers; there are {n} (HunYuanMoEV1Gate reads one per layer)"
            )
        values = {as_int("moe_topk", k) for k in top[:n]}
        if len(values) > 1:
            raise SpecError("moe_topk", f"different experts per token in different layers ({sorted(values)})")
        top = values.pop() if values else 1
    d["num_experts_per_tok"] = as_int("moe_topk", top)


#: DBRX's sizes in its nested configs: Spec field -> (key path, DbrxAttentionConfig's or DbrxFFNConfig's default).
DBRX_NESTED = {
    "num_key_value_heads": "attn_config.kv_n_heads",
    "moe_intermediate_size": "ffn_config.ffn_hidden_size",
    "num_experts": "ffn_config.moe_num_experts",
    "num_experts_per_tok": "ffn_config.moe_top_k",
}
_DBRX_DEFAULTS = {"attn_config.kv_n_heads": 1, "ffn_config.ffn_hidden_size": 3584, "ffn_config.moe_num_experts": 4}


def dbrx_sub_configs(c: Cfg, d: Values) -> None:
    """DBRX keeps attention and experts in nested configs: ``attn_config`` (kv_n_heads, default 1; rope_theta, which
    DbrxAttention reads without a default) and ``ffn_config`` (ffn_hidden_size 3584, moe_num_experts 4, moe_top_k
    1, the defaults of DbrxFFNConfig). An untied head is all DbrxConfig allows."""
    attn, ffn = c.get("attn_config") or {}, c.get("ffn_config") or {}
    for key, sub in (("attn_config", attn), ("ffn_config", ffn)):
        if not isinstance(sub, dict):
            raise SpecError(key, "expected an object of settings ({...})")
    if "rope_theta" not in attn:
        raise SpecError("attn_config.rope_theta", "DbrxAttention reads it without a default: state it")
    for field, key in DBRX_NESTED.items():
        sub, name = (attn if key.startswith("attn") else ffn), key.split(".")[1]
        value = sub.get(name)
        d[field] = as_int(key, _DBRX_DEFAULTS.get(key, 1) if value is None else value)
    if d.get("tie_word_embeddings"):
        raise SpecError("tie_word_embeddings", "DbrxConfig refuses tied embeddings")


#: T5Gemma's sizes, read from its encoder config (the decoder must match them), and where each lives.
T5GEMMA_NESTED = {
    "vocab_size": "encoder.vocab_size",
    "hidden_size": "encoder.hidden_size",
    "num_hidden_layers": "encoder.num_hidden_layers",
    "num_decoder_layers": "decoder.num_hidden_layers",
    "num_attention_heads": "encoder.num_attention_heads",
    "num_key_value_heads": "encoder.num_key_value_heads",
    "head_dim": "encoder.head_dim",
    "intermediate_size": "encoder.intermediate_size",
    "max_position_embeddings": "encoder.max_position_embeddings",
    "sliding_window": "encoder.sliding_window",
    "attention_bias": "encoder.attention_bias",
}
_T5GEMMA_SAME = ("vocab_size", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim")
_T5GEMMA_SAME += ("intermediate_size", "sliding_window", "attention_bias")


def t5gemma(c: Cfg, d: Values) -> None:
    """T5Gemma keeps its stacks in nested configs (``encoder``, ``decoder``: T5GemmaModuleConfig, Gemma 2 layers,
    sliding and full attention alternating as ``layer_types`` says, each stack its own pattern). The Spec holds one
    width, so the decoder must match the encoder in every size but its depth (the balanced checkpoints: 2B-2B, 9B-9B,
    S/B/L/ML/XL)."""
    from paramscope.families.schema import hf_defaults

    subs = {}
    for key in ("encoder", "decoder"):
        sub = c.get(key) or {}
        if not isinstance(sub, dict):
            raise SpecError(key, "expected an object of settings ({...})")
        subs[key] = Cfg(sub, hf_defaults()["t5gemma_module"])
    enc, dec = subs["encoder"], subs["decoder"]
    for field, path in T5GEMMA_NESTED.items():
        sub, name = (enc if path.startswith("encoder") else dec), path.split(".")[1]
        value = sub.get(name)
        d[field] = (as_int(path, value) if not isinstance(value, bool) else value) if value is not None else None
    for name in _T5GEMMA_SAME:
        if dec.get(name) != enc.get(name):
            raise BeyondRow(
                f"decoder.{name}",
                f"{dec.get(name)} differs from the encoder's {enc.get(name)}: a T5Gemma whose stacks differ (such "
                "as 9B-2B) has no formulas here (one width per model), so transformers counts it",
            )
    sliding = {}
    for key, sub in subs.items():
        n = d["num_hidden_layers" if key == "encoder" else "num_decoder_layers"]
        types = per_layer(sub, n, ("sliding_attention", "full_attention"))
        sliding[key] = types.count("sliding_attention") if types is not None else (n + 1) // 2
    if not sliding["decoder"] and not sliding["encoder"]:
        d["sliding_window"] = None  # no layer slides
    elif not sliding["decoder"]:  # 0 would mean every decoder layer slides: a window longer than any context
        d["sliding_window_layers"], d["sliding_window"] = 0, None
    else:
        d["sliding_window_layers"] = sliding["decoder"]
    d["encoder_sliding_window_layers"] = sliding["encoder"]
    d["hidden_act"] = str(enc.get("hidden_activation"))


def deberta(c: Cfg, d: Values) -> None:
    """DeBERTa v2/v3: learned absolute positions only with ``position_biased_input``; with ``relative_attention`` a
    table of 2 × position_buckets rows (else 2 × max_relative_positions, that being max_position_embeddings when
    below 1) shared by all layers and, unless ``share_att_key``, per-layer projections of it to keys ("c2p" in
    ``pos_att_type``) and queries ("p2c"); a LayerNorm on it when ``norm_rel_ebd`` says layer_norm; a convolution
    of ``conv_kernel_size`` beside the first layer. The current head (``legacy`` false) reads the word embeddings
    and holds one bias. No pooler: DebertaV2Model has none."""
    d["pooler"] = False
    d["position_embedding"] = "learned" if c.bool("position_biased_input", default=True) else "none"
    stated = c.get("embedding_size")
    if stated is not None and as_int("embedding_size", stated) != d["hidden_size"]:
        raise SpecError("embedding_size", "DeBERTa's factorized embedding (embed_proj) is not counted yet")
    types = c.get("pos_att_type") or []
    types = [t.strip().lower() for t in types.split("|")] if isinstance(types, str) else types
    if c.bool("relative_attention", default=False):
        buckets = c.int("position_buckets", default=-1)
        span = c.int("max_relative_positions", default=-1)
        span = d["max_position_embeddings"] if span < 1 else span
        d["relative_table"] = 2 * (buckets if buckets > 0 else span)
        if not c.bool("share_att_key", default=False):
            d["position_key_proj"], d["position_query_proj"] = "c2p" in types, "p2c" in types
    d["relative_table_norm"] = "layer_norm" in str(c.get("norm_rel_ebd", default="none")).lower().split("|")
    kernel = c.int("conv_kernel_size", default=0)
    if kernel > 0:
        d["encoder_conv_kernel"], d["encoder_conv_groups"] = kernel, c.int("conv_groups", default=1)
    if not c.bool("legacy", default=True):
        d["tie_word_embeddings"], d["lm_head_bias_pair"] = True, False


def kv_heads_stated(c: Cfg, d: Values) -> None:
    """Nemotron: the config class gives ``num_key_value_heads`` no default, and the model cannot be built without
    it (transformers divides by it), so it must be stated."""
    if c.get("num_key_value_heads") is None:
        raise SpecError("num_key_value_heads", "NemotronConfig has no default for it: state a number of KV heads")


def xielu(c: Cfg, d: Values) -> None:
    """Apertus: the xIELU activation learns two scalars (``alpha_p``, ``alpha_n``) in every MLP."""
    d["act_params"] = 2 if d.get("hidden_act") == "xielu" else 0


def falcon_layout(c: Cfg, d: Values) -> None:
    """Falcon's three layouts: multi-query (7B), grouped (40B, 180B: new_decoder_architecture), plain."""
    heads = d["num_attention_heads"]
    new_arch = c.bool("new_decoder_architecture")
    if new_arch:
        d["num_key_value_heads"] = c.int("num_kv_heads", default=heads)
    else:
        d["num_key_value_heads"] = 1 if c.bool("multi_query") else heads
    parallel = d["parallel_attn"]
    n_ln = c.int("num_ln_in_parallel_attn", default=2 if new_arch else None)
    d["norms_per_layer"] = 2 if not parallel else (2 if n_ln == 2 else 1)
    d["position_embedding"] = "alibi" if c.bool("alibi") else "rotary"
    # the old layout hands SDPA one key/value head for all query heads with a written-out mask: the math kernel
    d["scores_bytes"] = 9 if not new_arch and d["num_key_value_heads"] < heads else 0


def opt_layout(c: Cfg, d: Values) -> None:
    """OPT: a projected token table (350m), the final norm only with pre-norm layers."""
    h = d["hidden_size"]
    proj = c.int("word_embed_proj_dim", default=h)
    d["embedding_size"] = proj if proj != h else None
    d["final_norm"] = bool(c.bool("do_layer_norm_before")) and not c.bool("_remove_final_layer_norm")
    if not c.bool("layer_norm_elementwise_affine", default=True):
        raise SpecError("layer_norm_elementwise_affine", "false (norms without weights) is not supported")


def bert_pooler(c: Cfg, d: Values) -> None:
    """BERT-style models keep the pooler only in the bare ...Model class."""
    d["pooler"] = d["architecture"] == "base"


def deepstack(c: Cfg, d: Values) -> None:
    """Qwen3-VL: one more patch merger for each layer ``deepstack_visual_indexes`` lists (their features feed the
    language model's first layers)."""
    listed = c.get("deepstack_visual_indexes") or []
    if not isinstance(listed, list):
        raise SpecError("deepstack_visual_indexes", "expected a list of layer indices")
    d["deepstack_mergers"] = len(listed)


def image_labels(c: Cfg, d: Values) -> None:
    """An image classifier's outputs, as PreTrainedConfig counts them: the entries of ``id2label`` when the config
    has them, else ``num_labels``, else 2."""
    labels = c.get("id2label")
    d["num_labels"] = len(labels) if isinstance(labels, dict) and labels else c.int("num_labels") or 2


def vit_pooler(c: Cfg, d: Values) -> None:
    """ViTModel keeps its pooler (a dense layer to ``pooler_output_size``, the width by default); the classifier
    does not. Only a pooler as wide as the model is counted."""
    d["pooler"] = d["architecture"] == "base"
    width = c.int("pooler_output_size")
    if d["pooler"] and width is not None and width != d["hidden_size"]:
        raise SpecError("pooler_output_size", f"only the default (hidden_size {d['hidden_size']:,}) is supported")


def sinusoidal_positions(c: Cfg, d: Values) -> None:
    """DistilBERT: ``sinusoidal_pos_embds`` stores a fixed sinusoidal table (still a parameter)."""
    d["position_embedding"] = "sinusoidal" if c.bool("sinusoidal_pos_embds") else "learned"


def albert_groups(c: Cfg, d: Values) -> None:
    """ALBERT: one layer per group, as every released checkpoint."""
    if (c.int("inner_group_num") or 1) != 1:
        raise SpecError("inner_group_num", "only 1 (one layer per group, as every released ALBERT) is supported")


def feed_forward_proj(c: Cfg, d: Values) -> None:
    """T5: ``feed_forward_proj`` is "relu" or "gated-gelu" style: gating and activation in one string ("gated-gelu"
    is the tanh GeLU, ``gelu_new``, as T5Config maps it); T5's MLPs cast their hidden to the output projection's
    dtype, which the class keeps in fp32."""
    proj = str(c.get("feed_forward_proj") or "relu")
    d["mlp_gated"] = proj.startswith("gated-")
    d["hidden_act"] = "gelu_new" if proj == "gated-gelu" else proj.removeprefix("gated-")
    d["down_proj_fp32"] = True
    d["fp32_weights_fp16"] = ("*/mlp/down",)  # its _keep_in_fp32_modules: wo, in fp16


def encoder_model_class(c: Cfg, d: Values) -> None:
    """T5EncoderModel builds no decoder; it builds its one stack from the config as it is, so ``is_decoder`` true
    (which T5Model and T5ForConditionalGeneration set for each stack themselves) makes it a decoder stack, with
    cross-attention in every layer: counted by transformers."""
    archs = c.get("architectures")
    if isinstance(archs, list) and archs and str(archs[0]).endswith("EncoderModel"):
        d["num_decoder_layers"] = 0
        if c.bool("is_decoder", default=False):
            raise BeyondRow("is_decoder", "T5EncoderModel's stack built as a decoder (cross-attention in every layer)")


def same_encoder_decoder(c: Cfg, d: Values) -> None:
    """BART-style stacks: ParamScope counts one width for both stacks, so they must agree."""
    for enc, dec in (("encoder_ffn_dim", "decoder_ffn_dim"), ("encoder_attention_heads", "decoder_attention_heads")):
        if c.get(enc) != c.get(dec):
            raise SpecError(dec, "differing encoder and decoder sizes are not supported yet")
    d["share_stack_embeddings"] = d["tie_word_embeddings"]  # untied BART: each stack keeps its own table too


def bart_decoder_alone(c: Cfg, d: Values) -> None:
    """BartForCausalLM is BART's decoder alone (its cross-attention kept, no encoder), which the row does not describe:
    transformers counts it (BLIP-2 builds a BART text config so, as AutoModelForCausalLM)."""
    if d["architecture"] == "causal_lm":
        raise BeyondRow("architectures", "BartForCausalLM (the decoder alone) has no formula row")


def whisper(c: Cfg, d: Values) -> None:
    """Whisper: the encoder reads mel frames (no token table of its own: the one table is the decoder's, tied or not
    to the head), and only the encoder-decoder (WhisperForConditionalGeneration, WhisperModel) is modelled."""
    if d["architecture"] == "causal_lm":
        raise SpecError("architectures", "WhisperForCausalLM (the decoder alone) is not counted yet")
    d["share_stack_embeddings"] = True


# ------------------------------------------------------------------ what a checkpoint holds beyond the model
Note = Callable[[Mapping[str, Any], Spec, Node], "str | None"]


def released_head(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """T5 and mT5: transformers 5's config ties the LM head whatever the file says; a file saying
    ``tie_word_embeddings: false`` (T5 v1.1, Flan-T5) is counted as its release, whose checkpoint stores the head apart
    (docs/conventions.md: the released model wins)."""
    head = tree.get("head/lm")
    if not head:
        return None
    return (
        f"the released model wins: the checkpoint stores lm_head apart ({head:,}, counted here, as transformers 4 "
        f"built it), where transformers 5's config ties it whatever the file says, so its class built from this file "
        f"holds {tree.count - head:,}"
    )


def mtp_layers(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """DeepSeek-V3, GLM-4.5: ``num_nextn_predict_layers`` multi-token-prediction layers ship in the checkpoint but
    transformers does not build them. Each is one MoE decoder layer, a 2h->h projection and three norms; DeepSeek-V3
    stores an embedding and a head with it too."""
    n = config.get("num_nextn_predict_layers")
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0 or not spec.num_moe_layers:
        return None
    h = spec.hidden_size
    moe = tree.find("layers/moe")
    attention, norms = tree.find("layers/attention"), tree.find("layers/norm")
    layer = (moe.count // spec.num_moe_layers if moe else 0) + (attention.per_copy if attention else 0)
    layer += (norms.per_copy if norms else 0) + 2 * h * h + 3 * h
    tables = 2 * spec.vocab_size * h
    return (
        f"the checkpoint also holds {n} multi-token-prediction layer(s) that transformers does not build: "
        f"{n * layer:,} parameters (one MoE decoder layer + eh_proj 2·h×h + 3 norms each), {n * (layer + tables):,} "
        f"where it stores its own embedding and head copy (DeepSeek-V3: 671B built, 685B on the Hub)"
    )


def zero_expert_rows(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """LongCat-Flash: transformers allocates gate_up rows for the zero-computation experts too, which the released
    checkpoint does not hold (they compute nothing)."""
    rows = tree.get("layers/moe/zero_experts")
    if not rows:
        return None
    return (
        f"transformers allocates {rows:,} parameters of gate_up rows for the {spec.zero_experts:,} zero-computation "
        f"experts of each layer, which never compute and which the checkpoint does not hold: the released model is "
        f"{tree.count - rows:,} (LongCat-Flash: 560B); active per token counts the chosen slots as real experts, the "
        "upper bound of its dynamic range"
    )


def mpt_expansion(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """MPT: transformers builds the MLP 4 x d_model wide whatever ``expansion_ratio`` says."""
    ratio = config.get("expansion_ratio")
    if ratio is None or ratio == 4:
        return None
    return (
        f"expansion_ratio {ratio} is ignored: transformers' MptForCausalLM builds the MLP 4 × d_model wide (counted "
        f"here); MosaicML's own code would make it {ratio} × d_model"
    )


def router_bias_buffers(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """Routers with ``e_score_correction_bias`` (aux-loss-free balancing): a buffer per expert and MoE layer, stored
    in the checkpoint but not a parameter."""
    if not spec.num_moe_layers:
        return None
    slots = spec.num_experts + spec.zero_experts  # one per routing slot, LongCat's zero experts included
    n = slots * spec.num_moe_layers
    return (
        f"e_score_correction_bias: {n:,} router biases ({slots} per MoE layer) are buffers in transformers,"
        " stored in the checkpoint but not parameters"
    )


def xlstm_notes(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """xLSTM: what its classes ignore (tie_word_embeddings, add_out_norm), and an mLSTM width that the config's own
    qk_dim / v_dim (rounded up to 64, what sizes transformers' xLSTMCache) disagrees with."""
    notes = []
    if config.get("tie_word_embeddings") is True:
        notes.append("tie_word_embeddings is ignored: xLSTMForCausalLM ties no weights, its lm_head is counted apart")
    if config.get("add_out_norm") is False:
        notes.append("add_out_norm is ignored: xLSTMModel always builds out_norm (counted)")
    widths, rounded = [], []
    for key, default, width in (("qk_dim_factor", 0.5, spec.mlstm_qk_dim), ("v_dim_factor", 1.0, spec.mlstm_v_dim)):
        up = xlstm_round_up(spec.hidden_size * config.get(key, default), 64)
        if up != width:
            name = key.removesuffix("_factor")
            widths.append(f"{name} {width:,}")
            rounded.append(f"{name} {up:,}")
    if widths:
        notes.append(
            f"the mLSTM layers are built at int(hidden_size × factor) ({', '.join(widths)}), xLSTMConfig rounds up "
            f"to 64 ({', '.join(rounded)}) and sizes transformers' xLSTMCache so: a forward pass with that cache "
            "fails; the state is counted at the layers' widths"
        )
    return "; ".join(notes) or None
