"""Whole models: a vision-language or dual-encoder checkpoint as a row of rows.

A :class:`Whole` names the towers of a multimodal ``model_type`` (``text_config`` → the language model or text tower,
``vision_config`` → the vision tower), the projector between them as formulas in the config's nested names
(``vision_config.hidden_size*text_config.hidden_size``), and where the LM head sits, the way transformers' modeling
file composes ``...ForConditionalGeneration`` from ``AutoModel.from_config`` of each sub-config. Each tower is counted
by its own family row, so the whole is exact with formulas and needs neither torch nor transformers. A tower no config
key sizes (a timm network named by ``vision_config.architecture`` and ``vision_config.model_args``: Gemma 3n's
MobileNetV5, FastVLM's FastViT-HD, PerceptionLM's Perception Encoder) is counted from data generated at development
time (``timm_towers.json``, by ``scripts/gen_timm_towers.py``): :data:`DATA_TOWERS`.

How each sub-config is read is transformers' own declaration (``sub_configs_defaults``: the class or default type of
each tower, the values it starts from when the file leaves it out), generated into ``hf_wholes.json`` by
``scripts/gen_hf_defaults.py`` together with what each config class does after reading (moving top-level text keys
into ``text_config``, taking the text config's ``tie_word_embeddings``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from importlib import resources
from typing import Any

from paramscope.engine.params import linear, summarize
from paramscope.engine.spec import SpecError
from paramscope.engine.tree import Node, Summary, group
from paramscope.families.meta_build import MetaResult
from paramscope.families.schema import TOWERS, BeyondRow, as_bool, as_int, hf_defaults

#: The tree prefix of each tower, by the config key that holds it.
PREFIX = {
    "text_config": "language_model",
    "vision_config": "vision",
    "audio_config": "audio",
    "qformer_config": "qformer",
}
#: The tree prefix of a text encoder (CLIP's, SigLIP's text tower).
TEXT_TOWER = "text"
#: Bounds on the top-level sizes a projector reads (widths; the factors that fold patches into one token).
MAX_WIDTH = 10**6
MAX_FACTOR = 64


@cache
def hf_wholes() -> dict[str, dict[str, Any]]:
    """transformers' declaration of each whole model's sub-configs and top-level defaults (generated data)."""
    return json.loads(resources.files("paramscope.families").joinpath("hf_wholes.json").read_text())


@cache
def hf_tying() -> dict[str, frozenset[str]]:
    """How transformers model types tie (generated data): ``embed_tokens``, the types whose base model has the module a
    whole model ties its LM head to; ``always_tied``, the types whose config ties whatever the file says (T5's)."""
    text = resources.files("paramscope.families").joinpath("hf_tying.json").read_text()
    return {key: frozenset(types) for key, types in json.loads(text).items()}


@cache
def timm_towers() -> dict[str, Any]:
    """timm's count of each known vision tower a config names by ``vision_config.architecture`` (generated data:
    ``scripts/gen_timm_towers.py`` builds each on the meta device with the timm version it records)."""
    return json.loads(resources.files("paramscope.families").joinpath("timm_towers.json").read_text())


def _args_key(model_args: Any) -> str:
    """``model_args`` as one comparable text: no arguments (``None``, ``{}``) alike, tuples as the lists a config.json
    holds, keys sorted."""
    return json.dumps(model_args or {}, sort_keys=True)


def timm_tower(key: str, sub: Mapping[str, Any]) -> Node:
    """A vision tower transformers builds with timm (TimmWrapperModel: ``timm.create_model(architecture,
    num_classes=0, **model_args)``: Gemma 3n's MobileNetV5, FastVLM's FastViT-HD, PerceptionLM's Perception Encoder):
    no config key sizes it, so its count is timm's for the architecture and the ``model_args`` named, shipped as data,
    its top-level modules (stem, stages, blocks, msfa, pos_embed, ...) as the tree's groups.

    ``SpecError`` naming ``{key}.architecture`` for an architecture with no count shipped, ``{key}.model_args`` for
    arguments it is not known with (they change the network)."""
    data = timm_towers()
    known = data["towers"][sub["model_type"]]
    name = sub.get("architecture")
    name = known["default_architecture"] if name is None else name
    if not isinstance(name, str) or name not in known["architectures"]:
        shown = json.dumps(name)[:60]
        raise SpecError(
            f"{key}.architecture",
            f"{shown} is no timm architecture whose count is known here (known: {', '.join(known['architectures'])}); "
            "its parameters are timm's network's, which no config key sizes",
        )
    model_args = sub.get("model_args")
    variants = known["architectures"][name]
    try:
        wanted = _args_key(model_args) if model_args is None or isinstance(model_args, Mapping) else None
    except (TypeError, ValueError):  # a value JSON cannot hold: no shipped variant has it
        wanted = None
    tower = next((t for t in variants if _args_key(t["model_args"]) == wanted), None)
    if tower is None:
        shown = " or ".join(_args_key(t["model_args"]) for t in variants)
        raise SpecError(
            f"{key}.model_args",
            f"arguments to timm.create_model change {name}'s network, whose count is known here only as timm builds it "
            f"with {shown[:300]}",
        )
    args = f" with {_args_key(model_args)}" if model_args else ""
    note = f"timm's count for {name}{args} (timm {data['timm_version']}), not a formula: no config key sizes it"
    kids = [
        Node(f"{PREFIX[key]}/{group_name}", n, f"timm({key}.architecture).{group_name}", note=note)
        for group_name, n in tower["groups"].items()
    ]
    return group(PREFIX[key], kids, note=note)


#: The towers counted from shipped data instead of a row, by their sub-config's model_type.
DATA_TOWERS: dict[str, Callable[[str, Mapping[str, Any]], Node]] = {
    "gemma3n_vision": timm_tower,
    "timm_wrapper": timm_tower,
}


@dataclass(frozen=True)
class Parts:
    """What a projector's formula reads: the whole config (top-level keys with the class's defaults), and the
    resolved towers' configs and their names for ``hidden_size`` in the nested form."""

    config: Mapping[str, Any]
    defaults: Mapping[str, Any]
    subs: Mapping[str, Mapping[str, Any]]
    widths: Mapping[str, tuple[int, str]]  # config key -> (hidden size, "vision_config.hidden_size")

    def get(self, key: str) -> Any:
        """A top-level key of the whole config, else its class default."""
        value = self.config.get(key)
        return self.defaults.get(key) if value is None else value

    def size(self, key: str, limit: int = MAX_WIDTH) -> int:
        """A top-level whole number, bounded."""
        value = as_int(key, self.get(key))
        if not 0 < value <= limit:
            raise SpecError(key, f"must be between 1 and {limit:,}, got {value:,}")
        return value

    def tower_key(self, key: str, name: str) -> Any:
        """A key of a tower's config, else its class's default."""
        sub = self.subs[key]
        return sub[name] if sub.get(name) is not None else hf_defaults().get(sub["model_type"], {}).get(name)

    def vision(self) -> tuple[int, str]:
        if "vision_config" not in self.widths:  # a timm tower's config (TimmWrapperConfig) that states no width
            raise SpecError("vision_config.hidden_size", "absent, and the projector reads it (the class has none)")
        return self.widths["vision_config"]

    def text(self) -> tuple[int, str]:
        return self.widths["text_config"]

    def feature_layers(self) -> tuple[int, str]:
        """How many vision layers' outputs are concatenated (``vision_feature_layer``: one index or a list)."""
        layers = self.get("vision_feature_layer")
        if isinstance(layers, list):
            if not 0 < len(layers) <= 1_000:
                raise SpecError("vision_feature_layer", f"expected 1 to 1,000 layers, got {len(layers):,}")
            return len(layers), "len(vision_feature_layer)"
        as_int("vision_feature_layer", layers)
        return 1, ""


Projector = Callable[[Parts], list[Node]]


@dataclass(frozen=True)
class Whole:
    """One multimodal ``model_type``: its class, its towers and its projector."""

    model_type: str
    class_name: str
    source: str
    projector: Projector
    #: How the language model is built inside the whole: "base" (its ...Model, the LM head outside it, tied by the
    #: whole config's flag), "causal_lm" (Llama 4: its ...ForCausalLM, tied by the text config's), "lm" (BLIP-2: its
    #: ...ForCausalLM when transformers lists the type as a causal LM, else its ...ForConditionalGeneration, each
    #: with its head, tied by the text config's flag), "" (a text encoder)
    language: str = "base"
    #: Keys the whole config's class writes into a tower after reading it, from another tower's key (BLIP-2 sets the
    #: Q-Former's ``encoder_hidden_size`` to the vision tower's ``hidden_size``): nested target -> nested source
    links: tuple[tuple[str, str], ...] = ()
    #: Said among the notes of every count of the whole (what the class builds that a reader might expect otherwise)
    note: str = ""
    #: The class's forward takes no ``logits_to_keep``: a prefill computes the logits of every prompt token
    logits_every_token: bool = False
    #: Paths of the whole's tree (globs) a checkpoint loaded in fp16 or bf16 keeps in fp32 (the class's
    #: ``_keep_in_fp32_modules_strict``), and those kept in fp32 in fp16 only (its ``_keep_in_fp32_modules``)
    fp32_weights: tuple[str, ...] = ()
    fp32_weights_fp16: tuple[str, ...] = ()

    def fp32_elements(self, tree: Node, dtype: str) -> int:
        """How many of the whole's parameters outside its language model a checkpoint loaded in ``dtype`` (fp16 or
        bf16) keeps in fp32."""
        globs = self.fp32_weights + (self.fp32_weights_fp16 if dtype == "fp16" else ())
        return sum(
            leaf.count
            for leaf in tree.leaves()
            if not leaf.path.startswith("language_model/") and any(fnmatchcase(leaf.path, g) for g in globs)
        )


def _times(expr: str, factor: str) -> str:
    return f"{expr}*{factor}" if factor else expr


def _two_layer(prefix: str, n_in: int, in_expr: str, parts: Parts, bias: bool) -> list[Node]:
    """LLaVA's projector: ``linear_1`` into the language model's width, an activation, ``linear_2``."""
    t, t_expr = parts.text()
    return [
        linear(f"{prefix}/linear_1", n_in, in_expr, t, t_expr, bias),
        linear(f"{prefix}/linear_2", t, t_expr, t, t_expr, bias),
    ]


def _llava(parts: Parts) -> list[Node]:
    v, v_expr = parts.vision()
    layers, layers_expr = parts.feature_layers()
    bias = as_bool("multimodal_projector_bias", parts.get("multimodal_projector_bias"))
    return _two_layer("projector", v * layers, _times(v_expr, layers_expr), parts, bias)


def _llava_next(parts: Parts) -> list[Node]:
    t, t_expr = parts.text()
    newline = Node(
        "projector/image_newline", t, t_expr, shape=f"{t}", note="the learned token that ends a row of tiles"
    )
    return [*_llava(parts), newline]


def _paligemma(parts: Parts) -> list[Node]:
    v, v_expr = parts.vision()
    return [linear("projector/linear", v, v_expr, parts.size("projection_dim"), "projection_dim", True)]


def _gemma3(parts: Parts) -> list[Node]:
    (v, v_expr), (t, t_expr) = parts.vision(), parts.text()
    return [
        Node("projector/mm_soft_emb_norm", v, v_expr, shape=f"RMSNorm({v})"),
        Node(
            "projector/mm_input_projection_weight", v * t, f"{v_expr}*{t_expr}", shape=f"{v}×{t}", note="a bare matrix"
        ),
    ]


def _mistral3(parts: Parts) -> list[Node]:
    v, v_expr = parts.vision()
    s = parts.size("spatial_merge_size", MAX_FACTOR)
    merger = linear("projector/patch_merger", v * s * s, f"{v_expr}*spatial_merge_size**2", v, v_expr, False)
    return [Node("projector/norm", v, v_expr, shape=f"RMSNorm({v})"), merger, *_llava(parts)]


def _idefics3(parts: Parts) -> list[Node]:
    (v, v_expr), (t, t_expr) = parts.vision(), parts.text()
    s = parts.size("scale_factor", MAX_FACTOR)
    return [linear("projector/proj", v * s * s, f"{v_expr}*scale_factor**2", t, t_expr, False)]


def _aya_vision(parts: Parts) -> list[Node]:
    (v, v_expr), (t, t_expr) = parts.vision(), parts.text()
    d = parts.size("downsample_factor", MAX_FACTOR)
    wide, wide_expr = v * d * d, f"{v_expr}*downsample_factor**2"
    if parts.config.get("alignment_intermediate_size") is None:  # not a field of the class: the text width
        inner, inner_expr = parts.text()
    else:
        inner, inner_expr = parts.size("alignment_intermediate_size"), "alignment_intermediate_size"
    return [
        Node("projector/layernorm", 2 * wide, f"2*{wide_expr}", shape=f"LayerNorm({wide})"),
        linear("projector/linear_1", wide, wide_expr, inner, inner_expr, True),
        linear("projector/linear_2", inner // 2, f"{inner_expr}//2", t, t_expr, True),
    ]


def _internvl(parts: Parts) -> list[Node]:
    v, v_expr = parts.vision()
    ratio = parts.get("downsample_ratio")
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 1 / MAX_FACTOR <= ratio <= 1:
        raise SpecError("downsample_ratio", f"expected a number between 1/{MAX_FACTOR} and 1, got {ratio!r}")
    s = int(1 / ratio)
    wide, wide_expr = v * s * s, f"{v_expr}*int(1/downsample_ratio)**2"
    return [
        Node("projector/layer_norm", 2 * wide, f"2*{wide_expr}", shape=f"LayerNorm({wide})"),
        *_two_layer("projector", wide, wide_expr, parts, True),
    ]


def _llama4(parts: Parts) -> list[Node]:
    t, t_expr = parts.text()
    out = as_int("vision_config.vision_output_dim", parts.tower_key("vision_config", "vision_output_dim"))
    return [linear("projector/linear_1", out, "vision_config.vision_output_dim", t, t_expr, False)]


def _mllama(parts: Parts) -> list[Node]:
    """Mllama: one linear layer with a bias from the vision tower's output (its last state and the intermediate
    layers' side by side, ``vision_output_dim`` wide) into the language model's width."""
    t, t_expr = parts.text()
    out = as_int("vision_config.vision_output_dim", parts.tower_key("vision_config", "vision_output_dim"))
    if not 0 < out <= MAX_WIDTH:
        raise SpecError("vision_config.vision_output_dim", f"must be between 1 and {MAX_WIDTH:,}, got {out:,}")
    return [linear("projector/multi_modal_projector", out, "vision_config.vision_output_dim", t, t_expr, True)]


def _gemma4(parts: Parts) -> list[Node]:
    """Gemma 4: each tower's tokens into the language model's width through a bias-free linear layer (after an RMSNorm
    without a scale: no parameters), from the vision tower's width (embed_vision) and from the audio tower's
    ``output_proj_dims`` (embed_audio); the class leaves out each tower, and its embedder, the file leaves out."""
    t, t_expr = parts.text()
    out = []
    if "vision_config" in parts.subs:
        v, v_expr = parts.vision()
        out.append(linear("projector/embed_vision", v, v_expr, t, t_expr, False))
    if "audio_config" in parts.subs:
        key = "audio_config.output_proj_dims"
        a = as_int(key, parts.tower_key("audio_config", "output_proj_dims"))  # read by the tower's row already
        out.append(linear("projector/embed_audio", a, key, t, t_expr, False))
    return out


def _gemma3n(parts: Parts) -> list[Node]:
    """Gemma 3n: for the vision and the audio tower, Gemma3nMultimodalEmbedder: a table of the tower's ``vocab_size``
    hard tokens its width wide, an RMSNorm over them and one over the tower's soft tokens, a bias-free linear layer
    into the language model's width (its RMSNorm after it has no scale: no parameters)."""
    t, t_expr = parts.text()
    out = []
    for key, name in (("vision_config", "embed_vision"), ("audio_config", "embed_audio")):
        w, w_expr = parts.widths[key]
        v_expr = f"{key}.vocab_size"
        v = as_int(v_expr, parts.tower_key(key, "vocab_size"))
        if not 0 <= v <= MAX_WIDTH:
            raise SpecError(v_expr, f"must be between 0 and {MAX_WIDTH:,}, got {v:,}")
        prefix = f"projector/{name}"
        embedder = [
            Node(f"{prefix}/embedding", v * w, f"{v_expr}*{w_expr}", shape=f"{v}×{w}", note="the tower's hard tokens"),
            Node(f"{prefix}/hard_embedding_norm", w, w_expr, shape=f"RMSNorm({w})"),
            Node(f"{prefix}/soft_embedding_norm", w, w_expr, shape=f"RMSNorm({w})"),
            linear(f"{prefix}/embedding_projection", w, w_expr, t, t_expr, False),
        ]
        out.append(group(prefix, embedder, note="its norm after the projection has no scale"))
    return out


def _fast_vlm(parts: Parts) -> list[Node]:
    """FastVLM: LLaVA's two linear layers, from the vision config's ``hidden_size`` (the FastViT-HD's width, 3,072,
    stated beside its architecture: TimmWrapperConfig has no such key of its own). Its config refuses any feature
    layer but the last and any selection but the full one."""
    if parts.get("vision_feature_layer") != -1:
        raise SpecError("vision_feature_layer", "FastVLM supports only -1 (its config refuses any other)")
    if parts.get("vision_feature_select_strategy") != "full":
        raise SpecError("vision_feature_select_strategy", "FastVLM supports only 'full' (its config refuses any other)")
    v, v_expr = parts.vision()
    bias = as_bool("multimodal_projector_bias", parts.get("multimodal_projector_bias"))
    return _two_layer("projector", v, v_expr, parts, bias)


def _perception_lm(parts: Parts) -> list[Node]:
    """PerceptionLM: two linear layers with biases from the Perception Encoder's width, read from its arguments to
    timm (``vision_config.model_args.embed_dim``, as transformers reads it: a config without it cannot be built),
    into the language model's; its pooling (``projector_pooling_ratio`` > 1) averages tokens, with no parameters."""
    args = parts.tower_key("vision_config", "model_args")
    key = "vision_config.model_args.embed_dim"
    if not isinstance(args, Mapping) or "embed_dim" not in args:
        raise SpecError(key, "absent, and the projector reads it (transformers cannot build the model without it)")
    v = as_int(key, args["embed_dim"])
    if not 0 < v <= MAX_WIDTH:
        raise SpecError(key, f"must be between 1 and {MAX_WIDTH:,}, got {v:,}")
    as_int("projector_pooling_ratio", parts.get("projector_pooling_ratio"))
    return _two_layer("projector", v, key, parts, True)


def _clip(parts: Parts) -> list[Node]:
    (v, v_expr), (t, t_expr) = parts.vision(), parts.text()
    p = parts.size("projection_dim")
    return [
        linear("projector/visual_projection", v, v_expr, p, "projection_dim", False),
        linear("projector/text_projection", t, t_expr, p, "projection_dim", False),
        Node("projector/logit_scale", 1, "1", shape="1"),
    ]


def _siglip(parts: Parts) -> list[Node]:
    return [Node("projector/logit_scale", 1, "1", shape="1"), Node("projector/logit_bias", 1, "1", shape="1")]


def _qwen2_audio(parts: Parts) -> list[Node]:
    """Qwen2-Audio: one linear layer with a bias from the audio tower's width to the language model's."""
    a, a_expr = parts.widths["audio_config"]
    t, t_expr = parts.text()
    return [linear("projector/linear", a, a_expr, t, t_expr, True)]


def _voxtral(parts: Parts) -> list[Node]:
    """Voxtral: four audio frames concatenated (the audio tower's ``intermediate_size``, 4 x its width), then two
    bias-free linear layers into the language model's width."""
    from paramscope.families import FAMILIES

    sub = parts.subs["audio_config"]
    key = FAMILIES[sub["model_type"]].key_for("intermediate_size", sub) or "intermediate_size"  # or encoder_ffn_dim
    width = as_int(f"audio_config.{key}", parts.tower_key("audio_config", key))
    return _two_layer("projector", width, f"audio_config.{key}", parts, False)


def _blip_2(parts: Parts) -> list[Node]:
    """BLIP-2: the learned query tokens the Q-Former reads the image with (``num_query_tokens`` x its width), and
    ``language_projection``, one linear layer with a bias from the Q-Former's width to the language model's."""
    q, q_expr = parts.widths["qformer_config"]
    t, t_expr = parts.text()
    n = parts.size("num_query_tokens")
    note = "the learned queries the Q-Former reads the image with"
    return [
        Node("projector/query_tokens", n * q, f"num_query_tokens*{q_expr}", shape=f"{n}×{q}", note=note),
        linear("projector/language_projection", q, q_expr, t, t_expr, True),
    ]


def _phi4_multimodal(parts: Parts) -> list[Node]:
    """Phi-4-multimodal: inside its language model (``embed_tokens_extend``), the image embedding's two linear layers
    with biases (``img_projection_up`` from the vision width, ``img_projection_down``) and its two learned separators
    (``global_img_feature_extensor``, ``sub_img_feature_extensor``, the vision width each), and the audio embedding's
    two pairs of linear layers with biases (for speech, and for speech beside an image), each from the audio width
    times ``audio_config.downsample_rate`` into the language model's width, then text to text."""
    (v, v_expr), (t, t_expr) = parts.vision(), parts.text()
    a, a_expr = parts.widths["audio_config"]
    key = "audio_config.downsample_rate"
    rate = as_int(key, parts.tower_key("audio_config", "downsample_rate"))
    if not 0 <= rate <= MAX_FACTOR:
        raise SpecError(key, f"must be between 0 and {MAX_FACTOR}, got {rate:,}")
    note = "the learned separators between an image's global and sub-image features, and between rows of them"
    out = [
        linear("projector/img_projection_up", v, v_expr, t, t_expr, True),
        linear("projector/img_projection_down", t, t_expr, t, t_expr, True),
        Node("projector/img_feature_extensors", 2 * v, f"2*{v_expr}", shape=f"2×{v}", note=note),
    ]
    for name in ("speech", "vision_speech"):
        out += [
            linear(f"projector/up_proj_for_{name}", a * rate, f"{a_expr}*{key}", t, t_expr, True),
            linear(f"projector/down_proj_for_{name}", t, t_expr, t, t_expr, True),
        ]
    return out


def _in_tower(parts: Parts) -> list[Node]:
    """Qwen-VL and GLM-4V: the merger that projects patches into the language model is part of the vision tower."""
    return []


_HF = "https://github.com/huggingface/transformers/blob/main/src/transformers/models/"


def _row(
    model_type: str,
    class_name: str,
    projector: Projector,
    language: str = "base",
    links: tuple[tuple[str, str], ...] = (),
    source: str = "",
    note: str = "",
    logits_every_token: bool = False,
    fp32_weights: tuple[str, ...] = (),
    fp32_weights_fp16: tuple[str, ...] = (),
) -> Whole:
    source = source or model_type
    url = f"{_HF}{source}/modeling_{source}.py"
    return Whole(
        model_type,
        class_name,
        url,
        projector,
        language,
        links,
        note,
        logits_every_token,
        fp32_weights,
        fp32_weights_fp16,
    )


WHOLES: dict[str, Whole] = {
    row.model_type: row
    for row in (
        _row("llava", "LlavaForConditionalGeneration", _llava),
        _row("llava_next", "LlavaNextForConditionalGeneration", _llava_next),
        _row("llava_onevision", "LlavaOnevisionForConditionalGeneration", _llava_next),
        _row("paligemma", "PaliGemmaForConditionalGeneration", _paligemma),
        _row("gemma3", "Gemma3ForConditionalGeneration", _gemma3),
        _row("gemma4", "Gemma4ForConditionalGeneration", _gemma4),
        _row("gemma3n", "Gemma3nForConditionalGeneration", _gemma3n),
        _row("fast_vlm", "FastVlmForConditionalGeneration", _fast_vlm),
        _row("perception_lm", "PerceptionLMForConditionalGeneration", _perception_lm),
        _row("mistral3", "Mistral3ForConditionalGeneration", _mistral3),
        _row("idefics3", "Idefics3ForConditionalGeneration", _idefics3),
        _row("smolvlm", "SmolVLMForConditionalGeneration", _idefics3),
        _row("aya_vision", "AyaVisionForConditionalGeneration", _aya_vision),
        _row("internvl", "InternVLForConditionalGeneration", _internvl),
        _row("llama4", "Llama4ForConditionalGeneration", _llama4, language="causal_lm"),
        _row("mllama", "MllamaForConditionalGeneration", _mllama),
        _row("qwen2_vl", "Qwen2VLForConditionalGeneration", _in_tower),
        _row("qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", _in_tower),
        _row("qwen3_vl", "Qwen3VLForConditionalGeneration", _in_tower),
        _row("qwen3_vl_moe", "Qwen3VLMoeForConditionalGeneration", _in_tower),
        _row("qwen3_5", "Qwen3_5ForConditionalGeneration", _in_tower),
        _row("qwen3_5_moe", "Qwen3_5MoeForConditionalGeneration", _in_tower),
        _row("glm4v", "Glm4vForConditionalGeneration", _in_tower),
        _row("glm4v_moe", "Glm4vMoeForConditionalGeneration", _in_tower),
        _row(
            "phi4_multimodal",
            "Phi4MultimodalForCausalLM",
            _phi4_multimodal,
            note="the language model is Phi-3's (its keys at the top level of the config, read as phi3); transformers "
            "builds no LoRA adapters in it (the released checkpoint's vision and speech LoRA are not part of this "
            "class): none are counted",
        ),
        _row("qwen2_audio", "Qwen2AudioForConditionalGeneration", _qwen2_audio, logits_every_token=True),
        _row("voxtral", "VoxtralForConditionalGeneration", _voxtral, fp32_weights=("audio/embedding/position",)),
        _row(
            "blip-2",
            "Blip2ForConditionalGeneration",
            _blip_2,
            language="lm",
            links=(("qformer_config.encoder_hidden_size", "vision_config.hidden_size"),),
            source="blip_2",
            logits_every_token=True,
            fp32_weights_fp16=("qformer/*", "projector/query_tokens"),
        ),
        _row("clip", "CLIPModel", _clip, language=""),
        _row("siglip", "SiglipModel", _siglip, language=""),
        _row("siglip2", "Siglip2Model", _siglip, language=""),
    )
}


class TowerWithoutRow(SpecError):
    """A tower of a whole model that no family row reads (a type the whole's class takes from the file), or that its
    row cannot describe although transformers builds it (:class:`BeyondRow`): transformers counts the whole."""


def _sub_configs(model_type: str, config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each tower's config as transformers' composite config reads it: the file's sub-config (laid over the class's
    starting values where the class does so) or those starting values, typed by the class (or by the file when the
    class takes any type), with the top-level text keys moved in when the file has no ``text_config`` (Qwen2-VL
    written the old way)."""
    data = hf_wholes()[model_type]
    out: dict[str, dict[str, Any]] = {}
    for key, declared in data["subs"].items():
        sub = stated_tower(config, key)
        if key == "text_config" and data.get("text_at_top"):  # Phi-4-multimodal: its own keys are the text model's
            if sub is not None:
                raise SpecError(
                    key,
                    f"{WHOLES[model_type].class_name}'s config has none (its language model's keys are its own, at the "
                    "top level): transformers cannot build the class with one",
                )
            sub = {k: config[k] for k in data["text_keys"] if k in config}
        elif sub is None and key == "text_config" and data["text_keys"]:
            sub = {k: config[k] for k in data["text_keys"] if k in config}
        elif sub is None:
            if declared["optional"]:
                continue
            sub = declared["init"]
        if not isinstance(sub, Mapping):
            raise SpecError(key, "expected a JSON object ({...})")
        sub = {**declared["init"], **sub} if declared["over_init"] else dict(sub)  # Voxtral's text_config
        kind = sub.get("model_type", declared["type"]) if declared["auto"] else declared["type"]
        if not isinstance(kind, str):
            raise SpecError(f"{key}.model_type", f"expected a text, got {json.dumps(kind)[:40]}")
        sub["model_type"] = kind
        out[key] = sub
    return out


#: What a whole model without a language model (CLIP, SigLIP: each tower ends in a projection) has not, said by the
#: page and the command line alike.
NO_LANGUAGE_MODEL = "no language model for memory and compute to run on (each tower ends in a projection)"


def declaration(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """How transformers declares the whole model ``config`` is (its ``hf_wholes.json`` entry: sub-configs, the keys
    its class moves into the text config, ...); empty for any other config."""
    kind = config.get("model_type")
    return hf_wholes()[kind] if isinstance(kind, str) and kind in WHOLES else {}


def written_key(config: Mapping[str, Any], key: str) -> str:
    """Where an edit of a tower's nested key (``text_config.num_hidden_layers``) is written in ``config``: the
    top-level key where the whole's class reads its language model's keys there (Qwen2-VL's file without a
    text_config, Phi-4-multimodal's), else the nested key itself."""
    tower, dot, name = key.partition(".")
    if not dot or tower != "text_config":  # the other towers are always nested
        return key
    declared = declaration(config)
    at_top = tower not in config or bool(declared.get("text_at_top"))
    return name if at_top and name in declared.get("text_keys", ()) else key


def _declared(config: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """How the whole's config class declares tower ``key``; empty for any other config or tower."""
    return declaration(config).get("subs", {}).get(key, {})


def dict_key(config: Mapping[str, Any], key: str) -> str:
    """``"<key>_dict"`` where the file has one and the whole's class builds tower ``key`` from it alone (CLIP's
    text_config_dict, over the tower class's defaults, whatever text_config says); "" otherwise."""
    return f"{key}_dict" if _declared(config, key).get("by_dict") and config.get(f"{key}_dict") is not None else ""


def stated_tower(config: Mapping[str, Any], key: str) -> Any:
    """The file's sub-config ``key`` as the whole's class reads it (``dict_key``'s where there is one)."""
    replaced = dict_key(config, key)
    if not replaced:
        return config.get(key)
    if not isinstance(config[replaced], Mapping):
        raise SpecError(replaced, "expected a JSON object ({...})")
    return {**config[replaced], "model_type": _declared(config, key)["type"]}


def _link(whole: Whole, subs: dict[str, dict[str, Any]]) -> None:
    """Write the keys the whole config's class copies from one tower into another (``whole.links``), as it does after
    reading them: the source tower's value, stated or its class default."""
    for target, source in whole.links:
        (t_key, t_name), (s_key, s_name) = target.split("."), source.split(".")
        if t_key not in subs or s_key not in subs:
            continue
        sub = subs[s_key]
        value = sub.get(s_name)
        subs[t_key][t_name] = value if value is not None else hf_defaults().get(sub["model_type"], {}).get(s_name)


def _language_class(model_type: str, kind: str) -> str:
    """How a whole of ``language="lm"`` (BLIP-2) builds its language model: ``AutoModelForCausalLM`` for a type
    transformers lists as a causal LM, else ``AutoModelForSeq2SeqLM`` (generated: ``language_types``, the types whose
    config has the ``hidden_size`` the projection reads)."""
    types = hf_wholes()[model_type].get("language_types", {})
    for language in ("causal_lm", "seq2seq_lm"):
        if kind in types.get(language, ()):
            return language
    raise SpecError(
        "text_config.model_type",
        f"{kind[:60]!r} is no language model {WHOLES[model_type].class_name} builds (a causal or "
        "sequence-to-sequence LM whose config has a hidden_size)",
    )


#: A name in a formula (not a function called, not already nested): ``hidden_size`` in ``(hidden_size + 1)*3``.
_IDENTIFIER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?![\w(])")


def _nested(node: Node, key: str, prefix: str) -> Node:
    """A tower's tree under ``prefix/``, the leaves' formulas in the whole config's nested names
    (``hidden_size`` → ``vision_config.hidden_size``)."""
    kids = tuple(_nested(kid, key, prefix) for kid in node.children)
    if not key:  # a tower whose keys are the whole config's own (Phi-4-multimodal's language model)
        path = f"{prefix}/{node.path}" if node.path else prefix
        return node._replace(path=path, children=kids)
    formula = node.formula if kids else _IDENTIFIER.sub(rf"{key}.\1", node.formula)
    repeat_name = _IDENTIFIER.sub(rf"{key}.\1", node.repeat_name)
    path = f"{prefix}/{node.path}" if node.path else prefix
    return node._replace(path=path, formula=formula, children=kids, repeat_name=repeat_name)


def _relinked(node: Node, target: str, source: str) -> Node:
    """A tower's tree with the nested key a whole config's class writes (``qformer_config.encoder_hidden_size``)
    named in its leaves' formulas as the key its value comes from (``vision_config.hidden_size``)."""
    kids = tuple(_relinked(kid, target, source) for kid in node.children)
    name = re.compile(rf"(?<![\w.]){re.escape(target)}(?!\w)")
    formula = node.formula if kids else name.sub(source, node.formula)
    return node._replace(formula=formula, children=kids)


def _undeclared(config: Mapping[str, Any], data: Mapping[str, Any], subs: Mapping[str, Any]) -> list[str]:
    """A note naming the file's top-level keys the whole's config class does not declare (an old LLaVA file's
    language keys beside no text_config: the class builds Llama's defaults and nothing reads them), the keys a tower's
    row reads first."""
    from paramscope.families import FAMILIES, METADATA

    declared = data["subs"]
    known = {*data["defaults"], *declared, *data["text_keys"], *(f"{key}_dict" for key in declared), *METADATA}
    rows = [FAMILIES[sub["model_type"]] for sub in subs.values() if sub["model_type"] in FAMILIES]
    sizes = {key for row in rows for keys in row.keys.values() for key in keys}
    token_ids = ("_token_id", "_token_ids", "_token_index", "ignore_index")  # sizes nothing, read by the forward pass
    unread = (key for key in config if key not in known and not key.endswith(token_ids))
    names = sorted(unread, key=lambda key: key not in sizes)
    if not names:
        return []
    shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    return [
        f"not read: {shown} ({len(names)} top-level key(s) the config class does not declare: transformers keeps them "
        f"and builds nothing from them; the towers are {', '.join(sorted(declared))})"
    ]


def compose(config: Mapping[str, Any]) -> MetaResult:
    """The whole model's parameter tree and headline numbers from its towers' rows and its projector's formulas.

    ``SpecError`` naming the nested key (``vision_config.hidden_size``) for a value a tower's row refuses;
    :class:`TowerWithoutRow` when a tower has no row.
    """
    from paramscope.families import FAMILIES, check_total, read

    model_type = str(config["model_type"])
    whole, data = WHOLES[model_type], hf_wholes()[model_type]
    subs = _sub_configs(model_type, config)
    _link(whole, subs)
    children: list[Node] = []
    widths: dict[str, tuple[int, str]] = {}
    summaries: list[Summary] = []
    text_spec = None
    data_notes: list[str] = []
    targets = {target.split(".")[0] for target, _ in whole.links}  # read after the towers they copy from
    for key, sub in sorted(subs.items(), key=lambda item: item[0] in targets):
        kind = sub["model_type"]
        if kind in DATA_TOWERS:  # counted from shipped data (timm's network), not by a row
            node = DATA_TOWERS[kind](key, sub)
            data_notes.append(f"the {TOWERS[key]} ({kind}): {node.note}: {node.count:,}")
            children.append(node)
            summaries.append(Summary(node.count, 0, node.count, node.count, node, 0))
            stated = sub.get("hidden_size")
            stated = hf_defaults().get(kind, {}).get("hidden_size") if stated is None else stated
            if stated is None:  # TimmWrapperConfig has none: a projector that reads it refuses (Parts.vision)
                continue
            width = as_int(f"{key}.hidden_size", stated)
            if not 0 <= width <= MAX_WIDTH:  # it sizes the embedder only (transformers builds one of width 0)
                raise SpecError(f"{key}.hidden_size", f"must be between 0 and {MAX_WIDTH:,}, got {width:,}")
            widths[key] = (width, f"{key}.hidden_size")
            continue
        if kind not in FAMILIES:
            raise TowerWithoutRow(f"{key}.model_type", f"{kind[:60]!r} has no formula row")
        family = FAMILIES[kind]
        language = key == "text_config" and whole.language
        if language == "lm":
            language = _language_class(model_type, kind)
        sub = {k: v for k, v in sub.items() if k != "architectures"}
        if language:  # built as the whole's modeling file builds it, whatever the sub-config names
            sub["architectures"] = [family.class_name(language)]
        try:
            spec = read(sub).spec
        except BeyondRow as exc:  # a tower its row cannot describe, although transformers builds it
            raise TowerWithoutRow(f"{key}.{exc.field}", exc.message) from None
        except SpecError as exc:  # named as the file holds it (a Qwen2-VL file's language keys at the top level)
            raise SpecError(written_key(config, f"{key}.{exc.field}"), exc.message) from None
        if language == "causal_lm" and spec.is_encoder_decoder:  # BLIP-2 over BART: BartForCausalLM, its decoder
            raise TowerWithoutRow(f"{key}.model_type", f"{kind[:60]!r} as {sub['architectures'][0]} has no formula row")
        summary = summarize(spec)
        summaries.append(summary)
        if key == "text_config":  # what its language model's count does not cover (T5's released head, MTP layers)
            data_notes += [
                f"the {TOWERS[key]}: {text}" for note in family.notes if (text := note(sub, spec, summary.tree))
            ]
        prefix = PREFIX[key] if key != "text_config" or language else TEXT_TOWER
        at_top = key == "text_config" and bool(data.get("text_at_top"))  # its formulas name the top-level keys
        tree = _nested(summary.tree, "" if at_top else key, prefix)
        for target, source in whole.links:  # the key the whole writes reads as where its value comes from
            if target.startswith(f"{key}."):
                tree = _relinked(tree, target, source)
        children.append(tree)
        width_key = family.key_for("hidden_size", sub) or "hidden_size"
        widths[key] = (spec.hidden_size, width_key if at_top else f"{key}.{width_key}")
        if key == "text_config":
            text_spec = spec
    parts = Parts(config, data["defaults"], subs, widths)
    projector = whole.projector(parts)
    if projector:
        children.append(group("projector", projector))
    head = 0
    if whole.language == "base" and text_spec is not None:
        tied = config.get("tie_word_embeddings")
        tied = data["defaults"].get("tie_word_embeddings") if tied is None else as_bool("tie_word_embeddings", tied)
        if tied is None:  # a class whose flag defaults to none takes the text config's (PerceptionLM)
            tied = parts.tower_key("text_config", "tie_word_embeddings")
        tied = bool(tied) or (data["tie_from_text"] and bool(parts.tower_key("text_config", "tie_word_embeddings")))
        tied = tied and data["ties_head"]  # a class that declares no tied weights keeps its own head whatever the flag
        text_row = FAMILIES[subs["text_config"]["model_type"]]
        text_type = text_row.hf_type
        tying = hf_tying()
        forced = text_type in tying["always_tied"]  # T5's config ties it, whatever the file says
        if (tied or forced) and text_type not in tying["embed_tokens"]:
            raise SpecError(
                "text_config.model_type",
                f"{text_type[:60]!r} cannot be {whole.class_name}'s language model with its head tied: transformers "
                "ties lm_head to the language model's embed_tokens, which that type's model has not ("
                + ("its config always ties; " if forced else "set tie_word_embeddings to false, or ")
                + "choose another type)",
            )
        t, t_expr = widths["text_config"]
        v, vocab_key = text_spec.vocab_size, text_row.key_for("vocab_size", {})
        if tied:
            lm = Node(
                "head/lm", 0, "0 (tied)", shape=f"{t}×{v}", note="tied to language_model/embedding/token: counted once"
            )
        else:
            vocab_expr = vocab_key or "vocab_size"
            vocab_expr = vocab_expr if data.get("text_at_top") else f"text_config.{vocab_expr}"
            lm = linear("head/lm", t, t_expr, v, vocab_expr, False)
            head = lm.count
        children.append(group("head", [lm], note=lm.note))
        subs["text_config"]["tie_word_embeddings"] = tied  # the language model, loaded alone, keeps the whole's head
    tree = group("", children)
    total = tree.count
    check_total(total)
    embedding = sum(s.embedding for s in summaries) + head
    tables = sum(s.input_embedding for s in summaries)
    inactive = sum(s.total - s.active for s in summaries)
    summary = Summary(
        total=total,
        embedding=embedding,
        non_embedding=total - embedding,
        active=total - inactive,
        tree=tree,
        input_embedding=tables,
    )
    notes = (
        f"counted with formulas: {whole.class_name} is its towers' rows, "
        + (
            f"its projector ({tree.get('projector'):,})"
            if projector
            else "its projector inside the vision tower"
            if "vision_config" in subs
            else "no projector"
        )
        + (", its LM head" if whole.language == "base" else ""),
        "embedding: the towers' token and position tables and the LM head where untied (a convolution over image "
        "patches or audio frames is no table: it counts as non-embedding)"
        + ("; active: all but the routed experts a token does not use" if summary.active < summary.total else ""),
        *data_notes,
        *([whole.note] if whole.note else []),
        *_undeclared(config, data, subs),
    )
    return MetaResult(
        tree=tree,
        summary=summary,
        class_name=whole.class_name,
        model_type=model_type,
        notes=notes,
        sub_configs=subs,
        formulas=True,
    )
