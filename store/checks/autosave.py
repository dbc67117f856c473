"""``index-line-kept``: an automatic save left the entry's ``MEMORY.md`` line as it was.

Only an editor saves on its own, so only the server holds these facts: it
passes the entries whose line an autosave kept, and why
(:func:`memls.store.index_sync.autosave_keeps_index_line`), in
``CheckContext.held_index_lines``. The problem tells the user that the index
agents read still shows the entry's last whole version, and how to publish
the new one. ``memls check`` never has any.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..anchors import anchor
from ..diagnostics import Fix, Problem
from ..index import INDEX_FILENAME
from ..model import Document

if TYPE_CHECKING:
    from . import CheckContext

CODES: tuple[str, ...] = ("index-line-kept",)


def check(ctx: CheckContext, doc: Document) -> Iterable[Problem | None]:
    reason = ctx.held_index_lines.get(doc.path)
    if reason is None or doc.kind != "entry":
        return ()
    # Here: the index's writer (and the file commit under it) is not loaded until an entry's line is held.
    from ..index_sync import lifted_by_manual_save_only

    remedy = ("an automatic save changes no name, title, type or status in the index: "
              "save it yourself (or run `memls index`) to update the index"
              if lifted_by_manual_save_only(reason) else "finish it and save it to update the index")
    return (ctx.problem(
        "index-line-kept", doc, anchor(doc),
        f"{INDEX_FILENAME} keeps this entry's previous line: it was saved while it {reason}; {remedy}",
    ),)


def fixes(ctx: CheckContext, problem: Problem) -> Iterable[Fix]:
    return ()
