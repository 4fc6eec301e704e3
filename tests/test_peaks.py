"""The memory peak against real GPU runs of transformers: every measured run in docs/measurements, its predicted peak
within 10 % of ``torch.cuda.max_memory_allocated``, each resident part to its measured bytes, and "fits" right on a run
that ran out of memory. The measurements are the independent source: the scripts that made them
(bench/measure_peaks.py, bench/gpu_memory.py) build transformers' classes on the GPU and read the allocator."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

import pytest

from paramscope import from_config
from paramscope.engine import hardware
from paramscope.engine.memory import activations, kv_cache, memory, phases, weight_bytes
from paramscope.engine.run import RunSettings
from paramscope.engine.spec import Spec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from measure_peaks import preset_config, recipe_settings  # noqa: E402  (the runs as the measuring script made them)

MEASURED = ROOT / "docs" / "measurements"


#: Every run of bench/measure_peaks.py: the 18 the peak model was written against (h100-peaks-2026-11-26.json),
#: the held-out set measured after it, and a second set of other models and shapes; each case tagged with its file
def _runs(path: Path) -> list[dict]:
    """The file's cases, each with the file's name and the GPU it ran as (an H200 held to 79.18 GiB ran as an H100)."""
    report = json.loads(path.read_text())
    gpu = "h200-sxm" if "H200" in report["device"] and not report.get("cap_gib") else "h100-sxm"
    return [{**case, "file": path.stem, "gpu": gpu} for case in report["cases"]]


ALL_RUNS = [case for path in sorted(MEASURED.glob("h[12]00*-peaks-*.json")) for case in _runs(path)]
#: The runs of recipes the page offers (qlora-bare, QLoRA without prepare_model_for_kbit_training, is not one)
RUNS = [case for case in ALL_RUNS if recipe_settings(case) is not None]
PEAKS = [case for case in RUNS if "error" not in case]


def _forced_sdpa(case: dict) -> bool:
    """A run with SDPA forced on a class that has no SDPA path (Gemma 2, as the issue's script ran it): transformers
    gives such a class eager attention, which the estimate models; the eager runs stand for these."""
    import transformers

    config = preset_config(case["model"])
    return case.get("attn") == "sdpa" and not getattr(transformers, config["architectures"][0])._supports_sdpa


#: The runs as transformers gives them: an inference run with SDPA forced on a class without it is set aside (training
#: and LoRA runs peak at the loss, where the kernel does not matter; the resident parts never depend on it)
AS_RUN = [case for case in PEAKS if not (_forced_sdpa(case) and case["recipe"] == "inference")]
OUT_OF_MEMORY = [case for case in RUNS if "OutOfMemoryError" in case.get("error", "")]
FIRST = "h100-peaks-2026-11-26"
NO_DROPOUT = (
    "resid_pdrop", "embd_pdrop", "attn_pdrop", "attention_dropout", "hidden_dropout", "dropout",
    "summary_first_dropout", "classifier_dropout",
)  # fmt: skip


def _spec(name: str, edits: dict | None = None) -> Spec:
    """The config a run's name stands for (a preset, or one cut to fewer layers) as the measuring scripts built it:
    no quantization config, no dropout."""
    config = preset_config(name) | (edits or {})
    config.pop("quantization_config", None)
    for key in NO_DROPOUT:
        if key in config:
            config[key] = 0.0
    return from_config(config).cost_spec


def _peak(spec: Spec, settings: RunSettings) -> int:
    return max(p.count for p in phases(spec, settings))


def _measured(case: dict) -> int:
    """A run's measured peak: the prefill's or the decode step's for inference, the step's for training."""
    return max(case["peak_prefill"], case["peak_decode"]) if case["recipe"] == "inference" else case["peak"]


def _near(predicted: int, measured: int, within: float = 0.10) -> bool:
    return abs(predicted / measured - 1) <= within


def _label(case: dict) -> str:
    shape = f"{case['batch']}x{case['seq']}-{case.get('checkpointing', '')}"
    return f"{case['file'][11:]}-{case['recipe']}-{case['model']}-{shape}"


#: Runs of the second held-out set (h200-peaks-fresh) whose peak the estimate does not yet follow within 10 %, each
#: with what was measured (predicted / measured); the test fails when one starts to match, to be taken off this list
KNOWN_PEAK_MISSES = {
    # kept 8.3 GiB less than the same 8,192 tokens as 2 x 2,048 (which the estimate meets, 0.996); not reproduced:
    # the same run on an H100 (h100-peaks-rerun) ran out of memory at 79.2 GiB, as the estimate (86.4 GiB) says, and
    # bench/peak_anatomy.py found it keeping what the estimate says (36.8 GiB)
    "fresh-2026-11-26-training-amp-qwen3-4b-1x4096-False": 1.102,
}


@pytest.mark.parametrize("case", AS_RUN, ids=_label)
def test_peak_within_ten_percent_of_the_h100(case: dict) -> None:
    """Each run of transformers on an H100 or an H200 (inference, AMP training with and without checkpointing, LoRA
    with PEFT's fp32 adapters, with and without checkpointing, QLoRA as PEFT prepares it, Liger-Kernel's kernels;
    every file): the predicted peak within 10 % of max_memory_allocated (over the weights' floor), except the listed
    runs, which stay off."""
    spec = _spec(case["model"])
    measured = _measured(case)
    predicted = _peak(spec, recipe_settings(case))
    label = _label(case)
    assert (label, _near(predicted, measured)) == (label, label not in KNOWN_PEAK_MISSES), predicted / measured


#: Resident parts the estimate still misses, each with what was measured; the test fails when one starts to match
KNOWN_MISSES = {
    # Kept 0.81x (and Qwen3-4B at 1 x 4,096 0.78x) what the estimate says on the H200; not reproduced: the same runs
    # on an H100 (h100-peaks-rerun, h100-peak-anatomy) keep what the estimate says (0.998 and 1.00)
    "fresh-2026-11-26-lora-llama-3.1-8b-1x2048-False",
    "fresh-2026-11-26-training-amp-qwen3-4b-1x4096-False",
    # built from the config, whose class ties the head whatever the file says (transformers 5's T5): 25 and 128 M
    # parameters fewer than the checkpoints; measured again untied, as the checkpoints load (h100-peaks-rerun)
    "third-2026-11-27-training-amp-flan-t5-base-8x512-False",
    "third-2026-11-27-training-amp-mt5-small-16x512-False",
    # held 32 MiB more before the step than the same run in h200-peaks-fresh (0.708 against 0.676 GiB), which the
    # estimate meets (1.000): the states are at 0.956, the kept activations at 0.954
    "third-2026-11-27-training-amp-t5-small-32x512-False",
    # likewise 118 MiB more than the estimate's states (0.955; T5-small at 16 x 1,024 in the same file: 1.000)
    "check3-2026-11-27-training-amp-t5-base-16x512-False",
    # T5 ran with its config's dropout_rate 0.1 (the script did not zero that key): dropout's masks kept
    "fresh-2026-11-26-training-amp-t5-small-32x512-False",
    # a whole vision-language model on text only: its vision tower gets no gradient, so AdamW keeps no state for it
    "fresh-2026-11-26-training-amp-gemma-3-4b-it-1x2048-True",
}


@pytest.mark.parametrize("case", PEAKS, ids=_label)
def test_resident_parts_match_the_h100(case: dict) -> None:
    """The resident parts of each H100 run: the weights with the class's buffers where the run recorded them (to 3 %:
    the allocator's rounding), the KV cache after the prefill (sliding layers holding the whole prompt) and after a
    decode step (to 0.1 %), the training states before a step (to 4 %: the buffers, which training runs do not
    record, are up to 3.4 % of them) and the activations the forward pass keeps (to 10 %)."""
    spec, settings = _spec(case["model"]), recipe_settings(case)
    if case["recipe"] == "inference":
        b, s = case["batch"], case["seq"]
        predicted = (
            weight_bytes(spec, "bf16").count + case.get("buffers", 0),
            kv_cache(spec, s, b, "bf16", prompt=True).count,
            kv_cache(spec, s + 1, b, "bf16").count,
        )
        measured = (case["weights"], case["cache_after_prefill"], case["cache_after_decode"])
        within = (0.03, 0.001, 0.001)
    else:
        step = {p.path: p for p in phases(spec, settings)}["step"]
        states = step.get("weights") + step.get("optimizer")
        kept = activations(spec, settings, case["seq"]).count
        predicted = (states, kept)
        measured = (case["held_before_step"], case["held_after_forward"] - case["held_before_step"])
        within = (0.04, 0.10)
    matches = all(_near(p, m, w) for p, m, w in zip(predicted, measured, within, strict=True))
    assert (_label(case), matches) == (_label(case), _label(case) not in KNOWN_MISSES), [
        round(p / m, 4) for p, m in zip(predicted, measured, strict=True)
    ]


#: bench/gpu_memory.py's cases: name, preset, edits to its config.json
OWN = {
    "gpt2": ("gpt2", {}),
    "qwen3-0.6b": ("qwen3-0.6b", {}),
    "llama-3.2-1b": ("llama-3.2-1b", {}),
    "gemma-3-1b-pt": ("gemma-3-1b-pt", {}),
    "qwen3-30b-a3b": ("qwen3-30b-a3b", {}),
    "qwen3-moe-4x32": ("qwen3-30b-a3b", {"num_hidden_layers": 4, "num_experts": 32}),
}
OWN_RUNS = [
    (f"{path.stem}-{mode}-{row['model']}-{row.get('recompute', 'full')}", mode, row)
    for path in sorted(MEASURED.glob("gpu-memory-*.json"))
    for mode in ("inference", "training", "finetune")
    for row in json.loads(path.read_text())[mode]
]


@pytest.mark.parametrize(("mode", "row"), [r[1:] for r in OWN_RUNS], ids=[r[0] for r in OWN_RUNS])
def test_peak_within_ten_percent_of_the_projects_own_runs(mode: str, row: dict) -> None:
    """bench/gpu_memory.py's runs on an H100 and an H200 (16-bit weights, an fp32 master copy outside the measured
    step, bf16 LoRA adapters, with and without recomputation): the predicted peak of the phases the script measured
    (the prefill and a decode step; the forward and backward passes) within 10 % of max_memory_allocated."""
    preset, edits = OWN[row["model"]]
    spec = _spec(preset, edits)
    settings = RunSettings(batch=row["batch"], seq=row["seq"], runtime_mib=0)
    if mode != "inference":
        recompute = row.get("recompute", "full")
        settings = RunSettings(
            mode=mode, batch=row["batch"], seq=row["seq"], runtime_mib=0, recompute=recompute, precision="master"
        )
    predicted = max(p.count for p in phases(spec, settings) if p.path != "step")
    measured = row["peak"][1]
    assert (row["model"], True) == (row["model"], _near(predicted, measured)), predicted / measured


def test_a_run_that_ran_out_of_memory_does_not_fit() -> None:
    """SmolLM2-135M, AMP training, batch 32 × 2,048, no checkpointing ran out of memory on an H100 80GB (79.2 GiB
    usable, failing to allocate 12 GiB more, the issue's measurement): the page must not call it a fit. The same model
    at batch 8 (the 360M's measured run shape) fits."""
    spec = _spec("smollm2-135m")
    run = RunSettings(mode="training", batch=32, seq=2048, recompute="none")
    usable = int(79.2 * 2**30)
    assert memory(spec, run).count > usable
    assert memory(spec, RunSettings(mode="training", batch=8, seq=2048, recompute="none")).count < usable


@pytest.mark.parametrize("case", OUT_OF_MEMORY, ids=_label)
def test_measured_out_of_memory_runs_do_not_fit(case: dict) -> None:
    """Each measured run that ran out of memory (on an H100, or on an H200 held to an H100's 79.18 GiB): its estimate
    (the peak, the allocator's margin and the runtime) exceeds the capacity the error names."""
    allowed = re.search(r"([0-9.]+) GiB allowed", case["error"]) or re.search(
        r"total capacity of ([0-9.]+)", case["error"]
    )
    capacity = float(allowed.group(1)) * 2**30
    settings = dataclasses.replace(recipe_settings(case), runtime_mib=RunSettings().runtime_mib, gpu=case["gpu"])
    assert memory(_spec(case["model"]), settings).count > capacity


def test_forced_sdpa_runs_are_gemma_2s() -> None:
    """The runs set aside as forced SDPA are exactly the two Gemma 2 inference runs of the first files (its training
    and LoRA runs peak at the loss, where the attention kernel does not matter, and are kept)."""
    forced = sorted(_label(c) for c in PEAKS if _forced_sdpa(c) and c["recipe"] == "inference")
    assert forced == ["2026-11-26-inference-gemma-2-9b-2x8192-", "heldout-2026-11-26-inference-gemma-2-2b-4x8192-"]


@pytest.mark.parametrize("case", AS_RUN, ids=_label)
def test_every_run_that_ran_fits(case: dict) -> None:
    """Each measured run that completed is called a fit on the GPU it ran on, with the page's runtime line (the CUDA
    context): the estimate with its margin, the margin giving way near capacity, within what PyTorch can allocate
    (SmolLM2-360M at batch 16 × 2,048 peaked at 72.5 GiB under a 79.18 GiB cap; the datasheet's 80 GB and a fixed
    margin called it no fit)."""
    settings = dataclasses.replace(recipe_settings(case), runtime_mib=RunSettings().runtime_mib, gpu=case["gpu"])
    assert memory(_spec(case["model"]), settings).count <= hardware.get(case["gpu"]).capacity


@pytest.mark.parametrize("case", [c for c in AS_RUN if c["file"] == FIRST], ids=_label)
def test_reserved_within_ten_percent_of_the_h100(case: dict) -> None:
    """The peak with the allocator's margin (what nvidia-smi shows and where an out-of-memory error strikes) within 10 %
    of max_memory_reserved on each of the first 18 H100 runs."""
    spec = _spec(case["model"])
    reserved = case["reserved_prefill"] if case["recipe"] == "inference" else case["reserved_peak"]
    tree = memory(spec, dataclasses.replace(recipe_settings(case), gpu=case["gpu"]))
    assert (case["model"], True) == (case["model"], _near(tree.count, reserved)), tree.count / reserved


#: Runs whose estimate with its margin lies above 10 % over the reserved peak (the estimate over the allocated peak by
#: 4-9 %, the allocator reserving little more than it allocated); and the runs of KNOWN_PEAK_MISSES
KNOWN_RESERVED_MISSES = {
    *KNOWN_PEAK_MISSES,
    "fresh-2026-11-26-training-fused-llama-3.2-1b-8x2048-True",
    "fresh-2026-11-26-training-fused-mistral-7b-2x4096-True",
    "fresh-2026-11-26-lora-llama-3.1-8b-1x2048-False",
}


@pytest.mark.parametrize("case", [c for c in AS_RUN if c["file"] != FIRST], ids=_label)
def test_reserved_between_the_allocated_and_the_reserved_peak(case: dict) -> None:
    """On the later runs the allocator reserved 0.5-39 % beyond its allocated peak (the margin follows the order of
    allocations, not only their sizes): the estimate with its margin (a tenth of the peak) lies between the measured
    allocated peak and 10 % over the measured reserved peak."""
    spec = _spec(case["model"])
    allocated = _measured(case)
    reserved = case["reserved_prefill"] if case["recipe"] == "inference" else case["reserved_peak"]
    total = memory(spec, dataclasses.replace(recipe_settings(case), gpu=case["gpu"])).count
    label, between = _label(case), allocated <= total <= 1.1 * reserved
    assert (label, between) == (label, label not in KNOWN_RESERVED_MISSES), (total / allocated, total / reserved)


#: Small widths that keep each family's structure (a layer of Llama-3.2-1B at full width takes 0.24 GB on the CPU).
SMALL = dict(
    hidden_size=128, intermediate_size=352, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
    vocab_size=1000, n_embd=128, n_head=4, max_position_embeddings=4096, n_positions=4096, sliding_window=64,
    pad_token_id=None,
)  # fmt: skip


def _saved_for_backward(config: dict, amp: bool, batch: int, seq: int) -> int:
    """Bytes of every tensor storage transformers' class keeps for the backward pass of its loss (torch's
    saved-tensor hooks, each storage once, the parameters themselves left out), built on the CPU with SDPA: bf16
    weights, or fp32 weights under bf16 autocast (AMP)."""
    import warnings

    import torch
    import transformers
    from transformers import AutoConfig

    cfg = dict(config)
    model_type = cfg.pop("model_type")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = AutoConfig.for_model(model_type, **cfg)
        hf._attn_implementation = "sdpa"
        torch.set_default_dtype(torch.float32 if amp else torch.bfloat16)
        try:
            model = getattr(transformers, cfg["architectures"][0])(hf).train()
        finally:
            torch.set_default_dtype(torch.float32)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            kept[storage.data_ptr()] = storage.nbytes()
        return t

    ids = torch.randint(0, hf.vocab_size, (batch, seq), generator=torch.Generator().manual_seed(0))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            model(input_ids=ids, labels=ids, use_cache=False)
    return sum(kept.values())


SAVED_CASES = [
    (preset, amp)
    for preset in ("llama-3.2-1b", "qwen2.5-0.5b", "qwen3-0.6b", "mistral-7b", "smollm3-3b", "gpt2", "smollm2-360m")
    for amp in (False, True)
    # CPU autocast keeps torch.pow in bf16 where CUDA's runs it in fp32: GPT-2's tanh-GeLU under AMP is held to the
    # H100 runs instead (test_resident_parts_match_the_h100)
    if not (amp and preset == "gpt2")
]


@pytest.mark.parametrize(("preset", "amp"), SAVED_CASES, ids=[f"{p}-{'amp' if a else 'bf16'}" for p, a in SAVED_CASES])
def test_activations_equal_what_transformers_saves(preset: str, amp: bool) -> None:
    """The activations a training step keeps (no recomputation) equal, within 2 %, the bytes transformers' own class
    saves for its backward pass, counted with torch's saved-tensor hooks on the CPU (the preset at small widths, 2
    layers, 2 × 48 tokens): eager norms, q/k norms, SDPA's inputs, output and log-sum-exp, the MLP's intermediates,
    GPT-2's written-out tanh-GeLU, the loss's fp32 log-probabilities, and under autocast the bf16 casts of the
    weights and of every projection's input."""
    config = json.loads((ROOT / "presets" / f"{preset}.json").read_text())["config"]
    config.update({k: v for k, v in SMALL.items() if k in config or k in ("hidden_size", "vocab_size")})
    for key in ("num_hidden_layers", "n_layer"):
        if key in config:
            config[key] = 2
    for key in ("layer_types", "no_rope_layers"):  # per-layer lists follow the depth
        if key in config:
            config[key] = config[key][:2]
    for key in NO_DROPOUT:
        if key in config:
            config[key] = 0.0
    measured = _saved_for_backward(config, amp, 2, 48)
    run = RunSettings(mode="training", batch=2, seq=48, precision="amp" if amp else "master")
    predicted = activations(from_config(config).cost_spec, run, 48).count
    assert (preset, True) == (preset, _near(predicted, measured, 0.02)), predicted / measured


def test_qlora_upcast_is_what_prepare_model_for_kbit_training_adds() -> None:
    """The same QLoRA run of Llama 3.1 8B with and without PEFT's prepare_model_for_kbit_training (an H200): the
    states it holds before a step differ by the weights that are not NF4 (embeddings, LM head, norms) going from 16 to
    32 bits, which is what the estimate's QLoRA recipe adds to the 16-bit base."""
    runs = {c["recipe"]: c for c in ALL_RUNS if c["model"] == "llama-3.1-8b" and c["recipe"].startswith("qlora")}
    runs = {r: c for r, c in runs.items() if (c["batch"], c["seq"]) == (4, 2048)}
    measured = runs["qlora"]["held_before_step"] - runs["qlora-bare"]["held_before_step"]
    base = weight_bytes(_spec("llama-3.1-8b"), "bf16")
    rest = base.count - base.find("weights/matrices").count  # 16-bit bytes of the weights that are not NF4
    assert _near(rest, measured, 0.02), rest / measured


#: Inference runs whose prefill working set was read from bench/fake_peaks.py's replay (which equals the GPU's on
#: these runs to 0.1 %): experts handed fp32 weights by their router (DeepSeek-V2/V3's and Kimi K2's class,
#: MiniMax-M2's), Qwen3-Next's gated delta rule without flash-linear-attention's kernels, Qwen2-Audio's logits of
#: every prompt token, made once the layers' working set is freed, and the embeddings, squared ReLU and window masks of
#: GPT-2, StarCoder, Minitron and Mistral
REPLAYED = [
    case
    for case in AS_RUN
    if case["recipe"] == "inference"
    and case["model"].startswith(
        (
            "kimi-k2",
            "deepseek-v2",
            "minimax-m2",
            "qwen3-next",
            "qwen2-audio",
            "starcoder",
            "minitron",
            "gpt2",
            "mistral-7b",
        )
    )
]


@pytest.mark.parametrize("case", REPLAYED, ids=_label)
def test_the_prefill_above_the_weights_where_the_replay_showed_what_it_holds(case: dict) -> None:
    """The prefill's peak above the weights and the input ids, measured on an H100 or H200, within 2.5 %: each chosen
    expert's output weighted by an fp32 routing weight, and put back in token order, is fp32 (the estimate read
    0.69-0.75 of it while it counted them in 16 bit); Qwen3-Next's chunked gated delta rule holds ten fp32 tensors of a
    head's width and three of a chunk's for every value head and token (0.73 of it before); Qwen2-Audio's logits of
    every prompt token come after the layers, beside the final norm's output alone (1.107 of it while the layer's
    working set was added); a learned position table's model keeps the token embeddings beside their sum with the
    positions (StarCoderBase 0.93 before), a squared ReLU keeps the ReLU's output beside its square (Minitron 0.91), and
    a sliding window SDPA cannot express as is_causal costs a boolean mask and its float copy (StarCoder2 at 16,384
    tokens 0.91)."""
    spec, settings = _spec(case["model"]), recipe_settings(case)
    prefill = next(p for p in phases(spec, settings) if p.path == "prefill")
    measured = case["peak_prefill"] - case["weights"] - case.get("ids_bytes", 0)
    assert _near(prefill.count - weight_bytes(spec, "bf16").count, measured, 0.025), (prefill.count, measured)


@pytest.mark.parametrize("seq", [4096, 8192])
def test_deepseek_v4s_prefill_is_the_replayed_one(seq: int) -> None:
    """DeepSeek-V4 at its class's defaults cut to 4 layers, never run on a GPU here: the prefill's peak above the
    weights within 2 % of transformers' own code replayed on fake tensors (bench/fake_peaks.py, equal to the GPU's
    on the measured runs). Its eager attention keeps three copies of each compressed layer's scores, every key and
    every compressed entry in one row (0.82 of it before the entries were counted)."""
    from fake_peaks import replay_config

    config = {"model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"], "num_hidden_layers": 4}
    replayed, _, _ = replay_config(config, 1, seq)
    spec = from_config(config).cost_spec
    prefill = next(p for p in phases(spec, RunSettings(batch=1, seq=seq, runtime_mib=0)) if p.path == "prefill")
    assert _near(prefill.count - weight_bytes(spec, "bf16").count, replayed, 0.02), (prefill.count, replayed)


#: The runs measured on an H200 on 2026-11-27 for mixtures of experts under LoRA and in AMP training, the gated delta
#: rule in training, DeepSeek-V4 at its class's defaults and PaliGemma whole (h200-peaks-fourth, -moe-lora, -heldout6,
#: -heldout7)
MOE_AND_DELTA = [
    case
    for case in AS_RUN
    if case["file"].endswith(("fourth-2026-11-27", "moe-lora-2026-11-27", "heldout6-2026-11-27", "heldout7-2026-11-27"))
]


@pytest.mark.parametrize("case", MOE_AND_DELTA, ids=_label)
def test_moe_lora_and_the_delta_rule_within_four_percent(case: dict) -> None:
    """The peak of each run within 4 % of ``max_memory_allocated``: PEFT's LoRA folds its adapters into a full copy of
    each MoE layer's expert tensors that grouped_mm keeps (OLMoE, DeepSeek-V2-Lite, Qwen3-30B, Mixtral 8x22B without
    recomputation read 0.62-0.83 before); frozen experts keep no gathered input; the gated delta rule keeps ~20 tensors
    of a head's width a token in training (Qwen3-Next's LoRA read 0.64); the end of the backward pass holds the first
    layer's working set, a dense one where the first layers are dense (DeepSeek-V2-Lite's AMP run read 1.058)."""
    predicted, measured = _peak(_spec(case["model"]), recipe_settings(case)), _measured(case)
    assert _near(predicted, measured, 0.04), predicted / measured


#: Every run of a model whose q/k norm spans all heads (OLMo 2, OLMoE, MiniMax-M2), and the LoRA runs without
#: recomputation of Qwen3 and Qwen3-Next, whose q/k norms are per head
QK_NORMS = [
    case
    for case in AS_RUN
    if _spec(case["model"]).qk_norm == "full"
    or (case["model"].startswith("qwen3") and case["recipe"] == "lora" and not case["checkpointing"])
]


@pytest.mark.parametrize("case", QK_NORMS, ids=_label)
def test_q_k_norms_within_two_percent(case: dict) -> None:
    """The peak of each run within 2 % of ``max_memory_allocated``: a q/k norm over all heads keeps its fp32 copy of q
    and k as a per-head one does (OLMoE's LoRA read 0.968, its AMP run 0.983 without it), and under LoRA, whose norm
    weights are frozen, the fp32 copy alone (Qwen3-30B's LoRA at 4 x 4,096 read 1.017; Gemma 3 1B's at 16 x 1,024,
    1.044 before, reads 1.033)."""
    predicted, measured = _peak(_spec(case["model"]), recipe_settings(case)), _measured(case)
    assert _near(predicted, measured, 0.02), predicted / measured


#: Mamba-130m's AMP training runs without recomputation (transformers' PyTorch path: mamba_ssm was not installed)
MAMBA_STEPS = [case for case in AS_RUN if case["model"] == "mamba-130m-hf" and case["recipe"] == "training-amp"]


@pytest.mark.parametrize("case", MAMBA_STEPS, ids=_label)
def test_mamba_training_within_two_and_a_half_percent(case: dict) -> None:
    """The peak of each run within 2.5 % of ``max_memory_allocated``: beside the selective scan's per-step tensors,
    Mamba keeps the time step, its softplus, the input and the output in fp32 around the scan, the output
    projection's 16-bit input and the convolution's 16-bit cast, 16 bytes of ssm_inner a token and layer under
    autocast (both runs read 0.925-0.930 without them)."""
    predicted = _peak(_spec(case["model"]), recipe_settings(case))
    assert _near(predicted, case["peak"], 0.025), predicted / case["peak"]
