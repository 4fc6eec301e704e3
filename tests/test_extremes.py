"""Extreme but valid models compute exactly and fast (the engine's work does not grow with depth)."""

from __future__ import annotations

import pytest
from hf_oracle import hf_count

from paramscope import count, read

BASE = dict(
    model_type="llama",
    hidden_size=256,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    intermediate_size=512,
    vocab_size=1000,
)

EXTREMES = {
    "1 layer": dict(BASE, num_hidden_layers=1),
    "10,000 layers": dict(BASE, num_hidden_layers=10_000),
    "10-million vocab": dict(BASE, vocab_size=10_000_000),
    "width 65,536": dict(
        BASE, hidden_size=65_536, num_attention_heads=512, num_key_value_heads=8, intermediate_size=4 * 65_536
    ),
    "1,024 experts": dict(BASE, model_type="mixtral", num_local_experts=1024, num_experts_per_tok=8),
}


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_extreme_models_are_exact(name: str) -> None:
    """Each extreme model counts exactly what transformers builds on the meta device."""
    config = EXTREMES[name]
    assert hf_count(config) == count(read(config).spec).count


def test_depth_does_not_grow_the_tree() -> None:
    """10,000 layers produce the same tree shape as 1 layer: layers are counted once and multiplied."""
    one = [n.path for n in count(read(EXTREMES["1 layer"]).spec).walk()]
    many = [n.path for n in count(read(EXTREMES["10,000 layers"]).spec).walk()]
    assert one == many
