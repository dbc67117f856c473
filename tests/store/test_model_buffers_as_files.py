"""An editor buffer is judged as the file it stands for: size cap, headline, existence.

The language server puts each open buffer into the model with
``Workspace.update``; ``memls check`` reads the same files from disk. When
the buffer holds what the file holds, both must find the same entries, the
same index lines and the same problems -- also for a file too large to read
(only its frontmatter counts, for its ``MEMORY.md`` line). Unsaved text of a
file that does not exist (``file_absent``) counts as the entry it is, but as
no file the index could link to: no fix may write such a link.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memls.store.checks import CheckContext, check_workspace, fixes_for
from memls.store.diagnostics import TextEdit
from memls.store.edits import apply_edits
from memls.store.index import index_entries, render_index
from memls.store.model import Workspace
from memls.store.reader import MAX_DOCUMENT_BYTES, read_root
from memls.store.roots import MemoryRoot

TODAY = date(2026, 12, 1)
BIG = "---\nname: big\ndescription: big one\ntype: project\n---\n" + ("z" * 2000 + "\n") * 600
# Under the cap in characters, over it in bytes (three bytes a character in UTF-8).
WIDE = "---\nname: wide\ndescription: wide one\ntype: project\n---\n" + ("語" * 999 + "\n") * 400
SMALL = "---\nname: small\ndescription: s\ntype: project\n---\nb\n"


def entry_text(name: str) -> str:
    return f"---\nname: {name}\ndescription: {name} desc\ntype: project\n---\nbody\n"


def write_generated_root(root: Path, files: dict[str, str]) -> None:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    entries = read_root(root, "project").entries_for_index
    (root / "MEMORY.md").write_text(render_index(index_entries(entries, managed=False)), encoding="utf-8")


def problems(ws: Workspace) -> dict[Path, list[tuple[str, str]]]:
    found = check_workspace(CheckContext(ws, today=TODAY))
    return {path: sorted((p.code, p.message) for p in found_here) for path, found_here in found.items() if found_here}


@pytest.mark.parametrize("name, text", [("big.md", BIG), ("wide.md", WIDE)])
def test_a_buffer_of_a_file_too_large_to_read_is_judged_as_the_file(tmp_path, name, text):
    assert len(text.encode("utf-8")) > MAX_DOCUMENT_BYTES
    root = tmp_path / "memory"
    write_generated_root(root, {name: text, "small.md": SMALL})
    ws = Workspace.load([MemoryRoot("project", root)])
    from_disk = problems(ws)
    disk_doc = ws.document(root / name)
    assert disk_doc is not None and disk_doc.too_large and disk_doc.headline is not None

    ws.update(root / name, text, version=1)  # the editor opened it: buffer == disk

    buffer_doc = ws.document(root / name)
    assert buffer_doc is not None and buffer_doc.too_large
    assert buffer_doc.index_entry == disk_doc.index_entry
    assert problems(ws) == from_disk
    assert [e.filename for e in ws.roots[0].entries_for_index()] == sorted([name, "small.md"])


def test_an_unsaved_buffer_of_an_absent_file_has_no_index_line_and_no_fix_links_to_it(tmp_path):
    root = tmp_path / "memory"
    write_generated_root(root, {"b.md": entry_text("b")})
    # A line to a file that is gone: its fixes (remove the line, regenerate) rewrite the index.
    with open(root / "MEMORY.md", "a", encoding="utf-8") as index:
        index.write("- [c](c.md) — gone\n")
    ws = Workspace.load([MemoryRoot("project", root)])
    from_disk = problems(ws)

    ws.update(root / "a.md", entry_text("a"), version=2, file_absent=True)

    doc = ws.document(root / "a.md")
    assert doc is not None and doc.entry is not None and doc.entry.name == "a"  # still the user's entry
    assert doc.index_entry is None
    assert problems(ws) == from_disk  # the index is judged by the files that exist
    ctx = CheckContext(ws, today=TODAY)
    index = ws.document(root / "MEMORY.md")
    assert index is not None
    offered = [fix for problem in check_workspace(ctx).get(index.path, []) for fix in fixes_for(ctx, problem)]
    assert offered
    for fix in offered:
        for op in fix.operations:
            assert not (isinstance(op, TextEdit) and "(a.md)" in op.new_text), fix.title


def test_a_buffer_whose_file_is_made_gets_its_index_line_back(tmp_path):
    root = tmp_path / "memory"
    write_generated_root(root, {"b.md": entry_text("b")})
    ws = Workspace.load([MemoryRoot("project", root)])
    ws.update(root / "a.md", entry_text("a"), version=2, file_absent=True)

    affected = ws.update(root / "a.md", entry_text("a"), version=2)

    assert root / "MEMORY.md" in affected
    assert [e.filename for e in ws.roots[0].entries_for_index()] == ["a.md", "b.md"]
    assert "index-missing-entry" in {code for code, _ in problems(ws)[root / "MEMORY.md"]}


@pytest.mark.parametrize("index", ["curated", "budgeted"])
def test_a_line_typed_for_an_entry_not_saved_yet_is_not_broken_and_no_fix_removes_it(tmp_path, index):
    """The user opens a tab for a new entry and types its line into MEMORY.md before saving either (s20c F1).

    The line is good once the entry is saved; calling it broken offered a preferred fix that deleted it.
    A line to a file that is neither on disk nor in a buffer stays broken.
    """
    root = tmp_path / "memory"
    write_generated_root(root, {"b.md": entry_text("b")})
    text = (root / "MEMORY.md").read_text(encoding="utf-8") + "- [brand-new](brand-new.md) — new\n- [c](c.md) — gone\n"
    if index == "budgeted":  # an index rendered under a one-shot budget is judged by its own path
        text += "- \u2026 0 more entries omitted (budget 100000 bytes)\n"
    (root / "MEMORY.md").write_text(text, encoding="utf-8")
    ws = Workspace.load([MemoryRoot("project", root)])
    ws.update(root / "brand-new.md", entry_text("brand-new"), version=2, file_absent=True)

    ctx = CheckContext(ws, today=TODAY)
    found = check_workspace(ctx)[root / "MEMORY.md"]
    broken = [p for p in found if p.code == "index-broken-link"]
    assert [p.data["target"] for p in broken] == ["c.md"]
    # Only the regeneration, which says it replaces the hand-written lines, may drop it; never a safe fix.
    for problem in found:
        for fix in fixes_for(ctx, problem):
            edits = [op for op in fix.operations if isinstance(op, TextEdit) and op.path.name == "MEMORY.md"]
            kept = "(brand-new.md)" in apply_edits(text, edits)
            assert kept or (not fix.safe and "replaces its hand-written lines" in fix.title), fix.title
