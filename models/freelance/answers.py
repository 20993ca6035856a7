"""Answer checking tolerant of formatting: numbers with units or commas, case, whitespace.

A submission is text. It is parsed with regular expressions only: it is
never executed or evaluated as code.
"""

from __future__ import annotations

import re

import attrs

from ._numscan import BRACKETED as _BRACKETED
from ._numscan import NUMBER as _NUMBER
from ._numscan import MarkedNumbers, number_matches, parse

__all__ = ["Answer", "check", "normalize_text", "numbers_in", "written_number"]

_MARKER = re.compile(r"\b(?:final\s+answer|answer|output|result)\s*(?:is|=|:)?", re.IGNORECASE)
#: Texts up to this long are read the plain way, rest by rest after each marker: fast enough, and plainly right.
_SHORT = 4096
_EDGE = " \t\r\n.;:!\"'`*"
#: What may stand beside a number in an answer that is that number: one unit (``mL``, ``km/h``, ``m²``, ``°C``).
_UNIT = re.compile(r"(?:[A-Za-zµΩ°]{1,8}(?:/[A-Za-zµΩ]{1,6})?[²³]?)")


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
        found = parse(m)
        if found is not None:
            out.append(found)
    return out


def written_number(text: str) -> Answer | None:
    """A reference answer that is one number, perhaps with a unit (``"2.0 mL"``, ``"$1,200"``, ``"12.5%"``), as a
    ``number`` answer; ``None`` for anything else (``"v0/2"``, ``"-32π"``, ``"decrease of 19.6 N"``).

    The tolerance is the answer's own precision: half a unit of its last written digit (``"19.6"``: 0.05;
    ``"3.1e-10"``: 5e-12), and none for a whole number written without a decimal point or exponent.

    >>> written_number("2.0 mL").tolerance
    0.05
    >>> written_number("v0/2") is None
    True
    """
    stripped = text.strip()
    matches = number_matches(stripped)
    if len(matches) != 1:
        return None
    m = matches[0]
    rest = (stripped[:m.start()] + " " + stripped[m.end():]).strip(_EDGE + ",")
    if rest and not _UNIT.fullmatch(rest):
        return None
    found = numbers_in(m.group(0))
    if not found:
        return None
    value, percent = found[0]
    digits, exponent = m.group(3), m.group(4)
    places = len(digits.partition(".")[2])
    if places == 0 and exponent is None:
        tolerance = 0.0
    else:
        tolerance = 0.5 * 10.0 ** ((int(exponent.replace("\u2212", "-")) if exponent else 0) - places)
    return Answer("number", stripped, value, tolerance, percent)


def _focus(text: str) -> str:
    """The part of a submission that holds its answer: after the last marker (answer, output, result), else all of it."""
    last = None
    for last in _MARKER.finditer(text):
        pass
    return text[last.end():] if last is not None else text


def _marked_number(text: str) -> tuple[float, bool] | None:
    """The first number after the last marker that has one (remarks in brackets skipped), else ``None``."""
    markers = list(_MARKER.finditer(text))
    if len(text) > _SHORT and len(markers) > 1:
        # Many markers in a long text: rescanning the rest after each one is quadratic (see _numscan).
        finder = MarkedNumbers(text)
        for m in reversed(markers):
            found = finder.first_after(m.end())
            if found is not None:
                return found
        return None
    for m in reversed(markers):
        rest = text[m.end():]
        numbers = numbers_in(_BRACKETED.sub(" ", rest) if "(" in rest else rest)
        if numbers:
            return numbers[0]
    return None


def _number_ok(answer: Answer, text: str) -> bool:
    # After an explicit marker the first number is the answer ("Final answer (2 dp): 42"); otherwise the last one
    # written ("It prints 42 as its output.").
    picked = _marked_number(text)
    if picked is None:
        found = numbers_in(text)
        if not found:
            return False
        picked = found[-1]
    value, pct = picked
    target = answer.value if answer.value is not None else 0.0
    tol = answer.tolerance + 1e-9 * abs(target)  # relative slack only: a tiny answer (3.1e-10) is not "about 0"
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
