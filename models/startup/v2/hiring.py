"""Hiring and firing: the candidate market, notice, the onboarding ramp and severance.

Candidates are drawn as the world draws its first employees (a tier by the tiers' shares, a rate per domain
uniform in the tier's band, a salary from the tier's triangular band skewed high) from their own stream per
candidate serial, so the market does not depend on what else happened in the episode.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from ..generate import make_uid, stream
from ..state import DOMAINS, Employee, q4

if TYPE_CHECKING:
    from .world import StartupV2World

__all__ = ["Candidate", "draw_candidate", "new_employee", "onboarding_schedule", "severance_cents"]


class Candidate:
    """Someone the company may hire: visible tier, rates and salary ask."""

    __slots__ = ("serial", "name", "tier", "rates", "ask_cents")

    def __init__(self, serial: int, name: str, tier: str, rates: dict[str, Decimal], ask_cents: int) -> None:
        self.serial = serial
        self.name = name
        self.tier = tier
        self.rates = rates
        self.ask_cents = ask_cents


def draw_candidate(world: StartupV2World, serial: int) -> Candidate:
    """Candidate ``serial`` of this episode's market (the same whoever was hired before)."""
    cfg = world.config
    rng = stream(world.seed, f"v2:candidate:{serial}")
    u = rng.random()
    tiers = list(cfg.tiers.values())
    tier = tiers[-1]
    acc = 0.0
    for t in tiers:
        acc += t.share
        if u < acc:
            tier = t
            break
    rates = {d: Decimal("%.4f" % round(rng.uniform(tier.rate_min, tier.rate_max), 4)) for d in DOMAINS}
    raw = round(rng.triangular(tier.min_cents, tier.max_cents, tier.max_cents))
    salary = int(max(tier.min_cents, min(tier.max_cents, raw)))
    ask = int(salary * (1 + cfg.hiring.ask_markup))
    return Candidate(serial, f"Cand-{serial}", tier.name, rates, ask)


def new_employee(world: StartupV2World, cand: Candidate, number: int, ramp: bool) -> Employee:
    """The employee a candidate becomes on the first working day: at the onboarding ramp's first step if there is
    a ramp, else at full rates."""
    start = Decimal(str(world.config.hiring.onboarding_start)) if ramp else Decimal(1)
    rates = {d: q4(r * start) for d, r in cand.rates.items()}
    return Employee(make_uid(world.seed, "hire", number), f"Emp_{number}", cand.tier, cand.ask_cents, rates)


def onboarding_schedule(start_fraction: float, steps: int) -> list[tuple[Decimal, Decimal]]:
    """The ramp's steps after the first day: (factor applied to the current rates, productivity reached).

    Each step multiplies the rates by (new productivity / old), so skill gained meanwhile is kept.

    >>> [(str(f), str(p)) for f, p in onboarding_schedule(0.5, 2)]
    [('1.5', '0.75'), ('1.333333333333333333333333333', '1')]
    """
    start = Decimal(str(start_fraction))
    levels = [start + (1 - start) * Decimal(k) / Decimal(steps) for k in range(steps + 1)]
    return [(levels[k] / levels[k - 1], levels[k]) for k in range(1, steps + 1)]


def severance_cents(salary_cents: int, months: float) -> int:
    """Severance for a monthly salary: ``months`` of it, rounded down to the cent.

    >>> severance_cents(700_000, 1.5)
    1050000
    """
    return int(Decimal(salary_cents) * Decimal(str(months)))
