"""Scalars written into frontmatter read back as the strings they were made from."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from memls.store.scalars import written_name


def test_a_slug_name_is_written_raw_as_gptme_writes_it():
    assert [written_name(n) for n in ("release-freeze", "a_b.c", "123", "2026-01-01-notes")] == [
        "release-freeze", "a_b.c", "123", "2026-01-01-notes"]


def test_a_name_raw_yaml_would_read_otherwise_is_quoted():
    for name in ("a: b", "*star", "yes", "null", "x #y", "[a]"):
        assert written_name(name) != name
        assert yaml.safe_load(f"name: {written_name(name)}\n") == {"name": name}


@given(st.text(st.characters(blacklist_categories=["Cs"]), min_size=1).filter(lambda s: s.strip() == s))
def test_every_written_name_reads_back_as_the_name(name):
    """As the lenient readers take a name: the value, as a string."""
    value = yaml.safe_load(f"name: {written_name(name)}\n")["name"]
    assert str(value) == name
