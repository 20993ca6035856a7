"""A real model in the loop: every registered world for a few turns, a 2-seed sweep and its report, on a local server.

Run (the server is yours to start first; docs/local-models.md says how)::

    python benchmarks/real_model.py --api-base http://127.0.0.1:8437/v1 --model hosted_vllm/smollm2 \\
        [--max-turns 3] [--max-tokens 200] [--sweep-world operation] [--out DIR]

Each step goes through the ``bizsim`` command a user types, in a fresh process: ``bizsim run WORLD --agent llm``
on every world of the registry (seed 1), then ``bizsim sweep`` of one world on seeds 1-2 and ``bizsim report`` of
that sweep. Per run it prints, from the run directory alone: seconds per model turn (the calls' own latencies),
prompt and output tokens per second (the server's own timings when it sends them, as llama.cpp does; else output
tokens over the calls' latencies, marked ``~``), the share of prompt tokens the server served from its cache
(``cache_read_tokens`` over ``prompt_tokens``), the tool calls and text-only replies, and why the run stopped.

It exits 1 when a step fails: a run with no record, a run stopped by the API failing (``api_error``) or with no
model turn, a sweep run not ``ok``, a report not written. A run is judged by its record: one stopped by its turn cap
(``max_turns``) is the run asked for, not a failure, whatever exit status ``bizsim run`` gives it, and any other
stop (a model outgrowing its context, say) is printed as it is.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibration import machine_line  # benchmarks/calibration.py

from bizsim.runs import RunDir, SweepDir
from bizsim.simcore.registry import world_names

# A run is judged by its record, not by bizsim run's exit status (which says 1 for a run stopped by its turn cap,
# the run this benchmark asks for); these stops mean the plumbing failed.
_FAILED_STOPS = ("api_error",)
_MIN_EVALUATED = 16  # prompt tokens a run's calls must have evaluated for a prompt rate


def bizsim(args: list[str], log: Path) -> tuple[int, float]:
    """Run ``bizsim ARGS`` in a fresh process, its output to ``log``: (exit status, wall seconds)."""
    start = time.perf_counter()
    with log.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "bizsim.cli", *args], check=False, stdout=out,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return done.returncode, time.perf_counter() - start


def figures(run: RunDir) -> dict:
    """One run's pace and tokens, from its record and its model calls."""
    record = run.read_record()
    llm = record.llm or {}
    calls = [c for c in run.read_calls() if c.get("kind") == "chat" and c.get("ok")]
    latencies = [float(c["response"].get("latency_s") or 0.0) for c in calls]
    timings = [t for t in ((c["response"].get("raw") or {}).get("timings") for c in calls) if isinstance(t, dict)]
    prompt = int(llm.get("prompt_tokens") or 0)
    completion = int(llm.get("completion_tokens") or 0)
    row = {
        "turns": int(llm.get("turns") or 0), "s_per_turn": sum(latencies) / len(latencies) if latencies else None,
        "prompt_tokens": prompt, "completion_tokens": completion,
        "cached_share": (llm.get("cache_read_tokens") or 0) / prompt if prompt else None,
        "tool_calls": int(llm.get("commands") or 0), "text_replies": int(llm.get("text_replies") or 0),
        "stop": f"{record.terminal_reason}/{record.terminal_detail}" if record.terminal_detail
        else record.terminal_reason, "detail": record.terminal_detail, "wall_s": record.wall_s,
    }
    if timings and len(timings) == len(calls):
        # The server's own clocks: prompt tokens it evaluated (the uncached part) and tokens it wrote.
        prompt_ms = sum(float(t.get("prompt_ms") or 0) for t in timings)
        output_ms = sum(float(t.get("predicted_ms") or 0) for t in timings)
        evaluated = sum(int(t.get("prompt_n") or 0) for t in timings)
        written = sum(int(t.get("predicted_n") or 0) for t in timings)
        # A prompt served whole from the cache leaves a token or two to evaluate: no rate worth printing.
        row["prompt_tps"] = evaluated / prompt_ms * 1000 if prompt_ms and evaluated >= _MIN_EVALUATED else None
        row["output_tps"] = written / output_ms * 1000 if output_ms else None
        row["tps_from"] = "server"
    else:
        row["prompt_tps"] = None
        row["output_tps"] = completion / sum(latencies) if latencies and sum(latencies) else None
        row["tps_from"] = "latency"
    return row


def failure(run: RunDir) -> str | None:
    """Why a ``bizsim run`` step failed, or ``None``."""
    if not run.is_finished():
        return "no result.json"
    record = run.read_record()
    if record.terminal_detail in _FAILED_STOPS:
        return f"stopped by {record.terminal_detail}"
    if not (record.llm or {}).get("turns"):
        return "no model turn"
    return None


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages, as the kernel reports them (``?`` where it does not)."""
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "?"


def show(value: float | None, fmt: str) -> str:
    """A figure, or a dash when it is unknown."""
    return "-" if value is None else format(value, fmt)


def print_table(rows: list[tuple[str, dict]]) -> None:
    """One line a run."""
    print(f"{'run':<22} {'turns':>5} {'wall s':>6} {'s/turn':>7} {'prompt':>7} {'cached':>7} {'prompt t/s':>10} "
          f"{'output':>6} {'output t/s':>10} {'tools':>5} {'text':>4}  stop")
    for name, r in rows:
        approx = "~" if r["tps_from"] == "latency" else ""
        print(f"{name:<22} {r['turns']:>5} {show(r['wall_s'], '.0f'):>6} {show(r['s_per_turn'], '.1f'):>7} "
              f"{r['prompt_tokens']:>7} "
              f"{show(r['cached_share'] and 100 * r['cached_share'], '.0f') + '%':>7} "
              f"{show(r['prompt_tps'], '.1f'):>10} {r['completion_tokens']:>6} "
              f"{approx + show(r['output_tps'], '.1f'):>10} {r['tool_calls']:>5} {r['text_replies']:>4}  {r['stop']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", required=True, help="the server's OpenAI-compatible URL, e.g. "
                        "http://127.0.0.1:8437/v1")
    parser.add_argument("--model", required=True, help="litellm model name, e.g. hosted_vllm/smollm2")
    parser.add_argument("--api-key-env", help="the variable holding the server's key, if it checks one")
    parser.add_argument("--max-turns", type=int, default=3, help="model calls per run (default 3)")
    parser.add_argument("--max-tokens", type=int, default=200, help="output tokens per call (default 200)")
    parser.add_argument("--sweep-world", default="operation", help="the world swept on seeds 1-2")
    parser.add_argument("--out", type=Path, help="where the runs go (default: a new temporary folder)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bizsim-real-model-"))
    out.mkdir(parents=True, exist_ok=True)
    key = ["--api-key-env", args.api_key_env] if args.api_key_env else []
    print(f"model {args.model} at {args.api_base}; {args.max_turns} turns a run, max_tokens={args.max_tokens}; "
          f"load average {load_average()}; runs in {out}")
    failures: list[str] = []
    rows: list[tuple[str, dict]] = []
    started = time.perf_counter()
    for world in world_names():
        run = RunDir(out / "runs" / world)
        rc, wall = bizsim(["run", world, "--agent", "llm", "--model", args.model, "--api-base", args.api_base, *key,
                           "--max-turns", str(args.max_turns), "--agent-opt", f"max_tokens={args.max_tokens}",
                           "--seed", "1", "--out", str(run), "--no-progress", "--json"], out / f"run-{world}.log")
        why = failure(run)
        if why is None:
            rows.append((world, figures(run)))
        else:
            failures.append(f"bizsim run {world}: {why} (see {out / f'run-{world}.log'})")
        print(f"  bizsim run {world}: {wall:.1f} s, exit {rc}, {why or 'ok'}", flush=True)
    sweep = SweepDir(out / "sweep")
    options = [f"model={args.model}", f"api_base={args.api_base}", f"max_turns={args.max_turns}",
               f"max_tokens={args.max_tokens}"] + ([f"api_key_env={args.api_key_env}"] if args.api_key_env else [])
    rc, wall = bizsim(["sweep", "--world", args.sweep_world, "--agent", "llm", "--seeds", "1-2", "--workers", "1",
                       "--run-dirs", "--no-progress", "--out", str(sweep),
                       *[a for o in options for a in ("--agent-opt", o)]], out / "sweep.log")
    results = [json.loads(line) for line in sweep.results.read_text().splitlines()] if sweep.is_sweep() else []
    bad = [r["run_id"] for r in results if r.get("status") != "ok"]
    if rc != 0 or len(results) != 2 or bad:
        failures.append(f"bizsim sweep: exit {rc}, {len(results)} of 2 runs recorded, not ok: {bad or 'none'} "
                        f"(see {out / 'sweep.log'})")
    for r in results:
        run = sweep.run(r["run_id"])
        if run.is_finished():
            rows.append((f"sweep {args.sweep_world} s{r['spec']['seed']}", figures(run)))
    print(f"  bizsim sweep {args.sweep_world} seeds 1-2: {wall:.1f} s, exit {rc}", flush=True)
    rc, wall = bizsim(["report", str(sweep)], out / "report.log")
    report = sweep.report / "report.html"
    if rc != 0 or not report.is_file():
        failures.append(f"bizsim report: exit {rc}, {report} {'written' if report.is_file() else 'missing'}")
    print(f"  bizsim report: {wall:.1f} s, {report if report.is_file() else 'no report'}", flush=True)
    print()
    print_table(rows)
    print(f"\n{len(rows)} runs in {time.perf_counter() - started:.0f} s, load average {load_average()} at the end; "
          "wall s: the run's own (result.json; the step's line above adds the process start and the pre-flight "
          "call); s/turn: the calls' mean latency; "
          "t/s: the server's timings, prompt t/s over the tokens it evaluated (the uncached part) "
          "(~: output tokens over latency); cached: cache_read / prompt tokens")
    print(machine_line())
    for line in failures:
        print(f"FAILED: {line}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
