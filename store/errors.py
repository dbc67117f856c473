"""The exceptions of the store's public API.

The first three carry gptme's names and class hierarchy so code written
against ``gptme.memory`` catches the same things. ``MemoryParseError`` is a
``ValueError`` because "this file is not a memory entry" is bad input, not a
failure of the store.
"""

from __future__ import annotations

from pathlib import Path


class MemoryParseError(ValueError):
    """Raised when a file is not a memory entry (no or unusable frontmatter)."""


class MemoryFrontmatterError(MemoryParseError):
    """Raised when strict parsing is required but the YAML is invalid."""


class RecallBackendUnavailable(ImportError):
    """Raised when a caller forces a recall backend that is not installed."""


class ReservedNameError(ValueError):
    """A name the readers would hide or misread: refused before anything touches disk."""


class LockTimeoutError(TimeoutError):
    """The root lock stayed held by another writer for longer than allowed."""


class ChangedMeanwhile(Exception):
    """A file changed between the read a write was computed from and its commit (nothing was written)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} changed while memls was writing it (another program wrote it); "
                         "nothing was written")
        self.path = path


class RoundTripError(OSError):
    """A staged write would not be seen again by the store's own readers."""


class AmbiguousNameError(ValueError):
    """A NAME that no entry has exactly, but that several entries match by file stem or slug."""
