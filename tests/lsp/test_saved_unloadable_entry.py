"""An entry saved or closed with YAML that does not load: the server says what ``memls check`` says.

While a buffer's frontmatter does not load, its link neighbours are checked
against the last text of it that loaded (no flicker while typing). Once the
broken text is the file (saved) or the buffer is gone (closed), the disk is
the truth: every file's diagnostics must equal ``memls check``'s verdict on
the same disk, computed by the real CLI in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable

from lsprotocol import types

from .conftest import Session, entry

A = entry("a", extra="status: superseded\nsuperseded_by: b\n")
B = entry("b", extra="supersedes: [a]\n")
# The user points a's successor at a itself (b's back-link no longer matches) ...
RETARGETED = A.replace("superseded_by: b", "superseded_by: a")
# ... then breaks the YAML on the status line.
BROKEN = RETARGETED.replace("status: superseded", "stat] superseded")
FILES = ("a.md", "b.md", "MEMORY.md")
SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
# The server's report of its own action (an index line it left alone on save): no CLI counterpart.
SERVER_ONLY = {"index-line-kept"}

Verdict = frozenset[tuple[int, int, int, int, str, str, str]]


def cli_verdict(session: Session, files: Iterable[str] = FILES) -> dict[str, Verdict]:
    """``memls check --format json`` run in the session's folder (the server's environment), per file of its root."""
    env = {**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": ""}
    done = subprocess.run([sys.executable, "-m", "memls", "check", "--format", "json"],
                          cwd=session.folder, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    out: dict[str, set] = {name: set() for name in files}
    for item in json.loads(done.stdout):
        folder, _, name = item["path"].rpartition("/")
        if folder != "memory":  # another root of the environment (the user's)
            continue
        out.setdefault(name, set()).add((item["line"] - 1, item["column"] - 1, item["end_line"] - 1,
                                         item["end_column"] - 1, item["severity"], item["code"], item["message"]))
    return {name: frozenset(found) for name, found in out.items()}


def served(diagnostics: list[types.Diagnostic]) -> Verdict:
    return frozenset(
        (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
         SEVERITIES[d.severity or 1], str(d.code), d.message)
        for d in diagnostics if d.code not in SERVER_ONLY)


async def assert_server_agrees_with_check(session: Session, files: Iterable[str] = FILES) -> None:
    """Every file of ``files`` (the root's, and only those) shows what ``memls check`` says of it."""
    expected = cli_verdict(session, files)
    assert set(expected) == set(files), expected
    for name in files:
        await session.diagnostics(name, lambda d, want=expected[name]: served(d) == want)


async def type_broken_yaml_after_retargeting(session: Session) -> None:
    """Open a.md, retarget its successor (b.md turns asymmetric), break its YAML (b.md stays so)."""
    session.open("a.md")
    session.change("a.md", RETARGETED, 2)
    await session.diagnostics("b.md", lambda d: "'a' is superseded_by 'a'" in str([x.message for x in d]))
    session.change("a.md", BROKEN, 3)
    await session.diagnostics("a.md", lambda d: "invalid-yaml" in session.codes(d))
    # Unsaved: the neighbour is still told the last text that loaded.
    diags = await session.diagnostics("b.md")
    assert "asymmetric-supersession" in session.codes(diags), diags


async def test_saving_yaml_that_does_not_load_makes_every_file_show_what_memls_check_shows(start):
    session = await start({"a.md": A, "b.md": B})
    await type_broken_yaml_after_retargeting(session)
    (session.root / "a.md").write_text(BROKEN, encoding="utf-8")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=BROKEN))
    await assert_server_agrees_with_check(session)
    assert "asymmetric-supersession" not in {code for *_, code, _ in cli_verdict(session)["b.md"]}


async def test_closing_a_buffer_whose_file_does_not_load_makes_every_file_show_what_memls_check_shows(start):
    session = await start({"a.md": A, "b.md": B})
    await type_broken_yaml_after_retargeting(session)
    # Another tool wrote the broken text; the editor's buffer is closed unsaved.
    (session.root / "a.md").write_text(BROKEN, encoding="utf-8")
    session.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("a.md"))))
    await assert_server_agrees_with_check(session)


async def test_an_editor_reloading_a_file_that_does_not_load_makes_every_file_show_what_memls_check_shows(start):
    session = await start({"a.md": A, "b.md": B})
    session.open("a.md")
    session.change("a.md", RETARGETED, 2)
    (session.root / "a.md").write_text(RETARGETED, encoding="utf-8")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=session.uri("a.md")), text=RETARGETED))
    await session.diagnostics("b.md", lambda d: "asymmetric-supersession" in session.codes(d))
    # Another tool breaks the file; the editor reloads its unmodified buffer (a whole-text change).
    (session.root / "a.md").write_text(BROKEN, encoding="utf-8")
    session.change("a.md", BROKEN, 3)
    await assert_server_agrees_with_check(session)
