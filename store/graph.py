"""The supersession graph: which memory replaced which, as plain data.

A memory is rarely deleted; it is superseded, and the chain of replacements
is the history of a decision. ``memls graph`` draws that chain for docs and
pull requests. The graph follows the links the way readers and the checks
resolve them: within one root, by name, to the root's visible entry (the
first file of that name), so a link naming an entry of another root, or no
entry at all, is *dangling* here just as the ``dangling-*`` and
``cross-root-link`` checks say.

An edge points from the older entry to the one that replaced it. Either
side may state it (``supersedes`` on the new entry, ``superseded_by`` on
the old one); an edge only one side states is *one-sided*, which the
``asymmetric-supersession`` check reports and the drawing shows apart.

Output formats are in :mod:`memls.store.graph_format`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .entry import MemoryEntry
from .reader import shadow_by_name
from .structs import struct


@struct
class GraphNode:
    """An entry (``status`` living, superseded or historical) or a dangling name (``status`` None)."""

    name: str
    status: str | None

    @property
    def dangling(self) -> bool:
        return self.status is None


@struct
class GraphEdge:
    """``older`` was superseded by ``newer``; ``mutual`` when both entries say so."""

    older: str
    newer: str
    mutual: bool


@struct
class RootGraph:
    """The graph of one root: nodes by name (entries first, then dangling names), edges."""

    scope: str
    label: str  # how the root is shown (its scope and path)
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]


def root_graph(
    scope: str, label: str, entries: Iterable[MemoryEntry], *, include_unlinked: bool = False
) -> RootGraph:
    """The supersession graph of one root's entries (file order, as read).

    Only entries on a chain (a link in or out) are nodes unless
    ``include_unlinked``: a store is mostly living entries nobody replaced,
    and a drawing of hundreds of lone boxes hides the chains it is for.
    """
    visible = {e.name: e for e in shadow_by_name(entries)}
    stated: dict[tuple[str, str], set[str]] = {}  # (older, newer) -> who states it
    for entry in visible.values():
        for older in entry.supersedes:
            stated.setdefault((older, entry.name), set()).add(entry.name)
        if entry.superseded_by:
            stated.setdefault((entry.name, entry.superseded_by), set()).add(entry.name)
    edges = tuple(
        GraphEdge(older, newer, mutual=older in who and newer in who)
        for (older, newer), who in sorted(stated.items())
    )
    linked = {name for edge in edges for name in (edge.older, edge.newer)}
    shown = sorted(n for n in visible if include_unlinked or n in linked)
    dangling = sorted(n for n in linked if n not in visible)
    nodes = tuple(
        [GraphNode(n, visible[n].status) for n in shown] + [GraphNode(n, None) for n in dangling]
    )
    return RootGraph(scope, label, nodes, edges)


def graph_is_empty(graphs: Sequence[RootGraph]) -> bool:
    return not any(g.nodes for g in graphs)
