"""Share-link state: a preset's config plus edited keys <-> query parameters (paramscope.io.link).

Expected models are the preset's config.json with the keys changed by hand in the test, read by the reader:
a link must mean exactly what transformers builds from the edited file (tests/test_edits.py checks that the
edited files count as transformers builds them).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramscope import read
from paramscope.engine.spec import FIELDS, validate
from paramscope.io import link, presets


def edited(name: str, **keys: object) -> object:
    """The spec of preset ``name``'s config.json with ``keys`` set (``None``: deleted), read from the file."""
    config = dict(presets.get(name).config)
    for key, value in keys.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return read(config).spec


@pytest.mark.parametrize("name", presets.names())
def test_bare_preset_link(name):
    """?preset=NAME alone is that preset (its published total), with no warning, and writes back to itself."""
    model, warnings = link.model_from_query({"preset": name})
    assert (presets.get(name).expected_total, []) == (model.summary.total, warnings)
    assert {"preset": name} == link.query_from_model(model)


@pytest.mark.parametrize(
    ("preset", "query", "keys"),
    [
        ("gpt2", {"num_hidden_layers": "24"}, {"n_layer": 24}),
        ("gpt2", {"n_layer": "24"}, {"n_layer": 24}),
        ("gpt2", {"hidden_size": "1536"}, {"n_embd": 1536}),
        ("gpt2", {"hidden_size": "1024", "num_attention_heads": "16"}, {"n_embd": 1024, "n_head": 16}),
        ("gpt2", {"num_attention_heads": "16", "hidden_size": "1024"}, {"n_embd": 1024, "n_head": 16}),
        ("gpt2", {"intermediate_size": "1000"}, {"n_inner": 1000}),
        ("gpt2", {"tie_word_embeddings": "FALSE"}, {"tie_word_embeddings": False}),
        ("gpt2", {"vocab_size": " 50304 "}, {"vocab_size": 50304}),
        ("gpt2", {"num_hidden_layers": "12"}, {}),
        ("gpt2", {"run_batch": "8", "embed": "true", "x_cmp": "gpt2", "tab": "Memory"}, {}),
        ("llama-3.2-1b", {"hidden_size": "4096"}, {"hidden_size": 4096}),
        ("llama-3.2-1b", {"head_dim": "auto"}, {"head_dim": None}),
        ("llama-3.2-1b", {"num_key_value_heads": "auto"}, {"num_key_value_heads": None}),
        ("t5-base", {"hidden_size": "1024"}, {"d_model": 1024}),
        ("t5-small", {"num_hidden_layers": "3"}, {"num_layers": 3}),
        ("mixtral-8x7b", {"intermediate_size": "7168"}, {"intermediate_size": 7168}),
        ("mixtral-8x7b", {"num_experts": "4"}, {"num_local_experts": 4}),
        ("bart-base", {"tie_word_embeddings": "false"}, {"tie_word_embeddings": False}),
        ("bart-base", {"num_attention_heads": "16"}, {"encoder_attention_heads": 16, "decoder_attention_heads": 16}),
        ("qwen1.5-moe-a2.7b", {"decoder_sparse_step": "2"}, {"decoder_sparse_step": 2}),
        ("starcoder2-3b", {"attention_bias": "false"}, {"use_bias": False}),
    ],
)
def test_good_values_edit_the_config(preset, query, keys):
    """Well-formed values edit the config's own keys: the model is the edited config.json, with no warning."""
    model, warnings = link.model_from_query({"preset": preset, **query})
    assert (edited(preset, **keys), []) == (model.spec, warnings)


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
        ({"num_attention_heads": "7"}, "num_attention_heads"),
        ({"num_attention_heads": "0"}, "num_attention_heads"),
        ({"hidden_size": "1000"}, "hidden_size"),
        ({"num_key_value_heads": "5"}, "num_key_value_heads"),
        ({"tie_word_embeddings": "maybe"}, "tie_word_embeddings"),
        ({"norm_type": "rmsnorm"}, "norm_type"),
        ({"position_embedding": "__import__('os')"}, "position_embedding"),
        ({"hidden_act": "gelu; rm -rf"}, "hidden_act"),
        ({"mlp_only_layers": "1,x"}, "mlp_only_layers"),
        ({"model_type": "llama"}, "model_type"),
        ({"not_a_field": "1"}, "not_a_field"),
    ],
)
def test_bad_value_warns_and_keeps_the_preset(query, field):
    """A bad value, or an edit of what GPT-2's classes fix, never raises: one warning names the field, and the
    preset stays."""
    model, warnings = link.model_from_query({"preset": "gpt2", **query})
    assert 1 == len(warnings), warnings
    assert warnings[0].startswith(field), warnings
    assert edited("gpt2") == model.spec


def test_fixed_field_says_which_rule_fixes_it():
    """BLOOM's MLP width has no key: the warning quotes the class's rule."""
    model, warnings = link.model_from_query({"preset": "bloom-560m", "intermediate_size": "8192"})
    assert edited("bloom-560m") == model.spec
    assert [
        "intermediate_size: not a key of BloomConfig (fixed by the Bloom classes: 4*hidden_size = 4,096); "
        "kept the preset's value"
    ] == warnings


def test_bad_value_leaves_the_good_ones():
    """Only the bad field is dropped; the others in the same link still apply."""
    model, warnings = link.model_from_query({"preset": "gpt2", "num_hidden_layers": "24", "vocab_size": "x"})
    assert edited("gpt2", n_layer=24) == model.spec
    assert ["vocab_size"] == [w.split(":")[0] for w in warnings]


@pytest.mark.parametrize("name", ["nope", "", "GPT2", "gpt2 ", "../gpt2", "x" * 500])
def test_unknown_preset_falls_back_to_gpt2(name):
    """An unknown preset shows gpt2 with a warning naming the preset (the name is cut short)."""
    model, warnings = link.model_from_query({"preset": name})
    assert ("gpt2", edited("gpt2")) == (model.preset, model.spec)
    assert 1 == len(warnings) and warnings[0].startswith("preset:")
    assert len(warnings[0]) < 200


def test_missing_preset_is_gpt2():
    """A link without a preset (a bare address) is gpt2, without warnings."""
    model, warnings = link.model_from_query({})
    assert ("gpt2", edited("gpt2"), []) == (model.preset, model.spec, warnings)


def test_too_many_keys_are_cut():
    """A link with hundreds of keys is read only up to the limit and says so."""
    query = {"preset": "gpt2", **{f"k{i}": "1" for i in range(500)}}
    _, warnings = link.model_from_query(query)
    assert warnings[0].startswith("link:")
    assert link.MAX_KEYS + 1 >= len(warnings)


def test_list_values_take_the_last():
    """Repeated keys (given as lists) use the last value, as st.query_params does."""
    model, warnings = link.model_from_query({"preset": "gpt2", "num_hidden_layers": ["3", "5"]})
    assert (5, []) == (model.spec.num_hidden_layers, warnings)


@pytest.mark.parametrize(
    ("name", "edits", "expected"),
    [
        ("gpt2", {}, {"preset": "gpt2"}),
        ("gpt2", {"num_hidden_layers": 24}, {"preset": "gpt2", "num_hidden_layers": "24"}),
        ("gpt2", {"n_layer": 24}, {"preset": "gpt2", "num_hidden_layers": "24"}),
        ("gpt2", {"tie_word_embeddings": False}, {"preset": "gpt2", "tie_word_embeddings": "false"}),
        ("llama-3.2-1b", {"head_dim": None}, {"preset": "llama-3.2-1b", "head_dim": "auto"}),
        ("qwen1.5-moe-a2.7b", {"decoder_sparse_step": 2}, {"preset": "qwen1.5-moe-a2.7b", "decoder_sparse_step": "2"}),
        (
            "gpt2",
            {"vocab_size": 1000, "hidden_size": 256, "num_attention_heads": 4},
            {"preset": "gpt2", "vocab_size": "1000", "hidden_size": "256", "num_attention_heads": "4"},
        ),
    ],
)
def test_query_writes_only_the_edited_keys(name, edits, expected):
    """The link holds the preset and only the edited keys, by field name where a key states a field."""
    assert expected == link.query_from_model(presets.model(name).edit(**edits))


# ------------------------------------------------------------------------------------- round trip
_SIZES = {
    "vocab_size": st.integers(1, 300_000),
    "hidden_size": st.sampled_from([64, 128, 256, 768, 1024, 4096]),
    "num_hidden_layers": st.integers(0, 200),
    "num_attention_heads": st.sampled_from([1, 2, 4, 8, 16, 32]),
    "intermediate_size": st.one_of(st.none(), st.integers(0, 50_000)),
    "max_position_embeddings": st.integers(0, 1_000_000),
    "tie_word_embeddings": st.booleans(),
    "attention_bias": st.booleans(),
    "head_dim": st.one_of(st.none(), st.integers(1, 256)),
    "num_key_value_heads": st.one_of(st.none(), st.just(1)),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(presets.row_names()),  # Spec fields; a whole model's nested edits: test_wholes.py
    changes=st.dictionaries(st.sampled_from(sorted(_SIZES)), st.none(), max_size=6).flatmap(
        lambda d: st.fixed_dictionaries({k: _SIZES[k] for k in d})
    ),
)
def test_round_trip(name, changes):
    """Any valid edit of any preset survives model -> query -> model exactly (same config, same total)."""
    model = presets.model(name)
    try:
        model = model.edit(**changes)
    except ValueError:
        return  # a field the family fixes, or an invalid combination: never written to a link
    query = link.query_from_model(model)
    assert all(isinstance(v, str) and len(v) <= link.MAX_VALUE_CHARS for v in query.values())
    back, warnings = link.model_from_query(query)
    assert (model.config, []) == (back.config, warnings)


@settings(max_examples=200, deadline=None)
@given(query=st.dictionaries(st.sampled_from([*FIELDS, "n_embd", "preset", "junk"]), st.text(max_size=60)))
def test_arbitrary_text_never_raises(query):
    """Any text in any field gives a valid model and warnings, never an exception."""
    model, warnings = link.model_from_query(query)
    validate(model.spec)
    assert all(isinstance(w, str) and len(w) < 600 for w in warnings)


def test_a_link_edits_a_field_by_the_file_s_own_key():
    """?n_inner=2048 on GPT-2 (the config.json's own name for the MLP width, stated null there) edits the width,
    as n_layer edits the depth; it was read as a free-text key and refused ("expected a short lowercase name")."""
    from paramscope.io import link

    model, warnings = link.model_from_query({"preset": "gpt2", "n_inner": "2048"})
    assert ([], 2048) == (warnings, model.spec.intermediate_size)


@pytest.mark.parametrize(("preset", "key"), [("llama-3.2-1b", "hidden_act"), ("gpt2", "activation_function")])
def test_a_link_s_activation_is_one_transformers_builds(preset: str, key: str) -> None:
    """?hidden_act=bogus (or GPT-2's activation_function=bogus) is refused naming the key, the preset's value kept:
    transformers' ACT2FN has no such activation, so no model would build (any short word was taken)."""
    from paramscope.io import link

    model, warnings = link.model_from_query({"preset": preset, key: "bogus"})
    assert (1, True, {}) == (len(warnings), warnings[0].startswith(f"{key}: 'bogus' is no activation"), model.edits)


def test_the_activations_are_transformers_own() -> None:
    """The link's list of activations is transformers' ACT2CLS, so no activation transformers builds is refused."""
    from transformers.activations import ACT2CLS

    from paramscope.io.link import ACTIVATIONS

    assert set(ACT2CLS) == ACTIVATIONS
