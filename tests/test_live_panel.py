"""The live terminal panel of an LLM run: what it shows matches the run directory; agent text cannot drive the terminal."""

from __future__ import annotations

import io
import json

from rich.console import Console

from bizsim.agents.llm.scripted import ScriptedClient
from bizsim.analysis.labels import dollars
from bizsim.runs.llm_run import run_llm
from bizsim.runs.runspec import RunSpec
from bizsim.cli.live_panel import LivePanel, printable

from .llm_policies import greedy_policy


def test_the_panel_shows_turn_date_funds_tokens_and_last_command(tmp_path):
    """After a short run the panel reads exactly what the run wrote: turns, tokens, final funds, last command."""
    out = tmp_path / "run"
    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 10})
    with LivePanel(out, console=console) as panel:
        result = run_llm(spec, out=out, client=ScriptedClient(greedy_policy), on_stop=panel.on_stop)
    console.print(panel.render())
    text = console.export_text()
    calls = [json.loads(line) for line in (out / "llm_calls.jsonl").read_text().splitlines()]
    last = json.loads((out / "agent_commands.jsonl").read_text().splitlines()[-1])
    assert 10 == panel.turn == len(calls)
    assert sum(c["response"]["usage"]["total_tokens"] for c in calls) == panel.tokens
    assert f"{panel.tokens:,}" in text and last["line"] in text
    assert f"Funds (dollars): {dollars(result.episode.final_funds_cents)}" in text
    assert result.episode.final_world.now_iso[:10] in text


def test_agent_text_cannot_send_escape_sequences():
    """Control and bidirectional characters in a command line are blanked; long lines are cut."""
    shown = printable("task accept\x1b]0;pwned\x07\u202e --task-id " + "x" * 500)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert 100 == len(shown) and shown.endswith("…")


def test_the_panel_shows_the_start_before_time_first_moves(tmp_path):
    """A model that reads before it advances: the panel shows the start's date and funds, not "starting" and "-"."""
    from bizsim.agents.llm import reply

    out = tmp_path / "run"
    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 3})
    with LivePanel(out, console=console) as panel:
        run_llm(spec, out=out, client=ScriptedClient([reply("yc-bench company status")] * 3), on_stop=panel.on_stop)
    console.print(panel.render())
    text = console.export_text()
    assert "2025-01-01 09:00" in text and f"Funds (dollars): {dollars(20_000_000)}" in text
    assert "starting" not in text


def test_the_panel_counts_turns_as_the_record_does(tmp_path):
    """A call refused for good (a 401 on the third request) is shown as a failed call, not as a turn: the panel's
    turn count is result.json's."""
    from .llm_server import LoopbackLLMServer, require_litellm

    require_litellm()
    out = tmp_path / "run"
    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    with LoopbackLLMServer(greedy_policy, faults={2: "401"}) as server:
        spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "hosted_vllm/greedy",
                                                                      "api_base": server.url, "max_turns": 6})
        with LivePanel(out, console=console) as panel:
            run_llm(spec, out=out, on_stop=panel.on_stop, sleep=lambda s: None)
    console.print(panel.render())
    turns = json.loads((out / "result.json").read_text())["turns"]
    assert (2, 2, 1) == (turns, panel.turn, panel.errors)
    assert "(1 failed calls)" in console.export_text()
