"""An arena run: every seat's agent plays one arena world; one run directory, a record per seat.

:func:`~bizsim.runs.pipeline.execute` hands a resolved run with seats (a spec with a roster) here. The path:

1. the recorder claims the run directory;
2. each seat's agent is made: a baseline or planner from its factory, options bound; an LLM seat as the LLM agent
   with its own model, endpoint, budget and caps, its calls and commands recorded in its own seat folder;
3. the arena is built and every agent plays its seat (``arena.run(agents)``: one SimPy process per seat, turns in
   the arena's seeded rotation);
4. each seat's record (its agent, options, turns, commands, figures, and an LLM seat's counters) and the arena's
   record (``result.json``: the arena's figures and the seats list) are written, the arena's last.

An arena with LLM seats also writes its spec before the seats play, and its seats' calls as they are answered, so
one cut off resumes (``resume=True``; :mod:`bizsim.runs.arena_resume`): a fresh arena, the built-in seats played
again, each LLM seat served its own recorded answers first, then live.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.world import Status

from bizsim.runs.arena_resume import arena_header, check_arena_resumable, check_seats_replayed, stop_on_outage
from bizsim.runs.episode import TERMINAL_REASONS, _counting
from bizsim.runs.record import RunRecord
from bizsim.runs.recorder import Recorder
from bizsim.runs.resolve import ResolvedRun, ResolvedSeat
from bizsim.runs.rundir import RunDir, make_output_dir

if TYPE_CHECKING:
    from bizsim.agents.llm import EndpointLimiter, LLMAgent
    from bizsim.agents.llm.client import ModelClient
    from bizsim.simcore.arena import ArenaWorld
    from bizsim.simcore.world import World

__all__ = ["SEATS_COLUMN", "ArenaResult", "arena_body", "execute_arena", "seat_entry"]

#: The runs table's column holding an arena run's seats (compact JSON: seat, agent, label, metric, metric_value,
#: terminal_reason, turns, commands), from which the analysis layer builds its arena table.
SEATS_COLUMN = "seats_json"


@attrs.frozen
class ArenaResult:
    """What an arena run produced: the arena's record, each seat's, and the finished arena."""

    record: RunRecord
    seat_records: tuple[RunRecord, ...]
    final_world: World = attrs.field(repr=False, eq=False)
    run_dir: Path | None = None

    @property
    def terminal_reason(self) -> str:
        """How the arena ended (``horizon_end`` when every seat reached it)."""
        return self.record.terminal_reason

    @property
    def terminal_detail(self) -> str | None:
        """Why the arena stopped early, else ``None``."""
        return self.record.terminal_detail

    @property
    def seats(self) -> list[dict]:
        """``result.json``'s seats list: each seat's agent, options, label, metric and figures."""
        return list(self.record.seats or ())

    @property
    def worlds(self) -> tuple[World, ...]:
        """The arena (as an episode result's worlds)."""
        return (self.final_world,)

    def to_dict(self) -> dict:
        """``result.json``'s object."""
        return self.record.to_dict()


def _llm_agent(seat: ResolvedSeat, recorder: Recorder, *, client: ModelClient | None, limiter: EndpointLimiter | None,
               sleep: Callable[[float], None], resume: bool) -> LLMAgent:
    """An LLM seat's agent: its own config (model, endpoint, budget, caps), its calls in its own seat folder
    (``resume``: served from there first)."""
    from typing import cast

    from bizsim.agents.llm import LLMAgent, LLMAgentConfig

    config = LLMAgentConfig.from_options(seat.agent_options)
    own = recorder.seat(seat.seat)  # type: ignore[attr-defined]  # both recorders have seat()
    own.claim(calls=True, resume=resume)
    if resume and own.root is not None:
        make_output_dir(own.root)  # a seat cut off before its first call may have no folder yet
    logs = cast(Any, own) if own.root is not None else None
    return LLMAgent(config, client=client, logs=logs, limiter=limiter, sleep=sleep, resume=resume and logs is not None)


def _check_setup(seat: ResolvedSeat) -> None:
    """An LLM seat's key variable and provider, checked in well under a second (before litellm is imported)."""
    from bizsim.agents.llm import LLMAgentConfig
    from bizsim.agents.llm.setup_check import check_setup

    config = LLMAgentConfig.from_options(seat.agent_options)
    check_setup(config.model, api_base=config.api_base, api_key_env=config.api_key_env)


def seat_entry(seat: ResolvedSeat, record: RunRecord) -> dict:
    """A seat as ``result.json``'s seats list holds it."""
    summary = dict(record.summary)
    out = {
        "seat": seat.seat, "agent": seat.entry.agent, "options": seat.entry.options, "label": seat.entry.shown,
        "metric": summary.get("metric"), "metric_value": summary.get("metric_value"),
        "terminal_reason": record.terminal_reason, "turns": record.turns, "commands": record.commands,
    }
    if record.terminal_detail is not None:
        out["terminal_detail"] = record.terminal_detail
    if record.llm is not None:
        out["llm"] = {k: record.llm.get(k) for k in ("turns", "prompt_tokens", "completion_tokens", "cost_usd")}
    out["summary"] = summary
    return out


def execute_arena(
    run: ResolvedRun, recorder: Recorder, *, on_stop: Callable[[Any], None] | None = None,
    clients: Mapping[int, ModelClient] | None = None, limiter: EndpointLimiter | None = None,
    preflight: bool = False, sleep: Callable[[float], None] = time.sleep, resume: bool | None = None,
) -> ArenaResult:
    """Play an arena run (``run.seats``) and record it through ``recorder``.

    Args:
        on_stop: called with the arena at each seat's decision points (progress bars).
        clients: model clients by seat index (tests hand scripted ones; default: litellm from each seat's options).
        limiter: a per-endpoint limit the LLM seats share.
        preflight: make one cheap live call per LLM seat before the arena starts.
        resume: go on with the arena run the recorder's directory holds (default: when it holds one, as an LLM
            run's directory is resumed); a directory holding another arena is refused.
    """
    if not run.seats:
        raise ConfigError("execute_arena plays a run with seats (a spec with a roster)")
    calls = any(seat.records_calls for seat in run.seats)
    for seat in run.seats:  # a missing key or an unknown provider is named before anything is written
        if seat.records_calls and (clients or {}).get(seat.seat) is None:
            _check_setup(seat)
    root = recorder.root
    if resume is None:
        resume = calls and root is not None and RunDir(root).holds_arena_spec()
    header = None
    if resume:
        if root is None:
            raise ConfigError("resuming an arena needs its run directory (out=...)")
        header = check_arena_resumable(run, root)  # before anything is written
    recorder.claim(calls=calls, resume=bool(resume))
    llm: dict[int, LLMAgent] = {}
    counters = [[0] for _ in run.seats]
    stalled = [[False] for _ in run.seats]
    started = time.perf_counter()
    begun = False  # the spec is written: from then on the directory is the arena's, to resume
    try:
        agents = []
        for seat in run.seats:
            if seat.records_calls:
                llm[seat.seat] = _llm_agent(seat, recorder, client=(clients or {}).get(seat.seat), limiter=limiter,
                                            sleep=sleep, resume=bool(resume))
                if preflight:
                    llm[seat.seat].preflight()
                make: Callable = stop_on_outage(llm[seat.seat], seat.seat)
            else:
                make = seat.agent_factory()
            agents.append(_counting(make, counters[seat.seat], stalled[seat.seat], on_stop))
        cls: Any = run.world.world_class()  # an arena's class: it takes seats=
        arena: ArenaWorld = cls(run.preset, run.spec.seed, seats=len(run.seats))
        if on_stop is not None:
            on_stop(arena)
        if calls:  # the spec first: from here on the seats' calls are paid for, and a cut-off arena resumes
            recorder.arena_header(header or arena_header(run))  # type: ignore[attr-defined]  # both recorders have it
        begun = True
        arena.run(agents)
        if resume:
            check_seats_replayed(llm)
    except BaseException:
        for agent in llm.values():
            agent.close()
        if not begun and not resume:  # never started (a pre-flight call failed): a new run may use the directory
            for k in llm:
                recorder.seat(k).abandon()  # type: ignore[attr-defined]  # both recorders have seat()
        raise
    for agent in llm.values():
        agent.close()
    records = tuple(_seat_record(run, seat, arena.seats[seat.seat], counters[seat.seat][0], stalled[seat.seat][0],
                                 llm.get(seat.seat)) for seat in run.seats)
    summary = {k: v for k, v in arena.summary().items() if k != "seats"}
    record = RunRecord(
        world=arena.name, benchmark_id=arena.benchmark_id, preset=run.preset_name, seed=run.spec.seed,
        agent=run.spec.agent, agent_options={}, terminal_reason=TERMINAL_REASONS[arena.status],
        bankrupt=all(s.status is Status.BANKRUPT for s in arena.seats), turns=sum(r.turns for r in records),
        commands=sum(r.commands for r in records), summary=summary,
        seats=[seat_entry(seat, rec) for seat, rec in zip(run.seats, records, strict=True)],
        wall_s=round(time.perf_counter() - started, 6),
    )
    recorder.finish_arena(arena, record, records)  # type: ignore[attr-defined]  # both recorders have it
    return ArenaResult(record=record, seat_records=records, final_world=arena, run_dir=recorder.root)


def _seat_record(run: ResolvedRun, seat: ResolvedSeat, world: World, turns: int, stalled: bool,
                 agent: LLMAgent | None) -> RunRecord:
    """Seat ``seat``'s own record: what its agent did and its figures, as a one-agent run's record reads.

    ``terminal_reason`` is how the seat's company ended; ``terminal_detail`` why its agent stopped when it stopped
    itself (a cap): with rivals that retired the seat (``world.agent_stop``) and its company played on.
    """
    reason = "agent_stalled" if stalled else TERMINAL_REASONS[world.status]
    stop = getattr(world, "agent_stop", None)
    record = RunRecord(
        world=run.world.name, benchmark_id=run.world.benchmark_id, preset=run.preset_name, seed=run.spec.seed,
        agent=seat.entry.agent, agent_options=seat.agent_options, terminal_reason=reason,
        bankrupt=world.status is Status.BANKRUPT, turns=turns, commands=world.trajectory.count("cmd"),
        summary=world.summary(), terminal_detail=str(stop[0]) if stop is not None else None,
    )
    if agent is None:
        return record
    stats = agent.stats_dict()
    detail = agent.episodes[-1]["terminal_detail"] if agent.episodes else world.terminal_detail
    return attrs.evolve(record, agent_options=agent.config.to_dict(), turns=agent.total.turns, terminal_detail=detail,
                        llm=stats["total"], llm_episodes=stats["episodes"])


def arena_body(result: ArenaResult, *, events: bool = True) -> dict:
    """A sweep record's body for an arena run: its figures as run columns, its seats as :data:`SEATS_COLUMN`, and
    the arena's own events (each seat's are in its record in the run directory)."""
    import json

    from bizsim.runs._extract import EVENT_COLUMNS, SERIES_COLUMNS, summary_parts, trajectory_events

    record = result.record
    columns, _ = summary_parts(record.summary)
    seats = [{k: v for k, v in seat.items() if k not in ("summary", "options")} for seat in record.seats or ()]
    run = {k: v for k, v in columns.items() if k not in ("metric_value",)}
    run.update({
        "terminal_reason": record.terminal_reason, "terminal_detail": record.terminal_detail,
        "bankrupt": record.bankrupt, "collapsed": False, "turns": record.turns, "commands": record.commands,
        "metric": record.summary.get("metric"), "metric_value": None,
        "end_t_us": result.final_world.now_us, "end_time": result.final_world.now_iso,
        SEATS_COLUMN: json.dumps(seats, sort_keys=True, separators=(",", ":"), default=str),
    })
    rows = trajectory_events(result.final_world)[0] if events else []
    return {"run": run, "series": {c: [] for c in SERIES_COLUMNS},
            "events": dict(zip(EVENT_COLUMNS, map(list, zip(*rows)))) if rows else {c: [] for c in EVENT_COLUMNS}}
