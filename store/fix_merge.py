"""Which safe fixes can be applied together, as one set of edits.

Used by ``memls check --fix`` (one pass of :func:`memls.store.fix_all.fix_all`)
and by the editor's fix-all (``source.fixAll.memls``, one workspace edit).
Every text edit of such a set refers to the text as it was before any of
them, so two fixes collide when applying them together could differ from
applying them in turn: overlapping spans, an insertion strictly inside
another edit, or any second fix on a file that one fix creates or renames.
Insertions at one point do not collide: they are kept in problem order, as
:func:`memls.store.edits.apply_edits` and the LSP specification both apply
same-position inserts in the order given. What is left out is found again
by the next pass or the next fix-all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .checks import CheckContext, fixes_for
from .diagnostics import Fix, Problem, TextEdit
from .edit_check import edit_problem
from .edits import apply_edits
from .index import INDEX_FILENAME
from .spans import Span


def safe_fixes(ctx: CheckContext, problems: Iterable[Problem]) -> list[tuple[Problem, Fix]]:
    """The first safe fix of each problem, in problem order."""
    out = []
    for problem in problems:
        for fix in fixes_for(ctx, problem):
            if fix.safe:
                out.append((problem, fix))
                break
    return out


def combinable_safe_fixes(ctx: CheckContext, problems: Iterable[Problem]) -> list[tuple[Problem, Fix]]:
    """The first safe fix of each problem, minus repeats and fixes that collide."""
    return choose_combinable(safe_fixes(ctx, problems), text_of(ctx))


def text_of(ctx: CheckContext) -> Callable[[Path], str | None]:
    """The text the workspace holds for a path (the one its fixes were computed against)."""
    def text(path: Path) -> str | None:
        doc = ctx.workspace.document(path)
        return None if doc is None else doc.text
    return text


def choose_combinable(
    candidates: Iterable[tuple[Problem, Fix]], texts: Callable[[Path], str | None] | None = None
) -> list[tuple[Problem, Fix]]:
    """Keep, in order, each fix that collides with none kept before it.

    With ``texts`` (the texts the fixes were computed against), an entry's
    edits are also applied together and read back: two fixes that each add
    the missing ``supersedes`` key would write it twice, so the second
    waits for the next pass, which plans it against the first one's result.

    ``MEMORY.md`` is rendered from the entries, so a fix of the index alone
    waits while any fix of an entry is pending: built in the same pass, it
    would copy what the entry fix is about to change (a two-line
    description, before it is folded, becomes a broken index line).
    """
    candidates = list(candidates)
    if not all(_index_only(fix) for _, fix in candidates):
        candidates = [(p, f) for p, f in candidates if not _index_only(f)]
    chosen: list[tuple[Problem, Fix]] = []
    claims = FixClaims(texts)
    for problem, fix in candidates:
        if any(fix == kept for _, kept in chosen):
            continue  # the same regeneration offered by several problems
        if claims.take(fix):
            chosen.append((problem, fix))
    return chosen


def _index_only(fix: Fix) -> bool:
    return all(path.name == INDEX_FILENAME for path in fix.paths)


class FixClaims:
    """The files the fixes chosen so far touch, and how.

    With ``texts``, an entry file's edits together must read back as a safe
    edit (:func:`memls.store.edit_check.edit_problem`: still loading, no key
    written twice, every comment kept), or the fix adding to them is not taken.
    """

    def __init__(self, texts: Callable[[Path], str | None] | None = None) -> None:
        self._exclusive: set[Path] = set()
        self._edits: dict[Path, list[Span]] = {}
        self._texts = texts
        self._text_edits: dict[Path, list[TextEdit]] = {}

    def paths(self) -> set[Path]:
        return self._exclusive | set(self._edits)

    def take(self, fix: Fix) -> bool:
        """Claim ``fix``'s files if it collides with nothing claimed; False otherwise."""
        if not all(isinstance(op, TextEdit) for op in fix.operations):
            if fix.paths & self.paths():
                return False
            self._exclusive |= fix.paths
            return True
        spans: dict[Path, list[Span]] = {}
        for op in fix.operations:
            assert isinstance(op, TextEdit)  # the others returned above
            spans.setdefault(op.path, []).append(op.span)
        for path, new in spans.items():
            if path in self._exclusive:
                return False
            taken = self._edits.get(path, [])
            if any(overlap(a, b) for a in new for b in taken):
                return False
            if any(overlap(a, b) for i, a in enumerate(new) for b in new[i + 1:]):
                return False
        edits = [op for op in fix.operations if isinstance(op, TextEdit)]
        if any(not self._reads_back(path, edits) for path in spans):
            return False
        for path, new in spans.items():
            self._edits.setdefault(path, []).extend(new)
            self._text_edits.setdefault(path, []).extend(op for op in edits if op.path == path)
        return True

    def _reads_back(self, path: Path, edits: list[TextEdit]) -> bool:
        """Whether ``path``'s edits so far plus ``edits`` leave it a safe edit of its text."""
        if self._texts is None or path.name == INDEX_FILENAME or path.suffix != ".md":
            return True
        text = self._texts(path)
        if text is None:
            return True
        together = self._text_edits.get(path, []) + [op for op in edits if op.path == path]
        try:
            return edit_problem(text, apply_edits(text, together)) is None
        except ValueError:
            return False


def overlap(a: Span, b: Span) -> bool:
    """True when applying both edits together could differ from applying them in turn.

    Ranges that merely touch are independent; an insertion strictly inside
    another edit's range is not; two insertions at one point are not either.
    """
    a_start, a_end = (a.start_line, a.start_col), (a.end_line, a.end_col)
    b_start, b_end = (b.start_line, b.start_col), (b.end_line, b.end_col)
    if a_start == a_end and b_start == b_end:
        return False
    if a_start == a_end:
        return b_start < a_start < b_end
    if b_start == b_end:
        return a_start < b_start < a_end
    return a_start < b_end and b_start < a_end
