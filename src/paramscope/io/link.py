"""The page's model as a share link: ``?preset=NAME`` plus only the config keys that the user edited.

Pure Python (no Streamlit). A link names a preset and edits its config, field by field, the way
:meth:`paramscope.model.Model.edit` does: by Spec field name (``?preset=gpt2&hidden_size=1536`` writes
GPT-2's ``n_embd``) or by the family's own key (``?preset=gpt2&n_embd=1536``); ``auto`` deletes the key so
that the class derives it again. So a link means what transformers builds from the edited config.json.

Values are parsed strictly: whole numbers are plain digits, switches are ``true``/``false``, text is a
short lowercase word. Nothing is ever evaluated. A bad value never stops the page: it is dropped with a
warning that names the field, and the preset's value is kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from paramscope.engine.spec import FIELDS, SpecError
from paramscope.families import FAMILIES, hf_defaults
from paramscope.io import presets
from paramscope.model import DELETED, FOLLOW_LAYERS, PER_LAYER_SIZES, TOWER_LAYER_KEYS, Model, field_of_key

DEFAULT_PRESET = "gpt2"
PRESET_KEY = "preset"
HUB_KEY = "hf"  # a Hub model: ?hf=ORG/NAME (and &revision=REV when not main) instead of ?preset=
REVISION_KEY = "revision"
AUTO = "auto"
#: Query keys owned by other parts of the page (run settings) or by Streamlit itself: not ours to judge.
FOREIGN_PREFIXES = ("run_", "x_", "embed")
#: The page's open tab (``?tab=Memory``), read by the page itself.
TAB_KEY = "tab"

MAX_KEYS = 64  # a link with more keys is cut here
MAX_VALUE_CHARS = 40  # longest value for a single field
MAX_LIST_CHARS = 4_000  # longest value for a list of layer indices
_DIGITS = re.compile(r"[0-9]{1,12}")
_WORD = re.compile(r"[a-z][a-z0-9_.-]{0,31}")
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def format_value(value: object) -> str:
    """A config value as it appears in a link."""
    if value is None:
        return AUTO
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


#: The activations transformers' models build (``transformers.activations.ACT2CLS`` of 5.23; a test keeps it equal):
#: a link's ``hidden_act`` names one of them, or the model would not build.
ACTIVATIONS = frozenset({
    "gelu", "gelu_10", "gelu_accurate", "gelu_fast", "gelu_new", "gelu_python", "gelu_python_tanh",
    "gelu_pytorch_tanh", "hardswish", "laplace", "leaky_relu", "linear", "mish", "prelu", "quick_gelu", "relu",
    "relu2", "relu6", "sigmoid", "silu", "sqrtsoftplus", "swish", "tanh", "xielu",
})  # fmt: skip


def parse_value(name: str, text: str, like: object = None) -> object:
    """Parse the link text for Spec field (or config key) ``name``; ``SpecError`` saying what was expected.

    A config key that is no Spec field takes the type of ``like`` (its value in the config or the class
    defaults).
    """
    kind = FIELDS[name].type if name in FIELDS else _kind_of(like)
    limit = MAX_LIST_CHARS if kind.startswith("tuple") else MAX_VALUE_CHARS
    if not isinstance(text, str):
        raise SpecError(name, "expected text")
    if len(text) > limit:
        raise SpecError(name, f"the value is {len(text):,} characters long; at most {limit:,} are accepted")
    raw = text.strip()
    word = raw.lower()
    if word == AUTO:
        return DELETED
    if kind.startswith("int"):
        if not _DIGITS.fullmatch(raw):
            raise SpecError(name, f"expected a whole number or auto, got {_shown(text)}")
        return int(raw)
    if kind.startswith("bool"):
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise SpecError(name, f"expected true, false or auto, got {_shown(text)}")
    if kind.startswith("tuple"):
        parts = [p.strip() for p in raw.split(",")] if raw else []
        if not all(_DIGITS.fullmatch(p) for p in parts):
            raise SpecError(name, f"expected layer indices separated by commas, got {_shown(text)}")
        return sorted({int(p) for p in parts})
    if not _WORD.fullmatch(word):
        raise SpecError(name, f"expected a short lowercase name or auto, got {_shown(text)}")
    if name == "hidden_act" and word not in ACTIVATIONS:
        raise SpecError(
            name, f"{_shown(text)} is no activation transformers builds; one of {', '.join(sorted(ACTIVATIONS))}"
        )
    return word


def _kind_of(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, list):
        return "tuple"
    return "str"


def _shown(text: object) -> str:
    s = str(text)
    return repr(s if len(s) <= MAX_VALUE_CHARS else s[:MAX_VALUE_CHARS] + "…")


def link_key(model: Model, key: str) -> str:
    """The name a link writes for config key ``key``: its Spec field when the key states one, else the key."""
    if not model.has_formulas:
        return key
    name = field_of_key(model.family, key)
    return name if name in FIELDS and model.family.key_for(name, model.base) == key else key


def accepts(model: Model, name: str) -> bool:
    """Whether a link may edit ``name`` of ``model``: a Spec field, or a key of its config or class defaults
    (a model without a family row: a key of its config)."""
    if not model.has_formulas:
        return name in model.base or _tower_key(model, name) is not None
    return name in FIELDS or name in model.base or name in _class_defaults(model)


def _tower_key(model: Model, name: str) -> tuple[str, dict[str, Any]] | None:
    """For a nested name of a whole model's tower (``text_config.num_hidden_layers``): the tower's model_type and its
    config as the whole reads it with its class's defaults; None for any other name."""
    tower, dot, key = name.partition(".")
    sub = model.meta.sub_configs.get(tower) if dot else None
    kind = sub.get("model_type") if isinstance(sub, dict) else None
    if not isinstance(kind, str) or kind not in FAMILIES:
        return None
    values = {**hf_defaults().get(FAMILIES[kind].hf_type, {}), **sub}
    return (kind, values) if key in values or key in FIELDS else None


def _class_defaults(model: Model) -> dict[str, object]:
    """The defaults of the model's transformers config class (none known for a model without a row)."""
    return hf_defaults().get(model.family.hf_type, {}) if model.has_formulas else {}


def apply_edits(model: Model, changes: Mapping[str, object]) -> tuple[Model, dict[str, str]]:
    """``model`` with as many of ``changes`` as make a valid model, and why each rejected change was dropped.

    All changes are tried together (so that ``hidden_size`` and ``num_attention_heads`` may move as a pair).
    When the result is invalid, the change the error names is dropped if there is one; otherwise the last
    change whose removal makes the model valid; failing both, every change is dropped.
    """
    kept = dict(changes)
    rejected: dict[str, str] = {}
    while kept:
        try:
            return model.edit(**kept), rejected
        except SpecError as exc:
            error = exc
        culprit = _culprit(model, kept, error.field)
        if not culprit:
            culprit = next((c for c in reversed(kept) if _valid_without(model, kept, c)), "")
        if not culprit:
            rejected.update({name: str(error) for name in kept})
            break
        rejected[culprit] = str(error)
        del kept[culprit]
    return model, rejected


def nearest_valid(model: Model, changes: Mapping[str, object], name: str, reach: int = 1024) -> int | None:
    """The whole number closest to ``changes[name]`` that makes ``changes`` a valid edit of ``model``, searching
    ``reach`` either side: the whole numbers around a fraction (on a tie the larger, as the exact box shows 12.5 as
    13), those either side of a whole number (itself the invalid value; the smaller on a tie); ``None`` when there is
    none or the value is not a number."""
    value = changes.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    below, above = (value - 1, value + 1) if value == int(value) else (math.floor(value), math.ceil(value))
    upper_first = value != int(value) and value - below >= above - value
    for step in range(reach):
        pair = (int(below) - step, int(above) + step)
        for candidate in reversed(pair) if upper_first else pair:
            if candidate < 0:
                continue
            try:
                model.edit(**{**changes, name: candidate})
            except SpecError:
                continue
            return candidate
    return None


def heads_for_width(model: Model, changes: Mapping[str, object]) -> int | None:
    """The attention heads that make a pending width valid at the model's head size (GPT-2 at 1,024: 16 heads of 64,
    GPT-2 medium's shape); ``None`` when the head size does not divide the width or the edit stays invalid."""
    width, size = changes.get("hidden_size"), model.spec.head_size if model.spec.has_attention else 0
    if type(width) is not int or not size or width % size:
        return None
    heads = width // size
    try:
        model.edit(**{**changes, "num_attention_heads": heads})
    except SpecError:
        return None
    return heads


def _culprit(model: Model, changes: Mapping[str, object], field: str) -> str:
    """The change that a message about ``field`` (a Spec field or a config key) is about, if any."""
    for name in changes:
        if name == field or (model.has_formulas and model.family.key_for(name, model.config) == field):
            return name
    return ""


def _valid_without(model: Model, changes: Mapping[str, object], name: str) -> bool:
    try:
        model.edit(**{k: v for k, v in changes.items() if k != name})
        return True
    except SpecError:
        return False


def model_from_query(q: Mapping[str, Any]) -> tuple[Model, list[str]]:
    """The model and warnings for a share link's query parameters.

    Never raises on user input: an unknown preset falls back to :data:`DEFAULT_PRESET`, a bad value keeps
    the preset's value; each such case adds a warning that names the field.
    """
    warnings: list[str] = []
    items = list(q.items())
    if len(items) > MAX_KEYS:
        warnings.append(f"link: only the first {MAX_KEYS} parameters were read ({len(items)} given)")
        items = items[:MAX_KEYS]
    query = {str(k): v for k, v in items}
    name = _text(query.get(PRESET_KEY, DEFAULT_PRESET))
    if name not in presets.names():
        warnings.append(f"preset: no preset named {_shown(name)}; showing {DEFAULT_PRESET} instead")
        name = DEFAULT_PRESET
    return edits_from_query(presets.model(name), query, warnings)


def edits_from_query(model: Model, query: Mapping[str, Any], warnings: list[str]) -> tuple[Model, list[str]]:
    """``model`` with the edits a link's query holds (every other key is someone else's)."""
    changes: dict[str, object] = {}
    config = model.config
    for key, value in query.items():
        if key in (PRESET_KEY, TAB_KEY) or key.startswith(FOREIGN_PREFIXES) or key in (HUB_KEY, REVISION_KEY):
            continue
        if key == "model_type" or not accepts(model, key):
            warnings.append(f"{_shown(key)[1:-1]}: not a field of this model; ignored")
            continue
        like = config.get(key, _class_defaults(model).get(key))
        field = field_of_key(model.family, key) if model.has_formulas else key  # n_inner reads as intermediate_size
        if (nested := None if model.has_formulas else _tower_key(model, key)) is not None:
            kind, values = nested
            name = key.partition(".")[2]
            like, field = values.get(name), field_of_key(FAMILIES[kind], name)
        try:
            parsed = parse_value(field if field in FIELDS else key, _text(value), like)
        except SpecError as exc:
            warnings.append(f"{key}: {exc.message}; kept the preset's value")
            continue
        changes[key] = parsed
    edited, rejected = apply_edits(model, changes)
    for key, message in rejected.items():
        shown = format_value(changes[key])
        where = message if message.startswith(f"{key}:") else f"{key}={shown} makes the model invalid ({message})"
        warnings.append(f"{where}; kept the preset's value")
    return edited, warnings


def _text(value: object) -> str:
    """A query value as one string (Streamlit gives the last of repeated keys; lists take the last too)."""
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else ""
    return value if isinstance(value, str) else str(value)


def query_from_model(model: Model) -> dict[str, str]:
    """``{"preset": name}`` (``{"hf": ORG/NAME, "revision": REV}`` for a Hub model, the revision only when not
    main; nothing for a model from neither, such as an upload) plus the edited keys, in key order (a field's name
    where a key states one)."""
    out: dict[str, str] = {}
    if model.hub_id:
        out[HUB_KEY] = model.hub_id
        if model.revision != "main":
            out[REVISION_KEY] = model.revision
    elif model.preset:
        out[PRESET_KEY] = model.preset
    edits = model.edits
    follow = model.has_formulas and model.family.key_for("num_hidden_layers", model.base) in edits
    for key, value in sorted(edits.items()):
        tower, dot, name = key.partition(".")
        nested = dot and name in FOLLOW_LAYERS and any(f"{tower}.{k}" in edits for k in TOWER_LAYER_KEYS)
        rebuilt = key in FOLLOW_LAYERS or key in PER_LAYER_SIZES and isinstance(value, list)  # a size per layer
        if (follow and rebuilt) or nested:
            continue  # rebuilt from the layer-count edit (of the model or of its tower), as Model.edit writes it
        out[link_key(model, key)] = format_value(value)
    return out


def in_words(value: object) -> str:
    """A config value as the page writes it: sizes with thousands separators, other values as the link does."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else format_value(value)


def changed(model: Model) -> list[tuple[str, str, str]]:
    """The edits in words: ``(key, before, after)`` for each edited key of the config file, with the name the page and
    the link give it where that differs ("n_embd (hidden_size)"), sizes with thousands separators."""

    def named(key: str) -> str:
        name = link_key(model, key)
        return key if name == key else f"{key} ({name})"

    base = model.base
    return [
        (named(key), in_words(base[key]) if key in base else "(not in the file)", in_words(value))
        for key, value in sorted(model.edits.items())
    ]
