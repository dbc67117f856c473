"""gptme's older knowledge store (JSONL) as memory entries, converted as gptme converts it.

gptme kept problem/resolution records in ``<data dir>/knowledge/entries.jsonl``
before its memory store, and ships ``gptme-util memory migrate-knowledge-jsonl``
to move them over. memls does the same conversion so a user can run either
tool and get the same entries: same names, descriptions, bodies, keywords
and provenance. Only the save differs, and only where memls's save refuses
what gptme's readers would not see (a name gptme's slug turns into
``memory``, say).

The conversion is a pure function of the file's records; the store writes.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from dataclasses import field
from pathlib import Path
from typing import Any

from .names import slugify
from .structs import struct

# Section headings by the record's entry_type (gptme's knowledge labels): the
# body keeps what the two text fields meant.
ENTRY_TYPE_LABELS: dict[str, tuple[str, str]] = {
    "problem_resolution": ("Problem", "Resolution"),
    "decision": ("Decision", "Rationale"),
    "fact": ("Topic", "Fact"),
    "how_to": ("Task", "Steps"),
    "note": ("Title", "Content"),
}
DEFAULT_ENTRY_TYPE = "problem_resolution"
SLUG_SOURCE_CHARS = 80
DESCRIPTION_WIDTH = 120
PROVENANCE_SOURCE = "knowledge-jsonl"


@struct
class MigratedEntry:
    """One knowledge record as the arguments of a memory save."""

    name: str
    description: str
    body: str
    keywords: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)


def gptme_data_dir(env: dict[str, str] | None = None, home: Path | None = None) -> Path:
    """gptme's data directory, where its knowledge store lives.

    ``XDG_DATA_HOME`` (blank or whitespace counts as unset, so no relative
    path), else ``~/.local/share/gptme`` -- on macOS only when it exists,
    else the platform's application data folder.
    """
    env = dict(os.environ) if env is None else env
    home = Path.home() if home is None else home
    xdg = env.get("XDG_DATA_HOME", "").strip()
    if xdg:
        return Path(xdg) / "gptme"
    local = home / ".local" / "share" / "gptme"
    if sys.platform == "darwin" and not local.exists():
        return home / "Library" / "Application Support" / "gptme"
    return local


def default_knowledge_path() -> Path:
    return gptme_data_dir() / "knowledge" / "entries.jsonl"


def knowledge_records(text: str) -> list[dict[str, Any]]:
    """The records of a knowledge JSONL text that can be migrated.

    A line that is not JSON, or not an object with a string ``problem``, is
    passed over: the knowledge store itself wrote such lines only by accident.
    """
    records = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("problem"), str):
            records.append(record)
    return records


def _string_list(value: object) -> list[str]:
    """A tags/keywords field as strings; a hand-written scalar stays whole, never split."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, (list, tuple, set)):
        return [v for v in value if isinstance(v, str)]
    return []


def migrated_entries(records: list[dict[str, Any]]) -> list[MigratedEntry]:
    """Each record as a ``general`` entry, in file order.

    The name is the slug of the problem's first 80 characters; a name an
    earlier record of the same file took gets the record's id (first 8
    characters) or, without an id, its position appended, so two similar
    problems never overwrite each other.
    """
    seen: set[str] = set()
    result = []
    for position, record in enumerate(records):
        problem: str = record["problem"]
        raw_type = record.get("entry_type")
        entry_type = raw_type if isinstance(raw_type, str) and raw_type else DEFAULT_ENTRY_TYPE
        original_id = record.get("id", "")
        created_at = record.get("created_at", "")
        keywords = list(dict.fromkeys(_string_list(record.get("tags")) + _string_list(record.get("keywords"))))

        name = slugify(problem[:SLUG_SOURCE_CHARS])
        if not name:
            name = f"knowledge-{str(original_id)[:8]}" if original_id else "knowledge-entry"
        if name in seen:
            name = f"{name}-{str(original_id)[:8] if original_id else position}"
        seen.add(name)

        primary, secondary = ENTRY_TYPE_LABELS.get(entry_type, ENTRY_TYPE_LABELS[DEFAULT_ENTRY_TYPE])
        body = f"## {primary}\n\n{problem}\n\n## {secondary}\n\n{record.get('resolution', '')}\n"
        provenance: dict[str, Any] = {"source": PROVENANCE_SOURCE}
        if entry_type != DEFAULT_ENTRY_TYPE:
            provenance["original_entry_type"] = entry_type
        if original_id:
            provenance["original_id"] = original_id
        if created_at:
            provenance["migrated_from_created_at"] = created_at
        result.append(MigratedEntry(
            name=name,
            description=textwrap.shorten(problem, width=DESCRIPTION_WIDTH, placeholder="…"),
            body=body,
            keywords=keywords,
            provenance=provenance,
        ))
    return result
