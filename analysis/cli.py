"""The ``bizsim`` command: run, shell, list."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from bizsim.simcore.errors import BizSimError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with one clear line
        self.print_usage(sys.stderr)
        self.exit(2, f"bizsim: error: {message}\n")


def _agent_options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key:
            raise BizSimError(f"--agent-opt {pair!r} must look like KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bizsim", description="Business simulations for long-horizon benchmarks of AI agents.")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run one episode with an agent")
    run.add_argument("world", help="world name, e.g. startup")
    run.add_argument("--agent", default="greedy", help="agent name (see `bizsim list`)")
    run.add_argument("--seed", type=int, default=1, help="world seed")
    run.add_argument("--preset", default="default", help="preset name or a .toml config file")
    run.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE", help="agent option (repeatable)")
    run.add_argument("--max-episodes", type=int, default=1, help="restart after bankruptcy up to N episodes")
    run.add_argument("--out", help="write the run directory here")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")

    shell = sub.add_parser("shell", help="play a world by typing its commands")
    shell.add_argument("world")
    shell.add_argument("--seed", type=int, default=1)
    shell.add_argument("--preset", default="default")

    sub.add_parser("list", help="list worlds, presets and agents")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bizsim`` console script."""
    args = _build_parser().parse_args(argv)
    try:
        if args.cmd == "run":
            return _run(args)
        if args.cmd == "shell":
            return _shell(args)
        return _list()
    except BizSimError as exc:
        print(f"bizsim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bizsim: interrupted", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    from bizsim.agents import make_agent
    from bizsim.models import world_class

    from .episode import run_episode

    if args.seed < 0:
        raise BizSimError(f"--seed(={args.seed}) must be >= 0")
    if args.max_episodes < 1:
        raise BizSimError(f"--max-episodes(={args.max_episodes}) must be >= 1")
    cls = world_class(args.world)
    options = _agent_options(args.agent_opt)
    make_agent(cls.name, args.agent, options)  # fail fast on a bad agent or option
    cls(args.preset, args.seed)  # and on a bad preset
    progress = None if args.no_progress or not sys.stderr.isatty() else _Progress()
    try:
        result = run_episode(
            args.world, args.preset, args.agent, args.seed, agent_options=options, max_episodes=args.max_episodes,
            out=args.out, on_stop=progress.update if progress else None,
        )
    finally:
        if progress:
            progress.close()
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        _print_summary(result, args.out)
    return 0


class _Progress:
    """A progress bar on stderr over simulated time."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[when]}"), transient=True)
        self._task = self._bar.add_task("simulating", total=1.0, when="")
        self._bar.start()

    def update(self, world: Any) -> None:
        horizon = getattr(world, "horizon_us", None)
        if horizon:
            self._bar.update(self._task, completed=min(1.0, world.now_us / horizon), when=world.now_iso[:10])

    def close(self) -> None:
        self._bar.stop()


def _money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def _print_summary(result: Any, out: str | None) -> None:
    d = result.to_dict()
    print(f"{d['benchmark_id']}  preset={d['preset']}  seed={d['seed']}  agent={d['agent']}")
    print(f"  ended: {d['terminal_reason']} at {result.final_world.now_iso}  ({d['turns']} turns, {d['commands']} commands)")
    if "final_funds_cents" in d:
        print(f"  final funds: {_money(d['final_funds_cents'])}")
    if "tasks_succeeded" in d:
        print(f"  tasks: {d['tasks_succeeded']} succeeded, {d['tasks_failed']} failed, {d['tasks_cancelled']} cancelled")
    months = d.get("month_end_funds_cents") or {}
    if months:
        print("  month-end funds: " + ", ".join(f"{m} {_money(v)}" for m, v in months.items()))
    if out:
        print(f"  run directory: {out}")


def _shell(args: argparse.Namespace) -> int:
    from bizsim.models import world_class
    from bizsim.simcore.driver import Driver

    world = world_class(args.world)(args.preset, args.seed)
    driver = Driver(world)
    interactive = sys.stdin.isatty()
    if interactive:
        print(f"{world.benchmark_id} seed {args.seed} preset {args.preset}. Type 'help' for commands, 'quit' to leave.")
    while not driver.done:
        if interactive:
            obs = world.observation()
            funds = obs.get("funds_cents")
            prompt = f"[{world.now_iso}{'  ' + _money(funds) if funds is not None else ''}]> "
        else:
            prompt = ""
        try:
            line = input(prompt)
        except EOFError:
            break
        line = line.strip()
        if not line:
            continue
        if line in ("quit", "exit"):
            break
        print(json.dumps(driver.send(line), indent=2))
    if driver.done:
        print(f"episode ended: {world.status.value}")
    return 0


def _list() -> int:
    from bizsim.agents import agent_names
    from bizsim.models import WORLDS, world_class, world_presets

    for name in WORLDS:
        cls = world_class(name)
        print(f"{name} ({cls.name}-v{cls.version})")
        print(f"  presets: {', '.join(world_presets(name))}")
        print(f"  agents:  {', '.join(agent_names(name))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
