"""``index_after_commit``: what a commit hook may write to ``MEMORY.md``, decided without a person."""

from __future__ import annotations

from pathlib import Path

from memls.store.entry import MemoryEntry
from memls.store.index import IndexPolicy, render_index, render_policy_view
from memls.store.index_sync import index_after_commit


def entry(name: str, description: str) -> MemoryEntry:
    return MemoryEntry(name=name, description=description, type="project", path=Path(f"/r/{name}.md"))


BEFORE = [entry("alpha", "First."), entry("beta", "Second.")]
AFTER = [entry("alpha", "First, revised."), entry("beta", "Second.")]


def test_an_index_generated_for_the_committed_entries_is_rendered_for_the_new_ones():
    assert index_after_commit(before=BEFORE, after=AFTER, policy=None,
                              current=render_index(BEFORE)) == render_index(AFTER)


def test_a_rendered_index_keeps_the_line_of_an_entry_file_that_no_longer_reads():
    """beta.md was committed half written: its line stays, the rest is rendered for the new entries."""
    after = [entry("alpha", "First, revised.")]
    assert index_after_commit(before=BEFORE, after=after, policy=None, current=render_index(BEFORE),
                              unlisted=["beta.md"]) == render_index(AFTER)
    assert index_after_commit(before=BEFORE, after=after, policy=None,
                              current=render_index(BEFORE)) == render_index(after)


def test_an_index_already_current_is_left_as_it_is():
    assert index_after_commit(before=BEFORE, after=AFTER, policy=None, current=render_index(AFTER)) is None


def test_a_curated_index_is_never_rewritten_not_even_one_line():
    curated = render_index(BEFORE).replace("— First.", "— read me first")
    assert index_after_commit(before=BEFORE, after=AFTER, policy=None, current=curated) is None


def test_without_an_earlier_commit_only_an_exact_rendering_counts_as_generated():
    assert index_after_commit(before=None, after=AFTER, policy=None, current=render_index(BEFORE)) is None


def test_an_absent_index_is_rendered():
    assert index_after_commit(before=None, after=AFTER, policy=None, current=None) == render_index(AFTER)


def test_a_managed_root_gets_its_policy_view_whatever_the_index_holds():
    policy = IndexPolicy(1, 1000, ("beta.md",))
    assert index_after_commit(before=BEFORE, after=AFTER, policy=policy, current="hand text\n") == (
        render_policy_view(AFTER, policy))


def test_commit_index_computes_again_from_what_an_editor_saved_after_the_read(tmp_path: Path) -> None:
    """An editor takes no memls lock: its save between memls's read and write keeps its line."""
    from memls.store.index_sync import commit_index

    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md) — a\n", encoding="utf-8")
    seen: list[str | None] = []

    def add_b(current: str | None) -> str:
        seen.append(current)
        if len(seen) == 1:  # the editor saves right after memls read the file
            index.write_text("- [a](a.md) — a\n- my own line\n", encoding="utf-8")
        return (current or "") + "- [b](b.md) — b\n"

    written = commit_index(tmp_path, add_b)
    assert seen == ["- [a](a.md) — a\n", "- [a](a.md) — a\n- my own line\n"]
    assert index.read_text(encoding="utf-8") == "- [a](a.md) — a\n- my own line\n- [b](b.md) — b\n" == written
