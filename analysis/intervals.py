"""Intervals of a mean over seeds that stay inside what the seeds did: the seeded percentile bootstrap.

A Student-t interval is symmetric about the mean, so over three seeds of a figure that cannot go below zero (final
funds with a bankruptcy as $0, trust, a share) it runs below zero. A percentile bootstrap interval of the mean lies
between the lowest and the highest seed, so it respects any range the metric has. With few seeds it is narrow (it
cannot see what the seeds did not do): the standard error beside it says how far apart the seeds were.

The resampling is seeded (a ``numpy`` Generator from ``seed``; no global random state) and depends only on the
values, not on their order: the same runs give the same interval, to the bit. Every group with ``n`` values draws
the same resampling weights, so a figure's band and a table's interval over the same values agree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

__all__ = ["BOOTSTRAP_RESAMPLES", "BOOTSTRAP_SEED", "bootstrap_ci", "bootstrap_rows", "interval_words",
           "standard_error", "with_standard_error"]

#: Resamples of every bootstrap interval bizsim reports (the percentile's Monte Carlo error is about
#: sqrt(0.025 * 0.975 / 10,000) = 0.16 percentile points).
BOOTSTRAP_RESAMPLES = 10_000
#: The seed of every bootstrap interval bizsim reports, so a report is the same bytes every time.
BOOTSTRAP_SEED = 0
#: How a caption names the interval.
interval_words = "95 % percentile bootstrap interval of the mean over seeds (10,000 resamples, seeded)"


#: At most this many cells of resampling weights (or of resampled means) are held at once: memory stays bounded
#: (about 8 MB a block) whatever the number of runs or of a figure's steps.
_BLOCK_CELLS = 1_000_000


@lru_cache(maxsize=4)
def _weights(n: int, resamples: int, seed: int) -> Any:
    """How many times each of ``n`` values is drawn in each resample, over ``n`` (``resamples x n``): drawn once
    for every group of ``n`` values (a figure's steps share them)."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, n])))
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples) / n
    weights.setflags(write=False)
    return weights


def _resampled_means(xs: Any, resamples: int, seed: int) -> Any:
    """The mean of each resample of each row of ``xs`` (``rows x n``, no NaN): ``rows x resamples``. The draws
    depend only on ``(seed, n)``."""
    import numpy as np

    n = xs.shape[1]
    if n * resamples <= _BLOCK_CELLS:
        return xs @ _weights(n, resamples, seed).T
    # Many values: draw indices a block of resamples at a time (a multinomial over n categories is slow).
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, n])))
    out = np.empty((xs.shape[0], resamples))
    step = max(1, _BLOCK_CELLS // n)
    for start in range(0, resamples, step):
        idx = rng.integers(0, n, size=(min(step, resamples - start), n))
        for i, row in enumerate(xs):
            out[i, start:start + len(idx)] = row[idx].mean(axis=1)
    return out


def bootstrap_rows(
    values: Any, confidence: float = 0.95, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
) -> tuple[Any, Any]:
    """The percentile bootstrap interval of the mean of each row of ``values`` (a 2-d array; NaN cells are left out).

    Returns:
        ``(low, high)``, arrays of one value a row: NaN where a row has fewer than two values; each within its
        row's lowest and highest value.
    """
    import numpy as np

    if not 0 < confidence < 1:
        raise ValueError(f"confidence(={confidence}) must be between 0 and 1")
    if resamples < 1:
        raise ValueError(f"resamples(={resamples}) must be >= 1")
    table = np.asarray(values, dtype=float)
    if table.ndim != 2:
        raise ValueError(f"values must be 2-d (rows x values), not {table.ndim}-d")
    rows = table.shape[0]
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    # Sorted, NaN last: the interval depends on the values, never on the order of the runs.
    ordered = np.sort(table, axis=1)
    counts = (~np.isnan(ordered)).sum(axis=1)
    tail = ((1 - confidence) / 2, (1 + confidence) / 2)
    rows_at_once = max(1, _BLOCK_CELLS // resamples)
    for n in sorted(set(counts.tolist()) - {0, 1}):
        at = np.flatnonzero(counts == n)
        for start in range(0, len(at), rows_at_once):
            part = at[start:start + rows_at_once]
            xs = ordered[part, :n]
            q = np.quantile(_resampled_means(xs, resamples, seed), tail, axis=1)
            # A mean of equal values can round a last bit past them: the interval stays within the values.
            low[part] = np.clip(q[0], xs[:, 0], xs[:, -1])
            high[part] = np.clip(q[1], xs[:, 0], xs[:, -1])
    return low, high


def bootstrap_ci(
    values: Sequence[float] | Any, confidence: float = 0.95, *, resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float, float, int]:
    """Mean and percentile bootstrap interval of the mean of ``values`` (NaNs dropped).

    Returns:
        ``(mean, low, high, n)``; the interval is NaN with fewer than two values and lies within
        ``[min(values), max(values)]``.

    >>> bootstrap_ci([0.0, 0.0, 0.0])
    (0.0, 0.0, 0.0, 3)
    >>> mean, low, high, n = bootstrap_ci([0.0, 10.0, 20.0, 30.0])
    >>> 0.0 <= low < mean < high <= 30.0
    True
    """
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = math.fsum(xs) / n
    if n < 2:
        return mean, math.nan, math.nan, n
    low, high = bootstrap_rows([xs], confidence, resamples=resamples, seed=seed)
    return mean, float(low[0]), float(high[0]), n


def standard_error(values: Sequence[float] | Any) -> float:
    """The standard error of the mean, ``sd / sqrt(n)`` with the sample standard deviation (``n - 1``); NaN with
    fewer than two values.

    >>> round(standard_error([1.0, 2.0, 3.0]), 6)
    0.57735
    """
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n < 2:
        return math.nan
    mean = math.fsum(xs) / n
    return math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1) / n)


def with_standard_error(table: Any) -> Any:
    """A summary table (``n``, ``mean``, ``std``, ...: :func:`bizsim.analysis.metrics.summarize`'s) with the
    standard error of the mean, ``se = std / sqrt(n)``, after ``std``."""
    if not len(table) or "std" not in table.columns:
        return table
    out = table.copy()
    out.insert(list(out.columns).index("std") + 1, "se", out["std"] / out["n"].clip(lower=1) ** 0.5)
    return out
