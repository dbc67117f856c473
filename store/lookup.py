"""Which entry a NAME means: the one rule every command, server command and fix follows.

A NAME means the entry whose ``name`` equals it. An entry's name need not be
its file's stem (``bar.md`` may hold ``name: foo``), and two names may share
a slug (``API Keys`` and ``api-keys``), so matching a stem or a slug first
would let ``delete bar`` remove the entry named ``foo``. A stem or slug match
(gptme's lookup accepts both, so ``show my-fact`` finds ``My Fact``) is used
only when no entry has the exact name, and only when it is unique: when two
entries match that way the lookup refuses with both files named, because
picking either one could act on an entry the user did not mean.

Candidates come in the readers' order (nearest root first, then file name);
only the first entry of each name is visible, as for every reader, so a
hidden duplicate is never what a NAME means.

``save`` asks a narrower question (:func:`entry_to_save`): a save never
matches a stem, it updates the entry it would have created.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from typing import TypeVar

from .errors import AmbiguousNameError
from .names import slugify
from .reader import ENTRY_SUFFIX

T = TypeVar("T")

_name = attrgetter("name")
_filename = attrgetter("filename")


def resolve_name(
    candidates: Iterable[T],
    name: str,
    *,
    name_of: Callable[[T], str | None] = _name,
    filename_of: Callable[[T], str] = _filename,
) -> T | None:
    """The visible entry ``name`` means, None when none matches.

    The entry named exactly ``name`` wins; else the one entry whose name is
    ``slugify(name)`` or whose file stem is ``name`` or its slug. Raises
    :class:`AmbiguousNameError` when several entries match that way.
    ``name_of`` and ``filename_of`` read a candidate (by default its
    ``name`` and ``filename``), so reads that hold file records instead of
    entries use the same rule.
    """
    fallback: list[T] = []
    slug = slugify(name)
    wanted = {name, slug}
    for candidate in _visible(candidates, name_of):
        entry_name = name_of(candidate)
        if entry_name == name:
            return candidate
        if entry_name == slug or _stem(filename_of(candidate)) in wanted:
            fallback.append(candidate)
    if len(fallback) > 1:
        raise AmbiguousNameError(_ambiguity(name, fallback, name_of, filename_of))
    return fallback[0] if fallback else None


def entry_to_save(
    candidates: Iterable[T], name: str, *, name_of: Callable[[T], str | None] = _name
) -> T | None:
    """The visible entry a ``save`` of ``name`` updates in place, None for a new entry.

    The entry named ``name``, else the one named ``slugify(name)``: a new
    entry is written under its slug as its name (gptme's rule), so that is
    the entry an earlier save of the same name created. A file stem never
    counts: a file whose stem is the slug but which holds another entry is
    that other entry's, and a save must not overwrite it.
    """
    visible: dict[str, T] = {}
    for candidate in _visible(candidates, name_of):
        visible[name_of(candidate)] = candidate  # type: ignore[index]  # _visible skips None
    return save_target(name, visible.get)


def save_target(name: str, visible: Callable[[str], T | None]) -> T | None:
    """:func:`entry_to_save`, asked of a reader that knows which file shows each name.

    ``visible(n)`` is what readers show under the name ``n`` (None: nothing),
    so a write looks up two names instead of walking every file.
    """
    for wanted in (name, slugify(name)):
        found = visible(wanted)
        if found is not None:
            return found
    return None


def _visible(candidates: Iterable[T], name_of: Callable[[T], str | None]) -> Iterator[T]:
    """The first candidate of each name (the one every reader returns)."""
    seen: set[str] = set()
    for candidate in candidates:
        entry_name = name_of(candidate)
        if entry_name is None or entry_name in seen:
            continue
        seen.add(entry_name)
        yield candidate


def _stem(filename: str) -> str:
    return filename[: -len(ENTRY_SUFFIX)] if filename.endswith(ENTRY_SUFFIX) else filename


def _ambiguity(
    name: str,
    matches: list[T],
    name_of: Callable[[T], str | None],
    filename_of: Callable[[T], str],
) -> str:
    found = ", ".join(f"{filename_of(m)} (name {name_of(m)!r})" for m in matches)
    choices = " or ".join(repr(name_of(m)) for m in matches)
    return (
        f"name {name!r} is ambiguous: no entry has exactly that name, and it matches "
        f"{found} by file name or slug; give the exact name of the one you mean ({choices})"
    )
