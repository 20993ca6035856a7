"""``bizsim run``: one episode with an agent (a baseline, a planner, your own, or the LLM agent), and ``--resume``."""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
from collections.abc import Callable, Iterator
from typing import Any

from bizsim.simcore.errors import BizSimError

from .figures import context_lines, metric_line, money, tally_lines
from .options import agent_options, bounded_float, bounded_int

__all__ = ["EXIT_API", "EXIT_GUARD", "add_parser", "exit_code", "run_command"]


def add_parser(sub: Any) -> None:
    """Add ``bizsim run`` to the subcommands."""
    run = sub.add_parser("run", help="run one episode with an agent")
    run.add_argument("world", nargs="?", help="world name, e.g. startup (not with --resume)")
    run.add_argument("--agent", help="agent name (see `bizsim list`; default: the world's own default agent), or "
                     "package.module:function for an agent of your own")
    run.add_argument("--seed", type=bounded_int(0), default=1, help="world seed")
    run.add_argument("--preset", default="default", help="preset name or a .toml config file")
    run.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE", help="agent option (repeatable)")
    run.add_argument("--seat", action="append", default=[], metavar="AGENT[:KEY=VALUE,...]",
                     help="an arena's seat, in seat order (repeat once a seat): planner, greedy, "
                     "llm:model=openai/gpt-4o-mini,api_base=URL,max_cost_usd=0.5 (see docs/arena.md)")
    run.add_argument("--max-episodes", type=bounded_int(), default=1, help="restart after bankruptcy up to N episodes")
    run.add_argument("--out", help="write the run directory here")
    run.add_argument("--overwrite", action="store_true", help="replace the run already in --out (never an LLM run)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    llm = run.add_argument_group("LLM agent (--agent llm)")
    llm.add_argument("--model", help="litellm model PROVIDER/MODEL, e.g. openai/gpt-4o-mini")
    llm.add_argument("--api-base", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    llm.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key (keys never go on the command line)")
    llm.add_argument("--max-cost-usd", type=bounded_float(0), metavar="X", help="stop the run once it has cost X dollars")
    llm.add_argument("--max-turns", type=bounded_int(), metavar="N", help="at most N model calls per episode")
    llm.add_argument("--max-tokens-total", type=bounded_int(), metavar="N", help="stop the run after N tokens")
    llm.add_argument("--temperature", type=bounded_float(0), help="sampling temperature (default: not sent)")
    llm.add_argument("--memory", help="extra memory modules: window,scratchpad,state,episodic")
    llm.add_argument("--auditor", choices=("deterministic", "llm"),
                     help="freelance: who prices, judges and pays; llm = the agent's model (default deterministic)")
    llm.add_argument("--resume", metavar="DIR", help="continue the interrupted LLM run, or arena run with LLM seats, "
                     "in DIR")
    llm.add_argument("--no-preflight", action="store_true", help="skip the pre-flight call")
    llm.add_argument("--estimate", action="store_true",
                     help="print the run's expected calls, tokens and dollars (with a range) and run nothing")
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Run ``bizsim run``."""
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from bizsim.runs.pipeline import execute
    from bizsim.runs.recorder import recorder_for
    from bizsim.runs.resolve import resolve
    from bizsim.runs.runspec import RunSpec
    from bizsim.simcore.registry import world_spec

    if args.resume:
        from bizsim.runs.rundir import RunDir

        if RunDir(args.resume).holds_arena_spec() or RunDir(args.resume).is_arena():  # an arena's run directory
            from .run_arena import resume_arena

            return resume_arena(args, _progress)
        if args.seat:
            raise BizSimError(f"--seat names an arena's seats; {args.resume!r} holds no arena run")
        return _run_llm(args, None)
    if args.world is None:
        raise BizSimError("bizsim run needs a world, e.g. `bizsim run startup`")
    world = world_spec(args.world)  # the run's one registry lookup: the spec and the run take this entry
    if args.seat or getattr(world, "seats", None) is not None:
        from .run_arena import run_arena

        return run_arena(args, world, _progress)
    if _calls_model(world, args):
        return _run_llm(args, world)
    if args.estimate:
        raise BizSimError(f"--estimate goes with --agent llm: agent {args.agent or 'the default'} calls no model")
    args.agent = args.agent or world.default_agent
    given = [f for f in _LLM_FLAGS + _RUN_FLAGS if getattr(args, f) not in (None, False)]
    if args.auditor == "deterministic" and "auditor" in world.roles:
        given.remove("auditor")
    if given:
        what = "the llm auditor uses the agent's model, so it" if given[0] == "auditor" else f"--{given[0].replace('_', '-')}"
        raise BizSimError(f"{what} goes with --agent llm, not --agent {args.agent}")
    if args.max_episodes < 1:
        raise BizSimError(f"--max-episodes(={args.max_episodes}) must be >= 1")
    run = resolve(RunSpec(world.name, args.preset, args.agent, args.seed, agent_options=agent_options(args.agent_opt),
                          max_episodes=args.max_episodes, entry=world))  # a bad agent or option fails now
    recorder = recorder_for(args.out, overwrite=args.overwrite)
    recorder.claim()  # an unusable or occupied --out fails now, not after the run
    with _progress(args) as on_stop:
        result = execute(run, recorder, on_stop=on_stop)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        _print_summary(result, args.out)
    return 0


def _calls_model(world: Any, args: argparse.Namespace) -> bool:
    """Whether the agent named declares it calls a model (its run records every call and resumes from them)."""
    from bizsim.agents.declare import RECORDS_CALLS
    from bizsim.runs.runspec import agent_capabilities

    if args.agent is None:
        return False
    return RECORDS_CALLS in agent_capabilities(world, args.agent)


_LLM_FLAGS = ("model", "api_base", "api_key_env", "max_cost_usd", "max_turns", "max_tokens_total", "temperature", "memory", "no_preflight")
#: Flags of an LLM run that are not agent options.
_RUN_FLAGS = ("auditor",)


def _llm_options(args: argparse.Namespace) -> dict[str, Any]:
    options = agent_options(args.agent_opt)
    for flag in _LLM_FLAGS[:-1]:
        value = getattr(args, flag)
        if value is not None:
            options[flag] = value
    return options


def _run_llm(args: argparse.Namespace, world: Any) -> int:
    """``bizsim run WORLD --agent llm ...`` and ``bizsim run --resume DIR``."""
    from bizsim.runs.llm_run import load_run_spec, resume_llm
    from bizsim.runs.pipeline import execute
    from bizsim.runs.runspec import RunSpec

    if args.overwrite:
        raise BizSimError("--overwrite replaces a baseline's run; an LLM run is never replaced: choose another --out")
    preflight = not args.no_preflight
    run: Callable[[Any], Any]
    out: str | None = None
    if args.resume and args.estimate:
        raise BizSimError("--estimate is for a run not started yet; drop --resume (the run's llm_calls.jsonl holds "
                          "what it used so far)")
    if args.resume:
        confirming = ("api_base", "api_key_env")
        extra = [f for f in ("world", *_LLM_FLAGS[:-1], *_RUN_FLAGS) if f not in confirming and getattr(args, f) is not None]
        if extra or args.agent_opt:
            raise BizSimError(f"--resume takes its settings from the run directory; drop --{(extra or ['agent-opt'])[0].replace('_', '-')}")
        load_run_spec(args.resume)  # fail fast on a directory that holds no LLM run
        confirmed = (args.api_base, args.api_key_env) if args.api_base or args.api_key_env else None

        def run(on_stop: Any) -> Any:
            return resume_llm(args.resume, confirm_endpoint=confirmed, preflight=preflight, on_stop=on_stop)
    else:
        if args.world is None:
            raise BizSimError("bizsim run needs a world, e.g. `bizsim run startup --agent llm --model openai/gpt-4o-mini`")
        options = _llm_options(args)
        if "model" not in options:
            raise BizSimError("--agent llm needs --model PROVIDER/MODEL, e.g. --model openai/gpt-4o-mini")
        if args.max_episodes < 1:
            raise BizSimError(f"--max-episodes(={args.max_episodes}) must be >= 1")
        if args.auditor is not None and "auditor" not in world.roles:
            raise BizSimError(f"--auditor sets a world's auditor role; world {args.world!r} has none")
        if args.auditor not in (None, "deterministic"):
            options["auditor"] = args.auditor
        spec = RunSpec(world.name, args.preset, args.agent, args.seed, agent_options=options,
                       max_episodes=args.max_episodes, entry=world)
        _check_setup(options, preflight=preflight and not args.estimate, key=not args.estimate)
        spec.check()
        if args.estimate:
            from bizsim.runs.llm_estimate import estimate_run, format_estimates

            estimate = estimate_run(spec)
            print(json.dumps(_attrs_dict(estimate)) if args.json else format_estimates([estimate]))
            return 0
        out = args.out or _default_out(args, str(options["model"]))

        def run(on_stop: Any) -> Any:
            return execute(spec, out=out, resume=False, preflight=preflight, on_stop=on_stop)
    with _llm_progress(args, args.resume or out) as on_stop:
        result = run(on_stop)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        _print_summary(result.episode, None)
        _print_llm(result)
    return exit_code(result.terminal_reason, result.terminal_detail)


#: ``bizsim run``'s exit status when a run stopped on its model's API (``--resume`` goes on from there).
EXIT_API = 1
#: ``bizsim run``'s exit status when a guard stopped the run (its context window, the stall guard): it cannot get
#: further with this model and these settings, and it is no failure of the API (docs/cli.md has the table).
EXIT_GUARD = 3


def exit_code(reason: str | None, detail: str | None) -> int:
    """``bizsim run``'s exit status for a run that ended this way: 0 when it ran as told (the world's own end, or a
    cap the user set), :data:`EXIT_GUARD` for a guard's stop, :data:`EXIT_API` when its model's API failed.

    >>> exit_code("bankruptcy", None), exit_code("error", "max_turns"), exit_code("error", "context_window")
    (0, 0, 3)
    >>> exit_code("error", "api_failures")
    1
    """
    from bizsim.analysis.labels import ASKED_STOPS, FINAL_STOPS

    if reason != "error" or detail in ASKED_STOPS:
        return 0
    return EXIT_GUARD if detail in FINAL_STOPS else EXIT_API


def _check_setup(options: dict[str, Any], *, preflight: bool, key: bool) -> None:
    """A missing key, an unknown provider, nothing listening at ``--api-base``: named in well under a second,
    before the spec's own check builds the agent, which imports litellm (seconds)."""
    from bizsim.agents.llm.setup_check import check_endpoint, check_setup

    api_base = options.get("api_base")
    check_setup(str(options["model"]), api_base=api_base, api_key_env=options.get("api_key_env"), provider_key=key)
    if preflight:
        check_endpoint(api_base)


def _attrs_dict(value: Any) -> dict:
    """An attrs value as a JSON-able dict (for ``--json``)."""
    import attrs

    return attrs.asdict(value)


def _default_out(args: argparse.Namespace, model: str) -> str:
    from datetime import datetime

    slug = "".join(c if c.isalnum() or c in "-." else "_" for c in model)
    return f"runs/llm-{args.world}-{args.preset}-s{args.seed}-{slug}-{datetime.now():%Y%m%d-%H%M%S}"


def _print_llm(result: Any) -> None:
    s = result.llm["total"]
    cost = "unknown" if s["cost_usd"] is None else f"${s['cost_usd']:.4f}"
    cached = f" ({s['cache_read_tokens'] / s['prompt_tokens']:.0%} of prompt tokens cached)" if s.get("cache_read_tokens") else ""
    print(f"  model: {s['turns']} turns, {s['prompt_tokens']} prompt{cached} + {s['completion_tokens']} completion tokens, "
          f"cost {cost}")
    faults = {k: s[k] for k in ("api_errors", "invalid_arguments", "unknown_tools", "empty_replies", "oversized_replies", "auto_advances") if s[k]}
    if faults:
        print("  harness: " + ", ".join(f"{k} {v}" for k, v in faults.items()))
    from bizsim.analysis.labels import ASKED_STOPS

    code = exit_code(result.terminal_reason, result.terminal_detail)
    window = result.llm.get("context_window")
    if window:
        print(f"  context window: {window['tokens']} tokens (from {window['source']})")
    overflowed = result.terminal_reason == "error" and result.terminal_detail == "context_window"
    if overflowed and result.llm["episodes"]:  # the sizes, and what to change
        print(f"  {result.llm['episodes'][-1].get('message', '')}")
    if result.replayed_calls:
        print(f"  resumed: {result.replayed_calls} recorded calls replayed, {result.live_calls} live")
    if result.run_dir is not None:
        options = result.episode.agent_options
        confirm = "".join(f" --{flag.replace('_', '-')} {shlex.quote(str(options[flag]))}"
                          for flag in ("api_base", "api_key_env") if options.get(flag))
        # Only a run its model's API stopped, or whose server's context is then made larger, gets further by
        # resuming: any other would replay to the same end.
        if overflowed:
            print(f"  run directory: {result.run_dir}  (a resume against the same server stops at the same call; once "
                  f"the server has a larger context, continue with: bizsim run --resume {shlex.quote(str(result.run_dir))}"
                  f"{confirm}; the other fixes need a new run)")
        elif result.terminal_detail in ASKED_STOPS and result.terminal_reason == "error":
            print(f"  run directory: {result.run_dir}  (complete up to that stop, which is not a failure; a resume "
                  "would replay it to the same place: to play further, start a run with a higher cap, or fork this "
                  "one with `bizsim fork`)")
        elif code == EXIT_GUARD:
            print(f"  run directory: {result.run_dir}  (complete up to that stop; a resume would replay it to the "
                  "same place: to play further, change the model or its settings in a new run, or fork this one "
                  "with `bizsim fork`)")
        elif code == 0:
            print(f"  run directory: {result.run_dir}  (complete: a resume has nothing left to play; `bizsim fork` "
                  "plays on from any point of it)")
        else:
            print(f"  run directory: {result.run_dir}  (continue with: bizsim run --resume "
                  f"{shlex.quote(str(result.run_dir))}{confirm})")


@contextlib.contextmanager
def _llm_progress(args: argparse.Namespace, run_dir: str | None) -> Iterator[Callable[[Any], None] | None]:
    """The live panel of an LLM run on a terminal (not with --json, --no-progress, or output to a file or pipe)."""
    if args.json or args.no_progress or not sys.stdout.isatty():
        with _progress(args) as update:
            yield update
        return
    from .live_panel import LivePanel

    with LivePanel(run_dir) as panel:
        yield panel.on_stop


@contextlib.contextmanager
def _progress(args: argparse.Namespace) -> Iterator[Callable[[Any], None] | None]:
    """A progress bar's update callback for a run (``None`` with --no-progress or when stderr is no terminal)."""
    if args.no_progress or not sys.stderr.isatty():
        yield None
        return
    bar = _Progress()
    try:
        yield bar.update
    finally:
        bar.close()


class _Progress:
    """A progress bar on stderr over simulated time."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[when]}"), transient=True)
        self._task = self._bar.add_task("simulating", total=1.0, when="")
        self._bar.start()

    def update(self, world: Any) -> None:
        horizon = world.horizon_us
        if horizon:
            self._bar.update(self._task, completed=min(1.0, world.now_us / horizon), when=world.now_iso[:10])

    def close(self) -> None:
        self._bar.stop()


def _print_summary(result: Any, out: str | None) -> None:
    d = result.to_dict()
    print(f"{d['benchmark_id']}  preset={d['preset']}  seed={d['seed']}  agent={d['agent']}")
    episodes = len(d.get("episodes") or [d])
    count = f"{episodes} episodes, " if episodes > 1 else ""
    from bizsim.analysis.labels import ending_words

    ended = ending_words(d["terminal_reason"], getattr(result.final_world, "terminal_detail", None))
    print(f"  ended: {ended} at {result.final_world.now_iso}  "
          f"({count}{d['turns']} turns, {d['commands']} commands{' in the last' if episodes > 1 else ''})")
    line = metric_line(d)
    if line:
        print(f"  {line}")
    for extra in context_lines(d):
        print(f"  {extra}")
    if "tasks_succeeded" in d:
        print(f"  tasks: {d['tasks_succeeded']} succeeded, {d['tasks_failed']} failed, {d['tasks_cancelled']} cancelled")
    for line in tally_lines(str(d["world"]), getattr(result, "worlds", None) or (result.final_world,)):
        print(f"  {line}")
    from bizsim.analysis.series import month_ends  # no stub January after a year that ends on 1 January at 09:00

    months = month_ends(d.get("month_end_funds_cents") or {}, result.final_world.now_iso,
                        d.get("terminal_reason") == "bankruptcy")
    if months:
        print("  month-end funds: " + ", ".join(f"{m} {money(v)}" for m, v in months.items()))
    if out:
        print(f"  run directory: {out}")


def world_spec(name: str) -> Any:
    """The registered world ``name`` (the registry is imported on first use: ``bizsim --help`` stays fast)."""
    from bizsim.simcore.registry import world_spec as find

    return find(name)
