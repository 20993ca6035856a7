"""`bizsim mcp` on an arena: the official `mcp` client plays one seat over stdio against built-in agents, through a
whole short arena; the run directory is the one the same calls make through the Python API, and it verifies."""

from __future__ import annotations

import json
import sys

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from bizsim.runs.live_arena import ArenaEpisode
from bizsim.runs.rundir import RunDir
from bizsim.runs.verify import verify_run_dir
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

CLIENT = Implementation(name="arena-test-client", version="0.1")
DAYS = 9
ARGS = ["vending-arena", "--preset", "small", "--seed", "5", "--set", f"horizon_days={DAYS}",
        "--seat", "planner", "--seat", "markup", "--seat", "mcp"]


def _stdio(out):
    return StdioServerParameters(command=sys.executable, args=["-m", "bizsim.cli", "mcp", *ARGS, "--out", str(out)])


def _logs(root):
    run = RunDir(root)
    return [(s.commands.read_text(), s.trajectory.read_text()) for s in run.seat_dirs()] + [run.trajectory.read_text()]


def test_a_whole_short_vending_arena_over_stdio(tmp_path):
    """The client reads the arena, researches, orders, prices, writes to a rival and ends each day until the arena
    is over; rivals' figures appear only then; the directory equals the API's run of the same calls and verifies."""
    out = tmp_path / "run"
    calls: list[tuple[str, dict]] = []

    async def main():
        async with Client(_stdio(out), client_info=CLIENT) as client:
            async def call(tool, arguments):
                calls.append((tool, arguments))
                result = await client.call_tool(tool, arguments)
                assert json.loads(result.content[0].text) == result.structured_content
                return result

            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"message_send", "money_send", "goods_send", "market_view", "task_done"} <= tools
            resources = {str(r.uri) for r in (await client.list_resources()).resources}
            assert "bizsim://arena" in resources
            prompt = (await client.get_prompt("system_prompt")).messages[0].content.text
            assert "You are seat 2 of 3 (seats 0 to 2) in an arena" in prompt and "`message_send`" in prompt
            arena = json.loads((await client.read_resource("bizsim://arena")).contents[0].text)
            assert (arena["seat"], [p["label"] for p in arena["players"]]) == (2, ["planner", "markup", "mcp"])
            assert arena["standings"] is None
            found = (await call("products_research", {"query": "water"})).structured_content["products"]
            name = found[0]["name"]
            assert not (await call("order_place", {"items": json.dumps([{"name": name, "quantity": 10}])})).is_error
            assert not (await call("price_set", {"product_name": name, "price": 2.5})).is_error
            assert not (await call("message_send", {"to": 0, "text": "hello from seat 2"})).is_error
            view = (await call("market_view", {})).structured_content
            assert "net_worth_cents" not in json.dumps(view)  # a rival's figures are private
            mine = json.loads((await client.read_resource("bizsim://result")).contents[0].text)
            assert "seats" not in mine and mine["agent"] == "mcp" and mine["arena"]["standings"] is None
            for _ in range(DAYS):
                report = await call("task_done", {})
                assert not report.is_error
            ended = await client.call_tool("task_done", {})
            assert ended.is_error and "ended" in ended.structured_content["error"]
            arena = json.loads((await client.read_resource("bizsim://arena")).contents[0].text)
            assert arena["over"] and {s["seat"] for s in arena["standings"]} == {0, 1, 2}

    anyio.run(main)
    result = json.loads((out / "result.json").read_text())
    assert [s["agent"] for s in result["seats"]] == ["planner", "markup", "mcp"]
    assert result["live"]["clients"] == [{"name": "arena-test-client", "version": "0.1"}]
    assert result["terminal_reason"] == "horizon_end" and not result["live"]["open"]
    assert verify_run_dir(out).ok
    api = ArenaEpisode("vending-arena", "small", 5, roster=["planner", "markup", "mcp"],
                       overrides={"horizon_days": DAYS}, out=tmp_path / "api", surface="mcp")
    for tool, arguments in calls:
        api.call_tool(tool, arguments)
    api.close()
    assert _logs(out) == _logs(tmp_path / "api")


def test_a_startup_arena_seat_over_stdio_stops_and_verifies(tmp_path):
    """A company among rivals: its arena commands are tools; the client leaves mid-year and the run verifies."""
    out = tmp_path / "run"

    async def main():
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "bizsim.cli", "mcp", "startup-arena", "--seed", "2", "--seat", "mcp", "--seat", "greedy",
            "--out", str(out)])
        async with Client(params, client_info=CLIENT) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"arena_companies", "message_send", "finance_transfer", "sim_resume"} <= tools
            companies = (await client.call_tool("arena_companies", {})).structured_content
            assert len(companies["companies"]) == 2
            assert not (await client.call_tool("message_send", {"to": 1, "text": "hi"})).is_error

    anyio.run(main)
    result = json.loads((out / "result.json").read_text())
    assert result["terminal_reason"] == "agent_stopped" and result["live"]["calls"] == 2
    assert verify_run_dir(out).ok


@pytest.mark.parametrize("argv, words", [
    (["mcp", "vending-arena"], "is an arena: give each seat"),
    (["mcp", "vending-arena", "--seat", "human", "--seat", "planner"], "a seat bizsim play plays"),
    (["mcp", "vending-arena", "--seat", "mcp", "--seat", "mcp"], "are all 'mcp'"),
    (["mcp", "startup-arena", "--seat", "mcp", "--seat", "greedy", "--seat", "greedy", "--seat", "greedy",
      "--seat", "greedy"], "seats 2 to 4 agents"),
    (["serve", "vending-arena"], "cannot host one of its seats"),
    (["mcp", "startup", "--seat", "mcp"], "has no seats"),
])
def test_clear_refusals_on_the_command_line(tmp_path, capsys, argv, words):
    from bizsim.cli.main import main

    assert 2 == main([*argv, "--out", str(tmp_path / "r")])
    assert words in capsys.readouterr().err
    assert not (tmp_path / "r" / "result.json").exists()
