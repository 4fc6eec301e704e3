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
    hf_cfg, model = hf_model(config)
    return hf_cfg, sum(p.numel() for p in model.parameters())


def hf_model(config: dict, dtype: torch.dtype | None = None, device: str = "meta") -> tuple[object, torch.nn.Module]:
    """The transformers config object built from ``config``, and its model class built on the meta device (under
    ``dtype`` as the default dtype, as ``from_pretrained(..., dtype=dtype)`` builds it before loading), or on
    ``device`` (the CPU inside a FakeTensorMode, to run it without memory)."""
    from transformers import AutoConfig

    from paramscope.families import FAMILIES, architecture_class, read
    from paramscope.families.wholes import WHOLES

    cfg_dict = copy.deepcopy(dict(config))  # some config classes write into nested dicts (DeepSeek-V4's rates)
    model_type = cfg_dict.pop("model_type")
    spec = read(config).spec if model_type in FAMILIES else None  # a whole model: its class names its towers
    archs = cfg_dict.get("architectures")
    if isinstance(archs, list) and archs:
        cls_name = archs[0]
    elif spec is None:
        cls_name = WHOLES[model_type].class_name
    else:
        cls_name = architecture_class(model_type, spec.architecture)
    cls = hf_class(model_type, cls_name)
    default = torch.get_default_dtype()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_cfg = AutoConfig.for_model(READ_AS.get(model_type, model_type), **cfg_dict)
        if dtype is not None:
            # from_pretrained(..., dtype=dtype) sets the dtype on the config and every sub-config (modeling_utils'
            # dtype resolution), so a tower's own stated dtype (PaliGemma's text_config says float32) is not the one
            # its AutoModel.from_config builds it in
            hf_cfg.dtype = dtype
            for key in getattr(hf_cfg, "sub_configs", {}):
                if (sub := getattr(hf_cfg, key, None)) is not None:
                    sub.dtype = dtype
        torch.set_default_dtype(dtype or default)
        try:
            with torch.device(device):
                model = cls(hf_cfg)
        finally:
            torch.set_default_dtype(default)
        if model_type in ("t5", "mt5") and spec and spec.lm_head and not spec.tie_word_embeddings:
            # transformers 5 always ties T5's (and mT5's) lm_head (T5Config.__post_init__ forces
            # tie_word_embeddings=True); the released T5 v1.1 / Flan-T5 checkpoints store a separate
            # lm_head.weight. The released model wins: untie it as transformers 4 did.
            model.lm_head.weight = torch.nn.Parameter(torch.empty_like(model.lm_head.weight))
    return hf_cfg, model


def hf_weight_bytes(config: dict, dtype: torch.dtype) -> int:
    """The bytes of the parameters (each once) that ``from_pretrained(..., dtype=dtype)`` loads: the class built
    under ``dtype``, each parameter at the dtype transformers' loader gives it (core_model_loading.py): float32 where a
    pattern of the class's dtype plan (``_keep_in_fp32_modules`` for fp16, ``_keep_in_fp32_modules_strict`` for
    fp16 and bf16) is found in its name, else the dtype the class built it in (a parameter the modeling file
    creates in float32 stays float32)."""
    import re

    _, model = hf_model(config, dtype)
    plan = model._get_dtype_plan(dtype)
    kept = re.compile("|".join(pattern.replace("*", ".*") for pattern in plan)) if plan else None
    return sum(
        p.numel() * (4 if kept is not None and kept.search(name) else p.element_size())
        for name, p in model.named_parameters()
    )


def hf_mxfp4_bytes(config: dict) -> tuple[int, int]:
    """gpt-oss in MXFP4, as its checkpoint and transformers' MXFP4 integration hold it: the class built in bf16 on meta
    with each layer's experts replaced by transformers' ``Mxfp4GptOssExperts`` (two 4-bit values a byte, the biases in
    fp32), plus the checkpoint's scales, one byte per block of 32 values (``*_scales``, uint8 [experts, rows, in/32]:
    a sixteenth of the packed bytes). Returns the bytes of the whole model and of its experts."""
    from transformers.integrations.mxfp4 import Mxfp4GptOssExperts

    hf_cfg, model = hf_model(config, torch.bfloat16)
    experts = 0
    for layer in model.model.layers:
        with torch.device("meta"):
            layer.mlp.experts = Mxfp4GptOssExperts(hf_cfg)
        params = list(layer.mlp.experts.parameters())
        experts += sum(p.numel() * p.element_size() for p in params)
        experts += sum(p.numel() for p in params if p.dtype == torch.uint8) // 16
    rest = sum(p.numel() * p.element_size() for n, p in model.named_parameters() if ".experts." not in n)
    return rest + experts, experts
