"""``bizsim shell``: a person plays a world at a prompt (the screen itself is :mod:`bizsim.cli.shell_screen`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from .figures import money
from .options import bounded_int
from .parser import bizsim_version

__all__ = ["add_parser", "run_shell_command"]


def add_parser(sub: Any) -> None:
    """Add ``bizsim shell`` to the subcommands."""
    shell = sub.add_parser("shell", help="play a world by typing its commands")
    shell.add_argument("world", help="world name, e.g. startup")
    shell.add_argument("--seed", type=bounded_int(0), default=1, help="world seed")
    shell.add_argument("--preset", default="default", help="preset name or a .toml config file")
    shell.add_argument("--json", action="store_true", help="print every answer as JSON (piped input always is)")
    shell.add_argument("--out", metavar="DIR", help="record the session as a run directory (verify, load, view read it)")
    shell.add_argument("--overwrite", action="store_true", help="replace a finished run already in --out")
    shell.set_defaults(handler=run_shell_command)


def run_shell_command(args: argparse.Namespace) -> int:
    """Run ``bizsim shell``."""
    return _shell(args)


def _shell(args: argparse.Namespace) -> int:
    from .shell_screen import run_shell

    if args.out is not None:  # recorded as any agent's run: a person's play is a baseline the same tools read
        from bizsim.runs.live import Episode

        episode = Episode(args.world, args.preset, args.seed, out=args.out, surface="shell", agent="human",
                          overwrite=args.overwrite)
        world: Any = episode.world
        episode.set_client("bizsim shell", bizsim_version())

        def send(line: str) -> dict:
            return episode.call_line(line).result
    else:
        from bizsim.simcore.driver import Driver

        from bizsim.simcore.registry import world_spec

        world = world_spec(args.world).make(args.preset, args.seed)
        send = Driver(world).send

    def prompt() -> str:
        funds = world.observation().get("funds_cents")
        return f"[{world.now_iso}{'  ' + money(funds) if funds is not None else ''}]> "

    banner = (f"{world.benchmark_id} seed {args.seed} preset {args.preset}. Type 'help' for commands, Tab to complete, "
              "'json' for the last answer in full, 'quit' to leave.")
    try:
        run_shell(world, send, interactive=sys.stdin.isatty(), as_json=args.json, banner=banner, prompt=prompt)
    finally:
        if args.out is not None:
            episode.close()
    if world.done:
        print(f"episode ended: {world.status.value}")
    if args.out is not None:
        print(f"recorded in {args.out} (check it with: bizsim verify {shlex.quote(str(args.out))})")
    return 0
