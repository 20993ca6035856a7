"""``bizsim play``: a person plays a world in the browser, recorded as an ordinary run (agent ``human``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bizsim.simcore.errors import BizSimError

from .options import bounded_float, bounded_int
from .parser import bizsim_version

__all__ = ["add_parser", "run_play"]


def add_parser(sub: Any) -> None:
    """Add ``bizsim play`` to the subcommands."""
    p = sub.add_parser(
        "play", help="play a world in the browser (a human baseline, recorded as a run)",
        description="Serve a page on 127.0.0.1 on which a person plays any registered world; every action is recorded "
        "into a run directory (agent human) that verify, load, view, report and fork read. The URL carries a token "
        "made for this session: only whoever has it can play.")
    p.add_argument("world", nargs="?", help="world name, e.g. operation (not with --resume)")
    p.add_argument("--preset", default="default", help="preset name (default: default)")
    p.add_argument("--seed", type=bounded_int(0), default=1, help="world seed (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="a config value laid over the preset (repeatable), e.g. --set horizon_days=30")
    p.add_argument("--seat", action="append", default=None, metavar="AGENT[:KEY=VALUE,...]",
                   help="an arena's seats in order (repeatable): exactly one --seat human, the seat you play, and a "
                   "built-in agent in every other, e.g. --seat human --seat planner --seat markup")
    p.add_argument("--out", metavar="DIR", help="the run directory (default: play-WORLD-seedN here)")
    p.add_argument("--name", default="anonymous", help="the player's name, kept in the run (default: anonymous)")
    p.add_argument("--minutes", type=bounded_float(0, 10_000, above=True), default=None,
                   help="wall-clock minutes the player has (the whole run, resumed sessions included)")
    p.add_argument("--resume", metavar="DIR", help="continue the played run in DIR (the server stopped, the tab closed)")
    p.add_argument("--port", type=bounded_int(0, 65535), default=0, help="port on 127.0.0.1 (default: any free port)")
    p.add_argument("--no-browser", action="store_true", help="print the URL only; do not open a browser")
    p.set_defaults(handler=run_play)


def run_play(args: argparse.Namespace) -> int:
    """Open (or resume) the run, serve its page until interrupted, and leave the run resumable."""
    from bizsim.surfaces.play import PlaySession, PlayServer

    from .live import _overrides

    limit = None if args.minutes is None else 60.0 * args.minutes
    if args.resume:
        if args.world or args.overrides or args.seat:
            raise BizSimError(f"--resume continues the run in {args.resume!r}, whose world, config and seats it names; "
                              "drop the world, --set and --seat")
        session = PlaySession.resume(args.resume, time_limit_s=limit)
    else:
        if not args.world:
            raise BizSimError("name a world to play (bizsim list shows them), e.g. bizsim play operation, "
                              "or continue a run with --resume DIR")
        out = args.out or f"play-{args.world}-seed{args.seed}"
        session = PlaySession(args.world, args.preset, args.seed, out=out, player=args.name, time_limit_s=limit,
                              overrides=_overrides(args.overrides), roster=args.seat)
    session.episode.set_client("bizsim play", bizsim_version())
    try:
        server = PlayServer(session, port=args.port)
    except BaseException:
        session.close()
        raise
    arena = session.state()["arena"]
    what = f"seat {arena['seat']} of {arena['world']}" if arena else session.episode.world.benchmark_id
    print(f"playing {what}, recorded in {session.episode.root}", flush=True)
    print(f"open {server.url}  (Ctrl-C stops; bizsim play --resume {session.episode.root} continues)", flush=True)
    if not args.no_browser:
        import webbrowser

        try:
            webbrowser.open(server.url)
        except Exception as exc:  # noqa: BLE001 -- no browser here: the printed URL is the way in
            print(f"(no browser opened: {exc})", file=sys.stderr)
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt  # SIGTERM stops as Ctrl-C does: the run is written a last time, closed

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass  # the way to stop: the run is kept, resumable
    finally:
        server.close()
        print(f"stopped; the run is in {session.episode.root}", flush=True)
    return 0
