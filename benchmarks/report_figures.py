"""How long does ``bizsim report`` take to write its figures, and does dropping the SVG's layout engine keep them?

Run: ``python benchmarks/report_figures.py [--seeds 1-2] [--pairs 3]``.

The report saves each figure as a PNG (laid out by matplotlib's constrained layout) and then as an SVG. Before,
the SVG was saved with the layout engine set to ``"none"``, which keeps a placeholder engine, so ``savefig`` made a
dry-run draw of the figure before the real one; now the figure has no engine for the SVG, and that draw is skipped.
This script writes the same sweep's report both ways in turns (A = placeholder engine, as before; B = no engine, as
now), prints the CPU seconds of each and their ratio, and checks that every file of the two reports is the same bytes
(report.html included: both are written at one SOURCE_DATE_EPOCH).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from matplotlib.figure import Figure

from bizsim.analysis.report import write_report
from bizsim.runs import grid, sweep

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibration import machine_line  # noqa: E402 -- benchmarks/calibration.py


@contextmanager
def _placeholder_engine():
    """Arm A: ``set_layout_engine(None)`` behaves as the report's earlier ``set_layout_engine("none")``."""
    original = Figure.set_layout_engine

    def as_before(self, layout=None, **kwargs):
        return original(self, "none" if layout is None else layout, **kwargs)

    Figure.set_layout_engine = as_before
    try:
        yield
    finally:
        Figure.set_layout_engine = original


def _files(page: Path) -> dict[str, bytes]:
    return {str(p.relative_to(page.parent)): p.read_bytes() for p in page.parent.rglob("*") if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-2", help="seeds of the startup sweep reported (default 1-2)")
    parser.add_argument("--pairs", type=int, default=3, help="A/B pairs of reports (default 3)")
    args = parser.parse_args()
    os.environ["SOURCE_DATE_EPOCH"] = "1767225600"  # the same date on both reports
    root = Path(tempfile.mkdtemp(prefix="bizsim-report-bench-"))
    sweep(grid("startup", ["default", "hard"], ["greedy", "planner", "random"], args.seeds), root / "sweep",
          backend="serial", progress=False)
    write_report(root / "sweep", root / "warm")  # imports and font caches, outside the timings
    times: dict[str, list[float]] = {"A": [], "B": []}
    pages: dict[str, Path] = {}
    for i in range(args.pairs):
        for arm in ("A", "B"):
            start = time.process_time()
            if arm == "A":
                with _placeholder_engine():
                    pages[arm] = write_report(root / "sweep", root / f"{arm}{i}", command=["bizsim", "report"])
            else:
                pages[arm] = write_report(root / "sweep", root / f"{arm}{i}", command=["bizsim", "report"])
            times[arm].append(time.process_time() - start)
    a, b = _files(pages["A"]), _files(pages["B"])
    same = a == b
    figures = sum(1 for name in a if name.endswith(".svg"))
    print(f"report of {len(grid('startup', ['default', 'hard'], ['greedy', 'planner', 'random'], args.seeds))} runs,"
          f" {figures} figures (PNG + SVG each), {args.pairs} A/B pairs")
    for arm, label in (("A", "SVG with a placeholder engine (before)"), ("B", "SVG with no engine (now)")):
        print(f"  {arm}: {statistics.median(times[arm]):6.2f} CPU s median  {label}")
    ratios = [x / y for x, y in zip(times["B"], times["A"])]
    print(f"  B/A: {statistics.median(ratios):.3f} (pairs {min(ratios):.3f}-{max(ratios):.3f})")
    print(f"  every file the same bytes: {same}")
    if not same:
        print("  differ:", sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))[:10])
    print(machine_line())
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
