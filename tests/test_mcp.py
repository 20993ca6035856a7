"""`bizsim mcp`, driven by the official `mcp` client over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from bizsim.runs.verify import verify_run_dir
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
                assert GREEDY_SEED_1_CENTS == _result(out)["final_funds_cents"]
                proc.send_signal(signal.SIGTERM)  # while the client is still connected
                assert 0 == await anyio.to_thread.run_sync(proc.wait, 60)

        anyio.run(main)
    finally:
        if proc.poll() is None:
            proc.kill()
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


def _serve_http(out, port, *extra):
    proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", "mcp", "startup", "--seed", "1", "--out", str(out),
                             "--http", str(port), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_port(port, proc)
    return proc


def _run_then_reap(main: Any, proc: subprocess.Popen) -> None:
    """Run the async ``main``; whatever happens, leave no server process behind."""
    try:
        anyio.run(main)
    finally:
        if proc.poll() is None:
            proc.kill()


def _exits_by_itself(proc, timeout=15.0):
    """The server's exit status, once it has stopped by itself (it is killed, and the test fails, if it does not)."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"the server still runs {timeout} s after its client left: {proc.communicate()}") from None


def _messages(exc):
    """Every message in an exception and the groups around it (the SDK's client raises from a task group)."""
    if isinstance(exc, BaseExceptionGroup):
        return [m for e in exc.exceptions for m in _messages(e)]
    return [str(exc)]


async def _refused(url, **options):
    with anyio.fail_after(20):  # an error, not a hang
        with pytest.raises(BaseException) as caught:  # the SDK's client raises it from inside task groups
            async with Client(url, **options) as client:
                await client.list_tools()  # a client pinned to a version sends nothing before its first request
    return " ".join(_messages(caught.value))


@pytest.mark.parametrize("given", ["/dev/null", "file"])
def test_over_stdio_input_that_is_no_pipe_ends_the_episode_not_hangs(tmp_path, given):
    """Standard input from /dev/null or a file (which the event loop cannot watch) is read in a thread: its end
    ends the episode as a client leaving does, at once, never a hang."""
    source = tmp_path / "input"
    source.write_bytes(b"")
    out = tmp_path / "run"
    with open("/dev/null" if given == "/dev/null" else source, "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "bizsim.cli", "mcp", "operation", "--out", str(out)],
                              stdin=stdin, capture_output=True, text=True, timeout=60)
    assert 0 == done.returncode, done.stderr
    record = json.loads((out / "result.json").read_text())
    assert ("agent_stopped", "client disconnected") == (record["terminal_reason"], record["terminal_detail"])


def test_over_http_a_port_in_use_is_refused_before_the_run_directory_is_touched(tmp_path):
    """The address is taken first: a busy port is exit 2 with one line, and no episode is opened or closed."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "bizsim.cli", "mcp", "startup", "--out", str(tmp_path / "run"),
                               "--http", str(port)], capture_output=True, text=True, timeout=60)
    assert (2, False) == (done.returncode, (tmp_path / "run").exists()), done.stderr
    assert f"cannot serve MCP on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def test_over_http_the_clients_leaving_ends_the_episode_and_the_server(tmp_path):
    """Over HTTP the session that plays owns the episode: others are refused; its close ends the run, and the server."""
    out, port = tmp_path / "run", _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    proc = _serve_http(out, port)

    async def main():
        # DNS rebinding: a request addressed to another name is refused before it can open a session
        rebound = urllib.request.Request(url, data=b"{}", method="POST", headers={
            "Host": "evil.example", "Content-Type": "application/json", "Accept": "application/json"})
        with pytest.raises(urllib.error.HTTPError, match="421"):
            urllib.request.urlopen(rebound, timeout=20)
        async with Client(url, client_info=CLIENT) as client:  # mode "auto": falls back to the session handshake
            assert 5 == await _play(client, limit=5)
            assert "played by another MCP session" in await _refused(url)
            assert "sessions" in await _refused(url, mode="2026-07-28")  # a sessionless exchange: -32022
            assert 6 == await _play(client, limit=6)  # the owner plays on
        assert 0 == _exits_by_itself(proc)
        with anyio.fail_after(20):
            with pytest.raises(BaseException):  # noqa: B017 - nobody listens any more
                async with Client(url):
                    pass

    _run_then_reap(main, proc)
    result = _result(out)
    assert (11, "agent_stopped", "client disconnected", False) == (
        result["turns"], result["terminal_reason"], result["terminal_detail"], result["live"]["open"])
    assert [{"name": "greedy-test-client", "version": "1.2.3"}] == result["live"]["clients"]
    found = verify_run_dir(out)
    assert (True, 11) == (found.ok, found.commands), found.problems


@pytest.mark.parametrize("close", [True, False], ids=["closes-its-session", "goes-silent"])
def test_over_http_a_client_that_only_looks_ends_the_episode_too(tmp_path, close):
    """A client that lists the tools and leaves, closing its session or going silent (the idle timeout), ends it."""
    from mcp.client.streamable_http import streamable_http_client

    out, port = tmp_path / "run", _free_port()
    proc = _serve_http(out, port, "--idle-timeout", "1")

    async def main():
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(streamable_http_client(url, terminate_on_close=close), client_info=CLIENT) as client:
            assert "task_accept" in {t.name for t in (await client.list_tools()).tools}
        assert 0 == _exits_by_itself(proc)

    _run_then_reap(main, proc)
    result = _result(out)
    detail = "client disconnected" if close else "client disconnected (its session was idle for 1 s)"
    assert (0, "agent_stopped", detail, False) == (
        result["turns"], result["terminal_reason"], result["terminal_detail"], result["live"]["open"])
    assert [{"name": "greedy-test-client", "version": "1.2.3"}] == result["live"]["clients"]  # who looked
    found = verify_run_dir(out)
    assert (True, 0) == (found.ok, found.commands), found.problems


def test_over_http_an_ended_episode_refuses_every_request_at_once(tmp_path):
    """Between the episode's end and the server's exit, a client gets an error naming the end, not a hang."""
    import threading

    import uvicorn
    from bizsim.runs.live import Episode
    from bizsim.surfaces.mcp_server import build_server
    from bizsim.surfaces.mcp_session_gate import SessionGate

    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with Episode("startup", "default", 1, out=tmp_path / "run", surface="mcp") as episode:
        stops = []
        gate = SessionGate(build_server(episode).streamable_http_app(session_idle_timeout=None), episode,
                           lambda: stops.append(1))
        server = uvicorn.Server(uvicorn.Config(gate, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            while not server.started:
                time.sleep(0.02)

            async def main():
                async with Client(url, client_info=CLIENT) as client:
                    assert not (await client.call_tool("company_status", {})).is_error
                    gate.end("server test ended it")  # as the owner's close does, but the server keeps listening
                    gate.end("twice")  # once only
                    assert "The episode has ended (server test ended it)" in await _refused(url)
                    with pytest.raises(Exception, match="The episode has ended"):
                        await client.call_tool("company_status", {})

            anyio.run(main)
        finally:
            server.should_exit = True
            thread.join(timeout=30)
        assert ([1], True) == (stops, episode.closed)
    result = _result(tmp_path / "run")
    assert (1, "server test ended it") == (result["turns"], result["terminal_detail"])
    assert verify_run_dir(tmp_path / "run").ok


def test_over_http_a_server_stopped_mid_session_says_so(tmp_path):
    """SIGTERM while the client's session is open: the run ends as 'server stopped', not as the client leaving."""
    out, port = tmp_path / "run", _free_port()
    proc = _serve_http(out, port)

    async def main():
        async with Client(f"http://127.0.0.1:{port}/mcp", client_info=CLIENT) as client:
            assert 3 == await _play(client, limit=3)
            proc.send_signal(signal.SIGTERM)
            assert 0 == await anyio.to_thread.run_sync(proc.wait, 30)

    _run_then_reap(main, proc)
    result = _result(out)
    assert (3, "agent_stopped", "server stopped", False) == (
        result["turns"], result["terminal_reason"], result["terminal_detail"], result["live"]["open"])
    assert verify_run_dir(out).ok
