"""The answer checker and the task generator: canonical answers pass, reformatted ones pass, wrong ones fail."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bizsim.agents.freelance_baselines import solve
from bizsim.models.freelance import (
    CATEGORIES,
    COMPLEXITIES,
    Answer,
    check,
    generate_bank,
    load_reference_tasks,
    numbers_in,
    price_and_effort,
)
from bizsim.simcore.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

SEEDS = st.integers(0, 2**32 - 1)
INDEX = st.integers(0, 199)


def task_of(seed: int, index: int):
    """Task ``index`` of a 200-task bank generated from ``seed``."""
    return generate_bank(200, np.random.default_rng(seed))[index]


def reformat(answer: Answer, style: int) -> str:
    """The canonical answer written another way a person might write it."""
    text = answer.text
    if answer.kind == "number":
        v = answer.value
        styles = [f"{v:,.2f}", f"  {text}  ", f"The answer is {text}.", f"Working: 3 + 4 = 7.\nFinal answer: {text}",
                  f"${v:,.2f}" if v >= 0 else f"-${-v:,.2f}", f"{v:.4f} units"]
        return styles[style % len(styles)]
    if answer.kind == "sequence":
        inner = text.strip("[]")
        return [inner, f"Output: {text}", text.replace(", ", ","), f"[ {inner} ]\n"][style % 4]
    return [text.lower(), text.upper(), f"  {text}. ", f"Answer: {text}"][style % 4]


def wrong(answer: Answer) -> str:
    """An answer that must fail."""
    if answer.kind == "number":
        v = answer.value
        return f"{v + max(1.0, abs(v) * 0.05):.2f}"
    if answer.kind == "choice":
        return next(o for o in answer.options if o != answer.text)
    if answer.kind == "sequence":
        return answer.text.replace("]", ", 999]")
    return answer.text[::-1] + "X"


@given(seed=SEEDS, index=INDEX)
@settings(max_examples=150)
def test_every_canonical_answer_passes_its_checker(seed, index):
    """The canonical answer, as text, passes its own checker."""
    task = task_of(seed, index)
    assert task.checks(task.answer.text)


@given(seed=SEEDS, index=INDEX, style=st.integers(0, 11))
@settings(max_examples=200)
def test_reformatted_answers_pass(seed, index, style):
    """Commas, a dollar sign, units, case, surrounding words and whitespace do not matter."""
    task = task_of(seed, index)
    assert task.checks(reformat(task.answer, style)), reformat(task.answer, style)


@given(seed=SEEDS, index=INDEX)
@settings(max_examples=150)
def test_wrong_answers_fail(seed, index):
    """A different number, another name, a longer list or another word fails; so does an empty answer."""
    task = task_of(seed, index)
    assert not task.checks(wrong(task.answer))
    assert not task.checks("")
    assert not task.checks("   \n")


@given(seed=SEEDS)
@settings(max_examples=30)
def test_banks_cover_every_category_and_level_with_sane_prices(seed):
    """A 400-task bank holds every category and level; payment and effort grow with the level."""
    bank = generate_bank(400, np.random.default_rng(seed))
    tasks = [bank[i] for i in range(len(bank))]
    assert set(CATEGORIES) == {t.category for t in tasks}
    assert set(COMPLEXITIES) == {t.complexity for t in tasks}
    for t in tasks:
        assert 1.0 <= t.effort <= 10.0 and 100 <= t.payment_cents <= 10_000
        json.dumps(t.question)


def test_generation_is_a_function_of_seed_and_index():
    """The same seed and index give the same task; the text is built only when read."""
    a, b = task_of(7, 42), task_of(7, 42)
    assert (a.question, a.answer, a.payment_cents) == (b.question, b.answer, b.payment_cents)
    assert task_of(8, 42).question != a.question or task_of(8, 42).category != a.category


def test_price_and_effort_follow_category_and_level():
    """Effort from the level (the reference's fallback efforts) and category; dollars per effort by category."""
    assert (900, 3.0) == price_and_effort("Math_Logic", "Low", 0.5, 0.5)
    low, high = price_and_effort("Software_Dev", "Low", 0.5, 0.5), price_and_effort("Software_Dev", "High", 0.5, 0.5)
    assert high[0] > low[0] and high[1] > low[1]


@pytest.mark.parametrize("text, expected", [
    ("$1,234.50", [(1234.5, False)]), ("-$12", [(-12.0, False)]), ("$-12", [(-12.0, False)]),
    ("12.5 %", [(12.5, True)]), ("3.2e3 m", [(3200.0, False)]), ("no digits", []), ("v2", []),
])
def test_numbers_in_understands_formatting(text, expected):
    """Commas, currency, signs, percent, exponents; digits inside words are not numbers."""
    assert expected == numbers_in(text)


def test_marker_decides_which_number_counts():
    """After 'answer' the first number counts; without a marker, the last one."""
    a = Answer("number", "42", 42.0, 0.5)
    assert check(a, "6 x 7: the answer is 42 (not 41)")
    assert not check(a, "42 is what I first thought, but it is 41")
    assert check(a, "41 at first, then 42")


def test_percent_answers_accept_the_fraction():
    """A percentage may be given as a fraction."""
    a = Answer("number", "7.75%", 7.75, 0.006, percent=True)
    assert check(a, "7.75") and check(a, "0.0775") and check(a, "+7.75 %") and not check(a, "-7.75%")


def test_choice_needs_exactly_one_option():
    """Naming two candidates is not an answer."""
    a = Answer("choice", "Fay", options=("Ava", "Fay", "Kai"))
    assert check(a, "fay") and check(a, "The tallest is Fay.") and not check(a, "Fay or Ava")


def test_submission_text_is_never_evaluated():
    """Code in a submission is text: it matches nothing and runs nothing."""
    a = Answer("number", "225", 225.0, 0.5)
    assert not check(a, "__import__('os').system('false') or 15*15")


def test_the_cautious_solver_agrees_with_the_generator():
    """Every arithmetic and finance task the solver reads, it answers right."""
    bank = generate_bank(600, np.random.default_rng(3))
    solved = 0
    for i in range(len(bank)):
        t = bank[i]
        answer = solve(t.question)
        if t.category in ("Financial_Advisory", "Math_Logic"):
            assert answer is not None, t.question
        if answer is not None:
            solved += 1
            assert t.checks(answer), (t.question, answer, t.answer.text)
    assert solved > 200


def test_reference_loader_reads_a_tasks_file(tmp_path):
    """A tiny file in the reference's format loads: ids are line indexes, missing prices stay unpriced."""
    rows = [
        {"category": "Math_Logic", "source": "GSM8k_main_train", "complexity": "Low", "question": "2 + 2?",
         "answer": "4", "eval_method": "Extract_Match", "init_payment": None, "init_effort": None},
        {"category": "Legal_Consulting", "complexity": "High", "question": "Explain X.", "answer": "X is y",
         "eval_method": "LLM_Judge", "init_payment": 12.5, "init_effort": 7},
        {"category": "Other_Fields", "complexity": "Medium", "question": "Capital of France?", "answer": "Paris",
         "eval_method": "Extract_Match"},
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    bank = load_reference_tasks(path)
    assert 3 == len(bank)
    t0, t1, t2 = bank[0], bank[1], bank[2]
    assert ("Math_Logic", "Low", None, None) == (t0.category, t0.complexity, t0.payment_cents, t0.effort)
    assert t0.checks("The answer is 4.") and not t0.checks("5")
    assert (1250, 7.0, "LLM_Judge") == (t1.payment_cents, t1.effort, t1.eval_method)
    assert t1.checks("I think x is Y, because...") and not t1.checks("no idea")
    assert t2.checks("paris") and not t2.checks("Lyon")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "no answer"}\n')
    with pytest.raises(ConfigError, match="line 1"):
        load_reference_tasks(bad)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_reference_tasks(tmp_path / "missing.jsonl")


@pytest.mark.parametrize("module", ["bizsim.models.freelance.answers", "bizsim.models.freelance.generate",
                                    "bizsim.agents.freelance_baselines"])
def test_doctests(module):
    """The examples in the docstrings run."""
    import doctest
    import importlib

    assert 0 == doctest.testmod(importlib.import_module(module)).failed
