"""Every preset: its count equals its recorded total and, for transformers model types, the real class."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from hf_oracle import hf_count

import paramscope
from paramscope.engine.params import count
from paramscope.families import read
from paramscope.families.wholes import WHOLES
from paramscope.io import presets
from paramscope.io.config_json import read_json_text

NAMES = presets.names()
HF_NAMES = [n for n in NAMES if presets.get(n).config.get("model_type") != "paramscope"]
#: Whole models (towers composed by a whole-model row): counted as their whole class, their costs on the language model
WHOLE_NAMES = [n for n in NAMES if presets.get(n).config["model_type"] in WHOLES]

REQUIRED = (
    "gpt2",
    "gpt2-medium",
    "gpt2-large",
    "gpt2-xl",
    "bert-base-uncased",
    "bert-large-uncased",
    "bert-base-chinese",
    "roberta-base",
    "distilbert-base-uncased",
    "albert-base-v2",
    "t5-small",
    "t5-base",
    "flan-t5-base",
    "bart-base",
    "opt-125m",
    "opt-350m",
    "bloom-560m",
    "pythia-160m",
    "gpt-j-6b",
    "falcon-7b",
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3-8b",
    "llama-3-70b",
    "llama-3.2-1b",
    "mistral-7b",
    "mixtral-8x7b",
    "qwen2.5-7b",
    "qwen2.5-0.5b",
    "qwen3-8b",
    "gemma-2b",
    "gemma-2-9b",
    "phi-2",
    "phi-3-mini",
    "starcoder2-3b",
    "starcoderbase-1b",
    "qwen1.5-moe-a2.7b",
    "deepseek-v2-lite",
    "gpt3-175b",
    "palm-540b",
    "transformer-base",
    "transformer-big",
    "hybrid-rnn-transformer",
    "toy-tied-embedding",
    "toy-feedforward-lm",
    "toy-transformer-layer",
    "toy-transformer-lm",
)

#: Totals published outside the presets (seed notebooks, model cards computed by the real classes).
PUBLISHED = [
    ("gpt2", 124_439_808),
    ("bert-base-chinese", 102_290_312),
    ("hybrid-rnn-transformer", 18_792_288),
    ("toy-tied-embedding", 1_280),
    ("toy-feedforward-lm", 1_461),
    ("toy-transformer-layer", 200),
    ("toy-transformer-lm", 1_851),
    ("gemma-3-4b-it", 4_300_079_472),  # the model card's safetensors total
    ("qwen2.5-vl-7b-instruct", 8_292_166_656),  # the Hub page's safetensors total
    # the checkpoints' safetensors totals printed beside the copied config.json (gogongxt/python, scripts/models)
    ("qwen3-vl-8b-instruct", 8_767_123_696),
    ("qwen3-vl-30b-a3b-instruct", 31_070_754_032),
    ("qwen3-vl-235b-a22b-instruct", 235_670_022_896),
]


#: Model cards' rounded totals and active counts, in billions: (preset, total, active, active counts the input table).
PUBLISHED_MOE = [
    ("gpt-oss-20b", "20.91", "3.61", False),  # openai/gpt-oss-20b model card: 20.91B total, 3.61B active
    ("gpt-oss-120b", "116.83", "5.13", False),  # openai/gpt-oss-120b: 116.83B total, 5.13B active
    ("mixtral-8x22b", "141", "39", True),  # mistral.ai announcement: 141B total, 39B active
    ("olmoe-1b-7b-0924", "6.9", "1.3", True),  # OLMoE paper (Muennighoff et al. 2024): 6.9B total, 1.3B active
]


@pytest.mark.parametrize(("name", "total", "active", "with_table"), PUBLISHED_MOE)
def test_published_moe_totals_and_active(name: str, total: str, active: str, with_table: bool) -> None:
    """MoE presets reproduce their model cards' total and active counts, at the cards' rounding."""
    s = paramscope.summarize(presets.model(name))
    shown = s.active if with_table else s.active_without_input_embedding

    def rounded(value: int, like: str) -> str:
        return f"{value / 1e9:.{len(like.partition('.')[2])}f}"

    assert (total, active) == (rounded(s.total, total), rounded(shown, active))


#: Hub pages' and papers' rounded totals: (preset, total in billions at the source's rounding).
PUBLISHED_ROUNDED = [
    ("voxtral-mini-3b-2507", "4.68"),  # mistralai/Voxtral-Mini-3B-2507 on the Hub: 4.68B params
    ("qwen2-audio-7b-instruct", "8.4"),  # Qwen/Qwen2-Audio-7B-Instruct on the Hub: 8.4B params
]


@pytest.mark.parametrize(("name", "total"), PUBLISHED_ROUNDED)
def test_published_rounded_totals(name: str, total: str) -> None:
    """Presets whose sources print a rounded total reproduce it at that rounding."""
    assert total == f"{presets.model(name).summary.total / 1e9:.{len(total.partition('.')[2])}f}"


def _files() -> list[tuple[str, dict]]:
    folder = resources.files("paramscope.preset_data")
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            out.append((entry.name.removesuffix(".json"), json.loads(entry.read_text())))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_engine_total_equals_expected_total(name):
    """The engine's total for a preset equals the total recorded in the preset file (a whole model's cost spec
    holds its other towers as weights, so its total is the whole's too; a dual encoder such as CLIP has none)."""
    preset = presets.get(name)
    costs = count(presets.load(name)).count if name in presets.names_with_costs() else preset.expected_total
    assert preset.expected_total == costs == presets.model(name).summary.total


def test_only_the_dual_encoders_have_no_costs():
    """Every preset has memory and compute but the whole models whose row has no language model (CLIP's), so the
    tests that run costs on ``names_with_costs`` leave out nothing else."""
    dual = {n for n in WHOLE_NAMES if not WHOLES[presets.get(n).config["model_type"]].language}
    assert (["clip-vit-large-patch14"], set(NAMES) - dual) == (sorted(dual), set(presets.names_with_costs()))


@pytest.mark.parametrize("name", WHOLE_NAMES)
def test_whole_presets_equal_their_whole_class(name):
    """A whole model's preset equals its whole transformers class built from the file on the meta device."""
    from test_wholes import _hf_total

    assert _hf_total(presets.get(name).config) == presets.model(name).summary.total


@pytest.mark.parametrize("name", sorted(set(HF_NAMES) - set(WHOLE_NAMES)))
def test_engine_total_equals_transformers(name):
    """The engine's total equals the real transformers class built from the same config on the meta device."""
    preset = presets.get(name)
    assert hf_count(preset.config) == count(presets.load(name)).count


@pytest.mark.parametrize("name, total", PUBLISHED)
def test_published_totals(name, total):
    """Presets reproduce the totals their sources print."""
    assert total == count(presets.load(name)).count


#: Checkpoints whose safetensors also hold a multi-token-prediction layer transformers does not build: (preset, the
#: safetensors total printed beside the copied config.json in gogongxt/python's reports, the mtp.* tensors it lists).
PUBLISHED_WITH_MTP = [
    ("qwen3.5-27b", 27_781_427_952, 424_699_392),
    ("qwen3.5-35b-a3b", 35_951_822_704, 844_640_768),
]


@pytest.mark.parametrize("name, total, mtp", PUBLISHED_WITH_MTP)
def test_published_totals_less_the_mtp_layer(name, total, mtp):
    """The class's total and the MTP layer's tensors add up to the checkpoint's safetensors total."""
    assert total == presets.model(name).summary.total + mtp


def test_names_are_unique_and_match_file_names():
    """Each file's name field equals its file name, and no two files share a name."""
    files = _files()
    stems = [stem for stem, _ in files]
    names = [data["name"] for _, data in files]
    assert stems == names
    assert len(set(names)) == len(names)
    assert sorted(NAMES) == sorted(names)


def test_required_presets_exist():
    """Every model the app promises is shipped as a preset, and there are at least 80."""
    missing = [n for n in REQUIRED if n not in NAMES]
    assert missing == []
    assert len(NAMES) >= 80


@pytest.mark.parametrize("stem, data", _files(), ids=[s for s, _ in _files()])
def test_preset_file_fields(stem, data):
    """Each file holds a hub-style slug, a title, a family, a source, an integer total and a config object."""
    assert re.fullmatch(r"[a-z0-9][a-z0-9.\-]*", data["name"])
    for key in ("title", "family", "source", "notes"):
        assert isinstance(data[key], str) and data[key].strip(), key
    assert isinstance(data["expected_total"], int) and not isinstance(data["expected_total"], bool)
    assert data["expected_total"] > 0
    assert isinstance(data["config"], dict) and isinstance(data["config"].get("model_type"), str)


@pytest.mark.parametrize("name", sorted(set(NAMES) - set(WHOLE_NAMES)))
def test_preset_reads_like_an_uploaded_config(name):
    """A preset's spec is what the config reader makes of its config, also via the JSON-text upload path."""
    config = presets.get(name).config
    spec = presets.load(name)
    assert read(config).spec == spec
    assert read_json_text(json.dumps(config).encode()).spec == spec


def test_families_group_every_preset():
    """by_family() lists every preset exactly once."""
    grouped = [n for members in presets.by_family().values() for n in members]
    assert sorted(grouped) == sorted(NAMES)


def test_deepseek_v3_checkpoint_notes() -> None:
    """DeepSeek-V3's note counts its one MTP layer by hand: MLA attention (q_a 7168×1536, its norm, q_b 1536×128·192,
    kv_a 7168×576, its norm 512, kv_b 512×128·256, o 128·128×7168), an MoE layer (router 256×7168, 256 + 1 shared
    experts of 3×7168×2048), two norms, eh_proj 2·7168×7168 and three norms; and 58 × 256 router-bias buffers."""
    h = 7168
    attention = h * 1536 + 1536 + 1536 * 128 * 192 + h * 576 + 512 + 512 * 128 * 256 + 128 * 128 * h
    moe = 256 * h + 257 * 3 * h * 2048
    layer = attention + moe + 2 * h + 2 * h * h + 3 * h
    notes = presets.model("deepseek-v3").notes
    assert f"{layer:,} parameters" in notes[0]
    assert f"{58 * 256:,} router biases" in notes[1]


def test_longcat_flash_is_560b_in_its_checkpoint_and_31b_active_at_most() -> None:
    """LongCat-Flash (the class's defaults are its released sizes): per layer two MLA blocks and two dense MLPs, and
    512 experts (3 x 2,048 x 6,144 each) with 256 zero-computation slots; transformers allocates gate_up rows for the
    zero slots too (28 x 256 x 2 x 2,048 x 6,144), which the checkpoint lacks: 741.1B built, 560.7B released (the
    card's 560B); 12 slots per token, at most all real experts: 31.4B active without the input table (card: 18.6B to
    31.3B, dynamic)."""
    from paramscope.model import Model

    model = Model.from_config({"model_type": "longcat_flash"})
    s = model.summary
    zero_rows = 28 * 256 * 2 * 2048 * 6144
    assert (741.1, 560.7) == (round(s.total / 1e9, 1), round((s.total - zero_rows) / 1e9, 1))
    assert f"{s.total - zero_rows:,}" in model.notes[0]
    assert 31.4 == round(s.active_without_input_embedding / 1e9, 1)


#: Run in a fresh interpreter in which torch, transformers and timm cannot be imported (``pip install .`` alone, or
#: the deployed page before its first model without formulas): every config given on stdin, counted.
_WITHOUT_TORCH = """
import importlib.abc, json, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("torch", "transformers", "timm"):
            raise ImportError(f"{name} is not installed")
        return None

sys.meta_path.insert(0, Blocked())
from paramscope.engine.memory import memory
from paramscope.engine.run import RunSettings
from paramscope.model import Model

out = {}
for name, config in json.load(sys.stdin).items():
    model = Model.from_config(config)
    cost = memory(model.cost_spec, RunSettings()).count if model.cost_spec else None
    out[name] = [model.summary.total, model.counted_by, cost]
print(json.dumps(out))
"""


def test_every_preset_and_family_case_counts_without_torch() -> None:
    """The rows need neither torch nor transformers: in a process where neither can be imported, every preset, every
    family's differential case and every whole row's small config is counted with formulas (``formulas``, or
    ``towers`` for a whole of rows), to the same total and the same inference memory as here."""
    import subprocess
    import sys

    from test_engine_vs_hf import CASES
    from test_wholes import SMALL

    from paramscope.engine.memory import memory
    from paramscope.engine.run import RunSettings
    from paramscope.model import Model

    configs = {f"preset {n}": presets.get(n).config for n in NAMES}
    configs |= {f"case {n}": c for n, c in CASES.items()}
    configs |= {f"whole {t}": {"model_type": t, **c} for t, c in SMALL.items()}
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_TORCH], input=json.dumps(configs), capture_output=True, text=True, check=True
    )
    expected = {}
    for name, config in configs.items():
        model = Model.from_config(config)
        cost = memory(model.cost_spec, RunSettings()).count if model.cost_spec else None
        expected[name] = [model.summary.total, "towers" if model.model_type in WHOLES else "formulas", cost]
    assert expected == json.loads(done.stdout)
