"""Completion inside an entry's frontmatter: link names, status and type values, keys.

What is offered where, in which order and with what inserted text is the
engine's decision; the server only converts positions. The frontmatter is
read line by line (:mod:`memls.store.frontmatter_lines`), because a document
is rarely valid YAML at the moment completion is asked for.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from .entry import KNOWN_KEYS, STATUSES, TYPE_ORDER
from .frontmatter_lines import (
    LineField,
    document_text,
    frontmatter_region,
    line_field,
    scan_nested_keys,
    scan_top_values,
)
from .model import Document, RootState, Workspace
from .schema import FIELD_DOCS, STATUS_DOCS, TYPE_DOCS
from .spans import Span
from .structs import struct

_METADATA_KEYS = ("type", "originSessionId")
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Plain scalars YAML 1.1 would not read back as the same string.
_YAML_SPECIAL = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
)
_NUMBER_LIKE = re.compile(r"^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$|^0[xob]|^\d+:\d|^\d{4}-\d\d-\d\d")


@struct
class CompletionCandidate:
    """One completion at a position in an entry's frontmatter: an entry name, a value or a key."""

    label: str
    kind: Literal["entry", "value", "key"]
    detail: str
    documentation: str
    insert_text: str
    sort_text: str
    replace_span: Span | None = None
    deprecated: bool = False


def completions(ws: Workspace, path: Path, line: int, col: int) -> list[CompletionCandidate]:
    """Candidates at a position inside an entry's frontmatter ([] elsewhere)."""
    doc = ws.document(path)
    if doc is None or doc.kind not in ("entry", "reserved"):
        return []
    text = document_text(doc)
    lines = text.split("\n")
    region = frontmatter_region(doc, lines)
    if region is None or not region[0] <= line < region[1] or line >= len(lines):
        return []
    field = line_field(lines, region[0], line, col)
    if field is None:
        return []
    if field.part == "key":
        return _key_candidates(lines, region, field)
    if field.key in ("supersedes", "superseded_by"):
        return _entry_candidates(doc, lines, region, field)
    if field.key == "status":
        return _value_candidates(field, [(s, STATUS_DOCS[s]) for s in STATUSES])
    if field.key in ("type", "metadata.type"):
        return _value_candidates(field, _type_values(doc.root, doc.path))
    return []


def _entry_candidates(
    doc: Document, lines: list[str], region: tuple[int, int], field: LineField
) -> list[CompletionCandidate]:
    root = doc.root
    own = doc.name or scan_top_values(lines, region).get("name")
    exclude = {own} if own else set()
    entry = doc.entry
    if field.key == "supersedes" and entry is not None:
        exclude |= {name for name in entry.supersedes if name != field.text}
    out = []
    for name, paths in root.by_name.items():
        if name in exclude:
            continue
        target = root.documents[paths[0]].entry
        if target is None:
            continue
        out.append(
            CompletionCandidate(
                label=name,
                kind="entry",
                detail=f"{target.type} · {target.status}",
                documentation=target.description,
                insert_text=field.lead + _yaml_name(name),
                sort_text=("0" if target.is_living else "1") + name,
                replace_span=field.span,
                deprecated=target.status == "superseded",
            )
        )
    out.sort(key=lambda c: c.sort_text)
    return out


def _value_candidates(
    field: LineField, values: list[tuple[str, str]]
) -> list[CompletionCandidate]:
    return [
        CompletionCandidate(
            label=value,
            kind="value",
            detail=f"{field.key} value",
            documentation=doc,
            insert_text=field.lead + value,
            sort_text=f"{i:03d}",
            replace_span=field.span,
        )
        for i, (value, doc) in enumerate(values)
    ]


def _type_values(root: RootState, editing: Path | None = None) -> list[tuple[str, str]]:
    """Claude Code's types and ``general``, then the other types this root uses.

    The document being edited does not count: its half-typed value is not a type
    the root uses yet.
    """
    used = set()
    for paths in root.by_name.values():
        if paths[0] == editing:
            continue
        entry = root.documents[paths[0]].entry
        if entry is not None:
            used.add(entry.type)
    values = [(t, TYPE_DOCS[t]) for t in TYPE_ORDER]
    values += [(t, "used in this memory root") for t in sorted(used - set(TYPE_ORDER)) if t]
    return values


def _key_candidates(
    lines: list[str], region: tuple[int, int], field: LineField
) -> list[CompletionCandidate]:
    if field.key.startswith("metadata."):
        present = scan_nested_keys(lines, region, field.span.start_line, "metadata")
        keys = [(k, f"metadata.{k}") for k in _METADATA_KEYS if k not in present]
    else:
        present = set(scan_top_values(lines, region))
        keys = [(k, k) for k in KNOWN_KEYS if k not in present]
    return [
        CompletionCandidate(
            label=key,
            kind="key",
            detail=FIELD_DOCS[doc_key].summary,
            documentation=FIELD_DOCS[doc_key].markdown,
            insert_text=f"{key}: ",
            sort_text=f"{i:03d}",
            replace_span=field.span,
        )
        for i, (key, doc_key) in enumerate(keys)
    ]


def _yaml_name(name: str) -> str:
    """``name`` as a YAML scalar that reads back as the same string."""
    if (
        _PLAIN_NAME.match(name)
        and name.lower() not in _YAML_SPECIAL
        and not _NUMBER_LIKE.match(name)
    ):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
