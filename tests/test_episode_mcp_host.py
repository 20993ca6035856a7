"""The verifiers 0.4 taskset's tool server: each episode's tools at a URL of its own, played with the official
MCP client (the rollouts themselves run in test_verifiers_v04_native.py, beside verifiers 0.4)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.streamable_http_manager")
httpx = pytest.importorskip("httpx")

from bizsim.runs.live import Episode
from bizsim.surfaces._episode_mcp_host import MAX_TOOL_NAME_CHARS, EpisodeMCPHost

pytestmark = pytest.mark.xdist_group("episode_mcp_host")

#: An interpreter another user may run (the test's own may sit under a home folder only root reads).
PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def host():
    with EpisodeMCPHost() as served:
        yield served


def calls(url: str, *named: tuple[str, dict]) -> tuple[list[str], list[tuple[bool, dict]]]:
    """The tools listed at ``url``, then each call's (is_error, answer), through the official client."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> tuple[list[str], list[tuple[bool, dict]]]:
        async with Client(streamable_http_client(url)) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            answers = []
            for name, arguments in named:
                result = await client.call_tool(name, arguments)
                answers.append((bool(result.is_error), json.loads(result.content[0].text)))
            return tools, answers

    return asyncio.run(run())


def test_each_episode_plays_at_its_own_url_and_every_call_is_a_step(host):
    """Two episodes side by side: each URL lists its world's tools and steps its own episode; a call past the
    window's end is refused without running, and the steps' rewards add up to the metric change."""
    rewards: list[float] = []
    operation, vending = Episode("operation", seed=2, window={"days": 1}), Episode("vending", seed=2)
    url, token = host.add(operation, lambda episode, reward: rewards.append(reward))
    other, _ = host.add(vending, lambda episode, reward: None)
    tools, answers = calls(url, ("creator_incentive", {}), ("task_done", {}), ("task_done", {}))
    assert [d["function"]["name"] for d in operation.tools()] == tools
    assert [False, False, True] == [error for error, _ in answers]
    assert "The episode is over (its window is over); nothing ran." == answers[2][1]["error"]
    assert (2, 1, 0) == (operation.calls, operation.turns, vending.calls)
    assert pytest.approx(operation.metric - operation.start_metric) == sum(rewards) != 0
    assert [d["function"]["name"] for d in vending.tools()] == calls(other)[0]
    host.remove(token)
    assert 404 == httpx.post(url, json={}).status_code


def test_a_stranger_reaches_no_episode(host):
    """A path without a served token, another host name (DNS rebinding) or another site's page is refused, and
    an overlong tool name is refused unread."""
    episode = Episode("operation")
    url, token = host.add(episode, lambda *_: None)
    assert 404 == httpx.post(url.replace(token, "guess"), json={}).status_code
    assert 421 == httpx.post(url, json={}, headers={"Host": "evil.example"}).status_code
    assert 403 == httpx.post(url, json={}, headers={"Origin": "http://evil.example"}).status_code
    _, [(error, answer)] = calls(url, ("x" * (MAX_TOOL_NAME_CHARS + 1), {}))
    assert error and answer["error"].startswith("The tool name is 201 characters long")
    assert 0 == episode.calls


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0 or not Path("/proc/net/tcp").exists()
                    or not Path(PYTHON).exists(), reason="needs root (to run a request as another user) on Linux")
def test_another_user_holding_the_url_is_refused(host):
    """The URL reaches other accounts' process lists (verifiers puts it on the harness's command line), so a
    request from another user's process is refused even with the right token, and nothing steps."""
    episode = Episode("operation")
    url, token = host.add(episode, lambda *_: None)
    call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "creator_incentive", "arguments": {}}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    post = ("import urllib.request, urllib.error\n"
            f"request = urllib.request.Request({url!r}, data={call!r}, headers={headers!r})\n"
            "try:\n    print(urllib.request.urlopen(request, timeout=30).status)\n"
            "except urllib.error.HTTPError as exc:\n    print(exc.code)\n")
    stranger = subprocess.run([PYTHON, "-I", "-c", post], user=65534, capture_output=True, text=True, timeout=60,
                              check=False)
    assert "403" == stranger.stdout.strip(), stranger.stderr[-2000:]
    _, [(error, _answer)] = calls(url, ("creator_incentive", {}))
    assert not error and 1 == episode.calls
    host.remove(token)
