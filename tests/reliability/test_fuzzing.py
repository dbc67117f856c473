"""Fuzzing the engine: no exception escapes the parser, the reader, the model or the checks.

Input counts scale with ``MEMLS_STRESS`` (``make stress``: over 100,000
generated inputs across the targets; ``make test``: a few thousand). Each
test prints how many inputs it ran. The server's text synchronisation is
fuzzed in test_server_reliability.py.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.checks import CheckContext, check_paths, check_workspace
from memls.store.model import Workspace
from memls.store.parse import parse_document
from memls.store.reader import read_root
from memls.store.roots import MemoryRoot

from .fuzz_strategies import VALID, documents, raw_bytes
from .reliability_helpers import scaled

RELAXED = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=False, database=None)


def counter() -> list[int]:
    return [0]


def test_parse_document_never_raises_on_hostile_text():
    count = counter()

    @settings(max_examples=scaled(1500, 45_000), **RELAXED)
    @given(documents)
    def run(text):
        count[0] += 1
        doc = parse_document(text, path=Path("/m/x.md"), scope="explicit")
        _ = doc.strict_error  # the strict view is computed lazily in places: exercise it
        if doc.entry is not None:
            assert isinstance(doc.entry.name, str)

    run()
    print(f"\nparse_document: {count[0]} inputs")
    assert count[0] >= scaled(1000, 40_000)


def test_read_root_never_raises_on_arbitrary_bytes():
    count = counter()
    root = Path(tempfile.mkdtemp(prefix="memls-fuzz-bytes-"))
    try:
        @settings(max_examples=scaled(600, 25_000), **RELAXED)
        @given(st.lists(raw_bytes, min_size=1, max_size=4))
        def run(files):
            count[0] += 1
            for old in root.iterdir():
                old.unlink()
            for i, data in enumerate(files):
                (root / f"f{i}.md").write_bytes(data)
            (root / "MEMORY.md").write_bytes(files[0])
            read = read_root(root, "explicit")
            assert len(read.entries) + len(read.errors) <= len(files)
            ws = Workspace.load([MemoryRoot("explicit", root)])
            check_workspace(CheckContext(ws))

        run()
    finally:
        shutil.rmtree(root)
    print(f"\nread_root + check_workspace on bytes: {count[0]} inputs")
    assert count[0] >= scaled(400, 20_000)


NAMES = ["a.md", "b.md", "c.md", "MEMORY.md", "memory-x.md"]
edit = st.tuples(st.sampled_from(NAMES), st.one_of(documents, st.sampled_from(
    [VALID.replace("alpha", n) for n in ("a", "b", "c", "beta", "gamma")])), st.booleans())


def test_workspace_update_and_incremental_checks_never_raise_on_random_edits():
    count = counter()
    root = Path("/nonexistent-memls-fuzz-root")

    @settings(max_examples=scaled(300, 8_000), **RELAXED)
    @given(st.lists(edit, min_size=1, max_size=12))
    def run(edits):
        ws = Workspace([MemoryRoot("explicit", root)])
        ctx = CheckContext(ws)
        for name, text, remove in edits:
            count[0] += 1
            path = root / name
            affected = ws.remove(path) if remove and ws.document(path) is not None else ws.update(path, text)
            check_paths(ctx, affected | {path})
        check_workspace(ctx)

    run()
    print(f"\nWorkspace.update/remove + check_paths: {count[0]} edits")
    assert count[0] >= scaled(300, 8_000)


def test_a_lone_surrogate_in_an_editor_buffer_does_not_break_the_checks():
    """Found by the fuzzer: JSON lets a client send "\\ud800", and the index checks
    counted bytes with a strict UTF-8 encode that raised UnicodeEncodeError."""
    root = Path("/nonexistent-memls-fuzz-root")
    ws = Workspace([MemoryRoot("explicit", root)])
    ctx = CheckContext(ws)
    texts = {
        "a.md": '---\nname: a\ndescription: "x\ud800"\nmetadata:\n  type: project\n---\n',
        "MEMORY.md": "# Memory\n\n- [a](a.md) \u2014 x\ud800\n",
        ".memory-index.json": '{"version": 1, "budget": 21000, "selected": ["a.md"]}',
    }
    for name, text in texts.items():
        path = root / name
        if ws.is_memory_document(path):
            check_paths(ctx, ws.update(path, text) | {path})
    results = check_workspace(ctx)
    assert root / "MEMORY.md" in results
