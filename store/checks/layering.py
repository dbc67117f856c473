"""Layering and freshness checks: what a reader of one entry should know about time and place.

This module holds two small families (the catalogue's ``layering`` and
``freshness``), both information-level and both per entry document:

- ``shadowed-entry``: roots are layered and the nearest wins on name, so an
  entry silently hides a same-named entry in every farther root of its
  stack (:class:`memls.store.model.Workspace`; another workspace folder's
  project is not a layer of this one, so it hides nothing there). That is
  often intended (a project overriding a user default) but surprising when
  it is not, so the nearer, visible entry says what it hides and where.
- ``recheck-due``: ``recheck`` is free-form in gptme (never interpreted).
  When it reads as an ISO date (``YYYY-MM-DD``, or a datetime starting with
  one) and that day is before today, the entry asked to be verified again
  and has not been. Anything else is left alone: no problem for a value we
  cannot read, because the field promises nothing. Only living entries are
  checked; superseded and historical ones are no longer served as current.

Both are cheap: a dictionary lookup per root, and one date parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import date
from typing import TYPE_CHECKING

from ..anchors import value_span as _value_span
from ..diagnostics import Fix, Location, Problem, Related
from ..model import Document

if TYPE_CHECKING:
    from . import CheckContext

CODES: tuple[str, ...] = ("recheck-due", "shadowed-entry")

_ISO_DATE_PREFIX = re.compile(r"(\d{4}-\d{2}-\d{2})(?:$|[T ])")


def check(ctx: CheckContext, doc: Document) -> Iterable[Problem | None]:
    if doc.kind != "entry" or doc.entry is None:
        return ()
    return [*_recheck_due(ctx, doc), *_shadowed(ctx, doc)]


def fixes(ctx: CheckContext, problem: Problem) -> Iterable[Fix]:
    """Neither check has a fix: only a person can re-verify or choose a layer."""
    return ()


def recheck_date(value: str) -> date | None:
    """The day a ``recheck`` value names, or None when it is not an ISO date."""
    match = _ISO_DATE_PREFIX.match(value.strip())
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


def _recheck_due(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    entry = doc.entry
    assert entry is not None
    if not entry.recheck or not entry.is_living:
        return
    due = recheck_date(entry.recheck)
    if due is None or due >= ctx.today:
        return
    yield ctx.problem(
        "recheck-due", doc, _value_span(doc, "recheck"),
        f"'{entry.name}' was due to be rechecked on {due.isoformat()}; "
        "verify it and set a new recheck date",
        data={"due": due.isoformat()},
    )


def _shadowed(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    name = doc.name
    state = doc.root
    if name is None or state.visible(name) is not doc:
        return
    related = []
    scopes = []
    for other in ctx.workspace.farther_than(state):
        hidden = other.visible(name)
        if hidden is None:
            continue
        scopes.append(other.scope)
        related.append(Related(
            Location(hidden.path, _value_span(hidden, "name")),
            f"'{name}' in the {other.scope} root, hidden by this entry",
        ))
    if not related:
        return
    where = ", ".join(f"'{s}'" for s in dict.fromkeys(scopes))
    yield ctx.problem(
        "shadowed-entry", doc, _value_span(doc, "name"),
        f"'{name}' hides the same-named entry in the {where} "
        f"root{'s' if len(set(scopes)) > 1 else ''}; rename one if both should be seen",
        related=related,
    )


