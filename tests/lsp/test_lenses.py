"""CodeLens above entries, document links on MEMORY.md, and the lens command, end to end.

Read-only requests share one server per client profile; the tests that
click a lens or change a file start their own.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from lsprotocol import types

from memls.lsp.convert import path_to_uri

from .conftest import (
    Session,
    entry,
    initialize_in,
    open_session,
    run_command,
    wait_until_scanned,
    write_root,
)

on_shared_server = pytest.mark.asyncio(loop_scope="module")

NEW = entry("new", extra="supersedes:\n  - old\n  - older\n")
OLD = entry("old", extra="status: superseded\nsuperseded_by: new\n")
OLDER = entry("older", extra="status: superseded\nsuperseded_by: new\n")
SOLO = entry("solo", extra="supersedes: gone\n")  # a dangling link gets no lens
LONE = entry("lone")
# "- [🎉 Über](über.md) — d": the title is 6 code points, 7 UTF-16 units and
# 10 UTF-8 bytes, so the target "über.md" spans these columns in each encoding.
UBER = entry("über")
UBER_TARGET = {"utf-16": (12, 19), "utf-8": (15, 23), "utf-32": (11, 18)}
INDEX = "# Persistent Memory\n\n## Project\n- [new](new.md) — d\n- [🎉 Über](über.md) — d\n- [x](missing.md) — d\n"
FILES = {"new.md": NEW, "old.md": OLD, "older.md": OLDER, "solo.md": SOLO, "lone.md": LONE,
         "über.md": UBER, "MEMORY.md": INDEX}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def lenses(shared_client) -> Session:
    return await open_session(shared_client, FILES, opened=tuple(FILES))


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(start=types.Position(line=l1, character=c1), end=types.Position(line=l2, character=c2))


async def code_lenses(session: Session, name: str) -> list[types.CodeLens]:
    return await session.client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri(name))))


def titles(found: list[types.CodeLens]) -> list[str]:
    return [lens.command.title for lens in found]


def targets(lens: types.CodeLens) -> list[tuple[str, str, types.Range]]:
    assert lens.command.command == "memls.showLocations"
    return [(t["label"], t["uri"], types.Range(
        start=types.Position(**t["range"]["start"]), end=types.Position(**t["range"]["end"])))
        for t in lens.command.arguments[0]]


@on_shared_server
async def test_the_server_advertises_code_lens_document_links_and_the_lens_command(lenses):
    caps = lenses.server_capabilities  # type: ignore[attr-defined]
    assert caps.code_lens_provider is not None and not caps.code_lens_provider.resolve_provider
    assert caps.document_link_provider is not None
    assert "memls.showLocations" in caps.execute_command_provider.commands


@on_shared_server
async def test_an_entry_with_predecessors_lists_them_and_its_index_line(lenses):
    found = await code_lenses(lenses, "new.md")
    assert titles(found) == ["supersedes 2 entries", "in MEMORY.md"]
    assert all(lens.range == rng(0, 0, 0, 3) for lens in found)
    assert targets(found[0]) == [("old", lenses.uri("old.md"), rng(1, 6, 1, 9)),
                                 ("older", lenses.uri("older.md"), rng(1, 6, 1, 11))]
    assert targets(found[1]) == [("MEMORY.md", lenses.uri("MEMORY.md"), rng(3, 8, 3, 14))]


@on_shared_server
async def test_a_superseded_entry_names_its_successor_and_is_not_in_the_index(lenses):
    found = await code_lenses(lenses, "old.md")
    assert titles(found) == ["superseded by new", "not in MEMORY.md"]
    assert targets(found[0]) == [("new", lenses.uri("new.md"), rng(1, 6, 1, 9))]
    assert targets(found[1]) == [("MEMORY.md", lenses.uri("MEMORY.md"), rng(0, 0, 0, 0))]


@on_shared_server
async def test_a_dangling_link_gets_no_lens_and_one_predecessor_is_named(lenses):
    assert titles(await code_lenses(lenses, "solo.md")) == ["not in MEMORY.md"]
    assert titles(await code_lenses(lenses, "lone.md")) == ["not in MEMORY.md"]


@on_shared_server
async def test_the_index_line_lens_is_in_the_clients_units(lenses):
    found = await code_lenses(lenses, "über.md")
    assert titles(found) == ["in MEMORY.md"]
    start, end = UBER_TARGET[encoding(lenses)]
    assert targets(found[0]) == [("MEMORY.md", lenses.uri("MEMORY.md"), rng(4, start, 4, end))]


def encoding(session: Session) -> str:
    """The position encoding the server chose (UTF-16 unless the client offered another)."""
    return session.server_capabilities.position_encoding or "utf-16"  # type: ignore[attr-defined]


@on_shared_server
async def test_memory_md_links_each_pointer_to_its_entry_in_utf16_ranges(lenses):
    links = await lenses.client.text_document_document_link_async(types.DocumentLinkParams(
        text_document=types.TextDocumentIdentifier(uri=lenses.uri("MEMORY.md"))))
    # The pointer to missing.md is left to index-broken-link.
    start, end = UBER_TARGET[encoding(lenses)]
    assert [(link.range, link.target) for link in links] == [
        (rng(3, 8, 3, 14), lenses.uri("new.md")),
        (rng(4, start, 4, end), lenses.uri("über.md")),
    ]
    with_tooltips = lenses.client.capabilities.text_document.document_link
    assert [link.tooltip for link in links] == (
        ["Open the memory new", "Open the memory über"] if with_tooltips and with_tooltips.tooltip_support
        else [None, None])


@on_shared_server
async def test_entries_have_no_document_links_and_the_index_no_lenses(lenses):
    links = await lenses.client.text_document_document_link_async(types.DocumentLinkParams(
        text_document=types.TextDocumentIdentifier(uri=lenses.uri("new.md"))))
    assert not links
    assert not await code_lenses(lenses, "MEMORY.md")


# -- clicking a lens -------------------------------------------------------------------


async def test_clicking_a_lens_shows_its_target_selected(client, tmp_path):
    folder = tmp_path / "workspace"
    write_root(folder, {"new.md": NEW, "old.md": OLD, "older.md": OLDER})
    session = await initialize_in(client, folder, _caps(client))
    await wait_until_scanned(client)
    lens = (await code_lenses(session, "old.md"))[0]
    result = await run_command(client, lens.command.command, *lens.command.arguments)
    if session.client.capabilities.window and session.client.capabilities.window.show_document:
        assert [(d.uri, d.selection, d.take_focus) for d in client.shown_documents] == [
            (session.uri("new.md"), rng(1, 6, 1, 9), True)]
        assert result["uri"] == session.uri("new.md")
    else:  # the client cannot be told to open it: the command answers where it is
        assert [t["uri"] for t in result] == [session.uri("new.md")]


async def test_clicking_a_lens_with_several_targets_asks_which_one(client, tmp_path):
    asked: list[types.ShowMessageRequestParams] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def pick(params: types.ShowMessageRequestParams):
        asked.append(params)
        return params.actions[1]

    folder = tmp_path / "workspace"
    write_root(folder, {"new.md": NEW, "old.md": OLD, "older.md": OLDER})
    session = await initialize_in(client, folder, _caps(client))
    await wait_until_scanned(client)
    lens = (await code_lenses(session, "new.md"))[0]
    await run_command(client, lens.command.command, *lens.command.arguments)
    if not (session.client.capabilities.window and session.client.capabilities.window.show_document):
        assert asked == []
        return
    assert [[a.title for a in p.actions] for p in asked] == [["old", "older"]]
    assert [(d.uri, d.selection) for d in client.shown_documents] == [(session.uri("older.md"), rng(1, 6, 1, 11))]


async def test_the_lens_command_refuses_bad_arguments_in_one_line(client, tmp_path):
    from pygls.exceptions import JsonRpcException

    folder = tmp_path / "workspace"
    write_root(folder, {"new.md": NEW})
    await initialize_in(client, folder, _caps(client))
    for bad in ([], [[]], [[{"uri": "file:///x.md"}]], [[{"label": "x", "uri": "file:///x.md",
                                                           "range": {"start": {"line": -1, "character": 0}}}]]):
        with pytest.raises(JsonRpcException) as caught:
            await run_command(client, "memls.showLocations", *bad)
        assert "\n" not in str(caught.value)


async def test_the_lens_command_shows_only_existing_files_and_protocol_positions(client, tmp_path):
    from pygls.exceptions import JsonRpcException

    folder = tmp_path / "workspace"
    root = write_root(folder, {"new.md": NEW})
    await initialize_in(client, folder, _caps(client))
    at = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    for uri in ("not a uri", "http://example.com/a", "file://", path_to_uri(folder / "gone.md")):
        with pytest.raises(JsonRpcException, match="not a file: URI of an existing file"):
            await run_command(client, "memls.showLocations", [{"label": "x", "uri": uri, "range": at}])
    huge = {"start": {"line": 2**31, "character": 0}, "end": {"line": 0, "character": 0}}
    with pytest.raises(JsonRpcException, match="each location needs a label, a uri and a range"):
        await run_command(client, "memls.showLocations",
                          [{"label": "x", "uri": path_to_uri(root / "new.md"), "range": huge}])


def _caps(client) -> types.ClientCapabilities:
    from pytest_lsp import client_capabilities

    return client_capabilities(client.memls_profile)  # type: ignore[attr-defined]


# -- lenses go stale with the other files ------------------------------------------------


async def test_a_client_that_can_refresh_lenses_is_asked_to_after_a_change(client, tmp_path):
    folder = tmp_path / "workspace"
    write_root(folder, {"new.md": NEW, "old.md": OLD, "older.md": OLDER})
    session = await initialize_in(client, folder, _caps(client))
    await wait_until_scanned(client)
    await asyncio.sleep(0.5)  # the scan's own notice
    before = client.code_lens_refreshes
    session.open("old.md")
    assert titles(await code_lenses(session, "old.md")) == ["superseded by new"]
    session.change("old.md", entry("old"), 2)
    caps = session.client.capabilities.workspace
    can_refresh = bool(caps and caps.code_lens and caps.code_lens.refresh_support)
    for _ in range(40):
        if client.code_lens_refreshes > before or not can_refresh:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.4)
    assert (client.code_lens_refreshes > before) == can_refresh
    assert titles(await code_lenses(session, "old.md")) == []  # no successor, and this root has no index
