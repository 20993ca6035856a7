"""``bizsim run ARENA --seat AGENT ...``: one arena run, a seat per ``--seat``, recorded in one run directory; and
``bizsim run --resume DIR`` for an arena with LLM seats that was cut off."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from bizsim.simcore.errors import BizSimError

__all__ = ["resume_arena", "run_arena"]

#: ``bizsim run`` flags that set one agent's run; an arena's seats carry their own (``--seat llm:model=...``).
_ONE_AGENT_FLAGS = ("agent", "model", "api_base", "api_key_env", "max_cost_usd", "max_turns", "max_tokens_total",
                    "temperature", "memory", "auditor", "resume", "estimate")


def run_arena(args: argparse.Namespace, world: Any, progress: Any) -> int:
    """Run the arena ``world`` with the roster ``args.seat``; print its standings (or ``--json``)."""
    from bizsim.runs.resolve import resolve
    from bizsim.runs.runspec import RunSpec

    given = [f for f in _ONE_AGENT_FLAGS if getattr(args, f) not in (None, False)]
    if given or args.agent_opt:
        flag = (given or ["agent_opt"])[0].replace("_", "-")
        raise BizSimError(f"--{flag} sets one agent's run; in an arena each --seat names its agent and options, e.g. "
                          "--seat planner --seat llm:model=openai/gpt-4o-mini,max_cost_usd=0.5")
    if args.max_episodes != 1:
        raise BizSimError("an arena run plays one episode; drop --max-episodes")
    run = resolve(RunSpec(world.name, args.preset, seed=args.seed, roster=args.seat, entry=world))
    return _play(args, run, args.out, resume=False, progress=progress)


def resume_arena(args: argparse.Namespace, progress: Any) -> int:
    """``bizsim run --resume DIR`` on an arena run: its spec is read from DIR (or given again: the run's own command
    line with ``--resume DIR`` added, which must ask for the arena DIR holds); each LLM seat that names an endpoint
    or key variable must be confirmed (``--api-base``/``--api-key-env``, or the roster given again)."""
    from bizsim.runs.arena_resume import confirm_seat_endpoints, load_arena_spec, seat_options
    from bizsim.runs.resolve import resolve
    from bizsim.runs.runspec import RunSpec

    flags = [f for f in _ONE_AGENT_FLAGS if f not in ("resume", "api_base", "api_key_env")
             and getattr(args, f) not in (None, False)]
    if flags or args.agent_opt:
        flag = (flags or ["agent_opt"])[0].replace("_", "-")
        raise BizSimError(f"--{flag} sets one agent's run; {args.resume!r} holds an arena, whose seats keep their own")
    if args.overwrite:
        raise BizSimError("--overwrite replaces a run; --resume goes on with the one in the directory: drop one")
    if args.out is not None and args.out != args.resume:
        raise BizSimError(f"--out {args.out!r} and --resume {args.resume!r} differ; a resume writes where it resumes")
    recorded, _ = load_arena_spec(args.resume)
    if args.seat:  # the run's command line again: it must ask for the arena the directory holds (checked on resume)
        world = recorded.world_spec if args.world is None else args.world
        spec = RunSpec(getattr(world, "name", world), args.preset, seed=args.seed, roster=args.seat)
        confirmed = seat_options(args.seat)
    else:
        if args.world is not None and args.world not in (recorded.world, recorded.benchmark_id):
            raise BizSimError(f"{args.resume!r} holds a {recorded.world} arena, not {args.world}")
        spec = recorded
        confirmed = []
    if args.api_base is not None or args.api_key_env is not None:
        confirmed.append((args.api_base, args.api_key_env))
    confirm_seat_endpoints(recorded, confirmed)
    return _play(args, resolve(spec), args.resume, resume=True, progress=progress)


def _play(args: argparse.Namespace, run: Any, out: str | None, *, resume: bool, progress: Any) -> int:
    """Play ``run`` into ``out`` (or go on with it there), then print its standings and, for a seat its model's API
    stopped, how to go on; an interrupted arena with LLM seats says how to resume it."""
    from bizsim.runs.arena_resume import ArenaCutOff
    from bizsim.runs.pipeline import execute
    from bizsim.runs.recorder import recorder_for
    from bizsim.runs.rundir import RunDir

    from .run import EXIT_API

    recorder = recorder_for(out, overwrite=args.overwrite)
    try:
        with progress(args) as on_stop:
            result = execute(run, recorder, on_stop=on_stop, preflight=not args.no_preflight, resume=resume)
    except ArenaCutOff as exc:  # an outage: the arena stopped where it stood, nothing lost
        kept = f"; every answered call is kept: {_resume_line(run, out)}" if out is not None else ""
        print(f"bizsim: the arena stopped: {exc}{kept}", file=sys.stderr)
        return EXIT_API
    except KeyboardInterrupt:
        if out is not None and RunDir(out).holds_arena_spec():
            print(f"bizsim: the arena stopped mid-run; every answered call is kept: {_resume_line(run, out)}",
                  file=sys.stderr)
        raise
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        _print_standings(result.to_dict(), out)
    return 0


def _resume_line(run: Any, out: str) -> str:
    """How to go on with the arena in ``out``: ``bizsim run --resume DIR`` and the endpoint its LLM seats name (one
    pair: the flags; several: the roster again)."""
    named = {(s.options.get("api_base"), s.options.get("api_key_env")) for s in run.spec.roster} - {(None, None)}
    line = f"continue with: bizsim run --resume {shlex.quote(str(out))}"
    if len(named) == 1:
        base, key = next(iter(named))
        line += "".join(f" {flag} {shlex.quote(str(v))}" for flag, v in (("--api-base", base), ("--api-key-env", key))
                        if v is not None)
    elif named:
        seats = " ".join(f"--seat {shlex.quote(_seat_text(s))}" for s in run.spec.roster)
        line += f" {run.spec.world} {seats} --seed {run.spec.seed} --preset {shlex.quote(run.spec.preset)}"
    return line


def _seat_text(seat: Any) -> str:
    """A roster seat as ``--seat`` takes it (``agent:key=value,...``; values as JSON where they are not text)."""
    pairs = ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v, separators=(',', ':'))}"
                     for k, v in seat.options.items())
    return f"{seat.agent}:{pairs}" if pairs else seat.agent


def _print_standings(d: dict, out: str | None) -> None:
    from bizsim.analysis.labels import CAP_STOPS, ending_words, words

    from .figures import money

    seats = d.get("seats") or []
    print(f"{d['benchmark_id']}  preset={d['preset']}  seed={d['seed']}  {len(seats)} seats")
    print(f"  ended: {ending_words(d['terminal_reason'], d.get('terminal_detail'))}  "
          f"({d['turns']} turns, {d['commands']} commands in all)")
    metric = str(d.get("metric") or (seats[0].get("metric") if seats else "") or "")
    shown = words(metric.removesuffix("_cents")) if metric else "metric"
    print(f"  standings ({shown[0].lower() + shown[1:] if shown else 'metric'}):")
    ranked = sorted(seats, key=lambda s: (-(s.get("metric_value") or 0), s.get("seat", 0)))
    width = max((len(str(s.get("label"))) for s in seats), default=5)
    for place, s in enumerate(ranked, 1):
        value = s.get("metric_value")
        figure = money(value) if metric.endswith("_cents") and isinstance(value, int) else f"{value:,}"
        cost = (s.get("llm") or {}).get("cost_usd")
        extra = f"  (model cost ${cost:.4f})" if isinstance(cost, (int, float)) else ""
        reason, detail = s.get("terminal_reason"), s.get("terminal_detail")
        if reason == "agent_stopped" and detail in CAP_STOPS:  # every agent stopped: the arena held there
            extra += (f"  (agent stopped at {CAP_STOPS[detail]} after {s.get('turns')} turns; the arena held there, "
                      "every agent having stopped)")
        elif reason != "error" and detail in CAP_STOPS:  # retired by its agent's cap: its company played on
            extra += (f"  (agent stopped at {CAP_STOPS[detail]} after {s.get('turns')} turns; the company ran on to "
                      f"{str(reason).replace('_', ' ')})")
        elif (reason, detail) != (d["terminal_reason"], d.get("terminal_detail")):  # it left before the arena ended
            extra += f"  ({ending_words(reason, detail)}; {s.get('turns')} turns)"
        print(f"    {place}. seat {s.get('seat')}  {str(s.get('label')):<{width}}  {figure:>14}{extra}")
    if out:
        print(f"  run directory: {out}  (bizsim verify {out} replays it; bizsim view {out} draws its lanes)")
