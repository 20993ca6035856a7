"""The LLM agent: a SimPy process that plays a world through a model, turn by turn."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import simpy
from bizsim.simcore.errors import ConfigError

from bizsim.agents.declare import HAS_ROLES, RECORDS_CALLS, RUN_OPTIONS, WAITS_ON_IO, agent

from .config import LLMAgentConfig, default_max_tokens
from .context_fit import ContextFit, fixes
from .errors import FatalModelError, PreflightError, RunAborted, TransientModelError, run_secrets, scrub
from .gateway import ModelGateway, request_digest
from .harness_logs import HarnessLogs
from .limits import EndpointLimiter
from .memory import build_memory
from .memory.scratchpad import ScratchpadMemory
from .pricing import Pricing
from .protocols import make_protocol
from .role_client import RoleClient
from .sent import SentLog
from .session import Session
from .stats import HarnessStats
from .tool_probe import PROBE_TOOL, tools_dropped

if TYPE_CHECKING:
    from bizsim.simcore.world import World

    from .client import ModelClient
    from .context_window import ContextWindow
    from .memory import MemoryManager
    from .protocols import HarnessProtocol, Request

__all__ = ["LLMAgent", "llm_agent"]


class LLMAgent:
    """An LLM playing a world: ``world.run(agent)`` runs one episode.

    The agent object lives across episodes (multi-episode restarts): each
    call with a new world starts a fresh conversation — with the restart
    banner after the first — while counters and budgets run on.

    Args:
        config: the agent's settings (or pass them as keyword ``options``).
        client: a model client; default :class:`LiteLLMClient` from the config.
        api_key: an API key held in memory only (prefer ``config.api_key_env``).
        logs: where every model call and every command is appended as it happens (a run directory's
            ``bizsim.runs.RunDir(path)``); ``None`` keeps nothing.
        resume: replay the calls recorded in ``logs`` before going live.
        limiter: per-endpoint concurrency limit shared with other runs.
        sleep: how to wait between retries (tests pass a fake).

    >>> from bizsim.agents.llm import ScriptedClient, reply
    >>> from bizsim.models.startup import StartupWorld
    >>> agent = LLMAgent(client=ScriptedClient([reply("company status")]), max_turns=2)
    >>> world = StartupWorld("default", 1)
    >>> _ = world.run(agent)
    >>> world.status.value, world.terminal_detail, agent.total.turns
    ('error', 'max_turns', 2)
    """

    def __init__(
        self,
        config: LLMAgentConfig | None = None,
        *,
        client: ModelClient | None = None,
        api_key: str | None = None,
        logs: HarnessLogs | None = None,
        resume: bool = False,
        limiter: EndpointLimiter | None = None,
        sleep: Callable[[float], None] = time.sleep,
        **options: Any,
    ) -> None:
        if config is not None and options:
            raise ConfigError(f"pass either config or options, not both (got options {', '.join(sorted(options))})")
        self.config = cfg = config if config is not None else LLMAgentConfig.from_options(options)
        self.__name__ = "llm"  # the agent's name in episode results
        if client is None:
            if cfg.model == "scripted":
                raise ConfigError(
                    "the llm agent needs a model (model='PROVIDER/MODEL', e.g. 'openai/gpt-4o-mini') or a client "
                    "(client=ScriptedClient(...) or your own ModelClient)"
                )
            from .litellm_client import LiteLLMClient
            from .setup_check import check_setup

            # Before litellm's import (seconds): a missing key or extra is named at once, in our words.
            check_setup(cfg.model, api_base=cfg.api_base, api_key_env=cfg.api_key_env, api_key=api_key,
                        provider_key=False)
            client = LiteLLMClient(
                cfg.model, api_base=cfg.api_base, api_key=api_key, api_key_env=cfg.api_key_env, timeout_s=cfg.timeout_s,
                keep_raw=cfg.log_raw, prompt_caching=cfg.prompt_caching,
            )
            client.check_model()
            # A resumed run was accepted when it started; its recorded requests must stay as they were. The default
            # max_tokens is not checked: a model litellm says takes no max_tokens just goes without it.
            dropped = [] if resume else client.dropped_params(self.request_params(cfg, explicit=True))
            if dropped:
                raise ConfigError(
                    f"litellm would silently drop {', '.join(dropped)} from every request to {cfg.model!r}: it does not "
                    "list the model as taking them. Remove them, or if the model does take them, add "
                    f"\"allowed_openai_params\": {json.dumps(dropped)} to model_params"
                )
        self.client = client
        #: The fields every request carries besides messages and tools (the default ``max_tokens`` resolved).
        self.params = self.request_params(cfg, client)
        # A run recorded before bizsim sent a default max_tokens resumes with its own requests (see _settle_params).
        self._params_settled = not resume
        self.pricing = Pricing(cfg.model, cfg.prices, client)
        if cfg.max_cost_usd is not None and not self.pricing.known():
            raise ConfigError(
                f"max_cost_usd(={cfg.max_cost_usd}) needs a price for model {cfg.model!r}, which neither litellm's "
                "price map nor prices= knows; pass prices={model: (input $/M tokens, output $/M tokens)}"
            )
        self.secrets = run_secrets(cfg.model, cfg.api_key_env, api_key)
        self.logs = logs
        replay: Sequence[dict] = ()
        calls_log = self.commands_log = None
        if logs is not None:
            if resume:
                replay = logs.recorded_calls()
            elif logs.holds_calls():
                raise ConfigError(f"{str(logs)!r} already holds recorded model calls; pass resume=True or choose "
                                  "another run directory")
            redact = functools.partial(scrub, secrets=self.secrets)
            calls_log = logs.open_calls(fsync=cfg.fsync, redact=redact)
            self.commands_log = logs.open_commands(fsync=cfg.fsync, redact=redact)
        elif resume:
            raise ConfigError("resume=True needs logs, the run directory of the run to continue")
        self.gateway = ModelGateway(
            client, cfg.model, self.pricing, log=calls_log, replay=replay, limiter=limiter,
            max_failures=cfg.max_api_failures, backoff=(cfg.backoff_base_s, cfg.backoff_max_s), sleep=sleep,
            secrets=self.secrets, log_raw=cfg.log_raw,
        )
        self.context = ContextFit(cfg, client, self.gateway)
        self.total = HarnessStats()
        self.sent_log = SentLog()  # each request stored with its record, so the run directory shows it on its own
        self._carried_notes = ""  # the note tool's notes when the last episode ended (see _memory)
        self.episodes: list[dict] = []
        self.episode = 0
        self.roles: dict[str, RoleClient] = {}
        #: The memory of the episode being played (``None`` before the first).
        self.memory: MemoryManager | None = None

    # -- running -----------------------------------------------------------
    def __call__(self, world: World) -> Generator[simpy.Event, Any, None]:
        """The SimPy process of one episode on ``world``."""
        self.episode += 1
        return self._play(world, self.episode)

    def role_client(self, role: str) -> RoleClient:
        """A client for a world's own LLM role (``auditor``) that shares this agent's model, gateway and run log.

        Its calls are recorded and replayed with the agent's; their cost counts
        toward ``max_cost_usd``.
        """
        if role not in self.roles:
            self.roles[role] = RoleClient(self, role)
        return self.roles[role]

    def settings(self, world: World) -> dict:
        """The protocol knobs this agent resolves for ``world`` (recorded with a run)."""
        return make_protocol(world.name, self.config.protocol).configure(world, self.config)

    def _memory(self, protocol: HarnessProtocol, world: World, episode: int) -> MemoryManager:
        cfg = self.config
        names = [n for n in cfg.memory if not (n == "scratchpad" and getattr(protocol, "name", "") == "yc-bench")]
        embed = None
        if "episodic" in names and cfg.embedder.startswith("provider:"):
            if not hasattr(self.client, "embed"):
                raise ConfigError(f"embedder(={cfg.embedder!r}) needs a client with embed(); {type(self.client).__name__} has none")
            model = cfg.embedder.split(":", 1)[1] or None

            def embed(texts: Sequence[str]) -> list[list[float]]:
                return self.gateway.embed(texts, model, {"episode": episode})

        memory = build_memory(names, world, limit=cfg.memory_limit, decay_per_day=cfg.episodic_decay_per_day,
                              embed=embed)
        for pad in _note_keepers(memory):
            pad.notes = self._carried_notes if episode > 1 else ""  # a restart keeps the notes, as a world's scratchpad
        self.memory = memory
        return memory

    def _check_caps(self, session: Session, max_turns: int | None, protocol: HarnessProtocol | None = None) -> None:
        cfg, total = self.config, self.total
        steps = getattr(protocol, "steps_used", None)
        used = steps(session) if steps is not None else session.turn
        if max_turns is not None and used >= max_turns:
            raise RunAborted("max_turns", f"the episode reached max_turns={max_turns}")
        spent = total.cost_usd
        for r in self.roles.values():
            spent = None if spent is None or r.stats.cost_usd is None else spent + r.stats.cost_usd
        if cfg.max_cost_usd is not None and spent is not None and spent >= cfg.max_cost_usd:
            raise RunAborted("max_cost_usd", f"spent ${spent:.4f} of max_cost_usd={cfg.max_cost_usd}")
        if cfg.max_tokens_total is not None and total.total_tokens >= cfg.max_tokens_total:
            raise RunAborted("max_tokens_total", f"used {total.total_tokens} of max_tokens_total={cfg.max_tokens_total} tokens")

    def _play(self, world: World, episode: int) -> Generator[simpy.Event, Any, None]:
        cfg = self.config
        protocol = make_protocol(world.name, cfg.protocol)
        settings = protocol.configure(world, cfg)
        stats = HarnessStats()
        session = Session(
            world, episode=episode, stats=stats, total=self.total, memory=self._memory(protocol, world, episode),
            commands_log=self.commands_log,
        )
        record: dict = {"episode": episode, "settings": settings, "stats": stats, "terminal_detail": None}
        self.episodes.append(record)
        max_turns = protocol.max_turns()
        protocol.begin(session)
        last_now, stalled = world.now_us, 0
        # EcoGym's reference harness runs to its step cap however long the model stalls.
        stall_cap = None if getattr(protocol, "reference", False) else cfg.max_stalled_turns
        try:
            while not world.done:
                self._check_caps(session, max_turns, protocol)
                yield from protocol.before_call(session)
                if world.done:
                    break
                self._check_caps(session, max_turns, protocol)  # the harness's own step may have been the last
                # Measured after the harness's own advance: a day it ends is time that moved.
                stalled = stalled + 1 if world.now_us == last_now and session.turn else 0
                last_now = world.now_us
                if stall_cap is not None and stalled >= stall_cap:
                    raise RunAborted("stalled", f"simulated time has not moved for {stalled} turns (max_stalled_turns)")
                req, fitted = self.context.fit(protocol, session, protocol.request(session), settings,
                                               int(self.params.get("max_tokens") or 0))
                digest = self._settle_params(req)
                params = self.params
                meta: dict[str, Any] = {"episode": episode, "turn": session.turn + 1}
                if fitted is not None:
                    meta["context"] = fitted
                if self.gateway.log is not None:  # nothing is written without a run directory
                    meta["sent"] = self.sent_log.agent(episode, session.turn + 1, req, cfg.model, params, world,
                                                       session.memory)
                response, failed = self.gateway.chat(req.messages, req.tools, params, digest, meta)
                session.turn += 1
                usage = response.usage
                for s in (stats, self.total):
                    s.add_call(usage, response.cost_usd, failed)
                yield from protocol.after_call(session, response)
                session.flush_memory()
        except RunAborted as exc:
            session.bump("api_errors", exc.failed_attempts)
            record["terminal_detail"] = exc.detail
            record["message"] = scrub(str(exc), self.secrets)
            if exc.detail == "context_window" and "refused" in record["message"]:  # the server's own refusal
                record["message"] = record["message"].rstrip(". ") + ". " + fixes(
                    settings, int(self.params.get("max_tokens") or 0))
            if not world.done:
                world.abort(exc.detail)
        session.flush_memory()
        self._carried_notes = next((pad.notes for pad in _note_keepers(session.memory)), "")
        if record["terminal_detail"] is None:
            record["terminal_detail"] = world.terminal_detail

    @staticmethod
    def request_params(cfg: LLMAgentConfig, client: Any = None, *, explicit: bool = False) -> dict[str, Any]:
        """The fields every request of an episode carries besides messages and tools.

        ``max_tokens`` unset takes its default (:func:`~.config.default_max_tokens`; ``client`` says whether the
        model reasons, and caps it at the model's own output limit; a client with ``caps_answers`` gets none);
        ``0`` sends none. ``explicit=True`` leaves the default out (only what the user set).
        """
        params = dict(cfg.model_params or {})
        if cfg.temperature is not None:
            params["temperature"] = cfg.temperature
        limit = cfg.max_tokens
        # A client whose framework caps answers itself (Inspect's --max-tokens) gets no default to override it.
        if limit is None and not explicit and not getattr(client, "caps_answers", False):
            reasons, cap = getattr(client, "reasons", None), getattr(client, "output_limit", None)
            limit = default_max_tokens(cfg, bool(reasons()) if callable(reasons) else False)
            most = cap() if callable(cap) else None
            if most:  # a model that may answer with fewer tokens would refuse the default
                limit = min(limit, most)
        if limit:
            params["max_tokens"] = limit
        return params

    def _settle_params(self, req: Request) -> str:
        """The request hash of ``req``; on the first recorded call of a resumed run, also the default ``max_tokens``
        the run sent, which a resume keeps (live calls included) whatever the default is now.

        The first call's record holds its params in full (``sent.params``). A record without them, and a run
        recorded before bizsim sent a default (it sent none), are told by the hash: the request without
        ``max_tokens`` matches it and the request with it does not.
        """
        cfg = self.config
        if self._params_settled or cfg.max_tokens is not None:
            self._params_settled = True
            return request_digest(cfg.model, self.params, req.tools_digest, req.message_digests)
        row = self.gateway.peek()
        if row is None or row.get("kind") != "chat" or row.get("role"):
            return request_digest(cfg.model, self.params, req.tools_digest, req.message_digests)
        self._params_settled = True
        recorded = (row.get("sent") or {}).get("params") if isinstance(row.get("sent"), dict) else None
        base = {k: v for k, v in self.params.items() if k != "max_tokens"}
        if isinstance(recorded, dict):
            sent = recorded.get("max_tokens")
            self.params = base if sent is None else {**base, "max_tokens": sent}
            return request_digest(cfg.model, self.params, req.tools_digest, req.message_digests)
        digest = request_digest(cfg.model, self.params, req.tools_digest, req.message_digests)
        before = request_digest(cfg.model, base, req.tools_digest, req.message_digests)
        if row.get("request") != digest and row.get("request") == before:
            self.params = base
            return before
        return digest

    def context_window(self) -> ContextWindow | None:
        """The model's context size (the option, the server's report, litellm's information), learned on first use;
        ``None`` when unknown (:class:`~.context_fit.ContextFit`)."""
        return self.context.window()

    # -- outside the episode -----------------------------------------------
    def preflight(self) -> dict:
        """One cheap live call (no retries) to check model, key, endpoint and tool support; logged as kind
        ``preflight``, with the model's context window (:meth:`context_window`) when known.

        The call carries one tool, as every turn does. A server that renders no tools into the prompt (llama.cpp
        without ``--jinja`` or with a chat template that declares none) reports a prompt no longer than the
        message alone, and the model could never call a command: that is refused here, in one line.

        Raises:
            PreflightError: the call failed, or the server dropped the tool; the message is one line naming model
                and endpoint.
        """
        start = time.perf_counter()
        where = getattr(self.client, "endpoint", "?")
        ping = [{"role": "user", "content": "Reply with the single word: ok"}]
        try:
            response = self.client.complete(ping, [PROBE_TOOL], max_tokens=1)
        except (TransientModelError, FatalModelError) as exc:
            raise PreflightError(
                f"pre-flight call to model {self.config.model!r} at {where} failed: {scrub(str(exc), self.secrets)}"
            ) from None
        self._check_tools(response.usage.prompt_tokens, ping, where)
        window = self.context_window()
        out = {
            "kind": "preflight", "ok": True, "usage": response.usage.to_dict(), "cost_usd": self.pricing.cost(response.usage, response.cost_usd),
            "latency_s": round(time.perf_counter() - start, 6), "wall_time": time.time(),
            "context_window": None if window is None else window.to_dict(),
        }
        if self.gateway.log is not None:
            self.gateway.log.write(out)
        return out

    def _check_tools(self, prompt_tokens: int, ping: list[dict], where: str) -> None:
        """Refuse a server that dropped the pre-flight's tool (:mod:`.tool_probe`), in one line with the fix."""
        count = getattr(self.client, "count_tokens", None)
        if not callable(count):
            return  # no tokenizer to compare with: nothing can be told
        try:
            dropped = tools_dropped(prompt_tokens, ping, count)
        except Exception:  # noqa: BLE001 - a tokenizer litellm cannot load
            return
        if dropped is not None:
            raise PreflightError(
                f"the server at {where} dropped the tools from the pre-flight request ({prompt_tokens} prompt tokens "
                f"with a tool of about {dropped} tokens), so model {self.config.model!r} could never call a command: "
                "start llama-server with --jinja and a chat template that declares tools (e.g. --chat-template "
                "chatml), or serve the model with tool calling on (vLLM: --enable-auto-tool-choice --tool-call-parser NAME)"
            )

    def close(self) -> None:
        """Close the run files (every record is already on disk)."""
        for log in (self.gateway.log, self.commands_log):
            if log is not None:
                log.close()

    def stats_dict(self) -> dict:
        """The run's counters, total and per episode, and the context window when it was learned."""
        return {
            "total": self.total.to_dict(),
            "episodes": [{**r, "stats": r["stats"].to_dict()} for r in self.episodes],
            "roles": {name: r.stats.to_dict() for name, r in self.roles.items()},
            "context_window": self.context.learned.to_dict() if self.context.learned is not None else None,
        }


def _note_keepers(memory: MemoryManager) -> list[ScratchpadMemory]:
    """The scratchpad modules that keep their own notes (worlds without a scratchpad of their own)."""
    return [m for m in memory.modules if isinstance(m, ScratchpadMemory) and m.keeps_notes]


def _llm_agent(world: World, **options: Any) -> Generator[simpy.Event, Any, None]:
    """The ``llm`` agent for :func:`bizsim.agents.make_agent`: options are :class:`LLMAgentConfig` fields
    plus ``client``, ``api_key``, ``logs``, ``resume``, ``limiter`` and ``sleep``.

    Through ``make_agent`` one :class:`LLMAgent` serves every episode of a
    run, so multi-episode restarts keep counting and show the restart banner.
    """
    return LLMAgent(**options)(world)


def _check_options(**options: Any) -> None:
    """The settings among ``options`` as :class:`LLMAgentConfig` takes them (no client is made, litellm not loaded)."""
    LLMAgentConfig.from_options({k: v for k, v in options.items() if k not in _OBJECTS})


#: Options that hand the agent objects, not settings.
_OBJECTS = ("client", "api_key", "logs", "resume", "limiter", "sleep")
llm_agent = agent(_llm_agent, name="llm", make=LLMAgent, check=_check_options, options=(
    *(a.name for a in attrs.fields(LLMAgentConfig)), *_OBJECTS,
), capabilities={RECORDS_CALLS, HAS_ROLES, RUN_OPTIONS, WAITS_ON_IO})

