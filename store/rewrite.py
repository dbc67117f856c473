"""A changed entry as edits of its file: how every write changes an existing entry.

A write (``save`` over an entry, ``supersede``, ``rename``, ``historical``, the
re-linking of neighbours) changes a few fields of an entry that is already a
file. Serializing the whole entry again would drop what the entry value does
not hold -- the user's comments, key order and quoting, a body that does not
start with a blank line, CRLF line endings -- so the new text is the old text
with exactly the keys whose values changed edited, and every other byte kept.

Each changed key is written as gptme writes it (the spelling is taken from
``MemoryEntry.to_markdown()`` of the new entry, the one serializer) and a new
key goes where gptme puts it: after the last present key that gptme writes
before it. A file in gptme's own layout (any file either tool wrote) therefore
comes out byte-identical to gptme's serialization of the new entry. Lists
change item by item where they can (an appended successor, a retargeted
link), so a comment after ``supersedes: [a, b]`` stays on its line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .diagnostics import TextEdit
from .edits import apply_edits, content_start
from .entry import KNOWN_KEYS, MemoryEntry
from .frontmatter import Frontmatter, split_frontmatter
from .parse import parse_document
from .spans import KeySpans, Span

# Entry fields whose key is the field's own name.
_SAME_NAMED = (
    "name", "title", "description", "status", "supersedes", "superseded_by",
    "provenance", "confidence", "keywords", "recheck",
)
_LISTS = ("supersedes", "keywords")
_NO_PATH = Path()
# Past any line: an edit span ending here runs to the end of the text.
_END = 1 << 62


def rewritten_text(text: str, new: MemoryEntry) -> str | None:
    """``text`` (an entry file's current text) edited so that it holds ``new``.

    ``text`` may be the file's own text (a byte-order mark, CRLF breaks): every
    byte outside the changed keys is kept. None when the file offers no place
    to edit (no loadable frontmatter mapping, or a change to unknown keys or to
    where ``type`` lives, which no writer makes); the caller then writes the
    whole entry. The caller also proves the result reads back as ``new``.
    """
    doc = parse_document(text)
    old, fm = doc.entry, doc.frontmatter
    if old is None or fm is None or fm.error is not None or not isinstance(fm.data, dict):
        return None
    if old.extra != new.extra or old.type_placement != new.type_placement:
        return None
    canonical = new.to_markdown()
    target = split_frontmatter(canonical)
    if target is None:
        return None
    plan = _Plan(doc.text.split("\n"), fm, canonical.split("\n"), target)
    try:
        edits = [edit for key in _changed_keys(old, new) for edit in plan.key_edits(key)]
    except _NoMinimalEdit:
        return None
    if old.body != new.body.strip("\n"):
        edits.append(plan.body_edit())
    return apply_edits(text, edits)


def _changed_keys(old: MemoryEntry, new: MemoryEntry) -> list[str]:
    """The top-level keys whose values differ between two entries, in gptme's order."""
    changed = {key for key in _SAME_NAMED if getattr(old, key) != getattr(new, key)}
    if old.type_placement == "top":
        if old.type != new.type:
            changed.add("type")
        if old.metadata != new.metadata:
            changed.add("metadata")
    elif (old.type, old.metadata) != (new.type, new.metadata):
        changed.add("metadata")
    return [key for key in KNOWN_KEYS if key in changed]


class _NoMinimalEdit(Exception):
    """The file's layout leaves no safe place for one key's edit."""


class _Plan:
    """Edits turning one file's keys into the canonical text's keys."""

    def __init__(self, lines: list[str], fm: Frontmatter, canonical: list[str], target: Frontmatter):
        self.lines = lines
        self.fm = fm
        self.canonical = canonical
        self.target = target

    def key_edits(self, key: str) -> Iterator[TextEdit]:
        old = self.fm.keys.get(key)
        new = self.target.keys.get(key)
        if old is None and new is None:
            return
        if old is not None and old.key.start_col != 0:
            raise _NoMinimalEdit  # not a plain top-level block mapping
        if new is None:
            assert old is not None  # both absent returned above
            yield _edit(Span(old.key.start_line, 0, value_end(old)[0] + 1, 0), "")
        elif old is None:
            line = self._insert_line(key)
            yield _edit(Span(line, 0, line, 0), self._key_text(new) + "\n")
        elif key in _LISTS:
            yield from self._list_edits(key, old, new)
        else:
            yield self._replace(old, new)

    def body_edit(self) -> TextEdit:
        """Everything after the closing ``---`` as gptme writes it for the new body."""
        closing = self.fm.block
        tail = "\n" + "\n".join(self.canonical[self.target.block.end_line + 1 :])
        return _edit(Span(closing.end_line, closing.end_col, _END, 0), tail)

    def _key_text(self, spans: KeySpans) -> str:
        end_line, _ = value_end(spans)
        return "\n".join(self.canonical[spans.key.start_line : end_line + 1])

    def _replace(self, old: KeySpans, new: KeySpans) -> TextEdit:
        """The key and its value replaced; a comment after the value stays."""
        return _edit(Span(old.key.start_line, 0, *value_end(old)), self._key_text(new))

    def _insert_line(self, key: str) -> int:
        """The line a new key goes on: after the last present key gptme writes before it."""
        rank = _rank(key)
        before = [s for k, s in self.fm.keys.items() if _rank(k) < rank]
        if not before:
            return self.fm.content_start_line
        return max(value_end(s)[0] for s in before) + 1

    def _list_edits(self, key: str, old: KeySpans, new: KeySpans) -> Iterator[TextEdit]:
        """Item edits when the list only grew, shrank or had items replaced; else the whole key."""
        before = self.fm.data.get(key)
        after = self._canonical_items(key, new)
        if not isinstance(before, list) or not before or not old.items or after is None:
            yield self._replace(old, new)
            return
        values = [value for value, _ in after]
        flow = self._is_flow(old)
        if len(values) > len(before) and values[: len(before)] == before:
            yield self._append(old, after[len(before) :], flow)
        elif len(values) == len(before):
            for (value, text), was, span in zip(after, before, old.items, strict=True):
                if value != was:
                    if span.start_line != span.end_line:
                        raise _NoMinimalEdit
                    yield _edit(span, _flow_item(value) if flow else text)
        elif _is_subsequence(values, before) and not flow:
            kept = list(values)
            for was, span in zip(before, old.items, strict=True):
                if kept and kept[0] == was:
                    kept.pop(0)
                    continue
                if not self._own_line(span):
                    raise _NoMinimalEdit
                yield _edit(Span(span.start_line, 0, span.end_line + 1, 0), "")
        else:
            yield self._replace(old, new)

    def _append(self, old: KeySpans, items: list[tuple[str, str]], flow: bool) -> TextEdit:
        last = old.items[-1]
        if flow:
            text = "".join(", " + _flow_item(value) for value, _ in items)
            return _edit(Span(last.end_line, last.end_col, last.end_line, last.end_col), text)
        if not self._own_line(old.items[0]):
            raise _NoMinimalEdit
        indent = " " * old.value.start_col
        line = old.value.end_line + 1
        return _edit(Span(line, 0, line, 0), "".join(f"{indent}- {text}\n" for _, text in items))

    def _canonical_items(self, key: str, spans: KeySpans) -> list[tuple[str, str]] | None:
        """(value, its block-list spelling) per canonical item; None if one spans lines."""
        values = self.target.data.get(key)
        if not isinstance(values, list) or len(values) != len(spans.items):
            return None
        out = []
        for value, item in zip(values, spans.items, strict=True):
            if item.start_line != item.end_line:
                return None
            out.append((value, self.canonical[item.start_line][item.start_col : item.end_col]))
        return out

    def _is_flow(self, spans: KeySpans) -> bool:
        line = self.lines[spans.value.start_line]
        start = content_start(line, spans.value.start_col)  # after ``&lst`` or ``!!seq``
        return line[start : start + 1] == "["

    def _own_line(self, item: Span) -> bool:
        """Whether a block item's ``- `` starts its line (no ``- - x`` or ``key: - x``)."""
        line = self.lines[item.start_line]
        return line[: item.start_col].strip() == "-" and item.start_line == item.end_line


def _rank(key: str) -> int:
    return KNOWN_KEYS.index(key) if key in KNOWN_KEYS else len(KNOWN_KEYS)


def value_end(spans: KeySpans) -> tuple[int, int]:
    """Where a key's text ends: its value's end, or just past the key for an empty value."""
    value, key = spans.value, spans.key
    if (value.start_line, value.start_col) == (value.end_line, value.end_col) and value.start_line != key.end_line:
        return key.end_line, key.end_col + 1
    return value.end_line, value.end_col


def _flow_item(value: str) -> str:
    """``value`` spelled as an item of a flow list (``[a, b]``)."""
    import yaml  # here, not at the top: a start that rewrites nothing does not load YAML

    dumped = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, width=10_000).strip()
    if "\n" in dumped:
        raise _NoMinimalEdit
    return dumped[1:-1]


def _is_subsequence(short: list, long: list) -> bool:
    it = iter(long)
    return all(any(item == other for other in it) for item in short)


def _edit(span: Span, text: str) -> TextEdit:
    """An edit of the one text being rewritten (``apply_edits`` ignores the path)."""
    return TextEdit(_NO_PATH, span, text)
