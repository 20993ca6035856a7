"""``bizsim openenv``: serve a registered world as an OpenEnv environment (reset, step, state) on 127.0.0.1."""

from __future__ import annotations

import argparse
import math
from typing import Any

from bizsim.runs.rewards import REWARDS
from bizsim.simcore.errors import BizSimError, ConfigError
from bizsim.simcore.limits import show

from .options import bounded_float, bounded_int

__all__ = ["add_parser", "run_openenv"]


def add_parser(sub: Any) -> None:
    """Add ``bizsim openenv`` to the subcommands."""
    p = sub.add_parser(
        "openenv", help="serve a world as an OpenEnv environment: many recorded episodes over HTTP/WebSocket",
        description="Serve WORLD as an OpenEnv environment (the contract TRL's GRPO trainer talks to): each "
                    "WebSocket session at /ws plays its own episodes, each reset opens one, recorded into its own "
                    "run directory under --out (`bizsim verify` accepts it). Stop with Ctrl-C. Needs the openenv "
                    'extra (pip install -e ".[openenv]" in the bizsim checkout).')
    p.add_argument("world", help="a registered world, e.g. startup (see `bizsim list`)")
    p.add_argument("--preset", default="default", help="preset name or a .toml config file")
    p.add_argument("--seed", type=bounded_int(0), default=1, help="the seed of a reset that names none (default 1)")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder each episode's run directory is made in")
    p.add_argument("--port", type=bounded_int(0, 65535), default=8000, help="the port to listen on (default 8000; "
                   "0: any free port, printed)")
    p.add_argument("--host", default="127.0.0.1", help="the address to bind (default 127.0.0.1)")
    p.add_argument("--max-episodes", type=bounded_int(1, 1024), default=64, metavar="N",
                   help="episodes (sessions) held at once, and episodes recorded from stateless HTTP /reset in all "
                        "(default 64)")
    window = p.add_mutually_exclusive_group()
    window.add_argument("--window-turns", type=bounded_int(1), metavar="N", help="end each episode after N agent turns")
    window.add_argument("--window-days", type=bounded_float(0, above=True), metavar="D",
                        help="end each episode after D simulated days")
    p.add_argument("--reward", choices=REWARDS, default="delta",
                   help="delta: each step's metric change (default); terminal: 0 until the step that ends the "
                        "episode, which gets the whole change; shaped: delta plus the weighted change of the world's "
                        "sub-metrics (docs: Reinforcement learning)")
    p.add_argument("--reward-weight", action="append", type=_weight, default=[], metavar="NAME=W",
                   help="with --reward shaped: the weight of sub-metric NAME (a finite number; repeat for more, each "
                        "name once); the others keep the world's defaults")
    p.add_argument("--reward-scale", type=bounded_float(0, above=True), default=1.0, metavar="X",
                   help="the reward is the metric change times X (default 1; startup's metric is in cents)")
    p.set_defaults(handler=run_openenv)


def run_openenv(args: argparse.Namespace) -> int:
    """Run ``bizsim openenv`` until stopped."""
    try:
        from bizsim.surfaces.openenv_server import EpisodeRuns, serve
    except ImportError as exc:
        raise BizSimError(str(exc)) from None
    window = ({"turns": args.window_turns} if args.window_turns is not None else
              {"days": args.window_days} if args.window_days is not None else None)
    if args.reward_weight and args.reward != "shaped":
        raise ConfigError(f"--reward-weight weighs the sub-metrics of --reward shaped and --reward is {args.reward}: "
                          "add --reward shaped or drop --reward-weight")
    names = [name for name, _ in args.reward_weight]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:  # a dict would keep the last silently
        raise ConfigError(f"--reward-weight names {', '.join(map(show, twice))} more than once; give each sub-metric "
                          "one weight")
    weights = dict(args.reward_weight) if args.reward_weight else None
    runs = EpisodeRuns(args.world, args.preset, args.seed, out=args.out, window=window,
                       reward=args.reward, reward_scale=args.reward_scale, reward_weights=weights)
    try:
        serve(runs, host=args.host, port=args.port, max_episodes=args.max_episodes)
    except KeyboardInterrupt:
        pass
    return 0


def _weight(text: str) -> tuple[str, float]:
    """``--reward-weight NAME=W``: a name and a finite number (the world checks the name when the server starts)."""
    name, eq, raw = text.partition("=")
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not eq or not name or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{show(text)} must look like NAME=W with W a finite number, e.g. "
                                         "prestige=150000")
    return name, value
