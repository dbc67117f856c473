"""A workspace folder opened through a symlink: the server answers in the client's spelling.

The model resolves a folder's roots (``wslink -> ws`` becomes ``ws``); an
editor keeps the path the user opened. Everything sent about a file must use
the URI the client knows it by, and every path the client names must find
the model's document, or the open buffer gets nothing and is not recognised.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.lsp.convert import path_to_uri

from .conftest import Session, apply_text_edits, barrier, entry, initialize_in, wait_until_scanned, write_root

DANGLING = entry("old", extra="status: superseded\nsuperseded_by: nwe\n")


def linked_folder(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """``ws`` with a memory root, and ``wslink`` pointing at it (the folder the editor opens)."""
    real = tmp_path / "ws"
    write_root(real, files)
    link = tmp_path / "wslink"
    link.symlink_to(real, target_is_directory=True)
    return real, link


async def open_linked(client, tmp_path: Path, files: dict[str, str]) -> tuple[Session, Path]:
    real, link = linked_folder(tmp_path, files)
    profile = client.memls_profile  # type: ignore[attr-defined]
    session = await initialize_in(client, link, client_capabilities(profile))
    await wait_until_scanned(client)
    return session, real


async def test_an_open_document_in_a_symlinked_folder_gets_its_diagnostics_under_the_uri_it_was_opened_as(
        client, tmp_path):
    session, real = await open_linked(client, tmp_path, {"old.md": DANGLING})
    session.open("old.md")
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))
    # Files not open are named by the folder's spelling too: nothing under the resolved one.
    await barrier(session)
    resolved = [uri for uri in client.diagnostics if uri.startswith(path_to_uri(real) + "/")]
    assert resolved == []


async def test_definition_in_a_symlinked_folder_points_at_the_folders_spelling(client, tmp_path):
    files = {"old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"), "new.md": entry("new")}
    session, _real = await open_linked(client, tmp_path, files)
    uri = session.open("old.md")
    line = files["old.md"].splitlines().index("superseded_by: new")
    found = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=len("superseded_by: n"))))
    targets = [getattr(t, "target_uri", None) or getattr(t, "uri", None)
               for t in (found if isinstance(found, list) else [found])]
    assert targets == [session.uri("new.md")]


async def test_a_save_in_a_symlinked_folder_edits_the_open_index_buffer_instead_of_the_file(client, tmp_path):
    """The index open with an unsaved note is recognised: its buffer gets the edit, the file stays."""
    profile = client.memls_profile  # type: ignore[attr-defined]
    index = "- [a](a.md) \u2014 first\n"
    session, real = await open_linked(client, tmp_path, {"a.md": entry("a", "first"), "MEMORY.md": index})
    unsaved = index + "- my unsaved note\n"
    session.open("MEMORY.md", index)
    session.change("MEMORY.md", unsaved, 2)
    session.open("a.md")
    revised = entry("a", "first, now revised")
    session.change("a.md", revised, 2)
    await barrier(session)
    (session.root / "a.md").write_text(revised, encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=revised))
    await barrier(session, "zz-probe-2.md")
    assert (real / "memory" / "MEMORY.md").read_text(encoding="utf-8") == index, "the file under the buffer was written"
    edits = [e.edit for e in client.applied_edits]  # type: ignore[attr-defined]
    if not client_capabilities(profile).workspace.apply_edit:  # type: ignore[union-attr]
        assert edits == []
        return
    assert len(edits) == 1
    edit = edits[0]
    if edit.document_changes:
        [change] = edit.document_changes
        uri, text_edits = change.text_document.uri, change.edits
    else:
        [(uri, text_edits)] = edit.changes.items()
    assert uri == session.uri("MEMORY.md")
    assert apply_text_edits(unsaved, text_edits) == "- [a](a.md) \u2014 first, now revised\n- my unsaved note\n"
