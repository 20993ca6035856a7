"""cli/main.py only assembles the subcommands; each subcommand lives in a module of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from bizsim.cli.main import _build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_main_only_registers_subcommands():
    """main.py defines the parser's assembly and the entry point, nothing a subcommand does."""
    tree = ast.parse((ROOT / "cli" / "main.py").read_text(encoding="utf-8"))
    assert ["_build_parser", "main"] == [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]


def test_every_subcommand_is_handled_by_its_own_module():
    """Each subcommand names a handler outside main.py (bizsim.cli.run, .verify, .fork...)."""
    sub = next(a for a in _build_parser()._actions if a.dest == "cmd")
    handlers = {name: p.get_default("handler") for name, p in sub.choices.items()}
    assert [] == [name for name, h in handlers.items() if h is None or h.__module__ == "bizsim.cli.main"]
    assert {"run", "shell", "play", "list", "verify", "fork", "sweep", "report", "mcp", "serve", "do", "shim",
            "openenv", "import", "export", "view"} == set(handlers)
