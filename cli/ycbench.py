"""``bizsim import yc-bench PATH --out DIR`` and ``bizsim export yc-bench RUN_DIR``: runs of the reference harness."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .options import bounded_int

__all__ = ["add_parsers", "run_export", "run_import"]

_FORMATS = ("yc-bench",)


def add_parsers(sub: Any) -> None:
    """The ``import`` and ``export`` subcommands."""
    imp = sub.add_parser(
        "import", help="import a run of another harness (yc-bench) as a bizsim run directory",
        description="Read a YC-Bench rollout (yc_bench_result_*.json, or *.transcript.jsonl), replay the model's "
                    "commands through preset reference and write a bizsim run directory with a fidelity report.",
    )
    imp.add_argument("format", choices=_FORMATS, help="the harness whose run it is")
    imp.add_argument("path", help="the rollout file")
    imp.add_argument("--out", help="the run directory to write (new or empty); without it, only the report")
    imp.add_argument("--config", help="the reference configuration the run used, if its file name does not tell")
    imp.add_argument("--seed", type=bounded_int(0), help="the run's seed, if the file does not tell")
    imp.add_argument("--model", help="the model name, if the file does not tell")
    imp.add_argument("--partial", action="store_true",
                     help="import a rollout that lost turns as an unverifiable record (imported.json only)")
    imp.add_argument("--other-world", action="store_true",
                     help="replay a rollout whose world is not preset reference's (another config or version)")
    imp.add_argument("--json", action="store_true", help="print the report as JSON")
    exp = sub.add_parser("export", help="write a bizsim run of the startup world in another harness's format",
                         description="Write a finished startup run (LLM, baseline, planner, live episode, import) as "
                                     "the reference's results JSON, which its plot scripts read.")
    exp.add_argument("format", choices=_FORMATS, help="the format (yc-bench: its results JSON)")
    exp.add_argument("run_dir", help="the run directory")
    exp.add_argument("--out", help="the file, or a directory for the reference's file name (default: here)")
    imp.set_defaults(handler=run_import)
    exp.set_defaults(handler=run_export)


def run_import(args: argparse.Namespace) -> int:
    """``bizsim import``: exit 0 when the replay matches the recorded results, 1 when it does not."""
    from bizsim.analysis.ycbench import format_report, import_rollout

    done = import_rollout(args.path, args.out, config=args.config, seed=args.seed, model=args.model,
                          partial=args.partial, other_world=args.other_world)
    report = done.report
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    elif "verdict" in report:
        print(format_report(report))
    else:
        print(f"{report['source']}: imported as an unverifiable record ({report['missing']})")
    if done.run_dir is not None:
        print(f"run directory: {done.run_dir}")
    return 0 if str(report.get("verdict", "")).startswith("match") else 1


def run_export(args: argparse.Namespace) -> int:
    """``bizsim export``."""
    from bizsim.analysis.ycbench import export_rollout

    print(export_rollout(args.run_dir, args.out))
    return 0
