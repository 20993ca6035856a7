"""World generation, draw for draw the reference's, so seeds name the same worlds.

Each stream is CPython's ``random.Random`` seeded with the first eight bytes
of SHA-256 of ``"{seed}:{stream}"``. Employees and clients always come from
seed 1; only market tasks depend on the episode seed.
"""

from __future__ import annotations

import functools
import hashlib
import random
import uuid
from _random import Random as _CRandom

from .config import StartupConfig
from .state import DOMAINS, Client, Employee, Task, q3, q4
from decimal import Decimal

__all__ = [
    "stream", "generate_employees", "generate_clients", "generate_market", "generate_replacement", "FIXED_WORLD_SEED",
]

FIXED_WORLD_SEED = 1
_c_seed = _CRandom.seed
_TIER_PATTERN = ("junior",) * 5 + ("mid",) * 3 + ("senior",) * 2
_FORCED_PRESTIGE_ONE = 10
_CLIENT_NAMES = (
    "Nexus AI", "Vertex Labs", "Quantum Dynamics", "Atlas Computing", "Helix Systems", "Orion Data",
    "Cipher Corp", "Prism Analytics", "Nova Research", "Zenith Technologies", "Apex Robotics",
    "Stratos Cloud", "Vanguard ML", "Equinox Labs", "Cortex Intelligence",
)
MAX_CLIENTS = len(_CLIENT_NAMES)
_N_DOMAINS = len(DOMAINS)
_DOMAIN_BITS = _N_DOMAINS.bit_length()


def stream(seed: int, key: str) -> random.Random:
    """The named stdlib stream of a seed."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _reseed(rng: random.Random, seed: int, key: str) -> None:
    """Turn ``rng`` into ``stream(seed, key)`` in place.

    Reusing one generator skips an allocation a task, and the C-level seed
    skips ``random.Random.seed``'s type dispatch; clearing ``gauss_next`` is
    the rest of what that method does for an int seed.
    """
    _c_seed(rng, int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big"))
    rng.gauss_next = None  # type: ignore[attr-defined]  # typeshed omits Random.gauss_next (a real CPython attribute)


def make_uid(seed: int, kind: str, n: int) -> str:
    """A deterministic UUID for an entity."""
    digest = hashlib.sha256(f"bizsim:{seed}:{kind}:{n}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def task_uid(seed: int, serial: int) -> str:
    """A deterministic UUID for task ``serial`` of a seed (a per-seed prefix plus the serial)."""
    return _task_uid_prefix(seed) + f"{serial:012x}"


@functools.lru_cache(maxsize=4096)
def _task_uid_prefix(seed: int) -> str:
    return make_uid(seed, "task", 0)[:24]


def generate_employees(cfg: StartupConfig) -> list[Employee]:
    """The fixed roster (tier pattern shuffled, per-domain rates, salaries skewed high)."""
    return [Employee(uid, name, tier, salary, dict(rates)) for uid, name, tier, salary, rates in _employee_values(cfg)]


@functools.lru_cache(maxsize=32)
def _employee_values(cfg: StartupConfig) -> tuple:
    # Seed 1 only: every world of a config has the same roster, so its draws are made once.
    tiers = [_TIER_PATTERN[i % len(_TIER_PATTERN)] for i in range(cfg.num_employees)]
    stream(FIXED_WORLD_SEED, "tier_assignment").shuffle(tiers)
    out = []
    for idx in range(1, cfg.num_employees + 1):
        rng = stream(FIXED_WORLD_SEED, f"employee_{idx}")
        tier = cfg.tiers[tiers[idx - 1]]
        rates = tuple((d, Decimal("%.4f" % round(rng.uniform(tier.rate_min, tier.rate_max), 4))) for d in DOMAINS)
        raw = round(rng.triangular(tier.min_cents, tier.max_cents, tier.max_cents))
        salary = int(max(tier.min_cents, min(tier.max_cents, raw)))
        out.append((make_uid(FIXED_WORLD_SEED, "employee", idx), f"Emp_{idx}", tier.name, salary, rates))
    return tuple(out)


def _tier_label(mult: float, cfg: StartupConfig) -> str:
    if mult < cfg.client_tier_premium_threshold:
        return "Standard"
    if mult < cfg.client_tier_enterprise_threshold:
        return "Premium"
    return "Enterprise"


def generate_clients(cfg: StartupConfig) -> list[Client]:
    """The fixed clients, adversarial ones first, then shuffled into client-index order."""
    clients = []
    for i, (uid, name, mult, tier, specialties, loyalty) in enumerate(_client_values(cfg)):
        c = Client(uid, name, mult, tier, list(specialties), loyalty)
        c.index = i
        clients.append(c)
    return clients


@functools.lru_cache(maxsize=32)
def _client_values(cfg: StartupConfig) -> tuple:
    rng = stream(FIXED_WORLD_SEED, "clients")
    names = rng.sample(_CLIENT_NAMES, cfg.num_clients)
    n_adversarial = max(1, round(cfg.num_clients * cfg.loyalty_rat_fraction))
    rows = []
    for i, name in enumerate(names):
        mult = round(rng.triangular(cfg.client_reward_mult_low, cfg.client_reward_mult_high, cfg.client_reward_mult_mode), 2)
        tier = _tier_label(mult, cfg)
        n_spec = 1 if rng.random() < cfg.client_single_specialty_prob else 2
        specialties = tuple(rng.sample(DOMAINS, n_spec))
        if i < n_adversarial:
            loyalty = round(rng.uniform(-1.0, -0.3), 3)
            mult = max(mult, cfg.client_reward_mult_high * 0.75)
        else:
            loyalty = round(rng.triangular(-0.3, 1.0, cfg.loyalty_mode), 3)
        rows.append((make_uid(FIXED_WORLD_SEED, "client", i), name, mult, tier, specialties, loyalty))
    rng.shuffle(rows)
    return tuple(rows)


class _TaskDraws:
    """One config's task sampler: the reference's draw order, constants hoisted out of the per-task path."""

    def __init__(self, cfg: StartupConfig) -> None:
        d = cfg.dist
        self.domain_count = d.domain_count.sampler()
        self.qty = d.required_qty.sampler()
        self.reward = d.reward_funds_cents.sampler()
        self.delta = d.reward_prestige_delta.sampler()
        self.boost = d.skill_boost.sampler()
        self.prestige = d.required_prestige.sampler()
        self.bias = cfg.task_specialty_domain_bias
        self.qty_scale = cfg.prestige_qty_scale
        self.reward_scale = cfg.reward_prestige_scale
        self.gated_boost = cfg.trust_gated_reward_boost
        self.trust_floor = d.reward_funds_cents.low if d.reward_funds_cents.low is not None else 300_000
        ceiling = d.reward_funds_cents.high if d.reward_funds_cents.high is not None else 4_000_000
        self.trust_span = ceiling - self.trust_floor
        self.ramp = cfg.trust_reward_ramp
        self.threshold = cfg.trust_reward_threshold
        self.level_scale = cfg.trust_level_reward_scale
        self.level_max = cfg.trust_level_max_required
        self._favoured: dict[tuple[str, ...], tuple[str, ...]] = {}

    def domains(self, rng: random.Random, k: int, specialties: tuple[str, ...]) -> list[str]:
        """The required domains: the first favours a client specialty, the rest are sampled."""
        if not specialties or k <= 0:
            return rng.sample(DOMAINS, k)
        favoured = self._favoured.get(specialties)
        if favoured is None:
            favoured = self._favoured[specialties] = tuple(d for d in DOMAINS if d in specialties)
        # ``rng.choice`` spelled out: the same getrandbits calls as its ``_randbelow``.
        getrandbits = rng.getrandbits
        if favoured and rng.random() < self.bias:
            n = len(favoured)
            bits = n.bit_length()
            r = getrandbits(bits)
            while r >= n:
                r = getrandbits(bits)
            first = favoured[r]
        else:
            r = getrandbits(_DOMAIN_BITS)
            while r >= _N_DOMAINS:
                r = getrandbits(_DOMAIN_BITS)
            first = DOMAINS[r]
        if k > 1:
            available = [d for d in DOMAINS if d != first]
            return [first, *rng.sample(available, min(k - 1, len(available)))]
        return [first]

    def required_trust(self, rng: random.Random, reward: int) -> int:
        """The trust level a reward gates behind, drawn with the reference's ramp."""
        if reward <= self.trust_floor:
            return 0
        frac = min(1.0, (reward - self.trust_floor) / self.trust_span)
        ramp = self.ramp
        prob = max(0.0, (frac - self.threshold) / ramp) if ramp > 0 else 0.0
        if rng.random() >= prob:
            return 0
        return max(1, min(int(1 + frac * self.level_scale), self.level_max))

    def head(self, rng: random.Random, prestige: int, specialties: tuple[str, ...]) -> tuple:
        """``(requirements, reward, required_trust)`` of one task: its draws up to the last two."""
        k = int(self.domain_count(rng))
        scale = 1 + self.qty_scale * (prestige - 1)
        qty = self.qty
        required = {d: int(int(qty(rng)) * scale) for d in self.domains(rng, k, specialties)}
        reward = int(int(self.reward(rng)) * (1 + self.reward_scale * (prestige - 1)))
        trust = self.required_trust(rng, reward)
        if trust > 0:
            reward = int(reward * (1.0 + self.gated_boost * trust))
        return required, reward, trust

    def tail(self, rng: random.Random) -> tuple[Decimal, Decimal]:
        """``(prestige delta, skill boost)``: a task's last two draws."""
        return q3(self.delta(rng)), q4(self.boost(rng))


@functools.lru_cache(maxsize=32)
def _task_draws(cfg: StartupConfig) -> _TaskDraws:
    return _TaskDraws(cfg)


@functools.lru_cache(maxsize=64)
def _market_specs(cfg: StartupConfig, seed: int, specialties: tuple[tuple[str, ...], ...], multipliers: tuple[float, ...]):
    # Generation is a pure function of (config, seed): sweeps that run several
    # agents on one seed generate its market once. Requirements are kept as
    # (domain, qty) pairs: tuples of plain values drop out of the cyclic
    # garbage collector's walks, which full caches would otherwise slow.
    out = []
    draws = _task_draws(cfg)
    draw_prestige, draw_head = draws.prestige, draws.head
    rng = random.Random()
    n = len(specialties)
    for idx in range(1, cfg.num_market_tasks + 1):
        _reseed(rng, seed, f"task_{idx}")
        prestige = 1 if idx - 1 < _FORCED_PRESTIGE_ONE else int(draw_prestige(rng))
        ci = (idx - 1) % n
        required, reward, trust = draw_head(rng, prestige, specialties[ci])
        out.append((idx, ci, prestige, trust, int(reward * multipliers[ci]), tuple(required.items())))
    return tuple(out)


# A task's prestige delta and skill boost are its stream's last two draws and
# most tasks are never shown, so they are drawn when first read: the stream is
# replayed through the earlier draws, which gives the same values.
@functools.lru_cache(maxsize=8192)
def _late_market(cfg: StartupConfig, seed: int, idx: int, prestige: int, specialties: tuple[str, ...]):
    draws = _task_draws(cfg)
    rng = stream(seed, f"task_{idx}")
    if idx - 1 >= _FORCED_PRESTIGE_ONE:
        draws.prestige(rng)
    draws.head(rng, prestige, specialties)
    return draws.tail(rng)


@functools.lru_cache(maxsize=8192)
def _late_replacement(cfg: StartupConfig, seed: int, counter: int, prestige: int, specialties: tuple[str, ...]):
    draws = _task_draws(cfg)
    rng = stream(seed, f"replenish_{counter}")
    draws.head(rng, prestige, specialties)
    return draws.tail(rng)


def generate_market(cfg: StartupConfig, seed: int, clients: list[Client]) -> list[Task]:
    """The initial market: tasks dealt round-robin to clients, rewards times client multiplier."""
    specialties = tuple(tuple(c.specialties) for c in clients)
    specs = _market_specs(cfg, seed, specialties, tuple(c.multiplier for c in clients))
    return [
        Task(
            task_uid(seed, idx), idx, f"Task-{idx}", clients[ci], prestige, trust, reward, None, None, dict(req), idx - 1,
            functools.partial(_late_market, cfg, seed, idx, prestige, specialties[ci]),
        )
        for idx, ci, prestige, trust, reward, req in specs
    ]


@functools.lru_cache(maxsize=8192)
def _replacement_spec(cfg: StartupConfig, seed: int, counter: int, prestige: int, specialties: tuple[str, ...]):
    required, reward, trust = _task_draws(cfg).head(stream(seed, f"replenish_{counter}"), prestige, specialties)
    return tuple(required.items()), reward, trust


def generate_replacement(
    cfg: StartupConfig, seed: int, counter: int, serial: int, like: Task, market_slot: int | None
) -> Task:
    """The task that refills the market after ``like`` is accepted (stream ``replenish_{counter}``)."""
    specialties = tuple(like.client.specialties)
    required, reward, trust = _replacement_spec(cfg, seed, counter, like.required_prestige, specialties)
    return Task(
        task_uid(seed, serial), serial, f"Task-{counter}", like.client, like.required_prestige, trust,
        reward, None, None, dict(required), market_slot,
        functools.partial(_late_replacement, cfg, seed, counter, like.required_prestige, specialties),
    )
