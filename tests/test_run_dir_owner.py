"""One owner of the run directory: no module but ``runs/rundir.py`` names a run file or imports its names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from bizsim.runs import rundir
from bizsim.runs.rundir import RunDir, SweepDir

ROOT = Path(__file__).resolve().parent.parent
CODE = ("simcore", "models", "agents", "runs", "surfaces", "analysis", "view", "cli")
OWNER = ROOT / "runs" / "rundir.py"
#: Every name the owner gives a file or folder of a run or sweep directory.
CONSTANTS = {k for k, v in vars(rundir).items() if k.isupper() and isinstance(v, str)}
NAMES = {getattr(rundir, k) for k in CONSTANTS}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants (prose may name a file; code may not)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if node.value in NAMES - {"runs", "report", "episodes", "seats"}:  # the folders' words are also ordinary words
                found.append(f"{where}:{node.lineno} names the run file {node.value!r}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("bizsim.runs", "bizsim.simcore")):
            found += [f"{where}:{node.lineno} imports the file name {a.name}" for a in node.names if a.name in CONSTANTS]
    return found


def test_the_owner_names_every_file_the_layout_has():
    assert {"config.toml", "result.json", "commands.jsonl", "trajectory.jsonl", "run.json", "llm_calls.jsonl",
            "agent_commands.jsonl", "live.lock", "episode.sock", "imported.json", "results.jsonl", "sweep.json",
            "tables.json"} <= NAMES


@pytest.mark.parametrize("folder", CODE)
def test_no_other_module_names_a_run_file(folder):
    bad = [o for path in sorted((ROOT / folder).rglob("*.py")) if path != OWNER for o in _offences(path)]
    assert [] == bad


def test_the_check_catches_a_module_that_names_a_file(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""prose: result.json"""\nfrom bizsim.runs.rundir import RESULT\nPATH = "llm_calls.jsonl"\n')
    assert sorted(o.split(" ", 1)[1] for o in _offences(planted)) == [
        "imports the file name RESULT", "names the run file 'llm_calls.jsonl'"]


def test_a_run_dirs_recorder_is_the_harness_logs_the_llm_agent_appends_to(tmp_path):
    from bizsim.agents.llm import LLMAgent, ScriptedClient, reply
    from bizsim.models.startup import StartupWorld
    from bizsim.runs.recorder import RunDirRecorder

    run, recorder = RunDir(tmp_path), RunDirRecorder(tmp_path)
    agent = LLMAgent(client=ScriptedClient([reply("company status")]), max_turns=2, logs=recorder)
    StartupWorld("default", 1).run(agent)
    agent.close()
    assert [r["turn"] for r in run.read_calls() if r.get("kind") == "chat"] == [1, 2]
    assert run.holds_calls() and run.read_agent_commands()
    with pytest.raises(Exception, match="already holds recorded model calls"):
        LLMAgent(client=ScriptedClient([reply("company status")]), max_turns=2, logs=recorder)
    assert SweepDir(tmp_path).run("a").llm_calls == tmp_path / "runs" / "a" / "llm_calls.jsonl"


def test_a_run_dir_is_a_path_to_the_run(tmp_path):
    from bizsim.runs import RunSpec
    from bizsim.runs.pipeline import execute

    run = RunDir(tmp_path / "r")
    execute(RunSpec("startup", "tutorial", "greedy", 1), out=run)
    assert run.is_run() and run.is_finished() and not run.is_llm()
    assert run.read_record().agent == "greedy"
