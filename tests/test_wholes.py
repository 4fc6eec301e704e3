"""Whole-model rows (``families/wholes.py``): a vision-language or dual-encoder config counted with formulas from its
towers' rows and its projector, checked against the whole transformers class built on the meta device."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramscope.families.wholes import WHOLES
from paramscope.model import FOLLOW_LAYERS, Model

hf = pytest.importorskip("transformers")

#: Small towers, each a valid sub-config of its type.
_TEXT = dict(vocab_size=100, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4)
_TEXT_KV = _TEXT | dict(num_key_value_heads=2)
_VISION = dict(hidden_size=16, intermediate_size=24, num_hidden_layers=1, num_attention_heads=2)
_QWEN_VISION = dict(depth=1, hidden_size=16, num_heads=2, intermediate_size=24, patch_size=4, out_hidden_size=32)
_QWEN3_5_TEXT = _TEXT_KV | dict(num_hidden_layers=4, head_dim=8, linear_num_key_heads=2, linear_num_value_heads=4)
_QWEN3_5_TEXT |= dict(linear_key_head_dim=6, linear_value_head_dim=5, linear_conv_kernel_dim=3)
_MOE = dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16)
_GEMMA4_AUDIO = dict(
    hidden_size=16, num_hidden_layers=1, num_attention_heads=2, subsampling_conv_channels=[8, 4], output_proj_dims=24
)
_OPT = dict(vocab_size=100, hidden_size=32, ffn_dim=48, num_hidden_layers=2, num_attention_heads=4)
_OPT |= dict(word_embed_proj_dim=32, max_position_embeddings=64)
#: BLIP-2's Q-Former, its encoder_hidden_size unlike the vision tower's width: the whole config overwrites it
_QFORMER = dict(_VISION, hidden_size=24, num_hidden_layers=3, num_attention_heads=4, encoder_hidden_size=999)
_T5 = dict(model_type="t5", vocab_size=100, d_model=32, d_ff=48, num_layers=2, num_heads=4, d_kv=8)

_GEMMA3N_TEXT = _TEXT_KV | dict(head_dim=8, hidden_size_per_layer_input=8, vocab_size_per_layer_input=100)
_GEMMA3N_TEXT |= dict(laurel_rank=4, num_kv_shared_layers=0, pad_token_id=0)
_GEMMA3N_AUDIO = dict(hidden_size=16, conf_num_hidden_layers=1, conf_num_attention_heads=2, input_feat_size=20)
_GEMMA3N_AUDIO |= dict(sscp_conv_channel_size=[8, 4], sscp_conv_kernel_size=[[3, 5], [2, 3]], vocab_size=7)
#: Phi-4-multimodal's towers, small: its audio Conformer (NeMo subsampling of two stages) and its SigLIP-like vision
#: tower; its language model (Phi-3's) is the whole config's own top-level keys
_PHI4MM_AUDIO = dict(hidden_size=16, intermediate_size=24, num_blocks=2, num_attention_heads=2, nemo_conv_channels=4)
_PHI4MM_AUDIO |= dict(ext_pw_out_channel=16, depthwise_separable_out_channel=16, time_reduction=4, input_size=20)
_PHI4MM_AUDIO |= dict(bias_max_distance=10)
#: The Perception Encoder's arguments to timm in PerceptionLM's checkpoints (transformers' conversion script writes
#: them): 448-pixel tiles, no pooling head, no norm after the blocks, layer scale; the large PE (1B, 3B), the gigantic
#: (8B).
_PE = {"img_size": [448, 448], "global_pool": "", "use_post_transformer_norm": False, "ref_feat_shape": [32, 32]}
PE_LARGE = _PE | {"embed_dim": 1024, "depth": 23, "init_values": 0.1}
PE_GIGANTIC = _PE | {"embed_dim": 1536, "depth": 47, "init_values": 0.1}

#: A small whole config of every whole-model row: its text and vision sub-configs and top-level keys.
SMALL: dict[str, dict[str, Any]] = {
    "llava": dict(
        text_config=dict(model_type="llama", **_TEXT),
        vision_config=dict(model_type="clip_vision_model", **_VISION, image_size=32, patch_size=8),
    ),
    "llava_next": dict(
        text_config=dict(model_type="llama", **_TEXT),
        vision_config=dict(model_type="clip_vision_model", **_VISION, image_size=32, patch_size=8),
        vision_feature_layer=[-2, -1],
    ),
    "llava_onevision": dict(
        text_config=dict(model_type="qwen2", **_TEXT_KV),
        vision_config=dict(model_type="siglip_vision_model", **_VISION, image_size=32, patch_size=8),
    ),
    "paligemma": dict(
        text_config=dict(model_type="gemma", **_TEXT_KV, head_dim=8),
        vision_config=dict(model_type="siglip_vision_model", **_VISION, image_size=32, patch_size=8),
        projection_dim=32,
    ),
    "gemma3": dict(
        text_config=dict(model_type="gemma3_text", **_TEXT_KV, head_dim=8),
        vision_config=dict(model_type="siglip_vision_model", **_VISION, image_size=32, patch_size=8),
        mm_tokens_per_image=4,
    ),
    "mistral3": dict(
        text_config=dict(model_type="mistral", **_TEXT_KV, head_dim=8),
        vision_config=dict(model_type="pixtral", **_VISION, image_size=64, patch_size=16, head_dim=8),
        tie_word_embeddings=False,
    ),
    "idefics3": dict(
        text_config=dict(model_type="llama", **_TEXT),
        vision_config=dict(**_VISION, image_size=64, patch_size=16),
        scale_factor=2,
    ),
    "smolvlm": dict(
        text_config=dict(model_type="llama", **_TEXT),
        vision_config=dict(**_VISION, image_size=64, patch_size=16),
        scale_factor=4,
    ),
    "aya_vision": dict(
        text_config=dict(model_type="cohere2", **_TEXT_KV),
        vision_config=dict(model_type="siglip_vision_model", **_VISION, image_size=32, patch_size=8),
        alignment_intermediate_size=40,
    ),
    "internvl": dict(
        text_config=dict(model_type="qwen2", **_TEXT_KV),
        vision_config=dict(**_VISION, image_size=16, patch_size=4),
    ),
    "llama4": dict(
        text_config=dict(
            _TEXT_KV, hidden_size=64, intermediate_size=96, intermediate_size_mlp=128, head_dim=16, num_local_experts=2
        ),
        vision_config=dict(_VISION, hidden_size=32, intermediate_size=48, image_size=28, patch_size=14)
        | dict(projector_input_dim=20, projector_output_dim=20, vision_output_dim=40),
    ),
    "mllama": dict(
        text_config=_TEXT_KV | dict(num_hidden_layers=3, cross_attention_layers=[1], pad_token_id=0),
        vision_config=dict(_VISION, image_size=28, patch_size=14, num_global_layers=1, vision_output_dim=40),
    ),
    "gemma4": dict(
        text_config=_TEXT_KV
        | dict(hidden_size=64, head_dim=16, global_head_dim=32, hidden_size_per_layer_input=8, pad_token_id=0)
        | dict(vocab_size_per_layer_input=100, layer_types=["sliding_attention", "full_attention"]),
        vision_config=dict(_VISION, hidden_size=32, num_key_value_heads=2, head_dim=16, position_embedding_size=20),
        audio_config=_GEMMA4_AUDIO,
    ),
    "gemma3n": dict(  # timm's MobileNetV5 is the one vision tower it takes: its width and hard tokens are small
        text_config=_GEMMA3N_TEXT,
        vision_config=dict(hidden_size=24, vocab_size=5),
        audio_config=_GEMMA3N_AUDIO,
    ),
    "phi4_multimodal": dict(  # no text_config: the language model's keys are the whole config's own
        **_TEXT_KV,
        pad_token_id=0,
        vision_config=dict(_VISION, image_size=28, patch_size=14),
        audio_config=_PHI4MM_AUDIO | dict(downsample_rate=2),
    ),
    "fast_vlm": dict(  # its vision tower is timm's FastViT (the smallest), its width stated beside it
        text_config=dict(_TEXT_KV, model_type="qwen2"),
        vision_config=dict(model_type="timm_wrapper", architecture="fastvit_mci0", hidden_size=1024)
        | dict(model_args={"inference_mode": True}),
    ),
    "perception_lm": dict(  # its vision tower is timm's Perception Encoder as the 1B checkpoint's
        text_config=dict(_TEXT_KV, model_type="llama"),
        vision_config=dict(
            model_type="timm_wrapper", architecture="vit_pe_core_large_patch14_336", model_args=PE_LARGE
        ),
        projector_pooling_ratio=2,
    ),
    "qwen2_vl": dict(
        text_config=_TEXT_KV,
        vision_config=dict(depth=1, embed_dim=16, num_heads=2, mlp_ratio=3, patch_size=4, hidden_size=32),
        tie_word_embeddings=False,
    ),
    "qwen2_5_vl": dict(text_config=_TEXT_KV, vision_config=_QWEN_VISION, tie_word_embeddings=False),
    "qwen3_vl": dict(
        text_config=_TEXT_KV | dict(head_dim=8),
        vision_config=_QWEN_VISION | dict(depth=2, num_position_embeddings=16, deepstack_visual_indexes=[0]),
    ),
    "qwen3_vl_moe": dict(
        text_config=_TEXT_KV | dict(head_dim=8) | _MOE,
        vision_config=_QWEN_VISION | dict(depth=2, num_position_embeddings=16, deepstack_visual_indexes=[0]),
    ),
    "qwen3_5": dict(text_config=_QWEN3_5_TEXT, vision_config=_QWEN_VISION | dict(num_position_embeddings=16)),
    "qwen3_5_moe": dict(
        text_config=_QWEN3_5_TEXT | _MOE | dict(shared_expert_intermediate_size=16),
        vision_config=_QWEN_VISION | dict(num_position_embeddings=16),
    ),
    "glm4v": dict(
        text_config=_TEXT_KV | dict(hidden_size=48),
        vision_config=dict(depth=1, hidden_size=16, num_heads=2, out_hidden_size=48, intermediate_size=20)
        | dict(patch_size=4, image_size=16),
    ),
    "glm4v_moe": dict(
        text_config=_TEXT_KV | dict(hidden_size=48, head_dim=12, n_routed_experts=4, num_experts_per_tok=2),
        vision_config=dict(depth=1, hidden_size=16, num_heads=2, out_hidden_size=48, intermediate_size=20)
        | dict(patch_size=4, image_size=16),
    ),
    "qwen2_audio": dict(
        text_config=dict(_TEXT_KV, model_type="qwen2"),
        audio_config=dict(d_model=16, encoder_layers=1, encoder_attention_heads=2, encoder_ffn_dim=24, num_mel_bins=8),
    ),
    "voxtral": dict(
        text_config=dict(_TEXT_KV, model_type="llama"),
        audio_config=dict(_VISION, num_mel_bins=8, max_source_positions=30),
    ),
    "blip-2": dict(
        text_config=dict(_OPT, model_type="opt"),
        vision_config=dict(_VISION, image_size=32, patch_size=8),
        qformer_config=_QFORMER,
        num_query_tokens=4,
    ),
    "clip": dict(
        text_config=dict(_TEXT, max_position_embeddings=16),
        vision_config=dict(_VISION, image_size=32, patch_size=8),
        projection_dim=24,
    ),
    "siglip": dict(
        text_config=dict(_TEXT, max_position_embeddings=16),
        vision_config=dict(_VISION, image_size=32, patch_size=8),
    ),
    "siglip2": dict(
        text_config=dict(_TEXT, max_position_embeddings=16),
        vision_config=dict(_VISION, num_patches=20, patch_size=8),
    ),
}


#: timm's count of each vision tower Gemma 3n's config can name, measured (not read from the shipped data): timm
#: 1.0.31's ``timm.create_model(name, pretrained=False, num_classes=0)`` built on the meta device, as transformers'
#: TimmWrapperModel builds it, in a throwaway environment with timm installed (torchvision stubbed out).
TIMM_COUNTS = {"mobilenetv5_300m_enc": 294_126_912, "mobilenetv5_300m": 294_126_912, "mobilenetv5_base": 80_598_976}


def _gemma3n_hf_total(hf_config: Any) -> int:
    """Gemma3nForConditionalGeneration as transformers builds it, its timm vision tower swapped out for its measured
    count (``TIMM_COUNTS``; timm is no test requirement): Gemma3nTextModel, Gemma3nAudioEncoder, the two
    Gemma3nMultimodalEmbedders and an lm_head unless the whole config's tie_word_embeddings ties it, on meta."""
    import torch
    from transformers.models.gemma3n import modeling_gemma3n as g

    text = hf_config.text_config
    with torch.device("meta"):
        parts = [
            g.Gemma3nTextModel(text),
            g.Gemma3nAudioEncoder(hf_config.audio_config),
            g.Gemma3nMultimodalEmbedder(hf_config.vision_config, text),
            g.Gemma3nMultimodalEmbedder(hf_config.audio_config, text),
        ]
    head = 0 if hf_config.tie_word_embeddings else text.vocab_size * text.hidden_size
    vision = TIMM_COUNTS[hf_config.vision_config.architecture]
    return vision + head + sum(p.numel() for part in parts for p in part.parameters())


#: timm's count of each vision tower a TimmWrapperConfig (FastVLM's, PerceptionLM's) can name, by architecture and
#: model_args, measured as ``TIMM_COUNTS`` (timm 1.0.31, ``timm.create_model(name, pretrained=False, num_classes=0,
#: **model_args)`` on meta in a throwaway environment), not read from the shipped data.
TIMM_WRAPPER_COUNTS: list[tuple[str, dict[str, Any], int]] = [
    ("resnet50", {}, 23_508_032),
    ("fastvit_mci0", {}, 10_882_176),
    ("fastvit_mci0", {"inference_mode": True}, 10_832_704),
    ("fastvit_mci1", {}, 21_016_832),
    ("fastvit_mci1", {"inference_mode": True}, 20_936_256),
    ("fastvit_mci2", {}, 35_159_360),
    ("fastvit_mci2", {"inference_mode": True}, 35_047_120),
    ("fastvit_mci3", {}, 122_875_584),
    ("fastvit_mci3", {"inference_mode": True}, 122_714_208),
    ("fastvit_mci4", {}, 318_638_336),
    ("fastvit_mci4", {"inference_mode": True}, 318_423_168),
    ("vit_pe_core_large_patch14_336", PE_LARGE, 291_415_040),
    ("vit_pe_core_gigantic_patch14_448", PE_GIGANTIC, 1_740_922_624),
]
#: The projector class of each whole whose vision tower is a TimmWrapperModel, by its modeling module.
_TIMM_PROJECTORS = {"fast_vlm": "FastVlmMultiModalProjector", "perception_lm": "PerceptionLMMultiModalProjector"}


def _timm_wrapper_count(vision: Any) -> int:
    """The measured count (``TIMM_WRAPPER_COUNTS``) of a TimmWrapperConfig's network."""
    args = json.loads(json.dumps(vision.model_args or {}))
    return next(n for name, a, n in TIMM_WRAPPER_COUNTS if (name, a) == (vision.architecture, args))


def _timm_wrapper_hf_total(model_type: str, hf_config: Any) -> int:
    """FastVlmForConditionalGeneration or PerceptionLMForConditionalGeneration as transformers builds it, its timm
    vision tower (TimmWrapperModel) swapped out for its measured count (timm is no test requirement): the language
    model (AutoModel of the text config), the class's own projector, and an lm_head unless the whole config's
    tie_word_embeddings (as the class resolves it) ties it, on meta."""
    import importlib

    import torch

    text = hf_config.text_config
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    with torch.device("meta"):
        parts = [hf.AutoModel.from_config(text), getattr(module, _TIMM_PROJECTORS[model_type])(hf_config)]
    head = 0 if hf_config.tie_word_embeddings else text.vocab_size * text.hidden_size
    vision = _timm_wrapper_count(hf_config.vision_config)
    return vision + head + sum(p.numel() for part in parts for p in part.parameters())


def _hf_total(config: dict[str, Any]) -> int:
    """sum(p.numel()) of the whole transformers class (``WHOLES`` names it) built from ``config`` on meta (Gemma 3n's,
    FastVLM's and PerceptionLM's with their timm vision towers counted apart)."""
    import torch
    from transformers import AutoConfig

    rest = copy.deepcopy(config)
    model_type = rest.pop("model_type")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_config = AutoConfig.for_model(model_type, **rest)
        if model_type == "gemma3n":
            return _gemma3n_hf_total(hf_config)
        if model_type in _TIMM_PROJECTORS:
            return _timm_wrapper_hf_total(model_type, hf_config)
        with torch.device("meta"):
            model = getattr(hf, WHOLES[model_type].class_name)(hf_config)
    return sum(p.numel() for p in model.parameters())


def test_every_whole_row_has_a_small_case() -> None:
    """Each whole-model row is checked below on a small config of its own."""
    assert sorted(WHOLES) == sorted(SMALL)


#: Class defaults transformers builds: every whole except Aya Vision's (its SigLIP's 14 heads do not divide 1,152 in
#: transformers either) and PerceptionLM's (its default vision config, a bare ResNet-50, has no model_args.embed_dim
#: for its projector: transformers cannot build it either, see below). GLM-4.5V's (96 heads over a 4,096 width, 42
#: wide, floored) was refused.
DEFAULTS = sorted(set(WHOLES) - {"aya_vision", "perception_lm"})


@pytest.mark.parametrize("model_type", DEFAULTS)
def test_a_whole_at_its_class_defaults_equals_transformers(model_type: str) -> None:
    """The whole config as the class starts it (``{"model_type": ...}``: the towers' starting values transformers
    declares) is counted with formulas, to the parameter, as transformers builds the whole class."""
    config = {"model_type": model_type}
    model = Model.from_config(config)
    assert ("towers", _hf_total(config)) == (model.counted_by, model.summary.total)


#: The wholes whose language model's keys are the whole config's own (no text_config), by the tower prefix.
WHOLES_AT_TOP = {"phi4_multimodal": ("language_model/",)}


def _tower(config: Any, key: str) -> Any:
    """A tower's config as transformers reads it: ``text_config`` of a whole whose own keys are its language
    model's is the whole config itself."""
    at_top = key == "text_config" and getattr(config, "model_type", None) in WHOLES_AT_TOP
    return config if at_top else getattr(config, key)


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_a_small_whole_equals_transformers_tower_by_tower(model_type: str) -> None:
    """A small whole config: the total equals transformers', the tree holds each tower under its prefix
    (``language_model/``, ``vision/`` or ``audio/``, ``text/``, BLIP-2's ``qformer/``) and every leaf of a tower has a
    formula in the config's nested names."""
    config = {"model_type": model_type, **SMALL[model_type]}
    model = Model.from_config(config)
    tree = model.summary.tree
    assert _hf_total(config) == model.summary.total == sum(n.count for n in tree.children)
    assert {"vision", "audio"} & {n.path for n in tree.children}
    assert {"language_model", "text"} & {n.path for n in tree.children}
    at_top = WHOLES_AT_TOP.get(model_type, ())  # towers whose keys are the whole config's own: named as they are
    for node in tree.walk():
        towers = ("vision/", "audio/", "language_model/", "text/", "qformer/")
        if node.path.startswith(towers) and not node.children and node.count:
            if node.path.startswith(at_top):
                assert "_config." not in node.formula, node.path
            else:
                assert "_config." in node.formula, node.path


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_each_tower_control_shows_what_its_key_holds(model_type: str) -> None:
    """A whole model's tower controls each show what their nested key holds as transformers reads the config (an edit
    writes that key; a per-layer list of one value, as Gemma3nTextConfig spreads its intermediate_size, is shown as
    that value): Mllama's vision layers, counted as the local layers the key states plus the gated global ones, are no
    key's field and get no control."""
    from paramscope.app.controls import tower_controls

    def one(value: Any) -> Any:
        return value[0] if isinstance(value, list) and value and len(set(value)) == 1 else value

    config = {"model_type": model_type, **SMALL[model_type]}
    read = hf.AutoConfig.for_model(**copy.deepcopy(config))
    shown = {nested: value for _, _, nested, value in tower_controls(Model.from_config(config))}
    held = {nested: one(getattr(_tower(read, nested.split(".")[0]), nested.split(".")[1])) for nested in shown}
    assert held == shown


@pytest.mark.parametrize(
    "towers", [{"audio_config": {}}, {"audio_config": {}, "vision_config": {}}], ids=["audio", "audio-and-vision"]
)
def test_gemma4_with_its_audio_tower_at_class_defaults_equals_transformers(towers: dict[str, Any]) -> None:
    """Gemma 4 with its audio tower (the class builds a tower only where the file states its config): the audio tower
    at Gemma4AudioConfig's defaults (a 12-layer Conformer, 1,024 wide) and embed_audio into the language model, beside
    the vision tower or not, counted with formulas to the parameter; the audio tower alone is its class's."""
    import torch

    config = {"model_type": "gemma4", **towers}
    model = Model.from_config(config)
    with torch.device("meta"):
        audio = hf.Gemma4AudioModel(hf.Gemma4AudioConfig())
    assert (_hf_total(config), sum(p.numel() for p in audio.parameters())) == (
        model.summary.total,
        dict(model.towers)["audio tower"].summary.total,
    )
    assert {"audio", "language_model", "projector"} <= {n.path for n in model.summary.tree.children}


def test_gemma3n_at_class_defaults_is_its_parts_as_transformers_builds_them() -> None:
    """Gemma3nForConditionalGeneration at its class defaults, counted by its towers: 7,818,517,072, as transformers
    builds its parts on meta (Gemma3nTextModel 6,835,235,568, Gemma3nAudioEncoder 681,348,640, embed_vision 4,460,544,
    embed_audio 3,345,408, the head tied) and timm builds its vision tower (mobilenetv5_300m_enc: 294,126,912,
    measured with timm 1.0.31 on meta, the whole class too, in a throwaway environment: ``TIMM_COUNTS``); the
    tree holds the vision tower's top-level modules under ``vision/`` and the embedders under ``projector/``."""
    config = {"model_type": "gemma3n"}
    model = Model.from_config(config)
    tree = model.summary.tree
    parts = {n.path: n.count for n in tree.walk() if n.path in ("vision", "projector/embed_vision", "audio")}
    assert ("towers", 7_818_517_072, 7_818_517_072) == (model.counted_by, _hf_total(config), model.summary.total)
    assert {"vision": 294_126_912, "projector/embed_vision": 4_460_544, "audio": 681_348_640} == parts
    assert {"vision/conv_stem", "vision/blocks", "vision/msfa"} == {n.path for n in tree.find("vision").children}  # type: ignore[union-attr]
    assert any("mobilenetv5_300m_enc" in note and "timm" in note for note in model.notes)


@pytest.mark.parametrize(
    ("top", "text"), [(True, False), (False, True), (False, False)], ids=["tied", "untied", "both-untied"]
)
def test_gemma3n_ties_its_head_by_the_whole_config_flag(top: bool, text: bool) -> None:
    """Gemma 3n's LM head is tied by the whole config's tie_word_embeddings, whatever its text config says; untied it
    adds the text vocabulary by the text width: the total equals transformers' parts either way."""
    config = copy.deepcopy({"model_type": "gemma3n", **SMALL["gemma3n"]})
    config["tie_word_embeddings"] = top
    config["text_config"]["tie_word_embeddings"] = text
    assert _hf_total(config) == Model.from_config(config).summary.total


@pytest.mark.parametrize(
    ("vision", "key"),
    [
        ({"architecture": "resnet50"}, "vision_config.architecture"),
        ({"architecture": 3}, "vision_config.architecture"),
        ({"model_args": {"depth": 3}}, "vision_config.model_args"),
    ],
)
def test_gemma3n_refuses_a_vision_tower_whose_count_is_not_shipped(vision: dict, key: str) -> None:
    """A timm architecture whose count is not shipped, or arguments to timm.create_model that change the network, is
    refused naming the nested key: no config key sizes timm's network."""
    from paramscope.engine.spec import SpecError

    with pytest.raises(SpecError) as refused:
        _ = Model.from_config({"model_type": "gemma3n", "vision_config": vision}).summary
    assert key == refused.value.field


@pytest.mark.parametrize("name", sorted(TIMM_COUNTS))
def test_the_shipped_timm_counts_are_timms(name: str) -> None:
    """The vision tower counts shipped in timm_towers.json equal timm's own, each architecture built on meta as
    TimmWrapperModel builds it (num_classes=0), with its top-level modules; and the measured literals above. Skipped
    where timm is not installed (CI: timm needs torchvision)."""
    import torch

    from paramscope.families.wholes import timm_towers

    timm = pytest.importorskip("timm")
    with torch.device("meta"):
        model = timm.create_model(name, pretrained=False, num_classes=0)
    groups = {n: sum(p.numel() for p in m.parameters()) for n, m in model.named_children()}
    (shipped,) = timm_towers()["towers"]["gemma3n_vision"]["architectures"][name]  # known without model_args
    total = sum(p.numel() for p in model.parameters())
    assert (total, {n: c for n, c in groups.items() if c}) == (shipped["total"], shipped["groups"])
    assert TIMM_COUNTS[name] == total


def test_fast_vlm_at_class_defaults_is_its_parts_as_transformers_builds_them() -> None:
    """FastVlmForConditionalGeneration at its class defaults (FastVLM-7B), counted by its towers: 7,762,651,744, as
    transformers and timm 1.0.31 build the whole class on meta (measured in a throwaway environment with timm): the
    Qwen2 language model 7,070,848,512, the projector 23,862,272, the untied head 545,226,752, and timm's FastViT-HD
    ``fastvit_mci3`` with ``{"inference_mode": True}`` (reparameterized) 122,714,208, shipped (``TIMM_WRAPPER_COUNTS``);
    without timm the parts are built from transformers' own classes."""
    config = {"model_type": "fast_vlm"}
    model = Model.from_config(config)
    tree = model.summary.tree
    parts = {n.path: n.count for n in tree.children}
    assert ("towers", 7_762_651_744, 7_762_651_744) == (model.counted_by, _hf_total(config), model.summary.total)
    assert {"language_model": 7_070_848_512, "vision": 122_714_208, "projector": 23_862_272} == {
        k: v for k, v in parts.items() if k != "head"
    }
    assert {"vision/stem", "vision/stages", "vision/final_conv"} == {n.path for n in tree.find("vision").children}  # type: ignore[union-attr]
    assert any("fastvit_mci3" in note and "inference_mode" in note for note in model.notes)


#: PerceptionLM configs shaped like the released checkpoints (Llama 3.2 1B's text tower tied / Llama 3.1 8B's untied,
#: the large / gigantic Perception Encoder, pooling 2) -> the whole class's count measured with transformers and timm
#: 1.0.31 on meta in a throwaway environment.
PERCEPTION_LM = {
    "1B-like": (
        dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32)
        | dict(num_key_value_heads=8, vocab_size=128256, tie_word_embeddings=True),
        "vit_pe_core_large_patch14_336",
        PE_LARGE,
        1_533_524_992,
    ),
    "8B-like": (
        dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32)
        | dict(num_key_value_heads=8, vocab_size=128256),
        "vit_pe_core_gigantic_patch14_448",
        PE_GIGANTIC,
        9_794_260_736,
    ),
}


@pytest.mark.parametrize("case", sorted(PERCEPTION_LM))
def test_perception_lm_equals_transformers_with_timm(case: str) -> None:
    """PerceptionLM shaped like its 1B and 8B checkpoints (1,533,524,992 and 9,794,260,736, measured with timm on
    meta: ``PERCEPTION_LM``) is counted by its towers to the parameter, and equals transformers' own language model,
    projector and head built on meta plus timm's measured Perception Encoder (291,415,040 / 1,740,922,624); the
    1B's head is tied through its text config (the whole config's flag defaults to none)."""
    text, architecture, args, measured = PERCEPTION_LM[case]
    config = {
        "model_type": "perception_lm",
        "text_config": dict(text, model_type="llama"),
        "vision_config": {"model_type": "timm_wrapper", "architecture": architecture, "model_args": args},
        "projector_pooling_ratio": 2,
    }
    model = Model.from_config(config)
    assert ("towers", measured, measured) == (model.counted_by, _hf_total(config), model.summary.total)
    assert {"vision/patch_embed", "vision/blocks", "vision/pos_embed"} <= {
        n.path
        for n in model.summary.tree.find("vision").children  # type: ignore[union-attr]
    }


@pytest.mark.parametrize("model_type", ["fast_vlm", "perception_lm"])
@pytest.mark.parametrize(("top", "text"), [(True, False), (False, True), (None, True), (None, False), (False, False)])
def test_a_timm_whole_ties_its_head_as_its_class_does(model_type: str, top: bool | None, text: bool) -> None:
    """FastVLM ties its LM head by either flag (its config takes the text config's when its own is false);
    PerceptionLM by its own flag, the text config's when its own is left out: the total equals transformers' parts."""
    config = copy.deepcopy({"model_type": model_type, **SMALL[model_type]})
    config["text_config"]["tie_word_embeddings"] = text
    if top is not None:
        config["tie_word_embeddings"] = top
    assert _hf_total(config) == Model.from_config(config).summary.total


@pytest.mark.parametrize(
    ("model_type", "edit", "key"),
    [
        ("fast_vlm", {"vision_config": {"architecture": "fastvit_mci9"}}, "vision_config.architecture"),
        ("fast_vlm", {"vision_config": {"architecture": ["fastvit_mci3"]}}, "vision_config.architecture"),
        (
            "fast_vlm",
            {"vision_config": {"architecture": "fastvit_mci3", "hidden_size": 3072, "model_args": {"lkc_use_act": 1}}},
            "vision_config.model_args",
        ),
        ("fast_vlm", {"vision_config": {"architecture": "fastvit_mci3"}}, "vision_config.hidden_size"),
        ("fast_vlm", {"vision_feature_layer": -2}, "vision_feature_layer"),
        (
            "perception_lm",
            {"vision_config": {"architecture": "vit_pe_core_large_patch14_336"}},
            "vision_config.model_args",
        ),
        (
            "perception_lm",
            {"vision_config": {"architecture": "vit_pe_core_large_patch14_336", "model_args": PE_LARGE | {"depth": 2}}},
            "vision_config.model_args",
        ),
        ("perception_lm", {"vision_config": {"architecture": "resnet50"}}, "vision_config.model_args.embed_dim"),
    ],
)
def test_a_timm_whole_refuses_what_is_not_shipped_naming_the_key(model_type: str, edit: dict, key: str) -> None:
    """A timm architecture or ``model_args`` whose count is not shipped, a width the projector reads but the config
    leaves out (TimmWrapperConfig has none: transformers fails too), or a feature layer FastVLM's config refuses, is
    refused naming the nested key."""
    from paramscope.engine.spec import SpecError

    config = {"model_type": model_type, **copy.deepcopy(SMALL[model_type]), **edit}
    with pytest.raises(SpecError) as refused:
        _ = Model.from_config(config).summary
    assert key == refused.value.field


def test_perception_lm_at_class_defaults_is_refused_as_transformers_fails() -> None:
    """PerceptionLM's class defaults name a bare ResNet-50 with no model_args, which its projector reads the width
    from (``model_args["embed_dim"]``): transformers cannot build it (its projector fails, with timm or without),
    and the page refuses it naming that key."""
    import torch

    from paramscope.engine.spec import SpecError

    with pytest.raises(SpecError) as refused:
        _ = Model.from_config({"model_type": "perception_lm"}).summary
    from transformers.models.perception_lm.modeling_perception_lm import PerceptionLMMultiModalProjector

    with pytest.raises(TypeError, match="not subscriptable"), torch.device("meta"):  # None["embed_dim"]
        PerceptionLMMultiModalProjector(hf.PerceptionLMConfig())
    assert "vision_config.model_args.embed_dim" == refused.value.field


@pytest.mark.parametrize("case", ["fast_vlm", "fast_vlm-small", "perception_lm-small"])
def test_a_timm_whole_equals_its_class_built_with_timm(case: str) -> None:
    """FastVLM at its class defaults and the small FastVLM and PerceptionLM cases equal the whole transformers class
    built on meta with timm building its vision tower (no tower swapped out). Skipped where timm is not installed."""
    import torch

    pytest.importorskip("timm")
    model_type, _, small = case.partition("-")
    config = {"model_type": model_type, **(SMALL[model_type] if small else {})}
    rest = copy.deepcopy(config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_config = hf.AutoConfig.for_model(rest.pop("model_type"), **rest)
        with torch.device("meta"):
            whole = getattr(hf, WHOLES[model_type].class_name)(hf_config)
    assert sum(p.numel() for p in whole.parameters()) == Model.from_config(config).summary.total


@pytest.mark.parametrize(("name", "args"), [(name, args) for name, args, _ in TIMM_WRAPPER_COUNTS])
def test_the_shipped_timm_wrapper_counts_are_timms(name: str, args: dict[str, Any]) -> None:
    """The TimmWrapperConfig tower counts shipped in timm_towers.json (by architecture and model_args) equal timm's
    own, each built on meta as TimmWrapperModel builds it (num_classes=0, the model_args), with its top-level modules
    and parameters; and the measured literals above. Skipped where timm is not installed."""
    import torch

    from paramscope.families.wholes import timm_towers

    timm = pytest.importorskip("timm")
    with torch.device("meta"):
        model = timm.create_model(name, pretrained=False, num_classes=0, **args)
    groups = {n: sum(p.numel() for p in m.parameters()) for n, m in model.named_children()}
    groups |= {n: p.numel() for n, p in model.named_parameters(recurse=False)}
    variants = timm_towers()["towers"]["timm_wrapper"]["architectures"][name]
    shipped = next(t for t in variants if t["model_args"] == args)
    total = sum(p.numel() for p in model.parameters())
    assert (total, {n: c for n, c in groups.items() if c}) == (shipped["total"], shipped["groups"])
    assert next(n for a_name, a, n in TIMM_WRAPPER_COUNTS if (a_name, a) == (name, args)) == total


def test_a_whole_with_a_tower_its_row_cannot_describe_is_counted_by_transformers() -> None:
    """A Gemma 4 whose audio heads do not divide the audio width (transformers builds it, its attention cannot run): no
    formulas, the whole counted by transformers on the meta device, exactly."""
    audio = SMALL["gemma4"]["audio_config"] | {"num_attention_heads": 3}
    config = {"model_type": "gemma4", **SMALL["gemma4"], "audio_config": audio}
    model = Model.from_config(config)
    assert (False, _hf_total(config)) == (model.has_formulas, model.summary.total)


@pytest.mark.parametrize("top", [True, False])
@pytest.mark.parametrize("model_type", ["mistral3", "llava", "qwen2_5_vl", "internvl"])
def test_the_head_is_tied_as_the_class_decides(model_type: str, top: bool) -> None:
    """The LM head is tied by the whole config's flag as the class reads it (LLaVA's also takes the text config's),
    whatever the text config says: the count equals transformers' either way."""
    config = copy.deepcopy({"model_type": model_type, **SMALL[model_type]})
    config["tie_word_embeddings"] = top
    config["text_config"]["tie_word_embeddings"] = not top
    assert _hf_total(config) == Model.from_config(config).summary.total


def test_a_whole_is_counted_where_torch_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without torch (the package alone, as the CLI may be installed), a whole model is still counted exactly with
    formulas; a tower its row cannot describe (a Gemma 4 audio tower whose heads do not divide its width) is refused in
    one line naming the nested key and the install that counts it."""
    from paramscope.engine.spec import SpecError
    from paramscope.families import meta_build

    monkeypatch.setattr(meta_build, "available", lambda: False)
    config = {"model_type": "gemma3", **SMALL["gemma3"], "vision_config": {**SMALL["gemma3"]["vision_config"]}}
    config["vision_config"]["num_hidden_layers"] = 3  # not cached by an earlier test
    model = Model.from_config(config)
    assert ("towers", _hf_total(config)) == (model.counted_by, model.summary.total)
    audio = SMALL["gemma4"]["audio_config"] | {"num_attention_heads": 5}  # not cached by the test below either
    with pytest.raises(SpecError, match=r"^audio_config\.num_attention_heads: 5 does not divide .*pip install"):
        Model.from_config({"model_type": "gemma4", **SMALL["gemma4"], "audio_config": audio})


#: The tower sizes a random edit draws, by Spec field (written by each tower's own key, nested).
_EDITS = {
    "num_hidden_layers": st.integers(1, 4),
    "intermediate_size": st.sampled_from([8, 16, 24, 40, 64]),
    "vocab_size": st.integers(50, 300),
}


def _nested_keys(model: Model) -> dict[str, str]:
    """Each tower's key for the fields of ``_EDITS``, nested (``vision_config.depth``) -> the field."""
    return {
        f"{tower.origin}.{key}": name
        for _, tower in model.towers
        for name in _EDITS
        if (key := tower.family.key_for(name, tower.config)) and getattr(tower.spec, name)
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model_type=st.sampled_from(sorted(SMALL)), data=st.data())
def test_random_nested_edits_of_either_tower_equal_transformers(model_type: str, data: Any) -> None:
    """Editing either tower of any whole model in place by its nested name (``text_config.num_hidden_layers``,
    ``vision_config.depth``) rebuilds the whole model as transformers builds the edited config, and the edit survives
    a link and a config.json round trip."""
    from paramscope.io import link

    start = Model.from_config({"model_type": model_type, **SMALL[model_type]}, origin="upload")
    keys = _nested_keys(start)
    picked = data.draw(st.lists(st.sampled_from(sorted(keys)), min_size=1, max_size=3, unique=True), label="keys")
    values = {key: data.draw(_EDITS[keys[key]], label=key) for key in picked}
    edited = start.edit(**values)
    assert _hf_total(edited.config) == edited.summary.total
    config = start.config
    at_top = model_type in WHOLES_AT_TOP  # its text_config's keys are written at the top level
    before = {
        k: (config if at_top and k.startswith("text_config.") else config[k.partition(".")[0]]).get(k.partition(".")[2])
        for k in values
    }
    follows = {k for k in edited.edits if k.partition(".")[2] in FOLLOW_LAYERS}  # per-layer lists follow the count

    def written(key: str) -> str:  # the key the edit writes: a text key of a whole read at the top level is top-level
        return key.partition(".")[2] if at_top and key.startswith("text_config.") else key

    assert {written(k): v for k, v in values.items() if v != before[k]} == {
        k: edited.edits[k] for k in edited.edits if k not in follows
    }
    query = link.query_from_model(edited)
    assert not follows & set(query)  # the link leaves them out: the count's edit rebuilds them
    again, warnings_ = link.edits_from_query(start, query, [])
    assert (again.config, warnings_) == (edited.config, [])
    assert Model.from_config(json.loads(json.dumps(edited.config))).summary == edited.summary


def test_a_tower_edit_follows_the_per_layer_lists() -> None:
    """A nested edit of a tower's layer count rewrites that tower's per-layer list as an edit of a stack does, so the
    edited whole still builds (Gemma 4's text layer_types, 2 layers to 4)."""
    start = Model.from_config({"model_type": "gemma4", **SMALL["gemma4"]})
    edited = start.edit(**{"text_config.num_hidden_layers": 4})
    assert ["sliding_attention", "full_attention"] * 2 == edited.config["text_config"]["layer_types"]
    assert _hf_total(edited.config) == edited.summary.total


def test_a_link_names_a_bad_nested_key_and_keeps_the_rest() -> None:
    """A link's nested key that the tower does not hold is refused naming it; a bad value names the key too."""
    from paramscope.io import link

    start = Model.from_config({"model_type": "llava", **SMALL["llava"]}, origin="upload")
    query = {"vision_config.bogus": "1", "text_config.num_hidden_layers": "x", "text_config.hidden_size": "64"}
    edited, messages = link.edits_from_query(start, query, [])
    assert {"text_config.hidden_size": 64} == edited.edits
    assert [
        "vision_config.bogus: not a field of this model; ignored",
        "text_config.num_hidden_layers: expected a whole number or auto, got 'x'; kept the preset's value",
    ] == messages


def test_mllama_vision_layers_edit_the_local_layers_only() -> None:
    """Mllama's vision tower counts the local layers ``num_hidden_layers`` states plus the gated global ones: an edit
    of the sum is refused naming the field, and the nested key edits the local layers as transformers reads them."""
    from paramscope.engine.spec import SpecError

    config = {"model_type": "mllama", **copy.deepcopy(SMALL["mllama"])}
    vision = Model.from_config(config["vision_config"] | {"model_type": "mllama_vision_model"})
    with pytest.raises(SpecError, match="num_hidden_layers"):
        vision.edit(num_hidden_layers=vision.spec.num_hidden_layers + 1)
    edited = Model.from_config(config).edit(**{"vision_config.num_hidden_layers": 3})
    config["vision_config"]["num_hidden_layers"] = 3
    assert _hf_total(config) == edited.summary.total


def _untied_t5_total(config: dict[str, Any]) -> int:
    """transformers' count of a BLIP-2 over T5 with the T5 head untied where the text config says
    ``tie_word_embeddings: false``: transformers 5 ties T5's head whatever the file says, the released checkpoints
    (Flan-T5's) store it apart, and the T5 row counts it apart (``hf_oracle.py`` unties T5 alone the same way)."""
    total = _hf_total(config)
    text = config["text_config"]
    if text.get("model_type") in ("t5", "mt5") and text.get("tie_word_embeddings") is False:
        total += text["vocab_size"] * text["d_model"]
    return total


BLIP_2: dict[str, dict[str, Any]] = {
    "opt-untied-by-its-text-config": dict(
        SMALL["blip-2"], text_config=dict(_OPT, model_type="opt", tie_word_embeddings=False)
    ),
    "opt-tied-whatever-the-top-level-flag": dict(SMALL["blip-2"], tie_word_embeddings=False),
    "opt-untied-whatever-the-top-level-flag": dict(
        SMALL["blip-2"], tie_word_embeddings=True, text_config=dict(_OPT, model_type="opt", tie_word_embeddings=False)
    ),
    "opt-projected-embeddings": dict(SMALL["blip-2"], text_config=dict(_OPT, model_type="opt", word_embed_proj_dim=16)),
    "t5-tied": dict(SMALL["blip-2"], text_config=_T5),
    "flan-t5-gated-untied": dict(
        SMALL["blip-2"], text_config=dict(_T5, feed_forward_proj="gated-gelu", tie_word_embeddings=False)
    ),
    "mt5": dict(SMALL["blip-2"], text_config=dict(_T5, model_type="mt5")),
    "t5-defaults": dict(text_config=dict(model_type="t5")),
    "q-former-text-input-cross-every-layer": dict(
        SMALL["blip-2"], qformer_config=dict(_QFORMER, use_qformer_text_input=True, cross_attention_frequency=1)
    ),
    "no-vision-config-q-former-reads-the-default-width": dict(
        SMALL["blip-2"], vision_config=None, qformer_config=dict(_QFORMER, encoder_hidden_size=16)
    ),
}


@pytest.mark.parametrize("case", sorted(BLIP_2))
def test_blip_2_equals_transformers(case: str) -> None:
    """BLIP-2 over OPT (its ...ForCausalLM, the head tied by the text config's flag alone: the whole config's is not
    read) or over T5 (its ...ForConditionalGeneration), the Q-Former's cross-attention reading the vision tower's
    width whatever ``encoder_hidden_size`` says: the count equals transformers' on meta, and each tower's subtree
    equals that tower counted alone."""
    config = {"model_type": "blip-2", **copy.deepcopy({k: v for k, v in BLIP_2[case].items() if v is not None})}
    model = Model.from_config(config)
    assert (model.counted_by, model.summary.total) == ("towers", _untied_t5_total(config))
    tree = model.summary.tree
    prefix = {"language model": "language_model", "vision tower": "vision", "Q-Former": "qformer"}
    assert {prefix[role]: tower.summary.total for role, tower in model.towers} == {
        path: tree.get(path) for path in ("language_model", "vision", "qformer")
    }


_BART = dict(
    model_type="bart", vocab_size=100, d_model=32, encoder_layers=2, decoder_layers=2, max_position_embeddings=64
)
_BART |= dict(encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=48, decoder_ffn_dim=48)


def test_blip_2_over_bart_is_counted_by_transformers_saying_why() -> None:
    """BLIP-2 over BART builds BartForCausalLM (transformers lists BART as a causal LM: its decoder alone), which the
    BART row does not describe: the whole is counted by transformers on meta, the first note naming the tower and the
    class (the page shows it as the reason)."""
    config = {"model_type": "blip-2", **copy.deepcopy(SMALL["blip-2"]), "text_config": dict(_BART)}
    model = Model.from_config(config)
    assert (model.counted_by, model.summary.total) == ("transformers", _hf_total(config))
    assert (
        "no formulas: text_config.architectures: BartForCausalLM (the decoder alone) has no formula row"
        == (model.notes[0])
    )
    assert [role for role, _ in model.towers] == ["vision tower", "Q-Former"]  # the language model: transformers'
    rest = model.summary.total - sum(tower.summary.total for _, tower in model.towers)
    assert model.notes[-1] == (
        f"the rest (projectors, scales, a head outside the language model, parts without formulas): {rest:,}"
    )


def test_blip_2_refuses_a_language_model_transformers_cannot_build() -> None:
    """A BLIP-2 text config of a type transformers lists as neither a causal nor a sequence-to-sequence LM (CLIP's
    text tower: AutoModelForSeq2SeqLM refuses it), or whose config has no hidden_size for the projection (T5Gemma),
    is refused naming ``text_config.model_type``, as transformers cannot build it either."""
    from paramscope.engine.spec import SpecError

    layers = dict(vocab_size=100, hidden_size=32, intermediate_size=48, num_hidden_layers=1, num_attention_heads=4)
    for text in (dict(_TEXT, model_type="clip_text_model"), dict(model_type="t5gemma", encoder=layers, decoder=layers)):
        config = {"model_type": "blip-2", **SMALL["blip-2"], "text_config": text}
        with pytest.raises((ValueError, AttributeError)):
            _hf_total(config)
        with pytest.raises(SpecError, match=rf"^text_config\.model_type: '{text['model_type']}' is no language model"):
            Model.from_config(config).summary  # noqa: B018


def test_blip_2_q_former_keys_read_the_vision_width() -> None:
    """The Q-Former's cross-attention keys read the vision tower's states: its formula names
    ``vision_config.hidden_size`` (Blip2Config writes it into ``encoder_hidden_size``, 999 in the file is not read), its
    count that width's, in the layers transformers gives a cross-attention (0 and 2 of 3 at frequency 2)."""
    import torch

    config = {"model_type": "blip-2", **copy.deepcopy(SMALL["blip-2"])}
    rest = {k: v for k, v in copy.deepcopy(config).items() if k != "model_type"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.device("meta"):
            built = hf.Blip2ForConditionalGeneration(hf.Blip2Config(**rest))
    keys = sum(p.numel() for n, p in built.named_parameters() if ".crossattention.attention.key." in n)
    node = Model.from_config(config).summary.tree.find("qformer/layers/cross_attention/k")
    assert node is not None
    assert (node.count, node.formula) == (
        keys,
        "(vision_config.hidden_size + 1)*qformer_config.num_attention_heads*qformer_config.head_dim",
    )


def _phi4mm_parts(config: dict[str, Any]) -> dict[str, int]:
    """Phi4MultimodalForCausalLM built from ``config`` on meta, counted by where each parameter lives: the vision
    tower (``img_processor``), the audio tower (``encoder``), the rest of ``embed_tokens_extend`` (the projector), the
    language model without it, and the head (0 when tied)."""
    import torch

    rest = copy.deepcopy(config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_config = hf.AutoConfig.for_model(rest.pop("model_type"), **rest)
        with torch.device("meta"):
            model = hf.Phi4MultimodalForCausalLM(hf_config)

    def n(module: Any) -> int:
        return sum(p.numel() for p in module.parameters())

    extend = model.model.embed_tokens_extend
    vision, audio = n(extend.image_embed.img_processor), n(extend.audio_embed.encoder)
    head = 0 if hf_config.tie_word_embeddings else n(model.lm_head)
    return {
        "vision": vision,
        "audio": audio,
        "projector": n(extend) - vision - audio,
        "language_model": n(model.model) - n(extend),
        "head": head,
        "total": sum(p.numel() for p in model.parameters()),
    }


@pytest.mark.parametrize(
    "config",
    [
        {},
        SMALL["phi4_multimodal"],
        SMALL["phi4_multimodal"] | {"tie_word_embeddings": True},
        SMALL["phi4_multimodal"] | {"audio_config": _PHI4MM_AUDIO | {"time_reduction": 6, "bias_symmetric": True}},
    ],
    ids=["class-defaults", "small", "small-tied", "small-symmetric-reduction-6"],
)
def test_phi4_multimodal_is_its_parts_where_transformers_keeps_them(config: dict[str, Any]) -> None:
    """Each part of Phi-4-multimodal equals where transformers keeps it: the vision and audio towers inside
    ``embed_tokens_extend``, the projections and separators beside them (``projector/``), the language model (Phi-3's
    layers, its keys at the top level) and the head, tied by the top-level flag (class defaults: 5,308,268,992)."""
    config = {"model_type": "phi4_multimodal", **copy.deepcopy(config)}
    model = Model.from_config(config)
    tree = model.summary.tree
    ours = {part: tree.get(part) for part in ("vision", "audio", "projector", "language_model", "head")}
    assert ours | {"total": model.summary.total} == _phi4mm_parts(config)
    if config.keys() == {"model_type"}:
        assert model.summary.total == 5_308_268_992


def test_phi4_multimodal_reads_its_language_model_at_the_top_level() -> None:
    """Phi4MultimodalConfig has no text_config: the language model's keys are its own, so a nested edit of the
    language model writes the top-level key, the formulas name the top-level keys, and a text_config in the file is
    refused naming it, as transformers fails to build the class with one (its generation config reads it)."""
    from paramscope.engine.spec import SpecError

    config = {"model_type": "phi4_multimodal", **copy.deepcopy(SMALL["phi4_multimodal"])}
    start = Model.from_config(config)
    edited = start.edit(**{"text_config.num_hidden_layers": 3, "audio_config.num_blocks": 1})
    assert edited.config["num_hidden_layers"] == 3 and "text_config" not in edited.config
    assert edited.config["audio_config"]["num_blocks"] == 1
    assert _hf_total(edited.config) == edited.summary.total
    attention = edited.summary.tree.find("language_model/layers/attention/o")
    assert attention.formula == "num_attention_heads*head_dim*hidden_size"
    assert edited.summary.tree.find("head/lm").formula == "hidden_size*vocab_size"
    stray = config | {"text_config": {"hidden_size": 64, "num_hidden_layers": 9}}
    with pytest.raises(AttributeError):
        _hf_total(stray)
    with pytest.raises(SpecError, match=r"^text_config: Phi4MultimodalForCausalLM's config has none"):
        _ = Model.from_config(stray).summary


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    layers=st.integers(1, 3),
    kv=st.sampled_from([1, 2, 4]),
    vision=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4)),
    audio=st.tuples(st.integers(1, 3), st.integers(0, 3), st.sampled_from([2, 4, 8]), st.integers(1, 3)),
    tied=st.booleans(),
)
def test_random_phi4_multimodal_wholes_equal_transformers(
    layers: int, kv: int, vision: tuple[int, int, int], audio: tuple[int, int, int, int], tied: bool
) -> None:
    """Random Phi-4-multimodal configs (its language model's layers and KV heads, each tower's width, layers and
    image or audio sizes, the downsample rate, tying) count, part by part, as transformers builds them on meta."""
    heads, v_layers, patches = vision
    a_heads, a_layers, reduction, rate = audio
    config = {
        "model_type": "phi4_multimodal",
        **_TEXT,
        "num_hidden_layers": layers,
        "num_key_value_heads": kv,
        "pad_token_id": 0,
        "tie_word_embeddings": tied,
        "vision_config": dict(_VISION, num_attention_heads=heads, hidden_size=8 * heads, num_hidden_layers=v_layers)
        | dict(patch_size=7, image_size=7 * patches),
        "audio_config": _PHI4MM_AUDIO
        | dict(num_attention_heads=a_heads, hidden_size=8 * a_heads, num_blocks=a_layers, time_reduction=reduction)
        | dict(ext_pw_out_channel=8 * a_heads, depthwise_separable_out_channel=8 * a_heads, downsample_rate=rate),
    }
    model = Model.from_config(config)
    tree = model.summary.tree
    ours = {part: tree.get(part) for part in ("vision", "audio", "projector", "language_model", "head")}
    assert ours | {"total": model.summary.total} == _phi4mm_parts(config)


@pytest.mark.parametrize(
    ("model_type", "key", "value"),
    [
        ("phi4_multimodal", "audio_config.intermediate_size", 8),  # its language model's keys are at the top level
        ("phi4_multimodal", "vision_config.intermediate_size", 40),
        ("qwen2_vl", "vision_config.embed_dim", 24),  # a text key moved in by the class has the same name
    ],
)
def test_a_nested_edit_of_another_tower_stays_in_that_tower(model_type: str, key: str, value: int) -> None:
    """An edit of a vision or audio tower's key that shares its name with a language-model key the class reads at the
    top level (Phi-4-multimodal's ``intermediate_size``) is written in that tower, reported by its nested name, and
    counted as transformers builds the edited config (the language model unchanged)."""
    start = Model.from_config({"model_type": model_type, **copy.deepcopy(SMALL[model_type])}, origin="upload")
    edited = start.edit(**{key: value})
    tower, _, name = key.partition(".")
    assert ({key: value}, value) == (edited.edits, edited.config[tower][name])
    assert start.config.get(name) == edited.config.get(name)
    assert _hf_total(edited.config) == edited.summary.total


def test_clips_config_dicts_make_the_towers_and_take_their_edits() -> None:
    """CLIPConfig builds each tower from ``text_config_dict`` / ``vision_config_dict`` alone where the file has one
    (as openai/clip-vit-large-patch14's does), whatever ``text_config`` says: the count equals transformers', the
    text tower's controls show the dict's width, and an edit of ``text_config.num_hidden_layers`` is written into
    both, so transformers builds it; the link carries the nested key alone and rebuilds the same config."""
    from paramscope.io import link

    config = {"model_type": "clip", **copy.deepcopy(SMALL["clip"])}
    config["text_config_dict"] = dict(_TEXT, hidden_size=64, num_hidden_layers=3, max_position_embeddings=16)
    config["vision_config_dict"] = dict(_VISION, num_hidden_layers=2, image_size=32, patch_size=8)
    start = Model.from_config(config, origin="upload")
    assert (_hf_total(config), 64) == (start.summary.total, dict(start.towers)["text tower"].spec.hidden_size)
    edited = start.edit(**{"text_config.num_hidden_layers": 1})
    assert (_hf_total(edited.config), {"text_config.num_hidden_layers": 1}) == (edited.summary.total, edited.edits)
    again, warnings_ = link.edits_from_query(start, link.query_from_model(edited), [])
    assert (again.config, warnings_) == (edited.config, [])


@pytest.mark.parametrize(("preset", "moe"), [("qwen3-vl-8b-instruct", False), ("qwen3-vl-30b-a3b-instruct", True)])
def test_a_whole_says_what_active_means_only_where_experts_make_it_differ(preset: str, moe: bool) -> None:
    """The whole model's notes define "active" (all but the routed experts a token does not use) for a mixture of
    experts only: a dense whole (Qwen3-VL 8B) has no routed experts to leave out."""
    from paramscope.io import presets

    notes = " ".join(presets.model(preset).notes)
    assert moe == ("active: all but the routed experts" in notes)


@pytest.mark.parametrize(
    ("text", "tied"),
    [
        ("mistral", True),
        ("gpt2", False),
        ("gpt2", True),
        ("opt", True),
        ("bert", True),
        ("mamba", True),
        ("t5", False),
        ("bart", False),
    ],
)
def test_a_language_model_a_tied_whole_cannot_tie_to_is_refused(text: str, tied: bool) -> None:
    """LLaVA over another language model type: counted as transformers builds it, or refused naming
    ``text_config.model_type`` where transformers cannot build it (the whole ties lm_head to the language model's
    embed_tokens, which GPT-2's, OPT's, BERT's, Mamba's models have not; T5's config ties whatever the file says); a T5
    language model was counted 381,251,072 where transformers fails, and an untied BART is built."""
    from paramscope.engine.spec import SpecError

    sizes = dict(vocab_size=100, d_model=32, d_ff=48, num_layers=2, num_heads=4) if text == "t5" else _TEXT_KV
    sub = {"model_type": text, **sizes, "tie_word_embeddings": tied}
    config = {**SMALL["llava"], "model_type": "llava", "text_config": sub, "tie_word_embeddings": tied}
    try:
        expected: int | str = _hf_total(config)
    except AttributeError:  # "GPT2Model has no attribute `embed_tokens`"
        expected = "text_config.model_type"
    try:
        actual: int | str = Model.from_config(config).summary.total
    except SpecError as exc:
        actual = exc.field
    assert expected == actual


def test_mllama_refuses_more_tiles_over_the_default_ratios_as_transformers_does() -> None:
    """Llama 3.2 Vision with max_num_tiles 8 and its file's supported_aspect_ratios (the default list, stated):
    MllamaVisionConfig refuses it ("max_num_tiles must be 4 for default supported aspect ratios"), and so does the
    page, naming vision_config.max_num_tiles (it counted 88,667,221,563)."""
    from paramscope.engine.spec import SpecError
    from paramscope.io import presets

    config = copy.deepcopy(presets.model("llama-3.2-90b-vision-instruct").config)
    config["vision_config"]["max_num_tiles"] = 8
    with pytest.raises(Exception, match="max_num_tiles must be 4"):  # noqa: B017, PT011 - transformers raises its own class
        _hf_total(config)
    with pytest.raises(SpecError) as refused:
        _ = Model.from_config(config).summary
    assert "vision_config.max_num_tiles" == refused.value.field


def test_top_level_keys_a_whole_does_not_declare_are_named() -> None:
    """An original LLaVA-1.5-13B file (its language model's keys at the top level, no text_config): LlavaConfig
    declares none of them, so transformers builds Llama's defaults, as the count does; the notes name those keys, the
    language model's first (they were dropped without a word, 13B keys giving a 7B count)."""
    config = {
        "model_type": "llava",
        "architectures": ["LlavaLlamaForCausalLM"],
        "hidden_size": 5120,
        "num_hidden_layers": 40,
        "mm_hidden_size": 1024,
        "vision_config": {"model_type": "clip_vision_model", **_VISION, "image_size": 32, "patch_size": 8},
    }
    model = Model.from_config(config)
    said = [note for note in model.notes if note.startswith("not read: ")]
    hf_config = {k: v for k, v in config.items() if k != "architectures"}
    assert (_hf_total(hf_config), ["not read: hidden_size, num_hidden_layers, mm_hidden_size"]) == (
        model.summary.total,
        [note.split(" (")[0] for note in said],
    )


def test_a_refused_language_key_is_named_where_the_file_holds_it() -> None:
    """Qwen2.5-VL's file keeps its language model's keys at the top level (no text_config): a refused one is named
    there, as an edit writes it (it was named text_config.num_attention_heads, a key the file has not), and a vision
    key stays nested."""
    from paramscope.engine.spec import SpecError
    from paramscope.families.wholes import written_key
    from paramscope.io import presets

    config = copy.deepcopy(presets.model("qwen2.5-vl-3b-instruct").config)
    with pytest.raises(SpecError) as refused:
        _ = Model.from_config({**config, "num_attention_heads": 7}).summary
    written = (written_key(config, "text_config.num_hidden_layers"), written_key(config, "vision_config.depth"))
    assert ("num_attention_heads", ("num_hidden_layers", "vision_config.depth")) == (refused.value.field, written)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("gemma-3-4b-it", "vision_config.intermediate_size"),  # SigLIP's fc2 bias: 4,032,188,928 vs 4,032,220,032
        ("llava-1.5-7b", "vision_config.image_size"),  # CLIP's patch convolution was dropped
        ("paligemma-3b-pt-224", "vision_config.image_size"),
    ],
)
def test_a_zero_size_whose_class_still_builds_something_is_refused(name: str, key: str) -> None:
    """A tower size stated 0 where transformers still builds modules the count reads as absent (an MLP's biases
    around empty projections, a patch convolution): transformers builds it, and the page refuses it naming the key
    rather than count it otherwise; Llama's MLP at 0 (no biases) is counted as transformers builds it."""
    from paramscope.engine.spec import SpecError
    from paramscope.io import presets

    config = copy.deepcopy(presets.model(name).config)
    sub, field = key.split(".")
    config[sub][field] = 0
    assert _hf_total(config) > 0  # transformers builds it
    with pytest.raises(SpecError) as refused:
        _ = Model.from_config(config).summary
    llama = copy.deepcopy(presets.model("llava-1.5-7b").config)
    llama["text_config"]["intermediate_size"] = 0
    assert (key, _hf_total(llama)) == (refused.value.field, Model.from_config(llama).summary.total)


@pytest.mark.parametrize(
    ("model_type", "key"),
    [
        ("siglip2", "vision_config.num_patches"),  # its position table: 374,446,850 counted, 375,037,442 built
        ("qwen2_audio", "audio_config.num_mel_bins"),  # conv1's bias
        ("qwen3_vl", "vision_config.temporal_patch_size"),
        ("qwen3_vl", "vision_config.spatial_merge_size"),
        ("glm4v", "vision_config.spatial_merge_size"),
        ("llama4", "vision_config.projector_input_dim"),
    ],
)
def test_a_zero_the_class_builds_or_divides_by_is_refused(model_type: str, key: str) -> None:
    """A nested key stated 0 that the row reads as none of it, where transformers still builds a table or a
    convolution of it (or divides by it, as Gemma's query_pre_attn_scalar): refused naming the key, where the count
    differed (a new user's fuzzing: 41 of 5,083 nested edits, all such zeros, down to 4 of 5,518 before Gemma's)."""
    from paramscope.engine.spec import SpecError

    config = {"model_type": model_type, **copy.deepcopy(SMALL[model_type])}
    sub, field = key.split(".")
    config[sub][field] = 0
    with pytest.raises(SpecError) as refused:
        _ = Model.from_config(config).summary
    gemma = {"model_type": "paligemma", **copy.deepcopy(SMALL["paligemma"])}
    gemma["text_config"] = {**gemma["text_config"], "model_type": "gemma2", "query_pre_attn_scalar": 0}
    with pytest.raises(ZeroDivisionError):
        _hf_total(gemma)
    with pytest.raises(SpecError) as divided:
        _ = Model.from_config(gemma).summary
    assert (key, "text_config.query_pre_attn_scalar") == (refused.value.field, divided.value.field)


def test_llama4_without_routed_experts_is_refused() -> None:
    """Llama 4 with num_local_experts 0: transformers still builds each MoE layer's router and shared expert (where
    the count read a dense MLP of intermediate_size_mlp: 18.03B against 11.98B built at Scout's sizes), so the row
    refuses it naming the key."""
    import torch

    from paramscope.engine.spec import SpecError

    small = dict(_TEXT_KV, intermediate_size_mlp=64, num_local_experts=0)
    config = hf.Llama4TextConfig(**small)
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = sum(p.numel() for p in hf.Llama4ForCausalLM(config).parameters())
    with pytest.raises(SpecError) as refused:
        _ = Model.from_config({"model_type": "llama4_text", **small}).summary
    assert (True, "num_local_experts") == (built > 0, refused.value.field)


def test_glm4v_heads_that_do_not_divide_the_width_are_floored_as_transformers_builds_them() -> None:
    """GLM-4V's language model builds heads hidden_size // num_attention_heads wide, floored, whatever head_dim says
    (GLM-4.5V's where none is stated: its class defaults, 96 heads over 4,096, are in DEFAULTS above): GLM-4.1V with
    96 heads was refused ("does not divide hidden_size"), and counts as transformers builds it."""
    text = {"num_attention_heads": 96}
    assert (
        _hf_total({"model_type": "glm4v", "text_config": text})
        == Model.from_config({"model_type": "glm4v", "text_config": text}).summary.total
    )
