"""Hostile input on the live surfaces and the command line: `bizsim mcp` over stdio answers every request it
reads, whatever the line holds, and writes every answer before it exits."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bizsim.analysis.verify import verify_run_dir

pytestmark = pytest.mark.fuzz


def _init(ident: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "hostile", "version": "1"}}}


def _call(ident, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _mcp_stdio(out, lines: list[str], timeout: float = 120) -> list[dict]:
    """Feed ``lines`` to `bizsim mcp startup` over stdio, then end its input; the answers it wrote."""
    done = subprocess.run([sys.executable, "-m", "bizsim.cli", "mcp", "startup", "--seed", "1", "--out", str(out)],
                          input="".join(line + "\n" for line in lines).encode(), capture_output=True, timeout=timeout)
    assert 0 == done.returncode, done.stderr.decode()[-2000:]
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def test_mcp_stdio_answers_every_request_however_malformed(tmp_path):
    """A lone surrogate, 300 levels of nesting, an object as id, a line over 16 MiB and text that is not JSON were
    never answered (the official client waited forever); each now gets an answer, the request's id when it
    can be read, and a call followed at once by the end of input is answered too."""
    pytest.importorskip("mcp")
    deep = '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "x", "arguments": ' + \
        '{"a": ' * 300 + "1" + "}" * 300 + "}}"
    long_line = json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                            "params": {"name": "company_status", "arguments": {"x": "y" * (17 * 2**20)}}})
    lines = [
        json.dumps(_init()),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a\\ud800b", "arguments": {}}}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "task_inspect", '
        '"arguments": {"task_id": "a\\ud800b"}}}',
        deep,
        '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}',
        long_line,
        "{not json",
        json.dumps(_call(7, "company_status", {})),
    ]
    answers = _mcp_stdio(tmp_path / "run", lines)
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert [1, 2, 3, 4, 6, 7] == sorted(by_id)
    assert 2 == sum(a["id"] is None for a in answers)  # the object id and the text that is not JSON
    assert {-32700} == {by_id[i]["error"]["code"] for i in (4, 6)}
    assert "longer than the limit of 16,777,216 bytes" in by_id[6]["error"]["message"]
    assert {-32600, -32700} == {a["error"]["code"] for a in answers if a["id"] is None}
    assert by_id[3]["result"]["isError"] and "\ufffd" in json.dumps(by_id[3]["result"], ensure_ascii=False)
    assert not by_id[7]["result"]["isError"]  # the last call, read just before the end of input, is answered
    assert verify_run_dir(tmp_path / "run").ok


def test_the_message_screen_finds_an_id_only_at_the_top_level():
    """The id of an unreadable message is looked up at its top level, skipping nested values and strings."""
    pytest.importorskip("mcp")
    from bizsim.analysis.mcp_stdio import screen_line

    text = b'{"params": {"id": 9, "s": "\\"}{"}, "id": "req-1", "method": "x", "more": ' + b"[" * 200
    assert "req-1" == screen_line(text)[1]["id"]
    assert screen_line(b'{"params": {"id": 9}, "method": "x", ' + b"[" * 200)[1]["id"] is None
    assert screen_line(b"   \n")  == (None, None)
