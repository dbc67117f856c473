"""``MEMORY.md`` on save when another tool changed the root and no watcher event has come yet.

Editors deliver file-watcher events late, sometimes by seconds. An entry
written, changed or deleted by gptme, a git checkout or the memls CLI just
before the user saves another entry must count in the index that save
writes, exactly as ``memls index`` counts it; a curated index keeps its
hand-written text. The first tests send no
``workspace/didChangeWatchedFiles`` before the save; the last ones do,
and the save must write the same index.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from memls.store.index import index_entries, render_index
from memls.store.reader import read_root
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

from .conftest import apply_text_edits, barrier, entry
from .test_deleted_open_file import disk_changed
from .test_index_on_save import rendered, save


async def open_and_type(session, name: str, text: str) -> None:
    session.open(name)
    session.change(name, text, 2)
    await barrier(session)


async def test_a_save_lists_an_entry_another_tool_just_wrote(start):
    session = await start({"a.md": entry("a", "first")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await open_and_type(session, "a.md", entry("a", "first, now revised"))
    (session.root / "c.md").write_text(entry("c", "charlie fact", type_="user"), encoding="utf-8")
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "(c.md) \u2014 charlie fact" in index
    assert index == rendered(session.root), "the index the server wrote is not what `memls index` writes"


async def test_a_save_drops_the_line_of_an_entry_deleted_behind_its_back(start):
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await open_and_type(session, "a.md", entry("a", "first, now revised"))
    (session.root / "c.md").unlink()  # `git checkout`, `rm`: the index is left as it was
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "c.md" not in index
    assert index == rendered(session.root)


async def test_a_save_shows_the_new_description_of_an_entry_changed_behind_its_back(start):
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await open_and_type(session, "a.md", entry("a", "first, now revised"))
    (session.root / "c.md").write_text(entry("c", "charlie, rewritten by an agent"), encoding="utf-8")
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)


CURATED_WITH_HEADING = (
    "# Memory\n\n## Ask Sam before touching these\n\n- [a](a.md) \u2014 first\n"
)


async def test_a_save_in_a_curated_root_keeps_the_hand_heading_and_the_line_the_cli_wrote(start):
    """``memls save c`` upserts c's line into the curated index; the editor's save of a keeps it."""
    files = {"a.md": entry("a", "first")}
    session = await start(files, index=CURATED_WITH_HEADING)
    await open_and_type(session, "a.md", entry("a", "first, now revised"))
    MemoryStore([MemoryRoot("project", session.root)]).save("c", "charlie fact", type="user")
    written_by_the_cli = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    c_line = next(line for line in written_by_the_cli.splitlines(keepends=True) if "(c.md)" in line)
    assert "## Ask Sam before touching these\n" in index and c_line in index
    # Only a's line changed, as the curated rule (the CLI's upsert) changes it.
    assert index == written_by_the_cli.replace("\u2014 first\n", "\u2014 first, now revised\n")


async def test_a_save_sent_right_after_its_change_lists_an_entry_another_tool_just_wrote(start):
    """The editor writes the file before the server takes the change in: the change looks like a reload.

    The entry's line was rendered for the text before the reload, which
    still counts as what the index followed.
    """
    session = await start({"a.md": entry("a", "first")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    session.open("a.md")
    await barrier(session)
    (session.root / "c.md").write_text(entry("c", "charlie fact", type_="user"), encoding="utf-8")
    session.change("a.md", entry("a", "first, now revised"), 2)
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)


# -- the same writes, with the watcher's word arriving before the save --------------------------


def _add_c(root):
    (root / "c.md").write_text(entry("c", "charlie fact", type_="user"), encoding="utf-8")
    return {root / "c.md": types.FileChangeType.Created}


def _rewrite_c(root):
    (root / "c.md").write_text(entry("c", "charlie, rewritten by an agent"), encoding="utf-8")
    return {root / "c.md": types.FileChangeType.Changed}


def _delete_c(root):
    (root / "c.md").unlink()
    return {root / "c.md": types.FileChangeType.Deleted}


@pytest.mark.parametrize("write", [_add_c, _rewrite_c, _delete_c], ids=["added", "changed", "deleted"])
async def test_a_save_after_the_watcher_told_of_another_tools_write_renders_the_index_as_memls_index(
    start, write
):
    """The index memls rendered before the write is still its rendering: when word of the write
    comes before the save or after it, the save writes what ``memls index`` writes."""
    files = {"a.md": entry("a", "first")}
    if write is not _add_c:
        files["c.md"] = entry("c", "charlie fact")
    session = await start(files)
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await open_and_type(session, "a.md", entry("a", "first, now revised"))
    await disk_changed(session, write(session.root), "zz-probe-1.md")
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)


async def test_unsaved_text_of_an_entry_deleted_behind_the_servers_back_keeps_no_index_line(start):
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await open_and_type(session, "c.md", entry("c", "charlie, being edited"))
    await open_and_type(session, "a.md", entry("a", "first, now revised"))
    (session.root / "c.md").unlink()  # no watcher event yet
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "c.md" not in index
    assert index == rendered(session.root)


# -- the saved entry itself is the one another tool wrote ---------------------------------------


def _rewrite_a(root):
    (root / "a.md").write_text(entry("a", "first, rewritten by an agent"), encoding="utf-8")
    return {root / "a.md": types.FileChangeType.Changed}


@pytest.mark.parametrize("told", [True, False], ids=["event", "no-event"])
async def test_saving_an_entry_another_tool_rewrote_renders_the_index_memls_rendered_for_its_old_text(
    start, told
):
    """The index follows the entry as it was before the other tool's write, not the text the editor opened."""
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await barrier(session, "zz-probe-0.md")  # the server has read the root
    if told:
        await disk_changed(session, _rewrite_a(session.root), "zz-probe-1.md")
    else:
        _rewrite_a(session.root)
    await open_and_type(session, "a.md", entry("a", "first, rewritten by an agent, then by hand"))
    save(session, "a.md", entry("a", "first, rewritten by an agent, then by hand"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "\u2014 first, rewritten by an agent, then by hand\n" in index
    assert index == rendered(session.root)


@pytest.mark.parametrize("reloads", [True, False], ids=["reloaded-late", "never-reloaded"])
async def test_saving_an_open_entry_another_tool_rewrote_renders_the_index_that_tool_wrote_anew(start, reloads):
    """The tab was open when another tool rewrote the entry and rendered the index for it (watcher told).

    The editor's reload of the tool's text reaches the server only after the
    user's save has written the file (the server is a few messages behind),
    or the editor never reloads and the save writes over the tool's text:
    either way the index the tool left is a rendering, and the save renders it anew.
    """
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    session.open("a.md")
    await barrier(session, "zz-probe-0.md")
    changes = _rewrite_a(session.root)
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await disk_changed(session, {**changes, session.root / "MEMORY.md": types.FileChangeType.Changed},
                       "zz-probe-1.md")
    typed = entry("a", "first, rewritten by an agent, then by hand" if reloads else "first, then by hand")
    (session.root / "a.md").write_text(typed, encoding="utf-8")  # on disk before the server reads on
    if reloads:
        session.change("a.md", entry("a", "first, rewritten by an agent"), 2)
    session.change("a.md", typed, 3)
    save(session, "a.md", typed)
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "rewritten by an agent\n" not in index
    assert index == rendered(session.root)


async def test_saving_an_entry_another_tool_added_renders_the_index_memls_rendered_without_it(start):
    """Another tool adds an entry and deletes one (watcher told); the user saves the added one."""
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await barrier(session, "zz-probe-0.md")  # the server has read the root
    _add_n = {session.root / "n.md": types.FileChangeType.Created}
    (session.root / "n.md").write_text(entry("n", "new"), encoding="utf-8")
    await disk_changed(session, {**_add_n, **_delete_c(session.root)}, "zz-probe-1.md")
    await open_and_type(session, "n.md", entry("n", "new, revised"))
    save(session, "n.md", entry("n", "new, revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "c.md" not in index and "\u2014 new, revised\n" in index
    assert index == rendered(session.root)


CURATED_A = "# Memory\n\n## Ask Sam first\n\n- [a](a.md) \u2014 {hook}\n- [c](c.md) \u2014 charlie fact\n"


@pytest.mark.parametrize(("hook", "after"), [
    ("my words on a", "my words on a"),  # the user's words stay
    ("first", "first, then by hand"),  # memls's text for the version the index followed follows the entry
], ids=["hand-written", "stock"])
async def test_saving_an_entry_another_tool_rewrote_updates_a_curated_line_only_where_it_is_memls_text(
    start, hook, after
):
    session = await start({"a.md": entry("a", "first"), "c.md": entry("c", "charlie fact")},
                          index=CURATED_A.format(hook=hook))
    await barrier(session, "zz-probe-0.md")  # the server has read the root
    await disk_changed(session, _rewrite_a(session.root), "zz-probe-1.md")
    await open_and_type(session, "a.md", entry("a", "first, then by hand"))
    save(session, "a.md", entry("a", "first, then by hand"))
    await barrier(session, "zz-probe-2.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == CURATED_A.format(hook=after)


async def test_saving_an_entry_another_tool_rewrote_renders_an_index_cut_to_a_budget_anew(start):
    """The same for an index ``memls index --budget`` cut: compared under its marker's budget."""
    files = {f"{n}.md": entry(n, f"fact {n}") for n in ("a", "b", "c", "d", "e")}
    session = await start(files)
    budget = len(rendered(session.root).encode()) - 20
    (session.root / "MEMORY.md").write_text(cut(session.root, budget), encoding="utf-8")
    assert "omitted" in cut(session.root, budget)
    await barrier(session, "zz-probe-0.md")
    await disk_changed(session, _rewrite_a(session.root), "zz-probe-1.md")
    await open_and_type(session, "a.md", entry("a", "first, then by hand"))
    save(session, "a.md", entry("a", "first, then by hand"))
    await barrier(session, "zz-probe-2.md")
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == cut(session.root, budget)


def cut(root, budget: int) -> str:
    """What ``memls index --budget`` renders for the root as it is on disk."""
    return render_index(index_entries(read_root(root, "project").entries, managed=False), budget=budget)


@pytest.mark.parametrize("index_open", [False, True], ids=["index-closed", "index-unsaved"])
async def test_a_save_of_another_entry_in_between_does_not_make_a_rewritten_entrys_line_the_users(
    start, index_open
):
    """Another tool rewrote a; the user saves b, then a: a's line, memls's text for a before, follows a.

    The save of b judged the index and changed b's line only; a's line still
    describes a as it was before the other tool's write, as it did before b's save.
    """
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second"),
                           "c.md": entry("c", "charlie fact")}, index=CURATED_A.format(hook="first"))
    await barrier(session, "zz-probe-0.md")
    typed = CURATED_A.format(hook="first") + "- typed, not saved\n"
    if index_open:
        session.open("MEMORY.md", typed)
    await disk_changed(session, _rewrite_a(session.root), "zz-probe-1.md")
    await open_and_type(session, "b.md", entry("b", "second, revised"))
    save(session, "b.md", entry("b", "second, revised"))
    await barrier(session, "zz-probe-2.md")
    await open_and_type(session, "a.md", entry("a", "first, then by hand"))
    save(session, "a.md", entry("a", "first, then by hand"))
    await barrier(session, "zz-probe-3.md")
    if index_open:
        for _ in range(100):  # the second edit waits for the editor to tell the first one's change
            if len(session.client.applied_edits) == 2:
                break
            await asyncio.sleep(0.05)
        # This client takes edits without telling their change: each is made from the text it opened.
        edit = session.client.applied_edits[-1].edit
        changes = edit.changes[session.uri("MEMORY.md")] if edit.changes else edit.document_changes[0].edits
        assert "- [a](a.md) \u2014 first, then by hand\n" in apply_text_edits(typed, changes)
    else:
        index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
        assert "- [a](a.md) \u2014 first, then by hand\n" in index


def test_a_save_right_after_a_bulk_copy_keeps_no_record_for_the_files_nobody_changed(tmp_path):
    """Files too fresh for their ``stat`` to prove them unchanged are read by the save, and found unchanged.

    Their entries are the model's: they lag nothing, and the save keeps no record of
    them -- kept, every later save would carry them all and look each one up in the
    whole index. A file another tool did rewrite stays remembered (its line is memls's text).
    """
    from memls.lsp.features.save import save_entry

    from .conftest import unit_state

    files = {f"e{i}.md": entry(f"e{i}", f"fact {i}") for i in range(5)}
    state = unit_state(tmp_path, files)  # just written: no file is settled
    root = state.workspace.roots[0]
    (root.path / "MEMORY.md").write_text(rendered(root.path), encoding="utf-8")
    (root.path / "e4.md").write_text(entry("e4", "fact 4, rewritten by an agent"), encoding="utf-8")
    # The index keeps e4's old line: a curated line below the generated ones stops the regeneration.
    with open(root.path / "MEMORY.md", "a", encoding="utf-8") as index:
        index.write("\nA line written by hand.\n")
    (root.path / "e0.md").write_text(entry("e0", "fact 0, saved"), encoding="utf-8")
    affected, update, error = save_entry(state, root.path / "e0.md", None, automatic=False)
    assert error is None
    assert sorted(state.index_lags.get(root.path, {})) == ["e4.md"]


@pytest.mark.parametrize("watched", [False, True], ids=["no-event", "event"])
async def test_a_generated_index_the_cli_rendered_after_its_own_save_stays_generated(start, watched):
    """``memls save c`` renders the index with c's new section; the editor's save of a new s renders it anew.

    That index is the root as it is now without s: neither the root before
    the CLI's write nor after the editor's, and still memls's rendering.
    """
    session = await start({"a.md": entry("a", "first"), "b.md": entry("b", "second")})
    (session.root / "MEMORY.md").write_text(rendered(session.root), encoding="utf-8")
    await barrier(session)
    MemoryStore([MemoryRoot("project", session.root)]).save("c", "charlie fact")  # a new "General" section
    assert (session.root / "MEMORY.md").read_text(encoding="utf-8") == rendered(session.root)
    if watched:
        await disk_changed(session, {session.root / "c.md": types.FileChangeType.Created,
                                     session.root / "MEMORY.md": types.FileChangeType.Changed}, "zz-probe-1.md")
    (session.root / "s.md").write_text(entry("s", "new one"), encoding="utf-8")
    session.open("s.md")
    save(session, "s.md", entry("s", "new one"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "(s.md) \u2014 new one" in index
    assert index == rendered(session.root), "the generated index turned curated"
