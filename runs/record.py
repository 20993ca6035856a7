"""``result.json``: the typed record of a finished (or, for a live episode, open) run.

Every producer writes it through :meth:`RunRecord.to_json` (episodes, LLM runs, live episodes, imports) and every
reader parses it through :meth:`RunRecord.from_json`, bounded in size and nesting. The world's figures
(``summary``) sit at the top level beside the run's own keys, as they always have, so a ``result.json`` reads as
one flat table row; ``schema_version`` says which shape a file has (a file without one is version 1, written
before the field existed, and reads the same way).

>>> rec = RunRecord(world="w", benchmark_id="w-v1", preset="default", seed=1, agent="greedy", agent_options={},
...                 terminal_reason="horizon_end", bankrupt=False, turns=3, commands=5, summary={"metric_value": 7})
>>> RunRecord.from_json(rec.to_json()) == rec
True
>>> RunRecord.from_json('{"world": "w"}')
Traceback (most recent call last):
...
bizsim.simcore.errors.ConfigError: result.json is missing benchmark_id, preset, seed, agent, terminal_reason, turns
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.untrusted_json import MAX_RECORD_DEPTH, loads_untrusted

__all__ = ["MAX_RECORD_BYTES", "SCHEMA_VERSION", "RunRecord"]

#: The shape written now. 1: before the field existed (no ``schema_version``, no ``wall_s``); 2: both.
SCHEMA_VERSION = 2
#: The largest ``result.json`` read (a year's record is a few kB; a live episode's metadata is bounded).
MAX_RECORD_BYTES = 16 * 2**20
_REQUIRED = ("world", "benchmark_id", "preset", "seed", "agent", "terminal_reason", "turns")


def _mapping(value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"a run record's table must be a mapping, not {type(value).__name__}")
    return dict(value)


def _episodes(value: Any) -> tuple[dict, ...]:
    return tuple(value or ())


@attrs.frozen
class RunRecord:
    """What one run produced, as ``result.json`` holds it.

    Attributes:
        summary: the world's figures (``world.summary()``: ``metric_value``, ``final_funds_cents``...), flattened
            into the top level of the file.
        episodes: each episode's summary when the run restarted after a bankruptcy (``max_episodes``), else empty.
        fork: for a fork, its parent and fork point.
        terminal_detail: why an LLM run or a live episode stopped early (a budget's name, an error), else ``None``.
        llm, llm_episodes, llm_roles: an LLM run's counters (in all, per episode, per world role).
        live: a live episode's surface, clients, counters, budgets, usage and metadata.
        wall_s: wall-clock seconds the run took (for a resumed LLM run, the session that finished it, its replay
            included); ``None`` where unknown (version 1 files, imports). Not compared: two records of one run are
            equal however long each took.
        schema_version: the file's shape (:data:`SCHEMA_VERSION` when written now).
        seats: an arena run's seats, in seat order, each ``{"seat", "agent", "options", "label",
            "metric_value", "summary"}`` (the seat's position, its agent, options and label as the roster gave
            them, its metric and its own figures); ``None`` for a run of one agent. An optional key: files
            without it read as before.
    """

    world: str
    benchmark_id: str
    preset: str
    seed: int
    agent: str
    agent_options: dict = attrs.field(converter=_mapping)
    terminal_reason: str = "horizon_end"
    bankrupt: bool = False
    turns: int = 0
    commands: int = 0
    summary: dict = attrs.field(factory=dict, converter=_mapping)
    episodes: tuple[dict, ...] = attrs.field(default=(), converter=_episodes)
    fork: dict | None = None
    terminal_detail: str | None = None
    llm: dict | None = None
    llm_episodes: list | None = None
    llm_roles: dict | None = None
    live: dict | None = None
    wall_s: float | None = attrs.field(default=None, eq=False)
    schema_version: int = SCHEMA_VERSION
    seats: list | None = None

    # -- writing ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``result.json`` holds, keys in their customary order (the world's figures after the
        run's own counts)."""
        out: dict[str, Any] = {
            "world": self.world, "benchmark_id": self.benchmark_id, "preset": self.preset, "seed": self.seed,
            "agent": self.agent, "agent_options": _jsonable(self.agent_options),
            "terminal_reason": self.terminal_reason, "bankrupt": self.bankrupt, "turns": self.turns,
            "commands": self.commands,
        }
        out.update(self.summary)
        if len(self.episodes) > 1:
            out["episodes"] = list(self.episodes)
        if self.fork is not None:
            out["fork"] = self.fork
        if self.terminal_detail is not None or self.llm is not None or self.live is not None:
            out["terminal_detail"] = self.terminal_detail
        if self.llm is not None:
            out["llm"] = self.llm
            out["llm_episodes"] = self.llm_episodes if self.llm_episodes is not None else []
            if self.llm_roles:
                out["llm_roles"] = self.llm_roles
        if self.live is not None:
            out["live"] = self.live
        if self.seats is not None:
            out["seats"] = self.seats
        out["wall_s"] = self.wall_s
        out["schema_version"] = self.schema_version
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """``result.json``'s text (``indent=None``: one compact line, as a live episode rewrites it per call)."""
        return json.dumps(self.to_dict(), indent=indent, default=str) + "\n"

    # -- reading ----------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        """A record from ``result.json``'s object (any version); a key of the wrong type is a :class:`ConfigError`."""
        if not isinstance(data, Mapping):
            raise ConfigError("result.json does not hold a JSON object")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise ConfigError(f"result.json is missing {', '.join(missing)}")
        own = {k: data[k] for k in _OWN if k in data}
        for key, kind in _TYPES.items():
            value = own.get(key)
            if value is not None and not _is(value, kind):
                raise ConfigError(f"result.json {key}(={_short(value)}) must be {kind[1]}")
        _check_nested(own)
        episodes = own.pop("episodes", None) or ()
        version = own.pop("schema_version", 1)
        if version is None or version < 1:
            raise ConfigError(f"result.json schema_version(={_short(version)}) must be an integer from 1 to "
                              f"{SCHEMA_VERSION}; the file was edited or damaged")
        if version > SCHEMA_VERSION:
            raise ConfigError(f"result.json has schema_version {version}, written by a newer bizsim (this one reads up "
                              f"to {SCHEMA_VERSION}); upgrade bizsim to read it")
        summary = {k: v for k, v in data.items() if k not in _OWN}
        return cls(**own, episodes=tuple(episodes), summary=summary, schema_version=version)

    @classmethod
    def from_json(cls, text: str | bytes) -> RunRecord:
        """A record from ``result.json``'s text, read bounded: too large, too deep or not JSON is a ConfigError."""
        if len(text) > MAX_RECORD_BYTES:
            raise ConfigError(f"result.json is larger than the limit of {MAX_RECORD_BYTES:,} bytes")
        try:
            data = loads_untrusted(text, MAX_RECORD_DEPTH)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(f"result.json is not valid JSON ({str(exc)[:120]})") from None
        return cls.from_dict(data)

    # -- reading as a row -------------------------------------------------------------
    @property
    def metric_value(self) -> Any:
        """The world's headline metric (``summary["metric_value"]``), ``None`` when the world reports none."""
        return self.summary.get("metric_value")


#: The run's own keys; every other top-level key of ``result.json`` is one of the world's figures.
_OWN = ("world", "benchmark_id", "preset", "seed", "agent", "agent_options", "terminal_reason", "bankrupt", "turns",
        "commands", "episodes", "fork", "terminal_detail", "llm", "llm_episodes", "llm_roles", "live", "wall_s",
        "schema_version", "seats")

_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "world": ((str,), "a string"), "benchmark_id": ((str,), "a string"), "preset": ((str,), "a string"),
    "agent": ((str,), "a string"), "terminal_reason": ((str,), "a string"), "terminal_detail": ((str,), "a string"),
    "seed": ((int,), "an integer"), "turns": ((int,), "an integer"), "commands": ((int,), "an integer"),
    "schema_version": ((int,), "an integer"), "bankrupt": ((bool,), "true or false"),
    "agent_options": ((dict,), "an object"), "fork": ((dict,), "an object"), "llm": ((dict,), "an object"),
    "llm_roles": ((dict,), "an object"), "live": ((dict,), "an object"), "episodes": ((list,), "a list"),
    "llm_episodes": ((list,), "a list"), "seats": ((list,), "a list"), "wall_s": ((int, float), "a finite number"),
}


def _check_nested(own: Mapping[str, Any]) -> None:
    """The inner shapes readers rely on: episodes are objects, and an LLM run's counters are numbers (an edited
    ``{"cost_usd": "x"}`` or ``episodes: [1, "x"]`` was a traceback in ``report``, ``load`` and ``export``)."""
    for key in ("episodes", "llm_episodes", "seats"):
        for i, item in enumerate(own.get(key) or ()):
            if not isinstance(item, Mapping):
                raise ConfigError(f"result.json {key}[{i}](={_short(item)}) must be an object; the file was edited "
                                  "or damaged")
    counters = [("llm", own.get("llm") or {})]
    for name, role in (own.get("llm_roles") or {}).items():
        if not isinstance(role, Mapping):
            raise ConfigError(f"result.json llm_roles[{_short(name)}](={_short(role)}) must be an object; the file "
                              "was edited or damaged")
        counters.append((f"llm_roles[{_short(name)}]", role))
    for where, table in counters:
        for name, value in table.items():
            if value is not None and not _is(value, _NUMBER):
                raise ConfigError(f"result.json {where}[{_short(name)}](={_short(value)}) must be a finite number or "
                                  "null; the file was edited or damaged")


_NUMBER: tuple[tuple[type, ...], str] = ((int, float), "a finite number")


def _is(value: Any, kind: tuple[tuple[type, ...], str]) -> bool:
    types = kind[0]
    if bool not in types and isinstance(value, bool):
        return False
    if not isinstance(value, types):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _jsonable(value: Any) -> Any:
    """``value`` with whatever JSON cannot hold (a model client object, a path) named instead: ``"<ScriptedClient>"``.

    >>> from pathlib import Path
    >>> _jsonable({"client": object(), "max_turns": 3, "dir": [Path("/tmp")]})
    {'client': '<object>', 'max_turns': 3, 'dir': ['/tmp']}
    """
    from pathlib import PurePath

    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    return f"<{type(value).__name__}>"
