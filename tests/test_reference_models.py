"""The engine against plain-torch reference models written from the papers and the seed notebooks."""

from __future__ import annotations

from functools import cache
from itertools import chain

import pytest
import torch_reference as ref
from torch import nn

from paramscope.engine.params import count
from paramscope.engine.spec import Spec
from paramscope.io import presets

#: nanoGPT's GPT with bias=False (karpathy/nanoGPT model.py, GPTConfig defaults), in ParamScope's vocabulary.
NANOGPT_SPEC = Spec(
    model_type="paramscope",
    vocab_size=50304,
    hidden_size=768,
    num_hidden_layers=12,
    num_attention_heads=12,
    intermediate_size=3072,
    attention_bias=False,
    mlp_bias=False,
    norm_type="layernorm",
    norm_bias=False,
    norms_per_layer=2,
    final_norm=True,
    position_embedding="learned",
    max_position_embeddings=1024,
    tie_word_embeddings=True,
)

#: case -> (reference builder, the spec's source: a preset name or a Spec)
CASES = {
    "toy-tied-embedding": (lambda: ref.TiedEmbeddingLM(256, 5), "toy-tied-embedding"),
    "toy-feedforward-lm": (lambda: ref.FeedForwardLM(256, 5, 16), "toy-feedforward-lm"),
    "toy-transformer-layer": (lambda: ref.BareBonesTransformerLayer(5, 5), "toy-transformer-layer"),
    "toy-transformer-lm": (lambda: ref.TransformerLM(256, 50, 5, 16), "toy-transformer-lm"),
    "hybrid-rnn-transformer": (
        lambda: ref.on_meta(ref.HybridRNNTransformer, 33278, 368, 4, 8, 4),
        "hybrid-rnn-transformer",
    ),
    "palm-540b": (lambda: ref.on_meta(ref.PaLM, 256000, 18432, 118, 48, 256, 73728), "palm-540b"),
    "transformer-base": (lambda: ref.on_meta(ref.OriginalTransformer, 37000, 512, 8, 2048), "transformer-base"),
    "transformer-big": (lambda: ref.on_meta(ref.OriginalTransformer, 37000, 1024, 16, 4096), "transformer-big"),
    "nanogpt-bias-false": (lambda: ref.on_meta(ref.NanoGPT, 50304, 1024, 12, 768, bias=False), NANOGPT_SPEC),
    "nanogpt-bias-true-is-gpt2": (lambda: ref.on_meta(ref.NanoGPT, 50257, 1024, 12, 768, bias=True), "gpt2"),
    "nanogpt-124m": (lambda: ref.on_meta(ref.NanoGPT, 50304, 1024, 12, 768, bias=True), "nanogpt-124m"),
}


@cache
def reference(case: str) -> nn.Module:
    return CASES[case][0]()


def spec_of(case: str) -> Spec:
    source = CASES[case][1]
    return presets.load(source) if isinstance(source, str) else source


def params_of(modules) -> int:
    """Distinct parameters of several modules together."""
    seen = {id(p): p for m in modules for p in m.parameters()}
    return sum(p.numel() for p in seen.values())


@pytest.mark.parametrize("case", list(CASES))
def test_total_matches_reference(case):
    """The engine's total equals the parameter count of the torch reference model."""
    assert ref.num_parameters(reference(case)) == count(spec_of(case)).count


@pytest.mark.parametrize("case", [c for c, (_, src) in CASES.items() if isinstance(src, str)])
def test_preset_total_is_the_reference_count(case):
    """The total a preset records is the count of its reference model."""
    assert ref.num_parameters(reference(case)) == presets.get(CASES[case][1]).expected_total


#: figures printed by the seed notebooks for these very modules
SEED_FIGURES = [
    ("toy-tied-embedding", 1_280),
    ("toy-feedforward-lm", 1_461),
    ("toy-transformer-layer", 200),
    ("toy-transformer-lm", 1_851),
    ("hybrid-rnn-transformer", 18_792_288),
    ("nanogpt-bias-true-is-gpt2", 124_439_808),
]


@pytest.mark.parametrize("case, figure", SEED_FIGURES)
def test_reference_reproduces_the_seed_figure(case, figure):
    """The reference modules are faithful: they give the figures their sources print."""
    assert figure == ref.num_parameters(reference(case))


@pytest.mark.parametrize(
    "case, low, high",
    [
        ("palm-540b", 540.35e9, 540.36e9),  # PaLM paper, Table 1: 540.35B
        ("transformer-base", 60e6, 66e6),  # Vaswani et al., Table 3: 65M (vocabulary about 37000)
        ("transformer-big", 210e6, 216e6),  # 213M
    ],
)
def test_reference_is_close_to_the_paper(case, low, high):
    """The paper-described references land on the papers' reported sizes."""
    assert low <= ref.num_parameters(reference(case)) <= high


def _blocks(model, attr):
    return [getattr(b, attr) for b in model]


#: (case, engine path, the torch modules holding exactly those parameters)
COMPONENTS = [
    ("toy-tied-embedding", "embedding/token", lambda m: [m.word_to_embedding]),
    ("toy-feedforward-lm", "layers/mlp", lambda m: [m.model]),
    ("toy-transformer-layer", "layers/attention", lambda m: [m.self_attention]),
    (
        "toy-transformer-layer",
        "layers/attention/qkv",
        lambda m: [m.self_attention.get_query, m.self_attention.get_key, m.self_attention.get_value],
    ),
    ("toy-transformer-layer", "layers/attention/o", lambda m: [m.self_attention.to_output]),
    ("toy-transformer-layer", "layers/norm", lambda m: [m.norm_after_attn, m.norm_after_mlp]),
    ("toy-transformer-lm", "embedding/position", lambda m: [m.pos_to_embedding]),
    ("toy-transformer-lm", "layers/mlp", lambda m: [m.model.mlp]),
    ("hybrid-rnn-transformer", "embedding/token", lambda m: [m.wte]),
    ("hybrid-rnn-transformer", "layers/attention/qkv", lambda m: _blocks(m.blocks, "c_attn")),
    ("hybrid-rnn-transformer", "layers/attention/o", lambda m: _blocks(m.blocks, "c_proj")),
    ("hybrid-rnn-transformer", "layers/recurrent", lambda m: _blocks(m.blocks, "rnns")),
    (
        "hybrid-rnn-transformer",
        "layers/norm",
        lambda m: _blocks(m.blocks, "ln_attn") + _blocks(m.blocks, "ln_attn2") + _blocks(m.blocks, "ln_mlp"),
    ),
    ("palm-540b", "embedding/token", lambda m: [m.embed]),
    ("palm-540b", "layers/attention/qkv", lambda m: _blocks(m.blocks, "q") + _blocks(m.blocks, "kv")),
    (
        "palm-540b",
        "layers/mlp",
        lambda m: _blocks(m.blocks, "w_gate") + _blocks(m.blocks, "w_up") + _blocks(m.blocks, "w_down"),
    ),
    ("palm-540b", "layers/norm", lambda m: _blocks(m.blocks, "norm")),
    ("transformer-base", "embedding/token", lambda m: [m.embed]),
    ("transformer-base", "encoder/layers/attention", lambda m: _blocks(m.encoder, "self_attn")),
    ("transformer-base", "encoder/layers/mlp", lambda m: _blocks(m.encoder, "linear1") + _blocks(m.encoder, "linear2")),
    ("transformer-base", "decoder/layers/attention", lambda m: _blocks(m.decoder, "self_attn")),
    ("transformer-base", "decoder/layers/cross_attention", lambda m: _blocks(m.decoder, "multihead_attn")),
    (
        "transformer-base",
        "decoder/layers/norm",
        lambda m: list(chain.from_iterable((b.norm1, b.norm2, b.norm3) for b in m.decoder)),
    ),
    ("nanogpt-bias-false", "embedding/position", lambda m: [m.wpe]),
    ("nanogpt-bias-false", "layers/attention/qkv", lambda m: _blocks(m.h, "c_attn")),
    ("nanogpt-bias-false", "layers/norm", lambda m: _blocks(m.h, "ln_1") + _blocks(m.h, "ln_2")),
    ("nanogpt-bias-false", "final_norm", lambda m: [m.ln_f]),
]


@pytest.mark.parametrize("case, path, modules", COMPONENTS, ids=[f"{c}:{p}" for c, p, _ in COMPONENTS])
def test_component_matches_reference_submodules(case, path, modules):
    """A component's count in the tree equals the parameters of the torch submodules that hold it."""
    assert params_of(modules(reference(case))) == count(spec_of(case)).get(path)


@pytest.mark.parametrize("case", [c for c in CASES if c != "toy-transformer-layer"])
def test_tied_head_is_the_embedding(case):
    """Each reference ties its head to the token embedding, and the engine counts that head as zero."""
    model = reference(case)
    head = next(mod for name, mod in model.named_modules() if name in ("lm_head", "generator"))
    embedding = next(mod for name, mod in model.named_modules() if name in ("wte", "embed", "word_to_embedding"))
    assert head.weight is embedding.weight
    assert 0 == count(spec_of(case)).get("head/lm")
