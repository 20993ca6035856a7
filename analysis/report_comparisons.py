"""The report's table of paired comparisons: every pair of agents (or models, or option values) run on the same
seeds, compared seed by seed on the headline number (:func:`bizsim.analysis.comparisons.paired_comparisons`)."""

from __future__ import annotations

from typing import Any

from bizsim.analysis.labels import dollars, human_number, is_money

__all__ = ["comparison_caption", "comparison_table"]


def comparison_table(runs: Any, groups: list[str]) -> Any:
    """The comparisons of ``runs`` (headline readings: :func:`bizsim.analysis.headline.with_headline`) between the
    arms ``groups`` names besides world and preset, as the report shows them; ``attrs["data"]`` holds the numbers
    (money in cents) and ``attrs["comparisons"]`` their count."""
    import pandas as pd

    from bizsim.analysis.comparisons import paired_comparisons

    arms = [c for c in groups if c not in ("world", "preset_label")]
    data = paired_comparisons(runs, "metric_value", arms)
    metric = (runs.dropna(subset=["metric"]).drop_duplicates("world").set_index("world")["metric"].to_dict()
              if len(runs) and "metric" in runs.columns else {})
    rows = []
    for r in data.itertuples(index=False):
        money = is_money(metric.get(getattr(r, "world", None), ""))

        def show(v: float, money: bool = money) -> str:
            return "" if v != v else (dollars(v) if money else human_number(v))

        rows.append({
            **({"world": r.world} if "world" in data.columns else {}),
            **({"preset": r.preset_label} if "preset_label" in data.columns else {}),
            "a": r.a, "b": r.b, "seeds paired": int(r.pairs), "difference (a - b)": show(r.difference),
            "95 % interval": f"{show(r.ci_low)} to {show(r.ci_high)}" if r.ci_low == r.ci_low else "(one seed)",
            "p (sign-flip)": _p(r.p_value), "p (Holm)": _p(r.p_holm), "standard error": show(r.se),
            "mean of a": show(r.mean_a), "mean of b": show(r.mean_b),
        })
    shown = pd.DataFrame(rows)
    # One world, or one preset, needs no column to say so (the headline table above names them the same way).
    shown = shown.drop(columns=[c for c in ("world", "preset") if c in shown.columns and shown[c].nunique() < 2])
    shown.attrs.update(presented=True, data=data, comparisons=int(data["comparisons"].max()) if len(data) else 0)
    first = list(shown.columns).index("seeds paired") if len(shown) else 0
    shown.attrs["numeric"] = list(range(first, len(shown.columns))) if len(shown) else []
    return shown


def _p(p: float) -> str:
    return "" if p != p else ("< 0.0001" if p < 1e-4 else f"{p:.4g}")


def comparison_caption(count: int) -> tuple[str, str]:
    """The comparisons table's title (with the number of comparisons) and the note that says the method."""
    from bizsim.analysis.comparisons import TEST_WORDS

    title = (f"Paired comparisons by seed of the headline number: {count} comparison{'s' if count != 1 else ''} "
             "(difference, bootstrap interval, sign-flip test, Holm)")
    method = (f"Each pair of arms run on the same seeds of one world and preset: the mean of the seed-by-seed "
              f"differences a - b, its standard error and 95 % percentile bootstrap interval; {TEST_WORDS} "
              f"(m = {count}). The test cannot give a p-value below 2 / 2^n over n paired seeds (0.25 with 3 seeds, "
              "0.0625 with 5, 0.03125 with 6): with few seeds, read the interval and the standard error.")
    return title, method
