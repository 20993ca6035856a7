"""Hostile configs: every value of every field of every world's config is either refused with a ConfigError naming
the field, or accepted and the world runs on it (no raw exception, no NaN in what it records)."""

from __future__ import annotations

import importlib
import json
import math

import attrs
import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st

from bizsim.agents import AGENTS
from bizsim.models import world_class
from bizsim.simcore.errors import ConfigError

from ._fuzz import fuzz
from ._hang_guard import no_hang
from .strategies import WORLD_NAMES, config_values

pytestmark = pytest.mark.fuzz

#: Advances each fuzzed world runs: enough to reach every daily process and a few payrolls.
_STEPS = 25


def _presets(name: str):
    return importlib.import_module(world_class(name).__module__.rsplit(".", 1)[0]).PRESETS


def _base(name: str):
    presets = _presets(name)
    return presets["small" if name == "vending" else "default"]


def _fields(name: str) -> list[str]:
    return [f.name for f in attrs.fields(type(_base(name))) if not f.name.endswith("_path")]


def _capped(agent, steps: int):
    """``agent`` stopped after ``steps`` advances (a fuzzed horizon may be 100,000 days)."""
    def run(world):
        gen = agent(world)
        try:
            event = next(gen)
            for _ in range(steps):
                event = gen.send((yield event))
        except StopIteration:
            return
    return run


def _no_constant(name: str) -> None:
    raise AssertionError(f"the world recorded {name}")


def _runs(name: str, config) -> None:
    """Build the world on ``config`` and let each of its first two baseline agents play a few steps."""
    for agent in [a for a in AGENTS[name] if a != "llm"][:2]:
        world = world_class(name)(config, 1)
        world.run(_capped(AGENTS[name][agent], _STEPS))
        for line in world.trajectory.to_jsonl().split("\n")[:-1]:
            json.loads(line, parse_constant=_no_constant)
        json.dumps(world.state(), allow_nan=False)


@pytest.mark.parametrize("name", WORLD_NAMES)
def test_nan_and_infinities_are_refused_in_every_numeric_field(name):
    """NaN passed range checks (``min_creator_activity = nan`` ran a year and printed NaN): every float field of
    every config refuses NaN and the infinities, naming the field."""
    base = _base(name)
    numeric = [f for f in attrs.fields(type(base)) if isinstance(getattr(base, f.name), float)]
    assert numeric
    for field in numeric:
        for value in (math.nan, math.inf, -math.inf):
            with pytest.raises(ConfigError, match=field.name):
                attrs.evolve(base, **{field.name: value})


@pytest.mark.parametrize("name", WORLD_NAMES)
def test_every_field_checks_its_type(name):
    """Text, tables and lists where a number or a flag belongs are refused, naming the field (the operation,
    vending and freelance configs checked no types)."""
    base = _base(name)
    for field in attrs.fields(type(base)):
        value = getattr(base, field.name)
        if isinstance(value, (bool, int, float)) and not attrs.has(type(value)):
            for wrong in ("1", [1], {"a": 1}, None if value is not None else "x"):
                if wrong is None and field.type and "None" in str(field.type):
                    continue
                with pytest.raises(ConfigError, match=field.name):
                    attrs.evolve(base, **{field.name: wrong})


@pytest.mark.parametrize("name", WORLD_NAMES)
@fuzz(25)
@given(data=st.data())
def test_fuzzed_config_values_are_refused_or_run(name, data):
    """One field set to a hostile value: a ConfigError naming the field, or a world that runs and records no NaN."""
    field = data.draw(st.sampled_from(_fields(name)))
    value = data.draw(config_values(getattr(_base(name), field)))
    try:
        config = attrs.evolve(_base(name), **{field: value})
    except ConfigError as exc:
        assert field in str(exc) or "start_date" in str(exc) or "must be" in str(exc), str(exc)
        return
    with no_hang(f"{name} with {field}={value!r:.60}"):
        _runs(name, config)


@pytest.mark.parametrize("name", WORLD_NAMES)
@fuzz(15)
@given(data=st.data())
def test_fuzzed_toml_files_are_refused_or_load(name, data, tmp_path_factory):
    """A preset TOML file with hostile values (extends as a list, unknown keys, wrong types): one ConfigError or a
    config that loads."""
    presets = _presets(name)
    fields = _fields(name)
    table = data.draw(st.dictionaries(st.sampled_from([*fields, "extends", "bogus"]),
                                      st.one_of(config_values(1.0), st.sampled_from([[1, 2], {"a": 1}, "default"])),
                                      max_size=4))
    try:
        text = tomli_w.dumps(table)
    except (TypeError, ValueError):
        return  # not writable as TOML (None, NaN in a list...): nothing to read
    path = tmp_path_factory.mktemp("toml") / "preset.toml"
    path.write_text(text, encoding="utf-8")
    try:
        presets.from_toml(path)
    except ConfigError:
        pass


# --- Seed sets: one parser, which counts a set before it lists it (`--seeds`, grid files, the RL environment).

_SEED_CASES = {
    "sweep --seeds": ("import sys, tempfile\nfrom bizsim.cli.main import main\n"
                      "code = main(['sweep', '--world', 'startup', '--seeds', SEEDS, '--out', tempfile.mkdtemp(),"
                      " '--no-progress'])\nprint('EXIT', code)\n"),
    "grid file": ("import tempfile, pathlib\nfrom bizsim.runs.gridfile import load_grid\n"
                  "from bizsim.simcore.errors import ConfigError\n"
                  "p = pathlib.Path(tempfile.mkdtemp()) / 'grid.toml'\n"
                  "p.write_text('[grid]\\nworlds = [\"startup\"]\\nseeds = \"%s\"\\n' % SEEDS)\n"
                  "try:\n    load_grid(p)\nexcept ConfigError as exc:\n    print('REFUSED', exc)\n"),
    # The verifiers environment's split_seeds (tests/test_verifiers_env.py checks it is this one), imported from
    # where it lives: importing verifiers in the child would cost seconds and bound nothing more.
    "RL environment": ("from bizsim.surfaces._rl_args import split_seeds\n"
                       "from bizsim.simcore.errors import ConfigError\n"
                       "try:\n    split_seeds(SEEDS, '1')\nexcept ConfigError as exc:\n    print('REFUSED', exc)\n"),
}


@pytest.mark.parametrize("caller", sorted(_SEED_CASES))
def test_a_huge_seed_range_is_refused_before_it_is_built(caller):
    """`--seeds 1-1000000000000` (and a grid file's, and the RL environment's) ended in a MemoryError or the
    system's killer; every caller now refuses it, and 1-10000000, against the seed limit, in a child capped at 3 GiB
    (one child a caller: each case runs in a namespace of its own)."""
    from ._bounded import run_capped

    cases = ["1-1000000000000", "1-10000000"]
    done = run_capped(f"for SEEDS in {cases!r}:\n    exec({_SEED_CASES[caller]!r}, {{'SEEDS': SEEDS}})\n")
    assert 0 == done.returncode, done.stderr[-2000:]
    assert len(cases) == (done.stdout + done.stderr).count("past the limit of 100,000")
    assert "Traceback" not in done.stderr


def test_the_seed_parser_reads_every_form_and_refuses_with_the_rule():
    """Lists may hold seed text (Inspect hands `-T seeds=1,3` as ['1', '3']); seeds are 64-bit, ASCII digits."""
    from bizsim.simcore.limits import MAX_SEEDS
    from bizsim.simcore.seeds import parse_seeds

    assert [1, 3] == parse_seeds(["1", "3"])
    assert [1, 2, 3, 9] == parse_seeds(["1-3", 9])
    assert MAX_SEEDS == len(parse_seeds(f"1-{MAX_SEEDS}"))
    for bad, rule in ((f"0-{MAX_SEEDS}", "past the limit of 100,000"), ("1-2,3-1", "N <= M"),
                      ("+1", "is not a seed N"), ("1_000", "is not a seed N"), ("\u0661", "is not a seed N"),
                      ("9" * 5000, "is not a seed N"), (10**30, "past the largest seed"),
                      (iter(range(10**18)), "past the limit")):
        with no_hang(f"parse_seeds({bad!r:.40})"), pytest.raises(ConfigError, match=rule) as caught:
            parse_seeds(bad)
        assert len(str(caught.value)) < 400


def test_a_grid_too_large_to_run_is_counted_before_it_is_built():
    """worlds x presets x agents x seeds past the sweep limit is refused before a spec is made."""
    from bizsim.runs.runspec import grid

    with no_hang("a 10^10-run grid"), pytest.raises(ConfigError, match="past the limit of 1,000,000"):
        grid("startup", ["default"] * 100_000, "greedy", "1-100000")
