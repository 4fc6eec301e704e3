"""The command line against transformers, as whole processes, and in-process counting against the meta build.

Measured side by side in one run, for a few presets (each written to a config.json file first):

* ``python -m paramscope count --hf-config FILE --json``, a whole process, against a ``python -c`` that imports
  transformers and builds the same class on the meta device and sums ``numel()`` (goal: at least 50x);
* in one process, the engine's count (uncached) against the meta build (goal: at least 1,000x on dense models).

Both processes run with bytecode caching on (as an installed package runs), after one warm-up run each.
Run: python bench/cli_speed.py [repeats]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hf_oracle import hf_count  # noqa: E402

from paramscope.engine.params import _count  # noqa: E402  (uncached, to time the real work)
from paramscope.families import architecture_class, read  # noqa: E402
from paramscope.io import presets  # noqa: E402

MODELS = ("llama-3-8b", "qwen3-8b", "gpt2", "mixtral-8x7b")
HF_BUILD = """
import json, sys, torch, transformers
config = json.load(open(sys.argv[1]))
model_type, cls = config.pop("model_type"), sys.argv[2]
cfg = transformers.AutoConfig.for_model(model_type, **config)
with torch.device("meta"):
    model = getattr(transformers, cls)(cfg)
print(sum(p.numel() for p in model.parameters()))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package runs from cached bytecode
    return env


def _process(args: list[str], repeats: int) -> tuple[float, str]:
    """Median wall time of a whole process over ``repeats`` runs (after one warm-up) and its output."""
    out = subprocess.run(args, capture_output=True, text=True, env=_env(), check=True).stdout
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(args, capture_output=True, env=_env(), check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def _in_process(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(repeats: int = 5) -> None:
    print(f"{'model':<16} {'CLI s':>7} {'HF s':>7} {'CLI x':>7}   {'engine us':>10} {'meta ms':>8} {'in-proc x':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for name in MODELS:
            config = presets.get(name).config
            path = Path(folder) / f"{name}.json"
            path.write_text(json.dumps(config))
            spec = read(config).spec
            cls = config.get("architectures", [architecture_class(spec.model_type, spec.architecture)])[0]
            cli, out = _process(
                [sys.executable, "-m", "paramscope", "count", "--hf-config", str(path), "--json"], repeats
            )
            hf, hf_out = _process([sys.executable, "-c", HF_BUILD, str(path), cls], repeats)
            total = json.loads(out)["total"]
            assert total == int(hf_out), (name, total, hf_out)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                engine = _in_process(lambda spec=spec: _count(spec), repeats * 20)
                meta = _in_process(lambda config=config: hf_count(config), repeats)
            print(
                f"{name:<16} {cli:>7.3f} {hf:>7.2f} {hf / cli:>6.0f}x   {engine * 1e6:>10.1f} {meta * 1e3:>8.1f} "
                f"{meta / engine:>9.0f}x"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
