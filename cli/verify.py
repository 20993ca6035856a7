"""``bizsim verify``: replay run directories and check they give back their records exactly."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from bizsim.simcore.errors import BizSimError

__all__ = ["add_parser", "run_verify"]


def _run_dirs(dirs: Sequence[str]) -> list[str]:
    """The run directories named: a sweep directory stands for every run directory it keeps, in name order.

    Raises:
        BizSimError: a sweep directory that keeps no run directory (its runs were not written: ``--run-dirs``).
    """
    from bizsim.runs.rundir import RunDir, SweepDir

    out: list[str] = []
    for path in dirs:
        sweep = SweepDir(path)
        if not sweep.is_sweep() or RunDir(path).is_run():
            out.append(path)
            continue
        kept = sorted(p for p in sweep.runs.iterdir() if RunDir(p).is_run()) if sweep.runs.is_dir() else []
        if not kept:
            raise BizSimError(f"sweep {path!r} keeps no run directories to replay (its LLM runs keep theirs; run a "
                              "sweep with --run-dirs to keep every run's)")
        out.extend(str(p) for p in kept)
    return out


def add_parser(sub: Any) -> None:
    """Add ``bizsim verify`` to the subcommands."""
    verify = sub.add_parser(
        "verify", help="replay run directories and check they give back their trajectories and results exactly",
        description="Replay the command log of each run directory (every episode, in order) and compare the "
                    "trajectories and summaries with the recorded ones; for an LLM run, also check that every "
                    "answered turn keeps its call record and every stored request has its recorded hash (the "
                    "model's answers are taken as recorded: see docs/reproducibility.md). Exit 0 when all match, 1 "
                    "when one differs.",
    )
    verify.add_argument("dirs", nargs="+", metavar="DIR",
                        help="run directories (bizsim run --out, LLM runs), or sweep directories (each run kept in it)")
    verify.set_defaults(handler=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    """Run ``bizsim verify``: exit 0 when every directory replays to its record, 1 when one differs, 2 on an error."""
    return _verify(args.dirs)


def _verify(dirs: Sequence[str]) -> int:
    from bizsim.runs.verify import verify_run_dir

    worst = 0
    for path in _run_dirs(dirs):
        try:
            found = verify_run_dir(path)
        except BizSimError as exc:
            print(f"bizsim: error: {exc}", file=sys.stderr)
            worst = 2
            continue
        if found.ok:
            what = f"{found.seats} seats" if found.seats else f"{found.episodes} episode(s)"
            print(f"ok      {path}: {what}, {found.commands} commands replayed to the same bytes")
            continue
        worst = max(worst, 1)
        print(f"DIFFERS {path}:")
        for problem in found.problems:
            print(f"  {problem}")
    return worst
