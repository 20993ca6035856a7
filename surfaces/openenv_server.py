"""Any registered world as an OpenEnv environment: reset, step and state over HTTP and WebSocket on 127.0.0.1.

OpenEnv (``openenv-core``) is the environment-server contract TRL's GRPO trainer and other trainers talk to. A
client (``openenv.core.GenericEnvClient``, or any ``EnvClient``) opens a WebSocket session at ``/ws``; each session
has its own :class:`BizSimEnvironment`, so one server holds many episodes at once (``max_episodes``). Every
``reset`` opens a new episode, recorded as it goes into its own run directory under ``out`` (named
``<n>-seed<seed>``, ``n`` counting from 1 on this server), which ``bizsim verify`` accepts after every answered
step; the session's end (the client closes or goes away) closes it.

Actions are one command line (``{"command": "task accept --task-id Task-42"}``) or one tool call (``{"tool":
"task_accept", "arguments": {"task_id": "Task-42"}}``). The observation's ``text`` is the world's prompt and state
after ``reset`` (with the world's ``tools``) and the command's answer as JSON text after ``step``; the reward of a
step is the change of the world's metric it caused, times ``reward_scale``, so an episode's rewards sum to the
metric change over it (see :class:`~bizsim.runs.live.Episode`); with ``reward="shaped"`` each step adds ``sum_i w_i
x`` the change of the world's sub-metrics (:mod:`bizsim.runs.rewards`). ``done`` is true once the world ended or the
episode's window is over; a step after that, or before any reset, answers ``{"error", "hint"}`` and changes
nothing.

OpenEnv's stateless ``POST /reset`` and ``POST /step`` build a fresh environment for each request (its design):
a ``/reset`` records a run of no step (at most ``max_episodes`` of them a server; then 429), and a ``/step``
answers that no episode is open. Train through sessions. A refused request is answered with its rule over HTTP as
over WebSocket (422), and a body or message nested past :data:`MAX_MESSAGE_DEPTH` is refused before OpenEnv parses it.

Needs the ``openenv`` extra (``pip install -e ".[openenv]"`` in the bizsim checkout; tested with openenv-core 0.3.0).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

try:
    from openenv.core.env_server.http_server import create_fastapi_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
    from pydantic import Field, model_validator
    from pydantic_core import PydanticCustomError
except ImportError as exc:  # pragma: no cover - depends on the environment
    from bizsim.simcore.extras import install_hint

    raise ImportError(f"bizsim.surfaces.openenv_server needs openenv-core: {install_hint('openenv')}") from exc

from bizsim.simcore.errors import BizSimError, ConfigError
from bizsim.simcore.limits import MAX_CALL_CHARS, MAX_CLIENT_NAME_CHARS
from bizsim.simcore.untrusted_json import MAX_DEPTH, text_deeper
from bizsim.simcore.registry import world_spec

from bizsim.runs.live import Episode
from bizsim.runs.rewards import reward_rule
from bizsim.surfaces._bounded_server import LOOPBACK, LOOPBACK_HOST, LOOPBACK_ORIGIN
from bizsim.surfaces._rl_args import (check_count, check_preset, check_reward_scale, check_seed, check_start,
                                      check_world)
from bizsim.surfaces._run_folders import RunFolders

__all__ = ["MAX_EPISODES", "BizSimAction", "BizSimEnvironment", "BizSimObservation", "BizSimState", "EpisodeRuns",
           "build_app", "serve"]

#: The most episodes one server holds at once (OpenEnv's ``max_concurrent_envs``): each is a live world.
MAX_EPISODES = 1024
#: The longest tool name an action may carry (every command's tool name is far shorter).
_MAX_TOOL_NAME = 200


class BizSimAction(Action):
    """One command line (``command``) or one tool call (``tool`` and its ``arguments``), never both."""

    command: str | None = Field(default=None, max_length=MAX_CALL_CHARS, description="a command line, e.g. 'help'")
    tool: str | None = Field(default=None, max_length=_MAX_TOOL_NAME, description="a tool name, e.g. 'task_accept'")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool call's arguments")

    @model_validator(mode="after")
    def _one_call(self) -> BizSimAction:
        if (self.command is None) == (self.tool is None):
            # A custom error, not a ValueError: OpenEnv 0.3 cannot serialise a ValueError inside a validation error
            # and would end the session instead of answering the rule.
            raise PydanticCustomError("one_call", "an action is a command line ('command') or a tool call ('tool' "
                                      "with 'arguments'), one of them")
        return self


class BizSimObservation(Observation):
    """What the agent sees: ``text`` for the model, the same answer as data, and the episode's figures."""

    text: str = ""
    result: dict[str, Any] = Field(default_factory=dict)
    tools: list[dict[str, Any]] = Field(default_factory=list, description="the world's tools (after reset only)")
    metric: float = 0.0
    status: str = ""
    time: str = ""
    truncated: bool = False
    turns: int = 0
    error: bool = False


class BizSimState(State):
    """The session's episode: world, seed, run directory (its name under the server's ``out``) and figures."""

    world: str = ""
    seed: int | None = None
    run: str | None = None
    metric: float = 0.0
    start_metric: float = 0.0
    status: str = ""
    turns: int = 0
    done: bool = False


class EpisodeRuns:
    """What every episode of one server shares: the world, preset, start, window, scale, and where runs go.

    Args:
        world: a registered world.
        preset: its preset name (or a ``.toml`` file).
        seed: the seed of a reset that names none.
        out: the folder each episode's run directory is made in.
        start: where episodes start (:class:`~bizsim.agents.start.StartState` or a snapshot); default fresh.
        window: how long an episode lasts (``N`` turns, ``{"days": D}``); default until the world ends.
        reward: ``"delta"`` (each step's metric change), ``"terminal"`` (all of it on the step that ends the
            episode) or ``"shaped"`` (``delta`` plus the weighted change of the world's sub-metrics); see
            :mod:`bizsim.runs.rewards`.
        reward_weights: ``"shaped"`` only: weights by sub-metric name over the world's declared defaults.
        reward_scale: the reward is the metric change times this (a finite number > 0).

    Raises:
        ConfigError: any argument that is not valid, named with its rule.
    """

    def __init__(self, world: str, preset: str = "default", seed: int = 1, *, out: str | Path, start: Any = None,
                 window: Any = None, reward: str = "delta", reward_scale: float = 1.0,
                 reward_weights: Any = None) -> None:
        from bizsim.agents.start import Window

        self.world = check_world(world)
        self.preset = preset
        check_preset(self.world, preset, "openenv")
        self.seed = check_seed(seed)
        self.start = check_start(self.world, start)
        self.window = Window.of(window)
        self.reward_rule = reward_rule(self.world, reward, reward_weights)
        self.reward, self.reward_weights = reward, reward_weights
        self.reward_scale = check_reward_scale(reward_scale)
        self._folders = RunFolders(out)
        self.out = self._folders.out

    def open(self, seed: int, episode_id: str | None) -> Episode:
        """A new recorded episode on ``seed``, in the next free run directory."""
        folder = self._folders.next(seed)
        metadata = {} if episode_id is None else {"episode_id": str(episode_id)[:MAX_CLIENT_NAME_CHARS]}
        return Episode(self.world, self.preset, seed, out=folder, start=self.start, window=self.window,
                       surface="openenv", metadata=metadata, reward=self.reward,
                       reward_weights=self.reward_weights)


class BizSimEnvironment(Environment[BizSimAction, BizSimObservation, BizSimState]):
    """One session's environment: at most one open episode, replaced by each reset (see the module's description)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, runs: EpisodeRuns) -> None:
        super().__init__()
        self.runs = runs
        self.episode: Episode | None = None
        self.steps = 0

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> BizSimObservation:
        """Close the session's episode and open a new one on ``seed`` (default: the server's)."""
        if kwargs:
            raise ConfigError(f"reset takes seed and episode_id, not {sorted(kwargs)[:5]}")
        chosen = self.runs.seed if seed is None else check_seed(seed)
        self.close()
        self.episode = episode = self.runs.open(chosen, episode_id)
        self.steps = 0
        world = episode.world
        opening = (f"{episode.system_prompt()}\n\nIt is {world.now_iso}. Your score is the change in "
                   f"{world.summary()['metric']}; the {world.advance_command} command moves time on.\n"
                   f"Current state: {json.dumps(world.observation(), sort_keys=True, default=str)}")
        return BizSimObservation(text=opening, tools=episode.tools(), metric=episode.metric,
                                 status=world.status.value, time=world.now_iso, reward=0.0, done=False)

    def step(self, action: BizSimAction, timeout_s: float | None = None, **kwargs: Any) -> BizSimObservation:
        """Run the action as the world's command; the reward is the metric change it caused, scaled."""
        episode = self.episode
        if episode is None:
            return _refusal("No episode is open.", "Send reset first.")
        try:
            if action.command is not None:
                text, reward, done, info = episode.step(action.command)
            else:
                text, reward, done, info = episode.step_tool(str(action.tool), action.arguments)
        except BizSimError as exc:
            return _refusal(f"{exc}.", "Send reset for a new episode.")
        self.steps += 1
        return BizSimObservation(text=text, result=info["result"], metric=info["metric"], status=info["status"],
                                 time=info["time"], truncated=info["truncated"], turns=info["turns"],
                                 error=info["error"], reward=reward * self.runs.reward_scale, done=done)

    @property
    def state(self) -> BizSimState:
        """The session's episode as it stands (empty before the first reset)."""
        episode = self.episode
        if episode is None:
            return BizSimState(world=self.runs.world)
        assert episode.root is not None
        return BizSimState(episode_id=episode.metadata.get("episode_id"), step_count=self.steps,
                           world=episode.world.benchmark_id, seed=episode.spec.seed, run=episode.root.name,
                           metric=episode.metric, start_metric=episode.start_metric,
                           status=episode.world.status.value, turns=episode.turns,
                           done=episode.done or episode.truncated)

    def close(self) -> None:
        """Close the session's episode (its run directory is then final)."""
        if self.episode is not None:
            self.episode.close("the OpenEnv session ended or reset")
            self.episode = None


def _refusal(message: str, hint: str) -> BizSimObservation:
    result = {"error": message, "hint": hint}
    return BizSimObservation(text=json.dumps(result), result=result, error=True, reward=0.0, done=True)


def build_app(runs: EpisodeRuns, max_episodes: int = 64) -> Any:
    """The OpenEnv FastAPI app serving ``runs`` (``/ws`` sessions, ``/reset``, ``/step``, ``/state``, ``/schema``).

    Raises:
        ConfigError: ``max_episodes`` is not an integer from 1 to :data:`MAX_EPISODES`.
    """
    limit = check_count(max_episodes, "max_episodes", high=MAX_EPISODES)
    app = create_fastapi_app(functools.partial(BizSimEnvironment, runs), BizSimAction, BizSimObservation,
                             max_concurrent_envs=limit)
    _answer_refusals(app)
    return app


def _answer_refusals(app: Any) -> None:
    """HTTP answers a refused request with its rule, as a WebSocket session does, never a 500 with a traceback:
    a reset bizsim refuses (a seed past 64 bits, an unknown key) and a request whose validation error quotes a
    value JSON cannot write (``1e400`` is read as infinity, which FastAPI's own answer then failed to encode)."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    def answer(status: int, detail: Any) -> Any:
        # Non-finite numbers quoted back as text: strict JSON cannot hold them.
        return JSONResponse({"detail": json.loads(json.dumps(detail, default=str), parse_constant=str)},
                            status_code=status)

    async def refused(_request: Any, exc: Exception) -> Any:
        return answer(422, str(exc))

    async def invalid(_request: Any, exc: Any) -> Any:
        return answer(422, [{k: v for k, v in e.items() if k != "ctx"} for e in exc.errors()])

    async def http_error(_request: Any, exc: Any) -> Any:
        return answer(exc.status_code, exc.detail)

    app.add_exception_handler(BizSimError, refused)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)


#: The largest HTTP request body (``/reset``, ``/step``) the server reads: an action is at most
#: ``MAX_CALL_CHARS`` characters, and its JSON envelope a few more.
MAX_BODY_BYTES = 4 * MAX_CALL_CHARS
#: The deepest nesting of a request body or WebSocket message handed to OpenEnv (which parses with ``json.loads``
#: and recursed out on a 700,000-deep message): a tool call's arguments (``MAX_DEPTH``) and the message's own levels.
MAX_MESSAGE_DEPTH = MAX_DEPTH + 8


class _Guard:
    """Refuse what a web page could send a server on this machine: a ``Host`` that is not loopback (DNS rebinding)
    when the server listens on loopback, an ``Origin`` that is not loopback (any site's script, WebSockets
    included), and an HTTP body past :data:`MAX_BODY_BYTES` (OpenEnv's and uvicorn's own limits cover only
    WebSocket messages)."""

    def __init__(self, app: Any, *, loopback: bool, max_resets: int = 64) -> None:
        self.app = app
        self.loopback = loopback
        # OpenEnv's stateless /reset builds an environment per request and records its episode: each is a run
        # directory, so a server records at most max_resets of them (300 resets made 300 directories).
        self.max_resets = max_resets
        self.resets = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        host, origin = headers.get("host", ""), headers.get("origin")
        foreign_origin = origin is not None and not LOOPBACK_ORIGIN.fullmatch(origin)
        if (self.loopback and not LOOPBACK_HOST.fullmatch(host)) or foreign_origin:
            await _deny(scope, send, 403, "the OpenEnv server answers only this machine's clients")
            return
        if scope["type"] == "websocket":
            await self.app(scope, _shallow_messages(receive, send), send)
            return
        size = headers.get("content-length", "0")
        if not size.isdigit() or int(size) > MAX_BODY_BYTES:
            await _deny(scope, send, 413, f"a request body is at most {MAX_BODY_BYTES:,} bytes")
            return
        body, receive = await _read_body(receive)
        if body is None:
            await _deny(scope, send, 413, f"a request body is at most {MAX_BODY_BYTES:,} bytes")
            return
        if text_deeper(body, MAX_MESSAGE_DEPTH):
            await _deny(scope, send, 400, f"a request body nested deeper than {MAX_MESSAGE_DEPTH} levels is refused")
            return
        if scope.get("path") == "/reset" and scope.get("method") == "POST":
            await self._reset(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _reset(self, scope: Any, receive: Any, send: Any) -> None:
        """A stateless reset, counted while it runs and kept in the count only when it opened an episode."""
        if self.resets >= self.max_resets:
            await _deny(scope, send, 429, f"this server records at most {self.max_resets} episodes from HTTP /reset "
                        "(--max-episodes); play through WebSocket sessions (/ws)")
            return
        self.resets += 1
        opened = [False]

        async def noted(message: Any) -> None:
            if message.get("type") == "http.response.start":
                opened[0] = message.get("status") == 200
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            if not opened[0]:
                self.resets -= 1


async def _read_body(receive: Any) -> tuple[bytes | None, Any]:
    """The whole request body (``None`` past :data:`MAX_BODY_BYTES`, sent in chunks without a length), and a
    ``receive`` that hands it to the app as one message."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_BODY_BYTES:
            return None, receive
        if not message.get("more_body", False):
            break
    body, given = b"".join(chunks), [False]

    async def replay() -> Any:
        if given[0]:
            return await receive()
        given[0] = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


def _shallow_messages(receive: Any, send: Any) -> Any:
    """``receive`` for a WebSocket session that answers a message nested past :data:`MAX_MESSAGE_DEPTH` with
    OpenEnv's own error message (``INVALID_JSON``) and goes on to the next: OpenEnv's handler would recurse out."""

    async def checked() -> Any:
        while True:
            message = await receive()
            data = message.get("text") or message.get("bytes") if message.get("type") == "websocket.receive" else None
            if not data or not text_deeper(data, MAX_MESSAGE_DEPTH):
                return message
            refusal = {"type": "error", "data": {"code": "INVALID_JSON", "message": f"a message nested deeper than "
                                                 f"{MAX_MESSAGE_DEPTH} levels is refused"}}
            await send({"type": "websocket.send", "text": json.dumps(refusal)})

    return checked


async def _deny(scope: Any, send: Any, status: int, text: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": text})
        return
    body = json.dumps({"detail": text}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class _QuietClose:
    """The app, without the traceback OpenEnv 0.3 logs at every session's end: its WebSocket handler closes a
    socket the client has already closed, and Starlette raises ``WebSocketDisconnect`` for that (nothing is lost:
    the session's episode was closed before)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.websockets import WebSocketDisconnect

        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            pass


def serve(runs: EpisodeRuns, *, host: str = "127.0.0.1", port: int = 8000, max_episodes: int = 64,
          ready: Any = None) -> None:
    """Serve ``runs`` until stopped (Ctrl-C, SIGTERM); ``ready(server, port)`` is called once it listens.

    Raises:
        ConfigError: a bad port or ``max_episodes``, or an address that cannot be listened on.
    """
    import uvicorn

    from bizsim.surfaces.mcp_server import bind_http

    loopback = host in LOOPBACK
    app = _Guard(_QuietClose(build_app(runs, max_episodes)), loopback=loopback, max_resets=max_episodes)
    sock = bind_http(host, port, what="OpenEnv")
    bound = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_max_size=4 * MAX_CALL_CHARS,
                                           timeout_graceful_shutdown=5))
    shown = f"[{host}]" if ":" in host else host
    print(f"bizsim openenv: serving {world_spec(runs.world).benchmark_id} at http://{shown}:{bound} "
          f"(WebSocket sessions at /ws); recording episodes into {runs.out}", file=sys.stderr, flush=True)
    if ready is not None:
        ready(server, bound)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
