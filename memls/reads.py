"""What the read commands print (``index``, ``list``, ``show``, ``audit``), without click.

The click commands in :mod:`memls.cli` print these texts, and so does
:mod:`memls.quick`, which answers the plain forms of the same commands
without loading click (a third of a replayed ``memls index``). One function
per command, so the two entry points cannot print different things.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memls.store.text import strip_controls

if TYPE_CHECKING:
    from memls.store.entry import MemoryEntry
    from memls.store.replay import Observation
    from memls.store.store import MemoryStore


def clean_line(value: str) -> str:
    """Memory text for a place inside one line of output."""
    return strip_controls(value, multiline=False)


def clean_block(value: str) -> str:
    """Memory text printed as a document (TAB and LF kept)."""
    return strip_controls(value, multiline=True)


def entry_line(entry: MemoryEntry) -> str:
    """One entry in ``list`` / ``search`` output."""
    return (
        f"{clean_line(entry.type):10s} {clean_line(entry.name)}"
        f"  — {clean_line(entry.description)}"
    )


def skipped_note(skipped: int) -> str:
    """The stderr line for files a read skipped; empty when none."""
    return f"({skipped} file(s) skipped: not memory entries)\n" if skipped else ""


def index_text(store: MemoryStore, scope: str | None, budget: int | None) -> str:
    """``memls index``: the rendered MEMORY.md."""
    return clean_block(store.render_root_index(scope, budget=budget))


def list_text(
    store: MemoryStore, type_: str | None, status: str | None, scope: str | None
) -> tuple[str, int]:
    """``memls list``: the lines, and how many files were skipped.

    The text is replayed while no file of any root changed
    (:mod:`memls.store.replay`). The lines are formatted here, outside the
    engine whose sources key every cached view, so this module's source is
    part of the key too: a view is replayed only to the code that formatted it.
    """
    from memls.store.replay import replayed

    def listing() -> tuple[str, int]:
        entries = store.entries(type=type_, status=status, scope=scope)
        return "".join(entry_line(entry) + "\n" for entry in entries), len(store.errors)

    params = repr((type_, status, scope, _source_digest()))
    return replayed("list", store.roots, params, listing)


def _source_digest() -> str:
    import hashlib
    from pathlib import Path

    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def show_text(store: MemoryStore, name: str) -> str | None:
    """``memls show NAME``: the entry as Markdown; None when no entry has that name."""
    entry = store.get(name)
    return None if entry is None else clean_block(entry.to_markdown())


def no_entry_message(name: str) -> str:
    return f"no memory entry named {name!r}"


def audit_text(
    store: MemoryStore, scope: str | None, quiet: bool, observation: Observation | None = None
) -> tuple[str, int]:
    """``memls audit``: the issue lines (or the pass line), and the exit status."""
    issues = store.audit(scope=scope, observation=observation)
    lines = [clean_block(f"{issue.code}: {issue.entry}: {issue.detail}") + "\n" for issue in issues]
    if issues:
        return "".join(lines), 1
    return ("" if quiet else "Memory audit passed\n"), 0
