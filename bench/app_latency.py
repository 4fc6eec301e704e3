"""How long from a slider move to the updated total and chart: ParamScope's page against a bare Streamlit page.

    python bench/app_latency.py [--moves 30]

Starts two Streamlit servers on free local ports (app.py and bench/bare_app.py), opens each in its own
headless Chromium, and moves each page's first slider one step (arrow key, alternately right and left),
``--moves`` times, alternating between the two pages so that both see the same machine load.
A move counts as done when the "Total parameters" number shows the new value *and* the first Plotly chart
holds new data (polled every animation frame). Prints the median and 90th percentile for both pages and
the ratio of the medians (issue 14's goal is at most 1.2: the page costs at most a fifth more than Streamlit's floor).

Then ``--loads`` first paints of each page, alternating again: a fresh browser context opens the page's address
(the app's default page, ``/``, and the bare page) and the clock stops when the total and the first chart are drawn.
The first two of each are warm-up. Goal: the app's median at most 1.5x the bare page's.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The total as shown: in the app's headline (HTML, ``charts.headline``; tests/test_e2e.py's TOTAL is the same
#: selector), else in Streamlit's metric: the bare page's, and the app's before the fifteenth session
#: (``app_versions.py REV``).
TOTAL_JS = (
    "(document.querySelector(\".ps-number[data-label='Total parameters'] .ps-number-value\")"
    " ?? [...document.querySelectorAll('[data-testid=stMetric]')].find(m => m.innerText.includes('Total parameters'))"
    "?.querySelector('[data-testid=stMetricValue]'))?.innerText"
)
CHART_JS = "JSON.stringify(Array.from(document.querySelector('.js-plotly-plot')?.data?.[0]?.values ?? []))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(script: str, tree: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """``streamlit run script`` of ``tree`` (this checkout, or an earlier version's worktree, which then imports its
    own ``src``) on a free loopback port, once it answers its health check."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=tree,
        env=dict(os.environ, PYTHONPATH=str(tree / "src")),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{tree / script}: the server did not start")


class Page:
    """One page in its own headless Chromium, ready to have its first slider moved."""

    def __init__(self, playwright, url: str, open_details: bool = False, init_script: str = "") -> None:
        self.browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        if init_script:  # runs in the page before its own scripts
            self.page.add_init_script(init_script)
        self.page.goto(url)
        self.page.wait_for_function(f"({TOTAL_JS}) && {CHART_JS} !== '[]'", timeout=60_000)
        if open_details:  # ParamScope's expander with the treemap, the table and the formula
            self.page.get_by_text("The whole tree, every component").click()
            self.page.locator("[data-testid='stTable']").wait_for(timeout=30_000)
        self.page.wait_for_timeout(1500)  # everything drawn and idle
        self.page.get_by_role("slider").first.focus()
        self.moves = 0

    def move(self) -> float:
        """Move the slider one step; milliseconds until the total and the first chart both changed."""
        total, chart = self.page.evaluate(f"[{TOTAL_JS}, {CHART_JS}]")
        t0 = time.perf_counter()
        self.page.keyboard.press("ArrowRight" if self.moves % 2 == 0 else "ArrowLeft")
        self.page.wait_for_function(
            f"([t, c]) => ({TOTAL_JS}) !== t && {CHART_JS} !== c", arg=[total, chart], polling="raf", timeout=30_000
        )
        elapsed = (time.perf_counter() - t0) * 1000
        self.moves += 1
        self.page.wait_for_timeout(800)  # let the page settle (URL update, later charts) before the next move
        return elapsed


def first_paint(browser, url: str) -> float:
    """Milliseconds from opening ``url`` in a fresh context (no cache, a new session) to the total and chart drawn."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_function(f"({TOTAL_JS}) && {CHART_JS} !== '[]'", polling="raf", timeout=60_000)
    elapsed = (time.perf_counter() - t0) * 1000
    context.close()
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=30)
    ap.add_argument("--loads", type=int, default=10, help="first paints of each page (0: none)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--app", default="app.py", help="the page to measure (default: app.py)")
    ap.add_argument("--details", action="store_true", help="open the page's tree/table/formula expander first")
    args = ap.parse_args()
    servers = [start(args.app), start("bench/bare_app.py")]
    app: list[float] = []
    bare: list[float] = []
    paints: tuple[list[float], list[float]] = ([], [])
    try:
        with sync_playwright() as p:
            pages = Page(p, servers[0][1] + "/?preset=gpt2", args.details), Page(p, servers[1][1])
            for i in range(args.moves + 2):  # alternate the two pages so that both see the same machine load
                a, b = pages[0].move(), pages[1].move()
                if i >= 2:  # the first two moves warm up
                    app.append(a)
                    bare.append(b)
            for i in range(args.loads + 2 if args.loads else 0):
                for page, url, times in zip(pages, (servers[0][1] + "/", servers[1][1]), paints, strict=True):
                    elapsed = first_paint(page.browser, url)
                    if i >= 2:
                        times.append(elapsed)
            for page in pages:
                page.browser.close()
    finally:
        for proc, _ in servers:
            proc.terminate()
            proc.wait(timeout=10)

    result = {"moves": args.moves, "details_open": args.details, **side_by_side(app, bare)}
    if args.loads:
        result["first_paint"] = side_by_side(*paints)
    if args.json:
        print(json.dumps(result))
        return
    extra = ", details expander open" if args.details else ""
    show(f"slider move -> updated total and chart, {args.moves} moves each (headless Chromium{extra})", result, 1.2)
    if args.loads:
        title = f"first paint (a fresh context opens the page, until the total and chart are drawn), {args.loads} each"
        show(title, result["first_paint"], 1.5)


def side_by_side(app: list[float], bare: list[float]) -> dict:
    """Median, 90th percentile and minimum of each page's times, and the ratio of the medians."""

    def stats(xs: list[float]) -> dict[str, float]:
        xs = sorted(xs)
        return {
            "median_ms": round(statistics.median(xs), 1),
            "p90_ms": round(xs[int(0.9 * (len(xs) - 1))], 1),
            "min_ms": round(xs[0], 1),
        }

    out = {"app": stats(app), "bare": stats(bare)}
    return {**out, "ratio_median": round(out["app"]["median_ms"] / out["bare"]["median_ms"], 2)}


def show(title: str, part: dict, goal: float) -> None:
    print(title)
    for name in ("app", "bare"):
        s = part[name]
        print(f"  {name:<5} median {s['median_ms']:7.1f} ms   p90 {s['p90_ms']:7.1f} ms   min {s['min_ms']:7.1f} ms")
    print(f"  ratio app/bare (median): {part['ratio_median']:.2f}  (goal: at most {goal})")


if __name__ == "__main__":
    main()
