"""An arena seat whose LLM agent stops itself by its cap (``max_turns``) is retired, not ended: its company plays on
without an agent to the arena's end beside its rivals, so no seat is rewarded for stopping early. Its record keeps
why its agent stopped; the directory verifies and a cut-off run resumes to the same end. A one-seat arena is the
base world still: a cap ends it (status ``error``). The model is the project's loopback server over litellm."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import attrs
import pytest

from .llm_server import needs_litellm

needs_litellm()

from bizsim.runs import RunSpec, execute
from bizsim.runs.rundir import RunDir, read_command_log
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.world import Status

from .llm_server import LoopbackLLMServer

pytestmark = pytest.mark.xdist_group("arena_capped_seat")

#: The LLM seat's turn cap: it stops after this many model calls (in March at the latest), its rivals play on.
CAP = 3


def _policy(messages, tools):
    """Ends its day (vending) or resumes the clock (startup) at every call."""
    names = {t["function"]["name"] for t in tools or []}
    if "run_command" in names:  # the YC-Bench protocol: one tool, a command line
        return {"content": None, "tool_calls": [{"name": "run_command", "arguments": {"command": "yc-bench sim resume"}}]}
    return {"content": None, "tool_calls": [{"name": "task_done", "arguments": {}}]}


@pytest.fixture(scope="module")
def server():
    with LoopbackLLMServer(_policy, lifetime_s=300) as srv:
        yield srv


CASES = {
    "vending-arena": ("small", {"horizon_days": 30}, "planner"),
    "startup-arena": ("default", None, "greedy"),
}


def _spec(world: str, url: str) -> RunSpec:
    preset, overrides, rival = CASES[world]
    roster = [rival, f"llm:model=hosted_vllm/capped,api_base={url},max_turns={CAP}"]
    spec = RunSpec(world, preset, seed=2, roster=roster)
    return attrs.evolve(spec, overrides=overrides) if overrides else spec


@pytest.fixture(scope="module")
def whole(server, tmp_path_factory):
    """Each arena played in one go, its LLM seat capped."""
    out = {}
    for world in CASES:
        out[world] = tmp_path_factory.mktemp(world) / "run"
        execute(_spec(world, server.url), out=out[world])
    return out


@pytest.mark.parametrize("world", list(CASES))
def test_a_capped_seat_plays_on_to_the_arenas_end_and_its_record_says_why_its_agent_stopped(server, world, tmp_path):
    """The capped seat's company reaches the arena's end (the horizon, or its own bankruptcy), not its agent's stop;
    its log ends with the turns the arena ended for it; its record names the cap and the agent's turns."""
    result = execute(_spec(world, server.url), out=tmp_path / "run")
    arena = result.final_world
    rival, capped = arena.seats
    assert capped.agent_stop is not None and capped.agent_stop[0] == "max_turns"
    assert capped.done and capped.status in (Status.HORIZON, Status.BANKRUPT)
    assert rival.status is Status.HORIZON and arena.done
    if capped.status is Status.HORIZON:  # same end as its rival: the year, not the month its agent stopped in
        assert capped.now_us == rival.now_us
    log = capped.command_log()
    if world == "vending-arena":
        assert capped.day == arena.horizon_days and len(log) == arena.horizon_days  # CAP days played, the rest issued
        assert {line for _, line in log} == {"task_done"}
    else:
        assert log[-1][1] == "arena leave" and sum(line == "arena leave" for _, line in log) == 1
        assert capped.now_us > capped.agent_stop[1]  # its company lived on after its agent stopped
    own = json.loads((tmp_path / "run" / "seats" / "1" / "result.json").read_text())
    listed = result.seats[1]
    reason = "horizon_end" if capped.status is Status.HORIZON else "bankruptcy"
    for record in (own, listed):
        assert (record["terminal_reason"], record["terminal_detail"], record["turns"]) == (reason, "max_turns", CAP)
    assert result.terminal_reason == "horizon_end"
    check = verify_run_dir(tmp_path / "run")
    assert check.ok, check.problems


@pytest.mark.parametrize("world", list(CASES))
def test_a_cut_off_arena_with_a_capped_seat_resumes_to_the_same_end(server, whole, world, tmp_path):
    """Cut after the capped seat's first answered call: the resume serves it, asks the rest live, reaches the same
    cap and plays the company on to the same end: every seat's log and record are the uninterrupted run's."""
    done = whole[world]
    cut = tmp_path / "cut"
    (cut / "seats" / "1").mkdir(parents=True)
    calls = (done / "seats" / "1" / "llm_calls.jsonl").read_text().splitlines(keepends=True)
    (cut / "seats" / "1" / "llm_calls.jsonl").write_text(calls[0])
    shutil.copy(RunDir(done).arena_spec, RunDir(cut).arena_spec)
    before = server.policy_calls
    execute(_spec(world, server.url), out=cut, resume=True)
    assert CAP - 1 == server.policy_calls - before
    for k in (0, 1):
        assert read_command_log(done / "seats" / str(k)) == read_command_log(cut / "seats" / str(k))
        a, b = (json.loads((d / "seats" / str(k) / "result.json").read_text()) for d in (done, cut))
        assert {**a, "wall_s": None} == {**b, "wall_s": None}
    a, b = (json.loads((d / "result.json").read_text()) for d in (done, cut))
    assert a["seats"] == b["seats"]
    assert verify_run_dir(cut).ok


def test_the_standings_say_the_agent_stopped_and_the_company_ran_on(whole, capsys):
    """The CLI's standings name a capped seat's stop and turns, and that its company ran on to the arena's end."""
    from bizsim.cli.run_arena import _print_standings

    record = json.loads((whole["vending-arena"] / "result.json").read_text())
    _print_standings(record, None)
    line = next(x for x in capsys.readouterr().out.splitlines() if "seat 1" in x)
    assert line.endswith(f"(agent stopped at its turn cap (max_turns) after {CAP} turns; the company ran on to "
                         "horizon end)")


def test_the_viewer_says_the_capped_seats_company_ran_on(whole):
    """The arena page's seat ending names both facts: how the company ended and why its agent stopped."""
    from bizsim.view.arena_data import arena_data

    seats = arena_data(whole["startup-arena"])["seats"]
    assert seats[0]["ending"] == "horizon end"
    assert seats[1]["ending"] == "bankruptcy (its agent stopped by its turn cap (max_turns); the company ran on)"


@pytest.mark.parametrize("world", ["vending", "startup"])
def test_a_one_seat_arena_with_a_capped_agent_is_the_base_world_with_it(server, world):
    """Alone in its arena a seat is its base world: the cap ends it (status error), as it ends the base world,
    with the same log and figures."""
    from bizsim.agents.llm import LiteLLMClient, LLMAgent
    from bizsim.models.startup import StartupWorld
    from bizsim.models.startup.arena import StartupArena
    from bizsim.models.vending import VendingWorld
    from bizsim.models.vending.arena import VendingArena

    def agent():
        client = LiteLLMClient("openai/capped", api_base=server.url, api_key="sk-test")
        return LLMAgent(client=client, model="openai/capped", max_turns=CAP)

    if world == "vending":
        arena, base = VendingArena("small", 4, seats=1), VendingWorld("small", 4)
    else:
        arena, base = StartupArena("default", 4, seats=1), StartupWorld("default", 4)
    arena.run([agent()])
    base.run(agent())
    base.env.run(until=base.finished)
    seat = arena.seats[0]
    assert (seat.status, seat.terminal_detail, seat.agent_stop) == (Status.ERROR, "max_turns", None)
    assert (base.status, base.terminal_detail) == (Status.ERROR, "max_turns")
    assert seat.command_log() == base.command_log() and len(base.command_log()) == CAP
    summary = dict(arena.summary()["seats"][0])
    assert (0, "error") == (summary.pop("seat"), summary.pop("status"))
    summary.pop("company", None)  # the startup arena's row names its company
    assert summary == base.summary()


def test_an_outside_seat_stopped_by_its_budget_plays_on_and_verifies(tmp_path: Path):
    """The play/MCP path: a startup-arena seat played from outside and stopped by --max-turns is retired; its
    company runs on beside its rival to the arena's end (its own horizon or bankruptcy); the directory verifies."""
    from bizsim.runs.budgets import Budgets
    from bizsim.runs.live_arena import ArenaEpisode

    out = tmp_path / "run"
    ep = ArenaEpisode("startup-arena", "default", 2, roster=["mcp", "greedy"], out=out, surface="mcp",
                      budgets=Budgets(max_turns=2))
    ep.call_line("company status")
    ep.call_line("sim resume")
    seat = ep.world
    arena = ep.unwrapped.arena
    assert ep.done and arena.done and seat.status in (Status.HORIZON, Status.BANKRUPT)
    assert seat.agent_stop is not None and seat.agent_stop[0].startswith("max_turns")
    assert seat.command_log()[-1][1] == "arena leave"
    ep.close()
    record = json.loads((out / "result.json").read_text())
    assert record["seats"][0]["terminal_reason"] in ("horizon_end", "bankruptcy")
    assert "max_turns" in record["seats"][0]["terminal_detail"]
    check = verify_run_dir(out)
    assert check.ok, check.problems


@pytest.mark.parametrize("world, advance", [("vending-arena", "task_done"), ("startup-arena", "bot wait")])
def test_a_record_from_before_the_rule_whose_capped_seat_ended_still_replays(world, advance):
    """A directory recorded before capped seats were retired holds a seat ENDED by its agent's cap (status error)
    mid-arena, its log stopping there: ``replay_arena(..., stopped=)`` (what ``bizsim verify`` passes for a seat
    recorded ``error``) still ends it there and rebuilds that arena exactly."""
    from bizsim.agents.startup import greedy
    from bizsim.agents.vending import planner
    from bizsim.models.startup.arena import StartupArena
    from bizsim.models.vending.arena import VendingArena
    from bizsim.models.vending.arena_config import ARENA_PRESETS
    from bizsim.simcore.arena_replay import replay_arena
    from bizsim.simcore.testing._guards import state_text
    from bizsim.simcore.world import World

    if world == "vending-arena":
        def make():
            return VendingArena(attrs.evolve(ARENA_PRESETS["small"], horizon_days=20), 5, seats=2)
        rival = planner
    else:
        def make():
            return StartupArena("default", 4, seats=2)
        rival = greedy

    def ended_by_its_cap(seat):
        for _ in range(2):
            yield seat.execute(advance, allow_hidden=True)
        World.abort(seat, "max_turns")  # what a seat's abort did then: the seat ended, its figures frozen

    old = make()
    old.run([rival, ended_by_its_cap])
    assert old.seats[1].status is Status.ERROR and old.seats[0].status is Status.HORIZON
    again = replay_arena(make, old.command_logs(), stopped={1: "max_turns"})
    assert (again.seats[1].status, again.seats[1].terminal_detail) == (Status.ERROR, "max_turns")
    assert state_text(again) == state_text(old)
    assert [s.trajectory.to_jsonl() for s in again.seats] == [s.trajectory.to_jsonl() for s in old.seats]


def test_when_every_agent_stops_by_its_cap_the_arena_holds_there_and_replays():
    """Two seats whose agents both stop by their caps: each is retired, the first one's company plays on while the
    other agent plays; once the last has stopped the arena holds where it stands (as when every agent returned), no
    seat ended, both at the same instant, and the logs replay to that very turn."""
    from bizsim.models.vending.arena import VendingArena
    from bizsim.models.vending.arena_config import ARENA_PRESETS
    from bizsim.simcore.arena_replay import replay_arena
    from bizsim.simcore.testing._guards import state_text

    def make():
        return VendingArena(attrs.evolve(ARENA_PRESETS["small"], horizon_days=20), 6, seats=2)

    def capped(days):
        def play(seat):
            for _ in range(days):
                yield seat.execute("task_done")
            seat.abort("max_turns")
        return play

    arena = make()
    arena.run([capped(2), capped(5)])
    first, last = arena.seats
    assert not arena.done and not first.done and not last.done
    assert (first.agent_stop, last.agent_stop) == (("max_turns", 2 * 86_400_000_000), ("max_turns", 5 * 86_400_000_000))
    assert first.day == last.day == 5 and len(first.command_log()) == 5  # 2 its agent's, 3 the arena's
    again = replay_arena(make, arena.command_logs())
    assert state_text(again) == state_text(arena)


def test_an_agent_of_your_own_that_stops_by_its_cap_is_retired_and_its_record_says_so(tmp_path):
    """Any agent that calls ``seat.abort(detail)`` with rivals retires its seat: the run's seat record names the
    detail, its company reaches the horizon with its rival's, and the directory verifies."""
    from bizsim.runs.roster import Seat

    spec = RunSpec("vending-arena", "small", seed=3, overrides={"horizon_days": 12},
                   roster=["markup", Seat("tests.test_arena_capped_seat:own_capped")])
    result = execute(spec, out=tmp_path / "run")
    assert [s["terminal_reason"] for s in result.seats] == ["horizon_end", "horizon_end"]
    assert (result.seats[1].get("terminal_detail"), result.seats[1]["turns"]) == ("my_budget", 2)
    assert result.final_world.seats[1].day == 12
    assert verify_run_dir(tmp_path / "run").ok


def own_capped(seat):
    """An agent of one's own with its own budget: two days, then it stops itself."""
    for _ in range(2):
        yield seat.execute("task_done")
    seat.abort("my_budget")
