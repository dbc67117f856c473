"""What waits for the engine: an entry's latest text alone, every text of ``MEMORY.md`` in order."""

from __future__ import annotations

from pathlib import Path

from memls.lsp.unapplied import UnappliedChanges


def test_of_an_entry_only_the_latest_change_waits():
    waiting = UnappliedChanges()
    for version in (2, 3, 4):
        waiting.add(Path("/m/a.md"), f"text {version}", version)
    assert waiting.latest(Path("/m/a.md")) == ("text 4", 4)
    assert waiting.take(Path("/m/a.md")) == [("text 4", 4)]


def test_every_change_of_the_index_waits_in_order_until_taken():
    waiting = UnappliedChanges()
    index = Path("/m/MEMORY.md")
    waiting.add(index, "reloaded", 2)
    waiting.add(index, "reloaded, typed on", 3)
    assert waiting.latest(index) == ("reloaded, typed on", 3)
    assert waiting.take(index) == [("reloaded", 2), ("reloaded, typed on", 3)]
    assert waiting.take(index) == [] and waiting.latest(index) is None
