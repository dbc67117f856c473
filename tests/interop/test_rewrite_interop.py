"""Rewrites as edits still give gptme's bytes on files in gptme's layout.

memls writes a changed entry as edits of its file (comments, key order and
unknown keys survive); on a file either tool wrote, which has none of those,
the edited bytes must be exactly what gptme 0.35.1 writes: its ``supersede``
and ``save`` side by side on identical roots, and its serializer for the
changes gptme has no command for (``historical``, ``rename``).
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

gm = pytest.importorskip("gptme.memory", reason="gptme 0.35.1 (interop extra) is not installed")

from memls import store  # noqa: E402

from .test_entry_format_interop import entry_fields  # noqa: E402

SLUG = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True).filter(lambda s: not s.startswith("memory"))
SIMPLE = st.text(st.sampled_from("abc XYZ09-:'\"#é"), max_size=20).map(str.strip)
_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def living(fields: dict[str, Any], name: str) -> gm.MemoryEntry:
    """A living entry gptme writes, from generated fields, named ``name``."""
    fields = dict(fields, name=name, status="living", superseded_by=None, path=None, scope=None)
    return gm.MemoryEntry(**fields)


def indexable(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields memls's ``save`` and ``rename`` accept: its index line stays one line.

    (memls refuses a multi-line type or description there; gptme writes a broken index line.)
    """
    return dict(fields, type="project", description=" ".join(fields["description"].splitlines()))


def write_both(base: Path, entries: list[gm.MemoryEntry]) -> tuple[Path, Path]:
    roots = base / "g", base / "m"
    for root in roots:
        root.mkdir()
        for entry in entries:
            (root / f"{entry.name}.md").write_text(entry.to_markdown(), encoding="utf-8")
    return roots


def entry_bytes(root: Path, *names: str) -> dict[str, bytes]:
    return {name: (root / f"{name}.md").read_bytes() for name in names}


def memls_store(root: Path) -> store.MemoryStore:
    return store.MemoryStore([store.MemoryRoot("explicit", root)])


def gptme_store(root: Path):
    return gm.MemoryStore([gm.MemoryRoot("explicit", root)])


@_SETTINGS
@given(old=entry_fields(), new=entry_fields())
def test_supersede_gives_gptmes_bytes(old: dict, new: dict):
    with tempfile.TemporaryDirectory() as tmp:
        g, m = write_both(Path(tmp), [living(old, "old"), living(new, "new")])
        gptme_store(g).supersede("old", "new")
        memls_store(m).supersede("old", "new")
        assert entry_bytes(m, "old", "new") == entry_bytes(g, "old", "new")


@_SETTINGS
@given(
    fields=entry_fields(),
    description=SIMPLE,
    body=st.text(st.sampled_from("ab \n#-"), max_size=20),
    type_=st.none() | st.sampled_from(["user", "project", "custom"]),
    keywords=st.none() | st.lists(SLUG, max_size=2),
)
def test_save_over_an_entry_gives_gptmes_bytes(fields: dict, description, body, type_, keywords):
    with tempfile.TemporaryDirectory() as tmp:
        g, m = write_both(Path(tmp), [living(indexable(fields), "a")])
        for s in (gptme_store(g), memls_store(m)):
            s.save("a", description, body, type=type_, keywords=keywords)
        assert entry_bytes(m, "a") == entry_bytes(g, "a")


@_SETTINGS
@given(fields=entry_fields(), status=st.sampled_from(["historical", "living"]))
def test_set_status_gives_gptmes_serialization(fields: dict, status: str):
    with tempfile.TemporaryDirectory() as tmp:
        entry = living(fields, "a")
        if status == "living":  # from historical back to living
            entry = replace(entry, status="historical")
        _, m = write_both(Path(tmp), [entry])
        memls_store(m).set_status("a", status)
        assert (m / "a.md").read_text(encoding="utf-8") == replace(entry, status=status).to_markdown()


@_SETTINGS
@given(fields=entry_fields(), new_name=SLUG.filter(lambda s: s != "a"))
def test_rename_gives_gptmes_serialization(fields: dict, new_name: str):
    with tempfile.TemporaryDirectory() as tmp:
        entry = living(indexable(fields), "a")
        _, m = write_both(Path(tmp), [entry])
        memls_store(m).rename("a", new_name)
        assert (m / f"{new_name}.md").read_text(encoding="utf-8") == replace(entry, name=new_name).to_markdown()
