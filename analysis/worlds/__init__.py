"""Worlds' own analysis hooks, one subpackage a world; a world's registration names its hooks object."""
