"""The catalogue is complete, implemented, tested and documented, code by code."""

from __future__ import annotations

import re
from pathlib import Path

from memls.store.catalogue import CATALOGUE, catalogue_markdown, codes, spec
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


def test_docs_url_points_at_the_code_anchor_in_the_readme():
    url = spec("dangling-supersedes").docs_url
    assert url.endswith("README.md#dangling-supersedes")
    assert '<a id="dangling-supersedes"></a>' in catalogue_markdown()
