"""Pinned digests of whole episodes and sweep records: the same bytes on every supported Python.

A digest that moves means an output changed. Where the change is meant (a
fixed rule, a new field), update the digest in the same commit and say why;
where it is not (a new Python, numpy or SimPy version), a rule depends on
something it must not. Computed on Python 3.11.7, 3.12.1 and 3.13.0.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from bizsim.runs import grid, run_episode
from bizsim.runs._worker import record_run


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize(("world", "agent", "digest"), [
    ("startup", "greedy", "e903f41d8981bc0d"),
    ("startup", "random", "df1544b5643fcb62"),
    ("startup", "planner", "764d09bdb0542ece"),  # reads task progress (summed as Python 3.12 sums)
    ("operation", "threshold", "1f5749afa3084e5a"),
    ("vending", "markup", "55722d6e4baa88d6"),
    # energy_restore reports the reference's action name (relax_<level>); nothing else moved
    ("freelance", "cautious", "b4b0394d05d35743"),
    ("freelance", "planner", "0a1e631d27b0c1ed"),  # skill averages (statistics.mean, as the reference)
])
def test_a_default_episode_has_its_pinned_trajectory(world, agent, digest):
    assert digest == _digest(run_episode(world, "default", agent, 1).trajectory.to_jsonl())


@pytest.mark.parametrize(("world", "agent", "digest"), [
    # staffing figures: float sums over the team; task rows carry required_trust and required_prestige, the run
    # its final_scratchpad
    ("startup", "planner", "86df314064293695"),
    ("freelance", "planner", "e660e0c4efe99633"),
])
def test_a_sweep_record_has_its_pinned_bytes(world, agent, digest):
    record = record_run(grid(world, "default", agent, 1)[0].to_dict())
    assert "ok" == record.pop("status") and record.pop("wall_s") >= 0
    assert digest == _digest(json.dumps({**record, "status": "ok"}, sort_keys=True))


@pytest.mark.parametrize(("agent", "digest"), [
    ("greedy", "e3909c6ad69bc382"),
    ("random", "0ee8beabf05bdc0d"),  # clients whose trust an outcome took to zero: "0.000", as every stored trust
])
def test_a_startup_episode_ends_in_its_pinned_snapshot(agent, digest):
    from bizsim.simcore.trajectory import to_json

    assert digest == _digest(to_json(run_episode("startup", "default", agent, 1).final_world.state()))
