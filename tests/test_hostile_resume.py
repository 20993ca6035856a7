"""Tampered LLM run directories: every resume of one ends in one clear error, and the recorded calls stay as they were.

A run directory can be edited by anyone who can write it (a shared folder, a mail attachment). ``--resume`` reads
``run.json`` and ``llm_calls.jsonl`` back, so each is read as hostile input: bounded, UTF-8, shallow JSON, the
right shapes, and a record that cannot be read back is a ReplayError naming it, never a traceback.
"""

from __future__ import annotations

import json
import shutil

import pytest

from bizsim.agents.llm import ScriptedClient
from bizsim.runs import RunSpec, resume_llm, run_llm
from bizsim.cli import main
from bizsim.simcore.errors import BizSimError

from .llm_policies import greedy_policy

pytestmark = [pytest.mark.fuzz, pytest.mark.xdist_group("hostile_resume")]


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _spec_edit(**changes):
    return lambda rj, calls: json.dumps({**rj, "spec": {**rj["spec"], **changes}})


def _response_edit(**changes):
    def edit(rj, calls):
        rows = [json.loads(c) for c in calls[:2]]
        for row in rows:
            row["response"] = {**row["response"], **changes}
        return "".join(json.dumps(r) + "\n" for r in rows)
    return edit


RUN_JSON = {
    "not UTF-8": lambda rj, calls: b"\xff\xfe{",
    "not JSON": lambda rj, calls: "{",
    "a list": lambda rj, calls: "[]",
    "nested 100,000 deep": lambda rj, calls: _deep(100_000),
    "spec is text": lambda rj, calls: json.dumps({**rj, "spec": "x"}),
    "spec_version is text": lambda rj, calls: json.dumps({**rj, "spec_version": "2"}),
    "seed is text": _spec_edit(seed="abc"),
    "seed is negative": _spec_edit(seed=-1),
    "seed past 64 bits": _spec_edit(seed=10**400),
    "seed is NaN": lambda rj, calls: json.dumps({**rj, "spec": {**rj["spec"], "seed": float("nan")}}),
    "unknown world": _spec_edit(world="nope"),
    "world is a number": _spec_edit(world=5),
    "unknown preset": _spec_edit(preset="nope"),
    "preset is a device": _spec_edit(preset="/dev/zero"),
    "agent options are a list": _spec_edit(agent_options=[1]),
    "agent option of the wrong type": _spec_edit(agent_options={"model": "scripted", "max_turns": "x"}),
    "unknown agent option": _spec_edit(agent_options={"model": "scripted", "bogus": 1}),
    "override of the wrong type": _spec_edit(overrides={"initial_funds_cents": "x"}),
    "resumes is text": lambda rj, calls: json.dumps({**rj, "resumes": "x"}),
    "world config is a list": lambda rj, calls: json.dumps({**rj, "world_config": []}),
    "a directory": "DIR",
}
CALLS = {
    "not UTF-8": lambda rj, calls: b"\xff\n" + "".join(calls[:2]).encode(),
    "a line that is not JSON": lambda rj, calls: "{\n" + "".join(calls[:2]),
    "a line that is a list": lambda rj, calls: "[]\n" + "".join(calls[:2]),
    "a line nested 100,000 deep": lambda rj, calls: _deep(100_000) + "\n" + "".join(calls[:2]),
    "a record without its request": lambda rj, calls: '{"kind": "chat"}\n' + "".join(calls[:2]),
    "a response of the wrong type": lambda rj, calls: "".join(
        json.dumps({**json.loads(c), "response": 5}) + "\n" for c in calls[:2]),
    "negative token counts": _response_edit(usage={"prompt_tokens": -5, "completion_tokens": 3}),
    "absurd token counts": _response_edit(usage={"prompt_tokens": 1, "completion_tokens": 10**30}),
    "tool calls of the wrong shape": _response_edit(tool_calls=[{"id": 1}]),
    "a directory": "DIR",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A finished six-turn run: its run.json and its call log's lines."""
    root = tmp_path_factory.mktemp("recorded")
    spec = RunSpec("startup", agent="llm", agent_options={"model": "scripted", "max_turns": 6})
    run_llm(spec, out=root, client=ScriptedClient(greedy_policy))
    return json.loads((root / "run.json").read_text()), (root / "llm_calls.jsonl").read_text().splitlines(True), root


def _tampered(tmp_path, recorded, file, content):
    rj, calls, root = recorded
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_bytes((root / "run.json").read_bytes())
    (run / "llm_calls.jsonl").write_text("".join(calls[:3]))
    target = run / file
    if content == "DIR":
        target.unlink()
        target.mkdir()
    else:
        data = content(rj, calls)
        target.write_bytes(data if isinstance(data, bytes) else data.encode())
    return run


def _snapshot(run):
    return {p.name: p.read_bytes() for p in run.iterdir() if p.is_file() and p.name != "agent_commands.jsonl"}


@pytest.mark.parametrize("case", sorted(RUN_JSON))
def test_a_tampered_run_json_is_one_clear_error_and_changes_nothing(tmp_path, recorded, case, capsys):
    run = _tampered(tmp_path, recorded, "run.json", RUN_JSON[case])
    before = _snapshot(run)
    with pytest.raises(BizSimError):
        resume_llm(run, client=ScriptedClient(greedy_policy))
    assert before == _snapshot(run)
    capsys.readouterr()
    code = main(["run", "--resume", str(run), "--no-progress"])
    err = capsys.readouterr().err
    assert 2 == code and err.startswith("bizsim: error: ") and 1 == err.count("\n"), err
    assert before == _snapshot(run)


@pytest.mark.parametrize("case", sorted(CALLS))
def test_a_tampered_call_log_is_one_clear_error_and_keeps_the_log(tmp_path, recorded, case):
    run = _tampered(tmp_path, recorded, "llm_calls.jsonl", CALLS[case])
    log = run / "llm_calls.jsonl"
    before = log.read_bytes() if log.is_file() else None
    with pytest.raises(BizSimError):
        resume_llm(run, client=ScriptedClient(greedy_policy))
    assert before == (log.read_bytes() if log.is_file() else None)


# --- verify and fork read a run directory's files as the viewer does: bounded, UTF-8, depth-checked.

@pytest.fixture(scope="module")
def greedy_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("greedy") / "run"
    assert 0 == main(["run", "startup", "--agent", "greedy", "--seed", "1", "--no-progress", "--out", str(out)])
    return out


_RUN_FILES = {
    "commands.jsonl, a line nested 100,000 deep": ("commands.jsonl", lambda t: t + _deep(100_000) + "\n",
                                                   "Nesting deeper than 256 levels"),
    "commands.jsonl, binary": ("commands.jsonl", lambda t: b"\xcb\x00\xff" * 100, "not UTF-8"),
    "commands.jsonl, a record of the wrong shape": ("commands.jsonl", lambda t: t + '{"t_us": -1, "line": 5}\n',
                                                    "is not a command record"),
    "trajectory.jsonl, a line nested 100,000 deep": ("trajectory.jsonl", lambda t: t + _deep(100_000) + "\n",
                                                     "Nesting deeper than 256 levels"),
    "trajectory.jsonl, binary": ("trajectory.jsonl", lambda t: b"\xcb\x00\xff" * 100, "not UTF-8"),
    "result.json nested 100,000 deep": ("result.json", lambda t: _deep(100_000), "Nesting deeper than 256 levels"),
    "result.json, binary": ("result.json", lambda t: b"\xcb\x00\xff", "not UTF-8"),
    "result.json, a float seed": ("result.json", lambda t: json.dumps({**json.loads(t), "seed": 1.5}),
                                  "seed(=1.5) must be an integer"),
}


@pytest.mark.parametrize("command", ["verify", "fork"])
@pytest.mark.parametrize("case", sorted(_RUN_FILES))
def test_verify_and_fork_refuse_a_damaged_run_file_in_one_line(tmp_path, greedy_run, capsys, command, case):
    """A deep line in commands.jsonl or trajectory.jsonl, a deep result.json or a binary commands.jsonl raised a
    RecursionError or UnicodeDecodeError traceback out of verify and fork; each is one line (or, for the
    trajectory verify compares, one problem) naming the file and the rule."""
    name, damage, rule = _RUN_FILES[case]
    run = tmp_path / "run"
    shutil.copytree(greedy_run, run)
    damaged = damage((run / name).read_text(encoding="utf-8"))
    (run / name).write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
    argv = ["verify", str(run)] if command == "verify" else \
        ["fork", str(run), "--at-day", "3", "--agent", "greedy", "--out", str(tmp_path / "fork")]
    code = main(argv)
    err = capsys.readouterr()
    if name == "trajectory.jsonl" and command == "fork":
        assert 0 == code  # a fork replays the command log; the trajectory is not read
        return
    assert (1 if name == "trajectory.jsonl" else 2) == code
    assert rule in err.out + err.err and "Traceback" not in err.err
