"""The memories of a workspace as a tree: roots, then types, then entries.

An editor's side bar shows what is remembered the way a reader thinks about
it: which root (project, Claude Code's, the user's), what kind of memory, and
which entry replaced which. A superseded entry sits under the entry that
superseded it, so the top of each type lists what is current and the history
is one level down, where it belongs; an entry whose successor is missing (or
whose chain loops) stays at the top, where its diagnostic is seen.

Every entry file is listed, also one whose frontmatter does not load (under
``UNREADABLE``): those are the files that most need a reader's attention.
The problem counts come from the caller (the same checks the editor shows),
so this module only arranges them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from .entry import TYPE_ORDER
from .model import Document, RootState, Workspace
from .structs import struct

# The group of entry files whose frontmatter does not load (no type is known).
UNREADABLE = "unreadable"


@struct
class ProblemCount:
    """How many errors and warnings a document has."""

    errors: int = 0
    warnings: int = 0


@struct(frozen=False)
class EntryNode:
    """An entry in the Memories view, with the entries it superseded nested under it."""

    name: str
    title: str | None
    description: str
    type: str
    status: str  # living, superseded, historical; "invalid" when it does not load
    path: Path
    problems: ProblemCount
    superseded: list[EntryNode] = field(default_factory=list)


@struct(frozen=False)
class TypeNode:
    """The entries of one type in a root of the Memories view."""

    type: str
    entries: list[EntryNode]


@struct(frozen=False)
class RootNode:
    """A memory root in the Memories view, its entries grouped by type."""

    scope: str
    path: Path
    types: list[TypeNode]


def memory_tree(ws: Workspace, problems: Mapping[Path, ProblemCount]) -> list[RootNode]:
    """Every loaded root, nearest first, with its entries grouped and nested."""
    return [_root_node(root, problems) for root in sorted(ws.roots, key=lambda r: r.order)]


def _root_node(root: RootState, problems: Mapping[Path, ProblemCount]) -> RootNode:
    docs = [d for p, d in sorted(root.documents.items(), key=lambda item: str(item[0])) if d.kind == "entry"]
    nodes = {d.path: _entry_node(d, problems.get(d.path, ProblemCount())) for d in docs}
    parent = {d.path: s.path for d in docs if (s := _successor(root, d)) is not None}
    top: list[EntryNode] = []
    for doc in docs:
        up = parent.get(doc.path)
        if up is None or _on_a_loop(doc.path, parent):
            top.append(nodes[doc.path])
        else:
            nodes[up].superseded.append(nodes[doc.path])
    by_type: dict[str, list[EntryNode]] = {}
    for node in top:
        by_type.setdefault(node.type, []).append(node)
    order = [t for t in TYPE_ORDER if t in by_type]
    order += sorted(t for t in by_type if t not in TYPE_ORDER and t != UNREADABLE)
    order += [UNREADABLE] if UNREADABLE in by_type else []
    return RootNode(root.scope, root.path, [TypeNode(t, by_type[t]) for t in order])


def _successor(root: RootState, doc: Document) -> Document | None:
    """The entry ``doc``'s ``superseded_by`` lands on in its root, when it is another file."""
    if doc.entry is None or not doc.loads or doc.successor is None:
        return None
    successor = root.visible(doc.successor)
    if successor is None or successor.path == doc.path or successor.entry is None:
        return None
    return successor


def _on_a_loop(start: Path, parent: Mapping[Path, Path]) -> bool:
    """Whether following successors from ``start`` comes back to it (``supersession-cycle``)."""
    seen = {start}
    current = parent.get(start)
    while current is not None and current not in seen:
        seen.add(current)
        current = parent.get(current)
    # A walk that meets another node twice leads into a loop ``start`` is not on.
    return current == start


def node_key(doc: Document | None) -> tuple | None:
    """What the tree shows of one document (None: it is not in the tree).

    Compared before and after a change, so an editor is told to ask again
    only when the tree may look different, not on every keystroke in a body.
    """
    if doc is None or doc.kind != "entry":
        return None
    entry = doc.entry
    if entry is None or not doc.loads:
        return (doc.name, None)
    return (entry.name, entry.title, entry.description, entry.type, entry.status, doc.successor)


def _entry_node(doc: Document, problems: ProblemCount) -> EntryNode:
    entry = doc.entry
    if entry is None or not doc.loads:
        return EntryNode(doc.name or doc.path.stem, None, "", UNREADABLE, "invalid", doc.path, problems)
    return EntryNode(entry.name, entry.title, entry.description, entry.type, entry.status, doc.path, problems)
