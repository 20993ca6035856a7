"""A roster: who sits in each seat of an arena (an agent with its options), and how rosters rotate across seeds.

On the command line a seat is ``AGENT`` or ``AGENT:KEY=VALUE,KEY=VALUE``: ``planner``, ``markup``,
``llm:model=openai/gpt-4o-mini,api_base=http://127.0.0.1:8000/v1,max_cost_usd=0.5``. An agent of your own
(``package.module:function``) keeps its colon: options start at the first colon followed by ``KEY=``.
In Python and in grid files a seat is that text, a table ``{"name": ..., "options": {...}, "label": ...}``, or a
:class:`Seat`.

>>> split_seat("llm:model=openai/x,api_base=http://127.0.0.1:8000/v1")
('llm', ['model=openai/x', 'api_base=http://127.0.0.1:8000/v1'])
>>> split_seat("mypkg.agents:play:depth=3")
('mypkg.agents:play', ['depth=3'])
>>> [[s.agent for s in r] for _, r in rotations(["planner", "greedy", "random"], [1, 2, 3, 4])]
[['planner', 'greedy', 'random'], ['greedy', 'random', 'planner'], ['random', 'planner', 'greedy'], ['planner', 'greedy', 'random']]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show
from bizsim.simcore.untrusted_json import MAX_DEPTH, loads_untrusted, non_finite_at

if TYPE_CHECKING:
    from bizsim.runs.runspec import RunSpec

__all__ = ["MAX_SEATS", "MAX_SEAT_NAME_CHARS", "OUTSIDE_AGENTS", "Seat", "arena_grid", "as_roster",
           "outside_seat_refusal", "rotate", "rotations", "split_seat"]

#: The most seats a roster may list (an arena world names its own, smaller, range).
MAX_SEATS = 64
#: The longest agent name or label a seat may have (a registered name or ``package.module:function``).
MAX_SEAT_NAME_CHARS = 200
#: The agent names that mark a seat played from outside, each by the surface that hosts it.
OUTSIDE_AGENTS = {"human": "bizsim play", "mcp": "bizsim mcp"}


def outside_seat_refusal(roster: Sequence[Any]) -> str | None:
    """Why a roster cannot be run with every seat inside (``bizsim run``, sweeps): a seat played from outside has
    nobody to play it there. ``None`` when every seat is a built-in or LLM agent."""
    for k, seat in enumerate(as_roster(roster)):
        if seat.agent in OUTSIDE_AGENTS:
            surface = OUTSIDE_AGENTS[seat.agent]
            return (f"seat {k} is {seat.agent!r}, a seat played from outside, and a run of every seat inside "
                    f"(bizsim run, a sweep) has nobody to play it: play it with {surface} (e.g. {surface} WORLD "
                    f"--seat {seat.agent} --seat planner), or give the seat a built-in agent")
    return None


_OPTIONS = re.compile(r"^(?P<agent>[^=]*?):(?P<options>[A-Za-z_][\w.-]*=.*)$", re.DOTALL)
_NEXT_PAIR = re.compile(r",(?=[A-Za-z_][\w.-]*=)")


def split_seat(text: str) -> tuple[str, list[str]]:
    """A seat's text as its agent and its ``KEY=VALUE`` pairs (values unread: the caller reads them as JSON or
    text, as ``--agent-opt`` does). A comma inside a value is kept unless ``KEY=`` follows it."""
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"a seat(={show(text)}) must be an agent name, e.g. planner or llm:model=openai/gpt-4o-mini")
    found = _OPTIONS.match(text.strip())
    if found is None:
        return text.strip(), []
    return found["agent"], _NEXT_PAIR.split(found["options"])


def _options(value: Any) -> dict:
    if hasattr(value, "to_dict"):  # a settings object, e.g. the LLM agent's config
        value = value.to_dict()
    if not isinstance(value, Mapping):
        raise ConfigError(f"a seat's options(={show(value)}) must be a table of agent options")
    try:
        return json.loads(json.dumps(dict(value), sort_keys=True, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"a seat's options(={show(value)}) must be JSON-able data: {exc}") from None


@attrs.frozen
class Seat:
    """One seat of a roster: the agent playing it and its options.

    Args:
        agent: a registered agent of the arena's base world, or ``package.module:function``.
        options: the agent's options (an LLM seat's model, endpoint, budget and caps are its own).
        label: how tables and the rating name the seat's agent (default :attr:`shown`).
    """

    agent: str
    options: dict = attrs.field(factory=dict, converter=_options)
    label: str | None = None

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.agent, str) or not self.agent or "=" in self.agent \
                or len(self.agent) > MAX_SEAT_NAME_CHARS:
            raise ConfigError(f"a seat's agent(={show(self.agent)}) must be an agent name or "
                              f"package.module:function, at most {MAX_SEAT_NAME_CHARS} characters")
        if self.label is not None and (not isinstance(self.label, str) or not self.label
                                       or len(self.label) > MAX_SEAT_NAME_CHARS):
            raise ConfigError(f"a seat's label(={show(self.label)}) must be non-empty text of at most "
                              f"{MAX_SEAT_NAME_CHARS} characters")

    @property
    def shown(self) -> str:
        """The seat's agent as tables name it: its label, else the agent, with its model when it has one
        (``llm:openai/gpt-4o-mini``), so two models are two entries of a rating."""
        if self.label:
            return self.label
        model = self.options.get("model")
        return f"{self.agent}:{model}" if model else self.agent

    def to_dict(self) -> dict:
        """JSON-able form (``label`` only when given); :func:`as_roster` reads it back."""
        out: dict[str, Any] = {"name": self.agent, "options": self.options}
        if self.label is not None:
            out["label"] = self.label
        return out


def _seat(value: Any) -> Seat:
    if isinstance(value, Seat):
        return value
    if isinstance(value, str):
        agent, pairs = split_seat(value)
        return Seat(agent, dict(_read_pair(agent, pair) for pair in pairs))
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"name", "options", "label"})
        if unknown or "name" not in value:
            raise ConfigError(f"a seat table(={show(dict(value))}) takes name, options and label"
                              + (f"; {', '.join(map(str, unknown))} unknown" if unknown else "; it needs a name"))
        return Seat(value["name"], value.get("options") or {}, value.get("label"))
    raise ConfigError(f"a seat(={show(value)}) must be text such as 'planner', a table or a Seat")


def _read_pair(agent: str, pair: str) -> tuple[str, Any]:
    """``KEY=VALUE`` read as ``--agent-opt`` reads it: JSON when it is (bounded, finite), else the text itself."""
    key, _, raw = pair.partition("=")
    try:
        value = loads_untrusted(raw)
    except ValueError as exc:
        if str(exc).startswith("Nesting"):
            raise ConfigError(f"seat {agent}: option {show(key)} nests deeper than {MAX_DEPTH} levels") from None
        value = raw
    if non_finite_at(value) is not None:
        raise ConfigError(f"seat {agent}: option {show(key)}(={show(raw)}) is not a finite number; give a number, or "
                          "quote text as a JSON string")
    return key, value


def as_roster(seats: Iterable[Any] | None) -> tuple[Seat, ...]:
    """A roster from seats given as text, tables or :class:`Seat` (``None`` or empty: no roster)."""
    if seats is None:
        return ()
    if isinstance(seats, (str, Mapping, Seat)):
        raise ConfigError(f"a roster(={show(seats)}) is a list of seats, one an entry, e.g. ['planner', 'markup']")
    out = tuple(_seat(s) for s in seats)
    if len(out) > MAX_SEATS:
        raise ConfigError(f"a roster of {len(out)} seats is past the limit of {MAX_SEATS}")
    return out


def rotate(roster: Sequence[Any], k: int) -> tuple[Seat, ...]:
    """The roster turned by ``k``: seat ``i`` gets the agent that sat in seat ``(i + k) mod n``."""
    seats = as_roster(roster)
    if not seats:
        return seats
    k %= len(seats)
    return seats[k:] + seats[:k]


def rotations(roster: Sequence[Any], seeds: Iterable[int]) -> list[tuple[int, tuple[Seat, ...]]]:
    """Each seed with the roster turned by that seed's position in ``seeds``, so over any ``n`` consecutive seeds
    of an ``n``-seat roster every agent sits once in every seat (a seat's own advantage, such as acting first on
    day one, evens out across a sweep)."""
    seats = as_roster(roster)
    return [(seed, rotate(seats, t)) for t, seed in enumerate(seeds)]


def arena_grid(world: str, rosters: Sequence[Sequence[Any]], seeds: Any = 1,
               presets: str | Sequence[str] = "default") -> list[RunSpec]:
    """The runs of a sweep over rosters: every preset x roster x seed, each roster turned by its seed's position
    (:func:`rotations`), so a seed count that is a multiple of the roster's size sits every agent in every seat
    equally often.

    >>> [[s.agent for s in spec.roster] for spec in arena_grid("vending-arena", [["planner", "markup"]], "1-3")]
    [['planner', 'markup'], ['markup', 'planner'], ['planner', 'markup']]
    """
    from bizsim.simcore.limits import MAX_SWEEP_RUNS
    from bizsim.simcore.seeds import parse_seeds

    from bizsim.runs.runspec import RunSpec

    seed_list = parse_seeds(seeds)
    preset_list = [presets] if isinstance(presets, str) else list(presets)
    roster_list = [as_roster(r) for r in rosters]
    if not seed_list or not preset_list or not roster_list or not all(roster_list):
        raise ConfigError("an arena grid needs at least one preset, one seed and one roster of at least one seat")
    count = len(seed_list) * len(preset_list) * len(roster_list)
    if count > MAX_SWEEP_RUNS:
        raise ConfigError(f"the arena grid makes {count:,} runs, past the limit of {MAX_SWEEP_RUNS:,}; split it")
    return [RunSpec(world, preset, seed=seed, roster=turned)
            for preset in preset_list for roster in roster_list for seed, turned in rotations(roster, seed_list)]
