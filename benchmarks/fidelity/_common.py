"""What the differential scripts share: calling a reference tool, reading results, comparing field by field.

Nothing here holds reference code: the reference is imported from the checkout the user names.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import simpy

__all__ = ["Tally", "call_reference", "compare", "load_yaml", "parse", "play", "quiet", "refused", "use_checkout"]


def load_yaml(path: str) -> dict:
    """A reference config file; its ``!include:...`` tags (prompt text) are read as plain strings."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!include", lambda loader, suffix, node: loader.construct_scalar(node))
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader)


def use_checkout(*paths: str) -> None:
    """Put a reference checkout's import roots first on ``sys.path``."""
    for p in reversed(paths):
        if p not in sys.path:
            sys.path.insert(0, p)


def call_reference(tools: dict[str, Callable[..., Any]], state: dict, name: str, args: Any) -> Any:
    """Run a reference tool as its agent loop does: unknown names and Python errors become ``"Error: ..."`` text."""
    fn = tools.get(name)
    if fn is None:
        return f"Error: Tool {name} not found"
    if not isinstance(args, dict):
        args = {}
    try:
        with quiet():
            return fn(state, **args)
    except Exception as exc:  # noqa: BLE001 - the reference's loop turns every exception into text
        return f"Error: {exc}"


def quiet() -> contextlib.AbstractContextManager:
    """Swallow what the reference prints (timings, metrics) while it runs."""
    return contextlib.redirect_stdout(io.StringIO())


def parse(result: Any) -> Any:
    """A tool result as data: JSON text parsed, other text kept as ``{"__text__": text}``."""
    if isinstance(result, str):
        try:
            return json.loads(result)
        except ValueError:
            return {"__text__": result}
    return result


def refused(result: Any) -> bool:
    """Whether a parsed result is a refusal: bizsim's ``error``, or the reference's error text or status."""
    if not isinstance(result, dict):
        return False
    if "error" in result or "__text__" in result:
        return True
    # "failed" with a reason is a refusal (too tired, too poor); a judged submission that failed has none
    return result.get("status") in ("error", "blocked") or result.get("status") == "failed" and "reason" in result


def play(world: Any, name: str, args: Any) -> Any:
    """Run a bizsim tool call; an advance runs the simulation to its report."""
    out = world.execute_tool(name, args, driven=True)
    if isinstance(out, simpy.Event):
        world.env.run(until=out)
        return out.value
    return out


#: Keys whose values are prose in each implementation's own words: never compared.
PROSE = frozenset({"message", "error", "hint", "__text__", "description"})


def compare(ref: Any, ours: Any, path: str = "", skip: Iterable[str] = ()) -> list[tuple[str, Any, Any]]:
    """Field-by-field differences ``(path, reference value, bizsim value)`` over the reference's fields.

    Fields only bizsim has (``*_cents`` companions, ``error``/``hint``) are bizsim's additions and are not
    compared; prose fields are not compared; numbers compare by value and by kind (10 is not 10.0).
    """
    skip = frozenset(skip) | PROSE
    out: list[tuple[str, Any, Any]] = []
    if refused(ref) != refused(ours):
        out.append((path + "<refused>", refused(ref), refused(ours)))
    _compare(ref, ours, path, skip, out)
    return out


def _compare(ref: Any, ours: Any, path: str, skip: frozenset, out: list) -> None:
    if isinstance(ref, dict) and isinstance(ours, dict):
        for k, v in ref.items():
            if k in skip:
                continue
            if k not in ours:
                out.append((f"{path}.{k}", v, "<missing>"))
            else:
                _compare(v, ours[k], f"{path}.{k}", skip, out)
        return
    if isinstance(ref, (list, tuple)) and isinstance(ours, (list, tuple)):
        if len(ref) != len(ours):
            out.append((f"{path}[len]", len(ref), len(ours)))
        for i, (a, b) in enumerate(zip(ref, ours)):
            _compare(a, b, f"{path}[{i}]", skip, out)
        return
    if isinstance(ref, float) and isinstance(ours, float) and math.isnan(ref) and math.isnan(ours):
        return
    if ref != ours or type(ref) is not type(ours):
        out.append((path or "<value>", ref, ours))


class Tally:
    """Counts of compared values and of differences by kind, plus the first examples of each."""

    def __init__(self) -> None:
        self.compared: Counter[str] = Counter()
        self.differences: Counter[str] = Counter()
        self.examples: dict[str, list] = {}
        self.deliberate: Counter[str] = Counter()
        self.runs = 0
        self.diverged: list[str] = []

    def diverge(self, where: str) -> None:
        """A run whose state parted from the reference's: it is not compared further."""
        self.diverged.append(where)

    def skip(self, why: str) -> None:
        """A call whose results differ on purpose (a listed deliberate difference): counted, not compared."""
        self.deliberate[why] += 1

    def check(self, kind: str, ref: Any, ours: Any, where: str, skip: Iterable[str] = ()) -> list:
        """Compare one result or state; record and return its differences."""
        self.compared[kind] += 1
        diffs = compare(ref, ours, skip=skip)
        if diffs:
            self.differences[kind] += 1
            self.examples.setdefault(kind, [])
            if len(self.examples[kind]) < 5:
                self.examples[kind].append({"where": where, "diffs": diffs[:6]})
        return diffs

    def report(self) -> dict:
        """The counts as JSON-able data."""
        return {"runs": self.runs, "runs_diverged": len(self.diverged), "diverged_at": self.diverged[:10],
                "compared": dict(self.compared), "differences": dict(self.differences),
                "deliberate_not_compared": dict(self.deliberate), "examples": self.examples}
