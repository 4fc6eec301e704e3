"""What the config reader takes from a config beyond sizes: sliding-window layers, against transformers' own config."""

from __future__ import annotations

import warnings

import pytest
from transformers import Gemma2Config

from paramscope import read


@pytest.mark.parametrize("layers", [1, 2, 3, 7, 26, 42])
def test_gemma2_sliding_layers_match_transformers(layers: int) -> None:
    """Without layer_types, the layers that slide are those transformers' Gemma2Config marks as sliding."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Gemma2Config(num_hidden_layers=layers).layer_types.count("sliding_attention")
    assert expected == read({"model_type": "gemma2", "num_hidden_layers": layers}).spec.sliding_window_layers


@pytest.mark.parametrize(
    ("types", "window", "sliding"),
    [
        (["full_attention"] * 4, None, 0),
        (["sliding_attention", "full_attention"] * 2, 4096, 2),
        (["sliding_attention"] * 4, 4096, 4),
    ],
)
def test_gemma2_layer_types_are_honoured(types: list[str], window: int | None, sliding: int) -> None:
    """An explicit layer_types list decides which layers slide; with none sliding there is no window at all."""
    spec = read({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 4096, "layer_types": types}).spec
    assert (window, sliding) == (spec.sliding_window, spec.sliding_window_layers)
