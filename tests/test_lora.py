"""LoRA adapters against PEFT itself: ``get_peft_model`` on the transformers class built on the meta device."""

from __future__ import annotations

import logging
import warnings

import pytest
from hf_oracle import READ_AS, hf_class

from paramscope.engine.lora import lora_params
from paramscope.families import FAMILIES, read
from paramscope.io import presets

LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "encoder_layers", "decoder_layers", "num_decoder_layers")


def _one_per_type() -> list[str]:
    """The first preset of each model type (a transformers class exists for all but ParamScope's own)."""
    seen: dict[str, str] = {}
    for name in presets.row_names():
        seen.setdefault(presets.get(name).config["model_type"], name)
    return [name for mt, name in sorted(seen.items()) if mt != "paramscope"]


def small(config: dict) -> dict:
    """The preset with at most two layers of each stack (and per-layer lists to match): quick to build and adapt."""
    out = {k: (min(v, 2) if k in LAYER_KEYS and isinstance(v, int) else v) for k, v in config.items()}
    for key in ("layer_types", "no_rope_layers", "attention_layers"):
        if isinstance(out.get(key), list):
            out[key] = out[key][:2]
    if isinstance(out.get("attention_types"), list):  # GPT-Neo's (types, times) groups
        out["attention_types"] = [[out.get("attention_layers", ["global", "local"]), 1]]
    if "first_k_dense_replace" in out:
        out["first_k_dense_replace"] = 1
    # hybrids keep one layer of each kind: LFM2 and Jamba an attention layer beside the other mixer, Nemotron-H each
    # block of its pattern once
    if isinstance(out.get("full_attn_idxs"), list):
        out["full_attn_idxs"] = [1]
    if "attn_layer_period" in out:
        out.update(attn_layer_period=2, attn_layer_offset=1)
    if isinstance(out.get("layers_block_type"), list):  # Zamba: two hybrid layers (one alone cannot be tied)
        out["layers_block_type"] = ["hybrid", "hybrid"]
    if isinstance(out.get("hybrid_override_pattern"), str):
        out["hybrid_override_pattern"] = "".join(dict.fromkeys(out["hybrid_override_pattern"]))
    if isinstance(out.get("linear_attn_config"), dict):  # Kimi Linear: a delta-attention layer, then a full one
        out["linear_attn_config"] = {**out["linear_attn_config"], "kda_layers": [1], "full_attn_layers": [2]}
    return out


def peft_trainable(config: dict, rank: int, targets: str) -> int:
    """Trainable parameters of ``get_peft_model(model, LoraConfig(r=rank, target_modules=...))``: ``all-linear``, or
    the attention projections (every linear layer under a module named or typed as attention)."""
    import torch
    import transformers
    from peft import LoraConfig, get_peft_model

    cfg = dict(config)
    model_type = cfg.pop("model_type")
    spec = read(config).spec
    cls = hf_class(model_type, cfg.get("architectures", [FAMILIES[model_type].class_name(spec.architecture)])[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        try:
            hf = transformers.AutoConfig.for_model(READ_AS.get(model_type, model_type), **cfg)
            with torch.device("meta"):
                model = cls(hf)
                linear = (torch.nn.Linear, transformers.pytorch_utils.Conv1D)
                target: str | list[str] = targets
                if targets == "attn":  # by module name, or by class where a block calls it "mixer" (Nemotron-H)
                    words = ("attn", "attention", "SelfAttention", "EncDecAttention")
                    words += tuple(f"{n}." for n, m in model.named_modules() if type(m).__name__.endswith("Attention"))
                    target = [  # full module names: a suffix such as c_proj or dense names MLP layers too
                        name
                        for name, module in model.named_modules()
                        if isinstance(module, linear) and any(w in name for w in words)
                    ]
                peft_model = get_peft_model(model, LoraConfig(r=rank, target_modules=target))
        finally:
            logging.disable(logging.NOTSET)
    return sum(p.numel() for p in peft_model.parameters() if p.requires_grad)


SMALL_SPECS = {name: read(small(presets.get(name).config)).spec for name in _one_per_type()}
CASES = [
    (name, rank, targets)
    for name, spec in SMALL_SPECS.items()
    for rank, targets in ((8, "all-linear"), (4, "attn"), (64, "attn"))
    if not (targets == "all-linear" and spec.ssm_layers) and spec.ssm_layers < spec.num_hidden_layers
]


@pytest.mark.parametrize(("name", "rank", "targets"), CASES)
def test_adapters_match_peft(name: str, rank: int, targets: str) -> None:
    """Every model type, its fused projections included (GPT-2's c_attn, GPT-NeoX's query_key_value, Phi-3's
    qkv_proj and gate_up_proj) and its experts (3-D tensors PEFT adapts on the types it converts, frozen on the
    others), gets exactly the adapter parameters PEFT builds."""
    config = small(presets.get(name).config)
    assert peft_trainable(config, rank, targets) == lora_params(read(config).spec, rank, targets).count


@pytest.mark.parametrize("targets", ["all-linear", "attn"])
def test_state_space_models_are_refused(targets: str) -> None:
    """Mamba has no attention (PEFT finds no module for attn) and PEFT refuses LoRA on its out_proj and conv1d
    (all-linear): both targets are refused, as PEFT refuses them."""
    config = small(presets.get("mamba-130m-hf").config)
    with pytest.raises(ValueError, match="incompatible with Mamba" if targets == "all-linear" else "target_modules"):
        peft_trainable(config, 8, targets)
    with pytest.raises(ValueError, match="state-space"):
        lora_params(read(config).spec, 8, targets)


def _types_without_preset() -> list[str]:
    """One differential case per model type that has no preset (its small config from those tests)."""
    from test_engine_vs_hf import CASES

    with_preset = {presets.get(n).config["model_type"] for n in presets.row_names()}
    chosen: dict[str, str] = {}
    for name, config in CASES.items():
        if config["model_type"] not in with_preset and config["model_type"] in FAMILIES:
            chosen.setdefault(config["model_type"], name)
    return sorted(chosen.values())


@pytest.mark.parametrize("targets", ["all-linear", "attn"])
@pytest.mark.parametrize("case", _types_without_preset())
def test_types_without_a_preset_match_peft(case: str, targets: str) -> None:
    """Every other model type, both targets: the layers adapted (experts, routers, shared and dense MLPs, Gated
    DeltaNet and Mamba projections, Zamba2's shared blocks) give PEFT's trainable count exactly, or PEFT refuses and
    so does ParamScope (Mamba out_proj on the types PEFT lists as Mamba-based, attn on a model with no attention,
    AFMoE's attention gate_proj)."""
    from test_engine_vs_hf import CASES

    config = CASES[case]
    try:
        expected = peft_trainable(config, 8, targets)
    except Exception:  # noqa: BLE001 - PEFT refuses with its own errors
        with pytest.raises(ValueError, match="lora targets"):
            lora_params(read(config).spec, 8, targets)
    else:
        assert expected == lora_params(read(config).spec, 8, targets).count


@pytest.mark.parametrize("rank", [4, 16])
@pytest.mark.parametrize(
    ("kinds", "blocks"),
    [("mhmh", 1), ("mhmh", 2), ("hhmhhh", 1), ("hhmhhh", 2), ("hhmhhh", 3)],
)
def test_zamba2_attention_adapters_match_peft(rank: int, kinds: str, blocks: int) -> None:
    """Zamba2's shared attention is adapted once per use, as PEFT does (each use is a module of its own, its weights
    tied to the block's); each such module holds the q/k/v adapter pairs of all its block's uses, so a block used u
    times adapts u × u pairs: one block for all hybrid layers, one each, or uses spread round-robin over the blocks.
    The MLP adapters are not attention."""
    from test_engine_vs_hf import ZAMBA2

    types = [{"m": "mamba", "h": "hybrid"}[k] for k in kinds]
    config = dict(
        ZAMBA2,
        num_hidden_layers=len(types),
        layers_block_type=types,
        num_mem_blocks=blocks,
        use_shared_attention_adapter=True,
        use_shared_mlp_adapter=True,
        num_key_value_heads=2,
    )
    assert peft_trainable(config, rank, "attn") == lora_params(read(config).spec, rank, "attn").count


@pytest.mark.parametrize("targets", ["all-linear", "attn"])
@pytest.mark.parametrize("tied", [True, False])
def test_zamba_adapters_match_peft(targets: str, tied: bool) -> None:
    """Zamba's every layer is a Mamba mixer, which the preset tests pass by: its in_proj and out_proj are adapted, not
    x_proj and dt_proj (parameter tensors); the shared block once per use (each hybrid layer holds it as a module of
    its own, tied or not), each use's own linear layer beside it."""
    config = dict(small(presets.get("zamba-7b-v1").config), tie_word_embeddings=tied)
    assert peft_trainable(config, 8, targets) == lora_params(read(config).spec, 8, targets).count


@pytest.mark.parametrize("weight_mode", ["single", "fused"])
@pytest.mark.parametrize("use_bias", [False, True])
def test_xlstm_adapters_match_peft(weight_mode: str, use_bias: bool) -> None:
    """xLSTM under all-linear: each mLSTM projection (q, k, v, the output gate, the input and forget gates, out_proj;
    in weight_mode "fused" qkv_opreact and ifgate_preact, one module each) and the feed-forward block's (gate and up
    one proj_up_gate_z when fused) are adapted, as PEFT builds them; attn finds no attention module and is refused by
    PEFT and by ParamScope."""
    from test_engine_vs_hf import XLSTM

    config = dict(XLSTM, weight_mode=weight_mode, use_bias=use_bias)
    assert peft_trainable(config, 8, "all-linear") == lora_params(read(config).spec, 8, "all-linear").count
    with pytest.raises(ValueError, match="target_modules"):
        peft_trainable(config, 8, "attn")
    with pytest.raises(ValueError, match="lora targets"):
        lora_params(read(config).spec, 8, "attn")


def test_mixtral_experts_adapted_as_peft_converts_them() -> None:
    """Mixtral 8x7B, all-linear at rank 16, written out by hand per layer: q and o 16 × (4,096 + 4,096), k and v
    16 × (4,096 + 1,024), the router 16 × (4,096 + 8), the 8 experts' gate_up_proj at twice the rank
    (2 × 16 × 8) × (4,096 + 2 × 14,336) and their down_proj (16 × 8) × (14,336 + 4,096); 32 layers."""
    attention = 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024))
    experts = 2 * 16 * 8 * (4096 + 2 * 14336) + 16 * 8 * (14336 + 4096)
    assert 32 * (attention + 16 * (4096 + 8) + experts) == lora_params(presets.load("mixtral-8x7b"), 16).count


@pytest.mark.parametrize(
    "case",
    ["llama4-vision", "pixtral", "qwen3_5-vision", "qwen2_5_vl-vision", "qwen3_vl_moe-vision-deepstack", "clip-vision"]
    + [
        "siglip-vision-head",
        "vit-classifier-num-labels-no-qkv-bias",
        "gemma4-vision",
        "qwen2_vl-vision",
        "glm4v-vision",
    ],
)
def test_vision_towers_match_peft(case: str) -> None:
    """Vision towers under all-linear: Llama 4's unfolded patch layer is a linear layer PEFT adapts, the patch
    convolutions are not, nor is SigLIP's attention-pooling in_proj (a bare parameter of nn.MultiheadAttention);
    fused qkv layers and the mergers count as PEFT builds them."""
    from test_engine_vs_hf import CASES

    config = CASES[case]
    assert peft_trainable(config, 4, "all-linear") == lora_params(read(config).spec, 4, "all-linear").count


@pytest.mark.parametrize(
    "case", ["gemma4_text-per-layer-inputs-wide-full-layers", "gemma4_text-k-eq-v-shared-kv-double-wide"]
)
@pytest.mark.parametrize("targets", ["all-linear", "attn"])
def test_gemma4_layers_of_their_own_widths_match_peft(case: str, targets: str) -> None:
    """Gemma 4 under LoRA: the full-attention layers' q, k, v and o at their own width, no v_proj where the values are
    the keys' projection, no k or v where a layer reuses them, the per-layer input gates and projections, as PEFT
    builds them."""
    from test_engine_vs_hf import CASES

    config = CASES[case]
    assert peft_trainable(config, 8, targets) == lora_params(read(config).spec, 8, targets).count


@pytest.mark.parametrize("case", ["gemma3n_text-altup-laurel-shared-kv", "gemma3n_text-untied-biases-widths-per-layer"])
@pytest.mark.parametrize("targets", ["all-linear", "attn"])
def test_gemma3n_altup_and_laurel_match_peft(case: str, targets: str) -> None:
    """Gemma 3n under LoRA: AltUp's projections in and out, each layer's router and its prediction and correction
    coefficients (small linear layers all), LAuReL's two projections and the per-layer input gates are adapted by
    all-linear, none of them by attn; no k or v where a layer reuses them; as PEFT builds it."""
    from test_engine_vs_hf import CASES

    config = CASES[case]
    assert peft_trainable(config, 8, targets) == lora_params(read(config).spec, 8, targets).count


@pytest.mark.parametrize("targets", ["all-linear", "attn"])
def test_deepseek_v4_compressors_are_attention_to_peft(targets: str) -> None:
    """DeepSeek-V4 under LoRA: the query bottleneck, the one key/value head, the grouped output (a linear layer per
    PEFT), and under ``attn`` the compressors and indexer too (they live in self_attn); the router and the
    hyper-connections are bare parameters and stay frozen, as PEFT builds it."""
    from test_engine_vs_hf import CASES

    config = CASES["deepseek_v4-layer-kinds-hyper-connections"]
    assert peft_trainable(config, 8, targets) == lora_params(read(config).spec, 8, targets).count


@pytest.mark.parametrize("targets", ["all-linear", "attn"])
@pytest.mark.parametrize(
    "case",
    ["blip_2-vision", "blip_2-qformer-cross-every-third-layer", "blip_2-qformer-text-input-cross-every-layer"],
)
def test_blip_2_towers_match_peft(case: str, targets: str) -> None:
    """BLIP-2's towers under LoRA: the vision tower's fused qkv is one linear layer to PEFT; the Q-Former's query, key
    and value are three, its cross-attention's keys and values read the encoder's width, and the text tokens' MLP
    is adapted beside the queries' under all-linear, as PEFT builds them."""
    from test_engine_vs_hf import CASES

    config = CASES[case]
    assert peft_trainable(config, 4, targets) == lora_params(read(config).spec, 4, targets).count


@pytest.mark.parametrize("targets", ["all-linear", "attn"])
@pytest.mark.parametrize("text", ["opt", "t5"])
def test_blip_2_whole_matches_peft(text: str, targets: str) -> None:
    """LoRA on a whole BLIP-2 (over OPT or T5): PEFT's adapters on Blip2ForConditionalGeneration are its towers'
    adapters, as each tower's row counts them, and language_projection's under all-linear (the query tokens are a
    bare parameter; the LM head is left out)."""
    import copy

    import torch
    import transformers
    from peft import LoraConfig, get_peft_model
    from test_wholes import BLIP_2, SMALL

    from paramscope.model import Model

    config = {"model_type": "blip-2", **copy.deepcopy(SMALL["blip-2"] if text == "opt" else BLIP_2["t5-tied"])}
    rest = {k: v for k, v in copy.deepcopy(config).items() if k != "model_type"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.device("meta"):
            model = transformers.Blip2ForConditionalGeneration(transformers.Blip2Config(**rest))
        target: str | list[str] = targets
        if targets == "attn":  # as peft_trainable picks them: linear layers under a module named as attention
            words = ("attn", "attention", "SelfAttention", "EncDecAttention")
            target = [
                name
                for name, module in model.named_modules()
                if isinstance(module, torch.nn.Linear) and any(w in name for w in words)
            ]
        peft_model = get_peft_model(model, LoraConfig(r=4, target_modules=target))
    peft = sum(p.numel() for p in peft_model.parameters() if p.requires_grad)
    whole = Model.from_config(config)
    towers = sum(lora_params(tower.spec, 4, targets).count for _, tower in whole.towers)
    q, t = whole.towers[2][1].spec.hidden_size, whole.towers[0][1].spec.hidden_size  # Q-Former, language model
    projection = 4 * (q + t) if targets == "all-linear" else 0
    assert [role for role, _ in whole.towers] == ["language model", "vision tower", "Q-Former"]
    assert peft == towers + projection
