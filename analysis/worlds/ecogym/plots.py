"""Figures of the EcoGym paper's analyses (tables in :mod:`.paper`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.analysis import plots
from bizsim.analysis.labels import words

from bizsim.analysis.worlds.ecogym import paper

__all__ = ["context_length"]


def context_length(
    runs: Any, world: str, field: str = "history_messages", by: str | Sequence[str] | None = None, *, ax: Any = None,
) -> Any:
    """The context-length figure of one world: its Table 2 figure against the context kept, the mean over runs with
    the runs' range as bars, one line a group (:func:`.paper.context_length`'s table)."""
    ax = ax if ax is not None else plots.new_axes()
    table = paper.context_length(runs, field, by)
    table = table[table["world"] == world]
    columns = list(table.columns)
    cols = columns[columns.index("world") + 1:columns.index(field)]  # the table is world, by..., field, figures
    figure = paper._figure_of(world, None)
    div = 100.0 if figure.endswith("_cents") else 1.0
    plots.mean_and_range(ax, table, field, cols, div)
    ax.set_xlabel(words(field))
    ax.set_ylabel(paper.words_of(figure))
    if div != 1.0:
        plots.money_axis(ax)
    ax.set_title(f"{world}: {paper.words_of(figure)} against {words(field).lower()}")
    if len(table):
        ax.legend(fontsize="small")
    return ax
