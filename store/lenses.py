"""What an entry says about its place among the others, shown above its frontmatter.

An entry's file tells its reader what it supersedes and what superseded it,
but only by name; whether those names lead anywhere, and whether the agent
sees the entry at all (its line in ``MEMORY.md``), takes opening other files.
These lenses answer that where the reader already is, and each one says
where a click takes them. The same facts back ``MEMORY.md``'s document links:
the pointer lines that land on an entry file of the root.

Decided here, once, so every editor (CodeLens in VS Code, Neovim, ...) shows
the same thing; the language server only converts spans and packs commands.
A link that lands nowhere gets no lens or link: its diagnostic
(``dangling-superseded-by``, ``index-broken-link``) already says so, at the
place to fix it.
"""

from __future__ import annotations

from pathlib import Path

from .diagnostics import START, Location
from .index import parse_index_lines
from .links import index_target_document, name_location
from .model import Document
from .spans import Span
from .structs import struct

# Above the frontmatter: on its opening ``---``.
LENS_SPAN = Span(0, 0, 0, 3)


@struct
class Target:
    """Where a lens leads: a place, and the name a picker shows for it."""

    label: str
    location: Location


@struct
class Lens:
    """One line of text above an entry; a click goes to ``targets`` (one, or a choice)."""

    title: str
    targets: tuple[Target, ...]
    span: Span = LENS_SPAN


@struct
class IndexLink:
    """A ``MEMORY.md`` pointer's target text, and the entry file it opens."""

    span: Span
    path: Path
    name: str


def entry_lenses(doc: Document) -> list[Lens]:
    """The lenses of an entry whose frontmatter loaded, in a fixed order.

    * ``superseded by X`` when ``superseded_by`` names an entry of the root;
    * ``supersedes X`` / ``supersedes N entries`` for the ``supersedes`` items
      that name entries of the root;
    * ``in MEMORY.md`` (its pointer line) or ``not in MEMORY.md`` (the index's
      start), when the root has an index; without one, ``index-missing`` speaks.
    """
    if doc.kind != "entry" or doc.entry is None or not doc.loads:
        return []
    root = doc.root
    lenses: list[Lens] = []
    successor = root.visible(doc.successor) if doc.successor else None
    if successor is not None and successor is not doc:
        lenses.append(Lens(f"superseded by {successor.name}", (_target(successor),)))
    older: list[Target] = []
    for _, name in doc.predecessors:
        predecessor = root.visible(name)
        if predecessor is not None and predecessor is not doc and all(t.label != name for t in older):
            older.append(_target(predecessor))
    if len(older) == 1:
        lenses.append(Lens(f"supersedes {older[0].label}", tuple(older)))
    elif older:
        lenses.append(Lens(f"supersedes {len(older)} entries", tuple(older)))
    index = root.documents.get(root.index_path)
    if index is not None:
        lines = [link for link in index_links(index) if link.path == doc.path]
        if lines:
            first = lines[0].span
            lenses.append(Lens("in MEMORY.md", (Target("MEMORY.md", Location(index.path, first)),)))
        else:
            lenses.append(Lens("not in MEMORY.md", (Target("MEMORY.md", Location(index.path, START)),)))
    return lenses


def index_links(index: Document) -> list[IndexLink]:
    """The pointer lines of a ``MEMORY.md`` whose target is an entry file of its root.

    The span is the target text between the parentheses; a target that is no
    entry file of the root is left out (``index-broken-link`` reports it).
    """
    if index.kind != "index":
        return []
    out: list[IndexLink] = []
    for link in parse_index_lines(index.text):
        target = index_target_document(index.root, link.target)
        if target is None:
            continue
        span = Span(link.line, link.target_span[0], link.line, link.target_span[1])
        out.append(IndexLink(span, target.path, target.name or target.path.stem))
    return out


def _target(doc: Document) -> Target:
    return Target(doc.name or doc.path.stem, name_location(doc))
