"""The ``memory`` and ``flops`` commands of ``python -m paramscope`` (registered in ``__main__.COMMANDS``).

User mistakes raise ``ValueError`` with a one-line message; ``__main__.main`` turns it into exit status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys

from paramscope.engine import flops as F
from paramscope.engine import hardware
from paramscope.engine.hardware import GB, GiB
from paramscope.engine.memory import (
    PARTS,
    GpusNeeded,
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
    phases,
    serving_capacity,
    serving_room,
)
from paramscope.engine.run import (
    DTYPES,
    KERNELS,
    KV_DTYPES,
    MODES,
    OPTIMIZERS,
    PRECISIONS_TRAIN,
    RECOMPUTE,
    SERVE_DEFAULTS_RULE,
    RunSettings,
    check,
    resolved_kv_dtype,
    resolved_seq,
    serving_batch,
    world,
    world_label,
)
from paramscope.engine.spec import Spec, short
from paramscope.engine.tree import Node


def _count(text: str) -> int:
    """A whole number, also written as 1.4e12 or 1_000."""
    t = text.strip().replace("_", "").replace(",", "")
    if len(t) > 40:
        raise argparse.ArgumentTypeError("too long")
    try:
        return int(t)
    except ValueError:
        pass
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number") from None
    if not math.isfinite(value) or not value.is_integer():
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number")
    return int(value)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a finite number")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    d = RunSettings()
    p.add_argument(
        "--seq",
        type=_count,
        default=d.seq,
        metavar="S",
        help="context length in tokens (default: the model's context, at most 2048)",
    )
    p.add_argument(
        "--gpu",
        choices=list(hardware.ACCELERATORS),
        default=d.gpu,
        help=f"accelerator for capacity / peak FLOP/s (default {d.gpu})",
    )
    p.add_argument("--gpus", type=_count, default=d.gpus, metavar="N", help="data-parallel GPUs (default 1)")
    p.add_argument("--tp", type=_count, default=d.tp, metavar="T", help="tensor-parallel GPUs (default 1)")
    p.add_argument("--pp", type=_count, default=d.pp, metavar="P", help="pipeline stages (default 1)")
    p.add_argument("--ep", type=_count, default=d.ep, metavar="E", help="expert-parallel GPUs (default 1)")
    p.add_argument("--sp", action="store_true", help="sequence parallelism (with --tp): split the rest too")


def memory_args(p: argparse.ArgumentParser) -> None:
    d = RunSettings()
    _common(p)
    p.add_argument(
        "--mode", choices=MODES, default=d.mode, help="inference (default), training, or finetune (LoRA / QLoRA)"
    )
    p.add_argument(
        "--dtype",
        choices=DTYPES,
        default=d.dtype,
        help="weight format (inference) / precision (training: bf16, fp16 = mixed precision); default bf16",
    )
    p.add_argument(
        "--kv-dtype",
        choices=KV_DTYPES,
        default=d.kv_dtype,
        help="KV cache format (default auto: the weight dtype, bf16 for quantized weights)",
    )
    p.add_argument("--batch", type=_count, default=d.batch, metavar="B", help="sequences per GPU (default 1)")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default=d.optimizer, help="training optimizer (default adamw)")
    p.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=d.zero, help="ZeRO stage (default 0)")
    p.add_argument(
        "--recompute", choices=RECOMPUTE, default=d.recompute, help="activation recomputation (default none)"
    )
    p.add_argument(
        "--flash",
        action=argparse.BooleanOptionalAction,
        default=d.flash,
        help="FlashAttention: attention scores are not stored (default on, as every current trainer runs; "
        "--no-flash stores them)",
    )
    p.add_argument("--dropout", action="store_true", help="store dropout masks (GPT-2/GPT-3-style training)")
    p.add_argument("--lora-rank", type=_count, default=d.lora_rank, metavar="R", help="finetune: LoRA rank (16)")
    p.add_argument(
        "--lora-targets",
        choices=("all-linear", "attn"),
        default=d.lora_targets,
        help="finetune: every linear layer but the LM head (PEFT's all-linear), or the attention projections",
    )
    p.add_argument(
        "--quant", choices=("none", "nf4"), default=d.quant, help="finetune: frozen base in NF4 (QLoRA) or not"
    )
    p.add_argument(
        "--precision",
        choices=PRECISIONS_TRAIN,
        default=d.precision,
        help="training / finetune: amp (fp32 trained weights and gradients, autocast: transformers' Trainer with "
        "bf16=True, PEFT's fp32 adapters; the default) or master (16-bit weights, an fp32 master copy: Megatron, "
        "DeepSpeed)",
    )
    p.add_argument(
        "--kernels",
        choices=KERNELS,
        default=d.kernels,
        help="training / finetune: transformers (eager modules, its loss over fp32 logits; the default), liger "
        "(Liger-Kernel's RMSNorm, SwiGLU, RoPE and fused linear cross-entropy over them) or fused (Megatron-LM's "
        "fused kernels and a chunked loss)",
    )
    p.add_argument(
        "--serving",
        action="store_true",
        help="inference on a serving engine with chunked prefill (vLLM) instead of transformers' generate",
    )
    p.add_argument(
        "--chunk",
        type=_count,
        default=d.chunk,
        metavar="N",
        help=f"--serving: max_num_batched_tokens (default 0: vLLM's for the GPU, {SERVE_DEFAULTS_RULE})",
    )
    p.add_argument(
        "--gpu-util",
        type=_number,
        default=d.gpu_util,
        metavar="U",
        help=f"--serving: gpu_memory_utilization, the share of the GPU the engine uses ({d.gpu_util})",
    )
    p.add_argument(
        "--max-seqs",
        type=_count,
        default=d.max_seqs,
        metavar="N",
        help="--serving: max_num_seqs, the most sequences one step runs, at most the chunk (default 0: vLLM's for the "
        "GPU)",
    )
    p.add_argument(
        "--runtime-mib",
        type=int,
        default=d.runtime_mib,
        metavar="M",
        help=f"per GPU: CUDA context and framework workspaces, assumed (default {d.runtime_mib}; 0 leaves it out)",
    )


def flops_args(p: argparse.ArgumentParser) -> None:
    d = RunSettings()
    _common(p)
    p.add_argument(
        "--tokens",
        type=_count,
        default=d.tokens,
        metavar="D",
        help="training tokens (default: Chinchilla-optimal, 20 per parameter)",
    )
    p.add_argument("--causal", action="store_true", help="count attention causally (default: non-causal, as nanoGPT)")
    p.add_argument("--mfu", type=_number, default=d.mfu, help=f"assumed MFU for the time estimate (default {d.mfu})")
    p.add_argument(
        "--tokens-per-second",
        type=_number,
        default=0.0,
        metavar="T",
        help="measured training throughput of all GPUs together: prints the MFU it implies",
    )


def _settings(args: argparse.Namespace, **fields: object) -> RunSettings:
    base = {"seq": args.seq, "gpu": args.gpu, "gpus": args.gpus, "tp": args.tp, "pp": args.pp, "ep": args.ep}
    base.update(sp=args.sp, **fields)
    return check(dataclasses.replace(RunSettings(), **base))


def _rows(tree: Node) -> list[dict]:
    return [
        {
            "path": n.path,
            "bytes": n.count,
            "formula": n.full_formula,
            "repeat": n.repeat,
            "note": n.note,
            "leaf": not n.children,
        }
        for n in tree.walk()
        if n.path
    ]


#: What "fits" compares.
FITS_RULE = (
    "fits: the peak phase + the runtime <= what the GPU can allocate (the allocator's margin gives way near capacity)"
)
#: What "fits" compares on a serving engine, and how it sizes its cache.
SERVING_FITS_RULE = (
    "fits: the weights, what the engine's profile allocates and the run's KV cache <= gpu_util x what the GPU can "
    "allocate, the runtime in the rest"
)
SERVING_BUDGET = (
    "vLLM's determine_available_memory: gpu_memory_utilization × capacity − weights − what its profile of one chunk "
    "allocated"
)


def recipe(s: RunSettings) -> dict[str, object]:
    """The settings that name what the user runs (the recipe), for the mode at hand."""
    if s.mode == "inference":
        out: dict[str, object] = {"engine": "serving engine, chunked prefill" if s.serving else "transformers generate"}
        if s.serving:
            chunk, seqs = serving_batch(s)
            out.update(chunk=chunk, gpu_util=s.gpu_util, max_seqs=seqs)
        return out
    return {"precision": s.precision, "kernels": s.kernels}


def kv_note(spec: Spec, s: RunSettings) -> str:
    """What "auto" chose for the KV cache when the weights are quantized, with the fp8 cache's bytes beside it."""
    fp8 = fp8_cache_alternative(spec, s)
    if fp8 is None:
        return ""
    return (
        f"auto keeps a bf16 cache under {s.dtype} weights; an fp8 cache (--kv-dtype fp8) is "
        f"{fp8.get('kv_cache') / GB:,.3f} GB"
    )


def _brief(n: int) -> str:
    """291.6B below a quadrillion, 2.13e+18 above it."""
    return short(n) if n < 10**15 else f"{n:.3g}"


def _gb(n: int) -> str:
    return f"{n / GB:12,.3f} GB  {n / GiB:12,.3f} GiB"


def _adapters(spec: Spec, s: RunSettings) -> int:
    from paramscope.engine.lora import lora_params

    return lora_params(spec, s.lora_rank, s.lora_targets).count


def _memory_settings(args: argparse.Namespace) -> RunSettings:
    """The run settings of ``memory`` and ``fit`` (the arguments of :func:`memory_args`)."""
    return _settings(
        args,
        mode=args.mode,
        dtype=args.dtype,
        kv_dtype=args.kv_dtype,
        batch=args.batch,
        optimizer=args.optimizer,
        zero=args.zero,
        recompute=args.recompute,
        flash=args.flash,
        dropout=args.dropout,
        lora_rank=args.lora_rank,
        lora_targets=args.lora_targets,
        quant=args.quant,
        precision=args.precision,
        kernels=args.kernels,
        serving=args.serving,
        chunk=args.chunk,
        gpu_util=args.gpu_util,
        max_seqs=args.max_seqs,
        runtime_mib=args.runtime_mib,
    )


def run_memory(spec: Spec, label: str, ignored: tuple[str, ...], args: argparse.Namespace) -> int:
    s = _memory_settings(args)
    tree = memory(spec, s)
    for problem in layout_problems(spec, s):
        print(f"warning: {problem}", file=sys.stderr)
    out = parts(tree)
    gpu = hardware.get(s.gpu)
    serving = s.serving and s.mode == "inference"
    fits = needed(tree) <= gpu.capacity
    best = max_fit(spec, s, gpu.capacity, "seq")
    spread = None if fits else gpus_needed(spec, s, gpu.capacity)
    seq = resolved_seq(s, spec.max_position_embeddings)
    resolved = {
        "mode": s.mode,
        "dtype": s.dtype,
        "kv_dtype": resolved_kv_dtype(s),
        "batch": s.batch,
        "seq": seq,
        "optimizer": s.optimizer,
        "zero": s.zero,
        "gpus": s.gpus,
        "recompute": s.recompute,
        "flash": s.flash,
        "dropout": s.dropout,
        **(
            {"lora_rank": s.lora_rank, "lora_targets": s.lora_targets, "quant": s.quant} if s.mode == "finetune" else {}
        ),
        **recipe(s),
    }
    steps = phases(spec, s)
    if args.json:
        doc = {
            "model": label,
            "model_type": spec.model_type,
            "settings": resolved,
            **out,
            **({"trainable_params": _adapters(spec, s)} if s.mode == "finetune" else {}),
            "gpu": {"key": gpu.key, "name": gpu.name, "memory_bytes": gpu.memory_bytes, "capacity_bytes": gpu.capacity},
            "fits": fits,
            "fits_rule": SERVING_FITS_RULE if serving else FITS_RULE,
            "peak_phase": tree.note,
            "phases": [{"phase": p.path, "bytes": p.count, "note": p.note, "breakdown": _rows(p)} for p in steps],
            "kv_cache_note": kv_note(spec, s),
            "serving": serving_capacity(spec, s, gpu.capacity) if serving else None,
            "max_seq_that_fits": best,
            "every_precision": every_precision(spec, s) if s.mode == "inference" else None,
            "gpus_needed": None
            if spread is None
            else {"gpus": spread.gpus, "how": spread.how, "per_gpu": spread.per_gpu},
            "breakdown": _rows(tree),
            "ignored_keys": list(ignored),
        }
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{label}  ({spec.model_type}) — {s.mode}, {s.dtype}, batch {s.batch} × {seq:,} tokens, per GPU")
    print("recipe: " + ", ".join(f"{k} {v}" for k, v in recipe(s).items()))
    if s.mode == "inference":
        note = kv_note(spec, s)
        print(f"KV cache in {resolved_kv_dtype(s)}" + (f" ({note})" if note else ""))
    else:
        print(
            f"optimizer {s.optimizer}, ZeRO {s.zero} over {s.gpus} GPU(s), recompute {s.recompute}, "
            f"flash {'on' if s.flash else 'off'}, dropout {'on' if s.dropout else 'off'}"
        )
    print("GB = 10^9 bytes, GiB = 2^30 bytes")
    print(f"{'part':<14} {'bytes':>20}  {'GB':>15}  {'GiB':>16}")
    for p in PARTS:
        if out[p] or (p == "kv_cache" and s.mode == "inference") or (s.mode != "inference" and p != "kv_cache"):
            print(f"{p:<14} {out[p]:>20,}  {_gb(out[p])}")
    print(f"{'total':<14} {out['total']:>20,}  {_gb(out['total'])}")
    print()
    width = max([len(n.path) + 2 * n.depth() for n in tree.walk() if n.path] + [20])
    for n in tree.walk():
        if not n.path:
            continue
        name = "  " * (n.depth() - 1) + n.path
        note = f"  [{n.note}]" if n.note else ""
        print(f"{name:<{width}} {n.count:>20,}  {n.full_formula}{note}")
    print()
    print("phases (bytes allocated, without the allocator's margin and the runtime):")
    for p in steps:
        print(f"  {p.path:<14} {p.count:>20,}  {p.count / GB:10,.3f} GB  {p.note}")
    print(f"the total is the {tree.note}")
    print()
    verdict = "fits" if fits else "does NOT fit"
    rule = SERVING_FITS_RULE if serving else FITS_RULE
    print(f"{gpu.name} ({gpu.memory_label}; {gpu.capacity:,} bytes usable): {verdict} ({rule})")
    if serving:
        print(f"serving: {serving_room(spec, s, gpu.capacity, gpu.name)} ({SERVING_BUDGET})")
    if spread is not None:
        print(f"GPUs needed: {spread.gpus:,}, with {spread.how} ({spread.per_gpu / GB:,.2f} GB per GPU)")
    if best is None:
        print("largest context that fits: none (even 1 token is too much)")
    else:
        print(f"largest context that fits at batch {s.batch}: {best:,} tokens ({context_window(spec)})")
    return 0


def run_flops(spec: Spec, label: str, ignored: tuple[str, ...], args: argparse.Namespace) -> int:
    s = _settings(args, tokens=args.tokens, causal=args.causal, mfu=args.mfu, tokens_per_second=args.tokens_per_second)
    c = F.compute(spec, s)
    gpu = hardware.get(s.gpu)
    gpus = world(s)
    seconds = F.training_seconds(c.training_total, gpus, gpu.bf16_flops, s.mfu)
    measured = F.mfu(s.tokens_per_second, c.training_per_token, gpus, gpu.bf16_flops) if s.tokens_per_second else None
    if args.json:
        doc = {
            "model": label,
            "model_type": spec.model_type,
            "seq": c.seq,
            "causal": s.causal,
            "forward_per_sequence": c.forward_per_sequence,
            "forward_per_token": c.forward_per_token,
            "training_per_token": c.training_per_token,
            "tokens": c.tokens,
            "training_total": c.training_total,
            "six_nd": c.six_nd,
            "chinchilla_tokens": c.chinchilla_tokens,
            "params": c.params,
            "active_params": c.active_params,
            "gpu": {"key": gpu.key, "name": gpu.name, "bf16_flops": gpu.bf16_flops},
            "gpus": s.gpus,
            "world_gpus": gpus,
            "mfu": s.mfu,
            "training_seconds": seconds,
            "measured_mfu": measured,
            "breakdown": [
                {"path": n.path, "flops": n.count, "formula": n.full_formula, "note": n.note}
                for n in c.tree.walk()
                if n.path
            ],
            "ignored_keys": list(ignored),
        }
        print(json.dumps(doc, indent=1))
        return 0
    mode = "causal" if s.causal else "non-causal (every query sees every key)"
    print(f"{label}  ({spec.model_type}) — sequence of {c.seq:,} tokens, attention {mode}")
    width = max([len(n.path) + 2 * n.depth() for n in c.tree.walk() if n.path] + [20])
    for n in c.tree.walk():
        if n.path:
            name = "  " * (n.depth() - 1) + n.path
            print(f"{name:<{width}} {n.count:>24,}  {n.full_formula}")
    print()
    rows = [
        ("forward per sequence", c.forward_per_sequence, "sum of the tree"),
        ("forward per token", c.forward_per_token, "forward per sequence / seq"),
        ("training per token", c.training_per_token, "3 × forward (backward = 2 × forward)"),
        ("training tokens D", c.tokens, "--tokens" if s.tokens else "Chinchilla: 20 × params"),
        ("training total", c.training_total, "training per token × D"),
        ("6ND", c.six_nd, "6 × active params × D (Kaplan et al. 2020)"),
        ("Chinchilla tokens", c.chinchilla_tokens, f"20 × {c.params:,} params"),
    ]
    for name, value, how in rows:
        print(f"{name:<22} {value:>30,}  {_brief(value):>8}  {how}")
    print(
        f"training time on {gpus} × {gpu.name}{f' ({layout})' if (layout := world_label(s)) else ''} "
        f"({gpu.tflops:,.1f} TFLOP/s dense bf16) at MFU {s.mfu:.0%}: "
        f"{F.human_seconds(seconds)}"
    )
    if measured is not None:
        print(f"MFU at {s.tokens_per_second:,.0f} tokens/s: {measured:.1%}")
    return 0


# ------------------------------------------------------------------------------------------- speed and fit
def speed_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", choices=list(hardware.ACCELERATORS), default=hardware.DEFAULT_GPU, help="accelerator")
    p.add_argument("--dtype", choices=DTYPES, default="bf16", help="weight format (default bf16)")
    p.add_argument("--kv-dtype", choices=("fp32", "bf16", "fp16", "fp8", "int8"), default="bf16", help="KV cache")
    p.add_argument("--batch", type=_count, default=1, metavar="B", help="sequences decoded together (default 1)")
    p.add_argument("--prompt", type=_count, default=1024, metavar="P", help="prompt tokens per sequence")
    p.add_argument("--new", type=_count, default=256, metavar="T", help="new tokens per sequence")
    p.add_argument(
        "--efficiency",
        type=_number,
        default=1.0,
        help="fraction of peak FLOP/s and bandwidth reached (default 1: the roofline bound; measured decode: 0.73 "
        "with vLLM on an A100, 0.59-0.63 with PyTorch's kernels and CUDA graphs on an H200, 0.16-0.49 for a "
        "mixture of experts)",
    )


def run_speed(spec: Spec, label: str, ignored: tuple[str, ...], args: argparse.Namespace) -> int:
    from paramscope.engine.speed import speed

    gpu = hardware.get(args.gpu)
    sp = speed(
        spec,
        gpu,
        dtype=args.dtype,
        kv_dtype=args.kv_dtype,
        batch=args.batch,
        prompt=args.prompt,
        new=args.new,
        efficiency=args.efficiency,
    )
    phases = {"prefill": sp.prefill, "decode_step": sp.decode_step}
    if args.json:
        doc = {
            "model": label,
            "model_type": spec.model_type,
            "gpu": gpu.key,
            "peak_flops": gpu.bf16_flops,
            "bandwidth_bytes_per_s": gpu.bandwidth,
            "efficiency": args.efficiency,
            "batch": sp.batch,
            "prompt": sp.prompt,
            "new": sp.new,
            "prefill_tokens_per_s": sp.prefill_tokens_per_s,
            "decode_tokens_per_s": sp.decode_tokens_per_s,
            "time_to_first_token_s": sp.time_to_first_token_s,
            "total_s": sp.total_s,
            "decode_context": sp.context,
            "experts_read_per_layer": sp.experts_read if spec.is_moe else None,
            **{
                name: {
                    "flops": ph.flops,
                    "bytes": ph.bytes,
                    "compute_s": ph.compute_s,
                    "memory_s": ph.memory_s,
                    "bound": ph.bound,
                }
                for name, ph in phases.items()
            },
        }
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{label} on {gpu.name}: {args.dtype} weights, batch {sp.batch}, prompt {sp.prompt:,}, {sp.new:,} new tokens")
    print(f"  peak {gpu.tflops:,.1f} TFLOP/s ({gpu.source})")
    print(f"  bandwidth {gpu.bandwidth / 1e9:,.0f} GB/s ({gpu.bandwidth_source}); efficiency {args.efficiency:g}")
    for name, ph in phases.items():
        print(
            f"  {name:<12} {ph.flops:>22,} FLOP  {ph.bytes:>18,} B  compute {ph.compute_s * 1e3:9.3f} ms  "
            f"memory {ph.memory_s * 1e3:9.3f} ms  -> {ph.bound}-bound"
        )
    print(f"time to first token   {sp.time_to_first_token_s * 1e3:,.1f} ms")
    print(f"prefill               {sp.prefill_tokens_per_s:,.0f} tokens/s")
    where = f"all {sp.batch} sequences, context {sp.context:,}"
    print(f"decode                {sp.decode_tokens_per_s:,.1f} tokens/s ({where})")
    return 0


def run_fit(spec: Spec, label: str, ignored: tuple[str, ...], args: argparse.Namespace) -> int:
    s = _memory_settings(args)
    gpu = hardware.get(s.gpu)
    one = needed_bytes(spec, dataclasses.replace(s, gpus=1))
    spread = (
        GpusNeeded(gpus=1, how="one GPU holds it all", per_gpu=one)
        if one <= gpu.capacity
        else gpus_needed(spec, s, gpu.capacity)
    )
    gpus, how, per_gpu = (spread.gpus, spread.how, spread.per_gpu) if spread else (0, "", 0)
    if args.json:
        doc = {
            "model": label,
            "gpu": gpu.key,
            "mode": s.mode,
            "gpus": gpus or None,
            "layout": how or None,
            **{k: getattr(spread, k) if spread else None for k in ("tp", "pp", "ep", "dp")},
            "per_gpu_bytes": per_gpu or None,
            "headroom_bytes": gpu.capacity - per_gpu if gpus else None,
        }
        print(json.dumps(doc, indent=1))
        return 0
    if not gpus:
        print(f"{label}: does not fit on up to 4,096 × {gpu.name}; lower the batch or the context")
        return 0
    print(
        f"{label}: {gpus:,} × {gpu.name} ({how}): {per_gpu / GB:,.2f} GB per GPU, "
        f"{(gpu.capacity - per_gpu) / GB:,.2f} GB left of {gpu.capacity / GB:,.2f} GB usable ({gpu.memory_label})"
    )
    return 0
