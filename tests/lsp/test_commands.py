"""``workspace/executeCommand``: each command's result and its effect on disk, per client profile.

Commands that write get a fresh server each; read-only ones and refusals
share one server per profile.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

from .conftest import Session, apply_text_edits, barrier, entry, open_session, run_command, wait_until_scanned

on_shared_server = pytest.mark.asyncio(loop_scope="module")

SHARED = {
    "uv.md": entry("prefer-uv", description="install python packages with uv, not pip",
                   extra="keywords:\n  - pip\n"),
    "tabs.md": entry("tabs-not-spaces", description="indent with tabs"),
    "pip.md": entry("use-pip", description="install packages with pip",
                    extra="status: superseded\nsuperseded_by: prefer-uv\n"),
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(shared_client) -> Session:
    return await open_session(shared_client, SHARED)


def store_of(session: Session) -> MemoryStore:
    return MemoryStore([MemoryRoot("project", session.root)])


# -- memls.regenerateIndex -------------------------------------------------------------


async def test_regenerate_index_writes_the_engine_rendering_once(start):
    session = await start({"a.md": entry("a"), "b.md": entry("b", type_="user")})
    await wait_until_scanned(session.client)
    first = await run_command(session.client, "memls.regenerateIndex", session.uri("a.md"))
    assert first["changed"] is True and first["uri"] == session.uri("MEMORY.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == store_of(session).render_root_index("project")
    again = await run_command(session.client, "memls.regenerateIndex", str(session.root))
    assert again["changed"] is False


async def test_regenerate_index_writes_an_open_unmodified_index_without_an_edit(start):
    stale = "# Persistent Memory\n"
    session = await start({"a.md": entry("a")}, index=stale)
    await wait_until_scanned(session.client)
    session.open("MEMORY.md")  # open, e.g. a hidden buffer in Neovim, equal to the disk
    result = await run_command(session.client, "memls.regenerateIndex")
    assert result["buffer"] is False and result["changed"] is True
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == store_of(session).render_root_index("project")
    assert session.client.applied_edits == []  # the editor reloads it; an edit would leave it modified


async def test_regenerate_index_edits_an_open_index_with_unsaved_changes(start):
    stale = "# Persistent Memory\n"
    session = await start({"a.md": entry("a")}, index=stale)
    await wait_until_scanned(session.client)
    session.open("MEMORY.md")
    typed = stale + "\nA note being written.\n"
    session.change("MEMORY.md", typed, 2)
    result = await run_command(session.client, "memls.regenerateIndex")
    assert result["buffer"] is True
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == stale
    (applied,) = session.client.applied_edits
    edits = applied.edit.document_changes[0].edits if applied.edit.document_changes else \
        applied.edit.changes[session.uri("MEMORY.md")]
    assert apply_text_edits(typed, edits) == store_of(session).render_root_index("project")
    assert edits[0].range.start.line >= 1  # the unchanged title stays


# -- memls.supersede ---------------------------------------------------------------------


async def test_supersede_links_both_entries_and_leaves_audit_clean(start):
    session = await start({"old.md": entry("old"), "new.md": entry("new")})
    await wait_until_scanned(session.client)
    session.open("old.md")  # open without unsaved changes: the buffer follows the disk
    result = await run_command(session.client, "memls.supersede", "old", "new", session.uri("old.md"))
    assert result == {"old": session.uri("old.md"), "new": session.uri("new.md")}
    store = store_of(session)
    old, new = store.get("old"), store.get("new")
    assert (old.status, old.superseded_by, new.supersedes) == ("superseded", "new", ["old"])
    assert store.audit() == []
    # The open, unmodified buffer is reloaded by the editor: no edit would leave it modified.
    assert session.client.applied_edits == []
    await session.diagnostics("old.md", lambda d: "asymmetric-supersession" not in session.codes(d))


async def test_supersede_of_a_crlf_file_open_and_unchanged_is_not_refused_as_unsaved(start):
    crlf = entry("old").replace("\n", "\r\n")
    session = await start({"old.md": crlf, "new.md": entry("new")})
    await wait_until_scanned(session.client)
    session.open("old.md", crlf)  # the editor holds the file's own CRLF
    await barrier(session)
    await run_command(session.client, "memls.supersede", "old", "new", session.uri("old.md"))
    assert store_of(session).get("old").status == "superseded"


async def test_regenerate_index_writes_a_crlf_index_open_and_unchanged_on_disk(start):
    stale = "# Persistent Memory\r\n"
    session = await start({"a.md": entry("a")}, index=stale)
    await wait_until_scanned(session.client)
    session.open("MEMORY.md", stale)
    await barrier(session)
    result = await run_command(session.client, "memls.regenerateIndex")
    assert result["buffer"] is False and result["changed"] is True
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == store_of(session).render_root_index("project")


async def test_supersede_command_edits_only_the_keys_it_sets(start):
    commented = ("---\n# owner: alice\nname: old\ndescription: x  # short\n"
                 "supersedes: [a, b]  # b was wrong\nzz_custom: keep\n---\nBody\n")
    session = await start({"old.md": commented, "new.md": entry("new")})
    await wait_until_scanned(session.client)
    await run_command(session.client, "memls.supersede", "old", "new", session.uri("old.md"))
    assert (session.root / "old.md").read_text(encoding="utf-8") == (
        "---\n# owner: alice\nname: old\ndescription: x  # short\nstatus: superseded\n"
        "supersedes: [a, b]  # b was wrong\nsuperseded_by: new\nzz_custom: keep\n---\nBody\n")


@on_shared_server
async def test_supersede_refuses_while_a_changed_file_has_unsaved_edits(shared):
    before = (shared.root / "tabs.md").read_bytes()
    shared.open("tabs.md", entry("tabs-not-spaces", description="edited, not saved"))
    with pytest.raises(JsonRpcException, match="save tabs.md first"):
        await run_command(shared.client, "memls.supersede", "tabs-not-spaces", "prefer-uv")
    assert (shared.root / "tabs.md").read_bytes() == before


@on_shared_server
async def test_supersede_of_an_unknown_entry_is_a_one_line_error(shared):
    with pytest.raises(JsonRpcException) as caught:
        await run_command(shared.client, "memls.supersede", "no-such-entry", "prefer-uv")
    assert "no-such-entry" in str(caught.value) and "\n" not in str(caught.value)
    assert caught.value.code == types.LSPErrorCodes.RequestFailed
    assert await run_command(shared.client, "memls.recall", "tabs")  # the server still answers


# -- memls.newMemory ----------------------------------------------------------------------


async def test_new_memory_creates_the_entry_and_shows_it(start):
    session = await start({"a.md": entry("a")})
    await wait_until_scanned(session.client)
    result = await run_command(session.client, "memls.newMemory", "Deploy Steps", "how we deploy", "project",
                               "Run make deploy.\n")
    assert result["uri"] == session.uri("deploy-steps.md")
    saved = store_of(session).get("deploy-steps")
    assert (saved.description, saved.type, saved.body.strip()) == ("how we deploy", "project", "Run make deploy.")
    window = session.client.capabilities.window
    shown = [d.uri for d in session.client.shown_documents]
    assert shown == ([result["uri"]] if window and window.show_document else [])
    symbols = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="deploy"))
    assert [s.name for s in symbols] == ["deploy-steps"]  # the model knows it at once


async def test_new_memory_with_a_path_for_a_name_stays_in_the_root_and_says_which_name(start):
    session = await start({"a.md": entry("a")})
    await wait_until_scanned(session.client)
    result = await run_command(session.client, "memls.newMemory", "../../escape", "d", "project")
    assert result["name"] == "escape" and result["uri"] == session.uri("escape.md")
    assert not (session.folder.parent / "escape.md").exists()
    [told] = [m for m in session.client.messages if "'../../escape'" in m.message]
    assert "named 'escape'" in told.message


async def test_new_memory_of_a_new_type_keeps_a_generated_index_generated(start):
    # Issue 11, defect 10: the line went to the end under '## Reference', then
    # memls reported index-drift on its own write.
    session = await start({"a.md": entry("a"), "r.md": entry("r", type_="reference")})
    await wait_until_scanned(session.client)
    store_of(session).write_index()
    await run_command(session.client, "memls.newMemory", "tz", "Works from Stockholm.", "user", "")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == store_of(session).render_root_index()
    assert index.index("## User") < index.index("## Project") < index.index("## Reference")


@on_shared_server
async def test_new_memory_refuses_a_reserved_name_and_writes_nothing(shared):
    before = sorted(p.name for p in shared.root.iterdir())
    with pytest.raises(JsonRpcException, match="reserved"):
        await run_command(shared.client, "memls.newMemory", "memory notes", "d", "project")
    assert sorted(p.name for p in shared.root.iterdir()) == before


@on_shared_server
async def test_new_memory_refuses_an_existing_file_or_name(shared):
    with pytest.raises(JsonRpcException, match="uv.md already exists"):
        await run_command(shared.client, "memls.newMemory", "uv", "d", "project")
    with pytest.raises(JsonRpcException, match="entry named 'tabs-not-spaces' already exists: tabs.md"):
        await run_command(shared.client, "memls.newMemory", "tabs not spaces", "d", "project")


async def test_new_memory_never_updates_an_entry_whose_buffer_renamed_it_unsaved(start):
    # The stranger's data loss: notes.md still holds 'deploy' on disk while its
    # buffer says 'deploy-old'; a *new* 'deploy' overwrote notes.md's body.
    on_disk = entry("deploy", description="how we deploy", body="IMPORTANT BODY\n")
    session = await start({"notes.md": on_disk})
    await wait_until_scanned(session.client)
    session.open("notes.md")
    session.change("notes.md", on_disk.replace("name: deploy", "name: deploy-old"), 2)
    await barrier(session)
    with pytest.raises(JsonRpcException, match="entry named 'deploy' already exists: notes.md"):
        await run_command(session.client, "memls.newMemory", "deploy", "brand new", "project", "")
    assert (session.root / "notes.md").read_text(encoding="utf-8") == on_disk
    assert not (session.root / "deploy.md").exists()


@on_shared_server
async def test_commands_report_missing_arguments(shared):
    with pytest.raises(JsonRpcException, match="missing argument: description"):
        await run_command(shared.client, "memls.newMemory", "x")


# -- memls.recall and memls.debugInfo ------------------------------------------------------


@on_shared_server
async def test_recall_ranks_living_entries_only(shared):
    hits = await run_command(shared.client, "memls.recall", "install packages pip")
    assert [h["name"] for h in hits] == ["prefer-uv"]  # use-pip is superseded
    assert hits[0]["uri"] == shared.uri("uv.md") and hits[0]["score"] > 0
    assert set(hits[0]) == {"name", "description", "type", "uri", "score"}


@on_shared_server
async def test_recall_honours_the_limit(shared):
    hits = await run_command(shared.client, "memls.recall", "with", 1)
    assert len(hits) <= 1
    with pytest.raises(JsonRpcException, match="limit"):
        await run_command(shared.client, "memls.recall", "uv", 0)


@on_shared_server
async def test_debug_info_reports_versions_roots_settings_and_client(shared):
    info = await run_command(shared.client, "memls.debugInfo")
    assert {"versions", "roots", "settings", "timings", "client", "entries"} <= set(info)
    assert {"memls", "pygls", "python", "libyaml"} <= set(info["versions"])
    (root,) = info["roots"]
    assert (root["path"], root["entries"]) == (str(shared.root), 3)
    assert "initial_scan_seconds" in info["timings"]
    assert info["client"]["apply_edit"] is True
