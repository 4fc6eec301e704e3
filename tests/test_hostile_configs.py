"""Hostile config files: whatever a person uploads, the reader answers with a spec or a clear ValueError."""

from __future__ import annotations

import json
import re
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramscope import count, get_preset, preset_names, read, read_json_text
from paramscope.families import FAMILIES, hf_defaults
from paramscope.io.config_json import MAX_CONFIG_BYTES

# Every key any family reads, plus a few that are not.
KEYS = sorted({k for d in hf_defaults().values() for k in d} | {"n_inner", "num_local_experts", "_paramscope"})

NASTY_SCALARS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, -1, 2**63, 10**400, 1e309, -1e309, float("nan"), 0.5, 1e-300, True, False, None]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["", "12", "1e3", " 64 ", "0x40", "∞", "\x00", "NaN", "true", "1_000", "9" * 200]),
)
VALUES = st.recursive(
    NASTY_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def hostile_configs(draw: st.DrawFn) -> dict:
    model_type = draw(st.one_of(st.sampled_from(sorted(FAMILIES)), NASTY_SCALARS))
    cfg = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=12))
    cfg["model_type"] = model_type
    return cfg


def outcome(config: object) -> str:
    """'ok' when the reader accepts it (and the tree counts), 'refused' on ValueError; anything else propagates."""
    try:
        spec = read(config).spec  # type: ignore[arg-type]
        count(spec)
        return "ok"
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        return "refused"


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(hostile_configs())
def test_random_hostile_configs_never_crash(config: dict) -> None:
    """Random keys with huge, negative, NaN, infinite, textual, nested and missing values: spec or ValueError."""
    assert outcome(config) in ("ok", "refused")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_binary_garbage_is_refused_cleanly(blob: bytes) -> None:
    """Arbitrary bytes as an uploaded file: a spec (if it happens to be a valid config) or a ValueError."""
    try:
        read_json_text(blob)
    except ValueError:
        pass


DEEP = "[" * 100_000 + "]" * 100_000
CASES = {
    "not an object": ("[1, 2, 3]", "expected a JSON object"),
    "deeply nested": (DEEP, "config"),
    "too big": ('{"a": "' + "x" * (MAX_CONFIG_BYTES + 10) + '"}', "the limit is"),
    "NaN literal": ('{"model_type": "gpt2", "n_embd": NaN}', "NaN is not a number"),
    "Infinity literal": ('{"model_type": "gpt2", "n_embd": Infinity}', "n_embd: expected a whole number, got inf"),
    # transformers writes float("inf") as Infinity (Mamba-2's time_step_limit): a float, harmless where unread
    "Infinity in an unread key": ('{"model_type": "gpt2", "x": [0.0, Infinity]}', ""),
    "1e309": ('{"model_type": "gpt2", "n_embd": 1e309}', "n_embd: expected a whole number"),
    "huge int": ('{"model_type": "llama", "hidden_size": ' + "9" * 5000 + "}", "config"),
    "negative": ('{"model_type": "llama", "num_hidden_layers": -1}', "num_hidden_layers: must not be negative"),
    "string width": ('{"model_type": "gpt2", "n_embd": "wide"}', "n_embd: expected a whole number"),
    "list width": ('{"model_type": "gpt2", "n_embd": [768]}', "n_embd: expected a whole number"),
    "unknown type": (
        '{"model_type": "biogpt"}',
        "model_type: 'biogpt' has no formula row (`python -m paramscope types`",
    ),
    "missing type": ('{"foo": 1}', 'model_type: missing: a config.json names its type ("model_type": "llama")'),
    "zero sparse step": ('{"model_type": "qwen2_moe", "decoder_sparse_step": 0}', "decoder_sparse_step"),
    "bad architecture": ('{"model_type": "bert", "architectures": ["BertForQuestionAnswering"]}', "architectures"),
    "dict activation": (
        '{"model_type": "gpt2", "activation_function": {"a": 1}}',
        "activation_function: expected a short text",
    ),
    "negative layer index": ('{"model_type": "qwen2_moe", "mlp_only_layers": [-1]}', "mlp_only_layers"),
    "control chars": ('{"model_type": "gpt2\\u0000\\u0007"}', "has no formula row"),
    "zip-bomb-like text": ('{"model_type": "gpt2", "x": "' + "A" * 900_000 + '"}', ""),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_named_hostile_inputs(name: str) -> None:
    """Each classic hostile input gets a one-line, short ValueError naming the field (or, if harmless, is read)."""
    text, message = CASES[name]
    if not message:
        assert ("x",) == read_json_text(text).ignored
        return
    with pytest.raises(ValueError) as err:
        read_json_text(text)
    assert message in str(err.value)
    assert len(str(err.value)) < 600 and "\n" not in str(err.value)


def test_compressed_size_is_not_trusted() -> None:
    """Size limits apply to what is parsed, so a small compressed payload cannot expand past them."""
    bomb = zlib.decompress(zlib.compress(b" " * (MAX_CONFIG_BYTES * 2)))
    with pytest.raises(ValueError, match="the limit is"):
        read_json_text(bomb)


def test_repeated_keys_are_refused_naming_the_key() -> None:
    """A key stated twice in pasted or uploaded text (Python's json, and so transformers, would silently keep the
    last) is refused, naming the key and both values, at any depth."""
    with pytest.raises(ValueError, match=r"^n_layer: stated twice \(2, then 5\); transformers would keep the last"):
        read_json_text('{"model_type": "gpt2", "n_layer": 2, "n_layer": 5}')
    with pytest.raises(ValueError, match=r"^factor: stated twice"):
        read_json_text('{"model_type": "llama", "rope_scaling": {"factor": 8.0, "factor": 4.0}}')


def test_repeated_keys_are_visible_in_json_module() -> None:
    """Guard for the test above: the json module keeps the last of repeated keys, silently."""
    assert {"a": 2} == json.loads('{"a": 1, "a": 2}')


PRESET_CONFIGS = {name: get_preset(name).config for name in preset_names()}


@st.composite
def edited_presets(draw: st.DrawFn) -> tuple[str, dict, list[str]]:
    """A preset's config.json with one to three of its keys (or any key a family reads) set to sizes up to 10^30."""
    name = draw(st.sampled_from(sorted(PRESET_CONFIGS)))
    config = dict(PRESET_CONFIGS[name])
    keys = draw(st.lists(st.sampled_from(sorted(set(config) | set(KEYS))), min_size=1, max_size=3, unique=True))
    for key in keys:
        config[key] = draw(st.one_of(st.integers(-(10**30), 10**30), st.sampled_from([10**12, 10**8, 100_000, 0, -1])))
    return name, config, keys


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(edited_presets())
def test_huge_sizes_in_real_configs_are_bounded(case: tuple[str, dict, list[str]]) -> None:
    """A real model's config with huge sizes (the links and files of issue 29: 999,999,999,999 layers, a 10^29
    kv_lora_rank): read in under 1 s and 200 MB, refused with a message that names its field, or counted at no more
    than MAX_PARAMS parameters."""
    import time
    import tracemalloc

    from paramscope.families import MAX_PARAMS

    _, config, _ = case
    tracemalloc.start()
    start = time.perf_counter()
    try:
        total, error = count(read(config).spec).count, ""
    except ValueError as exc:
        total, error = 0, str(exc)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    named = not error or bool(re.match(r"^[\w.\[\]-]+: ", error))
    assert (True, True, True, True) == (seconds < 1.0, peak < 200 * 2**20, named, total <= MAX_PARAMS), error


@pytest.mark.parametrize(
    ("preset", "key", "value"),
    [
        ("gemma-2-9b", "num_hidden_layers", 999_999_999_999),  # held a core for days through a link
        ("ernie-4.5-21b-a3b", "num_hidden_layers", 999_999_999_999),  # grew the server by 2.5 GiB in 16 s
        ("gemma-2-9b", "num_hidden_layers", 10**8),  # 9.6 s before the bound came first
        ("deepseek-v3", "kv_lora_rank", 999_999_999_999),  # 2.4e18 parameters, no warning
        ("deepseek-v3", "kv_lora_rank", 10**29),
        ("deepseek-v3", "q_lora_rank", 10**29),
    ],
)
def test_issue_29_sizes_are_refused_at_once(preset: str, key: str, value: int) -> None:
    """The sizes that took a server down or built absurd totals are refused in milliseconds, naming the key."""
    import time

    config = dict(PRESET_CONFIGS[preset]) | {key: value}
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"^{key}: {value:,} is larger than the supported maximum"):
        read(config)
    assert time.perf_counter() - start < 0.05


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hidden_size", "768"),
        ("hidden_size", "1,024"),
        ("hidden_size", "1_024"),
        ("hidden_size", "١٢"),  # Arabic-Indic digits
        ("hidden_size", "²"),
        ("hidden_size", "+-5"),
        ("hidden_size", 768.0),
        ("hidden_size", True),
        ("num_hidden_layers", "12"),
        ("tie_word_embeddings", 1),
        ("tie_word_embeddings", "true"),
    ],
)
def test_values_of_another_json_type_are_refused_as_transformers_does(key: str, value: object) -> None:
    """Texts, floats and booleans where a config class types a whole number (and numbers or texts where it types a
    boolean) are refused by transformers' own config class (strict dataclass validation), so ParamScope refuses them
    too, naming the key and saying why, instead of turning "1,024" or "١٢" into a number."""
    import warnings

    from transformers import AutoConfig

    config = dict(get_preset("llama-3.2-1b").config) | {key: value}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            AutoConfig.for_model("llama", **{k: v for k, v in config.items() if k != "model_type"})
            transformers_refuses = False
        except Exception:
            transformers_refuses = True
    with pytest.raises(ValueError, match=rf"^{key}: expected .*\(transformers' config classes refuse it"):
        read(config)
    assert transformers_refuses
