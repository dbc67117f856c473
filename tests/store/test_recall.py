"""Recall: BM25 ranking, gptme's overlap scorer, the forced tfidf backend, rendering."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.errors import RecallBackendUnavailable
from memls.store.recall import (
    Bm25Index,
    RecallHit,
    RecallResult,
    recall,
    recall_entries,
    render_recall,
    stem,
)


class ListStore:
    """The part of MemoryStore recall uses: the layered entries, all statuses."""

    def __init__(self, entries: list[MemoryEntry]):
        self._entries = entries

    def entries(self, status: str | None = None) -> list[MemoryEntry]:
        return [e for e in self._entries if status is None or e.status == status]


GUARDRAIL = MemoryEntry(
    "openrouter-guardrail",
    "OpenRouter's guardrail rejects Anthropic model requests",
    body="Requests for Anthropic models through OpenRouter are blocked by the "
    "account guardrail; enable the provider in settings.",
    scope="project",
)
CORPUS = [
    GUARDRAIL,
    MemoryEntry("python-style", "Use ruff for formatting", body="Run ruff format."),
    MemoryEntry("deploy-steps", "How we deploy", body="Tag a release and push it."),
    MemoryEntry("cache-policy", "Caching rules", body="Cache HTTP responses an hour."),
]
QUERY = "Why are Anthropic model requests blocked by the OpenRouter guardrail?"


def names(result: RecallResult) -> list[str]:
    return [hit.entry.name for hit in result.hits]


# -- BM25 (the auto backend) --------------------------------------------------


def test_auto_runs_bm25_and_reports_it():
    assert recall_entries(CORPUS, QUERY).backend == "bm25"


def test_bm25_ranks_the_obviously_relevant_entry_first():
    result = recall_entries(CORPUS, QUERY, backend="bm25")
    assert names(result)[0] == "openrouter-guardrail"
    assert result.hits[0].matched_terms == [
        "anthropic",
        "blocked",
        "guardrail",
        "model",
        "openrouter",
    ]


def test_bm25_single_word_query_hits():
    assert names(recall_entries(CORPUS, "ruff")) == ["python-style"]


def test_bm25_stemming_lets_blocked_find_blocks():
    entry = MemoryEntry("ci-gate", "The gate blocks merges on red CI")
    hit = recall_entries([entry], "blocked").hits[0]
    assert hit.entry.name == "ci-gate"
    assert hit.matched_terms == ["blocked"]


@pytest.mark.parametrize(
    "forms",
    [
        ("blocked", "blocks", "blocking", "block"),
        ("cache", "caches", "cached", "caching"),
        ("policy", "policies"),
        ("retry", "retries", "retried", "retrying"),
        ("stop", "stops", "stopped", "stopping"),
        ("process", "processes", "processed", "processing"),
    ],
)
def test_stem_conflates_simple_inflections(forms):
    assert len({stem(form) for form in forms}) == 1


@pytest.mark.parametrize("word", ["status", "class", "analysis", "thing", "speed"])
def test_stem_leaves_words_that_only_look_inflected(word):
    assert stem(word) == word


def test_bm25_recalls_unicode_words():
    entry = MemoryEntry("jp-notes", "日本語のメモ", body="日本語 の テキスト")
    assert names(recall_entries([entry, *CORPUS], "日本語")) == ["jp-notes"]


def test_bm25_name_words_count_more_than_body_words():
    named = MemoryEntry("deploy-checklist", "steps", body="tag and push")
    mentioned = MemoryEntry("notes", "misc", body="the checklist is elsewhere")
    assert names(recall_entries([mentioned, named], "checklist")) == [
        "deploy-checklist",
        "notes",
    ]


def test_bm25_scores_are_positive_and_rounded_to_four_decimals():
    for hit in recall_entries(CORPUS, QUERY, limit=10).hits:
        assert hit.score > 0
        assert hit.score == round(hit.score, 4)


def test_bm25_equal_scores_are_ordered_by_name():
    twins = [MemoryEntry(n, "same words here") for n in ("zeta", "alpha", "mid")]
    assert names(recall_entries(twins, "words", limit=5)) == ["alpha", "mid", "zeta"]


def test_bm25_blank_or_stopword_query_has_no_hits():
    assert recall_entries(CORPUS, "   \n").hits == []
    assert recall_entries(CORPUS, "the and of").hits == []


def test_bm25_limit_cuts_the_ranking():
    hits = recall_entries(CORPUS, "anthropic ruff deploy cache", limit=2).hits
    assert len(hits) == 2


def test_index_search_equals_recall_entries():
    index = Bm25Index.build(CORPUS)
    assert index.search(QUERY, 3) == recall_entries(CORPUS, QUERY).hits


def test_bm25_is_deterministic_across_input_order():
    forward = recall_entries(CORPUS, QUERY, limit=4)
    backward = recall_entries(list(reversed(CORPUS)), QUERY, limit=4)
    assert forward == backward


words = st.sampled_from(
    "anthropic blocked blocks guardrail cache caching deploy ruff model the of".split()
)


@settings(max_examples=100, deadline=None)
@given(st.lists(words, min_size=1, max_size=6), st.integers(min_value=1, max_value=5))
def test_bm25_hits_are_sorted_bounded_and_repeatable(query_words, limit):
    query = " ".join(query_words)
    first = recall_entries(CORPUS, query, limit=limit)
    assert first == recall_entries(CORPUS, query, limit=limit)
    assert len(first.hits) <= limit
    keys = [(-hit.score, hit.entry.name) for hit in first.hits]
    assert keys == sorted(keys)


# -- candidates and arguments --------------------------------------------------


def test_recall_excludes_superseded_and_historical_entries():
    old = MemoryEntry("guardrail-old", QUERY, status="superseded", superseded_by="x")
    gone = MemoryEntry("guardrail-gone", QUERY, status="historical")
    store = ListStore([old, gone, *CORPUS])
    assert names(recall(store, QUERY, limit=10)) == ["openrouter-guardrail"]


def test_recall_keeps_the_scope_of_the_entry():
    user = MemoryEntry("rust-style", "cargo fmt before commit", scope="user")
    hit = recall(ListStore([user]), "cargo fmt", backend="overlap").hits[0]
    assert hit.entry.scope == "user"


@pytest.mark.parametrize("limit", [0, -1])
def test_recall_rejects_a_non_positive_limit(limit):
    with pytest.raises(ValueError, match="positive"):
        recall(ListStore(CORPUS), QUERY, limit=limit)
    with pytest.raises(ValueError, match="positive"):
        recall_entries(CORPUS, QUERY, limit=limit)


def test_recall_rejects_an_unknown_backend():
    with pytest.raises(ValueError, match="unknown recall backend"):
        recall_entries(CORPUS, QUERY, backend="vector")  # type: ignore[arg-type]


# -- overlap (gptme's scorer) ---------------------------------------------------


def test_overlap_scores_shared_tokens_over_query_tokens():
    result = recall_entries(CORPUS, QUERY, backend="overlap")
    assert result.backend == "overlap"
    # query tokens: why anthropic model requests blocked openrouter guardrail (7)
    assert [(h.entry.name, h.score, h.matched_terms) for h in result.hits] == [
        (
            "openrouter-guardrail",
            round(6 / 7, 4),
            ["anthropic", "blocked", "guardrail", "model", "openrouter"],
        )
    ]


def test_overlap_needs_two_query_tokens():
    assert recall_entries(CORPUS, "ruff", backend="overlap").hits == []


def test_overlap_does_not_stem():
    entry = MemoryEntry("ci-gate", "gate blocks merges")
    assert recall_entries([entry], "blocked merges", backend="overlap").hits == []


# -- tfidf (gptme-rag, only when forced) ----------------------------------------


def test_forced_tfidf_without_gptme_rag_raises_gptme_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "gptme_rag", None)  # import fails
    with pytest.raises(RecallBackendUnavailable) as raised:
        recall_entries(CORPUS, QUERY, backend="tfidf")
    assert str(raised.value) == (
        "gptme-rag lexical retrieval is unavailable; "
        "install gptme-rag[lexical] or use --backend overlap"
    )


def test_auto_never_uses_gptme_rag_even_when_installed(monkeypatch):
    install_fake_gptme_rag(monkeypatch)
    assert recall_entries(CORPUS, QUERY).backend == "bm25"


def test_forced_tfidf_drives_gptme_rag_like_gptme(monkeypatch):
    calls = install_fake_gptme_rag(monkeypatch)
    result = recall_entries(CORPUS, QUERY, limit=2, backend="tfidf")
    assert result.backend == "tfidf"
    assert [(h.entry.name, h.score, h.matched_terms) for h in result.hits] == [
        ("openrouter-guardrail", 0.5, [])
    ]
    assert calls["floor"] == 0.05
    assert calls["n_results"] == 2
    assert calls["doc_ids"] == [e.name for e in CORPUS]


def install_fake_gptme_rag(monkeypatch) -> dict:
    """A stand-in gptme-rag exposing the two names gptme's adapter uses."""
    calls: dict = {}

    class Document:
        def __init__(self, content, metadata, source_path, doc_id):
            self.content, self.metadata, self.doc_id = content, metadata, doc_id

    class Hit:
        def __init__(self, document, score):
            self.document, self.score = document, score

    class TfidfIndex:
        def __init__(self, relevance_floor):
            calls["floor"] = relevance_floor

        def index(self, documents):
            self.documents = documents
            calls["doc_ids"] = [d.doc_id for d in documents]

        def search(self, query, n_results):
            calls["n_results"] = n_results
            return [Hit(d, 0.5) for d in self.documents if "guardrail" in d.content][
                :n_results
            ]

    package = types.ModuleType("gptme_rag")
    indexing = types.ModuleType("gptme_rag.indexing")
    document = types.ModuleType("gptme_rag.indexing.document")
    lexical = types.ModuleType("gptme_rag.lexical")
    document.Document = Document
    lexical.TfidfIndex = TfidfIndex
    for module in (package, indexing, document, lexical):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    return calls


# -- rendering -----------------------------------------------------------------


def test_render_recall_layout():
    entry = MemoryEntry(
        "openrouter-guardrail",
        "desc",
        type="reference",
        body="Line one.\n\n  Line   two.",
        scope="user",
    )
    bare = MemoryEntry("no-body", "Only a description.")
    result = RecallResult(
        "overlap",
        [RecallHit(entry, 0.8571, ["anthropic", "model"]), RecallHit(bare, 0.5, [])],
    )
    assert render_recall(result) == "\n".join(
        [
            "<memory_relevant_entries>",
            "## Relevant Memory (backend=overlap)",
            "- [reference] openrouter-guardrail (score 0.857, scope user)",
            "  Match: anthropic, model",
            "  Line one. Line two.",
            "- [general] no-body (score 0.500, scope unknown)",
            "  Only a description.",
            "</memory_relevant_entries>",
        ]
    )


def test_render_recall_omits_an_empty_summary():
    result = RecallResult("bm25", [RecallHit(MemoryEntry("empty"), 1.0, [])])
    assert render_recall(result).splitlines()[2:] == [
        "- [general] empty (score 1.000, scope unknown)",
        "</memory_relevant_entries>",
    ]


def test_render_recall_flattens_and_truncates_the_body():
    entry = MemoryEntry("long", "d", body="line one\n" + "x" * 80)
    rendered = render_recall(RecallResult("overlap", [RecallHit(entry, 1.0, [])]), body_chars=20)
    assert "  line one xxxxxxxx...\n" in rendered


@pytest.mark.parametrize("body_chars", [1, 2, 3])
def test_render_recall_tiny_body_chars_never_exceed_the_bound(body_chars):
    entry = MemoryEntry("long", "d", body="abcdefgh")
    rendered = render_recall(
        RecallResult("overlap", [RecallHit(entry, 1.0, [])]), body_chars=body_chars
    )
    assert rendered.splitlines()[3] == "  " + "abcdefgh"[:body_chars]


def test_render_recall_with_no_hits_is_empty():
    assert render_recall(RecallResult("bm25", [])) == ""


@pytest.mark.parametrize("body_chars", [0, -5])
def test_render_recall_rejects_a_non_positive_body_chars(body_chars):
    with pytest.raises(ValueError, match="positive"):
        render_recall(RecallResult("bm25", []), body_chars=body_chars)


def test_recall_hit_dict_has_gptme_key_order():
    hit = RecallHit(MemoryEntry("a", body="b", path=Path("/m/a.md")), 0.5, ["x"])
    keys = list(hit.to_dict())
    assert keys[-3:] == ["score", "matched_terms", "body"]
    assert keys[0] == "name" and hit.to_dict()["path"] == "/m/a.md"
