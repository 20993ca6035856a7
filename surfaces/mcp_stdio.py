"""The stdio transport of ``bizsim mcp``: every request read is answered, and every answer written before exit.

The SDK's own stdio transport drops a line it cannot validate (it hands the error to a log), so a client whose
request held a lone surrogate, nested past the JSON parser's depth, carried an object as its ``id`` or ran past
the line limit waited forever; and at the end of input it stopped the server with the last call's answer unsent
(the call was executed and recorded all the same). Here each line is read with bizsim's bounded, depth-checked
JSON reader and validated before the server sees it; a line that fails is answered at once with a JSON-RPC
error (``-32700`` when it is not JSON bizsim reads, ``-32600`` when it is not a JSON-RPC message) carrying the
request's ``id`` when one can be found at its top level, else ``null``. At the end of input the transport waits
until every request it passed on is answered (or cancelled by the client) before it lets the server stop.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

from bizsim.simcore.untrusted_json import MAX_DEPTH, loads_untrusted

__all__ = ["MAX_MESSAGE_BYTES", "MAX_MESSAGE_DEPTH", "PARSE_ERROR", "INVALID_REQUEST", "screen_line", "serve_stdio"]

#: The longest message read from standard input: one call is at most MAX_CALL_CHARS characters, as JSON (escaped)
#: a few times that. A longer line is read to its end, discarded, and answered with a parse error.
MAX_MESSAGE_BYTES = 16 * 2**20
#: The deepest nesting of a message: a tool call's arguments may nest MAX_DEPTH levels, under the message's own
#: few (``params``, ``arguments``); deeper messages are answered with a parse error.
MAX_MESSAGE_DEPTH = MAX_DEPTH + 8
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
#: How much of an over-long line is kept to look for its ``id`` (clients write it before ``params``).
_HEAD_BYTES = 64 * 2**10
_CHUNK = 2**16
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_DECODER = json.JSONDecoder()


def screen_line(line: bytes, *, cut: bool = False) -> tuple[Any, dict[str, Any] | None]:
    """Read one line of the stdio protocol: ``(message, None)`` to pass on, or ``(None, error answer)``.

    ``cut`` says the line ran past :data:`MAX_MESSAGE_BYTES` (``line`` is then its head). A blank line is
    ``(None, None)``: nothing to pass on, nothing to answer.

    >>> screen_line(b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}')[1]["error"]["code"]
    -32600
    >>> screen_line(b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": ' + b"[" * 500)[1]["id"]
    7
    """
    from mcp_types import jsonrpc_message_adapter

    text = line.decode("utf-8", "replace")
    if not text.strip():
        return None, None
    if cut:
        return None, _error(_top_level_id(text), PARSE_ERROR,
                            f"Parse error: a message longer than the limit of {MAX_MESSAGE_BYTES:,} bytes")
    try:
        data = loads_untrusted(text, MAX_MESSAGE_DEPTH)
    except json.JSONDecodeError as exc:
        return None, _error(_top_level_id(text), PARSE_ERROR, f"Parse error: {exc.msg} (char {exc.pos:,})")
    if isinstance(data, dict) and "id" in data and not _valid_id(data["id"]):
        # The SDK's types read a request whose id is an object as a notification, which is never answered.
        return None, _error(None, INVALID_REQUEST, "Invalid Request: an id must be a string or an integer")
    if _SURROGATE_ESCAPE.search(text):
        data = _without_surrogates(data)  # as every live surface reads them: U+FFFD
    try:
        return jsonrpc_message_adapter.validate_python(data, by_name=False), None
    except Exception:  # pydantic's ValidationError, or anything its validators raise: not a message we take
        ident = data.get("id") if isinstance(data, dict) else None
        return None, _error(ident, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message of MCP")


def _valid_id(ident: Any) -> bool:
    return isinstance(ident, (int, str)) and not isinstance(ident, bool)


def _error(ident: Any, code: int, message: str) -> dict[str, Any]:
    if not _valid_id(ident):
        ident = None  # no id a client could match: JSON-RPC answers null
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _top_level_id(text: str) -> Any:
    """The ``id`` of a top-level JSON object written before anything unreadable in ``text``, else ``None``.

    Walks the top level only, skipping nested values by counting brackets (no recursion, linear), so a message
    too deep or too long to parse still names the request it answers.
    """
    ws = " \t\r\n"
    pos = len(text) - len(text.lstrip(ws))
    if not text.startswith("{", pos):
        return None
    pos += 1
    try:
        while True:
            while text[pos] in ws:
                pos += 1
            if text[pos] != '"':
                return None
            key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
            while text[pos] in ws:
                pos += 1
            if text[pos] != ":":
                return None
            pos += 1
            while text[pos] in ws:
                pos += 1
            if key == "id":
                if text[pos] in "[{":
                    return None
                return _DECODER.raw_decode(text, pos)[0]
            pos = _skip_value(text, pos)
            while text[pos] in ws:
                pos += 1
            if text[pos] != ",":
                return None
            pos += 1
    except (IndexError, ValueError):
        return None


def _skip_value(text: str, pos: int) -> int:
    """Where the JSON value starting at ``pos`` ends (its brackets counted, its strings skipped whole)."""
    if text[pos] == '"':
        return int(json.decoder.scanstring(text, pos + 1)[1])  # type: ignore[attr-defined]
    if text[pos] not in "[{":
        return int(_DECODER.raw_decode(text, pos)[1])
    depth = 0
    while True:
        ch = text[pos]
        if ch == '"':
            pos = int(json.decoder.scanstring(text, pos + 1)[1])  # type: ignore[attr-defined]
            continue
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if not depth:
                return pos + 1
        pos += 1


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _has_surrogate(value) else value
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _Lines:
    """Lines of a byte source (``read(n)`` coroutine), each at most :data:`MAX_MESSAGE_BYTES`: yields
    ``(line, cut)``, ``cut`` when the line ran past the limit (then ``line`` is its head; the rest is skipped)."""

    def __init__(self, read: Callable[[int], Any]) -> None:
        self.read = read
        self.buf = bytearray()

    async def __aiter__(self) -> AsyncIterator[tuple[bytes, bool]]:
        eof = False
        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                cut = end > MAX_MESSAGE_BYTES  # a line that ended in the last chunk read can be past the limit
                line = bytes(self.buf[:_HEAD_BYTES if cut else end])
                del self.buf[:end + 1]
                yield line, cut
                continue
            if eof:
                if self.buf:
                    cut = len(self.buf) > MAX_MESSAGE_BYTES
                    line = bytes(self.buf[:_HEAD_BYTES] if cut else self.buf)
                    self.buf.clear()
                    yield line, cut
                return
            if len(self.buf) > MAX_MESSAGE_BYTES:
                head = bytes(self.buf[:_HEAD_BYTES])
                self.buf.clear()
                eof = await self._skip_to_newline()
                yield head, True
                continue
            chunk = await self.read(_CHUNK)
            if not chunk:
                eof = True
            else:
                self.buf += chunk

    async def _skip_to_newline(self) -> bool:
        """Read and drop bytes through the next newline; whether input ended first."""
        while True:
            chunk = await self.read(_CHUNK)
            if not chunk:
                return True
            end = chunk.find(b"\n")
            if end >= 0:
                self.buf += chunk[end + 1:]
                return False


class _Stdout:
    """Standard output, written at once (the client reads its answers as they come), whole messages only.

    The messages go to a private copy of file descriptor 1, which points at stderr meanwhile (as the SDK's own
    transport does it), so a stray ``print`` cannot break the protocol.
    """

    def __init__(self) -> None:
        sys.stdout.flush()
        self.fd = os.dup(1)
        self._saved = os.dup(1)
        os.dup2(2, 1)

    def write(self, text: str) -> None:
        import select

        data = memoryview(text.encode("utf-8", "replace"))
        while data:
            try:
                data = data[os.write(self.fd, data):]
            except BlockingIOError:  # standard input and output share one non-blocking file (a terminal)
                select.select([], [self.fd], [])

    def close(self) -> None:
        os.dup2(self._saved, 1)
        os.close(self._saved)
        os.close(self.fd)


async def _reader() -> Callable[[int], Any]:
    """A coroutine function reading up to n bytes of standard input: from the event loop on a pipe, else a thread."""
    import asyncio

    import stat

    loop = asyncio.get_running_loop()
    source = os.fdopen(os.dup(0), "rb", 0)
    mode = os.fstat(source.fileno()).st_mode
    # Only a pipe, a socket or a terminal can be watched by the loop. On anything else (a file, /dev/null) the loop's
    # reader fails inside a callback, after connect_read_pipe has returned, and the input never ends: read it in a
    # thread instead.
    watchable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or source.isatty()
    try:
        if not watchable:
            raise ValueError("not a pipe")
        reader = asyncio.StreamReader(limit=_CHUNK)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
        return reader.read
    except (OSError, ValueError, NotImplementedError):  # not a pipe (a file, /dev/null, another platform)
        import anyio

        async def read(n: int) -> bytes:
            return await anyio.to_thread.run_sync(source.read, n)

        return read


def serve_stdio(server: Any) -> None:
    """Run the MCP ``server`` (the SDK's low-level ``Server``) over standard input and output until input ends
    and every request read has been answered."""
    import asyncio
    import contextlib

    async def main() -> None:
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

        read_send, read_recv = anyio.create_memory_object_stream[Any](0)
        write_send, write_recv = anyio.create_memory_object_stream[Any](0)
        stdout = _Stdout()
        unanswered: set[Any] = set()
        settled = asyncio.Event()
        settled.set()

        def answered(ident: Any) -> None:
            unanswered.discard(_key(ident))
            if not unanswered:
                settled.set()

        async def read_input() -> None:
            read = await _reader()
            async with read_send:
                async for line, cut in _Lines(read):
                    message, error = screen_line(line, cut=cut)
                    if error is not None:
                        stdout.write(json.dumps(error) + "\n")
                    if message is None:
                        continue
                    if isinstance(message, JSONRPCRequest):
                        unanswered.add(_key(message.id))
                        settled.clear()
                    elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
                        # A request the client cancelled is never answered: not waited for.
                        answered((message.params or {}).get("requestId"))
                    await read_send.send(SessionMessage(message))
                await settled.wait()  # input ended: the server stops once every request read is answered

        async def write_output() -> None:
            async with write_recv:
                async for item in write_recv:
                    message = item.message
                    stdout.write(message.model_dump_json(by_alias=True, exclude_unset=True) + "\n")
                    if isinstance(message, (JSONRPCResponse, JSONRPCError)):
                        answered(message.id)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(read_input)
                tg.start_soon(write_output)
                await server.run(read_recv, write_send, server.create_initialization_options())
        finally:
            stdout.close()
            with contextlib.suppress(OSError):
                os.set_blocking(0, True)  # the event loop made it non-blocking; a terminal shares it with the shell

    asyncio.run(main())


def _key(ident: Any) -> Any:
    # As the SDK matches a cancellation to its request: "7" and 7 are one id.
    return str(ident) if isinstance(ident, int) and not isinstance(ident, bool) else ident
