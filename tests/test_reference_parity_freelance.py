"""Freelance preset ``reference``: empty solutions, reports, ids and the summary as the reference has them (issue 23,
items 5-8 and 10)."""

from __future__ import annotations

import attrs
import pytest
from bizsim.models.freelance import FreelanceWorld
from bizsim.models.freelance.presets import PRESETS

from ._ecogym import end_day

REFERENCE = attrs.evolve(PRESETS["reference"], daily_budget=50)
DEFAULT = attrs.evolve(REFERENCE, empty_solution_judged=False, canonical_ids=False, reference_outputs=False)


def _with_pool(config) -> tuple[FreelanceWorld, str]:
    w = FreelanceWorld(config, 1)
    w.call("tasks_discover", refresh_type="free")
    return w, str(w.pool[0])


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_an_empty_solution_is_judged_a_failure(text):
    """Energy and stress spent, skill lowered, the task gone, one of the day's three submissions used."""
    w, tid = _with_pool(REFERENCE)
    energy, stress, category = w.energy, w.stress, w.tasks[int(tid)].category
    out = w.call("solution_submit", task_id=tid, solution_text=text)
    assert ("failed", False) == (out["status"], out["is_success"])
    assert w.energy < energy and w.stress > stress and w.skills[category] < 60.0
    assert int(tid) not in w.pool and 1 == w.submissions_today


def test_elsewhere_an_empty_solution_is_refused():
    """bizsim's own rule: nothing to judge, nothing changes."""
    w, tid = _with_pool(DEFAULT)
    assert "error" in w.execute_tool("solution_submit", {"task_id": tid, "solution_text": "  "}, driven=True)
    assert 0 == w.submissions_today


def _broke(config) -> FreelanceWorld:
    return FreelanceWorld(attrs.evolve(config, initial_money_cents=500), 1)


def test_the_bankruptcy_report_has_day_final_money_and_message():
    """The reference's fields."""
    report = end_day(_broke(REFERENCE))
    assert {"status", "reason", "day", "final_money", "message"} == set(report)
    assert ("game_over", "bankruptcy", 1, -5.0) == (report["status"], report["reason"], report["day"],
                                                    report["final_money"])


def test_elsewhere_the_bankruptcy_report_has_bizsims_fields():
    """bizsim's own report."""
    assert {"status", "reason", "current_day", "current_state"} == set(end_day(_broke(DEFAULT)))


def test_the_day_summary_says_out_of_100_and_the_living_cost_is_an_integer():
    """``Energy=85/100, Stress=0/100`` and ``living_cost_deducted`` 10, as the reference writes them."""
    report = end_day(FreelanceWorld(REFERENCE, 1))
    assert "Day 1: Money=$990.00, Energy=85/100, Stress=0/100" == report["summary"]
    cost = report["events"]["living_cost_deducted"]
    assert (10, int) == (cost, type(cost))


def test_elsewhere_the_day_summary_is_bizsims():
    """bizsim's own summary and a dollar amount as a number with cents."""
    report = end_day(FreelanceWorld(DEFAULT, 1))
    assert "Day 1: Money=$990.00, Energy=85, Stress=0" == report["summary"]
    assert (10.0, float) == (report["events"]["living_cost_deducted"], type(report["events"]["living_cost_deducted"]))


@pytest.mark.parametrize("form", ["0{}", " {}", "{} ", "{}\n"])
@pytest.mark.parametrize("command", ["task_inspect", "solution_submit"])
def test_ids_not_written_as_the_pool_lists_them_are_rejected(form, command):
    """The reference matches the pool's text exactly."""
    w, tid = _with_pool(REFERENCE)
    args = {"task_id": form.format(tid)} | ({"solution_text": "42"} if command == "solution_submit" else {})
    assert "error" in w.execute_tool(command, args, driven=True)
    assert int(tid) in w.pool


def test_elsewhere_ids_are_read_leniently():
    """bizsim's own rule: leading zeros and spaces are read."""
    w, tid = _with_pool(DEFAULT)
    assert "selected" == w.execute_tool("task_inspect", {"task_id": " 0" + tid}, driven=True)["status"]


def test_the_summary_gives_the_average_skill_to_two_places():
    """The reference's metric rounds ``avg_skill`` to 2 places."""
    w, _ = _with_pool(REFERENCE)
    w.skills = {"a": 61.123, "b": 60.0}
    assert 60.56 == w.summary()["avg_skill"]
    w2, _ = _with_pool(DEFAULT)
    w2.skills = {"a": 61.123, "b": 60.0}
    assert 60.5615 == w2.summary()["avg_skill"]
