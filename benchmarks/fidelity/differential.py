"""Differential check: bizsim's ``reference`` presets against the reference implementations, field by field.

Run from the repository root, in an environment that has bizsim and the references' own dependencies::

    python -m benchmarks.fidelity.differential --ecogym ~/src/EcoGym --world operation vending freelance --runs 200
    python -m benchmarks.fidelity.differential --yc-bench ~/src/yc-bench --world startup --runs 50

Identical action scripts (valid and invalid calls mixed, from ``--seed``) go into both; noise is fed
identically (``--noise fed``) or switched off in both (``--noise off``). Every result and every day's state is
compared field by field; a run whose state parts from the reference's is counted as diverged and not compared
further. Calls whose results differ on purpose (bizsim's deliberate differences, listed in the README) are sent
to neither and counted. Prints a JSON report; exit status 1 if any difference was found.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

ECOGYM = ("operation", "vending", "freelance")


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run each world's check, print the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ecogym", help="path of an EcoGym checkout (OPPO-PersonalAI/EcoGym)")
    ap.add_argument("--yc-bench", dest="yc_bench", help="path of a yc-bench checkout (collinear-ai/yc-bench)")
    ap.add_argument("--world", nargs="+", default=[*ECOGYM, "startup"], choices=[*ECOGYM, "startup"])
    ap.add_argument("--runs", type=int, default=200, help="scripts (runs) per world; startup: seeds")
    ap.add_argument("--seed", type=int, default=1, help="seed of the action scripts")
    ap.add_argument("--noise", choices=("fed", "off"), default="fed")
    ap.add_argument("--days", type=int, default=None, help="days per EcoGym run (default: the horizon)")
    ap.add_argument("--commands", type=int, default=400, help="startup: commands per seed")
    ap.add_argument("--tie-order", choices=("bizsim", "reference"), default="bizsim",
                    help="startup: steer the reference's same-instant task completions to bizsim's order, or leave "
                         "them to its random event ids")
    ap.add_argument("--out", help="also write the report to this JSON file")
    args = ap.parse_args(argv)
    report: dict = {}
    for world in args.world:
        started = time.perf_counter()
        if world in ECOGYM:
            if not args.ecogym:
                ap.error(f"--world {world} needs --ecogym PATH")
            from importlib import import_module

            mod = import_module(f"benchmarks.fidelity.{world}")
            report[world] = mod.run(args.ecogym, args.runs, args.seed, args.noise == "fed", args.days)
        else:
            if not args.yc_bench:
                ap.error("--world startup needs --yc-bench PATH")
            from benchmarks.fidelity import startup

            report[world] = startup.run(args.yc_bench, args.runs, args.seed, args.commands, args.tie_order)
        report[world]["seconds"] = round(time.perf_counter() - started, 1)
        summary = {k: v for k, v in report[world].items() if k != "examples"}
        print(world, json.dumps(summary), file=sys.stderr, flush=True)
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 1 if any(r["differences"] or r["runs_diverged"] for r in report.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
