"""``bizsim view``: the parser and what it runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bizsim.simcore.errors import BizSimError

from .options import bounded_int

__all__ = ["add_parser", "run_view"]


def add_parser(sub: Any) -> None:
    """Add the ``view`` subcommand to the ``bizsim`` parser."""
    v = sub.add_parser(
        "view", help="see what an agent did: a run, two runs side by side, a sweep, a fork family or an Inspect log, "
        "as one HTML page",
        description="Write one self-contained HTML page (no network needed to open it) for a run directory, a "
        "sweep directory, a folder of a run and its forks, an Inspect log or a folder of them, or two run directories "
        "side by side; or "
        "serve it on 127.0.0.1.",
    )
    v.add_argument("paths", nargs="+", metavar="PATH", help="a run, sweep or fork-family directory, an Inspect log or a folder of "
                   "them; two run directories compare")
    v.add_argument("--out", metavar="FILE", help="the page to write (default: NAME.html here, NAME the last PATH's)")
    v.add_argument("--serve", action="store_true", help="serve the page on 127.0.0.1 instead of writing it")
    v.add_argument("--port", type=bounded_int(0, 65535), default=0, help="port for --serve (default: any free port)")
    v.add_argument("--follow", action="store_true", help="with --serve: redraw as a running run writes more")
    v.add_argument("--no-requests", action="store_true",
                   help="LLM runs: show the answers only (skip rebuilding what the model was sent)")
    v.set_defaults(handler=run_view)


def run_view(args: argparse.Namespace) -> int:
    """Write the page and print where it is, or serve it until interrupted."""
    from bizsim.view import write_view
    from bizsim.view.server import ViewServer

    if args.follow and not args.serve:
        raise BizSimError("--follow goes with --serve (a written file cannot refresh itself)")
    if args.serve and args.out:
        raise BizSimError("give --out FILE or --serve, not both")
    if not 0 <= args.port <= 65535:
        raise BizSimError(f"--port(={args.port}) must be 0-65535")
    if args.serve:
        server = ViewServer(args.paths, port=args.port, follow=args.follow, requests=not args.no_requests)
        print(f"serving {server.url} (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        finally:
            server.httpd.server_close()
        return 0
    out = args.out or f"{Path(args.paths[-1]).resolve().name or 'view'}.html"
    print(write_view(args.paths, out, requests=not args.no_requests))
    return 0
