"""Rename planning: minimal edits that leave a root as ``MemoryStore.rename`` would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memls.store.apply import apply_fixes
from memls.store.diagnostics import RenameFile, TextEdit
from memls.store.edits import apply_edits
from memls.store.model import Workspace
from memls.store.reader import read_root
from memls.store.rename_plan import plan_file_rename, plan_move_file, plan_rename, suggest_free_name
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore


def entry(name: str, description: str = "d", extra: str = "") -> str:
    return f'---\nname: {name}\ndescription: "{description}"\nmetadata:\n  type: project\n{extra}---\n\nbody of {name}\n'


def chain_root(root: Path) -> Path:
    """old -> mid -> new, plus a bystander; MEMORY.md rendered by the engine."""
    root.mkdir(parents=True)
    files = {
        "old.md": entry("old", extra="status: superseded\nsuperseded_by: mid\n"),
        "mid.md": entry("mid", "the middle", extra="status: superseded\nsupersedes:\n- old  # kept\nsuperseded_by: new\n"),
        "new.md": entry("new", extra="supersedes: [mid]\n"),
        "zeta.md": entry("zeta"),
        "alpha.md": entry("alpha"),
    }
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def load(root: Path) -> Workspace:
    return Workspace.load([MemoryRoot("explicit", root)])


def doc_of(ws: Workspace, root: Path, filename: str):
    return ws.document(root / filename)


def apply(ws: Workspace, root: Path, fix) -> None:
    texts = {d.path: d.text for d in ws.documents()}
    apply_fixes([fix], texts, root=root)


def lenient_entries(root: Path) -> list[dict]:
    return [
        {**e.to_dict(), "path": Path(e.path).name, "body": e.body, "extra": e.extra}
        for e in read_root(root, "explicit").entries
    ]


def assert_same_as_engine(tmp_path: Path, setup, old: str, new: str) -> Path:
    planned, engine = tmp_path / "planned", tmp_path / "engine"
    setup(planned)
    shutil.copytree(planned, engine)
    ws = load(planned)
    apply(ws, planned, plan_rename(ws, doc_of(ws, planned, f"{old}.md"), new))
    MemoryStore([MemoryRoot("explicit", engine)]).rename(old, new)
    assert lenient_entries(planned) == lenient_entries(engine)
    for extra in ("MEMORY.md", ".memory-index.json"):
        if (engine / extra).exists():
            assert (planned / extra).read_text() == (engine / extra).read_text()
    for root in (planned, engine):
        assert MemoryStore([MemoryRoot("explicit", root)]).audit() == []
    return planned


# -- suggest_free_name ---------------------------------------------------------------------


def test_free_name_drops_the_reserved_prefix(tmp_path):
    ws = load(chain_root(tmp_path / "m"))
    assert suggest_free_name(ws.roots[0], "memory-notes") == "notes"
    assert suggest_free_name(ws.roots[0], "MemoryNotes") == "notes"


def test_free_name_counts_up_past_taken_names_and_stems(tmp_path):
    root = chain_root(tmp_path / "m")
    (root / "old-2.md").write_text("no frontmatter\n")
    ws = load(root)
    assert suggest_free_name(ws.roots[0], "Old") == "old-3"


def test_free_name_is_never_empty(tmp_path):
    ws = load(chain_root(tmp_path / "m"))
    assert suggest_free_name(ws.roots[0], "memory") == "entry"
    assert suggest_free_name(ws.roots[0], "!!!") == "entry"


def test_free_name_ignores_the_entry_being_renamed(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    doc = doc_of(ws, root, "old.md")
    assert suggest_free_name(ws.roots[0], "old", renaming=doc) == "old"


# -- plan_rename -----------------------------------------------------------------------------


def test_plan_rename_matches_engine_rename_with_generated_index(tmp_path):
    def setup(root):
        chain_root(root)
        MemoryStore([MemoryRoot("explicit", root)]).write_index()

    planned = assert_same_as_engine(tmp_path, setup, "mid", "zz-middle")
    assert "- old  # kept\n" in (planned / "zz-middle.md").read_text()


def test_plan_rename_of_a_living_entry_reorders_a_generated_index_like_the_engine(tmp_path):
    def setup(root):
        chain_root(root)
        MemoryStore([MemoryRoot("explicit", root)]).write_index()

    planned = assert_same_as_engine(tmp_path, setup, "new", "zz-newest")
    index = (planned / "MEMORY.md").read_text()
    assert index.index("zeta.md") < index.index("zz-newest.md")


def test_plan_rename_matches_engine_rename_with_policy(tmp_path):
    def setup(root):
        chain_root(root)
        policy = {"version": 1, "budget": 4000, "selected": ["new.md", "alpha.md", "zeta.md"]}
        (root / ".memory-index.json").write_text(json.dumps(policy, indent=2) + "\n")
        MemoryStore([MemoryRoot("explicit", root)]).write_index()

    assert_same_as_engine(tmp_path, setup, "new", "newest")
    assert "newest.md" in (tmp_path / "planned" / ".memory-index.json").read_text()


def test_plan_rename_matches_engine_rename_with_hand_curated_index(tmp_path):
    def setup(root):
        chain_root(root)
        lines = ["# Persistent Memory", "", "Notes I keep by hand.", "", "- [alpha](alpha.md) — d",
                 "- [new](new.md) — d", "- [zeta](zeta.md) — d", ""]
        (root / "MEMORY.md").write_text("\n".join(lines))

    planned = assert_same_as_engine(tmp_path, setup, "new", "newer")
    assert "- [newer](newer.md) — d\n" in (planned / "MEMORY.md").read_text()


def test_rename_of_an_entry_a_curated_index_leaves_out_adds_no_line_in_either(tmp_path):
    # zeta has no line on purpose: neither the CLI's rename nor the editor's writes one.
    lines = ["# Persistent Memory", "", "- [Alpha, mine](alpha.md) my hook", "- [new](new.md) — d", "",
             "Notes I keep by hand.", ""]

    def setup(root):
        chain_root(root)
        (root / "MEMORY.md").write_text("\n".join(lines))

    planned = assert_same_as_engine(tmp_path, setup, "zeta", "omega")
    assert (planned / "MEMORY.md").read_text() == "\n".join(lines)


def test_a_rename_renders_a_generated_index_holding_the_kept_line_of_an_unreadable_entry(tmp_path):
    # The kept line does not make the index curated: the renamed line moves to its place, as the engine's.
    def setup(root):
        chain_root(root)
        MemoryStore([MemoryRoot("explicit", root)]).write_index()
        (root / "alpha.md").write_text("---\nname: al")  # half written: its line stays

    planned, engine = tmp_path / "planned", tmp_path / "engine"
    setup(planned)
    shutil.copytree(planned, engine)
    ws = load(planned)
    apply(ws, planned, plan_rename(ws, doc_of(ws, planned, "zeta.md"), "aardvark"))
    MemoryStore([MemoryRoot("explicit", engine)]).rename("zeta", "aardvark")
    index = (planned / "MEMORY.md").read_text()
    assert index == (engine / "MEMORY.md").read_text()
    assert index.index("aardvark.md") < index.index("alpha.md") < index.index("new.md")


def test_plan_rename_edits_only_what_changes(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    fix = plan_rename(ws, doc_of(ws, root, "mid.md"), "middle")
    edits = [op for op in fix.operations if isinstance(op, TextEdit)]
    assert {(e.path.name, e.new_text) for e in edits} == {
        ("mid.md", "middle"), ("old.md", "middle"), ("new.md", "middle"),
    }
    assert [op for op in fix.operations if isinstance(op, RenameFile)] == [
        RenameFile(root / "mid.md", root / "middle.md")
    ]


def test_plan_rename_keeps_the_file_when_the_slug_is_its_name(tmp_path):
    root = tmp_path / "m"
    root.mkdir()
    (root / "my-fact.md").write_text(entry("My Fact"))
    ws = load(root)
    fix = plan_rename(ws, doc_of(ws, root, "my-fact.md"), "my-fact")
    assert not [op for op in fix.operations if isinstance(op, RenameFile)]
    [edit] = fix.operations
    assert apply_edits((root / "my-fact.md").read_text(), [edit]).startswith("---\nname: my-fact\n")


@pytest.mark.parametrize(
    ("new_name", "why"),
    [
        ("memory-notes", "reserved for memory indexes"),
        ("zeta", "zeta.md already has that name"),
        ("Zeta!", "zeta.md already has that name"),
    ],
)
def test_plan_rename_refuses_names_in_use_or_reserved(tmp_path, new_name, why):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    with pytest.raises(ValueError, match=why):
        plan_rename(ws, doc_of(ws, root, "old.md"), new_name)


def test_plan_rename_refuses_an_existing_target_file(tmp_path):
    root = chain_root(tmp_path / "m")
    (root / "stray.md").write_text("not an entry\n")
    ws = load(root)
    with pytest.raises(ValueError, match="stray.md already exists"):
        plan_rename(ws, doc_of(ws, root, "old.md"), "stray")


def test_rename_refuses_while_a_linker_whose_yaml_does_not_load_may_name_it(tmp_path):
    # new.md's links are unknown (its YAML does not load), but its text reads as naming 'mid'.
    root = chain_root(tmp_path / "m")
    (root / "new.md").write_text(entry("new", extra="supersedes: [mid]\nx\n"))
    ws = load(root)
    with pytest.raises(ValueError, match="cannot edit new.md"):
        plan_rename(ws, doc_of(ws, root, "mid.md"), "middle")


def test_renaming_a_hidden_duplicate_leaves_links_with_the_visible_one(tmp_path):
    root = chain_root(tmp_path / "m")
    (root / "z-copy.md").write_text(entry("mid"))
    ws = load(root)
    fix = plan_rename(ws, doc_of(ws, root, "z-copy.md"), "copy")
    assert {op.path.name for op in fix.operations if isinstance(op, TextEdit)} == {"z-copy.md"}


# -- plan_move_file ------------------------------------------------------------------------------


def test_move_file_keeps_the_name_and_updates_the_index_target(tmp_path):
    root = tmp_path / "m"
    root.mkdir()
    (root / "old-file.md").write_text(entry("Fact"))
    (root / "MEMORY.md").write_text("# Persistent Memory\n\nhand notes\n- [Fact](old-file.md) — d\n")
    ws = load(root)
    fix = plan_move_file(ws, doc_of(ws, root, "old-file.md"))
    apply(ws, root, fix)
    assert (root / "fact.md").read_text() == entry("Fact")
    assert (root / "MEMORY.md").read_text() == "# Persistent Memory\n\nhand notes\n- [Fact](fact.md) — d\n"


# -- plan_file_rename ----------------------------------------------------------------------------


def test_user_file_rename_carries_a_stem_name_and_its_links(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    edits = plan_file_rename(ws, root / "mid.md", root / "centre.md")
    texts = {d.path: d.text for d in ws.documents()}
    by_file: dict[Path, list[TextEdit]] = {}
    for e in edits:
        by_file.setdefault(e.path, []).append(e)
    assert set(by_file) == {root / "mid.md", root / "old.md", root / "new.md"}
    assert "name: centre\n" in apply_edits(texts[root / "mid.md"], by_file[root / "mid.md"])
    assert "superseded_by: centre\n" in apply_edits(texts[root / "old.md"], by_file[root / "old.md"])


def test_user_file_rename_of_a_differently_named_entry_moves_only_index_and_policy(tmp_path):
    root = tmp_path / "m"
    root.mkdir()
    (root / "a.md").write_text(entry("Alpha Fact"))
    (root / ".memory-index.json").write_text('{"version": 1, "budget": 500, "selected": ["a.md"]}\n')
    (root / "MEMORY.md").write_text("# Persistent Memory\n\n## Project\n- [Alpha Fact](a.md) — d\n")
    ws = load(root)
    edits = plan_file_rename(ws, root / "a.md", root / "alpha-fact.md")
    assert {e.path.name for e in edits} == {"MEMORY.md", ".memory-index.json"}
    texts = {d.path: d.text for d in ws.documents()}
    policy = [e for e in edits if e.path.name == ".memory-index.json"]
    assert apply_edits(texts[root / ".memory-index.json"], policy) == (
        '{"version": 1, "budget": 500, "selected": ["alpha-fact.md"]}\n'
    )


def test_user_file_rename_into_the_reserved_prefix_is_refused(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    with pytest.raises(ValueError, match="readers skip memory-old.md"):
        plan_file_rename(ws, root / "old.md", root / "memory-old.md")


def test_user_file_rename_out_of_the_root_is_refused(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    with pytest.raises(ValueError, match="out of its memory root"):
        plan_file_rename(ws, root / "old.md", tmp_path / "old.md")


def test_plan_rename_keeps_the_anchor_and_tag_of_a_link_so_its_aliases_still_load(tmp_path):
    """``superseded_by: &s new`` with ``see_also: *s``: rewritten without ``&s``, the alias names nothing."""
    root = tmp_path / "root"
    root.mkdir()
    files = {
        "new.md": entry("new", extra="supersedes: [old1, old2]\n"),
        "old1.md": entry("old1", extra="status: superseded\nsuperseded_by: &s new\nsee_also: *s\n"),
        "old2.md": entry("old2", extra="status: superseded\nsuperseded_by: !!str new\n"),
    }
    for name, text in files.items():
        (root / name).write_text(text)
    ws = load(root)
    apply(ws, root, plan_rename(ws, doc_of(ws, root, "new.md"), "newer"))
    assert "superseded_by: &s newer\nsee_also: *s\n" in (root / "old1.md").read_text()
    assert "superseded_by: !!str newer\n" in (root / "old2.md").read_text()
    entries = {e["name"]: e for e in lenient_entries(root)}
    assert entries["old1"]["superseded_by"] == "newer" and entries["old1"]["extra"]["see_also"] == "newer"
    assert entries["old2"]["superseded_by"] == "newer"
    assert MemoryStore([MemoryRoot("explicit", root)]).audit() == []


# -- what the plans of one root share ---------------------------------------------------------


def mismatched_root(root: Path, *, entries: int = 60, every: int = 5) -> Path:
    """``entries`` entries, every ``every``-th in a file not named after it; MEMORY.md generated."""
    root.mkdir(parents=True)
    for i in range(entries):
        stem = f"x{i:03d}" if i % every == 0 else f"e{i:03d}"
        (root / f"{stem}.md").write_text(entry(f"e{i:03d}", f"fact {i}"))
    MemoryStore([MemoryRoot("explicit", root)]).write_index()
    return root


def mismatch_fixes(ws: Workspace) -> list:
    from memls.store.checks import CheckContext, check_workspace, fixes_for

    ctx = CheckContext(ws)
    problems = [p for found in check_workspace(ctx).values() for p in found if p.code == "name-filename-mismatch"]
    assert problems
    return [fixes_for(ctx, p) for p in problems]


def test_fixes_of_every_name_mismatch_render_the_root_index_lines_once(tmp_path, count_calls):
    # Each mismatch offers two renames, each re-rendering MEMORY.md; rendering
    # it anew for each made a root with N problems cost N times the index.
    from memls.store.entry import MemoryEntry

    ws = load(mismatched_root(tmp_path / "m", entries=60))
    formatted = count_calls(MemoryEntry, "index_line")
    fixes = mismatch_fixes(ws)
    assert all(any(op.path.name == "MEMORY.md" for f in fs for op in f.operations) for fs in fixes)
    assert formatted.calls <= 60 + 12 * len(fixes)  # the root once, then a few lines per problem


def test_fixes_of_every_name_mismatch_list_the_root_entries_once(tmp_path, count_calls):
    from memls.store.model import RootState

    root = mismatched_root(tmp_path / "m", entries=60)
    (root / "MEMORY.md").write_text("# Persistent Memory\n\nhand notes\n" + (root / "MEMORY.md").read_text())
    ws = load(root)
    listed = count_calls(RootState, "entries_for_index")
    mismatch_fixes(ws)
    assert listed.calls <= 1


def test_a_rename_planned_after_an_entry_changed_sees_the_change(tmp_path):
    root = mismatched_root(tmp_path / "m", entries=10)
    ws = load(root)
    generated = plan_move_file(ws, doc_of(ws, root, "x000.md"))
    ws.update(root / "e001.md", entry("e001", "a new description"))  # MEMORY.md is no longer the rendering
    curated = plan_move_file(ws, doc_of(ws, root, "x000.md"))
    assert generated.operations != curated.operations
    index_edits = [op for op in curated.operations if isinstance(op, TextEdit) and op.path.name == "MEMORY.md"]
    assert [e.new_text for e in index_edits] == ["e000.md"]  # only the line's target, as in a curated index


def test_free_name_sees_an_entry_the_model_gained_since_it_was_last_asked(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    assert suggest_free_name(ws.roots[0], "fresh") == "fresh"
    ws.update(root / "fresh.md", entry("fresh"), file_absent=True)
    assert suggest_free_name(ws.roots[0], "fresh") == "fresh-2"


def test_rename_sees_a_linker_whose_yaml_broke_since_the_last_plan(tmp_path):
    root = chain_root(tmp_path / "m")
    ws = load(root)
    plan_rename(ws, doc_of(ws, root, "mid.md"), "middle")
    ws.update(root / "new.md", entry("new", extra="supersedes: [mid]\nx\n"))
    with pytest.raises(ValueError, match="cannot edit new.md"):
        plan_rename(ws, doc_of(ws, root, "mid.md"), "middle")


def test_a_rename_of_an_entry_whose_title_would_break_its_line_is_refused_by_the_engine_and_the_editor(tmp_path):
    # Renamed, it would get no line and its old line would point at a file that is gone: nothing is written.
    root = chain_root(tmp_path / "m")
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.write_index()
    (root / "zeta.md").write_text(entry("zeta", extra='title: "Zeta [draft]"\n'))
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    with pytest.raises(ValueError, match="title 'Zeta \\[draft\\]' contains"):
        store.rename("zeta", "omega")
    ws = load(root)
    with pytest.raises(ValueError, match="fix the title first"):
        plan_rename(ws, doc_of(ws, root, "zeta.md"), "omega")
    with pytest.raises(ValueError, match="fix the title first"):
        store.save("zeta", "a new description", type="project")
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before


def test_a_rename_beside_an_unsaved_buffer_renders_the_index_as_saved(tmp_path):
    # MEMORY.md on disk was rendered from alpha as saved: it is generated still, and stays in memls's order.
    root = chain_root(tmp_path / "m")
    MemoryStore([MemoryRoot("explicit", root)]).write_index()
    ws = load(root)
    saved_alpha = doc_of(ws, root, "alpha.md").index_entry
    ws.update(root / "alpha.md", entry("alpha", "typed, not saved"))
    fix = plan_rename(ws, doc_of(ws, root, "zeta.md"), "aardvark", saved={"alpha.md": saved_alpha})
    apply(ws, root, fix)
    index = (root / "MEMORY.md").read_text()
    assert index.index("aardvark.md") < index.index("alpha.md") < index.index("new.md")
    assert "typed, not saved" not in index
    assert MemoryStore([MemoryRoot("explicit", root)]).render_root_index() == index
