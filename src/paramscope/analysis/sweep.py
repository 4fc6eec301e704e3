"""Why so big? Sweep one dimension of a model and watch where the parameters go.

:func:`sweep` varies one field (layers, width, vocabulary, experts) over a list of values and returns
one row per value: total, embedding, non-embedding, embedding share, Kaplan et al.'s
``12·n_layer·d_model²`` approximation and how far it is from the exact non-embedding count, plus
memory and training-compute columns.

Width is varied *consistently*: the head size is kept (so the number of heads grows with the width),
the query-per-key/value group is kept, and the MLP and expert widths keep their ratio to the width,
which is how model families scale (GPT-2 small → XL, Llama 2 7B → 70B).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

from paramscope.engine import flops, memory
from paramscope.engine.components import kind_totals
from paramscope.engine.params import summarize
from paramscope.engine.run import RunSettings, as_training
from paramscope.engine.spec import LIMITS, Spec, validate

#: Short names the UI offers, mapped to the Spec field they vary.
DIMENSIONS = {
    "layers": "num_hidden_layers",
    "width": "hidden_size",
    "vocab": "vocab_size",
    "experts": "num_experts",
}
#: Most points one sweep computes (each point is one exact count).
MAX_POINTS = 200


def field_of(dimension: str) -> str:
    """``"layers"`` -> ``"num_hidden_layers"``; a Spec field name is returned as is."""
    if dimension in DIMENSIONS:
        return DIMENSIONS[dimension]
    if dimension in DIMENSIONS.values():
        return dimension
    raise ValueError(f"sweep: {str(dimension)[:40]!r} cannot be swept; choose one of {', '.join(DIMENSIONS)}")


# ------------------------------------------------------------------------------------- variants
def varied(spec: Spec, dimension: str, value: int) -> Spec:
    """``spec`` with one dimension set to ``value``, the fields tied to it following along.

    - layers: encoder-decoders keep their decoder/encoder ratio; sliding-window layers and the layers of each
      other mixer keep their share; dense-first / dense-only layer indices beyond the new depth are dropped.
    - width: head size, query-group size and MLP / expert width ratios are kept (heads follow width).
    - vocab: only ``vocab_size`` changes.
    - experts: ``num_experts_per_tok`` is capped at the number of experts.
    """
    spec = validate(spec)
    name = field_of(dimension)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}: expected a whole number, got {value!r}")
    if name == "num_hidden_layers":
        return _layers(spec, value)
    if name == "hidden_size":
        return _width(spec, value)
    if name == "num_experts":
        changes: dict[str, Any] = {"num_experts": value}
        if value:
            changes["num_experts_per_tok"] = min(spec.num_experts_per_tok, value)
        if spec.attention_experts:  # JetMoE: the attention's experts are the same number
            changes["attention_experts"] = max(value, 1)
            changes["num_attention_heads"] = spec.kv_heads * changes.get("num_experts_per_tok", 1)
        return spec.replace(**changes)
    return spec.replace(**{name: value})


def _layers(spec: Spec, n: int) -> Spec:
    old = spec.num_hidden_layers
    changes: dict[str, Any] = {"num_hidden_layers": n}
    if spec.is_encoder_decoder and old:
        changes["num_decoder_layers"] = max(1, round(n * spec.num_decoder_layers / old))
    if spec.sliding_window_layers and old:
        changes["sliding_window_layers"] = min(n, round(n * spec.sliding_window_layers / old))
    # the other mixers (and Zamba2's shared-block uses) keep their share of the layers
    shares = ("linear_attention_layers", "lightning_layers", "short_conv_layers", "time_mixing_layers", "ssm_layers")
    shares += ("mlstm_layers",)
    for name in (*shares, "shared_block_uses", "mixer_only_layers", "ffn_only_layers"):
        if getattr(spec, name) and old:
            changes[name] = min(n, round(n * getattr(spec, name) / old))
    changes["first_k_dense_replace"] = min(spec.first_k_dense_replace, n)
    changes["mlp_only_layers"] = tuple(i for i in spec.mlp_only_layers if i < n)
    if spec.num_hidden_groups is not None:
        changes["num_hidden_groups"] = max(1, min(spec.num_hidden_groups, n))
    return spec.replace(**changes)


def _width(spec: Spec, d: int) -> Spec:
    if d < 1:
        raise ValueError("hidden_size: must be at least 1")
    old = spec.hidden_size
    ratio = d / old

    def scaled(x: int | None) -> int | None:
        return None if x is None else max(1, round(x * ratio)) if x else 0

    changes: dict[str, Any] = {"hidden_size": d}
    heads, kv, hd = spec.num_attention_heads, spec.kv_heads, spec.head_size
    if spec.has_attention and not spec.is_mla and heads * hd == old:
        # heads follow the width at a fixed head size; keep the query-per-kv-head group
        if d % hd == 0:
            new_heads = d // hd
            new_hd = hd
        else:
            new_heads = math.gcd(d, heads)
            new_hd = d // new_heads
        group = heads // kv if kv else 1
        new_kv = _divisor_near(new_heads, max(1, new_heads // group))
        changes.update(num_attention_heads=new_heads, num_key_value_heads=new_kv, head_dim=new_hd)
    changes["intermediate_size"] = scaled(spec.ffn_size)
    for name in ("moe_intermediate_size", "shared_expert_intermediate_size"):
        changes[name] = scaled(getattr(spec, name))
    for name in ("mlstm_qk_dim", "mlstm_v_dim"):  # xLSTM: widths in a ratio to the width, whole heads
        if getattr(spec, name):
            changes[name] = spec.mlstm_heads * max(1, round(getattr(spec, name) * ratio / spec.mlstm_heads))
    return spec.replace(**changes)


def _divisor_near(n: int, target: int) -> int:
    """The largest divisor of ``n`` not above ``target`` (at least 1)."""
    for k in range(min(target, n), 0, -1):
        if n % k == 0:
            return k
    return 1


def default_values(spec: Spec, dimension: str, points: int = 9, span: float = 8.0) -> list[int]:
    """``points`` values spaced geometrically from the spec's own value / ``span`` to × ``span`` (the
    own value always included; widths are multiples of the head size)."""
    spec = validate(spec)
    name = field_of(dimension)
    current = getattr(spec, name)
    if name == "num_experts":
        base = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
        return sorted(set(base) | {current})
    step = spec.head_size if name == "hidden_size" and spec.head_size else 1
    if current < 1:
        return [current, 1, 2, 4, 8]
    lo, hi = max(1.0, current / span), min(current * span, float(LIMITS.get(name, current * span)))
    values = {current}
    for i in range(points):
        raw = lo * (hi / lo) ** (i / max(points - 1, 1)) if hi > lo else lo
        values.add(max(step, round(raw / step) * step))
    return sorted(values)


# ----------------------------------------------------------------------------------------- costs
def cost_columns(spec: Spec, settings: RunSettings | None = None) -> dict[str, float]:
    """Memory and training-compute figures for ``spec``.

    ``settings`` (defaults when ``None``): inference memory uses them as given (mode set to inference),
    training memory the same with mode training. Returns ``{}`` for a model whose costs cannot be computed, so
    callers add columns only when there is something to show. Names end in their unit: ``inference_gb``,
    ``training_gb`` (what must fit on one GPU, the Memory tab's headline, / 1e9),
    ``training_flops_per_token`` and ``training_flops`` (for ``training_tokens``: the run's tokens, or Chinchilla's
    20 per parameter).
    """
    base = settings if settings is not None else RunSettings()
    train = dataclasses.replace(as_training(base), mode="training")
    try:
        c = flops.compute(spec, train)
        return {
            "inference_gb": memory.needed_bytes(spec, dataclasses.replace(base, mode="inference")) / 1e9,
            "training_gb": memory.needed_bytes(spec, train) / 1e9,
            "training_flops_per_token": float(c.training_per_token),
            "training_tokens": float(c.tokens),
            "training_flops": float(c.training_total),
        }
    except ValueError:
        return {}


# ----------------------------------------------------------------------------------------- sweep
def kaplan(spec: Spec) -> int:
    """Kaplan et al. (2020): non-embedding parameters ≈ 12·n_layer·d_model² (all layers of all stacks)."""
    layers = spec.num_hidden_layers + spec.num_decoder_layers
    return 12 * layers * spec.hidden_size**2


def point(spec: Spec, with_costs: bool = True, settings: RunSettings | None = None) -> dict[str, Any]:
    """The sweep columns for one spec (cost columns under run ``settings``, see :func:`cost_columns`)."""
    s = summarize(spec)
    approx = kaplan(spec)
    row: dict[str, Any] = {
        "total": s.total,
        "embedding": s.embedding,
        "non_embedding": s.non_embedding,
        "active": s.active,
        "embedding_share": s.embedding / s.total if s.total else 0.0,
        "kaplan_12LD2": approx,
        "kaplan_error_pct": 100.0 * (approx - s.non_embedding) / s.non_embedding if s.non_embedding else math.nan,
        "kaplan_vs_total_pct": 100.0 * (approx - s.total) / s.total if s.total else math.nan,
    }
    if with_costs:
        row.update(cost_columns(spec, settings))
    return row


def sweep(
    spec: Spec, dimension: str, values: Iterable[int], with_costs: bool = True, settings: RunSettings | None = None
) -> list[dict[str, Any]]:
    """One row per value: ``value`` then the columns of :func:`point` for ``varied(spec, dimension, value)``.

    Values that make an invalid model (say a width the head size cannot divide) are skipped, and
    duplicates are computed once; ``ValueError`` when no value is usable or too many are asked.
    """
    name = field_of(dimension)
    wanted = sorted(set(values))
    if len(wanted) > MAX_POINTS:
        raise ValueError(f"sweep: at most {MAX_POINTS} points (got {len(wanted)})")
    rows = []
    for v in wanted:
        try:
            variant = varied(spec, name, v)
        except ValueError:
            continue
        rows.append({"value": v, **point(variant, with_costs, settings)})
    if not rows:
        raise ValueError(f"sweep: none of the values gives a valid model for {name}")
    return rows


def family_points(
    dimension: str,
    family: str,
    with_costs: bool = False,
    names: Sequence[str] | None = None,
    settings: RunSettings | None = None,
) -> list[dict[str, Any]]:
    """The presets of ``family`` (a preset family such as "GPT-2", or a model_type such as "gpt2")
    with their own value of the swept dimension and their sweep columns, to mark on the curve."""
    from paramscope.io import presets

    name = field_of(dimension)
    out = []
    for preset_name in names if names is not None else presets.names_with_costs():
        p = presets.get(preset_name)
        spec = presets.load(preset_name)
        if family not in (p.family, spec.model_type):
            continue
        out.append(
            {"name": preset_name, "title": p.title, "value": getattr(spec, name), **point(spec, with_costs, settings)}
        )
    return sorted(out, key=lambda r: (r["value"], r["total"]))


def where_it_goes(spec: Spec) -> list[dict[str, Any]]:
    """Parameters per component kind with their share of the total (largest first): PaLM 540B's answer
    to "why so big" is this list."""
    s = summarize(spec)
    kinds = kind_totals(s.tree)
    rows = [{"component": k, "params": n, "share": n / s.total if s.total else 0.0} for k, n in kinds.items() if n]
    return sorted(rows, key=lambda r: -r["params"])
