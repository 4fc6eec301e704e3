"""Two versions of the page side by side: where a slider move's time goes, in the page's own clock.

    python bench/app_versions.py [REV] [--moves 30]

Checks out REV (default ``HEAD~1``) into a temporary git worktree, starts ``app.py`` of that version and of the
working tree on free loopback ports (each server imports its own ``src``), opens each in its own headless Chromium
and moves each page's first slider one step with the arrow keys, alternating between the two versions so that both
see the same machine load. In each page a wrapper around ``WebSocket`` notes when every message reaches the page and
an animation-frame poll notes when the "Total parameters" number and the first Plotly chart change, all on the
page's own clock from the key press. Prints, for each version, the medians of: the first and the last message of
the move, how many messages it took, the total drawn and the chart drawn; then the chart-drawn ratio (this tree
against REV). ``bench/app_latency.py`` measures against the bare page; this tells two versions apart, which
run-to-run noise of that ratio (±0.1) cannot.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from app_latency import CHART_JS, TOTAL_JS, Page, start  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RECORD_MESSAGES = """
(() => {
  const Socket = window.WebSocket;
  window.__messages = [];
  window.WebSocket = function (...args) {
    const ws = new Socket(...args);
    ws.addEventListener('message', () => window.__messages.push(performance.now()));
    return ws;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, Socket);
})();
"""
#: Starts the clock; resolves [first message, last message, messages, total drawn, chart drawn] in ms after it.
WATCH = f"""() => {{
  const t0 = performance.now(), total0 = {TOTAL_JS}, chart0 = {CHART_JS};
  window.__messages = [];
  window.__move = new Promise(resolve => {{
    let total = null, chart = null;
    const poll = () => {{
      const now = performance.now();
      if (total === null && {TOTAL_JS} !== total0) total = now - t0;
      if (chart === null && {CHART_JS} !== chart0) chart = now - t0;
      if ((total !== null && chart !== null) || now - t0 > 5000) {{
        const m = window.__messages;
        resolve([m[0] - t0, m[m.length - 1] - t0, m.length, total, chart]);
      }} else requestAnimationFrame(poll);
    }};
    requestAnimationFrame(poll);
  }});
}}"""
COLUMNS = ("first message", "last message", "messages", "total drawn", "chart drawn")


def measure(urls: list[str], moves: int) -> list[list[list[float]]]:
    """Each page's moves, alternating pages; one browser per page (no shared renderer)."""
    with sync_playwright() as p:
        pages = [Page(p, url, init_script=RECORD_MESSAGES).page for url in urls]
        timings: list[list[list[float]]] = [[] for _ in pages]
        for i in range(moves):
            for page, runs in zip(pages, timings, strict=True):
                page.evaluate(WATCH)
                page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
                runs.append(page.evaluate("window.__move"))
                page.wait_for_timeout(600)  # let the page settle (URL update, later charts)
        return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", nargs="?", default="HEAD~1", help="the version to compare with (git revision)")
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        then = Path(tmp) / "then"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(then), args.rev], cwd=ROOT, check=True)
        servers = [start("app.py"), start("app.py", then)]
        try:
            timings = measure([url for _, url in servers], args.moves)
        finally:
            for proc, _ in servers:
                proc.terminate()
            subprocess.run(["git", "worktree", "remove", "--force", str(then)], cwd=ROOT, check=True)
    print(f"slider move, {args.moves} moves each, ms after the key press (medians, first two moves not counted)")
    print(f"{'':<15}{'this tree':>12}{args.rev:>12}")
    medians = [[statistics.median(move[i] for move in runs[2:]) for i in range(len(COLUMNS))] for runs in timings]
    for i, name in enumerate(COLUMNS):
        print(f"{name:<15}{medians[0][i]:>12.1f}{medians[1][i]:>12.1f}")
    print(f"chart drawn, this tree / {args.rev}: {medians[0][4] / medians[1][4]:.2f}")


if __name__ == "__main__":
    main()
