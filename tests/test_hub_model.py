"""A Hub id as input, end to end on the fixture Hub (127.0.0.1): the API, the command line, the checkpoint's count."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hf_oracle import hf_count
from hub_server import GRANTED_TOKEN, TINY_BIOGPT, TINY_LLAMA, TINY_LLAMA_TENSORS, HubServer

import paramscope
from paramscope.io import presets
from paramscope.io.hub import HubError


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "paramscope", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def biogpt_count() -> int:
    """BioGptForCausalLM built by transformers from TINY_BIOGPT on the meta device."""
    import torch
    from transformers import BioGptConfig, BioGptForCausalLM

    config = {k: v for k, v in TINY_BIOGPT.items() if k not in ("model_type", "architectures")}
    with torch.device("meta"):
        model = BioGptForCausalLM(BioGptConfig(**config))
    return sum(p.numel() for p in model.parameters())


def test_from_hub_is_the_model_of_the_config(hub: HubServer) -> None:
    """paramscope.from_hub gives the model the repo's config.json builds, with its origin, ready to edit."""
    model = paramscope.from_hub("fixture/gpt2")
    assert (presets.get("gpt2").expected_total, "fixture/gpt2", "main") == (
        paramscope.summarize(model).total,
        model.hub_id,
        model.revision,
    )
    assert presets.get("gpt2").config == model.config
    edited = model.edit(n_layer=6)
    assert ("fixture/gpt2", {"n_layer": 6}) == (edited.hub_id, edited.edits)


def test_from_hub_at_a_revision(hub: HubServer) -> None:
    """A revision (a tag, a PR ref) is part of the model's origin."""
    model = paramscope.from_hub("fixture/llama", revision="refs/pr/1")
    assert ("fixture/llama", "refs/pr/1") == (model.hub_id, model.revision)
    assert hf_count(presets.get("llama-3.2-1b").config) == paramscope.summarize(model).total


def test_from_hub_without_a_row_is_counted_by_transformers(hub: HubServer) -> None:
    """A model type with no family row is counted by transformers on the meta device, without formulas."""
    model = paramscope.from_hub("fixture/tiny-biogpt")
    assert (False, biogpt_count()) == (model.has_formulas, paramscope.summarize(model).total)


@pytest.mark.parametrize(
    ("repo_id", "kind"),
    [("fixture/missing", "not_found"), ("fixture/gated", "gated"), ("fixture/no-config", "no_file")],
)
def test_from_hub_errors(hub: HubServer, repo_id: str, kind: str) -> None:
    """Each failure is a HubError of its kind, a ValueError with one line."""
    with pytest.raises(HubError) as info:
        paramscope.from_hub(repo_id)
    assert (kind, 1) == (info.value.kind, len(str(info.value).splitlines()))


def test_gated_with_a_token(hub: HubServer) -> None:
    """A token opens the gated repo."""
    model = paramscope.from_hub("fixture/gated", token=GRANTED_TOKEN)
    assert hf_count(presets.get("llama-3.2-1b").config) == paramscope.summarize(model).total


# ------------------------------------------------------------------------------------------------ the CLI
def test_cli_count_hub_id_json(hub: HubServer, tmp_path: Path) -> None:
    """`count ORG/NAME --json` gives the exact total, and says there are no safetensors to compare with."""
    out = run("count", "fixture/gpt2", "--json", cwd=tmp_path)
    assert 0 == out.returncode, out.stderr
    doc = json.loads(out.stdout)
    assert (presets.get("gpt2").expected_total, "formulas") == (doc["total"], doc["counted_by"])
    assert "no safetensors" in doc["checkpoint"]["note"]


def test_cli_checkpoint_beside_the_count(hub: HubServer, tmp_path: Path) -> None:
    """The checkpoint's stored count is read from its header and the difference (a tied head stored twice) is
    explained; what remains equals the exact count, which equals transformers'."""
    out = run("count", "fixture/tiny-llama", "--json", cwd=tmp_path)
    assert 0 == out.returncode, out.stderr
    doc = json.loads(out.stdout)
    stored = sum(math.prod(shape) for _, _, shape in TINY_LLAMA_TENSORS)
    head = 64 * 16
    cp = doc["checkpoint"]
    assert (hf_count(TINY_LLAMA), stored, {"BF16": stored}, head, stored - head, True) == (
        doc["total"],
        cp["stored"],
        cp["by_dtype"],
        cp["groups"]["tied_lm_head"],
        cp["stored_less_extras"],
        cp["equals_total"],
    )
    assert any("ties it to the token embedding" in line for line in cp["explanation"])


def test_cli_checkpoint_with_mtp_and_fp8(hub: HubServer, tmp_path: Path) -> None:
    """The table form explains MTP layers, router biases and fp8 scales of a DeepSeek-V3-like checkpoint."""
    out = run("count", "fixture/sharded", cwd=tmp_path)
    assert 0 == out.returncode, out.stderr
    text = out.stdout
    assert "multi-token-prediction" in text and "score-correction" in text and "quantized" in text


def test_cli_no_checkpoint_sends_no_safetensors_request(hub: HubServer, tmp_path: Path) -> None:
    """--no-checkpoint reads config.json only."""
    out = run("count", "fixture/tiny-llama", "--no-checkpoint", cwd=tmp_path)
    assert 0 == out.returncode, out.stderr
    assert {"config.json"} == {r.filename for r in hub.requests}


def test_cli_count_without_a_row(hub: HubServer, tmp_path: Path) -> None:
    """A Hub model with no family row: counted by transformers, labelled so, shapes instead of formulas."""
    out = run("count", "fixture/tiny-biogpt", "--json", cwd=tmp_path)
    assert 0 == out.returncode, out.stderr
    doc = json.loads(out.stdout)
    assert (biogpt_count(), "transformers") == (doc["total"], doc["counted_by"])
    assert any("no formulas" in note for note in doc["notes"])


@pytest.mark.parametrize("command", ["memory", "flops"])
def test_cli_costs_of_a_hub_id(hub: HubServer, tmp_path: Path, command: str) -> None:
    """memory and flops take a Hub id and a revision like count; the model is the same as the preset's."""
    hub_run = run(command, "fixture/gpt2", "--revision", "v1.0", "--json", cwd=tmp_path)
    preset_run = run(command, "gpt2", "--json", cwd=tmp_path)
    assert (0, 0) == (hub_run.returncode, preset_run.returncode), hub_run.stderr
    hub_doc, preset_doc = json.loads(hub_run.stdout), json.loads(preset_run.stdout)
    assert "fixture/gpt2@v1.0" == hub_doc.pop("model")
    preset_doc.pop("model")
    assert preset_doc == hub_doc


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("count", "fixture/missing"), "no model 'fixture/missing'"),
        (("count", "fixture/gated"), "HF_TOKEN"),
        (("count", "fixture/no-config"), "config.json"),
        (("count", "fixture/gpt2", "--revision", "nope"), "revision"),
        (("count", "fixture/gpt2", "--revision", "../x"), "revision: '../x'"),
        (("count", "fixture/malformed"), "is not valid JSON (line 1"),
        (("memory", "fixture/tiny-biogpt"), "counted by transformers only"),
    ],
)
def test_cli_hub_errors_exit_2_with_one_line(
    hub: HubServer, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    """Each Hub failure exits 2 with one line on stderr that says what to do."""
    out = run(*args, cwd=tmp_path)
    lines = out.stderr.strip().splitlines()
    assert (2, 1) == (out.returncode, len(lines)), out.stderr
    assert message in lines[0]
