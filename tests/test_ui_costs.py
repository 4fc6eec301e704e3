"""The Memory and Compute tabs and the run controls, driven headless with Streamlit's AppTest."""

from __future__ import annotations

import dataclasses

import pytest
from streamlit.testing.v1 import AppTest

from paramscope.app import charts_costs
from paramscope.engine.flops import forward
from paramscope.engine.memory import memory, parts
from paramscope.engine.run import RunSettings
from paramscope.io import presets


def _script() -> None:
    import streamlit as st

    from paramscope.app import ui_costs
    from paramscope.engine.run import RunSettings
    from paramscope.io import presets

    spec = presets.load(st.session_state.get("model", "llama-2-7b"))
    settings = st.session_state.get("run_settings", RunSettings())
    with st.sidebar:
        settings = ui_costs.render_run_controls(settings)
    st.session_state.run_settings = settings
    ui_costs.render_memory_tab(spec, settings)
    ui_costs.render_compute_tab(spec, settings)


def _app(model: str, settings: RunSettings | None = None) -> AppTest:
    at = AppTest.from_function(_script, default_timeout=60)
    at.session_state["model"] = model
    if settings is not None:
        at.session_state["run_settings"] = settings
    return at.run()


@pytest.mark.parametrize(
    ("model", "settings"),
    [
        ("llama-2-7b", None),
        ("mixtral-8x7b", RunSettings(mode="training", zero=3, gpus=8, flash=True)),
        ("t5-small", RunSettings(dtype="int4", batch=4)),
        ("bert-base-uncased", RunSettings(mode="training", recompute="full", dropout=True)),
        ("deepseek-v2-lite", RunSettings(seq=32768, kv_dtype="fp8", causal=True, tokens_per_second=1e5)),
        ("qwen3-0.6b", RunSettings(mode="training", kernels="liger", batch=8, seq=4096)),
        ("llama-3-8b", RunSettings(mode="finetune", quant="nf4", batch=4, seq=2048, recompute="full")),
    ],
)
def test_tabs_render_and_show_engine_numbers(model: str, settings: RunSettings | None) -> None:
    """Both tabs render without an exception and the headline is the engine's peak and runtime, in GB."""
    at = _app(model, settings)
    assert not at.exception
    out = parts(memory(presets.load(model), settings or RunSettings()))
    metrics = {m.label: m.value for m in at.metric}
    assert f"{(out['total'] - out['allocator']) / 1e9:,.2f} GB" == metrics["Peak + runtime per GPU"]


def test_controls_keep_hidden_settings() -> None:
    """Settings of controls hidden in inference mode (optimizer, FlashAttention) survive a trip to
    inference and back, and every change reaches the returned settings."""
    at = _app("gpt2")
    at.radio(key="run_mode").set_value("training").run()
    at.selectbox(key="run_optimizer").set_value("sgd").run()
    at.checkbox(key="run_flash").check().run()
    at.radio(key="run_mode").set_value("inference").run()
    at.number_input(key="run_batch").set_value(3).run()
    at.radio(key="run_mode").set_value("training").run()
    assert not at.exception
    s = at.session_state["run_settings"]
    assert ("training", "sgd", True, 3) == (s.mode, s.optimizer, s.flash, s.batch)


def test_the_kernels_choice_offers_liger_and_reaches_the_settings() -> None:
    """The Kernels choice in training offers transformers', Liger-Kernel's and Megatron's, and picking Liger-Kernel
    reaches the run's settings."""
    at = _app("qwen3-0.6b")
    at.radio(key="run_mode").set_value("training").run()
    box = at.selectbox(key="run_kernels")
    assert [
        "transformers (eager, its loss)",
        "Liger-Kernel (fused loss)",
        "Megatron-LM (fused kernels)",
    ] == list(box.options)
    box.set_value("liger").run()
    assert not at.exception
    assert "liger" == at.session_state["run_settings"].kernels


def test_a_run_setting_reset_without_the_person_is_put_back() -> None:
    """Under load the browser can hand a rerun a widget at its default (the first mode, batch 1, the first GPU, an
    emptied box): values no move of the person's sent are put back to the run's settings (sessions of
    bench/many_users.py --mixed ended on the first options). A real move still changes the setting."""
    at = _app("gpt2", RunSettings(mode="training", batch=6, gpu="a100-80gb", recompute="full", lora_rank=32))
    defaults = {"run_mode": "inference", "run_batch": 1, "run_gpu": "a100-40gb", "run_recompute": "none"}
    for key, value in defaults.items():
        at.session_state[key] = value
    at.run()
    s = at.session_state["run_settings"]
    assert ("training", 6, "a100-80gb", "full") == (s.mode, s.batch, s.gpu, s.recompute)
    at.number_input(key="run_batch").set_value(5).run()
    assert (5, "training") == (at.session_state["run_settings"].batch, at.session_state["run_settings"].mode)


def test_a_serving_engine_takes_its_three_settings_and_says_its_cache() -> None:
    """With the serving engine on, its chunk, max sequences and GPU share are controls that reach the settings, and
    the Memory tab says the KV cache the engine sizes (serving_capacity's bytes, tokens and sequences)."""
    from paramscope.engine.hardware import GiB, get
    from paramscope.engine.memory import serving_capacity

    at = _app("llama-3-8b")
    at.toggle(key="run_serving").set_value(True).run()
    at.number_input(key="run_chunk").set_value(2048).run()
    at.number_input(key="run_max_seqs").set_value(256).run()
    at.number_input(key="run_gpu_util").set_value(0.8).run()
    s = at.session_state["run_settings"]
    cap = serving_capacity(presets.load("llama-3-8b"), s, get(s.gpu).capacity)
    said = next(c.value for c in at.caption if c.value.startswith("Serving:"))
    assert (True, 2048, 256, 0.8) == (s.serving, s.chunk, s.max_seqs, s.gpu_util)
    assert f"{cap['kv_budget_bytes'] / GiB:,.2f} GiB of KV cache, {cap['kv_tokens']:,} tokens" in said
    assert f": {cap['sequences']:,} sequences of" in said
    assert "Needed per GPU at share 0.8" == at.metric[0].label  # what the headline adds up (it said peak + runtime)


def test_a_serving_engines_phase_chart_names_what_it_leaves_free() -> None:
    """The phase chart's line stands at what the engine may use (gpu_util of the GPU, less nothing else), and says so;
    it said "less the runtime" at 0.9 × capacity."""
    at = _app("llama-3-8b", RunSettings(serving=True))
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert any("NVIDIA H100 SXM 80GB less the share the engine leaves free: 76.5 GB" in s for s in specs)


def test_restored_settings_show_in_the_controls() -> None:
    """Settings handed in (from a share link) appear in the widgets."""
    at = _app("gpt2", RunSettings(batch=7, gpu="rtx-4090", mfu=0.5))
    assert (7, "rtx-4090", 50.0) == (
        at.number_input(key="run_batch").value,
        at.selectbox(key="run_gpu").value,
        at.slider(key="run_mfu").value,
    )


def test_memory_bar_has_capacity_line_and_parts() -> None:
    """The stacked bar: one trace per non-zero part, in GB, and a line at the GPU's capacity, named in the legend; a
    part's label is hidden where the part is too thin to read it (the allocator's was unreadably small)."""
    out = parts(memory(presets.load("llama-2-7b"), RunSettings(seq=4096, dtype="fp16")))
    fig = charts_costs.memory_bar(out, 80 * 10**9, "H100")
    expected = ["Weights", "KV cache", "Transient (the peak phase)", "Allocator margin", "Runtime (assumed)"]
    assert expected == [t.name for t in fig.data]
    assert 2**31 / 1e9 == fig.data[1].y[0]
    line = fig.layout.shapes[0]
    assert (80.0, True, "H100: 80 GB") == (line.y0, line.showlegend, line.name)  # in the legend, clicking hides it
    assert not fig.layout.annotations  # not written over the bar
    assert (10, "hide") == (fig.layout.uniformtext.minsize, fig.layout.uniformtext.mode)  # no unreadable labels


def test_flops_bar_shares_add_to_the_forward_total() -> None:
    """The FLOPs chart groups every leaf of the tree; the groups add up to the forward total."""
    tree = forward(presets.load("gpt2"), 1024)
    groups = charts_costs.flops_breakdown(tree, 1024)
    assert tree.count == sum(groups.values())
    assert 79_047_426_048 == groups["LM head"]


def test_training_time_runs_on_every_gpu_of_the_layout_and_says_when_it_does_not_fit() -> None:
    """The training time divides the FLOPs by every GPU of the run, data-parallel groups × TP × PP (3 × 4 = 12 H100s:
    a quarter of the time on 3), and a run the Memory tab says does not fit is said not to fit beside it."""
    from paramscope.engine.flops import compute, human_seconds, training_seconds
    from paramscope.engine.hardware import get

    run = RunSettings(mode="training", gpus=3, tp=4, zero=3, sp=True)
    at = _app("qwen3-8b", run)
    c, h100 = compute(presets.load("qwen3-8b"), run), get("h100-sxm")
    shown_time = {m.label: m.value for m in at.metric}["Time on 12 × NVIDIA H100 SXM 80GB"]
    assert human_seconds(training_seconds(c.training_total, 12, h100.bf16_flops, run.mfu)) == shown_time
    assert not [w for w in at.warning if "does not fit" in w.value]
    alone = _app("qwen3-8b", RunSettings(mode="training"))
    assert any(w.value.startswith("This training run does not fit on 1 × NVIDIA H100") for w in alone.warning)


def test_compute_tab_shows_decode_speed_within_the_bandwidth_bound() -> None:
    """Llama-3-8B in bf16 at batch 1 on an H100 SXM decodes at most 3.35e12 B/s / 15.0 GB read per step (every
    weight but the input table, (8,030,261,248 - 525,336,576) × 2 B) = 223.2 tokens/s; the KV cache costs ~1 %."""
    at = _app("llama-3-8b", RunSettings(gpu="h100-sxm", batch=1, seq=1024))
    decode = next(m for m in at.metric if m.label == "Decode")
    value = float(decode.value.split()[0].replace(",", ""))
    bound = 3.35e12 / ((8_030_261_248 - 525_336_576) * 2)
    assert 0.98 * bound < value <= bound
    assert "memory-bound" in decode.help


def test_compute_tab_speed_runs_on_the_layout_that_fits() -> None:
    """Llama-3-70B in bf16 (141.1 GB of weights) does not fit one H100: the Compute tab times it on the GPUs the Memory
    tab needs (two, tensor parallel), whose decode bound is 2 × 3.35e12 B/s over the weights read per step, (70,553,
    706,496 - 1,050,673,152) × 2 B, not one GPU's."""
    at = _app("llama-3-70b", RunSettings(gpu="h100-sxm", batch=1, seq=1024))
    heads = [h.value for h in at.subheader if h.value.startswith("Inference speed")]
    decode = next(m for m in at.metric if m.label == "Decode")
    value = float(decode.value.split()[0].replace(",", ""))
    bound = 2 * 3.35e12 / ((70_553_706_496 - 1_050_673_152) * 2)
    assert (["Inference speed on 2 × NVIDIA H100 SXM 80GB"], True) == (heads, 0.97 * bound < value <= bound)


def _decode(at: AppTest) -> float:
    return float(next(m for m in at.metric if m.label == "Decode").value.split()[0].replace(",", ""))


def test_compute_tab_speed_runs_on_the_settings_layout_where_it_fits() -> None:
    """Llama-3-70B with TP 4 in the settings (it fits, as the Memory tab says): the speed is timed on those 4 GPUs,
    whose decode bound is 4 × 3.35e12 B/s over the weights read per step, not on the 2 the search would pick."""
    at = _app("llama-3-70b", RunSettings(gpu="h100-sxm", batch=1, seq=1024, tp=4))
    heads = [h.value for h in at.subheader if h.value.startswith("Inference speed")]
    bound = 4 * 3.35e12 / ((70_553_706_496 - 1_050_673_152) * 2)
    assert (["Inference speed on 4 × NVIDIA H100 SXM 80GB"], True) == (heads, 0.97 * bound < _decode(at) <= bound)


def test_compute_tab_speed_reads_the_kv_cache_in_its_format() -> None:
    """Llama 3.1 8B, 32 sequences of 8,192 tokens with an fp8 cache: a decode step reads the weights (8,030,261,248
    parameters less all but one row of the 128,256 × 4,096 input table, 2 bytes each) and the fp8 cache at the
    average context 8,192 + 256/2 (32 layers × 2 × 8 KV heads × 128 × 1 byte a token): at most 32 × 3.35e12 B/s over
    them; the bf16 cache's bound is lower (it read the cache in bf16 whatever the setting)."""
    settings = RunSettings(gpu="h100-sxm", batch=32, seq=8192, serving=True, kv_dtype="fp8")
    weights = (8_030_261_248 - 128_255 * 4096) * 2
    cache = 32 * (8192 + 128) * 32 * 2 * 8 * 128
    bound = 32 * 3.35e12 / (weights + cache)
    fp8 = _decode(_app("llama-3.1-8b", settings))
    bf16 = _decode(_app("llama-3.1-8b", dataclasses.replace(settings, kv_dtype="bf16")))
    assert (True, True) == (0.97 * bound < fp8 <= bound, bf16 < 0.97 * bound)


def test_finetune_mode_shows_trainable_adapters() -> None:
    """Finetune (QLoRA) on the Memory tab: the trainable parameters PEFT builds (41,943,040 for Llama-3-8B at rank
    16 on every linear layer, as PEFT's print_trainable_parameters reports) and the memory with the NF4 base."""
    at = _app("llama-3-8b", RunSettings(mode="finetune", lora_rank=16, quant="nf4"))
    assert not at.exception
    assert "41,943,040" == next(m.value for m in at.metric if m.label == "Trainable LoRA parameters")


def test_tensor_parallel_memory_per_gpu() -> None:
    """Llama-3-70B in bf16 with TP = 2: each GPU holds half of every matrix and of the vocabulary, the norms whole,
    half the KV heads: (141,107,412,992 + 2,637,824) / 2 B of weights and 335,544,320 B of KV cache in the table."""
    at = _app("llama-3-70b", RunSettings(tp=2, gpu="h100-sxm"))
    tables = " ".join(t.value.to_csv() for t in at.table)
    weights, cache = (141_107_412_992 + 2_637_824) // 2, 335_544_320
    assert (True, True) == (f"{weights:,}" in tables, f"{cache:,}" in tables)


@pytest.mark.parametrize(
    ("x", "digits", "shown"),
    [
        (7.746e21, 3, "7.75 × 10²¹"),
        (1e18, 3, "1.00 × 10¹⁸"),
        (9.996e21, 3, "1.00 × 10²²"),  # the rounding carries into the exponent
        (989.4e12, 4, "9.894 × 10¹⁴"),
        (123, 3, "1.23 × 10²"),
        (4.2e-3, 2, "4.2 × 10⁻³"),
    ],
)
def test_flops_are_written_as_powers_of_ten(x: float, digits: int, shown: str) -> None:
    """Large FLOP counts read as papers write them, not as Python's '7.75e+21'."""
    from paramscope.engine.spec import power_of_ten

    assert shown == power_of_ten(x, digits)


def test_compute_tab_training_flops_read_back() -> None:
    """The Compute tab's training FLOPs, read back from 'm × 10ⁿ', are the engine's to the three digits shown."""
    from paramscope.engine.flops import compute

    at = _app("llama-2-7b")
    metrics = {m.label: m.value for m in at.metric}
    digits = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
    for label in ("Training FLOPs", "6ND"):
        mantissa, exponent = metrics[label].split(" × 10")
        value = float(mantissa) * 10 ** int(exponent.translate(digits))
        c = compute(presets.load("llama-2-7b"), RunSettings())
        want = c.training_total if label == "Training FLOPs" else c.six_nd
        assert abs(value - want) <= 0.005 * want


def test_gpu_badge_says_does_not_fit_without_an_arrow() -> None:
    """Llama-3-70B in bf16 does not fit one H100: the badge says so in red with no arrow (an arrow up would read as
    "more is better"), and the per-token FLOPs are in GFLOPs, the unit of the Compute chart's axis."""
    from streamlit.proto.Metric_pb2 import Metric

    from paramscope.engine.flops import compute

    at = _app("llama-3-70b")
    badge = next(m for m in at.metric if m.proto.delta == "does not fit")
    assert (Metric.MetricDirection.NONE, Metric.MetricColor.RED) == (badge.proto.direction, badge.proto.color)
    forward = compute(presets.load("llama-3-70b"), RunSettings()).forward_per_token
    metrics = {m.label: m.value for m in at.metric}
    assert f"{forward / 1e9:,.1f} GFLOPs" == metrics["Forward FLOPs / token"]


@pytest.mark.parametrize("log_x", [True, False])
def test_chosen_marker_label_sits_on_its_line(log_x: bool) -> None:
    """The "chosen" label of a memory sweep stands at the dotted line, on a log axis too (where Plotly takes the
    log of an annotation's x)."""
    out = parts(memory(presets.load("llama-2-7b"), RunSettings()))
    fig = charts_costs.memory_sweep([512, 2048, 8192], [out, out, out], "context", marker=2048, log_x=log_x)
    line = fig.layout.shapes[-1].x0
    label = fig.layout.annotations[-1]
    assert ("chosen", 2048) == (label.text, line)
    assert (3.311 if log_x else 2048) == round(label.x, 3)  # a log axis places annotations at log10(2048)


def test_a_log_sweep_axis_writes_each_value_swept() -> None:
    """A memory sweep's log axis is ticked at each value swept, written out with its magnitude (Plotly's own log
    ticks read "2 3 4 5 ... 1000 2 3"), and its legend hangs under the axis title (its first entry sat on it)."""
    out = parts(memory(presets.load("gpt2"), RunSettings()))
    fig = charts_costs.memory_sweep([128, 1024, 8192], [out, out, out], "context")
    assert ((128, 1024, 8192), ("128", "1,024", "8,192")) == (fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext)
    assert ("top", -0.3) == (fig.layout.legend.yanchor, fig.layout.legend.y)  # under the axis title (it sat on it)


def test_a_scan_states_no_context_window() -> None:
    """Mamba has no positions and its config no context window: a long context gets no warning that it is longer than
    the model's, and the largest context that fits is not capped at a window (MambaConfig has no
    max_position_embeddings; the row's old fallback said 1,024)."""
    at = _app("mamba-130m-hf", RunSettings(seq=100_000))
    assert [] == [w.value for w in at.warning if "longer than this model's context" in w.value]
    largest = {m.label: m.value for m in at.metric}["Largest context that fits"]
    assert int(largest.replace(",", "")) > 100_000


@pytest.mark.parametrize(
    ("flops", "shown"), [(16_060_000_000, "16.1 GFLOPs"), (100_000_000, "0.1 GFLOPs"), (2_500_000, "2.5 MFLOPs")]
)
def test_per_token_flops_in_the_axis_unit(flops: int, shown: str) -> None:
    """Per-token FLOPs read in GFLOPs, the Compute chart's axis unit; a toy model's in MFLOPs instead of 0.0."""
    from paramscope.app.ui_costs import _flops

    assert shown == _flops(flops)


@pytest.mark.parametrize(
    ("n", "shown"),
    [(124_439_808, "124.4M"), (38_400, "38.4k"), (999_950, "1.0M"), (950, "950"), (1.5e12, "1.5T"), (0, "0")],
)
def test_short_forms(n: float, shown: str) -> None:
    """Short forms use k, M, B, T as the charts' axes do, and a value that rounds up moves to the next unit."""
    from paramscope.engine.spec import short

    assert shown == short(n)


@pytest.mark.parametrize(("p", "shown"), [(31.68, "31.68%"), (0.0012, "< 0.01%"), (0.005, "0.01%"), (0.0, "0.00%")])
def test_shares(p: float, shown: str) -> None:
    """A share that is not zero never reads as 0.00%."""
    from paramscope.engine.spec import percent

    assert shown == percent(p)


@pytest.mark.parametrize(
    ("settings", "gpus", "beyond"),
    [
        (RunSettings(tp=4, ep=4), "4 GPUs in all (1 data-parallel × 4 TP)", False),
        (
            RunSettings(mode="training", gpus=2, tp=2, pp=2, ep=4),
            "8 GPUs in all (2 data-parallel × 2 TP × 2 PP)",
            False,
        ),
        (RunSettings(ep=8), "1 GPU in all (1 data-parallel)", True),
        (RunSettings(gpus=8, ep=8), "8 GPUs in all (8 data-parallel)", False),
    ],
)
def test_the_memory_tab_counts_the_gpus_the_compute_tab_does(settings: RunSettings, gpus: str, beyond: bool) -> None:
    """Expert parallelism spreads the experts over a stage's GPUs (Megatron's and vLLM's layout), it adds none: the
    Memory tab's count of GPUs is the Compute tab's (data-parallel × TP × PP; it said TP × PP × EP, 16 for TP 4 and
    EP 4), and EP beyond a stage's GPUs is a warning naming EP."""
    at = _app("mixtral-8x7b", settings)
    layout = next(c.value for c in at.caption if "in all" in c.value)
    warned = [w.value for w in at.warning if w.value.startswith("EP = ")]
    assert (True, beyond) == (gpus in layout, bool(warned))


def test_the_speed_settings_are_run_settings_that_reach_the_link() -> None:
    """New tokens and the speed's efficiency are run settings: the sidebar's slider sets them, the link carries them
    (run_new, run_efficiency; they were dropped), and the Compute tab's decode follows: at 60 % of peak and bandwidth
    it is 0.6 × the roofline's."""
    from paramscope.engine.run import settings_from_query, settings_to_query

    at = _app("llama-3-8b", RunSettings(new=4096))
    full = _decode(at)
    at.slider(key="run_efficiency").set_value(60.0).run()
    settings = at.session_state["run_settings"]
    query = settings_to_query(settings)
    assert ({"run_new": "4096", "run_efficiency": "0.6"}, settings) == (query, settings_from_query(query)[0])
    assert abs(_decode(at) / full - 0.6) < 0.002


@pytest.mark.parametrize(
    ("model", "settings", "said"),
    [
        ("llama-3-70b", RunSettings(tp=3), "TP = 3 does not divide the 64 attention heads"),
        ("llama-3-70b", RunSettings(serving=True), "GiB of cache: the weights and what the profile allocates"),
        ("llama-3-8b", RunSettings(serving=True, seq=400_000), "1 sequence of 400,000 tokens"),
    ],
)
def test_the_memory_tab_says_what_a_layout_or_a_budget_cannot_do(model: str, settings: RunSettings, said: str) -> None:
    """A tensor-parallel degree that does not divide the heads is a warning naming TP (Megatron-LM and vLLM refuse
    it); a serving budget with no room says so, not "0 sequences"; one sequence is one."""
    at = _app(model, settings)
    assert [said] == [said for t in [*at.warning, *at.caption] if said in t.value]


@pytest.mark.parametrize(
    ("key", "typed", "field", "want"),
    [
        ("run_batch", 0.0, "batch", "Batch (per GPU): 0 is outside 1..1,000,000"),
        ("run_seq", 0.875, "seq", "Context (0 = auto): expected a whole number, got 0.875"),
        ("run_tp", 2.5, "tp", "TP: expected a whole number, got 2.5"),
        ("run_tokens_per_second", 1e30, "tokens_per_second", "Measured throughput (tokens/s, all GPUs): 1e+30 is"),
        ("run_tokens", 1.4e12, "tokens", ""),
    ],
)
def test_a_typed_run_setting_is_taken_as_typed_or_refused_naming_its_box(
    key: str, typed: float, field: str, want: str
) -> None:
    """Every number box of the run settings takes what was typed: a whole number however written (1.4e12 training
    tokens; a whole-number box read it as 1), and a value out of range or a fraction where a whole number is needed is
    refused with a warning naming the box (the browser refused the first with a tooltip alone, and cut 0.875 to 0,
    which means auto), the settings unchanged."""
    at = _app("llama-3-8b")
    before = at.session_state["run_settings"]
    at.number_input(key=key).set_value(typed).run()
    warned = [w.value.replace("\\", "") for w in at.warning if w.value.startswith("Run settings not applied")]
    now = at.session_state["run_settings"]
    if want:
        assert (True, before) == (any(want in w for w in warned), now)
    else:
        assert ([], int(typed)) == (warned, getattr(now, field))


def test_a_refused_run_setting_stays_in_its_box_until_mended() -> None:
    """Batch 0 is refused; moving another box (the context) keeps the 0 in the batch box and the warning (the move
    used to put the last valid batch back without a word), and applies nothing; typing a valid batch then applies
    both."""
    at = _app("llama-3-8b")
    at.number_input(key="run_batch").set_value(0.0).run()
    at.number_input(key="run_seq").set_value(4096.0).run()
    warned = [w.value for w in at.warning if w.value.startswith("Run settings not applied")]
    kept = (at.number_input(key="run_batch").value, at.session_state["run_settings"].seq)
    at.number_input(key="run_batch").set_value(2.0).run()
    now = at.session_state["run_settings"]
    assert (1, (0.0, 0), (2, 4096)) == (len(warned), kept, (now.batch, now.seq))
