"""Share-link state: spec <-> query parameters (paramscope.state), strict parsing, round trips."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramscope import presets, state
from paramscope.params import summarize
from paramscope.spec import validate

GPT2 = presets.load("gpt2")


@pytest.mark.parametrize("name", presets.names())
def test_base_spec_counts_like_the_preset(name):
    """The editable spec of every preset (derived sizes left to derive) has the preset's published total."""
    assert presets.get(name).expected_total == summarize(state.base_spec(name)).total


@pytest.mark.parametrize("name", presets.names())
def test_bare_preset_link(name):
    """?preset=NAME alone is that preset, with no warning, and writes back to just itself."""
    preset, spec, warnings = state.spec_from_query({"preset": name})
    assert (name, state.base_spec(name), []) == (preset, spec, warnings)
    assert {"preset": name} == state.query_from_spec(name, spec)


@pytest.mark.parametrize(
    ("query", "changes"),
    [
        ({"num_hidden_layers": "24"}, {"num_hidden_layers": 24}),
        ({"hidden_size": "1024", "num_attention_heads": "16"}, {"hidden_size": 1024, "num_attention_heads": 16}),
        ({"num_attention_heads": "16", "hidden_size": "1024"}, {"hidden_size": 1024, "num_attention_heads": 16}),
        ({"head_dim": "128"}, {"head_dim": 128}),
        ({"num_key_value_heads": "4"}, {"num_key_value_heads": 4}),
        ({"tie_word_embeddings": "false"}, {"tie_word_embeddings": False}),
        ({"tie_word_embeddings": "FALSE"}, {"tie_word_embeddings": False}),
        ({"mlp_gated": "1"}, {"mlp_gated": True}),
        ({"norm_type": "rmsnorm"}, {"norm_type": "rmsnorm"}),
        ({"position_embedding": "rotary"}, {"position_embedding": "rotary"}),
        ({"num_experts": "8", "num_experts_per_tok": "2"}, {"num_experts": 8, "num_experts_per_tok": 2}),
        ({"mlp_only_layers": "3,1,1"}, {"mlp_only_layers": (1, 3)}),
        ({"hidden_act": "silu"}, {"hidden_act": "silu"}),
        ({"vocab_size": " 50304 "}, {"vocab_size": 50304}),
        ({"num_hidden_layers": "12"}, {}),
        ({"run_batch": "8", "embed": "true", "x_cmp": "gpt2", "tab": "Memory"}, {}),
    ],
)
def test_good_values_apply(query, changes):
    """Well-formed values in a gpt2 link change exactly those fields, with no warning."""
    preset, spec, warnings = state.spec_from_query({"preset": "gpt2", **query})
    expected = dataclasses.replace(state.base_spec("gpt2"), **changes)
    assert ("gpt2", expected, []) == (preset, spec, warnings)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"num_hidden_layers": "abc"}, "num_hidden_layers"),
        ({"num_hidden_layers": "-3"}, "num_hidden_layers"),
        ({"num_hidden_layers": "2.5"}, "num_hidden_layers"),
        ({"num_hidden_layers": "1e3"}, "num_hidden_layers"),
        ({"num_hidden_layers": "0x10"}, "num_hidden_layers"),
        ({"num_hidden_layers": "9" * 41}, "num_hidden_layers"),
        ({"num_hidden_layers": "99999999999"}, "num_hidden_layers"),
        ({"hidden_size": ""}, "hidden_size"),
        ({"hidden_size": "auto"}, "hidden_size"),
        ({"num_attention_heads": "7"}, "num_attention_heads"),
        ({"num_attention_heads": "0"}, "num_attention_heads"),
        ({"hidden_size": "1000"}, "hidden_size"),
        ({"num_key_value_heads": "5"}, "num_key_value_heads"),
        ({"tie_word_embeddings": "maybe"}, "tie_word_embeddings"),
        ({"norm_type": "batchnorm"}, "norm_type"),
        ({"position_embedding": "__import__('os')"}, "position_embedding"),
        ({"hidden_act": "gelu; rm -rf"}, "hidden_act"),
        ({"num_experts": "4", "num_experts_per_tok": "9"}, "num_experts_per_tok"),
        ({"mlp_only_layers": "1,x"}, "mlp_only_layers"),
        ({"model_type": "llama"}, "model_type"),
        ({"extra": "x"}, "extra"),
        ({"not_a_field": "1"}, "not_a_field"),
    ],
)
def test_bad_value_warns_and_keeps_the_preset(query, field):
    """A bad value never raises: one warning names the field, and the preset's value stays."""
    preset, spec, warnings = state.spec_from_query({"preset": "gpt2", **query})
    assert "gpt2" == preset
    assert 1 == len(warnings), warnings
    assert warnings[0].startswith(field), warnings
    if field in state.LINK_FIELDS:
        assert getattr(state.base_spec("gpt2"), field) == getattr(spec, field)
    validate(spec)  # what the page shows is always a valid model


def test_bad_value_leaves_the_good_ones():
    """Only the bad field is dropped; the others in the same link still apply."""
    _, spec, warnings = state.spec_from_query({"preset": "gpt2", "num_hidden_layers": "24", "vocab_size": "x"})
    assert 24 == spec.num_hidden_layers
    assert state.base_spec("gpt2").vocab_size == spec.vocab_size
    assert ["vocab_size"] == [w.split(":")[0] for w in warnings]


@pytest.mark.parametrize("name", ["nope", "", "GPT2", "gpt2 ", "../gpt2", "x" * 500])
def test_unknown_preset_falls_back_to_gpt2(name):
    """An unknown preset shows gpt2 with a warning naming the preset (the name is cut short)."""
    preset, spec, warnings = state.spec_from_query({"preset": name})
    assert ("gpt2", state.base_spec("gpt2")) == (preset, spec)
    assert 1 == len(warnings) and warnings[0].startswith("preset:")
    assert len(warnings[0]) < 200


def test_missing_preset_is_gpt2():
    """A link without a preset (a bare address) is gpt2, without warnings."""
    assert ("gpt2", state.base_spec("gpt2"), []) == state.spec_from_query({})


def test_too_many_keys_are_cut():
    """A link with hundreds of keys is read only up to the limit and says so."""
    query = {"preset": "gpt2", **{f"k{i}": "1" for i in range(500)}}
    _, _, warnings = state.spec_from_query(query)
    assert warnings[0].startswith("link:")
    assert state.MAX_KEYS + 1 >= len(warnings)


def test_list_values_take_the_last():
    """Repeated keys (given as lists) use the last value, as st.query_params does."""
    _, spec, warnings = state.spec_from_query({"preset": "gpt2", "num_hidden_layers": ["3", "5"]})
    assert (5, []) == (spec.num_hidden_layers, warnings)


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        ("gpt2", {}, {"preset": "gpt2"}),
        ("gpt2", {"num_hidden_layers": 24}, {"preset": "gpt2", "num_hidden_layers": "24"}),
        ("gpt2", {"tie_word_embeddings": False}, {"preset": "gpt2", "tie_word_embeddings": "false"}),
        ("gpt2", {"head_dim": 64}, {"preset": "gpt2", "head_dim": "64"}),
        ("gpt2", {"mlp_only_layers": (0, 2)}, {"preset": "gpt2", "mlp_only_layers": "0,2"}),
        (
            "gpt2",
            {"vocab_size": 1000, "hidden_size": 256, "num_attention_heads": 4},
            {"preset": "gpt2", "vocab_size": "1000", "hidden_size": "256", "num_attention_heads": "4"},
        ),
    ],
)
def test_query_from_spec_writes_only_differences(name, changes, expected):
    """The link holds the preset and only the changed fields, in Hugging Face names."""
    spec = dataclasses.replace(state.base_spec(name), **changes)
    assert expected == state.query_from_spec(name, spec)


def test_auto_clears_an_explicit_size():
    """A preset whose head_dim is not width/heads keeps it explicit; head_dim=auto derives it again."""
    explicit = [n for n in presets.names() if state.base_spec(n).head_dim is not None and not presets.load(n).is_mla]
    if not explicit:
        pytest.skip("no preset with an explicit head_dim")
    name = explicit[0]
    _, spec, warnings = state.spec_from_query({"preset": name, "head_dim": "auto"})
    assert (None, []) == (spec.head_dim, warnings)
    assert "auto" == state.query_from_spec(name, spec)["head_dim"]


# ------------------------------------------------------------------------------------- round trip
_SIZES = {
    "vocab_size": st.integers(1, 300_000),
    "hidden_size": st.sampled_from([64, 128, 256, 768, 1024, 4096]),
    "num_hidden_layers": st.integers(0, 200),
    "num_attention_heads": st.sampled_from([1, 2, 4, 8, 16, 32]),
    "intermediate_size": st.integers(0, 50_000),
    "max_position_embeddings": st.integers(0, 1_000_000),
    "recurrent_units": st.integers(0, 16),
    "tie_word_embeddings": st.booleans(),
    "attention_bias": st.booleans(),
    "mlp_bias": st.booleans(),
    "mlp_gated": st.booleans(),
    "norm_bias": st.booleans(),
    "norm_type": st.sampled_from(["layernorm", "rmsnorm"]),
    "position_embedding": st.sampled_from(["learned", "rotary", "none"]),
    "head_dim": st.one_of(st.none(), st.integers(1, 256)),
    "num_key_value_heads": st.one_of(st.none(), st.just(1)),
    "num_experts": st.sampled_from([0, 4, 8]),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(presets.names()),
    changes=st.dictionaries(st.sampled_from(sorted(_SIZES)), st.none(), max_size=8).flatmap(
        lambda d: st.fixed_dictionaries({k: _SIZES[k] for k in d})
    ),
)
def test_round_trip(name, changes):
    """Any valid edit of any preset survives spec -> query -> spec exactly (same spec, same total)."""
    base = state.base_spec(name)
    spec = dataclasses.replace(base, **changes)
    try:
        validate(spec)
    except ValueError:
        return  # an invalid combination is never written to a link
    query = state.query_from_spec(name, spec)
    assert all(isinstance(v, str) and len(v) <= state.MAX_VALUE_CHARS for v in query.values())
    preset, back, warnings = state.spec_from_query(query)
    assert (name, spec, []) == (preset, back, warnings)
    assert summarize(spec).total == summarize(back).total


@settings(max_examples=200, deadline=None)
@given(query=st.dictionaries(st.sampled_from([*state.LINK_FIELDS, "preset", "junk"]), st.text(max_size=60)))
def test_arbitrary_text_never_raises(query):
    """Any text in any field gives a valid model and warnings, never an exception."""
    _, spec, warnings = state.spec_from_query(query)
    validate(spec)
    assert all(isinstance(w, str) and len(w) < 600 for w in warnings)
