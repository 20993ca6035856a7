"""Agent options are checked before a run starts: wrong types and values out of range are ConfigErrors."""

from __future__ import annotations

import pytest
from bizsim.agents import AGENTS, make_agent
from bizsim.runs import RunSpec
from bizsim.simcore.errors import ConfigError
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    "world, agent, options, message",
    [
        ("vending", "markup", {"markup": "1.5"}, r"option markup='1\.5' must be a finite number"),
        ("vending", "markup", {"queries": "soda"}, "must be a list of strings"),
        ("vending", "markup", {"max_products": 2.5}, "must be an integer"),
        ("vending", "markup", {"max_products": True}, "must be an integer"),
        ("vending", "markup", {"min_rate": -0.1}, r"min_rate\(=-0\.1\) must be >= 0"),
        ("startup", "random", {"seed": "x"}, "must be an integer or null"),
        ("startup", "random", {"max_parallel": -1}, r"max_parallel\(=-1\) must be >= 0"),
        ("startup", "random", {"seed": -2}, r"seed\(=-2\) must be >= 0"),
        ("startup", "planner", {"pad_teams": 1}, "must be true or false"),
        ("startup", "planner", {"safety_margin": 1.0}, r"safety_margin\(=1\.0\) must be in \[0, 1\)"),
        ("operation", "threshold", {"high": "sleep"}, r"high\(='sleep'\) must be one of"),
        ("freelance", "cautious", {"max_complexity": 3}, "must be a string"),
        ("freelance", "cautious", {"max_complexity": "Huge"}, r"max_complexity\(='Huge'\) must be one of Low"),
        ("freelance", "planner", {"rest_level": "huge"}, r"rest_level\(='huge'\) must be one of low, medium, high"),
        ("freelance", "planner", {"skip_share": -5.0}, r"skip_share\(=-5\.0\) must be in \[0, 1\]"),
        ("freelance", "planner", {"slip_base": 1.5}, r"slip_base\(=1\.5\) must be in \[0, 1\]"),
        ("freelance", "planner", {"taper_days": -1}, r"taper_days\(=-1\) must be >= 0"),
        ("freelance", "planner", {"min_energy": -100}, r"min_energy\(=-100\) must be >= 0"),
    ],
)
def test_bad_options_are_refused_when_the_agent_is_made(world, agent, options, message):
    """The error names the agent, the option and the rule; in a sweep, ``RunSpec.check`` refuses it up front."""
    with pytest.raises(ConfigError, match=f"agent '{agent}': .*{message}"):
        make_agent(world, agent, options)
    with pytest.raises(ConfigError, match=message):
        RunSpec(world, agent=agent, agent_options=options).check()


def test_a_non_finite_number_is_refused():
    """NaN and infinity pass no numeric option (a sweep's spec refuses them earlier still, as not JSON)."""
    for value in (float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="must be a finite number"):
            make_agent("vending", "markup", {"markup": value})


def test_good_options_pass_and_keep_their_values():
    """Ints where floats are declared, lists for sequences, null for optional values: all accepted as given."""
    for world, agent, options in [
        ("vending", "markup", {"markup": 2, "queries": ["soda", "chips"], "min_rate": 0}),
        ("startup", "random", {"seed": None, "max_parallel": 1}),
        ("startup", "planner", {"max_concurrent": 2, "safety_margin": 0, "pad_teams": False}),
        ("operation", "threshold", {"threshold": 1, "low": "acquisition_boost"}),
    ]:
        make_agent(world, agent, options)
        RunSpec(world, agent=agent, agent_options=options).check()


@given(st.sampled_from([(w, a) for w, table in AGENTS.items() for a in table if a != "llm"]),
       st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=3),
                 st.lists(st.integers(0, 3), max_size=2)))
def test_any_value_for_any_option_is_accepted_or_refused_with_a_config_error(agent, value):
    """make_agent either takes the value or raises ConfigError: never another exception."""
    import inspect

    world, name = agent
    fn = AGENTS[world][name]
    for option in list(inspect.signature(fn).parameters)[1:]:
        try:
            make_agent(world, name, {option: value})
        except ConfigError:
            pass


def test_an_agent_of_your_own_gets_the_same_checks():
    """``package.module:function`` agents: unknown names and wrong types are refused before a sweep starts."""
    agent = "tests._sweep_agents:explode"
    RunSpec("startup", agent=agent, agent_options={"after": 3}).check()
    with pytest.raises(ConfigError, match="has no option"):
        RunSpec("startup", agent=agent, agent_options={"before": 3}).check()
    with pytest.raises(ConfigError, match="after='3' must be an integer"):
        RunSpec("startup", agent=agent, agent_options={"after": "3"}).check()


def test_run_episode_binds_and_checks_the_options_of_an_agent_function():
    """`run_episode(fn, agent_options=...)`, as docs/custom-agent.md teaches for `@agent` (and a plain function):
    the options reach the agent, a typo and a value the check refuses are ConfigErrors before the run."""
    from bizsim.agents import agent
    from bizsim.runs import run_episode

    seen = []

    @agent(check=lambda patience: None if patience >= 0 else "patience must be >= 0")
    def idle(world, patience: int = 3):
        seen.append(patience)
        while not world.done:
            yield world.advance()

    result = run_episode("operation", agent=idle, agent_options={"patience": 5}, seed=1)
    assert ([5], "idle", {"patience": 5}) == (seen, result.agent, result.agent_options)
    with pytest.raises(ConfigError, match="patience must be >= 0"):
        run_episode("operation", agent=idle, agent_options={"patience": -1})
    with pytest.raises(ConfigError, match="has no option.*patince; its options: patience"):
        run_episode("operation", agent=idle, agent_options={"patince": 1})

    def plain(world, per_day: str = "creator_incentive"):
        while not world.done:
            world.call(per_day)
            yield world.advance()

    result = run_episode("operation", agent=plain, agent_options={"per_day": "moderation_tighten"}, seed=1)
    assert {"moderation_tighten"} == {line.split()[0] for _, line in result.command_log} - {"task_done"}


_PLANNER_OUT_OF_RANGE = [
    ("start_rung", "99999999999999999999999", r"start_rung\(=99999999999999999999999\) must be in 0\.\.9"),
    ("start_rung", "-99", r"start_rung\(=-99\) must be in 0\.\.9"),
    ("start_rung", "10", r"start_rung\(=10\) must be in 0\.\.9"),
    ("probe_days", "0", r"probe_days\(=0\) must be >= 1"),
    ("first_order", "0", r"first_order\(=0\) must be >= 1"),
    ("max_products", "0", r"max_products\(=0\) must be >= 1"),
    ("review_days", "-1", r"review_days\(=-1\) must be >= 0"),
    ("cover_days", "-1", r"cover_days\(=-1\) must be >= 0"),
    ("reserve_cents", "-1", r"reserve_cents\(=-1\) must be >= 0"),
]


@pytest.mark.parametrize("option, value, message", _PLANNER_OUT_OF_RANGE)
def test_vending_planner_refuses_an_out_of_range_option_before_running(option, value, message, tmp_path, capsys):
    """Each numeric option of the vending planner has a declared range: ``bizsim run`` exits 2 naming it (a
    start_rung off the ladder was an IndexError mid-run, probe_days=0 a ValueError), and so does an arena seat."""
    import re

    from bizsim.cli import main

    assert 2 == main(["run", "vending", "--preset", "small", "--agent", "planner", "--agent-opt", f"{option}={value}",
                      "--out", str(tmp_path / "solo"), "--no-progress"])
    assert re.search(f"agent 'planner': {message}", capsys.readouterr().err)
    assert 2 == main(["run", "vending-arena", "--preset", "small", "--seat", f"planner:{option}={value}",
                      "--seat", "markup", "--out", str(tmp_path / "arena"), "--no-progress"])
    assert re.search(message, capsys.readouterr().err)
    assert not (tmp_path / "solo" / "commands.jsonl").exists()
    assert not (tmp_path / "arena" / "commands.jsonl").exists()


@pytest.mark.parametrize("agent, option, message", [
    ("cautious", "max_complexity=Huge", r"max_complexity\(='Huge'\) must be one of"),
    ("planner", "rest_level=huge", r"rest_level\(='huge'\) must be one of"),
])
def test_freelance_agents_refuse_an_unknown_tier_before_running(agent, option, message, tmp_path, capsys):
    """A complexity or rest tier the world does not have was a KeyError mid-run; now exit 2 naming the option."""
    import re

    from bizsim.cli import main

    assert 2 == main(["run", "freelance", "--agent", agent, "--agent-opt", option, "--out", str(tmp_path / "r"),
                      "--no-progress"])
    assert re.search(f"agent '{agent}': {message}", capsys.readouterr().err)


#: A value out of range for every numeric option of every built-in agent, with the rule its refusal states.
_OUT_OF_RANGE = [
    ("freelance", "cautious", "tired", "101", r"tired\(=101\) must be in 0\.\.100"),
    ("freelance", "cautious", "stressed", "-1", r"stressed\(=-1\) must be in 0\.\.100"),
    ("freelance", "oracle", "tired", "-5", r"tired\(=-5\) must be in 0\.\.100"),
    ("freelance", "planner", "skip_share", "-5", r"skip_share\(=-5\) must be in \[0, 1\]"),
    ("freelance", "planner", "taper_days", "-1", r"taper_days\(=-1\) must be >= 0"),
    ("freelance", "planner", "energy_price", "-1", r"energy_price\(=-1\) must be >= 0"),
    ("freelance", "planner", "stress_limit", "900", r"stress_limit\(=900\) must be in 0\.\.100"),
    ("freelance", "planner", "restock_below", "-3", r"restock_below\(=-3\) must be >= 0"),
    ("freelance", "planner", "slip_base", "2", r"slip_base\(=2\) must be in \[0, 1\]"),
    ("freelance", "planner", "slip_per_shortfall", "-1", r"slip_per_shortfall\(=-1\) must be >= 0"),
    ("freelance", "planner", "min_energy", "-100", r"min_energy\(=-100\) must be >= 0"),
    ("operation", "threshold", "threshold", "-3", r"threshold\(=-3\) must be in \[0, 1\]"),
    ("operation", "planner", "quality_floor", "-3", r"quality_floor\(=-3\) must be in \[0, 1\]"),
    ("operation", "planner", "value_per_point", "-1", r"value_per_point\(=-1\) must be >= 0"),
    ("operation", "planner", "user_value", "-1e308", r"user_value\(=-1e\+308\) must be >= 0"),
    ("operation", "planner", "quality_weight", "-1", r"quality_weight\(=-1\) must be >= 0"),
    ("startup", "random", "seed", "-2", r"seed\(=-2\) must be >= 0"),
    ("startup", "random", "max_parallel", "-1", r"max_parallel\(=-1\) must be >= 0"),
    ("startup", "planner", "max_concurrent", "0", r"max_concurrent\(=0\) must be >= 1"),
    ("startup", "planner", "safety_margin", "1", r"safety_margin\(=1\) must be in \[0, 1\)"),
    ("startup", "planner", "max_team", "0", r"max_team\(=0\) must be >= 1"),
    ("startup-v2", "random", "seed", "-2", r"seed\(=-2\) must be >= 0"),
    ("startup-v2", "random", "max_parallel", "-1", r"max_parallel\(=-1\) must be >= 0"),
    ("startup-v2", "planner", "max_concurrent", "0", r"max_concurrent\(=0\) must be >= 1"),
    ("startup-v2", "planner", "safety_margin", "-0.5", r"safety_margin\(=-0\.5\) must be in \[0, 1\)"),
    ("startup-v2", "planner", "max_team", "0", r"max_team\(=0\) must be >= 1"),
    ("startup-v2", "planner", "hire_runway_months", "-1", r"hire_runway_months\(=-1\) must be in \[0, 120\]"),
    ("startup-v2", "planner", "max_hires", "201", r"max_hires\(=201\) must be in \[0, 200\]"),
    ("vending", "markup", "markup", "0", r"markup\(=0\) must be > 0"),
    ("vending", "markup", "max_products", "0", r"max_products\(=0\) must be >= 1"),
    ("vending", "markup", "first_order", "0", r"first_order\(=0\) must be >= 1"),
    ("vending", "markup", "cover_days", "-1", r"cover_days\(=-1\) must be >= 0"),
    ("vending", "markup", "drop_after", "-1", r"drop_after\(=-1\) must be >= 0"),
    ("vending", "markup", "min_rate", "-1", r"min_rate\(=-1\) must be >= 0"),
    *[("vending", "planner", option, value, message) for option, value, message in _PLANNER_OUT_OF_RANGE],
]


def _numeric_options() -> set[tuple[str, str, str]]:
    """Every built-in agent's options annotated as numbers (an agent with ``make`` checks its own)."""
    import inspect

    from bizsim.agents import AGENTS

    out = set()
    for world, agents in AGENTS.items():
        for name, declared in agents.items():
            if declared.make is not None or not declared.__module__.startswith("bizsim.agents."):
                continue  # an example's or a test's agent is not built in
            for p in list(inspect.signature(declared.fn).parameters.values())[1:]:
                if str(p.annotation).replace("| None", "").strip() in ("int", "float"):
                    out.add((world, name, p.name))
    return out


def test_every_numeric_option_of_every_built_in_agent_has_a_declared_range():
    """The table below covers them all: a new numeric option needs its range declared and a case here."""
    assert _numeric_options() == {(w, a, o) for w, a, o, _, _ in _OUT_OF_RANGE}


@pytest.mark.parametrize("world, agent, option, value, message", _OUT_OF_RANGE)
def test_bizsim_run_refuses_any_out_of_range_agent_option(world, agent, option, value, message, tmp_path, capsys):
    """Exit 2 before anything runs, naming the agent, the option and its rule (not an IndexError, KeyError or
    ValueError from inside the agent, nor a run that silently makes no sense)."""
    import re

    from bizsim.cli import main

    out = tmp_path / "r"
    assert 2 == main(["run", world, "--agent", agent, "--agent-opt", f"{option}={value}", "--out", str(out),
                      "--no-progress"])
    assert re.search(f"agent '{agent}': {message}", capsys.readouterr().err)
    assert not (out / "commands.jsonl").exists()
