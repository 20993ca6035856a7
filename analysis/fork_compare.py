"""A parent run and its forks side by side: the metric from the fork point on, as a table and a plot.

>>> from bizsim.runs import run_episode
>>> from bizsim.runs.fork import fork
>>> parent = run_episode("operation", "default", "round-robin", 1)
>>> kids = [fork(parent, at={"day": 100}, agent=a) for a in ("planner", "threshold")]
>>> table = compare_forks(parent, kids)
>>> list(table["run"]), bool((table["metric_at_fork"] == table["metric_at_fork"].iloc[0]).all())
(['parent (round-robin)', 'fork 1 (planner)', 'fork 2 (threshold)'], True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.replay import replay
from bizsim.simcore.world import World

__all__ = ["compare_forks", "fork_series", "metric_path"]

_US_PER_DAY = 24 * 3_600_000_000


def _metric(world: World) -> float:
    return float(world.summary()["metric_value"])


def metric_path(run: Any) -> list[tuple[int, float]]:
    """The world's metric at the start of every agent turn of a run, and at its end: ``[(t_us, metric), ...]``.

    ``run`` is an :class:`~bizsim.runs.episode.EpisodeResult` or a run directory; its log is replayed.
    """
    from bizsim.simcore.registry import world_spec

    from bizsim.runs.fork import load_parent

    snap = load_parent(run).snapshot
    cls = world_spec(snap.world).world_class()
    options = dict(snap.options)
    path: list[tuple[int, float]] = []
    world = replay(lambda: cls(snap.config, snap.seed, **options), snap.log,
                   lambda w: path.append((w.now_us, _metric(w))))
    path.append((world.now_us, _metric(world)))
    return path


def _info(run: Any) -> dict[str, Any]:
    from bizsim.runs.episode import EpisodeResult
    from bizsim.runs.rundir import read_record

    if isinstance(run, EpisodeResult):
        return run.to_dict()
    return read_record(run).to_dict()


def fork_series(parent: Any, forks: Sequence[Any]) -> Any:
    """The metric over time of a parent and its forks from the (earliest) fork point, as a long DataFrame.

    Columns: ``run`` (``parent (agent)``, ``fork N (agent)``), ``agent``, ``day`` (simulated days since the
    fork point), ``metric``. Needs pandas (the ``analysis`` extra).
    """
    import pandas as pd

    infos = [_info(f) for f in forks]
    if not infos or any(not isinstance(i.get("fork"), dict) for i in infos):
        raise ConfigError("compare a parent with at least one fork (runs whose result names a fork)")
    t0 = min(int(i["fork"]["t_us"]) for i in infos)
    rows = []
    for label, info, run in _labelled(_info(parent), parent, infos, forks):
        for t_us, value in metric_path(run):
            if t_us >= t0:
                rows.append({"run": label, "agent": info.get("agent"), "day": (t_us - t0) / _US_PER_DAY,
                             "metric": value})
    return pd.DataFrame(rows, columns=["run", "agent", "day", "metric"])


def _labelled(parent_info: dict, parent: Any, infos: list[dict], forks: Sequence[Any]) -> list[tuple[str, dict, Any]]:
    out = [(f"parent ({parent_info.get('agent')})", parent_info, parent)]
    out += [(f"fork {n} ({info.get('agent')})", info, run) for n, (info, run) in enumerate(zip(infos, forks), 1)]
    return out


def compare_forks(parent: Any, forks: Sequence[Any]) -> Any:
    """One row per run (the parent first): where each fork started, the metric there and at the end.

    Columns: ``run``, ``agent``, ``mode`` (``continued``/``handover``; empty for the parent), ``fork_turn``,
    ``fork_day``, ``metric_at_fork``, ``final_metric``, ``change_since_fork``, ``vs_parent`` (final metric
    minus the parent's), ``terminal_reason``. Needs pandas.
    """
    import pandas as pd

    series = fork_series(parent, forks)
    infos = [_info(f) for f in forks]
    parent_info = _info(parent)
    final_parent = float(parent_info["metric_value"])
    rows = []
    for label, info, _run in _labelled(parent_info, parent, infos, forks):
        own = series[series["run"] == label]
        origin = info.get("fork") or {}
        rows.append({
            "run": label, "agent": info.get("agent"), "mode": origin.get("mode", ""),
            "fork_turn": origin.get("turn"), "fork_day": int(origin["t_us"]) / _US_PER_DAY if origin else None,
            "metric_at_fork": float(own["metric"].iloc[0]) if len(own) else float("nan"),
            "final_metric": float(info["metric_value"]),
            "terminal_reason": info.get("terminal_reason"),
        })
    table = pd.DataFrame(rows)
    table["change_since_fork"] = table["final_metric"] - table["metric_at_fork"]
    table["vs_parent"] = table["final_metric"] - final_parent
    return table

