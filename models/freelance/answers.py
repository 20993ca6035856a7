"""Answer checking tolerant of formatting: numbers with units or commas, case, whitespace.

A submission is text. It is parsed with regular expressions only: it is
never executed or evaluated as code.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["Answer", "check", "normalize_text", "numbers_in"]

_NUMBER = re.compile(r"(?<![\w.])(-)?\s*\$?\s*(-)?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE]([-+]?\d{1,3}))?(\s*%)?")
_MARKER = re.compile(r"\b(?:final\s+answer|answer|output|result)\s*(?:is|=|:)?", re.IGNORECASE)
_EDGE = " \t\r\n.;:!\"'`*"


@attrs.frozen
class Answer:
    """A task's canonical answer and how submissions are compared with it.

    ``kind``: ``number`` (``value`` within ``tolerance``; ``percent`` answers
    also accept the fraction), ``text`` (normalised equality with ``text`` or
    an alias), ``choice`` (exactly one of ``options`` named, and it is
    ``text``), ``sequence`` (the same list of words or numbers, any brackets
    and separators).
    """

    kind: str
    text: str
    value: float | None = None
    tolerance: float = 0.0
    percent: bool = False
    options: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def normalize_text(text: str) -> str:
    """Lower case, single spaces, no surrounding quotes or final full stop.

    >>> normalize_text('  "Hello   World." ')
    'hello world'
    """
    return " ".join(text.casefold().split()).strip(_EDGE)


def numbers_in(text: str) -> list[tuple[float, bool]]:
    """Every number written in ``text`` as ``(value, followed by %)``; commas, ``$`` and signs understood.

    >>> numbers_in("pay $1,234.50 then -3 and 12.5%")
    [(1234.5, False), (-3.0, False), (12.5, True)]
    """
    out = []
    for m in _NUMBER.finditer(text):
        minus, minus_after_dollar, digits, exponent, percent = m.groups()
        sign = -1.0 if (minus or minus_after_dollar) else 1.0
        try:
            value = float(digits.replace(",", "")) * (10.0 ** int(exponent) if exponent else 1.0)
        except (OverflowError, ValueError):
            continue
        out.append((sign * value, bool(percent)))
    return out


def _focus(text: str) -> str:
    """The part of a submission that holds its answer: after the last marker (answer, output, result), else all of it."""
    last = None
    for last in _MARKER.finditer(text):
        pass
    return text[last.end():] if last is not None else text


def _number_ok(answer: Answer, text: str) -> bool:
    focus = _focus(text)
    found = numbers_in(focus)
    if not found:
        return False
    # After an explicit marker the first number is the answer; otherwise the last one written.
    value, pct = found[0] if focus is not text else found[-1]
    target = answer.value if answer.value is not None else 0.0
    tol = answer.tolerance + 1e-9 * max(1.0, abs(target))
    if abs(value - target) <= tol:
        return True
    return answer.percent and not pct and abs(value * 100 - target) <= tol


def _words(text: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?|[^\W_]+", text.casefold())


def _text_candidates(text: str) -> list[str]:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    out = [text, _focus(text)]
    if lines:
        out.append(lines[-1])
    return [normalize_text(c) for c in out]


def check(answer: Answer, submission: str) -> bool:
    """True when ``submission`` gives ``answer`` (formatting aside).

    >>> check(Answer("number", "1234.5", 1234.5, 0.01), "The total is $1,234.50.")
    True
    >>> check(Answer("text", "olleh"), "  OLLEH ")
    True
    """
    if not isinstance(submission, str) or not submission.strip():
        return False
    if answer.kind == "number":
        return _number_ok(answer, submission)
    if answer.kind == "sequence":
        want = _words(answer.text)
        return any(_words(c) == want for c in (submission, _focus(submission)))
    if answer.kind == "choice":
        focus = _focus(submission)
        words = set(_words(focus))
        named = [o for o in answer.options if set(_words(o)) <= words]
        return named == [answer.text] or normalize_text(focus) == normalize_text(answer.text)
    targets = {normalize_text(answer.text), *(normalize_text(a) for a in answer.aliases)}
    return any(c in targets for c in _text_candidates(submission))
