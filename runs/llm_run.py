"""LLM runs: a run directory that loses nothing, resuming, and many runs at once.

A run directory holds ``run.json`` (the full spec, no secrets), then, as the
run goes, ``llm_calls.jsonl`` (every model call) and ``agent_commands.jsonl``
(every command), and at the end the usual ``config.toml``,
``commands.jsonl``, ``trajectory.jsonl`` and ``result.json``. Resuming
rebuilds the world from the spec, replays the recorded answers without
calling the model, and goes on live: the result equals an uninterrupted run's.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import attrs
from bizsim.agents.llm import EndpointLimiter, LLMAgent, LLMAgentConfig
from bizsim.agents.llm.client import ModelClient
from bizsim.simcore.config import config_to_dict
from bizsim.simcore.errors import ConfigError, ReplayError
from bizsim.simcore.limits import MAX_CONFIG_FILE_BYTES, read_text_file
from bizsim.simcore.summation import plain_sum
from bizsim.simcore.untrusted_json import loads_untrusted
from bizsim.simcore.world import World

from bizsim.runs.episode import EpisodeResult
from bizsim.runs.record import RunRecord
from bizsim.runs.recorder import Recorder, recorder_for
from bizsim.runs.resolve import ResolvedRun, resolve
from bizsim.runs.rundir import RunDir
from bizsim.runs.runspec import RunSpec, records_calls

if TYPE_CHECKING:
    from bizsim.agents.llm.harness_logs import HarnessLogs

__all__ = [
    "LLMHarness", "LLMRunResult", "check_replayed", "llm_run_columns", "llm_settings", "load_run_spec",
    "recorded_world_options", "resume_llm", "run_llm", "run_llm_episodes",
]

#: 2: ``spec`` is a :class:`RunSpec` (1: the former LLM-only spec, still read).
_SPEC_VERSION = 2


def llm_settings(spec: RunSpec) -> tuple[LLMAgentConfig, str, int]:
    """An LLM run's agent config, who plays its world's auditor role and its episode cap, read from the spec
    (resolved and checked: :func:`~bizsim.runs.resolve.resolve`)."""
    if not records_calls(spec):
        raise ConfigError(f"agent {spec.agent!r} calls no model; it has no LLM settings")
    run = resolve(spec)
    return LLMAgentConfig.from_options(run.agent_options), run.roles.get("auditor", "deterministic"), run.max_episodes


@attrs.frozen
class LLMRunResult:
    """An LLM run's outcome: the episode result plus the harness's counters."""

    episode: EpisodeResult
    terminal_detail: str | None
    llm: dict
    run_dir: Path | None
    replayed_calls: int
    live_calls: int

    @property
    def terminal_reason(self) -> str:
        """``horizon_end``, ``bankruptcy``, ``error``, ..."""
        return self.episode.terminal_reason

    @property
    def final_world(self) -> World:
        """The world of the last episode."""
        return self.episode.final_world

    @property
    def worlds(self) -> tuple[World, ...]:
        """Every episode's world, oldest first."""
        return self.episode.worlds

    def record(self) -> RunRecord:
        """The typed record ``result.json`` holds: the episode's, with the harness's counters. Its one wall-clock
        value, ``wall_s``, is the finishing session's (a resumed run's replay included); all else matches between
        a resumed and an uninterrupted run."""
        return attrs.evolve(self.episode.record(), terminal_detail=self.terminal_detail, llm=self.llm["total"],
                            llm_episodes=self.llm["episodes"], llm_roles=self.llm.get("roles") or None)

    def to_dict(self) -> dict:
        """The JSON object written to ``result.json``."""
        return self.record().to_dict()


def llm_run_columns(total: Mapping[str, Any], roles: Mapping[str, Mapping[str, Any]] | None) -> dict:
    """The ``runs`` table's LLM columns from a run's counters: the agent's, and its world's roles' (the auditor's)."""
    roles = roles or {}
    costs = [r.get("cost_usd") for r in roles.values()]
    priced = [c for c in costs if c is not None]
    return {
        "llm_turns": total.get("turns"), "llm_prompt_tokens": total.get("prompt_tokens"),
        "llm_completion_tokens": total.get("completion_tokens"), "llm_cost_usd": total.get("cost_usd"),
        # A run recorded before the token classes were counted says nothing (None), not zero.
        "llm_cache_read_tokens": total.get("cache_read_tokens"), "llm_cache_write_tokens": total.get("cache_write_tokens"),
        "llm_reasoning_tokens": total.get("reasoning_tokens"),
        "llm_role_calls": sum(int(r.get("turns") or 0) for r in roles.values()),
        "llm_role_cost_usd": None if not roles or len(priced) < len(costs) else float(plain_sum(priced)),
    }


def _role_params(config: LLMAgentConfig) -> dict:
    """What every role's request sends beside the agent's (its sampling temperature)."""
    return {} if config.temperature is None else {"temperature": config.temperature}


def recorded_world_options(path: str | Path, episode: int | None = None) -> dict:
    """World constructor arguments that rebuild an episode (default: the last) of the LLM run in ``path``.

    A world's role played by the model shaped the run (the freelance auditor priced, judged and paid), so it
    answers again from the run's ``llm_calls.jsonl`` (that episode's calls); no model is called. Check with
    :func:`check_replayed` once the episode's log is replayed.
    """
    from bizsim.agents.llm.recorded import RecordedRoleClient

    spec, _ = load_run_spec(path)
    run = resolve(spec)
    if not run.roles:
        return {}
    config = LLMAgentConfig.from_options(run.agent_options)
    if episode is None:
        from bizsim.runs.rundir import read_record

        episodes = list(read_record(path).episodes) or [{"episode": 1}]
        episode = int(episodes[-1]["episode"])
    calls = RunDir(path).read_calls()
    return run.role_players(lambda role: RecordedRoleClient(calls, config.model, role, episode), _role_params(config))


def check_replayed(world_options: dict) -> None:
    """Raise :class:`ReplayError` if a rebuilt run left recorded role calls unasked (it went another way)."""
    for role, player in world_options.items():
        client = getattr(player, "client", None)
        left = getattr(client, "remaining", 0)
        if left:
            served = getattr(client, "served", 0)  # a RecordedClient, the only client that has calls remaining
            raise ReplayError(f"the rebuilt run made {served} {role} calls but the recorded run made "
                              f"{served + left}: the log does not belong to this run or bizsim's version changed")


def _world_config(run: ResolvedRun) -> dict:
    """The world config a run plays, as ``run.json`` records it (computed without building a world)."""
    return json.loads(json.dumps(config_to_dict(run.config), default=str))


def _versions() -> dict:
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("bizsim", "litellm", "simpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _spec_of(data: Mapping[str, Any]) -> RunSpec:
    """The run spec a ``run.json`` records: version 2 holds a :class:`RunSpec`, version 1 the older LLM-only spec."""
    version = data.get("spec_version")
    spec = data.get("spec")
    if not isinstance(spec, Mapping) or version not in (1, _SPEC_VERSION):
        raise ConfigError(f"run.json has spec_version {version!r} and spec {type(spec).__name__}; "
                          f"this bizsim reads versions 1 and {_SPEC_VERSION}")
    if version == _SPEC_VERSION:
        return RunSpec.from_dict(spec, recorded=True)
    options = dict(spec.get("agent") or {})
    if spec.get("auditor", "deterministic") != "deterministic":
        options["auditor"] = spec["auditor"]
    return RunSpec(spec["world"], spec["preset"], "llm", spec["seed"], agent_options=options,
                   max_episodes=spec.get("max_episodes", 1))


def load_run_spec(path: str | Path) -> tuple[RunSpec, dict]:
    """The spec of an LLM run directory, and the whole ``run.json``."""
    p = RunDir(path).run_spec
    if not p.exists() and not p.is_symlink():
        raise ConfigError(f"{str(Path(path))!r} is not a run directory: it has no {p.name}")
    try:
        data = loads_untrusted(read_text_file(p, p.name, MAX_CONFIG_FILE_BYTES))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{str(p)!r} is not JSON ({exc.msg}, line {exc.lineno}); the run directory was damaged") from None
    if not isinstance(data, dict) or data.get("kind") != "llm":
        kind = data.get("kind") if isinstance(data, dict) else None
        raise ConfigError(f"{str(p)!r} does not describe an LLM run (kind {kind!r}); only LLM runs resume")
    if not isinstance(data.get("resumes", []), list):
        raise ConfigError(f"{str(p)!r} has resumes of type {type(data['resumes']).__name__}, not a list")
    try:
        return _spec_of(data), data
    except ConfigError as exc:
        raise ConfigError(f"{str(p)!r}: {exc}") from None
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ConfigError(f"{str(p)!r} is not a run spec bizsim wrote: {type(exc).__name__}: {exc}") from None


class LLMHarness:
    """The harness of an agent that calls a model (:func:`~bizsim.runs.pipeline.execute` makes it): the
    :class:`~bizsim.agents.llm.LLMAgent` handed its recorder's channels, the world's roles its model plays,
    ``run.json``, the pre-flight call, resuming.

    Args:
        run: the resolved run.
        recorder: where it is recorded (its calls and commands go through it as they happen).
        resume: go on from the run the recorder holds (default: when it holds one).
        client: a model client (default: litellm, from the agent options).
        api_key: a key held in memory only (prefer the ``api_key_env`` option).
        preflight: make one cheap live call first and fail fast if it fails.
        limiter: per-endpoint concurrency limit shared with other runs.
        sleep: how to wait between retries.
        on_agent: called with the agent once it is built (the viewer reads its memory at each model call).

    Raises:
        ConfigError: set-up errors (a missing key, an unknown provider), or a run directory that holds another run.
    """

    def __init__(
        self, run: ResolvedRun, recorder: Recorder, *, resume: bool | None = None, client: ModelClient | None = None,
        api_key: str | None = None, preflight: bool = False, limiter: EndpointLimiter | None = None,
        sleep: Callable[[float], None] = time.sleep, on_agent: Callable[[LLMAgent], None] | None = None,
    ) -> None:
        self.run, self.recorder = run, recorder
        self.config = config = LLMAgentConfig.from_options(run.agent_options)
        self.resume = resume if resume is not None else recorder.root is not None and RunDir(recorder.root).is_llm()
        self.client, self.api_key, self.preflight, self.limiter, self.sleep = client, api_key, preflight, limiter, sleep
        self.on_agent = on_agent
        self._agent: LLMAgent | None = None
        if client is None:
            from bizsim.agents.llm.setup_check import check_endpoint, check_setup

            # Set-up errors first, before a run directory is made and before litellm's slow import.
            check_setup(config.model, api_base=config.api_base, api_key_env=config.api_key_env, api_key=api_key)
            if preflight:
                check_endpoint(config.api_base)
        if self.resume:
            if recorder.root is None:
                raise ConfigError("resuming needs the run directory (out=...)")
            self._check_resumable(recorder.root)

    def _check_resumable(self, out: Path) -> None:
        before, recorded = load_run_spec(out)
        was, run = resolve(before), self.run
        if (was.spec.world, was.spec.seed, was.agent_options, was.roles, was.max_episodes) != (
                run.spec.world, run.spec.seed, run.agent_options, run.roles, run.max_episodes):
            raise ConfigError(f"{str(out)!r} holds another run ({before.world}, seed {before.seed}, agent settings "
                              f"{before.agent_options}); it cannot be resumed as this one")
        if recorded.get("world_config") != _world_config(run):
            raise ConfigError(f"preset {run.spec.preset_label!r} no longer gives the world config recorded in "
                              f"{str(RunDir(out).run_spec)!r}; the run cannot be resumed")
        recorded.setdefault("resumes", []).append({"at": _now(), "recorded_calls": len(RunDir(out).read_calls())})
        self.recorder.note_resume(recorded)  # type: ignore[attr-defined]  # a recorder with a root keeps run.json

    @property
    def llm(self) -> LLMAgent:
        """The agent (built by :meth:`first_world`, once the recorder has claimed its directory)."""
        if self._agent is None:
            raise RuntimeError("the LLM agent is built with the run's first world")
        return self._agent

    def first_world(self) -> World:
        """Build the agent, then the run's first world (its start snapshot's, for a fork)."""
        from bizsim.simcore.snapshot import restore

        # A recorder that keeps a place hands the harness its call and command channels (HarnessLogs).
        logs = cast("HarnessLogs", self.recorder) if self.recorder.root is not None else None
        self._agent = LLMAgent(self.config, client=self.client, api_key=self.api_key, logs=logs, resume=self.resume,
                               limiter=self.limiter, sleep=self.sleep)
        if self.on_agent is not None:
            self.on_agent(self._agent)
        if self.run.spec.start is not None:  # a fork: one episode on the world its snapshot restores
            if self.run.roles:
                raise ConfigError("an LLM fork cannot give the world a model-played role (auditor=llm)")
            return restore(self.run.spec.start)
        return self.run.new_world(**self.world_options())

    def header(self, world: World) -> dict:
        """``run.json``: what determines the run (no secrets), written before its first call."""
        return {
            "kind": "llm", "spec_version": _SPEC_VERSION, "spec": self.run.spec.to_dict(), "agent": self.config.to_dict(),
            "benchmark_id": world.benchmark_id, "protocol": self.llm.settings(world),
            "world_config": _world_config(self.run), "versions": _versions(), "started_at": _now(), "resumes": [],
        }

    def ready(self) -> None:
        """The pre-flight call, when asked."""
        if self.preflight:
            self.llm.preflight()

    def agent(self) -> Callable[[World], Any]:
        """The agent, which serves every episode of the run."""
        return self.llm

    def world_options(self) -> dict:
        """Each role the model plays, given the agent's gateway (per episode: a role counts its own calls)."""
        return self.run.role_players(self.llm.role_client, _role_params(self.config))

    def close(self) -> None:
        """Close the agent's logs (every record is on disk already); safe to call twice."""
        if self._agent is not None:
            self._agent.close()

    def result(self, episode: EpisodeResult) -> LLMRunResult:
        """The run's result: the episodes', with the harness's counters."""
        agent = self.llm
        return LLMRunResult(
            # A turn of an LLM run is a model call (YC-Bench's turns_completed), not a decision point.
            episode=attrs.evolve(episode, agent="llm", agent_options=self.config.to_dict(), turns=agent.total.turns),
            terminal_detail=agent.episodes[-1]["terminal_detail"] if agent.episodes else episode.final_world.terminal_detail,
            llm=agent.stats_dict(), run_dir=self.recorder.root, replayed_calls=agent.gateway.replayed,
            live_calls=agent.gateway.live,
        )


def run_llm(
    spec: RunSpec,
    *,
    out: str | Path | None = None,
    client: ModelClient | None = None,
    api_key: str | None = None,
    resume: bool = False,
    preflight: bool = False,
    limiter: EndpointLimiter | None = None,
    sleep: Callable[[float], None] = time.sleep,
    on_stop: Callable[[Any], None] | None = None,
    probe: Callable[[Any], None] | None = None,
    on_agent: Callable[[LLMAgent], None] | None = None,
) -> LLMRunResult:
    """Run an LLM agent on a world (or continue a recorded run) and write the run directory: a thin wrapper over
    :func:`~bizsim.runs.pipeline.execute` (see :class:`LLMHarness` for the arguments).

    Raises:
        PreflightError: the pre-flight call failed.
        ReplayError: the recorded answers do not fit this run any more.
    """
    from bizsim.runs.pipeline import execute

    run = resolve(spec)
    if not run.records_calls:
        raise ConfigError(f"agent {spec.agent!r} calls no model; run it with execute() or run_episode()")
    result: LLMRunResult = execute(run, recorder_for(out), resume=resume, on_stop=on_stop, probe=probe, client=client,
                                   api_key=api_key, preflight=preflight, limiter=limiter, sleep=sleep, on_agent=on_agent)
    return result


def resume_llm(
    path: str | Path, *, confirm_endpoint: tuple[str | None, str | None] | None = None, **kwargs: Any
) -> LLMRunResult:
    """Continue the run in ``path``: replay its recorded answers, then go on live.

    The final result equals the uninterrupted run's; the model is called only
    for turns that were not recorded. A run that names its own endpoint or key
    variable is resumed with the default client only when ``confirm_endpoint``
    repeats both, ``(api_base, api_key_env)``: ``run.json`` alone is not trusted.
    """
    spec, _ = load_run_spec(path)
    if kwargs.get("client") is None:
        _check_endpoint(path, spec, confirm_endpoint)
    return run_llm(spec, out=path, resume=True, **kwargs)


def _check_endpoint(path: str | Path, spec: RunSpec, confirmed: tuple[str | None, str | None] | None) -> None:
    """Refuse to send a key to an endpoint that only ``run.json`` names, unless the caller names the same.

    A run directory can be edited by anyone who can write it: an edited endpoint and key variable would send
    the value of another environment variable to another host.
    """
    config = llm_settings(spec)[0]
    recorded = (config.api_base, config.api_key_env)
    if recorded == (None, None) or confirmed == recorded:
        return
    named = [(flag, _shown(v)) for flag, v in zip(("--api-base", "--api-key-env"), recorded) if v is not None]
    says = " and ".join(f"{flag} {value}" for flag, value in named)
    raise ConfigError(
        f"{str(RunDir(path).run_spec)!r} names {says}; a run directory can be edited, so resume only after "
        f"confirming: give {says} again (Python: confirm_endpoint=(api_base, api_key_env))"
    )


def _shown(value: str | None) -> str:
    """A value read from a file, quoted for an error message and cut to a readable length."""
    if value is None:
        return "(none)"
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "...'"


def run_llm_episodes(
    specs: Sequence[RunSpec],
    *,
    outs: Sequence[str | Path | None] | None = None,
    max_concurrency_per_endpoint: int = 4,
    max_workers: int | None = None,
    clients: Sequence[ModelClient] | None = None,
    limiter: EndpointLimiter | None = None,
    **kwargs: Any,
) -> list[LLMRunResult]:
    """Run many LLM episodes at once on threads, at most N requests in flight per endpoint.

    The simulation work per turn is tiny; the time goes into waiting for the
    model, so threads suffice. The per-endpoint limit (keyed by API base or
    provider) is separate from any CPU worker pool.

    Args:
        specs: one spec per run (agent ``llm``).
        outs: one run directory per spec (``None`` for none); they must differ.
        max_concurrency_per_endpoint: requests in flight per endpoint.
        max_workers: threads (default: one per spec).
        clients: one model client per spec (default: litellm from each spec).
        limiter: a limiter to share (default: a new one with ``max_concurrency_per_endpoint``).
        kwargs: passed to :func:`run_llm`.

    Returns:
        results in the order of ``specs``.

    Raises:
        ExceptionGroup: some runs raised (the others finished; their directories are complete).
    """
    dirs = list(outs) if outs is not None else [None] * len(specs)
    if len(dirs) != len(specs):
        raise ConfigError(f"outs has {len(dirs)} entries for {len(specs)} specs")
    named = [str(Path(o)) for o in dirs if o is not None]
    dup = sorted({o for o in named if named.count(o) > 1})
    if dup:
        raise ConfigError(f"runs share output directories {dup}; give every run its own")
    if clients is not None and len(clients) != len(specs):
        raise ConfigError(f"clients has {len(clients)} entries for {len(specs)} specs")
    for spec in specs:
        llm_settings(spec)  # every spec checked before any run starts
    limiter = limiter or EndpointLimiter(max_concurrency_per_endpoint)
    with ThreadPoolExecutor(max_workers=max_workers or max(1, len(specs)), thread_name_prefix="bizsim-llm") as pool:
        futures = [
            pool.submit(run_llm, s, out=dirs[i], client=clients[i] if clients is not None else None, limiter=limiter,
                        **kwargs)
            for i, s in enumerate(specs)
        ]
        results, errors = [], []
        for f in futures:
            try:
                results.append(f.result())
            except Exception as exc:  # noqa: BLE001 - gathered and raised together below
                errors.append(exc)
    if errors:
        raise ExceptionGroup(f"{len(errors)} of {len(specs)} LLM runs failed", errors)
    return results


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")

