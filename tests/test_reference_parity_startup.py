"""Startup preset ``reference``: the reference command line's error paths (issue 23, item 11)."""

from __future__ import annotations

import json

import pytest
from bizsim.models.startup import StartupWorld
from bizsim.simcore import CommandError

from .llm_policies import calls
from .test_llm_protocol import _tool_messages, play, scripted


@pytest.fixture
def ref() -> StartupWorld:
    """A fresh world on preset ``reference``."""
    return StartupWorld("reference", 1)


@pytest.mark.parametrize(("line", "limit", "offset"), [
    ("market browse --limit 0", 0, 0),
    ("market browse --limit -5", -5, 0),
    ("market browse --limit 2 --offset -3", 2, -3),
])
def test_market_browse_answers_any_limit_and_offset(ref, line, limit, offset):
    """A limit below 1 still shows one task; a negative offset skips none and is reported as given."""
    out = ref.execute(line, driven=True)
    assert (min(max(limit, 1), 2), limit, offset) == (out["total"], out["limit"], out["offset"])
    assert ref.execute("market browse --limit 1", driven=True)["tasks"][0] == out["tasks"][0]


def test_elsewhere_market_browse_refuses_a_limit_below_one():
    """bizsim's own bounds."""
    w = StartupWorld("default", 1)
    assert "error" in w.execute("market browse --limit 0", driven=True)
    assert "error" in w.execute("market browse --offset -1", driven=True)


def test_an_option_given_twice_takes_its_last_value(ref):
    """As the reference's parser (click) does."""
    assert 1 == ref.execute("yc-bench market browse --limit 3 --limit 1", driven=True)["limit"]
    assert "b" == ref.execute("scratchpad write --content a --content b", driven=True)["content"]
    assert "error" in StartupWorld("default", 1).execute("market browse --limit 3 --limit 1")


@pytest.mark.parametrize("line", [
    "finance ledger --from 13/45/2025", "finance ledger --to 2025-01-01", "finance ledger --from ''",
    "report monthly --from-month 2025/01", "report monthly --to-month 13", "report monthly --from-month ''",
])
def test_a_malformed_date_is_a_usage_error(ref, line):
    """Refused while the line is parsed (the harness's exit 2, nothing on stdout); a month is called a month."""
    with pytest.raises(CommandError) as caught:
        ref.commands.parse(line)
    assert ("month" in caught.value.message) == line.startswith("report")


def test_elsewhere_a_malformed_date_is_the_commands_refusal_and_an_empty_month_is_none():
    """bizsim's own: the line parses, the command refuses it; ``--from-month ''`` reads as no bound."""
    w = StartupWorld("default", 1)
    w.commands.parse("finance ledger --from 13/45/2025")
    assert "error" in w.execute("finance ledger --from 13/45/2025", driven=True)
    assert "error" not in w.execute("report monthly --from-month ''", driven=True)


def test_the_harness_gives_a_malformed_date_exit_2_and_no_stdout():
    """Through YC-Bench's executor result, as the model sees it."""
    first = calls("yc-bench finance ledger --from 2025-13-01", "yc-bench report monthly --from-month ''")
    _, _, rec = play(scripted(first), preset="reference", max_turns=2)
    for message in map(json.loads, _tool_messages(rec, 2)):
        assert (False, 2, "") == (message["ok"], message["exit_code"], message["stdout"])


def test_sim_init_says_a_simulation_exists(ref):
    """A complete ``sim init`` is refused because the run has its simulation; an incomplete one is a usage error."""
    out = ref.execute("yc-bench sim init --seed 1 --start-date 01/01/2025 --company-name Acme", driven=True)
    # The reference's words (yc_bench/cli/sim_commands.py), as the spec promises its messages.
    assert "A simulation already exists. Only one simulation per database is supported." == out["error"]
    with pytest.raises(CommandError):
        ref.commands.parse("yc-bench sim init --seed 1 --start-date 2025-01-01 --company-name Acme")
    assert "Unknown command" in StartupWorld("default", 1).execute("sim init")["error"]


def test_help_is_no_command(ref):
    """``yc-bench help`` is an unknown command in the reference (``--help`` is the harness's)."""
    assert "Unknown command 'help'." == ref.execute("yc-bench help", driven=True)["error"]
    assert "help" in StartupWorld("default", 1).execute("yc-bench help")


def test_the_scratchpad_keeps_bizsims_documented_limit(ref):
    """100,000 characters on every preset (the README lists it among the deliberate differences)."""
    assert "error" in ref.execute("scratchpad write --content " + "x" * 100_001, driven=True)


def test_integer_options_past_64_bits_are_a_listed_difference(ref):
    """`market browse --limit 99999999999999999999999`: the reference answers (exit 0), bizsim refuses it as a usage
    error (exit 2); the startup page lists it and the differential script counts such calls apart."""
    from pathlib import Path

    from benchmarks.fidelity.startup import _PAST_64_BITS

    line = "yc-bench market browse --limit 99999999999999999999999"
    with pytest.raises(CommandError, match="must lie in"):
        ref.commands.parse(line)
    page = (Path(__file__).resolve().parents[1] / "docs" / "worlds" / "startup.md").read_text(encoding="utf-8")
    assert "`market browse --limit 99999999999999999999999`" in page and "past 64 bits" in page
    assert _PAST_64_BITS.search(line) and _PAST_64_BITS.search("yc-bench market browse --reward-min-cents " + "9" * 20)
