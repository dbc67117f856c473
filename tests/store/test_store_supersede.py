"""MemoryStore.supersede: linked entries, one atomic commit, curated indexes kept."""

from __future__ import annotations

import json
import os

import pytest

from memls.store import MemoryFrontmatterError, MemoryRoot, MemoryStore

from .store_test_helpers import entry_file, index_text, snapshot, store_for, write_policy


@pytest.fixture
def root(tmp_path):
    return tmp_path / "memory"


@pytest.fixture
def mstore(root):
    return store_for(root)


def test_supersede_links_both_and_retires_old_from_the_index(mstore, root):
    mstore.save("old", "o", type="project")
    mstore.save("new", "n", type="project")
    old, new = mstore.supersede("old", "new")
    assert (old.status, old.superseded_by, new.supersedes) == ("superseded", "new", ["old"])
    assert not mstore.get("old").is_living
    assert "(new.md)" in index_text(root) and "(old.md)" not in index_text(root)
    assert mstore.audit() == []


def test_supersede_with_malformed_old_raises_and_leaves_it_unchanged(mstore, root):
    mstore.save("new", "n")
    (root / "old.md").write_text("---\nname: old\ndescription: [x\n---\n", encoding="utf-8")
    before = snapshot(root)
    with pytest.raises(MemoryFrontmatterError, match="invalid YAML"):
        mstore.supersede("old", "new")
    assert snapshot(root) == before


def test_supersede_refuses_an_entry_superseding_itself(mstore):
    mstore.save("one", "d")
    with pytest.raises(ValueError, match="itself"):
        mstore.supersede("one", "one")


def test_repeating_the_same_supersede_is_idempotent(mstore, root):
    mstore.save("old", "o")
    mstore.save("new", "n")
    mstore.supersede("old", "new")
    before = snapshot(root)
    inodes = {p.name: p.stat().st_ino for p in root.iterdir()}
    mstore.supersede("old", "new")
    assert snapshot(root) == before
    assert {p.name: p.stat().st_ino for p in root.iterdir()} == inodes


def test_superseded_entry_cannot_be_a_replacement_or_be_superseded_again(mstore):
    for name in ("old", "a", "b"):
        mstore.save(name, "d")
    mstore.supersede("old", "a")
    with pytest.raises(ValueError, match="'old' is not living"):
        mstore.supersede("a", "old")
    with pytest.raises(ValueError, match="'old' is not living"):
        mstore.supersede("old", "b")


def test_supersede_never_crosses_into_a_second_root_of_the_same_scope(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    entry_file(first, "new.md")
    entry_file(second, "old.md")
    s = store_for(first, second)
    with pytest.raises(KeyError, match="old"):
        s.supersede("old", "new")
    entry_file(first, "old2.md")
    entry_file(second, "new2.md")
    with pytest.raises(KeyError, match="new2"):
        s.supersede("old2", "new2")


def test_supersede_across_scopes_names_the_missing_entry(tmp_path):
    project, user = tmp_path / "p", tmp_path / "u"
    entry_file(project, "old.md")
    entry_file(user, "new.md")
    s = MemoryStore([MemoryRoot("project", project), MemoryRoot("user", user)])
    with pytest.raises(KeyError, match="new"):
        s.supersede("old", "new", scope="project")


def test_supersede_in_a_missing_root_raises_key_error_and_creates_nothing(mstore, root):
    with pytest.raises(KeyError, match="old"):
        mstore.supersede("old", "new")
    assert not root.exists()


def test_supersede_transfers_the_policy_selection(mstore, root):
    for name in ("old", "tail", "new"):
        mstore.save(name, "d")
    write_policy(root, ["old.md", "tail.md", "new.md"])
    mstore.supersede("old", "new")
    policy = json.loads((root / ".memory-index.json").read_text(encoding="utf-8"))
    assert policy["selected"] == ["new.md", "tail.md"]
    assert index_text(root).count("(new.md)") == 1
    assert mstore.check_index()


def test_supersede_over_budget_changes_nothing(mstore, root):
    mstore.save("old", "o")
    mstore.save("new", "a much longer description than the old one had")
    write_policy(root, ["old.md"], budget=len(mstore.render_index([mstore.get("old")]).encode()))
    mstore.write_index()
    before = snapshot(root)
    with pytest.raises(ValueError, match="budget"):
        mstore.supersede("old", "new")
    assert snapshot(root) == before
    assert mstore.get("old").is_living


def test_supersede_regenerates_a_generated_index(mstore, root):
    mstore.save("old", "o", type="feedback")
    mstore.save("new", "n", type="project")
    mstore.write_index()
    mstore.supersede("old", "new")
    assert index_text(root) == mstore.render_root_index()


def test_supersede_edits_only_lines_of_an_index_saves_appended_to(mstore, root):
    # gptme's saves append lines under the header: not memls's rendering, so curated.
    mstore.save("keep", "k", type="user")
    mstore.save("old", "o", type="feedback")
    mstore.save("new", "n", type="project")
    mstore.supersede("old", "new")
    assert index_text(root) == "# Persistent Memory\n\n- [keep](keep.md) — k\n- [new](new.md) — n\n"


def test_supersede_puts_the_successor_in_place_of_the_old_line_in_a_curated_index(mstore, root):
    mstore.save("old", "o")
    mstore.save("new", "n")
    (root / "MEMORY.md").write_text(
        "# My index\n\nRead first:\n- [Old one](old.md) — o\nThe end.\n", encoding="utf-8"
    )
    mstore.supersede("old", "new")
    assert index_text(root) == "# My index\n\nRead first:\n- [new](new.md) — n\nThe end.\n"


def test_supersede_in_a_curated_index_drops_old_line_when_successor_is_listed(mstore, root):
    mstore.save("old", "o")
    mstore.save("new", "n")
    (root / "MEMORY.md").write_text(
        "Notes\n- [old](old.md) — o\n- [new](new.md) — n\n", encoding="utf-8"
    )
    mstore.supersede("old", "new")
    assert index_text(root) == "Notes\n- [new](new.md) — n\n"


def test_supersede_keeps_private_file_modes(mstore, root):
    mstore.save("old", "o")
    mstore.save("new", "n")
    for name in ("old.md", "new.md", "MEMORY.md"):
        os.chmod(root / name, 0o600)
    mstore.supersede("old", "new")
    assert {n: (root / n).stat().st_mode & 0o777 for n in ("old.md", "new.md", "MEMORY.md")} == {
        "old.md": 0o600, "new.md": 0o600, "MEMORY.md": 0o600,
    }


def test_supersede_failing_mid_commit_restores_every_file(mstore, root, monkeypatch):
    mstore.save("old", "o")
    mstore.save("new", "n")
    before = snapshot(root)
    real_replace = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space left"):
        mstore.supersede("old", "new")
    monkeypatch.undo()
    assert snapshot(root) == before
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("written", ['"two\\nlines"', '"nul\\0byte"', "'a[b'"])
def test_supersede_refuses_a_successor_whose_name_would_break_its_index_line(mstore, root, written):
    mstore.save("old", "o")
    (root / "odd.md").write_text(f"---\nname: {written}\ndescription: d\n---\n", encoding="utf-8")
    name = next(e.name for e in mstore.entries() if e.path.name == "odd.md")
    before = snapshot(root)
    with pytest.raises(ValueError, match="would break its MEMORY.md line"):
        mstore.supersede("old", name)
    assert snapshot(root) == before


@pytest.mark.parametrize("ending", ["\n", ""], ids=["newline", "no-final-newline"])
def test_supersede_rewriting_a_whole_frontmatter_adds_no_blank_line_to_an_empty_body(mstore, root, ending):
    # A flow mapping cannot be edited key by key: the entry is serialized again,
    # and what followed the closing line (nothing) must stay nothing.
    mstore.save("old", "o")
    (root / "new.md").write_text("---\n{name: new, description: n}\n---" + ending, encoding="utf-8")
    mstore.supersede("old", "new")
    text = (root / "new.md").read_text(encoding="utf-8")
    assert text.endswith("supersedes:\n- old\n---" + ending)


def test_supersede_rewriting_a_whole_frontmatter_keeps_the_body_bytes(mstore, root):
    mstore.save("old", "o")
    (root / "new.md").write_text("---\n{name: new, description: n}\n---\nbody right under\n\n\n", encoding="utf-8")
    mstore.supersede("old", "new")
    assert (root / "new.md").read_text(encoding="utf-8").endswith("---\nbody right under\n\n\n")


RERENDERED = """\
---
name: new
description: 'n: quoted'
metadata:
  type: project
  owner: &who alice
{supersedes}
reviewer: *who
status: living
confidence: 0.50
custom: yes
---
body
"""


@pytest.mark.parametrize(
    "supersedes",
    ["supersedes: &lst [a]\nkeywords: *lst", "supersedes: &lst\n- a\nkeywords: *lst",
     "supersedes: &e []\nkeywords: *e"],
    ids=["flow", "block", "empty"],
)
def test_supersede_refuses_a_rewrite_that_would_change_other_keys_and_leaves_the_file(mstore, root, supersedes):
    # The list is shared through its anchor, so no edit grows only it; the whole
    # serialization would drop 'status: living', write 'yes' as 'true', '0.50' as
    # '0.5' and rename the anchors. Refused, like a lost comment.
    mstore.save("old", "o")
    (root / "new.md").write_text(RERENDERED.format(supersedes=supersedes), encoding="utf-8")
    before = snapshot(root)
    with pytest.raises(ValueError, match="new.md cannot be edited in place.*make this change by hand"):
        mstore.supersede("old", "new")
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("written", "expected"),
    [("supersedes: &lst [a]  # c", "supersedes: &lst [a, old]  # c"),
     ("supersedes: !!seq [a]", "supersedes: !!seq [a, old]")],
    ids=["anchored", "tagged"],
)
def test_supersede_appends_in_place_to_an_anchored_or_tagged_flow_list(mstore, root, written, expected):
    mstore.save("old", "o")
    (root / "new.md").write_text(RERENDERED.format(supersedes=written), encoding="utf-8")
    mstore.supersede("old", "new")
    assert (root / "new.md").read_text(encoding="utf-8") == RERENDERED.format(supersedes=expected)


@pytest.mark.parametrize("name", ["a: b", "*star", "!bang", "%pct", "x #y", "yes", "end:", "'sq"])
def test_a_hand_written_name_needing_quotes_can_supersede_and_be_superseded(mstore, root, name):
    """Written raw (as gptme writes names), ``name: a: b`` would not load: the supersede was refused."""
    mstore.save("old", "o", type="project")
    mstore.save("newer", "n2", type="project")
    root.joinpath("new.md").write_text(
        f'---\nname: "{name}"\ndescription: n\nmetadata:\n  type: project\n---\nbody\n', encoding="utf-8")
    old, new = mstore.supersede("old", name)
    assert (old.superseded_by, new.name, new.supersedes) == (name, name, ["old"])
    assert mstore.get(name).supersedes == ["old"]
    new, newer = mstore.supersede(name, "newer")
    assert (new.superseded_by, newer.supersedes) == ("newer", [name])
    assert mstore.audit() == []
