"""A compact live panel for a long LLM run: turn, simulated date, the metric, tokens, cost, the last command.

It reads what the run appends to its directory (``llm_calls.jsonl``, ``agent_commands.jsonl``) from rich's refresh
thread, and the world's date and metric at every decision point, so the run itself does no extra work.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from bizsim.runs.rundir import RunDir

__all__ = ["LivePanel", "printable"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str, limit: int = 100) -> str:
    """Agent text made safe for a terminal: no control or bidirectional characters (no escape sequences), cut.

    >>> printable("ls\\x1b[2J\\nrm -rf /", 12)
    'ls [2J rm -…'
    """
    text = _CONTROL.sub(" ", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Tail:
    """The complete lines appended to a file since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def new_records(self) -> list[dict]:
        try:
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read(8 * 2**20)
        except OSError:
            return []
        end = chunk.rfind(b"\n")
        if end < 0:
            return []
        self.offset += end + 1
        out = []
        for line in chunk[:end].split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out


class LivePanel:
    """The panel; :meth:`on_stop` is the run's ``on_stop`` callback. Use as a context manager."""

    def __init__(self, run_dir: str | Path | None, *, console: Any = None) -> None:
        from rich.live import Live

        self._calls = _Tail(RunDir(run_dir).llm_calls) if run_dir is not None else None
        self._commands = _Tail(RunDir(run_dir).agent_commands) if run_dir is not None else None
        self._lock = threading.Lock()
        self.turn = 0
        self.tokens = 0
        self.cost: float | None = 0.0
        self.errors = 0
        self.last_command = ""
        self.date = ""
        self.metric = ""
        self._live = Live(console=console, refresh_per_second=4, get_renderable=self.render, transient=False)

    def on_stop(self, world: Any) -> None:
        """Note the world's date and headline metric (called at every decision point)."""
        try:
            summary = world.summary()
            name, value = str(summary.get("metric") or ""), summary.get("metric_value")
        except Exception:  # noqa: BLE001 -- a world's summary failing mid-run must not stop the run
            name, value = "", None
        from bizsim.analysis.labels import dollars, human_number, words

        with self._lock:
            self.date = str(world.now_iso)[:16].replace("T", " ")
            if name and isinstance(value, (int, float)):
                shown = dollars(value) if name.endswith("_cents") else human_number(value)
                self.metric = f"{words(name.removeprefix('final_'))}: {shown}"  # mid-run it is not final yet

    def _read(self) -> None:
        for rec in self._calls.new_records() if self._calls is not None else []:
            if rec.get("kind") != "chat" or rec.get("role"):
                continue
            # A turn is an answered call, as result.json counts it; a call that failed for good is counted apart.
            if rec.get("ok", True):
                self.turn += 1
            else:
                self.errors += 1
            resp = rec.get("response") or {}
            self.tokens += int((resp.get("usage") or {}).get("total_tokens") or 0)
            cost = resp.get("cost_usd")
            self.cost = None if cost is None or self.cost is None else self.cost + float(cost)
        for rec in self._commands.new_records() if self._commands is not None else []:
            self.last_command = str(rec.get("line", ""))

    def render(self) -> Any:
        """The panel as it is now."""
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        with self._lock:
            self._read()
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style="dim")
            grid.add_column()
            grid.add_row("turn", Text(f"{self.turn:,}" + (f"  ({self.errors} failed calls)" if self.errors else "")))
            grid.add_row("simulated", Text(self.date or "starting"))
            grid.add_row("metric", Text(self.metric or "-"))
            grid.add_row("tokens", Text(f"{self.tokens:,}"))
            grid.add_row("cost", Text("unknown" if self.cost is None else f"${self.cost:,.4f}"))
            # Text(), never markup: a command line is the model's text.
            grid.add_row("last command", Text(printable(self.last_command) or "-"))
        return Panel(grid, title="bizsim run", expand=False)

    def __enter__(self) -> LivePanel:
        self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.stop()
