"""The sidebar's model controls: each edits one key of the config; each says where its value comes from."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import streamlit as st

from paramscope.app import ui_costs
from paramscope.app.text import quoted
from paramscope.app.widgets import note_moved, put_back
from paramscope.engine.spec import LIMITS, Spec, SpecError
from paramscope.families.wholes import written_key
from paramscope.io import link
from paramscope.model import Model

NORM_NAMES = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm"}
POSITION_NAMES = {
    "learned": "learned table",
    "learned_2d": "learned table per image axis",
    "rotary": "rotary (RoPE): no parameters",
    "none": "none",
    "alibi": "ALiBi: no parameters",
    "relative": "relative bias (T5)",
    "sinusoidal": "sinusoidal table",
}
WIDGET = "f."  # session-state key prefix of the model controls: "f." + Spec field name
#: Session-state key of the controls the person moved since the model last took an edit (their widget keys). Only
#: these edit the model: under load the browser can hand a rerun a control at its widget's default (a slider's 0, a
#: toggle's false, an emptied box), which is then put back to the model's value instead of becoming an edit.
MOVED = "moved_controls"
#: Sizes a control may leave empty: the key is then deleted and the class derives (or defaults) the value.
CLEARABLE = ("num_key_value_heads", "head_dim", "intermediate_size", "moe_intermediate_size")


def clear_controls() -> None:
    """Every model control re-reads the session's model on its next draw; the sections that only some models use
    open or close with the next model."""
    if MORE_OPEN in st.session_state:  # not drawn for the last model (a whole one): the choice from before stays
        st.session_state[MORE_KEPT] = [title for title in st.session_state[MORE_OPEN] if title in EVERY_MODEL]
    for key in [k for k in st.session_state if str(k).startswith(WIDGET) or k in (MORE_OPEN, MOVED)]:
        del st.session_state[key]


def moved(*keys: str) -> None:
    """Note that the person moved these controls (their widget keys): the next run edits the model with them."""
    note_moved(MOVED, *keys)


def apply_controls() -> tuple[str, str]:
    """Turn the controls' values (already in the session state when the script starts) into edits of the
    config: only the controls that moved write their key, so everything else stays as stated or derived.

    Returns the error that blocks an impossible edit and the field it names; the last valid model stays.
    """
    model: Model = st.session_state.model
    if model.counted_by == "towers":  # a whole model: each tower's sizes, in place
        return _apply_tower_controls(model)
    if not model.has_formulas:  # counted by transformers: no controls
        return "", ""
    shown = {name: control_value(model, name) for name in CONTROL_FIELDS}
    touched = put_back(MOVED, {WIDGET + name: value for name, value in shown.items()})
    edits = {
        name: st.session_state[WIDGET + name]
        for name, value in shown.items()
        if WIDGET + name in touched and WIDGET + name in st.session_state and st.session_state[WIDGET + name] != value
    }
    emptied = [name for name, value in edits.items() if value is None]
    if len(emptied) > 1:  # boxes the browser re-created empty (a person empties one box at a time): put back
        for name in emptied:
            st.session_state[WIDGET + name] = shown[name]
            touched.discard(WIDGET + name)
            del edits[name]
    if not edits:
        touched.clear()
        return "", ""
    for name, value in edits.items():  # the exact boxes are float boxes (they read "1e5"): whole numbers only
        if isinstance(value, float):
            if not value.is_integer():
                st.session_state.pending = edits  # the nearest whole number that makes a valid model is offered
                return f"{name}: {value:g} is not a whole number", name
            edits[name] = int(value)
    try:
        edited = model.edit(**edits)
    except SpecError as exc:
        st.session_state.pending = edits  # what the controls ask for, to offer the nearest valid value
        return _refused(exc, edits), exc.field
    st.session_state.model = edited
    touched.clear()  # an edit that failed keeps its controls moved: the error and the typed value stay
    st.session_state[EMPTIED] = next(  # the sizes the models hold (a box left to derive shows none)
        (
            (name, before, now, edited)
            for name, value in edits.items()
            if value is None
            and isinstance(before := getattr(model.spec, name), int)
            and isinstance(now := getattr(edited.spec, name), int)
            and now != before
        ),
        None,
    )
    for name in CONTROL_FIELDS:  # derived values follow the edit (GPT-2's MLP width follows its width); an emptied
        if WIDGET + name in st.session_state and edits.get(name) is None:  # box shows what the class defaults to
            st.session_state[WIDGET + name] = control_value(edited, name)
    return "", ""


#: The box emptied by the last edit, where that changed its value: (field, value before, value now, the model made)
EMPTIED = "emptied"


def emptied_note() -> None:
    """Say so when emptying a box changed its value, with the value before one click away: the browser sends a box
    that holds no number (letters typed into it) as an emptied one, which deletes the key."""
    note = st.session_state.get(EMPTIED)
    if not note or note[3] != st.session_state.model:
        return
    name, before, now = note[:3]
    st.info(
        f"{name}: the box was emptied (or held no number), so the key is no longer stated and the model's class gives "
        f"{now:,} (it was {before:,}).",
        icon=":material/info:",
    )
    st.button(f"Put back {name} = {before:,}", key="f_put_back", on_click=_use_value, args=(name, before))


#: The sizes of each tower that a whole model's controls edit in place, by the tower's own key, nested in the whole
#: config (``text_config.num_hidden_layers``).
TOWER_FIELDS = ("num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads", "vocab_size")


def tower_controls(model: Model) -> list[tuple[str, str, str, int]]:
    """(widget key, label, nested config key, value) of each tower size a whole model's controls edit."""
    out = []
    for role, tower in model.towers:
        for name in TOWER_FIELDS:
            key = tower.family.key_for(name, tower.config)
            value = getattr(tower.spec, name)
            if key is not None and value:
                out.append(
                    (
                        f"{WIDGET}{tower.origin}.{key}",
                        f"{role[:1].upper() + role[1:]}: {key}",
                        f"{tower.origin}.{key}",
                        value,
                    )
                )
    return out


def _apply_tower_controls(model: Model) -> tuple[str, str]:
    """A whole model's moved tower controls as one edit of its nested keys; the error and key when it is refused."""
    controls = tower_controls(model)
    touched = put_back(MOVED, {widget: value for widget, _, _, value in controls})
    edits = {
        nested: int(st.session_state[widget])
        for widget, _, nested, value in controls
        if widget in touched and widget in st.session_state and st.session_state[widget] != value
    }
    if not edits:
        touched.clear()
        return "", ""
    try:
        st.session_state.model = model.edit(**edits)
    except SpecError as exc:
        return _refused(exc, edits), exc.field
    touched.clear()
    return "", ""


def _refused(exc: SpecError, edits: dict[str, Any]) -> str:
    """A refusal, with every value asked for beside it where the controls asked for several at once."""
    asked = ", ".join(f"{n} = {'emptied' if v is None else link.in_words(v)}" for n, v in edits.items())
    return str(exc) + (f" (asked for together, none applied: {asked})" if len(edits) > 1 else "")


def whole_controls() -> None:
    """Each tower's main sizes, edited in place in the whole config: the total, the tree, memory and compute follow."""
    model: Model = st.session_state.model
    st.caption("Each tower's sizes, edited in place in the whole config; the link writes the key each box's help says.")
    for widget, label, nested, value in tower_controls(model):
        if widget not in st.session_state:
            st.session_state[widget] = value
        st.number_input(
            label,
            min_value=0,
            value=st.session_state[widget],  # what a fresh widget in the browser starts from (see _current)
            step=1,
            key=widget,
            on_change=moved,
            args=(widget,),
            help=f"{written_key(model.config, nested)} in the whole config.json",
        )


def control_value(model: Model, name: str) -> object:
    """What a control shows: the value, or nothing for a size the config leaves to derive (or default)."""
    if name in CLEARABLE and model.origin_of(name).kind in ("derived", "default"):
        return None
    return getattr(model.spec, name)


def image_controls(view: Spec, show: Spot) -> None:
    """A vision encoder's input: the image and the patches it is cut into, each patch a token."""
    number("image_size", "Image size (pixels a side)", "The square image the encoder reads.", show)
    number(
        "patch_size",
        "Patch size (pixels a side)",
        "One convolution of this kernel and stride cuts the image into patches; each patch is a token.",
        show,
    )
    number("num_channels", "Channels", "Colour channels of the image (3 for RGB).", show)
    side = view.image_size // max(view.patch_size, 1)
    extra = " + the class token" if view.class_token else ""
    st.caption(f"{side:,} × {side:,} = {view.patches:,} patches{extra}: {view.max_position_embeddings:,} tokens")


def model_controls(error: str, culprit: str) -> None:
    """Every control in plain words with its Hugging Face name. Size holds the card's six controls, sliders and
    switches, open at first; the other sections are one row of pills (More controls), each drawn only while picked
    (a move redraws every element drawn: docs/benchmarks.md). An error shows under the control it names, its
    section opened."""
    model: Model = st.session_state.model
    show = Spot(error, culprit, model)
    view = model.spec
    if _holds(show, "Size"):
        st.session_state[SIZE_OPEN] = True
    size = st.expander("Size", expanded=True, key=SIZE_OPEN, on_change="rerun")
    if size.open:
        with size:
            size_controls(view, show)
    layers = {title for title, (_, has) in MORE.items() if has is not None and has(view)}
    offered = [title for title in MORE if title in EVERY_MODEL or title in ANY_MODEL_ADDS or title in layers]
    for title in more_controls(offered, layers, show):
        with st.container(border=True):
            st.markdown(f"**{title}**")
            MORE[title][0](view, show)
    show.rest()


def more_controls(offered: list[str], layers: set[str], show: Spot) -> list[str]:
    """The row of pills that opens the sections after Size (one element a move, where a closed expander each was
    one), and the titles picked.

    A model's own kinds of layers (``layers``) open with it, and so do the sections a link edited, when the page
    opens; the sections every model has keep the person's choice from model to model (``clear_controls``). The
    section holding the control an error names opens, so the error and the nearest valid value show under that
    control; so does one holding a control whose refused value waits (closed, the value typed would be lost with
    its box).
    """
    if MORE_OPEN not in st.session_state:
        kept = st.session_state.pop(MORE_KEPT, [])
        edited = {title for title in offered if title != EXACT and not show.edited.isdisjoint(SECTIONS[title])}
        st.session_state[MORE_OPEN] = [title for title in offered if title in {*kept, *layers, *edited}]
    picked = set(st.session_state[MORE_OPEN]) | {title for title in offered if _holds(show, title)}
    picked_in_order = [title for title in offered if title in picked]
    if picked_in_order != st.session_state[MORE_OPEN]:  # written only to change it
        st.session_state[MORE_OPEN] = picked_in_order
    return st.pills(
        "More controls",
        offered,
        selection_mode="multi",
        key=MORE_OPEN,
        help="Each opens a section of controls under this row; another click closes it.",
    )


def _holds(show: Spot, title: str) -> bool:
    """Whether section ``title`` must open: the error names one of its controls, or one of them holds a refused
    value (an edit refused keeps its controls moved: what was typed stays drawn)."""
    moved = st.session_state.get(MOVED, set())
    names = SECTIONS[title]
    return bool(show.error) and (show.names_any(names) or any(WIDGET + name in moved for name in names))


def size_controls(view: Spec, show: Spot) -> None:
    if view.image_size:  # a vision encoder reads image patches, not tokens of a vocabulary
        image_controls(view, show)
    else:
        number(
            "vocab_size",
            "Vocabulary size",
            "Rows of the token embedding (and of an untied LM head). The slider steps through common vocabularies; "
            "type any size in the box under Exact sizes.",
            show,
            slider=vocab_steps(view.vocab_size),
        )
    number(
        "hidden_size",
        "Hidden size (embedding width)",
        "Width of every token vector between blocks. The slider and the box's + and − keep every head whole "
        f"({width_rule(show.model)}); type any width in the box under Exact sizes.",
        show,
        slider=width_steps(show.model),
    )
    layers_slider(view, show)
    if view.is_encoder_decoder:
        number(
            "num_decoder_layers",
            "Decoder layers",
            "Blocks in the decoder stack (with cross-attention).",
            show,
        )
    if view.is_moe and view.num_moe_layers == view.num_hidden_layers:
        st.caption("Every layer uses experts: see *Mixture of experts* below (an expert's width may follow this).")
    multiplier_slider(view, show)
    bias_switch(view, show)
    switch(
        "tie_word_embeddings",
        "Tie LM head to embedding",
        "The output projection reuses the token embedding, so it is counted once.",
        show,
        disabled=not view.lm_head,
        origin=False,  # said in Exact sizes, with the sliders' values
    )


def exact_controls(view: Spec, show: Spot) -> None:
    """The Size section's sizes as exact boxes (any value typed, or emptied to derive it), and where each value of
    the section comes from. Drawn only while open: a move redraws every control drawn (docs/benchmarks.md)."""
    if not view.image_size:
        exact_box("vocab_size", "Vocabulary size", show)
    exact_box("hidden_size", "Hidden size (embedding width)", show, step=width_step(show.model)[0])
    show.after("num_hidden_layers", "Encoder layers" if view.is_encoder_decoder else "Layers")
    ffn_boxes(view, show)
    show.after("tie_word_embeddings", "Tie LM head")


def bias_switch(view: Spec, show: Spot) -> None:
    """The card's one bias control, as nanoGPT's GPTConfig(bias=...): every bias the config can switch (attention,
    MLP, LayerNorm) on or off together. Where the classes fix them all (GPT-2's always have biases), it says so and
    offers nanoGPT, whose GPT makes bias a choice."""
    names = tuple(
        n
        for n in BIASES
        if not show.fixed(n)
        and (n != "norm_bias" or view.norm_type == "layernorm")
        and (not n.startswith("ssm_") or view.ssm_layers)  # a mixer's biases where the model has mixers
    )
    st.session_state[CARD_BIAS] = all(bool(getattr(view, n)) for n in names) if names else bool(view.attention_bias)
    st.toggle(
        "Biases",
        value=st.session_state[CARD_BIAS],
        key=CARD_BIAS,
        on_change=_biases_moved,
        args=(names,),
        disabled=not names,
        help="Every bias the model's config can switch: "
        + (", ".join(names) if names else "none")
        + " (nanoGPT's GPTConfig(bias=...) switches them all at once). Each is also in its own section.",
    )
    if names:
        st.caption(" · ".join(f"{n} {'on' if getattr(view, n) else 'off'}" for n in names))
        return
    st.caption(f"Fixed by the {show.model.family.class_prefix} classes: their biases are not a config key.")
    if show.model.preset != NANOGPT:
        st.button("Open nanoGPT, where bias is a choice", key="f_open_nanogpt", on_click=_open_preset, args=(NANOGPT,))


def _biases_moved(names: tuple[str, ...]) -> None:
    for name in names:
        st.session_state[WIDGET + name] = st.session_state[CARD_BIAS]
    moved(*(WIDGET + name for name in names))


def _open_preset(name: str) -> None:
    from paramscope.app.picker import load_preset  # the picker imports this module

    st.session_state.preset = name
    load_preset()


def feed_forward_controls(view: Spec, show: Spot) -> None:
    switch("mlp_gated", "Gated MLP (SwiGLU / GeGLU)", "A third matrix, gate_proj, multiplies the up projection.", show)
    switch("mlp_bias", "MLP biases", "Bias vectors on the feed-forward projections.", show)


def expert_controls(view: Spec, show: Spot) -> None:
    number("num_experts", "Experts", "Routed expert MLPs per MoE layer; 0 is a dense model.", show)
    if not view.is_moe:
        return
    number(
        "num_experts_per_tok",
        "Experts per token",
        "How many experts each token is routed to.",
        show,
    )
    optional(
        "moe_intermediate_size",
        "Expert intermediate size",
        "Hidden width of one expert MLP.",
        f"same as intermediate size ({view.ffn_size})",
        show,
    )


def ssm_controls(view: Spec, show: Spot) -> None:
    number("ssm_state_size", "State size", "State values per inner channel (Mamba's d_state).", show)
    number(
        "ssm_inner",
        "Inner width",
        "Channels the mixer works in (expand × hidden size, unless the config states it).",
        show,
    )
    number("ssm_conv_kernel", "Convolution width", "Taps of the depthwise causal convolution.", show)
    switch("ssm_proj_bias", "Projection biases", "Bias vectors on the mixer's input and output projections.", show)
    switch("ssm_conv_bias", "Convolution bias", "A bias on the depthwise convolution's channels.", show)


def linear_attention_controls(view: Spec, show: Spot) -> None:
    kind = "Kimi Delta Attention" if view.linear_kind == "kda" else "Gated DeltaNet"
    st.caption(f"{kind} in {view.linear_attention_layers} of {view.num_hidden_layers} layers; the others attend fully.")
    if view.linear_kind == "kda":  # one head count and one head size for q, k and v
        number("linear_num_value_heads", "Heads", "Heads of a KDA layer; each keeps a head dim × head dim state.", show)
        number("linear_value_head_dim", "Head dim", "Width of a query, key or value head.", show)
        return
    number("linear_num_key_heads", "Key heads", "Query and key heads of a linear-attention layer.", show)
    number(
        "linear_num_value_heads",
        "Value heads",
        "Value heads (a multiple of the key heads); each keeps a key dim × value dim state.",
        show,
    )
    number("linear_key_head_dim", "Key head dim", "Width of a query or key head.", show)
    number("linear_value_head_dim", "Value head dim", "Width of a value head.", show)


def short_conv_controls(view: Spec, show: Spot) -> None:
    st.caption(f"{view.short_conv_layers} of {view.num_hidden_layers} layers; the others attend fully.")
    number("short_conv_kernel", "Convolution width", "Taps of the depthwise causal convolution.", show)


def mlstm_controls(view: Spec, show: Spot) -> None:
    number("mlstm_heads", "Heads", "Heads of an mLSTM cell; each keeps a key dim × value dim matrix memory.", show)
    number("mlstm_qk_dim", "Query/key width", "All heads' queries (and keys) together.", show)
    number("mlstm_v_dim", "Value width", "All heads' values (and output gate) together.", show)


def recurrent_controls(view: Spec, show: Spot) -> None:
    number(
        "recurrent_units",
        "Recurrent units per channel",
        "A small RNN of this hidden size on every embedding channel, in every block (teaching model).",
        show,
    )


def attention_controls(view: Spec, show: Spot) -> None:
    if not view.has_attention:
        st.caption("This model has no attention.")
        return
    if view.is_mla:
        number("num_attention_heads", "Attention heads", "Query heads per layer.", show)
        st.caption("Multi-head latent attention: its low-rank sizes stay as in the preset.")
        return
    number(
        "num_attention_heads",
        "Attention heads",
        "Query heads per layer. Must divide the hidden size unless head dim is set.",
        show,
    )
    heads = max(view.num_attention_heads, 1)
    optional(
        "num_key_value_heads",
        "Key/value heads",
        "Fewer than the heads is grouped-query attention (1 is multi-query). Must divide the heads. "
        "Empty: one per head.",
        f"same as heads ({heads})",
        show,
    )
    derived = f"hidden ÷ heads ({view.hidden_size // heads})" if view.hidden_size % heads == 0 else "not whole"
    optional("head_dim", "Head dim", "Width of one head. Empty: hidden size ÷ heads.", derived, show)
    switch("attention_bias", "Attention biases", "Bias vectors on the query, key and value projections.", show)


def norm_controls(view: Spec, show: Spot) -> None:
    choice(
        "norm_type",
        "Norm type",
        list(NORM_NAMES),
        NORM_NAMES,
        "LayerNorm has a weight and a bias per channel, RMSNorm only a weight.",
        show,
    )
    switch(
        "norm_bias",
        "Norm biases",
        "LayerNorm bias vectors (RMSNorm never has one).",
        show,
        disabled=view.norm_type != "layernorm",
    )
    positions = ["learned", "rotary", "none"]
    if view.position_embedding not in positions:
        positions.append(view.position_embedding)
    choice(
        "position_embedding",
        "Position embedding",
        positions,
        POSITION_NAMES,
        "Only a learned (or stored sinusoidal) table holds parameters.",
        show,
    )
    number(
        "max_position_embeddings",
        "Context length",
        "Longest sequence; a learned position table has this many rows.",
        show,
    )


def run_controls(shown: bool) -> object:
    """The run settings (batch, precision, GPUs ...), shown while a tab that uses them is open (RUN_TABS).

    Elsewhere they do not apply and are not drawn; the settings stay in the session and the link.
    """
    settings = st.session_state.get("run_settings")
    if not shown:
        return settings
    with st.expander("Run: precision, batch, context, GPUs", expanded=True, icon=":material/speed:"):
        settings = ui_costs.render_run_controls(settings)
    st.session_state.run_settings = settings
    return settings


# ---------------------------------------------------------------------------------- control helpers
#: The sidebar's sections and the controls each holds (session-state names). Size, the product card's six controls
#: (vocabulary, width, layers, FFN multiplier, biases, tying), is open at first; the other sections every model has
#: (EVERY_MODEL) keep the user's open or closed choice from model to model; the others open with each model that has
#: such layers.
SECTIONS: dict[str, tuple[str, ...]] = {
    "Size": ("vocab_size", "image_size", "patch_size", "num_channels", "hidden_size", "num_hidden_layers",
             "num_decoder_layers", "intermediate_size", "tie_word_embeddings"),
    "Exact sizes": ("vocab_size", "hidden_size", "num_hidden_layers", "intermediate_size", "tie_word_embeddings"),
    "Attention": ("num_attention_heads", "num_key_value_heads", "head_dim", "attention_bias"),
    "Feed-forward": ("mlp_gated", "mlp_bias"),
    "Norms and embeddings": ("norm_type", "norm_bias", "position_embedding", "max_position_embeddings"),
    "Mixture of experts": ("num_experts", "num_experts_per_tok", "moe_intermediate_size"),
    "State space (Mamba)": ("ssm_state_size", "ssm_inner", "ssm_conv_kernel", "ssm_proj_bias", "ssm_conv_bias"),
    "Linear attention": ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                         "linear_value_head_dim"),
    "Short convolutions (LFM2)": ("short_conv_kernel",),
    "mLSTM (xLSTM)": ("mlstm_heads", "mlstm_qk_dim", "mlstm_v_dim"),
    "Recurrent units": ("recurrent_units",),
}  # fmt: skip
#: The section of the Size sliders' exact boxes and of where the Size values come from: closed at first, it opens
#: for an error under one of its boxes, not for a link's edits (the sliders above show those).
EXACT = "Exact sizes"
#: The biases the card's one "Biases" switch sets together, and its session-state key.
BIASES = ("attention_bias", "mlp_bias", "norm_bias", "ssm_proj_bias", "ssm_conv_bias")
CARD_BIAS = "f_bias"
#: The model whose biases are a choice, offered where the classes fix them.
NANOGPT = "nanogpt-124m"
EVERY_MODEL = ("Size", EXACT, "Attention", "Feed-forward", "Norms and embeddings")
#: The sections of kinds of layers any model can add (experts to a dense model), offered to every model.
ANY_MODEL_ADDS = ("Mixture of experts", "Recurrent units")
#: The sections after Size, in SECTIONS' order: how each draws its controls, and for a kind of layer, whether the
#: model has it (the section then opens with the model, and is offered to it where not to every model).
MORE: dict[str, tuple[Callable[[Spec, Spot], None], Callable[[Spec], bool] | None]] = {
    EXACT: (exact_controls, None),
    "Attention": (attention_controls, None),
    "Feed-forward": (feed_forward_controls, None),
    "Norms and embeddings": (norm_controls, None),
    "Mixture of experts": (expert_controls, lambda view: view.is_moe),
    "State space (Mamba)": (ssm_controls, lambda view: bool(view.ssm_layers)),
    "Linear attention": (linear_attention_controls, lambda view: bool(view.linear_attention_layers)),
    "Short convolutions (LFM2)": (short_conv_controls, lambda view: bool(view.short_conv_layers)),
    "mLSTM (xLSTM)": (mlstm_controls, lambda view: bool(view.mlstm_layers)),
    "Recurrent units": (recurrent_controls, lambda view: view.recurrent_units > 0),
}
CONTROL_FIELDS = tuple(dict.fromkeys(name for names in SECTIONS.values() for name in names))
#: Session-state keys: whether Size is open; the sections picked in More controls; the every-model sections picked,
#: kept for the next model.
SIZE_OPEN, MORE_OPEN, MORE_KEPT = "sec.Size", "sec.more", "sec.kept"


class Spot:
    """Shows the blocking error right under the control it concerns (or at the end when none shows it)."""

    def __init__(self, error: str, field: str, model: Model) -> None:
        self.error, self.field, self.shown, self.model = error, field, False, model
        self.edited = {link.link_key(model, key) for key in model.edits}  # the controls the edits moved

    def fixed(self, name: str) -> bool:
        """Whether the family's classes fix ``name`` (no key of the config can change it)."""
        return self.model.family.key_for(name, self.model.config) is None

    def names(self, name: str) -> bool:
        """Whether the error is about control ``name`` (by its field or by the family's key for it)."""
        return self.field in (name, self.model.family.key_for(name, self.model.config))

    def names_any(self, names: tuple[str, ...]) -> bool:
        return any(self.names(name) for name in names)

    def after(self, name: str, label: str = "") -> None:
        """Where the value comes from (after ``label``, for a control drawn elsewhere), and the error that blocks this
        control's edit."""
        text = self.model.origin_of(name).text
        st.caption(f"{label}: {text}" if label else text)
        if self.error and self.names(name):
            st.error(f"Pending: {quoted(self.error)}", icon=":material/error:")
            self.shown = True
            self.offer(name)

    def offer(self, name: str) -> None:
        """A button with the nearest value that makes the pending edits valid, for the control that moved."""
        pending = st.session_state.get("pending", {})
        moved = name if name in pending else next(iter(pending), "") if len(pending) == 1 else ""
        nearest = link.nearest_valid(self.model, pending, moved) if moved else None
        heads = link.heads_for_width(self.model, pending) if moved == "hidden_size" else None
        if heads is not None:  # the fix people mean: as many heads of today's size as the width holds
            size = self.model.spec.head_size
            label = f"Use {heads} heads of {size} (hidden_size {pending[moved]:,})"
            st.button(label, key=f"x_heads_{name}", on_click=_use_value, args=("num_attention_heads", heads))
        if nearest is not None:
            label = f"Use {moved} = {nearest:,}, the nearest valid value"
            st.button(label, key=f"x_nearest_{name}", on_click=_use_value, args=(moved, nearest), type="secondary")

    def rest(self) -> None:
        if self.error and not self.shown:
            st.error(quoted(self.error), icon=":material/error:")


def _use_value(name: str, value: int) -> None:
    st.session_state[WIDGET + name] = value
    moved(WIDGET + name)


def _label(text: str, name: str) -> str:
    """A control's label and its field, as plain text: Streamlit also makes the label the control's accessible name,
    where Markdown's backticks would be read aloud."""
    return f"{text} · {name}"


def _current(name: str) -> Any:
    """Put the model's value into a control that has none yet (first run, new preset, re-shown control), and return
    what the control holds. Each control passes it as its widget's own default: the browser starts a widget it
    re-creates (after a rerun that did not draw it) from that default and sends it back as a move, so the default must
    be what the model holds (a toggle off: bench/many_users.py --mixed ended sessions untied). Streamlit keys these
    widgets by ``key`` alone, so the default changing makes no new widget. The whole-number boxes keep an empty
    default: Streamlit reads a box the person empties as its default, and an emptied box deletes the key."""
    key = WIDGET + name
    if key not in st.session_state:
        st.session_state[key] = control_value(st.session_state.model, name)
    return st.session_state[key]


def number(
    name: str,
    text: str,
    help: str,
    show: Spot,
    *,
    disabled: bool = False,
    slider: list[int] | None = None,
    step: int = 1,
) -> None:
    """A whole-number control: the exact box (its + and − move by ``step``; any value can be typed), or, when
    ``slider`` is given, a slider over sensible steps (its exact box is in Exact sizes: ``exact_box``)."""
    value = _current(name)
    off = disabled or show.fixed(name)
    if slider:
        steps(name, _label(text, name), slider, int(value or 0), help, off, lambda v: f"{v:,}")
        return
    whole_number_box(_label(text, name), step, name, help=help, disabled=off)
    show.after(name)


def exact_box(name: str, text: str, show: Spot, *, step: int = 1) -> None:
    """The exact box of a slider's control (its + and − move by ``step``), and where its value comes from."""
    whole_number_box(
        _label(f"{text}, exact", name),
        step,
        name,
        help="Any value can be typed; emptied, the key is deleted and the model's class derives or defaults it.",
        disabled=show.fixed(name),
    )
    show.after(name)


def whole_number_box(label: str, step: int, name: str, **options: Any) -> None:
    """The exact box of a whole-number control, without bounds of its own: the browser refuses a value outside a
    box's bounds without a word, so every value typed reaches ``apply_controls``, whose refusal names the field. A
    float box shown without decimals, so that the browser reads "1e5" as 100,000 (an int box reads 1); it may be
    emptied (``value=None``), which deletes the key, as transformers reads a config without it. ``apply_controls``
    refuses a fraction, naming the field."""
    _current(name)  # the box shows what the model holds
    st.number_input(
        label,
        value=None,  # a box the person empties must read as empty (Streamlit reads an empty box as this default)
        step=float(step),
        format="%.0f",
        key=WIDGET + name,
        on_change=moved,
        args=(WIDGET + name,),
        **options,
    )


SLIDER = "s."  # session-state key prefix of the sliders that step a control (the box holds the exact value)


def steps(
    name: str, label: str, options: list, value: object, help: str, disabled: bool, fmt: Callable[[Any], str]
) -> None:
    """A slider over ``options`` that writes the control's exact box (key ``WIDGET + name``) when moved."""
    key = SLIDER + name
    shown = sorted({*options, value})
    st.session_state[key] = value  # follows the box (a typed value, a preset, an edit elsewhere)
    st.select_slider(
        label,
        shown,
        value=value,
        key=key,
        format_func=fmt,
        help=help,
        disabled=disabled,
        on_change=_stepped,
        args=(name,),
    )


def _stepped(name: str) -> None:
    target = "f_ffn_multiplier" if name == "ffn_multiplier" else WIDGET + name
    st.session_state[target] = st.session_state[SLIDER + name]
    if name == "ffn_multiplier":
        _multiplier_moved()
    else:
        moved(target)


#: Vocabulary sizes of released models (and round numbers), the vocabulary slider's steps.
VOCABS = (
    1_000, 2_048, 4_096, 8_192, 16_384, 32_000, 32_768, 50_257, 50_304, 65_536, 100_352, 128_256, 131_072,
    151_936, 163_840, 201_088, 256_000, 262_144, 1_000_000,
)  # fmt: skip


def vocab_steps(value: int) -> list[int]:
    return [v for v in VOCABS if v <= LIMITS["vocab_size"]]


def width_rule(model: Model) -> str:
    """How the width slider steps: multiples that keep every head whole (head_dim derived) or of 64 (stated)."""
    step, stated = width_step(model)
    if stated:
        return f"head_dim is stated, so steps of {step}"
    return f"steps of {step} = {model.spec.num_attention_heads} heads × 8"


def width_step(model: Model) -> tuple[int, bool]:
    """The width slider's step, and whether the config states head_dim (then the heads need not divide the width,
    unless the config class checks it anyway: a multiple of 64 and of the heads)."""
    spec = model.spec
    stated = model.origin_of("head_dim").kind == "stated" or spec.is_mla or not spec.has_attention
    heads = max(spec.num_attention_heads, 1)
    if not stated:
        return heads * 8, False
    return (math.lcm(64, heads) if model.family.checks_width else 64), True


def width_steps(model: Model) -> list[int]:
    """Widths the slider offers: multiples of the step up to four times the current width (at most 400)."""
    step = width_step(model)[0]
    top = min(max(4 * model.spec.hidden_size, 16_384), LIMITS["hidden_size"])
    while top // step > 400:
        step *= 2
    return list(range(step, top + 1, step))


def optional(name: str, text: str, help: str, placeholder: str, show: Spot, *, off: bool = False) -> None:
    """A size that may be left empty to derive it (``None``), as transformers does (``off``: no parameter reads it)."""
    whole_number_box(_label(text, name), 1, name, help=help, placeholder=placeholder, disabled=show.fixed(name) or off)
    show.after(name)


def switch(name: str, text: str, help: str, show: Spot, *, disabled: bool = False, origin: bool = True) -> None:
    st.toggle(
        _label(text, name),
        value=_current(name),
        key=WIDGET + name,
        on_change=moved,
        args=(WIDGET + name,),
        help=help,
        disabled=disabled or show.fixed(name),
    )
    if origin:
        show.after(name)


def choice(name: str, text: str, options: list[str], names: dict[str, str], help: str, show: Spot) -> None:
    value = _current(name)
    st.selectbox(
        _label(text, name),
        options,
        index=options.index(value) if value in options else 0,
        key=WIDGET + name,
        on_change=moved,
        args=(WIDGET + name,),
        format_func=lambda o: names.get(o, o),
        help=help,
        disabled=show.fixed(name),
    )
    show.after(name)


def layers_slider(view: Spec, show: Spot) -> None:
    """The depth, 0 to a power of two at least twice it (where its value comes from is said in Exact sizes)."""
    name = "num_hidden_layers"
    value = int(_current(name))
    top = 128  # wide enough to drag to any common depth; arrow keys move it by one
    while top < 2 * value:
        top *= 2
    text = "Encoder layers" if view.is_encoder_decoder else "Layers"
    st.slider(
        _label(text, name),
        0,
        top,
        value=value,
        key=WIDGET + name,
        on_change=moved,
        args=(WIDGET + name,),
        help="Transformer blocks in the stack. Arrow keys move it by one.",
        disabled=show.fixed(name),
    )


def multiplier(view: Spec) -> float:
    """The FFN multiplier the controls show: the intermediate size over the hidden size, to four decimals."""
    return round(view.ffn_size / view.hidden_size, 4) if view.hidden_size else 0.0


def multiplier_slider(view: Spec, show: Spot) -> None:
    """The FFN multiplier in quarters; it sets the intermediate size (its exact boxes are in Exact sizes). Where a
    mixture of experts leaves no parameter depending on the intermediate size (every layer's experts have their own
    width), it is off and says so; a dense model keeps it, its layers' width once it has any."""
    ratio = multiplier(view)
    _show_multiplier(ratio, show)
    multipliers = [m / 4 for m in range(2, 33)]  # 0.5 to 8 in quarters
    unused = _ffn_off(view, show)
    steps(
        "ffn_multiplier",
        "FFN multiplier (× hidden size)",
        multipliers,
        ratio,
        "Sets the intermediate size to this multiple of the hidden size (rounded); type any multiple in the box "
        "under Exact sizes.",
        show.fixed("intermediate_size") or unused,
        lambda v: f"×{v:g}",
    )
    if unused:
        st.caption(FFN_OFF)


#: Why the FFN controls are off for a mixture of experts whose layers never read intermediate_size.
FFN_OFF = (
    "No layer of this model uses intermediate_size: its experts have their own width (moe_intermediate_size, under "
    "Mixture of experts)."
)


def _ffn_off(view: Spec, show: Spot) -> bool:
    """Whether the FFN controls are off: a mixture of experts whose layers never read intermediate_size."""
    return view.is_moe and not show.fixed("intermediate_size") and ffn_unused(show.model)


@lru_cache(maxsize=256)
def ffn_unused(model: Model) -> bool:
    """Whether no parameter of ``model`` depends on its intermediate size (one more of it counts the same)."""
    try:
        return model.edit(intermediate_size=model.spec.ffn_size + 1).summary.total == model.summary.total
    except SpecError:  # a width the model refuses one wider: it is read
        return False


def ffn_boxes(view: Spec, show: Spot) -> None:
    """The FFN multiplier's exact box and the exact intermediate size, two views of one field kept consistent."""
    ratio = multiplier(view)
    _show_multiplier(ratio, show)
    off = _ffn_off(view, show)
    st.number_input(
        "FFN multiplier, exact",
        value=ratio,  # no bounds: a value the browser would refuse silently is refused naming the field
        step=0.25,
        format="%.2f",
        key="f_ffn_multiplier",
        on_change=_multiplier_moved,
        disabled=show.fixed("intermediate_size") or off,
        help="Sets the intermediate size to this multiple of the hidden size (rounded).",
    )
    optional(
        "intermediate_size",
        "Intermediate size (FFN width)",
        "Exact hidden width of the MLP. Empty: what the model's class derives or defaults to.",
        f"{view.ffn_size:,} ({show.model.origin_of('intermediate_size').kind})",
        show,
        off=off,
    )
    if off:
        st.caption(FFN_OFF)


def _show_multiplier(ratio: float, show: Spot) -> None:
    """The multiplier the model has, unless the width it asked for is refused: then what was typed stays."""
    if not (show.error and show.names("intermediate_size") and "f_ffn_multiplier" in st.session_state):
        st.session_state["f_ffn_multiplier"] = ratio


def _multiplier_moved() -> None:
    """The multiplier sets the exact width; back at what the class derives for a width the file never stated (GPT-2's
    4 × n_embd), it empties the box, so the key stays unstated and the width keeps following the hidden size."""
    model: Model = st.session_state.model
    hidden = int(st.session_state.get(WIDGET + "hidden_size") or model.spec.hidden_size)  # a float box, or emptied
    wanted = st.session_state["f_ffn_multiplier"] * hidden  # beyond every limit either way: refused, naming the field
    size: int | None = round(max(min(wanted, 1e15), -1e15))
    key = model.family.key_for("intermediate_size", model.config) if model.has_formulas else None
    if key is not None and model.base.get(key) is None:
        try:
            derived = model.edit(**{"hidden_size": hidden, "intermediate_size": None}).spec.ffn_size
        except SpecError:
            derived = None
        size = None if size == derived else size
    st.session_state[WIDGET + "intermediate_size"] = size
    moved(WIDGET + "intermediate_size")
