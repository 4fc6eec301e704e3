"""Regenerate src/paramscope/families/timm_towers.json: the parameter count of each timm vision tower a whole model's
config names by ``vision_config.architecture`` and ``vision_config.model_args`` (Gemma 3n's MobileNetV5; FastVLM's
FastViT-HD and PerceptionLM's Perception Encoder, through TimmWrapperConfig), which no config key sizes.

transformers builds such a tower with TimmWrapperModel: ``timm.create_model(architecture, pretrained=False,
num_classes=0, **model_args)``. This script does the same on the meta device (no weights, no download) for each known
architecture and each known ``model_args`` (the arguments change the network: FastViT's ``inference_mode`` folds its
branches into one convolution, the Perception Encoder's set its width, depth and image size), and writes its total and
its top-level modules and parameters (stem, stages, blocks, pos_embed, ...) as plain data, so that the runtime needs
neither timm nor torch. The count is timm's for that architecture and those arguments at the timm version recorded in
the file.

timm imports torchvision, which cannot be installed beside the CPU torch wheel used here. Run it in a throwaway
environment with timm installed, importing a stand-in for torchvision first if the real one is missing (nothing
this script builds calls torchvision): ``python scripts/gen_timm_towers.py --torchvision-stub path/to/stub.py``, where
the stub module registers an import hook that answers ``import torchvision`` with empty modules.

It also writes ``networks``: every timm network the classes transformers builds only with timm ask for (TimmBackbone's
and TimmWrapperModel's ``timm.create_model`` calls, made while building each class in :data:`CALLERS` on meta with
timm), keyed by the call's name and arguments (``paramscope.families.timm_stand_in.network_key``), each with its
top-level modules' parameters (and, apart, those of their ``nn.BatchNorm2d`` layers, which the DETR family freezes
into buffers) and the ``feature_info`` transformers reads; the deployed page builds those classes with a stand-in
answering the same calls from this data (``timm_stand_in``).
"""

import argparse
import importlib.util
import json
import pathlib

#: The Perception Encoder's arguments in PerceptionLM's released checkpoints (facebook/Perception-LM-1B/3B: the large
#: PE, 1,024 wide, 23 layers; 8B: the gigantic PE, 1,536 wide, 47 layers), as transformers' conversion script
#: (convert_perception_lm_weights_to_hf.py) writes them: 448-pixel tiles of 14-pixel patches, no pooling head, no norm
#: after the blocks, layer scale.
_PE = {"img_size": [448, 448], "global_pool": "", "use_post_transformer_norm": False, "ref_feat_shape": [32, 32]}
PE_ARGS = {
    "vit_pe_core_large_patch14_336": [_PE | {"embed_dim": 1024, "depth": 23, "init_values": 0.1}],
    "vit_pe_core_gigantic_patch14_448": [_PE | {"embed_dim": 1536, "depth": 47, "init_values": 0.1}],
}
#: FastVLM's FastViT-HD as its config builds it (reparameterized: ``inference_mode``) and as timm builds it alone.
FASTVIT_ARGS = [{}, {"inference_mode": True}]

#: The towers counted from this data, by the vision config's model_type: the config class's default architecture, and
#: each architecture known with the ``model_args`` known for it ({} for none).
ARCHITECTURES: dict[str, dict[str, list[dict]]] = {
    "gemma3n_vision": {"mobilenetv5_300m_enc": [{}], "mobilenetv5_300m": [{}], "mobilenetv5_base": [{}]},
    "timm_wrapper": {"resnet50": [{}], **{f"fastvit_mci{i}": FASTVIT_ARGS for i in range(5)}, **PE_ARGS},
}

#: The backbones the DETR family's checkpoints name (DETR and Conditional DETR: ResNet-50 and -101, plain and DC5;
#: Table Transformer: ResNet-18; Deformable DETR and DAB-DETR: ResNet-50) and their neighbours.
RESNETS = [f"resnet{depth}" for depth in (18, 34, 50, 101, 152)]
DETR = ["detr", "conditional_detr", "deformable_detr", "dab-detr", "table-transformer"]
#: EdgeTAM's released vision tower (its class default names ``archirecture``, a typo, so it builds resnet50), with the
#: labels TimmWrapperConfig.to_dict writes (a nested TimmWrapperConfig read without them fails in transformers).
REPVIT = {"in_chans": 3, "features_only": True, "out_indices": [0, 1, 2, 3]}
LABELS = {"num_classes": 2, "label_names": ["LABEL_0", "LABEL_1"]}
#: The configs built to record the timm networks their classes ask for: (config, class name or "" for AutoModel).
CALLERS: list[tuple[dict, str]] = [
    *(({"model_type": t, "backbone": b}, "") for t in DETR for b in RESNETS),
    *(({"model_type": t, "backbone": b, "dilation": True}, "") for t in DETR for b in RESNETS),
    ({"model_type": "deformable_detr", "num_feature_levels": 1}, ""),
    ({"model_type": "omdet-turbo"}, ""),
    *(({"model_type": "timm_backbone", "backbone": b}, "") for b in RESNETS),
    *(({"model_type": "timm_wrapper", "architecture": b}, "") for b in RESNETS),
    *(
        ({"model_type": "timm_wrapper", "architecture": b, "num_labels": 1000}, "TimmWrapperForImageClassification")
        for b in RESNETS
    ),
    *(
        ({"model_type": "timm_wrapper", "architecture": name, "model_args": model_args}, "")
        for name, variants in ARCHITECTURES["timm_wrapper"].items()
        for model_args in variants
    ),
    ({"model_type": "edgetam"}, ""),
    ({"model_type": "edgetam_vision_model"}, ""),
    *(
        ({"model_type": "edgetam", "vision_config": {"backbone_config": backbone}}, "")
        for backbone in (
            {"model_type": "timm_wrapper", "architecture": name, "model_args": REPVIT} | LABELS
            for name in ("repvit_m1", "repvit_m1.dist_in1k")
        )
    ),
    *(
        ({"model_type": "edgetam_vision_model", "backbone_config": backbone}, "")
        for backbone in (
            {"model_type": "timm_wrapper", "architecture": name, "model_args": REPVIT} | LABELS
            for name in ("repvit_m1", "repvit_m1.dist_in1k")
        )
    ),
    *(({"model_type": t}, "") for t in ("pe_video", "pe_video_encoder", "pe_audio_video", "pe_audio_video_encoder")),
]

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torchvision-stub", type=pathlib.Path, help="a module to import before timm (see above)")
args = parser.parse_args()
if args.torchvision_stub is not None:
    spec = importlib.util.spec_from_file_location("torchvision_stub", args.torchvision_stub)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))

import timm  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: E402

from paramscope.families.timm_stand_in import network_key  # noqa: E402

out: dict = {"timm_version": timm.__version__, "towers": {}}
for model_type, known in ARCHITECTURES.items():
    config = CONFIG_MAPPING[model_type]()
    assert config.architecture == next(iter(known)), (model_type, config.architecture)
    towers: dict[str, list[dict]] = {}
    for name, variants in known.items():
        towers[name] = []
        for model_args in variants:
            with torch.device("meta"):
                model = timm.create_model(name, pretrained=False, num_classes=0, **model_args)
            groups = {n: sum(p.numel() for p in m.parameters()) for n, m in model.named_children()}
            groups |= {n: p.numel() for n, p in model.named_parameters(recurse=False)}  # pos_embed, cls_token
            total = sum(p.numel() for p in model.parameters())
            assert total == sum(groups.values()), name  # every parameter sits in a top-level module or is one
            towers[name].append(
                {
                    "model_args": model_args,
                    "total": total,
                    "num_features": int(model.num_features),
                    "groups": {n: c for n, c in groups.items() if c},
                }
            )
    out["towers"][model_type] = {"default_architecture": config.architecture, "architectures": towers}


def _plain(info: dict) -> dict:
    """A feature_info stage as plain data (its numbers and names)."""
    return {k: v for k, v in info.items() if isinstance(v, (int, str)) and not isinstance(v, bool)}


def _network(model: torch.nn.Module) -> dict:
    """A network's top-level modules (and own parameters) as ``[parameters, of which in nn.BatchNorm2d]``, its
    feature_info and num_features."""
    groups: dict[str, list[int]] = {}
    for n, m in model.named_children():
        norms = sum(p.numel() for k in m.modules() if isinstance(k, torch.nn.BatchNorm2d) for p in k.parameters())
        if isinstance(m, torch.nn.BatchNorm2d):
            norms = sum(p.numel() for p in m.parameters())
        groups[n] = [sum(p.numel() for p in m.parameters()), norms]
    groups |= {n: [p.numel(), 0] for n, p in model.named_parameters(recurse=False)}
    total = sum(p.numel() for p in model.parameters())
    assert total == sum(g[0] for g in groups.values())
    info = getattr(model, "feature_info", None)
    if hasattr(info, "out_indices"):
        feature_info: object = {"info": [_plain(i) for i in info.info], "out_indices": list(info.out_indices)}
    else:
        feature_info = [_plain(i) for i in info or ()]
    return {
        "total": total,
        "groups": {n: g for n, g in groups.items() if g[0]},
        "feature_info": feature_info,
        "num_features": int(model.num_features) if hasattr(model, "num_features") else None,
    }


recorded: dict[str, dict] = {}
create_model = timm.create_model


def _recording(model_name: str, *a: object, **kwargs: object) -> torch.nn.Module:
    model = create_model(model_name, *a, **kwargs)
    recorded.setdefault(network_key(model_name, kwargs), _network(model))
    return model


timm.create_model = _recording
for case, class_name in CALLERS:
    rest = dict(case)
    config = transformers.AutoConfig.for_model(rest.pop("model_type"), **rest)
    cls = getattr(transformers, class_name) if class_name else transformers.AutoModel
    with torch.device("meta"):
        cls.from_config(config) if not class_name else cls(config)
timm.create_model = create_model
out["networks"] = dict(sorted(recorded.items()))
# TimmWrapperConfig.from_dict names a config's labels, where it names none, after the ImageNet subset its num_classes
# implies (timm.data.infer_imagenet_subset): the subsets and how many labels each has.
subsets: dict[str, list] = {}
for num_classes, subset in timm.data.imagenet_info._NUM_CLASSES_TO_SUBSET.items():
    try:
        subsets[str(num_classes)] = [subset, len(timm.data.ImageNetInfo(subset).label_names())]
    except AssertionError:  # a subset ImageNetInfo does not hold: transformers fails on it too
        continue
out["imagenet_subsets"] = subsets

path = pathlib.Path(__file__).resolve().parents[1] / "src" / "paramscope" / "families" / "timm_towers.json"
path.write_text(json.dumps(out, indent=1) + "\n")
counts = [
    f"{n} {json.dumps(t['model_args'])} {t['total']:,}"
    for v in out["towers"].values()
    for n, ts in v["architectures"].items()
    for t in ts
]
print(f"wrote {path}: " + ", ".join(counts) + f"; {len(recorded)} networks")
