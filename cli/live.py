"""The command line of live episodes played from outside: ``bizsim mcp``, ``serve``, ``do`` and ``shim``.

Each subcommand imports its surface when it runs (the ``mcp`` SDK only for ``bizsim mcp``; ``bizsim do`` and the
shim load no simulation at all), so ``bizsim --help`` and ``bizsim run`` stay as fast as they were.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from bizsim.simcore.errors import BizSimError

from .options import bounded_float, bounded_int

__all__ = ["add_parsers", "run_live"]

#: The environment variable naming the run directory ``bizsim do`` talks to (when ``--run`` is not given).
RUN_ENV = "BIZSIM_RUN"


def _episode_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("world", help="a registered world, e.g. startup (see `bizsim list`)")
    p.add_argument("--preset", default="default", help="preset name or a .toml config file")
    p.add_argument("--seed", type=bounded_int(0), default=1, help="world seed")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="a config value laid over the preset (repeatable; dotted keys reach nested tables; "
                        "the value is read as JSON when it is)")
    p.add_argument("--out", required=True, metavar="DIR", help="the run directory every call is recorded into")
    p.add_argument("--overwrite", action="store_true", help="replace a finished run already in --out")
    p.add_argument("--max-turns", type=bounded_int(), metavar="N", help="end the episode after N calls (default: the world "
                   "config's max_turns, if any)")


def add_parsers(sub: Any) -> None:
    """Add ``mcp``, ``serve``, ``do`` and ``shim`` to the ``bizsim`` subcommands."""
    mcp = sub.add_parser("mcp", help="serve one recorded episode over MCP (stdio, or streamable HTTP)",
                         description="Serve one episode of WORLD to an MCP client: the world's commands are tools, "
                                     "its system prompt an MCP prompt, its rules a resource. Every call is recorded "
                                     "into --out as it happens; `bizsim verify DIR` checks it. The client's leaving ends the episode and "
                                     "the server (over HTTP: the end of its MCP session). Needs the mcp extra "
                                     '(pip install -e ".[mcp]" in the bizsim checkout).')
    _episode_flags(mcp)
    mcp.add_argument("--seat", action="append", default=None, metavar="AGENT[:KEY=VALUE,...]",
                     help="an arena's seats in order (repeatable): exactly one --seat mcp, the seat the client plays, "
                          "and a built-in agent in every other, e.g. --seat mcp --seat planner --seat markup")
    mcp.add_argument("--http", type=bounded_int(0, 65535), metavar="PORT", help="serve streamable HTTP on PORT (path /mcp) instead "
                     "of stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="the address --http binds (default 127.0.0.1)")
    mcp.add_argument("--idle-timeout", type=bounded_float(0, above=True), default=1800.0, metavar="SECONDS",
                     help="with --http: end the episode (and stop) once the client's session has had no request in "
                          "flight this long, as a client that went away without closing it (default 1800)")

    serve = sub.add_parser("serve", help="keep one recorded episode alive behind a socket, for `bizsim do`",
                           description="Keep one episode of WORLD alive behind the Unix socket DIR/episode.sock "
                                       "(owner only) until stopped (Ctrl-C, SIGTERM). `bizsim do` and `yc-bench` "
                                       "shims send it command lines; each is recorded into DIR as it happens.")
    _episode_flags(serve)

    do = sub.add_parser("do", help="send one command line to a served episode and print its JSON",
                        description="Send LINE to the episode `bizsim serve` keeps in the run directory (--run, or "
                                    f"${RUN_ENV}). Prints the JSON result; exit status 0 (it ran), 1 (the world "
                                    "refused it; its error is printed) or 2 (nothing ran: usage), as YC-Bench's "
                                    "command line.")
    do.add_argument("line", metavar="LINE", help='one command line, e.g. "market browse --limit 5"')
    do.add_argument("--run", metavar="DIR", help=f"the served run directory (default: ${RUN_ENV})")

    shim = sub.add_parser("shim", help="write a `yc-bench` command that forwards to a served episode",
                          description="Write BIN_DIR/yc-bench, a program that forwards its arguments (never through "
                                      "a shell) to the episode served in --run, so an agent in a terminal types "
                                      "the commands the YC-Bench prompt teaches. Put BIN_DIR first on PATH.")
    shim.add_argument("bin_dir", metavar="BIN_DIR", help="the directory to write yc-bench into")
    shim.add_argument("--run", required=True, metavar="DIR", help="the served run directory")
    shim.add_argument("--name", default="yc-bench", help="the command's name (default yc-bench)")
    mcp.set_defaults(handler=run_live)
    serve.set_defaults(handler=run_live)
    do.set_defaults(handler=run_live)
    shim.set_defaults(handler=run_live)


def run_live(args: argparse.Namespace) -> int:
    """Run ``bizsim mcp``, ``serve``, ``do`` or ``shim``."""
    if args.cmd == "do":
        from .shim import run_line

        run = args.run or os.environ.get(RUN_ENV)
        if not run:
            raise BizSimError(f"bizsim do needs the served run directory: --run DIR or ${RUN_ENV}")
        return run_line(run, args.line)
    if args.cmd == "shim":
        from .shim import write_shim

        path = write_shim(args.bin_dir, args.run, name=args.name)
        print(f"wrote {path}: it forwards to the episode served in {args.run}")
        return 0
    if args.cmd == "mcp" and not 0 < args.idle_timeout < float("inf"):
        raise BizSimError(f"--idle-timeout(={args.idle_timeout}) must be a number of seconds > 0")
    if args.cmd == "mcp":
        from bizsim.surfaces.mcp_server import bind_http, require_sdk, serve as serve_mcp

        require_sdk()  # before the address or the run directory is touched
        # The address first: a port in use is refused before the run directory is touched.
        sock = None if args.http is None else bind_http(args.host, args.http)
        try:
            episode = _open(args)
        except BaseException:
            if sock is not None:
                sock.close()
            raise
        serve_mcp(episode, http_socket=sock, idle_timeout=args.idle_timeout)
        return 0
    episode = _open(args)
    from bizsim.surfaces.shell_session import serve_socket

    serve_socket(episode)
    return 0


def _open(args: argparse.Namespace) -> Any:
    from bizsim.runs.live import Budgets, Episode
    from bizsim.runs.live_arena_spec import is_arena

    if args.seed < 0:
        raise BizSimError(f"--seed(={args.seed}) must be >= 0")
    roster = getattr(args, "seat", None)
    if roster is not None or is_arena(args.world):
        from bizsim.runs.live_arena import ArenaEpisode

        if roster is None:
            raise BizSimError(f"{args.world} is an arena: give each seat, exactly one of them the client's, e.g. "
                              f"bizsim {args.cmd} {args.world} --seat mcp --seat planner" if args.cmd == "mcp" else
                              f"{args.world} is an arena; bizsim {args.cmd} cannot host one of its seats: play it with "
                              "bizsim mcp or bizsim play")
        return ArenaEpisode(args.world, args.preset, args.seed, roster=roster, out=args.out,
                            overrides=_overrides(args.overrides), surface="mcp",
                            budgets=Budgets(max_turns=args.max_turns), overwrite=args.overwrite)
    return Episode(args.world, args.preset, args.seed, out=args.out, overrides=_overrides(args.overrides),
                   surface=args.cmd if args.cmd == "mcp" else "shell", budgets=Budgets(max_turns=args.max_turns),
                   overwrite=args.overwrite)


def _overrides(pairs: list[str]) -> dict[str, Any]:
    """``--set`` pairs as nested tables: ``a.b=3`` is ``{"a": {"b": 3}}``."""
    from .options import agent_options

    out: dict[str, Any] = {}
    for key, value in agent_options(pairs, flag="--set").items():
        table = out
        *parents, last = key.split(".")
        for part in parents:
            nested = table.setdefault(part, {})
            if not isinstance(nested, dict):
                raise BizSimError(f"--set {key}: {part!r} is given a value and a table")
            table = nested
        table[last] = value
    return out

