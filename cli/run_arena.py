"""``bizsim run ARENA --seat AGENT ...``: one arena run, a seat per ``--seat``, recorded in one run directory."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bizsim.simcore.errors import BizSimError

__all__ = ["run_arena"]

#: ``bizsim run`` flags that set one agent's run; an arena's seats carry their own (``--seat llm:model=...``).
_ONE_AGENT_FLAGS = ("agent", "model", "api_base", "api_key_env", "max_cost_usd", "max_turns", "max_tokens_total",
                    "temperature", "memory", "auditor", "resume", "estimate")


def run_arena(args: argparse.Namespace, world: Any, progress: Any) -> int:
    """Run the arena ``world`` with the roster ``args.seat``; print its standings (or ``--json``)."""
    from bizsim.runs.pipeline import execute
    from bizsim.runs.recorder import recorder_for
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
    recorder = recorder_for(args.out, overwrite=args.overwrite)
    with progress(args) as on_stop:
        result = execute(run, recorder, on_stop=on_stop, preflight=not args.no_preflight)
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    _print_standings(result.to_dict(), args.out)
    return 0


def _print_standings(d: dict, out: str | None) -> None:
    from bizsim.analysis.labels import ending_words, words

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
        if (reason, detail) != (d["terminal_reason"], d.get("terminal_detail")):  # the seat left before the arena ended
            extra += f"  ({ending_words(reason, detail)}; {s.get('turns')} turns)"
        print(f"    {place}. seat {s.get('seat')}  {str(s.get('label')):<{width}}  {figure:>14}{extra}")
    if out:
        print(f"  run directory: {out}  (bizsim verify {out} replays it; bizsim view {out} draws its lanes)")
