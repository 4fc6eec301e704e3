"""Read a Hugging Face ``config.json`` (or a preset, or a share link) into a :class:`Spec`, and back.

One reader serves every input. For each supported ``model_type`` a *family* says how the config's keys
map onto the spec and which structure the transformers class builds (norm kind, norms per layer, where
the biases are). Missing keys take the transformers class's own defaults (``hf_defaults.json``,
generated from the installed transformers by ``scripts/gen_hf_defaults.py``), because real
config.json files omit keys equal to their defaults. Keys the reader does not use are reported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .spec import FIELDS, Spec, resolve, validate

#: The largest config file accepted (bytes). Real ones are a few kB.
MAX_CONFIG_BYTES = 1_000_000


@dataclass(frozen=True)
class ReadResult:
    spec: Spec
    ignored: tuple[str, ...]  # keys present in the input that the count does not use
    model_type: str


class _Cfg:
    """A config dict that remembers which keys were read and falls back to the class defaults."""

    def __init__(self, data: Mapping[str, Any], defaults: Mapping[str, Any]):
        self.data = data
        self.defaults = defaults
        self.used: set[str] = set()

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def get(self, *keys: str, default: Any = None) -> Any:
        """The first of ``keys`` present in the config, else in the class defaults, else ``default``."""
        for key in keys:
            self.used.add(key)
        for key in keys:
            if key in self.data:  # an explicit null means "derive it", as transformers reads it
                value = self.data[key]
                return default if value is None else value
        for key in keys:
            if key in self.defaults and self.defaults[key] is not None:
                return self.defaults[key]
        return default

    def int(self, *keys: str, default: Any = None) -> Any:
        value = self.get(*keys, default=default)
        return _as_int(keys[0], value) if value is not None else None

    def bool(self, *keys: str, default: Any = None) -> Any:
        value = self.get(*keys, default=default)
        return _as_bool(keys[0], value) if value is not None else None


def _as_int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name}: expected a whole number, got {json.dumps(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        raise ValueError(f"{name}: expected a whole number, got {value!r}")
    if isinstance(value, str):
        text = value.strip().replace("_", "").replace(",", "")
        if text.lstrip("+-").isdigit() and len(text) <= 24:
            return int(text)
        raise ValueError(f"{name}: expected a whole number, got {value[:40]!r}")
    raise ValueError(f"{name}: expected a whole number, got a {type(value).__name__}")


def _as_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
        return value.strip().lower() in ("true", "1", "yes", "on")
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{name}: expected true or false, got {str(value)[:40]!r}")


def _arch_kind(c: _Cfg, default: str) -> str:
    """The head chosen by ``architectures``: ...ForCausalLM / ...LMHeadModel, ...ForMaskedLM, ...Model."""
    archs = c.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        name = archs[0]
        if name.endswith(("ForCausalLM", "LMHeadModel")):
            return "causal_lm"
        if name.endswith("ForMaskedLM"):
            return "masked_lm"
        if name.endswith("ForConditionalGeneration"):
            return "seq2seq_lm"
        if name.endswith("Model") and "For" not in name:
            return "base"
        raise ValueError(
            f"architectures: {name!r} is not supported; use a ...ForCausalLM, ...LMHeadModel, "
            "...ForMaskedLM, ...ForConditionalGeneration or bare ...Model class"
        )
    return default


# ------------------------------------------------------------------------------------- families
def _gpt2(c: _Cfg) -> dict:
    h = c.int("n_embd", "hidden_size")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=h,
        num_hidden_layers=c.int("n_layer", "num_hidden_layers"),
        num_attention_heads=c.int("n_head", "num_attention_heads"),
        intermediate_size=c.int("n_inner", default=4 * h),
        hidden_act=c.get("activation_function"),
        attention_bias=True,
        mlp_bias=True,
        max_position_embeddings=c.int("n_positions", "max_position_embeddings"),
        tie_word_embeddings=c.bool("tie_word_embeddings", default=True),
        architecture=_arch_kind(c, "causal_lm"),
        position_embedding="learned",
    )


def _gpt_bigcode(c: _Cfg) -> dict:
    d = _gpt2(c)
    d["num_key_value_heads"] = 1 if c.bool("multi_query") else d["num_attention_heads"]
    return d


def _llama_like(c: _Cfg, **structure: Any) -> dict:
    """Llama and its relatives: RMSNorm, gated MLP, rotary positions, GQA, explicit head_dim."""
    d = dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("hidden_size"),
        num_hidden_layers=c.int("num_hidden_layers"),
        num_attention_heads=c.int("num_attention_heads"),
        num_key_value_heads=c.int("num_key_value_heads"),
        head_dim=c.int("head_dim"),
        intermediate_size=c.int("intermediate_size"),
        hidden_act=c.get("hidden_act", "hidden_activation"),
        mlp_gated=True,
        norm_type="rmsnorm",
        norm_bias=False,
        position_embedding="rotary",
        max_position_embeddings=c.int("max_position_embeddings"),
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
        sliding_window=_window(c),
    )
    d.update(structure)
    return d


def _window(c: _Cfg) -> int | None:
    use = c.get("use_sliding_window")
    window = c.get("sliding_window")
    if use is False or not window or isinstance(window, bool):
        return None
    return _as_int("sliding_window", window)


def _llama(c: _Cfg) -> dict:
    bias = c.bool("attention_bias", default=False)
    return _llama_like(c, attention_bias=bias, mlp_bias=c.bool("mlp_bias", default=False))


def _mistral(c: _Cfg) -> dict:
    return _llama_like(c)


def _qwen2(c: _Cfg) -> dict:
    return _llama_like(c, attention_bias=True, attention_out_bias=False)


def _qwen3(c: _Cfg) -> dict:
    return _llama_like(c, attention_bias=c.bool("attention_bias", default=False), qk_norm="head")


def _gemma(c: _Cfg) -> dict:
    return _llama_like(c, attention_bias=c.bool("attention_bias", default=False))


def _gemma2(c: _Cfg) -> dict:
    d = _gemma(c)
    d["norms_per_layer"] = 4
    types = c.get("layer_types")
    n = d["num_hidden_layers"]
    if isinstance(types, list):
        sliding = sum(1 for t in types[:n] if t == "sliding_attention")
    else:
        sliding = (n + 1) // 2  # transformers: layers 0, 2, 4, ... slide
    d["sliding_window_layers"] = sliding
    if sliding == 0:  # 0 would mean "every layer" (Mistral style): no layer slides here
        d["sliding_window"] = None
    return d


def _phi3(c: _Cfg) -> dict:
    return _llama_like(c)


def _starcoder2(c: _Cfg) -> dict:
    bias = c.bool("use_bias", default=True)
    return _llama_like(
        c,
        mlp_gated=False,
        norm_type="layernorm",
        norm_bias=True,
        attention_bias=bias,
        mlp_bias=bias,
    )


def _mixtral(c: _Cfg) -> dict:
    d = _llama_like(c)
    d.update(
        num_experts=c.int("num_local_experts"),
        num_experts_per_tok=c.int("num_experts_per_tok"),
        moe_intermediate_size=d["intermediate_size"],
    )
    return d


def _qwen2_moe(c: _Cfg) -> dict:
    d = _llama_like(c, attention_bias=c.bool("qkv_bias", default=True), attention_out_bias=False)
    n = d["num_hidden_layers"]
    step = c.int("decoder_sparse_step", default=1)
    if step < 1:
        raise ValueError(f"decoder_sparse_step: must be at least 1 (got {step})")
    only = c.get("mlp_only_layers") or []
    if not isinstance(only, list):
        raise ValueError("mlp_only_layers: expected a list of layer indices")
    dense = sorted({_as_int("mlp_only_layers", i) for i in only} | {i for i in range(n) if (i + 1) % step})
    shared = c.int("shared_expert_intermediate_size")
    d.update(
        num_experts=c.int("num_experts"),
        num_experts_per_tok=c.int("num_experts_per_tok"),
        moe_intermediate_size=c.int("moe_intermediate_size"),
        shared_expert_intermediate_size=shared,
        num_shared_experts=1 if shared else 0,
        shared_expert_gate=bool(shared),
        mlp_only_layers=tuple(dense),
    )
    return d


def _deepseek_v2(c: _Cfg) -> dict:
    d = _llama_like(c, attention_bias=c.bool("attention_bias", default=False))
    d.update(
        num_experts=c.int("n_routed_experts"),
        num_experts_per_tok=c.int("num_experts_per_tok"),
        moe_intermediate_size=c.int("moe_intermediate_size"),
        num_shared_experts=c.int("n_shared_experts") or 0,
        first_k_dense_replace=c.int("first_k_dense_replace") or 0,
        q_lora_rank=c.int("q_lora_rank"),
        kv_lora_rank=c.int("kv_lora_rank"),
        qk_nope_head_dim=c.int("qk_nope_head_dim"),
        qk_rope_head_dim=c.int("qk_rope_head_dim"),
        v_head_dim=c.int("v_head_dim"),
    )
    d["head_dim"] = d["qk_rope_head_dim"]  # transformers sets head_dim = qk_rope_head_dim
    return d


def _phi(c: _Cfg) -> dict:
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("hidden_size"),
        num_hidden_layers=c.int("num_hidden_layers"),
        num_attention_heads=c.int("num_attention_heads"),
        num_key_value_heads=c.int("num_key_value_heads"),
        intermediate_size=c.int("intermediate_size"),
        hidden_act=c.get("hidden_act"),
        attention_bias=True,
        mlp_bias=True,
        norms_per_layer=1,
        qk_norm="head" if c.bool("qk_layernorm") else "none",
        lm_head_bias=True,
        parallel_attn=True,
        position_embedding="rotary",
        max_position_embeddings=c.int("max_position_embeddings"),
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
    )


def _gpt_neox(c: _Cfg) -> dict:
    bias = c.bool("attention_bias", default=True)
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("hidden_size"),
        num_hidden_layers=c.int("num_hidden_layers"),
        num_attention_heads=c.int("num_attention_heads"),
        intermediate_size=c.int("intermediate_size"),
        hidden_act=c.get("hidden_act"),
        attention_bias=bias,
        mlp_bias=True,
        parallel_attn=c.bool("use_parallel_residual", default=True),
        position_embedding="rotary",
        max_position_embeddings=c.int("max_position_embeddings"),
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
    )


def _gptj(c: _Cfg) -> dict:
    h = c.int("n_embd")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=h,
        num_hidden_layers=c.int("n_layer"),
        num_attention_heads=c.int("n_head"),
        intermediate_size=c.int("n_inner", default=4 * h),
        hidden_act=c.get("activation_function"),
        attention_bias=False,
        mlp_bias=True,
        norms_per_layer=1,
        lm_head_bias=True,
        parallel_attn=True,
        position_embedding="rotary",
        max_position_embeddings=c.int("n_positions"),
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
    )


def _falcon(c: _Cfg) -> dict:
    heads = c.int("num_attention_heads")
    new_arch = c.bool("new_decoder_architecture")
    if new_arch:
        kv = c.int("num_kv_heads", default=heads)
    else:
        kv = 1 if c.bool("multi_query") else heads
    parallel = c.bool("parallel_attn")
    n_ln = c.int("num_ln_in_parallel_attn", default=2 if new_arch else None)
    norms = 2 if not parallel else (2 if n_ln == 2 else 1)
    bias = c.bool("bias")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("hidden_size"),
        num_hidden_layers=c.int("num_hidden_layers"),
        num_attention_heads=heads,
        num_key_value_heads=kv,
        intermediate_size=c.int("ffn_hidden_size", default=4 * c.int("hidden_size")),
        hidden_act=c.get("activation"),
        attention_bias=bias,
        mlp_bias=bias,
        norms_per_layer=norms,
        parallel_attn=parallel,
        position_embedding="alibi" if c.bool("alibi") else "rotary",
        max_position_embeddings=c.int("max_position_embeddings"),
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
    )


def _opt(c: _Cfg) -> dict:
    h = c.int("hidden_size")
    proj = c.int("word_embed_proj_dim", default=h)
    bias = c.bool("enable_bias", default=True)
    final = c.bool("do_layer_norm_before") and not c.bool("_remove_final_layer_norm")
    if not c.bool("layer_norm_elementwise_affine", default=True):
        raise ValueError("layer_norm_elementwise_affine: false (norms without weights) is not supported")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=h,
        num_hidden_layers=c.int("num_hidden_layers"),
        num_attention_heads=c.int("num_attention_heads"),
        intermediate_size=c.int("ffn_dim"),
        hidden_act=c.get("activation_function"),
        attention_bias=bias,
        mlp_bias=bias,
        final_norm=final,
        position_embedding="learned",
        max_position_embeddings=c.int("max_position_embeddings"),
        position_offset=2,
        embedding_size=proj if proj != h else None,
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
    )


def _bloom(c: _Cfg) -> dict:
    h = c.int("hidden_size", "n_embed")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=h,
        num_hidden_layers=c.int("n_layer", "num_hidden_layers"),
        num_attention_heads=c.int("n_head", "num_attention_heads"),
        intermediate_size=4 * h,
        hidden_act="gelu",
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        position_embedding="alibi",
        max_position_embeddings=c.int("seq_length", default=2048),
        tie_word_embeddings=c.bool("tie_word_embeddings"),
        architecture=_arch_kind(c, "causal_lm"),
    )


def _bert_like(c: _Cfg, default_arch: str = "masked_lm") -> dict:
    arch = _arch_kind(c, default_arch)
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("hidden_size"),
        num_hidden_layers=c.int("num_hidden_layers"),
        num_attention_heads=c.int("num_attention_heads"),
        intermediate_size=c.int("intermediate_size"),
        hidden_act=c.get("hidden_act"),
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        final_norm=False,
        position_embedding="learned",
        max_position_embeddings=c.int("max_position_embeddings"),
        type_vocab_size=c.int("type_vocab_size"),
        tie_word_embeddings=c.bool("tie_word_embeddings", default=True),
        architecture=arch,
        pooler=arch == "base",
        mlm_transform=True,
        lm_head_bias=True,
        lm_head_bias_pair=True,
    )


def _distilbert(c: _Cfg) -> dict:
    arch = _arch_kind(c, "masked_lm")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("dim"),
        num_hidden_layers=c.int("n_layers"),
        num_attention_heads=c.int("n_heads"),
        intermediate_size=c.int("hidden_dim"),
        hidden_act=c.get("activation"),
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        final_norm=False,
        position_embedding="sinusoidal" if c.bool("sinusoidal_pos_embds") else "learned",
        max_position_embeddings=c.int("max_position_embeddings"),
        tie_word_embeddings=c.bool("tie_word_embeddings", default=True),
        architecture=arch,
        mlm_transform=True,
        lm_head_bias=True,
    )


def _albert(c: _Cfg) -> dict:
    d = _bert_like(c)
    if (c.int("inner_group_num") or 1) != 1:
        raise ValueError("inner_group_num: only 1 (one layer per group, as every released ALBERT) is supported")
    d.update(embedding_size=c.int("embedding_size"), num_hidden_groups=c.int("num_hidden_groups"))
    return d


def _t5(c: _Cfg) -> dict:
    proj = str(c.get("feed_forward_proj") or "relu")
    gated = proj.startswith("gated-")
    heads = c.int("num_heads")
    layers = c.int("num_layers")
    archs = c.get("architectures")
    encoder_only = isinstance(archs, list) and bool(archs) and str(archs[0]).endswith("EncoderModel")
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("d_model"),
        num_hidden_layers=layers,
        num_decoder_layers=0 if encoder_only else c.int("num_decoder_layers", default=layers),
        num_attention_heads=heads,
        head_dim=c.int("d_kv"),
        intermediate_size=c.int("d_ff"),
        hidden_act=proj.removeprefix("gated-"),
        mlp_gated=gated,
        norm_type="rmsnorm",
        norm_bias=False,
        position_embedding="relative",
        relative_attention_num_buckets=c.int("relative_attention_num_buckets"),
        tie_word_embeddings=c.bool("tie_word_embeddings", default=True),
        max_position_embeddings=512,
        architecture=_arch_kind(c, "seq2seq_lm"),
    )


def _bart(c: _Cfg) -> dict:
    for enc, dec in (("encoder_ffn_dim", "decoder_ffn_dim"), ("encoder_attention_heads", "decoder_attention_heads")):
        if c.get(enc) != c.get(dec):
            raise ValueError(f"{dec}: differing encoder and decoder sizes are not supported yet")
    layers = c.int("encoder_layers")
    tie = c.bool("tie_word_embeddings", default=True)
    return dict(
        vocab_size=c.int("vocab_size"),
        hidden_size=c.int("d_model"),
        num_hidden_layers=layers,
        num_decoder_layers=c.int("decoder_layers"),
        num_attention_heads=c.int("encoder_attention_heads"),
        intermediate_size=c.int("encoder_ffn_dim"),
        hidden_act=c.get("activation_function"),
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        final_norm=False,
        position_embedding="learned",
        max_position_embeddings=c.int("max_position_embeddings"),
        position_offset=2,
        tie_word_embeddings=tie,
        share_stack_embeddings=tie,  # untied BART: each stack keeps its own token table too
        architecture=_arch_kind(c, "seq2seq_lm"),
    )


def _paramscope(c: _Cfg) -> dict:
    """ParamScope's own vocabulary: the Spec's field names, for models transformers does not ship."""
    out: dict = {}
    for name, f in FIELDS.items():
        if name == "model_type" or name not in c.data:
            continue
        if c.data[name] is None and "None" in str(f.type):  # an explicit null: "derive it"
            c.used.add(name)
            out[name] = None
            continue
        if not c.has(name):
            continue
        value = c.get(name)
        if f.type in ("int", "int | None"):
            out[name] = _as_int(name, value)
        elif f.type in ("bool", "bool | None"):
            out[name] = _as_bool(name, value)
        elif name == "mlp_only_layers":
            if not isinstance(value, list):
                raise ValueError("mlp_only_layers: expected a list of layer indices")
            out[name] = tuple(_as_int(name, i) for i in value)
        else:
            if not isinstance(value, str):
                raise ValueError(f"{name}: expected text, got {type(value).__name__}")
            out[name] = value
    return out


FAMILIES: dict[str, Callable[[_Cfg], dict]] = {
    "gpt2": _gpt2,
    "gpt_bigcode": _gpt_bigcode,
    "llama": _llama,
    "mistral": _mistral,
    "qwen2": _qwen2,
    "qwen3": _qwen3,
    "gemma": _gemma,
    "gemma2": _gemma2,
    "phi": _phi,
    "phi3": _phi3,
    "starcoder2": _starcoder2,
    "gpt_neox": _gpt_neox,
    "gptj": _gptj,
    "falcon": _falcon,
    "opt": _opt,
    "bloom": _bloom,
    "mixtral": _mixtral,
    "qwen2_moe": _qwen2_moe,
    "deepseek_v2": _deepseek_v2,
    "bert": _bert_like,
    "roberta": _bert_like,
    "distilbert": _distilbert,
    "albert": _albert,
    "t5": _t5,
    "bart": _bart,
    "paramscope": _paramscope,
}

#: Keys that carry no information about sizes, never worth reporting as ignored.
_METADATA = {
    "model_type",
    "architectures",
    "transformers_version",
    "_name_or_path",
    "torch_dtype",
    "dtype",
    "_paramscope",
}


@cache
def hf_defaults() -> dict[str, dict[str, Any]]:
    text = resources.files("paramscope").joinpath("hf_defaults.json").read_text()
    return json.loads(text)


def _family_kwargs(data: Mapping[str, Any], mt: str) -> tuple[dict[str, Any], _Cfg]:
    """The Spec fields a family reads from ``data`` (class defaults for missing keys), not yet validated."""
    cfg = _Cfg(data, hf_defaults().get(mt, {}) if mt != "paramscope" else {})
    kwargs = FAMILIES[mt](cfg)
    return {k: v for k, v in kwargs.items() if v is not None or FIELDS[k].default is None}, cfg


def read(data: Mapping[str, Any], model_type: str | None = None) -> ReadResult:
    """Turn a config mapping into a validated Spec; raise ``ValueError`` naming the bad key."""
    if not isinstance(data, Mapping):
        raise ValueError("config: expected a JSON object ({...}) at the top level")
    mt = model_type or data.get("model_type")
    if mt is None:
        mt = (
            "paramscope"
            if "hidden_size" in data and "num_hidden_layers" in data and not data.get("architectures")
            else None
        )
    if not isinstance(mt, str) or mt not in FAMILIES:
        shown = repr(mt)[:60] if mt is not None else "missing"
        raise ValueError(f"model_type: {shown} is not supported; supported: {', '.join(sorted(FAMILIES))}")
    kwargs, cfg = _family_kwargs(data, mt)
    # ParamScope-specific overrides written by to_config() for fields a family fixes in code
    overrides = data.get("_paramscope")
    if isinstance(overrides, Mapping) and overrides:
        kwargs.update(_paramscope(_Cfg(overrides, {})))
    spec = validate(Spec(model_type=mt, **kwargs))
    ignored = tuple(sorted(k for k in data if k not in cfg.used and k not in _METADATA))
    return ReadResult(spec=spec, ignored=ignored, model_type=mt)


def read_json_text(text: str | bytes) -> ReadResult:
    """Parse config.json text (size-limited, plain JSON only) and read it."""
    if isinstance(text, bytes):
        if len(text) > MAX_CONFIG_BYTES:
            raise ValueError(f"config: the file is {len(text):,} bytes; the limit is {MAX_CONFIG_BYTES:,}")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"config: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise ValueError(f"config: the text is {len(text):,} characters; the limit is {MAX_CONFIG_BYTES:,}")
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise ValueError(f"config: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ValueError("config: JSON nested too deeply") from None
    return read(data)


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > 30:
        raise ValueError(f"config: a number with {len(text):,} digits is far too large for any size")
    return int(text)


def _reject_constant(name: str) -> float:
    raise ValueError(f"config: {name} is not a number a config can hold")


# ---------------------------------------------------------------------------------- writing back
def to_config(spec: Spec) -> dict:
    """A config.json for ``spec`` that :func:`read` turns back into the same spec.

    The family's own keys are written in Hugging Face names; any field the family fixes in code but the
    spec changed (say a norm type) is kept under ``_paramscope`` so nothing is lost on the round trip.
    For ``model_type`` "paramscope" every field is written under its own name.
    """
    spec = validate(spec)
    if spec.model_type == "paramscope":
        return {"model_type": "paramscope", **_plain_fields(spec)}
    cfg = _hf_keys(spec)
    # What the family alone rebuilds (unvalidated: the family's keys may not express the spec on their own,
    # e.g. GPT-2 with a head_dim that the heads do not divide); every field it gets wrong goes under _paramscope.
    back = resolve(Spec(model_type=spec.model_type, **_family_kwargs(cfg, spec.model_type)[0]))
    plain = _plain_fields(spec)
    diff = {k: plain[k] for k in plain if getattr(back, k) != getattr(spec, k)}
    if diff:
        cfg["_paramscope"] = diff
    return cfg


def _plain_fields(spec: Spec) -> dict:
    out = {}
    for name in FIELDS:
        if name == "model_type":
            continue
        value = getattr(spec, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


_ARCH_SUFFIX = {
    "causal_lm": "ForCausalLM",
    "masked_lm": "ForMaskedLM",
    "seq2seq_lm": "ForConditionalGeneration",
    "base": "Model",
}
_CLASS_PREFIX = {
    "gpt2": "GPT2",
    "gpt_bigcode": "GPTBigCode",
    "llama": "Llama",
    "mistral": "Mistral",
    "qwen2": "Qwen2",
    "qwen3": "Qwen3",
    "gemma": "Gemma",
    "gemma2": "Gemma2",
    "phi": "Phi",
    "phi3": "Phi3",
    "starcoder2": "Starcoder2",
    "gpt_neox": "GPTNeoX",
    "gptj": "GPTJ",
    "falcon": "Falcon",
    "opt": "OPT",
    "bloom": "Bloom",
    "mixtral": "Mixtral",
    "qwen2_moe": "Qwen2Moe",
    "deepseek_v2": "DeepseekV2",
    "bert": "Bert",
    "roberta": "Roberta",
    "distilbert": "DistilBert",
    "albert": "Albert",
    "t5": "T5",
    "bart": "Bart",
}


def architecture_class(model_type: str, architecture: str) -> str:
    """The transformers class name for a family and head, e.g. ('gpt2', 'causal_lm') -> 'GPT2LMHeadModel'."""
    prefix = _CLASS_PREFIX[model_type]
    if architecture == "causal_lm" and model_type == "gpt2":
        return "GPT2LMHeadModel"
    return prefix + _ARCH_SUFFIX[architecture]


def _hf_keys(s: Spec) -> dict:
    """The Hugging Face keys of ``s``'s family (sizes only; structure comes from the family)."""
    mt = s.model_type
    base: dict[str, Any] = {
        "model_type": mt,
        "architectures": [architecture_class(mt, s.architecture)],
        "vocab_size": s.vocab_size,
        "tie_word_embeddings": s.tie_word_embeddings,
    }
    if mt in ("gpt2", "gpt_bigcode"):
        base.update(
            n_embd=s.hidden_size,
            n_layer=s.num_hidden_layers,
            n_head=s.num_attention_heads,
            n_inner=s.intermediate_size,
            n_positions=s.max_position_embeddings,
        )
        if mt == "gpt_bigcode":
            base["multi_query"] = s.kv_heads == 1
    elif mt == "gptj":
        base.update(
            n_embd=s.hidden_size,
            n_layer=s.num_hidden_layers,
            n_head=s.num_attention_heads,
            n_inner=s.intermediate_size,
            n_positions=s.max_position_embeddings,
        )
    elif mt == "bloom":
        base.update(hidden_size=s.hidden_size, n_layer=s.num_hidden_layers, n_head=s.num_attention_heads)
    elif mt == "distilbert":
        base.update(
            dim=s.hidden_size,
            n_layers=s.num_hidden_layers,
            n_heads=s.num_attention_heads,
            hidden_dim=s.intermediate_size,
            max_position_embeddings=s.max_position_embeddings,
            sinusoidal_pos_embds=s.position_embedding == "sinusoidal",
        )
    elif mt == "t5":
        base.update(
            d_model=s.hidden_size,
            num_layers=s.num_hidden_layers,
            num_decoder_layers=s.num_decoder_layers,
            num_heads=s.num_attention_heads,
            d_kv=s.head_dim,
            d_ff=s.intermediate_size,
            relative_attention_num_buckets=s.relative_attention_num_buckets,
            feed_forward_proj=("gated-" if s.mlp_gated else "") + (s.hidden_act or "relu"),
        )
    elif mt == "bart":
        base.update(
            d_model=s.hidden_size,
            encoder_layers=s.num_hidden_layers,
            decoder_layers=s.num_decoder_layers,
            encoder_attention_heads=s.num_attention_heads,
            decoder_attention_heads=s.num_attention_heads,
            encoder_ffn_dim=s.intermediate_size,
            decoder_ffn_dim=s.intermediate_size,
            max_position_embeddings=s.max_position_embeddings,
        )
    else:
        base.update(
            hidden_size=s.hidden_size,
            num_hidden_layers=s.num_hidden_layers,
            num_attention_heads=s.num_attention_heads,
            intermediate_size=s.intermediate_size,
            max_position_embeddings=s.max_position_embeddings,
        )
        if mt in (
            "llama",
            "mistral",
            "qwen2",
            "qwen3",
            "gemma",
            "gemma2",
            "phi3",
            "starcoder2",
            "mixtral",
            "qwen2_moe",
            "deepseek_v2",
            "phi",
        ):
            base["num_key_value_heads"] = s.kv_heads
        if mt in ("llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "mixtral", "qwen2_moe"):
            base["head_dim"] = s.head_dim
        if mt in ("llama", "qwen3", "gemma", "gemma2", "deepseek_v2"):
            base["attention_bias"] = s.attention_bias
        if mt == "llama":
            base["mlp_bias"] = s.mlp_bias
        if mt == "qwen2_moe":
            base.update(
                qkv_bias=s.attention_bias,
                num_experts=s.num_experts,
                num_experts_per_tok=s.num_experts_per_tok,
                moe_intermediate_size=s.expert_size,
                shared_expert_intermediate_size=s.shared_expert_size,
                decoder_sparse_step=1,
                mlp_only_layers=list(s.mlp_only_layers),
            )
        if mt == "mixtral":
            base.update(num_local_experts=s.num_experts, num_experts_per_tok=s.num_experts_per_tok)
            base["intermediate_size"] = s.expert_size
        if mt == "deepseek_v2":
            base.update(
                n_routed_experts=s.num_experts,
                num_experts_per_tok=s.num_experts_per_tok,
                moe_intermediate_size=s.expert_size,
                n_shared_experts=s.num_shared_experts,
                first_k_dense_replace=s.first_k_dense_replace,
                q_lora_rank=s.q_lora_rank,
                kv_lora_rank=s.kv_lora_rank,
                qk_nope_head_dim=s.qk_nope_head_dim,
                qk_rope_head_dim=s.qk_rope_head_dim,
                v_head_dim=s.v_head_dim,
            )
        if mt == "falcon":
            new_arch = s.kv_heads not in (1, s.num_attention_heads) or s.norms_per_layer == 2
            base.update(
                ffn_hidden_size=s.intermediate_size,
                bias=s.attention_bias,
                parallel_attn=s.parallel_attn,
                new_decoder_architecture=new_arch,
                multi_query=s.kv_heads == 1,
                num_kv_heads=s.kv_heads,
                alibi=s.position_embedding == "alibi",
            )
        if mt == "opt":
            base.pop("intermediate_size")
            base.update(
                ffn_dim=s.intermediate_size,
                word_embed_proj_dim=s.embed_width,
                enable_bias=s.attention_bias,
                do_layer_norm_before=True,
                _remove_final_layer_norm=not s.final_norm,
            )
        if mt in ("bert", "roberta", "albert"):
            base["type_vocab_size"] = s.type_vocab_size
        if mt == "albert":
            base.update(embedding_size=s.embed_width, num_hidden_groups=s.num_hidden_groups)
        if mt == "starcoder2":
            base["use_bias"] = s.attention_bias
        if mt == "gpt_neox":
            base["attention_bias"] = s.attention_bias
            base["use_parallel_residual"] = s.parallel_attn
        if mt == "gemma2":
            base["sliding_window"] = s.sliding_window
        if s.sliding_window is not None and mt in ("mistral", "qwen2", "starcoder2", "mixtral", "phi3"):
            base["sliding_window"] = s.sliding_window
    return base
