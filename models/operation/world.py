"""The operation world: a content platform run one intervention a day (EcoGym "Operation")."""

from __future__ import annotations

import math

import numpy as np

from bizsim.simcore import Status
from bizsim.simcore.dayworld import DayWorld
from bizsim.simcore.summation import plain_sum

from .._ecogym import parse_start_date, system_prompt
from .commands import COMMANDS
from .config import OperationConfig
from .dynamics import Dynamics, action_noise
from .presets import resolve_config
from .prompt import ROLE

__all__ = ["OperationWorld"]

_BLOCK = 1024
_PERCENTS: dict[float, str] = {}


def _percent(rate: float) -> str:
    """``f"{rate:.1%}"``, remembered: a retention rounded to 3 places takes few values, and formatting is slow."""
    text = _PERCENTS.get(rate)
    if text is None:
        text = f"{rate:.1%}"
        if len(_PERCENTS) < 10_000:
            _PERCENTS[rate] = text
    return text


class OperationWorld(DayWorld):
    """Grow a content platform's daily active users (DAU) for a year.

    State: DAU, content volume, content quality, creator activity and
    engagement. Each day the agent takes one intervention (the daily
    budget), then ``task_done`` runs the day's dynamics. The episode ends
    after ``horizon_days`` transitions, or collapses when DAU falls below
    ``collapse_dau``. Metric: the mean DAU after each transition.

    Randomness comes from three named streams of the episode seed:
    ``retention`` and ``growth`` (one draw per day each, drawn for the
    whole horizon up front) and ``actions`` (two draws per noisy effect).

    Args:
        config: a preset name (``"default"``, ``"reference"``, ``"easy"``,
            ``"hard"``), a ``.toml`` path, or an :class:`OperationConfig`.
        seed: the episode seed.
    """

    name = "operation"
    version = 1
    commands = COMMANDS

    def __init__(self, config: OperationConfig | str = "default", seed: int = 1) -> None:
        cfg = resolve_config(config)
        super().__init__(cfg, seed, start=parse_start_date(cfg.start_date), daily_budget=cfg.daily_budget,
                         horizon_days=cfg.horizon_days)
        self.preset = config if isinstance(config, str) else "custom"
        self.dau: int = cfg.initial_dau
        self.content_volume: int = cfg.initial_content_volume
        self.content_quality: float = float(cfg.initial_content_quality)
        self.creator_activity: float = float(cfg.initial_creator_activity)
        self.engagement_level: float = float(cfg.initial_engagement)
        #: One row per transition: (day, dau, retained, new, churned, volume, quality, retention).
        self.dau_history: list[tuple[int, int, int, int, int, int, float, float]] = []
        #: One row per accepted action: (day, action, effect values...).
        self.action_history: list[tuple] = []
        if cfg.noise:
            # Whole-horizon arrays: one draw per day, so a day's noise does not depend on the actions.
            self._retention_noise: list[float] | None = self.streams.get("retention").uniform(
                -cfg.retention_noise, cfg.retention_noise, cfg.horizon_days).tolist()
            self._growth_noise: list[float] | None = self.streams.get("growth").uniform(
                -cfg.growth_noise, cfg.growth_noise, cfg.horizon_days).tolist()
        else:
            self._retention_noise = self._growth_noise = None
        self._dynamics = Dynamics.of(cfg)
        self._action_rng: np.random.Generator = self.streams.get("actions")
        #: Unused uniforms of stream ``actions``, consumed from the end (``None``: noise off).
        self._action_u: list[float] | None = [] if cfg.noise else None
        if self.dau < cfg.collapse_dau:  # a platform that starts below the threshold is over before day 0, as there
            self._end(Status.COLLAPSED, Status.COLLAPSED.value)

    #: The role line of the agent's system prompt.
    agent_role = ROLE

    def system_prompt(self) -> str:
        """The agent's system prompt: the role line and the shared rules, with this world's daily budget."""
        return system_prompt(ROLE, self.config.daily_budget)

    # actions (the commands validate nothing: they take no arguments) -----------------
    def _noisy(self, value: float, pair: tuple[float, float]) -> float:
        u = self._action_u
        if u is None:
            return value
        if len(u) < 2:
            # Uniforms on [0, 1) come in blocks (numpy draws one at a time slowly); consumed from the end.
            u[:0] = self._action_rng.random(_BLOCK).tolist()[::-1]
        rel, ab = pair
        return action_noise(value, ab, -rel + 2 * rel * u.pop(), -1.0 + 2.0 * u.pop())

    def acquisition_boost(self) -> dict:
        """Users from a campaign; preset ``reference`` computes them and adds nothing, as the reference does."""
        cfg = self.config
        users = cfg.acquisition_base_users
        base = users + int(users * self.content_quality * cfg.acquisition_quality_rate)
        new = int(self._noisy(base, cfg.acquisition_noise))
        if cfg.acquisition_adds_users:
            self.dau += new
        self.action_history.append((self.day, "acquisition_boost", new))
        return {"status": "success", "action": "acquisition_boost", "new_users_acquired": new}

    def engagement_tune(self) -> dict:
        """More engagement now, a little less quality."""
        cfg = self.config
        boost = self._noisy(cfg.engagement_boost, cfg.engagement_noise)
        penalty = self._noisy(cfg.engagement_quality_penalty, cfg.engagement_noise)
        e = self.engagement_level + boost
        self.engagement_level = e if e < 1.0 else 1.0
        q = self.content_quality - penalty
        self.content_quality = q if q > 0.0 else 0.0
        self.action_history.append((self.day, "engagement_tune", boost, penalty))
        return {"status": "success", "action": "engagement_tune", "engagement_level": self.engagement_level,
                "content_quality": round(self.content_quality, 3)}

    def creator_incentive(self) -> dict:
        """More creator activity (diminishing near 1) and the content it makes today."""
        cfg = self.config
        a = self.creator_activity
        boost = self._noisy(cfg.creator_boost * math.pow(1 - a, cfg.creator_diminishing), cfg.creator_noise)
        a += boost
        self.creator_activity = a = a if a < 1.0 else 1.0
        added = int(cfg.creator_content * a)
        self.content_volume += added
        self.action_history.append((self.day, "creator_incentive", boost, added))
        return {"status": "success", "action": "creator_incentive", "creator_activity": round(a, 3),
                "activity_boost_applied": round(boost, 4), "content_added": added, "total_content": self.content_volume}

    def moderation_tighten(self) -> dict:
        """Higher quality (diminishing near 1), less content, creators put off (no noise on the penalty)."""
        cfg = self.config
        q = self.content_quality
        boost = self._noisy(cfg.moderation_boost * math.pow(1 - q, cfg.moderation_diminishing), cfg.moderation_noise)
        penalty = cfg.moderation_creator_penalty * (1 + cfg.moderation_penalty_amplifier * q)
        q += boost
        self.content_quality = q if q < 1.0 else 1.0
        removed = int(self.content_volume * cfg.moderation_removal)
        v = self.content_volume - removed
        self.content_volume = v if v > 0 else 0
        a = self.creator_activity - penalty
        self.creator_activity = a if a > 0.0 else 0.0
        self.action_history.append((self.day, "moderation_tighten", boost, removed, penalty))
        return {"status": "success", "action": "moderation_tighten", "content_quality": round(self.content_quality, 3),
                "quality_boost_applied": round(boost, 4), "content_removed": removed,
                "remaining_content": self.content_volume, "creator_activity": round(self.creator_activity, 3),
                "creator_penalty_applied": round(penalty, 4)}

    # the day ---------------------------------------------------------------------
    def end_day(self, day: int) -> dict:
        """Run the day's dynamics (retention noise, then growth noise) and report as ``task_done`` does."""
        r_noises = self._retention_noise
        if r_noises is not None and day < len(r_noises):
            r_noise, g_noise = r_noises[day], self._growth_noise[day]  # type: ignore[index]
        else:
            r_noise, g_noise = 0.0, None
        old_dau = self.dau
        (dau, volume, quality, activity, engagement, retained, new, churned, retention, created,
         decayed) = self._dynamics.step(old_dau, self.content_volume, self.content_quality, self.creator_activity,
                                        self.engagement_level, r_noise, g_noise)
        self.dau, self.content_volume = dau, volume
        self.content_quality, self.creator_activity, self.engagement_level = quality, activity, engagement
        r3 = round(retention, 3)
        q3 = round(quality, 3)
        self.dau_history.append((day, dau, retained, new, churned, volume, q3, r3))
        change = dau - old_dau
        return {
            "status": "success",
            "current_day": self.day,
            "events": {
                "dau": dau, "dau_change": change, "retained_users": retained, "new_users": new,
                "churned_users": churned, "retention_rate": r3, "content_created": created,
                "content_decayed": decayed,
            },
            # engagement is often exactly 0.0 (the decay floor), and round(0.0, 3) is 0.0
            "current_state": {"dau": dau, "content_volume": volume, "content_quality": q3,
                              "creator_activity": round(activity, 3),
                              "engagement_level": round(engagement, 3) if engagement else engagement},
            "summary": f"Day {self.day}: DAU={dau}, Change={change:+d}, Retention Rate={_percent(r3)}",
        }

    def finished_status(self) -> Status | None:
        """Collapse below ``collapse_dau``, else the horizon."""
        if self.dau < self.config.collapse_dau:
            return Status.COLLAPSED
        return Status.HORIZON if self.day >= self.horizon_days else None

    def _state_fields(self) -> dict:
        return {
            "dau": self.dau, "content_volume": self.content_volume,
            "content_quality": round(self.content_quality, 3), "creator_activity": round(self.creator_activity, 3),
            "engagement_level": round(self.engagement_level, 3),
        }

    # state for tests, replay and analysis ----------------------------------------------
    def state(self) -> dict:
        """Complete state as JSON-able data."""
        return {
            "day": self.day,
            "time": self.now_iso,
            "status": self.status.value,
            "state": [self.dau, self.content_volume, self.content_quality, self.creator_activity,
                      self.engagement_level],
            "actions_today": self.actions_today,
            "day_ending": self.day_ending,
            "dau_history": [list(r) for r in self.dau_history],
            "action_history": [list(r) for r in self.action_history],
        }

    def invariants(self) -> list[str]:
        """Broken rules, described (empty when the state is sound)."""
        bad = []
        cfg = self.config
        if not isinstance(self.dau, int) or self.dau < 0:
            bad.append(f"DAU {self.dau!r} is not a non-negative integer")
        if not isinstance(self.content_volume, int) or self.content_volume < 0:
            bad.append(f"content volume {self.content_volume!r} is not a non-negative integer")
        for label, v in (("content quality", self.content_quality), ("creator activity", self.creator_activity),
                         ("engagement", self.engagement_level)):
            if not 0.0 <= v <= 1.0:
                bad.append(f"{label} {v!r} outside [0, 1]")
        if self.daily_budget is not None and self.actions_today > self.daily_budget:
            bad.append(f"{self.actions_today} actions today, over the budget of {self.daily_budget}")
        if len(self.dau_history) != self.day:
            bad.append(f"{len(self.dau_history)} transitions recorded on day {self.day}")
        if self.dau_history:
            _, dau, retained, new, churned, *_ = self.dau_history[-1]
            if dau != retained + new or retained < 0 or new < 0 or churned < 0:
                bad.append(f"last transition does not add up: {self.dau_history[-1]}")
            if not cfg.min_retention <= self.dau_history[-1][7] <= cfg.max_retention + 5e-4:
                bad.append(f"retention {self.dau_history[-1][7]} outside the clamp")
        if self.status is Status.RUNNING and self.dau < cfg.collapse_dau:
            bad.append(f"DAU {self.dau} below the collapse threshold but the episode runs on")
        return bad

    def observation(self) -> dict:
        """Everything the platform's dashboard would show (the reference shows agents only tool results)."""
        return {"day": self.day, **self._state_fields(), "actions_left": self.actions_left, "status": self.status.value}

    def daily_dau(self) -> list[int]:
        """DAU after each transition so far."""
        return [r[1] for r in self.dau_history]

    def summary(self) -> dict:
        """The episode's headline figures; ``metric_value`` is the mean post-transition DAU."""
        series = self.daily_dau()
        days = len(series)
        mean = sum(series) / days if days else float(self.dau)
        places = 3 if self.config.reference_outputs else 4
        no_retention = 0.0 if self.config.reference_outputs else None
        return {
            "metric": "mean_dau",
            "metric_value": mean,
            "mean_dau": mean,
            # days after a collapse count as zero users: comparable across runs that collapse at different days
            "horizon_mean_dau": sum(series) / self.horizon_days,
            "final_dau": self.dau,
            "peak_dau": max(series) if series else self.dau,
            "mean_retention": plain_sum(r[7] for r in self.dau_history) / days if days else no_retention,
            "final_content_volume": self.content_volume,
            "final_content_quality": round(self.content_quality, places),
            "final_creator_activity": round(self.creator_activity, places),
            "final_engagement_level": round(self.engagement_level, places),
            "days": days,
            "actions_taken": len(self.action_history),
            "collapsed": self.status is Status.COLLAPSED,
            "daily_dau": series,
        }
