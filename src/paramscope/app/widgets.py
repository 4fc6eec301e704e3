"""The guard the model's controls and the run settings share: only a widget the person moved changes anything.

Under load the browser can hand a rerun a widget at its default (a slider's 0, a toggle's false, the first option,
an emptied box) and even send it as a move. Each set of controls notes its real moves (``on_change``) under a key of
its own in the session state, and every other widget showing something else is put back to the value it stands for.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st


def note_moved(moved_key: str, *keys: str) -> None:
    """Note that the person moved these widgets (their keys): the next run takes their values."""
    st.session_state.setdefault(moved_key, set()).update(keys)


def put_back(moved_key: str, values: Mapping[str, object]) -> set[str]:
    """The widget keys the person moved (the set in the session state, cleared by its owner once applied); every
    other widget of ``values`` (widget key -> the value it stands for) that shows something else is put back."""
    touched: set[str] = st.session_state.get(moved_key, set())
    for key, value in values.items():
        if key not in touched and key in st.session_state and st.session_state[key] != value:
            st.session_state[key] = value
    return touched
