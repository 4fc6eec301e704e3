"""Sweeps of one dimension: exact totals at every point, Kaplan's 12·L·d² beside them, family points."""

from __future__ import annotations

import dataclasses

import pytest

from paramscope.analysis.sweep import default_values, family_points, kaplan, point, sweep, varied, where_it_goes
from paramscope.engine.params import count, summarize
from paramscope.io import presets

GPT2_SHAPES = ["gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "gpt3-175b"]


def test_kaplan_error_shrinks_with_width_for_gpt2_shapes() -> None:
    """|12·L·d² − non-embedding| / non-embedding falls from GPT-2 small to GPT-3 as the width grows
    (biases and norms are O(L·d), the matrices O(L·d²)); the exact counts come from count()."""
    errors = []
    for name in GPT2_SHAPES:
        spec = presets.load(name)
        s = summarize(spec)
        cfg = presets.get(name).config
        approx = 12 * cfg["n_layer"] * cfg["n_embd"] ** 2
        assert approx == point(spec, with_costs=False)["kaplan_12LD2"]
        errors.append(abs(approx - s.non_embedding) / s.non_embedding)
    assert errors == sorted(errors, reverse=True)
    assert errors[0] > 10 * errors[-1]


@pytest.mark.parametrize(("name", "low", "high"), [("gpt2", 0.14, 0.15), ("gpt3-175b", 0.008, 0.009)])
def test_kaplan_error_size(name: str, low: float, high: float) -> None:
    """Kaplan's formula is 0.14 % under GPT-2 small's non-embedding count and 0.009 % under GPT-3's."""
    row = point(presets.load(name), with_costs=False)
    assert low < -row["kaplan_error_pct"] < high


@pytest.mark.parametrize(
    ("name", "dimension", "field"),
    [
        ("gpt2", "layers", "num_hidden_layers"),
        ("gpt2", "vocab", "vocab_size"),
        ("llama-3-8b", "layers", "num_hidden_layers"),
        ("llama-3-8b", "vocab", "vocab_size"),
        ("mixtral-8x7b", "experts", "num_experts"),
        ("bert-base-uncased", "vocab", "vocab_size"),
    ],
)
def test_sweep_totals_equal_count_of_the_replaced_spec(name: str, dimension: str, field: str) -> None:
    """At every point the total is count() of the spec with that one field replaced."""
    spec = presets.load(name)
    values = default_values(spec, dimension)
    rows = sweep(spec, dimension, values, with_costs=False)
    assert values == [r["value"] for r in rows]
    for r in rows:
        changed = dataclasses.replace(spec, **{field: r["value"]})
        if field == "num_experts":
            changed = dataclasses.replace(changed, num_experts_per_tok=min(spec.num_experts_per_tok, r["value"]))
        assert count(changed).count == r["total"]
        assert r["total"] == r["embedding"] + r["non_embedding"]
        assert r["embedding_share"] == pytest.approx(r["embedding"] / r["total"])


@pytest.mark.parametrize(("bigger", "width"), [("gpt2-medium", 1024), ("gpt2-large", 1280), ("gpt2-xl", 1600)])
def test_width_sweep_scales_like_the_gpt2_family(bigger: str, width: int) -> None:
    """GPT-2 small widened to a bigger size's width (heads at 64, MLP at 4x) and given its depth is that
    model exactly: the total equals the bigger preset's reference total."""
    cfg = presets.get(bigger).config
    widened = varied(presets.load("gpt2"), "width", width)
    deep = dataclasses.replace(widened, num_hidden_layers=cfg["n_layer"])
    assert presets.get(bigger).expected_total == count(deep).count
    assert cfg["n_head"] == widened.num_attention_heads


def test_width_keeps_the_query_group() -> None:
    """Halving Llama 3 8B's width keeps 4 query heads per kv head and the MLP/width ratio."""
    spec = presets.load("llama-3-8b")
    half = varied(spec, "width", 2048)
    assert (16, 4, 128, 7168) == (
        half.num_attention_heads,
        half.num_key_value_heads,
        half.head_dim,
        half.intermediate_size,
    )


def test_layers_follow_encoder_decoder_and_sliding_windows() -> None:
    """T5 keeps as many decoder as encoder layers; Gemma 2 keeps half its layers sliding."""
    t5 = varied(presets.load("t5-small"), "layers", 12)
    assert (12, 12) == (t5.num_hidden_layers, t5.num_decoder_layers)
    gemma = varied(presets.load("gemma-2-9b"), "layers", 10)
    assert 5 == gemma.sliding_window_layers


def test_experts_grow_linearly() -> None:
    """Each extra expert adds the same number of parameters (one expert MLP per MoE layer)."""
    rows = sweep(presets.load("mixtral-8x7b"), "experts", [2, 4, 6, 8], with_costs=False)
    steps = {b["total"] - a["total"] for a, b in zip(rows, rows[1:], strict=False)}
    assert {2 * 32 * (3 * 4096 * 14336 + 4096)} == steps


def test_family_points_are_the_gpt2_sizes() -> None:
    """The GPT-2 family marks its four sizes at 12, 24, 36 and 48 layers with their reference totals."""
    points = family_points("layers", "GPT-2")
    assert ["gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"] == [p["name"] for p in points]
    assert [12, 24, 36, 48] == [p["value"] for p in points]
    assert [presets.get(p["name"]).expected_total for p in points] == [p["total"] for p in points]


def test_family_points_by_model_type() -> None:
    """A model type gathers presets across families: GPT-3 is a gpt2 config too."""
    assert "gpt3-175b" in [p["name"] for p in family_points("width", "gpt2")]


@pytest.mark.parametrize(("values", "message"), [([], "none of the values"), ([-1, -5], "none of the values")])
def test_unusable_values(values: list[int], message: str) -> None:
    """A sweep with no valid point is a ValueError."""
    with pytest.raises(ValueError, match=message):
        sweep(presets.load("gpt2"), "layers", values, with_costs=False)


def test_invalid_points_are_skipped_and_limits_hold() -> None:
    """Invalid values are left out; an unknown dimension or too many points is a ValueError."""
    rows = sweep(presets.load("gpt2"), "layers", [-1, 6, 12], with_costs=False)
    assert [6, 12] == [r["value"] for r in rows]
    with pytest.raises(ValueError, match="cannot be swept"):
        sweep(presets.load("gpt2"), "hidden_act", [1])
    with pytest.raises(ValueError, match="at most"):
        sweep(presets.load("gpt2"), "layers", range(1, 1000))


def test_kaplan_counts_both_stacks() -> None:
    """For an encoder-decoder the approximation uses every layer of both stacks."""
    assert 12 * (6 + 6) * 512**2 == kaplan(presets.load("t5-small"))


def test_compares_memory_is_the_memory_tabs_headline() -> None:
    """Compare's memory columns are what the Memory tab's headline says for the same run (the peak and the runtime,
    what must fit; Qwen3-30B-A3B read 68.53 GB in Compare against the tab's 62.37: the allocator's margin)."""
    from paramscope.analysis.sweep import cost_columns
    from paramscope.engine.memory import needed_bytes
    from paramscope.engine.run import RunSettings

    spec, run = presets.load("qwen3-30b-a3b"), RunSettings()
    train = dataclasses.replace(run, mode="training")
    columns = cost_columns(spec, run)
    assert (needed_bytes(spec, run) / 1e9, needed_bytes(spec, train) / 1e9) == (
        columns["inference_gb"],
        columns["training_gb"],
    )


def test_memory_columns_grow_with_depth() -> None:
    """Inference and training memory grow with the number of layers."""
    rows = sweep(presets.load("gpt2"), "layers", [6, 12, 24])
    for key in ("inference_gb", "training_gb"):
        values = [r[key] for r in rows]
        assert values == sorted(values) and values[0] < values[-1]


def test_where_palm_parameters_go() -> None:
    """PaLM 540B: MLP first (89 %), then attention (10 %), embedding (0.9 %), norms last."""
    rows = where_it_goes(presets.load("palm-540b"))
    assert ["mlp", "attention", "embedding", "norms"] == [r["component"] for r in rows]
    assert 0.89 < rows[0]["share"] < 0.90
    assert presets.get("palm-540b").expected_total == sum(r["params"] for r in rows)


def test_training_compute_columns_grow_with_depth() -> None:
    """Training FLOPs per token grow with depth and exceed 6 per parameter."""
    rows = sweep(presets.load("gpt2"), "layers", [6, 12, 24])
    per_token = [r["training_flops_per_token"] for r in rows]
    assert per_token == sorted(per_token) and per_token[0] < per_token[-1]
    assert all(r["training_flops_per_token"] > 6 * r["total"] - 6 * r["embedding"] for r in rows)


@pytest.mark.parametrize("name", presets.names_with_costs())
def test_every_preset_sweeps_through_its_own_value(name: str) -> None:
    """For every preset and every dimension it has, the sweep passes through the preset itself: the row at
    its own value carries the preset's reference total."""
    spec = presets.load(name)
    dims = ["layers", "width", "vocab"] + (["experts"] if spec.is_moe else [])
    fields = {"layers": "num_hidden_layers", "width": "hidden_size", "vocab": "vocab_size", "experts": "num_experts"}
    for dim in dims:
        own = getattr(spec, fields[dim])
        rows = sweep(spec, dim, default_values(spec, dim, points=25, span=64.0), with_costs=False)
        assert presets.get(name).expected_total == next(r["total"] for r in rows if r["value"] == own), dim
