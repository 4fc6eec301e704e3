"""The page with a Hub id (AppTest, on the fixture Hub at 127.0.0.1): ?hf= links, the picker, errors, the checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from hf_oracle import hf_count
from hub_server import TINY_BIOGPT, TINY_GEMMA3, TINY_LLAMA, HubServer
from rendered import shown, shown_total
from streamlit.testing.v1 import AppTest

from paramscope.app.controls import MORE_OPEN
from paramscope.io import presets

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture
def page_hub(hub: HubServer) -> HubServer:
    """The fixture Hub with the page's one-hour caches emptied (they are shared by every session of a process)."""
    st.cache_data.clear()
    return hub


def fresh(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    return at


def test_link_opens_a_hub_model_with_edits(page_hub: HubServer) -> None:
    """?hf=ORG/NAME&revision=REV plus an edit rebuilds the edited Hub model; the link keeps all three."""
    at = fresh({"hf": "fixture/llama", "revision": "v1.0", "num_hidden_layers": "4"})
    expected = hf_count({**presets.get("llama-3.2-1b").config, "num_hidden_layers": 4})
    assert f"{expected:,}" == shown_total(at)
    query = at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params)
    assert ("fixture/llama", "v1.0", "4") == (
        _one(query["hf"]),
        _one(query["revision"]),
        _one(query["num_hidden_layers"]),
    )
    assert "preset" not in query
    assert not at.warning


def type_into_picker(at: AppTest, text: str) -> AppTest:
    """Type ``text`` into the picker and press Enter: the browser sends a new option as the widget's string value
    (AppTest's selectbox knows only listed options, so the typed text is listed first)."""
    box = at.selectbox(key="preset")
    box.options.append(box.format_func(text))
    box.set_value(text).run()
    assert not at.exception, at.exception
    return at


def _one(value: object) -> str:
    return value[-1] if isinstance(value, list) else str(value)


def test_hub_link_fetches_config_json_once_per_hour(page_hub: HubServer) -> None:
    """Two sessions opening the same link share one fetch (the server-side cache)."""
    fresh({"hf": "fixture/gpt2"})
    fresh({"hf": "fixture/gpt2"})
    gets = [r for r in page_hub.requests if r.method == "GET" and r.filename == "config.json"]
    assert 1 == len(gets)


@pytest.mark.parametrize(
    ("repo_id", "message"),
    [
        ("fixture/missing", "no model 'fixture/missing'"),
        ("fixture/gated", "HF_TOKEN"),
        ("../etc", "hub id:"),
    ],
)
def test_bad_hub_link_warns_and_shows_the_default(page_hub: HubServer, repo_id: str, message: str) -> None:
    """A link to a Hub id that cannot be read warns with the reason and shows GPT-2."""
    at = fresh({"hf": repo_id})
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(at)
    assert any(message in shown(w.value) for w in at.warning), [shown(w.value) for w in at.warning]


def test_picker_takes_a_hub_id(page_hub: HubServer) -> None:
    """Typing ORG/NAME into the picker loads that model; a preset's Hub name loads the preset."""
    at = fresh()
    type_into_picker(at, "fixture/tiny-llama")
    assert f"{hf_count(TINY_LLAMA):,}" == shown_total(at)
    assert "fixture/tiny-llama" == _one(at.query_params["hf"])
    type_into_picker(at, "Qwen/Qwen3-8B")
    assert (f"{presets.get('qwen3-8b').expected_total:,}", "qwen3-8b") == (
        shown_total(at),
        _one(at.query_params["preset"]),
    )
    type_into_picker(at, "fixture/gpt2@v1.0")
    assert ("fixture/gpt2", "v1.0") == (_one(at.query_params["hf"]), _one(at.query_params["revision"]))


def test_picker_error_keeps_the_model(page_hub: HubServer) -> None:
    """A Hub id that cannot be read says why under the picker and keeps the model in view."""
    at = fresh({"preset": "gpt2-medium"})
    type_into_picker(at, "fixture/missing")
    assert f"{presets.get('gpt2-medium').expected_total:,}" == shown_total(at)
    assert any("no model 'fixture/missing'" in shown(e.value) for e in at.error)
    assert "gpt2-medium" == at.selectbox(key="preset").value


def test_checkpoint_beside_the_count(page_hub: HubServer) -> None:
    """The checkpoint expander shows the stored count and explains the tied head stored twice."""
    at = fresh({"hf": "fixture/tiny-llama"})
    at.session_state["x_checkpoint"] = True  # the expander opened (it reads the headers only when open)
    at.run()
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "lm_head.weight, stored although the class built from config.json ties it" in text
    assert "equals the exact count" in text


def test_model_type_without_a_row(page_hub: HubServer) -> None:
    """A Hub model whose type has no row is counted by transformers; other tabs say what they need."""
    import torch
    from transformers import BioGptConfig, BioGptForCausalLM

    config = {k: v for k, v in TINY_BIOGPT.items() if k not in ("model_type", "architectures")}
    with torch.device("meta"):
        expected = sum(p.numel() for p in BioGptForCausalLM(BioGptConfig(**config)).parameters())
    at = fresh({"hf": "fixture/tiny-biogpt"})
    assert f"{expected:,}" == shown_total(at)
    assert any("counted by transformers, no formulas" in shown(i.value) for i in at.info)
    at = fresh({"hf": "fixture/tiny-biogpt", "tab": "Memory"})
    assert any("needs the formulas of a family row" in shown(i.value) for i in at.info)


def test_multimodal_model_and_its_towers(page_hub: HubServer) -> None:
    """A multimodal Gemma 3 is counted whole by transformers; its language model and its SigLIP vision tower are
    counted beside it with formulas, the projector is the rest; one click shows either part with its controls."""
    import torch
    from transformers import (
        Gemma3Config,
        Gemma3ForCausalLM,
        Gemma3ForConditionalGeneration,
        Gemma3TextConfig,
        SiglipVisionConfig,
        SiglipVisionModel,
    )

    config = {k: v for k, v in TINY_GEMMA3.items() if k not in ("model_type", "architectures")}
    text = {k: v for k, v in TINY_GEMMA3["text_config"].items() if k != "model_type"}
    vision = {k: v for k, v in TINY_GEMMA3["vision_config"].items() if k != "model_type"}
    with torch.device("meta"):
        whole = sum(p.numel() for p in Gemma3ForConditionalGeneration(Gemma3Config(**config)).parameters())
        language = sum(p.numel() for p in Gemma3ForCausalLM(Gemma3TextConfig(**text)).parameters())
        tower = sum(p.numel() for p in SiglipVisionModel(SiglipVisionConfig(**vision)).parameters())
    at = fresh({"hf": "fixture/tiny-gemma3"})
    assert f"{whole:,}" == shown_total(at)
    captions = [shown(c.value) for c in at.caption]
    assert any(
        f"the language model (gemma3_text, with formulas, its LM head included): {language:,}" in c for c in captions
    )
    assert any(f"the vision tower (siglip_vision_model, with formulas): {tower:,}" in c for c in captions)
    rest = whole - language - tower  # the projector: the tree's row, with formulas in the nested names
    table = at.dataframe[0].value
    projector = table[table["component"].str.strip() == "projector"]
    assert [rest] == list(projector["parameters"])
    next(b for b in at.button if "Load the vision tower" in b.label).click().run()
    assert not at.exception
    assert f"{tower:,}" == shown_total(at)
    at = fresh({"hf": "fixture/tiny-gemma3"})
    next(b for b in at.button if "Load the language model" in b.label).click().run()
    assert not at.exception
    assert f"{language:,}" == shown_total(at)
    at.session_state[MORE_OPEN] = ["Exact sizes"]  # the exact boxes are drawn only while their section is open
    at.run()
    assert at.number_input(key="f.hidden_size").value == 64


def test_memory_and_compute_of_a_multimodal_model(page_hub: HubServer) -> None:
    """A multimodal Gemma 3 (counted by transformers) has Memory and Compute: its language model's, with the vision
    tower and projector (the whole less Gemma3ForCausalLM, both built on the meta device) as weights; the tabs that
    need the whole model's formulas say so."""
    import torch
    from transformers import Gemma3Config, Gemma3ForCausalLM, Gemma3ForConditionalGeneration, Gemma3TextConfig

    config = {k: v for k, v in TINY_GEMMA3.items() if k not in ("model_type", "architectures")}
    text = {k: v for k, v in TINY_GEMMA3["text_config"].items() if k != "model_type"}
    with torch.device("meta"):
        whole = sum(p.numel() for p in Gemma3ForConditionalGeneration(Gemma3Config(**config)).parameters())
        language = sum(p.numel() for p in Gemma3ForCausalLM(Gemma3TextConfig(**text)).parameters())
    at = fresh({"hf": "fixture/tiny-gemma3", "tab": "Memory"})
    assert any(f"{whole - language:,} parameters, counted with formulas" in shown(c.value) for c in at.caption)
    formulas = " ".join(at.table[0].value["formula"])
    assert f"{whole - language:,} vision / audio tower and projector weights × 2 B" in formulas
    at = fresh({"hf": "fixture/tiny-gemma3", "tab": "Compute"})
    assert any(m.label == "Forward FLOPs / token" for m in at.metric)
    at = fresh({"hf": "fixture/tiny-gemma3", "tab": "Compare"})
    assert any("one of its towers" in shown(i.value) for i in at.info)


def test_a_hub_that_cannot_answer_now_keeps_the_link_and_says_what_to_do(page_hub: HubServer) -> None:
    """?hf= naming a model the Hub cannot serve now (rate-limited, as offline or unreachable): the page shows GPT-2,
    says to try again or paste the config in Your model, and the address bar keeps the id (it became ?preset=gpt2,
    losing it); the picker says the same next step."""
    at = fresh({"hf": "fixture/rate-limited"})
    warnings = [shown(w.value) for w in at.warning]
    assert any("paste the model's config.json in the Your model tab" in w for w in warnings), warnings
    assert ("fixture/rate-limited", "preset" in at.query_params) == (_one(at.query_params["hf"]), False)
    type_into_picker(at, "fixture/rate-limited")
    assert any("Your model tab" in shown(c.value) for c in at.sidebar.caption)


def test_a_whole_multimodal_model_gets_one_story(page_hub: HubServer) -> None:
    """A whole Gemma 3 (a whole-model row: its towers with formulas): the Parameters tab's banner and the side panel
    say the same thing, that Memory and Compute run on its language model and the side panel edits each tower in
    place, and the side panel holds those controls (it said "No controls: no family row", Your model "memory,
    compute and the controls need a family row")."""
    at = fresh({"hf": "fixture/tiny-gemma3"})
    story = "Memory and Compute run on its language model, with the other towers held as weights; the side panel"
    banner = [shown(i.value) for i in at.info if "counted with formulas" in shown(i.value)]
    side = [shown(c.value) for c in at.sidebar.caption if story in shown(c.value)]
    assert (True, True) == (all(story in t for t in banner + side), bool(banner and side)), (banner, side)
    keys = {w.key for w in at.sidebar.number_input}
    assert {"f.text_config.num_hidden_layers", "f.vision_config.num_hidden_layers"} <= keys
    assert not any("family row" in t for t in side)
