"""The play page: one self-contained HTML file (inline style and script, no network), drawn from the state."""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

__all__ = ["embed_json", "render"]

# Inside <script> the HTML parser ends the element at "</script" whatever the JavaScript means: every "<", ">" and
# "&" is written as \uXXXX, so no world or player text can close it.
_UNSAFE = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def embed_json(data: Any) -> str:
    """JSON text safe inside ``<script type="application/json">``.

    >>> embed_json({"a": "</script>"})
    '{"a":"\\\\u003c/script\\\\u003e"}'
    """
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).translate(_UNSAFE)


def _asset(name: str) -> str:
    return resources.files("bizsim.surfaces.play").joinpath("assets", name).read_text(encoding="utf-8")


def render(state: dict[str, Any], *, token: str) -> str:
    """The page for ``state`` (:meth:`~bizsim.surfaces.play.PlaySession.state`); its requests carry ``token``."""
    title = f"bizsim play: {state.get('benchmark_id', '')}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Nothing may load from anywhere else; requests go to this server only.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:; connect-src 'self'; form-action 'none'; base-uri 'none'\">"
        f"<title>{html.escape(title)}</title><style>{_asset('play.css')}</style></head>"
        '<body><div id="app"></div>'
        f'<script type="application/json" id="play-state">{embed_json(state)}</script>'
        f'<script type="application/json" id="play-token">{embed_json(token)}</script>'
        f"<script>{_asset('play.js')}</script></body></html>\n"
    )
