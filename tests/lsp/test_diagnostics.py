"""Live diagnostics: appear and disappear as the text changes, in every client profile.

Push for every shipped profile (none declares pull + refresh); pull for a
VS Code-like client that declares both (``pull_client``).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

from lsprotocol import types
from pytest_lsp import client_capabilities

from .conftest import (
    barrier,
    entry,
    initialize_in,
    record_publishes,
    vscode_with_pull,
    wait_until_scanned,
    write_root,
)

# What pygls negotiates from each profile's ``general.positionEncodings``.
ENCODING = {"visual-studio-code": "utf-16-le", "neovim": "utf-8", "emacs": "utf-32-le"}
WIDTH = {"utf-16-le": 2, "utf-8": 1, "utf-32-le": 4}
# Clients that declare ``publishDiagnostics.relatedInformation``.
RELATED = {"visual-studio-code": True, "neovim": True, "emacs": False}


def units(text: str, profile: str) -> int:
    codec = ENCODING[profile]
    return len(text.encode(codec)) // WIDTH[codec]


def only(diags: list[types.Diagnostic], code: str) -> types.Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, diags
    return found[0]


async def test_dangling_link_is_reported_then_cleared_when_fixed(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: nwe\n"),
        "new.md": entry("new", extra="supersedes:\n  - old\n"),
    })
    session.open("old.md")
    diags = await session.diagnostics("old.md", lambda d: "dangling-superseded-by" in session.codes(d))
    problem = only(diags, "dangling-superseded-by")
    assert (problem.range.start.line, problem.range.start.character) == (6, 15)
    session.change("old.md", entry("old", extra="status: superseded\nsuperseded_by: new\n"), 2)
    await session.diagnostics("old.md", lambda d: "dangling-superseded-by" not in session.codes(d))


async def test_range_on_a_non_ascii_line_counts_in_the_negotiated_encoding(start):
    session = await start({"a.md": entry("a", extra="supersedes: [café😀, gone]\n")})
    session.open("a.md")
    diags = await session.diagnostics("a.md", lambda d: any("'gone'" in x.message for x in d))
    problem = next(d for d in diags if "'gone'" in d.message)
    prefix = "supersedes: [café😀, "
    assert problem.range == types.Range(
        start=types.Position(line=5, character=units(prefix, session.profile)),
        end=types.Position(line=5, character=units(prefix + "gone", session.profile)),
    )
    first = next(d for d in diags if "'café😀'" in d.message)
    assert first.range.end.character == units("supersedes: [café😀", session.profile)


async def test_diagnostic_is_pushed_with_code_link_and_source(start):
    session = await start({"a.md": entry("a", extra="supersedes:\n  - ghost\n")})
    uri = session.open("a.md")
    diags = await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d))
    problem = only(diags, "dangling-supersedes")
    assert problem.source == "memls"
    assert problem.severity == types.DiagnosticSeverity.Error
    assert problem.code_description is not None
    href = problem.code_description.href
    # The link opens the code's page shipped with memls: a file that exists.
    page = Path(url2pathname(urlparse(href).path))
    assert href.startswith("file://") and page.name == "dangling-supersedes.md"
    assert page.is_file() and page.read_text(encoding="utf-8").startswith("# `dangling-supersedes`")
    assert session.client.diagnostics.get(uri), "no client profile declares pull + refresh: push"


async def test_asymmetric_link_points_at_the_other_file_where_the_client_supports_it(start):
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
        "new.md": entry("new"),
    })
    session.open("old.md")
    diags = await session.diagnostics("old.md", lambda d: "asymmetric-supersession" in session.codes(d))
    problem = only(diags, "asymmetric-supersession")
    if not RELATED[session.profile]:
        assert problem.related_information is None
        return
    assert problem.related_information is not None
    [related] = problem.related_information
    assert related.location.uri == session.uri("new.md")
    assert related.location.range.start.line == 1


async def test_duplicate_name_points_at_the_visible_entry_where_the_client_supports_it(start):
    # Readers see the first file in sorted order: a-dup.md.
    session = await start({"a-dup.md": entry("dup"), "b-dup.md": entry("dup")})
    session.open("b-dup.md")
    diags = await session.diagnostics("b-dup.md", lambda d: "duplicate-name" in session.codes(d))
    problem = only(diags, "duplicate-name")
    if RELATED[session.profile]:
        assert [r.location.uri for r in problem.related_information or []] == [session.uri("a-dup.md")]
    else:
        assert problem.related_information is None


async def test_link_to_a_superseded_entry_is_tagged_deprecated(start):
    session = await start({
        "x.md": entry("x", extra="status: superseded\nsuperseded_by: y\n"),
        "y.md": entry("y", extra="status: superseded\nsupersedes: [x]\nsuperseded_by: z\n"),
        "z.md": entry("z", extra="supersedes: [y]\n"),
    })
    session.open("x.md")
    diags = await session.diagnostics("x.md", lambda d: "superseded-reference" in session.codes(d))
    problem = only(diags, "superseded-reference")
    assert list(problem.tags or []) == [types.DiagnosticTag.Deprecated]
    assert problem.severity == types.DiagnosticSeverity.Hint


async def test_editing_one_file_republishes_the_file_it_breaks_even_when_not_open(start):
    symmetric_new = entry("new", extra="supersedes:\n  - old\n")
    session = await start({
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
        "new.md": symmetric_new,
    })
    session.open("new.md")
    session.change("new.md", entry("new"), 2)
    await session.diagnostics("old.md", lambda d: "asymmetric-supersession" in session.codes(d))
    session.change("new.md", symmetric_new, 3)
    await session.diagnostics("old.md", lambda d: "asymmetric-supersession" not in session.codes(d))


async def test_latest_version_wins_after_a_burst_of_edits(start):
    session = await start({"a.md": entry("a")})
    publishes = record_publishes(session.client)
    uri = session.open("a.md")
    for version in range(2, 52):
        session.change("a.md", entry("a", extra=f"supersedes:\n  - gone-{version}\n"), version)
    await session.diagnostics("a.md", lambda d: any("'gone-51'" in x.message for x in d))
    await barrier(session)
    last = [diags for u, diags in publishes.history if u == uri][-1]
    assert [d.message for d in last if d.code == "dangling-supersedes"] == \
        [m.message for m in session.client.diagnostics[uri] if m.code == "dangling-supersedes"]
    assert len(last) == 1 and "'gone-51'" in last[0].message


async def test_a_burst_of_edits_never_publishes_an_older_text_after_a_newer_one(start):
    # The server takes only the latest queued text of a document: what it publishes
    # during a burst may skip versions, but never goes back to an older one.
    session = await start({"a.md": entry("a")})
    publishes = record_publishes(session.client)
    uri = session.open("a.md")
    for version in range(2, 102):
        session.change("a.md", entry("a", extra=f"supersedes:\n  - gone-{version}\n"), version)
    await session.diagnostics("a.md", lambda d: any("'gone-101'" in x.message for x in d))
    await barrier(session)
    named = [int(m.group(1)) for u, diags in publishes.history if u == uri for d in diags
             if d.code == "dangling-supersedes" and (m := re.search(r"'gone-(\d+)'", d.message))]
    assert named == sorted(named) and named[-1] == 101


async def test_markdown_outside_any_memory_root_gets_nothing(start, tmp_path):
    folder = tmp_path / "workspace"
    session = await start({"a.md": entry("a")})
    readme = folder / "README.md"
    readme.write_text("---\nname: [broken\n---\n# readme\n", encoding="utf-8")
    uri = f"{session.uri('a.md').rsplit('/memory/', 1)[0]}/README.md"
    session.client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1,
                                             text=readme.read_text(encoding="utf-8"))))
    await barrier(session)
    assert uri not in session.client.diagnostics


BAD_FILES = {
    "garbage.md": (bytes(range(256)) * 4, "invalid-entry"),
    "latin.md": ("---\nname: latin\ndescription: café\n---\n".encode("latin-1"), "invalid-entry"),
    "big.md": (("---\nname: big\ndescription: d\n---\n" + "x" * 2_000_000).encode(), "file-too-large"),
}


async def test_bad_input_gets_diagnostics_and_the_server_keeps_working(client, tmp_path):
    """Binary garbage, invalid UTF-8 and a 2 MB file on disk; an unsafe tag and a 2 MB buffer."""
    folder = tmp_path / "workspace"
    write_root(folder, {**{name: content for name, (content, _) in BAD_FILES.items()},
                        "tag.md": entry("tag"), "huge.md": entry("huge")})
    session = await initialize_in(client, folder, client_capabilities(client.memls_profile))
    for name, (_, code) in BAD_FILES.items():
        await session.diagnostics(name, lambda d, code=code: code in session.codes(d))
    session.open("tag.md", "---\nname: tag\ndescription: !!python/object:os.system d\n---\n")
    session.open("huge.md", "---\nname: huge\ndescription: d\n---\n" + "x" * 2_000_000)
    await session.diagnostics("tag.md", lambda d: "invalid-yaml" in session.codes(d))
    await session.diagnostics("huge.md", lambda d: "file-too-large" in session.codes(d))
    await barrier(session)


# -- pull: a client that declares textDocument/diagnostic and workspace refresh ------------


async def test_pull_client_gets_a_diagnostic_provider_and_no_pushes(pull_client, tmp_path):
    folder = tmp_path / "workspace"
    write_root(folder, {"a.md": entry("a", extra="supersedes:\n  - ghost\n")})
    session = await initialize_in(pull_client, folder, vscode_with_pull())
    provider = session.initialize_result.capabilities.diagnostic_provider
    assert provider is not None and provider.inter_file_dependencies and provider.workspace_diagnostics
    session.open("a.md")
    await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d))
    assert pull_client.diagnostics == {}


async def test_pull_client_is_asked_to_refresh_after_a_cross_file_change(pull_client, tmp_path):
    folder = tmp_path / "workspace"
    symmetric_new = entry("new", extra="supersedes:\n  - old\n")
    write_root(folder, {"old.md": entry("old", extra="status: superseded\nsuperseded_by: new\n"),
                        "new.md": symmetric_new})
    session = await initialize_in(pull_client, folder, vscode_with_pull())
    session.open("new.md")
    await session.diagnostics("new.md", lambda d: True)
    # The end of the first scan asks for a refresh too: counted before the change, not after.
    await wait_until_scanned(pull_client)
    for _ in range(200):
        if pull_client.diagnostic_refresh_count:
            break
        await _sleep()
    refreshes = pull_client.diagnostic_refresh_count
    assert refreshes, "the end of the first scan asked for no refresh"
    session.change("new.md", entry("new"), 2)
    # old.md is not pulled before the refresh: the refresh is what tells the client to pull it.
    for _ in range(200):
        if pull_client.diagnostic_refresh_count > refreshes:
            break
        await _sleep()
    assert pull_client.diagnostic_refresh_count > refreshes
    await session.diagnostics("old.md", lambda d: "asymmetric-supersession" in session.codes(d))
    assert pull_client.diagnostics == {}


async def test_workspace_pull_reports_a_problem_in_a_file_that_is_not_open(pull_client, tmp_path):
    folder = tmp_path / "workspace"
    write_root(folder, {"a.md": entry("a", extra="supersedes:\n  - ghost\n")})
    session = await initialize_in(pull_client, folder, vscode_with_pull())
    for _ in range(200):
        report = await pull_client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[]))
        items = {i.uri: i for i in report.items}
        found = items.get(session.uri("a.md"))
        if found is not None and any(d.code == "dangling-supersedes" for d in found.items):
            return
        await _sleep()
    raise AssertionError(f"workspace/diagnostic never reported a.md: {report}")


async def _sleep() -> None:
    await asyncio.sleep(0.05)


async def _workspace_pull(client, previous: dict[str, str]) -> dict[str, object]:
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[types.PreviousResultId(uri=u, value=v) for u, v in previous.items()]))
    return {item.uri: item for item in report.items}


async def test_workspace_pull_is_unchanged_only_for_the_clients_current_result_ids(pull_client, tmp_path):
    folder = tmp_path / "workspace"
    write_root(folder, {"a.md": entry("a", extra="supersedes:\n  - ghost\n"), "b.md": entry("b")})
    session = await initialize_in(pull_client, folder, vscode_with_pull())
    await wait_until_scanned(pull_client)
    session.open("a.md")
    await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d))
    first = await _workspace_pull(pull_client, {})
    ids = {uri: item.result_id for uri, item in first.items()}
    a = session.uri("a.md")
    assert isinstance(first[a], types.WorkspaceFullDocumentDiagnosticReport)
    # The client holds every current id: nothing is sent again.
    again = await _workspace_pull(pull_client, ids)
    assert all(isinstance(i, types.WorkspaceUnchangedDocumentDiagnosticReport) for i in again.values())
    # A client that lost its state (restarted, no ids) or holds an old id gets full reports,
    # although the server already sent them.
    lost = await _workspace_pull(pull_client, {})
    assert isinstance(lost[a], types.WorkspaceFullDocumentDiagnosticReport) and lost[a].items
    old = await _workspace_pull(pull_client, {**ids, a: "an-old-id"})
    assert isinstance(old[a], types.WorkspaceFullDocumentDiagnosticReport) and old[a].items
    assert isinstance(old[session.uri("b.md")], types.WorkspaceUnchangedDocumentDiagnosticReport)


async def test_workspace_pull_clears_a_gone_file_the_client_still_holds_problems_for(pull_client, tmp_path):
    folder = tmp_path / "workspace"
    write_root(folder, {"a.md": entry("a", extra="supersedes:\n  - ghost\n")})
    session = await initialize_in(pull_client, folder, vscode_with_pull())
    session.open("a.md")
    await session.diagnostics("a.md", lambda d: "dangling-supersedes" in session.codes(d))
    a = session.uri("a.md")
    held = {uri: item.result_id for uri, item in (await _workspace_pull(pull_client, {})).items()}
    assert (await _workspace_pull(pull_client, {}))[a].items
    # The file goes; a document pull (the editor still shows it) already learns it is clean,
    # but the client's workspace results still hold the old problems.
    pull_client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=a)))
    (session.root / "a.md").unlink()
    pull_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=a, type=types.FileChangeType.Deleted)]))
    await session.diagnostics("a.md", lambda d: d == [])
    report = await _workspace_pull(pull_client, held)
    assert a in report, "the workspace report left out a file the client holds problems for"
    assert isinstance(report[a], types.WorkspaceFullDocumentDiagnosticReport) and not report[a].items
    # Once the client holds the empty report, it is not sent again.
    cleared = {**held, a: report[a].result_id}
    again = await _workspace_pull(pull_client, cleared)
    assert a not in again or isinstance(again[a], types.WorkspaceUnchangedDocumentDiagnosticReport)


async def test_a_curated_index_listing_many_retired_entries_points_at_an_entry_moved_by_a_keystroke(start):
    """MEMORY.md's many problems keep their conversion between keystrokes (memls.lsp.diagnostics.to_lsp);
    the ones pointing into the entry typed into are converted again, so their related location follows it."""
    files = {f"e{i:03d}.md": entry(f"e{i:03d}", f"entry {i}", extra="status: historical\n") for i in range(80)}
    index = "# Mine\n\n" + "".join(f"- [e{i:03d}](e{i:03d}.md) \u2014 entry {i}\n" for i in range(80))
    session = await start(files, index=index)
    retired = await session.diagnostics("MEMORY.md", lambda d: sum(x.code == "index-lists-non-living" for x in d) == 80)
    related_line = {d.message: d.related_information[0].location.range.start.line
                    for d in retired if d.related_information}
    session.open("e005.md")
    session.change("e005.md", "---\n# noted\n" + files["e005.md"].removeprefix("---\n"), 2)

    status_line = next((line for message, line in related_line.items() if "e005" in message), None)

    def moved(diags: list[types.Diagnostic]) -> bool:
        return any(d.related_information and status_line is not None
                   and d.related_information[0].location.range.start.line == status_line + 1
                   for d in diags if "e005" in d.message)

    after = await session.diagnostics("MEMORY.md", moved) if RELATED[session.profile] else retired
    assert len(after) == len(retired)
    if RELATED[session.profile]:
        assert {d.message: d.related_information[0].location.range.start.line for d in after} \
            == {message: line + (message.count("e005") > 0) for message, line in related_line.items()}
