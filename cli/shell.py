"""``bizsim shell``: a person plays a world by typing its commands.

The session is an agent like any other: a SimPy process that reads a line, issues it, and yields when the line
moves time. It runs through :func:`bizsim.analysis.run_episode`, so ``--out DIR`` writes the same run directory
an agent's run writes, which ``bizsim verify``, ``load`` and the report read: a person's play is a human
baseline the usual tools compare.

On a terminal it keeps a history (the arrow keys), completes commands, their flags and the ids results have
shown (Tab), and prints results as short summaries (``json`` prints the last one whole); read from a pipe it
prints every result as JSON, one script line after another.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Generator, Iterable
from typing import Any

__all__ = ["play", "render"]

#: Rows of a list shown in a summary; the rest is counted (``json`` shows everything).
MAX_ROWS = 8
#: Characters of a nested value shown on one summary line.
MAX_CELL = 60
_ID_KEY = re.compile(r"(^|_)(id|name)$")
_SHELL_WORDS = ("help", "json", "quit", "exit")


def render(result: Any, *, as_json: bool) -> str:
    """A command's result as text: the full JSON, or a summary a person reads at a glance.

    >>> print(render({"help": "task accept --task-id ID\\n  accept a task"}, as_json=False))
    task accept --task-id ID
      accept a task
    >>> print(render({"error": "No such task.", "hint": "Use market browse."}, as_json=False))
    error: No such task.
    hint:  Use market browse.
    """
    if as_json or not isinstance(result, dict):
        return json.dumps(result, indent=2)
    if "error" in result:
        return f"error: {result['error']}" + (f"\nhint:  {result['hint']}" if result.get("hint") else "")
    if "help" in result and isinstance(result["help"], str):
        return result["help"]
    lines = []
    for key, value in result.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"{key}: {len(value)}")
            lines += _table(value)
        else:
            lines.append(f"{key}: {_cell(value)}")
    return "\n".join(lines)


def _table(rows: list[dict]) -> list[str]:
    columns = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))][:7]
    shown = [[_cell(r.get(c), 24) for c in columns] for r in rows[:MAX_ROWS]]
    widths = [max(len(c), *(len(s[i]) for s in shown)) for i, c in enumerate(columns)]
    out = ["  " + "  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    out += ["  " + "  ".join(v.ljust(w) for v, w in zip(s, widths)) for s in shown]
    if len(rows) > MAX_ROWS:
        out.append(f"  ... {len(rows) - MAX_ROWS} more (type `json` for all)")
    return out


def _cell(value: Any, width: int = MAX_CELL) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _ids(value: Any, found: set[str]) -> None:
    """Collect the ids and names a result shows, for completion."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str) and _ID_KEY.search(k) and " " not in v and len(v) < 80:
                found.add(v)
            else:
                _ids(v, found)
    elif isinstance(value, list):
        for v in value:
            _ids(v, found)


class _Completer:
    """Tab completion: command names, then the command's flags, then ids the session has seen."""

    def __init__(self, world: Any, seen: set[str]) -> None:
        specs = list(world.commands.visible())
        self.names = sorted({s.name for s in specs} | set(_SHELL_WORDS))
        self.flags = {s.name: [p.flag for p in s.params] for s in specs}
        self.seen = seen
        self._matches: list[str] = []

    def candidates(self, line: str, text: str) -> list[str]:
        """Completions of the word ``text`` at the end of ``line``."""
        before = line[: len(line) - len(text)]
        command = next((n for n in sorted(self.flags, key=len, reverse=True) if before.startswith(n + " ")), None)
        if command is None:
            # multi-word names: complete the whole name from what was typed so far, offering its next word
            return sorted({n[len(before):].split(" ")[0] for n in self.names if n.startswith(before + text)} - {""})
        if text.startswith("-"):
            return [f for f in self.flags[command] if f.startswith(text)]
        return sorted(v for v in self.seen if v.startswith(text))

    def __call__(self, text: str, state: int) -> str | None:
        import readline

        if state == 0:
            self._matches = [m + " " for m in self.candidates(readline.get_line_buffer()[: readline.get_endidx()], text)]
        return self._matches[state] if state < len(self._matches) else None


def _readline(completer: _Completer) -> None:
    try:
        import readline
    except ImportError:  # no readline on this platform: plain input, no history
        return
    readline.set_completer_delims(" \t\n")
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")


def play(world_name: str, preset: str, seed: int, *, as_json: bool | None = None, out: str | None = None,
         overwrite: bool = False, lines: Iterable[str] | None = None, write: Callable[[str], None] = print) -> Any:
    """Play ``world_name`` from typed lines (stdin by default) and return the :class:`EpisodeResult`.

    Args:
        as_json: print results as JSON (default: JSON when stdin is not a terminal).
        out: write the run directory here when the session ends (quit, end of input, or the episode's end).
        overwrite: replace a run already in ``out``.
        lines: the lines to play instead of stdin (tests, scripts).
    """
    from bizsim.analysis.episode import run_episode

    interactive = lines is None and sys.stdin.isatty()
    full = (not interactive) if as_json is None else as_json
    source = iter(lines) if lines is not None else None
    seen: set[str] = set()

    def read(prompt: str) -> str | None:
        if source is not None:
            return next(source, None)
        while True:
            try:
                return input(prompt)
            except EOFError:
                return None
            except KeyboardInterrupt:  # as in a shell: drop the line being typed, keep the session
                write("")

    def human(world: Any) -> Generator[Any, Any, None]:
        if interactive:
            _readline(_Completer(world, seen))
            write(f"{world.benchmark_id} seed {seed} preset {preset}. Type 'help' for commands, Tab to complete, "
                  "'json' for the last result in full, 'quit' to leave.")
        last: Any = None
        while not world.done:
            line = read(_prompt(world) if interactive else "")
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            if line in ("quit", "exit"):
                break
            if line == "json":
                write(json.dumps(last, indent=2))
                continue
            result = world.execute(line)
            if not isinstance(result, dict):
                result = yield result
            last = result
            _ids(result, seen)
            write(render(result, as_json=full))

    human.__name__ = "human"
    result = run_episode(world_name, preset, human, seed, out=out, overwrite=overwrite)
    world = result.final_world
    if world.done:
        write(f"episode ended: {world.status.value}")
    if out is not None:
        write(f"run directory: {out} (bizsim verify {out})")
    return result


def _prompt(world: Any) -> str:
    funds = world.observation().get("funds_cents")
    money = f"  ${funds / 100:,.2f}" if isinstance(funds, int) else ""
    return f"[{world.now_iso}{money}]> "
