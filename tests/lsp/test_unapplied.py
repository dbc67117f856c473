"""What waits for the engine: an entry's latest text alone, every text of ``MEMORY.md`` in order."""

from __future__ import annotations

from pathlib import Path

from memls.lsp.unapplied import UnappliedChanges


def test_of_an_entry_only_the_latest_change_waits_and_its_own_job_takes_it():
    waiting = UnappliedChanges()
    tickets = [waiting.add(Path("/m/a.md"), f"text {version}", version) for version in (2, 3, 4)]
    assert waiting.latest(Path("/m/a.md")) == ("text 4", 4)
    assert waiting.take(Path("/m/a.md"), tickets[0]) == []  # a later change's: left to its own job
    assert waiting.take(Path("/m/a.md"), tickets[2]) == [("text 4", 4)]


def test_every_change_of_the_index_waits_in_order_until_taken():
    waiting = UnappliedChanges()
    index = Path("/m/MEMORY.md")
    first = waiting.add(index, "reloaded", 2)
    second = waiting.add(index, "reloaded, typed on", 3)
    assert waiting.latest(index) == ("reloaded, typed on", 3)
    assert waiting.take(index, second) == [("reloaded", 2), ("reloaded, typed on", 3)]
    assert waiting.take(index, first) == [] and waiting.latest(index) is None


def test_a_job_takes_no_change_sent_after_its_own():
    waiting = UnappliedChanges()
    index = Path("/m/MEMORY.md")
    first = waiting.add(index, "before the save", 2)
    waiting.add(index, "after the save", 3)
    assert waiting.take(index, first) == [("before the save", 2)]
    assert waiting.latest(index) == ("after the save", 3)


def test_the_index_texts_waiting_stay_within_their_budget_the_latest_always_kept(monkeypatch):
    monkeypatch.setattr("memls.lsp.unapplied.WAITING_INDEX_CHARS", 27)
    waiting = UnappliedChanges()
    index = Path("/m/MEMORY.md")
    tickets = [waiting.add(index, f"text {n:04d}", n) for n in range(5)]  # 9 characters each
    assert waiting.take(index, tickets[-1]) == [("text 0002", 2), ("text 0003", 3), ("text 0004", 4)]
    waiting.add(index, "x" * 100, 6)
    assert waiting.latest(index) == ("x" * 100, 6)
