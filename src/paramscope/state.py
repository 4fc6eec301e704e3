"""The page's state as a share link: ``?preset=NAME`` plus only the fields that differ from that preset.

Pure Python (no Streamlit). A link names a preset and overrides :class:`~paramscope.spec.Spec` fields by
their own (Hugging Face) names, e.g. ``?preset=gpt2&num_hidden_layers=24``. Values are parsed strictly:
whole numbers are plain digits, switches are ``true``/``false``, choices must be one of the listed words,
and ``auto`` clears a derived size (``head_dim``, ``num_key_value_heads`` ...) so that it is derived again.
Nothing is ever evaluated. A bad value never stops the page: it is dropped with a warning that names the
field, and the preset's value is kept.

The spec kept by the page is the *editable* one: sizes that the preset derives (``head_dim`` = width /
heads, ``num_key_value_heads`` = heads) stay ``None``, so that changing the width or the number of heads
re-derives them as transformers does. :func:`paramscope.spec.validate` turns it into the resolved spec;
both count the same.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from functools import cache

from . import presets
from .spec import ARCHITECTURES, FIELDS, NORM_TYPES, POSITION_EMBEDDINGS, QK_NORMS, Spec, validate

DEFAULT_PRESET = "gpt2"
PRESET_KEY = "preset"
AUTO = "auto"

#: Fields a link may carry: every Spec field but the family (which the preset fixes).
LINK_FIELDS: tuple[str, ...] = tuple(n for n in FIELDS if n != "model_type")
#: Query keys owned by other parts of the page (run settings) or by Streamlit itself: not ours to judge.
FOREIGN_PREFIXES = ("run_", "x_", "embed")
#: The page's open tab (``?tab=Memory``), read by the page itself.
TAB_KEY = "tab"

MAX_KEYS = 64  # a link with more keys is cut here (there are fewer fields than this)
MAX_VALUE_CHARS = 40  # longest value for a single field
MAX_LIST_CHARS = 4_000  # longest value for a list field (mlp_only_layers)
_CHOICES: dict[str, tuple[str, ...]] = {
    "architecture": ARCHITECTURES,
    "norm_type": NORM_TYPES,
    "position_embedding": POSITION_EMBEDDINGS,
    "qk_norm": QK_NORMS,
}
_DIGITS = re.compile(r"[0-9]{1,12}")
_WORD = re.compile(r"[a-z][a-z0-9_.]{0,31}")
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


@cache
def base_spec(name: str) -> Spec:
    """The editable spec of preset ``name``: the preset with derived sizes left to derive.

    ``head_dim`` becomes ``None`` where it equals ``hidden_size // num_attention_heads`` and
    ``num_key_value_heads`` where it equals ``num_attention_heads``; the count does not change.
    """
    spec = presets.load(name)
    changes: dict[str, object] = {}
    heads = spec.num_attention_heads
    if spec.has_attention and heads and not spec.is_mla:
        if spec.head_dim is not None and spec.hidden_size % heads == 0 and spec.head_dim == spec.hidden_size // heads:
            changes["head_dim"] = None
        if spec.num_key_value_heads == heads:
            changes["num_key_value_heads"] = None
    return dataclasses.replace(spec, **changes) if changes else spec


def format_value(value: object) -> str:
    """A field value as it appears in a link."""
    if value is None:
        return AUTO
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def parse_value(name: str, text: str) -> object:
    """Parse the link text for field ``name``; ``ValueError`` saying what was expected."""
    if name not in FIELDS or name == "model_type":
        raise ValueError(f"{_shown(name)}: not a field ParamScope knows")
    kind = FIELDS[name].type
    limit = MAX_LIST_CHARS if kind.startswith("tuple") else MAX_VALUE_CHARS
    if not isinstance(text, str):
        raise ValueError(f"{name}: expected text")
    if len(text) > limit:
        raise ValueError(f"{name}: the value is {len(text):,} characters long; at most {limit:,} are accepted")
    raw = text.strip()
    word = raw.lower()
    if kind in ("int", "int | None"):
        if kind == "int | None" and word == AUTO:
            return None
        if not _DIGITS.fullmatch(raw):
            hint = " or auto" if kind == "int | None" else ""
            raise ValueError(f"{name}: expected a whole number{hint}, got {_shown(text)}")
        return int(raw)
    if kind in ("bool", "bool | None"):
        if kind == "bool | None" and word == AUTO:
            return None
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise ValueError(f"{name}: expected true or false, got {_shown(text)}")
    if kind.startswith("tuple"):
        if not raw:
            return ()
        parts = [p.strip() for p in raw.split(",")]
        if not all(_DIGITS.fullmatch(p) for p in parts):
            raise ValueError(f"{name}: expected layer indices separated by commas, got {_shown(text)}")
        return tuple(sorted({int(p) for p in parts}))
    if name in _CHOICES:
        if word not in _CHOICES[name]:
            raise ValueError(f"{name}: expected one of {', '.join(_CHOICES[name])}, got {_shown(text)}")
        return word
    if not _WORD.fullmatch(word):
        raise ValueError(f"{name}: expected a short lowercase name, got {_shown(text)}")
    return word


def _shown(text: object) -> str:
    s = str(text)
    return repr(s if len(s) <= MAX_VALUE_CHARS else s[:MAX_VALUE_CHARS] + "…")


def _field_of(message: str) -> str:
    """The field a ``validate`` message starts with ("num_attention_heads: ...")."""
    return message.split(":", 1)[0].strip()


def apply_changes(base: Spec, changes: Mapping[str, object]) -> tuple[Spec, dict[str, str]]:
    """``base`` with as many of ``changes`` as make a valid spec, and why each rejected change was dropped.

    All changes are tried together (so that ``hidden_size`` and ``num_attention_heads`` may move as a pair).
    When the result is invalid, the field the error names is dropped if it was changed; otherwise the
    change whose removal makes the spec valid is dropped; failing both, every change is dropped.
    """
    kept = dict(changes)
    rejected: dict[str, str] = {}
    while kept:
        try:
            validate(dataclasses.replace(base, **kept))
            break
        except ValueError as exc:
            message = str(exc)
        culprit = _field_of(message)
        if culprit not in kept:
            culprit = next((c for c in reversed(kept) if _valid_without(base, kept, c)), "")
        if not culprit:
            for name in kept:
                rejected[name] = message
            kept = {}
            break
        rejected[culprit] = message
        del kept[culprit]
    return (dataclasses.replace(base, **kept) if kept else base), rejected


def _valid_without(base: Spec, changes: Mapping[str, object], name: str) -> bool:
    try:
        validate(dataclasses.replace(base, **{k: v for k, v in changes.items() if k != name}))
        return True
    except ValueError:
        return False


def spec_from_query(q: Mapping[str, str]) -> tuple[str, Spec, list[str]]:
    """The preset name, editable spec and warnings for a share link's query parameters.

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
        shown = _shown(name)
        warnings.append(f"preset: no preset named {shown}; showing {DEFAULT_PRESET} instead")
        name = DEFAULT_PRESET
    base = base_spec(name)
    changes: dict[str, object] = {}
    for key, value in query.items():
        if key in (PRESET_KEY, TAB_KEY) or key.startswith(FOREIGN_PREFIXES):
            continue
        if key not in LINK_FIELDS:
            warnings.append(f"{_shown(key)[1:-1]}: not a model field ParamScope knows; ignored")
            continue
        try:
            parsed = parse_value(key, _text(value))
        except ValueError as exc:
            warnings.append(f"{exc}; kept the preset's value {format_value(getattr(base, key))}")
            continue
        if parsed != getattr(base, key):
            changes[key] = parsed
    spec, rejected = apply_changes(base, changes)
    for key, message in rejected.items():
        shown = format_value(changes[key])
        where = message if _field_of(message) == key else f"{key}={shown} makes the model invalid ({message})"
        warnings.append(f"{where}; kept the preset's value {format_value(getattr(base, key))}")
    return name, spec, warnings


def _text(value: object) -> str:
    """A query value as one string (Streamlit gives the last of repeated keys; lists take the last too)."""
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else ""
    return value if isinstance(value, str) else str(value)


def query_from_spec(preset_name: str, spec: Spec) -> dict[str, str]:
    """``{"preset": name}`` plus, in Spec field order, the fields of ``spec`` that differ from the preset."""
    base = base_spec(preset_name)
    out = {PRESET_KEY: preset_name}
    for name in LINK_FIELDS:
        value = getattr(spec, name)
        if value != getattr(base, name):
            out[name] = format_value(value)
    return out


def changed_fields(preset_name: str, spec: Spec) -> list[str]:
    """The fields of ``spec`` that differ from its preset, in Spec field order."""
    return [k for k in query_from_spec(preset_name, spec) if k != PRESET_KEY]
