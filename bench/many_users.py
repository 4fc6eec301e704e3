"""Many users at once: N concurrent headless browser sessions move controls on the real server, on loopback only.

    python bench/many_users.py [--users 8] [--seconds 60]

Starts `streamlit run app.py` on 127.0.0.1 (a free port), opens N pages in headless Chromium (one browser, N
isolated contexts = N Streamlit sessions), and in each page moves the layers slider one step at a time (right, then
left) for a bounded time. A move counts when the page's "Total parameters" shows a new value. Reports the errors
(page errors, exceptions shown on any page, moves with no update within 30 s: must be 0), the p50 / p95 latency from a
move to the updated total, moves per second, and the server's peak resident memory (VmHWM from /proc). The loop
is bounded in count and time and only ever talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_latency import CHROMIUM_ARGS, TOTAL_JS, start  # noqa: E402

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


async def run(users: int, seconds: float, script: str = "app.py") -> dict:
    proc, url = start(script)
    latencies: list[float] = []
    errors: list[str] = []
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            t0 = time.monotonic()
            deadline = t0 + seconds
            moves = await asyncio.gather(
                *(user(browser, f"{url}/?preset=gpt2", deadline, latencies, errors, i) for i in range(users))
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
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-floor", action="store_true", help="skip the same load on bench/bare_app.py")
    args = ap.parse_args()
    users, seconds = max(1, min(args.users, 32)), max(1.0, min(args.seconds, 600.0))
    results = [asyncio.run(run(users, seconds))]
    if not args.no_floor:  # the same load on a bare one-slider page: what this machine itself costs
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
        print(f"  slider move -> updated total: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms")
        print(f"  server peak memory (VmHWM): {result['server_peak_rss_mib']} MiB")
    if "p50_ratio_to_bare" in results[0]:
        print(f"p50 ratio app / bare page under the same load: {results[0]['p50_ratio_to_bare']}")


if __name__ == "__main__":
    main()
