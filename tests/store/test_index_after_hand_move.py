"""A save of an entry moved by hand (``mv deploy.md deploy-notes.md``) points its curated line at its file.

The move leaves the line of ``deploy`` pointing at ``deploy.md``. A save used
to append a second, generated line and leave the broken one, which the next
``memls check --fix`` removed with the words a person wrote on it. Now the
save takes the line left at the file the entry's name gives, as the line of
the entry, through both writers: the store's transaction (the CLI) and the
server's index-on-save (:func:`memls.store.index_sync.index_after_save`).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.check_cache import check_roots
from memls.store.entry import MemoryEntry
from memls.store.index_sync import RootAroundSave, index_after_save
from memls.store.settings import Settings

from .store_test_helpers import index_text, store_for

CURATED = (
    "# Persistent Memory\n\n"
    "- [deploy](deploy.md) \u2014 ask Sam before touching prod\n"
    "- [other](other.md) \u2014 Other thing\n"
)


def curated_root(root: Path) -> None:
    mstore = store_for(root)
    mstore.save("deploy", "How we deploy", "Steps.")
    mstore.save("other", "Other thing", "Body.")
    (root / "MEMORY.md").write_text(CURATED, encoding="utf-8")


def test_a_save_after_a_hand_move_points_the_curated_line_at_the_file_and_keeps_its_words(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).save("deploy", "How we deploy, revised", "Steps.")
    assert index_text(root) == CURATED.replace("(deploy.md)", "(deploy-notes.md)")


def test_the_fix_after_such_a_save_has_nothing_left_to_remove(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "memory"
    curated_root(root)
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).save("deploy", "How we deploy, revised", "Steps.")
    run = check_roots(store_for(root).roots, Settings())
    codes = {p.code for problems in run.results.values() for p in problems}
    assert not codes & {"index-broken-link", "index-missing-entry", "index-duplicate-link"}


def test_a_file_at_the_old_name_keeps_its_line_and_the_moved_entry_gets_its_own(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "deploy.md").rename(root / "deploy-notes.md")
    (root / "deploy.md").write_text("not an entry any more\n", encoding="utf-8")  # a file memls cannot read
    store_for(root).save("deploy", "How we deploy, revised", "Steps.")
    text = index_text(root)
    assert "- [deploy](deploy.md) \u2014 ask Sam before touching prod\n" in text
    assert text.endswith("- [deploy](deploy-notes.md) \u2014 How we deploy, revised\n")


def test_an_entry_never_listed_gets_a_line_appended_as_before(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text("# Persistent Memory\n\n- [other](other.md) \u2014 mine\n", encoding="utf-8")
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).save("deploy", "How we deploy, revised", "Steps.")
    assert index_text(root) == ("# Persistent Memory\n\n- [other](other.md) \u2014 mine\n"
                                "- [deploy](deploy-notes.md) \u2014 How we deploy, revised\n")


def test_the_servers_index_on_save_points_the_line_left_behind_at_the_moved_file(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    other = MemoryEntry(name="other", description="Other thing", path=root / "other.md")
    before = MemoryEntry(name="deploy", description="How we deploy", path=root / "deploy-notes.md")
    after = MemoryEntry(name="deploy", description="How we deploy, revised", path=root / "deploy-notes.md")
    for entry in (other, after):
        assert entry.path is not None
        entry.path.write_text(entry.to_markdown(), encoding="utf-8")
    current = CURATED.replace("\n", "\r\n")
    new = index_after_save(around=RootAroundSave(lambda: ([before, other], [after, other])), saved=after,
                           previous=before, policy=None, current=current, root_dir=root)
    assert new == current.replace("(deploy.md)", "(deploy-notes.md)")
    # Without knowing the root, the line is not looked for (as before): one is appended.
    appended = index_after_save(around=RootAroundSave(lambda: ([before, other], [after, other])), saved=after,
                                previous=before, policy=None, current=current)
    assert appended is not None and "(deploy.md)" in appended and appended.count("deploy-notes.md") == 1


WORDS = st.text(st.characters(categories=["L", "N"], include_characters=" ,."), min_size=1, max_size=20).map(
    lambda s: s.strip() or "words")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(WORDS, min_size=4, max_size=4), moved=st.sets(st.integers(0, 3), min_size=1),
       saved=st.sets(st.integers(0, 3)), crlf=st.booleans())
def test_saves_after_hand_moves_lose_no_curated_words(tmp_path_factory, words, moved, saved, crlf):
    root = tmp_path_factory.mktemp("moves") / "memory"
    mstore = store_for(root)
    names = [f"entry-{i}" for i in range(4)]
    for name in names:
        mstore.save(name, f"Stock text of {name}", "Body.")
    eol = "\r\n" if crlf else "\n"
    lines = [f"- [{name}]({name}.md) \u2014 {word}" for name, word in zip(names, words)]
    (root / "MEMORY.md").write_bytes(eol.join(["# Persistent Memory", "", *lines, ""]).encode("utf-8"))
    for i in moved:
        (root / f"{names[i]}.md").rename(root / f"{names[i]}-moved.md")
    for i in sorted(saved):
        store_for(root).save(names[i], f"Stock text of {names[i]}, revised", "Body.")
    text = (root / "MEMORY.md").read_bytes().decode("utf-8")
    expected = [line.replace(f"({names[i]}.md)", f"({names[i]}-moved.md)") if i in moved & saved else line
                for i, line in enumerate(lines)]
    # Every curated line stays, in its place, with its words; a saved moved entry's line points at its file.
    assert text == eol.join(["# Persistent Memory", "", *expected, ""])


def test_a_rename_of_an_entry_moved_by_hand_takes_its_curated_line_along(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).rename("deploy", "shipping")
    assert index_text(root) == CURATED.replace("[deploy](deploy.md)", "[shipping](shipping.md)")
