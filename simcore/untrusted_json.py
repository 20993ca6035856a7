"""JSON from agents and models, read the same way on every Python version.

``json.loads`` recurses once per level of nesting, so a deep enough text
raises ``RecursionError``, at a depth that depends on the interpreter and on
how deep the caller's stack already is. Text an agent sends is refused past a
fixed nesting depth instead, as invalid JSON, before it is parsed; what is
read then needs at most that many frames, which any caller has to spare.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_RECORD_DEPTH", "MAX_REPLY_CHARS", "loads_untrusted", "first_object", "nested_deeper",
           "non_finite_at", "read_json_file", "read_json_lines", "text_deeper"]

#: Deepest nesting of arrays and objects accepted: far beyond any tool call, far below any interpreter's limit.
MAX_DEPTH = 64
#: Deepest nesting of a record in a file bizsim wrote (a run's result and logs): a tool call's arguments (MAX_DEPTH)
#: inside the record's own levels, with room to spare; a deeper line is damage (or tampering), refused.
MAX_RECORD_DEPTH = 256
#: The longest model reply :func:`first_object` reads; the rest is ignored (a world role asks for a short JSON object).
MAX_REPLY_CHARS = 100_000
_DECODER = json.JSONDecoder()
#: A JSON string from its opening quote (escapes skipped; an unterminated one runs to the end, as a reader's would).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def loads_untrusted(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` for text an agent sent: nesting deeper than ``max_depth`` is a ``json.JSONDecodeError``.

    >>> loads_untrusted('[{"name": "x", "quantity": 2}]')
    [{'name': 'x', 'quantity': 2}]
    >>> loads_untrusted("[" * 65 + "]" * 65)
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: Nesting deeper than 64 levels: line 1 column 65 (char 64)
    """
    if isinstance(text, (bytes, bytearray)):
        text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads decodes bytes
    # Counting brackets costs no Python loop; only text with more of them than the limit is scanned.
    if text.count("[") + text.count("{") > max_depth:
        _check_depth(text, max_depth)
    try:
        return json.loads(text)
    except RecursionError:  # a caller already deep in its stack
        raise json.JSONDecodeError("Nesting too deep to read", text, 0) from None


def text_deeper(text: str | bytes, max_depth: int = MAX_DEPTH) -> bool:
    """Whether the JSON text's arrays and objects nest deeper than ``max_depth`` (brackets inside strings do not
    count), decided without parsing it: for a server that hands text to a parser it does not own.

    >>> text_deeper("[" * 700_000), text_deeper('{"a": "[[[["}', 1)
    (True, False)
    """
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    return text.count("[") + text.count("{") > max_depth and _deeper_than(text, 0, max_depth)


def _check_depth(text: str, max_depth: int) -> None:
    pos = _too_deep_at(text, 0, max_depth)
    if pos is not None:
        raise json.JSONDecodeError(f"Nesting deeper than {max_depth} levels", text, pos)


def first_object(text: str, max_depth: int = MAX_DEPTH) -> dict[str, Any] | None:
    """The first JSON object written in a model's reply (prose around it allowed), else ``None``.

    Only the first :data:`MAX_REPLY_CHARS` characters are read. A reply nested deeper than ``max_depth`` from its
    first ``{`` on holds no object, whatever the interpreter's recursion limit (a 15 kB reply of brackets was a
    ``RecursionError``).

    >>> first_object('Sure: {"is_correct": true} (done)')
    {'is_correct': True}
    >>> first_object("{" * 10_000) is None
    True
    """
    text = text[:MAX_REPLY_CHARS]
    pos = text.find("{")
    if pos < 0:
        return None
    if text.count("[", pos) + text.count("{", pos) > max_depth and _deeper_than(text, pos, max_depth):
        return None
    obj: dict[str, Any]  # text[pos] is "{": whatever decodes is an object with string keys
    while pos >= 0:
        try:
            obj, _ = _DECODER.raw_decode(text, pos)
        except ValueError:
            pos = text.find("{", pos + 1)
            continue
        except RecursionError:  # not reached past the depth check; kept so no reply can crash a run
            return None
        return obj  # text[pos] is "{": whatever decodes is an object
    return None


def _deeper_than(text: str, start: int, max_depth: int) -> bool:
    """Whether brackets outside strings nest deeper than ``max_depth`` in ``text[start:]`` (stray closers ignored)."""
    return _too_deep_at(text, start, max_depth) is not None


def _too_deep_at(text: str, start: int, max_depth: int) -> int | None:
    """Where brackets outside strings first nest deeper than ``max_depth`` in ``text[start:]``, else ``None``
    (stray closers are ignored: they make no text valid JSON, and must not buy depth for later openers)."""
    if not _brackets_deeper(text[start:], max_depth):
        return None  # the usual answer, found without a Python loop over every character
    depth, in_string, escaped = 0, False, False
    for pos in range(start, len(text)):
        ch = text[pos]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "[" or ch == "{":
            depth += 1
            if depth > max_depth:
                return pos
        elif (ch == "]" or ch == "}") and depth:
            depth -= 1
    return None


def _brackets_deeper(text: str, max_depth: int) -> bool:
    r"""Whether brackets outside strings nest deeper than ``max_depth``: the strings and everything but brackets
    are cut out by the regex engine, and only the brackets left are counted here.

    >>> _brackets_deeper('[{"a": "[[[["}]', 2), _brackets_deeper('["\\"[[[["]', 2), _brackets_deeper('[[[', 2)
    (False, False, True)
    """
    depth = 0
    for ch in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        if ch == "[" or ch == "{":
            depth += 1
            if depth > max_depth:
                return True
        elif depth:
            depth -= 1
    return False


def non_finite_at(value: Any) -> str | None:
    """Where the first NaN or infinity in ``value`` (JSON read from text, or a Python caller's) sits, as a path
    like ``[0]["price"]``, else ``None``.

    Python's JSON reader takes ``NaN`` and ``Infinity``; nothing holding one can be recorded as strict JSON, so a
    command refuses such a value before it changes the world. Walks without recursion.

    >>> non_finite_at([{"name": "x", "note": {"n": float("nan")}}]), non_finite_at({"a": [1, 2.5]})
    ('[0]["note"]["n"]', None)
    """
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return path
        if isinstance(item, dict):
            stack.extend((v, f"{path}[{json.dumps(k)[:40]}]") for k, v in reversed(item.items()))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def nested_deeper(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Whether lists and dicts in ``value`` (a Python caller's, not read from text) nest deeper than ``max_depth``.

    Walks without recursion, so a value nested 100,000 deep is answered, not a ``RecursionError``.

    >>> nested_deeper([[1]], 2), nested_deeper([[[1]]], 2)
    (False, True)
    """
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth >= max_depth:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def read_json_file(path: Any, what: str, limit: int, max_depth: int = MAX_RECORD_DEPTH) -> Any:
    """The JSON value of a file from outside, read as every such file is: no further than ``limit`` bytes, UTF-8,
    nested no deeper than ``max_depth``. ``what`` names the file in errors.

    Raises:
        ConfigError: the file is missing or unreadable, past the limit, not UTF-8, not JSON or too deep
            (one line naming the file and the rule).
    """
    from .errors import ConfigError
    from .limits import read_text_file

    text = read_text_file(path, what, limit)
    try:
        return loads_untrusted(text, max_depth)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{what}(={str(path)!r}) is not JSON bizsim reads: {exc.msg} (char {exc.pos:,})") from None


def read_json_lines(path: Any, what: str, limit: int, max_depth: int = MAX_RECORD_DEPTH) -> list[tuple[str, Any]]:
    """Each line of a JSON-lines file from outside with its value, read as :func:`read_json_file` reads.

    Raises:
        ConfigError: as :func:`read_json_file`, naming the line that is not JSON.
    """
    from .errors import ConfigError
    from .jsonl import lines_of
    from .limits import read_text_file

    out = []
    for i, line in enumerate(lines_of(read_text_file(path, what, limit)), 1):
        try:
            out.append((line, loads_untrusted(line, max_depth)))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{what}(={str(path)!r}) line {i:,} is not JSON bizsim reads: {exc.msg} "
                              f"(char {exc.pos:,})") from None
    return out
