"""Streamlit pieces of the explore tabs: your own config.json, comparison, the architecture drawn, sweeps.

Public (called by app.py; keep stable). Widget keys all start with ``x_``.

* ``render_upload(on_use=None) -> Model | None`` — upload or paste a config.json. Shows what was
  read, the keys the count ignores, and a clear error (the pasted text is kept). Returns the read result
  while the text reads cleanly; ``on_use(result)`` is called (as a button callback, before the rerun)
  when the user clicks "Use this model"; :func:`model_from_upload` turns the pasted text into the model the
  page keeps (its link carries the config, :func:`upload_link`).
* ``render_compare(current_label, current_spec, settings=None) -> list[str]`` — the model in view and one
  or two others; returns the entries of the others (preset names or encoded specs) for the link.
* ``render_diagram(spec, title="") -> None`` — the architecture as Graphviz boxes.
* ``render_sweep(spec, preset=None, settings=None) -> str`` — sweep one dimension; returns it.
* ``keep_state()`` — call at the top of every run so the compare / sweep choices survive a closed tab.

Share link (query keys, all prefixed ``x_`` so they never clash with Spec fields or ``run_*``):

* ``x_cmp`` — the compared models besides the one in view, comma-separated; each a preset name or an
  encoded config (``2.`` + base64url, see :mod:`paramscope.io.encode`);
* ``x_sweep`` — the swept dimension (``layers``, ``width``, ``vocab``, ``experts``) when not ``layers``;
* ``x_spec`` — a whole model's config, encoded (for a model that no preset + edits name: an upload; see
  :func:`upload_link`). When present, the page shows this model instead of ``preset`` + edits.

:func:`explore_query` writes them and :func:`explore_from_query` reads them back (never raising);
:func:`restore_from_query` seeds this module's widgets from a link once per session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from paramscope.analysis.compare import compare
from paramscope.analysis.diagram import to_dot
from paramscope.analysis.sweep import DIMENSIONS, default_values, family_points, field_of, sweep, where_it_goes
from paramscope.app import charts_explore as CX
from paramscope.app import ui_hub
from paramscope.app.charts import PLOTLY_CONFIG
from paramscope.app.text import quoted
from paramscope.engine.components import EMBEDDING_CONVENTION
from paramscope.engine.params import count
from paramscope.engine.spec import Spec, power_of_ten, short, validate
from paramscope.families import listed_types
from paramscope.families.wholes import NO_LANGUAGE_MODEL
from paramscope.io import presets
from paramscope.io.config_json import MAX_CONFIG_BYTES, parse
from paramscope.io.encode import PREFIX, decode_config, encode_config, link_config
from paramscope.model import Model

# ------------------------------------------------------------------------------------- keys
PASTE = "x_paste"  # text area holding the config text (uploaded files are copied in)
_PASTE_SAVED = "x_paste_saved"  # a copy that survives Streamlit dropping an unrendered widget's value
UPLOAD = "x_upload"
_UPLOAD_SEEN = "x_upload_seen"  # file_id of the upload already copied into the text area
USE = "x_use"
CMP = "x_cmp"  # multiselect of compare entries
_CMP_EXTRA = "x_cmp_extra"  # entry -> label for encoded specs (from a link or an upload)
CMP_LOG = "x_cmp_log"
_CMP_LOG_SET = "x_cmp_log_set"  # the user moved the log toggle: it no longer follows the models
#: A log axis by default when one compared model is this many times another (GPT-2 beside Mixtral: 377x), so that
#: the small model's bars are not flattened to the axis.
LOG_RATIO = 30
SWEEP = "x_sweep"
SWEEP_RANGE = "x_sweep_range"
SWEEP_LOG = "x_sweep_log"
_RESTORED = "x_restored"

Q_CMP, Q_SWEEP, Q_SPEC = "x_cmp", "x_sweep", "x_spec"
MAX_COMPARED = 2  # besides the model in view
MAX_ENTRY = 2048

EXAMPLE = """{
  "model_type": "llama",
  "vocab_size": 32000,
  "hidden_size": 2048,
  "intermediate_size": 5632,
  "num_hidden_layers": 22,
  "num_attention_heads": 32,
  "num_key_value_heads": 4,
  "tie_word_embeddings": false
}"""


# ==================================================================================== share link
@dataclass(frozen=True)
class ExploreLink:
    """What a share link says about the explore tabs."""

    model: Model | None = None  # x_spec: a whole model to show instead of preset + edits
    compare: tuple[str, ...] = ()  # x_cmp entries that resolve (preset names or encoded configs)
    sweep: str = "layers"
    warnings: tuple[str, ...] = field(default=())


def _text(value: object) -> str:
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else ""
    return value if isinstance(value, str) else str(value)


def entry_spec(entry: str) -> tuple[str, Spec]:
    """``(label, spec)`` for a compare entry (a preset name or an encoded config); ``ValueError`` otherwise."""
    entry = entry.strip()
    if entry.startswith(PREFIX):
        spec = decode_config(entry).spec
        return f"{spec.model_type} · {short(count(spec).count)} (link)", spec
    if entry in presets.names_with_costs():
        return presets.get(entry).title, presets.load(entry)
    if entry in presets.names():
        raise ValueError(f"{entry!r} has {NO_LANGUAGE_MODEL}")
    raise ValueError(f"{entry[:40]!r} is neither a preset name nor an encoded model")


def explore_query(
    compare_entries: Sequence[str] = (), sweep_dimension: str = "layers", model: Model | None = None
) -> dict[str, str]:
    """The ``x_*`` query parameters for the explore state (only what differs from the defaults)."""
    out: dict[str, str] = {}
    entries = [e for e in compare_entries if e][:MAX_COMPARED]
    if entries:
        out[Q_CMP] = ",".join(entries)
    if sweep_dimension and sweep_dimension != "layers":
        out[Q_SWEEP] = sweep_dimension
    if model is not None:
        out[Q_SPEC] = encode_config(link_config(model))
    return out


def explore_from_query(q: Mapping[str, Any]) -> ExploreLink:
    """The explore state a link holds; bad parts are dropped with a warning, never raised."""
    warnings: list[str] = []
    model = None
    if Q_SPEC in q:
        try:
            model = decode_config(_text(q[Q_SPEC]))
        except ValueError as exc:
            warnings.append(f"{Q_SPEC}: {exc}; showing the preset instead")
    entries: list[str] = []
    if Q_CMP in q:
        raw = _text(q[Q_CMP])[: (MAX_ENTRY + 1) * (MAX_COMPARED + 1)]
        named = [e.strip() for e in raw.split(",") if e.strip()]
        if len(named) > MAX_COMPARED:
            warnings.append(
                f"{Q_CMP}: names {len(named)} or more models; the comparison holds {MAX_COMPARED} beside the one in "
                f"view: the first {MAX_COMPARED} kept"
            )
        for entry in named[:MAX_COMPARED]:
            try:
                entry_spec(entry)
                entries.append(entry)
            except ValueError as exc:
                warnings.append(f"{Q_CMP}: {exc}; left out of the comparison")
    dim = "layers"
    if Q_SWEEP in q:
        wanted = _text(q[Q_SWEEP])
        if wanted in DIMENSIONS:
            dim = wanted
        else:
            warnings.append(f"{Q_SWEEP}: {wanted[:40]!r} is not one of {', '.join(DIMENSIONS)}; sweeping layers")
    return ExploreLink(model, tuple(entries), dim, tuple(warnings))


def restore_from_query(q: Mapping[str, Any]) -> ExploreLink:
    """Seed the compare and sweep widgets from a link, once per session; returns what the link held
    (its ``model`` is for the page to adopt, its ``warnings`` for the page to show)."""
    link = explore_from_query(q)
    state = st.session_state
    if not state.get(_RESTORED):
        state[_RESTORED] = True
        extra = dict(state.get(_CMP_EXTRA, {}))
        for entry in link.compare:
            if entry.startswith(PREFIX):
                extra[entry] = entry_spec(entry)[0]
        state[_CMP_EXTRA] = extra
        state[CMP] = list(link.compare)
        state[SWEEP] = link.sweep
    return link


def forget_restored() -> None:
    """Let :func:`restore_from_query` seed the compare and sweep widgets again (the browser's Back or Forward button
    brought back another link)."""
    st.session_state.pop(_RESTORED, None)


def keep_state() -> None:
    """Call at the top of every run: keeps the compare and sweep choices while their tab is closed.

    Streamlit forgets the value of a widget that a run does not draw (a closed lazy tab); writing the value
    back before the widgets are drawn keeps it for the share link and for when the tab opens again.
    """
    state = st.session_state
    for key in (CMP, CMP_LOG, SWEEP, SWEEP_RANGE, SWEEP_LOG):
        if key in state:
            state[key] = state[key]


def current_query() -> dict[str, str]:
    """The ``x_*`` query parameters for what the explore widgets hold now (for the page's share link)."""
    return explore_query(st.session_state.get(CMP, []), st.session_state.get(SWEEP, "layers"))


def model_from_upload(text: str) -> Model:
    """The model a pasted or uploaded config.json builds, as the page keeps it (its edits start here)."""
    return Model.from_config(parse(text), origin="upload")


def upload_link(model: Model) -> dict[str, str]:
    """The share-link query for the model in view: ``preset`` (or ``hf``) plus its edits when it started from a
    preset (or a Hub id), else its whole config encoded under ``x_spec`` with the edits on top."""
    from paramscope.io import link

    if model.preset or model.hub_id:
        return link.query_from_model(model)
    return {Q_SPEC: encode_config(link_config(model.reset())), **link.query_from_model(model)}


# ======================================================================================== upload
def _explain(message: str) -> None:
    said = message.removeprefix("config: ")  # "Could not read this config: config: malformed JSON" read twice
    st.error(f"Could not read this config: {quoted(said)}", icon="⚠️")
    if message.startswith("model_type:"):
        st.info(
            "ParamScope counts these Hugging Face model types exactly, each checked against transformers: "
            f"{', '.join(listed_types())}. "
            'For any other architecture, set `"model_type": "paramscope"` and describe it with ParamScope\'s '
            "own field names (the Hugging Face ones where they exist), for example:"
        )
        st.code(
            json.dumps(
                {
                    "model_type": "paramscope",
                    "vocab_size": 32000,
                    "hidden_size": 2048,
                    "num_hidden_layers": 16,
                    "num_attention_heads": 16,
                    "mlp_gated": True,
                    "norm_type": "rmsnorm",
                    "position_embedding": "rotary",
                },
                indent=2,
            ),
            language="json",
        )


def _copy_upload() -> None:
    """Copy a newly uploaded file into the text area (before the text area is drawn)."""
    uploaded = st.session_state.get(UPLOAD)
    if uploaded is None or st.session_state.get(_UPLOAD_SEEN) == uploaded.file_id:
        return
    st.session_state[_UPLOAD_SEEN] = uploaded.file_id
    if uploaded.size > MAX_CONFIG_BYTES:
        st.session_state["x_upload_error"] = (
            f"the file is {uploaded.size:,} bytes; a config.json is a few kB (limit {MAX_CONFIG_BYTES:,})"
        )
        return
    raw = uploaded.getvalue()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        st.session_state["x_upload_error"] = f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})"
        return
    st.session_state.pop("x_upload_error", None)
    st.session_state[PASTE] = st.session_state[_PASTE_SAVED] = text


def _paste_example() -> None:
    st.session_state[PASTE] = st.session_state[_PASTE_SAVED] = EXAMPLE


def render_upload(on_use: Callable[[str], None] | None = None) -> Model | None:
    """Upload or paste a config.json; returns the model it builds, or ``None`` (empty or unreadable)."""
    state = st.session_state
    st.file_uploader(
        "Upload a config.json",
        type=["json"],
        key=UPLOAD,
        max_upload_size=1,
        help=f"A Hugging Face config.json (a few kB; limit {MAX_CONFIG_BYTES // 1_000_000} MB). It is read as plain "
        "JSON; nothing in it is executed.",
    )
    _copy_upload()
    if PASTE not in state:
        state[PASTE] = state.get(_PASTE_SAVED, "")
    text = st.text_area(
        "… or paste it here (edit freely: nothing typed is lost)",
        key=PASTE,
        height=240,
        max_chars=MAX_CONFIG_BYTES,
        placeholder=EXAMPLE,
    )
    state[_PASTE_SAVED] = text or ""
    if state.get("x_upload_error"):
        st.error(f"Could not use the uploaded file: {quoted(state['x_upload_error'])}", icon="⚠️")
    if not (text or "").strip():
        st.caption(
            f"Paste a config.json or upload a file (plain JSON, at most {MAX_CONFIG_BYTES // 1_000_000} MB) to count "
            "it; the grey text is an example."
        )
        st.button("Paste the example", key="x_example", on_click=_paste_example)
        return None
    try:
        model = model_from_upload(text)
        summary = model.summary
        ignored = model.ignored
    except ValueError as exc:
        _explain(str(exc))
        return None
    except Exception as exc:  # the page must never crash on input; say what happened
        st.error(f"Could not read this config ({type(exc).__name__}).", icon="⚠️")
        return None

    a, b, c = st.columns(3)
    a.metric("Model type", model.model_type)
    b.metric("Parameters", f"{summary.total:,}", help=f"{short(summary.total)}: every parameter, exactly")
    c.metric("Non-embedding", f"{summary.non_embedding:,}", help=short(summary.non_embedding))
    if not model.has_formulas:
        how = (
            "a whole model, counted from its towers' formulas"
            if model.counted_by == "towers"
            else "counted by transformers"
        )
        st.caption(
            f"{quoted(model.model_type)} is {how} ({quoted('; '.join(model.meta.notes))}): the Parameters tab shows "
            f"its module tree. {ui_hub.what_runs(model)}"
        )
    elif ignored:
        with st.expander(f"{len(ignored)} key(s) in the file do not change the count", expanded=False):
            st.caption(
                "Training settings, token ids, dropout and similar keys hold no parameters; they are listed "
                "so that nothing is dropped silently."
            )
            st.code("\n".join(ignored), language=None)
    else:
        st.caption("Every key in the file was used.")
    if on_use is not None:
        st.button(
            "Use this model",
            key=USE,
            type="primary",
            on_click=on_use,
            args=(text,),
            help="Show this model on every tab, with every control; its link carries the config.",
        )
    return model


# ======================================================================================= compare
#: Columns of counts up to ~1e27, written as powers of ten (as the Compute tab writes them), not as long integers.
_BIG = frozenset({"training_flops", "training_flops_per_token", "training_tokens"})


def _big_as_text(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: (power_of_ten(v) if k in _BIG and isinstance(v, float) else v) for k, v in r.items()} for r in rows]


#: The headline numbers of Compare, in their order, with their names.
HEADLINE = {
    "total": "Total",
    "embedding": "Embedding",
    "non_embedding": "Non-embedding",
    "active": "Active per token",
    "inference_gb": "Inference memory (GB)",
    "training_gb": "Training memory (GB / GPU)",
    "training_flops_per_token": "Training FLOPs / token",
    "training_tokens": "Training tokens",
    "training_flops": "Training FLOPs",
}


def headline_table(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One row a number and one column a model (models side by side fit the page; a column a number ran off it):
    counts with thousands separators, memory in GB to two decimals, FLOPs and tokens as powers of ten."""

    def shown(key: str, v: Any) -> str:
        if v is None:
            return "—"
        if key in _BIG and isinstance(v, float):
            return power_of_ten(v)
        return f"{v:,.2f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v)

    keys = [k for k in HEADLINE if any(k in r for r in rows)]
    return [{"": HEADLINE[k], **{str(r["model"]): shown(k, r.get(k)) for r in rows}} for k in keys]


def _entry_label(entry: str) -> str:
    extra = st.session_state.get(_CMP_EXTRA, {})
    if entry in extra:
        return extra[entry]
    if entry in presets.names():
        p = presets.get(entry)
        return f"{p.family} › {p.title}"
    return entry[:40]


def add_compare_entry(model: Model, label: str) -> str:
    """Offer ``model`` (say, an uploaded one) in the compare picker under ``label``; returns its entry."""
    entry = encode_config(link_config(model))
    extra = dict(st.session_state.get(_CMP_EXTRA, {}))
    extra[entry] = label[:60]
    st.session_state[_CMP_EXTRA] = extra
    return entry


@st.cache_data(max_entries=64, show_spinner=False)
def _comparison(models: tuple[tuple[str, Spec], ...], settings: Any):
    return compare(list(models), settings=settings)


def render_compare(current_label: str, current_spec: Spec, settings: Any = None) -> list[str]:
    """The model in view beside one or two others: totals, bars per component, tables of counts and of
    differing fields, memory and compute. Returns the chosen entries (for the share link)."""
    state = st.session_state
    extra = dict(state.get(_CMP_EXTRA, {}))
    options = [*extra, *presets.names_with_costs()]
    chosen = [e for e in state.get(CMP, []) if e in options]
    if chosen != state.get(CMP):
        state[CMP] = chosen
    picked = st.multiselect(
        f"Compare {current_label} with (up to {MAX_COMPARED})",
        options,
        default=chosen,  # what the browser starts a re-created widget from (and may send back): what is chosen
        key=CMP,
        max_selections=MAX_COMPARED,
        format_func=_entry_label,
        placeholder="Pick one or two presets",
    )
    if not picked:
        st.info("Choose one or two models to put beside this one.")
        return []
    models: list[tuple[str, Spec]] = [(current_label, validate(current_spec))]
    for entry in picked:
        try:
            label, spec = entry_spec(entry)
        except ValueError as exc:
            st.warning(f"Left out: {quoted(exc)}")
            continue
        models.append((extra.get(entry, label), spec))
    if len(models) < 2:
        return list(picked)
    try:
        c = _comparison(tuple(models), settings)
    except ValueError as exc:
        st.error(f"Cannot compare: {quoted(exc)}", icon="⚠️")
        return list(picked)

    cols = st.columns(len(c.labels))
    for col, label, s in zip(cols, c.labels, c.summaries, strict=True):
        col.metric(label, short(s.total), help=f"{s.total:,} parameters")
        col.caption(f"non-embedding {short(s.non_embedding)} · active/token {short(s.active)}")
    if not state.get(_CMP_LOG_SET):
        state[CMP_LOG] = max(c.totals) >= LOG_RATIO * min(c.totals)
    log = st.toggle(
        "Log scale",
        value=state.get(CMP_LOG, False),
        key=CMP_LOG,
        on_change=state.__setitem__,
        args=(_CMP_LOG_SET, True),
        help=f"On by default when one model is at least {LOG_RATIO} times another, until you set it.",
    )
    st.plotly_chart(CX.compare_bars(c, log=log), config=PLOTLY_CONFIG)
    totals = CX.compare_totals(c)
    totals.update_xaxes(title_text=None)  # the ticks say "B"; a title would sit on the legend below
    st.plotly_chart(totals, config=PLOTLY_CONFIG)

    st.markdown("**Headline numbers**")
    st.dataframe(headline_table(c.headline()), hide_index=True)  # one column a model: it fits the page's width
    missing = [label for label, cost in zip(c.labels, c.costs, strict=True) if not cost]
    note = "Memory and compute use the run settings (batch, precision, GPUs) of the Memory tab."
    if missing:
        whose = "its" if len(missing) == 1 else "their"
        note += f" None for {' and '.join(missing)}: {whose} costs cannot be computed under them."
    st.caption(note)

    st.markdown("**Parameters per component**")
    number = {label: st.column_config.NumberColumn(label, format="localized") for label in c.labels}
    st.dataframe(c.table(), hide_index=True, column_config={"component": "Component", **number})
    st.markdown("**Fields that differ**")
    if c.fields:
        st.dataframe(c.differences(), hide_index=True, column_config={"field": "Field (Hugging Face name)"})
    else:
        st.caption("No field differs: these are the same model.")
    return list(picked)


# ======================================================================================= diagram
@st.cache_data(max_entries=128, show_spinner=False)
def _dot(spec: Spec, title: str, theme: str) -> str:
    return to_dot(spec, count(spec), title=title, theme=theme)


def render_diagram(spec: Spec, title: str = "") -> None:
    """The architecture as boxes with their shapes and counts, following the controls live."""
    spec = validate(spec)
    dot = _dot(spec, title, "dark" if st.context.theme.type == "dark" else "light")
    st.caption(
        "One box per weight: its shape and parameters per copy, and × the layers (or experts) it repeats over. "
        "A dashed box is a tied weight, counted once where it lives."
    )
    st.graphviz_chart(dot, width="content")  # natural size: stretched, a narrow model's boxes get huge
    st.download_button(
        "Diagram source (DOT)", dot, "model.dot", "text/vnd.graphviz", key="x_dot_download", on_click="ignore"
    )


# ========================================================================================= sweep
@st.cache_data(max_entries=64, show_spinner=False)
def _sweep(spec: Spec, dim: str, values: tuple[int, ...], settings: Any) -> list[dict[str, Any]]:
    return sweep(spec, dim, values, settings=settings)


@st.cache_data(max_entries=64, show_spinner=False)
def _points(dim: str, families: tuple[str, ...], settings: Any) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for family in families:
        for p in family_points(dim, family, with_costs=False, settings=settings):
            seen.setdefault(p["name"], p)
    return sorted(seen.values(), key=lambda p: (p["value"], p["total"]))


def _candidates(spec: Spec, dim: str) -> list[int]:
    """Values a range may span: /64 to ×64 around the model's own value."""
    return default_values(spec, dim, points=25, span=64.0)


def render_sweep(spec: Spec, preset: str | None = None, settings: Any = None) -> str:
    """Sweep one dimension; plot parameters, embedding share, Kaplan's error, memory and compute, mark
    the family's real models; show where PaLM 540B's parameters go. Returns the swept dimension."""
    spec = validate(spec)
    state = st.session_state
    dims = [d for d in DIMENSIONS if d != "experts" or spec.is_moe]
    if state.get(SWEEP) not in dims:
        state[SWEEP] = "layers"
    dim = st.radio(
        "Sweep",
        dims,
        index=dims.index(state[SWEEP]),  # what a re-created widget starts from: the dimension in view
        key=SWEEP,
        horizontal=True,
        format_func=lambda d: CX.DIMENSION_LABELS[DIMENSIONS[d]],
        help="Width keeps the head size (heads follow), the query-group size and the MLP-to-width ratio.",
    )
    name = field_of(dim)
    current = getattr(spec, name)
    options = _candidates(spec, dim)
    lo_hi = state.get(SWEEP_RANGE)
    if not (isinstance(lo_hi, (tuple, list)) and len(lo_hi) == 2 and all(v in options for v in lo_hi)):
        near = [v for v in options if current / 8 <= v <= current * 8] or options
        state[SWEEP_RANGE] = (min(near), max(near))
    lo, hi = st.select_slider(
        "Range",
        options=options,
        value=tuple(state[SWEEP_RANGE]),
        key=SWEEP_RANGE,
        format_func=lambda v: f"{v:,}",
        help="The values to compute.",
    )
    values = tuple(v for v in options if lo <= v <= hi) or (current,)
    try:
        rows = _sweep(spec, dim, values, settings)
    except ValueError as exc:
        st.error(f"Cannot sweep: {quoted(exc)}", icon="⚠️")
        return dim
    families = [spec.model_type]
    if preset and preset in presets.names():
        families.insert(0, presets.get(preset).family)
    points = _points(dim, tuple(families), settings)
    log = st.toggle("Log axes", key=SWEEP_LOG, value=state.get(SWEEP_LOG, dim != "experts"))
    here = current if lo <= current <= hi else None

    st.plotly_chart(CX.sweep_params(rows, name, points, here, log), config=PLOTLY_CONFIG)
    left, right = st.columns(2)
    with left:
        st.plotly_chart(CX.sweep_share(rows, name, here, log), config=PLOTLY_CONFIG)
    with right:
        st.plotly_chart(CX.sweep_kaplan(rows, name, here, log), config=PLOTLY_CONFIG)
    costs = CX.sweep_costs(rows, name, here, log)
    if costs is not None:
        st.plotly_chart(costs, config=PLOTLY_CONFIG)
        st.caption("Memory and training compute use the run settings of the Memory tab (batch, precision, GPUs).")
    at = next((r for r in rows if r["value"] == current), None)
    if at is not None:
        st.caption(
            f"At this model's {name} = {current:,}: Kaplan's 12·L·d² = {at['kaplan_12LD2']:,} is "
            f"{at['kaplan_error_pct']:+.2f} % off the exact non-embedding count ({at['non_embedding']:,}) "
            f"and {at['kaplan_vs_total_pct']:+.2f} % off the total ({at['total']:,})."
        )
    with st.expander("The numbers"):
        st.dataframe(
            _big_as_text(rows),
            hide_index=True,
            column_config={
                "value": st.column_config.NumberColumn(name, format="localized"),
                "total": st.column_config.NumberColumn("Total", format="localized"),
                "embedding": st.column_config.NumberColumn("Embedding", format="localized", help=EMBEDDING_CONVENTION),
                "non_embedding": st.column_config.NumberColumn("Non-embedding", format="localized"),
                "active": st.column_config.NumberColumn("Active", format="localized"),
                "embedding_share": st.column_config.NumberColumn("Embedding share", format="percent"),
                "kaplan_12LD2": st.column_config.NumberColumn("12·L·d²", format="localized"),
                "kaplan_error_pct": st.column_config.NumberColumn("12·L·d² error vs non-emb. %", format="%+.3f"),
                "kaplan_vs_total_pct": st.column_config.NumberColumn("vs total %", format="%+.2f"),
            },
        )

    st.subheader("Where do the parameters go?", anchor=False)
    left, right = st.columns(2)
    with left:
        st.plotly_chart(CX.where_bars(where_it_goes(spec), "This model"), config=PLOTLY_CONFIG)
    if "palm-540b" in presets.names():
        with right:
            palm = presets.load("palm-540b")
            rows_palm = where_it_goes(palm)
            st.plotly_chart(CX.where_bars(rows_palm, "PaLM 540B"), config=PLOTLY_CONFIG)
            mlp = next((r for r in rows_palm if r["component"] == "mlp"), None)
            if mlp is not None:
                st.caption(
                    f"PaLM 540B: {mlp['share']:.1%} of its {short(count(palm).count)} parameters are the SwiGLU "
                    "MLP (three 18,432 × 73,728 matrices in each of 118 layers); multi-query attention keeps "
                    "attention small, and the 256k vocabulary is under 1 %."
                )
    return dim
