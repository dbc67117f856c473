"""The first scan of a big root: progress, requests answered meanwhile, cross-file results after."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from .conftest import barrier, entry, initialize_in, record_publishes, scan_done, unit_state, vscode_with_pull

ENTRIES = 5000
INVALID_YAML = "---\nname: opened\ndescription: [unclosed\n---\n"


def write_big_root(folder: Path) -> None:
    """5,000 valid entries in superseding pairs, and one asymmetric link to find after the scan."""
    root = folder / "memory"
    root.mkdir(parents=True)
    for i in range(0, ENTRIES - 2, 2):
        (root / f"e{i}.md").write_text(
            entry(f"e{i}", f"entry {i}", extra=f"status: superseded\nsuperseded_by: e{i + 1}\n"), encoding="utf-8")
        (root / f"e{i + 1}.md").write_text(
            entry(f"e{i + 1}", f"entry {i + 1}", extra=f"supersedes:\n  - e{i}\n"), encoding="utf-8")
    (root / "broken-old.md").write_text(
        entry("broken-old", extra="status: superseded\nsuperseded_by: broken-new\n"), encoding="utf-8")
    (root / "broken-new.md").write_text(entry("broken-new"), encoding="utf-8")
    (root / "opened.md").write_text(INVALID_YAML, encoding="utf-8")


async def test_scan_reports_progress_and_a_document_opened_meanwhile_gets_its_diagnostics(client, tmp_path):
    folder = tmp_path / "workspace"
    write_big_root(folder)
    session = await initialize_in(client, folder, client_capabilities(client.memls_profile))
    session.open("opened.md")
    await session.diagnostics("opened.md", lambda d: "invalid-yaml" in session.codes(d), timeout=60)
    await session.diagnostics("broken-old.md", lambda d: "asymmetric-supersession" in session.codes(d),
                              timeout=60)
    await scan_done(session)  # the end follows the problems it found: it may still be on its way
    [reports] = [r for token, r in client.progress_reports.items() if "scan" in str(token)]
    kinds = [type(r) for r in reports]
    assert kinds[0] is types.WorkDoneProgressBegin and kinds[-1] is types.WorkDoneProgressEnd
    assert types.WorkDoneProgressReport in kinds
    files = len(list((folder / "memory").glob("*.md")))
    assert reports[-2].message == f"{files}/{files}"


async def test_request_during_the_scan_is_answered(pull_client, tmp_path):
    folder = tmp_path / "workspace"
    write_big_root(folder)
    session = await initialize_in(pull_client, folder, vscode_with_pull())
    uri = session.open("opened.md")
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert "invalid-yaml" in {d.code for d in report.items}
    await session.diagnostics("broken-old.md", lambda d: "asymmetric-supersession" in session.codes(d),
                              timeout=60)


def test_end_of_scan_writes_the_parse_cache_on_a_thread_of_its_own_in_the_engines_pauses(tmp_path, monkeypatch):
    import os
    import threading
    import time

    from memls.lsp.engine import Engine
    from memls.lsp.server import _end_scan, _write_caches
    from memls.store.cache import ParseCache, cache_file

    # Files written an hour before they are looked at: settled, so remembered.
    monkeypatch.setattr("memls.store.model.now_ns", lambda: time.time_ns() + 3600 * 10**9)
    state = unit_state(tmp_path, {f"n{i}.md": entry(f"n{i}") for i in range(3)})
    root = tmp_path / "memory"
    state.scanning = True
    engine = Engine()
    release = threading.Event()
    engine.submit(release.wait, 10)  # the engine answers the editor meanwhile
    writers: list[threading.Thread] = []
    real_start = threading.Thread.start
    monkeypatch.setattr(threading.Thread, "start",
                        lambda self: (writers.append(self), real_start(self))[-1])
    _write_caches(_end_scan(state), engine.wait_until_quiet)
    assert not state.scanning
    assert [w.name for w in writers] == ["memls-cache-writer"]
    assert not writers[0].daemon  # an exit waits for the file instead of tearing it
    time.sleep(0.3)
    assert not cache_file(root, "documents").exists()  # it waits for the engine's pause
    release.set()
    writers[0].join(10)
    engine.shutdown()
    assert set(ParseCache.open(root, "documents").entries) == {"n0.md", "n1.md", "n2.md"}
    assert os.stat(cache_file(root, "documents")).st_mode & 0o777 == 0o600
    assert all(s.parse_cache is None for s in state.workspace.roots)


def scan_ended(client) -> bool:
    return any(reports and isinstance(reports[-1], types.WorkDoneProgressEnd)
               for reports in client.progress_reports.values())


async def test_requests_sent_right_after_initialize_get_the_answers_of_the_whole_model(client, tmp_path):
    """While the first scan runs, requests wait for the whole model rather than answer from part of it.

    ``aa-first`` is loaded in the scan's first batch, the entry it names
    (``zz-last``) in its last: answered from half a model, the definition
    would be empty, the hover would know nothing of the successor, and the
    symbol search would miss it.
    """
    folder = tmp_path / "workspace"
    write_big_root(folder)
    root = folder / "memory"
    (root / "aa-first.md").write_text(
        entry("aa-first", extra="status: superseded\nsuperseded_by: zz-last\n"), encoding="utf-8")
    (root / "zz-last.md").write_text(entry("zz-last", extra="supersedes:\n  - aa-first\n"), encoding="utf-8")
    session = await initialize_in(client, folder, client_capabilities(client.memls_profile))
    link = (root / "aa-first.md").read_text(encoding="utf-8").split("\n").index("superseded_by: zz-last")
    uri = session.open("aa-first.md")
    here = types.TextDocumentIdentifier(uri=uri)

    async def answers():
        return await asyncio.gather(
            client.text_document_definition_async(types.DefinitionParams(
                text_document=here, position=types.Position(line=link, character=17))),
            client.text_document_hover_async(types.HoverParams(
                text_document=here, position=types.Position(line=link, character=17))),
            client.workspace_symbol_async(types.WorkspaceSymbolParams(query="zz-last")))

    during = asyncio.ensure_future(answers())
    await asyncio.sleep(0)
    assert not scan_ended(client)  # the requests went out while the scan ran
    early = await during
    await scan_done(session)
    late = await answers()
    assert early == late
    definition, _hover, symbols = late
    assert [d.target_uri for d in definition] == [session.uri("zz-last.md")]
    assert [s.location.uri for s in symbols if s.name == "zz-last"] == [session.uri("zz-last.md")]


async def test_a_document_opened_during_the_scan_is_told_its_own_problems_at_once_and_nothing_from_half_a_model(
        client, tmp_path):
    """Its own problems while the scan runs; the links it makes are judged only against the whole root.

    ``aa-opened`` supersedes ``zz-late`` (loaded in the scan's last batch),
    which points back: checked against half a model the link would be
    reported dangling.
    """
    folder = tmp_path / "workspace"
    write_big_root(folder)
    root = folder / "memory"
    (root / "zz-late.md").write_text(
        entry("zz-late", extra="status: superseded\nsuperseded_by: aa-opened\n"), encoding="utf-8")
    text = entry("aa-opened", extra="supersedes:\n  - zz-late\nconfidence: 7\n")
    (root / "aa-opened.md").write_text(text, encoding="utf-8")
    log = record_publishes(client)
    session = await initialize_in(client, folder, client_capabilities(client.memls_profile))
    uri = session.open("aa-opened.md")
    own = await session.diagnostics("aa-opened.md", lambda d: "invalid-field" in session.codes(d), timeout=60)
    told_while_scanning = not scan_ended(client)
    await scan_done(session)
    await barrier(session)
    assert told_while_scanning
    assert session.codes(own) == {"invalid-field"}
    published = [session.codes(d) for u, d in log.history if u == uri]
    assert published and all("dangling-supersedes" not in codes for codes in published)
    assert "invalid-field" in session.codes(log[uri])


@pytest.mark.timeout(60)  # a FIFO opened for reading blocks the scan until a writer comes
async def test_a_fifo_in_place_of_memory_md_ends_the_scan_and_is_reported_never_opened(client, tmp_path):
    folder = tmp_path / "workspace"
    root = folder / "memory"
    root.mkdir(parents=True)
    for i in range(1, 26):
        (root / f"e{i:02d}.md").write_text(entry(f"e{i:02d}", f"desc {i:02d}"), encoding="utf-8")
    os.mkfifo(root / "MEMORY.md")
    session = await initialize_in(client, folder, client_capabilities(client.memls_profile))
    await scan_done(session)
    found = await session.diagnostics("MEMORY.md", lambda d: "invalid-entry" in session.codes(d))
    assert session.codes(found) == {"invalid-entry"}  # not index-missing: the name is taken
    assert "not a regular file" in found[0].message
    uri = session.open("e01.md")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=7)))
    assert hover is not None
    assert stat.S_ISFIFO(os.lstat(root / "MEMORY.md").st_mode)
