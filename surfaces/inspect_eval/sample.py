"""Which episode an Inspect sample plays: its world, preset, seed and run directory, kept in the sample's store.

The store holds JSON only (Inspect logs it); the live world itself is kept here, by
a key the store holds, and opened on the sample's first tool call, so an agent that
plays through bizsim's own harness instead (preset ``reference``) leaves it unopened.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

from inspect_ai.util import store

from bizsim.runs.live import Episode

__all__ = ["EPISODE_KEYS", "begin_sample", "current_episode", "close_unscored", "finish_episode", "live_episode", "sample_plan"]

#: The store keys of a sample's plan (``bizsim:world`` ...); ``bizsim:live`` names its open episode.
EPISODE_KEYS = ("world", "preset", "seed", "run_dir", "agent", "metadata")
_LIVE_KEY = "bizsim:live"
_LIVE: dict[str, Episode] = {}
_lock = threading.Lock()


def begin_sample(*, world: str, preset: str, seed: int, run_dir: str | Path, agent: str,
                 metadata: dict[str, Any] | None = None) -> None:
    """Record in the current sample's store which episode it plays (nothing is opened yet); ``metadata`` (JSON) goes
    into its ``result.json`` (``live.metadata``)."""
    s = store()
    values = (world, preset, seed, str(Path(run_dir).resolve()), agent, dict(metadata or {}))
    for key, value in zip(EPISODE_KEYS, values):
        s.set(f"bizsim:{key}", value)


def sample_plan() -> dict[str, Any]:
    """The current sample's world, preset, seed, run directory and agent label."""
    s = store()
    plan = {key: s.get(f"bizsim:{key}") for key in EPISODE_KEYS}
    if plan["world"] is None:
        raise RuntimeError("this sample was not set up by a bizsim task (its setup solver did not run)")
    return plan


def current_episode() -> Episode:
    """The current sample's live episode, opened on first use."""
    s = store()
    key = s.get(_LIVE_KEY)
    with _lock:
        episode = _LIVE.get(key) if key else None
        if episode is None:
            plan = sample_plan()
            episode = Episode(plan["world"], plan["preset"], plan["seed"], out=plan["run_dir"], surface="inspect",
                              agent=plan["agent"], metadata=plan["metadata"])
            episode.set_client("inspect_ai", _inspect_version())
            key = uuid.uuid4().hex
            _LIVE[key] = episode
            s.set(_LIVE_KEY, key)
    return episode


def live_episode() -> Episode | None:
    """The current sample's live episode if it has opened one."""
    key = store().get(_LIVE_KEY)
    with _lock:
        return _LIVE.get(key) if key else None


def finish_episode(usage: dict[str, Any], detail: str) -> dict | None:
    """Report the sample's model usage to its live episode, close it (its run directory is complete) and return
    what ``result.json`` holds; ``None`` when the sample opened none."""
    key = store().get(_LIVE_KEY)
    with _lock:
        episode = _LIVE.pop(key, None) if key else None
    if episode is None:
        return None
    try:
        episode.report_usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0), usage.get("cost_usd"))
    finally:  # the episode has left the table: whatever the usage held, it is closed here or never
        result = episode.close(detail)
    return result


async def close_unscored(state: Any) -> None:
    """Inspect's task cleanup: a sample that ended without being scored (an error) still leaves its episode closed,
    its run directory complete up to the last answered call."""
    key = state.store.get(_LIVE_KEY)
    with _lock:
        episode = _LIVE.pop(key, None) if key else None
    if episode is not None:
        episode.close("the Inspect sample ended without a score (an error)")


def _inspect_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("inspect_ai")
    except PackageNotFoundError:
        return None
