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
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .cache import ParseCache, Stamp, is_settled, now_ns, paused_gc, stamp_of
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
    return [root_dir / name for name, _ in entry_stats(root_dir)]


def entry_stats(root_dir: Path) -> list[tuple[str, os.stat_result]]:
    """Entry candidates of one root with their ``stat``, sorted by file name.

    Sorting names equals sorting the paths (one directory), without building
    and comparing 10k ``Path`` objects; the stat is the one that tells a regular
    file and keys the parse cache.
    """
    try:
        names = os.listdir(root_dir)
    except (FileNotFoundError, NotADirectoryError):
        return []
    base = os.fspath(root_dir)
    out = []
    for name in names:
        if not is_entry_filename(name):
            continue
        try:
            st = os.stat(os.path.join(base, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out.append((name, st))
    out.sort(key=lambda item: item[0])
    return out


def decode_document(data: bytes) -> str:
    """Bytes on disk to the text every parser sees (UTF-8, BOM and CRLF normalised)."""
    return normalize_text(data.decode("utf-8"))


def disk_text(path: Path) -> str | None:
    """A file's text as the parsers see it; None when absent, unreadable or not UTF-8."""
    try:
        return decode_document(path.read_bytes())
    except (OSError, UnicodeDecodeError):
        return None


@dataclass
class RootRead:
    """The parsed documents of one root and the files that are not entries."""

    documents: list[ParsedDocument] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)
    # The file identity each document was parsed from (staged ones have none),
    # and when the files were looked at: a later read may reuse a document
    # whose file still has that identity (see ``read_root``'s ``base``).
    stamps: dict[Path, Stamp] = field(default_factory=dict)
    observed_ns: int = 0

    @property
    def entries(self) -> list[MemoryEntry]:
        """Every parsable entry, one per file, in file order."""
        return [d.entry for d in self.documents if d.entry is not None]


def read_root(
    root_dir: Path,
    scope: str | None,
    overlay: Mapping[Path, bytes | None] | None = None,
    *,
    base: RootRead | None = None,
    cache: bool = True,
) -> RootRead:
    """Parse every entry file of one root.

    ``overlay`` maps paths to staged bytes (``None`` = deleted) and stands in
    for the disk, so a writer can ask "what would the readers see after this
    commit?" through exactly this function.

    The file set is always listed and every file ``stat``-ed afresh; only the
    parsing is saved. A document comes from ``overlay``, else from ``base``
    (an earlier read of this root, e.g. a write's read at its start) or the
    persistent parse cache (:mod:`store.cache`) when the file's identity is
    unchanged and settled, else from parsing the file. ``cache=False`` (or
    ``MEMLS_NO_CACHE=1``) parses every file not in ``base``.
    """
    with paused_gc():
        return _read_root(root_dir, scope, overlay or {}, base, cache)


def _read_root(
    root_dir: Path,
    scope: str | None,
    overlay: Mapping[Path, bytes | None],
    base: RootRead | None,
    cache: bool,
) -> RootRead:
    observed_ns = now_ns()
    listed = entry_stats(root_dir)
    staged: dict[str, bytes | None] = {}
    for path, data in overlay.items():
        if path.parent == root_dir and is_entry_filename(path.name):
            staged[path.name] = data
    names = [(name, st) for name, st in listed if name not in staged]
    names.extend((name, None) for name, data in staged.items() if data is not None)
    names.sort(key=lambda item: item[0])

    parse_cache = (
        ParseCache.open(root_dir) if cache and base is None else ParseCache.disabled(root_dir)
    )
    base_docs = {d.path: d for d in base.documents} if base is not None else {}
    base_stamps = base.stamps if base is not None else {}
    base_observed = base.observed_ns if base is not None else 0
    prefix = os.path.join(os.fspath(root_dir), "")
    result = RootRead(observed_ns=observed_ns)
    for name, st in names:
        path = root_dir / name
        if st is None:
            doc, error = parse_bytes(path, staged[name], scope)
        else:
            stamp = stamp_of(st)
            doc = _reused(base_docs.get(path), base_stamps.get(path), stamp, base_observed, scope)
            if doc is None:
                doc = parse_cache.lookup(name, prefix + name, scope, stamp)
            error = None
            if doc is None:
                try:
                    data = read_capped(path)
                except OSError as exc:
                    result.errors.append((path, _one_line(exc)))
                    continue
                doc, error = parse_bytes(path, data, scope)
                if doc is not None:
                    parse_cache.remember(name, prefix + name, scope, stamp, doc, observed_ns)
            if doc is not None:
                result.stamps[path] = stamp
        if doc is None:
            result.errors.append((path, error or "not a memory entry"))
            continue
        if doc.entry is None:
            result.errors.append((path, doc.not_entry or "not a memory entry"))
        result.documents.append(doc)
    parse_cache.save()
    return result


def _reused(
    doc: ParsedDocument | None, was: Stamp | None, stamp: Stamp, observed_ns: int,
    scope: str | None,
) -> ParsedDocument | None:
    """An earlier read's document, if its file is provably the same bytes."""
    if doc is None or was != stamp or doc.scope != scope or not is_settled(stamp, observed_ns):
        return None
    return doc


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
