"""Apply fixes to files on disk, under the root lock, as one commit per root.

``memls check --fix`` and tests use this; the editor applies the same fixes
to its buffers as workspace edits instead. A fix was computed against the
text the workspace held; if a file changed on disk since, applying it would
edit the wrong spans, so the current bytes are compared first and a stale
fix is refused.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from .diagnostics import CreateFile, Fix, RenameFile, TextEdit
from .edit_check import structure_problem
from .edits import apply_edits
from .files import Change, FileDelete, FileWrite, commit, root_lock
from .frontmatter import normalize_text
from .safe_read import text_to_rewrite


class StaleFixError(RuntimeError):
    """The file changed after the fix was computed."""


def planned_files(fixes: Sequence[Fix], texts: Mapping[Path, str]) -> dict[Path, str | None]:
    """The new content of every file the fixes touch (None = removed).

    ``texts`` are the texts the fixes were computed against. Edits of one
    file from several fixes are applied together and must not overlap.
    """
    edits: dict[Path, list[TextEdit]] = {}
    result: dict[Path, str | None] = {}
    renames: list[RenameFile] = []
    for fix in fixes:
        for op in fix.operations:
            if isinstance(op, TextEdit):
                edits.setdefault(op.path, []).append(op)
            elif isinstance(op, CreateFile):
                if op.path in texts or op.path in result:
                    raise FileExistsError(f"{op.path.name} already exists; not overwriting it")
                result[op.path] = op.text
            else:
                renames.append(op)
    for path, file_edits in edits.items():
        if path not in texts:
            raise FileNotFoundError(f"{path.name} does not exist")
        result[path] = apply_edits(texts[path], file_edits)
    for op in renames:
        if op.new in texts or op.new in result:
            raise FileExistsError(f"{op.new.name} already exists; not overwriting it")
        content = result.get(op.old, texts.get(op.old))
        if content is None:
            raise FileNotFoundError(f"{op.old.name} does not exist")
        result[op.new] = content
        result[op.old] = None
    return result


def _as_read(text: str | None) -> str | None:
    """``text`` as the reader sees it (None for a file that does not exist)."""
    return None if text is None else normalize_text(text)


def apply_fixes(fixes: Sequence[Fix], texts: Mapping[Path, str], *, root: Path) -> dict[Path, str | None]:
    """Write the fixes' result to disk in one locked commit; return what changed.

    ``texts`` are the texts the fixes were computed against: an editor's
    buffer as it holds it (CRLF, a byte-order mark) or the reader's normalised
    text. Both sides are compared as the reader sees them, since the fixes'
    spans are lines and columns of the normalised text: a CRLF buffer equal
    to its CRLF file is not stale. The edits are applied to each file's own
    text, so a fix leaves a CRLF file CRLF and keeps its byte-order mark.
    An entry whose frontmatter loaded is never written unloadable or with a
    key written twice (``ValueError``, nothing written).
    """
    with root_lock(root):
        # The file's own text: the edits keep its line endings and byte-order mark.
        current: dict[Path, str] = {}
        touched = {p for fix in fixes for p in fix.paths}
        for path in touched:
            read = text_to_rewrite(path)  # refuses a FIFO, a device, non-UTF-8 bytes
            if read is not None:
                current[path] = read[1]
        for path in touched:
            if _as_read(current.get(path)) != _as_read(texts.get(path)):
                raise StaleFixError(f"{path.name} changed since it was checked; check again")
        planned = planned_files(fixes, current)
        for path, text in planned.items():
            broken = None if text is None or path not in current else structure_problem(current[path], text)
            if broken is not None:
                raise ValueError(f"{path.name}: not written, {broken}")
        created = {op.path for fix in fixes for op in fix.operations if isinstance(op, CreateFile)}
        created |= {op.new for fix in fixes for op in fix.operations if isinstance(op, RenameFile)}
        # A renamed file keeps its permission bits (a private entry stays private).
        modes = {op.new: stat.S_IMODE(op.old.stat().st_mode)
                 for fix in fixes for op in fix.operations
                 if isinstance(op, RenameFile) and op.old.exists()}
        changes: list[Change] = []
        for path, text in planned.items():
            if text is None:
                changes.append(FileDelete(path))
            else:
                changes.append(FileWrite(path, text.encode("utf-8"), create_only=path in created,
                                         mode=modes.get(path)))
        commit(changes, root=root)
    return planned
