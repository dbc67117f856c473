"""Hover: the entry a link lands on (with its chain), or what a frontmatter key means."""

from __future__ import annotations

from memls.store.hover import hover
from memls.store.spans import Span

from .conftest import at, edited


def test_hover_on_link_shows_title_description_type_status_and_chain(ws, root):
    info = hover(ws, root / "a.md", *at(root / "a.md", "beta", 2))
    assert info is not None
    assert info.span == Span(6, 15, 6, 19)
    assert "**Beta title** (`beta`)" in info.markdown
    assert "The middle way" in info.markdown
    assert "type: `project`" in info.markdown and "status: `superseded`" in info.markdown
    assert "alpha → **beta** → gamma" in info.markdown


def test_hover_on_missing_target_says_so(ws, root):
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nsupersedes: [nobody]\n---\n")
    info = hover(ws, path, 3, 15)
    assert info is not None and info.markdown == "no entry named 'nobody' in this root"


def test_hover_on_a_name_a_file_whose_yaml_does_not_load_may_hold_names_that_file(ws, root):
    edited(ws, root / "eps.md", '---\nname: eps\ndescription: [oops "d"\n---\n')
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nsupersedes: [eps]\n---\n")
    info = hover(ws, path, 3, 14)
    assert info is not None
    assert info.markdown == "'eps' may be the entry of eps.md, whose frontmatter does not load: fix its YAML"


def test_hover_on_status_key_lists_its_values(ws, root):
    info = hover(ws, root / "a.md", 5, 2)
    assert info is not None and info.span == Span(5, 0, 5, 6)
    for value in ("living", "superseded", "historical"):
        assert f"`{value}`" in info.markdown


def test_hover_on_metadata_type_key_explains_the_type(ws, root):
    info = hover(ws, root / "a.md", 4, 3)
    assert info is not None and info.span == Span(4, 2, 4, 6)
    assert "`feedback`" in info.markdown and "groups entries" in info.markdown


def test_hover_on_unknown_key_says_it_is_kept(ws, root):
    path = edited(ws, root / "e.md", "---\nname: e\ndescription: d\nowner: me\n---\n")
    info = hover(ws, path, 3, 1)
    assert info is not None and "kept unchanged" in info.markdown


def test_hover_on_body_text_is_none(ws, root):
    assert hover(ws, root / "a.md", 9, 2) is None
