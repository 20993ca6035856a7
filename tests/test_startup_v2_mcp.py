"""A client plays a startup-v2 year through `bizsim mcp` (the official mcp client, over stdio)."""

from __future__ import annotations

import json
import sys

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from bizsim.runs.verify import verify_run_dir  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from ._greedy_client import play_greedy_async  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("startup_v2_mcp")]


def test_a_v2_year_over_stdio_hires_plays_and_verifies(tmp_path):
    """The labour market's commands are tools; a hire made through one starts, the greedy client plays the year
    (disruptions off with --set, so its fixed roster holds), and the recorded run verifies."""
    out = tmp_path / "run"
    server = StdioServerParameters(command=sys.executable, args=[
        "-m", "bizsim.cli", "mcp", "startup-v2", "--seed", "1", "--set", "disruptions.enabled=false", "--out", str(out)])

    async def call(client, command, arguments):
        result = await client.call_tool(command.replace(" ", "_"), arguments)
        return result.structured_content

    async def main():
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"employee_candidates", "employee_hire", "employee_fire"} <= tools
            prompt = (await client.get_prompt("system_prompt")).messages[0].content.text
            assert "employee hire" in prompt
            hired = await call(client, "employee hire", {"candidate": "Cand-1"})
            assert "Emp_9" == hired["employee"]
            await play_greedy_async(lambda c, a: call(client, c, a))

    anyio.run(main)
    result = json.loads((out / "result.json").read_text())
    assert ("startup-v2", "horizon_end") == (result["benchmark_id"], result["terminal_reason"])
    events = (out / "trajectory.jsonl").read_text()
    assert '"employee_started"' in events and '"employee_ramp"' in events
    found = verify_run_dir(out)
    assert found.ok, found.problems
    from bizsim.view.run_data import run_data

    shown = {m["name"] for m in run_data(out)["markers"]}  # the viewer marks the new events and the hire
    assert {"employee hire", "employee_started", "employee_ramp"} <= shown
