"""Sweeps: many runs (worlds x presets x agents x seeds), streamed to disk, resumable, on any backend.

>>> # summary = sweep(grid("startup", ["default", "hard"], ["greedy", "random"], "1-20"), "out/presets")
>>> # tables = bizsim.analysis.load("out/presets"); tables.runs.groupby("agent").metric_value.mean()

Runs whose agent waits on a model (and arenas with an LLM seat) run many at once
on threads of the sweep's process (``concurrency`` requests in flight per
endpoint, :mod:`bizsim.runs.concurrent`); the others run on the backend's workers.

A sweep directory holds ``results.jsonl`` (one line per finished run, appended
and flushed as runs finish), ``sweep.json`` (every spec ever asked for, in
order) and, when asked or for LLM runs, ``runs/<run_id>/`` run directories. A
sweep writes records; the analysis layer reads them into the Parquet tables
beside them (:mod:`bizsim.analysis.tables`, when ``load`` first reads them or
``bizsim sweep`` ends). Running the same sweep again
skips every run id already in ``results.jsonl``, so an interrupted sweep
resumes where it stopped and a grown grid runs only its new runs.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.errors import ConfigError

from bizsim.runs._results_file import encode, finished_ids, iter_heads
from bizsim.runs._worker import record_run_encoded
from bizsim.runs.backends import Backend, make_backend
from bizsim.runs.concurrent import DEFAULT_CONCURRENCY, ConcurrentRuns, waits_on_io
from bizsim.runs.recorder import SweepRecorder
from bizsim.runs.rundir import RunDir, SweepDir, make_output_dir
from bizsim.runs.runspec import RunSpec, grid, parse_seeds, records_calls, seat_model_options

if TYPE_CHECKING:
    from bizsim.agents.llm.limits import EndpointLimiter  # imported with the sweep's runs: the LLM harness is heavy

    from bizsim.runs._results_file import ResultsWriter

__all__ = ["RunSpec", "SweepSummary", "grid", "parse_seeds", "sweep"]

@attrs.frozen
class SweepSummary:
    """What a sweep did: runs asked for, skipped as already done, run now, and failed now."""

    out: Path
    total: int
    skipped: int
    ran: int
    failed: int
    elapsed_s: float
    #: Whether the Parquet tables were written after the runs: never by ``sweep``, which writes records only;
    #: ``bizsim sweep`` writes them next (:func:`bizsim.analysis.compact`) and says so here.
    compacted: bool
    #: Runs already done whose recorded preset label differs from the spec's (a label is not part of the run id).
    relabelled: int = 0
    #: Runs left to do because the sweep's model dollars reached ``max_cost_usd``: not started, or stopped between
    #: two model calls (their run directories resume them).
    held: int = 0
    #: Model dollars the sweep has paid, its earlier runs' included (``None`` without a ``max_cost_usd``).
    spent_usd: float | None = None
    max_cost_usd: float | None = None

    def __str__(self) -> str:
        note = (f"; {self.relabelled} of the runs already done keep the preset label they were recorded with "
                "(a label is not part of the run id)") if self.relabelled else ""
        if self.held:
            note += (f"; {self.held} runs held back: the sweep has paid ${self.spent_usd:.2f} of "
                     f"max_cost_usd={self.max_cost_usd} (raise it and run the same sweep again to go on; the runs "
                     "stopped between calls resume from their run directories)")
        return (
            f"{self.total} runs: {self.ran} run now ({self.failed} failed), {self.skipped} already done; "
            f"{self.elapsed_s:.1f} s; results in {self.out}{note}"
        )


class _Progress:
    """tqdm (a widget in notebooks when ipywidgets is there, text otherwise), else rich."""

    def __init__(self, total: int, done: int) -> None:
        self._failed = 0
        self._bar: Any = None
        self._rich: Any = None
        if importlib.util.find_spec("tqdm") is not None:
            if importlib.util.find_spec("ipywidgets") is not None:
                from tqdm.auto import tqdm
            else:
                from tqdm import tqdm
            self._bar = tqdm(total=total, initial=done, unit="run", desc="sweep", dynamic_ncols=True)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._rich = Progress(
                TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[note]}"),
                TimeRemainingColumn(),
            )
            self._task = self._rich.add_task("sweep", total=total, completed=done, note="")
            self._rich.start()

    def update(self, record: dict) -> None:
        if record.get("status") != "ok":
            self._failed += 1
        note = f"{self._failed} failed" if self._failed else ""
        if self._bar is not None:
            if self._failed:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(1)
        else:
            self._rich.update(self._task, advance=1, note=note)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        else:
            self._rich.stop()


def _as_spec(s: RunSpec | Mapping) -> RunSpec:
    if isinstance(s, RunSpec):
        return s
    if isinstance(s, Mapping):
        return RunSpec.from_dict(s)
    raise ConfigError(f"a sweep takes RunSpec objects or tables, not {type(s).__name__}")


def _own_options(spec: RunSpec) -> dict:
    """The agent's own options of an LLM run (the run's settings, a role's player or ``max_episodes``, left out),
    split by the one rule :func:`~bizsim.runs.resolve.resolve` uses."""
    from bizsim.runs.resolve import resolve

    return resolve(spec).agent_options


def _model_options(spec: RunSpec) -> list[dict]:
    """The options of every agent of ``spec`` that calls a model: an LLM run's, or an arena's LLM seats'."""
    if spec.roster:
        from bizsim.runs.resolve import resolve

        return [seat.agent_options for seat in resolve(spec).seats if seat.records_calls]
    return [_own_options(spec)] if records_calls(spec) else []


def _endpoints(specs: Iterable[RunSpec]) -> list[dict]:
    """The agent options of the LLM runs (and LLM arena seats) among ``specs``, one per distinct endpoint (model,
    address, key variable)."""
    found: dict[tuple, dict] = {}
    for spec in specs:
        for options in _model_options(spec):
            found.setdefault((options.get("model"), options.get("api_base"), options.get("api_key_env")), options)
    return list(found.values())


def _check_llm_setup(specs: Iterable[RunSpec], *, preflight: bool) -> None:
    """Name a missing key variable, an unknown provider or (with ``preflight``) nothing listening at an endpoint of
    any LLM run to do, in well under a second: before litellm is imported and before anything is written."""
    from bizsim.agents.llm.setup_check import check_endpoint, check_setup

    for options in _endpoints(specs):
        model = options.get("model")
        if not isinstance(model, str):
            continue  # a run without a model is named by its own check
        check_setup(model, api_base=options.get("api_base"), api_key_env=options.get("api_key_env"))
        if preflight:
            check_endpoint(options.get("api_base"))


def _check_requests(specs: Iterable[RunSpec]) -> None:
    """Refuse, before anything runs, model settings whose requests litellm would change (a parameter it would
    drop without a word): the LLM agent's client checks them when it is made, once per distinct setting."""
    seen: set[str] = set()
    for spec in specs:
        for options in _model_options(spec):  # an LLM run's agent, or each LLM seat of an arena
            key = json.dumps(options, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            from bizsim.agents.llm import LLMAgent, LLMAgentConfig

            LLMAgent(LLMAgentConfig.from_options(options)).close()


def _preflight(specs: Iterable[RunSpec]) -> None:
    """One pre-flight call per distinct model endpoint of the LLM runs (PreflightError names the first that fails)."""
    for options in _endpoints(specs):
        from bizsim.agents.llm import LLMAgent, LLMAgentConfig
        from bizsim.agents.llm.errors import PreflightError

        agent = LLMAgent(LLMAgentConfig.from_options(options))
        try:
            agent.preflight()
        except PreflightError as exc:
            raise PreflightError(f"{exc} (the sweep did not start: fix the model settings, or skip this check with "
                                 "preflight=False, --no-preflight)") from None
        finally:
            agent.close()


def sweep(
    specs: Iterable[RunSpec | Mapping],
    out: str | Path,
    backend: str | Backend = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    progress: bool = True,
    *,
    events: bool = True,
    run_dirs: bool = False,
    retry_failed: bool = False,
    compact: bool | None = None,
    on_result: Callable[[dict], None] | None = None,
    preflight: bool = True,
    max_cost_usd: float | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> SweepSummary:
    """Run every spec not yet finished in ``out``; stream each record to ``out/results.jsonl`` as it finishes.

    Args:
        specs: run specs (:func:`grid` builds products); duplicates run once.
        out: the sweep directory (created if missing; reused to resume).
        backend: ``"process"`` (a local process pool), ``"serial"`` (this
            process), ``"ray"`` (optional extra), or a :class:`Backend` object.
            Records are identical whichever runs them.
        workers: processes (or local Ray CPUs); default: the CPUs available.
        ray_address: an existing Ray cluster (``ray://host:10001``, ``auto``);
            default: a local Ray instance.
        progress: show a progress bar (terminal or notebook).
        events: keep every command and world event in the ``events`` table
            (startup task rows are kept either way).
        run_dirs: also write each run's directory (config, command log,
            trajectory, result) under ``out/runs/<run_id>``; LLM runs always get one.
        retry_failed: run again the runs recorded as failed.
        compact: kept for old callers: a sweep writes records only, never the Parquet tables
            (:func:`bizsim.analysis.load` writes them when it finds them missing or stale, ``bizsim sweep``
            right after the runs, :func:`bizsim.analysis.compact` when called). ``False`` or ``None``: nothing
            to do; ``True`` is refused with a ConfigError that says so.
        on_result: called with each record after it is written.
        preflight: before anything runs, make one tiny call to every model
            endpoint the LLM runs still to do will use (a wrong key or address fails
            the sweep at once instead of every run after its retries).
        max_cost_usd: cap on the model dollars of the whole sweep (its runs finished before, and the calls
            its unfinished runs already paid, included): once they reach it no model call and no run starts.
            The calls in flight finish, so the sweep can pass the cap by at most their cost (``concurrency``
            calls per endpoint); runs stopped by the cap, and the runs not started, stay to do, and the same
            sweep with a higher cap resumes them from their run directories without paying again. Every LLM
            run's model must be priced.
        concurrency: model requests in flight per endpoint (default :data:`DEFAULT_CONCURRENCY`). Runs whose
            agent waits on I/O (the LLM agent), and arenas with such a seat, run at once on threads of this process,
            sharing this limit (each LLM seat's requests counted against its own endpoint), whatever the backend
            and ``workers`` (which are for the CPU-bound runs).

    Returns:
        counts of what ran; ``bizsim.analysis.load(out)`` gives the tables.

    Raises:
        ConfigError: a spec names an unknown world, preset, override, agent or option
            (checked before anything runs).
        PreflightError: an LLM endpoint does not answer (nothing ran).
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(f"concurrency(={concurrency!r}) must be an integer >= 1 (model requests in flight per "
                          "endpoint)")
    root = Path(out).resolve()
    unique: dict[str, RunSpec] = {}
    for s in map(_as_spec, specs):
        unique.setdefault(s.run_id, s)
    todo_all = list(unique.values())
    checked: set[str] = set()
    for s in todo_all:
        key = json.dumps([s.world, s.preset, s.overrides, s.agent, s.agent_options,
                          [seat.to_dict() for seat in s.roster]], sort_keys=True)
        if key not in checked:
            s.check()
            checked.add(key)
    done = finished_ids(SweepDir(root).results, include_errors=not retry_failed) if root.is_dir() else set()
    todo = [s for rid, s in unique.items() if rid not in done]
    _check_llm_setup(todo, preflight=preflight)  # a missing key fails the sweep now, before litellm loads
    _check_requests(todo)
    runner = make_backend(backend, workers=workers, ray_address=ray_address)
    sweep = SweepDir(root)
    if RunDir(root).is_finished() and not sweep.results.exists():
        raise ConfigError(f"{str(root)!r} holds a single run's directory; give the sweep a directory of its own")
    if compact:
        raise ConfigError("sweep(compact=True): a sweep writes records only; the Parquet tables are the analysis "
                          "layer's: call bizsim.analysis.compact(out) after the sweep, or bizsim.analysis.load(out), "
                          "which writes them when missing or stale")
    make_output_dir(root)
    start = time.perf_counter()
    recorder = SweepRecorder(root)
    with recorder.results() as writer:
        recorder.manifest(unique)
        relabelled = _relabelled(sweep.results, {rid: s for rid, s in unique.items() if rid in done})
        if preflight:
            _preflight(todo)
        options = {"events": events, "run_dirs": str(sweep.runs), "keep_run_dirs": run_dirs}
        if max_cost_usd is not None:
            _check_priced(todo, max_cost_usd)
        bar = _Progress(len(todo_all), len(todo_all) - len(todo)) if progress and todo else None
        waiting = [s for s in todo if waits_on_io(s)]
        budget = _limiter(sweep, unique, concurrency, max_cost_usd) if waiting or max_cost_usd is not None else None
        sink = _Sink(writer, bar, on_result, budget)
        lane = ConcurrentRuns(waiting, budget, sink.add_io, **options) if budget is not None and waiting else None
        held = 0
        try:
            if lane is not None:
                lane.start()
            held += _run_on_backend(runner, [s for s in todo if not waits_on_io(s)], options, sink, budget, workers)
            if lane is not None:
                held += lane.wait()
        finally:
            if lane is not None:
                lane.close()
            if bar is not None:
                bar.close()
    return SweepSummary(
        out=root, total=len(todo_all), skipped=len(todo_all) - len(todo), ran=sink.ran, failed=sink.failed,
        elapsed_s=time.perf_counter() - start, compacted=False, relabelled=relabelled, held=held,
        spent_usd=budget.spent_usd if budget is not None and max_cost_usd is not None else None,
        max_cost_usd=max_cost_usd,
    )


class _Sink:
    """Where every finished run goes, from whichever thread ran it: ``results.jsonl``, the counts, the progress
    bar, the spend and ``on_result``, one run at a time."""

    def __init__(self, writer: ResultsWriter, bar: _Progress | None, on_result: Callable[[dict], None] | None,
                 budget: EndpointLimiter | None) -> None:
        self.writer, self.bar, self.on_result, self.budget = writer, bar, on_result, budget
        self.ran = self.failed = 0
        self._lock = threading.Lock()

    def add(self, item: dict, *, charge: bool = True) -> None:
        """Write a worker's item (its encoded line) or a backend's own record (a dead worker's run, a dict)."""
        with self._lock:
            line = item["line"] if "line" in item else encode(item)
            self.writer.write_line(line)
            self.ran += 1
            self.failed += item.get("status") != "ok"
            if self.bar is not None:
                self.bar.update(item)
            record = json.loads(line) if "line" in item else item
            if charge and self.budget is not None:
                self.budget.charge(_cost_of(record))
            if self.on_result is not None:
                self.on_result(record)

    def add_io(self, item: dict) -> None:
        """A concurrent run's item: its calls were charged as they were paid."""
        self.add(item, charge=False)


def _limiter(sweep: SweepDir, specs: Mapping[str, RunSpec], concurrency: int,
             max_cost_usd: float | None) -> EndpointLimiter:
    """The sweep's one limiter: requests in flight per endpoint, and every dollar against the cap (the finished
    runs', the answered calls in the run directories of the others, then each call as it is paid)."""
    from bizsim.agents.llm.limits import EndpointLimiter

    spent = 0.0
    if max_cost_usd is not None:
        ok = finished_ids(sweep.results, include_errors=False)
        spent = _spent_usd(sweep.results) + _unfinished_usd(sweep, [s for rid, s in specs.items() if rid not in ok])
    return EndpointLimiter(concurrency, max_cost_usd=max_cost_usd, spent_usd=spent)


def _run_on_backend(runner: Backend, todo: list[RunSpec], options: dict, sink: _Sink,
                    budget: EndpointLimiter | None, workers: int | None) -> int:
    """Run the CPU-bound runs on the backend, streaming each record to ``sink``; the runs held back by the cap.

    Under a cap they start in groups of ``workers``, the cap checked between groups (a CPU-bound agent that
    records model calls is charged when its run ends).
    """
    if not todo:
        return 0
    job = functools.partial(record_run_encoded, **options)
    size = max(1, workers or getattr(runner, "workers", 1) or 1)
    capped = budget is not None and budget.max_cost_usd is not None
    groups = [todo[i:i + size] for i in range(0, len(todo), size)] if capped else [todo]
    for n, group in enumerate(groups):
        if budget is not None and budget.max_cost_usd is not None and budget.spent_usd >= budget.max_cost_usd:
            return sum(len(g) for g in groups[n:])
        records = runner.run([s.to_dict() for s in group], job)
        try:
            for item in records:
                sink.add(item)
        finally:
            close = getattr(records, "close", None)
            if close is not None:
                close()
    return 0


def _unfinished_usd(sweep: SweepDir, todo: Iterable[RunSpec]) -> float:
    """The model dollars already paid by runs not recorded as finished that left a run directory (a run stopped
    by the cap, a killed sweep, a run the API cut short): their records do not count them, yet they were paid
    (a resume replays them without paying again)."""
    total = 0.0
    for spec in todo:
        for calls in _call_logs(sweep, spec):
            if not calls.is_file():
                continue
            with calls.open(encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    try:
                        row = json.loads(line)
                        total += float((row.get("response") or {}).get("cost_usd") or 0.0) if row.get("ok") else 0.0
                    except (ValueError, AttributeError, TypeError):
                        continue  # a torn last line: the run's resume cuts it off
    return total


def _call_logs(sweep: SweepDir, spec: RunSpec) -> list[Path]:
    """Where a run of the sweep records its model calls: an LLM run's call log, or each seat's of an arena (a seat
    of a built-in agent has none, so every seat's folder is looked at)."""
    run = sweep.run(spec.run_id)
    if spec.roster:
        return [run.seat(k).llm_calls for k in range(len(spec.roster))] if seat_model_options(spec) else []
    return [run.llm_calls] if records_calls(spec) else []


def _cost_of(record: Mapping) -> float:
    """A finished run's model dollars: the agent's and its world's roles' (a failed run's partial cost is not
    in its record, so it counts 0)."""
    from bizsim.runs.arena_run import SEATS_COLUMN

    run = record.get("run")
    fields: Mapping = run if isinstance(run, Mapping) else record
    total = 0.0
    for key in ("llm_cost_usd", "llm_role_cost_usd"):
        total += float(fields.get(key) or 0.0)
    seats = fields.get(SEATS_COLUMN)  # an arena's: each LLM seat's dollars are in its entry
    if isinstance(seats, str):
        for seat in json.loads(seats):
            total += float(((seat.get("llm") or {}) if isinstance(seat, Mapping) else {}).get("cost_usd") or 0.0)
    return total


def _spent_usd(results: Path) -> float:
    """The model dollars of every run already recorded in ``results``."""
    total = 0.0
    for _, record in iter_heads(results):  # bounded: a regular file, lines no deeper than a record may nest
        try:
            total += _cost_of(record)
        except (ValueError, AttributeError, TypeError):
            continue
    return total


def _check_priced(todo: Iterable[RunSpec], cap: float) -> None:
    """Refuse a sweep cap over LLM runs whose model has no price: their dollars could not be counted."""
    if cap < 0:
        raise ConfigError(f"max_cost_usd(={cap}) must be >= 0")
    from bizsim.agents.llm import LLMAgentConfig

    from bizsim.runs.llm_estimate import model_prices

    seen: set[str] = set()
    for options in (o for spec in todo for o in _model_options(spec)):  # LLM runs' agents and arenas' LLM seats
        config = LLMAgentConfig.from_options(options)
        if config.model in seen:
            continue
        seen.add(config.model)
        if model_prices(config.model, config.prices)[0] is None:
            raise ConfigError(
                f"max_cost_usd(={cap}) needs a price for model {config.model!r}, which neither litellm's price map "
                "nor the run's prices= knows; give prices={model: [input $/M tokens, output $/M tokens]} as an "
                "agent option, or drop the cap"
            )


def _relabelled(results: Path, done: Mapping[str, RunSpec]) -> int:
    """How many runs already done were recorded under another preset label than their spec now gives."""
    if not done:
        return 0
    recorded = {rec["run_id"]: rec.get("preset_label") for _, rec in iter_heads(results) if rec["run_id"] in done}
    return sum(1 for rid, spec in done.items() if rid in recorded and recorded[rid] != spec.preset_label)
