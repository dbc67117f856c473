"""The catalogue is complete, implemented, tested and documented, code by code."""

from __future__ import annotations

import re
from pathlib import Path

from memls.store.catalogue import (
    CATALOGUE,
    PAGES_DIR,
    catalogue_markdown,
    codes,
    explain_markdown,
    spec,
    write_pages,
)
from memls.store.checks import FAMILIES

REPO = Path(__file__).resolve().parents[2]


def test_codes_are_unique_kebab_case():
    names = [c.code for c in CATALOGUE]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", n) for n in names)


def test_every_catalogue_code_belongs_to_exactly_one_check_family_and_back():
    implemented = [code for family in FAMILIES for code in family.CODES]
    assert sorted(implemented) == sorted(codes())


def test_gptmes_six_audit_codes_keep_their_names():
    audit = {c.audit_code for c in CATALOGUE if c.audit_code}
    assert audit == {
        "invalid-yaml", "invalid-entry", "duplicate-name",
        "dangling-superseded-by", "dangling-supersedes", "asymmetric-supersession",
    }
    for code in audit:
        assert spec(code).audit_code == code


def test_every_code_is_named_in_a_check_test():
    tests = "".join(p.read_text() for p in (REPO / "tests" / "store" / "checks").glob("test_*.py"))
    missing = [c.code for c in CATALOGUE if f'"{c.code}"' not in tests]
    assert missing == []


def test_readme_catalogue_table_is_the_generated_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- catalogue:start")
    start = readme.index("\n", start) + 1
    end = readme.index("<!-- catalogue:end -->")
    assert readme[start:end] == catalogue_markdown(), "run: python -m memls.store.catalogue (and paste)"


def test_every_code_links_to_its_shipped_page_which_exists():
    for item in CATALOGUE:
        assert item.docs_url.startswith("file://"), item.code
        assert item.docs_path.is_file(), f"{item.code}: run python -m memls.store.catalogue --pages"


def test_shipped_pages_are_the_generated_ones_and_no_others(tmp_path):
    write_pages(tmp_path)
    generated = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.md")}
    shipped = {p.name: p.read_text(encoding="utf-8") for p in PAGES_DIR.glob("*.md")}
    assert shipped == generated, "run: python -m memls.store.catalogue --pages"
    assert set(shipped) == {f"{code}.md" for code in codes()}


def test_page_is_the_catalogue_text_of_its_code():
    page = explain_markdown("asymmetric-supersession")
    assert "one side of a supersession link is missing in the other file" in page.lower()
    assert "- Add the missing back-link in the other file." in page
    assert "in `memls audit` as: `asymmetric-supersession`" in page
