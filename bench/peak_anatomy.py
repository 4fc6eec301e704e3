"""Which tensors are alive at a training step's peak, and at the end of its forward pass, by the line of Python that
allocated them: torch's CUDA allocator records every allocation and free of the step (with its Python stack), and the
record is replayed to find the moment of the peak. Used where the measured peak and the estimate part: what the
saved-tensor hooks of bench/saved_tensors.py do not see (the caches, a kernel's working buffers, the loss's transients)
has a line here. The runs are built as bench/measure_peaks.py builds them, without an optimizer (its states do not
move); an inference case records the prefill.

Run on a CUDA machine from the project's root:
  python3 bench/peak_anatomy.py RECIPE:NAME:BATCH:SEQ[:LAYERS][:ckpt] ...   (recipes as measure_peaks.py's --case)
Writes $OUT/peak_anatomy.json.
"""

import json
import os
import sys
from collections import defaultdict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_peaks as mp  # noqa: E402

TOP = 30  # sites listed per moment


def site(frames):
    """The innermost Python frame outside torch itself (the model's, PEFT's or Liger's line), else the innermost."""
    for f in frames:
        name = f.get("filename", "")
        if name and "/torch/" not in name and not name.startswith("<"):
            return f"{'/'.join(name.split('/')[-2:])}:{f.get('line')} {f.get('name')}"
    return f"{frames[0].get('filename', '?').split('/')[-1]}:{frames[0].get('name')}" if frames else "?"


def replay(events, marks):
    """Replay the allocator's events: the running total over the start, its peak, and the live allocations (by site)
    at the peak and at each mark (an index into the events)."""
    live, total, peak, at_peak = {}, 0, 0, {}
    moments = {}
    for i, ev in enumerate(events):
        for name, index in marks.items():
            if i == index:
                moments[name] = (total, dict(live))
        action = ev["action"]
        if action == "alloc":
            live[ev["addr"]] = (ev["size"], site(ev.get("frames", [])))
            total += ev["size"]
            if total > peak:
                peak, at_peak = total, dict(live)
        elif action in ("free_requested", "free_completed") and ev["addr"] in live:
            total -= live.pop(ev["addr"])[0]
    for name in marks:
        moments.setdefault(name, (total, dict(live)))
    moments["peak"] = (peak, at_peak)
    return {name: {"bytes": t, "sites": grouped(held)} for name, (t, held) in moments.items()}


def grouped(live):
    sites = defaultdict(lambda: [0, 0])
    for size, where in live.values():
        sites[where][0] += 1
        sites[where][1] += size
    return sorted(([k, *v] for k, v in sites.items()), key=lambda s: -s[2])[:TOP]


def anatomy(recipe, name, batch, seq, layers=None, checkpointing=False):
    cfg = mp.load(name)
    if layers:
        mp.cut_layers(cfg, layers)
    inference = recipe == "inference"
    model, hf = mp.build(cfg, torch.bfloat16 if inference or recipe in mp.RECIPES_LORA else torch.float32)
    if inference:  # the prefill as bench/measure_peaks.py runs it
        model.eval()

        def step():
            with torch.no_grad():
                return model(input_ids=mp.token_ids(hf, batch, seq), use_cache=True, logits_to_keep=1)

    else:
        model = mp.adapted(model, recipe, checkpointing)

        def step():
            return mp.forward_loss(model, mp.token_ids(hf, batch, seq))

    out = step()  # lazy allocations (the kernels' workspaces) before the record
    if not inference:
        out.backward()
        model.zero_grad(set_to_none=True)
    del out
    start = mp.alloc()
    if not mp.CUDA:
        return {"case": [recipe, name, batch, seq, layers, checkpointing], "dry_run": True}
    torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python", max_entries=2_000_000)
    out = step()
    forward_end = len(torch.cuda.memory._snapshot()["device_traces"][0])
    held_forward = mp.alloc() - start
    if not inference:
        out.backward()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    events = snap["device_traces"][0]
    moments = replay(events, {"end_of_forward": forward_end})
    model.zero_grad(set_to_none=True)
    return {
        "case": [recipe, name, batch, seq, layers, checkpointing],
        "events": len(events),
        "held_after_forward": held_forward,
        **moments,
    }


def main():
    out = os.environ.get("OUT", ".")
    rows = []
    for case in sys.argv[1:]:
        recipe, name, batch, seq, *rest = case.split(":")
        layers = next((int(r) for r in rest if r.isdigit()), None)
        try:
            row = anatomy(recipe, name, int(batch), int(seq), layers, "ckpt" in rest)
        except Exception as e:
            row = {"case": case, "error": f"{type(e).__name__}: {str(e)[:300]}"}
        rows.append(row)
        print(case, json.dumps({k: v for k, v in row.items() if not isinstance(v, dict)}), flush=True)
        for moment in ("end_of_forward", "peak"):
            if moment in row:
                print(f"  {moment}: {row[moment]['bytes'] / 2**30:.3f} GiB", flush=True)
                for s in row[moment]["sites"][:12]:
                    print(f"    {s[2] / 2**30:8.3f} GiB {s[1]:5d}x {s[0]}", flush=True)
        if mp.CUDA:
            torch.cuda.empty_cache()
        with open(os.path.join(out, "peak_anatomy.json"), "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    main()
