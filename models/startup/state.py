"""The startup world's entities: employees, clients, tasks."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from bizsim.simcore.summation import compensated_sum

__all__ = ["DOMAINS", "Employee", "Client", "Task", "q3", "q4", "TASK_STATUSES"]

#: Work domains, in the order that drives random draws.
DOMAINS: tuple[str, ...] = ("research", "inference", "data_environment", "training")

_ZERO = Decimal(0)

TASK_STATUSES = ("market", "planned", "active", "completed_success", "completed_fail", "cancelled")


def q3(x: Decimal | float) -> Decimal:
    """Round as the reference's database does on read for 3-decimal columns."""
    return Decimal("%.3f" % float(x))


def q4(x: Decimal | float) -> Decimal:
    """Round as the reference's database does on read for 4-decimal columns."""
    return Decimal("%.4f" % float(x))


class Employee:
    """A member of staff with a rate (units per business hour) in every domain."""

    __slots__ = ("uid", "name", "tier", "salary_cents", "rates", "active_tasks")

    def __init__(self, uid: str, name: str, tier: str, salary_cents: int, rates: dict[str, Decimal]) -> None:
        self.uid = uid
        self.name = name
        self.tier = tier
        self.salary_cents = salary_cents
        self.rates = rates
        self.active_tasks = 0


class Client:
    """A client: visible name, tier and specialties; hidden multiplier and loyalty."""

    __slots__ = ("uid", "name", "multiplier", "tier", "specialties", "loyalty", "trust", "index")

    def __init__(
        self, uid: str, name: str, multiplier: float, tier: str, specialties: list[str], loyalty: float
    ) -> None:
        self.uid = uid
        self.name = name
        self.multiplier = multiplier
        self.tier = tier
        self.specialties = specialties
        self.loyalty = loyalty
        self.trust = Decimal("0.000")
        self.index = 0

    @property
    def adversarial(self) -> bool:
        """Hidden: whether this client inflates scope after acceptance."""
        return self.loyalty < -0.3


class Task:
    """A piece of client work, from the market to completion."""

    __slots__ = (
        "uid", "serial", "title", "client", "required_prestige", "required_trust", "reward_cents",
        "advertised_reward_cents", "_delta", "_boost", "_late", "status", "market_slot", "required", "completed",
        "accepted_at", "deadline", "completed_at", "success", "assignees", "assigned_at", "milestone_pct",
        "eta_token", "cancel_reason", "market_key",
    )

    def __init__(
        self,
        uid: str,
        serial: int,
        title: str,
        client: Client,
        required_prestige: int,
        required_trust: int,
        reward_cents: int,
        delta: Decimal | None,
        boost: Decimal | None,
        required: dict[str, int],
        market_slot: int | None,
        late: Callable[[], tuple[Decimal, Decimal]] | None = None,
    ) -> None:
        """``delta`` and ``boost`` may be ``None`` with ``late`` to draw both when first read."""
        self.uid = uid
        self.serial = serial
        self.title = title
        self.client = client
        self.required_prestige = required_prestige
        self.required_trust = required_trust
        self.reward_cents = reward_cents
        #: Market order: highest reward first, then the lower serial (the reward never changes in the market).
        self.market_key = (-reward_cents, serial)
        self.advertised_reward_cents: int | None = None
        self._delta = delta
        self._boost = boost
        self._late: Callable[[], tuple[Decimal, Decimal]] | None = late
        self.status = "market"
        self.market_slot = market_slot
        self.required = required
        self.completed = dict.fromkeys(required, _ZERO)
        self.accepted_at: int | None = None
        self.deadline: int | None = None
        self.completed_at: int | None = None
        self.success: bool | None = None
        self.assignees: list[Employee] = []
        self.assigned_at: list[int] = []
        self.milestone_pct = 0
        self.eta_token = 0
        self.cancel_reason: str | None = None

    @property
    def delta(self) -> Decimal:
        """Prestige gained per domain on success."""
        return self._delta if self._delta is not None else self._draw_late()[0]

    @property
    def boost(self) -> Decimal:
        """Skill-rate boost of the team on success."""
        return self._boost if self._boost is not None else self._draw_late()[1]

    def _draw_late(self) -> tuple[Decimal, Decimal]:
        late = self._late
        assert late is not None  # only a task built without delta and boost reads them late
        self._delta, self._boost = pair = late()
        return pair

    def progress_ratio(self) -> Decimal:
        """Completed over required work, summed over domains."""
        done = sum((min(Decimal(self.required[d]), c) for d, c in self.completed.items()), Decimal(0))
        return done / sum(self.required.values())

    def progress_pct(self) -> float:
        """Progress in percent, as ``task list`` reports it (float sums as the reference's Python 3.12 makes them)."""
        total = compensated_sum(float(q) for q in self.required.values())
        done = compensated_sum(float(c) for c in self.completed.values())
        return round(done / total * 100, 2) if total > 0 else 0.0
