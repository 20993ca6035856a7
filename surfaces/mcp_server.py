"""``bizsim mcp``: one recorded episode served over the Model Context Protocol, with the official ``mcp`` SDK.

The server offers, for any registered world:

- tools: the world's visible commands, the advance command among them, named and described as their
  declarations say (``task_accept``; the input schema is the command's JSON schema, the description its usage
  and arguments). A call answers the same JSON object as every other surface, as text and as structured
  content; a refused or unknown call is an error result (``isError``) carrying ``{"error", "hint"}``;
- the prompt ``system_prompt``: the world's system prompt;
- the resources ``bizsim://rules`` (the episode's rules and every command's help, Markdown) and
  ``bizsim://result`` (the run's ``result.json`` as it stands; for one seat of an arena, its own seat's record
  and the arena's public view, since the arena's lists every seat's figures); for one seat of an arena
  (:class:`~bizsim.runs.live_arena.ArenaEpisode`, ``--seat mcp``) also ``bizsim://arena``: the seat it plays,
  who plays the others, whose turn it is, and the standings once the arena is over.

Every call goes through :class:`~bizsim.runs.live.Episode`, which records it before it is answered;
the client's ``clientInfo`` is recorded as who played. Transports: stdio (the default), or streamable HTTP on
127.0.0.1 unless another host is named, where one MCP session plays the episode and its end ends it
(:mod:`~bizsim.surfaces.mcp_session_gate`).
"""

from __future__ import annotations

import json
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

from bizsim.simcore.errors import ConfigError

from bizsim.runs.live import Episode
from bizsim.runs.live_arena import ArenaEpisode
from bizsim.surfaces.mcp_session_gate import DEFAULT_IDLE_TIMEOUT_S

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ["ARENA_URI", "PROMPT_NAME", "RESULT_URI", "RULES_URI", "build_server", "require_sdk", "serve"]

PROMPT_NAME = "system_prompt"
RULES_URI = "bizsim://rules"
RESULT_URI = "bizsim://result"
ARENA_URI = "bizsim://arena"


def require_sdk() -> None:
    """Check that the ``mcp`` SDK can be imported (it is imported only where it is used).

    Raises:
        ConfigError: it cannot, naming the extra and how to install it from the checkout.
    """
    try:
        import mcp.server.lowlevel  # noqa: F401
        import mcp_types  # noqa: F401
    except ImportError as exc:
        from bizsim.simcore.extras import install_hint

        raise ConfigError(f"bizsim mcp needs the mcp SDK ({exc.name or exc} is not installed): "
                          f"{install_hint('mcp')}") from None


def build_server(episode: Episode | ArenaEpisode) -> Server[Any]:
    """An MCP server (the SDK's low-level ``Server``) whose tools, prompt and resources play ``episode``."""
    from mcp import types
    from mcp.server.lowlevel import Server

    world = episode.world
    tools = [
        types.Tool(
            name=decl["function"]["name"], description=episode.command_help(decl["function"]["name"]),
            input_schema=decl["function"]["parameters"],
        )
        for decl in episode.tools()
    ]
    last: list[tuple[Any, Any]] = []  # the client last recorded: each request checks it, one comparison

    def note_client(ctx: Any) -> None:
        # Not one check per connection: on the 2026-07-28 path every request carries its own client info.
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        if info is None:
            return
        key = (info.name, info.version)
        if last and last[0] == key:
            return
        last[:] = [key]
        episode.set_client(*key)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        note_client(ctx)
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        note_client(ctx)
        outcome = episode.call_tool(params.name, params.arguments or {})
        return types.CallToolResult(content=[types.TextContent(text=outcome.text())],
                                    structured_content=outcome.result, is_error=not outcome.ok)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        note_client(ctx)
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=PROMPT_NAME, description=f"The system prompt of {world.benchmark_id}: who you are and how to play.")])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        note_client(ctx)
        if params.name != PROMPT_NAME:
            from mcp.shared.exceptions import MCPError

            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name[:80]!r}; the prompt is {PROMPT_NAME!r}")
        return types.GetPromptResult(
            description=f"{world.benchmark_id} system prompt",
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=episode.system_prompt()))])

    arena_view = getattr(episode, "arena_view", None)  # one seat of an arena
    resources = [
        types.Resource(uri=RULES_URI, name="rules", mime_type="text/markdown",
                       description="The episode's rules, budgets and every command's help."),
        types.Resource(uri=RESULT_URI, name="result", mime_type="application/json",
                       description="The run's result.json as it stands: the figures so far."),
    ]
    if arena_view is not None:
        resources.append(types.Resource(
            uri=ARENA_URI, name="arena", mime_type="application/json",
            description="The arena: your seat, who plays the others, whose turn it is, the standings once it is over."))

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        note_client(ctx)
        return types.ListResourcesResult(resources=resources)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        note_client(ctx)
        uri = str(params.uri)
        if uri == RULES_URI:
            text, mime = episode.rules(), "text/markdown"
        elif uri == RESULT_URI:  # one seat of an arena reads its own record: rivals' figures are theirs
            data = episode.seat_result() if arena_view is not None else episode.result()
            text, mime = json.dumps(data, indent=2, default=str), "application/json"
        elif uri == ARENA_URI and arena_view is not None:
            text, mime = json.dumps(arena_view(), indent=2, default=str), "application/json"
        else:
            from mcp.shared.exceptions import MCPError

            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri[:80]!r}; see resources/list")
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    return Server(
        "bizsim", version=_version(), title=f"bizsim {world.benchmark_id}",
        instructions=(_seat_line(episode) +
                      f"One episode of {world.benchmark_id} (preset {episode.preset_label}, seed {episode.spec.seed}). "
                      f"Read the prompt {PROMPT_NAME!r} first; each tool is one command; time moves only with "
                      f"{world.advance_command.replace(' ', '_')!r}. Every call is recorded."),
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts, on_get_prompt=get_prompt,
        on_list_resources=list_resources, on_read_resource=read_resource,
    )


def _seat_line(episode: Any) -> str:
    """For one seat of an arena: which seat the client plays and where the arena's state is read."""
    view = getattr(episode, "arena_view", None)
    if view is None:
        return ""
    arena = view()
    return (f"You play seat {arena['seat']} of {arena['seats']} in {arena['world']}; the other seats are built-in "
            f"agents, acting in their turns between yours (read {ARENA_URI}). ")


def bind_http(host: str, port: int, what: str = "MCP") -> socket.socket:
    """A listening socket on ``host:port`` for :func:`serve`, taken before the episode is opened, so a port in use
    is an error that leaves the run directory untouched.

    Raises:
        ConfigError: the port is not from 0 to 65535, or the address cannot be listened on (in use, not this
            machine's, no permission).
    """
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError(f"port(={port!r:.40}) must be an integer from 0 to 65535 (0: any free port)")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except (OSError, UnicodeError) as exc:  # a host name too long for IDNA is a UnicodeError
        sock.close()
        raise ConfigError(f"cannot serve {what} on {host[:200]}:{port}: {exc.strerror if isinstance(exc, OSError) else exc}"
                          ) from None
    return sock


def serve(episode: Episode | ArenaEpisode, *, http_port: int | None = None, host: str = "127.0.0.1",
          idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S, http_socket: socket.socket | None = None) -> None:
    """Serve ``episode`` until the client leaves or the server is stopped (Ctrl-C, SIGTERM).

    Over HTTP (``http_port``, or a socket from :func:`bind_http`) the address is taken before anything is served.

    Over stdio the client leaves when it closes standard input; over HTTP when it closes its MCP session, or when
    the session has had no request in flight for ``idle_timeout`` seconds
    (:mod:`~bizsim.surfaces.mcp_session_gate`). The episode is closed on the way out, whatever ends the server; a
    kill leaves it recorded up to the last answered call.
    """
    if isinstance(idle_timeout, bool) or not isinstance(idle_timeout, (int, float)) or not 0 < idle_timeout < 1e9:
        raise ConfigError(f"idle_timeout(={idle_timeout!r:.40}) must be a finite number of seconds above 0")
    previous = signal.signal(signal.SIGTERM, _exit)
    detail = "server error"  # what an unexpected exception leaves; the episode is closed all the same
    try:
        if http_port is None and http_socket is None:
            _serve_stdio(episode)
            detail = "client disconnected"
        else:
            _serve_http(episode, http_socket or bind_http(host, http_port or 0), idle_timeout)
            detail = "server stopped"
    except (KeyboardInterrupt, SystemExit):
        detail = "server stopped"
    finally:
        signal.signal(signal.SIGTERM, previous)
        episode.close(detail)


def _serve_stdio(episode: Episode | ArenaEpisode) -> None:
    # bizsim's own stdio transport: the SDK's leaves a line it cannot validate unanswered (mcp_stdio says why).
    from .mcp_stdio import serve_stdio

    serve_stdio(build_server(episode))


def _serve_http(episode: Episode | ArenaEpisode, sock: socket.socket, idle_timeout: float) -> None:
    import uvicorn

    from bizsim.surfaces.mcp_session_gate import SessionGate

    # The gate keeps the session's idle time (it ends the episode with it); the SDK's own timeout is turned off.
    host, port = sock.getsockname()[:2]
    sdk_app = build_server(episode).streamable_http_app(host=host, session_idle_timeout=None)
    server: uvicorn.Server | None = None

    def stop() -> None:
        if server is not None:
            server.should_exit = True

    app = SessionGate(sdk_app, episode, stop, idle_timeout=idle_timeout)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"bizsim mcp: serving {episode.world.benchmark_id} at http://{shown}:{port}/mcp; recording into "
          f"{episode.root}", file=sys.stderr, flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def _exit(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bizsim")
    except PackageNotFoundError:
        return "unknown"
