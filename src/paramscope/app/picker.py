"""The model picker: one search box for a preset (by name, family or Hub name) or any Hub id."""

from __future__ import annotations

import streamlit as st

from paramscope.app import ui_hub
from paramscope.app.controls import clear_controls
from paramscope.app.text import quoted
from paramscope.io import presets
from paramscope.model import Model


def preset_picker() -> None:
    """One search box: a preset by name, family or Hub name, or any Hub id ``ORG/NAME`` (``@REVISION``) typed in."""
    model: Model = st.session_state.model
    names = [n for members in presets.by_family().values() for n in members]
    if st.session_state.preset not in names:
        names.insert(0, st.session_state.preset)
    st.selectbox(
        "Model: a preset or a Hugging Face id",
        names,
        # what a picker the browser re-creates starts from, and may send back as a move: the model's own entry (the
        # first entry, Qwen2-Audio, ended a session of bench/many_users.py --mixed on another model); Streamlit keys
        # this widget by its key alone, so the index moving makes no new widget
        index=names.index(st.session_state.preset),
        key="preset",
        format_func=preset_label,
        on_change=load_preset,
        accept_new_options=True,
        help="Type to search presets by family, name or Hub name (qwen3 8b), or type any Hub id such as "
        "Qwen/Qwen3-8B (add @REVISION for a branch, tag or commit) and press Enter: only its config.json is "
        "read. Every preset is a real config.json, its count checked against transformers in the tests.",
    )
    if st.session_state.get("hub_error"):
        st.error(quoted(st.session_state.hub_error), icon=":material/cloud_off:")
        if st.session_state.get("hub_next"):
            st.caption(st.session_state.hub_next)
    if model.hub_id:
        at = f" @ {model.revision}" if model.revision != "main" else ""
        st.caption(f"From the Hub: {quoted(model.hub_id)}{quoted(at)} · config.json only")
        return
    if not model.preset:
        st.caption(f"Your {quoted(model.model_type)} model (from the Your model tab or a link)")
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


def load_preset() -> None:
    """The picker moved: start from the preset or the Hub model it names; every control re-reads it.

    A Hub id that cannot be read keeps the model in view and says why under the picker.
    """
    wanted = str(st.session_state.preset or "").strip()
    st.session_state.hub_error = st.session_state.hub_next = ""
    name = presets.named(wanted)
    try:
        if name:
            model = presets.model(name)
        elif "/" in wanted:
            model = ui_hub.model_from_hub(*ui_hub.parse_target(wanted))
        else:
            raise ValueError(f"no preset named {wanted[:60]!r}; a Hugging Face id is ORG/NAME, e.g. Qwen/Qwen3-8B")
    except ValueError as exc:
        st.session_state.hub_error, st.session_state.hub_next = str(exc), ui_hub.next_step(exc)
        st.session_state.preset = picker_value(st.session_state.model)
        return
    st.session_state.model = model
    st.session_state.preset = picker_value(model)
    clear_controls()
