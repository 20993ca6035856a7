"""Snapshots: every registered world, snapshotted at any point, restores by replay to an equal world."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_names, world_spec
from bizsim.simcore.replay import play_commands
from bizsim.simcore.snapshot import Snapshot, restore
from hypothesis import given, settings
from hypothesis import strategies as st

from .strategies import cut_scripts, seeds


def observables(world) -> dict:
    """Everything an agent, a harness or an analysis can read of a world."""
    return {
        "state": world.state(), "summary": json.loads(json.dumps(world.summary(), default=str)),
        "observation": world.observation(), "now_us": world.now_us, "status": world.status, "done": world.done,
        "trajectory": world.trajectory.to_jsonl(), "log": world.command_log(), "invariants": world.invariants(),
        "scratchpad": world.scratchpad, "prompt": world.system_prompt(), "preset": getattr(world, "preset", None),
    }


@pytest.mark.parametrize("name", world_names())
@settings(max_examples=10, deadline=None)
@given(data=st.data(), seed=seeds(1_000))
def test_a_snapshot_at_any_point_restores_to_an_equal_world_that_plays_on_alike(name, data, seed):
    """Snapshot after any prefix of a script; the restored world (directly, through JSON, pickle and deepcopy)
    equals the original in every observable, and stays equal when both play the rest of the script."""
    spec = world_spec(name)
    preset = data.draw(st.sampled_from(spec.preset_names()), label="preset")
    lines, cut = data.draw(cut_scripts(name), label="script and cut")
    world = spec.make(preset, seed)
    play_commands(world, lines[:cut])
    snap = world.snapshot()
    copies = [restore(snap), restore(Snapshot.from_json(snap.to_json())), pickle.loads(pickle.dumps(world)),
              copy.deepcopy(world), restore(pickle.loads(pickle.dumps(snap)))]
    assert snap == Snapshot.from_json(snap.to_json())
    for again in copies:
        assert observables(world) == observables(again)
    play_commands(world, lines[cut:])
    for again in copies[:2]:
        play_commands(again, lines[cut:])
        assert observables(world) == observables(again)


def test_a_snapshot_is_a_small_immutable_value_naming_what_rebuilds_the_world():
    """A snapshot holds the world, its version, config, seed and timed log; it is frozen and hashable."""
    world = world_spec("startup").make("default", 3)
    play_commands(world, ["company status", "sim resume", "market browse"])
    snap = world.snapshot()
    assert ("startup", 1, 3, "startup-v1") == (snap.world, snap.version, snap.seed, snap.benchmark_id)
    assert tuple(world.command_log()) == snap.log and 3 == len(snap.log)
    assert world.config == snap.config
    with pytest.raises(AttributeError):
        snap.seed = 4  # type: ignore[misc]
    assert hash(snap) == hash(Snapshot.from_json(snap.to_json()))
    assert snap.prefix(1) == Snapshot.from_dict({**snap.to_dict(), "log": snap.to_dict()["log"][:1]})


def test_the_startup_scratchpad_carried_into_a_world_travels_in_its_snapshot():
    """A world started with carried-over notes (a restart after bankruptcy) restores with the same notes."""
    world = world_spec("startup").make("default", 2, scratchpad="hire cheap")
    play_commands(world, ["scratchpad append --content 'more'"])
    again = copy.deepcopy(world)
    assert ("hire cheap\nmore", observables(world)) == (again.scratchpad, observables(again))


def test_a_snapshot_of_another_benchmark_version_or_damaged_data_is_refused():
    """Restoring needs the same benchmark version; damaged data is a one-line ConfigError."""
    data = world_spec("operation").make("default", 1).snapshot().to_dict()
    with pytest.raises(ConfigError, match="operation-v99"):
        restore(Snapshot.from_dict({**data, "version": 99}))
    with pytest.raises(ConfigError, match="format"):
        Snapshot.from_dict({**data, "format": 0})
    with pytest.raises(ConfigError, match="log entry"):
        Snapshot.from_dict({**data, "log": [["x", "help"]]})
    with pytest.raises(ConfigError, match="JSON"):
        Snapshot.from_json("{")


def test_a_world_built_with_objects_no_snapshot_carries_refuses_to_snapshot():
    """A freelance world with its own auditor object cannot travel as data: it says so."""
    from bizsim.models.freelance.auditor import DeterministicAuditor

    world = world_spec("freelance").make("default", 1, auditor=DeterministicAuditor())
    with pytest.raises(ConfigError, match="own auditor"):
        world.snapshot()
