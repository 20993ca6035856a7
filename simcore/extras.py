"""How to install an optional part of bizsim: from the checkout, never by name from a package index.

bizsim is installed from its own source tree (``pip install -e .``). Naming the extra by package name instead
would ask the configured index for a distribution called ``bizsim`` (whatever package holds that name there), not
this code; so
every hint names the extra as the checkout installs it.
"""

from __future__ import annotations

__all__ = ["install_hint"]


def install_hint(extra: str) -> str:
    """The command that adds ``extra`` to this install, run in the bizsim checkout.

    >>> install_hint("mcp")
    'pip install -e ".[mcp]" (in the bizsim checkout, the folder holding pyproject.toml)'
    """
    return f'pip install -e ".[{extra}]" (in the bizsim checkout, the folder holding pyproject.toml)'
