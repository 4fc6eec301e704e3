"""Edits mean what transformers means: an edited preset, through a link or the API, counts exactly what
transformers builds (on the meta device) from the preset's config.json with that key changed, and the edited
config says what was asked in transformers' own reading (``LlamaConfig(...).hidden_size``)."""

from __future__ import annotations

import pytest
from hf_oracle import hf_build
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramscope import summarize
from paramscope.engine.spec import SpecError
from paramscope.io import link, presets

HF_PRESETS = [n for n in presets.row_names() if presets.model(n).model_type != "paramscope"]

#: One edit of each kind a user makes; each applies where the family has a key for it.
EDITS = {
    "width": lambda s: {"hidden_size": 2 * s.hidden_size},
    "width+heads": lambda s: {"hidden_size": 1024, "num_attention_heads": 16},
    "heads": lambda s: {"num_attention_heads": 2 * s.num_attention_heads},
    "kv heads": lambda s: {"num_key_value_heads": 1},
    "head_dim": lambda s: {"head_dim": 32},
    "layers": lambda s: {"num_hidden_layers": 3},
    "decoder layers": lambda s: {"num_decoder_layers": 2},
    "vocab": lambda s: {"vocab_size": 65_536},  # below some pad_token_ids: refused by both (a padding row is needed)
    "ffn": lambda s: {"intermediate_size": 1000},
    "untie": lambda s: {"tie_word_embeddings": not s.tie_word_embeddings},
    "attention bias": lambda s: {"attention_bias": not s.attention_bias},
    "mlp bias": lambda s: {"mlp_bias": not s.mlp_bias},
    "experts": lambda s: {"num_experts": 4, "num_experts_per_tok": 2},
    "ffn auto": lambda s: {"intermediate_size": None},
    "head_dim auto": lambda s: {"head_dim": None},
    "kv heads auto": lambda s: {"num_key_value_heads": None},
}
#: Attributes a transformers 5 config class rewrites whatever the file says: T5Config always ties (the released
#: untied checkpoints are untied by the oracle, see hf_oracle.py); num_decoder_layers is not a config attribute
#: of every family.
FORCED = {
    ("t5", "tie_word_embeddings"),
    ("t5", "num_decoder_layers"),
    ("mt5", "tie_word_embeddings"),
    ("mt5", "num_decoder_layers"),
    ("bart", "num_decoder_layers"),
}


def check_edit(name: str, edit: dict) -> str:
    """Apply ``edit`` to preset ``name`` by the API and by a link; compare both with transformers."""
    base = presets.model(name)
    family = base.family
    if any(family.key_for(k, base.config) is None for k in edit):
        return "fixed"  # the class fixes this field: the API and the link refuse it (tested in test_state)
    try:
        model = base.edit(**edit)
    except SpecError:
        return "invalid"
    linked, warnings = link.model_from_query({"preset": name, **{k: link.format_value(v) for k, v in edit.items()}})
    assert ([], model.config) == (warnings, linked.config)
    hf_cfg, expected = hf_build(model.config)
    assert expected == summarize(model.spec).total
    hf_cfg.allow_global_per_layer_attribute_access = True  # Gemma 4's head_dim varies by layer: read the stated one
    for field, value in edit.items():
        if value is not None and (model.model_type, field) not in FORCED and hasattr(hf_cfg, field):
            assert value == getattr(hf_cfg, field), field
    return "exact"


@pytest.mark.parametrize("kind", sorted(EDITS))
@pytest.mark.parametrize("name", HF_PRESETS)
def test_preset_edit_matches_transformers(name: str, kind: str) -> None:
    """Each kind of edit of each preset counts what transformers builds from the edited config.json."""
    check_edit(name, EDITS[kind](presets.load(name)))


@pytest.mark.parametrize(
    ("name", "edit", "total"),
    [
        ("gpt2", {"hidden_size": 1536}, 418_748_928),  # n_inner is null: the MLP follows 4*n_embd
        ("llama-3.2-1b", {"hidden_size": 4096}, 2_471_628_800),  # head_dim: 64 is stated and stays
    ],
)
def test_issue_examples(name: str, edit: dict, total: int) -> None:
    """The two edits the issue measured give transformers' totals, quoted from its report."""
    assert total == summarize(presets.model(name).edit(**edit)).total


_VALUES = {
    "hidden_size": st.sampled_from([64, 96, 128, 256, 512, 1024]),
    "num_attention_heads": st.sampled_from([1, 2, 4, 8, 16]),
    "num_key_value_heads": st.one_of(st.none(), st.sampled_from([1, 2, 4])),
    "head_dim": st.one_of(st.none(), st.sampled_from([16, 32, 64])),
    "num_hidden_layers": st.integers(1, 4),  # 0 layers: T5 still builds an empty decoder with its final norm
    "num_decoder_layers": st.integers(1, 4),  # 0 would be a T5EncoderModel here, a decoder of no layers there
    "vocab_size": st.integers(60_000, 70_000),
    "intermediate_size": st.one_of(st.none(), st.integers(1, 3000)),
    "tie_word_embeddings": st.booleans(),
    "attention_bias": st.booleans(),
    "mlp_bias": st.booleans(),
    "num_experts": st.sampled_from([2, 4, 8]),
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(HF_PRESETS),
    edit=st.dictionaries(st.sampled_from(sorted(_VALUES)), st.none(), min_size=1, max_size=5).flatmap(
        lambda d: st.fixed_dictionaries({k: _VALUES[k] for k in d})
    ),
)
def test_random_edits_match_transformers(name: str, edit: dict) -> None:
    """Random edits of several keys at once (small layer counts keep the builds quick) match transformers."""
    edit.setdefault("num_hidden_layers", 2)
    check_edit(name, edit)


#: xLSTM as xLSTMConfig writes it back: its width and depth under both names (embedding_dim, num_blocks); and the depth
#: as num_blocks alone, beside the class's num_hidden_layers default of 32.
XLSTM_BOTH = {"model_type": "xlstm", "vocab_size": 101, "hidden_size": 64, "embedding_dim": 64, "num_heads": 4}
XLSTM_BOTH |= {"num_hidden_layers": 2, "num_blocks": 2}
XLSTM_BLOCKS = {"model_type": "xlstm", "vocab_size": 101, "hidden_size": 32, "num_heads": 2, "num_blocks": 32}


@pytest.mark.parametrize("config", [XLSTM_BOTH, XLSTM_BLOCKS], ids=["both-names", "num-blocks-alone"])
@pytest.mark.parametrize(
    "edit", [{"num_hidden_layers": 3}, {"hidden_size": 128}, {"mlp_bias": True}, {"mlstm_heads": 1}], ids=str
)
def test_xlstm_edits_write_both_names(config: dict, edit: dict) -> None:
    """An edit of xLSTM's width or depth writes both names the class reads apart (a layer count written to
    num_hidden_layers alone would leave num_blocks, which decides the blocks built), use_bias moves every bias with
    the MLP's, num_heads the heads: each edited file counts what transformers builds from it."""
    from paramscope.model import Model

    model = Model.from_config(config).edit(**edit)
    assert (True, hf_build(model.config)[1]) == (model.has_formulas, summarize(model.spec).total)


@pytest.mark.parametrize(
    ("edit", "widths"),
    [({"num_hidden_layers": 8}, [48] * 8), ({"num_hidden_layers": 8, "intermediate_size": 40}, 40)],
)
def test_gemma3n_lists_per_layer_follow_the_layer_count(edit: dict, widths: object) -> None:
    """Gemma 3n's files list one MLP width, one layer type and one activation sparsity per layer (transformers refuses
    a list of another length): an edit of the layer count repeats each list's pattern, an edited width is one width
    for every layer; the edited file counts what transformers builds from it, and its link (the layer count and a
    width stated once, the lists rebuilt from the count) reopens the same config without a warning."""
    from test_engine_vs_hf import GEMMA3N

    from paramscope.model import Model

    config = GEMMA3N | {"intermediate_size": [48] * 6, "activation_sparsity_pattern": [0.95] * 2 + [0.0] * 4}
    model = Model.from_config(config)
    edited = model.edit(**edit)
    assert widths == edited.config["intermediate_size"]
    assert [0.95, 0.95, 0.0, 0.0, 0.0, 0.0, 0.95, 0.95] == edited.config["activation_sparsity_pattern"]
    assert 8 == len(edited.config["layer_types"])
    assert hf_build(edited.config)[1] == summarize(edited.spec).total
    query = link.query_from_model(edited)
    assert {k: link.format_value(v) for k, v in edit.items()} == query
    again, warnings = link.edits_from_query(model, query, [])
    assert (edited.config, []) == (again.config, warnings)
