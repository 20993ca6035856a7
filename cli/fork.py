"""``bizsim fork``: continue a recorded run from a turn, an hour or a day with another agent."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bizsim.simcore.errors import BizSimError

from .figures import metric_line
from .options import agent_options, bounded_float, bounded_int

__all__ = ["add_parser", "run_fork"]


def add_parser(sub: Any) -> None:
    """Add the ``fork`` subcommand to the ``bizsim`` parser."""
    fk = sub.add_parser(
        "fork", help="continue a recorded run from a turn, hour or day with any agent",
        description="Cut the run in RUN_DIR at a point (its first N agent turns, or the first turn starting at "
        "or after an hour or a day), restore the world there by replay, and let --agent play on. The new run "
        "directory's result.json names its parent and the fork point; `bizsim verify` replays it.",
    )
    fk.add_argument("run_dir", metavar="RUN_DIR", help="the parent run directory (bizsim run --out)")
    where = fk.add_mutually_exclusive_group(required=True)
    where.add_argument("--at-turn", type=bounded_int(0), metavar="N", help="after the parent's first N agent turns")
    where.add_argument("--at-hour", type=bounded_float(0), metavar="H", help="at the first turn starting at or after hour H")
    where.add_argument("--at-day", type=bounded_float(0), metavar="D", help="at the first turn starting at or after day D")
    fk.add_argument("--agent", required=True, help="agent that plays on (see `bizsim list`), or package.module:function")
    fk.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE", help="agent option (repeatable)")
    fk.add_argument("--fresh", action="store_true",
                    help="start the parent's own agent afresh at the fork point instead of continuing it")
    fk.add_argument("--out", required=True, metavar="DIR", help="write the fork's run directory here")
    fk.add_argument("--overwrite", action="store_true", help="replace the run already in --out")
    fk.add_argument("--json", action="store_true", help="print one JSON object")
    fk.set_defaults(handler=run_fork)


def run_fork(args: argparse.Namespace) -> int:
    """Run ``bizsim fork``."""
    from bizsim.runs.fork import fork

    if args.at_turn is not None:
        if args.at_turn < 0:
            raise BizSimError(f"--at-turn(={args.at_turn}) must be >= 0")
        at: Any = {"turn": args.at_turn}
    elif args.at_hour is not None:
        at = {"hours": args.at_hour}
    else:
        at = {"day": args.at_day}
    result = fork(args.run_dir, at, args.agent, agent_options=agent_options(args.agent_opt), fresh=args.fresh,
                  out=args.out, overwrite=args.overwrite)
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    d, origin = result.to_dict(), result.fork or {}
    start = result.final_world.calendar.iso(origin.get("t_us") or 0)[:16].replace("T", " ")
    print(f"{d['benchmark_id']}  fork of {origin.get('parent')} after turn {origin.get('turn')} "
          f"({_point_text(origin.get('at') or {})}; {origin.get('commands')} commands kept; {origin.get('mode')})")
    print(f"  agent={d['agent']}  plays from {start}; ended: {d['terminal_reason']} after {d['turns']} turns")
    line = metric_line(d)
    if line:
        print(f"  {line}")
    if args.out:
        print(f"  run directory: {args.out}")
    return 0


def _point_text(at: dict) -> str:
    """``{"day": 90}`` as ``asked for day 90``."""
    if "end" in at:
        return "at the snapshot's end"
    kind, value = next(iter(at.items()), ("turn", "?"))
    return f"asked for {'hour' if kind == 'hours' else kind} {value:g}" if isinstance(value, (int, float)) else str(at)
