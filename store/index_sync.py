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

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from .entry import MemoryEntry
from .files import FileWrite, commit, root_lock
from .index import (
    INDEX_FILENAME,
    IndexPolicy,
    index_entries,
    is_generated_index,
    omission_budget,
    refresh_index_line,
    remove_index_line,
    render_index,
    render_policy_view,
)

IndexOnSave = Literal["auto", "regenerate", "off"]


def index_after_save(
    *,
    before: Sequence[MemoryEntry],
    after: Sequence[MemoryEntry],
    saved: MemoryEntry | None,
    removed_filename: str | None = None,
    policy: IndexPolicy | None,
    current: str | None,
    mode: IndexOnSave = "auto",
) -> str | None:
    """The new ``MEMORY.md`` text, or None when it should not change.

    ``before``/``after`` are the root's entries (file order) before and
    after the save; ``saved`` is the entry as saved (None when the saved file
    is not an entry any more, then ``removed_filename`` names its file).
    Raises ValueError when a managed root's policy cannot be rendered.
    """
    if mode == "off":
        return None
    managed = policy is not None
    if managed:
        assert policy is not None
        text = render_policy_view(index_entries(after, managed=True), policy)
    elif mode == "regenerate" or current is None:
        text = render_index(index_entries(after, managed=False))
    elif is_generated_index(current, before, after):
        # Generated stays generated, cut to the budget it was rendered with.
        text = render_index(index_entries(after, managed=False), budget=omission_budget(current))
    elif saved is not None and saved.is_living:
        previous = next((e for e in before if e.filename == saved.filename), None)
        text = refresh_index_line(current, previous, saved)
    else:
        filename = saved.filename if saved is not None else removed_filename
        text = remove_index_line(current, filename) if filename else current
    return None if text == current else text


def commit_index(root: Path, compute: Callable[[str | None], str | None]) -> str | None:
    """Rewrite a root's ``MEMORY.md`` under the root lock, if ``compute`` says so.

    ``compute`` gets the index text as it is on disk inside the lock (None
    when absent) and returns the new text or None. The file is written only
    when the bytes change. Returns the text written, or None.
    """
    path = root / INDEX_FILENAME
    with root_lock(root):
        try:
            current = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            current = None
        new = compute(current)
        if new is None or new == current:
            return None
        commit([FileWrite(path, new.encode("utf-8"))], root=root)
        return new
