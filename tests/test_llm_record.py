"""An LLM run's requests rebuilt from ``llm_calls.jsonl`` alone: exactly what the model received, checked by hash."""

from __future__ import annotations

import base64
import copy
import doctest
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given

import bizsim.runs.llm_record
import bizsim.simcore.request_delta
from bizsim.agents.llm import ScriptedClient
from bizsim.agents.llm.errors import FatalModelError
from bizsim.runs.llm_record import has_requests, read_requests
from bizsim.runs.llm_run import resume_llm, run_llm
from bizsim.runs.runspec import RunSpec
from bizsim.simcore.digests import canonical_digest, message_digest
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.request_delta import MAX_ADDED_BYTES, decode, encode

from ._view_runs import hostile_policy
from .llm_policies import greedy_policy
from .strategies import conversations
from .test_freelance_llm_run import freelancer


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "llm_calls.jsonl").read_text().splitlines()]


def _seen(policy, sent: list):
    """``policy``, keeping a copy of every request (messages and tools) it is asked."""

    def answer(messages, tools):
        sent.append((copy.deepcopy(messages), copy.deepcopy(tools)))
        return policy(messages, tools)

    return answer


def _note_taker(messages, tools):
    """Writes a note, appends to it, and ends the day now and then (a vending run with memory modules)."""
    said = len([m for m in messages if m["role"] == "assistant"])
    if said % 3 == 0:
        return {"content": "noting", "tool_calls": [{"name": "memory_note", "arguments": {"content": f"n{said}",
                                                                                        "mode": "append"}}]}
    return {"content": None, "tool_calls": [{"name": "task_done", "arguments": {}}]}


@pytest.mark.parametrize(("spec", "policy", "system_changes"), [
    # Two rounds kept: old rounds drop off the front and the marker stands in; the scratchpad changes the system.
    (RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 30, "history_rounds": 2}),
     hostile_policy, True),
    (RunSpec("startup", "reference", "llm", 2, agent_options={"model": "scripted", "max_turns": 20}), greedy_policy,
     False),
    # EcoGym's window of 6 messages, memory recalled into the system prompt.
    (RunSpec("vending", "default", "llm", 1, agent_options={
        "model": "scripted", "max_turns": 25, "history_messages": 6, "memory": ["scratchpad", "window", "episodic"]}),
     _note_taker, True),
], ids=["startup-window", "startup-reference", "vending-memory"])
def test_every_request_is_read_back_as_the_model_received_it(tmp_path, spec, policy, system_changes):
    """Read from the file alone, each request's messages and tools are the ones the model was sent, each matches
    its recorded hash, and after the first each is stored as a delta on the one before."""
    sent: list = []
    run_llm(spec, out=tmp_path, client=ScriptedClient(_seen(policy, sent)))
    rows = _rows(tmp_path)
    requests = read_requests(rows)
    assert has_requests(rows) and len(sent) == len(requests) > 10
    assert sent == [(r.messages, r.tools) for r in requests]
    assert all(r.verified for r in requests)
    assert [r["turn"] for r in rows] == [r.turn for r in requests]
    assert all("base" in r["sent"] for r in rows[1:])
    assert system_changes == any(isinstance(r["sent"]["parts"][0], int) for r in rows[1:])
    added = sum(p for r in rows for p in r["sent"]["parts"] if isinstance(p, int))
    assert added < sum(len(r.messages) for r in requests) / 2  # most of each history is named, not stored again


def test_the_memory_and_scratchpad_at_each_call_are_read_back(tmp_path):
    """The notes at each call and what was recalled into its system prompt; the world's scratchpad at the call."""
    spec = RunSpec("vending", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 7,
                                                                   "memory": ["scratchpad", "window"]})
    run_llm(spec, out=tmp_path, client=ScriptedClient(_note_taker))
    requests = read_requests(_rows(tmp_path))
    assert ["", "n0", "n0", "n0", "n0\nn3", "n0\nn3", "n0\nn3"] == [r.memory["notes"] for r in requests]
    assert all(["scratchpad", "window"] == r.memory["modules"] for r in requests)
    for r in requests:
        assert all(item["text"][:200] in r.messages[0]["content"] for item in r.memory["recalls"])
    rows = _rows(tmp_path)
    changed = [i == 0 or r.memory != requests[i - 1].memory for i, r in enumerate(requests)]
    assert changed == ["memory" in r["sent"] for r in rows]  # stored when it changes, carried otherwise
    run = tmp_path / "startup"
    run_llm(RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 4}), out=run,
            client=ScriptedClient(hostile_policy))
    pads = [r.scratchpad for r in read_requests(_rows(run))]
    assert "" == pads[0] and pads[1].startswith("</script>")
    assert pads[1] in read_requests(_rows(run))[1].messages[0]["content"]


def test_a_world_roles_calls_are_read_back_too(tmp_path):
    """The freelance LLM auditor's calls stand alone in the log, each read back and verified."""
    from bizsim.agents.llm import LLMAgentConfig

    spec = RunSpec("freelance", agent="llm", seed=3,
                   agent_options={**LLMAgentConfig(model="scripted", max_turns=12).to_dict(), "auditor": "llm"})
    sent: list = []
    run_llm(spec, out=tmp_path, client=ScriptedClient(_seen(freelancer, sent)))
    requests = read_requests(_rows(tmp_path))
    roles = [r for r in requests if r.role == "auditor"]
    assert roles and all(r.verified for r in requests)
    assert sent == [(r.messages, r.tools) for r in requests]


def test_a_resumed_run_stores_the_requests_an_uninterrupted_one_does(tmp_path):
    """Cut mid-run, and after a failed call: the resumed log's requests equal the uninterrupted log's."""
    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 24,
                                                                   "history_rounds": 3})
    run_llm(spec, out=tmp_path / "whole", client=ScriptedClient(greedy_policy))
    whole = _rows(tmp_path / "whole")
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "run.json").write_text((tmp_path / "whole" / "run.json").read_text())
    lines = (tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines(keepends=True)
    (cut / "llm_calls.jsonl").write_text("".join(lines[:11]))
    resume_llm(cut, client=ScriptedClient(greedy_policy))
    assert [r["sent"] for r in whole] == [r["sent"] for r in _rows(cut)]
    # A call that fails ends the run; the resume asks it again, building on the same turn before it.
    failed = tmp_path / "failed"
    down = ScriptedClient(greedy_policy, faults=lambda i: FatalModelError("down") if i == 9 else None)
    run_llm(spec, out=failed, client=down)
    resume_llm(failed, client=ScriptedClient(greedy_policy))
    rows = _rows(failed)
    assert [False] == [r["ok"] for r in rows if not r["ok"]] and len(whole) + 1 == len(rows)
    assert [r["sent"] for r in whole] == [r["sent"] for r in rows if r["ok"]]
    requests = read_requests(rows)
    assert all(r.verified for r in requests) and requests[9].messages == requests[10].messages


@given(conversations())
def test_any_conversation_reads_back_as_written(requests):
    """Whatever the messages (hostile text, repeats, a changed system prompt, history dropped from the front), each
    request decoded from its delta is the request encoded, and what one decode keeps for the next is what the
    encoder kept."""
    base = back = None
    for turn, messages in enumerate(requests, 1):
        digests = [message_digest(m) for m in messages]
        sent, base_now = encode(base, turn - 1, messages, digests, model="m", params={"temperature": 0},
                                tools=[{"t": 1}], tools_digest=canonical_digest([{"t": 1}]), t_us=turn)
        sent = json.loads(json.dumps(sent))  # as the log holds it
        back = decode(back, sent)
        assert base_now.texts == back.texts
        # JSON cannot tell a lone high and a lone low surrogate side by side from the one character they spell:
        # such a message reads back as that character (and its request as unverified).
        if json.loads(json.dumps(messages)) == messages:
            assert messages == back.messages and digests == back.digests
            assert back.request_digest() == base_now.request_digest()
        base = base_now


@pytest.fixture(scope="module")
def short_run(tmp_path_factory) -> Path:
    """A twelve-turn startup run."""
    out = tmp_path_factory.mktemp("rec") / "run"
    run_llm(RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 12}), out=out,
            client=ScriptedClient(greedy_policy))
    return out


def _bomb() -> str:
    packer = zlib.compressobj()
    chunk = b" " * 2**20
    data = b"".join(packer.compress(chunk) for _ in range(MAX_ADDED_BYTES // len(chunk) + 2)) + packer.flush()
    return base64.b64encode(data).decode()


def test_reading_requests_needs_no_llm_harness(short_run):
    """The reader rebuilds a run's requests in a process that never imports bizsim.agents.llm."""
    code = (
        "import json, sys\n"
        "from bizsim.runs.llm_record import read_requests\n"
        f"rows = [json.loads(line) for line in open({str(short_run / 'llm_calls.jsonl')!r})]\n"
        "print(sum(r.verified for r in read_requests(rows)), [m for m in sys.modules if m.startswith('bizsim.agents')])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "12 []" == done.stdout.strip()


@pytest.mark.parametrize(("damage", "message"), [
    (lambda rows: rows[3]["sent"].update(base=1), "builds on turn 1, whose request is not before it"),
    (lambda rows: rows[3]["sent"].update(parts=[[0, 999]]), "neither a slice of its base's messages"),
    (lambda rows: rows[3]["sent"].update(parts=[[0, 2], "x"]), "neither a slice"),
    (lambda rows: rows[3]["sent"].update(added="not base64!"), "cannot be read"),
    # Added messages deflated against another base's dictionary.
    (lambda rows: rows[3]["sent"].update(added=rows[5]["sent"]["added"]), "cannot be read"),
    (lambda rows: rows[0]["sent"].update(added=_bomb()), "inflate past"),
    (lambda rows: rows[3]["sent"].update(v=99), "format 99 is not one this bizsim reads"),
    (lambda rows: rows[3].pop("sent"), "holds no request"),
], ids=["base", "slice", "part", "base64", "dictionary", "bomb", "version", "missing"])
def test_a_damaged_record_is_a_clear_error_naming_it(short_run, damage, message):
    """Every way a record can be damaged is a ConfigError naming the record and the rule, never a crash or a guess;
    a record edited to another request reads back unverified."""
    rows = _rows(short_run)
    damage(rows)
    with pytest.raises(ConfigError, match="chat record") as err:
        read_requests(rows)
    assert message in str(err.value)


def test_an_edited_request_reads_back_unverified(short_run):
    """A record whose stored request was swapped for another's reads back, marked as not matching its hash."""
    rows = _rows(short_run)
    rows[-1]["sent"]["params"] = {"temperature": 2}
    assert [True] * 11 + [False] == [r.verified for r in read_requests(rows)]
    with pytest.raises(ConfigError, match="max_messages"):
        read_requests(_rows(short_run), max_messages=20)


@pytest.mark.parametrize("module", [bizsim.runs.llm_record, bizsim.simcore.request_delta])
def test_doctests(module):
    """The examples in the reader's docstrings run and hold."""
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert 0 == failed
