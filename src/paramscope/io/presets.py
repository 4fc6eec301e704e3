"""Presets: one JSON file per real model in ``presets/``, read by the same reader as a config.json.

A preset file holds ``name``, ``title``, ``family``, ``source`` (where its config comes from),
``expected_total`` (the parameter count of the real implementation built from that config) and
``config`` (the config.json itself). Names are looked up exactly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from paramscope.engine.spec import Spec
from paramscope.model import Model

_HUB_SOURCE = re.compile(r"https://huggingface\.co/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/blob/")


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    family: str
    source: str
    expected_total: int
    notes: str
    config: dict[str, Any]

    @property
    def spec(self) -> Spec:
        return load(self.name)

    @property
    def hub_id(self) -> str:
        """The Hub repo the preset's config.json comes from ("" for a paper's or a notebook's model)."""
        match = _HUB_SOURCE.match(self.source)
        return match[1] if match else ""

    @property
    def model(self) -> Model:
        return model(self.name)


@cache
def _all() -> dict[str, Preset]:
    out: dict[str, Preset] = {}
    folder = resources.files("paramscope.preset_data")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text())
        p = Preset(
            name=data["name"],
            title=data.get("title", data["name"]),
            family=data.get("family", "Other"),
            source=data.get("source", ""),
            expected_total=int(data["expected_total"]),
            notes=data.get("notes", ""),
            config=data["config"],
        )
        out[p.name] = p
    return out


def names() -> list[str]:
    """Every preset name, sorted by family then name."""
    return list(_sorted_names())


@cache
def names_with_costs() -> tuple[str, ...]:
    """The presets with memory and compute (``load`` gives their spec): every one but a dual encoder such as CLIP,
    which has no language model to run."""
    return tuple(n for n in names() if model(n).cost_spec is not None)


def row_names() -> list[str]:
    """The presets one family row reads (every preset but the whole models, whose towers are composed)."""
    return [n for n in names() if model(n).has_formulas]


@cache
def _sorted_names() -> tuple[str, ...]:
    presets = _all()
    return tuple(sorted(presets, key=lambda n: (presets[n].family.lower(), n)))


def get(name: str) -> Preset:
    """The preset called exactly ``name``; ``ValueError`` naming the close matches otherwise."""
    presets = _all()
    if isinstance(name, str) and name in presets:
        return presets[name]
    import difflib

    close = difflib.get_close_matches(str(name)[:100], list(presets), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `python -m paramscope presets` lists them"
    return_name = str(name)[:60]
    raise ValueError(f"preset: no preset named {return_name!r}{hint}")


@cache
def load(name: str) -> Spec:
    """The Spec of preset ``name``, read through the config reader like any imported config.json; for a whole model
    (its towers composed), the spec its costs run on: its language model, the other towers held as weights."""
    whole = model(name)
    if whole.has_formulas:
        return whole.spec
    spec = whole.cost_spec
    if spec is None:
        raise ValueError(f"preset {name!r}: a whole model without a language model (no memory or compute)")
    return spec


@cache
def model(name: str) -> Model:
    """Preset ``name`` as a model to edit: its config.json, as the file states it."""
    return Model.from_config(get(name).config, origin=f"preset:{name}")


def named(text: str) -> str:
    """The preset a name or its Hub id names, in any letter case ("Qwen/Qwen3-8B" -> "qwen3-8b"); "" if none."""
    wanted = text.strip().casefold()
    presets = _all()
    return next((n for n, p in presets.items() if wanted in (n.casefold(), p.hub_id.casefold())), "")


def by_family() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for n in names():
        out.setdefault(_all()[n].family, []).append(n)
    return out
