"""The command-line reference, generated from the ``bizsim`` parser itself (the docs site's "Command line" page).

Generating it from the parser means an option cannot be added, renamed or dropped without the reference
following: ``docs/hooks/cli_reference.py`` puts this text into ``docs/cli.md`` at build time.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

__all__ = ["reference_markdown"]


def reference_markdown() -> str:
    """The reference for every ``bizsim`` subcommand, as Markdown: usage, description and a table of options.

    >>> "## bizsim run" in reference_markdown()
    True
    """
    from .main import _build_parser

    parser = _build_parser()
    parts = [_section(parser, "bizsim", None, level=2)]
    for name, sub, summary in _subcommands(parser):
        parts.append(_section(sub, f"bizsim {name}", summary, level=2))
    return "\n".join(parts)


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser, str | None]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, sub, helps.get(name)


def _section(parser: argparse.ArgumentParser, title: str, summary: str | None, level: int) -> str:
    lines = [f"{'#' * level} {title}", ""]
    if summary:
        lines += [summary[0].upper() + summary[1:] + ".", ""]
    usage = parser.format_usage().strip().removeprefix("usage: ")
    lines += ["```text", _wrap_usage(usage), "```", ""]
    if parser.description and parser.description != summary:
        lines += [parser.description, ""]
    for group in parser._action_groups:
        rows = [r for a in group._group_actions if not isinstance(a, argparse._SubParsersAction)
                if (r := _row(a)) is not None]
        if not rows:
            continue
        lines += [f"**{_group_title(group.title)}**", "", "| argument | meaning | default |", "|---|---|---|", *rows, ""]
    return "\n".join(lines)


def _group_title(title: str | None) -> str:
    return {"positional arguments": "Arguments", "options": "Options"}.get(title or "", title or "Options")


def _wrap_usage(usage: str) -> str:
    return " ".join(usage.split())


def _row(action: argparse.Action) -> str | None:
    if action.help == argparse.SUPPRESS:
        return None
    if action.option_strings:
        name = ", ".join(action.option_strings)
        if action.nargs != 0:
            metavar = action.metavar or action.dest.upper()
            name += f" {metavar}" + (f" [{metavar} ...]" if action.nargs == "+" else "")
    else:
        name = str(action.metavar or action.dest)
    meaning = _escape(action.help or "")
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        meaning += f" (one of: {', '.join(f'`{c}`' for c in action.choices)})"
    if isinstance(action, (argparse._AppendAction, argparse._ExtendAction)) and "repeat" not in meaning:
        meaning += " (repeatable: each use adds)"
    if action.required and action.option_strings:
        meaning += " (required)"
    default = action.default
    shown = "" if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0 else f"`{default}`"
    return f"| `{name}` | {meaning} | {shown} |"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")
