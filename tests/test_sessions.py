"""Sessions are isolated: what one user sets or uploads is never visible to another."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from rendered import shown_total
from streamlit.testing.v1 import AppTest

from paramscope import read
from paramscope.app.controls import MORE_OPEN
from paramscope.engine.params import summarize
from paramscope.io import presets

GPT2 = presets.get("gpt2").config
ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def open_page(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query)
    return at.run()


def test_concurrent_sessions_keep_their_own_models() -> None:
    """Two live sessions opened from different links each show their own model, and an edit in one leaves the
    other unchanged. (AppTest's harness is not thread-safe, so the two sessions interleave their runs; truly
    parallel sessions are exercised by bench/many_users.py against the real server.)"""
    a = open_page({"preset": "gpt2", "num_hidden_layers": "24"})
    b = open_page({"preset": "llama-3.2-1b"})
    gpt2_24 = summarize(read({**GPT2, "n_layer": 24}).spec).total
    assert f"{gpt2_24:,}" == shown_total(a)
    assert f"{presets.get('llama-3.2-1b').expected_total:,}" == shown_total(b)

    a.session_state[MORE_OPEN] = ["Exact sizes"]  # the width's exact box is drawn while its section is open
    a.run().number_input(key="f.hidden_size").set_value(1536).run()
    b.run()
    changed = summarize(read({**GPT2, "n_layer": 24, "n_embd": 1536}).spec).total
    assert f"{changed:,}" == shown_total(a)
    assert f"{presets.get('llama-3.2-1b').expected_total:,}" == shown_total(b)
    assert "1536" in str(a.query_params["hidden_size"])
    assert "hidden_size" not in b.query_params


def test_a_fresh_session_does_not_inherit_another_sessions_state() -> None:
    """After one session moves to a large model, a new session with no link still opens GPT-2."""
    first = open_page({})
    first.selectbox(key="preset").select("llama-3-70b").run()
    assert f"{presets.get('llama-3-70b').expected_total:,}" == shown_total(first)
    second = open_page({})
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(second)


SHIPPED_UI = [ROOT / "app.py", *sorted((ROOT / "src" / "paramscope" / "app").glob("*.py"))]


def _module_level_mutations(path: Path) -> list[str]:
    """Statements at module level (or `global`) that would let one session's state leak into another."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"{path.name}:{node.lineno} global {', '.join(node.names)}")
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            value = node.value
            if isinstance(value, ast.List | ast.Set | ast.ListComp | ast.SetComp):
                found.append(f"{path.name}:{node.lineno} mutable list/set at module level")
    return found


@pytest.mark.parametrize("path", SHIPPED_UI, ids=lambda p: p.name)
def test_no_module_level_session_state(path: Path) -> None:
    """The page and its Streamlit pieces keep no mutable lists/sets at module level and never use `global`."""
    assert [] == _module_level_mutations(path)
