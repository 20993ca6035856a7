"""One person's episode as the play page sees it: the recorded episode, the metric's history, the last answers.

Nothing here knows a world: the forms come from the world's visible command declarations (the commands the MCP
server offers), money from :func:`bizsim.simcore.money.money_unit` (``*_cents`` names and the world's
:attr:`~bizsim.simcore.World.money_fields`: the shell's rule), the clock from its calendar and horizon, the notes from
its scratchpad when it keeps one.

Which commands get a form: every visible command but those declared ``disabled`` (always refused) and those the
world's state refuses now (:meth:`~bizsim.simcore.World.refuses_now`: the episode is over, or a day-based world's
daily actions are spent). The page lists the latter as "not now" with the reason.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bizsim.simcore.commands import CommandSpec, Param
from bizsim.simcore.errors import CommandError, ConfigError
from bizsim.simcore.limits import clip, show
from bizsim.simcore.money import money_unit, money_units
from bizsim.simcore.world import scalar_text

from bizsim.runs.live import Episode
from bizsim.runs.live_arena import ArenaEpisode
from bizsim.runs.live_arena_spec import is_arena
from bizsim.runs.observation import metric_of
from bizsim.runs.rundir import RunDir

__all__ = ["HUMAN", "MAX_NOTES_CHARS", "MAX_PLAYER_CHARS", "MAX_REQUEST_BYTES", "PlaySession"]

#: The ``agent`` of every run played in the browser: human baselines group under it.
HUMAN = "human"
#: The longest request body the server reads (a command's arguments or the notes, as JSON).
MAX_REQUEST_BYTES = 256 * 1024
#: The longest notes kept (``live.metadata.notes`` of the run).
MAX_NOTES_CHARS = 20_000
#: The longest player name kept.
MAX_PLAYER_CHARS = 80
#: Actions kept for the page's list of what the player did (the run directory keeps them all).
_LOG = 500
#: The largest answer sent to the page as it is; a larger one is shown cut (the run keeps it whole).
_MAX_ANSWER_CHARS = 200_000


class PlaySession:
    """A recorded episode of ``world`` played by a person, and what the page draws of it.

    Args:
        world, preset, seed: the run's world, preset and seed.
        overrides: config values laid over the preset (``{"horizon_days": 30}``: a shorter study).
        out: the run directory (created; must not hold a run).
        player: the player's name (kept in ``live.metadata.player``; a longer one than :data:`MAX_PLAYER_CHARS` is
            refused).
        time_limit_s: wall seconds the player has (the run's whole wall time, resumed sessions included); past it
            the episode is closed and calls are refused. ``None``: no limit.
        episode: an episode already open (:meth:`resume` passes it); the other arguments are then ignored.
        roster: for an arena (``vending-arena``, ``startup-arena``), one entry per seat: exactly one ``human`` (the
            seat the person plays), every other a built-in agent (``planner``, ``markup:margin=0.3``); the page
            is then that seat's world plus the arena (``state()["arena"]``).
    """

    def __init__(self, world: str = "", preset: str = "default", seed: int = 1, *, out: str | Path | None = None,
                 player: str = "anonymous", time_limit_s: float | None = None,
                 overrides: Mapping[str, Any] | None = None, episode: Episode | ArenaEpisode | None = None,
                 roster: Sequence[Any] | None = None) -> None:
        if time_limit_s is not None and not (isinstance(time_limit_s, (int, float)) and time_limit_s > 0):
            raise ConfigError(f"time_limit_s(={show(time_limit_s)}) must be a number of seconds > 0 (or unset)")
        if episode is None:
            if out is None:
                raise ConfigError("a played run needs a run directory (out=...): a human run is recorded as it goes")
            name = _player(player)
            facts = {"player": name, "time_limit_s": time_limit_s}
            if roster is None and world and is_arena(world):
                raise ConfigError(f"{world} is an arena: give each seat, exactly one of them the seat you play, e.g. "
                                  f"--seat {HUMAN} --seat planner (roster=[{HUMAN!r}, 'planner'])")
            if roster is not None:
                episode = ArenaEpisode(world, preset, seed, roster=roster, out=out, overrides=overrides,
                                       surface="play", agent=HUMAN, metadata=facts)
            else:
                episode = Episode(world, preset, seed, out=out, overrides=overrides, surface="play", agent=HUMAN,
                                  metadata=facts)
        self.episode = episode
        self.time_limit_s = time_limit_s
        self._lock = threading.Lock()
        self.history: list[list[Any]] = []
        self.answers: dict[str, Any] = {}
        self.log: deque[dict[str, Any]] = deque(maxlen=_LOG)
        #: Calls made before this session (a resumed run): the page's list numbers on from them.
        self.earlier_calls = episode.calls
        #: Every field name shown so far that holds money, and its unit (the page shows these in dollars).
        self.units: dict[str, str] = {}
        self._forms = [_form(spec, episode.world.money_fields) for spec in episode.world.commands.visible()
                       if not spec.disabled]
        self._rebuild_history()

    @classmethod
    def resume(cls, out: str | Path, *, time_limit_s: float | None = None) -> PlaySession:
        """Continue the played run in ``out`` (its player, notes and time limit kept unless a new limit is given).

        Raises:
            ConfigError: ``out`` holds no live episode that can go on (see :meth:`Episode.resume`).
        """
        episode: Episode | ArenaEpisode
        if RunDir(out).is_arena():
            episode = ArenaEpisode.resume(out, surface="play")
        else:
            episode = Episode.resume(out, surface="play")
        if time_limit_s is None:
            limit = episode.metadata.get("time_limit_s")
            time_limit_s = float(limit) if isinstance(limit, (int, float)) and limit > 0 else None
        return cls(episode=episode, time_limit_s=time_limit_s)

    # -- what the page shows ------------------------------------------------------
    def _rebuild_history(self) -> None:
        """The metric at each advance so far: a replay of the log on a world of its own (milliseconds)."""
        from bizsim.simcore.registry import world_spec
        from bizsim.simcore.replay import replay

        ep = self.episode
        # An arena seat's: its resume replayed the arena and kept the points already.
        log = [] if self.arena else ep.world.command_log()
        points: list[list[Any]] = list(getattr(ep.unwrapped, "replayed_points", []))
        if log:
            spec, config, seed = world_spec(ep.spec.world), ep.world.config, ep.spec.seed
            replay(lambda: spec.make(config, seed), log, lambda w: points.append([w.now_iso, metric_of(w)]))
        if not points or points[-1][0] != ep.world.now_iso:
            points.append([ep.world.now_iso, metric_of(ep.world)])
        self.history = points

    @property
    def arena(self) -> bool:
        """Whether the person plays one seat of an arena."""
        return isinstance(self.episode, ArenaEpisode)

    @property
    def player(self) -> str:
        """The player's name as the run keeps it."""
        return str(self.episode.metadata.get("player", ""))

    def elapsed_s(self) -> float:
        """Wall seconds the run has been played, earlier sessions included."""
        return self.episode.wall_s

    def state(self) -> dict[str, Any]:
        """Everything the page draws, as JSON data (world and agent text in it is shown as text, never markup)."""
        ep = self.episode
        with self._lock:
            self._check_time()
            world = ep.world
            summary = world.summary()
            observation = ep.observation()
            money_units(observation, world.money_fields, self.units)
            metric_unit = money_unit(str(summary.get("metric") or ""), world.money_fields)
            if metric_unit is not None:  # the header and the chart show the metric in dollars
                self.units[str(summary["metric"])] = metric_unit
            specs = world.commands.by_name
            return {
                "world": world.name, "benchmark_id": world.benchmark_id, "preset": ep.preset_label,
                "seed": ep.spec.seed, "player": self.player, "run_dir": str(ep.root),
                "advance": world.advance_command.replace(" ", "_").replace("-", "_"),
                "commands": [dict(f, runs=not ep.done and not world.refuses_now(specs[f["command"]]))
                             for f in self._forms],
                "units": self.units,
                "clock": {"now": world.now_iso, "horizon": world.calendar.iso(world.horizon_us),
                          "progress": min(1.0, world.now_us / world.horizon_us) if world.horizon_us else 1.0},
                "observation": observation, "status": world.status.value, "done": ep.done,
                "ended": (world.terminal_detail or ep.stopped) if ep.done else None,
                "metric": {"name": summary.get("metric"), "value": summary.get("metric_value"),
                           "history": self.history},
                "notes": {"world": world.scratchpad if world.has_scratchpad else None,
                          "mine": str(ep.metadata.get("notes", ""))},
                "answers": self.answers, "log": list(self.log), "earlier_calls": self.earlier_calls,
                "max_call_chars": ep.max_call_chars,
                "time": {"elapsed_s": round(self.elapsed_s(), 1), "limit_s": self.time_limit_s},
                "arena": ep.arena_view() if isinstance(ep, ArenaEpisode) else None,
            }

    # -- what the page asks ----------------------------------------------------------
    def call(self, tool: Any, arguments: Any) -> dict[str, Any]:
        """Run one command (its tool name and JSON arguments) through the recorded episode; the answer and its
        exit status (0 ran, 1 refused by the world, 2 not run), as :class:`~bizsim.runs.live.CallOutcome`."""
        ep = self.episode
        with self._lock:
            self._check_time()
            before = ep.world.now_iso
            metric = metric_of(ep.world)
            outcome = ep.call_tool(tool, arguments)
            result = _bounded(outcome.result)
            money_units(result, ep.world.money_fields, self.units)
            name = outcome.command or clip(str(tool))
            if outcome.command is not None:
                # The arguments ran are kept so the page can ask the same again (a read command's table, refreshed).
                self.answers[name] = {"result": result, "status": outcome.status, "at": before, "tool": str(tool),
                                      "arguments": dict(arguments) if isinstance(arguments, Mapping) else {}}
            if ep.world.now_iso != before:
                if self.history and self.history[-1][0] == before:
                    self.history[-1][1] = metric
                self.history.append([ep.world.now_iso, metric_of(ep.world)])
            else:
                self.history[-1] = [ep.world.now_iso, metric_of(ep.world)]
            error = result.get("error") if isinstance(result, dict) else None
            line = _line(ep.world.commands.by_name.get(name), arguments)
            self.log.append({"n": ep.calls, "command": name, "line": line, "status": outcome.status, "at": before,
                             "error": None if error is None else clip(error)})
            return {"result": result, "status": outcome.status, "command": outcome.command, "done": outcome.done}

    def save_notes(self, text: Any) -> None:
        """Keep the player's notes in the run (``live.metadata.notes``).

        Raises:
            ConfigError: not text, or longer than :data:`MAX_NOTES_CHARS`.
        """
        if not isinstance(text, str):
            raise ConfigError(f"notes must be text, got {type(text).__name__}")
        if len(text) > MAX_NOTES_CHARS:
            raise ConfigError(f"the notes are {len(text):,} characters long; the limit is {MAX_NOTES_CHARS:,}: "
                              "shorten them")
        with self._lock:  # a lone surrogate (a JSON escape can carry one) kept as U+FFFD, as every live surface does
            self.episode.add_metadata(notes=scalar_text(text))

    def close(self, detail: str = "the play server stopped") -> dict[str, Any]:
        """End the session; the run stays resumable (``bizsim play --resume DIR``) unless its world ended."""
        with self._lock:
            return self.episode.close(detail)

    def _check_time(self) -> None:
        ep = self.episode
        if self.time_limit_s is not None and not ep.done and self.elapsed_s() >= self.time_limit_s:
            ep.close(f"time limit of {self.time_limit_s:g} s reached")


def _player(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"player(={show(name)}) must be a non-empty name, e.g. --name ana")
    name = " ".join(name.split())
    if len(name) > MAX_PLAYER_CHARS:
        raise ConfigError(f"player name is {len(name)} characters long; the limit is {MAX_PLAYER_CHARS}")
    return name


#: A parameter's type as the page's forms name it (the JSON schema's names).
_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _field(p: Param, money_fields: Mapping[str, str]) -> dict[str, Any]:
    """One argument as the page's form asks for it: its declaration, its unit if it holds money, its rows if any."""
    field = {**p.json_schema(), "name": p.name, "flag": p.flag, "required": p.required,
             "unit": money_unit(p.name, money_fields)}
    if p.rows is not None:
        field["rows"] = [{"name": r.name, "type": _TYPES[r.type], "help": r.help, "minimum": r.minimum}
                         for r in p.rows]
        field["max_rows"] = p.max_rows
    return field


def _form(spec: CommandSpec, money_fields: Mapping[str, str]) -> dict[str, Any]:
    """A command as the page offers it (``runs`` is added per state: whether the world takes it now)."""
    return {"tool": spec.tool_name, "command": spec.name, "help": spec.help, "advances": spec.advances,
            "params": [_field(p, money_fields) for p in spec.params]}


def _line(spec: CommandSpec | None, arguments: Any) -> str | None:
    """The command line a call ran, as the run records it (cut for the page), or ``None``: its arguments did not
    bind."""
    if spec is None or not isinstance(arguments, Mapping):
        return None
    try:
        return clip(spec.to_line(spec.bind_json(arguments)))
    except CommandError:
        return None


def _bounded(result: Any) -> Any:
    import json

    text = json.dumps(result, default=str)
    if len(text) <= _MAX_ANSWER_CHARS:
        return result
    return {"note": f"the answer is {len(text):,} characters long; the page shows its first {_MAX_ANSWER_CHARS:,}",
            "text": text[:_MAX_ANSWER_CHARS]}
