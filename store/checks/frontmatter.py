"""Frontmatter checks: is the file an entry, and does each field mean what it says.

Everything here depends on the document's own text only, so a keystroke
re-checks one file. The strict problems come from the parser in gptme's
order (``store/parse.py``); gptme's audit stops at the first of them, so
only the problem matching the strict parse's first error carries the
``audit`` data, and ``memls audit`` reports each file once, as gptme does.

Span choices:

* ``invalid-yaml`` points at the token where PyYAML's mark is (from the
  mark to the next blank on that line; one character when the mark is on a
  blank; zero-width at the end of a line), so the editor underlines what
  YAML choked on rather than a point that is easy to miss;
* field problems point at the value (the key when the value is empty);
* file-level problems (no frontmatter, unreadable, too large) at line 1.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..anchors import anchor as _name_or_first
from ..anchors import first_line as _first_line
from ..diagnostics import Fix, Problem
from ..edits import insert_first_key, set_scalar
from ..entry import KNOWN_KEYS, PLACEHOLDER_DESCRIPTION, STATUSES
from ..errors import MemoryFrontmatterError
from ..frontmatter import ALIAS_NODE_BUDGET, Frontmatter
from ..model import Document
from ..names import is_reserved_name, slugify
from ..reader import MAX_DOCUMENT_BYTES
from ..rename_plan import plan_move_file, plan_rename
from ..spans import Span, split_lines
from ..text import fold_line_breaks, has_line_break, index_line_hazards

if TYPE_CHECKING:
    from . import CheckContext

CODES = (
    "invalid-entry",
    "invalid-yaml",
    "frontmatter-not-mapping",
    "invalid-field",
    "unknown-status",
    "missing-name",
    "missing-description",
    "unknown-key",
    "name-filename-mismatch",
    "unsafe-index-text",
    "file-too-large",
    "alias-expansion-too-large",
)

_REFUSED_TAG = "could not determine a constructor for the tag"
_MAX_SHOWN = 40


def check(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    if doc.kind == "entry":
        yield from _check_entry_file(ctx, doc)
    elif doc.kind == "reserved" and doc.parsed is not None and doc.parsed.frontmatter is not None:
        # A memory*.md file without frontmatter is an index archive: fine.
        # With frontmatter someone meant an entry; its YAML is still worth
        # reporting (the names checks say why no reader sees it).
        yield from _check_yaml(ctx, doc, doc.parsed.frontmatter, audit=None)


def fixes(ctx: CheckContext, problem: Problem) -> Iterable[Fix]:
    doc = ctx.workspace.document(problem.path)
    if doc is None or doc.parsed is None or doc.parsed.frontmatter is None:
        return []
    parsed = doc.parsed
    if problem.code == "unknown-status":
        return [
            Fix(f"Set status to {status}", (set_scalar(parsed, "status", status),))
            for status in STATUSES
        ]
    if problem.code == "missing-name":
        stem = doc.path.stem
        name = _name_for_stem(stem)
        if name is None:
            return []
        # The stem is the name the entry already has: writing it down is safe. A
        # stem no MEMORY.md line can hold gets its slug instead, which renames
        # the entry (links to the old name dangle): the user's choice, never safe.
        return [Fix(f"Add 'name: {name}'", (insert_first_key(parsed, "name", name),), safe=name == stem)]
    if problem.code == "unsafe-index-text":
        key = problem.data["field"]
        value = doc.parsed.frontmatter.data.get(key)
        if key == "type" or not isinstance(value, str) or not has_line_break(value):
            return []  # a type may sit under metadata, where set_scalar does not reach
        folded = fold_line_breaks(value)
        # A name is the entry's identity (links, the index, lookups), so
        # changing it is the user's choice, never a safe fix.
        return [Fix(f"Join {key} into one line", (set_scalar(parsed, key, folded),), safe=key != "name")]
    if problem.code == "name-filename-mismatch":
        return _mismatch_fixes(ctx, doc)
    return []


# -- the checks -------------------------------------------------------------------


def _check_entry_file(ctx: CheckContext, doc: Document) -> Iterator[Problem | None]:
    name = doc.path.name
    if doc.too_large:
        detail = f"larger than {MAX_DOCUMENT_BYTES} bytes; not read"
        yield ctx.problem(
            "file-too-large", doc, _first_line(doc.text),
            f"{name} is larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB, so memls reads only its "
            "frontmatter (for its MEMORY.md line) and list, show and recall skip it; "
            "split it or move it out of the memory root",
            data={"audit": (name, detail), "audit_code": "invalid-entry"},
        )
        return
    if doc.read_error is not None:
        yield ctx.problem(
            "invalid-entry", doc, _first_line(doc.text),
            f"{name} cannot be read ({doc.read_error}), so no reader sees it; "
            f"{_repair(doc.read_error)} or move it out of the memory root",
            data={"audit": (name, doc.read_error), "audit_code": "invalid-entry"},
        )
        return
    parsed = doc.parsed
    if parsed is None:
        return
    audit = _audit(doc)
    fm = parsed.frontmatter
    if fm is None:
        yield ctx.problem(
            "invalid-entry", doc, _first_line(doc.text),
            f"{name} has no frontmatter, so no reader sees it; start it with a '---' block holding "
            "'name:' and 'description:', or move it out of the memory root",
            data=_audit_data(audit),
        )
        return
    if fm.error is None and (fm.data is None or fm.data == {}):
        yield ctx.problem(
            "invalid-entry", doc, _first_line(doc.text),
            f"{name} has empty frontmatter, so no reader sees it; add 'name:' and 'description:'",
            data=_audit_data(audit),
        )
        return
    problems = list(_check_yaml(ctx, doc, fm, audit=audit))
    if problems:
        yield from problems
        return
    yield from _check_oversized(ctx, doc, fm)
    yield from _check_fields(ctx, doc, fm, audit)
    yield from _check_keys(ctx, doc, fm)
    if doc.entry is not None:
        yield from _check_names_and_text(ctx, doc, fm)


def _check_yaml(
    ctx: CheckContext, doc: Document, fm: Frontmatter, *, audit: tuple[str, str, str] | None
) -> Iterator[Problem | None]:
    """YAML that does not load, or loads as something other than a mapping."""
    skipped = "; readers skip the file" if doc.entry is None and doc.kind == "entry" else ""
    if fm.error is not None:
        err = fm.error
        where = f"line {err.line + 1}, column {err.column + 1}"
        if _REFUSED_TAG in err.message:
            message = (
                f"frontmatter uses a YAML tag that safe loading refuses ({err.message}) at {where}"
                f"{skipped}; remove the tag"
            )
        else:
            message = f"frontmatter is not valid YAML: {err.message} at {where}{skipped}; fix the syntax there"
        span = (_rest_of_line(doc.text, err.line, err.column) if err.from_opener
                else _token_span(doc.text, err.line, err.column))
        yield ctx.problem("invalid-yaml", doc, span, message, data=_audit_data(audit))
    elif fm.data is not None and not isinstance(fm.data, dict):
        lines = split_lines(doc.text)
        last = max(fm.block.end_line - 1, fm.content_start_line)
        span = Span(fm.content_start_line, 0, last, len(lines[last]) if last < len(lines) else 0)
        yield ctx.problem(
            "frontmatter-not-mapping", doc, span,
            f"frontmatter is {_kind(fm.data)}, not a mapping of keys to values{skipped}; "
            "write 'name: ...' and 'description: ...' lines",
            data=_audit_data(audit),
        )


def _check_oversized(ctx: CheckContext, doc: Document, fm: Frontmatter) -> Iterator[Problem | None]:
    """Values left unread because their aliases expand past the loader's budget."""
    for value in fm.oversized:
        key = ".".join(value.path)
        grows = "contains itself" if value.nodes is None else f"adds {value.nodes:,} values"
        yield ctx.problem(
            "alias-expansion-too-large", doc, value.key,
            f"{key} {grows} through YAML aliases, which takes this frontmatter past {ALIAS_NODE_BUDGET:,} "
            "values added by aliases, so memls does not "
            "read it and no write rewrites this file; write the values out or remove the aliases",
        )


def _check_fields(
    ctx: CheckContext, doc: Document, fm: Frontmatter, audit: tuple[str, str, str] | None
) -> Iterator[Problem | None]:
    """One problem per strict field violation; the first carries gptme's audit issue."""
    data = fm.data
    assert doc.parsed is not None  # fm is its frontmatter
    for i, field_problem in enumerate(doc.parsed.strict_problems):
        key = field_problem.field
        value, span = _field_value(doc, fm, key)
        spans = fm.keys.get(key)
        # Quoted in the message only when the span is the value (an empty value points at the key).
        source = _source(doc.text, span) if span is not None and (spans is None or span != spans.key) else ""
        if span is None:
            span = _name_or_first(doc)
        code = "invalid-field"
        if key == "status" and isinstance(value, str):
            code = "unknown-status"
            message = f"status '{value}' is not one of {', '.join(STATUSES)}; set one of them"
        else:
            message = _field_message(key, field_problem.message, value, source, data)
        yield ctx.problem(code, doc, span, message, data=_audit_data(audit if i == 0 else None))


_KNOWN = frozenset(KNOWN_KEYS)


def _check_keys(ctx: CheckContext, doc: Document, fm: Frontmatter) -> Iterator[Problem | None]:
    for key, spans in fm.keys.items():
        if key not in _KNOWN:
            yield ctx.problem(
                "unknown-key", doc, spans.key,
                f"unknown key '{key}': memls keeps it on rewrite but no reader uses it; check the spelling",
            )


def _check_names_and_text(ctx: CheckContext, doc: Document, fm: Frontmatter) -> Iterator[Problem | None]:
    entry = doc.entry
    assert entry is not None  # the caller checks entries only
    data = fm.data
    stem = doc.path.stem
    name_spans = fm.keys.get("name")
    if "name" not in data:
        yield ctx.problem(
            "missing-name", doc, _first_line(doc.text),
            f"entry has no 'name', so it is named after its file ('{stem}') and a file rename renames it; "
            f"add 'name: {_name_for_stem(stem) or stem}'",
        )
    elif isinstance(data["name"], str) and data["name"].strip() and name_spans is not None:
        name = data["name"]
        if slugify(name) != stem and not is_reserved_name(name):
            yield ctx.problem(
                "name-filename-mismatch", doc, name_spans.value,
                f"name '{name}' belongs in {slugify(name)}.md, not {doc.path.name}: gptme's save of '{name}' "
                "writes another file; rename the file or the entry",
            )
    description = data.get("description")
    if isinstance(description, str) and description.strip() == PLACEHOLDER_DESCRIPTION:
        yield ctx.problem(
            "missing-description", doc, fm.keys["description"].value,
            f"entry '{entry.name}' still has the placeholder description; replace it with one line "
            "saying when to read it (Claude Code shows it in MEMORY.md)",
        )
    elif description is None or (isinstance(description, str) and not description.strip()):
        spans = fm.keys.get("description")
        if spans is not None and spans.value.start_line == spans.value.end_line and spans.value.start_col == spans.value.end_col:
            span = spans.key
        elif spans is not None:
            span = spans.value
        else:
            span = _name_or_first(doc)
        yield ctx.problem(
            "missing-description", doc, span,
            f"entry '{entry.name}' has no description; add one line saying when to read it "
            "(Claude Code shows it in MEMORY.md)",
        )
    yield from _check_index_text(ctx, doc, fm)


def _check_index_text(ctx: CheckContext, doc: Document, fm: Frontmatter) -> Iterator[Problem | None]:
    """Text that ends up on the entry's ``MEMORY.md`` pointer line must keep it one line."""
    data = fm.data
    title = data.get("title")
    link_field = "title" if isinstance(title, str) and title else "name"
    for key in ("name", "title", "description", "type"):
        if key == "type":  # the section heading the line sits under (metadata.type or type)
            value, span = _field_value(doc, fm, key)
        else:
            value = data.get(key)
            spans = fm.keys.get(key)
            span = None if spans is None else spans.value
        if not isinstance(value, str) or span is None:
            continue
        shown = value.strip() if key == "description" else value  # readers strip descriptions only
        reasons = index_line_hazards(shown, link_text=key == link_field)
        if not reasons:
            continue
        actions, made = [], []
        for reason in reasons:
            if reason == "a line break":
                actions.append("join it into one line")
                made.append("folded onto one line")
            elif reason == "a NUL character":
                actions.append("remove the NUL")
                made.append("without the NUL")
            elif reason.startswith("a lone surrogate"):
                actions.append("write the character itself")
                made.append("with U+FFFD in the surrogate's place")
            else:
                actions.append("remove the brackets")
        # What the index writers do about it (MemoryEntry.index_line_hazards, index_parts).
        if key == "type" or key == link_field and reasons != ["a line break"]:
            effect = ", so memls writes it no line (one MEMORY.md already holds is kept) and refuses to save it"
        elif key == "description" or key == link_field:
            effect = f", so its MEMORY.md line shows it {' and '.join(made)}"
        else:
            effect = ""
        yield ctx.problem(
            "unsafe-index-text", doc, span,
            f"{key} contains {' and '.join(reasons)}, which would break its MEMORY.md pointer line{effect}; "
            f"{' and '.join(actions)}",
            data={"field": key},
        )


# -- fixes ------------------------------------------------------------------------


def _mismatch_fixes(ctx: CheckContext, doc: Document) -> list[Fix]:
    out = []
    try:
        out.append(plan_move_file(ctx.workspace, doc))
    except ValueError:
        pass
    stem = doc.path.stem
    if slugify(stem) == stem:
        try:
            fix = plan_rename(ctx.workspace, doc, stem)
            out.append(Fix(f"Set name to '{stem}'", fix.operations))
        except ValueError:
            pass
    return out


# -- helpers ----------------------------------------------------------------------


def _name_for_stem(stem: str) -> str | None:
    """The name the missing-name fix writes: the file's stem, or its slug when no index line can hold the stem.

    A stem holding a line break, a bracket or a lone surrogate (a file name
    that is not UTF-8) would be written as a name whose ``MEMORY.md`` line is
    left out (:meth:`memls.store.entry.MemoryEntry.index_line_hazards`); None
    when even the slug is no usable name.
    """
    if not index_line_hazards(stem, link_text=True):
        return stem
    slug = slugify(stem)
    if index_line_hazards(slug, link_text=True) or is_reserved_name(slug):
        return None
    return slug


def _repair(read_error: str) -> str:
    if read_error.startswith("not UTF-8"):
        return "save it as UTF-8 text"
    if "Is a directory" in read_error:
        return "rename the directory"
    if "No such file" in read_error or "symbolic links" in read_error:
        return "point the link at an existing file"
    return "make it a readable file"


def _audit(doc: Document) -> tuple[str, str, str] | None:
    """gptme's audit issue for this file: (code, entry, detail), or None."""
    error = doc.parsed.strict_exception if doc.parsed is not None else None
    if error is None:
        return None
    code = "invalid-yaml" if isinstance(error, MemoryFrontmatterError) else "invalid-entry"
    return code, doc.path.name, str(error)


def _audit_data(audit: tuple[str, str, str] | None) -> dict[str, Any]:
    if audit is None:
        return {}
    code, entry, detail = audit
    return {"audit": (entry, detail), "audit_code": code}


def _rest_of_line(text: str, line: int, column: int) -> Span:
    """From an unclosed quote or bracket through the end of its line."""
    lines = split_lines(text)
    end = len(lines[line]) if line < len(lines) else column
    return Span(line, column, line, max(end, column))


def _token_span(text: str, line: int, column: int) -> Span:
    lines = split_lines(text)
    if line >= len(lines):
        return Span(line, column, line, column)
    row = lines[line]
    if column >= len(row):
        return Span(line, column, line, column)
    end = column
    while end < len(row) and not row[end].isspace():
        end += 1
    return Span(line, column, line, max(end, column + 1))


def _field_value(doc: Document, fm: Frontmatter, key: str) -> tuple[Any, Span | None]:
    """The value a strict problem is about, and where it is written."""
    data = fm.data
    if key == "type":
        metadata = data.get("metadata")
        if isinstance(metadata, dict) and metadata.get("type"):
            return metadata["type"], _nested_value_span(doc, fm, "metadata", "type")
    spans = fm.keys.get(key)
    if spans is None:
        return data.get(key), None
    empty = spans.value.start_line == spans.value.end_line and spans.value.start_col == spans.value.end_col
    return data.get(key), spans.key if empty else spans.value


def _nested_value_span(doc: Document, fm: Frontmatter, parent: str, key: str) -> Span | None:
    """Where ``parent.key``'s value is written (block mappings), else the parent's value."""
    spans = fm.keys.get(parent)
    if spans is None:
        return None
    lines = split_lines(doc.text)
    pattern = re.compile(rf"^(\s+){re.escape(key)}:[ \t]*(\S.*?)\s*$")
    for number in range(spans.value.start_line, min(spans.value.end_line + 1, len(lines))):
        match = pattern.match(lines[number])
        if match:
            return Span(number, match.start(2), number, match.end(2))
    return spans.value


def _source(text: str, span: Span) -> str:
    lines = split_lines(text)
    if span.start_line >= len(lines):
        return ""
    row = lines[span.start_line]
    end = span.end_col if span.end_line == span.start_line else len(row)
    shown = row[span.start_col:end].strip()
    if span.end_line != span.start_line or len(shown) > _MAX_SHOWN:
        shown = shown[:_MAX_SHOWN] + "…"
    return shown


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a date"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bytes):
        return "binary data"
    if isinstance(value, (set, frozenset)):
        return "a set"
    return "a value of another kind"


def _field_message(key: str, strict_message: str, value: Any, source: str, data: dict) -> str:
    """A one-line message for a strict field violation that says what to write instead."""
    shown = f"{key} {source}" if source else key
    expected = strict_message.partition(": expected ")[2]
    if key == "confidence":
        if expected == "0..1":
            return f"{shown} is outside 0..1; use a number from 0 to 1"
        return f"{shown} is {_kind(value)}, not a number; use a number from 0 to 1"
    if expected == "mapping":
        return f"{shown} is {_kind(value)}, not a mapping; put its keys on indented lines under '{key}:'"
    if key == "name":
        if isinstance(value, str) or value is None:
            return "name is empty; give the entry a name"
        return f"{shown} is {_kind(value)}, not text; quote it"
    if key == "status":
        return f"{shown} is {_kind(value)}, not one of {', '.join(STATUSES)}; set one of them"
    if expected == "string list":
        if isinstance(value, list):
            index, bad = next((i, item) for i, item in enumerate(value) if not isinstance(item, str))
            if bad is None:
                return f"{key} item {index + 1} is empty; write a name there or remove the item"
            return f"{key} item {_show(bad)} is {_kind(bad)}, not text; quote it"
        return f"{shown} is {_kind(value)}, not a name or a list of names; quote it"
    return f"{shown} is {_kind(value)}, not text; quote it"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    text = str(value)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "…"
