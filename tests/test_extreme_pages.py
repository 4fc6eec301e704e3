"""Extreme but valid models open on every tab of the real page, exactly counted and readably drawn."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from rendered import shown_total
from streamlit.testing.v1 import AppTest

from paramscope import read
from paramscope.app import charts
from paramscope.engine.params import summarize
from paramscope.io import presets

APP = str(Path(__file__).resolve().parents[1] / "app.py")

EXTREMES = {
    "1 layer": ("llama-3-8b", {"num_hidden_layers": 1}),
    "10,000 layers": ("llama-3-8b", {"num_hidden_layers": 10_000}),
    "10-million vocab": ("gpt2", {"vocab_size": 10_000_000}),
    "1,024 experts": ("mixtral-8x7b", {"num_local_experts": 1024, "num_experts_per_tok": 8}),
    "width 65,536": ("llama-3-8b", {"hidden_size": 65_536, "num_attention_heads": 512}),
}
TABS = ["Parameters", "Memory", "Compute", "Architecture", "Why so big?"]


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_extreme_model_opens_on_every_tab(name: str) -> None:
    """Each extreme model opens from a link on every tab without an error, and the total is that of the edited
    config.json."""
    preset, changes = EXTREMES[name]
    expected = summarize(read({**presets.get(preset).config, **changes}).spec).total
    query = {"preset": preset, **{k: str(v) for k, v in changes.items()}}
    for tab in TABS:
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params.update({**query, "tab": tab})
        t0 = time.perf_counter()
        at.run()
        elapsed = time.perf_counter() - t0
        assert not at.exception, (tab, at.exception)
        assert [] == [e.value for e in at.error], tab
        assert elapsed < 20, (tab, elapsed)
        if tab == "Parameters":
            assert f"{expected:,}" == shown_total(at)


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_pie_groups_slivers(name: str) -> None:
    """No pie slice is below the grouping share unless it is the only small part, and the slices sum to the
    total."""
    preset, changes = EXTREMES[name]
    s = summarize(read({**presets.get(preset).config, **changes}).spec)
    values = list(charts.pie(s).data[0].values)
    assert s.total == sum(values)
    assert len([v for v in values if v < charts.SMALL_SHARE * s.total]) <= 1


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_the_phones_donut_draws_the_pies_slices(name: str) -> None:
    """The side panel's small donut (a phone's view while a control moves) has the big pie's slices in its colours,
    each arc spanning its share of a full turn (the angles, read back from the SVG, sum to 360°), and its legend
    gives the three largest slices' shares as the big pie computes them (its text escaped: "<" reads &lt;)."""
    import base64
    import html
    import math
    import re

    preset, changes = EXTREMES[name]
    s = summarize(read({**presets.get(preset).config, **changes}).spec)
    trace = charts.pie(s).data[0]
    markup = charts.pie_svg(s)
    svg = base64.b64decode(re.search(r"base64,([^\"]+)", markup).group(1)).decode()
    starts = [(float(x) - 44, 44 - float(y)) for x, y in re.findall(r'<path d="M([\d.]+),([\d.]+) A', svg)]
    turns = [math.atan2(x, y) / (2 * math.pi) % 1 for x, y in starts]
    turns = [t + (i > 0 and t < 0.5 < turns[i - 1]) for i, t in enumerate(turns)] + [1.0]  # a start at 360°
    spans = [b - a for a, b in zip(turns, turns[1:], strict=False)]
    shares = [v / s.total for v in trace.values]
    top = sorted(zip(trace.values, trace.labels, strict=True), reverse=True)[:3]
    legend = [(html.unescape(n), share) for n, share in re.findall(r"</span> (.*?) ([\d.]+%)</div>", markup)]
    assert re.findall(r'fill="(#[0-9a-f]{6})"', svg) == list(trace.marker.colors)
    assert [round(x, 3) for x in spans] == [round(x, 3) for x in shares]
    assert [(label, f"{value / s.total:.1%}") for value, label in top] == legend
