"""What ``MEMORY.md`` should become after one entry is saved in an editor.

The rule (setting ``index.onSave``):

- ``off``: the index is left alone;
- ``regenerate``: the root's index is rendered anew;
- ``auto`` (default): a policy-managed root renders its selected view; a
  legacy root is rendered anew only when ``MEMORY.md`` is absent or is
  generated (exactly memls's rendering before or after this save,
  :func:`memls.store.index.is_generated_index`), because then nobody curated it.
  Otherwise only the saved entry's line is added, updated or removed, so a
  hand-written index keeps every word a person put there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Literal

from .diagnostics import Problem
from .entry import MemoryEntry, lacks_description
from .errors import ChangedMeanwhile
from .files import FileWrite, commit, root_lock
from .index import (
    DESCRIPTION_SEPARATOR,
    INDEX_FILENAME,
    IndexPolicy,
    index_entries,
    is_generated_index,
    lines_left_behind,
    omission_budget,
    opens_like_a_rendering,
    pointer_line,
    pointers_to,
    refresh_index_line,
    remove_index_line,
    render_index,
    render_policy_view,
)
from .index_provenance import written_as_rendering
from .index_view import renderings_around
from .safe_read import text_to_rewrite
from .spans import split_lines
from .structs import struct
from .unlisted_lines import keep_unlisted_lines, renders_keeping_unlisted

IndexOnSave = Literal["auto", "regenerate", "off"]


@struct
class RootAroundSave:
    """A root's index entries before and after one save, each form computed only when asked.

    ``entries`` gives the two entry lists (file order); ``renderings`` the
    unbudgeted legacy index of each, which is all most saves need. Left
    out, the renderings come from the lists (one render, the changed files'
    lines moved). An editor passes its model's kept lines instead
    (:meth:`memls.store.index_view.IndexView.rendering_with`), so a save
    into a 10k-entry root neither lists nor renders ten thousand entries.
    """

    entries: Callable[[], tuple[Sequence[MemoryEntry], Sequence[MemoryEntry]]]
    renderings: Callable[[], tuple[str, str]] | None = None
    # The unbudgeted index before the save with each other version of the saved
    # entry its line may describe (``earlier`` of :func:`index_after_save`), or
    # none (the file was no entry yet), in its place: the editor may have taken
    # that version as the file's while the index was rendered for another --
    # another tool wrote the file before the user opened it. Left out: none.
    earlier_renderings: Callable[[], Sequence[str]] = tuple
    # The entry lists before the save with each of those versions in its place,
    # for an index cut to a budget (compared by rendering the whole list).
    earlier_entries: Callable[[], Sequence[Sequence[MemoryEntry]]] = tuple

    def rendered(self) -> tuple[str, str]:
        if self.renderings is not None:
            return self.renderings()
        before, after = self.entries()
        return renderings_around(((e.filename, e) for e in before), _changed_files(before, after))

    def rendered_earlier(self) -> Sequence[str]:
        """The unbudgeted index before the save with each earlier version of the saved entry in its place."""
        if self.renderings is not None:
            return self.earlier_renderings()
        return tuple(render_index(index_entries(entries, managed=False)) for entries in self.earlier_entries())


def index_after_save(
    *,
    around: RootAroundSave,
    saved: MemoryEntry | None,
    previous: MemoryEntry | None,
    removed_filename: str | None = None,
    policy: IndexPolicy | None,
    current: str | None,
    mode: IndexOnSave = "auto",
    earlier: Sequence[MemoryEntry] = (),
    unsaved: bool = False,
    root_dir: Path | None = None,
    unlisted: Callable[[], Collection[str]] = tuple,
) -> str | None:
    """The new ``MEMORY.md`` text, or None when it should not change.

    ``around`` holds the root's entries before and after the save; ``saved``
    is the entry as saved (None when the saved file is not an entry any
    more, then ``removed_filename`` names its file) and ``previous`` the
    entry its file held before (None: none); ``earlier`` are other versions
    of the saved entry its line may have been written for
    (:func:`memls.store.index.refresh_index_line`).

    ``unsaved``: ``current`` is an editor's buffer holding changes the user
    has not saved. Whatever the mode, the result then keeps every line of it
    but the saved entry's pointers (:func:`keeps_lines_but_pointers_to`): a
    rendering that would drop a line the user typed gives way to the curated
    rule, which changes only the entry's line.
    ``root_dir``: the root, whose ``MEMORY.md`` on disk ``current`` is; an
    index memls wrote as a rendering there stays generated
    (:mod:`memls.store.index_provenance`), and a curated line left at a
    file the saved entry was moved from by hand follows it
    (:func:`memls.store.index.lines_left_behind`).
    ``unlisted``: the root's entry files a rendering cannot list, asked only when
    the index is rendered whole, which keeps their lines
    (:mod:`memls.store.unlisted_lines`).
    Raises ValueError when a managed root's policy cannot be rendered.
    """
    if mode == "off":
        return None
    ours = root_dir is not None and current is not None and not unsaved \
        and written_as_rendering(root_dir, current.encode("utf-8"))
    moved_from = [] if root_dir is None or saved is None or current is None else lines_left_behind(
        root_dir, saved, current, lambda: around.entries()[0])
    text = _index_after_save(around, saved, previous, removed_filename, policy, current, mode, earlier, ours,
                             moved_from, unlisted)
    if unsaved and current is not None:
        entry_files = {e.filename for e in (saved, previous) if e is not None} | set(moved_from)
        if removed_filename is not None:
            entry_files.add(removed_filename)
        if not keeps_lines_but_pointers_to(current, text, entry_files):
            text = _curated_after_save(current, previous, saved, removed_filename, earlier, moved_from)
    return None if text == current else text


def line_kept_for_user(buffer: str, disk: str, new_disk: str, filename: str) -> str | None:
    """The pointer line to ``filename`` an unsaved ``buffer`` keeps, though the file's line follows the save; or None.

    ``disk`` is the file, ``new_disk`` what the save makes of it. A line the
    user changed in the buffer is theirs (a curated line keeps the words a
    person wrote), so the buffer gets no edit of it; had the user not
    changed it, the line would have followed the entry. The editor tells
    the user so that the entry's new text is not lost on them: this is the
    line to name (link and hook, as the buffer shows them).
    """
    def parts(text: str) -> list[tuple[str, str, str | None]]:
        return [(link.title, link.target, link.description) for link in pointers_to(text, {filename})]

    theirs, ours = parts(buffer), parts(new_disk)
    if not theirs or theirs == ours or ours == parts(disk):
        return None
    title, target, description = theirs[0]
    return f"[{title}]({target})" + (f"{DESCRIPTION_SEPARATOR}{description}" if description is not None else "")


def keeps_lines_but_pointers_to(old: str, new: str, filenames: Collection[str]) -> bool:
    """Whether ``new`` holds every line of ``old`` (as often), pointer lines to ``filenames`` apart.

    What an edit of a buffer the user is typing in may take away: the saved
    entry's own line, never a line of theirs.
    """
    dropped = Counter(split_lines(old)) - Counter(split_lines(new))
    return all((link := pointer_line(0, line)) is not None and link.target in filenames for line in dropped)


def _index_after_save(
    around: RootAroundSave, saved: MemoryEntry | None, previous: MemoryEntry | None, removed_filename: str | None,
    policy: IndexPolicy | None, current: str | None, mode: IndexOnSave, earlier: Sequence[MemoryEntry],
    ours: bool = False, moved_from: Sequence[str] = (), unlisted: Callable[[], Collection[str]] = tuple,
) -> str:
    """:func:`index_after_save`'s text by the mode and what ``current`` is (rendered or curated).

    ``ours``: ``current`` is the last rendering memls wrote, generated whatever changed since.
    ``moved_from``: the files the saved entry's curated line may be left at.
    """
    def whole(rendered: str) -> str:
        if current is None:
            return rendered
        return keep_unlisted_lines(current, rendered, unlisted(), policy=policy)

    if policy is not None:
        return whole(render_policy_view(index_entries(around.entries()[1], managed=True), policy))
    if mode == "regenerate" or current is None:
        return whole(around.rendered()[1])
    if omission_budget(current) is None and opens_like_a_rendering(current):
        # Unbudgeted, the usual case: generated before or after stays generated.
        rendered_before, rendered_after = around.rendered()
        if ours or current in (rendered_before, rendered_after) or current in around.rendered_earlier() or any(
                renders_keeping_unlisted(current, rendering, unlisted) for rendering in (rendered_before, rendered_after)):
            return whole(rendered_after)
    elif ours or is_generated_index(current, *around.entries(), *around.earlier_entries()):
        # Generated stays generated, cut to the budget it was rendered with.
        return whole(render_index(index_entries(around.entries()[1], managed=False),
                                  budget=omission_budget(current)))
    return _curated_after_save(current, previous, saved, removed_filename, earlier, moved_from)


def _changed_files(
    before: Sequence[MemoryEntry], after: Sequence[MemoryEntry]
) -> dict[str, MemoryEntry | None]:
    """Each file whose entry differs between the two sets, with its entry after (None: gone)."""
    old = {e.filename: e for e in before}
    new = {e.filename: e for e in after}
    changed = {}
    for filename in old.keys() | new.keys():
        was, now = old.get(filename), new.get(filename)
        if was is not now and was != now:
            changed[filename] = now
    return changed


def _curated_after_save(
    current: str, previous: MemoryEntry | None, saved: MemoryEntry | None, removed_filename: str | None,
    earlier: Sequence[MemoryEntry] = (), moved_from: Sequence[str] = (),
) -> str:
    """A curated index after a save: only the saved entry's line is added, updated or removed."""
    if saved is not None and saved.is_living:
        return refresh_index_line(current, previous, saved, earlier, moved_from)
    if saved is not None:
        return remove_index_line(current, saved.filename, moved_from)
    return remove_index_line(current, removed_filename) if removed_filename else current


def index_after_commit(
    *,
    before: Sequence[MemoryEntry] | None,
    after: Sequence[MemoryEntry],
    policy: IndexPolicy | None,
    current: str | None,
    unlisted: Collection[str] = (),
    ours: bool = False,
    cached: Sequence[MemoryEntry] | None = None,
) -> str | None:
    """The ``MEMORY.md`` a commit hook writes for one root, or None to leave it.

    A hook sees the root after any number of edits, by people and by other
    tools, and has nobody to ask; so it writes only what is memls's to write:
    a managed root's view (the policy owns it), an absent legacy index, and a
    *generated* one -- exactly memls's rendering of the entries as last
    committed (``before``; None when there is no earlier commit) or as they
    are now (:func:`memls.store.index.is_generated_index`). A curated index
    is left whole, not even a line edited: that is ``memls check --fix``'s
    job, run by a person who sees what it changes. The lines of the
    ``unlisted`` entry files stay (:mod:`memls.store.unlisted_lines`).
    ``ours``: ``current`` is the last rendering memls wrote there
    (:mod:`memls.store.index_provenance`), generated whatever changed since
    -- outside git, or before a first commit, the only sign there is besides
    ``cached``: the entries as memls's parse cache held them before files
    changed since (:meth:`memls.store.reader.RootRead.as_cached`), whose
    rendering lags behind an entry edited by hand.
    Raises ValueError when a managed root's policy cannot be rendered.
    """
    if policy is not None:
        text = render_policy_view(index_entries(after, managed=True), policy)
    elif current is None:
        text = render_index(index_entries(after, managed=False))
    else:
        budget = omission_budget(current)
        text = render_index(index_entries(after, managed=False), budget=budget)
        earlier = [entries for entries in (before, cached) if entries is not None]
        if not (ours or is_generated_index(current, *earlier, after)
                or renders_keeping_unlisted(current, text, unlisted)
                or cached is not None and (rendered := _rendering_or_none(cached, budget)) is not None
                and renders_keeping_unlisted(current, rendered, unlisted)):
            return None
    text = keep_unlisted_lines(current, text, unlisted, policy=policy)
    return None if text == current else text


def _rendering_or_none(entries: Sequence[MemoryEntry], budget: int | None) -> str | None:
    """The legacy rendering of ``entries`` under ``budget``; None for a budget too small to render."""
    try:
        return render_index(index_entries(entries, managed=False), budget=budget)
    except ValueError:
        return None


def autosave_keeps_index_line(
    saved: MemoryEntry | None, problems: Iterable[Problem], previous: MemoryEntry | None = None
) -> str | None:
    """Why an automatic save must leave the entry's ``MEMORY.md`` line as it was, or None.

    Editors save on their own after a pause in typing (VS Code's default
    ``afterDelay``: one second) or when focus moves. Such a save often
    catches a key or a value half-typed (``descdescription:``, ``name: gam``,
    ``type: proj``), and the index line it would write -- an empty
    description, a link named ``gam``, a new ``## Proj`` section -- is what
    every agent reads next. A save the user asks for publishes whatever the
    entry says; an automatic one publishes only an entry that is whole (it
    loads, has no error, still has a description) and, for an entry that
    was on disk before (``previous``), only a new description: its name,
    title, type and status -- which line, under which heading, with which
    link text -- change in the index on a manual save (or ``memls index``)
    only, since a pause cannot tell a finished name from a half-typed one.
    """
    if saved is None or any(p.severity == "error" for p in problems):
        return "has errors"
    if lacks_description(saved.description):
        return "has no description"
    if previous is not None:
        changed = [what for what, old, new in (
            ("name", previous.name, saved.name), ("title", previous.title, saved.title),
            ("type", previous.type, saved.type), ("status", previous.is_living, saved.is_living),
        ) if old != new]
        if changed:
            return f"{CHANGED_ITS} {' and '.join(changed)}"
    return None


# How a reason of :func:`autosave_keeps_index_line` that only a manual save lifts begins.
CHANGED_ITS = "changed its"


def lifted_by_manual_save_only(reason: str) -> bool:
    """Whether the entry's held line waits for a manual save (not for the entry to be finished)."""
    return reason.startswith(CHANGED_ITS)


def save_keeps_index_line(
    saved: MemoryEntry | None, problems: Iterable[Problem], *, loads: bool, automatic: bool,
    previous: MemoryEntry | None = None,
) -> str | None:
    """Why a save must leave the entry's ``MEMORY.md`` line as it was, or None.

    A document whose frontmatter does not load says nothing certain about
    the entry (the line fallback only guesses), so no save of it -- asked
    for or automatic -- may rewrite, remove or re-add its line: a curated
    line removed on such a save would come back as stock text and the
    person's words would be lost. Otherwise only an automatic save is held
    (:func:`autosave_keeps_index_line`; ``previous`` is the entry as the
    index last followed it).
    """
    if not loads:
        return "does not load (its frontmatter is not valid YAML)"
    return autosave_keeps_index_line(saved, problems, previous) if automatic else None


def commit_index(root: Path, compute: Callable[[str | None], str | None]) -> str | None:
    """Rewrite a root's ``MEMORY.md`` under the root lock, if ``compute`` says so.

    ``compute`` gets the index text as it is on disk inside the lock (None
    when absent) and returns the new text or None. The file is written only
    when the bytes change. Returns the text written, or None.
    """
    path = root / INDEX_FILENAME
    with root_lock(root):
        for attempt in range(_COMMIT_TRIES):
            read = text_to_rewrite(path)  # refuses a FIFO, a device, non-UTF-8 bytes
            data, current = (None, None) if read is None else read
            new = compute(current)
            if new is None or new == current:
                return None
            try:
                commit([FileWrite(path, new.encode("utf-8"), expected=data, expect_absent=read is None)], root=root)
            except ChangedMeanwhile:
                # An editor saved the file after it was read (editors take no memls lock):
                # computed again from what it wrote, so none of its lines is replaced.
                if attempt + 1 == _COMMIT_TRIES:
                    raise
                continue
            return new
    return None


# How many times :func:`commit_index` computes again when another program keeps writing the file.
_COMMIT_TRIES = 3
