"""Size limits on what agents send, and how refused values are quoted back.

Every string an agent supplies is bounded here or by its command's declared
``max_length`` (docs/threat-model.md lists them all), so no input can make
a run hold, log or scan more than these sizes.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["MAX_LINE_CHARS", "MAX_TEXT_CHARS", "MAX_ARGS_CHARS", "MAX_INT", "MAX_DATA_FILE_BYTES", "MAX_CONFIG_FILE_BYTES",
           "MAX_RUN_LOG_BYTES", "MAX_CALL_CHARS", "MAX_CLIENT_NAME_CHARS", "MAX_SOCKET_MESSAGE_BYTES", "MAX_SOCKET_CONNECTIONS",
           "SOCKET_REQUEST_SECONDS", "clip", "show",
           "read_text_file"]

#: The longest command line :meth:`CommandSet.parse` reads (a 1,000,000-character argument, quoted, fits).
MAX_LINE_CHARS = 4_000_000
#: The longest text argument a command without its own ``max_length`` accepts.
MAX_TEXT_CHARS = 1_000_000
#: The longest JSON text of a tool call's arguments.
MAX_ARGS_CHARS = 4_000_000
#: Integer arguments lie in [-MAX_INT, MAX_INT] (64-bit): larger ones overflow arrays and cannot be written as JSON
#: past 4,300 digits.
MAX_INT = 2**63 - 1

#: The longest call a live episode (MCP, the shell) takes from outside: a command line, or a tool call's arguments
#: as JSON text; as the LLM harness's ``max_command_chars``.
MAX_CALL_CHARS = 200_000
#: A client's self-reported name or version, as recorded in ``result.json``: cut to this length.
MAX_CLIENT_NAME_CHARS = 200
#: The most tokens, and dollars, one ``Episode.report_usage`` call may report (a whole sample's usage fits).
MAX_REPORTED_TOKENS = 10**12
MAX_REPORTED_COST_USD = 1e9
#: The largest request a ``bizsim serve`` socket reads (one command line, or argv, as JSON).
MAX_SOCKET_MESSAGE_BYTES = 4 * 2**20
#: Connections a ``bizsim serve`` socket answers at once (one thread and at most one request's bytes each); one
#: more is told the server is busy and closed. So a served episode holds at most 32 threads and 128 MiB of requests.
MAX_SOCKET_CONNECTIONS = 32
#: Seconds a ``bizsim serve`` client has to send its whole request (not each piece of it) before it is dropped.
SOCKET_REQUEST_SECONDS = 30.0

_SHOWN_CHARS = 200
_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = _repr.maxlong = _SHOWN_CHARS
_repr.maxlevel = 3


def show(value: Any) -> str:
    """``repr(value)`` for an error message, cut to about 200 characters however large or deep the value.

    >>> show("abc"), show(2.5)
    ("'abc'", '2.5')
    >>> shown = show("x" * 1000); len(shown), shown.endswith("' (1,000 characters)")
    (219, True)
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


def clip(text: Any) -> str:
    """``str(text)`` for quoting inside a message as it is written (no quotes added), cut to about 200 characters.

    Messages that follow a reference's wording (``Task 'X' not found.``) quote the agent's text bare; a short one
    reads as the reference writes it, a long one is cut with its length named.

    >>> clip("Task-42"), clip("x" * 1000)[-30:]
    ('Task-42', 'xxxxxxxx... (1,000 characters)')
    """
    written: str = text if isinstance(text, str) else show(text)
    if len(written) <= _SHOWN_CHARS:
        return written
    return f"{written[:_SHOWN_CHARS]}... ({len(written):,} characters)"


#: The largest data file (task bank, catalog, demand structure) a loader reads.
MAX_DATA_FILE_BYTES = 64 * 2**20
#: The largest config or preset TOML file read (a run's ``run.json`` too).
MAX_CONFIG_FILE_BYTES = 4 * 2**20
#: The largest run log read back (``llm_calls.jsonl`` on resume and verify): thousands of turns of model answers.
MAX_RUN_LOG_BYTES = 2**30


def read_text_file(path: Any, what: str, limit: int = MAX_DATA_FILE_BYTES) -> str:
    """The UTF-8 text of a file bizsim was pointed at, read no further than ``limit`` bytes.

    ``what`` names the file in errors (``"tasks_path"``). A named pipe, a device that never ends (``/dev/zero``),
    a directory, a missing file, a file past the limit or one that is not UTF-8 is a :class:`ConfigError` naming
    the path and the rule.
    """
    import errno
    import os
    import stat
    from pathlib import Path

    from .errors import ConfigError

    p = Path(path)
    try:
        # Opened without blocking (a named pipe with no writer would wait forever here), then checked before reading.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                raise ConfigError(f"{what}(={str(p)!r}) is a pipe or socket, not a file")
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, "Is a directory")
            os.set_blocking(fd, True)
            fh = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
        with fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{what}(={str(p)!r}) cannot be read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ConfigError(f"{what}(={str(p)!r}) is larger than the limit of {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what}(={str(p)!r}) is not UTF-8 text (byte {exc.start:,})") from None


#: The largest rollout file of another harness (a YC-Bench results JSON or transcript) that ``bizsim import`` reads.
MAX_ROLLOUT_BYTES = 256 * 2**20
#: The most turns (model calls) an imported rollout may hold, over all its episodes.
MAX_ROLLOUT_TURNS = 100_000

#: The most seeds one seed set may name (``--seeds``, a grid file, an RL or Inspect environment), counted before
#: any is listed.
MAX_SEEDS = 100_000
#: The most runs one sweep may hold (worlds x presets x agents x seeds, and a grid file's runs), counted before
#: any run spec is built.
MAX_SWEEP_RUNS = 1_000_000

__all__ += ["MAX_ROLLOUT_BYTES", "MAX_ROLLOUT_TURNS", "MAX_SEEDS", "MAX_SWEEP_RUNS"]
