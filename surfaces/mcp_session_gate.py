"""``bizsim mcp --http``: one MCP session plays the episode, and the end of that session ends the episode.

Over stdio the client's leaving is the end of standard input. Over streamable HTTP the episode follows the MCP
session of the client that opened it (the ``Mcp-Session-Id`` the server handed out in answer to its
``initialize``):

- the client closes its session (the official SDK sends ``DELETE`` for the session when its client exits): the
  episode ends with ``terminal_detail`` ``client disconnected``;
- the session has had no request in flight (no call, no open event stream) for the idle timeout: the client
  went away without saying so (killed, network gone), and the episode ends with ``client disconnected (idle ...)``;

and the server then stops by itself (exit status 0). While the session lives, another client that tries to open
one is refused with HTTP 409 and a JSON-RPC error naming why; once the episode has ended, every request is
refused with HTTP 410 until the process is gone.

Only the handshake era of the protocol (versions with ``initialize`` and sessions) is served over HTTP. A
2026-07-28 exchange carries no session: nothing would tell its client's leaving from a pause, so the episode
could never end cleanly. Such a request is answered with the protocol's "unsupported version" error (-32022)
listing the handshake versions; the official client (``mode="auto"``) then falls back to ``initialize`` by
itself.

Why a wrapper around the SDK's ASGI app: the ``mcp`` SDK (2.3) offers no public hook for the end of a
streamable-HTTP session. Its per-connection ``Connection.exit_stack`` is unwound when a session ends, but the
low-level server's handlers and middleware are given a context without the connection (only a private
attribute holds it), and the session manager calls nothing when it drops a session. The HTTP exchange itself
(the session header, the ``DELETE``, the requests in flight) is public protocol, so the gate watches that.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from bizsim.runs.live import Episode
from bizsim.runs.live_arena import ArenaEpisode

__all__ = ["DEFAULT_IDLE_TIMEOUT_S", "SessionGate"]

#: Seconds a session may have no request in flight before its client counts as gone (the SDK's own default).
DEFAULT_IDLE_TIMEOUT_S = 30 * 60.0

_SESSION_HEADER = b"mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"
_UNSUPPORTED_VERSION = -32022  # the protocol's "unsupported protocol version" error
_INVALID_REQUEST = -32600

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SessionGate:
    """An ASGI app around the SDK's streamable-HTTP app: it admits one session and ends the episode with it.

    Args:
        app: the SDK's app (``Server.streamable_http_app(..., session_idle_timeout=None)``: the gate keeps the time).
        episode: the episode the session plays.
        on_end: called once the episode has ended (the server stops: ``uvicorn.Server.should_exit = True``).
        idle_timeout: seconds without a request in flight after which the session's client counts as gone.
        path: the MCP endpoint's path.
    """

    def __init__(self, app: ASGIApp, episode: Episode | ArenaEpisode, on_end: Callable[[], None], *,
                 idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S, path: str = "/mcp") -> None:
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        self.app = app
        self.episode = episode
        self.on_end = on_end
        self.idle_timeout = idle_timeout
        self.path = path.rstrip("/")
        self.versions = tuple(HANDSHAKE_PROTOCOL_VERSIONS)
        self.owner: str | None = None  # the session that plays the episode
        self.opening = False  # a request to open the session is being answered
        self.ended: str | None = None  # why the episode ended, once it has
        self._busy = 0  # the owner's requests in flight
        self._idle: asyncio.TimerHandle | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)  # the lifespan, and paths the SDK answers 404
            return
        headers = dict(scope["headers"])
        version = headers.get(_VERSION_HEADER, b"").decode("latin-1")
        session = headers.get(_SESSION_HEADER, b"").decode("latin-1") or None
        if self.ended is not None:
            await _refuse(send, 410, _INVALID_REQUEST,
                          f"The episode has ended ({self.ended}); this server is stopping. Start another "
                          "`bizsim mcp` (another --out) to play another episode.")
        elif version and version not in self.versions:
            await _refuse(send, 400, _UNSUPPORTED_VERSION,
                          f"bizsim mcp over HTTP speaks the protocol versions with sessions ({', '.join(self.versions)}):"
                          " the end of the session ends the episode, and a sessionless exchange has none.",
                          {"supported": list(self.versions), "requested": version[:40]})
        elif session is None:
            await self._open(scope, receive, send)
        elif session != self.owner:
            await _refuse(send, 409 if self.owner else 404, _INVALID_REQUEST, self._taken() if self.owner else
                          "Session not found: open a session with initialize.")
        else:
            await self._serve_owner(scope, receive, send)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request without a session: the first one that opens a session makes it the episode's."""
        if self.owner is not None or self.opening:
            await _refuse(send, 409, _INVALID_REQUEST, self._taken())
            return
        self.opening = True
        opened: list[str] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened.extend(v.decode("latin-1") for k, v in message.get("headers", ()) if k == _SESSION_HEADER)
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            self.opening = False
            if opened and self.ended is None:
                self.owner = opened[0]
                self._arm()

    async def _serve_owner(self, scope: Scope, receive: Receive, send: Send) -> None:
        status: list[int] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        self._busy += 1
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        try:
            await self.app(scope, receive, watch)
        finally:
            self._busy -= 1
            code = status[0] if status else None
            if scope["method"] == "DELETE" and code is not None and 200 <= code < 300:
                self.end("client disconnected")
            elif code == 404:  # the SDK no longer knows the session: it ended on the server's side
                self.end("client disconnected (its session ended)")
            else:
                self._arm()

    def _arm(self) -> None:
        """Start the idle clock once nothing of the owner's is in flight."""
        if self._busy == 0 and self.ended is None and self._idle is None:
            self._idle = asyncio.get_running_loop().call_later(self.idle_timeout, self._expire)

    def _expire(self) -> None:
        self._idle = None
        if self._busy == 0:
            self.end(f"client disconnected (its session was idle for {self.idle_timeout:g} s)")

    def end(self, detail: str) -> None:
        """End the episode (``result.json`` written a last time, ``detail`` as why) and stop the server; once."""
        if self.ended is not None:
            return
        self.ended = detail
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        self.episode.close(detail)
        self.on_end()

    def _taken(self) -> str:
        return ("This server's episode is being played by another MCP session: one server serves one episode to "
                "one client. Start another `bizsim mcp` (another --out) to play another episode.")


async def _refuse(send: Send, status: int, code: int, message: str, data: Any = None) -> None:
    """Answer a JSON-RPC error (no request id: the request was not read) with an HTTP status."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
