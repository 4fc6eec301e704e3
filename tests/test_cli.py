"""The command line, run as a user runs it: `python -m paramscope` in a separate process from another folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hf_oracle import hf_count

from paramscope.io import presets


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "paramscope", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_count_json_matches_transformers(tmp_path: Path) -> None:
    """`count gpt2 --json` reports the total of the real GPT2LMHeadModel and components that sum to it."""
    out = run("count", "gpt2", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert hf_count(presets.get("gpt2").config) == data["total"]
    leaves = [c for c in data["components"] if c["leaf"]]
    assert data["total"] == sum(c["params"] for c in leaves)
    assert {"path", "params", "formula"} <= set(data["components"][0])


def test_count_hf_config_file(tmp_path: Path) -> None:
    """`count --hf-config FILE` reads a real config.json and reports the keys it did not use."""
    config = {
        "model_type": "llama",
        "hidden_size": 256,
        "num_hidden_layers": 3,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 700,
        "vocab_size": 1000,
        "rope_theta": 500000.0,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    out = run("count", "--hf-config", str(path), "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert hf_count(config) == data["total"]
    assert ["rope_theta"] == data["ignored_keys"]


def test_count_table_is_readable(tmp_path: Path) -> None:
    """The table shows each component with thousands separators and the total."""
    out = run("count", "gpt2", cwd=tmp_path)
    assert out.returncode == 0
    total = presets.get("gpt2").expected_total
    assert f"{total:,}" in out.stdout
    assert "layers/attention/qkv" in out.stdout


def test_presets_lists_required_names(tmp_path: Path) -> None:
    """`presets` lists every preset, one per line, name first."""
    out = run("presets", cwd=tmp_path)
    assert out.returncode == 0
    listed = [line.split()[0] for line in out.stdout.splitlines()]
    assert sorted(presets.names()) == sorted(listed)


BAD_FILES = {
    "malformed.json": ("{not json", "malformed JSON at line 1"),
    "unsupported.json": (
        json.dumps({"model_type": "frobnet", "hidden_size": 4}),
        "model_type: 'frobnet' is not a model type transformers knows, nor has formulas here (`python -m paramscope "
        "types` lists them)",
    ),
    "heads.json": (json.dumps({"model_type": "gpt2", "n_embd": 100, "n_head": 7}), "does not divide hidden_size"),
    "negative.json": (json.dumps({"model_type": "llama", "hidden_size": -64}), "must not be negative"),
    "array.json": ("[1, 2]", "expected a JSON object"),
    "nan.json": ('{"model_type": "gpt2", "n_embd": NaN}', "NaN"),
    "binary.json": (b"\xff\xfe\x00garbage", "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_config_exits_2_with_one_line(tmp_path: Path, name: str) -> None:
    """A bad config file exits with status 2 and one line on stderr naming the file and the problem."""
    content, message = BAD_FILES[name]
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = run("count", "--hf-config", str(path), cwd=tmp_path)
    assert 2 == out.returncode
    lines = out.stderr.strip().splitlines()
    assert 1 == len(lines), out.stderr
    assert message in lines[0] and name in lines[0]
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("count", "gpt-7"), "no preset named 'gpt-7'"),
        (("count", "--hf-config", "missing.json"), "missing.json: no such file"),
        (("count",), "give a preset NAME, a Hub id ORG/NAME or --hf-config FILE"),
        (("count", "gpt2", "--revision", "v1"), "--revision: only for a Hub id ORG/NAME"),
        (("count", "https://huggingface.co/gpt2"), "hub id: 'https://huggingface.co/gpt2' is a link"),
        (("count", "a/b/c"), "must be ORG/NAME with exactly one '/'"),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    """A bad preset name, a missing file or a bad command exits 2 with one line on stderr, no traceback."""
    out = run(*args, cwd=tmp_path)
    assert 2 == out.returncode
    lines = out.stderr.strip().splitlines()
    assert 1 == len(lines), out.stderr
    assert message in lines[0]


def test_types_lists_rows_wholes_and_the_long_tail(tmp_path: Path) -> None:
    """`types --json` names each model type with formulas by the class prefix transformers gives it, each whole model
    by the transformers class that builds it (its config class's model_type), and says that any other type is counted
    by transformers here."""
    import transformers

    out = run("types", "--json", cwd=tmp_path)
    data = json.loads(out.stdout)
    wholes = data["wholes_of_rows"]
    assert (0, True, set(), {}) == (
        out.returncode,
        data["others_counted_by_transformers"],
        set(wholes) & set(data["with_formulas"]),
        {t: c for t, c in wholes.items() if getattr(transformers, c).config_class.model_type != t},
    )
