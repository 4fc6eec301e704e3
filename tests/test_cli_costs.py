"""`python -m paramscope memory|flops`, run as a user runs it, and the run settings' share-link encoding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paramscope.cli.main import main
from paramscope.engine.run import RunSettings, settings_from_query, settings_to_query
from paramscope.engine.spec import FIELDS

PARTS = (
    "weights", "kv_cache", "gradients", "optimizer", "activations", "transient", "allocator", "runtime", "reserve",
    "total",
)  # fmt: skip


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "paramscope", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------------------------------- memory
def test_memory_json_llama_2_7b_kv_cache(tmp_path: Path) -> None:
    """`memory llama-2-7b --seq 4096 --dtype fp16 --json` (a separate process): 2 GiB of KV cache (NVIDIA's
    "Mastering LLM Techniques: Inference Optimization": ~2 GB at batch 1, 4096 tokens, 16 bit), 2 bytes per
    weight, the runtime's assumed 768 MiB, integer bytes per part and a total that is their sum."""
    out = run("memory", "llama-2-7b", "--seq", "4096", "--dtype", "fp16", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (2**31, 2 * 6_738_415_616, 768 * 2**20) == (data["kv_cache"], data["weights"], data["runtime"])
    assert all(isinstance(data[p], int) for p in PARTS)
    assert data["total"] == sum(data[p] for p in PARTS if p != "total")


def test_runtime_flag_sets_the_assumed_overhead(tmp_path: Path) -> None:
    """`--runtime-mib 0` leaves the runtime out of the total; `--runtime-mib 2048` puts 2 GiB in it."""
    totals = []
    for mib in ("0", "2048"):
        out = run("memory", "llama-2-7b", "--seq", "4096", "--runtime-mib", mib, "--json", cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        rest = sum(data[p] for p in PARTS if p not in ("runtime", "total"))
        totals.append((data["runtime"], data["total"] - rest))
    assert [(0, 0), (2**31, 2**31)] == totals


@pytest.mark.parametrize(
    ("stage", "gb"),
    [("0", 16 * 6_738_415_616), ("1", 4 * 6_738_415_616 + 12 * 105_287_744), ("3", 16 * 105_287_744)],
)
def test_memory_training_zero(capsys: pytest.CaptureFixture[str], stage: str, gb: int) -> None:
    """`memory llama-2-7b --mode training --precision master --zero Z --gpus 64 --json`: at the optimizer step AdamW
    mixed precision is 16 bytes per parameter (ZeRO paper); stage 1 shards the 12 optimizer bytes, stage 3 all 16
    over 64 GPUs (ceil(6,738,415,616 / 64) = 105,287,744 parameters per GPU)."""
    args = ("--mode", "training", "--precision", "master", "--zero", stage, "--gpus", "64", "--seq", "1024", "--json")
    code, out, err = call(capsys, "memory", "llama-2-7b", *args)
    assert code == 0, err
    data = json.loads(out)
    step = next(p for p in data["phases"] if p["phase"] == "step")
    assert gb == step["bytes"]
    assert 0 == data["kv_cache"]
    assert data["activations"] > 0


def test_memory_korthikanti_through_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """`memory gpt3-175b --mode training --seq 2048 --batch 1 --dropout --no-flash --kernels fused --precision master`
    (Megatron's set-up): the layers' activations at the end of the forward pass are 96 × sbh(34 + 5as/h) = 96 ×
    2,868,903,936 bytes (Korthikanti et al. 2022, Table 2)."""
    code, out, err = call(
        capsys,
        "memory",
        "gpt3-175b",
        "--mode",
        "training",
        "--seq",
        "2048",
        "--batch",
        "1",
        "--dropout",
        "--no-flash",
        "--kernels",
        "fused",
        "--precision",
        "master",
        "--json",
    )
    assert code == 0, err
    forward = next(p for p in json.loads(out)["phases"] if p["phase"] == "forward")
    rows = {r["path"]: r["bytes"] for r in forward["breakdown"]}
    assert 96 * 2_868_903_936 == rows["activations/layers"]


def test_memory_table_labels_gb_and_gib(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --json the table gives every part in GB (10^9) and GiB (2^30), labelled, and says whether
    the model fits the chosen GPU."""
    code, out, _ = call(capsys, "memory", "llama-2-7b", "--seq", "4096", "--dtype", "fp16", "--gpu", "rtx-4090")
    assert code == 0
    assert "GB = 10^9 bytes, GiB = 2^30 bytes" in out
    assert "2.000 GiB" in out  # the KV cache
    assert "NVIDIA GeForce RTX 4090" in out and "fits" in out


def test_memory_hf_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`memory --hf-config FILE` reads a config.json: a 2-layer GQA model's KV cache is
    2·layers·kv_heads·head_dim·tokens·batch·2 bytes."""
    config = {
        "model_type": "llama",
        "hidden_size": 256,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 1000,
        "max_position_embeddings": 4096,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    code, out, err = call(capsys, "memory", "--hf-config", str(path), "--seq", "100", "--batch", "3", "--json")
    assert code == 0, err
    assert 2 * 2 * 2 * 32 * 100 * 3 * 2 == json.loads(out)["kv_cache"]


def test_memory_of_a_multimodal_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`memory` of a whole Gemma 3 (its language model and SigLIP tower, counted by transformers): the bf16 weights
    are 2 bytes for each parameter of Gemma3ForConditionalGeneration built on the meta device, and its KV cache is
    its language model's (4 layers, 1 KV head of 32, 100 tokens: none beyond the sliding window)."""
    pytest.importorskip("transformers")
    import torch
    from transformers import Gemma3Config, Gemma3ForConditionalGeneration

    text = dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=2)
    text |= dict(num_key_value_heads=1, head_dim=32, sliding_window=512)
    vision = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=1, num_attention_heads=2, image_size=32)
    vision |= dict(patch_size=8)
    config = {"text_config": text, "vision_config": vision, "mm_tokens_per_image": 4}
    with torch.device("meta"):
        whole = sum(p.numel() for p in Gemma3ForConditionalGeneration(Gemma3Config(**config)).parameters())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gemma3", **config}))
    code, out, err = call(capsys, "memory", "--hf-config", str(path), "--seq", "100", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (2 * whole, 4 * 2 * 1 * 32 * 100 * 2) == (data["weights"], data["kv_cache"])


def test_memory_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    """Defaults: inference, bf16, batch 1, the model's context capped at 2048 (gpt2: 1024 tokens)."""
    code, out, _ = call(capsys, "memory", "gpt2", "--json")
    assert code == 0
    data = json.loads(out)
    assert ("inference", "bf16", 1, 1024) == tuple(data["settings"][k] for k in ("mode", "dtype", "batch", "seq"))
    assert 2 * 12 * 768 * 1024 * 2 == data["kv_cache"]


# -------------------------------------------------------------------------------------------- flops
def test_flops_json_nanogpt(tmp_path: Path) -> None:
    """`flops gpt2 --seq 1024 --json` (a separate process): nanoGPT's 291,648,307,200 FLOPs per 1024-token
    forward pass (transformer_sizing.ipynb), training = 3 × forward, Chinchilla tokens = 20 × 124,439,808."""
    out = run("flops", "gpt2", "--seq", "1024", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert 291_648_307_200 == data["forward_per_token"] * 1024
    assert 3 * data["forward_per_token"] == data["training_per_token"]
    assert 20 * 124_439_808 == data["chinchilla_tokens"]
    assert data["training_per_token"] * data["chinchilla_tokens"] == data["training_total"]


def test_flops_tokens_and_causal(capsys: pytest.CaptureFixture[str]) -> None:
    """`--tokens 1.4e12` is read as a whole number; `--causal` lowers the attention FLOPs."""
    code, out, err = call(capsys, "flops", "gpt2", "--tokens", "1.4e12", "--json")
    assert code == 0, err
    plain = json.loads(out)
    assert 1_400_000_000_000 == plain["tokens"]
    code, out, _ = call(capsys, "flops", "gpt2", "--causal", "--json")
    assert json.loads(out)["forward_per_token"] < plain["forward_per_token"]


def test_flops_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The readable flops table names the conventions and the time estimate."""
    code, out, _ = call(capsys, "flops", "gpt2", "--gpu", "a100-80gb", "--gpus", "8")
    assert code == 0
    assert "non-causal" in out and "training time on 8 × NVIDIA A100 SXM 80GB" in out


# ----------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (["memory", "gpt2", "--batch", "0"], "batch"),
        (["memory", "gpt2", "--batch", "abc"], "batch"),
        (["memory", "gpt2", "--seq", "-5"], "seq"),
        (["memory", "gpt2", "--dtype", "fp64"], "dtype"),
        (["memory", "gpt2", "--zero", "5"], "zero"),
        (["memory", "gpt2", "--gpus", "0"], "gpus"),
        (["memory", "gpt2", "--mode", "training", "--dtype", "int4"], "dtype"),
        (["memory", "gpt2", "--gpu", "h900"], "gpu"),
        (["memory", "no-such-model"], "preset"),
        (["memory"], "NAME"),
        (["flops", "gpt2", "--tokens", "1.5"], "tokens"),
        (["flops", "gpt2", "--mfu", "2"], "mfu"),
        (["flops", "gpt2", "--mfu", "nan"], "mfu"),
        (["flops", "gpt2", "--seq", "1e99"], "seq"),
    ],
)
def test_bad_values_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str], mentions: str) -> None:
    """Every bad value exits with status 2 and one line on stderr that names what is wrong."""
    code, out, err = call(capsys, *args)
    assert (2, "") == (code, out)
    assert 1 == len(err.strip().splitlines())
    assert mentions in err


# ------------------------------------------------------------------------------------- run settings
def test_defaults_write_no_query() -> None:
    """Default run settings add nothing to a share link."""
    assert {} == settings_to_query(RunSettings())


@pytest.mark.parametrize(
    "settings",
    [
        RunSettings(
            mode="training",
            dtype="fp16",
            batch=8,
            seq=4096,
            optimizer="adam8bit",
            zero=3,
            gpus=64,
            gpu="tpu-v5p",
            recompute="selective",
            flash=True,
            dropout=True,
            causal=True,
            tokens=1_400_000_000_000,
            mfu=0.55,
            tokens_per_second=12345.5,
        ),
        RunSettings(dtype="int4", kv_dtype="fp8", batch=32, seq=131072),
    ],
)
def test_query_round_trip(settings: RunSettings) -> None:
    """settings_from_query(settings_to_query(s)) gives s back, with no warnings, and writes only changed
    fields, each prefixed run_."""
    query = settings_to_query(settings)
    assert all(k.startswith("run_") for k in query)
    assert (settings, []) == settings_from_query(query)


def test_query_keys_never_clash_with_spec_fields() -> None:
    """The run_ prefix keeps run settings apart from Spec field names in one share link."""
    every = settings_to_query(RunSettings(mode="training", batch=2, seq=3, flash=True, gpus=2, zero=1))
    assert not set(every) & set(FIELDS)
    assert "run_batch" in every


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("run_batch", "0"),
        ("run_batch", "many"),
        ("run_seq", "-1"),
        ("run_dtype", "fp64"),
        ("run_zero", "4"),
        ("run_gpu", "h900"),
        ("run_flash", "maybe"),
        ("run_mfu", "1.5"),
        ("run_mfu", "nan"),
        ("run_tokens", "1.5"),
        ("run_mode", "x" * 1000),
    ],
)
def test_bad_query_values_keep_defaults_and_warn(key: str, value: str) -> None:
    """A bad value in a share link keeps the default and adds one warning naming the field."""
    settings, warnings = settings_from_query({key: value, "run_batch_extra": "ignored", "hidden_size": "64"})
    assert RunSettings() == settings
    assert 1 == len(warnings) and key in warnings[0]


def test_query_training_with_inference_dtype_falls_back() -> None:
    """A link asking for int4 training keeps training but uses bf16, with a warning."""
    settings, warnings = settings_from_query({"run_mode": "training", "run_dtype": "int4"})
    assert ("training", "bf16") == (settings.mode, settings.dtype)
    assert 1 == len(warnings) and "run_dtype" in warnings[0]


def test_quantized_weights_say_the_cache_stays_bf16(capsys: pytest.CaptureFixture[str]) -> None:
    """`memory llama-3-8b --dtype int4 --seq 4096 --json`: "auto" keeps a bf16 cache (2·32·8·128·4096·2 =
    536,870,912 bytes), and the note offers the fp8 cache beside it: 268,435,456 bytes, 0.268 GB; bf16 weights say
    nothing."""
    code, out, err = call(capsys, "memory", "llama-3-8b", "--dtype", "int4", "--seq", "4096", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (536_870_912, True) == (
        data["kv_cache"],
        "an fp8 cache (--kv-dtype fp8) is 0.268 GB" in data["kv_cache_note"],
    )
    code, out, err = call(capsys, "memory", "llama-3-8b", "--seq", "4096", "--json")
    assert "" == json.loads(out)["kv_cache_note"]


AS_STORED = "--dtype mxfp4 sizes it as stored"


@pytest.mark.parametrize(
    ("args", "note"),
    [
        ((), f"note: the checkpoint's quantization_config names mxfp4; {AS_STORED}\n"),
        (("--dtype", "mxfp4"), ""),
        (("--mode", "training"), ""),
    ],
)
def test_memory_says_when_the_checkpoint_stores_another_format(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], note: str
) -> None:
    """gpt-oss's config states MXFP4 experts (quantization_config): sized for inference in another format, `memory`
    says so on stderr (the JSON on stdout stays one object); in mxfp4, or for training, it says nothing."""
    code, _, err = call(capsys, "memory", "gpt-oss-20b", "--json", *args)
    assert (0, note) == (code, err)


def test_memory_warns_when_expert_parallelism_needs_more_gpus_than_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    """EP 8 on one GPU: the experts would need 8 GPUs of a stage the run does not have; `memory` warns naming EP on
    stderr, and says nothing for EP 4 over TP 4, nor for a model without experts."""
    _, _, beyond = call(capsys, "memory", "mixtral-8x7b", "--json", "--ep", "8")
    _, _, within = call(capsys, "memory", "mixtral-8x7b", "--json", "--ep", "4", "--tp", "4")
    _, _, dense = call(capsys, "memory", "llama-3-8b", "--json", "--ep", "8")
    assert (True, "", "") == (beyond.startswith("warning: EP = 8 spreads"), within, dense)
