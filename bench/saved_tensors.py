"""What a training step's forward pass keeps for the backward pass, tensor by tensor, on the GPU: torch's saved-tensor
hooks record every saved storage once (shape, dtype, bytes; the parameters themselves left out), grouped by shape and
dtype, with the allocator's own count of what the forward pass left allocated beside it. Used to find which tensors a
recipe keeps where the measured peak and the estimate part (bench/measure_peaks.py builds the same runs).

Run on a CUDA machine from the project's root:
  python3 bench/saved_tensors.py RECIPE:NAME:BATCH:SEQ[:LAYERS] ...   (recipes as measure_peaks.py's --case)
Writes $OUT/saved_tensors.json.
"""

import json
import os
import sys
from collections import defaultdict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_peaks as mp  # noqa: E402


def inventory(recipe, name, batch, seq, layers=None):
    cfg = mp.load(name)
    if layers:
        mp.cut_layers(cfg, layers)
    model, hf = mp.build(cfg, torch.bfloat16 if recipe in mp.RECIPES_LORA else torch.float32)
    model = mp.adapted(model, recipe, checkpointing=False)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in params and s.data_ptr() not in kept:
            kept[s.data_ptr()] = (tuple(t.shape), str(t.dtype).replace("torch.", ""), s.nbytes())
        return t

    ids = mp.token_ids(hf, batch, seq)
    before = mp.alloc()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast(mp.DEV, dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
    held = mp.alloc() - before
    groups = defaultdict(lambda: [0, 0])
    for shape, dtype, nbytes in kept.values():
        g = groups[f"{dtype} {list(shape)}"]
        g[0] += 1
        g[1] += nbytes
    del loss
    return {
        "recipe": recipe,
        "model": name,
        "batch": batch,
        "seq": seq,
        "layers": layers,
        "saved_bytes": sum(v[2] for v in kept.values()),
        "held_after_forward": held,
        "groups": sorted(([k, *v] for k, v in groups.items()), key=lambda g: -g[2]),
    }


def main():
    out = os.environ.get("OUT", ".")
    rows = []
    for case in sys.argv[1:]:
        recipe, name, batch, seq, *layers = case.split(":")
        try:
            row = inventory(recipe, name, int(batch), int(seq), int(layers[0]) if layers else None)
        except Exception as e:
            row = {"case": case, "error": f"{type(e).__name__}: {str(e)[:300]}"}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "groups"}), flush=True)
        for g in row.get("groups", [])[:14]:
            print("   ", g, flush=True)
        if mp.CUDA:
            torch.cuda.empty_cache()
        with open(os.path.join(out, "saved_tensors.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
