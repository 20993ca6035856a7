"""The operation world through its commands: budget, reports, baselines, check_world, the CLI."""

from __future__ import annotations

import json

import pytest
import simpy

from bizsim.agents import AGENTS, make_agent
from bizsim.agents.operation.baselines import OPERATION_ACTIONS, always, threshold
from bizsim.runs import run_episode
from bizsim.cli import main
from bizsim.models import make_world, world_presets
from bizsim.models.operation import ACTIONS, ROLE, SYSTEM_PROMPT, OperationWorld
from bizsim.simcore import Status
from bizsim.simcore.check import check_world
from bizsim.simcore.driver import Driver


def end_day(world: OperationWorld) -> dict:
    """``task_done`` and run to the report."""
    ev = world.execute("task_done", driven=True)
    assert isinstance(ev, simpy.Event)
    world.env.run(until=ev)
    return ev.value


@pytest.fixture
def op() -> OperationWorld:
    """A fresh operation world, preset ``default``, seed 1."""
    return OperationWorld("default", 1)


def test_tools_are_the_reference_tools(op):
    """The agent's tools are the reference's five, none with arguments, plus bizsim's free ``help``."""
    schemas = op.commands.tool_schemas()
    assert [*ACTIONS, "task_done", "help"] == [s["function"]["name"] for s in schemas]
    assert all({} == s["function"]["parameters"]["properties"] for s in schemas[:5])
    assert ACTIONS == OPERATION_ACTIONS


def test_one_action_a_day_then_the_day_is_over(op):
    """The budget is one accepted action; later actions that day are refused and change nothing."""
    assert "error" not in op.execute("creator_incentive", driven=True)
    before = op.state()
    refused = op.execute("moderation_tighten", driven=True)
    assert "Day 0 is over" in refused["error"]
    assert before == op.state()
    assert 1 == end_day(op)["current_day"]
    assert "error" not in op.execute("moderation_tighten", driven=True)


def test_help_is_free(op):
    """``help`` lists the tools and uses no action, even once the day's action is taken."""
    assert "creator_incentive" in op.execute("help", driven=True)["help"]
    assert "task_done" in op.execute("help --command task_done", driven=True)["help"]
    assert 1 == op.actions_left
    op.execute("engagement_tune", driven=True)
    assert "error" not in op.execute("help", driven=True)
    assert "Unknown command" in op.execute("help --command pivot", driven=True)["error"]


def test_refused_lines_are_errors_that_change_nothing(op):
    """Arguments to argument-less tools, unknown tools and garbage are refused."""
    before = op.state()
    for line in ("creator_incentive --boost 3", "acquisition boost", "sim resume", "task_done --now", "", "'"):
        out = op.execute(line, driven=True)
        assert isinstance(out, dict) and out["error"], line
    assert before == op.state()
    assert 1 == op.actions_left


def test_task_done_report_fields(op):
    """The report has the reference's fields."""
    op.execute("engagement_tune", driven=True)
    report = end_day(op)
    assert {"status", "current_day", "events", "current_state", "summary"} == set(report)
    assert {"dau", "dau_change", "retained_users", "new_users", "churned_users", "retention_rate", "content_created",
            "content_decayed"} == set(report["events"])
    assert {"dau", "content_volume", "content_quality", "creator_activity", "engagement_level"} == set(
        report["current_state"])
    assert report["events"]["dau"] == report["events"]["retained_users"] + report["events"]["new_users"]


def test_action_result_fields(op):
    """Each action returns the reference's result fields."""
    fields = {
        "acquisition_boost": {"new_users_acquired"},
        "engagement_tune": {"engagement_level", "content_quality"},
        "creator_incentive": {"creator_activity", "activity_boost_applied", "content_added", "total_content"},
        "moderation_tighten": {"content_quality", "quality_boost_applied", "content_removed", "remaining_content",
                               "creator_activity", "creator_penalty_applied"},
    }
    for action, keys in fields.items():
        out = op.call(action)
        assert {"status", "action", *keys} == set(out)
        end_day(op)


def test_tool_calls_work_like_lines(op):
    """``execute_tool`` takes the reference's tool calls, ``{}`` arguments included."""
    out = op.execute_tool("creator_incentive", {}, driven=True)
    assert "success" == out["status"]
    ev = op.execute_tool("task_done", None, driven=True)
    op.env.run(until=ev)
    assert 1 == op.day


def test_driver_steps_days(op):
    """The inbox driver runs a day per ``task_done``."""
    d = Driver(op)
    d.push("creator_incentive")
    d.push("task_done")
    results = d.step()
    assert 2 == len(results) and 1 == results[1]["current_day"]


@pytest.mark.parametrize("name", sorted(set(AGENTS["operation"]) - {"llm"}))  # llm needs a model
def test_check_world_with_every_baseline(name):
    """The kernel's contract holds for the operation world and each of its baselines."""
    check_world(lambda seed: OperationWorld("default", seed), make_agent("operation", name), seeds=(3,))


def test_check_world_with_the_probe_on_every_preset():
    """The generic probe agent passes on every preset."""
    for preset in world_presets("operation"):
        check_world(lambda seed, p=preset: OperationWorld(p, seed), seeds=(1,))


def test_baselines_rank_as_expected():
    """Threshold beats round-robin beats doing one thing; everyone completes the year on ``default``."""
    scores = {}
    for name in ("threshold", "round-robin", "always-creator_incentive", "always-engagement_tune"):
        result = run_episode("operation", "default", name, seed=2)
        assert "horizon_end" == result.terminal_reason and 365 == result.summary["days"]
        scores[name] = result.summary["metric_value"]
    assert scores["threshold"] > scores["round-robin"] > scores["always-creator_incentive"] > scores[
        "always-engagement_tune"]


def test_threshold_agent_moderates_when_quality_is_low():
    """It plays creator_incentive before any report and while quality >= 0.45, moderation below."""
    w = OperationWorld("default", 4)
    w.run(threshold)
    actions = [r[1] for r in w.action_history]
    quality = [None] + [r[6] for r in w.dau_history]
    assert "creator_incentive" == actions[0]
    for day in range(1, 365):
        expected = "moderation_tighten" if quality[day] < 0.45 else "creator_incentive"
        assert expected == actions[day], day


def test_always_agent_rejects_unknown_actions():
    """``always`` needs one of the four actions."""
    with pytest.raises(ValueError, match="must be one of"):
        always("pivot")


def test_hard_preset_collapses_an_idle_platform():
    """On ``hard``, doing nothing collapses the platform; the threshold agent survives the year."""
    idle = OperationWorld("hard", 1)

    def nothing(world):
        while not world.done:
            yield world.advance()

    idle.run(nothing)
    s = idle.summary()
    assert Status.COLLAPSED is idle.status and s["collapsed"]
    assert s["horizon_mean_dau"] == sum(s["daily_dau"]) / 365 < s["mean_dau"]
    assert "horizon_end" == run_episode("operation", "hard", "threshold", seed=1).terminal_reason


def test_a_platform_that_starts_below_the_threshold_is_over_before_day_0():
    """As the reference checks before its first step: a custom start under ``collapse_dau`` ends at once."""
    import attrs

    from bizsim.models.operation import preset

    w = OperationWorld(attrs.evolve(preset("reference"), initial_dau=60), 1)
    assert (Status.COLLAPSED, 0, []) == (w.status, w.day, w.invariants())
    assert "ended" in w.execute("creator_incentive", driven=True)["error"]
    assert (0, True) == (w.summary()["days"], w.summary()["collapsed"])


def test_system_prompt_has_role_and_budget(op):
    """The prompt is the role line and the shared rules with the budget filled in."""
    assert op.system_prompt().startswith(ROLE)
    assert "at most 1 actions a day" in SYSTEM_PROMPT and "task_done" in SYSTEM_PROMPT


def test_make_world_and_versioned_id():
    """The registry builds the world by name and versioned id."""
    assert "operation-v1" == make_world("operation-v1", "easy", 3).benchmark_id


def test_cli_run_prints_the_metric(capsys):
    """``bizsim run operation`` prints the mean DAU; ``--json`` has the metric and the daily series."""
    assert 0 == main(["run", "operation", "--agent", "threshold", "--seed", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert "operation-v1" in out and "mean daily active users:" in out
    assert 0 == main(["run", "operation", "--agent", "round-robin", "--preset", "reference", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert ("mean_dau", 365) == (d["metric"], len(d["daily_dau"]))
    assert d["metric_value"] == sum(d["daily_dau"]) / 365


def test_cli_shell_plays_a_day(monkeypatch, capsys):
    """``bizsim shell operation`` answers commands typed on stdin."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("creator_incentive\ntask_done\nquit\n"))
    assert 0 == main(["shell", "operation", "--seed", "3"])
    out = capsys.readouterr().out
    assert '"current_day": 1' in out


def test_cli_refuses_bad_agent_options(capsys):
    """An unknown agent option exits 2 with one line."""
    assert 2 == main(["run", "operation", "--agent", "threshold", "--agent-opt", "nope=1"])
    assert "has no option" in capsys.readouterr().err
