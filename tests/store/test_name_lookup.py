"""A NAME means the entry whose ``name`` equals it, in every store method that takes one.

Roots here cross names and file stems (``bar.md`` holds ``name: foo``) and
give two names one slug (``API Keys`` and ``api-keys``): the shapes in which a
stem-first lookup acted on the wrong entry.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store import AmbiguousNameError, MemoryEntry
from memls.store.lookup import entry_to_save, resolve_name
from memls.store.names import slugify

from .name_roots import NAMES, STEMS, SUCCESSOR, crossed_roots, meant
from .store_test_helpers import entry_file, snapshot, store_for


def entries(*pairs: tuple[str, str]) -> list[MemoryEntry]:
    """(filename, name) pairs as entries in file order."""
    return [MemoryEntry(name=name, path=Path("/m") / filename) for filename, name in pairs]


def crossed(root: Path) -> None:
    entry_file(root, "bar.md", name="foo", description="the entry named foo")
    entry_file(root, "foo.md", name="bar", description="the entry named bar")


# -- the resolver ---------------------------------------------------------------------


def test_an_exact_name_wins_over_another_entrys_file_stem():
    root = entries(("bar.md", "foo"), ("foo.md", "bar"))
    assert resolve_name(root, "bar").filename == "foo.md"
    assert resolve_name(root, "foo").filename == "bar.md"


def test_an_exact_name_wins_over_another_entry_named_by_its_slug():
    root = entries(("api-keys-2.md", "api-keys"), ("api-keys.md", "API Keys"))
    assert resolve_name(root, "API Keys").filename == "api-keys.md"
    assert resolve_name(root, "api-keys").filename == "api-keys-2.md"


def test_a_stem_or_slug_match_is_used_when_no_entry_has_the_name():
    assert resolve_name(entries(("notes.md", "Team Notes")), "notes").name == "Team Notes"
    assert resolve_name(entries(("x.md", "my-fact")), "My Fact").name == "my-fact"
    assert resolve_name(entries(("my-fact.md", "Fact")), "My Fact").name == "Fact"
    assert resolve_name(entries(("a.md", "a")), "b") is None


def test_two_stem_or_slug_matches_refuse_naming_both_files_and_the_way_out():
    root = entries(("api-keys.md", "Keys"), ("b.md", "api-keys"), ("c.md", "other"))
    with pytest.raises(AmbiguousNameError) as caught:
        resolve_name(root, "API KEYS")
    message = str(caught.value)
    assert "api-keys.md" in message and "b.md" in message and "c.md" not in message
    assert "give the exact name" in message and "'Keys'" in message and "'api-keys'" in message
    assert "\n" not in message


def test_a_hidden_duplicate_is_never_what_a_name_means():
    root = entries(("a.md", "dup"), ("z.md", "dup"))
    assert resolve_name(root, "dup").filename == "a.md"
    assert resolve_name(root, "z") is None  # z.md's name is shadowed: readers never see it


def test_a_save_matches_the_name_then_the_slug_never_a_stem():
    root = entries(("api-keys.md", "API Keys"), ("cafe-notes.md", "café-notes"), ("x.md", "my-fact"))
    assert entry_to_save(root, "api-keys") is None
    assert entry_to_save(root, "café-notes").filename == "cafe-notes.md"
    assert entry_to_save(root, "My Fact").filename == "x.md"


# -- the store's methods: the reproductions -----------------------------------------


def test_delete_acts_on_the_exact_name_not_a_file_stem(tmp_path):
    root = tmp_path / "memory"
    crossed(root)
    assert store_for(root).delete("bar").path == root / "foo.md"
    assert not (root / "foo.md").exists()
    assert store_for(root).get("foo").path == root / "bar.md"


def test_rename_acts_on_the_exact_name_not_a_file_stem(tmp_path):
    root = tmp_path / "memory"
    crossed(root)
    before = (root / "bar.md").read_bytes()
    renamed = store_for(root).rename("bar", "baz")
    assert (renamed.path, renamed.description) == (root / "baz.md", "the entry named bar")
    assert not (root / "foo.md").exists() and (root / "bar.md").read_bytes() == before


def test_set_status_acts_on_the_exact_name_not_a_file_stem(tmp_path):
    root = tmp_path / "memory"
    crossed(root)
    before = (root / "bar.md").read_bytes()
    marked = store_for(root).set_status("bar", "historical")
    assert marked.path == root / "foo.md" and "status: historical" in (root / "foo.md").read_text()
    assert (root / "bar.md").read_bytes() == before


def test_supersede_acts_on_the_exact_names_not_file_stems(tmp_path):
    root = tmp_path / "memory"
    crossed(root)
    old, new = store_for(root).supersede("bar", "foo")
    assert (old.path, old.superseded_by) == (root / "foo.md", "foo")
    assert (new.path, new.supersedes) == (root / "bar.md", ["bar"])


def test_supersede_retires_the_entry_named_api_keys_not_the_one_named_by_its_slug(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "api-keys.md", name="API Keys")
    entry_file(root, "api-keys-2.md", name="api-keys")
    entry_file(root, "vault.md", name="vault")
    before = (root / "api-keys-2.md").read_bytes()
    old, _ = store_for(root).supersede("API Keys", "vault")
    assert (old.path, old.status) == (root / "api-keys.md", "superseded")
    assert (root / "api-keys-2.md").read_bytes() == before


def test_get_refuses_a_name_two_entries_match_only_by_stem_or_slug(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "api-keys.md", name="Keys")
    entry_file(root, "b.md", name="api-keys")
    with pytest.raises(AmbiguousNameError, match="api-keys.md.*b.md"):
        store_for(root).get("API KEYS")
    assert store_for(root).get("Keys").path == root / "api-keys.md"


def test_save_refuses_to_overwrite_the_file_of_another_entry(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "api-keys.md", name="API Keys", body="the real keys\n")
    before = snapshot(root)
    with pytest.raises(ValueError, match="api-keys.md holds another entry, 'API Keys'") as caught:
        store_for(root).save("api-keys", "d", "replacement")
    assert "save under that exact name" in str(caught.value)
    assert snapshot(root) == before


def test_save_updates_the_exact_name_in_place_wherever_its_file_is(tmp_path):
    root = tmp_path / "memory"
    entry_file(root, "cafe-notes.md", name="café-notes", body="old\n")
    path = store_for(root).save("café-notes", "new", "new body")
    assert path == root / "cafe-notes.md"
    assert sorted(p.name for p in root.glob("*.md")) == ["MEMORY.md", "cafe-notes.md"]
    saved = store_for(root).get("café-notes")
    assert (saved.name, saved.description, saved.body) == ("café-notes", "new", "new body")


def test_save_of_a_differently_spelled_name_updates_the_entry_it_created(tmp_path):
    root = tmp_path / "memory"
    store = store_for(root)
    first = store.save("My Fact", "one")
    assert store.save("my fact", "two") == first
    assert [(e.name, e.description) for e in store.entries()] == [("my-fact", "two")]


# -- the property: random roots with crossed names and shared slugs --------------------------

def act(store, command: str, name: str):
    if command == "get":
        found = store.get(name)
        if found is None:
            raise KeyError(name)
        return found.path
    if command == "delete":
        return store.delete(name).path
    if command == "historical":
        return store.set_status(name, "historical").path
    if command == "rename":
        return store.rename(name, "renamed").path
    old, _ = store.supersede(name, SUCCESSOR)
    return old.path


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root_files=crossed_roots(), name=st.sampled_from(NAMES + STEMS),
       command=st.sampled_from(["get", "delete", "historical", "rename", "supersede"]))
def test_every_command_acts_on_the_entry_with_that_exact_name_or_refuses(root_files, name, command):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        for filename, entry_name in root_files.items():
            entry_file(root, filename, name=entry_name, description=f"from {filename}")
        entry_file(root, f"{SUCCESSOR}.md")
        store = store_for(root)
        store.write_index()
        before = snapshot(root)
        expected = meant(root_files, name)
        if isinstance(expected, list):
            with pytest.raises(AmbiguousNameError) as caught:
                act(store, command, name)
            assert all(f in str(caught.value) for f in expected)
            assert snapshot(root) == before
            return
        if expected is None:
            with pytest.raises(KeyError):
                act(store, command, name)
            assert snapshot(root) == before
            return
        acted = act(store, command, name)
        after = snapshot(root)
        allowed = {expected, "MEMORY.md", *([f"{SUCCESSOR}.md"] if command == "supersede" else [])}
        if command == "rename":
            assert acted == root / "renamed.md"
            assert store.get("renamed").description == f"from {expected}"
            allowed.add("renamed.md")
        else:
            assert acted == root / expected
        changed = {f for f in before.keys() | after.keys() if before.get(f) != after.get(f)}
        assert changed <= allowed, (changed, allowed)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root_files=crossed_roots(), name=st.sampled_from(NAMES + STEMS))
def test_save_updates_the_entry_with_that_name_or_refuses_and_never_touches_another(root_files, name):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        for filename, entry_name in root_files.items():
            entry_file(root, filename, name=entry_name)
        before = snapshot(root)
        by_name = {n: f for f, n in root_files.items()}
        target = by_name.get(name) or by_name.get(slugify(name))
        new_file = f"{slugify(name)}.md"
        if target is None and new_file in root_files:
            with pytest.raises(ValueError, match=f"{new_file} holds another entry, {root_files[new_file]!r}"):
                store_for(root).save(name, "saved", "saved body")
            assert snapshot(root) == before
            return
        path = store_for(root).save(name, "saved", "saved body")
        target = target or new_file
        assert path == root / target
        after = snapshot(root)
        changed = {f for f in before.keys() | after.keys() if before.get(f) != after.get(f)}
        assert changed <= {target, "MEMORY.md"}
        saved = store_for(root).get(root_files.get(target, slugify(name)))
        assert (saved.path, saved.body) == (root / target, "saved body")
