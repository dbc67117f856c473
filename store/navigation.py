"""Navigation over memory documents: definition, references, hover, completion, symbols.

These are the editor's ways of moving along supersession links and
``MEMORY.md`` pointers. They live in the engine, not in the language server,
for the same reason the checks do: what a link *means* (which entry a name
resolves to, what counts as a reference) is decided once, here, and the
server only translates positions and results into protocol types.

Every position is 0-based (line, code-point column) in the normalised text,
like every span the parser produces. Links resolve inside their own root
only, to the entry readers see for that name, because supersession never
crosses roots (the ``cross-root-link`` check reports links that try).

A document being typed is often not valid YAML for a moment (``supersedes:``
followed by a bare ``- ``), and that is exactly when completion is asked for.
So besides the parser's spans, the frontmatter is also read line by line
(:class:`_LineField`), which needs nothing but the current line and the key
lines above it.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .diagnostics import START, Location
from .entry import KNOWN_KEYS, STATUSES, TYPE_ORDER
from .frontmatter import Frontmatter, normalize_text
from .index import parse_index_lines
from .model import Document, RootState, Workspace
from .schema import FIELD_DOCS, STATUS_DOCS, TYPE_DOCS
from .spans import Span

LinkKind = Literal["supersedes", "superseded_by", "index", "name"]
_LINK_KEYS = ("supersedes", "superseded_by", "name")
_METADATA_KEYS = ("type", "originSessionId")
# A chain longer than this is a pathological corpus; the hover shows what it has.
_MAX_CHAIN = 1000

_TOP_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?=[ \t]|$)")
_NESTED_KEY = re.compile(r"^(?P<indent>[ \t]+)(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?=[ \t]|$)")
_LIST_ITEM = re.compile(r"^(?P<indent>[ \t]*)-(?=[ \t]|$)")
_PARTIAL_KEY = re.compile(r"^[A-Za-z_][\w.-]*")
_HEADING = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Plain scalars YAML 1.1 would not read back as the same string.
_YAML_SPECIAL = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
)
_NUMBER_LIKE = re.compile(r"^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$|^0[xob]|^\d+:\d|^\d{4}-\d\d-\d\d")


# -- results ----------------------------------------------------------------------


@dataclass(frozen=True)
class LinkRef:
    """A reference to an entry name at a position of a document."""

    kind: LinkKind  # "name" is the document's own ``name:`` value
    # The entry referenced; for an index line, the name of the entry whose file
    # the line targets (the target's stem when that file is no entry).
    name: str
    span: Span  # the reference text (quotes excluded)
    path: Path  # the document holding the reference
    index_target: str | None = None  # index lines: the target filename


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    span: Span


@dataclass(frozen=True)
class CompletionCandidate:
    label: str
    kind: Literal["entry", "value", "key"]
    detail: str
    documentation: str
    insert_text: str
    sort_text: str
    replace_span: Span | None = None
    deprecated: bool = False


@dataclass(frozen=True)
class SymbolInfo:
    name: str
    detail: str
    kind: Literal["entry", "key", "heading"]
    span: Span
    selection_span: Span
    children: tuple[SymbolInfo, ...] = ()


@dataclass(frozen=True)
class WorkspaceSymbol:
    name: str
    detail: str
    location: Location
    living: bool


# -- references -------------------------------------------------------------------


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
    target = _resolve(doc, ref)
    return _name_location(target) if target is not None else None


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
    target = _resolve(doc, ref)
    name = target.name if target is not None and target.name is not None else ref.name
    found: set[Location] = set()
    if include_declaration and target is not None:
        found.add(_name_location(target))
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


# -- hover ------------------------------------------------------------------------


def hover(ws: Workspace, path: Path, line: int, col: int) -> HoverInfo | None:
    """What a reference points at, or what a frontmatter key means."""
    doc = ws.document(path)
    if doc is None:
        return None
    ref = reference_at(ws, path, line, col)
    if ref is not None:
        target = _resolve(doc, ref)
        if target is None:
            if ref.kind == "index":
                text = f"no entry file '{ref.index_target}' in this root"
            else:
                text = f"no entry named '{ref.name}' in this root"
            return HoverInfo(text, ref.span)
        return HoverInfo(_entry_markdown(ws, target), ref.span)
    if doc.kind not in ("entry", "reserved"):
        return None
    key = _key_at(doc, line, col)
    if key is None:
        return None
    field_key, span = key
    field = FIELD_DOCS.get(field_key)
    if field is not None:
        return HoverInfo(field.markdown, span)
    if "." not in field_key:
        return HoverInfo(
            f"**`{field_key}`** is not a field memls knows; it is kept unchanged on every rewrite.",
            span,
        )
    return None


def _entry_markdown(ws: Workspace, target: Document) -> str:
    entry = target.entry
    assert entry is not None
    heading = f"**{entry.title}** (`{entry.name}`)" if entry.title else f"**{entry.name}**"
    parts = [heading]
    if entry.description:
        parts.append(entry.description)
    parts.append(f"type: `{entry.type}` · status: `{entry.status}`")
    chain = entry_chain(ws, target)
    if len(chain) > 1:
        names = [
            f"**{d.name}**" if d is target else str(d.name) for d in chain
        ]
        parts.append("Supersession: " + " → ".join(names))
    return "\n\n".join(parts)


# -- completion -------------------------------------------------------------------


def completions(ws: Workspace, path: Path, line: int, col: int) -> list[CompletionCandidate]:
    """Candidates at a position inside an entry's frontmatter ([] elsewhere)."""
    doc = ws.document(path)
    if doc is None or doc.kind not in ("entry", "reserved"):
        return []
    text = _text(doc)
    lines = text.split("\n")
    region = _frontmatter_region(doc, lines)
    if region is None or not region[0] <= line < region[1] or line >= len(lines):
        return []
    field = _line_field(lines, region[0], line, col)
    if field is None:
        return []
    if field.part == "key":
        return _key_candidates(lines, region, field)
    if field.key in ("supersedes", "superseded_by"):
        return _entry_candidates(doc, lines, region, field)
    if field.key == "status":
        return _value_candidates(field, [(s, STATUS_DOCS[s]) for s in STATUSES])
    if field.key in ("type", "metadata.type"):
        return _value_candidates(field, _type_values(doc.root, doc.path))
    return []


def _entry_candidates(
    doc: Document, lines: list[str], region: tuple[int, int], field: _LineField
) -> list[CompletionCandidate]:
    root = doc.root
    own = doc.name or _scan_top_values(lines, region).get("name")
    exclude = {own} if own else set()
    entry = doc.entry
    if field.key == "supersedes" and entry is not None:
        exclude |= {name for name in entry.supersedes if name != field.text}
    out = []
    for name, paths in root.by_name.items():
        if name in exclude:
            continue
        target = root.documents[paths[0]].entry
        if target is None:
            continue
        out.append(
            CompletionCandidate(
                label=name,
                kind="entry",
                detail=f"{target.type} · {target.status}",
                documentation=target.description,
                insert_text=field.lead + _yaml_name(name),
                sort_text=("0" if target.is_living else "1") + name,
                replace_span=field.span,
                deprecated=target.status == "superseded",
            )
        )
    out.sort(key=lambda c: c.sort_text)
    return out


def _value_candidates(
    field: _LineField, values: list[tuple[str, str]]
) -> list[CompletionCandidate]:
    return [
        CompletionCandidate(
            label=value,
            kind="value",
            detail=f"{field.key} value",
            documentation=doc,
            insert_text=field.lead + value,
            sort_text=f"{i:03d}",
            replace_span=field.span,
        )
        for i, (value, doc) in enumerate(values)
    ]


def _type_values(root: RootState, editing: Path | None = None) -> list[tuple[str, str]]:
    """Claude Code's types and ``general``, then the other types this root uses.

    The document being edited does not count: its half-typed value is not a type
    the root uses yet.
    """
    used = set()
    for paths in root.by_name.values():
        if paths[0] == editing:
            continue
        entry = root.documents[paths[0]].entry
        if entry is not None:
            used.add(entry.type)
    values = [(t, TYPE_DOCS[t]) for t in TYPE_ORDER]
    values += [(t, "used in this memory root") for t in sorted(used - set(TYPE_ORDER)) if t]
    return values


def _key_candidates(
    lines: list[str], region: tuple[int, int], field: _LineField
) -> list[CompletionCandidate]:
    if field.key.startswith("metadata."):
        present = _scan_nested_keys(lines, region, field.span.start_line, "metadata")
        keys = [(k, f"metadata.{k}") for k in _METADATA_KEYS if k not in present]
    else:
        present = set(_scan_top_values(lines, region))
        keys = [(k, k) for k in KNOWN_KEYS if k not in present]
    return [
        CompletionCandidate(
            label=key,
            kind="key",
            detail=FIELD_DOCS[doc_key].summary,
            documentation=FIELD_DOCS[doc_key].markdown,
            insert_text=f"{key}: ",
            sort_text=f"{i:03d}",
            replace_span=field.span,
        )
        for i, (key, doc_key) in enumerate(keys)
    ]


def _yaml_name(name: str) -> str:
    """``name`` as a YAML scalar that reads back as the same string."""
    if (
        _PLAIN_NAME.match(name)
        and name.lower() not in _YAML_SPECIAL
        and not _NUMBER_LIKE.match(name)
    ):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- symbols ----------------------------------------------------------------------


def document_symbols(doc: Document) -> list[SymbolInfo]:
    """The outline of one document.

    An entry gives one symbol (its name, with the frontmatter keys as
    children) and its body's Markdown headings; ``MEMORY.md`` gives one
    symbol per pointer line, under the ``## Type`` heading it sits in.
    """
    if doc.kind == "index":
        return _index_symbols(doc.text)
    if doc.kind not in ("entry", "reserved"):
        return []
    text = _text(doc)
    lines = text.split("\n")
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    out: list[SymbolInfo] = []
    body_start = 0
    if fm is not None:
        body_start = fm.block.end_line + 1
        name = doc.name or doc.path.stem
        name_span = _name_span(fm)
        children = tuple(_key_symbols(fm))
        out.append(
            SymbolInfo(
                name=name,
                detail=doc.entry.description if doc.entry is not None else "",
                kind="entry",
                span=fm.block,
                selection_span=name_span or Span(0, 0, 0, 3),
                children=children,
            )
        )
    out.extend(_heading_symbols(lines, body_start))
    return out


def _key_symbols(fm: Frontmatter) -> list[SymbolInfo]:
    data = fm.data if isinstance(fm.data, dict) else {}
    out = []
    for key, spans in fm.keys.items():
        end = spans.value
        whole = Span(spans.key.start_line, spans.key.start_col, end.end_line, end.end_col)
        if (end.end_line, end.end_col) < (spans.key.end_line, spans.key.end_col):
            whole = spans.key
        out.append(
            SymbolInfo(key, _short_value(data.get(key)), "key", whole, spans.key)
        )
    out.sort(key=lambda s: (s.span.start_line, s.span.start_col))
    return out


def _short_value(value: Any) -> str:
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}: {v}" for k, v in value.items())
    elif value is None:
        text = ""
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def _heading_symbols(lines: list[str], start: int) -> list[SymbolInfo]:
    """Body headings, nested by level; each spans its section."""
    found: list[tuple[int, int, str, Span]] = []  # (line, level, text, selection)
    fence: str | None = None
    for number in range(start, len(lines)):
        line = lines[number]
        opener = _FENCE.match(line)
        if fence is not None:
            if opener is not None and opener["fence"][0] == fence[0] and len(opener["fence"]) >= len(fence):
                fence = None
            continue
        if opener is not None:
            fence = opener["fence"]
            continue
        match = _HEADING.match(line)
        if match is None:
            continue
        title = match["text"] or ""
        begin = match.start("text") if match["text"] is not None else match.start("marks")
        end = match.end("text") if match["text"] is not None else match.end("marks")
        found.append((number, len(match["marks"]), title, Span(number, begin, number, end)))
    last_line = len(lines) - 1
    while last_line > 0 and not lines[last_line].strip():
        last_line -= 1

    def build(i: int, stop: int) -> tuple[list[SymbolInfo], int]:
        out = []
        while i < stop:
            number, level, title, selection = found[i]
            j = i + 1
            while j < stop and found[j][1] > level:
                j += 1
            children, _ = build(i + 1, j)
            end_line = found[j][0] - 1 if j < len(found) else last_line
            end_line = max(end_line, number)
            span = Span(number, 0, end_line, len(lines[end_line]))
            out.append(SymbolInfo(title, "#" * level, "heading", span, selection, tuple(children)))
            i = j
        return out, i

    symbols, _ = build(0, len(found))
    return symbols


def _index_symbols(text: str) -> list[SymbolInfo]:
    lines = text.split("\n")
    links = {link.line: link for link in parse_index_lines(text)}
    out: list[SymbolInfo] = []
    group: tuple[int, str] | None = None
    members: list[SymbolInfo] = []

    def close() -> None:
        if group is None:
            out.extend(members)
            return
        number, title = group
        end = members[-1].span.end_line if members else number
        span = Span(number, 0, end, len(lines[end].rstrip("\r")))
        out.append(
            SymbolInfo(title, "##", "heading", span, Span(number, 3, number, 3 + len(title)), tuple(members))
        )

    for number, raw in enumerate(lines):
        line = raw.rstrip("\r")
        if line.startswith("## "):
            close()
            group, members = (number, line[3:].strip()), []
            continue
        link = links.get(number)
        if link is None:
            continue
        selection = link.title_span if link.title else link.target_span
        members.append(
            SymbolInfo(
                name=link.title or link.target,
                detail=link.description if link.description is not None else link.target,
                kind="entry",
                span=Span(number, 0, number, len(line)),
                selection_span=Span(number, selection[0], number, selection[1]),
            )
        )
    close()
    return out


def workspace_symbols(ws: Workspace, query: str, *, limit: int = 200) -> list[WorkspaceSymbol]:
    """Visible entries of every root matching ``query``, best first.

    A match is a case-insensitive substring of the name, a keyword or the
    description, or a subsequence of the name (``wsym`` finds
    ``workspace-symbols``). Ranks: name prefix, name substring, name
    subsequence, keyword, description; living entries first within a rank.
    """
    needle = query.strip().lower()
    ranked: list[tuple[int, int, str, str, Document]] = []
    for root in ws.roots:
        for name, paths in root.by_name.items():
            doc = root.documents[paths[0]]
            entry = doc.entry
            if entry is None:
                continue
            rank = _symbol_rank(needle, name, entry.keywords, entry.description)
            if rank is not None:
                ranked.append((rank, 0 if entry.is_living else 1, name, str(doc.path), doc))
    best = heapq.nsmallest(limit, ranked, key=lambda r: r[:4])
    return [
        WorkspaceSymbol(
            name=name,
            detail=doc.entry.description if doc.entry is not None else "",
            location=_name_location(doc),
            living=living == 0,
        )
        for _, living, name, _, doc in best
    ]


def _symbol_rank(needle: str, name: str, keywords: list[str], description: str) -> int | None:
    if not needle:
        return 0
    lowered = name.lower()
    if lowered.startswith(needle):
        return 0
    if needle in lowered:
        return 1
    if _is_subsequence(needle, lowered):
        return 2
    if any(needle in k.lower() for k in keywords):
        return 3
    if needle in description.lower():
        return 4
    return None


def _is_subsequence(needle: str, haystack: str) -> bool:
    chars = iter(haystack)
    return all(c in chars for c in needle)


# -- resolution helpers -------------------------------------------------------------


def _resolve(doc: Document, ref: LinkRef) -> Document | None:
    """The entry document a reference lands on, in the referencing root."""
    root = doc.root
    if ref.kind == "index":
        return _index_target_document(root, ref.index_target or "")
    if ref.kind == "name":
        visible = root.visible(ref.name)
        return visible if visible is not None else (doc if doc.entry is not None else None)
    return root.visible(ref.name)


def _index_target_document(root: RootState, target: str) -> Document | None:
    filename = target[2:] if target.startswith("./") else target
    if not filename or "/" in filename or "\\" in filename:
        return None
    doc = root.documents.get(root.path / filename)
    if doc is None or doc.kind != "entry" or doc.entry is None:
        return None
    return doc


def _name_location(doc: Document) -> Location:
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    span = _name_span(fm) if fm is not None else None
    return Location(doc.path, span or START)


def _name_span(fm: Frontmatter) -> Span | None:
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
    for number, line in enumerate(index.text.split("\n")):
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
    lines = doc.text.split("\n")
    if not 0 <= line < len(lines):
        return None
    for link in parse_index_lines(lines[line]):
        for part in (link.target_span, link.title_span):
            if part[0] <= col <= part[1]:
                target = _index_target_document(doc.root, link.target)
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
                        return LinkRef(key, item, _unquoted(fm, span), doc.path)  # type: ignore[arg-type]
            elif isinstance(value, str) and value and _contains(spans.value, line, col):
                return LinkRef(key, value, _unquoted(fm, spans.value), doc.path)  # type: ignore[arg-type]
        return None
    # The YAML does not load (or the block is not closed yet): read the line itself.
    lines = _text(doc).split("\n")
    region = _frontmatter_region(doc, lines)
    if region is None or not region[0] <= line < region[1]:
        return None
    field = _line_field(lines, region[0], line, col)
    if field is None or field.part == "key" or field.key not in _LINK_KEYS or not field.text:
        return None
    return LinkRef(field.key, field.text, field.span, doc.path)  # type: ignore[arg-type]


def _key_at(doc: Document, line: int, col: int) -> tuple[str, Span] | None:
    """The frontmatter key (``metadata.type`` for a nested one) under the cursor."""
    lines = _text(doc).split("\n")
    region = _frontmatter_region(doc, lines)
    if region is None or not region[0] <= line < region[1] or line >= len(lines):
        return None
    field = _line_field(lines, region[0], line, col)
    if field is None or field.part != "key" or field.key_span is None:
        return None
    return field.key, field.key_span


# -- reading the frontmatter line by line -------------------------------------------


@dataclass(frozen=True)
class _LineField:
    """What the cursor's line of frontmatter is: a key, a value, or a list item."""

    key: str  # top-level key, or "parent.key" for a nested one
    part: Literal["key", "value", "item"]
    span: Span  # the value / item text (quotes included), or the key being typed
    text: str  # that text without quotes
    # Text to put before an inserted value (a space after a bare ``key:``).
    lead: str = ""
    key_span: Span | None = None  # a complete ``key:``'s key


def _text(doc: Document) -> str:
    return doc.parsed.text if doc.parsed is not None else normalize_text(doc.text)


def _frontmatter_region(doc: Document, lines: list[str]) -> tuple[int, int] | None:
    """Lines [start, end) of the frontmatter content, also for an unclosed block."""
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    if fm is not None:
        return 1, fm.block.end_line
    if not lines or lines[0].rstrip(" \t") != "---":
        return None
    for number in range(1, len(lines)):
        if lines[number].rstrip(" \t") == "---":
            return 1, number
    return 1, len(lines)


def _line_field(lines: list[str], first: int, line: int, col: int) -> _LineField | None:
    text = lines[line]
    top = _TOP_KEY.match(text)
    if top is not None:
        return _key_value_field(top["key"], text, line, col, 0, top.end())
    nested = _NESTED_KEY.match(text)
    if nested is not None:
        parent = _parent_key(lines, first, line)
        if parent is None:
            return None
        key = f"{parent}.{nested['key']}"
        return _key_value_field(key, text, line, col, nested.start("key"), nested.end())
    item = _LIST_ITEM.match(text)
    if item is not None:
        parent = _parent_key(lines, first, line)
        if parent is None or col < item.end():
            return None
        value_start = item.end()
        while value_start < len(text) and text[value_start] in " \t":
            value_start += 1
        start, end, value = _scalar_bounds(text, value_start)
        lead = "" if item.end() < len(text) else " "
        return _LineField(parent, "item", Span(line, start, line, end), value, lead)
    if ":" in text or "#" in text[:col]:
        return None
    stripped = text.lstrip(" \t")
    indent = len(text) - len(stripped)
    word = _PARTIAL_KEY.match(stripped)
    if stripped and word is None:
        return None
    word_end = indent + (word.end() if word else 0)
    if col < indent or col > word_end:
        return None
    span = Span(line, indent, line, word_end)
    if indent == 0:
        return _LineField("", "key", span, stripped[: word_end - indent])
    if _parent_key(lines, first, line) == "metadata":
        return _LineField("metadata.", "key", span, stripped[: word_end - indent])
    return None


def _key_value_field(
    key: str, text: str, line: int, col: int, key_start: int, colon_end: int
) -> _LineField:
    key_end = key_start + len(key.rsplit(".", 1)[-1])
    key_span = Span(line, key_start, line, key_end)
    if col < colon_end:
        return _LineField(key, "key", key_span, key, key_span=key_span)
    rest_start = colon_end
    while rest_start < len(text) and text[rest_start] in " \t":
        rest_start += 1
    lead = "" if colon_end < len(text) else " "
    if text.startswith("[", rest_start):
        return _flow_item_field(key, text, line, col, rest_start, key_span)
    start, end, value = _scalar_bounds(text, rest_start)
    return _LineField(key, "value", Span(line, start, line, end), value, lead, key_span)


def _flow_item_field(
    key: str, text: str, line: int, col: int, open_at: int, key_span: Span
) -> _LineField:
    """The item of a one-line flow list (``[a, b]``) the cursor is in."""
    close = text.find("]", open_at)
    inner_end = close if close != -1 else len(text)
    start = open_at + 1
    for piece in text[open_at + 1 : inner_end].split(","):
        end = start + len(piece)
        if col <= end or end >= inner_end:
            lo = start + len(piece) - len(piece.lstrip())
            hi = max(lo, end - (len(piece) - len(piece.rstrip())))
            value = text[lo:hi].strip("'\"")
            lead = " " if lo == hi and lo > open_at + 1 and text[lo - 1] == "," else ""
            return _LineField(key, "item", Span(line, lo, line, hi), value, lead, key_span)
        start = end + 1
    return _LineField(key, "item", Span(line, inner_end, line, inner_end), "", "", key_span)


def _scalar_bounds(text: str, start: int) -> tuple[int, int, str]:
    """Columns of the scalar starting at ``start`` (trailing blanks and comment cut)."""
    end = len(text)
    quoted = start < end and text[start] in "'\""
    if quoted:
        closing = text.find(text[start], start + 1)
        end = closing + 1 if closing != -1 else end
    else:
        comment = text.find(" #", start)
        if comment != -1:
            end = comment
    while end > start and text[end - 1] in " \t":
        end -= 1
    value = text[start:end]
    if quoted:
        value = value[1:-1] if len(value) > 1 and value[-1] == value[0] else value[1:]
    return start, end, value


def _parent_key(lines: list[str], first: int, line: int) -> str | None:
    """The nearest top-level key above ``line`` (the mapping it is nested in)."""
    for number in range(line - 1, first - 1, -1):
        match = _TOP_KEY.match(lines[number])
        if match is not None:
            return match["key"]
    return None


def _scan_top_values(lines: list[str], region: tuple[int, int]) -> dict[str, str]:
    """Top-level ``key: value`` lines of the frontmatter (value text unquoted)."""
    out: dict[str, str] = {}
    for number in range(region[0], min(region[1], len(lines))):
        match = _TOP_KEY.match(lines[number])
        if match is not None:
            rest = lines[number][match.end():]
            start = len(rest) - len(rest.lstrip(" \t"))
            out[match["key"]] = _scalar_bounds(rest, start)[2]
    return out


def _scan_nested_keys(lines: list[str], region: tuple[int, int], line: int, parent: str) -> set[str]:
    """Keys nested under ``parent`` in the block that holds ``line``."""
    present: set[str] = set()
    if _parent_key(lines, region[0], line) != parent:
        return present
    for direction in (-1, 1):
        number = line + direction
        while region[0] <= number < min(region[1], len(lines)):
            if _TOP_KEY.match(lines[number]):
                break
            nested = _NESTED_KEY.match(lines[number])
            if nested is not None:
                present.add(nested["key"])
            number += direction
    return present


__all__ = [
    "CompletionCandidate",
    "HoverInfo",
    "LinkRef",
    "SymbolInfo",
    "WorkspaceSymbol",
    "completions",
    "definition",
    "document_symbols",
    "entry_chain",
    "hover",
    "reference_at",
    "references",
    "workspace_symbols",
]
