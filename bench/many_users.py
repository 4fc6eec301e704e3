"""Many users at once: N concurrent headless browser sessions move controls on the real server, on loopback only.

    python bench/many_users.py [--users 8] [--seconds 60] [--mixed]

Starts `streamlit run app.py` on 127.0.0.1 (a free port), opens N pages in headless Chromium (one browser, N
isolated contexts = N Streamlit sessions), and in each page moves the layers slider one step at a time (right, then
left) for a bounded time. A move counts when the page's "Total parameters" shows a new value. Reports the errors
(page errors, exceptions shown on any page, moves with no update within 30 s: must be 0), the p50 / p95 latency from a
move to the updated total, moves per second, and the server's peak resident memory (VmHWM from /proc). The loop
is bounded in count and time and only ever talks to 127.0.0.1.

``--mixed``: each session instead types fast, as a person does when the page lags: bursts of one to three slider
steps without waiting, a switch to another tab and back, repeated; then it waits until its page is quiet (no run in
progress, the total drawn, the same 3 s later) and checks that it still shows its own model: one Layers slider at a
depth its presses can reach (never a control reset to its default), the total the engine counts for GPT-2 at that
depth, the address bar at the same depth and nothing else changed in it (issue 29: a session ended on another model
under 16 browsers). Every disagreement is an error, its page saved as a screenshot.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_latency import CHROMIUM_ARGS, ROOT, TOTAL_JS, start  # noqa: E402

MAX_MOVES_PER_USER = 500  # a hard bound on top of the time limit


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def user(browser, url: str, deadline: float, latencies: list[float], errors: list[str], uid: int) -> int:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"user {uid}: page error {exc}"))
    moves = 0
    try:
        await page.goto(url, timeout=120_000)
        await page.wait_for_function(TOTAL_JS, timeout=120_000)
        slider = page.get_by_role("slider").first
        await slider.wait_for(timeout=120_000)
        await slider.focus(timeout=120_000)
        while time.monotonic() < deadline and moves < MAX_MOVES_PER_USER:
            before = await page.evaluate(TOTAL_JS)
            t0 = time.perf_counter()
            await page.keyboard.press("ArrowRight" if moves % 2 == 0 else "ArrowLeft")
            try:
                await page.wait_for_function(f"t => ({TOTAL_JS}) !== t", arg=before, polling="raf", timeout=30_000)
            except Exception as exc:  # a timeout is an error of the run, not of the script
                errors.append(f"user {uid}: no update after a move ({type(exc).__name__})")
                break
            latencies.append((time.perf_counter() - t0) * 1000)
            moves += 1
            shown = page.locator("[data-testid=stException]")
            if await shown.count():
                text = (await shown.first.inner_text())[:400].replace("\n", " | ")
                errors.append(f"user {uid}: an exception is shown on the page: {text}")
                break
    except Exception as exc:  # the page never became usable: an error of the run
        errors.append(f"user {uid}: page did not load ({type(exc).__name__}: {str(exc)[:120]})")
    finally:
        await context.close()
    return moves


#: What a session's page shows about its model: the Layers sliders' values, the total, the address bar's query.
STATE_JS = (
    "({sliders: [...document.querySelectorAll('input[type=range]')].filter(s => (s.getAttribute('aria-label') || '')"
    ".startsWith('Layers')).map(s => s.getAttribute('aria-valuetext')), total: " + TOTAL_JS + ", "
    "query: window.location.search})"
)

#: No run shown in progress (Streamlit's status widget) and the total drawn.
QUIET_JS = f"!document.querySelector('[data-testid=stStatusWidget]') && ({TOTAL_JS})"
#: How long a session's page may take to show the model its presses made, once the presses end: under 16 sessions on
#: two cores a burst took up to ~45 s, and a rerun the browser asked for can wait seconds before it starts (no status
#: shown), so a page is read every 3 s until it agrees, and a disagreement that outlasts this is an error.
SETTLE_SECONDS = 120


def disagreement(state: dict) -> str:
    """What is wrong with a session's page (``STATE_JS``), or "": one Layers slider at a depth the presses can reach
    (7 to 18), the total the engine counts for GPT-2 at that depth, the address bar at that depth and nothing else."""
    from urllib.parse import parse_qs

    sys.path.insert(0, str(ROOT / "src"))
    from paramscope import read
    from paramscope.engine.params import summarize
    from paramscope.io import presets

    query = parse_qs(state["query"].lstrip("?"))
    shown = [int(v) for v in state["sliders"]]
    depth = shown[0] if len(shown) == 1 else -1
    want = f"{summarize(read({**presets.get('gpt2').config, 'n_layer': depth}).spec).total:,}" if depth >= 0 else ""
    agree = (depth, state["total"], query.get("preset", [""])[0], int(query.get("num_hidden_layers", ["12"])[0]))
    extra = sorted(set(query) - {"preset", "num_hidden_layers", "tab"})
    if 7 <= depth <= 18 and agree == (depth, want, "gpt2", depth) and not extra:
        return ""
    return f"the page shows {shown} layers, {state['total']}, {state['query']}"


async def mixed_user(
    browser, url: str, deadline: float, latencies: list[float], errors: list[str], uid: int, settled: list[float]
) -> int:
    """Fast bursts of slider steps and tab switches, then a check that the page still shows this session's model:
    its slider, total and address bar agree, on GPT-2, at a depth its own presses can reach (a browser may drop a
    press that lands while a control is redrawn; it must never show a control reset to its default, 0 layers)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"user {uid}: page error {exc}"))
    moves, rng = 0, random.Random(uid)
    try:
        await page.goto(url, timeout=120_000)
        await page.wait_for_function(TOTAL_JS, timeout=120_000)
        slider = page.get_by_role("slider", name="Layers").first  # two while a rerun replaces it
        while time.monotonic() < deadline and moves < MAX_MOVES_PER_USER:
            t0 = time.perf_counter()
            await slider.focus(timeout=60_000)
            layers = int((await slider.get_attribute("aria-valuetext", timeout=60_000)) or 12)
            for _ in range(rng.randint(1, 3)):  # a burst: no wait between the presses, within 10 to 15 layers
                key = "ArrowRight" if layers < 13 or (layers < 15 and rng.random() < 0.5) else "ArrowLeft"
                layers += 1 if key == "ArrowRight" else -1
                await page.keyboard.press(key)
                moves += 1
            tab = rng.choice(["Memory", "Compute", "Architecture"])
            await page.get_by_role("tab", name=tab).click(timeout=60_000)
            await page.get_by_role("tab", name="Parameters").click(timeout=60_000)
            latencies.append((time.perf_counter() - t0) * 1000)
        presses_end = time.monotonic()
        settle = presses_end + SETTLE_SECONDS
        while True:  # the page's model, once its runs have caught up with its presses
            await page.wait_for_function(QUIET_JS, timeout=180_000)
            state = await page.evaluate(STATE_JS)
            problem = disagreement(state)
            if not problem or time.monotonic() > settle:
                break
            await page.wait_for_timeout(3_000)
        settled.append(time.monotonic() - presses_end)  # how long the page took to show its model
        if problem:
            shot = Path(tempfile.gettempdir()) / f"many_users-{uid}.png"  # what that session's page showed
            await page.screenshot(path=shot, full_page=True)
            errors.append(f"user {uid}: {problem} ({shot})")
        exception = page.locator("[data-testid=stException]")
        if await exception.count():
            errors.append(f"user {uid}: an exception is shown: {(await exception.first.inner_text())[:300]}")
    except Exception as exc:  # the page never became usable: an error of the run
        errors.append(f"user {uid}: {type(exc).__name__}: {str(exc)[:160]}")
    finally:
        await context.close()
    return moves


async def run(users: int, seconds: float, script: str = "app.py", mixed: bool = False) -> dict:
    proc, url = start(script)
    settled: list[float] = []  # --mixed: seconds from a session's last press to its page agreeing
    session = functools.partial(mixed_user, settled=settled) if mixed else user
    latencies: list[float] = []
    errors: list[str] = []
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            t0 = time.monotonic()
            deadline = t0 + seconds
            moves = await asyncio.gather(
                *(session(browser, f"{url}/?preset=gpt2", deadline, latencies, errors, i) for i in range(users))
            )
            wall = time.monotonic() - t0
            await browser.close()
        peak = peak_rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    lat = sorted(latencies)
    pct = lambda q: round(lat[min(len(lat) - 1, int(q * (len(lat) - 1)))], 1) if lat else None  # noqa: E731
    return {
        "script": script,
        "users": users,
        "seconds": round(wall, 1),
        "moves": sum(moves),
        "moves_per_user": moves,
        "errors": len(errors),
        "error_samples": errors[:5],
        "p50_ms": round(statistics.median(lat), 1) if lat else None,
        "p95_ms": pct(0.95),
        "server_peak_rss_mib": round(peak, 1),
        "settled_max_s": round(max(settled), 1) if settled else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-floor", action="store_true", help="skip the same load on bench/bare_app.py")
    ap.add_argument("--mixed", action="store_true", help="fast bursts and tab switches, each session's end checked")
    args = ap.parse_args()
    users, seconds = max(1, min(args.users, 32)), max(1.0, min(args.seconds, 600.0))
    results = [asyncio.run(run(users, seconds, mixed=args.mixed))]
    if not args.no_floor and not args.mixed:  # the same load on a bare one-slider page: what this machine itself costs
        results.append(asyncio.run(run(users, seconds, "bench/bare_app.py")))
    if results[1:] and results[0]["p50_ms"] and results[1]["p50_ms"]:
        results[0]["p50_ratio_to_bare"] = round(results[0]["p50_ms"] / results[1]["p50_ms"], 2)
    if args.json:
        print(json.dumps(results))
        return
    for result in results:
        print(f"{result['script']}: {result['users']} concurrent sessions for {result['seconds']} s on 127.0.0.1")
        print(f"  moves: {result['moves']} ({result['moves_per_user']})")
        print(f"  errors: {result['errors']} {result['error_samples'] or ''}")
        what = "a burst and two tab switches" if args.mixed else "slider move -> updated total"
        print(f"  {what}: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms")
        print(f"  server peak memory (VmHWM): {result['server_peak_rss_mib']} MiB")
        if result["settled_max_s"] is not None:
            print(f"  longest wait from a session's last press to its page agreeing: {result['settled_max_s']} s")
    if "p50_ratio_to_bare" in results[0]:
        print(f"p50 ratio app / bare page under the same load: {results[0]['p50_ratio_to_bare']}")


if __name__ == "__main__":
    main()
