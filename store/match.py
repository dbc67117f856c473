"""Keyword-triggered delivery: surface a memory when its trigger phrase appears.

Recall answers "what do I know about this?"; match answers "is there a rule
I must see before doing this?". So match is deliberately literal: only an
entry's ``keywords`` trigger it (never its name, description or body), with
the semantics of gptme's lesson keywords, so a keyword behaves the same in
gptme's lessons, gptme's memory and memls:

* case-insensitive substring search, no word boundaries ("err" hits "error");
* the keyword is whitespace-trimmed; ``*`` stands for zero or more word
  characters (never a space or punctuation), every other character is literal;
* a blank keyword or a lone ``*`` never matches (it would match everything);
* each matching keyword adds 1.0 and is reported as ``keyword:<as stored>``.

The module also reads Claude Code hook payloads, because which part of a
payload may trigger a memory is part of match's meaning: for a tool call,
only the tool's input, never the envelope (cwd, session id) around it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .entry import MemoryEntry
from .recall import DEFAULT_BODY_CHARS, EntrySource, truncate
from .structs import struct

DEFAULT_MATCH_LIMIT = 5


@struct
class MemoryMatch:
    """A living entry and the keywords that triggered it."""

    entry: MemoryEntry
    score: float
    matched_by: list[str]

    def to_dict(self) -> dict[str, Any]:
        """gptme's JSON shape for a match hit (entry fields, body, then ranking)."""
        return {
            **self.entry.to_dict(),
            "body": self.entry.body,
            "score": self.score,
            "matched_by": self.matched_by,
        }


def keyword_pattern(keyword: str) -> re.Pattern[str] | None:
    """The search pattern for one keyword, or None for a keyword that never matches."""
    keyword = keyword.strip()
    if not keyword or keyword == "*":
        return None
    literal = re.escape(keyword.lower()).replace(r"\*", r"\w*")
    return re.compile(literal, re.IGNORECASE)


def match_memories(
    store: EntrySource, text: str, *, limit: int = DEFAULT_MATCH_LIMIT
) -> list[MemoryMatch]:
    """Match the living entries of every layered root of ``store`` against ``text``.

    Shadowing happens before the status filter, so a nearer historical entry
    still hides a farther living one of the same name: this takes the
    store's full layered list and keeps the living entries itself. Index
    selection plays no part; an unselected entry still triggers.
    """
    _check_limit(limit)
    return match_entries(store.entries(), text, limit=limit)


def match_entries(
    entries: Sequence[MemoryEntry], text: str, *, limit: int = DEFAULT_MATCH_LIMIT
) -> list[MemoryMatch]:
    """Match the living, keyworded entries among ``entries`` (already shadowed).

    Order: score descending; equal scores by name, and entries of the same
    name keep the order given. An entry listed twice under the same path
    counts once (the later one wins, as in gptme).
    """
    _check_limit(limit)
    if not text.strip():
        return []
    haystack = text.lower()
    candidates: dict[object, MemoryEntry] = {}
    for position, entry in enumerate(entries):
        if entry.keywords and entry.is_living:
            key = entry.path if entry.path is not None else position
            candidates[key] = entry
    patterns: dict[str, re.Pattern[str] | None] = {}  # per call; keywords repeat
    matches = []
    for entry in candidates.values():
        matched_by = []
        for keyword in entry.keywords:
            if not isinstance(keyword, str):
                continue
            if keyword not in patterns:
                patterns[keyword] = keyword_pattern(keyword)
            pattern = patterns[keyword]
            if pattern is not None and pattern.search(haystack):
                matched_by.append(f"keyword:{keyword}")
        if matched_by:
            matches.append(MemoryMatch(entry, float(len(matched_by)), matched_by))
    matches.sort(key=lambda match: (-match.score, match.entry.name))
    return matches[:limit]


def render_matches(
    matches: Sequence[MemoryMatch], *, body_chars: int = DEFAULT_BODY_CHARS
) -> str:
    """The bounded context block a harness injects (gptme's exact layout).

    Unlike recall's one-line summaries, a triggered memory is a rule to
    follow, so its body keeps its lines; only its length is bounded.
    """
    if body_chars <= 0:
        raise ValueError("body_chars must be positive")
    if not matches:
        return ""
    blocks = ["<memory_triggered_entries>", "## Triggered Memories"]
    for match in matches:
        entry = match.entry
        blocks.append(f"### {entry.index_title}")
        blocks.append(f"Source: {entry.path} (scope: {entry.scope})")
        blocks.append(truncate(entry.body.strip() or entry.description, body_chars))
    blocks.append("</memory_triggered_entries>")
    return "\n\n".join(blocks)


# -- hook payloads ------------------------------------------------------------


def hook_event_text(payload_text: str, *, default_event: str) -> tuple[str, str]:
    """(event name, text to match) from what a hook wrote on stdin.

    * not JSON: the raw text, with ``default_event``;
    * JSON but not an object: no text (a hook payload is always an object);
    * the event is the payload's ``hook_event_name`` when it is a string,
      else ``default_event``;
    * ``PreToolUse``: every string value anywhere under ``tool_input`` (which
      must be an object), in document order, one per line. The envelope
      (cwd, session_id, transcript_path, tool_name) never triggers: it says
      where the agent is, not what it is about to do;
    * ``UserPromptSubmit``: ``prompt`` when it is a string;
    * any other event: no text, but the event is still returned so the hook
      answers in the event it was asked about.

    JSON nested too deeply for the parser counts as no text.
    """
    payload, is_json = _parse_payload(payload_text)
    if not is_json:
        return payload_text, default_event
    if not isinstance(payload, dict):
        return "", default_event
    event = payload.get("hook_event_name")
    if not isinstance(event, str):
        event = default_event
    if event == "PreToolUse":
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict):
            return "", event
        return "\n".join(_string_values(tool_input)), event
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")
        return (prompt if isinstance(prompt, str) else ""), event
    return "", event


def recall_prompt_text(payload_text: str) -> str:
    """The query ``recall --prompt -`` reads from stdin.

    A JSON object gives its ``prompt`` (when a string), any other JSON gives
    nothing, and text that is not JSON is the query itself.
    """
    payload, is_json = _parse_payload(payload_text)
    if not is_json:
        return payload_text
    if isinstance(payload, dict):
        prompt = payload.get("prompt")
        return prompt if isinstance(prompt, str) else ""
    return ""


def _parse_payload(payload_text: str) -> tuple[Any, bool]:
    """(value, True) for JSON, (None, False) for anything else."""
    try:
        return json.loads(payload_text), True
    except json.JSONDecodeError:
        return None, False
    except RecursionError:  # valid-looking JSON, too deep to be a real payload
        return None, True


def _string_values(root: object) -> list[str]:
    """Every string value under ``root`` in document order (keys excluded).

    Iterative, so a deeply nested tool input cannot hit the recursion limit.
    """
    values: list[str] = []
    pending: list[object] = [root]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            values.append(value)
        elif isinstance(value, dict):
            pending.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            pending.extend(reversed(value))
    return values


def _check_limit(limit: int) -> None:
    if limit <= 0:
        raise ValueError("limit must be positive")
