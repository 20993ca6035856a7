"""One run of a sweep, as a worker process (or Ray task, or the main process) executes it.

:func:`record_run` never raises for a failing run: the error (type, message,
traceback text) goes into the record and the sweep goes on.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bizsim.runs.runspec import RunSpec, records_calls, seat_model_options

if TYPE_CHECKING:
    from bizsim.simcore.world import World

    from bizsim.runs._extract import Extractor
    from bizsim.runs.llm_run import LLMRunResult  # imported with the LLM agent, only by LLM runs

__all__ = ["record_run", "record_run_encoded", "record_version", "run_spec"]

#: Version of the record layout written to ``results.jsonl``.
record_version = 1
#: How an LLM run ends when its model API gave up on it (``RunAborted`` details).
_API_FAILURES = ("api_failures", "api_error")


def run_spec(spec: RunSpec, *, events: bool = True, run_dir: Path | None = None,
             llm_options: dict[str, Any] | None = None) -> dict:
    """Run one spec through the run pipeline, watched, and extract its record body (``run``, ``series``, ``events``).

    An LLM run always writes its run directory (its call log), and one found there unfinished is resumed;
    ``llm_options`` go to it (a ``limiter`` shared with the runs executing at once).
    """
    from bizsim.agents.llm.errors import RunAborted
    from bizsim.simcore.errors import ConfigError

    from bizsim.runs._extract import extract
    from bizsim.runs.pipeline import execute

    if spec.roster:  # an arena: its record per seat, in its run directory, and a row with the seats
        from bizsim.runs.arena_run import arena_body

        # One found there unfinished (its LLM seats' calls recorded) is resumed, as an LLM run's is.
        return arena_body(execute(spec, out=run_dir, overwrite=True, **(llm_options or {})), events=events)
    watcher = _LastEpisode(spec.world_spec)
    llm: LLMRunResult | None = None
    if records_calls(spec):
        if run_dir is None:
            raise ConfigError("LLM runs in a sweep need a run directory for their call log")
        result = execute(spec, out=run_dir, probe=watcher, **(llm_options or {}))
        if result.terminal_detail in _API_FAILURES:
            # Not the agent's result but an outage's: kept out of the tables, and retry_failed resumes it.
            last = (result.llm.get("episodes") or [{}])[-1]
            turns = result.llm.get("total", {}).get("turns", 0)
            raise RunAborted(result.terminal_detail, (
                f"the model API failed ({result.terminal_detail}) after {turns} turns: "
                f"{last.get('message', 'no answer')}. The run directory keeps every answered call; a sweep with "
                "retry_failed=True (--retry-failed) resumes the run from there"))
        episode, llm = result.episode, result
        wall = result.record().wall_s
    else:
        episode = execute(spec, out=run_dir, overwrite=True, probe=watcher)  # a run dir is its own run_id's
        wall = episode.record().wall_s
    world = episode.final_world
    body = extract(world, watcher.extractor_of(world), turns=episode.turns, terminal_reason=episode.terminal_reason,
                   events=events)
    if llm is not None:
        from bizsim.runs.llm_run import llm_run_columns

        if llm.terminal_detail is not None:  # a cap that stopped the agent is not in the command log
            body["run"]["terminal_detail"] = llm.terminal_detail
        body["run"].update(llm_run_columns(llm.llm.get("total", {}), llm.llm.get("roles")))
    for done in episode.worlds:
        done.close()  # freed now, not by the cyclic collector walking it later
    body["wall_s"] = wall  # the record's own runtime (result.json's), so a run has one runtime everywhere
    return body


class _LastEpisode:
    """A probe that keeps a fresh extractor for each episode's world, so the record describes the last episode."""

    def __init__(self, world: Any) -> None:
        self._name = world
        self._world: World | None = None
        self._extractor: Extractor | None = None

    def __call__(self, world: World) -> None:
        self.extractor_of(world).probe(world)

    def extractor_of(self, world: World) -> Extractor:
        """The extractor that watched ``world`` (a fresh one for a world it has not seen)."""
        from bizsim.runs._extract import extractor_for

        extractor = self._extractor
        if world is not self._world or extractor is None:
            extractor = extractor_for(self._name)
            self._world, self._extractor = world, extractor
        return extractor


def record_run(spec: dict, *, events: bool = True, run_dirs: str | None = None, keep_run_dirs: bool = False,
               llm_options: dict[str, Any] | None = None) -> dict:
    """Run one spec (as a dict) through :func:`~bizsim.runs.pipeline.execute` and return its sweep record; a
    failing run returns an error record.

    Args:
        spec: :meth:`RunSpec.to_dict` output.
        events: keep the trajectory's commands and events (else only world-specific rows).
        run_dirs: the folder of run directories (``run_dirs/<run_id>``).
        keep_run_dirs: write a run directory for every run (LLM runs always get one).
        llm_options: for a run whose agent calls a model: what it shares with the runs executing at once
            (``limiter``); a :class:`~bizsim.agents.llm.limits.RunStopped` it raises is let through, not recorded:
            a stopped run is not finished.
    """
    start = time.perf_counter()
    rs = RunSpec.from_dict(spec)
    # run_id and status lead the line, so resuming reads them without parsing the whole record.
    record: dict[str, Any] = {
        "v": record_version, "run_id": rs.run_id, "status": "ok", "error": None, "benchmark_id": rs.benchmark_id,
        "spec": rs.to_dict(), "preset_label": rs.preset_label,
    }
    calls_model = records_calls(rs) or bool(seat_model_options(rs))
    # An arena's run directory is its record per seat: kept always.
    run_dir = Path(run_dirs, rs.run_id) if run_dirs and (keep_run_dirs or calls_model or rs.roster) else None
    try:
        record.update(run_spec(rs, events=events, run_dir=run_dir, llm_options=llm_options if calls_model else None))
    except Exception as exc:  # noqa: BLE001 - a failing run is a result, not the sweep's end
        record["status"] = "error"
        message, trace = str(exc), traceback.format_exc()
        if calls_model:  # a provider's error text may quote the key: the record is shared, the key is not
            from bizsim.agents.llm.errors import run_secrets, scrub

            for options in seat_model_options(rs) or [rs.agent_options]:  # an arena's LLM seats: each one's key
                named = options.get("api_key_env")
                secrets = run_secrets(str(options.get("model", "")), named if isinstance(named, str) else None)
                message, trace = scrub(message, secrets), scrub(trace, secrets)
        record["error"] = {"type": type(exc).__name__, "message": message, "traceback": trace}
    # The run's own record's runtime (result.json's); a run that raised has none, so the time it took to fail.
    wall = record.pop("wall_s", None)
    record["wall_s"] = wall if isinstance(wall, (int, float)) else round(time.perf_counter() - start, 6)
    return record


def record_run_encoded(spec: dict, **options: Any) -> dict:
    """:func:`record_run`, with the record already encoded as its ``results.jsonl`` line.

    Encoding in the worker leaves the sweep's main process only a string to
    write, so on a small machine it takes little CPU from the workers.

    Returns:
        ``{"run_id", "status", "line"}``.
    """
    from bizsim.runs._results_file import encode

    record = record_run(spec, **options)
    return {"run_id": record["run_id"], "status": record["status"], "line": encode(record)}
