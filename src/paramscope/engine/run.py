"""Run settings: every control of the memory and compute estimates, in one frozen dataclass.

The page, the CLI and the share link all go through :class:`RunSettings`. In a share link the fields
are written with the prefix ``run_`` (``run_batch=8``) so that they can never clash with the
:class:`~paramscope.engine.spec.Spec` field names used for the model; only fields that differ from the
defaults are written.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

from paramscope.engine.hardware import ACCELERATORS, DEFAULT_GPU

MODES = ("inference", "training", "finetune")  # finetune: LoRA adapters on a frozen base
DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "mxfp4")
TRAIN_DTYPES = ("fp32", "bf16", "fp16")
KV_DTYPES = ("auto", "fp32", "bf16", "fp16", "fp8", "int8", "int4")
OPTIMIZERS = ("adamw", "sgd", "adam8bit")
RECOMPUTE = ("none", "selective", "full")
#: How the trained weights are kept: PyTorch AMP (fp32 weights and gradients, autocast to the compute dtype: what
#: transformers' Trainer runs with bf16=True, and PEFT's fp32 adapters) or 16-bit weights and gradients with an fp32
#: master copy in the optimizer (Megatron-LM, DeepSpeed).
PRECISIONS_TRAIN = ("amp", "master")
#: The kernels a training step runs: transformers' eager modules with its loss (fp32 logits of every token);
#: Liger-Kernel over them (its RMSNorm, SwiGLU and RoPE kernels, and a fused linear cross-entropy that never holds
#: every token's logits: the Trainer's use_liger_kernel=True); or Megatron-LM's fused kernels (Korthikanti et al.'s
#: terms) with a chunked loss.
KERNELS = ("transformers", "liger", "fused")
ZERO_STAGES = (0, 1, 2, 3)

#: Upper bounds that keep every computation instant.
MAX_BATCH = 1_000_000
MAX_SEQ = 100_000_000
MAX_GPUS = 1_000_000
MAX_PARALLEL = 4096  # the largest tensor, pipeline or expert parallel degree
MAX_TOKENS = 10**16
DEFAULT_SEQ = 2048  # used (capped at the model's context) when seq is 0

QUERY_PREFIX = "run_"


@dataclass(frozen=True)
class RunSettings:
    """How the model is run. Sizes are per GPU: ``batch`` is the micro-batch each GPU processes."""

    mode: str = "inference"  # inference | training
    dtype: str = "bf16"  # weights (inference) / compute precision (training: mixed precision for 16 bit)
    kv_dtype: str = "auto"  # KV cache; auto = dtype for fp32/bf16/fp16 weights, else bf16
    batch: int = 1
    seq: int = 0  # context length in tokens; 0 = the model's context, at most DEFAULT_SEQ
    optimizer: str = "adamw"  # adamw | sgd (with momentum) | adam8bit
    zero: int = 0  # ZeRO stage 0-3 over `gpus` data-parallel GPUs
    gpus: int = 1
    gpu: str = DEFAULT_GPU  # a key of paramscope.engine.hardware.ACCELERATORS
    recompute: str = "none"  # activation recomputation: none | selective | full
    flash: bool = True  # FlashAttention (every current trainer runs it): the s x s attention scores are never stored
    dropout: bool = False  # dropout masks stored (GPT-2/GPT-3 style training); modern LLMs train without
    causal: bool = False  # count attention FLOPs causally (each token sees the ones before it)
    tokens: int = 0  # training tokens D; 0 = Chinchilla-optimal (20 per parameter)
    mfu: float = 0.4  # model FLOPs utilization assumed for the training-time estimate
    tokens_per_second: float = 0.0  # measured training throughput (all GPUs) for the MFU read-out
    new: int = 256  # speed: new tokens each sequence generates after its prompt
    efficiency: float = 1.0  # speed: the share of the GPU's peak FLOP/s and bandwidth reached (1 = the roofline)
    tp: int = 1  # tensor parallelism: each layer's matrices, the vocabulary and the KV heads split over tp GPUs
    pp: int = (
        1  # pipeline parallelism: the layers split into pp stages (the first holds the embedding, the last the head)
    )
    ep: int = 1  # expert parallelism: each MoE layer's experts split over ep GPUs
    sp: bool = False  # sequence parallelism (with tp): the activations tensor parallelism leaves whole are split too
    lora_rank: int = 16  # finetune: LoRA rank r
    lora_targets: str = "all-linear"  # finetune: all-linear (every linear layer but the LM head) | attn
    quant: str = "none"  # finetune: the frozen base in `dtype` (none) or 4-bit NF4 with double quantization (QLoRA)
    precision: str = "amp"  # training / finetune: amp (fp32 trained weights, autocast) | master (16 bit + fp32 master)
    kernels: str = "transformers"  # training / finetune: transformers (eager, its loss) | liger | fused (Megatron)
    serving: bool = False  # inference: a serving engine with chunked prefill (vLLM) instead of transformers' generate
    chunk: int = 0  # serving: max_num_batched_tokens, the most tokens one forward pass takes; 0 = vLLM's for the GPU
    gpu_util: float = 0.9  # serving: gpu_memory_utilization, the share of each GPU's memory the engine may use
    max_seqs: int = 0  # serving: max_num_seqs, the most sequences one step runs; 0 = vLLM's for the GPU
    runtime_mib: int = 768  # per GPU: the CUDA context and framework workspaces, an assumption (memory.RUNTIME_NOTE)


DEFAULTS = RunSettings()

_CHOICES: dict[str, tuple] = {
    "mode": MODES,
    "dtype": DTYPES,
    "kv_dtype": KV_DTYPES,
    "optimizer": OPTIMIZERS,
    "recompute": RECOMPUTE,
    "zero": ZERO_STAGES,
    "gpu": tuple(ACCELERATORS),
    "lora_targets": ("all-linear", "attn"),
    "quant": ("none", "nf4"),
    "precision": PRECISIONS_TRAIN,
    "kernels": KERNELS,
}
#: The settings that are whole numbers (a count, not a choice)
WHOLE_NUMBERS = tuple(
    f.name for f in dataclasses.fields(RunSettings) if type(f.default) is int and f.name not in _CHOICES
)
_RANGES: dict[str, tuple[float, float]] = {
    "batch": (1, MAX_BATCH),
    "seq": (0, MAX_SEQ),
    "gpus": (1, MAX_GPUS),
    "tokens": (0, MAX_TOKENS),
    "mfu": (1e-6, 1.0),
    "tokens_per_second": (0.0, 1e15),
    "new": (1, 1_000_000),
    "efficiency": (0.1, 1.0),
    "lora_rank": (1, 65_536),
    "tp": (1, MAX_PARALLEL),
    "pp": (1, MAX_PARALLEL),
    "ep": (1, MAX_PARALLEL),
    "runtime_mib": (0, 1_048_576),
    "chunk": (0, MAX_BATCH),
    "max_seqs": (0, MAX_BATCH),
    "gpu_util": (0.05, 1.0),
}


def resolved_seq(settings: RunSettings, max_position_embeddings: int) -> int:
    """The context length in tokens: ``settings.seq``, or (when 0) the model's context capped at 2048."""
    if settings.seq:
        return settings.seq
    return min(max_position_embeddings, DEFAULT_SEQ) if max_position_embeddings > 0 else DEFAULT_SEQ


def world(settings: RunSettings) -> int:
    """Every GPU of the run: the data-parallel groups (``gpus``) times the tensor- and pipeline-parallel GPUs of each
    (expert parallelism splits the experts over GPUs counted there)."""
    return settings.gpus * settings.tp * settings.pp


def experts_beyond_the_run(settings: RunSettings, moe: bool) -> str:
    """Why expert parallelism asks a mixture of experts (``moe``) for more GPUs than the run has ("" when it does
    not): Megatron and vLLM spread a layer's experts over the GPUs of a pipeline stage (the data-parallel groups ×
    TP), they add none."""
    stage = settings.gpus * settings.tp
    if not moe or settings.ep <= stage:
        return ""
    return (
        f"EP = {settings.ep} spreads each layer's experts over more GPUs than a pipeline stage of this run has "
        f"({settings.gpus} data-parallel × {settings.tp} TP = {stage}): Megatron and vLLM carve expert parallelism "
        "out of those GPUs. Raise GPUs (data parallel) or TP, or lower EP."
    )


def world_label(settings: RunSettings) -> str:
    """How the GPUs of :func:`world` are laid out, in words ("" for data parallelism alone)."""
    parts = [f"{n} {k}" for n, k in ((settings.tp, "TP"), (settings.pp, "PP")) if n > 1]
    return " × ".join([f"{settings.gpus} data-parallel", *parts]) if parts else ""


#: vLLM's defaults for `vllm serve` (engine/arg_utils.py, get_batch_defaults): (max_num_batched_tokens, max_num_seqs)
#: on a GPU of 70 GiB or more other than an A100, and on the others
SERVE_DEFAULTS_LARGE = (8192, 1024)
SERVE_DEFAULTS = (2048, 256)
SERVE_DEFAULTS_RULE = (
    f"{SERVE_DEFAULTS_LARGE[0]:,} tokens and {SERVE_DEFAULTS_LARGE[1]:,} sequences on a GPU of 70 GiB or more other "
    f"than an A100, else {SERVE_DEFAULTS[0]:,} and {SERVE_DEFAULTS[1]:,}"
)


def serving_batch(settings: RunSettings) -> tuple[int, int]:
    """A serving engine's ``chunk`` (max_num_batched_tokens) and ``max_seqs`` (max_num_seqs): as set, or (0) vLLM's
    defaults for `vllm serve` on the GPU, the default sequences at most the chunk, as vLLM clamps them (both set, more
    sequences than the chunk is refused by :func:`check`, as vLLM's SchedulerConfig refuses it)."""
    gpu = ACCELERATORS[settings.gpu]
    large = gpu.capacity >= 70 * 2**30 and "a100" not in gpu.key
    chunk, seqs = SERVE_DEFAULTS_LARGE if large else SERVE_DEFAULTS
    chunk = settings.chunk or chunk
    return chunk, settings.max_seqs or min(seqs, chunk)


def as_training(settings: RunSettings) -> RunSettings:
    """The settings of a training run on the same GPUs: inference settings in training mode, their weight format
    taken to 16 bit where it is a quantized one (training is modelled in fp32, bf16 and fp16)."""
    if settings.mode != "inference":
        return settings
    dtype = settings.dtype if settings.dtype in TRAIN_DTYPES else "bf16"
    return dataclasses.replace(settings, mode="training", dtype=dtype)


def resolved_kv_dtype(settings: RunSettings) -> str:
    if settings.kv_dtype != "auto":
        return settings.kv_dtype
    return settings.dtype if settings.dtype in TRAIN_DTYPES else "bf16"


def _too_many_seqs(settings: RunSettings) -> str:
    return (
        f"{settings.max_seqs:,} sequences is more than the chunk's {settings.chunk:,} tokens (vLLM refuses "
        "max_num_seqs above max_num_batched_tokens)"
    )


def check(settings: RunSettings) -> RunSettings:
    """Raise ``ValueError`` naming the first field that is out of range; return the settings otherwise."""
    for f in dataclasses.fields(RunSettings):
        value = getattr(settings, f.name)
        error = _field_error(f.name, value)
        if error:
            raise ValueError(error)
    if settings.chunk and settings.max_seqs > settings.chunk:
        raise ValueError(f"max_seqs: {_too_many_seqs(settings)}")
    if settings.mode in ("training", "finetune") and settings.dtype not in TRAIN_DTYPES:
        raise ValueError(
            f"dtype: training is modelled in {', '.join(TRAIN_DTYPES)} (mixed precision for 16 bit); "
            f"{settings.dtype} is an inference format here"
        )
    return settings


def _field_error(name: str, value: object) -> str:
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            return f"{name}: {str(value)[:40]!r} is not one of {', '.join(map(str, _CHOICES[name]))}"
        return ""
    if name in ("flash", "dropout", "causal", "sp", "serving"):
        return "" if isinstance(value, bool) else f"{name}: expected true or false"
    lo, hi = _RANGES[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{name}: expected a number"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{name}: expected a finite number"
    if name in WHOLE_NUMBERS and not isinstance(value, int):
        return f"{name}: expected a whole number, got {value:g}"
    if not lo <= value <= hi:
        return f"{name}: {value:,} is outside {lo:,}..{hi:,}"
    return ""


def _parse(name: str, text: str) -> object:
    """The typed value of field ``name`` from its query text; ``ValueError`` when it does not parse."""
    text = text.strip()
    if len(text) > 40:
        raise ValueError("too long")
    default = getattr(DEFAULTS, name)
    if isinstance(default, bool):
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError("not a boolean")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            number = float(text)  # 1.4e12 is a whole number too
            if not math.isfinite(number) or not number.is_integer():
                raise
            return int(number)
    if isinstance(default, float):
        return float(text)
    return text


def settings_from_query(query: Mapping[str, str]) -> tuple[RunSettings, list[str]]:
    """Run settings from share-link parameters (``run_<field>``); unknown keys are ignored.

    A value that does not parse or is out of range keeps its default and adds a warning naming the field.
    """
    changes: dict[str, object] = {}
    warnings: list[str] = []
    for f in dataclasses.fields(RunSettings):
        key = QUERY_PREFIX + f.name
        if key not in query:
            continue
        raw = query[key]
        if isinstance(raw, (list, tuple)):  # some frameworks hand over repeated keys as lists
            raw = raw[-1] if raw else ""
        try:
            value = _parse(f.name, str(raw))
        except ValueError:
            warnings.append(f"{key}: {str(raw)[:40]!r} is not a valid {f.name}; kept {getattr(DEFAULTS, f.name)!r}")
            continue
        error = _field_error(f.name, value)
        if error:
            warnings.append(f"{key}: {error}; kept {getattr(DEFAULTS, f.name)!r}")
            continue
        changes[f.name] = value
    settings = dataclasses.replace(DEFAULTS, **changes)
    if settings.chunk and settings.max_seqs > settings.chunk:
        warnings.append(f"run_max_seqs: {_too_many_seqs(settings)}; kept 0 (vLLM's default for the GPU)")
        settings = dataclasses.replace(settings, max_seqs=0)
    if settings.mode in ("training", "finetune") and settings.dtype not in TRAIN_DTYPES:
        warnings.append(f"run_dtype: {settings.dtype} is inference-only; training uses bf16")
        settings = dataclasses.replace(settings, dtype="bf16")
    return settings, warnings


def settings_to_query(settings: RunSettings) -> dict[str, str]:
    """The share-link parameters for ``settings``: only fields that differ from the defaults."""
    out: dict[str, str] = {}
    for f in dataclasses.fields(RunSettings):
        value = getattr(settings, f.name)
        if value == getattr(DEFAULTS, f.name):
            continue
        if isinstance(value, bool):
            text = "1" if value else "0"
        elif isinstance(value, float):
            text = repr(value)
        else:
            text = str(value)
        out[QUERY_PREFIX + f.name] = text
    return out
