"""Hostile share links and command lines: a clear message naming the field, the model kept, never a crash."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from paramscope.cli.main import main
from paramscope.io import presets

APP = str(Path(__file__).resolve().parents[1] / "app.py")
GPT2 = f"{presets.get('gpt2').expected_total:,}"

HOSTILE_LINKS = {
    "1e309": ("num_hidden_layers", "1e309"),
    "NaN": ("hidden_size", "NaN"),
    "inf": ("vocab_size", "inf"),
    "negative": ("num_hidden_layers", "-12"),
    "huge": ("hidden_size", "9" * 400),
    "100 kB": ("vocab_size", "7" * 100_000),
    "empty": ("num_attention_heads", ""),
    "control characters": ("hidden_size", "12\x00\x07\x1b[31m"),
    "unicode digits": ("num_hidden_layers", "١٢"),
    "wrong type": ("tie_word_embeddings", "[1,2]"),
    "heads do not divide": ("num_attention_heads", "7"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_LINKS))
def test_hostile_link_value_warns_and_keeps_gpt2(name: str) -> None:
    """The page opens, warns naming the bad field, and shows the preset's own total."""
    field, value = HOSTILE_LINKS[name]
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"preset": "gpt2", field: value})
    at.run()
    assert not at.exception
    messages = " ".join(str(w.value) for w in at.warning) + " ".join(str(e.value) for e in at.error)
    assert field in messages
    assert GPT2 == next(m.value for m in at.metric if m.label == "Total parameters")
    assert len(messages) < 5_000  # the message quotes the value, never echoes 100 kB


def test_unknown_keys_and_hostile_preset_fall_back() -> None:
    """An unknown preset name full of markup and control characters falls back to GPT-2 with a warning."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"preset": "<script>alert(1)</script>\x00" * 50, "no_such_field": "1"})
    at.run()
    assert not at.exception
    assert GPT2 == next(m.value for m in at.metric if m.label == "Total parameters")
    assert at.warning


ARGS = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "count",
                "presets",
                "memory",
                "flops",
                "--json",
                "--hf-config",
                "--seq",
                "--batch",
                "--dtype",
                "--zero",
                "--gpus",
                "gpt2",
                "llama-2-7b",
                "--tokens",
                "--mode",
            ]
        ),
        st.text(max_size=20),
        st.sampled_from(["-1", "0", "1e309", "NaN", "inf", "9" * 50, "", "\x00", "int3", "training"]),
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(ARGS)
def test_random_command_lines_exit_0_or_2(argv: list[str]) -> None:
    """Any command line ends with status 0 or 2 (one line on stderr), never an uncaught exception."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's --help
            code = exc.code
    assert code in (0, 2)
    if code == 2:
        assert 1 == len(err.getvalue().strip().splitlines())
