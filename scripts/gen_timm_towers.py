"""Regenerate src/paramscope/families/timm_towers.json: the parameter count of each timm vision tower a whole model's
config names by ``vision_config.architecture`` (Gemma 3n's MobileNetV5), which no config key sizes.

transformers builds such a tower with TimmWrapperModel: ``timm.create_model(architecture, pretrained=False,
num_classes=0, **model_args)``. This script does the same on the meta device (no weights, no download) for each known
architecture, with ``model_args`` unset, and writes its total and its top-level modules (stem, blocks, msfa) as plain
data, so that the runtime needs neither timm nor torch. The count is timm's for that architecture at the timm version
recorded in the file.

timm imports torchvision, which cannot be installed beside the CPU torch wheel used here. Run it in a throwaway
environment with timm installed, importing a stand-in for torchvision first if the real one is missing (nothing
this script builds calls torchvision): ``python scripts/gen_timm_towers.py --torchvision-stub path/to/stub.py``, where
the stub module registers an import hook that answers ``import torchvision`` with empty modules.
"""

import argparse
import importlib.util
import json
import pathlib

#: The whole model types whose vision tower is timm's, by the vision config's model_type, and the architectures known
#: for each (the config class's default first).
ARCHITECTURES = {"gemma3n_vision": ["mobilenetv5_300m_enc", "mobilenetv5_300m", "mobilenetv5_base"]}

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
for model_type, names in ARCHITECTURES.items():
    config = CONFIG_MAPPING[model_type]()
    assert config.architecture == names[0], (model_type, config.architecture)
    towers = {}
    for name in names:
        with torch.device("meta"):
            model = timm.create_model(name, pretrained=False, num_classes=0)
        groups = {n: sum(p.numel() for p in m.parameters()) for n, m in model.named_children()}
        total = sum(p.numel() for p in model.parameters())
        assert total == sum(groups.values()), name  # every parameter sits in a top-level module
        towers[name] = {
            "total": total,
            "num_features": int(model.num_features),
            "groups": {n: c for n, c in groups.items() if c},
        }
    out["towers"][model_type] = {"default_architecture": config.architecture, "architectures": towers}
path = pathlib.Path(__file__).resolve().parents[1] / "src" / "paramscope" / "families" / "timm_towers.json"
path.write_text(json.dumps(out, indent=1) + "\n")
counts = [f"{n} {t['total']:,}" for v in out["towers"].values() for n, t in v["architectures"].items()]
print(f"wrote {path}: " + ", ".join(counts))
