"""Project hygiene: lint clean, the engine free of UI imports, no path from input to code execution."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "paramscope"
# the modules allowed to import streamlit / plotly
UI_MODULES = {"charts", "charts_costs", "charts_explore", "ui_costs", "ui"}
ENGINE = sorted(p for p in SRC.glob("*.py") if p.stem not in UI_MODULES and not p.stem.startswith("ui_"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", ENGINE, ids=lambda p: p.name)
def test_engine_has_no_ui_imports(path: Path) -> None:
    """Engine modules never import streamlit or plotly (charts live in their own modules)."""
    assert set() == _imports(path) & {"streamlit", "plotly", "torch", "transformers"}


FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle", "yaml"}
FORBIDDEN_TEXT = ("trust_remote_code", "unsafe_allow_html", "from_pretrained")
SHIPPED = sorted(SRC.rglob("*.py")) + [p for p in [ROOT / "app.py"] if p.exists()]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_no_code_execution_from_input(path: Path) -> None:
    """Shipped code never calls eval/exec, never imports pickle-like or YAML loaders, never trusts remote code."""
    text = path.read_text()
    tree = ast.parse(text)
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert set() == calls & FORBIDDEN_CALLS
    assert set() == _imports(path) & FORBIDDEN_MODULES
    assert [] == [t for t in FORBIDDEN_TEXT if t in text]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")
def test_ruff_is_clean() -> None:
    """`ruff check` finds nothing in the package, the app, the tests and the benchmarks."""
    targets = [str(p) for p in (ROOT / "src", ROOT / "tests", ROOT / "bench", ROOT / "app.py") if p.exists()]
    out = subprocess.run([sys.executable, "-m", "ruff", "check", *targets], capture_output=True, text=True, cwd=ROOT)
    assert 0 == out.returncode, out.stdout[-3000:]
