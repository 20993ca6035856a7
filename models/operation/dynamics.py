"""The operation world's formulas (spec §4.3–4.4), as pure functions of the state.

The arithmetic keeps the reference's float expressions and ``int()``
truncations in their order, so a noise-free day gives the reference's
numbers exactly.
"""

from __future__ import annotations

import math

from .config import OperationConfig

__all__ = ["retention_rate", "natural_growth", "Transition", "transition", "action_noise"]

_LN10 = math.log(10)
#: The content volume at which the content term of retention is zero (hard-coded in the reference).
_CONTENT_REF = 10


def retention_rate(cfg: OperationConfig, volume: int, quality: float, engagement: float, noise: float = 0.0) -> float:
    """The share of today's users who stay: content, quality and engagement terms, a low-quality penalty, a clamp.

    >>> from bizsim.models.operation.config import OperationConfig
    >>> retention_rate(OperationConfig(), 100, 0.5, 0.0)  # 0.8 + 0.2 + 0.1, capped
    0.95
    """
    content = cfg.content_weight * math.log(max(_CONTENT_REF, volume) / _CONTENT_REF) / _LN10
    low = cfg.low_quality_threshold
    penalty = 0 if quality > low else (low - quality) * cfg.low_quality_penalty
    r = cfg.base_retention + content + cfg.quality_weight * quality + cfg.engagement_weight * engagement - penalty
    if noise:
        r += noise
    return max(cfg.min_retention, min(cfg.max_retention, r))


def natural_growth(cfg: OperationConfig, quality: float, activity: float, noise: float | None = None) -> int:
    """New users from word of mouth: ``base + int(60Q) + int(60A)``, times ``1 + noise`` and truncated."""
    g = cfg.base_growth + int(cfg.quality_growth * quality) + int(cfg.creator_growth * activity)
    if noise is not None:
        g = int(g * (1.0 + noise))
    return max(0, g)


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
    r = retention_rate(cfg, volume, quality, engagement, retention_noise)
    retained = int(dau * r)
    new = natural_growth(cfg, quality, activity, growth_noise)
    created = int(cfg.content_creation * activity * (1 + cfg.content_quality_bonus * quality))
    decayed = int(volume * cfg.content_decay)
    return Transition(
        dau=retained + new,
        volume=max(cfg.min_content_volume, volume + created - decayed),
        quality=max(cfg.min_content_quality, quality - (quality - cfg.quality_equilibrium) * cfg.quality_decay
                    - engagement * cfg.engagement_quality_drag),
        activity=max(cfg.min_creator_activity, activity - (activity - cfg.creator_equilibrium) * cfg.creator_decay),
        engagement=max(0.0, engagement - cfg.engagement_decay),
        retained=retained,
        new=new,
        churned=dau - retained,
        retention=r,
        created=created,
        decayed=decayed,
    )


def action_noise(value: float, absolute: float, u_relative: float, u_absolute: float) -> float:
    """An action's noisy effect, given the draws ``u_relative ~ U(-f, f)`` and ``u_absolute ~ U(-1, 1)``.

    >>> action_noise(0.25, 0.5, 0.0, 0.0)
    0.25
    >>> action_noise(0.25, 0.55, -0.6, -1.0)  # never below zero
    0.0
    """
    return max(0.0, value + value * u_relative + value * absolute * u_absolute)
