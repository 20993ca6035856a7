"""startup-v2 as a person meets it: `bizsim run` names its hires, fires and disruptions, and its run page keeps the
signal-truth record apart; both from its registry entry, neither naming the world."""

from __future__ import annotations

from pathlib import Path

import pytest

from bizsim.cli import main
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import WorldSpec, world_spec
from bizsim.simcore.tallies import tally_names
from bizsim.view.run_data import run_data

from ._shared_runs import V2_HARD_PLANNER, played_once


@pytest.fixture(scope="module")
def hard_run(tmp_path_factory) -> tuple[Path, str]:
    """startup-v2, hard, planner, seed 1 (it hires, meets a downturn, a client going under and late payments), and
    what `bizsim run ... --out DIR` printed (played once for the session: tests/_shared_runs.py)."""
    return played_once(tmp_path_factory, V2_HARD_PLANNER)


def test_the_run_summary_names_hires_fires_and_disruptions(hard_run):
    """The lines the registry entry declares, counted as the report's table of hires, fires and disruptions
    counts them (a refused command does not count)."""
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from bizsim.analysis import load
    from bizsim.analysis.worlds.startup.v2 import mechanics_table

    out, printed = hard_run
    lines = {ln.strip().split(":")[0]: ln.strip() for ln in printed.splitlines()}
    assert "staff: hired 4, started 4, fired 0, resigned 0" == lines["staff"]
    assert "disruptions: warnings 0, downturns 1, clients gone under 1, late payments 56" == lines["disruptions"]
    res = load(out)
    table = mechanics_table(res.events, res.runs, ["agent"]).iloc[0]
    declared = world_spec("startup-v2").tallies
    for line, counts in declared.items():
        for label, names in counts.items():
            assert f"{label} {int(sum(table[n] for n in names)):,}" in lines[line], (line, label)


def test_a_world_without_tallies_prints_none(capsys):
    """startup-v1 declares no tallies: its summary has no such line."""
    assert 0 == main(["run", "startup", "--seed", "1", "--no-progress"])
    printed = capsys.readouterr().out
    assert "staff:" not in printed and "disruptions:" not in printed and "tasks: 42 succeeded" in printed


def test_the_report_table_and_the_summary_count_the_same_names():
    """The report's columns are the names the registry entry tallies, in its order."""
    from bizsim.analysis.worlds.startup.v2 import MECHANIC_EVENTS

    assert tally_names(world_spec("startup-v2").tallies) == MECHANIC_EVENTS
    assert ("employee hire", "employee_started", "employee fire", "employee_resigned") == MECHANIC_EVENTS[:4]


def test_signal_truth_marks_are_quiet(hard_run):
    """The run page's data marks the kinds the registry calls quiet, and only those."""
    out, _ = hard_run
    data = run_data(out, requests=False)
    quiet = [m for m in data["markers"] if m.get("quiet")]
    assert ["signal_truth"] == data["meta"]["quiet"] == sorted({m["name"] for m in quiet})
    assert 1837 == len(quiet) and all(m["name"] != "signal_truth" for m in data["markers"] if not m.get("quiet"))


@pytest.mark.parametrize(("tallies", "match"), [
    ({"staff": {"hired": ()}}, r"tallies\['staff'\]\['hired'\]\(=\(\)\) must name the commands or events"),
    ({"staff": ["employee hire"]}, r"tallies\['staff'\] must map a line's label"),
    ({"staff": {"hired": (3,)}}, r"must name the commands or events it counts"),
])
def test_bad_tallies_are_refused(tallies, match):
    """A tally that counts nothing, or is not label -> names, is refused with the rule."""
    with pytest.raises(ConfigError, match=match):
        WorldSpec(name="w", version=1, factory="m:W", presets="m:P", agents={"a": "m:a"}, default_agent="a",
                  tallies=tallies)
