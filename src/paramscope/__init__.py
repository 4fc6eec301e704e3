"""ParamScope: where do a transformer's parameters go, and what do they cost?

>>> import paramscope
>>> s = paramscope.summarize(paramscope.preset("gpt2"))
>>> s.total
124439808
"""

from .hfconfig import ReadResult, read, read_json_text, to_config
from .params import count, summarize
from .presets import Preset
from .presets import get as get_preset
from .presets import load as preset
from .presets import names as preset_names
from .spec import Spec, validate
from .tree import Node, Summary

__all__ = [
    "Node",
    "Preset",
    "ReadResult",
    "Spec",
    "Summary",
    "count",
    "get_preset",
    "preset",
    "preset_names",
    "read",
    "read_json_text",
    "summarize",
    "to_config",
    "validate",
]
