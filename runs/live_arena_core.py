"""The core of a live arena episode: a live episode's core whose world is the outside seat of an arena, its calls
sent through :class:`~bizsim.simcore.arena_outside.OutsideSeat`, its record the arena's (every seat's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.simcore.arena_outside import OutsideSeat
from bizsim.simcore.errors import CommandError, ConfigError
from bizsim.simcore.world import Status, World

from bizsim.runs.arena_run import seat_entry
from bizsim.runs.episode import TERMINAL_REASONS, _counting
from bizsim.runs.live_arena_spec import ArenaLiveSpec
from bizsim.runs.live_core import EpisodeCore
from bizsim.runs.observation import metric_of
from bizsim.runs.record import RunRecord

__all__ = ["ArenaEpisodeCore"]


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
        #: ``[time, metric]`` of the outside seat before each of its advances replayed by a resume (a page's chart).
        self.replayed_points: list[list[Any]] = []
        return arena.seats[spec.outside], self.outside

    def _replay(self, log: Sequence[Any]) -> None:
        """Feed the outside seat's recorded lines at its turns; every seat's log must come back as recorded."""
        logs = [list(seat_log) for seat_log in log]
        for t_us, line in logs[self.live_spec.outside]:
            if self.world.now_us != t_us or not (self.outside.parked or self.world.done):
                break  # the check below names the directory
            if not self.world.done and _advances(self.world, line):
                self.replayed_points.append([self.world.now_iso, metric_of(self.world)])
            self.outside.send(line)  # a hidden line (a built-in agent's command) is refused, as its player's call was
        # A rival's recorded log may stop short of the replay's (the process killed between two logs of one call,
        # the outside seat's appended first): the replay holds those lines again. Any other difference refuses.
        replayed, outside = self.arena.command_logs(), self.live_spec.outside
        if len(replayed) != len(logs) or replayed[outside] != logs[outside] or \
                any(mine[:len(kept)] != kept for mine, kept in zip(replayed, logs)):
            run = self.live_spec.run
            raise ConfigError(f"{str(self.root)!r}: its seats' command logs do not replay on {run.world} preset "
                              f"{run.preset} seed {run.seed} with its roster; the directory was edited or written "
                              "by another bizsim version")

    def system_prompt(self) -> str:
        """The seat's system prompt followed by the arena protocol an LLM seat is told (bizsim's own text): an
        outside agent learns of its rivals as a built-in LLM seat does."""
        from bizsim.agents.llm.arena_prompt import arena_text

        return super().system_prompt() + arena_text(self.world)

    def abort(self, detail: str) -> None:
        """Stop the outside seat now (a budget reached), as an LLM seat's cap stops it: ``seat.abort(detail)``,
        the arena retires it (with rivals its company plays on without an agent) and the other seats play on to
        the arena's end; then it is recorded."""
        with self.lock:
            self.stopped = detail
            self.world.abort(detail)
            if self.outside.parked:
                self.outside.stop()
            self._record()

    def close(self, detail: str | None = None) -> dict[str, Any]:
        """End the episode for this surface, as :meth:`EpisodeCore.close` does; but a run an exception cut while the
        rivals played (Ctrl-C, which ``bizsim play`` also makes of SIGTERM) is left as its last answered call left
        it, as a killed process leaves it: that state verifies and resumes, the cut one would not."""
        with self.lock:
            if not self.closed and not self.outside.settled:
                self.closed = True
                if self.root is not None:
                    self._recorder.leave()  # type: ignore[attr-defined]  # an ArenaLiveRecorder
                self.release()
            return super().close(detail)

    def __repr__(self) -> str:
        return (f"ArenaEpisodeCore({self.arena.benchmark_id} preset {self.preset_label} seed {self.spec.seed}, "
                f"seat {self.live_spec.outside} of {len(self.arena.seats)})")

    def seat_records(self) -> list[RunRecord]:
        """Each seat's record as an arena run keeps it in ``seats/<k>/result.json``. A seat's ``turns`` are its
        turns ended (the outside seat's advances, a built-in agent's decision points), so the arena's table compares
        them; the outside seat's calls are in the arena's ``live``."""
        spec, out = self.live_spec, []
        for seat, world in zip(spec.resolved.seats, self.arena.seats, strict=True):
            outside = seat.seat == spec.outside
            stalled = not outside and self.stalled[seat.seat][0]
            out.append(RunRecord(
                world=self.arena.name, benchmark_id=self.arena.benchmark_id, preset=self.preset_label,
                seed=spec.run.seed, agent=seat.entry.agent, agent_options=seat.agent_options,
                terminal_reason="agent_stalled" if stalled else TERMINAL_REASONS[world.status],
                bankrupt=world.status is Status.BANKRUPT, turns=self.advances if outside else self.counters[seat.seat][0],
                commands=world.trajectory.count("cmd"), summary=world.summary(),
                terminal_detail=_detail(world, self.stopped) if outside else None))
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

    def seat_result(self) -> dict[str, Any]:
        """What the outside player may read of the record now: its own seat's (its figures so far, as
        ``seats/<k>/result.json`` holds them) and the arena's public view (:meth:`arena_view`). The arena's
        ``result.json`` lists every seat's figures, which are private to each seat until the arena is over."""
        with self.lock:
            own = self.seat_records()[self.live_spec.outside].to_dict()
            return {**own, "arena": self.arena_view()}

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


def _advances(world: World, line: str) -> bool:
    try:
        return world.commands.parse(line, allow_hidden=True)[0].advances
    except CommandError:
        return False


def _detail(world: World, stopped: str | None) -> str | None:
    """The outside seat's ending detail: why its player stopped it (a budget: the replay stops it there too), or
    why the session was left mid-way; none for an ending the world itself gives."""
    if world.status is Status.ERROR:
        return world.terminal_detail
    stop = getattr(world, "agent_stop", None)
    if stop is not None:  # with rivals a budget retires the seat: its company ran on, the record keeps why it stopped
        return str(stop[0])
    return None if world.done else stopped
