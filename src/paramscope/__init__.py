"""ParamScope: where do a transformer's parameters go, and what do they cost?

>>> import paramscope
>>> paramscope.summarize(paramscope.preset("gpt2")).total
124439808
>>> paramscope.summarize(paramscope.preset("gpt2").edit(hidden_size=1536)).total  # n_inner follows 4*n_embd
418748928
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from paramscope.engine.params import count
from paramscope.engine.params import summarize as _summarize
from paramscope.engine.spec import Spec, SpecError, validate
from paramscope.engine.tree import Node, Summary
from paramscope.families import ReadResult, read
from paramscope.io.config_json import read_json_text
from paramscope.io.presets import Preset
from paramscope.io.presets import get as get_preset
from paramscope.io.presets import model as preset
from paramscope.io.presets import names as preset_names
from paramscope.model import Model

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paramscope.analysis.compare import compare as compare_models
    from paramscope.analysis.diagram import to_dot
    from paramscope.analysis.sweep import family_points, kaplan, varied, where_it_goes
    from paramscope.analysis.sweep import sweep as sweep_dimension

#: Imported on first use, so that `import paramscope` (and the command line) loads only the counting core.
_LAZY = {
    "compare_models": ("compare", "compare"),
    "to_dot": ("diagram", "to_dot"),
    "family_points": ("sweep", "family_points"),
    "kaplan": ("sweep", "kaplan"),
    "varied": ("sweep", "varied"),
    "where_it_goes": ("sweep", "where_it_goes"),
    "sweep_dimension": ("sweep", "sweep"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module 'paramscope' has no attribute {name!r}")


def from_config(config: Mapping[str, Any]) -> Model:
    """The model a Hugging Face config.json (as a dict) builds, ready to edit."""
    return Model.from_config(config, origin="config")


def from_hub(repo_id: str, revision: str = "main", *, token: str | None = None, timeout: float = 8.0) -> Model:
    """The model a Hugging Face Hub repo's config.json builds (only config.json is downloaded, through
    ``huggingface_hub``: its cache, ``HF_ENDPOINT``, ``HF_HUB_OFFLINE``, and ``HF_TOKEN`` when ``token`` is None).

    Raises ``HubError`` (a ``ValueError``, one line) when the config cannot be fetched.
    """
    from paramscope.io.hub import from_hub as _from_hub  # huggingface_hub is imported only when a Hub id is used

    return _from_hub(repo_id, revision, token=token, timeout=timeout)


def summarize(model: Model | Spec) -> Summary:
    """Total, embedding, non-embedding and active-per-token counts, all read off one tree (for a model without
    a family row, the tree transformers builds)."""
    return model.summary if isinstance(model, Model) else _summarize(model)


__all__ = [
    "Model",
    "Node",
    "Preset",
    "ReadResult",
    "Spec",
    "SpecError",
    "Summary",
    "compare_models",
    "count",
    "family_points",
    "from_config",
    "from_hub",
    "get_preset",
    "kaplan",
    "preset",
    "preset_names",
    "read",
    "read_json_text",
    "summarize",
    "sweep_dimension",
    "to_dot",
    "validate",
    "varied",
    "where_it_goes",
]
