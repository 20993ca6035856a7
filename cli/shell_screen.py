"""``bizsim shell``: a person plays a world at a prompt.

On a terminal the prompt has line editing and history (the arrow keys), Tab completes command names, their
flags and the ids the world has shown so far, ``help`` prints text, and answers are summarised as tables (``json``
prints the last answer whole). Piped input gets one JSON answer per line, as scripts expect. With ``--out`` the
session is recorded as a run directory like any agent's (a human baseline ``verify``, ``load`` and the viewer read).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bizsim.simcore.money import dollars_text, money_unit

__all__ = ["Completer", "render", "run_shell"]

#: Rows of a listing shown before the rest is left to ``json``.
_ROWS = 15
#: Columns of a listing table, and the width of one cell.
_COLUMNS, _CELL = 8, 28
#: Ids kept for completion (the most recent win).
_MAX_IDS = 2_000


def run_shell(world: Any, send: Callable[[str], dict], *, interactive: bool, as_json: bool, banner: str,
              prompt: Callable[[], str]) -> None:
    """Read command lines until the episode ends, ``quit`` or end of input; print each answer.

    ``send`` runs one line on the world and returns its answer (a Driver's, or a recorded episode's).
    """
    completer = Completer(world)
    if interactive:
        _enable_line_editing(completer)
        print(banner)
    last: dict | None = None
    while not world.done:
        try:
            line = input(prompt() if interactive else "")
        except EOFError:
            break
        line = line.strip()
        if not line:
            continue
        if line in ("quit", "exit"):
            break
        if line == "json" and interactive:
            print(json.dumps(last, indent=2, ensure_ascii=False) if last is not None else "no answer yet")
            continue
        last = send(line)
        completer.learn(last)
        print(json.dumps(last, indent=2) if as_json or not interactive
              else render(last, money=getattr(world, "money_fields", {})))


def render(result: Mapping[str, Any], money: Mapping[str, str] | None = None) -> str:
    """An answer for a person: help as text, errors in a line, scalars as ``key: value``, listings as tables.

    Money is in dollars wherever it is shown: ``*_cents`` fields, and the fields ``money`` names (the world's
    :attr:`~bizsim.simcore.World.money_fields`: ``{"balance_delta": "cents", "money": "dollars"}``; the rule is
    :func:`bizsim.simcore.money.money_unit`, the browser play page's too). A field with
    a ``*_cents`` twin (``money`` beside ``money_cents``) is shown once, from the exact one.
    """
    if "error" in result:
        hint = f"\n  hint: {result['hint']}" if result.get("hint") else ""
        return f"error: {result['error']}{hint}"
    if isinstance(result.get("help"), str):
        return str(result["help"])
    units = dict(money or {})
    lines: list[str] = []
    tables: list[str] = []
    for key, value in _once(result).items():
        if _is_listing(value):
            tables.append(_table(key, value, units))
        elif isinstance(value, Mapping) and all(not isinstance(v, (Mapping, list)) for v in value.values()):
            # A money field holding a mapping holds amounts by name (prices by product): its unit is its values'.
            unit = money_unit(key, units)
            lines.append(f"{_label(key)}: " + ", ".join(
                f"{_label(k)} {_cell(k, v, units) if unit is None else dollars_text(v, unit) or _cell(k, v, units)}"
                for k, v in _once(value).items()))
        else:
            lines.append(f"{_label(key)}: {_cell(key, value, units, wide=True)}")
    return "\n".join(lines + tables)


def _once(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` without those a ``*_cents`` twin repeats (``money`` beside ``money_cents``: the label is the same)."""
    return {k: v for k, v in fields.items() if f"{k}_cents" not in fields}


def _is_listing(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, Mapping) for v in value)


#: What a column takes beside its text: a space of padding on each side and the divider after it.
_GAP = 3


def _table(name: str, rows: list[Mapping[str, Any]], units: Mapping[str, str] | None = None) -> str:
    from io import StringIO

    from rich import box
    from rich.console import Console
    from rich.table import Table

    units = units or {}
    columns: list[str] = []
    for row in rows[:_ROWS]:
        columns += [k for k in _once(row) if k not in columns]
    cells = {c: [_cell(c, row.get(c), units) for row in rows[:_ROWS]] for c in columns[:_COLUMNS]}
    width = shutil.get_terminal_size((120, 24)).columns
    # A column is as wide as its name and its values (up to a cell's): a name is never cut. The columns that fit
    # the terminal are shown; the others are named under the table.
    shown: list[tuple[str, int]] = []
    used = 1  # the table's edge
    for column, values in cells.items():
        wide = max(len(_label(column)), min(_CELL, max(len(v) for v in values)))
        if shown and used + wide + _GAP > width:
            break
        shown.append((column, wide))
        used += wide + _GAP
    table = Table(title=f"{name} ({len(rows)})", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column, wide in shown:
        table.add_column(_label(column), no_wrap=True, overflow="ellipsis", min_width=wide, max_width=wide)
    for k in range(min(len(rows), _ROWS)):
        table.add_row(*(cells[c][k] for c, _ in shown))
    buffer = StringIO()
    Console(file=buffer, width=max(width, used), force_terminal=False, color_system=None).print(table)
    notes = []
    if len(rows) > _ROWS:
        notes.append(f"{len(rows) - _ROWS} more rows")
    if len(columns) > len(shown):
        notes.append(f"columns not shown: {', '.join(_label(c) for c in columns[len(shown):])}")
    tail = f"... {'; '.join(notes)} (type `json` for the whole answer)" if notes else ""
    return buffer.getvalue().rstrip("\n") + ("\n" + tail if tail else "")


def _label(key: str) -> str:
    """A field's name as shown: money fields lose their ``_cents``, as their values are shown in dollars."""
    return key.removesuffix("_cents")


def _cell(key: str, value: Any, units: Mapping[str, str] | None = None, wide: bool = False) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    amount = dollars_text(value, money_unit(key, units))
    if amount is not None:
        return amount
    if isinstance(value, (int, float, str)):
        return str(value)
    if _is_listing(value) and all(not isinstance(v, (Mapping, list)) for row in value for v in row.values()):
        # A short listing inside a cell (a task's requirements): its values, a row at a time.
        text = "; ".join(" ".join(_cell(k, v, units) for k, v in _once(row).items()) for row in value)
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    limit = 120 if wide else _CELL * 2
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Completer:
    """Tab completion: command names (several words), a command's flags, and ids the world has answered with."""

    def __init__(self, world: Any) -> None:
        commands = world.commands
        self._names = sorted(s.name for s in commands.visible())
        self._flags = {s.name: [p.flag for p in s.params] for s in commands.visible()}
        self._ids: dict[str, None] = {}
        self._matches: list[str] = []

    def learn(self, result: Any) -> None:
        """Remember the ids (values of ``*_id`` fields, at any depth) of an answer."""
        for value in _ids_in(result):
            self._ids.pop(value, None)
            self._ids[value] = None
        while len(self._ids) > _MAX_IDS:
            self._ids.pop(next(iter(self._ids)))

    def candidates(self, buffer: str) -> list[str]:
        """Whole-line completions of ``buffer``: every way to finish its last word."""
        words = buffer.split(" ")
        head, word = " ".join(words[:-1]), words[-1]
        command = next((n for n in sorted(self._names, key=len, reverse=True) if head == n or head.startswith(n + " ")), None)
        if command is None:
            return [n + " " for n in self._names if n.startswith(buffer)]
        prefix = (head + " ") if head else ""
        if word.startswith("-"):
            pool: Iterable[str] = self._flags.get(command, [])
        else:
            pool = list(reversed(self._ids)) + self._flags.get(command, [])
        return [prefix + w + " " for w in pool if w.startswith(word)]

    def complete(self, text: str, state: int) -> str | None:
        """The readline completion function: readline replaces the last word, so each whole-line match is cut
        to what follows the text before that word."""
        if state == 0:
            import readline

            begin = readline.get_begidx()
            self._matches = [m[begin:] for m in self.candidates(readline.get_line_buffer()[: readline.get_endidx()])]
        return self._matches[state] if state < len(self._matches) else None


def _ids_in(value: Any, key: str = "") -> Iterable[str]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _ids_in(v, str(k))
    elif isinstance(value, list):
        for v in value[:1_000]:
            yield from _ids_in(v, key)
    elif isinstance(value, str) and (key == "id" or key.endswith("_id")) and 0 < len(value) <= 64 and " " not in value:
        yield value


def _enable_line_editing(completer: Completer) -> None:
    """History and Tab completion through the standard library's readline, where the platform has it."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: a plain prompt still works
        return
    readline.set_completer_delims(" ")
    readline.set_completer(completer.complete)
    readline.parse_and_bind("tab: complete")
    if sys.platform == "darwin" and "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
