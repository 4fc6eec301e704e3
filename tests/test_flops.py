"""FLOPs, training compute, Chinchilla tokens, training time and MFU against published figures, plus
invariants (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramscope.engine import hardware
from paramscope.engine.flops import (
    attention_pairs,
    chinchilla_tokens,
    compute,
    forward,
    mfu,
    palm_flops_per_token,
    six_nd,
    training_seconds,
)
from paramscope.engine.params import summarize
from paramscope.engine.run import RunSettings
from paramscope.engine.spec import Spec
from paramscope.io import presets

GPT2 = presets.load("gpt2")
#: nanoGPT's notebook model: GPT-2 small with bias=False everywhere (124,337,664 parameters).
NANOGPT = GPT2.replace(attention_bias=False, mlp_bias=False, norm_bias=False)


# ------------------------------------------------------------------------------------------- nanoGPT
def test_nanogpt_gpt2_forward_pass() -> None:
    """nanoGPT transformer_sizing.ipynb: GPT-2 (124M) forward pass over block_size = 1024 tokens costs
    291,648,307,200 FLOPs (weight matmuls at 2 FLOPs per multiply-add, non-causal attention, LM head
    included; biases, norms and softmax not counted, so GPT-2's biases do not change it)."""
    assert 291_648_307_200 == forward(GPT2, 1024).count


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("layers/attention/qkv", 3_623_878_656),
        ("layers/attention/scores", 1_610_612_736),
        ("layers/attention/values", 1_610_612_736),
        ("layers/attention/o", 1_207_959_552),
        ("layers/mlp/up", 4_831_838_208),
        ("layers/mlp/down", 4_831_838_208),
    ],
)
def test_nanogpt_per_layer_components(path: str, expected: int) -> None:
    """nanoGPT transformer_sizing.ipynb, flops() table per block: attention/kqv 3,623,878,656,
    attention/scores and attention/reduce 1,610,612,736 each, attention/proj 1,207,959,552,
    mlp/ffw1 and mlp/ffw2 4,831,838,208 each (one layer, 1024 tokens)."""
    node = forward(GPT2, 1024).find(path)
    assert node is not None
    assert expected == node.per_copy


def test_nanogpt_lm_head() -> None:
    """nanoGPT transformer_sizing.ipynb: the final "dense" layer (the tied LM head) costs
    79,047,426,048 FLOPs per 1024-token sequence."""
    assert 79_047_426_048 == forward(GPT2, 1024).get("head/lm")


def test_nanogpt_training_total_and_palm_estimate() -> None:
    """nanoGPT transformer_sizing.ipynb: forward + backward (= 3 × forward) is 874,944,921,600 FLOPs per
    sequence and the PaLM formula (6N + 12·L·H·Q·T)·T gives 879,894,724,608 for the bias-free model
    (N = 124,337,664)."""
    c = compute(NANOGPT, RunSettings(seq=1024))
    assert 124_337_664 == c.params
    assert 874_944_921_600 == c.training_per_token * 1024
    assert 879_894_724_608 == palm_flops_per_token(c.params, 12, 12, 64, 1024) * 1024


def test_nanogpt_mfu_on_a100() -> None:
    """nanoGPT transformer_sizing.ipynb: 100 sequences of 1024 tokens per 0.755 s on one A100
    (312 TFLOPS bf16) is 37.14% of the A100."""
    c = compute(NANOGPT, RunSettings(seq=1024))
    a100 = hardware.get("a100-40gb")
    assert 37.14 == round(100 * mfu(100 * 1024 / 0.755, c.training_per_token, 1, a100.bf16_flops), 2)


def test_nanogpt_training_time_6nd() -> None:
    """nanoGPT transformer_sizing.ipynb: 6ND with N = 124,337,664 and D = 300B tokens on 8 A100s
    (312 TFLOPS) at 30% MFU takes 3.46 days."""
    seconds = training_seconds(six_nd(124_337_664, 300_000_000_000), 8, 312e12, 0.3)
    assert 3.46 == round(seconds / 86400, 2)


# ----------------------------------------------------------------------------------------- papers
@pytest.mark.parametrize("formula", ["palm", "ours"])
def test_palm_540b_mfu(formula: str) -> None:
    """PaLM paper (Chowdhery et al. 2022, Section 4.1 and Appendix B): 238.3K tokens/s on 6144 TPU v4
    chips (275 TFLOPS bf16 each) is 46.2% model FLOPs utilization for PaLM 540B at 2048 tokens, with
    6N + 12·L·H·Q·T FLOPs per token (L=118, H=48, Q=256, T=2048); our 3 × forward count agrees."""
    palm = presets.load("palm-540b")
    c = compute(palm, RunSettings(seq=2048))
    per_token = palm_flops_per_token(c.params, 118, 48, 256, 2048) if formula == "palm" else c.training_per_token
    tpu = hardware.get("tpu-v4")
    assert 46.2 == round(100 * mfu(238.3e3, per_token, 6144, tpu.bf16_flops), 1)


def test_chinchilla_70b_tokens() -> None:
    """Chinchilla (Hoffmann et al. 2022): a compute-optimal 70B model is trained on 1.4T tokens,
    20 tokens per parameter."""
    assert 1_400_000_000_000 == chinchilla_tokens(70_000_000_000)


def test_gpt3_training_compute() -> None:
    """GPT-3 paper (Brown et al. 2020, Table D.1): GPT-3 175B trained on 300B tokens took 3.14E+23 FLOPs
    (6ND with N the 174.6B parameters)."""
    c = compute(presets.load("gpt3-175b"), RunSettings(tokens=300_000_000_000))
    assert "3.14e+23" == f"{c.six_nd:.2e}"


def test_kaplan_forward_formula() -> None:
    """Kaplan et al. 2020, Table 1: C_forward ≈ 2N + 2·n_layer·n_ctx·d_attn per token, N the non-embedding
    parameters (2·d_model·n_layer·(2·d_attn + d_ff), biases ignored). Counted causally, query i sees
    i + 1 keys, which is Kaplan's context term plus the diagonal (2·n_layer·d_attn)."""
    n_layer, d, n_ctx = 12, 768, 1024
    n = 2 * d * n_layer * (2 * d + 4 * d)
    layers = forward(NANOGPT, n_ctx, causal=True).get("layers")
    assert 2 * n + 2 * n_layer * n_ctx * d + 2 * n_layer * d == layers // n_ctx


def test_six_nd_close_to_three_forward_for_gpt3() -> None:
    """Kaplan et al. 2020, Section 2.1: C ≈ 6N per training token when d_model ≫ n_ctx/12; GPT-3 175B
    (d_model 12288, n_ctx 2048) is within 3% of 6N."""
    c = compute(presets.load("gpt3-175b"), RunSettings(seq=2048))
    assert 1.00 < c.training_per_token / (6 * c.params) < 1.03


# ----------------------------------------------------------------------------------------- conventions
@pytest.mark.parametrize(
    ("seq", "causal", "window", "expected"),
    [
        (8, False, None, 64),
        (8, True, None, 36),
        (8, True, 3, 1 + 2 + 3 + 3 + 3 + 3 + 3 + 3),
        (8, False, 3, 24),
        (2, True, 10, 3),
    ],
)
def test_attention_pairs(seq: int, causal: bool, window: int | None, expected: int) -> None:
    """(query, key) pairs counted by hand: every pair (s²), the causal triangle s(s+1)/2, and at most
    `window` keys per query with a sliding window."""
    assert expected == attention_pairs(seq, causal, window)


def test_moe_forward_counts_active_experts_only() -> None:
    """Mixtral 8x7B (Jiang et al. 2024: 13B active of 47B): per token the matmuls cost 2 FLOPs per
    active parameter, except the embedding table (a lookup) and the norms; the LM head is a matmul."""
    mixtral = presets.load("mixtral-8x7b")
    s = summarize(mixtral)
    norms = mixtral.num_hidden_layers * 2 * 4096 + 4096
    matmul_params = s.active - 32000 * 4096 - norms
    tree = forward(mixtral, 1)
    attention_products = tree.get("layers/attention/scores") + tree.get("layers/attention/values")
    assert 2 * matmul_params == tree.count - attention_products
    assert 12.9 == round(s.active / 1e9, 1)


def test_encoder_decoder_counts_both_stacks_and_cross_attention() -> None:
    """t5-small: the encoder reads seq source tokens, the decoder writes seq target tokens with
    self-attention and cross-attention over the source; every part is present."""
    tree = forward(presets.load("t5-small"), 512)
    for path in ("encoder/layers/attention", "decoder/layers/attention", "decoder/layers/cross_attention", "head/lm"):
        assert tree.get(path) > 0, path


def test_training_is_three_forward_and_totals() -> None:
    """Training FLOPs per token are 3 × forward (backward = 2 × forward, as nanoGPT and PaLM assume);
    the total is that times D, Chinchilla's D = 20·N by default."""
    c = compute(GPT2, RunSettings(seq=1024))
    assert (3 * 284_812_800, 20 * 124_439_808) == (c.training_per_token, c.tokens)
    assert c.training_per_token * c.tokens == c.training_total


# ------------------------------------------------------------------------------------------- invariants
@st.composite
def specs(draw: st.DrawFn) -> Spec:
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 4))
    layers = draw(st.integers(1, 6))
    window = draw(st.sampled_from([None, 8, 100]))
    experts = draw(st.sampled_from([0, 0, 4]))
    return Spec(
        vocab_size=draw(st.integers(0, 3000)),
        hidden_size=heads * draw(st.integers(1, 32)),
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        intermediate_size=draw(st.integers(0, 256)),
        mlp_gated=draw(st.booleans()),
        num_experts=experts,
        num_experts_per_tok=2,
        tie_word_embeddings=draw(st.booleans()),
        num_decoder_layers=draw(st.sampled_from([0, 0, 2])),
        sliding_window=window,
        sliding_window_layers=draw(st.integers(0, layers)) if window else 0,
    )


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(1, 3000))
def test_causal_never_exceeds_non_causal(spec: Spec, seq: int) -> None:
    """Causal attention sees a subset of the keys, so it never costs more; at one token they agree."""
    assert forward(spec, seq, causal=True).count <= forward(spec, seq).count
    assert forward(spec, 1, causal=True).count == forward(spec, 1).count


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(1, 1000))
def test_forward_grows_with_sequence(spec: Spec, seq: int) -> None:
    """A longer sequence never costs fewer FLOPs in total, nor fewer per token."""
    a, b = forward(spec, seq).count, forward(spec, seq + 1).count
    assert a <= b
    assert a * (seq + 1) <= b * seq


@settings(max_examples=100, deadline=None)
@given(specs(), st.integers(1, 500))
def test_non_causal_per_token_is_affine_in_seq_without_windows(spec: Spec, seq: int) -> None:
    """Without sliding windows, non-causal FLOPs per token are matmuls + a term linear in seq, so equal
    steps in seq add equal amounts per token."""
    spec = spec.replace(sliding_window=None, sliding_window_layers=0)
    f = [forward(spec, k * seq).count // (k * seq) for k in (1, 2, 3)]
    assert f[1] - f[0] == f[2] - f[1]


@settings(max_examples=100, deadline=None)
@given(specs())
def test_flops_parents_are_sums(spec: Spec) -> None:
    """Every node of the FLOPs tree is the sum of its children."""
    for node in forward(spec, 64, causal=True).walk():
        if node.children:
            assert node.count == sum(c.count for c in node.children)


def test_vit_b16_forward_is_deits_17_6_gflops() -> None:
    """ViT-B/16 at 224 px reads its 197 tokens (196 patches and the class token) by default; its forward pass is the
    17.6 G multiply-accumulates of DeiT's Table 1 (Touvron et al. 2021, counted as fvcore counts: one per MAC), which
    are 35.2 GFLOPs at two per MAC, the patch convolution included."""
    c = compute(presets.load("dino-vitb16"), RunSettings())
    assert 197 == c.seq
    assert 17.6e9 == pytest.approx(c.forward_per_sequence / 2, rel=0.005)
    assert 2 * 196 * 768 * 768 == c.tree.get("embedding/patch")


def test_jetmoe_active_and_forward_count_chosen_experts_of_attention_and_mlp() -> None:
    """JetMoE (64 wide, 2 layers, 4 kv heads of 8, 4 experts, 2 per token, expert MLP 32, 100 tokens, tied): per
    layer the attention experts hold q and o (64 x 32 each) and the MLP experts a gated MLP (64 x 64 in, 32 x 64
    out); a token uses 2 of each 4, so 2 x (2 x 2,048 + 6,144) per layer are idle; the forward pass runs the shared
    kv projection, the routers and the chosen experts' matrices, 2 FLOPs per weight per token."""
    from paramscope import read

    config = dict(model_type="jetmoe", vocab_size=100, hidden_size=64, num_hidden_layers=2, num_key_value_heads=4)
    config.update(kv_channels=8, intermediate_size=32, num_local_experts=4, num_experts_per_tok=2)
    spec = read(config).spec
    s = summarize(spec)
    assert s.total - 2 * 2 * (2 * 64 * 32 + 64 * 64 + 32 * 64) == s.active
    per_token_layer = 2 * (64 * 64 + 2 * 64 * 4 + 2 * (2 * 64 * 32) + 2 * (64 * 64 + 32 * 64))
    tree = forward(spec, 1)
    assert 2 * per_token_layer == tree.get("layers/attention") - tree.get("layers/attention/scores") - tree.get(
        "layers/attention/values"
    ) + tree.get("layers/moe")


def test_qwen_patch_embedding_spans_two_frames() -> None:
    """Qwen3-VL's patch embedding is a Conv3d over 2 frames of 16 x 16 pixels in 3 channels to 1,152: per patch
    2 x 3 x 2 x 16 x 16 x 1,152 FLOPs (2,304 patches for its 48 x 48 position table)."""
    from paramscope import read

    spec = read({"model_type": "qwen3_vl_vision"}).spec
    assert 2 * 2304 * 3 * 2 * 16 * 16 * 1152 == forward(spec, 2304).get("embedding/patch")


def test_gemma4_forward_reads_every_linear_layer_and_each_layers_own_head_width() -> None:
    """Gemma 4 (per-layer inputs, full-attention layers twice as wide with one KV head, the last two layers reusing
    keys and values, their MLPs twice as wide): the forward pass is 2 x seq x the weights of every nn.Linear of
    Gemma4ForCausalLM built on the meta device (the tied head included), plus 2 x 2 x heads x the layer's own head
    width per (query, key) pair: seq^2 pairs on full layers, seq x window on sliding ones (bidirectional)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import GEMMA4, GEMMA4_SHARED_KV

    from paramscope import from_config
    from paramscope.engine.flops import forward

    config = {k: v for k, v in GEMMA4.items() if k != "model_type"} | GEMMA4_SHARED_KV | {"sliding_window": 5}
    seq = 12
    with torch.device("meta"):
        model = transformers.Gemma4ForCausalLM(transformers.Gemma4TextConfig(**config))
    linear = sum(m.in_features * m.out_features for m in model.modules() if isinstance(m, torch.nn.Linear))
    widths = [layer.self_attn.head_dim for layer in model.model.layers]
    pairs = [seq * (seq if kind == "full_attention" else 5) for kind in config["layer_types"]]
    scores = sum(2 * 2 * 4 * width * p for width, p in zip(widths, pairs, strict=True))
    assert [8, 16] * 3 == widths
    assert 2 * seq * linear + scores == forward(from_config({"model_type": "gemma4_text", **config}).spec, seq).count


def test_deepseek_v4_forward_reads_its_windows_and_compressed_entries() -> None:
    """DeepSeek-V4 (bidirectional count): 2 x seq x the weights of every nn.Linear of DeepseekV4ForCausalLM on the
    meta device, the router and 2 of 4 experts per token; every query against its window (2 x 2 x heads x head_dim per
    pair, one key/value head), against the seq // 4 entries of the heavily compressed layer and the 2 (index_topk) of
    seq // 2 entries the indexer picks on the compressed sparse layer, whose indexer scores every entry
    (2 x index_n_heads x index_head_dim). The hyper-connections' mixing is not counted."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_kv_zoo import CACHES

    from paramscope import from_config
    from paramscope.engine.flops import forward

    config = {k: v for k, v in CACHES["deepseek_v4"].items() if k != "model_type"}
    config |= dict(vocab_size=101, hidden_size=32, num_attention_heads=4, head_dim=8)
    seq, window = 12, 16
    with torch.device("meta"):
        model = transformers.DeepseekV4ForCausalLM(transformers.DeepseekV4Config(**config))
    linear = sum(m.in_features * m.out_features for m in model.modules() if isinstance(m, torch.nn.Linear))
    experts = 3 * 32 * 16 * 2  # gate, up and down of 2 experts of 16
    router = 4 * 32
    per_pair = 2 * 2 * 4 * 8
    attention = 3 * seq * min(seq, window) * per_pair + seq * (seq // 4) * per_pair + seq * min(2, seq // 2) * per_pair
    indexer = 2 * 2 * 4 * seq * (seq // 2)
    expected = 2 * seq * (linear + 3 * (experts + router)) + attention + indexer
    assert expected == forward(from_config({"model_type": "deepseek_v4", **config}).spec, seq).count


def test_mimo_v2_flash_values_are_narrower_than_keys() -> None:
    """MiMo-V2-Flash (bidirectional count, 12 tokens within the 16-token window): 2 x seq x every nn.Linear of
    MiMoV2FlashForCausalLM on the meta device, its routers and 2 of 4 experts on the 3 expert layers, and per (query,
    key) pair 2 x heads x 12 for the scores but 2 x heads x 8 for the values (v_head_dim)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import MIMO

    from paramscope import from_config
    from paramscope.engine.flops import forward

    config = {k: v for k, v in MIMO.items() if k != "model_type"}
    seq = 12
    with torch.device("meta"):
        model = transformers.MiMoV2FlashForCausalLM(transformers.MiMoV2FlashConfig(**config))
    linear = sum(m.in_features * m.out_features for m in model.modules() if isinstance(m, torch.nn.Linear))
    experts_and_routers = 3 * (3 * 32 * 16 * 2 + 4 * 32)
    attention = 4 * seq * seq * (2 * 4 * 12 + 2 * 4 * 8)
    expected = 2 * seq * (linear + experts_and_routers) + attention
    assert expected == forward(from_config(MIMO).spec, seq).count


def test_gemma3n_forward_reads_every_linear_layer_and_the_altup_router_twice() -> None:
    """Gemma 3n (AltUp's three streams, LAuReL, per-layer inputs, the last two layers reusing keys and values): the
    forward pass is 2 x seq x the weights of every nn.Linear of Gemma3nForCausalLM built on the meta device (the tied
    head included), each layer's AltUp router once more (it weighs the streams to predict them and again to correct
    them), plus 2 x 2 x heads x head_dim per (query, key) pair: seq^2 pairs on full layers, seq x window on sliding
    ones (bidirectional)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import GEMMA3N

    from paramscope import from_config
    from paramscope.engine.flops import forward

    config = {k: v for k, v in GEMMA3N.items() if k != "model_type"} | {"sliding_window": 5}
    seq = 12
    with torch.device("meta"):
        model = transformers.Gemma3nForCausalLM(transformers.Gemma3nTextConfig(**config))
    linear = sum(m.in_features * m.out_features for m in model.modules() if isinstance(m, torch.nn.Linear))
    routers = sum(layer.altup.modality_router.weight.numel() for layer in model.model.layers)
    pairs = [seq * (seq if kind == "full_attention" else 5) for kind in config["layer_types"]]
    scores = sum(2 * 2 * 4 * 8 * p for p in pairs)
    spec = from_config({"model_type": "gemma3n_text", **config}).spec
    assert 2 * seq * (linear + routers) + scores == forward(spec, seq).count


@pytest.mark.parametrize("seq", [10, 40])
def test_gemma4_audio_forward_reads_its_window_and_relative_positions_once(seq: int) -> None:
    """Gemma 4's audio tower (Gemma4AudioModel on the meta device, 2 layers 32 wide, 4 heads): 2 x seq x the weights of
    every nn.Linear but relative_k_proj (the subsampling projection, two feed-forward blocks a layer, q/k/v/post, the
    convolution module's two layers, output_proj), relative_k_proj once over the context_size // 2 + 1 relative
    positions, 2 x seq x hidden x taps for the depthwise convolution, and per query 2 x heads x head_dim against each
    relative position and, twice (scores and values), against each key of its window (chunk + left - 1 + right = 24
    keys, at most seq); the subsampling convolutions are not counted."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import CASES

    from paramscope import from_config

    config = {k: v for k, v in CASES["gemma4-audio"].items() if k != "model_type"}
    with torch.device("meta"):
        model = transformers.Gemma4AudioModel(transformers.Gemma4AudioConfig(**config))
    linears = {name: m for name, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    relative = sum(m.in_features * m.out_features for n, m in linears.items() if n.endswith("relative_k_proj"))
    per_token = sum(m.in_features * m.out_features for n, m in linears.items() if not n.endswith("relative_k_proj"))
    attn = model.layers[0].self_attn
    positions, window, width = attn.context_size // 2 + 1, attn.context_size, attn.num_heads * attn.head_dim
    convs = sum(layer.lconv1d.depthwise_conv1d.weight.numel() for layer in model.layers)
    layers = len(model.layers)
    expected = 2 * seq * per_token + 2 * positions * relative + 2 * seq * convs
    expected += layers * (2 * width * positions * seq + 2 * 2 * width * seq * min(seq, window))
    assert (24, expected) == (window, forward(from_config({"model_type": "gemma4_audio", **config}).spec, seq).count)


@pytest.mark.parametrize(
    "case", ["gemma3n-audio-own-kernels-and-strides", "gemma3n-audio-three-channels-the-last-the-second"]
)
@pytest.mark.parametrize("seq", [10, 40])
def test_gemma3n_audio_forward_reads_its_window_and_relative_positions_once(case: str, seq: int) -> None:
    """Gemma 3n's audio encoder (Gemma3nAudioEncoder on the meta device): 2 x seq x the weights of every nn.Linear but
    pos_proj (the subsampling projection of the bins its own kernels and strides leave, two feed-forward blocks a
    layer, q/k/v/post, the convolution module's two layers), pos_proj once over its max_backward + max_forward + 1
    relative positions, 2 x seq x hidden x taps for the depthwise convolution, and per query 2 x heads x head_dim
    against each relative position and, twice, against each key of its context (chunk + max(0, left - 1) + right, at
    most seq); the subsampling convolutions are not counted."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import CASES

    from paramscope import from_config

    config = {k: v for k, v in CASES[case].items() if k != "model_type"}
    with torch.device("meta"):
        model = transformers.Gemma3nAudioEncoder(transformers.Gemma3nAudioConfig(**config))
    linears = {name: m for name, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    relative = sum(m.in_features * m.out_features for n, m in linears.items() if n.endswith("pos_proj"))
    per_token = sum(m.in_features * m.out_features for n, m in linears.items() if not n.endswith("pos_proj"))
    attn = model.conformer[0].attention.attn
    embedding = attn.relative_position_embedding
    positions = embedding.max_backward + embedding.max_forward + 1
    window, width = attn.context_size, attn.num_heads * attn.head_dim
    convs = sum(layer.lconv1d.depthwise_conv1d.weight.numel() for layer in model.conformer)
    layers = len(model.conformer)
    expected = 2 * seq * per_token + 2 * positions * relative + 2 * seq * convs
    expected += layers * (2 * width * positions * seq + 2 * 2 * width * seq * min(seq, window))
    assert expected == forward(from_config({"model_type": "gemma3n_audio", **config}).spec, seq).count
