"""The freelance world through its tools: formulas, limits, pool, termination, burnout, agents, check_world, CLI."""

from __future__ import annotations

import json

import attrs
import pytest
from bizsim.agents import AGENTS, make_agent
from bizsim.runs import run_episode
from bizsim.cli import main
from bizsim.models import make_world, world_presets
from bizsim.models.freelance import PRESETS, ROLE, FreelanceConfig, FreelanceWorld, Task
from bizsim.models.freelance.answers import Answer
from bizsim.simcore import Status
from bizsim.simcore.check import check_world

from ._ecogym import end_day, play

TOOLS = ["tasks_browse", "task_inspect", "tasks_discover", "solution_submit", "energy_restore", "task_done"]


@pytest.fixture
def fw() -> FreelanceWorld:
    """A fresh freelance world, preset ``default``, seed 1."""
    return FreelanceWorld("default", 1)


def pool_ids(world: FreelanceWorld) -> list[str]:
    """Task ids listed by ``tasks_browse`` (uses an action)."""
    return [t["task_id"] for t in world.call("tasks_browse")["tasks"]]


def put_task(world: FreelanceWorld, effort: float = 5.0, category: str = "Math_Logic") -> str:
    """Pool a known task (answer '42', $10.00) outside the rules, for formula tests."""
    tid = 0
    task = Task(tid, category, "Medium", "What is 6 x 7?", Answer("number", "42", 42.0, 0.5), 1000, effort)
    world.tasks._tasks[tid] = task
    world.quotes[tid] = (1000, effort)
    world.end_days[tid] = world.day + 5
    world.pool.append(tid)
    return str(tid)


def test_tools_are_the_reference_tools(fw):
    """The reference's six tools, in its order, plus bizsim's free ``help``; arguments as the reference names them."""
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in fw.commands.tool_schemas()}
    assert [*TOOLS, "help"] == list(schemas)
    assert ["task_id"] == schemas["task_inspect"]["required"]
    assert ["task_id", "solution_text"] == schemas["solution_submit"]["required"]
    assert ["free", "paid"] == schemas["tasks_discover"]["properties"]["refresh_type"]["enum"]
    assert ["low", "medium", "high"] == schemas["energy_restore"]["properties"]["level"]["enum"]


def test_initial_state_and_empty_pool(fw):
    """$1000, energy 80, stress 10, skill 60, an empty pool."""
    assert (100_000, 80, 10, 60.0) == (fw.money_cents, fw.energy, fw.stress, fw.avg_skill())
    assert "empty" == fw.call("tasks_browse")["status"]


def test_discovery_costs_and_counts(fw):
    """Free: -8 energy, +1 stress, 4 tasks. Paid: -$2, -5 energy, +3 stress, 6 tasks. Fields as the reference."""
    out = fw.call("tasks_discover", refresh_type="free")
    assert {"status", "added_count", "current_pool_size", "message"} == set(out)
    assert (4, 72, 11, 100_000) == (out["added_count"], fw.energy, fw.stress, fw.money_cents)
    out = fw.call("tasks_discover", refresh_type="paid")
    assert (6, 67, 14, 99_800) == (out["added_count"], fw.energy, fw.stress, fw.money_cents)


def test_pool_cap_evicts_the_oldest(fw):
    """Above 10 tasks the oldest leave; browse shows the reference's fields."""
    fw.call("tasks_discover", refresh_type="paid")
    first = list(fw.pool)
    fw.call("tasks_discover", refresh_type="paid")
    assert 10 == len(fw.pool) and first[2:] == fw.pool[:4]
    listing = fw.call("tasks_browse")
    assert {"task_id", "category", "complexity", "status", "days_left", "estimated_payment"} == set(listing["tasks"][0])


def test_submission_formulas_match_the_reference_vector(fw):
    """Effort 5, skill 60: 5 energy; success nets -1 stress and skill 61.88; failure nets +12 stress, skill 58."""
    cfg = attrs.evolve(PRESETS["reference"])
    w = FreelanceWorld(cfg, 1)
    tid = put_task(w)
    out = w.call("solution_submit", task_id=tid, solution_text="42")
    assert {"status", "is_success", "execution_stats", "settlement", "message"} == set(out)
    assert (True, 5, 9, 61.88) == (out["is_success"], out["execution_stats"]["energy_consumed"], w.stress,
                                   w.skills["Math_Logic"])
    assert (10.0, 1010.0) == (out["settlement"]["final_payment"], out["settlement"]["current_balance"])
    w2 = FreelanceWorld(cfg, 1)
    tid = put_task(w2)
    out = w2.call("solution_submit", task_id=tid, solution_text="41")
    assert (False, 75, 22, 58.0, 0.0) == (out["is_success"], w2.energy, w2.stress, w2.skills["Math_Logic"],
                                          out["settlement"]["final_payment"])
    assert tid not in pool_ids(w2) and 0 in w2.submitted


def test_at_most_three_submissions_a_day():
    """The fourth submission of a day is blocked (no change, no action used); the next day it works."""
    fw = FreelanceWorld(attrs.evolve(PRESETS["default"], daily_budget=10), 1)
    fw.call("tasks_discover", refresh_type="paid")
    ids = pool_ids(fw)
    for tid in ids[:3]:
        assert "error" not in play(fw, f"solution_submit --task-id {tid} --solution-text x")
    before = fw.state()
    out = play(fw, f"solution_submit --task-id {ids[3]} --solution-text x")
    assert "blocked" == out["status"] and "3 submissions" in out["error"] and before == fw.state()
    assert "daily_limit_reached" == out["reason"]  # the reference's reason
    end_day(fw)
    assert "error" not in play(fw, f"solution_submit --task-id {ids[3]} --solution-text x")


def test_empty_and_oversized_submissions_are_refused(fw):
    """Whitespace-only and over-long solutions get clear errors and change nothing.

    The world's own refusals carry the reference's ``status: "error"`` beside ``error`` and ``hint``."""
    tid = put_task(fw)
    before = fw.state()
    out = fw.execute_tool("solution_submit", {"task_id": tid, "solution_text": "  \n"}, driven=True)
    assert "empty" in out["error"] and "error" == out["status"]
    out = fw.execute_tool("solution_submit", {"task_id": tid, "solution_text": "9" * 20_001}, driven=True)
    assert "20,001 characters" in out["error"] and "20,000" in out["error"] and "error" == out["status"]
    out = fw.execute_tool("solution_submit", {"task_id": tid, "solution_text": "9" * 1_000_001}, driven=True)
    assert "limit is 1000000" in out["error"]
    out = fw.execute_tool("task_inspect", {"task_id": "nope"}, driven=True)
    assert "not in your active pool" in out["error"] and "error" == out["status"]
    assert "error" == fw.execute_tool("solution_submit", {"task_id": "99", "solution_text": "1"}, driven=True)["status"]
    assert before == fw.state()


def test_inspect_shows_the_question_not_the_answer(fw):
    """``task_inspect`` gives the reference's fields; the answer is nowhere in it."""
    fw.call("tasks_discover", refresh_type="free")
    tid = pool_ids(fw)[0]
    out = fw.call("task_inspect", task_id=tid)
    assert {"status", "task_id", "category", "complexity", "init_payment", "init_effort", "question", "end_day",
            "message"} == set(out)
    assert "selected" == out["status"] and not [k for k in out if "answer" in k]


def test_rest_tiers_are_the_applied_values(fw):
    """low $15 +20/-10, medium $20 +30/-20, high $45 +40/-30; energy capped at 100, stress floored at 0."""
    out = fw.call("energy_restore", level="low")
    assert "relax_low" == out["action"]  # the reference's action name
    assert (-15.0, 20, -10) == tuple(out["changes"].values()) and (98_500, 100, 0) == (fw.money_cents, fw.energy,
                                                                                        fw.stress)
    out = fw.call("energy_restore", level="high")
    assert (-45.0, 0, 0) == tuple(out["changes"].values())
    poor = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_money_cents=1000), 1)
    out = poor.execute("energy_restore --level medium", driven=True)
    assert "failed" == out["status"] and "Not enough money" in out["error"]
    assert ("insufficient_funds", 20.0, 10.0) == (out["reason"], out["cost_required"], out["current_money"])
    tired = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_energy=4), 1)
    out = tired.execute("tasks_discover --refresh-type paid", driven=True)
    assert "error" == out["status"] and "Not enough resources" in out["error"]  # the reference's status


def test_day_transition_and_expiry(fw):
    """-$10, +5 energy, -10 stress a day; Low tasks live 3 days, then leave the pool and may come back."""
    fw.call("tasks_discover", refresh_type="paid")
    lows = [t for t in fw.pool if fw.tasks[t].complexity == "Low"]
    report = end_day(fw)
    assert {"living_cost_deducted", "energy_recovered", "stress_relieved", "expired_tasks_removed",
            "daily_task_limit_reset"} == set(report["events"])
    assert (98_800, 80, 3) == (fw.money_cents, fw.energy, fw.stress)
    for _ in range(3):
        end_day(fw)
    assert not set(lows) & set(fw.pool)
    if lows:
        assert "expired" in fw.execute_tool("task_inspect", {"task_id": str(lows[0])}, driven=True)["error"]
        assert lows[0] in fw._draw_tasks(1000)


def test_exhaustion_ends_the_career_at_once():
    """Energy reaching 0 ends the episode right after the action (status collapsed, reason exhaustion)."""
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_energy=8), 1)
    w.call("tasks_discover", refresh_type="free")
    assert (Status.COLLAPSED, "exhaustion", 0) == (w.status, w.terminal_detail, w.energy)
    assert "ended" in w.execute("tasks_browse", driven=True)["error"]


def test_bankruptcy_and_burnout_end_the_career():
    """Money at or below 0 after a day is bankruptcy; stress 100 after a failure is burnout.

    The day's report says ``game_over`` only below $0, as the reference's ``task_done`` does; at exactly $0 it is an
    ordinary report and the career ends all the same."""
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_money_cents=1000), 1)
    report = end_day(w)
    assert ("success", 0.0, Status.BANKRUPT) == (report["status"], report["current_state"]["money"], w.status)
    assert "bankruptcy" == w.summary()["termination_reason"]
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_money_cents=500), 1)
    report = end_day(w)
    assert ("game_over", "bankruptcy", Status.BANKRUPT) == (report["status"], report["reason"], w.status)
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_stress=95), 1)
    tid = put_task(w)
    w.call("solution_submit", task_id=tid, solution_text="0")
    assert (Status.COLLAPSED, "burnout", 100) == (w.status, w.terminal_detail, w.stress)
    assert "burnout" == w.summary()["termination_reason"] and 0.9 == w.summary()["penalty_coefficient"]


def test_burnout_spiral_on_in_default_off_in_reference():
    """Right answers under high stress fail often in ``default`` (p x gamma) and never in ``reference``."""
    def accepted(preset: str) -> int:
        wins = 0
        for seed in range(40):
            w = FreelanceWorld(attrs.evolve(PRESETS[preset], initial_stress=80), seed)
            wins += w.call("solution_submit", task_id=put_task(w), solution_text="42")["is_success"]
        return wins
    assert 40 == accepted("reference")
    assert 20 < accepted("default") < 40  # p = (0.05 + 0) * 3 = 0.15 at stress >= 70
    cfg = PRESETS["default"]
    assert cfg.burnout and cfg.burnout_gamma > 1 and 70 == cfg.burnout_stress and not PRESETS["reference"].burnout


def test_money_is_conserved_over_a_year():
    """Final cash = start + payments - discovery - rest - living costs, to the cent."""
    w = FreelanceWorld("default", 5)
    w.run(make_agent("freelance", "cautious"))
    by = {}
    for e in w.ledger:
        by[e.category] = by.get(e.category, 0) + e.amount_cents
    assert w.money_cents == 100_000 + sum(by.values())
    assert by["payment"] == w.income_cents == sum(h[3] for h in w.history)
    assert -1000 * len(w.daily) == by["living"]
    assert [] == w.invariants()


@pytest.mark.parametrize("name", sorted(set(AGENTS["freelance"]) - {"llm"}))  # llm needs a model
def test_check_world_with_every_baseline(name):
    """The kernel's contract holds with each baseline."""
    check_world(lambda seed: FreelanceWorld("default", seed), make_agent("freelance", name), seeds=(3,))


def test_check_world_with_the_probe_on_every_preset():
    """The generic probe agent passes on every preset."""
    for preset in world_presets("freelance"):
        check_world(lambda seed, p=preset: FreelanceWorld(p, seed), seeds=(1,),
                    extra_bad_lines=["solution_submit --task-id 1 --solution-text ''", "tasks_discover --refresh-type x",
                                     "energy_restore --level huge", "task_inspect --task-id -1"])


def test_baselines_finish_the_year_and_rank():
    """Both baselines complete the year on both presets; the oracle earns more than the cautious agent."""
    for preset in ("default", "reference"):
        c = run_episode("freelance", preset, "cautious", seed=2)
        o = run_episode("freelance", preset, "oracle", seed=2)
        assert "horizon_end" == c.terminal_reason == o.terminal_reason
        assert o.summary["metric_value"] > c.summary["metric_value"] > 100_000
        assert 365 == c.summary["days"] == len(c.summary["daily_money_cents"])


def test_system_prompt_matches_the_preset():
    """The prompt tells of the burnout spiral only where it applies, and of the 5-action budget."""
    d, r = FreelanceWorld("default", 1).system_prompt(), FreelanceWorld("reference", 1).system_prompt()
    assert d.startswith(ROLE) and "three times" in d and "three times" not in r
    assert "at most 5 actions a day" in d


def test_make_world_and_versioned_id():
    """The registry builds the world by name and versioned id."""
    assert "freelance-v1" == make_world("freelance-v1", "reference", 3).benchmark_id
    assert isinstance(FreelanceConfig().max_steps, int)


def test_cli_run_and_shell(monkeypatch, capsys):
    """``bizsim run freelance`` prints the metric; ``bizsim shell freelance`` answers typed commands."""
    assert 0 == main(["run", "freelance", "--agent", "cautious", "--seed", "2", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert ("final_money_cents", 365) == (d["metric"], len(d["daily_money_cents"]))
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("tasks_discover --refresh-type paid\ntasks_browse\ntask_done\nquit\n"))
    assert 0 == main(["shell", "freelance", "--seed", "3"])
    out = capsys.readouterr().out
    assert '"added_count": 6' in out and '"current_day": 1' in out


def test_rest_and_discovery_levels_are_read_as_the_reference_reads_them():
    """Trimmed and lower-cased, as the reference does (``" Low "`` is a low rest, ``"Paid"`` a paid discovery)."""
    w = FreelanceWorld("default", 1)
    assert "success" == w.execute_tool("energy_restore", {"level": " Low "}, driven=True)["status"]
    assert 6 == w.execute_tool("tasks_discover", {"refresh_type": "Paid"}, driven=True)["added_count"]
    assert "--level low" in w.command_log()[0][1] and "--refresh-type paid" in w.command_log()[1][1]
    assert "error" in w.execute_tool("energy_restore", {"level": "nap"}, driven=True)
