"""``bizsim sweep`` and ``bizsim report``: the parsers and what they run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bizsim.simcore.errors import BizSimError
from bizsim.simcore.extras import install_hint

from .options import bounded_int

__all__ = ["add_parsers", "group_table", "run_report", "run_sweep"]

_PRODUCT_FLAGS = ("world", "preset", "agent", "seeds")


def add_parsers(sub: Any) -> None:
    """Add the ``sweep`` and ``report`` subcommands to the ``bizsim`` parser."""
    sw = sub.add_parser(
        "sweep", help="run a grid of episodes (worlds x presets x agents x seeds)",
        description="Run every combination of --world, --preset, --agent and --seeds, or the runs of a GRID.toml "
        "file. Results stream to OUT/results.jsonl as runs finish; running the same sweep again runs only "
        "what is missing.",
    )
    sw.add_argument("grid", nargs="?", metavar="GRID.toml", help="a grid file ([grid] products, [[runs]], [sweep])")
    # "extend": a repeated flag adds to the list (--agent greedy --agent planner is two agents), never replaces it.
    sw.add_argument("--world", nargs="+", action="extend", help="world(s), e.g. startup")
    sw.add_argument("--preset", nargs="+", action="extend",
                    help="preset name(s) or .toml config file(s) (default: default)")
    sw.add_argument("--agent", nargs="+", action="extend",
                    help="agent name(s) or package.module:function (default: each world's default agent)")
    sw.add_argument("--seeds", help="seeds, e.g. 1-20 or 1,3,5-7 (default: 1)")
    sw.add_argument("--seat", action="append", metavar="AGENT[:KEY=VALUE,...]",
                    help="an arena's seat (repeat once a seat; with one arena --world): the roster is turned one seat "
                    "a seed, so every agent sits in every seat (see docs/arena.md)")
    sw.add_argument(
        "--agent-opt", action="append", default=[], metavar="KEY=VALUE", help="option for every agent (repeatable)"
    )
    sw.add_argument("--backend", choices=("serial", "process", "ray"), help="where runs execute (default: process)")
    sw.add_argument("--workers", type=bounded_int(), metavar="N",
                    help="worker processes or local Ray CPUs for the runs that need a CPU (default: all CPUs)")
    sw.add_argument("--concurrency", type=bounded_int(1), metavar="N",
                    help="model requests in flight per endpoint: the runs of an agent that waits on a model (llm) run "
                    "at once on threads of the sweep's process, whatever --workers (default: 8)")
    sw.add_argument("--ray-address", metavar="ADDR", help="an existing Ray cluster (with --backend ray)")
    sw.add_argument("--out", required=True, metavar="DIR", help="the sweep directory (reuse it to resume)")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar")
    sw.add_argument("--no-events", action="store_true", help="leave commands and world events out of the events table")
    sw.add_argument("--run-dirs", action="store_true", help="also write every run's directory under DIR/runs/")
    sw.add_argument("--retry-failed", action="store_true", help="run again the runs recorded as failed")
    sw.add_argument("--no-preflight", action="store_true", help="skip the one-call check of every LLM endpoint")
    sw.add_argument("--report", action="store_true", help="write DIR/report/report.html when done")
    sw.add_argument("--estimate", action="store_true",
                    help="print the expected calls, tokens and dollars of the LLM runs still to do, and run nothing")
    sw.add_argument("--max-cost-usd", type=float, metavar="X",
                    help="cap the whole sweep's model dollars: no model call and no run starts once the sweep has "
                    "paid X (the calls in flight finish: at most --concurrency per endpoint over); the runs stopped "
                    "stay to do: run the same command with a higher cap to resume them")

    rp = sub.add_parser("report", help="write a self-contained HTML report of a sweep directory",
                        description="Write REPORT/report.html (tables, figures embedded) and REPORT/figures/*.png.")
    rp.add_argument("dir", metavar="DIR", help="a sweep directory, a run directory, or a folder of run directories")
    rp.add_argument("--out", metavar="REPORT", help="where to write (default: DIR/report)")
    rp.add_argument("--title", help="the report's title")
    rp.add_argument("--paper", action="append", metavar="NAME",
                    help="only this paper's analyses, laid out as the paper does, after the summary: yc-bench (startup "
                    "runs) or ecogym (vending, freelance, operation runs); repeat for both")
    rp.add_argument("--published", action="store_true",
                    help="add the startup runs' funds beside the published YC-Bench results (the project page's "
                    "models: monthly mean funds, final funds, bankruptcies)")
    rp.add_argument("--judge-model", metavar="PROVIDER/MODEL",
                    help="also classify each startup run's final scratchpad (the paper's Figure 4(b)) by this model, "
                    "beside the rule-based class, with their agreement; answers are cached in REPORT, so a second "
                    "report costs nothing")
    rp.add_argument("--judge-api-base", metavar="URL", help="the judge model's OpenAI-compatible endpoint")
    rp.add_argument("--judge-api-key-env", metavar="VAR",
                    help="the environment variable holding the judge's API key (default: the provider's usual one)")
    sw.set_defaults(handler=run_sweep)
    rp.set_defaults(handler=run_report)


def _needs(extra: str, exc: ImportError) -> BizSimError:

    return BizSimError(f"this needs {exc.name or 'an optional package'}: {install_hint(extra)}")


def run_sweep(args: argparse.Namespace) -> int:
    """``bizsim sweep``: exit 0 when every run of this invocation finished, 1 when some failed."""
    from bizsim.runs.concurrent import DEFAULT_CONCURRENCY
    from bizsim.runs.gridfile import load_grid
    from bizsim.runs.runspec import grid
    from bizsim.runs.sweep import sweep

    from .options import agent_options

    product = [f for f in (*_PRODUCT_FLAGS, "seat") if getattr(args, f) is not None] + (["agent_opt"] if args.agent_opt else [])
    settings: dict[str, Any] = {}
    if args.grid is not None:
        if product:
            raise BizSimError(f"give a grid file or --{product[0].replace('_', '-')} ..., not both")
        specs, settings = load_grid(args.grid)
    else:
        if args.world is None:
            raise BizSimError(
                "bizsim sweep needs --world W [--preset P ...] [--agent A ...] [--seeds 1-20], or a GRID.toml"
            )
        options = agent_options(args.agent_opt)
        seeds = args.seeds if args.seeds is not None else "1"
        if args.seat:
            from bizsim.runs.roster import arena_grid

            if len(args.world) != 1 or args.agent or args.agent_opt:
                raise BizSimError("--seat gives one arena's roster: name one --world (an arena) and put each seat's "
                                  "agent and options in its --seat, not in --agent or --agent-opt")
            specs = arena_grid(args.world[0], [args.seat], seeds, args.preset or ["default"])
        elif args.agent:
            agents = [{"name": a, "options": options} for a in args.agent]
            specs = grid(args.world, args.preset or ["default"], agents, seeds)
        else:  # each world with its own default agent
            from bizsim.simcore.registry import world_spec

            specs = [s for w in args.world for s in grid(
                w, args.preset or ["default"], [{"name": world_spec(w).default_agent, "options": options}], seeds)]
    if args.estimate:
        return _estimate(specs, args.out)
    backend = args.backend or settings.get("backend", "process")
    workers = args.workers if args.workers is not None else settings.get("workers")
    if workers is not None and workers < 1:
        raise BizSimError(f"--workers(={workers}) must be >= 1")
    concurrency = args.concurrency if args.concurrency is not None else settings.get("concurrency", DEFAULT_CONCURRENCY)
    if concurrency < 1:
        raise BizSimError(f"--concurrency(={concurrency}) must be >= 1")
    ray_address = args.ray_address or settings.get("ray_address")
    if ray_address and backend != "ray":
        raise BizSimError("--ray-address goes with --backend ray")
    retry_failed = args.retry_failed or settings.get("retry_failed", False)
    preflight = not args.no_preflight and settings.get("preflight", True)
    try:
        summary = sweep(
            specs, args.out, backend=backend, workers=workers, ray_address=ray_address,
            progress=not args.no_progress and sys.stderr.isatty(),
            events=not args.no_events and settings.get("events", True),
            run_dirs=args.run_dirs or settings.get("run_dirs", False),
            retry_failed=retry_failed, preflight=preflight,
            max_cost_usd=args.max_cost_usd, concurrency=concurrency,
        )
    except ImportError as exc:
        raise _needs("ray" if backend == "ray" else "data", exc) from None
    summary = _write_tables(summary)
    print(summary)
    print(group_table(summary.out))
    if summary.compacted and any(getattr(s, "roster", None) for s in specs):
        print(arena_table(summary.out))
    if not summary.compacted:
        print("bizsim: the Parquet tables (runs, series, events, llm_calls) were not written: they need pandas and "
              f"pyarrow ({install_hint('data')}); results.jsonl holds every run.", file=sys.stderr)
    if summary.failed:
        where = f"{summary.out}/runs.parquet (column error)" if summary.compacted else f"{summary.out}/results.jsonl"
        print(f"bizsim: {summary.failed} run(s) failed; their errors are in {where}. The same command with "
              "--retry-failed runs them again (LLM runs resume from their run directories).", file=sys.stderr)
    if args.report:
        print(f"report: {_report(str(summary.out), None, None)}")
    return 1 if summary.failed else 0


def _write_tables(summary: Any) -> Any:
    """Compact the sweep's records to its Parquet tables when pandas and pyarrow are installed (a sweep writes
    records only; the tables are the analysis layer's); the summary then says they were written."""
    import importlib.util

    import attrs

    if importlib.util.find_spec("pyarrow") is None or importlib.util.find_spec("pandas") is None:
        return summary
    from bizsim.analysis.tables import compact

    compact(summary.out)
    return attrs.evolve(summary, compacted=True)


def _estimate(specs: Any, out: str) -> int:
    """Print the estimate of the LLM runs not yet finished in ``out``."""
    from bizsim.runs._results_file import finished_ids
    from bizsim.runs.llm_estimate import estimate_runs, format_estimates
    from bizsim.runs.rundir import SweepDir

    results = SweepDir(out).results
    done = finished_ids(results, include_errors=False) if results.exists() else set()
    todo = [s for s in specs if s.run_id not in done]
    for s in todo:
        s.check()
    estimates = estimate_runs(todo)
    if not estimates:
        print(f"no LLM run left to do ({len(specs) - len(todo)} finished in {out})")
        return 0
    print(format_estimates(estimates))
    return 0


def arena_table(out: Any) -> str:
    """An arena sweep's rating for the terminal: each agent's Bradley-Terry rating across the sweep's arenas, its
    95 % bootstrap interval (seed 0) and mean place (``bizsim report`` has the standings and pairwise too)."""
    from bizsim.analysis import load, rating, standings
    from bizsim.analysis.arena import seats_of_runs

    table = seats_of_runs(load(out).runs)
    if not len(table):
        return "no finished arena to rate"
    rated = rating(table, bootstrap=1000, seed=0)
    places = standings(table).groupby("agent")["rank"].mean()
    width = max(5, *(len(a) for a in rated["agent"]))
    lines = [f"{'agent':<{width}}  rating  95 % interval  mean place  arenas"]
    for r in rated.itertuples():
        lines.append(f"{r.agent:<{width}}  {r.rating:6.0f}  {r.rating_low:5.0f} to {r.rating_high:<5.0f}  "
                     f"{places[r.agent]:10.2f}  {r.arenas:6d}")
    return "\n".join(lines)


def group_table(out: Any, limit: int = 40) -> str:
    """The sweep's outcome per group, as text: each group's runs, the mean of its metric with the 95 % interval
    over seeds, and how many ended early (bankrupt, collapsed, or stopped by a cap, a guard or their API). A group is
    a world, preset, agent, model and every agent option that varies, and the runs stopped by one cause apart from
    the runs that went on to the world's end; the viewer's sweep page shows the same groups."""
    from pathlib import Path

    from bizsim.analysis.labels import dollars, human_number
    from bizsim.view.sweep_data import sweep_data

    data = sweep_data(Path(out))
    if not data["groups"]:  # e.g. a results file past the viewer's size limit: say why there is no table
        return "; ".join(data["problems"]) or "no runs to summarise"
    opts = data["option_columns"]
    rows = [["group", "runs", "metric", "mean", "95 % interval", "ended early"]]

    def fmt(v: Any, money: bool) -> str:
        return "" if v is None else (dollars(v) if money else human_number(v))

    for g in data["groups"][:limit]:
        name = " ".join(str(v) for v in (g["world"], g["preset"], g["agent"], g["model"]) if v)
        name += "".join(f" {k}={g['options'][k]}" for k in opts if g["options"].get(k) is not None)
        name += f" ({g['stopped']})" if g.get("stopped") else ""  # its own group: figures where the runs stopped
        money = g["money"] and str(g["metric"]).endswith("_cents")
        interval = "" if g["ci_low"] is None else f"{fmt(g['ci_low'], money)} to {fmt(g['ci_high'], money)}"
        rows.append([name, str(g["runs"]), g["metric_label"] or "", fmt(g["mean"], money), interval,
                     f"{g['ended_early']} of {g['runs']}"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {1, 3, 4, 5}
    lines = ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in rows]
    more = len(data["groups"]) - limit
    return "\n".join(lines + ([f"... and {more} more groups (bizsim report or bizsim view shows them all)"]
                              if more > 0 else []))


def _report(path: str, out: str | None, title: str | None, papers: list[str] | None = None,
            published: bool = False, judge: Any = None) -> Any:
    from pathlib import Path

    from bizsim.analysis.report import write_report

    if not Path(path).exists():
        raise BizSimError(f"{path!r} does not exist; give a sweep directory (bizsim sweep --out DIR)")
    try:
        return write_report(path, out, title=title, papers=papers, published=published, judge=judge)
    except ImportError as exc:
        raise _needs("data,plot" + (",llm" if judge is not None else ""), exc) from None


def _judge(args: argparse.Namespace) -> Any:
    """The report's LLM judge from ``--judge-*``, or None."""
    model = getattr(args, "judge_model", None)
    if model is None:
        if getattr(args, "judge_api_base", None) or getattr(args, "judge_api_key_env", None):
            raise BizSimError("--judge-api-base and --judge-api-key-env say where the judge is: give "
                              "--judge-model PROVIDER/MODEL too")
        return None
    if "/" not in model.strip("/"):
        raise BizSimError(f"--judge-model(={model!r}) must be PROVIDER/MODEL, e.g. openai/gpt-4o-mini")
    from bizsim.analysis.worlds.startup.judge import PolicyJudge

    return PolicyJudge(model, api_base=args.judge_api_base, api_key_env=args.judge_api_key_env)


def run_report(args: argparse.Namespace) -> int:
    """``bizsim report DIR``: write the HTML report and print where it is."""
    target = _report(args.dir, args.out, args.title, args.paper, args.published, _judge(args))
    print(target)
    return 0
