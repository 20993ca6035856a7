"""Package discovery: every package under the code folders, installed under the ``bizsim`` import root.

The metadata lives in pyproject.toml; only the package list is computed here, so a new world (a new folder
under models/ and agents/) needs no edit of a package list. ``bizsim`` itself is ``toplevel/`` (one
``__init__.py`` offering the main entry points lazily); it is not named ``bizsim/`` so that a checkout's own
folder never shadows the installed package when Python runs in the checkout.
"""

from setuptools import find_packages, setup

ROOTS = ("simcore", "models", "agents", "runs", "surfaces", "analysis", "view", "cli")

setup(
    package_dir={"bizsim": "toplevel", **{f"bizsim.{root}": root for root in ROOTS}},
    packages=["bizsim", *(f"bizsim.{p}" for p in find_packages(include=[*ROOTS, *(f"{r}.*" for r in ROOTS)]))],
    # verifiers 0.4 loads a taskset by a top-level module name: the alias of bizsim.surfaces.verifiers_taskset.
    py_modules=["bizsim_verifiers"],
)
