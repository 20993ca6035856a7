"""Agent-sent JSON is read the same on every interpreter: deep nesting is invalid JSON, never a RecursionError."""

from __future__ import annotations

import json

import pytest
from bizsim.agents.llm.protocols._calls import parse_arguments
from bizsim.models.vending import VendingWorld
from bizsim.simcore.untrusted_json import MAX_DEPTH, loads_untrusted
from hypothesis import given
from hypothesis import strategies as st

_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.text(alphabet=st.sampled_from('ab[]{}"\\ \n'), max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=20,
)


@given(_json)
def test_ordinary_json_reads_as_json_loads_reads_it(value):
    """Brackets and quotes inside strings do not count as nesting; the result is json.loads'."""
    text = json.dumps(value)
    assert json.loads(text) == loads_untrusted(text) == loads_untrusted(text.encode())


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _at_stack_depth(n: int, fn):
    return fn() if n == 0 else _at_stack_depth(n - 1, fn)


@pytest.mark.parametrize("stack", [0, 800])
def test_the_depth_limit_is_the_same_however_deep_the_caller_is(stack):
    """64 levels read; 65 are refused, at the first bracket too many, even from a caller 800 frames deep."""
    assert [[]] == _at_stack_depth(stack, lambda: loads_untrusted(_nested(2)))
    assert _at_stack_depth(stack, lambda: loads_untrusted(_nested(MAX_DEPTH))) is not None
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(json.JSONDecodeError, match="Nesting deeper than 64") as info:
            _at_stack_depth(stack, lambda d=depth: loads_untrusted(_nested(d)))
        assert MAX_DEPTH == info.value.pos
    assert ["[" * 1000] == loads_untrusted(json.dumps(["[" * 1000]))  # inside a string: text, not nesting


def test_deep_tool_arguments_are_json_errors_in_the_world_and_the_llm_harness():
    """A tool call whose arguments nest 100,000 deep: a JSON error that changes nothing, and a message to the model."""
    deep = _nested(100_000)
    world = VendingWorld("default", 1)
    before = world.state()
    out = world.execute_tool("order_place", deep, driven=True)
    assert "not valid JSON" in out["error"] and before == world.state()
    out = world.execute_tool("order_place", json.dumps({"items": _nested(5000)}), driven=True)
    assert ("error", "invalid_json") == (out["status"], out["error_type"]) and before == world.state()
    args, error = parse_arguments('{"command": ' + deep + "}", "run_command")
    assert args is None and "Nesting deeper than 64 levels" in error


def _deepest_by_hand(text: str, max_depth: int) -> int | None:
    """The depth scan as a reader does it, character by character (what the regex fast path must agree with)."""
    depth, in_string, escaped = 0, False, False
    for pos, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                return pos
        elif ch in "]}" and depth:
            depth -= 1
    return None


@given(st.text(alphabet='[]{}"\\a\n', max_size=60), st.integers(0, 6))
def test_the_fast_depth_check_finds_what_a_scan_by_hand_finds(text, max_depth):
    from bizsim.simcore.untrusted_json import _too_deep_at

    assert _deepest_by_hand(text, max_depth) == _too_deep_at(text, 0, max_depth)
