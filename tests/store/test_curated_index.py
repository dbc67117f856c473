"""Generated and curated MEMORY.md: what the engine's writes do to each (issue 11, defects 4 and 10).

A legacy index is generated only when its bytes are memls's rendering of the
root before or after the change; anything else is curated, and a write
edits only the lines of the entries it touches.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.index import is_generated_index, render_index
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore

# Claude Code style: the user's own link text and hooks, no prose paragraph.
CURATED = (
    "# Persistent Memory\n"
    "\n"
    "- [Alpha notes](alpha.md) \u2014 read when touching alpha\n"
    "- [beta](beta.md) \u2014 my hook for beta\n"
    "- [gamma](gamma.md) \u2014 Gamma thing.\n"
)


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def mstore(root) -> MemoryStore:
    s = MemoryStore([MemoryRoot("explicit", root)])
    s.save("alpha", "Alpha thing.", type="project")
    s.save("beta", "Beta thing.", type="project")
    s.save("gamma", "Gamma thing.", type="project")
    return s


def index(root: Path) -> str:
    return (root / "MEMORY.md").read_text(encoding="utf-8")


def curate(root: Path) -> None:
    (root / "MEMORY.md").write_text(CURATED, encoding="utf-8")


def test_an_index_of_pointer_lines_with_custom_text_is_not_generated(mstore):
    entries = mstore.entries()
    assert not is_generated_index(CURATED, entries)
    assert is_generated_index(render_index(entries), entries)


def test_rename_in_a_curated_index_keeps_the_link_text_and_hook(mstore, root):
    curate(root)
    mstore.rename("alpha", "alpha-two")
    mstore.rename("gamma", "gamma-two")
    assert index(root) == CURATED.replace("(alpha.md)", "(alpha-two.md)").replace(
        "[gamma](gamma.md)", "[gamma-two](gamma-two.md)")


def test_delete_in_a_curated_index_removes_only_its_line(mstore, root):
    curate(root)
    mstore.delete("alpha")
    assert index(root) == CURATED.replace(
        "- [Alpha notes](alpha.md) \u2014 read when touching alpha\n", "")


def test_historical_in_a_curated_index_removes_only_its_line(mstore, root):
    curate(root)
    mstore.set_status("gamma", "historical")
    assert index(root) == CURATED.replace("- [gamma](gamma.md) \u2014 Gamma thing.\n", "")


def test_supersede_in_a_curated_index_keeps_the_successors_own_line(mstore, root):
    curate(root)
    mstore.supersede("alpha", "beta")
    # beta's line keeps its hook: no stock text is restored on a touched line.
    assert index(root) == CURATED.replace(
        "- [Alpha notes](alpha.md) \u2014 read when touching alpha\n", "")


def test_save_of_a_new_type_into_a_generated_index_lands_in_its_section(mstore, root):
    # Defect 10: the line was appended at the end, under the last section.
    mstore.write_index()
    mstore.save("tz", "Works from Stockholm.", type="user")
    assert index(root) == mstore.render_root_index()
    assert index(root).index("## User") < index(root).index("## Project")
    assert mstore.check_index()


def test_a_generated_index_cut_to_a_budget_keeps_its_budget_after_a_delete(root):
    s = MemoryStore([MemoryRoot("explicit", root)])
    for i in range(6):
        s.save(f"e{i}", "x" * 40)
    s.write_index(budget=150)
    assert "omitted (budget 150 bytes)" in index(root)
    s.delete("e0")
    assert index(root) == s.render_root_index(budget=150)


def test_save_into_a_curated_index_appends_like_gptme(mstore, root):
    curate(root)
    mstore.save("delta", "Delta thing.", type="user")
    assert index(root) == CURATED + "- [delta](delta.md) \u2014 Delta thing.\n"


def test_a_body_only_save_leaves_a_curated_line_as_written(mstore, root):
    curate(root)
    mstore.save("alpha", "Alpha thing.", "a new body\n", type="project")
    mstore.save("beta", "Beta thing.", "another body\n", type="project")
    assert index(root) == CURATED


def test_a_save_updates_only_the_parts_of_a_line_that_were_memls_text(mstore, root):
    """The stock hook of gamma follows its new description; the hand-written ones stay."""
    curate(root)
    mstore.save("alpha", "Alpha, rewritten.", type="project")
    mstore.save("gamma", "Gamma, rewritten.", type="project")
    assert index(root) == CURATED.replace("Gamma thing.", "Gamma, rewritten.")


def test_a_save_of_an_entry_without_a_line_appends_it_to_a_curated_index(mstore, root):
    curate(root)
    mstore.save("delta", "Delta thing.", type="project")
    assert index(root) == CURATED + "- [delta](delta.md) \u2014 Delta thing.\n"


def test_a_generated_index_stays_the_full_rendering_through_every_kind_of_write(root):
    # The writes render a generated index once and move the changed files' lines
    # for the rendering after; each result must be what a full render writes.
    s = MemoryStore([MemoryRoot("explicit", root)])
    for name, kind in (("alpha", "project"), ("beta", "user"), ("gamma", "feedback")):
        s.save(name, f"{name} notes", type=kind)
    (root / "zz-shadow.md").write_text("---\nname: alpha\ndescription: hidden twin\n---\n")
    s.write_index()
    writes = [
        lambda: s.save("beta", "beta moved to project", type="project"),
        lambda: s.save("delta", "a new entry", title="Delta Title"),
        lambda: s.set_status("gamma", "historical"),
        lambda: s.set_status("gamma", "living"),
        lambda: s.supersede("beta", "delta"),
        lambda: s.rename("delta", "epsilon"),
        lambda: s.delete("gamma"),
        lambda: s.save("alpha", "alpha again"),
    ]
    for write in writes:
        write()
        assert index(root) == s.render_root_index()


# -- line endings: a curated CRLF index keeps them (the stranger's supersede made it LF) --

TOUCHED = ("alpha", "beta", "delta")
prose_lines = st.lists(
    st.text(alphabet="abc #-[]()<>!\u2014\u00e9\t", max_size=12).filter(
        lambda line: not any(name in line for name in TOUCHED)),
    max_size=4,
)
WRITES = {
    "save": lambda s: s.save("alpha", "Alpha changed."),
    "save-new": lambda s: s.save("delta", "Delta thing."),
    "delete": lambda s: s.delete("alpha"),
    "supersede": lambda s: s.supersede("alpha", "beta"),
    "rename": lambda s: s.rename("alpha", "delta"),
    "historical": lambda s: s.set_status("alpha", "historical"),
}


@settings(max_examples=30, deadline=None)
@given(head=prose_lines, tail=prose_lines, write=st.sampled_from(sorted(WRITES)))
def test_a_write_to_a_curated_crlf_index_keeps_its_line_endings_and_untouched_lines(head, tail, write):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        s = MemoryStore([MemoryRoot("explicit", root)])
        for name in ("alpha", "beta", "gamma"):
            s.save(name, f"{name} thing.", type="project")
        lines = ["<!-- mine -->", *head, "- [Alpha notes](alpha.md) \u2014 my hook",
                 "- [beta](beta.md) \u2014 beta thing.", "- [gamma](gamma.md) \u2014 mine", *tail]
        before = "".join(line + "\r\n" for line in lines).encode("utf-8")
        (root / "MEMORY.md").write_bytes(before)
        WRITES[write](s)
        after = (root / "MEMORY.md").read_bytes()
    assert after.count(b"\n") == after.count(b"\r\n") and after.endswith(b"\r\n")

    def untouched(data: bytes) -> list[bytes]:
        return [line for line in data.split(b"\r\n") if not any(n.encode() in line for n in TOUCHED)]

    assert untouched(after) == untouched(before)


@pytest.mark.parametrize("warm", [True, False], ids=["store kept its read", "fresh store"])
def test_a_save_into_a_root_whose_index_is_not_utf8_is_refused_and_changes_nothing(mstore, root, warm):
    # An index that is the rendering but for one byte that is no UTF-8: no
    # decoding of it may pass for the rendering, nor be edited and written back.
    rendered = index(root).encode("utf-8")
    (root / "MEMORY.md").write_bytes(rendered.replace("\u2014 Beta".encode(), b"\xff Beta", 1))
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    store = mstore if warm else MemoryStore([MemoryRoot("explicit", root)])

    with pytest.raises(ValueError, match=r"MEMORY\.md is not UTF-8 text \(byte \d+\)"):
        store.save("delta", "Delta thing.", type="project")

    assert {p.name: p.read_bytes() for p in root.iterdir()} == before
