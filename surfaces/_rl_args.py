"""The checks every reinforcement-learning entry point runs on its arguments: one clear ConfigError each.

A trainer's configuration arrives as JSON or command-line text, so a bad value must be refused where it is
given, naming the argument, the value and the rule, never later as a raw ``ValueError`` deep in a rollout or a
reward that is silently NaN.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_INT, show
from bizsim.simcore.registry import world_spec

__all__ = ["DEFAULT_SEEDS", "MAX_ROLLOUT_MODEL_CALLS", "check_count", "check_preset", "check_reward_scale",
           "check_seed", "check_start", "check_world", "split_seeds"]

#: The most model calls one rollout may make (``max_turns``): ten times the most a budgeted world year takes.
MAX_ROLLOUT_MODEL_CALLS = 100_000
#: Train and eval seeds of the verifiers environment when none are given: disjoint, as every split must be.
DEFAULT_SEEDS = {"train": "1-64", "eval": "10001-10016"}


def _integer(name: str, value: Any, rule: str) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{name}(={show(value)}) {rule}; a bool is not one")
    try:
        return operator.index(value)
    except TypeError:
        raise ConfigError(f"{name}(={show(value)}) {rule}") from None


def check_seed(value: Any, name: str = "seed") -> int:
    """A world seed: an integer from 0 to 2^63 - 1 (a bool, a float or text is refused, not truncated).

    >>> check_seed(7)
    7

    Raises:
        ConfigError: naming the value and the rule.
    """
    rule = f"must be an integer from 0 to {MAX_INT} (2^63 - 1), e.g. {name}=1"
    seed = _integer(name, value, rule)
    if not 0 <= seed <= MAX_INT:
        raise ConfigError(f"{name}(={show(value)}) {rule}")
    return seed


def check_count(value: Any, name: str, *, low: int = 1, high: int = MAX_INT) -> int:
    """An integer count in ``[low, high]`` (``max_turns``, a port, a number of episodes).

    >>> check_count(200, "max_turns")
    200

    Raises:
        ConfigError: naming the value and the rule.
    """
    rule = f"must be an integer from {low:,} to {high:,}"
    count = _integer(name, value, rule)
    if not low <= count <= high:
        raise ConfigError(f"{name}(={show(value)}) {rule}")
    return count


def check_reward_scale(value: Any, name: str = "reward_scale") -> float:
    """A reward multiplier: a finite number > 0 (text, NaN, infinities, zero and negatives are refused).

    Zero would make every reward 0 and a negative scale would reward losing the metric; neither teaches.

    >>> check_reward_scale(1e-6)
    1e-06

    Raises:
        ConfigError: naming the value and the rule.
    """
    rule = "must be a finite number > 0 (the reward is the metric change times it), e.g. 1e-6 for startup's cents"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name}(={show(value)}) {rule}; give a number, not {type(value).__name__}")
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise ConfigError(f"{name}(={show(value)}) {rule}")
    return number


def check_world(value: Any) -> str:
    """A registered world's name (or versioned id), as its canonical name; text from a config, so a non-string is
    refused with the rule rather than failing inside the registry.

    >>> check_world("operation")
    'operation'

    Raises:
        ConfigError: not a string, or no world of that name.
    """
    if not isinstance(value, str):
        raise ConfigError(f"world(={show(value)}) must be a registered world's name, e.g. 'startup'")
    return world_spec(value).name


def check_preset(world: str, preset: Any, surface: str) -> None:
    """Refuse a preset ``world`` does not have (or a ``.toml`` file that does not load) when it is given, not at
    the first episode.

    Raises:
        ConfigError: naming the preset and the world's presets.
    """
    from bizsim.runs.runspec import RunSpec, world_config

    world_config(RunSpec(world, preset, surface, 1))


def check_start(world: str, start: Any) -> Any:
    """Where episodes of ``world`` start: ``None`` (a fresh world), or ``start`` as a
    :class:`~bizsim.agents.start.StartState`, refused when it is one of another world.

    Raises:
        ConfigError: ``start`` is not a start state or snapshot, or is one of another world.
    """
    from bizsim.agents.start import start_of

    state = start_of(start)
    if state is not None and state.world_name != world:
        raise ConfigError(f"start is a start state of {state.world_name}, not {world}; make one of {world}, e.g. "
                          f"StartState({world!r}, agent=..., until=...)")
    return state


def split_seeds(seeds: Any = None, eval_seeds: Any = None) -> tuple[list[int], list[int]]:
    """Train and eval seed lists from ``{"train": ..., "eval": ...}`` or two seed specs (``"1-100"``, lists).

    >>> split_seeds({"train": "1-3", "eval": [10, 11]})
    ([1, 2, 3], [10, 11])

    Raises:
        ConfigError: a set is empty, or the two share a seed.
    """
    from bizsim.simcore.seeds import parse_seeds

    if isinstance(seeds, Mapping):
        unknown = sorted(set(seeds) - {"train", "eval"})
        if unknown or eval_seeds is not None:
            raise ConfigError("seeds is a table {'train': ..., 'eval': ...}, or train seeds with eval_seeds=...")
        seeds, eval_seeds = seeds.get("train"), seeds.get("eval")
    train = parse_seeds(DEFAULT_SEEDS["train"] if seeds is None else seeds)
    held = parse_seeds(DEFAULT_SEEDS["eval"] if eval_seeds is None else eval_seeds)
    if not train or not held:
        raise ConfigError("train and eval seed sets must each hold at least one seed")
    shared = sorted(set(train) & set(held))
    if shared:
        raise ConfigError(f"train and eval seeds must be disjoint; both hold {shared[:5]}")
    return train, held
