"""The index lines of memories a rendering cannot list, kept through it.

A rendering lists what the readers read, in lines that cannot break the
index. Two kinds of memory file get no line from it, though the memory is
still there to repair:

* an entry file that turned unreadable -- half written, not UTF-8, its
  frontmatter deleted, emptied, its YAML broken, a link whose target went
  away;
* a living entry whose line would break ``MEMORY.md`` -- a typo that puts a
  bracket in its name, a NUL in its title.

``check`` reports both. A save that renders a generated ``MEMORY.md`` whole
would take off the index the only pointer the agent had to such a memory,
on a write about another one. Its line stays instead, under the heading it
stood under, where the rendering's order puts it; once the file reads (and
renders) again, its rendered line takes the place of the kept one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from .entry import TYPE_ORDER
from .index import IndexPolicy, index_order, pointer_line, pointers_to, type_heading
from .spans import split_lines
from .text import shared_lines_end

_HEADING = "## "
_OMISSION = "- \u2026 "
_KNOWN_HEADINGS = {type_heading(kind): at for at, kind in enumerate(TYPE_ORDER)}


def keep_unlisted_lines(
    current: str | None, rendered: str, unlisted: Collection[str], *, policy: IndexPolicy | None = None,
) -> str:
    """``rendered`` with ``current``'s pointer lines to the ``unlisted`` files it lacks put back.

    ``current`` is the index the rendering replaces (None: there is none);
    ``unlisted`` the root's memory files a rendering gives no line
    (:meth:`memls.store.reader.RootRead.unlisted_files`). ``policy``, for
    a managed root's view: the view lists nothing but its selection, so
    only the selected files' lines are kept. Each kept line goes
    under the heading it stood under in ``current`` (the section put back
    in the rendering's type order when it has none), among the lines there
    in the rendering's order.
    Nothing is looked for when no file is unlisted.
    """
    if policy is not None:
        unlisted = set(unlisted).intersection(policy.selected)
    if current is None or not unlisted:
        return rendered
    kept = pointers_to(current, set(unlisted))
    if not kept:
        return rendered
    listed = {link.target for link in pointers_to(rendered, {link.target for link in kept})}
    kept = [link for link in kept if link.target not in listed]
    if not kept:
        return rendered
    old_lines = split_lines(current)
    lines = rendered.split("\n")
    ends_with_break = lines[-1] == ""
    if ends_with_break:
        lines.pop()
    for link in kept:
        _insert(lines, old_lines[link.line], _heading_above(old_lines, link.line), link.title)
    return "\n".join(lines) + ("\n" if ends_with_break else "")


def renders_keeping_unlisted(
    text: str, rendering: str, unlisted: Collection[str] | Callable[[], Collection[str]],
) -> bool:
    """Whether ``text`` is ``rendering`` with the lines of ``unlisted`` files kept (:func:`keep_unlisted_lines`).

    A generated index a rendering kept a line in is generated still: an
    entry that broke must not turn its index curated for good (each save
    then appending its line at the end, out of order). Asked of every
    curated index that opens like a rendering, so the lines are compared
    first, and ``unlisted`` (a callable: asked only then) and the kept
    lines' places only for an index that adds nothing but pointer lines.
    """
    targets = _pointers_beyond(text, rendering)
    if not targets:
        return False
    names = unlisted() if callable(unlisted) else unlisted
    return targets <= set(names) and keep_unlisted_lines(text, rendering, names) == text


def _pointers_beyond(text: str, rendering: str) -> set[str] | None:
    """The targets of the lines ``text`` holds beyond ``rendering``'s, when those are all pointer lines; else None.

    The lines ``text`` adds are as many as it holds beyond ``rendering``'s
    count, so the walk gives up at the first one past that; and it starts
    where the two part, taking lines one at a time: asked of a curated index
    at every save, it costs a few lines wherever the two part, not a split
    of both (at 10k entries the splits were 4 ms a question, two a save).
    """
    spare = text.count("\n") - rendering.count("\n")
    if spare <= 0:
        return None
    head = shared_lines_end(text, rendering)
    ours, theirs = _lines_from(text, head), _lines_from(rendering, head)
    targets, wanted = set(), next(theirs, None)
    for line in ours:
        if line == wanted:
            wanted = next(theirs, None)
        elif spare and (link := pointer_line(0, line)) is not None:
            targets.add(link.target)
            spare -= 1
        else:
            return None
    return targets


def _lines_from(text: str, start: int) -> Iterator[str]:
    """``text[start:].split("\n")``, one line at a time."""
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def _heading_above(lines: list[str], number: int) -> str | None:
    for line in reversed(lines[:number]):
        if line.startswith(_HEADING):
            return line
    return None


def _section_order(heading: str) -> tuple[int, str]:
    """Where a type's section stands in a rendering: the known types in order, then the rest by type."""
    at = _KNOWN_HEADINGS.get(heading)
    return (0, f"{at:03}") if at is not None else (1, heading.lower())


def _insert(lines: list[str], line: str, heading: str | None, name: str) -> None:
    """Put ``line`` (an entry's, by ``name``) into its section of the rendered ``lines``, in the rendering's order.

    A rendering sorts by entry name and writes the name as the link text
    (unless the entry has a title): the link texts are the names to sort by,
    where a file's stem would misplace an entry named otherwise than its file.
    """
    if heading is not None and heading in lines:
        at = lines.index(heading) + 1
        while at < len(lines) and (other := pointer_line(0, lines[at])) is not None:
            if index_order(other.title) > index_order(name):
                break
            at += 1
        lines.insert(at, line)
        return
    at = len(lines)
    if lines and lines[-1].startswith(_OMISSION):  # the omission line stays last
        at -= 2
    if heading is not None:
        later = [n for n, text in enumerate(lines) if text.startswith(_HEADING)
                 and _section_order(text) > _section_order(heading)]
        if later:  # before the next section's blank line
            at = later[0] - 1
    lines[at:at] = ["", heading, line] if heading is not None else ["", line]
