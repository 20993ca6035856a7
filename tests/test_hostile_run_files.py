"""Hostile sweep and record files: a ``results.jsonl``, ``result.json`` or Parquet table someone sent is read by
one bounded reader (regular files only, lines bounded in length and depth, fields of their types), so ``report``,
``view``, ``load``, ``fork`` and ``export`` answer with one error naming the file and the rule, or show what they
can; never a traceback or a hang."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bizsim.analysis import load
from bizsim.cli.main import main
from bizsim.simcore.errors import ConfigError
from bizsim.view import view_data

from ._hang_guard import no_hang


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    from bizsim.runs import grid, sweep

    out = tmp_path_factory.mktemp("sweep")
    sweep(grid("operation", "default", "threshold", 1), out, backend="serial", progress=False, compact=False)
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "run"
    assert 0 == main(["run", "operation", "--agent", "threshold", "--seed", "1", "--out", str(out), "--no-progress"])
    return out


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def _line(sweep_dir: Path) -> dict:
    return json.loads((sweep_dir / "results.jsonl").read_text().splitlines()[0])


def _report(path: Path, tmp_path: Path, capsys) -> tuple[int, str]:
    code = main(["report", str(path), "--out", str(tmp_path / "report")])
    return code, capsys.readouterr().err


def test_a_line_nested_100000_deep_is_skipped_by_report_view_and_load(sweep_dir, tmp_path, capsys):
    """A 100,000-deep line was a RecursionError in all three; it is a garbled line now, passed over (the viewer
    says so), and the sweep's good run is read."""
    sweep = _copy(sweep_dir, tmp_path)
    with (sweep / "results.jsonl").open("a") as fh:
        fh.write('{"run_id": "x", "a": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with no_hang("a deep results line"):
        assert 1 == len(load(sweep).runs)
        data = view_data([sweep])
        assert 1 == len(data["rows"])
        assert any("1 line(s) skipped" in p and "nested deeper" in p for p in data["problems"])
        assert (0, "") == _report(sweep, tmp_path, capsys)


def test_a_fifo_results_file_is_refused_at_once(sweep_dir, tmp_path, capsys):
    """A named pipe in place of results.jsonl blocked report and load forever (no writer ever comes)."""
    sweep = _copy(sweep_dir, tmp_path)
    (sweep / "results.jsonl").unlink()
    os.mkfifo(sweep / "results.jsonl")
    with no_hang("a FIFO results.jsonl"):
        with pytest.raises(ConfigError, match=r"results.jsonl\(=.*\) is not a regular file"):
            load(sweep)
        code, err = _report(sweep, tmp_path, capsys)
    assert 2 == code and "is not a regular file" in err


@pytest.mark.parametrize(("change", "message"), [
    ({"status": "error", "error": "boom"}, r"line 1: error\(='boom'\) must be an object"),
    ({"spec": "x"}, r"line 1: spec\(='x'\) must be an object"),
    ({"run": [1]}, r"line 1: run\(=\[1\]\) must be an object"),
    ({"run_id": 5}, r"line 1: run_id\(=5\) must be a string"),
    ({"spec": {"world": "operation", "seed": "1"}}, r"spec.seed\(='1'\) must be an integer"),
    ({"run": {"turns": "x"}}, r"run.turns\(='x'\) must be an integer"),
    ({"series": {"name": ["a"], "step": ["x"], "key": ["k"], "value": [1.0]}}, r"the series of run .* cannot be a table"),
    ({"events": {"t_us": "x"}}, r"events.t_us\(='x'\) must be a list"),
])
def test_a_record_with_a_field_of_the_wrong_type_is_one_error_naming_it(sweep_dir, tmp_path, capsys, change, message):
    """Each was a traceback (AttributeError, ArrowInvalid) in report and load; the viewer shows the file's other
    runs and names the line it passed over."""
    sweep = _copy(sweep_dir, tmp_path)
    rec = {**_line(sweep_dir), **change}
    (sweep / "results.jsonl").write_text(json.dumps(rec) + "\n")
    with pytest.raises(ConfigError, match=message):
        load(sweep)
    code, err = _report(sweep, tmp_path, capsys)
    assert 2 == code and "the file was edited or damaged" in err and "Traceback" not in err
    assert isinstance(view_data([sweep])["problems"], list)


def test_a_parquet_table_of_random_bytes_behind_a_matching_stamp_is_written_anew(sweep_dir, tmp_path, capsys):
    """tables.json said the tables were current; runs.parquet was random bytes (ArrowInvalid in load and report).
    A table that is not ours is rebuilt from results.jsonl; without results.jsonl it is one error naming it."""
    sweep = _copy(sweep_dir, tmp_path)
    expected = load(sweep).runs  # writes the tables and their stamp
    (sweep / "runs.parquet").write_bytes(os.urandom(5000))
    assert expected.equals(load(sweep).runs)
    assert (0, "") == _report(sweep, tmp_path, capsys)
    (sweep / "runs.parquet").write_bytes(os.urandom(5000))
    (sweep / "results.jsonl").unlink()
    with pytest.raises(ConfigError, match=r"runs.parquet\(=.*\) cannot be read as the runs table"):
        load(sweep)


def test_a_parquet_table_of_another_shape_is_refused(sweep_dir, tmp_path):
    """Valid Parquet without the table's columns is not read as the table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bizsim.analysis.tables import _read_parquet

    pq.write_table(pa.table({"run_id": [1, 2]}), tmp_path / "runs.parquet")
    with pytest.raises(ConfigError, match="has no run_id column of type string"):
        _read_parquet(pq, tmp_path / "runs.parquet", "runs")


@pytest.mark.parametrize(("change", "message"), [
    ({"schema_version": None}, r"schema_version\(=None\) must be an integer from 1 to 2"),
    ({"schema_version": -1}, r"schema_version\(=-1\) must be an integer from 1 to 2"),
    ({"schema_version": 0}, r"schema_version\(=0\) must be an integer from 1 to 2"),
    ({"episodes": [1, "x"]}, r"episodes\[0\]\(=1\) must be an object"),
    ({"llm": {"cost_usd": "x"}}, r"llm\['cost_usd'\]\(='x'\) must be a finite number or null"),
    ({"llm": {"turns": 1}, "llm_roles": {"auditor": 5}}, r"llm_roles\['auditor'\]\(=5\) must be an object"),
    ({"llm": {"turns": 1}, "llm_roles": {"auditor": {"cost_usd": [1]}}}, r"must be a finite number or null"),
])
@pytest.mark.parametrize("command", ["report", "fork", "export", "verify", "load"])
def test_a_result_json_with_a_field_of_the_wrong_type_is_one_error(run_dir, tmp_path, capsys, change, message,
                                                                   command):
    """``"schema_version": null`` was a TypeError in view, fork, export and load (and -1 or 0 were taken); the
    other shapes were tracebacks in report, load and export."""
    run = _copy(run_dir, tmp_path)
    result = json.loads((run / "result.json").read_text())
    (run / "result.json").write_text(json.dumps({**result, **change}))
    if command == "load":
        with pytest.raises(ConfigError, match=message):
            load(run)
        return
    argv = {"report": ["report", str(run), "--out", str(tmp_path / "r")],
            "fork": ["fork", str(run), "--at-turn", "3", "--agent", "threshold", "--out", str(tmp_path / "f")],
            "export": ["export", "yc-bench", str(run), "--out", str(tmp_path / "e")],
            "verify": ["verify", str(run)]}[command]
    assert 2 == main(argv)
    err = capsys.readouterr().err
    assert "result.json" in err and "Traceback" not in err
    assert any(part in err for part in ("must be", "edited or damaged")), err
    problems = view_data([run])["problems"]
    assert any("result.json" in p for p in problems), problems


def test_a_model_call_log_in_a_sweep_is_read_bounded(sweep_dir, tmp_path):
    """A sweep's runs/<id>/llm_calls.jsonl with a deep line, a non-record and a cost that is text: the deep line
    and the non-record are passed over, the bad cost is one error naming the line (a ValueError before)."""
    from bizsim.analysis.tables import _llm_rows

    log = tmp_path / "llm_calls.jsonl"
    log.write_text("[" * 100_000 + "\n" + "[1]\n" + json.dumps({"kind": "chat", "ok": True}) + "\n")
    with no_hang("a deep model call line"):
        assert [2] == [row["call"] for row in _llm_rows("r", log)]
    log.write_text(json.dumps({"kind": "chat", "response": {"cost_usd": "x"}}) + "\n")
    with pytest.raises(ConfigError, match="line 1 is not a model call bizsim wrote"):
        _llm_rows("r", log)
    log.unlink()
    os.mkfifo(log)
    with no_hang("a FIFO model call log"), pytest.raises(ConfigError, match="pipe or socket"):
        _llm_rows("r", log)


def test_a_sweep_resumed_over_a_fifo_or_a_deep_line_refuses_or_goes_on(sweep_dir, tmp_path):
    """Resuming a sweep opened its results.jsonl to append: a FIFO there waited for a reader forever; a deep line
    was a RecursionError when the sweep counted what was done. The FIFO is refused at once, the deep line passed
    over (the run it does not name is run, the recorded one skipped)."""
    from bizsim.runs import grid, sweep

    specs = grid("operation", "default", "threshold", 1)
    resumed = _copy(sweep_dir, tmp_path)
    with (resumed / "results.jsonl").open("a") as fh:
        fh.write('{"run_id": "x", "a": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with no_hang("resuming over a deep line"):
        summary = sweep(specs, resumed, backend="serial", progress=False, compact=False)
    assert (0, 1) == (summary.ran, summary.skipped)
    (resumed / "results.jsonl").unlink()
    os.mkfifo(resumed / "results.jsonl")
    with no_hang("resuming over a FIFO"), pytest.raises(ConfigError, match="is not a regular file"):
        sweep(specs, resumed, backend="serial", progress=False, compact=False)
