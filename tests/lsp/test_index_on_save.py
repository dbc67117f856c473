"""``MEMORY.md`` on save: regenerated, upserted or left alone, written only when it changes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from memls.store.entry import PLACEHOLDER_DESCRIPTION
from memls.store.index import IndexPolicy, index_entries, render_index, render_policy_view
from memls.store.reader import read_root
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

from .conftest import (
    SERVER_ENV,
    Session,
    answer_as_editor,
    apply_text_edits,
    barrier,
    entry,
    initialize_in,
    write_root,
)
from .test_deleted_open_file import disk_changed

CURATED = "# Memory\n\nHand-written notes: ask Sam before touching the deploy entries.\n\n" \
          "- [a](a.md) \u2014 first\n"


def rendered(root: Path) -> str:
    """What the engine renders for a legacy root as it is on disk."""
    return render_index(index_entries(read_root(root, "project").entries, managed=False))


def save(session: Session, name: str, text: str) -> None:
    """What an editor does on ``:w``: write the file, then send didSave with the text."""
    (session.root / name).write_text(text, encoding="utf-8")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name)), text=text))


async def edit_and_save(session: Session, name: str, text: str) -> None:
    """Open, type, and save once the server has taken the edits in, as a person's pace gives it."""
    session.open(name)
    session.change(name, text, 2)
    await barrier(session)
    save(session, name, text)
    await barrier(session, "zz-probe-2.md")


async def test_generated_index_is_regenerated_on_save(start, tmp_path):
    files = {"a.md": entry("a", "first"), "b.md": entry("b", "second")}
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text, encoding="utf-8")
    session = await start(files, index=rendered(scratch))
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == rendered(session.root)
    assert "first, now revised" in index


@pytest.mark.parametrize("broken", [b"---\nname: b\ndescription: \xff\n---\n", b"frontmatter deleted\n", b""],
                         ids=["not-utf8", "no-frontmatter", "empty"])
async def test_a_regenerated_index_keeps_the_line_of_an_entry_that_turned_unreadable(start, monkeypatch, broken):
    """``memls index --write`` rendered the index, then another tool half wrote (or emptied) b.md: a
    save of a.md renders the index again without losing the only pointer to b, which ``check``
    reports and a person can repair."""
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second"), "c.md": entry("c", "third")})
    monkeypatch.setenv("MEMLS_CACHE_DIR", SERVER_ENV["MEMLS_CACHE_DIR"])  # where the server looks
    MemoryStore([MemoryRoot("project", session.root)]).write_index()
    (session.root / "b.md").write_bytes(broken)
    await edit_and_save(session, "a.md", entry("a", "first, now revised", type_="user"))
    lines = (session.root / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert lines == ["# Persistent Memory", "", "## User", "- [a](a.md) \u2014 first, now revised", "",
                     "## Project", "- [b](b.md) \u2014 second", "- [c](c.md) \u2014 third"]


async def test_an_index_memls_rendered_stays_generated_after_another_entry_changed_by_hand(start, monkeypatch):
    """Rendered by ``memls index --write`` (which keeps the digest of what it wrote), then an entry the
    save is not about edited in a terminal: the index is memls's all the same, rendered again on save,
    not taken for a curated one that gets the saved entry's line alone."""
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")})
    monkeypatch.setenv("MEMLS_CACHE_DIR", SERVER_ENV["MEMLS_CACHE_DIR"])  # where the server looks
    MemoryStore([MemoryRoot("project", session.root)]).write_index()
    (session.root / "b.md").write_text(entry("b", "second, edited in a terminal"), encoding="utf-8")
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)


async def test_curated_index_keeps_its_prose_and_gets_the_entry_line_updated(start):
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")}, index=CURATED)
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "Hand-written notes: ask Sam before touching the deploy entries." in index
    assert "first, now revised" in index
    assert "\u2014 first\n" not in index
    assert "b.md" not in index, "only the saved entry's line changes"


async def test_a_body_only_save_keeps_a_curated_line_as_the_user_wrote_it(start):
    """Claude Code style: own link text and hooks, no prose. Nothing in the line follows a body edit."""
    curated = "- [Alpha, the important one](a.md) \u2014 read before touching deploys\n" \
              "- [b](b.md) \u2014 second\n"
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")}, index=curated)
    await edit_and_save(session, "a.md", entry("a", "first") + "A new paragraph of the body.\n")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == curated


async def test_a_save_during_the_first_scan_keeps_every_entry_in_the_index(start):
    """The model holds part of the root until the scan ends: the index comes from the disk then."""
    files = {f"n{i:03}.md": entry(f"n{i:03}", f"note {i}") for i in range(300)}
    session = await start(files)
    session.open("n000.md", files["n000.md"])
    save(session, "n000.md", entry("n000", "note 0, revised"))
    await barrier(session)
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert all(f"({name})" in index for name in files), "a line was lost"


async def test_an_unsaved_new_buffer_never_reaches_the_index(start):
    session = await start({"a.md": entry("a", "first")})
    session.open("draft.md", entry("draft", "not saved yet"))
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    assert "draft" not in (session.root / "MEMORY.md").read_text(encoding="utf-8")


async def test_a_save_whose_frontmatter_does_not_load_leaves_a_curated_line_alone(start):
    """One dash deleted from the closing ``---`` and saved: nothing in the entry is certain."""
    curated = "- [Why Y](y.md) \u2014 my own words about y\n"
    good = entry("y", "y desc")
    session = await start({"y.md": good}, index=curated)
    session.open("y.md", good)
    broken = good[: good.rindex("---")] + "--" + good[good.rindex("---") + 3:]
    session.change("y.md", broken, 2)
    await barrier(session, "zz-probe-broken.md")
    save(session, "y.md", broken)
    await barrier(session, "zz-probe-broken-2.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == curated
    session.change("y.md", good, 3)
    save(session, "y.md", good)
    await barrier(session, "zz-probe-broken-3.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == curated


async def test_absent_index_is_created_on_save(start):
    session = await start({"a.md": entry("a", "first")})
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)


async def test_managed_root_gets_its_policy_view_on_save(start):
    policy = IndexPolicy(version=1, budget=2000, selected=("b.md",))
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second"),
                           ".memory-index.json": policy.dumps()}, index="# Memory\n")
    await edit_and_save(session, "b.md", entry("b", "second, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == render_policy_view(read_root(session.root, "project").entries, policy)
    assert "second, now revised" in index and "a.md" not in index


async def test_save_that_changes_nothing_leaves_the_index_untouched(start):
    session = await start({"a.md": entry("a", "first")})
    index_path = session.root / "MEMORY.md"
    index_path.write_text(rendered(session.root), encoding="utf-8")
    before = index_path.stat().st_mtime_ns
    session.open("a.md")
    save(session, "a.md", entry("a", "first"))
    await barrier(session)
    assert index_path.stat().st_mtime_ns == before


async def test_index_on_save_off_leaves_the_index_alone(start):
    session = await start({"a.md": entry("a", "first")}, settings={"index": {"onSave": "off"}})
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    assert not (session.root / "MEMORY.md").exists()


async def test_index_on_save_regenerate_rewrites_a_curated_index(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED,
                          settings={"index": {"onSave": "regenerate"}})
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)


async def test_open_unmodified_index_is_written_on_disk_without_an_edit(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    session.open("MEMORY.md")  # e.g. a hidden Neovim buffer after jumping from it
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "first, now revised" in index and "Hand-written notes" in index
    assert session.client.applied_edits == []  # the editor reloads an unmodified buffer
    # The server's view is the written text: a second save upserts into it, not into the old one.
    session.change("a.md", entry("a", "first, revised twice"), 3)
    save(session, "a.md", entry("a", "first, revised twice"))
    await barrier(session, "zz-probe-3.md")
    assert "first, revised twice" in (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert session.client.applied_edits == []


async def test_open_index_with_unsaved_changes_gets_a_workspace_edit_instead_of_a_disk_write(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    session.open("MEMORY.md")
    typed = CURATED.replace("Hand-written notes", "Hand-written notes (being edited)")
    session.change("MEMORY.md", typed, 2)  # unsaved: the new line joins the user's text
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == CURATED
    [applied] = session.client.applied_edits
    edit = applied.edit
    if edit.document_changes:
        [change] = edit.document_changes
        assert change.text_document.uri == session.uri("MEMORY.md")
        edits = change.edits
    else:
        edits = edit.changes[session.uri("MEMORY.md")]
    [text_edit] = edits
    updated = apply_text_edits(typed, edits)
    assert "(being edited)" in updated and "first, now revised" in updated
    # Only the changed pointer line is touched: the cursor and folds above it stay put.
    assert text_edit.range.start.line == CURATED.count("\n") - 1 and "Hand-written" not in text_edit.new_text


# -- autosave (textDocument/willSave reasons) -------------------------------------------

HALF_TYPED = entry("a", "first").replace("description:", "descdescription:")


def autosave(session: Session, name: str, text: str,
             reason: types.TextDocumentSaveReason = types.TextDocumentSaveReason.AfterDelay) -> None:
    """What VS Code does after a pause in typing: willSave with the reason, then the save."""
    session.client.text_document_will_save(types.WillSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name)), reason=reason))
    save(session, name, text)


async def test_autosave_of_an_entry_with_the_placeholder_description_keeps_it_out_of_the_index(start):
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")}, index=CURATED)
    placeholder = entry("a", PLACEHOLDER_DESCRIPTION)
    session.open("a.md")
    session.change("a.md", placeholder, 2)
    await barrier(session, "zz-typed.md")
    autosave(session, "a.md", placeholder)
    diags = await session.diagnostics("a.md", lambda d: "index-line-kept" in session.codes(d))
    assert "has no description" in next(d for d in diags if d.code == "index-line-kept").message
    assert PLACEHOLDER_DESCRIPTION not in (session.root / "MEMORY.md").read_text(encoding="utf-8")


async def test_server_asks_for_will_save(start):
    session = await start({"a.md": entry("a", "first")})
    sync = session.initialize_result.capabilities.text_document_sync  # type: ignore[attr-defined]
    assert sync.will_save is True


async def test_autosave_of_a_half_typed_entry_keeps_its_index_line_and_says_so(start):
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")}, index=CURATED)
    session.open("a.md")
    session.change("a.md", HALF_TYPED, 2)
    await barrier(session, "zz-typed.md")  # the server has the file as opened before the save writes it
    autosave(session, "a.md", HALF_TYPED)
    diags = await session.diagnostics("a.md", lambda d: "index-line-kept" in session.codes(d))
    [kept] = [d for d in diags if d.code == "index-line-kept"]
    assert "has no description" in kept.message and kept.range.start.line == 1
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == CURATED
    # Finished and autosaved again: the line follows, the note goes.
    session.change("a.md", entry("a", "first, now revised"), 3)
    autosave(session, "a.md", entry("a", "first, now revised"), types.TextDocumentSaveReason.FocusOut)
    await session.diagnostics("a.md", lambda d: "index-line-kept" not in session.codes(d))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [a](a.md) \u2014 first, now revised\n" in index and "Hand-written notes" in index


async def test_autosave_never_renames_or_moves_an_index_line_a_manual_save_does(start):
    """``name: ab`` or ``type: proj`` caught by a pause: no ``- [ab]`` link, no ``## Proj`` section."""
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")}, index=CURATED)
    session.open("a.md", entry("a", "first"))
    for version, half in enumerate((entry("ab", "first"), entry("a", "first", type_="proj"),
                                    entry("a", "first", extra="title: Ab\n")), start=2):
        session.change("a.md", half, 2 * version)
        await barrier(session, f"zz-typed-{version}.md")
        autosave(session, "a.md", half)
        diags = await session.diagnostics("a.md", lambda d: "index-line-kept" in session.codes(d))
        [kept] = [d for d in diags if d.code == "index-line-kept"]
        assert "changed its" in kept.message and "save it yourself" in kept.message
        assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == CURATED
        session.change("a.md", entry("a", "first"), 2 * version + 1)
        autosave(session, "a.md", entry("a", "first"))
        await session.diagnostics("a.md", lambda d: "index-line-kept" not in session.codes(d))
    # A new description alone follows on an autosave; a new name waits for a manual save.
    session.change("a.md", entry("a", "first, revised"), 20)
    autosave(session, "a.md", entry("a", "first, revised"))
    await barrier(session, "zz-probe-desc.md")
    assert "- [a](a.md) \u2014 first, revised\n" in (session.root / "MEMORY.md").read_text(encoding="utf-8")
    session.change("a.md", entry("ab", "first, revised"), 21)
    save(session, "a.md", entry("ab", "first, revised"))
    await barrier(session, "zz-probe-manual.md")
    assert "- [ab](a.md) \u2014 first, revised\n" in (session.root / "MEMORY.md").read_text(encoding="utf-8")


def change_and_autosave_at_once(session: Session, name: str, text: str, version: int) -> None:
    """A focus-out save: the editor flushes its change, then saves at once.

    The server takes the change in after the file was written, as it does
    when the messages arrive together: so the file is written first here.
    """
    (session.root / name).write_text(text, encoding="utf-8")
    session.change(name, text, version)
    autosave(session, name, text)


async def test_autosave_right_behind_its_change_keeps_a_renamed_or_retyped_entrys_line(start, tmp_path):
    """The file already holds the change's text when the server takes it in: not a reload, the save's own write."""
    files = {"a.md": entry("a", "first"), "b.md": entry("b", "second", type_="user")}
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text, encoding="utf-8")
    generated = rendered(scratch)
    session = await start(files, index=generated)
    for version, (name, half) in enumerate((("a.md", entry("ab", "first")),
                                            ("b.md", entry("b", "second", type_="us"))), start=2):
        session.open(name)
        await barrier(session, f"zz-opened-{version}.md")
        change_and_autosave_at_once(session, name, half, version)
        diags = await session.diagnostics(name, lambda d: "index-line-kept" in session.codes(d))
        [kept] = [d for d in diags if d.code == "index-line-kept"]
        assert "changed its" in kept.message
        assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == generated


async def test_autosave_right_behind_its_change_keeps_a_curated_line_and_follows_a_new_description(start):
    curated = CURATED + "- [b](b.md) \u2014 second\n"
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")}, index=curated)
    session.open("a.md")
    session.open("b.md")
    await barrier(session, "zz-opened.md")
    change_and_autosave_at_once(session, "a.md", entry("ab", "first"), 2)
    await session.diagnostics("a.md", lambda d: "index-line-kept" in session.codes(d))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == curated
    change_and_autosave_at_once(session, "b.md", entry("b", "second, revised"), 2)
    await barrier(session)
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == curated.replace("second", "second, revised")


async def test_manual_save_of_a_half_typed_entry_updates_the_index_as_asked(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    session.open("a.md")
    session.change("a.md", HALF_TYPED, 2)
    await barrier(session, "zz-typed.md")  # the server has the file as opened before the save writes it
    autosave(session, "a.md", HALF_TYPED, types.TextDocumentSaveReason.Manual)
    await barrier(session)
    assert "\u2014 first\n" not in (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "index-line-kept" not in session.codes(await session.diagnostics("a.md", lambda d: True))


async def test_another_entrys_save_does_not_publish_a_held_entry(start, tmp_path):
    files = {"a.md": entry("a", "first"), "b.md": entry("b", "second")}
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text, encoding="utf-8")
    session = await start(files, index=rendered(scratch))
    session.open("a.md")
    session.change("a.md", HALF_TYPED, 2)
    await barrier(session, "zz-typed.md")  # the server has the file as opened before the save writes it
    autosave(session, "a.md", HALF_TYPED)
    await session.diagnostics("a.md", lambda d: "index-line-kept" in session.codes(d))
    await edit_and_save(session, "b.md", entry("b", "second, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [a](a.md) \u2014 first\n" in index and "second, now revised" in index


async def test_a_client_without_apply_edit_is_told_once_why_an_open_changed_index_did_not_follow(client, tmp_path):
    caps = client_capabilities(client.memls_profile)  # type: ignore[attr-defined]
    caps.workspace.apply_edit = False  # type: ignore[union-attr]
    write_root(tmp_path, {"a.md": entry("a", "first"), "MEMORY.md": CURATED})
    session = await initialize_in(client, tmp_path, caps)
    session.open("MEMORY.md")
    session.change("MEMORY.md", CURATED + "\nmore notes\n", 2)
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    session.change("a.md", entry("a", "first, revised twice"), 3)
    save(session, "a.md", entry("a", "first, revised twice"))
    await barrier(session, "zz-probe-3.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == CURATED
    told = [m for m in client.messages if "MEMORY.md was not updated" in m.message]
    assert len(told) == 1 and "unsaved changes" in told[0].message, client.messages


async def test_an_index_edit_the_editor_declines_is_told_to_the_user(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: types.ApplyWorkspaceEditResult(
        applied=False, failure_reason="the document changed meanwhile"))
    session.open("MEMORY.md")
    session.change("MEMORY.md", CURATED.replace("Hand-written", "Hand-typed"), 2)
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    for _ in range(200):  # the answer to the edit comes back after the save's checks
        told = [m.message for m in session.client.messages if "MEMORY.md was not updated" in m.message]
        if told:
            break
        await asyncio.sleep(0.05)
    assert told and "the document changed meanwhile" in told[0]
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == CURATED  # the user's text was not overwritten


@pytest.mark.parametrize("then", ["revert", "save-buffer"])
async def test_doing_what_the_declined_edit_s_message_says_brings_the_entry_s_line(start, then):
    """"save or revert it, then save the memory again": that save must update the line it could not edit."""
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    answer_as_editor(session, types.WORKSPACE_APPLY_EDIT, lambda params: types.ApplyWorkspaceEditResult(
        applied=False, failure_reason="the document changed meanwhile"))
    session.open("MEMORY.md")
    typed = CURATED.replace("Hand-written", "Hand-typed")
    session.change("MEMORY.md", typed, 2)
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    for _ in range(200):  # the answer to the edit comes back after the save's checks
        if any("MEMORY.md was not updated" in m.message for m in session.client.messages):
            break
        await asyncio.sleep(0.05)
    # The editor's watcher tells of the entry's write: the index still follows the text before it.
    await disk_changed(session, {session.root / "a.md": types.FileChangeType.Changed}, "zz-probe-1.md")
    if then == "revert":
        session.change("MEMORY.md", CURATED, 3)
    else:
        save(session, "MEMORY.md", typed)
    await barrier(session)
    save(session, "a.md", entry("a", "first, now revised"))
    line = "- [a](a.md) \u2014 first, now revised\n"
    for _ in range(200):  # the write comes after the save's checks
        index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
        if line in index:
            break
        await asyncio.sleep(0.05)
    assert line in index, index
    assert ("Hand-typed" in index) == (then == "save-buffer")


async def test_a_generated_index_follows_another_entrys_saved_text_not_its_unsaved_buffer(start, tmp_path):
    """The save renders from the model's kept lines; an open entry's unsaved words stay out of it."""
    files = {"a.md": entry("a", "first"), "b.md": entry("b", "second"), "c.md": entry("c", "third")}
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text, encoding="utf-8")
    session = await start(files, index=rendered(scratch))
    session.open("b.md")
    session.change("b.md", entry("b", "second, typed but not saved", type_="user"), 2)
    session.open("c.md")
    session.change("c.md", entry("c", "third", extra="status: historical\n"), 2)
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == rendered(session.root)
    assert "first, now revised" in index and "- [b](b.md) \u2014 second\n" in index and "(c.md)" in index


async def test_a_save_regenerates_the_index_without_the_entry_no_line_can_hold_and_writes_the_rest(start, tmp_path):
    """A hand-written title holding a lone surrogate ("\\ud835") cannot be written to any file:
    the server's index-on-save leaves that one line out instead of failing the whole write."""
    files = {"a.md": entry("a", "first"), "b.md": entry("b", "second"),
             "s.md": entry("s", "math", extra='title: "s\\ud835x"\n')}
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text, encoding="utf-8")
    session = await start(files, index=rendered(scratch))
    assert "s.md" not in rendered(scratch)
    await edit_and_save(session, "a.md", entry("a", "first, now revised"))
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == rendered(session.root)
    assert "first, now revised" in index and "s.md" not in index
    await edit_and_save(session, "s.md", entry("s", "math, revised", extra='title: "s\\ud835y"\n'))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == index


async def test_a_save_of_an_entry_moved_by_hand_points_its_curated_line_at_its_file(start):
    """``mv a.md a-notes.md`` left the line of ``a`` at ``a.md``: the save points it at the file, words kept.

    Not a second line appended beside the broken one (which the next fix-all
    removed, with the person's words)."""
    curated = "- [a](a.md) \u2014 ask Sam before touching prod\n- [b](b.md) \u2014 second\n"
    session = await start({"a-notes.md": entry("a", "first"), "b.md": entry("b", "second")}, index=curated)
    await edit_and_save(session, "a-notes.md", entry("a", "first, now revised"))
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == curated.replace("(a.md)", "(a-notes.md)")
