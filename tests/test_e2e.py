"""End to end: the real Streamlit server, driven in headless Chromium (playwright).

Starts ``streamlit run app.py`` on a free port on 127.0.0.1, moves the layers slider, checks the total and
the chart against the engine, opens a share link in a new page, and saves screenshots: artifacts/ (not
committed) and docs/screenshots/ (committed; every tab in light, in dark and at 390 px; rewritten only when missing
or with PARAMSCOPE_SCREENSHOTS=1). Skipped locally only when /usr/bin/chromium is missing;
under CI (the CI variable set) it always runs.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from hf_oracle import hf_count
from hub_server import TINY_LLAMA, HubServer
from playwright.sync_api import expect, sync_playwright

from paramscope import read
from paramscope.engine.components import EMBEDDING_CONVENTION, components, label
from paramscope.engine.params import summarize
from paramscope.io import presets

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ROOT / "docs" / "screenshots"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason="needs /usr/bin/chromium (always runs in CI)"
    ),
]

#: The headline's total (charts.headline); bench/app_latency.py's TOTAL_JS reads the same selector.
TOTAL = ".ps-number[data-label='Total parameters'] .ps-number-value"
TOTAL_JS = f'document.querySelector("{TOTAL}")?.innerText'
#: The pie's values; empty while Plotly redraws the chart (the element is briefly replaced), so that a wait retries.
PIE_VALUES = "Array.from(document.querySelectorAll('.js-plotly-plot')[0]?.data?.[0]?.values ?? [])"
#: The "By component" bars' exact counts, as they read on the page.
BAR_COUNTS = "Array.from(document.querySelectorAll('.ps-bars .ps-bar-count'), c => c.textContent)"


def engine_total(name: str, **keys: object) -> str:
    """The total of preset ``name``'s config.json with ``keys`` edited, as the reader reads the file."""
    return f"{summarize(read({**presets.get(name).config, **keys}).spec).total:,}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(hub_server: HubServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on a free port, its Hub the fixture Hub on 127.0.0.1 (empty cache, no token)."""
    port = _free_port()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING_FACE_")) and "proxy" not in k.lower()
    }
    env.update(
        HF_ENDPOINT=hub_server.endpoint,
        HF_HOME=str(tmp_path_factory.mktemp("hf")),
        HF_HUB_DISABLE_TELEMETRY="1",
        NO_PROXY="127.0.0.1,localhost",
    )
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 40
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                pytest.fail(f"streamlit did not start:\n{out[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser, url: str, **context):
    page = browser.new_context(**context).new_page()
    page.goto(url)
    page.locator(TOTAL).wait_for(timeout=30_000)
    page.wait_for_function("document.querySelector('.js-plotly-plot') && document.querySelector('.ps-bars')")
    return page


def open_share(page) -> None:
    """Open the section under the tabs that holds the link's code block and the downloads (drawn only while open)."""
    page.locator("summary").filter(has_text="Share: the link").click()
    page.locator("[data-testid='stCode']").first.wait_for(timeout=15_000)


def shoot(page, name: str, *, docs: bool = False) -> None:
    """Always into artifacts/; into docs/screenshots/ when that copy is missing or PARAMSCOPE_SCREENSHOTS=1
    (so that an ordinary test run does not rewrite committed images)."""
    page.wait_for_timeout(600)  # let the charts finish their transitions
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    target = SCREENSHOTS / f"{name}.png"
    if docs and (not target.exists() or os.environ.get("PARAMSCOPE_SCREENSHOTS") == "1"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(target))


def test_slider_moves_total_chart_and_link(server, browser):
    """Moving the layers slider by one updates the exact total, the pie chart and the address bar."""
    page = open_page(browser, f"{server}/?preset=gpt2", viewport={"width": 1400, "height": 2350})
    assert f"{presets.get('gpt2').expected_total:,}" == page.locator(TOTAL).inner_text()
    page.get_by_text("The whole tree, every component").click()  # open the details: tree, table, formula
    page.locator("[data-testid='stTable']").wait_for(timeout=15_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=15_000)
    before = page.evaluate(PIE_VALUES)
    shoot(page, "light", docs=True)

    slider(page, "Layers").focus()
    page.keyboard.press("ArrowRight")
    want = engine_total("gpt2", n_layer=13)
    wait_for_total(page, want)
    page.wait_for_function(
        f"(old) => !['[]', old].includes(JSON.stringify({PIE_VALUES}))",
        arg=json.dumps(before, separators=(",", ":")),
        timeout=10_000,
    )
    page.wait_for_url("**num_hidden_layers=13**", timeout=10_000)
    shoot(page, "after-slider")
    page.context.close()


def test_memory_tab_follows_a_slider(server, browser):
    """With the Memory tab open, one step on the layers slider redraws the Memory tab too (not only the
    numbers above it): Llama-3-8B's fp32 weights go from 32 layers' to 33 layers' bytes."""
    page = open_tab(browser, f"{server}/?preset=llama-3-8b&tab=Memory", "[data-testid='stTable']")
    before, after = (
        f"{4 * int(engine_total('llama-3-8b', num_hidden_layers=n).replace(',', '')) / 1e9:,.2f} GB" for n in (32, 33)
    )
    table = page.locator("[data-testid='stTable'] td")
    table.filter(has_text=before).first.wait_for(timeout=20_000)
    slider(page, "Layers").focus()
    page.keyboard.press("ArrowRight")
    table.filter(has_text=after).first.wait_for(timeout=20_000)
    expect(table.filter(has_text=before)).to_have_count(0)
    page.context.close()


def slider(page, label: str):
    """The sidebar slider whose label starts with ``label``."""
    return page.get_by_role("slider", name=re.compile("^" + re.escape(label)))


def box(page, label: str):
    """The sidebar number box whose label starts with ``label``."""
    return page.get_by_role("spinbutton", name=re.compile("^" + re.escape(label))).first


def open_section(page, title: str) -> None:
    """Open a sidebar section by its pill in More controls (its controls are drawn only while it is open)."""
    page.locator("[data-testid='stSidebar']").get_by_role("button", name=title, exact=True).click()


def open_exact(page) -> None:
    """Open the sidebar's Exact sizes section (the sliders' exact boxes are drawn only while it is open)."""
    open_section(page, "Exact sizes")


def wait_for_total(page, want: str) -> None:
    """Until the page's total reads ``want``."""
    page.wait_for_function(f"(want) => {TOTAL_JS} === want", arg=want, timeout=10_000)


#: The card's sliders on GPT-2: (slider label, the number box that shows the value it set, the config.json key).
CARD_SLIDERS = [
    ("Vocabulary size", "Vocabulary size, exact", "vocab_size"),
    ("Hidden size", "Hidden size (embedding width), exact", "n_embd"),
    ("Layers", None, "n_layer"),
    ("FFN multiplier", "Intermediate size (FFN width)", "n_inner"),
]


@pytest.mark.parametrize(("label", "exact", "key"), CARD_SLIDERS)
def test_dragging_a_slider_moves_the_total_and_the_pie(server, browser, label, exact, key):
    """A mouse drag on each of the card's sliders (vocabulary, width, layers, FFN multiplier) changes the total, the
    pie and the bars; the total is what transformers builds from GPT-2's config.json with the value the drag set."""
    page = open_page(browser, f"{server}/?preset=gpt2", viewport={"width": 1400, "height": 1400})
    before = page.locator(TOTAL).inner_text()
    pie = json.dumps(page.evaluate(PIE_VALUES), separators=(",", ":"))
    bars = page.evaluate(BAR_COUNTS)
    thumb = slider(page, label).locator("xpath=..").bounding_box()  # the thumb's centre (the input is hidden)
    page.mouse.move(thumb["x"], thumb["y"])
    page.mouse.down()
    page.mouse.move(thumb["x"] + 25, thumb["y"], steps=5)
    page.mouse.up()
    page.wait_for_function(f"(old) => ({TOTAL_JS}) && {TOTAL_JS} !== old", arg=before, timeout=10_000)
    page.wait_for_function(f"(old) => !['[]', old].includes(JSON.stringify({PIE_VALUES}))", arg=pie, timeout=10_000)
    page.wait_for_function(f"(old) => JSON.stringify({BAR_COUNTS}) !== old", arg=json.dumps(bars), timeout=10_000)
    page.wait_for_timeout(500)  # the drag's last rerun has landed
    if exact is None:
        value = int(slider(page, label).get_attribute("aria-valuetext").replace(",", ""))
    else:
        open_exact(page)
        field = box(page, exact)
        field.wait_for(timeout=10_000)
        value = int(field.input_value().replace(",", ""))
    want = f"{hf_count({**presets.get('gpt2').config, key: value}):,}"
    wait_for_total(page, want)
    page.context.close()


def test_width_slider_keeps_a_valid_model(server, browser):
    """One step right on GPT-2's width slider is 768 + 96 = 864 (12 heads of 72): the model stays valid and the
    derived MLP follows (n_inner is null), as transformers builds the edited config.json."""
    page = open_page(browser, f"{server}/?preset=gpt2")
    slider(page, "Hidden size").focus()
    page.keyboard.press("ArrowRight")
    want = engine_total("gpt2", n_embd=864)
    wait_for_total(page, want)
    assert 0 == page.locator("[data-testid='stAlertContentError']").count()
    page.context.close()


def test_width_plus_keeps_a_valid_model_and_any_width_can_be_typed(server, browser):
    """The width box's "+" on GPT-2 steps 768 → 864 (12 heads × 8: every head stays whole, no error), and a width
    off that step typed in the box (1,008 = 12 heads of 84) is taken as typed: both totals as transformers builds
    GPT-2's config.json with that n_embd."""
    page = open_page(browser, f"{server}/?preset=gpt2")
    open_exact(page)
    width_box = box(page, "Hidden size (embedding width), exact")
    width_box.locator("xpath=../..").get_by_test_id("stNumberInputStepUp").click()
    for width in (864, 1008):
        if width == 1008:
            width_box.fill("1008")
            width_box.press("Enter")
        want = f"{hf_count({**presets.get('gpt2').config, 'n_embd': width}):,}"
        wait_for_total(page, want)
        assert 0 == page.locator("[data-testid='stAlertContentError']").count()
    page.context.close()


def test_an_invalid_width_is_pending_and_its_nearest_valid_value_applies(server, browser):
    """1,000 typed as GPT-2's width (12 heads do not divide it) is not applied: the page keeps working, says why
    above the tabs and under the heads, and offers 996; one click on the offer gives what transformers builds from
    GPT-2's config.json with n_embd 996."""
    page = open_page(browser, f"{server}/?preset=gpt2")
    open_exact(page)
    width_box = box(page, "Hidden size (embedding width), exact")
    width_box.fill("1000")
    width_box.press("Enter")
    offer = page.get_by_role("button", name="Use hidden_size = 996, the nearest valid value")
    offer.wait_for(timeout=10_000)
    assert 0 == page.locator("[data-testid='stException']").count()
    errors = page.locator("[data-testid='stAlertContentError']")
    expect(errors.filter(has_text="12 does not divide hidden_size 1,000")).to_have_count(2)  # waits for both
    assert f"{presets.get('gpt2').expected_total:,}" == page.locator(TOTAL).inner_text()
    offer.click()
    want = f"{hf_count({**presets.get('gpt2').config, 'n_embd': 996}):,}"
    wait_for_total(page, want)
    expect(errors).to_have_count(0)  # the run that applies 996 ends by removing both messages
    page.context.close()


def test_the_vocabulary_box_reads_1e5_and_an_emptied_box_takes_the_default(server, browser):
    """ "1e5" typed as the vocabulary is 100,000 (a browser's int box would read 1), and an emptied box deletes
    vocab_size: the class's default (GPT2Config: 50,257), said under the box. Both totals as transformers builds the
    edited config.json."""
    page = open_page(browser, f"{server}/?preset=gpt2&vocab_size=32000")
    open_exact(page)
    vocab = box(page, "Vocabulary size, exact")
    config = presets.get("gpt2").config
    emptied = {k: v for k, v in config.items() if k != "vocab_size"}
    for typed, edited in (("1e5", {**config, "vocab_size": 100_000}), ("", emptied)):
        vocab.fill(typed)
        vocab.press("Enter")
        wait_for_total(page, f"{hf_count(edited):,}")
    page.get_by_text("default of GPT2Config: 50,257").wait_for(timeout=10_000)
    assert "50257" == vocab.input_value()
    assert 0 == page.locator("[data-testid='stAlertContentError']").count()
    page.context.close()


def test_a_closed_section_opens_and_its_control_edits(server, browser):
    """Attention is closed when GPT-2 opens (its controls are not drawn); a click on its pill draws them, and 8
    heads typed in the box give GPT-2's config.json with n_head 8, as transformers builds it."""
    page = open_page(browser, f"{server}/?preset=gpt2")
    heads = box(page, "Attention heads")
    assert 0 == heads.count()
    open_section(page, "Attention")
    heads.fill("8")
    heads.press("Enter")
    want = engine_total("gpt2", n_head=8)
    wait_for_total(page, want)
    page.wait_for_url("**num_attention_heads=8**", timeout=10_000)
    page.context.close()


def test_share_link_opens_the_same_model(server, browser):
    """A share link opened in a fresh page shows exactly that model: total, controls and link; with the Share section
    open, a move updates its link with the total."""
    query = "preset=gpt2&hidden_size=1024&num_attention_heads=16&num_hidden_layers=24&tie_word_embeddings=false"
    page = open_page(browser, f"{server}/?{query}", viewport={"width": 1400, "height": 1000}, color_scheme="dark")
    want = engine_total("gpt2", n_embd=1024, n_layer=24, n_head=16, tie_word_embeddings=False)
    expect(page.locator(TOTAL)).to_have_text(want, timeout=20_000)  # waits out a page still drawing under load
    expect(slider(page, "Hidden size")).to_have_attribute("aria-valuetext", "1,024")
    expect(box(page, "Attention heads")).to_have_value("16")  # opened
    open_share(page)
    expect(page.locator("[data-testid='stCode']").first).to_contain_text(query)
    assert 0 == page.locator("[data-testid='stAlertContentWarning']").count()
    shoot(page, "dark", docs=True)
    slider(page, "Layers").focus()  # with the section open, a move redraws its link too
    page.keyboard.press("ArrowRight")
    expect(page.locator("[data-testid='stCode']").first).to_contain_text("num_hidden_layers=25", timeout=10_000)
    expect(page.locator(TOTAL)).to_have_text(
        engine_total("gpt2", n_embd=1024, n_layer=25, n_head=16, tie_word_embeddings=False)
    )
    page.context.close()


def test_bad_link_warns_on_a_phone(server, browser):
    """On a 390 px phone, a link with a bad value warns naming the field and shows the preset's total; every tab
    is on screen (the tab bar wraps), the hint says where the controls are, the link's copy button shows."""
    page = open_page(
        browser,
        f"{server}/?preset=gpt2&num_hidden_layers=lots",
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    assert f"{presets.get('gpt2').expected_total:,}" == page.locator(TOTAL).inner_text()
    warning = page.locator("[data-testid='stAlertContentWarning']").first.inner_text()
    assert "num_hidden_layers" in warning
    page.wait_for_url(lambda u: "num_hidden_layers" not in u, timeout=10_000)
    assert page.locator(".st-key-phone_hint").is_visible()  # where the controls are (the sidebar is folded)
    tabs = page.get_by_role("tab").all()
    assert 7 == len(tabs) and all(
        0 <= t.bounding_box()["x"] and t.bounding_box()["x"] + t.bounding_box()["width"] <= 390 for t in tabs
    )
    open_share(page)
    copy = page.get_by_role("button", name="Copy to clipboard").first
    assert "1" == copy.evaluate("b => getComputedStyle(b.closest('[data-testid=stCode] > div')).opacity")
    shoot(page, "phone", docs=True)
    page.context.close()


def open_tab(browser, url: str, ready: str, **context):
    """A page opened on a tab other than Parameters (no total there): wait for ``ready`` to show."""
    page = browser.new_context(viewport={"width": 1400, "height": 1500}, **context).new_page()
    page.goto(url)
    page.locator(ready).first.wait_for(timeout=30_000)
    return page


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_compare_link_shows_both_models(server, browser, scheme):
    """?tab=Compare&x_cmp=llama-2-7b opens the comparison: GPT-2 and Llama 2 7B side by side with their totals."""
    url = f"{server}/?preset=gpt2&tab=Compare&x_cmp=llama-2-7b"
    page = open_tab(browser, url, "[data-testid='stMetric']", color_scheme=scheme)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=30_000)
    # wait until both figures show: a clean CI run once read one right after the two charts had appeared
    page.wait_for_function("document.querySelectorAll(\"[data-testid='stMetric']\").length >= 2", timeout=10_000)
    metrics = page.locator("[data-testid='stMetric']")
    assert 2 == metrics.count()
    labels = [metrics.nth(i).locator("[data-testid='stMetricLabel']").inner_text() for i in range(2)]
    assert [presets.get("gpt2").title, presets.get("llama-2-7b").title] == labels
    values = [metrics.nth(i).locator("[data-testid='stMetricValue']").inner_text() for i in range(2)]
    assert ["124.4M", "6.7B"] == values
    assert "x_cmp=llama-2-7b" in page.url
    shoot(page, "compare" if scheme == "light" else "compare-dark", docs=True)
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(
    ("query", "ready", "name"),
    [
        ("preset=llama-2-7b&tab=Architecture", "[data-testid='stGraphVizChart'] svg", "architecture"),
        ("preset=gpt2&tab=Why-so-big", ".js-plotly-plot", "sweep"),
        ("preset=llama-3-70b&tab=Memory", "[data-testid='stTable']", "memory"),
        ("preset=llama-3-8b&tab=Compute", ".js-plotly-plot", "compute"),
    ],
)
def test_explore_views_draw(server, browser, query, ready, name, scheme):
    """The architecture diagram, the sweep charts and the Memory and Compute tabs draw in the browser from their
    links, in both themes."""
    page = open_tab(browser, f"{server}/?{query}", ready, color_scheme=scheme)
    name = name if scheme == "light" else f"{name}-dark"
    if name == "sweep":
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=30_000)
    shoot(page, name, docs=True)
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pasted_config_is_counted(server, browser, scheme):
    """On Your model, the example config pasted in is read and counted, every digit shown (TinyLlama's 1.1B)."""
    url = f"{server}/?preset=gpt2&tab=Your-model"
    page = open_tab(browser, url, "button:has-text('Paste the example')", color_scheme=scheme)
    page.get_by_role("button", name="Paste the example").click()
    page.locator("[data-testid='stMetric']:has-text('Model type')").wait_for(timeout=15_000)
    assert "1,100,048,384" == (
        page.locator("[data-testid='stMetric']:has-text('Parameters') [data-testid='stMetricValue']").first.inner_text()
    )
    shoot(page, "upload" if scheme == "light" else "upload-dark", docs=True)
    page.context.close()


def test_hub_link_and_picker(server, browser):
    """?hf=ORG/NAME opens that Hub model; typing another Hub id into the picker loads it and the link follows."""
    page = open_page(browser, f"{server}/?hf=fixture/tiny-llama")
    assert f"{hf_count(TINY_LLAMA):,}" == page.locator(TOTAL).inner_text()
    page.get_by_text("The checkpoint's own count").click()
    rest = page.get_by_text("equals the exact count from config.json")
    rest.wait_for(timeout=15_000)
    rest.scroll_into_view_if_needed()
    shoot(page, "hub", docs=True)
    picker = page.get_by_role("combobox", name="Model: a preset or a Hugging Face id")
    picker.click()
    picker.fill("fixture/gpt2")
    picker.press("Enter")
    gpt2 = f"{presets.get('gpt2').expected_total:,}"
    page.wait_for_function(f"{TOTAL_JS} === {json.dumps(gpt2)}", timeout=20_000)
    page.wait_for_function("location.search.includes('hf=fixture%2Fgpt2')", timeout=10_000)
    page.context.close()


def test_memory_table_shows_every_digit(server, browser):
    """Llama-3-70B trained at 32k tokens without FlashAttention holds 11,882.732 GB of activations per GPU: the
    memory table shows all five digits before the point, with separators, and no column runs off its right edge
    (the formulas wrap)."""
    from paramscope.engine.memory import memory, parts
    from paramscope.engine.run import RunSettings

    settings = RunSettings(mode="training", zero=3, gpus=8, flash=False, seq=32768)
    activations = parts(memory(presets.load("llama-3-70b"), settings))["activations"]
    shown = f"{activations / 1e9:,.3f}"
    assert 5 == len(shown.split(".")[0].replace(",", ""))
    url = f"{server}/?preset=llama-3-70b&tab=Memory&run_mode=training&run_zero=3&run_gpus=8&run_flash=0&run_seq=32768"
    page = browser.new_context(viewport={"width": 1400, "height": 1600}).new_page()
    page.goto(url)
    cell = page.locator("[data-testid='stTable'] td").filter(has_text=shown)
    cell.first.wait_for(timeout=30_000)
    assert cell.first.is_visible()
    overflow = "(t) => t.closest('[data-testid=stTable]').scrollWidth - t.closest('[data-testid=stTable]').clientWidth"
    assert 0 >= page.locator("[data-testid='stTable'] table").first.evaluate(overflow)  # no column off the edge
    page.context.close()


#: Each of the bars' names and counts against the bars' own box: (text, its left edge, its right edge, box's width).
BAR_LABELS_JS = """() => {
    const bars = document.querySelector('.ps-bars').getBoundingClientRect();
    return Array.from(document.querySelectorAll('.ps-bar-name'), n => {
        const r = n.getBoundingClientRect();
        return [n.innerText, r.left - bars.left, r.right - bars.left, bars.width];
    });
}"""


@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize("name", ["t5-base", "kimi-k2-instruct"])
def test_bar_labels_fit_their_box(server, browser, name, width):
    """Every bar's name and exact count lies inside the bars' box, for T5's longest names and Kimi K2's 13-digit
    counts, on a desktop and a phone, and each count is the component's own."""
    page = open_page(browser, f"{server}/?preset={name}", viewport={"width": width, "height": 1200})
    labels = page.evaluate(BAR_LABELS_JS)
    assert [] == [(text, left, right) for text, left, right, box in labels if left < 0 or right > box]
    counts = {text.split("\n")[0]: text.split("\n")[-1] for text, *_ in labels}
    assert len(counts) >= 6
    comps = {label(c.path): f"{c.count:,}" for c in components(summarize(read(presets.get(name).config).spec).tree)}
    assert {k: comps[k] for k in counts} == counts
    page.context.close()


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.mark.parametrize(
    ("query", "ready", "name"),
    [
        ("preset=llama-3-8b", TOTAL, "parameters"),
        ("preset=llama-3-70b&tab=Memory", "[data-testid='stTable']", "memory"),
        ("preset=llama-3-8b&tab=Compute", ".js-plotly-plot", "compute"),
        ("preset=gpt2&tab=Your-model", "button:has-text('Paste the example')", "upload"),
        ("preset=gpt2&tab=Compare&x_cmp=llama-2-7b", ".js-plotly-plot", "compare"),
        ("preset=llama-2-7b&tab=Architecture", "[data-testid='stGraphVizChart'] svg", "architecture"),
        ("preset=gpt2&tab=Why-so-big", ".js-plotly-plot", "sweep"),
    ],
)
def test_every_tab_fits_a_phone(server, browser, query, ready, name):
    """Each tab at 390 px: it draws, the page does not scroll sideways (a wide table or chart scrolls inside its own
    box), every tab of the tab bar is on screen, the memory breakdown's formula column is at least 150 px wide, and
    Plotly's toolbar does not cover a chart's title (it is hidden)."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server}/?{query}")
    page.locator(ready).first.wait_for(timeout=30_000)
    page.wait_for_timeout(800)  # charts lay themselves out to the width
    assert 390 >= page.evaluate("document.documentElement.scrollWidth")
    tabs = page.get_by_role("tab").all()
    assert 7 == len(tabs) and all(
        0 <= t.bounding_box()["x"] <= t.bounding_box()["x"] + t.bounding_box()["width"] <= 390 for t in tabs
    )
    page.evaluate("document.querySelector('[role=tablist]').scrollIntoView({block: 'start'})")  # the tab's content
    if name == "memory":  # the breakdown's formula column stays readable (it was squeezed to two characters)
        last = page.locator("[data-testid='stTable'] tr td:last-child").first
        assert last.bounding_box()["width"] >= 150
    if name == "compute":  # Plotly's toolbar, which a touch showed over the chart's title, is not laid out
        assert not page.locator(".js-plotly-plot .modebar").first.is_visible()
    shoot(page, f"{name}-phone", docs=True)
    page.context.close()


def test_the_page_fetches_nothing_from_anyone_else(server, browser):
    """Every request the browser makes while the page opens, with a link whose values carry a Markdown image, a
    link and an HTML image pointing at a listener on 127.0.0.1, goes to the app itself; the listener receives
    nothing (the page icon came from Google's font server, and link text once rendered as images)."""
    import http.server
    import threading

    hits: list[str] = []

    class Listener(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    trap = f"http://127.0.0.1:{listener.server_address[1]}"
    query = urllib.parse.urlencode(
        {
            "preset": f"![x]({trap}/preset.png)",
            "n_layer": f"<img src={trap}/value.png>",
            "tab": f"[click]({trap}/tab)",
            "pwn": f"![x]({trap}/key.png)",
        }
    )
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server}/?{query}")
    page.locator(TOTAL).wait_for(timeout=30_000)
    page.get_by_text("Link:").first.wait_for(timeout=15_000)
    page.wait_for_timeout(1500)
    context.close()
    listener.shutdown()
    others = sorted({u for u in requests if not u.startswith((server, "data:", "blob:"))})
    assert ([], []) == (others, hits)


def test_a_key_stated_twice_in_a_link_warns(server, browser):
    """?n_layer=3&n_layer=5: the page reads the last, as Streamlit does, and says so naming the key."""
    page = open_page(browser, f"{server}/?preset=gpt2&n_layer=3&n_layer=5", viewport={"width": 1400, "height": 900})
    page.get_by_text("n_layer: stated 2 times in the link").wait_for(timeout=15_000)
    assert engine_total("gpt2", n_layer=5) == page.locator(TOTAL).inner_text()
    page.context.close()


def test_the_charts_are_in_view_beside_the_controls(server, browser):
    """At 1400 × 900 the page opens with the pie and the bars wholly inside the window while a slider of the card has
    the focus and moves: a student watches the charts move without scrolling (they were cut at the window's
    bottom)."""
    page = open_page(browser, f"{server}/?preset=gpt2", viewport={"width": 1400, "height": 900})
    slider(page, "Layers").focus()
    page.keyboard.press("ArrowRight")
    wait_for_total(page, engine_total("gpt2", n_layer=13))
    boxes = [page.locator(selector).first.bounding_box() for selector in (".js-plotly-plot", ".ps-bars")]
    inside = [0 <= b["y"] and b["y"] + b["height"] <= 900 and b["x"] + b["width"] <= 1400 for b in boxes]
    assert [True, True] == inside, boxes
    page.context.close()


@pytest.mark.parametrize("context", [{"viewport": {"width": 1400, "height": 900}}, PHONE], ids=["desktop", "phone"])
def test_a_headline_tip_shows_on_focus_or_tap(server, browser, context):
    """The embedding's convention, the tip of its headline label, shows under the label when the keyboard focuses
    it (desktop) or a finger taps it (phone), and inside the window; before, it is not drawn."""
    page = open_page(browser, f"{server}/?preset=gpt2", **context)
    embedding = page.locator(".ps-number[data-label='Embedding'] .ps-number-label")
    tip = "el => getComputedStyle(el, '::after').content"
    assert "none" == embedding.evaluate(tip)
    if context is PHONE:
        embedding.tap()
    else:
        embedding.focus()
    assert f'"{EMBEDDING_CONVENTION}"' == embedding.evaluate(tip)
    right = "el => el.getBoundingClientRect().left + parseFloat(getComputedStyle(el, '::after').width)"
    assert embedding.evaluate(right) <= context["viewport"]["width"]
    page.context.close()


def test_a_phone_sees_the_pie_while_a_control_moves(server, browser):
    """At 390 px the side panel covers the page: with it open and scrolled to the FFN multiplier, the pie and the
    total at the panel's top stay in view (sticky) and follow a move (GPT-2 at ×3, four steps of 0.25 down: what
    transformers builds from n_inner = 2,304); on a desktop that copy is hidden, the page beside the panel shows the
    charts."""
    page = open_page(browser, f"{server}/?preset=gpt2", **PHONE)
    page.get_by_test_id("stExpandSidebarButton").click()
    strip = page.locator(".ps-phone-pie")
    strip.wait_for(timeout=10_000)
    target = slider(page, "FFN multiplier")
    target.scroll_into_view_if_needed()
    target.focus()
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    want = f"{hf_count({**presets.get('gpt2').config, 'n_inner': 2304}):,} parameters"
    page.wait_for_function(
        "(want) => document.querySelector('.mini-pie-total')?.innerText === want", arg=want, timeout=10_000
    )
    panel = page.get_by_test_id("stSidebar").bounding_box()
    pie, moved = strip.bounding_box(), target.bounding_box()
    assert (True, True, True) == (
        0 <= pie["y"] and pie["y"] + pie["height"] <= moved["y"],  # above the control, both in the window
        moved["y"] + moved["height"] <= 844,
        pie["x"] + pie["width"] <= panel["x"] + panel["width"],
    ), (pie, moved, panel)
    assert page.locator(".mini-pie img").evaluate("i => i.complete && i.naturalWidth > 0")
    shoot(page, "phone-panel", docs=True)
    page.context.close()
    desktop = open_page(browser, f"{server}/?preset=gpt2", viewport={"width": 1400, "height": 900})
    assert not desktop.locator(".ps-phone-pie").is_visible()
    desktop.context.close()


@pytest.mark.parametrize("context", [{"viewport": {"width": 1400, "height": 900}}, PHONE], ids=["desktop", "phone"])
def test_the_diagrams_fullscreen_button_leaves_its_caption_readable(server, browser, context):
    """Architecture tab, dark: the diagram's toolbar (its fullscreen button, floating above the chart while the
    pointer is over it, always on a touch screen) does not cover the caption above the diagram (it did)."""
    page = browser.new_context(color_scheme="dark", **context).new_page()
    page.goto(f"{server}/?preset=llama-2-7b&tab=Architecture")
    chart = page.locator("[data-testid='stGraphVizChart'] svg").first
    chart.wait_for(timeout=30_000)
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 60)
    toolbar = page.locator("[data-testid='stElementToolbar']").first
    toolbar.wait_for(timeout=10_000)
    page.wait_for_timeout(800)  # the toolbar slides into place
    caption = page.get_by_text("One box per weight").bounding_box()
    tool = toolbar.bounding_box()
    assert caption["y"] + caption["height"] <= tool["y"] or tool["y"] + tool["height"] <= caption["y"], (caption, tool)
    page.context.close()


def test_the_memory_table_gives_its_formulas_room(server, browser):
    """Memory tab, QLoRA fine-tuning, 1400 × 900: the table spans the page under the charts, its formula column at
    least 300 px wide (it was about 50 px, one word a line), and the run settings' labels are not cut."""
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.goto(f"{server}/?preset=llama-3-8b&tab=Memory&run_mode=finetune&run_quant=nf4")
    page.locator("[data-testid='stTable']").first.wait_for(timeout=30_000)
    header = page.locator("[data-testid='stTable'] th", has_text="formula").first
    assert header.bounding_box()["width"] >= 300
    cut = page.evaluate(
        "[...document.querySelectorAll('[data-testid=stSidebar] [data-testid=stWidgetLabel] p')]"
        ".filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.innerText)"
    )
    assert [] == cut
    page.context.close()


def test_back_and_forward_bring_back_the_page_of_each_address(server, browser):
    """The browser's Back button after a move brings back the page the earlier address holds (GPT-2 as published, 12
    layers, on the Parameters tab), Forward the moved one (11 layers), each total as transformers builds the config;
    Back after opening the Memory tab returns to the Parameters tab."""
    page = open_page(browser, f"{server}/?preset=gpt2")
    slider(page, "Layers").focus()
    page.keyboard.press("ArrowLeft")
    wait_for_total(page, engine_total("gpt2", n_layer=11))
    page.wait_for_function("location.search.includes('num_hidden_layers=11')")
    page.go_back()
    wait_for_total(page, engine_total("gpt2"))
    expect(slider(page, "Layers")).to_have_attribute("aria-valuetext", "12")
    assert "?preset=gpt2" == page.evaluate("location.search")
    page.go_forward()
    wait_for_total(page, engine_total("gpt2", n_layer=11))
    expect(slider(page, "Layers")).to_have_attribute("aria-valuetext", "11")
    page.get_by_role("tab", name="Memory").click()
    page.wait_for_function("location.search.includes('tab=Memory')")
    page.go_back()
    page.locator(TOTAL).wait_for(timeout=15_000)
    assert "true" == page.get_by_role("tab", name="Parameters").get_attribute("aria-selected")
    assert "num_hidden_layers=11" in page.evaluate("location.search")
    page.context.close()


def test_a_run_setting_typed_in_scientific_notation_is_taken_as_typed(server, browser):
    """1e6 typed in the Context box on the Memory tab is a context of 1,000,000 tokens (the link's run_seq), where a
    whole-number box read it as 1; 2.5 typed as the batch is refused with a warning naming the box and the value."""
    page = open_tab(browser, f"{server}/?preset=llama-3-8b&tab=Memory", "[data-testid='stTable']")
    context = box(page, "Context (0 = auto)")
    context.fill("1e6")
    context.press("Enter")
    page.wait_for_function("location.search.includes('run_seq=1000000')")
    batch = box(page, "Batch (per GPU)")
    batch.fill("2.5")
    batch.press("Enter")
    warning = page.locator("[data-testid='stAlertContentWarning']").filter(has_text="Run settings not applied")
    expect(warning).to_contain_text("Batch (per GPU): expected a whole number, got 2.5")
    page.context.close()


def test_back_after_picking_another_model_brings_back_the_first(server, browser):
    """Picking Llama 3 8B in the picker after GPT-2, then Back: GPT-2 again, its total and its link; Forward: Llama 3
    8B again."""
    page = open_page(browser, f"{server}/?preset=gpt2")
    picker = page.get_by_role("combobox", name="Model: a preset or a Hugging Face id")
    picker.click()
    picker.fill("llama-3-8b")
    picker.press("Enter")
    llama = f"{presets.get('llama-3-8b').expected_total:,}"
    wait_for_total(page, llama)
    page.wait_for_function("location.search.includes('preset=llama-3-8b')")
    page.go_back()
    wait_for_total(page, f"{presets.get('gpt2').expected_total:,}")
    assert "?preset=gpt2" == page.evaluate("location.search")
    page.go_forward()
    wait_for_total(page, llama)
    page.context.close()
