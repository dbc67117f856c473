"""Six writers on one root at once: three `memls` CLIs, two `gptme-util memory`
CLIs (the real gptme 0.35.1) and one `memls serve` driven like an editor.

Each writer logs what it reported as saved. Afterwards every name holds the
last content its writer reported (``shared-note``, written by all, holds one
of the writers' last contents), every file parses strictly, both audits pass,
and the index is consistent: a managed root's MEMORY.md is exactly the policy
view; a legacy root's has a line for every living entry and none for a
missing file (gptme's upserts keep it hand-shaped, so it is not compared
byte for byte).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from memls.lsp.convert import path_to_uri
from memls.store import MemoryRoot, MemoryStore
from memls.store.index import parse_index_lines
from memls.store.parse import parse_document

from ..lsp.conftest import apply_text_edits
from .reliability_helpers import GPTME_UTIL, entry_text, memls, root_env, scaled, write_policy
from .server_session import serve

WRITER = str(Path(__file__).with_name("concurrency_writer.py"))


def last_reported(log: Path) -> tuple[dict[str, str], set[str]]:
    """name -> last description this writer reported, and the names it renamed away."""
    last: dict[str, str] = {}
    gone: set[str] = set()
    if not log.exists():
        return last, gone
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if "renamed" in record:
            last[record["name"]] = last.pop(record["renamed"])
            gone.add(record["renamed"])
        elif "description" in record:
            last[record["name"]] = record["description"]
            gone.discard(record["name"])
    return last, gone


async def apply_quick_fix(client, uri: str, text: str, title_part: str) -> str | None:
    """Ask for the document's quick fixes, take the one named ``title_part``, apply it."""
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0),
                          end=types.Position(line=len(text.split("\n")), character=0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
    for action in actions or []:
        if not isinstance(action, types.CodeAction) or title_part not in action.title:
            continue
        if action.edit is None:  # clients that declare resolve support get the edit lazily
            action = await client.code_action_resolve_async(action)
        edits = list((action.edit.changes or {}).get(uri, []))
        for change in action.edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri:
                edits.extend(change.edits)
        return apply_text_edits(text, edits)
    return None


async def drive_server(folder: Path, root: Path, writers: list[subprocess.Popen], log: Path) -> int:
    """Edit-and-save, quick-fix-and-save, regenerate and create entries through a live server."""
    operations = 0
    async with serve(folder) as client:
        step = 0
        while any(w.poll() is None for w in writers) or step < 3:
            name = f"srv-{step % 3}"
            path = root / f"{name}.md"
            uri = path_to_uri(path)
            description = f"server edited {name} at step {step}"
            text = entry_text(name, description)
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)))
            path.write_text(text, encoding="utf-8")  # the editor writes its own buffer, then says so
            client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri), text))
            client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
            with log.open("a") as out:
                out.write(json.dumps({"name": name, "description": description}) + "\n")
            # A quick fix applied through the editor, then saved: an entry marked
            # superseded with no successor gets "Set status to historical".
            fixed_name = f"srv-fix-{step % 3}"
            fixed_path = root / f"{fixed_name}.md"
            fixed_description = f"server fixed {fixed_name} at step {step}"
            broken = entry_text(fixed_name, fixed_description, extra="status: superseded\n")
            fixed_uri = path_to_uri(fixed_path)
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=fixed_uri, language_id="markdown", version=1, text=broken)))
            fixed = await apply_quick_fix(client, fixed_uri, broken, "historical")
            assert fixed is not None and "status: historical" in fixed
            fixed_path.write_text(fixed, encoding="utf-8")
            client.text_document_did_save(
                types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(fixed_uri), fixed))
            client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(fixed_uri)))
            with log.open("a") as out:
                out.write(json.dumps({"name": fixed_name, "description": fixed_description}) + "\n")
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="memls.regenerateIndex", arguments=[str(root)]))
            new = f"srv-new-{step}"
            created = await client.workspace_execute_command_async(types.ExecuteCommandParams(
                command="memls.newMemory", arguments=[new, f"created by the server at {step}", "project"]))
            assert created["name"] == new
            with log.open("a") as out:
                out.write(json.dumps({"name": new, "description": f"created by the server at {step}"}) + "\n")
            operations += 4
            step += 1
            await asyncio.sleep(0.05)
        # A last request after everything: the server still answers.
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="memls.regenerateIndex", arguments=[str(root)]))
    return operations


@pytest.mark.timeout(scaled(600, 3600))
@pytest.mark.parametrize("managed", [False, True], ids=["legacy", "managed"])
async def test_six_concurrent_writers_lose_nothing_and_leave_a_consistent_root(managed, tmp_path):
    folder = tmp_path / "workspace"
    root = folder / "memory"
    root.mkdir(parents=True)
    (root / "pinned.md").write_text(entry_text("pinned", "selected from the start"), encoding="utf-8")
    if managed:
        write_policy(root, ["pinned.md"], budget=50_000)
    MemoryStore([MemoryRoot("explicit", root)]).write_index()
    iterations = scaled(5, 60)
    logs = tmp_path / "logs"
    logs.mkdir()
    env = root_env(root)
    writers = [subprocess.Popen([sys.executable, WRITER, kind, str(i), str(root), str(logs / f"{kind}{i}.log"),
                                 str(iterations)], env=env, stdin=subprocess.DEVNULL)
               for kind, count in (("memls", 3), ("gptme", 2)) for i in range(count)]
    server_ops = await drive_server(folder, root, writers, logs / "server.log")
    for w in writers:
        assert w.wait(timeout=300) == 0

    expected: dict[str, str] = {}
    shared: set[str] = set()
    gone: set[str] = set()
    reported = 0
    for log in sorted(logs.glob("*.log")):
        last, renamed_away = last_reported(log)
        reported += sum(1 for line in log.read_text().splitlines() if '"description"' in line)
        gone |= renamed_away
        if "shared-note" in last:
            shared.add(last.pop("shared-note"))
        expected.update(last)
    lost = []
    for name, description in expected.items():
        path = root / f"{name}.md"
        if not path.is_file():
            lost.append(name)
            continue
        doc = parse_document(path.read_text(encoding="utf-8"), path=path, scope="explicit")
        assert doc.strict_error is None, (name, doc.strict_error)
        if doc.entry.description != description:
            lost.append(name)
    for name in gone:
        assert not (root / f"{name}.md").exists(), f"{name} was renamed away but is still there"
    shared_now = parse_document((root / "shared-note.md").read_text(encoding="utf-8")).entry.description
    assert shared_now in shared
    assert lost == [], f"lost or stale: {lost}"
    for path in root.glob("*.md"):
        if path.name != "MEMORY.md":
            assert parse_document(path.read_text(encoding="utf-8"), path=path).strict_error is None, path.name
    audit = memls(root, "audit")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    gptme_audit = subprocess.run([GPTME_UTIL, "memory", "audit"], env=env, capture_output=True, text=True,
                                 timeout=120, stdin=subprocess.DEVNULL)
    assert gptme_audit.returncode == 0, gptme_audit.stdout + gptme_audit.stderr
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    if managed:
        check = memls(root, "index", "--check")
        assert check.returncode == 0, check.stdout
    else:
        targets = {link.target for link in parse_index_lines(index)}
        living = {e.filename for e in MemoryStore([MemoryRoot("explicit", root)]).entries() if e.is_living}
        assert living <= targets, f"living entries without a line: {living - targets}"
        assert all((root / t).is_file() for t in targets), f"lines for missing files: {targets}"
    refused = [line for f in logs.glob("*.errors") for line in f.read_text().splitlines()]
    print(f"\nconcurrency ({'managed' if managed else 'legacy'}): 6 writers, {reported} saves reported "
          f"+ {server_ops} server operations, {len(expected) + 1} names checked, 0 lost; "
          f"{len(refused)} writes refused with a clear error: {refused[:3]}")
