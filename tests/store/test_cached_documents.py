"""Documents served from the parse cache are parsed only when read, and say what a fresh parse says.

A warm load files each cached document in the registry from the facts kept
beside its pickled parse (``memls.store.model.document_record``), and
unpickles the parse only when a check or request reads it. These tests pin
that shortcut to the slow path: the facts, the text and the parse of a
cached document equal those of the same bytes parsed afresh, and over
random sequences of real file changes a warm model (from the cache) and a
cold one (``MEMLS_NO_CACHE=1``) hold the same registry and give the same
check results.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.checks import CheckContext, check_workspace
from memls.store.frontmatter import normalize_text
from memls.store.model import CachedDocument, Document, Workspace, document_record
from memls.store.parse import parse_document
from memls.store.roots import MemoryRoot

from .messy_entries import messy_entries
from .test_model_incremental import NAMES, STATUSES, EntrySpec

TODAY = date(2026, 11, 30)
FACTS = ("loads", "name", "slug", "successor", "predecessors", "guessed_names", "links",
         "stated_name", "index_facts")


def facts(doc: Document) -> dict:
    out = {key: getattr(doc, key) for key in FACTS}
    key = out["index_facts"]
    if key is not None:  # the cache keeps spans as plain tuples (equal to the spans)
        out["index_facts"] = (*key[:5], tuple(None if s is None else tuple(s) for s in key[5]))
    return out


def cached_twin(doc: Document) -> CachedDocument:
    """``doc`` as a warm load gives it: from the record the cache writes of its parse."""
    assert doc.parsed is not None
    return CachedDocument(doc.path, doc.root, doc.kind, document_record(doc.path.name, doc.parsed))


TEXTS = st.one_of(
    st.builds(lambda spec: spec.text(), st.builds(
        EntrySpec, st.sampled_from(NAMES), st.sampled_from(STATUSES),
        st.lists(st.sampled_from(NAMES), max_size=2, unique=True).map(tuple),
        st.none() | st.sampled_from(NAMES), st.booleans(), st.booleans())),
    st.sampled_from(NAMES).flatmap(messy_entries).map(lambda m: m.text),
    st.sampled_from((
        "", "just prose\n", "---\n---\n", "---\nname: a\ndescription: [unclosed\n---\n",
        "---\ndescription: no name\n---\n", "---\n- a list\n---\n",
        "---\nname: x\nsupersedes: [a, 3, b]\nsuperseded_by: ''\n---\n",
    )),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, filename=st.sampled_from(("alpha.md", "Odd Name.md", "MEMORY-notes.md", "memory.md")))
def test_a_cached_document_states_the_facts_text_and_parse_of_a_fresh_one(text, filename):
    ws = Workspace([MemoryRoot("project", Path("/nonexistent-memls-test/root"))])
    path = Path("/nonexistent-memls-test/root") / filename
    ws.update(path, normalize_text(text))  # as a disk read gives it: only files are cached
    fresh = ws.document(path)
    assert fresh is not None
    if fresh.parsed is None:
        return  # not a parsed kind: never cached
    twin = cached_twin(fresh)
    assert facts(twin) == facts(fresh)  # before the parse is read: from the record
    assert twin.text == fresh.text
    assert twin.parsed == fresh.parsed and twin.parsed is not fresh.parsed
    assert twin.parsed.path == twin.entry.path == path if twin.entry is not None else twin.parsed.path == path
    assert facts(twin) == facts(fresh)  # and after


def registry(ws: Workspace) -> dict:
    (state,) = ws.roots
    return {
        "documents": {p: (d.kind, d.text, d.parsed, d.read_error) for p, d in state.documents.items()},
        "by_name": {k: list(v) for k, v in state.by_name.items() if v},
        "by_slug": {k: list(v) for k, v in state.by_slug.items() if v},
        "linked_from": {k: set(v) for k, v in state.linked_from.items() if v},
        "maybe_named": {k: set(v) for k, v in state.maybe_named.items() if v},
        "index_keys": {p: facts(d)["index_facts"] for p, d in state.documents.items()},
        "index": state.index_view.rendering(),
    }


OPS = ("edit", "edit", "rename", "delete", "add", "touch", "same-size", "racy-edit")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_warm_model_equals_a_cold_one_after_random_file_changes(data):
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:

        def looked_at(later: bool) -> None:
            """Files looked at an hour after they were written (settled: cached), or at once (racy: not)."""
            shift = 3600 * 10**9 if later else 0
            mp.setattr("memls.store.model.now_ns", lambda: time.time_ns() + shift)

        looked_at(True)
        root = Path(tmp) / "memory"
        root.mkdir()
        specs: dict[str, EntrySpec] = {}
        for name in ("alpha", "beta", "gamma"):
            specs[f"{name}.md"] = EntrySpec(name)
            (root / f"{name}.md").write_text(specs[f"{name}.md"].text(), encoding="utf-8")
        (root / "MEMORY.md").write_text("# Memory Index\n\n- [alpha](alpha.md) — about alpha\n", encoding="utf-8")
        memory_root = MemoryRoot("project", root)
        Workspace.load([memory_root])  # fills the cache
        served = Workspace.load([memory_root]).roots[0].documents
        assert all(isinstance(served[root / f], CachedDocument) for f in specs)  # the warm path is the one compared
        for _ in range(data.draw(st.integers(1, 6), label="changes")):
            op = data.draw(st.sampled_from(OPS), label="op")
            filename = data.draw(st.sampled_from(sorted(specs) or ["new.md"]), label="file")
            path = root / filename
            spec = specs.get(filename, EntrySpec(data.draw(st.sampled_from(NAMES))))
            if op in ("edit", "racy-edit", "add"):
                spec = replace(spec, name=data.draw(st.sampled_from(NAMES)),
                               status=data.draw(st.sampled_from(STATUSES)),
                               supersedes=tuple(data.draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))),
                               superseded_by=data.draw(st.none() | st.sampled_from(NAMES)),
                               broken=data.draw(st.booleans()))
                if op == "add":
                    filename = data.draw(st.sampled_from(("new.md", "Other One.md", "memory-x.md")))
                    path = root / filename
                specs[filename] = spec
                path.write_text(spec.text(), encoding="utf-8")
                looked_at(op != "racy-edit")
            elif op == "rename" and path.exists():
                target = data.draw(st.sampled_from(("moved.md", "beta.md", "zeta.md")))
                os.replace(path, root / target)
                specs[target] = specs.pop(filename)
            elif op == "delete" and path.exists():
                path.unlink()
                specs.pop(filename, None)
            elif op == "touch" and path.exists():
                path.touch()
            elif op == "same-size" and path.exists():
                st_before = path.stat()
                text = path.read_text(encoding="utf-8")
                swapped = text.replace("about", "ABOUT", 1)
                path.write_text(swapped, encoding="utf-8")  # same size, same second
                os.utime(path, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))
            warm = Workspace.load([memory_root])
            mp.setenv("MEMLS_NO_CACHE", "1")
            cold = Workspace.load([memory_root])
            mp.delenv("MEMLS_NO_CACHE")
            assert registry(warm) == registry(cold)
            assert check_workspace(CheckContext(warm, today=TODAY)) == check_workspace(CheckContext(cold, today=TODAY))


def test_a_warm_load_reads_no_parse_until_asked(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("alpha", "beta"):
        (root / f"{name}.md").write_text(EntrySpec(name, supersedes=("gamma",)).text(), encoding="utf-8")
    later = time.time() - 3600
    for path in root.iterdir():
        os.utime(path, (later, later))
    memory_root = MemoryRoot("project", root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("memls.store.model.now_ns", lambda: time.time_ns() + 3600 * 10**9)
        Workspace.load([memory_root])
        warm = Workspace.load([memory_root])
    (state,) = warm.roots
    docs = [state.documents[root / "alpha.md"], state.documents[root / "beta.md"]]
    assert all(isinstance(d, CachedDocument) and d._blob is not None for d in docs)
    assert state.by_name["alpha"] == [root / "alpha.md"] and state.linked_from["gamma"] == set(state.documents)
    assert docs[0].entry is not None and docs[0].entry.name == "alpha"
    assert docs[0]._blob is None and docs[1]._blob is not None  # only the one read was unpickled
    assert docs[1].text == parse_document(docs[1].text, docs[1].path).text
