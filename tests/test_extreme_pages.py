"""Extreme but valid models open on every tab of the real page, exactly counted and readably drawn."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
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
            assert f"{expected:,}" == next(m.value for m in at.metric if m.label == "Total parameters")


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_pie_groups_slivers(name: str) -> None:
    """No pie slice is below the grouping share unless it is the only small part, and the slices sum to the
    total."""
    preset, changes = EXTREMES[name]
    s = summarize(read({**presets.get(preset).config, **changes}).spec)
    values = list(charts.pie(s).data[0].values)
    assert s.total == sum(values)
    assert len([v for v in values if v < charts.SMALL_SHARE * s.total]) <= 1
