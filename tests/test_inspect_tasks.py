"""Inspect AI tasks, run through ``inspect_ai.eval`` itself: its mockllm model, and a loopback OpenAI server."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if importlib.util.find_spec("inspect_ai") is None:  # checked without the import (seconds in every xdist worker)
    pytest.skip("the Inspect tasks need bizsim[inspect]", allow_module_level=True)

from bizsim.analysis import load
from bizsim.runs import run_episode
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.registry import registered, world_spec

if TYPE_CHECKING:
    from inspect_ai.model import ModelOutput

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

GREEDY_SEED_1 = 42029521  # $420,295.21: `bizsim run startup --agent greedy --seed 1`, and bizsim's own harness


def _out(tool: str | None = None, **arguments: object) -> ModelOutput:
    """A mockllm answer calling ``tool`` (or a text reply), with usage given so no tokenizer is needed."""
    from inspect_ai.model import ModelOutput, ModelUsage

    out = (ModelOutput.for_tool_call("mockllm/model", tool, dict(arguments)) if tool
           else ModelOutput.from_content("mockllm/model", "I am done."))
    out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return out


def _eval(world: str, outputs, tmp_path: Path, **options):
    import inspect_ai
    from inspect_ai.model import get_model

    task_args = {"seeds": "1", "runs_dir": str(tmp_path / "runs"), **options.pop("task_args", {})}
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = inspect_ai.eval(f"bizsim/{world}", model=model, task_args=task_args, log_dir=str(tmp_path / "logs"),
                            display="none", **options)
    assert "success" == log.status, log.error
    return log


def _run_dir(sample) -> Path:
    return Path(sample.metadata["bizsim_run_dir"])


@pytest.mark.parametrize("world", sorted(registered()))
def test_every_registered_world_is_a_task_whose_sample_records_a_verifiable_run(world, tmp_path):
    """bizsim/<world> resolves through Inspect's entry points; the model sees the world's commands as tools; the
    score is the world's metric with its figures; the sample's run directory replays; load reads the log."""
    w = world_spec(world).make("default", 1)
    advance = w.commands[w.advance_command].tool_name
    log = _eval(world, [_out(advance), _out()], tmp_path)
    [sample] = log.samples
    model_call = next(e for e in sample.events if e.event == "model")
    assert [s.tool_name for s in w.commands.visible()] == [t.name for t in model_call.tools]
    result = json.loads((_run_dir(sample) / "result.json").read_text())
    score = sample.scores["world_metric"]
    assert result["metric_value"] == score.value and result["metric"] == score.metadata["metric"]
    assert str(_run_dir(sample)) == score.metadata["run_dir"]
    assert 1 == result["commands"] and "inspect" == result["live"]["surface"]
    assert ("seed-1", 1) == (result["live"]["metadata"]["inspect_sample_id"], result["live"]["metadata"]["inspect_epoch"])
    assert verify_run_dir(_run_dir(sample)).ok
    runs = load(tmp_path / "logs").runs
    assert [world] == list(runs.world) and [float(score.value)] == list(runs.metric_value)
    assert [2] == list(runs.llm_turns) and [200] == list(runs.llm_prompt_tokens)


def test_tool_schemas_are_the_command_declarations(tmp_path):
    """Each tool's parameters are its command's: names, types, required, enums; bad arguments are refused by the
    world, recorded, and change nothing."""
    log = _eval("startup", [_out("task_accept", task_id="Task-99999"), _out("market_browse", limit=2), _out()], tmp_path)
    [sample] = log.samples
    tools = {t.name: t for t in next(e for e in sample.events if e.event == "model").tools}
    spec = world_spec("startup").make("default", 1).commands["task accept"]
    declared = spec.json_schema()["function"]["parameters"]
    assert declared["required"] == tools["task_accept"].parameters.required
    assert {k: v["type"] for k, v in declared["properties"].items()} == {
        k: v.type for k, v in tools["task_accept"].parameters.properties.items()}
    answers = [m.text for m in sample.messages if m.role == "tool"]
    assert "not found" in json.loads(answers[0])["error"] and 2 == len(json.loads(answers[1])["tasks"])
    assert verify_run_dir(_run_dir(sample)).ok


def test_inspect_message_limit_ends_the_sample_and_the_run_directory_still_verifies(tmp_path):
    """Inspect's limits apply: a model that never stops is cut at message_limit; the episode is recorded up to there."""

    def forever():
        while True:
            yield _out("company_status")

    log = _eval("startup", forever(), tmp_path, message_limit=9)
    [sample] = log.samples
    assert "message" == sample.limit.type
    result = json.loads((_run_dir(sample) / "result.json").read_text())
    assert ("agent_stopped", "the Inspect agent stopped") == (result["terminal_reason"], result["terminal_detail"])
    assert 3 <= result["commands"] <= 4 and verify_run_dir(_run_dir(sample)).ok


def test_hostile_tool_calls_are_refused_and_change_nothing(tmp_path):
    """Oversized and mistyped arguments and an unknown tool are answered with an error (by Inspect's schema check or
    the world's), nothing crashes, and the run directory replays."""
    outputs = [_out("task_accept", task_id="T" * 300_000), _out("market_browse", limit="many"),
               _out("no_such_tool"), _out("market_browse", limit=10**30), _out()]
    log = _eval("startup", outputs, tmp_path)
    [sample] = log.samples
    tool_messages = [m for m in sample.messages if m.role == "tool"]
    assert 4 == len(tool_messages)
    assert all(m.error is not None or "error" in json.loads(m.text) for m in tool_messages)
    result = json.loads((_run_dir(sample) / "result.json").read_text())
    assert 20000000 == result["final_funds_cents"] and verify_run_dir(_run_dir(sample)).ok


def _status_forever():
    while True:
        yield _out("run_command", command="yc-bench company status")


@pytest.mark.parametrize(("limit", "kind", "detail"), [
    ({"token_limit": 500}, "token", "inspect_token_limit"),
    ({"time_limit": 2}, "time", "inspect_cancelled"),
])
def test_inspect_limits_stop_bizsims_harness_on_preset_reference(limit, kind, detail, tmp_path):
    """On preset reference bizsim's harness plays; Inspect's token and time limits still end the sample, and the
    harness's run directory is complete (the run ends as a cap ends it) and replays."""
    # The harness's own stall cap would end the run first on a fast machine: the limit under test must be what ends it.
    log = _eval("startup", _status_forever(), tmp_path,
                task_args={"preset": "reference", "max_stalled_turns": 10**9, **limit})
    [sample] = log.samples
    assert kind == sample.limit.type
    result = json.loads((_run_dir(sample) / "result.json").read_text())
    assert ("error", detail) == (result["terminal_reason"], result["terminal_detail"])
    assert (_run_dir(sample) / "llm_calls.jsonl").exists() and verify_run_dir(_run_dir(sample)).ok


def test_a_replacement_agent_gets_the_reference_run_command_tool_and_its_wire_answers(tmp_path):
    """--solver replaces bizsim's harness on preset reference; the setup still gives the published prompt and the
    single run_command tool, answered as YC-Bench's harness answers (its executor's result object)."""
    from inspect_ai.solver import generate

    outputs = [_out("run_command", command="yc-bench company status"), _out("run_command", command="company status"),
               _out("run_command", command="yc-bench task accept --task-id nope"), _out()]
    log = _eval("startup", outputs, tmp_path, task_args={"preset": "reference"}, solver=generate(tool_calls="loop"))
    [sample] = log.samples
    assert ["run_command"] == [t.name for t in next(e for e in sample.events if e.event == "model").tools]
    assert "yc-bench" in sample.messages[0].text
    answers = [json.loads(m.text) for m in sample.messages if m.role == "tool"]
    assert [0, 2, 1] == [a["exit_code"] for a in answers]
    assert 20000000 == json.loads(answers[0]["stdout"])["funds_cents"]
    assert "only top-level `yc-bench` commands are allowed" == answers[1]["stderr"]
    assert verify_run_dir(_run_dir(sample)).ok


@pytest.mark.slow
def test_greedy_year_over_http_through_run_command_on_preset_reference(tmp_path, monkeypatch):
    """An OpenAI-compatible loopback server plays the scripted greedy policy through the run_command tool on preset
    reference, seed 1: the sample scores $420,295.21, as `bizsim run startup --agent greedy --seed 1` and bizsim's
    own harness; the commands are the harness's, byte for byte; verify passes; load reads the log."""
    import inspect_ai

    from bizsim.agents.llm import ScriptedClient
    from bizsim.runs import RunSpec, run_llm

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, lifetime_s=240) as server:
        [log] = inspect_ai.eval("bizsim/startup", model="openai/gpt-4o-mini", model_base_url=server.url,
                                task_args={"preset": "reference", "seeds": "1", "runs_dir": str(tmp_path / "runs")},
                                log_dir=str(tmp_path / "logs"), display="none")
    assert "success" == log.status, log.error
    [sample] = log.samples
    assert GREEDY_SEED_1 == sample.scores["world_metric"].value == run_episode("startup", "default", "greedy", 1).final_funds_cents
    assert "horizon_end" == sample.scores["world_metric"].metadata["terminal_reason"]
    assert 117 == len(server.usages) == sum(1 for e in sample.events if e.event == "model")
    harness = run_llm(RunSpec("startup", "reference", "llm", 1, agent_options={"model": "openai/gpt-4o-mini"}),
                      out=tmp_path / "harness", client=ScriptedClient(greedy_policy))
    assert GREEDY_SEED_1 == harness.episode.final_funds_cents
    assert (tmp_path / "harness" / "commands.jsonl").read_bytes() == (_run_dir(sample) / "commands.jsonl").read_bytes()
    assert verify_run_dir(_run_dir(sample)).ok
    tables = load(log.location)
    assert [float(GREEDY_SEED_1)] == list(tables.runs.metric_value) and [117] == list(tables.runs.llm_turns)
    assert 117 == len(tables.llm_calls)


def test_a_retried_sample_plays_its_own_episode_in_its_own_directory(tmp_path):
    """With Inspect's retry_on_error, a sample whose first attempt failed mid-episode starts a new episode in a new
    run directory (the failed attempt's stays as it was left), and the retry is scored."""
    class FailsOnce:
        """A browse, then the provider fails once; afterwards it looks at the company and stops, every attempt."""

        def __init__(self) -> None:
            self.calls = 0

        def __iter__(self):
            return self

        def __next__(self) -> ModelOutput:
            self.calls += 1
            if self.calls == 1:
                return _out("market_browse", limit=1)
            if self.calls == 2:
                raise RuntimeError("the provider fell over")
            return _out("company_status") if self.calls % 2 else _out()

    log = _eval("startup", FailsOnce(), tmp_path, retry_on_error=1)
    [sample] = log.samples
    run_dir = _run_dir(sample)
    assert run_dir.name.endswith("-attempt2") and run_dir.with_name(run_dir.name[:-len("-attempt2")]).is_dir()
    result = json.loads((run_dir / "result.json").read_text())
    assert sample.scores["world_metric"].value == result["metric_value"] and verify_run_dir(run_dir).ok
