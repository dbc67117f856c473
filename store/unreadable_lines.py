"""The index lines of entry files memls cannot read, kept through a rendering.

A rendering lists what the readers read. An entry file that turned
unreadable -- half written, not UTF-8, its frontmatter deleted, emptied, a
link whose target went away -- has no line in it. So a save that renders a
generated ``MEMORY.md`` whole would take off the index the only pointer the
agent had to that memory, while ``check`` reports the file as broken and
the memory is still there to repair. Its line stays instead, under the
heading it stood under, where the rendering's order puts it; once the file
reads again, its rendered line takes the place of the kept one.
"""

from __future__ import annotations

from collections.abc import Collection

from .index import index_order, pointer_line, pointers_to, rendered_name
from .spans import split_lines

_HEADING = "## "
_OMISSION = "- \u2026 "


def keep_unreadable_lines(current: str | None, rendered: str, unreadable: Collection[str]) -> str:
    """``rendered`` with ``current``'s pointer lines to the ``unreadable`` files it lacks put back.

    ``current`` is the index the rendering replaces (None: there is none);
    ``unreadable`` the root's entry files that exist but that no reader
    reads (no entry, no headline). Each kept line goes under the heading it
    stood under in ``current`` (a new section at the end when the rendering
    has none), sorted by its file's stem among the lines there, as a
    rendered line would be. Nothing is looked for when no file is unreadable.
    """
    if current is None or not unreadable:
        return rendered
    kept = pointers_to(current, set(unreadable))
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
        _insert(lines, old_lines[link.line], _heading_above(old_lines, link.line), rendered_name(link.target))
    return "\n".join(lines) + ("\n" if ends_with_break else "")


def _heading_above(lines: list[str], number: int) -> str | None:
    for line in reversed(lines[:number]):
        if line.startswith(_HEADING):
            return line
    return None


def _insert(lines: list[str], line: str, heading: str | None, stem: str) -> None:
    """Put ``line`` into its section of the rendered ``lines``, in the rendering's order."""
    if heading is not None and heading in lines:
        at = lines.index(heading) + 1
        while at < len(lines) and (other := pointer_line(0, lines[at])) is not None:
            if index_order(rendered_name(other.target)) > index_order(stem):
                break
            at += 1
        lines.insert(at, line)
        return
    at = len(lines)
    if lines and lines[-1].startswith(_OMISSION):  # the omission line stays last
        at -= 2
    lines[at:at] = ["", heading, line] if heading is not None else ["", line]

