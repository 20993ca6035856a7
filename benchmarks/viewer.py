"""How fast does ``bizsim view`` open a 2,000-turn LLM run and a 10,000-run sweep in headless Chromium?

Run: ``python benchmarks/viewer.py [--turns 2000] [--runs 10000] [--repeats 3] [--keep DIR]``.

The LLM run is a startup year played in-process by a scripted model that reads the company status many times
before each ``sim resume`` (``--turns`` model calls, each answer with a paragraph of reasoning);
the sweep is ``--runs`` records written as a sweep writes them (startup and vending, five agents, the seeds
between). For each it prints: the time to build the page (Python: load, read the LLM run's requests, write),
the page's size, and, in the system's Chromium, the median time from navigation until the page says it is
drawn, and for the sweep the frame times while the runs table scrolls at wheel speed and while it jumps anywhere
(virtualised rows: the page holds only the rows in view), beside the browser's idle frame.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' policies and browser helpers

from bizsim.view import write_view  # noqa: E402
from calibration import machine_line  # noqa: E402 -- benchmarks/calibration.py
from tests._browser import chromium_path  # noqa: E402
from tests._view_runs import long_llm_run  # noqa: E402


def llm_run(root: Path, turns: int) -> Path:
    """A startup LLM run of about ``turns`` model calls (the greedy year has 64 resumes)."""
    return long_llm_run(root / "llm", turns)


def sweep_dir(root: Path, runs: int) -> Path:
    """A sweep directory of ``runs`` records, as ``bizsim sweep`` writes them (no per-run directories)."""
    out = root / "sweep"
    out.mkdir()
    agents = [("startup", "greedy", "final_funds_cents"), ("startup", "planner", "final_funds_cents"),
              ("startup", "llm", "final_funds_cents"), ("vending", "markup", "net_worth_cents"),
              ("vending", "planner", "net_worth_cents")]
    with (out / "results.jsonl").open("w") as fh:
        for i in range(runs):
            world, agent, metric = agents[i % len(agents)]
            seed = i // len(agents) + 1
            value = (seed * 7919 + i * 104729) % 50_000_000 - 5_000_000
            options = {"model": "openai/gpt-4o-mini"} if agent == "llm" else {}
            fh.write(json.dumps({
                "v": 1, "run_id": f"{i:016x}", "status": "ok" if i % 97 else "error", "error": None,
                "benchmark_id": f"{world}-v1", "preset_label": "default",
                "spec": {"world": world, "preset": "default", "agent": agent, "seed": seed, "overrides": {},
                         "agent_options": options, "label": None},
                "run": {"metric": metric, "metric_value": value, "bankrupt": value < 0, "turns": 300 + i % 50,
                        "terminal_reason": "bankrupt" if value < 0 else "horizon_end",
                        "llm_cost_usd": 0.23 + (i % 13) / 100 if agent == "llm" else None},
            }) + "\n")
    return out


def open_times(browser, page_file: Path, repeats: int) -> list[float]:
    """Seconds from navigation until the viewer marks itself drawn, ``repeats`` times (a fresh page each)."""
    times = []
    for _ in range(repeats):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        start = time.perf_counter()
        page.goto(page_file.as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=60_000)
        times.append(time.perf_counter() - start)
        page.close()
    return times


_SCROLL = """async () => {
  const body = document.getElementById('runs-body');
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const times = async (n, move) => {
    const out = []; let last = performance.now();
    for (let k = 0; k < n; k++) { move(k); await frame(); const now = performance.now(); out.push(now - last); last = now; }
    return out.slice(1);
  };
  const idle = await times(60, () => {});
  const wheel = await times(240, (k) => { body.scrollTop = k * 100; });
  const jumps = await times(120, (k) => { body.scrollTop = (k * 7919 % 120) / 120 * body.scrollHeight; });
  return {idle, wheel, jumps, rows: [...body.querySelectorAll('.trow')].filter((r) => r.style.display !== 'none').length};
}"""


def _stats(frames: list[float]) -> str:
    frames = sorted(frames)
    return f"median {statistics.median(frames):.1f} ms, 95th percentile {frames[int(0.95 * (len(frames) - 1))]:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--keep", help="build in this directory and keep it")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bizsim-viewer-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        run = llm_run(root, args.turns)
        made = time.perf_counter() - t
        n_turns = sum(1 for _ in (run / "llm_calls.jsonl").open())
        t = time.perf_counter()
        run_page = write_view([run], root / "llm.html")
        built_run = time.perf_counter() - t
        sweep = sweep_dir(root, args.runs)
        t = time.perf_counter()
        sweep_page = write_view([sweep], root / "sweep.html")
        built_sweep = time.perf_counter() - t
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
            run_open = open_times(browser, run_page, args.repeats)
            sweep_open = open_times(browser, sweep_page, args.repeats)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(sweep_page.as_uri())
            page.wait_for_selector("body[data-ready='1']")
            scrolled = page.evaluate(_SCROLL)
            browser.close()
        print(f"LLM run: {n_turns:,} turns (made in {made:.1f} s); page built in {built_run:.2f} s, "
              f"{run_page.stat().st_size / 2**20:.1f} MiB")
        print(f"  opens in Chromium in {statistics.median(run_open):.2f} s (median of {len(run_open)}; "
              f"best {min(run_open):.2f} s)")
        print(f"sweep: {args.runs:,} runs; page built in {built_sweep:.2f} s, {sweep_page.stat().st_size / 2**20:.1f} MiB")
        print(f"  opens in Chromium in {statistics.median(sweep_open):.2f} s (median of {len(sweep_open)})")
        print(f"  scrolling the runs table at 100 px a frame (6,000 px/s): frame time {_stats(scrolled['wheel'])}")
        print(f"  jumping anywhere in the table each frame: frame time {_stats(scrolled['jumps'])}; "
              f"{scrolled['rows']} rows in the page")
        print(f"  (this browser's idle frame, nothing drawn: {_stats(scrolled['idle'])})")
        print(machine_line())
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
