"""ParamScope: where do a transformer's parameters go?

`streamlit run app.py`. The page only arranges widgets and draws what the engine returns:
the sidebar picks a preset and edits its fields (Hugging Face names), the main area shows the exact
count, the charts and the table, and the address bar always holds a link that rebuilds the page.
State lives in the URL and in this session's st.session_state, never in module globals.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from paramscope.app import charts, ui_costs, ui_explore, ui_hub
from paramscope.engine import run as run_settings
from paramscope.engine.params import summarize
from paramscope.engine.spec import LIMITS, Spec, SpecError, short, validate
from paramscope.engine.tree import Summary
from paramscope.io import link, presets
from paramscope.model import Model

EMBEDDING_CONVENTION = "embedding = token + position + token-type tables + untied LM head"
NORM_NAMES = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm"}
POSITION_NAMES = {
    "learned": "learned table",
    "rotary": "rotary (RoPE): no parameters",
    "none": "none",
    "alibi": "ALiBi: no parameters",
    "relative": "relative bias (T5)",
    "sinusoidal": "sinusoidal table",
}
TABS = ("Parameters", "Memory", "Compute", "Your model", "Compare", "Architecture", "Why so big?")
TAB_KEY = link.TAB_KEY  # the open tab is part of the link (?tab=Memory, ?tab=Why-so-big) when not the first
RUN_TABS = ("Memory", "Compute", "Compare", "Why so big?")  # the tabs that use the run settings
WIDGET = "f."  # session-state key prefix of the model controls: "f." + Spec field name
#: Sizes a control may leave empty: the key is then deleted and the class derives (or defaults) the value.
CLEARABLE = ("num_key_value_heads", "head_dim", "intermediate_size", "moe_intermediate_size")
DETAILS = "The whole tree, every component and the total's formula"


# ================================================================================================ the page
def page() -> None:
    st.set_page_config(
        page_title="ParamScope", page_icon=":material/data_usage:", layout="wide", initial_sidebar_state="auto"
    )
    st.title("ParamScope", anchor=False)
    st.markdown(
        "**Exact parameter count of a transformer, component by component:** pick a preset, "
        "move a control, share the link."
    )

    restore_from_link_once()
    ui_explore.keep_state()
    error, culprit = apply_controls()
    model: Model = st.session_state.model
    summary = model.summary
    show_link_warnings(model)
    if error:
        st.error(f"Not applied: {error.rstrip('.')}. The page shows the last valid model.", icon=":material/error:")
    link_slot = st.container()  # filled at the end, once the run settings are known

    tabs = st.tabs(TABS, key=TAB_KEY, default=st.session_state.first_tab, on_change="rerun")
    tab = dict(zip(TABS, tabs, strict=True))
    if not model.has_formulas:  # a model type without a family row: transformers' count only
        counted_by_transformers(model, tab)
        with link_slot:
            query = share_link(model, st.session_state.get("run_settings"))
        keep_url_in_sync(query)
        return
    spec = model.spec
    if tab["Parameters"].open:  # only the open tab runs
        with tab["Parameters"]:
            headline_numbers(model, summary)
            if model.hub_id:
                ui_hub.render_checkpoint(model, summary.total)
            breakdown_charts(spec)
            details = st.expander(DETAILS, key="details", on_change="rerun")
            if details.open:  # drawn only while open: it is the heaviest part of the page
                with details:
                    tree_chart(spec)
                    component_table(spec, summary)
            downloads(model, summary)
    with st.sidebar:  # drawn after the numbers, so that they reach the browser first
        preset_picker()
        settings = run_controls(shown=any(tab[name].open for name in RUN_TABS))
        model_controls(error, culprit)
    if tab["Memory"].open:
        with tab["Memory"]:
            cost_tab("render_memory_tab", spec, settings)
    if tab["Compute"].open:
        with tab["Compute"]:
            cost_tab("render_compute_tab", spec, settings)
    if tab["Your model"].open:
        with tab["Your model"]:
            ui_explore.render_upload(on_use=use_uploaded_model)
    if tab["Compare"].open:
        with tab["Compare"]:
            ui_explore.render_compare(model_label(model), spec, settings)
    if tab["Architecture"].open:
        with tab["Architecture"]:
            ui_explore.render_diagram(spec, model_label(model))
    if tab["Why so big?"].open:
        with tab["Why so big?"]:
            ui_explore.render_sweep(spec, model.preset or None, settings)
    with link_slot:
        query = share_link(model, settings)
    keep_url_in_sync(query)


def counted_by_transformers(model: Model, tab: dict) -> None:
    """The page for a model type without a family row: transformers' count and module tree; no controls."""
    if tab["Parameters"].open:
        with tab["Parameters"]:
            ui_hub.render_counted_by_transformers(model, on_use=use_model)
            if model.hub_id:
                ui_hub.render_checkpoint(model, model.summary.total)
    with st.sidebar:
        preset_picker()
        st.caption("No controls: this model type has no family row (formulas). Pick a preset to edit a model.")
    if tab["Your model"].open:
        with tab["Your model"]:
            ui_explore.render_upload(on_use=use_uploaded_model)
    for name in TABS:
        if name not in ("Parameters", "Your model") and tab[name].open:
            with tab[name]:
                st.info(
                    f"{name} needs the formulas of a family row, and {model.model_type} has none yet: only its "
                    "exact parameter count (by transformers) is shown. Pick a preset or another model.",
                    icon=":material/info:",
                )


# ============================================================================================= state
def restore_from_link_once() -> None:
    """On a session's first run, rebuild the model (and run settings) from the address bar's query."""
    if "model" in st.session_state:
        return
    query = st.query_params.to_dict()
    model, warnings = link.model_from_query(query)
    explore = ui_explore.restore_from_query(query)  # compare and sweep choices; a whole model under x_spec
    if explore.model is not None:
        model, warnings = link.edits_from_query(explore.model, query, [])
    if link.HUB_KEY in query:  # ?hf=ORG/NAME&revision=REV plus edits
        try:
            hub_model = ui_hub.model_from_hub(query[link.HUB_KEY], query.get(link.REVISION_KEY, "main"))
        except ValueError as exc:
            warnings.append(f"{exc}; showing {model_label(model)} instead")
        else:
            model, warnings = link.edits_from_query(hub_model, query, [])
    st.session_state.preset = picker_value(model)
    st.session_state.model = st.session_state.link_model = model
    warnings += explore.warnings
    settings, run_warnings = run_settings.settings_from_query(query)
    st.session_state.run_settings = settings
    warnings += run_warnings
    tab = tab_from_link(query.get(TAB_KEY, TABS[0]))
    st.session_state.first_tab = tab or TABS[0]
    if tab is None:
        warnings.append(f"{TAB_KEY}: no tab named {query[TAB_KEY][:40]!r}; showing {TABS[0]}")
    st.session_state.link_warnings = warnings


def tab_slug(name: str) -> str:
    """A tab's name as a link writes it: no spaces or question marks ("Why so big?" -> "Why-so-big")."""
    return "-".join(name.replace("?", "").split())


def tab_from_link(text: str) -> str | None:
    """The tab a link names, by its slug or its name, in any letter case (``None`` when there is none)."""
    wanted = tab_slug(str(text)).casefold()
    return next((name for name in TABS if tab_slug(name).casefold() == wanted), None)


def use_uploaded_model(text: str) -> None:
    """The Your model tab's button: show the uploaded model on every tab, with every control."""
    use_model(ui_explore.model_from_upload(text))


def use_model(model: Model) -> None:
    """Show ``model`` on every tab, with every control (an upload, a multimodal config's language model)."""
    st.session_state.model = model
    st.session_state.preset = picker_value(model)
    clear_controls()
    st.toast(f"Now showing your {model.model_type} model on every tab.", icon=":material/check_circle:")


def model_label(model: Model) -> str:
    """The model in view, as the comparison names models: the preset, marked when the controls changed it."""
    name = model.preset or model.hub_id or f"your {model.model_type} model"
    return name if not model.edits else f"{name} (edited)"


def load_preset() -> None:
    """The picker moved: start from the preset or the Hub model it names; every control re-reads it.

    A Hub id that cannot be read keeps the model in view and says why under the picker.
    """
    wanted = str(st.session_state.preset or "").strip()
    st.session_state.hub_error = ""
    name = presets.named(wanted)
    try:
        if name:
            model = presets.model(name)
        elif "/" in wanted:
            model = ui_hub.model_from_hub(*ui_hub.parse_target(wanted))
        else:
            raise ValueError(f"no preset named {wanted[:60]!r}; a Hugging Face id is ORG/NAME, e.g. Qwen/Qwen3-8B")
    except ValueError as exc:
        st.session_state.hub_error = str(exc)
        st.session_state.preset = picker_value(st.session_state.model)
        return
    st.session_state.model = model
    st.session_state.preset = picker_value(model)
    clear_controls()


def clear_controls() -> None:
    """Every model control re-reads the session's model on its next draw."""
    for key in [k for k in st.session_state if str(k).startswith(WIDGET)]:
        del st.session_state[key]


def show_link_warnings(model: Model) -> None:
    """Problems with the link the page was opened with, shown until the model is changed."""
    if st.session_state.get("link_model") != model:
        st.session_state.link_warnings = []
    for warning in st.session_state.get("link_warnings", []):
        st.warning(f"Link: {warning}", icon=":material/link:")


def share_link(model: Model, settings: object) -> dict[str, str]:
    """The query that rebuilds this page, and the full address with a copy button.

    The model is the preset plus the edited keys, or the whole config encoded (``x_spec``) plus the edits
    for a model that started elsewhere (an upload); then the run settings, the explore tabs' choices, the tab.
    """
    query = ui_explore.upload_link(model)
    query.update(run_settings.settings_to_query(settings))
    query.update(ui_explore.current_query())
    tab = st.session_state.get(TAB_KEY) or st.session_state.first_tab
    if tab != TABS[0]:
        query[TAB_KEY] = tab_slug(tab)
    base = (st.context.url or "").split("?", 1)[0]
    base = base if not base or base.endswith("/") else base + "/"
    st.caption("Link to exactly this model (copy button on the right):")
    st.code(f"{base}?{urlencode(query)}", language=None, wrap_lines=True)
    return query


def keep_url_in_sync(query: dict[str, str]) -> None:
    """The address bar always shows the link to what is on screen (only when it changed).

    One ``st.query_params.from_dict`` per change: one browser history entry, keys in a fixed order. Widget
    ``bind="query-params"`` does not serve here: it clamps or silently drops a bad value (a link must warn
    and keep the preset's value), lets the URL win over code on the first run (so a combination such as
    heads that do not divide the width could not be refused), and a bound key cannot be written through
    ``st.query_params``, so the link could no longer be written in one piece.
    """
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)


# ============================================================================================ sidebar
def preset_picker() -> None:
    """One search box: a preset by name, family or Hub name, or any Hub id ``ORG/NAME`` (``@REVISION``) typed in."""
    model: Model = st.session_state.model
    names = [n for members in presets.by_family().values() for n in members]
    if st.session_state.preset not in names:
        names.insert(0, st.session_state.preset)
    st.selectbox(
        "Model: a preset or a Hugging Face id",
        names,
        key="preset",
        format_func=preset_label,
        on_change=load_preset,
        accept_new_options=True,
        help="Type to search presets by family, name or Hub name (qwen3 8b), or type any Hub id such as "
        "Qwen/Qwen3-8B (add @REVISION for a branch, tag or commit) and press Enter: only its config.json is "
        "read. Every preset is a real config.json, its count checked against transformers in the tests.",
    )
    if st.session_state.get("hub_error"):
        st.error(st.session_state.hub_error, icon=":material/cloud_off:")
    if model.hub_id:
        at = f" @ {model.revision}" if model.revision != "main" else ""
        st.caption(f"From the Hub: [{model.hub_id}](https://huggingface.co/{model.hub_id}){at} · config.json only")
        return
    if not model.preset:
        st.caption(f"Your {model.model_type} model (from the Your model tab or a link)")
        return
    p = presets.get(model.preset)
    source = f"[source]({p.source})" if p.source.startswith("https://") else p.source
    st.caption(f"{p.title} · {p.family} · {source}")


def preset_label(name: str) -> str:
    """A picker entry: family, title and Hub name of a preset (so that typing any of them finds it)."""
    if name not in presets.names():
        return name
    p = presets.get(name)
    return f"{p.family} › {p.title}" + (f" · {p.hub_id}" if p.hub_id else "")


def picker_value(model: Model) -> str:
    """What the picker shows for a model: its preset, its Hub id (with ``@revision``), or a label."""
    if model.hub_id:
        return model.hub_id + (f"@{model.revision}" if model.revision != "main" else "")
    return model.preset or f"your {model.model_type} model"


def apply_controls() -> tuple[str, str]:
    """Turn the controls' values (already in the session state when the script starts) into edits of the
    config: only the controls that moved write their key, so everything else stays as stated or derived.

    Returns the error that blocks an impossible edit and the field it names; the last valid model stays.
    """
    model: Model = st.session_state.model
    if not model.has_formulas:  # counted by transformers: no controls
        return "", ""
    edits = {
        name: st.session_state[WIDGET + name]
        for name in CONTROL_FIELDS
        if WIDGET + name in st.session_state and st.session_state[WIDGET + name] != control_value(model, name)
    }
    if not edits:
        return "", ""
    try:
        edited = model.edit(**edits)
    except SpecError as exc:
        st.session_state.pending = edits  # what the controls ask for, to offer the nearest valid value
        return str(exc), exc.field
    st.session_state.model = edited
    for name in CONTROL_FIELDS:  # derived values follow the edit (GPT-2's MLP width follows its width)
        if WIDGET + name in st.session_state and name not in edits:
            st.session_state[WIDGET + name] = control_value(edited, name)
    return "", ""


def control_value(model: Model, name: str) -> object:
    """What a control shows: the value, or nothing for a size the config leaves to derive (or default)."""
    if name in CLEARABLE and model.origin_of(name).kind in ("derived", "default"):
        return None
    return getattr(model.spec, name)


def model_controls(error: str, culprit: str) -> None:
    """Every control in plain words with its Hugging Face name; an error shows under the control it names."""
    model: Model = st.session_state.model
    show = Spot(error, culprit, model)
    view = model.spec

    st.subheader("Size", anchor=False)
    number(
        "vocab_size",
        "Vocabulary size",
        "Rows of the token embedding (and of an untied LM head). The slider steps through common vocabularies; "
        "type any size in the box.",
        show,
        slider=vocab_steps(view.vocab_size),
    )
    number(
        "hidden_size",
        "Hidden size (embedding width)",
        "Width of every token vector between blocks. The slider keeps every head whole "
        f"({width_rule(show.model)}); type any width in the box.",
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
            minimum=0,
        )

    st.subheader("Attention", anchor=False)
    if not view.has_attention:
        st.caption("This model has no attention.")
    elif view.is_mla:
        number("num_attention_heads", "Attention heads", "Query heads per layer.", show)
        st.caption("Multi-head latent attention: its low-rank sizes stay as in the preset.")
    else:
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
            maximum=heads,
        )
        derived = f"hidden ÷ heads ({view.hidden_size // heads})" if view.hidden_size % heads == 0 else "not whole"
        optional("head_dim", "Head dim", "Width of one head. Empty: hidden size ÷ heads.", derived, show)
        switch("attention_bias", "Attention biases", "Bias vectors on the query, key and value projections.", show)

    st.subheader("Feed-forward", anchor=False)
    if view.is_moe and view.num_moe_layers == view.num_hidden_layers:
        st.caption("Every layer uses experts: see *Mixture of experts* below (an expert's width may follow this).")
    ffn_controls(view, show)
    switch("mlp_gated", "Gated MLP (SwiGLU / GeGLU)", "A third matrix, gate_proj, multiplies the up projection.", show)
    switch("mlp_bias", "MLP biases", "Bias vectors on the feed-forward projections.", show)

    st.subheader("Norms and embeddings", anchor=False)
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
    switch(
        "tie_word_embeddings",
        "Tie LM head to embedding",
        "The output projection reuses the token embedding, so it is counted once.",
        show,
        disabled=not view.lm_head,
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
        minimum=0,
    )

    with st.expander("Mixture of experts", expanded=view.is_moe):
        number("num_experts", "Experts", "Routed expert MLPs per MoE layer; 0 is a dense model.", show, minimum=0)
        if view.is_moe:
            number(
                "num_experts_per_tok",
                "Experts per token",
                "How many experts each token is routed to.",
                show,
                maximum=max(view.num_experts, 1),
            )
            optional(
                "moe_intermediate_size",
                "Expert intermediate size",
                "Hidden width of one expert MLP.",
                f"same as intermediate size ({view.ffn_size})",
                show,
                minimum=0,
            )
    with st.expander("Recurrent units", expanded=view.recurrent_units > 0):
        number(
            "recurrent_units",
            "Recurrent units per channel",
            "A small RNN of this hidden size on every embedding channel, in every block (teaching model).",
            show,
            minimum=0,
        )
    show.rest()


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
CONTROL_FIELDS = (
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_decoder_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "attention_bias",
    "intermediate_size",
    "mlp_gated",
    "mlp_bias",
    "norm_type",
    "norm_bias",
    "tie_word_embeddings",
    "position_embedding",
    "max_position_embeddings",
    "num_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "recurrent_units",
)


class Spot:
    """Shows the blocking error right under the control it concerns (or at the end when none shows it)."""

    def __init__(self, error: str, field: str, model: Model) -> None:
        self.error, self.field, self.shown, self.model = error, field, False, model

    def fixed(self, name: str) -> bool:
        """Whether the family's classes fix ``name`` (no key of the config can change it)."""
        return self.model.family.key_for(name, self.model.config) is None

    def after(self, name: str) -> None:
        """Where the value comes from, and the error that blocks this control's edit."""
        st.caption(self.model.origin_of(name).text)
        key = self.model.family.key_for(name, self.model.config)
        if self.error and self.field in (name, key):
            st.error(f"Pending: {self.error}", icon=":material/error:")
            self.shown = True
            self.offer(name)

    def offer(self, name: str) -> None:
        """A button with the nearest value that makes the pending edits valid, for the control that moved."""
        pending = st.session_state.get("pending", {})
        moved = name if name in pending else next(iter(pending), "") if len(pending) == 1 else ""
        nearest = link.nearest_valid(self.model, pending, moved) if moved else None
        if nearest is not None:
            label = f"Use {moved} = {nearest:,}, the nearest valid value"
            st.button(label, key=f"x_nearest_{name}", on_click=_use_value, args=(moved, nearest), type="secondary")

    def rest(self) -> None:
        if self.error and not self.shown:
            st.error(self.error, icon=":material/error:")


def _use_value(name: str, value: int) -> None:
    st.session_state[WIDGET + name] = value


def _label(text: str, name: str) -> str:
    return f"{text} · `{name}`"


def _current(name: str) -> object:
    """Put the model's value into a control that has none yet (first run, new preset, re-shown control)."""
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
    minimum: int = 1,
    maximum: int | None = None,
    disabled: bool = False,
    slider: list[int] | None = None,
) -> None:
    """A whole-number control: the exact box, with a slider over sensible steps above it when ``slider`` is given."""
    value = _current(name)
    top = max(maximum or LIMITS[name], int(value or 0))
    off = disabled or show.fixed(name)
    if slider:
        steps(name, _label(text, name), slider, int(value or 0), help, off, lambda v: f"{v:,}")
    st.number_input(
        _label(f"{text}, exact", name) if slider else _label(text, name),
        min_value=min(minimum, int(value or 0)),
        max_value=top,
        step=1,
        key=WIDGET + name,
        help=None if slider else help,
        disabled=off,
        label_visibility="collapsed" if slider else "visible",  # the slider above carries the label
    )
    show.after(name)


SLIDER = "s."  # session-state key prefix of the sliders that step a control (the box holds the exact value)


def steps(
    name: str, label: str, options: list, value: object, help: str, disabled: bool, fmt: Callable[[Any], str]
) -> None:
    """A slider over ``options`` that writes the control's exact box (key ``WIDGET + name``) when moved."""
    key = SLIDER + name
    shown = sorted({*options, value})
    st.session_state[key] = value  # follows the box (a typed value, a preset, an edit elsewhere)
    st.select_slider(
        label, shown, key=key, format_func=fmt, help=help, disabled=disabled, on_change=_stepped, args=(name,)
    )


def _stepped(name: str) -> None:
    target = "f_ffn_multiplier" if name == "ffn_multiplier" else WIDGET + name
    st.session_state[target] = st.session_state[SLIDER + name]
    if name == "ffn_multiplier":
        _multiplier_moved()


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


def optional(
    name: str, text: str, help: str, placeholder: str, show: Spot, *, minimum: int = 1, maximum: int | None = None
) -> None:
    """A size that may be left empty to derive it (``None``), as transformers does."""
    value = _current(name)
    top = max(maximum or LIMITS[name], int(value or 0))
    st.number_input(
        _label(text, name),
        min_value=min(minimum, int(value or minimum)),
        max_value=top,
        value=None,
        step=1,
        key=WIDGET + name,
        help=help,
        placeholder=placeholder,
        disabled=show.fixed(name),
    )
    show.after(name)


def switch(name: str, text: str, help: str, show: Spot, *, disabled: bool = False) -> None:
    _current(name)
    st.toggle(_label(text, name), key=WIDGET + name, help=help, disabled=disabled or show.fixed(name))
    show.after(name)


def choice(name: str, text: str, options: list[str], names: dict[str, str], help: str, show: Spot) -> None:
    _current(name)
    st.selectbox(
        _label(text, name),
        options,
        key=WIDGET + name,
        format_func=lambda o: names.get(o, o),
        help=help,
        disabled=show.fixed(name),
    )
    show.after(name)


def layers_slider(view: Spec, show: Spot) -> None:
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
        key=WIDGET + name,
        help="Transformer blocks in the stack. Arrow keys move it by one.",
        disabled=show.fixed(name),
    )
    show.after(name)


def ffn_controls(view: Spec, show: Spot) -> None:
    """FFN multiplier and exact intermediate size, two views of one field kept consistent."""
    ratio = round(view.ffn_size / view.hidden_size, 4) if view.hidden_size else 0.0
    st.session_state["f_ffn_multiplier"] = ratio
    multipliers = [m / 4 for m in range(2, 33)]  # 0.5 to 8 in quarters
    steps(
        "ffn_multiplier",
        "FFN multiplier (× hidden size)",
        multipliers,
        ratio,
        "Sets the intermediate size to this multiple of the hidden size (rounded); type any multiple in the box.",
        show.fixed("intermediate_size"),
        lambda v: f"×{v:g}",
    )
    st.number_input(
        "FFN multiplier, exact",
        min_value=0.0,
        max_value=max(1024.0, ratio),
        step=0.25,
        format="%.2f",
        key="f_ffn_multiplier",
        on_change=_multiplier_moved,
        disabled=show.fixed("intermediate_size"),
        help="Sets the intermediate size to this multiple of the hidden size (rounded).",
    )
    optional(
        "intermediate_size",
        "Intermediate size (FFN width)",
        "Exact hidden width of the MLP. Empty: what the model's class derives or defaults to.",
        f"{view.ffn_size:,} ({show.model.origin_of('intermediate_size').kind})",
        show,
        minimum=0,
    )


def _multiplier_moved() -> None:
    hidden = st.session_state.get(WIDGET + "hidden_size", st.session_state.model.spec.hidden_size)
    size = round(st.session_state["f_ffn_multiplier"] * hidden)
    st.session_state[WIDGET + "intermediate_size"] = min(size, LIMITS["intermediate_size"])


# ======================================================================================= main area
def headline_numbers(model: Model, summary: Summary) -> None:
    """The exact total, its short form, embedding vs non-embedding, active per token, change vs preset."""
    spec, preset = model.spec, model_label(model.reset())
    base_total = summarize(model.reset().spec).total
    diff = summary.total - base_total
    delta = f"{diff:+,} ({diff / base_total:+.1%})" if diff and base_total else None
    share = summary.embedding / summary.total if summary.total else 0
    first = st.columns(3)
    first[0].metric(
        "Total parameters",
        f"{summary.total:,}",
        delta=delta,
        delta_color="off",
        help=f"Change against the preset {preset}" if delta else None,
    )
    first[1].metric("Short form", short(summary.total))
    if spec.is_moe:
        first[2].metric(
            "Active per token",
            f"{summary.active:,}",
            help=f"{validate(spec).num_experts_per_tok} of {spec.num_experts} experts per MoE layer. Without the "
            "input embedding table (a looked-up row, as gpt-oss's card counts): "
            f"{summary.active_without_input_embedding:,}",
        )
    else:
        kinds = charts.layer_kinds(summary)
        if len(kinds) == 1:
            first[2].metric("One layer", f"{sum(n for _, n in kinds[0][2]):,}", help="Parameters of one block")
    second = st.columns(3)
    second[0].metric("Embedding", f"{summary.embedding:,}", help=EMBEDDING_CONVENTION)
    second[1].metric("Non-embedding", f"{summary.non_embedding:,}")
    second[2].metric("Embedding share", f"{share:.1%}")
    st.caption(f"Convention: {EMBEDDING_CONVENTION}. Tied weights are counted once.")
    for note in model.notes:
        st.caption(f"Not in this count: {note}.")
    changed = link.changed(model)
    if changed:
        moves = ", ".join(f"`{name}` {before} → {after}" for name, before, after in changed)
        st.caption(f"Changed from **{preset}** (keys of its config.json): {moves}")


def breakdown_charts(spec: Spec) -> None:
    """Where the parameters go (pie), by component (bars), and one layer of each kind when layers differ."""
    pie, bars, layers = figures(spec)
    left, right = st.columns(2)
    left.plotly_chart(pie, config={"displaylogo": False})
    right.plotly_chart(bars, config={"displaylogo": False})
    if layers is not None:
        st.plotly_chart(layers, config={"displaylogo": False})


def tree_chart(spec: Spec) -> None:
    st.plotly_chart(treemap(spec), config={"displaylogo": False})


@st.cache_data(max_entries=256, show_spinner=False)
def figures(spec: Spec) -> tuple:
    summary = summarize(spec)
    return charts.pie(summary), charts.bars(summary), charts.layer_bars(summary)


@st.cache_data(max_entries=256, show_spinner=False)
def treemap(spec: Spec) -> object:
    return charts.treemap(summarize(spec))


def component_table(spec: Spec, summary: Summary) -> None:
    """Every component with its count, share and formula; then the total written out, symbol by symbol."""
    rows = [
        {
            "Component": r.component,
            "Parameters": f"{r.params:,}",
            "Share": f"{r.share:.2f}%",
            "Formula (Hugging Face names)": f"`{r.formula}`",
            "Note": r.note,
        }
        for r in charts.component_rows(summary)
    ]
    st.table(rows, hide_index=True, border="horizontal")
    tex, used = charts.total_latex(summary)
    legend = charts.legend_latex(charts.symbol_values(spec, used))
    st.latex(r"\begin{gathered}" + tex + r"\\[1em]" + legend + r"\end{gathered}")


def downloads(model: Model, summary: Summary) -> None:
    stem = (model.preset or model.model_type) + ("-edited" if model.edits else "")
    a, b, c = st.columns(3)
    a.download_button(
        "Breakdown (CSV)", charts.breakdown_csv(summary), f"{stem}-params.csv", "text/csv", on_click="ignore"
    )
    b.download_button(
        "Breakdown (JSON)",
        charts.breakdown_json(summary, model.preset, ui_explore.upload_link(model)),
        f"{stem}-params.json",
        "application/json",
        on_click="ignore",
    )
    c.download_button(
        "config.json (Hugging Face)",
        json.dumps(model.config, indent=2),
        f"{stem}-config.json",
        "application/json",
        on_click="ignore",
        help="The config the model was read from, with your edits: transformers builds the same total from it.",
    )


def cost_tab(name: str, spec: Spec, settings: object) -> None:
    """A Memory or Compute tab; a setting that does not apply to this model is explained, not a crash."""
    try:
        getattr(ui_costs, name)(validate(spec), settings)
    except ValueError as exc:
        st.error(f"{exc}", icon=":material/error:")


page()
