"""Metrics on hand-built tables with known answers, and the YC-Bench leaderboard curve from real runs."""

from __future__ import annotations

import json
import math

import pytest

pd = pytest.importorskip("pandas")

from bizsim.analysis import metrics as m
from bizsim.analysis.worlds import startup as sm

#: t quantile for 2 degrees of freedom has a closed form: (2p - 1) / sqrt(2 p (1 - p)).
T2 = (2 * 0.975 - 1) / math.sqrt(2 * 0.975 * 0.025)
US_PER_DAY = 86_400_000_000


def make_runs(**columns) -> pd.DataFrame:
    """Runs a1, a2, a3 (agent A) and b1 (agent B) of one world and preset, all finished."""
    base = {
        "run_id": ["a1", "a2", "a3", "b1"], "world": "startup", "preset_label": "default", "agent": ["A", "A", "A", "B"],
        "seed": [1, 2, 3, 1], "status": "ok", "bankrupt": [False, True, False, True], "collapsed": False,
        "metric_value": [10.0, 20.0, 30.0, -5.0],
    }
    base.update(columns)
    return pd.DataFrame(base)


def task_row(run_id: str, task: str, status: str, *, success=None, **data) -> dict:
    """An events row of kind ``task``."""
    fields = {"adversarial": False, "observed": True, "max_split": 1, "hours_needed": 10.0, "hours_available": 63.0,
              "match_ratio": 1.1, "team_size": 8, "dispatched_t_us": None, "end_t_us": None}
    fields.update(data)
    return {"run_id": run_id, "t_us": 0, "day": 0, "kind": "task", "name": status, "ok": success, "task": task,
            "client": "C", "value": 100.0, "data": json.dumps(fields)}


def cmd_row(run_id: str, name: str, day: int = 0, ok: bool = True) -> dict:
    """An events row of kind ``cmd``."""
    return {"run_id": run_id, "t_us": day * US_PER_DAY, "day": day, "kind": "cmd", "name": name, "ok": ok, "task": None,
            "client": None, "value": None, "data": None}


def test_mean_ci_is_the_student_t_interval():
    """mean ± t(0.975, n-1) s / sqrt(n); NaN interval for one value; nothing for none."""
    mean, lo, hi, n = m.mean_ci([10.0, 20.0, 30.0])
    half = T2 * 10.0 / math.sqrt(3)
    assert (20.0, 3) == (mean, n)
    assert pytest.approx(20.0 - half, rel=1e-9) == lo
    assert pytest.approx(20.0 + half, rel=1e-9) == hi
    one = m.mean_ci([5.0, float("nan")])
    assert (5.0, 1) == (one[0], one[3]) and math.isnan(one[1])
    assert 0 == m.mean_ci([])[3]


def test_wilson_interval():
    """The Wilson score interval of 1 in 3, and of 0 in 1."""
    assert pytest.approx((0.0614919447, 0.7923403992), abs=1e-9) == m.wilson(1, 3)
    assert pytest.approx((0.0, 0.7934506856), abs=1e-9) == m.wilson(0, 1)
    assert all(math.isnan(x) for x in m.wilson(0, 0))


def test_summarize_and_outcomes_over_seeds():
    """Per-group mean, sample std and t interval; outcomes lists the figures the runs have; failed runs are left out."""
    runs = make_runs(final_funds_cents=[10, 20, 30, -5], income_cents=[1000, 0, 500, 200])
    runs = pd.concat([runs, make_runs().iloc[:1].assign(run_id="a4", status="error", metric_value=None)], ignore_index=True)
    s = m.summarize(runs, "metric_value", by="agent")
    a = s.set_index("agent").loc["A"]
    assert (3, 20.0, 10.0) == (a["n"], a["mean"], a["std"])
    assert pytest.approx(20.0 + T2 * 10 / math.sqrt(3)) == a["ci_high"]
    assert 1 == s.set_index("agent").loc["B", "n"] and math.isnan(s.set_index("agent").loc["B", "ci_low"])
    o = m.outcomes(runs, by="agent")
    assert {"metric_value", "final_funds_cents", "income_cents"} == set(o.figure)
    assert 500.0 == o[(o.agent == "A") & (o.figure == "income_cents")]["mean"].item()


def test_rates_count_bankruptcies_collapses_and_errors():
    """Bankruptcy and collapse rates over finished runs with Wilson bounds; error rate over all runs."""
    runs = make_runs(collapsed=[False, False, True, False])
    runs = pd.concat([runs, runs.iloc[:1].assign(run_id="a4", status="error", bankrupt=None)], ignore_index=True)
    r = m.rates(runs, by="agent").set_index("agent")
    assert (4, 3, 1, 1, 1) == tuple(r.loc["A", ["runs", "finished", "bankruptcies", "collapses", "errors"]])
    assert pytest.approx(1 / 3) == r.loc["A", "bankruptcy_rate"]
    assert pytest.approx(0.0614919447) == r.loc["A", "bankruptcy_low"]
    assert 0.25 == r.loc["A", "error_rate"]
    assert 1.0 == r.loc["B", "bankruptcy_rate"]


def series_rows(run_id: str, values: list[float], name: str = "month_end_funds_cents") -> list[dict]:
    return [{"run_id": run_id, "name": name, "step": i, "key": f"2025-{i + 1:02d}", "value": v} for i, v in enumerate(values)]


def test_series_over_time_fills_runs_that_ended_early():
    """auto: a bankrupt run counts 0 from its last point, another run its last value; None: only runs still going."""
    runs = make_runs(bankrupt=[False, True, False, False])
    series = pd.DataFrame(series_rows("a1", [100, 110, 120]) + series_rows("a2", [100, -50]) + series_rows("a3", [100, 130]))
    auto = m.series_over_time(series, runs, "month_end_funds_cents", by="agent")
    assert [100.0, 80.0, 250 / 3] == pytest.approx(auto["mean"].tolist())
    assert ["2025-01", "2025-02", "2025-03"] == auto["key"].tolist()
    assert [3, 3, 3] == auto["n"].tolist()
    last = m.series_over_time(series, runs, "month_end_funds_cents", by="agent", fill="last")
    assert [100.0, 190 / 3, 200 / 3] == pytest.approx(last["mean"].tolist())
    none = m.series_over_time(series, runs, "month_end_funds_cents", by="agent", fill=None)
    assert [3, 3, 1] == none["n"].tolist() and 120.0 == none["mean"].iloc[2]
    assert (-50.0, 130.0) == (none["min"].iloc[1], none["max"].iloc[1])


def test_failure_causes_follow_their_definitions():
    """Each cause from its fact; the primary cause is the first in CAUSES; successes are not failures."""
    events = pd.DataFrame([
        task_row("a1", "t1", "completed_fail", success=False, adversarial=True, hours_needed=100.0),
        task_row("a1", "t2", "completed_fail", success=False, max_split=2, match_ratio=0.8),
        task_row("a1", "t3", "completed_fail", success=False),
        task_row("a1", "t4", "completed_fail", success=False, hours_needed=None),
        task_row("a1", "t5", "completed_success", success=True, adversarial=True, hours_needed=100.0),
        task_row("b1", "t6", "completed_fail", success=False, match_ratio=0.99),
    ])
    f = sm.failure_causes(events).set_index("task")
    assert ["t1", "t2", "t3", "t4", "t6"] == f.index.tolist()
    assert [True, False, False, False, False] == f["adversarial"].tolist()
    assert [True, False, False, True, False] == f["understaffed"].tolist()
    assert [False, True, False, False, False] == f["over_parallelised"].tolist()
    assert [False, True, False, False, True] == f["poor_domain_match"].tolist()
    assert [False, False, True, False, False] == f["unexplained"].tolist()
    assert ["adversarial", "over_parallelised", "unexplained", "understaffed", "poor_domain_match"] == f["primary_cause"].tolist()
    counts = sm.failure_cause_counts(events, make_runs(), by="agent")
    a = counts[counts.agent == "A"].set_index("cause")
    assert [4, 4, 4, 4, 4] == a["failed_tasks"].tolist()
    assert [1, 2, 1, 1, 1] == a["count"].tolist()
    assert [1, 1, 1, 0, 1] == a["primary"].tolist()
    assert [0.25, 0.5, 0.25, 0.25, 0.25] == a["share"].tolist()
    assert 1 == counts[(counts.agent == "B") & (counts.cause == "poor_domain_match")]["primary"].item()


def test_adversarial_acceptance_against_market_share():
    """Pooled share of accepted tasks from adversarial clients, over the mean market share."""
    events = pd.DataFrame([
        task_row("a1", "t1", "completed_fail", adversarial=True), task_row("a1", "t2", "completed_success"),
        task_row("a1", "t3", "active"), task_row("a2", "t4", "completed_fail", adversarial=True),
        task_row("a2", "t5", "planned"), task_row("b1", "t6", "completed_success"),
    ])
    runs = make_runs(adversarial_market_share=[0.33, 0.30, 0.36, 0.25])
    a = sm.adversarial_acceptance(events, runs, by="agent").set_index("agent")
    assert (3, 5, 2) == tuple(a.loc["A", ["runs", "accepted", "adversarial_accepted"]])
    assert pytest.approx(0.4) == a.loc["A", "acceptance_rate"]
    assert pytest.approx(0.33) == a.loc["A", "market_share"]
    assert pytest.approx(0.4 / 0.33) == a.loc["A", "ratio"]
    assert 0.0 == a.loc["B", "acceptance_rate"]


def test_final_trust_per_client():
    """Mean and bootstrap interval of each client's final trust; adversarial clients flagged from the runs."""
    series = pd.DataFrame(
        [{"run_id": r, "name": "final_trust", "step": 0, "key": "Helix", "value": v} for r, v in (("a1", 3.0), ("a2", 2.0), ("a3", 4.0))]
        + [{"run_id": r, "name": "final_trust", "step": 1, "key": "Vanguard ML", "value": v} for r, v in (("a1", 0.5), ("a2", 0.0), ("a3", 1.0))]
    )
    runs = make_runs(adversarial_clients="Equinox Labs,Vanguard ML")
    t = sm.final_trust(series, runs, by="agent").set_index("client")
    assert [False, True] == t["adversarial"].tolist()
    assert [3.0, 0.5] == t["mean"].tolist()
    # the percentile bootstrap interval of the mean: within the seeds' trust, never below zero trust
    assert (2.0, 4.0) == (t.loc["Helix", "ci_low"], t.loc["Helix", "ci_high"])
    assert 0.0 == t.loc["Vanguard ML", "ci_low"]


def test_tool_use_statistics():
    """Scratchpad writes per 100 turns, inspects per accept, time-weighted concurrency, commands per turn."""
    runs = make_runs(turns=[10, 20, 5, 0], commands=[40, 30, 5, 0], end_t_us=[1000, 2000, 1000, 0])
    rows = [cmd_row("a1", "scratchpad write"), cmd_row("a1", "scratchpad write"), cmd_row("a1", "scratchpad write", ok=False),
            cmd_row("a1", "scratchpad append")] + [cmd_row("a1", "task inspect")] * 3 + [cmd_row("a1", "task accept")] * 5
    rows += [cmd_row("a2", "task accept"), cmd_row("a2", "task inspect", ok=False)]
    rows += [task_row("a1", "t1", "completed_success", dispatched_t_us=0, end_t_us=400),
             task_row("a1", "t2", "completed_fail", dispatched_t_us=100, end_t_us=600),
             task_row("a1", "t3", "active", dispatched_t_us=500, end_t_us=None),
             task_row("a1", "t4", "planned"),
             task_row("a2", "t5", "completed_success", dispatched_t_us=1000, end_t_us=2000)]
    calls = sm.tool_use(pd.DataFrame(rows), runs, by="agent", per_run=True).set_index("run_id")
    assert (4, 3, 5) == tuple(calls.loc["a1", ["scratchpad_writes", "inspects", "accepts"]])  # the paper counts calls
    assert (40.0, 1.0) == tuple(calls.loc[["a1", "a2"], "scratchpad_writes_per_100_turns"].tolist()[:1]) + (
        calls.loc["a2", "inspects_per_accept"],)  # a2's refused inspect counts
    per = sm.tool_use(pd.DataFrame(rows), runs, by="agent", per_run=True, accepted_only=True).set_index("run_id")
    assert (3, 3, 5) == tuple(per.loc["a1", ["scratchpad_writes", "inspects", "accepts"]])
    assert 30.0 == per.loc["a1", "scratchpad_writes_per_100_turns"]
    assert 0.6 == per.loc["a1", "inspects_per_accept"]
    assert 1.4 == per.loc["a1", "mean_concurrent_tasks"]  # (400 + 500 + 500) / 1000
    assert 4.0 == per.loc["a1", "commands_per_turn"]
    assert (0.0, 0.5, 1.5) == tuple(per.loc["a2", ["inspects_per_accept", "mean_concurrent_tasks", "commands_per_turn"]])
    assert math.isnan(per.loc["a3", "inspects_per_accept"]) and 0.0 == per.loc["a3", "mean_concurrent_tasks"]
    assert math.isnan(per.loc["b1", "commands_per_turn"])
    group = sm.tool_use(pd.DataFrame(rows), runs, by="agent", accepted_only=True).set_index("agent")
    assert 3 == group.loc["A", "runs"]
    assert pytest.approx(0.3) == group.loc["A", "inspects_per_accept"]  # mean of 0.6 and 0.0; a3 has none
    assert pytest.approx((1.4 + 0.5 + 0.0) / 3) == group.loc["A", "mean_concurrent_tasks"]


def test_cost_per_dollar_earned():
    """Sum of model dollars over sum of income dollars; call logs fill a missing run cost; unknown costs are left out."""
    runs = make_runs(llm_cost_usd=[1.0, 2.0, None, 0.5], income_cents=[100_000, 0, 50_000, 0])
    calls = pd.DataFrame({"run_id": ["a3", "a3"], "cost_usd": [0.1, 0.15], "ok": [True, True]})
    c = m.cost_per_dollar(runs, calls, by="agent").set_index("agent")
    assert (3, 3.25, 1500.0) == tuple(c.loc["A", ["runs", "cost_usd", "earned_usd"]])
    assert pytest.approx(3.25 / 1500) == c.loc["A", "cost_per_dollar"]
    assert pytest.approx(20.0) == c.loc["A", "mean_score"]
    assert math.isnan(c.loc["B", "cost_per_dollar"])
    unknown = pd.DataFrame({"run_id": ["a3", "a3"], "cost_usd": [0.1, None], "ok": [True, True]})
    assert 2 == m.cost_per_dollar(runs, unknown, by="agent").set_index("agent").loc["A", "runs"]
    audited = calls.assign(role=[None, "auditor"])  # a world role's call is not the agent's cost
    assert pytest.approx(3.1) == m.cost_per_dollar(runs, audited, by="agent").set_index("agent").loc["A", "cost_usd"]


def test_action_frequencies_over_time():
    """Accepted actions per bin: counts, per run, shares; advance commands and refusals left out."""
    runs = make_runs(run_id=["o1", "o2", "o3", "o4"], agent=["T", "T", "X", "X"], world="operation")
    events = pd.DataFrame([
        cmd_row("o1", "creator_incentive", 0), cmd_row("o2", "creator_incentive", 0), cmd_row("o1", "task_done", 0),
        cmd_row("o1", "moderation_tighten", 1), cmd_row("o2", "creator_incentive", 1), cmd_row("o2", "engagement_tune", 2, ok=False),
        cmd_row("o1", "creator_incentive", 7),
    ])
    f = m.action_frequencies(events, runs, by="agent", bin_days=7)
    assert [(0, 0, "creator_incentive", 3, 1.5, 0.75), (0, 0, "moderation_tighten", 1, 0.5, 0.25), (1, 7, "creator_incentive", 1, 0.5, 1.0)] == [
        tuple(r) for r in f[["bin", "day", "action", "count", "per_run", "share"]].itertuples(index=False)
    ]
    assert {"T"} == set(f.agent)


def test_the_greedy_reference_leaderboard_curve_to_the_cent(tmp_path):
    """Month-end funds averaged over seeds 1-3, bankrupt seeds as 0: the YC-Bench website's greedy curve."""
    from bizsim.analysis import load
    from bizsim.runs import grid, sweep

    pytest.importorskip("pyarrow")
    sweep(grid("startup", "reference", "greedy-reference", "1-3"), tmp_path, backend="serial", progress=False)
    res = load(tmp_path)
    curve = m.series_over_time(res.series, res.runs, "month_end_funds_cents", by="agent")
    cents = dict(zip(curve["key"], (round(v) for v in curve["mean"])))
    assert {"2025-02": 19_508_372, "2025-03": 16_021_477, "2025-04": 12_940_826, "2025-05": 9_625_886,
            "2025-06": 5_513_356, "2025-07": 1_999_420, "2025-08": 375_559, "2025-09": 0} == {k: cents[k] for k in list(cents)[1:]}


def test_series_fill_keeps_stocks_stops_flows_and_runs_every_group_to_the_end():
    """A collapsed career keeps its money and earns nothing more; an all-bankrupt group stays at 0 to the last step."""
    runs = make_runs(world="freelance", bankrupt=[False, False, False, True], collapsed=[True, False, False, False])
    money = pd.DataFrame(series_rows("a1", [500, 700], "daily_money_cents") + series_rows("a3", [500, 600, 800], "daily_money_cents")
                         + series_rows("b1", [500, -10], "daily_money_cents"))
    curve = m.series_over_time(money, runs, "daily_money_cents", by="agent")
    a = curve[curve.agent == "A"]["mean"].tolist()
    b = curve[curve.agent == "B"]["mean"].tolist()
    assert ([500.0, 650.0, 750.0], [500.0, 0.0, 0.0]) == (pytest.approx(a), b)  # a1 keeps 700; b1 is 0 to step 2
    income = pd.DataFrame(series_rows("a1", [5, 7], "daily_income_cents") + series_rows("a3", [5, 6, 8], "daily_income_cents"))
    assert [5.0, 6.5, 4.0] == pytest.approx(m.series_over_time(income, runs, "daily_income_cents", by="agent")["mean"].tolist())


def test_leaderboard_funds_count_a_bankruptcy_as_zero():
    from bizsim.runs import grid
    from bizsim.runs._worker import record_run

    bankrupt = record_run(grid("startup", "nightmare", "random", 1)[0].to_dict())["run"]
    assert bankrupt["bankrupt"] and bankrupt["final_funds_cents"] < 0 == bankrupt["leaderboard_funds_cents"]
    kept = record_run(grid("startup", "default", "greedy", 1)[0].to_dict())["run"]
    assert kept["final_funds_cents"] == kept["leaderboard_funds_cents"] > 0


def test_cost_per_dollar_shows_the_cached_share_of_prompt_tokens():
    """The share of prompt tokens served from a prompt cache, per group; NaN when the runs do not say."""
    runs = make_runs(llm_cost_usd=[1.0, 2.0, 0.5, 0.5], income_cents=[100_000, 0, 50_000, 0],
                     llm_prompt_tokens=pd.array([1000, 3000, 500, 100], dtype="Int64"),
                     llm_cache_read_tokens=pd.array([900, 1100, 0, None], dtype="Int64"))
    c = m.cost_per_dollar(runs, by="agent").set_index("agent")
    assert pytest.approx(2000 / 4500) == c.loc["A", "cached_share"]
    assert math.isnan(m.cost_per_dollar(runs.drop(columns=["llm_cache_read_tokens"]), by="agent")["cached_share"][0])
