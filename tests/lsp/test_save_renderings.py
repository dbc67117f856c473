"""An editor save's index renderings from the model's kept lines equal those of the listed entries.

On ``didSave`` the server needs the root's index before and after the save
as the disk holds the entries: the saved file's earlier text before, and
every other open buffer's *saved* text, not what is typed in it. It gets
them from the model's kept index lines with those few files moved
(``memls.lsp.features.save._around_save``); if that ever differed from
listing the entries and rendering them, a generated ``MEMORY.md`` would be
taken for a curated one (or the reverse), or gain a half-typed line. So after
random buffers, unsaved edits, never-saved files, held lines and files other
tools wrote behind the model's back, both ways must give the same two texts,
and the model's view must be left as it was.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.lsp.features.save import _around_save
from memls.lsp.state import HeldIndexLine
from memls.store.index import index_entries, render_index
from memls.store.index_sync import RootAroundSave
from memls.store.parse import parse_document

from .conftest import entry, unit_state

NAMES = ("a", "b", "c", "d")
FILES = ("a.md", "b.md", "c.md", "d.md", "b-2.md", "new.md")


def variant(data, name: str) -> str:
    """An entry text whose index line (or whether it has one) may differ from its neighbours'."""
    return entry(
        data.draw(st.sampled_from((name, *NAMES))),
        data.draw(st.sampled_from(("first", "second", "other words"))),
        extra=data.draw(st.sampled_from(("", "status: historical\n", "title: A title\n"))),
        type_=data.draw(st.sampled_from(("project", "user", "runbook"))),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_renderings_from_the_kept_lines_equal_those_of_the_listed_entries(data):
    with tempfile.TemporaryDirectory() as tmp:
        files = {"a.md": entry("a", "first"), "b.md": entry("b", "second"), "c.md": entry("c", "third"),
                 "d.md": entry("d", "fourth", extra="status: superseded\n"), "b-2.md": entry("b", "twin")}
        state = unit_state(Path(tmp), files)
        root = state.workspace.roots[0]
        if data.draw(st.booleans(), label="view kept before the edits"):
            root.index_view.rendering()
        for filename in data.draw(st.lists(st.sampled_from(FILES), max_size=4, unique=True), label="open"):
            path = root.path / filename
            on_disk = files.get(filename)
            state.open(path, on_disk if on_disk is not None else variant(data, "new"), 1)
            how = data.draw(st.sampled_from(("kept", "typed", "held")))
            if how == "typed":
                state.change(path, variant(data, filename[0]), 2)
            elif how == "held" and on_disk is not None:
                state.change(path, variant(data, filename[0]), 2)
                state.saved(path, None)
                kept = [variant(data, filename[0])] if data.draw(st.booleans()) else []
                state.held_index_lines[path] = HeldIndexLine("changed its name", kept)
        saved = root.path / data.draw(st.sampled_from(sorted(files)), label="saved")
        state.held_index_lines.pop(saved, None)
        text = variant(data, saved.name[0])
        saved.write_text(text, encoding="utf-8")
        state.change(saved, text, 9)
        state.saved(saved, text)
        earlier = data.draw(st.sampled_from((None, files[saved.name], variant(data, saved.name[0]))))
        previous = parse_document(earlier, path=saved, scope=root.scope).entry if earlier is not None else None

        # Other tools' writes the model has not heard of: taken in by the save, counted as they were before.
        behind = data.draw(st.lists(st.sampled_from([f for f in FILES if root.path / f not in state.buffers
                                                     and root.path / f != saved]),
                                    max_size=3, unique=True), label="written behind the model's back")
        for filename in behind:
            path = root.path / filename
            if path.exists() and data.draw(st.booleans(), label=f"delete {filename}"):
                path.unlink()
            else:
                path.write_text(variant(data, filename[0]), encoding="utf-8")
        caught_up = state.catch_up_with_disk(root)
        assert set(caught_up.entries_before) >= set(behind)

        around = _around_save(state, root, saved, previous, caught_up.entries_before)
        assert around.renderings is not None, "a loaded root renders from its kept lines"
        assert around.rendered() == RootAroundSave(around.entries).rendered()
        before, after = around.entries()
        assert around.rendered()[1] == render_index(index_entries(after, managed=False))
        assert root.index_view.rendering() == render_index(index_entries(root.entries_for_index(), managed=False))
