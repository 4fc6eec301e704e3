"""Comparing two or three models: totals, rows per component, kinds, differing fields."""

from __future__ import annotations

import pytest

from paramscope.analysis.compare import compare, field_differences
from paramscope.engine.components import KINDS, kind_totals
from paramscope.engine.params import count
from paramscope.io import presets

TRIOS = [
    ("gpt2", "gpt2-medium"),
    ("gpt2", "llama-3.2-1b", "t5-small"),
    ("mixtral-8x7b", "mistral-7b"),
    ("bert-base-uncased", "albert-base-v2", "distilbert-base-uncased"),
    ("deepseek-v2-lite", "qwen1.5-moe-a2.7b", "hybrid-rnn-transformer"),
]


def _compare(names: tuple[str, ...]):
    return compare([(n, presets.load(n)) for n in names])


@pytest.mark.parametrize("names", TRIOS, ids="-vs-".join)
def test_totals_are_the_reference_totals(names: tuple[str, ...]) -> None:
    """Each model's total is the total its preset records from the reference implementation."""
    assert tuple(presets.get(n).expected_total for n in names) == _compare(names).totals


@pytest.mark.parametrize("names", TRIOS, ids="-vs-".join)
def test_top_level_rows_add_up_to_each_total(names: tuple[str, ...]) -> None:
    """For every model, its top-level rows sum to its total, and its component kinds do too."""
    c = _compare(names)
    for i, name in enumerate(names):
        expected = presets.get(name).expected_total
        assert expected == sum(r.counts[i] for r in c.rows if r.depth == 1)
        assert expected == sum(counts[i] for counts in c.kinds.values())


def test_rows_hold_zero_where_a_model_lacks_a_part() -> None:
    """GPT-2 has learned positions and Llama has none: the position row reads (786,432, 0)."""
    c = _compare(("gpt2", "llama-3.2-1b"))
    rows = {r.path: r.counts for r in c.rows}
    assert (1024 * 768, 0) == rows["embedding/position"]
    assert (0, 0) not in rows.values()


def test_field_differences_of_two_gpt2_sizes() -> None:
    """GPT-2 small and medium differ in exactly the width-, depth- and head-related fields."""
    c = _compare(("gpt2", "gpt2-medium"))
    expected = {
        "hidden_size": (768, 1024),
        "num_hidden_layers": (12, 24),
        "num_attention_heads": (12, 16),
        "num_key_value_heads": (12, 16),
        "intermediate_size": (3072, 4096),
    }
    assert expected == {d.field: d.values for d in c.fields}


def test_identical_models_have_no_differences_and_distinct_labels() -> None:
    """The same model twice: no differing field, and the repeated label is made unique."""
    spec = presets.load("gpt2")
    c = compare([("gpt2", spec), ("gpt2", spec)])
    assert () == field_differences([spec, spec])
    assert ("gpt2", "gpt2 (2)") == c.labels


@pytest.mark.parametrize("n", [0, 1, 4])
def test_two_or_three_models_only(n: int) -> None:
    """Fewer than two or more than three models is a ValueError naming the allowed range."""
    with pytest.raises(ValueError, match="2 to 3"):
        compare([(f"m{i}", presets.load("gpt2")) for i in range(n)])


def test_records_for_tables() -> None:
    """Headline, component and difference records carry one column per model label."""
    c = _compare(("gpt2", "gpt2-medium"))
    assert ["gpt2", "gpt2-medium"] == [r["model"] for r in c.headline()]
    assert {"component", "gpt2", "gpt2-medium"} == set(c.table()[0])
    assert {"field": "hidden_size", "gpt2": "768", "gpt2-medium": "1,024"} == c.differences()[0]


def test_cost_columns_for_every_model() -> None:
    """Every model gets inference and training memory columns."""
    c = _compare(("gpt2", "gpt2-medium"))
    small, medium = c.headline()
    assert 0 < small["inference_gb"] < medium["inference_gb"]
    assert small["inference_gb"] < small["training_gb"]


def test_palm_parameters_are_mostly_mlp() -> None:
    """PaLM 540B: the SwiGLU MLP (118 layers x 3 matrices of 18432 x 73728) is 89% of all parameters."""
    kinds = kind_totals(count(presets.load("palm-540b")))
    assert 118 * 3 * 18432 * 73728 == kinds["mlp"]
    assert 256000 * 18432 == kinds["embedding"]
    assert list(KINDS) == list(kinds)


def test_model_colours_are_not_component_colours() -> None:
    """The compare tab colours its bars by model and its stacked totals by component kind: no colour means both."""
    from paramscope.app.charts_explore import MODEL_COLOURS

    assert set() == set(MODEL_COLOURS) & {kind.colour for kind in KINDS.values()}
    assert len(set(MODEL_COLOURS)) == len(MODEL_COLOURS) >= 3  # compare takes up to three models


def test_edits_in_words_have_thousands_separators() -> None:
    """The "Changed from" line names the keys of the preset's config.json (GPT-2's file says n_embd, not hidden_size),
    with the page's name beside where it differs, and writes sizes as the page does (768 → 1,152) and other values
    as the link does."""
    from paramscope.io import link

    model = presets.model("gpt2").edit(hidden_size=1152, tie_word_embeddings=False)
    assert "n_embd" in presets.get("gpt2").config and "hidden_size" not in presets.get("gpt2").config
    want = [("n_embd (hidden_size)", "768", "1,152"), ("tie_word_embeddings", "(not in the file)", "false")]
    assert want == link.changed(model)
