"""The world registry: every world, built-in or from another package, declared once as data.

A world is a :class:`WorldSpec`: its name and benchmark version, and *where*
its parts are (``"package.module:attribute"`` strings, imported on first
use), in the spirit of Gymnasium's ``EnvSpec``. Built-in worlds and worlds from
other installed packages register the same way, through the entry-point group
``bizsim.worlds`` (an entry point names a ``WorldSpec``); :func:`register`
adds one from code. Everything generic in bizsim (the CLI, sweeps, tables,
reports, drivers, ``verify``, the LLM harness) asks this registry and never
names a world.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .errors import ConfigError
from .submetrics import SubMetric

if TYPE_CHECKING:
    from .presets import PresetTable
    from .world import World

__all__ = [
    "ENTRY_POINT_GROUP", "WorldSpec", "arena_names", "benchmark_id", "broken_worlds", "load_object", "register", "registered", "unregister", "world_names",
    "world_spec",
]

#: The entry-point group a package declares its worlds in (``name = "package.module:SPEC"``).
ENTRY_POINT_GROUP = "bizsim.worlds"

# A name may carry its version (``startup-v2``): a later version registered beside the first keeps the first's
# name free, so runs recorded under that name keep their meaning. Words may be joined by ``-`` (``vending-arena``);
# a joined word never starts with ``v``, so ``-v`` always starts a version.
_NAME = re.compile(r"(?=.{1,40}$)[a-z][a-z0-9_]{0,31}(-[a-uw-z][a-z0-9_]{0,31})*(-v[1-9][0-9]{0,3})?")
_REF = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def load_object(ref: str) -> Any:
    """The object a ``"package.module:attribute"`` reference names (the attribute may be dotted).

    Raises:
        ConfigError: the reference is malformed, or its module or attribute cannot be imported.
    """
    if not isinstance(ref, str) or not _REF.fullmatch(ref):
        raise ConfigError(f"{ref!r} is not a reference of the form 'package.module:attribute'")
    module, _, attr = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{ref!r} cannot be imported: {exc}") from None
    return obj


def benchmark_id(name: str, version: int) -> str:
    """A world's versioned id: ``startup-v1``; a name that carries its version is the id itself (``startup-v2``).

    >>> benchmark_id("startup", 1), benchmark_id("startup-v2", 2)
    ('startup-v1', 'startup-v2')
    """
    return name if name.endswith(f"-v{version}") else f"{name}-v{version}"


def _ref(_inst: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not (isinstance(value, str) and _REF.fullmatch(value)):
        raise ConfigError(f"WorldSpec.{attribute.name}(={value!r}) must be 'package.module:attribute'")


def _agents(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _names(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _sub_metrics(value: Iterable[SubMetric]) -> tuple[SubMetric, ...]:
    return tuple(value)


def _seats(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        low, high = value
    except (TypeError, ValueError):
        raise ConfigError(f"WorldSpec.seats(={value!r}) must be (fewest, most) seats, e.g. (2, 8), or None") from None
    for n in (low, high):
        if isinstance(n, bool) or not isinstance(n, int):
            raise ConfigError(f"WorldSpec.seats(={value!r}) must hold two whole numbers")
    if not 1 <= low <= high:
        raise ConfigError(f"WorldSpec.seats(={value!r}) must satisfy 1 <= fewest <= most")
    return (low, high)


@attrs.frozen
class WorldSpec:
    """Everything the rest of bizsim needs to know of a world, as data.

    Args:
        name: the world's name, lower case (``startup``); its benchmark id is ``name-vVERSION``.
        version: the benchmark version; bump it whenever the dynamics change, so published numbers stay comparable.
        factory: the world class, ``cls(config_or_preset, seed, **world_options)``.
        presets: its :class:`~bizsim.simcore.presets.PresetTable` (names, TOML load and dump).
        agents: agent name -> reference to an :func:`~bizsim.agents.agent`-decorated function, imported when used.
        default_agent: the agent ``bizsim run WORLD`` plays when none is named.
        summary: one line saying what the world is, for ``bizsim list``.
        protocol: the LLM harness protocol that plays it (``yc-bench``: one ``run_command`` tool and the
            YC-Bench prompt; ``ecogym``: one tool per command).
        roles: parts of the world an LLM may play instead of its deterministic rule: role name ->
            reference to a factory ``factory(client) -> world constructor option value``; the role's
            world option has the role's name (freelance: ``auditor``).
        analysis: reference to a module of analysis hooks, all optional: ``extractor()`` (facts only a
            live world holds, for the result tables), ``report_sections(doc, tables, world)``.
        discrete_actions: reference to the world's discrete action names for the Gymnasium driver
            (the advance command follows them); worlds without one offer text actions only.
        figures: per-run figures the report and ``metrics.outcomes`` show beside the metric: columns of the runs
            table (``summary()`` scalars, or columns the world's analysis hooks add).
        sub_metrics: the figures a shaped reward (``reward="shaped"``) weighs beside the metric, each a
            :class:`~bizsim.simcore.submetrics.SubMetric` with its unit, where it is read and its default weight;
            a world that declares none offers only the ``delta`` and ``terminal`` rewards.
        seats: for an arena (several agents in one world, :class:`~bizsim.simcore.arena.ArenaWorld`), the fewest
            and most seats, e.g. ``(2, 8)``; ``None`` for a single-agent world. The factory then takes
            ``seats=N``; each seat is scored by the world's metric.
        base: for an arena, the single-agent world a seat plays (a registered name): a seat's agents are its
            agents, and an arena of one seat reduces to it.
    """

    name: str
    version: int
    factory: str = attrs.field(validator=_ref)
    presets: str = attrs.field(validator=_ref)
    agents: dict[str, str] = attrs.field(converter=_agents)
    default_agent: str
    summary: str = ""
    protocol: str = "ecogym"
    roles: dict[str, str] = attrs.field(factory=dict, converter=_agents)
    analysis: str | None = attrs.field(default=None, validator=_ref)
    discrete_actions: str | None = attrs.field(default=None, validator=_ref)
    figures: tuple[str, ...] = attrs.field(default=(), converter=_names)
    sub_metrics: tuple[SubMetric, ...] = attrs.field(default=(), converter=_sub_metrics)
    seats: tuple[int, int] | None = attrs.field(default=None, converter=_seats)
    base: str | None = None

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ConfigError(f"WorldSpec.name(={self.name!r}) must be 1-32 lower-case letters, digits or _, "
                              "starting with a letter")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise ConfigError(f"WorldSpec.version(={self.version!r}) must be an integer >= 1")
        base, sep, tail = self.name.rpartition("-v")
        if sep and tail != str(self.version):
            raise ConfigError(f"WorldSpec.name(={self.name!r}) names version {tail} but version is {self.version}; "
                              f"name it {base}-v{self.version}")
        for label, table in (("agents", self.agents), ("roles", self.roles)):
            for key, ref in table.items():
                if not isinstance(key, str) or not key or not isinstance(ref, str) or not _REF.fullmatch(ref):
                    raise ConfigError(f"WorldSpec.{label}[{key!r}](={ref!r}) must map a name to "
                                      "'package.module:attribute'")
        names = [s.name if isinstance(s, SubMetric) else None for s in self.sub_metrics]
        if None in names:
            bad = next(s for s in self.sub_metrics if not isinstance(s, SubMetric))
            raise ConfigError(f"WorldSpec.sub_metrics holds {bad!r:.60}; each must be a SubMetric")
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ConfigError(f"WorldSpec.sub_metrics names {', '.join(map(repr, twice))} twice; names must differ")
        if (self.seats is None) != (self.base is None):
            raise ConfigError(f"WorldSpec {self.name!r}: an arena declares both seats and base (the single-agent "
                              f"world a seat plays); a single-agent world neither (seats={self.seats!r}, "
                              f"base={self.base!r})")
        if self.default_agent not in self.agents:
            raise ConfigError(f"WorldSpec.default_agent(={self.default_agent!r}) is not one of its agents "
                              f"({', '.join(self.agents) or 'none'})")

    @property
    def benchmark_id(self) -> str:
        """The versioned id, e.g. ``startup-v1``."""
        return benchmark_id(self.name, self.version)

    @property
    def is_arena(self) -> bool:
        """True for a world of several seats (:attr:`seats` is set)."""
        return self.seats is not None

    def world_class(self) -> type[World]:
        """The world class (imported now)."""
        cls: type[World] = _cached(self.factory)
        return cls

    def preset_table(self) -> PresetTable[Any]:
        """The world's presets (imported now)."""
        table: PresetTable[Any] = _cached(self.presets)
        return table

    def preset_names(self) -> list[str]:
        """The preset names, in the order the world lists them."""
        return list(self.preset_table())

    def agent(self, name: str) -> Callable[..., Any]:
        """The registered agent ``name`` (imported now): an ``AgentDef``, or a plain ``world -> process`` function.

        Raises:
            ConfigError: the world offers no agent of that name.
        """
        if name not in self.agents:
            raise ConfigError(f"unknown agent {name!r} for world {self.name!r}; choose one of "
                              f"{', '.join(self.agents) or 'none'}")
        found: Callable[..., Any] = _cached(self.agents[name])
        return found

    def hooks(self) -> Any:
        """The analysis hooks module, or ``None``."""
        return None if self.analysis is None else _cached(self.analysis)

    def make(self, preset: Any = "default", seed: int = 1, **world_options: Any) -> World:
        """A fresh world: a preset name, a ``.toml`` path or a config; a seed; constructor options."""
        return self.world_class()(preset, seed, **world_options)


_LOADED: dict[str, Any] = {}


def _cached(ref: str) -> Any:
    try:
        return _LOADED[ref]
    except KeyError:
        obj = _LOADED[ref] = load_object(ref)
        return obj


_REGISTRY: dict[str, WorldSpec] = {}
_BROKEN: dict[str, str] = {}
_lock = threading.Lock()
_discovered = False


def _discover() -> None:
    """Load the ``bizsim.worlds`` entry points once (built-in worlds are declared there too)."""
    global _discovered
    if _discovered:
        return
    with _lock:
        if _discovered:
            return
        from importlib.metadata import entry_points

        found = list(entry_points(group=ENTRY_POINT_GROUP))
        # bizsim's own worlds first, in the order it declares them; then other packages' by name.
        ours = [ep for ep in found if ep.dist is not None and ep.dist.name == "bizsim"]
        for ep in ours + sorted((ep for ep in found if ep not in ours), key=lambda e: e.name):
            try:
                spec = ep.load()
                if callable(spec) and not isinstance(spec, WorldSpec):
                    spec = spec()
                if not isinstance(spec, WorldSpec):
                    raise ConfigError(f"it names a {type(spec).__name__}, not a WorldSpec")
                if spec.name != ep.name:
                    raise ConfigError(f"it declares world {spec.name!r} under the name {ep.name!r}")
            except Exception as exc:  # a broken third-party package must not take the others down
                _BROKEN[ep.name] = f"{ep.value}: {type(exc).__name__}: {exc}"
                continue
            _REGISTRY.setdefault(spec.name, spec)
        _discovered = True


def register(spec: WorldSpec, *, replace: bool = False) -> WorldSpec:
    """Register a world from code (an entry point does the same for an installed package).

    Raises:
        ConfigError: a different world is already registered under that name and ``replace`` is false.
    """
    if not isinstance(spec, WorldSpec):
        raise ConfigError(f"register() takes a WorldSpec, not {type(spec).__name__}")
    _discover()
    with _lock:
        old = _REGISTRY.get(spec.name)
        if old is not None and old != spec and not replace:
            raise ConfigError(f"world {spec.name!r} is already registered ({old.factory}); pass replace=True")
        _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a world registered under ``name`` (tests; a world registered from code)."""
    _discover()
    with _lock:
        _REGISTRY.pop(name, None)


def registered(*, arenas: bool = False) -> dict[str, WorldSpec]:
    """Every registered single-agent world, by name (built-in ones first); with ``arenas``, the arenas as well.

    Arenas (worlds with seats) are left out by default: the generic single-agent paths (drivers, surfaces,
    sweeps of one agent) play one agent per world. :func:`world_spec` finds both kinds.
    """
    _discover()
    return {name: spec for name, spec in _REGISTRY.items() if arenas or spec.seats is None}


def world_names() -> list[str]:
    """The registered single-agent worlds' names."""
    return list(registered())


def arena_names() -> list[str]:
    """The registered arenas' names (worlds with seats)."""
    return [name for name, spec in registered(arenas=True).items() if spec.seats is not None]


def world_spec(name: str) -> WorldSpec:
    """The world registered as ``name`` or its versioned id (``startup``, ``startup-v1``).

    Raises:
        ConfigError: no such world, or the id asks for a version this install does not have.
    """
    _discover()
    if not isinstance(name, str):
        raise ConfigError(f"world(={name!r}) must be a world name, e.g. {', '.join(_REGISTRY) or 'startup'}")
    spec = _REGISTRY.get(name)
    if spec is not None:
        return spec
    base, sep, version = name.rpartition("-v")
    spec = _REGISTRY.get(base) if sep else None
    if spec is None:
        hint = f"; {name!r} failed to load: {_BROKEN[name]}" if name in _BROKEN else ""
        known = ", ".join(_REGISTRY) or "none"
        raise ConfigError(f"unknown world {name[:80]!r}; choose one of {known}{hint}")
    if not version.isdigit() or int(version) != spec.version:
        raise ConfigError(f"world {base!r} is at version {spec.version}; {name[:80]!r} is not available")
    return spec


def broken_worlds() -> dict[str, str]:
    """Entry points that failed to load: name -> why (``bizsim list`` shows them)."""
    _discover()
    return dict(_BROKEN)

