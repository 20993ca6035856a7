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

from .config import StartupConfig
from .state import DOMAINS, Client, Employee, Task, q3, q4
from decimal import Decimal

__all__ = [
    "stream", "generate_employees", "generate_clients", "generate_market", "generate_replacement", "FIXED_WORLD_SEED",
]

FIXED_WORLD_SEED = 1
_TIER_PATTERN = ("junior",) * 5 + ("mid",) * 3 + ("senior",) * 2
_FORCED_PRESTIGE_ONE = 10
_CLIENT_NAMES = (
    "Nexus AI", "Vertex Labs", "Quantum Dynamics", "Atlas Computing", "Helix Systems", "Orion Data",
    "Cipher Corp", "Prism Analytics", "Nova Research", "Zenith Technologies", "Apex Robotics",
    "Stratos Cloud", "Vanguard ML", "Equinox Labs", "Cortex Intelligence",
)
MAX_CLIENTS = len(_CLIENT_NAMES)


def stream(seed: int, key: str) -> random.Random:
    """The named stdlib stream of a seed."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


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
    tiers = [_TIER_PATTERN[i % len(_TIER_PATTERN)] for i in range(cfg.num_employees)]
    stream(FIXED_WORLD_SEED, "tier_assignment").shuffle(tiers)
    out = []
    for idx in range(1, cfg.num_employees + 1):
        rng = stream(FIXED_WORLD_SEED, f"employee_{idx}")
        tier = cfg.tiers[tiers[idx - 1]]
        rates = {d: Decimal("%.4f" % round(rng.uniform(tier.rate_min, tier.rate_max), 4)) for d in DOMAINS}
        raw = round(rng.triangular(tier.min_cents, tier.max_cents, tier.max_cents))
        salary = int(max(tier.min_cents, min(tier.max_cents, raw)))
        out.append(Employee(make_uid(FIXED_WORLD_SEED, "employee", idx), f"Emp_{idx}", tier.name, salary, rates))
    return out


def _tier_label(mult: float, cfg: StartupConfig) -> str:
    if mult < cfg.client_tier_premium_threshold:
        return "Standard"
    if mult < cfg.client_tier_enterprise_threshold:
        return "Premium"
    return "Enterprise"


def generate_clients(cfg: StartupConfig) -> list[Client]:
    """The fixed clients, adversarial ones first, then shuffled into client-index order."""
    rng = stream(FIXED_WORLD_SEED, "clients")
    names = rng.sample(_CLIENT_NAMES, cfg.num_clients)
    n_adversarial = max(1, round(cfg.num_clients * cfg.loyalty_rat_fraction))
    clients = []
    for i, name in enumerate(names):
        mult = round(rng.triangular(cfg.client_reward_mult_low, cfg.client_reward_mult_high, cfg.client_reward_mult_mode), 2)
        tier = _tier_label(mult, cfg)
        n_spec = 1 if rng.random() < cfg.client_single_specialty_prob else 2
        specialties = list(rng.sample(DOMAINS, n_spec))
        if i < n_adversarial:
            loyalty = round(rng.uniform(-1.0, -0.3), 3)
            mult = max(mult, cfg.client_reward_mult_high * 0.75)
        else:
            loyalty = round(rng.triangular(-0.3, 1.0, cfg.loyalty_mode), 3)
        clients.append(Client(make_uid(FIXED_WORLD_SEED, "client", i), name, mult, tier, specialties, loyalty))
    rng.shuffle(clients)
    for i, c in enumerate(clients):
        c.index = i
    return clients


def _pick_domains(rng: random.Random, k: int, specialties: list[str], bias: float) -> list[str]:
    if not specialties or k <= 0:
        return rng.sample(DOMAINS, k)
    available = list(DOMAINS)
    favoured = [d for d in DOMAINS if d in specialties]
    first = rng.choice(favoured) if favoured and rng.random() < bias else rng.choice(available)
    picked = [first]
    available.remove(first)
    if k > 1 and available:
        picked.extend(rng.sample(available, min(k - 1, len(available))))
    return picked


class _Draws:
    """A config's samplers, looked up once per generation run."""

    __slots__ = ("domain_count", "qty", "reward", "delta", "boost", "prestige")

    def __init__(self, cfg: StartupConfig) -> None:
        d = cfg.dist
        self.domain_count = d.domain_count.sampler()
        self.qty = d.required_qty.sampler()
        self.reward = d.reward_funds_cents.sampler()
        self.delta = d.reward_prestige_delta.sampler()
        self.boost = d.skill_boost.sampler()
        self.prestige = d.required_prestige.sampler()


def _requirements(rng: random.Random, cfg: StartupConfig, draws: _Draws, prestige: int, specialties: list[str]) -> dict[str, int]:
    k = int(draws.domain_count(rng))
    domains = _pick_domains(rng, k, specialties, cfg.task_specialty_domain_bias)
    scale = 1 + cfg.prestige_qty_scale * (prestige - 1)
    return {d: int(int(draws.qty(rng)) * scale) for d in domains}


def _required_trust(rng: random.Random, cfg: StartupConfig, reward: int) -> int:
    dist = cfg.dist.reward_funds_cents
    floor = dist.low if dist.low is not None else 300_000
    ceiling = dist.high if dist.high is not None else 4_000_000
    if reward <= floor:
        return 0
    frac = min(1.0, (reward - floor) / (ceiling - floor))
    ramp = cfg.trust_reward_ramp
    prob = max(0.0, (frac - cfg.trust_reward_threshold) / ramp) if ramp > 0 else 0.0
    if rng.random() >= prob:
        return 0
    return max(1, min(int(1 + frac * cfg.trust_level_reward_scale), cfg.trust_level_max_required))


def _draw_task(rng, cfg, draws, prestige, specialties):
    required = _requirements(rng, cfg, draws, prestige, specialties)
    reward = int(int(draws.reward(rng)) * (1 + cfg.reward_prestige_scale * (prestige - 1)))
    required_trust = _required_trust(rng, cfg, reward)
    if required_trust > 0:
        reward = int(reward * (1.0 + cfg.trust_gated_reward_boost * required_trust))
    delta = q3(draws.delta(rng))
    boost = q4(draws.boost(rng))
    return required, reward, required_trust, delta, boost


@functools.lru_cache(maxsize=64)
def _market_specs(cfg: StartupConfig, seed: int, specialties: tuple[tuple[str, ...], ...], multipliers: tuple[float, ...]):
    # Generation is a pure function of (config, seed): sweeps that run several
    # agents on one seed generate its market once.
    out = []
    draws = _Draws(cfg)
    n = len(specialties)
    for idx in range(1, cfg.num_market_tasks + 1):
        rng = stream(seed, f"task_{idx}")
        prestige = 1 if idx - 1 < _FORCED_PRESTIGE_ONE else int(draws.prestige(rng))
        ci = (idx - 1) % n
        required, reward, trust, delta, boost = _draw_task(rng, cfg, draws, prestige, list(specialties[ci]))
        out.append((idx, ci, prestige, trust, int(reward * multipliers[ci]), delta, boost, tuple(required.items())))
    return tuple(out)


def generate_market(cfg: StartupConfig, seed: int, clients: list[Client]) -> list[Task]:
    """The initial market: tasks dealt round-robin to clients, rewards times client multiplier."""
    specs = _market_specs(cfg, seed, tuple(tuple(c.specialties) for c in clients), tuple(c.multiplier for c in clients))
    return [
        Task(task_uid(seed, idx), idx, f"Task-{idx}", clients[ci], prestige, trust, reward, delta, boost, dict(req), idx - 1)
        for idx, ci, prestige, trust, reward, delta, boost, req in specs
    ]


@functools.lru_cache(maxsize=8192)
def _replacement_spec(cfg: StartupConfig, seed: int, counter: int, prestige: int, specialties: tuple[str, ...]):
    rng = stream(seed, f"replenish_{counter}")
    required, reward, trust, delta, boost = _draw_task(rng, cfg, _Draws(cfg), prestige, list(specialties))
    return tuple(required.items()), reward, trust, delta, boost


def generate_replacement(
    cfg: StartupConfig, seed: int, counter: int, serial: int, like: Task, market_slot: int | None
) -> Task:
    """The task that refills the market after ``like`` is accepted (stream ``replenish_{counter}``)."""
    required, reward, trust, delta, boost = _replacement_spec(
        cfg, seed, counter, like.required_prestige, tuple(like.client.specialties)
    )
    return Task(
        task_uid(seed, serial), serial, f"Task-{counter}", like.client, like.required_prestige, trust,
        reward, delta, boost, dict(required), market_slot,
    )
