"""One typed settings object for the CLI and the language server.

Read from ``[tool.memls]`` in ``pyproject.toml`` or from ``.memls.toml`` (the
whole file is the table) in the workspace; the server layers the editor's
settings on top. Unknown keys and bad values are reported, not fatal: a typo
in a config file must not take the checks down.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import Any, Literal

from .catalogue import codes, spec
from .diagnostics import SEVERITIES, SeverityOrOff
from .structs import struct
from .text import one_line

IndexOnSave = Literal["auto", "regenerate", "off"]
INDEX_ON_SAVE = ("auto", "regenerate", "off")
CONFIG_FILES = (".memls.toml", "pyproject.toml")


@struct
class Settings:
    """What the settings files and the editor say: severities, extra roots, when a save updates the index."""

    # code -> severity ("off" silences a check)
    severity: Mapping[str, SeverityOrOff] = field(default_factory=dict)
    # memory roots beyond the resolved layers (explicit directories)
    roots: tuple[Path, ...] = ()
    index_on_save: IndexOnSave = "auto"
    # problems found in the settings themselves, one line each
    warnings: tuple[str, ...] = ()

    def severity_of(self, code: str) -> SeverityOrOff:
        return self.severity.get(code) or spec(code).severity

    def merged(self, overrides: Mapping[str, Any], *, base_dir: Path | None = None) -> Settings:
        """These settings with ``overrides`` (same shape as the TOML table) on top."""
        parsed = settings_from_mapping(overrides, base_dir=base_dir)
        return replace(
            self,
            severity={**self.severity, **parsed.severity},
            roots=self.roots + tuple(r for r in parsed.roots if r not in self.roots),
            index_on_save=parsed.index_on_save if "index" in overrides else self.index_on_save,
            warnings=self.warnings + parsed.warnings,
        )


def settings_from_mapping(data: Mapping[str, Any], *, base_dir: Path | None = None) -> Settings:
    """Settings from a ``[tool.memls]``-shaped mapping; bad values become warnings."""
    warnings: list[str] = []
    severity: dict[str, SeverityOrOff] = {}
    known = set(codes())
    raw_severity = data.get("severity", {})
    if not isinstance(raw_severity, Mapping):
        warnings.append("severity must be a table of check code = severity")
        raw_severity = {}
    for code, value in raw_severity.items():
        if code not in known:
            warnings.append(f"severity: unknown check code '{code}'")
        elif value not in SEVERITIES:
            warnings.append(
                f"severity.{code}: '{value}' is not one of {', '.join(SEVERITIES)}"
            )
        else:
            severity[code] = value
    roots: list[Path] = []
    raw_roots = data.get("roots", [])
    if isinstance(raw_roots, str):
        raw_roots = [raw_roots]
    if not isinstance(raw_roots, list) or not all(isinstance(r, str) for r in raw_roots):
        warnings.append("roots must be a list of directory paths")
        raw_roots = []
    for r in raw_roots:
        if "\0" in r:  # no file system names it: the whole command would stop on it
            warnings.append(f"roots: {r!r} holds a NUL character; ignored")
            continue
        path = Path(r).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        roots.append(path)
    index_on_save: IndexOnSave = "auto"
    raw_index = data.get("index", {})
    if isinstance(raw_index, Mapping):
        value = raw_index.get("on_save", raw_index.get("onSave", "auto"))
        if value in INDEX_ON_SAVE:
            index_on_save = value
        else:
            warnings.append(f"index.on_save: '{value}' is not one of {', '.join(INDEX_ON_SAVE)}")
    else:
        warnings.append("index must be a table")
    for key in data:
        if key not in ("severity", "roots", "index"):
            warnings.append(f"unknown setting '{key}'")
    return Settings(severity=severity, roots=tuple(roots), index_on_save=index_on_save,
                    warnings=tuple(warnings))


def load_settings(workspace: Path) -> Settings:
    """The workspace's settings: ``.memls.toml`` wins over ``pyproject.toml``."""
    for name in CONFIG_FILES:
        path = workspace / name
        if not path.is_file():
            continue
        # Imported only for a file to read: most workspaces have none, and a server start need not load it.
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10
            import tomli as tomllib
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return Settings(warnings=(f"{path}: {one_line(str(exc))}",))
        if name == "pyproject.toml":
            tool = data.get("tool", {})
            if not isinstance(tool, Mapping):
                return Settings(warnings=(f"{path}: [tool] must be a table",))
            data = tool.get("memls")
            if data is None:
                continue
        if not isinstance(data, Mapping):
            return Settings(warnings=(f"{path}: [tool.memls] must be a table",))
        settings = settings_from_mapping(data, base_dir=workspace)
        return replace(settings, warnings=tuple(f"{path}: {w}" for w in settings.warnings))
    return Settings()
