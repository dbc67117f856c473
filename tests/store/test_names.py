"""Names: gptme-identical slugs, Unicode-preserving slugs, the reserved namespace."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.errors import ReservedNameError
from memls.store.names import (
    check_name,
    document_filenames,
    gptme_slugify,
    is_document_filename,
    is_index_filename,
    is_reserved_name,
    slugify,
)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("My Cool Fact!", "my-cool-fact"),
        ("a_b.c", "a-b-c"),
        ("Ünïcödé", "n-c-d"),
        ("  spaced  out  ", "spaced-out"),
        ("", "memory"),
        ("!!!", "memory"),
    ],
)
def test_slugify_matches_gptme_examples(name, slug):
    assert slugify(name) == slug


def test_all_non_ascii_name_keeps_its_letters_instead_of_collapsing_to_memory():
    assert gptme_slugify("日本語") == "memory"
    assert slugify("日本語") == "日本語"
    assert slugify("Привет мир") == "привет-мир"


@settings(max_examples=300)
@given(st.text())
def test_slugify_equals_gptme_wherever_gptmes_slug_is_usable(name):
    theirs = gptme_slugify(name)
    if theirs != "memory" or name.strip().lower().strip("-_ !.") == "memory":
        assert slugify(name) == theirs


@pytest.mark.parametrize("name", ["memory", "MEMORY", "memory archive", "Memory notes", "memory-foo", "!!!", ""])
def test_check_name_refuses_names_the_readers_would_skip(name):
    with pytest.raises(ValueError) as err:
        check_name(name)
    assert "reserved for memory indexes" in str(err.value) or "non-empty" in str(err.value)


@pytest.mark.parametrize("name", ["memories", "memo-ry", "my-memory", "日本語"])
def test_check_name_accepts_names_outside_the_reserved_prefix(name):
    assert check_name(name) == slugify(name)
    assert not is_reserved_name(name)


@pytest.mark.parametrize("name", ["2026", "yes", "null", "0x1f", "2026-01-01"])
def test_check_name_refuses_names_that_yaml_reads_back_as_another_type(name):
    with pytest.raises(ReservedNameError, match="read back as a YAML"):
        check_name(name)


@pytest.mark.parametrize(
    ("name", "slug"),
    [("a/b", "a-b"), ("../up", "up"), ("..\\..\\etc", "etc"), ("nul\x00l", "nul-l"), ("esc\x1b[0m", "esc-0m")],
)
def test_names_with_separators_or_controls_become_slugs_that_stay_in_the_root(name, slug):
    assert check_name(name) == slug
    assert "/" not in slug and "\\" not in slug and ".." not in slug


@pytest.mark.parametrize("filename", ["MEMORY.md", "memory.md", "MEMORY-archive.md", "Memory-notes.md"])
def test_index_filenames_are_recognised_in_any_case(filename):
    assert is_index_filename(filename)


@given(st.one_of(
    st.text(max_size=12),
    st.builds(lambda stem, dot: ("." if dot else "") + stem + ".md", st.text(max_size=8), st.booleans()),
    st.sampled_from(["MEMORY.md", ".memory-index.json", "memory-x.md", ".MEMORY.md", "a.MD", ".md"]),
))
def test_is_document_filename_says_whether_document_kind_has_a_kind(filename: str) -> None:
    from memls.store.names import document_kind, is_document_filename

    assert is_document_filename(filename) == (document_kind(filename) is not None)


@given(st.lists(st.one_of(st.sampled_from(["MEMORY.md", ".memory-index.json", ".hidden.md", "a.md", "a.MD",
                                           "notes.txt", ".md", "memory-index.json", "x.md~"]),
                          st.text(max_size=12).map(lambda s: s + ".md"), st.text(max_size=12))))
def test_document_filenames_keeps_exactly_the_names_is_document_filename_accepts(filenames: list[str]) -> None:
    assert document_filenames(filenames) == [f for f in filenames if is_document_filename(f)]


def test_only_m_and_capital_m_upper_case_to_a_string_starting_with_m() -> None:
    """What lets the entry filter upper-case only the names starting with ``m`` or ``M``."""
    import sys

    starts_with_m = [c for c in map(chr, range(sys.maxunicode + 1)) if c.upper()[:1] == "M"]
    assert starts_with_m == ["M", "m"]


@given(st.lists(st.one_of(
    st.sampled_from(["MEMORY.md", "memory.md", "Memory-notes.md", "mEmOrY.md", "memo.md", "m.md", "M.md",
                     ".memory.md", ".hidden.md", "a.md", "a.MD", ".md", "x.md~", "ﬀmemory.md", "ß.md"]),
    st.text(max_size=12).map(lambda s: s + ".md"),
    st.text(alphabet="mMeEoOrRyY.d-ıİ", max_size=10),
    st.text(max_size=12),
)))
def test_entry_filenames_keeps_exactly_the_md_names_that_are_neither_dot_files_nor_reserved(
    filenames: list[str],
) -> None:
    from memls.store.reader import entry_filenames

    assert entry_filenames(filenames) == [
        f for f in filenames if f.endswith(".md") and not f.startswith(".") and not is_index_filename(f)
    ]


def test_counting_entry_filenames_agrees_with_document_kind():
    """The count a replayed start reports before reading anything (memls.store.warm_start)."""
    from memls.store.names import count_entry_filenames, document_filenames, document_kind

    names = ["a.md", "MEMORY.md", "memory-archive.md", "Memory.md", "MEMORYx.md", ".hidden.md",
             ".memory-index.json", "notes.txt", "b.MD", "c.md.bak", "memo.md", "ém.md", "x.markdown"]
    kept = document_filenames(names)
    assert count_entry_filenames(kept) == sum(document_kind(n) == "entry" for n in kept) == 3
