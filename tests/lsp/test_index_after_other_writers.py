"""``MEMORY.md`` on save when another tool wrote the files the editor has open.

An agent's ``gptme-util memory save`` rewrites an entry and ``MEMORY.md``
while the editor holds them; Neovim does not reload an unmodified buffer
until asked, VS Code does at once. The refresh on save must neither lose the
agent's line nor leave the entry's line behind.
"""

from __future__ import annotations

from lsprotocol import types

from .conftest import barrier, entry
from .test_index_on_save import CURATED, save

AGENT_LINE = "- [agentnote](agentnote.md) \u2014 written by the agent\n"


def agent_saves_a_memory(root) -> None:
    """What ``gptme-util memory save agentnote ...`` leaves on disk: the entry and its index line."""
    (root / "agentnote.md").write_text(entry("agentnote", "written by the agent"), encoding="utf-8")
    (root / "MEMORY.md").write_text(CURATED + AGENT_LINE, encoding="utf-8")


async def test_a_stale_unmodified_index_buffer_gets_no_edit_and_the_disk_keeps_the_agents_line(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    session.open("MEMORY.md")  # a hidden Neovim buffer: it will not be reloaded
    session.open("a.md")
    await barrier(session)
    agent_saves_a_memory(session.root)
    session.change("a.md", entry("a", "first, now revised"), 2)
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert AGENT_LINE in index and "- [a](a.md) \u2014 first, now revised\n" in index
    # An edit would make the stale buffer modified, and `:wall!` would then write it over the agent's line.
    assert session.client.applied_edits == []


async def test_an_index_buffer_with_unsaved_changes_over_a_rewritten_file_is_left_alone_and_the_user_told(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    session.open("MEMORY.md")
    session.change("MEMORY.md", CURATED + "\nmy unsaved note\n", 2)
    session.open("a.md")
    await barrier(session)
    agent_saves_a_memory(session.root)
    session.change("a.md", entry("a", "first, now revised"), 2)
    save(session, "a.md", entry("a", "first, now revised"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert AGENT_LINE in index and "- [a](a.md) \u2014 first, now revised\n" in index
    assert session.client.applied_edits == []  # no edit computed from a base the disk has left
    told = [m.message for m in session.client.messages if "changed on disk" in m.message]
    assert told and "unsaved changes" in told[0], session.client.messages


async def test_a_save_after_another_tool_changed_an_open_entry_updates_its_line(start):
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    session.open("a.md")
    await barrier(session)
    # The agent rewrites the entry and its line; the editor reloads the unmodified buffer.
    (session.root / "a.md").write_text(entry("a", "external"), encoding="utf-8")
    (session.root / "MEMORY.md").write_text(CURATED.replace("\u2014 first", "\u2014 external"), encoding="utf-8")
    session.change("a.md", entry("a", "external"), 2)
    await barrier(session, "zz-probe-reloaded.md")  # the user types later than the reload
    session.change("a.md", entry("a", "from the user"), 3)
    save(session, "a.md", entry("a", "from the user"))
    await barrier(session, "zz-probe-2.md")
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [a](a.md) \u2014 from the user\n" in index and "external" not in index


async def test_open_change_and_save_sent_back_to_back_update_the_line(start):
    """The editor writes the file before the server has read the open: the opened text still counts."""
    session = await start({"a.md": entry("a", "first")}, index=CURATED)
    revised = entry("a", "first, now revised")
    (session.root / "a.md").write_text(revised, encoding="utf-8")  # already on disk when didOpen is handled
    session.open("a.md", entry("a", "first"))
    session.change("a.md", revised, 2)
    session.client.text_document_will_save(types.WillSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")),
        reason=types.TextDocumentSaveReason.Manual))
    save(session, "a.md", revised)
    await barrier(session)
    index = (session.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [a](a.md) \u2014 first, now revised\n" in index
