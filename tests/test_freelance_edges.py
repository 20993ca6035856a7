"""Freelance submission edges: the burnout spiral's factor and threshold, the learning cap, the exhaustion refusal."""

from __future__ import annotations

import attrs
from bizsim.models.freelance import PRESETS, FreelanceWorld
from bizsim.simcore import Status

from .test_freelance_world import put_task

SEEDS = range(12)


def right_answers_accepted(initial_stress: int, effort: float) -> list[bool]:
    """Whether a right answer to one task of ``effort`` is accepted, per seed, in ``default`` (skill 60)."""
    out = []
    for seed in SEEDS:
        w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_stress=initial_stress), seed)
        out.append(w.call("solution_submit", task_id=put_task(w, effort), solution_text="42")["is_success"])
    return out


def test_burnout_gamma_multiplies_the_slip_chance():
    """Stress 80 (91 after the work), effort 12, skill 60: p = (0.05 + 0.5 x 0.6) x 3 = 1.05, so every right answer
    slips; without the factor p would be 0.35 and most would pass."""
    assert [False] * len(SEEDS) == right_answers_accepted(80, 12.0)


def test_burnout_starts_at_exactly_the_threshold_stress():
    """Effort 12 at skill 60 adds int(7 x 1.6) = 11 stress: from 59 the submission is judged at exactly 70 and the
    spiral applies (p capped at 1: all slip); from 58, at 69, it does not (p = 0.35: some pass)."""
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_stress=59), 0)
    w.call("solution_submit", task_id=put_task(w, 12.0), solution_text="42")
    assert 70 + int((5 + 12) * 1.6) == w.history[0][5]  # judged at 70, then the failure's stress
    assert not any(right_answers_accepted(59, 12.0))
    assert any(right_answers_accepted(58, 12.0))


def test_learning_multiplier_is_req_over_skill_up_to_two():
    """Skill 60: effort 10 learns at lm = 100/60 (skill 65.83); effort 15 at the cap lm = 2 (skill 69.5)."""
    for effort, lm in ((10.0, 100 / 60), (15.0, 2.0)):
        w = FreelanceWorld(PRESETS["reference"], 1)
        out = w.call("solution_submit", task_id=put_task(w, effort), solution_text="42")
        assert out["is_success"]
        assert round(60 + (1 + 0.25 * effort) * lm, 2) == w.skills["Math_Logic"]
    assert (65.83, 69.5) == (round(60 + 3.5 * 100 / 60, 2), round(60 + 4.75 * 2, 2))


def test_too_exhausted_to_submit_is_refused_and_changes_nothing():
    """Energy 4 below a cost of 5: refused ('failed', reason 'exhaustion'), no action used, the task still pooled."""
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_energy=4), 1)
    tid = put_task(w)
    before = w.state()
    out = w.execute(f"solution_submit --task-id {tid} --solution-text 42")
    assert ("failed", "exhaustion") == (out["status"], out["reason"])
    assert "Too exhausted" in out["error"] and "5 energy" in out["error"]
    assert before == w.state()
    assert (0, [0], Status.RUNNING) == (w.actions_today, w.pool, w.status)


def test_energy_equal_to_the_cost_is_enough():
    """Energy 5 for a cost of 5: the work is done (and paid), leaving 0 energy, which ends the career."""
    w = FreelanceWorld(attrs.evolve(PRESETS["default"], initial_energy=5), 1)
    out = w.call("solution_submit", task_id=put_task(w), solution_text="42")
    assert (True, 0, Status.COLLAPSED, "exhaustion") == (out["is_success"], w.energy, w.status, w.terminal_detail)
