"""The operation world's formulas (spec §4.3–4.4), as pure functions of the state.

The arithmetic keeps the reference's float expressions and ``int()``
truncations in their order, so a noise-free day gives the reference's
numbers exactly.
"""

from __future__ import annotations

import functools
import math

from .config import OperationConfig

__all__ = ["retention_rate", "natural_growth", "Transition", "transition", "Dynamics", "action_noise"]

_LN10 = math.log(10)
#: The content volume at which the content term of retention is zero (hard-coded in the reference).
_CONTENT_REF = 10


def retention_rate(cfg: OperationConfig, volume: int, quality: float, engagement: float, noise: float = 0.0) -> float:
    """The share of today's users who stay: content, quality and engagement terms, a low-quality penalty, a clamp.

    >>> from bizsim.models.operation.config import OperationConfig
    >>> retention_rate(OperationConfig(), 100, 0.5, 0.0)  # 0.8 + 0.2 + 0.1, capped
    0.95
    """
    return Dynamics.of(cfg).retention(volume, quality, engagement, noise)


def natural_growth(cfg: OperationConfig, quality: float, activity: float, noise: float | None = None) -> int:
    """New users from word of mouth: ``base + int(60Q) + int(60A)``, times ``1 + noise`` and truncated."""
    return Dynamics.of(cfg).growth(quality, activity, noise)


class Transition:
    """One day's transition: the new state and what happened."""

    __slots__ = ("dau", "volume", "quality", "activity", "engagement", "retained", "new", "churned", "retention",
                 "created", "decayed")

    def __init__(self, dau: int, volume: int, quality: float, activity: float, engagement: float, retained: int,
                 new: int, churned: int, retention: float, created: int, decayed: int) -> None:
        self.dau, self.volume, self.quality, self.activity, self.engagement = dau, volume, quality, activity, engagement
        self.retained, self.new, self.churned, self.retention = retained, new, churned, retention
        self.created, self.decayed = created, decayed


def transition(cfg: OperationConfig, dau: int, volume: int, quality: float, activity: float, engagement: float,
               retention_noise: float = 0.0, growth_noise: float | None = None) -> Transition:
    """Apply one day: every right-hand side uses the values before the transition.

    ``growth_noise`` ``None`` means no growth noise at all (the reference's
    noise-off path, which skips the multiplication).
    """
    return Transition(*Dynamics.of(cfg).step(dau, volume, quality, activity, engagement, retention_noise,
                                             growth_noise))


class Dynamics:
    """The formulas with one config's constants read once: a world steps 365 times on the same config.

    ``min``/``max`` are written as conditionals that return the same operand
    the builtins would (ties keep the first), so results are the builtins'
    to the bit and type.
    """

    __slots__ = ("base_retention", "content_weight", "quality_weight", "engagement_weight", "min_retention",
                 "max_retention", "low_quality", "low_quality_penalty", "base_growth", "quality_growth",
                 "creator_growth", "content_creation", "content_quality_bonus", "content_decay",
                 "min_content_volume", "quality_equilibrium", "quality_decay", "engagement_quality_drag",
                 "min_content_quality", "creator_equilibrium", "creator_decay", "min_creator_activity",
                 "engagement_decay")

    def __init__(self, cfg: OperationConfig) -> None:
        self.base_retention, self.content_weight = cfg.base_retention, cfg.content_weight
        self.quality_weight, self.engagement_weight = cfg.quality_weight, cfg.engagement_weight
        self.min_retention, self.max_retention = cfg.min_retention, cfg.max_retention
        self.low_quality, self.low_quality_penalty = cfg.low_quality_threshold, cfg.low_quality_penalty
        self.base_growth, self.quality_growth, self.creator_growth = (cfg.base_growth, cfg.quality_growth,
                                                                      cfg.creator_growth)
        self.content_creation, self.content_quality_bonus = cfg.content_creation, cfg.content_quality_bonus
        self.content_decay, self.min_content_volume = cfg.content_decay, cfg.min_content_volume
        self.quality_equilibrium, self.quality_decay = cfg.quality_equilibrium, cfg.quality_decay
        self.engagement_quality_drag, self.min_content_quality = cfg.engagement_quality_drag, cfg.min_content_quality
        self.creator_equilibrium, self.creator_decay = cfg.creator_equilibrium, cfg.creator_decay
        self.min_creator_activity, self.engagement_decay = cfg.min_creator_activity, cfg.engagement_decay

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def of(cfg: OperationConfig) -> Dynamics:
        """The dynamics of a config (shared: they are read-only)."""
        return Dynamics(cfg)

    def retention(self, volume: int, quality: float, engagement: float, noise: float = 0.0) -> float:
        """See :func:`retention_rate`."""
        content = self.content_weight * math.log((volume if volume > _CONTENT_REF else _CONTENT_REF)
                                                 / _CONTENT_REF) / _LN10
        low = self.low_quality
        penalty = 0 if quality > low else (low - quality) * self.low_quality_penalty
        r = (self.base_retention + content + self.quality_weight * quality + self.engagement_weight * engagement
             - penalty)
        if noise:
            r += noise
        hi = self.max_retention
        r = r if r < hi else hi
        lo = self.min_retention
        return r if r > lo else lo

    def growth(self, quality: float, activity: float, noise: float | None = None) -> int:
        """See :func:`natural_growth`."""
        g = self.base_growth + int(self.quality_growth * quality) + int(self.creator_growth * activity)
        if noise is not None:
            g = int(g * (1.0 + noise))
        return g if g > 0 else 0

    def step(self, dau: int, volume: int, quality: float, activity: float, engagement: float,
             retention_noise: float = 0.0, growth_noise: float | None = None) -> tuple:
        """One day (see :func:`transition`), as a tuple of the fields of :class:`Transition` in their order."""
        r = self.retention(volume, quality, engagement, retention_noise)
        retained = int(dau * r)
        new = self.growth(quality, activity, growth_noise)
        created = int(self.content_creation * activity * (1 + self.content_quality_bonus * quality))
        decayed = int(volume * self.content_decay)
        v = volume + created - decayed
        floor = self.min_content_volume
        q = (quality - (quality - self.quality_equilibrium) * self.quality_decay
             - engagement * self.engagement_quality_drag)
        floor_q = self.min_content_quality
        a = activity - (activity - self.creator_equilibrium) * self.creator_decay
        floor_a = self.min_creator_activity
        e = engagement - self.engagement_decay
        return (retained + new, v if v > floor else floor, q if q > floor_q else floor_q,
                a if a > floor_a else floor_a, e if e > 0.0 else 0.0, retained, new, dau - retained, r, created,
                decayed)


def action_noise(value: float, absolute: float, u_relative: float, u_absolute: float) -> float:
    """An action's noisy effect, given the draws ``u_relative ~ U(-f, f)`` and ``u_absolute ~ U(-1, 1)``.

    >>> action_noise(0.25, 0.5, 0.0, 0.0)
    0.25
    >>> action_noise(0.25, 0.55, -0.6, -1.0)  # never below zero
    0.0
    """
    x = value + value * u_relative + value * absolute * u_absolute
    return x if x > 0.0 else 0.0
