"""Symbols: the outline of one memory document, and entries found by name across roots.

An entry's outline is its name (with the frontmatter keys as children) and
its body's Markdown headings; ``MEMORY.md``'s is its pointer lines under
their ``## Type`` headings. Workspace symbols rank the visible entries of
every root against a query.
"""

from __future__ import annotations

import heapq
import re
from typing import Any, Literal

from .diagnostics import Location
from .frontmatter import Frontmatter
from .frontmatter_lines import document_text
from .index import parse_index_lines
from .links import name_location, name_span
from .model import Document, Workspace
from .spans import Span, split_lines
from .structs import struct
from .text import one_line

_HEADING = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")


@struct
class SymbolInfo:
    """One symbol of a document's outline (an entry, a frontmatter key, a heading), with its children."""

    name: str
    detail: str
    kind: Literal["entry", "key", "heading"]
    span: Span
    selection_span: Span
    children: tuple[SymbolInfo, ...] = ()


@struct
class WorkspaceSymbol:
    """An entry found by a workspace symbol search, and where its name is."""

    name: str
    detail: str
    location: Location
    living: bool


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
    text = document_text(doc)
    lines = text.split("\n")
    fm = doc.parsed.frontmatter if doc.parsed is not None else None
    out: list[SymbolInfo] = []
    body_start = 0
    if fm is not None:
        body_start = fm.block.end_line + 1
        name = doc.name or doc.path.stem
        selection = name_span(fm)
        children = tuple(_key_symbols(fm))
        out.append(
            SymbolInfo(
                name=name,
                detail=doc.entry.description if doc.entry is not None else "",
                kind="entry",
                span=fm.block,
                selection_span=selection or Span(0, 0, 0, 3),
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
    text = one_line(text)
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
    lines = split_lines(text)
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
        span = Span(number, 0, end, len(lines[end]))
        out.append(
            SymbolInfo(title, "##", "heading", span, Span(number, 3, number, 3 + len(title)), tuple(members))
        )

    for number, line in enumerate(lines):
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
            location=name_location(doc),
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
