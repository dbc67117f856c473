"""The language server under hostile clients: random incremental edits keep it
answering and its diagnostics equal to `memls check`, and nothing a client
sends makes it write outside the memory roots."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lsprotocol import types

from memls.lsp.convert import path_to_uri

from .fuzz_strategies import FRAGMENTS, VALID
from .reliability_helpers import check_problems, entry_text, scaled, snapshot
from .server_session import position, published, serve, until

# Python's splitlines() also breaks lines on these; an LSP client only on \n, \r\n, \r.
LINE_BREAKS = set("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
PIECES = [f for f in FRAGMENTS if not set(f) & LINE_BREAKS and "\ud800" not in f] + [
    "😀", "ü", "名前", "a", " ", "\n", "\n\n", "---\n", "name: ", "description: \"", "🧪🧪"]


def random_edit(rng: random.Random, text: str) -> tuple[int, int, str]:
    start = rng.randint(0, len(text))
    end = min(len(text), start + rng.choice([0, 0, 1, 2, 5, 20]))
    insert = "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 2, 4])))
    return start, end, insert


def make_workspace(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "workspace"
    root = folder / "memory"
    root.mkdir(parents=True)
    (root / "beta.md").write_text(entry_text("beta", "second", extra="supersedes:\n  - alpha\n"), encoding="utf-8")
    (root / "gamma.md").write_text(entry_text("gamma", "third"), encoding="utf-8")
    return folder, root


@pytest.mark.timeout(scaled(300, 3600))
async def test_random_incremental_edits_keep_the_server_answering_and_in_step_with_memls_check(tmp_path):
    folder, root = make_workspace(tmp_path)
    path = root / "alpha.md"
    path.write_text(VALID, encoding="utf-8")
    rng = random.Random(scaled(7, random.randrange(1 << 30)))
    rounds, edits_per_round = scaled(6, 60), scaled(40, 400)
    sent = 0
    async with serve(folder) as client:
        encoding = client.encoding
        uri = path_to_uri(path)
        text, version = VALID, 1
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)))
        for _ in range(rounds):
            for _ in range(edits_per_round):
                start, end, insert = random_edit(rng, text)
                change = types.TextDocumentContentChangePartial(
                    range=types.Range(position(text, start, encoding), position(text, end, encoding)),
                    text=insert)
                text = text[:start] + insert + text[end:]
                version += 1
                client.text_document_did_change(types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
                sent += 1
            # The next request is answered, whatever the edits did to the text.
            symbols = await client.text_document_document_symbol_async(
                types.DocumentSymbolParams(types.TextDocumentIdentifier(uri=uri)))
            assert symbols is None or isinstance(symbols, list)
            # The server's text is the client's: its diagnostics equal memls check of that text on disk.
            path.write_text(text, encoding="utf-8")
            expected = {p for p in check_problems(root) if p[0] == str(path.resolve())}
            mine = lambda: {p for p in published(client) if p[0] == str(path.resolve())}  # noqa: E731
            assert await until(lambda: mine() == expected), (  # noqa: B023 - awaited in this iteration
                f"after {sent} edits: server {sorted(mine())} != memls check {sorted(expected)}; text={text!r}")
    print(f"\nserver text sync: {sent} incremental edits in {rounds} rounds")


def outside_snapshot(tmp_path: Path, root: Path) -> dict:
    return {k: v for k, v in snapshot(tmp_path).items()
            if not (tmp_path / k).resolve().is_relative_to(root.resolve())}


async def test_nothing_a_client_sends_writes_outside_the_memory_roots(tmp_path):
    folder, root = make_workspace(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "victim.md").write_text(entry_text("victim", "outside"), encoding="utf-8")
    (other / "README.txt").write_text("a plain directory: no MEMORY.md, so not a root by its look\n")
    (folder / "notes.md").write_text(entry_text("notes", "in the workspace, not a root"), encoding="utf-8")
    before = outside_snapshot(tmp_path, root)
    hostile_commands = [
        ("memls.regenerateIndex", [str(other)]),
        ("memls.regenerateIndex", [path_to_uri(other / "victim.md")]),
        ("memls.regenerateIndex", [str(folder)]),
        ("memls.regenerateIndex", ["/"]),
        ("memls.newMemory", ["../../x", "escape", "project"]),
        ("memls.newMemory", ["../other/victim", "escape", "project"]),
        ("memls.newMemory", ["/tmp/abs", "escape", "project", "", path_to_uri(other / "victim.md")]),
        ("memls.newMemory", ["a\x00b", "nul", "project"]),
        ("memls.supersede", ["victim", "beta", path_to_uri(other / "victim.md")]),
        ("memls.supersede", ["../other/victim", "beta"]),
    ]
    async with serve(folder) as client:
        for command, arguments in hostile_commands:
            try:
                await client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command=command, arguments=arguments))
            except Exception:  # noqa: BLE001 - a refusal is an error response; either is fine here
                pass
        for target in (other / "victim.md", folder / "notes.md", other / "new.md"):
            uri = path_to_uri(target)
            text = entry_text(target.stem, "changed by the client")
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text="")))
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [types.TextDocumentContentChangeWholeDocument(text=text)]))
            client.text_document_did_save(types.DidSaveTextDocumentParams(
                types.TextDocumentIdentifier(uri=uri), text=text))
        # A request after all that is still answered, so every notification was handled.
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="memls.regenerateIndex", arguments=[str(root)]))
        assert answer is not None
    assert outside_snapshot(tmp_path, root) == before
    written = {p.relative_to(root) for p in root.rglob("*")}
    assert all(len(p.parts) == 1 for p in written), written


async def test_commands_never_adopt_a_root_outside_the_workspace_and_configured_roots(tmp_path):
    folder, root = make_workspace(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "victim.md").write_text(entry_text("victim", "outside"), encoding="utf-8")
    (other / "MEMORY.md").write_text("hand-written notes, outside every configured root\n", encoding="utf-8")
    before = snapshot(other)
    async with serve(folder) as client:
        for command, arguments in [
            ("memls.regenerateIndex", [path_to_uri(other / "victim.md")]),
            ("memls.newMemory", ["planted", "x", "project", "", path_to_uri(other / "victim.md")]),
        ]:
            try:
                await client.workspace_execute_command_async(
                    types.ExecuteCommandParams(command=command, arguments=arguments))
            except Exception:  # noqa: BLE001 - a refusal is the expected outcome
                pass
    assert snapshot(other) == before
