"""Invariants of the parameter tree that hold for every valid spec (hypothesis)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramscope import Spec, count, summarize


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 4))
    head_dim = draw(st.integers(1, 16))
    experts = draw(st.sampled_from([0, 0, 2, 8]))
    return Spec(
        vocab_size=draw(st.integers(0, 5000)),
        hidden_size=heads * head_dim,
        num_hidden_layers=draw(st.integers(0, 12)),
        num_attention_heads=heads,
        num_key_value_heads=kv,
        intermediate_size=draw(st.integers(0, 512)),
        mlp_gated=draw(st.booleans()),
        attention_bias=draw(st.booleans()),
        mlp_bias=draw(st.booleans()),
        norm_type=draw(st.sampled_from(["layernorm", "rmsnorm"])),
        norms_per_layer=draw(st.integers(0, 4)),
        position_embedding=draw(st.sampled_from(["learned", "rotary", "none"])),
        max_position_embeddings=draw(st.integers(1, 4096)),
        tie_word_embeddings=draw(st.booleans()),
        num_experts=experts,
        num_experts_per_tok=min(2, experts) or 2,
        first_k_dense_replace=draw(st.integers(0, 2)),
        recurrent_units=draw(st.integers(0, 3)),
        num_decoder_layers=draw(st.sampled_from([0, 0, 0, 2])),
    )


@settings(max_examples=300, deadline=None)
@given(specs())
def test_parents_are_sums_of_children(spec: Spec) -> None:
    """Every parent's count equals the sum of its children's, down to the leaves."""
    for node in count(spec).walk():
        if node.children:
            assert node.count == sum(c.count for c in node.children)


@settings(max_examples=300, deadline=None)
@given(specs())
def test_headline_numbers_add_up(spec: Spec) -> None:
    """embedding + non-embedding = total, and active-per-token never exceeds the total."""
    s = summarize(spec)
    assert s.total == s.embedding + s.non_embedding
    assert 0 <= s.active <= s.total


@settings(max_examples=200, deadline=None)
@given(specs(), st.integers(1, 5))
def test_monotone_in_layers(spec: Spec, extra: int) -> None:
    """Adding layers never removes parameters, and each added layer adds the same amount."""
    base = count(spec).count
    one = count(dataclasses.replace(spec, num_hidden_layers=spec.num_hidden_layers + 1)).count
    more = count(dataclasses.replace(spec, num_hidden_layers=spec.num_hidden_layers + extra)).count
    assert base <= one <= more
    if spec.num_hidden_layers >= spec.first_k_dense_replace:
        assert more - base == extra * (one - base)


@settings(max_examples=200, deadline=None)
@given(specs())
def test_repeat_is_exact(spec: Spec) -> None:
    """A repeated node's count is exactly repeat copies of one copy."""
    for node in count(spec).walk():
        assert node.count == node.per_copy * node.repeat


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("num_attention_heads", 5, "does not divide hidden_size"),
        ("num_key_value_heads", 5, "does not divide num_attention_heads"),
        ("hidden_size", -1, "must not be negative"),
        ("num_hidden_layers", -3, "must not be negative"),
        ("vocab_size", 10**12, "larger than the supported maximum"),
        ("norm_type", "batchnorm", "is not one of"),
        ("num_hidden_layers", 2.5, "expected a whole number"),
        ("tie_word_embeddings", "yes", "expected true or false"),
    ],
)
def test_bad_specs_say_what_to_fix(field: str, value: object, message: str) -> None:
    """An impossible spec raises ValueError naming the field and the fix."""
    spec = dataclasses.replace(Spec(hidden_size=768, num_attention_heads=12, num_key_value_heads=12), **{field: value})
    with pytest.raises(ValueError, match=field) as err:
        count(spec)
    assert message in str(err.value)
