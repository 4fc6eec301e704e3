"""Tokens per second from a roofline: each phase takes the longer of its FLOPs at peak and its bytes at bandwidth.

For one GPU holding the whole model, ``batch`` sequences of ``prompt`` tokens, then ``new`` tokens each:

* **prefill** reads the weights once and runs the forward FLOPs of the prompts (causal attention), a decoder-only
  model's head on each prompt's last token only, as a server keeps its logits:
  ``time = max(batch × forward(prompt) / (peak × eff), bytes / (bandwidth × eff))``; it is also the time to first
  token;
* **decode**, one step per new token, at the average context ``prompt + new/2``: every weight matrix is read once
  per step (the input table only a row per sequence; for MoE only the experts the batch routes to, uniform
  routing: ``E × (1 − (1 − k/E)^batch)`` per layer), plus the whole KV cache; the FLOPs are the marginal forward
  cost of one more token at that context, times the batch.

``eff`` (0-1] scales both the peak FLOP/s and the bandwidth: 1 gives the roofline bound, which no kernel reaches;
measured decode runs reach 73 % (vLLM, A100) and 59-63 % (PyTorch's kernels with CUDA graphs, H200; a mixture of
experts 16-49 %) of it, and a prefill through transformers about 50 % (H200; docs/memory-and-flops.md). Peaks and
bandwidths are datasheet figures (:mod:`paramscope.engine.hardware`, each with its source).
"""

from __future__ import annotations

from dataclasses import dataclass

from paramscope.engine.flops import forward
from paramscope.engine.hardware import Accelerator
from paramscope.engine.memory import BITS, QUANT, kv_cache, weight_bytes
from paramscope.engine.params import count, routed_experts
from paramscope.engine.spec import Spec, validate

#: The head's parts a decoder-only model's prefill runs on the last token alone (FLOPs linear in the tokens)
LAST_TOKEN_ONLY = ("head/projection", "head/lm")


@dataclass(frozen=True)
class Phase:
    """One phase's work and time: the FLOPs, the bytes moved, the time each takes at the roofline."""

    flops: int
    bytes: int
    compute_s: float
    memory_s: float

    @property
    def seconds(self) -> float:
        return max(self.compute_s, self.memory_s)

    @property
    def bound(self) -> str:
        """Which side sets the time: ``compute`` or ``memory`` (bandwidth)."""
        return "compute" if self.compute_s >= self.memory_s else "memory"


@dataclass(frozen=True)
class Speed:
    """Prefill and decode throughput of one GPU, with the work behind each."""

    prefill: Phase
    decode_step: Phase  # one decode step for the whole batch, at the average context
    batch: int
    prompt: int
    new: int
    context: int  # the average context of a decode step
    experts_read: float  # experts read per MoE layer and step (num_experts for a dense model's 1)

    @property
    def prefill_tokens_per_s(self) -> float:
        return self.batch * self.prompt / self.prefill.seconds if self.prefill.seconds else 0.0

    @property
    def decode_tokens_per_s(self) -> float:
        """New tokens per second over the whole batch."""
        return self.batch / self.decode_step.seconds if self.decode_step.seconds else 0.0

    @property
    def time_to_first_token_s(self) -> float:
        return self.prefill.seconds

    @property
    def total_s(self) -> float:
        """Prefill plus every decode step."""
        return self.prefill.seconds + self.new * self.decode_step.seconds


def keeps_last_logits(spec: Spec) -> bool:
    """Whether a prefill runs the LM head on each prompt's last token alone: a decoder-only language model keeps no
    other logits (transformers' ``logits_to_keep=1``, vLLM). A masked LM's logits are per token, and an
    encoder-decoder's prompt goes through its encoder: the estimate runs their heads on every token."""
    return spec.lm_head and spec.architecture == "causal_lm" and not spec.is_encoder_decoder


def expected_experts(num_experts: int, per_token: int, tokens: int) -> float:
    """Distinct experts ``tokens`` tokens route to in one layer, each choosing ``per_token`` of ``num_experts``
    uniformly: ``E × (1 − (1 − k/E)^tokens)``."""
    if num_experts <= 0:
        return 0.0
    return num_experts * (1 - (1 - per_token / num_experts) ** tokens)


def speed(
    spec: Spec,
    gpu: Accelerator,
    *,
    dtype: str = "bf16",
    kv_dtype: str = "bf16",
    batch: int = 1,
    prompt: int = 1024,
    new: int = 256,
    efficiency: float = 1.0,
) -> Speed:
    """The roofline estimate of prefill and decode for ``batch`` sequences on one ``gpu`` (see the module doc)."""
    spec = validate(spec)
    if not 0 < efficiency <= 1:
        raise ValueError(f"efficiency: expected a fraction in (0, 1], got {efficiency!r}")
    for name, value in (("batch", batch), ("prompt", prompt), ("new", new)):
        if value < 1:
            raise ValueError(f"{name}: must be at least 1 (got {value})")
    peak, bandwidth = gpu.bf16_flops * efficiency, gpu.bandwidth * efficiency
    weights = weight_bytes(spec, dtype).count
    tree = count(spec)
    keep_bits = 16 if dtype in QUANT else BITS[dtype]
    # a decode step looks up a row of the input table per sequence, not the whole table (a tied head reads it all)
    table, row = (0, 0) if spec.tie_word_embeddings else (tree.get("embedding/token"), spec.embed_width)
    if tree.get("embedding/per_layer"):  # Gemma 4's per-layer inputs: a row of per_layer_input for every layer
        table += tree.get("embedding/per_layer")
        row += spec.num_hidden_layers * spec.per_layer_input
    read = weights - (table - batch * row) * keep_bits // 8
    read -= round(tree.get("layers/moe/zero_experts") * BITS[dtype] / 8)  # rows that never compute
    read -= tree.get("towers") * keep_bits // 8  # a multimodal model's other towers run on images, not per token
    touched = float(spec.num_experts)
    # routed experts (and JetMoE's attention experts) are read only when some sequence's token is sent to them
    for experts, n in routed_experts(spec, tree):
        used = expected_experts(n, spec.num_experts_per_tok, batch)
        read -= round(weight_bytes(spec, dtype, within=experts.path).count * (1 - used / n))
        touched = used if experts.path == "layers/moe/experts" else touched

    prompts = forward(spec, prompt, causal=True)
    head = sum(prompts.get(path) for path in LAST_TOKEN_ONLY) if keeps_last_logits(spec) else 0
    prefill_flops = batch * (prompts.count - head + head // prompt)
    prefill_bytes = weights + kv_cache(spec, prompt, batch, kv_dtype).count
    prefill = Phase(prefill_flops, prefill_bytes, prefill_flops / peak, prefill_bytes / bandwidth)

    context = prompt + new // 2
    step_flops = batch * (forward(spec, context, causal=True).count - forward(spec, context - 1, causal=True).count)
    step_bytes = read + kv_cache(spec, context, batch, kv_dtype).count
    step = Phase(step_flops, step_bytes, step_flops / peak, step_bytes / bandwidth)
    return Speed(prefill, step, batch, prompt, new, context, touched)
