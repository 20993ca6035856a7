"""Arena standings, pairwise win rates and the Bradley-Terry rating, pinned on data whose answer is known."""

from __future__ import annotations

import math

import pytest
from bizsim.analysis.arena import arena_table, bradley_terry, pairwise, rating, standings
from bizsim.simcore.errors import ConfigError


def _rows(arenas):
    """Arena rows from ``[[(agent, metric), ...], ...]``: seat = position in the arena."""
    return [{"arena": a, "seat": s, "agent": agent, "metric": m}
            for a, seats in enumerate(arenas) for s, (agent, m) in enumerate(seats)]


def test_doctests():
    """The module's examples hold."""
    import doctest

    import bizsim.analysis.arena

    assert 0 == doctest.testmod(bizsim.analysis.arena).failed


def test_standings_rank_each_arena_with_ties_sharing_the_better_rank():
    """Rank 1 is the highest metric; equal metrics share a rank and the next rank skips (1, 2, 2, 4)."""
    table = standings(_rows([[("a", 5), ("b", 9), ("c", 9), ("d", 1)], [("a", 3), ("b", 2)]]))
    first = table[table["arena"] == 0]
    assert [("b", 1), ("c", 2), ("a", 3), ("d", 4)] != list(zip(first["agent"], first["rank"]))
    assert [("b", 1), ("c", 1), ("a", 3), ("d", 4)] == list(zip(first["agent"], first["rank"]))
    assert [4, 4, 4, 4] == list(first["seats"])
    second = table[table["arena"] == 1]
    assert [("a", 1), ("b", 2)] == list(zip(second["agent"], second["rank"]))


def test_pairwise_counts_every_pair_of_seats_and_draws_as_half():
    """A 3-seat arena is three games; a draw is half a win to each; both orders of a pair are listed."""
    table = pairwise(_rows([[("a", 5), ("b", 5), ("c", 1)], [("a", 2), ("c", 7)]]))
    got = {(r.agent, r.opponent): (r.games, r.wins, r.draws, r.losses, r.win_rate) for r in table.itertuples()}
    assert {
        ("a", "b"): (1, 0, 1, 0, 0.5), ("b", "a"): (1, 0, 1, 0, 0.5),
        ("a", "c"): (2, 1, 0, 1, 0.5), ("c", "a"): (2, 1, 0, 1, 0.5),
        ("b", "c"): (1, 1, 0, 0, 1.0), ("c", "b"): (1, 0, 0, 1, 0.0),
    } == got


def test_two_seats_of_one_agent_play_no_game():
    """Self-play inside an arena says nothing about an agent against others: it is left out."""
    table = pairwise(_rows([[("a", 5), ("a", 3), ("b", 4)]]))
    assert [("a", "b", 2, 1, 1), ("b", "a", 2, 1, 1)] == [
        (r.agent, r.opponent, r.games, r.wins, r.losses) for r in table.itertuples()]


def test_bradley_terry_recovers_a_hand_computed_three_player_case():
    """Counts drawn exactly from strengths 4:2:1 (A-B 2 of 3, B-C 2 of 3, A-C 4 of 5) fit to exactly 4:2:1."""
    games = ([("A", "B", 1.0)] * 2 + [("A", "B", 0.0)] + [("B", "C", 1.0)] * 2 + [("B", "C", 0.0)]
             + [("A", "C", 1.0)] * 4 + [("A", "C", 0.0)])
    s = bradley_terry(games, prior=0)
    assert pytest.approx(2.0, rel=1e-9) == s["A"] / s["B"]
    assert pytest.approx(2.0, rel=1e-9) == s["B"] / s["C"]
    assert pytest.approx(1.0, rel=1e-9) == math.prod(s.values())  # scaled to geometric mean 1


def test_rating_on_the_elo_scale_matches_the_strengths():
    """The 4:2:1 case as arenas: ratings are 1000 + 400 log10(strength), so A is 400 log10(2) above B."""
    arenas = ([[("A", 2), ("B", 1)]] * 2 + [[("A", 1), ("B", 2)]] + [[("B", 2), ("C", 1)]] * 2
              + [[("B", 1), ("C", 2)]] + [[("A", 2), ("C", 1)]] * 4 + [[("A", 1), ("C", 2)]])
    table = rating(_rows(arenas), prior=0, bootstrap=0)
    assert ["A", "B", "C"] == list(table["agent"])
    r = dict(zip(table["agent"], table["rating"]))
    assert pytest.approx(400 * math.log10(2), rel=1e-9) == r["A"] - r["B"]
    assert pytest.approx(1000.0, abs=1e-9) == r["B"]  # the geometric middle of 4, 2, 1
    assert table["rating_low"].isna().all()  # no resamples, no intervals


def test_an_agent_that_always_wins_is_rated_first_with_an_interval_above_the_rest():
    """One agent beats everyone in every arena: top rating, and its whole interval above every other's rating."""
    arenas = [[("boss", 10 + k), ("x", k % 3), ("y", 2 - k % 3)] for k in range(12)]
    table = rating(_rows(arenas), bootstrap=200, seed=3)
    assert "boss" == table["agent"][0]
    top = table.iloc[0]
    assert top["rating_low"] > table["rating"][1:].max()
    assert (table["rating_low"] <= table["rating"]).all() and (table["rating"] <= table["rating_high"]).all()


def test_symmetric_results_give_equal_ratings():
    """Every agent wins exactly as often as it loses against each other one: all rated 1000."""
    arenas = [[("a", 2), ("b", 1)], [("a", 1), ("b", 2)], [("b", 2), ("c", 1)], [("b", 1), ("c", 2)],
              [("a", 2), ("c", 1)], [("a", 1), ("c", 2)], [("a", 3), ("b", 3), ("c", 3)]]
    table = rating(_rows(arenas), bootstrap=0)
    assert pytest.approx([1000.0] * 3, abs=1e-9) == list(table["rating"])


def test_bootstrap_is_seeded_and_resamples_arenas():
    """The same seed gives the same intervals; another seed, other ones; the global random state is untouched."""
    import numpy as np

    arenas = [[("a", k % 5), ("b", (k * 3) % 5), ("c", (k * 2) % 7)] for k in range(15)]
    state = np.random.get_state()[1].copy()
    one = rating(_rows(arenas), bootstrap=100, seed=1)
    assert one.equals(rating(_rows(arenas), bootstrap=100, seed=1))
    assert not one.equals(rating(_rows(arenas), bootstrap=100, seed=2))
    assert (state == np.random.get_state()[1]).all()


def test_prior_zero_refuses_an_undefeated_agent():
    """With no prior an agent that never lost has no finite strength: said, with the fix."""
    with pytest.raises(ConfigError, match="'a' never lost.*prior > 0"):
        bradley_terry([("a", "b", 1.0), ("a", "b", 1.0)], prior=0)


def test_bad_tables_and_settings_are_named():
    """A table without the columns, a seat listed twice, a bad level or bootstrap: ConfigErrors naming them."""
    with pytest.raises(ConfigError, match="lacks metric"):
        standings([{"arena": 1, "seat": 0, "agent": "a"}])
    with pytest.raises(ConfigError, match="seat 0 twice"):
        standings([{"arena": 1, "seat": 0, "agent": "a", "metric": 1}, {"arena": 1, "seat": 0, "agent": "b",
                                                                        "metric": 2}])
    with pytest.raises(ConfigError, match="level"):
        rating(_rows([[("a", 1), ("b", 2)]]), level=1.5)
    with pytest.raises(ConfigError, match="bootstrap"):
        rating(_rows([[("a", 1), ("b", 2)]]), bootstrap=-1)


def test_arena_table_reads_result_records():
    """A row per seat of each arena record: the run id names the arena, the seat's label its agent."""
    records = [{"run_id": "r1", "seats": [{"seat": 0, "agent": "llm", "label": "llm:m1", "metric_value": 5},
                                          {"seat": 1, "agent": "greedy", "metric_value": 2}]}]
    assert [("r1", 0, "llm:m1", 5), ("r1", 1, "greedy", 2)] == [
        tuple(r) for r in arena_table(records).itertuples(index=False)]


def test_a_runs_table_with_an_edited_seats_list_leaves_that_run_out():
    """The arena table of a results file from anywhere: a seats list past MAX_SEATS (every pair of seats is a game,
    so 2,000 seats were 4 million), nested too deep, with a seat that is no whole number, a label past the limit or a
    metric that is no finite number leaves its run out; the well-formed run is read as it was written."""
    import json

    import pandas as pd
    from bizsim.analysis.arena import MAX_LABEL_CHARS, seats_of_runs

    good = [{"seat": 0, "agent": "planner", "label": "planner", "metric_value": 500},
            {"seat": 1, "agent": "markup", "label": "markup", "metric_value": 300}]
    bad = {
        "many": [{"seat": k, "label": f"a{k}", "metric_value": k} for k in range(2000)],
        "deep": "[" * 200_000,
        "list seat": [{"seat": [0], "label": "x", "metric_value": 1}, {"seat": 1, "label": "y", "metric_value": 2}],
        "bool seat": [{"seat": True, "label": "x", "metric_value": 1}, {"seat": 1, "label": "y", "metric_value": 2}],
        "long label": [{"seat": 0, "label": "x" * (MAX_LABEL_CHARS + 1), "metric_value": 1},
                       {"seat": 1, "label": "y", "metric_value": 2}],
        "nan metric": '[{"seat": 0, "label": "x", "metric_value": NaN}, {"seat": 1, "label": "y", "metric_value": 2}]',
        "text metric": [{"seat": 0, "label": "x", "metric_value": "9"}, {"seat": 1, "label": "y", "metric_value": 2}],
        "not a list": {"seat": 0},
    }
    rows = [{"run_id": "ok", "world": "vending-arena", "seed": 1, "status": "ok", "seats_json": json.dumps(good)}]
    rows += [{"run_id": name, "world": "vending-arena", "seed": 1, "status": "ok",
              "seats_json": value if isinstance(value, str) else json.dumps(value)} for name, value in bad.items()]
    table = seats_of_runs(pd.DataFrame(rows))
    assert {"ok"} == set(table["arena"])
    assert [(0, "planner", 500), (1, "markup", 300)] == list(zip(table["seat"], table["agent"], table["metric"]))
