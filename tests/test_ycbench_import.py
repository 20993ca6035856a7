"""``bizsim import yc-bench`` / ``export yc-bench``: round trips through the reference's rollout format, and
hostile rollouts (one clear error each, nothing written)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bizsim.agents.llm import LLMAgentConfig
from bizsim.simcore.jsonl import read_jsonl
from bizsim.agents.llm.scripted import ScriptedClient
from bizsim.runs import RunSpec
from bizsim.runs.llm_run import run_llm
from bizsim.runs.verify import verify_run_dir
from bizsim.analysis.ycbench import RolloutError, export_rollout, import_rollout, read_rollout
from bizsim.cli.main import main
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("ycbench_import")


MODEL = "acme/greedy"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path, dict]:
    """A scripted LLM run on preset reference, and its export in the reference's results format."""
    root = tmp_path_factory.mktemp("yc")
    spec = RunSpec("startup", "reference", "llm", 2,
                   agent_options=LLMAgentConfig(model=MODEL, max_turns=30, prices={MODEL: [1.0, 2.0]}))
    run_llm(spec, out=root / "run", client=ScriptedClient(greedy_policy, model=MODEL))
    file = export_rollout(root / "run", root)
    return root / "run", file, json.loads(file.read_text())


def test_export_writes_the_reference_format(exported):
    """The reference's file name, fields and per-turn record (commands with the first 500 characters of results)."""
    run, file, data = exported
    assert "yc_bench_result_default_2_acme_greedy.json" == file.name
    assert 30 == data["turns_completed"] == len(data["transcript"])
    original = json.loads((run / "result.json").read_text())
    assert original["final_funds_cents"] == data["time_series"]["funds"][-1]["funds_cents"]
    assert 20_000_000 == data["time_series"]["config"]["initial_funds_cents"]
    first = data["transcript"][0]
    assert first["user_input"].startswith("## Simulation Start")
    assert all(len(c.split(" -> ", 1)[1]) <= 500 for t in data["transcript"] for c in t["commands_executed"])
    calls = [r for r in read_jsonl(run / "llm_calls.jsonl") if r["kind"] == "chat"]
    assert [r["response"]["cost_usd"] for r in calls] == [t["cost_usd"] for t in data["transcript"]]


def test_round_trip_matches_and_verifies(exported, tmp_path):
    """Importing the export replays to the same results, funds and tasks; the run directory verifies and loads."""
    run, file, data = exported
    done = import_rollout(file, tmp_path / "imp")
    report = done.report
    assert report["verdict"].startswith("match"), report["verdict"]
    assert report["first_command_difference"] is None and report["final_funds_match"] is True
    original = json.loads((run / "result.json").read_text())
    imported = json.loads((tmp_path / "imp" / "result.json").read_text())
    for key in ("final_funds_cents", "month_end_funds_cents", "tasks_succeeded", "tasks_failed", "commands"):
        assert original[key] == imported[key]
    assert verify_run_dir(tmp_path / "imp").ok
    calls = [r for r in read_jsonl(tmp_path / "imp" / "llm_calls.jsonl") if r["kind"] == "chat"]
    assert all(r["ok"] for r in calls) and "max_turns" == imported["terminal_detail"]
    assert [t["cost_usd"] for t in data["transcript"]] == [r["response"]["cost_usd"] for r in calls]
    assert "reference" == json.loads((tmp_path / "imp" / "run.json").read_text())["spec"]["preset"]
    from bizsim.analysis import load

    assert 1 == len(load(tmp_path / "imp").runs)


def test_round_trip_of_a_live_transcript(exported, tmp_path):
    """The same run as the reference's ``*.transcript.jsonl`` (no messages, funds after each turn) matches too."""
    _, _, data = exported
    turns = data["transcript"]
    funds = [int(m.group(1)) for t in turns[1:] for m in [re.search(r"\((-?\d+) cents\)", t["user_input"])]]
    lines = [json.dumps({"turn": t["turn"], "timestamp": t["timestamp"], "agent_output": t["agent_output"],
                         "commands_executed": t["commands_executed"], "sim_time": "", "funds_cents": f})
             for t, f in zip(turns, [*funds, None])]
    file = tmp_path / "default_2_acme_greedy.transcript.jsonl"
    file.write_text("\n".join(lines) + "\n")
    report = import_rollout(file, tmp_path / "imp").report
    assert report["first_command_difference"] is None and report["replay"]["turns"] == len(turns)
    assert verify_run_dir(tmp_path / "imp").ok


def test_a_changed_result_is_the_first_difference(exported, tmp_path):
    """A recorded result that is not what bizsim gives is reported, both results side by side."""
    _, file, shared = exported
    data = json.loads(json.dumps(shared))  # the fixture is shared: change a copy
    turn = next(t for t in data["transcript"] if t["commands_executed"])
    command, result = turn["commands_executed"][0].split(" -> ", 1)
    turn["commands_executed"][0] = f"{command} -> {result.replace('exit_code', 'exit_kode')}"
    changed = tmp_path / file.name
    changed.write_text(json.dumps(data))
    report = import_rollout(changed, None).report
    first = report["first_command_difference"]
    assert (turn["turn"], 1, command) == (first["turn"], first["call"], first["command"])
    assert "exit_kode" in first["recorded"] and "exit_code" in first["replayed"]
    assert report["verdict"].startswith("differs")


def _results(tmp_path: Path, data: object, name: str = "yc_bench_result_default_2_acme_greedy.json") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def _mutations(data: dict) -> list[tuple[str, object, str, str]]:
    """(id, content, file name, expected error text)."""
    name = "yc_bench_result_default_2_acme_greedy.json"
    text = json.dumps(data)
    late = dict(data, transcript=data["transcript"][5:])
    bad_cmds = json.loads(text)
    bad_cmds["transcript"][3]["commands_executed"] = "yc-bench sim resume"
    bad_turn = json.loads(text)
    bad_turn["transcript"][4]["turn"] = 2
    other = json.loads(text)
    bare = {k: v for k, v in other.items() if k != "time_series"}
    return [
        ("truncated", text[: len(text) // 2], name, "truncated"),
        ("foreign-json", {"world": "startup", "terminal_reason": "horizon_end"}, name, "not a YC-Bench results file"),
        ("not-json", "model: x\ntranscript: []\n", name, "invalid JSON"),
        ("deep", "[" * 5000 + "]" * 5000, name, "invalid JSON"),
        ("partial", late, name, "turns 1-5 of 30 are missing"),
        ("bad-commands", bad_cmds, name, "'commands_executed' must be a list of strings"),
        ("out-of-order", bad_turn, name, "out of order or repeated"),
        ("bad-reason", dict(other, terminal_reason="rm -rf /"), name, "terminal_reason"),
        ("no-config", bare, "run.json", "cannot tell which configuration"),
        ("other-config", other, "yc_bench_result_nightmare_2_acme_greedy.json", "not the world of preset reference"),
        ("negative-seed", dict(other, seed=-2), "yc_bench_result_default_2_acme_greedy.json", "'seed' must be"),
    ]


@pytest.mark.parametrize("case", range(11))
def test_hostile_rollouts_are_one_clear_error_and_write_nothing(exported, tmp_path, case):
    """Malformed, truncated, foreign and partial rollouts: one line naming the problem, no directory left."""
    _, _, data = exported
    ident, content, name, expected = _mutations(data)[case]
    file = _results(tmp_path, content, name)
    with pytest.raises(RolloutError) as caught:
        import_rollout(file, tmp_path / "out")
    message = str(caught.value)
    assert expected in message and "\n" not in message, (ident, message)
    assert ["file" if p == file else p.name for p in tmp_path.iterdir()] == ["file"]


@pytest.mark.parametrize(("content", "expected"), [
    (b"", "is empty"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b'{"turn": 1, "commands_executed": []}\n{"turn": 2, "comm', "cut off"),
    (b'{"turn": 1, "commands_executed": []}\n{"step": 2}\n', "not a YC-Bench transcript line"),
])
def test_hostile_transcripts(tmp_path, content, expected):
    """Live transcripts that are empty, binary, cut off or foreign."""
    file = tmp_path / "default_1_m.transcript.jsonl"
    file.write_bytes(content)
    with pytest.raises(RolloutError, match=expected):
        import_rollout(file, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_cli_refuses_with_one_line_and_imports_a_partial_record(exported, tmp_path, capsys):
    """Exit 2 and one line on a bad rollout; ``--partial`` keeps a rollout that lost turns as a record only."""
    _, _, data = exported
    late = _results(tmp_path, dict(data, transcript=data["transcript"][5:]))
    assert 2 == main(["import", "yc-bench", str(late), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert 1 == len(err.strip().splitlines()) and "turns 1-5 of 30 are missing" in err
    assert not (tmp_path / "out").exists()
    assert 1 == main(["import", "yc-bench", str(late), "--out", str(tmp_path / "out"), "--partial"])
    assert ["imported.json"] == sorted(p.name for p in (tmp_path / "out").iterdir())
    with pytest.raises(ConfigError, match="not a finished run directory"):
        verify_run_dir(tmp_path / "out")


def test_an_occupied_out_is_refused_and_kept(exported, tmp_path):
    """``--out`` must be new or empty; what is there stays."""
    _, file, _ = exported
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("keep")
    with pytest.raises(ConfigError, match="not an empty directory"):
        import_rollout(file, tmp_path / "out")
    assert "keep" == (tmp_path / "out" / "mine.txt").read_text()


def test_the_recorded_settings_tell_the_world_of_a_renamed_file(exported, tmp_path):
    """``time_series.config`` stands in for the file name; a setting preset reference does not share is refused."""
    _, _, data = exported
    assert import_rollout(_results(tmp_path, data, "renamed.json"), None).report["verdict"].startswith("match")
    changed = json.loads(json.dumps(data))
    changed["time_series"]["config"]["initial_funds_cents"] = 25_000_000
    with pytest.raises(RolloutError, match="initial_funds_cents=25000000, preset reference has 20000000"):
        import_rollout(_results(tmp_path, changed, "renamed.json"), None)


def test_read_rollout_reads_what_the_file_name_tells(exported):
    """Config and seed from the reference's file name; the model from the file."""
    _, file, _ = exported
    r = read_rollout(file)
    assert ("default", 2, MODEL, 30, True) == (r.config, r.seed, r.model, r.turns, r.complete)


def _wire(stdout: dict) -> str:
    return json.dumps({"ok": True, "exit_code": 0, "stdout": json.dumps(stdout, indent=2) + "\n", "stderr": "",
                       "sim_time": None, "command": "x"})


def test_a_difference_after_same_instant_completions_is_called_a_tie():
    """A replayed resume that completed two tasks at once, then a result about one of them differs: a tie; a
    difference about something else stays a difference."""
    from bizsim.analysis.ycbench.fidelity import fidelity_report
    from bizsim.analysis.ycbench.rollout import Call, Episode, Rollout, Turn

    done = {"wake_events": [{"type": "task_completed", "task_title": t, "success": True} for t in ("A", "B")]}
    resume = _wire(done)

    def report_for(theirs: dict, ours: dict) -> dict:
        turns = (Turn(1, "", (Call("yc-bench sim resume", resume[:500]),)),
                 Turn(2, "", (Call("yc-bench task inspect --task-id A", _wire(theirs)),)))
        rollout = Rollout("r.json", "results", "m", 1, "default", 1, (Episode(1, turns, "error", None),), "error",
                          None, None, True)
        served = [(1, turns[0], "", [resume]), (1, turns[1], "", [_wire(ours)])]
        return fidelity_report(rollout, served, {"final_funds_cents": 2}, {}, None)

    tie = report_for({"task_title": "A", "prestige": 1}, {"task_title": "A", "prestige": 2})
    assert tie["verdict"].startswith("tie") and ["A", "B"] == tie["same_instant_completions_before_difference"][0]["tasks"]
    assert (2, "yc-bench task inspect --task-id A") == (tie["first_command_difference"]["turn"],
                                                         tie["first_command_difference"]["command"])
    other = report_for({"task_title": "C", "prestige": 1}, {"task_title": "C", "prestige": 2})
    assert other["verdict"].startswith("differs")


def _understaffed(messages: list[dict], tools: list[dict] | None) -> dict:
    """Two tasks at a time, one employee on each: the company goes bankrupt within months on preset reference."""
    from .llm_policies import active_tasks, calls, last_round_results

    browse = next((r for c, r in last_round_results(messages).items() if c.startswith("yc-bench market browse")), None)
    if browse is not None and browse.get("tasks"):
        out = []
        for t, team in zip(browse["tasks"][:2], ("Emp_1", "Emp_2")):
            out += [f"yc-bench task accept --task-id {t['task_id']}",
                    f"yc-bench task assign --task-id {t['task_id']} --employees {team}",
                    f"yc-bench task dispatch --task-id {t['task_id']}"]
        return calls(*out, "yc-bench sim resume")
    if active_tasks(messages) == 0:
        return calls("yc-bench market browse --limit 3")
    return calls("yc-bench sim resume")


def test_a_run_restarted_after_bankruptcy_round_trips(tmp_path):
    """Two episodes: exported with a transcript each, imported as two episodes, and as the reference's live
    transcript (one file, turns numbered on, an episode ending where funds went below zero)."""
    spec = RunSpec("startup", "reference", "llm", 1, agent_options=LLMAgentConfig(model=MODEL), max_episodes=2)
    run_llm(spec, out=tmp_path / "run", client=ScriptedClient(_understaffed, model=MODEL))
    file = export_rollout(tmp_path / "run", tmp_path)
    data = json.loads(file.read_text())
    assert [1, 2] == [e["episode"] for e in data["episodes"]]
    # As the reference writes a restarted run: the last episode's ending and times on top, its world's series.
    assert "transcript" not in data and 2 == data["total_episodes"]
    assert ("bankruptcy", "bankruptcy") == (data["episodes"][0]["terminal_reason"], data["episodes"][0]["terminal_detail"])
    assert (data["started_at"], data["ended_at"]) == (data["episodes"][1]["started_at"], data["episodes"][1]["ended_at"])
    last = json.loads((tmp_path / "run" / "result.json").read_text())["episodes"][1]
    assert last["final_funds_cents"] == data["time_series"]["funds"][-1]["funds_cents"]
    assert data["episodes"][1]["terminal_reason"] == data["terminal_reason"] and data["ended_at"] >= data["started_at"]
    report = import_rollout(file, tmp_path / "imp").report
    assert report["verdict"].startswith("match") and 2 == report["replay"]["episodes"]
    assert verify_run_dir(tmp_path / "imp").ok
    lines, n = [], 0
    for ep in data["episodes"]:
        turns = ep["transcript"]
        funds = [int(re.search(r"\((-?\d+) cents\)", t["user_input"]).group(1)) for t in turns[1:]]
        end = json.loads((tmp_path / "run" / "result.json").read_text())["episodes"][ep["episode"] - 1]
        for t, f in zip(turns, [*funds, end["final_funds_cents"]]):
            n += 1
            lines.append(json.dumps({"turn": n, "agent_output": t["agent_output"],
                                     "commands_executed": t["commands_executed"], "funds_cents": f}))
    live = tmp_path / "default_1_acme_greedy.transcript.jsonl"
    live.write_text("\n".join(lines) + "\n")
    report = import_rollout(live, tmp_path / "imp2").report
    assert report["first_command_difference"] is None and 2 == report["replay"]["episodes"]
    assert report["final_funds_match"] is True


_HOSTILE = (None, -1, "x" * 5000, {"a": 1}, True)


def test_any_field_of_any_type_is_imported_or_one_clear_error(exported, tmp_path):
    """Every field of a short rollout set to hostile values: a clean import or a RolloutError, never a crash."""
    _, _, data = exported
    short = dict(data, transcript=data["transcript"][:3], turns_completed=3)
    short.pop("time_series")
    cases = [(k, None) for k in short if k != "transcript"] + [(None, k) for k in short["transcript"][0]]
    outcomes = set()
    for top, inner in cases:
        for value in _HOSTILE:
            case = json.loads(json.dumps(short))
            if top is not None:
                case[top] = value
            else:
                case["transcript"][1][inner] = value
            file = _results(tmp_path, case)
            try:
                import_rollout(file, None)
                outcomes.add("imported")
            except RolloutError as exc:
                assert "\n" not in str(exc)
                outcomes.add("refused")
    assert {"imported", "refused"} == outcomes


def test_a_status_line_with_an_endless_number_is_read_as_no_funds():
    """A hostile rollout's 5,000-digit funds never reach int() (which would refuse it with a ValueError)."""
    from bizsim.analysis.ycbench.fidelity import _header

    assert (None, None) == _header("- funds: $" + "1" * 5000 + ".00")
    assert (None, 12345) == _header("- funds: $123.45")
