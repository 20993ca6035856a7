"""A client plays a startup-v2 year through bizsim's MCP server (the official mcp client, in-memory transport).

The stdio and HTTP transports are v1's, tested in tests/test_mcp.py; what v2 adds is tools, a prompt and events.
"""

from __future__ import annotations

import json

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from bizsim.runs.live import Episode  # noqa: E402
from bizsim.runs.verify import verify_run_dir  # noqa: E402
from bizsim.surfaces.mcp_server import build_server  # noqa: E402
from mcp import Client  # noqa: E402

from ._greedy_client import play_greedy_async  # noqa: E402


def test_a_v2_year_over_mcp_hires_plays_and_verifies(tmp_path):
    """The labour market's commands are tools; a hire made through one starts, the greedy client plays the year
    (disruptions off, so its fixed roster holds), and the recorded run verifies and shows the new events."""
    out = tmp_path / "run"

    async def call(client, command, arguments):
        result = await client.call_tool(command.replace(" ", "_"), arguments)
        return result.structured_content

    async def main(server):
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"employee_candidates", "employee_hire", "employee_fire"} <= tools
            prompt = (await client.get_prompt("system_prompt")).messages[0].content.text
            assert "employee hire" in prompt
            hired = await call(client, "employee hire", {"candidate": "Cand-1"})
            assert "Emp_9" == hired["employee"]
            await play_greedy_async(lambda c, a: call(client, c, a))

    with Episode("startup-v2", "default", 1, out=out, surface="mcp",
                 overrides={"disruptions": {"enabled": False}}) as episode:
        anyio.run(main, build_server(episode))
    result = json.loads((out / "result.json").read_text())
    assert ("startup-v2", "horizon_end") == (result["benchmark_id"], result["terminal_reason"])
    events = (out / "trajectory.jsonl").read_text()
    assert '"employee_started"' in events and '"employee_ramp"' in events
    found = verify_run_dir(out)
    assert found.ok, found.problems
    from bizsim.view.run_data import run_data

    shown = {m["name"] for m in run_data(out)["markers"]}  # the viewer marks the new events and the hire
    assert {"employee hire", "employee_started", "employee_ramp"} <= shown
