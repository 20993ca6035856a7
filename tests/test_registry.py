"""The world registry: every registered world holds together and passes the kernel's contract."""

from __future__ import annotations

import attrs
import pytest
from bizsim.agents import AgentDef, resolve_agent
from bizsim.simcore.check import check_registration, check_world, probe_agent
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import WorldSpec, register, registered, unregister, world_names, world_spec

WORLDS = world_names()


@pytest.mark.parametrize("name", WORLDS)
def test_every_registered_world_holds_together(name):
    """Class name and version, presets, summary, agents, roles and hooks agree with the registration."""
    check_registration(world_spec(name))


@pytest.mark.parametrize("name", WORLDS)
def test_every_registered_world_passes_check_world(name):
    """check_world with the probe agent on the default preset: determinism, replay, invariants, refusals."""
    spec = world_spec(name)
    check_world(lambda seed: spec.make("default", seed), probe_agent, seeds=(1,))


@pytest.mark.parametrize("name", WORLDS)
def test_every_registered_agent_is_declared(name):
    """Each agent a registration names imports as an @agent declaration whose options the signature gives."""
    for agent in world_spec(name).agents:
        found = resolve_agent(name, agent)
        assert isinstance(found, AgentDef), (name, agent)


def test_unknown_worlds_and_versions_are_refused_with_the_choices():
    """A name that is not registered lists the registered ones; a version this install lacks is named."""
    with pytest.raises(ConfigError, match="unknown world 'atlantis'; choose one of .*startup"):
        world_spec("atlantis")
    with pytest.raises(ConfigError, match="world 'startup' is at version 1; 'startup-v9' is not available"):
        world_spec("startup-v9")
    assert world_spec("startup") is world_spec("startup-v1")
    # A later version registered beside the first carries its version in its name: both stay chosen by name.
    assert ("startup-v2", "startup-v2", 2) == (world_spec("startup-v2").name, world_spec("startup-v2").benchmark_id,
                                              world_spec("startup-v2").world_class().version)


def test_a_world_registered_from_code_is_used_everywhere_and_can_be_removed():
    """register() adds a world under a new name (here: the operation world's parts under another name)."""
    base = world_spec("operation")
    renamed = attrs.evolve(base, name="operation_copy")
    register(renamed)
    try:
        assert "operation_copy" in registered() and renamed is world_spec("operation_copy")
        with pytest.raises(ConfigError, match="already registered"):
            register(attrs.evolve(renamed, default_agent="planner"))
    finally:
        unregister("operation_copy")
    assert "operation_copy" not in registered()


@pytest.mark.parametrize("change, rule", [
    ({"name": "Bad Name"}, "lower-case"),
    ({"version": 0}, "integer >= 1"),
    ({"factory": "not a reference"}, "package.module:attribute"),
    ({"agents": {"x": "nope"}}, "package.module:attribute"),
    ({"default_agent": "nobody"}, "not one of its agents"),
    ({"name": "operation-v3"}, r"names version 3 but version is 1; name it operation-v1"),
    ({"sub_metrics": ["dau"]}, r"sub_metrics holds 'dau'; each must be a SubMetric"),
    ({"sub_metrics": [world_spec("operation").sub_metrics[0]] * 2}, r"sub_metrics names 'dau' twice"),
])
def test_a_malformed_registration_is_refused_with_its_rule(change, rule):
    """WorldSpec checks its own fields when it is made."""
    fields = {f.name: getattr(world_spec("operation"), f.name) for f in attrs.fields(WorldSpec)}
    with pytest.raises(ConfigError, match=rule):
        WorldSpec(**{**fields, **change})


def test_check_registration_catches_a_version_that_disagrees_with_the_class():
    """A registration whose version is not its class's fails the check, naming both."""
    with pytest.raises(AssertionError, match="operation-v1, the registration operation-v2"):
        check_registration(attrs.evolve(world_spec("operation"), version=2))


@pytest.mark.parametrize("change, rule", [
    ({"name": "Prestige"}, r"SubMetric.name\(='Prestige'\) must be 1-40 lower-case"),
    ({"weight": float("inf")}, r"SubMetric.weight\(=inf\) must be a finite number"),
    ({"weight": True}, r"SubMetric.weight\(=True\) must be a finite number"),
    ({"reads": "a b"}, r"SubMetric.reads\(='a b'\) must be a key of the world's summary\(\)"),
    ({"why": ""}, r"SubMetric.why\(=''\) must be text of 1 to 400 characters"),
])
def test_a_malformed_sub_metric_is_refused_with_its_rule(change, rule):
    """A sub-metric declaration checks its own fields when it is made."""
    sub = world_spec("operation").sub_metrics[0]
    with pytest.raises(ConfigError, match=rule):
        attrs.evolve(sub, **change)


def test_check_registration_catches_a_sub_metric_that_reads_no_number():
    """A sub-metric reading a summary key the world lacks, or one that is not a number, fails the check, naming it."""
    sub = world_spec("operation").sub_metrics[0]
    for reads, rule in (("users_today", (r"'users' reads summary\(\)\['users_today'\], which this world's summary "
                                         r"does not hold")),
                        ("collapsed", r"'users' read False from collapsed, not a finite number")):
        spec = attrs.evolve(world_spec("operation"), sub_metrics=[attrs.evolve(sub, name="users", reads=reads)])
        with pytest.raises(AssertionError, match=rule):
            check_registration(spec)


def test_a_broken_installed_world_is_named_and_the_others_still_work(tmp_path):
    """An entry point that does not import, or names another world, is reported; the built-in worlds still run."""
    import os
    import subprocess
    import sys

    info = tmp_path / "broken_worlds-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-worlds\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[bizsim.worlds]\nghost = no_such_package.spec:WORLD\nimpostor = bizsim.models.vending.spec:WORLD\n",
        encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    listed = subprocess.run([sys.executable, "-m", "bizsim.cli", "list"], capture_output=True, text=True, env=env)
    assert 0 == listed.returncode and "startup (startup-v1)" in listed.stdout
    assert "ghost: cannot be loaded (no_such_package.spec:WORLD: ModuleNotFoundError" in listed.stderr
    assert "impostor: cannot be loaded" in listed.stderr and "under the name 'impostor'" in listed.stderr
    code = "from bizsim.simcore.registry import world_spec\ntry:\n    world_spec('ghost')\nexcept Exception as e:\n    print(e)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout
    assert "unknown world 'ghost'" in shown and "failed to load" in shown
