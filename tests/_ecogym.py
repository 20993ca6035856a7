"""Hypothesis strategies and helpers for the EcoGym worlds (operation, vending, freelance)."""

from __future__ import annotations

import json
import shlex
from typing import Any

import simpy
from hypothesis import strategies as st

from bizsim.models.operation import ACTIONS

__all__ = [
    "OPERATION_LINES", "operation_lines", "vending_actions", "render_vending", "play", "play_checked", "end_day",
    "budget_respected",
]

#: Lines an operation agent plausibly sends, valid and not.
OPERATION_LINES = (
    *ACTIONS, *ACTIONS, "task_done", "task_done", "task_done", "status", "help", "help --command creator_incentive",
    "help --command nope",
    "creator_incentive --boost 1", "acquisition boost", "task done", "bizsim task_done", "sim resume", "",
)

_WORDS = ("water", "soda", "cola", "milk", "chips", "candy", "rice", "pasta", "sauce", "oil", "tea", "coffee",
          "shampoo", "batteries", "party", "zzz", "")


def operation_lines() -> st.SearchStrategy[str]:
    """One command line for the operation world."""
    return st.one_of(st.sampled_from(OPERATION_LINES), st.text(max_size=20))


def _quantity() -> st.SearchStrategy[Any]:
    return st.one_of(st.integers(1, 40), st.integers(1, 40), st.integers(-3, 0), st.sampled_from(
        [10.0, "7", None, True, 10**7, [1], 2.5]))


def _price() -> st.SearchStrategy[Any]:
    return st.one_of(st.floats(0.01, 12.0, allow_nan=False), st.sampled_from(["0", "-1", "abc", "nan", "inf", "1e400",
                                                                             "0.004", "2.675", "1e20"]))


def vending_actions() -> st.SearchStrategy[tuple]:
    """One abstract vending action; :func:`render_vending` makes it a command line for the world's current state."""
    return st.one_of(
        st.tuples(st.just("research"), st.lists(st.sampled_from(_WORDS), min_size=1, max_size=2).map(" ".join)),
        st.tuples(st.just("order"), st.integers(0, 20), _quantity()),
        st.tuples(st.just("order"), st.integers(0, 20), _quantity()),
        st.tuples(st.just("price"), st.integers(0, 20), _price()),
        st.tuples(st.just("price"), st.integers(0, 20), _price()),
        st.tuples(st.just("query"), st.integers(0, 20)),
        st.tuples(st.just("done"), st.integers(1, 9)),
        st.tuples(st.just("done"), st.integers(1, 3)),
        st.tuples(st.just("raw"), st.sampled_from([
            "order_place --items '[]'", "order_place --items '[{\"name\": \"x\", \"quantity\": 1}, {}]'",
            "order_place --items '{\"name\": \"x\"}'", "order_place --items 'not json'", "order_place --items '[3]'",
            "order_place --items '[{\"quantity\": 1}]'", "price_query --product-name nope", "status", "help",
            "price_set --product-name nope --price 2", "products_research", "task_done --x 1",
        ])),
        st.tuples(st.just("raw"), st.text(max_size=20)),
    )


def render_vending(world: Any, action: tuple) -> list[str]:
    """The command lines an abstract action stands for (reads the world's state; issues nothing)."""
    kind = action[0]
    names = world.researched_names()
    if kind == "research":
        return [f"products_research --query {shlex.quote(action[1])}"]
    if kind in ("order", "price", "query"):
        name = names[action[1] % len(names)] if names else "Unknown Product"
        if kind == "order":
            items = json.dumps([{"name": name, "quantity": action[2]}])
            return [f"order_place --items {shlex.quote(items)}"]
        if kind == "price":
            return [f"price_set --product-name {shlex.quote(name)} --price {shlex.quote(str(action[2]))}"]
        return [f"price_query --product-name {shlex.quote(name)}"]
    if kind == "done":
        return ["task_done"] * action[1]
    return [action[1]]


def play(world: Any, line: str) -> Any:
    """Run a line; an advance runs to its report. Returns the result or report."""
    out = world.execute(line)
    if isinstance(out, simpy.Event):
        world.env.run(until=out)
        return out.value
    return out


def play_checked(world: Any, line: str) -> dict:
    """:func:`play` a line and check what every EcoGym world promises after it.

    The result is a JSON-able dict; a refusal says why and leaves the state
    untouched; the world's invariants hold.
    """
    before = world.state()
    out = play(world, line)
    assert isinstance(out, dict)
    json.dumps(out, allow_nan=False)
    if "error" in out:
        assert isinstance(out["error"], str) and out["error"]
        assert before == world.state(), line
    assert [] == world.invariants(), line
    return out


def end_day(world: Any) -> dict:
    """``task_done`` and run to the report."""
    return play(world, "task_done")


def budget_respected(world: Any) -> bool:
    """No day of the trajectory holds more accepted counted commands than the daily budget."""
    per_day: dict[int, int] = {}
    for t_us, kind, name, data in world.trajectory:
        if kind != "cmd" or name == "?" or "error" in data:
            continue
        if world.commands[name].counted:
            day = t_us // 86_400_000_000
            per_day[day] = per_day.get(day, 0) + 1
    return all(n <= world.daily_budget for n in per_day.values())
