"""The LLM harness's small parts: config, prices, backoff, call logs, windows, limits, argument parsing."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
import threading
import time

import pytest
from bizsim.agents.llm import EndpointLimiter, LLMAgentConfig, Pricing, ScriptedClient, Usage, backoff_delay
from bizsim.agents.llm.conversation import messages_window, msg, rounds_window
from bizsim.agents.llm.errors import TransientModelError, scrub
from bizsim.agents.llm.protocols._calls import calls_in_text, clip_reply, parse_arguments
from bizsim.simcore.digests import canonical_digest as digest
from bizsim.simcore.jsonl import JsonlWriter, read_jsonl
from bizsim.agents.llm.types import ModelResponse, ToolCall
from bizsim.simcore.errors import ConfigError

DOCTEST_MODULES = [
    "bizsim.agents.llm.errors", "bizsim.agents.llm.client", "bizsim.agents.llm.pricing", "bizsim.agents.llm.gateway",
    "bizsim.simcore.jsonl", "bizsim.runs.rundir", "bizsim.agents.llm.conversation", "bizsim.agents.llm.limits",
    "bizsim.agents.llm.scripted", "bizsim.agents.llm.protocols._calls", "bizsim.agents.llm.memory._text",
    "bizsim.agents.llm.memory.state_table", "bizsim.agents.llm.memory.embed", "bizsim.agents.llm.memory.episodic",
    "bizsim.agents.llm.agent", "bizsim.models.startup.prompt",
]


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_doctests(name):
    """The examples in the harness's docstrings run and hold."""
    failed, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert (0, True) == (failed, tried > 0)


def test_importing_bizsim_does_not_import_litellm():
    """``import bizsim...`` stays light: litellm loads only when a model is called."""
    code = "import sys, bizsim.agents, bizsim.analysis, bizsim.cli; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert "False" == out


def test_config_refuses_bad_values_naming_them():
    """Bad knobs fail at construction with the value and the rule."""
    with pytest.raises(ConfigError, match=r"max_turns\(=0\)"):
        LLMAgentConfig(max_turns=0)
    with pytest.raises(ConfigError, match="memory"):
        LLMAgentConfig(memory="window,telepathy")
    with pytest.raises(ConfigError, match="unknown LLM agent option"):
        LLMAgentConfig.from_options({"modle": "x"})
    with pytest.raises(ConfigError, match="prices"):
        LLMAgentConfig(prices={"m": (1.0,)})
    assert ("window", "episodic") == LLMAgentConfig(memory="window, episodic").memory


def test_config_round_trips_through_its_dict():
    """A config survives to_dict/from_options (how run.json stores it)."""
    cfg = LLMAgentConfig(model="openai/x", prices={"openai/x": (1, 2)}, memory=("state",), max_turns=9)
    assert cfg == LLMAgentConfig.from_options(cfg.to_dict())


def test_user_prices_are_exact_and_unknown_models_cost_none():
    """User prices give exact dollars; a model nothing knows costs None, not 0."""
    priced = Pricing("my/model", {"my/model": (0.5, 1.5)})
    assert (1200 * 0.5 + 300 * 1.5) / 1_000_000 == priced.cost(Usage(1200, 300))
    assert "user" == priced.source
    unknown = Pricing("my/model", None, ScriptedClient([]))
    assert None is unknown.cost(Usage(10, 10))
    assert not unknown.known()


def test_backoff_doubles_up_to_its_cap():
    """Waits grow as base·2^(n−1) and stop at the cap."""
    assert [0.5, 1.0, 2.0, 4.0, 6.0, 6.0] == [backoff_delay(n, 0.5, 6.0) for n in range(1, 7)]


def test_scrub_hides_keys():
    """A key inside an error message never reaches a log."""
    assert "Incorrect API key *** provided" == scrub("Incorrect API key sk-secret-1 provided", ("sk-secret-1", None))


def test_jsonl_writer_flushes_each_record_and_survives_a_torn_tail(tmp_path):
    """Records are readable as soon as written; a crash's half line is skipped and cut before appending."""
    path = tmp_path / "calls.jsonl"
    w = JsonlWriter(path)
    w.write({"n": 1})
    assert [{"n": 1}] == read_jsonl(path)  # flushed, though still open
    w.close()
    with path.open("a") as fh:
        fh.write('{"n": 2, "half')
    assert [{"n": 1}] == read_jsonl(path)
    w2 = JsonlWriter(path)
    w2.write({"n": 3})
    w2.close()
    assert [{"n": 1}, {"n": 3}] == read_jsonl(path)


def test_digest_is_canonical():
    """Equal data gives equal digests whatever the key order."""
    assert digest({"a": 1, "b": [1, 2]}) == digest({"b": [1, 2], "a": 1})
    assert digest({"a": 1}) != digest({"a": 2})


def test_message_digests_depend_on_content_and_fields():
    """Two messages differing in content or in a field have different digests."""
    a, b, c = msg("tool", "x", tool_call_id="1"), msg("tool", "y", tool_call_id="1"), msg("tool", "x", tool_call_id="2")
    assert len({a.digest, b.digest, c.digest}) == 3
    assert a.digest == msg("tool", "x", tool_call_id="1").digest


def test_rounds_window_keeps_k_rounds_and_marks_the_cut():
    """K previous rounds plus the current one; a marker replaces what was dropped."""
    rounds = [[msg("user", f"u{i}"), msg("assistant", f"a{i}")] for i in range(6)]
    out, dropped = rounds_window(rounds, 3, "MARK")
    assert dropped
    assert ["MARK", "u2", "a2", "u3", "a3", "u4", "a4", "u5", "a5"] == [m.data["content"] for m in out]
    out, dropped = rounds_window(rounds[:4], 3, "MARK")
    assert not dropped and 8 == len(out)


def test_messages_window_drops_orphan_tool_results():
    """The EcoGym window never starts with a tool result whose call was cut off."""
    h = [msg("user", "go"), msg("assistant", None, tool_calls=[{"id": "1"}]), msg("tool", "r", tool_call_id="1"), msg("assistant", "ok")]
    assert ["tool", "assistant"] != [m.role for m in messages_window(h, 2)]
    assert ["assistant"] == [m.role for m in messages_window(h, 2)]
    assert 4 == len(messages_window(h, 128))


@pytest.mark.parametrize(
    "raw, expected",
    [
        ('{"command": "company status"}', {"command": "company status"}),
        ('"{\\"command\\": \\"company status\\"}"', {"command": "company status"}),
        ("", {}),
        (None, {}),
    ],
)
def test_parse_arguments_accepts_json_objects(raw, expected):
    """Objects, doubly-encoded objects and empty arguments are accepted."""
    assert (expected, None) == parse_arguments(raw, "run_command")


@pytest.mark.parametrize("raw", ['{"command": ', "[1, 2]", "42", "not json"])
def test_parse_arguments_explains_what_is_wrong(raw):
    """Anything else is an error message for the model, not an exception."""
    args, error = parse_arguments(raw, "run_command")
    assert args is None and "run_command" in error


def test_clip_reply_marks_the_cut():
    """Oversized text is cut with a note saying how long it was."""
    text, cut = clip_reply("x" * 500, 100)
    assert cut and text.startswith("x" * 100) and "500 characters" in text
    assert ("short", False) == clip_reply("short", 100)


def test_limiter_bounds_requests_in_flight_per_endpoint():
    """No more than the limit run at once for an endpoint; other endpoints are independent."""
    limiter = EndpointLimiter(2, per_endpoint={"solo": 1})
    seen: list[int] = []

    def work(key: str) -> None:
        with limiter.slot(key):
            seen.append(limiter.in_flight(key))
            time.sleep(0.02)

    threads = [threading.Thread(target=work, args=("a",)) for _ in range(6)] + [
        threading.Thread(target=work, args=("solo",)) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert limiter.peak["a"] <= 2 and limiter.peak["solo"] == 1
    with pytest.raises(ConfigError, match=r"limit\(=0\)"):
        EndpointLimiter(0)


def test_response_records_round_trip():
    """What the call log stores rebuilds the same response."""
    r = ModelResponse("hi", (ToolCall("c1", "run_command", '{"command": "x"}'),), Usage(10, 3), 0.25, 1.5, "m", "tool_calls")
    assert r == ModelResponse.from_record(r.to_record())


class _DownClient:
    """A client whose endpoint is down: every call is a transient failure."""

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, tools, **params):
        self.calls += 1
        raise TransientModelError("503 service unavailable")


def _role_gateway(client, log=None, replay=()):
    from bizsim.agents.llm.gateway import ModelGateway

    return ModelGateway(client, "m", Pricing("m"), log=log, replay=replay, max_failures=3, sleep=lambda s: None)


def test_a_resume_keeps_the_failure_streak_of_a_recorded_role_failure(tmp_path):
    """After a role's call failed for good, the next call gets one attempt: on a resume as in the original run."""
    from bizsim.agents.llm.errors import RunAborted

    meta = {"role": "auditor", "turn": 0}
    original, log = _DownClient(), JsonlWriter(tmp_path / "calls.jsonl")
    gateway = _role_gateway(original, log=log)
    for request in ("a", "b"):
        with pytest.raises(RunAborted, match="consecutive"):
            gateway.chat([], None, {}, request, meta)
    log.close()
    assert 3 + 1 == original.calls  # the streak carried over: "b" was tried once

    rows = read_jsonl(tmp_path / "calls.jsonl")
    assert [3, 4] == [r["consecutive_failures"] for r in rows]
    resumed_client = _DownClient()
    resumed = _role_gateway(resumed_client, replay=rows[:1])
    with pytest.raises(RunAborted, match="recorded"):
        resumed.chat([], None, {}, "a", meta)
    with pytest.raises(RunAborted, match="4 consecutive"):
        resumed.chat([], None, {}, "b", meta)
    assert 1 == resumed_client.calls


def test_calls_written_as_text_are_read_defensively():
    """Fresh ids, cleaned names and arguments; unreadable bodies and huge integers give no calls, never a crash."""
    body = '{"tool_calls": [{"id": "x", "function": {"name": "a\\ud800", "arguments": [1]}}, ' \
           '{"id": "x", "function": {"name": "b", "arguments": {"k": 1}}}, {"name": "no function key"}]}'
    calls = calls_in_text(body, "p")
    assert [("p0", "a?", "[1]"), ("p1", "b", '{"k": 1}')] == [(c.id, c.name, c.arguments) for c in calls]
    assert [] == calls_in_text('{"tool_calls": [' + "9" * 5000 + "]}", "p")
    assert [] == calls_in_text("not json at all", "p") == calls_in_text(None, "p")
