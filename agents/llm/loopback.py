"""A small OpenAI-compatible chat server on 127.0.0.1 playing a scripted policy (tests, notebooks, RL demos).

It answers ``POST /v1/chat/completions`` (and ``/chat/completions``) with a
reply chosen by a scripted *policy* (a function of the request's messages and
tools), reports deterministic token usage, and injects faults on chosen
requests. It can play a real server's shapes (``flavor``): llama.cpp's
``GET /props``, vLLM's ``GET /v1/models``, each one's refusal of a prompt past
its context window, and a server that drops the tools. It binds an ephemeral loopback port, serves from a daemon thread,
and stops itself after ``max_requests`` requests or ``lifetime_s`` seconds,
so a forgotten server cannot outlive its test.

The policy has the :data:`~bizsim.agents.llm.scripted.Policy` shape ``ScriptedClient`` plays in process, so one
policy serves both. Standard library only.

>>> # with LoopbackLLMServer(policy) as server: LiteLLMClient("openai/m", api_base=server.url, api_key="k")
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from ._loopback_shapes import DIALECTS, PrefixCache, prompt_units, render, to_openai
from ._loopback_servers import FLAVORS, info_route, overflow, tools_refused
__all__ = ["FAULTS", "FLAVORS", "LoopbackLLMServer", "Reply", "usage_for"]

#: A policy's answer: ``{"content": str | None, "tool_calls": [{"name": str, "arguments": str | dict}]}``.
Reply = dict
Policy = Callable[[list[dict], list[dict] | None], Reply]

#: Faults the server can inject on a request, by name.
FAULTS = (
    "timeout", "429", "500", "503", "401", "404", "empty", "invalid_json_args", "unknown_tool", "oversized", "negative_usage",
    "garbage", "no_choices",
)


def usage_for(body: Mapping[str, Any], reply: Reply) -> dict:
    """Deterministic token counts: about four characters a token, as tokenizers roughly give; the tools' schemas
    count in the prompt, as a server renders them into it."""
    prompt = _prompt_tokens(body)
    text = (reply.get("content") or "") + "".join(
        c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"]) for c in reply.get("tool_calls") or []
    )
    completion = 1 + len(text) // 4
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _prompt_tokens(body: Mapping[str, Any]) -> int:
    tools = body.get("tools")
    chars = len(json.dumps(body.get("messages", []), sort_keys=True))
    chars += len(json.dumps(tools, sort_keys=True)) if tools else 0
    return max(1, chars // 4)


class LoopbackLLMServer:
    """An OpenAI-compatible chat-completions server playing a scripted policy.

    Args:
        policy: ``policy(messages, tools) -> Reply``; the default answers "ok".
        delay_s: seconds to wait before every answer (a slow model).
        faults: request index (0-based, over all chat requests) -> fault name
            from :data:`FAULTS`, or a function ``index -> name | None``.
        timeout_sleep_s: how long a ``timeout`` fault stalls before answering.
        max_requests: answer at most this many requests, then stop.
        lifetime_s: stop after this many seconds whatever happens.
        dialect: the provider shape spoken: ``openai`` (chat completions), ``anthropic`` (``/v1/messages``) or
            ``gemini`` (``/models/MODEL:generateContent``); a policy reads every shape as OpenAI's.
        cache: bill prompts like a provider's prompt cache: ``auto`` (every repeated prefix, as OpenAI, DeepSeek
            and Gemini do), ``explicit`` (only prefixes ending at a ``cache_control`` mark, as Anthropic does), or
            ``None`` (no cache).
        reasoning_tokens: hidden reasoning tokens reported in every answer (counted in its completion tokens).
        max_in_flight: answer at most this many requests at once (a model server's slots); the others wait their
            turn. :attr:`peak_in_flight` counts the requests received at once either way, so a test or benchmark
            sees how many a client sent together.
        flavor: the server played, for what it reports and how it refuses (:mod:`._loopback_servers`):
            ``openai``, ``llama.cpp`` (``GET /props``) or ``vllm`` (``GET /v1/models`` with ``max_model_len``).
        context_tokens: the context window: a prompt past it is refused with the flavor's own 400 (``None``: no
            limit, and none reported).
        drops_tools: render no tools into the prompt and show the policy none, as llama.cpp does with a chat
            template that declares no tools.
        refuses_tools: answer a request with tools with vLLM's 400 for a server started without tool calling.
    """

    #: The paths answered (anything else is a 404).
    routes: tuple[str, ...] = ("/v1/chat/completions", "/chat/completions")

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        delay_s: float = 0.0,
        faults: Mapping[int, str] | Callable[[int], str | None] | None = None,
        timeout_sleep_s: float = 3.0,
        max_requests: int = 20_000,
        lifetime_s: float = 300.0,
        dialect: str = "openai",
        cache: str | None = None,
        reasoning_tokens: int = 0,
        max_in_flight: int | None = None,
        flavor: str = "openai",
        context_tokens: int | None = None,
        drops_tools: bool = False,
        refuses_tools: bool = False,
    ) -> None:
        if flavor not in FLAVORS:
            raise ValueError(f"flavor(={flavor!r}) must be one of {', '.join(FLAVORS)}")
        self.flavor = flavor
        self.context_tokens = context_tokens
        self.drops_tools = drops_tools
        self.refuses_tools = refuses_tools
        self.overflows = 0  # requests refused as longer than context_tokens
        if dialect not in DIALECTS:
            raise ValueError(f"dialect(={dialect!r}) must be one of {', '.join(DIALECTS)}")
        if cache not in (None, "auto", "explicit"):
            raise ValueError(f"cache(={cache!r}) must be 'auto', 'explicit' or None")
        if max_in_flight is not None and max_in_flight < 1:
            raise ValueError(f"max_in_flight(={max_in_flight}) must be >= 1 or None")
        self.dialect = dialect
        self.max_in_flight = max_in_flight
        self._slots = threading.BoundedSemaphore(max_in_flight) if max_in_flight is not None else None
        self.in_flight = 0          # requests received and not yet answered
        self.peak_in_flight = 0     # the most received at once
        self.cache = None if cache is None else PrefixCache(explicit=cache == "explicit")
        self.reasoning_tokens = reasoning_tokens
        self.policy = policy or (lambda messages, tools: {"content": "ok", "tool_calls": []})
        self.delay_s = delay_s
        self._faults = faults or {}
        self.timeout_sleep_s = timeout_sleep_s
        self.max_requests = max_requests
        self.lifetime_s = lifetime_s
        self.lock = threading.Lock()
        self.requests = 0           # every chat request, faults and pre-flights included
        self.policy_calls = 0       # requests the policy answered (the model "thought")
        self.preflights = 0         # requests that look like a pre-flight ping (max_tokens 1, no tools)
        self.usages: list[dict] = []  # usage reported on every successful answer, in order
        self.auth_headers: list[str] = []
        self.policy_errors: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # lifecycle ---------------------------------------------------------------
    @property
    def url(self) -> str:
        """The OpenAI-style base URL, ``http://127.0.0.1:PORT/v1``."""
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> Self:
        """Bind an ephemeral loopback port and serve from a daemon thread."""
        handler = _make_handler(self)
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if self._timer is not None:
            self._timer.cancel()
        if httpd is not None:
            httpd.shutdown()  # never called from the serving thread, so this cannot deadlock
            httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # answering ---------------------------------------------------------------
    def accepts(self, path: str) -> bool:
        """True when ``path`` is a chat route of this server's dialect."""
        path = path.split("?", 1)[0].rstrip("/")
        if self.dialect == "gemini":
            return path.endswith(":generateContent")
        return path in (("/v1/messages",) if self.dialect == "anthropic" else self.routes)

    def fault_for(self, index: int) -> str | None:
        """The fault injected on request ``index``, if any."""
        if callable(self._faults):
            return self._faults(index)
        return self._faults.get(index)

    def answer(self, body: dict, auth: str) -> tuple[int, bytes]:
        """Status and body for one chat request."""
        return self.respond(body, auth)[:2]

    def respond(self, body: dict, auth: str) -> tuple[int, bytes, dict[str, str]]:
        """Status, body and extra headers for one chat request."""
        with self.lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            with self._slots if self._slots is not None else contextlib.nullcontext():
                status, payload, fault = self._respond(body, auth)
        finally:
            with self.lock:
                self.in_flight -= 1
        if payload.startswith(b"data: "):
            return status, payload, {"Content-Type": "text/event-stream"}
        retry = fault.removeprefix("429 retry-after ") if fault and fault.startswith("429 retry-after ") else None
        return status, payload, {"Retry-After": retry} if retry else {}

    def _respond(self, body: dict, auth: str) -> tuple[int, bytes, str | None]:
        with self.lock:
            index = self.requests
            self.requests += 1
            self.auth_headers.append(auth)
            if index >= self.max_requests:
                return 503, _error("the test server's request budget is spent"), None
            if self.drops_tools:
                body = {k: v for k, v in body.items() if k not in ("tools", "tool_choice")}
            if self.refuses_tools and body.get("tools"):
                return 400, tools_refused(), "tools"
            limit = body.get("max_tokens", (body.get("generationConfig") or {}).get("max_output_tokens"))
            refused = overflow(self.flavor, self.context_tokens, _prompt_tokens(body), limit) \
                if self.dialect == "openai" else None
            if refused is not None:
                self.overflows += 1
                return refused[0], refused[1], "context"
            preflight = limit == 1  # a ping: answered without asking the policy
            if preflight:
                self.preflights += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        fault = self.fault_for(index)
        if fault == "timeout":
            time.sleep(self.timeout_sleep_s)
            return 200, b"{}", fault
        if fault == "401":  # as providers do, the refusal quotes the key it was given
            return 401, _error(f"injected 401: incorrect API key provided: {auth.removeprefix('Bearer ')}"), fault
        if fault in ("429", "500", "503", "404"):
            return int(fault), _error(f"injected {fault}"), fault
        if fault is not None and fault.startswith("429 retry-after "):  # e.g. "429 retry-after 7" or an HTTP date
            return 429, _error(f"injected {fault}"), fault
        if fault == "garbage":
            return 200, b"<html>not json", fault
        if fault == "no_choices":
            return 200, json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"), "choices": []}).encode(), fault
        if preflight:
            reply: Reply = {"content": "ok", "tool_calls": []}
        else:
            try:
                reply = self._policy_reply(body)
            except Exception as exc:  # noqa: BLE001 - a broken test policy answers 500, visibly
                with self.lock:
                    self.policy_errors.append(repr(exc))
                return 500, _error(f"the test policy raised {exc!r}"), fault
        reply = _apply_fault(fault, reply)
        if self.dialect == "openai" and self.cache is None and not self.reasoning_tokens:
            usage = usage_for(body, reply)
        else:
            usage = self._billed_usage(body, reply)
        if fault == "negative_usage":
            usage = {**usage, "prompt_tokens": -5, "total_tokens": usage["completion_tokens"] - 5}
        with self.lock:
            self.usages.append(usage)
        if self.dialect != "openai":
            seed = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:10]
            return 200, json.dumps(render(self.dialect, body, reply, usage, seed)).encode(), fault
        wire = {k: v for k, v in usage.items() if k in ("prompt_tokens", "completion_tokens", "total_tokens")}
        if usage.get("cache_read_tokens"):
            wire["prompt_tokens_details"] = {"cached_tokens": usage["cache_read_tokens"]}
        if usage.get("reasoning_tokens"):
            wire["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning_tokens"]}
        completion = _completion(body, reply, wire)
        if body.get("stream") is True:  # an agent program that streams (verifiers 0.4's harnesses do)
            return 200, _event_stream(completion, bool((body.get("stream_options") or {}).get("include_usage"))), fault
        return 200, json.dumps(completion).encode(), fault

    def _billed_usage(self, body: dict, reply: Reply) -> dict:
        """Usage of every class: the prompt in cache units, read and written as the configured cache would."""
        units = prompt_units(self.dialect, body)
        prompt = sum(n for _, n, _ in units)
        with self.lock:
            read, write = self.cache.bill(units) if self.cache is not None else (0, 0)
        completion = usage_for({}, reply)["completion_tokens"] + self.reasoning_tokens
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                "cache_read_tokens": read, "cache_write_tokens": write, "reasoning_tokens": self.reasoning_tokens}

    def info(self, path: str) -> tuple[int, bytes]:
        """Status and body of a ``GET``: what the flavor's server reports about itself."""
        found = info_route(self.flavor, path.split("?", 1)[0].rstrip("/"), self.context_tokens)
        return (404, _error(f"no route {path}")) if found is None else (200, json.dumps(found).encode())

    def _policy_reply(self, body: dict) -> Reply:
        with self.lock:
            self.policy_calls += 1
        messages, tools = to_openai(self.dialect, body)
        return self.policy(messages, tools)


def _apply_fault(fault: str | None, reply: Reply) -> Reply:
    if fault == "empty":
        return {"content": "", "tool_calls": []}
    if fault == "invalid_json_args":
        return {"content": None, "tool_calls": [{"name": "run_command", "arguments": '{"command": "company status"'}]}
    if fault == "unknown_tool":
        return {"content": None, "tool_calls": [{"name": "launch_rocket", "arguments": "{}"}]}
    if fault == "oversized":
        return {"content": "x" * 1_000_000, "tool_calls": reply.get("tool_calls") or []}
    return reply


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "test_fault", "code": None}}).encode()


def _completion(body: dict, reply: Reply, usage: dict) -> dict:
    seed = hashlib.sha256(json.dumps(body.get("messages", [])[-1:], sort_keys=True).encode()).hexdigest()[:10]
    calls = [
        {
            "id": f"call_{seed}_{i}",
            "type": "function",
            "function": {
                "name": c["name"],
                "arguments": c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"]),
            },
        }
        for i, c in enumerate(reply.get("tool_calls") or [])
    ]
    message: dict = {"role": "assistant", "content": reply.get("content")}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{seed}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model", "unknown"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": usage,
    }


def _event_stream(completion: dict, with_usage: bool) -> bytes:
    """A completion as OpenAI's server-sent chunks: the whole message in one delta, the finish reason, the usage
    when asked (``stream_options.include_usage``), then ``[DONE]``."""
    head = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    choice = completion["choices"][0]
    message = choice["message"]
    delta: dict = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(message["tool_calls"])]
    chunks = [head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
              head | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}]
    if with_usage:
        chunks.append(head | {"choices": [], "usage": completion["usage"]})
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


class _Server(ThreadingHTTPServer):
    """A thread per connection, and a listen backlog for a benchmark's burst of concurrent clients (the
    standard library's 5 would make the sixth connection wait for a SYN retry, a second or more)."""

    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Print a handler's error, except a client that left while its kept-alive connection waited (a killed
        sweep, a benchmark's process exiting): that is no error of the server's."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def _make_handler(server: LoopbackLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in one segment: with Nagle's algorithm and
        # delayed ACKs, two small writes cost ~40 ms per answer.
        wbufsize = -1
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            status, payload = server.info(self.path)
            self._send(status, payload)

        def do_POST(self) -> None:
            if not server.accepts(self.path):
                self._send(404, _error(f"no route {self.path}"))
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, _error("request body is not JSON"))
                return
            status, payload, headers = server.respond(body, self.headers.get("Authorization", ""))
            self._send(status, payload, headers)

        def _send(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if "Content-Type" not in (headers or {}):
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler
