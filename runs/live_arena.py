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
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.arena_outside import OutsideSeat
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show
from bizsim.simcore.world import Status, World

from bizsim.runs.arena_run import seat_entry
from bizsim.runs.budgets import Budgets
from bizsim.runs.episode import TERMINAL_REASONS, _counting
from bizsim.runs.live_budgeted import Budgeted
from bizsim.runs.live_core import EpisodeCore
from bizsim.runs.live_layer import EpisodeLayer
from bizsim.runs.live_lock import hold
from bizsim.runs.live_arena_recorder import ArenaLiveRecorder
from bizsim.runs.record import RunRecord
from bizsim.runs.recorder import NullRecorder
from bizsim.runs.resolve import ResolvedRun, resolve
from bizsim.runs.roster import OUTSIDE_AGENTS, Seat, outside_seat_refusal
from bizsim.runs.rundir import RunDir
from bizsim.runs.runspec import RunSpec

if TYPE_CHECKING:
    from bizsim.simcore.arena import ArenaWorld

__all__ = ["OUTSIDE_AGENTS", "ArenaEpisode", "ArenaEpisodeCore", "ArenaLiveSpec", "outside_seat_refusal"]

@attrs.frozen
class ArenaLiveSpec:
    """What a live arena episode plays, resolved once (build it with :meth:`of`).

    Args:
        run: the arena run as ``result.json`` names it (world, preset, seed, overrides, the roster).
        surface: who drives the outside seat (``play``, ``mcp``...).
        outside: the index of the seat played from outside.
        resolved: the roster resolved (the outside seat's entry holds no agent of its own).
    """

    run: RunSpec
    surface: str
    outside: int
    resolved: ResolvedRun = attrs.field(repr=False)
    config: Any = attrs.field(default=None, repr=False)
    start: Any = attrs.field(default=None, repr=False)

    @classmethod
    def of(cls, world: str, preset: Any = "default", seed: int = 1, *, roster: Sequence[Any],
           overrides: Mapping[str, Any] | None = None, surface: str = "python", agent: str | None = None) -> ArenaLiveSpec:
        """Check a live arena episode's arguments: an arena world, a roster in its seat range with exactly one
        seat named ``agent`` (default the surface's name), every other a built-in agent whose options it takes.

        Raises:
            ConfigError: not an arena, no outside seat or two of them, an outside seat of another surface, a roster
                out of the world's seat range, an LLM rival, an unknown agent or option.
        """
        from bizsim.simcore.registry import world_spec

        name = agent or surface
        if not isinstance(preset, (str, Path)):
            raise ConfigError("a live arena episode takes a preset name or a .toml file; give overrides=... for "
                              "other values")
        spec = RunSpec(world, str(preset), seed=seed, roster=roster, overrides=dict(overrides or {}))
        marked = [k for k, s in enumerate(spec.roster) if s.agent in OUTSIDE_AGENTS or s.agent == name]
        for k in marked:
            if spec.roster[k].agent != name:
                other = spec.roster[k].agent
                raise ConfigError(f"seat {k} is {other!r}, a seat {OUTSIDE_AGENTS[other]} plays; this surface "
                                  f"({surface}) plays the seat given as --seat {name}")
            if spec.roster[k].options:
                raise ConfigError(f"seat {k} ({name}) is played from outside and takes no options; got "
                                  f"{show(spec.roster[k].options)}")
        if not marked:
            raise ConfigError(f"no seat of the roster is played from outside: give exactly one --seat {name} among "
                              f"the seats (e.g. --seat {name} --seat planner)")
        if len(marked) > 1:
            raise ConfigError(f"seats {marked} are all {name!r}: one seat of an arena is played from outside; give "
                              "the others built-in agents")
        k = marked[0]
        base = world_spec(str(spec.world_spec.base))
        stand_in = [Seat(base.default_agent) if i == k else s for i, s in enumerate(spec.roster)]
        resolved = resolve(attrs.evolve(spec, roster=stand_in))
        llm = [s.seat for s in resolved.seats if s.records_calls]
        if llm:
            raise ConfigError(f"seats {llm} are LLM agents: a live arena episode seats built-in agents (baselines, "
                              "planners) beside the outside seat, since an LLM rival's calls would need their own "
                              "record and resume; run LLM seats with bizsim run")
        seats = list(resolved.seats)
        seats[k] = attrs.evolve(seats[k], entry=spec.roster[k], agent_options={})
        return cls(spec, str(surface), k, attrs.evolve(resolved, seats=tuple(seats)))

    @property
    def preset_label(self) -> str:
        """The preset as ``result.json`` names it: its name, or ``custom`` with overrides."""
        return self.run.preset if not self.run.overrides else "custom"

    def reseeded(self, seed: int) -> ArenaLiveSpec:
        """The same episode on another seed (an unrecorded episode's reset)."""
        return attrs.evolve(self, run=attrs.evolve(self.run, seed=int(seed)),
                            resolved=attrs.evolve(self.resolved, spec=attrs.evolve(self.resolved.spec, seed=int(seed))))

    def new_arena(self) -> ArenaWorld:
        """A fresh arena of the spec."""
        cls: Any = self.run.world_spec.world_class()  # an arena's class: it takes seats=
        return cls(self.resolved.preset, self.run.seed, seats=len(self.run.roster))


class ArenaEpisodeCore(EpisodeCore):
    """An :class:`~bizsim.runs.live_core.EpisodeCore` whose world is the outside seat of an arena: calls go to the
    seat through :class:`~bizsim.simcore.arena_outside.OutsideSeat`; the record is the arena's (every seat's)."""

    live_spec: ArenaLiveSpec  # type: ignore[assignment]  # the arena's spec

    def _open(self) -> tuple[World, Any]:
        spec = self.live_spec
        arena = spec.new_arena()
        self.counters = [[0] for _ in spec.resolved.seats]
        self.stalled = [[False] for _ in spec.resolved.seats]
        agents = [None if s.seat == spec.outside else _counting(s.agent_factory(), self.counters[s.seat],
                                                                 self.stalled[s.seat], None)
                  for s in spec.resolved.seats]
        self.outside = OutsideSeat(arena, spec.outside, agents)
        self.arena = arena
        return arena.seats[spec.outside], self.outside

    def _replay(self, log: Sequence[Any]) -> None:
        """Feed the outside seat's recorded lines at its turns; every seat's log must come back as recorded."""
        logs = [list(seat_log) for seat_log in log]
        for t_us, line in logs[self.live_spec.outside]:
            if self.world.now_us != t_us or not (self.outside.parked or self.world.done):
                break  # the check below names the directory
            self.outside.send(line, allow_hidden=True)
        if self.arena.command_logs() != logs:
            run = self.live_spec.run
            raise ConfigError(f"{str(self.root)!r}: its seats' command logs do not replay on {run.world} preset "
                              f"{run.preset} seed {run.seed} with its roster; the directory was edited or written "
                              "by another bizsim version")

    def __repr__(self) -> str:
        return (f"ArenaEpisodeCore({self.arena.benchmark_id} preset {self.preset_label} seed {self.spec.seed}, "
                f"seat {self.live_spec.outside} of {len(self.arena.seats)})")

    def seat_records(self) -> list[RunRecord]:
        """Each seat's record as an arena run keeps it in ``seats/<k>/result.json``."""
        spec, out = self.live_spec, []
        for seat, world in zip(spec.resolved.seats, self.arena.seats, strict=True):
            outside = seat.seat == spec.outside
            stalled = not outside and self.stalled[seat.seat][0]
            out.append(RunRecord(
                world=self.arena.name, benchmark_id=self.arena.benchmark_id, preset=self.preset_label,
                seed=spec.run.seed, agent=seat.entry.agent, agent_options=seat.agent_options,
                terminal_reason="agent_stalled" if stalled else TERMINAL_REASONS[world.status],
                bankrupt=world.status is Status.BANKRUPT, turns=self.calls if outside else self.counters[seat.seat][0],
                commands=world.trajectory.count("cmd"), summary=world.summary(),
                terminal_detail=(self.stopped if outside and not world.done else None)))
        return out

    def record(self) -> RunRecord:
        """The arena's record: its figures, the seats list, and ``live`` (the outside seat's surface and counters)."""
        mine = super().record()
        arena, spec = self.arena, self.live_spec
        seats = self.seat_records()
        summary = {k: v for k, v in arena.summary().items() if k != "seats"}
        live = dict(mine.live or {}, outside_seat=spec.outside)
        return RunRecord(
            world=arena.name, benchmark_id=arena.benchmark_id, preset=self.preset_label, seed=spec.run.seed,
            agent=spec.run.agent, agent_options={}, terminal_reason=TERMINAL_REASONS[arena.status],
            bankrupt=all(s.status is Status.BANKRUPT for s in arena.seats), turns=sum(r.turns for r in seats),
            commands=sum(r.commands for r in seats), summary=summary,
            terminal_detail=arena.terminal_detail if arena.done else self.stopped,
            seats=[seat_entry(seat, rec) for seat, rec in zip(spec.resolved.seats, seats, strict=True)],
            live=live, wall_s=mine.wall_s,
        )

    def arena_view(self) -> dict[str, Any]:
        """What a surface shows of the arena beside the seat's own world: which seat it plays, who plays the
        others (their labels), whose turn and which day, and the standings once the arena is over (a rival's
        metric is private until then)."""
        arena, spec = self.arena, self.live_spec
        out: dict[str, Any] = {
            "world": arena.name, "seat": spec.outside, "seats": len(arena.seats),
            "players": [{"seat": s.seat, "label": s.entry.shown, "you": s.seat == spec.outside}
                        for s in spec.resolved.seats],
            "to_move": arena.to_move, "day": getattr(arena, "day", None), "over": self.outside.over or arena.done,
            "standings": None,
        }
        if arena.done:
            summary = arena.summary()
            out["standings"] = [{"seat": k, "label": spec.resolved.seats[k].entry.shown,
                                 "metric": summary["seats"][k]["metric"],
                                 "metric_value": summary["seats"][k]["metric_value"]} for k in summary["standings"]]
        return out


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
