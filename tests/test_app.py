"""The Streamlit page, driven headlessly with streamlit.testing.v1.AppTest.

Every expected number comes from the preset's config.json edited by hand in the test and read by the reader
(tests/test_edits.py checks those edited files against transformers), never from the page.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hf_oracle import hf_count
from rendered import numbers, numbers_in, shown, shown_total
from streamlit.testing.v1 import AppTest

from paramscope.app import charts
from paramscope.app.controls import MORE, MORE_OPEN, SECTIONS, SIZE_OPEN
from paramscope.app.session import SHARE_KEY
from paramscope.engine.components import EMBEDDING_CONVENTION
from paramscope.engine.params import summarize
from paramscope.engine.spec import Spec, short
from paramscope.io import link, presets
from paramscope.io.config_json import read_json_text
from paramscope.io.encode import decode_config, encode_config

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def fresh(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(query or {})
    return at.run()


def pie_total(at: AppTest) -> int:
    """The sum of the slices of the page's pie chart."""
    pie = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert "pie" == pie["type"]
    return sum(pie["values"])


def edited(name: str, **keys: object) -> Spec:
    """Preset ``name``'s config.json with ``keys`` set, as the reader (and transformers) reads the file."""
    return read_json_text(json.dumps({**presets.get(name).config, **keys})).spec


def expected(name: str, **keys: object) -> str:
    return f"{summarize(edited(name, **keys)).total:,}"


def open_section(at: AppTest, key: str) -> AppTest:
    """Open the sidebar sections that hold control ``key`` (a slider in Size, its exact box in Exact sizes), as a
    click on the section's pill in More controls does."""
    name = "intermediate_size" if key == "f_ffn_multiplier" else key.removeprefix("f.")
    titles = [title for title, names in SECTIONS.items() if name in names and title != "Size"]
    at.session_state[MORE_OPEN] = list(dict.fromkeys([*at.session_state[MORE_OPEN], *titles]))
    return at.run()


def open_sections(at: AppTest) -> set[str]:
    """The sidebar sections open on the page: Size, and the pills picked in More controls (a section the model has
    no use for is not offered at all)."""
    return ({"Size"} if at.session_state[SIZE_OPEN] else set()) | set(at.session_state[MORE_OPEN])


def more_controls(at: AppTest):
    """The side panel's row of pills that opens the sections after Size."""
    return next(p for p in at.sidebar.button_group if p.label == "More controls")


def every_section(at: AppTest) -> AppTest:
    """Open every section of the sidebar."""
    at.session_state[MORE_OPEN] = more_controls(at).options
    return at.run()


def move(at: AppTest, kind: str, key: str, value: object) -> AppTest:
    if key not in [w.key for w in getattr(at, kind)]:
        open_section(at, key)
    widget = getattr(at, kind)(key=key)
    (widget.select(value) if kind == "selectbox" else widget.set_value(value)).run()
    assert not at.exception, at.exception
    return at


@pytest.fixture(scope="module")
def session() -> AppTest:
    """One page, reused by the tests that only pick presets (each picks its own)."""
    return fresh()


def test_first_open_is_gpt2():
    """Opening the page with no link shows GPT-2 with its exact total, short form and link."""
    at = fresh()
    assert not at.exception
    gpt2 = presets.get("gpt2").expected_total
    shown_numbers = numbers(at)
    assert f"{gpt2:,}" == shown_numbers["Total parameters"]["value"]
    assert short(gpt2) == shown_numbers["Short form"]["value"]
    assert {"preset": "gpt2"} == at.query_params
    assert "gpt2" == at.selectbox(key="preset").value
    assert [] == [shown(w.value) for w in at.warning] + [shown(e.value) for e in at.error]
    assert ["Parameters", "Memory", "Compute", "Your model", "Compare", "Architecture", "Why so big?"] == [
        t.label for t in at.tabs
    ]


# GPT-2 small's components written out by hand (d=768, L=12, V=50,257, T=1,024, d_ff=3,072; biases everywhere)
GPT2_BY_HAND = {
    "Final norm": 2 * 768,
    "Layer norms": 12 * 2 * 2 * 768,
    "Position embedding": 1024 * 768,
    "Attention": 12 * ((768 + 1) * 3 * 768 + (768 + 1) * 768),
    "Token embedding": 50257 * 768,
    "MLP": 12 * ((768 + 1) * 3072 + (3072 + 1) * 768),
}


def test_bars_carry_the_exact_counts_largest_first():
    """The "By component" bars (HTML, not a second Plotly chart) carry each component's exact count beside a bar
    whose length is its share of the largest, largest first: GPT-2's, written out by hand."""
    body = next(h.proto.body for h in fresh().get("html") if 'class="ps-bars"' in h.proto.body)
    names = re.findall(r'<div class="ps-bar-name">([^<]*)<br><span class="ps-bar-count">([\d,]*)</span>', body)
    widths = [float(w) for w in re.findall(r'class="ps-bar" style="width:([\d.]+)%', body)]
    by_size = sorted(GPT2_BY_HAND.items(), key=lambda kv: -kv[1])
    assert [(name, f"{n:,}") for name, n in by_size] == names
    assert [round(100 * n / by_size[0][1], 2) for _, n in by_size] == widths


def test_headline_numbers_of_gpt2():
    """The headline (one HTML element) shows GPT-2's numbers written out by hand: the total, one layer, the
    embedding (token and position tables) and the rest, in that order, each with its label; three carry a tip (the
    embedding's convention among them)."""
    at = fresh()
    embedding, layer = 50_257 * 768 + 1_024 * 768, 12 * 768 * 768 + 13 * 768
    total = embedding + 12 * layer + 2 * 768
    want = {
        "Total parameters": f"{total:,}",
        "Short form": "124.4M",
        "One layer": f"{layer:,}",
        "Embedding": f"{embedding:,}",
        "Non-embedding": f"{total - embedding:,}",
        "Embedding share": f"{embedding / total:.1%}",
    }
    shown_numbers = numbers(at)
    assert want == {label: cell["value"] for label, cell in shown_numbers.items()}
    assert list(want) == [cell["label"] for cell in shown_numbers.values()]
    tips = {"Total parameters": "Every parameter; tied weights once", "One layer": "Parameters of one block"}
    tips["Embedding"] = EMBEDDING_CONVENTION
    assert tips == {label: cell["tip"] for label, cell in shown_numbers.items() if cell["tip"]}
    assert 1 == sum('class="ps-headline"' in h.proto.body for h in at.get("html"))


def test_headline_texts_are_never_markup():
    """Every text of the headline shows as written, markup included: a Hub id or a label cannot add an element."""
    odd = '<img src=x onerror="alert(1)"> & <b>'
    body = charts.headline([[charts.Number(odd, odd, odd, odd)]])
    assert "<img" not in body and "<b>" not in body
    assert {odd: {"label": odd, "value": odd, "under": odd, "tip": odd}} == numbers_in([body])


def test_share_section_holds_the_link_and_the_downloads():
    """Under the tabs, the share section is closed at first (a move then redraws neither the link's code block nor
    the downloads) while the address bar holds the link; opened, it shows that link and the three downloads."""
    at = fresh({"preset": "gpt2", "n_layer": "6"})
    assert ([], []) == ([c.value for c in at.code], list(at.download_button))
    assert {"preset": "gpt2", "num_hidden_layers": "6"} == at.query_params
    at.session_state[SHARE_KEY] = True
    at.run()
    assert [c.value.endswith("?preset=gpt2&num_hidden_layers=6") for c in at.code] == [True]
    labels = [b.proto.label for b in at.download_button]
    assert ["Breakdown (CSV)", "Breakdown (JSON)", "config.json (Hugging Face)"] == labels


def test_a_whole_model_shares_its_files_too():
    """A whole model composed from its towers (PaliGemma) offers the same three downloads in its Share section as a
    model with a family row: its tree's breakdown and the config it was read from."""
    at = fresh({"preset": "paligemma-3b-pt-224"})
    at.session_state[SHARE_KEY] = True
    labels = [b.proto.label for b in at.run().download_button]
    assert ["Breakdown (CSV)", "Breakdown (JSON)", "config.json (Hugging Face)"] == labels
    assert presets.get("paligemma-3b-pt-224").config == at.session_state["model"].config


# (preset, its config's width key, the width one "+" on the width box gives: heads × 8 when head_dim follows the
# width, 64 when the config states head_dim)
WIDTH_PLUS = [
    ("gpt2", "n_embd", 768 + 12 * 8),
    ("bert-base-uncased", "hidden_size", 768 + 12 * 8),
    ("llama-3.2-1b", "hidden_size", 2048 + 64),
    ("qwen3-0.6b", "hidden_size", 1024 + 64),
    ("t5-small", "d_model", 512 + 64),
]


@pytest.mark.parametrize(("name", "key", "width"), WIDTH_PLUS)
def test_width_plus_keeps_the_model_valid(name, key, width):
    """One "+" on the width box steps to a width that keeps every head whole (or by 64 where head_dim is stated):
    no error, and the total is what transformers builds from the preset's config.json with that width."""
    at = open_section(fresh({"preset": name}), "f.hidden_size")
    at.number_input(key="f.hidden_size").increment().run()
    assert not at.exception, at.exception
    assert [] == [shown(e.value) for e in at.error]
    assert width == at.number_input(key="f.hidden_size").value
    assert f"{hf_count({**presets.get(name).config, key: width}):,}" == shown_total(at)


def without(name: str, key: str) -> dict:
    """Preset ``name``'s config.json without ``key``."""
    return {k: v for k, v in presets.get(name).config.items() if k != key}


@pytest.mark.parametrize(("name", "default"), [("gpt2", "GPT2Config"), ("llama-3.2-1b", "LlamaConfig")])
def test_an_emptied_box_deletes_its_key(name, default):
    """Emptying the vocabulary box deletes vocab_size from the config: the total is what transformers builds from
    the config.json without it (the class's default vocabulary), the box shows that default and says where it comes
    from, and nothing is refused."""
    at = open_section(fresh({"preset": name}), "f.vocab_size")
    at.number_input(key="f.vocab_size").set_value(None).run()
    assert not at.exception, at.exception
    assert [] == [shown(e.value) for e in at.error]
    want = hf_count(without(name, "vocab_size"))
    assert f"{want:,}" == shown_total(at)
    vocab = at.number_input(key="f.vocab_size").value
    assert any(shown(c.value).startswith(f"default of {default}: {vocab:,}") for c in at.caption)


@pytest.mark.parametrize(("name", "unused"), [("qwen3-30b-a3b", True), ("mixtral-8x7b", False), ("gpt2", False)])
def test_the_ffn_multiplier_is_off_where_no_layer_uses_the_width(name: str, unused: bool) -> None:
    """Qwen3-30B-A3B's every layer is experts of moe_intermediate_size: transformers builds the same model with any
    intermediate_size, so the FFN multiplier is off and says why. Mixtral's experts are intermediate_size wide and
    GPT-2's MLP is: there it moves."""
    config = presets.get(name).config
    key = "n_inner" if name == "gpt2" else "intermediate_size"
    wider = {**config, key: (config.get(key) or 4 * config["n_embd"]) + 64}
    assert unused == (hf_count(wider) == hf_count(config))
    at = fresh({"preset": name})
    said = [c.value for c in at.sidebar.caption if "No layer of this model uses intermediate_size" in c.value]
    assert (unused, unused) == (at.select_slider(key="s.ffn_multiplier").disabled, bool(said))


def test_an_emptied_mlp_width_says_so_too():
    """Qwen3-8B's MLP width emptied becomes Qwen3Config's 22,016 (+4.3B parameters): the note names
    intermediate_size with both values, as for any other box (it said nothing for a box left to derive)."""
    at = open_section(fresh({"preset": "qwen3-8b"}), "f.intermediate_size")
    at.number_input(key="f.intermediate_size").set_value(None).run()
    assert f"{hf_count(without('qwen3-8b', 'intermediate_size')):,}" == shown_total(at)
    said = [shown(i.value) for i in at.info if shown(i.value).startswith("intermediate_size: the box was emptied")]
    assert 1 == len(said) and "gives 22,016 (it was 12,288)" in said[0], said


@pytest.mark.parametrize(("name", "off"), [("qwen3-30b-a3b", True), ("mixtral-8x7b", False)])
def test_the_exact_ffn_boxes_are_off_with_the_slider(name: str, off: bool) -> None:
    """Where no layer reads intermediate_size (Qwen3-30B-A3B), the exact multiplier and width boxes are off too (they
    wrote the key and changed nothing); Mixtral's experts read it and its boxes stay on."""
    at = open_section(fresh({"preset": name}), "f.intermediate_size")
    boxes = (at.number_input(key="f_ffn_multiplier").disabled, at.number_input(key="f.intermediate_size").disabled)
    assert (off, off) == boxes


def test_a_width_emptied_then_typed_again_is_one_edit_the_link_keeps():
    """GPT-2's width emptied (n_embd deleted) then typed as 1,536 is the file's key again: the link says
    hidden_size=1536 and reopens what transformers builds with n_embd 1,536 (it said hidden_size=auto, the deletion
    overwriting the new value, and reopened 124,439,808)."""
    at = open_section(fresh({"preset": "gpt2"}), "f.hidden_size")
    at.number_input(key="f.hidden_size").set_value(None).run()
    at.number_input(key="f.hidden_size").set_value(1536).run()
    want = f"{hf_count({**presets.get('gpt2').config, 'n_embd': 1536}):,}"
    assert (want, "1536") == (shown_total(at), at.query_params["hidden_size"])
    again = fresh({"preset": "gpt2", "hidden_size": "1536"})
    assert want == shown_total(again)


def test_a_move_held_behind_a_refused_value_says_so():
    """A width the heads refuse (GPT-2 at 770) holds the edit; a layer count moved meanwhile is held with it, and
    the refusal says so, naming both, while the page keeps the last valid model (GPT-2's own total)."""
    at = open_section(fresh({"preset": "gpt2"}), "f.hidden_size")
    at.number_input(key="f.hidden_size").set_value(770).run()
    at.slider(key="f.num_hidden_layers").set_value(13).run()
    assert not at.exception, at.exception
    said = [shown(e.value) for e in at.error if shown(e.value).startswith("Not applied:")]
    assert 1 == len(said) and "asked for together, none applied: hidden_size = 770, num_hidden_layers = 13" in said[0]
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(at)


def test_mambas_biases_are_the_cards_switch():
    """Mamba's config states its biases (use_bias on the mixer's projections, use_conv_bias on its convolution): the
    card's Biases switch is operable and turning it on builds what transformers builds with both true."""
    at = fresh({"preset": "mamba-130m-hf"})
    switch = at.toggle(key="f_bias")
    assert not switch.disabled
    switch.set_value(True).run()
    config = {**presets.get("mamba-130m-hf").config, "use_bias": True, "use_conv_bias": True}
    assert f"{hf_count(config):,}" == shown_total(at)


def test_an_emptied_box_that_changes_the_model_says_so_and_puts_it_back():
    """A box emptied, or holding letters (the browser sends both as empty), deletes its key: where that changes the
    value (Qwen3-0.6B's width 1,024 becomes Qwen3Config's 4,096) a note names the field with both values, and one
    click puts the value back, as transformers builds the file again."""
    at = open_section(fresh({"preset": "qwen3-0.6b"}), "f.hidden_size")
    at.number_input(key="f.hidden_size").set_value(None).run()
    assert f"{hf_count(without('qwen3-0.6b', 'hidden_size')):,}" == shown_total(at)
    said = [shown(i.value) for i in at.info if shown(i.value).startswith("hidden_size: the box was emptied")]
    assert 1 == len(said) and "gives 4,096 (it was 1,024)" in said[0], said
    next(b for b in at.button if b.label == "Put back hidden_size = 1,024").click().run()
    assert f"{hf_count(presets.get('qwen3-0.6b').config):,}" == shown_total(at)
    assert [] == [i for i in at.info if shown(i.value).startswith("hidden_size: the box was emptied")]


@pytest.mark.parametrize(("value", "message"), [(-5, "hidden_size: must not be negative"), (10**12, "n_embd: ")])
def test_a_value_outside_any_bound_is_refused_naming_its_field(value: int, message: str) -> None:
    """The exact boxes have no bounds of their own (the browser refuses a value outside them without a word): a
    negative or huge width reaches the page, which refuses it naming the field, and the model stays."""
    at = open_section(fresh({"preset": "gpt2"}), "f.hidden_size")
    at.number_input(key="f.hidden_size").set_value(value).run()
    assert not at.exception, at.exception
    assert any(shown(e.value).startswith(f"Not applied: {message}") for e in at.error), [e.value for e in at.error]
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(at)


def test_an_emptied_width_whose_default_is_invalid_is_pending():
    """Emptying Qwen2.5-0.5B's width asks for Qwen2Config's default width, 4,096, which its 14 heads do not divide:
    the edit is pending with the reason, the model stays, and moving another control (the FFN multiplier) still
    works without an error of the page's own."""
    at = open_section(fresh({"preset": "qwen2.5-0.5b"}), "f.hidden_size")
    at.number_input(key="f.hidden_size").set_value(None).run()
    assert any("14 does not divide hidden_size 4,096" in shown(e.value) for e in at.error)
    assert f"{presets.get('qwen2.5-0.5b').expected_total:,}" == shown_total(at)
    at.number_input(key="f_ffn_multiplier").set_value(3.0).run()
    assert not at.exception, at.exception
    assert any("14 does not divide hidden_size 4,096" in shown(e.value) for e in at.error)


def test_a_fraction_is_refused_naming_its_field():
    """12.5 typed as the vocabulary is refused under its control, naming vocab_size; the model stays as it was and
    the nearest whole number is offered, 13, the number the box shows (it offered 12 while the box showed 13; one
    click applies it, as transformers builds that config)."""
    at = open_section(fresh({"preset": "gpt2"}), "f.vocab_size")
    at.number_input(key="f.vocab_size").set_value(12.5).run()
    assert not at.exception, at.exception
    assert any("vocab_size: 12.5 is not a whole number" in shown(e.value) for e in at.error)
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(at)
    offer = next(b for b in at.button if b.label.startswith("Use vocab_size = 13,"))
    offer.click().run()
    assert f"{hf_count({**presets.get('gpt2').config, 'vocab_size': 13}):,}" == shown_total(at)
    assert [] == [shown(e.value) for e in at.error]


@pytest.mark.parametrize("name", presets.names())
def test_each_preset_loads(session, name):
    """Picking a preset shows its published total, resets every control and the link to the bare preset."""
    move(session, "selectbox", "preset", name)
    assert f"{presets.get(name).expected_total:,}" == shown_total(session)
    assert {"preset": name} == session.query_params
    assert [] == [shown(e.value) for e in session.error]
    if not presets.model(name).has_formulas:  # a whole model: each tower's sizes, in place
        text = next(tower for _, tower in presets.model(name).towers if tower.origin == "text_config")
        assert text.spec.hidden_size == session.number_input(key="f.text_config.hidden_size").value
        return
    base = presets.load(name)
    assert base.hidden_size == session.select_slider(key="s.hidden_size").value
    assert base.num_hidden_layers == session.slider(key="f.num_hidden_layers").value


def test_a_dual_encoder_says_what_runs_on_it():
    """CLIP ViT-L/14, two towers each ending in a projection: its tabs and its side panel say the same thing (no
    language model for Memory and Compute, one stack for the explore tabs), never that it lacks formulas, and its
    towers' sizes are edited in place as transformers builds the edited file (24 → 12 vision layers)."""
    from hf_oracle import hf_count

    at = fresh({"preset": "clip-vit-large-patch14"})
    said = {tab: fresh({"preset": "clip-vit-large-patch14", "tab": tab}).info[0].value for tab in ("Memory", "Compare")}
    assert (
        "clip has no language model for memory and compute to run on (each tower ends in a projection): only its "
        "exact parameter count is shown. Pick a preset, another model or one of its towers (the buttons on the "
        "Parameters tab).",
        "Compare runs on one stack of layers, and clip is a whole model of several towers: only its exact parameter "
        "count is shown. Pick a preset, another model or one of its towers (the buttons on the Parameters tab).",
    ) == (said["Memory"], said["Compare"])
    assert not any("formulas" in c.value for c in at.sidebar.caption)
    move(at, "number_input", "f.vision_config.num_hidden_layers", 12)
    config = presets.get("clip-vit-large-patch14").config  # the file states the vision sizes twice (CLIP's class
    for key in ("vision_config", "vision_config_dict"):  # builds the tower from vision_config_dict): edited in both
        config = {**config, key: {**config[key], "num_hidden_layers": 12}}
    assert f"{hf_count(config):,}" == shown_total(at)


def test_a_whole_models_towers_are_edited_in_place(session):
    """Whole LLaVA 1.5: the side panel edits the language model's and the vision tower's sizes in the whole config;
    the total follows as transformers builds the edited file (32 → 16 language layers: 16 × 202,383,360 fewer),
    and the link carries the nested key."""
    move(session, "selectbox", "preset", "llava-1.5-7b")
    move(session, "number_input", "f.text_config.num_hidden_layers", 16)
    assert f"{7_063_427_072 - 16 * 202_383_360:,}" == shown_total(session)
    assert {"preset": "llava-1.5-7b", "text_config.num_hidden_layers": "16"} == session.query_params
    assert [] == [shown(e.value) for e in session.error]


def test_tower_boxes_refused_together_name_every_value_asked_for():
    """Whole LLaVA 1.5 with two tower boxes moved before one run, a valid layer count and vision heads that do not
    divide the width: the refusal names both values asked for, none applied (it named the heads alone, and the layer
    count looked dropped)."""
    at = fresh({"preset": "llava-1.5-7b"})
    at.number_input(key="f.text_config.num_hidden_layers").set_value(16)
    move(at, "number_input", "f.vision_config.num_attention_heads", 7)
    errors = [shown(e.value) for e in at.error]
    asked = "asked for together, none applied: text_config.num_hidden_layers = 16, "
    asked += "vision_config.num_attention_heads = 7"
    assert (True, f"{7_063_427_072:,}") == (any(asked in e for e in errors), shown_total(at))


def test_a_whole_speech_model_is_explained_in_its_own_names(session):
    """Whole Voxtral: the banner's example of a nested name is its audio tower's (it named vision_config, which a
    speech model has not), and the side panel edits the audio tower in place (32 → 16 layers: 16 × 19,676,160 fewer:
    4h² + 3h for q, k (no bias), v and o, 4h for two LayerNorms, 2·h·5,120 + 5,120 + h for the MLP at h = 1,280)."""
    move(session, "selectbox", "preset", "voxtral-mini-3b-2507")
    banner = " ".join(i.value for i in session.info)
    assert ("audio_config.hidden_size" in banner, "vision_config" in banner) == (True, False)
    move(session, "number_input", "f.audio_config.num_hidden_layers", 16)
    assert f"{4_676_271_104 - 16 * 19_676_160:,}" == shown_total(session)
    assert {"preset": "voxtral-mini-3b-2507", "audio_config.num_hidden_layers": "16"} == session.query_params


def test_a_control_reset_without_the_person_does_not_edit_the_model(session):
    """Under load the browser can hand a rerun a control at its widget's default (0 layers, tying off, an emptied
    width box): such values, which no move of the person's sent, are put back to the model's, and the model, the
    total and the link stay (a session ended on 0 layers, untied, widths "auto"). A real move still edits."""
    move(session, "selectbox", "preset", "gpt2")
    for key, value in (("f.num_hidden_layers", 0), ("f.tie_word_embeddings", False), ("f.hidden_size", None)):
        session.session_state[key] = value
    session.run()
    assert (f"{124_439_808:,}", {"preset": "gpt2"}) == (shown_total(session), session.query_params)
    assert (12, True, 768) == tuple(
        session.session_state[k] for k in ("f.num_hidden_layers", "f.tie_word_embeddings", "f.hidden_size")
    )
    move(session, "slider", "f.num_hidden_layers", 13)
    assert {"preset": "gpt2", "num_hidden_layers": "13"} == session.query_params


def test_a_re_created_picker_starts_from_the_model_in_view(session):
    """Under load the browser can re-create the model picker from its widget's default and send that back as a pick
    (a session of bench/many_users.py --mixed on GPT-2 ended on Qwen2-Audio, the picker's first entry): the picker's
    default is the model in view, as opened from a link and after each pick, so such a pick changes nothing."""
    from paramscope.app.picker import preset_label

    opened = fresh({"preset": "gpt2"}).selectbox(key="preset")
    assert ("gpt2", preset_label("gpt2")) == (opened.value, opened.options[opened.proto.default])
    for name in ("llama-3-8b", "voxtral-mini-3b-2507"):
        picker = move(session, "selectbox", "preset", name).selectbox(key="preset")
        assert (name, preset_label(name)) == (picker.value, picker.options[picker.proto.default])


#: The explore tabs' widgets, opened from a link: (query, kind, widget key).
EXPLORE_WIDGETS = [
    ({"tab": "Compare", "x_cmp": "llama-3-8b"}, "multiselect", "x_cmp"),
    ({"tab": "Compare", "x_cmp": "llama-3-8b"}, "toggle", "x_cmp_log"),
    ({"tab": "Why-so-big", "x_sweep": "width"}, "radio", "x_sweep"),
    ({"tab": "Why-so-big", "x_sweep": "width"}, "select_slider", "x_sweep_range"),
    ({"tab": "Why-so-big", "x_sweep": "width"}, "toggle", "x_sweep_log"),
]


@pytest.mark.parametrize(("query", "kind", "key"), EXPLORE_WIDGETS, ids=[w[2] for w in EXPLORE_WIDGETS])
def test_a_re_created_explore_widget_starts_from_what_it_shows(query, kind, key):
    """The Compare and Why-so-big widgets, like the model's controls, start a widget the browser re-creates under
    load from what they show (the models compared, the log scales, the dimension swept and its range), not from a
    fixed default that the browser would send back as a move (the comparison emptied, the sweep back to layers)."""
    widget = getattr(fresh({"preset": "gpt2", **query}), kind)(key=key)
    shown = {
        "multiselect": lambda w: list(w.indices),
        "toggle": lambda w: w.value,
        "radio": lambda w: w.index,
        "select_slider": lambda w: [w.options.index(f"{v:,}") for v in w.value],
    }[kind](widget)
    default = widget.proto.default
    assert shown == (default if isinstance(default, (bool, int)) else [int(i) for i in default])


def test_boxes_emptied_together_are_put_back():
    """Under load the browser can re-create the whole-number boxes empty and send them as moves (sessions ended on
    hidden_size=auto&vocab_size=auto): several boxes emptied in one run are not a person's edit (a person empties one
    box at a time), so they are put back and the model and the link stay. One emptied box still deletes its key."""
    session = fresh({"preset": "gpt2"})
    for key in ("f.hidden_size", "f.vocab_size"):
        session.session_state[key] = None
    session.session_state["moved_controls"] = {"f.hidden_size", "f.vocab_size"}
    session.run()
    assert (f"{124_439_808:,}", {"preset": "gpt2"}) == (shown_total(session), session.query_params)
    assert (768, 50257) == (session.session_state["f.hidden_size"], session.session_state["f.vocab_size"])
    move(session, "number_input", "f.hidden_size", None)
    assert {"preset": "gpt2", "hidden_size": "auto"} == session.query_params


# (kind, widget key, value, the config keys the edit writes, the link it leaves)
GPT2_MOVES = [
    ("number_input", "f.vocab_size", 32000, {"vocab_size": 32000}, {"vocab_size": "32000"}),
    ("number_input", "f.hidden_size", 1536, {"n_embd": 1536}, {"hidden_size": "1536"}),
    ("slider", "f.num_hidden_layers", 24, {"n_layer": 24}, {"num_hidden_layers": "24"}),
    ("slider", "f.num_hidden_layers", 0, {"n_layer": 0}, {"num_hidden_layers": "0"}),
    ("number_input", "f.num_attention_heads", 8, {"n_head": 8}, {"num_attention_heads": "8"}),
    ("number_input", "f_ffn_multiplier", 2.5, {"n_inner": 1920}, {"intermediate_size": "1920"}),
    ("number_input", "f.intermediate_size", 2000, {"n_inner": 2000}, {"intermediate_size": "2000"}),
    ("toggle", "f.tie_word_embeddings", False, {"tie_word_embeddings": False}, {"tie_word_embeddings": "false"}),
    ("number_input", "f.max_position_embeddings", 2048, {"n_positions": 2048}, {"max_position_embeddings": "2048"}),
]


@pytest.mark.parametrize(
    ("kind", "key", "value", "keys", "query"), GPT2_MOVES, ids=[f"{m[1]}={m[2]}" for m in GPT2_MOVES]
)
def test_every_control_edits_the_config(kind, key, value, keys, query):
    """Moving one control on GPT-2 shows the total of GPT-2's config.json with that key edited, and the link
    records the edit."""
    at = move(fresh(), kind, key, value)
    assert expected("gpt2", **keys) == shown_total(at)
    assert expected("gpt2", **keys) == f"{pie_total(at):,}"  # the chart follows, not a cached older one
    assert {"preset": "gpt2", **query} == at.query_params
    assert [] == [shown(e.value) for e in at.error]


def test_width_on_gpt2_moves_the_derived_mlp():
    """GPT-2's n_inner is null: widening moves the MLP with the width (multiplier stays 4) and says why."""
    at = move(fresh(), "number_input", "f.hidden_size", 1536)
    assert 4.0 == at.number_input(key="f_ffn_multiplier").value
    assert any(shown(c.value) == "derived: 4*hidden_size = 6,144" for c in at.caption)


TOY = "toy-transformer-lm"  # ParamScope's own vocabulary: every structural switch is a key
TOY_MOVES = [
    ("toggle", "f.attention_bias", False),
    ("toggle", "f.mlp_gated", True),
    ("toggle", "f.mlp_bias", False),
    ("selectbox", "f.norm_type", "rmsnorm"),
    ("toggle", "f.norm_bias", False),
    ("selectbox", "f.position_embedding", "rotary"),
    ("number_input", "f.num_experts", 8),
    ("number_input", "f.recurrent_units", 4),
]


@pytest.mark.parametrize(("kind", "key", "value"), TOY_MOVES, ids=[f"{m[1]}={m[2]}" for m in TOY_MOVES])
def test_structural_switches_edit_a_model_of_our_own_vocabulary(kind, key, value):
    """A model in ParamScope's own vocabulary has a key for every switch: each edits the config."""
    at = move(fresh({"preset": TOY}), kind, key, value)
    name = key.removeprefix("f.")
    assert expected(TOY, **{name: value}) == shown_total(at)
    assert {"preset": TOY, name: link.format_value(value)} == at.query_params


@pytest.mark.parametrize("key", ["f.attention_bias", "f.mlp_gated", "f.norm_type", "f.num_key_value_heads"])
def test_what_gpt2_classes_fix_is_shown_not_editable(key):
    """GPT-2's classes fix its biases, gating, norm and kv heads: the control is disabled and says so."""
    at = every_section(fresh())
    widgets = {w.key: w for kind in ("number_input", "toggle", "selectbox") for w in getattr(at, kind)}
    assert widgets[key].disabled
    assert any(shown(c.value).startswith("fixed by the GPT2 classes") for c in at.caption)


def test_ffn_multiplier_follows_the_exact_size():
    """Typing an exact intermediate size updates the multiplier shown next to it (one field, two views)."""
    at = move(fresh(), "number_input", "f.intermediate_size", 1536)
    assert 2.0 == at.number_input(key="f_ffn_multiplier").value


def test_moe_controls_appear_with_experts():
    """Experts per token and expert width show only for a mixture of experts, and count as the engine says."""
    at = every_section(fresh({"preset": TOY}))
    assert "f.num_experts_per_tok" not in [w.key for w in at.number_input]
    move(at, "number_input", "f.num_experts", 8)
    move(at, "number_input", "f.num_experts_per_tok", 1)
    move(at, "number_input", "f.moe_intermediate_size", 1024)
    changes = {"num_experts": 8, "num_experts_per_tok": 1, "moe_intermediate_size": 1024}
    assert expected(TOY, **changes) == shown_total(at)
    spec = edited(TOY, **changes)
    active = numbers(at)["Active per token"]
    assert f"{summarize(spec).active:,}" == active["value"]
    assert f"{summarize(spec).active_without_input_embedding:,} without the input embedding table" == active["under"]


@pytest.mark.skipif("t5-small" not in presets.names(), reason="needs the t5-small preset")
def test_decoder_layers_control_on_an_encoder_decoder():
    """An encoder-decoder shows a decoder-layers control; moving it changes the total as the engine says."""
    at = fresh({"preset": "t5-small"})
    move(at, "number_input", "f.num_decoder_layers", 3)
    assert expected("t5-small", num_decoder_layers=3) == shown_total(at)


APPLICABILITY = [
    ("gpt2", "f.num_experts_per_tok", "hidden"),
    ("gpt2", "f.num_decoder_layers", "hidden"),
    ("gpt2", "f.intermediate_size", "enabled"),
    ("t5-small", "f.num_decoder_layers", "enabled"),
    ("mixtral-8x7b", "f.intermediate_size", "enabled"),  # Mixtral's experts are intermediate_size wide
    ("mixtral-8x7b", "f_ffn_multiplier", "enabled"),
    ("gpt2", "f.norm_type", "disabled"),
    ("bloom-560m", "f.intermediate_size", "disabled"),
    ("mixtral-8x7b", "f.num_experts_per_tok", "enabled"),
    ("llama-3-8b", "f.norm_bias", "disabled"),
    ("deepseek-v2-lite", "f.num_key_value_heads", "hidden"),
    ("deepseek-v2-lite", "f.head_dim", "hidden"),
    ("toy-feedforward-lm", "f.num_attention_heads", "hidden"),
    ("toy-feedforward-lm", "f.attention_bias", "hidden"),
]


@pytest.mark.parametrize(("name", "key", "expected"), APPLICABILITY, ids=[f"{n}:{k}" for n, k, _ in APPLICABILITY])
def test_controls_that_do_not_apply_are_hidden_or_disabled(name, key, expected):
    """A control that does not apply to the architecture in view is hidden or disabled."""
    if name not in presets.names():
        pytest.skip(f"needs the {name} preset")
    at = every_section(fresh({"preset": name}))
    widgets = {w.key: w for kind in ("number_input", "toggle", "slider", "selectbox") for w in getattr(at, kind)}
    shown = "hidden" if key not in widgets else ("disabled" if widgets[key].disabled else "enabled")
    assert expected == shown


# (preset, the sidebar sections open when it opens): the card's section, and the model's own kind of layer
OPEN_SECTIONS = [
    ("gpt2", {"Size"}),
    ("mixtral-8x7b", {"Size", "Mixture of experts"}),
    ("jamba-v0.1", {"Size", "Mixture of experts", "State space (Mamba)"}),
    ("qwen3-next-80b-a3b", {"Size", "Mixture of experts", "Linear attention"}),
    ("lfm2-1.2b", {"Size", "Short convolutions (LFM2)"}),
    ("hybrid-rnn-transformer", {"Size", "Recurrent units"}),
]


def test_kimi_delta_attention_is_named_and_edited_as_one_head_count():
    """Kimi Linear in a link: its linear-attention section says Kimi Delta Attention (it said Gated DeltaNet, the
    section's name) and offers one head count and one head size, as KimiLinearConfig has them (linear_num_heads,
    linear_head_dim), no key heads; moving the heads writes linear_num_heads and moves the total as transformers
    builds it (4 layers: every fourth after the first attends fully, so none does)."""
    from hf_oracle import hf_count

    config = {"model_type": "kimi_linear", "num_hidden_layers": 4, "num_experts": 8, "vocab_size": 1000}
    config |= {"pad_token_id": 0}
    at = fresh({"x_spec": encode_config(config)})
    assert "Linear attention" in open_sections(at)
    assert any(c.value.startswith("Kimi Delta Attention in 4 of 4 layers") for c in at.sidebar.caption)
    keys = {w.key for w in at.number_input}
    assert ({"f.linear_num_value_heads", "f.linear_value_head_dim"} <= keys, "f.linear_num_key_heads" in keys) == (
        True,
        False,
    )
    move(at, "number_input", "f.linear_num_value_heads", 16)
    assert f"{hf_count(config | {'linear_num_heads': 16}):,}" == shown_total(at)


@pytest.mark.parametrize(("name", "expected"), OPEN_SECTIONS, ids=[n for n, _ in OPEN_SECTIONS])
def test_sections_open_with_the_page_and_with_the_model(name, expected):
    """The sliders' sections open with the page, and a model's own kind of layer opens with it; a closed section
    draws none of its controls (a move redraws every control drawn), and opening it draws them."""
    if name not in presets.names():
        pytest.skip(f"needs the {name} preset")
    at = fresh({"preset": name})
    assert expected == open_sections(at)
    assert "f.num_attention_heads" not in [w.key for w in at.number_input]
    open_section(at, "f.num_attention_heads")
    assert "f.num_attention_heads" in [w.key for w in at.number_input]


def test_the_sections_after_size_are_one_row_of_pills():
    """GPT-2's side panel has one expander, Size, and one row of pills, More controls, for the other sections (one
    element a move where a closed expander each was one: docs/benchmarks.md); a click on a pill draws its section's
    controls and another click takes them away."""
    at = fresh()
    row = more_controls(at)
    assert (["Size"], ["Exact sizes", "Attention", "Feed-forward", "Norms and embeddings"]) == (
        [e.label for e in at.sidebar.expander],
        row.options[:4],
    )
    assert ["Mixture of experts", "Recurrent units"] == row.options[4:]
    row.select("Attention").run()
    assert "f.num_attention_heads" in [w.key for w in at.number_input]
    more_controls(at).unselect("Attention").run()
    assert "f.num_attention_heads" not in [w.key for w in at.number_input]


def test_every_section_after_size_is_drawn_by_the_pills():
    """The pills' table names every section the controls are filed under (an error opens its section by that list),
    in the same order, and no other."""
    assert [title for title in SECTIONS if title != "Size"] == list(MORE)


def test_a_link_opens_the_sections_it_edited():
    """A shared link that edited the heads, the tying and the norm opens Attention (the tying is in Size, open) and
    Norms and embeddings, so the edited controls are in sight; the sections it did not touch keep their defaults."""
    query = {"num_attention_heads": "16", "hidden_size": "1024", "tie_word_embeddings": "false"}
    at = fresh({"preset": "gpt2", **query, "max_position_embeddings": "2048"})
    assert {"Size", "Attention", "Norms and embeddings"} == open_sections(at)
    assert 16 == at.number_input(key="f.num_attention_heads").value
    assert not at.toggle(key="f.tie_word_embeddings").value


def test_a_section_the_user_opened_stays_open_for_the_next_model():
    """Attention opened on GPT-2 stays open on Mixtral; the experts open with Mixtral and close again with GPT-2."""
    at = open_section(fresh(), "f.num_attention_heads")
    move(at, "selectbox", "preset", "mixtral-8x7b")
    assert {"Attention", "Mixture of experts"} <= open_sections(at)
    assert "f.num_attention_heads" in [w.key for w in at.number_input]
    move(at, "selectbox", "preset", "gpt2")
    assert "Attention" in open_sections(at) and "Mixture of experts" not in open_sections(at)


def test_norm_bias_is_disabled_for_rmsnorm():
    """RMSNorm has no bias, so the norm-bias switch is disabled once RMSNorm is picked."""
    at = move(fresh({"preset": TOY}), "selectbox", "f.norm_type", "rmsnorm")
    assert at.toggle(key="f.norm_bias").disabled


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("f.num_attention_heads", 7, "num_attention_heads"),
        ("f.hidden_size", 1000, "num_attention_heads"),
    ],
)
def test_impossible_combination_is_explained_and_the_last_model_kept(key, value, field):
    """An impossible edit shows the engine's message on the spot and keeps the last valid total."""
    at = move(fresh(), "slider", "f.num_hidden_layers", 6)
    move(at, "number_input", key, value)
    assert expected("gpt2", n_layer=6) == shown_total(at)
    errors = [shown(e.value) for e in at.error]
    assert any(e.startswith(f"Pending: {field}:") for e in errors), errors  # under its control: Attention opened
    assert {"preset": "gpt2", "num_hidden_layers": "6"} == at.query_params


def test_share_link_round_trip():
    """Edits -> the link in the address bar -> a fresh session opened with it -> the same model and total."""
    at = fresh({"preset": "gpt2"})
    move(at, "slider", "f.num_hidden_layers", 20)
    move(at, "number_input", "f.hidden_size", 1024)
    move(at, "number_input", "f.num_attention_heads", 16)
    move(at, "toggle", "f.tie_word_embeddings", False)
    shared = dict(at.query_params)
    assert {"preset", "hidden_size", "num_hidden_layers", "num_attention_heads", "tie_word_embeddings"} <= set(shared)
    again = fresh(shared)
    assert shown_total(at) == shown_total(again)
    assert [] == [shown(w.value) for w in again.warning]
    assert shared == again.query_params
    assert 1024 == open_section(again, "f.hidden_size").number_input(key="f.hidden_size").value
    assert 20 == again.slider(key="f.num_hidden_layers").value
    again.session_state[SHARE_KEY] = True
    codes = [c.value for c in again.run().code]
    assert any(c.endswith("?" + "&".join(f"{k}={v}" for k, v in shared.items())) for c in codes), codes


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"preset": "gpt2", "num_hidden_layers": "abc"}, "num_hidden_layers"),
        ({"preset": "gpt2", "num_hidden_layers": "-4"}, "num_hidden_layers"),
        ({"preset": "gpt2", "num_attention_heads": "7"}, "num_attention_heads"),
        ({"preset": "gpt2", "tie_word_embeddings": "perhaps"}, "tie_word_embeddings"),
        ({"preset": "gpt2", "hidden_size": "9" * 100}, "hidden_size"),
    ],
)
def test_bad_link_value_warns_and_keeps_the_preset(query, field):
    """A bad value in a link: a warning naming the field, the preset's value and total, a cleaned link."""
    at = fresh(query)
    assert not at.exception
    warnings = [shown(w.value) for w in at.warning]
    assert 1 == len(warnings) and field in warnings[0], warnings
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(at)
    assert {"preset": "gpt2"} == at.query_params


def test_unknown_preset_falls_back_to_gpt2():
    """An unknown preset in a link: a warning and GPT-2."""
    at = fresh({"preset": "no-such-model", "num_hidden_layers": "6"})
    warnings = [shown(w.value) for w in at.warning]
    assert any("no-such-model" in w for w in warnings), warnings
    assert "gpt2" == at.selectbox(key="preset").value
    assert expected("gpt2", n_layer=6) == shown_total(at)


def test_link_warning_goes_away_after_an_edit():
    """The link's warning stays until the model is changed, then it is gone."""
    at = fresh({"preset": "gpt2", "vocab_size": "lots"})
    assert 1 == len(at.warning)
    move(at, "slider", "f.num_hidden_layers", 3)
    assert 0 == len(at.warning)


def test_change_against_the_preset_is_shown():
    """After an edit, the total carries the change against the preset and the edited fields are listed."""
    at = move(fresh(), "slider", "f.num_hidden_layers", 13)
    under = numbers(at)["Total parameters"]["under"]
    diff = summarize(edited("gpt2", n_layer=13)).total - presets.get("gpt2").expected_total
    assert under.startswith(f"{diff:+,} (")
    assert under.endswith(f"vs {presets.get('gpt2').title}")  # against which model
    assert any("num_hidden_layers" in shown(c.value) and "12 → 13" in shown(c.value) for c in at.caption)


def test_details_are_closed_until_opened():
    """The tree, table and formula sit in an expander that draws nothing until it is opened."""
    at = fresh()
    assert (0, 0) == (len(at.table), len(at.latex))
    assert any(e.label.startswith("The whole tree") for e in at.expander)


def test_table_and_formula():
    """Opened, the component table sums to the total, and the written-out formula ends in the exact total."""
    at = fresh()
    at.session_state["details"] = True
    at.run()
    table = at.table[0].value
    assert presets.get("gpt2").expected_total == sum(int(v.replace(",", "")) for v in table["Parameters"])
    final_norm = table[table["Component"] == "Final norm"]["Share"].item()  # 1,536 of 124,439,808 = 0.0012 %
    assert "< 0.01%" == final_norm
    tex = at.latex[0].value.replace("{,}", ",")
    assert f"&= {presets.get('gpt2').expected_total:,}\\end{{aligned}}" in tex


def test_downloads_and_config_round_trip():
    """Three downloads are offered; the config.json of an edited model is the preset's file with the edits,
    and reads back to the shown total."""
    at = move(fresh(), "slider", "f.num_hidden_layers", 7)
    move(at, "number_input", "f.intermediate_size", 1000)
    at.session_state[SHARE_KEY] = True
    labels = [b.proto.label for b in at.run().download_button]
    assert ["Breakdown (CSV)", "Breakdown (JSON)", "config.json (Hugging Face)"] == labels
    config = at.session_state["model"].config
    assert {**presets.get("gpt2").config, "n_layer": 7, "n_inner": 1000} == config
    assert shown_total(at) == expected("gpt2", n_layer=7, n_inner=1000)


TAB_LINKS = [
    ("Parameters", "Parameters", None),
    ("Memory", "Memory", "Memory"),
    ("Compute", "Compute", "Compute"),
    ("Your model", "Your-model", "Your-model"),
    ("Compare", "Compare", "Compare"),
    ("Architecture", "Architecture", "Architecture"),
    ("Why so big?", "Why-so-big", "Why-so-big"),
    ("Why so big?", "why so big?", "Why-so-big"),  # the name itself, any case, is read too
    ("Your model", "YOUR-MODEL", "Your-model"),
]


@pytest.mark.parametrize(("tab", "asked", "written"), TAB_LINKS, ids=[t[1] for t in TAB_LINKS])
def test_each_tab_opens_from_the_link(tab, asked, written):
    """?tab=NAME opens that tab (its content runs, the others do not) and the link keeps it, written without
    spaces or question marks."""
    at = fresh({"preset": "gpt2", "tab": asked, "run_batch": "4"})
    assert not at.exception
    children = {t.label: len(t.children) for t in at.tabs}
    assert [tab] == [label for label, n in children.items() if n], children
    expected_link = {"preset": "gpt2", "run_batch": "4"} | ({"tab": written} if written else {})
    assert expected_link == at.query_params
    assert [] == [shown(w.value) for w in at.warning]


@pytest.mark.parametrize(
    ("tab", "shown"),
    [
        ("Parameters", False),
        ("Memory", True),
        ("Compute", True),
        ("Your model", False),
        ("Compare", True),
        ("Architecture", False),
        ("Why so big?", True),
    ],
)
def test_run_settings_show_where_they_are_used(tab, shown):
    """The run settings (batch, precision, GPUs) are drawn only on the tabs whose numbers use them."""
    at = fresh({"preset": "gpt2", "tab": tab})
    assert shown == any(e.label.startswith("Run:") for e in at.expander)


def test_unknown_tab_warns():
    """A link naming a tab that does not exist warns and opens the first tab."""
    at = fresh({"preset": "gpt2", "tab": "Nope"})
    assert any(shown(w.value).startswith("Link: tab:") for w in at.warning)
    assert {"preset": "gpt2"} == at.query_params


def test_sessions_are_isolated():
    """Two sessions of the page do not see each other's edits."""
    one, two = fresh(), fresh()
    move(one, "slider", "f.num_hidden_layers", 30)
    two.run()
    assert f"{presets.get('gpt2').expected_total:,}" == shown_total(two)


RANDOM_MOVES = [
    ("number_input", "f.vocab_size", [1, 256, 32000, 151936, 100_000_000]),
    ("number_input", "f.hidden_size", [1, 5, 64, 768, 1000, 4096, 1_048_576]),
    ("slider", "f.num_hidden_layers", [0, 1, 12, 48, 128]),
    ("number_input", "f.num_attention_heads", [1, 3, 7, 12, 64]),
    ("number_input", "f.num_key_value_heads", [None, 1, 2, 5, 12]),
    ("number_input", "f.head_dim", [None, 1, 64, 256]),
    ("number_input", "f_ffn_multiplier", [0.0, 1.0, 2.6875, 4.0, 1024.0]),
    ("number_input", "f.intermediate_size", [0, 1, 3072, 16_777_216]),
    ("toggle", "f.mlp_gated", [True, False]),
    ("selectbox", "f.norm_type", ["layernorm", "rmsnorm"]),
    ("selectbox", "f.position_embedding", ["learned", "rotary", "none"]),
    ("number_input", "f.max_position_embeddings", [0, 1, 2048, 100_000_000]),
    ("number_input", "f.num_experts", [0, 1, 8, 64]),
    ("number_input", "f.recurrent_units", [0, 2, 4096]),
    ("selectbox", "preset", presets.names()),
]


@pytest.mark.parametrize("seed", range(4))
def test_random_walk_never_crashes(seed):
    """Thirty random moves (extreme and impossible values, preset switches) never raise; whenever no error is
    shown, the total is the engine's count of the session's model and the link rebuilds exactly that model."""
    rng = random.Random(seed)
    at = every_section(fresh())
    for _ in range(30):
        kind, key, values = rng.choice(RANDOM_MOVES)
        keys = [w.key for w in getattr(at, kind)]
        if key not in keys or (key != "preset" and getattr(at, kind)(key=key).disabled):
            continue  # the control is hidden or disabled for the model in view
        move(at, kind, key, rng.choice(values))
        model = at.session_state["model"]
        assert f"{model.summary.total:,}" == shown_total(at)
        if not at.error:
            back, warnings = link.model_from_query(dict(at.query_params))
            assert (model.config, []) == (back.config, warnings)


# ================================================================================== explore tabs
def metric_help(at: AppTest, label: str) -> str:
    return next(m.proto.help for m in at.metric if m.label == label)


@pytest.mark.parametrize(("current", "other"), [("gpt2", "llama-2-7b"), ("llama-2-7b", "gpt2")])
def test_compare_from_a_link_shows_both_published_totals(current, other):
    """?tab=Compare&x_cmp=OTHER puts the preset in view beside OTHER, each named by its title (not its internal
    name) with its published total."""
    at = fresh({"preset": current, "tab": "Compare", "x_cmp": other})
    assert not at.exception
    for name in (current, other):
        assert f"{presets.get(name).expected_total:,} parameters" == metric_help(at, presets.get(name).title)
    assert {"preset": current, "tab": "Compare", "x_cmp": other} == at.query_params
    assert [other] == at.multiselect(key="x_cmp").value


def test_compare_follows_an_edit_of_the_model_in_view():
    """An edit in the sidebar shows in the comparison: the edited model's engine total, marked as edited."""
    at = fresh({"preset": "gpt2", "tab": "Compare", "x_cmp": "gpt2-medium"})
    move(at, "slider", "f.num_hidden_layers", 6)
    want = summarize(edited("gpt2", n_layer=6)).total
    assert f"{want:,} parameters" == metric_help(at, f"{presets.get('gpt2').title} (edited)")
    assert {"preset": "gpt2", "num_hidden_layers": "6", "tab": "Compare", "x_cmp": "gpt2-medium"} == at.query_params


def test_compare_choice_survives_other_tabs_and_round_trips():
    """The compared models stay in the link while another tab is open, and the link reopens the comparison."""
    at = fresh({"preset": "gpt2", "tab": "Compare"})
    at.multiselect(key="x_cmp").select("gpt2-medium").run()
    assert "gpt2-medium" == at.query_params["x_cmp"]
    at.session_state["tab"] = "Parameters"
    at.run()
    at.run()
    assert {"preset": "gpt2", "x_cmp": "gpt2-medium"} == at.query_params
    again = fresh(dict(at.query_params) | {"tab": "Compare"})
    assert f"{presets.get('gpt2-medium').expected_total:,} parameters" == metric_help(
        again, presets.get("gpt2-medium").title
    )


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ({"x_cmp": "no-such-model", "tab": "Compare"}, "x_cmp"),
        ({"x_sweep": "depthwise", "tab": "Why-so-big"}, "x_sweep"),
    ],
)
def test_bad_explore_link_warns_and_is_dropped(query, key):
    """A compare entry or sweep the page does not know: a link warning naming the key, and a cleaned link."""
    at = fresh({"preset": "gpt2"} | query)
    assert not at.exception
    assert any(shown(w.value).startswith(f"Link: {key}:") for w in at.warning), [shown(w.value) for w in at.warning]
    assert key not in at.query_params


def test_sweep_choice_round_trips():
    """?x_sweep=width opens the sweep on width and the link keeps it."""
    at = fresh({"preset": "gpt2", "tab": "Why-so-big", "x_sweep": "width"})
    assert "width" == at.radio(key="x_sweep").value
    assert {"preset": "gpt2", "tab": "Why-so-big", "x_sweep": "width"} == at.query_params


PARAMSCOPE_MODEL = {
    "model_type": "paramscope",
    "vocab_size": 5000,
    "hidden_size": 320,
    "num_hidden_layers": 7,
    "num_attention_heads": 5,
    "mlp_gated": True,
    "norm_type": "rmsnorm",
    "position_embedding": "rotary",
}
UPLOADS = [
    {
        "model_type": "llama",
        "vocab_size": 32000,
        "hidden_size": 2048,
        "intermediate_size": 5632,
        "num_hidden_layers": 22,
        "num_attention_heads": 32,
        "num_key_value_heads": 4,
        "tie_word_embeddings": False,
    },
    {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 512, "n_layer": 4, "n_head": 8, "n_positions": 512},
    {
        "model_type": "mistral",
        "vocab_size": 1000,
        "hidden_size": 256,
        "intermediate_size": 700,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "hidden_act": "gelu",
    },
]


@pytest.mark.parametrize("config", [*UPLOADS, PARAMSCOPE_MODEL], ids=[c["model_type"] for c in UPLOADS] + ["own"])
def test_pasted_config_becomes_the_model_in_view(config):
    """Pasting a config.json in Your model and clicking Use this model shows the engine's count for that config
    (read by the same reader as a preset); the link rebuilds the same model."""
    want = summarize(read_json_text(json.dumps(config)).spec).total
    at = fresh({"preset": "gpt2", "tab": "Your-model"})
    at.text_area(key="x_paste").set_value(json.dumps(config)).run()
    at.button(key="x_use").click().run()
    assert not at.exception
    at.session_state["tab"] = "Parameters"
    at.run()
    assert f"{want:,}" == shown_total(at)
    shared = dict(at.query_params)
    again = fresh(shared)
    assert f"{want:,}" == shown_total(again)
    assert [] == [shown(w.value) for w in again.warning]


def test_a_whole_model_in_the_link_is_shown_and_kept():
    """x_spec (a whole encoded model, here one whose family no preset has) is shown instead of the preset; the
    link keeps it through an edit and rebuilds the edited model."""
    spec = read_json_text(json.dumps(PARAMSCOPE_MODEL)).spec
    at = fresh({"preset": "gpt2", "x_spec": encode_config(PARAMSCOPE_MODEL)})
    assert f"{summarize(spec).total:,}" == shown_total(at)
    assert [] == [shown(w.value) for w in at.warning]
    move(at, "slider", "f.num_hidden_layers", 5)
    five = read_json_text(json.dumps({**PARAMSCOPE_MODEL, "num_hidden_layers": 5})).spec
    assert f"{summarize(five).total:,}" == shown_total(at)
    assert PARAMSCOPE_MODEL == decode_config(at.query_params["x_spec"]).config
    assert "5" == at.query_params["num_hidden_layers"]
    assert "preset" not in at.query_params  # the model started from no preset
    assert f"{summarize(five).total:,}" == shown_total(fresh(dict(at.query_params)))


def test_an_encoded_whole_model_and_its_nested_edit_reopen_from_the_link():
    """A whole model pasted or shared as x_spec (Qwen2-Audio's file), its language model cut to 8 layers in the side
    panel: the link keeps the file and adds text_config.num_hidden_layers, and opening that link in a new session
    shows the same total, the whole class's as transformers builds the edited file."""
    from test_wholes import _hf_total

    config = presets.get("qwen2-audio-7b-instruct").config
    at = fresh({"x_spec": encode_config(config)})
    move(at, "number_input", "f.text_config.num_hidden_layers", 8)
    edited = {**config, "text_config": {**config["text_config"], "num_hidden_layers": 8}}
    again = fresh(dict(at.query_params))
    assert (f"{_hf_total(edited):,}",) * 2 == (shown_total(at), shown_total(again))
    assert ("8", []) == (at.query_params["text_config.num_hidden_layers"], [e.value for e in again.error])


def test_a_bad_whole_model_in_the_link_warns_and_keeps_the_preset():
    """An x_spec that does not decode: a link warning, the preset's model, and the tab still works."""
    at = fresh({"preset": "gpt2", "x_spec": "1.notbase64!!", "tab": "Architecture"})
    assert any(shown(w.value).startswith("Link: x_spec:") for w in at.warning), [shown(w.value) for w in at.warning]
    assert 1 == len(at.get("graphviz_chart"))
    assert {"preset": "gpt2", "tab": "Architecture"} == at.query_params


@pytest.mark.parametrize("name", ["gpt2", "llama-2-7b", "mixtral-8x7b"])
def test_architecture_draws_the_model(name):
    """The Architecture tab draws a Graphviz chart that names the model's layer count."""
    if name not in presets.names():
        pytest.skip(f"needs the {name} preset")
    at = fresh({"preset": name, "tab": "Architecture"})
    charts_ = at.get("graphviz_chart")
    assert 1 == len(charts_)
    assert "digraph" in charts_[0].proto.spec
    assert f"× {presets.load(name).num_hidden_layers}" in charts_[0].proto.spec


def test_why_so_big_plots_the_sweep():
    """The Why so big? tab plots the sweep; the first chart's curve passes through the model's exact total."""
    at = fresh({"preset": "gpt2", "tab": "Why-so-big"})
    figures_ = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(figures_) >= 4
    ys = [y for trace in figures_[0]["data"] for y in (trace.get("y") or []) if isinstance(y, (int, float))]
    assert presets.get("gpt2").expected_total in ys


SLIDER_MOVES = [
    ("gpt2", "s.hidden_size", 1536, {"n_embd": 1536}),
    ("gpt2", "s.vocab_size", 32000, {"vocab_size": 32000}),
    ("gpt2", "s.ffn_multiplier", 2.0, {"n_inner": 1536}),
    ("llama-3.2-1b", "s.hidden_size", 4096, {"hidden_size": 4096}),
    ("qwen3-8b", "s.ffn_multiplier", 3.0, {"intermediate_size": 12288}),
]


@pytest.mark.parametrize(("name", "key", "value", "keys"), SLIDER_MOVES)
def test_sliders_edit_the_config(name: str, key: str, value: object, keys: dict) -> None:
    """Each slider writes its exact box and the config key: the total is what transformers reads from the
    preset's config.json with that key changed."""
    at = fresh({"preset": name})
    move(at, "select_slider", key, value)
    assert expected(name, **keys) == shown_total(at)
    assert not at.error


def test_width_slider_keeps_heads_whole() -> None:
    """GPT-2's width slider offers only widths its 12 heads divide into a whole head_dim (steps of 96); Llama 3.2
    1B, whose config states head_dim, offers steps of 64."""
    gpt2 = fresh({"preset": "gpt2"}).select_slider(key="s.hidden_size").options
    llama = fresh({"preset": "llama-3.2-1b"}).select_slider(key="s.hidden_size").options
    assert all(int(w.replace(",", "")) % 12 == 0 for w in gpt2)
    assert ("96", "1,536") == (gpt2[0], next(w for w in gpt2 if w == "1,536"))
    assert all(int(w.replace(",", "")) % 64 == 0 for w in llama)


def test_blocked_edit_offers_the_nearest_valid_value() -> None:
    """Width 1000 is not divisible by GPT-2's 12 heads: the page says the edit is pending and why, offers 996
    (the nearest width 12 heads divide), and one click applies it as transformers reads it."""
    at = move(fresh({"preset": "gpt2"}), "number_input", "f.hidden_size", 1000)
    assert any("Pending" in shown(e.value) and "num_attention_heads" in shown(e.value) for e in at.error)
    offer = next(b for b in at.button if "nearest valid" in b.label)
    assert "hidden_size = 996" in offer.label
    offer.click().run()
    assert not at.exception and not at.error
    assert expected("gpt2", n_embd=996) == shown_total(at)


def test_vision_encoder_controls_edit_the_image() -> None:
    """A vision encoder shows image controls instead of a vocabulary; a smaller patch is more tokens, and the count
    equals ViTModel built on the meta device from the edited config (patch 8: 28 × 28 patches + the class token)."""
    import torch
    from transformers import ViTConfig, ViTModel

    config = {k: v for k, v in presets.get("dino-vitb16").config.items() if k not in ("model_type", "architectures")}
    with torch.device("meta"):
        expected = sum(p.numel() for p in ViTModel(ViTConfig(**config | {"patch_size": 8})).parameters())
    at = fresh({"preset": "dino-vitb16"})
    assert not [n for n in at.number_input if n.key == "f.vocab_size"]
    at.number_input(key="f.patch_size").set_value(8).run()
    assert f"{expected:,}" == shown_total(at)
    assert any("28 × 28 = 784 patches + the class token: 785 tokens" in shown(c.value) for c in at.caption)


def test_a_comparison_of_more_models_than_it_holds_warns():
    """A link comparing three models beside the one in view: the first two are compared and a warning says the
    rest were left out (they were dropped without a word)."""
    at = fresh({"preset": "gpt2", "tab": "Compare", "x_cmp": "llama-2-7b,qwen3-0.6b,gpt2-medium"})
    assert not at.exception
    warnings = [shown(w.value) for w in at.warning]
    assert any(w.startswith("Link: x_cmp: names 3 or more models") for w in warnings), warnings
    assert "llama-2-7b,qwen3-0.6b" == at.query_params["x_cmp"]


def test_the_card_s_bias_and_tying_on_the_first_screen():
    """GPT-2 opens with the card's six controls in the first, open section: vocabulary, width, layers, FFN
    multiplier, biases and tying. GPT-2's classes fix its biases, so the switch says so and offers nanoGPT; there
    the switch turns every bias off (GPTConfig(bias=False)) and tying off, each total equal to nanoGPT's model.py
    (a hand-written torch module, tests/torch_reference.py) built with that choice."""
    import torch_reference as ref

    at = fresh({"preset": "gpt2"})
    sidebar = at.sidebar
    labels = [w.label for kind in (sidebar.slider, sidebar.select_slider, sidebar.toggle) for w in kind]
    assert all(any(lab.startswith(want) for lab in labels) for want in ("Vocabulary", "Hidden size", "Layers",
               "FFN multiplier", "Biases", "Tie LM head"))  # fmt: skip
    assert at.toggle(key="f_bias").disabled
    at.button(key="f_open_nanogpt").click().run()
    nano = sum(p.numel() for p in ref.on_meta(ref.NanoGPT, 50304, 1024, 12, 768, bias=True).parameters())
    assert f"{nano:,}" == shown_total(at)
    at.toggle(key="f_bias").set_value(False).run()
    no_bias = sum(p.numel() for p in ref.on_meta(ref.NanoGPT, 50304, 1024, 12, 768, bias=False).parameters())
    assert (f"{no_bias:,}", "false") == (shown_total(at), at.query_params["attention_bias"])
    at.toggle(key="f.tie_word_embeddings").set_value(False).run()
    assert f"{no_bias + 50304 * 768:,}" == shown_total(at)


def test_the_exact_boxes_wait_in_a_closed_section_and_keep_every_value():
    """GPT-2's side panel draws the card's six controls but not their exact boxes, which wait in Exact sizes, closed
    (a move redraws every control drawn: docs/benchmarks.md). A slider moved while it is closed is in its box once
    it opens, said to be edited; a width typed there that the heads refuse stays typed, its section held open, when
    the section is closed, and the model and the link keep the last valid edit."""
    at = fresh({"preset": "gpt2"})
    assert [] == [w.key for w in at.sidebar.number_input]
    at.select_slider(key="s.vocab_size").set_value(32000).run()
    assert expected("gpt2", vocab_size=32000) == shown_total(at)
    open_section(at, "f.vocab_size")
    assert 32000 == at.number_input(key="f.vocab_size").value
    assert "edited (vocab_size; the file said 50,257)" in [shown(c.value) for c in at.sidebar.caption]
    at.number_input(key="f.hidden_size").set_value(1000).run()
    at.session_state[MORE_OPEN] = []  # a click on its pill while the width waits
    at.run()
    assert 1000 == at.number_input(key="f.hidden_size").value
    assert any("12 does not divide hidden_size 1,000" in shown(e.value) for e in at.error)
    assert (expected("gpt2", vocab_size=32000), {"preset": "gpt2", "vocab_size": "32000"}) == (
        shown_total(at),
        at.query_params,
    )


def test_an_edited_value_says_it_was_edited():
    """After a move the caption in Exact sizes says the value was edited and what the file held (it said "from the
    config (n_layer)"); a key the file does not hold says so, as the "Changed from" line does."""
    at = fresh({"preset": "gpt2", "n_layer": "13", "n_inner": "2048"})  # the file's own names, as the link reads them
    captions = [shown(c.value) for c in open_section(at, "f.intermediate_size").sidebar.caption]
    assert {"Layers: edited (n_layer; the file said 12)", "edited (n_inner; not in the file)"} <= set(captions)


def test_the_multiplier_moved_away_and_back_leaves_the_width_derived():
    """On GPT-2 (n_inner unstated: 4 × n_embd) the multiplier to ×3 and back to ×4 leaves no key in the link, and a
    width move then follows the width, as transformers builds GPT-2 with n_inner unstated (n_inner=3,072 stayed
    pinned, so a width move gave a smaller model than transformers builds from the edited file)."""
    from hf_oracle import hf_count

    at = open_section(fresh({"preset": "gpt2"}), "f_ffn_multiplier")
    at.number_input(key="f_ffn_multiplier").set_value(3.0).run()
    at.number_input(key="f_ffn_multiplier").set_value(4.0).run()
    assert {"preset": "gpt2"} == at.query_params
    at.number_input(key="f.hidden_size").set_value(1536).run()
    assert f"{hf_count({**presets.get('gpt2').config, 'n_embd': 1536}):,}" == shown_total(at)


def test_a_width_the_heads_do_not_divide_offers_heads_of_today_s_size():
    """GPT-2's width typed as 1,024 (12 heads do not divide it): besides the nearest width, the page offers 16 heads
    of 64, GPT-2 medium's shape, the fix people mean; one click applies it, equal to transformers' build."""
    at = move(fresh({"preset": "gpt2"}), "number_input", "f.hidden_size", 1024)
    offer = next(b for b in at.button if b.label.startswith("Use 16 heads of 64"))
    offer.click().run()
    assert not at.exception and not at.error
    assert expected("gpt2", n_embd=1024, n_head=16) == shown_total(at)


def test_a_checkpoint_stored_in_mxfp4_is_sized_as_stored_in_one_click():
    """gpt-oss 120B's checkpoint stores its experts in MXFP4 (quantization_config): the Memory tab says the figures
    are for bf16, where it does not fit one H100, and offers the stored format; one click sizes it in mxfp4 (weights
    of 65,328,441,984 bytes, as transformers' Mxfp4GptOssExperts holds them: test_memory) and it fits, as OpenAI's
    model card says; the link carries the format and the offer is gone."""
    at = fresh({"preset": "gpt-oss-120b", "tab": "Memory"})
    assert "The checkpoint's `quantization_config` names mxfp4; the figures below are for bf16." == at.info[0].value
    gpu = next(m for m in at.metric if m.label == "NVIDIA H100 SXM 80GB")
    assert "does not fit" == gpu.proto.delta
    at.button(key="stored_format").click().run()
    gpu = next(m for m in at.metric if m.label == "NVIDIA H100 SXM 80GB")
    peak = next(m.value for m in at.metric if m.label == "Peak + runtime per GPU")
    assert ("mxfp4", "fits") == (at.query_params.get("run_dtype"), gpu.proto.delta)
    assert 65.33 < float(peak.removesuffix(" GB")) < 80
    assert not [i for i in at.info if "quantization_config" in i.value]


def test_a_refused_ffn_multiplier_stays_as_typed_until_mended():
    """−1 typed as GPT-2's FFN multiplier asks for a width of −768, which is refused naming intermediate_size; the box
    keeps the −1 (it snapped back to 4) while the refusal stands, and a valid multiplier then applies: n_inner 1,536,
    as transformers builds it."""
    from hf_oracle import hf_count

    at = open_section(fresh({"preset": "gpt2"}), "f_ffn_multiplier")
    at.number_input(key="f_ffn_multiplier").set_value(-1.0).run()
    kept = at.number_input(key="f_ffn_multiplier").value
    pending = [e.value for e in at.error if e.value.startswith("Pending") and "intermediate" in e.value]
    at.number_input(key="f_ffn_multiplier").set_value(2.0).run()
    want = hf_count({**presets.get("gpt2").config, "n_inner": 1536})
    assert (-1.0, 1, f"{want:,}") == (kept, len(pending), shown_total(at))
