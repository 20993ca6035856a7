"""Many live episodes' tools behind one streamable-HTTP MCP server on 127.0.0.1, served from this process.

The verifiers 0.4 taskset (:mod:`bizsim.surfaces.verifiers_taskset`) keeps each rollout's world in the process that
runs the evaluation, while the rollout's harness (a separate program) calls the world's tools over MCP. This host
is that bridge: :meth:`EpisodeMCPHost.add` gives an episode its own URL, ``http://127.0.0.1:<port>/<token>/mcp``
(the token is random and unguessable, so a harness reaches its own world only; on Linux only processes of
this process's user are answered, as the token sits on the harness's command line), whose tools are the episode's
(:meth:`~bizsim.runs.live.Episode.tools`, the declarations ``bizsim mcp`` serves) and whose every call is one
:meth:`~bizsim.runs.live.Episode.step_tool`: recorded, rewarded and windowed as every stepping surface's.

The server runs on a thread of its own with its own event loop, so a world's step never holds up the caller's
loop and the server installs no signal handler. Requests are stateless (no MCP session to lose: a harness that
reconnects carries on); a call after the episode's end answers ``{"error", "hint"}`` as an error result.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import secrets
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from bizsim.simcore.errors import BizSimError, ConfigError

from bizsim.runs.live import Episode

__all__ = ["MAX_TOOL_NAME_CHARS", "EpisodeMCPHost", "Stepped"]

#: The longest tool name a call may carry (every command's is far shorter); a longer one is refused unread.
MAX_TOOL_NAME_CHARS = 200

#: Called after every call a harness makes: the episode, and the reward of the step (0.0 for a refused call).
Stepped = Callable[[Episode, float], None]

#: The episode a request's path names, for the handlers (the SDK runs them in tasks that copy the context).
_current: contextvars.ContextVar[tuple[Episode, Stepped] | None] = contextvars.ContextVar("bizsim_episode",
                                                                                         default=None)
#: The kernel's table of IPv4 TCP connections, with each end's owning uid (Linux).
_TCP_TABLE = "/proc/net/tcp"
#: Seconds to wait for the server thread to listen, or to stop.
_THREAD_WAIT_S = 30.0


class EpisodeMCPHost:
    """One MCP server for any number of episodes, each at its own path (see the module's description).

    Use it as a context manager, or :meth:`start` and :meth:`stop` it.
    """

    def __init__(self) -> None:
        self._episodes: dict[str, tuple[Episode, Stepped]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self.port = 0

    def start(self) -> Self:
        """Listen on a free port of 127.0.0.1 and serve from a daemon thread; returns once it listens.

        Raises:
            ConfigError: the ``mcp`` SDK is missing, or the server did not come up.
        """
        try:
            import uvicorn  # noqa: F401
            from mcp.server.streamable_http_manager import StreamableHTTPSessionManager  # noqa: F401
        except ImportError as exc:
            raise ConfigError(f"serving a world's tools needs the mcp SDK and uvicorn ({exc.name} is missing); "
                              "install verifiers 0.4, which brings both") from None
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        self.port = sock.getsockname()[1]
        self._thread = threading.Thread(target=self._run, args=(sock,), name="bizsim-mcp-host", daemon=True)
        self._thread.start()
        if not self._ready.wait(_THREAD_WAIT_S) or self._failed is not None:
            raise ConfigError(f"the episodes' MCP server did not start: {self._failed!r}")
        return self

    def stop(self) -> None:
        """Stop serving (the episodes themselves are their owners' to close). Safe to call twice."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(_THREAD_WAIT_S)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def add(self, episode: Episode, stepped: Stepped) -> tuple[str, str]:
        """Serve ``episode``'s tools; returns ``(url, token)`` (give :meth:`remove` the token when done)."""
        if self._thread is None:
            raise BizSimError("the MCP host is not started; call start() first")
        token = secrets.token_urlsafe(18)
        with self._lock:
            self._episodes[token] = (episode, stepped)
        return f"http://127.0.0.1:{self.port}/{token}/mcp", token

    def remove(self, token: str) -> None:
        """Stop serving an episode; later requests to its URL answer 404."""
        with self._lock:
            self._episodes.pop(token, None)

    # -- the server thread -----------------------------------------------------
    def _run(self, sock: socket.socket) -> None:
        try:
            asyncio.run(self._serve(sock))
        except BaseException as exc:  # noqa: BLE001 - reported to start(), which waits on it
            self._failed = exc
            self._ready.set()
        finally:
            sock.close()

    async def _serve(self, sock: socket.socket) -> None:
        import uvicorn
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        from mcp.server.transport_security import TransportSecuritySettings

        # Only requests addressed to a loopback name, and no other site's page (the SDK's DNS-rebinding check).
        loopback = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=["127.0.0.1:*", "localhost:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*"])
        manager = StreamableHTTPSessionManager(app=_server(), json_response=True, stateless=True,
                                               security_settings=loopback)

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return
            if not _same_user(scope):
                await _answer(send, 403, "This server answers only its own user's processes.",
                              "Run the harness as the user that runs the evaluation.")
                return
            parts = scope["path"].strip("/").split("/")
            with self._lock:
                entry = self._episodes.get(parts[0]) if len(parts) == 2 and parts[1] == "mcp" else None
            if entry is None:
                await _not_found(send)
                return
            token = _current.set(entry)
            try:
                await manager.handle_request(scope, receive, send)
            finally:
                _current.reset(token)

        config = uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False)
        self._server = server = uvicorn.Server(config)
        async with manager.run():
            serving = asyncio.ensure_future(server.serve(sockets=[sock]))
            while not server.started and not serving.done():
                await asyncio.sleep(0.01)
            if not server.started:
                await serving  # its error, if it had one
                raise RuntimeError("uvicorn stopped before it listened")
            self._ready.set()
            await serving


async def _not_found(send: Any) -> None:
    await _answer(send, 404, "No episode is served at this path.", "Use the URL the rollout was given.")


async def _answer(send: Any, status: int, message: str, hint: str) -> None:
    body = json.dumps({"error": message, "hint": hint})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body.encode()})


def _same_user(scope: dict[str, Any]) -> bool:
    """Whether the request's connection was opened by this process's user (Linux; elsewhere always True).

    The token alone does not keep other accounts out: verifiers hands the URL to the harness on its command line
    (``--mcp-config``), which every local user can read in the process list. On Linux the kernel's TCP table
    names the owner of the client's end of a loopback connection, as ``bizsim serve`` checks its socket's peer.
    """
    try:
        table = Path(_TCP_TABLE).read_text()
    except OSError:
        return True  # no /proc/net/tcp (not Linux): the token is the only key
    client, server = scope.get("client"), scope.get("server")
    if not client or not server:
        return False
    try:
        ends = [f"{socket.inet_aton(host)[::-1].hex().upper()}:{port:04X}" for host, port in (client, server)]
    except OSError:
        return False
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) > 7 and fields[1:3] == ends:
            return fields[7] == str(os.getuid())
    return False  # the connection is gone, or is not one of this machine's


def _server() -> Any:
    """The SDK's low-level server: its tools are those of the episode the request's path names."""
    from mcp import types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        entry = _current.get()
        episode = entry[0] if entry else None
        tools = [] if episode is None else [
            types.Tool(name=d["function"]["name"], description=d["function"]["description"],
                       input_schema=d["function"]["parameters"]) for d in episode.tools()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        entry = _current.get()
        if entry is None:
            return _refused("No episode is served at this path.", "Use the URL the rollout was given.")
        episode, stepped = entry
        if len(params.name) > MAX_TOOL_NAME_CHARS:
            stepped(episode, 0.0)
            return _refused(f"The tool name is {len(params.name):,} characters long; the limit is "
                            f"{MAX_TOOL_NAME_CHARS}.", "Call one of the tools listed.")
        if episode.done or episode.truncated:
            why = "its window is over" if not episode.done else f"the world ended: {episode.world.status.value}"
            stepped(episode, 0.0)
            return _refused(f"The episode is over ({why}); nothing ran.", "Stop calling tools.")
        try:
            text, reward, _done, info = episode.step_tool(params.name, params.arguments or {})
        except BizSimError as exc:  # closed under the call: nothing ran
            stepped(episode, 0.0)
            return _refused(f"{exc}.", "Stop calling tools.")
        stepped(episode, reward)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=info["error"])

    return Server("bizsim", on_list_tools=list_tools, on_call_tool=call_tool)


def _refused(message: str, hint: str) -> Any:
    from mcp import types

    text = json.dumps({"error": message, "hint": hint})
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
