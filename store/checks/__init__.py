"""Run the check catalogue over a workspace, all of it or only affected paths.

Each family of checks is a module with ``check(ctx, doc)`` yielding problems
for one document, and ``fixes(ctx, problem)`` returning the fixes for one of
its problems. Fixes are built on demand (a code action, ``--fix``), never
while checking, so a keystroke never pays for "did you mean" searches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import field, replace
from datetime import date
from pathlib import Path
from typing import Any

from ..cache import paused_gc
from ..catalogue import audit_code_of as audit_code_of  # re-exported
from ..catalogue import spec as spec  # re-exported
from ..diagnostics import Fix, Problem, Related, SeverityOrOff, TextEdit
from ..edit_check import structure_problem
from ..edits import apply_edits
from ..index import INDEX_FILENAME
from ..model import Document, Workspace
from ..settings import Settings
from ..spans import Span
from ..structs import struct
from . import autosave, frontmatter, index, layering, names, supersession

FAMILIES = (frontmatter, names, supersession, index, layering, autosave)


@struct(frozen=False)
class CheckContext:
    """What every check may look at: the workspace, the settings, today's date."""

    workspace: Workspace
    settings: Settings = field(default_factory=Settings)
    today: date = field(default_factory=date.today)
    # How many documents were checked since this context was made (tests pin incrementality).
    checked: int = 0
    # Entries whose MEMORY.md line an editor's autosave kept, and why (see checks.autosave).
    held_index_lines: Mapping[Path, str] = field(default_factory=dict)
    # Settings of the roots that follow other settings than ``settings`` (by root
    # directory): an editor's workspace folders each have their own.
    root_settings: Mapping[Path, Settings] = field(default_factory=dict)

    def severity(self, code: str, doc: Document) -> SeverityOrOff:
        """The severity ``code`` has in ``doc``'s root ("off": not reported)."""
        settings = self.root_settings.get(doc.root.path, self.settings) if self.root_settings else self.settings
        return settings.severity_of(code)

    def problem(
        self,
        code: str,
        doc: Document,
        span: Span,
        message: str,
        *,
        related: Iterable[Related] = (),
        tags: tuple[str, ...] = (),
        data: dict[str, Any] | None = None,
    ) -> Problem | None:
        """A problem at the configured severity, or None when the code is off."""
        severity = self.severity(code, doc)
        if severity == "off":
            return None
        return Problem(
            path=doc.path, span=span, code=code, severity=severity, message=message,
            related=tuple(related), tags=tags, data=data or {},
        )


def check_document(ctx: CheckContext, doc: Document) -> list[Problem]:
    """Every problem of one document, sorted by position."""
    ctx.checked += 1
    found: list[Problem] = []
    for family in FAMILIES:
        for problem in family.check(ctx, doc):
            if problem is not None:
                found.append(problem)
    found.sort(key=Problem.sort_key)
    return found


def check_text_alone(ctx: CheckContext, path: Path, text: str) -> list[Problem] | None:
    """The problems of ``text`` as the document at ``path`` that no other document can change.

    The frontmatter family reads a document alone (its YAML, its fields, its
    name against its file name); every other family compares it with other
    documents or with the index. While a root is still being loaded (a
    language server's first scan), those others are not all known, and this
    is what can be said for certain. None when ``path`` is not a memory
    document of a root in the model.
    """
    doc = ctx.workspace.detached(path, text)
    if doc is None:
        return None
    ctx.checked += 1
    found = [problem for problem in frontmatter.check(ctx, doc) if problem is not None]
    found.sort(key=Problem.sort_key)
    return found


def check_paths(ctx: CheckContext, paths: Iterable[Path]) -> dict[Path, list[Problem]]:
    """Problems of each path; a path with no document (deleted) maps to []."""
    results: dict[Path, list[Problem]] = {}
    for path in paths:
        doc = ctx.workspace.document(path)
        if doc is None:
            results[path] = index.check_absent(ctx, path)
        else:
            results[path] = check_document(ctx, doc)
    return results


def check_workspace(ctx: CheckContext) -> dict[Path, list[Problem]]:
    """Problems of every document of every root (and of absent indexes)."""
    results: dict[Path, list[Problem]] = {}
    # Tens of thousands of short-lived acyclic objects: the collector's passes
    # over them are pure cost (store.cache.paused_gc says more).
    with paused_gc():
        for state in ctx.workspace.roots:
            for path, doc in state.documents.items():
                results[path] = check_document(ctx, doc)
            if state.index_path not in state.documents:
                results[state.index_path] = index.check_absent(ctx, state.index_path)
    return results


def fixes_for(ctx: CheckContext, problem: Problem) -> list[Fix]:
    """The fixes the catalogue offers for one problem (computed on demand).

    Every title names every file its fix changes besides the problem's own:
    a quick fix that quietly edits another entry or ``MEMORY.md`` is a
    change behind the user's back. Titles that already name them stay.
    """
    family = _FAMILY_BY_CODE.get(problem.code)
    if family is None:
        return []
    return [_naming_every_file(fix, problem.path) for fix in family.fixes(ctx, problem) if _reads_back(ctx, fix)]


def _reads_back(ctx: CheckContext, fix: Fix) -> bool:
    """Whether every entry the fix edits that loaded still loads, with no key written twice.

    A fix is computed from spans; an anchor or an alias the span did not
    see can make it break the file (``&s`` replaced while ``*s`` still
    names it). Such a fix is not offered at all. (Which comments a fix may
    take with it is each fix's own rule: removing a key takes the comment
    on its line.)
    """
    by_path: dict[Path, list[TextEdit]] = {}
    for op in fix.operations:
        if isinstance(op, TextEdit) and op.path.suffix == ".md" and op.path.name != INDEX_FILENAME:
            by_path.setdefault(op.path, []).append(op)
    for path, edits in by_path.items():
        doc = ctx.workspace.document(path)
        if doc is None:
            continue
        try:
            if structure_problem(doc.text, apply_edits(doc.text, edits)) is not None:
                return False
        except ValueError:
            return False
    return True


def _naming_every_file(fix: Fix, own: Path) -> Fix:
    unnamed = sorted({p.name for p in fix.paths
                      if p != own and not re.search(rf"(?<![\w.-]){re.escape(p.name)}", fix.title)})
    if not unnamed:
        return fix
    return replace(fix, title=f"{fix.title} (also edits {', '.join(unnamed)})")


_FAMILY_BY_CODE = {
    code: family for family in FAMILIES for code in family.CODES
}
