"""A live arena episode (runs.live_arena): one seat played from outside, the others by built-in agents, recorded
as it goes into one arena run directory that bizsim verify replays, finished or stopped, and that resumes."""

from __future__ import annotations

import json

import pytest

from bizsim.runs import RunSpec, execute
from bizsim.runs.live_arena import ArenaEpisode
from bizsim.runs.rundir import RunDir
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError

SHORT = {"horizon_days": 8}


def _files(root):
    """Every log and the seats' figures of an arena run directory, as text (wall time and live counters left out)."""
    run = RunDir(root)
    out = {"arena": run.trajectory.read_text()}
    for k, seat in enumerate(run.seat_dirs()):
        record = {key: v for key, v in json.loads(seat.result.read_text()).items() if key not in ("wall_s", "agent")}
        out[f"seat {k}"] = (seat.commands.read_text(), seat.trajectory.read_text(), record)
    return out


def test_an_outside_seat_playing_a_built_in_agents_lines_records_that_arena_run(tmp_path):
    """Seat 1 played through the episode with exactly the lines markup sent in `bizsim run`: every seat's command
    log and trajectory, and the arena's events, are the same bytes as the all-inside run directory's."""
    roster = ["planner", "markup", "planner"]
    execute(RunSpec("vending-arena", "small", seed=3, roster=roster, overrides=SHORT), out=tmp_path / "inside")
    lines = [json.loads(x)["line"] for x in (RunDir(tmp_path / "inside").seat(1).commands.read_text().splitlines())]
    ep = ArenaEpisode("vending-arena", "small", 3, roster=["planner", "mcp", "planner"], overrides=SHORT,
                      out=tmp_path / "live", surface="mcp")
    for line in lines:
        assert ep.call_line(line).status in (0, 1)
    assert ep.done
    ep.close()
    inside, live = _files(tmp_path / "inside"), _files(tmp_path / "live")
    assert inside == live
    result = json.loads((tmp_path / "live" / "result.json").read_text())
    assert [s["agent"] for s in result["seats"]] == ["planner", "mcp", "planner"]
    assert result["live"]["surface"] == "mcp" and result["live"]["outside_seat"] == 1 and not result["live"]["open"]
    assert verify_run_dir(tmp_path / "live").problems == ()


@pytest.mark.slow
def test_startup_arena_through_the_episode_records_the_all_inside_run(tmp_path):
    """Event time: a company played through the episode with the planner's lines (every one a visible command)
    records the same arena directory as the planner inside, against a greedy rival, over its whole year."""
    execute(RunSpec("startup-arena", "default", seed=2, roster=["planner", "greedy"]), out=tmp_path / "inside")
    lines = [json.loads(x)["line"] for x in (RunDir(tmp_path / "inside").seat(0).commands.read_text().splitlines())]
    ep = ArenaEpisode("startup-arena", "default", 2, roster=["mcp", "greedy"], out=tmp_path / "live", surface="mcp")
    for line in lines:
        assert ep.call_line(line).status in (0, 1)
    assert ep.done
    ep.close()
    assert _files(tmp_path / "inside") == _files(tmp_path / "live")
    assert verify_run_dir(tmp_path / "live").problems == ()


@pytest.mark.parametrize("world, roster, lines", [
    ("vending-arena", ["human", "markup"], ["messages_read", "market_view", "message_send --to 1 --text hi",
                                            "task_done"]),
    ("startup-arena", ["greedy", "human", "random"], ["company status", "arena companies", "message inbox",
                                                      "message send --to 0 --text hello"]),
])
def test_stopped_mid_way_it_verifies_and_resumes_to_the_end(tmp_path, world, roster, lines):
    """A player's few calls, then the session closes: verify replays the directory to that point; resume rebuilds
    the arena (rivals started again, the seat's lines fed back) and the run plays on to a verified end."""
    out = tmp_path / "run"
    preset, overrides = ("small", SHORT) if world == "vending-arena" else ("default", {})
    ep = ArenaEpisode(world, preset, 2, roster=roster, overrides=overrides, out=out, surface="play", agent="human")
    for line in lines:
        assert ep.call_line(line).status == 0, line
    mine = ep.world.command_log()
    ep.close("the player stopped")
    record = json.loads((out / "result.json").read_text())
    assert record["terminal_reason"] == "agent_stopped" and record["live"]["calls"] == len(lines)
    assert verify_run_dir(out).problems == ()
    again = ArenaEpisode.resume(out, surface="play")
    assert again.world.command_log() == mine and again.calls == len(lines)
    if world == "vending-arena":
        while not again.done:
            again.call_line("task_done")
        view = again.arena_view()
        assert view["over"] and len(view["standings"]) == 2
    else:
        again.call_line("company status")
        assert not again.done
        assert again.arena_view()["standings"] is None  # rivals' figures stay private while the arena goes on
    again.close()
    assert verify_run_dir(out).problems == ()


def test_a_tampered_log_does_not_resume(tmp_path):
    out = tmp_path / "run"
    ep = ArenaEpisode("vending-arena", "small", 1, roster=["mcp", "planner"], overrides=SHORT, out=out, surface="mcp")
    ep.call_line("task_done")
    ep.close("stop")
    log = RunDir(out).seat(1).commands
    log.write_text(log.read_text().replace("products_research", "products_research --query x", 1))
    with pytest.raises(ConfigError, match=str(out)):
        ArenaEpisode.resume(out, surface="mcp")


def test_the_arena_view_names_seats_and_hides_rivals_figures_until_the_end(tmp_path):
    ep = ArenaEpisode("vending-arena", "small", 4, roster=["planner", "markup", "human"], overrides={"horizon_days": 2},
                      surface="play", agent="human")
    view = ep.arena_view()
    assert view["seat"] == 2 and [p["label"] for p in view["players"]] == ["planner", "markup", "human"]
    assert view["standings"] is None and view["to_move"] == 2
    assert "metric_value" not in json.dumps(ep.observation())  # the seat's own observation names no rival figure
    ep.call_line("task_done")
    ep.call_line("task_done")
    assert ep.done and [s["seat"] for s in ep.arena_view()["standings"]] != []


@pytest.mark.parametrize("roster, surface, agent, match", [
    (["planner", "markup"], "mcp", None, "no seat of the roster is played from outside"),
    (["mcp", "mcp"], "mcp", None, r"seats \[0, 1\] are all 'mcp'"),
    (["human", "markup"], "mcp", None, "a seat bizsim play plays"),
    (["mcp", "markup", "markup", "markup", "markup", "markup", "markup", "markup", "markup"], "mcp", None,
     "seats 2 to 8 agents"),
    (["mcp"], "mcp", None, "seats 2 to 8 agents"),
    (["mcp", "llm:model=openai/x"], "mcp", None, "LLM agents"),
    (["mcp:depth=2", "markup"], "mcp", None, "takes no options"),
    (["mcp", "nonesuch"], "mcp", None, "nonesuch"),
])
def test_clear_refusals(roster, surface, agent, match):
    with pytest.raises(ConfigError, match=match):
        ArenaEpisode("vending-arena", "small", 1, roster=roster, surface=surface, agent=agent)


def test_a_seat_played_from_outside_is_refused_by_bizsim_run(tmp_path):
    with pytest.raises(ConfigError, match="nobody to play it: play it with bizsim play"):
        execute(RunSpec("vending-arena", "small", seed=1, roster=["human", "planner"]), out=tmp_path / "r")
    assert not (tmp_path / "r" / "result.json").exists()


def test_a_killed_process_loses_nothing(tmp_path):
    """Never closed (the process killed: the kernel drops its lock), the arena directory verifies as it stood after
    the last answered call, and resumes there."""
    out = tmp_path / "run"
    ep = ArenaEpisode("vending-arena", "small", 6, roster=["markup", "mcp"], overrides=SHORT, out=out, surface="mcp")
    for line in ["products_research --query soda", "task_done", "messages_read", "task_done"]:
        ep.call_line(line)
    ep.unwrapped.release()  # what the kernel does to a killed process's lock; nothing else is written
    record = json.loads((out / "result.json").read_text())
    assert record["live"]["open"] and record["live"]["calls"] == 4
    assert verify_run_dir(out).problems == ()
    again = ArenaEpisode.resume(out, surface="mcp")
    assert again.calls == 4 and again.world.day == ep.world.day
    assert [p[0] for p in again.unwrapped.replayed_points] == ["2025-01-01T00:00:00", "2025-01-02T00:00:00"]
    again.close()


def test_a_budget_ends_the_outside_seat_and_the_rivals_play_on(tmp_path):
    """--max-turns reached: the outside seat is retired as an LLM seat's cap retires it: its company runs on
    without an agent to the arena's end beside its rivals (no figures frozen at the stop), its record names the
    budget, its log ends with the turns the arena ended for it, and the directory verifies."""
    from bizsim.runs.budgets import Budgets

    out = tmp_path / "run"
    ep = ArenaEpisode("vending-arena", "small", 3, roster=["planner", "mcp", "markup"], overrides=SHORT, out=out,
                      surface="mcp", budgets=Budgets(max_turns=3))
    for _ in range(3):
        ep.call_line("task_done")
    arena = ep.unwrapped.arena
    assert ep.done and arena.done and ep.world.status.value == "horizon_reached"
    assert ep.world.day == arena.day == arena.horizon_days and ep.world.agent_stop[0].startswith("max_turns")
    log = ep.world.command_log()
    assert len(log) == arena.horizon_days and {line for _, line in log} == {"task_done"}  # 3 played, the rest the arena's
    assert ep.call_line("task_done")  # refused: the seat is stopped (nothing recorded)
    assert ep.world.command_log() == log
    ep.close()
    record = json.loads((out / "result.json").read_text())
    seat = record["seats"][1]
    assert seat["terminal_reason"] == "horizon_end" and "max_turns" in seat["terminal_detail"]
    assert record["terminal_reason"] == "horizon_end"
    assert verify_run_dir(out).problems == ()


@pytest.mark.parametrize("edit, words", [
    (lambda r: r.update(seats="x"), "must be a list"),
    (lambda r: r["seats"][1].update(agent=[1, 2]), "unknown agent"),
    (lambda r: r["seats"][1].update(label="x" * 10_000), "at most 200 characters"),
    (lambda r: r["live"].update(outside_seat="0"), "holds no live arena episode"),
    (lambda r: r.update(seats=r["seats"] * 40), "lists 80 seats"),
    (lambda r: r["seats"][1].update(agent="llm", options={"model": "openai/x"}), "LLM agents"),
    (lambda r: r["seats"][1].update(agent="planner"), "do not replay"),
])
def test_an_edited_result_does_not_resume(tmp_path, edit, words):
    """result.json is read as untrusted: an edited seats list or live part is a ConfigError naming what is wrong."""
    out = tmp_path / "run"
    ep = ArenaEpisode("vending-arena", "small", 1, roster=["mcp", "markup"], overrides=SHORT, out=out, surface="mcp")
    ep.call_line("task_done")
    ep.close("stop")
    record = json.loads((out / "result.json").read_text())
    edit(record)
    (out / "result.json").write_text(json.dumps(record))
    with pytest.raises(ConfigError, match=words):
        ArenaEpisode.resume(out, surface="mcp")


class _Killed(BaseException):
    """The process dies here (a BaseException, so no handler on the way out writes anything more)."""


@pytest.mark.parametrize("roster", [["planner", "mcp"], ["mcp", "planner", "markup"]])
def test_a_kill_between_the_logs_of_one_checkpoint_still_resumes(tmp_path, monkeypatch, roster):
    """A checkpoint appends each log in turn: killed after any of them (seats' logs then disagree on where the run
    stands), the directory still resumes, and the resumed run carries on as one never killed does."""
    from bizsim.runs import live_arena_recorder

    lines = ["products_research --query water", "task_done", "messages_read", "task_done"]
    whole = ArenaEpisode("vending-arena", "small", 2, roster=roster, overrides=SHORT, surface="mcp")
    for line in lines:
        whole.call_line(line)
    real = live_arena_recorder._append
    kill_at = 0
    while True:  # killed at the 1st append of the call's checkpoint, the 2nd..., until the call gets through
        kill_at += 1
        out = tmp_path / f"kill{kill_at}"
        ep = ArenaEpisode("vending-arena", "small", 2, roster=roster, overrides=SHORT, out=out, surface="mcp")
        for line in lines[:-1]:
            ep.call_line(line)
        appended = [0]

        def dying(fh, text, fsync, _at=kill_at, _n=appended):
            _n[0] += 1
            if _n[0] == _at:
                raise _Killed
            real(fh, text, fsync)

        monkeypatch.setattr(live_arena_recorder, "_append", dying)
        try:
            ep.call_line(lines[-1])
        except _Killed:
            pass
        else:
            ep.close()
            break
        finally:
            monkeypatch.setattr(live_arena_recorder, "_append", real)
        ep.unwrapped.release()  # what the kernel does to a killed process's lock
        again = ArenaEpisode.resume(out, surface="mcp")
        if again.world.day < whole.world.day:
            again.call_line(lines[-1])  # the killed call, lost with its logs: sent again
        assert again.arena.command_logs() == whole.arena.command_logs(), kill_at
        again.close()
    assert kill_at > 1 + len(roster)  # the arena's log and at least one per seat were cut in turn


@pytest.mark.parametrize("hidden", ["bot wait", "bot take --task-id Task-139"])
def test_a_hidden_command_written_into_the_outside_seats_log_does_not_resume(tmp_path, hidden):
    """The surface refuses the built-in agents' hidden commands to the outside seat; one written into its log by hand
    must not run on resume (it would: a month skipped with nothing active), as a single-agent resume refuses it."""
    out = tmp_path / "run"
    ep = ArenaEpisode("startup-arena", "default", 2, roster=["greedy", "mcp"], out=out, surface="mcp")
    assert ep.call_line(hidden).status == 2  # refused as unknown, not recorded
    ep.call_line("market browse")
    ep.close("stop")
    log = RunDir(out).seat(1).commands
    log.write_text(log.read_text() + json.dumps({"t_us": 0, "line": hidden}) + "\n")
    with pytest.raises(ConfigError, match="do not replay"):
        ArenaEpisode.resume(out, surface="mcp")


def test_verify_names_a_hidden_command_written_into_the_outside_seats_log(tmp_path):
    """The replay would run it (built-in agents may issue hidden commands), so verify checks the log of a seat
    played from outside for them by name: its surface never lets one through."""
    out = tmp_path / "run"
    ep = ArenaEpisode("startup-arena", "default", 2, roster=["greedy", "mcp"], out=out, surface="mcp")
    ep.call_line("market browse")
    ep.close("stop")
    assert verify_run_dir(out).problems == ()
    log = RunDir(out).seat(1).commands
    log.write_text(log.read_text() + json.dumps({"t_us": 0, "line": "bot wait"}) + "\n")
    problems = verify_run_dir(out).problems
    assert any("seat 1" in p and "hidden command 'bot wait'" in p for p in problems), problems


def test_a_resume_never_writes_through_a_link_planted_at_a_seats_log(tmp_path):
    """A played arena directory may come from anyone: a link at a seat's trajectory.jsonl (not read on resume) must
    not make the resumed run write into the file it points to."""
    out, victim = tmp_path / "run", tmp_path / "victim.txt"
    ep = ArenaEpisode("vending-arena", "small", 1, roster=["mcp", "planner"], overrides=SHORT, out=out, surface="mcp")
    ep.call_line("task_done")
    ep.close("stop")
    victim.write_text("precious\n")
    for log in (RunDir(out).seat(1).trajectory, RunDir(out).trajectory):
        log.unlink()
        log.symlink_to(victim)
    again = ArenaEpisode.resume(out, surface="mcp")
    again.call_line("task_done")
    again.close()
    assert "precious\n" == victim.read_text()
    assert verify_run_dir(out).problems == ()


@pytest.mark.parametrize("world, roster, line, preset", [
    ("vending-arena", ["mcp", "planner", "markup"], "task_done", "small"),
    ("startup-arena", ["mcp", "greedy"], "sim resume", "default"),
])
def test_ctrl_c_while_the_rivals_play_leaves_a_run_that_resumes(tmp_path, world, roster, line, preset):
    """Ctrl-C (or SIGTERM, which bizsim play turns into it) lands while the rivals play their turns after the seat's
    advance, and the session closes: the directory is left as the last answered call left it (the rivals' turns half
    played would neither verify nor resume); it verifies, resumes, and plays on as a run never interrupted does."""
    overrides = SHORT if world == "vending-arena" else {}
    opening = ["market browse", "task accept --task-id Task-184", "task assign --task-id Task-184 --employees "
               "Emp_1,Emp_2,Emp_3", "task dispatch --task-id Task-184"] if world == "startup-arena" else []
    whole = ArenaEpisode(world, preset, 3, roster=roster, overrides=overrides, surface="mcp")
    for sent in [*opening, line, line]:
        whole.call_line(sent)
    steps = 0
    while True:  # interrupted after 1 step of the environment, then 2..., until the advance gets through
        steps += 1
        out = tmp_path / f"stop{steps}"
        ep = ArenaEpisode(world, preset, 3, roster=roster, overrides=overrides, out=out, surface="mcp")
        for sent in opening:
            ep.call_line(sent)
        env, step, taken = ep.arena.env, ep.arena.env.step, [0]

        def interrupted(_step=step, _taken=taken, _at=steps):
            _taken[0] += 1
            if _taken[0] == _at:
                raise KeyboardInterrupt
            _step()

        env.step = interrupted
        try:
            ep.call_line(line)
        except KeyboardInterrupt:
            pass
        else:
            ep.close()
            break
        ep.close("interrupted")  # what bizsim play does on Ctrl-C
        assert verify_run_dir(out).problems == (), steps
        again = ArenaEpisode.resume(out, surface="mcp")
        while len(again.world.command_log()) < len(whole.world.command_log()):
            again.call_line(line)  # the interrupted advance, if the directory kept the call before it, then one more
        assert again.arena.command_logs() == whole.arena.command_logs(), steps
        again.close()
        if steps > 40:
            break
    assert steps > 2
