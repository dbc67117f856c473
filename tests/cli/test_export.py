"""store.export: the Codex AGENTS.md snippet (pure function over entries)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.export import codex_entries, render_codex_snippet


def entries(n: int) -> list[MemoryEntry]:
    return [MemoryEntry(name=f"entry-{i:02d}", description="d" * 30) for i in range(n)]


def test_snippet_lists_living_entries_sorted_with_type_tag():
    snippet = render_codex_snippet(
        [
            MemoryEntry(name="b", description="Second.", type="project"),
            MemoryEntry(name="a", description="First."),
            MemoryEntry(name="gone", description="Old.", status="superseded"),
            MemoryEntry(name="past", description="Past.", status="historical"),
        ]
    )
    assert "Current entries:\n\n- **a** — [general] First.\n- **b** — [project] Second.\n\n" in snippet
    assert "gone" not in snippet and "past" not in snippet


def test_snippet_names_the_command_to_run():
    snippet = render_codex_snippet(entries(1), command="gptme-util memory")
    assert 'gptme-util memory recall "<one-line task description>" -k 5\n' in snippet
    assert "gptme-util memory save <slug>" in snippet


def test_snippet_strips_control_characters_from_entry_text():
    snippet = render_codex_snippet([MemoryEntry(name="x\x1b", description="a\nb\rc")])
    assert "- **x** — [general] abc\n" in snippet


def test_budget_drops_entries_from_end_and_counts_marker():
    full = render_codex_snippet(entries(10))
    budget = len(full.encode()) - 1
    capped = render_codex_snippet(entries(10), budget=budget)
    assert len(capped.encode()) <= budget
    assert "entry-00" in capped
    assert "more entries omitted (budget" in capped


def test_budget_too_small_for_header_raises():
    with pytest.raises(ValueError, match="budget 10 is too small for the codex export header"):
        render_codex_snippet(entries(3), budget=10)


@settings(max_examples=100)
@given(st.integers(min_value=1, max_value=12), st.integers(min_value=300, max_value=1500))
def test_budgeted_snippet_fits_and_keeps_a_prefix(n, budget):
    try:
        text = render_codex_snippet(entries(n), budget=budget)
    except ValueError:
        marker = f"- … {n} more entries omitted (budget {budget} bytes)\n"
        assert len(render_codex_snippet([]).encode()) + len(marker.encode()) > budget
        return
    assert len(text.encode()) <= budget
    listed = [line for line in text.splitlines() if line.startswith("- **")]
    assert listed == [f"- **entry-{i:02d}** — [general] {'d' * 30}" for i in range(len(listed))]


def test_codex_entries_keeps_unknown_status_as_living():
    kept = codex_entries([MemoryEntry(name="odd", status="bogus")])
    assert [e.name for e in kept] == ["odd"]
