"""Decode and prefill speed measured against ParamScope's roofline, on one GPU, side by side in one run.

ParamScope's estimate (``engine.speed``) gives each phase the longer of its FLOPs at the datasheet's peak and its
bytes at the datasheet's bandwidth, scaled by an efficiency setting. A decode step reads every weight once (the
input table only a row per sequence) and the whole KV cache, so on one GPU it is bound by bandwidth; a long prefill
is bound by FLOPs; a mixture of experts' step reads only the experts its batch routes to. This measures both for a
Llama, Mistral, Qwen3 or Qwen3-MoE preset (Llama-3-8B by default; random bf16 weights, nothing downloaded).

**Decode**: one step for ``batch`` sequences at a context of ``context`` tokens:

* **roofline**: ParamScope's decode step at efficiency 1 on this GPU's datasheet entry;
* **graphed**: a hand-written decode step in PyTorch, captured in a CUDA graph and replayed: what the kernels reach
  with no Python between them. Its weights are sized from the preset (its parameter count is checked equal to
  ParamScope's): the embedding rows; per layer an RMSNorm, the fused q/k/v projection, the new key and value
  written into a static cache, attention over the cache (each KV head's queries together, so the cache is read
  once), the output projection, an RMSNorm, the fused gate/up projection, SiLU and the down projection; the final
  norm and the head. Qwen3 adds its q and k norms; Qwen3-MoE's router picks each token's experts, and the (token,
  expert) pairs run as grouped matrix products (``torch._grouped_mm``) that read only the chosen experts (checked
  equal to transformers' ``Qwen3MoeSparseMoeBlock``). RoPE is left out (a few elementwise operations on one token:
  no weights, no cache reads);
* **eager**: the same step run from Python without the graph;
* **transformers**: the preset's own class built by transformers, decode steps through its dynamic cache at
  contexts around ``context``, run eagerly as a plain script would;
* **copy**: the bandwidth a 4 GiB device-to-device copy reaches (bytes read and written), against the datasheet;
* **matrix-vector** (dense models): the bandwidth ``F.linear`` reaches on one token with each of a layer's weight
  matrices alone, many products replayed from a CUDA graph.

**Prefill** (dense models): transformers' own class reading ``batch`` prompts of ``prompt`` tokens in one forward
pass (SDPA, causal: FlashAttention's kernel on Hopper), against ParamScope's prefill at efficiency 1: the fraction
is the model FLOP utilization the run reaches.

Run on the GPU machine: python bench/gpu_speed.py [--preset NAME] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
import transformers
from gpu_memory import build

from paramscope import from_config
from paramscope.engine.hardware import get
from paramscope.engine.speed import speed

ROOT = Path(__file__).resolve().parents[1]
#: (batch, context) pairs: one sequence, a small and a larger batch, and a long context where the cache weighs
CASES = [(1, 1024), (8, 1024), (32, 1024), (8, 8192)]
#: a mixture of experts' (batch, context) pairs: from 1 sequence (its top-k experts read) to all experts read
MOE_CASES = [(1, 1024), (8, 1024), (32, 1024), (128, 1024)]
#: (batch, prompt) pairs of the prefill
PREFILLS = [(1, 1024), (8, 1024), (1, 8192), (4, 8192)]
#: the datasheet entry of each GPU this can run on, by the name CUDA reports
GPUS = {
    "NVIDIA H100 80GB HBM3": "h100-sxm",
    "NVIDIA H100 PCIe": "h100-pcie",
    "NVIDIA H200": "h200-sxm",
    "NVIDIA A100-SXM4-80GB": "a100-80gb",
    "NVIDIA A100-SXM4-40GB": "a100-40gb",
}


def _timed(fn, repeat: int) -> float:
    """Mean seconds of ``fn`` over ``repeat`` calls, after three warm-ups, synchronized at both ends."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeat


class Decoder:
    """A decoder's weights (random, bf16) and a static KV cache of ``context`` positions for ``batch`` sequences, with
    one decode step that writes the new token's key and value at ``position`` and attends over the whole cache: the
    step is timed at the cache's last position, where every position is attended, so no mask is needed (and SDPA may
    pick FlashAttention, which splits a long cache across the GPU). Llama-style layers, with Qwen3's q and k norms
    (one RMSNorm over each head) and Qwen3-MoE's routed experts where the config has them."""

    def __init__(self, config: dict, batch: int, context: int, device: str) -> None:
        h, v, n = config["hidden_size"], config["vocab_size"], config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.kv = config.get("num_key_value_heads") or self.heads
        self.d = config.get("head_dim") or h // self.heads
        self.eps = config.get("rms_norm_eps", 1e-6)
        self.experts, self.top_k = config.get("num_experts", 0), config.get("num_experts_per_tok", 0)
        qk_norm = config["model_type"] in ("qwen3", "qwen3_moe")

        def w(*shape: int) -> torch.Tensor:
            return torch.randn(*shape, device=device, dtype=torch.bfloat16) * 0.02

        def ones(width: int) -> torch.Tensor:
            return torch.ones(width, device=device, dtype=torch.bfloat16)

        def mlp() -> dict[str, torch.Tensor]:
            """A gated MLP, or the router and the experts (each stored out × in, as ``nn.Linear`` keeps it)."""
            if not self.experts:
                i = config["intermediate_size"]
                return {"gate_up": w(2 * i, h), "down": w(h, i)}
            e, i = self.experts, config["moe_intermediate_size"]
            return {"router": w(e, h), "experts_gate_up": w(e, 2 * i, h), "experts_down": w(e, h, i)}

        qkv = (self.heads + 2 * self.kv) * self.d
        self.embedding = w(v, h)
        self.layers = [
            {
                "norm1": ones(h),
                "qkv": w(qkv, h),
                **({"q_norm": ones(self.d), "k_norm": ones(self.d)} if qk_norm else {}),
                "o": w(h, self.heads * self.d),
                "norm2": ones(h),
                **mlp(),
                "k_cache": w(batch, self.kv, context, self.d),
                "v_cache": w(batch, self.kv, context, self.d),
            }
            for _ in range(n)
        ]
        self.norm = ones(h)
        self.head = self.embedding if config.get("tie_word_embeddings") else w(v, h)

    def params(self) -> int:
        """The weights' elements (the caches left out, a tied head once)."""
        tensors = [self.embedding, self.norm] + ([] if self.head is self.embedding else [self.head])
        tensors += [t for layer in self.layers for k, t in layer.items() if not k.endswith("_cache")]
        return sum(t.numel() for t in tensors)

    def step(self, tokens: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        """The next token's logits for each sequence: ``tokens`` is ``batch × 1``, ``position`` a one-element tensor
        (kept on the GPU, so a captured graph replays with whatever it holds)."""
        b = tokens.shape[0]
        x = self.embedding[tokens]
        for layer in self.layers:
            y = F.rms_norm(x, x.shape[-1:], layer["norm1"], self.eps)
            q, k, v = F.linear(y, layer["qkv"]).split([self.heads * self.d, self.kv * self.d, self.kv * self.d], dim=-1)
            k = k.view(b, 1, self.kv, self.d)
            if "q_norm" in layer:
                q = F.rms_norm(q.view(b, 1, self.heads, self.d), (self.d,), layer["q_norm"], self.eps)
                k = F.rms_norm(k, (self.d,), layer["k_norm"], self.eps)
            layer["k_cache"].index_copy_(2, position, k.transpose(1, 2))
            layer["v_cache"].index_copy_(2, position, v.view(b, 1, self.kv, self.d).transpose(1, 2))
            # the queries of each KV head's group attend as one short sequence: the cache is read once, not repeated
            q = q.reshape(b, self.kv, self.heads // self.kv, self.d)
            att = F.scaled_dot_product_attention(q, layer["k_cache"], layer["v_cache"])
            x = x + F.linear(att.reshape(b, 1, -1), layer["o"])
            y = F.rms_norm(x, x.shape[-1:], layer["norm2"], self.eps)
            if self.experts:
                x = x + self.routed(layer, y.view(b, -1)).view(b, 1, -1)
            else:
                gate, up = F.linear(y, layer["gate_up"]).chunk(2, dim=-1)
                x = x + F.linear(F.silu(gate) * up, layer["down"])
        return F.linear(F.rms_norm(x, x.shape[-1:], self.norm, self.eps), self.head)

    def routed(self, layer: dict[str, torch.Tensor], y: torch.Tensor) -> torch.Tensor:
        """Qwen3-MoE's experts on ``y`` (``batch × hidden``): each token's ``top_k`` experts by the router's softmax,
        their weights renormalized; the (token, expert) pairs sorted by expert and run as one grouped matrix product
        per projection, which reads only the experts some token chose."""
        probs = F.softmax(F.linear(y, layer["router"]).float(), dim=-1)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(y.dtype).flatten()
        chosen = chosen.flatten()
        order = chosen.argsort()
        pairs = torch.zeros(self.experts, dtype=torch.int32, device=y.device)
        pairs.scatter_add_(0, chosen, torch.ones_like(chosen, dtype=torch.int32))
        ends = pairs.cumsum(0, dtype=torch.int32)  # where each expert's rows end
        token = order // self.top_k
        gate, up = torch._grouped_mm(y[token], layer["experts_gate_up"].transpose(1, 2), offs=ends).chunk(2, dim=-1)
        out = torch._grouped_mm(F.silu(gate) * up, layer["experts_down"].transpose(1, 2), offs=ends)
        return torch.zeros_like(y).index_add_(0, token, out * weights[order, None])


def _graphed(fn: Callable[[], object]) -> torch.cuda.CUDAGraph:
    """``fn``'s kernels captured in a CUDA graph (warmed up on a side stream first, as PyTorch's docs ask)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


def _hand_written(config: dict, batch: int, context: int) -> tuple[int, float, float]:
    """The hand-written decoder's parameters and its step's seconds, replayed from a CUDA graph and run eagerly."""
    decoder = Decoder(config, batch, context, "cuda")
    tokens = torch.randint(0, config["vocab_size"], (batch, 1), device="cuda")
    position = torch.tensor([context - 1], device="cuda")

    def step() -> torch.Tensor:
        return decoder.step(tokens, position)

    with torch.no_grad():
        graphed = _timed(_graphed(step).replay, 50)
        eager = _timed(step, 20)
    return decoder.params(), graphed, eager


def _prefills(model: torch.nn.Module, vocab: int) -> list[tuple[int, int, float]]:
    """Seconds of transformers' forward pass over each of ``PREFILLS``' batches of prompts (the last token's logits
    only, as a server's prefill keeps them)."""
    out = []
    with torch.no_grad():
        for batch, prompt in PREFILLS:
            ids = torch.randint(0, vocab, (batch, prompt), device="cuda")
            out.append((batch, prompt, _timed(lambda ids=ids: model(input_ids=ids, logits_to_keep=1), 5)))
    return out


def _transformers_step(model: torch.nn.Module, vocab: int, batch: int, context: int) -> float:
    """Seconds of one eager decode step of transformers' own class through its dynamic cache: 20 steps timed after a
    prefill and three untimed steps, their contexts centred on ``context``."""
    prompt = torch.randint(0, vocab, (batch, context - 13), device="cuda")
    token = torch.randint(0, vocab, (batch, 1), device="cuda")
    with torch.no_grad():
        cache = model(input_ids=prompt, use_cache=True, logits_to_keep=1).past_key_values
        return _timed(lambda: model(input_ids=token, past_key_values=cache, use_cache=True, logits_to_keep=1), 20)


def _copy_bandwidth() -> float:
    """Bytes per second a 4 GiB device-to-device copy moves, counting what it reads and what it writes."""
    src = torch.empty(2**31, dtype=torch.int16, device="cuda")
    dst = torch.empty_like(src)
    return 2 * 2**32 / _timed(lambda: dst.copy_(src), 20)


def _matrix_vector(config: dict) -> dict[str, float]:
    """Bytes per second of one-token products (``F.linear``) with each of a layer's weight matrices and the head,
    each kind alone: 32 products in a row replayed from a CUDA graph, cycling through copies of the matrix that
    together hold at least 256 MiB, so neither launches nor the L2 cache (50-60 MB) flatter the figure."""
    decoder = Decoder(config, 1, 1, "meta")  # its matrices' shapes, nothing allocated
    matrices = {name: decoder.layers[0][name] for name in ("qkv", "o", "gate_up", "down")} | {"head": decoder.head}
    shapes = {name: tuple(matrix.shape) for name, matrix in matrices.items()}
    out = {}
    for name, (rows, cols) in shapes.items():
        copies = max(2, -(-(2**28) // (2 * rows * cols)))
        weights = [torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
        x = torch.randn(1, cols, device="cuda", dtype=torch.bfloat16)

        def products(weights: list[torch.Tensor] = weights, x: torch.Tensor = x) -> None:
            for n in range(32):
                F.linear(x, weights[n % len(weights)])

        with torch.no_grad():
            out[name] = 32 * 2 * rows * cols / _timed(_graphed(products).replay, 20)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--preset", default="llama-3-8b", help="a Llama, Mistral, Qwen3 or Qwen3-MoE preset (default: llama-3-8b)"
    )
    parser.add_argument("--json", type=Path, help="write every measurement here")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    name = torch.cuda.get_device_name()
    key = GPUS.get(name)
    if key is None:
        sys.exit(f"no datasheet entry for {name}: add it to GPUS")
    gpu = get(key)
    config = json.loads((ROOT / "presets" / f"{args.preset}.json").read_text())["config"]
    model = from_config(config)
    copy = _copy_bandwidth()
    report: dict = {
        "device": name,
        "datasheet": key,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "preset": args.preset,
        "params": model.summary.total,
        "copy_bandwidth": copy,
        "datasheet_bandwidth": gpu.bandwidth,
        "steps": [],
    }
    print(f"{name} ({key}), torch {torch.__version__}, transformers {transformers.__version__}")
    print(f"copy: {copy / 1e12:.2f} TB/s read + written, {copy / gpu.bandwidth:.3f} of the datasheet's")
    report["matrix_vector_bandwidth"] = {} if model.spec.num_experts else _matrix_vector(config)
    for matrix, rate in report["matrix_vector_bandwidth"].items():
        print(
            f"one token through {matrix:<19} {rate / 1e12:.2f} TB/s of weights read, "
            f"{rate / gpu.bandwidth:.3f} of the datasheet's"
        )
    print(f"{args.preset}: {model.summary.total:,} parameters; seconds per decode step and tokens/s")
    cases = MOE_CASES if model.spec.num_experts else CASES
    hand_written = []
    for batch, context in cases:
        params, graphed, eager = _hand_written(config, batch, context)
        torch.cuda.empty_cache()
        if params != model.summary.total:
            sys.exit(
                f"the hand-written decoder has {params:,} parameters, ParamScope counts {model.summary.total:,}: "
                f"{args.preset} is not a model this decoder builds"
            )
        hand_written.append((graphed, eager))
    hf, vocab = build(config).eval(), config["vocab_size"]  # built once, for every step and prefill below
    for (batch, context), (graphed, eager) in zip(cases, hand_written, strict=True):
        predicted = speed(model.cost_spec, gpu, batch=batch, prompt=context, new=1)
        plain = _transformers_step(hf, vocab, batch, context)
        torch.cuda.empty_cache()
        roofline = predicted.decode_step.seconds
        row = {
            "batch": batch,
            "context": context,
            "bytes": predicted.decode_step.bytes,
            "bound": predicted.decode_step.bound,
            "experts_read": predicted.experts_read if model.spec.num_experts else None,
            "roofline_s": roofline,
            "graphed_s": graphed,
            "eager_s": eager,
            "transformers_s": plain,
        }
        report["steps"].append(row)
        print(
            f"  batch {batch:>2} × context {context:>5}: {predicted.decode_step.bytes / 1e9:6.2f} GB a step "
            f"({predicted.decode_step.bound}-bound"
            + (f", {predicted.experts_read:.1f} experts a layer" if model.spec.num_experts else "")
            + ")"
        )
        labelled = (("roofline", roofline), ("graphed", graphed), ("eager", eager), ("transformers", plain))
        for label, seconds in labelled:
            print(
                f"    {label:<13} {seconds * 1e3:8.3f} ms  {batch / seconds:9.1f} tokens/s  "
                f"roofline/this {roofline / seconds:6.3f}"
            )
    report["prefills"] = []
    # transformers' default experts run one expert at a time from Python: a prefill is timed on dense models only
    prefills = [] if model.spec.num_experts else _prefills(hf, vocab)
    if prefills:
        print(f"{args.preset}: prefill, transformers' forward pass against the roofline")
    for batch, prompt, seconds in prefills:
        predicted = speed(model.cost_spec, gpu, batch=batch, prompt=prompt, new=1).prefill
        report["prefills"].append(
            {
                "batch": batch,
                "prompt": prompt,
                "flops": predicted.flops,
                "bound": predicted.bound,
                "roofline_s": predicted.seconds,
                "transformers_s": seconds,
            }
        )
        print(
            f"  batch {batch} × {prompt:>5} tokens: {predicted.flops / 1e12:7.1f} TFLOP ({predicted.bound}-bound)  "
            f"roofline {predicted.seconds * 1e3:8.2f} ms  transformers {seconds * 1e3:8.2f} ms  "
            f"roofline/this {predicted.seconds / seconds:6.3f}"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
