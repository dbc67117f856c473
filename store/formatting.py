"""Canonical text of a memory document: what "format document" turns it into.

Formatting must never change what a memory *means*, only how it is spelled,
so it is offered only where the engine itself would write the file:

* an entry is rewritten as ``MemoryEntry.to_markdown()`` of its strict parse
  (gptme's field order and quoting, unknown keys kept after the known ones).
  A document the strict parse rejects is left alone: rewriting it would
  silently coerce values whose meaning is in doubt, which is exactly what
  gptme's strict writers refuse to do. The rewrite must also read back as
  the same entry, or it is not offered (the round-trip invariant);
* ``MEMORY.md`` is rewritten as the engine's rendering of its root
  (:func:`render_root_view`), the same text ``memls index --write`` and the
  ``index-drift`` fix produce. A hand-curated legacy index (any line the
  renderer would not write) is left alone: format-on-save runs on every
  save, and prose a person wrote must never disappear because of it (the
  save itself upserts that index's lines). A machine-made legacy index cut
  to a budget (it ends with gptme's omission marker) keeps that budget, so
  formatting an index trimmed to fit Claude Code's limit does not un-trim it.

Everything works on the in-memory model (open buffers included); nothing
here reads or writes files.
"""

from __future__ import annotations

from .entry import MemoryEntry
from .index import (
    IndexPolicy,
    index_entries,
    is_generated_index,
    omission_budget,
    render_index,
    render_policy_view,
)
from .model import Document, RootState
from .parse import parse_document

# gptme's omission marker, the last line of an index rendered under a budget.


def render_root_view(state: RootState, *, budget: int | None = None) -> str:
    """The ``MEMORY.md`` the engine would write for a root, from the model.

    A managed root (``.memory-index.json`` present) renders its policy view
    over every entry file; a legacy root renders the entries readers see.
    Raises ``ValueError`` with a one-line message when the policy cannot be
    read or its view cannot be rendered (nothing to write then).
    """
    policy_doc = state.documents.get(state.policy_path)
    managed = policy_doc is not None
    entries = index_entries(state.entries_for_index(), managed=managed)
    if policy_doc is None:
        return render_index(entries, budget=budget)
    if policy_doc.read_error is not None or policy_doc.too_large:
        raise ValueError(f"cannot read {policy_doc.path.name}; fix it first")
    policy = IndexPolicy.parse(policy_doc.text)
    return render_policy_view(entries, policy, budget=budget)


def formatted_index(state: RootState, text: str) -> str | None:
    """The canonical text of a root's ``MEMORY.md`` currently holding ``text``.

    None when formatting must not touch it: a hand-curated legacy index, or a
    managed root whose policy view cannot be rendered.
    """
    managed = state.policy_path in state.documents
    if not managed and text and not is_generated_index(text):
        return None
    budget = None if managed else omission_budget(text)
    try:
        return render_root_view(state, budget=budget)
    except ValueError:
        if budget is None:
            return None
    try:  # a marker budget too small to render: the full rendering
        return render_root_view(state)
    except ValueError:
        return None


def formatted_entry(text: str, doc: Document | None = None) -> str | None:
    """The canonical serialization of an entry's text, or None when it must stay.

    None when the text is not an entry, fails gptme's strict parse, or its
    canonical form would not read back as the same entry.
    """
    path = doc.path if doc is not None else None
    scope = doc.root.scope if doc is not None else None
    parsed = parse_document(text, path=path, scope=scope)
    entry = parsed.entry
    if entry is None or parsed.strict_error is not None or parsed.unread_values is not None:
        return None
    canonical = entry.to_markdown()
    reread = parse_document(canonical, path=path, scope=scope)
    if reread.strict_error is not None or not _same_entry(reread.entry, entry):
        return None
    return canonical


def formatted_document(doc: Document) -> str | None:
    """The canonical text of any memory document, or None when it has none."""
    if doc.read_error is not None or doc.too_large:
        return None
    if doc.kind == "index":
        return formatted_index(doc.root, doc.text)
    if doc.kind in ("entry", "reserved"):
        return formatted_entry(doc.text, doc)
    return None


def _same_entry(a: MemoryEntry | None, b: MemoryEntry) -> bool:
    """Equal in every field a reader or writer uses (the body's outer blank lines aside)."""
    if a is None:
        return False
    return a == b or (
        a.body.strip("\n") == b.body.strip("\n")
        and _fields(a) == _fields(b)
    )


def _fields(entry: MemoryEntry) -> dict:
    values = dict(vars(entry))
    values.pop("body", None)
    return values


