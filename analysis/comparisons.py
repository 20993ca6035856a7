"""Paired comparisons between agents (or models, or an option's values) over the seeds their runs share.

Runs of one world and preset with the same seed face the same world, so the difference between two agents is
measured seed by seed: ``d_s = value(a, s) - value(b, s)`` over the seeds both finished. For each pair of arms:

- the mean difference, with its percentile bootstrap interval (:mod:`bizsim.analysis.intervals`, seeded);
- the **exact sign-flip permutation test** of the paired differences: under "no difference" each ``d_s`` is as
  likely ``+d_s`` as ``-d_s``; the two-sided p-value is the share of the ``2**n`` sign assignments whose mean is at
  least as far from 0 as the observed one (all ``2**n`` enumerated up to :data:`EXACT_PAIRS` pairs; beyond, a seeded
  Monte Carlo sample of them, counted as ``(hits + 1) / (draws + 1)``). With ``n`` pairs the smallest p-value
  possible is ``2 / 2**n``: three seeds cannot show a difference at 5 % (0.25 at best); six can (0.03125);
- Holm's step-down correction over every comparison of the table (``comparisons`` is their number).

Identical arms give a difference of 0 and p = 1; an arm better by a constant on every seed gives an interval
that is that constant alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bizsim.analysis.intervals import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_ci

__all__ = ["COMPARISON_COLUMNS", "EXACT_PAIRS", "TEST_WORDS", "holm", "paired_comparisons", "sign_flip_p"]

#: Up to this many pairs the sign-flip test enumerates every assignment (2**16 = 65,536); beyond it samples them.
EXACT_PAIRS = 16
#: The Monte Carlo draws of the sign-flip test beyond :data:`EXACT_PAIRS` pairs.
SIGN_FLIP_DRAWS = 100_000
#: How a caption names the test.
TEST_WORDS = ("two-sided exact sign-flip permutation test of the paired differences (Monte Carlo beyond "
              f"{EXACT_PAIRS} pairs), p-values adjusted by Holm's method over all the comparisons")
#: The columns of :func:`paired_comparisons` after the stratum's.
COMPARISON_COLUMNS = ["a", "b", "pairs", "mean_a", "mean_b", "difference", "ci_low", "ci_high", "se", "p_value",
                      "p_holm", "comparisons"]


def sign_flip_p(differences: Sequence[float], *, draws: int = SIGN_FLIP_DRAWS, seed: int = BOOTSTRAP_SEED) -> float:
    """The two-sided p-value of the sign-flip permutation test of paired differences (NaN for no pairs).

    >>> sign_flip_p([0.0, 0.0, 0.0]), sign_flip_p([5.0, 5.0, 5.0]), sign_flip_p([1.0] * 6)
    (1.0, 0.25, 0.03125)
    """
    import numpy as np

    d = np.sort(np.asarray([float(x) for x in differences if not math.isnan(float(x))], dtype=float))
    n = len(d)
    if n == 0:
        return math.nan
    observed = abs(float(d.sum()))
    # Sums of the same values in another order differ in their last bits: a tie is a tie.
    slack = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if n <= EXACT_PAIRS:
        signs = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        sums = np.abs(signs @ d)
        return float(np.count_nonzero(sums >= observed - slack)) / 2 ** n
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, n])))
    hits = 0
    for start in range(0, draws, 10_000):
        size = min(10_000, draws - start)
        signs = rng.integers(0, 2, size=(size, n)) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - slack))
    return (hits + 1) / (draws + 1)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (NaNs kept, and not counted among the comparisons).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    indexed = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    m = len(indexed)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def _arm_label(key: tuple, cols: list[str]) -> str:
    from bizsim.analysis.plots import group_label

    return group_label(key, cols)


def paired_comparisons(
    runs: Any, value: str = "metric_value", by: str | Sequence[str] | None = None, *,
    within: Sequence[str] = ("world", "preset_label"), pair_on: str = "seed", confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
) -> Any:
    """Every pair of arms compared seed by seed: the mean paired difference, its bootstrap interval, the sign-flip
    test's p-value and Holm's adjustment of it (the method is the module's docstring's).

    Args:
        runs: the runs table (:func:`bizsim.analysis.load`); finished runs (``status == "ok"``) with a value count.
        value: the per-run column compared (e.g. ``leaderboard_funds_cents``).
        by: the columns that name an arm (default: the agent and every other spec field that varies, the model and
            agent options among them, less ``within``).
        within: arms are compared only inside one value of these columns (one world and preset: one metric, one
            set of worlds).
        pair_on: the column that pairs runs (the seed); a value repeated within an arm is averaged first.

    Returns:
        ``within...``, ``a``, ``b`` (the arms, in words), ``pairs`` (seeds both have), ``mean_a``, ``mean_b`` (over
        those seeds), ``difference`` (mean of a - b), ``ci_low``, ``ci_high``, ``se`` (of the mean difference),
        ``p_value``, ``p_holm``, ``comparisons`` (how many comparisons the table holds: Holm's m); one row a pair of
        arms with at least one shared seed, the arms in sorted order.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"world": "w", "preset_label": "p", "status": "ok", "agent": ["x"] * 3 + ["y"] * 3,
    ...                      "seed": [1, 2, 3] * 2, "metric_value": [10.0, 20.0, 30.0, 7.0, 17.0, 27.0]})
    >>> row = paired_comparisons(runs, by="agent").iloc[0]
    >>> row["a"], row["b"], *(float(row[c]) for c in ("difference", "ci_low", "ci_high", "p_value"))
    ('x', 'y', 3.0, 3.0, 3.0, 0.25)
    """
    import pandas as pd

    from bizsim.analysis.metrics import group_columns, ok_runs

    within = [c for c in within if c in runs.columns]
    arms = [c for c in group_columns(by, runs) if c not in within and c in runs.columns]
    columns = [*within, *COMPARISON_COLUMNS]
    ok = ok_runs(runs)
    if not arms or value not in ok.columns or pair_on not in ok.columns or not len(ok):
        return pd.DataFrame(columns=columns)
    ok = ok.assign(_value=pd.to_numeric(ok[value], errors="coerce")).dropna(subset=["_value"])
    rows = []
    strata = ok.groupby(within, sort=True, dropna=False) if within else [((), ok)]
    for stratum, s in strata:
        at = dict(zip(within, stratum if isinstance(stratum, tuple) else (stratum,)))
        by_arm = {(k if isinstance(k, tuple) else (k,)): g.groupby(pair_on)["_value"].mean()
                  for k, g in s.groupby(arms, sort=True, dropna=False)}
        keys = list(by_arm)
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                shared = by_arm[a].index.intersection(by_arm[b].index).sort_values()
                if not len(shared):
                    continue
                xa, xb = by_arm[a].loc[shared], by_arm[b].loc[shared]
                d = (xa - xb).tolist()
                mean, low, high, n = bootstrap_ci(d, confidence, resamples=resamples, seed=seed)
                sd = math.sqrt(math.fsum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else math.nan
                rows.append({**at, "a": _arm_label(a, arms), "b": _arm_label(b, arms), "pairs": n,
                             "mean_a": math.fsum(xa) / n, "mean_b": math.fsum(xb) / n, "difference": mean,
                             "ci_low": low, "ci_high": high, "se": sd / math.sqrt(n) if n > 1 else math.nan,
                             "p_value": sign_flip_p(d, seed=seed)})
    table = pd.DataFrame(rows, columns=[c for c in columns if c not in ("p_holm", "comparisons")])
    if not len(table):
        return pd.DataFrame(columns=columns)
    table["p_holm"] = holm(table["p_value"].tolist())
    table["comparisons"] = int(table["p_value"].notna().sum())
    return table[columns]
