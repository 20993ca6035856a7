"""Shared Hypothesis strategies: presets, seeds, command lines and command sequences.

The world-generic ones come from the public kit (``bizsim.simcore.testing.strategies``); this module adds the
startup world's vocabulary and the suite's own hostile inputs.

Every new feature extends this module (a new preset is picked up from
``PRESETS``; a new command from ``COMMANDS``; a new kind of agent action gets
a case in :func:`actions` and in :func:`render`).
"""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

from hypothesis import strategies as st

from bizsim.models.startup import PRESETS
from bizsim.simcore.testing import strategies as kit
from bizsim.models.startup.commands import COMMANDS
from bizsim.models.startup.state import DOMAINS, TASK_STATUSES

__all__ = [
    "PROGRAMS", "COMMAND_NAMES", "WORDS", "FLAGS", "VALUE_WORDS", "presets", "seeds", "tokens", "near_miss_lines",
    "command_lines", "valid_shaped_lines", "actions", "action_sequences", "render", "run_specs", "seed_texts",
    "world_lines", "world_scripts", "script_lines", "cut_scripts", "fork_cases", "QUICK_AGENTS", "start_states",
    "windows", "reward_weights", "points",
    "number_texts", "hostile_values", "hostile_texts", "hostile_lines", "tool_calls", "WORLD_NAMES", "make_fresh_world",
    "config_values", "chat_messages", "conversations", "seed_values", "ARENA_WORDS", "arena_turns",
    "render_arena_line", "arena_actions", "render_arena", "startup_rosters",
]

#: First words the paper's prompt (and bizsim) put before a command.
PROGRAMS = ("yc-bench", "bizsim")
#: Every command an agent is told about, e.g. ``task accept``.
COMMAND_NAMES = tuple(spec.name for spec in COMMANDS.visible())
#: The words command names are made of.
WORDS = tuple(sorted({w for name in COMMAND_NAMES for w in name.split()}))
#: Every option flag of every command (hidden ones included).
FLAGS = tuple(sorted({p.flag for spec in COMMANDS for p in spec.params}))
#: Values an agent plausibly types after a flag, valid and not.
VALUE_WORDS = (
    "Task-1", "Task-8", "Task-42", "Task-0", "Task-9000", "Task-99999", "task-42", "Emp_1", "Emp_1,Emp_4,Emp_7",
    "Emp_99", "Emp_1,,Emp_2", *DOMAINS, "data engineering", *TASK_STATUSES, "bogus", "0", "-1", "5", "100000",
    "1e9", "nan", "inf", "true", "false", "", " ", "01/31/2025", "13/45/2025", "2025-02", "2025-13", "text",
)


def presets() -> st.SearchStrategy[str]:
    """A startup preset name."""
    return st.sampled_from(sorted(PRESETS))


seeds = kit.seeds


def _text(max_size: int = 12) -> st.SearchStrategy[str]:
    # Unicode, lone surrogates (JSON escapes carry them), quotes, backslashes and control characters.
    # (Every character but the surrogates is what UTF-8 encodes: named by category, Hypothesis needs no table of
    # the codec, which took each test worker 3 s to build.)
    return st.text(st.one_of(st.characters(exclude_categories=("Cs",)),
                             st.sampled_from("'\"\\ \t\n=-,\ud800\udfff")), max_size=max_size)


def tokens() -> st.SearchStrategy[str]:
    """One raw token of a command line, usually near the command vocabulary."""
    return st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(FLAGS),
        st.builds(lambda f, v: f"{f}={shlex.quote(v)}", st.sampled_from(FLAGS), st.sampled_from(VALUE_WORDS)),
        st.sampled_from(VALUE_WORDS).map(shlex.quote),
        st.sampled_from(PROGRAMS),
        _text().map(shlex.quote),
        _text(6),  # raw: may hold unbalanced quotes
        st.sampled_from(["--", "-", "--task_id", "--TASK-ID", "'", '"', "\\", "''", "#"]),
    )


def near_miss_lines() -> st.SearchStrategy[str]:
    """Lines built from the command vocabulary, mostly slightly wrong."""
    return st.lists(tokens(), max_size=8).map(" ".join)


def valid_shaped_lines() -> st.SearchStrategy[str]:
    """A real command name with random (well-quoted) flags and values after it."""
    pair = st.tuples(st.sampled_from(FLAGS), st.one_of(st.sampled_from(VALUE_WORDS), _text()))
    return st.builds(
        lambda prog, name, pairs: " ".join(
            [*([prog] if prog else []), name, *(f"{f} {shlex.quote(v)}" for f, v in pairs)]
        ),
        st.sampled_from((None, *PROGRAMS)),
        st.sampled_from(COMMAND_NAMES),
        st.lists(pair, max_size=4),
    )


def command_lines() -> st.SearchStrategy[str]:
    """Anything an agent might send as a command line."""
    return st.one_of(st.text(max_size=40), near_miss_lines(), valid_shaped_lines())


# ---------------------------------------------------------------------------
# sequences of agent actions, rendered into command lines against a live world

_RESUME = st.tuples(st.just("resume"), st.integers(1, 8))
#: Pick among the tasks the company may accept (usually), or among the whole top of the market.
_OPEN = st.sampled_from([True, True, True, False])
_TEAM = st.lists(st.integers(min_value=1, max_value=9), min_size=0, max_size=9)


def actions() -> st.SearchStrategy[tuple]:
    """One abstract agent action; :func:`render` turns it into command lines.

    Indices pick among what the world shows at that moment, so sequences stay
    meaningful whatever happened before (and shrink well).
    """
    return st.one_of(
        st.tuples(st.just("start"), st.integers(0, 40), _TEAM, _OPEN),
        st.tuples(st.just("start"), st.integers(0, 40), _TEAM, _OPEN),
        st.tuples(st.just("accept"), st.integers(0, 40), _OPEN),
        st.tuples(st.just("assign"), st.integers(0, 10), _TEAM),
        st.tuples(st.just("dispatch"), st.integers(0, 10)),
        st.tuples(st.just("cancel"), st.integers(0, 10), _text(20)),
        _RESUME,
        _RESUME,
        _RESUME,
        st.tuples(st.just("browse"), st.none() | st.sampled_from(DOMAINS), st.none() | st.integers(1, 60)),
        st.tuples(st.just("inspect"), st.integers(0, 400)),
        st.tuples(st.just("list"), st.none() | st.sampled_from(TASK_STATUSES)),
        st.tuples(st.just("note"), st.sampled_from(["write", "append"]), _text(30)),
        st.sampled_from([("observe", name) for name in (
            "company status", "employee list", "client list", "client history", "finance ledger",
            "report monthly", "scratchpad read", "task assign-all --task-id Task-1",
        )]),
    )


def action_sequences(min_size: int = 1, max_size: int = 25) -> st.SearchStrategy[list[tuple]]:
    """A list of abstract agent actions."""
    return st.lists(actions(), min_size=min_size, max_size=max_size)


def _acceptable(world: Any, task: Any) -> bool:
    # What `market browse` would list: prestige (integer part) and trust requirements met.
    if any(int(world.prestige[d]) < task.required_prestige for d in task.required):
        return False
    return task.required_trust <= float(task.client.trust)


def _owned(world: Any) -> list[Any]:
    return [t for t in world.tasks if t.status in ("planned", "active")]


def _pick(items: list[Any], k: int) -> Any:
    return items[k % len(items)] if items else None


def render(world: Any, action: tuple) -> list[str]:
    """The command lines an action stands for in the world's current state.

    Reads the world's state directly (no commands), so rendering leaves no
    trace in the trajectory.
    """
    kind = action[0]
    market = world.market[:40]
    owned = _owned(world)
    if kind in ("start", "accept"):
        pool = [t for t in world.market if _acceptable(world, t)][:40] if action[-1] else market
        task = _pick(pool, action[1])
        title = task.title if task is not None else "Task-1"
        if kind == "accept":
            return [f"yc-bench task accept --task-id {title}"]
        team = ",".join(f"Emp_{i}" for i in action[2]) or "Emp_1"
        return [
            f"yc-bench task accept --task-id {title}",
            f"yc-bench task assign --task-id {title} --employees {team}",
            f"yc-bench task dispatch --task-id {title}",
        ]
    if kind in ("assign", "dispatch", "cancel"):
        task = _pick(owned, action[1])
        title = task.title if task is not None else (market[0].title if market else "Task-1")
        if kind == "assign":
            team = ",".join(f"Emp_{i}" for i in action[2])
            return [f"yc-bench task assign --task-id {title} --employees {shlex.quote(team)}"]
        if kind == "dispatch":
            return [f"yc-bench task dispatch --task-id {title}"]
        return [f"yc-bench task cancel --task-id {title} --reason {shlex.quote(action[2])}"]
    if kind == "resume":
        return ["yc-bench sim resume"] * action[1]
    if kind == "browse":
        line = "yc-bench market browse"
        if action[1] is not None:
            line += f" --domain {action[1]}"
        if action[2] is not None:
            line += f" --limit {action[2]}"
        return [line]
    if kind == "inspect":
        task = _pick(world.tasks, action[1])
        return [f"yc-bench task inspect --task-id {task.title}"]
    if kind == "list":
        return ["yc-bench task list" + (f" --status {action[1]}" if action[1] else "")]
    if kind == "note":
        return [f"yc-bench scratchpad {action[1]} --content {shlex.quote(action[2])}"]
    if kind == "observe":
        return [f"yc-bench {action[1]}"]
    raise ValueError(f"unknown action {action!r}")


# sweeps ------------------------------------------------------------------------------------
def run_specs() -> st.SearchStrategy:
    """Sweep run specs over every registered world: its presets and baseline agents (not ``llm``), seeds,
    JSON-able agent options and overrides (shapes only: values a world may refuse when the run starts), labels."""
    from bizsim.agents import agent_names
    from bizsim.runs import RunSpec
    from bizsim.models import world_names, world_presets

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8))
    tables = st.dictionaries(st.text("abcdefgh_", min_size=1, max_size=6), scalars, max_size=3)

    def for_world(world: str) -> st.SearchStrategy:
        agents = [a for a in agent_names(world) if a != "llm"]
        return st.builds(
            RunSpec, st.just(world), st.sampled_from(world_presets(world)), st.sampled_from(agents),
            st.integers(0, 2**31), tables, tables, st.one_of(st.none(), st.text(max_size=10)),
        )

    return st.sampled_from(sorted(world_names())).flatmap(for_world)


def seed_texts() -> st.SearchStrategy[tuple[str, list[int]]]:
    """``("1-3,7", [1, 2, 3, 7])``: seed lists as ``--seeds`` writes them, with the seeds they mean."""
    parts = st.lists(st.tuples(st.integers(0, 500), st.integers(0, 5)), min_size=1, max_size=5)
    return parts.map(lambda ps: (
        ",".join(f"{a}-{a + n}" if n else str(a) for a, n in ps),
        [s for a, n in ps for s in range(a, a + n + 1)],
    ))


def world_lines(world_name: str) -> st.SearchStrategy[str]:
    """Command lines for any registered world (the public kit's, with the startup world's words as values)."""
    return kit.world_lines(world_name, VALUE_WORDS)


def world_scripts(world_name: str, max_turns: int = 8) -> st.SearchStrategy[list[list[str]]]:
    """A script for any registered world: for each turn, a few command lines before the advance command."""
    return kit.world_scripts(world_name, max_turns, VALUE_WORDS)


script_lines = kit.script_lines


def cut_scripts(world_name: str, max_turns: int = 8) -> st.SearchStrategy[tuple[list[str], int]]:
    """A flat script for any registered world and a point in it (see the kit's ``cut_scripts``)."""
    return kit.cut_scripts(world_name, max_turns, VALUE_WORDS)


#: Per world, (preset, agent) pairs whose whole year plays in well under a second: parents of forks and windows.
QUICK_AGENTS = {
    "startup": (("default", "greedy"), ("default", "greedy-reference"), ("easy", "greedy")),
    "operation": (("default", "round-robin"), ("default", "threshold"), ("easy", "planner")),
    "vending": (("small", "markup"), ("small", "planner")),
    "freelance": (("default", "cautious"), ("default", "oracle")),
}


def fork_cases(world_name: str) -> st.SearchStrategy[tuple[str, str, int, float]]:
    """A recorded run to fork and where: ``(preset, agent, seed, share of its turns before the fork point)``.

    Worlds outside :data:`QUICK_AGENTS` (installed by other packages) use their default preset and agent."""
    from bizsim.simcore.registry import world_spec

    pairs = QUICK_AGENTS.get(world_name) or (("default", world_spec(world_name).default_agent),)
    return st.tuples(st.sampled_from(pairs), seeds(50), st.floats(0, 1)).map(lambda t: (*t[0], t[1], t[2]))


def points() -> st.SearchStrategy[Any]:
    """A point in a run: a turn number, or a simulated hour or day (early in the year, so runs reach it)."""
    return st.one_of(st.integers(0, 40), st.builds(lambda d: {"day": d}, st.integers(0, 60)),
                     st.builds(lambda h: {"hours": h}, st.floats(0, 900, allow_nan=False)))


def start_states(world_name: str) -> st.SearchStrategy[Any]:
    """Where an episode starts: a fresh world, or one of the world's quick policies played until a point."""
    from bizsim.agents.start import StartState
    from bizsim.simcore.registry import world_spec

    pairs = QUICK_AGENTS.get(world_name) or (("default", world_spec(world_name).default_agent),)
    fresh = st.sampled_from(pairs).map(lambda p: StartState(world_name, preset=p[0]))
    played = st.builds(lambda p, until: StartState(world_name, preset=p[0], agent=p[1], until=until),
                       st.sampled_from(pairs), st.lists(points(), min_size=1, max_size=3))
    return st.one_of(fresh, played)


def windows() -> st.SearchStrategy[Any]:
    """A window: a few agent turns or simulated days."""
    from bizsim.agents.start import Window

    return st.one_of(st.builds(Window, turns=st.integers(1, 8)),
                     st.builds(Window, days=st.floats(0.25, 12, allow_nan=False)))


def reward_weights(world_name: str) -> st.SearchStrategy[Any]:
    """``reward_weights`` for ``reward="shaped"``: the world's defaults (``None``), every weight 0, or some of its
    sub-metrics with weights of either sign."""
    from bizsim.simcore.registry import world_spec

    names = [s.name for s in world_spec(world_name).sub_metrics]
    weight = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    return st.one_of(st.none(), st.just(dict.fromkeys(names, 0.0)),
                     st.fixed_dictionaries({}, optional=dict.fromkeys(names, weight)))


#: Pieces of answer text that exercise the number pattern: signs, money, separators, exponents, markers, remarks.
_NUMBER_PIECES = (
    "5", "12", "1,234", "1,23", "0.5", ".5", "3.", "1e5", "2E-3", "7e999", "1e\u22122", "-", "\u2212", "$", "%", ",",
    ".", "(", ")", " ", "  ", "\t", "\n", "\u2028", "\xa0", "x", "e", "a", "_", "answer", "Answer:", "final  answer",
    "result =", "output is", "is", "=", ":", "\u0663",
)


def number_texts(max_size: int = 40) -> st.SearchStrategy[str]:
    """Answer-like text built from the pieces the number and marker patterns react to."""
    return st.lists(st.sampled_from(_NUMBER_PIECES), max_size=max_size).map("".join)


#: Every registered world: the built-in ones and the example's (tests/conftest.py registers examples/lemonade).
WORLD_NAMES = tuple(__import__("bizsim.simcore.registry", fromlist=["world_names"]).world_names())


def make_fresh_world(name: str) -> Any:
    """A fresh world of ``name`` on its default preset (``small`` for vending: quicker to build), seed 1."""
    from bizsim.models import make_world

    return make_world(name, "small" if name == "vending" else "default", 1)


def _nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


#: Text no agent should send and every agent may: huge, deep-looking, control and format characters, shell quoting.
_HOSTILE_TEXTS = (
    "", " ", " " * 5000 + "x", "x" * 1_100_000, "\x00", "\u2028\u2029\x85", "\ufeff", "\u202e", "'", '"', "\\",
    "nan", "NaN", "inf", "-Infinity", "1e309", "9" * 5000, "[" * 10_000, "{" * 10_000 + "}" * 10_000,
    '{"a": NaN}', "[" * 50 + "]" * 50, "$(rm -rf /)", "`id`", "; task_done", "--help", "-" * 100_000, "💥" * 1000,
    "\ud800", "a\ud800b", '[{"name": "x", "quantity": 1, "note": NaN}]', '[{"name": "x", "quantity": 1e999}]',
)


def hostile_texts() -> st.SearchStrategy[str]:
    """Text an agent might send as an argument: odd, huge, or shaped like numbers, JSON or shell."""
    return st.one_of(st.sampled_from(_HOSTILE_TEXTS), _text(40), st.text(max_size=40))


def hostile_values() -> st.SearchStrategy[Any]:
    """A JSON-ish value for a tool-call argument: non-finite and huge numbers, deep nesting, huge and odd text."""
    return st.one_of(
        st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0, 1e308, 5e-324, 2**63, -(2**63), 2**64,
                         10**400, 10**5000, True, False, None, [], {}, [1], {"a": 1}]),
        st.integers(), st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([10, 100, 1000, 20_000]).map(_nested),
        st.sampled_from([10, 1000]).map(lambda d: {"k": _nested(d)}),
        hostile_texts(),
    )


def hostile_lines(names: tuple[str, ...], flags: tuple[str, ...]) -> st.SearchStrategy[str]:
    """A command line for a world: a real or near command name, real flags, hostile values, any quoting."""
    value = st.one_of(hostile_texts().map(shlex.quote), hostile_texts(),
                      st.sampled_from(["nan", "inf", "-inf", "NaN", "1e999", "9" * 5000, "0", "-1", "1.5"]))
    pair = st.tuples(st.sampled_from(flags) if flags else st.just("--x"), value).map(
        lambda fv: f"{fv[0]} {fv[1]}" if fv[1] else fv[0])
    return st.one_of(
        st.builds(lambda prog, name, pairs: " ".join([*prog, name, *pairs]),
                  st.sampled_from([[], ["bizsim"], ["yc-bench"]]), st.sampled_from(names), st.lists(pair, max_size=4)),
        hostile_texts(),
        st.sampled_from(["x" * 1_000_000, "help --command " + "y" * 1_000_000, "help --command '" + "z" * 1_000_000,
                         '"' + "\\x" * 200_000 + '"', "a " * 200_000]),
    )


def tool_calls(commands: Any) -> st.SearchStrategy[tuple[str, Any]]:
    """A tool call ``(tool name, arguments)`` for a world's commands: known and unknown names, argument dicts with
    hostile values and extra keys, or argument text that is not (or barely) JSON."""
    specs = list(commands.visible())

    def args_for(spec: Any) -> st.SearchStrategy[Any]:
        keys = [p.name for p in spec.params] + ["bogus", "x" * 300]
        dicts = st.dictionaries(st.sampled_from(keys), hostile_values(), max_size=len(keys))
        return st.one_of(dicts, dicts.map(lambda d: _dumps_lenient(d)), hostile_texts(), st.sampled_from(
            [None, [], 5, "null", "[]", '{"price": NaN}', '{"price": Infinity}', '{"price": -Infinity}']))

    known = st.sampled_from(specs).flatmap(lambda spec: st.tuples(st.just(spec.tool_name), args_for(spec)))
    unknown = st.tuples(st.one_of(hostile_texts(), st.just("functions.help")), st.just({}))
    return st.one_of(known, known, known, unknown)


def _dumps_lenient(data: dict) -> str:
    # As a model's tool-call JSON would carry them: NaN and Infinity written out, nesting as deep as it is.
    import json

    try:
        return json.dumps(data)
    except (ValueError, RecursionError):
        return "{}"


def config_values(current: Any) -> st.SearchStrategy[Any]:
    """A value for a config field now holding ``current``: near it, at the edges of every range, of another type,
    non-finite, huge, or odd text."""
    near: list[Any] = []
    if isinstance(current, bool):
        near = [not current]
    elif isinstance(current, (int, float)):
        near = [current, current * 2, current * 10, -current, current + 1, current - 1]
    elif isinstance(current, tuple):
        near = [tuple(reversed(current)), current[:-1], (*current, *current[:1]), tuple(v * 1000 for v in current)]
    return st.one_of(
        st.sampled_from(near or [current]),
        st.sampled_from([0, 1, -1, 2, 3, 0.0, -0.0, 0.5, 1.5, 100, 1000, 10**6, 10**9, 10**18, 2**63, 10**30, 1e9, 1e15,
                         1e308, 5e-324, math.nan, math.inf, -math.inf, True, False, None, "", "x", "1", "2025-02-30",
                         [], [1], (1, 2, 3), (0, 0, 0), (1e308, 1e308, 1e308), (-1, -1, -1), {"a": 1}]),
        st.integers(-10, 10**6), st.floats(-1e6, 1e6, allow_nan=False),
    )


def _json_leaves() -> st.SearchStrategy[Any]:
    # What a provider's JSON can hold (its parser caps integers at 4,300 digits; NaN never equals itself).
    return st.one_of(st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(allow_nan=False), _text())


def _message_texts() -> st.SearchStrategy[str]:
    # Hostile text cut to 5,000 characters: a conversation of megabyte messages tests nothing more, slowly.
    return hostile_texts().map(lambda t: t[:5000])


def chat_messages() -> st.SearchStrategy[dict]:
    """A chat message as a harness sends one: any role, hostile or missing text, tool calls with odd fields."""
    call = st.fixed_dictionaries({"id": _text(), "type": st.just("function"),
                                  "function": st.fixed_dictionaries({"name": _text(), "arguments": _message_texts()})})
    provider = st.dictionaries(_text(), _json_leaves(), max_size=2)
    return st.one_of(
        st.fixed_dictionaries({"role": st.sampled_from(["system", "user"]), "content": _message_texts()}),
        st.fixed_dictionaries({"role": st.just("assistant"), "content": st.none() | _message_texts()},
                              optional={"tool_calls": st.lists(call, max_size=2), "provider_specific_fields": provider}),
        st.fixed_dictionaries({"role": st.just("tool"), "content": _message_texts(), "tool_call_id": _text()}),
    )


@st.composite
def conversations(draw: Any, max_turns: int = 5) -> list[list[dict]]:
    """The requests of one conversation, in order: each a system message (changed now and then) and a history that
    drops some of its oldest messages, keeps the rest and adds new ones (a message may repeat an earlier one)."""
    system = {"role": "system", "content": draw(_message_texts())}
    history: list[dict] = []
    out = []
    for _ in range(draw(st.integers(1, max_turns))):
        if draw(st.booleans()) and draw(st.booleans()):
            system = {"role": "system", "content": system["content"] + draw(_text(8))}
        if draw(st.booleans()):
            del history[:draw(st.integers(0, len(history)))]
        for m in draw(st.lists(chat_messages(), max_size=3)):
            history.append(m)
            if history and draw(st.booleans()) and draw(st.booleans()):
                history.append(draw(st.sampled_from(history)))
        out.append([system, *history])
    return out


def seed_values(min_size: int = 1, max_size: int = 12) -> st.SearchStrategy[list[float]]:
    """A group's per-seed figures as a report averages them: cents (integers, often a run at $0) or shares in
    [0, 1], with repeats."""
    cents = st.one_of(st.just(0), st.integers(min_value=0, max_value=10**10))
    shares = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
    return st.one_of(st.lists(cents.map(float), min_size=min_size, max_size=max_size),
                     st.lists(shares, min_size=min_size, max_size=max_size))


# arenas ---------------------------------------------------------------------------------------------------------
#: Words a vending arena's seat plausibly sends: search words that find products, amounts, seat numbers.
ARENA_WORDS = ("water", "tea", "seltzer", "chips", "0", "1", "2", "3", "7", "0.5", "12.34", "99999", "-1", "hi")


def arena_turns(seats: int, max_turns: int = 6) -> st.SearchStrategy[list[list[list[str]]]]:
    """Per seat of a vending arena, a script of turns: searches, orders, prices and transfers between the seats
    (among the kit's odd lines for every arena command), mostly well formed so that money and goods really move."""
    to = st.integers(-1, seats)
    amount = st.sampled_from(["0.01", "1", "12.34", "150", "0", "-3", "1e9"])
    pick = st.integers(0, 2)

    useful = st.one_of(
        st.sampled_from(["products_research --query water", "products_research --query tea",
                         "products_research --query seltzer", "market_view", "messages_read"]),
        st.tuples(pick, st.integers(1, 30)).map(lambda a: f"@order {a[0]} {a[1]}"),
        st.tuples(pick, st.sampled_from(["0.5", "2", "4.99"])).map(lambda a: f"@price {a[0]} {a[1]}"),
        st.tuples(to, amount).map(lambda a: f"money_send --to {a[0]} --amount {a[1]}"),
        st.tuples(to, pick, st.integers(1, 12)).map(lambda a: f"@goods {a[0]} {a[1]} {a[2]}"),
        st.tuples(to, st.text(max_size=30)).map(lambda a: f"message_send --to {a[0]} --text {shlex.quote(a[1])}"),
    )
    line = st.one_of(useful, useful, useful, kit.world_lines("vending-arena", ARENA_WORDS))
    turns = st.lists(st.lists(line, max_size=5), min_size=1, max_size=max_turns)
    return st.lists(turns, min_size=seats, max_size=seats)


def render_arena_line(seat: Any, line: str) -> str:
    """A line of :func:`arena_turns` for ``seat``: ``@order k q``, ``@price k p`` and ``@goods to k q`` name the
    seat's ``k``-th researched product (what a real agent would copy from a search), the rest is sent as it is."""
    if not line.startswith("@"):
        return line
    kind, *args = line[1:].split()
    names = seat.researched_names()
    name = names[int(args[-2 if kind != "goods" else 1]) % len(names)] if names else "Nothing Researched"
    if kind == "order":
        return f"order_place --items {shlex.quote(json.dumps([{'name': name, 'quantity': int(args[1])}]))}"
    if kind == "price":
        return f"price_set --product-name {shlex.quote(name)} --price {args[1]}"
    return f"goods_send --to {args[0]} --product-name {shlex.quote(name)} --quantity {args[2]}"


# startup-arena ------------------------------------------------------------------------------
#: Payments between companies: small, large, and beyond any company's funds (refused).
_AMOUNTS = st.sampled_from([1, 500, 250_000, 5_000_000, 10**12]) | st.integers(-5, 2_000_000)


def arena_actions() -> st.SearchStrategy[tuple]:
    """One abstract action of a company in a startup arena: the startup world's, or a message or payment to the
    ``k``-th company (itself included, which is refused), or a look at the inbox or the companies."""
    return st.one_of(
        actions(),
        st.tuples(st.just("pay"), st.integers(0, 3), _AMOUNTS),
        st.tuples(st.just("message"), st.integers(0, 3), _text(30)),
        st.sampled_from([("observe", "message inbox"), ("observe", "arena companies")]),
    )


def render_arena(world: Any, action: tuple) -> list[str]:
    """The command lines an arena action stands for, for company ``world`` now (see :func:`render`)."""
    if action[0] in ("pay", "message"):
        to = action[1] % len(world.arena.seats)
        if action[0] == "pay":
            return [f"yc-bench finance transfer --to {to} --amount-cents {action[2]}"]
        return [f"yc-bench message send --to {to} --text {shlex.quote(action[2])}"]
    return render(world, action)


def startup_rosters(agents: tuple[str, ...] = ("greedy", "random")) -> st.SearchStrategy[list[str]]:
    """A startup-arena roster of quick agents (``greedy``, ``random``): one name per seat, two to four seats (the
    kit's ``rosters`` draws from every agent, the planner too, whose years are slower)."""
    return st.lists(st.sampled_from(agents), min_size=2, max_size=4)
