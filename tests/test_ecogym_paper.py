"""The EcoGym paper's analyses, each on runs whose answer is known by construction."""

from __future__ import annotations

import math

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from bizsim.agents.llm import ScriptedClient
from bizsim.analysis import load
from bizsim.runs import RunSpec, execute, run_llm
from bizsim.analysis.worlds.ecogym import paper
from bizsim.simcore.errors import ConfigError


def _runs(rows: list[tuple]) -> pd.DataFrame:
    """Finished runs: (run id, world, agent, figure column, value, extra columns)."""
    out = []
    for rid, world, agent, column, value, *extra in rows:
        out.append({"run_id": rid, "world": world, "preset_label": "default", "agent": agent, "seed": len(out) + 1,
                    "status": "ok", column: value, **(extra[0] if extra else {})})
    return pd.DataFrame(out)


def test_table2_vending_over_five_runs_mean_and_sample_sd():
    """Five Vending runs of $100..$500: mean $300, sd $158.11 (n - 1); Freelance income, Operation DAU; a failed run
    is no run of the table."""
    rows = [(f"v{i}", "vending", "m", "net_worth_cents", 10_000 * i) for i in range(1, 6)]
    rows += [("f1", "freelance", "m", "income_cents", 52_000), ("o1", "operation", "m", "mean_dau", 1500.5)]
    runs = _runs(rows)
    runs.loc[len(runs)] = {**runs.iloc[0].to_dict(), "run_id": "bad", "status": "error", "net_worth_cents": 10**9}
    t2 = paper.table2(runs, by="agent").set_index("world")
    v = t2.loc["vending"]
    assert (5, 5, 5, 30_000.0, 10_000.0, 50_000.0) == (v["runs"], v["paper_runs"], v["n"], v["mean"], v["min"], v["max"])
    assert pytest.approx(math.sqrt(250_000_000)) == v["sd"]
    assert ("income_cents", 52_000.0) == (t2.loc["freelance", "figure"], t2.loc["freelance", "mean"])
    assert math.isnan(t2.loc["operation", "sd"]) and 1500.5 == t2.loc["operation", "mean"]
    wide = paper.table2_wide(runs, by="agent").iloc[0]
    assert ("$300.00 ± $158.11", 5, "$520.00", "1,500.5") == (
        wide["vending: net worth"], wide["vending runs"], wide["freelance: income"], wide["operation: DAU"])
    other = paper.table2(runs, by="agent", figures={"freelance": "final_money_cents"}).set_index("world")
    assert "final_money_cents" == other.loc["freelance", "figure"] and math.isnan(other.loc["freelance", "mean"])


def test_context_length_and_memory_modules_per_arm():
    """Two arms of K, and memory arms against no module: the change is the arm's mean minus the none arm's."""
    rows = [("a", "vending", "llm", "net_worth_cents", 100, {"history_messages": 32, "memory": None}),
            ("b", "vending", "llm", "net_worth_cents", 300, {"history_messages": 32, "memory": None}),
            ("c", "vending", "llm", "net_worth_cents", 500, {"history_messages": 128, "memory": "window"}),
            ("d", "vending", "llm", "net_worth_cents", 700, {"history_messages": 128, "memory": "scratchpad"}),
            ("e", "vending", "markup", "net_worth_cents", 9, {"history_messages": None, "memory": None})]
    runs = _runs(rows)
    k = paper.context_length(runs, by="agent")
    assert [(32, 2, 200.0), (128, 2, 600.0)] == [(r.history_messages, r.runs, r.mean) for r in k.itertuples()]
    mem = paper.memory_modules(runs, by="agent").set_index("memory")
    assert ["none", "scratchpad", "window"] == sorted(mem.index)
    assert (0.0, 500.0, 300.0) == tuple(mem.loc[["none", "scratchpad", "window"], "change"])
    assert pytest.approx(150.0) == mem.loc["window", "change_pct"]
    with pytest.raises(ConfigError, match="history_messages, memory"):
        paper.context_length(runs.drop(columns=["history_messages"]))


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    """Operation runs of a scripted model: engagement_tune on each of the first 30 days, creator_incentive after,
    60 days; three arms (K 16 without memory, K 64 without, K 64 with the window module) and a baseline."""
    root = tmp_path_factory.mktemp("ecogym-paper")

    def scripted_model():
        calls = [0]  # the model's own count of its calls: the messages it is sent are cut to its window

        def policy(messages, tools):
            calls[0] += 1
            name = "engagement_tune" if calls[0] <= 30 else "creator_incentive"
            return {"content": None, "tool_calls": [{"name": name, "arguments": {}}]}

        return ScriptedClient(policy)

    arms = [{"history_messages": 16}, {"history_messages": 64}, {"history_messages": 64, "memory": ["window"]}]
    for i, arm in enumerate(arms):
        spec = RunSpec("operation", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 60, **arm})
        run_llm(spec, out=root / f"arm{i}", client=scripted_model())
    execute(RunSpec("operation", "default", "always-engagement_tune", 1), out=root / "base")
    return load(root)


def test_actions_over_time_a_known_number_of_actions_per_phase(scripted):
    """30 engagement_tune calls in days 0-29, 30 creator_incentive in days 30-59: one a run-day in each phase; the
    baseline tunes engagement every day of the year, its last phase 5 days long."""
    out = paper.actions_over_time(scripted.events, scripted.runs, by=["agent", "history_messages", "memory"])
    llm = out[(out["agent"] == "llm") & (out["history_messages"] == 16)]
    assert [(0, "engagement_tune", 30, 1.0, 1.0), (1, "creator_incentive", 30, 1.0, 1.0)] == [
        (r.phase, r.action, r.calls, r.per_run_day, r.share) for r in llm.itertuples()]
    base = out[out["agent"] == "always-engagement_tune"]
    assert 13 == len(base) and {1.0} == set(base["per_run_day"]) and (12, 5) == tuple(base[["phase", "calls"]].iloc[-1])


def test_context_and_memory_arms_of_real_runs_are_grouping_columns(scripted):
    """The scripted model does the same whatever it is told to keep or recall, so every arm's DAU is the same: the
    context figure has one point a K, and the window module's change is exactly 0."""
    runs = scripted.runs
    assert {"history_messages", "memory"} <= set(runs.columns)
    k = paper.context_length(runs, by="agent")
    assert [16, 64] == k["history_messages"].tolist() and [1, 2] == k["runs"].tolist()
    assert 1 == k["mean"].nunique()
    mem = paper.memory_modules(runs, by=["agent", "history_messages"])
    assert [("none", 0.0), ("window", 0.0)] == [(r.memory, r.change) for r in mem[mem["history_messages"] == 64]
                                                .itertuples()]
    assert "always-engagement_tune" not in set(mem["agent"])


def test_the_report_lays_the_paper_out_in_one_section(scripted, tmp_path):
    """The three worlds name one paper section (the report draws it once, after them); it holds Table 2 as the paper
    lays it out, the context-length figure (K varies), the memory table and the actions over time."""
    from bizsim.analysis.report import _Doc, _papers
    from bizsim.analysis.worlds.hooks import ReportContext

    papers = _papers(["freelance", "operation", "startup", "vending"])
    assert [("yc-bench", ["startup"]), ("ecogym", ["freelance", "operation", "vending"])] == [
        (p.name, p.worlds) for p in sorted(papers, key=lambda p: p.name != "yc-bench")]
    doc, n = _Doc(tmp_path), iter(range(1, 100))
    next(p for p in papers if p.name == "ecogym").hook(ReportContext(doc, scripted.events, scripted.series, scripted.runs,
                                  ["preset_label", "agent", "history_messages", "memory"], lambda: next(n)))
    section = "\n".join(doc.parts)
    for caption in ("Table 2: net worth (Vending)", "the messages the agent keeps", "Memory modules",
                    "operation: actions over time"):
        assert caption in section
    dau = paper.table2(scripted.runs).query("agent == 'always-engagement_tune'")["mean"].iloc[0]
    assert f"{dau:,.1f}" in section


def test_report_paper_ecogym_is_the_summary_and_the_papers_section(scripted, tmp_path):
    """``bizsim report DIR --paper ecogym``: the summary, the EcoGym section and the provenance, no world's own
    section; a paper no world of the runs lays out is refused with the ones that are."""
    from bizsim.analysis.report import write_report

    page = write_report(tmp_path, tmp_path / "rep", results=scripted, papers=["ecogym"]).read_text()
    assert 'id="paper-the-ecogym-paper-s-analyses"' in page and 'id="summary"' in page
    assert 'id="world-operation"' not in page and 'id="runs"' not in page
    with pytest.raises(ConfigError, match="name one of: ecogym"):
        write_report(tmp_path, tmp_path / "rep", results=scripted, papers=["yc-bench"])
