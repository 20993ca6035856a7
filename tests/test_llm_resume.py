"""Nothing lost: SIGKILL mid-year and resume, replay without calling the model, the CLI and its pre-flight."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest

from .llm_server import needs_litellm

needs_litellm()

from bizsim.agents.llm import LiteLLMClient, LLMAgentConfig, ScriptedClient
from bizsim.simcore.jsonl import read_jsonl
from bizsim.runs import RunSpec, resume_llm, run_llm
from bizsim.cli import main
from bizsim.runs.llm_record import read_requests
from bizsim.simcore.errors import ConfigError, ReplayError

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("llm_resume")


MODEL = "hosted_vllm/greedy"
KEY_ENV = "BIZSIM_TEST_LLM_KEY"
KEY = "sk-resume-test-key-42"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server():
    """A loopback server playing greedy, a little slow so a run can be killed mid-year."""
    with LoopbackLLMServer(greedy_policy, delay_s=0.004, lifetime_s=240) as srv:
        yield srv


@pytest.fixture
def key_env(monkeypatch):
    """The API key in an environment variable, as the CLI expects it."""
    monkeypatch.setenv(KEY_ENV, KEY)


def _cli_args(server, out) -> list[str]:
    return [
        "run", "startup", "--agent", "llm", "--model", MODEL, "--api-base", server.url, "--api-key-env", KEY_ENV,
        "--seed", "1", "--out", str(out), "--no-progress",
    ]


def _record(run_dir: Path) -> dict:
    """A run's result.json without its one wall-clock value (each session's own)."""
    out = json.loads((run_dir / "result.json").read_text())
    assert isinstance(out.pop("wall_s"), float)
    return out


def _strip(result: dict) -> dict:
    """A result without its endpoint (two servers differ only in their port)."""
    out = dict(result)
    out["agent_options"] = {k: v for k, v in out["agent_options"].items() if k != "api_base"}
    return out


@pytest.fixture(scope="module")
def uninterrupted(server, tmp_path_factory):
    """The whole year, in one go, through the CLI in this process."""
    out = tmp_path_factory.mktemp("whole") / "run"
    os.environ[KEY_ENV] = KEY
    try:
        assert 0 == main(_cli_args(server, out))
    finally:
        del os.environ[KEY_ENV]
    return out


@pytest.mark.slow
def test_sigkill_mid_year_then_resume_equals_uninterrupted(server, uninterrupted, tmp_path, key_env):
    """A CLI run killed with SIGKILL mid-year and resumed ends with the uninterrupted result,
    and the model is asked only for the turns that were not recorded."""
    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", *_cli_args(server, out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    calls = out / "llm_calls.jsonl"
    try:
        while time.monotonic() < deadline:
            if calls.exists() and calls.read_bytes().count(b"\n") >= 40:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.005)
        else:
            pytest.fail("the run did not reach 40 recorded calls in time")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert -signal.SIGKILL == proc.returncode
    assert not (out / "result.json").exists()
    recorded = len([r for r in read_jsonl(calls) if r["kind"] == "chat"])
    # The request in flight at the kill may still be in the server's handler thread.
    seen = -1
    while seen != server.requests:
        seen = server.requests
        time.sleep(0.3)
    asked_before = server.policy_calls
    assert 2 == main(["run", "--resume", str(out), "--no-progress"])  # run.json alone names no endpoint to trust
    assert 0 == main(["run", "--resume", str(out), "--no-progress", "--api-base", server.url, "--api-key-env", KEY_ENV])
    total_turns = json.loads((uninterrupted / "result.json").read_text())["llm"]["turns"]
    assert total_turns - recorded == server.policy_calls - asked_before
    assert _record(uninterrupted) == _record(out)
    assert (uninterrupted / "trajectory.jsonl").read_text() == (out / "trajectory.jsonl").read_text()
    assert (uninterrupted / "agent_commands.jsonl").read_text().count("\n") == (out / "agent_commands.jsonl").read_text().count("\n")
    # Each request is stored as the uninterrupted run stored it, and reads back from the file alone.
    whole, resumed = read_jsonl(uninterrupted / "llm_calls.jsonl"), read_jsonl(calls)
    assert [r["sent"] for r in whole if r["kind"] == "chat"] == [r["sent"] for r in resumed if r["kind"] == "chat"]
    assert all(r.verified for r in read_requests(resumed))
    spec = json.loads((out / "run.json").read_text())
    assert 1 == len(spec["resumes"]) and KEY not in (out / "run.json").read_text()


def test_resuming_a_finished_run_replays_everything_without_the_model(server, uninterrupted, tmp_path):
    """Every turn is served from the log: the server is not asked once, and the result is the same."""
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("run.json", "llm_calls.jsonl"):
        (copy / name).write_bytes((uninterrupted / name).read_bytes())
    before = server.requests
    result = resume_llm(copy, client=LiteLLMClient(MODEL, api_base=server.url, api_key=KEY))
    assert before == server.requests
    assert (result.live_calls, result.replayed_calls) == (0, json.loads((uninterrupted / "result.json").read_text())["llm"]["turns"])
    assert _record(uninterrupted) == _record(copy)


def test_a_torn_last_record_is_ignored_on_resume(tmp_path):
    """A half-written last line (a crash mid-write) is dropped; the run resumes and completes."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=6))
    whole = run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    lines = (tmp_path / "llm_calls.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "llm_calls.jsonl").write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    client = ScriptedClient(greedy_policy)
    again = resume_llm(tmp_path, client=client)
    assert 3 == client.answered and 3 == again.replayed_calls
    assert whole.record() == again.record()


def test_a_log_that_does_not_fit_stops_with_a_clear_error(tmp_path):
    """A recorded call made for another request (a changed run) stops the resume; nothing is guessed."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=4))
    run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    rows = read_jsonl(tmp_path / "llm_calls.jsonl")
    rows[2]["request"] = "0" * 64
    (tmp_path / "llm_calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ReplayError, match="recorded call 2 .* no longer fit"):
        resume_llm(tmp_path, client=ScriptedClient(greedy_policy))


def test_a_run_directory_is_not_overwritten(tmp_path):
    """Starting a new run in a directory that holds one is refused, pointing at --resume."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=1))
    run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    with pytest.raises(ConfigError, match="already holds a run"):
        run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))


def test_a_baseline_run_and_an_llm_run_never_overwrite_each_other(tmp_path, capsys):
    """A greedy run into an LLM run's directory is refused (even with --overwrite), and the other way round;
    the LLM run's files are untouched."""
    from bizsim.runs import run_episode

    llm_dir, greedy_dir = tmp_path / "llm", tmp_path / "greedy"
    run_llm(RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=2)), out=llm_dir,
            client=ScriptedClient(greedy_policy))
    before = {p.name: p.read_bytes() for p in llm_dir.iterdir()}
    for overwrite in (False, True):
        with pytest.raises(ConfigError, match="holds an LLM run"):
            run_episode("startup", "default", "greedy", 1, out=llm_dir, overwrite=overwrite)
    assert 2 == main(["run", "startup", "--out", str(llm_dir), "--overwrite", "--no-progress"])
    assert "holds an LLM run" in capsys.readouterr().err
    assert before == {p.name: p.read_bytes() for p in llm_dir.iterdir()}

    run_episode("startup", "default", "greedy", 1, out=greedy_dir)
    with pytest.raises(ConfigError, match="already holds a run"):
        run_llm(RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=2)), out=greedy_dir,
                client=ScriptedClient(greedy_policy))
    assert not (greedy_dir / "run.json").exists()


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_cli_preflight_fails_fast_on_a_wrong_endpoint(tmp_path, capsys, key_env):
    """Nothing listens there: exit 2 with one line naming the endpoint, before litellm is asked."""
    url = _closed_port_url()
    code = main(["run", "startup", "--agent", "llm", "--model", MODEL, "--api-base", url, "--api-key-env", KEY_ENV,
                 "--out", str(tmp_path / "run"), "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert 2 == code
    assert 1 == len(err) and err[0].startswith(f"bizsim: error: nothing accepts connections at {url} (connection refused)")
    assert not (tmp_path / "run" / "result.json").exists()


def test_cli_preflight_fails_fast_on_a_bad_key(tmp_path, capsys, key_env):
    """The server refuses the key (401): exit 2, one line, the key itself never printed."""
    with LoopbackLLMServer(greedy_policy, faults=lambda i: "401") as srv:
        code = main(["run", "startup", "--agent", "llm", "--model", MODEL, "--api-base", srv.url, "--api-key-env", KEY_ENV,
                     "--out", str(tmp_path / "run"), "--no-progress"])
        assert 1 == srv.requests
    captured = capsys.readouterr()
    assert 2 == code and "AuthenticationError" in captured.err and KEY not in captured.err + captured.out


def test_cli_agent_opt_and_flags_reach_the_agent(server, tmp_path, capsys, key_env):
    """--agent-opt KEY=VALUE still works with the LLM agent; the run stops at the turn limit with exit 0 (asked for)."""
    out = tmp_path / "run"
    code = main([*_cli_args(server, out), "--agent-opt", "history_rounds=5", "--max-turns", "3", "--json"])
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 0 == code
    assert ("error", "max_turns", 5, 3) == (
        result["terminal_reason"], result["terminal_detail"], result["agent_options"]["history_rounds"], result["llm"]["turns"]
    )
    spec = json.loads((out / "run.json").read_text())
    assert 5 == spec["protocol"]["history_rounds"] and KEY_ENV == spec["spec"]["agent_options"]["api_key_env"] == spec["agent"]["api_key_env"]


def test_a_run_stopped_by_its_cap_says_so_and_offers_no_resume_that_would_stop_there_again(server, tmp_path, capsys,
                                                                                         key_env):
    """The summary names the cap in words (not 'error'), and instead of `--resume` (which would replay the run to
    the same stop) says how to go further."""
    out = tmp_path / "run"
    assert 0 == main([*_cli_args(server, out), "--max-turns", "3"])  # a stop the user asked for: `&&` goes on
    text = capsys.readouterr().out
    assert "ended: stopped by its turn cap (max_turns), as asked at " in text and "ended: error" not in text
    assert "continue with" not in text and "a resume would replay it to the same place" in text


def test_a_turn_capped_run_exits_0_in_a_fresh_process(server, tmp_path, key_env):
    """`bizsim run ... --max-turns 1`, as a shell runs it, exits 0 (it stopped where it was told to)."""
    done = subprocess.run([sys.executable, "-m", "bizsim.cli", *_cli_args(server, tmp_path / "run"), "--max-turns", "1"],
                          capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert 0 == done.returncode, done.stderr
    assert "stopped by its turn cap (max_turns), as asked" in done.stdout


def test_a_bankrupt_run_exits_0_and_offers_no_resume(server, tmp_path, key_env, capsys, monkeypatch):
    """A run the world ended (bankrupt on its first payroll with one cent) exits 0 and offers no `--resume`, which
    would only replay its calls to the same bankruptcy."""
    (tmp_path / "broke.toml").write_text('extends = "default"\ninitial_funds_cents = 1\n')
    monkeypatch.chdir(tmp_path)
    args = _cli_args(server, tmp_path / "run")
    args[args.index("--seed")] = "--preset"
    args[args.index("1")] = "broke.toml"
    assert 0 == main(args)
    text = capsys.readouterr().out
    assert "ended: bankruptcy" in text and "--resume" not in text and "nothing left to play" in text


def test_a_stalled_run_exits_3_and_offers_no_resume(tmp_path, key_env, capsys):
    """A guard's stop (the stall guard: the model never moves time) exits 3, neither a stop asked for nor an API
    failure, and offers no `--resume`."""
    with LoopbackLLMServer(lambda m, t: {"content": None, "tool_calls": [
            {"name": "run_command", "arguments": {"command": "yc-bench company status"}}]}) as srv:
        args = _cli_args(srv, tmp_path / "run")
        assert 3 == main([*args, "--agent-opt", "max_stalled_turns=2", "--agent-opt", "auto_advance=0"])
    text = capsys.readouterr().out
    assert "stall guard" in text and "--resume" not in text and "a resume would replay it to the same place" in text


def test_a_run_its_api_stopped_exits_1_and_offers_resume(tmp_path, key_env, capsys):
    """The model's API refusing mid-run (a 401 on the third call) stops the run with exit 1 and the `--resume` line."""
    with LoopbackLLMServer(greedy_policy, faults={2: "401"}) as srv:
        assert 1 == main([*_cli_args(srv, tmp_path / "run"), "--no-preflight"])
    text = capsys.readouterr().out
    assert "stopped by the model's API failing" in text and "continue with: bizsim run --resume" in text


def test_cli_refuses_llm_flags_for_other_agents(capsys):
    """--model with a non-LLM agent is a usage error (exit 2)."""
    assert 2 == main(["run", "startup", "--agent", "greedy", "--model", "openai/x"])
    assert "goes with --agent llm" in capsys.readouterr().err


def test_a_run_that_never_starts_leaves_no_run_directory(tmp_path):
    """A failed pre-flight call (a bad key, no credentials) takes back the run directory it had begun: nothing to
    resume, and `bizsim verify runs/*` finds no half run."""
    from bizsim.agents.llm import ScriptedClient
    from bizsim.agents.llm.errors import FatalModelError, PreflightError

    client = ScriptedClient([], faults=lambda i: FatalModelError("401: invalid key"))
    out = tmp_path / "runs" / "llm-1"
    spec = RunSpec("startup", agent="llm", seed=1, agent_options=LLMAgentConfig(model="scripted", max_turns=3))
    with pytest.raises(PreflightError):
        run_llm(spec, out=out, client=client, preflight=True)
    assert not out.exists() and (tmp_path / "runs").exists()


def test_a_resume_refuses_an_endpoint_only_run_json_names(tmp_path, monkeypatch):
    """An edited run.json cannot send one variable's value to another host: the caller must name both again,
    and a refused resume writes nothing."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=2))
    run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    recorded = json.loads((tmp_path / "run.json").read_text())
    recorded["spec"]["agent_options"].update(api_base="http://203.0.113.9/v1", api_key_env="AWS_SECRET_ACCESS_KEY")
    (tmp_path / "run.json").write_text(json.dumps(recorded))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for confirm in (None, ("http://203.0.113.9/v1", "OPENAI_API_KEY"), ("http://127.0.0.1/v1", "AWS_SECRET_ACCESS_KEY")):
        with pytest.raises(ConfigError, match="give --api-base 'http://203.0.113.9/v1' and --api-key-env 'AWS_SECRET"):
            resume_llm(tmp_path, confirm_endpoint=confirm)
    assert before == {p.name: p.read_bytes() for p in tmp_path.iterdir()}


def test_a_run_json_of_the_first_layout_still_resumes(tmp_path):
    """run.json files written before the one RunSpec (spec_version 1: an LLM-only spec with its own out, auditor
    and agent table) resume to the same result."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=6))
    whole = run_llm(spec, out=tmp_path / "whole", client=ScriptedClient(greedy_policy))
    recorded = json.loads((tmp_path / "whole" / "run.json").read_text())
    old = {**recorded, "spec_version": 1, "spec": {
        "world": "startup", "preset": "default", "seed": 1, "max_episodes": 1, "agent": recorded["agent"],
        "out": str(tmp_path / "whole"), "auditor": "deterministic"}}
    del old["agent"]
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "run.json").write_text(json.dumps(old))
    (cut / "llm_calls.jsonl").write_text("".join((tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines(True)[:3]))
    again = resume_llm(cut, client=ScriptedClient(greedy_policy))
    assert 3 == again.replayed_calls and whole.record() == again.record()


def test_a_resume_into_another_runs_directory_is_refused(tmp_path):
    """The pipeline resumes only the run a directory holds: another seed or other agent settings are refused."""
    from bizsim.runs import execute

    spec = RunSpec("startup", agent="llm", agent_options={"model": "scripted", "max_turns": 2})
    run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    for other in (attrs.evolve(spec, seed=2), attrs.evolve(spec, agent_options={"model": "scripted", "max_turns": 3})):
        with pytest.raises(ConfigError, match="holds another run"):
            execute(other, out=tmp_path, client=ScriptedClient(greedy_policy))


def test_a_run_from_a_preset_file_resumes_from_any_directory(tmp_path, monkeypatch):
    """A relative .toml preset is read once, into the spec's overrides: the resume needs neither the file nor the
    working directory it was started from."""
    (tmp_path / "lean.toml").write_text('extends = "default"\ninitial_funds_cents = 12_345_678\n')
    monkeypatch.chdir(tmp_path)
    spec = RunSpec("startup", "lean.toml", "llm", agent_options={"model": "scripted", "max_turns": 5})
    assert {"initial_funds_cents": 12_345_678} == spec.overrides
    whole = run_llm(spec, out=tmp_path / "whole", client=ScriptedClient(greedy_policy))
    assert 12_345_678 == json.loads((tmp_path / "whole" / "run.json").read_text())["world_config"]["initial_funds_cents"]
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "run.json").write_bytes((tmp_path / "whole" / "run.json").read_bytes())
    (cut / "llm_calls.jsonl").write_text("".join((tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines(True)[:2]))
    (tmp_path / "lean.toml").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = resume_llm(cut, client=ScriptedClient(greedy_policy))
    assert 2 == again.replayed_calls and whole.record() == again.record()
