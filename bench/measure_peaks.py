"""Real GPU memory of models people run, measured with transformers on one GPU, to hold memory estimates against.

Run on a CUDA machine from the project's root:  python3 bench/measure_peaks.py [--set NAME] [--only NAME ...]
(each NAME is a preset: its config.json is read from presets/NAME.json). ``--set set1`` (the default) is the runs the
peak model was built against; ``--set heldout`` is other models and shapes, measured after it, to check it; ``--case``
names runs one by one. Writes $OUT/gpu_peaks_<set>.json after every case (partial results survive a time-out), and
prints ParamScope's predicted peak over the measured one for each run (``recipe_settings``: the run settings of each
recipe; tests/test_peaks.py holds the committed figures to them). Without CUDA it does a dry run on the CPU with
2-layer configs and tiny shapes (memory figures 0), to check the flow before spending device time.

Recipes (what a user of the page would run with Hugging Face transformers on one GPU, random weights, SDPA):
* inference: bf16 weights; a prefill of batch x seq tokens with the model's own cache and logits_to_keep=1 (as
  generate() does), then one decode step. Recorded: weights, cache bytes after prefill and after the step, the peak
  of each phase (torch.cuda.max_memory_allocated, and max_memory_reserved), all above what was allocated before.
* training (PyTorch AMP, what the Trainer does with bf16=True): fp32 weights, autocast bf16, fused AdamW, loss from
  labels; two iterations (forward, backward, optimizer step, zero_grad(set_to_none)); the second one's peak, and per
  phase (forward, backward, step). With and without gradient checkpointing.
* lora (PEFT r=16, alpha 32, all-linear, adapters in fp32 as PEFT makes them; bf16 frozen base; gradient
  checkpointing, or none where the case says so; autocast bf16; fused AdamW on the adapters): same two iterations.
* training-fused / lora-fused: the same, with Liger-Kernel applied to the model (its RMSNorm, SwiGLU, RoPE and fused
  linear cross-entropy, which never holds the logits), as the Trainer's use_liger_kernel=True does.
* qlora: PEFT's QLoRA recipe: every layer matrix as bitsandbytes' NF4 with double quantization (Linear4bit, bf16
  compute), prepare_model_for_kbit_training (which upcasts the other weights to fp32), then LoRA as above; qlora-bare
  leaves out prepare_model_for_kbit_training (the other weights stay bf16).
A run that runs out of memory is recorded with its error (the estimate must not call it a fit). A name in CUTS is a
preset with edits (a large model cut to fewer layers, its per-layer lists with it).
"""

import argparse
import functools
import gc
import json
import os
import sys
import time
import traceback
import warnings

import torch
import transformers
from transformers import AutoConfig

HERE = os.path.dirname(os.path.abspath(__file__))
PRESETS = os.path.join(os.getcwd(), "presets")
OUT = os.environ.get("OUT", os.path.join(os.getcwd(), "gpu_peaks_out"))
CUDA = torch.cuda.is_available()
DEV = "cuda" if CUDA else "cpu"
NO_DROPOUT = (
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "attention_dropout",
    "hidden_dropout",
    "dropout",
    "summary_first_dropout",
    "classifier_dropout",
    "dropout_rate",  # T5
    "hidden_dropout_prob",  # BERT and its kin
    "attention_probs_dropout_prob",
)

INFERENCE = [  # name, batch, seq
    ("llama-3.1-8b", 4, 8192),
    ("qwen2.5-7b", 8, 4096),
    ("mistral-7b", 4, 8192),
    ("gemma-2-9b", 2, 8192),
    ("deepseek-v2-lite", 4, 4096),
    ("phi-3.5-mini-instruct", 8, 4096),
    ("olmoe-1b-7b-0924", 8, 4096),
    ("smollm3-3b", 8, 8192),
    ("gpt-oss-20b", 1, 8192),
]
TRAINING = [  # name, batch, seq, gradient checkpointing
    ("smollm2-360m", 8, 2048, False),
    ("smollm2-360m", 8, 2048, True),
    ("qwen2.5-0.5b", 8, 2048, False),
    ("qwen2.5-0.5b", 8, 2048, True),
    ("qwen3-1.7b", 4, 2048, True),
    ("gemma-2-2b", 2, 2048, True),
]
LORA = [  # name, batch, seq, gradient checkpointing
    ("llama-3.1-8b", 4, 2048, True),
    ("qwen2.5-7b", 2, 4096, True),
    ("gemma-2-2b", 8, 1024, True),
]


#: Models and shapes measured after the peak model was written, to check it (none of them is in set1)
HELDOUT = (
    [  # inference: dense, sliding windows, MQA, ALiBi, a hybrid with convolutions, mixtures of experts, MLA
        ("llama-3.2-3b", 4, 16384),
        ("qwen3-8b", 8, 4096),
        ("qwen3-14b", 2, 8192),
        ("mistral-nemo-base-2407", 4, 8192),
        ("phi-4", 2, 8192),
        ("granite-3.1-8b-instruct", 4, 8192),
        ("olmo-2-1124-7b", 8, 4096),
        ("gemma-3-1b-pt", 8, 8192),
        ("gemma-2-2b", 4, 8192),
        ("phi-3-mini", 8, 4096),
        ("starcoder2-3b", 8, 4096),
        ("stablelm-2-1.6b", 8, 4096),
        ("smollm2-1.7b", 16, 2048),
        ("falcon-7b", 4, 4096),
        ("bloom-560m", 8, 2048),
        ("lfm2-1.2b", 8, 4096),
        ("deepseek-v2-lite", 8, 2048),
        ("gpt-oss-20b", 2, 4096),
        ("qwen3-30b-a3b", 2, 8192),
    ],
    [  # AMP training
        ("smollm2-135m", 8, 2048, False),
        ("qwen3-0.6b", 8, 2048, False),
        ("qwen3-0.6b", 16, 2048, True),
        ("llama-3.2-1b", 4, 2048, False),
        ("llama-3.2-1b", 4, 4096, True),
        ("gemma-3-1b-pt", 4, 2048, True),
        ("olmo-2-0425-1b", 8, 2048, True),
        ("qwen2.5-0.5b", 16, 1024, False),
        ("stablelm-2-1.6b", 4, 2048, True),
        ("gpt2", 8, 1024, False),
        ("qwen3-1.7b", 8, 1024, False),
        ("lfm2-1.2b", 4, 2048, True),
        ("bert-base-uncased", 32, 512, False),
        ("smollm2-135m", 32, 2048, False),  # ran out of memory on an H100 in the runs
    ],
    [  # LoRA
        ("qwen3-8b", 4, 2048, True),
        ("llama-3.2-3b", 8, 2048, True),
        ("phi-4", 2, 2048, True),
        ("gemma-3-1b-pt", 8, 2048, True),
        ("mistral-7b", 2, 2048, False),
        ("qwen2.5-0.5b", 8, 2048, False),
    ],
)
#: Models cut to fit one GPU: name -> (preset, edits to its config.json)
CUTS = {
    "deepseek-v3-4l": ("deepseek-v3", {"num_hidden_layers": 4}),
    "qwen3-next-80b-a3b-4l": ("qwen3-next-80b-a3b", {"num_hidden_layers": 4}),
    "jamba-v0.1-8l": ("jamba-v0.1", {"num_hidden_layers": 8}),
}
#: A second held-out set (measured 2026-11-26 on the GPU lent then): whole vision-language models on text prompts,
#: hybrids with Mamba mixers, larger mixtures of experts, encoders and T5 in training, and the recipes the first sets
#: did not hold (Liger-Kernel's fused kernels, QLoRA)
FRESH = {
    "training-fused": [
        ("llama-3.2-1b", 8, 2048, False),
        ("llama-3.2-1b", 8, 2048, True),
        ("qwen3-0.6b", 8, 4096, False),
        ("qwen3-0.6b", 16, 4096, True),
        ("qwen2.5-0.5b", 16, 2048, False),
        ("mistral-7b", 2, 4096, True),
    ],
    "qlora": [
        ("llama-3.1-8b", 4, 2048, True),
        ("qwen2.5-7b", 2, 4096, True),
        ("qwen3-14b", 2, 2048, True),
        ("mistral-7b", 2, 4096, False),
    ],
    "qlora-bare": [
        ("llama-3.1-8b", 4, 2048, True),
    ],
    "lora-fused": [
        ("qwen2.5-7b", 4, 4096, True),
    ],
    "lora": [
        ("qwen2.5-14b", 2, 4096, True),
        ("llama-3.1-8b", 1, 2048, False),
        ("gemma-2-9b", 2, 2048, True),
        ("smollm3-3b", 4, 4096, True),
    ],
    "training-amp": [
        ("llama-3.2-3b", 2, 2048, True),
        ("smollm3-3b", 2, 4096, True),
        ("qwen3-4b", 1, 4096, False),
        ("roberta-base", 32, 512, False),
        ("modernbert-base", 16, 1024, False),
        ("xlm-roberta-base", 16, 512, False),
        ("t5-small", 32, 512, False),
        ("mamba-130m-hf", 8, 2048, False),
        ("opt-125m", 16, 2048, False),
        ("gemma-3-4b-it", 1, 2048, True),
    ],
    "inference": [
        ("gemma-3-4b-it", 8, 4096),
        ("qwen2.5-vl-7b-instruct", 4, 8192),
        ("llava-1.5-7b", 8, 2048),
        ("mistral-small-3.1-24b-instruct", 2, 8192),
        ("qwen2.5-14b", 4, 8192),
        ("gemma-2-27b", 1, 8192),
        ("ernie-4.5-21b-a3b", 4, 4096),
        ("deepseek-v3-4l", 4, 4096),
        ("mixtral-8x7b", 2, 8192),
        ("gemma-4-31b-it", 1, 8192),
        ("qwen3-next-80b-a3b-4l", 2, 4096),
        ("nemotron-h-8b", 4, 4096),
        ("jamba-v0.1-8l", 2, 4096),
        ("mamba-2.8b-hf", 8, 2048),
        ("zamba-7b-v1", 2, 2048),
    ],
}
#: A third held-out set (measured 2026-11-27 on an H100): models no earlier file holds (Mamba-2, a hybrid MoE, speech
#: LLMs whole, MLA with 384 experts, DeepSeek's sparse-attention indexer, encoders with ALBERT's shared layers and
#: DistilBERT's), T5 with its dropout zeroed, and each recipe again on other models
CUTS.update(
    {
        "gpt-oss-120b-4l": ("gpt-oss-120b", {"num_hidden_layers": 4}),
        # the file's kimi_k2 is DeepSeek-V3's class
        "kimi-k2-instruct-2l": ("kimi-k2-instruct", {"num_hidden_layers": 2, "model_type": "deepseek_v3"}),
        "qwen3-235b-a22b-4l": ("qwen3-235b-a22b", {"num_hidden_layers": 4}),
        "dbrx-instruct-4l": ("dbrx-instruct", {"n_layers": 4}),
        "minimax-m2-4l": ("minimax-m2", {"num_hidden_layers": 4}),
        "deepseek-v3.2-exp-4l": ("deepseek-v3.2-exp", {"num_hidden_layers": 4}),
        "mamba-codestral-7b-8l": ("mamba-codestral-7b", {"num_hidden_layers": 8}),
        "nemotron-h-8b-8l": ("nemotron-h-8b", {"num_hidden_layers": 8}),
        "nemotron-3-nano-30b-a3b-6l": ("nemotron-3-nano-30b-a3b", {"num_hidden_layers": 6}),
    }
)
THIRD = {
    "inference": [
        ("llama-3-8b", 8, 8192),
        ("llama-2-13b", 4, 4096),
        ("qwen3-32b", 2, 4096),
        ("mamba-codestral-7b", 4, 4096),
        ("nemotron-3-nano-30b-a3b", 2, 4096),
        ("voxtral-mini-3b-2507", 4, 4096),
        ("qwen2-audio-7b-instruct", 4, 4096),
        ("gpt-oss-120b-4l", 1, 8192),
        ("kimi-k2-instruct-2l", 2, 4096),
        ("qwen3-235b-a22b-4l", 4, 8192),
        ("dbrx-instruct-4l", 2, 4096),
        ("minimax-m2-4l", 2, 4096),
        ("deepseek-v3.2-exp-4l", 2, 4096),
    ],
    "training-amp": [
        ("t5-small", 32, 512, False),
        ("flan-t5-base", 8, 512, False),
        ("mt5-small", 16, 512, False),
        ("bert-large-uncased", 16, 512, False),
        ("distilbert-base-uncased", 32, 512, False),
        ("albert-base-v2", 32, 512, False),
        ("xlm-roberta-large", 8, 512, False),
        ("electra-base-discriminator", 32, 512, False),
    ],
    "lora": [
        ("llama-3-8b", 4, 2048, True),
        ("llama-2-13b", 2, 4096, True),
        ("qwen3-32b", 1, 2048, True),
    ],
    "qlora": [
        ("qwen2.5-32b", 1, 2048, True),
    ],
    "training-fused": [
        ("qwen3-1.7b", 4, 4096, False),
        ("llama-3.2-3b", 2, 4096, True),
    ],
    "lora-fused": [
        ("llama-3.1-8b", 4, 4096, True),
    ],
}
#: A fourth held-out set (2026-11-27), for the terms written since against the CPU replay and the weights kept in
#: fp32: the gated delta rule (Qwen3.5 whole, Qwen3-Next at another shape, and both in training), experts handed fp32
#: routing weights at other shapes and in training, DeepSeek-V4 at its class's defaults (no checkpoint: ``None``),
#: MiniMax-Text-01's lightning attention, PaliGemma whole, and LoRA on mixtures of experts, never measured before
CUTS.update(
    {
        "deepseek-v4-4l": (
            None,
            {"model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"], "num_hidden_layers": 4},
        ),
        "deepseek-r1-4l": ("deepseek-r1", {"num_hidden_layers": 4}),
        "qwen3-next-80b-a3b-2l": ("qwen3-next-80b-a3b", {"num_hidden_layers": 2}),
        "minimax-text-01-4l": ("minimax-text-01", {"num_hidden_layers": 4}),
        "mixtral-8x22b-4l": ("mixtral-8x22b", {"num_hidden_layers": 4}),
        "qwen3-30b-a3b-4l": ("qwen3-30b-a3b", {"num_hidden_layers": 4}),
        "deepseek-v2-lite-4l": ("deepseek-v2-lite", {"num_hidden_layers": 4}),
        "olmoe-1b-7b-0924-4l": ("olmoe-1b-7b-0924", {"num_hidden_layers": 4}),
    }
)
FOURTH = {
    "inference": [
        ("qwen3.5-9b", 4, 8192),
        ("qwen3-next-80b-a3b-4l", 4, 8192),
        ("deepseek-v4-4l", 1, 8192),
        ("deepseek-r1-4l", 2, 8192),
        ("ernie-4.5-21b-a3b", 2, 8192),
        ("mixtral-8x22b-4l", 4, 8192),
        ("minimax-text-01-4l", 2, 8192),
        ("paligemma-3b-pt-224", 8, 2048),
    ],
    "training-amp": [
        ("qwen3-30b-a3b-4l", 2, 2048, False),
        ("deepseek-v2-lite-4l", 4, 2048, True),
        ("qwen3-next-80b-a3b-2l", 1, 4096, True),
    ],
    "lora": [
        ("qwen3-30b-a3b", 2, 2048, True),
        ("gpt-oss-20b", 1, 4096, True),
        ("olmoe-1b-7b-0924", 4, 2048, False),
        ("qwen3-next-80b-a3b-4l", 2, 4096, True),
    ],
}
RECIPES_LORA = ("lora", "lora-fused", "qlora", "qlora-bare")
SETS = {
    "set1": {"inference": INFERENCE, "training-amp": TRAINING, "lora": LORA},
    "heldout": dict(zip(("inference", "training-amp", "lora"), HELDOUT, strict=True)),
    "fresh": FRESH,
    "third": THIRD,
    "fourth": FOURTH,
}


def recipe_settings(case):
    """ParamScope's run settings for a measured case (no runtime line: the figures are above the allocator's floor);
    None for a run no setting describes (qlora-bare, measured to isolate prepare_model_for_kbit_training's upcast)."""
    from paramscope.engine.run import RunSettings

    base = dict(batch=case["batch"], seq=case["seq"], runtime_mib=0)
    if case["recipe"] == "qlora-bare":  # not a recipe the page offers: QLoRA without PEFT's fp32 upcast
        return None
    if case["recipe"] == "inference":
        return RunSettings(**base)
    recompute = "full" if case.get("checkpointing", True) else "none"  # the LoRA runs checkpoint
    mode = "training" if case["recipe"].startswith("training") else "finetune"
    kernels = "liger" if case["recipe"].endswith("-fused") else "transformers"  # -fused: Liger-Kernel's kernels
    quant = "nf4" if case["recipe"].startswith("qlora") else "none"
    return RunSettings(mode=mode, recompute=recompute, precision="amp", kernels=kernels, quant=quant, **base)


def predicted_over_measured(row, cfg):
    """ParamScope's largest phase over the measured peak (max_memory_allocated above the floor)."""
    from paramscope import from_config
    from paramscope.engine.memory import phases

    settings = recipe_settings(row)
    if settings is None:
        return None
    spec = from_config(cfg).cost_spec
    peak = max(p.count for p in phases(spec, settings))
    measured = max(row["peak_prefill"], row["peak_decode"]) if row["recipe"] == "inference" else row["peak"]
    return peak / measured if measured else None


def preset_config(name):
    """The config a run's name stands for: its preset's config.json (or a class's defaults), with the edits of a cut
    model (its per-layer lists cut to the layers it keeps)."""
    preset, edits = CUTS.get(name, (name, {}))
    cfg = dict(edits)  # no preset: a class's defaults, edits naming the model type
    if preset is not None:
        with open(os.path.join(PRESETS, f"{preset}.json")) as f:
            cfg = json.load(f)["config"] | edits
    layers = next((edits[key] for key in LAYER_COUNTS if key in edits), None)
    if layers is not None:
        cut_layers(cfg, layers)
    return cfg


def as_run(cfg):
    """A copy of a config as the runs build it: no quantization, every tower in the run's dtype (LLaVA's file names
    float16), dropout off."""
    cfg = dict(cfg)
    cfg.pop("quantization_config", None)
    for sub in [cfg] + [v for k, v in cfg.items() if k.endswith("_config") and isinstance(v, dict)]:
        for key in ("torch_dtype", "dtype"):
            sub.pop(key, None)
    for key in NO_DROPOUT:
        if key in cfg:
            cfg[key] = 0.0
    return cfg


def load(name):
    cfg = as_run(preset_config(name))
    if not CUDA:  # dry run
        cut_layers(cfg, 2)
    return cfg


LAYER_COUNTS = ("num_hidden_layers", "n_layer", "n_layers")  # the keys that count a config's layers


def cut_layers(cfg, layers):
    """The config cut to ``layers`` layers, in the towers of a whole model too (per-layer lists follow)."""
    for sub in [cfg] + [v for k, v in cfg.items() if k.endswith("_config") and isinstance(v, dict)]:
        for key in LAYER_COUNTS:
            if key in sub:
                sub[key] = layers
        for key in ("layer_types", "hybrid_override_pattern", "layers_block_type", "mlp_layer_types"):
            if key in sub:
                sub[key] = sub[key][:layers]


def alloc():
    if not CUDA:
        return 0
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated()


def reset():
    if CUDA:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def peaks(floor):
    if not CUDA:
        return 0, 0
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - floor, torch.cuda.max_memory_reserved()


ATTN = ("sdpa", "eager")  # eager where the class has no SDPA path (BLOOM, gpt-oss), as transformers picks; --attn


def build(cfg, dtype):
    cfg = dict(cfg)
    model_type = cfg.pop("model_type")
    cls = getattr(transformers, cfg["architectures"][0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for attn in ATTN:
            hf = AutoConfig.for_model(model_type, **cfg)
            hf._attn_implementation = attn
            torch.set_default_dtype(dtype)
            try:
                with torch.device(DEV):
                    model = cls(hf)
                break
            except ValueError as e:
                if "scaled_dot_product_attention" not in str(e):
                    raise
            finally:
                torch.set_default_dtype(torch.float32)
    head, embed = model.get_output_embeddings(), model.get_input_embeddings()
    if cfg.get("tie_word_embeddings") is False and head is not None and head.weight is embed.weight:
        # a class that ties whatever the file says (transformers 5's T5): the head as the checkpoint stores it
        head.weight = torch.nn.Parameter(head.weight.detach().clone())
    return model, hf


def cache_bytes(cache):
    """Every tensor the cache object holds (its layers' keys and values), each storage once."""
    seen = {}

    def walk(obj, depth):
        if isinstance(obj, torch.Tensor):
            seen[obj.untyped_storage().data_ptr()] = obj.untyped_storage().nbytes()
        elif depth < 5 and isinstance(obj, (list, tuple)):
            for item in obj:
                walk(item, depth + 1)
        elif depth < 5 and isinstance(obj, dict):
            for item in obj.values():
                walk(item, depth + 1)
        elif depth < 5 and hasattr(obj, "__dict__"):
            for item in vars(obj).values():
                walk(item, depth + 1)

    walk(cache, 0)
    return sum(seen.values())


def shapes(b, s):
    return (b, s) if CUDA else (1, 16)


def run_inference(name, batch, seq):
    batch, seq = shapes(batch, seq)
    cfg = load(name)
    floor = alloc()
    model, hf = build(cfg, torch.bfloat16)
    model.eval()
    row = {
        "recipe": "inference",
        "model": name,
        "batch": batch,
        "seq": seq,
        "dtype": "bf16",
        "attn": getattr(model.config, "_attn_implementation", None),
        "params": sum(p.numel() for p in model.parameters()),
        "buffers": sum(b.numel() * b.element_size() for b in model.buffers()),
    }
    row["weights"] = alloc() - floor
    ids = token_ids(hf, batch, seq)
    base = alloc() - floor
    reset()
    t = time.perf_counter()
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
    row["prefill_s"] = round(time.perf_counter() - t, 3)
    row["peak_prefill"], row["reserved_prefill"] = peaks(floor)
    key = "past_key_values" if getattr(out, "past_key_values", None) is not None else "cache_params"  # Mamba's
    row["cache_after_prefill"] = cache_bytes(getattr(out, key))
    row["held_after_prefill"] = alloc() - floor - base
    nxt = token_ids(hf, batch, 1)
    step = {key: getattr(out, key)}
    if key == "cache_params":
        step["cache_position"] = torch.tensor([seq], device=DEV)
    reset()
    with torch.no_grad():
        out = model(input_ids=nxt, use_cache=True, logits_to_keep=1, **step)
    row["peak_decode"], row["reserved_decode"] = peaks(floor)
    row["cache_after_decode"] = cache_bytes(getattr(out, key))
    row["ids_bytes"] = base - row["weights"]
    del out, model, ids, nxt, step
    return row


def token_ids(hf, batch, seq):
    """Random text tokens: any id a whole model reserves for an image, a video or audio (its *_token_id and
    *_token_index keys) replaced by another, so that a text prompt is all the model sees."""
    ids = torch.randint(0, hf.get_text_config().vocab_size, (batch, seq), device=DEV)
    special = {v for k, v in hf.to_dict().items() if k.endswith(("_token_id", "_token_index")) and isinstance(v, int)}
    for token in special - {100}:
        ids[ids == token] = 100
    return ids


def forward_loss(model, ids):
    """A training forward pass to the loss under autocast, as the Trainer runs it (no cache)."""
    with torch.autocast(DEV, dtype=torch.bfloat16):
        try:
            return model(input_ids=ids, labels=ids, use_cache=False).loss
        except TypeError:  # encoders take no use_cache
            return model(input_ids=ids, labels=ids).loss


def _iterations(model, params, hf, batch, seq, floor):
    """Two training iterations; the second one's peaks, overall and per phase."""
    opt = torch.optim.AdamW(params, lr=1e-5, fused=CUDA)
    row = {}
    for it in range(2):
        ids = token_ids(hf, batch, seq)
        if it == 1:
            row["held_before_step"] = alloc() - floor
            reset()
        loss = forward_loss(model, ids)
        if it == 1:
            row["peak_forward"], _ = peaks(floor)
            row["held_after_forward"] = alloc() - floor
            reset()
        loss.backward()
        if it == 1:
            row["peak_backward"], _ = peaks(floor)
            row["held_after_backward"] = alloc() - floor
            reset()
        opt.step()
        if it == 1:
            row["peak_step"], row["reserved_peak"] = peaks(floor)
        opt.zero_grad(set_to_none=True)
        del loss, ids
    row["peak"] = max(row["peak_forward"], row["peak_backward"], row["peak_step"])
    row["held_after_iteration"] = alloc() - floor
    del opt
    return row


def liger(model):
    """Liger-Kernel's kernels on this model (RMSNorm, SwiGLU, RoPE, fused linear cross-entropy), as the Trainer's
    use_liger_kernel=True applies them."""
    from liger_kernel.transformers import _apply_liger_kernel_to_instance

    _apply_liger_kernel_to_instance(model=model)


def adapted(model, recipe, checkpointing):
    """The built model as the recipe runs it, in training mode (this script's runs and bench/saved_tensors.py's):
    QLoRA's NF4 layers and PEFT's upcast, gradient checkpointing, Liger-Kernel's kernels, PEFT's LoRA adapters."""
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

    lora = recipe in RECIPES_LORA
    if recipe.startswith("qlora"):
        nf4(model)
        gc.collect()
        if CUDA:
            torch.cuda.empty_cache()
    if recipe == "training-fused":
        liger(model)
    if recipe == "qlora":  # PEFT's QLoRA recipe: the weights that are not NF4 in fp32
        model = prepare_model_for_kbit_training(
            model, use_gradient_checkpointing=checkpointing, gradient_checkpointing_kwargs={"use_reentrant": False}
        )
    elif checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if lora:
            model.enable_input_require_grads()
    if recipe == "lora-fused":
        liger(model)
    if lora:
        config = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM")
        model = get_peft_model(model, config)
    model.train()
    return model


def run_training(name, batch, seq, checkpointing, recipe="training-amp"):
    batch, seq = shapes(batch, seq)
    cfg = load(name)
    floor = alloc()
    model, hf = build(cfg, torch.float32)
    model = adapted(model, recipe, checkpointing)
    row = {
        "recipe": recipe,
        "model": name,
        "batch": batch,
        "seq": seq,
        "checkpointing": checkpointing,
        "attn": getattr(model.config, "_attn_implementation", None),
        "params": sum(p.numel() for p in model.parameters()),
        "weights": alloc() - floor,
    }
    row.update(_iterations(model, [p for p in model.parameters() if p.requires_grad], hf, batch, seq, floor))
    del model
    return row


def nf4(model):
    """Every layer matrix (not the LM head) as bitsandbytes' Linear4bit: NF4, double quantization, bf16 compute, as
    BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
    bnb_4bit_compute_dtype=torch.bfloat16) loads a checkpoint."""
    import bitsandbytes as bnb

    head = model.get_output_embeddings()
    for parent in list(model.modules()):
        for child_name, child in list(parent.named_children()):
            if type(child) is not torch.nn.Linear or child is head:
                continue
            q = bnb.nn.Linear4bit(
                child.in_features,
                child.out_features,
                bias=child.bias is not None,
                compute_dtype=torch.bfloat16,
                compress_statistics=True,
                quant_type="nf4",
                device="meta",
            )
            q.weight = bnb.nn.Params4bit(
                child.weight.data, requires_grad=False, compress_statistics=True, quant_type="nf4"
            )
            if child.bias is not None:
                q.bias = torch.nn.Parameter(child.bias.data, requires_grad=False)
            setattr(parent, child_name, q.to(child.weight.device))
    model.is_loaded_in_4bit = True


def run_lora(name, batch, seq, checkpointing, recipe="lora"):
    batch, seq = shapes(batch, seq)
    cfg = load(name)
    floor = alloc()
    model, hf = build(cfg, torch.bfloat16)
    model = adapted(model, recipe, checkpointing)
    trainable = [p for p in model.parameters() if p.requires_grad]
    row = {
        "recipe": recipe,
        "model": name,
        "batch": batch,
        "seq": seq,
        "checkpointing": checkpointing,
        "rank": 16,
        "targets": "all-linear",
        "trainable": sum(p.numel() for p in trainable),
        "trainable_dtype": str(trainable[0].dtype) if trainable else None,
        "weights": alloc() - floor,
    }
    row.update(_iterations(model, trainable, hf, batch, seq, floor))
    del model
    return row


def _version(distribution):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:  # not installed: recipes that need it fail and are recorded so
        return None


def runtime_mib():
    if not CUDA:
        return 0.0
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    return (total - free - torch.cuda.memory_reserved() + torch.cuda.memory_allocated()) / 2**20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None, help="recipe:name pairs or names")
    ap.add_argument("--skip", nargs="*", default=[], help="recipe:name to skip")
    ap.add_argument("--set", default="set1", choices=sorted(SETS), help="which runs")
    ap.add_argument(
        "--case",
        nargs="*",
        default=[],
        help="runs instead of a set, each recipe:name:batch:seq[:checkpointing], e.g. lora:qwen3-8b:4:2048:0 "
        "(recipes: inference, training, training-fused, lora, lora-fused, qlora, qlora-bare)",
    )
    ap.add_argument("--name", default=None, help="the output's name (gpu_peaks_<name>.json); the set's by default")
    ap.add_argument("--attn", default=None, choices=("sdpa", "eager"), help="one attention implementation for all")
    args = ap.parse_args()
    global ATTN
    ATTN = (args.attn,) if args.attn else ATTN
    os.makedirs(OUT, exist_ok=True)
    import peft

    if CUDA:
        torch.ones(1, device="cuda") @ torch.ones(1, 1, device="cuda")
    cap = float(os.environ.get("CAP_GIB", 0))  # a larger GPU held to a smaller one's capacity (an H200 as an H100)
    if CUDA and cap:
        torch.cuda.set_per_process_memory_fraction(cap * 2**30 / torch.cuda.get_device_properties(0).total_memory)
    report = {
        "device": torch.cuda.get_device_name() if CUDA else "cpu dry run",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        **{name: _version(name) for name in ("liger-kernel", "bitsandbytes")},
        "cap_gib": cap or None,
        "runtime_mib_start": runtime_mib(),
        "cases": [],
    }
    runs = {recipe: list(cases) for recipe, cases in SETS[args.set].items()} if not args.case else {}
    for case in args.case:
        recipe, name, batch, seq, *ckpt = case.split(":")
        recipe = "training-amp" if recipe == "training" else recipe
        runs.setdefault(recipe, []).append((name, int(batch), int(seq), *(bool(int(c)) for c in ckpt)))
    path = os.path.join(OUT, f"gpu_peaks_{args.name or args.set}.json")
    runners = {
        "inference": run_inference,
        "training-amp": run_training,
        "training-fused": functools.partial(run_training, recipe="training-fused"),
        **{r: functools.partial(run_lora, recipe=r) for r in RECIPES_LORA},
    }
    jobs = [
        (recipe, n, {"batch": b, "seq": s, **({"checkpointing": c[0]} if c else {})}, runners[recipe])
        for recipe, cases in runs.items()
        for n, b, s, *c in cases
    ]
    print(report["device"], report["torch"], report["transformers"], report["peft"], flush=True)
    for recipe, name, spec, job in jobs:
        if args.only and name not in args.only and f"{recipe}:{name}" not in args.only:
            continue
        if f"{recipe}:{name}" in args.skip:
            continue
        t = time.perf_counter()
        try:
            row = job(name, *spec.values())
        except Exception as e:  # OOM or a build failure: recorded, the rest goes on
            row = {
                "recipe": recipe,
                "model": name,
                **spec,
                "error": f"{type(e).__name__}: {str(e)[:300]}",
                "trace": traceback.format_exc()[-1500:],
            }
        row["wall_s"] = round(time.perf_counter() - t, 1)
        gc.collect()
        if CUDA:
            torch.cuda.empty_cache()
        report["cases"].append(row)
        short = {
            k: (round(v / 2**30, 3) if isinstance(v, int) and v > 2**24 else v) for k, v in row.items() if k != "trace"
        }
        if CUDA and "error" not in row:
            try:
                ratio = predicted_over_measured(row, load(name))
                short["predicted/measured"] = round(ratio, 3) if ratio else None
            except Exception as e:  # the measurement stands; the estimate is compared later
                short["predicted/measured"] = f"{type(e).__name__}: {e}"[:200]
        print(json.dumps(short), flush=True)
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
    report["runtime_mib_end"] = runtime_mib()
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
    print("done", flush=True)


if __name__ == "__main__":
    sys.exit(main())
