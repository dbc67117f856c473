"""A write that renders a generated MEMORY.md whole keeps the line of a memory it cannot list.

A half-written file, bytes that are not UTF-8, a frontmatter deleted by hand,
an emptied file, a link whose target went away, or a typo that puts a bracket
in the name (YAML broken or not, the line would break the index): no
rendering lists the entry, ``check`` reports it, and the memory is still
there to repair. The index line is the agent's only pointer to it, so no
write takes it away; once the file reads again its rendered line takes the
kept line's place.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from memls.store.index import IndexPolicy, parse_index_lines
from memls.store.roots import MemoryRoot
from memls.store.store import MemoryStore
from memls.store.unlisted_lines import keep_unlisted_lines, renders_keeping_unlisted

from .test_index_lagging_rendering import a_new_process, clock  # noqa: F401 - the fixture settles every file

BREAKERS: dict[str, Callable[[Path], None]] = {
    "not-utf8": lambda p: p.write_bytes(b"---\nname: beta\ndescription: \xff\xfe\n---\nbody\n"),
    "no-frontmatter": lambda p: p.write_text("the frontmatter was deleted\n", encoding="utf-8"),
    "empty": lambda p: p.write_text("", encoding="utf-8"),
    "broken-symlink": lambda p: (p.unlink(), os.symlink(p.parent / "gone" / "beta.md", p)),
    # gptme's line fallback reads the name ``[beta`` of this broken YAML.
    "bracket-breaks-yaml": lambda p: p.write_text(
        p.read_text(encoding="utf-8").replace("name: beta", "name: [beta"), encoding="utf-8"),
    "bracket-in-name": lambda p: p.write_text(
        p.read_text(encoding="utf-8").replace("name: beta", 'name: "beta]"'), encoding="utf-8"),
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
    assert keep_unlisted_lines(current, RENDERED, ["beta.md"]) == current


def test_a_kept_line_whose_section_is_gone_gets_its_heading_back_before_the_omission_line() -> None:
    current = RENDERED + "\n## Reference\n- [docs](docs.md) \u2014 D\n"
    budgeted = RENDERED + "\n- \u2026 2 more entries omitted (budget 900 bytes)\n"
    assert keep_unlisted_lines(current, budgeted, ["docs.md"]) == (
        RENDERED + "\n## Reference\n- [docs](docs.md) \u2014 D\n\n- \u2026 2 more entries omitted (budget 900 bytes)\n")


def test_only_lines_of_unreadable_files_missing_from_the_rendering_are_kept() -> None:
    current = RENDERED.replace("- [gamma]", "- [beta](beta.md) \u2014 B\n- [gamma]")
    assert keep_unlisted_lines(current, RENDERED, ["other.md"]) == RENDERED
    assert keep_unlisted_lines(current, RENDERED, []) == RENDERED
    assert keep_unlisted_lines(None, RENDERED, ["beta.md"]) == RENDERED
    rendered_with_beta = RENDERED.replace("- [gamma]", "- [beta](beta.md) \u2014 new\n- [gamma]")
    assert keep_unlisted_lines(current, rendered_with_beta, ["beta.md"]) == rendered_with_beta


def test_a_generated_index_holding_a_kept_line_is_still_rendered_whole_by_a_tool_that_did_not_write_it(
        tmp_path: Path) -> None:
    # Another tool rewrote the same bytes: only the text says the index is generated.
    root = tmp_path / "memory"
    store = generated_root(root)
    BREAKERS["empty"](root / "beta.md")
    store.save("alpha", "Alpha, saved again.", type="project")
    index = root / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8"), encoding="utf-8")
    MemoryStore([MemoryRoot("explicit", root)]).save("aaron", "Aaron thing.", type="project")
    assert pointer_targets(root) == ["tz.md", "aaron.md", "alpha.md", "beta.md", "gamma.md"]


def test_a_managed_view_keeps_the_line_of_a_selected_entry_only(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = generated_root(root)
    store.save("beta", "Beta thing.", type="project", title="beta")
    (root / ".memory-index.json").write_text(
        '{"version": 1, "budget": 4000, "selected": ["alpha.md", "beta.md"]}\n', encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "# Persistent Memory\n\n## Project\n- [alpha](alpha.md) \u2014 Alpha thing.\n"
        "- [beta](beta.md) \u2014 Beta thing.\n- [gamma](gamma.md) \u2014 Gamma thing.\n", encoding="utf-8")
    # beta's title breaks its line (kept: the policy selects it); gamma turns unreadable (unselected: not kept).
    (root / "beta.md").write_text((root / "beta.md").read_text(encoding="utf-8").replace(
        "title: beta", 'title: "be[ta"'), encoding="utf-8")
    BREAKERS["empty"](root / "gamma.md")
    a_new_process(root).save("alpha", "Alpha, saved again.", type="project")
    assert pointer_targets(root) == ["alpha.md", "beta.md"]


def test_a_kept_line_sorts_by_its_link_text_the_name_a_rendering_sorts_by() -> None:
    rendered = "# Persistent Memory\n\n## Project\n- [bob](b.md) \u2014 B\n- [zulu](a.md) \u2014 Z\n"
    current = rendered.replace("- [bob]", "- [aaa](c.md) \u2014 A\n- [bob]")
    assert keep_unlisted_lines(current, rendered, ["c.md"]) == current


def test_a_kept_line_whose_section_is_gone_gets_it_back_in_the_rendering_s_type_order() -> None:
    current = "# Persistent Memory\n\n## User\n- [tz](tz.md) \u2014 T\n\n## Feedback\n- [fb](fb.md) \u2014 F\n" \
        + RENDERED.split("## User\n- [tz](tz.md) \u2014 T\n", 1)[1]
    assert keep_unlisted_lines(current, RENDERED, ["fb.md"]) == current


def test_a_managed_view_keeps_no_line_of_a_file_its_policy_does_not_select() -> None:
    current = RENDERED.replace("- [gamma]", "- [beta](beta.md) \u2014 B\n- [gamma]")
    def selecting(*files: str) -> IndexPolicy:
        return IndexPolicy(version=1, budget=4000, selected=files)

    assert keep_unlisted_lines(current, RENDERED, ["beta.md"], policy=selecting("alpha.md")) == RENDERED
    assert keep_unlisted_lines(current, RENDERED, ["beta.md"], policy=selecting("beta.md")) == current


def test_an_index_holding_a_kept_line_and_a_line_a_person_wrote_is_curated(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = generated_root(root)
    BREAKERS["empty"](root / "beta.md")
    store.save("alpha", "Alpha, saved again.", type="project")  # beta's line kept: still generated
    index = root / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nAsk Sam before editing.\n", encoding="utf-8")
    a_new_process(root).save("aaron", "Aaron thing.", type="project")
    text = index.read_text(encoding="utf-8")
    assert "Ask Sam before editing." in text and "- [beta](beta.md) \u2014 Beta thing." in text
    assert text.endswith("- [aaron](aaron.md) \u2014 Aaron thing.\n")  # curated: the new line appended


_RENDERED = [  # a rendering's lines, in order: any subsequence is one a root may render
    "# Persistent Memory", "", "## User", "- [tz](tz.md) \u2014 Works from Stockholm.", "",
    "## Project", "- [alpha](alpha.md) \u2014 Alpha thing.", "- [beta](beta.md) \u2014 Beta thing.",
    "- [gamma](gamma.md) \u2014 Gamma thing.", "", "## Reference", "- [zz](zz.md) \u2014 Last.",
]
_EXTRA = ["- [beta](beta.md) \u2014 Beta thing.", "- [old](old.md) \u2014 Kept.", "- [zeta](zeta.md)",
          "a line a person wrote", "", "## Notes", "- [tz](tz.md) \u2014 Elsewhere."]


def _kept_by_plain_walk(text: str, rendering: str, unlisted: set[str]) -> bool:
    """renders_keeping_unlisted's meaning, spelled out: every rendered line in order, the rest pointer lines to unlisted files, as kept."""
    ours, theirs, at, targets = text.split("\n"), rendering.split("\n"), 0, set()
    for line in ours:
        if at < len(theirs) and line == theirs[at]:
            at += 1
        elif (links := parse_index_lines(line)) and len(links) == 1 and links[0].line == 0:
            targets.add(links[0].target)
        else:
            return False
    return (at == len(theirs) and len(ours) > len(theirs) and targets <= unlisted
            and keep_unlisted_lines(text, rendering, unlisted) == text)


@settings(max_examples=400, deadline=None)
@given(
    rendered=st.sets(st.integers(0, len(_RENDERED) - 1), min_size=1).map(lambda at: [_RENDERED[n] for n in sorted(at)]),
    edits=st.lists(st.tuples(st.integers(0, 20), st.sampled_from(["insert", "drop", "swap"]),
                             st.sampled_from(_EXTRA)), max_size=4),
    unlisted=st.sets(st.sampled_from(["beta.md", "old.md", "zeta.md", "tz.md"])),
    ends_with_break=st.booleans(),
    kept=st.none() | st.integers(0, 20),
    lead=st.sampled_from([0, 3000]),
)
def test_an_index_is_the_rendering_plus_kept_lines_exactly_when_a_plain_line_walk_says_so(
    rendered: list[str], edits: list[tuple[int, str, str]], unlisted: set[str], ends_with_break: bool,
    kept: int | None, lead: int,
) -> None:
    """The fast walk (from where the two part, giving up past the spare lines) answers as the plain one.

    ``kept`` (a line number): the index is what a write keeping the edited
    index's lines would make of it, with a line to an unlisted file put
    there first, so the answer is yes about as often as it is no. ``lead``
    lines shared at the top take the walk past its first comparisons.
    """
    rendered = [f"<!-- {n} -->" for n in range(lead)] + rendered
    lines = list(rendered)
    for at, kind, line in edits:
        at %= len(lines) + 1
        if kind == "insert":
            lines.insert(at, line)
        elif kind == "drop" and at < len(lines):
            del lines[at]
        elif at < len(lines):
            lines[at] = line
    tail = "\n" if ends_with_break else ""
    rendering, text = "\n".join(rendered) + tail, "\n".join(lines) + tail
    if kept is not None:
        lines.insert(kept % (len(lines) + 1), "- [old](old.md) \u2014 Kept.")
        unlisted |= {"old.md", "zeta.md"}
        text = keep_unlisted_lines("\n".join(lines) + tail, rendering, unlisted)
    expected = _kept_by_plain_walk(text, rendering, unlisted)
    event(f"rendering plus kept lines: {expected}")
    assert renders_keeping_unlisted(text, rendering, unlisted) == expected
