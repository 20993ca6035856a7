"""Size limits on what agents send, and how refused values are quoted back.

Every string an agent supplies is bounded here or by its command's declared
``max_length`` (docs/threat-model.md lists them all), so no input can make
a run hold, log or scan more than these sizes.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["MAX_LINE_CHARS", "MAX_TEXT_CHARS", "MAX_ARGS_CHARS", "MAX_INT", "show"]

#: The longest command line :meth:`CommandSet.parse` reads (a 1,000,000-character argument, quoted, fits).
MAX_LINE_CHARS = 4_000_000
#: The longest text argument a command without its own ``max_length`` accepts.
MAX_TEXT_CHARS = 1_000_000
#: The longest JSON text of a tool call's arguments.
MAX_ARGS_CHARS = 4_000_000
#: Integer arguments lie in [-MAX_INT, MAX_INT] (64-bit): larger ones overflow arrays and cannot be written as JSON
#: past 4,300 digits.
MAX_INT = 2**63 - 1

_SHOWN_CHARS = 200
_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = _repr.maxlong = _SHOWN_CHARS
_repr.maxlevel = 3


def show(value: Any) -> str:
    """``repr(value)`` for an error message, cut to about 200 characters however large or deep the value.

    >>> show("abc"), show(2.5)
    ("'abc'", '2.5')
    >>> show("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' (1,000 characters)"
    """
    if isinstance(value, str):
        if len(value) <= _SHOWN_CHARS:
            return repr(value)
        return f"{_repr.repr(value)} ({len(value):,} characters)"
    if isinstance(value, int) and not isinstance(value, bool):
        if -MAX_INT <= value <= MAX_INT:
            return repr(value)
        return f"an integer of {value.bit_length():,} bits"
    if isinstance(value, (float, bool)) or value is None:
        return repr(value)
    # Containers (a Python caller's, or JSON read before the depth limit): quoted without walking all of them.
    return _repr.repr(value)
