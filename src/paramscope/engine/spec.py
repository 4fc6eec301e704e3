"""The model specification: one frozen dataclass in Hugging Face config vocabulary.

Every input (a preset, an uploaded ``config.json``, a share link) becomes a :class:`Spec` through
:mod:`paramscope.families`. Fields keep the Hugging Face names where Hugging Face has one
(``vocab_size``, ``hidden_size``, ``num_key_value_heads`` ...); the few structural switches that
Hugging Face encodes in the *class* rather than the config (``norm_type``, ``norms_per_layer``,
``mlp_gated`` ...) are explicit fields here so that one counting routine serves every family.

Derived fields (``head_dim``, ``num_key_value_heads``, ``intermediate_size`` ...) are filled only
when missing, as transformers does, by :func:`resolve`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

#: The heads on the model: a language-model head (causal, masked, encoder-decoder), none, or ELECTRA's
#: discriminator (a dense layer and one logit per token: was this token replaced?), or an image classifier (one
#: linear layer on the class token).
ARCHITECTURES = ("causal_lm", "masked_lm", "seq2seq_lm", "base", "discriminator", "image_classification")
NORM_TYPES = ("layernorm", "rmsnorm")
POSITION_EMBEDDINGS = ("learned", "learned_2d", "rotary", "alibi", "relative", "sinusoidal", "none")
QK_NORMS = ("none", "head", "full")
LORA_MOE = ("frozen", "router", "tensors")
LINEAR_KINDS = ("gated_deltanet", "kda", "kda_full_gates", "rglru")

#: Upper bounds that keep every computation instant and every number meaningful.
LIMITS = {
    "vocab_size": 100_000_000,
    "hidden_size": 1_048_576,
    "num_hidden_layers": 100_000,
    "num_decoder_layers": 100_000,
    "num_attention_heads": 65_536,
    "num_key_value_heads": 65_536,
    "head_dim": 65_536,
    "intermediate_size": 16_777_216,
    "moe_intermediate_size": 16_777_216,
    "shared_expert_intermediate_size": 16_777_216,
    "max_position_embeddings": 100_000_000,
    "num_experts": 65_536,
    "num_experts_per_tok": 65_536,
    "num_shared_experts": 65_536,
    "attention_experts": 65_536,
    "zero_experts": 65_536,
    "sublayers": 16,
    "shared_blocks": 100_000,
    "shared_block_uses": 100_000,
    "shared_adapters": 10_000_000_000,
    "shared_adapter_rank": 1_048_576,
    "embedding_size": 1_048_576,
    "recurrent_units": 4_096,
    "type_vocab_size": 1_000_000,
    "relative_attention_num_buckets": 1_000_000,
    "sliding_window": 100_000_000,
    "ssm_inner": 16_777_216,
    "ssm_state_size": 65_536,
    "ssm_conv_kernel": 4_096,
    "ssm_dt_rank": 1_048_576,
    "ssm_heads": 65_536,
    "ssm_groups": 65_536,
    "ssm_chunk": 1_048_576,
    "linear_num_key_heads": 65_536,
    "linear_num_value_heads": 65_536,
    "linear_key_head_dim": 65_536,
    "linear_value_head_dim": 65_536,
    "linear_conv_kernel_dim": 4_096,
    "linear_attention_layers": 100_000,
    "ssm_layers": 100_000,
    "short_conv_layers": 100_000,
    "short_conv_kernel": 4_096,
    "time_mixing_layers": 100_000,
    "lightning_layers": 100_000,
    "mlstm_layers": 100_000,
    "mlstm_heads": 65_536,
    "mlstm_qk_dim": 16_777_216,
    "mlstm_v_dim": 16_777_216,
    "time_mixing_size": 1_048_576,
    "relative_table": 100_000_000,
    "encoder_conv_kernel": 4_096,
    "encoder_conv_groups": 1_048_576,
    "source_positions": 100_000_000,
    "audio_mel_bins": 65_536,
    "cross_norms": 16,
    "encoder_sliding_window_layers": 100_000,
    "image_size": 1_048_576,
    "patch_size": 1_048_576,
    "num_channels": 65_536,
    "register_tokens": 1_048_576,
    "num_labels": 10_000_000,
    "pooled_projection": 1_048_576,
    "adapter_width": 1_048_576,
    "adapter_out": 1_048_576,
    "temporal_patch": 1_024,
    "merge_size": 1_024,
    "merger_out": 1_048_576,
    "merger_mlp": 1_048_576,
    "deepstack_mergers": 1_024,
    "ffn_only_layers": 100_000,
    "mixer_only_layers": 100_000,
    "index_n_heads": 65_536,
    "index_head_dim": 65_536,
    # widths of latent projections and heads (DeepSeek-V3: q_lora_rank 1,536, kv_lora_rank 512, heads of 128 + 64):
    # the limits of the widths and heads above
    "q_lora_rank": 1_048_576,
    "kv_lora_rank": 1_048_576,
    "o_lora_rank": 1_048_576,
    "qk_nope_head_dim": 65_536,
    "qk_rope_head_dim": 65_536,
    "v_head_dim": 65_536,
    "global_head_dim": 65_536,
    "global_kv_heads": 65_536,
    "sliding_kv_heads": 65_536,
    "o_groups": 65_536,
    "per_layer_input": 1_048_576,  # Gemma 3n: hidden_size_per_layer_input 256
    "laurel_rank": 1_048_576,  # Gemma 3n: 64
    "act_params": 1_048_576,
    # counts of layers: the limit of num_hidden_layers
    "first_k_dense_replace": 100_000,
    "num_hidden_groups": 100_000,
    "sliding_window_layers": 100_000,
    "kv_shared_layers": 100_000,
    "kv_shared_sliding": 100_000,
    "wide_mlp_layers": 100_000,
    "csa_layers": 100_000,
    "hca_layers": 100_000,
    "cross_attn_layers": 100_000,
    "gated_layers": 100_000,
    # Mllama: extra token rows (8), tiles per image (4) and aspect ratios (8)
    "extra_token_rows": 1_000_000,
    "max_num_tiles": 1_024,
    "tile_ratios": 65_536,
    # Gemma 4's audio tower: the convolution module's taps (5), the subsampling convolutions' channels (128, 32) and the
    # output projection's width (1,536)
    "conv_module_kernel": 4_096,
    "subsampling_channels": 1_048_576,
    "subsampling_out_channels": 1_048_576,
    "output_proj_dims": 1_048_576,
    # BLIP-2's Q-Former: cross-attention every n-th layer, its keys and values read the vision tower's width
    "cross_attention_frequency": 100_000,
    "encoder_hidden_size": 1_048_576,
    # Gemma 3n's audio tower: the subsampling convolutions' taps (3 x 3 = 9) and the frequency bins they leave (32)
    "subsampling_taps": 1_048_576,
    "subsampling_out_taps": 1_048_576,
    "subsampling_freq": 1_048_576,
    "relative_positions": 100_000_000,
    # Phi-4-multimodal's audio tower: the convolution module's GLU and separable widths (1,024), the depthwise
    # multiplier (1), the NeMo subsampling's stride-2 stages (3)
    "conv_glu_channels": 1_048_576,
    "conv_depthwise_multiplier": 1_024,
    "conv_separable_channels": 1_048_576,
    "subsampling_stages": 64,
    # per-layer counts (every released model has at most 4 norms or 2 key/value projections a layer)
    "norms_per_layer": 16,
    "moe_norms": 16,
    "kv_projections": 2,
    "ssm_version": 2,
    "hc_mult": 1_024,  # DeepSeek-V4's hyper-connections: 4 streams
    "altup_num_inputs": 1_024,  # Gemma 3n's AltUp: 4 streams
    # tokens: the limit of max_position_embeddings
    "position_offset": 100_000_000,
    "scores_bytes": 64,
    "csa_rate": 100_000_000,
    "hca_rate": 100_000_000,
    "index_topk": 100_000_000,
    "per_layer_vocab": 100_000_000,
    # parameters of towers transformers counts (the largest vision and audio towers hold about 6B)
    "towers_params": 10_000_000_000_000,
    "towers_fp32": 10_000_000_000_000,
    "towers_fp32_fp16": 10_000_000_000_000,
}


class SpecError(ValueError):
    """A bad value, with the field (or config key) it concerns: ``str()`` reads "field: what is wrong"."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Spec:
    """A transformer, described in Hugging Face config vocabulary.

    Sizes are integers; ``None`` means "derive it as transformers does" (see :func:`resolve`).
    """

    # identity
    model_type: str = "paramscope"
    architecture: str = "causal_lm"  # causal_lm | masked_lm | seq2seq_lm | base (no head) | discriminator
    # core sizes
    vocab_size: int = 50257
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    num_key_value_heads: int | None = None  # None -> num_attention_heads (multi-head attention)
    head_dim: int | None = None  # None -> hidden_size // num_attention_heads
    intermediate_size: int | None = None  # None -> 4 * hidden_size
    hidden_act: str = "gelu"
    # attention
    has_attention: bool = True
    attention_bias: bool = False  # bias on the q, k, v projections
    attention_out_bias: bool | None = None  # bias on the output projection; None -> attention_bias
    key_bias: bool | None = None  # bias on the key projection; None -> attention_bias (Whisper: none on k)
    qk_norm: str = "none"  # none | head (norm over head_dim, Qwen3) | full (over all heads, OLMo2)
    qk_norm_bias: bool | None = None  # a LayerNorm q/k norm with a bias; None -> norm_bias (StableLM: none)
    sub_norms: bool = False  # BitNet: a norm on the attention output (hidden_size) and on the MLP's inner width
    attention_sinks: bool = False  # gpt-oss: one learned logit per query head ("sinks"), in every layer
    # memory: bytes per attention score (batch * heads * queries * keys) one layer's forward holds at its peak where
    # transformers' class writes the scores out (measured on an H100: BLOOM 14, GPT-Neo 10, Falcon's multi-query
    # attention through SDPA's math kernel 9); 0: SDPA's fused kernels, which never hold them
    scores_bytes: int = 0
    # memory: transformers' cache crops sliding-window layers to their window after the first decode step (GPT-Neo's
    # does not: its config names no sliding layers for the cache, measured on an H100)
    cache_window: bool = True
    logit_softcap: bool = False  # Gemma 2: tanh soft-capping of the final logits (memory: the tanh's output is kept)
    encoder_only: bool = False  # a bidirectional encoder (BERT and kin): nothing is generated, no KV cache
    fused: tuple[str, ...] = ()  # projections built as one linear layer: qkv (c_attn), gate_up, in_qkvz, in_ba,
    # in_qkv (a Gated DeltaNet's q, k and v as one, its output gate z apart), qkv_o (an mLSTM's q, k, v and output
    # gate as one, its input and forget gates as another)
    # multi-head latent attention (DeepSeek-V2); all None for ordinary attention
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None
    attn_output_gate: bool = False  # Qwen3-Next: q_proj also emits a sigmoid gate on the attention output
    # Linear attention (Gated DeltaNet, Qwen3-Next / Qwen3.5) in linear_attention_layers of the layers, instead
    # of attention: a constant state per sequence (conv_dim x kernel, and value heads x key dim x value dim)
    linear_attention_layers: int = 0
    linear_num_key_heads: int = 0
    linear_num_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel_dim: int = 0
    # "gated_deltanet" (Qwen3-Next, Qwen3.5, OLMo Hybrid) or "kda" (Kimi Delta Attention: q, k and v apart, a
    # per-channel forget gate and an output gate, each through a low-rank pair, one head count and head size), or
    # "kda_full_gates" (Ling's: the same with both gates one full-rank projection each), or "rglru" (Griffin's
    # recurrent block, RecurrentGemma: its RG-LRU's width is the value heads x value head dim, one key dim each)
    linear_kind: str = "gated_deltanet"
    # State-space mixers (Mamba, Mamba-2) in ssm_layers of the layers, instead of attention: a constant state per
    # sequence (the convolution window and ssm_inner x ssm_state_size, or ssm_heads x head x ssm_state_size)
    ssm_layers: int = 0
    ssm_version: int = 1  # 1: Mamba (selective scan, x_proj and dt_proj); 2: Mamba-2 (heads, groups, gated norm)
    ssm_inner: int = 0  # expand x hidden_size
    ssm_state_size: int = 0
    ssm_conv_kernel: int = 0
    ssm_dt_rank: int = 0  # Mamba: the rank of the time step's projection
    ssm_heads: int = 0  # Mamba-2
    ssm_groups: int = 0  # Mamba-2: B and C are shared by groups of heads
    ssm_chunk: int = 0  # Mamba-2: the positions per chunk of the chunked scan (its working set: memory)
    ssm_conv_bias: bool = True
    ssm_proj_bias: bool = False  # in_proj and out_proj biases (use_bias)
    ssm_out_bias: bool | None = None  # out_proj's own bias switch (Falcon-H1's projectors_bias); None: ssm_proj_bias
    ssm_norm: bool = True  # Mamba-2: the gated RMSNorm over the inner width (Falcon-H1 can leave it out)
    ssm_beside_attention: bool = False  # Falcon-H1: the ssm_layers run beside attention on the same input
    ssm_inner_norms: bool = False  # Jamba: RMSNorms on the time step (dt rank), B and C (state) inside the mixer
    # Zamba: Mamba's x_proj and dt_proj held as parameter tensors (a slice per head), not linear layers: the same
    # weights and matmuls, but LoRA adapts neither and quantizers keep them in 16 bits
    ssm_proj_tensors: bool = False
    # Short convolutions (LFM2) in short_conv_layers of the layers, instead of attention: in_proj to three widths
    # (two gates and the input), a depthwise causal convolution of short_conv_kernel taps, out_proj
    short_conv_layers: int = 0
    short_conv_kernel: int = 0
    short_conv_bias: bool = False
    # RWKV (v4): time mixing in time_mixing_layers of the layers instead of attention (key, value and receptance of
    # time_mixing_size, a learned decay per channel), and channel mixing as the feed-forward block
    time_mixing_layers: int = 0
    time_mixing_size: int = 0
    # Lightning attention (MiniMax) in lightning_layers of the layers instead of softmax attention: linear attention
    # over the attention heads (qkv_proj, an output gate, an RMSNorm over heads*head_dim, out_proj) that keeps a
    # heads x head_dim x head_dim state per sequence
    lightning_layers: int = 0
    # mLSTM cells (xLSTM) in mlstm_layers of the layers instead of attention: queries and keys mlstm_qk_dim wide, values
    # and an output gate mlstm_v_dim wide, an input and a forget gate per head (always biased), a LayerNorm over each
    # value head, out_proj; biases on the rest with mlstm_bias. Each of mlstm_heads heads keeps a matrix memory (key
    # head dim x value head dim), a normalizer (key head dim) and a stabilizer per sequence ("qkv_o" in ``fused``: q,
    # k, v and the output gate one linear layer, the two gates another)
    mlstm_layers: int = 0
    mlstm_heads: int = 0
    mlstm_qk_dim: int = 0
    mlstm_v_dim: int = 0
    mlstm_bias: bool = False
    channel_mixing: bool = False  # the feed-forward block is RWKV's channel mixing: key, value and a receptance gate
    # Layers without one of the two blocks (Nemotron-H: a layer is a Mamba mixer, an attention, an MLP or experts)
    ffn_only_layers: int = 0  # layers with a feed-forward block and no mixer (neither attention nor a state)
    mixer_only_layers: int = 0  # layers with a mixer and no feed-forward block
    index_n_heads: int = 0  # DeepSeek-V3.2 sparse attention: the lightning indexer's heads (0: no indexer)
    index_head_dim: int = 0  # and their width; the indexer caches one key of this width per token and layer
    # MLP
    mlp_gated: bool = False  # gate_proj * act(up_proj): SwiGLU / GeGLU
    mlp_bias: bool = False
    loss_upcast: bool = False  # a masked LM's or encoder-decoder's loss is transformers' loss_function (fp32 logits)
    experts_loop: bool = False  # the class runs its experts one after another, each on the tokens routed to it
    clamped_swiglu: bool = False  # gpt-oss: its experts' gate clamps gate and up and scales the sigmoid's input
    # the router hands the experts fp32 weights (its scores in fp32): each chosen expert's output is weighted, and
    # put back in token order, in fp32
    routing_fp32: bool = False
    down_proj_fp32: bool = False  # T5: the MLP's output projection stays fp32 and its input is cast to its dtype first
    act_params: int = 0  # learned scalars of the MLP's activation, per MLP (Apertus' xIELU: alpha_p, alpha_n)
    # norms
    norm_type: str = "layernorm"  # layernorm | rmsnorm
    norm_bias: bool = True  # LayerNorm with a bias vector (RMSNorm never has one, but see rms_norm_bias)
    rms_norm_bias: bool = False  # xLSTM: the layers' RMSNorms keep a bias vector too (use_bias; the final norm never)
    norms_per_layer: int = 2
    final_norm: bool = True
    # positions and embeddings
    # learned | learned_2d (a table per image axis: Gemma 4's vision tower) | rotary | alibi | relative |
    # sinusoidal | none
    position_embedding: str = "learned"
    max_position_embeddings: int = 1024
    position_offset: int = 0  # extra rows in a learned table (OPT and BART keep 2)
    type_vocab_size: int = 0  # BERT token-type (segment) embeddings
    embedding_size: int | None = None  # factorized / projected embedding width (ALBERT, OPT-350m)
    embedding_norm: bool = False  # a norm right after the embeddings (BERT, BLOOM, BART)
    tie_word_embeddings: bool = True
    lm_head_bias: bool = False
    # BERT-style MLM heads hold the output bias twice (head and decoder); the two are one tied parameter
    # when the word embeddings are tied, two parameters when they are not (transformers' BertLMPredictionHead)
    lm_head_bias_pair: bool = False
    parallel_attn: bool = False  # attention and MLP read the same input (GPT-J, NeoX, Falcon, PaLM)
    # encoder-only heads
    pooler: bool = False  # BERT-style pooler (dense + tanh) on the first token
    mlm_transform: bool = False  # dense + norm before the MLM decoder (BERT, RoBERTa, ALBERT)
    mlm_transform_bias: bool = True  # the transform's dense layer has a bias (ModernBERT: classifier_bias)
    first_layer_attn_norm: bool = True  # ModernBERT: layer 0 has no norm before attention (the embeddings' serves)
    # mixture of experts
    num_experts: int = 0
    num_experts_per_tok: int = 2
    moe_intermediate_size: int | None = None  # None -> intermediate_size
    num_shared_experts: int = 0
    shared_expert_intermediate_size: int | None = None  # None -> num_shared_experts*moe_intermediate
    shared_expert_gate: bool = False  # Qwen-MoE: a sigmoid gate Linear(hidden, 1) on the shared expert
    router_bias: bool = False
    moe_output_bias: bool = False  # JetMoE: one bias of the width after the experts' weighted sum
    # the routed experts' biases; None: as mlp_bias (HunYuan 3: none, whatever mlp_bias says)
    expert_bias: bool | None = None
    # LongCat-Flash: routing slots that compute nothing (the token passes through unchanged); the router scores
    # num_experts + zero_experts slots, and transformers allocates gate_up rows for these slots too
    zero_experts: int = 0
    # LongCat-Flash: each layer holds sublayers (attention, then a dense MLP) pairs beside one MoE block
    sublayers: int = 1
    # Gemma 4: every MoE layer runs its dense MLP beside the experts; the router scales its input per channel and its
    # output per expert, and moe_norms more norms surround the two
    moe_beside_mlp: bool = False
    router_scales: bool = False
    moe_norms: int = 0
    # Mixture of attention heads (JetMoE): the query and output projections are attention_experts experts,
    # num_experts_per_tok of them per token, behind a router; keys and values are one shared projection
    attention_experts: int = 0
    # What PEFT's LoRA "all-linear" does to a mixture of experts of this type (transformers 5 stacks the routed
    # experts in 3-D tensors, which are not linear layers): "tensors" -- PEFT converts its transformers 4 targets, so
    # the expert tensors (gate_up at twice the rank) and the router's weight are adapted and the dense and shared
    # MLPs (named like the old expert layers) are not; "router" -- the experts stay frozen, the router is a linear
    # layer and is adapted; "frozen" -- experts and router stay frozen
    lora_moe: str = "frozen"
    # PEFT refuses LoRA on this type's Mamba out_proj and conv1d (the types it lists as Mamba-based), so "all-linear"
    # cannot be applied to it; on other hybrids it adapts the mixers' in_proj and out_proj like any linear layer
    lora_refuses_ssm: bool = False
    first_k_dense_replace: int = 0  # the first k layers keep a dense MLP
    mlp_only_layers: tuple[int, ...] = ()  # further layers that keep a dense MLP
    # recurrent units: one small RNN (hidden size H) per embedding channel
    recurrent_units: int = 0
    # encoder-decoder
    num_decoder_layers: int = 0  # > 0 makes an encoder-decoder; num_hidden_layers is the encoder
    source_positions: int = 0  # Whisper: the encoder's position table (and the length cross-attention reads)
    audio_mel_bins: int = 0  # Whisper: the encoder reads mel frames through two convolutions, not tokens
    # vision encoders (ViT, CLIP's and SigLIP's towers): the tokens are the patches of an image, cut and embedded by
    # one convolution of kernel and stride patch_size
    image_size: int = 0  # > 0: a vision encoder over (image_size // patch_size)^2 patches
    patch_size: int = 0
    num_channels: int = 3
    patch_bias: bool = True  # the patch convolution's bias (CLIP: none)
    patch_linear: bool = False  # Llama 4: patches unfolded into one nn.Linear (LoRA adapts it) instead of a conv
    class_token: bool = False  # a learned class token before the patches (ViT, CLIP; SigLIP: none)
    mask_token: bool = False  # DINOv2: a learned vector that replaces masked patches in pretraining
    register_tokens: int = 0  # DINOv2 with registers: learned tokens after the class token, hidden_size each
    num_labels: int = 0  # image_classification: the classifier's outputs
    attention_pool: bool = False  # SigLIP: a multi-head attention-pooling head (probe, attention, norm, MLP)
    pooled_projection: int = 0  # SigLIP's text tower: a linear layer with a bias from the pooled token to this width
    # Llama 4's vision tower: after a pixel shuffle, a bias-free MLP from intermediate_size to adapter_width, then
    # adapter_out to adapter_out
    adapter_width: int = 0
    adapter_out: int = 0
    temporal_patch: int = 1  # Qwen's vision towers: a patch spans this many video frames (a Conv3d)
    # Qwen's vision towers: the patch merger (a LayerNorm, then an MLP from merge_size^2 x hidden_size, with biases,
    # to merger_out, the language model's width)
    merge_size: int = 0
    merger_out: int = 0
    # GLM-4V's merger instead: merge_size^2 patches folded by a convolution (with a bias) to merger_out, a bias-free
    # projection, a LayerNorm with a bias, and a gated MLP merger_mlp wide without biases
    merger_mlp: int = 0
    layer_scales: bool = False  # InternVL's tower: two learned scales per layer (lambda_1, lambda_2), hidden_size each
    deepstack_mergers: int = 0  # Qwen3-VL: more mergers, each normalising the merged patches, for layers it feeds
    share_stack_embeddings: bool = True  # encoder and decoder read embedding/token (False: each its own, untied BART)
    encoder_embedding: bool = False  # the encoder has a table of its own; the decoder (and a tied head) read
    # embedding/token (T5Gemma)
    cross_norms: int = 1  # norms around each cross-attention block (T5Gemma: 2, before and after)
    encoder_sliding_window_layers: int | None = None  # the encoder's sliding layers when its pattern differs from
    # the decoder's (T5Gemma); sliding_window_layers counts the decoder's, whose cache they size
    relative_attention_num_buckets: int = 0  # T5 relative attention bias (first layer of each stack)
    # DeBERTa's disentangled attention: a relative-position table shared by all layers (and a LayerNorm on it), the
    # per-layer projections of it to keys and queries, and a convolution beside the first layer (v2 xlarge)
    relative_table: int = 0  # rows of the table, each hidden_size wide (2 × position_buckets)
    relative_table_norm: bool = False
    position_key_proj: bool = False
    position_query_proj: bool = False
    encoder_conv_kernel: int = 0
    encoder_conv_groups: int = 1
    # Zamba2: shared_blocks transformer blocks (attention over the hidden state and the input embeddings side by side,
    # 2 x hidden_size wide, then an MLP) whose weights serve shared_block_uses of the layers, round-robin, before their
    # Mamba mixer; each use adds a linear layer of its own and runs one of shared_adapters sets of low-rank adapters of
    # shared_adapter_rank (on the MLP's gate_up, and on q, k and v with shared_attention_adapters)
    shared_blocks: int = 0
    shared_block_uses: int = 0
    shared_adapters: int = 0
    shared_adapter_rank: int = 0
    shared_attention_adapters: bool = False
    # a multimodal checkpoint's parameters outside this language model (its vision and audio towers, projectors),
    # counted by transformers: held in memory and trained, never in FLOPs, active parameters or a decode step's reads
    towers_params: int = 0
    # Weights a checkpoint loaded in 16 bit keeps in fp32 (memory and a decode step's reads): component paths
    # (globs; ".weight" at the end: the layer's matrix, not its bias) kept fp32 in fp16 and in bf16 (the class's
    # _keep_in_fp32_modules_strict, or parameters its modeling file makes fp32: Zamba's A_log), and further paths kept
    # fp32 in fp16 only (its _keep_in_fp32_modules)
    fp32_weights: tuple[str, ...] = ()
    fp32_weights_fp16: tuple[str, ...] = ()
    # the same for towers_params: how many of them stay fp32 in bf16 and in fp16 (BLIP-2's Q-Former in fp16)
    towers_fp32: int = 0
    towers_fp32_fp16: int = 0
    # the whole model's class computes the logits of every prompt token (its forward takes no logits_to_keep)
    logits_every_token: bool = False
    # sharing
    num_hidden_groups: int | None = None  # ALBERT: distinct parameter sets shared by the layers
    # attention span (memory only)
    sliding_window: int | None = None
    sliding_window_layers: int = 0  # how many layers use the sliding window (Gemma 2: every other)
    # Gemma 4: the full-attention layers' heads are global_head_dim wide (global_kv_heads of them for keys and values,
    # their values the keys' projection with global_k_eq_v); the last kv_shared_layers (kv_shared_sliding of them
    # sliding) reuse an earlier layer's keys and values: no k/v projections, nothing cached
    global_head_dim: int | None = None
    global_kv_heads: int | None = None
    # AFMoE: the attention output gated by a projection of its own (hidden_size to heads x head_dim, no bias), and a
    # learned bias per expert added to the router's scores (a parameter, frozen)
    attention_gate_proj: bool = False
    attention_head_gate: bool = False  # LFM3: a sigmoid gate per head from the layer input (g_proj: hidden -> heads)
    # Doge's dynamic mask: a learned decay A per KV head and dt_proj from the values (kv heads x head_dim) to one
    # input per KV head, biased with attention_bias
    dynamic_mask: bool = False
    expert_score_bias: bool = False
    # MiMo-V2-Flash: the sliding layers' own KV heads (twice the full layers'), and a learned sink per head on them
    sliding_kv_heads: int | None = None
    sliding_sinks: bool = False
    global_k_eq_v: bool = False
    kv_shared_layers: int = 0
    kv_shared_sliding: int = 0
    # the key and value projections of every attention layer: 2 (k and v), 1 (values from the keys' projection), 0
    # (both reused from an earlier layer); set per group of layers by Spec.attention_groups
    kv_projections: int = 2
    wide_mlp_layers: int = 0  # Gemma 4: layers (the KV-sharing ones) whose MLP is 2 x intermediate_size wide
    # DeepSeek-V4: queries through a q_lora_rank bottleneck, one key/value head whose keys are its values (kv_proj to
    # head_dim, with its norm), the output through o_groups groups of rank o_lora_rank, a learned sink per head; beside
    # each layer's sliding window, a compressor on csa_layers (compressed sparse attention: every csa_rate tokens
    # into one entry, with a lightning indexer of index_n_heads x index_head_dim) and hca_layers (heavily
    # compressed: every hca_rate tokens); hc_mult residual streams mixed by hyper-connections around every block
    shared_kv_head: bool = False
    o_groups: int = 0
    o_lora_rank: int = 0
    csa_layers: int = 0
    hca_layers: int = 0
    csa_rate: int = 0
    hca_rate: int = 0
    index_topk: int = 0  # compressed sparse attention: the entries each query attends to, as the indexer picks them
    hc_mult: int = 0
    # Gemma 4's and Gemma 3n's per-layer inputs: a table of per_layer_vocab rows, num_hidden_layers x per_layer_input
    # wide, and a projection of the embeddings to the same width; each layer gates its slice in and projects it back
    per_layer_input: int = 0
    per_layer_vocab: int = 0
    # Gemma 3n's AltUp: altup_num_inputs copies of the residual stream (the embeddings projected into each of the
    # others at the input, each projected back before the final norm); every layer predicts them all from the active
    # one and corrects them after its blocks: a router (hidden_size -> altup_num_inputs, after a norm), prediction and
    # correction coefficients and an output scale per channel. 0: none
    altup_num_inputs: int = 0
    # Gemma 3n's LAuReL: a low-rank residual beside attention in every layer (hidden_size -> laurel_rank -> hidden_size,
    # then a norm); None: none (0 keeps the norm, as transformers builds it)
    laurel_rank: int | None = None
    # Mllama's language model: cross_attn_layers of its layers attend to the vision tower's states, each with q/k norms
    # over head_dim and two tanh gates (attention, MLP) beside q/k/v/o (counted with the attention), its MLP and norms;
    # its token table holds extra_token_rows rows beyond vocab_size (the head keeps vocab_size)
    cross_attn_layers: int = 0
    extra_token_rows: int = 0
    # Mllama's vision tower: images cut into up to max_num_tiles tiles, tables of tile positions per supported aspect
    # ratio (tile_ratios rows, + 1 for none): a gated one per patch and tile, two gated ones per tile; the last
    # gated_layers layers (its global transformer) hold two tanh gates each
    max_num_tiles: int = 0
    tile_ratios: int = 0
    gated_layers: int = 0
    # Conformer layers (Gemma 4's audio tower, after USM): a second feed-forward block in every layer (macaron_ffn: one
    # before the attention and one after the convolution module, each added at half weight, each between two norms), a
    # convolution module (conv_module_kernel > 0: a bias-free linear layer to 2 x hidden_size halved by a GLU, a
    # depthwise convolution of conv_module_kernel taps without a bias, a bias-free linear layer back), attention with
    # relative position keys (relative_key_proj: sinusoids projected by a bias-free hidden_size -> heads x head_dim
    # layer, and a learned scale per query channel); blocked_attention: the sliding window is computed block by block
    # (blocks of queries against their context), so only the window's scores are computed and held, even eagerly
    macaron_ffn: bool = False
    conv_module_kernel: int = 0
    relative_key_proj: bool = False
    relative_positions: int = 0  # the relative positions whose keys are projected (0: sliding_window // 2 + 1)
    blocked_attention: bool = False
    # A Conformer's audio input (Gemma 4's, Gemma 3n's): mel frames through two convolutions without biases, of
    # subsampling_taps then subsampling_out_taps taps (kernel height x width: 3 x 3 = 9 in Gemma 4), to
    # subsampling_channels then subsampling_out_channels channels, each followed by a norm of one weight per channel
    # (no bias), then a bias-free linear layer from subsampling_freq x subsampling_out_channels (the frequency bins the
    # convolutions leave, by the channels) to hidden_size; and its output (Gemma 4): a linear layer with a bias from
    # hidden_size to output_proj_dims on every frame
    subsampling_channels: int = 0
    subsampling_out_channels: int = 0
    subsampling_taps: int = 9
    subsampling_out_taps: int = 9
    subsampling_freq: int = 0
    # Phi-4-multimodal's audio tower: NeMo's subsampling (subsampling_stages > 0: a 3 x 3 stride-2 convolution with a
    # bias from one channel to subsampling_channels, then subsampling_stages - 1 stages of a depthwise 3 x 3 stride-2
    # convolution and a pointwise one, each with a bias, then a linear layer with a bias from subsampling_freq x
    # subsampling_channels to hidden_size); its convolution module built of Conv1d layers with biases
    # (conv_glu_channels > 0: hidden_size -> 2 x conv_glu_channels halved by a GLU with two learned biases, a depthwise
    # convolution of conv_module_kernel taps and conv_depthwise_multiplier outputs a channel, a pointwise one to
    # conv_separable_channels, and hidden_size -> conv_glu_channels at the end)
    subsampling_stages: int = 0
    conv_glu_channels: int = 0
    conv_depthwise_multiplier: int = 1
    conv_separable_channels: int = 0
    output_proj_dims: int = 0
    # BLIP-2's Q-Former: cross-attention (its own q/k/v/o with biases and a norm after it) in layer 0 and every
    # cross_attention_frequency-th layer after it, its keys and values reading encoder_hidden_size wide states (0: the
    # hidden size); text_mlp: a second MLP with its norm in every layer, for text tokens beside the queries' own
    cross_attention_frequency: int = 0
    encoder_hidden_size: int = 0
    text_mlp: bool = False
    # bookkeeping
    extra: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    # ----------------------------------------------------------------- derived values
    @property
    def kv_heads(self) -> int:
        return self.num_key_value_heads if self.num_key_value_heads is not None else self.num_attention_heads

    @property
    def head_size(self) -> int:
        if self.head_dim is not None:
            return self.head_dim
        return self.hidden_size // self.num_attention_heads if self.num_attention_heads else 0

    @property
    def ffn_size(self) -> int:
        return self.intermediate_size if self.intermediate_size is not None else 4 * self.hidden_size

    @property
    def expert_size(self) -> int:
        return self.moe_intermediate_size if self.moe_intermediate_size is not None else self.ffn_size

    @property
    def shared_expert_size(self) -> int:
        if self.shared_expert_intermediate_size is not None:
            return self.shared_expert_intermediate_size
        return self.num_shared_experts * self.expert_size

    @property
    def embed_width(self) -> int:
        return self.embedding_size if self.embedding_size is not None else self.hidden_size

    @property
    def out_bias(self) -> bool:
        return self.attention_bias if self.attention_out_bias is None else self.attention_out_bias

    @property
    def value_size(self) -> int:
        """The width of one value head: ``v_head_dim`` where the attention states one (MLA, MiMo-V2-Flash), else the
        head width."""
        return self.v_head_dim if self.v_head_dim is not None else self.head_size

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def is_encoder_decoder(self) -> bool:
        return self.num_decoder_layers > 0

    @property
    def patches(self) -> int:
        """Patches per image (a vision encoder): the convolution of stride patch_size fits image // patch a side."""
        return (self.image_size // self.patch_size) ** 2 if self.image_size and self.patch_size else 0

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    def moe_layer(self, index: int) -> bool:
        """Whether decoder layer ``index`` (0-based) holds experts rather than a dense MLP."""
        return self.is_moe and index >= self.first_k_dense_replace and index not in self.mlp_only_layers

    @property
    def num_moe_layers(self) -> int:
        """Layers holding experts, in O(1) of depth: all but the first k and the listed dense ones."""
        if not self.is_moe:
            return 0
        first = min(self.first_k_dense_replace, self.num_hidden_layers)
        listed = {i for i in self.mlp_only_layers if first <= i < self.num_hidden_layers}
        return self.num_hidden_layers - first - len(listed)

    def stack(self, layers: int, layers_expr: str) -> Stack:
        """What ``layers`` layers of this model hold, by kind: the one walk of the layer pattern that parameters,
        memory and FLOPs all read. Encoder-decoder stacks are uniform (attention and a dense MLP in each layer);
        a decoder's pattern (linear-attention, state-space, short-convolution, time-mixing, mixer-only and
        feed-forward-only layers, expert layers) applies when ``layers`` is the decoder's own depth."""
        per = 2 if self.macaron_ffn else 1  # a Conformer's two feed-forward blocks a layer
        if self.is_encoder_decoder or layers != self.num_hidden_layers:
            attention = layers if self.has_attention else 0
            mlp = per * layers if self.ffn_size else 0
            sliding = self._sliding(attention)
            if layers_expr == "num_hidden_layers" and self.encoder_sliding_window_layers is not None:
                sliding = min(self.encoder_sliding_window_layers, attention)  # the encoder's own pattern (T5Gemma)
            return Stack(layers, layers_expr, attention, sliding, mlp=mlp, mlps_per_layer=per)
        mixers = layers - self.ffn_only_layers
        moe = self.num_moe_layers
        if self.sublayers > 1:  # LongCat-Flash: attention and a dense MLP sublayers times per layer, one MoE block
            attention, mlp = layers * self.sublayers, layers * self.sublayers if self.ffn_size else 0
            sliding = self._sliding(attention)
            return Stack(layers, layers_expr, attention, sliding, mlp=mlp, moe=moe, sublayers=self.sublayers)
        dense = layers - self.mixer_only_layers - (0 if self.moe_beside_mlp else moe) if self.ffn_size else 0
        others = self.linear_attention_layers + self.short_conv_layers + self.time_mixing_layers + self.lightning_layers
        others += self.mlstm_layers + (0 if self.ssm_beside_attention else self.ssm_layers)
        attention = mixers - others if self.has_attention else 0
        if self.shared_blocks:  # Zamba2: the shared transformer runs in its hybrid layers, beside every layer's Mamba
            attention = self.shared_block_uses
        return Stack(
            layers,
            layers_expr,
            attention,
            self._sliding(attention),
            linear_attention=self.linear_attention_layers,
            ssm=self.ssm_layers,
            short_conv=self.short_conv_layers,
            time_mixing=self.time_mixing_layers,
            lightning=self.lightning_layers,
            mlstm=self.mlstm_layers,
            mlp=per * dense,
            moe=moe,
            mlps_per_layer=per,
            first_k_dense=bool(self.first_k_dense_replace) and not self.mlp_only_layers and not self.mixer_only_layers,
        )

    def attention_groups(self, kinds: Stack) -> tuple[AttentionGroup, ...]:
        """The attention layers of a stack by how they are built: one group where every layer is alike; Gemma 4's
        sliding and full-attention layers (global_head_dim wide), each with keys and values of its own or reusing an
        earlier layer's; MiMo-V2-Flash's sliding layers with KV heads and sinks of their own. Parameters, the KV cache,
        activations, FLOPs and LoRA all read these groups."""
        layers, sliding = kinds.attention, kinds.sliding
        differ = self.global_head_dim or self.global_kv_heads or self.global_k_eq_v or self.kv_shared_layers
        if not (differ or self.sliding_kv_heads or self.sliding_sinks):
            return (AttentionGroup("attention", self, layers, sliding, kinds.expr("attention")),) if layers else ()
        full = layers - sliding
        shared_sliding = min(self.kv_shared_sliding, sliding)
        shared_full = min(self.kv_shared_layers - self.kv_shared_sliding, full)
        local, wide, reused_local, reused_wide = _group_specs(self)
        local_names = (("num_key_value_heads", "sliding_kv_heads"),) if self.sliding_kv_heads else ()
        names = (("head_dim", "global_head_dim"),) if self.global_head_dim else ()
        names += (("num_key_value_heads", "num_global_key_value_heads"),) if self.global_kv_heads else ()
        groups = zip(
            ATTENTION_GROUPS,
            (local, wide, reused_local, reused_wide),
            (sliding - shared_sliding, full - shared_full, shared_sliding, shared_full),
            (True, False, True, False),
            (local_names, names, local_names, names),
            strict=True,
        )
        return tuple(
            AttentionGroup(
                path, spec, n, n if slides else 0, kinds.layers_expr if n == layers else f"{path}_layers={n}", renames
            )
            for path, spec, n, slides, renames in groups
            if n
        )

    def _sliding(self, attention: int) -> int:
        """How many of ``attention`` layers attend within ``sliding_window``: all of them when
        ``sliding_window_layers`` is 0 (Mistral, Phi-3, StarCoder2 configs), else that many (Gemma 2)."""
        if self.sliding_window is None:
            return 0
        return min(self.sliding_window_layers, attention) if self.sliding_window_layers else attention

    @property
    def linear_conv_channels(self) -> int:
        """Channels of a Gated DeltaNet layer's convolution: its queries, keys and values (Griffin's: the RG-LRU's
        input alone)."""
        if self.linear_kind == "rglru":
            return self.linear_num_value_heads * self.linear_value_head_dim
        key = self.linear_num_key_heads * self.linear_key_head_dim
        return 2 * key + self.linear_num_value_heads * self.linear_value_head_dim

    @property
    def ssm_conv_channels(self) -> int:
        """Channels of a Mamba layer's convolution: the inner width (Mamba-2: and B and C, per group)."""
        return self.ssm_inner + (2 * self.ssm_groups * self.ssm_state_size if self.ssm_version == 2 else 0)

    @property
    def lm_head(self) -> bool:
        return self.architecture in ("causal_lm", "masked_lm", "seq2seq_lm") and self.vocab_size > 0

    def replace(self, **changes: object) -> Spec:
        """A validated variant of this spec (``dataclasses.replace`` + :func:`validate`)."""
        return validate(dataclasses.replace(self, **changes))


_COUNT_NAMES = {
    "attention": "attention_layers",
    "linear_attention": "linear_attention_layers",
    "ssm": "ssm_layers",
    "short_conv": "short_conv_layers",
    "time_mixing": "time_mixing_layers",
    "lightning": "lightning_layers",
    "mlstm": "mlstm_layers",
    "mlp": "dense_layers",
    "moe": "num_moe_layers",
}


class Stack(NamedTuple):
    """How many layers of one stack hold each kind of mixer (attention, linear attention, state space, short
    convolution, RWKV's time mixing, lightning attention, xLSTM's mLSTM) and of feed-forward block (a dense MLP,
    experts); :meth:`expr` names each count for the formulas."""

    layers: int
    layers_expr: str
    attention: int = 0
    sliding: int = 0  # of the attention layers, those attending within the sliding window
    linear_attention: int = 0
    ssm: int = 0
    short_conv: int = 0
    time_mixing: int = 0
    lightning: int = 0
    mlstm: int = 0
    mlp: int = 0
    moe: int = 0
    first_k_dense: bool = False  # the dense layers are exactly the first first_k_dense_replace
    sublayers: int = 1  # blocks of one kind a layer holds more than once (LongCat-Flash: 2 attention, 2 MLPs)
    mlps_per_layer: int = 1  # dense MLPs each layer holds (a Conformer's macaron feed-forward blocks: 2)

    def expr(self, kind: str) -> str:
        """The stack's own name when every layer holds ``kind``, else the kind's count by name."""
        n = getattr(self, kind)
        if n == self.layers:
            return self.layers_expr
        if self.sublayers > 1 and n == self.sublayers * self.layers:
            return f"{self.sublayers}*{self.layers_expr}"
        if kind == "mlp" and self.mlps_per_layer > 1 and n == self.mlps_per_layer * self.layers:
            return f"{self.mlps_per_layer}*{self.layers_expr}"
        if self.first_k_dense and kind == "moe":
            return f"({self.layers_expr} - first_k_dense_replace)"
        if self.first_k_dense and kind == "mlp":
            return "first_k_dense_replace"
        return f"{_COUNT_NAMES[kind]}={n}"


#: The groups of attention layers (:meth:`Spec.attention_groups`), each a path under its stack: sliding (or every
#: layer where all are alike), full-attention, and those two reusing an earlier layer's keys and values.
ATTENTION_GROUPS = ("attention", "full_attention", "shared_kv_attention", "shared_kv_full_attention")


class AttentionGroup(NamedTuple):
    """Attention layers built alike: their path under the stack (``attention``, ``full_attention``, ...), the spec
    they are built with, how many there are, how many of them slide, that count by name, and the names their formulas
    use for the spec's fields (``head_dim`` is ``global_head_dim`` in Gemma 4's full-attention layers)."""

    path: str
    spec: Spec
    layers: int
    sliding: int
    expr: str
    renames: tuple[tuple[str, str], ...] = ()


FIELDS: dict[str, dataclasses.Field] = {f.name: f for f in dataclasses.fields(Spec) if f.name != "extra"}


@functools.lru_cache(maxsize=256)
def _group_specs(spec: Spec) -> tuple[Spec, Spec, Spec, Spec]:
    """The Specs each attention group is built with (:meth:`Spec.attention_groups`): sliding layers, full-attention
    layers, and each of those reusing an earlier layer's keys and values. Cached: a Spec copy costs microseconds and
    every tree (parameters, memory, FLOPs, LoRA) asks."""
    base = dataclasses.replace(
        spec,
        global_head_dim=None,
        global_kv_heads=None,
        global_k_eq_v=False,
        kv_shared_layers=0,
        sliding_kv_heads=None,
        sliding_sinks=False,
    )
    local = dataclasses.replace(
        base,
        num_key_value_heads=spec.sliding_kv_heads or spec.kv_heads,
        attention_sinks=spec.attention_sinks or spec.sliding_sinks,
    )
    wide = dataclasses.replace(
        base,
        head_dim=spec.global_head_dim or spec.head_size,
        num_key_value_heads=spec.global_kv_heads or spec.kv_heads,
        kv_projections=1 if spec.global_k_eq_v else 2,
    )
    return local, wide, dataclasses.replace(local, kv_projections=0), dataclasses.replace(wide, kv_projections=0)


def resolve(spec: Spec) -> Spec:
    """Fill derived fields that are missing, exactly as transformers does, and nothing else."""
    changes: dict[str, object] = {}
    if spec.num_key_value_heads is None and spec.has_attention:
        changes["num_key_value_heads"] = spec.num_attention_heads
    if spec.head_dim is None and spec.has_attention and spec.num_attention_heads:
        changes["head_dim"] = spec.hidden_size // spec.num_attention_heads
    if spec.intermediate_size is None:
        changes["intermediate_size"] = 4 * spec.hidden_size
    return dataclasses.replace(spec, **changes) if changes else spec


def _check_layer_groups(spec: Spec) -> None:
    """Counts of layers of one kind stay within the stack; the compressed layers have their rates, one key/value head
    a window and output groups; a layer has 0, 1 or 2 key/value projections."""
    layers = spec.num_hidden_layers
    for name in (
        "csa_layers",
        "hca_layers",
        "kv_shared_layers",
        "kv_shared_sliding",
        "wide_mlp_layers",
        "cross_attn_layers",
        "gated_layers",
    ):
        if getattr(spec, name) > layers:
            raise SpecError(name, f"{getattr(spec, name):,} is more than the {layers:,} layers")
    if spec.csa_layers + spec.hca_layers > layers:
        raise SpecError("hca_layers", f"with csa_layers, more than the {layers:,} layers")
    if spec.kv_projections > 2:
        raise SpecError("kv_projections", "0 (reused), 1 (values from the keys) or 2 (keys and values)")
    for n, rate in (("csa_layers", "csa_rate"), ("hca_layers", "hca_rate")):
        if getattr(spec, n) and getattr(spec, rate) < 1:
            raise SpecError(rate, "a compressed layer needs a rate of at least 1")
    if spec.shared_kv_head and (not spec.sliding_window or spec.o_groups < 1):
        what = "sliding_window" if not spec.sliding_window else "o_groups"
        raise SpecError(what, "one key/value head (shared_kv_head) attends within a window through at least 1 group")


#: The end of the refusal of heads that do not divide the width, where stating head_dim is a way out (a row whose class
#: reads no head_dim drops it)
HEAD_DIM_ADVICE = " or set head_dim explicitly"


def validate(spec: Spec) -> Spec:
    """Check a spec and return it with derived fields resolved; raise ``ValueError`` saying what to fix."""
    for name, f in FIELDS.items():
        value = getattr(spec, name)
        if f.type in ("int", "int | None"):
            if value is None and f.type == "int":
                raise SpecError(name, "a whole number is required")
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise SpecError(name, f"expected a whole number, got {value!r}")
                if value < 0:
                    raise SpecError(name, f"must not be negative (got {value})")
                limit = LIMITS.get(name)
                if limit is not None and value > limit:
                    raise SpecError(name, f"{value:,} is larger than the supported maximum {limit:,}")
        elif f.type == "str":
            if not isinstance(value, str) or len(value) > 64:
                raise SpecError(name, f"expected a short text, got {str(value)[:40]!r}")
        elif f.type == "tuple[int, ...]":
            if not isinstance(value, tuple) or not all(type(i) is int and i >= 0 for i in value):
                raise SpecError(name, "expected a list of layer indices (whole numbers from 0)")
        elif f.type == "tuple[str, ...]":
            if not isinstance(value, tuple) or not all(isinstance(i, str) and len(i) <= 64 for i in value):
                raise SpecError(name, "expected a list of short texts")
        elif f.type in ("bool", "bool | None"):
            if not (isinstance(value, bool) or (value is None and f.type == "bool | None")):
                raise SpecError(name, f"expected true or false, got {value!r}")
    _choice(spec.architecture, ARCHITECTURES, "architecture")
    _choice(spec.norm_type, NORM_TYPES, "norm_type")
    _choice(spec.position_embedding, POSITION_EMBEDDINGS, "position_embedding")
    _choice(spec.qk_norm, QK_NORMS, "qk_norm")
    _choice(spec.lora_moe, LORA_MOE, "lora_moe")
    _choice(spec.linear_kind, LINEAR_KINDS, "linear_kind")
    _check_layer_groups(spec)
    if spec.hidden_size < 1:
        raise SpecError("hidden_size", "must be at least 1")
    if spec.has_attention and spec.num_hidden_layers + spec.num_decoder_layers > 0:
        heads = spec.num_attention_heads
        if heads < 1:
            raise SpecError("num_attention_heads", "must be at least 1 (or switch attention off)")
        if spec.head_dim is None and not spec.is_mla and spec.hidden_size % heads:
            raise SpecError(
                "num_attention_heads",
                f"{heads:,} does not divide hidden_size {spec.hidden_size:,}; choose a divisor{HEAD_DIM_ADVICE}",
            )
        kv = spec.kv_heads
        if kv < 1:
            raise SpecError("num_key_value_heads", "must be at least 1")
        if heads % kv and not spec.is_mla:  # MLA reads keys and values from one latent: kv heads size nothing
            raise SpecError(
                "num_key_value_heads",
                f"{kv} does not divide num_attention_heads {heads}; "
                "each key/value head must serve a whole group of query heads",
            )
        if spec.head_size < 1:
            raise SpecError("head_dim", "must be at least 1")
    if spec.is_mla:
        for name in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            if getattr(spec, name) is None:
                raise SpecError(name, "required with kv_lora_rank (multi-head latent attention)")
    if spec.is_moe:
        if not 1 <= spec.num_experts_per_tok <= spec.num_experts:
            raise SpecError(
                "num_experts_per_tok",
                f"must be between 1 and num_experts ({spec.num_experts}), got {spec.num_experts_per_tok}",
            )
    if spec.attention_experts:
        if not 1 <= spec.num_experts_per_tok <= spec.attention_experts:
            raise SpecError(
                "num_experts_per_tok",
                f"must be between 1 and attention_experts ({spec.attention_experts}), got {spec.num_experts_per_tok}",
            )
    if spec.num_hidden_groups is not None:
        if not 1 <= spec.num_hidden_groups <= max(spec.num_hidden_layers, 1):
            raise SpecError("num_hidden_groups", "must be between 1 and num_hidden_layers")
    if spec.position_embedding == "relative" and spec.relative_attention_num_buckets < 1:
        raise SpecError("relative_attention_num_buckets", "relative positions need at least one bucket")
    if spec.linear_attention_layers:
        if spec.linear_attention_layers > spec.num_hidden_layers:
            raise SpecError("linear_attention_layers", "cannot exceed num_hidden_layers")
        for name in ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim"):
            if getattr(spec, name) < 1:
                raise SpecError(name, "must be at least 1 with linear-attention layers")
        if spec.linear_num_value_heads % spec.linear_num_key_heads:
            raise SpecError(
                "linear_num_value_heads",
                f"{spec.linear_num_value_heads} is not a multiple of linear_num_key_heads {spec.linear_num_key_heads}",
            )
    others = spec.ssm_layers + spec.linear_attention_layers + spec.short_conv_layers + spec.time_mixing_layers
    others += spec.lightning_layers + spec.mlstm_layers
    if others + spec.ffn_only_layers > spec.num_hidden_layers:
        raise SpecError(
            "ssm_layers",
            "state-space, linear-attention, lightning, mLSTM, convolution, time-mixing and MLP-only layers exceed "
            "num_hidden_layers",
        )
    if spec.mlstm_layers:
        heads = spec.mlstm_heads
        if heads < 1:
            raise SpecError("mlstm_heads", "must be at least 1 with mLSTM layers")
        for name in ("mlstm_qk_dim", "mlstm_v_dim"):
            width = getattr(spec, name)
            if width < 1 or width % heads:
                raise SpecError(name, f"{width:,} is not a positive multiple of mlstm_heads ({heads:,})")
    if spec.encoder_conv_kernel and (spec.encoder_conv_groups < 1 or spec.hidden_size % spec.encoder_conv_groups):
        raise SpecError("encoder_conv_groups", f"must divide hidden_size {spec.hidden_size:,}")
    if spec.time_mixing_layers and spec.time_mixing_size < 1:
        raise SpecError("time_mixing_size", "must be at least 1 with time-mixing layers")
    if spec.short_conv_layers and spec.short_conv_kernel < 1:
        raise SpecError("short_conv_kernel", "must be at least 1 with short-convolution layers")
    if spec.mixer_only_layers + spec.ffn_only_layers > spec.num_hidden_layers:
        raise SpecError("mixer_only_layers", "mixer-only and MLP-only layers exceed num_hidden_layers")
    if spec.ssm_layers:
        if spec.ssm_version not in (1, 2):
            raise SpecError("ssm_version", f"expected 1 (Mamba) or 2 (Mamba-2), got {spec.ssm_version}")
        needed = ("ssm_inner", "ssm_state_size", "ssm_conv_kernel")
        needed += ("ssm_dt_rank",) if spec.ssm_version == 1 else ("ssm_heads", "ssm_groups")
        for name in needed:
            if getattr(spec, name) < 1:
                raise SpecError(name, "must be at least 1 with state-space layers")
    if spec.image_size:
        if not 1 <= spec.patch_size <= spec.image_size:
            raise SpecError("patch_size", f"must be between 1 and image_size {spec.image_size:,}")
        if spec.num_channels < 1:
            raise SpecError("num_channels", "must be at least 1")
    if spec.architecture == "image_classification" and not spec.image_size:
        raise SpecError("architecture", "an image classifier needs image_size and patch_size (a vision encoder)")
    if spec.shared_block_uses > spec.num_hidden_layers:
        raise SpecError("shared_block_uses", "cannot exceed num_hidden_layers")
    if spec.sliding_window_layers > spec.num_hidden_layers:
        raise SpecError("sliding_window_layers", "cannot exceed num_hidden_layers")
    if spec.sliding_window is not None and spec.sliding_window < 1:
        raise SpecError("sliding_window", "must be at least 1 token")
    return resolve(spec)


def _choice(value: str, options: tuple[str, ...], name: str) -> None:
    if value not in options:
        raise SpecError(name, f"{value!r} is not one of {', '.join(options)}")


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_of_ten(x: float, digits: int = 3) -> str:
    """7.746e21 -> '7.75 × 10²¹': a count of FLOPs as papers write it (not Python's '7.75e+21'); a value that is
    not finite as Python writes it."""
    if not math.isfinite(x):
        return str(x)
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def percent(p: float) -> str:
    """A share in percent with two decimals; a non-zero share that would show as 0.00 says so: '< 0.01%'."""
    return "< 0.01%" if 0 < p < 0.005 else f"{p:.2f}%"


def short(n: float) -> str:
    """124439808 -> '124.4M' (powers of 1000: k, M, B, T, as the charts' axes write them; 999,950 -> '1.0M')."""
    if n != n or math.isinf(n):
        return str(n)
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if round(abs(n) / scale, 1) >= 1:
            return f"{n / scale:.1f}{unit}"
    return f"{n:,.0f}" if isinstance(n, int) or float(n).is_integer() else f"{n:.3g}"
