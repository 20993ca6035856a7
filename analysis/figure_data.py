"""A figure's data as a table: what each mark of a matplotlib axis draws, read back from the axis.

The report writes this table beside every figure it draws (``figures/<name>.csv``), so a reader can redraw the
figure in a paper's style, or check it, without the runs. Reading the drawn axis rather than each figure's source
table makes it one rule for every figure, a world's own included, and the numbers are the drawn ones: in the
figure's units (dollars where the axis shows dollars).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["FIGURE_DATA_COLUMNS", "figure_data"]

#: The columns of :func:`figure_data`: ``mark`` is ``line``, ``band`` (a shaded area from ``y_low`` to ``y_high``:
#: a confidence band, or a layer of a stacked figure), ``bar``, ``point`` or ``range`` (an error bar from ``y_low``
#: to ``y_high``); ``series`` the mark's name in the legend; ``x_label`` the axis's tick label at ``x``, if any.
FIGURE_DATA_COLUMNS = ["mark", "series", "x", "x_label", "y", "y_low", "y_high"]


def _name(artist: Any, fallback: str) -> str:
    label = str(artist.get_label() or "")
    return fallback if not label or label.startswith("_") else label


def _number(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def figure_data(ax: Any) -> Any:
    """One row a point of every mark drawn in data coordinates on ``ax`` (reference lines such as an ``axhline``
    are not data and are left out), in drawing order; columns :data:`FIGURE_DATA_COLUMNS`."""
    import numpy as np
    import pandas as pd
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.container import BarContainer

    ticks = {round(_number(t), 9): lab.get_text() for t, lab in zip(ax.get_xticks(), ax.get_xticklabels())}
    rows: list[dict] = []

    def add(mark: str, series: str, x: Any, y: Any = math.nan, low: Any = math.nan, high: Any = math.nan) -> None:
        xv = _number(x)
        rows.append({"mark": mark, "series": series, "x": xv, "x_label": ticks.get(round(xv, 9), ""),
                     "y": _number(y), "y_low": _number(low), "y_high": _number(high)})

    lines = [ln for ln in ax.get_lines() if ln.get_transform() == ax.transData]
    for i, line in enumerate(lines):
        name = _name(line, f"line {i + 1}")
        for x, y in zip(np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)):
            add("line", name, x, y)
    for i, container in enumerate(ax.containers):
        if not isinstance(container, BarContainer):
            continue
        name = _name(container, f"bars {i + 1}")
        for patch in container.patches:
            x0, y0 = patch.get_x(), patch.get_y()
            add("bar", name, x0 + patch.get_width() / 2, y0 + patch.get_height())
    for i, coll in enumerate(ax.collections):
        if coll.get_transform() != ax.transData and not isinstance(coll, PathCollection):
            continue
        if isinstance(coll, PathCollection):  # a scatter: its points are its offsets
            name = _name(coll, f"points {i + 1}")
            for x, y in np.asarray(coll.get_offsets(), dtype=float):
                add("point", name, x, y)
        elif isinstance(coll, LineCollection):  # error bars: one segment a point
            name = _name(coll, f"ranges {i + 1}")
            for seg in coll.get_segments():
                seg = np.asarray(seg, dtype=float)
                if len(seg):
                    add("range", name, seg[0, 0], math.nan, seg[:, 1].min(), seg[:, 1].max())
        elif isinstance(coll, PolyCollection):  # fill_between and stackplot: the area's lower and upper edge
            name = _name(coll, f"area {i + 1}")
            for path in coll.get_paths():
                v = np.asarray(path.vertices, dtype=float)
                v = v[np.isfinite(v).all(axis=1)]
                for x in np.unique(v[:, 0]):
                    at = v[v[:, 0] == x, 1]
                    add("band", name, x, math.nan, at.min(), at.max())
    return pd.DataFrame(rows, columns=FIGURE_DATA_COLUMNS)
