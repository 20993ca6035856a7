"""Sweeps: run ids, grids, backends that agree, streaming, resuming, failures, tables, the CLI."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from .strategies import run_specs, seed_texts

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("sweep")


pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from bizsim.analysis import compact, load
from bizsim.runs import RunSpec, grid, run_episode, sweep
from bizsim.analysis.worlds.startup.extract import business_hours
from bizsim.cli import main
from bizsim.runs.gridfile import load_grid
from bizsim.runs.runspec import parse_seeds
from bizsim.analysis.tables import EVENT_COLUMNS, LLM_CALL_COLUMNS, RUN_COLUMNS, SERIES_COLUMNS
from bizsim.models.startup import StartupWorld
from bizsim.simcore.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
#: The startup world's business calendar (09:00-18:00, Monday to Friday).
CALENDAR = StartupWorld("default", 1).calendar
#: Wall-clock columns: the only ones allowed to differ between backends.
WALL = ["wall_s"]


def small_grid() -> list[RunSpec]:
    """A few runs of every registered world (two of its baseline agents), cheap enough for every backend."""
    from bizsim.agents import agent_names
    from bizsim.models import world_names

    specs = grid("startup", ["default", "hard"], ["greedy", "random"], "1-2")
    # The example world the suite registers in this process only: a pool's workers import the registry afresh.
    for world in sorted(set(world_names()) - {"startup", "lemonade"}):
        specs += grid(world, "default", [a for a in agent_names(world) if a != "llm"][:2], 1)
    return specs


def tables(path: Path) -> dict:
    """The four tables of a sweep directory, wall-clock columns dropped."""
    res = load(path)
    return {"runs": res.runs.drop(columns=WALL), "series": res.series, "events": res.events, "llm_calls": res.llm_calls}


def assert_same(a: dict, b: dict) -> None:
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_like=False, obj=name)


@pytest.fixture(scope="module")
def serial_dir(tmp_path_factory) -> Path:
    """The small grid, run serially."""
    out = tmp_path_factory.mktemp("serial")
    summary = sweep(small_grid(), out, backend="serial", progress=False)
    assert (summary.ran, summary.failed) == (len(small_grid()), 0)
    return out


# run specs and grids ------------------------------------------------------------------
def test_run_id_is_a_stable_hash_of_the_spec_and_benchmark_version(monkeypatch):
    """Equal specs share an id (aliases, key order, labels aside); any change of substance changes it."""
    a = RunSpec("startup", "hard", "random", 3, overrides={"b": 1, "a": {"y": 2, "x": 1}}, agent_options={"max_parallel": 3})
    b = RunSpec("startup-v1", "hard", "random", 3, overrides={"a": {"x": 1, "y": 2}, "b": 1}, agent_options={"max_parallel": 3},
                label="shown differently")
    assert a.run_id == b.run_id
    assert 16 == len(a.run_id)
    assert a.run_id != RunSpec("startup", "hard", "random", 4, overrides=a.overrides, agent_options=a.agent_options).run_id
    assert a.run_id != RunSpec("startup", "hard", "random", 3, agent_options=a.agent_options).run_id
    assert RunSpec("startup").run_id == RunSpec("startup").run_id
    from bizsim.simcore.registry import register, world_spec

    before = RunSpec("startup").run_id
    spec = world_spec("startup")
    register(attrs.evolve(spec, version=2), replace=True)
    try:
        monkeypatch.setattr("bizsim.models.startup.StartupWorld.version", 2)
        assert "startup-v2" == RunSpec("startup").benchmark_id
        assert before != RunSpec("startup").run_id
    finally:
        register(spec, replace=True)


def test_run_spec_round_trips_and_refuses_bad_values(tmp_path):
    """to_dict/from_dict round-trip; bad seeds, worlds and keys fail with the rule named; toml presets become overrides."""
    s = RunSpec("operation", "easy", "threshold", 2, agent_options={"threshold": 0.5}, label="x")
    assert s == RunSpec.from_dict(json.loads(json.dumps(s.to_dict())))
    with pytest.raises(ConfigError, match="seed"):
        RunSpec("startup", seed=-1)
    with pytest.raises(ConfigError, match="unknown world"):
        RunSpec("nowhere")
    with pytest.raises(ConfigError, match="unknown run key"):
        RunSpec.from_dict({"world": "startup", "sed": 1})
    with pytest.raises(ConfigError, match="JSON-able"):
        RunSpec("startup", overrides={"x": object()})
    cfg = tmp_path / "rich.toml"
    cfg.write_text('extends = "hard"\ninitial_funds_cents = 50000000\n')
    t = RunSpec("startup", str(cfg), "greedy", 1)
    assert ("hard", {"initial_funds_cents": 50_000_000}, "rich") == (t.preset, t.overrides, t.preset_label)
    assert "hard+initial_funds_cents=50000000" == RunSpec("startup", "hard", overrides=t.overrides).preset_label
    with pytest.raises(ConfigError, match="unknown startup preset"):
        RunSpec("startup", "nope").check()
    with pytest.raises(ConfigError, match="no option"):
        RunSpec("startup", agent="random", agent_options={"bogus": 1}).check()


@given(run_specs())
def test_any_run_spec_round_trips_and_keeps_its_id(spec):
    """to_dict/from_dict and a JSON round trip give an equal spec with the same id; the label never changes the id."""
    again = RunSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
    assert spec == again and spec.run_id == again.run_id
    assert re.fullmatch("[0-9a-f]{16}", spec.run_id)
    relabelled = RunSpec.from_dict({**spec.to_dict(), "label": "another label"})
    assert spec.run_id == relabelled.run_id
    shuffled = RunSpec.from_dict({**spec.to_dict(), "agent_options": dict(reversed(list(spec.agent_options.items())))})
    assert spec.run_id == shuffled.run_id


_DAY_US = 86_400_000_000


# Days and a time of day: a plain wide integer range would draw mostly instants and spans of microseconds.
@given(st.builds(lambda d, us: d * _DAY_US + us, st.integers(0, 400), st.integers(0, _DAY_US - 1)),
       st.builds(lambda d, us: d * _DAY_US + us, st.integers(-40, 40), st.integers(0, _DAY_US - 1)))
def test_the_extractors_business_hours_equal_the_calendars(t0, span):
    """The O(1) business-hours count of the task probe equals the calendar's day-by-day walk."""
    t1 = t0 + span
    between = CALENDAR.business_hours_between
    expected = float(between(t0, t1)) if span >= 0 else -float(between(t1, t0))
    assert pytest.approx(expected, abs=1e-6) == business_hours(CALENDAR, t0, t1)


@given(seed_texts())
def test_seed_lists_parse_as_written(case):
    """``--seeds`` text expands to the seeds it names, in order."""
    text, seeds = case
    assert seeds == parse_seeds(text)


def test_grid_is_the_product_with_seeds_fastest():
    """worlds x presets x agents x seeds; agents a world lacks are skipped; one no world has is an error."""
    specs = grid(["startup", "operation"], ["default", "hard"], ["greedy", "threshold"], "1-2")
    assert 8 == len(specs)
    assert [("startup", "default", "greedy", 1), ("startup", "default", "greedy", 2), ("startup", "hard", "greedy", 1)] == [
        (s.world, s.preset, s.agent, s.seed) for s in specs[:3]
    ]
    assert {"greedy"} == {s.agent for s in specs if s.world == "startup"}
    with pytest.raises(ConfigError, match="offered by none"):
        grid("startup", "default", "threshold", 1)
    assert [1, 2, 3, 7, 9] == parse_seeds("1-3,7, 9")
    assert [4] == parse_seeds(4)
    with pytest.raises(ConfigError, match="N-M"):
        parse_seeds("3-1")
    for bad, message in ((["a"], "'a' is not a seed N"), ([1.5], "1.5 is not an integer"), (1.5, "must be text"), (True, "must be text"),
                         ([2, True], "True is not an integer"), (-1, "must be >= 0")):
        with pytest.raises(ConfigError, match=message):
            parse_seeds(bad)
    t = grid("startup", {"name": "default", "overrides": {"initial_funds_cents": 1}}, {"name": "random", "options": {"max_parallel": 1}}, 1)[0]
    assert ({"initial_funds_cents": 1}, {"max_parallel": 1}) == (t.overrides, t.agent_options)


def test_grid_file(tmp_path):
    """[grid] products, [[runs]] and [sweep] settings; unknown keys are refused with the key named."""
    path = tmp_path / "grid.toml"
    path.write_text(textwrap.dedent("""
        [grid]
        worlds = ["startup"]
        presets = ["default", {name = "hard", label = "hard-rich", overrides = {initial_funds_cents = 50_000_000}}]
        agents = ["greedy", {name = "random", options = {max_parallel = 3}}]
        seeds = "1-2"

        [[runs]]
        world = "operation"
        preset = "hard"
        agent = "threshold"
        agent_options = {threshold = 0.5}
        seeds = [4, 5]

        [sweep]
        backend = "serial"
        workers = 1
    """))
    specs, settings = load_grid(path)
    assert 10 == len(specs)
    assert {"backend": "serial", "workers": 1} == settings
    assert {"default", "hard-rich"} == {s.preset_label for s in specs if s.world == "startup"}
    assert [4, 5] == [s.seed for s in specs if s.world == "operation"]
    path.write_text('[grid]\nworlds = ["startup"]\nagent = "greedy"\nseed = 1\n')
    with pytest.raises(ConfigError, match="unknown key"):
        load_grid(path)
    path.write_text('[sweep]\nbackend = "serial"\n')
    with pytest.raises(ConfigError, match="no runs"):
        load_grid(path)


# backends agree ------------------------------------------------------------------------
def test_process_pool_gives_the_serial_results(serial_dir, tmp_path):
    """The local process pool writes the same tables as a serial sweep (every world)."""
    summary = sweep(small_grid(), tmp_path, backend="process", workers=2, progress=False)
    assert (len(small_grid()), 0, 0) == (summary.ran, summary.failed, summary.skipped)
    assert_same(tables(serial_dir), tables(tmp_path))


def _worker_gc_state() -> tuple:
    import gc

    return gc.get_threshold()[0], gc.get_freeze_count() > 0


def test_a_pool_worker_freezes_its_imports_and_collects_less_often_but_the_sweeps_process_does_not():
    """The collector tuning of a pool worker stays in the worker (the user's process keeps its settings)."""
    import gc
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from bizsim.runs import backends
    from bizsim.runs._worker import record_run_encoded

    before = gc.get_threshold(), gc.get_freeze_count()
    spec = small_grid()[0].to_dict()
    with ProcessPoolExecutor(1, mp_context=get_context("forkserver")) as pool:
        threshold, frozen = pool.submit(_worker_gc_state).result()
        assert threshold != backends._GEN0_THRESHOLD and not frozen
        (line,) = pool.submit(backends._call_chunk, record_run_encoded, [spec]).result()
        assert line["status"] == "ok"
        assert pool.submit(_worker_gc_state).result() == (backends._GEN0_THRESHOLD, True)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


@pytest.mark.slow
def test_ray_gives_the_serial_results(serial_dir, tmp_path):
    """A local Ray instance (2 CPUs) writes the same tables as a serial sweep."""
    ray = pytest.importorskip("ray")
    assert not ray.is_initialized()
    summary = sweep(small_grid(), tmp_path, backend="ray", workers=2, progress=False)
    assert (len(small_grid()), 0) == (summary.ran, summary.failed)
    assert not ray.is_initialized()  # the instance the sweep started is shut down
    assert_same(tables(serial_dir), tables(tmp_path))


# streaming, resuming, failures ---------------------------------------------------------
def test_rerunning_a_finished_sweep_runs_nothing_and_a_grown_grid_only_the_new_runs(serial_dir, tmp_path):
    """Finished run ids are skipped; adding seeds runs only the new ones."""
    specs = grid("startup", "default", "greedy", "1-2")
    first = sweep(specs, tmp_path, backend="serial", progress=False)
    again = sweep(specs, tmp_path, backend="serial", progress=False)
    grown = sweep(grid("startup", "default", "greedy", "1-4"), tmp_path, backend="serial", progress=False)
    assert [(2, 0), (0, 2), (2, 2)] == [(s.ran, s.skipped) for s in (first, again, grown)]
    assert 4 == len(load(tmp_path).runs)
    assert 4 == len(json.loads((tmp_path / "sweep.json").read_text())["specs"])


_KILL_SCRIPT = """
import sys, time
from bizsim.runs import grid, sweep

def slow(record):
    time.sleep(0.25)

if __name__ == "__main__":
    sweep(grid("startup", "default", ["greedy", "random"], "1-5"), sys.argv[1], backend=sys.argv[2], workers=2,
          progress=False, compact=False, on_result=slow)
"""


def _orphans() -> set[int]:
    """Processes adopted by init whose command line is a multiprocessing child (left behind by a killed parent)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == 1 and b"multiprocessing" in cmdline:
            found.add(int(proc.name))
    return found


@pytest.mark.parametrize("backend", ["serial", "process"])
def test_a_sweep_killed_with_sigkill_resumes_with_only_the_missing_runs(tmp_path, backend):
    """SIGKILL after some runs: no worker is left behind, the rerun runs exactly the others, and the tables equal
    an uninterrupted sweep's."""
    script = tmp_path / "kill_me.py"
    script.write_text(_KILL_SCRIPT)
    out = tmp_path / "killed"
    before = _orphans() if Path("/proc").is_dir() else set()
    proc = subprocess.Popen([sys.executable, str(script), str(out), backend], cwd=tmp_path)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = results.read_bytes().count(b"\n")
    assert 3 <= done < 10
    if Path("/proc").is_dir():
        deadline = time.monotonic() + 10
        while _orphans() - before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert set() == _orphans() - before
    resumed = sweep(grid("startup", "default", ["greedy", "random"], "1-5"), out, backend="serial", progress=False)
    assert (10, done, 10 - done) == (resumed.total, resumed.skipped, resumed.ran)
    ids = [json.loads(line)["run_id"] for line in results.read_text().splitlines()]
    assert 10 == len(ids) == len(set(ids))
    clean = tmp_path / "clean"
    sweep(grid("startup", "default", ["greedy", "random"], "1-5"), clean, backend="serial", progress=False)
    assert_same(tables(clean), tables(out))


def test_an_interrupted_process_pool_sweep_resumes(tmp_path):
    """An exception after N results stops the sweep (pool shut down); the rerun runs only the rest."""
    specs = grid("startup", "default", ["greedy", "random"], "1-4")
    seen = []

    def stop_after_three(record):
        seen.append(record["run_id"])
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(specs, tmp_path, backend="process", workers=2, progress=False, on_result=stop_after_three)
    rest = sweep(specs, tmp_path, backend="process", workers=2, progress=False)
    assert (3, 5) == (rest.skipped, rest.ran)
    assert set(seen).isdisjoint(load(tmp_path).runs.query("run_id not in @seen").run_id)
    assert 8 == len(load(tmp_path).runs)


def test_a_failing_run_is_recorded_and_the_others_finish(tmp_path):
    """An agent that raises: its error (type, message, traceback) is recorded; retry_failed runs it again."""
    specs = grid("startup", "default", ["greedy", "tests._sweep_agents:explode"], "1-3")
    summary = sweep(specs, tmp_path, backend="process", workers=2, progress=False)
    assert (6, 3) == (summary.ran, summary.failed)
    runs = load(tmp_path).runs
    bad = runs[runs.status == "error"]
    assert {"tests._sweep_agents:explode"} == set(bad.agent)
    assert {"RuntimeError"} == set(bad.error_type)
    assert bad.error.str.startswith("RuntimeError: agent gave up after 2 turns on seed").all()
    assert bad.error_traceback.str.contains("_sweep_agents.py").all()
    assert bad.terminal_reason.isna().all()
    assert (runs[runs.status == "ok"].terminal_reason == "horizon_end").sum() + runs.bankrupt.sum() >= 3
    again = sweep(specs, tmp_path, backend="serial", progress=False)
    retried = sweep(specs, tmp_path, backend="serial", progress=False, retry_failed=True)
    assert [(0, 6), (3, 3)] == [(s.ran, s.skipped) for s in (again, retried)]
    assert 6 == len(load(tmp_path).runs)


def test_a_worker_that_dies_is_recorded_and_the_pool_goes_on(tmp_path):
    """A run that kills its worker process is recorded as failed (WorkerDied, as on Ray); runs beside it finish."""
    specs = grid("startup", "default", "greedy", "1-3") + [RunSpec("startup", agent="tests._sweep_agents:die", seed=1)]
    summary = sweep(specs, tmp_path, backend="process", workers=2, progress=False)
    runs = load(tmp_path).runs
    assert (4, 1) == (summary.ran, summary.failed)
    died = runs[runs.agent == "tests._sweep_agents:die"]
    assert ["WorkerDied"] == died.error_type.tolist()
    assert ["WorkerDied: the worker process died running this run"] == died.error.tolist()
    assert died.error_traceback.iloc[0].startswith("BrokenProcessPool")
    assert 3 == (runs.status == "ok").sum()
    # a failed run's figures are null, and the columns keep their types: nullable integers and booleans
    assert ("Int64", "boolean") == (str(runs.final_funds_cents.dtype), str(runs.bankrupt.dtype))
    assert len(runs[runs.bankrupt]) == int(runs.bankrupt.sum()) and runs.turns.isna().sum() == 1


def test_bad_specs_fail_before_anything_runs(tmp_path):
    """An unknown preset or agent option is refused up front; nothing is written."""
    with pytest.raises(ConfigError, match="unknown startup preset"):
        sweep([RunSpec("startup", "nope")], tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match="unknown StartupConfig key"):
        sweep([RunSpec("startup", overrides={"no_such_knob": 1})], tmp_path / "b", progress=False)
    with pytest.raises(ConfigError, match="unknown backend"):
        sweep([RunSpec("startup")], tmp_path / "c", backend="gpu", progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


# tables ----------------------------------------------------------------------------------
def test_load_returns_the_documented_columns(serial_dir):
    """runs starts with RUN_COLUMNS then world figures; series, events and llm_calls have exactly theirs."""
    res = load(serial_dir)
    assert list(RUN_COLUMNS) == list(res.runs.columns[: len(RUN_COLUMNS)])
    assert {"final_funds_cents", "tasks_failed", "income_cents", "mean_dau", "net_worth_cents"} <= set(res.runs.columns)
    assert list(SERIES_COLUMNS) == list(res.series.columns)
    assert list(EVENT_COLUMNS) == list(res.events.columns)
    assert list(LLM_CALL_COLUMNS) == list(res.llm_calls.columns) and res.llm_calls.empty
    assert res["runs"] is res.runs and ("runs", "series", "events", "llm_calls") == res.keys()
    assert {"month_end_funds_cents", "final_trust", "daily_dau", "daily_net_worth_cents"} <= set(res.series.name)
    assert {"cmd", "event", "task"} == set(res.events.kind)
    assert {"task_completed", "monthly_payroll", "day_end", "episode_end"} <= set(res.events.name)
    assert (res.events.day == res.events.t_us // 86_400_000_000).all()
    startup = res.runs[res.runs.world == "startup"]
    assert (startup.metric_value == startup.final_funds_cents).all()
    assert ["startup-v1"] == startup.benchmark_id.unique().tolist()
    assert "Int64" == str(res.runs.seed.dtype) and "float64" == str(res.runs.metric_value.dtype)


def test_a_sweep_that_cannot_be_compacted_loads_from_its_results(serial_dir, tmp_path, monkeypatch):
    """Where the Parquet files cannot be written (a read-only copy), load builds the same tables in memory."""
    import shutil

    import bizsim.analysis.tables as store

    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(serial_dir / "results.jsonl", copy / "results.jsonl")
    expected = load(serial_dir)

    def read_only(path, **kwargs):
        raise PermissionError(f"{path} is read-only")

    monkeypatch.setattr(store, "compact", read_only)
    got = load(copy)
    assert not list(copy.glob("*.parquet"))
    for name in ("runs", "series", "events"):
        assert expected[name].reset_index(drop=True).equals(got[name].reset_index(drop=True)), name


@pytest.mark.parametrize("stamp", ["[" * 100_000, "[1, 2]", "not json"])
def test_a_damaged_tables_stamp_rebuilds_the_tables(serial_dir, tmp_path, stamp):
    """The stamp that says which results the Parquet tables were built from is a file anyone may edit: one nested
    past the limit, not an object or not JSON means the tables are rebuilt, never a RecursionError."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(serial_dir, copy)
    load(copy)  # builds the tables and their stamp
    (copy / "tables.json").write_text(stamp)
    got = load(copy)
    assert load(serial_dir).runs.reset_index(drop=True).equals(got.runs.reset_index(drop=True))
    assert isinstance(json.loads((copy / "tables.json").read_text()), dict)


def test_the_parquet_files_open_in_duckdb_and_polars(serial_dir):
    """Plain Parquet: DuckDB and polars read the same rows."""
    runs = load(serial_dir).runs
    duckdb = pytest.importorskip("duckdb")
    n = duckdb.sql(f"SELECT count(*) FROM '{serial_dir / 'runs.parquet'}'").fetchall()[0][0]
    assert len(runs) == n
    events = duckdb.sql(f"SELECT kind, count(*) AS n FROM '{serial_dir / 'events.parquet'}' GROUP BY kind ORDER BY kind").fetchall()
    assert ["cmd", "event", "task"] == [k for k, _ in events]
    pl = pytest.importorskip("polars")
    assert len(runs) == pl.read_parquet(serial_dir / "runs.parquet").height


def test_the_events_hold_commands_events_and_task_rows():
    """Commands (refused ones flagged), task completions with client and success, task rows with staffing facts."""
    res = load_single(RunSpec("startup", "default", "greedy", 1))
    ev = res.events
    accepts = ev[(ev.kind == "cmd") & (ev.name == "task accept")]
    tasks = ev[ev.kind == "task"]
    assert len(accepts) == len(tasks) == res.runs.tasks_succeeded[0] + res.runs.tasks_failed[0] + (tasks.name == "active").sum()
    done = ev[ev.name == "task_completed"]
    assert set(done.task) <= set(tasks.task) and done.ok.notna().all() and done.client.notna().all()
    data = json.loads(tasks.data.iloc[0])
    assert {"adversarial", "hours_needed", "hours_available", "match_ratio", "max_split", "team_size"} <= set(data)
    assert 8 == data["team_size"] and 1 == data["max_split"]


def load_single(spec: RunSpec):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        sweep([spec], d, backend="serial", progress=False)
        return load(d)


def test_a_run_directory_loads_like_its_sweep_run(tmp_path):
    """load(run dir) replays the command log: same run id, same rows as the sweep's record of that run."""
    run_episode("startup", "default", "random", 2, agent_options={"max_parallel": 3}, out=tmp_path / "run")
    from_dir = load(tmp_path / "run")
    swept = load_single(RunSpec("startup", "default", "random", 2, agent_options={"max_parallel": 3}))
    assert swept.runs.run_id.tolist() == from_dir.runs.run_id.tolist()
    cols = [c for c in swept.runs.columns if c not in WALL]
    pd.testing.assert_frame_equal(swept.runs[cols], from_dir.runs[cols])
    pd.testing.assert_frame_equal(swept.events, from_dir.events)
    pd.testing.assert_frame_equal(swept.series, from_dir.series)
    both = load([tmp_path / "run", tmp_path / "run"])
    assert 2 == len(both.runs)


def test_llm_call_logs_in_run_directories_become_the_llm_calls_table(tmp_path):
    """runs/<run_id>/llm_calls.jsonl rows are parsed: tokens, cost, tools, failures."""
    spec = RunSpec("startup", "default", "greedy", 1)
    sweep([spec], tmp_path, backend="serial", progress=False)
    calls = tmp_path / "runs" / spec.run_id / "llm_calls.jsonl"
    calls.parent.mkdir(parents=True)
    rows = [
        {"kind": "preflight", "ok": True, "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
         "cost_usd": 0.0001, "latency_s": 0.2, "wall_time": 1.0},
        {"kind": "chat", "ok": True, "episode": 1, "turn": 1, "request": "ab", "failed_attempts": 1, "errors": ["x"],
         "response": {"content": None, "tool_calls": [{"id": "c1", "name": "run_command", "arguments": {}}],
                      "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}, "cost_usd": 0.003,
                      "latency_s": 1.5, "model": "m", "finish_reason": "tool_calls"}, "wall_time": 2.0},
        {"kind": "chat", "ok": False, "episode": 1, "turn": 2, "request": "cd", "errors": ["a", "b"], "wall_time": 3.0},
    ]
    calls.write_text("".join(json.dumps(r) + "\n" for r in rows))
    compact(tmp_path)
    llm = load(tmp_path).llm_calls
    assert [0, 1, 2] == llm.call.tolist() and {spec.run_id} == set(llm.run_id)
    assert [6, 120] == llm.total_tokens.iloc[:2].astype(int).tolist()
    assert [0, 1, 2] == llm.failed_attempts.tolist()
    assert ["", "run_command", ""] == llm.tool_names.tolist()
    assert pytest.approx(0.0031) == llm.cost_usd.sum()


def test_a_sweep_writes_records_and_load_reads_them_into_tables(tmp_path):
    """runs/ writes records only; the first load writes the Parquet tables, and a grown sweep makes them stale."""
    specs = small_grid()
    summary = sweep(specs[:2], tmp_path, backend="serial", progress=False)
    assert (2, False) == (summary.ran, summary.compacted)
    assert [] == list(tmp_path.glob("*.parquet"))
    assert 2 == len(load(tmp_path).runs)
    assert {"events", "llm_calls", "runs", "series"} == {p.stem for p in tmp_path.glob("*.parquet")}
    sweep(specs[:3], tmp_path, backend="serial", progress=False)
    assert 3 == len(load(tmp_path).runs) == json.loads((tmp_path / "tables.json").read_text())["runs"]


def test_a_sweep_asked_to_compact_says_who_writes_the_tables(tmp_path):
    """compact=True is refused before anything runs (never silently ignored); False, as old callers pass, is fine."""
    with pytest.raises(ConfigError, match=r"bizsim\.analysis\.compact\(out\)"):
        sweep(small_grid()[:1], tmp_path / "s", backend="serial", progress=False, compact=True)
    assert not (tmp_path / "s").exists()


def test_a_torn_last_line_is_ignored_and_cut(tmp_path):
    """A half-written record (a crash mid-write) does not count as finished and is cut before the next append."""
    specs = grid("startup", "default", "greedy", "1-2")
    sweep(specs[:1], tmp_path, backend="serial", progress=False, compact=False)
    with (tmp_path / "results.jsonl").open("a") as fh:
        fh.write('{"run_id": "' + specs[1].run_id + '", "status": "ok", "sp')
    summary = sweep(specs, tmp_path, backend="serial", progress=False)
    assert (1, 1) == (summary.skipped, summary.ran)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert 2 == len(lines) and all(json.loads(line) for line in lines)


def test_a_second_sweep_on_the_same_directory_is_refused(tmp_path):
    """The results file is locked while a sweep writes it."""
    from bizsim.runs._results_file import ResultsWriter
    from bizsim.simcore.errors import BizSimError

    with ResultsWriter(tmp_path / "results.jsonl"), pytest.raises(BizSimError, match="another sweep"):
        sweep(grid("startup", "default", "greedy", 1), tmp_path, backend="serial", progress=False)


def test_overrides_reach_the_world(tmp_path):
    """A preset override changes the world the run plays; it shows in preset_label."""
    rich = RunSpec("startup", "default", "greedy", 1, overrides={"initial_funds_cents": 90_000_000})
    res = load_single(rich)
    assert "default+initial_funds_cents=90000000" == res.runs.preset_label[0]
    first = res.series.query("name == 'month_end_funds_cents'").value.iloc[0]
    plain = load_single(RunSpec("startup", "default", "greedy", 1)).series.query("name == 'month_end_funds_cents'").value.iloc[0]
    assert 70_000_000 == first - plain


# the command line ------------------------------------------------------------------------
def test_cli_sweep_product_grid_and_report(tmp_path, capsys):
    """bizsim sweep --world --preset --agent --seeds --out, then bizsim report."""
    out = tmp_path / "s"
    argv = ["sweep", "--world", "startup", "--preset", "default", "hard", "--agent", "greedy", "--seeds", "1-2",
            "--backend", "serial", "--out", str(out), "--no-progress"]
    assert 0 == main(argv)
    printed = capsys.readouterr().out
    assert "4 runs: 4 run now (0 failed)" in printed
    # the command writes the tables right after the runs (a sweep itself writes records only)
    assert {"events", "llm_calls", "runs", "series"} == {p.stem for p in out.glob("*.parquet")}
    assert {"runs": 4} == {k: v for k, v in json.loads((out / "tables.json").read_text()).items() if k == "runs"}
    # then each group: its runs, the mean metric with its 95 % interval, and how many ended early
    assert re.search(r"startup hard greedy\s+2\s+Final funds \(dollars\)\s+-\$897\.10\s+-\$897\.10 to -\$897\.10\s+2 of 2",
                     printed), printed
    assert re.search(r"startup default greedy\s+2\s+Final funds \(dollars\)\s+\$345,796\.13\s+.+ to .+\s+0 of 2", printed)
    assert 0 == main(argv)
    assert "0 run now (0 failed), 4 already done" in capsys.readouterr().out
    assert 0 == main(["report", str(out)])
    assert (out / "report" / "report.html").exists()


def test_cli_sweep_grid_file(tmp_path, capsys):
    """bizsim sweep GRID.toml --out DIR; exit 1 when a run failed."""
    path = tmp_path / "g.toml"
    path.write_text('[[runs]]\nworld = "startup"\nagent = "tests._sweep_agents:explode"\nseed = 1\n'
                    '[[runs]]\nworld = "operation"\nagent = "threshold"\nseeds = "1-2"\n[sweep]\nbackend = "serial"\n')
    assert 1 == main(["sweep", str(path), "--out", str(tmp_path / "o"), "--no-progress"])
    captured = capsys.readouterr()
    assert "3 runs: 3 run now (1 failed)" in captured.out
    assert "1 run(s) failed" in captured.err and "--retry-failed" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["sweep", "--out", "x"], "needs --world"),
    (["sweep", "g.toml", "--world", "startup", "--out", "x"], "not both"),
    (["sweep", "--world", "startup", "--seeds", "a-b", "--out", "x"], "N-M"),
    (["sweep", "--world", "startup", "--agent", "nobody", "--out", "x"], "offered by none"),
    (["sweep", "--world", "startup", "--workers", "0", "--out", "x"], "--workers"),
    (["sweep", "--world", "startup", "--ray-address", "auto", "--out", "x"], "--backend ray"),
    (["sweep", "--world", "startup", "--backend", "gpu", "--out", "x"], "invalid choice"),
    (["sweep", "--world", "startup"], "--out"),
    (["sweep", "missing.toml", "--out", "x"], "does not exist"),
    (["report", "no/such/dir"], "does not exist"),
    (["sweep", "--world", "startup", "--seeds", "", "--out", "x"], "N-M"),
    (["sweep", "--world", "startup", "--out", "afile/x"], "Not a directory"),
    (["sweep", "--world", "startup", "--out", "afile"], "is a file, not a directory"),
    (["run", "startup", "--out", "afile/run"], "Not a directory"),
    (["sweep", "--world", "operation", "--agent", "threshold", "--out", "arun"], "single run's directory"),
])
def test_cli_bad_arguments_exit_2_with_one_clear_line(argv, message, capsys, tmp_path, monkeypatch):
    """Bad sweep, report and output arguments exit with status 2 and name the problem (before anything runs)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("not a directory")
    (tmp_path / "arun").mkdir()
    (tmp_path / "arun" / "result.json").write_text("{}")
    with pytest.raises(SystemExit) as exc:
        sys.exit(main(argv))
    assert 2 == exc.value.code
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_report_of_an_empty_directory_exits_2(tmp_path, capsys):
    """A directory without results is refused with a message naming what was expected."""
    assert 2 == main(["report", str(tmp_path)])
    assert "holds no results" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ('[grid]\nworlds = ["startup"]\nseeds = ["a"]\n', "'a' is not a seed N"),
    ('[grid]\nworlds = ["startup"]\nseeds = 1.5\n', "must be text"),
    ('[grid]\nworlds = ["startup"]\nseeds = true\n', "must be text"),
    ('[grid]\nworlds = ["startup"]\nagents = [3]\n', "must be a name or a table"),
    ('[grid]\nworlds = ["startup"]\npresets = [4]\n', "must be a name or a table"),
    ("runs = 5\n", "runs must be"),
    ('grid = "x"\n', "grid must be"),
    ('[grid]\nworlds = ["startup"]\npresets = [{name = "tutorial", overrides = {initial_funds_cents = "lots"}}]\n',
     r"initial_funds_cents\(='lots'\) must be a number"),
])
def test_a_malformed_grid_file_is_one_clear_error(tmp_path, text, message):
    """Values of the wrong shape in a grid file are ConfigErrors naming them, not Python tracebacks."""
    path = tmp_path / "g.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        specs, _ = load_grid(path)
        for s in specs:
            s.check()


def test_a_relabelled_preset_on_resume_keeps_its_recorded_label_and_says_so(tmp_path):
    """A label is not part of the run id: a resumed sweep under a new label runs nothing and reports the mismatch."""
    def specs(label):
        return grid("operation", {"name": "default", "label": label}, "threshold", "1-2")

    first = sweep(specs("old"), tmp_path, backend="serial", progress=False, compact=False)
    again = sweep(specs("new"), tmp_path, backend="serial", progress=False, compact=False)
    same = sweep(specs("old"), tmp_path, backend="serial", progress=False, compact=False)
    assert (0, 2, 0) == (first.relabelled, again.relabelled, same.relabelled) and 0 == again.ran
    assert "2 of the runs already done keep the preset label" in str(again)
