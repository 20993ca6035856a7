"""A run resolved once: the spec met with the registry, checked, frozen; every run path takes one.

``resolve(spec)`` is the only place a :class:`~bizsim.runs.runspec.RunSpec` meets the registry: the world's entry,
its config (the preset with the overrides laid over it), the agent and what it declares it needs of a run, the
roles the agent's model plays, the episode cap and the budgets. :func:`~bizsim.runs.pipeline.execute` runs what it
gives; nothing downstream looks the world up again.

>>> run = resolve(RunSpec("freelance", "default", "llm", 1, agent_options={"model": "openai/x", "auditor": "llm"}))
>>> run.roles, run.agent_options, run.records_calls
({'auditor': 'llm'}, {'model': 'openai/x'}, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.agents import resolve_agent
from bizsim.agents.declare import HAS_ROLES, RECORDS_CALLS, RUN_OPTIONS, AgentDef, Process
from bizsim.simcore.errors import ConfigError

from bizsim.runs.budgets import Budgets
from bizsim.runs.roster import Seat, outside_seat_refusal
from bizsim.runs.runspec import ARENA_AGENT, RunSpec, world_config

if TYPE_CHECKING:
    from bizsim.simcore.registry import WorldSpec
    from bizsim.simcore.world import World

__all__ = ["ROLE_PLAYERS", "ResolvedRun", "ResolvedSeat", "resolve", "resolve_loose"]

#: Who may play a world's role: its own deterministic rule (the default), or the agent's model.
ROLE_PLAYERS = ("deterministic", "llm")
#: The run's own setting an agent declaring ``RUN_OPTIONS`` may carry among its options (beside the world's roles).
_EPISODES = "max_episodes"
#: Budgets an agent's options may set (the LLM agent's caps), read here so a run's caps are data.
_BUDGETS = ("max_turns", "max_tokens_total", "max_cost_usd")


@attrs.frozen
class ResolvedSeat:
    """One seat of an arena run, resolved: its roster entry, its agent (one of the arena's base world's) with its
    options checked, and the caps those options set (an LLM seat's own model, endpoint, budget and caps)."""

    seat: int
    entry: Seat
    agent: AgentDef = attrs.field(repr=False)
    agent_options: dict
    budgets: Budgets

    @property
    def records_calls(self) -> bool:
        """The seat's agent calls a model: its calls are recorded in its own folder of the run directory."""
        return RECORDS_CALLS in self.agent.capabilities

    def agent_factory(self, **extra: Any) -> Callable[[World], Process]:
        """The seat's ``world -> process`` factory, its options bound (``extra``: objects a run hands it)."""
        return self.agent.bind({**self.agent_options, **extra}, label=self.entry.agent)


@attrs.frozen
class ResolvedRun:
    """What a run is, resolved once and checked: build it with :func:`resolve`.

    Args:
        spec: the spec it was resolved from.
        world: the world's registry entry.
        config: the world config the run plays (the preset, with the overrides laid over it).
        agent: the agent's declaration (its capabilities, options and factory).
        agent_options: the agent's own options (a run's settings, such as a role's player, taken out).
        roles: the world's roles the agent's model plays, role -> ``"llm"`` (empty: every role plays its rule).
        max_episodes: episodes the run may play (restarts after a bankruptcy).
        budgets: the caps the agent's options set (turns, tokens, dollars), ``None`` where unset.
        out: where the run is recorded (a run directory), or ``None`` for nowhere.
    """

    spec: RunSpec
    world: WorldSpec = attrs.field(repr=False)
    config: Any = attrs.field(repr=False)
    agent: AgentDef = attrs.field(repr=False)
    agent_options: dict
    roles: dict[str, str]
    max_episodes: int
    budgets: Budgets
    out: Path | None = None
    #: The preset as the record names it: its name, ``custom`` for a config changed by overrides.
    preset_name: str = ""
    #: For an agent given as a function: its factory as given (options bound), used as it is.
    factory: Callable[[World], Process] | None = attrs.field(default=None, repr=False)
    #: For an arena run (a spec with a roster): each seat, resolved; empty for a run of one agent.
    seats: tuple[ResolvedSeat, ...] = ()

    @property
    def capabilities(self) -> frozenset[str]:
        """What the agent declares it needs of a run (:mod:`bizsim.agents.declare`)."""
        return self.agent.capabilities

    @property
    def records_calls(self) -> bool:
        """The agent calls a model: its run records every call in a run directory and resumes from them (an agent
        handed over already made, with its own client, plays as it is)."""
        return RECORDS_CALLS in self.agent.capabilities and self.factory is None

    @property
    def preset(self) -> Any:
        """What a world is built from: the preset's name, or the config when overrides change it."""
        return self.config if self.spec.overrides else self.spec.preset

    def new_world(self, **world_options: Any) -> World:
        """A fresh world of the run (its first episode's, or a restart's)."""
        return self.world.world_class()(self.preset, self.spec.seed, **world_options)

    def agent_factory(self, **extra: Any) -> Callable[[World], Process]:
        """The agent's ``world -> process`` factory, its options bound (``extra``: objects a run hands it, such as
        the LLM agent's recorder and client)."""
        if self.factory is not None and not extra:
            return self.factory
        return self.agent.bind({**self.agent_options, **extra}, label=self.spec.agent)

    def role_players(self, client_of: Callable[[str], Any], params: Mapping[str, Any]) -> dict[str, Any]:
        """World constructor options that hand each role the agent's model plays to its factory.

        Args:
            client_of: the model client a role calls through, by role name.
            params: request parameters every role sends.
        """
        from bizsim.simcore.registry import load_object

        return {role: load_object(self.world.roles[role])(client_of(role), params=dict(params)) for role in self.roles}


def resolve(spec: RunSpec, *, out: str | Path | None = None) -> ResolvedRun:
    """Resolve ``spec`` against the registry once and check it: world, config, agent, options, roles, budgets.

    Raises:
        ConfigError: an unknown preset or override, an unknown agent, an option the agent does not take or a
            value it refuses, a role the world does not have, or an episode cap given twice.
    """
    if not isinstance(spec, RunSpec):
        raise ConfigError(f"resolve takes a RunSpec, not {type(spec).__name__}")
    world = spec.world_spec
    config = world_config(spec)
    if spec.roster or getattr(world, "seats", None) is not None:
        return _resolve_arena(spec, world, config, out)
    agent = resolve_agent(world, spec.agent)
    options, settings = _split(spec.agent_options, world, agent)
    episodes = _episodes(spec, settings.pop(_EPISODES, None))
    roles = _roles(world, agent, spec.agent, settings)
    agent.check_options(options, label=spec.agent)
    budgets = Budgets(**{k: options[k] for k in _BUDGETS if options.get(k) is not None}) if agent.make else Budgets()
    return ResolvedRun(spec=spec, world=world, config=config, agent=agent, agent_options=options, roles=roles,
                       max_episodes=episodes, budgets=budgets, out=None if out is None else Path(out),
                       preset_name="custom" if spec.overrides else spec.preset)


def resolve_loose(
    world: str, preset: Any, agent: str | Callable, seed: int, *, agent_options: Mapping[str, Any] | None = None,
    max_episodes: int = 1, start: Any = None, origin: dict | None = None,
) -> ResolvedRun:
    """Resolve :func:`~bizsim.runs.episode.run_episode`'s looser arguments: a preset may be a config object or a
    ``.toml`` path (named in the record as given), an agent a function of your own, and agent options may hand
    the agent objects (a model client): such an agent is made here and plays as it is."""
    import json

    from bizsim.simcore.config import config_to_dict

    config = None if isinstance(preset, (str, Path)) else preset
    named = str(preset) if config is None else "default"
    overrides = {} if config is None else json.loads(json.dumps(config_to_dict(config), default=str))
    given = dict(agent_options or {})
    objects = {k: v for k, v in given.items() if not _is_data(v)}  # a model client, a limiter: handed over as is
    data = {k: v for k, v in given.items() if k not in objects}
    label = agent if isinstance(agent, str) else (agent.name if isinstance(agent, AgentDef) else
                                                  getattr(agent, "__name__", "custom"))
    spec = RunSpec(world, named, label, seed, overrides=overrides, agent_options=data, max_episodes=max_episodes,
                   start=start, origin=origin)
    shown = "custom" if config is not None else str(preset)
    if isinstance(agent, str) and not objects:
        run = resolve(spec)
        return attrs.evolve(run, preset_name=shown, config=run.config if config is None else config)
    if isinstance(agent, str):
        definition = resolve_agent(spec.world_spec, agent)
    else:
        definition = agent if isinstance(agent, AgentDef) else AgentDef(agent, name=label)
    if isinstance(agent, str) or isinstance(agent, AgentDef) or given:
        factory = definition.bind(given, label=label)  # checked and bound as a registered agent's
    else:
        factory = agent
    return ResolvedRun(spec=spec, world=spec.world_spec, config=config if config is not None else world_config(spec),
                       agent=definition, agent_options=given, roles={}, max_episodes=max_episodes,
                       budgets=Budgets(), preset_name=shown, factory=factory)


def _is_data(value: Any) -> bool:
    import json

    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def _split(options: Mapping[str, Any], world: WorldSpec, agent: AgentDef) -> tuple[dict, dict]:
    """The agent's own options, and the run's settings among them (an agent declaring ``RUN_OPTIONS``: the world's
    role names and ``max_episodes``), as sweep grids give them."""
    own = dict(options)
    if RUN_OPTIONS not in agent.capabilities:
        return own, {}
    names = (*world.roles, _EPISODES)
    strays = sorted(k for k in own if k not in agent.options and k not in names and _is_a_role(k))
    if strays:
        raise ConfigError(f"{strays[0]}(={own[strays[0]]!r}) sets a world's {strays[0]} role; world {world.name!r} "
                          "has none")
    return own, {k: own.pop(k) for k in names if k in own}


def _is_a_role(name: str) -> bool:
    """Whether some registered world has a role of this name (read only to word an error)."""
    from bizsim.simcore.registry import registered

    return any(name in w.roles for w in registered().values())


def _episodes(spec: RunSpec, given: Any) -> int:
    if given is None:
        return spec.max_episodes
    if isinstance(given, bool) or not isinstance(given, int) or given < 1:
        raise ConfigError(f"max_episodes(={given!r}) must be an integer >= 1")
    if spec.max_episodes != 1 and given != spec.max_episodes:
        raise ConfigError(f"max_episodes is given twice ({spec.max_episodes} and {given}); give it once")
    return given


def _roles(world: WorldSpec, agent: AgentDef, name: str, settings: Mapping[str, Any]) -> dict[str, str]:
    """The roles the agent's model plays: those set to ``llm`` (a role left at ``deterministic`` plays its rule)."""
    out = {}
    for role, player in settings.items():
        if player not in ROLE_PLAYERS:
            raise ConfigError(f"{role}(={player!r}) must be one of {', '.join(ROLE_PLAYERS)}")
        if player == "llm":
            if HAS_ROLES not in agent.capabilities:
                raise ConfigError(f"agent {name!r} has no model to play the {role} role")
            out[role] = player
    return out


def _arena_agent(world: Any) -> Process:
    """The stand-in of an arena run's ``agent``: the seats' agents play it (:attr:`ResolvedRun.seats`)."""
    raise ConfigError("an arena run's agents are its seats'; run it with execute()")
    yield  # pragma: no cover - a generator, as every agent is


def _resolve_arena(spec: RunSpec, world: WorldSpec, config: Any, out: str | Path | None) -> ResolvedRun:
    """An arena run: each seat's agent is one of the arena's base world's, its options checked as a run's."""
    from bizsim.simcore.registry import arena_names, world_spec

    seats = getattr(world, "seats", None)
    if seats is None:
        raise ConfigError(f"world {world.name!r} has no seats, so a roster (--seat) does not go with it; arenas: "
                          f"{', '.join(arena_names()) or 'none installed'}")
    low, high = seats
    if not spec.roster:
        raise ConfigError(f"{world.name} is an arena: give each seat's agent, {low} to {high} seats "
                          f"(--seat planner --seat greedy, or RunSpec(..., roster=[...]))")
    if not low <= len(spec.roster) <= high:
        raise ConfigError(f"{world.name} seats {low} to {high} agents; the roster lists {len(spec.roster)}")
    refusal = outside_seat_refusal(spec.roster)
    if refusal is not None:
        raise ConfigError(refusal)
    base = world_spec(str(world.base))
    resolved = []
    for k, entry in enumerate(spec.roster):
        agent = resolve_agent(base, entry.agent)
        options, settings = _split(entry.options, base, agent)
        if settings:
            raise ConfigError(f"seat {k} ({entry.agent}): {', '.join(sorted(settings))} is a run's setting, which an "
                              "arena seat does not take (an arena plays one episode; its world's roles play their rule)")
        agent.check_options(options, label=f"{entry.agent} (seat {k})")
        budgets = Budgets(**{b: options[b] for b in _BUDGETS if options.get(b) is not None}) if agent.make else Budgets()
        resolved.append(ResolvedSeat(seat=k, entry=entry, agent=agent, agent_options=options, budgets=budgets))
    return ResolvedRun(spec=spec, world=world, config=config, agent=AgentDef(_arena_agent, name=ARENA_AGENT),
                       agent_options={}, roles={}, max_episodes=1, budgets=Budgets(),
                       out=None if out is None else Path(out),
                       preset_name="custom" if spec.overrides else spec.preset, seats=tuple(resolved))
