"""A memory root: one layer of the store, a directory and the scope it was resolved under.

A frozen dataclass, as gptme's ``MemoryRoot`` is (its fields are part of the
public API, :mod:`memls.store`). Kept apart from the resolution
(:mod:`memls.store.roots`), which a replayed command runs without loading
``dataclasses``.
"""

from __future__ import annotations

from pathlib import Path

from .structs import struct


@struct
class MemoryRoot:
    """One layer: a directory and the scope it was resolved under."""

    scope: str
    path: Path

    @property
    def exists(self) -> bool:
        return self.path.is_dir()
