"""Freelance: identical action scripts into EcoGym's task, execution, relax and timer tools and bizsim's
``reference`` preset on the reference's own task file.

The reference's model roles and its unseeded sampling are fed bizsim's: discovery samples the tasks bizsim drew,
pricing quotes bizsim's auditor's price, the judge is bizsim's answer checker and the settlement pays what
bizsim's auditor pays. Everything else is the reference's own code.
"""

from __future__ import annotations

import copy
import json
import os
import types
from typing import Any

import attrs
import numpy as np
from bizsim.models.freelance import FreelanceWorld
from bizsim.models.freelance.presets import PRESETS

from ._common import Tally, call_reference, load_yaml, parse, play, quiet, use_checkout

#: The reference's browse rows spell this key with leading spaces; compared as the key it means.
_ODD_KEY = "                    estimated_payment"


def _reference(path: str) -> dict:
    use_checkout(os.path.join(path, "libs", "agno"), os.path.join(path, "config"))
    import tempfile

    import yaml
    from agno.tools.freelance import task_pool
    from agno.tools.freelance.relax import RelaxTools
    from agno.tools.freelance.task_settle import TaskExecutionTools
    from agno.tools.freelance.timer import TimerTools
    from freelance_bench_utils import freelance_is_finished

    # The reference's launcher hands its tools the config with its includes resolved, as a file: so do we.
    config = load_yaml(os.path.join(path, "config", "freelance_config.yaml"))
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False, encoding="utf-8") as f:
        yaml.safe_dump(config, f, allow_unicode=True, sort_keys=False)
    return {"pool": task_pool, "Relax": RelaxTools, "Exec": TaskExecutionTools, "Timer": TimerTools,
            "finished": freelance_is_finished, "config_path": f.name, "config": config,
            "tasks": os.path.join(path, "data", "freelance", "tasks.jsonl")}


def _action(rng: np.random.Generator, world: FreelanceWorld, seen: list[int]) -> tuple[str, Any, str | None]:
    """One call of a mixed script ``(tool, arguments, why it is not compared or None)``."""
    pool = world.pool
    pick = rng.integers(100)
    if pick < 18 or not pool and pick < 60:
        kind = ["free", "paid", "free", "paid", "FREE", "Paid", "premium"][rng.integers(7)]
        why = "tasks_discover: a refresh type outside free/paid (bizsim refuses it)" if kind == "premium" else None
        return "tasks_discover", {"refresh_type": kind}, why
    if pick < 30:
        return "tasks_browse", {}, None
    if pick < 45:
        return "task_inspect", {"task_id": _some_id(rng, pool, seen)}, None
    if pick < 80:
        tid = _some_id(rng, pool, seen)
        form = rng.integers(8)
        if form < 4 and tid.isdigit() and int(tid) < len(world.tasks):
            text = world.answer_of(tid)
        elif form < 6:
            text = ["0", "I do not know", "42", "yes", "The answer is 7."][rng.integers(5)]
        else:
            text = ["", "   ", "\n"][rng.integers(3)]
        return "solution_submit", {"task_id": tid, "solution_text": text}, None
    if pick < 92:
        level = ["low", "medium", "high", "Low", "HIGH"][rng.integers(5)]
        return "energy_restore", {"level": level}, None
    name = ["status_check", "tasks_discover", "help"][rng.integers(3)]
    why = {"tasks_discover": "tasks_discover without refresh_type (bizsim's default: free)",
           "help": "help (bizsim's own tool)"}.get(name)
    return name, {}, why


def _some_id(rng: np.random.Generator, pool: list[int], seen: list[int]) -> str:
    r = rng.integers(10)
    if pool and r < 6:
        return str(pool[rng.integers(len(pool))])
    if seen and r < 8:
        return str(seen[rng.integers(len(seen))])
    return ["0" + str(pool[0]) if pool else "00", " 5", "abc", "99999"][rng.integers(4)]


def _state(world: FreelanceWorld) -> dict:
    return {"day": world.day, "money": world.money_cents / 100, "energy": world.energy, "stress": world.stress,
            "skill_rating": dict(world.skills), "task_pool": [str(t) for t in world.pool],
            "tasks_completed_today": world.submissions_today}


class _Feed:
    """What the reference's model roles and unseeded sampling are given: bizsim's draws and auditor."""

    def __init__(self, world: FreelanceWorld, state: dict) -> None:
        self.world, self.state = world, state
        self.picked: list[str] = []  # the tasks bizsim's last discovery pooled, as the reference's ids
        self.tid: str | None = None  # the task being judged, for the settlement that follows

    def sample(self, population: Any, k: int) -> list[str]:
        """``random.sample`` of the reference's discovery: the tasks bizsim drew, in its order."""
        return list(self.picked[:k])

    def price(self, session_state: dict, question: str, category: str, complexity_hint: str, **_: Any) -> str:
        """The reference's pricing call: bizsim's quote for the task with this question."""
        tid = next(t for t in self.picked if self.state["all_tasks_db"][t].get("question") == question)
        cents, effort = self.world.quotes[int(tid)]
        return json.dumps({"status": "success", "base_payment": cents / 100, "estimated_effort": effort})

    def evaluate(self, task: dict, solution: str) -> bool:
        """The reference's judge: bizsim's answer checker."""
        self.tid = task["id"]
        return self.world.auditor.judge(self.world.tasks[int(task["id"])], solution)

    def settle(self, session_state: dict, is_success: bool, **_: Any) -> str:
        """The reference's settlement: what bizsim's auditor pays (nothing for a failure)."""
        task = self.world.tasks[int(self.tid)]
        paid = self.world.auditor.settle(task, "", self.world.quotes[task.id][0]) if is_success else 0
        return json.dumps({"status": "success", "final_money": paid / 100})


def _browse(theirs: Any) -> Any:
    if isinstance(theirs, list):
        rows = [{("estimated_payment" if k == _ODD_KEY else k): v for k, v in row.items()} for row in theirs]
        return {"status": "success", "tasks": rows, "count": len(rows)}
    return theirs


def run(path: str, runs: int, seed: int, noise: bool = True, days: int | None = None) -> dict:
    """``runs`` scripts from ``seed`` (noise does not apply: the reference's draws are fed bizsim's)."""
    ref = _reference(path)
    cfg = attrs.evolve(PRESETS["reference"], tasks_path=ref["tasks"])
    tally = Tally()
    with quiet():
        manager = ref["pool"].TaskManagementTools(dataset_path=ref["tasks"], config_path=ref["config_path"])
        execution = ref["Exec"](config_path=ref["config_path"])
        relax = ref["Relax"](config_path=ref["config_path"])
        timer = ref["Timer"](config_path=ref["config_path"])
        base = copy.deepcopy(ref["config"]["initial_state"])
        manager._ensure_dataset_loaded(base)
    real_random = ref["pool"].random
    horizon = days or cfg.horizon_days
    budget = cfg.daily_budget
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        world = FreelanceWorld(cfg, seed * 100_000 + r)
        state = copy.deepcopy(base)
        fed = _Feed(world, state)
        ref["pool"].random = types.SimpleNamespace(sample=fed.sample)
        manager.pricing_tool = types.SimpleNamespace(estimate_task_price=fed.price)
        execution._evaluate_solution = fed.evaluate
        execution.settlement_tool = types.SimpleNamespace(settle_task_payment=fed.settle)
        tools = {"tasks_browse": manager.tasks_browse, "task_inspect": manager.task_inspect,
                 "tasks_discover": manager.tasks_discover, "solution_submit": execution.solution_submit,
                 "energy_restore": relax.energy_restore, "task_done": timer.task_done}
        seen: list[int] = []
        tally.runs += 1
        for day in range(horizon):
            for _ in range(rng.integers(0, budget + 1)):
                name, args, why = _action(rng, world, seen)
                if why:  # a listed deliberate difference: sent to neither
                    tally.skip(why)
                    continue
                before = list(world.pool)
                ours = play(world, name, args)
                fed.picked = [str(t) for t in world.pool if t not in before]
                seen += [t for t in world.pool if t not in seen]
                theirs = parse(call_reference(tools, state, name, args))
                skip = ("energy_change", "stress_change") if name == "energy_restore" else ()
                if name == "energy_restore" and "changes" in theirs:
                    tally.skip("energy_restore changes as numbers, not '+20' text")
                if name == "tasks_browse":
                    theirs = _browse(theirs)
                tally.check("action result", theirs, ours, f"run {r} day {day} {name} {args}", skip)
                if tally.check("state after action", {k: state.get(k) for k in _state(world)}, _state(world),
                               f"run {r} day {day} after {name}"):
                    tally.diverge(f"run {r} day {day} after {name}")
                    break
                if world.done or ref["finished"](state, horizon):
                    break
            if tally.diverged and tally.diverged[-1].startswith(f"run {r} "):
                break
            if world.done or ref["finished"](state, horizon):
                tally.check("ended together", True, bool(world.done), f"run {r} day {day}")
                break
            theirs = parse(call_reference(tools, state, "task_done", {}))
            ours = play(world, "task_done", {})
            tally.check("day report", theirs, ours, f"run {r} day {day}")
            if tally.check("day state", {k: state.get(k) for k in _state(world)}, _state(world),
                           f"run {r} day {day}"):
                tally.diverge(f"run {r} day {day}")
                break
            if world.done or ref["finished"](state, horizon):
                tally.check("ended together", bool(ref["finished"](state, horizon)), bool(world.done), f"run {r}")
                break
        tally.compared["submissions"] += len(world.history)
        tally.compared["accepted submissions"] += sum(1 for h in world.history if h[2])
    ref["pool"].random = real_random
    return tally.report()
