"""Predicted memory against real CUDA memory: small models built by transformers on one GPU, random weights.

Needs a CUDA GPU with torch and transformers (no weights are downloaded: each model is built from its preset's
config.json). For each preset it measures, with ``torch.cuda.memory_allocated`` (exact bytes of live tensors):

* **weights**: the model in bf16 on the GPU, against ``memory.weight_bytes``;
* **KV cache**: a prefill of ``batch × seq`` tokens with transformers' own cache, then one decode step; the
  bytes of every storage the cache holds after each, against ``memory.kv_cache``; and the prefill's peak against
  weights + KV cache (the transient buffers of the forward pass are not in the inference estimate);
* **training** (bf16 weights and gradients, an fp32 master copy and AdamW's fp32 moments, as Megatron and
  DeepSpeed keep them, 16 bytes per parameter): the states before the step, the bytes the forward pass keeps for
  the backward pass (``memory.activations``, FlashAttention through SDPA, no dropout), the gradients, and the
  peak of forward + backward against the predicted total, without and with full recomputation;
* **LoRA fine-tuning** (PEFT, rank 16, all-linear, adapters in bf16, full recomputation): the trainable count against
  ``lora_params``, and the frozen weights with the adapters, their optimizer states, activations, gradients and peak;
* **runtime**: what the process holds on the GPU with no model or data (the CUDA context, kernel images, cuBLAS's
  workspace), against the ``runtime_mib`` assumption; every other figure leaves it out.

Run on the GPU machine: python bench/gpu_memory.py [--json FILE] [--models NAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import torch
import transformers
from measure_peaks import cache_bytes  # the same storages, counted once
from transformers import AutoConfig

from paramscope import from_config
from paramscope.engine.lora import lora_params
from paramscope.engine.memory import activations, kv_cache, memory, parts, weight_bytes
from paramscope.engine.run import RunSettings

ROOT = Path(__file__).resolve().parents[1]
GIB = 2**30
#: name, preset, edits to its config.json, inference (batch, seq), training (batch, seq) or None (inference only)
CASES = [
    ("gpt2", "gpt2", {}, (8, 1023), (8, 1024)),  # a decode step after 1,023 tokens fills the 1,024 positions
    ("qwen3-0.6b", "qwen3-0.6b", {}, (8, 4096), (4, 2048)),
    ("llama-3.2-1b", "llama-3.2-1b", {}, (8, 4096), (4, 2048)),
    ("gemma-3-1b-pt", "gemma-3-1b-pt", {}, (8, 4096), (4, 2048)),
    # mixture of experts: the whole Qwen3-30B-A3B (61 GB in bf16) for inference, and the same config cut to 4 layers
    # of 32 experts (1.2B) for training and LoRA
    ("qwen3-30b-a3b", "qwen3-30b-a3b", {}, (8, 4096), None),
    ("qwen3-moe-4x32", "qwen3-30b-a3b", {"num_hidden_layers": 4, "num_experts": 32}, (8, 4096), (4, 2048)),
]
NO_DROPOUT = ("resid_pdrop", "embd_pdrop", "attn_pdrop", "attention_dropout", "hidden_dropout", "dropout")


def _config(preset: str, edits: dict) -> dict:
    config = json.loads((ROOT / "presets" / f"{preset}.json").read_text())["config"] | edits
    for key in NO_DROPOUT:  # the estimate's default: modern LLMs train without dropout
        if key in config:
            config[key] = 0.0
    return config


def build(config: dict) -> torch.nn.Module:
    """The config's own class built by transformers on the GPU with random bf16 weights and SDPA attention."""
    cfg = dict(config)
    model_type = cfg.pop("model_type")
    cls = getattr(transformers, cfg["architectures"][0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_cfg = AutoConfig.for_model(model_type, **cfg)
        hf_cfg._attn_implementation = "sdpa"
        torch.set_default_dtype(torch.bfloat16)
        with torch.device("cuda"):
            model = cls(hf_cfg)
        torch.set_default_dtype(torch.float32)
    return model


def _allocated() -> int:
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated()


def _runtime_mib() -> float:
    """GPU memory the process holds with no model or data: the CUDA context and loaded kernels beyond PyTorch's
    allocator, and the workspaces inside it (cuBLAS's), in MiB."""
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    return (total - free - torch.cuda.memory_reserved() + torch.cuda.memory_allocated()) / 2**20


def _inference(name: str, config: dict, batch: int, seq: int) -> dict:
    spec = from_config(config).cost_spec
    settings = RunSettings(batch=batch, seq=seq, runtime_mib=0)
    floor = _allocated()  # what the allocator already holds (cuBLAS's workspace): counted under runtime
    model = build(config).eval()
    weights = _allocated() - floor
    ids = torch.randint(0, spec.vocab_size, (batch, seq), device="cuda")
    torch.cuda.reset_peak_memory_stats()
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
    peak = torch.cuda.max_memory_allocated() - floor
    kv_prefill = cache_bytes(out.past_key_values)
    with torch.no_grad():  # one decode step: transformers' sliding layers keep a view of the whole prompt until then
        nxt = torch.randint(0, spec.vocab_size, (batch, 1), device="cuda")
        out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True, logits_to_keep=1)
    kv = cache_bytes(out.past_key_values)
    predicted = parts(memory(spec, settings))
    row = {
        "model": name,
        "transformers_params": sum(p.numel() for p in model.parameters()),
        "paramscope_params": from_config(config).summary.total,
        "batch": batch,
        "seq": seq,
        "weights": (weight_bytes(spec, "bf16").count, weights),
        "kv_after_prefill": (kv_cache(spec, seq, batch, "bf16").count, kv_prefill),
        "kv_cache": (kv_cache(spec, seq + 1, batch, "bf16").count, kv),
        "peak": (predicted["total"], peak),
    }
    del out, model, ids, nxt
    torch.cuda.empty_cache()
    return row


def _step(
    model: torch.nn.Module, trained: list[torch.Tensor], vocab: int, batch: int, seq: int, floor: int
) -> tuple[int, int, int]:
    """One forward and backward pass over random tokens: the bytes the forward pass keeps for the backward pass, the
    peak of the step (with what was allocated before it, the input ids left out) and the gradients' bytes."""
    before = _allocated() - floor
    ids = torch.randint(0, vocab, (batch, seq), device="cuda")
    base = _allocated() - floor
    torch.cuda.reset_peak_memory_stats()
    loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    kept = _allocated() - floor - base
    loss.backward()
    peak = torch.cuda.max_memory_allocated() - floor - (base - before)
    grads = sum(p.grad.untyped_storage().nbytes() for p in trained if p.grad is not None)
    return kept, peak, grads


def _training(name: str, config: dict, batch: int, seq: int, recompute: str) -> dict:
    spec = from_config(config).cost_spec
    settings = RunSettings(mode="training", batch=batch, seq=seq, recompute=recompute, runtime_mib=0)
    predicted = parts(memory(spec, settings))
    floor = _allocated()
    model = build(config).train()
    if recompute == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    params = [p for p in model.parameters() if p.requires_grad]
    master = [p.detach().float() for p in params]
    optimizer = torch.optim.AdamW(master, lr=1e-6, fused=True)
    for m in master:  # one step with zero gradients creates the moments
        m.grad = torch.zeros_like(m)
    optimizer.step()
    for m in master:
        m.grad = None
    states = _allocated() - floor
    kept, peak, grads = _step(model, params, spec.vocab_size, batch, seq, floor)
    row = {
        "model": name,
        "recompute": recompute,
        "batch": batch,
        "seq": seq,
        "states": (predicted["weights"] + predicted["optimizer"], states),
        "activations": (activations(spec, settings, seq).count, kept),
        "gradients": (predicted["gradients"], grads),
        "peak": (predicted["total"], peak),
    }
    del model, params, master, optimizer
    torch.cuda.empty_cache()
    return row


def _finetune(name: str, config: dict, batch: int, seq: int) -> dict:
    """LoRA (rank 16, all-linear, PEFT) on the frozen bf16 model with full recomputation, as the estimate's finetune
    mode keeps it: adapters and their gradients in bf16, AdamW's two fp32 moments for the adapters only (allocated
    here as the optimizer would hold them)."""
    from peft import LoraConfig, get_peft_model

    spec = from_config(config).cost_spec
    settings = RunSettings(mode="finetune", batch=batch, seq=seq, recompute="full", runtime_mib=0, lora_rank=16)
    predicted = parts(memory(spec, settings))
    floor = _allocated()
    model = build(config)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.enable_input_require_grads()
    model = get_peft_model(model, LoraConfig(r=16, target_modules="all-linear"), autocast_adapter_dtype=False)
    model.train()
    adapters = [p for p in model.parameters() if p.requires_grad]
    weights = _allocated() - floor
    moments = [torch.zeros_like(p, dtype=torch.float32) for p in adapters for _ in range(2)]
    states = _allocated() - floor
    kept, peak, grads = _step(model, adapters, spec.vocab_size, batch, seq, floor)
    row = {
        "model": name,
        "batch": batch,
        "seq": seq,
        "trainable": (lora_params(spec, 16).count, sum(p.numel() for p in adapters)),
        "weights": (predicted["weights"], weights),
        "optimizer": (predicted["optimizer"], states - weights),
        "activations": (activations(spec, settings, seq).count, kept),
        "gradients": (predicted["gradients"], grads),
        "peak": (predicted["total"], peak),
    }
    del model, adapters, moments
    torch.cuda.empty_cache()
    return row


def _line(label: str, pair: tuple[int, int]) -> str:
    predicted, measured = pair
    ratio = measured / predicted
    return f"  {label:<16} predicted {predicted / GIB:9.3f} GiB  measured {measured / GIB:9.3f} GiB  ratio {ratio:6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write every measurement here")
    names = [case[0] for case in CASES]
    parser.add_argument("--models", nargs="+", choices=names, default=names, help="the cases to run (default: all)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    torch.ones(1, device="cuda") @ torch.ones(1, 1, device="cuda")
    report: dict = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "runtime_mib_start": _runtime_mib(),
        "inference": [],
        "training": [],
        "finetune": [],
    }
    print(f"{report['device']}, torch {report['torch']}, transformers {report['transformers']}")
    for name, preset, edits, (ib, iseq), training in CASES:
        if name not in args.models:
            continue
        config = _config(preset, edits)
        row = _inference(name, config, ib, iseq)
        report["inference"].append(row)
        counts = f"params {row['transformers_params']:,} (paramscope {row['paramscope_params']:,})"
        print(f"{name}: inference, batch {ib} x {iseq} tokens, {counts}")
        for key in ("weights", "kv_after_prefill", "kv_cache", "peak"):
            print(_line(key, row[key]))
        if training is None:
            continue
        tb, tseq = training
        for recompute in ("none", "full"):
            row = _training(name, config, tb, tseq, recompute)
            report["training"].append(row)
            print(f"{name}: training, recompute {recompute}, batch {tb} x {tseq} tokens")
            for key in ("states", "activations", "gradients", "peak"):
                print(_line(key, row[key]))
        row = _finetune(name, config, tb, tseq)
        report["finetune"].append(row)
        print(f"{name}: LoRA r=16 all-linear, full recomputation, batch {tb} x {tseq} tokens")
        print(f"  trainable        predicted {row['trainable'][0]:,}  PEFT {row['trainable'][1]:,}")
        for key in ("weights", "optimizer", "activations", "gradients", "peak"):
            print(_line(key, row[key]))
    report["runtime_mib_end"] = _runtime_mib()
    start, end = report["runtime_mib_start"], report["runtime_mib_end"]
    print(f"runtime (context, kernels, workspaces): {start:.0f} MiB at start, {end:.0f} MiB at the end (assumed: 768)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
