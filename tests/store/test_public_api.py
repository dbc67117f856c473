"""The seed API: every gptme.memory name is exported by ``memls`` (and ``memls.store``) with a compatible signature.

memls may add trailing keyword-only parameters with defaults, and dataclass
fields with defaults; everything gptme has must match in name, kind and default.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from memls import store

gptme_memory = pytest.importorskip("gptme.memory", reason="gptme (interop extra) is not installed")

NAMES = [
    "AuditIssue", "MemoryEntry", "MemoryFrontmatterError", "MemoryParseError", "MemoryRoot",
    "MemoryStore", "RecallBackendUnavailable", "RecallHit", "RecallResult", "parse_entry",
    "recall", "render_recall", "resolve_roots", "slugify", "update_index_line",
]
STORE_METHODS = ["audit", "check_index", "index_entries", "render_index", "render_root_index", "save", "supersede"]
ENTRY_MEMBERS = ["index_title", "to_markdown"]


def assert_compatible(ours, theirs, what: str) -> None:
    ours_params = list(inspect.signature(ours).parameters.values())
    theirs_params = list(inspect.signature(theirs).parameters.values())
    assert len(ours_params) >= len(theirs_params), what
    for mine, gptme in zip(ours_params, theirs_params):
        assert (mine.name, mine.kind, mine.default) == (gptme.name, gptme.kind, gptme.default), what
    for extra in ours_params[len(theirs_params):]:
        assert extra.kind is inspect.Parameter.KEYWORD_ONLY, f"{what}: {extra.name}"
        assert extra.default is not inspect.Parameter.empty, f"{what}: {extra.name}"


@pytest.mark.parametrize("name", NAMES)
def test_store_exports_every_seed_name(name):
    assert name in store.__all__
    assert hasattr(store, name)


@pytest.mark.parametrize("name", [n for n in NAMES if inspect.isfunction(getattr(gptme_memory, n, None))])
def test_function_signatures_match_gptme(name):
    assert_compatible(getattr(store, name), getattr(gptme_memory, name), name)


@pytest.mark.parametrize("method", STORE_METHODS)
def test_memory_store_method_signatures_match_gptme(method):
    assert_compatible(
        getattr(store.MemoryStore, method), getattr(gptme_memory.MemoryStore, method), f"MemoryStore.{method}"
    )


def test_render_index_is_a_static_method_as_in_gptme():
    assert isinstance(inspect.getattr_static(store.MemoryStore, "render_index"), staticmethod)


@pytest.mark.parametrize("name", ["AuditIssue", "MemoryEntry", "MemoryRoot", "RecallHit", "RecallResult"])
def test_dataclass_fields_extend_gptme(name):
    ours = dataclasses.fields(getattr(store, name))
    theirs = dataclasses.fields(getattr(gptme_memory, name))
    assert [f.name for f in ours[: len(theirs)]] == [f.name for f in theirs]
    for mine, gptme in zip(ours, theirs):
        assert (mine.default, mine.default_factory) == (gptme.default, gptme.default_factory), mine.name
    for extra in ours[len(theirs):]:
        has_default = extra.default is not dataclasses.MISSING or extra.default_factory is not dataclasses.MISSING
        assert has_default, f"{name}.{extra.name}"


def test_memory_entry_index_title_and_to_markdown_match_gptme():
    assert isinstance(inspect.getattr_static(store.MemoryEntry, "index_title"), property)
    assert isinstance(inspect.getattr_static(gptme_memory.MemoryEntry, "index_title"), property)
    assert_compatible(store.MemoryEntry.to_markdown, gptme_memory.MemoryEntry.to_markdown, "to_markdown")


@pytest.mark.parametrize("name", ["MemoryFrontmatterError", "MemoryParseError", "RecallBackendUnavailable"])
def test_exception_bases_match_gptme(name):
    ours, theirs = getattr(store, name), getattr(gptme_memory, name)
    assert [b.__name__ for b in ours.__mro__] == [b.__name__ for b in theirs.__mro__]
