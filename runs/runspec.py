"""What one run of a sweep is: world, preset (or overrides), agent and options, seed; and grids of them."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.config import config_from_dict, config_to_dict, deep_merge, load_toml
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_INT, MAX_SWEEP_RUNS, show
from bizsim.simcore.seeds import parse_seeds
from bizsim.simcore.untrusted_json import MAX_DEPTH, nested_deeper

from bizsim.runs.roster import Seat, as_roster

__all__ = ["ARENA_AGENT", "RunSpec", "agent_capabilities", "agent_factory", "grid", "parse_seeds", "records_calls",
           "seat_model_options", "world_config"]


#: The ``agent`` of a run whose seats' agents are in its roster (an arena run).
ARENA_AGENT = "arena"


def _canonical(value: Any, what: str) -> Any:
    """JSON-able data with sorted keys (tuples become lists), or a ConfigError naming ``what``."""
    if nested_deeper(value):  # json.dumps recurses once a level: a deep value was a RecursionError
        raise ConfigError(f"{what} nests lists and tables deeper than {MAX_DEPTH} levels; flatten it")
    try:
        return json.loads(json.dumps(value, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"{what}(={show(value)}) must be JSON-able data (numbers, strings, lists, tables): {exc}"
        ) from None


def _dict(value: Any) -> dict:
    if hasattr(value, "to_dict"):  # a settings object, e.g. the LLM agent's config: its options
        return dict(value.to_dict())
    return dict(value or {})


@attrs.frozen
class RunSpec:
    """One run of a sweep.

    Args:
        world: a registered world (``startup`` or ``startup-v1``).
        preset: a preset name of that world, or a ``.toml`` config file (read
            now and turned into its ``extends`` preset plus overrides, so the
            run id follows the file's content, not its path).
        agent: a registered agent name, or ``"package.module:function"`` for
            an agent of your own (``function(world, **agent_options)``
            returning a SimPy process generator; importable by the workers).
        seed: the world seed.
        overrides: config values laid over the preset (nested tables merge),
            e.g. ``{"initial_funds_cents": 10_000_000}``.
        agent_options: options bound to the agent (a table, or a settings object with ``to_dict()`` such as
            :class:`~bizsim.agents.llm.LLMAgentConfig` for agent ``llm``; there the run's own ``auditor`` may
            join them).
        label: how the preset variant is shown in tables (default: the preset
            name, plus the overrides when there are any). Not part of the run id.
        max_episodes: after a bankruptcy, start again on the same seed with the
            agent's notes carried over, up to this many episodes (YC-Bench's
            restarts). Part of the run id only when it is not 1, so the ids of
            single-episode runs are what they always were.
        start: a :class:`~bizsim.simcore.snapshot.Snapshot` of this world and seed to start from instead of a
            fresh world (a fork): the agent starts afresh where the snapshot stands. Part of the run id.
        origin: where a fork came from (its parent and fork point), recorded in ``result.json`` as ``fork``.
            Not part of the run id.
        roster: for an arena world, the agent of each seat with its options (text such as
            ``"llm:model=openai/x"``, tables or :class:`~bizsim.runs.roster.Seat`; see :mod:`bizsim.runs.roster`).
            ``agent`` is then :data:`ARENA_AGENT` and ``agent_options`` empty. Part of the run id (seat labels
            are not).

    >>> RunSpec("startup", "hard", "greedy", 3).run_id == RunSpec("startup-v1", "hard", "greedy", 3).run_id
    True
    """

    world: str
    preset: str = "default"
    agent: str = "greedy"
    seed: int = attrs.field(default=1, converter=int)
    overrides: dict = attrs.field(factory=dict, converter=_dict)
    agent_options: dict = attrs.field(factory=dict, converter=_dict)
    label: str | None = None
    max_episodes: int = attrs.field(default=1, converter=int, kw_only=True)
    start: Any = attrs.field(default=None, kw_only=True)
    origin: dict | None = attrs.field(default=None, kw_only=True, eq=False, hash=False)
    roster: tuple[Seat, ...] = attrs.field(default=(), kw_only=True, converter=as_roster)
    #: The world's registry entry, looked up once, here (see :attr:`world_spec`); a caller that has looked it up
    #: already hands it over (``entry=``), so a run looks the registry up once.
    _entry: Any = attrs.field(default=None, kw_only=True, eq=False, hash=False, repr=False, alias="entry")

    def __attrs_post_init__(self) -> None:
        from bizsim.simcore.registry import WorldSpec, world_spec

        entry = self._entry
        if not (isinstance(entry, WorldSpec) and self.world in (entry.name, entry.benchmark_id)):
            entry = world_spec(self.world)
        object.__setattr__(self, "_entry", entry)
        object.__setattr__(self, "world", entry.name)
        check_seed(self.seed)
        if self.max_episodes < 1:
            raise ConfigError(f"max_episodes(={self.max_episodes}) must be >= 1")
        if not isinstance(self.preset, str):
            raise ConfigError(
                f"preset(={show(self.preset)}) must be a preset name or a .toml path; put values in overrides"
            )
        if self.preset.endswith(".toml") or "/" in self.preset:
            data = load_toml(self.preset)
            base = data.pop("extends", "default")
            object.__setattr__(self, "overrides", deep_merge(data, self.overrides))
            object.__setattr__(self, "label", self.label or Path(self.preset).stem)
            object.__setattr__(self, "preset", base)
        object.__setattr__(self, "overrides", _canonical(self.overrides, "overrides"))
        object.__setattr__(self, "agent_options", _canonical(self.agent_options, "agent_options"))
        if not isinstance(self.agent, str) or not self.agent:
            raise ConfigError(f"agent(={show(self.agent)}) must be an agent name or 'package.module:function'")
        if self.start is not None:
            self._check_start()
        if self.roster:
            self._check_roster()
        if self.origin is not None:
            object.__setattr__(self, "origin", _canonical(self.origin, "origin"))

    def _check_roster(self) -> None:
        if getattr(self._entry, "seats", None) is None:
            from bizsim.simcore.registry import arena_names

            raise ConfigError(f"world {self.world!r} has no seats, so a roster does not go with it; arenas: "
                              f"{', '.join(arena_names()) or 'none installed'}")
        if self.agent not in (ARENA_AGENT, "greedy") or self.agent_options:  # greedy: the field's default
            raise ConfigError(f"a run with a roster names each seat's agent in the roster; leave agent(={self.agent!r})"
                              " and agent_options out")
        object.__setattr__(self, "agent", ARENA_AGENT)
        if self.max_episodes != 1:
            raise ConfigError("an arena run plays one episode; leave max_episodes at 1")

    def _check_start(self) -> None:
        from bizsim.simcore.snapshot import Snapshot

        start = self.start
        if isinstance(start, Mapping):
            start = Snapshot.from_dict(start)
            object.__setattr__(self, "start", start)
        if not isinstance(start, Snapshot):
            raise ConfigError(f"start(={show(start)}) must be a Snapshot (world.snapshot(), or its to_dict())")
        if (start.world, start.seed) != (self.world, self.seed):
            raise ConfigError(f"start is a snapshot of {start.world} seed {start.seed}, but the run is {self.world} "
                              f"seed {self.seed}")
        if self.max_episodes != 1:
            raise ConfigError("a run from a snapshot (a fork) plays one episode; leave max_episodes at 1")
        if config_to_dict(world_config(self)) != config_to_dict(start.config):
            raise ConfigError("start is a snapshot of another config than the run's preset and overrides")

    @property
    def world_spec(self) -> Any:
        """The world's :class:`~bizsim.simcore.registry.WorldSpec`, looked up when the spec was made."""
        return self._entry

    @property
    def benchmark_id(self) -> str:
        """The world's versioned id, e.g. ``startup-v1``."""
        return self._entry.benchmark_id

    @property
    def preset_label(self) -> str:
        """The preset variant as tables show it: ``label``, else ``hard`` or ``hard+initial_funds_cents=1``."""
        if self.label:
            return self.label
        if not self.overrides:
            return self.preset
        flat = ",".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in _flatten(self.overrides))
        return f"{self.preset}+{flat}"

    def key(self) -> dict:
        """The canonical content the run id hashes (the label is left out)."""
        key = {
            "benchmark_id": self.benchmark_id, "preset": self.preset, "overrides": self.overrides, "agent": self.agent,
            "agent_options": self.agent_options, "seed": self.seed,
        }
        if self.max_episodes != 1:
            key["max_episodes"] = self.max_episodes
        if self.roster:
            key["roster"] = [{"name": seat.agent, "options": seat.options} for seat in self.roster]
        if self.start is not None:
            key["start"] = hashlib.sha256(self.start.to_json().encode("utf-8")).hexdigest()
        return key

    @property
    def run_id(self) -> str:
        """16 hex digits naming this run: a hash of :meth:`key` (benchmark version included)."""
        text = json.dumps(self.key(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def to_dict(self) -> dict:
        """JSON-able form; :meth:`from_dict` rebuilds the spec."""
        out = {
            "world": self.world, "preset": self.preset, "agent": self.agent, "seed": self.seed,
            "overrides": self.overrides, "agent_options": self.agent_options, "label": self.label,
        }
        if self.max_episodes != 1:
            out["max_episodes"] = self.max_episodes
        if self.start is not None:
            out["start"] = self.start.to_dict()
        if self.origin is not None:
            out["origin"] = self.origin
        if self.roster:
            out["roster"] = [seat.to_dict() for seat in self.roster]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, recorded: bool = False) -> RunSpec:
        """Rebuild a spec from :meth:`to_dict` output (unknown keys are refused).

        Args:
            recorded: the data was read from a file (``run.json``, a sweep's manifest): what :meth:`to_dict` wrote
                names a preset, never a ``.toml`` file, so a file named there is refused, not read.
        """
        fields = {f.name for f in attrs.fields(cls) if not f.name.startswith("_")}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise ConfigError(f"unknown run key(s) {', '.join(unknown)}; known: {', '.join(sorted(fields))}")
        if recorded:
            _refuse_preset_file(data.get("preset", "default"))
        return cls(**dict(data))

    def check(self) -> None:
        """Fail fast (ConfigError) on an unknown preset, a bad override or an unknown agent or option."""
        from bizsim.runs.resolve import resolve

        resolve(self)


def _refuse_preset_file(preset: Any) -> None:
    if isinstance(preset, str) and (preset.endswith(".toml") or "/" in preset):
        raise ConfigError(f"a recorded run names preset {show(preset)}, a file: bizsim records the preset's name and "
                          "its values as overrides, so this record was not written by bizsim; it is not read")


def _flatten(data: Mapping, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for k, v in data.items():
        if isinstance(v, Mapping):
            out.extend(_flatten(v, f"{prefix}{k}."))
        else:
            out.append((f"{prefix}{k}", v))
    return out


def check_seed(seed: int) -> None:
    """Refuse a seed outside 0..2^63-1: the one seed check of a run (its spec's)."""
    if not 0 <= seed <= MAX_INT:
        raise ConfigError(f"seed(={seed}) must be from 0 to {MAX_INT} (64 bits)")


def world_config(spec: RunSpec) -> Any:
    """The world config a spec runs on: the preset, with the overrides laid over it."""
    base = spec.world_spec.preset_table().preset(spec.preset)
    if not spec.overrides:
        return base
    return config_from_dict(type(base), deep_merge(config_to_dict(base), spec.overrides))


def agent_capabilities(world: Any, agent: str) -> frozenset[str]:
    """What the agent ``agent`` of ``world`` declares it needs of a run (see :mod:`bizsim.agents.declare`); an agent
    that cannot be found declares nothing (the run's own check names the problem)."""
    from bizsim.agents import resolve_agent

    try:
        return resolve_agent(world, agent).capabilities
    except ConfigError:
        return frozenset()


def records_calls(spec: RunSpec) -> bool:
    """The spec's agent calls a model: its run keeps a call log in a run directory and resumes from it."""
    from bizsim.agents.declare import RECORDS_CALLS

    return RECORDS_CALLS in agent_capabilities(spec.world_spec, spec.agent)


def seat_model_options(spec: RunSpec) -> list[dict]:
    """The options of each seat of an arena spec whose agent calls a model (an LLM seat), in seat order; empty for
    a run of one agent or an arena of built-in agents."""
    from bizsim.agents.declare import RECORDS_CALLS
    from bizsim.simcore.registry import world_spec

    if not spec.roster:
        return []
    base = world_spec(str(spec.world_spec.base))
    return [seat.options for seat in spec.roster if RECORDS_CALLS in agent_capabilities(base, seat.agent)]


def agent_factory(spec: RunSpec) -> Callable:
    """The agent process factory ``world -> generator`` a spec names, options bound and checked."""
    from bizsim.agents import make_agent

    return make_agent(spec.world, spec.agent, spec.agent_options)


def grid(
    worlds: str | Sequence[str],
    presets: str | Mapping | Sequence[str | Mapping] = "default",
    agents: str | Mapping | Sequence[str | Mapping] = "greedy",
    seeds: str | int | Iterable[int] = 1,
) -> list[RunSpec]:
    """The product worlds x presets x agents x seeds, as run specs (seeds vary fastest).

    A preset is a name, a ``.toml`` path, or a table ``{"name": ..., "overrides": {...}, "label": ...}``;
    an agent is a name or a table ``{"name": ..., "options": {...}}``. Agents that a world does not
    offer are skipped for that world (so one grid can span worlds); an agent no world offers is an error.

    >>> [s.seed for s in grid("startup", ["default", "hard"], "greedy", "1-2")]
    [1, 2, 1, 2]
    """
    from bizsim.simcore.registry import world_spec

    worlds = [worlds] if isinstance(worlds, str) else list(worlds)
    preset_list = [presets] if isinstance(presets, (str, Mapping)) else list(presets)
    agent_list = [agents] if isinstance(agents, (str, Mapping)) else list(agents)
    seed_list = parse_seeds(seeds)
    if not worlds or not preset_list or not agent_list or not seed_list:
        raise ConfigError("a grid needs at least one world, preset, agent and seed")
    runs = len(worlds) * len(preset_list) * len(agent_list) * len(seed_list)
    if runs > MAX_SWEEP_RUNS:  # counted before any spec is built
        raise ConfigError(f"the grid of {len(worlds):,} worlds x {len(preset_list):,} presets x {len(agent_list):,} "
                          f"agents x {len(seed_list):,} seeds makes {runs:,} runs, past the limit of "
                          f"{MAX_SWEEP_RUNS:,}; split it into several sweeps")
    out: list[RunSpec] = []
    used: set[str] = set()
    for world, p, a in itertools.product(worlds, preset_list, agent_list):
        pname, overrides, label = _preset_entry(p)
        aname, options = _agent_entry(a)
        if ":" not in aname and aname not in world_spec(world).agents:
            continue
        used.add(aname)
        out.extend(RunSpec(world, pname, aname, s, overrides, options, label) for s in seed_list)
    missing = [_agent_entry(a)[0] for a in agent_list if _agent_entry(a)[0] not in used]
    if missing:
        raise ConfigError(
            f"agent {show(missing[0])} is offered by none of the worlds {', '.join(worlds)} (see `bizsim list`)"
        )
    return out


def _preset_entry(p: str | Mapping) -> tuple[str, dict, str | None]:
    if isinstance(p, str):
        return p, {}, None
    if not isinstance(p, Mapping):
        raise ConfigError(f"preset {show(p)} must be a name or a table with name, overrides and label")
    unknown = sorted(set(p) - {"name", "overrides", "label"})
    if unknown:
        raise ConfigError(f"preset table key(s) {', '.join(unknown)} unknown; use name, overrides, label")
    return str(p.get("name", "default")), dict(p.get("overrides") or {}), p.get("label")


def _agent_entry(a: str | Mapping) -> tuple[str, dict]:
    if isinstance(a, str):
        return a, {}
    if not isinstance(a, Mapping):
        raise ConfigError(f"agent {show(a)} must be a name or a table with name and options")
    unknown = sorted(set(a) - {"name", "options"})
    if unknown:
        raise ConfigError(f"agent table key(s) {', '.join(unknown)} unknown; use name, options")
    if "name" not in a:
        raise ConfigError(f"agent table {show(dict(a))} needs a name")
    return str(a["name"]), dict(a.get("options") or {})
