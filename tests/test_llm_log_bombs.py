"""Bounds that hold for a whole ``llm_calls.jsonl``, not only for each record. A 529 KB crafted log (turn 1 adds
100,000 tiny messages; each later record names them all again) made ``bizsim view`` run 240 s, hold 2.2 GB and
write a 649 MB page; a 422 KB one adding 5.2 million messages in one record ran past 600 s. Both are now refused or
shown bounded, in seconds."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

from bizsim.agents.llm import ScriptedClient, reply
from bizsim.runs.llm_record import iter_requests
from bizsim.runs.llm_run import run_llm
from bizsim.runs.runspec import RunSpec
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.request_delta import MAX_REQUEST_MESSAGES, decode
from bizsim.view.llm_requests import MAX_PAGE_MESSAGES

from ._hang_guard import no_hang

#: Generous: the fixed code needs a few seconds and a few hundred MB; before, minutes and gigabytes.
BUDGET_S = 60.0
MAX_RSS_BYTES = 1_200 * 2**20
_TINY = b'{"role":"user","content":""}'


def _deflated(count: int) -> str:
    return base64.b64encode(zlib.compress(b"[" + b",".join([_TINY] * count) + b"]", 9)).decode()


def _record(turn: int, sent: dict, response: dict) -> str:
    return json.dumps({"kind": "chat", "ok": True, "episode": 1, "turn": turn, "sent": sent, "request": "0" * 64,
                       "response": response}, separators=(",", ":")) + "\n"


def crafted_log(response: dict, size: int = 529_000) -> str:
    """Turn 1 adds 100,000 tiny messages; every later record names all of them again, as a slice of its base."""
    lines = [_record(1, {"v": 1, "parts": [100_000], "added": _deflated(100_000), "t_us": 0}, response)]
    total, turn = len(lines[0]), 2
    while total < size:
        lines.append(_record(turn, {"v": 1, "base": turn - 1, "parts": [[0, 100_000]], "t_us": 0}, response))
        total += len(lines[-1])
        turn += 1
    return "".join(lines)


@pytest.fixture(scope="module")
def bombed(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("bomb") / "run"
    run_llm(RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 3}),
            out=run, client=ScriptedClient([reply("yc-bench company status")] * 3))
    first = json.loads((run / "llm_calls.jsonl").read_text().splitlines()[0])
    text = crafted_log(first["response"])
    assert 500_000 < len(text) < 560_000 and text.count("\n") > 900
    (run / "llm_calls.jsonl").write_text(text)
    return run


def test_the_whole_log_is_bounded_not_only_each_record(bombed):
    """Reading stops once the requests hold more messages in all than the bound, with the record named."""
    rows = [json.loads(line) for line in (bombed / "llm_calls.jsonl").read_text().splitlines()]
    with no_hang("iterating a crafted log", BUDGET_S), pytest.raises(ConfigError, match=r"chat record 6 .*more than "
                                                                                          r"max_messages\(=500,000\)"):
        for _ in iter_requests(rows, max_messages=MAX_PAGE_MESSAGES):
            pass


def _child_peak(code: str) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``code`` in a fresh interpreter; its result and its own peak resident memory in bytes.

    The peak is the one ``wait4`` reports for this child alone: ``RUSAGE_CHILDREN`` holds the largest peak of every
    child this process ever waited for (in a whole-suite run, an earlier test's mypy or notebook kernel).
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=err, text=True)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # no_hang's alarm: the child does not outlive the test
            proc.kill()
            proc.wait()
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out.read(), err.read())
    return done, usage.ru_maxrss * 1024  # ru_maxrss is in kB on Linux


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="peak memory read as Linux reports it")
def test_the_viewer_shows_a_crafted_log_bounded_in_time_memory_and_page_size(bombed, tmp_path):
    page = tmp_path / "page.html"
    code = f"from bizsim.view import write_view; write_view([{str(bombed)!r}], {str(page)!r})"
    with no_hang("viewing a crafted log", BUDGET_S):
        done, peak = _child_peak(code)
    assert 0 == done.returncode, done.stderr[-2000:]
    assert peak < MAX_RSS_BYTES
    assert page.stat().st_size < 100 * 2**20  # was 649 MB
    assert "more than max_messages(=500,000) messages in all" in page.read_text(encoding="utf-8")


def test_verify_refuses_a_crafted_log_in_seconds(bombed, tmp_path):
    from bizsim.runs.verify import verify_run_dir

    with no_hang("verifying a crafted log", BUDGET_S):
        problems = verify_run_dir(bombed).problems
    assert any("the stored request does not have the hash" in p for p in problems), problems


def test_one_record_adding_millions_of_messages_is_refused_before_they_are_parsed():
    """5.2 million tiny messages inflate to just under 64 MiB; they were each parsed and hashed before the count
    was checked."""
    count = (64 * 2**20 - 2) // (len(_TINY) + 1)
    sent = {"v": 1, "parts": [count], "added": _deflated(count), "t_us": 0}
    with no_hang("one record of millions of messages", BUDGET_S), \
            pytest.raises(ConfigError, match=f"more messages than one request may hold \\({MAX_REQUEST_MESSAGES:,}\\)"):
        decode(None, sent)
    just_over = MAX_REQUEST_MESSAGES + 1
    with pytest.raises(ConfigError, match=f"adds {just_over:,} messages, more than one request may hold"):
        decode(None, {"v": 1, "parts": [just_over], "added": _deflated(just_over), "t_us": 0})


def test_an_honest_log_is_shown_whole(tmp_path):
    """The bound is far above an honest run's: every request of a real run is read and verified."""
    run = tmp_path / "run"
    run_llm(RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 30}),
            out=run, client=ScriptedClient([reply("yc-bench company status")] * 30))
    rows = [json.loads(line) for line in (run / "llm_calls.jsonl").read_text().splitlines()]
    requests = list(iter_requests(rows, max_messages=MAX_PAGE_MESSAGES))
    assert 30 == len(requests) and all(r.verified for r in requests)
    shutil.rmtree(run)


def test_verify_stops_a_crafted_log_whose_hashes_match_at_the_whole_log_bound(bombed, tmp_path):
    """With every record's hash right (the requests are what they say), the log still holds 94 million message
    references: verify stops at MAX_TOTAL_MESSAGES, naming the record, in seconds (a request repeating its base
    keeps its base's hash instead of hashing 100,000 digests again: that took 22 s of 23)."""
    from bizsim.runs.llm_record import MAX_TOTAL_MESSAGES
    from bizsim.runs.verify import verify_run_dir

    run = tmp_path / "run"
    shutil.copytree(bombed, run)
    rows = [json.loads(line) for line in (run / "llm_calls.jsonl").read_text().splitlines()]
    first = decode(None, rows[0]["sent"])
    repeated = decode(first, rows[1]["sent"]).request_digest()
    for i, row in enumerate(rows):
        row["request"] = first.request_digest() if i == 0 else repeated
    (run / "llm_calls.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    with no_hang("verifying a crafted log with matching hashes", BUDGET_S):
        problems = verify_run_dir(run).problems
    assert any(f"more than max_messages(={MAX_TOTAL_MESSAGES:,})" in p for p in problems), problems
    assert any("turns are out of order, repeated or past the count" in p for p in problems), problems
