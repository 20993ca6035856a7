"""Paired comparisons by seed, on runs whose answer is known by construction: identical agents differ by 0 with
p = 1; an agent better by a constant on every seed has that constant as its interval; Holm counts every comparison."""

from __future__ import annotations

import doctest
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pd = pytest.importorskip("pandas")

from bizsim.analysis import comparisons, paired_comparisons
from bizsim.analysis.comparisons import EXACT_PAIRS, holm, sign_flip_p


def _runs(values: dict[str, list[float]], seeds: list[int] | None = None, **extra) -> pd.DataFrame:
    rows = []
    for agent, vs in values.items():
        for seed, v in zip(seeds or range(1, len(vs) + 1), vs):
            rows.append({"world": "startup", "preset_label": "default", "agent": agent, "seed": seed, "status": "ok",
                         "metric_value": v, **extra})
    return pd.DataFrame(rows)


def test_doctests():
    """The module's examples hold."""
    assert 0 == doctest.testmod(comparisons).failed


def test_identical_agents_differ_by_nothing():
    """Two agents with the same value on every seed: difference 0, interval [0, 0], p = 1."""
    seeds = [3.0, 10.0, -4.0, 8.0, 0.0]
    row = paired_comparisons(_runs({"a": seeds, "b": list(seeds)}), by="agent").iloc[0]
    assert (0.0, 0.0, 0.0, 1.0, 1.0, 5) == (row.difference, row.ci_low, row.ci_high, row.p_value, row.p_holm, row.pairs)


def test_an_agent_better_by_a_constant():
    """b is a plus 250 on every seed: the difference is -250, its interval is -250 alone (0 is outside), and the
    exact sign-flip p-value is 2 / 2^n."""
    a = [100.0, 5_000.0, 42.0, 7.0, 900.0, 13.0]
    runs = _runs({"a": a, "b": [x + 250 for x in a]})
    row = paired_comparisons(runs, by="agent").iloc[0]
    assert (-250.0, -250.0, -250.0) == (row.difference, row.ci_low, row.ci_high)
    assert not row.ci_low <= 0 <= row.ci_high
    assert 2 / 2 ** 6 == row.p_value == 0.03125
    assert 0.25 == paired_comparisons(_runs({"a": a[:3], "b": [x + 250 for x in a[:3]]}), by="agent").p_value.iloc[0]


def test_only_shared_seeds_are_paired():
    """Seeds one arm lacks, and failed runs, pair with nothing; a seed repeated within an arm is averaged."""
    runs = pd.concat([
        _runs({"a": [1.0, 2.0, 3.0, 4.0]}, seeds=[1, 2, 3, 4]),
        _runs({"b": [0.0, 0.0, 9.0]}, seeds=[2, 3, 5]),
        pd.DataFrame([{"world": "startup", "preset_label": "default", "agent": "b", "seed": 1, "status": "error",
                       "metric_value": None},
                      {"world": "startup", "preset_label": "default", "agent": "a", "seed": 3, "status": "ok",
                       "metric_value": 5.0}]),
    ], ignore_index=True)
    row = paired_comparisons(runs, by="agent").iloc[0]
    assert 2 == row.pairs  # seeds 2 and 3
    assert pytest.approx((2.0 + 4.0) / 2) == row.mean_a  # seed 3 of a: (3 + 5) / 2
    assert 0.0 == row.mean_b


def test_every_pair_within_one_world_and_preset():
    """k arms give k(k-1)/2 comparisons per preset; arms of different presets are not compared; Holm's m is the
    table's number of comparisons."""
    one = _runs({"a": [1.0, 2.0, 3.0], "b": [2.0, 3.0, 4.0], "c": [5.0, 5.0, 5.0], "d": [0.0, 1.0, 0.0]})
    two = one.assign(preset_label="hard")
    table = paired_comparisons(pd.concat([one, two], ignore_index=True), by="agent")
    assert 12 == len(table) and {12} == set(table["comparisons"])
    assert [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")] * 2 == list(zip(table.a, table.b))
    assert table["p_holm"].ge(table["p_value"]).all()


def test_options_and_models_are_arms():
    """By default an arm is every varying spec field: two models of one agent are compared with each other."""
    runs = pd.concat([_runs({"llm": [1.0, 2.0, 3.0]}, model="m1"), _runs({"llm": [2.0, 3.0, 4.0]}, model="m2")],
                     ignore_index=True)
    table = paired_comparisons(runs)
    assert [("llm / m1", "llm / m2")] == list(zip(table.a, table.b))
    assert -1.0 == table.difference.iloc[0]


def test_holm_known_answer():
    """Holm: sorted p times (m - rank), kept monotone, capped at 1; NaNs left out of m."""
    assert [0.03, 0.06, 0.06] == pytest.approx(holm([0.01, 0.04, 0.03]))
    out = holm([0.5, math.nan, 0.01])
    assert pytest.approx([0.5, 0.02]) == [out[0], out[2]] and math.isnan(out[1])
    assert [1.0] == holm([1.0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=-50, max_value=50).map(float), min_size=1, max_size=10))
def test_the_exact_test_is_the_enumeration(d):
    """The p-value is the share of the 2^n sign assignments whose |sum| is at least the observed |sum|; flipping
    every sign changes nothing."""
    observed = abs(sum(d))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(d))
               if abs(sum(s * x for s, x in zip(signs, d))) >= observed)
    assert hits / 2 ** len(d) == sign_flip_p(d) == sign_flip_p([-x for x in d])


def test_beyond_the_exact_limit_it_samples_with_a_seed():
    """Past EXACT_PAIRS pairs the p-value is a seeded Monte Carlo one: never 0, the same every time."""
    d = [1.0] * (EXACT_PAIRS + 4)
    p = sign_flip_p(d)
    assert 0 < p < 1e-4 and p == sign_flip_p(d)
    assert 1.0 == sign_flip_p([0.0] * (EXACT_PAIRS + 4))


def test_no_comparison_without_arms_or_shared_seeds():
    """One arm, or arms with no seed in common: an empty table with the columns."""
    assert 0 == len(paired_comparisons(_runs({"a": [1.0, 2.0]}), by="agent"))
    table = paired_comparisons(pd.concat([_runs({"a": [1.0]}, seeds=[1]), _runs({"b": [1.0]}, seeds=[2])]), by="agent")
    assert 0 == len(table) and "p_holm" in table.columns
