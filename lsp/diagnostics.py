"""Delivering diagnostics: push or pull, coalesced, only what changed.

The mode is chosen once, at ``initialize``. Pull (``textDocument/diagnostic``
and ``workspace/diagnostic``) only when the client declares both pull support
and ``workspace/diagnostic/refresh``: our checks are cross-file, so a pulled
result for one memory goes stale when another changes, and only a refresh
request makes the client ask again. Every other client gets push.

Changes are coalesced rather than delayed: the first change after a quiet
period is checked at once (a short settle lets a burst of edits arrive
together); changes that arrive while a check runs are gathered and checked
together when it ends, so the latest version always wins and at most one
check is ever queued. Push mode publishes only documents whose diagnostics
differ from what was last sent.

A root another memls server already serves (it holds the root's lease,
:mod:`memls.store.lease`) is listed by that server: this one reports only
the documents its client opened, so an editor with two clients on one
root does not show every problem twice.

A file that leaves the model (deleted, renamed away, its folder closed) must
leave the client's problem list too. In push mode its check comes out empty
and is published like any change. In pull mode the client keeps whatever a
workspace report leaves out (VS Code does), so every path last reported with
problems is reported once more, with an empty full report, after it is gone.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from lsprotocol import types

from memls.store.cache import paused_gc
from memls.store.checks import check_paths, check_text_alone
from memls.store.diagnostics import Problem

from .convert import PlainPositions, Positions, diagnostic, diagnostic_json
from .protocol import MemlsProtocol

if TYPE_CHECKING:
    from .server import MemlsServer

log = logging.getLogger(__name__)
_NOTHING: tuple = ()
_RESEND: tuple = (object(),)  # equals no fingerprint: the next result is sent whatever it is
# Long enough for a burst of keystrokes to arrive together, short enough to feel instant.
SETTLE_SECONDS = 0.005
# A check of more paths than this (the first scan's, a root's) checks the open documents first,
# so what the user looks at is not published after thousands of others.
BIG_CHECK = 64


# Texts at least this long keep their position conversion between checks (``_positions``).
KEPT_POSITIONS_MIN_CHARS = 64 * 1024
# A file with this many problems keeps their conversion between checks, however short (``to_lsp``):
# a MEMORY.md of a few hundred lines can list hundreds of retired or vanished entries, and it is
# re-checked at every keystroke in any entry.
KEPT_DIAGNOSTICS_MIN_PROBLEMS = 64


class DiagnosticsPublisher:
    def __init__(self, server: MemlsServer) -> None:
        self.server = server
        self.pull = False
        self._pending: set[Path] = set()
        self._running: asyncio.Task | None = None
        self._published: dict[Path, tuple] = {}
        # Push mode: the URI each path's diagnostics were last sent under (the
        # client's spelling of it may change when it opens or closes the file).
        self._sent_uris: dict[Path, str] = {}
        self._result_ids: dict[Path, str] = {}
        # Pull mode: paths the client was last given problems for (a gone one is cleared once).
        self._shown: set[Path] = set()
        # (errors, warnings) of every path as last checked: the Memories view's
        # badges and the status's totals (a gone path's last check counted none).
        self.problem_counts: dict[Path, tuple[int, int]] = {}
        # Per path: the text, encoding and position conversion of its last check (``_positions``).
        self._kept_positions: dict[Path, tuple[str, str, Positions]] = {}
        # Per path large or with many problems: its last conversion and what it was made from (``to_lsp``).
        self._kept_diagnostics: dict[Path, _KeptConversion] = {}
        # The fingerprint of each kept conversion (``_fingerprint``): the list, and what it gave.
        self._fingerprints: dict[Path, tuple[list[types.Diagnostic], tuple]] = {}
        # Paths a full check published while the first scan still ran (``publish_now``): no lone check overrides it.
        self._whole: set[Path] = set()
        # Once the first scan's results are out (``publish_checked``): the paths left to their own
        # check. A lone check of any other arriving after would stand over the results.
        self._replayed: set[Path] | None = None

    # -- scheduling (event loop) ---------------------------------------------------

    def schedule(self, paths: Iterable[Path]) -> None:
        self._pending.update(paths)
        if self._pending and (self._running is None or self._running.done()):
            self._running = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        await asyncio.sleep(SETTLE_SECONDS)
        while self._pending:
            paths, self._pending = self._pending, set()
            if len(paths) > BIG_CHECK:
                # The documents on screen first: the rest waits one round (and
                # takes in whatever changes meanwhile).
                shown = paths & self.open_paths()
                if shown:
                    self._pending |= paths - shown
                    paths = shown
            try:
                await self._check_and_deliver(paths)
            except Exception:  # noqa: BLE001 - a failed check must not stop later ones
                log.exception("checking %d documents failed", len(paths))

    def open_paths(self) -> set[Path]:
        """The documents open in the editor (pygls's view, kept on this loop)."""
        return {path for uri in list(self.server.workspace.text_documents)
                if (path := self.server.path_of(uri)) is not None}

    async def idle(self) -> None:
        """Wait until every scheduled check has been delivered (tests, shutdown)."""
        while self._running is not None and not self._running.done():
            await asyncio.shield(self._running)

    # -- checking (engine thread) ------------------------------------------------

    def _compute(self, paths: set[Path], *, freeze: bool = True) -> list[tuple[Path, int | None, list[types.Diagnostic]]]:
        # A check of many documents (the first scan's: every one) keeps what
        # it found until they change: problems, their LSP form, the index
        # view. Built with the collector running, those objects set off full
        # passes over each other (five at 50k entries, 0.4 s of CPU; one at
        # 10k), so the collector waits, and they join the model out of its
        # reach (memls.store.cache.paused_gc; the server owns its process).
        # ``freeze=False`` for a check repeated after every change (a pulled
        # workspace report): frozen objects are never collected, and cyclic
        # garbage other threads make meanwhile would pile up there.
        with paused_gc(freeze=freeze) if len(paths) > BIG_CHECK else nullcontext():
            return self._check(paths)

    def _check(self, paths: set[Path]) -> list[tuple[Path, int | None, list[types.Diagnostic]]]:
        state = self.server.state
        self.server.status.model_counts(state)
        ctx = state.context()
        # Another server lists these roots' problems; what this one showed of them is cleared.
        quiet = {path for path in paths if not state.publishes(path)}
        results = check_paths(ctx, sorted(paths - quiet, key=str))  # a stable order; str compares fast
        out: list[tuple[Path, int | None, list[types.Diagnostic]]] = [
            (path, state.version(path), []) for path in sorted(quiet, key=str)]
        for path, problems in results.items():
            # The model's own answer: asking the state would adopt a gone file's directory
            # again as a root by its look (a removed folder's memory/ still holds MEMORY.md).
            if not state.workspace.is_memory_document(path) and not problems:
                out.append((path, state.version(path), []))
                continue
            out.append((path, state.version(path), self.to_lsp(problems, path)))
        return out

    def to_lsp(self, problems: list[Problem], path: Path,
               text_of: Callable[[Path], str] | None = None) -> list[types.Diagnostic]:
        """Engine problems of one file as LSP diagnostics (engine thread).

        A file's last conversion is kept when the file is large or has many
        problems (``MEMORY.md``, a curated one lacking thousands of entries),
        and each problem still the same, pointing into texts still the same,
        keeps its diagnostic: every keystroke in an entry re-checks the
        index, and converting its problems again, each position counted in
        the client's units, cost more than the check (a second per keystroke
        for 8,500 missing entries).

        ``text_of``: how to get a path's current text (``state.text``; a
        caller that read it already hands it over rather than have it read again).
        """
        state = self.server.state
        related_paths = dict.fromkeys(r.location.path for p in problems for r in p.related)
        if text_of is None:
            text, related_texts = state.text(path), state.texts(related_paths, path)
        else:
            text, related_texts = text_of(path), {p: text_of(p) for p in related_paths}
        support = state.client.related_information
        client = (support, state.client.position_encoding)
        kept = self._kept_diagnostics.get(path)
        reusable: dict[tuple, list[tuple[Problem, types.Diagnostic]]] = {}
        if kept is not None and kept.client == client and (kept.text is text or kept.text == text):
            # The related files whose text moved since (an entry typed into): only problems pointing there change.
            moved = {p for p, t in related_texts.items() if (old := kept.related_texts.get(p)) is not t and old != t}
            if not moved and kept.problems == problems:
                return kept.diagnostics
            # A status flip changes a few of the index's problems: the others keep their conversion.
            for problem, converted in zip(kept.problems, kept.diagnostics):
                if not moved or not any(r.location.path in moved for r in problem.related):
                    reusable.setdefault((problem.code, problem.span, problem.message), []).append((problem, converted))
        positions = self._positions(path, text)
        related = {p: self._positions(p, t) for p, t in related_texts.items()}
        diagnostics = []
        for problem in problems:
            same = next((d for q, d in reusable.get((problem.code, problem.span, problem.message), ())
                         if q == problem), None)
            diagnostics.append(same if same is not None
                               else diagnostic(problem, positions, related, related_support=support,
                                                 uri_of=state.uris.uri))
        if len(text) >= KEPT_POSITIONS_MIN_CHARS or len(problems) >= KEPT_DIAGNOSTICS_MIN_PROBLEMS:
            self._kept_diagnostics[path] = _KeptConversion(client, text, related_texts, problems, diagnostics)
        else:
            self._kept_diagnostics.pop(path, None)
        return diagnostics

    def _fingerprint(self, path: Path, diags: list[types.Diagnostic]) -> tuple:
        """What tells ``diags`` apart from what was published; a kept conversion's is computed once.

        A file whose conversion ``to_lsp`` kept gets that very list back
        while nothing changed, and taking apart its thousands of problems
        at every keystroke cost more than checking them.
        """
        last = self._fingerprints.get(path)
        if last is not None and last[0] is diags:
            return last[1]
        key = _fingerprint(diags)
        if len(diags) >= KEPT_DIAGNOSTICS_MIN_PROBLEMS:
            self._fingerprints[path] = (diags, key)
        else:
            self._fingerprints.pop(path, None)
        return key

    def _positions(self, path: Path, text: str | None = None) -> Positions:
        """Position conversion for ``path``'s current text, kept while the text stays (engine thread).

        ``MEMORY.md`` is re-checked on every keystroke in any entry, and
        splitting a 10k-entry index into lines each time cost more than the
        checks; its text changes only when it is edited or written. Only
        large texts are kept (a split copy of every entry would cost tens of
        megabytes for nothing).
        """
        state = self.server.state
        text = state.text(path) if text is None else text
        encoding = state.client.position_encoding
        kept = self._kept_positions.get(path)
        if kept is not None and kept[1] == encoding and (kept[0] is text or kept[0] == text):
            return kept[2]
        positions = Positions(text, encoding)
        if len(text) >= KEPT_POSITIONS_MIN_CHARS:  # a small file splits in microseconds: not worth its memory
            self._kept_positions[path] = (text, encoding, positions)
        return positions

    async def _check_and_count(self, paths: set[Path]) -> list[tuple[Path, int | None, list[types.Diagnostic]]]:
        """Check ``paths`` and bring the status counts up to date (the caller sends them)."""
        computed = await self.server.engine.run(self._compute, paths)
        for path, _version, diags in computed:
            self._count(path, diags)
        return computed

    async def _check_and_deliver(self, paths: set[Path]) -> None:
        """Check ``paths``, deliver what changed, then send the status: its counts never run ahead of the problems."""
        computed = await self._check_and_count(paths)
        if self.pull:
            changed = False
            for path, _version, diags in computed:
                key = self._fingerprint(path, diags)
                if self._published.get(path, _NOTHING) != key:
                    self._published[path] = key
                    changed = True
            if changed:
                self.server.workspace_diagnostic_refresh(None)
        else:
            self._deliver(computed)
        self.server.status.send()

    def checked_whole(self, paths: set[Path]) -> None:
        """While the first scan runs: ``paths`` get a full check's problems (a replay's), never a lone check's."""
        self._whole |= paths

    async def publish_now(self, paths: set[Path]) -> None:
        """Push mode, while the engine is held (the first scan's end): check ``paths`` and publish them.

        A replayed start whose editor reopened buffers unlike their files
        (memls.lsp.server) checks them and the files connected to them before
        the scan ends, so the client then holds what a full check finds.
        """
        computed = await self.server.engine.run_now(self._compute, paths)
        for path, _version, diags in computed:
            self._count(path, diags)
        self._whole |= paths
        self._deliver(computed)

    async def publish_checked(self, results: Mapping[Path, list[Problem]], skip: set[Path],
                              plain: Mapping[Path, int] | None = None,
                              buffers: Mapping[Path, tuple[str, int | None]] | None = None) -> None:
        """Push mode: deliver what a check of every document found (the first scan's, or a replay of it).

        ``results`` names every path with problems (memls.store.warm_start);
        the others have none, which a client that was never told anything
        already shows. The paths in ``skip`` (open documents, whose buffers
        may differ from the files checked) are left to their own check.

        Every file's problems go out in wire form built directly
        (memls.lsp.convert.diagnostic_json): for a start's hundreds of files,
        building LSP objects for the protocol's converter to take apart again
        cost more than reading the replay. Each file's text is read once, and
        a file other problems point into (``MEMORY.md``, a link's other end)
        is split into lines once for all of them. A large file (an index)
        takes the usual path, which keeps its conversion for the keystrokes
        that re-check it (``to_lsp``).

        ``plain``: the paths whose problems' positions are the same in every
        unit, with their text's length (memls.store.check_cache.plain_length,
        a replay's): their problems are placed without reading the file.

        ``buffers``: open documents (text, version) whose texts, not their
        files', the results were checked with (memls.store.warm_start,
        ``WarmStart.with_texts``): placed in those texts and published with
        their versions, without problems too (a lone check of the buffer
        may have shown some), and never replaced by a lone check after.
        """
        state = self.server.state
        buffered = buffers or {}
        self._whole |= buffered.keys()
        # A document shown alone while the scan ran (publish_alone) and not left to its own check
        # now (closed, or its buffer is its file's again) holds what the results say, even nothing.
        shown_alone: dict[Path, list[Problem]] = {
            path: [] for path in self._published if path not in skip and path not in results}
        self._replayed = set(skip)
        if buffered or shown_alone:
            results = {**shown_alone, **results, **{path: results.get(path, []) for path in buffered}}

        def compute() -> list[tuple[Path, int | None, list[types.Diagnostic] | list[dict]]]:
            encoding, support, uri_of = state.client.position_encoding, state.client.related_information, state.uris.uri
            split: dict[Path, Positions] = {}
            read: dict[Path, str] = {}  # each file read once, whoever asks (a large file's to_lsp too)

            def text_of(path: Path) -> str:
                text = read.get(path)
                if text is None:
                    opened = buffered.get(path)
                    text = read[path] = state.text(path) if opened is None else opened[0]
                return text

            def positions_of(path: Path) -> Positions:
                positions = split.get(path)
                if positions is None:
                    positions = split[path] = Positions(text_of(path), encoding)
                return positions

            # Whether this server speaks for a path is its root's (its directory's): asked once a directory.
            speaks: dict[str, bool] = {}
            buffers = state.buffers
            known = plain or {}
            out: list[tuple[Path, int | None, list[types.Diagnostic] | list[dict]]] = []
            for path, problems in results.items():
                if path in skip:
                    continue
                if path not in buffers:  # (state.publishes)
                    directory = str(path).rpartition(os.sep)[0]
                    speaking = speaks.get(directory)
                    if speaking is None:
                        speaking = speaks[directory] = state.speaks_for(path)
                    if not speaking:
                        continue
                opened = buffered.get(path)
                version = state.version(path) if opened is None else opened[1]
                length = None if opened is not None else known.get(path)
                positions: Positions | PlainPositions = positions_of(path) if length is None else PlainPositions(length)
                if positions.length >= KEPT_POSITIONS_MIN_CHARS:
                    if isinstance(positions, Positions):  # split already: kept as to_lsp would keep it
                        self._kept_positions[path] = (text_of(path), encoding, positions)
                    out.append((path, version, self.to_lsp(problems, path, text_of)))
                    continue
                related = {r.location.path: positions_of(r.location.path)
                           for p in problems for r in p.related} if support else {}
                out.append((path, version, [
                    diagnostic_json(p, positions, related, related_support=support, uri_of=uri_of) for p in problems]))
            return out

        computed = await self.server.engine.run_now(compute)
        for path, _version, diags in computed:
            self._count(path, diags)  # (the caller sends the status once the scan has reported)
        self._deliver(computed)

    def _deliver(self, computed: Sequence[tuple[Path, int | None, list[types.Diagnostic] | list[dict]]]) -> None:
        """Push mode: publish each path whose diagnostics differ from what was last sent.

        A path's diagnostics are LSP objects, or their wire form
        (``publish_checked``), which is written to the client in one go.
        """
        uris = self.server.state.uris
        protocol = cast(MemlsProtocol, self.server.protocol)
        wire: list[dict[str, Any]] = []  # in wire form, still to send (in order, before any other)

        def send_wire() -> None:
            if wire:
                protocol.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, wire)
                wire.clear()

        for path, version, diags in computed:
            plain = bool(diags) and isinstance(diags[0], dict)
            key = _wire_fingerprint(diags) if plain else self._fingerprint(path, diags)  # type: ignore[arg-type]
            uri = uris.uri(path)
            sent_uri = self._sent_uris.get(path, uri)
            # A document never published has, to the client, no diagnostics:
            # after the first scan only the documents with problems are sent.
            if self._published.get(path, _NOTHING) == key and sent_uri == uri:
                continue
            self._published[path] = key
            self._sent_uris[path] = uri
            if plain:
                params: dict[str, Any] = {"uri": uri, "diagnostics": diags}
                if version is not None:
                    params["version"] = version
                if sent_uri != uri:  # what the other spelling shows goes
                    wire.append({"uri": sent_uri, "diagnostics": []})
                wire.append(params)
                continue
            send_wire()
            if sent_uri != uri:
                self.server.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=sent_uri, diagnostics=[]))
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version)  # type: ignore[arg-type]
            )
        send_wire()

    async def count_only(self, paths: set[Path]) -> None:
        """Check ``paths`` for the status counts alone, delivering nothing (pull mode)."""
        await self._check_and_count(paths)
        self.server.status.send()

    async def publish_alone(self, path: Path, text: str, version: int | None) -> None:
        """While the first scan runs: publish the problems ``text`` has whatever the other documents say.

        A document opened during the scan waits, like every other piece of
        work on the model, for the whole model (memls.lsp.engine); meanwhile
        its own problems (memls.store.checks.check_text_alone) are shown, and
        the scan's end brings the rest. Only while the scan still runs: after
        it, the full check of the document is the one to show.
        """
        if self.pull or not self.server.engine.held:
            return
        state = self.server.state

        def compute() -> list[types.Diagnostic] | None:
            problems = check_text_alone(state.context(), path, text)
            if problems is None or any(p.path != path for p in problems):
                return None  # (another spelling of the root's path: the full check publishes under the model's)
            positions = Positions(text, state.client.position_encoding)
            return [diagnostic(p, positions, {path: positions}, related_support=state.client.related_information,
                               uri_of=state.uris.uri)
                    for p in problems]

        diags = await self.server.engine.run_now(compute)
        if (diags is None or not diags or not self.server.engine.held or path in self._whole
                or (self._replayed is not None and path not in self._replayed)):
            return  # nothing to say yet (push mode sends no empty list first), or the full check's turn
        self._published[path] = _fingerprint(diags)
        self._count(path, diags)
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=state.uris.uri(path), diagnostics=diags, version=version))

    def left_model(self, paths: set[Path]) -> None:
        """Paths whose roots were unloaded: in pull mode, ask for the report that clears them.

        Their re-check (scheduled with the change) finds them empty too, but
        it sees no change when a report the client pulled in between already
        cleared them; the refresh is asked for here, whatever it concludes
        (a folder closes rarely, an extra pull is cheap).
        """
        if self.pull and paths:
            self.server.workspace_diagnostic_refresh(None)

    def forget(self, path: Path) -> None:
        """The client may have dropped what it showed for ``path``: the next check sends it again.

        Not "never published": a file that was shown with problems and is now
        leaving the model must still get its empty list, which only a record
        of having published something brings about.
        """
        self._published[path] = _RESEND

    # -- pull requests (event loop) ---------------------------------------------------

    async def document_report(self, path: Path, previous_result_id: str | None) -> Any:
        def compute() -> list[types.Diagnostic]:
            state = self.server.state
            if not state.is_memory_document(path):
                return []
            return self.to_lsp(check_paths(state.context(), [path])[path], path)

        diags = await self.server.engine.run(compute)
        self._count(path, diags)
        result_id = _result_id(diags)
        self._published[path] = _fingerprint(diags)
        self._note_shown(path, diags)
        if previous_result_id is not None and previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=diags, result_id=result_id)

    async def workspace_report(self, previous: dict[str, str]) -> types.WorkspaceDiagnosticReport:
        """Every document's report; ``unchanged`` only where the client's ``previousResultId`` is current.

        What the client holds is what its ``previousResultIds`` say, not what
        this server remembers sending: a path it names that has left the
        model gets an empty full report unless the client already holds the
        empty one (a document pull may have cleared it on the server's side
        only), and a client without ids (it restarted, it dropped them) gets
        full reports for everything.
        """
        held = {path for uri, value in previous.items()
                if value != _EMPTY_RESULT_ID and (path := self.server.path_of(uri)) is not None}
        shown = set(self._shown) | held

        def compute() -> list[tuple[Path, int | None, list[types.Diagnostic]]]:
            # Paths no longer in the model come out empty: that report clears them.
            return self._compute(self.server.state.all_paths() | shown, freeze=False)

        computed = await self.server.engine.run(compute)
        items: list = []
        uris = self.server.state.uris
        for path, version, diags in computed:
            uri = uris.uri(path)
            result_id = _result_id(diags)
            self._published[path] = _fingerprint(diags)
            self._note_shown(path, diags)
            self._count(path, diags)
            if previous.get(uri) == result_id:
                items.append(types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=version, result_id=result_id))
            else:
                items.append(types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, version=version, items=diags, result_id=result_id))
        return types.WorkspaceDiagnosticReport(items=items)

    def _count(self, path: Path, diags: list[types.Diagnostic] | list[dict]) -> None:
        severities = [d["severity"] if isinstance(d, dict) else d.severity for d in diags]
        counts = (severities.count(types.DiagnosticSeverity.Error), severities.count(types.DiagnosticSeverity.Warning))
        if self.problem_counts.get(path, (0, 0)) != counts:
            self.server.model_changes.problems_changed()
        self.problem_counts[path] = counts

    def _note_shown(self, path: Path, diags: list[types.Diagnostic]) -> None:
        if diags:
            self._shown.add(path)
        else:
            self._shown.discard(path)


class _KeptConversion(NamedTuple):
    """A file's problems as last converted, with what their positions were counted in (``to_lsp``)."""

    client: tuple  # related-information support, position encoding
    text: str
    related_texts: dict[Path, str]
    problems: list[Problem]
    diagnostics: list[types.Diagnostic]


def _fingerprint(diags: list[types.Diagnostic]) -> tuple:
    return tuple(
        (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
         d.code, d.message, d.severity, tuple(d.tags or ()),
         tuple((r.location.uri, r.location.range.start.line, r.location.range.start.character, r.message)
               for r in d.related_information or ()))
        for d in diags
    )


def _wire_fingerprint(diags: list[dict]) -> tuple:
    """:func:`_fingerprint` of the LSP objects ``diags`` (memls.lsp.convert.diagnostic_json) is the wire form of."""
    return tuple(
        (d["range"]["start"]["line"], d["range"]["start"]["character"],
         d["range"]["end"]["line"], d["range"]["end"]["character"],
         d["code"], d["message"], d["severity"], tuple(d.get("tags", ())),
         tuple((r["location"]["uri"], r["location"]["range"]["start"]["line"],
                r["location"]["range"]["start"]["character"], r["message"])
               for r in d.get("relatedInformation", ())))
        for d in diags
    )


def _result_id(diags: list[types.Diagnostic]) -> str:
    return hashlib.sha1(repr(_fingerprint(diags)).encode("utf-8")).hexdigest()[:16]


_EMPTY_RESULT_ID = _result_id([])
