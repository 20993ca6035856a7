"""The report's arena section: standings per arena, pairwise win rates, and a Bradley-Terry rating across arenas."""

from __future__ import annotations

from typing import Any

from bizsim.analysis.arena import pairwise, rating, seats_of_runs, standings

__all__ = ["ARENA_ANCHOR", "arena_section", "has_arenas"]

#: The section's anchor in the report's table of contents.
ARENA_ANCHOR = "arenas"
#: Bootstrap resamples of the arenas behind the rating's intervals (seeded: the report is the same every time).
_RESAMPLES = 1000


def has_arenas(runs: Any) -> bool:
    """Whether any finished run of ``runs`` is an arena's."""
    return len(seats_of_runs(runs)) > 0


def arena_section(doc: Any, runs: Any) -> None:
    """Write the arena section into the report ``doc``: per arena world, how each agent placed, each agent against
    each other, and one rating across all of that world's arenas with its 95 % bootstrap interval."""
    import pandas as pd

    from bizsim.analysis.labels import is_money, words

    table = seats_of_runs(runs)
    metrics = runs["metric"].dropna().unique() if "metric" in runs.columns else []
    metric = str(metrics[0]) if len(metrics) == 1 else ""
    money = is_money(metric)
    mean_name = f"mean {words(metric).lower()}" if metric else "mean metric"
    doc.h(2, "Arenas", ARENA_ANCHOR)
    doc.p("An arena is one run of several seats in one world; a seat's agent is ranked by the world's metric. Every "
          "pair of seats in an arena counts as one game, won by the higher metric (equal metrics draw); two seats "
          "of one agent play no game. The rating is Bradley-Terry on the Elo scale (1000 is the middle; 400 points "
          "are 10-to-1 odds), with a weak prior of one drawn game against the middle, and its interval a 95 % "
          f"percentile bootstrap over arenas ({_RESAMPLES:,} resamples, seed 0).", "note")
    for world, rows in table.groupby("world", sort=True):
        ranked = standings(rows)
        per_agent = ranked.groupby("agent").agg(arenas=("arena", "nunique"), mean_place=("rank", "mean"),
                                                first_places=("rank", lambda r: int((r == 1).sum())),
                                                mean_metric=("metric", "mean")).reset_index()
        per_agent = per_agent.sort_values(["mean_place", "agent"], kind="stable")
        if money:  # cents, shown in dollars as every other table of the report shows money
            per_agent["mean_metric"] = per_agent["mean_metric"] / 100
        per_agent = per_agent.rename(columns={"mean_place": "mean place", "first_places": "first places",
                                              "mean_metric": mean_name})
        doc.h(3, f"{world}: {rows['arena'].nunique():,} arenas, {rows['agent'].nunique():,} agents")
        doc.table(_shown(per_agent), "Standings: each agent's mean place over its arenas (1 is first)")
        wins = pairwise(rows)
        if len(wins):
            matrix = wins.pivot(index="agent", columns="opponent", values="win_rate").round(3).astype(object)
            matrix = matrix.where(matrix.notna(), "")  # an agent against itself, or a pair that never met
            doc.table(_shown(matrix.reset_index().rename_axis(None, axis=1)),
                      "Pairwise win rates: the row's agent against the column's (a draw counts half)")
        rated = rating(rows, bootstrap=_RESAMPLES, seed=0)
        shown = rated[["agent", "arenas", "games", "rating", "rating_low", "rating_high"]].rename(
            columns={"rating_low": "95 % interval from", "rating_high": "to"})
        doc.table(_shown(shown), "Rating across arenas (Bradley-Terry, Elo scale) with its 95 % bootstrap interval")
        if (rated["rating_low"] == rated["rating_high"]).all():
            doc.p("Every resample of the arenas gave the same outcomes (one agent won every game it played), so the "
                  "intervals have no width.", "note")
        every = ranked[["arena", "seat", "agent", "metric", "rank"]]
        doc.details("Every arena's standings", pd.DataFrame(every))


def _shown(df: Any) -> Any:
    """Numbers rounded for reading (the tables are for people; the arena module returns the exact values)."""
    out = df.copy()
    for column in out.columns:
        if out[column].dtype.kind == "f":
            out[column] = out[column].round(3)
    out.attrs["presented"] = True
    return out
