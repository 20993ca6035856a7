"""result.json is one typed RunRecord: written by one function, read by one, bounded, old files still read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.runs import RunSpec, run_episode, run_llm
from bizsim.runs.live import Episode
from bizsim.runs.record import MAX_RECORD_BYTES, SCHEMA_VERSION, RunRecord
from bizsim.runs.rundir import read_record, read_record_noted
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy

#: result.json files written by bizsim before the record had a version (commit d25ec0b): a startup baseline
#: (preset tutorial, greedy, seed 1), an operation baseline (threshold, seed 1), a live vending episode closed after
#: one call, and a scripted LLM startup run (tutorial, seed 1).
V1 = Path(__file__).parent / "data" / "v1_results"
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["st", "op", "live", "llm"])
def test_a_version_1_file_reads_and_writes_back_the_same(name):
    """An old result.json reads as version 1 with no wall time, and its dict is the old file plus the two new keys."""
    old = json.loads((V1 / f"{name}.json").read_text())
    record = RunRecord.from_json((V1 / f"{name}.json").read_text())
    assert (1, None) == (record.schema_version, record.wall_s)
    assert {**old, "wall_s": None, "schema_version": 1} == record.to_dict()
    assert list(old) == [k for k in record.to_dict() if k not in ("wall_s", "schema_version")]  # the same key order


@pytest.mark.parametrize(("name", "world", "preset", "agent"), [
    ("st", "startup", "tutorial", "greedy"), ("op", "operation", "default", "threshold")])
def test_verify_passes_on_a_run_whose_record_is_version_1(tmp_path, name, world, preset, agent):
    """A run directory whose result.json was written before records had a version verifies (the run replays to it)."""
    run_episode(world, preset, agent, 1, out=tmp_path / "run")
    shutil.copy(V1 / f"{name}.json", tmp_path / "run" / "result.json")
    assert verify_run_dir(tmp_path / "run").ok
    assert 1 == read_record(tmp_path / "run").schema_version


def test_every_producer_writes_the_current_version_and_its_wall_time(tmp_path):
    """A baseline run, an LLM run and a live episode each write schema_version 2 and how long they took."""
    run_episode("operation", "default", "threshold", 1, out=tmp_path / "base")
    spec = RunSpec("startup", "tutorial", "llm", 1, agent_options=LLMAgentConfig(model="scripted"))
    run_llm(spec, out=tmp_path / "llm", client=ScriptedClient(greedy_policy))
    with Episode("vending", "default", 1, out=tmp_path / "live", surface="mcp") as ep:
        ep.call_line("help")
    for name in ("base", "llm", "live"):
        record = read_record(tmp_path / name)
        assert SCHEMA_VERSION == record.schema_version == 2
        assert isinstance(record.wall_s, float) and record.wall_s >= 0


def test_records_of_one_run_are_equal_however_long_each_took():
    """wall_s is kept but not compared: two records of the same run are equal."""
    a = run_episode("operation", "default", "threshold", 1).record()
    b = run_episode("operation", "default", "threshold", 1).record()
    assert a == b and (a.wall_s, b.wall_s) != (None, None)


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 300 + "]" * 300, "not valid JSON"),
    ("[1, 2]", "does not hold a JSON object"),
    ('{"world": "x"}', "missing benchmark_id"),
    ('{"world": "w", "benchmark_id": "w-v1", "preset": "p", "seed": [1], "agent": "a", "terminal_reason": "x", '
     '"turns": 1}', "seed(=[1]) must be an integer"),
    ('{"world": "w", "benchmark_id": "w-v1", "preset": "p", "seed": 1, "agent": "a", "terminal_reason": "x", '
     '"turns": true}', "turns(=True) must be an integer"),
    ('{"world": "w", "benchmark_id": "w-v1", "preset": "p", "seed": 1, "agent": "a", "terminal_reason": "x", '
     '"turns": 1, "wall_s": Infinity}', "wall_s(=inf) must be a finite number"),
    ('{"world": "w", "benchmark_id": "w-v1", "preset": "p", "seed": 1, "agent": "a", "terminal_reason": "x", '
     '"turns": 1, "schema_version": 3}', "schema_version 3, written by a newer bizsim"),
])
def test_a_damaged_record_is_one_clear_error(text, message):
    """Deep, wrong-shaped or wrong-typed result.json files are a ConfigError naming the rule, never a traceback."""
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]")):
        RunRecord.from_json(text)


def test_an_oversized_record_is_refused_before_it_is_parsed(tmp_path):
    """A result.json past the limit is refused by size; the viewer's reader notes it instead of raising."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.json").write_text(" " * (MAX_RECORD_BYTES + 1))
    with pytest.raises(ConfigError, match="larger than the limit"):
        read_record(run)
    problems: list[str] = []
    assert read_record_noted(run, problems) is None and ["larger than the limit" in p for p in problems] == [True]


def test_result_json_is_parsed_in_one_function():
    """No module outside runs/record.py parses result.json: every reader goes through RunRecord.from_json."""
    readers = []
    for folder in ("runs", "surfaces", "analysis", "view", "cli", "agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for i, line in enumerate(text.splitlines(), 1):
                if ("RESULT" in line or "result.json" in line) and ("json.load" in line or "read_json(" in line):
                    readers.append(f"{path.relative_to(ROOT)}:{i}")
    assert [] == readers
