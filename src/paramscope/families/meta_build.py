"""The long tail: count a ``model_type`` ParamScope has no formulas for by building the real transformers class.

Needs the optional extra (torch and transformers), imported lazily here so that this module imports fast
without them. The model is built on the meta device: no memory is allocated and no weights are read or
fetched, only the module tree is constructed. The count is ``sum(p.numel() for p in model.parameters())``,
which counts tied weights once.

The input is untrusted: the config is validated (a JSON object, a ``model_type`` transformers knows, integer
sizes bounded, a bounded number of layers) before any class is built, and keys that could change how the
class is built rather than what it holds (dtype, attention or experts kernels, quantization, remote-code
maps) are dropped. Nothing is cached here: the caller caches.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import threading
import warnings
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paramscope.engine.spec import SpecError
from paramscope.engine.tree import Node, Summary, repeated
from paramscope.families.schema import TOWERS

if TYPE_CHECKING:  # pragma: no cover - typing only
    from torch import nn

#: The largest number accepted anywhere in a config (sizes, vocabularies, position tables, token ids).
MAX_INT = 10**8
#: The most layers a stack, and every stack of a config together, may have: the meta device costs no memory, but
#: building takes time per layer.
MAX_LAYERS = 2_000
#: The most experts a layer may have (transformers builds some MoE families as one module per expert).
MAX_EXPERTS = 4_096
#: The most experts in all (experts per layer × layers): some families build one module per expert.
MAX_EXPERT_LAYERS = 2**16
#: Keys whose integer value counts layers (checked at any depth, e.g. text_config.num_hidden_layers).
LAYER_KEYS = frozenset(
    {
        "num_hidden_layers",
        "num_layers",
        "n_layer",
        "n_layers",
        "num_encoder_layers",
        "num_decoder_layers",
        "encoder_layers",
        "decoder_layers",
    }
)
#: Keys whose integer value counts experts.
EXPERT_KEYS = frozenset({"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"})
#: Keys dropped before building: they choose how a class is built (dtype, kernels, quantization, remote
#: code), never how many parameters it holds.
DROPPED_KEYS = frozenset(
    {
        "dtype",
        "torch_dtype",
        "attn_implementation",
        "_attn_implementation",
        "experts_implementation",
        "_experts_implementation",
        "quantization_config",
        "auto_map",
    }
)
#: Rotary bases can be large integers in real configs (e.g. 500000000), gradient clipping thresholds large floats
#: (Gemma 3n's audio config: 1e10); they size nothing.
_UNBOUNDED_SUFFIXES = ("theta", "clipping")
_CLASS_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")  # xLSTM's classes begin in lower case
NO_FORMULA = ""  # the formula of every node: "counted by transformers, no formulas"
#: The attribute holding the note of a module standing in for part of a timm network (:mod:`.timm_stand_in`)
STAND_IN_NOTE = "paramscope_note"


class UnknownNetwork(ValueError):
    """A timm network asked of :mod:`.timm_stand_in` whose count is not shipped: its name and its key (the name and
    arguments of ``timm.create_model``)."""

    def __init__(self, name: object, key: str) -> None:
        super().__init__(key)
        self.name = name
        self.key = key


@dataclass(frozen=True)
class MetaResult:
    """The parameter tree and headline numbers of one transformers class: built on the meta device, or composed from
    the rows of a whole model's towers (:func:`paramscope.families.wholes.compose`)."""

    tree: Node
    summary: Summary
    class_name: str
    model_type: str
    notes: tuple[str, ...]
    #: The text, vision and audio sub-configs as transformers reads them (each with its model_type, keys it moves
    #: from the top level included), for a multimodal config; plain JSON data
    sub_configs: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    #: True when the tree was composed from the towers' rows with formulas (:mod:`.wholes`), False when built here
    formulas: bool = False


def available() -> bool:
    """Whether the optional extra is installed: torch and transformers both import."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except Exception:  # ImportError, or a broken install raising anything else at import
        return False
    return True


# ---------------------------------------------------------------- validation (no torch needed)


def _check_sizes(config: Mapping[str, Any]) -> None:
    """Every integer bounded, layer and expert counts bounded; iterative, so deep nesting cannot recurse."""
    queue: deque[tuple[str, str, Any]] = deque((k, k, v) for k, v in config.items())
    layers, stacked, experts, experts_at = 0, 0, 0, ""
    while queue:
        where, key, value = queue.popleft()
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (int, float)):  # a float where a size belongs is bounded the same way
            if key in LAYER_KEYS:
                if value > MAX_LAYERS:
                    raise SpecError(where, f"{value:,} layers take too long to build (the limit is {MAX_LAYERS:,})")
                layers = max(layers, value)
                stacked += value
                if stacked > MAX_LAYERS:  # three towers of 2,000 layers each took 15 s a request
                    raise SpecError(
                        where, f"{stacked:,} layers in all take too long to build (the limit is {MAX_LAYERS:,} in all)"
                    )
            if key in EXPERT_KEYS:
                if value > MAX_EXPERTS:
                    raise SpecError(where, f"{value:,} experts take too long to build (the limit is {MAX_EXPERTS:,})")
                if value > experts:
                    experts, experts_at = value, where
            if abs(value) > MAX_INT and not key.endswith(_UNBOUNDED_SUFFIXES):
                raise SpecError(where, f"{value:,} is larger than the limit of {MAX_INT:,}")
        elif isinstance(value, Mapping):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise SpecError(where, f"keys must be strings, got {type(k).__name__}")
                queue.append((f"{where}.{k}", k, v))
        elif isinstance(value, (list, tuple)):
            queue.extend((f"{where}[{i}]", key, v) for i, v in enumerate(value))
    if experts * layers > MAX_EXPERT_LAYERS:
        raise SpecError(
            experts_at,
            f"{experts:,} experts in each of up to {layers:,} layers take too long to build "
            f"(the limit is {MAX_EXPERT_LAYERS:,} experts in all)",
        )


def _validate(config: object) -> tuple[str, dict[str, Any]]:
    """``(model_type, the other keys)`` of a config transformers can build; ``SpecError`` (a ``ValueError``)
    naming the key otherwise."""
    if not isinstance(config, Mapping):
        raise SpecError("config", f"expected a JSON object (a dict), got {type(config).__name__}")
    bad = [k for k in config if not isinstance(k, str)]
    if bad:
        raise SpecError("config", f"keys must be strings, got {type(bad[0]).__name__}")
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise SpecError("model_type", "missing: transformers needs it to pick the model class")
    if not available():
        raise SpecError("model_type", "counting a model without formulas needs torch and transformers installed")
    from transformers import CONFIG_MAPPING

    if model_type not in CONFIG_MAPPING:
        raise SpecError("model_type", f"{model_type[:80]!r} is not a model type transformers knows")
    _check_sizes(config)
    rest = {k: v for k, v in config.items() if k != "model_type" and k not in DROPPED_KEYS}
    return model_type, rest


# ---------------------------------------------------------------- building


def _transformers_version() -> str:
    import transformers

    return str(transformers.__version__)


def _named_class(name: object, config_class: type) -> type | None:
    """The transformers model class ``name`` (``architectures[0]``), when it exists and takes this config."""
    if not isinstance(name, str) or not _CLASS_NAME.match(name):
        return None
    import transformers

    try:
        cls = getattr(transformers, name, None)
    except Exception:  # a class whose optional dependency is missing raises on access
        return None
    if not isinstance(cls, type) or not issubclass(cls, transformers.PreTrainedModel):
        return None
    return cls if _takes(cls, config_class) else None


def _takes(cls: type, config_class: type) -> bool:
    """Whether model class ``cls`` is built from a ``config_class`` (its ``config_class``, when it names one)."""
    wanted = getattr(cls, "config_class", None)
    return not isinstance(wanted, type) or issubclass(config_class, wanted)


def _pick_class(model_type: str, rest: Mapping[str, Any]) -> tuple[type, str]:
    """The class to build and a note on how it was chosen ("" when ``architectures[0]`` named it)."""
    import transformers
    from transformers import CONFIG_MAPPING

    config_class = CONFIG_MAPPING[model_type]
    archs = rest.get("architectures")
    named = archs[0] if isinstance(archs, (list, tuple)) and archs else None
    cls = _named_class(named, config_class)
    if cls is not None:
        return cls, ""
    mappings = ["MODEL_FOR_CAUSAL_LM_MAPPING", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING", "MODEL_MAPPING"]
    if getattr(config_class, "is_encoder_decoder", False) or rest.get("is_encoder_decoder") is True:
        # the causal-LM mapping holds only the decoder of an encoder-decoder (BartForCausalLM,
        # WhisperForCausalLM): prefer the whole model
        mappings[:0] = ["MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING", "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING"]
    # then every other task's mapping, in name order (MusicGen's text-to-waveform class, ColPali's retrieval one)
    mappings += sorted(
        name
        for name in dir(transformers)
        if name.startswith("MODEL_FOR_") and name.endswith("_MAPPING") and name not in mappings
    )
    for mapping_name in mappings:
        mapping = getattr(transformers, mapping_name, None)
        try:
            if mapping is not None and config_class in mapping:
                cls = mapping[config_class]
                if isinstance(cls, (list, tuple)):
                    cls = cls[0]
                if not _takes(cls, config_class):  # e.g. Llama4ForCausalLM wants the text config only
                    continue
                why = f"architectures[0] {named!r} is not a transformers class for {model_type}" if named else ""
                why = why or "the config names no architectures"
                return cls, f"{why}: built {cls.__name__}, the {_mapping_label(mapping_name)} class for {model_type}"
        except Exception:  # a mapped class whose optional dependency is missing
            continue
    # a sub-model type (clip_text_model, blip_text_model...): the model class named after its config class
    guess = _named_class(re.sub(r"Config$", "Model", config_class.__name__), config_class)
    if guess is not None:
        why = f"architectures[0] {named!r} is not a transformers class for {model_type}" if named else ""
        return guess, f"{why or 'the config names no architectures'}: built {guess.__name__}, named after its config"
    raise SpecError("model_type", f"transformers has no model class for {model_type!r}")


def _mapping_label(mapping_name: str) -> str:
    return {
        "MODEL_FOR_CAUSAL_LM_MAPPING": "AutoModelForCausalLM",
        "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING": "AutoModelForSeq2SeqLM",
        "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING": "AutoModelForSpeechSeq2Seq",
        "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING": "AutoModelForImageTextToText",
        "MODEL_MAPPING": "AutoModel",
    }.get(mapping_name, f"transformers.{mapping_name}")


def _build_model(model_type: str, rest: dict[str, Any], cls: type) -> tuple[nn.Module, tuple[str, ...]]:
    """The class built on meta, and a note for each library it needs that is missing but was done without: where a
    class needs timm and timm is missing (the page as deployed), transformers builds it again with timm's networks
    answered from shipped data (:mod:`.timm_stand_in`); where it needs a library that holds none of its parameters
    (:data:`KERNELS_ONLY`), with transformers' check for it passed."""
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # its advice on token ids and the like is not ours to print
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return _construct(model_type, rest, cls), ()
            except ImportError as exc:  # a class that needs another library (timm, natten, detectron2)
                library = _kernels_only(exc)
                if library:
                    with _check_passed(library):
                        try:
                            model = _construct(model_type, rest, cls)
                        except ImportError as again:
                            raise SpecError("config", _needs_library(cls.__name__, again)) from None
                    note = (
                        f"{library} is not installed: it holds none of {cls.__name__}'s parameters (only the attention "
                        "kernels its forward calls), so the class was built without it"
                    )
                    return model, (note,)
                if not _stands_in(exc):
                    raise SpecError("config", _needs_library(cls.__name__, exc)) from None
            from paramscope.families import timm_stand_in

            with timm_stand_in.installed() as calls:
                try:
                    model = _construct(model_type, rest, cls)
                except UnknownNetwork as exc:
                    raise SpecError(_where(rest, exc.name), _unknown_network(exc.key)) from None
                except ImportError as exc:
                    raise SpecError("config", _needs_library(cls.__name__, exc)) from None
            keys = list(dict.fromkeys(key for _, key in calls.made))
            note = (
                f"timm is not installed: the timm network{'s' if len(keys) > 1 else ''} it builds ({'; '.join(keys)}) "
                f"counted from timm {timm_stand_in.timm_version()}'s counts shipped as data"
            )
            return model, (note,)
    finally:
        hf_logging.set_verbosity(verbosity)


def _construct(model_type: str, rest: dict[str, Any], cls: type) -> nn.Module:
    """The config read and the class built on meta; ``ImportError`` (a library missing) and
    :class:`UnknownNetwork` pass through, anything else transformers raises is a ``SpecError``."""
    import torch
    from transformers import AutoConfig

    try:
        cfg = AutoConfig.for_model(model_type, **rest)
    except ImportError:
        raise
    except Exception as exc:
        raise SpecError("config", f"transformers rejected it: {_short(exc)}") from None
    try:
        # PeVideoModel decorates a function it defines on every build, and transformers prints what that docstring lacks
        with torch.device("meta"), contextlib.redirect_stdout(io.StringIO()):
            return cls._from_config(cfg, attn_implementation="eager")  # type: ignore[attr-defined,no-any-return]
    except ImportError:
        raise
    except Exception as exc:
        if isinstance(exc, UnknownNetwork):  # the stand-in's: timm's network is not shipped
            raise
        raise SpecError(
            "config",
            f"transformers could not build {cls.__name__} from this config ({type(exc).__name__}: {_short(exc)}); a "
            "key its class needs may be missing: paste the checkpoint's whole config.json",
        ) from None


def _stands_in(exc: ImportError) -> bool:
    """Whether the library ``exc`` says is missing is timm, which transformers also finds missing: its networks are
    then taken from shipped data."""
    found = _REQUIRES.search(str(exc))
    if found is None or found.group(2) != "timm":
        return False
    from transformers.utils import is_timm_available

    return not is_timm_available()


#: Libraries a class asks for that hold none of its parameters, only kernels its forward calls: DiNAT's neighborhood
#: attention (``natten.functional``'s ``natten2dqkrpb`` and ``natten2dav``, for which transformers defines stand-ins
#: where natten is missing; the query, key, value and relative-position-bias parameters are transformers' own).
KERNELS_ONLY = frozenset({"natten"})
_CHECK_LOCK = threading.Lock()


def _kernels_only(exc: ImportError) -> str:
    """The library ``exc`` says is missing, when it holds no parameters of the class (:data:`KERNELS_ONLY`); else ""."""
    found = _REQUIRES.search(str(exc))
    return found.group(2) if found is not None and found.group(2) in KERNELS_ONLY else ""


@contextlib.contextmanager
def _check_passed(library: str) -> Iterator[None]:
    """Within it transformers' check that ``library`` is installed passes (one build at a time: the check is
    transformers' global), so that a class whose parameters are all its own is built without it."""
    from transformers.utils import import_utils

    with _CHECK_LOCK:
        check = import_utils.BACKENDS_MAPPING[library]
        import_utils.BACKENDS_MAPPING[library] = (lambda: True, check[1])
        try:
            yield
        finally:
            import_utils.BACKENDS_MAPPING[library] = check


def _where(config: Mapping[str, Any], name: object) -> str:
    """The dotted key of ``config`` holding the timm network's name ``name`` (``backbone``,
    ``vision_config.backbone_config.architecture``), or ``config`` where the class's default names it."""
    queue: deque[tuple[str, Any]] = deque(config.items())
    while queue:
        where, value = queue.popleft()
        if isinstance(value, str) and value == name:
            return where
        if isinstance(value, Mapping):
            queue.extend((f"{where}.{k}", v) for k, v in value.items())
    return "config"


def _unknown_network(key: str) -> str:
    """One line for a timm network whose count is not shipped."""
    shown = key if len(key) <= 240 else key[:237] + "..."
    return (
        f"transformers builds this class with timm's network {shown}, whose count is not shipped here (no config key "
        "sizes it; timm is not installed): count it with the CLI where timm is installed"
    )


#: transformers' refusal of a class whose backend library is missing ("TimmBackbone requires the timm library ...").
_REQUIRES = re.compile(r"(\w+) requires the (\w+) library")


def _needs_library(class_name: str, exc: ImportError) -> str:
    """One line for a class transformers builds only with a library this install lacks: which, and what to do."""
    found = _REQUIRES.search(str(exc))
    if not found:
        return f"transformers could not build {class_name}: {_short(exc)}"
    part, library = found.groups()
    also = " and torchvision (from the index torch came from)" if library == "timm" else ""
    where = f" (its {part})" if part != class_name else ""
    return (
        f"transformers builds {class_name} only with the {library} library{where}, which neither this install nor "
        f"the page as deployed has: count it with the CLI where {library}{also} is installed"
    )


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


# ---------------------------------------------------------------- the tree


def _tied_note(target: str) -> str:
    return f"tied to {target}: counted once"


_TIED = re.compile(r"^tied to (.+): counted once$")


def _group(path: str, kids: list[Node]) -> Node:
    """A parent whose count is the sum of its children; children with no count and no note are left out.
    A group holding only tied (zero-count) parameters keeps a note, so the tie stays visible: the module it
    shares (``tied to embed_tokens``) where its first parameter's tie names one."""
    kept = tuple(k for k in kids if k.count or k.note)
    total = sum(k.count for k in kept)
    note = ""
    if not total and kept:
        leaf = kept[0]
        while leaf.children:
            leaf = leaf.children[0]
        note = leaf.note
        match = _TIED.match(note)
        suffix = leaf.path[len(path) :] if path else f"/{leaf.path}"
        if match and path and match.group(1).endswith(suffix) and len(match.group(1)) > len(suffix):
            note = _tied_note(match.group(1)[: -len(suffix)])
    return Node(path, total, NO_FORMULA, kept, note=note)


def _shape(shape: tuple[int, ...]) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def _join(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def _numbering(module: nn.Module, module_dict: type) -> str | None:
    """The common prefix of a numbered container's members: "" for ``nn.ModuleList`` and ``nn.Sequential``,
    "expert_" for a ``ModuleDict`` of ``expert_0``, ``expert_1``... (beside which unnumbered members without
    parameters, such as a dropout, may sit); ``None`` for any other module (``norm1``, ``norm2`` of a block
    are two modules, not a stack), and for a container holding parameters of its own (a weight norm's
    ``ParametrizationList``)."""
    if any(p is not None for p in module._parameters.values()):
        return None
    prefixes = set()
    for name, child in module._modules.items():
        match = _NUMBERED.match(name)
        if match is not None:
            prefixes.add(match.group(1))
        elif child is not None and next(child.parameters(), None) is not None:
            return None
    if len(prefixes) != 1:
        return None
    prefix = prefixes.pop()
    return prefix if not prefix or isinstance(module, module_dict) else None


class _Walker:
    """Builds the tree of a model: one leaf per parameter, numbered containers folded into repeats."""

    def __init__(self, owners: dict[int, str]) -> None:
        from torch import nn

        self.module_dict: type = nn.ModuleDict
        self.owners = owners  # id(parameter) -> dotted name where parameters() yields it first
        self.tree_path: dict[str, str] = {}  # dotted name of an owned parameter -> its path in the tree

    def _owned(self, param: object, dotted: str) -> bool:
        return self.owners.get(id(param)) == dotted

    def _leaf(self, path: str, dotted: str, param: Any) -> Node:
        shape = _shape(tuple(param.shape))
        if self._owned(param, dotted):
            self.tree_path.setdefault(dotted, path)
            return Node(path, int(param.numel()), NO_FORMULA, shape=shape)
        first = self.owners.get(id(param), "")
        where = self.tree_path.get(first) or first
        return Node(path, 0, NO_FORMULA, shape=shape, note=_tied_note(where))

    def items(self, module: nn.Module, path: str, dotted: str) -> list[Node]:
        """The nodes of ``module``'s own parameters and of its submodules, in transformers' order."""
        out: list[Node] = []
        for name, param in module._parameters.items():
            if param is not None:
                out.append(self._leaf(_join(path, name), _join_dotted(dotted, name), param))
        for name, child in module._modules.items():
            if child is not None:
                out.append(self.module(child, _join(path, name), _join_dotted(dotted, name), name))
        return out

    def module(self, module: nn.Module, path: str, dotted: str, name: str) -> Node:
        shipped = getattr(module, STAND_IN_NOTE, None)
        if isinstance(shipped, str):  # a top-level module of a timm network taken from shipped data: one count
            return self._shipped(module, path, dotted, shipped)
        prefix = _numbering(module, self.module_dict)
        if prefix is not None:
            return self._folded(module, path, dotted, name, prefix)
        return _group(path, self.items(module, path, dotted))

    def _shipped(self, module: nn.Module, path: str, dotted: str, note: str) -> Node:
        """One node for a module standing in for part of a timm network: its parameters' count (those it owns: a
        network two towers share is counted once, with a tie note where it is not owned)."""
        count, tied = 0, ""
        for name, param in module.named_parameters(remove_duplicate=False):
            full = _join_dotted(dotted, name)
            if self._owned(param, full):
                self.tree_path.setdefault(full, f"{path}/{name.replace('.', '/')}")
                count += int(param.numel())
            elif not tied:
                first = self.owners.get(id(param), "")
                tied = _tied_note((self.tree_path.get(first) or first).rsplit("/", 1)[0])
        return Node(path, count, NO_FORMULA, note=note if count else tied)

    def _signature(self, member: nn.Module, dotted: str) -> tuple[tuple[str, tuple[int, ...], bool], ...]:
        return tuple(
            (name, tuple(p.shape), self._owned(p, f"{dotted}.{name}"))
            for name, p in member.named_parameters(remove_duplicate=False)
        )

    def _folded(self, module: nn.Module, path: str, dotted: str, name: str, prefix: str) -> Node:
        """Runs of consecutive members with the same parameters become one node with ``repeat`` = the run's
        length: the whole container when all members match (``layers``), else ``layers/0-2``, ``layers/3-60``
        (``experts/expert_0-7`` in a ``ModuleDict``); a member unlike its neighbours keeps its own name."""
        runs: list[list[tuple[str, nn.Module]]] = []
        last: object = None
        for key, member in module._modules.items():
            if member is None or not _NUMBERED.match(key):  # an unnumbered member holds no parameters
                continue
            sig = self._signature(member, _join_dotted(dotted, key))
            if runs and sig == last:
                runs[-1].append((key, member))
            else:
                runs.append([(key, member)])
            last = sig
        noun = "experts" if "expert" in name.lower() else "layers"
        nodes: list[Node] = []
        for run in runs:
            first_key, first = run[0]
            label = first_key if len(run) == 1 else f"{first_key}-{run[-1][0][len(prefix) :]}"
            run_path = path if len(runs) == 1 else _join(path, label)
            # every member of the run lands on the same tree paths: record them for tie notes
            for key, member in run[1:]:
                member_dotted = _join_dotted(dotted, key)
                for pname, p in member.named_parameters(remove_duplicate=False):
                    full = f"{member_dotted}.{pname}"
                    if self._owned(p, full):
                        self.tree_path.setdefault(full, _join(run_path, pname.replace(".", "/")))
            one = _group(run_path, self.items(first, run_path, _join_dotted(dotted, first_key)))
            single = len(run) == 1 and len(runs) > 1  # a member of its own, named by its number
            nodes.append(one if single else repeated(one, len(run), f"{len(run)} {noun}"))
        if len(runs) == 1:
            return nodes[0]
        return _group(path, nodes)


def _join_dotted(dotted: str, name: str) -> str:
    return f"{dotted}.{name}" if dotted else name


def _wrapper(model: nn.Module) -> str:
    """The name of the base-model wrapper the class nests (``model``, ``transformer``, ``backbone``...), to be
    dropped from paths; "" when there is none or dropping it would make two paths the same."""
    prefix = getattr(model, "base_model_prefix", "")
    if not isinstance(prefix, str) or not prefix or model._modules.get(prefix) is None:
        return ""
    inner = model._modules[prefix]
    inner_names = set(inner._parameters) | set(inner._modules)
    outer_names = (set(model._parameters) | set(model._modules)) - {prefix}
    return "" if inner_names & outer_names else prefix


def _tree(model: nn.Module) -> Node:
    owners: dict[int, str] = {}
    for dotted, param in model.named_parameters():
        owners.setdefault(id(param), dotted)
    walker = _Walker(owners)
    wrapper = _wrapper(model)
    top: list[Node] = []
    for name, param in model._parameters.items():
        if param is not None:
            top.append(walker._leaf(name, name, param))
    for name, child in model._modules.items():
        if child is None:
            continue
        if name == wrapper:
            top.extend(walker.items(child, "", name))
        else:
            top.append(walker.module(child, name, name, name))
    return _group("", top)


def _embedding_params(model: nn.Module) -> tuple[int, int]:
    """Parameters of ``nn.Embedding`` modules (the input tables), and those plus the output embeddings' weight when
    it is not tied to one."""
    from torch import nn

    seen: dict[int, int] = {}
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            for p in module.parameters(recurse=False):
                seen[id(p)] = p.numel()
    try:
        out = model.get_output_embeddings()  # type: ignore[operator]
    except Exception:
        out = None
    tables = int(sum(seen.values()))
    weight = getattr(out, "weight", None)
    if isinstance(weight, nn.Parameter) and id(weight) not in seen:
        return tables, tables + weight.numel()
    return tables, tables


def _plain_json(value: Any) -> Any:
    """``value`` as plain JSON data: tuples as lists, infinities and NaN as null (Mamba's time_step_limit), anything
    else JSON cannot hold as its text."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def build_tree(config: Mapping[str, Any]) -> MetaResult:
    """Build the transformers class for ``config`` on the meta device and read its parameter tree.

    Raises ``ValueError`` (a :class:`~paramscope.engine.spec.SpecError`, its message beginning with the config key)
    for a config that is not a JSON object, a ``model_type`` transformers does not know, an integer over
    ``MAX_INT``, more than ``MAX_LAYERS`` layers, or a config transformers rejects or cannot build.
    """
    model_type, rest = _validate(config)
    cls, how = _pick_class(model_type, rest)
    model, built_without = _build_model(model_type, rest, cls)
    total = int(sum(p.numel() for p in model.parameters()))
    tree = _tree(model)
    if tree.count != total:  # the walk visits what parameters() yields; a mismatch is a bug here
        raise RuntimeError(f"tree count {tree.count:,} != parameters() {total:,} for {cls.__name__}")
    from paramscope.families import check_total  # the families package imports this module

    check_total(total)  # the same ceiling as the formulas' (BioGPT at 10^8-wide layers: 2.6e16)
    tables, embedding = _embedding_params(model)
    notes = [f"counted by transformers {_transformers_version()} on the meta device, no formulas"]
    if how:
        notes.append(how)
    notes.extend(built_without)
    if isinstance(config.get("quantization_config"), Mapping):
        notes.append("quantization_config ignored: the count is of the model's parameters before quantization")
    if any("expert" in name.lower() for name, _ in model.named_modules()):
        notes.append("active parameters are not computed for this model: it has experts, active = total")
    summary = Summary(
        total=total,
        embedding=embedding,
        non_embedding=total - embedding,
        active=total,
        tree=tree,
        input_embedding=tables,
    )
    subs = {}
    for key in TOWERS:
        sub = getattr(model.config, key, None)
        if hasattr(sub, "to_diff_dict"):
            subs[key] = _plain_json(sub.to_diff_dict())
    language = getattr(model, "language_model", None)
    if "text_config" in subs and type(language).__name__.endswith(("ForCausalLM", "ForConditionalGeneration")):
        # the language model built with its own head (BLIP-2's AutoModelForCausalLM or ...ForSeq2SeqLM): its class
        # and its head tied as built, so that the tower read alone is that class
        subs["text_config"]["architectures"] = [type(language).__name__]
        head, table = language.get_output_embeddings(), language.get_input_embeddings()
        subs["text_config"]["tie_word_embeddings"] = (
            head is not None and table is not None and head.weight is table.weight
        )
    elif "text_config" in subs and model.get_output_embeddings() is not None:
        # transformers 5 ties the whole model's LM head by the top-level flag, whatever the text config says
        subs["text_config"]["tie_word_embeddings"] = bool(getattr(model.config, "tie_word_embeddings", False))
    return MetaResult(
        tree=tree, summary=summary, class_name=cls.__name__, model_type=model_type, notes=tuple(notes), sub_configs=subs
    )
