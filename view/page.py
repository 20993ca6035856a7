"""The viewer's page: one self-contained HTML file (inline style and script, the data embedded as JSON)."""

from __future__ import annotations

import html
import json
import math
from importlib import resources
from typing import Any

from bizsim.analysis.labels import FAILED_COLOR, KIND_COLORS, KIND_FALLBACK_COLORS, KIND_WORDS

__all__ = ["embed_json", "render"]

# Inside <script> the HTML parser ends the element at "</script" and treats "<!--" specially, whatever the
# JavaScript means; escaping every "<", ">" and "&" as \uXXXX leaves no way for agent text to close the element.
_UNSAFE = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def embed_json(data: Any) -> str:
    """JSON text safe to place inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` in it.

    >>> embed_json({"a": "</script><b>"})
    '{"a":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # NaN or infinity somewhere: JSON has no such numbers
        text = json.dumps(_finite(data), ensure_ascii=False, separators=(",", ":"), default=str)
    return text.translate(_UNSAFE)


_KINDS = {"colors": KIND_COLORS, "fallback": list(KIND_FALLBACK_COLORS), "failed": FAILED_COLOR, "words": KIND_WORDS}


def _asset(name: str) -> str:
    return resources.files("bizsim.view").joinpath("assets", name).read_text(encoding="utf-8")


def render(data: dict, *, title: str, follow: str | None = None, version: str = "") -> str:
    """The page for ``data`` (a run, two runs, or a sweep); ``follow`` is the URL it polls for fresh data."""
    attrs = ""
    if follow:
        attrs = f' data-follow="{html.escape(follow)}" data-version="{html.escape(version)}"'
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No network: the page may load nothing from anywhere (a mail attachment or file stays inert).
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:; connect-src 'self'\">"
        f"<title>{html.escape(title)}</title><style>{_asset('view.css')}</style></head>"
        f'<body{attrs}><div id="app"></div>'
        f'<script type="application/json" id="bizsim-data">{embed_json(data)}</script>'
        # The colour of each kind of event, from the table the report's figures use too (labels.KIND_COLORS).
        f'<script type="application/json" id="bizsim-kinds">{embed_json(_KINDS)}</script>'
        f"<script>{_asset('view.js')}</script></body></html>\n"
    )
