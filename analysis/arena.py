"""Arena results: standings per arena, pairwise win rates, and a Bradley-Terry rating across arenas.

Every function reads one plain table, a row per seat of a finished arena: ``arena`` (any id naming the arena run),
``seat`` (its position), ``agent`` (the label the seat is ranked under: ``planner``, ``llm:openai/gpt-4o``) and
``metric`` (the world's headline metric, higher is better). A pandas DataFrame or any iterable of mappings will do;
:func:`arena_table` builds it from loaded runs.

Games. Within an arena every pair of seats played one game: the seat with the higher metric won it, equal metrics
drew (a draw is half a win to each). Two seats of the same agent in one arena tell nothing about that agent against
others: their game is left out of the pairwise table and the rating.

Rating. Bradley-Terry: agent ``i`` has a strength ``p_i`` and beats ``j`` with probability ``p_i / (p_i + p_j)``.
The strengths are the maximum-likelihood fit by Hunter's (2004) minorization-maximization iteration. An agent that
never lost (or never won) has no finite maximum, so each agent also plays ``prior`` virtual games against a
reference of strength 1, half of them won: a weak pull to the middle that vanishes as real games accumulate
(``prior=0`` gives the plain maximum likelihood). Ratings are shown on the Elo scale, ``1000 + 400 log10(p_i / g)``
with ``g`` the geometric mean of the strengths, so a 400-point gap means 10-to-1 odds. The intervals are percentile
bootstrap intervals that resample whole arenas (the independent units: the games within one arena share its
world), refitting each resample.

>>> rows = [{"arena": a, "seat": s, "agent": n, "metric": m} for a, s, n, m in
...         [(1, 0, "A", 9), (1, 1, "B", 5), (2, 0, "B", 3), (2, 1, "A", 7)]]
>>> pairwise(rows)[["agent", "opponent", "games", "win_rate"]].to_dict("records")[0]
{'agent': 'A', 'opponent': 'B', 'games': 2, 'win_rate': 1.0}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from bizsim.simcore.errors import ConfigError

__all__ = ["ARENA_COLUMNS", "arena_table", "bradley_terry", "pairwise", "rating", "seats_of_runs", "standings"]

#: The columns every function here reads.
ARENA_COLUMNS = ("arena", "seat", "agent", "metric")
#: Elo's scale: a gap of this many points is 10-to-1 odds.
_ELO_SCALE = 400.0
_ELO_BASE = 1000.0
_MAX_ITERATIONS = 10_000
_TOLERANCE = 1e-12


def _frame(table: Any) -> Any:
    """``table`` as a DataFrame of the arena columns (metric as float), rows without a metric dropped."""
    import pandas as pd

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    missing = [c for c in ARENA_COLUMNS if c not in df.columns]
    if missing:
        raise ConfigError(f"an arena table needs the columns {', '.join(ARENA_COLUMNS)}; it lacks "
                          f"{', '.join(missing)} (build it with bizsim.analysis.arena.arena_table)")
    df = df[list(ARENA_COLUMNS)].copy()
    df["metric"] = pd.to_numeric(df["metric"], errors="coerce")
    df = df[df["metric"].notna()]
    df["agent"] = df["agent"].astype(str)
    if df.duplicated(["arena", "seat"]).any():
        arena, seat = df[df.duplicated(["arena", "seat"])].iloc[0][["arena", "seat"]]
        raise ConfigError(f"arena {arena} lists seat {seat} twice; a seat has one row")
    return df.reset_index(drop=True)


def standings(table: Any) -> Any:
    """Each arena's seats in order: ``rank`` 1 is the highest metric, equal metrics share the better rank
    (``1, 2, 2, 4``), ``seats`` is how many seats the arena had."""
    df = _frame(table)
    df["rank"] = df.groupby("arena")["metric"].rank(method="min", ascending=False).astype(int)
    df["seats"] = df.groupby("arena")["seat"].transform("size").astype(int)
    return df.sort_values(["arena", "rank", "seat"], kind="stable").reset_index(drop=True)


def _games(df: Any) -> list[tuple[Any, str, str, float]]:
    """Every game of every arena: ``(arena, i, j, score of i)`` with ``i < j`` by name and score 1, 0.5 or 0."""
    out = []
    for arena, group in df.groupby("arena", sort=False):
        seats = list(zip(group["agent"], group["metric"], strict=True))
        for a in range(len(seats)):
            for b in range(a + 1, len(seats)):
                (i, mi), (j, mj) = seats[a], seats[b]
                if i == j:
                    continue
                if i > j:
                    (i, mi), (j, mj) = (j, mj), (i, mi)
                out.append((arena, i, j, 1.0 if mi > mj else 0.5 if mi == mj else 0.0))
    return out


def pairwise(table: Any) -> Any:
    """Each agent against each other agent it met: ``games``, ``wins``, ``draws``, ``losses`` and ``win_rate``
    (a draw counts half), one row per ordered pair, so ``A`` over ``B`` and ``B`` over ``A`` both appear."""
    import pandas as pd

    counts: dict[tuple[str, str], list[float]] = {}
    for _, i, j, score in _games(_frame(table)):
        for me, them, s in ((i, j, score), (j, i, 1.0 - score)):
            row = counts.setdefault((me, them), [0, 0, 0, 0])
            row[0] += 1
            row[1 if s == 1.0 else 2 if s == 0.5 else 3] += 1
    rows = [{"agent": a, "opponent": o, "games": int(g), "wins": int(w), "draws": int(d), "losses": int(lo),
             "win_rate": (w + d / 2) / g} for (a, o), (g, w, d, lo) in sorted(counts.items())]
    return pd.DataFrame(rows, columns=["agent", "opponent", "games", "wins", "draws", "losses", "win_rate"])


def bradley_terry(games: Iterable[tuple[str, str, float]], agents: Iterable[str] | None = None, *,
                  prior: float = 1.0) -> dict[str, float]:
    """Bradley-Terry strengths from ``(i, j, score of i)`` games, scaled to a geometric mean of 1.

    Args:
        games: one entry per game; the score is 1 (``i`` won), 0.5 (a draw) or 0 (``j`` won).
        agents: every agent to rate (default: those in the games).
        prior: virtual games each agent plays against a reference of strength 1, half won (0: none).

    Raises:
        ConfigError: ``prior`` is negative, or 0 while an agent never lost or never won (its strength would be
            infinite or zero).

    >>> s = bradley_terry([("A", "B", 1)] * 2 + [("A", "B", 0)] + [("B", "C", 1)] * 2 + [("B", "C", 0)]
    ...                   + [("A", "C", 1)] * 4 + [("A", "C", 0)], prior=0)
    >>> round(s["A"] / s["B"], 6), round(s["B"] / s["C"], 6)
    (2.0, 2.0)
    """
    if not (isinstance(prior, (int, float)) and math.isfinite(prior) and prior >= 0):
        raise ConfigError(f"prior(={prior!r}) must be a finite number >= 0 (virtual games against the middle)")
    games = list(games)
    names = sorted(set(agents or ()) | {n for g in games for n in g[:2]})
    index = {n: k for k, n in enumerate(names)}
    wins = [prior / 2] * len(names)
    met: dict[tuple[int, int], int] = {}
    for i, j, score in games:
        a, b = index[i], index[j]
        wins[a] += score
        wins[b] += 1.0 - score
        key = (a, b) if a < b else (b, a)
        met[key] = met.get(key, 0) + 1
    if prior == 0:
        for n in names:
            played = sum(c for (a, b), c in met.items() if index[n] in (a, b))
            if wins[index[n]] in (0, played):
                raise ConfigError(f"agent {n!r} {'never won' if wins[index[n]] == 0 else 'never lost'} a game, so "
                                  "its Bradley-Terry strength has no finite maximum; use prior > 0")
    p = [1.0] * len(names)
    for _ in range(_MAX_ITERATIONS):
        denominators = [prior / (p[k] + 1.0) for k in range(len(names))]
        for (a, b), count in met.items():
            share = count / (p[a] + p[b])
            denominators[a] += share
            denominators[b] += share
        new = [wins[k] / denominators[k] if denominators[k] else p[k] for k in range(len(names))]
        scale = math.exp(sum(math.log(x) for x in new) / len(new)) if new else 1.0
        new = [x / scale for x in new]
        done = max((abs(math.log(x / y)) for x, y in zip(new, p, strict=True)), default=0.0) < _TOLERANCE
        p = new
        if done:
            break
    return dict(zip(names, p, strict=True))


def _elo(strength: float) -> float:
    return _ELO_BASE + _ELO_SCALE * math.log10(strength)


def rating(table: Any, *, prior: float = 1.0, bootstrap: int = 1000, level: float = 0.95, seed: int = 0) -> Any:
    """A Bradley-Terry rating of every agent across all arenas, with bootstrap intervals.

    Args:
        prior: virtual games against the middle (see the module's text; 0 for the plain maximum likelihood).
        bootstrap: resamples of the arenas (0: no intervals).
        level: the intervals' coverage.
        seed: the resampling's seed (its own generator; no global random state).

    Returns:
        one row per agent, best first: ``agent``, ``arenas`` (how many it sat in), ``games``, ``strength``
        (geometric mean 1), ``rating`` (Elo scale, 1000 the middle), ``rating_low``/``rating_high``.
    """
    import numpy as np
    import pandas as pd

    if not 0 < level < 1:
        raise ConfigError(f"level(={level!r}) must be between 0 and 1, e.g. 0.95")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise ConfigError(f"bootstrap(={bootstrap!r}) must be a whole number of resamples >= 0")
    df = _frame(table)
    names = sorted(df["agent"].unique())
    games = _games(df)
    by_arena: dict[Any, list[tuple[str, str, float]]] = {}
    for arena, i, j, score in games:
        by_arena.setdefault(arena, []).append((i, j, score))
    strength = bradley_terry([g[1:] for g in games], names, prior=prior)
    low = {n: math.nan for n in names}
    high = dict(low)
    arenas = list(df["arena"].unique())
    if bootstrap and arenas:
        rng = np.random.default_rng(seed)
        draws: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(bootstrap):
            picked = rng.integers(0, len(arenas), len(arenas))
            sample = [g for k in picked for g in by_arena.get(arenas[k], ())]
            present = set(df[df["arena"].isin([arenas[k] for k in set(picked)])]["agent"])
            try:
                fitted = bradley_terry(sample, sorted(present), prior=prior)
            except ConfigError:  # prior 0 and a resample where someone never lost: no finite fit, so no draw
                continue
            for n in present:
                draws[n].append(_elo(fitted[n]))
        tail = (1 - level) / 2 * 100
        for n in names:
            if draws[n]:
                low[n], high[n] = (float(v) for v in np.percentile(draws[n], [tail, 100 - tail]))
    seats = df.groupby("agent")["arena"].nunique()
    played: dict[str, int] = dict.fromkeys(names, 0)
    for _, i, j, _score in games:
        played[i] += 1
        played[j] += 1
    rows = [{"agent": n, "arenas": int(seats[n]), "games": played[n], "strength": strength[n],
             "rating": _elo(strength[n]), "rating_low": low[n], "rating_high": high[n]} for n in names]
    out = pd.DataFrame(rows, columns=["agent", "arenas", "games", "strength", "rating", "rating_low", "rating_high"])
    return out.sort_values(["rating", "agent"], ascending=[False, True], kind="stable").reset_index(drop=True)


def arena_table(records: Iterable[Mapping[str, Any]]) -> Any:
    """The arena table from arena runs' ``result.json`` objects (each with a ``seats`` list): one row a seat, the
    arena named by its run's ``run_id`` (else its position), the agent by the seat's ``label`` (else its agent)."""
    import pandas as pd

    rows = []
    for k, record in enumerate(records):
        arena = record.get("run_id") or record.get("arena") or k
        for seat in record.get("seats") or ():
            rows.append({"arena": arena, "seat": seat.get("seat"), "agent": seat.get("label") or seat.get("agent"),
                         "metric": seat.get("metric_value")})
    return pd.DataFrame(rows, columns=list(ARENA_COLUMNS))


#: The runs table's column an arena run's seats are in (``bizsim.runs.arena_run.SEATS_COLUMN``).
_SEATS_COLUMN = "seats_json"
#: A run's seats list longer than this many characters is not read (64 seats with their summaries are far less).
MAX_SEATS_JSON_CHARS = 4 * 1024 * 1024
#: A seat's agent label longer than this is not an arena's (a roster's labels are an agent name and its model).
MAX_LABEL_CHARS = 1000


def seats_of_runs(runs: Any) -> Any:
    """The arena table of a sweep's ``runs`` table (:func:`bizsim.analysis.load`): one row a seat of each finished
    arena run, with the run's ``world`` and ``seed`` beside the arena columns; empty when no run is an arena's."""
    import pandas as pd

    columns = [*ARENA_COLUMNS, "world", "seed"]
    if runs is None or _SEATS_COLUMN not in getattr(runs, "columns", ()):
        return pd.DataFrame(columns=columns)
    rows = []
    for run in runs[runs[_SEATS_COLUMN].notna()].itertuples(index=False):
        if getattr(run, "status", "ok") != "ok":
            continue
        seats = _seats_listed(getattr(run, _SEATS_COLUMN))
        rows += [{"arena": run.run_id, "seat": k, "agent": agent, "metric": metric, "world": run.world,
                  "seed": getattr(run, "seed", None)} for k, agent, metric in seats]
    return pd.DataFrame(rows, columns=columns)


def _seats_listed(text: Any) -> list[tuple[int, str, float]]:
    """The ``(seat, agent label, metric)`` of a run's seats list, or nothing when the list is not one an arena
    writes: a results file is a file from anywhere, and every pair of seats becomes a game, so a list of thousands
    of seats (past ``MAX_SEATS``), deep nesting, a seat that is no whole number, a label past
    ``MAX_LABEL_CHARS`` or a metric that is no finite number leaves the run out of the arena table."""
    from bizsim.runs.roster import MAX_SEATS
    from bizsim.simcore.untrusted_json import loads_untrusted

    if not isinstance(text, str) or len(text) > MAX_SEATS_JSON_CHARS:
        return []
    try:
        seats = loads_untrusted(text)
    except ValueError:
        return []
    if not isinstance(seats, list) or not 0 < len(seats) <= MAX_SEATS:
        return []
    out = []
    for seat in seats:
        if not isinstance(seat, dict):
            return []
        k, agent, metric = seat.get("seat"), seat.get("label") or seat.get("agent"), seat.get("metric_value")
        if type(k) is not int or not isinstance(agent, str) or len(agent) > MAX_LABEL_CHARS:
            return []
        if metric is None:  # a seat that has no metric yet: no game, as a row without a metric
            out.append((k, agent, math.nan))
            continue
        if isinstance(metric, bool) or not isinstance(metric, (int, float)) or not math.isfinite(metric):
            return []
        out.append((k, agent, metric))
    return out
