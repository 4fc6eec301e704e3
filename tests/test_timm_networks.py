"""The classes transformers builds only with timm, counted where timm is not installed (the page as deployed): the DETR
family, OmDet-Turbo, TimmBackbone, TimmWrapper, EdgeTAM and the Perception Encoder video and audio-video models, each
built by transformers on meta with timm's networks taken from shipped data (``families/timm_stand_in.py``).

Expected totals are transformers 5.23 and timm 1.0.31 building the whole class on the meta device, measured in a
throwaway environment with timm installed (torchvision stubbed out: nothing built here calls it), never read from the
shipped data; where timm is installed, the shipped networks are also checked against timm itself.
"""

from __future__ import annotations

import importlib.util
import json
from importlib import resources
from typing import Any

import pytest

import paramscope
from paramscope.families.meta_build import available

pytestmark = pytest.mark.skipif(not available(), reason="needs torch and transformers")

#: EdgeTAM's released vision tower as its config.json holds it (TimmWrapperConfig.to_dict writes the labels).
REPVIT = {
    "model_type": "timm_wrapper",
    "architecture": "repvit_m1.dist_in1k",
    "model_args": {"in_chans": 3, "features_only": True, "out_indices": [0, 1, 2, 3]},
    "num_classes": 2,
    "label_names": ["LABEL_0", "LABEL_1"],
}

#: name -> (config, the class transformers builds for it, sum(p.numel()) of that class built on meta by transformers
#: 5.23 with timm 1.0.31). The class defaults of every type, then configs shaped like released checkpoints.
CASES: dict[str, tuple[dict[str, Any], str, int]] = {
    "detr": ({"model_type": "detr"}, "DetrModel", 41_368_512),
    "conditional_detr": ({"model_type": "conditional_detr"}, "ConditionalDetrModel", 43_262_402),
    "deformable_detr": ({"model_type": "deformable_detr"}, "DeformableDetrModel", 39_913_666),
    "dab-detr": ({"model_type": "dab-detr"}, "DabDetrModel", 43_515_518),
    "table-transformer": ({"model_type": "table-transformer"}, "TableTransformerModel", 41_369_024),
    "omdet-turbo": ({"model_type": "omdet-turbo"}, "OmDetTurboForObjectDetection", 115_406_806),
    "timm_backbone": ({"model_type": "timm_backbone", "backbone": "resnet50"}, "TimmBackbone", 23_508_032),
    "timm_wrapper": ({"model_type": "timm_wrapper"}, "TimmWrapperModel", 23_508_032),
    "edgetam": ({"model_type": "edgetam"}, "EdgeTamModel", 12_950_225),
    "edgetam_vision_model": ({"model_type": "edgetam_vision_model"}, "EdgeTamVisionModel", 8_728_640),
    "pe_video": ({"model_type": "pe_video"}, "PeVideoModel", 897_863_940),
    "pe_video_encoder": ({"model_type": "pe_video_encoder"}, "PeVideoEncoder", 573_736_706),
    "pe_audio_video": ({"model_type": "pe_audio_video"}, "PeAudioVideoModel", 1_458_747_854),
    "pe_audio_video_encoder": ({"model_type": "pe_audio_video_encoder"}, "PeAudioVideoEncoder", 1_123_063_746),
    "detr-resnet-101": (
        {"model_type": "detr", "backbone": "resnet101", "use_timm_backbone": True, "num_channels": 3}
        | {"dilation": False, "architectures": ["DetrForObjectDetection"], "num_labels": 91},
        "DetrForObjectDetection",
        60_464_672,
    ),
    "detr-resnet-50-dc5": ({"model_type": "detr", "backbone": "resnet50", "dilation": True}, "DetrModel", 41_368_512),
    "detr-backbone_config": (
        {"model_type": "detr", "backbone_config": {"model_type": "timm_backbone", "backbone": "resnet50"}}
        | {"num_channels": 3},
        "DetrModel",
        41_368_512,
    ),
    "table-transformer-detection": (
        {"model_type": "table-transformer", "backbone": "resnet18", "num_labels": 2}
        | {"architectures": ["TableTransformerForObjectDetection"]},
        "TableTransformerForObjectDetection",
        28_821_191,
    ),
    "conditional-detr-resnet-101-dc5": (
        {"model_type": "conditional_detr", "backbone": "resnet101", "dilation": True},
        "ConditionalDetrModel",
        62_202_306,
    ),
    "deformable-detr-one-level": (
        {"model_type": "deformable_detr", "num_feature_levels": 1},
        "DeformableDetrModel",
        33_910_594,
    ),
    "deformable-detr-two-stage": (
        {"model_type": "deformable_detr", "two_stage": True, "with_box_refine": True}
        | {"architectures": ["DeformableDetrForObjectDetection"]},
        "DeformableDetrForObjectDetection",
        41_021_418,
    ),
    "dab-detr-dc5": (
        {"model_type": "dab-detr", "dilation": True, "architectures": ["DabDetrForObjectDetection"]},
        "DabDetrForObjectDetection",
        43_648_644,
    ),
    "timm_backbone-resnet18-all-stages": (
        {"model_type": "timm_backbone", "backbone": "resnet18", "out_indices": [1, 2, 3, 4]},
        "TimmBackbone",
        11_176_512,
    ),
    "timm_wrapper-fastvit": (
        {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "model_args": {"inference_mode": True}},
        "TimmWrapperModel",
        122_714_208,
    ),
    "edgetam-repvit": (
        {"model_type": "edgetam", "vision_config": {"backbone_config": REPVIT}},
        "EdgeTamModel",
        9_120_641,
    ),
    "edgetam_vision_model-repvit": (
        {"model_type": "edgetam_vision_model", "backbone_config": REPVIT},
        "EdgeTamVisionModel",
        4_899_056,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_timm_class_is_counted_as_transformers_and_timm_build_it(name: str) -> None:
    """Each class transformers builds only with timm is counted exactly, as transformers 5.23 and timm 1.0.31 build it
    on meta (``CASES``): with the shipped networks where timm is missing, with timm where it is installed."""
    config, class_name, total = CASES[name]
    model = paramscope.from_config(config)
    assert (total, class_name, "transformers") == (
        paramscope.summarize(model).total,
        model.meta.class_name,
        model.counted_by,
    )


def test_detr_s_backbone_shows_timm_s_modules_with_its_batch_norms_frozen() -> None:
    """DETR's ResNet-18 backbone is timm's top-level modules under ``backbone/model``, each with timm's count less its
    batch norms' (DETR freezes them into buffers), as transformers and timm build DetrModel on meta: conv1 9,408,
    layer1 147,456, layer2 524,288, layer3 2,097,152, layer4 8,388,608 (bn1 holds no parameters left)."""
    model = paramscope.from_config({"model_type": "detr", "backbone": "resnet18"})
    backbone = model.summary.tree.find("backbone/model")
    assert backbone is not None
    assert {"conv1": 9_408, "layer1": 147_456, "layer2": 524_288, "layer3": 2_097_152, "layer4": 8_388_608} == {
        node.name: node.count for node in backbone.children
    }


def test_a_timm_network_s_note_names_it_and_the_timm_version() -> None:
    """Where timm is missing, the model's notes name the timm network taken from shipped data (its name and arguments)
    and the timm version whose counts they are; its tree nodes say they were not built here."""
    if importlib.util.find_spec("timm"):
        pytest.skip("timm is installed: the network is built by timm")
    model = paramscope.from_config({"model_type": "timm_wrapper"})
    layer = model.summary.tree.find("layer1")
    assert layer is not None
    assert (True, True) == (
        any('resnet50 {"num_classes": 0}' in note and "timm 1.0.31" in note for note in model.notes),
        "shipped as data" in layer.note,
    )


#: Configs naming a timm network whose count is not shipped -> the key the refusal names.
UNKNOWN = [
    ({"model_type": "detr", "backbone": "resnet26"}, "backbone"),
    ({"model_type": "detr", "num_channels": 1}, "config"),  # the class's default network, with in_chans=1
    ({"model_type": "timm_backbone", "backbone": "resnet50", "out_indices": [3]}, "backbone"),
    (
        {"model_type": "edgetam_vision_model", "backbone_config": REPVIT | {"architecture": "repvit_m2"}},
        "backbone_config.architecture",
    ),
    ({"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "model_args": {"depth": 3}}, "architecture"),
]


@pytest.mark.parametrize(("config", "field"), UNKNOWN, ids=[json.dumps(c)[:60] for c, _ in UNKNOWN])
def test_a_timm_network_not_shipped_is_refused_in_one_line_naming_its_key(config: dict, field: str) -> None:
    """A config whose class asks timm for a network (name and arguments) the data does not hold is refused in one line
    naming the config key that names it (``config`` where the class's default does) and the network's key."""
    from paramscope.engine.spec import SpecError

    if importlib.util.find_spec("timm"):
        pytest.skip("timm is installed: every network is built by timm")
    with pytest.raises(SpecError) as refused:
        _ = paramscope.from_config(config).summary
    message = refused.value.message
    assert (field, True, True, False) == (
        refused.value.field,
        "not shipped" in message and "where timm is installed" in message,
        len(message) < 500,
        "\n" in message,
    )


def test_the_shipped_networks_are_keyed_by_their_call_and_add_up() -> None:
    """Every shipped network's key is the text ``network_key`` makes of its name and arguments, its top-level modules
    add up to its total, their batch-norm parameters are within them and even (weight and bias), and a features-only
    network's feature_info returns stages it has. Needs no timm."""
    from paramscope.families.timm_stand_in import network_key, networks

    bad = []
    for key, entry in networks().items():
        name, _, args = key.partition(" ")
        groups = entry["groups"].values()
        info = entry["feature_info"]
        stages = info["info"] if isinstance(info, dict) else info
        ok = (
            network_key(name, json.loads(args)) == key
            and sum(n for n, _ in groups) == entry["total"]
            and all(0 <= bn <= n and bn % 2 == 0 for n, bn in groups)
            and all(-len(stages) <= i < len(stages) for i in (info["out_indices"] if isinstance(info, dict) else []))
        )
        if not ok:
            bad.append(key)
    assert [] == bad


def _timm() -> Any:
    """timm, or a skip where it is not installed (it needs torchvision)."""
    return pytest.importorskip("timm")


#: The shipped networks' keys (read without torch, at collection).
KEYS = sorted(json.loads(resources.files("paramscope.families").joinpath("timm_towers.json").read_text())["networks"])


@pytest.mark.parametrize("key", KEYS)
def test_a_shipped_network_is_timm_s(key: str) -> None:
    """Each shipped network equals timm's ``create_model`` with its name and arguments on meta: its top-level modules'
    parameters and those of their nn.BatchNorm2d layers, its feature_info's channels. Skipped where timm is not
    installed."""
    import torch

    from paramscope.families.timm_stand_in import networks

    timm = _timm()
    name, _, args = key.partition(" ")
    with torch.device("meta"):
        model = timm.create_model(name, pretrained=False, **json.loads(args))
    groups = {}
    for child_name, child in model.named_children():
        norms = [m for m in child.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        count = sum(p.numel() for p in child.parameters())
        if count:
            groups[child_name] = [count, sum(p.numel() for m in norms for p in m.parameters())]
    groups |= {n: [p.numel(), 0] for n, p in model.named_parameters(recurse=False)}
    info = model.feature_info
    channels = info.channels() if hasattr(info, "channels") else [stage["num_chs"] for stage in info]
    shipped = networks()[key]
    stages = shipped["feature_info"]
    shipped_channels = (
        [stages["info"][i]["num_chs"] for i in stages["out_indices"]]
        if isinstance(stages, dict)
        else [stage["num_chs"] for stage in stages]
    )
    assert (groups, channels) == (shipped["groups"], shipped_channels)
