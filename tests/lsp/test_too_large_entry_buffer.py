"""An entry over 1 MiB open in the editor: judged as ``memls check`` judges its file, and its index line stays.

Only its frontmatter is read, for its ``MEMORY.md`` line (README,
``file-too-large``). Opening it must not change what any file shows, and a
save of it -- generated index or curated -- must keep (or update) its line,
never drop it.
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import barrier, entry
from .test_deleted_open_file import memls
from .test_saved_unloadable_entry import assert_server_agrees_with_check, cli_verdict

BIG = entry("big", "big one", body=("z" * 2000 + "\n") * 600)  # 1.2 MB
FILES = ("big.md", "small.md", "MEMORY.md")


@pytest.mark.parametrize("curated", [False, True], ids=["generated", "curated"])
async def test_opening_and_saving_an_entry_too_large_to_read_keeps_its_index_line(start, curated):
    session = await start({"big.md": BIG, "small.md": entry("small", "s")})
    memls(session, "index", "--write")
    index = session.root / "MEMORY.md"
    if curated:
        index.write_text(index.read_text(encoding="utf-8") + "\nHAND NOTE\n", encoding="utf-8")
    assert "[big](big.md) — big one" in index.read_text(encoding="utf-8")
    assert {code for *_, code, _ in cli_verdict(session, FILES)["big.md"]} == {"file-too-large"}

    session.open("big.md")
    await barrier(session)
    await assert_server_agrees_with_check(session, FILES)

    edited = BIG.replace("big one", "big two")
    (session.root / "big.md").write_text(edited, encoding="utf-8")
    session.change("big.md", edited, 2)
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("big.md")), text=edited))
    await barrier(session, "zz-probe2.md")

    text = index.read_text(encoding="utf-8")
    assert "[big](big.md) — big two" in text
    assert ("HAND NOTE" in text) == curated
    await assert_server_agrees_with_check(session, FILES)
