"""How close does a sweep of model runs come to what its endpoint allows? Wall time against the endpoint's bound.

Run: ``python benchmarks/llm_sweep_concurrency.py [--runs 64] [--turns 20] [--delay 0.5]
[--concurrency 8 32 64] [--repeats 3]``.

A loopback OpenAI-compatible server (its own process, as a model server
would be) answers after ``--delay`` seconds and serves at most N requests at
once (N = the sweep's ``--concurrency``; the rest queue). A sweep of
``--runs`` LLM runs of ``--turns`` turns each (startup, the tests' greedy
policy, through litellm and real HTTP, every run directory written) runs in a
fresh process with ``concurrency=N``. The endpoint's bound is
``calls x delay / N`` plus one litellm import (measured in that process): no
client can finish sooner. Printed per N: the sweep's wall time (import
included) over that bound (median of ``--repeats``; the target is at most
1.25), the most requests the server saw at once, and the peak memory per
concurrent episode: the process's peak RSS (VmHWM) minus its RSS before the
sweep (after a one-call warm-up run, timed with the sweep, that loads what
every sweep loads once), over the episodes the sweep keeps going at once
(2 per request slot). The calls counted are the server's, the warm-up's one
included. Last, the CPU time of the sweep's process per call (the sweep
alone): what bounds a sweep whose endpoint serves many at once.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' loopback policies

from calibration import machine_line  # benchmarks/calibration.py

_SWEEP = """
import json, os, sys, time
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # MB

if __name__ == "__main__":
    url, out, runs, turns, concurrency = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    from bizsim.runs import RunSpec, sweep
    from bizsim.runs.concurrent import EPISODES_PER_SLOT
    specs = [RunSpec("startup", "default", "llm", seed, agent_options={
        "model": "hosted_vllm/bench", "api_base": url, "api_key_env": "BIZSIM_BENCH_KEY", "max_turns": turns,
        "log_raw": False}) for seed in range(1, runs + 1)]
    start = time.perf_counter()
    from bizsim.agents.llm.litellm_client import import_litellm
    import_litellm()  # the one import the sweep's process pays (its pre-flight would pay it otherwise)
    imported = time.perf_counter()
    # One run of one call first, timed with the rest: what every sweep pays once (a world's modules, litellm's
    # first-call set-up) stays out of the memory per episode.
    warm = RunSpec("startup", "default", "llm", 0, agent_options={**specs[0].agent_options, "max_turns": 1})
    sweep([warm], out + "-warm", concurrency=1, progress=False, compact=False, preflight=False)
    before = status("VmRSS")
    cpu = time.process_time()
    summary = sweep(specs, out, concurrency=concurrency, progress=False, compact=False, preflight=False)
    done = time.perf_counter()
    cpu = time.process_time() - cpu
    print(json.dumps({"cpu_s": cpu, "import_s": imported - start, "sweep_s": done - imported, "wall_s": done - start,
                      "failed": summary.failed, "ran": summary.ran, "peak_mb": status("VmHWM"), "before_mb": before,
                      "episodes": min(runs, EPISODES_PER_SLOT * concurrency)}))
"""


def _serve(conn, delay: float, limit: int, lifetime: float) -> None:
    from bizsim.agents.llm.loopback import LoopbackLLMServer
    from tests.llm_policies import greedy_policy

    server = LoopbackLLMServer(greedy_policy, delay_s=delay, max_in_flight=limit, lifetime_s=lifetime).start()
    conn.send(server.url)
    while conn.recv() == "counts":
        conn.send((server.policy_calls, server.peak_in_flight))
        server.peak_in_flight = 0
    server.stop()


def one_sweep(runs: int, turns: int, delay: float, concurrency: int) -> dict:
    """One sweep in a fresh process against a fresh server; its figures."""
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    lifetime = 120 + 3 * runs * turns * delay / concurrency
    server = ctx.Process(target=_serve, args=(there, delay, concurrency, lifetime), daemon=True)
    server.start()
    try:
        url = here.recv()
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, BIZSIM_BENCH_KEY="bench", PYTHONPATH=str(ROOT))
            done = subprocess.run([sys.executable, "-c", _SWEEP, url, str(Path(tmp, "sweep")), str(runs), str(turns),
                                   str(concurrency)], capture_output=True, text=True, env=env, check=True)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        here.send("counts")
        figures["calls"], figures["server_peak"] = here.recv()
        here.send("stop")
    finally:
        server.join(timeout=10)
        if server.is_alive():
            server.terminate()
    figures["bound_s"] = figures["calls"] * delay / concurrency + figures["import_s"]
    figures["ratio"] = figures["wall_s"] / figures["bound_s"]
    figures["mb_per_episode"] = (figures["peak_mb"] - figures["before_mb"]) / figures["episodes"]
    figures["cpu_ms_per_call"] = 1000 * figures["cpu_s"] / figures["calls"]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=64)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.5, help="the server's answer time in seconds")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the shorter sweeps (bound under 30 s)")
    args = parser.parse_args()

    print(f"{args.runs} LLM runs x {args.turns} turns, the endpoint answering after {args.delay} s, "
          f"serving N at once; one sweep process per measurement (load before: {os.getloadavg()[0]:.2f})")
    print(f"{'N':>4} {'calls':>6} {'import':>7} {'wall':>7} {'bound':>7} {'wall/bound':>10} {'peak at server':>14} "
          f"{'episodes':>8} {'MB/episode':>10} {'CPU ms/call':>11}  repeats")
    for n in args.concurrency:
        ideal = args.runs * args.turns * args.delay / n
        repeats = args.repeats if ideal < 30 else 1
        rows = [one_sweep(args.runs, args.turns, args.delay, n) for _ in range(repeats)]
        assert all(r["failed"] == 0 and r["ran"] == args.runs for r in rows), rows
        mid = sorted(rows, key=lambda r: r["ratio"])[len(rows) // 2]
        print(f"{n:>4} {mid['calls']:>6} {mid['import_s']:>6.1f}s {mid['wall_s']:>6.1f}s {mid['bound_s']:>6.1f}s "
              f"{statistics.median(r['ratio'] for r in rows):>10.2f} {max(r['server_peak'] for r in rows):>14} "
              f"{mid['episodes']:>8} {statistics.median(r['mb_per_episode'] for r in rows):>10.2f} "
              f"{statistics.median(r['cpu_ms_per_call'] for r in rows):>11.1f}  {repeats}",
              flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(machine_line())


if __name__ == "__main__":
    main()
