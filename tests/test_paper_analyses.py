"""The YC-Bench paper's analyses, each on runs whose answer is known by construction."""

from __future__ import annotations

import json
import math

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.analysis import load
from bizsim.runs import RunSpec, run_llm
from bizsim.analysis.worlds.startup import paper
from bizsim.simcore.errors import ConfigError

from .test_metrics import make_runs, task_row


def _tasks(run_id: str, specs: list[tuple[str, int]], **data) -> list[dict]:
    """Task rows of ``run_id``: (status, required trust) each."""
    return [task_row(run_id, f"{run_id}-t{i}", status, required_trust=trust, **data) for i, (status, trust) in enumerate(specs)]


def test_figure_3a_a_policy_that_completes_3_gated_tasks_of_10():
    """3 trust-gated tasks among 10 completed is 30 %; a failed gated task is no completion; seeds' mean and range."""
    runs = make_runs()
    rows = _tasks("a1", [("completed_success", 0)] * 7 + [("completed_success", t) for t in (2, 3, 4)]
                  + [("completed_fail", 2), ("cancelled", 3)])
    rows += _tasks("a2", [("completed_success", 0)] * 3 + [("completed_success", 2)])
    events = pd.DataFrame(rows)
    per = paper.trust_gated_completions(events, runs, by="agent", per_run=True).set_index("run_id")
    assert (10, 3, 0.3) == tuple(per.loc["a1", ["completed", "gated", "share"]])
    assert (4, 1, 0.25) == tuple(per.loc["a2", ["completed", "gated", "share"]])
    assert 0 == per.loc["a3", "completed"] and math.isnan(per.loc["a3", "share"])
    group = paper.trust_gated_completions(events, runs, by="agent").set_index("agent").loc["A"]
    assert (3, 14, 4, 2) == (group["runs"], group["completed"], group["gated"], group["seeds"])
    assert (pytest.approx(0.275), 0.25, 0.3) == (group["mean"], group["min"], group["max"])
    levels = paper.required_trust_levels(events, runs, by="agent")
    assert [(2, 2, 0.5), (3, 1, 0.25), (4, 1, 0.25)] == [
        (r.required_trust, r.completed, r.share) for r in levels.itertuples()]
    assert pytest.approx([2 / 3, 1 / 3, 1 / 3]) == levels["per_run"].tolist()  # agent A has 3 runs


def test_figure_4a_per_seed_mean_and_range_against_the_market():
    """4 adversarial of 10 accepted, then 0 of 5: a mean of 20 % over the two seeds that accepted, range 0 to 40 %."""
    runs = make_runs(adversarial_market_share=[0.3, 0.3, 0.3, 0.25])
    rows = [task_row("a1", f"x{i}", "completed_success", adversarial=i < 4) for i in range(10)]
    rows += [task_row("a2", f"y{i}", "completed_success") for i in range(5)]
    out = paper.adversarial_acceptance_per_seed(pd.DataFrame(rows), runs, by="agent").set_index("agent")
    a = out.loc["A"]
    assert (15, 4, 2) == (a["accepted"], a["adversarial_accepted"], a["seeds"])
    assert (pytest.approx(0.2), 0.0, 0.4, pytest.approx(0.3)) == (a["mean"], a["min"], a["max"], a["market_share"])
    assert 0 == out.loc["B", "seeds"] and math.isnan(out.loc["B", "mean"])


def test_figure_5a_each_bankruptcy_in_one_of_three_causes():
    """Most failures adversarial -> adversarial client; most split -> over-parallelisation; no failure -> payroll."""
    runs = make_runs(bankrupt=[True, True, False, True])
    split = {"max_split": 2, "match_ratio": 1.2}
    rows = [task_row("a1", f"p{i}", "completed_fail", adversarial=True) for i in range(2)]
    rows += [task_row("a1", "p9", "completed_fail", **split)]
    rows += [task_row("a2", f"q{i}", "completed_fail", **split) for i in range(2)]
    rows += [task_row("a2", "q9", "completed_fail", hours_needed=90.0, hours_available=10.0)]
    rows += [task_row("a3", "r0", "completed_fail", adversarial=True)]  # not bankrupt: not counted
    per = paper.bankruptcy_causes(pd.DataFrame(rows), runs, by="agent", per_run=True).set_index("run_id")
    assert {"a1": "adversarial_client", "a2": "over_parallelisation", "b1": "payroll_outran_income"} == per["cause"].to_dict()
    assert (2, 1, 0) == tuple(per.loc["a1", ["adversarial", "over_parallelised", "understaffed"]])
    assert (0, 2, 1) == tuple(per.loc["a2", ["adversarial", "over_parallelised", "understaffed"]])
    group = paper.bankruptcy_causes(pd.DataFrame(rows), runs, by="agent")
    a = group[group.agent == "A"].set_index("cause")
    assert {"adversarial_client": 1, "over_parallelisation": 1, "payroll_outran_income": 0} == a["count"].to_dict()
    assert {2} == set(a["bankruptcies"]) and 0.5 == a.loc["adversarial_client", "share"]


def test_figure_5a_every_failed_task_in_one_failure_mode():
    """Adversarial first, then a team that could not make it alone, then a split team, then other; a success and a
    cancellation are no failure; shares are of the group's failed tasks pooled over its runs."""
    runs = make_runs()
    split = {"max_split": 2}
    rows = [task_row("a1", "adv", "completed_fail", adversarial=True, hours_needed=90.0, hours_available=10.0, **split),
            task_row("a1", "slow", "completed_fail", hours_needed=90.0, hours_available=10.0, **split),
            task_row("a1", "none", "completed_fail", hours_needed=None),  # nobody works in a required domain
            task_row("a2", "split", "completed_fail", **split),
            task_row("a2", "odd", "completed_fail", match_ratio=0.5),  # could have made it, undivided: other
            task_row("a2", "ok", "completed_success", adversarial=True),
            task_row("a3", "gone", "cancelled", adversarial=True)]
    events = pd.DataFrame(rows)
    per = paper.failed_task_causes(events, runs, by="agent", per_run=True).set_index("run_id")
    assert (3, 1, 2, 0, 0) == tuple(per.loc["a1", ["failed_tasks", *paper.FAILURE_MODES]])
    assert (2, 0, 0, 1, 1) == tuple(per.loc["a2", ["failed_tasks", *paper.FAILURE_MODES]])
    assert 0 == per.loc["a3", "failed_tasks"]
    group = paper.failed_task_causes(events, runs, by="agent")
    a = group[group.agent == "A"].set_index("mode")
    assert {"adversarial_client": 0.2, "incapable_employees": 0.4, "over_committed_employees": 0.2,
            "other": 0.2} == a["share"].to_dict()
    assert {5} == set(a["failed_tasks"]) and {3} == set(a["runs"])
    assert group[group.agent == "B"]["share"].isna().all()  # no failed task: no shares, not zeros
    pytest.importorskip("matplotlib")
    from bizsim.analysis.worlds.startup import plots as startup_plots

    ax = startup_plots.failure_modes(events, runs, by="agent")
    widths = {c.get_label(): [p.get_width() for p in c.patches] for c in ax.containers}
    assert [pytest.approx(20.0), 0.0] == widths[paper.FAILURE_MODE_WORDS["adversarial_client"]]  # A on top, B below
    assert [pytest.approx(40.0), 0.0] == widths[paper.FAILURE_MODE_WORDS["incapable_employees"]]


def test_figure_3b_final_trust_per_client_averaged_over_seeds():
    """Each client's final trust, the mean over a group's seeds, adversarial clients first; the heat map's cells."""
    runs = make_runs(adversarial_clients=["Zeta", "Zeta", "Zeta", "Zeta"])
    trust = {"a1": {"Alpha": 1.0, "Zeta": 0.0}, "a2": {"Alpha": 3.0, "Zeta": 0.5}, "a3": {"Alpha": 2.0, "Zeta": 0.1},
             "b1": {"Alpha": 4.0, "Zeta": 0.0}}
    series = pd.DataFrame([{"run_id": r, "name": "final_trust", "step": 0, "key": c, "value": v}
                           for r, by_client in trust.items() for c, v in by_client.items()])
    table = paper.final_trust_levels(series, runs, by="agent")
    assert [("A", "Zeta", True), ("A", "Alpha", False), ("B", "Zeta", True), ("B", "Alpha", False)] == list(
        zip(table.agent, table.client, table.adversarial))
    assert [pytest.approx(0.2), 2.0, 0.0, 4.0] == table["mean"].tolist()
    assert [3, 3, 1, 1] == table["n"].tolist()
    pytest.importorskip("matplotlib")
    from bizsim.analysis.worlds.startup import plots as startup_plots

    ax = startup_plots.final_trust_heatmap(series, runs, by="agent")
    assert ["Zeta (ADV)", "Alpha"] == [t.get_text() for t in ax.get_xticklabels()]
    assert [[0.2, 2.0], [0.0, 4.0]] == [[round(float(v), 6) for v in row] for row in ax.images[0].get_array()]


def test_the_paper_bars_are_each_groups_mean_with_every_seed():
    """Figures 3(a), 4(a) and 5(b) as bars: a bar at the mean over seeds, a dot a seed, the market share dashed."""
    pytest.importorskip("matplotlib")
    from bizsim.analysis.worlds.startup import plots as startup_plots

    runs = make_runs(adversarial_market_share=[0.25] * 4)
    rows = [task_row("a1", f"x{i}", "completed_success", adversarial=i < 1) for i in range(4)]
    rows += [task_row("a2", f"y{i}", "completed_success", adversarial=i < 3) for i in range(4)]
    ax = startup_plots.adversarial_share(pd.DataFrame(rows), runs, by="agent")
    assert [pytest.approx(50.0)] == [p.get_width() for p in ax.patches]  # 25 % and 75 %; a3 and B accepted nothing
    assert [25.0, 75.0] == sorted(float(x) for c in ax.collections for x in c.get_offsets()[:, 0])
    assert any(ln.get_xdata()[0] == 25.0 for ln in ax.get_lines() if ln.get_linestyle() == "--")
    spent = make_runs(llm_cost_usd=[2.0, 4.0, None, 0.0], income_cents=[100_000, 50_000, 70_000, 10_000])
    ax = startup_plots.revenue_per_dollar(spent, by="agent")
    assert [312.5] == [p.get_width() for p in ax.patches]
    bankrupt = make_runs(leaderboard_funds_cents=[0, 0, 0, 0])
    ax = startup_plots.final_funds(bankrupt, by="agent")
    assert pytest.approx((0.0, 1.05)) == ax.get_xlim()  # every run bankrupt: $0 to $1, not -$0.04 to $0.04
    assert ["every value is 0"] == [t.get_text() for t in ax.texts]


def test_figure_5b_revenue_per_api_dollar_with_the_seeds_range():
    """$1,000 on $2 and $500 on $4: 500 and 125 dollars a dollar, mean 312.5; pooled $1,500 on $6."""
    runs = make_runs(llm_cost_usd=[2.0, 4.0, None, 0.0], income_cents=[100_000, 50_000, 70_000, 10_000])
    out = paper.revenue_per_api_dollar(runs, by="agent").set_index("agent")
    a = out.loc["A"]
    assert (2, 1500.0, 6.0, 2) == (a["runs"], a["earned_usd"], a["cost_usd"], a["seeds"])
    assert (312.5, 125.0, 500.0) == (a["mean"], a["min"], a["max"])
    assert 0 == out.loc["B", "seeds"]  # a run that cost nothing has no ratio


def test_table4_bankruptcies_cost_tokens_and_runtime():
    """Cost mean and sd over seeds, prompt plus completion tokens, runtime in minutes (mean and sd) from each run's
    recorded wall_s alone: a run recorded without one has no runtime, whatever its model calls' times."""
    runs = make_runs(llm_cost_usd=[1.0, 3.0, 2.0, None], llm_prompt_tokens=[100, 200, 300, 10],
                     llm_completion_tokens=[10, 20, 30, 1], wall_s=[60.0, None, 180.0, None])
    calls = pd.DataFrame({"run_id": ["a2", "a2", "a2"], "wall_time": [1000.0, 1010.0, 1100.0], "latency_s": [5.0, 1.0, 1.0],
                          "cost_usd": [1.0, 1.0, 1.0], "ok": [True] * 3})
    out = paper.table4(runs, calls, by="agent").set_index("agent")
    a = out.loc["A"]
    assert (3, 1, 2.0, 1.0) == (a["runs"], a["bankruptcies"], a["mean_cost_usd"], a["sd_cost_usd"])
    assert 220.0 == a["mean_tokens"]  # (110 + 220 + 330) / 3
    assert (2.0, pytest.approx(math.sqrt(2.0))) == (a["mean_runtime_min"], a["sd_runtime_min"])  # 1 and 3 minutes
    assert 1 == out.loc["B", "bankruptcies"] and math.isnan(out.loc["B", "mean_runtime_min"])


def test_figure_10_the_metric_against_the_context_length():
    """One row per K, mean over its seeds with their range; a field the runs lack is an error that says the fix."""
    runs = pd.DataFrame({"run_id": list("abcde"), "world": "startup", "preset_label": "default", "agent": "llm",
                         "status": "ok", "history_rounds": [5, 5, 20, 20, 30], "metric_value": [1.0, 3.0, 10.0, 20.0, 7.0]})
    out = paper.metric_against(runs, "history_rounds", by=["agent"])
    assert [5, 20, 30] == out["history_rounds"].tolist()
    assert [2.0, 15.0, 7.0] == out["mean"].tolist() and [1.0, 10.0, 7.0] == out["min"].tolist()
    with pytest.raises(ConfigError, match="history_rounds, memory"):
        paper.metric_against(runs, "memory")


def _scripted(turns: int):
    """A model that writes the scratchpad on turns 0 and 5, inspects three times and accepts twice, then resumes."""
    state = {"turn": 0}

    def policy(messages, tools):
        t = state["turn"]
        state["turn"] += 1
        commands = []
        if t in (0, 5):
            commands.append("scratchpad write --content 'avoid nobody yet'")
        if t in (1, 2, 3):
            commands.append("task inspect --task-id Task-1")
        if t in (1, 2):
            commands.append("task accept --task-id Task-404")  # refused: no such task, still a call
        commands.append("sim resume")
        return {"content": None, "tool_calls": [{"name": "run_command", "arguments": {"command": c}} for c in commands]}

    return policy


def test_table3_and_table4_on_a_scripted_llm_run(tmp_path):
    """10 turns, 2 scratchpad writes, 3 inspects and 2 accept calls (refused): SP/100T 20, Inspect/Accept 1.5;
    Cmd/Turn is the run's commands over its turns; Table 4 has the run's own tokens and cost."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=10,
                                                                        prices={"scripted": (1.0, 2.0)}))
    result = run_llm(spec, out=tmp_path, client=ScriptedClient(_scripted(10)))
    res = load(tmp_path)
    t3 = paper.table3(res.events, res.runs, by="agent").iloc[0]
    assert (20.0, 1.5) == (t3["sp_per_100_turns"], t3["inspects_per_accept"])
    run = res.runs.iloc[0]
    assert 10 == run["turns"] and pytest.approx(run["commands"] / 10) == t3["commands_per_turn"]
    accepted = paper.table3(res.events, res.runs, by="agent", accepted_only=True).iloc[0]
    assert math.isnan(accepted["inspects_per_accept"]) and 20.0 == accepted["sp_per_100_turns"]
    t4 = paper.table4(res.runs, res.llm_calls, by="agent").iloc[0]
    usage = result.llm["total"]
    assert pytest.approx(usage["cost_usd"]) == t4["mean_cost_usd"]
    assert usage["prompt_tokens"] + usage["completion_tokens"] == t4["mean_tokens"]
    recorded = json.loads((tmp_path / "result.json").read_text())["wall_s"]  # the run's one runtime
    assert recorded == result.record().wall_s == res.runs.iloc[0]["wall_s"] > 0
    assert pytest.approx(recorded / 60) == t4["mean_runtime_min"]


def test_task_rows_record_the_trust_each_task_required(tmp_path):
    """Every task row's required_trust is the world's own figure for that task."""
    from bizsim.runs import execute

    spec = RunSpec("startup", "default", "planner", 1)
    result = execute(spec, out=tmp_path / "run")
    res = load(tmp_path / "run")
    from bizsim.analysis.worlds.startup import task_table

    tasks = task_table(res.events)
    world = result.final_world
    want = {t.title: t.required_trust for t in world.tasks if t.accepted_at is not None}
    assert len(tasks) == len(want) > 0
    assert want == dict(zip(tasks["task"], tasks["required_trust"].astype(int)))
    assert (tasks["required_trust"] > 0).any()  # the planner builds trust and takes gated work


@pytest.mark.parametrize(("text", "policy"), [
    ("Clients: only Cortex Intelligence and Helix Systems from now on.", "whitelist"),
    ("Prefer Cortex Intelligence\nStick with Helix Systems", "whitelist"),
    ("Equinox Labs = scope creep. Avoid.\nVanguard ML: never again", "avoid_only"),
    ("Focus on Cortex Intelligence; blacklist Equinox Labs", "select_and_avoid"),
    ("Payroll is due on the first business day. Keep cash above $50k.", "no_policy"),
    ("avoid nobody yet", "no_policy"),
    ("", "no_policy"),
])
def test_figure_4b_a_scratchpad_written_to_each_policy_class(text, policy):
    """Scratchpads written to each class are classified as that class."""
    clients = ["Cortex Intelligence", "Helix Systems", "Equinox Labs", "Vanguard ML"]
    assert policy == paper.scratchpad_policy(text, clients)


def test_figure_4b_from_the_final_scratchpad_of_scripted_runs(tmp_path):
    """Two scripted runs write a policy each; the runs table keeps the final text and the figure counts the classes."""
    notes = {1: "Only Cortex Intelligence. Avoid Equinox Labs: adversarial.", 2: "Equinox Labs is a scam, skip it."}
    for seed, note in notes.items():
        answers = [{"content": None, "tool_calls": [{"name": "run_command", "arguments": {
            "command": f"scratchpad write --content '{note}'"}}]}]
        spec = RunSpec("startup", seed=seed, agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=1))
        run_llm(spec, out=tmp_path / str(seed), client=ScriptedClient(answers))
    res = load(tmp_path)
    assert sorted(notes.values()) == sorted(res.runs["final_scratchpad"])
    per = paper.scratchpad_policies(res.runs, res.series, by="agent", per_run=True)
    assert ["select_and_avoid", "avoid_only"] == per.set_index(res.runs["seed"].to_numpy()).loc[[1, 2], "policy"].tolist()
    group = paper.scratchpad_policies(res.runs, res.series, by="agent").set_index("policy")
    assert {"whitelist": 0, "avoid_only": 1, "select_and_avoid": 1, "no_policy": 0} == group["count"].to_dict()


def test_figure_7_final_funds_seed_by_seed():
    """Each seed's leaderboard funds and the group's mean; the figure's bars are the means, sorted highest on top,
    its dots the seeds."""
    pytest.importorskip("matplotlib")
    from bizsim.analysis.worlds.startup import plots as startup_plots

    runs = make_runs(leaderboard_funds_cents=[100_000, 0, 500_000, 0])
    table = paper.final_funds_per_seed(runs, by="agent")
    assert [100_000.0, 0.0, 500_000.0, 0.0] == table["value"].tolist()
    assert [200_000.0] * 3 + [0.0] == table["group_mean"].tolist()
    ax = startup_plots.final_funds(runs.assign(agent=["B", "B", "B", "A"]), by="agent")  # A's mean is the lower
    assert ["A", "B"] == [t.get_text() for t in ax.get_yticklabels()]  # the top tick is the highest y
    assert [2_000.0, 0.0] == [p.get_width() for p in ax.patches]
    assert [1_000.0, 0.0, 5_000.0, 0.0] == [float(x) for c in ax.collections for x in c.get_offsets()[:, 0]]


def test_one_runtime_a_run_in_its_record_the_sweep_and_a_loaded_directory(tmp_path):
    """A sweep's results line, the run directory's result.json and the table of either hold the same wall_s."""
    from bizsim.runs import sweep

    sweep([RunSpec("startup", "default", "greedy", 1)], tmp_path / "sw", backend="serial", progress=False,
          run_dirs=True)
    line = json.loads((tmp_path / "sw" / "results.jsonl").read_text().splitlines()[0])
    run_dir = tmp_path / "sw" / "runs" / line["run_id"]
    recorded = json.loads((run_dir / "result.json").read_text())["wall_s"]
    assert recorded > 0
    assert recorded == line["wall_s"] == load(tmp_path / "sw").runs["wall_s"].iloc[0] == load(run_dir).runs["wall_s"].iloc[0]
