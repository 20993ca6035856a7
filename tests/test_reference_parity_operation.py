"""Operation preset ``reference``: the summary rounds as the reference's metrics do (issue 23, item 10)."""

from __future__ import annotations

from bizsim.models.operation import OperationWorld

from ._ecogym import end_day


def _after_actions(preset: str) -> OperationWorld:
    w = OperationWorld(preset, 1)
    for action in ("creator_incentive", "moderation_tighten", "engagement_tune"):
        w.call(action)
        end_day(w)
    return w


def test_final_levels_are_rounded_to_three_places():
    """Quality, creator activity and engagement to 3 places, as the reference's metrics."""
    w = _after_actions("reference")
    summary = w.summary()
    assert (round(w.content_quality, 3), round(w.creator_activity, 3), round(w.engagement_level, 3)) == (
        summary["final_content_quality"], summary["final_creator_activity"], summary["final_engagement_level"])
    assert round(w.content_quality, 4) != round(w.content_quality, 3)


def test_elsewhere_final_levels_keep_four_places():
    """bizsim's own summary."""
    w = _after_actions("default")
    assert round(w.content_quality, 4) == w.summary()["final_content_quality"]


def test_mean_retention_before_any_transition_is_zero():
    """The reference reports 0.0 for a run with no transitions; bizsim's own summary says ``None``."""
    assert 0.0 == OperationWorld("reference", 1).summary()["mean_retention"]
    assert None is OperationWorld("default", 1).summary()["mean_retention"]
