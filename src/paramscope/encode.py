"""A whole Spec as a short, URL-safe string of plain data, and back (strictly).

``encode_spec`` writes the fields that differ from a base spec (``Spec()`` unless a preset is given) as
compact JSON, compresses it with zlib and encodes it base64url without padding, behind a version tag::

    >>> from paramscope.presets import load
    >>> text = encode_spec(load("gpt2"))
    >>> decode_spec(text) == load("gpt2")
    True

``decode_spec`` trusts nothing: the text is size-limited, the decompressed JSON is size-limited too
(a zip bomb stops at the limit, it is never inflated in full), only a JSON object whose keys are Spec
field names with JSON values of the field's own type is accepted, and the result goes through the
same reader (model_type "paramscope") and validation as an uploaded config. Every failure is a
``ValueError`` with a one-line message. There is no pickling anywhere: the payload is plain data.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import zlib
from typing import Any

from .hfconfig import FAMILIES, read
from .spec import FIELDS, Spec, validate

#: Version tag in front of every encoded spec, so that the format can change without breaking links.
PREFIX = "1."
#: The longest encoded text accepted (characters). A spec with every field changed is ~600.
MAX_TEXT = 4096
#: The largest decompressed JSON accepted (bytes). Every field at its longest fits well inside.
MAX_JSON = 16384
#: The longest text value (hidden_act and the few choice fields).
MAX_STR = 100
#: The longest list (mlp_only_layers).
MAX_LIST = 1000

_DERIVED = ("num_key_value_heads", "head_dim", "intermediate_size")


# ------------------------------------------------------------------------------------ plain data
def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def diff_fields(base: Spec, spec: Spec) -> dict[str, Any]:
    """The fields of ``spec`` that differ from ``base``, as ``{field: value in spec}`` (plain JSON data).

    Both specs are compared as given (validate them first to compare resolved values). Tuples are
    returned as lists so the result can be written as JSON.
    """
    return {name: _plain(getattr(spec, name)) for name in FIELDS if getattr(spec, name) != getattr(base, name)}


def _compact_diff(base: Spec, spec: Spec) -> dict[str, Any]:
    """The differing fields, minus derived fields that validation would fill with the same value."""
    spec = validate(spec)
    out = diff_fields(base, spec)
    for name in _DERIVED:
        if name in out:
            trial = {k: v for k, v in out.items() if k != name}
            try:
                if _build(trial, base) == spec:
                    out = trial
            except ValueError:
                pass
    return out


def _build(fields: dict[str, Any], base: Spec) -> Spec:
    """``base`` with ``fields`` applied, read through the "paramscope" reader and validated."""
    model_type = fields.get("model_type", base.model_type)
    merged = {name: _plain(getattr(base, name)) for name in FIELDS if name != "model_type"}
    merged.update({k: v for k, v in fields.items() if k != "model_type"})
    # nulls mean "derive it": the reader skips them, so start from Spec()'s None instead of base's value
    data = {"model_type": "paramscope", **{k: v for k, v in merged.items() if v is not None}}
    spec = read(data).spec
    if model_type not in FAMILIES:
        raise ValueError(f"model_type: {str(model_type)[:40]!r} is not supported")
    return validate(Spec(**{**{n: getattr(spec, n) for n in FIELDS}, "model_type": model_type}))


# -------------------------------------------------------------------------------------- encoding
def encode_spec(spec: Spec, base: Spec | None = None) -> str:
    """``spec`` as a URL-safe string: the fields that differ from ``base`` (default ``Spec()``).

    ``ValueError`` for an invalid spec, or one too large for :func:`decode_spec` to accept back.
    """
    base = base if base is not None else Spec()
    payload = json.dumps(_compact_diff(base, spec), separators=(",", ":"), sort_keys=True).encode("utf-8")
    packed = zlib.compress(payload, 9)
    text = PREFIX + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")
    if len(payload) > MAX_JSON or len(text) > MAX_TEXT:  # what decode_spec would refuse, never written
        raise ValueError(f"spec: too large to encode in a link ({len(text):,} characters)")
    return text


def decode_spec(text: str, base: Spec | None = None) -> Spec:
    """The Spec encoded in ``text`` (over ``base``, default ``Spec()``); ``ValueError`` on anything else."""
    data = _unpack(text)
    base = base if base is not None else Spec()
    return _build(_checked(data), base)


def _unpack(text: Any) -> dict[str, Any]:
    if isinstance(text, bytes):
        text = text.decode("ascii", errors="replace")
    if not isinstance(text, str):
        raise ValueError("spec: expected text")
    text = text.strip()
    if len(text) > MAX_TEXT:
        raise ValueError(f"spec: the encoded text is {len(text):,} characters; the limit is {MAX_TEXT:,}")
    if not text.startswith(PREFIX):
        raise ValueError(f"spec: not an encoded ParamScope spec (expected it to start with {PREFIX!r})")
    body = text[len(PREFIX) :]
    if not body or any(ch not in _B64URL for ch in body):
        raise ValueError("spec: the encoded text holds characters outside base64url (A-Z a-z 0-9 - _)")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("spec: the encoded text is not valid base64url") from None
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(raw, MAX_JSON + 1)
    except zlib.error:
        raise ValueError("spec: the encoded text is damaged (not zlib data)") from None
    if len(out) > MAX_JSON or inflater.unconsumed_tail:
        raise ValueError(f"spec: the data unpacks to more than {MAX_JSON:,} bytes; refused")
    if not inflater.eof or inflater.unused_data:
        raise ValueError("spec: the encoded text is truncated or has trailing data")
    try:
        data = json.loads(out.decode("utf-8"), parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError:
        raise ValueError("spec: the data is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"spec: the data is not JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError("spec: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError("spec: expected a JSON object of spec fields")
    return data


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _reject_constant(name: str) -> float:
    raise ValueError(f"spec: {name} is not a value a spec can hold")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"spec: the field {str(key)[:40]!r} appears twice")
        out[key] = value
    return out


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """Keys must be Spec fields and values JSON of the field's type (no coercion from text)."""
    unknown = sorted(k for k in data if k not in FIELDS)
    if unknown:
        shown = ", ".join(repr(k[:40]) for k in unknown[:5])
        raise ValueError(f"spec: unknown field(s) {shown}; a spec holds only Spec field names")
    for name, value in data.items():
        kind = FIELDS[name].type
        optional = kind.endswith("| None")
        if value is None:
            if not optional:
                raise ValueError(f"{name}: a value is required (null is not allowed)")
            continue
        if kind.startswith("int"):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name}: expected a whole number, got {type(value).__name__}")
        elif kind.startswith("bool"):
            if not isinstance(value, bool):
                raise ValueError(f"{name}: expected true or false, got {type(value).__name__}")
        elif kind.startswith("tuple"):
            if not isinstance(value, list) or len(value) > MAX_LIST:
                raise ValueError(f"{name}: expected a list of at most {MAX_LIST} whole numbers")
            if any(isinstance(i, bool) or not isinstance(i, int) for i in value):
                raise ValueError(f"{name}: expected a list of whole numbers")
        else:
            if not isinstance(value, str) or len(value) > MAX_STR:
                raise ValueError(f"{name}: expected text of at most {MAX_STR} characters")
    return data


# ----------------------------------------------------------------------------------------- presets
def nearest_preset(spec: Spec) -> str | None:
    """The preset closest to ``spec``: same model_type first, then the fewest differing fields, then the
    closest total; ``None`` only when there are no presets at all."""
    from . import presets
    from .params import count

    spec = validate(spec)
    names = presets.names()
    if not names:
        return None
    total = count(spec).count
    same = [n for n in names if presets.load(n).model_type == spec.model_type]
    pool = same or names

    def key(name: str) -> tuple[int, float, str]:
        other = presets.load(name)
        far = abs(math.log((count(other).count + 1) / (total + 1)))
        return (len(diff_fields(other, spec)), far, name)

    return min(pool, key=key)
