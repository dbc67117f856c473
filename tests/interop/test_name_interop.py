"""Which entry a NAME means: memls against the real gptme 0.35.1 on the same roots.

gptme's lookup takes the first entry, in name order, whose name or file stem
equals the NAME or its slug, and its ``save`` writes ``<slug>.md`` whatever
that file holds. memls acts on the entry whose ``name`` equals the NAME. Each
test here pins one difference listed in the README ("Differences from
gptme"), by running both tools on identical roots; where they agree, it says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memls import store

from ..store.store_test_helpers import entry_file, snapshot

gm = pytest.importorskip("gptme.memory", reason="gptme 0.35.1 (interop extra) is not installed")


def twin_roots(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """The same root (filename -> name) twice: one for gptme, one for memls."""
    roots = (tmp_path / "gptme", tmp_path / "memls")
    for root in roots:
        for filename, name in files.items():
            entry_file(root, filename, name=name, description=f"from {filename}", body=f"body of {name}\n")
    return roots


def gptme_store(root: Path):
    return gm.MemoryStore([gm.MemoryRoot("explicit", root)])


def memls_store(root: Path):
    return store.MemoryStore([store.MemoryRoot("explicit", root)])


def test_save_over_another_entrys_file_gptme_replaces_its_body_memls_refuses(tmp_path):
    g, m = twin_roots(tmp_path, {"api-keys.md": "API Keys"})
    gptme_store(g).save("api-keys", "d", "replacement")
    assert "body of API Keys" not in (g / "api-keys.md").read_text()  # gptme lost the body
    before = snapshot(m)
    with pytest.raises(ValueError, match="holds another entry, 'API Keys'"):
        memls_store(m).save("api-keys", "d", "replacement")
    assert snapshot(m) == before


def test_save_of_a_name_whose_file_is_elsewhere_gptme_adds_a_twin_memls_updates_it(tmp_path):
    g, m = twin_roots(tmp_path, {"cafe-notes.md": "café-notes"})
    gptme_store(g).save("café-notes", "d", "new body")
    assert sorted(p.name for p in g.glob("*.md")) == ["MEMORY.md", "caf-notes.md", "cafe-notes.md"]
    assert memls_store(m).save("café-notes", "d", "new body") == m / "cafe-notes.md"
    assert sorted(p.name for p in m.glob("*.md")) == ["MEMORY.md", "cafe-notes.md"]


def test_supersede_when_a_stem_match_sorts_first_gptme_retires_it_memls_the_named_entry(tmp_path):
    """The issue's crossed root: ``bar.md`` holds ``foo``, ``foo.md`` holds ``bar``."""
    files = {"bar.md": "foo", "foo.md": "bar", "succ.md": "succ"}
    g, m = twin_roots(tmp_path, files)
    old, _ = gptme_store(g).supersede("foo", "succ")
    assert (old.path.name, old.name) == ("foo.md", "bar")
    old, _ = memls_store(m).supersede("foo", "succ")
    assert (old.path.name, old.name) == ("bar.md", "foo")


def test_a_name_two_entries_match_by_stem_or_slug_gptme_picks_one_memls_refuses(tmp_path):
    g, m = twin_roots(tmp_path, {"api-keys.md": "Keys", "b.md": "api-keys-x", "c.md": "api-keys"})
    assert gptme_store(g).get("API KEYS").path.name == "api-keys.md"
    with pytest.raises(store.AmbiguousNameError, match="api-keys.md.*c.md"):
        memls_store(m).get("API KEYS")


def test_an_exact_name_or_a_unique_stem_both_tools_find_the_same_entry(tmp_path):
    g, m = twin_roots(tmp_path, {"bar.md": "foo", "foo.md": "bar", "notes.md": "Team Notes"})
    # gptme scans in name order: "bar" is found by its name before foo.md's stem.
    for name in ("bar", "notes", "Team Notes", "missing"):
        found_g, found_m = gptme_store(g).get(name), memls_store(m).get(name)
        assert (found_g and found_g.path.name) == (found_m and found_m.path.name), name
