"""Exogenous disruptions: when they happen (drawn up front, per kind, from the episode's seed) and what they do.

Each kind is a Bernoulli process over calendar days with probability rate / 365 a day, drawn as geometric gaps
from its own stream, so the schedule depends on the seed and the config only, never on the agent's play, and
adding a kind does not move the others.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING

from ..generate import stream

if TYPE_CHECKING:
    from .config import Disruptions

__all__ = ["KINDS", "cut_cents", "daily_probability", "late_payment", "pick", "schedule"]

#: Scheduled kinds, in the order their events run when two fall on one day.
KINDS = ("downturn", "client_collapse", "resignation")


def daily_probability(cfg: Disruptions, kind: str) -> float:
    """A kind's chance on any one calendar day.

    >>> from bizsim.models.startup.v2.config import Disruptions
    >>> daily_probability(Disruptions(downturns_per_year=3.65), "downturn")
    0.01
    """
    rate = {"downturn": cfg.downturns_per_year, "client_collapse": cfg.collapses_per_year,
            "resignation": cfg.resignations_per_year}[kind]
    return rate / 365.0


def schedule(seed: int, cfg: Disruptions, days: int) -> list[tuple[int, str]]:
    """Every scheduled disruption of an episode of ``days`` calendar days: ``(day, kind)``, in time order."""
    out = []
    for kind in KINDS:
        p = daily_probability(cfg, kind)
        if not cfg.enabled or p <= 0:
            continue
        rng = stream(seed, f"v2:disruption:{kind}")
        log_q = math.log1p(-p)
        day = -1
        while True:
            # Days without an event before the next one: geometric, by inversion.
            day += int(math.log1p(-rng.random()) / log_q) + 1
            if day >= days:
                break
            out.append((day, kind))
    return sorted(out, key=lambda e: (e[0], KINDS.index(e[1])))


def pick(seed: int, kind: str, n: int, count: int) -> int:
    """Which of ``count`` candidates (sorted by name) the ``n``-th event of ``kind`` strikes."""
    return int(stream(seed, f"v2:disruption:{kind}:{n}").random() * count)


def late_payment(seed: int, cfg: Disruptions, task_uid: str) -> bool:
    """Whether the reward of a succeeded task is paid late (one draw per task, from its own stream)."""
    return cfg.enabled and cfg.late_payment_prob > 0 and stream(seed, f"v2:late:{task_uid}").random() < \
        cfg.late_payment_prob


def cut_cents(reward_cents: int, cut: float) -> int:
    """The part of a reward a downturn withholds, rounded down to the cent.

    >>> cut_cents(1_000_001, 0.3)
    300000
    """
    return int(Decimal(reward_cents) * Decimal(str(cut)))
