"""The smaller defects of issue 44 (item 6): each refused or kept as the threat model and the docs say."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from bizsim.simcore.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_a_lone_surrogate_in_play_notes_is_kept_as_u_fffd(tmp_path):
    """The notes were stored as sent; the threat model promises U+FFFD for every lone surrogate a surface takes."""
    from bizsim.runs.rundir import read_record
    from bizsim.surfaces.play import PlaySession

    session = PlaySession("operation", "default", 1, out=tmp_path / "run", player="ann",
                          overrides={"horizon_days": 6})
    session.save_notes("left \ud800 right \udfff")
    session.close()
    notes = read_record(tmp_path / "run").live["metadata"]["notes"]
    assert "left \ufffd right \ufffd" == notes


@pytest.mark.parametrize(("window", "rule"), [
    (10**30, r"turns\(=an integer of 100 bits\) must be an integer >= 1 and at most 9223372036854775807"),
    ({"turns": 2**63}, r"must be an integer >= 1 and at most 9223372036854775807"),
    ({"days": 1e300}, r"days\(=1e\+300\) must be a finite number > 0 and at most 106,751,991"),
])
def test_a_window_past_64_bits_is_refused(window, rule):
    """load_environment(window=10**30) was accepted; every surface's window is read by Window, which refuses it."""
    from bizsim.agents.start import Window

    with pytest.raises(ConfigError, match=rule):
        Window.of(window)
    pytest.importorskip("verifiers")
    from bizsim.surfaces.verifiers_env import load_environment

    with pytest.raises(ConfigError, match=rule):
        load_environment(world="operation", window=window)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_an_items_array_holding_a_non_finite_number_is_invalid_number(bad):
    """A tool call whose items is a JSON array (not its text) holding NaN or Infinity was refused as "expects
    text"; it is refused as the same items written as text are: invalid_number, the world unchanged."""
    from bizsim.models.vending import VendingWorld

    world = VendingWorld("default", 1)
    name = world.execute("products_research --query water")["products"][0]["name"]
    before = world.summary()
    as_array = world.execute_tool("order_place", {"items": [{"name": name, "quantity": 2, "note": bad}]},
                                  driven=True)
    written = "NaN" if math.isnan(bad) else ("Infinity" if bad > 0 else "-Infinity")
    as_text = world.execute(f"order_place --items '[{{\"name\": \"{name}\", \"quantity\": 2, \"note\": {written}}}]'")
    assert "invalid_number" == as_array.get("error_type") == as_text.get("error_type"), as_array
    assert before == world.summary()


def test_the_docs_state_the_64_bit_bound_of_integer_options():
    """"20 digits or more" was wrong: the bound is +-(2^63 - 1), so 19-digit values past it are refused too."""
    page = (ROOT / "docs" / "worlds" / "startup.md").read_text(encoding="utf-8")
    assert "20 digits or more" not in page and "2^63 - 1" in page


def test_the_freelance_exhausted_bank_warning_fields_are_a_listed_difference():
    page = (ROOT / "docs" / "worlds" / "freelance.md").read_text(encoding="utf-8")
    differences = page.split("## What preset `reference` still does differently, on purpose", 1)[1]
    assert "`added_count`" in differences and "`current_pool_size`" in differences


def test_the_fidelity_readme_links_to_a_section_that_exists():
    """benchmarks/fidelity/README.md pointed to a section of the main README that no longer exists."""
    readme = (ROOT / "benchmarks" / "fidelity" / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((\.\./\.\./docs/[^)#]+)#([^)]+)\)", readme)
    assert links
    for path, anchor in links:
        page = (ROOT / "benchmarks" / "fidelity" / path).resolve().read_text(encoding="utf-8")
        headings = [re.sub(r"[^\w\- ]", "", h.lower()).strip().replace(" ", "-")
                    for h in re.findall(r"^#+ (.+)$", page, re.M)]
        assert anchor in headings, (anchor, headings)
