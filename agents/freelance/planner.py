"""A planner for the freelance world: picks tasks by pay per energy, solves them from their text, rests in time.

It knows only what the tools tell an LLM agent: ``tasks_browse`` listings
(category, complexity, days left, quoted payment), ``task_inspect`` (the
question and quoted effort), and the results of discovery, submission, rest
and ``task_done`` (money, energy, stress, mean skill). The rules it plans
with are the ones the tool descriptions and the role prompt state (costs of
discovery and rest, the daily limits) and the career mechanics the paper
documents (energy and stress by effort and skill; slips five per cent of the
time, more above one's skill, three times as often at stress 70 or more).

- **Answers.** :func:`~bizsim.agents.freelance.solver.solve_question` works
  each answer out from the question text; a question it cannot read is left
  alone.
- **Choice of tasks.** Every action is scarce: five a day, and a task takes
  two (``task_inspect``, then ``solution_submit``). A task's worth is its
  pay times the chance it is not slipped, less the energy it burns priced
  at ``energy_price`` dollars a point (what rest costs). It inspects the
  most worthwhile tasks of the pool, skipping those below the
  ``skip_share`` quantile of the tasks it has seen (that share shrinks to
  nothing over the last ``taper_days``: late in the year any task beats
  none). Skill is tracked per category from the documented growth rule.
- **Discovery.** Paid discovery (6 tasks for $2 and 5 energy) beats free
  (4 tasks for 8 energy) per action and per energy point. It discovers
  only when the pool holds nothing worth doing (so skipped tasks are the
  ones evicted) and browses once per discovery.
- **Rest.** Lazily, because energy has no value until it is spent: it rests
  (``rest_level``) only when the next action would need energy it lacks,
  and before stress reaches ``stress_limit`` (slips triple at 70, the career
  ends at 100).
"""

from __future__ import annotations

from typing import Any

from bizsim.agents.declare import Process, agent
from bizsim.models.freelance import FreelanceWorld
from bizsim.simcore import CommandError

from .solver import solve_question

__all__ = ["planner"]

#: Quoted effort by complexity before any task of a kind is inspected (the reference's fallback efforts).
_PRIOR_EFFORT = {"Low": 3.0, "Medium": 5.5, "High": 8.5}
#: Stress at and above which slips are three times as likely (the role prompt says so).
_SLIP_STRESS = 70
_SLIP_GAMMA = 3.0


class _Task:
    """What the planner knows of one task it has seen listed."""

    __slots__ = ("category", "complexity", "effort", "id", "last_day", "pay", "solution")

    def __init__(self, tid: str, category: str, complexity: str, pay: float, last_day: int) -> None:
        self.id, self.category, self.complexity = tid, category, complexity
        self.pay, self.last_day = pay, last_day
        self.effort: float | None = None
        self.solution: str | None = None


def _energy_cost(effort: float, skill: float) -> int:
    return int((2 + 0.8 * effort) * _strain(effort, skill))


def _strain(effort: float, skill: float) -> float:
    return max(0.4, 1 - (skill - 10 * effort) / 100)


def planner(
    world: FreelanceWorld,
    skip_share: float = 0.15,
    taper_days: int = 30,
    energy_price: float = 1.0,
    rest_level: str = "medium",
    stress_limit: int = 62,
    double_discover: bool = False,
    restock_below: int = 1,
    slip_base: float = 0.05,
    slip_per_shortfall: float = 0.5,
    min_energy: int = 2,
) -> Process:
    """Solve the most worthwhile tasks by rule, two actions a task, resting only when it must.

    Args:
        skip_share: share of the tasks seen (the least worthwhile) it skips.
        taper_days: days before the end over which that share falls linearly to 0.
        energy_price: dollars one energy point is worth when ranking tasks (a medium rest sells 30 for $20
            and one action).
        rest_level: the rest tier it buys (``low``, ``medium`` or ``high``).
        stress_limit: stress at or above which it rests before submitting.
        double_discover: top a pool of skipped tasks up with a second discovery before browsing (fewer
            browses, more energy; about even on ``default``).
        restock_below: it discovers when fewer tasks than this are worth doing (solved or to be read).
        slip_base: its estimate of the chance a right answer is slipped.
        slip_per_shortfall: its estimate of the extra slip chance per point of effort x 10 above skill, / 100.
        min_energy: energy it keeps above what an action costs (energy 0 ends the career).
    """
    cfg = world.config
    budget = world.daily_budget or 5
    horizon = cfg.horizon_days
    cap = cfg.max_submissions_per_day
    max_pool = cfg.max_pool
    paid_cost, paid_energy, paid_stress = cfg.paid_discovery
    free_cost, free_energy, free_stress = cfg.free_discovery
    rest_cost = cfg.rest(rest_level)[0] / 100
    costs = {"paid": (paid_cost / 100, paid_energy, paid_stress), "free": (free_cost / 100, free_energy, free_stress)}
    adds = {"paid": cfg.paid_discovery_tasks, "free": cfg.free_discovery_tasks}
    money = cfg.initial_money_cents / 100
    energy, stress = cfg.initial_energy, cfg.initial_stress
    initial_skill = float(cfg.initial_skill)
    skills: dict[str, float] = {}
    efforts: dict[tuple[str, str], list[float]] = {}  # (category, complexity) -> [sum, count] of quoted efforts
    seen: dict[str, _Task] = {}
    done_ids: set[str] = set()
    pool: list[str] = []  # the last listing's ids, oldest first
    unseen = 0  # tasks discovered since the last listing
    day = dry_until = 0
    left = budget  # the day's actions left: reset each morning below, counted down by call()

    def call(name: str, **args: Any) -> dict | None:
        nonlocal left
        try:
            out = world.call(name, **args)
        except CommandError:
            return None
        left -= 1
        return out

    def effort_of(t: _Task) -> float:
        if t.effort is not None:
            return t.effort
        s = efforts.get((t.category, t.complexity))
        return s[0] / s[1] if s else _PRIOR_EFFORT.get(t.complexity, 5.5)

    def worth(t: _Task) -> float:
        e = effort_of(t)
        skill = skills.get(t.category, initial_skill)
        rise = int((1 + 0.5 * e) * _strain(e, skill))
        p = slip_base + slip_per_shortfall * max(0.0, 10 * e - skill) / 100
        if stress + rise >= _SLIP_STRESS:
            p *= _SLIP_GAMMA
        return t.pay * (1 - min(1.0, p)) - energy_price * _energy_cost(e, skill)

    def threshold() -> float:
        share = skip_share * min(1.0, max(0.0, (horizon - 1 - day) / max(1, taper_days)))
        if share <= 0 or not seen:
            return float("-inf")
        values = sorted(worth(t) for t in seen.values())
        return values[min(len(values) - 1, int(share * len(values)))]

    def live(tid: str) -> bool:
        return tid not in done_ids and seen[tid].last_day >= day

    def rest() -> bool:
        nonlocal money, energy, stress
        if money - rest_cost < 1 or left < 1:
            return False
        out = call("energy_restore", level=rest_level)
        if out is None:
            return False
        money, energy, stress = (out["current_state"][k] for k in ("money", "energy", "stress"))
        return True

    def rest_if(need: int, gain: float) -> bool:
        """Rest when ``need`` energy is not there and the rest pays; False when the action cannot be done."""
        if energy >= need + min_energy:
            return True
        if day >= horizon - 1 and gain < rest_cost:
            return False  # no tomorrow to use the rest's remaining energy on
        return rest() and energy >= need + min_energy and left > 0

    while not world.done:
        left = budget
        subs = 0
        bar = threshold()
        while left > 0 and not world.done:
            pool = [tid for tid in pool if live(tid)]
            ready = [seen[t] for t in pool if seen[t].solution is not None]
            todo = [seen[t] for t in pool if seen[t].effort is None and worth(seen[t]) >= bar]
            # 1. submit what is solved, soonest to expire first
            if ready and subs < cap:
                t = min(ready, key=lambda t: (t.last_day, -worth(t), int(t.id)))
                e = effort_of(t)
                cost = _energy_cost(e, skills.get(t.category, initial_skill))
                if stress >= stress_limit and left > 1 and rest():
                    continue
                if not rest_if(cost, t.pay):
                    break
                out = call("solution_submit", task_id=t.id, solution_text=t.solution)
                if out is None or "execution_stats" not in out:
                    pool.remove(t.id)  # refused: the next listing tells whether it is still there
                    continue
                subs += 1
                done_ids.add(t.id)
                skill = skills.get(t.category, initial_skill)
                stats = out["execution_stats"]
                energy -= stats["energy_consumed"]
                stress = stats["current_stress"]
                money = out["settlement"]["current_balance"]
                lm = min(2.0, max(0.1, 10 * e / skill)) if skill else 1.0
                if out["is_success"]:
                    skills[t.category] = min(100.0, round(skill + (1 + 0.25 * e) * lm, 2))
                else:
                    skills[t.category] = max(0.0, round(skill - (1.5 + 0.1 * e), 2))
                continue
            todo = [t for t in todo if t.last_day > day or (subs < cap and left >= 2)]
            useful = {t.id for t in ready} | {t.id for t in todo}
            kind = None
            if not unseen or (double_discover and not useful):
                kind = next((k for k in ("paid", "free") if _safe(pool, unseen, adds[k], max_pool, useful)), None)
            if kind is not None and (day < dry_until or (day >= horizon - 1 and (left < 4 or subs >= cap))):
                kind = None  # nothing left to find, or too late to use it
            # 2. list what was discovered (unless a second discovery first would waste nothing)
            if unseen and (kind is None or useful):
                out = call("tasks_browse")
                if out is None:
                    break
                unseen = 0
                pool = []
                for row in out.get("tasks", []):
                    tid = row["task_id"]
                    last = day + int(row["days_left"])
                    if tid in seen:
                        seen[tid].last_day = last
                    else:
                        seen[tid] = _Task(tid, row["category"], row["complexity"], float(row["estimated_payment"]),
                                          last)
                    pool.append(tid)
                bar = threshold()
                continue
            # 3. find more work when too little is in sight
            if kind is not None and len(useful) < restock_below:
                cost, need, rise = costs[kind]
                if money - cost < 1 + rest_cost or not rest_if(need, rest_cost):
                    break
                out = call("tasks_discover", refresh_type=kind)
                if out is not None and out.get("status") == "warning":
                    dry_until = day + min(cfg.lifespans)  # the bank is empty until pooled tasks expire
                if out is None or out.get("status") != "success":
                    break
                money -= cost
                energy -= need
                stress = min(100, stress + rise)
                size = int(out["current_pool_size"])
                unseen = min(size, unseen + int(out["added_count"]))
                pool = pool[max(0, len(pool) - (size - unseen)):]  # the world evicts the oldest
                continue
            # 4. read the most worthwhile task it could still submit in time
            if todo:
                t = max(todo, key=lambda t: (worth(t), -t.last_day, -int(t.id)))
                out = call("task_inspect", task_id=t.id)
                if out is None:
                    pool.remove(t.id)
                    continue
                t.effort = float(out["init_effort"])
                t.pay = float(out["init_payment"])
                s = efforts.setdefault((t.category, t.complexity), [0.0, 0])
                s[0] += t.effort
                s[1] += 1
                t.solution = solve_question(out["question"])
                if t.solution is None:
                    done_ids.add(t.id)  # it cannot answer it: leave it be
                continue
            break
        report = yield world.advance()
        if "error" in report or report.get("status") == "game_over":
            return
        day = report["current_day"]
        money, energy, stress = (report["current_state"][k] for k in ("money", "energy", "stress"))


def _safe(pool: list[str], unseen: int, adds: int, max_pool: int, keep: set[str]) -> bool:
    """True when a discovery adding ``adds`` tasks would evict only listed tasks not in ``keep``."""
    evicted = len(pool) + unseen + adds - max_pool
    return evicted <= len(pool) and not keep.intersection(pool[:max(0, evicted)])


#: The rest tiers the world sells (``energy_restore``'s levels).
_REST_LEVELS = ("low", "medium", "high")


def _check_planner(
    skip_share: float, taper_days: int, energy_price: float, rest_level: str, stress_limit: int,
    double_discover: bool, restock_below: int, slip_base: float, slip_per_shortfall: float, min_energy: int,
) -> None:
    if rest_level not in _REST_LEVELS:
        raise ValueError(f"rest_level(={rest_level!r}) must be one of {', '.join(_REST_LEVELS)}")
    if not 0 <= stress_limit <= 100:
        raise ValueError(f"stress_limit(={stress_limit}) must be in 0..100: stress is points out of 100")
    for name, share in (("skip_share", skip_share), ("slip_base", slip_base)):
        if not 0 <= share <= 1:
            raise ValueError(f"{name}(={share}) must be in [0, 1]: it is a share")
    for name, bound in (("taper_days", taper_days), ("energy_price", energy_price), ("restock_below", restock_below),
                        ("slip_per_shortfall", slip_per_shortfall), ("min_energy", min_energy)):
        if bound < 0:
            raise ValueError(f"{name}(={bound}) must be >= 0")


planner = agent(planner, check=_check_planner)
