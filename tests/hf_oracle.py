"""The oracle: build the real transformers model from a config on the meta device and count."""

from __future__ import annotations

import copy
import warnings

import torch


def hf_count(config: dict) -> int:
    """sum(p.numel() for p in model.parameters()) of the transformers class named by the config."""
    return hf_build(config)[1]


#: Hub model types transformers does not know, and the type whose classes their ``architectures`` name.
READ_AS = {"kimi_k2": "deepseek_v3"}


def hf_class(model_type: str, name: str) -> type:
    """The transformers class ``name``: exported at the top level, or from the modeling file the type's row mirrors
    (Qwen2-VL's vision tower, Qwen2VisionTransformerPretrainedModel, is not exported)."""
    import importlib

    import transformers

    from paramscope.families import FAMILIES

    found = getattr(transformers, name, None)
    if found is None:
        module = FAMILIES[model_type].source.split("/models/", 1)[1].removesuffix(".py").replace("/", ".")
        found = getattr(importlib.import_module(f"transformers.models.{module}"), name)
    return found


def hf_build(config: dict) -> tuple[object, int]:
    """The transformers config object built from ``config``, and the parameter count of its model class."""
    from transformers import AutoConfig

    from paramscope.families import architecture_class, read

    cfg_dict = copy.deepcopy(dict(config))  # some config classes write into nested dicts (DeepSeek-V4's rates)
    model_type = cfg_dict.pop("model_type")
    spec = read(config).spec
    cls_name = architecture_class(model_type, spec.architecture)
    archs = cfg_dict.get("architectures")
    if isinstance(archs, list) and archs:
        cls_name = archs[0]
    cls = hf_class(model_type, cls_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_cfg = AutoConfig.for_model(READ_AS.get(model_type, model_type), **cfg_dict)
        with torch.device("meta"):
            model = cls(hf_cfg)
        if model_type in ("t5", "mt5") and spec.lm_head and not spec.tie_word_embeddings:
            # transformers 5 always ties T5's (and mT5's) lm_head (T5Config.__post_init__ forces
            # tie_word_embeddings=True); the released T5 v1.1 / Flan-T5 checkpoints store a separate
            # lm_head.weight. The released model wins: untie it as transformers 4 did.
            model.lm_head.weight = torch.nn.Parameter(torch.empty_like(model.lm_head.weight))
    return hf_cfg, sum(p.numel() for p in model.parameters())
