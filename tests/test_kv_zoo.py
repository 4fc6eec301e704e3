"""KV-cache figures other tools get wrong, written out by hand from each model's published config.json.

Each expected number is the cache a decoder keeps: per layer that attends fully, 2 (k and v) × kv heads × head_dim
per token; a sliding layer holds at most its window; MLA holds the compressed latent plus the rotary key.
"""

from __future__ import annotations

import pytest
from test_engine_vs_hf import (
    BAMBA,
    DEEPSEEK_V4,
    GEMMA3N,
    GEMMA4,
    GEMMA4_SHARED_KV,
    GRANITE_HYBRID,
    HYBRID,
    JAMBA,
    MIMO,
    NEMOTRON_H,
    T5GEMMA_STACK,
    WHISPER,
    ZAMBA2,
)

from paramscope import from_config, preset
from paramscope.engine.memory import kv_cache

GiB = 2**30
#: Gemma 3 27B's text config (google/gemma-3-27b-it, text_config): 62 layers, 16 kv heads of 128, a 1,024-token
#: window on five of every six layers.
GEMMA3_27B_TEXT = {
    "model_type": "gemma3_text",
    "architectures": ["Gemma3ForCausalLM"],
    "vocab_size": 262208,
    "hidden_size": 5376,
    "intermediate_size": 21504,
    "num_hidden_layers": 62,
    "num_attention_heads": 32,
    "num_key_value_heads": 16,
    "head_dim": 128,
    "sliding_window": 1024,
    "max_position_embeddings": 131072,
}


def test_gemma3_27b_at_128k() -> None:
    """Gemma 3 27B at 131,072 tokens: 10 full layers hold every token, 52 sliding layers 1,024 (about 10.4 GiB in
    bf16, not the 62 GiB of a cache that ignores the 5:1 pattern)."""
    per_token_layer = 2 * 16 * 128 * 2  # bytes, bf16
    expected = 10 * per_token_layer * 131072 + 52 * per_token_layer * 1024
    actual = kv_cache(from_config(GEMMA3_27B_TEXT).spec, 131072, 1, "bf16").count
    assert (expected, 10.4) == (actual, round(actual / GiB, 1))


def test_gpt_oss_20b_alternates() -> None:
    """gpt-oss-20b: 12 full layers and 12 with a 128-token window, 8 kv heads of 64."""
    per_token_layer = 2 * 8 * 64 * 2
    expected = 12 * per_token_layer * 65536 + 12 * per_token_layer * 128
    assert expected == kv_cache(preset("gpt-oss-20b").spec, 65536, 1, "bf16").count


def test_qwen3_head_dim_is_stated() -> None:
    """Qwen3-0.6B states head_dim 128 (not 1024/16 = 64): 28 layers × 2 × 8 × 128 × 2 B per token."""
    assert 28 * 2 * 8 * 128 * 2 == kv_cache(preset("qwen3-0.6b").spec, 1, 1, "bf16").count


@pytest.mark.parametrize(("q_lora_rank", "layers"), [(1536, 61), (None, 4)])
def test_deepseek_v3_mla_caches_the_latent(q_lora_rank: int | None, layers: int) -> None:
    """DeepSeek-V3's MLA caches kv_lora_rank + qk_rope_head_dim = 512 + 64 values per token and layer, whatever
    its 128 heads (with or without q-LoRA)."""
    config = {
        "model_type": "deepseek_v3",
        "architectures": ["DeepseekV3ForCausalLM"],
        "hidden_size": 7168,
        "num_hidden_layers": layers,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "q_lora_rank": q_lora_rank,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "n_routed_experts": 256,
        "num_experts_per_tok": 8,
        "moe_intermediate_size": 2048,
        "first_k_dense_replace": 3,
        "vocab_size": 129280,
    }
    assert layers * (512 + 64) * 2 * 4096 == kv_cache(from_config(config).spec, 4096, 1, "bf16").count


SLIDING_TYPES = ["gemma2", "gemma3_text", "gpt_oss", "cohere2", "olmo3", "exaone4"]
SLIDING_TYPES += ["cohere2_moe", "exaone_moe", "granite_swa", "vaultgemma", "afmoe", "mimo_v2_flash", "gemma4_text"]
SLIDING_TYPES += ["cwm", "flint", "mellum", "kolibri1"]


@pytest.mark.parametrize("model_type", SLIDING_TYPES)
@pytest.mark.parametrize("layers", [1, 5, 6, 12, 13])
def test_sliding_layers_follow_the_config_class(model_type: str, layers: int) -> None:
    """Without ``layer_types`` in the file, the layers that slide are those the transformers config class fills in
    (every 2nd, 4th or 6th layer full, by family), and so are they when the file states the list as transformers
    writes it: counted from ``AutoConfig.for_model(...).layer_types``."""
    from transformers import AutoConfig

    config = {"model_type": model_type, "num_hidden_layers": layers, "sliding_window": 512, "pad_token_id": 0}
    hf = AutoConfig.for_model(model_type, **{k: v for k, v in config.items() if k != "model_type"})
    expected = sum(1 for t in hf.layer_types if t == "sliding_attention")
    written = {**config, "layer_types": list(hf.layer_types)}
    assert (expected, expected) == tuple(from_config(c).spec.sliding_window_layers for c in (config, written))


@pytest.mark.parametrize("layers", [1, 5, 6, 12, 13])
def test_gemma3n_sliding_layers_follow_its_config_class(layers: int) -> None:
    """Gemma 3n without layer_types: every fifth layer attends fully and the others slide, as Gemma3nTextConfig fills
    the list in (its last layer is not forced full, unlike Gemma 4's), and the list as transformers writes it counts
    the same. No layer reuses keys and values here: the class's default of 15 needs more layers than these."""
    from transformers import AutoConfig

    config = {"model_type": "gemma3n_text", "num_hidden_layers": layers, "num_kv_shared_layers": 0}
    hf = AutoConfig.for_model("gemma3n_text", **{k: v for k, v in config.items() if k != "model_type"})
    expected = sum(1 for t in hf.layer_types if t == "sliding_attention")
    written = {**config, "layer_types": list(hf.layer_types)}
    assert (expected, expected) == tuple(from_config(c).spec.sliding_window_layers for c in (config, written))


@pytest.mark.parametrize(
    "config",
    [
        {"num_layers": 24},
        {"num_layers": 3, "attention_types": [[["local"], 1], [["global", "local"], 1]], "window_size": 8},
        {"num_layers": 2, "attention_types": [[["global"], 2]], "attention_layers": ["local", "global"]},
    ],
)
def test_gpt_neo_local_layers_are_those_transformers_builds(config: dict) -> None:
    """GPT-Neo's local layers (sliding, within window_size) are those transformers' config lists in
    ``attention_layers``: expanded from ``attention_types``, or as the file states the list itself."""
    from transformers import AutoConfig

    hf = AutoConfig.for_model("gpt_neo", **config)
    spec = from_config({"model_type": "gpt_neo", **config}).spec
    assert (hf.attention_layers.count("local"), hf.window_size) == (spec.sliding_window_layers, spec.sliding_window)


#: Latent attention (GLM-5, A.X K1, Youtu-LLM), small, and the experts beside it.
LATENT = dict(
    q_lora_rank=12, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=2, v_head_dim=4, num_key_value_heads=4
)
LATENT_EXPERTS = dict(n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=8)


@pytest.mark.parametrize("model_type", ["cwm", "flint", "mellum", "kolibri1"])
def test_the_stated_window_is_read_whatever_use_sliding_window_says(model_type: str) -> None:
    """These config classes have no use_sliding_window (a leftover one in a file is ignored by transformers): the
    sliding layers attend within the stated window, as transformers' config says (Mellum's slide where layer_types
    says)."""
    from transformers import AutoConfig

    config = {"sliding_window": 40, "use_sliding_window": False, "num_hidden_layers": 6}
    if model_type == "mellum":
        config["layer_types"] = ["sliding_attention", "full_attention"] * 3
    hf = AutoConfig.for_model(model_type, **config)
    assert (hf.sliding_window, 40) == (from_config({"model_type": model_type, **config}).spec.sliding_window, 40)


#: Small models whose cache is checked against transformers': hybrids (Gated DeltaNet, lightning attention, short
#: convolutions: a constant state between full-attention layers' growing cache), state-space models (every layer a
#: Mamba mixer; Mamba reads intermediate_size as its inner width; Zamba2's shared blocks, each use caching its own
#: keys and values), and JetMoE's shared keys and values.
CACHES = {
    "qwen3_next": dict(
        model_type="qwen3_next",
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=8,
        shared_expert_intermediate_size=12,
        full_attention_interval=2,
        num_hidden_layers=5,
    ),
    "qwen3_5_text": dict(model_type="qwen3_5_text", num_hidden_layers=4),
    "granitemoehybrid": dict(
        GRANITE_HYBRID, num_local_experts=4, num_experts_per_tok=2, layer_types=["mamba", "attention", "mamba"]
    ),
    "bamba": dict(BAMBA, attn_layer_indices=[1]),
    "jamba": dict(JAMBA, attn_layer_period=4, attn_layer_offset=2, use_mamba_kernels=False),
    "mamba-stated-inner": dict(model_type="mamba", num_hidden_layers=2, state_size=4, conv_kernel=3),
    "mamba2": dict(
        model_type="mamba2", num_hidden_layers=2, state_size=4, conv_kernel=3, num_heads=8, head_dim=8, n_groups=2
    ),
    "nemotron_h": dict(NEMOTRON_H, hybrid_override_pattern="M-*E", mamba_head_dim=16, use_mamba_kernels=False),
    "falcon_h1": dict(
        model_type="falcon_h1",
        num_hidden_layers=2,
        mamba_d_ssm=64,
        mamba_n_heads=4,
        mamba_n_groups=2,
        mamba_d_state=4,
        mamba_d_conv=3,
    ),
    "lfm2_moe": dict(
        model_type="lfm2_moe",
        num_hidden_layers=3,
        layer_types=["conv", "full_attention", "conv"],
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=8,
        num_dense_layers=1,
    ),
    "rwkv": dict(model_type="rwkv", num_hidden_layers=2, attention_hidden_size=32),
    # xLSTM: per layer and head a 32 x 64 matrix memory, a normalizer of 32 and a stabilizer, in the model's precision
    "xlstm": dict(model_type="xlstm", num_hidden_layers=2, hidden_size=128, num_heads=2),
    # Zamba: keys and values in the hybrid layers only, a Mamba state (per head) in every layer
    "zamba": dict(
        model_type="zamba",
        num_hidden_layers=4,
        layers_block_type=["mamba", "hybrid", "mamba", "hybrid"],
        n_mamba_heads=2,
        mamba_d_state=4,
        num_key_value_heads=2,
    ),
    "zamba2": dict(ZAMBA2, num_mem_blocks=2, num_key_value_heads=2, head_dim=None, use_mamba_kernels=False),
    "jetmoe": dict(model_type="jetmoe", num_hidden_layers=2, kv_channels=8, num_local_experts=4, num_experts_per_tok=2),
    "minimax": dict(
        model_type="minimax",
        num_hidden_layers=3,
        layer_types=["linear_attention", "full_attention", "linear_attention"],
        num_local_experts=4,
        num_experts_per_tok=2,
        block_size=4,
    ),
    "lfm2": dict(model_type="lfm2", num_hidden_layers=3, full_attn_idxs=[1], conv_L_cache=3),
    # DeepSeek-V4: one key/value head in a sliding window (apart, or one tensor on compressed layers), compressed
    # entries every 2 or 4 tokens, the tokens since the last entry, the overlapped window and the indexer's keys
    "deepseek_v4": dict(DEEPSEEK_V4, index_topk=2, sliding_window=16, hc_mult=2),
    # MiMo-V2-Flash: keys 12 wide and values 8, twice the KV heads on the sliding layers
    "mimo_v2_flash": dict(MIMO),
    # Gemma 4: full-attention layers twice as wide with one KV head (values from the keys' projection, still cached
    # apart), the last two layers reusing keys and values (nothing cached)
    "gemma4_text": dict(GEMMA4, sliding_window=32, **GEMMA4_SHARED_KV),
    # Gemma 3n: the last two layers reuse the keys and values of the last sliding and the last full layer before them
    # (nothing cached); AltUp's streams and LAuReL keep no state
    "gemma3n_text": dict(GEMMA3N, sliding_window=32),
    # GLM-5 and Youtu-LLM cache the latent (kv_lora_rank + qk_rope_head_dim), GLM-5 its indexer's keys beside it
    "glm_moe_dsa": dict(
        LATENT,
        model_type="glm_moe_dsa",
        num_hidden_layers=4,
        index_n_heads=2,
        index_head_dim=4,
        index_topk=4,
        mlp_layer_types=["dense", "sparse", "sparse", "sparse"],
        **LATENT_EXPERTS,
    ),
    "axk1": dict(
        LATENT, model_type="axk1", num_hidden_layers=3, n_group=1, topk_group=1, head_dim=None, **LATENT_EXPERTS
    ),
    "youtu": dict(LATENT, model_type="youtu", num_hidden_layers=3, head_dim=None),
    # sliding layers (a window wider than the tokens): CWM's every fourth layer full, Flint's with sinks, Mellum's
    "cwm": dict(model_type="cwm", sliding_window=16, num_hidden_layers=5),
    "flint": dict(
        model_type="flint",
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=8,
        shared_expert_intermediate_size=12,
        sliding_window=16,
        num_hidden_layers=6,
    ),
    "kolibri1": dict(
        model_type="kolibri1",
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=8,
        shared_expert_intermediate_size=12,
        sliding_window=16,
        num_hidden_layers=6,
    ),
    "laguna": dict(
        model_type="laguna",
        num_hidden_layers=3,
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=8,
        shared_expert_intermediate_size=12,
        sliding_window=16,
        layer_types=["sliding_attention", "full_attention", "sliding_attention"],
    ),
    "mellum": dict(
        model_type="mellum",
        num_hidden_layers=4,
        num_local_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=8,
        sliding_window=16,
        layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
        mlp_layer_types=["dense", "sparse", "sparse", "sparse"],
    ),
    # OLMo Hybrid: Gated DeltaNet layers (their convolution window and fp32 state) and one attention layer in four
    "olmo_hybrid": dict(model_type="olmo_hybrid", num_hidden_layers=4, pad_token_id=0),
    # LFM3: short convolutions (their window) between full and sliding attention layers
    "lfm3": dict(
        model_type="lfm3", num_hidden_layers=5, pad_token_id=0, bos_token_id=1, eos_token_id=2, sliding_window=16
    ),
    "qwen3_5_text-layer-types": dict(
        model_type="qwen3_5_text",
        num_hidden_layers=3,
        layer_types=["linear_attention", "full_attention", "linear_attention"],
    ),
}
HYBRID_SIZES = {k: v for k, v in HYBRID.items() if k != "num_hidden_layers"}


def _cache_bytes(cache: object, seen: dict[int, object], depth: int = 0) -> None:
    """Every floating-point tensor reachable from a transformers cache object (keys, values, conv and recurrent
    states); the integer counters a sliding-window layer keeps (8 bytes each) are bookkeeping, not cache."""
    import torch

    if isinstance(cache, torch.Tensor):
        if cache.is_floating_point():
            seen[id(cache)] = cache
    elif depth < 5 and isinstance(cache, (list, tuple)):
        for item in cache:
            _cache_bytes(item, seen, depth + 1)
    elif depth < 5 and isinstance(cache, dict):
        for item in cache.values():
            _cache_bytes(item, seen, depth + 1)
    elif depth < 5 and hasattr(cache, "__dict__"):
        for item in vars(cache).values():
            _cache_bytes(item, seen, depth + 1)


@pytest.mark.parametrize("name", sorted(CACHES))
@pytest.mark.parametrize("tokens", [3, 9])
def test_cache_is_what_transformers_keeps(name: str, tokens: int) -> None:
    """The cache of a hybrid (or of JetMoE) after a forward pass of ``tokens`` tokens is what transformers actually
    allocates: run the real class (tiny, bf16, random weights, CPU) with ``use_cache`` and sum the bytes of every
    tensor its cache holds: keys and values of the attention layers, the convolution window and the fp32 recurrent
    state of the linear-attention and state-space layers, lightning attention's and the mLSTM's state in the model's
    precision."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = {k: v for k, v in {**HYBRID_SIZES, **CACHES[name]}.items() if v is not None}  # None: leave the key out
    hf_config = transformers.AutoConfig.for_model(**config)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(hf_config).to(torch.bfloat16).eval()
    with torch.no_grad():
        out = model(torch.arange(1, tokens + 1).unsqueeze(0), use_cache=True)
    # Mamba's output names it cache_params, RWKV's state
    cache = getattr(out, "past_key_values", None) or getattr(out, "cache_params", None) or out.state
    seen: dict[int, object] = {}
    _cache_bytes(cache, seen)
    expected = sum(t.numel() * t.element_size() for t in seen.values())
    assert expected == kv_cache(from_config(config).spec, tokens, 1, "bf16").count


def test_jamba_paper_cache_at_256k() -> None:
    """The Jamba paper (Lieber et al. 2024, Table 1) gives Jamba's KV cache at 256K tokens as 4GB (Llama-2 70B:
    128GB): only its 4 attention layers cache keys and values; the 28 Mamba layers add a few MB of state."""
    cache = kv_cache(preset("jamba-v0.1").spec, 256 * 1024, 1, "bf16")
    state = cache.get("kv_cache/ssm_state")
    assert (4 * GiB, True) == (cache.get("kv_cache/self"), 0 < state < 20 * 2**20)


@pytest.mark.parametrize("tokens", [3, 9])
def test_whisper_cache_is_what_transformers_keeps(tokens: int) -> None:
    """Whisper decoding ``tokens`` tokens keeps their keys and values in every decoder layer, and the cross-attention
    keys and values of all the encoder's ``max_source_positions`` frames (however short the text): the bytes of
    every tensor in transformers' cache after a real forward pass (tiny, bf16, CPU)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = WHISPER
    hf_config = transformers.AutoConfig.for_model(**config)
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(hf_config).to(torch.bfloat16).eval()
    features = torch.zeros(1, 8, 2 * 30, dtype=torch.bfloat16)  # the encoder's conv2 halves 60 frames to 30
    with torch.no_grad():
        out = model(input_features=features, decoder_input_ids=torch.arange(1, tokens + 1).unsqueeze(0), use_cache=True)
    seen: dict[int, object] = {}
    _cache_bytes(out.past_key_values, seen)
    expected = sum(t.numel() * t.element_size() for t in seen.values())
    assert expected == kv_cache(from_config(config).spec, tokens, 1, "bf16").count


def test_minimax_text_01_at_a_million_tokens() -> None:
    """MiniMax-Text-01 at 1,000,000 tokens in bf16: only its 10 softmax layers cache keys and values (8 kv heads of
    128), 40.96 GB; its 70 lightning layers keep 64 heads x 128 x 128 each, 146.8 MB, whatever the tokens. The
    paper's 456B total and 45.9B activated (without the input table and the untied head) hold too."""
    model = preset("minimax-text-01")
    cache = kv_cache(model.spec, 1_000_000, 1, "bf16")
    assert (10 * 2 * 8 * 128 * 2 * 1_000_000, 70 * 64 * 128 * 128 * 2) == (
        cache.get("kv_cache/self"),
        cache.get("kv_cache/lightning_state"),
    )
    s = model.summary
    assert (456.1, 45.9) == (round(s.total / 1e9, 1), round((s.active - s.embedding) / 1e9, 1))


@pytest.mark.parametrize("tokens", [3, 9])
def test_t5gemma_cache_is_what_transformers_keeps(tokens: int) -> None:
    """T5Gemma reading ``tokens`` source tokens and decoding ``tokens`` target tokens: every decoder layer keeps the
    target tokens' keys and values (the window, 16, is longer than the text here) and the cross-attention keys and
    values of the source: the bytes of every tensor in transformers' cache after a real forward pass (tiny, bf16,
    CPU). Past the window transformers keeps window - 1 tokens where a rolling buffer (Mistral's paper, serving
    engines) keeps the window: ParamScope counts the window (docs/memory-and-flops.md)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    stack = {**T5GEMMA_STACK, "num_hidden_layers": 3, "sliding_window": 16}
    config = {"model_type": "t5gemma", "encoder": stack, "decoder": stack}
    hf_config = transformers.AutoConfig.for_model(**config)
    torch.manual_seed(0)
    model = transformers.T5GemmaForConditionalGeneration(hf_config).to(torch.bfloat16).eval()
    ids = torch.arange(1, tokens + 1).unsqueeze(0)
    with torch.no_grad():
        out = model(input_ids=ids, decoder_input_ids=ids, use_cache=True)
    seen: dict[int, object] = {}
    _cache_bytes(out.past_key_values, seen)
    expected = sum(t.numel() * t.element_size() for t in seen.values())
    assert expected == kv_cache(from_config(config).spec, tokens, 1, "bf16").count


def test_gemma4_31b_at_256k() -> None:
    """Gemma 4 31B at its 262,144-token context (bf16): 50 sliding layers keep 1,024 tokens of 16 KV heads of 256;
    the 10 full-attention layers keep every token of 4 KV heads 512 wide (values cached apart from the keys, though
    they are the keys' projection): 0.84 + 21.47 = 22.31 GB."""
    sliding = 50 * 2 * 16 * 256 * 1024 * 2
    full = 10 * 2 * 4 * 512 * 262_144 * 2
    assert sliding + full == kv_cache(preset("gemma-4-31b-it").spec, 262_144, 1, "bf16").count


def test_gemma4_31b_tensor_parallel_splits_each_layer_kind_by_its_own_heads() -> None:
    """Over 8 tensor-parallel GPUs each holds 2 of the 16 KV heads of a sliding layer but a whole one of the 4 heads
    of a full-attention layer (heads are not split): 838,860,800 x 2/16 + 21,474,836,480 x 1/4 bytes at 262,144
    tokens."""
    from paramscope.engine.memory import Layout

    cache = kv_cache(preset("gemma-4-31b-it").spec, 262_144, 1, "bf16", Layout(tp=8))
    assert 838_860_800 * 2 // 16 + 21_474_836_480 // 4 == cache.count
