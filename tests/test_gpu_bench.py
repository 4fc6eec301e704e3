"""The hand-written decoder that ``bench/gpu_speed.py`` times on a GPU, checked here on the CPU: it holds exactly the
parameters transformers builds, and its routed experts compute what transformers' Qwen3-MoE block computes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from gpu_speed import Decoder  # noqa: E402
from hf_oracle import hf_count  # noqa: E402


@pytest.mark.parametrize("name", ["llama-3-8b", "mistral-7b", "qwen3-8b", "qwen3-30b-a3b"])
def test_decoder_holds_the_models_parameters(name: str) -> None:
    """Built on the meta device from the preset's config.json, the decoder has as many parameters as transformers'
    own class (the bench also checks it against ParamScope's count before timing)."""
    config = json.loads((ROOT / "presets" / f"{name}.json").read_text())["config"]
    assert hf_count(config) == Decoder(config, 1, 16, "meta").params()


def test_routed_experts_equal_transformers() -> None:
    """Five tokens through the decoder's routed experts and through transformers' ``Qwen3MoeSparseMoeBlock`` with the
    same weights (8 experts, 2 per token, bf16): the same output, bit for bit."""
    from transformers import Qwen3MoeConfig
    from transformers.models.qwen3_moe.modeling_qwen3_moe import Qwen3MoeSparseMoeBlock

    torch.manual_seed(0)
    config = Qwen3MoeConfig(
        hidden_size=64, moe_intermediate_size=32, num_experts=8, num_experts_per_tok=2, norm_topk_prob=True
    )
    block = Qwen3MoeSparseMoeBlock(config)
    for p in block.parameters():
        torch.nn.init.normal_(p, std=0.2)
    block = block.to(torch.bfloat16)
    decoder = Decoder(
        {"model_type": "qwen3_moe", "hidden_size": 64, "vocab_size": 8, "num_hidden_layers": 0}
        | {"num_attention_heads": 4, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32},
        1,
        1,
        "cpu",
    )
    layer = {
        "router": block.gate.weight.data,
        "experts_gate_up": block.experts.gate_up_proj.data,
        "experts_down": block.experts.down_proj.data,
    }
    tokens = torch.randn(5, 64, dtype=torch.bfloat16)
    with torch.no_grad():
        expected = block(tokens.view(5, 1, 64))
    expected = expected[0] if isinstance(expected, tuple) else expected
    assert torch.equal(expected.view(5, 64), decoder.routed(layer, tokens))


def test_peak_anatomy_finds_the_live_tensors_at_the_peak() -> None:
    """``bench/peak_anatomy.py`` replays the CUDA allocator's record: on a hand-written record (a 100-byte tensor from
    line 1, a 300-byte one from line 2 freed again, then a 50-byte one from line 1), the peak is 400 bytes holding
    lines 1 and 2, the end of the forward pass (before the last event) holds line 1 alone, and torch's own frames are
    skipped to reach the model's line."""
    from peak_anatomy import replay

    torch_frame = {"filename": "/x/torch/nn/functional.py", "line": 9, "name": "linear"}

    def frame(line: int) -> list[dict]:
        return [torch_frame, {"filename": "/x/transformers/models/m/modeling_m.py", "line": line, "name": "forward"}]

    events = [
        {"action": "alloc", "addr": 1, "size": 100, "frames": frame(1)},
        {"action": "alloc", "addr": 2, "size": 300, "frames": frame(2)},
        {"action": "free_requested", "addr": 2, "size": 300},
        {"action": "free_completed", "addr": 2, "size": 300},
        {"action": "alloc", "addr": 3, "size": 50, "frames": frame(1)},
    ]
    moments = replay(events, {"end_of_forward": 4})
    assert moments == {
        "end_of_forward": {"bytes": 100, "sites": [["m/modeling_m.py:1 forward", 1, 100]]},
        "peak": {"bytes": 400, "sites": [["m/modeling_m.py:2 forward", 1, 300], ["m/modeling_m.py:1 forward", 1, 100]]},
    }


def test_the_fake_replay_counts_live_storages_as_cudas_allocator() -> None:
    """``bench/fake_peaks.py``'s counter on a hand-written sequence of fake tensors: each new storage rounded up to
    512 bytes while it lives, views and pre-existing storages not counted, the most at once kept: a 1,000-byte input
    held, a 1,000-byte and a 4,000-byte result (1,024 + 4,096 live), the first freed, a view, then a 600-byte one
    (4,096 + 1,024): peak 5,120, 1,024 left when the last is dropped."""
    from fake_peaks import LiveBytes
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(250)  # 1,000 bytes, before the count
        live = LiveBytes()
        live.hold([x])
        with live:
            a = x * 2
            b = torch.empty(1000)
            del a
            view = b[:10]
            c = torch.empty(150)
            assert (live.now, live.peak) == (4096 + 1024, 1024 + 4096)
            del b, view
    assert (live.now, live.peak) == (1024, 5120)
    del c


def test_a_training_step_replayed_on_fake_tensors_equals_the_h100s() -> None:
    """``bench/fake_peaks.py --step`` on SmolLM2-360M's AMP step at 8 × 2,048 without checkpointing, measured on an
    H100 (docs/measurements/h100-peaks-2026-11-26.json: its peak less what the step starts with): within 0.5 %,
    with CUDA's flash attention laying its output out token-major (1.027 of it while the replay's attention output
    was head-major, so that transformers' transpose back copied it)."""
    from fake_peaks import measured_steps, replay_step

    case = next(
        c
        for c in measured_steps()
        if (c["recipe"], c["model"], c["batch"], c["seq"], c["checkpointing"])
        == ("training-amp", "smollm2-360m", 8, 2048, False)
    )
    replayed = replay_step("training-amp", "smollm2-360m", 8, 2048, False)["peak"]
    measured = case["peak"] - case["held_before_step"]
    assert abs(replayed / measured - 1) < 0.005, replayed / measured
