"""Finding numbers in submission text in linear time.

The answer checker asks, for each answer marker from the last to the first,
for the first number written after it, remarks in brackets skipped. Asked
naively, that rescans the rest of the text once per marker: quadratic in a
text of many markers and no numbers (a megabyte took minutes). Here every
marker's question is answered from one scan of the whole text, computed
once: a scan that starts at a marker soon reaches a position the whole-text
scan also tried a match at, with the same text from one character before it
(the number pattern looks back one character), and from there on the two
scans find the same matches. So each marker costs a short local scan up to
that position and a binary search, and the answers equal the naive ones
(the test suite compares both on generated text).
"""

from __future__ import annotations

import bisect
import re

__all__ = ["NUMBER", "BRACKETED", "parse", "number_matches", "MarkedNumbers"]

# U+2212 is the minus sign typeset text uses; it reads as "-".
# The second alternative swallows a run of whitespace the number pattern failed at: every later start in the run
# would consume the same run and fail the same way, so trying them all (quadratic in the run, cubic with the two
# \s* of the first alternative backtracking) is skipped. Possessive \s*+ gives nothing back that could match: what
# follows each of them never starts with whitespace. Callers keep only matches whose group 3 (the digits) is set.
NUMBER = re.compile(r"(?<![\w.])(?:([-\u2212])?\s*+\$?\s*+([-\u2212])?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
                    r"(?:[eE]([-+\u2212]?\d{1,3}))?(\s*+%)?|\s++)")
BRACKETED = re.compile(r"\([^()]*\)")
_WORD_BEFORE = re.compile(r"[\w.]")
_DIGIT = re.compile(r"\d")
#: Characters past the trusted part of a window that a match or a failed attempt may still look at.
_MARGIN = 16


def parse(m: re.Match) -> tuple[float, bool] | None:
    """A number match as ``(value, followed by %)``; ``None`` for a whitespace match or a value out of range."""
    minus, minus_after_dollar, digits, exponent, percent = m.groups()
    if digits is None:
        return None
    sign = -1.0 if (minus or minus_after_dollar) else 1.0
    try:
        value = float(digits.replace(",", "")) * (10.0 ** int(exponent.replace("\u2212", "-")) if exponent else 1.0)
    except (OverflowError, ValueError):
        return None
    return sign * value, bool(percent)


def number_matches(text: str) -> list[re.Match]:
    """The matches of numbers in ``text``, in order (whitespace matches left out)."""
    return [m for m in NUMBER.finditer(text) if m.group(3) is not None]


class _Scan:
    """One scan of a whole text: every match, the positions it tried, the next readable number from each match."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts, ends, values = [], [], []
        for m in NUMBER.finditer(text):
            starts.append(m.start())
            ends.append(m.end())
            values.append(parse(m))
        self.starts, self.ends = starts, ends
        # nxt[k]: index of the first match at or after k holding a readable number (len(matches) if none).
        nxt = [len(values)] * (len(values) + 1)
        for k in range(len(values) - 1, -1, -1):
            nxt[k] = k if values[k] is not None else nxt[k + 1]
        self.values, self.next_value = values, nxt

    def tried_at_or_after(self, low: int) -> int:
        """The first position at or after ``low`` where this scan tried a match (nothing spans it)."""
        k = bisect.bisect_right(self.starts, low) - 1
        if k >= 0 and self.ends[k] > low and self.starts[k] < low:
            return self.ends[k]
        return low

    def first_value(self, start: int, stop: int) -> tuple[float, bool] | None:
        """The first readable number of a match starting in ``[start, stop)``."""
        k = self.next_value[bisect.bisect_left(self.starts, start)]
        if k < len(self.starts) and self.starts[k] < stop:
            return self.values[k]
        return None


_UNSEEN = object()


def _first_local(src: str, start: int, stop: int, scan: _Scan, sync: int) -> object:
    """The first readable number of a scan of ``src[start:stop]`` on its own (it looks back at nothing).

    The scan runs in growing windows until it tries a match at a position ``>= sync`` that ``scan`` (of all of
    ``src``) tried too; from there it reads ``scan``. Returns the value, ``None`` for none before ``stop``.
    """
    size = 64
    while True:
        end = min(stop, start + size)
        window = src[start:end]
        final = end == stop
        trusted = end if final else start + _tail(window) - _MARGIN
        cursor = start
        for m in NUMBER.finditer(window):
            s, e = start + m.start(), start + m.end()
            if e > trusted:
                break  # the match may run on past the window: read a larger one
            tried = scan.tried_at_or_after(max(cursor, sync))
            if tried <= s:
                return scan.first_value(tried, stop)
            value = parse(m)
            if value is not None:
                return value
            cursor = e
        else:
            if final:
                return None
            if scan.tried_at_or_after(max(cursor, sync)) <= trusted:
                return scan.first_value(scan.tried_at_or_after(max(cursor, sync)), stop)
        size *= 2


def _tail(window: str) -> int:
    """Length of ``window`` without its trailing whitespace, signs and dollar signs (a match may run on there)."""
    i = len(window)
    while i and (window[i - 1].isspace() or window[i - 1] in "$-\u2212"):
        i -= 1
    return i


class MarkedNumbers:
    """First numbers after positions of one text, as ``numbers_in(text[pos:] without bracketed remarks)[0]`` gives.

    Bracketed remarks are blanked to spaces of the same length (the number pattern never counts whitespace), so
    positions stay those of the text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.brackets = [(m.start(), m.end()) for m in BRACKETED.finditer(text)] if "(" in text else []
        self._bracket_starts = [a for a, _ in self.brackets]
        blanked = text
        if self.brackets:
            blanked = BRACKETED.sub(lambda m: " " * (m.end() - m.start()), text)
        self.blanked = blanked
        self._scans: dict[str, _Scan] = {}
        self._after_bracket: dict[int, object] = {}
        # A number needs a digit: after the last one there is nothing to scan for (most markers of a hostile text).
        last = _DIGIT.search(text[::-1])  # the first digit of the reversed text: one copy, no backtracking
        self.last_digit = len(text) - 1 - last.start() if last is not None else -1

    def _scan(self, which: str) -> _Scan:
        scan = self._scans.get(which)
        if scan is None:
            scan = self._scans[which] = _Scan(self.text if which == "raw" else self.blanked)
        return scan

    def first_after(self, pos: int) -> tuple[float, bool] | None:
        """The first readable number in ``text[pos:]`` with its bracketed remarks blanked, or ``None``."""
        if pos > self.last_digit:
            return None
        k = bisect.bisect_right(self._bracket_starts, pos - 1) - 1
        if k >= 0 and self.brackets[k][0] < pos < self.brackets[k][1]:
            # pos lies inside a remark: cut there, its ")" is plain text, and the blanked text starts after it.
            close = self.brackets[k][1]
            found = _first_local(self.text, pos, close, self._scan("raw"), _sync(self.text, pos))
            if found is not None:
                return found  # type: ignore[return-value]
            cached = self._after_bracket.get(close, _UNSEEN)
            if cached is _UNSEEN:
                # The character before is ")" here and " " in the blanked text: neither stops a number.
                cached = _first_local(self.blanked, close, len(self.text), self._scan("blanked"), close)
                self._after_bracket[close] = cached
            return cached  # type: ignore[return-value]
        return _first_local(self.blanked, pos, len(self.text), self._scan("blanked"), _sync(self.blanked, pos))  # type: ignore[return-value]


def _sync(src: str, pos: int) -> int:
    """Where a scan starting at ``pos`` sees what the whole-text scan sees: at once unless the character before
    ``pos`` would stop a number (a scan of its own sees nothing before its start)."""
    return pos + 1 if pos > 0 and _WORD_BEFORE.match(src, pos - 1) else pos
