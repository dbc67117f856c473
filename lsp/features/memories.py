"""``memls/memories``: the tree the VS Code Memories view shows.

The server owns the model, so the view asks it rather than reading files
itself: the arrangement (roots, types, superseded entries under their
successor) is :func:`memls.store.memories.memory_tree`; the problem counts are
those of the diagnostics the editor's problem list shows. When the model changes the
server sends ``memls/memoriesChanged`` (see :mod:`memls.lsp.model_changes`)
and the view asks again.

Request: ``memls/memories`` with no parameters (or ``{}``). Result::

    {"roots": [{"scope", "path", "uri",
                "types": [{"type", "entries": [ENTRY, ...]}, ...]}, ...]}
    ENTRY = {"name", "title", "description", "type", "status", "uri", "path",
             "problems": {"errors", "warnings"}, "superseded": [ENTRY, ...]}
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memls.store.checks import check_paths

if TYPE_CHECKING:
    from memls.store.memories import EntryNode, RootNode

    from ..server import MemlsServer
    from ..state import ServerState

MEMORIES = "memls/memories"


def memories_result(state: ServerState, known: dict[Path, tuple[int, int]]) -> dict:
    """The whole tree as JSON (engine thread).

    ``known`` are the problem counts the diagnostics already computed (every
    document once the first scan was checked); the rest are checked here.
    """
    # The engine's module loads with the first request, not with the server.
    from memls.store.memories import ProblemCount, memory_tree

    paths = [d.path for d in state.workspace.documents() if d.kind == "entry"]
    counts = {path: ProblemCount(*known[path]) for path in paths if path in known}
    missing = [path for path in paths if path not in known]
    for path, problems in check_paths(state.context(), missing).items():
        severities = [p.severity for p in problems]
        counts[path] = ProblemCount(severities.count("error"), severities.count("warning"))
    return {"roots": [_root_json(root, state.uris.uri) for root in memory_tree(state.workspace, counts)]}


def _root_json(root: RootNode, uri_of: Callable[[Path], str]) -> dict:
    return {
        "scope": root.scope,
        "path": str(root.path),
        "uri": uri_of(root.path),
        "types": [{"type": t.type, "entries": [_entry_json(e, uri_of) for e in t.entries]} for t in root.types],
    }


def _entry_json(node: EntryNode, uri_of: Callable[[Path], str]) -> dict:
    return {
        "name": node.name,
        "title": node.title,
        "description": node.description,
        "type": node.type,
        "status": node.status,
        "uri": uri_of(node.path),
        "path": str(node.path),
        "problems": {"errors": node.problems.errors, "warnings": node.problems.warnings},
        "superseded": [_entry_json(child, uri_of) for child in node.superseded],
    }


def register(server: MemlsServer) -> None:
    @server.feature(MEMORIES)
    async def memories(ls: MemlsServer, params: Any):
        return await ls.engine.run(memories_result, ls.state, dict(ls.diagnostics.problem_counts))
