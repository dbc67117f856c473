"""A generated MEMORY.md that lags behind an entry changed by hand stays generated.

An editor (or another tool) changes an entry's description and nothing renders
the index again before the agent's next write. The index is then memls's
rendering of the root as it was, which the parse cache still holds; the write
renders it whole again, as gptme would, instead of taking it for a curated
index forever. An index a person shortened stays curated.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

HOUR_NS = 3600 * 10**9


class Clock:
    """The time the store reads: an hour ahead (every file settled) unless ``fresh`` (files just written are racy)."""

    def __init__(self) -> None:
        self.fresh = False

    def __call__(self) -> int:
        return time.time_ns() + (0 if self.fresh else HOUR_NS)


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Every file counts as settled, so the parse cache keeps it (as it would an hour later)."""
    now = Clock()
    for module in ("cache", "reader"):
        monkeypatch.setattr(f"memls.store.{module}.now_ns", now)
    return now


def a_new_process(root: Path) -> MemoryStore:
    """What a fresh ``memls`` command holds: nothing but the files and the cache."""
    return MemoryStore([MemoryRoot("explicit", root)])


def generated_root(root: Path) -> None:
    store = a_new_process(root)
    store.save("alpha", "Alpha thing.", type="project")
    store.save("beta", "Beta thing.", type="project")
    store.save("gamma", "Gamma thing.", type="project")
    store.write_index()
    assert a_new_process(root).check_index()  # a read since: the cache holds every entry


def edit_by_hand(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def test_a_save_after_an_entry_changed_by_hand_renders_the_lagging_index_again(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    generated_root(root)
    edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited in the editor.")
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == store.render_root_index()
    assert index.index("## User") < index.index("## Project")
    assert "Beta, edited in the editor." in index


def test_a_lagging_index_after_an_entry_was_deleted_by_hand_is_rendered_again(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    generated_root(root)
    (root / "gamma.md").unlink()
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == store.render_root_index()


def test_an_index_a_person_shortened_stays_curated_when_another_entry_changed(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    generated_root(root)
    edit_by_hand(root / "MEMORY.md", "- [gamma](gamma.md) \u2014 Gamma thing.\n", "")
    edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited in the editor.")
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "gamma.md" not in index
    assert index.endswith("- [tz](tz.md) \u2014 Works from Stockholm.\n")


def rendered_while_beta_was_fresh(root: Path, clock: Clock) -> None:
    """A generated root whose beta a person edited a moment before a save rendered the index."""
    generated_root(root)
    clock.fresh = True
    edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited.")
    a_new_process(root).save("delta", "Delta thing.", type="project")
    clock.fresh = False


def test_an_index_a_save_rendered_while_an_entry_was_fresh_stays_generated(tmp_path: Path, clock: Clock) -> None:
    """Stranger s24a: an entry edited a moment before a save is too fresh for the parse cache to keep,
    so the index that save rendered matched no state the cache knew once the entry was edited again:
    the next save took memls's own index for a curated one, kept the stale line and appended its own."""
    root = tmp_path / "memory"
    rendered_while_beta_was_fresh(root, clock)
    edit_by_hand(root / "beta.md", "Beta, edited.", "Beta, edited twice.")
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == store.render_root_index()


def test_an_index_rendered_after_changes_the_parse_cache_did_not_store_stays_generated(tmp_path: Path) -> None:
    """The parse cache is not rewritten for a few changed files of a large root: what it holds is older
    than the index a save rendered, and an entry edited again made that index look curated."""
    root = tmp_path / "memory"
    generated_root(root)
    for i in range(400):  # a root whose parse cache is not rewritten for a changed file or two
        (root / f"more-{i:03d}.md").write_text(f"---\nname: more-{i:03d}\ndescription: More {i}.\n---\n",
                                              encoding="utf-8")
    a_new_process(root).write_index()
    assert a_new_process(root).check_index()
    edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited.")
    a_new_process(root).save("delta", "Delta thing.", type="project")
    edit_by_hand(root / "beta.md", "Beta, edited.", "Beta, edited twice.")
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == store.render_root_index()


def test_an_index_memls_rendered_and_a_person_then_edited_stays_curated(tmp_path: Path, clock: Clock) -> None:
    """Only the very bytes memls wrote count: one line changed by hand, and the index is the person's."""
    root = tmp_path / "memory"
    rendered_while_beta_was_fresh(root, clock)
    edit_by_hand(root / "MEMORY.md", "\u2014 Alpha thing.", "\u2014 Alpha: ask Sam first.")
    edit_by_hand(root / "beta.md", "Beta, edited.", "Beta, edited twice.")
    a_new_process(root).save("tz", "Works from Stockholm.", type="user")
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "\u2014 Alpha: ask Sam first." in index
    assert index.endswith("- [tz](tz.md) \u2014 Works from Stockholm.\n")


def same_bytes_written_again(path: Path) -> None:
    """Another tool writes the file anew with the bytes it held: a new identity, the same bytes."""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)


@pytest.mark.parametrize("again", ["rewritten", "edit-undone"])
def test_the_bytes_memls_rendered_written_again_are_still_its_rendering(tmp_path: Path, again: str) -> None:
    """Stranger s29b: after a checkout or copy wrote the same bytes, or a hand edit of MEMORY.md was
    undone byte for byte, memls took its own rendering for a curated index once an entry changed."""
    root = tmp_path / "memory"
    generated_root(root)
    edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited in the editor.")
    index = root / "MEMORY.md"
    if again == "rewritten":
        same_bytes_written_again(index)
    else:
        edit_by_hand(index, "\u2014 Alpha thing.", "\u2014 Alpha: ask Sam.")
        edit_by_hand(index, "\u2014 Alpha: ask Sam.", "\u2014 Alpha thing.")
    a_new_process(root).check_index()  # a read since: the parse cache holds beta as edited, no earlier state
    store = a_new_process(root)
    store.save("delta", "Delta thing.", type="project")
    assert index.read_text(encoding="utf-8") == store.render_root_index()


def long_lived_and_new(tmp_path: Path) -> tuple[dict[str, Path], MemoryStore]:
    """Two generated roots after one save each: by a store kept from then on, and by a new process."""
    roots = {who: tmp_path / who / "memory" for who in ("long-lived", "new")}
    for root in roots.values():
        generated_root(root)
    store = a_new_process(roots["long-lived"])
    store.save("delta", "Delta thing.", type="project")  # its first write: the root is kept warm from here
    a_new_process(roots["new"]).save("delta", "Delta thing.", type="project")
    return roots, store


@pytest.mark.parametrize("by_hand", ["edited", "deleted"])
def test_a_long_lived_store_renders_a_lagging_index_again_as_a_new_process_does(tmp_path: Path, by_hand: str) -> None:
    """Stranger s26, finding 2: a store that had written once kept no earlier state of the root, so
    after another tool wrote the generated index again and an entry changed by hand, it took the
    lagging index for a curated one and kept the entry's stale line."""
    roots, store = long_lived_and_new(tmp_path)
    for root in roots.values():
        same_bytes_written_again(root / "MEMORY.md")
        if by_hand == "edited":
            edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited in the editor.")
        else:
            (root / "gamma.md").unlink()
    store.save("tz", "Works from Stockholm.", type="user")
    a_new_process(roots["new"]).save("tz", "Works from Stockholm.", type="user")
    index = (roots["long-lived"] / "MEMORY.md").read_text(encoding="utf-8")
    assert index == (roots["new"] / "MEMORY.md").read_text(encoding="utf-8")
    assert index == store.render_root_index()


def test_a_long_lived_store_forgets_an_earlier_state_once_a_write_has_read_past_it(tmp_path: Path) -> None:
    """Stranger s27: a write that found no file changed kept the earlier state the last write had seen.
    So after another tool put an old copy of the index back, the long-lived store took it for a lagging
    rendering and rendered it whole, where a new process (whose parse cache holds the entry as it is
    now) sees a curated index and leaves it be."""
    roots, store = long_lived_and_new(tmp_path)
    old_copies = {}
    for root in roots.values():
        old_copies[root] = (root / "MEMORY.md").read_bytes()
        same_bytes_written_again(root / "MEMORY.md")
        edit_by_hand(root / "beta.md", "Beta thing.", "Beta, edited in the editor.")
    store.save("alpha", "Alpha thing.", type="project")  # changes no entry; renders the lagging index
    a_new_process(roots["new"]).save("alpha", "Alpha thing.", type="project")
    for root in roots.values():
        assert "Beta, edited in the editor." in (root / "MEMORY.md").read_text(encoding="utf-8")
        (root / "MEMORY.md").unlink()
        (root / "MEMORY.md").write_bytes(old_copies[root])  # another tool puts the old copy back
    store.save("alpha", "Alpha thing.", type="project")
    a_new_process(roots["new"]).save("alpha", "Alpha thing.", type="project")
    index = (roots["long-lived"] / "MEMORY.md").read_bytes()
    assert index == (roots["new"] / "MEMORY.md").read_bytes() == old_copies[roots["new"]]


def rendered_by_another_tool(root: Path) -> None:
    """A generated root whose MEMORY.md another tool wrote (gptme-util): memls keeps no provenance of those bytes."""
    root.mkdir(parents=True)
    for name, description in (("alpha", "Alpha thing."), ("beta", "Beta thing."), ("gamma", "Gamma thing.")):
        (root / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n---\n\nBody.\n", encoding="utf-8")
    (root / "MEMORY.md").write_text(a_new_process(root).render_root_index(), encoding="utf-8")


def test_a_lagging_index_holding_a_kept_line_stays_generated_after_an_entry_edited_by_hand(tmp_path: Path) -> None:
    """Stranger s30, P3: the state the parse cache held was compared only as an exact rendering, so an
    index that also kept the line of an entry that had turned unreadable counted as curated."""
    root = tmp_path / "memory"
    rendered_by_another_tool(root)
    a_new_process(root).entries()
    (root / "alpha.md").write_text("the frontmatter was deleted\n", encoding="utf-8")
    a_new_process(root).entries()  # the cache holds alpha unreadable; the index keeps its line
    edit_by_hand(root / "gamma.md", "Gamma thing.", "Gamma, edited in the editor.")
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    text = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [gamma](gamma.md) \u2014 Gamma, edited in the editor." in text
    assert "- [alpha](alpha.md) \u2014 Alpha thing." in text  # the unreadable entry's line, kept
    assert text.index("## User") < text.index("## Project")


def rendered_and_read(root: Path, names: list[str], kinds: list[str]) -> Path:
    """A root of ``names`` (of ``kinds``) whose MEMORY.md another tool rendered, read since (the cache holds it all)."""
    root.mkdir()
    for name, kind in zip(names, kinds):
        (root / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: The {name} thing.\nmetadata:\n  type: {kind}\n---\n\nBody.\n",
            encoding="utf-8")
    (root / "MEMORY.md").write_text(a_new_process(root).render_root_index(), encoding="utf-8")
    a_new_process(root).entries()
    return root


NAMES = ("alpha", "beta", "gamma", "delta", "epsilon")
TYPES = ("user", "project", "feedback")
# What a person may write into a generated index, each in the shape memls writes a line (stranger s31).
PERSON_LINES = {
    "a planned entry's line": lambda root, names: ("- [plan](plan.md) \u2014 Q3 plan: write after kickoff", None),
    "a section of ideas": lambda root, names: ("## Ideas\n- [rust-port](rust-port.md) \u2014 maybe port the CLI", None),
    "a note on an entry's line": lambda root, names: (
        f"- [{names[0]}]({names[0]}.md) \u2014 The {names[0]} thing. DO NOT re-add: vetoed", names[0]),
}
WRITES: dict[str, Callable[[MemoryStore, str], object]] = {
    "save": lambda store, other: store.save("tz", "Works from Stockholm.", type="user"),
    "delete": lambda store, other: store.delete(other),
    "rename": lambda store, other: store.rename(other, f"{other}-renamed"),
    "historical": lambda store, other: store.set_status(other, "historical"),
    "supersede": lambda store, other: (store.save("tz", "Works from Stockholm.", type="user"),
                                       store.supersede(other, "tz")),
}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.sampled_from(NAMES), min_size=2, unique=True),
       kinds=st.lists(st.sampled_from(TYPES), min_size=len(NAMES), max_size=len(NAMES)),
       person=st.sampled_from(sorted(PERSON_LINES)), write=st.sampled_from(sorted(WRITES)),
       deleted=st.booleans(), moved=st.booleans())
def test_no_write_drops_a_line_a_person_wrote_at_a_missing_file_in_the_shape_memls_writes(
    names: list[str], kinds: list[str], person: str, write: str, deleted: bool, moved: bool,
) -> None:
    """Stranger s31: lines at files that do not exist (an entry planned, or one deleted by hand, with a note
    added to its line) read like the lines of entries deleted since a rendering; a rule that took such an
    index for generated dropped them. Whatever files a person also deleted or moved by hand, a write to
    another entry keeps every line they wrote."""
    with tempfile.TemporaryDirectory() as where:
        root = rendered_and_read(Path(where) / "memory", names, kinds)
        line, annotated = PERSON_LINES[person](root, names)
        if annotated is None:
            (root / "MEMORY.md").write_text((root / "MEMORY.md").read_text(encoding="utf-8") + f"\n{line}\n",
                                            encoding="utf-8")
        else:
            edit_by_hand(root / "MEMORY.md", f"- [{annotated}]({annotated}.md) \u2014 The {annotated} thing.", line)
            (root / f"{annotated}.md").unlink()  # the note is why the entry went
        others = [name for name in names if name != annotated]
        if deleted and len(others) > 1:
            (root / f"{others.pop()}.md").unlink()
        if moved and len(others) > 1:
            gone = others.pop()
            (root / f"{gone}.md").rename(root / f"{gone}-notes.md")
        a_new_process(root).entries()  # the cache forgets the files that went
        WRITES[write](a_new_process(root), others[0])
        assert line in (root / "MEMORY.md").read_text(encoding="utf-8")
def rendered_then_read_again(root: Path) -> None:
    """A root whose MEMORY.md another tool rendered, read since: the parse cache holds every entry."""
    rendered_by_another_tool(root)
    a_new_process(root).entries()


def test_an_index_stays_generated_after_an_entry_file_was_deleted_by_hand_and_the_root_read_since(tmp_path: Path) -> None:
    """Stranger s30, P1: the read after the deletion rewrote the parse cache without the file, so no state
    memls knew rendered the index (its line of the gone entry aside); the save took it for curated and
    appended its line at the end, keeping the dead one."""
    root = tmp_path / "memory"
    rendered_then_read_again(root)
    (root / "gamma.md").unlink()
    a_new_process(root).entries()  # `memls list`: the cache forgets gamma
    store = a_new_process(root)
    store.save("tz", "Works from Stockholm.", type="user")
    text = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert text == store.render_root_index()
    assert "gamma.md" not in text and text.index("## User") < text.index("## Project")


# A file moved by hand is not among them: the new file, which the parse cache never held, counts as
# there all along (as a person's new entry does, whose line they may have left out on purpose).
HAND_CHANGES = ("deleted", "edited", "kept")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.sampled_from(NAMES), min_size=2, unique=True),
       kinds=st.lists(st.sampled_from(TYPES), min_size=len(NAMES), max_size=len(NAMES)),
       fates=st.lists(st.sampled_from(HAND_CHANGES), min_size=len(NAMES), max_size=len(NAMES)),
       reads=st.lists(st.integers(0, len(NAMES)), max_size=3), person_edits_index=st.booleans())
def test_an_index_rendered_before_hand_changes_stays_generated_through_the_reads_between(
    names: list[str], kinds: list[str], fates: list[str], reads: list[int], person_edits_index: bool,
) -> None:
    """Another tool rendered the index; a person then deleted or edited entry files by hand, with
    reads (`memls list`) between the changes, each of which may rewrite the parse cache without the state
    the index renders. The next save renders the index whole, unless the person also edited the index."""
    with tempfile.TemporaryDirectory() as where:
        root = rendered_and_read(Path(where) / "memory", names, kinds)
        for at, (name, fate) in enumerate(zip(names, fates)):
            if fate == "deleted":
                (root / f"{name}.md").unlink()
            elif fate == "edited":
                edit_by_hand(root / f"{name}.md", f"The {name} thing.", f"The {name} thing, edited.")
            if at in reads:
                a_new_process(root).entries()
        if person_edits_index:
            edit_by_hand(root / "MEMORY.md", "# Persistent Memory\n", "# Persistent Memory\n\nMy own words.\n")
        a_new_process(root).entries()
        store = a_new_process(root)
        store.save("tz", "Works from Stockholm.", type="user")
        text = (root / "MEMORY.md").read_text(encoding="utf-8")
        if person_edits_index:
            assert "My own words." in text and text.endswith("- [tz](tz.md) \u2014 Works from Stockholm.\n")
        else:
            assert text == store.render_root_index()
