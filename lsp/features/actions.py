"""Quick fixes and fix-all: the catalogue's fixes as code actions.

What is wrong and how to fix it is the engine's (``memls.store.checks.fixes_for``,
``memls.store.fix_merge.combinable_safe_fixes``); this module finds the problems a
request is about, turns each fix into a ``CodeAction`` and its operations
into a workspace edit.

Which problems a request is about: the diagnostics the client sends in the
request context (matched to the engine's problems by code and span -- the
span travels in the diagnostic's ``data``; by code and range for a client
that drops ``data``), and every problem of the document whose range overlaps
the requested range.

A fix several problems share (every index problem offers the same
"Regenerate MEMORY.md") is one action, listing each diagnostic it resolves:
a menu never shows the same title twice.

Capabilities decide two things:

* A fix that creates or renames a file is sent as an edit only to a client
  that declares ``documentChanges`` and the create/rename resource
  operations (the VS Code profile). Neovim's profile has no
  ``documentChanges`` and Emacs' no resource operations: sent there, the
  edit would fail or apply only half (an entry renamed in its text but not
  its file). Such a client gets the action with the command
  ``memls.applyFix`` instead, and the server carries the fix out on disk
  (:mod:`memls.lsp.features.disk_fixes`); a client that cannot even apply
  edits (no ``workspace/applyEdit``) is not offered it.
* A client that can resolve a code action's ``edit`` (VS Code, Neovim) gets
  actions without edits, and the edit is computed by ``codeAction/resolve``
  when one is chosen; others (Emacs) get the edits at once. Resolving
  recomputes the fix against the model as it is then, so a fix chosen after
  more typing still applies to the current text (with the current versions).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from memls.store.checks import check_paths, fixes_for
from memls.store.diagnostics import Fix, Problem
from memls.store.spans import Span

from ..errors import RequestFailed
from .client_edits import catch_up, edit_of, planned_on_current_files
from .commands import _command
from .disk_fixes import (
    APPLY_FIX,
    REVEAL,
    carry_out,
    client_applies,
    created_entry,
    fix_command,
    reveal_command,
    server_carries_out,
    show,
)

if TYPE_CHECKING:
    from ..server import MemlsServer

FIX_ALL_KIND = "source.fixAll.memls"
KINDS = (types.CodeActionKind.QuickFix, FIX_ALL_KIND)


def wants(kind: str, only: Sequence[str] | None) -> bool:
    """Whether ``kind`` is asked for (``only`` names kinds or their parents)."""
    if not only:
        return True
    return any(k == "" or kind == k or kind.startswith(k + ".") for k in only)


def _span_key(span: Span) -> tuple[int, int, int, int]:
    return (span.start_line, span.start_col, span.end_line, span.end_col)


def _problem_id(problem: Problem) -> dict[str, Any]:
    return {"code": problem.code, "span": list(_span_key(problem.span))}


def _overlaps(a: types.Range, b: types.Range) -> bool:
    a0, a1 = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b0, b1 = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a0 <= b1 and b0 <= a1


def _matches(diag: types.Diagnostic, problem: Problem, rng: types.Range) -> bool:
    if str(diag.code) != problem.code:
        return False
    data = diag.data if isinstance(diag.data, dict) else None
    if data is not None and isinstance(data.get("span"), list):
        return tuple(data["span"]) == _span_key(problem.span)
    return diag.range == rng


class ActionBuilder:
    """Computes the code actions of one request (engine thread)."""

    def __init__(self, ls: MemlsServer, path: Path, lazy: bool):
        self.ls = ls
        self.state = ls.state
        self.path = path
        self.lazy = lazy

    def problems(self) -> list[Problem]:
        return check_paths(self.state.context(), [self.path]).get(self.path, [])

    def actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        problems = self.problems()
        only = params.context.only
        out: list[types.CodeAction] = []
        if wants(types.CodeActionKind.QuickFix, only):
            out.extend(self._quick_fixes(problems, params))
        if wants(FIX_ALL_KIND, only):
            fix_all = self._fix_all(problems, params.text_document.uri)
            if fix_all is not None:
                out.append(fix_all)
        return out

    def _quick_fixes(self, problems: list[Problem], params: types.CodeActionParams) -> list[types.CodeAction]:
        positions = self.state.positions(self.path)
        ctx = self.state.context()
        chosen: list[tuple[Problem, types.Diagnostic]] = []
        for problem in problems:
            rng = positions.range(problem.span)
            matching = [d for d in params.context.diagnostics if _matches(d, problem, rng)]
            # Problems may share a code and a span (the index lines several
            # missing entries belong after): the message tells them apart.
            sent = next((d for d in matching if d.message == problem.message), matching[0] if matching else None)
            if sent is None and not _overlaps(rng, params.range):
                continue
            chosen.append((problem, sent or self.ls.diagnostics.to_lsp([problem], self.path)[0]))
        # One action per distinct fix: several problems may share one (every
        # index problem offers the same "Regenerate MEMORY.md"); the action then
        # lists each diagnostic it resolves.
        offered: dict[Fix, types.CodeAction] = {}
        for problem, diag in chosen:
            for index, fix in enumerate(fixes_for(ctx, problem)):
                by_server = server_carries_out(self.state, fix)
                if not (by_server or client_applies(self.state, fix)):
                    continue
                if fix in offered:
                    same = offered[fix]
                    if diag not in (same.diagnostics or []):
                        same.diagnostics = [*(same.diagnostics or []), diag]
                    continue
                action = offered[fix] = types.CodeAction(
                    title=fix.title, kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag], is_preferred=fix.safe or None,
                )
                data = {"uri": params.text_document.uri, "kind": "quickfix",
                        "problem": _problem_id(problem), "index": index, "title": fix.title}
                if by_server:
                    action.command = fix_command(fix.title, data)
                    continue
                if self.lazy:
                    action.data = data
                else:
                    action.edit = edit_of(self.state, fix.operations)
                if self.state.client.show_document and (shown := created_entry(self.state, fix)) is not None:
                    action.command = reveal_command(shown)
        return list(offered.values())

    def _fix_all(self, problems: list[Problem], uri: str) -> types.CodeAction | None:
        fixes = self._fix_all_fixes(problems)
        if not fixes:
            return None
        action = types.CodeAction(title="Fix all safe memls problems", kind=FIX_ALL_KIND)
        if self.lazy:
            action.data = {"uri": uri, "kind": FIX_ALL_KIND}
        else:
            action.edit = edit_of(self.state, [op for fix in fixes for op in fix.operations])
        return action

    def _fix_all_fixes(self, problems: list[Problem]) -> list[Fix]:
        # Loads with the first "fix all", not with the server.
        from memls.store.fix_merge import combinable_safe_fixes

        ctx = self.state.context()
        chosen = combinable_safe_fixes(ctx, problems)
        return [fix for _, fix in chosen if client_applies(self.state, fix)]

    def resolve(self, action: types.CodeAction, data: dict[str, Any]) -> types.CodeAction:
        if data.get("kind") == FIX_ALL_KIND:
            fixes = self._fix_all_fixes(self.problems())
            if not fixes:
                raise RequestFailed("nothing left to fix in this document")
            action.edit = edit_of(self.state, [op for fix in fixes for op in fix.operations])
            return action
        fix = self.chosen_fix(data)
        if not client_applies(self.state, fix):
            raise RequestFailed("the problem this fix was for has changed; ask for fixes again")
        action.edit = edit_of(self.state, fix.operations)
        return action

    def fix_on_current_files(self, data: dict[str, Any]) -> Fix:
        """:meth:`chosen_fix`, computed from the files it touches as they are on disk (see client_edits)."""
        fix = self.chosen_fix(data)
        catch_up(self.state, fix.paths)
        return fix

    def chosen_fix(self, data: dict[str, Any]) -> Fix:
        """The fix an action's ``data`` names, computed again against the model as it is now."""
        wanted = data.get("problem") or {}
        fix = None
        # Several problems may share an id (code and span); the title picks the fix.
        for problem in (p for p in self.problems() if _problem_id(p) == wanted):
            candidates = fixes_for(self.state.context(), problem)
            index = data.get("index")
            if isinstance(index, int) and 0 <= index < len(candidates) and candidates[index].title == data.get("title"):
                fix = candidates[index]
            else:
                fix = next((f for f in candidates if f.title == data.get("title")), None)
            if fix is not None:
                break
        if fix is None:
            raise RequestFailed("the problem this fix was for has changed; ask for fixes again")
        return fix


def register(server: MemlsServer) -> None:
    options = types.CodeActionOptions(code_action_kinds=list(KINDS), resolve_provider=True)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
    async def code_action(ls: MemlsServer, params: types.CodeActionParams):
        path = ls.memory_path(params.text_document.uri)
        if path is None:
            return None
        builder = ActionBuilder(ls, path, ls.state.client.resolve_code_action_edits)
        return await planned_on_current_files(ls, builder.actions, params) or None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: MemlsServer, action: types.CodeAction):
        data = action.data if isinstance(action.data, dict) else None
        if data is None or action.edit is not None:
            return action
        path = ls.memory_path(str(data.get("uri", "")))
        if path is None:
            return action
        builder = ActionBuilder(ls, path, lazy=False)
        return await planned_on_current_files(ls, builder.resolve, action, data)

    @_command(server, APPLY_FIX)
    async def apply_fix(ls: MemlsServer, *args):
        """Carry out a quick fix on disk: the command of a file-moving fix (see disk_fixes)."""
        data = args[0] if args and isinstance(args[0], dict) else None
        path = ls.memory_path(str(data.get("uri", ""))) if data is not None else None
        if data is None or path is None:
            raise RequestFailed("missing argument: the fix to apply")
        fix = await planned_on_current_files(ls, ActionBuilder(ls, path, lazy=False).fix_on_current_files, data)
        await carry_out(ls, fix)
        return {"title": fix.title}

    @_command(server, REVEAL)
    async def reveal(ls: MemlsServer, *args):
        """Show a file a fix created, with a selection (``[line, col, line, col]``, client units)."""
        uri = args[0] if args and isinstance(args[0], str) else None
        if uri is None or ls.memory_path(uri) is None:
            raise RequestFailed("missing argument: the memory to show")
        where = args[1] if len(args) > 1 else None
        selection = None
        if isinstance(where, list) and len(where) == 4 and all(isinstance(n, int) and n >= 0 for n in where):
            selection = types.Range(start=types.Position(line=where[0], character=where[1]),
                                    end=types.Position(line=where[2], character=where[3]))
        await show(ls, types.ShowDocumentParams(uri=uri, take_focus=True, selection=selection))
        return None
