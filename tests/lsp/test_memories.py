"""``memls/memories`` (the Memories view's tree) and ``memls/memoriesChanged``, end to end."""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.lsp.convert import path_to_uri

from .conftest import entry, wait_until_scanned, write_root

NEW = entry("new", description="the new way", extra="supersedes:\n  - old\n")
OLD = entry("old", extra="status: superseded\nsuperseded_by: new\nsupersedes:\n  - oldest\n")
OLDEST = entry("oldest", extra="status: superseded\nsuperseded_by: old\n")
NOTE = entry("note", type_="user", description="about me")
LOOP_A = entry("loop-a", extra="status: superseded\nsuperseded_by: loop-b\n")
LOOP_B = entry("loop-b", extra="status: superseded\nsuperseded_by: loop-a\n")
BROKEN = "---\nname: [unclosed\n---\n"
FILES = {"new.md": NEW, "old.md": OLD, "oldest.md": OLDEST, "note.md": NOTE,
         "loop-a.md": LOOP_A, "loop-b.md": LOOP_B, "broken.md": BROKEN}


async def initialize(client, folder, *, memories_view: bool):
    profile = client.memls_profile  # type: ignore[attr-defined]
    options: dict = {"settings": {}}
    if memories_view:
        options["client"] = {"memoriesView": True}
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(profile),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(folder), name="workspace")],
        root_uri=path_to_uri(folder),
        initialization_options=options,
        process_id=os.getpid(),
    ))
    await wait_until_scanned(client)


async def memories(client) -> dict:
    """The ``memls/memories`` result as plain JSON (pygls hands back named tuples)."""
    return plain(await client.protocol.send_request_async("memls/memories", {}))


def plain(value):
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def shape(node: dict) -> tuple:
    """An entry as (name, status, errors, nested entries), for comparing trees."""
    return (node["name"], node["status"], node["problems"]["errors"], [shape(c) for c in node["superseded"]])


async def test_the_tree_groups_by_type_and_nests_superseded_entries_under_their_successor(client, tmp_path):
    folder = tmp_path / "workspace"
    root = write_root(folder, FILES)
    await initialize(client, folder, memories_view=False)
    tree = await memories(client)
    [project] = tree["roots"]
    assert (project["scope"], project["path"], project["uri"]) == ("project", str(root), path_to_uri(root))
    assert [t["type"] for t in project["types"]] == ["user", "project", "unreadable"]
    user, project_type, unreadable = project["types"]
    assert [shape(e) for e in user["entries"]] == [("note", "living", 0, [])]
    # A loop keeps both ends at the top, where their errors are seen (the cycle, and no link back).
    assert [shape(e) for e in project_type["entries"]] == [
        ("loop-a", "superseded", 2, []),
        ("loop-b", "superseded", 2, []),
        ("new", "living", 0, [("old", "superseded", 0, [("oldest", "superseded", 0, [])])]),
    ]
    assert [(e["name"], e["status"], e["problems"]["errors"] > 0) for e in unreadable["entries"]] == [
        ("broken", "invalid", True)]
    new = project_type["entries"][2]
    assert (new["description"], new["uri"], new["path"]) == ("the new way", path_to_uri(root / "new.md"),
                                                             str(root / "new.md"))


async def test_a_client_with_the_view_is_told_when_the_model_changes(client, tmp_path):
    folder = tmp_path / "workspace"
    root = write_root(folder, {"new.md": NEW, "old.md": OLD})
    changed: list[object] = []
    client.feature("memls/memoriesChanged")(lambda params: changed.append(params))
    await initialize(client, folder, memories_view=True)
    await asyncio.sleep(0.5)  # the end of the scan is a change too
    before = len(changed)
    uri = path_to_uri(root / "old.md")
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="markdown", version=1, text=OLD)))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=entry("old"))]))
    for _ in range(40):
        if len(changed) > before:
            break
        await asyncio.sleep(0.05)
    assert len(changed) > before
    tree = await memories(client)
    # The buffer's text counts: old is living now, so it is no longer under new.
    assert [shape(e) for e in tree["roots"][0]["types"][0]["entries"]] == [
        ("new", "living", 1, []), ("old", "living", 0, [])]


async def test_a_client_without_the_view_gets_no_memls_notifications(client, tmp_path):
    folder = tmp_path / "workspace"
    root = write_root(folder, {"new.md": NEW, "old.md": OLD})
    changed: list[object] = []
    client.feature("memls/memoriesChanged")(lambda params: changed.append(params))
    await initialize(client, folder, memories_view=False)
    uri = path_to_uri(root / "old.md")
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="markdown", version=1, text=entry("old"))))
    await asyncio.sleep(0.8)
    assert changed == []


async def test_typing_in_a_body_does_not_ask_for_the_tree_again(client, tmp_path):
    folder = tmp_path / "workspace"
    root = write_root(folder, {"new.md": NEW, "old.md": OLD})
    changed: list[object] = []
    client.feature("memls/memoriesChanged")(lambda params: changed.append(params))
    await initialize(client, folder, memories_view=True)
    uri = path_to_uri(root / "new.md")
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="markdown", version=1, text=NEW)))
    await asyncio.sleep(0.8)  # the scan's notice, and the open's (nothing changed)
    before = len(changed)
    for version in range(2, 6):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=NEW + "more " * version)]))
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.8)
    assert len(changed) == before
