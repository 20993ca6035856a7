"""The viewer's data and page without a browser: safe embedding, partial and hostile files, plug-in sources, CLI."""

from __future__ import annotations

import doctest
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bizsim.view import Source, register_source, render, unregister_source, view_data, view_sources, write_view
from bizsim.view.page import embed_json
from bizsim.view.run_data import run_data
from bizsim.view.sources import load_view
from bizsim.cli.main import main
from bizsim.simcore.errors import ConfigError
from hypothesis import given
from hypothesis import strategies as st

from ._view_runs import baseline_run, fork_family, llm_run, long_llm_run, memory_llm_run

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("viewer")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A greedy run and a short LLM run of startup seed 1."""
    root = tmp_path_factory.mktemp("view")
    return {"greedy": baseline_run(root / "greedy"), "llm": llm_run(root / "llm", max_turns=12)}


@given(st.text())
def test_embedded_json_never_holds_markup_and_reads_back(text):
    """Any text: the embedded JSON has no <, > or & (so it cannot close its script element) and parses back."""
    embedded = embed_json({"t": text, "n": [1.5, float("nan")]})
    assert not set("<>&") & set(embedded) and "\u2028" not in embedded
    assert {"t": text, "n": [1.5, None]} == json.loads(embedded)


def test_the_page_loads_nothing_from_anywhere(runs):
    """One file: inline style and script, a policy that forbids any fetch but the server's own, no external URL."""
    page = render(view_data([runs["greedy"]]), title="t").replace('"http://www.w3.org/2000/svg"', "")  # a name
    assert "default-src 'none'" in page and "connect-src 'self'" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page)
    assert "http://" not in page and "https://" not in page


def test_llm_turns_hold_the_verified_request_answer_and_commands(runs):
    """Every model call is a turn whose rebuilt request matches the recorded hash; commands join their turn."""
    data = run_data(runs["llm"])
    calls = [json.loads(line) for line in (runs["llm"] / "llm_calls.jsonl").read_text().splitlines()]
    sent = [json.loads(line) for line in (runs["llm"] / "agent_commands.jsonl").read_text().splitlines()]
    assert len(calls) == len(data["turns"]) == 12 and [] == data["problems"]
    assert all(t["request"]["verified"] for t in data["turns"])
    for turn in data["turns"]:
        assert [s["line"] for s in sent if s["turn"] == turn["turn"]] == [c["line"] for c in turn["commands"]]
    first = data["turns"][0]["request"]["messages"]
    assert "system" == data["meta"]["messages"][first[0]]["role"]
    assert data["meta"]["tokens"] == sum(c["response"]["usage"]["total_tokens"] for c in calls)


def _without_requests(run: Path, out: Path) -> Path:
    """A copy of ``run`` whose call records hold only each request's hash, as bizsim wrote them before it stored
    requests (the ``sent`` field is all that was added)."""
    shutil.copytree(run, out)
    rows = [json.loads(line) for line in (out / "llm_calls.jsonl").read_text().splitlines()]
    (out / "llm_calls.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "sent"}) + "\n"
                                                 for r in rows))
    return out


def test_a_run_whose_records_hold_only_hashes_opens_by_replay(runs, tmp_path):
    """An older run's requests are rebuilt by replaying it (importing the harness), and are the ones the run's own
    records hold; a run that holds them is read without the harness."""
    old = run_data(_without_requests(runs["llm"], tmp_path / "old"))
    new = run_data(runs["llm"])
    assert [] == old["problems"] == new["problems"] and all(t["request"]["verified"] for t in old["turns"])

    def sent(data: dict) -> list[list[dict]]:
        return [[data["meta"]["messages"][d] for d in t["request"]["messages"]] for t in data["turns"]]

    assert len(old["turns"]) == 12 and sent(old) == sent(new)
    assert old["meta"]["tools"] == new["meta"]["tools"]


def test_a_damaged_stored_request_is_noted_and_the_turns_still_show(runs, tmp_path):
    """A record whose stored request cannot be read: the page says so, shows the requests before it, and every turn's
    answer and commands."""
    damaged = shutil.copytree(runs["llm"], tmp_path / "damaged")
    rows = [json.loads(line) for line in (damaged / "llm_calls.jsonl").read_text().splitlines()]
    rows[3]["sent"]["parts"] = [[0, 10_000]]
    (damaged / "llm_calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    data = run_data(damaged)
    assert 1 == len(data["problems"]) and "after call 3 could not be read" in data["problems"][0]
    assert 12 == len(data["turns"]) and [True] * 3 + [False] * 9 == ["request" in t for t in data["turns"]]


@pytest.mark.slow
def test_a_long_llm_run_opens_without_the_llm_harness(tmp_path):
    """The page of a 2,000-turn LLM run is built without importing bizsim.agents.llm (its requests are read from
    the run's records, not replayed), every request verified."""
    run = long_llm_run(tmp_path / "long", 2000)
    code = (
        "import json, sys\n"
        "from bizsim.view import render, title_of, view_data\n"
        f"data = view_data([{str(run)!r}])\n"
        "page = render(data, title=title_of(data))\n"
        "print(json.dumps({'llm': sorted(m for m in sys.modules if m.startswith('bizsim.agents.llm')),\n"
        "                  'turns': len(data['turns']), 'problems': data['problems'],\n"
        "                  'verified': sum(t['request']['verified'] for t in data['turns'])}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert {"llm": [], "turns": 2000, "problems": [], "verified": 2000} == json.loads(done.stdout)


def test_each_turn_shows_the_memory_its_prompt_recalled(tmp_path):
    """The notes at each model call, and every recalled item is in that call's system prompt; notes repeated from
    the turn before are left out of the page (marked unchanged)."""
    data = run_data(memory_llm_run(tmp_path / "memory"))
    assert [] == data["problems"] and 5 == len(data["turns"])
    mems = [t["memory"] for t in data["turns"]]
    assert ["", "buy low", "buy low\nsell high", None, None] == [m.get("notes") for m in mems]
    assert [False, False, False, True, True] == [bool(m.get("notes_unchanged")) for m in mems]
    assert all(["scratchpad", "window"] == m["modules"] for m in mems)
    for turn, mem in zip(data["turns"], mems, strict=True):
        system = data["meta"]["messages"][turn["request"]["messages"][0]]["content"]
        assert all(r["section"] == "history" and r["text"][:200] in system for r in mem["recalls"])
    assert mems[2]["recalls"] and "buy low" in system


def test_the_timeline_ends_at_the_final_funds(runs):
    """The startup curve starts at the initial funds and ends at result.json's final funds, at each advance."""
    data = run_data(runs["greedy"])
    result = json.loads((runs["greedy"] / "result.json").read_text())
    assert [0, 20_000_000.0] == data["timeline"][0]
    assert result["final_funds_cents"] == data["timeline"][-1][1]
    assert len(data["turns"]) + 1 == len(data["timeline"])


def test_a_run_still_being_written_or_damaged_shows_what_is_there(runs, tmp_path):
    """A torn last line, a garbage line and no result.json: the view loads, says what it skipped, never raises."""
    part = tmp_path / "part"
    part.mkdir()
    lines = (runs["greedy"] / "trajectory.jsonl").read_text().splitlines(keepends=True)
    (part / "trajectory.jsonl").write_text("".join(lines[:30]) + "not json\n" + "".join(lines[30:60]) + lines[60][:9])
    shutil.copy(runs["greedy"] / "commands.jsonl", part)
    data = run_data(part)
    assert "running" == data["meta"]["status"] and data["turns"]
    assert ["trajectory.jsonl: 1 line(s) are not JSON objects; skipped"] == data["problems"]
    (part / "result.json").write_text("{")
    assert any("result.json is not valid JSON" in p for p in run_data(part)["problems"])
    (part / "result.json").write_text("[" * 100_000)  # nesting Python's parser cannot follow
    assert any("result.json is not valid JSON" in p for p in run_data(part)["problems"])
    (part / "result.json").unlink()
    (part / "result.json").mkdir()  # not a file at all
    assert "result.json is not a regular file; not shown" in run_data(part)["problems"]


def test_a_run_still_being_written_starts_at_its_own_initial_funds(tmp_path):
    """Before result.json exists the curve is summed from the run's own config (here $300,000), not the default's."""
    from bizsim.agents.llm.scripted import ScriptedClient
    from bizsim.runs import RunSpec, run_llm

    from .llm_policies import greedy_policy

    run = tmp_path / "rich"
    spec = RunSpec("startup", "default", "llm", 1, overrides={"initial_funds_cents": 30_000_000},
                   agent_options={"model": "scripted", "max_turns": 12})
    run_llm(spec, out=run, client=ScriptedClient(greedy_policy))
    final = json.loads((run / "result.json").read_text())["final_funds_cents"]
    done = run_data(run, requests=False)["timeline"]
    for name in ("result.json", "config.toml"):  # as while the run is written: its config is in run.json only
        (run / name).unlink()
    assert [0, 30_000_000.0] == done[0] == run_data(run, requests=False)["timeline"][0]
    assert final == done[-1][1] == run_data(run, requests=False)["timeline"][-1][1]


def test_another_kind_of_source_plugs_in(tmp_path):
    """A registered source opens what the built-in ones do not recognise."""
    folder = tmp_path / "custom"
    folder.mkdir()
    (folder / "custom.json").write_text("{}")
    with pytest.raises(ConfigError, match="none of what the viewer opens"):
        load_view(folder)
    register_source(Source("custom", lambda p: (p / "custom.json").exists(), lambda p, **o: {"kind": "custom"}))
    try:
        assert {"kind": "custom"} == load_view(folder)
        assert ["custom", "sweep", "fork family", "Inspect log", "arena run", "run",
                "folder of Inspect logs"] == [s.name for s in view_sources()]
    finally:
        unregister_source("custom")
    assert ["sweep", "fork family", "Inspect log", "arena run", "run", "folder of Inspect logs"] == [s.name for s in view_sources()]


@pytest.fixture(scope="module")
def family(tmp_path_factory) -> Path:
    """A greedy parent, a random fork of it after turn 10, and a greedy fork of that fork after its turn 14."""
    return fork_family(tmp_path_factory.mktemp("family") / "family")


def test_a_fork_family_finds_each_forks_parent_by_its_commands(family, tmp_path):
    """Parents are found by the digest of their first commands, so renamed folders still read; a fork whose
    parent is not in the folder is drawn alone, with a note."""
    data = load_view(family)
    assert "family" == data["kind"] and [] == data["problems"]
    assert [("parent", None, 0), ("random-10", "parent", 1), ("greedy-14", "random-10", 2)] == [
        (m["id"], m["parent"], m["depth"]) for m in data["members"]]
    assert [None, 10, 14] == [(m["fork"] or {}).get("turn") for m in data["members"]]
    assert {"greedy-14.vs-parent": ["random-10", "greedy-14"]}.items() <= data["pages"].items()
    moved = tmp_path / "moved"
    shutil.copytree(family, moved)
    (moved / "random-10").rename(moved / "b")
    assert "b" == next(m["parent"] for m in load_view(moved)["members"] if m["id"] == "greedy-14")
    shutil.rmtree(moved / "parent")
    renamed = load_view(moved)
    assert [None, "b"] == [m["parent"] for m in renamed["members"]]
    k = json.loads((moved / "b" / "result.json").read_text())["fork"]["commands"]
    assert [f"b is a fork of {str(family / 'parent')!r}, which is not in this folder (no member has its first {k} "
            "commands)"] == renamed["problems"]


def _edit(path: Path, change) -> None:
    path.write_text(change(path.read_text()))


def _set(path: Path, key: str, value) -> None:
    _edit(path, lambda text: json.dumps({**json.loads(text), key: value}))


@pytest.mark.parametrize("damage", [
    lambda f: _set(f / "random-10" / "result.json", "fork", {**json.loads((f / "random-10" / "result.json").read_text())[
        "fork"], "t_us": "later", "turn": [1], "mode": "m" * 10_000}),
    lambda f: _set(f / "greedy-14" / "result.json", "seed", [1]),
    lambda f: _set(f / "greedy-14" / "result.json", "world", {"a": 1}),
    lambda f: _edit(f / "parent" / "commands.jsonl", lambda t: t.replace('"t_us": 0', '"t_us": Infinity', 1)),
    lambda f: _edit(f / "parent" / "commands.jsonl", lambda t: "[" * 100_000 + "\n" + t),
    lambda f: _edit(f / "parent" / "trajectory.jsonl", lambda t: t.replace('"t_us":0', '"t_us":"x"', 1)),
    lambda f: shutil.copytree(f / "parent", f / "random-10.vs-parent"),
    lambda f: _edit(f / "parent" / "commands.jsonl", lambda t: t.replace('"t_us": 0, ', "", 1)),
], ids=["fork-values", "seed-list", "world-dict", "t_us-infinity", "deep-line", "t_us-text", "page-id-taken",
        "no-t_us"])
def test_a_damaged_family_member_is_noted_not_raised(family, tmp_path, damage):
    """Any member's files may be damaged: the page is still written, whatever one of them holds."""
    copy = tmp_path / "family"
    shutil.copytree(family, copy)
    damage(copy)
    out = write_view([copy], tmp_path / "f.html")
    data = load_view(copy)
    assert out.exists() and {"parent", "random-10", "greedy-14"} <= {m["id"] for m in data["members"]}
    assert all(len(str(m["fork"])) < 1_000 for m in data["members"])
    assert all(data["pages"][p][-1] in {m["id"] for m in data["members"]} for p in data["pages"])


def test_a_fork_family_page_writes_each_run_and_each_fork_beside_its_parent(family, tmp_path):
    """File mode: one page per run and per (parent, fork) pair beside the family's page, named by the data."""
    page = write_view([family], tmp_path / "f.html")
    assert {"parent", "random-10", "greedy-14", "random-10.vs-parent", "greedy-14.vs-parent"} == {
        p.stem for p in (tmp_path / "f_runs").iterdir()}
    assert '"page_links":"f_runs/{id}.html"' in page.read_text()
    pair = (tmp_path / "f_runs" / "greedy-14.vs-parent.html").read_text()
    assert '"back":{"href":"../f.html","text":"the fork family"}' in pair
    assert '"kind":"compare"' in pair and '"fork":{"turn":14' in pair


def test_a_served_fork_family_serves_only_the_pages_its_data_names(family):
    """--serve: the family's page links /page/ID; an ID the data does not name is not found, whatever it holds."""
    import urllib.error
    import urllib.request

    from bizsim.view.server import ViewServer

    with ViewServer([family]) as server:
        home = urllib.request.urlopen(server.url).read().decode()
        assert '"page_links":"/page/{id}"' in home
        # a followed page redraws from /data.json: its links must survive that
        assert '"page_links":"/page/{id}"' in urllib.request.urlopen(server.url + "data.json").read().decode()
        pair = urllib.request.urlopen(server.url + "page/greedy-14.vs-parent").read().decode()
        assert '"kind":"compare"' in pair and '"fork":{"turn":14' in pair
        assert '"back":{"href":"/"' in pair  # a page the family opens leads back to it
        for bad in ("page/..%2F..%2Fetc", "page/nothing", "page/parent%2F..%2Frandom-10"):
            with pytest.raises(urllib.error.HTTPError, match="404"):
                urllib.request.urlopen(server.url + bad)
        # DNS rebinding: a page on another domain that resolves to 127.0.0.1 is refused, localhost is served
        for host, status in (("evil.example:80", 421), ("127.0.0.1.evil.example", 421), ("", 421),
                             ("localhost:1", 200), ("LOCALHOST", 200)):
            request = urllib.request.Request(server.url + "data.json", headers={"Host": host})
            try:
                answered = urllib.request.urlopen(request).status
            except urllib.error.HTTPError as exc:
                answered = exc.code
            assert status == answered, host


def test_cli_writes_pages_and_refuses_unclear_requests(runs, tmp_path, capsys):
    """``bizsim view`` writes the page it prints; two runs compare; bad combinations are refused in one line."""
    out = tmp_path / "v.html"
    assert 0 == main(["view", str(runs["greedy"]), "--out", str(out)])
    assert str(out) == capsys.readouterr().out.strip()
    assert 0 == main(["view", str(runs["greedy"]), str(runs["llm"]), "--out", str(tmp_path / "c.html"), "--no-requests"])
    assert '"kind":"compare"' in (tmp_path / "c.html").read_text()
    assert 2 == main(["view", str(runs["greedy"]), "--follow"])
    assert "--follow goes with --serve" in capsys.readouterr().err
    assert 2 == main(["view", str(tmp_path / "missing")])
    assert 2 == main(["view", str(runs["greedy"]), str(runs["llm"]), str(runs["greedy"])])


def test_a_sweep_page_links_each_kept_run(tmp_path):
    """A sweep with run directories gets one page per run beside its own; the table links to them."""
    sweep = tmp_path / "sweep"
    assert 0 == main(["sweep", "--world", "startup", "--agent", "greedy", "--seeds", "1-2", "--out", str(sweep),
                      "--backend", "serial", "--run-dirs", "--no-progress"])
    page = write_view([sweep], tmp_path / "s.html")
    runs = sorted(p.name for p in (sweep / "runs").iterdir())
    assert runs == sorted(p.stem for p in (tmp_path / "s_runs").iterdir())
    assert '"run_links":"s_runs/{id}.html"' in page.read_text()


@pytest.mark.parametrize("name", ["bizsim.analysis.labels", "bizsim.view.page", "bizsim.analysis.provenance",
                                  "bizsim.cli.live_panel"])
def test_doctests(name):
    """The examples in the viewer's and report's docstrings run."""
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert 0 == failed


def test_the_reports_git_commit_is_bizsims_own_not_a_surrounding_repository(tmp_path):
    """bizsim installed in a virtualenv inside a project's repository reports no commit, not the project's."""
    import importlib.util
    import shutil
    import subprocess

    from bizsim.analysis import provenance

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "a project")
    site = tmp_path / ".venv" / "bizsim" / "analysis"
    site.mkdir(parents=True)
    copy = shutil.copy(provenance.__file__, site / "provenance.py")
    spec = importlib.util.spec_from_file_location("copied_provenance", copy)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module._git_commit() is None  # the project's commit is not bizsim's
    git("add", ".venv")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "vendored")
    assert git("rev-parse", "HEAD").strip() == module._git_commit()  # tracked source: its checkout's commit


@pytest.mark.parametrize(("world", "agent", "actions"), [
    ("startup", "greedy", {"task accept"}), ("vending", "markup", {"order_place", "price_set"}),
    ("freelance", "cautious", {"solution_submit", "energy_restore"}),
    ("operation", "threshold", {"creator_incentive", "moderation_tighten"}),
])
def test_a_runs_marks_are_the_worlds_events_and_the_agents_decisions(tmp_path, world, agent, actions):
    """Accepted tasks, orders, submissions and rests, interventions: each successful marked command is a mark in the
    turn that issued it; failures are a kind of their own; the world's end is marked once."""
    from bizsim.runs import run_episode

    result = run_episode(world, "default", agent, 1, out=tmp_path / "run")
    data = load_view(tmp_path / "run")
    marks = data["markers"]
    kinds = {m["name"].removesuffix(" (failed)") for m in marks if m["kind"] == "action"}
    assert actions == kinds
    for m in (m for m in marks if m["kind"] == "action"):
        assert any(c["name"] == m["name"].removesuffix(" (failed)") and c["t"] == m["t"] and "error" not in c
                   for c in data["turns"][m["turn"]]["commands"]), m
    ends = [m for m in marks if m["name"] in ("episode_end", "horizon_end", "bankruptcy")]
    assert 1 == len(ends) and ends[0]["t"] == max(int(r["t"]) for r in marks)
    if world == "startup":
        failed = [m for m in marks if m["name"] == "task_completed (failed)"]
        assert result.tasks_failed == len(failed) and all(m["label"].endswith("(failed)") for m in failed)


def test_an_end_that_is_not_the_horizon_keeps_its_mark(tmp_path):
    """Bankruptcy (at a payroll) and a budget stop (after a decision) share their instant with another mark: the
    episode's end is still marked, and says how it ended."""
    from bizsim.runs import run_episode
    from bizsim.runs.live import Budgets, Episode

    assert "bankruptcy" == run_episode("startup", "default", "random", 1, out=tmp_path / "bankrupt").terminal_reason
    with Episode("startup", "default", 1, out=tmp_path / "budget", budgets=Budgets(max_turns=3)) as episode:
        for line in ("market browse", "task accept --task-id Task-10", "company status"):
            episode.call_line(line)
    for run, how in (("bankrupt", "episode end (bankrupt"), ("budget", "episode end (error: max_turns)")):
        ends = [m for m in load_view(tmp_path / run)["markers"] if m["name"] == "episode_end"]
        assert 1 == len(ends) and ends[0]["label"].startswith(how), (run, ends)


#: Events of each world that the runs below do not happen to record (a resignation, a milestone, a sale).
_EVENTS_NOT_SEEN = {"startup": ["task_half"], "startup-v2": ["task_half", "employee_resigned"], "vending": ["sales"]}
#: The runs whose marks are checked: each world's default agent, and startup-v2's planner on `hard` (it hires, meets
#: every disruption and records signal truth).
_KIND_RUNS = [("startup-v2", "hard", "planner")]
#: The least CIEDE2000 difference between two kinds drawn on one page (10 and more reads as clearly different).
_MIN_DELTA_E = 15.0


def test_every_kind_of_every_world_has_a_colour_a_reader_tells_apart(tmp_path, tmp_path_factory):
    """Every command of every preset and every event of each built-in world: a colour from the fixed table, and
    every two of them, the failures' dark grey and the runs' blue and red at least 15 apart in CIEDE2000 (not only
    a different hex); every kind the runs of the world mark is among those checked."""
    from itertools import combinations

    from bizsim.analysis.labels import FAILED_COLOR, KIND_COLORS, kind_color, kind_key
    from bizsim.runs import RunSpec, execute
    from bizsim.simcore.registry import registered

    from ._colour import delta_e
    from ._shared_runs import V2_HARD_PLANNER, played_once

    # A third-party world's kinds (the example lemonade's) are not in the table: they take a fallback colour by a
    # hash of their name, which keeps it from page to page but cannot promise a distance (docs/viewer.md says so).
    built_in = {w: s for w, s in registered().items() if s.factory.startswith("bizsim.")}
    assert {"startup", "startup-v2", "vending", "freelance", "operation"} <= set(built_in)
    for world, spec in sorted(built_in.items()):
        names = {c.name for p in spec.preset_names() for c in spec.make(p, 1).commands.visible()}
        names |= {"horizon_end", "episode_end", *_EVENTS_NOT_SEEN.get(world, [])}
        for preset, agent in [("default", spec.default_agent)] + [(p, a) for w, p, a in _KIND_RUNS if w == world]:
            if (world, preset, agent, 1) == V2_HARD_PLANNER:  # the session's shared year (tests/_shared_runs.py)
                out, _ = played_once(tmp_path_factory, V2_HARD_PLANNER)
            else:
                out = tmp_path / f"{world}-{preset}-{agent}"
                execute(RunSpec(world, preset, agent, 1), out=out)
            names |= {m["name"] for m in run_data(out, requests=False)["markers"] if not m["name"].endswith("(failed)")}
        assert all(kind_key(n) in KIND_COLORS for n in names), (world, [n for n in names if kind_key(n) not in KIND_COLORS])
        colours = {kind_key(n): kind_color(n) for n in names} | {"(failed)": FAILED_COLOR, "(run A)": "#2457c5",
                                                                 "(run B)": "#d1495b"}
        closest = min((delta_e(a, b), ka, kb) for (ka, a), (kb, b) in combinations(colours.items(), 2))
        assert closest[0] >= _MIN_DELTA_E, (world, closest)


def test_a_tasks_milestone_names_the_task_as_the_agent_knows_it(tmp_path):
    """The `hard` preset's milestone events carry a task's internal UUID: the page names it `Task-N` (replacement
    tasks included, checked against the titles the completions record) under a name that says what it is."""
    run = tmp_path / "hard"
    assert 0 == main(["run", "startup", "--preset", "hard", "--agent", "planner", "--seed", "1", "--out", str(run),
                      "--json", "--no-progress"])
    rows = [json.loads(line) for line in (run / "trajectory.jsonl").read_text().splitlines()]
    titles = {r["data"]["task_id"]: r["data"]["task_title"] for r in rows if r["name"] == "task_completed"}
    milestones = [m for m in run_data(run)["markers"] if m["name"] == "task_half"]
    assert milestones and not [m["label"] for m in milestones if re.search(r"[0-9a-f]{8}-[0-9a-f]{4}", m["label"])]
    checked = [m for m in milestones if m["data"]["task_id"] in titles]
    assert any(int(m["data"]["task_id"][-12:], 16) > 200 for m in checked)  # a replacement task among them
    for m in checked:
        pct = m["data"]["milestone_pct"]
        assert f"task milestone {titles[m['data']['task_id']]} ({pct}% done)" == m["label"]


def test_an_llm_runs_turns_are_its_answered_calls_as_the_record_counts_them(tmp_path):
    """A call retried once and a call refused for good (the loopback server's faults on requests 2 and 5): the
    page lists every call, but counts as turns only the answered ones, as result.json does."""
    from bizsim.runs import RunSpec, run_llm

    from .llm_policies import greedy_policy
    from .llm_server import LoopbackLLMServer, require_litellm

    require_litellm()
    with LoopbackLLMServer(greedy_policy, faults={2: "500", 5: "401"}) as server:
        assert ("500", "401") == (server.fault_for(2), server.fault_for(5))
        spec = RunSpec("startup", agent="llm", agent_options={"model": "hosted_vllm/greedy", "api_base": server.url,
                                                              "max_turns": 6})
        run_llm(spec, out=tmp_path / "run", sleep=lambda s: None)
    record = json.loads((tmp_path / "run" / "result.json").read_text())
    data = run_data(tmp_path / "run")
    assert (4, "api_error") == (record["turns"], record["terminal_detail"])
    assert 4 == data["meta"]["turns"]
    assert [True, True, True, True, False] == [t["ok"] for t in data["turns"]]  # the refused call is listed, marked


def test_every_kind_an_arena_page_marks_has_a_colour_a_reader_tells_apart(tmp_path):
    """Each arena's lanes (a year of its base world's default agent in two seats): every kind marked has a colour
    from the fixed table, at least 15 apart in CIEDE2000 from every kind of the base world's commands and the
    other marks (a rival's take, `market task taken`, had a hashed purple beside the payroll's)."""
    from itertools import combinations

    from bizsim.analysis.labels import KIND_COLORS, kind_color, kind_key
    from bizsim.runs import RunSpec, execute
    from bizsim.simcore.registry import arena_names, world_spec
    from bizsim.view.arena_data import arena_data

    from ._colour import delta_e

    for arena in arena_names():
        spec = world_spec(arena)
        out = tmp_path / arena
        execute(RunSpec(arena, "small" if "small" in spec.preset_names() else "default", seed=1,
                        roster=[spec.default_agent, spec.default_agent]), out=out)
        marked = {m.get("name") for s in arena_data(out)["seats"] for m in s.get("marks", ())}
        assert marked and all(kind_key(n) in KIND_COLORS for n in marked), (arena, marked)
        base = world_spec(str(spec.base)).make("default", 1)
        names = marked | {c.name for c in base.commands.visible()}
        colours = {kind_key(n): kind_color(n) for n in names}
        closest = min((delta_e(a, b), ka, kb) for (ka, a), (kb, b) in combinations(colours.items(), 2))
        assert closest[0] >= _MIN_DELTA_E, (arena, closest)
