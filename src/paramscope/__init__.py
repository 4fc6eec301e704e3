"""ParamScope: where do a transformer's parameters go, and what do they cost?

>>> import paramscope
>>> s = paramscope.summarize(paramscope.preset("gpt2"))
>>> s.total
124439808
"""

from .compare import compare as compare_models
from .diagram import to_dot
from .encode import decode_spec, diff_fields, encode_spec, nearest_preset
from .hfconfig import ReadResult, read, read_json_text, to_config
from .params import count, summarize
from .presets import Preset
from .presets import get as get_preset
from .presets import load as preset
from .presets import names as preset_names
from .spec import Spec, validate
from .sweep import family_points, kaplan, varied, where_it_goes
from .sweep import sweep as sweep_dimension
from .tree import Node, Summary

__all__ = [
    "Node",
    "Preset",
    "ReadResult",
    "Spec",
    "Summary",
    "compare_models",
    "count",
    "decode_spec",
    "diff_fields",
    "encode_spec",
    "family_points",
    "kaplan",
    "nearest_preset",
    "get_preset",
    "preset",
    "preset_names",
    "read",
    "read_json_text",
    "summarize",
    "sweep_dimension",
    "to_config",
    "to_dot",
    "validate",
    "varied",
    "where_it_goes",
]
