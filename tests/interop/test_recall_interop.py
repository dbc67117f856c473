"""memls recall (overlap backend) and match agree with real gptme on the same files.

The entries are written as files in two layered gptme roots (project nearer
than user) and read back by gptme's own MemoryStore; memls then ranks the
same entries. gptme's overlap scorer and lesson keyword matcher are the
reference: names, scores, matched terms and rendered blocks must be equal.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

gptme_memory = pytest.importorskip(
    "gptme.memory", reason="interop tests need the real gptme (pip install memls[interop])"
)

from memls.store.entry import MemoryEntry  # noqa: E402
from memls.store.match import match_memories, render_matches  # noqa: E402
from memls.store.recall import recall, recall_entries, render_recall  # noqa: E402

gptme_match = pytest.importorskip(
    "gptme.memory.match", reason="match interop needs gptme's keyword matcher (gptme 0.35.1)"
)
G = gptme_memory

PROJECT = [
    G.MemoryEntry(
        "openrouter-guardrail",
        "OpenRouter's guardrail rejects Anthropic model requests",
        type="reference",
        body="Requests for Anthropic models through OpenRouter are blocked by the\n"
        "account guardrail; enable the provider in settings.",
        keywords=["openrouter", "guard*"],
    ),
    G.MemoryEntry(
        "release_process",
        "How to cut a stable release",
        title="Stable release checklist",
        body="Tag, build wheels, upload. Never release on Friday.",
        keywords=["stable release", "time*out", "", "*"],
    ),
    G.MemoryEntry(
        "retry-policy",
        "Retry HTTP requests with backoff",
        body="Retries: 3 attempts, exponential backoff, timeout 30s.",
        keywords=["retry", "time*"],
    ),
    G.MemoryEntry(
        "old-guardrail",
        "Anthropic model requests used to work through OpenRouter",
        status="superseded",
        superseded_by="openrouter-guardrail",
        keywords=["openrouter"],
    ),
    # Nearer and historical: hides the living user entry of the same name.
    G.MemoryEntry(
        "shadowed-rule",
        "Deploy rule (retired)",
        status="historical",
        keywords=["deploy"],
    ),
]
USER = [
    G.MemoryEntry(
        "shadowed-rule",
        "Deploy only from main",
        body="deploy from main, model requests too",
        keywords=["deploy"],
    ),
    G.MemoryEntry(
        "rust-style",
        "Run cargo fmt and clippy before each commit",
        type="feedback",
        body="cargo fmt; cargo clippy -- -D warnings. 日本語 too.",
        keywords=["cargo", "clippy"],
    ),
    G.MemoryEntry(
        "model-notes",
        "Notes about model choice",
        body="Anthropic models for code, OpenRouter for the rest; requests are logged.",
    ),
]

QUERIES = [
    "Why are Anthropic model requests blocked by the OpenRouter guardrail?",
    "cargo fmt clippy warnings",
    "stable release checklist Friday",
    "retry requests timeout backoff",
    "deploy from main",
    "model requests",
    "ruff",
    "",
]
MATCH_TEXTS = [
    "TIMEOUTS retry time-out",
    "Cut the STABLE RELEASE via openrouter",
    "deploy now",
    "cargo build && cargo clippy",
    "guardrails everywhere",
    "   ",
]


@pytest.fixture(scope="module")
def gptme_store(tmp_path_factory) -> object:
    base = tmp_path_factory.mktemp("roots")
    roots = []
    for scope, entries in (("project", PROJECT), ("user", USER)):
        root = base / scope
        root.mkdir()
        for entry in entries:
            (root / f"{entry.name}.md").write_text(entry.to_markdown(), encoding="utf-8")
        roots.append(G.MemoryRoot(scope, root))
    store = G.MemoryStore(roots)
    assert len(store.entries()) == len(PROJECT) + len(USER) - 1  # one shadowed
    return store


class MemlsView:
    """memls entries converted field by field from what gptme read."""

    def __init__(self, gptme_store):
        names = [f.name for f in fields(G.MemoryEntry)]
        self._entries = [
            MemoryEntry(**{name: getattr(e, name) for name in names})
            for e in gptme_store.entries()
        ]

    def entries(self, status: str | None = None) -> list[MemoryEntry]:
        return [e for e in self._entries if status is None or e.status == status]


def recall_rows(result) -> list[tuple[str, Path | None, float, list[str]]]:
    return [(h.entry.name, h.entry.path, h.score, h.matched_terms) for h in result.hits]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("limit", [1, 3, 10])
def test_overlap_recall_equals_gptme(gptme_store, query, limit):
    theirs = G.recall(gptme_store, query, limit=limit, backend="overlap")
    ours = recall(MemlsView(gptme_store), query, limit=limit, backend="overlap")
    assert (ours.backend, recall_rows(ours)) == (theirs.backend, recall_rows(theirs))
    assert render_recall(ours, body_chars=40) == G.render_recall(theirs, body_chars=40)


def test_overlap_recall_finds_something_to_compare(gptme_store):
    hits = G.recall(gptme_store, QUERIES[0], limit=10, backend="overlap").hits
    assert [h.entry.name for h in hits] == ["openrouter-guardrail", "model-notes"]


vocabulary = st.sampled_from(
    "anthropic model requests blocked openrouter guardrail cargo fmt clippy stable "
    "release friday retry timeout backoff deploy main notes the and rest 日本語".split()
)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(query_words=st.lists(vocabulary, max_size=6), limit=st.integers(1, 8))
def test_overlap_recall_equals_gptme_for_any_query(gptme_store, query_words, limit):
    query = " ".join(query_words)
    entries = MemlsView(gptme_store).entries(status="living")
    theirs = G.recall(gptme_store, query, limit=limit, backend="overlap")
    ours = recall_entries(entries, query, limit=limit, backend="overlap")
    assert recall_rows(ours) == recall_rows(theirs)


def match_rows(matches) -> list[tuple[str, Path | None, float, list[str]]]:
    return [(m.entry.name, m.entry.path, m.score, m.matched_by) for m in matches]


@pytest.mark.parametrize("text", MATCH_TEXTS)
@pytest.mark.parametrize("limit", [1, 5])
def test_match_equals_gptme(gptme_store, text, limit):
    theirs = gptme_match.match_memories(gptme_store, text, limit=limit)
    ours = match_memories(MemlsView(gptme_store), text, limit=limit)
    assert match_rows(ours) == match_rows(theirs)
    assert render_matches(ours, body_chars=30) == gptme_match.render_matches(theirs, body_chars=30)


def test_match_finds_something_to_compare(gptme_store):
    matches = gptme_match.match_memories(gptme_store, MATCH_TEXTS[0])
    assert [(m.entry.name, m.score) for m in matches] == [
        ("retry-policy", 2.0),
        ("release_process", 1.0),
    ]
