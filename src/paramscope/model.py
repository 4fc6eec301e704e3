"""The model in view is what was *said*: a config (a preset's, a file's, a Hub repo's) and the user's edits.

The resolved :class:`~paramscope.engine.spec.Spec` is computed from the config on every use (microseconds, cached
by config), never stored or edited. An edit writes one key of the config through the family's own names
(``hidden_size`` writes ``n_embd`` for GPT-2); clearing a field deletes its key, so whatever the class derives
follows exactly as transformers rebuilds the edited file, and a stated value stays stated::

    >>> import paramscope
    >>> wide = paramscope.preset("gpt2").edit(hidden_size=1536, num_attention_heads=12)
    >>> wide.config["n_embd"], wide.spec.intermediate_size   # n_inner is null: the MLP follows 4*n_embd
    (1536, 6144)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from paramscope.engine.params import summarize
from paramscope.engine.spec import LIMITS, Spec, SpecError
from paramscope.engine.tree import Summary
from paramscope.families import FAMILIES, BeyondRow, Family, Origin, ReadResult, family_of, read
from paramscope.families.schema import TOWERS, shown_value

if TYPE_CHECKING:  # pragma: no cover - typing only
    from paramscope.families.meta_build import MetaResult

#: What an edit of a key that the config then no longer holds is written as (links: ``key=auto``).
DELETED = None


@dataclass(frozen=True)
class Model:
    """A config as text (canonical JSON, so that a Model is hashable), the config it started from, and
    where that came from (``preset:gpt2``, ``hub:Qwen/Qwen3-8B@main``, ``upload``)."""

    config_json: str
    base_json: str
    origin: str = ""

    @classmethod
    def from_config(cls, config: Mapping[str, Any], origin: str = "") -> Model:
        """The model a config builds; ``SpecError`` naming the key when it cannot be read.

        A ``model_type`` without a family row is counted by transformers itself (the optional extra, see
        :mod:`paramscope.families.meta_build`): exact, but without formulas, memory or FLOPs.
        """
        text = _canonical(config)
        model = cls(text, text, origin)
        model._check()
        return model

    def _check(self) -> None:
        """Raise ``SpecError`` now for a config that neither the family rows nor transformers can count."""
        if self.has_formulas:
            self.read  # noqa: B018
        else:
            self.meta  # noqa: B018

    # ------------------------------------------------------------------------------------- reading
    @property
    def config(self) -> dict[str, Any]:
        """The config as edited (a fresh dict: changing it changes nothing here)."""
        return json.loads(self.config_json)

    @property
    def base(self) -> dict[str, Any]:
        """The config as it started (a fresh dict)."""
        return json.loads(self.base_json)

    @property
    def family(self) -> Family:
        return family_of(self.config)

    @property
    def has_formulas(self) -> bool:
        """True when a family row reads this config (exact formulas, memory, FLOPs); False when only
        transformers can count it (the long tail: a ``model_type`` with no row, counted on the meta device)."""
        return _has_row(self.config_json)

    @property
    def counted_by(self) -> str:
        """How the count is made: "formulas" (a family row), "towers" (a whole model composed from its towers' rows
        and its projector's formulas) or "transformers" (built on the meta device, no formulas)."""
        if self.has_formulas:
            return "formulas"
        return "towers" if self.meta.formulas else "transformers"

    @property
    def meta(self) -> MetaResult:
        """The parameter tree of a config no single row reads: a whole model composed from its towers' rows, or what
        transformers builds on the meta device (no formulas).

        ``SpecError`` naming the supported types and the extra when torch and transformers are not installed.
        """
        return _meta(self.config_json)

    @property
    def notes(self) -> tuple[str, ...]:
        """What this model's count does not cover, with numbers: transformers' own notes for a model without a
        row; for a row, what its released checkpoints hold beyond the model (MTP layers, router buffers)."""
        if not self.has_formulas:
            beyond = _beyond_row(self.config_json) if self.model_type in FAMILIES else None
            why = (f"no formulas: {beyond}",) if beyond else ()
            towers = self.towers
            if not towers:
                return (*why, *self.meta.notes)
            parts = tuple(
                f"the {role} ({m.model_type}, with formulas{head_said(role, m)}): {m.summary.total:,}"
                for role, m in towers
            )
            if self.meta.formulas:
                return (*self.meta.notes, *parts)
            total = self.meta.summary.total
            rest = total - sum(m.summary.total for _, m in towers)
            rest_text = (
                f"the rest (projectors, scales, a head outside the language model, parts without formulas): {rest:,}"
            )
            return (*why, *self.meta.notes, *parts, rest_text)
        config, spec, tree = self.config, self.spec, self.summary.tree
        return tuple(text for note in self.family.notes if (text := note(config, spec, tree)))

    @property
    def towers(self) -> tuple[tuple[str, Model], ...]:
        """The parts of a multimodal config that a family row reads: its language model or text tower
        (``text_config``; CLIP's is an encoder), vision tower (``vision_config``) and audio tower (``audio_config``),
        each with formulas and controls."""
        return _towers(self.config_json)

    @property
    def cost_spec(self) -> Spec | None:
        """The spec that memory, FLOPs and speed run on: this model's own; for a multimodal config counted by
        transformers, its language model's, the rest of the checkpoint (vision and audio towers, projectors) held as
        ``towers_params`` so that the weights are the whole model's; ``None`` when no part has formulas."""
        return self.spec if self.has_formulas else _cost_spec(self.config_json)

    @property
    def summary(self) -> Summary:
        """Total, embedding, non-embedding and active counts: from the formulas, or from transformers."""
        return summarize(self.spec) if self.has_formulas else self.meta.summary

    @property
    def read(self) -> ReadResult:
        return _read(self.config_json)

    @property
    def spec(self) -> Spec:
        """The resolved spec: every size, derived or stated, as transformers would build it."""
        return self.read.spec

    @property
    def ignored(self) -> tuple[str, ...]:
        """Keys of the config the count does not use (none are known for a model transformers counts)."""
        return self.read.ignored if self.has_formulas else ()

    @property
    def model_type(self) -> str:
        return self.read.model_type if self.has_formulas else str(self.config["model_type"])

    @property
    def stored_format(self) -> str:
        """The weight format the checkpoint's ``quantization_config`` stores, where a format here stands for it
        (gpt-oss's ``mxfp4``; ``fp8``; GPTQ's and AWQ's 4 and 8 bits as ``int4`` and ``int8``); "" otherwise."""
        quant = self.config.get("quantization_config")
        if not isinstance(quant, Mapping):
            return ""
        method, bits = quant.get("quant_method"), quant.get("bits")
        if method in ("mxfp4", "fp8"):
            return str(method)
        return {4: "int4", 8: "int8"}.get(bits, "") if method in ("gptq", "awq") and type(bits) is int else ""

    @property
    def preset(self) -> str:
        """The preset this model started from ("" when it did not start from one)."""
        return self.origin.removeprefix("preset:") if self.origin.startswith("preset:") else ""

    @property
    def hub_id(self) -> str:
        """The Hub repo this model's config came from (``Qwen/Qwen3-8B``; "" when it did not come from the Hub)."""
        return self.origin.removeprefix("hub:").rsplit("@", 1)[0] if self.origin.startswith("hub:") else ""

    @property
    def revision(self) -> str:
        """The Hub revision this model's config came from ("" when it did not come from the Hub)."""
        return self.origin.rsplit("@", 1)[1] if self.origin.startswith("hub:") and "@" in self.origin else ""

    def origin_of(self, name: str) -> Origin:
        """Where Spec field ``name`` comes from: stated in the file, a class default, derived, or fixed; an edited key
        says so, with what the file held (or that it did not hold the key)."""
        origin = self.family.origin(name, self.config, self.spec)
        if origin.kind != "stated" or origin.key not in self.edits:
            return origin
        before = f"the file said {shown_value(self.base[origin.key])}" if origin.key in self.base else "not in the file"
        return dataclasses.replace(origin, text=f"edited ({origin.key}; {before})")

    # ------------------------------------------------------------------------------------- editing
    @property
    def edits(self) -> dict[str, Any]:
        """The config keys that differ from the starting config: ``{key: new value}``, ``None`` for deleted; a key of
        a tower's sub-config by its nested name (``text_config.num_hidden_layers``) when both configs hold the tower."""
        now, base = self.config, self.base
        out = _changes(now, base)
        for key in TOWERS:
            if isinstance(now.get(key), dict) and isinstance(base.get(key, {}), dict) and key in out:
                del out[key]
                out.update({f"{key}.{k}": v for k, v in _changes(now[key], base.get(key, {})).items()})
            mirror = f"{key}_dict"  # CLIP's: an edit of the tower writes it there too (_write), so it says no more
            if isinstance(now.get(mirror), dict) and isinstance(base.get(mirror), dict) and mirror in out:
                said = _changes(now[mirror], base[mirror]).items()
                if all(f"{key}.{k}" in out and out[f"{key}.{k}"] == v for k, v in said):
                    del out[mirror]
        return out

    def edit(self, **changes: Any) -> Model:
        """This model with ``changes`` written into its config, read back and validated as one edit.

        Names are Spec fields (``hidden_size``) or the family's own config keys (``n_embd``); ``None``
        deletes the key so that the class derives or defaults it again. A field the class fixes (BLOOM's
        MLP width) is refused with a ``SpecError`` that says which rule fixes it.
        """
        config = self.config
        if not self.has_formulas:  # no row: every name is a key of the config, as transformers reads it
            for key, value in changes.items():
                _write(config, key, value)
            return self.with_config(config)
        family = self.family
        layers_key = family.key_for("num_hidden_layers", config)
        for name, value in changes.items():
            if name in ("num_hidden_layers", layers_key) and isinstance(value, int) and not isinstance(value, bool):
                _follow_layer_count(config, self.spec.num_hidden_layers, value, layers_key or name)
            # the key the config states, else the one its file stated (GPT-2's n_embd, emptied, then typed again, is
            # n_embd again: one edit of one key, which the link writes once)
            key = family.key_for(name, {**self.base, **config})
            if key is None:
                rule = self.origin_of(name).text
                raise SpecError(name, f"not a key of {family.config_class or 'this config'} ({rule})")
            aliases = [k for k in family.keys.get(name, ()) if k in config]  # a file may state two names
            for k in dict.fromkeys((key, *aliases, *family.linked.get(key, ()))):
                if value is DELETED:
                    config.pop(k, None)
                else:
                    config[k] = value
        return self.with_config(config)

    def with_config(self, config: Mapping[str, Any]) -> Model:
        """This model's origin and starting config with another config (validated)."""
        model = Model(_canonical(config), self.base_json, self.origin)
        model._check()
        return model

    def reset(self) -> Model:
        return Model(self.base_json, self.base_json, self.origin)


#: Config keys holding one entry per layer (Gemma 3's and gpt-oss's attention pattern, SmolLM3's NoPE layers,
#: Nemotron-H's blocks, also as one letter per layer, Gemma 3n's activation sparsity): transformers refuses a list
#: whose length is not the layer count, and Nemotron-H takes its depth from the list.
PER_LAYER_LISTS = (
    "layer_types",
    "layers_block_type",
    "no_rope_layers",
    "hybrid_override_pattern",
    "attention_layers",
    "activation_sparsity_pattern",
)
GROUPED_LAYER_TYPES = "attention_types"
#: Every key an edit of the layer count rewrites (a link leaves them out: the layer-count edit rebuilds them).
FOLLOW_LAYERS = (*PER_LAYER_LISTS, GROUPED_LAYER_TYPES)
#: Sizes a config may state once or as one per layer (Gemma 3n's MLP widths): a list follows the layer count as the
#: lists above do, while a size stated once is an edit of its own, which a link keeps.
PER_LAYER_SIZES = ("intermediate_size",)


def _follow_layer_count(config: dict[str, Any], old: int, new: int, field: str) -> None:
    """Per-layer lists follow an edit of the layer count, repeating their pattern (``[s, s, s, s, s, f]`` at 6 layers
    is ``[s, s, s, s, s, f, s, s]`` at 8), so that the edited config still builds; a list of (types, times) groups
    (``attention_types``) is written out as one group of the repeated pattern. A count past the supported maximum is
    refused first, naming ``field``: the lists grow with it (a link asking for 10⁹ layers took minutes and
    gigabytes)."""
    if new > LIMITS["num_hidden_layers"]:
        raise SpecError(field, f"{new:,} is larger than the supported maximum {LIMITS['num_hidden_layers']:,}")
    for key in (*PER_LAYER_LISTS, *PER_LAYER_SIZES):
        values = config.get(key)
        if isinstance(values, (list, str)) and values and len(values) == old and new >= 0:
            longer = [values[i % len(values)] for i in range(new)]
            config[key] = "".join(longer) if isinstance(values, str) else longer
    groups = config.get(GROUPED_LAYER_TYPES)  # GPT-Neo's [[["global", "local"], 12]]: (kinds, times) pairs
    if isinstance(groups, list) and all(
        isinstance(g, list) and len(g) == 2 and isinstance(g[0], list) and type(g[1]) is int for g in groups
    ):
        values = [kind for kinds, times in groups for kind in kinds * times]
        if values and len(values) == old and new >= 0:
            config[GROUPED_LAYER_TYPES] = [[[values[i % len(values)] for i in range(new)], 1]] if new else []


def _changes(now: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: now[k] for k in now if k not in base or base[k] != now[k]}
    out.update({k: DELETED for k in base if k not in now})
    return out


def _write(config: dict[str, Any], key: str, value: Any) -> None:
    """Write ``key`` of a config no row reads: a top-level key, or a tower's key by its nested name
    (``vision_config.hidden_size``), the tower's per-layer lists following an edit of its layer count."""
    tower, dot, name = key.partition(".")
    if not dot:
        if value is DELETED:
            config.pop(key, None)
        else:
            config[key] = value
        return
    if tower not in TOWERS or not name or "." in name:
        raise SpecError(key, f"not a key of this config (a nested key is {' or '.join(TOWERS)} and a key of it)")
    from paramscope.families.wholes import dict_key, written_key

    if written_key(config, key) != key:  # the class reads it at the top level
        _write(config, name, value)
        return

    replaced = dict_key(config, tower)  # where the class builds the tower from "<tower>_dict" (CLIP's): there too
    for target in (tower, replaced) if replaced else (tower,):
        sub = config.get(target)
        sub = dict(sub) if isinstance(sub, dict) else {}
        if value is not DELETED and name in TOWER_LAYER_KEYS and type(value) is int:
            old = sub.get(name)
            if type(old) is int:
                _follow_layer_count(sub, old, value, f"{tower}.{name}")
        _write(sub, name, value)
        config[target] = sub


def head_said(role: str, tower: Model) -> str:
    """Whether a whole model's language model, loaded alone, counts the LM head (LLaVA's does; Qwen2-VL's text model
    is its base model, the head the whole's)."""
    if role != "language model":
        return ""
    has_head = any(leaf.path.startswith("head/") for leaf in tower.summary.tree.leaves())
    return ", its LM head included" if has_head else ", without the whole's LM head"


#: The keys that count a tower's layers (a nested edit of one rewrites the tower's per-layer lists).
TOWER_LAYER_KEYS = frozenset({"num_hidden_layers", "depth", "num_layers", "n_layer"})


def _canonical(config: Mapping[str, Any]) -> str:
    if not isinstance(config, Mapping):
        raise SpecError("config", "expected a JSON object ({...}) at the top level")
    try:
        return json.dumps(config, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SpecError("config", f"not plain JSON data ({exc})") from None


@lru_cache(maxsize=1024)
def _read(config_json: str) -> ReadResult:
    return read(json.loads(config_json))


@lru_cache(maxsize=64)
def _towers(config_json: str) -> tuple[tuple[str, Model], ...]:
    from paramscope.families.wholes import stated_tower

    config = json.loads(config_json)
    read_by_transformers: Mapping[str, Any] = {}
    if not _has_row(config_json):  # as transformers reads them: typed, and with keys it moves into text_config
        try:
            read_by_transformers = _meta(config_json).sub_configs
        except SpecError:
            read_by_transformers = {}
    out = []
    for key, role in TOWERS.items():
        # transformers' reading first: Hub files often type a sub-config with the parent's model_type (Qwen3.5's
        # vision_config says "qwen3_5"), which no row reads
        sub = read_by_transformers.get(key) or stated_tower(config, key)
        kind = sub.get("model_type") if isinstance(sub, dict) else None
        if not isinstance(kind, str) or kind not in FAMILIES:  # no row: nothing to add
            continue
        try:
            model = Model.from_config(sub, origin=key)
        except SpecError:
            continue
        if model.has_formulas:
            text_encoder = key == "text_config" and model.spec.encoder_only
            out.append(("text tower" if text_encoder else role, model))
    return tuple(out)


@lru_cache(maxsize=64)
def _cost_spec(config_json: str) -> Spec | None:
    language = dict(_towers(config_json)).get("language model")
    if language is None:
        return None
    whole, spec = _meta(config_json).summary.total, language.spec
    if spec.architecture == "base" and spec.vocab_size:  # the LM head sits outside the language model (Qwen2.5-VL)
        with_head = dataclasses.replace(spec, architecture="causal_lm")
        spec = with_head if summarize(with_head).total <= whole else spec
    from paramscope.families import wholes

    row = wholes.WHOLES.get(json.loads(config_json).get("model_type"))
    tree = _meta(config_json).summary.tree
    return dataclasses.replace(
        spec,
        towers_params=whole - summarize(spec).total,
        logits_every_token=bool(row and row.logits_every_token),
        towers_fp32=row.fp32_elements(tree, "bf16") if row else 0,
        towers_fp32_fp16=row.fp32_elements(tree, "fp16") if row else 0,
    )


@lru_cache(maxsize=4096)
def _has_row(config_json: str) -> bool:
    try:
        family_of(json.loads(config_json))
    except SpecError as exc:
        if exc.field != "model_type" or not isinstance(json.loads(config_json).get("model_type"), str):
            raise
        return False
    return _beyond_row(config_json) is None


def _beyond_row(config_json: str) -> BeyondRow | None:
    """Why the row cannot describe this config (transformers counts it instead), or None when it can (or when the
    config is wrong in a way the reader names)."""
    try:
        _read(config_json)
    except BeyondRow as exc:
        return exc
    except SpecError:
        return None
    return None


#: Where the package was installed without its `transformers` extra: the install that lets a type without formulas be
#: counted by transformers on the meta device (the CPU build of torch:
#: a plain `pip install torch` fetches a multi-GB CUDA build).
INSTALL = (
    "`pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && pip install transformers==5.23.0`"
)


@lru_cache(maxsize=64)
def _meta(config_json: str) -> MetaResult:
    from paramscope.families import meta_build, wholes

    config = json.loads(config_json)
    why = ""
    if config.get("model_type") in wholes.WHOLES:  # a whole model: its towers' rows and its projector's formulas
        try:
            return wholes.compose(config)
        except wholes.TowerWithoutRow as exc:
            if not meta_build.available():
                raise SpecError(
                    exc.field,
                    f"{exc.message}, and counting the whole model needs torch and transformers: run {INSTALL}",
                ) from None
            why = f"no formulas: {exc}"  # first among the notes, as a row's reason is
    if not meta_build.available():
        beyond = _beyond_row(config_json) if config.get("model_type") in FAMILIES else None
        if beyond is not None:  # a type with a row, in a config the row cannot describe
            raise SpecError(
                beyond.field,
                f"{beyond.message}; counting it needs torch and transformers, not installed here: run {INSTALL}",
            )
        shown = repr(config.get("model_type"))[:60]
        raise SpecError(
            "model_type",
            f"{shown} has no formulas, and counting it as transformers builds it needs torch and transformers, not "
            f"installed here: paste its language model's config, or run {INSTALL} (`python -m paramscope types` lists "
            "the types with formulas)",
        )
    try:
        built = meta_build.build_tree(config)
    except SpecError as exc:
        if exc.field == "model_type":  # one line: what to do, not every type with formulas
            raise SpecError(
                "model_type", f"{exc.message}, nor has formulas here (`python -m paramscope types` lists them)"
            ) from None
        raise
    return dataclasses.replace(built, notes=(why, *built.notes)) if why else built


def field_of_key(family: Family, key: str) -> str:
    """The Spec field a config key states (the key itself when it states none)."""
    return next((name for name, keys in family.keys.items() if key in keys), key)


__all__ = ["DELETED", "FOLLOW_LAYERS", "PER_LAYER_SIZES", "TOWER_LAYER_KEYS", "Model", "field_of_key"]
