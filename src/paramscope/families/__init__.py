"""Declarative Hugging Face knowledge: one row per ``model_type`` (see :mod:`.schema`), and the reader.

>>> from paramscope.families import read
>>> read({"model_type": "gpt2", "n_embd": 1536}).spec.intermediate_size  # n_inner is derived: 4*n_embd
6144
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paramscope.engine.params import count
from paramscope.engine.spec import FIELDS, Spec, SpecError
from paramscope.engine.tree import Node
from paramscope.families import decoders, encoders
from paramscope.families.schema import BeyondRow, Family, Origin, hf_defaults


def _unnamed(config: Mapping[str, Any], spec: Spec, tree: Node) -> str | None:
    """Says so where a config without a ``model_type`` was read as ParamScope's own generic transformer."""
    if "model_type" in config:
        return None
    return (
        "the file names no model_type: it was read as ParamScope's own generic transformer (its keys are the Spec's "
        "field names), not as any transformers class; a Hub config.json names its type"
    )


#: ParamScope's own vocabulary: the Spec's field names, for models transformers does not ship.
PARAMSCOPE = Family(
    model_type="paramscope",
    class_prefix="",
    source="",
    keys={name: (name,) for name in FIELDS if name != "model_type"},
    padding_row=False,
    notes=(_unnamed,),
)

FAMILIES: dict[str, Family] = {row.model_type: row for row in (*decoders.ROWS, *encoders.ROWS, PARAMSCOPE)}

#: Keys that carry no information about sizes, never worth reporting as ignored.
METADATA = frozenset({"model_type", "architectures", "transformers_version", "_name_or_path", "torch_dtype", "dtype"})


@dataclass(frozen=True)
class ReadResult:
    spec: Spec
    ignored: tuple[str, ...]  # keys present in the input that the count does not use
    model_type: str


def listed_types() -> list[str]:
    """The model types with a row, as `python -m paramscope types` lists them (ParamScope's own generic row, read from
    a config without a ``model_type``, is not one)."""
    return sorted(t for t in FAMILIES if t != "paramscope")


def family_of(data: Mapping[str, Any]) -> Family:
    """The row that reads ``data`` (by its ``model_type``); ``SpecError`` naming the supported types."""
    if not isinstance(data, Mapping):
        raise SpecError("config", "expected a JSON object ({...}) at the top level")
    mt = data.get("model_type")
    if mt is None and "hidden_size" in data and "num_hidden_layers" in data and not data.get("architectures"):
        mt = "paramscope"
    if mt is None:
        raise SpecError(
            "model_type",
            'missing: a config.json names its type ("model_type": "llama"); one without it is read as ParamScope\'s '
            "own generic transformer only where it states hidden_size and num_hidden_layers and no architectures",
        )
    if not isinstance(mt, str) or mt not in FAMILIES:
        listed = f"`python -m paramscope types` lists the {len(listed_types())} that do"
        raise SpecError("model_type", f"{repr(mt)[:60]} has no formula row ({listed})")
    return FAMILIES[mt]


#: The most parameters a config may build: 1,000 × the largest released model (Kimi K2, 1.04 trillion), so that no
#: size within its own limit multiplies into an absurd total that memory, FLOPs and "fits" would answer on.
MAX_PARAMS = 10**15


def check_total(total: int) -> None:
    """Refuse a config that builds more than ``MAX_PARAMS`` parameters (one stack, or a whole model's towers)."""
    if total > MAX_PARAMS:
        raise SpecError(
            "config",
            f"{total:.3g} parameters is more than the supported {MAX_PARAMS:.0e} (1,000 × the largest released model): "
            "lower a size",
        )


def read(data: Mapping[str, Any]) -> ReadResult:
    """Turn a config mapping into a validated Spec; raise ``SpecError`` naming the bad key."""
    family = family_of(data)
    spec, cfg = family.read(data)
    check_total(count(spec).count)
    ignored = tuple(sorted(k for k in data if k not in cfg.used and k not in METADATA))
    return ReadResult(spec=spec, ignored=ignored, model_type=family.model_type)


def architecture_class(model_type: str, architecture: str) -> str:
    """The transformers class name for a family and head, e.g. ('gpt2', 'causal_lm') -> 'GPT2LMHeadModel'."""
    return FAMILIES[model_type].class_name(architecture)


__all__ = [
    "FAMILIES",
    "BeyondRow",
    "Family",
    "Origin",
    "ReadResult",
    "architecture_class",
    "family_of",
    "hf_defaults",
    "read",
]
