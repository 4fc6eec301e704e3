"""Memory estimates against published figures, plus invariants that hold for every model (hypothesis)."""

from __future__ import annotations

import dataclasses
import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramscope.engine.memory import activations, kv_cache, max_fit, memory, model_states, parts, phases, weight_bytes
from paramscope.engine.params import count
from paramscope.engine.run import RunSettings
from paramscope.engine.spec import Spec
from paramscope.io import presets

GB = 10**9
GiB = 2**30

LLAMA_2_7B = presets.load("llama-2-7b")
GPT3 = presets.load("gpt3-175b")
#: Korthikanti et al.'s set-up: Megatron-LM's fused kernels, 16-bit weights with an fp32 master copy
MEGATRON = dict(kernels="fused", precision="master")


# ------------------------------------------------------------------------------------ published figures
@pytest.mark.parametrize(
    ("stage", "expected_gb"),
    [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)],
)
def test_zero_paper_model_states_7_5b_on_64_gpus(stage: int, expected_gb: float) -> None:
    """ZeRO paper (Rajbhandari et al. 2020, Figure 1): a 7.5B model (Ψ = 7.5B) with mixed-precision Adam
    (K = 12) on Nd = 64 GPUs needs 120 / 31.4 / 16.6 / 1.9 GB of model states per GPU for the baseline,
    P_os, P_os+g and P_os+g+p."""
    states = model_states(7_500_000_000, "bf16", "adamw", zero=stage, gpus=64)
    assert expected_gb == round(states.count / GB, 1)


def test_zero_paper_gpt2_1_5b_needs_24_gb() -> None:
    """ZeRO paper, Section 3.1: "a GPT-2 model with 1.5B parameters ... requires at least 24 GB" of model
    states when trained with Adam in mixed precision (16 bytes per parameter)."""
    assert 24 * GB == model_states(1_500_000_000, "bf16", "adamw").count


def test_adamw_mixed_precision_is_16_bytes_per_parameter() -> None:
    """ZeRO paper, Section 3.1: mixed-precision Adam keeps 2Ψ + 2Ψ + KΨ bytes with K = 12
    (fp16 weights and gradients; fp32 master weights, momentum and variance)."""
    states = model_states(1000, "bf16", "adamw")
    assert (2000, 2000, 12000) == (states.get("weights"), states.get("gradients"), states.get("optimizer"))


@pytest.mark.parametrize(
    ("recompute", "flash", "formula"),
    [
        ("none", False, "sbh(34 + 5as/h)"),
        ("selective", False, "34sbh"),
        ("none", True, "34sbh"),
        ("full", False, "2sbh"),
    ],
)
def test_korthikanti_gpt3_175b_activations_per_layer(recompute: str, flash: bool, formula: str) -> None:
    """Korthikanti et al. 2022 (Reducing Activation Recomputation in Large Transformer Models), Table 2
    without parallelism (t = 1): per transformer layer sbh(34 + 5as/h) bytes, 34sbh with selective
    recomputation (FlashAttention stores no scores either), 2sbh with full recomputation; GPT-3 175B
    (s = 2048, b = 1, h = 12288, a = 96) with dropout, 16-bit activations."""
    s, b, h, a = 2048, 1, 12288, 96
    expected = {"sbh(34 + 5as/h)": s * b * h * 34 + 5 * a * s * s * b, "34sbh": 34 * s * b * h, "2sbh": 2 * s * b * h}
    run = RunSettings(
        mode="training", dtype="bf16", batch=b, seq=s, recompute=recompute, flash=flash, dropout=True, **MEGATRON
    )
    layers = activations(GPT3, run, run.seq).find("activations/layers")
    assert layers is not None
    assert expected[formula] == layers.count // GPT3.num_hidden_layers
    assert 0 == layers.count % GPT3.num_hidden_layers


def test_korthikanti_gpt3_number() -> None:
    """Korthikanti et al. 2022, Table 2 for GPT-3 175B (s=2048, b=1, h=12288, a=96): 5as/h = 80, so
    sbh(34 + 80) = 2,868,903,936 bytes (2.87 GB) per layer."""
    run = RunSettings(mode="training", batch=1, seq=2048, dropout=True, flash=False, **MEGATRON)  # scores stored
    layers = activations(GPT3, run, run.seq).find("activations/layers")
    assert layers is not None
    assert 2_868_903_936 == layers.count // 96


@pytest.mark.parametrize(
    ("name", "per_token_layer"),
    [
        # h = 4096, f = 11008: input 2h, Q/K/V 3·2h, context 2h | MLP input 2h, 4 gated tensors 4·2f | 2 norms 2·2h
        ("llama-2-7b", 2 * 4096 + 6 * 4096 + 2 * 4096 + 2 * 4096 + 8 * 11008 + 4 * 4096),
        # GQA: K and V at 8 kv heads × 128 = 1024 wide each; f = 14336
        ("mistral-7b", 2 * 4096 + 2 * (4096 + 2 * 1024) + 2 * 4096 + 2 * 4096 + 8 * 14336 + 4 * 4096),
        # GPT block without dropout masks: Korthikanti's 34h less the two h-byte masks
        ("gpt3-175b", 32 * 12288),
    ],
)
def test_activations_generalized_per_component(name: str, per_token_layer: int) -> None:
    """Korthikanti et al. 2022's per-tensor accounting (Section 4.1) applied to other blocks, with
    FlashAttention (no stored scores) and no dropout: Q/K/V at their own widths (GQA), a gated MLP keeps
    gate, up, act(gate) and their product (4 tensors of width f), each norm keeps its input."""
    spec = presets.load(name)
    run = RunSettings(mode="training", batch=2, seq=1000, flash=True, **MEGATRON)
    layers = activations(spec, run, run.seq).get("activations/layers")
    assert per_token_layer * 2 * 1000 * spec.num_hidden_layers == layers


def test_llama_2_7b_kv_cache_is_2_gib_at_4096_tokens() -> None:
    """NVIDIA, "Mastering LLM Techniques: Inference Optimization" (2023): Llama 2 7B in 16-bit at batch 1
    and 4,096 tokens has a KV cache of 1 * 4096 * 2 * 32 * 4096 * 2 bytes, about 2 GB (exactly 2 GiB)."""
    run = RunSettings(mode="inference", dtype="fp16", batch=1, seq=4096)
    assert 2 * GiB == parts(memory(LLAMA_2_7B, run))["kv_cache"]


def test_mistral_rolling_buffer_cuts_cache_8x_at_32k() -> None:
    """Mistral 7B paper (Jiang et al. 2023, Section 2, rolling buffer cache): with W = 4096, "on a sequence
    length of 32k tokens, this reduces the cache memory usage by 8x" without quality loss."""
    mistral = presets.load("mistral-7b")
    windowed = kv_cache(mistral, 32768, 1, "bf16").count
    full = kv_cache(mistral.replace(sliding_window=None), 32768, 1, "bf16").count
    assert full == 8 * windowed


def test_deepseek_v2_mla_caches_4_5_head_dims_per_layer() -> None:
    """DeepSeek-V2 paper (2024), Table 1: MLA caches (d_c + d_h^R)·l elements per token, which with
    d_c = 4·d_h and d_h^R = d_h/2 is 9/2·d_h·l, "equal to GQA with only 2.25 groups"; DeepSeek-V2-Lite
    has d_c = 512, d_h^R = 64, 27 layers (d_h = 128 for the 9/2 rule)."""
    lite = presets.load("deepseek-v2-lite")
    per_token = kv_cache(lite, 1, 1, "bf16").count // 2  # bf16: 2 bytes per element
    assert 27 * 9 * 128 // 2 == per_token
    assert 27 * 2 * 2.25 * 128 == per_token  # GQA with 2.25 key/value groups of 128


def test_gemma_2_alternates_local_and_global_layers() -> None:
    """Gemma 2 paper (2024), Section 2: layers alternate between local sliding-window attention (4096
    tokens) and global attention (8192 tokens); at 8192 tokens half of the 42 layers cache 4096 tokens."""
    gemma = presets.load("gemma-2-9b")
    per_token_layer = 2 * 8 * 256 * 2  # K and V, 8 kv heads of 256, bf16
    assert (21 * 8192 + 21 * 4096) * per_token_layer == kv_cache(gemma, 8192, 1, "bf16").count


@pytest.mark.parametrize("name", ["t5-small", "flan-t5-base"])
def test_encoder_decoder_caches_self_and_cross_attention(name: str) -> None:
    """An encoder-decoder caches, per decoder layer, its own keys/values and the cross-attention
    keys/values of the encoder output (source length = target length here): twice a decoder-only cache."""
    spec = presets.load(name)
    tree = kv_cache(spec, 512, 2, "bf16")
    one = 2 * spec.num_decoder_layers * spec.kv_heads * spec.head_size * 512 * 2 * 2
    assert (one, one) == (tree.get("kv_cache/self"), tree.get("kv_cache/cross"))


@pytest.mark.parametrize("name", ["bert-base-uncased", "roberta-base", "distilbert-base-uncased"])
def test_encoder_only_models_have_no_kv_cache(name: str) -> None:
    """Encoder-only models do not generate token by token, so they keep no KV cache."""
    assert 0 == kv_cache(presets.load(name), 512, 8, "bf16").count


@pytest.mark.parametrize(("dtype", "bits"), [("fp32", 32), ("bf16", 16), ("fp16", 16), ("int8", 8), ("int4", 4)])
def test_weight_bytes_by_format_llama_2_7b(dtype: str, bits: int) -> None:
    """Weights of Llama 2 7B (6,738,415,616 parameters): fp32 4 bytes, 16 bit 2 bytes per parameter;
    int8/int4 quantize only the layer matrices (6,476,005,376 weights) and keep the 262,144,000 embedding
    and LM-head weights and the 266,240 norm weights in 16 bit; int8 adds one fp16 scale per output row,
    int4 a fp16 scale and zero per group of 128 (4.25 bits per matrix weight in all)."""
    matrices, embeddings, norms = 6_476_005_376, 262_144_000, 266_240
    assert 6_738_415_616 == matrices + embeddings + norms
    tree = weight_bytes(LLAMA_2_7B, dtype)
    if bits >= 16:
        assert 6_738_415_616 * bits // 8 == tree.count
    elif bits == 8:
        rows = 32 * (3 * 4096 + 4096 + 2 * 11008 + 4096)  # output rows of q,k,v + o + gate,up + down
        assert matrices + 2 * rows + 2 * (embeddings + norms) == tree.count
    else:
        assert matrices * 17 // 32 + 2 * (embeddings + norms) == tree.count  # 4.25 bits = 17/32 bytes


@pytest.mark.parametrize("name", ["gpt-oss-20b", "gpt-oss-120b"])
def test_mxfp4_weights_are_what_transformers_holds(name: str) -> None:
    """gpt-oss in MXFP4, as its checkpoint and transformers' MXFP4 integration hold it (hf_oracle.hf_mxfp4_bytes:
    the class on meta with transformers' ``Mxfp4GptOssExperts`` and the checkpoint's scales); attention, router,
    embeddings and head in bf16."""
    from hf_oracle import hf_mxfp4_bytes

    assert hf_mxfp4_bytes(presets.get(name).config)[0] == weight_bytes(presets.model(name).cost_spec, "mxfp4").count


def _cases() -> dict[str, dict]:
    from test_engine_vs_hf import CASES

    return CASES


@functools.cache
def _whole_configs() -> dict[str, dict]:
    """Every whole-model preset and each whole row's small config whose classes transformers builds alone (Gemma
    3n's, FastVLM's and PerceptionLM's vision towers are timm's) and whose memory is sized (CLIP's and SigLIP's
    dual encoders have no language model to run it on)."""
    from test_wholes import SMALL

    from paramscope.families.wholes import WHOLES

    timm = {"gemma3n", "fast_vlm", "perception_lm"}
    wholes = [n for n in presets.names_with_costs() if presets.get(n).config["model_type"] in WHOLES]
    out = {n: presets.get(n).config for n in wholes}
    small = {t: c for t, c in SMALL.items() if t not in timm and WHOLES[t].language}
    return out | {f"{t}-small": {"model_type": t, **c} for t, c in small.items()}


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("name", sorted(_cases()))
def test_weights_in_16_bit_are_what_the_loader_keeps(name: str, dtype: str) -> None:
    """A checkpoint loaded in fp16 or bf16 keeps some weights in fp32: those its class's dtype plan names
    (``_keep_in_fp32_modules`` in fp16, ``_keep_in_fp32_modules_strict`` in both: T5's ``wo``, gpt-oss's norms,
    ERNIE's router, DeepSeek-V4's hyper-connections, ...) and those its modeling file makes fp32 (Zamba's A_log). For
    each family's differential case, the weights' bytes equal the class built on meta under that dtype, each
    parameter once at the dtype transformers' loader gives it."""
    import torch
    from hf_oracle import hf_weight_bytes

    from paramscope import read

    config = _cases()[name]
    expected = hf_weight_bytes(config, {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype])
    assert expected == weight_bytes(read(config).spec, dtype).count


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("name", sorted(_whole_configs()))
def test_a_whole_models_weights_in_16_bit_are_what_the_loader_keeps(name: str, dtype: str) -> None:
    """The same for whole multimodal models, whose memory runs on the language model with the other towers held as
    weights: BLIP-2 keeps its Q-Former and query tokens in fp32 when loaded in fp16, Voxtral its audio position table
    in both."""
    import torch
    from hf_oracle import hf_weight_bytes

    from paramscope.model import Model

    config = _whole_configs()[name]
    expected = hf_weight_bytes(config, {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype])
    assert expected == weight_bytes(Model.from_config(config).cost_spec, dtype).count


def test_fits_and_largest_context() -> None:
    """Llama 2 7B in bf16 on an 80 GB GPU, its context window lifted to 1M tokens: the prefill's peak is 13.48 GB of
    weights, 0.5 MiB of KV cache a token (2·32·4096·2 = 524,288 bytes), one layer's working set of 2·(4h + 3f) =
    98,816 bytes a token (measured on an H100, docs/measurements/h100-peaks-2026-11-26.json), the last token's
    logits and their fp32 upcast (6 B × 32,000), and the assumed 768 MiB of runtime (the allocator's margin gives way
    near capacity: runs at 72.5 GiB allocated under a 79.18 GiB cap ran, docs/measurements). With its own
    4,096-token window the largest context is the window."""
    run = RunSettings(dtype="bf16", batch=1)
    weights, runtime, logits = 2 * 6_738_415_616, 768 * 2**20, 6 * 32_000
    long = dataclasses.replace(LLAMA_2_7B, max_position_embeddings=1_000_000)
    best = max_fit(long, run, 80 * GB)

    def peak(n: int) -> int:
        return weights + 524_288 * n + 98_816 * n + logits + runtime

    assert best is not None
    assert (True, False) == (peak(best) <= 80 * GB, peak(best + 1) <= 80 * GB)
    assert 4096 == max_fit(LLAMA_2_7B, run, 80 * GB)


def test_nothing_fits_returns_none() -> None:
    """A model whose weights alone exceed the GPU has no context that fits."""
    assert max_fit(presets.load("llama-2-70b"), RunSettings(), 24 * GB) is None


def test_all_sliding_layers_fit_any_context() -> None:
    """When every layer slides (Mistral 7B v0.1), a serving engine's cache stops growing at the window and its
    prefill runs in chunks, so every context up to the model's own 32,768 fits once the weights and one window fit;
    transformers' prefill holds the whole prompt in every layer's cache and fits less."""
    spec = presets.load("mistral-7b")
    run = RunSettings(batch=16)
    assert 32_768 == max_fit(spec, dataclasses.replace(run, serving=True), 80 * GB) == spec.max_position_embeddings
    assert max_fit(spec, run, 80 * GB) < 32_768


def test_training_zero3_divides_everything_but_activations() -> None:
    """ZeRO-3 over 8 GPUs: weights, gradients and optimizer states per GPU are an eighth (rounded up), with 16-bit
    weights and an fp32 master copy (2 + 2 + 12 bytes) and under AMP (4 + 4 + 8); the layers' activations do not
    change."""
    spec = LLAMA_2_7B
    n = count(spec).count
    shard = -(-n // 8)
    for precision, per in (("master", (2, 2, 12)), ("amp", (4, 4, 8))):
        run = RunSettings(mode="training", seq=1024, precision=precision)
        one = {p.path: p for p in phases(spec, run)}
        eight = {p.path: p for p in phases(spec, dataclasses.replace(run, zero=3, gpus=8))}
        step = parts(eight["step"])
        assert tuple(k * shard for k in per) == (step["weights"], step["gradients"], step["optimizer"])
        kept = [p["forward"].find("activations/layers").count for p in (one, eight)]
        assert kept[0] == kept[1]


@pytest.mark.parametrize(
    ("optimizer", "dtype", "per_param"),
    [("adamw", "bf16", 16), ("sgd", "bf16", 12), ("adamw", "fp32", 16), ("sgd", "fp32", 12)],
)
def test_optimizer_bytes_per_parameter(optimizer: str, dtype: str, per_param: int) -> None:
    """Model states per parameter: mixed-precision AdamW 2+2+12, SGD with momentum 2+2+8 (fp32 master +
    momentum); fp32 AdamW 4+4+8, fp32 SGD 4+4+4."""
    assert 1_000_000 * per_param == model_states(1_000_000, dtype, optimizer).count


def test_adam8bit_block_scales() -> None:
    """8-bit Adam (Dettmers et al. 2022): 1 byte per moment plus one fp32 absmax per block of 2048 values
    per moment; in mixed precision the fp32 master weights stay: 2 + 2 + (4 + 2) bytes per parameter."""
    states = model_states(4096, "bf16", "adam8bit")
    assert 4096 * 10 + 2 * 2 * 4 == states.count


def test_memory_tree_parts_add_up() -> None:
    """The total is the sum of the parts, in both modes, and every parent is the sum of its children."""
    for run in (RunSettings(), RunSettings(mode="training", dropout=True), RunSettings(dtype="int4")):
        tree = memory(GPT3, run)
        out = parts(tree)
        assert out["total"] == sum(v for k, v in out.items() if k != "total")
        for node in tree.walk():
            if node.children:
                assert node.count == sum(c.count for c in node.children)


def test_training_rejects_quantized_dtype() -> None:
    """Training is modelled in fp32 or 16-bit mixed precision; an int4 training run is refused."""
    with pytest.raises(ValueError, match="dtype"):
        memory(GPT3, RunSettings(mode="training", dtype="int4"))


# ------------------------------------------------------------------------------------------- invariants
@st.composite
def specs(draw: st.DrawFn) -> Spec:
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 4))
    head_dim = draw(st.integers(8, 64))
    experts = draw(st.sampled_from([0, 0, 4]))
    window = draw(st.sampled_from([None, None, 16, 300]))
    layers = draw(st.integers(1, 6))
    return Spec(
        vocab_size=draw(st.integers(0, 3000)),
        hidden_size=heads * head_dim,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        intermediate_size=draw(st.integers(8, 512)),
        mlp_gated=draw(st.booleans()),
        attention_bias=draw(st.booleans()),
        norm_type=draw(st.sampled_from(["layernorm", "rmsnorm"])),
        position_embedding=draw(st.sampled_from(["learned", "rotary"])),
        max_position_embeddings=draw(st.integers(1, 4096)),
        tie_word_embeddings=draw(st.booleans()),
        num_experts=experts,
        num_experts_per_tok=2,
        parallel_attn=draw(st.booleans()),
        num_decoder_layers=draw(st.sampled_from([0, 0, 0, 2])),
        sliding_window=window,
        sliding_window_layers=draw(st.integers(0, layers)) if window else 0,
    )


runs = st.builds(
    RunSettings,
    mode=st.sampled_from(["inference", "training"]),
    dtype=st.sampled_from(["fp32", "bf16", "fp16"]),
    kv_dtype=st.sampled_from(["auto", "bf16", "fp8", "int4"]),
    batch=st.integers(1, 8),
    seq=st.integers(1, 2048),
    optimizer=st.sampled_from(["adamw", "sgd", "adam8bit"]),
    zero=st.integers(0, 3),
    gpus=st.integers(1, 16),
    recompute=st.sampled_from(["none", "selective", "full"]),
    flash=st.booleans(),
    dropout=st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(specs(), runs, st.integers(1, 4), st.integers(1, 1000))
def test_memory_grows_with_batch_and_context(spec: Spec, run: RunSettings, more_b: int, more_s: int) -> None:
    """More sequences or longer ones never need less memory."""
    base = memory(spec, run).count
    assert base <= memory(spec, dataclasses.replace(run, batch=run.batch + more_b)).count
    assert base <= memory(spec, dataclasses.replace(run, seq=run.seq + more_s)).count


@settings(max_examples=150, deadline=None)
@given(specs(), runs)
def test_zero_stages_never_increase_memory(spec: Spec, run: RunSettings) -> None:
    """Each ZeRO stage shards one more kind of state, so memory per GPU never grows from stage to stage."""
    run = dataclasses.replace(run, mode="training")
    totals = [memory(spec, dataclasses.replace(run, zero=z)).count for z in (0, 1, 2, 3)]
    assert totals == sorted(totals, reverse=True)


@settings(max_examples=150, deadline=None)
@given(specs())
def test_quantized_weights_are_smaller(spec: Spec) -> None:
    """int4 < int8 < bf16 < fp32 weights (scales included), and fp8 < bf16, mxfp4 < bf16 (a mixture of experts: its
    experts alone quantized) for every model whose layer matrices have at least 8 inputs."""
    w = {d: weight_bytes(spec, d).count for d in ("int4", "int8", "fp8", "bf16", "fp32", "mxfp4")}
    assert w["int4"] < w["int8"] < w["bf16"] < w["fp32"]
    assert w["fp8"] < w["bf16"]
    assert w["mxfp4"] < w["bf16"]


@settings(max_examples=100, deadline=None)
@given(specs(), st.integers(1, 5000), st.integers(1, 8))
def test_kv_cache_is_linear_in_batch(spec: Spec, tokens: int, batch: int) -> None:
    """The KV cache of b sequences is b times the cache of one (16-bit elements: no rounding)."""
    assert batch * kv_cache(spec, tokens, 1, "bf16").count == kv_cache(spec, tokens, batch, "bf16").count


@settings(max_examples=100, deadline=None)
@given(specs(), runs)
def test_every_parent_is_the_sum_of_its_children(spec: Spec, run: RunSettings) -> None:
    """Every node of the memory tree is the sum of its children, so every view shows the same numbers."""
    for node in memory(spec, run).walk():
        if node.children:
            assert node.count == sum(c.count for c in node.children)


def test_gpus_needed_llama_3_70b_inference() -> None:
    """Llama-3-70B in bf16 holds 70,553,706,496 × 2 B = 141.1 GB of weights: two 80 GB H100s once the weights
    and KV cache are split, not one."""
    from paramscope.engine.memory import gpus_needed

    settings = RunSettings(mode="inference", dtype="bf16", gpu="h100-sxm")
    needed = gpus_needed(presets.load("llama-3-70b"), settings, 80 * 10**9)
    assert needed is not None
    assert 2 == needed.gpus
    assert 70_553_706_496 * 2 // 2 < needed.per_gpu < 80 * 10**9


def test_gpus_needed_llama_3_1_405b_inference_spans_two_nodes() -> None:
    """Llama-3.1-405B in bf16 holds 405,853,388,800 × 2 B = 811.7 GB of weights: eight 80 GB H100s (one node, tensor
    parallelism) hold 101.5 GB each, too much; the fewest GPUs are 12, tensor parallelism over 4 in each of 3
    pipeline stages (67.6 GB of weights each), across two machines; Meta's layout, two stages of a node each, 16
    GPUs (the Llama 3 paper, section 6.1: bf16 inference "across 16 GPUs on two machines"), fits too."""
    from paramscope.engine.memory import gpus_needed, needed_bytes

    spec, settings = presets.load("llama-3.1-405b"), RunSettings(mode="inference", dtype="bf16")
    needed = gpus_needed(spec, settings, 80 * 10**9)
    assert needed is not None
    assert (12, 4, 3) == (needed.gpus, needed.tp, needed.pp)
    assert 405_853_388_800 * 2 / 8 > 80 * 10**9 >= needed_bytes(spec, dataclasses.replace(settings, tp=8, pp=2))
    assert needed_bytes(spec, dataclasses.replace(settings, tp=8)) > 80 * 10**9


@pytest.mark.parametrize(
    ("name", "batch", "seq", "serving"),
    [("llama-3.1-70b", 8, 32_768, False), ("llama-3.1-70b", 8, 32_768, True), ("mixtral-8x7b", 4, 16_384, False)],
)
def test_gpus_needed_inference_is_the_fewest_layout(name: str, batch: int, seq: int, serving: bool) -> None:
    """Inference: the layout returned fits, and no layout of fewer GPUs does, among every tensor-parallel degree of a
    node that divides the heads times every pipeline depth (stages within a node too), tried one by one here."""
    from paramscope.engine.memory import gpus_needed, needed_bytes

    spec, capacity = presets.load(name), 80 * 10**9
    settings = RunSettings(batch=batch, seq=seq, serving=serving)
    needed = gpus_needed(spec, settings, capacity)
    assert needed is not None

    def fits(tp: int, pp: int) -> bool:
        run = dataclasses.replace(settings, tp=tp, pp=pp, ep=tp if spec.is_moe else 1)
        return needed_bytes(spec, run) <= capacity

    degrees = [t for t in range(1, 9) if spec.num_attention_heads % t == 0]
    fewer = [(tp, pp) for tp in degrees for pp in range(1, needed.gpus) if tp * pp < needed.gpus]
    assert (True, []) == (fits(needed.tp, needed.pp), [x for x in fewer if fits(*x)])


@pytest.mark.parametrize("name", ["llama-3-8b", "mixtral-8x7b", "llama-3-70b"])
def test_gpus_needed_training_is_the_smallest_layout(name: str) -> None:
    """Training: the layout returned fits, and no layout of fewer GPUs does, among every tensor-parallel degree of a
    node that divides the heads (with sequence parallelism) times every ZeRO-3 data-parallel count, tried one by
    one here."""
    from paramscope.engine.memory import gpus_needed, needed_bytes

    spec, capacity = presets.load(name), 80 * 10**9
    settings = RunSettings(mode="training", batch=1, seq=2048)
    needed = gpus_needed(spec, settings, capacity)
    assert needed is not None

    def fits(tp: int, dp: int) -> bool:
        run = dataclasses.replace(settings, gpus=dp, zero=3, tp=tp, sp=tp > 1)
        return needed_bytes(spec, run) <= capacity

    degrees = [t for t in range(1, 9) if spec.num_attention_heads % t == 0]
    fewer = [(tp, dp) for tp in degrees for dp in range(1, needed.gpus // tp + 1) if tp * dp < needed.gpus]
    assert (needed.tp * needed.dp, True, []) == (
        needed.gpus,
        fits(needed.tp, needed.dp),
        [x for x in fewer if fits(*x)],
    )


def test_gpus_needed_training_llama_3_70b_splits_tensors() -> None:
    """Llama-3-70B trained with mixed-precision AdamW (Megatron's fused kernels) holds 16 B × 70,553,706,496 =
    1,128.9 GB of states: ZeRO-3 alone needs more than 16 H100s (each keeps whole activations), tensor parallelism
    over a node's 8 GPUs × 2 ZeRO-3 groups holds it in 16, 70.6 GB of states each (4 × 4 does too)."""
    from paramscope.engine.memory import gpus_needed, needed_bytes

    spec, settings = presets.load("llama-3-70b"), RunSettings(mode="training", batch=1, seq=2048, **MEGATRON)
    needed = gpus_needed(spec, settings, 80 * 10**9)
    assert needed is not None
    eight_by_two = dataclasses.replace(settings, gpus=2, zero=3, tp=8, sp=True)
    assert (16, True) == (needed.gpus, needed_bytes(spec, eight_by_two) <= 80 * 10**9)
    assert needed_bytes(spec, dataclasses.replace(settings, gpus=16, zero=3)) > 80 * 10**9  # ZeRO-3 alone: more


def _llama1(d: int, heads: int, layers: int, ffn: int) -> Spec:
    """LLaMA 1 (Touvron et al. 2023, Table 2) as a Llama config: vocabulary 32,000, untied head."""
    from paramscope import read

    config = dict(model_type="llama", vocab_size=32000, hidden_size=d, num_attention_heads=heads)
    config.update(num_hidden_layers=layers, intermediate_size=ffn, tie_word_embeddings=False)
    return read(config).spec


@pytest.mark.parametrize(
    ("name", "spec", "capacity"),
    [("65B", _llama1(8192, 64, 80, 22016), 48 * 10**9), ("33B", _llama1(6656, 52, 60, 17920), 24 * 10**9)],
)
def test_qlora_paper_claims(name: str, spec: Spec, capacity: int) -> None:
    """QLoRA (Dettmers et al. 2023): LLaMA 65B fine-tunes on one 48 GB GPU and 33B on a 24 GB one, with the
    paper's set-up (NF4 + double quantization, rank 64 on every linear layer, batch 1, 512 tokens, gradient
    checkpointing). Without NF4 (a 16-bit frozen base) neither fits. The paper's figures are the memory of the
    fine-tuning itself (its Figure 6 breaks it into weights, adapters, gradients and activations): no runtime line,
    and the bytes allocated at the peak, without the caching allocator's margin."""
    settings = RunSettings(
        mode="finetune",
        batch=1,
        seq=512,
        lora_rank=64,
        quant="nf4",
        recompute="full",
        runtime_mib=0,
        precision="master",  # the paper's adapters are bf16
    )
    nf16 = dataclasses.replace(settings, quant="none")
    allocated = [memory(spec, run).count - memory(spec, run).get("allocator") for run in (settings, nf16)]
    assert (True, False) == (allocated[0] < capacity, allocated[1] < capacity)


def test_cli_finetune_trainable_params_equal_peft(tmp_path) -> None:
    """`memory llama-3-8b --mode finetune --lora-rank 16 --quant nf4 --json` reports the adapters PEFT builds
    (41,943,040 on every linear layer) and NF4 weights below a quarter of the 16-bit ones plus the tables."""
    import json
    import subprocess
    import sys

    from test_lora import peft_trainable

    args = ["memory", "llama-3-8b", "--mode", "finetune", "--lora-rank", "16", "--quant", "nf4", "--json"]
    out = subprocess.run([sys.executable, "-m", "paramscope", *args], capture_output=True, text=True, cwd=tmp_path)
    assert 0 == out.returncode, out.stderr
    doc = json.loads(out.stdout)
    assert peft_trainable(presets.get("llama-3-8b").config, 16, "all-linear") == doc["trainable_params"]
    assert {"weights", "gradients", "optimizer", "activations", "total"} <= set(doc)


@pytest.mark.parametrize(
    ("t", "sp", "recompute", "flash"),
    [(8, False, "none", False), (8, True, "none", False), (4, False, "selective", False), (4, True, "selective", False),
     (8, True, "full", False), (2, False, "none", True)],
)  # fmt: skip
def test_korthikanti_tensor_and_sequence_parallel(t: int, sp: bool, recompute: str, flash: bool) -> None:
    """Korthikanti et al. 2022, Table 2 with t > 1, GPT-3 175B (s = 2048, b = 1, h = 12288, a = 96, dropout):
    tensor parallel sbh(10 + 24/t + 5as/(ht)); with sequence parallelism sbh/t (34 + 5as/h); selective
    recomputation (and FlashAttention) drop the 5as/h term; full recomputation keeps 2sbh (2sbh/t with SP)."""
    s, b, h, a = 2048, 1, 12288, 96
    scores = 0 if recompute != "none" or flash else 5 * a * s * s * b // t
    if recompute == "full":
        expected = 2 * s * b * h // (t if sp else 1)
    elif sp:
        expected = 34 * s * b * h // t + scores
    else:
        expected = 10 * s * b * h + 24 * s * b * h // t + scores
    run = RunSettings(
        mode="training", batch=b, seq=s, recompute=recompute, flash=flash, dropout=True, tp=t, sp=sp, **MEGATRON
    )
    layers = activations(GPT3, run, run.seq).find("activations/layers")
    assert layers is not None
    assert expected == layers.count // GPT3.num_hidden_layers


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_tensor_parallel_weights_are_shards(tp: int) -> None:
    """Under tensor parallelism the GPUs' weights sum to the whole model plus the norms each keeps whole:
    tp × per-GPU - whole = (tp - 1) × the norm weights (Llama-3-70B: 2 per layer × 80 + final, width 8192)."""
    from paramscope.engine.memory import Layout

    spec = presets.load("llama-3-70b")
    norms = (2 * 80 + 1) * 8192 * 2  # bytes in bf16
    whole, shard = weight_bytes(spec, "bf16").count, weight_bytes(spec, "bf16", Layout(tp=tp)).count
    assert (tp - 1) * norms == tp * shard - whole


def test_pipeline_stage_holds_its_layers_and_the_larger_end() -> None:
    """Llama-3-8B over 4 pipeline stages: the largest stage holds 32/4 = 8 layers and the larger of the token
    embedding and the untied head (equal here: 128,256 × 4,096 each), plus the final norm."""
    from paramscope.engine.memory import Layout

    spec = presets.load("llama-3-8b")
    h, f, kv = 4096, 14336, 1024
    layer = h * (h + 2 * kv) + h * h + 3 * h * f + 2 * h  # q, k, v, o, gate/up/down, two norms
    expected = (8 * layer + 128_256 * h + h) * 2
    assert expected == weight_bytes(spec, "bf16", Layout(pp=4)).count


def test_zero_with_tensor_parallelism() -> None:
    """ZeRO-1 over 4 data-parallel GPUs with tp = 2: each GPU keeps 16-bit weights and gradients of its tensor
    shard and a quarter of that shard's 12-byte optimizer state."""
    from paramscope.engine.memory import Layout

    spec = presets.load("llama-3-8b")
    shard = weight_bytes(spec, "fp32", Layout(tp=2)).count // 4
    run = RunSettings(mode="training", tp=2, zero=1, gpus=4, precision="master")
    out = parts(next(p for p in phases(spec, run) if p.path == "step"))
    assert (2 * shard, 2 * shard, -(-12 * shard // 4)) == (out["weights"], out["gradients"], out["optimizer"])


def test_kv_cache_splits_by_heads_and_stages() -> None:
    """Llama-3-70B's KV cache (80 layers, 8 kv heads of 128) over tp = 4 and pp = 2: 40 layers and 2 heads per GPU."""
    from paramscope.engine.memory import Layout

    per_head_layer_token = 2 * 128 * 2  # k and v, bf16
    expected = 40 * 2 * per_head_layer_token * 4096
    assert expected == kv_cache(presets.load("llama-3-70b"), 4096, 1, "bf16", Layout(tp=4, pp=2)).count


def test_every_precision_table() -> None:
    """Llama-3-8B's weights in fp32 and bf16 are 4 and 2 bytes per parameter (8,030,261,248); the 8- and 4-bit
    formats are smaller but keep the embeddings and head in 16 bit; each row's peak + runtime is what the Memory tab's
    headline says for that precision."""
    from paramscope.engine.memory import every_precision, needed_bytes

    table = every_precision(presets.load("llama-3-8b"), RunSettings())
    n = 8_030_261_248
    assert (4 * n, 2 * n) == (table["fp32"]["weights"], table["bf16"]["weights"])
    assert table["bf16"]["weights"] > table["int8"]["weights"] > table["int4"]["weights"] > 2 * 128_256 * 4096 * 2
    assert all(row["needed"] > row["weights"] + row["kv_cache"] + 768 * 2**20 for row in table.values())
    assert needed_bytes(presets.load("llama-3-8b"), RunSettings()) == table["bf16"]["needed"]  # the headline's


def test_gpus_needed_for_training_ignores_the_layout_in_the_settings() -> None:
    """The search picks its own layout: pipeline and expert degrees typed in the settings (PP 4 here) neither
    shrink the GPU count it reports nor hide in the per-GPU bytes (TP x ZeRO-3 groups, no pipeline)."""
    from paramscope.engine.memory import gpus_needed

    spec = presets.load("llama-3-70b")
    base = RunSettings(mode="training", batch=1, seq=2048)
    plain, staged = (gpus_needed(spec, s, 80 * 10**9) for s in (base, dataclasses.replace(base, pp=4, ep=2)))
    assert plain is not None and staged is not None
    assert (plain.gpus, plain.tp, plain.dp, 1) == (staged.gpus, staged.tp, staged.dp, staged.pp)


def test_gemma4_activations_keep_each_layer_kinds_own_widths() -> None:
    """Training Gemma 4 31B on 1,024 tokens (bf16): a full-attention layer keeps q at 32 heads and its one key
    projection at 4 heads, all 512 wide, and a context of 32 x 512 (2 bytes each); a sliding layer q, k and v at
    32 + 2 x 16 heads of 256."""
    from paramscope.engine.memory import activations

    tree = activations(presets.load("gemma-4-31b-it"), RunSettings(mode="training"), 1024)
    full, sliding = tree.find("activations/layers/full_attention"), tree.find("activations/layers/attention")
    assert (10, 50) == (full.repeat, sliding.repeat)
    assert 1024 * 2 * (32 + 4) * 512 == full.find("activations/layers/full_attention/qkv").per_copy
    assert 1024 * 2 * 32 * 512 == full.find("activations/layers/full_attention/context").per_copy
    assert 1024 * 2 * (32 + 2 * 16) * 256 == sliding.find("activations/layers/attention/qkv").per_copy


def test_gemma4_audio_keeps_the_scores_of_its_window_only() -> None:
    """Gemma 4's audio tower computes its attention block by block (12 frames against a 24-frame context): training on
    750 frames (bf16) keeps, per frame and layer, the fp32 and bf16 scores of 8 heads x 24 keys, not of every frame,
    so beyond the window its layers' activations grow with the frames alone; it holds no KV cache."""
    from paramscope import read

    spec = read({"model_type": "gemma4_audio"}).spec
    run = RunSettings(mode="training")
    scores = activations(spec, run, 750).find("activations/layers/attention/scores")
    assert (24, 12, 750 * (4 + 2) * 8 * 24) == (spec.sliding_window, scores.repeat, scores.per_copy)
    layers = [activations(spec, run, seq).get("activations/layers") for seq in (375, 750)]
    assert 2 * layers[0] == layers[1]
    assert 0 == kv_cache(spec, 750, 1, "bf16").count


@functools.cache
def _moe_cases() -> dict[str, dict]:
    """One differential case per family with routed experts (the first, by name)."""
    from paramscope import read

    out: dict[str, dict] = {}
    for name, config in sorted(_cases().items()):
        spec = read(config).spec
        if (
            spec.num_experts
            and not spec.experts_loop
            and config["model_type"] not in {c["model_type"] for c in out.values()}
        ):
            out[name] = config
    return out


@pytest.mark.parametrize("name", sorted(_moe_cases()))
def test_the_routing_weights_dtype_is_the_classs(name: str) -> None:
    """Each family's class run on fake tensors (bf16 weights, a 16-token prompt): the weights its router hands its
    experts are fp32 exactly where the row says so (``routing_fp32``: then each chosen expert's weighted output and
    its copy in token order are fp32 in the prefill's working set)."""
    import warnings

    import torch
    from hf_oracle import hf_model
    from torch._subclasses.fake_tensor import FakeTensorMode

    from paramscope import read

    config = _moe_cases()[name]
    seen: set[torch.dtype] = set()
    with FakeTensorMode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, model = hf_model(config, torch.bfloat16, "cpu")
        for module in model.modules():
            if type(module).__name__.endswith("Experts"):
                module.register_forward_pre_hook(lambda m, args: seen.add(args[2].dtype) if len(args) > 2 else None)
        try:
            with torch.no_grad():
                model(input_ids=torch.zeros(1, 16, dtype=torch.long), use_cache=False)
        except Exception:  # fake tensors cannot run every class to the end (data-dependent shapes): the hook ran first
            pass
    if not seen:
        pytest.skip("the class's experts take their weights otherwise (by keyword, or one expert at a time)")
    assert {torch.float32 if read(config).spec.routing_fp32 else torch.bfloat16} == seen


def test_tensor_parallelism_shards_the_experts_as_vllm_does() -> None:
    """Mixtral 8x7B on 4 tensor-parallel GPUs without expert parallelism: vLLM (and Megatron by default) shards every
    expert like a dense MLP, so a GPU holds a quarter of each expert, as many bytes as 2 whole experts of 8 with
    expert parallelism over the same 4 GPUs; about a quarter of the 46.7B parameters' bf16 bytes (it held every
    expert whole: 91.0 GB a GPU)."""
    from paramscope.engine.memory import Layout, weight_bytes

    spec = presets.load("mixtral-8x7b")
    sharded, spread = (weight_bytes(spec, "bf16", Layout(tp=4, ep=ep)).count for ep in (1, 4))
    total = 2 * 46_702_792_704  # Mixtral-8x7B's parameters (its model card: 46.7B), bf16
    assert (sharded, True) == (spread, total / 4 <= sharded < 1.01 * total / 4)
