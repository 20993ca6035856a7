"""Lazy package exports: a package names its public objects and imports each one's module on first use.

So importing a package (a world's, to read its registry entry) loads none of its heavy modules.

>>> getattr_, dir_ = lazy_exports("json", {"dumps": "json.encoder", "JSONDecoder": "json.decoder"})
>>> getattr_("JSONDecoder").__name__
'JSONDecoder'
>>> getattr_("nope")
Traceback (most recent call last):
...
AttributeError: module 'json' has no attribute 'nope'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's module ``__getattr__`` and ``__dir__`` for ``where`` (public name -> module that defines it).

    Modules are absolute (``bizsim.models.vending.world``) or relative to ``package`` (``.world``).
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__
