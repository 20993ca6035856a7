"""A state-feedback planner for the operation world.

It sees what an LLM agent sees: the platform state in each ``task_done``
report and in action results. Each day it scores the four actions by the
users each one is worth over the days that remain, under a linear model of
the platform (the action effects are the world's documented dynamics; the
weights are options, tuned on seeds 1-10 of ``default``), and takes the best:

- word of mouth brings ``60 * quality + 60 * creator_activity`` users a day
  and both decay about 5% a day, so a lasting gain ``d`` in either is worth
  about ``value_per_point * d`` users (1200 by the formulas; 300 plays best,
  as noise and the retention cap make gains worth less than they seem);
- ``creator_incentive`` raises activity by ``0.25 * (1 - A) ** 1.1``;
- ``moderation_tighten`` raises quality by ``0.3 * (1 - Q) ** 1.1`` and costs
  ``0.07 * (1 + 1.1 Q)`` of activity;
- ``acquisition_boost`` brings about ``20 + 22 Q`` users now, each of whom
  stays for a while;
  (if a report shows that a campaign's users never arrived, as on preset
  ``reference``, it stops campaigning);
- ``engagement_tune`` only helps retention, which is usually at its cap; it is
  taken when the last report shows retention below the cap.

Quality below ``quality_floor`` costs retention, so it moderates first there.
"""

from __future__ import annotations

import math

from bizsim.agents.declare import Process, agent
from bizsim.models.operation import OperationWorld

__all__ = ["planner", "score_actions"]


def score_actions(quality: float, activity: float, days_left: int, *, value_per_point: float = 1200.0,
                  user_value: float = 20.0, quality_weight: float = 1.0) -> dict[str, float]:
    """The users each intervention is worth from this state, given the days that remain.

    >>> s = score_actions(0.5, 0.5, 300)
    >>> max(s, key=s.get)
    'creator_incentive'
    """
    horizon = 1.0 - 0.95 ** max(days_left, 0)  # a lasting effect shrinks as the horizon nears
    d_activity = 0.25 * math.pow(max(0.0, 1.0 - activity), 1.1)
    d_quality = 0.3 * math.pow(max(0.0, 1.0 - quality), 1.1)
    penalty = min(activity, 0.07 * (1.0 + 1.1 * quality))
    return {
        "creator_incentive": value_per_point * d_activity * horizon,
        "moderation_tighten": value_per_point * (quality_weight * d_quality - penalty) * horizon,
        "acquisition_boost": (20.0 + 22.0 * quality) * min(1.0, user_value * horizon / 20.0),
        "engagement_tune": -1.0,
    }


def planner(
    world: OperationWorld,
    quality_floor: float = 0.45,
    value_per_point: float = 300.0,
    user_value: float = 20.0,
    quality_weight: float = 1.5,
) -> Process:
    """Each day, take the intervention worth the most users from the last observed state.

    Args:
        quality_floor: below this observed quality it moderates whatever the scores say.
        value_per_point: users a lasting +1 of quality or creator activity is worth.
        user_value: days a user acquired now is worth at the start of the year.
        quality_weight: weight of a quality gain against an activity gain.
    """
    quality: float | None = None
    activity: float | None = None
    dau: int | None = None
    acquisition_works = True  # until a campaign's users fail to show up in the next report
    horizon = getattr(world, "horizon_days", 365)
    day = 0
    while not world.done:
        if quality is None or activity is None:
            action = "creator_incentive"  # nothing observed yet: the safe default
        elif quality < quality_floor:
            action = "moderation_tighten"
        else:
            scores = score_actions(quality, activity, horizon - day, value_per_point=value_per_point,
                                   user_value=user_value, quality_weight=quality_weight)
            if not acquisition_works:
                del scores["acquisition_boost"]
            action = max(scores, key=scores.__getitem__)
        result = world.call(action)
        report = yield world.advance()
        if "error" in report:
            return
        events, state = report["events"], report["current_state"]
        if action == "acquisition_boost" and dau is not None and result["new_users_acquired"] >= 10:
            # The users the day started with, seen through retention: did the campaign's users arrive?
            before = events["retained_users"] / max(events["retention_rate"], 1e-9)
            if before < dau + result["new_users_acquired"] / 2:
                acquisition_works = False
        quality, activity, dau = state["content_quality"], state["creator_activity"], state["dau"]
        day = report["current_day"]


def _check_planner(quality_floor: float, value_per_point: float, user_value: float, quality_weight: float) -> None:
    if not 0 <= quality_floor <= 1:
        raise ValueError(f"quality_floor(={quality_floor}) must be in [0, 1]: content quality is a share")
    for name, value in (("value_per_point", value_per_point), ("user_value", user_value),
                        ("quality_weight", quality_weight)):
        if value < 0:
            raise ValueError(f"{name}(={value}) must be >= 0")


planner = agent(planner, check=_check_planner)
