"""Links between memories: what a name under the cursor refers to, and where.

These are the editor's ways of moving along supersession links and
``MEMORY.md`` pointers (go to definition, find references, the chain a hover
shows). They live in the engine, not in the language server, for the same
reason the checks do: what a link *means* (which entry a name resolves to,
what counts as a reference) is decided once, here, and the server only
translates positions and results into protocol types.

Every position is 0-based (line, code-point column) in the normalised text.
Links resolve inside their own root only, to the entry readers see for that
name, because supersession never crosses roots (the ``cross-root-link``
check reports links that try).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, cast

from .diagnostics import START, Location
from .frontmatter import Frontmatter
from .frontmatter_lines import document_text, frontmatter_region, line_field
from .index import parse_index_lines
from .model import Document, RootState, Workspace
from .spans import Span, split_lines
from .structs import struct

LinkKind = Literal["supersedes", "superseded_by", "index", "name"]
_LINK_KEYS: tuple[LinkKind, ...] = ("supersedes", "superseded_by", "name")
# A chain longer than this is a pathological corpus; the hover shows what it has.
_MAX_CHAIN = 1000


@struct
class LinkRef:
    """A reference to an entry name at a position of a document."""

    kind: LinkKind  # "name" is the document's own ``name:`` value
    # The entry referenced; for an index line, the name of the entry whose file
    # the line targets (the target's stem when that file is no entry).
    name: str
    span: Span  # the reference text (quotes excluded)
    path: Path  # the document holding the reference
    index_target: str | None = None  # index lines: the target filename


def reference_at(ws: Workspace, path: Path, line: int, col: int) -> LinkRef | None:
    """The entry name referenced at a position, or None."""
    doc = ws.document(path)
    if doc is None:
        return None
    if doc.kind == "index":
        return _index_reference(doc, line, col)
    if doc.kind in ("entry", "reserved"):
        return _frontmatter_reference(doc, line, col)
    return None


def definition(ws: Workspace, path: Path, line: int, col: int) -> Location | None:
    """Where the entry referenced at a position is named; None for a missing target."""
    doc = ws.document(path)
    ref = reference_at(ws, path, line, col)
    if doc is None or ref is None:
        return None
    target = resolve(doc, ref)
    if target is None:
        doubted = in_doubt(doc, ref)
        target = doubted[0] if doubted else None
    return name_location(target) if target is not None else None


def in_doubt(doc: Document, ref: LinkRef) -> list[Document]:
    """The files whose frontmatter does not load but seems to name the entry ``ref`` links to, by path.

    The checks do not call such a link dangling (the entry may be one of
    them); definition and hover lead there rather than saying no entry has
    the name.
    """
    if ref.kind == "index":
        return []
    root = doc.root
    return [d for p in sorted(root.maybe_named.get(ref.name, ()), key=str) if (d := root.documents.get(p)) is not None]


def references(
    ws: Workspace, path: Path, line: int, col: int, *, include_declaration: bool = True
) -> list[Location]:
    """Every place in the root that names the entry referenced at a position.

    That is the entry's own ``name:`` value (with ``include_declaration``),
    every ``supersedes`` item and ``superseded_by`` value naming it, and its
    ``MEMORY.md`` pointer lines (their target spans).
    """
    doc = ws.document(path)
    ref = reference_at(ws, path, line, col)
    if doc is None or ref is None:
        return []
    root = doc.root
    target = resolve(doc, ref)
    name = target.name if target is not None and target.name is not None else ref.name
    found: set[Location] = set()
    if include_declaration and target is not None:
        found.add(name_location(target))
    for linker_path in root.linked_from.get(name, ()):
        linker = root.documents.get(linker_path)
        if linker is not None:
            found.update(_link_locations(linker, name))
    filename = target.path.name if target is not None else ref.index_target
    if filename is not None:
        found.update(_index_locations(root, filename))
    return sorted(found, key=_location_key)


def entry_chain(ws: Workspace, doc: Document) -> list[Document]:
    """The supersession chain through ``doc``, oldest first, newest last.

    Backwards it follows the first ``supersedes`` item naming a visible
    entry of the root, forwards ``superseded_by``; a document already on the
    chain ends it, so a cycle cannot loop.
    """
    root = doc.root
    seen = {doc.path}
    older: list[Document] = []
    current = doc
    while len(seen) < _MAX_CHAIN:
        entry = current.entry
        previous = None
        for name in entry.supersedes if entry is not None else ():
            candidate = root.visible(name)
            if candidate is not None and candidate.path not in seen:
                previous = candidate
                break
        if previous is None:
            break
        seen.add(previous.path)
        older.append(previous)
        current = previous
    newer: list[Document] = []
    current = doc
    while len(seen) < _MAX_CHAIN:
        entry = current.entry
        successor = root.visible(entry.superseded_by) if entry and entry.superseded_by else None
        if successor is None or successor.path in seen:
            break
        seen.add(successor.path)
        newer.append(successor)
        current = successor
    return [*reversed(older), doc, *newer]


def resolve(doc: Document, ref: LinkRef) -> Document | None:
    """The entry document a reference lands on, in the referencing root."""
    root = doc.root
    if ref.kind == "index":
        return index_target_document(root, ref.index_target or "")
    if ref.kind == "name":
        visible = root.visible(ref.name)
        return visible if visible is not None else (doc if doc.entry is not None else None)
    return root.visible(ref.name)


def index_target_document(root: RootState, target: str) -> Document | None:
    """The entry document a ``MEMORY.md`` pointer's target names: a file of the root itself, else None."""
    filename = target[2:] if target.startswith("./") else target
    if not filename or "/" in filename or "\\" in filename:
        return None
    # By file name: a path made and hashed per pointer was half of linking a 10k index.
    doc = root.by_filename.get(filename)
    if doc is None or doc.kind != "entry" or doc.entry is None:
        return None
    return doc


def name_location(doc: Document) -> Location:
    """Where an entry is named: its ``name:`` value, else the start of the file."""
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    span = name_span(fm) if fm is not None else None
    return Location(doc.path, span or START)


def name_span(fm: Frontmatter) -> Span | None:
    """The span of a string ``name:`` value without its quotes; None when there is none."""
    spans = fm.keys.get("name")
    if spans is None or not isinstance(fm.data, dict) or not isinstance(fm.data.get("name"), str):
        return None
    return _unquoted(fm, spans.value)


def _unquoted(fm: Frontmatter, span: Span) -> Span:
    """A one-line quoted scalar's span without its quotes."""
    if span.start_line != span.end_line or span.end_col - span.start_col < 2:
        return span
    lines = fm.yaml_text.split("\n")
    index = span.start_line - fm.content_start_line
    if not 0 <= index < len(lines):
        return span
    text = lines[index][span.start_col : span.end_col]
    if text[0] == text[-1] and text[0] in "'\"":
        return Span(span.start_line, span.start_col + 1, span.end_line, span.end_col - 1)
    return span


def _link_locations(doc: Document, name: str) -> list[Location]:
    """Spans of ``doc``'s ``supersedes`` items and ``superseded_by`` value naming ``name``."""
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    if fm is None or not isinstance(fm.data, dict):
        return []
    out = []
    for key in ("supersedes", "superseded_by"):
        spans = fm.keys.get(key)
        value = fm.data.get(key)
        if spans is None:
            continue
        if isinstance(value, list):
            out += [
                Location(doc.path, _unquoted(fm, span))
                for span, item in zip(spans.items, value)
                if item == name
            ]
        elif value == name:
            out.append(Location(doc.path, _unquoted(fm, spans.value)))
    return out


def _index_locations(root: RootState, filename: str) -> list[Location]:
    index = root.documents.get(root.index_path)
    if index is None:
        return []
    out = []
    for number, line in enumerate(split_lines(index.text)):
        if filename not in line:  # most lines of a large index: skip the regex
            continue
        for link in parse_index_lines(line):
            target = link.target[2:] if link.target.startswith("./") else link.target
            if target == filename:
                span = Span(number, link.target_span[0], number, link.target_span[1])
                out.append(Location(index.path, span))
    return out


def _location_key(location: Location) -> tuple:
    span = location.span
    return (str(location.path), span.start_line, span.start_col, span.end_line, span.end_col)


def _contains(span: Span, line: int, col: int) -> bool:
    """Inclusive of the end, so a cursor just after a name is still on it."""
    return (span.start_line, span.start_col) <= (line, col) <= (span.end_line, span.end_col)


def _index_reference(doc: Document, line: int, col: int) -> LinkRef | None:
    lines = split_lines(doc.text)
    if not 0 <= line < len(lines):
        return None
    for link in parse_index_lines(lines[line]):
        for part in (link.target_span, link.title_span):
            if part[0] <= col <= part[1]:
                target = index_target_document(doc.root, link.target)
                name = target.name if target is not None and target.name else Path(link.target).stem
                return LinkRef(
                    "index", name, Span(line, part[0], line, part[1]), doc.path,
                    index_target=link.target,
                )
    return None


def _frontmatter_reference(doc: Document, line: int, col: int) -> LinkRef | None:
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    if fm is not None and fm.error is None and isinstance(fm.data, dict):
        for key in _LINK_KEYS:
            spans = fm.keys.get(key)
            if spans is None:
                continue
            value = fm.data.get(key)
            if isinstance(value, list):
                for span, item in zip(spans.items, value):
                    if isinstance(item, str) and item and _contains(span, line, col):
                        return LinkRef(key, item, _unquoted(fm, span), doc.path)
            elif isinstance(value, str) and value and _contains(spans.value, line, col):
                return LinkRef(key, value, _unquoted(fm, spans.value), doc.path)
        return None
    # The YAML does not load (or the block is not closed yet): read the line itself.
    lines = document_text(doc).split("\n")
    region = frontmatter_region(doc, lines)
    if region is None or not region[0] <= line < region[1]:
        return None
    field = line_field(lines, region[0], line, col)
    if field is None or field.part == "key" or field.key not in _LINK_KEYS or not field.text:
        return None
    return LinkRef(cast(LinkKind, field.key), field.text, field.span, doc.path)  # one of _LINK_KEYS
