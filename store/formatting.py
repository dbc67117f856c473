"""Canonical text of a memory document: what "format document" turns it into.

Formatting runs on every save for many users (format-on-save), so it may
change how a memory is *spelled* and nothing else:

* an entry's frontmatter keys are put in gptme's order (the known keys in
  the order gptme writes them, unknown keys after them in their own order),
  and each key is spelled as gptme spells it -- unless the key's text holds a
  comment (or a ``#`` at all), or gptme's spelling would not load as the same
  value: then the key keeps its own text. Comment lines move with the key
  right below them (a header above the first key, ended by a blank line,
  stays on top; those after the last key stay at the end); blank lines
  inside the frontmatter go. Formatting never
  adds a key (no ``metadata: type: general`` the user never wrote), never
  drops one (an explicit ``status: living`` stays), and never touches a byte
  after the closing ``---`` (the body, its blank lines, its line endings).
  The result must load as the same data and entry, keep every comment, and
  format to itself, or no formatting is offered. A document the strict parse
  rejects is left alone too: its meaning is in doubt;
* ``MEMORY.md`` is rewritten as the engine's rendering of its root
  (:func:`render_root_view`), the same text ``memls index --write`` and the
  ``index-drift`` fix produce. A legacy index is curated unless it is
  exactly that rendering (:func:`memls.store.index.is_generated_index`), so
  formatting leaves every legacy index as it is: format-on-save runs on
  every save, and text a person wrote must never disappear because of it.

Everything works on the in-memory model (open buffers included); nothing
here reads or writes files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .diagnostics import TextEdit
from .edits import apply_edits
from .entry import KNOWN_KEYS, dump_block, quote_scalar
from .frontmatter import Frontmatter
from .index import (
    IndexPolicy,
    index_entries,
    omission_budget,
    render_policy_view,
)
from .model import Document, RootState
from .parse import parse_document
from .rewrite import value_end
from .spans import Span
from .unlisted_lines import keep_unlisted_lines


def render_root_view(state: RootState, *, budget: int | None = None) -> str:
    """The ``MEMORY.md`` the engine would write for a root, from the model.

    A managed root (``.memory-index.json`` present) renders its policy view
    over every entry file; a legacy root renders the entries readers see.
    Raises ``ValueError`` with a one-line message when the policy cannot be
    read or its view cannot be rendered (nothing to write then).
    """
    policy_doc = state.documents.get(state.policy_path)
    if policy_doc is None:
        return state.index_view.render(budget)
    entries = index_entries(state.entries_for_index(), managed=True)
    if policy_doc.read_error is not None or policy_doc.too_large:
        raise ValueError(f"cannot read {policy_doc.path.name}; fix it first")
    policy = IndexPolicy.parse(policy_doc.text)
    return render_policy_view(entries, policy, budget=budget)


def formatted_index(state: RootState, text: str) -> str | None:
    """The canonical text of a root's ``MEMORY.md`` currently holding ``text``.

    None when formatting must not touch it: a curated legacy index (any
    text but memls's rendering, which is already canonical), or a managed
    root whose policy view cannot be rendered.
    """
    managed = state.policy_path in state.documents
    budget = None if managed else omission_budget(text)
    try:
        rendered = render_root_view(state, budget=budget)
    except ValueError:
        return None
    if not managed and text and text != rendered:
        return None
    if not managed:
        return rendered
    policy = IndexPolicy.parse(state.documents[state.policy_path].text)  # read by the rendering
    return keep_unlisted_lines(text, rendered, state.unlisted_entry_files(), policy=policy)


def formatted_entry(text: str, doc: Document | None = None) -> str | None:
    """``text`` with its frontmatter in canonical layout, or None when it must stay.

    ``text`` may be a buffer's own text (CRLF, a byte-order mark): the new
    frontmatter ends its lines as the opening ``---`` line does, and every
    byte after the closing ``---`` is kept. None when the text is not an
    entry, fails gptme's strict parse, or no layout provably keeps it.
    """
    path = doc.path if doc is not None else None
    scope = doc.root.scope if doc is not None else None
    once = _formatted_once(text, path, scope)
    if once is None or _formatted_once(once, path, scope) != once:
        return None
    return once


def _formatted_once(text: str, path: Path | None, scope: str | None) -> str | None:
    parsed = parse_document(text, path=path, scope=scope)
    fm = parsed.frontmatter
    if (parsed.entry is None or parsed.strict_error is not None or fm is None
            or parsed.unread_values is not None):
        return None
    if not isinstance(fm.data, dict):
        return None
    block = _canonical_block(parsed.text.split("\n"), fm)
    if block is None:
        return None
    closing = fm.block
    new = apply_edits(text, [TextEdit(path or Path(), Span(0, 0, closing.end_line, closing.end_col), block)])
    reread = parse_document(new, path=path, scope=scope)
    after = reread.frontmatter
    if (
        after is None
        or reread.strict_error is not None
        or reread.entry != parsed.entry
        or not _same_value(after.data, fm.data)
        or _hash_lines(after.yaml_text) != _hash_lines(fm.yaml_text)
    ):
        return None
    return new


def _canonical_block(lines: list[str], fm: Frontmatter) -> str | None:
    """The frontmatter block (``---`` to ``---``) in canonical layout; None if not a plain mapping.

    A plain mapping has every key at the start of its own lines, and nothing
    between keys but blank and comment lines.
    """
    keys = sorted(fm.keys.items(), key=lambda item: item[1].key.start_line)
    if len(keys) != len(fm.data):  # a key that is not a string (or a merge key)
        return None
    closing_line = fm.block.end_line
    header: list[str] = []  # comments above the first key stay on top
    pieces: dict[str, list[str]] = {}
    line = fm.content_start_line
    for key, spans in keys:
        end = value_end(spans)[0]
        if spans.key.start_col != 0 or spans.key.start_line < line or end >= closing_line:
            return None
        comments = _comment_lines(lines[line : spans.key.start_line])
        if comments is None:
            return None
        if not pieces:
            header, comments = _header_and_own(lines[line : spans.key.start_line])
        pieces[key] = [*comments, _key_text(key, fm.data[key], lines[spans.key.start_line : end + 1])]
        line = end + 1
    trailing = _comment_lines(lines[line:closing_line])
    if trailing is None:
        return None
    order = [k for k in KNOWN_KEYS if k in pieces] + [k for k, _ in keys if k not in KNOWN_KEYS]
    body = [*header, *(text for k in order for text in pieces[k]), *trailing]
    return "\n".join(["---", *body, "---"])


def _header_and_own(lines: list[str]) -> tuple[list[str], list[str]]:
    """Comment lines above the first key: the file's header, and the key's own comment.

    Comments written right above a key describe it, wherever formatting moves
    it; a blank line ends a header written about the whole file, which stays
    on top. (Blank lines go, so the header then sits above the first key in
    gptme's order, and formatting again keeps it there.)
    """
    blank = max((i for i, text in enumerate(lines) if not text.strip()), default=-1)
    return _comment_lines(lines[: blank + 1]) or [], _comment_lines(lines[blank + 1 :]) or []


def _comment_lines(lines: list[str]) -> list[str] | None:
    """The comment lines among lines between keys (blank ones go); None if another line is there."""
    kept = [text for text in lines if text.strip()]
    return kept if all(text.lstrip().startswith("#") for text in kept) else None


def _key_text(key: str, value: Any, own: list[str]) -> str:
    """A key as gptme writes it, or its own lines when those hold a comment or say it otherwise."""
    if any("#" in text for text in own):
        return "\n".join(own)
    import yaml  # here, not at the top: a start that formats nothing does not load YAML

    try:
        canonical = _gptme_spelling(key, value)
        loaded = yaml.safe_load(canonical)  # as gptme reads it
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return "\n".join(own)
    if not _same_value(loaded, {key: value}):
        return "\n".join(own)
    return canonical


def _gptme_spelling(key: str, value: Any) -> str:
    """How ``MemoryEntry.to_markdown`` writes one key holding ``value``."""
    if isinstance(value, str):
        if key in ("name", "status"):
            return f"{key}: {value}"
        if key in ("title", "description"):
            return f"{key}: {quote_scalar(value)}"
    if key == "metadata" and isinstance(value, dict) and value:
        ordered = {"type": value["type"], **value} if "type" in value else value
        return "metadata:\n" + dump_block(ordered, indent=2)
    return dump_block({key: value}, indent=0)


def _same_value(a: Any, b: Any) -> bool:
    """Equal as loaded YAML, types included (``1`` is not ``1.0`` or ``true``); mapping order aside."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a != a and b != b)  # NaN is itself


def _hash_lines(yaml_text: str) -> list[str]:
    """Every frontmatter line holding a ``#``: each must survive formatting, byte for byte."""
    return sorted(line for line in yaml_text.split("\n") if "#" in line)


def formatted_document(doc: Document) -> str | None:
    """The canonical text of any memory document, or None when it has none."""
    if doc.read_error is not None or doc.too_large:
        return None
    if doc.kind == "index":
        return formatted_index(doc.root, doc.text)
    if doc.kind in ("entry", "reserved"):
        return formatted_entry(doc.text, doc)
    return None
