"""Regenerate src/paramscope/families/hf_defaults.json (the defaults of each supported transformers config class),
hf_not_null.json (the keys each class refuses as null), hf_late_keys.json (the keys each class applies after its own
parameters, which win beside the attribute they name) and hf_wholes.json (how each whole model's config class reads
its towers' sub-configs).

config.json files omit keys that equal their class's defaults, so the reader needs those defaults. They are
read here from the installed transformers (a dev requirement) and committed as plain data, so the runtime
needs neither torch nor transformers. Run: python scripts/gen_hf_defaults.py
"""

import inspect
import json
import pathlib
import re
import sys
import types
import typing
import warnings

import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING
from transformers.models.auto.modeling_auto import (
    MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
    MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES,
)

from paramscope.families import FAMILIES
from paramscope.families.wholes import WHOLES

#: Sub-config classes a row's hook reads (T5Gemma's encoder and decoder), not in CONFIG_MAPPING, and towers a whole
#: model counts from shipped data, not a row (Gemma 3n's timm vision tower: its width and vocab_size size embed_vision;
#: TimmWrapperConfig, FastVLM's and PerceptionLM's: its default architecture and model_args).
SUB_CONFIGS = {
    "t5gemma_module": "T5GemmaModuleConfig",
    "gemma3n_vision": "Gemma3nVisionConfig",
    "timm_wrapper": "TimmWrapperConfig",
}


def signature_defaults(cls: type) -> dict:
    """The signature's defaults, not an instance's attributes: an instance fills derived keys (head_dim,
    num_key_value_heads, ...) from the default sizes, which would be wrong for any other size."""
    d = {
        k: p.default
        for k, p in inspect.signature(cls.__init__).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    keep = {}
    for k, v in d.items():
        if k in ("layer_types", "transformers_version", "_name_or_path"):
            continue
        if isinstance(v, (int, float, str, bool)) or v is None:
            keep[k] = v
        elif isinstance(v, (list, tuple)) and len(v) < 64:  # a tuple default is a list in a config.json
            keep[k] = list(v)
    return keep


out = {}
for model_type in sorted({row.hf_type for row in FAMILIES.values()} | set(SUB_CONFIGS)):
    if model_type == "paramscope":
        continue
    cls = getattr(transformers, SUB_CONFIGS[model_type]) if model_type in SUB_CONFIGS else CONFIG_MAPPING[model_type]
    out[model_type] = signature_defaults(cls)
path = pathlib.Path(__file__).resolve().parents[1] / "src" / "paramscope" / "families" / "hf_defaults.json"
path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
print(f"wrote {path} ({len(out)} model types)")


def _nullable(hint: object) -> bool:
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    return hint is typing.Any or hint is type(None) or (union and type(None) in typing.get_args(hint))


def _refuses_null(cls: type, key: str) -> bool:
    """Whether the class refuses ``key: null`` (its type says so, and building it fails: some inherited keys are not
    checked)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls(**{key: None})
    except Exception:  # noqa: BLE001 - any refusal counts
        return True
    return False


# The keys each config class refuses as null (its type hint admits no None: huggingface_hub's strict dataclass check
# rejects the whole config), so that the reader refuses a file stating them null, naming the key.
not_null = {}
for model_type in out:
    cls = getattr(transformers, SUB_CONFIGS[model_type]) if model_type in SUB_CONFIGS else CONFIG_MAPPING[model_type]
    names = {"torch": torch}
    for base in cls.__mro__:
        names.update(vars(sys.modules[base.__module__]))
    hints = typing.get_type_hints(cls, globalns=names)
    fields = inspect.signature(cls.__init__).parameters  # the config's keys, not class attributes
    typed = sorted(k for k, h in hints.items() if k in fields and not _nullable(h))
    not_null[model_type] = [k for k in typed if _refuses_null(cls, k)]
path = path.with_name("hf_not_null.json")
path.write_text(json.dumps(not_null, indent=1, sort_keys=True) + "\n")
print(f"wrote {path}")


#: A legacy name a config class's ``__post_init__`` takes out of the remaining keys (BloomConfig's n_embed).
POPPED = re.compile(r"kwargs\.pop\(\s*[\"'](\w+)[\"']")

# The keys each config class applies after its own parameters: transformers 5 sets the dataclass fields first, then
# its __post_init__ takes the legacy names it knows (BLOOM's n_embed, LFM2's block_ff_dim and tie_embedding,
# Nemotron-H's mamba_n_groups) and sets every remaining key through attribute_map (GPT-2's hidden_size is n_embd;
# Qwen3-MoE's num_local_experts is where its num_experts parameter is kept). A file stating one of these beside the
# attribute it names gets this one, whatever the order: the reader takes it first.
late = {}
for model_type in out:
    cls = getattr(transformers, SUB_CONFIGS[model_type]) if model_type in SUB_CONFIGS else CONFIG_MAPPING[model_type]
    params = set(inspect.signature(cls.__init__).parameters)
    popped = set()
    for base in cls.__mro__:
        if base is transformers.PreTrainedConfig or not issubclass(base, transformers.PreTrainedConfig):
            break
        if "__post_init__" in vars(base):
            popped.update(POPPED.findall(inspect.getsource(vars(base)["__post_init__"])))
    names = ({*cls.attribute_map, *cls.attribute_map.values()} | popped) - params
    if names:
        late[model_type] = sorted(names)
path = path.with_name("hf_late_keys.json")
path.write_text(json.dumps(late, indent=1, sort_keys=True) + "\n")
print(f"wrote {path}")


def _quiet(cls: type, **kwargs: object) -> object:
    """``cls(**kwargs)`` without transformers' warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(**kwargs)


#: Whole models whose config class is its language model's config too (Phi4MultimodalConfig: the text model's keys at
#: the top level, no text_config), by the type whose row reads those keys: a text_config is declared for it, laid over
#: the whole class's own defaults for those keys, and read from the top level whatever the file holds.
TEXT_AT_TOP = {"phi4_multimodal": "phi3"}

# How each whole model's config class reads its towers (its sub_configs_defaults: the class, or the default type of
# an AutoConfig sub-config, and the values used when the file leaves it out), and what it does after: whether it moves
# top-level text keys into a missing text_config (the keys it moves), and whether it takes the text config's
# tie_word_embeddings when its own is false (read by building the config, not from its source); and whether the
# model class ties its LM head at all (its _tied_weights_keys: Qwen2-Audio's and Voxtral's declare none).
wholes = {}
for model_type in sorted(WHOLES):
    cls = CONFIG_MAPPING[model_type]
    subs = {}
    for key, declared in cls.sub_configs_defaults.items():
        auto = not issubclass(declared.config_class, transformers.PreTrainedConfig)
        init = json.loads(json.dumps(declared.init_kwargs))
        # whether a sub-config the file states is laid over the starting values (Voxtral's text_config) or read alone
        # (judged on the starting values that differ from the sub-config class's own defaults; rope_theta is moved)
        stated = getattr(_quiet(cls, **{key: {"model_type": declared.model_type}}), key, None)
        alone = _quiet(CONFIG_MAPPING[declared.model_type])
        differ = {k: v for k, v in init.items() if getattr(alone, k, None) not in (v, None)}
        merged = bool(differ) and all(getattr(stated, k, None) == v for k, v in differ.items())
        # whether a "<key>_dict" in the file replaces the sub-config (CLIP's text_config_dict: the class's defaults
        # and that dict, whatever text_config says)
        probe = {
            key: {"model_type": declared.model_type, "num_hidden_layers": 3},
            f"{key}_dict": {"num_hidden_layers": 5},
        }
        by_dict = getattr(getattr(_quiet(cls, **probe), key, None), "num_hidden_layers", None) == 5
        subs[key] = {
            "type": declared.model_type,
            "auto": auto,
            "init": init,
            "optional": declared.optional,
            "over_init": merged,
            "by_dict": by_dict,
        }
    text = subs.get("text_config")
    text_keys: list[str] = []
    tie_from_text = False
    if model_type in TEXT_AT_TOP:
        text_type = TEXT_AT_TOP[model_type]
        known = {*inspect.signature(CONFIG_MAPPING[text_type].__init__).parameters, "rope_scaling", "rope_theta"}
        own = signature_defaults(cls)
        names = [*inspect.signature(cls.__init__).parameters, "rope_scaling", "rope_theta"]
        text_keys = [k for k in names if k in known and k not in ("self", "kwargs", "architectures")]
        subs["text_config"] = {
            "type": text_type,
            "auto": False,
            "init": {k: own[k] for k in text_keys if k in own},
            "optional": False,
            "over_init": True,
            "by_dict": False,
        }
    elif text is not None:
        text_cls = CONFIG_MAPPING[text["type"]]
        probe = 12_345
        moved = _quiet(cls, max_position_embeddings=probe)
        if getattr(moved.text_config, "max_position_embeddings", None) == probe:
            names = [*inspect.signature(text_cls.__init__).parameters, "rope_parameters", "rope_scaling", "rope_theta"]
            text_keys = [k for k in names if k not in ("self", "kwargs", "architectures")]
        tied = _quiet(
            cls, text_config={"model_type": text["type"], "tie_word_embeddings": True}, tie_word_embeddings=False
        )
        tie_from_text = bool(getattr(tied, "tie_word_embeddings", False))
    language_types = {}
    if WHOLES[model_type].language == "lm":  # BLIP-2: AutoModelForCausalLM for a causal LM, else AutoModelForSeq2SeqLM
        # the types a row reads whose config has a hidden_size (language_projection's width: T5Gemma's has none)
        rows = {
            row.model_type: row.hf_type
            for row in FAMILIES.values()
            if row.hf_type in CONFIG_MAPPING and hasattr(_quiet(CONFIG_MAPPING[row.hf_type]), "hidden_size")
        }
        for language, mapping in (
            ("causal_lm", MODEL_FOR_CAUSAL_LM_MAPPING_NAMES),
            ("seq2seq_lm", MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES),
        ):
            language_types[language] = sorted(t for t, hf_type in rows.items() if hf_type in mapping)
    wholes[model_type] = {
        **({"language_types": language_types} if language_types else {}),
        "defaults": signature_defaults(cls),
        "subs": subs,
        **({"text_at_top": True} if model_type in TEXT_AT_TOP else {}),
        "text_keys": sorted(set(text_keys)),
        "tie_from_text": tie_from_text,
        "ties_head": bool(getattr(transformers, WHOLES[model_type].class_name)._tied_weights_keys),
    }
path = path.with_name("hf_wholes.json")
path.write_text(json.dumps(wholes, indent=1, sort_keys=True) + "\n")
print(f"wrote {path} ({len(wholes)} whole models)")

# How a row type ties, where a whole model ties its LM head to ``model.language_model.embed_tokens``: the types whose
# base model (AutoModel's class) has ``embed_tokens`` (GPT2Model, OPTModel and T5Model have none: transformers cannot
# tie over them), and the types whose config ties whatever the file says (T5Config sets it True).
from transformers.models.auto.modeling_auto import MODEL_MAPPING  # noqa: E402

with_embed_tokens = []
for model_type in sorted({row.hf_type for row in FAMILIES.values()} & set(CONFIG_MAPPING)):
    config_class = CONFIG_MAPPING[model_type]
    try:
        base = MODEL_MAPPING[config_class]
    except KeyError:
        continue
    # its __init__ sets it (read, not built: some classes' defaults build nothing, their head_dim left to the file);
    # where the defaults build, the built model must agree
    sets = "self.embed_tokens =" in inspect.getsource(base.__init__)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        try:
            built = base._from_config(_quiet(config_class))
            assert sets == isinstance(getattr(built, "embed_tokens", None), torch.nn.Module), model_type
        except AssertionError:
            raise
        except Exception:
            pass
    if sets:
        with_embed_tokens.append(model_type)
always_tied = sorted(
    model_type
    for model_type in {row.hf_type for row in FAMILIES.values()} & set(CONFIG_MAPPING)
    if getattr(_quiet(CONFIG_MAPPING[model_type], tie_word_embeddings=False), "tie_word_embeddings", None) is True
)
path = path.with_name("hf_tying.json")
path.write_text(json.dumps({"embed_tokens": with_embed_tokens, "always_tied": always_tied}, indent=1) + "\n")
print(f"wrote {path} ({len(with_embed_tokens)} types with embed_tokens, {len(always_tied)} always tied)")

# Each config class's attribute_map: a file stating the name (BART's hidden_size) sets the attribute it names (d_model);
# and the names it sets only after its __post_init__ derived other values from that attribute's default (T5's
# num_hidden_layers: num_decoder_layers follows num_layers' default 6; DBRX's hidden_size: ffn_config.hidden_size
# keeps 2048), found by stating each name, then the attribute, with a whole number and comparing the two configs.
aliases, after_derived = {}, {}
for model_type in out:
    cls = getattr(transformers, SUB_CONFIGS[model_type]) if model_type in SUB_CONFIGS else CONFIG_MAPPING[model_type]
    if not cls.attribute_map:
        continue
    aliases[model_type] = dict(sorted(cls.attribute_map.items()))
    for alias, target in sorted(cls.attribute_map.items()):
        default = out[model_type].get(target)
        if type(default) is not int:
            continue
        try:
            by_alias, by_target = (_quiet(cls, **{key: default * 2 + 2}).to_dict() for key in (alias, target))
        except Exception:
            continue
        if by_alias != by_target:
            after_derived.setdefault(model_type, []).append(alias)
path = path.with_name("hf_attribute_maps.json")
path.write_text(json.dumps({"maps": aliases, "after_derived": after_derived}, indent=1, sort_keys=True) + "\n")
print(f"wrote {path}")
