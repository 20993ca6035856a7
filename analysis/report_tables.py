"""The report's tables as a reader wants them: columns in words, money in dollars, rates in percent, no exponents."""

from __future__ import annotations

import html
from typing import Any

from bizsim.analysis.labels import dollars, ending_words, human_number, is_money, stopped_early, words

__all__ = ["COLUMN_WORDS", "headline_table", "per_seed", "present", "rates_table", "to_html"]

#: Column names the report shows differently (the rest: underscores become spaces).
COLUMN_WORDS = {
    "preset_label": "preset", "n": "seeds", "std": "standard deviation", "ci_low": "95 % CI low",
    "ci_high": "95 % CI high", "metric_value": "metric", "llm_cost_usd": "model cost (dollars)", "cached_share": "share of prompt tokens cached", "run_id": "run id",
    "cost_usd": "model cost (dollars)", "earned_usd": "earned (dollars)", "mean_score": "mean score",
    "failed_tasks": "failed tasks", "primary_share": "share as the primary cause",
    "adversarial_accepted": "adversarial accepted", "acceptance_rate": "acceptance rate",
    "market_share": "market share", "terminal_reason": "ending",
    "sp_per_100_turns": "scratchpad writes per 100 turns (SP/100T)", "inspects_per_accept": "inspects per accept",
    "mean_concurrent_tasks": "mean concurrent tasks", "commands_per_turn": "commands per turn",
    "mean_cost_usd": "model cost per run, mean (dollars)", "sd_cost_usd": "model cost per run, sd (dollars)",
    "mean_tokens": "tokens per run, mean", "mean_runtime_min": "runtime per run, mean (minutes)",
    "sd_runtime_min": "runtime per run, sd (minutes)",
    "min": "lowest seed", "max": "highest seed", "required_trust": "required trust",
    "per_run": "per run", "se": "standard error",
}
_PERCENT_SUFFIXES = ("_rate", "_share", "share")


def _column(name: str) -> str:
    if name.endswith("_se") and name not in COLUMN_WORDS:  # a figure's standard error, beside the figure
        figure = _column(name[:-3])
        short = figure[figure.rindex("(") + 1:-1] if figure.endswith(")") and "(" in figure else figure
        return f"{short}, standard error"
    return COLUMN_WORDS.get(name, name.replace("_", " "))


def _cell(value: Any, *, money: bool, percent: bool, usd: bool) -> str:
    try:
        import pandas as pd

        if value is None or (not isinstance(value, str) and bool(pd.isna(value))):
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if money:
            return dollars(value)
        if usd:
            return f"${value:,.4f}" if abs(value) < 1 else f"${value:,.2f}"
        if percent:
            return f"{100 * float(value):.1f} %"
        return human_number(value)
    if hasattr(value, "item"):  # numpy scalars
        return _cell(value.item(), money=money, percent=percent, usd=usd)
    return str(value)


#: The columns of a summary row that hold its figure's values (in dollars when the figure is money).
VALUE_COLUMNS = ("mean", "std", "se", "ci_low", "ci_high", "metric_value", "value")


def present(df: Any, *, money_columns: tuple[str, ...] = (), money_rows: Any = None,
            percent_columns: tuple[str, ...] = ()) -> Any:
    """A copy of ``df`` with every cell as text: money columns (``*_cents``, ``money_columns``) in dollars, and the
    value columns of ``money_rows`` (a boolean mask) too; rates and shares in percent; columns named in words.

    ``attrs["numeric"]`` lists the columns that held numbers (shown right-aligned)."""
    out = df.copy()
    numeric = []
    for col in df.columns:
        name = str(col)
        money = name.endswith("_cents") or name in money_columns
        usd = name.endswith("_usd")
        percent = name in percent_columns or name.endswith(_PERCENT_SUFFIXES)
        values = []
        numbers = 0
        for i, v in enumerate(df[col].tolist()):
            row_money = money_rows is not None and bool(money_rows[i]) and name in VALUE_COLUMNS
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                numbers += 1
            elif isinstance(v, str) and name in ("terminal_reason", "status"):
                v = v.replace("_", " ")
            if name == "seed" and isinstance(v, int) and not isinstance(v, bool):
                values.append(str(v))  # an identifier, not a quantity: no thousands separator
                continue
            values.append(_cell(v, money=money or row_money, percent=percent and not row_money, usd=usd))
        out[col] = values
        if numbers:
            numeric.append(list(df.columns).index(col))
    out.columns = [_column(str(c)).replace(" cents", "") for c in df.columns]
    out.attrs["numeric"] = numeric
    return out


def headline_table(runs: Any, groups: list[str], name: Any = words) -> Any:
    """The report's first table, one row a group: its metric in words (``name`` names it), runs, the mean over
    seeds, its standard error and its 95 % percentile bootstrap interval (within what the seeds did; dollars when
    money), and the group's outcome: how many runs ended early (bankrupt, collapsed, or stopped by a cap, a guard or
    the model's API) and how many failed to run."""
    import pandas as pd

    from bizsim.analysis.intervals import bootstrap_ci, standard_error

    keys = [c for c in groups if c in runs.columns]
    rows, numbers = [], []
    for key, g in runs.groupby([*keys, "metric"], sort=True, dropna=False):
        values = dict(zip([*keys, "metric"], key if isinstance(key, tuple) else (key,)))
        metric = values.pop("metric")
        ok = g[g["status"] == "ok"] if "status" in g.columns else g
        seeds = pd.to_numeric(ok["metric_value"], errors="coerce").tolist()
        mean, low, high, n = bootstrap_ci(seeds)
        money = is_money(metric)

        def show(v: float) -> str:
            return "" if v != v else (dollars(v) if money else human_number(v))

        early = sum(1 for r, b, c in zip(*(_column_of(ok, n) for n in ("terminal_reason", "bankrupt", "collapsed")))
                    if stopped_early(r) or _true(b) or _true(c))
        numbers.append({**values, "metric": metric, "runs": len(g), "n": n, "mean": mean,
                        "se": standard_error(seeds), "ci_low": low, "ci_high": high, "ended_early": early,
                        "failed": len(g) - len(ok)})
        rows.append({
            # pd.isna: a string column of run directories' tables holds pd.NA, whose truth is an error
            **{k: ("" if v is None or bool(pd.isna(v)) else v) for k, v in values.items()},
            "metric": name(metric) if isinstance(metric, str) else "", "runs": len(g), "mean": show(mean),
            "standard error": show(standard_error(seeds)),
            "95 % interval": f"{show(low)} to {show(high)}" if low == low else "(one seed)" if n == 1 else "",
            "ended early": f"{early} of {len(ok)} ({100 * early / len(ok):.0f} %)" if len(ok) else "",
            "failed to run": len(g) - len(ok),
        })
    table = pd.DataFrame(rows)
    shown = present(table) if len(table) else table
    shown.attrs["numeric"] = [list(table.columns).index(c) for c in ("runs", "mean", "standard error",
                                                                      "95 % interval", "failed to run")
                              if c in table.columns]
    shown.attrs["data"] = pd.DataFrame(numbers)  # the numbers, in the metric's unit (cents for money)
    return shown


def _true(value: Any) -> bool:
    """A flag cell that is set (missing cells, NaN and pandas' NA are not)."""
    import pandas as pd

    return value is not None and not bool(pd.isna(value)) and bool(value)


def _column_of(df: Any, name: str) -> list:
    """A column's values as a list (``None`` for each row when the column is missing)."""
    return df[name].tolist() if name in df.columns else [None] * len(df)


def rates_table(rates: Any) -> Any:
    """The rates table with each rate and its interval in one cell: ``33.3 % (6.1 to 79.2 %)``."""
    keys = list(rates.columns[:list(rates.columns).index("runs")]) if "runs" in rates.columns else []
    out = rates[[*keys, *(c for c in ("runs", "finished") if c in rates.columns)]].copy()
    # "errors" counts runs that failed to run; a run stopped by a cap is no error, and the table says so.
    for what, label in (("bankruptcy", "bankruptcies"), ("collapse", "collapses"), ("error", "errors")):
        rate = f"{what}_rate"
        if rate not in rates.columns:
            continue
        cells = []
        for _, r in rates.iterrows():
            if float(r[rate]) != float(r[rate]):  # NaN: no run finished, so there is no rate
                cells.append(f"{int(r[label])} (no finished runs)")
                continue
            text = f"{int(r[label])} ({100 * float(r[rate]):.1f} %"
            low, high = r.get(f"{what}_low"), r.get(f"{what}_high")
            if low is not None and high is not None and low == low and high == high:
                text += f"; 95 % CI {100 * float(low):.1f} to {100 * float(high):.1f} %"
            cells.append(text + ")")
        out["failed to run" if label == "errors" else label] = cells
    return present(out)


def per_seed(runs: Any, limit: int = 500, extra: tuple[str, ...] | list[str] = (), name: Any = words) -> tuple[Any, int]:
    """One row a run: world, preset, agent, the ``extra`` spec fields (the agent options that vary), seed, metric (in
    words by ``name``, dollars when money), ending; at most ``limit``."""
    keys = [c for c in ("world", "preset_label", "agent", *extra) if c in runs.columns]
    cols = [*keys, *(c for c in ("seed", "metric", "metric_value", "terminal_reason", "turns", "llm_cost_usd", "run_id")
                     if c in runs.columns)]
    detail = ["terminal_detail"] if "terminal_detail" in runs.columns else []
    table = runs.sort_values([*keys, *(["seed"] if "seed" in runs.columns else [])])[cols + detail]
    table = table.head(limit).reset_index(drop=True)
    details = table.pop("terminal_detail").tolist() if detail else [None] * len(table)
    money = table["metric"].astype(str).map(is_money).tolist() if "metric" in table.columns else None
    if "metric" in table.columns:
        table["metric"] = table["metric"].map(lambda m: name(m) if isinstance(m, str) else "")
    if "llm_cost_usd" in table.columns and table["llm_cost_usd"].isna().all():
        table = table.drop(columns=["llm_cost_usd"])
    if "terminal_reason" in table.columns:  # in words: "stopped by its turn cap (max_turns), as asked", not "error"
        table["terminal_reason"] = [ending_words(r, d if isinstance(d, str) else None) if isinstance(r, str) else ""
                                    for r, d in zip(table["terminal_reason"], details)]
    # "ending", not terminal_reason: its words keep their underscores ("(max_turns)")
    shown = present(table.rename(columns={"metric_value": "value", "terminal_reason": "ending"}), money_rows=money)
    return shown, len(runs)


def to_html(df: Any) -> str:
    """A table of text cells, in a box that scrolls sideways when it is wider than the page (never cut off)."""
    right = set(getattr(df, "attrs", {}).get("numeric", ()))
    cls = [' class="n"' if i in right else "" for i in range(len(df.columns))]
    head = "".join(f"<th{cls[i]}>{html.escape(str(c))}</th>" for i, c in enumerate(df.columns))
    body = "".join("<tr>" + "".join(f"<td{cls[i]}>{html.escape(str(v))}</td>" for i, v in enumerate(row)) + "</tr>"
                   for row in df.itertuples(index=False))
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
