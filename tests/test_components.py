"""The component registry: every part a preset's tree names has a kind, a label and a colour; kinds, labels,
colours and the embedding count are read from it alike by the charts, the diagram and compare."""

from __future__ import annotations

import pytest

from paramscope.engine.components import COMPONENTS, KINDS, colour, component, components, kind_of, label
from paramscope.engine.params import count, summarize
from paramscope.io import presets


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("embedding/token", "embedding"),
        ("embedding/norm", "norms"),
        ("embedding/projection", "embedding"),
        ("encoder/embedding/audio/conv1", "embedding"),
        ("layers/attention/qkv", "attention"),
        ("layers/attention/qk_norm", "attention"),
        ("layers/attention_norm", "norms"),
        ("decoder/layers/cross_attention/o", "attention"),
        ("encoder/relative_attention_bias", "attention"),
        ("layers/relative_position", "attention"),
        ("layers/mlp/gate", "mlp"),
        ("layers/moe/router", "experts"),
        ("layers/moe/experts/down", "experts"),
        ("layers/moe/shared_experts/up", "experts"),
        ("layers/recurrent/hh", "recurrent"),
        ("layers/ssm/in_proj", "recurrent"),
        ("layers/ssm/norm", "recurrent"),
        ("layers/linear_attention/conv1d", "recurrent"),
        ("layers/short_conv/conv", "recurrent"),
        ("layers/time_mixing/key", "recurrent"),
        ("layers/mlstm/qkv_o", "recurrent"),
        ("layers/mlstm/norm", "recurrent"),
        ("layers/norm", "norms"),
        ("final_norm", "norms"),
        ("encoder/final_norm", "norms"),
        ("encoder/embedding/position", "embedding"),
        ("head/lm", "head"),
        ("head/transform/dense", "head"),
        ("head/transform/norm", "head"),
        ("pooler", "head"),
        ("something/new", "other"),
    ],
)
def test_kind_of_path(path: str, kind: str) -> None:
    """Each tree path falls in the kind of the component that holds it (a mixer's own norm is the mixer's)."""
    assert kind == kind_of(path)


@pytest.mark.parametrize("name", presets.names_with_costs())
def test_every_component_of_a_preset_is_registered(name: str) -> None:
    """No preset shows a part the registry does not name (which would get a made-up label and colour)."""
    assert [] == [c.path for c in components(count(presets.load(name))) if component(c.path) is None]


def test_every_component_of_every_family_is_registered() -> None:
    """Nor does any differential case: every family's structural switches (T5's encoder-only relative bias,
    DeBERTa's convolution, Zamba2's shared blocks, the vision heads ...) have a name, a kind and a colour."""
    from test_engine_vs_hf import CASES

    from paramscope.families import read

    parts = {c.path for config in CASES.values() for c in components(count(read(config).spec))}
    assert [] == sorted(p for p in parts if component(p) is None)


@pytest.mark.parametrize(
    ("name", "tables"),
    [
        ("gpt2", 50257 * 768 + 1024 * 768),
        ("bert-base-uncased", (30522 + 512 + 2) * 768),
        ("llama-3.2-1b", 128256 * 2048),  # tied: the head is the table
        ("mistral-7b", 2 * 32000 * 4096),  # untied head: a second vocabulary table
        ("t5-small", 32128 * 512),  # one shared table for both stacks, tied head
        ("whisper-large-v3", 51866 * 1280 + 448 * 1280 + 1500 * 1280),  # the audio convolutions are not tables
    ],
)
def test_embedding_is_the_vocabulary_and_position_tables(name: str, tables: int) -> None:
    """The summary's embedding count is the tables written out by hand from the config."""
    assert tables == summarize(presets.load(name)).embedding


def test_a_kind_looks_like_its_main_component() -> None:
    """Each kind but 'other' has the colour of a component of that kind, so compare's bars match the pie."""
    by_kind = {k: {c.colour for c in COMPONENTS.values() if c.kind == k} for k in KINDS}
    assert [] == [k for k, kind in KINDS.items() if k != "other" and kind.colour not in by_kind[k]]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("layers/ssm", "State-space mixer (Mamba)"),
        ("decoder/layers/cross_attention", "Decoder cross-attention"),
        ("encoder/layers/mlp", "Encoder MLP"),
        ("head/lm", "LM head"),
        ("layers/some_new_part", "Some new part"),
    ],
)
def test_labels(path: str, text: str) -> None:
    """Labels are plain words; a stack's copy is named by its stack; an unknown part by its own name."""
    assert text == label(path)


def test_decoder_shades_are_lighter_and_unknown_paths_stable() -> None:
    """The decoder's copy is 35 % of the way to white (#f5 -> #f8, #85 -> #b0, #18 -> #69); an unknown path
    keeps one colour."""
    assert ("#f58518", "#f58518", "#f8b069") == (
        colour("layers/attention"),
        colour("encoder/layers/attention"),
        colour("decoder/layers/attention"),
    )
    assert colour("x/y") == colour("x/y")
