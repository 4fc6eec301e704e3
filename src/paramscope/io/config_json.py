"""config.json text from a user (an upload, a paste, a file, the Hub): size-limited, plain JSON only."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from paramscope.engine.spec import SpecError
from paramscope.families import ReadResult, read

#: The largest config file accepted (bytes). Real ones are a few kB.
MAX_CONFIG_BYTES = 1_000_000


def parse(text: str | bytes) -> dict[str, Any]:
    """The JSON object in ``text``; ``SpecError`` (field ``config``) for anything else."""
    if isinstance(text, bytes):
        if len(text) > MAX_CONFIG_BYTES:
            raise SpecError("config", f"the file is {len(text):,} bytes; the limit is {MAX_CONFIG_BYTES:,}")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SpecError("config", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise SpecError("config", f"the text is {len(text):,} characters; the limit is {MAX_CONFIG_BYTES:,}")
    try:
        data = loads(text, object_pairs_hook=_once)
    except json.JSONDecodeError as exc:
        raise SpecError("config", f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise SpecError("config", "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise SpecError("config", "expected a JSON object ({...}) at the top level")
    return data


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each stated once: a key stated twice is refused, naming it and both values
    (Python's json and so transformers would silently keep the last; a person editing the text meant one)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            first, last = (json.dumps(v)[:40] for v in (out[key], value))
            raise SpecError(
                key[:60], f"stated twice ({first}, then {last}); transformers would keep the last: keep one"
            )
        out[key] = value
    return out


def read_json_text(text: str | bytes) -> ReadResult:
    """Parse config.json text and read it."""
    return read(parse(text))


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > 30:
        raise SpecError("config", f"a number with {len(text):,} digits is far too large for any size")
    return int(text)


def loads(text: str, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """JSON as transformers writes config.json, read strictly: ``Infinity`` and ``-Infinity`` are floats (Mamba-2's
    ``time_step_limit`` is ``[0.0, Infinity]``), while ``NaN`` and integers of more than 30 digits are refused
    (``SpecError``, field ``config``). Every JSON reader here (upload, link, Hub) reads through this."""
    return json.loads(text, parse_constant=_constant, parse_int=_parse_int, object_pairs_hook=object_pairs_hook)


def _constant(name: str) -> float:
    if name == "NaN":
        raise SpecError("config", "NaN is not a number a config can hold")
    return float(name.replace("Infinity", "inf"))
