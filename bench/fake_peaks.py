"""A prefill's peak replayed on the CPU without memory: transformers' own code, every tensor fake.

    python bench/fake_peaks.py                  # every inference run of docs/measurements/h*-peaks-*.json, replayed
    python bench/fake_peaks.py NAME B S [...]   # runs bench/measure_peaks.py names (a preset or a cut of one) at B x S

Builds the run's model as ``bench/measure_peaks.py`` does (its ``preset_config`` and ``build``: bf16 weights, the
attention implementation the measured run used) under torch's ``FakeTensorMode``, which gives every tensor its shape,
dtype and storage but no memory, and runs the prefill (``use_cache=True, logits_to_keep=1``). A dispatch mode counts
the bytes of every storage an operation creates, rounded up to 512 as CUDA's caching allocator rounds them, until the
storage is freed, and keeps the largest sum: the prefill's peak above the weights, in the same terms as
``torch.cuda.max_memory_allocated`` less the weights in the GPU runs. What it cannot see: CUDA kernels' own workspaces
and which attention kernel CUDA picks. ``scaled_dot_product_attention`` runs as it runs on the CPU (its flash kernel,
which like CUDA's keeps no scores), except where queries and values differ in width (multi-head latent attention):
the CPU falls back to the math kernel there, CUDA to its memory-efficient one, whose output the replay allocates.

Prints, for each run, the GPU's figure where one was measured, the replay's and ParamScope's estimate of the prefill
peak (``phases``: its prefill phase less the weights), with the ratios; ``--json FILE`` writes them.

    python bench/fake_peaks.py --step                     # every AMP training and LoRA run measured, replayed
    python bench/fake_peaks.py --step RECIPE:NAME:B:S:CKPT  # runs as bench/measure_peaks.py's --case names them

``--step`` replays two training iterations (forward with the loss, backward, AdamW's step, ``zero_grad``) of AMP
training or PEFT's LoRA as ``bench/measure_peaks.py`` runs them, and counts the second one's peak above what it
starts with (the optimizer's states), against the GPU's ``peak`` less ``held_before_step``. Where the CPU and CUDA
part, the replay takes CUDA's side: SDPA runs as CUDA's flash kernel does under autocast (q, k and v cast to 16 bit,
the output and an fp32 log-sum-exp kept, GQA without copies), the causal mask is skipped as on the GPU (transformers
reads fake tensors as a trace and would build it), AdamW runs per tensor (as the fused kernel, without foreach's
temporaries), and PEFT's adapters stay where they are made. Liger-Kernel and bitsandbytes need CUDA: not replayed.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import signal
import sys
import warnings
import weakref
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))
import measure_peaks  # noqa: E402

BLOCK = 512  # CUDA's caching allocator rounds every allocation up to a multiple of 512 bytes


class LiveBytes(TorchDispatchMode):
    """The bytes of the storages operations create, while they live, and the most at once."""

    def __init__(self) -> None:
        super().__init__()
        self.now = self.peak = 0
        self.seen: weakref.WeakSet = weakref.WeakSet()
        self.made: dict[int, tuple[str, int]] = {}  # live storages: what made each (operation and shape), its bytes
        self.at_peak: list[tuple[str, int]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self._count(t.untyped_storage(), f"{func.__name__} {tuple(t.shape)} {t.dtype}".replace("torch.", ""))
        return out

    def hold(self, tensors: object) -> None:
        """Storages that exist before the replay (the weights, the input ids): their views are not new memory."""
        for t in tensors:
            self.seen.add(t.untyped_storage())

    def _count(self, storage: torch.UntypedStorage, what: str = "") -> None:
        if storage in self.seen:
            return
        size = -(-storage.nbytes() // BLOCK) * BLOCK
        self.seen.add(storage)
        self.now += size
        key = id(storage)
        self.made[key] = (what, size)
        if self.now > self.peak:
            self.peak = self.now
            self.at_peak = list(self.made.values())
        weakref.finalize(storage, self._free, key, size)

    def _free(self, key: int, size: int) -> None:
        self.now -= size
        self.made.pop(key, None)


_SDPA = F.scaled_dot_product_attention


def _sdpa_as_cuda(query, key, value, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
    """CUDA's memory-efficient kernel where the CPU would fall back to the math kernel (values narrower than the
    queries): its output alone. Elsewhere the CPU's own kernel."""
    if query.shape[-1] == value.shape[-1]:
        return _SDPA(query, key, value, *args, **kwargs)
    return query.new_empty((*query.shape[:-1], value.shape[-1]))


def replay(name: str, batch: int, seq: int, attn: str | None = None) -> tuple[int, str, list[tuple[str, int]]]:
    """The prefill's peak above the weights, the attention implementation it ran and the storages live at the peak
    (what made each, its bytes)."""
    return replay_config(measure_peaks.preset_config(name), batch, seq, attn)


def replay_config(cfg: dict, batch: int, seq: int, attn: str | None = None) -> tuple[int, str, list[tuple[str, int]]]:
    """``replay`` of a config.json's dict."""
    cfg = measure_peaks.as_run(cfg)
    attns = measure_peaks.ATTN
    if attn:  # the implementation the measured run used, first
        measure_peaks.ATTN = (attn, *[a for a in attns if a != attn])
    F.scaled_dot_product_attention = _sdpa_as_cuda
    try:
        with FakeTensorMode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, hf = measure_peaks.build(cfg, torch.bfloat16)
            model.eval()
            ids = torch.zeros(batch, seq, dtype=torch.long)
            live = LiveBytes()
            live.hold([*model.parameters(), *model.buffers(), ids])
            with live, torch.no_grad():
                out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
            del out
            return live.peak, getattr(model.config, "_attn_implementation", ""), live.at_peak
    finally:
        measure_peaks.ATTN = attns
        F.scaled_dot_product_attention = _SDPA


class _Flash(torch.autograd.Function):
    """CUDA's flash attention as autograd sees it: the output, laid out token-major (batch, seq, heads, dim) so that
    transformers' transpose back is no copy, and the fp32 log-sum-exp of each query's scores, saved beside q, k and v;
    the backward pass makes their three gradients (measured on an H200, bench/peak_anatomy.py: SmolLM2-360M)."""

    @staticmethod
    def forward(ctx, q, k, v):  # noqa: ANN001, ANN205
        b, h, s, _ = q.shape
        out = q.new_empty((b, s, h, v.shape[-1])).transpose(1, 2)
        ctx.save_for_backward(q, k, v, out, q.new_empty(q.shape[:-1], dtype=torch.float32))
        return out

    @staticmethod
    def backward(ctx, grad):  # noqa: ANN001, ANN205
        q, k, v, _, _ = ctx.saved_tensors
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _sdpa_flash(query, key, value, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
    """SDPA as CUDA runs it in training: under autocast in its 16-bit dtype (its own casts of q, k and v kept), GQA
    read in place."""
    if torch.is_autocast_enabled("cpu"):
        dtype = torch.get_autocast_dtype("cpu")
        query, key, value = query.to(dtype), key.to(dtype), value.to(dtype)
    return _Flash.apply(query, key, value)


_POW = ((torch, "pow"), (torch.Tensor, "pow"), (torch.Tensor, "__pow__"))


def _pow_in_fp32(pow):  # noqa: ANN001, ANN202
    """``pow`` as CUDA's autocast runs it: in fp32 (its input cast up, and that copy kept for the backward pass), where
    the CPU's runs it in the input's 16-bit dtype: the written-out tanh-GeLU (GPT-2, GPT-Neo, Phi-2) as on the GPU.
    A patched function rather than a mode, so that a checkpointed layer's recomputation runs it alike."""

    def fp32(x, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if (
            isinstance(x, torch.Tensor)
            and x.dtype in (torch.bfloat16, torch.float16)
            and torch.is_autocast_enabled("cpu")
        ):
            with torch.autocast("cpu", enabled=False):
                return pow(x.float(), *args, **kwargs)
        return pow(x, *args, **kwargs)

    return fp32


@contextlib.contextmanager
def _as_on_the_gpu():  # noqa: ANN202
    """transformers, PEFT and torch as they run on the GPU, for a training step on fake tensors (see the module's
    docstring)."""
    import peft.tuners.tuners_utils as tuners
    import transformers.masking_utils as masks

    # the replay's ids are unpadded: a mask made of ones is skipped on the GPU, where transformers can read it
    def ignore(padding_mask, q_length, kv_length, q_offset, kv_offset, local_attention_size=None):  # noqa: ANN001, ANN202
        windowed = local_attention_size is not None and kv_length >= local_attention_size
        return (q_length == 1 or q_length == kv_length) and not windowed

    def ignore_bidirectional(padding_mask, kv_length, local_attention_size=None):  # noqa: ANN001, ANN202
        return local_attention_size is None or kv_length < local_attention_size

    to = torch.nn.Module.to

    def stay(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        try:
            return to(self, *args, **kwargs)
        except RuntimeError:  # fake parameters cannot be swapped in place; all of them are on the one device
            return self

    saved = (masks._ignore_causal_mask_sdpa, masks.find_packed_sequence_indices, masks._ignore_bidirectional_mask_sdpa)
    move = tuners.BaseTunerLayer._move_adapter_to_device_of_base_layer
    F.scaled_dot_product_attention = _sdpa_flash
    masks._ignore_causal_mask_sdpa = ignore
    masks._ignore_bidirectional_mask_sdpa = ignore_bidirectional
    masks.find_packed_sequence_indices = lambda position_ids: None  # one sequence a row
    tuners.BaseTunerLayer._move_adapter_to_device_of_base_layer = lambda self, *args, **kwargs: None
    torch.nn.Module.to = stay
    pows = [getattr(owner, name) for owner, name in _POW]
    for (owner, name), pow in zip(_POW, pows, strict=True):
        setattr(owner, name, _pow_in_fp32(pow))
    try:
        yield
    finally:
        F.scaled_dot_product_attention = _SDPA
        masks._ignore_causal_mask_sdpa, masks.find_packed_sequence_indices, masks._ignore_bidirectional_mask_sdpa = (
            saved
        )
        tuners.BaseTunerLayer._move_adapter_to_device_of_base_layer = move
        torch.nn.Module.to = to
        for (owner, name), pow in zip(_POW, pows, strict=True):
            setattr(owner, name, pow)


def replay_step(recipe: str, name: str, batch: int, seq: int, checkpointing: bool) -> dict[str, int]:
    """The second of two training iterations, replayed: each phase's peak (``forward``, ``backward``, ``step``) and
    what the forward pass leaves (``after_forward``), above what the iteration starts with."""
    cfg = measure_peaks.as_run(measure_peaks.preset_config(name))
    lora = recipe in measure_peaks.RECIPES_LORA
    with FakeTensorMode(), warnings.catch_warnings(), _as_on_the_gpu():
        warnings.simplefilter("ignore")
        model, _ = measure_peaks.build(cfg, torch.bfloat16 if lora else torch.float32)
        model = measure_peaks.adapted(model, recipe, checkpointing)
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5, foreach=False)
        ids = torch.zeros(batch, seq, dtype=torch.long)
        live = LiveBytes()
        live.hold([*model.parameters(), *model.buffers(), ids])
        phase: dict[str, int] = {}
        with live:
            for _ in range(2):  # the second iteration's figures stand: the optimizer's states exist by then
                base = live.now
                live.peak = live.now
                loss = measure_peaks.forward_loss(model, ids)
                phase |= {"forward": live.peak - base, "after_forward": live.now - base}
                live.peak = live.now
                loss.backward()
                phase["backward"] = live.peak - base
                live.peak = live.now
                opt.step()
                phase["step"] = live.peak - base
                opt.zero_grad(set_to_none=True)
                del loss
    return phase | {"peak": max(phase["forward"], phase["backward"], phase["step"])}


def estimate_step(case: dict) -> int:
    """ParamScope's peak of a training or LoRA step above the weights and the optimizer's states (its largest phase,
    less those two parts)."""
    from paramscope.engine.memory import phases
    from paramscope.model import Model

    spec = Model.from_config(measure_peaks.preset_config(case["model"])).cost_spec
    peak = max(phases(spec, measure_peaks.recipe_settings(case)), key=lambda p: p.count)
    return sum(part.count for part in peak.children if part.path not in ("weights", "optimizer"))


def measured_steps() -> list[dict]:
    """Every AMP training and LoRA run of docs/measurements/h*-peaks-*.json that completed, each once."""
    runs, seen = [], set()
    for path in sorted(glob.glob(str(ROOT / "docs/measurements/h*-peaks-*.json"))):
        for case in json.loads(Path(path).read_text())["cases"]:
            key = (case.get("recipe"), case.get("model"), case.get("batch"), case.get("seq"), case.get("checkpointing"))
            if case.get("recipe") in ("training-amp", "lora") and "peak" in case and key not in seen:
                seen.add(key)
                runs.append(case | {"file": Path(path).name})
    return runs


def estimate(name: str, batch: int, seq: int) -> int:
    """ParamScope's prefill peak above the weights (its prefill phase, without the allocator's margin)."""
    from paramscope.engine.memory import phases, weight_bytes
    from paramscope.model import Model

    spec = Model.from_config(measure_peaks.preset_config(name)).cost_spec
    settings = measure_peaks.recipe_settings({"recipe": "inference", "batch": batch, "seq": seq})
    prefill = next(p for p in phases(spec, settings) if p.path == "prefill")
    return prefill.count - weight_bytes(spec, "bf16").count


def _too_long(signum: int, frame: object) -> None:
    raise TimeoutError("the replay ran past --seconds")


def measured_runs() -> list[dict]:
    runs, seen = [], set()
    for path in sorted(glob.glob(str(ROOT / "docs/measurements/h*-peaks-*.json"))):
        for case in json.loads(Path(path).read_text())["cases"]:
            key = (case.get("model"), case.get("batch"), case.get("seq"))
            if case.get("recipe") == "inference" and "peak_prefill" in case and key not in seen:
                seen.add(key)
                runs.append(case | {"file": Path(path).name})
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="NAME BATCH SEQ, repeated")
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--anatomy", action="store_true", help="list the largest storages live at each peak")
    parser.add_argument("--seconds", type=int, default=120, help="give up a run after this long (a slow fake path)")
    parser.add_argument("--step", action="store_true", help="replay training and LoRA steps (RECIPE:NAME:B:S:CKPT)")
    args = parser.parse_args()
    if args.step:
        steps(args)
        return
    if args.runs:
        it = iter(args.runs)
        cases = [{"model": n, "batch": int(b), "seq": int(s)} for n, b, s in zip(it, it, it, strict=True)]
    else:
        cases = measured_runs()
    rows = []
    _header(f"{'run':36s} {'attn':6s}")
    for case in cases:
        name, b, s = case["model"], case["batch"], case["seq"]
        row = {"model": name, "batch": b, "seq": s}
        rows.append(row)
        if not _attempt(args.seconds, row, f"{name + f' {b}x{s}':36s}", _prefill, case, args.anatomy):
            continue
        if "peak_prefill" in case:
            row["gpu"] = case["peak_prefill"] - case["weights"] - case.get("ids_bytes", 0)
            row["gpu_attn"], row["file"] = case.get("attn"), case["file"]
        print(
            f"{name + f' {b}x{s}':36s} {row['attn']:6s} {_figures(row.get('gpu'), row['replay'], row['estimate'])}",
            flush=True,
        )
    _write(args.json, "runs", rows)


def _header(columns: str) -> None:
    """The table's head: the run's own columns, then the figures' (:func:`_figures`)."""
    head = ("GPU GiB", "replay", "estimate", "replay/GPU", "est/replay")
    print(f"{columns} " + " ".join(f"{h:>9s}" for h in head))
    signal.signal(signal.SIGALRM, _too_long)


def _prefill(case: dict, anatomy: bool) -> dict:
    """A prefill's replay, its attention implementation and the estimate (``--anatomy``: what is alive at its peak)."""
    name, b, s = case["model"], case["batch"], case["seq"]
    replayed, attn, at_peak = replay(name, b, s, case.get("attn"))
    if anatomy:
        for what, size in sorted(at_peak, key=lambda x: -x[1])[:12]:
            print(f"    {size / 2**20:10.1f} MiB  {what}")
    return {"replay": replayed, "attn": attn, "estimate": estimate(name, b, s)}


def _step(case: dict) -> dict:
    """A training or LoRA step's replay and the estimate."""
    replayed = replay_step(case["recipe"], case["model"], case["batch"], case["seq"], case["checkpointing"])
    return {"replay": replayed, "estimate": estimate_step(case)}


def _attempt(seconds: int, row: dict, label: str, work: Callable[..., dict], *args: object) -> bool:
    """``row`` updated with what ``work(*args)`` returns, within ``seconds``; a class the fake mode cannot run
    (data-dependent shapes, hooks, a slow path) leaves its error in ``row`` instead, printed after ``label``."""
    signal.alarm(seconds)
    try:
        row.update(work(*args))
    except Exception as exc:
        row["error"] = f"{type(exc).__name__}: {str(exc)[:120]}"
        print(f"{label} {row['error']}", flush=True)
        return False
    finally:
        signal.alarm(0)
    return True


def _figures(gpu: int | None, replayed: int, estimate: int) -> str:
    """A row's GPU figure (where one was measured), replay and estimate in GiB, and their ratios."""
    gib = 2**30
    measured = f"{gpu / gib:9.3f}" if gpu is not None else f"{'':9s}"
    ratio = f"{replayed / gpu:10.3f}" if gpu else f"{'':10s}"
    return f"{measured} {replayed / gib:9.3f} {estimate / gib:9.3f} {ratio} {estimate / replayed:10.3f}"


def _write(path: str | None, key: str, rows: list[dict]) -> None:
    if path:
        meta = {"torch": torch.__version__, "transformers": __import__("transformers").__version__}
        Path(path).write_text(json.dumps(meta | {key: rows}, indent=1) + "\n")


def steps(args: argparse.Namespace) -> None:
    """``--step``: training and LoRA steps replayed, beside the GPU's figure and ParamScope's estimate."""
    cases = []
    for run in args.runs:
        recipe, name, b, s, *ckpt = run.split(":")
        recipe = "training-amp" if recipe == "training" else recipe
        cases.append({"recipe": recipe, "model": name, "batch": int(b), "seq": int(s), "checkpointing": ckpt != ["0"]})
    measured = {
        (c["recipe"], c["model"], c["batch"], c["seq"], c.get("checkpointing", True)): c for c in measured_steps()
    }
    cases = [measured.get(tuple(c.values()), c) for c in cases] or list(measured.values())
    rows = []
    _header(f"{'run':48s}")
    for case in cases:
        ckpt = case.get("checkpointing", True)  # the first set's LoRA runs checkpointed without saying so
        label = f"{case['recipe']} {case['model']} {case['batch']}x{case['seq']}{' ckpt' if ckpt else ''}"
        row = {k: case[k] for k in ("recipe", "model", "batch", "seq")} | {"checkpointing": ckpt}
        rows.append(row)
        if not _attempt(args.seconds, row, f"{label:48s}", _step, case | {"checkpointing": ckpt}):
            continue
        if "peak" in case:
            row["gpu"] = case["peak"] - case["held_before_step"]
            row["file"] = case["file"]
        print(f"{label:48s} {_figures(row.get('gpu'), row['replay']['peak'], row['estimate'])}", flush=True)
    _write(args.json, "steps", rows)


if __name__ == "__main__":
    main()
