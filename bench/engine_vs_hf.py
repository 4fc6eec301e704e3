"""Engine vs the real model: time to count the largest presets, measured side by side in one run.

For each model: the engine's time (uncached, in-process) and the time transformers takes to build the model on
the meta device and sum numel(), with both totals (they must be equal). Then the engine's time from 1 to 10,000
layers, to show it is flat in depth. Run: python bench/engine_vs_hf.py
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hf_oracle import hf_count  # noqa: E402

from paramscope import Spec  # noqa: E402
from paramscope.engine.params import _count  # noqa: E402  (uncached, to time the real work)
from paramscope.families import read  # noqa: E402
from paramscope.io import presets


def buildable() -> list[str]:
    """The presets of one family row that transformers can build (PaLM and the teaching models have no HF class;
    a whole model is its towers' rows)."""
    return [p for p in presets.row_names() if presets.get(p).config.get("model_type") != "paramscope"]


def largest(n: int = 7) -> list[str]:
    """The n largest presets that transformers can build."""
    return sorted(buildable(), key=lambda p: -presets.get(p).expected_total)[:n]


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def engine_time(spec: Spec, repeat: int = 200) -> float:
    return best_of(lambda: _count(spec), repeat)


def main() -> None:
    warnings.simplefilter("ignore")
    print(
        f"{'model':<18} {'engine total':>18} {'transformers total':>20} {'engine':>10} {'meta build':>11} {'ratio':>9}"
    )
    ratios = []
    for name in largest():
        config = presets.get(name).config
        spec = read(config).spec
        ours = _count(spec).count
        ref = hf_count(config)
        t_engine = engine_time(spec)
        t_hf = best_of(lambda config=config: hf_count(config), 3)
        ratios.append(t_hf / t_engine)
        same = "" if ours == ref else "  MISMATCH"
        print(
            f"{name:<18} {ours:>18,} {ref:>20,} {t_engine * 1e6:>8.1f}µs {t_hf * 1e3:>9.1f}ms "
            f"{t_hf / t_engine:>8.0f}x{same}"
        )
    if ratios:
        print(f"median speed-up: {statistics.median(ratios):,.0f}x (goal: at least 1,000x)")
    print()
    dense = [p for p in buildable() if not read(presets.get(p).config).spec.num_experts]
    bands: dict[str, list[float]] = {"under 24 layers": [], "24 to 39 layers": [], "40 layers or more": []}
    for name in dense:
        config = presets.get(name).config
        spec = read(config).spec
        ratio = best_of(lambda config=config: hf_count(config), 3) / engine_time(spec)
        layers = spec.num_hidden_layers + spec.num_decoder_layers  # an encoder-decoder's two stacks
        bands[list(bands)[(layers >= 24) + (layers >= 40)]].append(ratio)
    ratios = sorted(r for band in bands.values() for r in band)
    met = sum(r >= 1_000 for r in ratios)
    print(f"every dense preset ({len(dense)}): median {statistics.median(ratios):,.0f}x, from {ratios[0]:,.0f}x to")
    print(f"  {ratios[-1]:,.0f}x; {met} of {len(dense)} at least 1,000x. By depth (transformers' build grows with each")
    print("  layer's modules, the engine's count does not):")
    for band, values in ((band, values) for band, values in bands.items() if values):
        above = sum(r >= 1_000 for r in values)
        print(f"  {band:<18} median {statistics.median(values):>6,.0f}x, {above} of {len(values)} at least 1,000x")
    print()
    print("engine time against depth (llama-3-8b shape):")
    base = presets.load("llama-3-8b") if "llama-3-8b" in presets.names() else Spec(model_type="llama")
    times = {}
    for layers in (1, 10, 100, 1_000, 10_000):
        spec = base.replace(num_hidden_layers=layers)
        times[layers] = engine_time(spec)
        print(f"  {layers:>6,} layers  {times[layers] * 1e6:8.1f} µs  total {_count(spec).count:,}")
    print(f"  10,000 / 1 layer time ratio: {times[10_000] / times[1]:.2f} (flat means ~1)")


if __name__ == "__main__":
    main()
