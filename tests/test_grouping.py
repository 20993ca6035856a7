"""Grouping columns: an agent option splits groups only where one agent's runs vary in it (analysis.grouping)."""

from __future__ import annotations

import html
import json
import re
import shutil

import pytest

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
import pandas as pd

from bizsim.agents.llm import LLMAgentConfig
from bizsim.analysis import load, metrics
from bizsim.runs import RunSpec, sweep
from bizsim.analysis.grouping import group_name, grouping_columns, label_columns

pytestmark = pytest.mark.xdist_group("grouping")

MODEL = "openai/gpt-4o-mini"


@pytest.fixture(scope="module")
def baselines(tmp_path_factory):
    """A sweep of greedy and planner at one preset and seed, run once for the module."""
    out = tmp_path_factory.mktemp("baselines")
    assert 0 == sweep([RunSpec("startup", "default", a, 1) for a in ("greedy", "planner")], out, backend="serial",
                      progress=False).failed
    return out


def _with_llm_runs(baselines, out, arms):
    """``baselines`` copied to ``out`` plus, per ``(K, seed)`` in ``arms``, an LLM run's record (the greedy run's
    figures under the LLM agent's full option set, as an LLM run records them)."""
    shutil.copytree(baselines, out)
    lines = (out / "results.jsonl").read_text().splitlines()
    greedy = next(json.loads(x) for x in lines if json.loads(x)["spec"]["agent"] == "greedy")
    for k, seed in arms:
        rec = json.loads(json.dumps(greedy))
        options = LLMAgentConfig(model=MODEL, history_rounds=k, temperature=0.0).to_dict()
        rec["run_id"] = f"llm-k{k}-s{seed}"
        rec["spec"].update(agent="llm", seed=seed, agent_options=options)
        lines.append(json.dumps(rec))
    (out / "results.jsonl").write_text("\n".join(lines) + "\n")
    for table in out.glob("*.parquet"):  # the tables are compacted again from the results file
        table.unlink()
    return out


def _headline_names(report_text):
    """The report's headline table as group names (its cells before the metric column)."""
    text = html.unescape(report_text)
    table = text[text.index("Headline number"):]
    table = table[:table.index("</table>")]
    head = re.findall(r"<th(?: [^>]*)?>(.*?)</th>", table)
    cols = head[:head.index("metric")]
    names = {"world": "world", "preset": "preset_label", "agent": "agent", "model": "model"}
    keys = [names.get(c, c.replace(" ", "_")) for c in cols]
    rows = [re.findall(r"<td(?: [^>]*)?>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])]
    return [group_name(dict(zip(keys, r)), keys) for r in rows], cols


def test_one_k_beside_baselines_gives_a_row_an_agent_and_no_option_columns(baselines, tmp_path):
    """greedy + planner + LLM runs at one K: three groups named by their agent alone, in metrics, report and viewer."""
    from bizsim.analysis.report import write_report
    from bizsim.view.sweep_data import sweep_data

    out = _with_llm_runs(baselines, tmp_path / "sw", [(20, 1), (20, 2)])
    runs = load(out).runs
    assert ["agent"] == grouping_columns(runs) == label_columns(runs)
    assert [] == metrics.varied_columns(runs)
    assert ["greedy", "llm", "planner"] == metrics.summarize(runs).agent.tolist()
    names, cols = _headline_names(write_report(out, papers=[]).read_text(encoding="utf-8"))
    assert ["agent"] == cols and ["greedy", "llm", "planner"] == names
    data = sweep_data(out)
    assert [] == data["option_columns"] and names == [g["name"] for g in data["groups"]]


def test_three_ks_beside_greedy_give_four_rows_with_a_k_column(baselines, tmp_path):
    """LLM runs at K = 5, 20, 30 beside greedy: 4 rows, a K column blank for greedy; report and viewer name them alike."""
    from bizsim.analysis.report import write_report
    from bizsim.view.sweep_data import sweep_data

    out = _with_llm_runs(baselines, tmp_path / "sw", [(k, s) for k in (5, 20, 30) for s in (1, 2)])
    (out / "results.jsonl").write_text("".join(
        line + "\n" for line in (out / "results.jsonl").read_text().splitlines()
        if json.loads(line)["spec"]["agent"] != "planner"))
    runs = load(out).runs
    assert ["agent", "history_rounds"] == grouping_columns(runs)
    summary = metrics.summarize(runs)
    assert [("greedy", None), ("llm", 5), ("llm", 20), ("llm", 30)] == [
        (a, None if pd.isna(k) else int(k)) for a, k in zip(summary.agent, summary.history_rounds)]
    names, cols = _headline_names(write_report(out, papers=[]).read_text(encoding="utf-8"))
    assert ["agent", "history rounds"] == cols
    expected = ["greedy", "llm / history rounds 5", "llm / history rounds 20", "llm / history rounds 30"]
    assert expected == names
    data = sweep_data(out)
    assert ["history_rounds"] == data["option_columns"]
    assert expected == [g["name"] for g in data["groups"]]


def test_the_grouping_examples_run():
    """The examples in analysis.grouping's docstrings run."""
    import doctest

    import bizsim.analysis.grouping

    assert 0 == doctest.testmod(bizsim.analysis.grouping).failed


def test_a_run_cut_short_is_grouped_apart_and_never_averaged_with_whole_runs():
    """Two seeds of one agent, one to the world's end ($1.00) and one stopped by its turn cap ($0.50): the stopped
    run is marked, makes a group of its own in every grouped table, and counts as ended early; the mean of the
    whole run stays $1.00."""
    from bizsim.analysis.grouping import with_stops
    from bizsim.analysis.report_tables import headline_table

    runs = pd.DataFrame([
        {"run_id": "a", "world": "startup", "preset_label": "default", "agent": "llm", "seed": 1, "status": "ok",
         "terminal_reason": "horizon_end", "terminal_detail": "horizon_reached", "bankrupt": False,
         "metric": "final_funds_cents", "metric_value": 100, "final_funds_cents": 100},
        {"run_id": "b", "world": "startup", "preset_label": "default", "agent": "llm", "seed": 2, "status": "ok",
         "terminal_reason": "error", "terminal_detail": "max_turns", "bankrupt": False,
         "metric": "final_funds_cents", "metric_value": 50, "final_funds_cents": 50},
    ])
    marked = with_stops(runs)
    assert ["", "stopped: turn cap"] == marked["stopped"].tolist()
    assert ["agent", "stopped"] == label_columns(marked)
    assert [100.0, 50.0] == metrics.summarize(marked)["mean"].tolist()
    assert [100.0, 50.0] == metrics.outcomes(marked, figures=["final_funds_cents"])["mean"].tolist()
    head = headline_table(marked, label_columns(marked))
    assert ["$1.00", "$0.50"] == head["mean"].tolist()
    assert ["0 of 1 (0 %)", "1 of 1 (100 %)"] == head["ended early"].tolist()
    assert ["", "stopped: turn cap"] == head["stopped"].tolist()
