"""Ways in from other frameworks: Gymnasium, the text environment, verifiers, MCP, the shell session and Inspect.

Each is a thin adapter over a recorded episode of :mod:`bizsim.runs` and the registry; none holds a world's rules.
Import the adapter you use (``bizsim.surfaces.gym``, ``bizsim.surfaces.mcp_server``...): each pulls in its own
optional dependency only.
"""
