"""Views of a memory store for other harnesses.

Claude Code reads ``MEMORY.md`` (the index the store already renders), so its
view needs nothing here. Codex reads ``AGENTS.md``: its view is a snippet that
tells the agent how to recall and save memories and lists the living entries,
in the same shape gptme's ``export --view codex`` prints, so an AGENTS.md
written by either tool reads the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from .entry import MemoryEntry
from .text import strip_controls

# The command the snippet tells the agent to run. memls is a drop-in for
# ``gptme-util memory``; the snippet names the tool that wrote it, because
# that is the one known to be installed where it runs.
DEFAULT_COMMAND = "memls"
# Statuses that take an entry out of the snippet (anything else counts as
# living, as in gptme, so a hand-typed status never hides an entry silently).
_RETIRED_STATUSES = ("superseded", "historical")


def codex_entries(entries: Iterable[MemoryEntry]) -> list[MemoryEntry]:
    """The entries the Codex snippet lists: living ones, sorted by name."""
    return sorted(
        (e for e in entries if e.status not in _RETIRED_STATUSES),
        key=lambda e: e.name,
    )


def _header(command: str) -> str:
    return (
        "## Memory\n"
        "\n"
        "Run recall at session start to surface relevant entries:\n"
        "\n"
        "```bash\n"
        f'{command} recall "<one-line task description>" -k 5\n'
        "```\n"
        "\n"
        "Current entries:\n"
        "\n"
    )


def _footer(command: str) -> str:
    return (
        "\n"
        "Save a memory with:\n"
        "\n"
        "```bash\n"
        f"{command} save <slug> \"<description>\" --type <type> <<'EOF'\n"
        "<body>\n"
        "EOF\n"
        "```\n"
    )


def _entry_line(entry: MemoryEntry) -> str:
    kind = strip_controls(entry.type, multiline=False) if entry.type else ""
    type_tag = f"[{kind}] " if entry.type else ""
    name = strip_controls(entry.name, multiline=False)
    description = strip_controls(entry.description, multiline=False)
    return f"- **{name}** — {type_tag}{description}\n"


def _omitted_line(count: int, budget: int | None) -> str:
    return f"- … {count} more entries omitted (budget {budget} bytes)\n"


def render_codex_snippet(
    entries: Iterable[MemoryEntry],
    *,
    budget: int | None = None,
    command: str = DEFAULT_COMMAND,
) -> str:
    """Render the AGENTS.md ``## Memory`` section for ``entries``.

    Only living entries are listed (see :func:`codex_entries`). Names, types
    and descriptions are printed without terminal control characters: the
    snippet is meant to be pasted into a file an agent reads.

    ``budget`` caps the snippet in UTF-8 bytes. Entries are dropped from the
    end of the list and replaced by one line saying how many were left out,
    a line that counts against the budget too. The largest prefix of the
    list that fits is kept. Raises ``ValueError`` when even the snippet with
    no entry lines does not fit, because an export that cannot say how to
    recall is useless.
    """
    listed = codex_entries(entries)
    header, footer = _header(command), _footer(command)
    lines = [_entry_line(e) for e in listed]
    if budget is None:
        return header + "".join(lines) + footer

    fixed = len(header.encode()) + len(footer.encode())
    # prefix[n] = bytes of the first n entry lines: each candidate size is
    # then O(1), so fitting is linear in the number of entries.
    prefix = [0]
    for line in lines:
        prefix.append(prefix[-1] + len(line.encode()))
    total = len(lines)
    for kept in range(total, -1, -1):
        omitted = total - kept
        marker = _omitted_line(omitted, budget) if omitted else ""
        if fixed + prefix[kept] + len(marker.encode()) <= budget:
            return header + "".join(lines[:kept]) + marker + footer
    raise ValueError(f"budget {budget} is too small for the codex export header")
