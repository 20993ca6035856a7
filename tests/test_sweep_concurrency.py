"""Many model runs at once in a sweep: --concurrency requests in flight per endpoint, the sweep's cost cap across
concurrent runs, and a concurrent sweep killed with SIGKILL that resumes paying only the calls in flight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .llm_server import needs_litellm

pytestmark = pytest.mark.xdist_group("sweep_concurrency")

needs_litellm()

from bizsim.agents.declare import WAITS_ON_IO
from bizsim.agents.llm import EndpointLimiter, RunStopped
from bizsim.runs import RunSpec, sweep
from bizsim.runs.concurrent import waits_on_io
from bizsim.runs.runspec import agent_capabilities
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

MODEL = "openai/gpt-4o-mini"
KEY_ENV = "BIZSIM_LOOPBACK_KEY"


def _llm(url: str, seed: int, turns: int, **extra: object) -> RunSpec:
    return RunSpec("startup", "default", "llm", seed, agent_options={
        "model": MODEL, "api_base": url, "api_key_env": KEY_ENV, "max_turns": turns, **extra})


def _lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _answered_usd(out: Path) -> float:
    """The dollars of every answered call any run directory of the sweep recorded."""
    total = 0.0
    for calls in (out / "runs").glob("*/llm_calls.jsonl"):
        for line in calls.read_text().splitlines():
            row = json.loads(line)
            total += row["response"]["cost_usd"] if row.get("ok") and row.get("kind") == "chat" else 0.0
    return total


def test_the_llm_agent_declares_that_it_waits_on_io():
    """The capability comes from the agent's declaration, not its name: baselines and planners keep the workers."""
    assert WAITS_ON_IO in agent_capabilities("startup", "llm")
    assert not waits_on_io(RunSpec("startup", "default", "greedy", 1))
    assert waits_on_io(_llm("http://127.0.0.1:9/v1", 1, 2))


def test_model_runs_go_at_once_up_to_the_concurrency_and_record_what_one_at_a_time_records(tmp_path, monkeypatch):
    """Six LLM runs with --concurrency 3 keep exactly three requests at the endpoint; baseline runs in the same sweep
    run on the process pool; every record equals the one a sweep with concurrency 1 writes."""
    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, delay_s=0.15, lifetime_s=240) as server:
        specs = [_llm(server.url, seed, 4) for seed in range(1, 7)] + [RunSpec("startup", "default", "greedy", 1)]
        many = sweep(specs, tmp_path / "many", workers=1, progress=False, compact=False, concurrency=3)
        assert (7, 0, 0) == (many.ran, many.failed, many.held)
        assert 3 == server.peak_in_flight
        server.peak_in_flight = 0
        one = sweep(specs, tmp_path / "one", backend="serial", progress=False, compact=False, concurrency=1)
        assert (7, 0, 1) == (one.ran, one.failed, server.peak_in_flight)

    def by_id(out: Path) -> dict[str, dict]:
        return {r["run_id"]: {k: v for k, v in r.items() if k != "wall_s"} | {"run": {
            k: v for k, v in r["run"].items() if k != "wall_s"}} for r in _lines(out)}

    assert by_id(tmp_path / "one") == by_id(tmp_path / "many")
    assert {4} == {r["run"]["llm_turns"] for r in _lines(tmp_path / "many") if r["spec"]["agent"] == "llm"}
    with pytest.raises(ConfigError, match=r"concurrency\(=0\) must be an integer >= 1"):
        sweep(specs, tmp_path / "bad", progress=False, concurrency=0)


def test_a_grid_files_sweep_table_sets_the_concurrency_and_the_flag_wins(tmp_path, monkeypatch):
    """[sweep] concurrency = 2 keeps two requests at the endpoint; --concurrency 1 on the command line, one."""
    from bizsim.cli.main import main

    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, delay_s=0.15, lifetime_s=240) as server:
        grid_file = tmp_path / "grid.toml"
        grid_file.write_text(f"""
[[runs]]
world = "startup"
agent = "llm"
agent_options = {{model = "{MODEL}", api_base = "{server.url}", api_key_env = "{KEY_ENV}", max_turns = 3}}
seeds = "1-4"

[sweep]
backend = "serial"
concurrency = 2
preflight = false
""")
        assert 0 == main(["sweep", str(grid_file), "--out", str(tmp_path / "two"), "--no-progress"])
        assert 2 == server.peak_in_flight
        server.peak_in_flight = 0
        one = ["sweep", str(grid_file), "--out", str(tmp_path / "one"), "--no-progress", "--concurrency", "1"]
        assert 0 == main(one)
        assert 1 == server.peak_in_flight
    assert 4 == len(_lines(tmp_path / "one")) == len(_lines(tmp_path / "two"))


def test_the_sweep_cap_stops_concurrent_runs_between_calls_and_a_higher_cap_resumes_them(tmp_path, monkeypatch):
    """Priced calls, cap $1.5: two short runs finish, then the sweep stops starting calls once it has paid $1.5
    (over by at most the calls in flight); the long runs it stopped are not recorded as finished; the same sweep
    with a higher cap resumes them from their run directories, and the endpoint answers every call exactly once
    over the two sweeps."""
    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    prices = {MODEL: [100.0, 100.0]}  # dollars per million tokens: a call of this policy costs $0.1 to $0.3
    with LoopbackLLMServer(greedy_policy, delay_s=0.05, lifetime_s=240) as server:
        specs = [_llm(server.url, seed, 2 if seed <= 2 else 8, prices=prices) for seed in range(1, 7)]
        out = tmp_path / "capped"
        capped = sweep(specs, out, progress=False, compact=False, concurrency=2, max_cost_usd=1.5, preflight=False)
        call_usd = max((u["prompt_tokens"] + u["completion_tokens"]) * 100 / 1e6 for u in server.usages)
        finished = _lines(out)
        assert {s.run_id for s in specs[:2]} == {r["run_id"] for r in finished}
        assert (2, 4) == (capped.ran, capped.held)
        assert all(r["status"] == "ok" and r["run"]["llm_turns"] == 2 for r in finished)
        paid = _answered_usd(out)
        assert pytest.approx(paid) == capped.spent_usd
        assert 1.5 <= paid <= 1.5 + 2 * call_usd  # over the cap by the calls in flight at most
        assert "4 runs held back" in str(capped)
        stopped = [s for s in specs[2:] if (out / "runs" / s.run_id / "llm_calls.jsonl").exists()]
        assert stopped and not any((out / "runs" / s.run_id / "result.json").exists() for s in specs[2:])
        again = sweep(specs, out, progress=False, compact=False, concurrency=2, max_cost_usd=100.0, preflight=False)
        assert (4, 0, 0) == (again.ran, again.failed, again.held)
        assert 2 * 2 + 4 * 8 == server.policy_calls  # every turn answered once: the stopped runs replayed theirs
    records = _lines(out)
    assert 6 == len(records) == len({r["run_id"] for r in records})
    assert pytest.approx(sum(r["run"]["llm_cost_usd"] for r in records)) == _answered_usd(out) == pytest.approx(
        again.spent_usd)


_KILL_SCRIPT = """
import sys
from bizsim.runs import RunSpec, sweep

if __name__ == "__main__":
    url, out = sys.argv[1], sys.argv[2]
    specs = [RunSpec("startup", "default", "llm", seed, agent_options={
        "model": "openai/gpt-4o-mini", "api_base": url, "api_key_env": "BIZSIM_LOOPBACK_KEY", "max_turns": 6})
        for seed in range(1, 9)]
    sweep(specs, out, progress=False, compact=False, concurrency=3, preflight=False)
"""


def test_a_concurrent_sweep_killed_with_sigkill_resumes_paying_only_the_calls_in_flight(tmp_path, monkeypatch):
    """SIGKILL a sweep of 8 LLM runs (3 requests in flight) once 3 have finished, run it again: every run recorded
    once, and the endpoint answered each call once, but for at most the 3 in flight when the sweep died."""
    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    script = tmp_path / "kill_me.py"
    script.write_text(_KILL_SCRIPT)
    out = tmp_path / "killed"
    with LoopbackLLMServer(greedy_policy, delay_s=0.2, lifetime_s=240) as server:
        proc = subprocess.Popen([sys.executable, str(script), server.url, str(out)], cwd=tmp_path)
        deadline = time.monotonic() + 120
        results = out / "results.jsonl"
        while time.monotonic() < deadline and proc.poll() is None and not (
                results.exists() and results.read_bytes().count(b"\n") >= 3):
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        at_kill = server.policy_calls
        time.sleep(0.5)  # the requests in flight are answered to nobody
        paid_once_more = server.policy_calls - at_kill
        killed = len(_lines(out))
        assert 3 <= killed < 8 and at_kill < 48
        resumed = sweep([RunSpec.from_dict(d) for d in json.loads((out / "sweep.json").read_text())["specs"]], out,
                        progress=False, compact=False, concurrency=3, preflight=False)
        total = server.policy_calls
    records = _lines(out)
    assert (8, killed, 8 - killed, 0) == (resumed.total, resumed.skipped, resumed.ran, resumed.failed)
    assert 8 == len(records) == len({r["run_id"] for r in records})
    assert {6} == {r["run"]["llm_turns"] for r in records}
    assert 0 <= paid_once_more <= 3
    assert 48 <= total <= 48 + 3  # every turn once, and at most the calls in flight at the kill twice


def test_a_limiter_stops_new_requests_at_its_cap_and_on_stop():
    """The shared limiter: a request past the cap or after stop() raises RunStopped (a BaseException, so no
    model-failure fallback swallows it); a request in flight is not interrupted."""
    limiter = EndpointLimiter(2, max_cost_usd=1.0, spent_usd=0.4)
    with limiter.slot("e"):
        limiter.charge(0.7)  # the answer of the call in flight: it passes the cap
    assert pytest.approx(1.1) == limiter.spent_usd
    with pytest.raises(RunStopped, match=r"max_cost_usd=1.0"):
        with limiter.slot("e"):
            pass
    assert not issubclass(RunStopped, Exception) and 0 == limiter.in_flight("e")
    free = EndpointLimiter(1)
    free.stop("enough")
    with pytest.raises(RunStopped, match="enough"):
        free.check()
    with pytest.raises(ConfigError, match=r"max_cost_usd\(=-1\) must be >= 0"):
        EndpointLimiter(1, max_cost_usd=-1)


@pytest.mark.slow
def test_ray_runs_model_runs_concurrently_in_the_driver_and_baselines_on_ray(tmp_path, monkeypatch):
    """backend="ray": the LLM runs go at once through the sweep's limiter as on the process pool; the baseline runs
    on a local Ray instance, shut down after."""
    ray = pytest.importorskip("ray")
    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, delay_s=0.1, lifetime_s=240) as server:
        specs = [_llm(server.url, seed, 3) for seed in range(1, 5)] + [RunSpec("startup", "default", "greedy", 1)]
        summary = sweep(specs, tmp_path, backend="ray", workers=1, progress=False, compact=False, concurrency=2)
        assert (5, 0, 2) == (summary.ran, summary.failed, server.peak_in_flight)
    assert not ray.is_initialized()
    assert 5 == len({r["run_id"] for r in _lines(tmp_path)})
