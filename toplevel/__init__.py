"""bizsim: discrete-event business simulations on SimPy for long-horizon benchmarks of AI agents.

``import bizsim`` offers the main entry points and imports none of them until one is used, so it stays fast and
loads no optional stack (litellm, pandas, matplotlib, ray): the run API from :mod:`bizsim.runs` (``run_episode``,
``RunSpec``, ``execute``, ``grid``, ``sweep``), the result tables from :mod:`bizsim.analysis` (``load``) and the
registry from :mod:`bizsim.simcore.registry` (``WorldSpec``, ``register``, ``registered``, ``world_names``,
``world_spec``). Each lives in, and is documented with, the layer that owns it.

This file is the package's root (``package-dir`` maps ``bizsim`` to ``toplevel/``); the layers are its
subpackages (``bizsim.simcore`` is ``simcore/``, ...).

>>> import bizsim
>>> bizsim.run_episode("startup", "default", "greedy", 1).summary["final_funds_cents"]
42029521
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizsim.analysis.tables import load
    from bizsim.runs import RunSpec, execute, grid, run_episode, sweep
    from bizsim.simcore.registry import WorldSpec, register, registered, world_names, world_spec

__all__ = [
    "RunSpec", "WorldSpec", "execute", "grid", "load", "register", "registered", "run_episode", "sweep", "world_names",
    "world_spec",
]

#: Each name this package offers -> the module that owns it, imported on first use.
_OWNERS = {
    "RunSpec": "bizsim.runs", "execute": "bizsim.runs", "grid": "bizsim.runs", "run_episode": "bizsim.runs",
    "sweep": "bizsim.runs", "load": "bizsim.analysis.tables", "WorldSpec": "bizsim.simcore.registry",
    "register": "bizsim.simcore.registry", "registered": "bizsim.simcore.registry",
    "world_names": "bizsim.simcore.registry", "world_spec": "bizsim.simcore.registry",
}


def __getattr__(name: str) -> Any:
    owner = _OWNERS.get(name)
    if owner is None:  # a subpackage not yet imported is found by the import system, not here
        raise AttributeError(f"module 'bizsim' has no attribute {name!r}; it offers {', '.join(__all__)} "
                             "(and its layers: bizsim.runs, bizsim.analysis, ...)")
    value = getattr(importlib.import_module(owner), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
