"""Hostile agents: every command string and tool call of every world is answered, refusals change nothing, the
trajectory stays writable as JSON (no NaN ever recorded), and nothing takes long."""

from __future__ import annotations

import json
import math
import shlex

import pytest
import simpy
from hypothesis import given
from hypothesis import strategies as st

from bizsim.models.vending import VendingWorld
from bizsim.simcore._cmdline import split_line
from bizsim.simcore.limits import MAX_INT, MAX_LINE_CHARS, MAX_TEXT_CHARS

from ._fuzz import fuzz
from ._hang_guard import no_hang
from .strategies import WORLD_NAMES, hostile_lines, make_fresh_world, tool_calls

pytestmark = pytest.mark.fuzz


def _priced_world() -> tuple[VendingWorld, str]:
    world = VendingWorld("small", seed=1)
    name = world.execute_tool("products_research", {"query": "water"}, driven=True)["products"][0]["name"]
    return world, name


def _answered_without_change(world, run) -> object:
    """Run one command; a refusal must leave the world as it was, and the log must stay writable JSON."""
    before = json.dumps(world.state(), sort_keys=True)
    out = run()
    assert isinstance(out, (dict, simpy.Event))
    if isinstance(out, dict) and "error" in out:
        assert before == json.dumps(world.state(), sort_keys=True)
        # A refusal quotes about 200 characters of what it refuses, whatever the agent sent.
        assert len(json.dumps(out)) < _MAX_REFUSAL_CHARS, json.dumps(out)[:300]
    for line in world.trajectory.to_jsonl().split("\n")[:-1]:  # to_jsonl raises on NaN and 4,300-digit integers
        json.loads(line, parse_constant=_no_constant)
    return out


#: The longest refusal (error, hint and details as JSON) any input may draw: a few quotes of about 200 characters,
#: and a hint listing commands or products.
_MAX_REFUSAL_CHARS = 5_000


def _no_constant(name: str) -> None:
    raise AssertionError(f"the trajectory holds {name}")


@pytest.mark.parametrize("arguments", [
    {"price": float("nan")}, {"price": float("inf")}, {"price": float("-inf")},
    '{"price": NaN}', '{"price": Infinity}', '{"price": -Infinity}',
], ids=["nan", "inf", "-inf", "json-NaN", "json-Infinity", "json--Infinity"])
def test_a_non_finite_price_from_a_tool_call_is_refused_and_never_recorded(arguments):
    """vending price_set with NaN or an infinity (tool-call JSON allows them): refused, and the trajectory, which
    used to hold the NaN and could not be written, is plain JSON."""
    world, name = _priced_world()
    if isinstance(arguments, dict):
        arguments = {"product_name": name, **arguments}
    else:
        arguments = arguments.replace("{", '{"product_name": %s, ' % json.dumps(name), 1)
    out = _answered_without_change(world, lambda: world.execute_tool("price_set", arguments, driven=True))
    assert "expects a number" in out["error"]
    assert "price_set" not in [r["name"] for r in map(json.loads, world.trajectory.to_jsonl().split("\n")[:-1])]


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999"])
def test_a_non_finite_price_from_the_text_parser_is_refused(value):
    """The same through a command line: refused, nothing recorded as a number."""
    world, name = _priced_world()
    out = _answered_without_change(world, lambda: world.execute(f"price_set --product-name {shlex.quote(name)} "
                                                                f"--price {value}", driven=True))
    assert "expects a number" in out["error"]


def test_python_callers_get_the_same_refusal():
    """``world.call`` validates as tool calls do: NaN raises a CommandError, nothing is recorded as accepted."""
    from bizsim.simcore.errors import CommandError

    world, name = _priced_world()
    with pytest.raises(CommandError, match="expects a number"):
        world.call("price_set", product_name=name, price=math.nan)
    world.trajectory.to_jsonl()


@pytest.mark.parametrize("value", [MAX_INT + 1, -(MAX_INT + 1), 10**5000], ids=["2^63", "-2^63-1", "5001-digits"])
def test_integers_past_64_bits_are_refused(value):
    """An integer argument past 64 bits is refused before it reaches a world (or a JSON writer)."""
    world = make_fresh_world("startup")
    out = _answered_without_change(world, lambda: world.execute_tool("market_browse", {"limit": value}, driven=True))
    assert "error" in out


def test_text_past_the_kernel_limit_is_refused():
    """A text argument with no declared limit is refused past MAX_TEXT_CHARS characters."""
    world = make_fresh_world("operation")
    out = _answered_without_change(world, lambda: world.execute_tool("help", {"command": "x" * (MAX_TEXT_CHARS + 1)}, driven=True))
    assert f"the limit is {MAX_TEXT_CHARS}" in out["error"]


def test_a_line_past_the_limit_is_refused_unread():
    """A command line longer than MAX_LINE_CHARS is refused before it is split."""
    world = make_fresh_world("freelance")
    out = world.execute("help --command " + "x" * MAX_LINE_CHARS, driven=True)
    assert "limit is" in out["error"]


@pytest.mark.parametrize("line", [
    "help --command " + "x" * 1_000_000, "help --command '" + "x" * 1_000_000 + "'",
    'help --command "' + "\\x" * 500_000 + '"', "help --command " + "\\x" * 500_000,
], ids=["bare", "single", "double-escapes", "bare-escapes"])
def test_a_megabyte_token_is_split_without_a_hang(line):
    """shlex took about a minute on a 1 MB token (quadratic); the splitter is linear."""
    world = make_fresh_world("startup")
    with no_hang("splitting a 1 MB token"):
        out = world.execute(line, driven=True)
    assert "error" in out


_LINE_ALPHABET = st.sampled_from(["a", "b", " ", "\t", "\n", "\r", "'", '"', "\\", "\x0b", "\x0c", "\u2028", "\xa0",
                                  "=", "-", "#", "é", "--x"])


@fuzz(300)
@given(st.lists(_LINE_ALPHABET, max_size=24).map("".join))
def test_the_splitter_is_shlex(line):
    """``split_line`` gives ``shlex.split``'s words, or its error message."""
    try:
        expected: object = shlex.split(line)
    except ValueError as exc:
        expected = str(exc)
    try:
        actual: object = split_line(line)
    except ValueError as exc:
        actual = str(exc)
    assert expected == actual


@pytest.mark.parametrize("name", WORLD_NAMES)
@fuzz(40)
@given(data=st.data())
def test_hostile_command_lines_are_answered_and_refusals_change_nothing(name, data):
    """Command lines with NaN, huge numbers, huge or odd text and broken quoting, for every world."""
    world = make_fresh_world(name)
    names = tuple(s.name for s in world.commands.visible())
    flags = tuple(sorted({p.flag for s in world.commands for p in s.params}))
    line = data.draw(hostile_lines(names, flags))
    with no_hang(f"{name}: {line[:60]!r}"):
        _answered_without_change(world, lambda: world.execute(line, driven=True))


@pytest.mark.parametrize("name", WORLD_NAMES)
@fuzz(40)
@given(data=st.data())
def test_hostile_tool_calls_are_answered_and_refusals_change_nothing(name, data):
    """Tool calls with non-finite and huge numbers, deep nesting, huge and odd text, for every world."""
    world = make_fresh_world(name)
    tool, arguments = data.draw(tool_calls(world.commands))
    with no_hang(f"{name}: {tool[:60]!r}"):
        _answered_without_change(world, lambda: world.execute_tool(tool, arguments, driven=True))


@pytest.mark.parametrize("depth", [64, 65, 20_000])
def test_deep_items_from_a_python_caller_are_refused(depth):
    """vending order_place with ``items`` a Python list nested 20,000 deep: json.dumps recursed out of the tool
    call (found by the slow fuzz profile); deeper than JSON's 64 levels it is refused as not text."""
    from .strategies import _nested

    world = make_fresh_world("vending")
    out = _answered_without_change(world, lambda: world.execute_tool("order_place", {"items": _nested(depth)}, driven=True))
    assert "error" in out


@pytest.mark.parametrize("preset", ["small", "reference"])
@pytest.mark.parametrize("extra", ["NaN", "Infinity", "-Infinity", '{"deep": [1, NaN]}'])
def test_a_non_finite_number_nested_in_order_items_is_refused_before_the_order(preset, extra):
    """A NaN in an extra key of an order_place item was accepted and the order charged; the trajectory then could
    not be written (and a live episode raised after the world changed). It is refused, nothing changes."""
    world = VendingWorld(preset, seed=1)
    name = world.execute_tool("products_research", {"query": "water"}, driven=True)["products"][0]["name"]
    items = '[{"name": %s, "quantity": 1, "note": %s}]' % (json.dumps(name), extra)
    for run in (lambda: world.execute_tool("order_place", {"items": items}, driven=True),
                lambda: world.execute(f"order_place --items {shlex.quote(items)}", driven=True)):
        out = _answered_without_change(world, run)
        assert "invalid_number" == out["error_type"] and '[0]["note"]' in out["error"]


def test_a_nan_quantity_keeps_the_references_refusal():
    """The reference refuses a NaN quantity as invalid_quantity; the finiteness check comes after its checks."""
    world = VendingWorld("reference", seed=1)
    name = world.execute_tool("products_research", {"query": "water"}, driven=True)["products"][0]["name"]
    out = world.execute_tool("order_place", {"items": '[{"name": %s, "quantity": NaN}]' % json.dumps(name)},
                             driven=True)
    assert "invalid_quantity" == out["error_type"]


def _string_params():
    from bizsim.simcore.registry import world_spec

    for name in WORLD_NAMES:
        for spec in world_spec(name).world_class().commands.visible():
            for p in spec.params:
                if p.type is str:
                    yield name, spec.name, p.name


@pytest.mark.parametrize(("world_name", "command", "param"), list(_string_params()))
def test_a_refusal_quotes_at_most_about_200_characters_of_a_huge_argument(world_name, command, param):
    """`task inspect --task-id` with 199,000 characters answered (and recorded) 200,094 characters; every text
    argument of every world, at its own limit, now draws a refusal that quotes about 200 of them."""
    world = make_fresh_world(world_name)
    spec = world.commands[command]
    args = {p.name: "x" for p in spec.params if p.required and p.type is str}
    args.update({p.name: 1 for p in spec.params if p.required and p.type in (int, float)})
    target = next(p for p in spec.params if p.name == param)
    args[param] = "Z" * min(199_000, target.max_length or 199_000)
    out = _answered_without_change(world, lambda: world.execute_tool(spec.tool_name, args, driven=True))
    if isinstance(out, dict) and "error" in out:
        assert json.dumps(out).count("Z") <= 400
        # The trajectory records the argument once (the call), not again in its refusal.
        assert len(world.trajectory.to_jsonl()) < len(args[param]) + _MAX_REFUSAL_CHARS


@pytest.mark.parametrize("line", ["bot take", "yc-bench bot take", "bot take --task-id X", "bot take --bogus 1",
                                  "bot wait --now"])
def test_a_hidden_command_is_unknown_whatever_its_options(line, tmp_path):
    """`bot take` with no options answered its usage (`Missing option --task-id`), telling an agent the hidden
    command exists, while `bot take --task-id X` was "Unknown command"; both are unknown now, on the kernel and on
    the live surfaces, and the run still verifies."""
    from bizsim.runs.live import Episode
    from bizsim.runs.verify import verify_run_dir
    from bizsim.models.startup import StartupWorld

    name = " ".join(line.removeprefix("yc-bench ").split()[:2])
    world = StartupWorld("reference", 1)
    out = _answered_without_change(world, lambda: world.execute(line, driven=True))
    assert {"error": f"Unknown command '{name}'."} == {"error": out["error"]}
    episode = Episode("startup", "reference", 1, out=tmp_path / "run", surface="shell")
    try:
        outcome = episode.call_line(line)
        assert f"Unknown command '{name}'." == outcome.result["error"] and "--task-id" not in outcome.text()
    finally:
        episode.close("done")
    assert verify_run_dir(tmp_path / "run").ok
