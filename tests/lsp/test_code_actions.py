"""Quick fixes and fix-all, each applied through the client, in every client profile.

A fix is taken the way an editor takes it: ask for code actions on the
diagnostic, resolve the chosen one when the client resolves edits lazily
(VS Code, Neovim), apply its workspace edit to the files, tell the server
(didChange + didSave for open documents, watched-file events or the
server's own watcher for the rest), and then the diagnostic is gone and the
engine's audit/check is clean for that problem.

Profile-specific: fixes that create or rename files are edits only for
VS Code (documentChanges + resource operations). The Neovim profile has no
documentChanges and Emacs' no resource operations: there such a fix carries
the command ``memls.applyFix``, and the server carries it out on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from memls.store import MemoryStore
from memls.store.checks import CheckContext, check_workspace
from memls.store.entry import DESCRIPTION_PROMPT
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot

from .conftest import EditAborted, apply_as_client, apply_text_edits, entry, scan_done

FILE_OPS = "visual-studio-code"


async def actions_for(session, name: str, code: str, *, only=(types.CodeActionKind.QuickFix,),
                      ready: frozenset[str] = frozenset()):
    """Code actions for the ``code`` diagnostic, once the ``ready`` codes show the root is loaded."""
    diags = await session.diagnostics(name, lambda d: {code, *ready} <= session.codes(d))
    diag = next(d for d in diags if d.code == code)
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name)),
        range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag], only=list(only)),
    ))
    return diag, list(actions or [])


async def take(session, action: types.CodeAction) -> types.WorkspaceEdit:
    """The action's edit, resolved lazily exactly when the profile resolves edits."""
    lazy = session.profile in ("visual-studio-code", "neovim")
    assert (action.edit is None) == lazy, f"{session.profile}: edit present={action.edit is not None}"
    if action.edit is None:
        action = await session.client.code_action_resolve_async(action)
    assert action.edit is not None
    return action.edit


async def run_command(session, action: types.CodeAction):
    """Execute the action's command, as an editor does with an action that has no edit."""
    assert action.edit is None and action.command is not None
    assert action.command.command == "memls.applyFix"
    return await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments))


def audit_codes(root: Path) -> set[str]:
    return {issue.code for issue in MemoryStore([MemoryRoot("explicit", root)]).audit()}


def check_codes(root: Path) -> set[str]:
    ws = Workspace.load([MemoryRoot("explicit", root)])
    return {p.code for probs in check_workspace(CheckContext(ws)).values() for p in probs}


async def fix(session, name: str, code: str, title: str, open_docs: dict[str, int],
              ready: frozenset[str] = frozenset()):
    diag, actions = await actions_for(session, name, code, ready=ready)
    action = next((a for a in actions if a.title == title), None)
    assert action is not None, [a.title for a in actions]
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.diagnostics and action.diagnostics[0].code == code
    await apply_as_client(session, await take(session, action), open_docs)
    await session.diagnostics(name, lambda d: code not in session.codes(d))


@pytest.mark.timeout(30)
async def test_asymmetric_back_link_fix_edits_the_other_file(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
        "new.md": entry("new"),
    })
    await scan_done(session)
    session.open("old.md")
    await fix(session, "old.md", "asymmetric-supersession", "Add 'old' to supersedes in new.md", {"old.md": 1})
    assert "old" in (session.root / "new.md").read_text()
    assert "asymmetric-supersession" not in audit_codes(session.root)


@pytest.mark.timeout(30)
async def test_a_fix_to_a_file_another_tool_just_changed_edits_its_current_lines(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
        "new.md": entry("new"),
    })
    await scan_done(session)
    session.open("old.md")
    await session.diagnostics("old.md", lambda d: "asymmetric-supersession" in session.codes(d))
    new = session.root / "new.md"
    changed = new.read_text().replace("---\nname: new\n", "---\n# kept by the agent\nname: new\n", 1)
    new.write_text(changed + "A line the agent added.\n")  # no watcher event: editors deliver them late
    await fix(session, "old.md", "asymmetric-supersession", "Add 'old' to supersedes in new.md", {"old.md": 1})
    text = new.read_text()
    assert text.startswith("---\n# kept by the agent\nname: new\n") and text.endswith("A line the agent added.\n")
    assert check_codes(session.root) == {"index-missing"}  # the root has no MEMORY.md: nothing else is wrong


@pytest.mark.timeout(30)
async def test_dangling_link_removal_fix(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: nwe\n"),
        "new.md": entry("new"),
    })
    await scan_done(session)
    session.open("old.md")
    await fix(session, "old.md", "dangling-superseded-by",
              "Remove superseded_by 'nwe' and set status: historical", {"old.md": 1})
    text = (session.root / "old.md").read_text()
    assert "superseded_by" not in text and "status: historical" in text
    assert "dangling-superseded-by" not in audit_codes(session.root)


@pytest.mark.timeout(30)
async def test_dangling_link_retarget_fix_links_both_ends(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: nwe\n"),
        "new.md": entry("new"),
    })
    await scan_done(session)
    session.open("old.md")
    # The title names the other file the fix edits (issue 11, defect 7).
    await fix(session, "old.md", "dangling-superseded-by",
              "Change to 'new' and add 'old' to supersedes in new.md", {"old.md": 1})
    assert "superseded_by: new" in (session.root / "old.md").read_text()
    assert audit_codes(session.root) == set()


@pytest.mark.timeout(30)
async def test_set_status_fix(start):
    session = await start({
        "old.md": entry("old", extra="superseded_by: new\n"),
        "new.md": entry("new", extra="supersedes:\n- old\n"),
    })
    await scan_done(session)
    session.open("old.md")
    await fix(session, "old.md", "living-with-successor", "Set status: superseded", {"old.md": 1})
    assert "status: superseded" in (session.root / "old.md").read_text()
    assert "living-with-successor" not in check_codes(session.root)


@pytest.mark.timeout(30)
async def test_create_missing_entry_fix_creates_the_entry_in_every_profile(start):
    session = await start({"new.md": entry("new", extra="supersedes:\n- gone\n")})
    await scan_done(session)
    session.open("new.md")
    if session.profile != FILE_OPS:
        _, actions = await actions_for(session, "new.md", "dangling-supersedes")
        await run_command(session, next(a for a in actions if a.title == "Create entry 'gone' (gone.md)"))
        await session.diagnostics("new.md", lambda d: "dangling-supersedes" not in session.codes(d))
    else:
        await fix(session, "new.md", "dangling-supersedes", "Create entry 'gone' (gone.md)", {"new.md": 1})
    created = (session.root / "gone.md").read_text()
    assert "superseded_by: new" in created
    assert audit_codes(session.root) == set()


@pytest.mark.timeout(30)
async def test_create_entry_shows_the_new_file_with_the_cursor_in_its_empty_description(start):
    session = await start({"new.md": entry("new", extra="supersedes:\n- gone\n")})
    await scan_done(session)
    session.open("new.md")
    _, actions = await actions_for(session, "new.md", "dangling-supersedes")
    action = next(a for a in actions if a.title == "Create entry 'gone' (gone.md)")
    if session.client.capabilities.window.show_document is None:
        pytest.skip(f"{session.profile}: the client cannot be asked to show a document")
    if session.profile == FILE_OPS:
        # The client applies the edit, then runs the action's command (the spec's order).
        await apply_as_client(session, await take(session, action), {"new.md": 1})
        assert action.command is not None and action.command.command == "memls.reveal"
        await session.client.workspace_execute_command_async(types.ExecuteCommandParams(
            command=action.command.command, arguments=action.command.arguments))
    else:
        await run_command(session, action)
    [shown] = session.client.shown_documents
    assert shown.uri == session.uri("gone.md") and shown.take_focus
    line = (session.root / "gone.md").read_text().split("\n")[shown.selection.start.line]
    # The cursor between the empty description's quotes, the prompt a comment after them.
    assert shown.selection.start == shown.selection.end
    at = shown.selection.start.character
    assert (line[:at], line[at:]) == ('description: "', f'"  {DESCRIPTION_PROMPT}')
    session.open("gone.md")
    await session.diagnostics("gone.md", lambda d: "missing-description" in session.codes(d))


@pytest.mark.timeout(30)
async def test_create_fix_never_overwrites_a_file_created_meanwhile(start):
    session = await start({"new.md": entry("new", extra="supersedes:\n- gone\n")})
    await scan_done(session)
    if session.profile != FILE_OPS:
        pytest.skip(f"{session.profile}: the client cannot create files, so no create fix is offered")
    session.open("new.md")
    _, actions = await actions_for(session, "new.md", "dangling-supersedes")
    action = next(a for a in actions if a.title == "Create entry 'gone' (gone.md)")
    edit = await take(session, action)
    mine = "---\nname: gone\ndescription: written by hand meanwhile\n---\n\nkeep me\n"
    (session.root / "gone.md").write_text(mine, encoding="utf-8")
    with pytest.raises(EditAborted):
        await apply_as_client(session, edit, {"new.md": 1})
    assert (session.root / "gone.md").read_text() == mine


@pytest.mark.timeout(30)
async def test_reserved_name_fix_renames_the_file(start):
    session = await start({"memory-notes.md": entry("memory-notes")})
    await scan_done(session)
    session.open("memory-notes.md")
    diag, actions = await actions_for(session, "memory-notes.md", "reserved-name")
    action = next(a for a in actions
                  if a.title == "Rename 'memory-notes' to 'notes' (memory-notes.md to notes.md)")
    if session.profile != FILE_OPS:
        await run_command(session, action)
        # The open buffer's file moved: its diagnostics are cleared, the new file is shown.
        await session.diagnostics("memory-notes.md", lambda d: d == [])
        if session.client.capabilities.window.show_document is not None:
            assert [d.uri for d in session.client.shown_documents] == [session.uri("notes.md")]
    else:
        edit = await take(session, action)
        assert any(isinstance(c, types.RenameFile) for c in edit.document_changes or [])
        await apply_as_client(session, edit, {"memory-notes.md": 1})
    assert not (session.root / "memory-notes.md").exists()
    assert "name: notes" in (session.root / "notes.md").read_text()
    assert "reserved-name" not in check_codes(session.root)


@pytest.mark.timeout(30)
async def test_a_fix_the_server_carries_out_is_refused_while_its_file_has_unsaved_changes(start):
    session = await start({"memory-notes.md": entry("memory-notes")})
    await scan_done(session)
    if session.profile == FILE_OPS:
        pytest.skip("VS Code applies file-moving fixes itself, to its buffers")
    session.open("memory-notes.md")
    _, actions = await actions_for(session, "memory-notes.md", "reserved-name")
    action = next(a for a in actions if a.title.startswith("Rename 'memory-notes' to 'notes'"))
    session.change("memory-notes.md", entry("memory-notes", body="typed\n"), version=2)
    with pytest.raises(JsonRpcException, match="save memory-notes.md first"):
        await run_command(session, action)
    assert (session.root / "memory-notes.md").read_text() == entry("memory-notes")
    assert not (session.root / "notes.md").exists()


@pytest.mark.timeout(30)
async def test_regenerate_index_fix_is_offered_for_a_curated_index_and_says_what_it_replaces(start):
    curated = "# Persistent Memory\n\n## Project\n\n- [gone](gone.md) \u2014 d\n"
    session = await start({"a.md": entry("a")}, index=curated)
    await scan_done(session)
    session.open("MEMORY.md")
    # index-missing-entry appears once the first scan has read a.md.
    await fix(session, "MEMORY.md", "index-broken-link",
              "Regenerate MEMORY.md (replaces its hand-written lines)", {"MEMORY.md": 1},
              ready=frozenset({"index-missing-entry"}))
    assert "[a](a.md)" in (session.root / "MEMORY.md").read_text()
    assert not {"index-drift", "index-broken-link", "index-missing-entry"} & check_codes(session.root)


@pytest.mark.timeout(30)
async def test_a_fix_several_problems_share_is_offered_once_listing_them_all(start):
    files = {"a.md": entry("a"), "b.md": entry("b"), "c.md": entry("c")}
    session = await start(files, index="# Persistent Memory\n\nNotes kept by hand.\n")
    await scan_done(session)
    session.open("MEMORY.md")
    diags = await session.diagnostics(
        "MEMORY.md", lambda d: sum(x.code == "index-missing-entry" for x in d) == 3)
    missing = [d for d in diags if d.code == "index-missing-entry"]
    # Not stacked on the header: on the last line, where the line repair appends.
    assert {d.range.start.line for d in missing} == {2}
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=3, character=0))
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("MEMORY.md")), range=whole,
        context=types.CodeActionContext(diagnostics=missing, only=[types.CodeActionKind.QuickFix])))
    titles = [a.title for a in actions or []]
    assert len(titles) == len(set(titles)), titles  # each distinct fix once
    regenerate_titles = [t for t in titles if t.startswith("Regenerate MEMORY.md")]
    assert len(regenerate_titles) == 1, titles
    assert {f"Add the line for '{n}' in MEMORY.md" for n in "abc"} <= set(titles), titles
    all_lines = next(a for a in actions if a.title == "Add the lines for 'a', 'b', 'c' in MEMORY.md")
    assert len(all_lines.diagnostics or []) == 3  # the shared fix lists every diagnostic it resolves
    # Each entry's own fix resolves to its own line, though the three problems share a span.
    add_c = next(a for a in actions if a.title == "Add the line for 'c' in MEMORY.md")
    add_edit = await take(session, add_c)
    texts = [e.new_text for change in add_edit.document_changes or [] for e in change.edits]
    texts += [e.new_text for edits in (add_edit.changes or {}).values() for e in edits]
    assert texts and all("(c.md)" in t and "(a.md)" not in t for t in texts), texts
    await apply_as_client(session, await take(session, all_lines), {"MEMORY.md": 1})
    await session.diagnostics("MEMORY.md", lambda d: "index-missing-entry" not in session.codes(d))
    assert "Notes kept by hand." in (session.root / "MEMORY.md").read_text(encoding="utf-8")


async def fix_all(session, name: str) -> list[types.CodeAction]:
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name)),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
    ))
    return list(actions or [])


@pytest.mark.timeout(30)
async def test_fix_all_applies_the_documents_safe_fixes_until_none_is_left(start):
    y_text = entry("y")
    session = await start({
        "old.md": entry("old", extra="superseded_by: new\n"),
        "new.md": entry("new"),
        "x.md": entry("x", extra="status: superseded\nsuperseded_by: y\n"),
        "y.md": y_text,
    })
    await scan_done(session)
    session.open("old.md")
    open_docs = {"old.md": 1}
    await session.diagnostics("old.md", lambda d: "asymmetric-supersession" in session.codes(d))
    # The status fix becomes safe once the back-link exists: a second fix-all takes it.
    for gone in ("asymmetric-supersession", "living-with-successor"):
        actions = await fix_all(session, "old.md")
        assert [a.kind for a in actions] == ["source.fixAll.memls"]
        await apply_as_client(session, await take(session, actions[0]), open_docs)
        await session.diagnostics("old.md", lambda d, gone=gone: gone not in session.codes(d))
    await session.diagnostics("old.md", lambda d: not d)
    assert await fix_all(session, "old.md") == []
    assert "status: superseded" in (session.root / "old.md").read_text()
    assert "- old" in (session.root / "new.md").read_text()
    assert (session.root / "y.md").read_text() == y_text  # another document's problem: not this fix-all's
    assert {(i.code, i.entry) for i in MemoryStore([MemoryRoot("explicit", session.root)]).audit()} == {
        ("asymmetric-supersession", "x")}


@pytest.mark.timeout(30)
async def test_fix_all_points_the_line_of_an_entry_moved_by_hand_at_its_file_keeping_its_words(start):
    # The editor's fix-all on save ran the same repair as --fix: the line of an entry renamed in a
    # terminal (`mv deploy.md deploy-notes.md`) went, and a generated one was appended at the end.
    text = "# Memory\n\n- [deploy](deploy.md) \u2014 ask Sam before touching prod\n- [other](other.md) \u2014 o\n\nMine.\n"
    session = await start({"deploy-notes.md": entry("deploy"), "other.md": entry("other")}, index=text)
    await scan_done(session)
    session.open("MEMORY.md", text)
    await session.diagnostics("MEMORY.md", lambda d: {"index-broken-link", "index-missing-entry"} <= session.codes(d))
    [action] = await fix_all(session, "MEMORY.md")
    edit = await take(session, action)
    uri = session.uri("MEMORY.md")
    edits = [e for change in edit.document_changes or [] if getattr(change, "text_document", None)
             and change.text_document.uri == uri for e in change.edits]
    edits += (edit.changes or {}).get(uri, [])
    encoding = (session.initialize_result.capabilities.position_encoding  # type: ignore[attr-defined]
                or types.PositionEncodingKind.Utf16)
    assert apply_text_edits(text, edits, encoding) == text.replace("(deploy.md)", "(deploy-notes.md)")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("eol", ["\n", "\r"])
async def test_fix_all_of_an_index_with_a_stray_cr_edits_the_lines_the_editor_numbers(start, eol):
    # A lone CR ends a line for the editor (LSP), as for the diagnostics: the
    # edit removing a retired entry's line must land on that line, not one
    # line above, where it spliced itself into the prose the CR split.
    head = f"# Memory{eol}Pasted from a Mac tool:\rkeep this prose line intact{eol}"
    text = f"{head}- [Gone](gone.md) \u2014 x{eol}- [First](e01.md) \u2014 mine{eol}"
    session = await start({"e01.md": entry("e01"), "gone.md": entry("Gone", extra="status: historical\n")},
                          index=text)
    await scan_done(session)
    session.open("MEMORY.md", text)
    await session.diagnostics("MEMORY.md", lambda d: "index-lists-non-living" in session.codes(d))
    actions = await fix_all(session, "MEMORY.md")
    assert [a.kind for a in actions] == ["source.fixAll.memls"]
    edit = await take(session, actions[0])
    uri = session.uri("MEMORY.md")
    edits = [e for change in edit.document_changes or [] if getattr(change, "text_document", None)
             and change.text_document.uri == uri for e in change.edits]
    edits += (edit.changes or {}).get(uri, [])
    assert edits
    encoding = (session.initialize_result.capabilities.position_encoding  # type: ignore[attr-defined]
                or types.PositionEncodingKind.Utf16)
    assert apply_text_edits(text, edits, encoding) == f"{head}- [First](e01.md) \u2014 mine{eol}"
