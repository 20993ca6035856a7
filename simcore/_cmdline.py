"""Splitting a command line into words, as ``shlex.split`` does, in linear time.

``shlex`` grows each word one character at a time (``self.token += c`` on an
attribute, which CPython cannot extend in place), so a one-megabyte word
took about a minute. This splitter reads whole runs with regular
expressions and gives the words and the errors ``shlex.split`` gives (POSIX
rules, no comments; the test suite compares both on generated lines).
"""

from __future__ import annotations

import re

__all__ = ["split_line"]

# shlex's whitespace is exactly these four characters (not Unicode spaces, not \v or \f).
_PIECE = re.compile(
    r"""(?P<space>[ \t\r\n]+)"""
    r"""|(?P<bare>(?=[^ \t\r\n'"\\]|\\[\s\S])[^ \t\r\n'"\\]*(?:\\[\s\S][^ \t\r\n'"\\]*)*)"""
    r"""|'(?P<single>[^']*)'"""
    r"""|"(?P<double>[^"\\]*(?:\\[\s\S][^"\\]*)*)\""""
)
_DOUBLE_BODY = re.compile(r"""[^"\\]*(?:\\[\s\S][^"\\]*)*""")
_SIMPLE = re.compile(r"[^ \t\r\n]+")


def split_line(line: str) -> list[str]:
    """The words of ``line`` by POSIX shell quoting, exactly as ``shlex.split(line)``.

    Raises:
        ValueError: ``"No closing quotation"`` or ``"No escaped character"``, as ``shlex`` words them.

    >>> split_line('task accept --task-id "Task 42" --note=it\\\\\\'s')
    ['task', 'accept', '--task-id', 'Task 42', "--note=it's"]
    """
    if "'" not in line and '"' not in line and "\\" not in line:
        return _SIMPLE.findall(line)  # the common line: no quoting at all
    words: list[str] = []
    parts: list[str] | None = None  # the word being read; None between words
    pos, end = 0, len(line)
    match = _PIECE.match
    while pos < end:
        m = match(line, pos)
        if m is None:
            raise ValueError(_unfinished(line, pos))
        kind = m.lastgroup
        if kind == "space":
            if parts is not None:
                words.append("".join(parts))
                parts = None
        else:
            if parts is None:
                parts = []
            assert kind is not None  # every alternative of _PIECE is a named group
            text = m.group(kind)
            if kind != "single" and "\\" in text:
                text = _unescape(text, kind == "double")
            parts.append(text)
        pos = m.end()
    if parts is not None:
        words.append("".join(parts))
    return words


def _unfinished(line: str, pos: int) -> str:
    """The error ``shlex`` reports for the quote or backslash at ``pos`` that no piece could finish."""
    ch = line[pos]
    if ch == "\\":
        return "No escaped character"
    if ch == '"':
        body = _DOUBLE_BODY.match(line, pos + 1)
        assert body is not None  # the pattern matches the empty string
        if body.end() < len(line):
            return "No escaped character"  # the text ends on a backslash inside the quotes
    return "No closing quotation"


def _unescape(text: str, quoted: bool) -> str:
    """``text`` with its backslash escapes applied: outside quotes a backslash keeps the next character whatever it
    is; inside double quotes it escapes only ``"`` and ``\\`` and stays before anything else.

    ``text`` never ends on a lone backslash (the piece pattern sees to it). Split on backslashes rather than one
    regex replacement per escape: a template substitution costs microseconds each.
    """
    parts = text.split("\\")
    out = [parts[0]]
    i, n = 1, len(parts)
    while i < n:
        part = parts[i]
        if part:
            out.append(part if not quoted or part[0] == '"' else "\\" + part)
            i += 1
        else:  # an escaped backslash; the part after the second one is plain text
            out.append("\\")
            if i + 1 < n:
                out.append(parts[i + 1])
            i += 2
    return "".join(out)
