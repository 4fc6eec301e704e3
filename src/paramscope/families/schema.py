"""What a family row is, and the one reader that every row drives.

A :class:`Family` is declarative Hugging Face knowledge about one ``model_type``, the way transformers'
configuration class and modeling file hold it:

- ``keys``: Spec field -> the config key(s) that state it (the first is written by an edit; the others are
  aliases that are read too, like transformers' ``attribute_map``: GPT-2's ``hidden_size`` is ``n_embd``);
- ``defaults``: what the reader assumes when neither the config nor the class's defaults say anything;
- ``derive``: rules used only when the key is missing or null (``intermediate_size = 4*hidden_size``);
- ``fixed``: what the class hard-codes, shown but not editable as a key (``attention_bias``: Qwen2 always
  has q/k/v biases); a :class:`Rule` with ``always=True`` is a hard-coded *formula* (BLOOM's 4h MLP);
- ``hooks``: the few readings that are not one key to one field (``layer_types``, ``feed_forward_proj``),
  each a named function written once and reused by the rows that need it;
- ``class_prefix`` and ``source``: the transformers class names and the modeling file the row mirrors.

Rows inherit with :meth:`Family.but`, the way transformers' modular files declare one model as a diff of
another. Missing keys take the transformers class's own defaults (``hf_defaults.json``, generated from the
installed transformers by ``scripts/gen_hf_defaults.py``), because real config.json files omit keys equal to
their defaults. Where a file states two keys of one field, the one the class applies last wins, whatever the row's
order (``hf_late_keys.json``, generated beside the defaults: attribute_map names such as GPT-2's ``hidden_size`` over
``n_embd``, legacy names such as BLOOM's ``n_embed``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from paramscope.engine.spec import FIELDS, HEAD_DIM_ADVICE, LIMITS, Spec, SpecError, validate

ARCH_SUFFIX = {
    "causal_lm": "ForCausalLM",
    "masked_lm": "ForMaskedLM",
    "seq2seq_lm": "ForConditionalGeneration",
    "base": "Model",
    "discriminator": "ForPreTraining",
    "image_classification": "ForImageClassification",
}


#: The keys of a multimodal config that hold its towers' configs, and what each tower is.
TOWERS = MappingProxyType(
    {
        "text_config": "language model",
        "vision_config": "vision tower",
        "audio_config": "audio tower",
        "qformer_config": "Q-Former",
    }
)


class BeyondRow(SpecError):
    """A config of a type with a row that the row cannot describe although transformers builds it (a T5Gemma whose
    stacks differ in width): counted by transformers instead, this saying why there are no formulas."""


@dataclass(frozen=True)
class Rule:
    """A value computed from other Spec fields, with the formula a person reads."""

    text: str
    fn: Callable[[Mapping[str, Any]], Any]
    always: bool = False  # True: hard-coded by the class (no key can change it); False: only when not stated


def precedence(keys: tuple[str, ...], late: frozenset[str]) -> tuple[str, ...]:
    """``keys`` in the order a file stating several of them is read: those the config class applies after its own
    parameters (``late``: attribute_map names, legacy names its ``__post_init__`` takes) first, as the last one set
    wins in transformers; the rest in the row's order."""
    if len(keys) < 2 or late.isdisjoint(keys):
        return keys
    return (*(k for k in keys if k in late), *(k for k in keys if k not in late))


class Cfg:
    """A config dict that remembers which keys were read and falls back to the class defaults; of several keys
    naming one value, the one the class applies last (``late``) is read first."""

    def __init__(self, data: Mapping[str, Any], defaults: Mapping[str, Any], late: frozenset[str] = frozenset()):
        self.data = data
        self.defaults = defaults
        self.late = late
        self.used: set[str] = set()

    def stated(self, *keys: str) -> str | None:
        """The first of ``keys`` the config itself states (present and not null), in the class's precedence."""
        return next((k for k in precedence(keys, self.late) if self.data.get(k) is not None), None)

    def get(self, *keys: str, default: Any = None) -> Any:
        """The first of ``keys`` present in the config (in the class's precedence), else in the class defaults, else
        ``default``."""
        self.used.update(keys)
        for key in precedence(keys, self.late):
            if key in self.data:  # an explicit null means "derive it", as transformers reads it
                value = self.data[key]
                return default if value is None else value
        for key in keys:
            if self.defaults.get(key) is not None:
                return self.defaults[key]
        return default

    def int(self, *keys: str, default: Any = None) -> Any:
        value = self.get(*keys, default=default)
        return as_int(keys[0], value) if value is not None else None

    def bool(self, *keys: str, default: Any = None) -> Any:
        value = self.get(*keys, default=default)
        return as_bool(keys[0], value) if value is not None else None


#: Why a value of another JSON type is refused: what transformers does with it.
REFUSED = "transformers' config classes refuse it"


def as_int(name: str, value: Any) -> int:
    """A JSON whole number, as transformers' config classes take it: ``768``, not ``"768"``, ``768.0`` or ``true``
    (each refused naming the key: a text such as "1,024" or "١٢" is no number to them either)."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        raise SpecError(name, f"expected a whole number, got {json.dumps(value)} ({REFUSED})")
    if isinstance(value, float):
        hint = f"; write {int(value)}" if math.isfinite(value) and value.is_integer() else ""
        raise SpecError(name, f"expected a whole number, got {value!r} ({REFUSED}{hint})")
    if isinstance(value, str):
        raise SpecError(name, f"expected a whole number, got the text {value[:40]!r} ({REFUSED}; write it unquoted)")
    raise SpecError(name, f"expected a whole number, got a {type(value).__name__}")


def as_bool(name: str, value: Any) -> bool:
    """A JSON true or false, as transformers' config classes take it (``1``, ``"true"`` refused naming the key)."""
    if isinstance(value, bool):
        return value
    shown = json.dumps(value)[:40] if _plain_json(value) else type(value).__name__
    raise SpecError(name, f"expected true or false, got {shown} ({REFUSED})")


def _plain_json(value: Any) -> bool:
    return isinstance(value, int | float | str) or value is None


def as_indices(name: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise SpecError(name, "expected a list of layer indices")
    return tuple(sorted({as_int(name, i) for i in value}))


def typed(name: str, key: str, value: Any) -> Any:
    """A config value converted to Spec field ``name``'s type (error messages name the config ``key``)."""
    kind = FIELDS[name].type
    if kind.startswith("int"):
        return as_int(key, value)
    if kind.startswith("bool"):
        return as_bool(key, value)
    if kind.startswith("tuple"):
        return as_indices(key, value)
    if not isinstance(value, str) or len(value) > 64:
        raise SpecError(key, f"expected a short text, got {str(value)[:40]!r}")
    return value


Hook = Callable[[Cfg, dict[str, Any]], None]


@dataclass(frozen=True)
class Family:
    """One ``model_type``: how its config reads into a Spec, and which of its keys an edit writes."""

    model_type: str
    class_prefix: str
    source: str
    keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    derive: Mapping[str, Rule] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)
    hooks: tuple[Hook, ...] = ()
    linked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # a key whose edit also writes these
    default_arch: str = "causal_lm"
    class_names: Mapping[str, str] = field(default_factory=dict)  # exceptions to prefix + ARCH_SUFFIX
    family_label: str = ""
    #: The transformers ``model_type`` whose classes build this one, when it is not its own (Kimi K2's Hub config
    #: says ``kimi_k2``, a type transformers does not know; its ``architectures`` is ``DeepseekV3ForCausalLM``).
    read_as: str = ""
    #: Whether the token embedding keeps a padding row (``nn.Embedding(..., padding_idx=pad_token_id)``): then
    #: transformers refuses a vocabulary without a row for ``pad_token_id``, and so does the reader.
    padding_row: bool = True
    #: The config class refuses a width its heads do not divide, even with ``head_dim`` stated (LlamaConfig's
    #: ``validate_architecture``). Not inherited by ``but()``: each generated config class has its own validation.
    checks_width: bool = False
    #: What the released checkpoints hold beyond the model transformers builds (MTP layers, buffers): notes with
    #: numbers, each a function of (config, spec, parameter tree) in ``hooks``.
    notes: tuple[Callable[..., str | None], ...] = ()
    #: Fields a hook reads from a nested config (DBRX's ``attn_config.kv_n_heads``): shown as stated, edited in the
    #: config.json itself (an edit writes top-level keys only).
    nested: Mapping[str, str] = field(default_factory=dict)
    #: Heads beyond the language-model ones that the family's classes offer (ELECTRA: "discriminator").
    extra_heads: tuple[str, ...] = ()
    #: Fields whose key may hold one value per layer where the class takes a list (Gemma 3n's ``intermediate_size``):
    #: a hook reads them; the key still names the field for edits and origins.
    read_by_hooks: tuple[str, ...] = ()

    @property
    def hf_type(self) -> str:
        """The transformers ``model_type`` whose config class and defaults this row reads."""
        return self.read_as or self.model_type

    @property
    def late_keys(self) -> frozenset[str]:
        """The keys the config class applies after its own parameters: stated beside the attribute they name, they
        win (see :func:`precedence`)."""
        return hf_late_keys().get(self.hf_type, frozenset())

    def but(self, **changes: Any) -> Family:
        """A child row: mappings are merged into the parent's (a value of ``None`` removes a key);
        ``extra_hooks`` are appended to the parent's hooks, ``hooks`` replaces them."""
        merged: dict[str, Any] = {"checks_width": False}
        for name, value in changes.items():
            if name in ("keys", "defaults", "derive", "fixed", "linked", "class_names"):
                base = dict(getattr(self, name))
                base.update(value)
                merged[name] = {k: v for k, v in base.items() if v is not None}
            elif name == "extra_hooks":
                merged["hooks"] = self.hooks + tuple(value)
            else:
                merged[name] = value
        return replace(self, **merged)

    # ------------------------------------------------------------------------------------ classes
    def class_name(self, architecture: str) -> str:
        """The transformers class for a head, e.g. ('causal_lm') -> 'GPT2LMHeadModel'."""
        return self.class_names.get(architecture, self.class_prefix + ARCH_SUFFIX[architecture])

    @property
    def config_class(self) -> str:
        return f"{self.class_prefix}Config"

    # ------------------------------------------------------------------------------------ reading
    def read(self, data: Mapping[str, Any]) -> tuple[Spec, Cfg]:
        """The validated Spec this config builds, and the reader (which keys it used)."""
        nulls = [key for key, value in data.items() if value is None]
        if nulls:  # a key the class types as a value, or an alias of one (hidden_size for n_embd), stated null
            refused = hf_not_null().get(self.hf_type, frozenset())
            aliases = {k: keys for keys in self.keys.values() for k in keys}
            for key in nulls:
                if key in refused or not refused.isdisjoint(aliases.get(key, ())):
                    raise SpecError(key, f"{self.config_class} refuses null here: state a value or leave the key out")
        cfg = Cfg(data, hf_defaults().get(self.hf_type, {}), self.late_keys)
        values: dict[str, Any] = {}
        maps = hf_attribute_maps()
        aliases = maps["maps"].get(self.hf_type, {})
        for alias in maps["after_derived"].get(self.hf_type, ()):
            if data.get(alias) is not None and data.get(aliases[alias]) is None:
                raise SpecError(
                    alias,
                    f"{self.config_class} sets {aliases[alias]} from {alias} only after deriving other sizes from "
                    f"{aliases[alias]}'s default: state {aliases[alias]} instead",
                )
        for name, keys in self.keys.items():
            if name in self.read_by_hooks:
                continue
            # the names the class's attribute_map points at one of these keys set it too (BART's hidden_size)
            keys = (*keys, *(alias for alias, key in aliases.items() if key in keys and alias not in keys))
            value = cfg.get(*keys, default=self.defaults.get(name))
            values[name] = typed(name, cfg.stated(*keys) or keys[0], value) if value is not None else None
        values.update(self.fixed)
        self._bound(cfg, values)  # before any hook or rule whose work grows with a size (a list of every layer)
        if "architecture" not in self.keys:
            values["architecture"] = arch_kind(cfg, self.default_arch, self.extra_heads, self.class_names)
        for hook in self.hooks:
            hook(cfg, values)
        for name, rule in self.derive.items():
            if rule.always or values.get(name) is None:
                values[name] = rule.fn(values)
        if self.padding_row:
            _check_padding_row(cfg, values)
        _check_zero_sizes(self, cfg, values)
        heads, width = values.get("num_attention_heads"), values.get("hidden_size")
        if self.checks_width and isinstance(heads, int) and heads > 0 and isinstance(width, int) and width % heads:
            raise SpecError(
                "num_attention_heads",
                f"{heads:,} does not divide hidden_size {width:,}; {self.config_class} refuses it even with head_dim "
                "stated",
            )
        kwargs = {k: v for k, v in values.items() if v is not None or FIELDS[k].default is None}
        try:
            spec = Spec(model_type=self.model_type, **kwargs)
        except TypeError as exc:  # a row naming a field the Spec does not have: a bug in the row
            raise AssertionError(f"family {self.model_type}: {exc}") from None
        try:
            return validate(spec), cfg
        except SpecError as exc:  # a class that reads no head_dim (CLIP's, SigLIP's): stating one does not help
            advised = exc.field == "num_attention_heads" and exc.message.endswith(HEAD_DIM_ADVICE)
            if advised and "head_dim" not in self.keys:
                message = exc.message.removesuffix(HEAD_DIM_ADVICE) + f" ({self.config_class} reads no head_dim)"
                raise SpecError(exc.field, message) from None
            raise

    def _bound(self, cfg: Cfg, values: Mapping[str, Any]) -> None:
        """Refuse a size above its limit (:data:`~paramscope.engine.spec.LIMITS`), naming the key the config states."""
        for name, value in values.items():
            limit = LIMITS.get(name)
            if limit is not None and type(value) is int and value > limit:
                key = cfg.stated(*self.keys.get(name, (name,))) or name
                raise SpecError(key, f"{value:,} is larger than the supported maximum {limit:,}")

    # ------------------------------------------------------------------------------------ editing
    def key_for(self, name: str, data: Mapping[str, Any]) -> str | None:
        """The config key an edit of Spec field (or config key) ``name`` writes; ``None`` when the class fixes it.

        A field stated under an alias keeps that alias (a GPT-2 file saying ``n_embd`` keeps saying it).
        """
        if name in self.keys:
            keys = self.keys[name]
            return next((k for k in precedence(keys, self.late_keys) if k in data), keys[0])
        if name in FIELDS:
            return None
        return name

    def origin(self, name: str, data: Mapping[str, Any], spec: Spec) -> Origin:
        """Where Spec field ``name`` of this config comes from: the file, the class default, a rule, the class."""
        value = getattr(spec, name)
        if name in self.nested:
            path = self.nested[name]
            return Origin("stated", "", value, f"from the config (`{path}`): a nested key, edited in the config.json")
        if name in self.keys:
            keys = self.keys[name]
            stated = next((k for k in precedence(keys, self.late_keys) if data.get(k) is not None), None)
            if stated is not None:
                return Origin("stated", stated, value, f"from the config (`{stated}`)")
            rule = self.derive.get(name)
            text = rule.text if rule is not None else GENERIC_RULES.get(name)
            default = hf_defaults().get(self.hf_type, {})
            if text is None or any(default.get(k) is not None for k in keys):
                return Origin("default", keys[0], value, f"default of {self.config_class}: {shown_value(value)}")
            return Origin("derived", keys[0], value, f"derived: {text} = {shown_value(value)}")
        rule = self.derive.get(name)
        text = rule.text if rule is not None else None if name in self.fixed else GENERIC_RULES.get(name)
        if text is not None:
            return Origin(
                "fixed", "", value, f"fixed by the {self.class_prefix} classes: {text} = {shown_value(value)}"
            )
        return Origin("fixed", "", value, f"fixed by the {self.class_prefix} classes: {shown_value(value)}")


def _check_padding_row(cfg: Cfg, values: Mapping[str, Any]) -> None:
    pad, vocab = cfg.get("pad_token_id"), values.get("vocab_size")
    if isinstance(vocab, int) and isinstance(extra := values.get("extra_token_rows"), int):
        vocab += extra  # Mllama's table: vocab_size + 8 rows
    if isinstance(pad, int) and not isinstance(pad, bool) and isinstance(vocab, int) and 0 <= vocab <= pad:
        key = cfg.stated("pad_token_id") or "pad_token_id (the class default)"
        raise SpecError(
            "vocab_size",
            f"{vocab:,} rows leave no row for the padding token ({key} = {pad:,}); transformers refuses to build "
            "it: choose a larger vocabulary (or lower pad_token_id)",
        )


#: How the Spec derives a size no key of the family states (see :func:`paramscope.engine.spec.resolve`).
GENERIC_RULES = {
    "num_key_value_heads": "num_attention_heads",
    "head_dim": "hidden_size // num_attention_heads",
    "intermediate_size": "4*hidden_size",
}


@dataclass(frozen=True)
class Origin:
    """Where one value comes from, in words a control can show under itself."""

    kind: str  # stated | default | derived | fixed | class
    key: str  # the config key an edit writes ("" when none can)
    value: Any
    text: str


def shown_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def arch_kind(c: Cfg, default: str, extra: tuple[str, ...] = (), names: Mapping[str, str] | None = None) -> str:
    """The head chosen by ``architectures``: ...ForCausalLM / ...LMHeadModel, ...ForMaskedLM, ...Model, the family's
    ``extra`` heads (ELECTRA's discriminator: ...ForPreTraining), and the classes it names otherwise (``names``, head
    -> class: Gemma 3n's audio tower is Gemma3nAudioEncoder)."""
    archs = c.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        name = archs[0]
        for kind, class_name in (names or {}).items():
            if name == class_name:
                return kind
        for kind in extra:
            if name.endswith(ARCH_SUFFIX[kind]):
                return kind
        if name.endswith(("ForCausalLM", "LMHeadModel")):
            return "causal_lm"
        if name.endswith("ForMaskedLM"):
            return "masked_lm"
        if name.endswith("ForConditionalGeneration"):
            return "seq2seq_lm"
        if name.endswith("Model") and "For" not in name and "Head" not in name:  # DoubleHeadsModel: a head too
            return "base"
        raise BeyondRow("architectures", f"{name[:80]!r}: a head no row describes")
    return default


#: Sizes that mean "none of it" to the Spec at 0 (no MLP, no image), where a transformers class given 0 still builds
#: modules: what it builds for the read values, or "" where nothing is (an MLP of empty projections keeps its biases,
#: RWKV's channel mixing its receptance; a patch convolution is built at any image size).
ZERO_BUILDS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "intermediate_size": lambda values: (
        ""
        if values.get("num_experts")  # a mixture's experts at 0 count as built
        else "a channel-mixing block (receptance and token-shift mix)"
        if values.get("channel_mixing")  # RWKV's
        else "an MLP of empty projections with their biases"
        if values.get("mlp_bias")
        else ""  # a bias-free MLP at 0 holds nothing
    ),
    "image_size": lambda values: "a patch embedding",
}


#: Config keys a row reads where 0, which the Spec takes as none of it, still builds a table or a convolution in the
#: transformers class, or divides (found by a new user's fuzzing of whole models' nested edits against transformers)
ZERO_KEYS = (
    "num_patches",  # SigLIP 2: its position table
    "num_mel_bins",  # Whisper-style audio encoders: conv1 and its bias
    "temporal_patch_size",  # Qwen-VL and GLM-4V patch embeddings (with their patch_size, below)
    "spatial_merge_size",  # their patch mergers
    "projector_input_dim",  # Llama 4's vision adapter
    "query_pre_attn_scalar",  # Gemma 2 and 3: queries scaled by its inverse square root
)


def _check_zero_sizes(family: Family, cfg: Cfg, values: Mapping[str, Any]) -> None:
    """A transformers row whose file states a size of :data:`ZERO_BUILDS` at 0 where the class still builds something
    of it (a SigLIP MLP's fc2 bias, a CLIP patch convolution) the Spec reads as absent: refused, naming the key (a
    derived 0, as LFM2's adjusted width, a bias-free Llama MLP and a mixture's experts count exactly; sizes a hook
    reads, as InternVL's image_size, are not checked here)."""
    if not family.source:  # ParamScope's own row: 0 is none of it
        return
    three_d = "temporal_patch_size" in cfg.used  # a 3-D patch embedding (Qwen-VL, GLM-4V) at patch_size 0
    for key in (*ZERO_KEYS, *(("patch_size",) if three_d else ())):
        if cfg.data.get(key) == 0 and key in cfg.used:
            raise SpecError(
                key,
                f"0 is not described here: {family.config_class}'s model divides by it or still builds "
                "a table or convolution of it; at least 1",
            )
    for name, what in ZERO_BUILDS.items():
        key = cfg.stated(*family.keys.get(name, ()))
        built = what(values)
        if key is not None and name not in family.fixed and cfg.data.get(key) == 0 and built:
            message = f"0 is not described here: {family.config_class}'s model still builds {built}; at least 1"
            raise SpecError(key, message)


@cache
def hf_defaults() -> dict[str, dict[str, Any]]:
    text = resources.files("paramscope.families").joinpath("hf_defaults.json").read_text()
    return json.loads(text)


@cache
def hf_attribute_maps() -> dict[str, dict[str, Any]]:
    """Each config class's ``attribute_map`` by model type (generated): ``maps``, a name stated in a file (BART's
    ``hidden_size``) sets the attribute it names (``d_model``); ``after_derived``, the names it sets only after deriving
    other values from that attribute's default (T5's ``num_hidden_layers``: the decoder keeps ``num_layers``' 6)."""
    return json.loads(resources.files("paramscope.families").joinpath("hf_attribute_maps.json").read_text())


@cache
def hf_late_keys() -> dict[str, frozenset[str]]:
    """The keys each config class applies after its own parameters (attribute_map names, legacy names its
    ``__post_init__`` takes), by model type: stated beside the attribute they name, they win."""
    text = resources.files("paramscope.families").joinpath("hf_late_keys.json").read_text()
    return {model_type: frozenset(keys) for model_type, keys in json.loads(text).items()}


@cache
def hf_not_null() -> dict[str, frozenset[str]]:
    """The keys each config class refuses as null (its type admits no None), by model type."""
    text = resources.files("paramscope.families").joinpath("hf_not_null.json").read_text()
    return {model_type: frozenset(keys) for model_type, keys in json.loads(text).items()}
