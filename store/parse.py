"""Read an entry file: the lenient entry every reader sees, and every strict problem.

gptme reads a file two ways. Readers (list, show, recall, the index) are
*lenient*: they coerce odd values and fall back to a line parser when the YAML
does not load, so one stray colon never hides a memory. Writers and ``audit``
are *strict*: the first value of the wrong type raises, so nothing is
rewritten on top of a file whose meaning is in doubt. memls computes both from
one YAML load per document, and collects *every* strict violation rather than
the first, because an editor shows all of them at once.

The rules, coercions and messages are gptme's (``reference/gptme-memory.md``
2.2); the check order is gptme's too, so the first problem is the one gptme's
strict parse raises. Beyond gptme, unknown top-level keys are kept in
``MemoryEntry.extra`` and a top-level ``type`` is remembered, so a rewrite
loses neither.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from .entry import (
    DEFAULT_STATUS,
    DEFAULT_TYPE,
    DESCRIPTION_PROMPT,
    KNOWN_KEYS,
    PLACEHOLDER_DESCRIPTION,
    STATUSES,
    MemoryEntry,
)
from .errors import MemoryFrontmatterError, MemoryParseError
from .frontmatter import Frontmatter, load_yaml, normalize_text, read_document_text, split_frontmatter
from .names import slugify
from .spans import Span, YamlProblem
from .structs import struct

# gptme's fallback for YAML it cannot load: ``key: value`` lines, one level of nesting.
_KEY_VALUE_LINE = re.compile(
    r"^(?P<indent> *)(?P<key>[A-Za-z_][A-Za-z0-9_-]*):[ \t]*(?P<value>.*)$"
)
_QUOTES = "'\""

NOT_A_MAPPING = "invalid YAML: frontmatter is not a mapping"
STATUS_EXPECTED = f"invalid status: expected one of {', '.join(STATUSES)}"
# Records one strict violation: (field, what was expected).
_Violation = Callable[[str, str], None]

# gptme's message for a file without a frontmatter block, followed by its path.
NO_FRONTMATTER = "no frontmatter: "


@struct
class FieldProblem:
    """One strict violation: the top-level key it is about ("" for the whole YAML)."""

    field: str
    message: str


@struct(frozen=False)
class ParsedDocument:
    """Everything the store knows about one document after a single parse."""

    text: str
    path: Path | None
    scope: str | None
    frontmatter: Frontmatter | None
    # The lenient entry: what list / show / recall / the index see.
    entry: MemoryEntry | None
    # Why the text is not an entry for the lenient readers (``entry`` is None).
    not_entry: str | None
    # Every strict violation in gptme's check order; [] when strict parsing passes.
    strict_problems: list[FieldProblem]
    # When strict parsing finds the text is not an entry at all ("no
    # frontmatter", "empty frontmatter", "entry has no name"): that message,
    # and how many of ``strict_problems`` gptme would raise before reaching it.
    strict_not_entry: str | None = None
    strict_not_entry_after: int = 0
    # When the YAML does not load: the name the lines before the failure state
    # for certain (see ``_name_before``), else None. The lenient ``entry`` is a
    # guess from a line parser; other entries are told only this.
    name_before_error: str | None = None

    # What the model files a document under (``loaded`` and below) is computed
    # once per parse and kept in the instance's ``__dict__``, which the
    # documents cache pickles with the parse: a warm start then files 10k
    # entries without slugifying a name or reading a link again. Each is a
    # function of the parse alone, which is never changed once made.

    @cached_property
    def loaded(self) -> bool:
        """Whether the frontmatter loaded as a mapping, so every field is what the file says.

        Otherwise ``entry`` (if any) comes from gptme's line fallback, which
        reads ``supersedes: [a]`` as the name ``'[a]'``: fine for a reader that
        must show something, not a fact to check other entries against.
        """
        fm = self.frontmatter
        return fm is not None and fm.error is None and isinstance(fm.data, dict)

    @cached_property
    def stated_name(self) -> str | None:
        """The name this text states for certain (None: none, or in doubt).

        The entry's name when the frontmatter loaded; otherwise the name the
        lines before the YAML failure state (``name_before_error``), never the
        line fallback's guess.
        """
        if self.loaded:
            return self.entry.name if self.entry is not None else None
        return self.name_before_error

    @cached_property
    def slug(self) -> str | None:
        """The slug of :attr:`stated_name` (the file a save of it writes, minus ``.md``)."""
        name = self.stated_name
        if name is None:
            return None
        slug = slugify(name)
        return name if slug == name else slug  # one string, not two, in the documents cache

    @cached_property
    def successor(self) -> str | None:
        """``superseded_by`` as the loaded frontmatter writes it: a non-empty string, else None.

        A value of another type is the frontmatter checks' problem; the
        reader's ``str()`` of it (``'None'``, ``'[a]'``) names no entry.
        """
        value = self._written("superseded_by")
        return value if isinstance(value, str) and value else None

    @cached_property
    def predecessors(self) -> tuple[tuple[int, str], ...]:
        """``supersedes`` items that are strings, with their index in the list (a bare string is item 0)."""
        value = self._written("supersedes")
        if isinstance(value, str):
            return ((0, value),)
        if isinstance(value, list):
            return tuple((i, item) for i, item in enumerate(value) if isinstance(item, str))
        return ()

    @cached_property
    def links(self) -> frozenset[str]:
        """Every name :attr:`predecessors` and :attr:`successor` point at."""
        out = {name for _, name in self.predecessors}
        successor = self.successor
        if successor:
            out.add(successor)
        return frozenset(out)

    def _written(self, key: str) -> Any:
        if self.entry is None or not self.loaded:
            return None
        assert self.frontmatter is not None  # it loaded
        return self.frontmatter.data.get(key)

    def place(self, path: Path | None) -> ParsedDocument:
        """Set the path of this parse and its entry, in place; returns it.

        Cached parses are stored without a path (see :meth:`placed`) and get
        theirs when loaded; a parse is never otherwise changed once made.
        """
        self.path = path
        if self.entry is not None:
            self.entry.path = path
        return self

    def placed(self, path: Path | None) -> ParsedDocument:
        """A copy of this parse as the document at ``path`` (entry included).

        What the documents cache writes is ``placed(None)``: rebuilding 10k
        ``Path`` objects was a fifth of unpickling them. A shallow copy, made
        by hand because ``dataclasses.replace`` re-runs ``__init__``.
        """
        doc = object.__new__(ParsedDocument)
        doc.__dict__.update(self.__dict__)
        doc.path = path
        if self.entry is not None:
            entry = object.__new__(MemoryEntry)
            entry.__dict__.update(self.entry.__dict__)
            entry.path = path
            doc.entry = entry
        return doc

    @property
    def unread_values(self) -> str | None:
        """Why a rewrite would lose values of this document that memls left unread, or None.

        Values whose YAML aliases expand past the loader's budget are not in
        the entry (:func:`memls.store.frontmatter.load_yaml`), so a rewrite
        from the entry would silently drop them: writers refuse instead.
        """
        fm = self.frontmatter
        if fm is None or not fm.oversized:
            return None
        keys = ", ".join(".".join(value.path) for value in fm.oversized)
        return f"{keys} expand too far through YAML aliases to be read; rewrite them without aliases first"

    @property
    def strict_error(self) -> str | None:
        """The message a strict parse raises, or None when it passes."""
        error = self.strict_exception
        return str(error) if error is not None else None

    @property
    def strict_exception(self) -> MemoryParseError | None:
        """The exception a strict parse raises (its class tells audit's codes apart).

        ``MemoryFrontmatterError`` is audit's ``invalid-yaml``; a plain
        ``MemoryParseError`` (not an entry) is ``invalid-entry``.
        """
        if self.strict_not_entry is not None and self.strict_not_entry_after == 0:
            return MemoryParseError(self.strict_not_entry)
        if self.strict_problems:
            return MemoryFrontmatterError(self.strict_problems[0].message)
        if self.strict_not_entry is not None:
            return MemoryParseError(self.strict_not_entry)
        return None


def parse_document(
    text: str, path: Path | None = None, scope: str | None = None
) -> ParsedDocument:
    """Parse one document (lenient entry + all strict problems). Never raises."""
    text = normalize_text(text)
    where = f"{path or '<text>'}"
    frontmatter = split_frontmatter(text)
    document = ParsedDocument(text, path, scope, frontmatter, None, None, [])
    if frontmatter is None:
        document.not_entry = document.strict_not_entry = f"{NO_FRONTMATTER}{where}"
        return document

    data = frontmatter.data
    if frontmatter.error is not None:
        problem = frontmatter.error
        message = f"{problem.message} at line {problem.line + 1}, column {problem.column + 1}"
        document.strict_problems.append(FieldProblem("", f"invalid YAML: {message}"))
        data = _line_fallback(frontmatter.yaml_text)
        document.name_before_error = _name_before(frontmatter, problem)
    elif not isinstance(data, dict):
        document.strict_problems.append(FieldProblem("", NOT_A_MAPPING))
        data = _line_fallback(frontmatter.yaml_text)
    elif not data:
        document.strict_not_entry = f"empty frontmatter: {where}"
    else:
        _resolve(data, document, where, strict=True)
        return document

    if not data:
        document.not_entry = f"empty frontmatter: {where}"
        return document
    _resolve(data, document, where, strict=False)
    return document


def entry_from_text(
    text: str,
    path: Path | None = None,
    scope: str | None = None,
    *,
    strict: bool = False,
) -> MemoryEntry:
    """Parse an entry; raises ``MemoryParseError`` (strict: ``MemoryFrontmatterError`` too)."""
    document = parse_document(text, path, scope)
    if strict:
        error = document.strict_exception
        if error is not None:
            raise error
    if document.entry is None:
        raise MemoryParseError(document.not_entry)
    return document.entry


def parse_entry(path: Path, scope: str | None = None, *, strict: bool = False) -> MemoryEntry:
    """Parse one memory file. Raises :class:`MemoryParseError` for non-entries.

    A file that is not UTF-8 is not an entry either, so it raises the same
    error (gptme lets ``UnicodeDecodeError`` escape); ``OSError`` propagates.
    """
    try:
        text = read_document_text(path)
    except UnicodeDecodeError as exc:
        raise MemoryParseError(f"not UTF-8 text: {path} (byte {exc.start})") from exc
    return entry_from_text(text, path=path, scope=scope, strict=strict)


def _resolve(data: dict[Any, Any], document: ParsedDocument, where: str, *, strict: bool) -> None:
    """Build the lenient entry from ``data`` and, when ``strict``, record violations.

    The strict checks run on the same values in gptme's order; gptme stops at
    the first, this records them all.
    """
    problems = document.strict_problems

    def violation(name: str, expected: str) -> None:
        if strict:
            problems.append(FieldProblem(name, f"invalid {name}: expected {expected}"))

    raw_metadata = data.get("metadata")
    if raw_metadata is not None and not isinstance(raw_metadata, dict):
        violation("metadata", "mapping")
    metadata = dict(raw_metadata) if isinstance(raw_metadata, dict) else {}
    metadata_type = metadata.pop("type", None)
    type_ = metadata_type or data.get("type") or DEFAULT_TYPE
    if not isinstance(type_, str):
        violation("type", "string")
    type_placement: Literal["metadata", "top"] = "top" if "type" in data and not metadata_type else "metadata"

    path = document.path
    name: str | None
    if "name" in data:
        raw_name = data["name"]
        if not isinstance(raw_name, str) or not raw_name.strip():
            violation("name", "non-empty string")
        if raw_name:
            name = raw_name if isinstance(raw_name, str) else str(raw_name)
        else:
            name = path.stem if path is not None else None
    else:
        name = path.stem if path is not None else None
        if not name and strict:
            document.strict_not_entry = f"entry has no name: {where}"
            document.strict_not_entry_after = len(problems)
    if not name:
        document.not_entry = f"entry has no name: {where}"

    confidence = _confidence(data.get("confidence"), violation)

    raw_provenance = data.get("provenance")
    if raw_provenance is not None and not isinstance(raw_provenance, dict):
        violation("provenance", "mapping")

    raw_status = data["status"] if "status" in data else DEFAULT_STATUS
    if not isinstance(raw_status, str) or raw_status not in STATUSES:
        if strict:
            problems.append(FieldProblem("status", STATUS_EXPECTED))
    status = str(raw_status) if raw_status else DEFAULT_STATUS
    if status not in STATUSES:
        status = DEFAULT_STATUS

    raw_description = data.get("description")
    if raw_description is not None and not isinstance(raw_description, str):
        violation("description", "string")
    description = "" if raw_description is None else str(raw_description).strip()

    raw_title = data.get("title")
    if raw_title is not None and not isinstance(raw_title, str):
        violation("title", "string")

    supersedes = _string_list(data.get("supersedes"), "supersedes", violation)
    superseded_by = _optional_string(data.get("superseded_by"), "superseded_by", violation)
    keywords = _string_list(data.get("keywords"), "keywords", violation)
    recheck = _optional_string(data.get("recheck"), "recheck", violation)

    if not name:
        return
    frontmatter = document.frontmatter
    assert frontmatter is not None
    document.entry = MemoryEntry(
        name=str(name),
        description=description,
        type=str(type_),
        body=frontmatter.body,
        title=str(raw_title) if raw_title else None,
        status=status,
        supersedes=supersedes,
        superseded_by=superseded_by,
        provenance=dict(raw_provenance) if isinstance(raw_provenance, dict) else {},
        confidence=confidence,
        keywords=keywords,
        recheck=recheck,
        metadata=metadata,
        path=path,
        scope=document.scope,
        extra={key: value for key, value in data.items() if key not in KNOWN_KEYS},
        type_placement=type_placement,
    )


def _confidence(value: Any, violation: _Violation) -> float | None:
    """A number in 0..1 when strict; leniently whatever ``float()`` makes of it."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        violation("confidence", "number")
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    try:
        parsed = float(value)
    except OverflowError:  # an integer too large for a float: a number, out of range
        violation("confidence", "0..1")
        return None
    if not 0 <= parsed <= 1:
        violation("confidence", "0..1")
    return parsed


def _string_list(value: Any, name: str, violation: _Violation) -> list[str]:
    """A list of names; one bare string counts as a one-item list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        violation(name, "string list")
    if not isinstance(value, list):
        return [str(value)]
    return [str(item) for item in value]


def _optional_string(value: Any, name: str, violation: _Violation) -> str | None:
    """A free-form string; empty means absent."""
    if value is None or (isinstance(value, str) and value == ""):
        return None
    if not isinstance(value, str):
        violation(name, "string")
    return str(value)


def _line_fallback(yaml_text: str) -> dict[str, Any]:
    """gptme's reading of frontmatter that YAML rejects (an unquoted colon, say).

    Top-level ``key: value`` lines become strings with surrounding quote
    characters stripped; ``key:`` opens a one-level mapping for the indented
    lines under it. Lists, deeper nesting and continuation lines are dropped:
    strict parsing (``audit``) reports such files instead.
    """
    data: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    for line in yaml_text.splitlines():
        match = _KEY_VALUE_LINE.match(line)
        if match is None:
            continue
        key, value = match.group("key"), match.group("value").strip()
        if match.group("indent"):
            if nested is not None:
                nested[key] = value.strip(_QUOTES)
        elif value:
            nested = None
            data[key] = value.strip(_QUOTES)
        else:
            nested = data[key] = {}
    return data


def _name_before(frontmatter: Frontmatter, problem: YamlProblem) -> str | None:
    """The ``name`` that the lines before a YAML failure state for certain, or None.

    YAML read the lines before the failing one (for an unclosed quote or
    bracket, the line it opened on) as written. The failing line is often the
    second half of the line above it (Enter pressed inside a value), so that
    line is in doubt too. The name counts only if no ``name:`` line follows
    the cut, since a later one would win.
    """
    if problem.too_costly:
        return None  # the lines before it cost as much to read again
    lines = frontmatter.yaml_text.split("\n")
    cut = problem.line - frontmatter.content_start_line - 1
    if cut <= 0 or "name" in _line_fallback("\n".join(lines[cut:])):
        return None
    data, error, _, _ = load_yaml("\n".join(lines[:cut]))
    name = data.get("name") if error is None and isinstance(data, dict) else None
    return name if isinstance(name, str) and name.strip() else None


def with_description_prompt(text: str) -> str:
    """A new entry's serialization (empty description) with the prompt commented after it."""
    return text.replace('\ndescription: ""\n', f'\ndescription: ""  {DESCRIPTION_PROMPT}\n', 1)


def placeholder_span(text: str) -> Span | None:
    """Where the description to write stands in ``text`` (inside its quotes), or None.

    That is an empty description followed by the prompt comment, or the old
    placeholder value. An editor puts the cursor there (selecting the old
    placeholder) after creating the file, so the first keystroke writes it.
    """
    text = normalize_text(text)
    fm = split_frontmatter(text)
    spans = fm.keys.get("description") if fm is not None and isinstance(fm.data, dict) else None
    if fm is None or spans is None or fm.data.get("description") not in ("", PLACEHOLDER_DESCRIPTION):
        return None
    value = spans.value
    if value.start_line != value.end_line:
        return None
    line = text.split("\n")[value.start_line]
    start, end = value.start_col, value.end_col
    if fm.data["description"] == "" and line[end:].strip() != DESCRIPTION_PROMPT:
        return None
    if end - start >= 2 and line[start] in "\"'" and line[end - 1] == line[start]:
        start, end = start + 1, end - 1
    return Span(value.start_line, start, value.end_line, end)
