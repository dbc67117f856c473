"""Completion of link names, status and type values and keys, in every client profile.

One server per profile serves the whole module; each test puts its own text
into the open ``draft.md`` (a new version each time) and completes in it.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types

from memls.lsp.client_features import ClientFeatures
from memls.lsp.features.completion import MAX_ITEMS, completion_result
from memls.store.entry import KNOWN_KEYS

from .conftest import Session, entry, open_session, unit_state

on_shared_server = pytest.mark.asyncio(loop_scope="module")

FILES = {
    "alpha.md": entry("alpha", description="first"),
    "beta.md": entry("beta", extra="status: superseded\nsuperseded_by: gamma\n"),
    "gamma.md": entry("gamma", extra="supersedes:\n  - beta\n"),
    "zeta-old.md": entry("zeta-old", extra="status: historical\n"),
}
HEAD = '---\nname: draft\ndescription: "d"\n'


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def draft(shared_client) -> Session:
    session = await open_session(shared_client, FILES)
    session.open("draft.md", HEAD + "---\n")
    session.versions = itertools.count(2)  # type: ignore[attr-defined]
    return session


async def complete(session: Session, text: str, line: int, col: int):
    session.change("draft.md", text, next(session.versions))  # type: ignore[attr-defined]
    return await session.client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("draft.md")),
        position=types.Position(line=line, character=col)))


def rng(line: int, c1: int, c2: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=c1), end=types.Position(line=line, character=c2))


@on_shared_server
async def test_link_names_complete_living_first_without_own_name(draft):
    result = await complete(draft, HEAD + "supersedes:\n  - \n---\n", 4, 4)
    assert [i.label for i in result.items] == ["alpha", "gamma", "beta", "zeta-old"]
    assert {i.kind for i in result.items} == {types.CompletionItemKind.Reference}
    assert all(i.text_edit == types.TextEdit(range=rng(4, 4, 4), new_text=i.label) for i in result.items)
    assert result.is_incomplete is False


@on_shared_server
async def test_superseded_names_carry_the_deprecated_tag(draft):
    result = await complete(draft, HEAD + "superseded_by: \n---\n", 3, 15)
    tagged = {i.label for i in result.items if tuple(i.tags or ()) == (types.CompletionItemTag.Deprecated,)}
    assert tagged == {"beta"}


@on_shared_server
async def test_a_partly_typed_name_is_replaced_whole(draft):
    result = await complete(draft, HEAD + "superseded_by: gam\n---\n", 3, 18)
    gamma = next(i for i in result.items if i.label == "gamma")
    assert gamma.text_edit == types.TextEdit(range=rng(3, 15, 18), new_text="gamma")


@on_shared_server
async def test_status_values_complete_after_a_bare_colon_with_a_space(draft):
    result = await complete(draft, HEAD + "status:\n---\n", 3, 7)
    assert [(i.label, i.text_edit.new_text) for i in result.items] == [
        ("living", " living"), ("superseded", " superseded"), ("historical", " historical")]
    assert all(i.text_edit.range == rng(3, 7, 7) for i in result.items)
    assert all(i.filter_text == i.text_edit.new_text for i in result.items)


@on_shared_server
async def test_type_values_are_enum_members_where_the_client_knows_that_kind(draft):
    result = await complete(draft, HEAD + "metadata:\n  type: \n---\n", 4, 8)
    assert [i.label for i in result.items] == ["user", "feedback", "project", "reference", "general"]
    assert result.items[2].text_edit == types.TextEdit(range=rng(4, 8, 8), new_text="project")
    kinds = draft.client.capabilities.text_document.completion.completion_item_kind
    expected = (types.CompletionItemKind.EnumMember if kinds and kinds.value_set
                else types.CompletionItemKind.Value)
    assert {i.kind for i in result.items} == {expected}


@on_shared_server
async def test_keys_complete_the_ones_not_yet_written(draft):
    result = await complete(draft, HEAD + "\n---\n", 3, 0)
    present = {"name", "description"}
    assert [i.label for i in result.items] == [k for k in KNOWN_KEYS if k not in present]
    assert {i.kind for i in result.items} == {types.CompletionItemKind.Property}
    title = next(i for i in result.items if i.label == "title")
    assert title.text_edit == types.TextEdit(range=rng(3, 0, 0), new_text="title: ")


@on_shared_server
async def test_the_body_offers_nothing(draft):
    assert await complete(draft, HEAD + "---\n\nsome text\n", 5, 4) is None


@on_shared_server
async def test_completion_triggers_on_space_colon_and_dash(draft):
    options = draft.server_capabilities.completion_provider  # type: ignore[attr-defined]
    assert set(options.trigger_characters) == {" ", ":", "-"}


# -- capability variants and the size cap, on the conversion function ------------------------


def _draft_state(tmp_path: Path, names: list[str]):
    files = {f"{n}.md": entry(n, extra="status: superseded\nsuperseded_by: x\n" if n == "old" else "")
             for n in names}
    files["draft.md"] = HEAD + "superseded_by: \n---\n"
    return unit_state(tmp_path, files)


def test_a_long_list_is_cut_and_marked_incomplete(tmp_path: Path):
    state = _draft_state(tmp_path, [f"entry-{i:03d}" for i in range(MAX_ITEMS + 5)])
    result = completion_result(state, tmp_path / "memory" / "draft.md", types.Position(line=3, character=15))
    assert (len(result.items), result.is_incomplete) == (MAX_ITEMS, True)


def test_a_cut_list_is_narrowed_by_what_is_typed_so_names_past_the_cut_are_reachable(tmp_path: Path):
    names = [f"e{i}" for i in range(MAX_ITEMS + 100)]
    files = {f"{n}.md": entry(n) for n in names}
    files["draft.md"] = HEAD + "superseded_by: e29\n---\n"
    state = unit_state(tmp_path, files)
    result = completion_result(state, tmp_path / "memory" / "draft.md", types.Position(line=3, character=18))
    labels = [item.label for item in result.items]
    assert {f"e29{d}" for d in range(10)} | {"e29"} <= set(labels)
    assert all("e29" in label for label in labels)


def test_without_tag_support_the_deprecated_property_is_set(tmp_path: Path):
    state = _draft_state(tmp_path, ["old", "x"])
    state.client = ClientFeatures(completion_deprecated_property=True)
    result = completion_result(state, tmp_path / "memory" / "draft.md", types.Position(line=3, character=15))
    old = next(i for i in result.items if i.label == "old")
    assert (old.deprecated, old.tags) == (True, None)


def test_documentation_is_a_plain_string_without_markdown_support(tmp_path: Path):
    state = _draft_state(tmp_path, ["x"])
    result = completion_result(state, tmp_path / "memory" / "draft.md", types.Position(line=3, character=15))
    assert isinstance(result.items[0].documentation, str)
    state.client = ClientFeatures(completion_markdown=True)
    rich = completion_result(state, tmp_path / "memory" / "draft.md", types.Position(line=3, character=15))
    assert rich.items[0].documentation.kind == types.MarkupKind.Markdown
