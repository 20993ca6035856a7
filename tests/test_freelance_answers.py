"""The answer checker and the task generator: canonical answers pass, reformatted ones pass, wrong ones fail."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bizsim.agents.freelance.baselines import solve
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


def test_the_marked_number_is_the_last_marker_that_has_one():
    """A marker with no number after it does not hide the answer; remarks in brackets are skipped."""
    a = Answer("number", "42", 42.0, 0.0)
    assert check(a, "The answer is 42, which is the result.")
    assert check(a, "It prints 42 as its output.")
    assert check(a, "Final answer (rounded to 2 decimal places): 42")
    assert not check(a, "Final answer (rounded to 2 decimal places): 2")


def test_a_typeset_minus_sign_is_a_minus():
    """U+2212, as typeset text writes it, negates: -25 is not 25."""
    assert [(-25.0, False), (0.03, False)] == numbers_in("answer: \u221225.00 and 3e\u22122")
    assert not check(Answer("number", "25.00", 25.0, 0.011), "answer: \u221225.00")
    assert check(Answer("number", "-25.00%", -25.0, 0.006, percent=True), "\u221225.00%")


def test_whole_number_answers_are_exact():
    """Change owed and a program's output are whole numbers: 42.5 is not 42 (rounded answers keep their slack)."""
    bank = generate_bank(400, np.random.default_rng(5))
    whole = [bank[i] for i in range(len(bank)) if bank[i].answer.kind == "number" and "." not in bank[i].answer.text]
    assert whole
    for t in whole:
        v = t.answer.value
        assert t.checks(f"{v:.0f}") and t.checks(f"{v:.1f}") and not t.checks(f"{v + 0.5}")
        assert not t.checks(f"{v - 0.4}")


@pytest.mark.parametrize("text, right, wrong", [
    ("30176", ["30176", "The answer is 30,176", "30176.0"], ["30179", "30174"]),
    ("$22,270,000", ["22270000", "$22.27e6"], ["22271000"]),
    ("3.1e-10", ["3.1e-10", "3.12e-10", "0.00000000031"], ["0", "3.2e-10"]),
    ("4.22e-24 cm", ["4.22e-24", "4.22e-24 cm"], ["0", "4.3e-24"]),
    ("2.0 mL", ["2 mL", "1.96"], ["2.1", "0"]),
    ("12.5%", ["12.5", "0.125"], ["13"]),
    ("v0/2", ["v0/2", "Answer: v0/2"], ["2", "0"]),
    ("-32\u03c0", ["-32\u03c0"], ["-32", "32"]),
    ("750+j1000 VA", ["750+j1000 VA"], ["750"]),
    ("decrease of 19.6 N", ["Decrease of 19.6 N"], ["increase of 19.6 N", "19.6"]),
    ("acidic; 2.0 mL", ["acidic; 2.0 mL"], ["basic; 2.0 mL", "2.0"]),
])
def test_reference_answers_that_are_one_number_compare_as_numbers_to_their_precision(tmp_path, text, right, wrong):
    """Loaded short answers: a number (with at most a unit) compares as a number within half a unit of its last
    written digit, whole numbers exactly; symbolic or worded answers compare as text."""
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"category": "Other_Fields", "question": "?", "answer": text,
                                "eval_method": "Extract_Match"}) + "\n")
    task = load_reference_tasks(path)[0]
    assert [s for s in right if not task.checks(s)] == [] and [s for s in wrong if task.checks(s)] == []


def test_the_loader_ends_lines_at_newlines_only(tmp_path):
    """JSON text may hold U+2028 raw (json.dumps(ensure_ascii=False) writes it); it does not split a task."""
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"question": "a\u2028b?", "answer": "x"}, ensure_ascii=False) + "\n", encoding="utf-8")
    bank = load_reference_tasks(path)
    assert 1 == len(bank) and "a\u2028b?" == bank[0].question


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
                                    "bizsim.agents.freelance.baselines"])
def test_doctests(module):
    """The examples in the docstrings run."""
    import doctest
    import importlib

    assert 0 == doctest.testmod(importlib.import_module(module)).failed
