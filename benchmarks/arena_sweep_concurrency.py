"""Does a sweep of arenas with LLM seats keep its endpoint busy? The I/O lane against one arena per worker process.

Run: ``python benchmarks/arena_sweep_concurrency.py [--arenas 8] [--turns 10] [--delay 0.2] [--concurrency 8]
[--workers 2]``.

A loopback OpenAI-compatible server (its own process, as a model server would be) answers every request after
``--delay`` seconds. Each arena is vending-arena (preset small) with two LLM seats (``--turns`` calls each, then
their turn cap retires them) and a planner; the arenas differ by seed. Two ways to play the same arenas, each in a
fresh process:

- **lane**: ``sweep(specs, concurrency=N)``, which now sends arenas with LLM seats to the I/O lane: many arenas at
  once on the sweep's threads, one per-endpoint limiter;
- **pool**: every arena through the process backend with ``--workers`` processes (what a sweep did with them
  before), each worker playing one arena at a time.

An arena's seats take turns, so an arena has one request in flight at a time: only arenas playing at once keep the
endpoint busy. Printed per way: the calls the server answered, the most requests it held at once and the mean over
the sweep's wall time (calls x delay / wall: each request is held ``--delay`` seconds), and the wall time of the
sweep (litellm's import in the sweep's process excluded; the pool's workers pay it inside the time, as they do in a
sweep).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration import machine_line  # benchmarks/calibration.py

_SWEEP = """
import functools, json, os, sys, time
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if __name__ == "__main__":
    way, url, out, arenas, turns, concurrency, workers = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:8])
    from bizsim.runs import RunSpec, sweep
    from bizsim.agents.llm.litellm_client import import_litellm
    import_litellm()
    seat = lambda name: {"name": "llm", "options": {"model": f"hosted_vllm/{name}", "api_base": url,
                                                    "max_turns": turns, "log_raw": False}}
    specs = [RunSpec("vending-arena", "small", seed=seed, roster=[seat("alpha"), "planner", seat("beta")])
             for seed in range(1, arenas + 1)]
    start = time.perf_counter()
    if way == "lane":
        summary = sweep(specs, out, concurrency=concurrency, progress=False, preflight=False)
        failed, ran = summary.failed, summary.ran
    else:
        from bizsim.runs._worker import record_run_encoded
        from bizsim.runs.backends import make_backend
        job = functools.partial(record_run_encoded, run_dirs=out + "/runs", keep_run_dirs=True)
        items = list(make_backend("process", workers=workers).run([s.to_dict() for s in specs], job))
        failed, ran = sum(i["status"] != "ok" for i in items), len(items)
    print(json.dumps({"wall_s": time.perf_counter() - start, "failed": failed, "ran": ran}))
"""


def _policy(messages, tools):
    """Looks at the market every other call and ends its day each call."""
    answered = sum(1 for m in messages if m.get("role") == "assistant")
    calls = [{"name": "task_done", "arguments": {}}]
    if answered % 2 == 0:
        calls.insert(0, {"name": "market_view", "arguments": {}})
    return {"content": None, "tool_calls": calls}


def _serve(conn, delay: float, lifetime: float) -> None:
    from bizsim.agents.llm.loopback import LoopbackLLMServer

    server = LoopbackLLMServer(_policy, delay_s=delay, lifetime_s=lifetime).start()
    conn.send(server.url)
    while conn.recv() != "stop":
        conn.send((server.policy_calls, server.peak_in_flight))
    server.stop()


def one_way(way: str, args: argparse.Namespace) -> dict:
    """The arenas played one way, in a fresh process, against a fresh server; the figures."""
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    server = ctx.Process(target=_serve, args=(there, args.delay, 600.0), daemon=True)
    server.start()
    try:
        url = here.recv()
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([sys.executable, "-c", _SWEEP, way, url, str(Path(tmp, "sweep")), str(args.arenas),
                                   str(args.turns), str(args.concurrency), str(args.workers)],
                                  capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                                  check=True)
        here.send("counts")
        calls, peak = here.recv()
        here.send("stop")
    finally:
        server.join(timeout=10)
        if server.is_alive():
            server.terminate()
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    # Every request is held ``delay`` seconds: the requests in flight, averaged over the sweep's wall time.
    return {**figures, "calls": calls, "peak": peak, "mean": calls * args.delay / figures["wall_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arenas", type=int, default=8)
    parser.add_argument("--turns", type=int, default=10, help="calls per LLM seat (two LLM seats an arena)")
    parser.add_argument("--delay", type=float, default=0.2, help="the server's answer time in seconds")
    parser.add_argument("--concurrency", type=int, default=8, help="the lane's requests in flight per endpoint")
    parser.add_argument("--workers", type=int, default=2, help="the pool's worker processes")
    args = parser.parse_args()
    print(f"{args.arenas} vending-arena (small) arenas x 2 LLM seats x {args.turns} calls + a planner; the endpoint "
          f"answers after {args.delay} s (load before: {os.getloadavg()[0]:.2f})")
    print(f"{'way':<24} {'calls':>6} {'peak in flight':>14} {'mean in flight':>14} {'wall':>7}")
    for way, label in (("lane", f"lane, concurrency {args.concurrency}"), ("pool", f"pool, {args.workers} workers")):
        f = one_way(way, args)
        assert f["failed"] == 0 and f["ran"] == args.arenas, f
        print(f"{label:<24} {f['calls']:>6} {f['peak']:>14} {f['mean']:>14.2f} {f['wall_s']:>6.1f}s", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(machine_line())


if __name__ == "__main__":
    main()
