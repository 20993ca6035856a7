"""What a run's summary counts of a world's own mechanics: declared once in its registry entry, counted from the
trajectory by whoever shows a run (``bizsim run``'s summary), so none of them names a world.

A world's tallies are lines of counts, ``{"staff": {"hired": ("employee hire",), ...}, ...}``: each line a label,
each count a label and the names it counts, a command (which counts when it succeeded) or a world event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ConfigError

__all__ = ["Tallies", "count_tallies", "tallies", "tally_names"]

#: line label -> count label -> the command and event names it counts.
Tallies = dict[str, dict[str, tuple[str, ...]]]


def tallies(value: Mapping[str, Mapping[str, Iterable[str]]]) -> Tallies:
    """A world's tallies as frozen-enough data (tuples of names), checked.

    Raises:
        ConfigError: a label that is not text, or a count with no name to count.
    """
    out: Tallies = {}
    for line, counts in dict(value).items():
        if not isinstance(line, str) or not line or not isinstance(counts, Mapping):
            raise ConfigError(f"WorldSpec.tallies[{line!r}] must map a line's label to {{count label: names}}")
        out[line] = {}
        for label, names in counts.items():
            names = (names,) if isinstance(names, str) else tuple(names)
            if not isinstance(label, str) or not label or not names or not all(isinstance(n, str) and n for n in names):
                raise ConfigError(f"WorldSpec.tallies[{line!r}][{label!r}](={names!r}) must name the commands or "
                                  "events it counts, e.g. ('employee hire',)")
            out[line][label] = names
    return out


def tally_names(declared: Tallies) -> tuple[str, ...]:
    """Every name the tallies count, in their order, once."""
    return tuple(dict.fromkeys(n for counts in declared.values() for names in counts.values() for n in names))


def count_tallies(declared: Tallies, rows: Iterable[tuple[str, str, Any]]) -> dict[str, dict[str, int]]:
    """Each tally of ``declared`` over trajectory rows ``(kind, name, data)``: a command counts when it succeeded
    (its data holds no ``error``), an event always.

    >>> count_tallies({"staff": {"hired": ("employee hire",), "left": ("employee_resigned",)}},
    ...               [("cmd", "employee hire", {"result": {}}), ("cmd", "employee hire", {"error": {}}),
    ...                ("event", "employee_resigned", {})])
    {'staff': {'hired': 1, 'left': 1}}
    """
    wanted = set(tally_names(declared))
    seen: dict[str, int] = {}
    for kind, name, data in rows:
        if name in wanted and (kind == "event" or (kind == "cmd" and not (isinstance(data, dict) and "error" in data))):
            seen[name] = seen.get(name, 0) + 1
    return {line: {label: sum(seen.get(n, 0) for n in names) for label, names in counts.items()}
            for line, counts in declared.items()}
