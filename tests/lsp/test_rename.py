"""Rename from the ``name:`` value or any reference: one edit for name, file, links and index.

Profile-specific: only VS Code can rename files in a workspace edit. For
Neovim and Emacs, which can apply edits but not file renames, the server
renames on disk itself, and the editor reloads the open buffers it changed
(lsp/features/disk_fixes.py); a client that can do neither is refused at
``prepareRename``, before the user types a name.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from memls.store import MemoryStore
from memls.store.roots import MemoryRoot

from .conftest import apply_as_client, entry, initialize_in, scan_done, write_root

FILE_OPS = "visual-studio-code"
INDEX = "# Persistent Memory\n\n## Project\n\n- [new](new.md) \u2014 d\n"
FILES = {
    "old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
    "new.md": entry("new", extra="supersedes:\n- old\n"),
}


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


async def rename(session, name: str, position: types.Position, new_name: str):
    return await session.client.text_document_rename_async(types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name)),
        position=position, new_name=new_name))


async def started(start):
    session = await start(FILES, index=INDEX)
    await scan_done(session)
    session.open("new.md")
    session.open("old.md")
    return session


async def assert_renamed_everywhere(session, edit: types.WorkspaceEdit) -> None:
    assert sum(isinstance(c, types.RenameFile) for c in edit.document_changes or []) == 1
    await apply_as_client(session, edit, {"new.md": 1, "old.md": 1})
    root = session.root
    assert not (root / "new.md").exists()
    assert "name: newer" in (root / "newer.md").read_text()
    assert "superseded_by: newer" in (root / "old.md").read_text()
    assert "[newer](newer.md)" in (root / "MEMORY.md").read_text()
    assert MemoryStore([MemoryRoot("explicit", root)]).audit() == []


@pytest.mark.timeout(30)
async def test_prepare_rename_on_the_name_value_and_on_a_reference(start):
    session = await started(start)
    on_name = await session.client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("new.md")), position=pos(1, 7)))
    assert on_name == types.PrepareRenamePlaceholder(
        range=types.Range(start=pos(1, 6), end=pos(1, 9)), placeholder="new")
    on_link = await session.client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("old.md")), position=pos(6, 16)))
    assert on_link == types.PrepareRenamePlaceholder(
        range=types.Range(start=pos(6, 15), end=pos(6, 18)), placeholder="new")
    elsewhere = await session.client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("old.md")), position=pos(2, 3)))
    assert elsewhere is None


def assert_renamed_on_disk(session, edit: types.WorkspaceEdit) -> None:
    """The server renamed on disk: nothing left for the client but following the buffers."""
    assert edit == types.WorkspaceEdit(changes={})
    root = session.root
    assert not (root / "new.md").exists()
    assert "name: newer" in (root / "newer.md").read_text()
    old_text = (root / "old.md").read_text()
    assert "superseded_by: newer" in old_text
    assert "[newer](newer.md)" in (root / "MEMORY.md").read_text()
    assert MemoryStore([MemoryRoot("explicit", root)]).audit() == []
    # The open old.md had no unsaved changes: written on disk, which the editor reloads; an
    # edit would leave its buffer modified though it equals the disk. The moved entry is shown.
    assert session.client.applied_edits == []
    if session.client.capabilities.window.show_document is not None:
        assert [d.uri for d in session.client.shown_documents] == [session.uri("newer.md")]


@pytest.mark.timeout(30)
async def test_rename_from_the_name_value_renames_file_links_and_index(start):
    session = await started(start)
    edit = await rename(session, "new.md", pos(1, 7), "newer")
    if session.profile != FILE_OPS:
        assert_renamed_on_disk(session, edit)
        return
    await assert_renamed_everywhere(session, edit)


@pytest.mark.timeout(30)
async def test_rename_edits_files_another_tool_just_changed_at_their_current_lines(start):
    session = await start(FILES, index=INDEX)
    await scan_done(session)
    session.open("new.md")
    old, index = session.root / "old.md", session.root / "MEMORY.md"
    old_text = old.read_text().replace("---\nname: old\n", "---\n# reviewed by the agent\nname: old\n", 1)
    index_text = INDEX.replace("## Project\n", "## Project\n\nAgent note: deploy only on Tuesdays\n", 1)
    old.write_text(old_text)  # no watcher event: editors deliver them late
    index.write_text(index_text)
    edit = await rename(session, "new.md", pos(1, 7), "newer")
    if session.profile == FILE_OPS:
        await apply_as_client(session, edit, {"new.md": 1})
    assert old.read_text() == old_text.replace("superseded_by: new\n", "superseded_by: newer\n")
    assert index.read_text() == index_text.replace("[new](new.md)", "[newer](newer.md)")


@pytest.mark.timeout(30)
async def test_rename_from_a_supersedes_item(start):
    session = await started(start)
    edit = await rename(session, "new.md", pos(6, 3), "oldest")  # "- old" under supersedes
    if session.profile == FILE_OPS:
        await apply_as_client(session, edit, {"new.md": 1, "old.md": 1})
    else:
        assert edit == types.WorkspaceEdit(changes={})
    assert "name: oldest" in (session.root / "oldest.md").read_text()
    assert "- oldest" in (session.root / "new.md").read_text()
    assert MemoryStore([MemoryRoot("explicit", session.root)]).audit() == []


@pytest.mark.timeout(30)
async def test_rename_by_the_server_is_refused_while_a_file_to_change_has_unsaved_changes(start):
    session = await started(start)
    if session.profile == FILE_OPS:
        return  # VS Code applies the edit to its buffers itself
    session.change("old.md", FILES["old.md"] + "Typed, not saved.\n", version=2)
    with pytest.raises(JsonRpcException, match="save old.md first"):
        await rename(session, "new.md", pos(1, 7), "newer")
    assert (session.root / "new.md").read_text() == FILES["new.md"]
    assert not (session.root / "newer.md").exists()


@pytest.mark.timeout(30)
async def test_a_client_that_can_neither_rename_files_nor_apply_edits_is_refused_at_prepare_rename(
        client, tmp_path):
    write_root(tmp_path / "workspace", FILES)
    caps = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(apply_edit=False),
                                    window=types.WindowClientCapabilities(work_done_progress=True))
    session = await initialize_in(client, tmp_path / "workspace", caps)
    await scan_done(session)
    session.open("new.md")
    with pytest.raises(JsonRpcException, match="memls rename new NEW-NAME") as refused:
        await session.client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri("new.md")), position=pos(1, 7)))
    assert not refused.value.message.startswith("memls:")  # editors name the server themselves


@pytest.mark.timeout(30)
async def test_rename_to_a_reserved_name_is_refused_with_the_engines_message(start):
    session = await started(start)
    with pytest.raises(JsonRpcException, match="reserved"):
        await rename(session, "new.md", pos(1, 7), "memory-notes")


@pytest.mark.timeout(30)
async def test_rename_to_a_taken_name_is_refused(start):
    session = await started(start)
    with pytest.raises(JsonRpcException, match="old.md already has that name"):
        await rename(session, "new.md", pos(1, 7), "old")


@pytest.mark.timeout(30)
async def test_rename_to_a_name_with_a_slash_says_which_name_was_used(start):
    # The file is already a-b.md, so the rename moves no file and works in every client.
    session = await start({"a-b.md": entry("first-name")})
    await scan_done(session)
    session.open("a-b.md")
    edit = await rename(session, "a-b.md", pos(1, 7), "a/b")
    await apply_as_client(session, edit, {"a-b.md": 1})
    assert "name: a-b\n" in (session.root / "a-b.md").read_text()
    [told] = [m for m in session.client.messages if "'a/b'" in m.message]
    assert "named 'a-b'" in told.message and told.type == types.MessageType.Info


@pytest.mark.timeout(30)
async def test_rename_to_the_typed_name_says_nothing(start):
    session = await start({"a-b.md": entry("first-name")})
    await scan_done(session)
    session.open("a-b.md")
    await rename(session, "a-b.md", pos(1, 7), "a-b")
    assert not [m for m in session.client.messages if "is not a memory name" in m.message]


async def wait_for_message(session, fragment: str) -> str:
    for _ in range(200):
        told = [m.message for m in session.client.messages if fragment in m.message]
        if told:
            return told[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no message with {fragment!r}: {session.client.messages}")


@pytest.mark.timeout(30)
async def test_a_rename_on_disk_names_what_the_editor_may_still_show_from_before(start):
    session = await started(start)
    if session.profile == FILE_OPS:
        return  # VS Code renames in its own edit; nothing is written behind its buffers
    # The editor declines to show the moved file (or cannot): the user must learn where it went.
    features = session.client.protocol.fm._features
    features.pop(types.WINDOW_SHOW_DOCUMENT, None)
    def decline(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        session.client.shown_documents.append(params)
        return types.ShowDocumentResult(success=False)

    session.client.feature(types.WINDOW_SHOW_DOCUMENT)(decline)
    edit = await rename(session, "new.md", pos(1, 7), "newer")
    assert_renamed_on_disk(session, edit)
    told = await wait_for_message(session, "newer.md")
    assert "new.md moved to" in told
    # old.md, open and unmodified, was rewritten on disk: an editor that does not reload it
    # would write the old link back at the next save.
    assert "old.md" in told.split("changed on disk")[1]
