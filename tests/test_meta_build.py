"""The long tail: model types without formulas, counted by building the transformers class on the meta device."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hf_oracle import hf_class

from paramscope.engine.tree import Node
from paramscope.families.meta_build import MetaResult, available, build_tree

needs_hf = pytest.mark.skipif(not available(), reason="torch and transformers not installed")
hf = [needs_hf]

V, H = 1000, 64  # vocabulary and width of the small configs below
DECODER = {"hidden_size": H, "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2}
DECODER |= {"num_hidden_layers": 2, "vocab_size": V}

CASES: dict[str, dict[str, Any]] = {
    "olmo2": {"architectures": ["Olmo2ForCausalLM"], **DECODER, "tie_word_embeddings": False},
    "qwen3_moe": {
        "architectures": ["Qwen3MoeForCausalLM"],
        **DECODER,
        "head_dim": 16,
        "moe_intermediate_size": 32,
        "num_experts": 4,
        "num_experts_per_tok": 2,
    },
    "gemma3_text": {"architectures": ["Gemma3ForCausalLM"], **DECODER, "head_dim": 16},
    "granite": {"architectures": ["GraniteForCausalLM"], **DECODER},
    "mamba": {
        "architectures": ["MambaForCausalLM"],
        "hidden_size": H,
        "state_size": 8,
        "num_hidden_layers": 2,
        "vocab_size": V,
    },
    "rwkv": {
        "architectures": ["RwkvForCausalLM"],
        "hidden_size": H,
        "attention_hidden_size": H,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "vocab_size": V,
        "context_length": 64,
    },
    "modernbert": {
        "architectures": ["ModernBertForMaskedLM"],
        "hidden_size": H,
        "intermediate_size": 128,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "vocab_size": V,
        "pad_token_id": 0,
    },
    "whisper": {
        "architectures": ["WhisperForConditionalGeneration"],
        "d_model": H,
        "encoder_layers": 2,
        "decoder_layers": 2,
        "encoder_attention_heads": 4,
        "decoder_attention_heads": 4,
        "encoder_ffn_dim": 128,
        "decoder_ffn_dim": 128,
        "num_mel_bins": 16,
        "max_source_positions": 32,
        "max_target_positions": 32,
        "vocab_size": V,
        "pad_token_id": 0,
        "decoder_start_token_id": 1,
    },
    "gpt_oss": {
        "architectures": ["GptOssForCausalLM"],
        **DECODER,
        "head_dim": 16,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
    },
    "deepseek_v3": {
        "architectures": ["DeepseekV3ForCausalLM"],
        **DECODER,
        "moe_intermediate_size": 32,
        "n_routed_experts": 4,
        "n_shared_experts": 1,
        "num_experts_per_tok": 2,
        "n_group": 1,
        "topk_group": 1,
        "first_k_dense_replace": 1,
        "kv_lora_rank": 16,
        "q_lora_rank": 24,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
    },
    "wav2vec2": {  # a weight-normed positional convolution: parameters under parametrizations/
        "architectures": ["Wav2Vec2ForCTC"],
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 64,
        "conv_dim": [16, 16],
        "conv_stride": [5, 2],
        "conv_kernel": [10, 3],
        "num_conv_pos_embeddings": 16,
        "num_conv_pos_embedding_groups": 4,
        "vocab_size": 32,
    },
    "switch_transformers": {  # experts as a ModuleDict of expert_0, expert_1...
        "architectures": ["SwitchTransformersForConditionalGeneration"],
        "d_model": 32,
        "d_ff": 64,
        "d_kv": 8,
        "num_heads": 4,
        "num_layers": 2,
        "num_decoder_layers": 2,
        "num_experts": 4,
        "encoder_sparse_step": 2,
        "decoder_sparse_step": 2,
        "vocab_size": 100,
    },
    "zamba2": {  # one transformer block shared by the hybrid layers
        "architectures": ["Zamba2ForCausalLM"],
        **DECODER,
        "num_hidden_layers": 6,
        "num_key_value_heads": 4,
        "mamba_d_state": 8,
        "mamba_headdim": 8,
        "n_mamba_heads": 16,
        "num_mem_blocks": 1,
        "hybrid_layer_ids": [2, 5],
        "layers_block_type": ["mamba", "mamba", "hybrid", "mamba", "mamba", "hybrid"],
        "use_shared_attention_adapter": False,
    },
}


def config(model_type: str, **overrides: Any) -> dict[str, Any]:
    return {"model_type": model_type, **CASES[model_type], **overrides}


def oracle(cfg: dict[str, Any]) -> int:
    """The reference: the class named by architectures[0], built directly on meta, its parameters summed."""
    import torch
    import transformers

    rest = dict(cfg)
    model_type = rest.pop("model_type")
    cls = getattr(transformers, rest["architectures"][0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_config = transformers.AutoConfig.for_model(model_type, **rest)
        with torch.device("meta"):
            model = cls(hf_config)
    return sum(p.numel() for p in model.parameters())


def node(tree: Node, path: str) -> Node:
    """The node at ``path`` (a test failure when there is none)."""
    found = tree.find(path)
    assert found is not None, f"no {path} in the tree"
    return found


def unbalanced(tree: Node) -> list[str]:
    """Paths of groups whose count is not the sum of their children's."""
    return [n.path for n in tree.walk() if n.children and n.count != sum(c.count for c in n.children)]


@needs_hf
@pytest.mark.parametrize("model_type", sorted(CASES))
def test_total_matches_transformers(model_type: str) -> None:
    """The total equals the parameters of the class built directly; the tree's root holds the total and every
    group is the sum of its children."""
    cfg = config(model_type)
    result = build_tree(cfg)
    expected = (oracle(cfg), oracle(cfg), CASES[model_type]["architectures"][0], model_type, [])
    actual = (result.summary.total, result.tree.count, result.class_name, result.model_type, unbalanced(result.tree))
    assert expected == actual


@needs_hf
@pytest.mark.parametrize(
    ("model_type", "tied", "expected_embedding"),
    [
        ("olmo2", False, 2 * V * H),  # token table + untied LM head
        ("gemma3_text", True, V * H),  # tied: counted once
        ("granite", False, 2 * V * H),
    ],
)
def test_embedding_counts_input_and_untied_output_tables(model_type: str, tied: bool, expected_embedding: int) -> None:
    """Embedding parameters are the nn.Embedding tables plus the LM head when it is not tied to them."""
    result = build_tree(config(model_type, tie_word_embeddings=tied))
    s = result.summary
    assert (expected_embedding, s.total - expected_embedding, s.total) == (s.embedding, s.non_embedding, s.active)


@needs_hf
def test_tied_head_appears_once() -> None:
    """A tied LM head is a zero-count leaf whose note names the table it shares."""
    result = build_tree(config("gemma3_text", tie_word_embeddings=True))
    head = node(result.tree, "lm_head/weight")
    expected = (0, f"{V}×{H}", "tied to embed_tokens/weight: counted once", V * H)
    assert expected == (head.count, head.shape, head.note, result.tree.get("embed_tokens/weight"))


@needs_hf
def test_shared_module_counted_once() -> None:
    """A block shared by several layers is counted where it first appears; later uses are zero with a note."""
    tree = build_tree(config("zamba2")).tree
    shared, again = node(tree, "layers/2/shared_transformer"), node(tree, "layers/5/shared_transformer")
    expected = (0, "tied to layers/2/shared_transformer: counted once", True)
    assert expected == (again.count, again.note, shared.count > 0)


@needs_hf
def test_numbered_module_dict_folds() -> None:
    """Experts kept as a ModuleDict of expert_0, expert_1... fold like a ModuleList."""
    experts = node(build_tree(config("switch_transformers")).tree, "encoder/block/1/layer/1/mlp/experts")
    assert (4, "4 experts", ["wi", "wo"]) == (experts.repeat, experts.repeat_name, [c.name for c in experts.children])


@needs_hf
@pytest.mark.parametrize("model_type", ["olmo2", "granite", "qwen3_moe", "mamba"])
def test_identical_layers_fold_into_one_node(model_type: str) -> None:
    """2 and 6 layers give trees of the same shape; the layer node repeats once per layer."""
    small, large = (build_tree(config(model_type, num_hidden_layers=n)).tree for n in (2, 6))
    expected = (len(list(small.walk())), 2, 6, "6 layers")
    big = node(large, "layers")
    actual = (len(list(large.walk())), node(small, "layers").repeat, big.repeat, big.repeat_name)
    assert expected == actual


@needs_hf
def test_leaves_are_parameters_with_shapes() -> None:
    """Each leaf is one parameter: its path ends in the parameter name and it has a shape; the `model/` wrapper
    is dropped; formulas are empty."""
    tree = build_tree(config("olmo2")).tree
    q = node(tree, "layers/self_attn/q_proj/weight")
    expected = (2 * H * H, f"{H}×{H}", 2, [], {""})
    actual = (
        q.count,
        q.shape,
        q.repeat,
        [n.path for n in tree.leaves() if not n.shape or n.path.startswith("model/")],
        {n.formula for n in tree.walk()},
    )
    assert expected == actual


@needs_hf
@pytest.mark.parametrize(
    ("model_type", "overrides", "expected"),
    [
        ("qwen3_moe", {"num_hidden_layers": 3, "mlp_only_layers": [0]}, [("layers/0", 1), ("layers/1-2", 2)]),
        ("deepseek_v3", {"num_hidden_layers": 5, "first_k_dense_replace": 2}, [("layers/0-1", 2), ("layers/2-4", 3)]),
    ],
)
def test_differing_layers_fold_into_runs(model_type: str, overrides: dict[str, Any], expected: list) -> None:
    """Dense and MoE layers fold into runs of consecutive identical layers."""
    layers = node(build_tree(config(model_type, **overrides)).tree, "layers")
    assert expected == [(c.path, c.repeat) for c in layers.children]


@needs_hf
@pytest.mark.parametrize(
    ("model_type", "expected_class"),
    [("olmo2", "Olmo2ForCausalLM"), ("whisper", "WhisperForConditionalGeneration"), ("modernbert", "ModernBertModel")],
)
def test_class_without_architectures(model_type: str, expected_class: str) -> None:
    """Without architectures: the causal-LM class, the whole encoder-decoder, else the base model."""
    cfg = config(model_type)
    del cfg["architectures"]
    assert expected_class == build_tree(cfg).class_name


@needs_hf
@pytest.mark.parametrize(
    ("model_type", "expected_class"),
    [("musicgen", "MusicgenForConditionalGeneration"), ("colpali", "ColPaliForRetrieval")],
)
def test_a_type_only_another_tasks_mapping_holds_is_built(model_type: str, expected_class: str) -> None:
    """A type whose class is in neither the causal-LM, the image-text nor the base mapping (MusicGen's text-to-waveform
    model, ColPali's retrieval one) is built from the first other task's mapping that takes its config (they were
    refused: "transformers has no model class"), to the count of that class built on meta."""
    import torch
    import transformers

    cfg = transformers.CONFIG_MAPPING[model_type]()
    with torch.device("meta"):
        expected = sum(p.numel() for p in getattr(transformers, expected_class)._from_config(cfg).parameters())
    result = build_tree({"model_type": model_type})
    assert (expected_class, expected) == (result.class_name, result.tree.count)


@needs_hf
@pytest.mark.parametrize(
    ("model_type", "expected"),
    [("qwen3_moe", True), ("gpt_oss", True), ("olmo2", False), ("mamba", False)],
)
def test_expert_note(model_type: str, expected: bool) -> None:
    """Models with experts say that active parameters are not computed; every result says how it was counted."""
    import transformers

    result: MetaResult = build_tree(config(model_type))
    version = f"counted by transformers {transformers.__version__} on the meta device, no formulas"
    assert (expected, version) == (any("active parameters" in n for n in result.notes), result.notes[0])


@pytest.mark.parametrize(
    ("cfg", "key"),
    [
        (["model_type", "llama"], "config"),
        ("llama", "config"),
        ({"hidden_size": 64}, "model_type"),
        ({"model_type": 7}, "model_type"),
        pytest.param({"model_type": "no_such_model"}, "model_type", marks=hf),
        pytest.param({"model_type": "llama", "hidden_size": 10**9}, "hidden_size", marks=hf),
        pytest.param({"model_type": "llama", "hidden_size": 1e12}, "hidden_size", marks=hf),
        pytest.param({"model_type": "llama", "num_hidden_layers": 100_000}, "num_hidden_layers", marks=hf),
        pytest.param({"model_type": "t5", "num_layers": 2_001}, "num_layers", marks=hf),
        pytest.param(  # three towers of 2,000 layers took 15 s: 2,000 in all
            {"model_type": "idefics2", **{k: {"num_hidden_layers": 1_001} for k in ("text_config", "vision_config")}},
            "vision_config.num_hidden_layers",
            marks=hf,
        ),
        pytest.param(  # built on meta in a second, 2.6e16 parameters: the formulas' ceiling applies
            {"model_type": "biogpt", "hidden_size": 10**8, "num_hidden_layers": 2, "intermediate_size": 10**8},
            "config",
            marks=hf,
        ),
        pytest.param({"model_type": "llava", "text_config": {"vocab_size": 10**9}}, "text_config.vocab_size", marks=hf),
        pytest.param({"model_type": "llama", "eos_token_id": [1, 10**12]}, "eos_token_id[1]", marks=hf),
        pytest.param({"model_type": "mixtral", "num_local_experts": 10**6}, "num_local_experts", marks=hf),
        pytest.param(
            {"model_type": "mixtral", "num_local_experts": 4_000, "num_hidden_layers": 100},
            "num_local_experts",
            marks=hf,
        ),
    ],
)
def test_refusals_name_the_key(cfg: object, key: str) -> None:
    """Bad input is a ValueError whose message begins with the config key at fault, before anything is built."""
    with pytest.raises(ValueError) as info:
        build_tree(cfg)  # type: ignore[arg-type]
    assert key == str(info.value).split(": ", 1)[0]


@needs_hf
def test_real_configs_pass_the_size_limits() -> None:
    """Values that size nothing are not bounded as sizes: Gemma 3n's audio config clips gradients at 1e10, and the
    whole config reaches transformers (which then needs timm for its MobileNet vision tower, and says so)."""
    from transformers import Gemma3nConfig

    config = json.loads(Gemma3nConfig().to_json_string())  # as a config.json holds it
    try:
        build_tree({**config, "architectures": ["Gemma3nForConditionalGeneration"]})
    except ValueError as error:
        assert "timm" in str(error)


@needs_hf
def test_build_time_keys_are_dropped() -> None:
    """dtype, kernels and quantization settings do not change the count (and cannot ask for a kernel)."""
    cfg = config("olmo2")
    hostile = {
        **cfg,
        "torch_dtype": "float8_e4m3fn",
        "attn_implementation": "flash_attention_2",
        "_attn_implementation": "kernels-community/flash-attn",
        "quantization_config": {"quant_method": "fp8"},
    }
    assert oracle(cfg) == build_tree(hostile).summary.total


def test_import_does_not_load_torch() -> None:
    """The module imports without torch or transformers: they load only when a model is built."""
    code = "import sys, paramscope.families.meta_build; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "False False" == out.stdout.strip()


#: Gemma 3n, small: sliding and full layers in turn, the last two reusing keys and values.
GEMMA3N_SMALL = {"vocab_size": 101, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 6}
GEMMA3N_SMALL |= {"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "num_kv_shared_layers": 2}
GEMMA3N_SMALL |= {"layer_types": ["sliding_attention", "full_attention"] * 3, "hidden_size_per_layer_input": 4}
GEMMA3N_SMALL |= {"vocab_size_per_layer_input": 50, "altup_num_inputs": 3, "laurel_rank": 5, "pad_token_id": 0}

#: Configs a row cannot describe, each with the key its reason names; transformers builds them (``architectures``
#: names the class).
BEYOND = {
    "gpt2 with cross-attention": (
        {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 32, "n_layer": 2, "n_head": 4}
        | {"vocab_size": 101, "add_cross_attention": True},
        "add_cross_attention",
    ),
    "xglm with cross-attention": (
        {"model_type": "xglm", "architectures": ["XGLMForCausalLM"], "d_model": 32, "num_layers": 2}
        | {"attention_heads": 4, "ffn_dim": 48, "vocab_size": 101, "add_cross_attention": True},
        "add_cross_attention",
    ),
    "bert decoder with cross-attention": (
        {"model_type": "bert", "architectures": ["BertLMHeadModel"], "hidden_size": 32, "num_hidden_layers": 2}
        | {"num_attention_heads": 4, "intermediate_size": 40, "vocab_size": 101}
        | {"is_decoder": True, "add_cross_attention": True},
        "add_cross_attention",
    ),
    "bart's decoder alone": (
        {"model_type": "bart", "architectures": ["BartForCausalLM"], "d_model": 32, "encoder_layers": 2}
        | {"decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4, "vocab_size": 101}
        | {"encoder_ffn_dim": 48, "decoder_ffn_dim": 48, "max_position_embeddings": 64},
        "architectures",
    ),
    "doge with its cross-domain experts": (
        {"model_type": "doge", "architectures": ["DogeForCausalLM"], "is_moe": True, "num_hidden_layers": 2}
        | {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 64}
        | {"num_experts": 16, "num_experts_per_tok": 4, "vocab_size": 100},
        "is_moe",
    ),
    "laguna layers of their own head counts": (
        {"model_type": "laguna", "architectures": ["LagunaForCausalLM"], "num_hidden_layers": 2, "hidden_size": 32}
        | {"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 48}
        | {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8, "vocab_size": 101}
        | {"num_attention_heads_per_layer": [4, 8]},
        "num_attention_heads_per_layer",
    ),
    "mellum sparse layers without experts": (
        {"model_type": "mellum", "architectures": ["MellumForCausalLM"], "num_local_experts": 0}
        | {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2}
        | {"head_dim": 8, "vocab_size": 101, "pad_token_id": 0},
        "num_local_experts",
    ),
    "glm-5 layers sharing an indexer": (
        {"model_type": "glm_moe_dsa", "architectures": ["GlmMoeDsaForCausalLM"], "num_hidden_layers": 4}
        | {"hidden_size": 32, "num_attention_heads": 4, "intermediate_size": 48, "moe_intermediate_size": 8}
        | {"n_routed_experts": 4, "num_experts_per_tok": 2, "q_lora_rank": 12, "kv_lora_rank": 8}
        | {"qk_nope_head_dim": 4, "qk_rope_head_dim": 2, "v_head_dim": 4, "index_n_heads": 2, "index_head_dim": 4}
        | {"vocab_size": 101, "index_topk_pattern": ["full", "shared", "full", "full"]},
        "index_topk_pattern",
    ),
    "recurrentgemma with an MLP of width 0": (
        {"model_type": "recurrent_gemma", "architectures": ["RecurrentGemmaForCausalLM"], "hidden_size": 32}
        | {"num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 1, "vocab_size": 101},
        "intermediate_size",
    ),
    "zamba attention wider than its shared block's input": (
        {"model_type": "zamba", "architectures": ["ZambaForCausalLM"], "num_hidden_layers": 8, "hidden_size": 32}
        | {"num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 48, "vocab_size": 101}
        | {"attention_hidden_size": 48},
        "attention_hidden_size",
    ),
    "xlstm with a token table narrower than its blocks": (
        {"model_type": "xlstm", "architectures": ["xLSTMForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2}
        | {"num_heads": 4, "vocab_size": 101, "embedding_dim": 32},
        "embedding_dim",
    ),
    "xlstm with more blocks than num_hidden_layers": (
        {"model_type": "xlstm", "architectures": ["xLSTMForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2}
        | {"num_heads": 4, "vocab_size": 101, "num_blocks": 3},
        "num_blocks",
    ),
    "xlstm with heads that do not divide its widths": (
        {"model_type": "xlstm", "architectures": ["xLSTMForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2}
        | {"num_heads": 3, "vocab_size": 101},
        "num_heads",
    ),
    "xlstm with queries and keys of width 0": (
        {"model_type": "xlstm", "architectures": ["xLSTMModel"], "hidden_size": 64, "num_hidden_layers": 2}
        | {"num_heads": 4, "vocab_size": 101, "qk_dim_factor": 0.0},
        "qk_dim_factor",
    ),
    "xlstm with a feed-forward block of width 0": (
        {"model_type": "xlstm", "architectures": ["xLSTMForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2}
        | {"num_heads": 4, "vocab_size": 101, "ffn_proj_factor": 0.0, "use_bias": True},
        "ffn_proj_factor",
    ),
    # Gemma 4's audio tower where transformers builds what its forward cannot run: heads narrower than the width the
    # output projection reads, a convolution of no taps, blocks of no frames
    "gemma4 audio heads not dividing the width": (
        {"model_type": "gemma4_audio", "architectures": ["Gemma4AudioModel"], "hidden_size": 16}
        | {"num_hidden_layers": 2, "num_attention_heads": 3, "subsampling_conv_channels": [8, 4]},
        "num_attention_heads",
    ),
    "gemma4 audio convolution of no taps": (
        {"model_type": "gemma4_audio", "architectures": ["Gemma4AudioModel"], "hidden_size": 16}
        | {"num_hidden_layers": 2, "num_attention_heads": 2, "conv_kernel_size": 0},
        "conv_kernel_size",
    ),
    "gemma4 audio blocks of no frames": (
        {"model_type": "gemma4_audio", "architectures": ["Gemma4AudioModel"], "hidden_size": 16}
        | {"num_hidden_layers": 1, "num_attention_heads": 2, "attention_chunk_size": 0},
        "attention_chunk_size",
    ),
    # Gemma 3n's audio encoder, the same: and a projection reading more channels than the convolutions give, and
    # frequency bins the convolutions leave none of
    "gemma3n audio heads not dividing the width": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 2, "conf_num_attention_heads": 3, "sscp_conv_channel_size": [8, 4]},
        "conf_num_attention_heads",
    ),
    "gemma3n audio convolution of no taps": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "conf_conv_kernel_size": 0},
        "conf_conv_kernel_size",
    ),
    "gemma3n audio blocks of no frames": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "conf_attention_chunk_size": 0},
        "conf_attention_chunk_size",
    ),
    "gemma3n audio projection reading a third channel count": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "sscp_conv_channel_size": [8, 4, 6]},
        "sscp_conv_channel_size",
    ),
    "gemma3n audio with no frequency bins left": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "input_feat_size": 0},
        "input_feat_size",
    ),
    "gemma3n audio subsampling convolution of no taps": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "sscp_conv_kernel_size": [[3, 0], [3, 3]]},
        "sscp_conv_kernel_size",
    ),
    "gemma3n audio subsampling time stride of 0": (
        {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 16}
        | {"conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "sscp_conv_stride_size": [[2, 2], [0, 2]]},
        "sscp_conv_stride_size",
    ),
    "dinov3 with a value bias unlike the query's": (
        {"model_type": "dinov3_vit", "architectures": ["DINOv3ViTModel"], "hidden_size": 32, "num_hidden_layers": 2}
        | {"num_attention_heads": 4, "intermediate_size": 48, "value_bias": False},
        "value_bias",
    ),
    "gemma3n with layers of different MLP widths": (
        {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"], **GEMMA3N_SMALL}
        | {"intermediate_size": [48, 40] * 3},
        "intermediate_size",
    ),
    "gemma3n with more layers sharing keys and values than it has": (
        {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"], **GEMMA3N_SMALL}
        | {"layer_types": None, "num_kv_shared_layers": 7},
        "num_kv_shared_layers",
    ),
    "gemma3n without an AltUp stream": (
        {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"], **GEMMA3N_SMALL}
        | {"altup_num_inputs": 0},
        "altup_num_inputs",
    ),
    "gemma3n with per-layer inputs of width 0": (
        {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"], **GEMMA3N_SMALL}
        | {"hidden_size_per_layer_input": 0},
        "hidden_size_per_layer_input",
    ),
    "dinov3 with a key bias alone": (
        {"model_type": "dinov3_vit", "architectures": ["DINOv3ViTModel"], "hidden_size": 32, "num_hidden_layers": 2}
        | {"num_attention_heads": 4, "intermediate_size": 48, "query_bias": False, "value_bias": False}
        | {"key_bias": True},
        "key_bias",
    ),
}


@needs_hf
@pytest.mark.parametrize("name", sorted(BEYOND))
def test_configs_beyond_their_row_are_counted_by_transformers(name: str) -> None:
    """Cross-attention added to a decoder, sparse layers with no experts, GLM-5 layers reusing an indexer: no row
    describes them, so transformers counts them (exactly, on the meta device), the key named first among the notes."""
    import torch
    import transformers

    from paramscope.model import Model

    config, key = BEYOND[name]
    kwargs = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    with torch.device("meta"):
        built = getattr(transformers, config["architectures"][0])(
            transformers.AutoConfig.for_model(config["model_type"], **kwargs)
        )
    model = Model.from_config(config)
    assert (False, sum(p.numel() for p in built.parameters())) == (model.has_formulas, model.summary.total)
    assert model.notes[0].startswith(f"no formulas: {key}:")


@needs_hf
def test_a_config_its_row_cannot_describe_is_counted_by_transformers() -> None:
    """An unbalanced T5Gemma (a narrower decoder) has no formulas, but it is still counted exactly: by
    transformers on the meta device, with the reason first among the notes."""
    import torch
    from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration

    from paramscope.model import Model

    stack = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, vocab_size=100)
    config = {"model_type": "t5gemma", "encoder": stack, "decoder": stack | {"hidden_size": 16}}
    with torch.device("meta"):
        hf = T5GemmaForConditionalGeneration(T5GemmaConfig(encoder=config["encoder"], decoder=config["decoder"]))
    model = Model.from_config(config)
    assert (False, sum(p.numel() for p in hf.parameters())) == (model.has_formulas, model.summary.total)
    assert model.notes[0].startswith("no formulas: decoder.hidden_size: 16 differs from the encoder's 32")


@needs_hf
@pytest.mark.parametrize(
    "model_type, class_name, extra",
    [
        ("bert", "BertForSequenceClassification", {"num_labels": 3}),
        ("roberta", "RobertaForTokenClassification", {"num_labels": 9}),
        ("nomic_bert", "NomicBertForSequenceClassification", {}),
        ("llama", "LlamaForSequenceClassification", {"num_labels": 1}),
    ],
)
def test_a_head_no_row_describes_is_counted_by_its_class(model_type: str, class_name: str, extra: dict) -> None:
    """A checkpoint of a type with a row whose architectures name a head the row does not describe (a sentiment or
    reranking classifier) is counted by building that class on meta, saying why there are no formulas; it was
    refused."""
    import torch
    import transformers

    from paramscope.model import Model

    small = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48)
    config = {"model_type": model_type, "architectures": [class_name], **small, **extra}
    with torch.device("meta"):
        built = getattr(transformers, class_name)(transformers.AutoConfig.for_model(model_type, **small, **extra))
    model = Model.from_config(config)
    assert (sum(p.numel() for p in built.parameters()), "transformers", class_name) == (
        model.summary.total,
        model.counted_by,
        model.meta.class_name,
    )
    assert model.notes[0].startswith(f"no formulas: architectures: {class_name!r}: a head no row describes")


def test_a_head_no_row_describes_without_torch_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without torch (the package alone), such a checkpoint is refused in one line naming `architectures`, why the
    row cannot count it and the install that can (it said "'bert' has no formulas", which is not so)."""
    from paramscope.families import meta_build
    from paramscope.model import Model

    monkeypatch.setattr(meta_build, "available", lambda: False)
    with pytest.raises(ValueError) as err:
        Model.from_config({"model_type": "bert", "architectures": ["BertForSequenceClassification"], "vocab_size": 99})
    message = str(err.value)
    assert (True, True) == (
        message.startswith("architectures: 'BertForSequenceClassification': a head no row describes; counting it"),
        "--index-url https://download.pytorch.org/whl/cpu" in message,
    )


@needs_hf
def test_towers_of_a_config_written_the_old_way_are_found_as_transformers_reads_them() -> None:
    """Qwen2.5-VL's Hub configs keep the language model's keys at the top level and give the vision config no
    model_type: the towers are read as transformers reads them (text_config built from the top-level keys), and the
    rest is the untied LM head, 100 x 64."""
    import torch
    import transformers

    from paramscope.model import Model

    text = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
    text |= dict(intermediate_size=96, vocab_size=100)
    vision = dict(depth=1, hidden_size=16, num_heads=2, in_chans=3, out_hidden_size=64, intermediate_size=24)
    config = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", **text}
    model = Model.from_config(config | {"tie_word_embeddings": False, "vision_config": vision})
    with torch.device("meta"):
        language = transformers.Qwen2_5_VLTextModel(transformers.Qwen2_5_VLTextConfig(**text))
    towers = {role: m.model_type for role, m in model.towers}
    assert {"language model": "qwen2_5_vl_text", "vision tower": "qwen2_5_vl_vision"} == towers
    assert sum(p.numel() for p in language.parameters()) == model.towers[0][1].summary.total
    assert 100 * 64 == model.summary.total - sum(m.summary.total for _, m in model.towers)


#: Small text and vision sub-configs of the multimodal cases below.
_TEXT = dict(vocab_size=100, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4)
_QWEN3_5_TEXT = _TEXT | dict(num_hidden_layers=4, num_key_value_heads=2, head_dim=8, linear_num_key_heads=2)
_QWEN3_5_TEXT |= dict(
    linear_num_value_heads=4, linear_key_head_dim=6, linear_value_head_dim=5, linear_conv_kernel_dim=3
)
_QWEN_VISION = dict(depth=1, hidden_size=16, num_heads=2, intermediate_size=24, patch_size=4, out_hidden_size=32)
_LLAMA4_TEXT = dict(_TEXT, hidden_size=64, intermediate_size=96, intermediate_size_mlp=128, num_key_value_heads=2)
_LLAMA4_TEXT |= dict(head_dim=16, num_local_experts=2)
# tied: Mistral3Config ties the whole model's head (its top-level default), and the tower is the language model of it
_MISTRAL3_TEXT = dict(_TEXT, hidden_size=64, intermediate_size=96, num_key_value_heads=2, head_dim=16)
_MISTRAL3_TEXT |= dict(tie_word_embeddings=True)
_SMALL_VISION = dict(hidden_size=16, intermediate_size=24, num_hidden_layers=1, num_attention_heads=2)

#: Multimodal configs: the whole (model_type, architecture, its text and vision sub-configs, other keys), each tower
#: as (role, model_type, transformers class, config class, sub-config), and the rest as written out by hand (None:
#: a projector of some size). The towers are built on the meta device from their own classes.
TOWER_CASES: dict[str, tuple[dict[str, Any], list[tuple[str, str, str, str, dict[str, Any]]], int | None]] = {
    # CLIP ViT-B/32 (the classes' defaults): visual_projection 768 x 512, text_projection 512 x 512, logit_scale
    "clip": (
        {"model_type": "clip", "architectures": ["CLIPModel"], "projection_dim": 512},
        [
            ("text tower", "clip_text_model", "CLIPTextModel", "CLIPTextConfig", {}),
            ("vision tower", "clip_vision_model", "CLIPVisionModel", "CLIPVisionConfig", {}),
        ],
        768 * 512 + 512 * 512 + 1,
    ),
    # SigLIP (the classes' defaults): logit_scale and logit_bias
    "siglip": (
        {"model_type": "siglip", "architectures": ["SiglipModel"]},
        [
            ("text tower", "siglip_text_model", "SiglipTextModel", "SiglipTextConfig", {}),
            ("vision tower", "siglip_vision_model", "SiglipVisionModel", "SiglipVisionConfig", {}),
        ],
        2,
    ),
    "siglip2": (
        {"model_type": "siglip2", "architectures": ["Siglip2Model"]},
        [
            ("text tower", "siglip2_text_model", "Siglip2TextModel", "Siglip2TextConfig", {}),
            ("vision tower", "siglip2_vision_model", "Siglip2VisionModel", "Siglip2VisionConfig", {}),
        ],
        2,
    ),
    "mistral3": (
        {"model_type": "mistral3", "architectures": ["Mistral3ForConditionalGeneration"]},
        [
            ("language model", "mistral", "MistralForCausalLM", "MistralConfig", _MISTRAL3_TEXT),
            (
                "vision tower",
                "pixtral",
                "PixtralVisionModel",
                "PixtralVisionConfig",
                _SMALL_VISION | dict(hidden_size=32, intermediate_size=48, image_size=64, patch_size=16),
            ),
        ],
        None,
    ),
    # Llama 4 (Scout's layout: experts in every layer), the vision tower with its pixel-shuffle adapter
    "llama4": (
        {"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"]},
        [
            ("language model", "llama4_text", "Llama4ForCausalLM", "Llama4TextConfig", _LLAMA4_TEXT),
            (
                "vision tower",
                "llama4_vision_model",
                "Llama4VisionModel",
                "Llama4VisionConfig",
                _SMALL_VISION
                | dict(hidden_size=32, intermediate_size=48, image_size=28, patch_size=14)
                | dict(projector_input_dim=20, projector_output_dim=20, vision_output_dim=40),
            ),
        ],
        None,
    ),
    # Qwen3.5: the merger is the vision tower's projector, so the two towers are the whole model
    "qwen3_5": (
        {"model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"]},
        [
            ("language model", "qwen3_5_text", "Qwen3_5ForCausalLM", "Qwen3_5TextConfig", _QWEN3_5_TEXT),
            (
                "vision tower",
                "qwen3_5_vision",
                "Qwen3_5VisionModel",
                "Qwen3_5VisionConfig",
                _QWEN_VISION | dict(num_position_embeddings=16),
            ),
        ],
        0,
    ),
    # Qwen2.5-VL and Qwen3-VL: the language model holds no head; the rest is the untied LM head, 100 x 32
    "qwen2_5_vl": (
        {
            "model_type": "qwen2_5_vl",
            "architectures": ["Qwen2_5_VLForConditionalGeneration"],
            "tie_word_embeddings": False,
        },
        [
            (
                "language model",
                "qwen2_5_vl_text",
                "Qwen2_5_VLTextModel",
                "Qwen2_5_VLTextConfig",
                _TEXT | dict(num_key_value_heads=2),
            ),
            (
                "vision tower",
                "qwen2_5_vl_vision",
                "Qwen2_5_VisionTransformerPretrainedModel",
                "Qwen2_5_VLVisionConfig",
                _QWEN_VISION,
            ),
        ],
        100 * 32,
    ),
    # InternVL: the projector (a LayerNorm over 2 x 2 shuffled patches, 4 x 16 wide, and an MLP of two layers with
    # biases to 32, the language model's width) is the rest
    "internvl": (
        {"model_type": "internvl", "architectures": ["InternVLForConditionalGeneration"]},
        [
            ("language model", "qwen2", "Qwen2Model", "Qwen2Config", _TEXT | dict(num_key_value_heads=2)),
            (
                "vision tower",
                "internvl_vision",
                "InternVLVisionModel",
                "InternVLVisionConfig",
                _SMALL_VISION | dict(image_size=16, patch_size=4),
            ),
        ],
        2 * 64 + (64 * 32 + 32) + (32 * 32 + 32),
    ),
    # GLM-4V: the merger is in the vision tower; the LM head (untied) outside the language model
    "glm4v": (
        {"model_type": "glm4v", "architectures": ["Glm4vForConditionalGeneration"], "tie_word_embeddings": False},
        [
            (
                "language model",
                "glm4v_text",
                "Glm4vTextModel",
                "Glm4vTextConfig",
                _TEXT | dict(hidden_size=48, num_key_value_heads=2),
            ),
            (
                "vision tower",
                "glm4v_vision",
                "Glm4vVisionModel",
                "Glm4vVisionConfig",
                dict(depth=1, hidden_size=16, num_heads=2, out_hidden_size=48, intermediate_size=20)
                | dict(patch_size=4, image_size=16),
            ),
        ],
        100 * 48,
    ),
    # Qwen2-VL: the merger is in the vision tower; the LM head (untied) outside the language model
    "qwen2_vl": (
        {"model_type": "qwen2_vl", "architectures": ["Qwen2VLForConditionalGeneration"], "tie_word_embeddings": False},
        [
            (
                "language model",
                "qwen2_vl_text",
                "Qwen2VLTextModel",
                "Qwen2VLTextConfig",
                _TEXT | dict(num_key_value_heads=2),
            ),
            (
                "vision tower",
                "qwen2_vl_vision",
                "Qwen2VisionTransformerPretrainedModel",
                "Qwen2VLVisionConfig",
                dict(depth=1, embed_dim=16, num_heads=2, mlp_ratio=3, patch_size=4, hidden_size=32),
            ),
        ],
        100 * 32,
    ),
    "qwen3_vl": (
        {"model_type": "qwen3_vl", "architectures": ["Qwen3VLForConditionalGeneration"], "tie_word_embeddings": False},
        [
            (
                "language model",
                "qwen3_vl_text",
                "Qwen3VLTextModel",
                "Qwen3VLTextConfig",
                _TEXT | dict(num_key_value_heads=2, head_dim=8),
            ),
            (
                "vision tower",
                "qwen3_vl_vision",
                "Qwen3VLVisionModel",
                "Qwen3VLVisionConfig",
                _QWEN_VISION | dict(depth=2, num_position_embeddings=16, deepstack_visual_indexes=[0]),
            ),
        ],
        100 * 32,
    ),
    # Gemma 4: the vision tower's tokens projected into the language model by embed_vision, one bias-free linear
    # layer from 32 to 64 (its RMSNorm has no scale)
    "gemma4": (
        {"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"]},
        [
            (
                "language model",
                "gemma4_text",
                "Gemma4ForCausalLM",
                "Gemma4TextConfig",
                _TEXT
                | dict(
                    hidden_size=64,
                    num_key_value_heads=2,
                    head_dim=16,
                    global_head_dim=32,
                    hidden_size_per_layer_input=8,
                    vocab_size_per_layer_input=100,
                    pad_token_id=0,
                    layer_types=["sliding_attention", "full_attention"],
                ),
            ),
            (
                "vision tower",
                "gemma4_vision",
                "Gemma4VisionModel",
                "Gemma4VisionConfig",
                _SMALL_VISION | dict(hidden_size=32, num_key_value_heads=2, head_dim=16, position_embedding_size=20),
            ),
        ],
        32 * 64,
    ),
    # SmolVLM: the connector, one bias-free linear layer from 2 x 2 shuffled patches (4 x 16 wide) to 32
    "smolvlm": (
        {"model_type": "smolvlm", "architectures": ["SmolVLMForConditionalGeneration"]},
        [
            ("language model", "llama", "LlamaForCausalLM", "LlamaConfig", _TEXT),
            (
                "vision tower",
                "smolvlm_vision",
                "SmolVLMVisionTransformer",
                "SmolVLMVisionConfig",
                _SMALL_VISION | dict(image_size=64, patch_size=16),
            ),
        ],
        4 * 16 * 32,
    ),
}


def _whole(name: str, vision_type: str | None = None) -> dict[str, Any]:
    """The whole config of a tower case, its vision sub-config typed ``vision_type`` when given."""
    whole, towers, _ = TOWER_CASES[name]
    (_, text_type, *_, text), (_, own_type, *_, vision) = towers
    return whole | {
        "text_config": {"model_type": text_type, **text},
        "vision_config": {"model_type": vision_type or own_type, **vision},
    }


@needs_hf
@pytest.mark.parametrize("name", sorted(TOWER_CASES))
def test_multimodal_towers_equal_their_own_classes(name: str) -> None:
    """A multimodal config counted by transformers as a whole shows its language model (or text tower) and its vision
    tower with formulas, each equal to its own class built on the meta device, and the rest (projectors, scales, an
    LM head outside the language model) in the last note, written out by hand where the case gives it."""
    import torch
    import transformers

    from paramscope.model import Model

    _, towers, rest = TOWER_CASES[name]
    model = Model.from_config(_whole(name))
    with torch.device("meta"):
        built = {
            role: (kind, hf_class(kind, cls)(getattr(transformers, config_cls)(**sub)))
            for role, kind, cls, config_cls, sub in towers
        }
    expected = {role: (kind, sum(p.numel() for p in m.parameters())) for role, (kind, m) in built.items()}
    assert expected == {role: (m.model_type, m.summary.total) for role, m in model.towers}
    left = model.summary.total - sum(count for _, count in expected.values())
    assert (0 < left) if rest is None else (rest == left)
    tree = model.meta.tree  # a whole-model row: the rest is its projector and its LM head, with formulas
    language = dict(model.towers).get("language model")
    inner_head = language.summary.tree.get("head/lm") if language is not None else 0
    outer_head = tree.get("head") - inner_head if tree.find("head") else 0  # Llama 4's head is its language model's
    assert left == tree.get("projector") + outer_head


@needs_hf
@pytest.mark.parametrize("top", [True, False])
def test_the_whole_models_flag_ties_the_language_models_head(top: bool) -> None:
    """transformers 5 ties a multimodal model's LM head by its top-level ``tie_word_embeddings``, whatever the text
    config says: the language model tower (a Mistral with the opposite flag in its text config) follows the top."""
    import torch
    import transformers

    from paramscope.model import Model

    config = _whole("mistral3")
    config["tie_word_embeddings"] = top
    config["text_config"]["tie_word_embeddings"] = not top
    with torch.device("meta"):
        lm = transformers.MistralForCausalLM(
            transformers.MistralConfig(**{**_MISTRAL3_TEXT, "tie_word_embeddings": top})
        )
    assert (
        sum(p.numel() for p in lm.parameters())
        == dict(Model.from_config(config).towers)["language model"].summary.total
    )


#: Multimodal cases with a language model, and the LM head the whole model holds outside its class (Qwen-VL's
#: language models are base models: an untied 100 x 32 head, written out by hand)
COST_CASES = {"llama4": 0, "mistral3": 0, "qwen3_5": 0, "smolvlm": 0, "qwen2_5_vl": 100 * 32, "qwen3_vl": 100 * 32}


@needs_hf
@pytest.mark.parametrize(("name", "head"), COST_CASES.items())
def test_a_multimodal_models_costs_run_on_its_language_model_with_the_other_towers_as_weights(
    name: str, head: int
) -> None:
    """Memory, FLOPs and speed of a multimodal model run on its language model (with formulas); the vision tower and
    projector, counted by transformers, are ``towers_params``: the total is the whole model's on the meta device, the
    bf16 weights are 2 bytes for each of its parameters, active parameters and FLOPs leave the towers out, and LoRA
    (which PEFT would put on the towers' linear layers too) is refused."""
    import torch
    import transformers

    from paramscope.engine.flops import forward
    from paramscope.engine.hardware import ACCELERATORS
    from paramscope.engine.lora import lora_params
    from paramscope.engine.memory import weight_bytes
    from paramscope.engine.params import summarize
    from paramscope.engine.speed import speed
    from paramscope.model import Model

    _, towers, _ = TOWER_CASES[name]
    model = Model.from_config(_whole(name))
    _, _, cls, config_cls, text = towers[0]
    with torch.device("meta"):
        lm = getattr(transformers, cls)(getattr(transformers, config_cls)(**text))
    lm_total = sum(p.numel() for p in lm.parameters()) + head
    spec = model.cost_spec
    summary = summarize(spec)
    assert (model.summary.total, model.summary.total - lm_total) == (summary.total, spec.towers_params)
    assert 2 * model.summary.total == weight_bytes(spec, "bf16").count
    assert summarize(dataclasses.replace(spec, towers_params=0)).active == summary.active
    bare = dataclasses.replace(spec, towers_params=0)
    assert forward(bare, 64).count == forward(spec, 64).count
    gpu = ACCELERATORS["h100-sxm"]
    assert speed(bare, gpu).decode_step.bytes == speed(spec, gpu).decode_step.bytes  # images are not read per token
    with pytest.raises(ValueError, match="^lora targets: PEFT adapts the vision"):  # their linear layers: no formulas
        lora_params(spec, 8)


@needs_hf
def test_a_vision_config_typed_with_the_parents_type_is_read_as_transformers_reads_it() -> None:
    """Qwen3.5's Hub files type vision_config with the parent's model_type ("qwen3_5"): the tower is still found
    (transformers reads it as qwen3_5_vision), so language model and vision tower make the whole model."""
    from paramscope.model import Model

    model = Model.from_config(_whole("qwen3_5", vision_type="qwen3_5"))
    assert ["qwen3_5_text", "qwen3_5_vision"] == [m.model_type for _, m in model.towers]
    assert model.summary.total == sum(m.summary.total for _, m in model.towers)


def test_the_deployed_page_counts_the_long_tail() -> None:
    """What Community Cloud and the Dockerfile install (requirements.txt) is the package with its `app` and
    `transformers` extras and torch's CPU index, and those extras pin the torch and transformers this suite checks
    counts against (the ones installed here); the install a refusal names asks for the same versions."""
    from importlib.metadata import version

    import tomllib

    from paramscope.model import INSTALL

    root = Path(__file__).resolve().parents[1]
    lines = [ln.strip() for ln in (root / "requirements.txt").read_text().splitlines() if ln.strip()[:1] not in "#"]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pins = {f"{name}=={version(name).split('+')[0]}" for name in ("torch", "transformers")}
    assert (
        ["--extra-index-url https://download.pytorch.org/whl/cpu", "-e .[app,transformers]"],
        pins,
        True,
    ) == (lines, set(extras["transformers"]), all(pin in INSTALL for pin in pins))


@pytest.mark.parametrize("available_here", [True, False], ids=["with transformers", "without torch"])
def test_a_refusal_is_one_line_with_the_next_step(monkeypatch: pytest.MonkeyPatch, available_here: bool) -> None:
    """A type without formulas that cannot be counted is refused in one short line that names the type and the one
    thing to do, never the list of every type with formulas (it was ~170 names): where torch is not installed (the
    package alone), the install command that works (the CPU wheel); with transformers (the page as deployed), that
    transformers does not know it either."""
    import paramscope
    from paramscope.families import meta_build

    monkeypatch.setattr(meta_build, "available", lambda: available_here)
    model_type = "dinov2_no_such" if available_here else "dinov2_without_torch"
    with pytest.raises(ValueError) as err:
        paramscope.from_config({"model_type": model_type, "hidden_size": 8})
    message = str(err.value)
    wanted = "paramscope types" if available_here else "--index-url https://download.pytorch.org/whl/cpu"
    assert (True, True, True, False) == (
        message.startswith(f"model_type: '{model_type}'"),
        wanted in message,
        len(message) < 400,
        "albert" in message,
    )


#: Types whose class transformers builds only with another library: (config, the library, the class that needs it).
#: (A class that needs timm is built with timm's networks from shipped data: tests/test_timm_networks.py; DiNAT, which
#: needs natten only for its forward's kernels, without it: below.)
NEEDS_LIBRARY = [
    ({"model_type": "layoutlmv2"}, "detectron2", ""),
]


@pytest.mark.parametrize(("config", "library", "part"), NEEDS_LIBRARY, ids=[c[1] for c in NEEDS_LIBRARY])
def test_a_class_that_needs_another_library_is_refused_in_one_line(config: dict, library: str, part: str) -> None:
    """A type whose class transformers builds only with a library the page does not install (timm, natten,
    detectron2) is refused in one line naming the library and the module that needs it, and where it can be counted
    (transformers' own message, a paragraph on pip and restarting a runtime, is not shown)."""
    import importlib.util

    from paramscope.engine.spec import SpecError

    if not available() or importlib.util.find_spec(library):
        pytest.skip(f"transformers is not installed, or {library} is")
    with pytest.raises(SpecError) as refused:
        build_tree(config)
    message = refused.value.message
    assert ("config", True, True, False) == (
        refused.value.field,
        f"only with the {library} library" in message and f"where {library}" in message,
        (f"its {part}" in message) == bool(part),
        "\n" in message or "restart" in message,
    )


#: DiNAT configs: its class defaults, and a small one with a dilation per layer and a kernel of its own.
DINAT = [
    {"model_type": "dinat"},
    {"model_type": "dinat", "embed_dim": 32, "depths": [1, 2], "num_heads": [2, 4], "kernel_size": 5}
    | {"dilations": [[1], [1, 2]], "architectures": ["DinatForImageClassification"], "num_labels": 10},
]


@pytest.mark.parametrize("config", DINAT, ids=["defaults", "small"])
def test_dinat_is_counted_without_natten_as_transformers_builds_it(
    monkeypatch: pytest.MonkeyPatch, config: dict
) -> None:
    """DiNAT, whose class transformers builds only where natten is installed though natten holds none of its
    parameters (only the neighborhood-attention kernels its forward calls; transformers defines stand-ins for them),
    is counted exactly: equal to the class built on meta with transformers' check for natten passed here, as natten,
    which needs compiling, is not installed; the note says so."""
    import copy
    import importlib.util

    import torch
    import transformers
    from transformers.utils import import_utils

    if not available() or importlib.util.find_spec("natten"):
        pytest.skip("transformers is not installed, or natten is")
    result = build_tree(config)
    rest = copy.deepcopy(config)
    model_type = rest.pop("model_type")
    class_name = (rest.get("architectures") or ["DinatModel"])[0]
    monkeypatch.setitem(import_utils.BACKENDS_MAPPING, "natten", (lambda: True, ""))
    with torch.device("meta"):
        model = getattr(transformers, class_name)(transformers.AutoConfig.for_model(model_type, **rest))
    assert (sum(p.numel() for p in model.parameters()), class_name, True) == (
        result.summary.total,
        result.class_name,
        any("natten is not installed" in note for note in result.notes),
    )
