"""Hostile share links and command lines: a clear message naming the field, the model kept, never a crash."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rendered import rendered, shown, shown_total
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
    messages = " ".join(shown(w.value) for w in at.warning) + " ".join(shown(e.value) for e in at.error)
    assert field in messages
    assert GPT2 == shown_total(at)
    assert len(messages) < 5_000  # the message quotes the value, never echoes 100 kB


def test_unknown_keys_and_hostile_preset_fall_back() -> None:
    """An unknown preset name full of markup and control characters falls back to GPT-2 with a warning."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"preset": "<script>alert(1)</script>\x00" * 50, "no_such_field": "1"})
    at.run()
    assert not at.exception
    assert GPT2 == shown_total(at)
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


#: Markdown, HTML, Streamlit's directives and images, each with the marker "pwn" and an address on 127.0.0.1.
PAYLOADS = [
    "![pwn](http://127.0.0.1:9/track.png)",
    "[click pwn](http://127.0.0.1:9/phish)",
    "<img src=http://127.0.0.1:9/pwn.png>",
    "**pwn** _pwn_ `pwn` # pwn",
    ":red[pwn] :material/warning: $pwn^2$",
]


def _link_cases() -> list[tuple[str, dict[str, str]]]:
    from paramscope.io.encode import encode_config

    cases = []
    for i, p in enumerate(PAYLOADS):
        cases += [
            (f"preset-{i}", {"preset": p}),
            (f"unknown-key-{i}", {"preset": "gpt2", "pwn" + "x" * i: p}),
            (f"key-name-{i}", {"preset": "gpt2", p: "1"}),
            (f"field-value-{i}", {"preset": "gpt2", "n_layer": p}),
            (f"other-key-{i}", {"preset": "gpt2", "activation_function": p}),
            (f"tab-{i}", {"preset": "gpt2", "tab": p}),
            (f"compare-{i}", {"preset": "gpt2", "x_cmp": p}),
            (f"sweep-{i}", {"preset": "gpt2", "x_sweep": p}),
            (f"spec-{i}", {"x_spec": encode_config({"model_type": p, "hidden_size": 8})}),
            (f"run-gpu-{i}", {"preset": "gpt2", "run_gpu": p}),
            (f"hub-{i}", {"hf": p}),
        ]
    return cases


LINK_CASES = _link_cases()


@pytest.mark.parametrize("query", [q for _, q in LINK_CASES], ids=[n for n, _ in LINK_CASES])
def test_link_text_never_renders(query: dict[str, str]) -> None:
    """Markdown, HTML, images and Streamlit directives sent through every parameter of a link (a preset, an unknown
    key, a key's name, a field's value, another config key, the tab, the compared models, the sweep, an encoded
    config's model_type, a run setting, a Hub id) show as the text they are: rendered by an independent CommonMark
    implementation, no element that quotes them holds a link, an image, emphasis, code, a heading or raw HTML."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    bodies = [e.value for kind in ("warning", "error", "info", "caption", "markdown", "success", "toast")
              for e in getattr(at, kind) if isinstance(e.value, str)]  # fmt: skip
    quoting = [b for b in bodies if "pwn" in shown(b)]
    tags = {tag for b in quoting for tag in re.findall(r"<(\w+)", rendered(b)) if tag != "p"}
    assert set() == tags, quoting


@pytest.mark.parametrize("key", ["num_hidden_layers", "text_config.num_hidden_layers"])
def test_a_layer_count_past_the_limit_is_refused_before_the_lists_grow(key: str) -> None:
    """A link's layer count of 100,001 (one past the limit; 10⁹ took minutes and gigabytes) is refused, naming the
    key, before any per-layer list is written out to that length: the lists keep their 4 entries."""
    from paramscope.engine.spec import SpecError
    from paramscope.model import _follow_layer_count

    config = {"layer_types": ["sliding_attention"] * 4}
    with pytest.raises(SpecError, match=re.escape(f"{key}: 100,001 is larger than the supported maximum 100,000")):
        _follow_layer_count(config, 4, 100_001, key)
    assert 4 == len(config["layer_types"])
