"""`bizsim mcp`, driven by the official `mcp` client over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from bizsim.analysis.verify import verify_run_dir
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from ._greedy_client import play_greedy_async

GREEDY_SEED_1_CENTS = 42_029_521  # bizsim's own greedy run, startup preset default, seed 1 ($420,295.21)
CLIENT = Implementation(name="greedy-test-client", version="1.2.3")


def _stdio(out, *extra):
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "bizsim.cli", "mcp", "startup", "--seed", "1", "--out", str(out), *extra])


async def _play(client, limit=None):
    async def call(command, arguments):
        result = await client.call_tool(command.replace(" ", "_"), arguments)
        assert result.is_error == ("error" in result.structured_content)
        assert json.loads(result.content[0].text) == result.structured_content  # the same object, twice
        return result.structured_content

    return await play_greedy_async(call, limit)


def _result(out):
    return json.loads((out / "result.json").read_text())


@pytest.mark.slow
def test_a_greedy_year_over_stdio_ends_with_bizsims_greedy_funds(tmp_path):
    """The official client plays the greedy year through the tools; funds, verify and the client's name hold."""
    out = tmp_path / "run"

    async def main():
        async with Client(_stdio(out), client_info=CLIENT) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {"sim_resume", "task_accept", "market_browse"} <= set(tools)
            assert "bot_take" not in tools  # a built-in agent's hidden command is no tool
            assert ["task_id"] == tools["task_accept"].input_schema["required"]
            assert tools["task_accept"].description.startswith("task accept --task-id TASK_ID")
            prompt = await client.get_prompt("system_prompt")
            assert "yc-bench" in prompt.messages[0].content.text
            rules = (await client.read_resource("bizsim://rules")).contents[0].text
            assert "`sim resume`" in rules
            refused = await client.call_tool("task_accept", {"task_id": "Task-404"})
            assert refused.is_error and "not found" in refused.structured_content["error"]
            await _play(client)
            now = json.loads((await client.read_resource("bizsim://result")).contents[0].text)
            assert (GREEDY_SEED_1_CENTS, "horizon_end") == (now["final_funds_cents"], now["terminal_reason"])

    anyio.run(main)
    result = _result(out)
    assert (GREEDY_SEED_1_CENTS, "mcp", False) == (result["final_funds_cents"], result["agent"], result["live"]["open"])
    assert [{"name": "greedy-test-client", "version": "1.2.3"}] == result["live"]["clients"]
    found = verify_run_dir(out)
    assert (True, 278) == (found.ok, found.commands), found.problems


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port, proc, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


@pytest.mark.slow
def test_a_greedy_year_over_streamable_http_and_a_stop(tmp_path):
    """Over HTTP on 127.0.0.1 the same year ends with the same funds; SIGTERM closes the episode cleanly."""
    out, port = tmp_path / "run", _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", "mcp", "startup", "--seed", "1", "--out", str(out),
                             "--http", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, proc)

        async def main():
            async with Client(f"http://127.0.0.1:{port}/mcp", client_info=CLIENT) as client:
                await _play(client)

        anyio.run(main)
        assert GREEDY_SEED_1_CENTS == _result(out)["final_funds_cents"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    result = _result(out)
    assert (False, "horizon_end") == (result["live"]["open"], result["terminal_reason"])
    assert verify_run_dir(out).ok


def test_a_server_killed_mid_year_leaves_a_verifiable_run(tmp_path):
    """SIGKILL after 40 answered calls: the directory holds those calls, and `verify` passes on it."""
    out = tmp_path / "run"

    async def main():
        with pytest.raises(BaseException):  # noqa: B017 - whatever the client raises once its server is gone
            async with Client(_stdio(out), client_info=CLIENT) as client:
                assert 40 == await _play(client, limit=40)
                os.kill(int((out / "live.lock").read_text()), signal.SIGKILL)
                await _play(client, limit=1)

    anyio.run(main)
    result = _result(out)
    assert (40, "agent_stopped", True) == (result["turns"], result["terminal_reason"], result["live"]["open"])
    found = verify_run_dir(out)
    assert (True, 40) == (found.ok, found.commands), found.problems
