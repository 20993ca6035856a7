"""Arena runs through the one pipeline: a run directory with a record per seat, result.json's seats, verify,
``bizsim run ARENA --seat ...``, LLM seats each with its own model and endpoint, and sweeps over rosters."""

from __future__ import annotations

import json

import pytest
from bizsim.cli import main
from bizsim.runs import RunSpec, execute
from bizsim.runs.rundir import RunDir
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError

from .llm_server import LoopbackLLMServer, require_litellm

WORLD = "vending-arena"


def _spec(roster=("planner", "markup"), seed=1, preset="small"):
    return RunSpec(WORLD, preset, seed=seed, roster=list(roster))


@pytest.fixture(scope="module")
def arena_dir(tmp_path_factory):
    """One recorded arena: planner in seat 0, markup in seat 1, seed 1, preset small."""
    out = tmp_path_factory.mktemp("arena") / "run"
    result = execute(_spec(), out=out)
    return out, result


def test_a_run_directory_holds_a_record_per_seat(arena_dir):
    """result.json lists the seats (agent, label, metric); seats/<k>/ holds each seat's logs and own record."""
    out, result = arena_dir
    record = json.loads((out / "result.json").read_text())
    assert [(0, "planner", "planner"), (1, "markup", "markup")] == [
        (s["seat"], s["agent"], s["label"]) for s in record["seats"]]
    assert "arena" == record["agent"] and "vending-arena-v1" == record["benchmark_id"]
    for k, seat in enumerate(record["seats"]):
        own = json.loads((out / "seats" / str(k) / "result.json").read_text())
        assert seat["agent"] == own["agent"] and seat["metric_value"] == own["metric_value"]
        assert own["commands"] == len((out / "seats" / str(k) / "commands.jsonl").read_text().splitlines())
    assert record["commands"] == sum(s["commands"] for s in record["seats"])
    assert ["0", "1"] == [d.root.name for d in RunDir(out).seat_dirs()]


def test_the_pipeline_plays_the_arena_as_the_arena_plays_its_agents(arena_dir):
    """The seats' figures equal a direct ``arena.run([planner, markup])`` on the same arena and seed."""
    from bizsim.agents.vending import markup, planner
    from bizsim.models.vending.arena import VendingArena

    _, result = arena_dir
    direct = VendingArena("small", 1, seats=2)
    direct.run([planner, markup])
    assert [s["metric_value"] for s in direct.summary()["seats"]] == [s["metric_value"] for s in result.seats]
    assert direct.command_logs() == result.final_world.command_logs()


def test_verify_replays_an_arena_run_and_catches_edits(arena_dir, tmp_path):
    """verify replays every seat's log in turn order: the directory checks out; an edited seat figure, a listed
    metric, swapped seat logs or agents swapped in the seats list are each found."""
    import shutil

    out, _ = arena_dir
    check = verify_run_dir(out)
    assert check.ok, check.problems
    assert check.commands == json.loads((out / "result.json").read_text())["commands"]

    def edited(name, change):
        copy = tmp_path / name
        shutil.copytree(out, copy)
        change(copy)
        return verify_run_dir(copy).problems

    def seat_metric(root):
        path = root / "seats" / "1" / "result.json"
        data = json.loads(path.read_text())
        data["metric_value"] += 1
        path.write_text(json.dumps(data))

    def listed_metric(root):
        path = root / "result.json"
        data = json.loads(path.read_text())
        data["seats"][0]["metric_value"] += 1
        path.write_text(json.dumps(data))

    def swapped(root):
        a, b = root / "seats" / "0" / "commands.jsonl", root / "seats" / "1" / "commands.jsonl"
        text = a.read_text()
        a.write_text(b.read_text())
        b.write_text(text)

    def swapped_agents(root):  # who played which seat, swapped in the arena's list only
        path = root / "result.json"
        data = json.loads(path.read_text())
        first, second = data["seats"]
        for key in ("agent", "label", "options"):
            first[key], second[key] = second[key], first[key]
        path.write_text(json.dumps(data))

    assert any("seat 1: result.json metric_value" in p for p in edited("seat", seat_metric))
    assert any("seat 0: the arena's result.json lists seat 0 played by 'markup' but the seat's own record names "
               "'planner'" in p for p in edited("agents", swapped_agents))
    assert any("seat 0: the arena's result.json lists metric_value" in p for p in edited("listed", listed_metric))
    assert edited("swapped", swapped)


def test_cli_run_with_seats_records_and_prints_standings(tmp_path, capsys):
    """`bizsim run vending-arena --seat planner --seat markup --seed 2 --out DIR`: one run directory; --json is
    result.json's object; the text names each seat's place."""
    out = tmp_path / "cli"
    assert 0 == main(["run", WORLD, "--preset", "small", "--seat", "markup", "--seat", "planner", "--seed", "2",
                      "--out", str(out), "--no-progress", "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((out / "result.json").read_text()) | {"wall_s": printed["wall_s"]}
    assert ["markup", "planner"] == [s["agent"] for s in printed["seats"]]
    assert 0 == main(["run", WORLD, "--preset", "small", "--seat", "markup", "--seat", "planner", "--seed", "2",
                      "--out", str(tmp_path / "text"), "--no-progress"])
    text = capsys.readouterr().out
    assert "standings (net worth)" in text and "1. seat" in text and "2. seat" in text
    assert 0 == main(["verify", str(out)])


@pytest.mark.parametrize(("argv", "words"), [
    (["run", "vending", "--seat", "planner", "--seat", "markup"], "has no seats"),
    (["run", WORLD, "--seat", "planner"], "seats 2 to 8 agents; the roster lists 1"),
    (["run", WORLD, "--seat", "planner", "--seat", "nobody"], "unknown agent 'nobody'"),
    (["run", WORLD, "--seat", "planner", "--seat", "markup", "--agent", "planner"], "--agent sets one agent's run"),
    (["run", WORLD, "--seat", "planner", "--seat", "planner:depth=3"], "depth"),
    (["run", WORLD], "give each seat's agent"),
])
def test_bad_rosters_are_named_before_anything_runs(argv, words, tmp_path, capsys):
    """A roster on a world without seats, too few seats, an unknown agent or option, one agent's flags beside
    seats, no roster for an arena: exit 2 with the reason, no run directory."""
    out = tmp_path / "never"
    try:
        code = main([*argv, "--out", str(out), "--no-progress"])
    except SystemExit as exc:
        code = int(exc.code)
    assert 2 == code
    assert words in capsys.readouterr().err
    assert not out.exists()


def _vending_seat_policy(seen: list[str]):
    """An LLM seat that looks at its products once, then ends every day; it keeps each system prompt it is sent."""

    def policy(messages, tools):
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        seen.append(system if isinstance(system, str) else json.dumps(system))
        names = [t["function"]["name"] for t in tools or ()]
        done = next(n for n in names if n in ("task_done", "done") or n.endswith("done"))
        return {"content": None, "tool_calls": [{"name": done, "arguments": "{}"}]}

    return policy


def test_llm_seats_each_call_their_own_model_at_their_own_endpoint_and_are_told_the_arena(tmp_path):
    """Two LLM seats and a planner: each LLM seat's calls go to its own server under its own model, are recorded
    in its own seat folder with its own cap, and its system prompt carries the arena protocol for its seat."""
    require_litellm()
    alpha_seen: list[str] = []
    beta_seen: list[str] = []
    out = tmp_path / "llm"
    with LoopbackLLMServer(_vending_seat_policy(alpha_seen)) as alpha, \
            LoopbackLLMServer(_vending_seat_policy(beta_seen)) as beta:
        roster = ["planner", f"llm:model=hosted_vllm/alpha,api_base={alpha.url},max_turns=5",
                  f"llm:model=hosted_vllm/beta,api_base={beta.url},max_turns=8"]
        result = execute(RunSpec(WORLD, "small", seed=1, roster=roster), out=out)
        calls = alpha.policy_calls, beta.policy_calls
    assert (5, 8) == calls
    seats = result.seats
    assert ["planner", "llm:hosted_vllm/alpha", "llm:hosted_vllm/beta"] == [s["label"] for s in seats]
    assert [5, 8] == [s["llm"]["turns"] for s in seats[1:]]
    for k, model, cap in ((1, "alpha", 5), (2, "beta", 8)):  # the server answers under the model asked for
        rows = [json.loads(x) for x in (out / "seats" / str(k) / "llm_calls.jsonl").read_text().splitlines()]
        chats = [r for r in rows if r.get("kind") == "chat"]
        assert cap == len(chats) and {model} == {r["response"]["model"] for r in chats}
    assert not (out / "seats" / "0" / "llm_calls.jsonl").exists()
    assert "You are seat 1 of 3 (seats 0 to 2) in an arena" in alpha_seen[0]
    assert "You are seat 2 of 3 (seats 0 to 2) in an arena" in beta_seen[0]
    check = verify_run_dir(out)
    assert check.ok, check.problems
    calls = out / "seats" / "2" / "llm_calls.jsonl"
    kept = calls.read_text().splitlines()
    calls.write_text("\n".join(kept[:-1]) + "\n")  # the last answered call taken out: the log no longer matches
    assert any(p.startswith("seat 2: llm_calls.jsonl") for p in verify_run_dir(out).problems)


def test_a_lone_world_prompt_is_unchanged_by_the_arena_protocol():
    """The arena text is appended only for a seat: a vending world's system prompt is as it was."""
    from bizsim.agents.llm.arena_prompt import arena_text
    from bizsim.models.vending.arena import VendingArena
    from bizsim.simcore.registry import world_spec

    assert "" == arena_text(world_spec("vending").make("small", 1))
    seat = VendingArena("small", 1, seats=3).seats[2]
    assert arena_text(seat).startswith("\n\nYou are seat 2 of 3")


def test_a_sweep_over_a_roster_rotates_seats_and_the_tables_rate_the_agents(tmp_path):
    """arena_grid over 4 seeds: each agent sits in each seat twice; the sweep keeps each arena's run directory;
    the runs table's seats give the arena table, standings and a rating of both agents."""
    from bizsim.analysis import load, rating, standings
    from bizsim.analysis.arena import seats_of_runs
    from bizsim.runs import arena_grid, sweep

    specs = arena_grid(WORLD, [["planner", "markup"]], "1-4", "small")
    assert [["planner", "markup"], ["markup", "planner"]] * 2 == [[s.agent for s in spec.roster] for spec in specs]
    summary = sweep(specs, tmp_path / "sw", backend="serial", progress=False)
    assert 4 == summary.ran and 0 == summary.failed
    table = seats_of_runs(load(tmp_path / "sw").runs)
    assert 8 == len(table) and {"planner", "markup"} == set(table["agent"])
    for spec in specs:
        assert verify_run_dir(tmp_path / "sw" / "runs" / spec.run_id).ok
    assert 4 == standings(table)["arena"].nunique()
    rated = rating(table, bootstrap=50)
    assert {"planner", "markup"} == set(rated["agent"])


def test_the_report_has_an_arena_section(tmp_path):
    """A sweep of arenas reports standings, pairwise win rates and the rating."""
    from bizsim.analysis.report import write_report
    from bizsim.runs import arena_grid, sweep

    sweep(arena_grid(WORLD, [["planner", "markup"]], "1-2", "small"), tmp_path / "sw", backend="serial",
          progress=False)
    text = write_report(tmp_path / "sw").read_text()
    assert 'id="arenas"' in text and "Pairwise win rates" in text and "Rating across arenas" in text


def test_bizsim_report_reads_an_arena_run_directory_and_a_folder_holding_one(tmp_path, capsys):
    """``bizsim report`` takes a run directory or a folder of them: an arena run's record is rebuilt from its seats'
    logs, as the sweep of that arena writes it (same run id, same seats), so the report has its standings."""
    from bizsim.analysis import load
    from bizsim.runs import arena_grid, sweep
    from bizsim.runs._replay import record_from_run_dir
    from bizsim.runs.arena_run import SEATS_COLUMN

    folder = tmp_path / "runs"
    assert 0 == main(["run", WORLD, "--preset", "small", "--seat", "planner", "--seat", "markup",
                      "--out", str(folder / "arena"), "--no-progress"])
    (spec,) = arena_grid(WORLD, [["planner", "markup"]], "1", "small")
    sweep([spec], tmp_path / "sw", backend="serial", progress=False)
    swept = load(tmp_path / "sw").runs.iloc[0]
    record = record_from_run_dir(folder / "arena")
    assert spec.run_id == record["run_id"]
    assert json.loads(swept[SEATS_COLUMN]) == json.loads(record["run"][SEATS_COLUMN])
    for where in (folder / "arena", folder):
        assert 0 == main(["report", str(where), "--out", str(tmp_path / "report" / where.name)])
        text = (tmp_path / "report" / where.name / "report.html").read_text()
        assert 'id="arenas"' in text and "Standings" in text


def test_a_roster_on_a_spec_refuses_an_arena_of_the_wrong_size():
    """resolve() checks the seat count against the arena's range before anything runs."""
    from bizsim.runs.resolve import resolve

    with pytest.raises(ConfigError, match="seats 2 to 8"):
        resolve(RunSpec(WORLD, "small", roster=["planner"] * 9))


def test_the_docs_show_the_arena_protocol_as_the_code_writes_it():
    """docs/arena.md quotes what seat 1 of a three-seat vending-arena is told, word for word."""
    from pathlib import Path

    from bizsim.agents.llm.arena_prompt import arena_text
    from bizsim.models.vending.arena import VendingArena

    page = (Path(__file__).resolve().parent.parent / "docs" / "arena.md").read_text(encoding="utf-8")
    assert arena_text(VendingArena("small", 1, seats=3).seats[1]).strip() in page


def test_cli_sweep_with_seats_turns_the_roster_and_prints_the_rating(tmp_path, capsys):
    """`bizsim sweep --world vending-arena --seat planner --seat markup --seeds 1-2`: two arenas, the roster turned
    once; the rating printed after the runs; --seat with --agent is refused."""
    out = tmp_path / "sw"
    assert 0 == main(["sweep", "--world", WORLD, "--preset", "small", "--seat", "planner", "--seat", "markup",
                      "--seeds", "1-2", "--out", str(out), "--backend", "serial", "--no-progress"])
    text = capsys.readouterr().out
    assert "agent" in text and "rating  95 % interval" in text and "planner" in text and "markup" in text
    rosters = [json.loads(line)["spec"]["roster"] for line in (out / "results.jsonl").read_text().splitlines()]
    assert [["planner", "markup"], ["markup", "planner"]] == [[s["name"] for s in r] for r in rosters]
    assert 2 == main(["sweep", "--world", WORLD, "--seat", "planner", "--seat", "markup", "--agent", "planner",
                      "--out", str(tmp_path / "never")])
    assert "--seat gives one arena's roster" in capsys.readouterr().err


def test_an_llm_seat_without_its_key_fails_before_anything_is_written(tmp_path, monkeypatch, capsys):
    """A missing key variable is named at once, by `bizsim run` and by a sweep, and nothing is written."""
    from bizsim.runs import arena_grid, sweep

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "run"
    assert 2 == main(["run", WORLD, "--seat", "planner", "--seat", "llm:model=openai/gpt-4o-mini", "--out", str(out),
                      "--no-progress"])
    assert "OPENAI_API_KEY is not set" in capsys.readouterr().err and not out.exists()
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        sweep(arena_grid(WORLD, [["planner", "llm:model=openai/gpt-4o-mini"]], "1", "small"), tmp_path / "sw",
              backend="serial", progress=False)
    assert not (tmp_path / "sw" / "results.jsonl").exists()


def test_the_standings_say_when_a_seat_left_before_the_arena_ended(capsys):
    """A seat stopped by its turn cap (or bankrupt) while the arena played on is named with its ending and turns;
    a seat that played to the arena's end gets no note."""
    from bizsim.cli.run_arena import _print_standings

    seats = [{"seat": 0, "label": "planner", "metric": "net_worth_cents", "metric_value": 2892562, "turns": 366,
              "terminal_reason": "horizon_end"},
             {"seat": 1, "label": "llm:hosted_vllm/smollm2", "metric": "net_worth_cents", "metric_value": 10000,
              "turns": 2, "terminal_reason": "error", "terminal_detail": "max_turns"}]
    _print_standings({"benchmark_id": "vending-arena-v1", "preset": "small", "seed": 1, "terminal_reason": "horizon_end",
                      "turns": 368, "commands": 690, "metric": "net_worth_cents", "seats": seats}, None)
    lines = capsys.readouterr().out.splitlines()
    first = next(x for x in lines if "1. seat 0" in x)
    second = next(x for x in lines if "2. seat 1" in x)
    assert "$28,925.62" in first and "(" not in first
    assert second.endswith("$100.00  (stopped by its turn cap (max_turns), as asked; 2 turns)")


@pytest.mark.parametrize("link", ["seats/0", "seats/2", "seats"])
def test_overwrite_removes_a_link_in_seats_and_never_writes_or_deletes_through_it(link, tmp_path):
    """An arena directory whose ``seats`` or ``seats/<k>`` is a link to another folder of seat files: --overwrite
    removes the link itself; the linked folder's files are neither deleted (a stale seat) nor written (seat 0)."""
    victim = tmp_path / "victim"
    (victim / "0").mkdir(parents=True)
    files = {"commands.jsonl": "keep\n", "result.json": "{}", "trajectory.jsonl": "keep\n"}
    for where in (victim, victim / "0"):
        for name, text in files.items():
            (where / name).write_text(text)
    out = tmp_path / "run"
    (out / link).parent.mkdir(parents=True)
    (out / "result.json").write_text("{}")
    (out / link).symlink_to(victim, target_is_directory=True)
    assert 0 == main(["run", WORLD, "--preset", "small", "--seat", "markup", "--seat", "markup", "--out", str(out),
                      "--overwrite", "--no-progress"])
    for where in (victim, victim / "0"):
        assert files == {name: (where / name).read_text() for name in files}
    assert not (out / "seats").is_symlink() and not (out / link).is_symlink()
    assert ["0", "1"] == sorted(p.name for p in (out / "seats").iterdir())
    assert 0 == main(["verify", str(out)])
