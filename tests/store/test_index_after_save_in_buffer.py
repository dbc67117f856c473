"""``index_after_save`` for an editor's ``MEMORY.md`` with unsaved changes: only the entry's line may change."""

from __future__ import annotations

from pathlib import Path

import pytest

from memls.store.entry import MemoryEntry
from memls.store.index import IndexPolicy, line_may_describe, render_index
from memls.store.index_sync import (
    RootAroundSave,
    index_after_save,
    keeps_lines_but_pointers_to,
    line_kept_for_user,
)


def entry(name: str, description: str) -> MemoryEntry:
    return MemoryEntry(name=name, description=description, type="project", path=Path(f"/r/{name}.md"))


BEFORE = [entry("alpha", "First."), entry("beta", "Second.")]
AFTER = [entry("alpha", "First, revised."), entry("beta", "Second.")]
AROUND = RootAroundSave(lambda: (BEFORE, AFTER))
TYPED = "a line the user is typing"


def after_save(current: str, *, unsaved: bool, mode="auto", policy=None) -> str | None:
    return index_after_save(around=AROUND, saved=AFTER[0], previous=BEFORE[0], policy=policy,
                            current=current, mode=mode, unsaved=unsaved)


@pytest.mark.parametrize("mode, policy", [("regenerate", None), ("auto", IndexPolicy(1, 1000, ("beta.md",)))])
def test_a_rendering_that_would_drop_a_typed_line_gives_way_to_the_entry_line_alone(mode, policy):
    buffer = render_index(BEFORE).replace("## Project\n", f"## Project\n{TYPED}\n")
    assert TYPED not in (after_save(buffer, unsaved=False, mode=mode, policy=policy) or "")  # the file's rule
    new = after_save(buffer, unsaved=True, mode=mode, policy=policy)
    assert new == buffer.replace("- [alpha](alpha.md) \u2014 First.", "- [alpha](alpha.md) \u2014 First, revised.")


def test_a_buffer_that_is_exactly_the_rendering_stays_generated():
    assert after_save(render_index(BEFORE), unsaved=True) == render_index(AFTER)


def test_only_the_entrys_own_pointers_may_leave():
    old = "# Memory\n\n- [alpha](alpha.md) \u2014 First.\n- [beta](beta.md) \u2014 Second.\nnotes\n"
    assert keeps_lines_but_pointers_to(old, old.replace("First.", "First, revised."), {"alpha.md"})
    assert not keeps_lines_but_pointers_to(old, old.replace("Second.", "2nd"), {"alpha.md"})
    assert not keeps_lines_but_pointers_to(old, old.replace("notes\n", ""), {"alpha.md"})
    assert not keeps_lines_but_pointers_to(old + "notes\n", old, {"alpha.md"})  # a repeated line counts twice


def test_a_line_memls_wrote_for_an_earlier_version_is_found_as_that_version_s():
    index = "# Memory\n\n- [alpha](alpha.md) \u2014 First.\n"
    assert line_may_describe(index, BEFORE[0], AFTER[0])
    assert not line_may_describe(index, AFTER[0].__class__(**{**AFTER[0].__dict__, "description": "Other."}),
                                 AFTER[0])
    mine = "# Memory\n\n- [alpha](alpha.md) \u2014 my own words\n"
    assert not line_may_describe(mine, BEFORE[0], AFTER[0])  # the link text is the next save's too


def test_a_line_the_user_changed_in_the_buffer_is_named_only_when_the_file_s_would_follow():
    disk = "# Memory\n\n- [alpha](alpha.md) \u2014 First.\n"
    saved = disk.replace("First.", "First, revised.")
    mine = disk.replace("First.", "First. (read before deploys)")
    assert line_kept_for_user(mine, disk, saved, "alpha.md") == "[alpha](alpha.md) \u2014 First. (read before deploys)"
    assert line_kept_for_user(saved, disk, saved, "alpha.md") is None  # the buffer has the new line
    assert line_kept_for_user(mine, disk, disk, "alpha.md") is None  # the file's line would not change
