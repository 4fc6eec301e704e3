"""What the config reader takes from a config beyond sizes (sliding-window layers, against transformers' own config),
and what it refuses because transformers cannot build it either."""

from __future__ import annotations

import warnings

import pytest
from test_engine_vs_hf import CASES as DIFFERENTIAL
from transformers import Gemma2Config

from paramscope import count, read
from paramscope.engine.spec import SpecError
from paramscope.model import Model


@pytest.mark.parametrize("layers", [1, 2, 3, 7, 26, 42])
def test_gemma2_sliding_layers_match_transformers(layers: int) -> None:
    """Without layer_types, the layers that slide are those transformers' Gemma2Config marks as sliding."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Gemma2Config(num_hidden_layers=layers).layer_types.count("sliding_attention")
    assert expected == read({"model_type": "gemma2", "num_hidden_layers": layers}).spec.sliding_window_layers


@pytest.mark.parametrize(
    ("types", "window", "sliding"),
    [
        (["full_attention"] * 4, None, 0),
        (["sliding_attention", "full_attention"] * 2, 4096, 2),
        (["sliding_attention"] * 4, 4096, 4),
    ],
)
def test_gemma2_layer_types_are_honoured(types: list[str], window: int | None, sliding: int) -> None:
    """An explicit layer_types list decides which layers slide; with none sliding there is no window at all."""
    spec = read({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 4096, "layer_types": types}).spec
    assert (window, sliding) == (spec.sliding_window, spec.sliding_window_layers)


SMALL = dict(vocab_size=101, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=48)
XLSTM_SMALL = dict(vocab_size=101, hidden_size=64, num_hidden_layers=2)
#: Configs the transformers class cannot build, and the key the reader names when it refuses them.
CANNOT_BUILD = {
    "nemotron without KV heads": (dict(model_type="nemotron", **SMALL), "num_key_value_heads"),
    "hunyuan MoE without head_dim": (dict(model_type="hunyuan_v1_moe", num_experts=4, moe_topk=2, **SMALL), "head_dim"),
    "ministral without head_dim": (dict(model_type="ministral", **SMALL), "head_dim"),
    "mllama text without a row for its padding token": (dict(model_type="mllama_text_model", **SMALL), "vocab_size"),
    "internlm3 with qkv_bias apart from bias": (dict(model_type="internlm3", qkv_bias=True, **SMALL), "qkv_bias"),
    "deepseek_v4 without a window": (dict(model_type="deepseek_v4", sliding_window=None, **SMALL), "sliding_window"),
    "deepseek_v4 without output groups": (dict(model_type="deepseek_v4", o_groups=0, **SMALL), "o_groups"),
    "gemma4 sliding layers without a window": (
        dict(model_type="gemma4_text", sliding_window=None, **SMALL),
        "sliding_window",
    ),
    "gemma3n sharing keys and values of a type no earlier layer has": (
        dict(model_type="gemma3n_text", layer_types=["sliding_attention"] * 2 + ["full_attention"], **SMALL)
        | {"num_kv_shared_layers": 1},
        "num_kv_shared_layers",
    ),
    "gemma3n with every layer sharing keys and values": (
        dict(model_type="gemma3n_text", num_kv_shared_layers=3, **SMALL),
        "num_kv_shared_layers",
    ),
    "gemma3n intermediate_size for other layers": (
        dict(model_type="gemma3n_text", **{**SMALL, "intermediate_size": [48, 48]}),
        "intermediate_size",
    ),
    "gemma3n activation_sparsity_pattern for other layers": (
        dict(model_type="gemma3n_text", num_kv_shared_layers=0, activation_sparsity_pattern=[0.0] * 2, **SMALL),
        "activation_sparsity_pattern",
    ),
    "gemma3n layer_types for more layers": (
        dict(model_type="gemma3n_text", num_kv_shared_layers=0, layer_types=["full_attention"] * 4, **SMALL),
        "layer_types",
    ),
    "gemma3n per-layer table without a row for its padding token": (
        dict(model_type="gemma3n_text", num_kv_shared_layers=0, vocab_size_per_layer_input=0, **SMALL),
        "vocab_size_per_layer_input",
    ),
    "hunyuan MoE with experts per layer": (
        dict(model_type="hunyuan_v1_moe", num_experts=[4, 4, 4], moe_topk=2, head_dim=8, **SMALL),
        "num_experts",
    ),
    "hunyuan MoE with moe_topk for fewer layers": (
        dict(model_type="hunyuan_v1_moe", num_experts=4, moe_topk=[2, 2], head_dim=8, **SMALL),
        "moe_topk",
    ),
    "cohere2_moe with more dense layers than layers": (
        dict(model_type="cohere2_moe", num_experts=4, num_experts_per_tok=2, first_k_dense_replace=4, **SMALL),
        "first_k_dense_replace",
    ),
    "cohere2_moe with a negative dense prefix": (
        dict(model_type="cohere2_moe", num_experts=4, num_experts_per_tok=2, first_k_dense_replace=-1, **SMALL),
        "first_k_dense_replace",
    ),
    "jamba attn_layer_offset equal to its period": (
        dict(model_type="jamba", num_key_value_heads=4, attn_layer_offset=4, attn_layer_period=4, **SMALL),
        "attn_layer_offset",
    ),
    "jamba attn_layer_period below the default offset": (
        dict(model_type="jamba", num_key_value_heads=4, attn_layer_period=2, **SMALL),
        "attn_layer_offset",
    ),
    "jamba expert_layer_offset equal to its period": (
        dict(model_type="jamba", num_key_value_heads=4, expert_layer_offset=2, expert_layer_period=2, **SMALL),
        "expert_layer_offset",
    ),
    "mamba2 heads not filling the width": (
        dict(model_type="mamba2", vocab_size=101, hidden_size=32, num_hidden_layers=2, num_heads=3, head_dim=8),
        "num_heads",
    ),
    "falcon_h1 heads not filling the width": (
        dict(model_type="falcon_h1", mamba_d_ssm=64, mamba_n_heads=4, mamba_d_head=8, **SMALL),
        "mamba_n_heads",
    ),
    "dbrx without rope_theta": (
        dict(model_type="dbrx", attn_config={"kv_n_heads": 2}, vocab_size=100, d_model=32, n_layers=2, n_heads=4),
        "attn_config.rope_theta",
    ),
    "gemma2 layer_types shorter than the layers": (
        dict(model_type="gemma2", layer_types=["sliding_attention", "full_attention"], **SMALL),
        "layer_types",
    ),
    "lfm2 layer_types shorter than the layers": (dict(model_type="lfm2", layer_types=["conv"], **SMALL), "layer_types"),
    "lfm2_moe without layer_types": (
        dict(model_type="lfm2_moe", num_experts=4, num_experts_per_tok=2, **SMALL),
        "layer_types",
    ),
    "xglm narrower than its sinusoids": (dict(model_type="xglm", d_model=2, attention_heads=1), "hidden_size"),
    "axk1 without q_lora_rank": (dict(model_type="axk1", q_lora_rank=None, **SMALL), "q_lora_rank"),
    "gpt_neo attention_types for other layers": (
        dict(model_type="gpt_neo", hidden_size=32, num_layers=3, num_heads=4, vocab_size=101),
        "attention_types",
    ),
    "gpt_neo attention_layers for other layers": (
        dict(model_type="gpt_neo", hidden_size=32, num_layers=3, num_heads=4, attention_layers=["global"] * 2),
        "attention_layers",
    ),
    # a key stated null that the config class types as a value (huggingface_hub's strict check refuses the config)
    "cwm head_dim null": (dict(model_type="cwm", head_dim=None, **SMALL), "head_dim"),
    "kolibri1 sliding_window null": (dict(model_type="kolibri1", sliding_window=None, **SMALL), "sliding_window"),
    "mellum num_key_value_heads null": (
        dict(model_type="mellum", **{**SMALL, "num_key_value_heads": None}),
        "num_key_value_heads",
    ),
    "hyperclovax use_post_norm null": (dict(model_type="hyperclovax", use_post_norm=None, **SMALL), "use_post_norm"),
    "codegen rotary_dim null": (
        dict(model_type="codegen", rotary_dim=None, n_embd=32, n_layer=2, n_head=4),
        "rotary_dim",
    ),
    "llama vocab_size null": (dict(model_type="llama", **{**SMALL, "vocab_size": None}), "vocab_size"),
    "olmo_hybrid without a linear-attention layer": (
        dict(model_type="olmo_hybrid", pad_token_id=0, layer_types=["full_attention"] * 3, **SMALL),
        "layer_types",
    ),
    "olmo_hybrid of one layer": (
        dict(model_type="olmo_hybrid", pad_token_id=0, **{**SMALL, "num_hidden_layers": 1}),
        "num_hidden_layers",
    ),
    "iquestcoder with sliding windows": (
        dict(model_type="iquestcoder", use_sliding_window=True, **SMALL),
        "use_sliding_window",
    ),
    "iquestcoder with clip_qkv": (dict(model_type="iquestcoder", clip_qkv=8.0, **SMALL), "clip_qkv"),
    "iquestcoder with clip_qkv 0": (dict(model_type="iquestcoder", clip_qkv=0, **SMALL), "clip_qkv"),
    "gpt2 width null under its alias": (dict(model_type="gpt2", hidden_size=None, n_layer=2, n_head=4), "hidden_size"),
    "zamba one hybrid layer tied": (dict(model_type="zamba", **{**SMALL, "num_hidden_layers": 4}), "num_hidden_layers"),
    "zamba one named hybrid layer tied": (
        dict(model_type="zamba", layers_block_type=["mamba", "hybrid", "mamba"], **SMALL),
        "layers_block_type",
    ),
    "zamba of two layers without layers_block_type": (
        dict(model_type="zamba", **{**SMALL, "num_hidden_layers": 2}),
        "num_hidden_layers",
    ),
    "zamba layers_block_type shorter than the layers": (
        dict(model_type="zamba", layers_block_type=["hybrid", "hybrid"], **SMALL),
        "layers_block_type",
    ),
    "zamba mamba heads not dividing the width": (dict(model_type="zamba", n_mamba_heads=3, **SMALL), "n_mamba_heads"),
    "zamba attn_layer_period 0": (
        dict(model_type="zamba", attn_layer_period=0, tie_word_embeddings=False, **{**SMALL, "num_hidden_layers": 4}),
        "attn_layer_period",
    ),
    "xlstm without heads": (dict(model_type="xlstm", num_heads=0, **XLSTM_SMALL), "num_heads"),
    "xlstm with negative heads": (dict(model_type="xlstm", num_heads=-2, **XLSTM_SMALL), "num_heads"),
    "xlstm with a negative query width": (
        dict(model_type="xlstm", num_heads=4, qk_dim_factor=-0.5, **XLSTM_SMALL),
        "qk_dim_factor",
    ),
    "xlstm with a negative value width": (
        dict(model_type="xlstm", num_heads=4, v_dim_factor=-1.0, **XLSTM_SMALL),
        "v_dim_factor",
    ),
    "xlstm with a negative feed-forward width": (
        dict(model_type="xlstm", num_heads=4, ffn_proj_factor=-1.0, **XLSTM_SMALL),
        "ffn_proj_factor",
    ),
    "xlstm rounding to a multiple of 0": (
        dict(model_type="xlstm", num_heads=4, ffn_round_up_to_multiple_of=0, **XLSTM_SMALL),
        "ffn_round_up_to_multiple_of",
    ),
    "xlstm with a whole-number factor": (
        dict(model_type="xlstm", num_heads=4, qk_dim_factor=1, **XLSTM_SMALL),
        "qk_dim_factor",
    ),
    "xlstm with a weight mode of its own": (
        dict(model_type="xlstm", num_heads=4, weight_mode="split", **XLSTM_SMALL),
        "weight_mode",
    ),
    "nemotron_h unknown block": (
        dict(model_type="nemotron_h", hybrid_override_pattern="M*X", mamba_num_heads=4, mamba_head_dim=8, **SMALL),
        "hybrid_override_pattern",
    ),
}


@pytest.mark.parametrize("name", sorted(CANNOT_BUILD))
def test_what_transformers_cannot_build_is_refused_naming_the_key(name: str) -> None:
    """A config its transformers class cannot build is refused by the reader too, with the key to fix."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config, key = CANNOT_BUILD[name]
    with pytest.raises(Exception), warnings.catch_warnings():  # noqa: B017 - any failure of transformers will do
        warnings.simplefilter("ignore")
        kwargs = {k: v for k, v in config.items() if k != "model_type"}
        with torch.device("meta"):
            AutoModelForCausalLM.from_config(AutoConfig.for_model(config["model_type"], **kwargs))
    with pytest.raises(SpecError) as refused:
        read(config)
    assert key == refused.value.field


@pytest.mark.parametrize("channels", [[128], [128, -1], [-2, 32]])
def test_gemma4_audio_channels_transformers_cannot_build_are_refused(channels: list[int]) -> None:
    """Gemma 4's audio tower with one subsampling channel count (it reads two) or a negative one: Gemma4AudioModel
    cannot be built, and the reader refuses the config naming the key."""
    import torch
    from transformers import Gemma4AudioConfig, Gemma4AudioModel

    with pytest.raises(Exception), warnings.catch_warnings(), torch.device("meta"):  # noqa: B017 - any failure will do
        warnings.simplefilter("ignore")
        Gemma4AudioModel(Gemma4AudioConfig(subsampling_conv_channels=channels))
    with pytest.raises(SpecError) as refused:
        read({"model_type": "gemma4_audio", "subsampling_conv_channels": channels})
    assert "subsampling_conv_channels" == refused.value.field


@pytest.mark.parametrize(
    "keys",
    [
        {"sscp_conv_channel_size": [128]},
        {"sscp_conv_channel_size": [128, -1]},
        {"sscp_conv_kernel_size": [[3, 3]]},
        {"sscp_conv_kernel_size": [[3, -1], [3, 3]]},
        {"sscp_conv_stride_size": [[2, 2], [2, 0]]},
        {"input_feat_size": 1, "sscp_conv_kernel_size": [[3, 3], [3, 9]]},
    ],
)
def test_gemma3n_audio_subsampling_transformers_cannot_build_is_refused(keys: dict) -> None:
    """Gemma 3n's audio encoder with fewer than two subsampling channel counts or kernel pairs, a negative channel
    count or kernel size, a frequency stride of 0 or a projection of a negative width: Gemma3nAudioEncoder cannot be
    built, and the reader refuses the config naming the key."""
    import torch
    from transformers import Gemma3nAudioConfig, Gemma3nAudioEncoder

    with pytest.raises(Exception), warnings.catch_warnings(), torch.device("meta"):  # noqa: B017 - any failure will do
        warnings.simplefilter("ignore")
        Gemma3nAudioEncoder(Gemma3nAudioConfig(**keys))
    with pytest.raises(SpecError) as refused:
        read({"model_type": "gemma3n_audio", **keys})
    assert refused.value.field in keys


def test_unbalanced_t5gemma_is_refused_naming_the_decoder_key() -> None:
    """A T5Gemma whose decoder is narrower than its encoder (the 9B-2B checkpoints) has two widths, which one Spec
    cannot hold: the row refuses it naming the decoder's key (the model then falls back to transformers' count)."""
    stack = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, vocab_size=100)
    config = {"model_type": "t5gemma", "encoder": stack, "decoder": stack | {"hidden_size": 16}}
    with pytest.raises(SpecError, match=r"decoder\.hidden_size: 16 differs from the encoder's 32: .* transformers"):
        read(config)


def test_zamba2_names_its_layers_in_layers_block_type() -> None:
    """Zamba2Config also takes layer_types, but then sizes its adapter lists from its default 54-layer pattern (56,128
    parameters where the same layers named in layers_block_type build 52,992): refused, pointing to the key that
    builds what it says."""
    config = {"model_type": "zamba2", "num_hidden_layers": 4, "layer_types": ["mamba", "hybrid", "hybrid", "mamba"]}
    with pytest.raises(SpecError, match="layer_types: Zamba2 reads layers_block_type"):
        read(config)


def test_a_compress_rate_of_0_is_refused() -> None:
    """DeepSeek-V4 with a compress rate of 0: transformers builds the class (the position bias is empty) but no forward
    pass can run (it divides the tokens by the rate), nor can a cache or FLOPs be sized: refused naming the key."""
    rates = {"compressed_sparse_attention": 0, "heavily_compressed_attention": 4}
    with pytest.raises(SpecError, match="^compress_rates: a compress rate must be at least 1"):
        read(dict(model_type="deepseek_v4", compress_rates=rates, **SMALL))


def test_mpt_expansion_ratio_is_ignored_as_transformers_ignores_it() -> None:
    """transformers' MptForCausalLM builds the MLP 4 x d_model wide whatever expansion_ratio says: the count follows
    the class (checked against it in the differential cases) and a note names the ignored key."""
    from paramscope import from_config

    model = from_config({"model_type": "mpt", "d_model": 32, "n_layers": 2, "n_heads": 4, "expansion_ratio": 2})
    assert (128, True) == (model.spec.intermediate_size, any("expansion_ratio 2 is ignored" in n for n in model.notes))


def test_xlstm_notes_what_its_classes_ignore_and_the_cache_that_cannot_run() -> None:
    """xLSTM: transformers builds lm_head apart from the token table although the file says tie_word_embeddings, and
    a forward pass with its own cache fails where the layers are int(96 × 0.5) = 48 wide but xLSTMConfig's qk_dim (64,
    rounded up) sizes the cache; the model says both, and counts what transformers builds."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = {"model_type": "xlstm", "vocab_size": 101, "hidden_size": 96, "num_hidden_layers": 2, "num_heads": 2}
    config["tie_word_embeddings"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_config = AutoConfig.for_model(**config)
        torch.manual_seed(0)
        hf = AutoModelForCausalLM.from_config(hf_config).eval()
    tied = hf.lm_head.weight is hf.get_input_embeddings().weight
    with pytest.raises(ValueError), torch.no_grad():  # the cache's matrix memory is 64 wide, the layers' 48
        hf(torch.arange(1, 4).unsqueeze(0), use_cache=True)
    model = Model.from_config(config)
    notes = " ".join(model.notes)
    assert (False, sum(p.numel() for p in hf.parameters()), True, True) == (
        tied,
        model.summary.total,
        "tie_word_embeddings is ignored" in notes,
        "qk_dim 48" in notes and "qk_dim 64" in notes,
    )


@pytest.mark.parametrize("arch", ["OpenAIGPTDoubleHeadsModel", "GPT2DoubleHeadsModel"])
def test_a_model_with_a_head_of_its_own_is_refused(arch: str) -> None:
    """A ...DoubleHeadsModel holds a multiple-choice head beside the LM head (a summary layer): not the bare model
    its name's "Model" suggests, and a head no row builds; refused naming architectures."""
    with pytest.raises(SpecError) as refused:
        read({"model_type": "gpt2", "architectures": [arch]})
    assert "architectures" == refused.value.field


def test_a_config_without_model_type_says_how_it_was_read() -> None:
    """A file naming no model_type but stating hidden_size and num_hidden_layers is read as ParamScope's own generic
    transformer, and its notes say so (it said "Every key in the file was used" and nothing else); one without those
    keys is refused saying what a config.json names."""
    model = Model.from_config({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4})
    with pytest.raises(SpecError, match=r'^model_type: missing: a config\.json names its type \("model_type"'):
        Model.from_config({"hidden_size": 64})
    assert ("paramscope", True) == (model.model_type, "names no model_type" in model.notes[0])


@pytest.mark.parametrize(
    "config",
    [
        # a mixture's experts at width 0, biases and all, are counted as transformers builds them
        DIFFERENTIAL["gpt_oss-sinks-expert-biases"] | {"intermediate_size": 0},
        # Gemma 4's vision tower at patch size 0 (its 2-D patches: no temporal_patch_size) builds as counted
        DIFFERENTIAL["gemma4-vision"] | {"patch_size": 0},
        # Llama 4 with no MoE layers: no routed experts sizes nothing
        DIFFERENTIAL["llama4_text-moe-layers-listed"] | {"num_local_experts": 0, "moe_layers": []},
    ],
    ids=["gpt_oss-experts-0", "gemma4_vision-patch-0", "llama4-no-moe-layers"],
)
def test_zeros_the_class_builds_as_counted_are_not_refused(config: dict) -> None:
    """The zero checks refuse only where the count would differ: a mixture's experts at intermediate_size 0, Gemma 4's
    vision tower at patch_size 0 and Llama 4 with 0 experts and no MoE layers count what transformers builds (each was
    refused by the first version of the checks, found by a code review)."""
    from hf_oracle import hf_count

    assert hf_count(config) == count(read(config).spec).count


def test_an_attribute_map_name_the_class_applies_late_is_refused_naming_it() -> None:
    """T5's num_hidden_layers stated alone: T5Config sets num_layers from it only after deriving num_decoder_layers
    from num_layers' default (6), so the row refuses it naming the key, to state num_layers instead."""
    with pytest.raises(SpecError, match=r"^num_hidden_layers: T5Config sets num_layers from num_hidden_layers only"):
        read({"model_type": "t5", "num_hidden_layers": 2})


@pytest.mark.parametrize(
    ("config", "key"),
    [
        (
            dict(
                model_type="rwkv",
                architectures=["RwkvForCausalLM"],
                vocab_size=50,
                hidden_size=32,
                num_hidden_layers=1,
                intermediate_size=0,
            ),
            "intermediate_size",
        ),
        (dict(model_type="internvl_vision", architectures=["InternVLVisionModel"], image_size=[0, 0]), "image_size"),
    ],
    ids=["rwkv-channel-mixing-0", "internvl-image-0"],
)
def test_zeros_a_hook_reads_are_refused_where_the_class_builds_more(config: dict, key: str) -> None:
    """RWKV's channel mixing at intermediate_size 0 keeps its receptance and token-shift mix (10,912 counted, 12,000
    built at these sizes), InternVL's tower at image size 0 its patch convolution (12,596,224 counted, 13,200,384
    built at its defaults): transformers builds both, and the row refuses them naming the key (found by a code
    review; not refused before)."""
    import torch
    import transformers

    rest = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    hf_config = transformers.CONFIG_MAPPING[config["model_type"]](**rest)
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = sum(p.numel() for p in getattr(transformers, config["architectures"][0])(hf_config).parameters())
    with pytest.raises(SpecError) as refused:
        read(config)
    assert (True, key) == (built > 0, refused.value.field)
