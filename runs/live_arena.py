"""A live arena episode: one seat played from outside, one call at a time, every other seat by a built-in agent.

A person through ``bizsim play`` or an external agent through ``bizsim mcp`` plays one seat of an arena
(``vending-arena``, ``startup-arena``) against baselines and planners. The roster names that seat by the surface's
agent name, as a single-agent live episode records it: ``human`` for the play page, ``mcp`` for the MCP server
(:data:`OUTSIDE_AGENTS`); every other seat is a built-in agent of the arena's base world, with its options.

To the surface the episode is a live episode of the seat's own world (:class:`ArenaEpisode` answers what
:class:`~bizsim.runs.live.Episode` answers): its commands (those with rivals too: messages, money, goods, the
market view), its observation, its prompt. Its rivals are seen only through what the world makes public. The
kernel's :class:`~bizsim.simcore.arena_outside.OutsideSeat` runs the rivals' agents inside SimPy between the
seat's turns.

It is recorded as it goes into one arena run directory, the layout ``bizsim run`` writes for an arena
(:mod:`~bizsim.runs.live_arena_recorder`): the arena's ``result.json`` lists the seats (agent, label, metric) and
carries ``live`` (surface, counters, ``open``). ``bizsim verify DIR`` replays it, finished or stopped mid-way.

Resume (:meth:`ArenaEpisode.resume`) re-runs it from scratch: a fresh arena, the built-in rivals started again
(they are deterministic), the outside seat's recorded lines fed back at its turns; every seat's replayed log must
equal the recorded one. An LLM rival is refused (:class:`~bizsim.simcore.errors.ConfigError`): its calls would
need their own recording and, on resume, their recorded answers.

>>> import tempfile
>>> ep = ArenaEpisode("vending-arena", "small", 1, roster=["mcp", "markup"], out=tempfile.mkdtemp(), surface="mcp")
>>> ep.world.seat, ep.call_line("messages_read").status
(0, 0)
>>> _ = ep.close("done for now")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show

from bizsim.runs.budgets import Budgets
from bizsim.runs.live_arena_core import ArenaEpisodeCore
from bizsim.runs.live_arena_recorder import ArenaLiveRecorder
from bizsim.runs.live_arena_spec import ArenaLiveSpec
from bizsim.runs.live_budgeted import Budgeted
from bizsim.runs.live_layer import EpisodeLayer
from bizsim.runs.live_lock import hold
from bizsim.runs.record import RunRecord
from bizsim.runs.recorder import NullRecorder
from bizsim.runs.roster import OUTSIDE_AGENTS, Seat, outside_seat_refusal
from bizsim.runs.rundir import RunDir

__all__ = ["OUTSIDE_AGENTS", "ArenaEpisode", "ArenaEpisodeCore", "ArenaLiveSpec", "outside_seat_refusal"]


class ArenaEpisode(EpisodeLayer):
    """One seat of an arena driven from outside one call at a time, the other seats by built-in agents, recorded
    into one arena run directory as it goes. It answers what :class:`~bizsim.runs.live.Episode` answers (its
    ``world`` is the outside seat); ``arena_view()`` adds the arena.

    Args:
        world: a registered arena (``vending-arena``, ``startup-arena``).
        preset, seed, overrides: the arena's preset, seed and config values laid over it.
        roster: one entry per seat (``"planner"``, ``"markup:margin=0.3"``, tables): exactly one is ``agent``.
        out: the run directory (created; must not hold a run unless ``overwrite``); ``None`` records nothing.
        surface: who drives the outside seat (``play``, ``mcp``), recorded in ``result.json``.
        agent: the outside seat's agent name (default: the surface's name).
        budgets: the outside seat's budgets (calls, reported tokens or dollars).
        metadata: JSON-able facts kept in ``result.json`` under ``live.metadata``.

    Raises:
        ConfigError: see :meth:`ArenaLiveSpec.of`; a directory that holds a run.
    """

    def __init__(self, world: str, preset: Any = "default", seed: int = 1, *, roster: Sequence[Any],
                 out: str | Path | None = None, overrides: Mapping[str, Any] | None = None, surface: str = "python",
                 agent: str | None = None, budgets: Budgets | None = None, overwrite: bool = False,
                 fsync: bool = False, metadata: Mapping[str, Any] | None = None,
                 _resumed: tuple[RunRecord, list[list[tuple[int, str]]]] | None = None, _held: Any = None) -> None:
        try:
            spec = ArenaLiveSpec.of(world, preset, seed, roster=roster, overrides=overrides, surface=surface,
                                    agent=agent)
        except BaseException:
            if _held is not None:
                _held.close()
            raise
        budgets = budgets or Budgets()
        cores: list[ArenaEpisodeCore] = []
        recorder = NullRecorder() if out is None else ArenaLiveRecorder(
            out, lambda: cores[0].seat_records(), overwrite=overwrite, fsync=fsync)
        core = ArenaEpisodeCore(spec, recorder, max_call_chars=budgets.max_call_chars,  # type: ignore[arg-type]
                                metadata=metadata, resumed=_resumed,  # type: ignore[arg-type]  # one log a seat
                                held=_held, begin=False)
        cores.append(core)
        try:
            stack: Any = core
            if budgets.max_turns is not None or budgets.max_tokens_total is not None or \
                    budgets.max_cost_usd is not None:
                stack = Budgeted(stack, budgets)
            super().__init__(stack)
            core.begin()
        except BaseException:
            core.release()
            raise

    def __repr__(self) -> str:
        return f"ArenaEpisode({self.episode!r})"

    @classmethod
    def resume(cls, out: str | Path, *, surface: str, budgets: Budgets | None = None,
               fsync: bool = False) -> ArenaEpisode:
        """Continue the live arena episode recorded in ``out``: a fresh arena, its rivals started again, the outside
        seat's recorded lines fed back at its turns (every seat's log must come back as recorded); then play on.

        Raises:
            ConfigError: ``out`` holds no live arena episode, one that has ended, one another process records, or
                one whose logs do not replay.
        """
        from bizsim.runs.live import _recorded_budgets
        from bizsim.runs.rundir import read_command_log, read_record

        read_record(out)
        held = hold(RunDir(out).live_lock)
        try:
            record = read_record(out)
            live = record.live
            if not isinstance(live, dict) or not isinstance(live.get("outside_seat"), int) or not record.seats:
                raise ConfigError(f"{str(out)!r} holds no live arena episode (bizsim play or mcp on an arena); "
                                  "only those resume so")
            if record.terminal_reason != "agent_stopped":
                raise ConfigError(f"{str(out)!r} has ended ({record.terminal_reason}); nothing is left to play: "
                                  "start another run")
            roster = [_seat_of(entry) for entry in record.seats]
            overrides = live.get("overrides") if isinstance(live.get("overrides"), dict) else {}
            metadata = live.get("metadata") if isinstance(live.get("metadata"), dict) else {}
            base = live.get("base_preset")
            preset = base if isinstance(base, str) else record.preset
            logs = [read_command_log(folder.root) for folder in RunDir(out).seat_dirs()]
            if len(logs) != len(roster):
                raise ConfigError(f"{str(out)!r}: result.json lists {len(roster)} seats but the directory keeps "
                                  f"{len(logs)} seat records")
            agent = roster[live["outside_seat"]].agent if 0 <= live["outside_seat"] < len(roster) else None
            kept = budgets if budgets is not None else _recorded_budgets(live)
        except BaseException:
            held.close()
            raise
        return cls(record.world, preset, record.seed, roster=roster, out=out, overrides=overrides, surface=surface,
                   agent=agent, budgets=kept, overwrite=True, fsync=fsync, metadata=metadata,
                   _resumed=(record, logs), _held=held)


def _seat_of(entry: Any) -> Seat:
    """A roster seat back from a ``result.json`` seats entry."""
    if not isinstance(entry, Mapping):
        raise ConfigError(f"a seats entry of result.json(={show(entry)}) is not a table")
    raw = entry.get("options")
    options: dict[str, Any] = dict(raw) if isinstance(raw, Mapping) else {}
    label = entry.get("label")
    agent = entry.get("agent")
    shown = Seat(str(agent), options).shown
    return Seat(str(agent), options, label if isinstance(label, str) and label != shown else None)
