"""Operation: identical action scripts into EcoGym's platform tools and bizsim's ``reference`` preset.

Noise is fed identically: the reference's day generator returns the day's retention and growth noise bizsim
drew, and both take action uniforms from one sequence in the same order (or noise is off in both).
"""

from __future__ import annotations

import copy
import functools
import os
import types
from typing import Any

import attrs
import numpy as np
from bizsim.models.operation import ACTIONS, PRESETS, OperationWorld

from ._common import Tally, call_reference, load_yaml, parse, play, quiet, use_checkout

#: Calls that are no operation tool, or a tool with arguments it does not take: refused by both.
INVALID = (("status", {}), ("help", {}), ("acquisition_boost", {"budget": 5}), ("task done", {}))
STATE_KEYS = ("day", "dau", "content_volume", "content_quality", "creator_activity", "engagement_level")


class _Uniforms:
    """A list-like source of uniforms that bizsim's action noise pops from (one shared order)."""

    def __init__(self, seq: list[float]) -> None:
        self.seq, self.i = seq, 0

    def __len__(self) -> int:
        return 2

    def pop(self) -> float:
        self.i += 1
        return self.seq[self.i - 1]


class _RefRng:
    """The reference's ``random.Random`` for actions, fed the same uniforms."""

    def __init__(self, seq: list[float]) -> None:
        self.seq, self.i = seq, 0

    def uniform(self, a: float, b: float) -> float:
        self.i += 1
        return a + (b - a) * self.seq[self.i - 1]


def _reference(path: str) -> tuple[Any, Any, dict, Any]:
    use_checkout(os.path.join(path, "libs", "agno"), os.path.join(path, "config"))
    from agno.tools.operation import platform_operator as po
    from agno.tools.operation.timer import TimerTools
    from operation_bench_utils import operation_bench_cal_metric

    config = load_yaml(os.path.join(path, "config", "operation_config.yaml"))
    return po, TimerTools, config, operation_bench_cal_metric


def run(path: str, runs: int, seed: int, noise: bool, days: int | None = None) -> dict:
    """``runs`` scripts from ``seed``; returns the tally as data."""
    po, TimerTools, config, metric = _reference(path)
    real_random = po.random
    tally = Tally()
    cfg = attrs.evolve(PRESETS["reference"], noise=noise)
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        world = OperationWorld(cfg, seed * 100_000 + r)
        dynamics = copy.deepcopy(config["platform_dynamics_config"])
        dynamics["noise_config"]["enabled"] = noise
        state = copy.deepcopy(config["initial_state"]) | {"_platform_dynamics": dynamics}
        po.random = real_random
        platform = po.PlatformOperatorTools(platform_dynamics=dynamics)
        timer = TimerTools()
        if noise:
            seq = rng.random(4 * (days or cfg.horizon_days) + 8).tolist()
            world._action_u = _Uniforms(seq)
            platform._rng = _RefRng(seq)
            day_noise = (world._retention_noise, world._growth_noise)
            po.random = types.SimpleNamespace(Random=functools.partial(_DayRng, day_noise))
        tools = {a: getattr(platform, a) for a in ACTIONS} | {"task_done": timer.task_done}
        horizon = days or cfg.horizon_days
        tally.runs += 1
        for day in range(horizon):
            if world.done:
                break
            kind = rng.integers(10)
            if kind < 7:
                name, args = ACTIONS[rng.integers(len(ACTIONS))], {}
            elif kind < 9:
                name, args = INVALID[rng.integers(len(INVALID))]
            else:
                name, args = None, None  # a day without an action
            if name == "help":  # bizsim's free help tool; the reference has none
                tally.skip("help (bizsim's own tool)")
                name = None
            if name is not None:
                theirs = parse(call_reference(tools, state, name, args))
                ours = play(world, name, args)
                tally.check("action result", theirs, ours, f"run {r} day {day} {name}")
            theirs = parse(call_reference(tools, state, "task_done", {}))
            ours = play(world, "task_done", {})
            tally.check("day report", theirs, ours, f"run {r} day {day}")
            mine = {"day": world.day, "dau": world.dau, "content_volume": world.content_volume,
                    "content_quality": world.content_quality, "creator_activity": world.creator_activity,
                    "engagement_level": world.engagement_level}
            if tally.check("day state", {k: state[k] for k in STATE_KEYS}, mine, f"run {r} day {day}"):
                tally.diverge(f"run {r} day {day}")
                break
            if state["dau"] < cfg.collapse_dau:
                break
        with quiet():
            m = metric(state)
        s = world.summary()
        ours = {"final_day": world.day, "final_dau": s["final_dau"], "avg_dau": round(s["mean_dau"], 2),
                "max_dau": s["peak_dau"], "avg_retention": round(s["mean_retention"], 4),
                "final_content_volume": s["final_content_volume"],
                "final_content_quality": s["final_content_quality"],
                "final_creator_activity": s["final_creator_activity"],
                "final_engagement_level": s["final_engagement_level"]}
        tally.check("final metrics", m, ours, f"run {r}")
    po.random = real_random
    return tally.report()


class _DayRng:
    """The reference's per-day generator, answering with the day's noise bizsim drew (retention, then growth)."""

    def __init__(self, noise: tuple[list[float], list[float]], day: int) -> None:
        self.values = [noise[0][day], noise[1][day]] if day < len(noise[0]) else [0.0, 0.0]

    def uniform(self, a: float, b: float) -> float:
        return self.values.pop(0)
