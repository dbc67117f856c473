"""A write that renders a generated MEMORY.md whole keeps the line of an entry that turned unreadable.

A half-written file, bytes that are not UTF-8, a frontmatter deleted by hand,
an emptied file or a link whose target went away: no reader reads the entry,
``check`` reports it, and the memory is still there to repair. The index line
is the agent's only pointer to it, so no write takes it away; once the file
reads again its rendered line takes the kept line's place.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memls.store.index import parse_index_lines
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore
from memls.store.unreadable_lines import keep_unreadable_lines

from .test_index_lagging_rendering import a_new_process, clock  # noqa: F401 - the fixture settles every file

BREAKERS: dict[str, Callable[[Path], None]] = {
    "not-utf8": lambda p: p.write_bytes(b"---\nname: beta\ndescription: \xff\xfe\n---\nbody\n"),
    "no-frontmatter": lambda p: p.write_text("the frontmatter was deleted\n", encoding="utf-8"),
    "empty": lambda p: p.write_text("", encoding="utf-8"),
    "broken-symlink": lambda p: (p.unlink(), os.symlink(p.parent / "gone" / "beta.md", p)),
}


def generated_root(root: Path) -> MemoryStore:
    store = MemoryStore([MemoryRoot("explicit", root)])
    store.save("alpha", "Alpha thing.", type="project")
    store.save("beta", "Beta thing.", type="project")
    store.save("gamma", "Gamma thing.", type="project")
    store.save("tz", "Works from Stockholm.", type="user")
    store.write_index()
    return store


def pointer_targets(root: Path) -> list[str]:
    return [link.target for link in parse_index_lines((root / "MEMORY.md").read_text(encoding="utf-8"))]


@pytest.mark.parametrize("long_lived", [True, False], ids=["same-store", "new-process"])
@pytest.mark.parametrize("breaker", list(BREAKERS))
def test_a_save_rendering_the_index_whole_keeps_the_line_of_an_entry_that_turned_unreadable(
    tmp_path: Path, breaker: str, long_lived: bool
) -> None:
    root = tmp_path / "memory"
    first = generated_root(root)
    BREAKERS[breaker](root / "beta.md")
    store = first if long_lived else a_new_process(root)
    store.save("alpha", "Alpha, saved again.", type="project")
    store.save("delta", "Delta thing.", type="project")
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [beta](beta.md) \u2014 Beta thing." in index.splitlines()
    assert "Alpha, saved again." in index
    # Still rendered: the saved entries' lines sit in their section, in order.
    assert pointer_targets(root) == ["tz.md", "alpha.md", "beta.md", "delta.md", "gamma.md"]


def test_once_the_entry_reads_again_its_rendered_line_replaces_the_kept_one(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = generated_root(root)
    BREAKERS["not-utf8"](root / "beta.md")
    store.save("alpha", "Alpha, saved again.", type="project")
    (root / "beta.md").unlink()
    store.save("beta", "Beta, repaired.", type="project")
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert index == store.render_root_index()
    assert "Beta thing." not in index


def test_a_deleted_entry_loses_its_line_as_before(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = generated_root(root)
    (root / "beta.md").unlink()
    store.save("alpha", "Alpha, saved again.", type="project")
    assert "beta.md" not in pointer_targets(root)


RENDERED = ("# Persistent Memory\n\n## User\n- [tz](tz.md) \u2014 T\n\n## Project\n"
            "- [alpha](alpha.md) \u2014 A\n- [gamma](gamma.md) \u2014 G\n")


def test_a_kept_line_goes_under_its_heading_in_name_order() -> None:
    current = RENDERED.replace("- [gamma]", "- [beta](beta.md) \u2014 B\n- [gamma]")
    assert keep_unreadable_lines(current, RENDERED, ["beta.md"]) == current


def test_a_kept_line_whose_section_is_gone_gets_its_heading_back_before_the_omission_line() -> None:
    current = RENDERED + "\n## Reference\n- [docs](docs.md) \u2014 D\n"
    budgeted = RENDERED + "\n- \u2026 2 more entries omitted (budget 900 bytes)\n"
    assert keep_unreadable_lines(current, budgeted, ["docs.md"]) == (
        RENDERED + "\n## Reference\n- [docs](docs.md) \u2014 D\n\n- \u2026 2 more entries omitted (budget 900 bytes)\n")


def test_only_lines_of_unreadable_files_missing_from_the_rendering_are_kept() -> None:
    current = RENDERED.replace("- [gamma]", "- [beta](beta.md) \u2014 B\n- [gamma]")
    assert keep_unreadable_lines(current, RENDERED, ["other.md"]) == RENDERED
    assert keep_unreadable_lines(current, RENDERED, []) == RENDERED
    assert keep_unreadable_lines(None, RENDERED, ["beta.md"]) == RENDERED
    rendered_with_beta = RENDERED.replace("- [gamma]", "- [beta](beta.md) \u2014 new\n- [gamma]")
    assert keep_unreadable_lines(current, rendered_with_beta, ["beta.md"]) == rendered_with_beta
