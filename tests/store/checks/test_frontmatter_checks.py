"""The frontmatter family: is each file an entry, and does each field mean what it says.

Each test builds a minimal root, asserts code, severity and exact span
(0-based, end exclusive); each fix is applied through ``apply_fixes``, the
root is checked again, and the problem is gone, nothing new appeared and
the engine's audit has no issue for the file.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from memls.store.apply import apply_fixes
from memls.store.checks import audit_code_of, fixes_for
from memls.store.entry import PLACEHOLDER_DESCRIPTION
from memls.store.roots import MemoryRoot
from memls.store.spans import Span
from memls.store.store import MemoryStore

from .conftest import entry_text

FAMILY = {
    "invalid-entry", "invalid-yaml", "frontmatter-not-mapping", "invalid-field", "unknown-status",
    "missing-name", "missing-description", "unknown-key", "name-filename-mismatch",
    "unsafe-index-text", "file-too-large", "alias-expansion-too-large",
}


def only(checked, code, path=None):
    found = checked.problems(code, path)
    assert len(found) == 1, found
    return found[0]


def root_of(checked) -> Path:
    return checked.workspace.roots[0].path


def apply_and_recheck(check_root, checked, fix):
    texts = {doc.path: doc.text for doc in checked.workspace.documents()}
    apply_fixes([fix], texts, root=root_of(checked))
    return check_root({})


def assert_fixed(before, after, code, filename):
    """The problem is gone, no code got more frequent, and audit is clean for the file."""
    assert not [p for p in after.problems(code) if p.path.name == filename]
    grown = Counter(p.code for p in after.problems()) - Counter(p.code for p in before.problems())
    assert not grown, after.problems()
    issues = MemoryStore([MemoryRoot("explicit", root_of(after))]).audit()
    assert not [i for i in issues if filename in (i.entry, Path(i.entry).stem)], issues


def test_clean_entry_has_no_frontmatter_problem(check_root):
    checked = check_root({"fact.md": entry_text("fact", "a fact")})
    assert not checked.codes() & FAMILY


# -- invalid-entry ----------------------------------------------------------------


def test_file_without_frontmatter_is_invalid_entry_at_first_line(check_root):
    checked = check_root({"notes.md": "just some notes\nmore\n"})
    problem = only(checked, "invalid-entry")
    assert problem.severity == "error"
    assert problem.span == Span(0, 0, 0, len("just some notes"))
    assert "notes.md has no frontmatter" in problem.message
    assert problem.data["audit"] == ("notes.md", f"no frontmatter: {problem.path}")
    assert audit_code_of(problem) == "invalid-entry"


def test_empty_frontmatter_is_invalid_entry(check_root):
    checked = check_root({"e.md": "---\n\n---\nbody\n"})
    problem = only(checked, "invalid-entry")
    assert problem.span == Span(0, 0, 0, 3)
    assert "empty frontmatter" in problem.message


def test_file_that_is_not_utf8_is_invalid_entry(check_root, tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    (root / "bin.md").write_bytes(b"---\nname: \xff\n---\n")
    problem = only(check_root({}), "invalid-entry")
    assert problem.span == Span(0, 0, 0, 0)
    assert "cannot be read (not UTF-8 text" in problem.message
    assert problem.data["audit"][0] == "bin.md"


def test_memory_archive_without_frontmatter_is_no_problem(check_root):
    checked = check_root({"MEMORY-archive.md": "# old index\n- [a](a.md) — x\n", "a.md": entry_text("a")})
    assert not [p for p in checked.problems() if p.path.name == "MEMORY-archive.md"]


# -- invalid-yaml and frontmatter-not-mapping ------------------------------------------


def _pyyaml_marks(yaml_text: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """(problem mark, context mark) of the loader the parser uses (gptme's ``yaml.safe_load``)."""
    try:
        yaml.safe_load(yaml_text)
    except yaml.MarkedYAMLError as exc:
        problem, context = exc.problem_mark, exc.context_mark
        return (problem.line, problem.column), (context.line, context.column)
    raise AssertionError("expected a YAML error")


def test_unclosed_bracket_is_reported_from_the_bracket_to_the_end_of_its_line(check_root):
    yaml_text = "name: fact\nkeywords: [a, b\ndescription: d"
    checked = check_root({"fact.md": f"---\n{yaml_text}\n---\n"})
    problem = only(checked, "invalid-yaml")
    noticed, opened = _pyyaml_marks(yaml_text)
    assert problem.severity == "error"
    assert noticed == (2, 11) and opened == (1, 10)  # PyYAML notices it a line later
    assert problem.span == Span(2, 10, 2, len("keywords: [a, b"))
    assert "at line 3, column 11" in problem.message
    assert problem.data["audit"][0] == "fact.md"
    assert problem.data["audit"][1].startswith("invalid YAML: ")


def test_unterminated_quote_is_reported_from_the_quote_to_the_end_of_its_line(check_root):
    text = '---\nname: fact\ndescription: "日本語 🎉 abc\nkeywords: [a]\n---\n'
    problem = only(check_root({"fact.md": text}), "invalid-yaml")
    assert problem.span == Span(2, 13, 2, len('description: "日本語 🎉 abc'))
    assert "at line 3, column 14" in problem.message


def test_yaml_error_span_covers_the_offending_token(check_root):
    # "mapping values are not allowed here": the mark is on the second colon.
    checked = check_root({"fact.md": "---\nname: fact\ndescription: note: this\n---\n"})
    problem = only(checked, "invalid-yaml")
    assert problem.span == Span(2, 17, 2, 18)


def test_refused_python_tag_is_invalid_yaml_naming_the_tag(check_root):
    checked = check_root({"evil.md": '---\nname: evil\ndescription: !!python/object/apply:os.system ["true"]\n---\n'})
    problem = only(checked, "invalid-yaml")
    assert problem.span.start_line == 2
    assert problem.span.start_col == len("description: ")
    assert "tag" in problem.message and "remove the tag" in problem.message


def test_frontmatter_list_is_not_a_mapping_over_the_yaml_lines(check_root):
    checked = check_root({"list.md": "---\n- a\n- bb\n---\nbody\n"})
    problem = only(checked, "frontmatter-not-mapping")
    assert problem.severity == "error"
    assert problem.span == Span(1, 0, 2, 4)
    assert "a list, not a mapping" in problem.message
    # gptme's strict parse calls this invalid YAML.
    assert problem.data["audit"] == ("list.md", "invalid YAML: frontmatter is not a mapping")
    assert audit_code_of(problem) == "invalid-yaml"


def test_audit_data_matches_gptme_audit_for_each_broken_file(check_root):
    gptme_memory = pytest.importorskip("gptme.memory", reason="gptme is not installed")
    files = {
        "none.md": "plain text\n",
        "empty.md": "---\n\n---\n",
        "scalar.md": "---\njust a string\n---\n",
        "conf.md": entry_text("conf", extra="confidence: 2\nkeywords: [a, 1]\n"),
        "status.md": entry_text("status", extra="status: bogus\n"),
        "name.md": "---\nname: ''\ndescription: d\n---\n",
        "ok.md": entry_text("ok"),
    }
    checked = check_root(files)
    ours = sorted(
        (audit_code_of(p), *p.data["audit"]) for p in checked.problems() if "audit" in p.data
    )
    store = gptme_memory.MemoryStore([gptme_memory.MemoryRoot("explicit", root_of(checked))])
    theirs = sorted((i.code, i.entry, i.detail) for i in store.audit())
    assert ours == theirs


# -- invalid-field and unknown-status -------------------------------------------------


def test_confidence_out_of_range_points_at_its_value(check_root):
    checked = check_root({"c.md": entry_text("c", extra="confidence: 2\n")})
    problem = only(checked, "invalid-field")
    assert problem.severity == "error"
    assert problem.span == Span(5, 12, 5, 13)
    assert problem.message == "confidence 2 is outside 0..1; use a number from 0 to 1"
    assert problem.data["audit"] == ("c.md", "invalid confidence: expected 0..1")


def test_only_the_first_strict_problem_carries_the_audit_issue(check_root):
    checked = check_root({"c.md": entry_text("c", extra="confidence: 2\nkeywords: [a, 1]\n")})
    problems = checked.problems("invalid-field")
    assert [p.span.start_line for p in problems] == [5, 6]
    assert "audit" in problems[0].data and "audit" not in problems[1].data
    assert problems[1].message == "keywords item 1 is a number, not text; quote it"
    assert problems[1].span == Span(6, 10, 6, 16)


def test_unquoted_date_in_a_text_field_says_to_quote_it(check_root):
    checked = check_root({"r.md": entry_text("r", extra="recheck: 2031-01-01\n")})
    problem = only(checked, "invalid-field")
    assert problem.message == "recheck 2031-01-01 is a date, not text; quote it"
    assert problem.span == Span(5, 9, 5, 19)


def test_wrong_type_under_metadata_points_at_the_nested_value(check_root):
    checked = check_root({"t.md": "---\nname: t\ndescription: d\nmetadata:\n  type: 42\n---\n"})
    problem = only(checked, "invalid-field")
    assert problem.span == Span(4, 8, 4, 10)
    assert problem.message == "type 42 is a number, not text; quote it"


def test_empty_name_is_invalid_field_at_the_value(check_root):
    checked = check_root({"n.md": "---\nname: ''\ndescription: d\n---\n"})
    problem = only(checked, "invalid-field")
    assert problem.span == Span(1, 6, 1, 8)
    assert problem.message == "name is empty; give the entry a name"


def test_unknown_status_is_its_own_code_at_the_value(check_root):
    checked = check_root({"s.md": entry_text("s", extra="status: bogus\n")})
    problem = only(checked, "unknown-status")
    assert problem.severity == "error"
    assert problem.span == Span(5, 8, 5, 13)
    assert "status 'bogus' is not one of living, superseded, historical" in problem.message
    assert not checked.problems("invalid-field")
    assert audit_code_of(problem) == "invalid-yaml"


def test_status_that_is_not_text_is_invalid_field(check_root):
    checked = check_root({"s.md": entry_text("s", extra="status: false\n")})
    assert only(checked, "invalid-field").span == Span(5, 8, 5, 13)
    assert not checked.problems("unknown-status")


def test_unknown_status_offers_three_unsafe_fixes(check_root):
    checked = check_root({"s.md": entry_text("s", extra="status: bogus\n")})
    fixes = fixes_for(checked.ctx, only(checked, "unknown-status"))
    assert [f.title for f in fixes] == [
        "Set status to living", "Set status to superseded", "Set status to historical",
    ]
    assert not any(f.safe for f in fixes)


def test_setting_status_to_living_fixes_unknown_status(check_root):
    before = check_root({"s.md": entry_text("s", extra="status: bogus\n")})
    fix = fixes_for(before.ctx, only(before, "unknown-status"))[0]
    after = apply_and_recheck(check_root, before, fix)
    assert_fixed(before, after, "unknown-status", "s.md")
    assert "status: living\n" in (root_of(after) / "s.md").read_text()


# -- missing-name ---------------------------------------------------------------------


def test_missing_name_points_at_first_line(check_root):
    checked = check_root({"fact.md": '---\ndescription: "d"\n---\n'})
    problem = only(checked, "missing-name")
    assert problem.severity == "warning"
    assert problem.span == Span(0, 0, 0, 3)
    assert "add 'name: fact'" in problem.message


def test_missing_name_fix_inserts_the_stem_as_first_key(check_root):
    before = check_root({"fact.md": '---\ndescription: "d"\n---\n'})
    [fix] = fixes_for(before.ctx, only(before, "missing-name"))
    assert fix.safe
    after = apply_and_recheck(check_root, before, fix)
    assert_fixed(before, after, "missing-name", "fact.md")
    assert (root_of(after) / "fact.md").read_text() == '---\nname: fact\ndescription: "d"\n---\n'


# -- missing-description ----------------------------------------------------------------


def test_absent_description_points_at_the_name_value(check_root):
    checked = check_root({"fact.md": "---\nname: fact\n---\n"})
    problem = only(checked, "missing-description")
    assert problem.severity == "warning"
    assert problem.span == Span(1, 6, 1, 10)
    assert "'fact' has no description" in problem.message


def test_placeholder_description_is_reported_as_missing_at_its_value(check_root):
    checked = check_root({"fact.md": f'---\nname: fact\ndescription: "{PLACEHOLDER_DESCRIPTION}"\n---\n'})
    problem = only(checked, "missing-description")
    assert problem.span.start_line == 2 and "placeholder" in problem.message


def test_blank_description_points_at_its_value(check_root):
    checked = check_root({"fact.md": '---\nname: fact\ndescription: "  "\n---\n'})
    assert only(checked, "missing-description").span == Span(2, 13, 2, 17)


def test_null_description_points_at_its_key(check_root):
    checked = check_root({"fact.md": "---\nname: fact\ndescription:\n---\n"})
    assert only(checked, "missing-description").span == Span(2, 0, 2, 11)


# -- unknown-key ------------------------------------------------------------------------


def test_unknown_key_is_a_hint_at_the_key(check_root):
    checked = check_root({"fact.md": entry_text("fact", extra="descripton: typo\n")})
    problem = only(checked, "unknown-key")
    assert problem.severity == "hint"
    assert problem.span == Span(5, 0, 5, 10)
    assert "unknown key 'descripton'" in problem.message


def test_known_keys_are_not_unknown(check_root):
    extra = "status: living\nkeywords: [a]\nrecheck: '2099-01-01'\ntitle: T\nconfidence: 0.5\n"
    checked = check_root({"fact.md": entry_text("fact", extra=extra)})
    assert not checked.problems("unknown-key")


# -- name-filename-mismatch ---------------------------------------------------------------


def test_name_whose_slug_is_not_the_stem_is_a_mismatch_at_the_name(check_root):
    checked = check_root({"old.md": entry_text("new-name")})
    problem = only(checked, "name-filename-mismatch")
    assert problem.severity == "warning"
    assert problem.span == Span(1, 6, 1, 14)
    assert "new-name.md, not old.md" in problem.message


def test_name_in_words_matching_its_slug_is_no_mismatch(check_root):
    checked = check_root({"my-fact.md": entry_text("My Fact")})
    assert not checked.problems("name-filename-mismatch")


def test_mismatch_offers_file_rename_and_name_change_neither_safe(check_root):
    checked = check_root({"old.md": entry_text("new-name")})
    fixes = fixes_for(checked.ctx, only(checked, "name-filename-mismatch"))
    assert [f.title for f in fixes] == ["Rename the file to new-name.md", "Set name to 'old'"]
    assert not any(f.safe for f in fixes)


def test_renaming_the_file_fixes_the_mismatch_and_keeps_links(check_root):
    files = {
        "old.md": entry_text("new-name", extra="status: superseded\nsuperseded_by: b\n"),
        "b.md": entry_text("b", extra="supersedes:\n- new-name\n"),
    }
    before = check_root(files)
    fix = fixes_for(before.ctx, only(before, "name-filename-mismatch"))[0]
    after = apply_and_recheck(check_root, before, fix)
    assert_fixed(before, after, "name-filename-mismatch", "new-name.md")
    assert not (root_of(after) / "old.md").exists()
    assert (root_of(after) / "b.md").read_text() == files["b.md"]


def test_setting_the_name_to_the_stem_fixes_the_mismatch_and_relinks(check_root):
    files = {
        "old.md": entry_text("new-name", extra="status: superseded\nsuperseded_by: b\n"),
        "b.md": entry_text("b", extra="supersedes:\n- new-name  # the old one\n"),
    }
    before = check_root(files)
    fix = fixes_for(before.ctx, only(before, "name-filename-mismatch"))[1]
    after = apply_and_recheck(check_root, before, fix)
    assert_fixed(before, after, "name-filename-mismatch", "old.md")
    assert "- old  # the old one\n" in (root_of(after) / "b.md").read_text()


# -- unsafe-index-text -------------------------------------------------------------------


def test_description_with_a_line_break_is_unsafe_at_its_value(check_root):
    checked = check_root({"fact.md": "---\nname: fact\ndescription: |\n  one\n  two\n---\n"})
    problem = only(checked, "unsafe-index-text")
    assert problem.severity == "warning"
    assert problem.span == Span(2, 13, 4, 5)
    assert "description contains a line break" in problem.message


def test_folding_the_description_fixes_unsafe_index_text(check_root):
    before = check_root({"fact.md": "---\nname: fact\ndescription: |\n  one\n  two\n---\n"})
    [fix] = fixes_for(before.ctx, only(before, "unsafe-index-text"))
    assert fix.safe
    after = apply_and_recheck(check_root, before, fix)
    assert_fixed(before, after, "unsafe-index-text", "fact.md")
    assert after.workspace.entries_named("fact")[0].entry.description == "one two"


def test_title_with_a_bracket_is_unsafe_and_has_no_fix(check_root):
    checked = check_root({"fact.md": entry_text("fact", extra="title: 'a] b'\n")})
    problem = only(checked, "unsafe-index-text")
    assert problem.span == Span(5, 7, 5, 13)
    assert "']'" in problem.message
    assert fixes_for(checked.ctx, problem) == []


def test_bracket_in_name_is_unsafe_only_when_the_name_is_the_link_text(check_root):
    untitled = check_root({"a-b.md": entry_text("a]b")})
    assert only(untitled, "unsafe-index-text").span == Span(1, 6, 1, 9)
    titled = check_root({"a-b.md": entry_text("a]b", extra="title: Fine\n")})
    assert not titled.problems("unsafe-index-text")


# -- file-too-large -----------------------------------------------------------------------


def test_file_over_the_read_limit_is_reported_not_parsed(check_root):
    checked = check_root({"big.md": entry_text("big", body="x" * (1024 * 1024 + 1))})
    problem = only(checked, "file-too-large")
    assert problem.severity == "error"
    assert problem.span == Span(0, 0, 0, 0)
    assert problem.data["audit"] == ("big.md", "larger than 1048576 bytes; not read")
    assert audit_code_of(problem) == "invalid-entry"
    assert not checked.problems("invalid-entry")


@pytest.mark.parametrize("written, reason", [
    ('"two\\nlines"', "a line break"),
    ('"nul\\0byte"', "a NUL character"),
    ("'a[b'", "'[' or ']'"),
])
def test_name_that_would_break_its_index_line_is_unsafe_index_text(check_root, written, reason):
    text = f"---\nname: {written}\ndescription: d\nmetadata:\n  type: project\n---\n"
    checked = check_root({"odd.md": text})
    problem = only(checked, "unsafe-index-text")
    assert problem.data["field"] == "name" and reason in problem.message
    assert problem.span == Span(1, 6, 1, 6 + len(written))


def test_joining_a_name_into_one_line_is_offered_but_never_safe(check_root):
    checked = check_root({"odd.md": '---\nname: "two\\nlines"\ndescription: d\n---\n'})
    [fix] = fixes_for(checked.ctx, only(checked, "unsafe-index-text"))
    assert fix.title == "Join name into one line" and not fix.safe


def test_name_bracket_is_fine_when_a_title_is_the_link_text(check_root):
    checked = check_root({"a-b.md": entry_text("a[b", extra="title: Fine\n")})
    assert not checked.problems("unsafe-index-text")


# -- alias-expansion-too-large --------------------------------------------------------------


def billion_laughs(levels: int = 8, width: int = 10) -> str:
    """``a0`` .. ``a{levels-1}``, each ``width`` aliases of the one before: width**levels values."""
    lines = ['a0: &a0 "lol"']
    lines += [f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(width))}]" for i in range(1, levels)]
    return "\n".join(lines)


def test_alias_bomb_under_metadata_is_reported_at_its_key_and_left_unread(check_root):
    text = (f"---\nname: meta\ndescription: d\n{billion_laughs()}\n"
            "metadata:\n  type: project\n  nested: *a7\n---\n")
    checked = check_root({"meta.md": text})
    nested = [p for p in checked.problems("alias-expansion-too-large") if "metadata.nested" in p.message]
    assert len(nested) == 1 and nested[0].severity == "error"
    line = text.split("\n").index("  nested: *a7")
    assert nested[0].span == Span(line, 2, line, 8)
    entry = checked.workspace.entries_named("meta")[0].entry
    assert entry.type == "project" and "nested" not in entry.metadata
    assert audit_code_of(nested[0]) is None  # gptme's audit reads the file: no audit issue


def test_a_value_that_contains_itself_is_alias_expansion_too_large(check_root):
    checked = check_root({"loop.md": "---\nname: loop\ndescription: d\nself: &s [*s]\n---\n"})
    problem = only(checked, "alias-expansion-too-large")
    assert "self contains itself" in problem.message and problem.span == Span(3, 0, 3, 4)
    assert checked.workspace.entries_named("loop")[0].entry.extra == {}


def test_a_few_anchors_within_the_budget_are_read_as_written(check_root):
    text = "---\nname: fine\ndescription: d\nbase: &b {x: 1, y: [1, 2]}\ncopy: *b\n---\n"
    checked = check_root({"fine.md": text})
    assert not checked.problems("alias-expansion-too-large")
    assert checked.workspace.entries_named("fine")[0].entry.extra["copy"] == {"x": 1, "y": [1, 2]}


# -- unreadable entries ---------------------------------------------------------------------


@pytest.mark.parametrize("make, detail", [
    (lambda p: p.symlink_to(p.parent / "nowhere.md"), "No such file or directory"),
    (lambda p: p.symlink_to(p), "Too many levels of symbolic links"),
    (lambda p: p.mkdir(), "Is a directory"),
])
def test_an_entry_name_no_reader_can_open_is_invalid_entry(check_root, tmp_path, make, detail):
    checked = check_root({"fine.md": entry_text("fine")})
    make(root_of(checked) / "odd.md")
    checked = check_root({})
    problem = only(checked, "invalid-entry")
    assert problem.path.name == "odd.md" and detail in problem.message
    assert problem.data["audit"] == ("odd.md", f"{problem.data['audit'][1]}")
    assert detail in problem.data["audit"][1] and audit_code_of(problem) == "invalid-entry"


def test_unsafe_index_text_sees_every_break_that_save_folds(check_root):
    # U+2028 is a line break for YAML and editors; `save` folds it, so the check flags it.
    text = '---\nname: sep\ndescription: "one\\u2028two"\nmetadata:\n  type: project\n---\n'
    checked = check_root({"sep.md": text})
    assert [p.code for p in checked.problems("unsafe-index-text")] == ["unsafe-index-text"]
    from memls.store.store import single_line

    assert single_line("one\u2028two", "description") == "one two"


# -- messages say what the file says, in words --------------------------------------------------

_REPEATED_WORD = re.compile(r"\b(\w+) \1\b")


@pytest.mark.parametrize("key", ["status", "supersedes", "superseded_by", "keywords", "title",
                                 "description", "confidence", "recheck", "metadata", "provenance"])
@pytest.mark.parametrize("value", ["", " ~", " null", " [a, ~]", "\n  - \n  - b", " !!binary aGk=", " 42",
                                   " {a: 1}", " true"])
def test_field_messages_neither_repeat_words_nor_show_python_values(check_root, key, value):
    checked = check_root({"a.md": f"---\nname: a\ndescription: d\n{key}:{value}\n---\n"} if key != "description"
                         else {"a.md": f"---\nname: a\ndescription:{value}\n---\n"})
    for problem in checked.problems():
        assert not _REPEATED_WORD.search(problem.message), problem.message
        assert "None" not in problem.message and "{}" not in problem.message, problem.message
        assert "bytes" not in problem.message, problem.message


def test_empty_status_message_names_the_key_once(check_root):
    problem = only(check_root({"a.md": "---\nname: a\ndescription: d\nstatus:\n---\n"}), "invalid-field")
    assert problem.message == "status is empty, not one of living, superseded, historical; set one of them"


@pytest.mark.parametrize(("stem", "slug"), [("a\u2028b", "a-b"), ("a\x85b", "a-b"), ("[x]", "x")])
def test_missing_name_fix_never_writes_a_stem_no_index_line_can_hold(check_root, stem, slug):
    # The stem as a name would be an entry whose MEMORY.md line is left out; its
    # slug renames the entry, so that fix is offered but never applied unasked.
    before = check_root({f"{stem}.md": '---\ndescription: "d"\n---\n'})
    problem = only(before, "missing-name")
    assert f"add 'name: {slug}'" in problem.message
    [fix] = fixes_for(before.ctx, problem)
    assert fix.title == f"Add 'name: {slug}'" and not fix.safe
    after = apply_and_recheck(check_root, before, fix)
    assert (root_of(after) / f"{stem}.md").read_text() == f'---\nname: {slug}\ndescription: "d"\n---\n'
    assert not after.problems("unsafe-index-text")


@pytest.mark.parametrize("type_lines", ['type: "a\\u2028b"\n', 'metadata:\n  type: "x\\ud835"\n'])
def test_a_type_no_index_heading_can_hold_is_reported_where_it_is_written_without_a_fix(check_root, type_lines):
    checked = check_root({"a.md": f'---\nname: a\ndescription: d\n{type_lines}---\n'})
    problem = only(checked, "unsafe-index-text")
    assert problem.message.startswith("type contains ")
    assert "writes it no line (one MEMORY.md already holds is kept)" in problem.message
    assert problem.span.start_line == len(type_lines.splitlines()) + 2
    assert fixes_for(checked.ctx, problem) == []
