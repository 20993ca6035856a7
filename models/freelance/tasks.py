"""Tasks and task banks: generated (lazily, from the seed) or loaded from the reference's ``tasks.jsonl``."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import read_text_file
from bizsim.simcore.untrusted_json import loads_untrusted

from .answers import Answer, check, normalize_text
from .generate import CATEGORIES, COMPLEXITIES, build_task_text, price_and_effort

__all__ = ["FALLBACK_EFFORT", "FALLBACK_PAYMENT_CENTS", "Task", "TaskBank", "generate_bank", "load_reference_tasks"]

#: The reference's price when nothing prices a task: $5.00 and effort 5.
FALLBACK_PAYMENT_CENTS = 500
FALLBACK_EFFORT = 5.0
#: Share of Low / Medium / High tasks (close to the reference data's 337 / 589 / 74 per 1000).
_COMPLEXITY_CUT = (0.35, 0.85)
_ROW = 16


class Task:
    """One task: what the worker sees (category, complexity, question, price) and the hidden answer."""

    __slots__ = (
        "_answer",
        "_make",
        "_question",
        "category",
        "complexity",
        "effort",
        "eval_method",
        "id",
        "payment_cents",
        "source",
    )

    def __init__(self, id: int, category: str, complexity: str, question: str | None, answer: Answer | None,
                 payment_cents: int | None, effort: float | None, eval_method: str = "Extract_Match",
                 source: str = "bizsim", make: Callable[[], tuple[str, Answer]] | None = None) -> None:
        if (question is None or answer is None) and make is None:
            raise ValueError("a task needs its question and answer, or make() to build them")
        self.id, self.category, self.complexity = id, category, complexity
        self._question, self._answer, self._make = question, answer, make
        self.payment_cents, self.effort = payment_cents, effort
        self.eval_method, self.source = eval_method, source

    def _build(self) -> None:
        assert self._make is not None
        self._question, self._answer = self._make()
        self._make = None

    @property
    def question(self) -> str:
        """The task's text (generated tasks write it on first read)."""
        question = self._question
        if question is None:
            self._build()
            question = self._question
        return question  # type: ignore[return-value]

    @property
    def answer(self) -> Answer:
        """The hidden canonical answer."""
        answer = self._answer
        if answer is None:
            self._build()
            answer = self._answer
        return answer  # type: ignore[return-value]

    def checks(self, solution: str) -> bool:
        """The deterministic verdict on ``solution`` (``LLM_Judge`` rows of loaded files: the reference's
        keyword rule, reference answer contained in the solution)."""
        if self.eval_method == "LLM_Judge":
            ref = normalize_text(self.answer.text)
            return bool(ref) and ref in normalize_text(solution)
        return check(self.answer, solution)


class TaskBank:
    """A fixed list of tasks, built on first use. ``len(bank)`` tasks exist; ids are ``0..len-1``."""

    def __init__(self, size: int, builder) -> None:
        self._size = size
        self._builder = builder
        self._tasks: dict[int, Task] = {}

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, task_id: int) -> Task:
        task = self._tasks.get(task_id)
        if task is None:
            if not 0 <= task_id < self._size:
                raise KeyError(task_id)
            task = self._tasks[task_id] = self._builder(task_id)
        return task

    def meta(self, task_id: int) -> tuple[str, str]:
        """Category and complexity of a task (built if needed)."""
        t = self[task_id]
        return t.category, t.complexity


def generate_bank(size: int, rng: np.random.Generator, categories: tuple[str, ...] = CATEGORIES) -> TaskBank:
    """``size`` generated tasks; row ``i`` of one block of uniforms makes task ``i``.

    A task is built when first asked for (most episodes meet a fraction of the
    bank), its text only when first read.
    """
    block = rng.random((size, _ROW))
    lo, hi = _COMPLEXITY_CUT

    def build(i: int) -> Task:
        row = block[i].tolist()
        category = categories[min(len(categories) - 1, int(row[0] * len(categories)))]
        complexity = COMPLEXITIES[0 if row[1] < lo else 1 if row[1] < hi else 2]
        cents, effort = price_and_effort(category, complexity, row[2], row[3])
        return Task(i, category, complexity, None, None, cents, effort,
                    make=lambda: build_task_text(category, complexity, row[4:]))

    return TaskBank(size, build)


def _answer_for(text: str) -> Answer:
    from .answers import written_number

    return written_number(text) or Answer("text", text.strip())


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int) -> TaskBank:
    return load_reference_tasks(path, cache=False)


def load_reference_tasks(path: str | Path, *, cache: bool = True) -> TaskBank:
    """Read a ``tasks.jsonl`` in the reference's format (one task a line; the id is the line index).

    Fields read: ``category``, ``complexity``, ``question``, ``answer``,
    ``eval_method``, ``init_payment``, ``init_effort`` (``null``: unpriced,
    the auditor prices it), ``source``. Short answers of ``Extract_Match``
    rows that hold one number are compared as numbers, others as text.
    Loaded banks are read-only and cached by path and modification time.

    Raises:
        ConfigError: the file is missing or a line is not a task.
    """
    p = Path(path)
    if cache:
        try:
            return _load_cached(str(p.resolve()), p.stat().st_mtime_ns)
        except OSError:
            pass  # reported below
    # Read no further than the data-file limit: tasks_path = "/dev/zero" read until memory ran out.
    # Lines end at "\n" only: JSON text may hold U+2028 and other characters splitlines() would break at.
    lines = [ln for ln in read_text_file(p, "tasks_path").split("\n") if ln.strip()]
    tasks: list[Task] = []
    for n, line in enumerate(lines):
        try:
            row = loads_untrusted(line)  # a line nested past 64 levels is not a task (json.loads recursed out)
            question, answer = str(row["question"]), str(row["answer"])
        except (ValueError, KeyError, TypeError):
            raise ConfigError(f"{p.name} line {n + 1} is not a task: it needs JSON with 'question' and 'answer'") from None
        complexity = row.get("complexity") if row.get("complexity") in COMPLEXITIES else "Medium"
        pay, effort = row.get("init_payment"), row.get("init_effort")
        for key, value in (("init_payment", pay), ("init_effort", effort)):
            if isinstance(value, float) and not math.isfinite(value):  # JSON's NaN and Infinity: no payment rule holds
                raise ConfigError(f"{p.name} line {n + 1}: {key}(={value!r}) must be a finite number or null")
        try:
            cents = round(float(pay) * 100) if isinstance(pay, (int, float)) and pay > 0 else None
            eff = float(effort) if isinstance(effort, (int, float)) and effort > 0 else None
        except OverflowError:  # an integer past float's range
            raise ConfigError(f"{p.name} line {n + 1}: init_payment(={pay!r:.40}) or init_effort(={effort!r:.40}) "
                              "is too large to be a number of dollars or an effort") from None
        method = "LLM_Judge" if row.get("eval_method") == "LLM_Judge" else "Extract_Match"
        ans = _answer_for(answer) if method == "Extract_Match" else Answer("text", answer)
        tasks.append(Task(n, str(row.get("category") or "Other_Fields"), complexity, question, ans, cents, eff, method,
                          str(row.get("source") or "")))
    if not tasks:
        raise ConfigError(f"{p.name} holds no tasks")
    return TaskBank(len(tasks), tasks.__getitem__)
