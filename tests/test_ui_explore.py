"""The explore tabs' Streamlit pieces, driven through AppTest on tiny scripts that call them."""

from __future__ import annotations

import json

import pytest
from rendered import shown
from streamlit.testing.v1 import AppTest

from paramscope.analysis.sweep import family_points
from paramscope.app import charts_explore
from paramscope.app.ui_explore import (
    ExploreLink,
    explore_from_query,
    explore_query,
    model_from_upload,
    upload_link,
)
from paramscope.engine.params import summarize
from paramscope.io import presets
from paramscope.io.encode import encode_config

UPLOAD_SCRIPT = """
import streamlit as st
from paramscope.app import ui_explore as X

def use(text):
    model = X.model_from_upload(text)
    st.session_state["used"] = (model.model_type, model.spec.num_hidden_layers)

result = X.render_upload(on_use=use)
st.session_state["returned"] = None if result is None else result.model_type
"""

COMPARE_SCRIPT = """
import streamlit as st
from paramscope.io import presets
from paramscope.app import ui_explore as X

X.restore_from_query(st.session_state.get("query", {}))
st.session_state["picked"] = X.render_compare("gpt2", presets.load("gpt2"))
"""

DIAGRAM_SWEEP_SCRIPT = """
import streamlit as st
from paramscope.io import presets
from paramscope.app import ui_explore as X

name = st.session_state.get("model", "gpt2")
X.render_diagram(presets.load(name))
st.session_state["dim"] = X.render_sweep(presets.load(name), preset=name)
"""

TINYLLAMA = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "vocab_size": 32000,
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 22,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "tie_word_embeddings": False,
    "rms_norm_eps": 1e-05,
    "bos_token_id": 1,
}
TINYLLAMA_TOTAL = 1_100_048_384  # TinyLlama-1.1B as transformers builds it


def _app(script: str) -> AppTest:
    at = AppTest.from_string(script, default_timeout=60)
    at.run()
    assert not at.exception
    return at


def test_paste_a_config_shows_its_count_and_ignored_keys() -> None:
    """A pasted config.json is counted, the keys the count ignores are listed, and it can be adopted."""
    at = _app(UPLOAD_SCRIPT)
    at.text_area(key="x_paste").input(json.dumps(TINYLLAMA)).run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert "llama" == metrics["Model type"]
    assert "1,100,048,384" == metrics["Parameters"]  # TinyLlama 1.1B, every digit on screen
    assert "bos_token_id\nrms_norm_eps" == at.code[0].value
    assert "llama" == at.session_state["returned"]
    at.button(key="x_use").click().run()
    assert ("llama", 22) == at.session_state["used"]


def test_bad_json_keeps_the_text_and_shows_an_error() -> None:
    """Malformed JSON: an error naming the line, the pasted text still in the box, no exception."""
    at = _app(UPLOAD_SCRIPT)
    broken = '{"model_type": "llama",\n "hidden_size": 2048,,}'
    at.text_area(key="x_paste").input(broken).run()
    assert not at.exception
    assert "malformed JSON at line 2" in shown(at.error[0].value)
    assert broken == at.text_area(key="x_paste").value
    assert at.session_state["returned"] is None
    at.run()  # another rerun: the text is still there
    assert broken == at.text_area(key="x_paste").value


def test_unsupported_model_type_is_explained() -> None:
    """An unknown model_type is an error plus a note listing the supported types and the way around."""
    at = _app(UPLOAD_SCRIPT)
    at.text_area(key="x_paste").input('{"model_type": "frobnet", "hidden_size": 768}').run()
    assert not at.exception
    assert "model_type: 'frobnet' is not a model type transformers knows" in shown(at.error[0].value)
    assert '"model_type": "paramscope"' in shown(at.info[0].value)
    assert '"model_type": "paramscope"' in at.code[0].value


def test_type_without_a_row_is_counted_by_transformers() -> None:
    """A model type transformers knows but no row reads (BioGPT) is counted by transformers on the meta device."""
    import torch
    from transformers import BioGptConfig, BioGptForCausalLM

    with torch.device("meta"):
        config = BioGptConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128)
        expected = sum(p.numel() for p in BioGptForCausalLM(config).parameters())
    at = _app(UPLOAD_SCRIPT)
    at.text_area(key="x_paste").input(
        '{"model_type": "biogpt", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, '
        '"intermediate_size": 128}'
    ).run()
    assert not at.exception
    assert (f"{expected:,}", "biogpt") == (at.metric[1].value, at.session_state["returned"])
    assert "counted by transformers" in shown(at.caption[0].value)


def test_a_whole_model_is_said_to_be_counted_from_its_towers() -> None:
    """A whole LLaVA pasted in Your model is counted from its towers' formulas, and its caption says so (it said
    "counted by transformers (counted with formulas ...)")."""
    at = _app(UPLOAD_SCRIPT)
    at.text_area(key="x_paste").input('{"model_type": "llava"}').run()
    caption = shown(at.caption[0].value)
    said = ("a whole model, counted from its towers' formulas" in caption, "by transformers" in caption)
    assert (True, False) == said


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"model_type": "gpt2", "n_embd": "wide"}', "n_embd: expected a whole number"),
        ("[1, 2, 3]", "expected a JSON object"),
        ('{"model_type": "gpt2", "n_embd": NaN}', "NaN"),
        ('{"model_type": "llama", "hidden_size": 100, "num_attention_heads": 7}', "does not divide"),
        ('{"model_type": "llama",}', "Could not read this config: malformed JSON at line 1, column 24"),
    ],
)
def test_invalid_configs_are_errors_not_crashes(text: str, message: str) -> None:
    """Wrong types, non-objects, NaN and impossible shapes end in st.error, never an exception."""
    at = _app(UPLOAD_SCRIPT)
    at.text_area(key="x_paste").input(text).run()
    assert not at.exception
    assert message in shown(at.error[0].value)


def test_uploaded_file_is_copied_into_the_text_area() -> None:
    """An uploaded config.json appears in the text area (to edit) and is counted."""
    at = _app(UPLOAD_SCRIPT)
    at.file_uploader(key="x_upload").set_value(("config.json", json.dumps(TINYLLAMA).encode(), "application/json"))
    at.run()
    assert not at.exception and not at.error
    assert TINYLLAMA == json.loads(at.text_area(key="x_paste").value)
    assert "llama" == at.session_state["returned"]


def test_uploaded_binary_is_an_error() -> None:
    """A file that is not UTF-8 text is refused with an error."""
    at = _app(UPLOAD_SCRIPT)
    at.file_uploader(key="x_upload").set_value(("config.json", b"\xff\xfe\x00garbage", "application/json"))
    at.run()
    assert not at.exception
    assert "not UTF-8" in shown(at.error[0].value)


def test_compare_renders_totals_and_tables() -> None:
    """Picking GPT-2 medium beside GPT-2 shows both totals, the bars and the tables of counts and fields."""
    at = _app(COMPARE_SCRIPT)
    assert [] == at.session_state["picked"]
    at.multiselect(key="x_cmp").set_value(["gpt2-medium"]).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert {"gpt2": "124.4M", presets.get("gpt2-medium").title: "354.8M"} == metrics
    headline, components, fields = at.dataframe[0].value, at.dataframe[1].value, at.dataframe[2].value
    total = headline[headline[""] == "Total"].iloc[0]  # a row a number, a column a model
    assert ["124,439,808", "354,823,168"] == [total["gpt2"], total[presets.get("gpt2-medium").title]]
    assert "embedding/token" in list(components["component"])
    assert "hidden_size" in list(fields["field"])
    assert ["gpt2-medium"] == at.session_state["picked"]


def _y_axis_type(at: AppTest) -> str:
    """The y axis of the compare tab's first chart (the bars per component), as the browser receives it."""
    return json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["yaxis"].get("type", "linear")


def test_compare_log_axis_follows_the_models_until_set() -> None:
    """GPT-2 beside Mixtral 8x7B (377x larger) opens on a log axis, beside GPT-2 medium (2.9x) on a linear one;
    once the toggle is moved by hand it stays where it was put."""
    at = _app(COMPARE_SCRIPT)
    picker = lambda: at.multiselect(key="x_cmp")  # noqa: E731
    picker().set_value(["mixtral-8x7b"]).run()
    assert (True, "log") == (at.toggle(key="x_cmp_log").value, _y_axis_type(at))
    picker().set_value(["gpt2-medium"]).run()
    assert (False, "linear") == (at.toggle(key="x_cmp_log").value, _y_axis_type(at))
    at.toggle(key="x_cmp_log").set_value(True).run()
    picker().set_value(["gpt2-large"]).run()
    assert (True, "log") == (at.toggle(key="x_cmp_log").value, _y_axis_type(at))
    assert not at.exception


def test_compare_restores_a_link_with_an_encoded_config() -> None:
    """A link comparing a preset and an encoded model restores both in the picker and renders them."""
    deeper = dict(presets.get("gpt2").config, n_layer=48)
    at = AppTest.from_string(COMPARE_SCRIPT, default_timeout=60)
    at.session_state["query"] = {"x_cmp": f"llama-3.2-1b,{encode_config(deeper)}"}
    at.run()
    assert not at.exception
    assert 3 == len(at.metric)
    assert "gpt2 · 379.6M (link)" == at.metric[2].label  # 124.4M + 36 more layers of 7,087,872


def test_diagram_and_sweep_render() -> None:
    """The diagram and every sweep dimension render without error for a dense and an MoE model."""
    at = _app(DIAGRAM_SWEEP_SCRIPT)
    assert "layers" == at.session_state["dim"]
    assert 3 == len(at.radio(key="x_sweep").options)  # no experts to sweep in a dense model
    for dim in ("width", "vocab"):
        at.radio(key="x_sweep").set_value(dim).run()
        assert not at.exception and not at.error
        assert dim == at.session_state["dim"]
    at.session_state["model"] = "mixtral-8x7b"
    at.run()
    at.radio(key="x_sweep").set_value("experts").run()
    assert not at.exception and not at.error
    assert "experts" == at.session_state["dim"]


def test_sweep_names_real_models_by_their_titles() -> None:
    """The real models marked on a sweep are named by their preset's title (as Compare names them), not by id."""
    points = family_points("layers", "GPT-2")
    fig = charts_explore.sweep_params([], "num_hidden_layers", points)
    marks = next(trace for trace in fig.data if trace.name == "real models")
    assert ["GPT-2 small (124M)", "GPT-2 medium (355M)"] == list(marks.text)[:2]
    assert [presets.get(p["name"]).title for p in points] == list(marks.text)


# ------------------------------------------------------------------------------- link helpers (pure)
def test_explore_query_round_trip() -> None:
    """Compare entries, the sweep and a whole model survive explore_query -> explore_from_query."""
    model = presets.model("t5-small").edit(num_decoder_layers=3)
    entries = ["gpt2", encode_config(model.config)]
    q = explore_query(entries, "width", model)
    assert {"x_cmp", "x_sweep", "x_spec"} == set(q)
    back = explore_from_query(q)
    assert ExploreLink(back.model, tuple(entries), "width", ()) == back
    assert model.spec == back.model.spec


def test_defaults_write_nothing() -> None:
    """No comparison and the default sweep add nothing to the link."""
    assert {} == explore_query()


@pytest.mark.parametrize(
    ("query", "warning"),
    [
        ({"x_spec": "2.garbage"}, "x_spec: link:"),
        ({"x_spec": "1.eNqrrgUAAXUA-Q"}, "x_spec: link:"),
        ({"x_cmp": "no-such-model"}, "neither a preset name nor an encoded model"),
        ({"x_cmp": "2.AAAA"}, "x_cmp: link:"),
        ({"x_sweep": "heads"}, "not one of layers, width, vocab, experts"),
        ({"x_spec": ["a", "b"]}, "x_spec"),
    ],
)
def test_bad_links_warn_and_fall_back(query: dict, warning: str) -> None:
    """A bad part of a link is dropped with a warning naming it; nothing raises."""
    link = explore_from_query(query)
    assert (None, (), "layers") == (link.model, link.compare, link.sweep)
    assert 1 == len(link.warnings) and warning in link.warnings[0]


def test_an_upload_is_its_own_config() -> None:
    """An uploaded config is the model as its file says it: edits start from the file, not from a preset."""
    model = model_from_upload(json.dumps(TINYLLAMA))
    assert (TINYLLAMA, TINYLLAMA_TOTAL, "upload") == (model.config, summarize(model.spec).total, model.origin)


def test_upload_link_carries_the_config_and_the_edits() -> None:
    """An edited upload links as its encoded config plus the edited keys (no preset: it started from none); the link
    rebuilds the edited model."""
    from paramscope.io import link

    model = model_from_upload(json.dumps(TINYLLAMA)).edit(num_hidden_layers=4)
    q = upload_link(model)
    assert {"x_spec", "num_hidden_layers"} == set(q)
    back, warnings = link.edits_from_query(explore_from_query(q).model, q, [])
    assert ([], model.spec) == (warnings, back.spec)  # the link keeps the keys that count, not token ids


def test_example_button_fills_the_text_area() -> None:
    """With nothing pasted, one click puts the example config in the box and counts it (TinyLlama-like)."""
    at = _app(UPLOAD_SCRIPT)
    at.button(key="x_example").click().run()
    assert not at.exception and not at.error
    assert "llama" == json.loads(at.text_area(key="x_paste").value)["model_type"]
    assert "llama" == at.session_state["returned"]


@pytest.mark.parametrize(
    ("case", "kinds"),
    [
        ("gemma4_text-per-layer-inputs-wide-full-layers", ["Sliding layer", "Full-attention layer"]),
        (
            "gemma4_text-k-eq-v-shared-kv-double-wide",
            ["Sliding layer", "Full-attention layer", "Sliding, shared-KV layer", "Full-attention, shared-KV layer"],
        ),
    ],
)
def test_gemma4_layer_kinds_are_its_layers(case: str, kinds: list[str]) -> None:
    """The layer chart shows each kind of Gemma 4 layer with what one such layer of Gemma4ForCausalLM holds on the meta
    device: a sliding layer, a full-attention layer (wider heads), and a layer reusing keys and values (its MLP twice
    as wide with use_double_wide_mlp)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import CASES

    from paramscope import read
    from paramscope.app.charts import layer_kinds

    config = {k: v for k, v in CASES[case].items() if k != "model_type"}
    with torch.device("meta"):
        model = transformers.Gemma4ForCausalLM(transformers.Gemma4TextConfig(**config))
    own = {}
    for i, layer in enumerate(model.model.layers):  # the first layer of each kind (sliding/full, own/shared K,V)
        key = (config["layer_types"][i], i >= config["num_hidden_layers"] - config.get("num_kv_shared_layers", 0))
        own.setdefault(key, sum(p.numel() for p in layer.parameters()))
    shown = layer_kinds(summarize(read(CASES[case]).spec))
    assert kinds == [name for name, _, _ in shown]
    assert sorted(own.values()) == sorted(sum(n for _, n in parts) for _, _, parts in shown)


def test_gemma3n_layer_kinds_are_its_layers() -> None:
    """The layer chart shows each kind of Gemma 3n layer (sliding or full, with keys and values of its own or reusing
    an earlier layer's) with what one such layer of Gemma3nForCausalLM holds on the meta device: attention, the MLP,
    the per-layer input gate, AltUp, LAuReL and the norms."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import CASES

    from paramscope import read
    from paramscope.app.charts import layer_kinds

    case = CASES["gemma3n_text-altup-laurel-shared-kv"]
    config = {k: v for k, v in case.items() if k != "model_type"}
    with torch.device("meta"):
        model = transformers.Gemma3nForCausalLM(transformers.Gemma3nTextConfig(**config))
    own = {}
    for i, layer in enumerate(model.model.layers):  # the first layer of each kind (sliding/full, own/shared K,V)
        key = (config["layer_types"][i], i >= config["num_hidden_layers"] - config["num_kv_shared_layers"])
        own.setdefault(key, sum(p.numel() for p in layer.parameters()))
    shown = layer_kinds(summarize(read(case).spec))
    kinds = ["Sliding layer", "Full-attention layer", "Sliding, shared-KV layer", "Full-attention, shared-KV layer"]
    assert kinds == [name for name, _, _ in shown]
    assert sorted(own.values()) == sorted(sum(n for _, n in parts) for _, _, parts in shown)


def test_gemma4_audio_layer_is_one_conformer_layer() -> None:
    """The layer chart shows Gemma 4's audio tower as its 2 layers, each with what one Gemma4AudioLayer holds on the
    meta device: both feed-forward blocks, the attention, the convolution module and the norms."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import CASES

    from paramscope import read
    from paramscope.app.charts import layer_kinds

    config = {k: v for k, v in CASES["gemma4-audio"].items() if k != "model_type"}
    with torch.device("meta"):
        model = transformers.Gemma4AudioModel(transformers.Gemma4AudioConfig(**config))
    own = sum(p.numel() for p in model.layers[0].parameters())
    [(name, n, parts)] = layer_kinds(summarize(read(CASES["gemma4-audio"]).spec))
    assert ("Layer", len(model.layers), own) == (name, n, sum(count for _, count in parts))


def test_deepseek_v4_layer_kinds_are_its_layers() -> None:
    """The layer chart shows DeepSeek-V4's plain sliding layer, its compressed sparse layer and its heavily compressed
    layer, each with what one such layer of DeepseekV4ForCausalLM holds on the meta device."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from test_engine_vs_hf import DEEPSEEK_V4

    from paramscope import read
    from paramscope.app.charts import layer_kinds

    config = {k: v for k, v in DEEPSEEK_V4.items() if k != "model_type"}
    with torch.device("meta"):
        model = transformers.DeepseekV4ForCausalLM(transformers.DeepseekV4Config(**config))
    own = [sum(p.numel() for p in layer.parameters()) for layer in model.model.layers]  # sliding, CSA, HCA
    shown = layer_kinds(summarize(read(DEEPSEEK_V4).spec))
    assert ["Sliding layer", "Compressed sparse layer", "Heavily compressed layer"] == [name for name, _, _ in shown]
    assert own == [sum(n for _, n in parts) for _, _, parts in shown]


def test_cost_axes_of_the_sweep_carry_their_magnitudes():
    """ "Memory and training compute" on GPT-2's layers, 3 to 48, log axes: every tick of the FLOPs axis reads as a
    magnitude (1.00B, 2.00B, ...), not Plotly's 12.02054B, 2, 3, 5 of a log axis spanning about a decade."""
    from paramscope.analysis.sweep import sweep
    from paramscope.app import charts_explore as CX
    from paramscope.engine.run import RunSettings
    from paramscope.io import presets

    spec = presets.load("gpt2")
    rows = sweep(spec, "num_hidden_layers", [3, 6, 12, 24, 48], RunSettings())
    fig = CX.sweep_costs(rows, "num_hidden_layers", 12, True)
    flops = fig.layout.yaxis2.ticktext
    assert len(flops) >= 2 and all(t[-1] in "KMBT" for t in flops), flops


def test_real_models_at_one_point_share_one_label():
    """Llama 3 70B, 3.1 70B and 3.3 70B have 80 layers and (nearly) one count: one diamond whose label names all
    three, so no label sits on another, as each did; every model is still named."""
    from paramscope.analysis.sweep import family_points
    from paramscope.app import charts_explore as CX

    points = family_points("layers", "Llama", with_costs=False)
    rows = [{"value": v, "total": 1, "non_embedding": 1, "embedding": 1, "kaplan_12LD2": 1} for v in (8, 128)]
    marks = next(t for t in CX.sweep_params(rows, "num_hidden_layers", points).data if t.name == "real models")
    anchors = list(zip(marks.x, marks.y, strict=True))
    named = " · ".join(marks.text)
    assert (len(set(anchors)), True) == (len(anchors), all(p["title"] in named for p in points))
    assert any("Llama 3 70B" in t and "Llama 3.1 70B" in t for t in marks.text), marks.text


def test_the_parameter_axis_reaches_every_line():
    """GPT-2's layers swept from 1 to 48: the y-axis's lowest tick is within one 1-2-5 step of the lowest line drawn
    (Kaplan's and the non-embedding count of one layer, about 7.1M; the ticks stopped at 50.0M, where only the total
    and embedding lines were read)."""
    from paramscope.analysis.sweep import sweep
    from paramscope.app import charts_explore as CX

    rows = sweep(presets.load("gpt2"), "layers", [1, 12, 48])
    lowest = min(r[k] for r in rows for k in ("total", "non_embedding", "embedding", "kaplan_12LD2") if r[k] > 0)
    ticks = CX.sweep_params(rows, "num_hidden_layers").layout.yaxis.tickvals
    assert min(ticks) < 2.5 * lowest, (min(ticks), lowest)


def test_compare_totals_carry_their_numbers():
    """Each bar of Compare's "Totals" ends with its model's total (they carried none), exact in the hover."""
    from paramscope.analysis.compare import compare
    from paramscope.app import charts_explore as CX

    c = compare([("gpt2", presets.load("gpt2")), ("llama-2-7b", presets.load("llama-2-7b"))], with_costs=False)
    fig = CX.compare_totals(c)
    assert [" 124.4M", " 6.7B"] == [a.text for a in fig.layout.annotations]
