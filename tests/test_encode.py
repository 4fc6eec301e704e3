"""Share-link encoding of a whole config: round trips, and hostile inputs that must end in ValueError."""

from __future__ import annotations

import base64
import json
import time
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paramscope
from paramscope.engine.spec import FIELDS, validate
from paramscope.io import presets
from paramscope.io.encode import MAX_JSON, MAX_TEXT, decode_config, encode_config, link_config


def pack(text: str | bytes, prefix: str = "2.") -> str:
    """Encode arbitrary payload text the way encode_config does, so the decoder sees it as well formed."""
    raw = text.encode() if isinstance(text, str) else text
    return prefix + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


@pytest.mark.parametrize("name", presets.row_names())
def test_every_preset_round_trips_compactly(name: str) -> None:
    """Every preset's config (the keys its family reads) encodes into a short link and decodes to the same
    model: the same spec as its config.json reads to."""
    model = presets.model(name)
    text = encode_config(link_config(model))
    assert len(text) < 1500
    assert paramscope.read(presets.get(name).config).spec == decode_config(text).spec


def test_the_link_keeps_only_what_counts() -> None:
    """Dropout, token ids and similar keys are left out of the link; every key the reader uses stays."""
    config = link_config(presets.model("gpt2"))
    assert "resid_pdrop" not in config and "n_embd" in config and "model_type" in config


# ------------------------------------------------------------------------------------ hostile input
HOSTILE_TEXT = {
    "empty": "",
    "no prefix": "eNqrrgUAAXUA-Q",
    "prefix only": "2.",
    "old version": "1.eNqrrgUAAXUA-Q",
    "not base64": "2.$$$***",
    "padding inside": "2.eNq=rrgUAAXUA-Q",
    "not zlib": "2." + base64.urlsafe_b64encode(b"hello world, not compressed").decode(),
    "truncated zlib": pack('{"vocab_size": 1000}')[:-6],
    "too long": "2." + "A" * (MAX_TEXT + 1),
    "unicode": "2.ééé",
    "newline injection": "2.eNqrrgUAAXUA-Q\n<script>",
}

HOSTILE_JSON = {
    "not json": "vocab_size=5",
    "array": "[1, 2, 3]",
    "string": '"gpt2"',
    "number": "5",
    "null": "null",
    "NaN": '{"vocab_size": NaN}',
    "Infinity": '{"hidden_size": Infinity}',
    "duplicate key": '{"vocab_size": 1, "vocab_size": 2}',
    "int as text": '{"vocab_size": "768"}',
    "int as float": '{"vocab_size": 768.0}',
    "int as bool": '{"vocab_size": true}',
    "bool as int": '{"tie_word_embeddings": 1}',
    "bool as text": '{"tie_word_embeddings": "yes"}',
    "text as number": '{"hidden_act": 5}',
    "text too long": json.dumps({"hidden_act": "x" * 500}),
    "list of bools": '{"mlp_only_layers": [true]}',
    "list not a list": '{"mlp_only_layers": 3}',
    "list too long": json.dumps({"mlp_only_layers": [0] * 1500}),
    "null required": '{"vocab_size": null}',
    "negative": '{"vocab_size": -1}',
    "huge number": '{"vocab_size": 1000000000000000000000000000000}',
    "heads do not divide": '{"num_attention_heads": 7}',
    "bad choice": '{"norm_type": "batchnorm"}',
    "unknown model type": '{"model_type": "evil"}',
    "model type not text": '{"model_type": ["llama"]}',
    "deep nesting": "[" * 100_00 + "]" * 100_00,
    "not utf-8": b'{"hidden_act": "\xff\xfe"}',
}


@pytest.mark.parametrize("text", list(HOSTILE_TEXT.values()), ids=list(HOSTILE_TEXT))
def test_malformed_text_is_a_value_error(text: str) -> None:
    """Garbage, damaged or oversized link text is refused with ValueError, never another exception."""
    with pytest.raises(ValueError, match=r"^link: "):
        decode_config(text)


@pytest.mark.parametrize("payload", list(HOSTILE_JSON.values()), ids=list(HOSTILE_JSON))
def test_hostile_payloads_are_value_errors(payload: str | bytes) -> None:
    """Well-packed payloads of the wrong shape, type or value are refused with ValueError."""
    text = pack(payload)
    if len(text) > MAX_TEXT:
        pytest.fail(f"the fixture itself is too long ({len(text)}): shrink it")
    with pytest.raises(ValueError):
        decode_config(text)


@pytest.mark.parametrize("value", [None, 123, 1.5, ["2.x"], {"a": 1}])
def test_non_text_is_a_value_error(value: object) -> None:
    """Anything that is not text (say a list from a repeated query key) is refused with ValueError."""
    with pytest.raises(ValueError, match=r"^link: "):
        decode_config(value)  # type: ignore[arg-type]


def test_zip_bomb_stops_at_the_limit() -> None:
    """A link within the size limit that would inflate to 2 MB (zlib at ~1000:1) is refused fast, uninflated."""
    bomb = b'{"vocab_size":' + b" " * 2_000_000 + b"1}"
    text = "2." + base64.urlsafe_b64encode(zlib.compress(bomb, 9)).decode().rstrip("=")
    assert len(text) < MAX_TEXT  # the attack fits in a link
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"more than {MAX_JSON:,} bytes"):
        decode_config(text)
    assert time.perf_counter() - start < 1.0


def test_trailing_data_after_the_stream_is_refused() -> None:
    """Bytes after the end of the zlib stream are refused rather than silently ignored."""
    raw = zlib.compress(b'{"vocab_size": 1000}') + b"extra"
    with pytest.raises(ValueError, match="trailing"):
        decode_config("2." + base64.urlsafe_b64encode(raw).decode())


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises_anything_but_value_error(text: str) -> None:
    """No text makes the decoder fail with anything other than ValueError."""
    try:
        decode_config(text)
    except ValueError:
        pass


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*sorted(FIELDS), "model_type"]) | st.text(max_size=12), JSON_VALUES, max_size=6)
)
def test_arbitrary_json_objects_give_a_valid_spec_or_value_error(data: dict) -> None:
    """Any JSON object of field-like keys either decodes to a valid model or is refused with ValueError."""
    try:
        spec = decode_config(pack(json.dumps(data))).spec
    except ValueError:
        return
    assert spec == validate(spec)
