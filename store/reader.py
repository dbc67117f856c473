"""What a reader sees in one memory root: the file set and the parsed entries.

Every read path (list, show, get, recall, match, search, index generation)
goes through :func:`read_root`, and so does every writer's round-trip
verification, with the staged bytes laid over the disk. One reader means a
write cannot succeed while the readers would hide what it wrote.

The file set is explicit (gptme's glob quirks are not copied, see the
reference's §15.13): regular top-level ``*.md`` files, not index files
(``MEMORY*``, any case) and not dot-files (editor lock and backup files such
as Emacs's ``.#note.md`` live there; gptme's own policy refuses to select them).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .entry import MemoryEntry
from .frontmatter import normalize_text
from .names import is_index_filename
from .parse import ParsedDocument, parse_document

ENTRY_SUFFIX = ".md"
# Memory entries are a few KB. A larger file is reported, never parsed, so a
# stray 50 MB file (or a YAML alias bomb) cannot stall every read.
MAX_DOCUMENT_BYTES = 1024 * 1024


def is_entry_filename(filename: str) -> bool:
    """True for a file name the readers treat as a memory entry."""
    return (
        filename.endswith(ENTRY_SUFFIX)
        and not filename.startswith(".")
        and not is_index_filename(filename)
    )


def entry_paths(root_dir: Path) -> list[Path]:
    """Entry candidates of one root in sorted path order (the shadowing order)."""
    try:
        names = os.listdir(root_dir)
    except (FileNotFoundError, NotADirectoryError):
        return []
    paths = []
    for name in names:
        if not is_entry_filename(name):
            continue
        path = root_dir / name
        if path.is_file():
            paths.append(path)
    return sorted(paths)


def decode_document(data: bytes) -> str:
    """Bytes on disk to the text every parser sees (UTF-8, BOM and CRLF normalised)."""
    return normalize_text(data.decode("utf-8"))


@dataclass
class RootRead:
    """The parsed documents of one root and the files that are not entries."""

    documents: list[ParsedDocument] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)

    @property
    def entries(self) -> list[MemoryEntry]:
        """Every parsable entry, one per file, in file order."""
        return [d.entry for d in self.documents if d.entry is not None]


def read_root(
    root_dir: Path,
    scope: str | None,
    overlay: Mapping[Path, bytes | None] | None = None,
) -> RootRead:
    """Parse every entry file of one root.

    ``overlay`` maps paths to staged bytes (``None`` = deleted) and stands in
    for the disk, so a writer can ask "what would the readers see after this
    commit?" through exactly this function.
    """
    overlay = overlay or {}
    paths = set(entry_paths(root_dir))
    for path, data in overlay.items():
        if path.parent != root_dir or not is_entry_filename(path.name):
            continue
        if data is None:
            paths.discard(path)
        else:
            paths.add(path)
    result = RootRead()
    for path in sorted(paths):
        try:
            data = overlay[path] if path in overlay else read_capped(path)
        except OSError as exc:
            result.errors.append((path, _one_line(exc)))
            continue
        doc, error = parse_bytes(path, data, scope)
        if doc is None:
            result.errors.append((path, error or "not a memory entry"))
            continue
        if doc.entry is None:
            result.errors.append((path, doc.not_entry or "not a memory entry"))
        result.documents.append(doc)
    return result


def parse_bytes(
    path: Path, data: bytes | None, scope: str | None
) -> tuple[ParsedDocument | None, str | None]:
    """One file's bytes as every reader sees them: a parsed document, or why not.

    The size cap applies to staged bytes exactly as to bytes on disk, so a
    writer cannot prove a round trip that the readers would then refuse
    (``None`` stands for a file already found to be over the cap).
    """
    if data is None or len(data) > MAX_DOCUMENT_BYTES:
        return None, f"larger than {MAX_DOCUMENT_BYTES} bytes; not read"
    try:
        text = decode_document(data)
    except UnicodeDecodeError as exc:
        return None, _one_line(exc)
    return parse_document(text, path=path, scope=scope), None


def read_capped(path: Path) -> bytes | None:
    """A file's bytes, or None when it is larger than :data:`MAX_DOCUMENT_BYTES`."""
    with open(path, "rb") as f:
        data = f.read(MAX_DOCUMENT_BYTES + 1)
    return None if len(data) > MAX_DOCUMENT_BYTES else data


def shadow_by_name(entries: Iterable[MemoryEntry]) -> list[MemoryEntry]:
    """Keep the first entry of each name (nearest root, then first file)."""
    seen: dict[str, MemoryEntry] = {}
    for entry in entries:
        seen.setdefault(entry.name, entry)
    return list(seen.values())


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return " ".join(str(exc).split())
