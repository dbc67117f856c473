"""Incrementality: re-checking only ``Workspace.update``'s affected set equals a full check.

The language server re-checks, after each keystroke, only the paths the
model says may have changed. If the model misses a dependency, the editor
shows stale diagnostics until the next full scan, so these tests compare the
incremental results with a from-scratch check of the same texts: once on a
generated 10,000-entry root (the affected set must stay small), and as a
property over random edit sequences on small roots, where a from-scratch
check is cheap enough to run after every edit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.checks import CheckContext, check_paths, check_workspace
from memls.store.diagnostics import Problem
from memls.store.index import index_entries, render_index
from memls.store.model import Workspace
from memls.store.parse import parse_document
from memls.store.roots import MemoryRoot

TODAY = date(2026, 11, 30)

Results = dict[Path, list[Problem]]


def nonempty(results: Results) -> Results:
    """Results without the paths that have no problem (absent and clean paths look alike)."""
    return {path: problems for path, problems in results.items() if problems}


def merged(previous: Results, recheck: Results) -> Results:
    return nonempty({**previous, **recheck})


# -- the 10,000-entry root --------------------------------------------------------

ENTRIES = 10_000
PAIR_EVERY = 10  # entries 10k and 10k+1 form a supersession pair


def generated_entry(i: int) -> str:
    """Entry ``e<i>``: valid; every tenth one superseded by the next."""
    lines = ["---", f"name: e{i:05d}", f'description: "entry number {i}"']
    if i % PAIR_EVERY == 0:
        lines += ["status: superseded", f"superseded_by: e{i + 1:05d}"]
    elif i % PAIR_EVERY == 1:
        lines += ["supersedes:", f"- e{i - 1:05d}"]
    lines += ["metadata:", "  type: project", "---", "", f"Body of entry {i}.", ""]
    return "\n".join(lines)


def write_generated_root(root: Path) -> None:
    root.mkdir()
    index = ["# Memory Index", ""]
    for i in range(ENTRIES):
        (root / f"e{i:05d}.md").write_text(generated_entry(i), encoding="utf-8")
        if i % PAIR_EVERY != 0:
            index.append(f"- [e{i:05d}](e{i:05d}.md) — entry number {i}")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def test_one_edit_in_a_10000_entry_root_rechecks_only_the_affected_set(tmp_path):
    root = tmp_path / "memory"
    write_generated_root(root)
    memory_root = MemoryRoot("explicit", root)
    workspace = Workspace.load([memory_root])
    full = check_workspace(CheckContext(workspace, today=TODAY))

    # e00011 stops superseding e00010 and supersedes e00020 (which already has a successor).
    edited = root / "e00011.md"
    new_text = generated_entry(11).replace("- e00010", "- e00020")
    edited.write_text(new_text, encoding="utf-8")
    affected = workspace.update(edited, new_text)

    expected_affected = {
        edited,
        root / "e00010.md",  # the old link target
        root / "e00020.md",  # the new link target
        root / "e00021.md",  # the new target's successor (now a rival claim on it)
        root / "MEMORY.md",
    }
    assert expected_affected <= affected
    assert len(affected) <= 10, sorted(p.name for p in affected)

    ctx = CheckContext(workspace, today=TODAY)
    recheck = check_paths(ctx, affected)
    assert ctx.checked == len(affected)

    scratch = check_workspace(CheckContext(Workspace.load([memory_root]), today=TODAY))
    assert merged(full, recheck) == nonempty(scratch)
    # The edit is visible: it created problems the first check did not have.
    assert merged(full, recheck) != nonempty(full)


def test_a_keystroke_retiring_an_entry_a_trimmed_index_lacks_changes_its_one_warning_as_from_scratch(tmp_path):
    """A curated MEMORY.md trimmed to a few lines lacks most living entries, and each keystroke in any
    entry re-checks it. Its one warning counts them: a keystroke that retires one of them lowers the
    count, one in a body leaves the warning as it was, each as a check from scratch finds."""
    root = tmp_path / "memory"
    root.mkdir()
    for i in range(40):
        (root / f"e{i:05d}.md").write_text(generated_entry(i), encoding="utf-8")
    (root / "MEMORY.md").write_text("# Mine\n\n- [e00001](e00001.md) \u2014 the one I keep\n", encoding="utf-8")
    memory_root = MemoryRoot("explicit", root)
    workspace = Workspace.load([memory_root])
    index = root / "MEMORY.md"

    def missing_warning():
        problems = check_paths(CheckContext(workspace, today=TODAY), [index])[index]
        assert problems == check_workspace(CheckContext(Workspace.load([memory_root]), today=TODAY))[index]
        [warning] = [p for p in problems if p.code == "index-missing-entry"]
        return warning

    # e00000, e00010, e00020 and e00030 are superseded, e00001 is listed.
    assert missing_warning().message.startswith("35 living entries have no line in MEMORY.md")
    edited = root / "e00003.md"
    retired = generated_entry(3).replace("metadata:", "status: historical\nmetadata:")
    for new_text, count in ((generated_entry(3) + "\nmore body\n", 35), (retired, 34)):
        edited.write_text(new_text, encoding="utf-8")
        workspace.update(edited, new_text)
        assert missing_warning().message.startswith(f"{count} living entries have no line")


# -- random edit sequences on small roots -------------------------------------------

NEAR = Path("/nonexistent-memls-test/near")
FAR = Path("/nonexistent-memls-test/far")
ROOTS = (MemoryRoot("project", NEAR), MemoryRoot("user", FAR))
# Names the edits draw from: existing ones, slug twins ("Alpha" ~ "alpha"),
# a reserved one, and a name no file carries at first (dangling links).
NAMES = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "omega", "Alpha", "Beta_", "memory-x", "ghost")
STATUSES = (None, "living", "superseded", "historical", "done")


@dataclass(frozen=True)
class EntrySpec:
    """An entry file's content as fields the edits change; rendered to text."""

    name: str
    status: str | None = None
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    flow: bool = False  # supersedes as a flow list [a, b]
    broken: bool = False  # an unterminated flow list: invalid YAML
    lead: int = 0  # comment lines above ``name:`` (moving every position the checks point at)

    def text(self) -> str:
        lines = ["---", *(f"# note {i}" for i in range(self.lead)), f"name: {self.name}", f'description: "about {self.name}"']
        if self.status is not None:
            lines.append(f"status: {self.status}")
        if self.supersedes:
            if self.flow:
                lines.append(f"supersedes: [{', '.join(self.supersedes)}]")
            else:
                lines += ["supersedes:", *(f"- {n}" for n in self.supersedes)]
        if self.superseded_by is not None:
            lines.append(f"superseded_by: {self.superseded_by}")
        if self.broken:
            lines.append("keywords: [unterminated, list")
        lines += ["metadata:", "  type: project", "---", "", "body", ""]
        return "\n".join(lines)


@dataclass
class Files:
    """The texts of both roots, kept by path, with the entry specs behind them."""

    specs: dict[Path, EntrySpec] = field(default_factory=dict)
    raw: dict[Path, str] = field(default_factory=dict)  # MEMORY.md, policy files

    def texts(self) -> dict[Path, str]:
        return {**{p: s.text() for p, s in self.specs.items()}, **self.raw}


def initial_files() -> Files:
    files = Files()
    near = [
        EntrySpec("alpha", status="superseded", superseded_by="beta"),
        EntrySpec("beta", supersedes=("alpha",)),
        EntrySpec("gamma"),
        EntrySpec("delta", superseded_by="eps", status="superseded"),
        EntrySpec("eps", supersedes=("delta",), flow=True),
        EntrySpec("zeta"),
        EntrySpec("omega", status="historical"),
    ]
    for spec in near:
        files.specs[NEAR / f"{spec.name}.md"] = spec
    for spec in (EntrySpec("gamma"), EntrySpec("far-one", supersedes=("far-two",)), EntrySpec("far-two")):
        files.specs[FAR / f"{spec.name}.md"] = spec
    files.raw[NEAR / "MEMORY.md"] = "# Memory Index\n\n- [beta](beta.md) — about beta\n- [ghost](ghost.md) — gone\n"
    return files


def from_scratch(texts: dict[Path, str], last_loaded: dict[Path, str] | None = None) -> Results:
    """A fresh model of ``texts``; a buffer given in ``last_loaded`` first held that text.

    ``Workspace.update`` remembers the last text of a path whose frontmatter
    loaded while the current one does not, so the scratch model is given it too.
    """
    workspace = Workspace(ROOTS)
    for path in sorted(texts):
        if last_loaded and path in last_loaded:
            workspace.update(path, last_loaded[path])
        workspace.update(path, texts[path])
    return check_workspace(CheckContext(workspace, today=TODAY))


def loads(path: Path, text: str) -> bool:
    return parse_document(text, path).loaded


def _pick_entry(data, files: Files) -> Path | None:
    if not files.specs:
        return None
    return data.draw(st.sampled_from(sorted(files.specs)))


def _edit_spec(data, files: Files) -> Path | None:
    """Change one entry's fields; returns the path changed (None: nothing to change)."""
    path = _pick_entry(data, files)
    if path is None:
        return None
    spec = files.specs[path]
    op = data.draw(st.sampled_from((
        "add-supersedes", "remove-supersedes", "retarget-supersedes", "set-superseded-by",
        "clear-superseded-by", "status", "rename", "toggle-broken", "toggle-flow", "lead",
    )))
    name = data.draw(st.sampled_from(NAMES + ("far-one", "far-two")))
    if op == "add-supersedes" and name not in spec.supersedes:
        spec = replace(spec, supersedes=spec.supersedes + (name,))
    elif op == "remove-supersedes" and spec.supersedes:
        index = data.draw(st.integers(0, len(spec.supersedes) - 1))
        spec = replace(spec, supersedes=spec.supersedes[:index] + spec.supersedes[index + 1:])
    elif op == "retarget-supersedes" and spec.supersedes and name not in spec.supersedes:
        index = data.draw(st.integers(0, len(spec.supersedes) - 1))
        spec = replace(spec, supersedes=spec.supersedes[:index] + (name,) + spec.supersedes[index + 1:])
    elif op == "set-superseded-by":
        spec = replace(spec, superseded_by=name)
    elif op == "clear-superseded-by":
        spec = replace(spec, superseded_by=None)
    elif op == "status":
        spec = replace(spec, status=data.draw(st.sampled_from(STATUSES)))
    elif op == "rename":  # also duplicates a name, or makes a slug twin or a reserved name
        spec = replace(spec, name=name)
    elif op == "toggle-broken":
        spec = replace(spec, broken=not spec.broken)
    elif op == "toggle-flow":
        spec = replace(spec, flow=not spec.flow)
    elif op == "lead":
        spec = replace(spec, lead=data.draw(st.integers(0, 2)))
    files.specs[path] = spec
    return path


def _add_file(data, files: Files) -> Path:
    root = data.draw(st.sampled_from((NEAR, FAR)))
    name = data.draw(st.sampled_from(NAMES))
    filename = data.draw(st.sampled_from((f"{name}.md", f"{name}-2.md", "memory-notes.md")))
    path = root / filename
    files.raw.pop(path, None)
    files.specs[path] = EntrySpec(
        name,
        supersedes=tuple(data.draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))),
        superseded_by=data.draw(st.none() | st.sampled_from(NAMES)),
    )
    return path


def _link_into_chain(data, files: Files) -> list[Path]:
    """Link two entries of a root both ways (a real chain), or three into a cycle; the paths changed.

    The links a person types into ``supersedes`` / ``superseded_by`` once
    both ends exist: each end is re-checked with the other's line in the index.
    """
    root = data.draw(st.sampled_from((NEAR, FAR)))
    paths = sorted(p for p in files.specs if p.parent == root)
    size = data.draw(st.sampled_from((2, 3)))
    if len(paths) < size:
        return []
    chain = data.draw(st.permutations(paths))[:size]
    cycle = data.draw(st.booleans())
    for i, path in enumerate(chain):
        spec = files.specs[path]
        after = chain[i + 1] if i + 1 < size else (chain[0] if cycle else None)
        before = chain[i - 1] if i > 0 else (chain[-1] if cycle else None)
        if after is not None:
            spec = replace(spec, status="superseded", superseded_by=files.specs[after].name)
        if before is not None and files.specs[before].name not in spec.supersedes:
            spec = replace(spec, supersedes=spec.supersedes + (files.specs[before].name,))
        files.specs[path] = spec
    return chain


def _edit_index(data, files: Files, workspace: Workspace) -> Path:
    root = data.draw(st.sampled_from((NEAR, FAR)))
    path = root / "MEMORY.md"
    if data.draw(st.booleans()):
        listed = data.draw(st.lists(st.sampled_from(NAMES), max_size=4))
        files.raw[path] = "# Memory Index\n\n" + "".join(f"- [{n}]({n}.md) — about {n}\n" for n in listed)
        return path
    # memls's rendering of the root as it is, with lines left out (entries missing
    # from it: their problems are placed where the line belongs), a stale line
    # added, or CRLF line endings: an index the later edits drift from.
    state = next(s for s in workspace.roots if s.path == root)
    lines = render_index(index_entries(state.entries_for_index(), managed=False)).split("\n")
    pointers = [i for i, line in enumerate(lines) if line.startswith("- [")]
    dropped = set(data.draw(st.lists(st.sampled_from(pointers), max_size=2))) if pointers else set()
    lines = [line for i, line in enumerate(lines) if i not in dropped]
    if data.draw(st.booleans()):
        lines.insert(data.draw(st.integers(2, max(2, len(lines) - 1))), "- [ghost](ghost.md) — gone")
    eol = data.draw(st.sampled_from(("\n", "\r\n")))
    files.raw[path] = eol.join(lines)
    return path


def _edit_policy(data, files: Files) -> Path:
    root = data.draw(st.sampled_from((NEAR, FAR)))
    selected = data.draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
    path = root / ".memory-index.json"
    items = ", ".join(f'"{n}.md"' for n in selected)
    files.raw[path] = f'{{"version": 1, "budget": 21000, "selected": [{items}]}}\n'
    return path


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_incremental_results_equal_a_from_scratch_check_after_every_edit(data):
    files = initial_files()
    workspace = Workspace(ROOTS)
    last_loaded: dict[Path, str] = {}
    for path, text in sorted(files.texts().items()):
        workspace.update(path, text)
        if loads(path, text):
            last_loaded[path] = text
    results = check_workspace(CheckContext(workspace, today=TODAY))

    for _ in range(data.draw(st.integers(1, 10), label="edits")):
        kind = data.draw(st.sampled_from(
            ("entry", "entry", "entry", "chain", "add", "delete", "index", "policy", "save")))
        if kind == "chain":  # both ends change, each taken (and re-checked) as its own keystroke
            for path in _link_into_chain(data, files):
                text = files.texts()[path]
                affected = workspace.update(path, text)
                if loads(path, text):
                    last_loaded[path] = text
                results = merged(results, check_paths(CheckContext(workspace, today=TODAY), affected))
            affected = set()
        elif kind == "delete":
            paths = sorted(files.texts())
            path = data.draw(st.sampled_from(paths))
            files.specs.pop(path, None)
            files.raw.pop(path, None)
            last_loaded.pop(path, None)
            affected = workspace.remove(path)
        elif kind == "save":
            # Often the user retargets an entry's successor, breaks its YAML (keystrokes: the
            # retargeted text is remembered) and saves; then the buffer is the file, and
            # nothing is remembered.
            path = data.draw(st.sampled_from(sorted(files.texts())))
            if path in files.specs and data.draw(st.booleans()):
                successor = data.draw(st.sampled_from(NAMES))
                for spec in (replace(files.specs[path], superseded_by=successor, broken=False),
                             replace(files.specs[path], superseded_by=successor, broken=True)):
                    files.specs[path] = spec
                    affected = workspace.update(path, spec.text())
                    if loads(path, spec.text()):
                        last_loaded[path] = spec.text()
                    results = merged(results, check_paths(CheckContext(workspace, today=TODAY), affected))
            if not loads(path, files.texts()[path]):
                last_loaded.pop(path, None)
            affected = workspace.saved(path)
        else:
            if kind == "entry":
                path = _edit_spec(data, files)
            elif kind == "add":
                path = _add_file(data, files)
            elif kind == "index":
                path = _edit_index(data, files, workspace)
            else:
                path = _edit_policy(data, files)
            if path is None:
                continue
            text = files.texts()[path]
            affected = workspace.update(path, text)
            if loads(path, text):
                last_loaded[path] = text
        ctx = CheckContext(workspace, today=TODAY)
        recheck = check_paths(ctx, affected)
        assert ctx.checked == sum(1 for p in affected if workspace.document(p) is not None)
        results = merged(results, recheck)
        stale = {p: t for p, t in last_loaded.items() if p in files.texts() and not loads(p, files.texts()[p])}
        expected = nonempty(from_scratch(files.texts(), stale))
        assert results == expected, _difference(results, expected)


def _difference(got: Results, want: Results) -> str:
    lines = []
    for path in sorted(set(got) | set(want)):
        a, b = got.get(path, []), want.get(path, [])
        if a != b:
            lines.append(f"{path}: incremental {[(p.code, p.message) for p in a]}")
            lines.append(f"{' ' * len(str(path))}  scratch     {[(p.code, p.message) for p in b]}")
    return "\n".join(lines)


@pytest.mark.parametrize("filename", [
    "note.md", ".note.md", ".#note.md", "MEMORY.md", "memory.md", "Memory-archive.md", "MEMORYX.md",
    ".memory-index.json", "note.txt", "note.MD", "md", ".md", "a.b.md", "日本語.md",
])
def test_document_kind_calls_entries_exactly_what_the_readers_read(filename: str) -> None:
    from memls.store.model import document_kind
    from memls.store.reader import is_entry_filename

    assert (document_kind(filename) == "entry") == is_entry_filename(filename)


def test_unreadable_entry_names_stay_in_the_model_through_every_way_of_loading(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "fine.md").write_text("---\nname: fine\ndescription: d\n---\n", encoding="utf-8")
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    os.mkfifo(root / "fifo.md")  # listed and reported, never opened (it would block)
    unreadable = {"dangling.md", "fifo.md"}

    def read_errors(workspace: Workspace) -> set[str]:
        return {d.path.name for d in workspace.documents() if d.read_error is not None}

    assert read_errors(Workspace.load([MemoryRoot("explicit", root)])) == unreadable
    workspace = Workspace([MemoryRoot("explicit", root)])
    state = workspace.add_root(MemoryRoot("explicit", root))
    for path, stat_result in workspace.listing(state):  # the server's first scan
        workspace.load_document(path, stat_result)
    assert read_errors(workspace) == unreadable
    workspace.refresh_root(state)
    workspace.update_from_disk(root / "dangling.md")
    assert read_errors(workspace) == unreadable
    (root / "dangling.md").unlink()
    workspace.update_from_disk(root / "dangling.md")
    assert read_errors(workspace) == {"fifo.md"}


def test_a_line_added_above_an_unloadable_entrys_name_moves_the_index_problems_pointing_at_it():
    """The index checks point at an entry whose YAML does not load through its ``name:`` line.

    Nothing the index reads of the entry changes when a line is added above
    that line, yet the place the index problem points at does: the
    index's re-check must not be skipped.
    """
    files = initial_files()
    gamma = NEAR / "gamma.md"
    files.specs[gamma] = replace(files.specs[gamma], broken=True)
    workspace = Workspace(ROOTS)
    for path, text in sorted(files.texts().items()):
        workspace.update(path, text)
    results = check_workspace(CheckContext(workspace, today=TODAY))
    for lead in (1, 2, 0):
        files.specs[gamma] = replace(files.specs[gamma], lead=lead)
        affected = workspace.update(gamma, files.texts()[gamma])
        results = merged(results, check_paths(CheckContext(workspace, today=TODAY), affected))
        assert results == nonempty(from_scratch(files.texts())), f"after {lead} lines above name:"


# -- an index trimmed on purpose, around the 20 missing entries that make it one warning ----------

TRIM = Path("/nonexistent-memls-test/trim")
TRIM_ENTRIES = 26


def _trim_entry(i: int, status: str | None, name: str | None = None) -> str:
    lines = ["---", f"name: {name or f'e{i:02d}'}", f'description: "entry {i}"']
    if status is not None:
        lines.append(f"status: {status}")
    return "\n".join([*lines, "metadata:", "  type: project", "---", "", "body", ""])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_trimmed_index_s_problems_equal_a_from_scratch_check_as_entries_cross_twenty_missing(data):
    """Retiring, reviving, shadowing, adding and deleting entries and listing or dropping their lines
    move an index across 20 missing entries (one warning each) and 21 (one warning counting them):
    after every edit the kept line findings give what a fresh model finds."""
    listed = set(data.draw(st.lists(st.integers(0, TRIM_ENTRIES - 1), max_size=8), label="listed"))
    texts = {TRIM / f"e{i:02d}.md": _trim_entry(i, None) for i in range(TRIM_ENTRIES)}

    def index_text() -> str:
        return "# Mine\n\nNotes.\n" + "".join(f"- [e{i:02d}](e{i:02d}.md) \u2014 entry {i}\n" for i in sorted(listed))

    texts[TRIM / "MEMORY.md"] = index_text()
    roots = (MemoryRoot("project", TRIM),)
    workspace = Workspace(roots)
    for path, text in sorted(texts.items()):
        workspace.update(path, text)
    index = TRIM / "MEMORY.md"
    check_paths(CheckContext(workspace, today=TODAY), [index])
    for _ in range(data.draw(st.integers(1, 12), label="edits")):
        i = data.draw(st.integers(0, TRIM_ENTRIES - 1))
        path = TRIM / f"e{i:02d}.md"
        op = data.draw(st.sampled_from(("status", "shadow", "delete", "list", "drop")))
        if op == "status" or (op == "delete" and path not in texts):
            texts[path] = _trim_entry(i, data.draw(st.sampled_from((None, "historical", "active"))))
            workspace.update(path, texts[path])
        elif op == "shadow":  # its name taken by another file's entry: which file is shown moves
            texts[path] = _trim_entry(i, None, name=f"e{data.draw(st.integers(0, TRIM_ENTRIES - 1)):02d}")
            workspace.update(path, texts[path])
        elif op == "delete":
            del texts[path]
            workspace.remove(path)
        else:
            (listed.add if op == "list" else listed.discard)(i)
            texts[index] = index_text()
            workspace.update(index, texts[index])
        kept = check_paths(CheckContext(workspace, today=TODAY), [index])[index]
        scratch = Workspace(roots)
        for p, text in sorted(texts.items()):
            scratch.update(p, text)
        assert kept == check_workspace(CheckContext(scratch, today=TODAY)).get(index, [])
