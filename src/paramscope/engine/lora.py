"""LoRA adapters as PEFT builds them: for each targeted linear layer of ``in`` inputs and ``out`` outputs, ``A`` is
``rank × in`` and ``B`` is ``out × rank``, so ``rank × (in + out)`` trainable parameters (no biases).

Targets, as PEFT names them:

* ``all-linear``: every ``nn.Linear`` (and GPT-2's ``Conv1D``) except the output layer (``lm_head``), as
  ``LoraConfig(target_modules="all-linear")`` selects them;
* ``attn``: the attention projections only (q, k, v, o, or their fused and low-rank forms; a hybrid's
  linear-attention, lightning-attention and RWKV time-mixing projections, JetMoE's key/value projection and
  attention router, Zamba2's per-use q/k/v adapters: every linear layer PEFT finds inside an attention module).

The parameter tree knows the sizes; ``Spec.fused`` (set by the family row) says which projections the classes
build as one layer (GPT-2's ``c_attn``, Phi-3's ``gate_up_proj``), since PEFT adapts modules, not matrices.
"""

from __future__ import annotations

import re

from paramscope.engine.params import count
from paramscope.engine.spec import ATTENTION_GROUPS, Spec
from paramscope.engine.tree import Node, group

TARGETS = ("all-linear", "attn")
#: linear: Gated DeltaNet's projections; time_mixing: RWKV's, which PEFT finds under ``attention``; lightning:
#: MiniMax's, under ``self_attn``; full and shared_kv: Gemma 4's groups of attention layers; the compressors:
#: DeepSeek-V4's, under ``self_attn``; pool/out_proj: SigLIP's pooling head, an ``nn.MultiheadAttention`` named
#: ``attention`` (its in_proj is a parameter, not a linear layer)
_ATTENTION = re.compile(
    "(^|/)({})/|^head/pool/out_proj$".format(
        "|".join(
            (*ATTENTION_GROUPS, "cross_attention", "linear_attention", "time_mixing", "lightning")
            + ("csa_compressor", "hca_compressor")
        )
    )
)

#: The routed experts' stacked 3-D tensors (transformers 5; JetMoE's attention experts too): not nn.Linear modules
_EXPERTS = re.compile(r"(^|/)(moe|attention)/experts/")
#: dense MLPs and shared experts: their layers share the transformers 4 names of the expert layers
_MLP = re.compile(r"(^|/)(mlp|moe/shared_experts)/")


def _modules(path: str, n_in: int, n_out: int, spec: Spec) -> list[tuple[int, int]]:
    """The ``(in, out)`` of each linear module a tree leaf stands for (a fused leaf may be several modules)."""
    name = path.rsplit("/", 1)[-1]
    if name == "qkv" and "qkv" not in spec.fused:  # q: the rest (with its output gate, if any)
        k, v = spec.kv_heads * spec.head_size, spec.kv_heads * spec.value_size
        outs = (k, v)[: spec.kv_projections]
        return [(n_in, n_out - sum(outs)), *[(n_in, o) for o in outs]]
    if name == "in_qkvz" and "in_qkvz" not in spec.fused:
        z = spec.linear_num_value_heads * spec.linear_value_head_dim
        if "in_qkv" in spec.fused:  # Qwen3.5: in_proj_qkv and in_proj_z
            return [(n_in, n_out - z), (n_in, z)]
        key = (n_out - 2 * z) // 2  # OLMo Hybrid: q_proj, k_proj, v_proj and g_proj
        return [(n_in, key), (n_in, key), (n_in, z), (n_in, z)]
    if name == "in_ba" and "in_ba" not in spec.fused:  # Qwen3.5, OLMo Hybrid: b and a apart
        return [(n_in, n_out // 2), (n_in, n_out // 2)]
    return [(n_in, n_out)]


def _adapted_copies(leaf: Node, spec: Spec) -> tuple[int, str]:
    """How many linear modules PEFT adapts for a tree leaf, and the formula of that number. Zamba2: a shared block's
    weights are tied across its uses, but each use is a module of its own, which PEFT adapts apart; each of those
    modules holds the per-use adapters of all its block's uses, so a block used u times adapts u × u of them (the uses
    go round-robin over the blocks)."""
    if leaf.path.startswith("layers/shared_block/"):
        return spec.shared_block_uses, "shared_block_uses"
    if leaf.path.startswith("layers/shared_block_adapters/"):
        uses, blocks = spec.shared_block_uses, spec.shared_blocks
        per_block = [uses // blocks + (b < uses % blocks) for b in range(blocks)]
        return sum(u * u for u in per_block), "sum of each shared block's uses squared"
    return leaf.repeat, leaf.repeat_name


def _expert_tensor(leaf: Node, rank: int, spec: Spec) -> list[Node]:
    """PEFT's ``ParamWrapper`` on a stacked expert tensor: ``A`` is ``(rank × experts) × in`` and ``B`` is
    ``out × (rank × experts)``, per MoE layer; gate and up are one tensor (gate_up_proj) adapted at twice the rank,
    as PEFT converts the two transformers 4 targets it stands for."""
    name = leaf.path.rsplit("/", 1)[-1]
    n_in, n_out, _ = leaf.matrix or (0, 0, "")
    layers = leaf.repeat // spec.num_experts
    e = spec.num_experts + (spec.zero_experts if name == "gate" else 0)  # LongCat's gate_up has the zero slots too
    if name == "up" and spec.mlp_gated:
        return []  # held by gate_up_proj, counted with gate
    if name == "gate":
        r, n_out, what = 2 * rank, 2 * n_out, "2r*E*(in + 2*out), gate_up_proj"
    else:
        r, what = rank, "r*E*(in + out)"
    formula = f"{r}*{e}*({n_in} + {n_out})"
    return [Node(f"lora/{leaf.path}", r * e * (n_in + n_out) * layers, formula, repeat=layers, note=what)]


def lora_params(spec: Spec, rank: int, targets: str = "all-linear") -> Node:
    """The adapter tree: one node per targeted layer kind with ``rank × (in + out)`` per module, times its copies.

    ``spec.fused`` names the projections the classes build as one linear layer (``qkv``; ``gate_up``: the gate
    leaf then also holds up). Routed experts are 3-D tensors in transformers 5: ``all-linear`` adapts them, and the
    router's weight, only on the types PEFT converts (``spec.lora_moe``), and leaves them frozen elsewhere.
    """
    if targets not in TARGETS:
        raise ValueError(f"lora targets: expected one of {', '.join(TARGETS)}, got {str(targets)[:40]!r}")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"lora rank: expected a whole number of at least 1, got {rank!r}")
    if spec.towers_params:
        raise ValueError(
            "lora targets: PEFT adapts the vision and audio towers' linear layers too, which have no formulas here; "
            "size LoRA on its language model alone (text_config)"
        )
    kinds = spec.stack(spec.num_hidden_layers, "num_hidden_layers")
    if targets == "attn" and spec.ssm_layers and not kinds.attention:
        raise ValueError(
            "lora targets: a model that is all state-space (Mamba) layers has no attention projections: use all-linear"
        )
    if targets == "attn" and spec.attention_gate_proj and spec.lora_moe == "tensors":
        raise ValueError(
            "lora targets: PEFT refuses attn on this type: the attention's gate_proj shares its name with the expert "
            "layers PEFT converts, which attn leaves out: use all-linear"
        )
    if targets == "all-linear" and spec.ssm_layers and spec.lora_refuses_ssm:
        raise ValueError(
            "lora targets: PEFT refuses LoRA on the out_proj and conv1d of this type's state-space (Mamba) mixers"
            + (", and it has no attention projections" if not kinds.attention else ": use attn")
        )
    parts: list[Node] = []
    built_with = {f"layers/{g.path}/": g.spec for g in spec.attention_groups(kinds)}  # Gemma 4's own widths
    for leaf in count(spec).leaves():
        m = leaf.matrix
        if not m or leaf.path.startswith("head/lm"):  # tables, norms and convolutions are no linear layers
            continue
        if targets == "attn" and not _ATTENTION.search(leaf.path):
            continue
        if targets == "attn" and spec.linear_kind == "rglru" and "/linear_attention/" in leaf.path:
            continue  # Griffin's recurrent block is no attention module to PEFT (RecurrentGemma's temporal_block)
        if _EXPERTS.search(leaf.path):
            if spec.lora_moe == "tensors":
                parts += _expert_tensor(leaf, rank, spec)
            continue
        if spec.is_moe and leaf.path.endswith("moe/router") and spec.lora_moe == "frozen":
            continue  # a router module holding its weight as a parameter, not a linear layer
        if spec.lora_moe == "tensors" and (_MLP.search(leaf.path) or leaf.path.endswith("attention/gate")):
            # PEFT's conversion retargets gate_proj, up_proj and down_proj to the expert tensors (AFMoE's attention
            # gate is a gate_proj too)
            continue
        if leaf.path.endswith("/up") and "gate_up" in spec.fused:
            continue  # counted with gate: one gate_up_proj layer
        n_in, n_out, _ = m
        if leaf.path.endswith("/gate") and "gate_up" in spec.fused:
            n_out *= 2
        own = next((s for path, s in built_with.items() if leaf.path.startswith(path)), spec)
        modules = _modules(leaf.path, n_in, n_out, own)
        per_copy = rank * sum(i + o for i, o in modules)
        formula = " + ".join(f"r*({i} + {o})" for i, o in modules)
        repeat, name = _adapted_copies(leaf, spec)
        parts.append(Node(f"lora/{leaf.path}", per_copy * repeat, formula, repeat=repeat, repeat_name=name))
    if targets == "attn" and not parts:  # xLSTM's mLSTM cells: PEFT finds no module for attn, and refuses
        raise ValueError("lora targets: this model has no attention projections (PEFT finds no module): use all-linear")
    return group("lora", parts)
