"""The Memories tree: who sits under whom, and what a change to it is."""

from __future__ import annotations

from pathlib import Path

from memls.store.memories import ProblemCount, memory_tree, node_key
from memls.store.model import Workspace
from memls.store.roots import MemoryRoot


def entry(name: str, extra: str = "", type_: str = "project") -> str:
    return f'---\nname: {name}\ndescription: "d"\nmetadata:\n  type: {type_}\n{extra}---\n\nbody\n'


def load(tmp_path: Path, files: dict[str, str]) -> Workspace:
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return Workspace.load([MemoryRoot("project", root)])


def outline(nodes) -> list:
    return [(n.name, outline(n.superseded)) if n.superseded else n.name for n in nodes]


def test_an_entry_leading_into_a_loop_sits_under_the_loop_which_stays_at_the_top(tmp_path):
    ws = load(tmp_path, {
        "a.md": entry("a", "superseded_by: b\n"),
        "b.md": entry("b", "superseded_by: c\n"),
        "c.md": entry("c", "superseded_by: b\n"),
    })
    [root] = memory_tree(ws, {})
    [project] = root.types
    assert outline(project.entries) == [("b", ["a"]), "c"]


def test_a_successor_that_is_missing_or_the_entry_itself_leaves_it_at_the_top(tmp_path):
    ws = load(tmp_path, {
        "a.md": entry("a", "superseded_by: nobody\n"),
        "b.md": entry("b", "superseded_by: b\n"),
    })
    [root] = memory_tree(ws, {})
    assert outline(root.types[0].entries) == ["a", "b"]


def test_types_follow_the_index_order_and_unreadable_files_come_last(tmp_path):
    ws = load(tmp_path, {
        "z.md": entry("z", type_="zebra"),
        "p.md": entry("p"),
        "u.md": entry("u", type_="user"),
        "broken.md": "---\nname: [x\n---\n",
    })
    counts = {tmp_path / "memory" / "broken.md": ProblemCount(errors=1)}
    [root] = memory_tree(ws, counts)
    assert [(t.type, [e.name for e in t.entries]) for t in root.types] == [
        ("user", ["u"]), ("project", ["p"]), ("zebra", ["z"]), ("unreadable", ["broken"])]
    assert root.types[-1].entries[0].problems == ProblemCount(errors=1)


def test_a_body_edit_keeps_the_node_key_and_a_status_edit_changes_it(tmp_path):
    ws = load(tmp_path, {"a.md": entry("a")})
    path = tmp_path / "memory" / "a.md"
    before = node_key(ws.document(path))
    ws.update(path, entry("a") + "more words\n")
    assert node_key(ws.document(path)) == before
    ws.update(path, entry("a", "status: historical\n"))
    assert node_key(ws.document(path)) != before
