"""Answer checker edges: a percent sign is not a fraction, and the last marker with a number wins."""

from __future__ import annotations

from bizsim.models.freelance import Answer, check


def test_a_fraction_written_with_a_percent_sign_is_not_the_percentage():
    """For 12.5%, '0.125' is the fraction and passes; '0.125%' is a hundredth of the answer and fails."""
    a = Answer("number", "12.5%", 12.5, 0.05, percent=True)
    assert check(a, "12.5%") and check(a, "0.125") and check(a, "The answer is 0.125")
    assert not check(a, "0.125%") and not check(a, "The answer is 0.125%")


def test_a_later_marker_overrides_an_earlier_one():
    """'Answer: 41. On reflection, the final answer: 42' answers 42, not 41."""
    text = "Answer: 41. On reflection, the final answer: 42"
    assert check(Answer("number", "42", 42.0, 0.0), text)
    assert not check(Answer("number", "41", 41.0, 0.0), text)
