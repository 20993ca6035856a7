"""``bizsim play``'s session and server without a browser: a human run is an ordinary run, and the server is
loopback-only, token-gated and bounded (tests/test_play_browser.py plays the page itself)."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest
from bizsim.runs.live import Episode
from bizsim.runs.observation import metric_of
from bizsim.runs.rundir import read_record
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError
from bizsim.surfaces.play import MAX_NOTES_CHARS, MAX_REQUEST_BYTES, PlaySession, PlayServer

SHORT = {"horizon_days": 6}  # a whole Operation episode in a dozen calls
OPERATION_PLAY = ["acquisition_boost", "task_done", "creator_incentive", "task_done", "engagement_tune", "task_done"]


def _request(server, method, path, body=None, *, token=True, headers=None):
    """One HTTP request to ``server``; ``(status, JSON answer or page text)``."""
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    sent = {"Host": parts.netloc, "Content-Type": "application/json"}
    if token:
        sent["X-Bizsim-Token"] = server.token
    sent.update(headers or {})
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    conn.request(method, path, body=data, headers=sent)
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    return resp.status, (json.loads(text) if resp.getheader("Content-Type", "").startswith("application/json") else text)


@pytest.fixture(scope="module")
def startup_server(tmp_path_factory):
    """One startup session served for the module's requests."""
    session = PlaySession("startup", "default", 1, out=tmp_path_factory.mktemp("play") / "run", player="ann")
    with PlayServer(session) as server:
        yield server


def test_resumed_run_equals_the_python_api_and_verifies(tmp_path):
    """Closed mid-episode and resumed, the human run ends as the same commands through Episode, and verifies."""
    out = tmp_path / "run"
    first = PlaySession("operation", "default", 3, out=out, player="Ann <b>", overrides=SHORT)
    for tool in OPERATION_PLAY[:3]:
        assert 0 == first.call(tool, {})["status"]
    first.close()
    wall_before = read_record(out).wall_s
    second = PlaySession.resume(out)
    assert [p[0] for p in second.history] == ["2025-01-01T00:00:00", "2025-01-02T00:00:00"]
    for tool in OPERATION_PLAY[3:] + ["acquisition_boost", "task_done", "moderation_tighten", "task_done",
                                      "creator_incentive", "task_done"]:
        second.call(tool, {})
    assert second.episode.done
    second.close()
    api = Episode("operation", "default", 3, overrides=SHORT)
    for tool in OPERATION_PLAY + ["acquisition_boost", "task_done", "moderation_tighten", "task_done",
                                  "creator_incentive", "task_done"]:
        api.call_tool(tool, {})
    record = read_record(out)
    assert verify_run_dir(out).ok
    assert ("human", "horizon_end", metric_of(api.world)) == (record.agent, record.terminal_reason, record.metric_value)
    assert ("Ann <b>", "play") == (record.live["metadata"]["player"], record.live["surface"])
    assert record.wall_s >= wall_before and record.live["calls"] == 12
    with pytest.raises(ConfigError, match="has ended"):
        PlaySession.resume(out)


def test_a_baseline_run_does_not_resume(tmp_path):
    """Only a live episode resumes; a baseline run says what it is."""
    from bizsim.runs import run_episode

    run_episode("operation", "default", "round-robin", 1, out=tmp_path / "rr")
    with pytest.raises(ConfigError, match="round-robin run, not a live episode"):
        PlaySession.resume(tmp_path / "rr")


def test_the_server_answers_loopback_requests_with_the_token_only(startup_server):
    """No token, a wrong one, another host name, another site's page, a huge or non-JSON body: all refused."""
    srv = startup_server
    assert 403 == _request(srv, "GET", "/state", token=False)[0]
    assert 403 == _request(srv, "GET", "/state", token=False, headers={"X-Bizsim-Token": "x" * 43})[0]
    assert 403 == _request(srv, "GET", "/", token=False)[0]
    assert 200 == _request(srv, "GET", f"/?t={srv.token}", token=False)[0]
    assert 421 == _request(srv, "GET", "/state", headers={"Host": "evil.example:80"})[0]
    assert 403 == _request(srv, "POST", "/call", {"tool": "company_status"},
                           headers={"Origin": "http://evil.example"})[0]
    status, answer = _request(srv, "POST", "/call", b"x", headers={"Content-Length": str(MAX_REQUEST_BYTES + 1)})
    assert 413 == status and f"{MAX_REQUEST_BYTES:,}" in answer["error"]
    assert 400 == _request(srv, "POST", "/call", b"{not json")[0]
    assert 200 == _request(srv, "POST", "/call", {"tool": "company_status"})[0]
    with pytest.raises(ConfigError, match="must be 127.0.0.1"):
        PlayServer(srv.session, host="0.0.0.0")


@pytest.mark.parametrize("tool, arguments, status, words", [
    ("market_browse", {"limit": "ten"}, 2, "--limit of 'market browse' expects an integer"),
    ("market_browse", {"limit": -3}, 2, "must be >= 1"),
    ("task_accept", {"task_id": "Task-999999"}, 1, "Task-999999"),
    ("scratchpad_write", {"content": "x" * 210_000}, 2, "the limit is 200,000"),
    ("no_such_tool", {}, 2, "no_such_tool"),
    ("task_accept", ["Task-1"], 2, "JSON object"),
])
def test_the_server_refuses_bad_input_in_the_worlds_words(startup_server, tool, arguments, status, words):
    """Types, ranges, unknown ids, oversized text and unknown commands come back refused, worded by the world."""
    code, answer = _request(startup_server, "POST", "/call", {"tool": tool, "arguments": arguments})
    assert (200, status) == (code, answer["answer"]["status"])
    assert words in answer["answer"]["result"]["error"]


def test_notes_are_kept_in_the_run_and_bounded(startup_server):
    """The player's notes land in result.json (live.metadata.notes); longer than the limit is refused."""
    assert 200 == _request(startup_server, "POST", "/notes", {"notes": "<script>alert(1)</script> plan"})[0]
    status, answer = _request(startup_server, "POST", "/notes", {"notes": "n" * (MAX_NOTES_CHARS + 1)})
    assert 400 == status and f"{MAX_NOTES_CHARS:,}" in answer["error"]
    record = read_record(startup_server.session.episode.root)
    assert "<script>alert(1)</script> plan" == record.live["metadata"]["notes"]


def test_the_time_limit_ends_the_session(tmp_path):
    """Past its time limit a session is closed: calls are refused and the run says why."""
    session = PlaySession("operation", "default", 1, out=tmp_path / "run", time_limit_s=1e-6)
    answer = session.call("task_done", {})
    assert 2 == answer["status"] and "time limit" in answer["result"]["error"]
    assert "time limit" in read_record(tmp_path / "run").terminal_detail


def test_human_runs_are_their_own_group_in_the_results(tmp_path):
    """load() and the report's headline table put a played run under agent human, beside a baseline."""
    import attrs
    from bizsim.analysis import load
    from bizsim.runs import run_episode
    from bizsim.analysis.report_tables import headline_table
    from bizsim.simcore.registry import world_spec

    played = PlaySession("operation", "default", 1, out=tmp_path / "runs" / "human", overrides=SHORT)
    for tool in OPERATION_PLAY * 2:
        played.call(tool, {})
    played.close()
    config = attrs.evolve(world_spec("operation").preset_table()["default"], **SHORT)
    run_episode("operation", config, "round-robin", 1, out=tmp_path / "runs" / "rr")
    runs = load([tmp_path / "runs" / "human", tmp_path / "runs" / "rr"]).runs
    table = headline_table(runs, ["world", "agent"])
    assert ["human", "round-robin"] == sorted(table["agent"])


def test_the_command_line_says_what_is_missing(tmp_path, capsys):
    """``bizsim play`` without a world, or a world beside --resume, is refused with the fix in the message."""
    from bizsim.cli.main import main

    assert 2 == main(["play", "--no-browser"])
    assert "name a world to play" in capsys.readouterr().err
    assert 2 == main(["play", "operation", "--resume", str(tmp_path), "--no-browser"])
    assert "drop the world" in capsys.readouterr().err


def test_a_killed_server_loses_nothing(tmp_path):
    """Never closed (the process killed: the kernel drops its lock), the run verifies and resumes where it was."""
    out = tmp_path / "run"
    session = PlaySession("operation", "default", 4, out=out, overrides=SHORT)
    for tool in OPERATION_PLAY[:4]:
        session.call(tool, {})
    session.episode.unwrapped.release()  # what the kernel does to a killed process's lock; nothing else is written
    assert read_record(out).live["open"] and verify_run_dir(out).ok
    resumed = PlaySession.resume(out)
    assert (4, OPERATION_PLAY[4]) == (resumed.episode.calls, resumed.call(OPERATION_PLAY[4], {})["command"])
    resumed.close()
    assert verify_run_dir(out).ok


def test_the_page_never_parses_text_as_markup():
    """The page's script builds elements and sets text only; the page loads nothing from elsewhere."""
    from importlib import resources

    from bizsim.surfaces.play.page import render

    script = resources.files("bizsim.surfaces.play").joinpath("assets", "play.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script
    page = render({"benchmark_id": "</script><b>x"}, token="t")
    assert "</script><b>" not in page and "default-src 'none'" in page


def test_a_played_run_is_viewed_and_forked(tmp_path):
    """The viewer reads a played run (agent human) and a fork continues it with an agent from a day of it."""
    from bizsim.runs.fork import fork
    from bizsim.view import view_data

    played = PlaySession("operation", "default", 5, out=tmp_path / "human", player="cy", overrides=SHORT)
    for tool in OPERATION_PLAY:
        played.call(tool, {})
    played.close()
    data = view_data([tmp_path / "human"])
    assert ("human", "cy") == (data["meta"]["agent"], data["meta"]["player"])
    result = fork(tmp_path / "human", {"day": 2}, "round-robin", out=tmp_path / "fork")
    assert verify_run_dir(tmp_path / "fork").ok and result is not None


def test_the_page_is_offered_only_the_commands_that_can_run(tmp_path):
    """No form for a command declared disabled; a command the world's state refuses now (a spent day, an ended
    episode) is marked so, and the world does refuse it: the page's rule is the world's."""
    startup = PlaySession("startup", "default", 1, out=tmp_path / "s")
    tools = [c["tool"] for c in startup.state()["commands"]]
    assert "task_assign" in tools and "task_assign_all" not in tools
    assert "task_assign_all" in [t["function"]["name"] for t in startup.episode.tools()]  # agents still see it
    assert 1 == startup.call("task_assign_all", {"task_id": "Task-1"})["status"]
    startup.close()
    session = PlaySession("operation", "default", 1, out=tmp_path / "op", overrides={"horizon_days": 1})
    world = session.episode.world

    def runs():
        return {c["tool"]: c["runs"] for c in session.state()["commands"]}

    assert all(runs().values())
    session.call("engagement_tune", {})  # the day's one action
    closed = {tool for tool, ok in runs().items() if not ok}
    assert {"acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten"} == closed
    assert all(world.commands.by_tool_name(t).counted for t in closed)
    for tool in sorted(closed):
        assert "is over" in session.call(tool, {})["result"]["error"]
    assert 0 == session.call("help", {})["status"]
    session.call("task_done", {})
    assert session.episode.done and not any(runs().values())


def test_the_page_is_told_which_fields_hold_money(tmp_path):
    """Units come from simcore.money's rule (the shell's): *_cents names, the world's money fields, the metric and
    a money argument (asked for in dollars, sent as cents)."""
    session = PlaySession("startup", "default", 1, out=tmp_path / "run")
    state = session.state()
    assert {"funds_cents": "cents", "final_funds_cents": "cents"}.items() <= state["units"].items()
    browse = next(c for c in state["commands"] if c["tool"] == "market_browse")
    assert {"reward_min_cents": "cents", "limit": None} == {p["name"]: p["unit"] for p in browse["params"]
                                                              if p["name"] in ("reward_min_cents", "limit")}
    session.call("market_browse", {"limit": 1})
    assert "reward_funds_cents" in session.state()["units"]
    vending = PlaySession("vending", "default", 1, out=tmp_path / "v")
    price = next(c for c in vending.state()["commands"] if c["tool"] == "price_set")
    assert "dollars" == next(p for p in price["params"] if p["name"] == "price")["unit"]
    order = next(c for c in vending.state()["commands"] if c["tool"] == "order_place")["params"][0]
    assert (["name", "quantity"], 1) == ([r["name"] for r in order["rows"]], order["max_rows"])


def test_the_action_list_numbers_calls_as_the_run_counts_them(tmp_path):
    """Each action is listed with its call number, its command line and why it failed; a resumed session numbers on."""
    out = tmp_path / "run"
    session = PlaySession("startup", "default", 1, out=out)
    session.call("market_browse", {"limit": 2})
    session.call("task_accept", {"task_id": "nope"})
    session.call("no_such_tool", {})
    log = session.state()["log"]
    assert [1, 2, 3] == [e["n"] for e in log]
    assert ["market browse --limit 2", "task accept --task-id nope", None] == [e["line"] for e in log]
    assert [0, 1, 2] == [e["status"] for e in log] and "nope" in log[1]["error"]
    session.close()
    resumed = PlaySession.resume(out)
    resumed.call("company_status", {})
    state = resumed.state()
    assert (3, [4]) == (state["earlier_calls"], [e["n"] for e in state["log"]])
    resumed.close()
