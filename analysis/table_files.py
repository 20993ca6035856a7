"""A table out to a paper: CSV for re-analysis and a LaTeX ``tabular`` in the booktabs style.

The LaTeX is a fragment to ``\\input`` inside a ``table`` environment (its caption is a comment above it, for the
author to place): ``\\toprule``, the header, ``\\midrule``, the rows, ``\\bottomrule``; numbers right-aligned;
every LaTeX special character of a cell escaped, so an agent's name or a scratchpad cannot break the document.
It needs ``\\usepackage{booktabs}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizsim.simcore.files import write_text_atomic

__all__ = ["latex_escape", "to_latex", "write_table"]

_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
}


def latex_escape(text: Any) -> str:
    """``text`` as LaTeX that prints it: ``& % $ # _ { } ~ ^ \\`` (and ``< >``) escaped, line breaks as spaces.

    >>> print(latex_escape("50% of $1,000 & a_b {x} ~^\\\\"))
    50\\% of \\$1,000 \\& a\\_b \\{x\\} \\textasciitilde{}\\textasciicircum{}\\textbackslash{}
    """
    out = "".join(_SPECIALS.get(ch, ch) for ch in str(text))
    return " ".join(out.split())


def to_latex(table: Any, caption: str = "", numeric: Any = None) -> str:
    """A booktabs ``tabular`` of ``table`` (a DataFrame; cells printed as they are: present it first).

    Args:
        caption: written as a comment above the tabular.
        numeric: the indexes of the columns to right-align (default: ``table.attrs["numeric"]``, else none).
    """
    right = set(numeric if numeric is not None else getattr(table, "attrs", {}).get("numeric", ()))
    align = "".join("r" if i in right else "l" for i in range(len(table.columns))) or "l"
    lines = [f"% {latex_escape(caption)}"] if caption else []
    lines += ["% needs \\usepackage{booktabs}", f"\\begin{{tabular}}{{{align}}}", "\\toprule",
              " & ".join(latex_escape(c) for c in table.columns) + " \\\\", "\\midrule"]
    for row in table.itertuples(index=False, name=None):
        lines.append(" & ".join(latex_escape(_cell(v)) for v in row) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    try:
        if value != value:  # NaN
            return ""
    except (TypeError, ValueError):
        pass
    return str(value)


def write_table(folder: Path, name: str, data: Any, shown: Any, caption: str = "") -> tuple[Path, Path]:
    """Write ``folder/name.csv`` (``data``: the numbers, money in its unit) and ``folder/name.tex`` (``shown``: the
    table as the report shows it). Returns both paths."""
    csv = folder / f"{name}.csv"
    tex = folder / f"{name}.tex"
    write_text_atomic(csv, data.to_csv(index=False, lineterminator="\n"))
    write_text_atomic(tex, to_latex(shown, caption))
    return csv, tex
