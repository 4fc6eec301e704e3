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
#: The layers, bottom up: a module may import from its own layer and the layers below it, never above.
LAYERS = ("engine", "families", "model", "io", "analysis", "cli", "app")
#: Layers side by side (the command line and the page never import each other).
APART = {("cli", "app"), ("app", "cli")}
UI = {"streamlit", "plotly", "pandas"}


def _layer(module: str) -> str | None:
    """The layer of ``paramscope.<layer>[...]`` (``None`` for the package itself and ``__main__``)."""
    parts = module.split(".")
    if parts[0] != "paramscope" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; relative ones resolved against its package)."""
    tree = ast.parse(path.read_text())
    package = ".".join(["paramscope", *path.relative_to(SRC).parent.parts]) if SRC in path.parents else ""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.add(base)
            names |= {f"{base}.{a.name}" for a in node.names}
    return names


def _module(path: Path) -> str:
    return ".".join(["paramscope", *path.relative_to(SRC).with_suffix("").parts])


MODULES = sorted(p for p in SRC.rglob("*.py") if _layer(_module(p)))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_point_down(path: Path) -> None:
    """Folders are layers: engine <- families <- model <- io <- analysis <- cli, app. A module imports from its own
    layer or those below; only app/ imports streamlit, plotly or pandas."""
    own = _layer(_module(path))
    above = set(LAYERS[LAYERS.index(own) + 1 :]) - {own}
    if own in ("cli", "app"):
        above -= {"cli", "app"}
    wrong = {m for m in _imports(path) if _layer(m) in above or (own, _layer(m)) in APART}
    ui = {m for m in _imports(path) if m.split(".")[0] in UI} if own != "app" else set()
    assert (set(), set()) == (wrong, ui)


def test_engine_names_no_model_type() -> None:
    """engine/ is pure: no Hugging Face model_type appears in its code (families hold that knowledge)."""
    from paramscope.families import FAMILIES

    named = {
        (p.name, t)
        for p in (SRC / "engine").glob("*.py")
        for t in FAMILIES
        if t != "paramscope" and (f'"{t}"' in p.read_text() or f"'{t}'" in p.read_text())
    }
    assert set() == named


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


@pytest.mark.parametrize("path", sorted((SRC / "app").glob("*.py")), ids=lambda p: p.name)
def test_every_chart_uses_the_page_plotly_config(path: Path) -> None:
    """Every st.plotly_chart call passes config=PLOTLY_CONFIG (no logo, the short toolbar that leaves a title
    readable on a phone), so that no chart falls back to Plotly's full toolbar."""
    calls = [
        node
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "plotly_chart"
    ]
    for call in calls:
        config = next((k.value for k in call.keywords if k.arg == "config"), None)
        name = config.attr if isinstance(config, ast.Attribute) else getattr(config, "id", None)
        assert "PLOTLY_CONFIG" == name, f"{path.name}:{call.lineno}"
