"""A rename or file-moving fix the server carries out on disk works on open CRLF and BOM files.

Neovim 0.11 and eglot cannot rename files in a workspace edit, so the server
renames on disk itself (lsp/features/disk_fixes.py). It checks first that no
file changed since the fix was computed; the editor's buffer of a CRLF file
holds CRLF, the reader's text LF, and the two must be compared as the same
text, or every such rename is refused as stale. What the server writes keeps
each file's line endings and byte-order mark.

Each test runs the same operation in two workspace folders of one session,
one with LF files and one with the variant's bytes, and compares the results.
VS Code renames files in its own workspace edit, so those tests skip there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.lsp.convert import path_to_uri
from memls.store.frontmatter import normalize_text

from .conftest import Session, entry, scan_done, write_root
from .test_code_actions import actions_for, run_command

FILES = {
    "old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
    "new.md": entry("new", extra="supersedes:\n- old\n"),
    # A curated index (its own heading): memls edits its line, never re-renders it.
    "MEMORY.md": "# Mine\n\nKept as I wrote it.\n\n- [new](new.md) \u2014 d\n",
}

VARIANTS = {
    "crlf": lambda text: text.replace("\n", "\r\n").encode(),
    "bom": lambda text: ("\ufeff" + text).encode(),
    "bom+crlf": lambda text: ("\ufeff" + text.replace("\n", "\r\n")).encode(),
}


async def two_folders(client, tmp_path: Path, files: dict[str, str], variant: str) -> tuple[Session, Session]:
    """One session on two folders: ``lf`` holds ``files`` as written, ``other`` in the variant's bytes."""
    lf, other = tmp_path / "lf", tmp_path / "other"
    write_root(lf, {name: text.encode() for name, text in files.items()})
    write_root(other, {name: VARIANTS[variant](text) for name, text in files.items()})
    profile = client.memls_profile
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(profile),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(f), name=f.name) for f in (lf, other)],
        root_uri=path_to_uri(lf),
        process_id=os.getpid(),
    ))
    sessions = Session(client, lf), Session(client, other)
    await scan_done(sessions[0])
    return sessions


def open_as_is(session: Session, *names: str) -> None:
    """Open files with their text exactly as on disk (CRLF and byte-order mark included), as editors send it."""
    for name in names:
        session.open(name, (session.root / name).read_bytes().decode("utf-8"))


def contents(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.suffix == ".md"}


def assert_same_result_in_the_variants_bytes(lf: Session, other: Session, variant: str) -> None:
    """``other`` holds what ``lf`` holds, every file in the variant's bytes (CRLF, BOM kept)."""
    expected, got = contents(lf.root), contents(other.root)
    assert sorted(got) == sorted(expected)
    for name, data in got.items():
        assert normalize_text(data.decode()) == expected[name].decode(), name
        assert data == VARIANTS[variant](expected[name].decode()), f"{name} lost its line endings or BOM"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.timeout(30)
async def test_rename_on_disk_goes_through_with_open_crlf_and_bom_files_and_keeps_their_bytes(
        client, tmp_path, variant):
    lf, other = await two_folders(client, tmp_path, FILES, variant)
    if client.memls_profile == "visual-studio-code":
        pytest.skip("VS Code renames files in its own workspace edit: the server writes nothing")
    for session in (lf, other):
        open_as_is(session, "new.md", "old.md", "MEMORY.md")
        edit = await client.text_document_rename_async(types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("new.md")),
            position=types.Position(line=1, character=7), new_name="newer"))
        assert edit == types.WorkspaceEdit(changes={})  # done on disk by the server
    assert "newer.md" in contents(lf.root) and "new.md" not in contents(lf.root)
    assert_same_result_in_the_variants_bytes(lf, other, variant)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.timeout(30)
async def test_rename_file_quick_fix_on_an_open_crlf_or_bom_entry_goes_through_and_keeps_its_bytes(
        client, tmp_path, variant):
    lf, other = await two_folders(client, tmp_path, {"x.md": entry("alpha")}, variant)
    if client.memls_profile == "visual-studio-code":
        pytest.skip("VS Code renames files in its own workspace edit: the server writes nothing")
    for session in (lf, other):
        open_as_is(session, "x.md")
        _, actions = await actions_for(session, "x.md", "name-filename-mismatch")
        [move] = [a for a in actions if a.title == "Rename the file to alpha.md"]
        await run_command(session, move)
    assert sorted(contents(lf.root)) == ["alpha.md"]
    assert_same_result_in_the_variants_bytes(lf, other, variant)
