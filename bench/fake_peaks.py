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
"""

from __future__ import annotations

import argparse
import glob
import json
import signal
import sys
import warnings
import weakref
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
    cfg = dict(cfg)
    cfg.pop("quantization_config", None)
    for sub in [cfg] + [v for k, v in cfg.items() if k.endswith("_config") and isinstance(v, dict)]:
        for key in ("torch_dtype", "dtype"):
            sub.pop(key, None)
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
    args = parser.parse_args()
    if args.runs:
        it = iter(args.runs)
        cases = [{"model": n, "batch": int(b), "seq": int(s)} for n, b, s in zip(it, it, it, strict=True)]
    else:
        cases = measured_runs()
    rows = []
    head = ("GPU GiB", "replay", "estimate", "replay/GPU", "est/replay")
    print(f"{'run':36s} {'attn':6s} " + " ".join(f"{h:>9s}" for h in head))
    signal.signal(signal.SIGALRM, _too_long)
    for case in cases:
        name, b, s = case["model"], case["batch"], case["seq"]
        row = {"model": name, "batch": b, "seq": s}
        signal.alarm(args.seconds)
        try:
            row["replay"], row["attn"], at_peak = replay(name, b, s, case.get("attn"))
            if args.anatomy:
                for what, size in sorted(at_peak, key=lambda x: -x[1])[:12]:
                    print(f"    {size / 2**20:10.1f} MiB  {what}")
            row["estimate"] = estimate(name, b, s)
        except Exception as exc:  # a class the fake mode cannot run (data-dependent shapes, hooks)
            row["error"] = f"{type(exc).__name__}: {str(exc)[:120]}"
            print(f"{name + f' {b}x{s}':36s} {row['error']}", flush=True)
            rows.append(row)
            continue
        finally:
            signal.alarm(0)
        if "peak_prefill" in case:
            row["gpu"] = case["peak_prefill"] - case["weights"] - case.get("ids_bytes", 0)
            row["gpu_attn"], row["file"] = case.get("attn"), case["file"]
        gib = 2**30
        gpu = f"{row['gpu'] / gib:9.3f}" if "gpu" in row else f"{'':9s}"
        ratio = f"{row['replay'] / row['gpu']:10.3f}" if row.get("gpu") else f"{'':10s}"
        print(
            f"{name + f' {b}x{s}':36s} {row['attn']:6s} {gpu} {row['replay'] / gib:9.3f} {row['estimate'] / gib:9.3f} "
            f"{ratio} {row['estimate'] / row['replay']:10.3f}",
            flush=True,
        )
        rows.append(row)
    if args.json:
        meta = {"torch": torch.__version__, "transformers": __import__("transformers").__version__}
        Path(args.json).write_text(json.dumps(meta | {"runs": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
