"""Hover: what a link points at, or what a frontmatter key means.

On a link (a ``supersedes`` item, a ``superseded_by`` value, a ``MEMORY.md``
pointer, the entry's own name) the hover shows the entry it lands on -- its
title, description, type and status, and the supersession chain through it;
on a key it shows the field's documentation from the schema.
"""

from __future__ import annotations

from pathlib import Path

from .frontmatter_lines import key_at
from .links import entry_chain, in_doubt, reference_at, resolve
from .model import Document, Workspace
from .schema import FIELD_DOCS
from .spans import Span
from .structs import struct


@struct
class HoverInfo:
    """A hover's Markdown text and the span it is about."""

    markdown: str
    span: Span


def hover(ws: Workspace, path: Path, line: int, col: int) -> HoverInfo | None:
    """What a reference points at, or what a frontmatter key means."""
    doc = ws.document(path)
    if doc is None:
        return None
    ref = reference_at(ws, path, line, col)
    if ref is not None:
        target = resolve(doc, ref)
        if target is None:
            doubted = in_doubt(doc, ref)
            if ref.kind == "index":
                text = f"no entry file '{ref.index_target}' in this root"
            elif doubted:
                files = ", ".join(d.path.name for d in doubted)
                text = f"'{ref.name}' may be the entry of {files}, whose frontmatter does not load: fix its YAML"
            else:
                text = f"no entry named '{ref.name}' in this root"
            return HoverInfo(text, ref.span)
        return HoverInfo(_entry_markdown(ws, target), ref.span)
    if doc.kind not in ("entry", "reserved"):
        return None
    key = key_at(doc, line, col)
    if key is None:
        return None
    field_key, span = key
    field = FIELD_DOCS.get(field_key)
    if field is not None:
        return HoverInfo(field.markdown, span)
    if "." not in field_key:
        return HoverInfo(
            f"**`{field_key}`** is not a field memls knows; it is kept unchanged on every rewrite.",
            span,
        )
    return None


def _entry_markdown(ws: Workspace, target: Document) -> str:
    entry = target.entry
    assert entry is not None
    heading = f"**{entry.title}** (`{entry.name}`)" if entry.title else f"**{entry.name}**"
    parts = [heading]
    if entry.description:
        parts.append(entry.description)
    parts.append(f"type: `{entry.type}` · status: `{entry.status}`")
    chain = entry_chain(ws, target)
    if len(chain) > 1:
        names = [
            f"**{d.name}**" if d is target else str(d.name) for d in chain
        ]
        parts.append("Supersession: " + " → ".join(names))
    return "\n\n".join(parts)
