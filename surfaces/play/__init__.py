"""``bizsim play``: a person plays any registered world in the browser, recorded as an ordinary run.

:class:`PlaySession` holds the recorded :class:`~bizsim.runs.live.Episode` (agent ``human``) and what the page shows
of it; :class:`PlayServer` serves the page and its two requests on 127.0.0.1, each carrying the session's token.
"""

from __future__ import annotations

from bizsim.surfaces.play.server import PlayServer
from bizsim.surfaces.play.session import HUMAN, MAX_NOTES_CHARS, MAX_PLAYER_CHARS, MAX_REQUEST_BYTES, PlaySession

__all__ = ["HUMAN", "MAX_NOTES_CHARS", "MAX_PLAYER_CHARS", "MAX_REQUEST_BYTES", "PlaySession", "PlayServer"]
