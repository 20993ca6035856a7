"""Resuming an arena run with LLM seats: the spec it keeps on disk, the checks a resume makes, and the rule that
every seat's recorded calls are served again.

An arena whose seats include a model-calling agent writes its spec (``arena.json``, through its recorder) before
the seats play; each LLM seat appends its calls to its own folder's call log as they are answered. A run cut off
(the process killed, a seat's API failing, the sweep's spending cap) therefore leaves what a resume needs: the
arena is built afresh from the spec, the built-in seats play again (they are deterministic), and each LLM seat's
gateway serves its own recorded answers first (nothing is sent twice), then goes live. The resumed directory equals
an uninterrupted run's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bizsim.simcore.errors import BizSimError, ConfigError, ReplayError
from bizsim.simcore.limits import MAX_CONFIG_FILE_BYTES, read_text_file, show
from bizsim.simcore.untrusted_json import loads_untrusted

from bizsim.runs.resolve import ResolvedRun
from bizsim.runs.rundir import RunDir
from bizsim.runs.runspec import RunSpec

if TYPE_CHECKING:
    from bizsim.agents.llm import LLMAgent

__all__ = ["API_STOPS", "ARENA_SPEC_VERSION", "ArenaCutOff", "arena_header", "check_arena_resumable", "check_seats_replayed",
           "confirm_seat_endpoints", "load_arena_spec", "seat_options", "stop_on_outage"]

#: The layout of an arena's spec file.
ARENA_SPEC_VERSION = 1
#: How an LLM seat's agent ends when its model's API gave up on it: an outage, not the agent's play.
API_STOPS = ("api_failures", "api_error")


class ArenaCutOff(BizSimError):
    """An LLM seat's model API gave up (:data:`API_STOPS`), so the arena stops where it stands, as a killed run
    does: had it played on without that seat, its rivals' later calls would answer another arena than the one a
    resume plays (with the seat asking its failed call again). No record is written; the run directory keeps the
    spec and every answered call, and a resume goes on from there."""

    def __init__(self, seat: int, detail: str, message: str) -> None:
        super().__init__(f"seat {seat}: {message}")
        self.seat = seat
        self.detail = detail


def stop_on_outage(agent: LLMAgent, seat: int) -> Any:
    """``agent`` as a seat's agent that, when its model's API stopped it, stops the whole arena
    (:class:`ArenaCutOff`) instead of leaving the seat to retire while the others play on."""

    def play(world: Any) -> Any:
        yield from agent(world)
        last = agent.episodes[-1] if agent.episodes else {}
        if last.get("terminal_detail") in API_STOPS:
            raise ArenaCutOff(seat, str(last["terminal_detail"]), str(last.get("message") or "its model API failed"))

    return play


def arena_header(run: ResolvedRun) -> dict:
    """What an arena with LLM seats writes before its seats play: its spec (roster, seed, preset), the world
    config it plays and bizsim's versions (no secrets: a seat names its key's variable, never the key)."""
    from bizsim.runs.llm_run import _now, _versions, _world_config

    return {"kind": "arena", "spec_version": ARENA_SPEC_VERSION, "spec": run.spec.to_dict(),
            "world_config": _world_config(run), "versions": _versions(), "started_at": _now(), "resumes": []}


def load_arena_spec(path: str | Path) -> tuple[RunSpec, dict]:
    """The spec of the arena run in ``path`` and its whole spec file, read bounded (a file anyone could edit).

    Raises:
        ConfigError: no arena with LLM seats was started there, or its spec file is damaged.
    """
    run = RunDir(path)
    file = run.arena_spec
    if not file.is_file():
        what = ("its arena has no LLM seat, so there is nothing paid for to keep: run it again with --overwrite"
                if run.is_arena() else "it is not an arena run's directory")
        raise ConfigError(f"{str(Path(path))!r} holds no arena run to resume ({file.name} is missing): {what}")
    try:
        data = loads_untrusted(read_text_file(file, file.name, MAX_CONFIG_FILE_BYTES))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{str(file)!r} is not JSON ({exc.msg}, line {exc.lineno}); the run directory was "
                          "damaged") from None
    if not isinstance(data, dict) or data.get("kind") != "arena" or data.get("spec_version") != ARENA_SPEC_VERSION:
        raise ConfigError(f"{str(file)!r} is not an arena spec this bizsim wrote (kind arena, spec_version "
                          f"{ARENA_SPEC_VERSION})")
    if not isinstance(data.get("spec"), Mapping) or not isinstance(data.get("resumes", []), list):
        raise ConfigError(f"{str(file)!r} holds no spec table and resumes list; the run directory was damaged")
    try:
        spec = RunSpec.from_dict(data["spec"], recorded=True)
    except ConfigError as exc:
        raise ConfigError(f"{str(file)!r}: {exc}") from None
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ConfigError(f"{str(file)!r} is not an arena spec bizsim wrote: {type(exc).__name__}: {exc}") from None
    if not spec.roster:
        raise ConfigError(f"{str(file)!r} lists no roster; it is not an arena run's spec")
    return spec, data


def _roster(spec: RunSpec) -> list[tuple[str, dict]]:
    return [(seat.agent, seat.options) for seat in spec.roster]


def check_arena_resumable(run: ResolvedRun, root: str | Path) -> dict:
    """Check that ``root`` holds the arena ``run`` asks for; returns its spec file with this resume noted.

    The rule: a resume goes on with the very arena that was started there (same world, seed, preset and overrides,
    the same agent with the same options in every seat, the same world config): anything else would serve one
    run's paid answers to another run's questions.

    Raises:
        ConfigError: no arena run there, or one that differs (the difference named).
    """
    from bizsim.runs.llm_run import _now, _world_config

    before, recorded = load_arena_spec(root)
    asked = run.spec
    where = str(Path(root))
    for what, was, now in (("world", before.world, asked.world), ("seed", before.seed, asked.seed),
                           ("preset", before.preset_label, asked.preset_label)):
        if was != now:
            raise ConfigError(f"{where!r} holds an arena of {what} {was!r}, not {now!r}; a resume goes on with the "
                              "arena started there only: ask for that one, or start this one in another directory")
    if _roster(before) != _roster(asked):
        differ = next(k for k in range(max(len(before.roster), len(asked.roster)))
                      if k >= len(before.roster) or k >= len(asked.roster)
                      or _roster(before)[k] != _roster(asked)[k])
        held = before.roster[differ].to_dict() if differ < len(before.roster) else "no seat"
        wanted = asked.roster[differ].to_dict() if differ < len(asked.roster) else "no seat"
        raise ConfigError(f"{where!r} holds an arena whose seat {differ} is {show(held)}, not {show(wanted)}; a resume "
                          "goes on with the roster started there only (every seat's agent and options)")
    if recorded.get("world_config") != _world_config(run):
        raise ConfigError(f"preset {asked.preset_label!r} no longer gives the world config recorded in "
                          f"{str(RunDir(root).arena_spec)!r} (another bizsim version?); the arena cannot be resumed")
    _refuse_seat_links(RunDir(root))
    calls = {str(k): len(RunDir(root).seat(k).read_calls()) for k, seat in enumerate(run.seats) if seat.records_calls}
    return {**recorded, "resumes": [*recorded.get("resumes", []), {"at": _now(), "recorded_calls": calls}]}


def _refuse_seat_links(run: RunDir) -> None:
    # A seat's recorded calls are read from its folder, then its recorder removes a link there (never writing through
    # it): a planted link would be read outside the directory and the seat's calls then asked again (paid twice).
    from bizsim.runs.roster import MAX_SEATS

    for folder in (run.seats, *(run.seats / str(k) for k in range(MAX_SEATS))):
        if folder.is_symlink():
            raise ConfigError(f"{str(folder)!r} is a symbolic link; a run directory keeps its own seats' folders "
                              "(their recorded calls are what a resume replays): put the folder it points to in its "
                              "place")
        if folder == run.seats and not folder.is_dir():
            return


def check_seats_replayed(agents: Mapping[int, LLMAgent]) -> None:
    """Raise :class:`ReplayError` if a resumed arena left a seat's recorded answers unasked: it went another way
    than the run that recorded them (the directory does not belong to this arena, or bizsim changed)."""
    for k, agent in sorted(agents.items()):
        left = agent.gateway.remaining
        if left:
            raise ReplayError(f"seat {k}: the resumed arena asked {agent.gateway.replayed} of the seat's recorded "
                              f"calls but its log holds {agent.gateway.replayed + left}: the log does not replay on "
                              "this arena (it belongs to another run, or bizsim's version changed); start a new run")


def confirm_seat_endpoints(spec: RunSpec, confirmed: Sequence[tuple[str | None, str | None]]) -> None:
    """Refuse to send a key to an endpoint only the spec file names, unless the caller names it too.

    A run directory can be edited by anyone who can write it; an edited seat's endpoint and key variable would send
    another variable's value to another host. Every LLM seat that names an endpoint or a key variable must be
    confirmed: its ``(api_base, api_key_env)`` among ``confirmed`` (the CLI's --api-base/--api-key-env, or the
    roster given again with --seat).
    """
    for k, seat in enumerate(spec.roster):
        named = (seat.options.get("api_base"), seat.options.get("api_key_env"))
        if named == (None, None) or named in confirmed:
            continue
        says = " and ".join(f"{flag} {show(v)}" for flag, v in zip(("--api-base", "--api-key-env"), named)
                            if v is not None)
        raise ConfigError(f"seat {k} of the arena in the run directory names {says}; a run directory can be edited, "
                          f"so resume only after confirming: give {says} again (or the roster again with --seat)")


def seat_options(roster: Sequence[Any]) -> list[tuple[str | None, str | None]]:
    """The ``(api_base, api_key_env)`` each seat of a roster given by the caller names (what it confirms)."""
    from bizsim.runs.roster import as_roster

    return [(s.options.get("api_base"), s.options.get("api_key_env")) for s in as_roster(roster)]
