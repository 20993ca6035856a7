"""The parser every ``bizsim`` subcommand is added to: one clear line and exit 2 for a bad command line."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

__all__ = ["Parser", "bizsim_version"]


class _Once(argparse.Action):
    """A single-valued option: given twice it is refused, never silently replaced by the second value."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault("_given", set())
        if option_string is not None and self.dest in given:
            parser.error(f"{option_string} was given twice; give it once (options that take several values "
                         "take them after one flag, e.g. --agent greedy planner)")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)  # every plain option of this parser and its groups
        self.register("action", "store", _Once)

    def error(self, message: str) -> NoReturn:  # exit 2 with one clear line
        self.exit(2, f"bizsim: error: {message} (see `{self.prog} --help`)\n")


def bizsim_version() -> str:
    """The installed bizsim's version (``unknown`` in a source tree never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bizsim")
    except PackageNotFoundError:  # a source tree that was never installed
        return "unknown"
