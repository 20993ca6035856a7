"""The published YC-Bench results kept in the package: the numbers as the project page publishes them, with source."""

from __future__ import annotations

import pytest
from bizsim.analysis.published import (
    paper_differences, published_caveats, published_final_funds, published_funds, published_paper, published_source,
)
from bizsim.simcore.errors import ConfigError


def test_the_source_is_named():
    """Where the numbers come from: the project page, as kept in the reference repository at a commit."""
    source = published_source()
    assert ("https://collinear-ai.github.io/yc-bench/", "6b33452", 3) == (source["url"], source["commit"], source["seeds"])
    assert ["docs/index.html", "docs/static/data.json"] == source["files"]


def test_monthly_mean_funds_are_the_pages():
    """Nineteen models, twelve month labels each; a few points pinned to the page's data (the first release's
    models start at $200,000 in January, the six added later do not)."""
    funds = published_funds()
    assert 19 == funds["model"].nunique() and {12} == set(funds.groupby("model").size())
    at = funds.set_index(["model", "month"])["funds_usd"]
    assert (200000.0, 227990.53) == (at["glm-5", "2025-01"], at["claude-opus-4-7", "2025-01"])
    assert 214138.36000000002 == at["glm-5", "2025-02"]
    assert 18466.49 == at["qwen3.5-397b-a17b", "2025-06"]
    assert 1714511 == round(at["claude-opus-4-7", "2025-12"])


def test_final_funds_are_the_leaderboards():
    """The leaderboard's order, its rounded net worth and its bankruptcies; the last chart point rounds to it."""
    table = published_final_funds()
    assert ["claude-opus-4-7", "glm-5.1", "claude-opus-4-6"] == table["model"].head(3).tolist()
    rows = table.set_index("model")
    assert ("Kimi K2.6", "$511K", 1, 3) == tuple(rows.loc["kimi-k2.6", ["name", "final_funds_shown", "bankrupt_seeds", "seeds"]])
    assert (0.0, 3) == (rows.loc["greedy_bot", "final_funds_usd"], rows.loc["greedy_bot", "bankrupt_seeds"])
    assert "$1.27M" == rows.loc["claude-opus-4-6", "final_funds_shown"] and 1269734 == round(rows.loc["claude-opus-4-6", "final_funds_usd"])


def test_models_are_chosen_by_key_or_name():
    """A model is named by the page's key or its display name; an unknown one is refused with the list."""
    assert ["glm-5", "claude-opus-4-6"] == published_funds(["GLM-5", "claude-opus-4-6"])["model"].unique().tolist()
    with pytest.raises(ConfigError, match=r"'gpt-4' is not among the published YC-Bench results; choose from .*glm-5"):
        published_funds(["gpt-4"])


def test_the_caveats_are_kept_with_their_sources():
    """The page's other configuration and its disagreement with the paper are stated, each with its source."""
    caveats = published_caveats()
    assert all(c["text"] and c["source"] for c in caveats)
    assert any("--config medium" in c["text"] for c in caveats)
    assert any("paper" in c["text"] and "disagree" in c["text"] for c in caveats)
    paper = published_paper()
    assert "https://arxiv.org/abs/2604.01212" == paper["url"] and "not checked" in paper["obtained"]


def test_the_papers_numbers_stand_beside_the_pages():
    """Where the paper differs (issue 43 item 8): Table 4's bankruptcies and the text's final funds, each with its
    place in the paper, beside the page's own; models the issue does not name keep none."""
    differ = {(d["model"], d["figure"]): (d["page"], d["paper"], d["source"]) for d in paper_differences()}
    for key in ("gpt-5.4-mini", "qwen3.5-397b-a17b", "gemini-3.1-pro-preview", "gpt-5.4-nano"):
        assert (1, 2, "Table 4") == differ[key, "bankrupt_seeds"]
    assert ("$25K", "$14K", "text") == differ["grok-4.20-beta", "final_funds_shown"]
    assert ("$104K", "$103K", "text") == differ["claude-sonnet-4-6", "final_funds_shown"]
    assert 6 == len(differ)
    board = published_final_funds().set_index("model")
    assert (1, 2, "Table 4") == (board.loc["gpt-5.4-nano", "bankrupt_seeds"], board.loc["gpt-5.4-nano", "paper_bankrupt_seeds"],
                                 board.loc["gpt-5.4-nano", "paper_bankrupt_seeds_source"])
    assert ("$25K", "$14K", "text") == tuple(board.loc["grok-4.20-beta", ["final_funds_shown", "paper_final_funds_shown",
                                                                          "paper_final_funds_source"]])
    assert board.loc["glm-5", ["paper_bankrupt_seeds", "paper_final_funds_shown"]].isna().all()
