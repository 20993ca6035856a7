"""The ``bizsim`` command: this module only assembles the subcommands, one module each.

Every subcommand imports what it needs when it runs, so ``bizsim --help`` and a baseline run load no LLM client,
pandas, pyarrow, matplotlib or Ray.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bizsim.simcore.errors import BizSimError

from .parser import Parser, bizsim_version

__all__ = ["main"]

#: The subcommands' modules, in the order ``bizsim --help`` lists them; each has ``add_parser(s)(sub)``.
_COMMANDS = ("run", "shell", "play", "listing", "verify", "fork", "sweep", "live", "openenv", "ycbench", "view")


def _build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = Parser(prog="bizsim", description="Business simulations for long-horizon benchmarks of AI agents.")
    parser.add_argument("--version", action="version", version=f"bizsim {bizsim_version()}")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    for name in _COMMANDS:
        module = importlib.import_module(f"bizsim.cli.{name}")
        add = getattr(module, "add_parsers", None) or module.add_parser
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bizsim`` console script."""
    args = _build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except BizSimError as exc:
        print(f"bizsim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bizsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`bizsim list | head`): nothing left to say
        sys.stderr.close()
        return 0
    except OSError as exc:  # a full disk, a folder that went away: what was written before stays as it was
        where = f": {exc.filename}" if exc.filename else ""
        print(f"bizsim: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
