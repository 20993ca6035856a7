"""The ``bizsim`` command line (``bizsim run``, ``shell``, ``list``, ``verify``, ``sweep``, ``report``)."""

from .main import main

__all__ = ["main"]
