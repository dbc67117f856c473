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

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.apply import apply_fixes
from memls.store.check_cache import check_roots
from memls.store.entry import MemoryEntry
from memls.store.index_sync import RootAroundSave, index_after_save
from memls.store.model import Workspace
from memls.store.rename_plan import plan_rename
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings

from .store_test_helpers import entry_file, index_text, store_for

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


def server_save(root: Path, after: MemoryEntry, current: str, *, root_known: bool = True) -> str | None:
    """The server's index-on-save of ``deploy``, moved by hand to deploy-notes.md, as ``after``; ``other`` beside it."""
    root.mkdir(exist_ok=True)
    other = MemoryEntry(name="other", description="Other thing", path=root / "other.md")
    before = MemoryEntry(name="deploy", description="How we deploy", path=root / "deploy-notes.md")
    for entry in (other, after):
        assert entry.path is not None
        entry.path.write_text(entry.to_markdown(), encoding="utf-8")
    return index_after_save(around=RootAroundSave(lambda: ([before, other], [after, other])), saved=after,
                            previous=before, policy=None, current=current, root_dir=root if root_known else None)


def test_the_servers_index_on_save_points_the_line_left_behind_at_the_moved_file(tmp_path):
    root = tmp_path / "memory"
    after = MemoryEntry(name="deploy", description="How we deploy, revised", path=root / "deploy-notes.md")
    current = CURATED.replace("\n", "\r\n")
    assert server_save(root, after, current) == current.replace("(deploy.md)", "(deploy-notes.md)")
    # Without knowing the root, the line is not looked for (as before): one is appended.
    appended = server_save(root, after, current, root_known=False)
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


RETIRING = {
    "historical": lambda s: s.set_status("deploy", "historical"),
    "delete": lambda s: s.delete("deploy"),
    "supersede, the successor listed": lambda s: s.supersede("deploy", "other"),
    "rename of a superseded entry": lambda s: (s.supersede("deploy", "other"), s.rename("deploy", "shipping")),
    "save of a superseded entry": lambda s: (s.supersede("deploy", "other"),
                                             s.save("deploy", "How we deployed", "Steps, revised.")),
}


@pytest.mark.parametrize("retire", RETIRING.values(), ids=RETIRING.keys())
@pytest.mark.parametrize("at_its_file", ["", "- [deploy, again](deploy-notes.md) \u2014 more words\n"],
                         ids=["line left behind", "and a line at its file"])
def test_retiring_an_entry_moved_by_hand_takes_its_line_left_behind_away(tmp_path, retire, at_its_file):
    """A retired or deleted entry loses its curated lines; after a hand move, the line left behind is one.

    With a line at its new file too (stranger s26 F6), the line left behind stayed, broken.
    """
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text(CURATED + at_its_file, encoding="utf-8")
    (root / "deploy.md").rename(root / "deploy-notes.md")
    retire(store_for(root))
    assert index_text(root) == "# Persistent Memory\n\n- [other](other.md) \u2014 Other thing\n"


def test_a_successor_without_a_line_takes_the_place_of_the_line_left_behind(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    store_for(root).save("next", "The next way", "Body.")
    (root / "MEMORY.md").write_text(CURATED, encoding="utf-8")
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).supersede("deploy", "next")
    assert index_text(root) == CURATED.replace("- [deploy](deploy.md) \u2014 ask Sam before touching prod",
                                               "- [next](next.md) \u2014 The next way")


def test_the_servers_save_of_a_retired_moved_entry_removes_the_line_left_behind(tmp_path):
    root = tmp_path / "memory"
    after = MemoryEntry(name="deploy", description="How we deploy", path=root / "deploy-notes.md",
                        status="historical")
    assert server_save(root, after, CURATED) == "# Persistent Memory\n\n- [other](other.md) \u2014 Other thing\n"


def test_the_editors_rename_of_an_entry_moved_by_hand_retargets_its_line_left_behind(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "deploy.md").rename(root / "deploy-notes.md")
    ws = Workspace.load([MemoryRoot("explicit", root)])
    doc = ws.document(root / "deploy-notes.md")
    assert doc is not None
    fix = plan_rename(ws, doc, "shipping")
    apply_fixes([fix], {d.path: d.text for d in ws.documents()}, root=root)
    assert index_text(root) == CURATED.replace("[deploy](deploy.md)", "[shipping](shipping.md)")
    assert (root / "shipping.md").is_file() and not (root / "deploy-notes.md").exists()


@pytest.mark.parametrize("old_listed", [True, False], ids=["old listed", "old not listed"])
def test_a_successor_moved_by_hand_keeps_its_own_line_pointed_at_its_file(tmp_path, old_listed):
    """stranger s26 F2: the successor's line left behind was kept broken beside a generated one."""
    root = tmp_path / "memory"
    curated_root(root)
    index = CURATED if old_listed else CURATED.replace("- [deploy](deploy.md) \u2014 ask Sam before touching prod\n", "")
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    (root / "other.md").rename(root / "other-notes.md")
    store_for(root).supersede("deploy", "other")
    assert index_text(root) == "# Persistent Memory\n\n- [other](other-notes.md) \u2014 Other thing\n"


def test_an_entry_made_living_again_after_a_hand_move_gets_its_line_left_behind_back(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    store_for(root).set_status("deploy", "historical")
    (root / "MEMORY.md").write_text(CURATED, encoding="utf-8")  # the person kept its line
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).set_status("deploy", "living")
    assert index_text(root) == CURATED.replace("(deploy.md)", "(deploy-notes.md)")


STALE = CURATED + "- [Old](gone.md) \u2014 a stale line someone left\n"


def test_a_rename_onto_a_file_a_stale_curated_line_points_at_is_refused_and_touches_nothing(tmp_path):
    """stranger s26 F5: the stale line became a second line of the renamed entry, its words standing for it."""
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text(STALE, encoding="utf-8")
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    with pytest.raises(ValueError, match="line 5 of MEMORY.md already points at gone.md"):
        store_for(root).rename("deploy", "gone")
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before


def test_the_editors_rename_onto_such_a_file_is_refused_alike(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text(STALE, encoding="utf-8")
    ws = Workspace.load([MemoryRoot("explicit", root)])
    doc = ws.document(root / "deploy.md")
    assert doc is not None
    with pytest.raises(ValueError, match="line 5 of MEMORY.md already points at gone.md"):
        plan_rename(ws, doc, "gone")


def test_a_rename_back_onto_the_line_its_own_hand_move_left_is_no_stale_line(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    (root / "deploy.md").rename(root / "deploy-notes.md")
    store_for(root).rename("deploy", "deploy")  # the file back where its name puts it
    assert index_text(root) == CURATED
    assert (root / "deploy.md").is_file() and not (root / "deploy-notes.md").exists()


def two_claims_root(root: Path, *, other_name: str) -> str:
    """``deploy`` moved by hand to deploy-x.md, its line left at deploy.md; another entry whose name slugs to it."""
    entry_file(root, "deploy-x.md", "deploy", "How we deploy")
    entry_file(root, "dep-b.md", other_name, "Theirs")
    index = "# Persistent Memory\n\n- [D1](deploy.md) \u2014 d1 words\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    return index


WRITES_ON_THE_OTHER = {
    "historical": lambda s: s.set_status("Deploy", "historical"),
    "delete": lambda s: s.delete("Deploy"),
    "rename": lambda s: s.rename("Deploy", "zed"),
    "save": lambda s: s.save("Deploy", "Theirs, revised", "Body."),
}


@pytest.mark.parametrize("write", WRITES_ON_THE_OTHER.values(), ids=WRITES_ON_THE_OTHER.keys())
def test_a_write_on_an_entry_whose_name_only_slugs_to_the_gone_file_leaves_its_line_alone(tmp_path, write):
    """stranger s26/s26b F1: the exact name wins (``deploy`` for deploy.md), as ``memls check`` pairs them."""
    root = tmp_path / "memory"
    two_claims_root(root, other_name="Deploy")
    write(store_for(root))
    assert "- [D1](deploy.md) \u2014 d1 words\n" in index_text(root)


def test_a_line_two_slugged_names_may_mean_is_left_to_the_person(tmp_path):
    """stranger s26b F2: ``Deploy`` and ``DEPLOY`` both slug to deploy.md; neither takes its line."""
    root = tmp_path / "memory"
    root.mkdir()
    entry_file(root, "dep-a.md", "Deploy", "Mine")
    entry_file(root, "dep-c.md", "DEPLOY", "Also mine")
    (root / "MEMORY.md").write_text("# Persistent Memory\n\n- [D1](deploy.md) \u2014 d1 words\n", encoding="utf-8")
    store_for(root).set_status("Deploy", "historical")
    store_for(root).rename("DEPLOY", "zed")
    assert index_text(root) == "# Persistent Memory\n\n- [D1](deploy.md) \u2014 d1 words\n"


def test_a_rename_back_is_refused_while_the_entry_has_a_line_at_its_file_too(tmp_path):
    """stranger s26b F3: both lines would point at deploy.md, two lines of one entry."""
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text(CURATED + "- [DX](deploy-x.md) \u2014 at its file\n", encoding="utf-8")
    (root / "deploy.md").rename(root / "deploy-x.md")
    with pytest.raises(ValueError, match="line 3 of MEMORY.md already points at deploy.md"):
        store_for(root).rename("deploy", "deploy")
    ws = Workspace.load([MemoryRoot("explicit", root)])
    doc = ws.document(root / "deploy-x.md")
    assert doc is not None
    with pytest.raises(ValueError, match="line 3 of MEMORY.md already points at deploy.md"):
        plan_rename(ws, doc, "deploy")


SECOND_MOVE = CURATED.replace("(deploy.md)", "(d2.md)")  # the line after the first move's fix or save

WRITES_ON_DEPLOY = {
    "save": (lambda s: s.save("deploy", "How we deploy, revised", "Steps."), SECOND_MOVE.replace("(d2.md)", "(d3.md)")),
    "rename": (lambda s: s.rename("deploy", "ship"), SECOND_MOVE.replace("[deploy](d2.md)", "[ship](ship.md)")),
    "historical": (lambda s: s.set_status("deploy", "historical"), "# Persistent Memory\n\n- [other](other.md) \u2014 Other thing\n"),
    "delete": (lambda s: s.delete("deploy"), "# Persistent Memory\n\n- [other](other.md) \u2014 Other thing\n"),
}


@pytest.mark.parametrize("write, expected", WRITES_ON_DEPLOY.values(), ids=WRITES_ON_DEPLOY.keys())
def test_a_write_after_a_second_hand_move_takes_the_line_its_link_text_names(tmp_path, write, expected):
    """stranger s26 F3: ``mv deploy.md d2.md``, the line pointed at d2.md, then ``mv d2.md d3.md``."""
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text(SECOND_MOVE, encoding="utf-8")
    (root / "deploy.md").rename(root / "d3.md")
    write(store_for(root))
    assert index_text(root) == expected


def test_a_line_two_link_texts_name_alike_is_left_to_the_person(tmp_path):
    root = tmp_path / "memory"
    curated_root(root)
    index = SECOND_MOVE + "- [deploy](d1.md) \u2014 which one?\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    (root / "deploy.md").rename(root / "d3.md")
    store_for(root).save("deploy", "How we deploy, revised", "Steps.")
    assert index_text(root) == index + "- [deploy](d3.md) \u2014 How we deploy, revised\n"


def test_a_new_entry_is_not_saved_onto_the_line_another_entrys_hand_move_left_there(tmp_path):
    """stranger s27 F2: the new entry took the line, with words written for ``deploy``."""
    root = tmp_path / "memory"
    curated_root(root)
    index = CURATED.replace("(deploy.md)", "(deploy-notes.md)")
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    (root / "deploy.md").rename(root / "d3.md")
    with pytest.raises(ValueError, match=r"line 3 of MEMORY.md points at deploy-notes.md for 'deploy', now in d3.md"):
        store_for(root).save("deploy-notes", "An unrelated tool", "Body.")
    assert index_text(root) == index and not (root / "deploy-notes.md").exists()
    # Once the line points at its entry, the save goes ahead and appends its own line.
    (root / "MEMORY.md").write_text(index.replace("(deploy-notes.md)", "(d3.md)"), encoding="utf-8")
    store_for(root).save("deploy-notes", "An unrelated tool", "Body.")
    assert index_text(root) == index.replace("(deploy-notes.md)", "(d3.md)") + \
        "- [deploy-notes](deploy-notes.md) \u2014 An unrelated tool\n"


def test_a_new_entry_takes_a_line_at_its_file_that_names_it(tmp_path):
    """A line left by ``rm deploy-notes.md`` whose link text is the name saved again is its line (as gptme's save)."""
    root = tmp_path / "memory"
    curated_root(root)
    (root / "MEMORY.md").write_text(CURATED + "- [deploy-notes](deploy-notes.md) \u2014 my notes\n", encoding="utf-8")
    store_for(root).save("deploy-notes", "An unrelated tool", "Body.")
    assert index_text(root) == CURATED + "- [deploy-notes](deploy-notes.md) \u2014 my notes\n"


AMBIGUOUS_TEXT = "# Persistent Memory\n\n- [deploy](deploy-notes.md) \u2014 my words\n"
WRITES_BESIDE_A_TITLE = {
    "delete the titled entry": (lambda s: s.delete("ship"), AMBIGUOUS_TEXT),
    "save the titled entry": (lambda s: s.save("ship", "S2", "Body."), AMBIGUOUS_TEXT),
    "save the named entry": (lambda s: s.save("deploy", "D2", "Body."),
                             AMBIGUOUS_TEXT + "- [deploy](d3.md) \u2014 D2\n"),
}


@pytest.mark.parametrize("write, expected", WRITES_BESIDE_A_TITLE.values(), ids=WRITES_BESIDE_A_TITLE.keys())
def test_a_line_whose_link_text_is_one_entrys_name_and_anothers_title_is_left_to_the_person(tmp_path, write, expected):
    """stranger s27b F2a, F3: ``ship`` titled "deploy" and ``deploy`` moved; whichever was saved first took the line."""
    root = tmp_path / "memory"
    entry_file(root, "ship.md", "ship", "S", extra="title: deploy\n")
    entry_file(root, "d3.md", "deploy", "D")
    (root / "MEMORY.md").write_text(AMBIGUOUS_TEXT, encoding="utf-8")
    write(store_for(root))
    assert index_text(root).startswith(expected)
    assert "- [deploy](deploy-notes.md) \u2014 my words\n" in index_text(root)


def test_an_entry_with_a_line_at_its_file_does_not_take_a_line_by_its_link_text(tmp_path):
    """stranger s27b F2b: ``historical alpha`` removed a line at a gone file that ``memls check`` keeps."""
    root = tmp_path / "memory"
    entry_file(root, "alpha.md", "alpha", "A")
    index = "# Persistent Memory\n\n- [Alpha fact](alpha.md) \u2014 by hand\n- [alpha](gone.md) \u2014 a gone memory\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    store_for(root).set_status("alpha", "historical")
    assert index_text(root) == "# Persistent Memory\n\n- [alpha](gone.md) \u2014 a gone memory\n"
