"""Reserved names and slug collisions: entries that a reader would never find.

Every reader skips ``memory*.md`` files (that prefix belongs to ``MEMORY.md``
and its archives), so an entry kept in such a file, or named so that its
file would be one, is written and then never read again. Two names with one
slug share one file name, so gptme's save of either overwrites the other
(memls's save refuses, see :mod:`memls.store.lookup`). Both are
fixed by renaming to a free name through :mod:`memls.store.rename_plan`, which
also updates links, the index line and the index policy.

Results depend on the document itself and on the documents sharing its
slug (``RootState.by_slug``), which the workspace reports as affected.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..anchors import anchor as name_span
from ..diagnostics import Fix, Location, Problem, Related
from ..model import Document
from ..names import is_index_filename, is_reserved_name
from ..rename_plan import plan_move_file, plan_rename, suggest_free_name

if TYPE_CHECKING:
    from . import CheckContext

CODES = ("reserved-name", "slug-collision")


def check(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    entry = doc.entry
    if entry is None:
        return
    if doc.kind == "reserved":
        yield ctx.problem(
            "reserved-name", doc, name_span(doc),
            f"{doc.path.name} holds the entry '{entry.name}', but every reader skips memory*.md files, "
            "so it is invisible; rename the file",
        )
        return
    if doc.kind != "entry" or doc.stated_name is None or doc.stated_name != doc.name:
        return  # YAML that does not load, and no name stated for certain: nothing to judge
    slug = doc.slug
    assert slug is not None  # a stated name has a slug
    if is_index_filename(slug):
        yield ctx.problem(
            "reserved-name", doc, name_span(doc),
            f"name '{doc.name}' is reserved: its file would be {slug}.md, which every "
            "reader skips; rename the entry to a name not starting with 'memory'",
        )
    state = doc.root
    others = [
        state.documents[p] for p in state.by_slug.get(slug, ())
        if p != doc.path and state.documents[p].name != doc.name
    ]
    if others:
        names = ", ".join(f"'{o.name}' ({o.path.name})" for o in others)
        yield ctx.problem(
            "slug-collision", doc, name_span(doc),
            f"name '{doc.name}' has the same slug '{slug}' as {names}: gptme's save of either writes "
            f"{slug}.md over the other; rename one of them",
            related=[
                Related(Location(o.path, name_span(o)), f"'{o.name}' has the same slug '{slug}'")
                for o in others
            ],
        )


def fixes(ctx: CheckContext, problem: Problem) -> Iterable[Fix]:
    doc = ctx.workspace.document(problem.path)
    if doc is None or doc.entry is None:
        return []
    if problem.code == "reserved-name" and doc.kind == "reserved" and not is_reserved_name(doc.entry.name):
        # The name is fine; only the file is in the skipped prefix.
        fix = _try(lambda: plan_move_file(ctx.workspace, doc))
        if fix is not None:
            return [fix]
    fix = rename_to_free_name(ctx, doc)
    return [fix] if fix is not None else []


def rename_to_free_name(ctx: CheckContext, doc: Document) -> Fix | None:
    """"Rename to <a free name>" for ``doc``, or None when no rename can be planned.

    Shared with the supersession checks (``duplicate-name``): the name is
    derived from the entry's own, minus a reserved ``memory`` prefix, with
    ``-2``, ``-3``... until nothing in the root uses it.
    """
    entry = doc.entry
    if entry is None:
        return None
    free = suggest_free_name(doc.root, entry.name, renaming=doc)
    return _try(lambda: plan_rename(ctx.workspace, doc, free))


def _try(build) -> Fix | None:
    try:
        return build()
    except ValueError:
        return None
