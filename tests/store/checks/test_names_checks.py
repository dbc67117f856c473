"""The names family: reserved ``memory*`` names and files, and slug collisions.

Each test builds a minimal root and asserts code, severity and exact span;
each fix is applied through ``apply_fixes``, the root is checked again, and
the problem is gone, nothing new appeared, the engine's audit is clean and
the entry is visible to the readers.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from memls.store.apply import apply_fixes
from memls.store.checks import fixes_for
from memls.store.checks.names import rename_to_free_name
from memls.store.roots import MemoryRoot
from memls.store.spans import Span
from memls.store.store import MemoryStore

from .conftest import entry_text


def only(checked, code, path=None):
    found = checked.problems(code, path)
    assert len(found) == 1, found
    return found[0]


def root_of(checked) -> Path:
    return checked.workspace.roots[0].path


def apply_only_fix(check_root, checked, problem):
    [fix] = fixes_for(checked.ctx, problem)
    assert not fix.safe
    texts = {doc.path: doc.text for doc in checked.workspace.documents()}
    apply_fixes([fix], texts, root=root_of(checked))
    return check_root({})


def assert_clean_after(before, after, code):
    assert not after.problems(code)
    grown = Counter(p.code for p in after.problems()) - Counter(p.code for p in before.problems())
    assert not grown, after.problems()
    assert MemoryStore([MemoryRoot("explicit", root_of(after))]).audit() == []


# -- reserved-name: a memory*.md file holding an entry ------------------------------------


def test_entry_in_a_memory_file_is_reserved_at_its_name(check_root):
    checked = check_root({"memory-notes.md": entry_text("notes")})
    problem = only(checked, "reserved-name")
    assert problem.severity == "error"
    assert problem.span == Span(1, 6, 1, 11)
    assert "memory-notes.md holds the entry 'notes'" in problem.message
    assert "invisible" in problem.message


def test_uppercase_memory_file_with_entry_is_reserved(check_root):
    checked = check_root({"Memory-Tips.md": entry_text("tips")})
    assert only(checked, "reserved-name").path.name == "Memory-Tips.md"


def test_memory_file_without_frontmatter_is_not_reserved_name(check_root):
    checked = check_root({"memory-archive.md": "# archived lines\n", "a.md": entry_text("a")})
    assert not checked.problems("reserved-name")


def test_moving_the_entry_out_of_the_memory_file_makes_it_visible(check_root):
    before = check_root({"memory-notes.md": entry_text("notes"), "a.md": entry_text("a")})
    after = apply_only_fix(check_root, before, only(before, "reserved-name"))
    assert_clean_after(before, after, "reserved-name")
    root = root_of(after)
    assert (root / "notes.md").read_text() == entry_text("notes")
    assert not (root / "memory-notes.md").exists()
    assert MemoryStore([MemoryRoot("explicit", root)]).get("notes") is not None


def test_memory_file_with_a_reserved_name_is_renamed_with_its_name(check_root):
    before = check_root({"memory-tips.md": entry_text("memory-tips"), "a.md": entry_text("a")})
    [fix] = fixes_for(before.ctx, only(before, "reserved-name"))
    assert fix.title == "Rename 'memory-tips' to 'tips' (memory-tips.md to tips.md)"
    after = apply_only_fix(check_root, before, only(before, "reserved-name"))
    assert_clean_after(before, after, "reserved-name")
    assert after.workspace.entries_named("tips")[0].path.name == "tips.md"


# -- reserved-name: a name whose slug starts with memory -------------------------------------


def test_name_with_memory_prefix_is_reserved_at_its_value(check_root):
    checked = check_root({"x.md": entry_text("Memory X")})
    problem = only(checked, "reserved-name")
    assert problem.span == Span(1, 6, 1, 14)
    assert "name 'Memory X' is reserved" in problem.message
    assert "memory-x.md" in problem.message


def test_names_merely_containing_memory_are_not_reserved(check_root):
    checked = check_root({"memories.md": entry_text("memories"), "my-memory.md": entry_text("my-memory")})
    assert not checked.problems("reserved-name")


def test_reserved_name_fix_renames_and_relinks(check_root):
    files = {
        "tips.md": entry_text("memory-tips", extra="status: superseded\nsuperseded_by: new\n"),
        "new.md": entry_text("new", extra="supersedes: [memory-tips]\n"),
    }
    before = check_root(files)
    problem = only(before, "reserved-name")
    after = apply_only_fix(check_root, before, problem)
    assert_clean_after(before, after, "reserved-name")
    root = root_of(after)
    assert "supersedes: [tips]\n" in (root / "new.md").read_text()
    assert after.workspace.entries_named("tips")[0].path.name == "tips.md"


# -- slug-collision ---------------------------------------------------------------------------


def test_two_names_with_one_slug_collide_on_both_with_related(check_root):
    checked = check_root({"my-fact.md": entry_text("My Fact"), "other.md": entry_text("my fact")})
    problems = {p.path.name: p for p in checked.problems("slug-collision")}
    assert set(problems) == {"my-fact.md", "other.md"}
    mine, theirs = problems["my-fact.md"], problems["other.md"]
    assert mine.severity == "error"
    assert mine.span == Span(1, 6, 1, 13)
    assert "same slug 'my-fact' as 'my fact' (other.md)" in mine.message
    [related] = mine.related
    assert related.location.path.name == "other.md"
    assert related.location.span == Span(1, 6, 1, 13)
    assert theirs.related[0].location.path.name == "my-fact.md"


def test_same_name_twice_is_not_a_slug_collision(check_root):
    checked = check_root({"a.md": entry_text("a"), "b.md": entry_text("a")})
    assert not checked.problems("slug-collision")


def test_renaming_one_colliding_entry_clears_both(check_root):
    before = check_root({"my-fact.md": entry_text("My Fact"), "other.md": entry_text("my fact")})
    problem = only(before, "slug-collision", root_of(before) / "other.md")
    after = apply_only_fix(check_root, before, problem)
    assert_clean_after(before, after, "slug-collision")
    assert after.workspace.entries_named("my-fact-2")[0].path.name == "my-fact-2.md"


def test_rename_to_free_name_is_shared_for_duplicates(check_root):
    checked = check_root({"a.md": entry_text("a"), "b.md": entry_text("a")})
    doc = checked.workspace.document(root_of(checked) / "b.md")
    fix = rename_to_free_name(checked.ctx, doc)
    assert fix is not None and fix.title == "Rename 'a' to 'a-2' (b.md to a-2.md)"
