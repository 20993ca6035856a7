"""A world's named presets: lookup, TOML load and dump, and resolution."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Generic, TypeVar

from .config import config_from_dict, config_to_dict, deep_merge, dump_toml, load_toml
from .errors import ConfigError

__all__ = ["PresetTable"]

C = TypeVar("C")


class PresetTable(Mapping[str, C], Generic[C]):
    """Read-only name -> config mapping for one world.

    ``path_keys`` name config fields holding file paths; in a TOML file a
    relative path is taken from the file's folder.
    """

    def __init__(self, world: str, cls: type[C], presets: Mapping[str, C], path_keys: tuple[str, ...] = ()) -> None:
        self.world = world
        self.cls = cls
        self._presets = dict(presets)
        self.path_keys = path_keys

    def __getitem__(self, name: str) -> C:
        return self._presets[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._presets)

    def __len__(self) -> int:
        return len(self._presets)

    def preset(self, name: str) -> C:
        """The named preset; an unknown name lists the known ones."""
        try:
            return self._presets[name]
        except KeyError:
            raise ConfigError(f"unknown {self.world} preset {name!r}; choose one of {', '.join(self._presets)}") from None

    def to_toml(self, config: C) -> str:
        """A config as self-contained TOML."""
        return dump_toml(config_to_dict(config))

    def from_toml(self, path: str | Path) -> C:
        """Load a TOML file; a top-level ``extends = "preset"`` lays the file over that preset."""
        p = Path(path)
        data = load_toml(p)
        base = data.pop("extends", None)
        if base is not None and not isinstance(base, str):  # extends = [..] was a TypeError
            raise ConfigError(f"extends(={base!r}) must be the name of a {self.world} preset, e.g. "
                              f"extends = {next(iter(self._presets), 'default')!r}")
        for key in self.path_keys:
            if isinstance(data.get(key), str) and not Path(data[key]).is_absolute():
                data[key] = str(p.parent / data[key])
        if base is not None:
            data = deep_merge(config_to_dict(self.preset(base)), data)
        return config_from_dict(self.cls, data)

    def resolve(self, config: C | str | Path) -> C:
        """A config from a preset name, a ``.toml`` path, or a config itself."""
        if isinstance(config, self.cls):
            return config
        text = str(config)
        if text.endswith(".toml") or "/" in text:
            return self.from_toml(text)
        return self.preset(text)
