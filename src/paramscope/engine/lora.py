"""LoRA adapters as PEFT builds them: for each targeted linear layer of ``in`` inputs and ``out`` outputs, ``A`` is
``rank × in`` and ``B`` is ``out × rank``, so ``rank × (in + out)`` trainable parameters (no biases).

Targets, as PEFT names them:

* ``all-linear``: every ``nn.Linear`` (and GPT-2's ``Conv1D``) except the output layer (``lm_head``), as
  ``LoraConfig(target_modules="all-linear")`` selects them;
* ``attn``: the attention projections only (q, k, v, o, or their fused and low-rank forms; a hybrid's
  linear-attention projections too, as PEFT finds them under ``linear_attn``).

The parameter tree knows the sizes; ``Spec.fused`` (set by the family row) says which projections the classes
build as one layer (GPT-2's ``c_attn``, Phi-3's ``gate_up_proj``), since PEFT adapts modules, not matrices.
"""

from __future__ import annotations

import re

from paramscope.engine.params import count
from paramscope.engine.spec import Spec
from paramscope.engine.tree import Node, group

TARGETS = ("all-linear", "attn")
#: linear: Gated DeltaNet's projections; time_mixing: RWKV's, which PEFT finds under ``attention``
_ATTENTION = re.compile(r"(^|/)((cross_|linear_)?attention|time_mixing)/")
#: nn.Embedding tables, which all-linear leaves alone (T5's relative bias, DeBERTa's relative positions too)
_TABLE = re.compile(r"(^|/)(embedding/(token|position|token_type)|relative_attention_bias|relative_position)$")


def _modules(path: str, n_in: int, n_out: int, spec: Spec) -> list[tuple[int, int]]:
    """The ``(in, out)`` of each linear module a tree leaf stands for (a fused leaf may be several modules)."""
    name = path.rsplit("/", 1)[-1]
    if name == "qkv" and "qkv" not in spec.fused:
        q = spec.num_attention_heads * spec.head_size
        kv = spec.kv_heads * spec.head_size
        return [(n_in, q), (n_in, kv), (n_in, kv)]
    return [(n_in, n_out)]


def lora_params(spec: Spec, rank: int, targets: str = "all-linear") -> Node:
    """The adapter tree: one node per targeted layer kind with ``rank × (in + out)`` per module, times its copies.

    ``spec.fused`` names the projections the classes build as one linear layer (``qkv``; ``gate_up``: the gate
    leaf then also holds up). Mixture-of-experts models take ``attn`` only: transformers 5 stores experts as 3-D
    tensors, which PEFT adapts with rules of its own (``ParamWrapper``) that are not modelled here.
    """
    if targets not in TARGETS:
        raise ValueError(f"lora targets: expected one of {', '.join(TARGETS)}, got {str(targets)[:40]!r}")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"lora rank: expected a whole number of at least 1, got {rank!r}")
    if spec.ssm_layers and (targets == "all-linear" or spec.ssm_layers == spec.num_hidden_layers):
        raise ValueError(
            "lora targets: PEFT refuses LoRA on the out_proj and conv1d of a state-space (Mamba) mixer in some "
            "families and not in others; all-linear on them is not modelled, and a model that is all Mamba has no "
            "attention projections" + ("" if spec.ssm_layers == spec.num_hidden_layers else ": use attn")
        )
    if targets == "all-linear" and spec.is_moe:
        raise ValueError(
            "lora targets: all-linear on a mixture-of-experts model adapts its 3-D expert tensors by PEFT's own "
            "rules, not modelled here; use attn"
        )
    parts: list[Node] = []
    for leaf in count(spec).leaves():
        m = leaf.matrix
        if not m or leaf.path.startswith("head/lm") or _TABLE.search(leaf.path):
            continue
        if targets == "attn" and not _ATTENTION.search(leaf.path):
            continue
        if leaf.path.endswith("/up") and "gate_up" in spec.fused:
            continue  # counted with gate: one gate_up_proj layer
        n_in, n_out = m
        if leaf.path.endswith("/gate") and "gate_up" in spec.fused:
            n_out *= 2
        modules = _modules(leaf.path, n_in, n_out, spec)
        per_copy = rank * sum(i + o for i, o in modules)
        formula = " + ".join(f"r*({i} + {o})" for i, o in modules)
        parts.append(Node(f"lora/{leaf.path}", per_copy * leaf.repeat, formula, repeat=leaf.repeat))
    return group("lora", parts)
