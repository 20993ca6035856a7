"""Import every published run in a checkout of the YC-Bench reference repository (or a fork) and report fidelity.

Walks the whole git history (``git log --all``) for results files
(``yc_bench_result_<config>_<seed>_<model>.json``) and live transcripts
(``*.transcript.jsonl``), takes each distinct file version once (with the
first commit that holds it), adds the runs a checkout's work tree holds
outside git (``results/`` and ``db/``, where the reference's runner writes), replays it through preset ``reference`` with
:func:`bizsim.analysis.ycbench.import_rollout` (nothing is written) and
prints its fidelity report, then one summary line per rollout. Rollouts that
lost turns are listed with the turns they lack; rollouts whose world is not
preset ``reference``'s are replayed anyway (``other_world``) and say why.

    python -m benchmarks.ycbench_published ~/src/yc-bench [--json out.json]

Nothing of the reference is copied into bizsim: the files are read from the checkout's history into a
temporary directory that is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bizsim.analysis.ycbench import RolloutError, format_report, import_rollout

_WANTED = re.compile(r"(^|/)(yc_bench_result_[^/]+\.json|[^/]+\.transcript\.jsonl)$")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def published(repo: str) -> list[tuple[str, str, str, str]]:
    """``(blob, first commit, its date, path)`` of every distinct rollout file version in the history."""
    seen: dict[str, tuple[str, str, str, str]] = {}
    for line in _git(repo, "log", "--all", "--reverse", "--format=%H %cs").splitlines():
        commit, date = line.split()
        for row in _git(repo, "ls-tree", "-r", commit).splitlines():
            meta, path = row.split("\t", 1)
            blob = meta.split()[2]
            if _WANTED.search(path) and blob not in seen:
                seen[blob] = (blob, commit, date, path)
    return sorted(seen.values(), key=lambda r: (r[2], r[3]))


def untracked(repo: str, known: set[str]) -> list[tuple[str, str, str, str]]:
    """Rollouts in a checkout's work tree that no commit holds (the runner writes ``results/`` and ``db/`` there)."""
    root = Path(repo)
    if not (root / ".git").exists():
        return []  # a bare git directory has no work tree
    out = []
    for file in sorted([*root.glob("results/yc_bench_result_*.json"), *root.glob("db/*.transcript.jsonl")]):
        blob = _git(repo, "hash-object", str(file)).strip()
        if blob not in known:
            out.append((blob, "work tree", "-", str(file.relative_to(root))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a git checkout of collinear-ai/yc-bench or a fork (a bare git directory works)")
    parser.add_argument("--json", help="also write every report to this file")
    args = parser.parse_args(argv)
    rows, reports = [], []
    with tempfile.TemporaryDirectory(prefix="ycbench-published-") as tmp:
        history = published(args.repo)
        for blob, commit, date, path in [*history, *untracked(args.repo, {h[0] for h in history})]:
            folder = Path(tmp, blob)
            folder.mkdir()
            file = folder / Path(path).name
            if commit == "work tree":
                file.write_bytes(Path(args.repo, path).read_bytes())
            else:
                file.write_bytes(subprocess.run(["git", "-C", args.repo, "cat-file", "blob", blob], check=True,
                                                capture_output=True).stdout)
            where = f"{path} (work tree)" if commit == "work tree" else f"{path} @ {commit[:7]} ({date})"
            try:
                try:
                    report = import_rollout(file, None, other_world=True).report
                except RolloutError as exc:
                    if "cannot tell which configuration" not in str(exc):
                        raise
                    # The first versions named results without their config: replay it as an unknown world.
                    report = import_rollout(file, None, other_world=True, config="(not recorded)").report
            except RolloutError as exc:
                print(f"{where}\n  not imported: {exc}\n")
                rows.append((where, "not imported", str(exc).split(": ", 1)[-1]))
                reports.append({"where": where, "error": str(exc)})
                continue
            report["where"] = where
            reports.append(report)
            print(where)
            print(format_report(report) + "\n")
            rec, rep = report["recorded"], report["replay"]
            match = {True: "final funds MATCH", False: "final funds differ", None: "final funds not recorded"}
            rows.append((where, match[report["final_funds_match"]],
                         f"recorded {rec['final_funds_cents']} vs replayed {rep['final_funds_cents']}; {report['verdict']}"))
    print("Summary")
    for where, verdict, why in rows:
        print(f"- {where}: {verdict}: {why}")
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
