"""Bursts of ``didChange``: the model always ends on the last text the editor sent.

The loop thread stores each change's text for the engine thread, which takes
it (memls.lsp.server._apply_change). An interleaving of the two threads that
loses a text happens once in many thousand keystrokes at the interpreter's
own pace, so the server here is started with pygls's ``TextDocument.source``
handing the interpreter to other threads before it answers: the one point
in the handler where the engine thread can run between looking at the
waiting texts and storing the new one. Everything else is the real server.
"""

from __future__ import annotations

import sys

import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import SERVER_ENV, act_as_editor, barrier, entry, initialize_in, write_root
from .test_index_on_save import save
from .test_rename import wait_for_message

YIELDING_SOURCE = """
import time
from pygls.workspace.text_document import TextDocument
read = TextDocument.source.fget
def source(self):
    time.sleep(0)  # let another thread run here
    return read(self)
TextDocument.source = property(source)
from memls.lsp.server import main
main()
"""
BURSTS = 10
CHANGES_PER_BURST = 50


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-c", YIELDING_SOURCE],
    server_env=SERVER_ENV,
))
async def yielding_client(lsp_client: LanguageClient):
    act_as_editor(lsp_client)
    yield
    await lsp_client.shutdown_session()


def typed(i: int) -> str:
    """The entry after keystroke ``i``: its diagnostics name ``gone-i``; a few keys make each parse take a while."""
    filler = "".join(f"note{k}: {k}\n" for k in range(20))
    return entry("a", extra=f"supersedes:\n  - gone-{i}\n{filler}")


async def test_after_each_burst_of_changes_the_diagnostics_are_for_the_last_text(yielding_client, tmp_path):
    write_root(tmp_path, {"a.md": typed(0)})
    session = await initialize_in(yielding_client, tmp_path, client_capabilities("neovim"))
    session.open("a.md", typed(0))
    last = 0
    for burst in range(BURSTS):
        for _ in range(CHANGES_PER_BURST):
            last += 1
            session.change("a.md", typed(last), last + 1)
        # Diagnostics are delivered in order: once the probe's arrive, the burst's have.
        await barrier(session, f"zz-probe-{burst}.md")
        shown = [d.message for d in yielding_client.diagnostics.get(session.uri("a.md"), [])]
        assert any(f"'gone-{last}'" in m for m in shown), (burst, shown)


async def test_a_change_sent_after_a_save_reaches_the_model_after_the_save(busy_client, tmp_path):
    """Changes, a save, and a change after it reach a busy engine together: the model ends on the last.

    Taken before the save, the later change was undone by it: the model went
    back to the saved text, and the diagnostics described a text the editor
    no longer held until the next keystroke.
    """
    write_root(tmp_path, {"a.md": typed(0), "busy.md": entry("busy")})
    session = await initialize_in(busy_client, tmp_path, client_capabilities("neovim"))
    session.open("a.md", typed(0))
    session.open("busy.md")
    await barrier(session)
    session.change("busy.md", entry("busy", "changed"), 2)  # the engine is busy for a while
    session.change("a.md", typed(1), 2)
    save(session, "a.md", typed(1))
    session.change("a.md", typed(2), 3)
    await barrier(session, "zz-probe-after.md")
    shown = [d.message for d in busy_client.diagnostics.get(session.uri("a.md"), [])]
    assert any("'gone-2'" in m for m in shown), shown


async def test_a_change_that_fails_to_be_taken_in_is_told_and_the_server_goes_on(busy_client, tmp_path):
    """The job taking a change in is no pygls handler: its failure must still reach the user and the log."""
    write_root(tmp_path, {"fails.md": entry("fails"), "a.md": typed(0)})
    session = await initialize_in(busy_client, tmp_path, client_capabilities("neovim"))
    session.open("fails.md")
    session.open("a.md", typed(0))
    await barrier(session)
    session.change("fails.md", entry("fails", "fail now"), 2)
    session.change("a.md", typed(1), 2)
    told = await wait_for_message(session, "injected failure taking a change")
    assert told.startswith("Error in server")
    await barrier(session)
    shown = [d.message for d in busy_client.diagnostics.get(session.uri("a.md"), [])]
    assert any("'gone-1'" in m for m in shown), shown
