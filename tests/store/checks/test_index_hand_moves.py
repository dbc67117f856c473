"""Entries moved to other files by hand: ``--fix`` keeps every word a person wrote on their index lines."""

from __future__ import annotations

import shutil
import tempfile
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.checks import CheckContext
from memls.store.fix_all import fix_all
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot
from memls.store.settings import Settings

from .conftest import Checked, entry_text, write_root

NAMES = [f"note-{i}" for i in range(8)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moved=st.sets(st.sampled_from(NAMES)), trimmed=st.booleans(), crlf=st.booleans())
def test_fix_all_points_each_moved_entrys_line_at_its_file_and_keeps_every_hand_written_word(moved, trimmed, crlf):
    """Each entry's line carries words of its own; ``mv <name>.md <name>-moved.md`` for some of them.

    After fix-all every line is the person's line with only its target rewritten, no entry lost its
    line and none has two. ``trimmed``: 25 more entries the index never listed (a trimmed index).
    """
    eol = "\r\n" if crlf else "\n"
    lines = [f"- [{name} (mine)]({name}.md) \u2014 my words on {name}, keep them" for name in NAMES]
    index = eol.join(["# Persistent Memory", "", *lines, "", "<!-- mine -->", ""])
    files = {f"{name}{'-moved' if name in moved else ''}.md": entry_text(name, f"generated {name}") for name in NAMES}
    if trimmed:
        files.update({f"extra-{i:02d}.md": entry_text(f"extra-{i:02d}") for i in range(25)})
    with tempfile.TemporaryDirectory() as tmp:
        root = write_root(Path(tmp) / "memory", {**files})
        (root / "MEMORY.md").write_bytes(index.encode("utf-8"))
        ctx = CheckContext(Workspace.load([MemoryRoot("explicit", root)]), Settings(), date(2026, 11, 30))
        fix_all(ctx)
        after = (root / "MEMORY.md").read_bytes().decode("utf-8")
        expected = index
        for name in moved:
            expected = expected.replace(f"]({name}.md)", f"]({name}-moved.md)")
        assert after == expected
        checked = Checked([MemoryRoot("explicit", root)])
        assert checked.problems("index-broken-link") == []
        ours = set(files) - {f"extra-{i:02d}.md" for i in range(25)}
        assert [p for p in checked.problems("index-missing-entry") if p.data.get("filename") in ours] == []
        shutil.rmtree(root)
