"""Encoders (BERT and kin), encoder-decoders (T5, BART, Whisper), audio towers (Whisper's encoder alone, Gemma 4's
Conformer), vision encoders (ViT, CLIP's, SigLIP's, Pixtral's and Llama 4's vision towers) and CLIP's and SigLIP's text
towers: one row per ``model_type``."""

from __future__ import annotations

import math

from paramscope.families import hooks
from paramscope.families.decoders import CORE_KEYS, TF
from paramscope.families.schema import Family, Rule

BERT = Family(
    model_type="bert",
    class_prefix="Bert",
    source=f"{TF}/bert/modeling_bert.py",
    keys=dict(CORE_KEYS, hidden_act=("hidden_act",), type_vocab_size=("type_vocab_size",)),
    defaults=dict(tie_word_embeddings=True),
    fixed=dict(
        encoder_only=True,
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        final_norm=False,
        position_embedding="learned",
        mlm_transform=True,
        lm_head_bias=True,
        lm_head_bias_pair=True,
    ),
    hooks=(hooks.bert_pooler, hooks.cross_attention_beyond),
    default_arch="masked_lm",
)
BLIP_2_QFORMER = BERT.but(
    model_type="blip_2_qformer",
    class_prefix="Blip2QFormer",
    source=f"{TF}/blip_2/modeling_blip_2.py",
    keys=dict(
        vocab_size=None,
        max_position_embeddings=None,
        type_vocab_size=None,
        tie_word_embeddings=None,
        cross_attention_frequency=("cross_attention_frequency",),
        encoder_hidden_size=("encoder_hidden_size",),
        text_mlp=("use_qformer_text_input",),
    ),
    # BLIP-2's Querying Transformer as Blip2QFormerModel builds it: no token or position table (the whole model's
    # query tokens come in, BERT-style text embeddings are built only by the retrieval classes), a LayerNorm over its
    # input, BERT's post-norm layers (q/k/v/o with biases, a LayerNorm after attention and after the MLP), the query
    # tokens' MLP (intermediate_query, output_query) in every layer and the text tokens' (intermediate, output) beside
    # it with use_qformer_text_input, cross-attention to the vision tower in layer 0 and every
    # cross_attention_frequency-th layer, its keys and values encoder_hidden_size wide (the whole config writes the
    # vision tower's width into it); no pooler
    fixed=dict(
        vocab_size=0,
        tie_word_embeddings=False,
        position_embedding="none",
        mlm_transform=False,
        lm_head_bias=False,
        lm_head_bias_pair=False,
        pooler=False,
    ),
    hooks=(hooks.qformer_layers,),
    default_arch="base",
    padding_row=False,
)
ROBERTA = BERT.but(model_type="roberta", class_prefix="Roberta", source=f"{TF}/roberta/modeling_roberta.py")
XLM_ROBERTA = ROBERTA.but(
    model_type="xlm-roberta", class_prefix="XLMRoberta", source=f"{TF}/xlm_roberta/modeling_xlm_roberta.py"
)
ELECTRA = BERT.but(
    model_type="electra",
    class_prefix="Electra",
    source=f"{TF}/electra/modeling_electra.py",
    keys=dict(embedding_size=("embedding_size",)),
    # the generator's head holds one output bias; ElectraModel has no pooler
    fixed=dict(lm_head_bias_pair=False, pooler=False),
    hooks=(hooks.cross_attention_beyond,),
    extra_heads=("discriminator",),
)
NOMIC_BERT = BERT.but(
    model_type="nomic_bert",
    class_prefix="NomicBert",
    source=f"{TF}/nomic_bert/modeling_nomic_bert.py",
    keys=dict(head_dim=("head_dim",)),
    # nomic-embed-text: BERT's post-norm layers and embeddings (token types, a LayerNorm) with rotary positions
    # instead of a table, bias-free q/k/v/o and a bias-free gated SiLU MLP; NomicBertModel builds no pooler, the
    # masked-LM head keeps BERT's transform and tied decoder with its one output bias
    fixed=dict(
        attention_bias=False,
        attention_out_bias=False,
        mlp_bias=False,
        mlp_gated=True,
        position_embedding="rotary",
        pooler=False,
    ),
    hooks=(),
)
DEBERTA_V2 = BERT.but(
    model_type="deberta-v2",
    class_prefix="DebertaV2",
    source=f"{TF}/deberta_v2/modeling_deberta_v2.py",
    fixed=dict(position_embedding=None),  # learned or none: position_biased_input
    hooks=(hooks.deberta,),
)
ALBERT = BERT.but(
    model_type="albert",
    class_prefix="Albert",
    source=f"{TF}/albert/modeling_albert.py",
    keys=dict(embedding_size=("embedding_size",), num_hidden_groups=("num_hidden_groups",)),
    extra_hooks=[hooks.albert_groups],
)
DISTILBERT = BERT.but(
    model_type="distilbert",
    class_prefix="DistilBert",
    source=f"{TF}/distilbert/modeling_distilbert.py",
    keys=dict(
        hidden_size=("dim",),
        num_hidden_layers=("n_layers",),
        num_attention_heads=("n_heads",),
        intermediate_size=("hidden_dim",),
        hidden_act=("activation",),
        type_vocab_size=None,
    ),
    fixed=dict(lm_head_bias_pair=None, position_embedding=None),
    hooks=(hooks.sinusoidal_positions,),
)

MODERNBERT = Family(
    model_type="modernbert",
    class_prefix="ModernBert",
    source=f"{TF}/modernbert/modeling_modernbert.py",
    keys=dict(
        CORE_KEYS,
        hidden_act=("hidden_activation",),
        attention_bias=("attention_bias",),
        mlp_bias=("mlp_bias",),
        norm_bias=("norm_bias",),
        lm_head_bias=("decoder_bias",),
        mlm_transform_bias=("classifier_bias",),
    ),
    defaults=dict(tie_word_embeddings=True),
    # Wqkv and Wi (gate and up) are single layers; layer 0 has no attention norm; the MLM head is dense + norm
    fixed=dict(
        encoder_only=True,
        fused=("qkv", "gate_up"),
        mlp_gated=True,
        embedding_norm=True,
        first_layer_attn_norm=False,
        position_embedding="rotary",
        mlm_transform=True,
        loss_upcast=True,  # self.loss_function: transformers' ForMaskedLMLoss upcasts the logits
    ),
    hooks=(hooks.modernbert_local_attention,),
    default_arch="masked_lm",
)

T5 = Family(
    model_type="t5",
    class_prefix="T5",
    source=f"{TF}/t5/modeling_t5.py",
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("d_model",),
        num_hidden_layers=("num_layers",),
        num_decoder_layers=("num_decoder_layers",),
        num_attention_heads=("num_heads",),
        head_dim=("d_kv",),
        intermediate_size=("d_ff",),
        relative_attention_num_buckets=("relative_attention_num_buckets",),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    defaults=dict(tie_word_embeddings=True),
    derive=dict(num_decoder_layers=Rule("num_layers", lambda d: d["num_hidden_layers"])),
    fixed=dict(norm_type="rmsnorm", norm_bias=False, position_embedding="relative", max_position_embeddings=512),
    hooks=(hooks.feed_forward_proj, hooks.encoder_model_class),
    notes=(hooks.released_head,),
    default_arch="seq2seq_lm",
    padding_row=False,
)
MT5 = T5.but(model_type="mt5", class_prefix="MT5", source=f"{TF}/mt5/modeling_mt5.py")
BART = Family(
    model_type="bart",
    class_prefix="Bart",
    source=f"{TF}/bart/modeling_bart.py",
    keys=dict(
        vocab_size=("vocab_size",),
        hidden_size=("d_model",),
        num_hidden_layers=("encoder_layers", "num_hidden_layers"),
        num_decoder_layers=("decoder_layers",),
        num_attention_heads=("encoder_attention_heads",),
        intermediate_size=("encoder_ffn_dim",),
        hidden_act=("activation_function",),
        max_position_embeddings=("max_position_embeddings",),
        tie_word_embeddings=("tie_word_embeddings",),
    ),
    defaults=dict(tie_word_embeddings=True),
    linked=dict(encoder_attention_heads=("decoder_attention_heads",), encoder_ffn_dim=("decoder_ffn_dim",)),
    fixed=dict(
        attention_bias=True,
        mlp_bias=True,
        embedding_norm=True,
        final_norm=False,
        position_embedding="learned",
        position_offset=2,
    ),
    hooks=(hooks.same_encoder_decoder, hooks.bart_decoder_alone),
    default_arch="seq2seq_lm",
)

WHISPER = BART.but(
    model_type="whisper",
    class_prefix="Whisper",
    source=f"{TF}/whisper/modeling_whisper.py",
    keys=dict(
        max_position_embeddings=("max_target_positions",),
        source_positions=("max_source_positions",),
        audio_mel_bins=("num_mel_bins",),
    ),
    # biases everywhere but on k; LayerNorms before each block and after each stack, none after the embeddings
    fixed=dict(key_bias=False, embedding_norm=False, final_norm=True, position_offset=0),
    hooks=(hooks.same_encoder_decoder, hooks.whisper),
)

QWEN2_AUDIO_ENCODER = WHISPER.but(
    model_type="qwen2_audio_encoder",
    class_prefix="Qwen2AudioEncoder",
    source=f"{TF}/qwen2_audio/modeling_qwen2_audio.py",
    keys=dict(
        vocab_size=None,
        num_decoder_layers=None,
        tie_word_embeddings=None,
        source_positions=None,
        max_position_embeddings=("max_source_positions",),
    ),
    linked=dict(encoder_attention_heads=None, encoder_ffn_dim=None),
    # Whisper's encoder alone, the audio tower of a whole model: two convolutions over mel frames, a position table
    # of max_source_positions rows (frozen, still a parameter), its layers and a final LayerNorm; no token table
    fixed=dict(encoder_only=True, vocab_size=0, tie_word_embeddings=False, position_offset=0),
    hooks=(),
    class_names={"base": "Qwen2AudioEncoder"},
    default_arch="base",
)
VOXTRAL_ENCODER = QWEN2_AUDIO_ENCODER.but(
    model_type="voxtral_encoder",
    class_prefix="VoxtralEncoder",
    source=f"{TF}/voxtral/modeling_voxtral.py",
    keys=dict(
        hidden_size=("hidden_size", "d_model"),
        num_hidden_layers=("num_hidden_layers", "encoder_layers"),
        num_attention_heads=("num_attention_heads", "encoder_attention_heads"),
        intermediate_size=("intermediate_size", "encoder_ffn_dim"),
    ),
    class_names={"base": "VoxtralEncoder"},
)
T5GEMMA = Family(
    model_type="t5gemma",
    class_prefix="T5Gemma",
    source=f"{TF}/t5gemma/modeling_t5gemma.py",
    keys=dict(tie_word_embeddings=("tie_word_embeddings",)),
    defaults=dict(tie_word_embeddings=True),
    # Gemma 2 layers (four RMSNorms each, gated MLP, rotary positions) in both stacks, the decoder's cross-attention
    # between two more norms; each stack has its own token table, the head is tied to the decoder's
    fixed=dict(
        norm_type="rmsnorm",
        norm_bias=False,
        norms_per_layer=4,
        cross_norms=2,
        mlp_gated=True,
        position_embedding="rotary",
        encoder_embedding=True,
        scores_bytes=10,  # eager only (soft-capping, as Gemma 2: 9-9.7 bytes a score measured there)
        loss_upcast=True,  # self.loss_function: transformers' ForMaskedLMLoss upcasts the logits
    ),
    hooks=(hooks.t5gemma,),
    nested=dict(hooks.T5GEMMA_NESTED),
    default_arch="seq2seq_lm",
    padding_row=False,
)


def _image_tokens(class_token: int) -> Rule:
    """A vision encoder's position table: one row per patch (and one for the class token), fixed by the image."""
    text = "(image_size // patch_size)^2" + (" + 1" if class_token else "")
    return Rule(
        text, lambda d: (d["image_size"] // d["patch_size"]) ** 2 + class_token if d["patch_size"] else 0, always=True
    )


VIT = Family(
    model_type="vit",
    class_prefix="ViT",
    source=f"{TF}/vit/modeling_vit.py",
    keys=dict(
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_hidden_layers",),
        num_attention_heads=("num_attention_heads",),
        intermediate_size=("intermediate_size",),
        hidden_act=("hidden_act",),
        image_size=("image_size",),
        patch_size=("patch_size",),
        num_channels=("num_channels",),
        attention_bias=("qkv_bias",),
    ),
    derive=dict(max_position_embeddings=_image_tokens(1)),
    # pre-norm layers (layernorm_before / _after), a LayerNorm after the stack, biases on o and the MLP
    fixed=dict(
        encoder_only=True,
        vocab_size=0,
        tie_word_embeddings=False,
        attention_out_bias=True,
        mlp_bias=True,
        position_embedding="learned",
        class_token=True,
    ),
    hooks=(hooks.vit_pooler, hooks.image_labels),
    default_arch="base",
    extra_heads=("image_classification",),
    padding_row=False,
)
DINOV2 = VIT.but(
    model_type="dinov2",
    class_prefix="Dinov2",
    source=f"{TF}/dinov2/modeling_dinov2.py",
    keys=dict(intermediate_size=None),  # mlp_ratio x hidden_size (the hook)
    # ViT's embeddings with a mask token, its pre-norm layers with a learned scale after attention and after the MLP
    # (lambda1, hidden_size each), a plain or SwiGLU MLP with biases, a LayerNorm after the stack, no pooler layer
    fixed=dict(layer_scales=True),
    hooks=(hooks.dinov2,),
    extra_heads=(),
)
DINOV2_WITH_REGISTERS = DINOV2.but(
    model_type="dinov2_with_registers",
    class_prefix="Dinov2WithRegisters",
    source=f"{TF}/dinov2_with_registers/modeling_dinov2_with_registers.py",
    keys=dict(register_tokens=("num_register_tokens",)),  # DINOv2's embeddings with register tokens after the class
    hooks=(hooks.dinov2_registers,),
)
DINOV3_VIT = VIT.but(
    model_type="dinov3_vit",
    class_prefix="DINOv3ViT",
    source=f"{TF}/dinov3_vit/modeling_dinov3_vit.py",
    keys=dict(
        attention_bias=("query_bias",),
        key_bias=("key_bias",),
        attention_out_bias=("proj_bias",),
        mlp_bias=("mlp_bias",),
        mlp_gated=("use_gated_mlp",),
        register_tokens=("num_register_tokens",),
    ),
    derive=dict(max_position_embeddings=None),
    # DINOv3: ViT's patch convolution with a class token, a mask token and register tokens, 2-D rotary positions (no
    # table), biases on q, k, v and o as query_bias, key_bias, value_bias and proj_bias say, a learned scale after
    # attention and after the MLP (plain or gated, mlp_bias), a LayerNorm after the stack, no pooler layer
    fixed=dict(
        attention_out_bias=None,
        mlp_bias=None,
        position_embedding="rotary",
        layer_scales=True,
        mask_token=True,
        pooler=False,
    ),
    hooks=(hooks.dinov3_biases,),
    extra_heads=(),
)
CLIP_VISION = VIT.but(
    model_type="clip_vision_model",
    class_prefix="CLIPVision",
    source=f"{TF}/clip/modeling_clip.py",
    keys=dict(attention_bias=None),
    # q, k, v and out with biases; a patch convolution without one; pre_layrnorm after the embeddings and
    # post_layernorm on the pooled class token (the final norm); no pooler layer
    fixed=dict(attention_bias=True, patch_bias=False, embedding_norm=True),
    hooks=(),
    extra_heads=(),
)
SIGLIP_VISION = CLIP_VISION.but(
    model_type="siglip_vision_model",
    class_prefix="SiglipVision",
    source=f"{TF}/siglip/modeling_siglip.py",
    keys=dict(attention_pool=("vision_use_head",)),
    derive=dict(max_position_embeddings=_image_tokens(0)),
    # no class token (the patches only), a patch bias, no norm before the layers; post_layernorm, then the
    # attention-pooling head (vision_use_head)
    fixed=dict(patch_bias=True, class_token=False, embedding_norm=False),
)
SIGLIP2_VISION = SIGLIP_VISION.but(
    model_type="siglip2_vision_model",
    class_prefix="Siglip2Vision",
    source=f"{TF}/siglip2/modeling_siglip2.py",
    keys=dict(image_size=None, max_position_embeddings=("num_patches",)),
    derive=dict(max_position_embeddings=None),  # a table of num_patches rows, resized to each image's patch grid
    # SigLIP's tower for images of any shape (NaFlex): patches flattened into one linear layer with a bias
    fixed=dict(patch_linear=True),
    extra_hooks=(hooks.siglip2_nominal_image,),
)
IDEFICS3_VISION = SIGLIP_VISION.but(
    model_type="idefics3_vision",
    class_prefix="Idefics3Vision",
    source=f"{TF}/idefics3/modeling_idefics3.py",
    keys=dict(attention_pool=None),
    fixed=dict(attention_pool=False),  # SigLIP's tower without the pooling head
    class_names={"base": "Idefics3VisionTransformer"},
)
SMOLVLM_VISION = IDEFICS3_VISION.but(
    model_type="smolvlm_vision",
    class_prefix="SmolVLMVision",
    source=f"{TF}/smolvlm/modeling_smolvlm.py",
    class_names={"base": "SmolVLMVisionTransformer"},
)
PIXTRAL = VIT.but(
    model_type="pixtral",
    class_prefix="PixtralVision",
    source=f"{TF}/pixtral/modeling_pixtral.py",
    keys=dict(attention_bias=None),  # PixtralVisionConfig sets head_dim = hidden_size // heads, whatever it says
    derive=dict(max_position_embeddings=_image_tokens(0)),
    # Mistral 3's vision tower: a patch convolution without bias, an RMSNorm before the layers, pre-norm layers of
    # bias-free attention and gated MLP, no class token, no position table (2-D rotary), no final norm
    fixed=dict(
        attention_bias=False,
        attention_out_bias=False,
        mlp_bias=False,
        mlp_gated=True,
        norm_type="rmsnorm",
        norm_bias=False,
        patch_bias=False,
        class_token=False,
        embedding_norm=True,
        final_norm=False,
        position_embedding="rotary",
    ),
    hooks=(),
    extra_heads=(),
)
GEMMA4_VISION = VIT.but(
    model_type="gemma4_vision",
    class_prefix="Gemma4Vision",
    source=f"{TF}/gemma4/modeling_gemma4.py",
    keys=dict(
        num_key_value_heads=("num_key_value_heads",),
        head_dim=("head_dim",),
        hidden_act=("hidden_activation",),
        attention_bias=None,
        image_size=None,
        max_position_embeddings=("position_embedding_size",),
    ),
    derive=dict(max_position_embeddings=None),  # rows per image axis: stated, not the patches of one image
    # Gemma 4's vision tower: patches flattened into one bias-free linear layer (input_proj), a position table per
    # image axis, Gemma's layers (bias-free q/k/v/o with RMSNorms over each query and key head, a gated MLP, four
    # RMSNorms), no class token, no final norm; the pooler averages without parameters
    fixed=dict(
        attention_bias=False,
        attention_out_bias=False,
        mlp_bias=False,
        mlp_gated=True,
        norm_type="rmsnorm",
        norm_bias=False,
        norms_per_layer=4,
        qk_norm="head",
        num_channels=3,
        patch_bias=False,
        patch_linear=True,
        class_token=False,
        final_norm=False,
        position_embedding="learned_2d",
    ),
    hooks=(hooks.gemma4_nominal_image,),
    extra_heads=(),
)
GEMMA4_AUDIO = Family(
    model_type="gemma4_audio",
    class_prefix="Gemma4Audio",
    source=f"{TF}/gemma4/modeling_gemma4.py",
    keys=dict(
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_hidden_layers",),
        num_attention_heads=("num_attention_heads",),
        hidden_act=("hidden_act",),
        conv_module_kernel=("conv_kernel_size",),
        output_proj_dims=("output_proj_dims",),
    ),
    derive=dict(
        intermediate_size=Rule("4*hidden_size", lambda d: 4 * d["hidden_size"], always=True),
        # no position table (relative positions): the frames of the processor's longest clip are nominal
        max_position_embeddings=Rule(
            "750 (nominal: the processor's audio_seq_length, 30 s at 40 ms a frame)", lambda d: 750, always=True
        ),
    ),
    # Gemma 4's audio tower, a Conformer (after USM): mel frames through two subsampling convolutions and a projection
    # (hooks.gemma4_audio), then layers of a feed-forward block, attention over blocks of frames with relative
    # position keys and a scale per query channel, a convolution module and a second feed-forward block (bias-free
    # linear layers 4 x hidden_size wide, no gate), nine RMSNorms a layer (two around each feed-forward block and the
    # attention, two in the convolution module, one at the end), no final norm, then a linear layer with a bias to
    # output_proj_dims. Clipped linears hold buffers only. Its attention runs eagerly (chunked, soft-capped, fp32)
    fixed=dict(
        encoder_only=True,
        vocab_size=0,
        tie_word_embeddings=False,
        attention_bias=False,
        mlp_bias=False,
        norm_type="rmsnorm",
        norm_bias=False,
        norms_per_layer=9,
        final_norm=False,
        position_embedding="none",
        macaron_ffn=True,
        relative_key_proj=True,
        blocked_attention=True,
        scores_bytes=16,  # eager only: fp32 score blocks and relative scores, their soft-capped sum, the fp32 softmax
    ),
    hooks=(hooks.gemma4_audio,),
    default_arch="base",
    padding_row=False,
)
GEMMA3N_AUDIO = GEMMA4_AUDIO.but(
    model_type="gemma3n_audio",
    class_prefix="Gemma3nAudio",
    class_names={"base": "Gemma3nAudioEncoder"},
    source=f"{TF}/gemma3n/modeling_gemma3n.py",
    keys=dict(
        hidden_size=("hidden_size",),
        num_hidden_layers=("conf_num_hidden_layers",),
        num_attention_heads=("conf_num_attention_heads",),
        conv_module_kernel=("conf_conv_kernel_size",),
        hidden_act=None,
        output_proj_dims=None,
    ),
    # Gemma 3n's audio encoder: Gemma 4's Conformer layers, parameter for parameter (SiLU feed-forward blocks), after
    # subsampling convolutions of kernels and strides of its own whose norms (cumulative group norms) hold one weight
    # per channel, and a projection of the frequency bins they leave of input_feat_size (hooks.gemma3n_audio); no
    # output projection (its vocab_size sizes the whole model's embed_audio, not the tower)
    fixed=dict(hidden_act="silu"),
    hooks=(hooks.gemma3n_audio,),
)
PHI4_MULTIMODAL_AUDIO = Family(
    model_type="phi4_multimodal_audio",
    class_prefix="Phi4MultimodalAudio",
    source=f"{TF}/phi4_multimodal/modeling_phi4_multimodal.py",
    keys=dict(
        hidden_size=("hidden_size",),
        num_hidden_layers=("num_blocks",),
        num_attention_heads=("num_attention_heads",),
        head_dim=("head_dim",),  # read with getattr: no field of the class, hidden_size // heads unless stated
        intermediate_size=("intermediate_size",),
        hidden_act=("activation",),
        conv_module_kernel=("kernel_size",),
        conv_glu_channels=("ext_pw_out_channel",),
        conv_depthwise_multiplier=("depthwise_multiplier",),
        conv_separable_channels=("depthwise_separable_out_channel",),
        subsampling_channels=("nemo_conv_channels",),
    ),
    derive=dict(
        head_dim=Rule(
            "hidden_size // num_attention_heads",
            lambda d: d["hidden_size"] // d["num_attention_heads"] if d["num_attention_heads"] else 0,
        ),
    ),
    # Phi-4-multimodal's audio tower, a Conformer: mel frames through NeMo's subsampling (hooks.phi4_multimodal_audio),
    # a table of relative-position biases (a bias per head for each of 2 x bias_max_distance distances, or
    # bias_max_distance when symmetric) shared by all layers, then layers of a gated feed-forward block (a LayerNorm,
    # gate_up to 2 x intermediate_size and down, with biases), attention with biased q/k/v/o, a convolution module of
    # Conv1d layers (a LayerNorm, a GLU pointwise convolution with two learned biases, a depthwise-separable
    # convolution, a pointwise convolution), a second feed-forward block and a LayerNorm: five LayerNorms a layer with
    # biases, no final norm, no output projection. The mean/variance normaliser holds buffers only
    fixed=dict(
        encoder_only=True,
        vocab_size=0,
        tie_word_embeddings=False,
        attention_bias=True,
        attention_out_bias=True,
        mlp_bias=True,
        mlp_gated=True,
        norm_type="layernorm",
        norm_bias=True,
        norms_per_layer=5,
        final_norm=False,
        position_embedding="relative",
        macaron_ffn=True,
        fused=("gate_up",),  # one gate_up_proj layer (one module to PEFT)
    ),
    hooks=(hooks.phi4_multimodal_audio,),
    default_arch="base",
    padding_row=False,
)
PHI4_MULTIMODAL_VISION = SIGLIP_VISION.but(
    model_type="phi4_multimodal_vision",
    class_prefix="Phi4MultimodalVision",
    source=f"{TF}/phi4_multimodal/modeling_phi4_multimodal.py",
    keys=dict(attention_pool=None),
    # SigLIP's vision tower with its attention-pooling head always built (no vision_use_head key), the classes'
    # own copy; crop_size and feature_layer size nothing (the whole model reads the second-to-last layer's states,
    # every layer is built)
    fixed=dict(attention_pool=True),
)
LLAMA4_VISION = VIT.but(
    model_type="llama4_vision_model",
    class_prefix="Llama4Vision",
    source=f"{TF}/llama4/modeling_llama4.py",
    keys=dict(attention_bias=None, adapter_width=("projector_input_dim",), adapter_out=("projector_output_dim",)),
    # Llama 4's vision tower: patches unfolded into one bias-free linear layer, a class embedding and a position
    # table, LayerNorms before and after the layers (biases everywhere), and the pixel-shuffle adapter's MLP
    fixed=dict(attention_bias=True, patch_bias=False, patch_linear=True, embedding_norm=True),
    hooks=(),
    extra_heads=(),
)
MLLAMA_VISION = VIT.but(
    model_type="mllama_vision_model",
    class_prefix="MllamaVision",
    source=f"{TF}/mllama/modeling_mllama.py",
    keys=dict(
        attention_bias=None,
        num_attention_heads=("attention_heads", "num_attention_heads"),
        max_num_tiles=("max_num_tiles",),
        # the stack counts the local layers the key states and the gated global ones (hooks.mllama_vision): no field
        # is the key, so no control writes the sum into it
        num_hidden_layers=None,
    ),
    # Llama 3.2 Vision's tower: a patch convolution without a bias, a class embedding, a gated position table with a
    # table per aspect ratio of every tile's positions, gated tile embeddings before and after the local layers,
    # LayerNorms before (layernorm_pre) and after (layernorm_post) the local transformer, bias-free q/k/v/o, an MLP
    # with biases; the global transformer's layers (num_global_layers) add two tanh gates each. Its output, the last
    # state and the intermediate layers' concatenated, is vision_output_dim wide: the whole model's projector reads it
    fixed=dict(attention_bias=False, attention_out_bias=False, patch_bias=False, embedding_norm=True),
    hooks=(hooks.mllama_vision,),
    extra_heads=(),
)
BLIP_2_VISION = VIT.but(
    model_type="blip_2_vision_model",
    class_prefix="Blip2Vision",
    source=f"{TF}/blip_2/modeling_blip_2.py",
    keys=dict(num_channels=None),
    # BLIP-2's (and InstructBLIP's) EVA ViT: a patch convolution with a bias over 3 channels, a class token, a position
    # table of patches + 1 rows, no norm before the layers; one fused qkv layer whose bias (qkv_bias) is q_bias, zeros
    # for k and v_bias, held as one parameter of 3 x hidden (the k third a parameter too), an output projection and
    # an MLP with biases; post_layernorm after the stack; no pooler layer
    fixed=dict(fused=("qkv",), num_channels=3),
    hooks=(hooks.heads_divide_width,),
    extra_heads=(),
)
QWEN3_5_VISION = VIT.but(
    model_type="qwen3_5_vision",
    class_prefix="Qwen3_5Vision",
    source=f"{TF}/qwen3_5/modeling_qwen3_5.py",
    keys=dict(
        num_hidden_layers=("depth",),
        num_attention_heads=("num_heads",),
        num_channels=("in_channels",),
        attention_bias=None,
        image_size=None,
        max_position_embeddings=("num_position_embeddings",),
        temporal_patch=("temporal_patch_size",),
        merge_size=("spatial_merge_size",),
        merger_out=("out_hidden_size",),
    ),
    # images of any size: the position table (num_position_embeddings rows, interpolated) fixes a nominal side
    derive=dict(
        image_size=Rule(
            "sqrt(num_position_embeddings)*patch_size",
            lambda d: max(math.isqrt(d["max_position_embeddings"]), 1) * d["patch_size"],
            always=True,
        ),
        max_position_embeddings=None,
    ),
    # Qwen3.5's vision tower: a Conv3d patch embedding with a bias over temporal_patch_size frames, a learned position
    # table, pre-norm layers (LayerNorms, one qkv with a bias, a plain MLP with biases), no final norm, the merger
    fixed=dict(attention_bias=True, fused=("qkv",), final_norm=False, class_token=False),
    hooks=(),
    extra_heads=(),
)
QWEN2_5_VL_VISION = QWEN3_5_VISION.but(
    model_type="qwen2_5_vl_vision",
    class_prefix="Qwen2_5_Vision",
    source=f"{TF}/qwen2_5_vl/modeling_qwen2_5_vl.py",
    keys=dict(max_position_embeddings=None),
    # no position table (2-D rotary), so the image is nominal: 448 pixels a side, 32 x 32 patches
    derive=dict(
        image_size=Rule("448 (nominal: the tower reads images of any size)", lambda d: 448, always=True),
        max_position_embeddings=_image_tokens(0),
    ),
    # RMSNorms, a gated MLP with biases, a Conv3d patch embedding without one, windowed and full attention layers
    # (the same weights)
    fixed=dict(
        norm_type="rmsnorm",
        norm_bias=False,
        mlp_gated=True,
        patch_bias=False,
        position_embedding="rotary",
        fused=("qkv",),
    ),
    class_names={"base": "Qwen2_5_VisionTransformerPretrainedModel"},
)
QWEN2_VL_VISION = QWEN2_5_VL_VISION.but(
    model_type="qwen2_vl_vision",
    class_prefix="Qwen2VLVision",
    source=f"{TF}/qwen2_vl/modeling_qwen2_vl.py",
    keys=dict(hidden_size=("embed_dim",), merger_out=("hidden_size",), intermediate_size=None),
    # Qwen2-VL's tower: Qwen2.5-VL's without its windows, with LayerNorms (biases), a plain MLP of mlp_ratio x
    # embed_dim with biases, and a merger whose LayerNorm keeps its bias; hidden_size is the merger's output
    fixed=dict(norm_type="layernorm", norm_bias=True, mlp_gated=False),
    hooks=(hooks.mlp_ratio,),
    class_names={"base": "Qwen2VisionTransformerPretrainedModel"},
)
GLM4V_VISION = VIT.but(
    model_type="glm4v_vision",
    class_prefix="Glm4vVision",
    source=f"{TF}/glm4v/modeling_glm4v.py",
    keys=dict(
        num_hidden_layers=("depth",),
        num_attention_heads=("num_heads",),
        num_channels=("in_channels",),
        intermediate_size=None,
        attention_bias=("attention_bias",),
        temporal_patch=("temporal_patch_size",),
        merge_size=("spatial_merge_size",),
        merger_out=("out_hidden_size",),
        merger_mlp=("intermediate_size",),
    ),
    # the layers' MLP is out_hidden_size wide (intermediate_size is the merger's)
    derive=dict(
        max_position_embeddings=_image_tokens(0),
        intermediate_size=Rule("out_hidden_size", lambda d: d["merger_out"], always=True),
    ),
    # GLM-4V's tower: a Conv3d patch embedding with a bias over temporal_patch_size frames, an RMSNorm after it, a
    # position table of the image's patches, RMSNorm layers with one qkv and a gated MLP, a final RMSNorm, then the
    # patches folded by a convolution and the merger
    fixed=dict(
        norm_type="rmsnorm",
        norm_bias=False,
        mlp_gated=True,
        mlp_bias=False,
        attention_out_bias=False,
        fused=("qkv",),
        class_token=False,
        embedding_norm=True,
        patch_bias=True,
    ),
    hooks=(hooks.merger_mlp_width,),
    extra_heads=(),
)
GLM4V_MOE_VISION = GLM4V_VISION.but(
    model_type="glm4v_moe_vision",
    class_prefix="Glm4vMoeVision",
    source=f"{TF}/glm4v_moe/modeling_glm4v_moe.py",  # GLM-4.5V's tower: GLM-4V's
)
INTERNVL_VISION = VIT.but(
    model_type="internvl_vision",
    class_prefix="InternVLVision",
    source=f"{TF}/internvl/modeling_internvl.py",
    keys=dict(image_size=None, patch_size=None, attention_bias=("attention_bias",)),
    # InternViT: ViT's class token, position table and biased patch convolution; q, k and v with attention_bias, the
    # output projection and the MLP with biases; two learned scales per layer; no pooler
    fixed=dict(attention_out_bias=True, layer_scales=True),
    hooks=(hooks.internvl_vision,),
    extra_heads=(),
)
QWEN3_VL_VISION = QWEN3_5_VISION.but(
    model_type="qwen3_vl_vision",
    class_prefix="Qwen3VLVision",
    source=f"{TF}/qwen3_vl/modeling_qwen3_vl.py",
    hooks=(hooks.deepstack,),  # Qwen3.5's tower with a DeepStack merger per listed layer
)
QWEN3_VL_MOE_VISION = QWEN3_VL_VISION.but(
    model_type="qwen3_vl_moe_vision",
    class_prefix="Qwen3VLMoeVision",
    source=f"{TF}/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
)
QWEN3_5_MOE_VISION = QWEN3_5_VISION.but(
    model_type="qwen3_5_moe_vision",
    class_prefix="Qwen3_5MoeVision",
    source=f"{TF}/qwen3_5_moe/modeling_qwen3_5_moe.py",
)
CLIP_TEXT = Family(
    model_type="clip_text_model",
    class_prefix="CLIPText",
    source=f"{TF}/clip/modeling_clip.py",
    keys={k: v for k, v in CORE_KEYS.items() if k != "tie_word_embeddings"} | dict(hidden_act=("hidden_act",)),
    # CLIP's text tower: pre-norm layers with biases everywhere, a final LayerNorm, no head (the whole CLIP model
    # projects its pooled end-of-text token); it reads a causal mask but generates nothing, so it keeps no cache
    fixed=dict(encoder_only=True, attention_bias=True, mlp_bias=True, position_embedding="learned"),
    default_arch="base",
    padding_row=False,
)
SIGLIP_TEXT = CLIP_TEXT.but(
    model_type="siglip_text_model",
    class_prefix="SiglipText",
    source=f"{TF}/siglip/modeling_siglip.py",
    keys=dict(pooled_projection=("projection_size",)),  # its head: the last token projected, with a bias
    derive=dict(pooled_projection=Rule("hidden_size", lambda d: d["hidden_size"])),
)
SIGLIP2_TEXT = SIGLIP_TEXT.but(
    model_type="siglip2_text_model",
    class_prefix="Siglip2Text",
    source=f"{TF}/siglip2/modeling_siglip2.py",
)

ROWS = (
    BERT,
    BLIP_2_QFORMER,
    ROBERTA,
    NOMIC_BERT,
    XLM_ROBERTA,
    DISTILBERT,
    ALBERT,
    ELECTRA,
    DEBERTA_V2,
    MODERNBERT,
    T5,
    MT5,
    BART,
    WHISPER,
    QWEN2_AUDIO_ENCODER,
    VOXTRAL_ENCODER,
    T5GEMMA,
    VIT,
    DINOV2,
    DINOV2_WITH_REGISTERS,
    DINOV3_VIT,
    CLIP_VISION,
    SIGLIP_VISION,
    SIGLIP2_VISION,
    IDEFICS3_VISION,
    SMOLVLM_VISION,
    PIXTRAL,
    LLAMA4_VISION,
    MLLAMA_VISION,
    BLIP_2_VISION,
    GEMMA4_VISION,
    GEMMA4_AUDIO,
    GEMMA3N_AUDIO,
    PHI4_MULTIMODAL_AUDIO,
    PHI4_MULTIMODAL_VISION,
    QWEN3_5_VISION,
    QWEN3_5_MOE_VISION,
    QWEN2_5_VL_VISION,
    QWEN2_VL_VISION,
    GLM4V_VISION,
    GLM4V_MOE_VISION,
    INTERNVL_VISION,
    QWEN3_VL_VISION,
    QWEN3_VL_MOE_VISION,
    CLIP_TEXT,
    SIGLIP_TEXT,
    SIGLIP2_TEXT,
)
