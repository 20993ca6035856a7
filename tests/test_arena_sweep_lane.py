"""Arena sweeps with LLM seats run in the I/O lane: many arenas at once on the sweep's threads, sharing the
per-endpoint limit and the sweep's spending cap (every seat's dollars), with the records a one-at-a-time sweep
writes; arenas of built-in seats keep the process backend; a sweep stopped by its cap resumes its arenas."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from .llm_server import needs_litellm

needs_litellm()

from bizsim.runs import RunSpec, sweep
from bizsim.runs.concurrent import ConcurrentRuns, waits_on_io
from bizsim.runs.verify import verify_run_dir

from ._arena_agents import market_then_done
from .llm_server import LoopbackLLMServer

pytestmark = pytest.mark.xdist_group("arena_sweep_lane")

WORLD = "vending-arena"
#: Dollars per million tokens: priced, so the sweep's cap counts every seat's calls.
PRICES = [100.0, 100.0]




class Gathering:
    """A policy that holds each request until ``n`` are at the server or ``timeout_s`` passes, and counts how many
    it held at once: requests sent one at a time never make more than one, whatever the timing."""

    def __init__(self, n: int, timeout_s: float = 0.5) -> None:
        self.n, self.timeout_s = n, timeout_s
        self.here = self.peak = 0
        self._cv = threading.Condition()

    def __call__(self, messages, tools):
        with self._cv:
            self.here += 1
            self.peak = max(self.peak, self.here)
            self._cv.notify_all()
            self._cv.wait_for(lambda: self.here >= self.n, timeout=self.timeout_s)
        try:
            return market_then_done(messages, tools)
        finally:
            with self._cv:
                self.here -= 1


def _seat(url: str, model: str, turns: int) -> dict:
    return {"name": "llm", "options": {"model": f"hosted_vllm/{model}", "api_base": url, "max_turns": turns,
                                       "prices": {f"hosted_vllm/{model}": PRICES}}}


def _arenas(url: str, seeds: range, turns: tuple[int, int] = (4, 3)) -> list[RunSpec]:
    return [RunSpec(WORLD, "small", seed=seed, roster=[_seat(url, "alpha", turns[0]), "planner",
                                                       _seat(url, "beta", turns[1])]) for seed in seeds]


def _records(out: Path) -> dict[str, dict]:
    """Each run's record by run id, without its wall-clock values."""
    out_ = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        r.pop("wall_s")
        r["run"].pop("wall_s", None)
        out_[r["run_id"]] = r
    return out_


def _call_usd(server: LoopbackLLMServer) -> float:
    """The dearest call the server has answered so far, at :data:`PRICES`."""
    return max((u["prompt_tokens"] * PRICES[0] + u["completion_tokens"] * PRICES[1]) / 1e6 for u in server.usages)


def _answered_usd(out: Path) -> float:
    total = 0.0
    for calls in (out / "runs").glob("*/seats/*/llm_calls.jsonl"):
        for line in calls.read_text().splitlines():
            row = json.loads(line)
            total += row["response"]["cost_usd"] if row.get("ok") and row.get("kind") == "chat" else 0.0
    return total


def test_an_arena_with_an_llm_seat_waits_on_io_and_one_of_built_in_seats_does_not():
    url = "http://127.0.0.1:9/v1"
    assert waits_on_io(_arenas(url, range(1, 2))[0])
    assert not waits_on_io(RunSpec(WORLD, "small", seed=1, roster=["planner", "markup"]))


def test_the_lane_keeps_many_arenas_requests_in_flight_and_records_what_one_at_a_time_records(tmp_path):
    """Four arenas of two LLM seats at --concurrency 4: more than two requests at the server at once (an arena's
    seats take turns, so only arenas playing at once get there; a pool of two workers could not); an arena of
    built-in seats in the same sweep runs on the workers; every record equals a concurrency-1 sweep's, every run
    directory verifies, every call was asked once."""
    gathering = Gathering(4)
    with LoopbackLLMServer(gathering, lifetime_s=240) as server:
        specs = [*_arenas(server.url, range(1, 5)), RunSpec(WORLD, "small", seed=1, roster=["planner", "markup"])]
        lane = sweep(specs, tmp_path / "lane", workers=1, progress=False, concurrency=4, preflight=False)
        assert (5, 0, 0) == (lane.ran, lane.failed, lane.held)
        assert gathering.peak > 2 and server.peak_in_flight > 2
        assert 4 * (4 + 3) == server.policy_calls
        gathering.n, gathering.peak, server.peak_in_flight = 1, 0, 0
        one = sweep(specs, tmp_path / "one", backend="serial", progress=False, concurrency=1, preflight=False)
        assert (5, 0) == (one.ran, one.failed)
        assert 1 == gathering.peak == server.peak_in_flight
    assert _records(tmp_path / "one") == _records(tmp_path / "lane")
    for spec in specs:
        assert verify_run_dir(tmp_path / "lane" / "runs" / spec.run_id).ok
    seats = [json.loads(r["run"]["seats_json"]) for r in _records(tmp_path / "lane").values()]
    assert {4, 3} == {s["llm"]["turns"] for arena in seats for s in arena if "llm" in s}


def test_the_sweep_cap_covers_every_seat_and_a_higher_cap_resumes_the_stopped_arenas(tmp_path):
    """A cap that two short arenas' seats can pay but not six long ones': the sweep stops starting calls once the
    seats have paid it (over by at most the calls in flight), the arenas it stopped are not recorded; the same sweep
    with a higher cap resumes them from their run directories (their seats' recorded calls not asked again), skips
    the finished ones, and records each arena once."""
    with LoopbackLLMServer(market_then_done, delay_s=0.02, lifetime_s=240) as server:
        short = _arenas(server.url, range(1, 3), (2, 2))
        long = _arenas(server.url, range(3, 9), (6, 5))
        specs = short + long
        out = tmp_path / "capped"
        first = sweep(specs[:2], out, progress=False, concurrency=2, preflight=False)  # the short ones first
        paid_short = _answered_usd(out)
        assert (2, 0) == (first.ran, first.failed) and paid_short > 0
        cap = paid_short + 4 * _call_usd(server)
        capped = sweep(specs, out, progress=False, concurrency=2, max_cost_usd=cap, preflight=False)
        spent = _answered_usd(out)
        assert capped.skipped == 2 and capped.held >= 1 and capped.ran + capped.held == 6
        assert pytest.approx(spent) == capped.spent_usd
        assert cap <= spent <= cap + 2 * _call_usd(server)  # over the cap by the calls in flight at most
        asked = server.policy_calls
        again = sweep(specs, out, progress=False, concurrency=2, max_cost_usd=1000.0, preflight=False)
        assert (0, 0) == (again.failed, again.held) and again.skipped == 2 + capped.ran
        assert 2 * (2 + 2) + 6 * (6 + 5) == server.policy_calls  # every seat's call answered once over the sweeps
        assert 0 < server.policy_calls - asked < 6 * 11  # the stopped arenas' recorded calls were replayed
        finished = sweep(specs, out, progress=False, concurrency=2, preflight=False)
        assert (0, 8) == (finished.ran, finished.skipped)
    records = _records(out)
    assert 8 == len(records) == len((out / "results.jsonl").read_text().splitlines())
    spent = sum(s["llm"]["cost_usd"] for r in records.values() for s in json.loads(r["run"]["seats_json"]) if "llm" in s)
    assert pytest.approx(spent) == _answered_usd(out) == pytest.approx(again.spent_usd)
    for spec in specs:
        assert verify_run_dir(out / "runs" / spec.run_id).ok


def test_concurrent_runs_group_an_arena_under_its_first_llm_seats_endpoint():
    """The lane's threads: an arena counts under its first LLM seat's endpoint (it has one request in flight at a
    time), two slots' worth of arenas per request slot."""
    from bizsim.agents.llm import EndpointLimiter

    specs = _arenas("http://127.0.0.1:9/v1", range(1, 9))
    assert 2 * 3 == ConcurrentRuns(specs, EndpointLimiter(3), lambda item: None).threads
    assert 8 == ConcurrentRuns(specs, EndpointLimiter(8), lambda item: None).threads


_KILL_SCRIPT = """
import sys
from bizsim.runs import RunSpec, sweep

if __name__ == "__main__":
    url, out = sys.argv[1], sys.argv[2]
    seat = lambda name: {"name": "llm", "options": {"model": f"hosted_vllm/{name}", "api_base": url, "max_turns": 5}}
    specs = [RunSpec("vending-arena", "small", seed=seed, roster=[seat("alpha"), "planner", seat("beta")])
             for seed in range(1, 7)]
    sweep(specs, out, progress=False, concurrency=2, preflight=False)
"""


@pytest.mark.slow
def test_an_arena_sweep_killed_with_sigkill_resumes_paying_only_the_calls_in_flight(tmp_path):
    """SIGKILL a sweep of 6 arenas (2 LLM seats of 5 calls each, 2 requests in flight) once 2 have finished, run it
    again: every arena recorded once, the finished ones skipped, and the endpoint answered each call once, but for
    at most the 2 in flight when the sweep died."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "kill_me.py"
    script.write_text(_KILL_SCRIPT)
    out = tmp_path / "killed"
    with LoopbackLLMServer(market_then_done, delay_s=0.1, lifetime_s=240) as server:
        proc = subprocess.Popen([sys.executable, str(script), server.url, str(out)], cwd=tmp_path)
        deadline = time.monotonic() + 120
        results = out / "results.jsonl"
        while time.monotonic() < deadline and proc.poll() is None and not (
                results.exists() and results.read_bytes().count(b"\n") >= 2):
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        at_kill = server.policy_calls
        time.sleep(0.5)  # the requests in flight are answered to nobody
        in_flight = server.policy_calls - at_kill
        killed = len(results.read_text().splitlines())
        assert 2 <= killed < 6
        specs = [RunSpec.from_dict(d) for d in json.loads((out / "sweep.json").read_text())["specs"]]
        resumed = sweep(specs, out, progress=False, concurrency=2, preflight=False)
        total = server.policy_calls
    assert (6, killed, 6 - killed, 0) == (resumed.total, resumed.skipped, resumed.ran, resumed.failed)
    records = _records(out)
    assert 6 == len(records) == len((out / "results.jsonl").read_text().splitlines())
    assert 0 <= in_flight <= 2
    assert 60 <= total <= 60 + 2  # every seat's call once, and at most the calls in flight at the kill twice
    for spec in specs:
        assert verify_run_dir(out / "runs" / spec.run_id).ok


def test_an_arena_whose_seat_api_gave_up_is_recorded_as_failed_and_retry_failed_resumes_it(tmp_path):
    """The server refuses one request (401): that arena stops where it stood (its rivals do not play on against a
    seat missing by an outage) and is recorded as failed, the other arena is fine; --retry-failed resumes the failed
    one from its run directory, asking the refused call again and no answered one twice."""
    with LoopbackLLMServer(market_then_done, faults={2: "401"}, lifetime_s=240) as server:
        specs = _arenas(server.url, range(1, 3))
        out = tmp_path / "sw"
        first = sweep(specs, out, progress=False, concurrency=1, preflight=False)
        assert (2, 1) == (first.ran, first.failed)
        failed = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()
                  if json.loads(line)["status"] != "ok"]
        assert "ArenaCutOff" == failed[0]["error"]["type"] and "401" in failed[0]["error"]["message"]
        again = sweep(specs, out, progress=False, concurrency=1, preflight=False, retry_failed=True)
        assert (1, 0, 1) == (again.ran, again.failed, again.skipped)
        assert (2 * (4 + 3), 2 * (4 + 3) + 1) == (server.policy_calls, server.requests)
    ok = {r["run_id"] for r in map(json.loads, (out / "results.jsonl").read_text().splitlines()) if r["status"] == "ok"}
    assert {s.run_id for s in specs} == ok
    for spec in specs:
        assert verify_run_dir(out / "runs" / spec.run_id).ok
