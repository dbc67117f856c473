"""One memory entry: the value type every part of the store passes around.

The field set, defaults and JSON shape are gptme's (``gptme.memory.MemoryEntry``)
so code and tools written against gptme read memls entries unchanged. Two
fields are ours and never appear in the JSON form: ``extra`` keeps frontmatter
keys memls does not know, so a rewrite never drops them, and
``type_placement`` remembers whether the file wrote ``type`` at the top level
(older Claude Code builds) or under ``metadata`` (gptme, newer Claude Code).
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from .scalars import written_name
from .structs import struct
from .text import (
    LINE_BREAK_HAZARD,
    fold_line_breaks,
    has_line_break,
    index_line_hazards,
    index_safe_description,
    may_break_index_line,
)

DEFAULT_TYPE = "general"
DEFAULT_STATUS = "living"
# The description files memls created for the user to finish used to carry:
# a prompt, not a description. The check still reports it as missing and an
# automatic save keeps it out of MEMORY.md.
PLACEHOLDER_DESCRIPTION = "TODO: one line saying when this memory is worth reading"
# What a file memls creates ("Create entry" for a dangling link) carries
# instead: an empty description with this YAML comment after it, and the editor
# puts the cursor between the quotes. The prompt is visible, but no reader
# takes a comment for a description, so a manual save cannot publish it to
# MEMORY.md (and gptme renders the entry exactly as memls does).
DESCRIPTION_PROMPT = "# one line: when is this memory worth reading?"


def lacks_description(description: str) -> bool:
    """Whether ``description`` says nothing yet: empty, blank, or the placeholder."""
    return not description.strip() or description.strip() == PLACEHOLDER_DESCRIPTION
STATUSES = ("living", "superseded", "historical")
# Claude Code's four types; the index groups them first, in this order.
CLAUDE_CODE_TYPES = ("user", "feedback", "project", "reference")
TYPE_ORDER = (*CLAUDE_CODE_TYPES, DEFAULT_TYPE)
# Every top-level key whose meaning the store knows, in serialization order.
KNOWN_KEYS = (
    "name",
    "title",
    "description",
    "type",
    "metadata",
    "status",
    "supersedes",
    "superseded_by",
    "provenance",
    "confidence",
    "keywords",
    "recheck",
)


@struct(frozen=False)
class MemoryEntry:
    """One memory: its frontmatter fields and its Markdown body (gptme.memory's ``MemoryEntry``, plus memls's keys)."""

    name: str
    description: str = ""
    type: str = DEFAULT_TYPE
    body: str = ""
    title: str | None = None
    status: str = DEFAULT_STATUS
    supersedes: list[str] = field(default_factory=list)
    superseded_by: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None
    keywords: list[str] = field(default_factory=list)
    recheck: str | None = None
    # The Claude Code ``metadata`` block verbatim, minus ``type`` (lifted to ``type``).
    metadata: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    scope: str | None = None
    # memls additions: unknown top-level keys in file order, and where ``type`` lives.
    extra: dict[str, Any] = field(default_factory=dict)
    type_placement: Literal["metadata", "top"] = "metadata"

    @property
    def filename(self) -> str:
        return self.path.name if self.path is not None else f"{self.name}.md"

    @property
    def index_title(self) -> str:
        """Link text for the index line: the title when set, else the name."""
        return self.title or self.name

    @property
    def is_living(self) -> bool:
        return self.status == DEFAULT_STATUS

    def index_line(self) -> str:
        """The ``MEMORY.md`` pointer line, in Claude Code's shape.

        Always one line: a hand-written title or description holding a line
        break (a ``|`` block) is folded here, or its second half would be a
        stray line of the index that no reader ties to the entry (gptme
        writes it raw). ``unsafe-index-text`` still tells the user about it.
        Only an entry without :meth:`index_line_hazards` gets this line written.
        """
        title, description = self.index_title, self.description
        if may_break_index_line(title) is not None or may_break_index_line(description) is not None:
            title, description = self.index_parts()
        return f"- [{title}]({self.filename}) — {description}"

    def index_parts(self) -> tuple[str, str]:
        """The link text and the hook of :meth:`index_line`, as the line shows them.

        Line breaks are folded (both parts, when either holds one); the hook
        is made safe (:func:`memls.store.text.index_safe_description`), so
        only the link text and the file name can still make the line unsafe.
        """
        title, description = self.index_title, self.description
        if has_line_break(title) or has_line_break(description):
            title, description = fold_line_breaks(title), fold_line_breaks(description)
        return title, index_safe_description(description)

    def index_line_hazards(self) -> list[str]:
        """What would still break this entry's ``MEMORY.md`` line: empty when it may be written.

        The one rule every writer of an index follows (a rendering, a line
        added, a curated line refreshed): a link text holding a NUL, a
        bracket or a lone surrogate, or a file name or type (the heading above
        the line) no line can hold, keeps
        the entry out of ``MEMORY.md`` -- the rest of the index is written,
        and ``unsafe-index-text`` tells the user which entry and why.
        """
        title, filename, kind = self.index_title, self.filename, self.type
        if (may_break_index_line(title) is None and may_break_index_line(filename) is None
                and may_break_index_line(kind) is None):
            return []
        # The link text's line breaks are folded (index_parts); folding touches nothing else.
        # The type is the heading of the line's section: ``## Type``, one line too.
        hazards = [h for h in index_line_hazards(title, link_text=True) if h != LINE_BREAK_HAZARD]
        return hazards + index_line_hazards(filename, link_text=False) + index_line_hazards(kind, link_text=False)

    def to_markdown(self) -> str:
        """Render frontmatter + body. Field order is fixed so diffs stay small.

        Byte-identical to gptme for every entry gptme can represent; unknown
        keys follow the known ones in their original order, and a top-level
        ``type`` stays top-level, after ``description`` where Claude Code puts it.
        """
        lines = ["---", f"name: {written_name(self.name)}"]
        if self.title:
            lines.append(f"title: {quote_scalar(self.title)}")
        lines.append(f"description: {quote_scalar(self.description)}")
        if self.type_placement == "top":
            lines.append(dump_block({"type": self.type}, indent=0))
            meta: dict[str, Any] = dict(self.metadata)
        else:
            meta = {"type": self.type, **self.metadata}
        if meta:
            lines.append("metadata:")
            lines.append(dump_block(meta, indent=2))
        if self.status != DEFAULT_STATUS:
            lines.append(f"status: {self.status}")
        optional: dict[str, Any] = {}
        if self.supersedes:
            optional["supersedes"] = list(self.supersedes)
        if self.superseded_by:
            optional["superseded_by"] = self.superseded_by
        if self.provenance:
            optional["provenance"] = dict(self.provenance)
        if self.confidence is not None:
            optional["confidence"] = self.confidence
        if self.keywords:
            optional["keywords"] = list(self.keywords)
        if self.recheck:
            optional["recheck"] = self.recheck
        optional.update((k, v) for k, v in self.extra.items() if k not in KNOWN_KEYS)
        if optional:
            lines.append(dump_block(optional, indent=0))
        lines.append("---")
        lines.append("")
        text = "\n".join(lines) + "\n"
        body = self.body.strip("\n")
        return text + (body + "\n" if body else "")

    def to_dict(self) -> dict[str, Any]:
        """gptme's JSON shape (key order included); ``extra`` is not part of it."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "type": self.type,
            "status": self.status,
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "provenance": self.provenance,
            "confidence": self.confidence,
            "keywords": self.keywords,
            "recheck": self.recheck,
            "metadata": self.metadata,
            "path": str(self.path) if self.path else None,
            "scope": self.scope,
        }


# An entry's fields minus where it lives (``path``, ``scope``), as a plain tuple:
# what the entries cache stores, because a tuple of built-in values unpickles
# several times faster than the dataclass and its ``Path``.
EntryRecord = tuple


def entry_record(entry: MemoryEntry) -> EntryRecord:
    """The entry's fields except ``path`` and ``scope``, in declaration order."""
    return (
        entry.name, entry.description, entry.type, entry.body, entry.title, entry.status,
        entry.supersedes, entry.superseded_by, entry.provenance, entry.confidence,
        entry.keywords, entry.recheck, entry.metadata, entry.extra, entry.type_placement,
    )


def entry_from_record(record: EntryRecord, path: Path | None, scope: str | None) -> MemoryEntry:
    """The inverse of :func:`entry_record`, with the entry's place attached."""
    (name, description, type_, body, title, status, supersedes, superseded_by, provenance,
     confidence, keywords, recheck, metadata, extra, type_placement) = record
    return MemoryEntry(
        name, description, type_, body, title, status, supersedes, superseded_by,
        provenance, confidence, keywords, recheck, metadata, path, scope, extra, type_placement,
    )


def quote_scalar(value: str) -> str:
    """gptme's double-quoting: escape ``\\`` and ``"`` and nothing else."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dump_block(data: dict[str, Any], indent: int) -> str:
    """A YAML block exactly as gptme dumps its metadata and optional fields."""
    import yaml  # here, not at the top: most reads never dump YAML

    dumped = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000)
    pad = " " * indent
    return "\n".join(pad + line for line in dumped.rstrip("\n").splitlines())
