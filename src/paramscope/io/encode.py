"""A model's config as a short, URL-safe string of plain data, and back (strictly): for share links of a
model that no preset and edits can name (an upload, a Hub repo's config).

``encode_config`` writes the config as compact JSON, compresses it with zlib and encodes it base64url
without padding, behind a version tag. ``decode_config`` trusts nothing: the text is size-limited, the
decompressed JSON is size-limited too (a zip bomb stops at the limit, it is never inflated in full), only a
JSON object with unique keys is accepted, and it goes through the same reader and validation as an uploaded
config. Every failure is a ``SpecError`` with a one-line message. There is no pickling anywhere.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from typing import Any

from paramscope.engine.spec import SpecError
from paramscope.io.config_json import loads
from paramscope.model import Model

#: Version tag in front of every encoded config, so that the format can change without breaking links.
PREFIX = "2."
#: The longest encoded text accepted (characters). A real config's used keys take ~300-900.
MAX_TEXT = 4096
#: The largest decompressed JSON accepted (bytes). Every field at its longest fits well inside.
MAX_JSON = 16384


# -------------------------------------------------------------------------------------- encoding
def encode_config(config: Mapping[str, Any]) -> str:
    """``config`` as a URL-safe string; ``SpecError`` when it is too large for :func:`decode_config`."""
    payload = json.dumps(config, separators=(",", ":"), sort_keys=True).encode("utf-8")  # Infinity as JSON reads it
    packed = zlib.compress(payload, 9)
    text = PREFIX + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")
    if len(payload) > MAX_JSON or len(text) > MAX_TEXT:  # what decode_config would refuse, never written
        raise SpecError("config", f"too large to encode in a link ({len(text):,} characters)")
    return text


def decode_config(text: str) -> Model:
    """The model whose config is encoded in ``text``; ``SpecError`` on anything else."""
    return Model.from_config(_unpack(text), origin="link")


def link_config(model: Model) -> dict[str, Any]:
    """The part of ``model``'s config that a link needs: the keys its family reads, and what names the class
    (every key of a model transformers counts: it ignores none of them)."""
    ignored = model.ignored
    return {k: v for k, v in model.config.items() if k not in ignored}


def _unpack(text: Any) -> dict[str, Any]:
    if isinstance(text, bytes):
        text = text.decode("ascii", errors="replace")
    if not isinstance(text, str):
        raise SpecError("link", "expected text")
    text = text.strip()
    if len(text) > MAX_TEXT:
        raise SpecError("link", f"the encoded text is {len(text):,} characters; the limit is {MAX_TEXT:,}")
    if not text.startswith(PREFIX):
        raise SpecError("link", f"not an encoded ParamScope model (expected it to start with {PREFIX!r})")
    body = text[len(PREFIX) :]
    if not body or any(ch not in _B64URL for ch in body):
        raise SpecError("link", "the encoded text holds characters outside base64url (A-Z a-z 0-9 - _)")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise SpecError("link", "the encoded text is not valid base64url") from None
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(raw, MAX_JSON + 1)
    except zlib.error:
        raise SpecError("link", "the encoded text is damaged (not zlib data)") from None
    if len(out) > MAX_JSON or inflater.unconsumed_tail:
        raise SpecError("link", f"the data unpacks to more than {MAX_JSON:,} bytes; refused")
    if not inflater.eof or inflater.unused_data:
        raise SpecError("link", "the encoded text is truncated or has trailing data")
    try:
        data = loads(out.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError:
        raise SpecError("link", "the data is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise SpecError("link", f"the data is not JSON ({exc.msg})") from None
    except RecursionError:
        raise SpecError("link", "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise SpecError("link", "expected a JSON object (a config)")
    return data


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise SpecError("link", f"the field {str(key)[:40]!r} appears twice")
        out[key] = value
    return out
