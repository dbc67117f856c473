"""Field documentation and the JSON Schema of memory frontmatter, from one source.

Hover, completion, the README and the JSON Schema shipped with the VS Code
extension all describe the same fields; writing that prose once here keeps
them from telling different stories. The schema's *rules* are those of the
strict parser (``store/parse.py``, gptme's rules): a frontmatter the schema
accepts is one ``parse_document`` reports no strict problem for and the
catalogue reports no missing name or description for, and the other way
round. ``tests/store/test_schema.py`` holds that equivalence, so the two
cannot drift apart.

The committed copy (``store/schema/memory-frontmatter.schema.json``) is
regenerated with ``python -m memls.store.schema > store/schema/memory-frontmatter.schema.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .entry import CLAUDE_CODE_TYPES, DEFAULT_TYPE, KNOWN_KEYS, STATUSES
from .structs import struct

SCHEMA_PATH = Path(__file__).parent / "schema" / "memory-frontmatter.schema.json"
# An identifier, not an address: memls has no published home to serve it from.
SCHEMA_ID = "urn:memls:schema:memory-frontmatter"


@struct
class FieldDoc:
    """What one frontmatter field means, for people (hover, completion, schema)."""

    key: str
    summary: str  # one line
    markdown: str  # meaning, allowed values, an example
    values: tuple[str, ...] = ()  # the allowed (or suggested) values, when a closed list


STATUS_DOCS = {
    "living": "Current knowledge: listed in `MEMORY.md`, returned by recall.",
    "superseded": "Replaced by a newer entry, named in `superseded_by`. Kept for history, "
    "left out of the index and recall.",
    "historical": "No longer current and not replaced by anything. Kept for history, "
    "left out of the index and recall.",
}

TYPE_DOCS = {
    "user": "Who the user is: role, preferences, expertise (Claude Code type).",
    "feedback": "Guidance the user gave about how to work (Claude Code type).",
    "project": "Facts about the project: goals, decisions, deadlines (Claude Code type).",
    "reference": "Where to find things outside the repository (Claude Code type).",
    DEFAULT_TYPE: "Anything else; the type an entry has when none is written.",
}


def _doc(key: str, summary: str, body: str, example: str, values: tuple[str, ...] = ()) -> FieldDoc:
    markdown = f"**`{key}`** — {summary}\n\n{body}\n\nExample:\n\n```yaml\n{example}\n```"
    return FieldDoc(key=key, summary=summary, markdown=markdown, values=values)


def _value_list(docs: dict[str, str]) -> str:
    return "\n".join(f"- `{value}`: {text}" for value, text in docs.items())


FIELD_DOCS: dict[str, FieldDoc] = {
    doc.key: doc
    for doc in (
        _doc(
            "name", "The entry's identity: unique within its memory root.",
            "A non-empty string. Supersession links and `MEMORY.md` refer to the entry by it, "
            "and a nearer root's entry hides a farther root's entry of the same name. "
            "Keep it equal to the file name without `.md`; without this key the entry is "
            "named after its file, which changes if the file is renamed.",
            "name: prefer-uv-over-pip",
        ),
        _doc(
            "title", "Optional link text for the entry's `MEMORY.md` line (default: the name).",
            "A string; must not contain `]` or a line break, which would break the index line.",
            'title: "Use uv, not pip"',
        ),
        _doc(
            "description", "One line that says when the entry is worth reading. Required.",
            "A non-blank string, shown after the link in `MEMORY.md`: it is what an agent "
            "reads to decide whether to open the entry. Surrounding whitespace is dropped "
            "when read; quote it when it contains `: ` or starts with a YAML indicator.",
            'description: "Install Python packages with uv; pip breaks the lock file"',
        ),
        _doc(
            "type", "The entry's kind, Claude Code's older top-level form (prefer `metadata.type`).",
            "A string. Read when `metadata.type` is absent or empty; a rewrite keeps it where "
            "it is. Allowed values are free-form; Claude Code knows:\n\n" + _value_list(TYPE_DOCS),
            "type: feedback",
            (*CLAUDE_CODE_TYPES, DEFAULT_TYPE),
        ),
        _doc(
            "metadata", "Claude Code's metadata block: the entry's type and session details.",
            "A mapping. `type` is the entry's kind; every other key (such as "
            "`originSessionId`) is kept verbatim on rewrite.",
            "metadata:\n  type: project\n  originSessionId: 7b1c…",
        ),
        _doc(
            "metadata.type", "The entry's kind; `MEMORY.md` groups entries by it.",
            "A string, free-form; Claude Code's four types come first in the index, then "
            "`general`, then any other type in name order:\n\n" + _value_list(TYPE_DOCS),
            "metadata:\n  type: reference",
            (*CLAUDE_CODE_TYPES, DEFAULT_TYPE),
        ),
        _doc(
            "metadata.originSessionId", "The Claude Code session that wrote the entry.",
            "Any value; written by Claude Code, kept verbatim by memls and gptme.",
            "metadata:\n  originSessionId: 0f3a9c2e-…",
        ),
        _doc(
            "status", "Whether the entry is current knowledge.",
            "One of (default `living`):\n\n" + _value_list(STATUS_DOCS),
            "status: superseded",
            STATUSES,
        ),
        _doc(
            "supersedes", "Names of older entries (same root) this entry replaces.",
            "A name or a list of names. Each named entry should say `status: superseded` and "
            "`superseded_by:` this entry's name; supersession never crosses memory roots.",
            "supersedes:\n  - use-pip-tools",
        ),
        _doc(
            "superseded_by", "The name of the newer entry (same root) that replaces this one.",
            "A string. Set with `status: superseded`; the newer entry lists this one "
            "under `supersedes`.",
            "superseded_by: prefer-uv-over-pip",
        ),
        _doc(
            "provenance", "Where the knowledge came from: free-form details.",
            "A mapping of any keys (source, author, session, link...).",
            "provenance:\n  source: code review of PR 412",
        ),
        _doc(
            "confidence", "How sure the author is, from 0 to 1.",
            "A number between 0 and 1 inclusive (not `true`/`false`).",
            "confidence: 0.8",
        ),
        _doc(
            "keywords", "Phrases that trigger the entry in keyword matching and help recall.",
            "A string or a list of strings.",
            "keywords:\n  - uv\n  - pip install",
        ),
        _doc(
            "recheck", "When the entry should be verified again (free-form, usually a date).",
            "A string, never interpreted by gptme; `memls check` reports an ISO date "
            "(`YYYY-MM-DD`) that has passed. Quote a date: YAML reads an unquoted "
            "`2026-09-28` as a date, which strict parsing rejects.",
            'recheck: "2026-09-28"',
        ),
    )
}

assert set(KNOWN_KEYS) <= set(FIELD_DOCS), "every known key needs documentation"


def _described(key: str, schema: dict[str, Any]) -> dict[str, Any]:
    doc = FIELD_DOCS[key]
    return {"description": doc.summary, "markdownDescription": doc.markdown, **schema}


# YAML values Python treats as false. gptme resolves the type as
# ``metadata.type or type or "general"``, so a false ``metadata.type`` is
# ignored (whatever its type) and the top-level ``type`` is read instead.
_FALSY: dict[str, Any] = {"enum": [None, False, 0, "", [], {}]}
_STRING_OR_FALSY = {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/falsy"}]}
_NAME_LIST = {"type": ["string", "array", "null"], "items": {"type": "string"}}


def frontmatter_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an entry's frontmatter, as strict parsing reads it."""
    type_values = list(FIELD_DOCS["metadata.type"].values)
    properties: dict[str, Any] = {
        "name": _described("name", {"type": "string", "minLength": 1, "pattern": r"\S"}),
        "title": _described("title", {"type": ["string", "null"]}),
        "description": _described(
            "description", {"type": "string", "minLength": 1, "pattern": r"\S"}
        ),
        "type": _described("type", {"examples": type_values}),
        "metadata": _described(
            "metadata",
            {
                "type": ["object", "null"],
                "properties": {
                    "type": {
                        "description": FIELD_DOCS["metadata.type"].summary,
                        "markdownDescription": FIELD_DOCS["metadata.type"].markdown,
                        **_STRING_OR_FALSY,
                        "examples": type_values,
                        "enumDescriptions": [TYPE_DOCS[t] for t in type_values],
                    },
                    "originSessionId": {
                        "description": FIELD_DOCS["metadata.originSessionId"].summary,
                        "markdownDescription": FIELD_DOCS["metadata.originSessionId"].markdown,
                    },
                },
                "additionalProperties": True,
            },
        ),
        "status": _described(
            "status",
            {
                "enum": list(STATUSES),
                "enumDescriptions": [STATUS_DOCS[s] for s in STATUSES],
                "default": "living",
            },
        ),
        "supersedes": _described("supersedes", dict(_NAME_LIST)),
        "superseded_by": _described("superseded_by", {"type": ["string", "null"]}),
        "provenance": _described("provenance", {"type": ["object", "null"]}),
        "confidence": _described(
            "confidence", {"type": ["number", "null"], "minimum": 0, "maximum": 1}
        ),
        "keywords": _described("keywords", dict(_NAME_LIST)),
        "recheck": _described("recheck", {"type": ["string", "null"]}),
    }
    assert list(properties) == list(KNOWN_KEYS)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Memory entry frontmatter",
        "description": "The YAML frontmatter of a memory entry (gptme / Claude Code / memls). "
        "Unknown keys are allowed and kept on rewrite.",
        "type": "object",
        "required": ["name", "description"],
        "properties": properties,
        "additionalProperties": True,
        # The top-level ``type`` only matters when ``metadata.type`` is empty or absent.
        "if": {
            "required": ["metadata"],
            "properties": {
                "metadata": {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": {"type": "string", "minLength": 1}},
                }
            },
        },
        "else": {"properties": {"type": _STRING_OR_FALSY}},
        "$defs": {"falsy": _FALSY},
    }


def schema_text() -> str:
    """The schema file's exact text."""
    return json.dumps(frontmatter_json_schema(), indent=2) + "\n"


def main() -> None:
    sys.stdout.write(schema_text())


if __name__ == "__main__":
    main()
