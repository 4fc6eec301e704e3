"""The component registry: every part of a parameter tree that the page names, with its kind, its label, its
colour and whether it counts as embedding.

The charts, the architecture drawing, compare, the sweeps, the summary's embedding count and the exports all
read this one table, so "attention" is the same colour, the same words and the same kind everywhere. A path
under a stack (``encoder/``, ``decoder/``) is the stack's copy of the component: same kind, the stack's name in
front of the label and, for the decoder, a lighter shade.

>>> label("decoder/layers/cross_attention"), kind_of("layers/moe/experts/down")
('Decoder cross-attention', 'experts')
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from types import MappingProxyType

from paramscope.engine.tree import Node


@dataclass(frozen=True)
class Kind:
    """A kind of component, the unit of "where do the parameters go" (compare, the sweeps, Why so big?)."""

    name: str
    label: str
    colour: str  # the colour of its main component, so a kind and its component look alike


@dataclass(frozen=True)
class Component:
    path: str  # stack-relative: "layers/attention", "embedding/token"
    kind: str
    label: str
    colour: str
    embedding: bool = False  # a vocabulary or position table: in "embedding", out of "non-embedding"


#: The kinds in the order charts show them.
KINDS = MappingProxyType(
    {
        k.name: k
        for k in (
            Kind("embedding", "Embeddings", "#4c78a8"),
            Kind("attention", "Attention", "#f58518"),
            Kind("mlp", "MLP", "#e45756"),
            Kind("experts", "Experts (MoE)", "#b279a2"),
            Kind("recurrent", "Recurrent and state-space mixers", "#eeca3b"),
            Kind("norms", "Norms", "#9d755d"),
            Kind("head", "Head", "#54a24b"),
            Kind("other", "Other", "#bab0ac"),
        )
    }
)

#: Every named component (stack-relative path -> component). A path inside one (``layers/attention/qkv``)
#: belongs to it; a path under none is "other", labelled by its name.
COMPONENTS = MappingProxyType(
    {
        c.path: c
        for c in (
            Component("embedding", "embedding", "Embeddings", "#4c78a8"),
            Component("embedding/token", "embedding", "Token embedding", "#4c78a8", embedding=True),
            Component("embedding/position", "embedding", "Position embedding", "#72b7b2", embedding=True),
            Component("embedding/token_type", "embedding", "Token-type embedding", "#9ecae9", embedding=True),
            Component("embedding/norm", "norms", "Embedding norm", "#bab0ac"),
            Component("embedding/projection", "embedding", "Embedding projection", "#5f9ea0"),
            Component("embedding/audio", "embedding", "Audio convolutions", "#5f9ea0"),
            Component("embedding/patch", "embedding", "Patch embedding", "#5f9ea0"),
            Component("embedding/class", "embedding", "Class token", "#9ecae9"),
            Component("embedding/tile_position", "embedding", "Tile position embedding", "#72b7b2", embedding=True),
            Component("embedding/tile", "embedding", "Tile embedding", "#9ecae9", embedding=True),
            Component("embedding/per_layer", "embedding", "Per-layer input embedding", "#6a9fcf", embedding=True),
            Component("embedding/per_layer_projection", "embedding", "Per-layer input projection", "#5f9ea0"),
            Component("embedding/per_layer_norm", "norms", "Per-layer input norm", "#bab0ac"),
            Component("embedding/altup_projections", "embedding", "AltUp input projections", "#7aa6c2"),
            Component("relative_attention_bias", "attention", "Relative position bias", "#72b7b2"),
            Component("layers/relative_attention_bias", "attention", "Relative position bias", "#72b7b2"),
            Component("layers/conv", "other", "Convolution beside the first layer", "#bab0ac"),
            Component("layers/attention", "attention", "Attention", "#f58518"),
            Component("layers/full_attention", "attention", "Full attention", "#b35806"),
            Component("layers/shared_kv_attention", "attention", "Attention on shared keys and values", "#ffbf79"),
            Component(
                "layers/shared_kv_full_attention", "attention", "Full attention on shared keys and values", "#ffd3a1"
            ),
            Component("layers/attention_norm", "norms", "Attention norm", "#9d755d"),
            Component("layers/cross_attention", "attention", "Cross-attention", "#ffbf79"),
            Component("layers/cross_attention_norm", "norms", "Cross-attention norm", "#9d755d"),
            Component("layers/cross_attention_extras", "attention", "Cross-attention q/k norms and gates", "#ffd3a1"),
            Component("layers/relative_position", "attention", "Relative position table", "#72b7b2"),
            Component("layers/relative_position_norm", "norms", "Relative position norm", "#bab0ac"),
            Component("layers/linear_attention", "recurrent", "Linear attention", "#d6a100"),
            Component("layers/ssm", "recurrent", "State-space mixer (Mamba)", "#eeca3b"),
            Component("layers/short_conv", "recurrent", "Short convolution", "#c9b037"),
            Component("layers/time_mixing", "recurrent", "Time mixing (RWKV)", "#d9b44a"),
            Component("layers/lightning", "recurrent", "Lightning attention", "#e0b300"),
            Component("layers/mlstm", "recurrent", "mLSTM cells (xLSTM)", "#c8a52e"),
            Component("layers/recurrent", "recurrent", "Recurrent units", "#eeca3b"),
            Component("layers/conv_module", "other", "Convolution module (Conformer)", "#c7b8a6"),
            Component("layers/shared_block", "other", "Shared transformer blocks", "#f8a14d"),
            Component("layers/shared_block/attention", "attention", "Shared attention", "#f58518"),
            Component("layers/shared_block/mlp", "mlp", "Shared MLP", "#e45756"),
            Component("layers/shared_block/input_norm", "norms", "Shared-block norms", "#9d755d"),
            Component("layers/shared_block/mlp_norm", "norms", "Shared-block norms", "#9d755d"),
            Component("layers/shared_block_linear", "other", "Per-use linear layers", "#ff9da6"),
            Component("layers/shared_block_uses", "other", "Per-use linear layers and adapters", "#ff9da6"),
            Component("layers/shared_block_adapters", "other", "Shared-block adapters", "#f2a0a0"),
            Component("layers/shared_block_adapters/attention", "attention", "Attention adapters", "#ffbf79"),
            Component("layers/shared_block_adapters/mlp", "mlp", "MLP adapters", "#f2a0a0"),
            Component(
                "layers/csa_compressor", "attention", "Compressed sparse attention (compressor, indexer)", "#c9731c"
            ),
            Component("layers/hca_compressor", "attention", "Heavily compressed attention (compressor)", "#f2b36b"),
            Component("layers/hyper_connections", "other", "Hyper-connections", "#79706e"),
            Component("layers/mlp", "mlp", "MLP", "#e45756"),
            Component("layers/text_mlp", "mlp", "Text-token MLP", "#f2a0a0"),
            Component("layers/text_mlp_norm", "norms", "Text-token MLP norm", "#9d755d"),
            Component("layers/wide_mlp", "mlp", "MLP (twice as wide)", "#f2a0a0"),
            Component("layers/per_layer_input", "other", "Per-layer input gates", "#9ecae9"),
            Component("layers/altup", "other", "AltUp (alternating updates)", "#59a89c"),
            Component("layers/laurel", "other", "LAuReL (low-rank residual)", "#d37295"),
            Component("layers/moe", "experts", "Experts (MoE)", "#b279a2"),
            Component("layers/norm", "norms", "Layer norms", "#9d755d"),
            Component("layers/layer_scale", "norms", "Layer scales", "#bfa28f"),
            Component("layers/gates", "other", "Layer gates", "#bfa28f"),
            Component("final_norm", "norms", "Final norm", "#79706e"),
            Component("head", "head", "Head", "#54a24b"),
            Component("head/transform", "head", "MLM transform", "#88d27a"),
            Component("head/projection", "head", "Head projection", "#8cd17d"),
            Component("head/discriminator", "head", "Discriminator", "#8cd17d"),
            Component("head/classifier", "head", "Classifier", "#8cd17d"),
            Component("head/pool", "head", "Attention-pooling head", "#88d27a"),
            Component("head/pooled_projection", "head", "Pooled projection", "#8cd17d"),
            Component("head/output_proj", "head", "Output projection", "#8cd17d"),
            Component("head/vision_adapter", "head", "Pixel-shuffle adapter", "#88d27a"),
            Component("head/downsample", "head", "Patch folding", "#8cd17d"),
            Component("head/merger", "head", "Patch merger", "#88d27a"),
            Component("head/deepstack_merger", "head", "DeepStack mergers", "#b6e2a9"),
            Component("head/hyper_head", "head", "Hyper-connection head", "#b6e2a9"),
            Component("head/altup_unembed_projections", "head", "AltUp output projections", "#b6e2a9"),
            Component("head/lm", "head", "LM head", "#54a24b", embedding=True),  # an untied head is a vocab table
            Component("head/lm_bias", "head", "LM head bias", "#b6e2a9"),
            Component("pooler", "head", "Pooler", "#17becf"),
            Component("towers", "other", "Vision / audio towers and projectors", "#bab0ac"),
        )
    }
)

#: Stacks of an encoder-decoder: the name in labels and how much lighter the stack's shades are.
STACKS = MappingProxyType({"encoder": ("Encoder", 0.0), "decoder": ("Decoder", 0.35)})

#: The groups the page opens to show what is inside; every other node under them is a component.
GROUPS = frozenset({"", "embedding", "layers", "head", *STACKS})

#: What "embedding" counts, in words (every view and export that shows an embedding count says it).
EMBEDDING_CONVENTION = "embedding = token, position, token-type and per-layer input tables + untied LM head"

#: Every path whose count is embedding parameters, stack copies included.
EMBEDDING_PATHS = tuple(
    prefix + c.path for prefix in ("", *(f"{s}/" for s in STACKS)) for c in COMPONENTS.values() if c.embedding
)

_FALLBACK = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d")


def split_stack(path: str) -> tuple[str, str]:
    """'decoder/layers/attention' -> ('decoder', 'layers/attention'); 'layers/mlp' -> ('', 'layers/mlp')."""
    head, _, rest = path.partition("/")
    if head in STACKS and rest:
        return head, rest
    return "", path


def component(path: str) -> Component | None:
    """The registered component that holds ``path`` (the longest registered prefix), ``None`` for none."""
    rest = split_stack(path)[1]
    while rest:
        if rest in COMPONENTS:
            return COMPONENTS[rest]
        rest = rest.rpartition("/")[0]
    return None


def kind_of(path: str) -> str:
    """The component kind of a tree path: embedding, attention, mlp, experts, recurrent, norms, head or other."""
    c = component(path)
    return c.kind if c else "other"


def lighten(hex_colour: str, amount: float) -> str:
    """``amount`` of the way from ``hex_colour`` (#rrggbb) to white."""
    rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


def colour(path: str) -> str:
    """The colour of component ``path``: fixed, so a component looks the same in every chart, for every model;
    a stable fallback for a path the registry does not name."""
    stack, rest = split_stack(path)
    c = COMPONENTS.get(rest)
    if c is None:
        return _FALLBACK[zlib.crc32(path.encode()) % len(_FALLBACK)]
    return lighten(c.colour, STACKS[stack][1]) if stack else c.colour


def label(path: str) -> str:
    """A component's name in plain words: 'decoder/layers/cross_attention' -> 'Decoder cross-attention'."""
    stack, rest = split_stack(path)
    c = COMPONENTS.get(rest)
    text = c.label if c else rest.rsplit("/", 1)[-1].replace("_", " ").capitalize()
    if stack:
        acronym = text[1:2].isupper()
        text = f"{STACKS[stack][0]} {text if acronym else text[0].lower() + text[1:]}"
    return text


def components(tree: Node) -> list[Node]:
    """The tree cut at the component level: embedding tables, attention, MLP, norms, heads ..."""
    out: list[Node] = []
    for child in tree.children:
        if child.name in GROUPS and child.children and child.path.count("/") < 2:
            out.extend(components(child))
        else:
            out.append(child)
    return out


def kind_totals(tree: Node) -> dict[str, int]:
    """Parameters per component kind (every leaf counted once), every kind in :data:`KINDS` order."""
    out = dict.fromkeys(KINDS, 0)
    for leaf in tree.leaves():
        if leaf.path:
            out[kind_of(leaf.path)] += leaf.count
    return out


def embedding_params(tree: Node) -> int:
    """Vocabulary and position tables (token, position and token-type embeddings of the model and of each
    stack) and an untied LM head: the components the registry marks ``embedding``."""
    return sum(tree.get(p) for p in EMBEDDING_PATHS)
