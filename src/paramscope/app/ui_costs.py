"""Streamlit pieces of the Memory and Compute tabs, and the run-settings controls.

Public (called by app.py; keep stable):

* ``render_run_controls(settings: RunSettings) -> RunSettings`` — the controls, widget keys ``run_*``;
* ``render_memory_tab(spec: Spec, settings: RunSettings) -> None``;
* ``render_compute_tab(spec: Spec, settings: RunSettings) -> None``.

The numbers come from :mod:`paramscope.engine.memory` and :mod:`paramscope.engine.flops`, the figures from
:mod:`paramscope.app.charts_costs`; nothing here computes a number of its own.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from paramscope.app import charts_costs as C
from paramscope.app.charts import PLOTLY_CONFIG
from paramscope.app.text import quoted
from paramscope.app.widgets import note_moved, put_back
from paramscope.engine import flops as F
from paramscope.engine import hardware
from paramscope.engine.hardware import GB, GiB
from paramscope.engine.memory import (
    PARTS,
    PHASES,
    QUANT,
    RUNTIME_NOTE,
    context_window,
    every_precision,
    fp8_cache_alternative,
    gpus_needed,
    layout_problems,
    max_fit,
    memory,
    needed,
    needed_bytes,
    parts,
    peak_phase,
    phases,
    serving_room,
    sweep,
)
from paramscope.engine.run import (
    DTYPES,
    KERNELS,
    KV_DTYPES,
    MAX_SEQ,
    MODES,
    OPTIMIZERS,
    PRECISIONS_TRAIN,
    RECOMPUTE,
    SERVE_DEFAULTS_RULE,
    TRAIN_DTYPES,
    WHOLE_NUMBERS,
    RunSettings,
    as_training,
    check,
    resolved_kv_dtype,
    resolved_seq,
    serving_batch,
    world,
    world_label,
)
from paramscope.engine.spec import Spec, power_of_ten, short
from paramscope.engine.speed import keeps_last_logits, speed

KEY = "run_"  # widget keys: KEY + RunSettings field name
_SEEN = "run__seen"  # the settings these widgets showed last (to notice settings changed from outside)
_SHOWN = "run__shown"  # the fields whose widgets were on screen in the last run
_RUN_MOVED = "run__moved"  # the run-settings widgets the person moved since the settings last took them
_REFUSED = "run__refused"  # the run-settings widget whose value the settings refused: it keeps what was typed

DTYPE_LABELS = {
    "fp32": "fp32 (4 bytes)",
    "bf16": "bf16 (2 bytes)",
    "fp16": "fp16 (2 bytes)",
    "fp8": "fp8 (1 byte + scales)",
    "int8": "int8 (1 byte + scales)",
    "int4": "int4 (½ byte + scales)",
    "mxfp4": "mxfp4 (½ byte + scales)",
    "auto": "auto (as the weights)",
}
OPTIMIZER_LABELS = {"adamw": "AdamW", "sgd": "SGD with momentum", "adam8bit": "8-bit Adam"}
PRECISION_LABELS = {"amp": "PyTorch AMP (fp32 trained weights)", "master": "16-bit weights + fp32 master"}
KERNEL_LABELS = {
    "transformers": "transformers (eager, its loss)",
    "liger": "Liger-Kernel (fused loss)",
    "fused": "Megatron-LM (fused kernels)",
}
RECOMPUTE_LABELS = {"none": "none", "selective": "selective (attention scores)", "full": "full (layer inputs only)"}


#: What the speed settings mean (their widgets' help).
SPEED_NEW = "The tokens each sequence generates after its prompt (the Compute tab's decode runs at prompt + new/2)."
SPEED_EFFICIENCY = (
    "The Compute tab's speed: 100 = the roofline bound. Measured decode: vLLM 73 % (A100), PyTorch with CUDA graphs "
    "59-63 % (H200; a mixture of experts 16-49 %), a plain transformers script under 10 %; prefill: transformers "
    "about 50 % (H200)"
)


def _flops(n: int) -> str:
    """FLOPs per token in GFLOPs, the unit of the Compute chart's axis (MFLOPs for models too small to show there)."""
    return f"{n / 1e9:,.1f} GFLOPs" if n >= 10**8 else f"{n / 1e6:,.1f} MFLOPs"


def _gb(n: int) -> str:
    return f"{n / GB:,.2f} GB ({n / GiB:,.2f} GiB)"


# ======================================================================================= controls
#: The parallel layout's controls: tensor, pipeline and expert parallel degrees.
PARALLEL = {
    "tp": "Tensor parallelism: matrices, vocabulary and KV heads split over this many GPUs (Megatron); norms stay "
    "whole on each.",
    "pp": "Pipeline stages: the largest holds ceil(layers / PP) layers and the embedding or the head.",
    "ep": "Expert parallelism: each MoE layer's experts split over this many GPUs.",
}


def _seed(settings: RunSettings) -> None:
    """Give the widgets their values: all of them when ``settings`` changed from outside (first run, a
    restored link), otherwise those that were hidden in the last run (Streamlit forgets hidden widgets)."""
    state = st.session_state
    changed = state.get(_SEEN) != settings
    if changed:  # settings from outside: a value refused before is forgotten
        state[_REFUSED] = set()
    shown = state.get(_SHOWN, ())
    for f in dataclasses.fields(RunSettings):
        if changed or f.name not in shown or KEY + f.name not in state:
            state[KEY + f.name] = _widget_value(settings, f.name)


def _widget_value(settings: RunSettings, name: str) -> object:
    """What a setting's widget shows: the value, a share in percent, a number in its box as a float."""
    value = getattr(settings, name)
    if name in ("mfu", "efficiency"):
        return round(value * 100, 1)
    return float(value) if name in BOXES else value


#: The run settings typed in a box, with the box's label (a refusal names it)
BOXES = {
    "batch": "Batch (per GPU)",
    "seq": "Context (0 = auto)",
    "gpus": "GPUs (data parallel)",
    "tp": "TP",
    "pp": "PP",
    "ep": "EP",
    "runtime_mib": "Runtime overhead (MiB per GPU)",
    "chunk": "Chunk (0 = auto)",
    "max_seqs": "Max sequences (0 = auto)",
    "gpu_util": "GPU share",
    "lora_rank": "LoRA rank",
    "tokens": "Training tokens (0 = 20 per parameter)",
    "tokens_per_second": "Measured throughput (tokens/s, all GPUs)",
    "new": "New tokens per sequence",
}
#: Those that are whole numbers (shown without decimals)
WHOLE = tuple(name for name in BOXES if name in WHOLE_NUMBERS)


def _box(where: Any, name: str, step: float, help_text: str | None = None) -> float:
    """A run setting's number box. It holds a float with no bounds of its own: a whole-number box would read 1e6 as 1
    and cut 2.5 to 2, and the browser refuses a value out of bounds with a tooltip alone; here every value reaches the
    settings, which take it or refuse it naming the box."""
    fmt = "%.0f" if name in WHOLE else "%g"
    return where.number_input(BOXES[name], step=float(step), format=fmt, **_widget(name), help=help_text)


def _widget(name: str, options: tuple | list | None = None) -> dict[str, Any]:
    """A run-settings widget's key, the callback that notes the person moved it, and as its default the value it
    holds (the ``index`` of it among ``options`` for a list): the browser starts a widget it re-creates from that
    default and sends it back as a move (the model's controls do the same, controls._current)."""
    current = st.session_state[KEY + name]
    default = {"value": current} if options is None else {"index": list(options).index(current)}
    return {"key": KEY + name, "on_change": note_moved, "args": (_RUN_MOVED, KEY + name), **default}


def render_run_controls(settings: RunSettings) -> RunSettings:
    """The run-settings widgets (keys ``run_<field>``); returns the settings they now hold. A widget the person did
    not move is put back to the settings' value first: under load the browser can hand a rerun a widget at its
    default (the first mode, an emptied box; bench/many_users.py --mixed saw sessions reset to the first options)."""
    _seed(settings)
    refused = st.session_state.get(_REFUSED, set())
    put_back(
        _RUN_MOVED,
        {
            KEY + f.name: _widget_value(settings, f.name)
            for f in dataclasses.fields(RunSettings)
            if KEY + f.name not in refused
        },
    )
    state = st.session_state
    got: dict[str, object] = {}
    got["mode"] = mode = st.radio(
        "Mode",
        MODES,
        **_widget("mode", MODES),
        horizontal=True,
        format_func=str.capitalize,
        help="Inference: weights + KV cache. Training: weights, gradients, optimizer, activations. Finetune: LoRA "
        "adapters trained on a frozen base (QLoRA with NF4).",
    )
    options = list(TRAIN_DTYPES) if mode != "inference" else list(DTYPES)
    if state.get(KEY + "dtype") not in options:
        state[KEY + "dtype"] = "bf16"
    got["dtype"] = st.selectbox(
        "Precision",
        options,
        **_widget("dtype", options),
        format_func=DTYPE_LABELS.get,
        help="Weight format for inference; for training bf16/fp16 mean mixed precision "
        "(16-bit weights and gradients, fp32 master weights in the optimizer).",
    )
    col1, col2 = st.columns(2)
    got["batch"] = _box(col1, "batch", 1)
    got["seq"] = _box(col2, "seq", 256, "0 = the model's context, at most 2,048 tokens.")
    gpus = list(hardware.ACCELERATORS)
    if state.get(KEY + "gpu") not in gpus:
        state[KEY + "gpu"] = hardware.DEFAULT_GPU
    got["gpu"] = st.selectbox("GPU", gpus, **_widget("gpu", gpus), format_func=lambda k: hardware.ACCELERATORS[k].name)
    got["gpus"] = _box(
        st, "gpus", 1, "Training: data-parallel GPUs (ZeRO shards over them). Compute: the time estimate."
    )
    for column, (name, help_text) in zip(st.columns(3), PARALLEL.items(), strict=True):
        got[name] = _box(column, name, 1, help_text)
    got["runtime_mib"] = _box(st, "runtime_mib", 64, RUNTIME_NOTE[0].upper() + RUNTIME_NOTE[1:] + ".")
    if mode != "inference":
        got["sp"] = st.checkbox(
            "Sequence parallelism",
            **_widget("sp"),
            help="With TP: the norms' and dropout's activations split too (Korthikanti et al. 2022).",
        )
    if mode == "inference":
        got["kv_dtype"] = st.selectbox(
            "KV cache format",
            KV_DTYPES,
            **_widget("kv_dtype", KV_DTYPES),
            format_func=DTYPE_LABELS.get,
            help="auto: the weights' format, or bf16 when the weights are quantized (fp8, int8, int4, mxfp4).",
        )
        got["serving"] = st.toggle(
            "Serving engine (chunked prefill)",
            **_widget("serving"),
            help="Off: transformers' generate (the whole prompt in one forward pass; sliding-window layers hold the "
            "whole prompt until the first step). On: a serving engine such as vLLM: the prompt in chunks of at most "
            "max_num_batched_tokens, the cache at its window, gpu_memory_utilization of the GPU.",
        )
        if got["serving"]:
            c1, c2 = st.columns(2)
            got["chunk"] = _box(
                c1,
                "chunk",
                1024,
                "max_num_batched_tokens: the most tokens one forward pass takes. 0: vLLM's default for `vllm serve` "
                f"on the GPU chosen ({SERVE_DEFAULTS_RULE}).",
            )
            got["max_seqs"] = _box(
                c2,
                "max_seqs",
                64,
                "max_num_seqs: the most sequences one step runs; the engine's profile samples that many at once (at "
                f"most the chunk). 0: vLLM's default for `vllm serve` on the GPU chosen ({SERVE_DEFAULTS_RULE}).",
            )
            got["gpu_util"] = _box(
                c1,
                "gpu_util",
                0.05,
                "gpu_memory_utilization: the share of the GPU the engine may use (vLLM's default 0.9).",
            )
    else:
        got["precision"] = st.selectbox(
            "Weights kept as",
            PRECISIONS_TRAIN,
            **_widget("precision", PRECISIONS_TRAIN),
            format_func=PRECISION_LABELS.get,
            help="PyTorch AMP: fp32 weights and gradients, autocast computes in 16 bit (transformers' Trainer with "
            "bf16=True; PEFT's fp32 adapters). 16-bit weights + fp32 master: Megatron-LM, DeepSpeed.",
        )
        got["kernels"] = st.selectbox(
            "Kernels",
            KERNELS,
            **_widget("kernels", KERNELS),
            format_func=KERNEL_LABELS.get,
            help="transformers: its eager modules and its loss (every token's logits in fp32). Liger-Kernel: its "
            "RMSNorm, SwiGLU and RoPE kernels and a fused linear cross-entropy that never holds the logits (the "
            "Trainer's use_liger_kernel=True). Megatron-LM: fused kernels (Korthikanti et al.) and a chunked loss.",
        )
        got["optimizer"] = st.selectbox(
            "Optimizer", OPTIMIZERS, **_widget("optimizer", OPTIMIZERS), format_func=OPTIMIZER_LABELS.get
        )
        got["zero"] = st.select_slider(
            "ZeRO stage",
            options=[0, 1, 2, 3],
            **_widget("zero"),
            help="1: shard optimizer states, 2: + gradients, 3: + weights, over the GPUs.",
        )
        got["recompute"] = st.selectbox(
            "Activation recomputation", RECOMPUTE, **_widget("recompute", RECOMPUTE), format_func=RECOMPUTE_LABELS.get
        )
        got["flash"] = st.checkbox(
            "FlashAttention", **_widget("flash"), help="The s×s attention scores are never stored."
        )
        got["dropout"] = st.checkbox(
            "Dropout", **_widget("dropout"), help="Store dropout masks (GPT-2 / GPT-3-style training)."
        )
    if mode == "finetune":
        got["lora_rank"] = _box(st, "lora_rank", 1)
        got["lora_targets"] = st.selectbox(
            "LoRA targets",
            ("all-linear", "attn"),
            **_widget("lora_targets", ("all-linear", "attn")),
            help="all-linear: every linear layer but the LM head (PEFT's target_modules='all-linear'); attn: the "
            "attention projections. Mixture-of-experts models: attn.",
        )
        got["quant"] = st.radio(
            "Frozen base",
            ("none", "nf4"),
            **_widget("quant", ("none", "nf4")),
            horizontal=True,
            format_func={"none": "16 bit (LoRA)", "nf4": "NF4 4-bit (QLoRA)"}.get,
        )
    got["causal"] = st.checkbox(
        "Causal attention FLOPs",
        **_widget("causal"),
        help="Count only the keys each query can see (default: every key, as nanoGPT and PaLM do).",
    )
    got["tokens"] = _box(st, "tokens", 1_000_000_000, "0 = Chinchilla-optimal: 20 tokens per parameter.")
    got["mfu"] = st.slider("Assumed MFU (%)", min_value=1.0, max_value=100.0, step=0.5, format="%.1f", **_widget("mfu"))
    got["tokens_per_second"] = _box(st, "tokens_per_second", 1000, "If you measured one: the MFU it implies.")
    got["new"] = _box(st, "new", 64, SPEED_NEW)
    got["efficiency"] = st.slider(
        "Speed: efficiency (% of peak and bandwidth)",
        min_value=10.0,
        max_value=100.0,
        step=5.0,
        format="%.0f",
        **_widget("efficiency"),
        help=SPEED_EFFICIENCY,
    )
    state[_SHOWN] = tuple(got)
    values = {f.name: got.get(f.name, getattr(settings, f.name)) for f in dataclasses.fields(RunSettings)}
    for name in ("mfu", "efficiency"):
        if name in got:
            values[name] = float(got[name]) / 100  # type: ignore[arg-type]
    for name in WHOLE:  # a whole number typed as 1e6 is one; a fraction stays one, refused naming its box
        value = values[name]
        if isinstance(value, float) and value.is_integer():
            values[name] = int(value)
    try:
        new = check(RunSettings(**values))  # type: ignore[arg-type]
    except ValueError as exc:
        field, _, why = str(exc).partition(": ")
        st.warning(f"Run settings not applied: {quoted(f'{BOXES.get(field, field)}: {why}')}")
        state[_REFUSED] = {KEY + field}  # what was typed stays in its box until it is mended, the other moves wait
        new = settings
    else:
        state[_REFUSED] = set()
        state[_RUN_MOVED] = set()  # the moves are in the settings now
    state[_SEEN] = new
    return new


# ========================================================================================= memory
def render_stored_format(stored: str, settings: RunSettings) -> None:
    """Where the checkpoint stores its weights in a format (``stored``, its ``quantization_config``) other than the
    one the inference figures are for: say so, with a button that sizes it as stored."""
    if not stored or settings.mode != "inference" or settings.dtype == stored:
        return
    st.info(f"The checkpoint's `quantization_config` names {stored}; the figures below are for {settings.dtype}.")
    st.button(f"Size it in {stored}, as stored", key="stored_format", on_click=_use_dtype, args=(stored,))


def _use_dtype(dtype: str) -> None:
    st.session_state[KEY + "dtype"] = dtype
    note_moved(_RUN_MOVED, KEY + "dtype")


def render_memory_tab(spec: Spec, settings: RunSettings) -> None:
    """Memory per GPU: headline, stacked bar against the GPU, the breakdown with formulas, sweeps."""
    tree = memory(spec, settings)
    out = parts(tree)
    gpu = hardware.get(settings.gpu)
    serving = settings.mode == "inference" and settings.serving  # a serving engine's budget, not a peak
    seq = resolved_seq(settings, spec.max_position_embeddings)
    total = out["total"]
    need = needed(tree)
    fits = need <= gpu.capacity
    qlora = settings.mode == "finetune" and settings.quant == "nf4"
    what = {"inference": "inference", "training": "training", "finetune": "LoRA fine-tuning"}[settings.mode]
    st.subheader(f"Memory per GPU for {'QLoRA fine-tuning' if qlora else what}", anchor=False)
    st.caption(
        ("NF4 base, bf16 compute" if qlora else settings.dtype)
        + f", batch {settings.batch} × {seq:,} tokens"
        + (
            f", KV cache in {resolved_kv_dtype(settings)}, "
            + (
                "a serving engine (chunks of {:,} tokens, at most {:,} sequences)".format(*serving_batch(settings))
                if settings.serving
                else "transformers' generate"
            )
            if settings.mode == "inference"
            else f", {settings.optimizer}, ZeRO {settings.zero} over {settings.gpus} GPU(s), recompute "
            f"{settings.recompute}{', FlashAttention' if settings.flash else ''}, "
            f"{PRECISION_LABELS[settings.precision]}, {KERNEL_LABELS[settings.kernels]}"
        )
        + ". GB = 10⁹ bytes, GiB = 2³⁰ bytes. "
        + (
            f"What must fit in {settings.gpu_util:g} of the GPU is the weights, what the engine's profile allocates "
            "and the cache; the runtime lives in the rest"
            if serving
            else "What must fit is the run's peak and the runtime (the allocator's margin is drawn: it gives way near "
            "capacity)"
        )
        + f", against the {gpu.capacity / GB:,.2f} GB PyTorch can allocate on one {gpu.name}"
        + (" (measured)." if gpu.usable_bytes else " (the datasheet's figure: not measured on this part).")
    )
    if settings.mode == "finetune":
        from paramscope.engine.lora import lora_params
        from paramscope.engine.params import count

        adapters, params = lora_params(spec, settings.lora_rank, settings.lora_targets).count, count(spec).count
        st.metric(
            "Trainable LoRA parameters",
            f"{adapters:,}",
            help=f"{adapters / params:.3%} of {params:,}: rank {settings.lora_rank} on {settings.lora_targets}, "
            "exactly as PEFT builds them",
        )
    layout = [f"{n} = {v}" for n, v in (("TP", settings.tp), ("PP", settings.pp), ("EP", settings.ep)) if v > 1]
    if layout:
        gpus, groups = world(settings), world_label(settings) or f"{settings.gpus:,} data-parallel"
        st.caption(
            f"Per GPU with {', '.join(layout)}{' and sequence parallelism' if settings.sp else ''}: "
            f"{gpus:,} GPU{'s' if gpus > 1 else ''} in all ({groups}). Megatron's split: every layer matrix, the "
            "vocabulary and the KV heads over TP (norms whole), ceil(layers / PP) layers and the embedding or the "
            "head per stage, experts over EP among a stage's GPUs (each sharded over TP without it)."
        )
    for problem in layout_problems(spec, settings):
        st.warning(problem, icon=":material/warning:")
    if settings.mode == "inference" and settings.gpus > 1:
        st.info(
            "Inference memory is per GPU of one model copy: data-parallel replicas (GPUs) do not split it"
            + (", but for the experts, which EP spreads over them." if spec.is_moe and settings.ep > 1 else ".")
        )
    if 0 < spec.max_position_embeddings < seq:  # 0: no limit (a scan)
        st.warning(
            f"{seq:,} tokens is longer than this model's context of {spec.max_position_embeddings:,} "
            "(`max_position_embeddings`): "
            + (
                "its learned position table has no rows for the extra tokens."
                if spec.position_embedding == "learned"
                else "it was not trained for it; the memory below is still what such a run would hold."
            ),
            icon=":material/warning:",
        )
    cols = st.columns(3)
    if serving:
        cols[0].metric(
            f"Needed per GPU at share {settings.gpu_util:g}",
            f"{need / GB:,.2f} GB",
            help=f"{need / GiB:,.3f} GiB = {need:,} bytes: the weights, what the engine's profile allocates and the "
            f"cache, within {settings.gpu_util:g} of the GPU, plus the {1 - settings.gpu_util:g} it leaves free (the "
            "runtime in it): a smaller share needs a larger GPU for the same run.",
        )
    else:
        cols[0].metric(
            "Peak + runtime per GPU",
            f"{need / GB:,.2f} GB",
            help=f"{need / GiB:,.3f} GiB = {need:,} bytes: what must fit. With the caching allocator's margin, what "
            f"nvidia-smi would show: {total / GB:,.2f} GB (the allocator returns that margin before it runs out).",
        )
    cols[1].metric(
        f"{gpu.name}",
        f"{gpu.capacity / GB:,.2f} GB usable",
        help=f"{gpu.memory_label} on the datasheet; PyTorch can allocate {gpu.capacity:,} bytes of it"
        + (" (measured)." if gpu.usable_bytes else " (the datasheet's figure: not measured on this part)."),
        delta=("fits" if fits else "does not fit"),
        delta_color="normal" if fits else "inverse",
        delta_arrow="off",  # an arrow up on "does not fit" would read as "more is better"
    )
    best = max_fit(spec, settings, gpu.capacity, "seq")
    if best is None:
        cols[2].metric("Largest context that fits", "none", help="Even one token does not fit.")
    else:
        shown = "unbounded" if best >= MAX_SEQ else f"{best:,}"
        cols[2].metric(
            "Largest context that fits",
            shown,
            help=f"At batch {settings.batch} on one {gpu.name}; {context_window(spec)}.",
        )
    if not fits:
        spread = gpus_needed(spec, settings, gpu.capacity)
        if spread is None:
            st.error(f"Does not fit even on 4,096 × {gpu.name} this way: lower the batch or the context.")
        else:
            st.info(
                f"**GPUs needed: {spread.gpus:,} × {gpu.name}**, with {spread.how}: {spread.per_gpu / GB:,.2f} GB "
                f"per GPU of {gpu.capacity / GB:,.2f} GB usable ({gpu.memory_label}; "
                f"{(gpu.capacity - spread.per_gpu) / GB:,.2f} GB left). In the settings: GPUs (data parallel) "
                f"{spread.dp:,}, TP {spread.tp}, PP {spread.pp}, EP {spread.ep}"
                + (", ZeRO 3." if settings.mode != "inference" else "."),
                icon=":material/memory:",
            )
    steps = phases(spec, settings)
    peak = peak_phase(steps).path
    fp8 = fp8_cache_alternative(spec, settings)
    kv = (
        f" Under {settings.dtype} weights the cache stays in bf16 (KV cache format: auto); an fp8 cache would make the "
        f"total {fp8.count / GB:,.2f} GB."
        if fp8
        else ""
    )
    st.caption(
        f"Peak: **{peak.replace('_', ' ')}**, {PHASES[peak]}. The bars below show each phase of the run; the table is "
        "the peak's." + kv
    )
    if serving:
        room = serving_room(spec, settings, gpu.capacity, gpu.name)
        st.caption(
            f"Serving: {room}. As vLLM sizes it: the GPU share less the weights and what its profile of one chunk "
            "allocated (the transient rows) goes to the cache; the runtime lives in the rest."
        )
    left, right = st.columns([1, 2])
    left.plotly_chart(C.memory_bar(out, gpu.capacity, gpu.name), config=PLOTLY_CONFIG)
    held = (out["runtime"] + out["reserve"]) / GB
    what = "the share the engine leaves free" if serving else "the runtime"
    right.plotly_chart(C.memory_phases(steps, peak, gpu.capacity, gpu.name, held, what), config=PLOTLY_CONFIG)
    rows = []
    notes = []
    for n in tree.walk():
        if not n.path:
            continue
        rows.append(
            {
                "part": "  " * (n.depth() - 1) + n.path,
                "bytes": f"{n.count:,}",
                "GB": f"{n.count / GB:,.3f}",
                "GiB": f"{n.count / GiB:,.3f}",
                "formula": _plain(n.full_formula),
            }
        )
        if n.note:
            notes.append(f"`{n.path}`: {_plain(n.note)}")
    st.table(rows)  # the page's width, under the charts: every digit shown, long formulas wrapped in a wide column
    if notes:  # under the table, so that no column runs off its right edge
        st.caption("  \n".join(notes))
    if settings.mode == "inference":
        st.caption(
            "Every precision at once (weights + KV cache per GPU, the cache in bf16, fp32 for fp32 weights; the last "
            "column is what must fit, as in the headline):"
        )
        st.table(
            [
                {"precision": d, "weights": f"{v['weights'] / GB:,.2f} GB", "KV cache": f"{v['kv_cache'] / GB:,.2f} GB",
                 "must fit": f"{v['needed'] / GB:,.2f} GB",
                 "fits": "yes" if v["needed"] <= gpu.capacity else "no"}
                for d, v in every_precision(spec, settings).items()
            ]
        )  # fmt: skip
    _sweeps(spec, settings, seq, gpu, best)
    with st.expander("Conventions and formulas"):
        st.markdown(_MEMORY_NOTES)
        if settings.mode == "inference" and settings.dtype in QUANT:
            quant = QUANT[settings.dtype]
            st.markdown(
                f"**{settings.dtype}:** {quant.label}; "
                + (
                    "this mixture of experts has its routed experts alone quantized, their biases in fp32: every "
                    "other layer matrix, the embeddings, the LM head and the norms stay in 16 bit, as gpt-oss's "
                    "checkpoint and transformers' and vLLM's MXFP4 kernels hold them."
                    if quant.experts_only and spec.is_moe
                    else "embeddings, the LM head, norms and biases are kept in 16 bit."
                )
            )


def _plain(text: str) -> str:
    """Text shown as it is where Streamlit reads Markdown (a table cell, a caption): ``a*b*c`` is not italics."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")


def _trim(
    xs: list[int], rows: list[dict[str, int]], capacity: int, keep: int
) -> tuple[list[int], list[dict[str, int]]]:
    """Drop the points after the first one above twice the capacity (so the GPU line stays readable),
    but keep at least four points and the chosen value ``keep``."""
    last = len(xs)
    for i, r in enumerate(rows):
        if r["total"] > 2 * capacity:
            last = i + 1
            break
    last = max(last, min(4, len(xs)), xs.index(keep) + 1 if keep in xs else 0)
    return xs[:last], rows[:last]


def _sweeps(spec: Spec, settings: RunSettings, seq: int, gpu: hardware.Accelerator, best: int | None) -> None:
    n = spec.max_position_embeddings  # up to the model's own context (or the context set beyond it)
    top = max(seq, n) if n > 0 else max(4 * seq, 4096, 2 * best if best and best < MAX_SEQ else 0)
    xs = sorted({min(2**k, MAX_SEQ) for k in range(7, 40) if 2**k <= top} | {seq})
    batches = sorted({2**k for k in range(0, 11)} | {settings.batch})
    cap = gpu.capacity
    xs, seq_rows = _trim(xs, sweep(spec, settings, "seq", xs), cap, seq)
    batches, batch_rows = _trim(batches, sweep(spec, settings, "batch", batches), cap, settings.batch)
    a, b = st.columns(2)
    a.plotly_chart(
        C.memory_sweep(xs, seq_rows, "context length (tokens)", cap, gpu.name, marker=seq), config=PLOTLY_CONFIG
    )
    b.plotly_chart(
        C.memory_sweep(batches, batch_rows, "batch (sequences per GPU)", cap, gpu.name, marker=settings.batch),
        config=PLOTLY_CONFIG,
    )


_MEMORY_NOTES = """
* **Weights**: parameters × bytes per element (fp32 4, bf16/fp16 2, fp8/int8 1, int4/mxfp4 ½). Quantized formats
  quantize the transformer layers' weight matrices only; embeddings, LM head, norms and biases stay 16-bit;
  scales: fp8 one fp32 per matrix, int8 one fp16 per output channel, int4 fp16 scale + fp16 zero per group
  of 128, mxfp4 one byte per block of 32. mxfp4 quantizes a mixture of experts' routed experts alone (their
  biases in fp32), as gpt-oss's checkpoint and its kernels hold them; a serving engine on an H100 or H200 adds
  its kernel's layout (vLLM's Triton MXFP4: padded values and scales, the checkpoint's scales kept); transformers
  holds mxfp4 only with triton ≥ 3.4 and the `kernels` package, and otherwise dequantizes to bf16.
* **KV cache**: `2 · layers · num_key_value_heads · head_dim · tokens · batch · bytes` (GQA/MQA through
  `num_key_value_heads`); sliding-window layers hold at most `sliding_window` tokens; MLA caches
  `kv_lora_rank + qk_rope_head_dim` per token and layer; encoder-decoders add the cross-attention cache.
* **Training** (mixed precision, as in the ZeRO paper): weights 2 + gradients 2 + AdamW 12 (fp32 master, m, v)
  = 16 bytes per parameter; SGD with momentum 2 + 2 + 8; 8-bit Adam 2 + 2 + 6 (+ block scales). ZeRO 1/2/3
  shard optimizer / + gradients / + weights over the GPUs.
* **Activations** (Korthikanti et al. 2022, Table 2): `s·b·h·(34 + 5·a·s/h)` bytes per GPT layer; selective
  recomputation or FlashAttention drop the `5·a·s/h` term, full recomputation keeps `2·s·b·h`. Generalized per
  component: Q/K/V at their own widths (GQA), gated MLPs keep 4 tensors of the MLP width, no dropout masks
  unless dropout is on; plus fp32 logits `4·s·b·vocab`.
* **Measured** on an H100 (GPT-2, Qwen3-0.6B, Llama-3.2-1B and Gemma-3-1B built by transformers,
  `bench/gpu_memory.py`): weights, optimizer states, gradients and the KV cache as computed here (within 2.6 %:
  the classes' buffers), LoRA with PEFT too (its trainable count exactly); activations within 1.4 % with full
  recomputation, 14–45 % more without it (transformers' eager kernels keep more than fused ones); peaks add the
  transient buffers below. The runtime line (768 MiB assumed) measured 717–837 MiB.
* Not counted: transient buffers (an unchunked prefill's MLP intermediates; the logits' gradient at the start of
  the backward pass, about 6 bytes × tokens × vocab), allocator fragmentation, communication buckets.
"""


# ======================================================================================== compute
def render_compute_tab(spec: Spec, settings: RunSettings) -> None:
    """FLOPs per token (with formulas), training compute, Chinchilla tokens, time on the chosen GPUs, MFU."""
    c = F.compute(spec, settings)
    gpu = hardware.get(settings.gpu)
    gpus, layout = world(settings), world_label(settings)
    seconds = F.training_seconds(c.training_total, gpus, gpu.bf16_flops, settings.mfu)
    mode = "causal" if settings.causal else "non-causal (every query sees every key)"
    st.subheader("Compute", anchor=False)
    st.caption(
        f"At {c.seq:,} tokens per sequence, attention counted {mode}; 2 FLOPs per multiply-add; "
        "LM head included, embedding lookups, norms and biases not."
    )
    cols = st.columns(4)
    cols[0].metric("Forward FLOPs / token", _flops(c.forward_per_token), help=f"{c.forward_per_token:,}")
    cols[1].metric(
        "Training FLOPs / token", _flops(c.training_per_token), help=f"3 × forward = {c.training_per_token:,}"
    )
    cols[2].metric(
        "Training tokens",
        short(c.tokens),
        help=("as set" if settings.tokens else "Chinchilla-optimal: 20 × parameters") + f" = {c.tokens:,}",
    )
    cols[3].metric("Training FLOPs", power_of_ten(c.training_total), help=f"{c.training_total:,}")
    cols = st.columns(3)
    cols[0].metric("6ND", power_of_ten(c.six_nd), help=f"6 × {c.active_params:,} (active) params × {c.tokens:,} tokens")
    cols[1].metric("Chinchilla tokens", short(c.chinchilla_tokens), help=f"20 × {c.params:,} params")
    cols[2].metric(
        f"Time on {gpus} × {gpu.name}",
        F.human_seconds(seconds),
        help=f"{power_of_ten(c.training_total, 4)} FLOPs / ({gpus} × {gpu.tflops:,.1f} TFLOP/s × MFU "
        f"{settings.mfu:.0%})" + (f"; {gpus} GPUs = {layout}" if layout else ""),
    )
    training = as_training(settings)  # the time is a training run's
    if needed_bytes(spec, training) > gpu.capacity:
        st.warning(
            f"This {training.mode} run does not fit on {gpus} × {gpu.name} as set (the Memory tab, in "
            f"{training.mode} mode, gives the GPUs it needs): the time is for the GPUs set, at the MFU assumed.",
            icon=":material/memory:",
        )
    if settings.tokens_per_second:
        m = F.mfu(settings.tokens_per_second, c.training_per_token, gpus, gpu.bf16_flops)
        st.info(
            f"Measured {settings.tokens_per_second:,.0f} tokens/s on {gpus} × {gpu.name} → "
            f"MFU {m:.1%} = tokens/s × {c.training_per_token:,} FLOPs/token / ({gpus} × "
            f"{power_of_ten(gpu.bf16_flops, 4)} FLOP/s)"
        )
    st.latex(
        r"C_\text{train} = 3\,C_\text{forward} \approx 6ND, \qquad "
        r"C_\text{forward}/\text{token} = 2\,N_\text{matmul} + 4\,L\,d_\text{attn}\,s_\text{keys}"
    )
    left, right = st.columns([2, 3])
    left.plotly_chart(C.flops_bar(c.tree, c.seq), config=PLOTLY_CONFIG)
    rows = [
        {
            "component": "  " * (n.depth() - 1) + n.path,
            "FLOPs per sequence": n.count,
            "per token": round(n.count / c.seq),
            "formula": n.full_formula,
            "note": n.note,
        }
        for n in c.tree.walk()
        if n.path
    ]
    whole = st.column_config.NumberColumn(format="localized")  # thousands separators, still sorted as numbers
    right.dataframe(rows, hide_index=True, column_config={"FLOPs per sequence": whole, "per token": whole})
    _speed(spec, settings, gpu, c.seq)
    with st.expander("Accelerators (dense bf16 peak, bandwidth, memory, sources)"):
        st.dataframe(
            [
                {
                    "key": a.key,
                    "name": a.name,
                    "dense bf16 TFLOP/s": a.tflops,
                    "bandwidth GB/s": a.bandwidth / 1e9,
                    "memory": a.memory_label,
                    "source": a.source,
                    "bandwidth source": a.bandwidth_source,
                    "note": a.note,
                }
                for a in hardware.ACCELERATORS.values()
            ],
            hide_index=True,
        )


def _speed(spec: Spec, settings: RunSettings, gpu: hardware.Accelerator, prompt: int) -> None:
    """Inference speed from the roofline on the layout the Memory tab's run fits on (the settings' own where it fits,
    else the fewest GPUs that hold it): prefill, time to first token, decode."""
    inference = settings.mode == "inference"
    dtype = settings.dtype if inference else "bf16"
    run = dataclasses.replace(settings, mode="inference", dtype=dtype)
    if not inference:  # a training run's layout is not how it would be served
        run = dataclasses.replace(run, tp=1, pp=1, ep=1)
    tp, gpus, layout = run.tp, run.tp * run.pp, ""
    if needed_bytes(spec, run) > gpu.capacity:
        spread = gpus_needed(spec, run, gpu.capacity)
        if spread is None:
            st.warning(
                f"This run does not fit on up to 4,096 × {gpu.name}: the speeds below are one GPU's roofline as if it "
                "fitted.",
                icon=":material/warning:",
            )
            tp = gpus = 1
        else:
            tp, gpus = spread.tp, spread.gpus
            layout = f"It needs {spread.gpus:,} GPUs ({spread.how}"
            layout += "; the settings' layout does not fit). " if run.tp * run.pp > 1 else "). "
    elif gpus > 1:
        layout = f"On the settings' {gpus:,} GPUs (TP {run.tp} × PP {run.pp}). "
    how = []
    if tp > 1:
        gpu = dataclasses.replace(gpu, bf16_flops=gpu.bf16_flops * tp, bandwidth=gpu.bandwidth * tp)
        how.append(
            f"tensor parallelism over {tp} multiplies the FLOP/s and bandwidth by {tp} (its all-reduces not counted)"
        )
    if gpus > tp:
        how.append("pipeline stages run one after another for a sequence, no faster")
    if how:
        text = "; ".join(how)
        layout += f"{text[0].upper()}{text[1:]}. "
    count = "one" if gpus == 1 else f"{gpus:,} ×"
    st.subheader(f"Inference speed on {count} {gpu.name}", anchor=False)
    new, eff = settings.new, round(settings.efficiency * 100)
    sp = speed(
        spec,
        gpu,
        dtype=dtype,
        kv_dtype=resolved_kv_dtype(run),
        batch=settings.batch,
        prompt=prompt,
        new=new,
        efficiency=settings.efficiency,
    )
    cols = st.columns(3)
    cols[0].metric(
        "Time to first token",
        f"{sp.time_to_first_token_s * 1e3:,.1f} ms",
        help=f"prefill of {settings.batch} × {prompt:,} tokens: {sp.prefill.flops:,} FLOPs"
        + (" (the LM head on each prompt's last token only)" if keeps_last_logits(spec) else "")
        + f" and {sp.prefill.bytes:,} bytes, {sp.prefill.bound}-bound",
    )
    cols[1].metric("Prefill", f"{sp.prefill_tokens_per_s:,.0f} tokens/s", help=f"{sp.prefill.bound}-bound")
    cols[2].metric(
        "Decode",
        f"{sp.decode_tokens_per_s:,.1f} tokens/s",
        help=f"batch {settings.batch}, {sp.decode_step.bound}-bound: each step reads {sp.decode_step.bytes:,} bytes "
        f"(weights and KV cache) and runs {sp.decode_step.flops:,} FLOPs",
    )
    st.caption(
        f"{layout}Roofline, {dtype} weights, KV cache in {resolved_kv_dtype(run)}: each phase takes the longer of FLOPs"
        f" / ({gpu.tflops:,.1f} TFLOP/s × "
        f"{eff}%) and "
        f"bytes / ({gpu.bandwidth / 1e9:,.0f} GB/s × {eff}%). A decode step reads every weight once (MoE: only "
        "the experts the batch routes to) plus the KV cache. Measured decode: vLLM 73 % of this bound (A100), "
        "PyTorch's kernels with CUDA graphs 59-63 % (H200; a mixture of experts 16-49 %), a plain transformers "
        "script under 10 %; prefill: transformers about 50 % (H200)."
    )


__all__ = ["render_compute_tab", "render_memory_tab", "render_run_controls", "PARTS"]
