"""The page's Hub input and the long tail: a model by its Hub id, the checkpoint's own count beside ours, and a
model type without a family row shown as transformers counts it.

Hub answers are cached on the server for an hour and shared by every session (``st.cache_data``), so a popular
link fetches each id and revision once an hour. Only definite answers are cached (a config, no such repo, gated,
no config.json, malformed); a timeout or an unreachable Hub is tried again on the next run. The page never asks for
a token: gated models need the command line with ``HF_TOKEN`` or a pasted config.json.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from paramscope.app.charts import PLOTLY_CONFIG, Number, headline
from paramscope.app.text import quoted
from paramscope.engine.spec import short
from paramscope.families import FAMILIES
from paramscope.families.wholes import NO_LANGUAGE_MODEL
from paramscope.io import hub
from paramscope.model import Model, head_said

HOUR = 3600
#: Failures worth asking the Hub again for on the next run (the others are answers, cached for the hour).
TRANSIENT = frozenset({"offline", "unreachable", "timeout", "rate_limited", "http"})
#: What to do when the Hub cannot answer now.
NEXT_STEP = (
    "Next: try again in a moment, or paste the model's config.json in the Your model tab (it is counted the same way)."
)


def next_step(exc: Exception) -> str:
    """The next step for a failure the Hub may answer later ("" for a definite answer: no such model, gated ...)."""
    return NEXT_STEP if getattr(exc, "kind", "") in TRANSIENT else ""


@st.cache_data(ttl=HOUR, max_entries=512, show_spinner="Reading config.json from the Hugging Face Hub …")
def _config_answer(repo_id: str, revision: str) -> tuple[dict | None, str, str]:
    """``(config, "", "")`` or ``(None, message, kind)`` for a definite failure; a transient one raises."""
    try:
        return hub.fetch_config(repo_id, revision, token=False), "", ""
    except hub.HubError as exc:
        if exc.kind in TRANSIENT:
            raise
        return None, str(exc), exc.kind


@st.cache_data(ttl=HOUR, max_entries=128, show_spinner="Reading the checkpoint's safetensors headers …")
def _checkpoint_answer(repo_id: str, revision: str) -> tuple[hub.CheckpointCount | None, str]:
    """The checkpoint's stored tensors (headers only), or the one-line reason they could not be read."""
    try:
        return hub.checkpoint_tensors(repo_id, revision, token=False), ""
    except hub.HubError as exc:
        return None, str(exc)


def parse_target(text: str) -> tuple[str, str]:
    """``ORG/NAME`` or ``ORG/NAME@REVISION`` as typed into the picker: ``(repo_id, revision)``, both validated."""
    repo_id, _, revision = text.strip().partition("@")
    return hub.validate_repo_id(repo_id), hub.validate_revision(revision or "main")


def model_from_hub(repo_id: str, revision: str = "main") -> Model:
    """The model a Hub repo's config.json builds (cached for an hour across sessions); ``ValueError`` (one line)
    when it cannot be fetched or counted."""
    repo_id, revision = hub.validate_repo_id(repo_id), hub.validate_revision(revision)
    config, message, kind = _config_answer(repo_id, revision)
    if config is None:
        raise hub.HubError(message, kind)
    return Model.from_config(config, origin=f"hub:{repo_id}@{revision}")


def render_checkpoint(model: Model) -> None:
    """The checkpoint's own count beside ours, and why they differ, in an expander (read only when opened)."""
    box = st.expander("The checkpoint's own count, and why it differs", key="x_checkpoint", on_change="rerun")
    if not box.open:
        return
    with box:
        cc, error = _checkpoint_answer(model.hub_id, model.revision)
        if error:
            st.warning(f"Could not read the checkpoint: {quoted(error)}", icon=":material/cloud_off:")
            return
        if cc is None:
            st.info(f"Checkpoint: {hub.NO_SAFETENSORS}.")
            return
        report = hub.model_checkpoint_report(cc, model)
        left, right = st.columns(2)
        left.metric("Stored in the checkpoint", f"{report.stored:,}", help="Tensor elements in its safetensors files")
        right.metric(
            "Counted from config.json", f"{report.model_total:,}", help="The model transformers builds from the config"
        )
        for line in report.lines:
            st.markdown(f"- {quoted(line)}")
        st.caption("Read from the safetensors headers by range requests; no weights were downloaded.")


def render_costs_of_towers(model: Model) -> None:
    """What the costs of a multimodal model counted by transformers are made of (``Model.cost_spec``)."""
    spec = model.cost_spec
    if spec is None or model.has_formulas:
        return
    language = dict(model.towers)["language model"]
    others = [role for role, _ in model.towers if role != "language model"]
    config = model.config
    keys = ("mm_tokens_per_image", "image_seq_length", "vision_soft_tokens_per_image")
    key = next((k for k in keys if isinstance(config.get(k), int) and not isinstance(config[k], bool)), "")
    inputs = "Images" if "vision tower" in others else "Audio clips" if "audio tower" in others else "Its inputs"
    images = (
        f"An image is {config[key]:,} tokens of the context ({key})." if key else f"{inputs} are tokens of the context."
    )
    kinds = [role.removesuffix(" tower") for role in others if role.endswith(" tower")]
    named = [" and ".join(kinds) + (" towers" if len(kinds) > 1 else " tower")] if kinds else []
    named += [role for role in others if not role.endswith(" tower")]  # BLIP-2's Q-Former
    towers = ", ".join(named) if named else "other towers"
    st.caption(
        f"The whole {model.meta.class_name}: its language model ({language.model_type}, with formulas) runs every "
        f"token; the {towers} and the projectors ({spec.towers_params:,} parameters, counted "
        f"{'with formulas' if model.meta.formulas else 'by transformers'}) are weights here, held whole on every "
        f"GPU, but not in the FLOPs, the active parameters or a decode step's reads. {images}"
    )


def what_runs(model: Model) -> str:
    """What the page does with a model counted by transformers, in the one wording every place uses (the Parameters
    tab, the Your model tab and the side panel said three different things)."""
    if model.cost_spec is not None:
        controls = (
            "the side panel edits each tower's sizes in place (the buttons on the Parameters tab load one tower "
            "alone, with every control)"
            if model.counted_by == "towers"
            else "the controls edit one tower at a time (the buttons on the Parameters tab load it)"
        )
        return f"Memory and Compute run on its language model, with the other towers held as weights; {controls}."
    if model.counted_by == "towers":  # a dual encoder (CLIP, SigLIP): towers and their projections, nothing to decode
        return f"It has {NO_LANGUAGE_MODEL}; the side panel edits each tower's sizes in place."
    return (
        "Memory, Compute and the controls need its formulas, which this type has not; edit its config.json in the "
        "Your model tab."
    )


def _nested_width(model: Model) -> str:
    """A nested name the whole's formulas use: its first non-text tower's width (``audio_config.d_model``)."""
    for key, sub in model.meta.sub_configs.items():
        family = FAMILIES.get(sub.get("model_type"))
        if key != "text_config" and family is not None:
            return f"{key}.{family.key_for('hidden_size', sub) or 'hidden_size'}"
    return "text_config.hidden_size"


def render_whole_or_long_tail(model: Model, on_use: Callable[[Model], None]) -> None:
    """A config no single row reads: a whole model composed from its towers' rows (formulas in the nested names), or
    transformers' own count of a type without a row; the count, the towers, the module tree (repeated layers
    folded)."""
    meta = model.meta
    s = meta.summary
    if meta.formulas:
        st.info(
            f"**{quoted(model.model_type)}** is a whole model, **counted with formulas**: {meta.class_name} as its "
            f"towers' rows and its projector compose it (the formulas use the config's nested names, "
            f"`{_nested_width(model)}`). " + what_runs(model),
            icon=":material/info:",
        )
    else:
        why = (
            "has a family row that cannot describe this config (the first note below says why)"
            if model.notes[:1] and model.notes[0].startswith("no formulas:")
            else "has no family row here"
        )
        st.info(
            f"**{quoted(model.model_type)}** {why}, so it is **counted by transformers, no formulas**: "
            f"{meta.class_name} built on the meta device (no memory, no weights). " + what_runs(model),
            icon=":material/info:",
        )
    numbers = [
        Number("Total parameters", f"{s.total:,}", short(s.total), f"sum(p.numel()) of {meta.class_name}"),
        Number("Embedding", f"{s.embedding:,}", tip="nn.Embedding tables + an untied output head"),
        Number("Non-embedding", f"{s.non_embedding:,}"),
    ]
    st.html(headline([numbers]))
    for note in model.notes:
        st.caption(quoted(note))
    for role, tower in model.towers:
        st.button(
            f"Load the {role} ({tower.model_type}) alone",
            key=f"x_tower_{tower.origin}",
            on_click=on_use,
            args=(tower,),
            help=f"Loads the config's {tower.origin}{head_said(role, tower)}: every control, memory, compute and speed "
            "apply to it.",
        )
    rows = [
        {
            "component": "  " * (n.depth() - 1) + n.path,
            "parameters": n.count,
            "share": n.count / s.total if s.total else 0.0,
            "shape": n.shape,
            **({"formula": n.full_formula} if meta.formulas else {}),
            "note": n.note,
        }
        for n in s.tree.walk()
        if n.path
    ]
    top = [n for n in s.tree.children if n.count]
    fig = go.Figure(
        go.Bar(
            x=[n.count for n in top],
            y=[n.path for n in top],
            orientation="h",
            text=[f"{short(n.count)} ({n.count:,})" for n in top],  # each bar with its count
            textposition="auto",
        )
    )
    fig.update_layout(height=120 + 28 * len(top), margin=dict(l=10, r=10, t=30, b=10), title="Top-level modules")
    fig.update_yaxes(autorange="reversed")
    st.plotly_chart(fig, key="x_meta_bars", config=PLOTLY_CONFIG)
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={
            "parameters": st.column_config.NumberColumn(format="localized"),
            "share": st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0),
        },
    )
