"""``workspace/executeCommand``: the store's operations, run from the editor.

Each command is a thin call into the engine (:class:`memls.store.store.MemoryStore`,
:mod:`memls.store.recall`): the same locked, round-tripped writes the CLI makes.
What this module adds is the editor's side of a write:

* **Open buffers win.** A command that would rewrite a file open in the
  editor with unsaved changes is refused ("save it first"): writing behind
  an edited buffer would make the user choose between two versions. An
  open file without unsaved changes is written on disk like any other and
  the editor reloads it; no edit is sent, since an edit would leave the
  buffer modified though it equals the disk. ``memls.regenerateIndex`` on
  an open ``MEMORY.md`` with unsaved changes edits the buffer (as saving a
  memory does), because the user asked for exactly that text and can undo it.
* **Errors are answers.** Bad arguments and refused writes come back as a
  JSON-RPC error with one line of text; the server keeps running.

Commands and their arguments (positional, JSON):

``memls.regenerateIndex [root-path-or-document-uri]``
    -> ``{"uri", "path", "changed", "buffer"}``
``memls.supersede OLD NEW [document-uri]``
    -> ``{"old": uri, "new": uri}``
``memls.newMemory NAME DESCRIPTION TYPE [BODY] [document-uri]``
    -> ``{"name", "uri", "path"}`` (and ``window/showDocument`` when supported)
``memls.recall QUERY [LIMIT]``
    -> ``[{"name", "description", "type", "uri", "score"}, ...]`` best first
``memls.debugInfo`` -> versions, roots, settings, timings, client features
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from lsprotocol import types

from memls.store.entry import MemoryEntry
from memls.store.index import INDEX_FILENAME
from memls.store.model import RootState
from memls.store.names import check_name
from memls.store.reader import disk_text
from memls.store.roots import default_write_root
from memls.store.structs import struct

from .. import __version__
from ..convert import uri_to_path
from ..errors import RequestFailed, reason
from ..notices import name_used
from .save import IndexUpdate, edit_open_index

if TYPE_CHECKING:
    from memls.store.recall import Bm25Index

    from ..protocol import MemlsProtocol
    from ..server import MemlsServer
    from ..state import ServerState

log = logging.getLogger(__name__)

REGENERATE_INDEX = "memls.regenerateIndex"
SUPERSEDE = "memls.supersede"
NEW_MEMORY = "memls.newMemory"
RECALL = "memls.recall"
DEBUG_INFO = "memls.debugInfo"
DEFAULT_RECALL_LIMIT = 10
MAX_RECALL_LIMIT = 200


# -- arguments ------------------------------------------------------------------------


@overload
def _string(args: tuple, index: int, what: str, *, required: Literal[True] = True) -> str: ...
@overload
def _string(args: tuple, index: int, what: str, *, required: bool) -> str | None: ...
def _string(args: tuple, index: int, what: str, *, required: bool = True) -> str | None:
    if index >= len(args) or args[index] is None:
        if required:
            raise RequestFailed(f"missing argument: {what}")
        return None
    value = args[index]
    if not isinstance(value, str):
        raise RequestFailed(f"{what} must be a string")
    return value


def _target_path(target: str) -> Path:
    path = uri_to_path(target) if ":" in target.split("/", 1)[0] else Path(target).expanduser()
    if path is None:
        raise RequestFailed(f"not a file URI: {target}")
    return path


def root_for_target(state: ServerState, target: str | None) -> RootState:
    """The root a command works on: named by a root directory or a document in it.

    Without a target: the first workspace folder's ``memory`` root when it is
    loaded, else the root a save would target (explicit, then project...).
    A target must lie in a root the server already knows.
    """
    if target is None:
        for folder in state.folders:
            root = state.workspace.root_of(folder / "memory" / INDEX_FILENAME)
            if root is not None:
                return root
        if not state.workspace.roots:
            raise RequestFailed("no memory root in this workspace")
        chosen = default_write_root([r.root for r in state.workspace.roots])
        return next(r for r in state.workspace.roots if r.root == chosen)
    path = _target_path(target)
    # Known roots only (the workspace's, the configured ones, those of documents the
    # user opened): a command argument never makes a new directory a root, so no
    # client request can make the server write somewhere nobody pointed it at.
    root = state.workspace.root_of(path / INDEX_FILENAME if path.is_dir() else path)
    if root is None:
        raise RequestFailed(f"not a memory root of this workspace, or a document in one: {path}")
    return root


# -- writing through the store, keeping buffers right -----------------------------------


def _refuse_dirty(state: ServerState, paths: list[Path]) -> None:
    dirty = [p.name for p in paths
             if (b := state.buffers.get(p)) is not None and (b.saved_text is None or b.modified)]
    if dirty:
        raise RequestFailed(f"save {', '.join(sorted(set(dirty)))} first: it has unsaved changes")


def write_through_store(
    state: ServerState, touched: list[Path], write: Callable[[], Any]
) -> tuple[Any, set[Path]]:
    """Run a store write, then update the model from disk (engine thread).

    ``touched`` are the files the write may change. Open ones must have no
    unsaved changes; the editor reloads those the write changed, and the
    server takes their new text at once.
    """
    _refuse_dirty(state, touched)
    result = write()
    affected: set[Path] = set()
    for path in dict.fromkeys(touched):
        if path not in state.buffers:
            affected |= state.workspace.update_from_disk(path)
            continue
        text = disk_text(path)
        if text is not None and text != state.text(path):
            affected |= state.wrote_open_file(path, text)
    return result, affected


# -- the commands (each runs its store work on the engine thread) -----------------------


def _regenerate_index(state: ServerState, target: str | None) -> tuple[dict, IndexUpdate | None]:
    from memls.store.store import MemoryStore

    root = root_for_target(state, target)
    store = MemoryStore([root.root])
    index_path = root.index_path
    result = {"uri": state.uris.uri(index_path), "path": str(index_path)}
    before = disk_text(index_path)
    if state.has_unsaved_changes(index_path) and not state.changed_under(index_path, before):
        text = store.render_root_index(root.scope)
        changed = text != state.text(index_path)
        return {**result, "changed": changed, "buffer": True}, (
            IndexUpdate(index_path, written=False, buffer_text=lambda _: text) if changed else None)
    store.write_index(root.scope)
    after = disk_text(index_path)
    if after is not None and after != before:
        state.memls_wrote_index(index_path, before, after)
        state.wrote_open_file(index_path, after)
    return {**result, "changed": after != before, "buffer": False}, None


def _supersede(state: ServerState, old: str, new: str, target: str | None):
    from memls.store.store import MemoryStore

    root = root_for_target(state, target)
    store = MemoryStore([root.root])
    # The files the store will write: found on disk by the engine's one rule
    # (memls.store.lookup), as the store finds them, not by the buffers' names.
    touched = [e.path for name in (old, new) if (e := store.get(name)) is not None and e.path]
    touched += [root.index_path, root.policy_path]
    (old_entry, new_entry), affected = write_through_store(
        state, touched, lambda: store.supersede(old, new, scope=root.scope))
    # The store may have found a file the model had under another name.
    for entry in (old_entry, new_entry):
        if entry.path is not None and entry.path not in touched and entry.path not in state.buffers:
            affected |= state.workspace.update_from_disk(entry.path)
    return {"old": _entry_uri(state, old_entry), "new": _entry_uri(state, new_entry)}, affected


def _entry_uri(state: ServerState, entry: MemoryEntry) -> str | None:
    return state.uris.uri(entry.path) if entry.path is not None else None


def _new_memory(state: ServerState, name: str, description: str, type_: str,
                body: str, target: str | None):
    from memls.store.store import MemoryStore

    slug = check_name(name)
    root = root_for_target(state, target)
    path = root.path / f"{slug}.md"
    if path.exists() or path in state.buffers:
        raise RequestFailed(f"{path.name} already exists in {root.path}")
    taken = root.by_slug.get(slug)
    if taken:  # an open buffer (or the model) holds the name: a new memory never updates it
        raise RequestFailed(f"an entry named '{root.documents[taken[0]].name}' already exists: {taken[0].name}")
    touched = [path, root.index_path, root.policy_path]
    store = MemoryStore([root.root])
    # new=True: the disk may still hold the name a buffer renamed away, unsaved.
    written, affected = write_through_store(
        state, touched, lambda: store.save(name, description, body, type=type_, scope=root.scope, new=True))
    return {"name": slug, "uri": state.uris.uri(written), "path": str(written)}, affected


@struct(frozen=False)
class RecallCache:
    """One BM25 index per set of visible entries: rebuilt only after the model changed.

    Entries are compared by identity; the model replaces a document's entry
    object on every update, and the cache holds the old ones, so an identity
    cannot be reused while it is compared.
    """

    entries: tuple[MemoryEntry, ...] = ()
    index: Bm25Index | None = None

    def search(self, entries: list[MemoryEntry], query: str, limit: int):
        living = tuple(e for e in entries if e.is_living)
        if (self.index is None or len(living) != len(self.entries)
                or any(a is not b for a, b in zip(living, self.entries))):
            from memls.store.recall import Bm25Index

            self.entries, self.index = living, Bm25Index.build(living)
        return self.index.search(query, limit)


def visible_entries(state: ServerState) -> list[MemoryEntry]:
    """Every root's entries, nearest root first, a name's nearest entry only."""
    seen: set[str] = set()
    out: list[MemoryEntry] = []
    for root in sorted(state.workspace.roots, key=lambda r: r.order):
        for name in sorted(root.by_name):
            doc = root.visible(name)
            if name in seen or doc is None or doc.entry is None:
                continue
            seen.add(name)
            out.append(doc.entry)
    return out


def _recall(state: ServerState, cache: RecallCache, query: str, limit: int) -> list[dict]:
    if not query.strip():
        return []
    hits = cache.search(visible_entries(state), query, limit)
    return [
        {
            "name": hit.entry.name,
            "description": hit.entry.description,
            "type": hit.entry.type,
            "uri": _entry_uri(state, hit.entry),
            "score": hit.score,
        }
        for hit in hits
    ]


def _package_version(name: str) -> str | None:
    # Imported here: importlib.metadata (with the zipfile, csv and email it loads)
    # was a tenth of memls's own imports on the way to answering ``initialize``.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _debug_info(ls: MemlsServer) -> dict:
    import yaml  # here, not at the top: a start that parses nothing does not load YAML

    state = ls.state
    settings = state.settings
    stats = state.stats()
    return {
        "versions": {
            "memls": __version__,
            "pygls": _package_version("pygls"),
            "lsprotocol": _package_version("lsprotocol"),
            "python": sys.version.split()[0],
            "pyyaml": getattr(yaml, "__version__", None),
            "libyaml": hasattr(yaml, "CSafeLoader"),
        },
        "roots": stats["roots"],
        "entries": stats["entries"],
        "open_documents": stats["open_documents"],
        "scanning": stats["scanning"],
        "settings": {
            "severity": dict(settings.severity),
            "roots": [str(r) for r in settings.roots],
            "index_on_save": settings.index_on_save,
            "warnings": list(settings.warnings),
        },
        "timings": dict(ls.timings),
        "client": dataclasses.asdict(state.client),
        "diagnostics": "pull" if ls.diagnostics.pull else "push",
        "handlers_in_flight": cast("MemlsProtocol", ls.protocol).handlers_in_flight,  # this request's among them
    }


# -- registration -----------------------------------------------------------------------


def _command(server: MemlsServer, name: str):
    """Register ``fn(ls, *args)``; every failure becomes a one-line JSON-RPC error."""

    def decorator(fn: Callable[..., Awaitable[Any]]):
        # No annotations: pygls resolves them at call time to convert arguments.
        async def handler(ls, *args):
            try:
                return await fn(ls, *args)
            except RequestFailed:
                raise
            except (ValueError, KeyError, TypeError, OSError, TimeoutError) as exc:
                raise RequestFailed(f"{name}: {reason(exc)}") from exc
            except Exception as exc:  # noqa: BLE001 - a command must never take the server down
                log.exception("command %s failed", name)
                raise RequestFailed(f"{name} failed: {reason(exc)}") from exc

        server.command(name)(handler)
        return fn

    return decorator


def register(server: MemlsServer) -> None:
    cache = RecallCache()

    @_command(server, REGENERATE_INDEX)
    async def regenerate_index(ls: MemlsServer, *args):
        target = _string(args, 0, "root path or document URI", required=False)
        result, update = await ls.engine.run(_regenerate_index, ls.state, target)
        if update is not None:
            await edit_open_index(ls, update)
        ls.after_change({Path(result["path"])})
        return result

    @_command(server, SUPERSEDE)
    async def supersede(ls: MemlsServer, *args):
        old = _string(args, 0, "old entry name")
        new = _string(args, 1, "new entry name")
        target = _string(args, 2, "document URI", required=False)
        result, affected = await ls.engine.run(_supersede, ls.state, old, new, target)
        ls.after_change(affected)
        return result

    @_command(server, NEW_MEMORY)
    async def new_memory(ls: MemlsServer, *args):
        name = _string(args, 0, "name")
        description = _string(args, 1, "description")
        type_ = _string(args, 2, "type")
        body = _string(args, 3, "body", required=False) or ""
        target = _string(args, 4, "document URI", required=False)
        result, affected = await ls.engine.run(
            _new_memory, ls.state, name, description, type_, body, target)
        ls.after_change(affected)
        if (notice := name_used(name, result["name"])) is not None:
            ls.window_show_message(notice)
        if ls.state.client.show_document:
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=result["uri"], take_focus=True))
        return result

    @_command(server, RECALL)
    async def recall(ls: MemlsServer, *args):
        query = _string(args, 0, "query")
        limit = args[1] if len(args) > 1 and args[1] is not None else DEFAULT_RECALL_LIMIT
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL_LIMIT:
            raise RequestFailed(f"limit must be a whole number from 1 to {MAX_RECALL_LIMIT}")
        return await ls.engine.run(_recall, ls.state, cache, query, limit)

    @_command(server, DEBUG_INFO)
    async def debug_info(ls: MemlsServer, *args):
        return await ls.engine.run(_debug_info, ls)
