"""Share-link encoding of a whole spec: round trips, and hostile inputs that must end in ValueError."""

from __future__ import annotations

import base64
import json
import time
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramscope import presets
from paramscope.encode import MAX_JSON, MAX_TEXT, decode_spec, diff_fields, encode_spec, nearest_preset
from paramscope.hfconfig import FAMILIES
from paramscope.spec import FIELDS, Spec, validate


def pack(text: str | bytes, prefix: str = "1.") -> str:
    """Encode arbitrary payload text the way encode_spec does, so the decoder sees it as well formed."""
    raw = text.encode() if isinstance(text, str) else text
    return prefix + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 4))
    head_dim = draw(st.integers(1, 16))
    experts = draw(st.sampled_from([0, 0, 2, 8]))
    layers = draw(st.integers(0, 12))
    return Spec(
        model_type=draw(st.sampled_from(sorted(FAMILIES))),
        architecture=draw(st.sampled_from(["causal_lm", "masked_lm", "base"])),
        vocab_size=draw(st.integers(0, 300_000)),
        hidden_size=heads * head_dim,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=draw(st.sampled_from([None, kv])),
        head_dim=draw(st.sampled_from([None, head_dim])),
        intermediate_size=draw(st.one_of(st.none(), st.integers(0, 50_000))),
        hidden_act=draw(st.text(min_size=1, max_size=30)),
        mlp_gated=draw(st.booleans()),
        attention_bias=draw(st.booleans()),
        attention_out_bias=draw(st.sampled_from([None, True, False])),
        norm_type=draw(st.sampled_from(["layernorm", "rmsnorm"])),
        norms_per_layer=draw(st.integers(0, 4)),
        position_embedding=draw(st.sampled_from(["learned", "rotary", "alibi", "none"])),
        max_position_embeddings=draw(st.integers(1, 10**6)),
        tie_word_embeddings=draw(st.booleans()),
        num_experts=experts,
        num_experts_per_tok=min(2, experts) or 2,
        mlp_only_layers=tuple(sorted(draw(st.sets(st.integers(0, 11), max_size=4)))),
        recurrent_units=draw(st.integers(0, 3)),
        sliding_window=draw(st.one_of(st.none(), st.integers(1, 10**5))),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_round_trip_random_specs(spec: Spec) -> None:
    """decode(encode(spec)) gives back the validated spec, field for field, in URL-safe characters."""
    text = encode_spec(spec)
    assert len(text) <= MAX_TEXT
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    back = decode_spec(text)
    assert {n: getattr(validate(spec), n) for n in FIELDS} == {n: getattr(back, n) for n in FIELDS}


@settings(max_examples=60, deadline=None)
@given(specs(), st.sampled_from(["gpt2", "llama-2-7b", "t5-small", "mixtral-8x7b"]))
def test_round_trip_over_a_preset(spec: Spec, base_name: str) -> None:
    """A spec encoded as differences over a preset decodes back over the same preset."""
    base = presets.load(base_name)
    assert validate(spec) == decode_spec(encode_spec(spec, base=base), base=base)


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_round_trips_compactly(name: str) -> None:
    """Every preset survives the round trip and its link stays short (well under the limit)."""
    spec = presets.load(name)
    text = encode_spec(spec)
    assert spec == decode_spec(text)
    assert len(text) < 400


def test_derived_fields_are_left_out_when_validation_restores_them() -> None:
    """GPT-2 small's head_dim, kv heads and 4x MLP width are derived, so the payload omits them."""
    raw = base64.urlsafe_b64decode(encode_spec(presets.load("gpt2"))[2:] + "==")
    payload = json.loads(zlib.decompress(raw))
    assert {"model_type": "gpt2", "attention_bias": True, "mlp_bias": True, "hidden_act": "gelu_new"} == payload


# ------------------------------------------------------------------------------------ hostile input
HOSTILE_TEXT = {
    "empty": "",
    "no prefix": "eNqrrgUAAXUA-Q",
    "prefix only": "1.",
    "wrong version": "2.eNqrrgUAAXUA-Q",
    "not base64": "1.$$$***",
    "padding inside": "1.eNq=rrgUAAXUA-Q",
    "not zlib": "1." + base64.urlsafe_b64encode(b"hello world, not compressed").decode(),
    "truncated zlib": pack('{"vocab_size": 1000}')[:-6],
    "too long": "1." + "A" * (MAX_TEXT + 1),
    "unicode": "1.ééé",
    "newline injection": "1.eNqrrgUAAXUA-Q\n<script>",
}

HOSTILE_JSON = {
    "not json": "vocab_size=5",
    "array": "[1, 2, 3]",
    "string": '"gpt2"',
    "number": "5",
    "null": "null",
    "NaN": '{"vocab_size": NaN}',
    "Infinity": '{"hidden_size": Infinity}',
    "unknown key": '{"__class__": "os.system"}',
    "extra is not a field": '{"extra": [["a", "b"]]}',
    "override smuggling": '{"_paramscope": {"vocab_size": 1}}',
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
    with pytest.raises(ValueError, match=r"^spec: "):
        decode_spec(text)


@pytest.mark.parametrize("payload", list(HOSTILE_JSON.values()), ids=list(HOSTILE_JSON))
def test_hostile_payloads_are_value_errors(payload: str | bytes) -> None:
    """Well-packed payloads of the wrong shape, type or value are refused with ValueError."""
    text = pack(payload)
    if len(text) > MAX_TEXT:
        pytest.fail(f"the fixture itself is too long ({len(text)}): shrink it")
    with pytest.raises(ValueError):
        decode_spec(text)


@pytest.mark.parametrize("value", [None, 123, 1.5, ["1.x"], {"a": 1}])
def test_non_text_is_a_value_error(value: object) -> None:
    """Anything that is not text (say a list from a repeated query key) is refused with ValueError."""
    with pytest.raises(ValueError, match=r"^spec: "):
        decode_spec(value)  # type: ignore[arg-type]


def test_zip_bomb_stops_at_the_limit() -> None:
    """A link within the size limit that would inflate to 2 MB (zlib at ~1000:1) is refused fast, uninflated."""
    bomb = b'{"vocab_size":' + b" " * 2_000_000 + b"1}"
    text = "1." + base64.urlsafe_b64encode(zlib.compress(bomb, 9)).decode().rstrip("=")
    assert len(text) < MAX_TEXT  # the attack fits in a link
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"more than {MAX_JSON:,} bytes"):
        decode_spec(text)
    assert time.perf_counter() - start < 1.0


def test_trailing_data_after_the_stream_is_refused() -> None:
    """Bytes after the end of the zlib stream are refused rather than silently ignored."""
    raw = zlib.compress(b'{"vocab_size": 1000}') + b"extra"
    with pytest.raises(ValueError, match="trailing"):
        decode_spec("1." + base64.urlsafe_b64encode(raw).decode())


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises_anything_but_value_error(text: str) -> None:
    """No text makes the decoder fail with anything other than ValueError."""
    try:
        decode_spec(text)
    except ValueError:
        pass


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(FIELDS)) | st.text(max_size=12), JSON_VALUES, max_size=6))
def test_arbitrary_json_objects_give_a_valid_spec_or_value_error(data: dict) -> None:
    """Any JSON object of field-like keys either decodes to a valid spec or is refused with ValueError."""
    try:
        spec = decode_spec(pack(json.dumps(data)))
    except ValueError:
        return
    assert spec == validate(spec)
    assert set(data) <= set(FIELDS)


# ------------------------------------------------------------------------------------ presets, diffs
def test_diff_fields_between_two_gpt2_sizes() -> None:
    """GPT-2 medium differs from small in width, depth, heads (and so kv heads) and MLP width only."""
    expected = {
        "hidden_size": 1024,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "intermediate_size": 4096,
    }
    assert expected == diff_fields(presets.load("gpt2"), presets.load("gpt2-medium"))


def test_diff_fields_writes_tuples_as_lists() -> None:
    """A tuple field comes back as a JSON-ready list."""
    base = validate(Spec(num_hidden_layers=4))
    assert {"mlp_only_layers": [1, 2]} == diff_fields(base, base.replace(mlp_only_layers=(1, 2)))


@pytest.mark.parametrize("name", presets.names())
def test_nearest_preset_of_a_preset_is_identical_to_it(name: str) -> None:
    """A preset's nearest preset has no differing field (itself, or an identical twin)."""
    spec = presets.load(name)
    assert {} == diff_fields(presets.load(nearest_preset(spec)), spec)


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("llama-2-7b", {"num_hidden_layers": 40}),
        ("gpt2-medium", {"vocab_size": 50304}),
        ("mixtral-8x7b", {"num_experts": 16}),
        ("t5-small", {"num_decoder_layers": 3}),
    ],
)
def test_nearest_preset_of_a_small_edit(name: str, changes: dict) -> None:
    """One field changed: the preset it came from is still the nearest."""
    assert name == nearest_preset(presets.load(name).replace(**changes))


def test_nearest_preset_keeps_the_model_type() -> None:
    """A model type with presets is matched within its own type, even when another type is closer in size."""
    spec = presets.load("gpt2").replace(model_type="llama")
    assert "llama" == presets.load(nearest_preset(spec)).model_type


def test_python_api_exports() -> None:
    """`import paramscope` offers the explore functions under names that do not shadow their modules."""
    import paramscope

    gpt2 = paramscope.preset("gpt2")
    assert gpt2 == paramscope.decode_spec(paramscope.encode_spec(gpt2))
    assert "gpt2-medium" == paramscope.nearest_preset(
        gpt2.replace(
            hidden_size=1024,
            num_attention_heads=16,
            num_key_value_heads=16,
            num_hidden_layers=24,
            intermediate_size=4096,
        )
    )
    assert (124439808, 354823168) == paramscope.compare_models(
        [("s", gpt2), ("m", paramscope.preset("gpt2-medium"))], with_costs=False
    ).totals
    assert "digraph" in paramscope.to_dot(gpt2, paramscope.count(gpt2))
    assert [124439808] == [r["total"] for r in paramscope.sweep_dimension(gpt2, "layers", [12], with_costs=False)]
