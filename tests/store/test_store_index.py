"""render_root_index / write_index / check_index on one physical root."""

from __future__ import annotations

import os
import stat

import pytest

from .store_test_helpers import entry_file, index_text, store_for, write_policy

GOLDEN = """# Persistent Memory

## Feedback
- [fb](fb.md) — F

## Project
- [a-proj](a-proj.md) — A
- [b-proj](b-proj.md) — B

## Decision
- [custom](custom.md) — C
"""


@pytest.fixture
def root(tmp_path):
    return tmp_path / "memory"


@pytest.fixture
def mstore(root):
    return store_for(root)


def golden_root(mstore):
    mstore.save("b-proj", "B", type="project")
    mstore.save("a-proj", "A", type="project")
    mstore.save("fb", "F", type="feedback")
    mstore.save("custom", "C", type="decision")
    mstore.save("gone", "G", type="project")
    mstore.set_status("gone", "historical")


def test_render_root_index_groups_living_entries_like_gptme(mstore):
    golden_root(mstore)
    assert mstore.render_root_index() == GOLDEN


def test_check_index_is_false_before_write_and_true_after(mstore, root):
    golden_root(mstore)
    (root / "MEMORY.md").write_text("# Persistent Memory\n", encoding="utf-8")
    assert mstore.check_index() is False
    assert mstore.write_index() == root / "MEMORY.md"
    assert index_text(root) == GOLDEN
    assert mstore.check_index() is True


def test_check_index_is_false_without_an_index(mstore, root):
    entry_file(root, "fact.md")
    assert mstore.check_index() is False


def test_a_crlf_copy_of_a_correct_index_is_not_up_to_date(mstore, root):
    golden_root(mstore)
    (root / "MEMORY.md").write_bytes(GOLDEN.replace("\n", "\r\n").encode())
    assert mstore.check_index() is False


def test_write_index_leaves_an_up_to_date_file_untouched(mstore, root):
    golden_root(mstore)
    mstore.write_index()
    inode = (root / "MEMORY.md").stat().st_ino
    mstore.write_index()
    assert (root / "MEMORY.md").stat().st_ino == inode


def test_write_index_keeps_a_private_mode(mstore, root):
    golden_root(mstore)
    (root / "MEMORY.md").write_text("stale\n", encoding="utf-8")
    os.chmod(root / "MEMORY.md", 0o600)
    mstore.write_index()
    assert (root / "MEMORY.md").stat().st_mode & 0o777 == 0o600


def test_budget_truncates_with_an_omission_line(mstore):
    for i in range(20):
        mstore.save(f"entry-{i:02d}", "x" * 40)
    text = mstore.render_root_index(budget=400)
    assert len(text.encode()) <= 400 and "more entries omitted (budget 400 bytes)" in text
    assert text == mstore.render_root_index(budget=400)
    assert len(mstore.render_root_index().encode()) > 400


@pytest.mark.parametrize("budget", [0, 1])
def test_tiny_budget_is_too_small(mstore, budget):
    mstore.save("fact", "d")
    with pytest.raises(ValueError, match="too small"):
        mstore.render_root_index(budget=budget)


def test_index_is_built_from_the_first_physical_root_only(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    entry_file(first, "one.md")
    entry_file(second, "two.md")
    s = store_for(first, second)
    s.write_index("explicit")
    assert "(one.md)" in index_text(first) and "(two.md)" not in index_text(first)


def test_managed_index_keeps_files_sharing_a_name(mstore, root):
    entry_file(root, "a.md", name="same", description="first")
    entry_file(root, "z.md", name="same", description="second")
    assert len(mstore.index_entries()) == 1
    write_policy(root, ["a.md", "z.md"])
    assert [e.filename for e in mstore.index_entries()] == ["a.md", "z.md"]
    text = mstore.render_root_index()
    assert "(a.md) — first" in text and "(z.md) — second" in text


def test_one_shot_budget_can_tighten_but_not_raise_the_policy_cap(mstore, root):
    mstore.save("fact", "d")
    size = len(mstore.render_index(mstore.entries()).encode())
    write_policy(root, ["fact.md"], budget=size)
    assert mstore.render_root_index(budget=size + 100) == mstore.render_root_index()
    with pytest.raises(ValueError, match="exceeds budget"):
        mstore.render_root_index(budget=size - 1)


def test_render_and_check_work_when_the_lock_cannot_be_taken(mstore, root):
    golden_root(mstore)
    mstore.write_index()
    (root / ".memory.lock").unlink()
    (root / ".memory.lock").mkdir()  # like a read-only root: the lock file cannot be opened
    assert mstore.render_root_index() == GOLDEN
    assert mstore.check_index() is True


def test_render_of_a_missing_root_creates_nothing(mstore, root):
    assert mstore.render_root_index() == "# Persistent Memory\n"
    assert mstore.check_index() is False
    assert not root.exists()


def unreadable_index(root, kind: str) -> bytes | None:
    """Put a ``MEMORY.md`` memls cannot read in place; its bytes when it is a regular file."""
    index = root / "MEMORY.md"
    index.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(index)
        return None
    if kind == "zero":
        index.symlink_to("/dev/zero")
        return None
    data = b"# M\n- [x](fb.md) \xff\xfe hook\n- [g](gone.md) - broken\n"
    index.write_bytes(data)
    return data


def assert_index_kept(root, kind: str, data: bytes | None) -> None:
    index = root / "MEMORY.md"
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(index).st_mode)
    elif kind == "zero":
        assert os.readlink(index) == "/dev/zero"
    else:
        assert index.read_bytes() == data


@pytest.mark.timeout(30)  # a FIFO opened for reading blocks; /dev/zero read whole never ends
@pytest.mark.parametrize("kind", ["fifo", "zero", "non-utf8"])
def test_no_write_replaces_an_index_memls_cannot_read(mstore, root, kind):
    from memls.store.index_sync import commit_index

    golden_root(mstore)
    data = unreadable_index(root, kind)
    refusal = "not UTF-8 text" if kind == "non-utf8" else "not a regular file"
    with pytest.raises((OSError, ValueError), match=refusal):
        mstore.save("another", "A", type="project")
    assert not (root / "another.md").exists()
    with pytest.raises((OSError, ValueError), match=refusal):
        mstore.write_index()
    with pytest.raises((OSError, ValueError), match=refusal):
        commit_index(root, lambda current: "# Persistent Memory\n")
    assert mstore.check_index() is False
    assert_index_kept(root, kind, data)
