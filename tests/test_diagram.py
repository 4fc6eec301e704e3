"""The architecture diagram: every parameterized part drawn with its count, and DOT that always parses."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramscope.analysis.diagram import esc, to_dot
from paramscope.engine.params import count
from paramscope.engine.spec import Spec, short
from paramscope.io import presets


def dot_of(name: str) -> str:
    spec = presets.load(name)
    return to_dot(spec, count(spec))


def tokens(dot: str) -> list[str]:
    """DOT split into quoted strings, braces/brackets and words; ValueError on an unterminated string."""
    out, i = [], 0
    while i < len(dot):
        ch = dot[i]
        if ch == '"':
            j = i + 1
            while j < len(dot) and dot[j] != '"':
                j += 2 if dot[j] == "\\" else 1
            if j >= len(dot):
                raise ValueError(f"unterminated string at {i}")
            out.append(dot[i : j + 1])
            i = j + 1
        elif ch in "{}[];=,":
            out.append(ch)
            i += 1
        elif ch.isspace():
            i += 1
        else:
            m = re.match(r"[^\s{}\[\];=,\"]+", dot[i:])
            assert m is not None
            out.append(m.group())
            i += len(m.group())
    return out


def balanced(toks: list[str]) -> bool:
    depth = {"{": 0, "[": 0}
    pairs = {"}": "{", "]": "["}
    for t in toks:
        if t in depth:
            depth[t] += 1
        elif t in pairs:
            depth[pairs[t]] -= 1
            if depth[pairs[t]] < 0:
                return False
    return depth == {"{": 0, "[": 0}


@pytest.mark.parametrize("name", presets.names_with_costs())
def test_every_parameterized_part_is_drawn_with_its_count(name: str) -> None:
    """Every leaf with parameters appears with its per-copy count; repeated ones with their total too."""
    dot = dot_of(name)
    for leaf in count(presets.load(name)).leaves():
        if not leaf.count:
            continue
        assert f"{leaf.per_copy:,} params ({short(leaf.per_copy)})" in dot, leaf.path
        if leaf.repeat > 1:
            assert f"× {leaf.repeat:,} = {leaf.count:,}" in dot, leaf.path


@pytest.mark.parametrize("name", presets.names_with_costs())
def test_dot_is_balanced(name: str) -> None:
    """Strings terminate, braces and brackets balance, and the graph is one digraph block."""
    toks = tokens(dot_of(name))
    assert balanced(toks)
    assert ["digraph", "model", "{"] == toks[:3]
    assert "}" == toks[-1]


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz not installed")
@pytest.mark.parametrize("name", presets.names_with_costs())
def test_graphviz_accepts_the_source(name: str) -> None:
    """Graphviz itself parses and lays out the diagram without a warning."""
    out = subprocess.run(["dot", "-Tsvg"], input=dot_of(name), capture_output=True, text=True, timeout=60)
    assert (0, "") == (out.returncode, out.stderr)


@pytest.mark.parametrize(
    ("name", "tied"),
    [("gpt2", True), ("t5-small", True), ("albert-base-v2", True), ("llama-3-8b", False), ("mixtral-8x7b", False)],
)
def test_tied_head_is_drawn_as_tied(name: str, tied: bool) -> None:
    """A tied LM head is a dashed box joined to the token embedding by a 'tied' edge; an untied one is not."""
    dot = dot_of(name)
    assert tied == ('label="tied"' in dot)
    assert tied == ("tied: counted once" in dot)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("llama-3-8b", "32 heads of 128, 8 kv heads"),
        ("llama-3-8b", "q 4096×4096 · k 4096×1024 · v 4096×1024"),
        ("palm-540b", "48 heads of 256, 1 kv heads"),
        ("llama-3-8b", "gated, activation silu"),
        ("gpt2", "activation gelu_new"),
        ("mixtral-8x7b", "8 experts, 2 active per token"),
        ("mixtral-8x7b", "router"),
        ("qwen1.5-moe-a2.7b", "shared experts"),
        ("hybrid-rnn-transformer", "recurrent units"),
        ("t5-small", "cross-attention"),
        ("t5-small", "encoder states"),
        ("albert-base-v2", "1 parameter set(s) shared by all 12 layers"),
        ("phi-2", "attention and MLP in parallel"),
        ("gpt2", "the layer stack: 12 layers, one drawn"),
    ],
)
def test_labels_name_the_structure(name: str, text: str) -> None:
    """Heads and kv heads, gating, experts, recurrent units, cross-attention and sharing are spelled out."""
    assert text in dot_of(name)


HOSTILE = 'evil" ] ; x -> y { } \\'


def test_hostile_text_is_escaped() -> None:
    """An activation name and a title full of quotes, braces and a trailing backslash cannot break the DOT."""
    spec = presets.load("gpt2").replace(hidden_act=HOSTILE)
    dot = to_dot(spec, count(spec), title=HOSTILE)
    toks = tokens(dot)
    assert balanced(toks)
    assert HOSTILE not in dot
    assert 2 == dot.count('evil\\" ] ; x -> y { } /')
    assert "x" not in [t for t in toks if not t.startswith('"')]  # no bare node called x was injected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a"b', 'a\\"b'),
        ("a\\", "a/"),
        ("a{b}", "a{b}"),
        ("line\nbreak\x00", "linebreak"),
        ("x" * 500, "x" * 120),
    ],
)
def test_esc(text: str, expected: str) -> None:
    """Quotes are escaped, backslashes replaced, control characters dropped, length capped."""
    assert expected == esc(text)


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz not installed")
def test_graphviz_accepts_hostile_labels() -> None:
    """Graphviz parses the diagram of a spec with hostile text."""
    spec = presets.load("gpt2").replace(hidden_act=HOSTILE)
    out = subprocess.run(
        ["dot", "-Tsvg"], input=to_dot(spec, count(spec), title=HOSTILE), capture_output=True, text=True, timeout=60
    )
    assert (0, "") == (out.returncode, out.stderr)


@st.composite
def odd_specs(draw: st.DrawFn) -> Spec:
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    experts = draw(st.sampled_from([0, 4]))
    layers = draw(st.integers(0, 3))
    return Spec(
        architecture=draw(st.sampled_from(["causal_lm", "masked_lm", "base"])),
        vocab_size=draw(st.integers(0, 50)),
        hidden_size=heads * draw(st.integers(1, 8)),
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        has_attention=draw(st.booleans()),
        intermediate_size=draw(st.integers(0, 40)),
        mlp_gated=draw(st.booleans()),
        norms_per_layer=draw(st.integers(0, 3)),
        final_norm=draw(st.booleans()),
        position_embedding=draw(st.sampled_from(["learned", "rotary", "none"])),
        max_position_embeddings=draw(st.integers(0, 64)),
        tie_word_embeddings=draw(st.booleans()),
        num_experts=experts,
        num_experts_per_tok=min(2, experts) or 2,
        first_k_dense_replace=draw(st.integers(0, layers)),
        recurrent_units=draw(st.integers(0, 2)),
        num_decoder_layers=draw(st.sampled_from([0, 0, 2])),
        pooler=draw(st.booleans()),
        parallel_attn=draw(st.booleans()),
    )


@settings(max_examples=60, deadline=None)
@given(odd_specs())
def test_odd_models_draw_valid_dot(spec: Spec) -> None:
    """No layers, no vocabulary, no attention, no head, pooler, experts, recurrence: the DOT stays valid
    (graphviz parses it when installed) and every part with parameters is drawn."""
    tree = count(spec)
    dot = to_dot(spec, tree)
    assert balanced(tokens(dot))
    for leaf in tree.leaves():
        if leaf.count:
            assert f"{leaf.per_copy:,} params" in dot
    if shutil.which("dot"):
        out = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True, timeout=60)
        assert (0, "") == (out.returncode, out.stderr)


@pytest.mark.parametrize(("theme", "grey"), [("light", "#6b7280"), ("dark", "#a3a9b3")])
def test_text_outside_the_boxes_follows_the_theme(theme: str, grey: str) -> None:
    """The title, the input, the output and the edge labels are written in the theme's grey (readable on white and
    on Streamlit's dark background); nothing else changes with the theme."""
    spec = presets.load("gpt2")
    dot = to_dot(spec, count(spec), theme=theme)
    starts = ("  graph [", "  edge [", "  input [", "  output [")
    outside = [line for line in dot.splitlines() if line.startswith(starts)]
    assert 4 == len(outside) and all(f'fontcolor="{grey}"' in line for line in outside)
    other = "dark" if theme == "light" else "light"
    assert to_dot(spec, count(spec), theme=other).replace("#a3a9b3", "#6b7280") == dot.replace("#a3a9b3", "#6b7280")
