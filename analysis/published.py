"""Published results, kept as data with their source, to draw beside a user's runs.

What is kept (``published_ycbench.toml`` beside this module, numbers copied as published):

- the YC-Bench project page's funds chart: each model's mean funds over its 3 seeds at twelve month labels
  (``2025-12`` is the final figure; the page does not say which instant of a month a point is, and ``2025-01``
  is the starting $200,000 for the first release's 13 models but not for the 6 added later), and its
  leaderboard: the final funds as the page rounds them and how many of the 3 seeds went bankrupt. Source: collinear-ai/yc-bench at ``6b33452``,
  ``docs/static/data.json`` and ``docs/index.html``.

- the caveats a reader of the page's numbers must know, each with its source (:func:`published_caveats`): the
  page's runs used another configuration (``--config medium``), and the page and the paper disagree on some
  models.
- the YC-Bench paper's own numbers where they differ from the page's, each with its place in the paper (Table 4
  for bankruptcies, the text for final funds): as issue 43 (item 8) states them, since no copy of the paper's
  Tables 3 and 4 was at hand; a model without them is not known to differ, which is not known to agree.

Not kept, because no number of it could be read from a source at hand: the YC-Bench paper's own figures
(its per-model figures are images), the rest of its Tables 3 and 4, and the EcoGym paper's Table 2 (arXiv
2602.09514; its repository's README shows the results as images only). docs/published.md says so too.

>>> board = published_final_funds().set_index("model")
>>> board.loc["glm-5", "name"], board.loc["glm-5", "final_funds_shown"], int(board.loc["glm-5", "bankrupt_seeds"])
('GLM-5', '$1.21M', 0)
>>> mini = board.loc["gpt-5.4-mini"]
>>> int(mini["bankrupt_seeds"]), int(mini["paper_bankrupt_seeds"]), mini["paper_bankrupt_seeds_source"]
(1, 2, 'Table 4')
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "paper_differences", "plot_beside_published", "published_caveats", "published_final_funds", "published_funds",
    "published_paper", "published_source",
]

_FILE = Path(__file__).with_name("published_ycbench.toml")
_FUNDS = "month_end_funds_cents"


@cache
def _data() -> dict[str, Any]:
    with _FILE.open("rb") as fh:
        return tomllib.load(fh)


def published_source() -> dict[str, Any]:
    """Where the published YC-Bench figures come from: title, URL, repository, commit and files."""
    return dict(_data()["source"])


def published_caveats() -> list[dict[str, str]]:
    """What a reader of the published numbers must know, each as ``{"text": ..., "source": ...}``."""
    return [dict(c) for c in _data()["caveats"]]


def published_paper() -> dict[str, str]:
    """The YC-Bench paper: ``title``, ``url`` and how the numbers kept from it were ``obtained``."""
    return {k: v for k, v in _data()["paper"].items() if k != "models"}


def paper_differences() -> list[dict[str, Any]]:
    """Each number where the paper differs from the page: ``model`` (the page's key), ``name``, ``figure``
    (``bankrupt_seeds`` or ``final_funds_shown``), ``page``, ``paper`` and ``source`` (its place in the paper).

    >>> [(d["name"], d["page"], d["paper"], d["source"]) for d in paper_differences() if d["figure"] != "bankrupt_seeds"]
    [('Grok 4.20 Beta', '$25K', '$14K', 'text'), ('Claude Sonnet 4.6', '$104K', '$103K', 'text')]
    """
    every = _data()["models"]
    out = []
    for key, theirs in _data()["paper"]["models"].items():
        page = every[key]
        for figure, source in (("bankrupt_seeds", "bankrupt_seeds_source"), ("final_funds_shown", "final_funds_source")):
            if figure in theirs:
                out.append({"model": key, "name": page["name"], "figure": figure, "page": page[figure],
                            "paper": theirs[figure], "source": theirs[source]})
    return out


def published_funds(models: Sequence[str] | None = None) -> Any:
    """The project page's mean funds per model and month label, in dollars: a DataFrame with ``model`` (the
    page's key), ``name``, ``month``, ``step`` (0 for ``2025-01``) and ``funds_usd``.

    Args:
        models: keys or display names to keep (default: every model the page shows).

    Raises:
        ConfigError: a model the page does not show (the message lists those it does).
    """
    import pandas as pd

    rows = []
    for key, m in _chosen(models).items():
        for step, (month, usd) in enumerate(sorted(m["monthly_mean_funds_usd"].items())):
            rows.append({"model": key, "name": m["name"], "month": month, "step": step, "funds_usd": float(usd)})
    return pd.DataFrame(rows, columns=["model", "name", "month", "step", "funds_usd"])


def published_final_funds(models: Sequence[str] | None = None) -> Any:
    """The project page's leaderboard: per model its ``final_funds_usd`` (the chart's last point, mean over
    seeds), ``final_funds_shown`` (the leaderboard's rounded text), ``bankrupt_seeds`` and ``seeds``; beside them
    the paper's own number where it is known to differ (``paper_bankrupt_seeds``, ``paper_final_funds_shown``,
    each with its ``..._source`` in the paper; None elsewhere). Best first."""
    import pandas as pd

    paper = _data()["paper"]["models"]
    rows = []
    for key, m in _chosen(models).items():
        last = max(m["monthly_mean_funds_usd"])
        theirs = paper.get(key, {})
        rows.append({"model": key, "name": m["name"], "provider": m["provider"],
                     "final_funds_usd": float(m["monthly_mean_funds_usd"][last]),
                     "final_funds_shown": m["final_funds_shown"], "bankrupt_seeds": m["bankrupt_seeds"],
                     "seeds": m["seeds"],
                     "paper_bankrupt_seeds": theirs.get("bankrupt_seeds"),
                     "paper_bankrupt_seeds_source": theirs.get("bankrupt_seeds_source"),
                     "paper_final_funds_shown": theirs.get("final_funds_shown"),
                     "paper_final_funds_source": theirs.get("final_funds_source")})
    table = pd.DataFrame(rows).astype({"paper_bankrupt_seeds": "Int64"})  # a count, or missing
    return table.sort_values("final_funds_usd", ascending=False, kind="stable").reset_index(drop=True)


def _chosen(models: Sequence[str] | None) -> dict[str, dict]:
    from bizsim.simcore.errors import ConfigError

    every = _data()["models"]
    if models is None:
        return dict(every)
    by_name = {m["name"].lower(): k for k, m in every.items()}
    out = {}
    for wanted in models:
        key = wanted if wanted in every else by_name.get(str(wanted).lower())
        if key is None:
            raise ConfigError(f"model {wanted!r} is not among the published YC-Bench results; choose from "
                              f"{', '.join(sorted(every))}")
        out[key] = every[key]
    return out


def plot_beside_published(
    runs_or_path: Any, *, models: Sequence[str] | None = None, by: str | Sequence[str] | None = None, ax: Any = None,
) -> Any:
    """Your startup runs' month-end funds (mean over seeds per group, bold) beside the published models' mean
    funds (thin, dashed), month label against month label.

    Args:
        runs_or_path: a :class:`~bizsim.analysis.tables.Results` (``bizsim.analysis.load(...)``) or a path it loads.
        models: published models to draw (keys or names; default all).
        by: runs columns that make your lines (default as :func:`bizsim.analysis.plots.series_over_time`).
        ax: matplotlib axes to draw on.

    Returns:
        the axes.
    """
    from bizsim.analysis import plots
    from bizsim.analysis.tables import Results, load

    res = runs_or_path if isinstance(runs_or_path, Results) else load(runs_or_path)
    runs = res.runs[(res.runs["world"] == "startup") & (res.runs["status"] == "ok")] if len(res.runs) else res.runs
    ax = ax if ax is not None else plots.new_axes((10.0, 5.0))
    order = published_final_funds(models)["model"].tolist()  # the legend reads best first, as the leaderboard
    theirs = published_funds(order)
    months = sorted(theirs["month"].unique())
    ours = plots.plotted_series(res.series, runs, _FUNDS, plots.columns_for(runs, by)) if len(runs) else None
    if ours is not None and len(ours):
        months = sorted(set(months) | set(ours["key"].astype(str)))
    x = {m: i for i, m in enumerate(months)}
    import matplotlib

    # A colour a line: twenty published models would wrap the default cycle's ten, two models sharing a colour.
    palette = matplotlib.colormaps["tab20"]
    for i, (key, g) in enumerate(theirs.groupby("model", sort=False)):
        ax.plot([x[m] for m in g["month"]], g["funds_usd"], linestyle="--", linewidth=1, alpha=0.75,
                color=palette(i % palette.N), label=f"{g['name'].iloc[0]} (published, 3 seeds)")
    if ours is not None and len(ours):
        cols = plots.columns_for(runs, by)
        mine = matplotlib.colormaps["Dark2"]
        for i, (key, g) in enumerate(ours.groupby(cols, sort=True, dropna=False)):
            g = g.sort_values("step")
            ax.plot([x[str(k)] for k in g["key"]], g["mean"] / 100, linewidth=2.8, color=mine(i % mine.N),
                    label=f"{plots.group_label(key, cols)} (yours, n={int(g['n'].max())})")
    every = max(1, len(months) // 12)
    ax.set_xticks(list(range(len(months)))[::every], months[::every], rotation=45, ha="right")
    ax.axhline(0, color="grey", linewidth=0.8)
    plots.money_axis(ax)
    ax.set_ylabel("Funds (dollars)")
    ax.set_xlabel("month")
    ax.set_title("Your runs beside the published YC-Bench results (mean funds over seeds)")
    handles, labels = ax.get_legend_handles_labels()
    # Beside the axes, not over the lines: nineteen published models would hide them.
    ax.figure.legend(handles, labels, fontsize="x-small", loc="outside right upper")
    return ax
