"""Differential checks of the reference presets against the reference implementations (see README.md)."""
