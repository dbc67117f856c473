"""Definition, references, hover and symbols, end to end in every client profile.

The read-only navigation tests share one server per client profile (a
module-scoped session over the same memory root); the variants that depend
on a capability no shipped profile lacks are checked on the conversion
functions directly, over a :class:`memls.lsp.state.ServerState`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from lsprotocol.converters import get_converter

from memls.lsp.client_features import ClientFeatures
from memls.lsp.convert import path_to_uri
from memls.lsp.features.navigation import definition_result, document_symbols_result, hover_result

from .conftest import Session, entry, open_session, unit_state

# The end-to-end tests run in the shared server's event loop.
on_shared_server = pytest.mark.asyncio(loop_scope="module")

INDEX = "# Persistent Memory\n\n## Project\n- [New way](new.md) — d\n"
OLD = entry("old", extra="status: superseded\nsuperseded_by: new\n", body="# Notes\n\n## Detail\n")
NEW = entry("new", description="the new way", extra="supersedes:\n  - old\n")
LOST = entry("lost", extra="status: superseded\nsuperseded_by: gone\n")
FILES = {"old.md": OLD, "new.md": NEW, "lost.md": LOST, "MEMORY.md": INDEX}
# Lines of OLD: 1 "name: old", 5 "status: superseded", 6 "superseded_by: new";
# of NEW: 1 "name: new", 6 "  - old". Line 3 of INDEX: "- [New way](new.md) — d"
# (title columns 3-10, target columns 12-18).


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def nav(shared_client) -> Session:
    return await open_session(shared_client, FILES, opened=("old.md", "new.md", "MEMORY.md", "lost.md"))


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(start=types.Position(line=l1, character=c1), end=types.Position(line=l2, character=c2))


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def doc(session: Session, name: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=session.uri(name))


async def definition(session: Session, name: str, line: int, col: int):
    return await session.client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(session, name), position=pos(line, col)))


@on_shared_server
async def test_definition_from_superseded_by_lands_on_the_target_name_line(nav):
    assert await definition(nav, "old.md", 6, 16) == [types.LocationLink(
        target_uri=nav.uri("new.md"),
        target_range=rng(1, 0, 1, 9),
        target_selection_range=rng(1, 6, 1, 9),
        origin_selection_range=rng(6, 15, 6, 18),
    )]


@on_shared_server
async def test_definition_from_a_supersedes_item_lands_on_the_predecessor(nav):
    result = await definition(nav, "new.md", 6, 5)
    assert [(r.target_uri, r.target_selection_range, r.origin_selection_range) for r in result] == [
        (nav.uri("old.md"), rng(1, 6, 1, 9), rng(6, 4, 6, 7))]


@on_shared_server
@pytest.mark.parametrize("col", [5, 14], ids=["title", "target"])
async def test_definition_from_an_index_line_lands_on_the_entry(nav, col):
    result = await definition(nav, "MEMORY.md", 3, col)
    assert [(r.target_uri, r.target_selection_range) for r in result] == [(nav.uri("new.md"), rng(1, 6, 1, 9))]


@on_shared_server
async def test_definition_of_a_dangling_name_is_empty(nav):
    assert await definition(nav, "lost.md", 6, 16) is None


async def references(session: Session, name: str, line: int, col: int, declaration: bool):
    return await session.client.text_document_references_async(types.ReferenceParams(
        text_document=doc(session, name), position=pos(line, col),
        context=types.ReferenceContext(include_declaration=declaration)))


@on_shared_server
async def test_references_list_declaration_links_and_index_line(nav):
    found = await references(nav, "new.md", 1, 7, True)
    assert sorted((r.uri, r.range.start.line, r.range.start.character, r.range.end.character) for r in found) == sorted([
        (nav.uri("new.md"), 1, 6, 9),       # its own name
        (nav.uri("old.md"), 6, 15, 18),     # superseded_by: new
        (nav.uri("MEMORY.md"), 3, 12, 18),  # the index pointer's target
    ])


@on_shared_server
async def test_references_without_declaration_leave_out_the_name_line(nav):
    found = await references(nav, "old.md", 1, 7, False)
    assert [(r.uri, r.range) for r in found] == [(nav.uri("new.md"), rng(6, 4, 6, 7))]


async def hover(session: Session, name: str, line: int, col: int):
    return await session.client.text_document_hover_async(
        types.HoverParams(text_document=doc(session, name), position=pos(line, col)))


@on_shared_server
async def test_hover_on_a_link_shows_the_target_and_its_chain(nav):
    result = await hover(nav, "old.md", 6, 16)
    assert result.range == rng(6, 15, 6, 18)
    assert result.contents.kind == types.MarkupKind.Markdown
    assert "the new way" in result.contents.value
    assert "old → **new**" in result.contents.value


@on_shared_server
async def test_hover_on_a_key_explains_the_field(nav):
    result = await hover(nav, "old.md", 5, 2)
    assert result.range == rng(5, 0, 5, 6)
    assert "`living`" in result.contents.value and "`historical`" in result.contents.value


@on_shared_server
async def test_hover_outside_any_link_or_key_is_empty(nav):
    assert await hover(nav, "old.md", 9, 2) is None  # the "# Notes" heading


async def symbols(session: Session, name: str):
    return await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(session, name)))


@on_shared_server
async def test_document_symbols_give_the_entry_and_its_keys(nav):
    entry_symbol = (await symbols(nav, "old.md"))[0]
    assert (entry_symbol.name, entry_symbol.kind, entry_symbol.selection_range) == (
        "old", types.SymbolKind.Object, rng(1, 6, 1, 9))
    assert [c.name for c in entry_symbol.children] == [
        "name", "description", "metadata", "status", "superseded_by"]


@on_shared_server
async def test_body_headings_are_symbols_unless_the_client_outlines_markdown_itself(nav):
    """VS Code's own Markdown server lists headings (its profile declares ``markdownOutline``);
    a second copy would double its outline."""
    result = await symbols(nav, "old.md")
    if nav.profile == "visual-studio-code":
        assert [s.name for s in result] == ["old"]
    else:
        notes = result[1]
        assert (notes.name, notes.kind, [c.name for c in notes.children]) == (
            "Notes", types.SymbolKind.String, ["Detail"])


@on_shared_server
async def test_index_symbols_are_its_pointer_lines(nav):
    result = await symbols(nav, "MEMORY.md")
    pointers = result if nav.profile == "visual-studio-code" else result[0].children
    assert [(p.name, p.selection_range) for p in pointers] == [("New way", rng(3, 3, 3, 10))]
    if nav.profile != "visual-studio-code":
        assert result[0].name == "Project"


async def workspace_symbols(session: Session, query: str):
    return await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))


@on_shared_server
async def test_workspace_symbols_match_descriptions_and_name_the_name_line(nav):
    result = await workspace_symbols(nav, "new way")
    assert [(s.name, s.location.uri, s.location.range) for s in result] == [
        ("new", nav.uri("new.md"), rng(1, 6, 1, 9))]


@on_shared_server
async def test_workspace_symbols_list_living_entries_first(nav):
    assert [s.name for s in await workspace_symbols(nav, "")] == ["new", "lost", "old"]


@on_shared_server
async def test_workspace_symbols_tag_superseded_entries_where_supported(nav):
    caps = nav.client.capabilities.workspace.symbol
    supported = bool(caps and caps.tag_support)
    assert [(s.name, s.tags) for s in await workspace_symbols(nav, "old")] == [
        ("old", (types.SymbolTag.Deprecated,) if supported else None)]


# -- capability variants, on the conversion functions ---------------------------------------


def test_definition_is_a_plain_location_without_link_support(tmp_path: Path):
    state = unit_state(tmp_path, FILES)
    root = tmp_path / "memory"
    state.client = ClientFeatures(location_links=False)
    result = definition_result(state, root / "old.md", pos(6, 16))
    assert result == types.Location(uri=path_to_uri(root / "new.md"), range=rng(1, 6, 1, 9))


def test_hover_is_plain_text_for_a_client_without_markdown(tmp_path: Path):
    state = unit_state(tmp_path, FILES)
    state.client = ClientFeatures(hover_markdown=False)
    result = hover_result(state, tmp_path / "memory" / "old.md", pos(6, 16))
    assert result.contents.kind == types.MarkupKind.PlainText
    assert "**" not in result.contents.value and "old → new" in result.contents.value


def received(wire, kind):
    """The answer as the client reads it: the wire form structured as the protocol's ``kind``."""
    return get_converter().structure(json.loads(json.dumps(wire)), kind)


def test_flat_symbols_name_their_container(tmp_path: Path):
    state = unit_state(tmp_path, FILES)
    state.client = ClientFeatures(hierarchical_symbols=False)
    result = received(document_symbols_result(state, tmp_path / "memory" / "old.md"),
                      list[types.SymbolInformation])
    by_name = {s.name: s for s in result}
    assert by_name["status"].container_name == "old"
    assert by_name["Detail"].container_name == "Notes"
    assert by_name["status"].location.range == rng(5, 0, 5, 18)


@pytest.mark.parametrize("hierarchical", [True, False])
@pytest.mark.parametrize("name", ["old.md", "MEMORY.md"])
def test_symbols_and_links_built_as_wire_values_are_exactly_what_the_protocol_writes(tmp_path: Path, name, hierarchical):
    # Outlines and links are answered as plain values (a 10k index has ten
    # thousand of each): a key misspelt or a value of the wrong shape would be
    # dropped or refused by the client, so each answer must be the protocol's
    # own writing of the objects it stands for.
    from memls.lsp.features.lenses import document_links

    state = unit_state(tmp_path, FILES)
    state.client = ClientFeatures(hierarchical_symbols=hierarchical, document_link_tooltip=True)
    path = tmp_path / "memory" / name
    kind = types.DocumentSymbol if hierarchical else types.SymbolInformation
    symbols = document_symbols_result(state, path)
    assert symbols
    assert get_converter().unstructure(received(symbols, list[kind])) == symbols
    links = document_links(state, path)
    assert bool(links) == (name == "MEMORY.md")
    assert get_converter().unstructure(received(links, list[types.DocumentLink])) == links


def test_the_outline_follows_the_declared_markdown_outline_not_the_client_name(tmp_path: Path):
    state = unit_state(tmp_path, FILES)
    old = tmp_path / "memory" / "old.md"
    state.client = ClientFeatures(hierarchical_symbols=True)
    assert [s["name"] for s in document_symbols_result(state, old)] == ["old", "Notes"]
    state.client = ClientFeatures(hierarchical_symbols=True, markdown_outline=True)
    assert [s["name"] for s in document_symbols_result(state, old)] == ["old"]
