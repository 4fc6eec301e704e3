"""Two or three models side by side: headline numbers, counts per component, and the fields that differ.

Everything is read off :func:`paramscope.engine.params.count` trees, so a number here is the number the
rest of the app shows for the same model.

>>> from paramscope.io.presets import load
>>> c = compare([("gpt2", load("gpt2")), ("gpt2-medium", load("gpt2-medium"))])
>>> [r.path for r in c.rows][:3]
['embedding', 'embedding/token', 'embedding/position']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paramscope.analysis.sweep import cost_columns
from paramscope.engine.components import KINDS, kind_totals
from paramscope.engine.params import summarize
from paramscope.engine.run import RunSettings
from paramscope.engine.spec import FIELDS, Spec, validate
from paramscope.engine.tree import Node, Summary

MIN_MODELS, MAX_MODELS = 2, 3


@dataclass(frozen=True)
class Row:
    path: str  # a top-level ("layers") or second-level ("layers/attention") path of the tree
    depth: int  # 1 or 2
    counts: tuple[int, ...]  # one per model, 0 where the model has no such part


@dataclass(frozen=True)
class FieldDiff:
    field: str
    values: tuple[Any, ...]  # one per model, plain data


@dataclass(frozen=True)
class Comparison:
    labels: tuple[str, ...]
    specs: tuple[Spec, ...]
    summaries: tuple[Summary, ...]
    rows: tuple[Row, ...]
    kinds: dict[str, tuple[int, ...]]  # component kind -> count per model (kinds every model lacks left out)
    fields: tuple[FieldDiff, ...]
    costs: tuple[dict[str, float], ...]  # memory / compute columns per model ({}: none asked or none computable)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(s.total for s in self.summaries)

    def headline(self) -> list[dict[str, Any]]:
        """One record per model: label, total, embedding, non-embedding, active, plus cost columns."""
        out = []
        for label, s, cost in zip(self.labels, self.summaries, self.costs, strict=True):
            rec: dict[str, Any] = {
                "model": label,
                "total": s.total,
                "embedding": s.embedding,
                "non_embedding": s.non_embedding,
                "active": s.active,
            }
            rec.update(cost)
            out.append(rec)
        return out

    def table(self) -> list[dict[str, Any]]:
        """The component rows as records: path, then one count column per model label."""
        return [{"component": r.path, **dict(zip(self.labels, r.counts, strict=True))} for r in self.rows]

    def differences(self) -> list[dict[str, Any]]:
        """The differing fields as records: field, then one value column per model label."""
        return [{"field": d.field, **dict(zip(self.labels, map(_show, d.values), strict=True))} for d in self.fields]


def _show(value: Any) -> str:
    if value is None:
        return "(derived)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)


def _paths(tree: Node) -> list[str]:
    return [n.path for n in tree.walk() if n.path and n.depth() <= 2]


def field_differences(specs: Sequence[Spec]) -> tuple[FieldDiff, ...]:
    """Every Spec field whose (resolved) value is not the same in all ``specs``."""
    specs = [validate(s) for s in specs]
    out = []
    for name in FIELDS:
        values = [getattr(s, name) for s in specs]
        if any(v != values[0] for v in values[1:]):
            out.append(FieldDiff(name, tuple(list(v) if isinstance(v, tuple) else v for v in values)))
    return tuple(out)


def compare(
    models: Sequence[tuple[str, Spec]], with_costs: bool = True, settings: RunSettings | None = None
) -> Comparison:
    """Compare 2–3 ``(label, spec)`` pairs; ``ValueError`` for fewer, more, or an invalid spec.

    Memory / compute columns (under run ``settings``) are added with ``with_costs``.
    """
    if not MIN_MODELS <= len(models) <= MAX_MODELS:
        raise ValueError(f"compare: choose {MIN_MODELS} to {MAX_MODELS} models (got {len(models)})")
    labels = _unique([str(label)[:80] or f"model {i + 1}" for i, (label, _) in enumerate(models)])
    specs = tuple(validate(spec) for _, spec in models)
    summaries = tuple(summarize(s) for s in specs)
    order: list[str] = []
    for s in summaries:
        for p in _paths(s.tree):
            if p not in order:
                order.append(p)
    rows = tuple(Row(p, p.count("/") + 1, tuple(s.tree.get(p) for s in summaries)) for p in order)
    rows = tuple(r for r in rows if any(r.counts))  # a tied head (0 everywhere) says nothing here
    per_model = [kind_totals(s.tree) for s in summaries]
    kinds = {k: tuple(m[k] for m in per_model) for k in KINDS if any(m[k] for m in per_model)}
    if with_costs:
        costs = tuple(cost_columns(s, settings) for s in specs)
    else:
        costs = tuple({} for _ in specs)
    return Comparison(labels, specs, summaries, rows, kinds, field_differences(specs), costs)


def _unique(labels: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for label in labels:
        name, n = label, 2
        while name in out:
            name, n = f"{label} ({n})", n + 1
        out.append(name)
    return tuple(out)
