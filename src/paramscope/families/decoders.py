"""Decoder-only families, dense and mixture-of-experts: one row per ``model_type``."""

from __future__ import annotations

from paramscope.families import hooks
from paramscope.families.schema import Family, Rule

TF = "https://github.com/huggingface/transformers/blob/main/src/transformers/models"

#: The keys most configs state under the Spec's own names (transformers' canonical attribute names).
CORE_KEYS = dict(
    vocab_size=("vocab_size",),
    hidden_size=("hidden_size",),
    num_hidden_layers=("num_hidden_layers",),
    num_attention_heads=("num_attention_heads",),
    intermediate_size=("intermediate_size",),
    max_position_embeddings=("max_position_embeddings",),
    tie_word_embeddings=("tie_word_embeddings",),
)

FOUR_H = Rule("4*hidden_size", lambda d: 4 * d["hidden_size"])
#: A block the class puts in every layer (Mamba's mixer, RWKV's time mixing, Falcon-H1's parallel mixer).
EVERY_LAYER = Rule("num_hidden_layers", lambda d: d["num_hidden_layers"], always=True)
#: A class whose heads are hidden_size // num_attention_heads wide, floored (GLM-4V's: it builds 96 heads of 42 over
#: 4,096, where the Spec would otherwise refuse heads that do not divide the width)
HEADS_FLOORED = Rule(
    "hidden_size // num_attention_heads", lambda d: d["hidden_size"] // max(d["num_attention_heads"], 1)
)

GPT2 = Family(
    model_type="gpt2",
    class_prefix="GPT2",
    source=f"{TF}/gpt2/modeling_gpt2.py",
    keys=dict(
        vocab_size=("vocab_size",),
        # a file stating both names: transformers' attribute name (hidden_size ...) wins
        hidden_size=("hidden_size", "n_embd"),
        num_hidden_layers=("num_hidden_layers", "n_layer"),
        num_attention_heads=("num_attention_heads", "n_head"),
        intermediate_size=("n_inner",),
        hidden_act=("activation_function",),
        max_position_embeddings=("max_position_embeddings", "n_positions"),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    defaults=dict(tie_word_embeddings=True),
    derive=dict(intermediate_size=FOUR_H),
    fixed=dict(attention_bias=True, mlp_bias=True, position_embedding="learned", fused=("qkv",)),
    hooks=(hooks.cross_attention_beyond,),
    class_names=dict(causal_lm="GPT2LMHeadModel"),
    padding_row=False,
)

GPT_BIGCODE = GPT2.but(
    model_type="gpt_bigcode",
    class_prefix="GPTBigCode",
    source=f"{TF}/gpt_bigcode/modeling_gpt_bigcode.py",
    extra_hooks=[hooks.multi_query],
    class_names=dict(causal_lm=None),
)

GPTJ = GPT2.but(
    model_type="gptj",
    class_prefix="GPTJ",
    source=f"{TF}/gptj/modeling_gptj.py",
    defaults=dict(tie_word_embeddings=None),
    fixed=dict(
        fused=(),  # q_proj, k_proj, v_proj
        attention_bias=False,
        norms_per_layer=1,
        lm_head_bias=True,
        parallel_attn=True,
        position_embedding="rotary",
        scores_bytes=10,  # GPT-Neo's eager attention with fp32 scores (no SDPA path)
    ),
    hooks=(),
    class_names=dict(causal_lm=None),
)
CODEGEN = GPTJ.but(
    model_type="codegen",
    class_prefix="CodeGen",
    source=f"{TF}/codegen/modeling_codegen.py",
    fixed=dict(fused=("qkv",)),  # GPT-J's layout with q, k and v in one bias-free qkv_proj
)
OPENAI_GPT = GPT2.but(
    model_type="openai-gpt",
    class_prefix="OpenAIGPT",
    source=f"{TF}/openai/modeling_openai.py",
    keys=dict(intermediate_size=None, hidden_act=("afn",)),
    hooks=(),
    # GPT-1: GPT-2's layers with the norms after attention and after the MLP, no final norm, an MLP 4 x n_embd wide
    derive=dict(intermediate_size=Rule("4*hidden_size", lambda d: 4 * d["hidden_size"], always=True)),
    # eager only: scores as transformers' eager attention (Gemma 2's measured 9-9.7), not measured on this class
    fixed=dict(final_norm=False, scores_bytes=10),
    class_names=dict(causal_lm="OpenAIGPTLMHeadModel"),
)
MPT = GPT2.but(
    model_type="mpt",
    class_prefix="Mpt",
    source=f"{TF}/mpt/modeling_mpt.py",
    keys=dict(
        hidden_size=("hidden_size", "d_model"),
        num_hidden_layers=("num_hidden_layers", "n_layers"),
        num_attention_heads=("num_attention_heads", "n_heads"),
        intermediate_size=None,
        max_position_embeddings=("max_seq_len",),
        hidden_act=None,
    ),
    # MPT: one bias-free Wqkv, bias-free out_proj and MLP, LayerNorms without biases (transformers drops them),
    # ALiBi instead of a position table; transformers builds the MLP 4 x d_model wide whatever expansion_ratio says
    derive=dict(intermediate_size=Rule("4*hidden_size", lambda d: 4 * d["hidden_size"], always=True)),
    fixed=dict(attention_bias=False, mlp_bias=False, norm_bias=False, position_embedding="alibi", scores_bytes=10),
    hooks=(),
    class_names=dict(causal_lm=None),
    notes=(hooks.mpt_expansion,),
)
XGLM = GPT2.but(
    model_type="xglm",
    class_prefix="XGLM",
    source=f"{TF}/xglm/modeling_xglm.py",
    keys=dict(
        hidden_size=("hidden_size", "d_model"),  # a file stating both: transformers' attribute name wins
        num_hidden_layers=("num_hidden_layers", "num_layers"),
        num_attention_heads=("num_attention_heads", "attention_heads"),
        intermediate_size=("ffn_dim",),
        max_position_embeddings=("max_position_embeddings",),
    ),
    derive=dict(intermediate_size=None),
    # q, k, v and out apart, all biased; sinusoidal positions computed on the fly (a buffer, no parameters)
    # eager only: scores as transformers' eager attention (Gemma 2's measured 9-9.7), not measured on this class
    fixed=dict(fused=(), position_embedding="none", scores_bytes=10),
    hooks=(hooks.sinusoid_width, hooks.cross_attention_beyond),
    class_names=dict(causal_lm=None),
)
CTRL = XGLM.but(
    model_type="ctrl",
    class_prefix="CTRL",
    source=f"{TF}/ctrl/modeling_ctrl.py",
    keys=dict(
        hidden_size=("hidden_size", "n_embd"),
        num_hidden_layers=("num_hidden_layers", "n_layer"),
        num_attention_heads=("num_attention_heads", "n_head"),
        intermediate_size=("dff",),
        max_position_embeddings=("max_position_embeddings", "n_positions"),
        hidden_act=None,
    ),
    # XGLM's layout (Wq, Wk, Wv and dense apart, biased; a plain ReLU MLP with biases; sinusoids as a buffer), the
    # head tied to the input table with a bias of its own
    fixed=dict(lm_head_bias=True),
    hooks=(),
    class_names=dict(causal_lm="CTRLLMHeadModel"),
)
GPT_NEO = GPT2.but(
    model_type="gpt_neo",
    class_prefix="GPTNeo",
    source=f"{TF}/gpt_neo/modeling_gpt_neo.py",
    keys=dict(
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_hidden_layers", "num_layers"),
        num_attention_heads=("num_attention_heads", "num_heads"),
        intermediate_size=("intermediate_size",),
        max_position_embeddings=("max_position_embeddings",),
    ),
    # GPT-2's layout with q, k and v apart and unbiased (the output projection keeps its bias); global and local
    # (sliding) layers by attention_types
    # the class writes attention out with fp32 scores (no SDPA path)
    fixed=dict(fused=(), attention_bias=False, attention_out_bias=True, scores_bytes=10, cache_window=False),
    hooks=(hooks.gpt_neo_layers,),
    class_names=dict(causal_lm=None),
)

# ----------------------------------------------------------------------------------- Llama and kin
LLAMA = Family(
    model_type="llama",
    class_prefix="Llama",
    source=f"{TF}/llama/modeling_llama.py",
    keys=dict(
        CORE_KEYS,
        num_key_value_heads=("num_key_value_heads",),
        head_dim=("head_dim",),
        hidden_act=("hidden_act", "hidden_activation"),
        attention_bias=("attention_bias",),
        mlp_bias=("mlp_bias",),
    ),
    defaults=dict(attention_bias=False, mlp_bias=False),
    fixed=dict(mlp_gated=True, norm_type="rmsnorm", norm_bias=False, position_embedding="rotary"),
    hooks=(hooks.sliding_window,),
    checks_width=True,
)

MISTRAL = LLAMA.but(
    model_type="mistral",
    class_prefix="Mistral",
    source=f"{TF}/mistral/modeling_mistral.py",
    keys=dict(attention_bias=None, mlp_bias=None),
)
QWEN2 = MISTRAL.but(
    model_type="qwen2",
    class_prefix="Qwen2",
    source=f"{TF}/qwen2/modeling_qwen2.py",
    fixed=dict(attention_bias=True, attention_out_bias=False),
)
QWEN2_5_VL_TEXT = QWEN2.but(
    model_type="qwen2_5_vl_text",
    class_prefix="Qwen2_5_VLText",
    source=f"{TF}/qwen2_5_vl/modeling_qwen2_5_vl.py",
    # Qwen2.5-VL's language model: Qwen2's layers; the LM head lives in the whole model, so the tower has none. Its
    # attention's heads are hidden_size // num_attention_heads wide whatever head_dim says (so are Qwen2-VL's)
    keys=dict(head_dim=None),
    default_arch="base",
)
QWEN2_VL_TEXT = QWEN2_5_VL_TEXT.but(
    model_type="qwen2_vl_text", class_prefix="Qwen2VLText", source=f"{TF}/qwen2_vl/modeling_qwen2_vl.py"
)
QWEN3 = LLAMA.but(
    model_type="qwen3",
    class_prefix="Qwen3",
    source=f"{TF}/qwen3/modeling_qwen3.py",
    keys=dict(mlp_bias=None),
    fixed=dict(qk_norm="head"),
)
QWEN3_VL_TEXT = QWEN3.but(
    model_type="qwen3_vl_text",
    class_prefix="Qwen3VLText",
    source=f"{TF}/qwen3_vl/modeling_qwen3_vl.py",
    default_arch="base",  # Qwen3-VL's language model: Qwen3's layers; the LM head lives in the whole model
)
GEMMA = QWEN3.but(
    model_type="gemma",
    class_prefix="Gemma",
    source=f"{TF}/gemma/modeling_gemma.py",
    fixed=dict(qk_norm=None),
)
GEMMA2 = GEMMA.but(
    model_type="gemma2",
    class_prefix="Gemma2",
    source=f"{TF}/gemma2/modeling_gemma2.py",
    # no SDPA path (attention soft-capping): eager attention, 9.0-9.7 bytes a score measured on an H100
    fixed=dict(norms_per_layer=4, scores_bytes=10),
    extra_hooks=[hooks.sliding_every(2), hooks.logit_softcap, hooks.query_scale],
    checks_width=True,
)
VAULTGEMMA = GEMMA2.but(
    model_type="vaultgemma",
    class_prefix="VaultGemma",
    source=f"{TF}/vaultgemma/modeling_vaultgemma.py",
    fixed=dict(norms_per_layer=2),  # Gemma 2 without the norms after attention and after the MLP
)
MINISTRAL = MISTRAL.but(
    model_type="ministral",
    class_prefix="Ministral",
    source=f"{TF}/ministral/modeling_ministral.py",
    extra_hooks=[hooks.head_dim_stated, hooks.sliding_layer_types],
)
MINISTRAL3 = MISTRAL.but(
    model_type="ministral3", class_prefix="Ministral3", source=f"{TF}/ministral3/modeling_ministral3.py"
)
PHI3 = MISTRAL.but(
    model_type="phi3",
    class_prefix="Phi3",
    source=f"{TF}/phi3/modeling_phi3.py",
    fixed=dict(fused=("qkv", "gate_up")),
    extra_hooks=[hooks.rope_factors],
)
STARCODER2 = MISTRAL.but(
    model_type="starcoder2",
    class_prefix="Starcoder2",
    source=f"{TF}/starcoder2/modeling_starcoder2.py",
    keys=dict(attention_bias=("use_bias",), mlp_bias=("use_bias",)),
    defaults=dict(attention_bias=True, mlp_bias=True),
    fixed=dict(mlp_gated=False, norm_type="layernorm", norm_bias=True),
)

GRANITE = LLAMA.but(model_type="granite", class_prefix="Granite", source=f"{TF}/granite/modeling_granite.py")
GRANITE_SWA = GRANITE.but(
    model_type="granite_swa",
    class_prefix="GraniteSWA",
    source=f"{TF}/granite_swa/modeling_granite_swa.py",
    fixed=dict(attention_sinks=True),  # a learned sink per head, in every layer
    extra_hooks=[hooks.sliding_every(4, first_full=True)],
)
INTERNLM3 = LLAMA.but(
    model_type="internlm3",
    class_prefix="InternLM3",
    source=f"{TF}/internlm3/configuration_internlm3.py",
    # InternLM3Config builds transformers' Llama classes; qkv_bias and bias are its names for the two biases
    class_names=dict(causal_lm="LlamaForCausalLM", base="LlamaModel"),
    keys=dict(attention_bias=("qkv_bias", "attention_bias"), mlp_bias=("bias", "mlp_bias")),
    linked=dict(qkv_bias=("bias",), bias=("qkv_bias",)),  # the config refuses them apart: an edit sets both
    extra_hooks=[hooks.same_biases],
    checks_width=True,
)
IQUESTCODER = LLAMA.but(
    model_type="iquestcoder",
    class_prefix="IQuestCoder",
    source=f"{TF}/iquestcoder/configuration_iquestcoder.py",
    # IQuestCoderConfig builds transformers' Llama classes
    class_names=dict(causal_lm="LlamaForCausalLM", base="LlamaModel"),
    hooks=(hooks.iquestcoder_options,),
    checks_width=True,
)
CWM = LLAMA.but(
    model_type="cwm",
    class_prefix="Cwm",
    source=f"{TF}/cwm/modeling_cwm.py",
    # Llama's layers without attention biases; layer_types, else every fourth layer full from the first
    keys=dict(attention_bias=None),
    hooks=(hooks.window_stated, hooks.sliding_every(4, first_full=True)),
)
DOGE = LLAMA.but(
    model_type="doge",
    class_prefix="Doge",
    source=f"{TF}/doge/modeling_doge.py",
    # Llama's layers with RMSNorms over each query and key head, Doge's dynamic mask (a decay per KV head and dt_proj
    # from the values) and two learned residual scales per layer (input_residual, post_attention_residual)
    fixed=dict(qk_norm="head", dynamic_mask=True, layer_scales=True),
    hooks=(hooks.sliding_window, hooks.doge_cdmoe),
)
HYPERCLOVAX = GRANITE.but(
    model_type="hyperclovax",
    class_prefix="HyperCLOVAX",
    source=f"{TF}/hyperclovax/modeling_hyperclovax.py",
    extra_hooks=[hooks.post_norms],  # Granite's layers with an RMSNorm after attention and after the MLP
)
SMOLLM3 = LLAMA.but(model_type="smollm3", class_prefix="SmolLM3", source=f"{TF}/smollm3/modeling_smollm3.py")
OLMO2 = LLAMA.but(
    model_type="olmo2",
    class_prefix="Olmo2",
    source=f"{TF}/olmo2/modeling_olmo2.py",
    keys=dict(mlp_bias=None),
    fixed=dict(qk_norm="full"),  # q_norm over all query heads, k_norm over all key heads
)
GEMMA3_TEXT = GEMMA2.but(
    model_type="gemma3_text",
    class_prefix="Gemma3",
    source=f"{TF}/gemma3/modeling_gemma3.py",
    fixed=dict(qk_norm="head", scores_bytes=0),  # an SDPA path again
    hooks=(hooks.sliding_window, hooks.sliding_every(6), hooks.logit_softcap, hooks.query_scale),
    checks_width=True,
)
GEMMA4_TEXT = GEMMA3_TEXT.but(
    model_type="gemma4_text",
    class_prefix="Gemma4",
    source=f"{TF}/gemma4/modeling_gemma4.py",
    class_names=dict(base="Gemma4TextModel"),
    keys=dict(
        global_head_dim=("global_head_dim",),
        global_kv_heads=("num_global_key_value_heads",),
        global_k_eq_v=("attention_k_eq_v",),
        kv_shared_layers=("num_kv_shared_layers",),
        per_layer_input=("hidden_size_per_layer_input",),
        per_layer_vocab=("vocab_size_per_layer_input",),
        num_experts=("num_experts",),
        num_experts_per_tok=("top_k_experts",),
        moe_intermediate_size=("moe_intermediate_size",),
    ),
    # global_head_dim is a keyword Gemma4TextConfig reads, not a field it keeps
    defaults=dict(global_head_dim=512),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        lora_moe="router",  # PEFT adapts the router's proj and leaves the expert tensors frozen
    ),
    hooks=(hooks.sliding_window, hooks.gemma4_layers, hooks.logit_softcap),
    checks_width=False,
)
GEMMA3N_TEXT = GEMMA3_TEXT.but(
    model_type="gemma3n_text",
    class_prefix="Gemma3n",
    source=f"{TF}/gemma3n/modeling_gemma3n.py",
    class_names=dict(base="Gemma3nTextModel"),
    keys=dict(
        kv_shared_layers=("num_kv_shared_layers",),
        per_layer_input=("hidden_size_per_layer_input",),
        per_layer_vocab=("vocab_size_per_layer_input",),
        altup_num_inputs=("altup_num_inputs",),
        laurel_rank=("laurel_rank",),
    ),
    # Gemma 3's layers (q/k norms per head, a v norm without a weight, four norms) with Gemma 4's per-layer inputs and
    # layers reusing keys and values, AltUp's streams and LAuReL; intermediate_size may list one width per layer
    read_by_hooks=("intermediate_size",),
    hooks=(hooks.sliding_window, hooks.gemma3n_layers, hooks.logit_softcap),
    checks_width=True,
)

ERNIE4_5 = LLAMA.but(
    model_type="ernie4_5",
    class_prefix="Ernie4_5",
    source=f"{TF}/ernie4_5/modeling_ernie4_5.py",
    keys=dict(attention_bias=("use_bias",), mlp_bias=("use_bias",)),
)
HUNYUAN_V1_DENSE = LLAMA.but(
    model_type="hunyuan_v1_dense",
    class_prefix="HunYuanDenseV1",
    source=f"{TF}/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py",
    keys=dict(mlp_bias=None),  # HunYuanDenseV1MLP is built without biases whatever mlp_bias says
    fixed=dict(qk_norm="head"),  # query_layernorm and key_layernorm, always
)
HUNYUAN_V1_MOE = HUNYUAN_V1_DENSE.but(
    model_type="hunyuan_v1_moe",
    class_prefix="HunYuanMoEV1",
    source=f"{TF}/hunyuan_v1_moe/modeling_hunyuan_v1_moe.py",
    keys=dict(mlp_bias=None, num_experts=("num_experts", "num_local_experts")),
    # experts and the shared MLP are all intermediate_size wide; the router has no bias
    derive=dict(
        moe_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True),
        shared_expert_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True),
    ),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        # kept fp32 in 16 bit: the router's weight, made fp32 by the modeling file
        fp32_weights=("layers/moe/router",),
        lora_moe="tensors",
        num_shared_experts=1,
    ),
    hooks=(hooks.head_dim_stated, hooks.hunyuan_moe),
)
SEED_OSS = LLAMA.but(
    model_type="seed_oss",
    class_prefix="SeedOss",
    source=f"{TF}/seed_oss/modeling_seed_oss.py",
    keys=dict(attention_out_bias=("attention_out_bias",)),
)
ARCEE = LLAMA.but(
    model_type="arcee",
    class_prefix="Arcee",
    source=f"{TF}/arcee/modeling_arcee.py",
    fixed=dict(mlp_gated=False),  # up and down only (ReLU²)
    checks_width=True,
)
HELIUM = LLAMA.but(
    model_type="helium",
    class_prefix="Helium",
    source=f"{TF}/helium/modeling_helium.py",
    fixed=dict(attention_out_bias=False),
    extra_hooks=[hooks.helium_output_width],
)
OLMO3 = OLMO2.but(
    model_type="olmo3",
    class_prefix="Olmo3",
    source=f"{TF}/olmo3/modeling_olmo3.py",
    hooks=(hooks.sliding_window, hooks.sliding_every(4)),
)
EXAONE4 = OLMO2.but(
    model_type="exaone4",
    class_prefix="Exaone4",
    source=f"{TF}/exaone4/modeling_exaone4.py",
    keys=dict(attention_bias=None),  # its q, k, v and o are built without biases whatever the file says
    fixed=dict(qk_norm="head", attention_bias=False),
    hooks=(hooks.sliding_window, hooks.sliding_every(4)),
)
EXAONE_MOE = EXAONE4.but(
    model_type="exaone_moe",
    class_prefix="ExaoneMoe",
    source=f"{TF}/exaone_moe/modeling_exaone_moe.py",
    # routed experts and a shared expert of moe_intermediate_size after first_k_dense_replace dense layers (or as
    # mlp_layer_types says); the router keeps a correction bias as a buffer
    keys=dict(
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        num_shared_experts=("num_shared_experts",),
        first_k_dense_replace=("first_k_dense_replace",),
    ),
    defaults=dict(num_shared_experts=0, first_k_dense_replace=0),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        lora_moe="tensors",
    ),
    extra_hooks=[hooks.mlp_layer_types],
    notes=(hooks.router_bias_buffers,),
)
GLM = LLAMA.but(
    model_type="glm",
    class_prefix="Glm",
    source=f"{TF}/glm/modeling_glm.py",
    keys=dict(mlp_bias=None),
    fixed=dict(attention_out_bias=False, fused=("gate_up",)),
)
GLM4 = GLM.but(
    model_type="glm4",
    class_prefix="Glm4",
    source=f"{TF}/glm4/modeling_glm4.py",
    fixed=dict(norms_per_layer=4),
)
GLM4V_TEXT = GLM4.but(
    model_type="glm4v_text",
    class_prefix="Glm4vText",
    source=f"{TF}/glm4v/modeling_glm4v.py",
    # GLM-4V's language model: GLM-4's layers with biases on q, k and v always, heads hidden_size // num_attention_heads
    # wide whatever head_dim says; the LM head lives in the whole model
    keys=dict(attention_bias=None, head_dim=None),
    fixed=dict(attention_bias=True),
    derive=dict(head_dim=Rule(HEADS_FLOORED.text, HEADS_FLOORED.fn, always=True)),  # whatever head_dim says
    default_arch="base",
)
COHERE = LLAMA.but(
    model_type="cohere",
    class_prefix="Cohere",
    source=f"{TF}/cohere/modeling_cohere.py",
    keys=dict(mlp_bias=None),
    defaults=dict(tie_word_embeddings=True),
    # one weight-only LayerNorm before attention and MLP, which run in parallel
    fixed=dict(norm_type="layernorm", norm_bias=False, parallel_attn=True, norms_per_layer=1),
    extra_hooks=[hooks.cohere_qk_norm],
)
COHERE2 = COHERE.but(
    model_type="cohere2",
    class_prefix="Cohere2",
    source=f"{TF}/cohere2/modeling_cohere2.py",
    hooks=(hooks.sliding_window, hooks.sliding_every(4)),
)
COHERE2_MOE = COHERE2.but(
    model_type="cohere2_moe",
    class_prefix="Cohere2Moe",
    source=f"{TF}/cohere2_moe/modeling_cohere2_moe.py",
    keys=dict(
        # the dense prefix layers' width; the experts' (and each shared expert's) is intermediate_size
        intermediate_size=("prefix_dense_intermediate_size",),
        moe_intermediate_size=("intermediate_size",),
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        num_shared_experts=("num_shared_experts",),
        first_k_dense_replace=("first_k_dense_replace",),
    ),
    defaults=dict(num_shared_experts=0, first_k_dense_replace=0),
    derive=dict(intermediate_size=Rule("intermediate_size", lambda d: d["moe_intermediate_size"])),
    fixed=dict(lora_moe="tensors"),
    hooks=(hooks.sliding_window, hooks.cohere2_moe_layers),
)

OLMO = LLAMA.but(
    model_type="olmo",
    class_prefix="Olmo",
    source=f"{TF}/olmo/modeling_olmo.py",
    keys=dict(mlp_bias=None, head_dim=None),
    # OlmoLayerNorm: a LayerNorm without weight or bias, so no norm holds a parameter
    fixed=dict(norm_type="layernorm", norm_bias=False, norms_per_layer=0, final_norm=False),
)
NANOCHAT = OLMO.but(
    model_type="nanochat",
    class_prefix="NanoChat",
    source=f"{TF}/nanochat/modeling_nanochat.py",
    # every norm (the layers', the final one, q and k's) is a parameter-free RMSNorm; the MLP is fc1 and fc2 (ReLU²)
    keys=dict(head_dim=("head_dim",)),
    fixed=dict(mlp_gated=False),
    hooks=(),
)
STABLELM = LLAMA.but(
    model_type="stablelm",
    class_prefix="StableLm",
    source=f"{TF}/stablelm/modeling_stablelm.py",
    keys=dict(attention_bias=("use_qkv_bias",), mlp_bias=None, head_dim=None, parallel_attn=("use_parallel_residual",)),
    defaults=dict(parallel_attn=False),
    fixed=dict(norm_type="layernorm", norm_bias=True, attention_out_bias=False, qk_norm_bias=False),
    hooks=(hooks.stablelm_layout,),
)
NEMOTRON = LLAMA.but(
    model_type="nemotron",
    class_prefix="Nemotron",
    source=f"{TF}/nemotron/modeling_nemotron.py",
    # LayerNorm1P: a LayerNorm with weight and bias; the MLP is up and down only (ReLU²)
    fixed=dict(norm_type="layernorm", norm_bias=True, mlp_gated=False),
    hooks=(hooks.kv_heads_stated,),
)
JAIS2 = NEMOTRON.but(
    model_type="jais2",
    class_prefix="Jais2",
    source=f"{TF}/jais2/modeling_jais2.py",
    # LayerNorms with biases, biases on q, k, v and o, an up and down MLP (ReLU²) with biases
    hooks=(),
)
APERTUS = LLAMA.but(
    model_type="apertus",
    class_prefix="Apertus",
    source=f"{TF}/apertus/modeling_apertus.py",
    keys=dict(mlp_bias=None),
    fixed=dict(mlp_gated=False, qk_norm="head"),
    hooks=(hooks.xielu,),
)
BITNET = LLAMA.but(
    model_type="bitnet",
    class_prefix="BitNet",
    source=f"{TF}/bitnet/modeling_bitnet.py",
    keys=dict(mlp_bias=None),
    fixed=dict(sub_norms=True),  # attn_sub_norm (hidden_size) before o_proj, ffn_sub_norm (intermediate) before down
    hooks=(),
)

# ---------------------------------------------------------------------------------------- experts
MIXTRAL = MISTRAL.but(
    model_type="mixtral",
    class_prefix="Mixtral",
    source=f"{TF}/mixtral/modeling_mixtral.py",
    keys=dict(num_experts=("num_local_experts",), num_experts_per_tok=("num_experts_per_tok",)),
    derive=dict(moe_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True)),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        lora_moe="tensors",
    ),
)
MINIMAX = MIXTRAL.but(
    model_type="minimax",
    class_prefix="MiniMax",
    source=f"{TF}/minimax/modeling_minimax.py",
    keys=dict(head_dim=("head_dim",)),
    # lightning attention in the layers layer_types names linear_attention, softmax attention in the others; every
    # layer's feed-forward block is Mixtral's experts
    extra_hooks=[hooks.lightning_layers],
)
JETMOE = LLAMA.but(
    model_type="jetmoe",
    class_prefix="JetMoe",
    source=f"{TF}/jetmoe/modeling_jetmoe.py",
    keys=dict(
        head_dim=("kv_channels", "head_dim"),
        num_attention_heads=None,
        num_experts=("num_local_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        hidden_act=("activation_function",),
        attention_bias=None,
        mlp_bias=None,
    ),
    # attention and feed-forward are both mixtures of num_local_experts experts, num_experts_per_tok per token,
    # each block ending in one bias
    derive=dict(
        num_attention_heads=Rule(
            "num_key_value_heads*num_experts_per_tok",
            lambda d: d["num_key_value_heads"] * d["num_experts_per_tok"],
            always=True,
        ),
        attention_experts=Rule("num_local_experts", lambda d: d["num_experts"], always=True),
        moe_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True),
    ),
    fixed=dict(mlp_gated=True, moe_output_bias=True, lora_moe="router"),
)
LONGCAT_FLASH = LLAMA.but(
    model_type="longcat_flash",
    class_prefix="LongcatFlash",
    source=f"{TF}/longcat_flash/modeling_longcat_flash.py",
    keys=dict(
        num_hidden_layers=("num_layers",),
        intermediate_size=("ffn_hidden_size", "intermediate_size"),
        mlp_bias=None,
        head_dim=None,
        num_experts=("n_routed_experts", "num_local_experts"),
        num_experts_per_tok=("moe_topk", "num_experts_per_tok"),
        moe_intermediate_size=("expert_ffn_hidden_size", "moe_intermediate_size"),
        zero_experts=("zero_expert_num",),
        router_bias=("router_bias",),
        q_lora_rank=("q_lora_rank",),
        kv_lora_rank=("kv_lora_rank",),
        qk_nope_head_dim=("qk_nope_head_dim",),
        qk_rope_head_dim=("qk_rope_head_dim",),
        v_head_dim=("v_head_dim",),
    ),
    defaults=dict(router_bias=False, zero_experts=0),
    derive=dict(head_dim=Rule("qk_rope_head_dim", lambda d: d["qk_rope_head_dim"], always=True)),
    # each layer: two (MLA attention, dense MLP) pairs with four norms, and one MoE block beside them whose router
    # also scores zero_expert_num slots that compute nothing
    fixed=dict(
        # kept fp32 in 16 bit: _keep_in_fp32_modules (fp16)
        fp32_weights_fp16=("layers/moe/router.weight",),  # classifier.weight: its bias stays 16-bit
        sublayers=2,
        norms_per_layer=4,
        lora_moe="tensors",
    ),
    extra_hooks=[hooks.mla_qk_head_dim],
    notes=(hooks.zero_expert_rows, hooks.router_bias_buffers),
)
QWEN2_MOE = QWEN2.but(
    model_type="qwen2_moe",
    class_prefix="Qwen2Moe",
    source=f"{TF}/qwen2_moe/modeling_qwen2_moe.py",
    keys=dict(
        attention_bias=("qkv_bias",),
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        shared_expert_intermediate_size=("shared_expert_intermediate_size",),
    ),
    defaults=dict(attention_bias=True),
    fixed=dict(attention_bias=None),
    extra_hooks=[hooks.sparse_step, hooks.shared_expert_gate],
)
FLINT = QWEN2_MOE.but(
    model_type="flint",
    class_prefix="Flint",
    source=f"{TF}/flint/modeling_flint.py",
    # Qwen3-MoE's attention (q/k norms) with a learned sink per head; a shared expert without Qwen2-MoE's gate
    keys=dict(attention_bias=("attention_bias",)),
    defaults=dict(attention_bias=False),
    # PEFT leaves its experts frozen
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        # kept fp32 in 16 bit: _keep_in_fp32_modules_strict
        fp32_weights=("layers/attention/sinks", "layers/moe/router"),
        attention_out_bias=None,
        qk_norm="head",
        attention_sinks=True,
    ),
    hooks=(hooks.window_stated, hooks.flint_layers, hooks.ungated_shared_expert),
)
DEEPSEEK_V2 = LLAMA.but(
    model_type="deepseek_v2",
    class_prefix="DeepseekV2",
    source=f"{TF}/deepseek_v2/modeling_deepseek_v2.py",
    # DeepseekV2MLP (the dense layers and the shared experts) is biased by mlp_bias; the routed experts never are
    keys=dict(
        head_dim=None,
        num_experts=("n_routed_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        num_shared_experts=("n_shared_experts",),
        first_k_dense_replace=("first_k_dense_replace",),
        q_lora_rank=("q_lora_rank",),
        kv_lora_rank=("kv_lora_rank",),
        qk_nope_head_dim=("qk_nope_head_dim",),
        qk_rope_head_dim=("qk_rope_head_dim",),
        v_head_dim=("v_head_dim",),
    ),
    defaults=dict(num_shared_experts=0, first_k_dense_replace=0),
    derive=dict(head_dim=Rule("qk_rope_head_dim", lambda d: d["qk_rope_head_dim"], always=True)),
    checks_width=True,
    fixed=dict(
        # its router's top-k weights are fp32 (so are its children's but Mistral 4's)
        routing_fp32=True,
        lora_moe="tensors",
        expert_bias=False,
    ),
)

DEEPSEEK_V3 = DEEPSEEK_V2.but(
    model_type="deepseek_v3",
    class_prefix="DeepseekV3",
    source=f"{TF}/deepseek_v3/modeling_deepseek_v3.py",
    # its MLPs (and its children's) are built without biases whatever mlp_bias says
    keys=dict(mlp_bias=None),
    notes=(hooks.mtp_layers, hooks.router_bias_buffers),
)
MISTRAL4 = DEEPSEEK_V3.but(
    model_type="mistral4",
    class_prefix="Mistral4",
    source=f"{TF}/mistral4/modeling_mistral4.py",
    # DeepSeek-V3's multi-head latent attention and shared-expert MoE in Mistral's text model; PEFT does not convert
    # this type, so its stacked experts stay frozen under LoRA
    fixed=dict(
        # its router casts the weights to the hidden states' dtype
        routing_fp32=False,
        lora_moe="frozen",
    ),
    notes=(),
)
KIMI_K2 = DEEPSEEK_V3.but(model_type="kimi_k2", read_as="deepseek_v3")
DEEPSEEK_V32 = DEEPSEEK_V3.but(
    model_type="deepseek_v32",
    class_prefix="DeepseekV32",
    source=f"{TF}/deepseek_v32/modeling_deepseek_v32.py",
    keys=dict(index_n_heads=("index_n_heads",), index_head_dim=("index_head_dim",)),
    extra_hooks=[hooks.mlp_layer_types],
    fixed=dict(
        # kept fp32 in 16 bit: _keep_in_fp32_modules (fp16)
        fp32_weights_fp16=("layers/attention/indexer/weights",),
    ),
)
GLM_MOE_DSA = DEEPSEEK_V32.but(
    model_type="glm_moe_dsa",
    class_prefix="GlmMoeDsa",
    source=f"{TF}/glm_moe_dsa/modeling_glm_moe_dsa.py",
    # GLM-5: DeepSeek-V3.2's latent attention with its indexer, dense first layers (mlp_layer_types), shared experts;
    # a stated num_experts overrides n_routed_experts, as GlmMoeDsaConfig re-routes it
    keys=dict(num_experts=("num_experts", "n_routed_experts")),
    extra_hooks=[hooks.glm5_indexers],
)
AXK1 = DEEPSEEK_V3.but(
    model_type="axk1",
    class_prefix="AXK1",
    source=f"{TF}/axk1/modeling_axk1.py",
    # A.X K1: DeepSeek-V3 with an RMSNorm on each MoE block's output (post_mlp_layernorm); dense layers where
    # mlp_layer_types says, else as first_k_dense_replace (1) and moe_layer_freq (1) say
    fixed=dict(moe_norms=1, lora_moe="frozen"),  # PEFT leaves its experts frozen
    hooks=(hooks.sliding_window, hooks.axk1_mlp_layers, hooks.q_lora_stated),
)
GLM4_MOE_LITE = DEEPSEEK_V3.but(
    model_type="glm4_moe_lite",
    class_prefix="Glm4MoeLite",
    source=f"{TF}/glm4_moe_lite/modeling_glm4_moe_lite.py",
    # DeepSeek-V3's latent attention and shared-expert MoE; mlp_layer_types (by default: the first layer dense)
    keys=dict(first_k_dense_replace=None),
    fixed=dict(first_k_dense_replace=1),
    extra_hooks=[hooks.mlp_layer_types],
    notes=(hooks.router_bias_buffers,),
)
HY_V3 = QWEN3.but(
    model_type="hy_v3",
    class_prefix="HYV3",
    source=f"{TF}/hy_v3/modeling_hy_v3.py",
    # Qwen3's attention; routed experts and num_shared_experts x moe_intermediate_size shared after the dense layers
    # mlp_layer_types names (by default the first); the router keeps a correction bias as a buffer
    keys=dict(
        mlp_bias=("mlp_bias",),
        num_experts=("num_experts", "num_local_experts"),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        num_shared_experts=("num_shared_experts",),
    ),
    defaults=dict(mlp_bias=False, num_shared_experts=0),
    # PEFT leaves its stacked experts frozen
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        first_k_dense_replace=1,
        expert_bias=False,
    ),
    extra_hooks=[hooks.mlp_layer_types],
    notes=(hooks.router_bias_buffers,),
)
MIMO_V2_FLASH = LLAMA.but(
    model_type="mimo_v2_flash",
    class_prefix="MiMoV2Flash",
    source=f"{TF}/mimo_v2_flash/modeling_mimo_v2_flash.py",
    # values narrower than queries and keys (v_head_dim); the sliding layers have twice the KV heads and a sink per
    # head; routed experts (no shared one) after the dense layers mlp_layer_types names (by default the first)
    keys=dict(
        mlp_bias=None,
        v_head_dim=("v_head_dim",),
        num_experts=("n_routed_experts", "num_local_experts"),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
    ),
    derive=dict(
        sliding_kv_heads=Rule("2*num_key_value_heads", lambda d: 2 * (d["num_key_value_heads"] or 0), always=True)
    ),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        sliding_sinks=True,
        attention_out_bias=False,
        first_k_dense_replace=1,
    ),
    hooks=(hooks.sliding_window, hooks.mimo_layers, hooks.mlp_layer_types),
    notes=(hooks.router_bias_buffers,),
)
AFMOE = LLAMA.but(
    model_type="afmoe",
    class_prefix="Afmoe",
    source=f"{TF}/afmoe/modeling_afmoe.py",
    # q/k norms per head and a gate projection on the attention output; four norms a layer; after num_dense_layers
    # dense layers, routed experts with a learned score bias beside num_shared_experts x moe_intermediate_size shared
    keys=dict(
        mlp_bias=None,
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        num_shared_experts=("num_shared_experts",),
        first_k_dense_replace=("num_dense_layers",),
    ),
    defaults=dict(num_shared_experts=0, first_k_dense_replace=0),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        # kept fp32 in 16 bit: the class's _keep_in_fp32_modules (fp16)
        fp32_weights_fp16=("layers/attention/qk_norm", "layers/norm", "final_norm", "layers/moe/expert_bias"),
        qk_norm="head",
        norms_per_layer=4,
        attention_gate_proj=True,
        expert_score_bias=True,
        lora_moe="tensors",
    ),
    hooks=(hooks.sliding_window, hooks.sliding_every(4, key="global_attn_every_n_layers")),
)
MINICPM3 = DEEPSEEK_V2.but(
    model_type="minicpm3",
    class_prefix="MiniCPM3",
    source=f"{TF}/minicpm3/modeling_minicpm3.py",
    # DeepSeek-V2's latent attention over a dense MLP in every layer: no experts
    keys=dict(
        num_experts=None,
        num_experts_per_tok=None,
        moe_intermediate_size=None,
        num_shared_experts=None,
        first_k_dense_replace=None,
    ),
    defaults=dict(num_shared_experts=None, first_k_dense_replace=None, tie_word_embeddings=True),
    derive=dict(
        v_head_dim=Rule(
            "hidden_size // num_attention_heads",
            lambda d: d["hidden_size"] // d["num_attention_heads"] if d["num_attention_heads"] else None,
        )
    ),
    fixed=dict(lora_moe=None),
)
YOUTU = MINICPM3.but(
    model_type="youtu",
    class_prefix="Youtu",
    source=f"{TF}/youtu/modeling_youtu.py",
    # DeepSeek-V3's latent attention over a dense MLP in every layer (no biases, whatever mlp_bias says), tied
    # embeddings
    keys=dict(mlp_bias=None),
    derive=dict(v_head_dim=None),
)
DEEPSEEK_V4 = Family(
    model_type="deepseek_v4",
    class_prefix="DeepseekV4",
    source=f"{TF}/deepseek_v4/modeling_deepseek_v4.py",
    keys=dict(
        {k: v for k, v in CORE_KEYS.items() if k != "intermediate_size"},  # its alias of moe_intermediate_size
        head_dim=("head_dim",),
        q_lora_rank=("q_lora_rank",),
        moe_intermediate_size=("moe_intermediate_size", "intermediate_size"),
        num_experts=("n_routed_experts", "num_local_experts"),
        num_experts_per_tok=("num_experts_per_tok",),
        o_groups=("o_groups",),
        o_lora_rank=("o_lora_rank",),
        index_n_heads=("index_n_heads",),
        index_head_dim=("index_head_dim",),
        index_topk=("index_topk",),
        hc_mult=("hc_mult",),
        mlp_bias=("mlp_bias",),
    ),
    defaults=dict(mlp_bias=False),
    derive=dict(intermediate_size=Rule("moe_intermediate_size", lambda d: d["moe_intermediate_size"], always=True)),
    # every layer routes (hash-routed or learned) to experts beside one shared expert; one key/value head; the
    # sliding window (sliding_window) in every layer
    fixed=dict(
        # kept fp32 in 16 bit: the class's _keep_in_fp32_modules_strict (its norms, sinks, position biases and
        # hyper-connections), and in fp16 its _keep_in_fp32_modules (the compressors' and their indexers' projections)
        fp32_weights=(
            "layers/attention/sinks",
            "layers/attention/q_a_norm",
            "layers/attention/kv_norm",
            "layers/*_compressor/position_bias",
            "layers/*_compressor/kv_norm",
            "layers/*_compressor/indexer/position_bias",
            "layers/*_compressor/indexer/kv_norm",
            "layers/hyper_connections",
            "layers/norm",
            "final_norm",
            "head/hyper_head",
        ),
        fp32_weights_fp16=(
            "layers/*_compressor/kv",
            "layers/*_compressor/gate",
            "layers/*_compressor/indexer/kv",
            "layers/*_compressor/indexer/gate",
            "layers/*_compressor/indexer/weights",
        ),
        mlp_gated=True,
        norm_type="rmsnorm",
        norm_bias=False,
        position_embedding="rotary",
        shared_kv_head=True,
        num_key_value_heads=1,
        attention_sinks=True,
        num_shared_experts=1,
        expert_bias=False,
    ),
    hooks=(hooks.sliding_window, hooks.deepseek_v4_layers),
    notes=(hooks.v4_buffers,),
)
QWEN3_MOE = QWEN3.but(
    model_type="qwen3_moe",
    class_prefix="Qwen3Moe",
    source=f"{TF}/qwen3_moe/modeling_qwen3_moe.py",
    keys=dict(
        num_experts=("num_experts", "num_local_experts"),  # transformers 5 saves it as num_local_experts
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
    ),
    extra_hooks=[hooks.sparse_step],
    fixed=dict(lora_moe="tensors"),
)
LAGUNA = LLAMA.but(
    model_type="laguna",
    class_prefix="Laguna",
    source=f"{TF}/laguna/modeling_laguna.py",
    # AFMoE's attention (q/k norms per head) with a gate per head (or per channel), sliding layers where layer_types
    # says; routed experts with a learned score bias beside one ungated shared expert after the dense layers
    # mlp_layer_types names (by default the first)
    keys=dict(
        mlp_bias=None,
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        shared_expert_intermediate_size=("shared_expert_intermediate_size",),
    ),
    fixed=dict(qk_norm="head", expert_score_bias=True, first_k_dense_replace=1),
    hooks=(
        hooks.window_stated,
        hooks.named_sliding_layers,
        hooks.mlp_layer_types,
        hooks.laguna_attention,
        hooks.ungated_shared_expert,
    ),
)
MELLUM = QWEN3_MOE.but(
    model_type="mellum",
    class_prefix="Mellum",
    source=f"{TF}/mellum/modeling_mellum.py",
    # Qwen3-MoE's layers; dense layers where mlp_layer_types says, sliding ones where layer_types says
    keys=dict(num_experts=("num_local_experts", "num_experts")),
    hooks=(hooks.window_stated, hooks.mlp_layer_types, hooks.named_sliding_layers, hooks.sparse_without_experts),
)
KOLIBRI1 = QWEN3_MOE.but(
    model_type="kolibri1",
    class_prefix="Kolibri1",
    source=f"{TF}/kolibri1/modeling_kolibri1.py",
    # Qwen3-MoE's experts in every layer beside one ungated shared expert, EXAONE 4's attention (q/k norms, no
    # biases), GLM-4's four norms a layer; every fifth layer full, the others sliding (or as layer_types says)
    keys=dict(
        attention_bias=None,
        intermediate_size=None,
        num_experts=("num_local_experts", "num_experts"),
        shared_expert_intermediate_size=("shared_expert_intermediate_size",),
    ),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        norms_per_layer=4,
        lora_moe="frozen",  # PEFT leaves its stacked experts frozen
    ),
    hooks=(
        hooks.window_stated,
        hooks.sliding_every(5, needs_window="Kolibri"),
        hooks.ungated_shared_expert,
        hooks.sparse_without_experts,
    ),
    notes=(hooks.router_bias_buffers,),
)
OLMOE = OLMO2.but(
    model_type="olmoe",
    class_prefix="Olmoe",
    source=f"{TF}/olmoe/modeling_olmoe.py",
    # OlmoeConfig has no head_dim: q_norm spans hidden_size, k_norm (hidden_size // heads) * kv heads
    keys=dict(num_experts=("num_experts",), num_experts_per_tok=("num_experts_per_tok",), head_dim=None),
    derive=dict(moe_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True)),
    fixed=dict(lora_moe="tensors"),
)

FLEX_OLMO = OLMOE.but(
    model_type="flex_olmo",
    class_prefix="FlexOlmo",
    source=f"{TF}/flex_olmo/modeling_flex_olmo.py",
    # OLMoE's experts with OLMo 2's norms after attention and after the experts (two a layer either way)
    keys=dict(head_dim=None),
)
GPT_OSS = MIXTRAL.but(
    model_type="gpt_oss",
    class_prefix="GptOss",
    source=f"{TF}/gpt_oss/modeling_gpt_oss.py",
    keys=dict(
        attention_bias=("attention_bias",),
        num_experts=("num_local_experts", "num_experts"),
        num_experts_per_tok=("num_experts_per_tok", "experts_per_token"),
    ),
    # experts carry biases (gate_up_proj_bias, down_proj_bias), the router a bias, each attention head a sink
    fixed=dict(
        # its router's top-k weights are in the hidden states' dtype
        routing_fp32=False,
        # kept fp32 in 16 bit: _keep_in_fp32_modules (fp16)
        fp32_weights_fp16=("layers/norm", "final_norm"),
        lora_moe="frozen",
        mlp_bias=True,
        router_bias=True,
        attention_sinks=True,
        # its experts' own gate: gate and up clamped, gate * sigmoid(alpha * gate) * (up + 1)
        clamped_swiglu=True,
    ),
    hooks=(hooks.sliding_window, hooks.sliding_every(2)),
)

GLM4_MOE = LLAMA.but(
    model_type="glm4_moe",
    class_prefix="Glm4Moe",
    source=f"{TF}/glm4_moe/modeling_glm4_moe.py",
    keys=dict(
        mlp_bias=None,
        num_experts=("n_routed_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        num_shared_experts=("n_shared_experts",),
        first_k_dense_replace=("first_k_dense_replace",),
    ),
    defaults=dict(num_shared_experts=0, first_k_dense_replace=0),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        lora_moe="tensors",
        attention_out_bias=False,
    ),
    extra_hooks=[hooks.use_qk_norm],
    notes=(hooks.mtp_layers, hooks.router_bias_buffers),
)
GLM4V_MOE_TEXT = GLM4_MOE.but(
    model_type="glm4v_moe_text",
    class_prefix="Glm4vMoeText",
    source=f"{TF}/glm4v_moe/modeling_glm4v_moe.py",
    # GLM-4.5V's language model: GLM-4.5's layers without use_qk_norm (its config class drops it); the LM head lives in
    # the whole model
    default_arch="base",
    hooks=(hooks.sliding_window,),
    derive=dict(head_dim=HEADS_FLOORED),  # where the file states none
    fixed=dict(lora_moe="frozen"),  # PEFT does not convert this type: its stacked experts stay frozen
    notes=(hooks.router_bias_buffers,),
)
DOTS1 = GLM4_MOE.but(
    model_type="dots1",
    class_prefix="Dots1",
    source=f"{TF}/dots1/modeling_dots1.py",
    fixed=dict(attention_out_bias=None, qk_norm="head"),
    hooks=(hooks.sliding_window,),
)
SOLAR_OPEN = GLM4_MOE.but(
    model_type="solar_open",
    class_prefix="SolarOpen",
    source=f"{TF}/solar_open/modeling_solar_open.py",
    # GLM-4.5's routed and shared experts in every layer, Llama's attention with no bias on o_proj, no q/k norms
    keys=dict(first_k_dense_replace=None, intermediate_size=None),
    defaults=dict(first_k_dense_replace=None),
    hooks=(),
    notes=(hooks.router_bias_buffers,),
)
GRANITEMOE = MIXTRAL.but(
    model_type="granitemoe",
    class_prefix="GraniteMoe",
    source=f"{TF}/granitemoe/modeling_granitemoe.py",
    keys=dict(attention_bias=("attention_bias",)),
    fixed=dict(
        # its router's top-k weights are in the hidden states' dtype
        routing_fp32=False,
        lora_moe="frozen",
    ),
)
GRANITEMOESHARED = GRANITEMOE.but(
    model_type="granitemoeshared",
    class_prefix="GraniteMoeShared",
    source=f"{TF}/granitemoeshared/modeling_granitemoeshared.py",
    keys=dict(shared_expert_intermediate_size=("shared_intermediate_size",)),  # 0: no shared MLP
    fixed=dict(fused=("gate_up",)),  # the shared MLP's input_linear is gate and up in one layer
)
GRANITEMOE_SWA = GRANITEMOESHARED.but(
    model_type="granitemoe_swa",
    class_prefix="GraniteMoeSWA",
    source=f"{TF}/granitemoe_swa/modeling_granitemoe_swa.py",
    fixed=dict(attention_sinks=True),
    extra_hooks=[hooks.sliding_every(4, first_full=True)],
)
PHIMOE = MIXTRAL.but(
    model_type="phimoe",
    class_prefix="Phimoe",
    source=f"{TF}/phimoe/modeling_phimoe.py",
    keys=dict(attention_bias=("attention_bias",), lm_head_bias=("lm_head_bias",)),
    fixed=dict(
        # its router's top-k weights are in the hidden states' dtype
        routing_fp32=False,
        lora_moe="router",
        norm_type="layernorm",
        norm_bias=True,
    ),
)

LLAMA4_TEXT = LLAMA.but(
    model_type="llama4_text",
    class_prefix="Llama4",
    source=f"{TF}/llama4/modeling_llama4.py",
    keys=dict(
        mlp_bias=None,
        intermediate_size=("intermediate_size_mlp",),  # the dense layers' MLP
        moe_intermediate_size=("intermediate_size",),  # one expert's (and the shared expert's) width
        num_experts=("num_local_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
    ),
    fixed=dict(lora_moe="router", num_shared_experts=1),  # every MoE layer adds a shared expert of the same width
    hooks=(hooks.llama4_layers,),
)
MLLAMA_TEXT = LLAMA.but(
    model_type="mllama_text_model",
    class_prefix="MllamaText",
    source=f"{TF}/mllama/modeling_mllama.py",
    class_names=dict(causal_lm="MllamaForCausalLM"),
    keys=dict(head_dim=None, attention_bias=None, mlp_bias=None),
    # Llama 3.2 Vision's language model: Llama's layers (head_dim always hidden_size // heads, no biases), the layers
    # cross_attention_layers lists attending to the vision tower (q/k norms per head, tanh gates on attention and MLP);
    # a token table of vocab_size + 8 rows; the head (vocab_size rows) is never tied: the classes declare no tying
    fixed=dict(extra_token_rows=8, tie_word_embeddings=False),
    hooks=(hooks.mllama_cross_layers,),
)
ERNIE4_5_MOE = ERNIE4_5.but(
    model_type="ernie4_5_moe",
    class_prefix="Ernie4_5_Moe",
    source=f"{TF}/ernie4_5_moe/modeling_ernie4_5_moe.py",
    keys=dict(
        num_experts=("moe_num_experts",),
        num_experts_per_tok=("moe_k",),
        moe_intermediate_size=("moe_intermediate_size",),
        num_shared_experts=("moe_num_shared_experts",),
        lm_head_bias=("use_bias",),  # unlike ERNIE 4.5's dense class
    ),
    # e_score_correction_bias (one per expert) is a Parameter here, a buffer in DeepSeek-V3: counted as the
    # router's bias; the shared experts are one MLP of moe_intermediate_size × moe_num_shared_experts
    fixed=dict(
        # kept fp32 in 16 bit: _keep_in_fp32_modules_strict
        fp32_weights=("layers/moe/router",),
        lora_moe="tensors",
        router_bias=True,
    ),
    hooks=(hooks.ernie_moe_layers,),
)
QWEN3_VL_MOE_TEXT = QWEN3_MOE.but(
    model_type="qwen3_vl_moe_text",
    class_prefix="Qwen3VLMoeText",
    source=f"{TF}/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
    default_arch="base",  # Qwen3-VL-MoE's language model: Qwen3-MoE's layers; the LM head lives in the whole model
    fixed=dict(lora_moe="frozen"),  # PEFT does not convert this type: its stacked experts stay frozen
)
MINIMAX_M2 = QWEN3_MOE.but(
    model_type="minimax_m2",
    class_prefix="MiniMaxM2",
    source=f"{TF}/minimax_m2/modeling_minimax_m2.py",
    keys=dict(num_experts=("num_local_experts",), moe_intermediate_size=None, attention_bias=None),
    # q_norm and k_norm span every head; each expert is intermediate_size wide
    derive=dict(moe_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True)),
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        qk_norm="full",
    ),
    hooks=(),
    notes=(hooks.router_bias_buffers,),
)
#: Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): the sizes of its heads and convolution.
LINEAR_ATTENTION_KEYS = dict(
    linear_num_key_heads=("linear_num_key_heads",),
    linear_num_value_heads=("linear_num_value_heads",),
    linear_key_head_dim=("linear_key_head_dim",),
    linear_value_head_dim=("linear_value_head_dim",),
    linear_conv_kernel_dim=("linear_conv_kernel_dim",),
)
QWEN3_5_TEXT = QWEN3.but(
    model_type="qwen3_5_text",
    class_prefix="Qwen3_5",
    source=f"{TF}/qwen3_5/modeling_qwen3_5.py",
    keys=LINEAR_ATTENTION_KEYS,
    # three Gated DeltaNet layers to one attention layer whose q_proj also emits an output gate; the Gated DeltaNet's
    # q, k and v are one projection (in_proj_qkv), z, b and a one each
    fixed=dict(attn_output_gate=True, fused=("in_qkv",)),
    extra_hooks=[hooks.linear_attention_layers],
)
QWEN3_5_MOE_TEXT = QWEN3_5_TEXT.but(
    model_type="qwen3_5_moe_text",
    class_prefix="Qwen3_5Moe",
    source=f"{TF}/qwen3_5_moe/modeling_qwen3_5_moe.py",
    keys=dict(
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        shared_expert_intermediate_size=("shared_expert_intermediate_size",),
    ),
    extra_hooks=[hooks.shared_expert_gate],  # every layer holds experts and a gated shared expert
)
QWEN3_NEXT = QWEN3_5_MOE_TEXT.but(
    model_type="qwen3_next",
    class_prefix="Qwen3Next",
    source=f"{TF}/qwen3_next/modeling_qwen3_next.py",
    extra_hooks=[hooks.sparse_step],  # and decoder_sparse_step / mlp_only_layers keep dense MLPs,
    # the Gated DeltaNet's input projections are two layers (in_proj_qkvz, in_proj_ba), four in Qwen3.5
    fixed=dict(lora_moe="tensors", fused=("in_qkvz", "in_ba")),
)
KIMI_LINEAR = DEEPSEEK_V3.but(
    model_type="kimi_linear",
    class_prefix="KimiLinear",
    source=f"{TF}/kimi_linear/modeling_kimi_linear.py",
    # Kimi Linear: DeepSeek-V3's latent attention in every fourth layer, Kimi Delta Attention in the others,
    # shared-expert MoE after dense first layers; KimiLinearConfig also reads the remote-code names
    # (num_experts, num_experts_per_token, num_shared_experts, model_max_length) and the Hub file's linear_attn_config
    keys=dict(
        num_experts=("num_experts", "num_local_experts"),
        num_experts_per_tok=("num_experts_per_token", "num_experts_per_tok"),
        num_shared_experts=("num_shared_experts", "n_shared_experts"),
        max_position_embeddings=("model_max_length", "max_position_embeddings"),
        first_k_dense_replace=None,
        tie_word_embeddings=None,  # KimiLinearForCausalLM ties nothing (_tied_weights_keys = {})
        linear_num_value_heads=("linear_num_heads",),
        linear_value_head_dim=("linear_head_dim",),
        linear_conv_kernel_dim=("linear_conv_kernel_dim",),
    ),
    fixed=dict(linear_kind="kda", tie_word_embeddings=False, lora_moe="frozen"),  # PEFT leaves its experts frozen
    hooks=(hooks.kimi_linear,),
    notes=(hooks.router_bias_buffers,),
)
BAILING_HYBRID = KIMI_LINEAR.but(
    model_type="bailing_hybrid",
    class_prefix="BailingHybrid",
    source=f"{TF}/bailing_hybrid/modeling_bailing_hybrid.py",
    # Ling's hybrids (Ling / Ring linear): Kimi Linear's layout with full-rank KDA gates, latent attention without a
    # query latent and with a sigmoid gate per head, dense first layers as first_k_dense_replace says
    keys=dict(
        q_lora_rank=None,
        first_k_dense_replace=("first_k_dense_replace",),
        linear_num_value_heads=None,
        linear_value_head_dim=None,
        linear_conv_kernel_dim=None,
    ),
    fixed=dict(
        # kept fp32 in 16 bit: _keep_in_fp32_modules_strict
        fp32_weights=("layers/linear_attention/conv", "layers/linear_attention/decay"),
        linear_kind="kda_full_gates",
        attention_head_gate=True,
    ),
    hooks=(hooks.bailing_hybrid,),
)
RECURRENT_GEMMA = LLAMA.but(
    model_type="recurrent_gemma",
    class_prefix="RecurrentGemma",
    source=f"{TF}/recurrent_gemma/modeling_recurrent_gemma.py",
    keys=dict(intermediate_size=None, mlp_bias=None),
    defaults=dict(tie_word_embeddings=True),
    # Griffin: RG-LRU recurrent blocks between local-attention blocks (q, k, v biased as attention_bias says, o always
    # biased), gated MLPs with biases, two RMSNorms a layer, a tied head
    fixed=dict(linear_kind="rglru", attention_out_bias=True, mlp_bias=True),
    hooks=(hooks.recurrent_gemma, hooks.logit_softcap),
)
OLMO_HYBRID = OLMO2.but(
    model_type="olmo_hybrid",
    class_prefix="OlmoHybrid",
    source=f"{TF}/olmo_hybrid/modeling_olmo_hybrid.py",
    keys=LINEAR_ATTENTION_KEYS,
    # OLMo 2's attention layers (q/k norms over the full width, norms after attention and after the MLP) between
    # Gated DeltaNet layers (q, k, v, g, b and a projections apart; norms before attention and before the MLP)
    derive=dict(
        linear_num_key_heads=Rule("num_attention_heads", lambda d: d["num_attention_heads"]),
        linear_num_value_heads=Rule("num_attention_heads", lambda d: d["num_attention_heads"]),
        linear_key_head_dim=Rule(
            "int(0.75*hidden_size / linear_num_key_heads)",
            lambda d: int(0.75 * d["hidden_size"] / d["linear_num_key_heads"]) if d["linear_num_key_heads"] else None,
        ),
        linear_value_head_dim=Rule(
            "2*linear_key_head_dim", lambda d: 2 * d["linear_key_head_dim"] if d["linear_key_head_dim"] else None
        ),
    ),
    extra_hooks=[hooks.olmo_hybrid_layers],
    fixed=dict(
        # kept fp32 in 16 bit: A_log, made fp32 by the modeling file
        fp32_weights=("layers/linear_attention/A_log",),
    ),
)

# ---------------------------------------------------------------------------------- state-space models
RWKV = Family(
    model_type="rwkv",
    class_prefix="Rwkv",
    source=f"{TF}/rwkv/modeling_rwkv.py",
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_hidden_layers",),
        intermediate_size=("intermediate_size",),
        time_mixing_size=("attention_hidden_size",),
        max_position_embeddings=("context_length",),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    derive=dict(
        intermediate_size=FOUR_H,
        time_mixing_size=Rule("hidden_size", lambda d: d["hidden_size"]),
        time_mixing_layers=EVERY_LAYER,
    ),
    # LayerNorms with biases: pre_ln after the embeddings (block 0), ln1 and ln2 in every block, ln_out at the end
    fixed=dict(
        # kept fp32 in 16 bit: _keep_in_fp32_modules (fp16)
        fp32_weights_fp16=("layers/time_mixing/decay",),
        has_attention=False,
        channel_mixing=True,
        embedding_norm=True,
        position_embedding="none",
    ),
    padding_row=False,
)
#: xLSTM's float arithmetic for its feed-forward width (transformers' round_up_to_next_multiple_of).
XLSTM_FFN = "round_up(hidden_size*ffn_proj_factor, ffn_round_up_to_multiple_of)"
XLSTM = Family(
    model_type="xlstm",
    class_prefix="xLSTM",
    source=f"{TF}/xlstm/modeling_xlstm.py",
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_hidden_layers",),
        mlstm_heads=("num_heads",),
        # use_bias: the mLSTM's projections and head norm, the feed-forward block and the layers' RMSNorms
        mlstm_bias=("use_bias",),
        mlp_bias=("use_bias",),
        rms_norm_bias=("use_bias",),
    ),
    # the widths are set by hooks.xlstm_sizes from the config's float factors (no Spec field); the rules say how
    derive=dict(
        mlstm_layers=EVERY_LAYER,
        mlstm_qk_dim=Rule("int(hidden_size*qk_dim_factor)", lambda d: d["mlstm_qk_dim"]),
        mlstm_v_dim=Rule("int(hidden_size*v_dim_factor)", lambda d: d["mlstm_v_dim"]),
        intermediate_size=Rule(XLSTM_FFN, lambda d: d["intermediate_size"]),
    ),
    # an mLSTM cell and a gated (SiLU) feed-forward block per layer, an RMSNorm before each, no positions; the head is
    # never tied (xLSTMForCausalLM declares no tied weights) and the final norm always built (add_out_norm unread);
    # the logits are soft-capped (tanh, output_logit_soft_cap)
    fixed=dict(
        has_attention=False,
        mlp_gated=True,
        hidden_act="silu",
        norm_type="rmsnorm",
        norm_bias=False,
        norms_per_layer=2,
        final_norm=True,
        position_embedding="none",
        tie_word_embeddings=False,
        logit_softcap=True,
    ),
    hooks=(hooks.xlstm_sizes,),
    # the class reads hidden_size and embedding_dim, num_hidden_layers and num_blocks apart: an edit writes both
    linked=dict(hidden_size=("embedding_dim",), num_hidden_layers=("num_blocks",)),
    padding_row=False,
    notes=(hooks.xlstm_notes,),
)
MAMBA = Family(
    model_type="mamba",
    class_prefix="Mamba",
    source=f"{TF}/mamba/modeling_mamba.py",
    # MambaConfig (and FalconMamba's, Mamba2's) has no d_model or n_layer alias: a file stating them gets the defaults
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_hidden_layers",),
        tie_word_embeddings=("tie_word_embeddings",),
        ssm_inner=("intermediate_size",),
        ssm_state_size=("state_size",),
        ssm_conv_kernel=("conv_kernel",),
        ssm_conv_bias=("use_conv_bias",),
        ssm_proj_bias=("use_bias",),
    ),
    # one RMSNorm and one mixer per layer: no attention, no MLP, no positions
    fixed=dict(
        lora_refuses_ssm=True,  # a type PEFT lists as Mamba-based
        has_attention=False,
        ssm_version=1,
        intermediate_size=0,
        norms_per_layer=1,
        norm_type="rmsnorm",
        norm_bias=False,
        position_embedding="none",
        max_position_embeddings=0,  # no positions and no context limit in the config: a scan runs any length
    ),
    derive=dict(ssm_layers=EVERY_LAYER),
    hooks=(hooks.mamba_sizes,),
)
FALCON_MAMBA = MAMBA.but(
    model_type="falcon_mamba",
    class_prefix="FalconMamba",
    source=f"{TF}/falcon_mamba/modeling_falcon_mamba.py",
)
MAMBA2 = MAMBA.but(
    model_type="mamba2",
    class_prefix="Mamba2",
    source=f"{TF}/mamba2/modeling_mamba2.py",
    keys=dict(ssm_inner=None, ssm_heads=("num_heads",), ssm_groups=("n_groups",), ssm_chunk=("chunk_size",)),
    fixed=dict(ssm_version=2),
)
JAMBA = LLAMA.but(
    model_type="jamba",
    class_prefix="Jamba",
    source=f"{TF}/jamba/modeling_jamba.py",
    keys=dict(
        mlp_bias=None,
        head_dim=None,
        attention_bias=None,
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        ssm_state_size=("mamba_d_state",),
        ssm_conv_kernel=("mamba_d_conv",),
        ssm_conv_bias=("mamba_conv_bias",),
        ssm_proj_bias=("mamba_proj_bias",),
    ),
    derive=dict(moe_intermediate_size=Rule("intermediate_size", lambda d: d["intermediate_size"], always=True)),
    # Mamba (1) mixers with RMSNorms on the time step, B and C; attention with no position embedding at all
    fixed=dict(ssm_version=1, ssm_inner_norms=True, position_embedding="none"),
    hooks=(hooks.jamba_layers,),
)
#: Mamba-2 mixers in hybrids (Bamba, Granite 4.0): their config keys.
MAMBA2_HYBRID_KEYS = dict(
    ssm_heads=("mamba_n_heads",),
    ssm_groups=("mamba_n_groups",),
    ssm_state_size=("mamba_d_state",),
    ssm_conv_kernel=("mamba_d_conv",),
    ssm_conv_bias=("mamba_conv_bias",),
    ssm_proj_bias=("mamba_proj_bias",),
    ssm_chunk=("mamba_chunk_size",),
)
BAMBA = LLAMA.but(
    model_type="bamba",
    class_prefix="Bamba",
    source=f"{TF}/bamba/modeling_bamba.py",
    keys=dict(head_dim=None, **MAMBA2_HYBRID_KEYS),
    fixed=dict(ssm_version=2),
    hooks=(hooks.mamba2_inner, hooks.attn_layer_indices),
)
ZAMBA2 = LLAMA.but(
    model_type="zamba2",
    class_prefix="Zamba2",
    source=f"{TF}/zamba2/modeling_zamba2.py",
    keys=dict(
        head_dim=None,
        attention_bias=None,
        mlp_bias=("add_bias_linear",),
        ssm_heads=("n_mamba_heads",),
        ssm_groups=("mamba_ngroups",),
        ssm_chunk=("chunk_size",),
        ssm_state_size=("mamba_d_state",),
        ssm_conv_kernel=("mamba_d_conv",),
        ssm_proj_bias=("add_bias_linear",),
        shared_blocks=("num_mem_blocks",),
        shared_adapter_rank=("adapter_rank",),
        shared_attention_adapters=("use_shared_attention_adapter",),
    ),
    # a Mamba-2 mixer (and its norm) in every layer; attention reads [hidden, embeddings], 2 x hidden_size wide
    derive=dict(
        ssm_layers=EVERY_LAYER,
        head_dim=Rule(
            "2*hidden_size // num_attention_heads",
            lambda d: 2 * d["hidden_size"] // max(d["num_attention_heads"], 1),
            always=True,
        ),
    ),
    # the mixer's conv1d is built with a bias whatever use_conv_bias says (the class keeps the key, unread)
    fixed=dict(
        ssm_version=2,
        norms_per_layer=1,
        mlp_gated=True,
        fused=("gate_up",),
        attention_bias=False,
        ssm_conv_bias=True,
    ),
    hooks=(hooks.mamba2_inner, hooks.zamba2_layers),
)
ZAMBA = LLAMA.but(
    model_type="zamba",
    class_prefix="Zamba",
    source=f"{TF}/zamba/modeling_zamba.py",
    keys=dict(
        head_dim=("head_dim", "attention_head_dim"),  # ZambaConfig maps head_dim onto attention_head_dim: it wins
        attention_bias=None,
        mlp_bias=None,
        ssm_state_size=("mamba_d_state",),
        ssm_conv_kernel=("mamba_d_conv",),
        ssm_conv_bias=("mamba_conv_bias",),
        ssm_proj_bias=("mamba_proj_bias",),
    ),
    # a Mamba mixer (and its norm) in every layer, x_proj and dt_proj split over n_mamba_heads; one shared attention
    # and MLP block, its attention reading [hidden, embeddings] (2 x hidden_size wide), no position embedding
    derive=dict(
        ssm_layers=EVERY_LAYER,
        head_dim=Rule(
            "2*hidden_size // num_attention_heads", lambda d: 2 * d["hidden_size"] // max(d["num_attention_heads"], 1)
        ),
    ),
    fixed=dict(
        # kept fp32 in 16 bit: A_log, made fp32 by the modeling file
        fp32_weights=("layers/ssm/A_log",),
        ssm_version=1,
        ssm_proj_tensors=True,
        shared_blocks=1,
        norms_per_layer=1,
        attention_bias=False,
        mlp_bias=False,
        position_embedding="none",
    ),
    hooks=(hooks.zamba_layers,),
)
GRANITEMOEHYBRID = LLAMA.but(
    model_type="granitemoehybrid",
    class_prefix="GraniteMoeHybrid",
    source=f"{TF}/granitemoehybrid/modeling_granitemoehybrid.py",
    keys=dict(
        mlp_bias=None,
        head_dim=None,
        intermediate_size=None,  # an expert's width; the dense (shared) MLP's is shared_intermediate_size
        moe_intermediate_size=("intermediate_size",),
        shared_expert_intermediate_size=("shared_intermediate_size",),
        num_experts=("num_local_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        **MAMBA2_HYBRID_KEYS,
    ),
    fixed=dict(ssm_version=2, fused=("gate_up",)),  # the shared MLP's input_linear is gate and up in one layer
    hooks=(hooks.mamba2_inner, hooks.granite_hybrid),
)

FALCON_H1 = LLAMA.but(
    model_type="falcon_h1",
    class_prefix="FalconH1",
    source=f"{TF}/falcon_h1/modeling_falcon_h1.py",
    keys=dict(
        ssm_inner=("mamba_d_ssm",),
        ssm_norm=("mamba_rms_norm",),
        ssm_out_bias=("projectors_bias",),
        **MAMBA2_HYBRID_KEYS,
    ),
    fixed=dict(lora_refuses_ssm=True, ssm_version=2, ssm_beside_attention=True),
    derive=dict(ssm_layers=EVERY_LAYER),
    hooks=(hooks.mamba2_inner,),
)
NEMOTRON_H = LLAMA.but(
    model_type="nemotron_h",
    class_prefix="NemotronH",
    source=f"{TF}/nemotron_h/modeling_nemotron_h.py",
    keys=dict(
        attention_bias=None,  # q, k, v and o never have biases
        tie_word_embeddings=None,  # NemotronHForCausalLM ties nothing (_tied_weights_keys = {})
        hidden_act=("mlp_hidden_act",),
        num_experts=("n_routed_experts", "num_local_experts"),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        shared_expert_intermediate_size=("moe_shared_expert_intermediate_size",),
        ssm_heads=("mamba_num_heads",),
        ssm_groups=("n_groups", "mamba_n_groups"),
        ssm_state_size=("ssm_state_size",),
        ssm_conv_kernel=("conv_kernel", "mamba_d_conv"),
        ssm_conv_bias=("use_conv_bias", "mamba_conv_bias"),
        ssm_proj_bias=("use_bias",),
        ssm_chunk=("chunk_size",),
    ),
    # one RMSNorm before each block; ReLU² MLPs and experts without a gate; attention without positions
    fixed=dict(
        # its router's top-k weights are fp32
        routing_fp32=True,
        lora_refuses_ssm=True,
        ssm_version=2,
        norms_per_layer=1,
        mlp_gated=False,
        position_embedding="none",
        tie_word_embeddings=False,
    ),
    hooks=(hooks.nemotron_h_layers,),
    notes=(hooks.router_bias_buffers,),
)

LFM2 = LLAMA.but(
    model_type="lfm2",
    class_prefix="Lfm2",
    source=f"{TF}/lfm2/modeling_lfm2.py",
    keys=dict(
        head_dim=None,
        hidden_act=None,
        attention_bias=None,
        mlp_bias=None,
        intermediate_size=("intermediate_size", "block_ff_dim"),
        tie_word_embeddings=("tie_word_embeddings", "tie_embedding"),
        short_conv_kernel=("conv_L_cache",),
        short_conv_bias=("conv_bias",),
    ),
    # SwiGLU (w1, w3, w2), q/k RMSNorms over a head, no biases outside the convolutions
    fixed=dict(qk_norm="head", hidden_act="silu"),
    hooks=(hooks.lfm2_layers,),
)
LFM3 = LFM2.but(
    model_type="lfm3",
    class_prefix="Lfm3",
    source=f"{TF}/lfm3/modeling_lfm3.py",
    # Lfm3Config reads neither of LFM2's legacy names block_ff_dim and tie_embedding
    keys=dict(
        head_dim=("head_dim",),
        attention_bias=("attention_bias",),
        intermediate_size=("intermediate_size",),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    # LFM2's short convolutions between Qwen3-style attention layers (full or sliding), an MLP intermediate_size wide
    # (no adjustment), sandwich norms and a gate per attention head
    hooks=(hooks.lfm3_layers,),
)

DBRX = Family(
    model_type="dbrx",
    class_prefix="Dbrx",
    source=f"{TF}/dbrx/modeling_dbrx.py",
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("d_model",),
        num_hidden_layers=("n_layers",),
        num_attention_heads=("n_heads",),
        max_position_embeddings=("max_seq_len",),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    # one Wqkv, bias-free LayerNorms, experts (w1, v1, w2) in every layer and nothing dense; sizes of the nested
    # attn_config and ffn_config are read by the hook
    fixed=dict(
        lora_moe="router",
        fused=("qkv",),
        mlp_gated=True,
        norm_type="layernorm",
        norm_bias=False,
        position_embedding="rotary",
        intermediate_size=0,
        hidden_act="silu",
        experts_loop=True,  # DbrxExperts runs the experts hit one after another, each on its own tokens
    ),
    hooks=(hooks.dbrx_sub_configs,),
    nested=dict(hooks.DBRX_NESTED),
    padding_row=False,
)

LFM2_MOE = LFM2.but(
    model_type="lfm2_moe",
    class_prefix="Lfm2Moe",
    source=f"{TF}/lfm2_moe/modeling_lfm2_moe.py",
    keys=dict(
        intermediate_size=("intermediate_size",),  # Lfm2MoeConfig pops tie_embedding but not block_ff_dim
        num_experts=("num_experts",),
        num_experts_per_tok=("num_experts_per_tok",),
        moe_intermediate_size=("moe_intermediate_size",),
        first_k_dense_replace=("num_dense_layers",),
    ),
    hooks=(hooks.lfm2_moe_layers,),
)

# ------------------------------------------------------------------------------- parallel blocks
PHI = Family(
    model_type="phi",
    class_prefix="Phi",
    source=f"{TF}/phi/modeling_phi.py",
    keys={k: LLAMA.keys[k] for k in LLAMA.keys if k not in ("head_dim", "attention_bias", "mlp_bias")},
    fixed=dict(
        attention_bias=True,
        mlp_bias=True,
        norms_per_layer=1,
        lm_head_bias=True,
        parallel_attn=True,
        position_embedding="rotary",
    ),
    hooks=(hooks.qk_layernorm,),
)
GPT_NEOX = Family(
    model_type="gpt_neox",
    class_prefix="GPTNeoX",
    source=f"{TF}/gpt_neox/modeling_gpt_neox.py",
    keys=dict(
        CORE_KEYS,
        hidden_act=("hidden_act",),
        attention_bias=("attention_bias",),
        parallel_attn=("use_parallel_residual",),
    ),
    defaults=dict(attention_bias=True, parallel_attn=True),
    fixed=dict(fused=("qkv",), mlp_bias=True, position_embedding="rotary"),
    padding_row=False,
)
PERSIMMON = GPT_NEOX.but(
    model_type="persimmon",
    class_prefix="Persimmon",
    source=f"{TF}/persimmon/modeling_persimmon.py",
    keys=dict(attention_bias=None, parallel_attn=None),
    # GPT-NeoX's fused, biased query_key_value and plain MLP, run one after the other; LayerNorms over each query and
    # key head with qk_layernorm
    fixed=dict(attention_bias=True, parallel_attn=False),
    hooks=(hooks.qk_layernorm,),
)
FALCON = Family(
    model_type="falcon",
    class_prefix="Falcon",
    source=f"{TF}/falcon/modeling_falcon.py",
    keys=dict(
        CORE_KEYS,
        intermediate_size=("ffn_hidden_size",),
        hidden_act=("activation",),
        attention_bias=("bias",),
        mlp_bias=("bias",),
        parallel_attn=("parallel_attn",),
    ),
    derive=dict(intermediate_size=FOUR_H),
    hooks=(hooks.falcon_layout,),
    padding_row=False,
    fixed=dict(fused=("qkv",)),
)
OPT = Family(
    model_type="opt",
    class_prefix="OPT",
    source=f"{TF}/opt/modeling_opt.py",
    keys=dict(
        CORE_KEYS,
        intermediate_size=("ffn_dim",),
        hidden_act=("activation_function",),
        attention_bias=("enable_bias",),
        mlp_bias=("enable_bias",),
    ),
    defaults=dict(attention_bias=True, mlp_bias=True),
    fixed=dict(position_embedding="learned", position_offset=2),
    hooks=(hooks.opt_layout,),
)
BLOOM = Family(
    model_type="bloom",
    class_prefix="Bloom",
    source=f"{TF}/bloom/modeling_bloom.py",
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("hidden_size", "n_embed"),
        num_hidden_layers=("n_layer", "num_hidden_layers"),
        num_attention_heads=("n_head", "num_attention_heads"),
        max_position_embeddings=("seq_length",),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    defaults=dict(max_position_embeddings=2048),
    derive=dict(intermediate_size=Rule("4*hidden_size", FOUR_H.fn, always=True)),
    fixed=dict(
        fused=("qkv",),
        hidden_act="gelu",
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        position_embedding="alibi",
        scores_bytes=14,  # eager only: ALiBi's baddbmm, the mask added, an fp32 softmax and its bf16 cast
    ),
    padding_row=False,
)

ROWS = (
    GPT2,
    GPT_BIGCODE,
    GPTJ,
    CODEGEN,
    OPENAI_GPT,
    XGLM,
    MPT,
    CTRL,
    GPT_NEO,
    LLAMA,
    MISTRAL,
    QWEN2,
    QWEN2_5_VL_TEXT,
    QWEN2_VL_TEXT,
    MLLAMA_TEXT,
    QWEN3_VL_TEXT,
    QWEN3_VL_MOE_TEXT,
    QWEN3,
    GEMMA,
    GEMMA2,
    VAULTGEMMA,
    MINISTRAL,
    MINISTRAL3,
    PHI3,
    STARCODER2,
    GRANITE,
    GRANITE_SWA,
    INTERNLM3,
    IQUESTCODER,
    CWM,
    HYPERCLOVAX,
    DOGE,
    NANOCHAT,
    JAIS2,
    YOUTU,
    GLM_MOE_DSA,
    MELLUM,
    LAGUNA,
    KOLIBRI1,
    SOLAR_OPEN,
    SMOLLM3,
    OLMO2,
    OLMO_HYBRID,
    GEMMA3_TEXT,
    GEMMA4_TEXT,
    GEMMA3N_TEXT,
    MIXTRAL,
    MINIMAX,
    JETMOE,
    LONGCAT_FLASH,
    QWEN2_MOE,
    FLINT,
    DEEPSEEK_V2,
    DEEPSEEK_V3,
    MISTRAL4,
    KIMI_K2,
    AXK1,
    QWEN3_MOE,
    OLMOE,
    GPT_OSS,
    ERNIE4_5,
    HUNYUAN_V1_DENSE,
    HUNYUAN_V1_MOE,
    DBRX,
    SEED_OSS,
    ARCEE,
    HELIUM,
    OLMO3,
    EXAONE4,
    GLM,
    GLM4,
    GLM4V_TEXT,
    COHERE,
    COHERE2,
    COHERE2_MOE,
    GLM4_MOE,
    GLM4V_MOE_TEXT,
    DOTS1,
    GRANITEMOE,
    GRANITEMOESHARED,
    GRANITEMOE_SWA,
    PHIMOE,
    LLAMA4_TEXT,
    PHI,
    GPT_NEOX,
    PERSIMMON,
    FALCON,
    OPT,
    BLOOM,
    OLMO,
    STABLELM,
    NEMOTRON,
    APERTUS,
    BITNET,
    ERNIE4_5_MOE,
    MINIMAX_M2,
    DEEPSEEK_V32,
    GLM4_MOE_LITE,
    DEEPSEEK_V4,
    MINICPM3,
    AFMOE,
    MIMO_V2_FLASH,
    HY_V3,
    EXAONE_MOE,
    FLEX_OLMO,
    QWEN3_5_TEXT,
    QWEN3_5_MOE_TEXT,
    QWEN3_NEXT,
    KIMI_LINEAR,
    RECURRENT_GEMMA,
    BAILING_HYBRID,
    MAMBA,
    FALCON_MAMBA,
    MAMBA2,
    GRANITEMOEHYBRID,
    FALCON_H1,
    NEMOTRON_H,
    RWKV,
    XLSTM,
    LFM2,
    LFM3,
    LFM2_MOE,
    BAMBA,
    ZAMBA,
    ZAMBA2,
    JAMBA,
)
