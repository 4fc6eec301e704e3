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

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torchvision-stub", type=pathlib.Path, help="a module to import before timm (see above)")
args = parser.parse_args()
if args.torchvision_stub is not None:
    spec = importlib.util.spec_from_file_location("torchvision_stub", args.torchvision_stub)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))

import timm  # noqa: E402
import torch  # noqa: E402
from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: E402

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
path = pathlib.Path(__file__).resolve().parents[1] / "src" / "paramscope" / "families" / "timm_towers.json"
path.write_text(json.dumps(out, indent=1) + "\n")
counts = [
    f"{n} {json.dumps(t['model_args'])} {t['total']:,}"
    for v in out["towers"].values()
    for n, ts in v["architectures"].items()
    for t in ts
]
print(f"wrote {path}: " + ", ".join(counts))
