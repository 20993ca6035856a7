"""An arena run with LLM seats, cut off (the process killed, a seat's API failing), resumes: the directory ends as
an uninterrupted run's, no recorded call is sent again (counted at the loopback server), and a resume refuses a
directory holding another arena or logs that do not replay."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest

from .llm_server import needs_litellm

needs_litellm()

from bizsim.cli import main
from bizsim.runs import RunSpec, execute
from bizsim.runs.rundir import RunDir
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError, ReplayError

from ._arena_agents import market_then_done
from .llm_server import LoopbackLLMServer

pytestmark = pytest.mark.xdist_group("arena_resume")

WORLD = "vending-arena"
ROOT = Path(__file__).resolve().parents[1]
#: Calls each LLM seat makes before its turn cap retires it (seats 1 and 2).
TURNS = {1: 8, 2: 6}




def _roster(url: str) -> list[str]:
    return ["planner", f"llm:model=hosted_vllm/alpha,api_base={url},max_turns={TURNS[1]}",
            f"llm:model=hosted_vllm/beta,api_base={url},max_turns={TURNS[2]}"]


def _spec(url: str, **changes) -> RunSpec:
    return attrs.evolve(RunSpec(WORLD, "small", seed=1, roster=_roster(url)), **changes)


@pytest.fixture(scope="module")
def server():
    """One loopback server both LLM seats call (each under its own model)."""
    with LoopbackLLMServer(market_then_done, lifetime_s=240) as srv:
        yield srv


@pytest.fixture(scope="module")
def whole(server, tmp_path_factory):
    """The arena played in one go."""
    out = tmp_path_factory.mktemp("whole") / "run"
    execute(_spec(server.url), out=out)
    return out


def _cut(whole: Path, into: Path, kept: dict[int, int]) -> Path:
    """What a run killed after ``kept[k]`` answered calls of seat ``k`` leaves: its spec and each LLM seat's call log
    so far (the seats' records and the arena's are written when it ends)."""
    for k, n in kept.items():
        (into / "seats" / str(k)).mkdir(parents=True)
        lines = (whole / "seats" / str(k) / "llm_calls.jsonl").read_text().splitlines(keepends=True)
        (into / "seats" / str(k) / "llm_calls.jsonl").write_text("".join(lines[:n]))
    shutil.copy(RunDir(whole).arena_spec, RunDir(into).arena_spec)
    return into


def _calls(path: Path) -> list[tuple]:
    """A seat's model calls as asked and answered (the wall-clock fields left out)."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["request"], r["turn"], {k: v for k, v in r["response"].items() if k != "latency_s"})
            for r in rows if r.get("kind") == "chat" and r.get("ok", True)]


def assert_same_directory(whole: Path, other: Path) -> None:
    """Every file the uninterrupted run wrote is there, the same: logs and records byte for byte (``result.json``
    but its one wall-clock value), each seat's model calls request for request and answer for answer."""
    names = sorted(p.relative_to(whole) for p in whole.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(other) for p in other.rglob("*") if p.is_file())
    for name in names:
        if name.name == "llm_calls.jsonl":
            assert _calls(whole / name) == _calls(other / name), name
        elif name == Path("result.json"):
            a, b = (json.loads((d / name).read_text()) for d in (whole, other))
            assert isinstance(a.pop("wall_s"), float) and isinstance(b.pop("wall_s"), float)
            assert a == b
        elif name != Path("arena.json"):
            assert (whole / name).read_bytes() == (other / name).read_bytes(), name
    check = verify_run_dir(other)
    assert check.ok, check.problems


def test_an_arena_with_llm_seats_keeps_its_spec_and_its_seats_calls_as_it_goes(whole):
    """arena.json (the roster, seed, world config; no key) is written before the seats play; each LLM seat's calls
    are in its own folder; the finished directory verifies."""
    spec = json.loads(RunDir(whole).arena_spec.read_text())
    assert ("arena", [], 3) == (spec["kind"], spec["resumes"], len(spec["spec"]["roster"]))
    assert spec["world_config"]["horizon_days"] >= 1
    for k, n in TURNS.items():
        assert n == len(_calls(whole / "seats" / str(k) / "llm_calls.jsonl"))
    assert verify_run_dir(whole).ok


def test_a_cut_off_arena_resumes_to_the_uninterrupted_directory_asking_only_what_was_not_answered(server, whole,
                                                                                                tmp_path):
    """Seat 1 cut after 3 answered calls, seat 2 after 2: the resume replays those 5 (the server is not asked for
    them) and asks the other 9 live; the directory equals the uninterrupted run's and the resume is noted."""
    cut = _cut(whole, tmp_path / "cut", {1: 3, 2: 2})
    before = server.policy_calls
    result = execute(_spec(server.url), out=cut, resume=True)
    assert sum(TURNS.values()) - 5 == server.policy_calls - before
    assert "horizon_end" == result.terminal_reason
    assert_same_directory(whole, cut)
    resumes = json.loads(RunDir(cut).arena_spec.read_text())["resumes"]
    assert [{"1": 3, "2": 2}] == [r["recorded_calls"] for r in resumes]


def test_a_seat_cut_off_before_its_folder_was_made_resumes_too(server, whole, tmp_path):
    """Only seat 1's folder and calls survive (seat 2's folder gone): the resume makes it and asks its calls live."""
    cut = _cut(whole, tmp_path / "cut", {1: 4})
    before = server.policy_calls
    execute(_spec(server.url), out=cut, resume=True)
    assert sum(TURNS.values()) - 4 == server.policy_calls - before
    assert_same_directory(whole, cut)


def test_resuming_a_finished_arena_asks_the_server_nothing(server, whole, tmp_path):
    """Every call of a finished arena is served from its seats' logs: not one request reaches the server."""
    copy = tmp_path / "copy"
    shutil.copytree(whole, copy)
    before = server.requests
    execute(_spec(server.url), out=copy)  # resume by default: the directory holds this arena
    assert before == server.requests
    assert_same_directory(whole, copy)


def test_cli_resume_confirms_the_seats_endpoint_and_goes_on(server, whole, tmp_path, capsys):
    """`bizsim run --resume DIR` tells an arena directory from a single run's; the seats' endpoint, named only by
    the directory, must be given again (--api-base), or the roster with --seat; then the arena goes on."""
    cut = _cut(whole, tmp_path / "cut", {1: 5, 2: 1})
    assert 2 == main(["run", "--resume", str(cut), "--no-progress", "--no-preflight"])
    assert f"seat 1 of the arena in the run directory names --api-base '{server.url}'" in capsys.readouterr().err
    assert not (cut / "result.json").exists()
    before = server.policy_calls
    assert 0 == main(["run", "--resume", str(cut), "--no-progress", "--no-preflight", "--api-base", server.url])
    assert sum(TURNS.values()) - 6 == server.policy_calls - before
    assert "standings" in capsys.readouterr().out
    assert_same_directory(whole, cut)
    again = tmp_path / "again"  # the run's own command line with --resume added
    _cut(whole, again, {1: 2, 2: 2})
    seats = [a for s in _roster(server.url) for a in ("--seat", s)]
    assert 0 == main(["run", WORLD, *seats, "--preset", "small", "--resume", str(again), "--no-progress",
                      "--no-preflight"])
    assert_same_directory(whole, again)


@pytest.mark.parametrize("change, words", [
    ({"seed": 2}, "holds an arena of seed 1, not 2"),
    ({"preset": "default"}, "holds an arena of preset 'small', not 'default'"),
    ({"roster": ["markup", "planner", "planner"]}, "holds an arena whose seat 0 is"),
    ({"roster": ["planner", "planner"]}, "holds an arena whose seat 1 is"),
])
def test_a_resume_refuses_a_directory_holding_another_arena_and_writes_nothing(server, whole, tmp_path, change, words):
    """Another seed, preset or roster than the directory's arena: refused, naming the rule; nothing written."""
    cut = _cut(whole, tmp_path / "cut", {1: 3, 2: 2})
    before = {p: p.read_bytes() for p in cut.rglob("*") if p.is_file()}
    spec = _spec(server.url, **{k: v for k, v in change.items() if k != "roster"})
    if "roster" in change:
        spec = RunSpec(WORLD, "small", seed=1, roster=change["roster"])
    with pytest.raises(ConfigError, match=words):
        execute(spec, out=cut, resume=True)
    assert before == {p: p.read_bytes() for p in cut.rglob("*") if p.is_file()}


def test_a_resume_refuses_logs_that_do_not_replay_and_a_fresh_run_refuses_the_directory(server, whole, tmp_path):
    """A seat's recorded call edited (another request) stops the resume with a ReplayError naming it; a log with more
    calls than the arena asks (another run's) too; a new run into the directory is refused (its calls were paid);
    a directory with no arena started is no resume."""
    cut = _cut(whole, tmp_path / "cut", {1: 3, 2: 2})
    calls = cut / "seats" / "2" / "llm_calls.jsonl"
    rows = [json.loads(line) for line in calls.read_text().splitlines()]
    rows[1]["request"] = "0" * 64
    calls.write_text("".join(json.dumps(r) + "\n" for r in rows))
    asked = server.policy_calls
    with pytest.raises(ReplayError, match="recorded call 1 .* no longer fit"):
        execute(_spec(server.url), out=cut, resume=True)
    longer = _cut(whole, tmp_path / "longer", TURNS)
    extra = (whole / "seats" / "1" / "llm_calls.jsonl").read_text().splitlines(keepends=True)
    (longer / "seats" / "1" / "llm_calls.jsonl").write_text("".join(extra + extra[:2]))
    with pytest.raises(ReplayError, match="seat 1: the resumed arena asked 8 of the seat's recorded calls but its "
                                          "log holds 10"):
        execute(_spec(server.url), out=longer, resume=True)
    with pytest.raises(ConfigError, match="holds an arena run with LLM seats .* resume it with --resume"):
        execute(_spec(server.url), out=cut, resume=False)
    with pytest.raises(ConfigError, match="holds no arena run to resume"):
        execute(_spec(server.url), out=tmp_path / "empty", resume=True)
    assert asked == server.policy_calls  # refused before a live call, or at a recorded one


def test_a_seat_its_api_stops_cuts_the_arena_off_and_the_resume_completes_it(whole, tmp_path, capsys):
    """The server refuses the fourth call (401, a seat's API giving up): the arena stops there as a killed run does
    (no record: its rivals must not play on against a seat the resume brings back), `bizsim run` exits 1 and says
    how to resume; the resume asks the refused call again and ends as the uninterrupted arena did."""
    out = tmp_path / "api"
    with LoopbackLLMServer(market_then_done, faults={3: "401"}, lifetime_s=120) as srv:
        seats = [a for s in _roster(srv.url) for a in ("--seat", s)]
        assert 1 == main(["run", WORLD, *seats, "--preset", "small", "--out", str(out), "--no-progress",
                          "--no-preflight"])
        err = capsys.readouterr().err
        assert "bizsim: the arena stopped: seat " in err and "401" in err
        assert f"every answered call is kept: continue with: bizsim run --resume {out} --api-base {srv.url}" in err
        assert RunDir(out).holds_arena_spec() and not (out / "result.json").exists()
        assert 3 == sum(len(_calls(p)) for p in out.glob("seats/*/llm_calls.jsonl"))
        assert 0 == main(["run", "--resume", str(out), "--no-progress", "--no-preflight", "--api-base", srv.url])
        # Every call answered once over the two sessions; the refused one was asked a second time.
        assert (sum(TURNS.values()), 1 + sum(TURNS.values())) == (srv.policy_calls, srv.requests)
    for k in range(3):
        for name in ("commands.jsonl", "trajectory.jsonl"):
            assert (whole / "seats" / str(k) / name).read_bytes() == (out / "seats" / str(k) / name).read_bytes()
    assert (whole / "trajectory.jsonl").read_bytes() == (out / "trajectory.jsonl").read_bytes()
    assert verify_run_dir(out).ok


def test_ctrl_c_mid_arena_says_how_to_resume_and_the_resume_completes_it(server, whole, tmp_path, capsys):
    """Ctrl-C (KeyboardInterrupt) once the seats have played a while: `bizsim run` says the arena stopped mid-run
    with the line to go on with, and that line's resume ends as the uninterrupted arena."""
    import argparse
    import contextlib

    from bizsim.cli.run_arena import run_arena
    from bizsim.simcore.registry import world_spec

    @contextlib.contextmanager
    def interrupting(args):
        seen = [0]

        def on_stop(world):
            seen[0] += 1
            if seen[0] == 40:
                raise KeyboardInterrupt

        yield on_stop

    out = tmp_path / "ctrl-c"
    args = argparse.Namespace(seat=_roster(server.url), preset="small", seed=1, out=str(out), overwrite=False,
                              no_preflight=True, json=False, agent_opt=[], max_episodes=1,
                              **{f: None for f in ("agent", "model", "api_base", "api_key_env", "max_cost_usd",
                                                   "max_turns", "max_tokens_total", "temperature", "memory",
                                                   "auditor", "resume", "estimate")})
    with pytest.raises(KeyboardInterrupt):
        run_arena(args, world_spec(WORLD), interrupting)
    err = capsys.readouterr().err
    assert f"the arena stopped mid-run; every answered call is kept: continue with: bizsim run --resume {out} " \
           f"--api-base {server.url}" in err
    assert not (out / "result.json").exists()
    assert 0 == main(["run", "--resume", str(out), "--no-progress", "--no-preflight", "--api-base", server.url])
    assert_same_directory(whole, out)


@pytest.mark.slow
def test_sigkill_mid_arena_leaves_a_directory_that_resumes_to_the_uninterrupted_one(tmp_path):
    """`bizsim run ARENA --seat llm:...` killed with SIGKILL once seat 1 has 3 answered calls: the directory holds the
    arena's spec and the seats' calls, no record; `bizsim run --resume` finishes it as an uninterrupted run, the
    server asked once for every call (but at most the one in flight at the kill)."""
    with LoopbackLLMServer(market_then_done, delay_s=0.05, lifetime_s=240) as srv:
        whole_dir = tmp_path / "whole"
        execute(_spec(srv.url), out=whole_dir)
        total = srv.policy_calls
        out = tmp_path / "killed"
        seats = [a for s in _roster(srv.url) for a in ("--seat", s)]
        proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", "run", WORLD, *seats, "--preset", "small",
                                 "--out", str(out), "--no-progress", "--no-preflight"],
                                env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        calls = out / "seats" / "1" / "llm_calls.jsonl"
        deadline = time.monotonic() + 120
        try:
            while not (calls.exists() and calls.read_bytes().count(b"\n") >= 3):
                assert proc.poll() is None and time.monotonic() < deadline, "the arena ended before it was killed"
                time.sleep(0.005)
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        assert RunDir(out).holds_arena_spec() and not (out / "result.json").exists()
        time.sleep(0.3)  # the request in flight at the kill is answered to nobody
        before = srv.policy_calls
        recorded = sum(len(_calls(p)) for p in out.glob("seats/*/llm_calls.jsonl"))
        assert 0 == main(["run", "--resume", str(out), "--no-progress", "--no-preflight", "--api-base", srv.url])
        assert total - recorded == srv.policy_calls - before
    assert_same_directory(whole_dir, out)


def test_the_resume_line_of_seats_at_two_endpoints_restates_the_roster_the_cli_reads_back():
    """Seats at two endpoints cannot be confirmed by one --api-base: the line gives the run's command again with
    --resume, and the CLI reads it back to the same roster, seed and preset."""
    import shlex

    from bizsim.cli.main import _build_parser
    from bizsim.cli.run_arena import _resume_line
    from bizsim.runs.resolve import resolve

    roster = ["planner", "llm:model=hosted_vllm/a,api_base=http://127.0.0.1:8001/v1,max_turns=5,memory=window,scratchpad",
              {"name": "llm", "options": {"model": "openai/b", "api_key_env": "B_KEY", "prices": {"openai/b": [1, 2]},
                                          "temperature": 0.5}}]
    spec = RunSpec(WORLD, "small", seed=7, roster=roster)
    line = _resume_line(resolve(spec), "out dir")
    words = shlex.split(line.split("continue with: ", 1)[1])
    assert words[:4] == ["bizsim", "run", "--resume", "out dir"]
    args = _build_parser().parse_args(words[1:])
    again = RunSpec(args.world, args.preset, seed=args.seed, roster=args.seat)
    assert (spec.roster, spec.seed, spec.preset, "out dir") == (again.roster, again.seed, again.preset, args.resume)


def test_an_arena_whose_preflight_fails_leaves_a_directory_a_new_run_can_use(server, whole, tmp_path):
    """Seat 2's pre-flight call refused (401), after seat 1's answered: nothing was begun, so nothing is left to
    resume and the same command into the same directory runs."""
    out = tmp_path / "pre"
    with LoopbackLLMServer(market_then_done, faults={1: "401"}, lifetime_s=120) as refusing:
        from bizsim.agents.llm.errors import PreflightError

        with pytest.raises(PreflightError):
            execute(_spec(refusing.url), out=out, preflight=True)
        assert not RunDir(out).holds_arena_spec()
        assert not any(p.stat().st_size for p in out.rglob("*.jsonl"))
        execute(_spec(refusing.url), out=out, preflight=True)
    assert verify_run_dir(out).ok
    for k in range(3):
        assert (whole / "seats" / str(k) / "commands.jsonl").read_bytes() == \
            (out / "seats" / str(k) / "commands.jsonl").read_bytes()


@pytest.mark.parametrize("link", ["seats", "seats/1"])
def test_a_resume_refuses_a_seat_folder_planted_as_a_link_and_reads_nothing_through_it(server, whole, tmp_path, link):
    """A seat's folder (or the seats folder) made a link to a folder outside the directory: the resume read the
    seat's calls through it, then removed the link and asked the server again for every call (paid twice). It is
    refused instead, naming the link, before a call; the folder outside is left as it was."""
    cut = _cut(whole, tmp_path / "cut", {1: 3, 2: 2})
    outside = tmp_path / "outside"
    shutil.move(str(cut / link), str(outside))
    (cut / link).symlink_to(outside, target_is_directory=True)
    held = sorted((p.relative_to(outside), p.read_bytes()) for p in outside.rglob("*") if p.is_file())
    asked = server.policy_calls
    with pytest.raises(ConfigError, match="is a symbolic link.*keeps its own seats"):
        execute(_spec(server.url), out=cut, resume=True)
    assert asked == server.policy_calls
    assert (cut / link).is_symlink()
    assert held == sorted((p.relative_to(outside), p.read_bytes()) for p in outside.rglob("*") if p.is_file())
