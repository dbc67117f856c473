"""Find an entry's YAML frontmatter and load it once, keeping source positions.

The language server needs to point at the exact key, value or list item a
problem is about, and at the exact character where YAML gave up. Loading the
YAML a second time just to learn positions would double the cost of every
keystroke, so one pass composes the node tree (positions) and constructs the
data from that same tree.

Detection follows gptme (``schema.split_frontmatter``) with three deliberate
differences, each because gptme's rule makes a file silently mean something
other than what its author sees:

* a leading UTF-8 byte-order mark is ignored (editors on Windows add one, and
  gptme then reports "no frontmatter" for a file that visibly has one);
* CRLF and CR line endings are read as LF (gptme leaves ``\\r`` in the body);
* the closing delimiter is a line holding ``---`` and nothing else but
  trailing blanks (gptme closes on any line that *starts* with ``---``, so a
  ``----`` rule inside the YAML ends the block early).

Positions are 0-based, ends exclusive, columns counted in code points of the
normalised document text, which is what the store hands to the editor layer.
"""

from __future__ import annotations

import bisect
import errno
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .spans import KeySpans, OversizedValue, Span, YamlProblem
from .structs import struct
from .text import one_line

if TYPE_CHECKING:
    import yaml
    import yaml.reader


def import_yaml() -> None:
    """Import PyYAML for this module, on the first frontmatter a loader reads.

    Its import compiles the resolvers' patterns (about 25 ms, a third of what
    the language server's own modules cost to import), and a reader that
    parses nothing -- a server start that replays the last check
    (:mod:`memls.store.warm_start`), a replayed command -- should not pay
    it. Safe from any thread: the import system binds one module. The
    helpers below that name ``yaml`` run only inside :func:`load_yaml`,
    after this.
    """
    global yaml
    import yaml
    import yaml.reader  # noqa: F401 - its ReaderError is caught below


YAML_LOADER = "yaml.SafeLoader"
"""The loader every frontmatter is read with: PyYAML's pure-Python ``SafeLoader``.

gptme reads each entry with ``yaml.safe_load``, which is this loader, so memls
calls a file broken exactly when gptme's readers skip it, and reads the same
data from it, within two bounds (:data:`ALIAS_NODE_BUDGET`,
:data:`memls.store.bounded_loader.FLOW_WORK_BUDGET`). libyaml (``CSafeLoader``) is about six times faster but does not
agree with it: it accepts a tab inside a plain value (``a<TAB>b``), ``|#``,
and a byte-order mark or NEL / LS inside the text in places where the pure
loader stops, refuses some texts the pure loader reads, and reads a bare ``!``
tag differently. The flat frontmatter most entries hold never reaches a loader
(:mod:`memls.store.fastyaml`), so the cost falls on frontmatter with a comment
after a value, a date, a block scalar or other less common YAML.
"""

_OPENING = re.compile(r"---[ \t]*\n")
_CLOSING = re.compile(r"^---[ \t]*$", re.MULTILINE)
_NEWLINE = re.compile(r"\n")
_STR_TAG = "tag:yaml.org,2002:str"
_BLOCK_SCALAR_STYLES = ("|", ">")
_BYTE_ORDER_MARK = "\ufeff"
# PyYAML contexts whose mark is where an unfinished token opened (other
# contexts mark a whole block or document, which says nothing precise).
_OPENER_CONTEXTS = ("while scanning a quoted scalar", "while parsing a flow", "while scanning a simple key")

ALIAS_NODE_BUDGET = 10_000
"""How many values YAML aliases may add to a document beyond what is written in it.

An alias (``*a``) repeats its anchor's value without repeating its text, so
twelve short lines can mean 10^11 values (the "billion laughs"). Loading
shares one object per anchor and stays small, but everything that walks the
data does not: ``json.dumps`` of such an entry needs gigabytes, and a value
that contains itself has no end at all. So a value whose aliases push the
document past this budget is left out of what memls reads, and reported
(``alias-expansion-too-large``); real frontmatter repeats a few dozen values
at most.
"""
# Stands for "without end" (a value containing itself) in node counts.
_UNBOUNDED = 1 << 62



@struct(frozen=False)
class Frontmatter:
    """The frontmatter block of one document, split from its body and loaded."""

    yaml_text: str
    # From the opening ``---`` line through the end of the closing ``---`` line.
    block: Span
    content_start_line: int
    # After the closing delimiter, with ``\\n`` stripped from both ends (as gptme).
    body: str
    body_start_line: int
    # What YAML loaded: None when it failed or the block is empty.
    data: Any
    error: YamlProblem | None
    # Top-level string keys when ``data`` is a mapping. For a key written twice
    # the spans are the last occurrence's, because that value is the one loaded.
    keys: dict[str, KeySpans]
    # Values left out of ``data`` because their aliases expand past the budget.
    oversized: tuple[OversizedValue, ...] = ()


def normalize_text(text: str) -> str:
    """Drop one leading byte-order mark and turn CRLF / CR line endings into LF."""
    if text.startswith(_BYTE_ORDER_MARK):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_document_text(path: Path) -> str:
    """Read a file as the store sees it. ``UnicodeDecodeError`` propagates.

    A FIFO or a device is never opened, nor more than 64 MiB read (``OSError``).
    """
    from .safe_read import MAX_INDEX_BYTES, read_whole

    data = read_whole(path, MAX_INDEX_BYTES)
    if data is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    return normalize_text(data.decode("utf-8"))


def split_frontmatter(text: str) -> Frontmatter | None:
    """Split normalised ``text`` into loaded frontmatter and body, or None.

    The opening line is ``---`` (trailing blanks allowed) at the very start;
    the block closes at the first later line that is ``---`` (trailing blanks
    allowed). As in gptme, the closing line cannot directly follow the opening
    one (``---\\n---`` is not a frontmatter block), while ``---\\n\\n---`` is an
    empty one.
    """
    opening = _OPENING.match(text)
    if opening is None:
        return None
    content_start = opening.end()
    # The closing line must start after a newline that ends the content.
    closing = _CLOSING.search(text, content_start + 1)
    if closing is None:
        return None
    yaml_text = text[content_start : closing.start() - 1]
    closing_line = 2 + yaml_text.count("\n")
    after = closing.end()
    if text.startswith("\n", after):
        after += 1
    raw_body = text[after:]
    body = raw_body.strip("\n")
    leading_newlines = len(raw_body) - len(raw_body.lstrip("\n")) if body else 0
    data, error, keys, oversized = load_yaml(yaml_text, first_line=1)
    return Frontmatter(
        yaml_text=yaml_text,
        block=Span(0, 0, closing_line, closing.end() - closing.start()),
        content_start_line=1,
        body=body,
        body_start_line=closing_line + 1 + leading_newlines,
        data=data,
        error=error,
        keys=keys,
        oversized=oversized,
    )


class LoadedYaml(NamedTuple):
    """What :func:`load_yaml` read: the data, why it failed, where its keys are."""

    data: Any
    problem: YamlProblem | None
    keys: dict[str, KeySpans]
    # Values left out of ``data``: their aliases expand past :data:`ALIAS_NODE_BUDGET`.
    oversized: tuple[OversizedValue, ...] = ()


def load_yaml(yaml_text: str, first_line: int = 0, *, fast: bool = True) -> LoadedYaml:
    """Safe-load ``yaml_text`` once: data, problem, top-level key spans, oversized values.

    Never raises: every failure, including ones PyYAML does not wrap in a
    ``YAMLError`` (``!!int abc`` raises ``ValueError``, deep nesting
    ``RecursionError``), becomes a :class:`YamlProblem`. Safe loading refuses
    every ``!!python/...`` tag, so nothing in the text is ever executed.
    ``first_line`` is the document line of the text's first line.

    Values whose aliases expand past :data:`ALIAS_NODE_BUDGET` are left out
    of the data and listed in ``oversized``; a document that is not a mapping
    and expands past it is a problem. So nothing built from the result can
    grow without bound.

    The flat frontmatter agents write is read by :mod:`memls.store.fastyaml`, which
    gives exactly this function's result or declines; ``fast=False`` always
    takes the full path, :data:`YAML_LOADER` (the property tests compare the two).
    """
    if fast:
        # Imported here because the fast path builds this module's span types.
        from .fastyaml import parse_flat_mapping

        flat = parse_flat_mapping(yaml_text, first_line)
        if flat is not None:
            return LoadedYaml(flat[0], None, flat[1])
    import_yaml()
    locator = _Locator(yaml_text, first_line)
    from .bounded_loader import FLOW_WORK_BUDGET, BoundedSafeLoader, FlowTooCostly

    loader = None
    node = None
    try:
        loader = BoundedSafeLoader(yaml_text)
        node = loader.get_single_node()
        if node is None:
            return LoadedYaml(None, None, {})
        # Spans come from the composed tree before construction, because
        # constructing a mapping with ``<<`` merge keys rewrites the node's pairs.
        keys = _top_level_key_spans(node, locator)
        oversized = _over_budget(node, locator) if "*" in yaml_text else ()
        if oversized is None:
            return LoadedYaml(None, locator.problem(
                f"YAML aliases expand this frontmatter past {ALIAS_NODE_BUDGET:,} values", 0), {})
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        return LoadedYaml(None, _marked_problem(exc, locator), {})
    except yaml.reader.ReaderError as exc:
        return LoadedYaml(None, _reader_problem(exc, locator), {})
    except FlowTooCostly as exc:
        return LoadedYaml(None, locator.problem(
            "[ / { collections nest too deeply on these lines to load in time (PyYAML's cost grows with "
            f"the square of those open on a line; past {FLOW_WORK_BUDGET:,} steps); nest fewer on a line",
            exc.index, too_costly=True), {})
    except RecursionError:
        return LoadedYaml(None, locator.problem("nesting too deep to load", 0), {})
    except Exception as exc:  # noqa: BLE001 - any str input must give a problem, not a crash
        offset = _unconstructible_scalar_offset(node) if node is not None else 0
        return LoadedYaml(None, locator.problem(f"invalid value: {one_line(str(exc))}", offset), {})
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(data, dict):
        return LoadedYaml(data, None, {})
    if oversized:
        data = _without(data, oversized)
    return LoadedYaml(data, None, keys, oversized)


class _AliasCount:
    """Counts what aliases add to a document, value by value, in document order.

    A node's expanded size counts every alias as its anchor's whole value; a
    node reached for the first time counts as written. What a value adds is
    its expanded size minus the nodes first written inside it, so an alias to
    an earlier value counts in full, and the sum over every value kept is
    exactly how much larger the data is than the text that wrote it.
    """

    def __init__(self) -> None:
        self.sizes: dict[int, int] = {}
        self.active: set[int] = set()
        self.seen: set[int] = set()
        self.spent = 0

    def added(self, node: yaml.Node) -> int:
        expanded = self.size(node)
        written = sum(1 for _ in each_node_once(node, self.seen))
        return _UNBOUNDED if expanded >= _UNBOUNDED else expanded - written

    def size(self, node: yaml.Node) -> int:
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            return 1
        if key in self.sizes:
            return self.sizes[key]
        if key in self.active:
            return _UNBOUNDED  # an alias to an enclosing value: it contains itself
        self.active.add(key)
        total = 1
        for child in _children(node):
            total = min(total + self.size(child), _UNBOUNDED)
        self.active.discard(key)
        self.sizes[key] = total
        return total

    def fits(self, added: int) -> bool:
        if self.spent + added > ALIAS_NODE_BUDGET:
            return False
        self.spent += added
        return True


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [child for pair in node.value for child in pair]
    return []


def each_node_once(root: yaml.Node, seen: set[int] | None = None) -> Iterator[yaml.Node]:
    """Every node of a composed YAML tree once, in document order (after :func:`import_yaml`).

    Aliases make the tree a graph, with cycles when one names an enclosing
    value: a walk that followed every alias could expand a billion laughs
    or never end, so a node reached again is skipped. ``seen``: the ids of
    nodes to skip, shared by walks that must count each node once overall.
    """
    seen = set() if seen is None else seen
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        todo.extend(reversed(_children(node)))


def _over_budget(node: yaml.Node, locator: _Locator) -> tuple[OversizedValue, ...] | None:
    """The values to leave out so aliases add at most the budget; None for the whole document.

    Values are taken in document order; one that would pass the budget is
    left out. Under a top-level mapping (``metadata:``) the keys are weighed
    one by one, so a bomb under ``metadata.nested`` leaves ``metadata.type``
    readable. A key that cannot be named (not a plain string, a ``<<`` merge)
    takes its whole top-level value with it.
    """
    count = _AliasCount()
    if not isinstance(node, yaml.MappingNode):
        return () if count.fits(count.added(node)) else None
    out: list[OversizedValue] = []
    for key_node, value_node in node.value:
        if not _is_plain_key(key_node):
            if not count.fits(count.added(key_node) + count.added(value_node)):
                return None  # a key the data cannot drop by name
            continue
        count.added(key_node)
        inner = _inner_over_budget(count, key_node, value_node, locator)
        if inner is not None:
            out.extend(inner)
            continue
        added = count.added(value_node)
        if not count.fits(added):
            out.append(_oversized((key_node.value,), key_node, added, locator))
    return tuple(out)


def _inner_over_budget(
    count: _AliasCount, key_node: yaml.Node, value_node: yaml.Node, locator: _Locator
) -> list[OversizedValue] | None:
    """The keys of a top-level mapping value to leave out, or None to weigh it whole."""
    if not isinstance(value_node, yaml.MappingNode) or id(value_node) in count.seen:
        return None
    if not all(_is_plain_key(k) for k, _ in value_node.value):
        return None
    count.seen.add(id(value_node))
    out = []
    for sub_key, sub_value in value_node.value:
        added = count.added(sub_key) + count.added(sub_value)
        if not count.fits(added):
            out.append(_oversized((key_node.value, sub_key.value), sub_key, added, locator))
    return out


def _is_plain_key(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == _STR_TAG


def _oversized(
    path: tuple[str, ...], key_node: yaml.Node, added: int, locator: _Locator
) -> OversizedValue:
    nodes = None if added >= _UNBOUNDED else added
    return OversizedValue(path, _node_span(key_node, locator), nodes)


def _without(data: dict, oversized: tuple[OversizedValue, ...]) -> dict:
    """``data`` without the oversized values; shared mappings are copied, never changed."""
    data = dict(data)
    for value in oversized:
        head = value.path[0]
        if len(value.path) == 1:
            data.pop(head, None)
        elif isinstance(data.get(head), dict):
            data[head] = {k: v for k, v in data[head].items() if k != value.path[1]}
    return data


class _Locator:
    """Turns offsets into the YAML text into document positions.

    Offsets rather than PyYAML's line numbers, because YAML also breaks lines at
    NEL / LS / PS while the document (and every editor) breaks only at ``\\n``.
    The loader counts mark indexes in code points.
    """

    def __init__(self, yaml_text: str, first_line: int) -> None:
        self.text = yaml_text
        self.first_line = first_line
        self.line_starts = [0, *(m.end() for m in _NEWLINE.finditer(yaml_text))]

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return self.first_line + index, offset - self.line_starts[index]

    def offset(self, line: int, col: int) -> int:
        """The offset of a position :meth:`position` gave."""
        return self.line_starts[line - self.first_line] + col

    def span(self, start: int, end: int) -> Span:
        return Span(*self.position(start), *self.position(max(start, end)))

    def problem(self, message: str, offset: int, *, too_costly: bool = False) -> YamlProblem:
        return YamlProblem(message, *self.position(offset), too_costly=too_costly)


def _top_level_key_spans(node: yaml.Node, locator: _Locator) -> dict[str, KeySpans]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    keys: dict[str, KeySpans] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR_TAG:
            continue
        key_end = key_node.end_mark.index
        value = _written_span(value_node, key_end, locator)
        items: tuple[Span, ...] = ()
        if isinstance(value_node, yaml.SequenceNode) and value_node.start_mark.index >= key_end:
            after = value_node.start_mark.index + (1 if value_node.flow_style else 0)
            spans = []
            for item in value_node.value:
                spans.append(_written_span(item, after, locator))
                after = max(after, locator.offset(spans[-1].end_line, spans[-1].end_col))
            items = tuple(spans)
            last = items[-1] if items else value
            if (last.end_line, last.end_col) > (value.end_line, value.end_col):  # it ends with an alias
                value = Span(value.start_line, value.start_col, last.end_line, last.end_col)
        keys[key_node.value] = KeySpans(key=_node_span(key_node, locator), value=value, items=items)
    return keys


# An alias token (``*name``): an anchor's name ends at a blank or a flow indicator.
_ALIAS = re.compile(r"\*[^\s,\[\]{}]+")
# What may stand between a value's place and the value: blanks, a key's colon,
# a list's dash or comma, comments.
_BEFORE_VALUE = re.compile(r"(?:[\s:,\-]|#[^\n]*)*")


def _written_span(node: yaml.Node, written_after: int, locator: _Locator) -> Span:
    """Where ``node`` is written, for a node whose text starts at or after ``written_after``.

    PyYAML gives an alias (``superseded_by: *s``) the anchored node itself,
    with the anchor's marks, which lie before the alias, in another key or
    item. A span there would put the diagnostic on the anchor, and an edit of
    the alias (remove the link, retarget it) would delete or rewrite the
    anchor's text and the key between them instead. So a node found before
    its place is an alias, and its span is its ``*name`` token.
    """
    if node.start_mark.index >= written_after:
        return _node_span(node, locator)
    skipped = _BEFORE_VALUE.match(locator.text, written_after)
    alias = _ALIAS.match(locator.text, skipped.end() if skipped else written_after)
    if alias is None:  # not an alias after all: point at the place, delete nothing
        return locator.span(written_after, written_after)
    return locator.span(alias.start(), alias.end())


def _node_span(node: yaml.Node, locator: _Locator) -> Span:
    return locator.span(node.start_mark.index, _node_end(node, locator.text))


def _node_end(node: yaml.Node, text: str) -> int:
    """Where a node's own text ends.

    PyYAML ends a block collection or block scalar at the start of whatever
    follows it (often the next key, after blank lines and comments); the span
    a reader expects ends at the node's last character instead.
    """
    seen: set[int] = set()
    end = node.end_mark.index
    while isinstance(node, yaml.CollectionNode) and not node.flow_style and node.value:
        if id(node) in seen:  # an alias back to an enclosing node
            return end
        seen.add(id(node))
        last = node.value[-1]
        if isinstance(node, yaml.MappingNode):
            key_node, last = last
            if last.end_mark.index < key_node.end_mark.index:
                return key_node.end_mark.index  # an alias value: its marks are the anchor's
        node = last
        end = node.end_mark.index
    if isinstance(node, yaml.ScalarNode) and node.style in _BLOCK_SCALAR_STYLES:
        start = node.start_mark.index
        while end > start and text[end - 1] in " \t\n":
            end -= 1
    return end


def _marked_problem(exc: yaml.MarkedYAMLError, locator: _Locator) -> YamlProblem:
    """The problem at PyYAML's mark, or at the opener it was reading when that is on an earlier line.

    An unterminated quote or bracket is noticed only where the text runs out
    or the next key cannot be one (the end of the *next* line, or of the
    text); the user needs to see the quote they left open, so that is where
    the problem is put.
    """
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "invalid YAML"
    message = one_line(f"{problem} ({exc.context})" if exc.problem and exc.context else problem)
    opener = exc.context_mark if (exc.context or "").startswith(_OPENER_CONTEXTS) else None
    if opener is not None and mark is not None and opener.index < mark.index:
        line, column = locator.position(opener.index)
        if line < locator.position(mark.index)[0]:
            return YamlProblem(message, line, column, from_opener=True)
    return locator.problem(message, mark.index if mark is not None else 0)


def _unconstructible_scalar_offset(root: yaml.Node) -> int:
    """Where the first scalar that cannot be built starts; 0 if none alone fails.

    A resolved value that its constructor refuses (``2026-02-30`` read as a
    date, ``!!int abc``) raises a plain error with no mark, after the whole
    tree was composed; the user needs the value, not the frontmatter's first
    line. Scalars are built independently of each other, so each is tried
    alone, in document order, until one fails; each node is visited once, so
    aliases cost nothing extra.
    """
    probe = yaml.SafeLoader("")
    try:
        for node in each_node_once(root):
            if isinstance(node, yaml.ScalarNode):
                try:
                    probe.construct_object(node, deep=True)
                except Exception:  # noqa: BLE001 - the failure is what is being located
                    return int(node.start_mark.index)
                probe.constructed_objects.clear()
        return 0
    finally:
        probe.dispose()


def _reader_problem(exc: yaml.reader.ReaderError, locator: _Locator) -> YamlProblem:
    message = f"unacceptable character #x{exc.character:04x}: control characters are not allowed"
    return locator.problem(message, exc.position)
