"""Relevance recall: rank living memory entries for a free-text query.

Three backends share one entry text (the fields gptme feeds its rankers):

* ``bm25`` (what ``auto`` runs): a built-in Okapi BM25 ranker. It needs no
  optional dependency, hits on single-word queries and conflates simple word
  forms ("blocked" finds "blocks"), which gptme's fallback scorer cannot.
* ``overlap``: gptme's stdlib token-overlap scorer, reproduced exactly so a
  memls caller asking for it gets gptme's hits and scores.
* ``tfidf``: gptme-rag's lexical TF-IDF index, used only when asked for by
  name. If gptme-rag is not importable the call fails: a forced backend is
  never silently swapped, because the caller chose its semantics.

Every result names the backend that actually ran, so a rendered block tells
the reader how the hits were chosen.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from .entry import MemoryEntry
from .errors import RecallBackendUnavailable
from .structs import struct

RecallBackend = Literal["auto", "bm25", "overlap", "tfidf"]
DEFAULT_BODY_CHARS = 1200

# gptme's stopword set; both our rankers drop these so the two agree on what
# counts as a content word.
STOPWORDS = frozenset(
    "a an and are as at be by can do for from has have how i if in into is it "
    "its me my of on or our that the their them this to use when with you your".split()
)

# BM25 parameters: the textbook defaults, which suit short notes well.
BM25_K1 = 1.2
BM25_B = 0.75
# Term-frequency weight of each field. Names, titles and keywords are chosen
# by the author to say what an entry is about, so a word there counts twice.
FIELD_WEIGHT_LABEL = 2.0
FIELD_WEIGHT_TEXT = 1.0

_OVERLAP_TOKEN = re.compile(r"[a-z0-9]+")
# Unicode letters and digits (not "_", so snake_case splits into words); a
# CJK run without spaces is one token, which keeps "日本語" recallable.
_WORD_TOKEN = re.compile(r"[^\W_]+")
_VOWELS = frozenset("aeiouy")
_KEEP_DOUBLE = frozenset("lsz")


class EntrySource(Protocol):
    """What recall and match need from a store: its layered entries, all statuses,
    already shadowed by name (nearest root wins)."""

    def entries(self) -> list[MemoryEntry]: ...


@struct
class RecallHit:
    """One ranked entry, its score and the query words that found it."""

    entry: MemoryEntry
    score: float
    matched_terms: list[str]

    def to_dict(self) -> dict[str, Any]:
        """gptme's JSON shape for a recall hit (entry fields, then the ranking)."""
        return {
            **self.entry.to_dict(),
            "score": self.score,
            "matched_terms": self.matched_terms,
            "body": self.entry.body,
        }


@struct
class RecallResult:
    """Ranked hits plus the backend that produced them: bm25, overlap or tfidf."""

    backend: str
    hits: list[RecallHit]

    def to_dict(self) -> dict[str, Any]:
        return {"backend": self.backend, "hits": [hit.to_dict() for hit in self.hits]}


# -- entry text and tokens ----------------------------------------------------


def entry_text(entry: MemoryEntry) -> str:
    """The text gptme ranks an entry by: its non-empty fields, one per line."""
    return "\n".join(part for part in _entry_fields(entry) if part)


def _entry_fields(entry: MemoryEntry) -> tuple[str, str, str, str, str]:
    # name, title, description, keywords, body — gptme's order.
    return (
        entry.name.replace("-", " ").replace("_", " "),
        entry.title or "",
        entry.description,
        " ".join(entry.keywords),
        entry.body,
    )


def overlap_tokens(text: str) -> set[str]:
    """gptme's overlap tokens: lowercase ASCII alphanumeric runs of 3+ chars, no stopwords."""
    return {
        token
        for token in _OVERLAP_TOKEN.findall(text.lower())
        if len(token) >= 3 and token not in STOPWORDS
    }


def stem(word: str) -> str:
    """Conflate simple English word forms; deterministic and deliberately timid.

    Applied to lowercase ASCII alphabetic words longer than three letters;
    anything else is returned unchanged. Steps, in order:

    1. plurals: ``sses`` -> ``ss``; ``ies`` -> ``y`` (words of 5+ letters);
       ``es`` after s/x/z/ch/sh is dropped; otherwise a final ``s`` is dropped
       unless the word ends in ``ss``, ``us`` or ``is``;
    2. ``ied`` -> ``y``; else ``ing`` or ``ed`` (not ``eed``) is dropped when
       at least three letters with a vowel remain, and a doubled final
       consonant other than l/s/z is then undoubled ("stopped" -> "stop");
    3. a final ``e`` is dropped when three letters remain ("cache" and
       "caching" both become "cach").

    So "blocked", "blocks" and "blocking" all become "block". It is not a
    full stemmer: the point is recall that tolerates inflection, and a rule
    that conflates too much costs precision everywhere.
    """
    if len(word) <= 3 or not (word.isascii() and word.isalpha()):
        return word
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]

    if word.endswith("ied") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ing") and _is_stem(word[:-3]):
        word = _undouble(word[:-3])
    elif word.endswith("ed") and not word.endswith("eed") and _is_stem(word[:-2]):
        word = _undouble(word[:-2])

    if word.endswith("e") and len(word) >= 4:
        word = word[:-1]
    return word


def _is_stem(candidate: str) -> bool:
    return len(candidate) >= 3 and any(char in _VOWELS for char in candidate)


def _undouble(word: str) -> str:
    last = word[-1]
    if word[-2] == last and last not in _VOWELS and last not in _KEEP_DOUBLE:
        return word[:-1]
    return word


def bm25_words(text: str) -> list[str]:
    """The words BM25 sees: lowercase unicode word runs, minus stopwords and
    single ASCII characters (a lone "x" or "3" carries no topic)."""
    return [
        word
        for word in _WORD_TOKEN.findall(text.lower())
        if word not in STOPWORDS and not (len(word) == 1 and word.isascii())
    ]


# -- BM25 ---------------------------------------------------------------------


@struct
class Bm25Index:
    """A BM25 index over a fixed list of entries, built once, searched often.

    Each posting already holds the term's full BM25 contribution for that
    entry (idf times the saturated, length-normalised term frequency), so a
    search is only a sum over the postings of the query's terms. The index
    ranks exactly the entries it was built from; choosing candidates (living,
    shadowed) is the caller's job.
    """

    entries: tuple[MemoryEntry, ...]
    postings: Mapping[str, Mapping[int, float]]

    @classmethod
    def build(
        cls,
        entries: Sequence[MemoryEntry],
        *,
        k1: float = BM25_K1,
        b: float = BM25_B,
    ) -> Bm25Index:
        stems: dict[str, str] = {}  # per-build memo; words repeat a lot
        frequencies: list[dict[str, float]] = []
        lengths: list[float] = []
        for entry in entries:
            name, title, description, keywords, body = _entry_fields(entry)
            tf: dict[str, float] = {}
            for text, weight in (
                (name, FIELD_WEIGHT_LABEL),
                (title, FIELD_WEIGHT_LABEL),
                (keywords, FIELD_WEIGHT_LABEL),
                (description, FIELD_WEIGHT_TEXT),
                (body, FIELD_WEIGHT_TEXT),
            ):
                if not text:
                    continue
                for word in bm25_words(text):
                    term = stems.get(word)
                    if term is None:
                        term = stems[word] = stem(word)
                    tf[term] = tf.get(term, 0.0) + weight
            frequencies.append(tf)
            lengths.append(sum(tf.values()))

        count = len(frequencies)
        average = (sum(lengths) / count if count else 0.0) or 1.0
        by_term: dict[str, dict[int, float]] = {}
        for doc, tf in enumerate(frequencies):
            for term, freq in tf.items():
                by_term.setdefault(term, {})[doc] = freq
        postings: dict[str, dict[int, float]] = {}
        for term, docs in by_term.items():
            df = len(docs)
            idf = math.log(1.0 + (count - df + 0.5) / (df + 0.5))
            postings[term] = {
                doc: idf
                * freq
                * (k1 + 1.0)
                / (freq + k1 * (1.0 - b + b * lengths[doc] / average))
                for doc, freq in docs.items()
            }
        return cls(entries=tuple(entries), postings=postings)

    def search(self, query: str, limit: int) -> list[RecallHit]:
        """Top ``limit`` entries for ``query``: score desc, then name.

        Scores are rounded to 4 decimals before ordering, so ties are decided
        by name and the order never depends on float noise.
        """
        _check_limit(limit)
        surface: dict[str, set[str]] = {}
        for word in bm25_words(query):
            surface.setdefault(stem(word), set()).add(word)
        terms = sorted(term for term in surface if term in self.postings)
        if not terms:
            return []
        scores: dict[int, float] = {}
        for term in terms:  # sorted: the float sums are the same on every run
            for doc, weight in self.postings[term].items():
                scores[doc] = scores.get(doc, 0.0) + weight
        entries = self.entries
        best = heapq.nsmallest(
            limit,
            ((-round(score, 4), entries[doc].name, doc) for doc, score in scores.items()),
        )
        hits = []
        for negative, _name, doc in best:
            matched = sorted(
                word
                for term in terms
                if doc in self.postings[term]
                for word in surface[term]
            )
            hits.append(RecallHit(entries[doc], -negative, matched[:5]))
        return hits


# -- the other backends -------------------------------------------------------


def _recall_overlap(
    entries: Sequence[MemoryEntry], query: str, limit: int
) -> list[RecallHit]:
    """gptme's scorer: share >= 2 tokens; score = shared / query tokens."""
    query_tokens = overlap_tokens(query)
    if len(query_tokens) < 2:
        return []
    hits = []
    for entry in entries:
        shared = sorted(query_tokens & overlap_tokens(entry_text(entry)))
        if len(shared) < 2:
            continue
        score = round(len(shared) / len(query_tokens), 4)
        hits.append(RecallHit(entry, score, shared[:5]))
    hits.sort(key=lambda hit: (-hit.score, hit.entry.name))
    return hits[:limit]


_TFIDF_UNAVAILABLE = (
    "gptme-rag lexical retrieval is unavailable; "
    "install gptme-rag[lexical] or use --backend overlap"
)


def _recall_tfidf(
    entries: Sequence[MemoryEntry], query: str, limit: int
) -> list[RecallHit]:
    """gptme-rag's TF-IDF index, driven the way gptme drives it."""
    try:
        from gptme_rag.indexing.document import Document
        from gptme_rag.lexical import TfidfIndex
    except ImportError as exc:
        raise RecallBackendUnavailable(_TFIDF_UNAVAILABLE) from exc
    documents = [
        Document(
            content=entry_text(entry),
            metadata={"memory_entry": entry},
            source_path=entry.path,
            doc_id=entry.name,
        )
        for entry in entries
    ]
    try:
        index = TfidfIndex(relevance_floor=0.05)
        index.index(documents)
        ranked = index.search(query, n_results=limit)
    except ImportError as exc:  # the lexical extra is imported lazily
        raise RecallBackendUnavailable(_TFIDF_UNAVAILABLE) from exc
    return [
        RecallHit(hit.document.metadata["memory_entry"], float(hit.score), [])
        for hit in ranked
    ]


# -- public API ---------------------------------------------------------------


def recall(
    store: EntrySource,
    query: str,
    *,
    limit: int = 3,
    backend: RecallBackend = "auto",
) -> RecallResult:
    """Recall living entries across every layered root of ``store``.

    Shadowing must happen before the status filter (a nearer historical entry
    hides a farther living one of the same name), so this takes the store's
    full layered list and keeps the living entries itself.
    """
    _check_limit(limit)
    return recall_entries(store.entries(), query, limit=limit, backend=backend)


def recall_entries(
    entries: Sequence[MemoryEntry],
    query: str,
    *,
    limit: int = 3,
    backend: RecallBackend = "auto",
) -> RecallResult:
    """Rank the living entries among ``entries`` (already shadowed by the caller).

    A caller that recalls repeatedly over the same entries should build a
    :class:`Bm25Index` once and call its ``search`` instead.
    """
    _check_limit(limit)
    if backend not in ("auto", "bm25", "overlap", "tfidf"):
        raise ValueError(
            f"unknown recall backend {backend!r}; use auto, bm25, overlap or tfidf"
        )
    query = query.strip()
    living = [entry for entry in entries if entry.is_living]
    if backend == "overlap":
        return RecallResult("overlap", _recall_overlap(living, query, limit))
    if backend == "tfidf":
        return RecallResult("tfidf", _recall_tfidf(living, query, limit))
    if not query:
        return RecallResult("bm25", [])
    return RecallResult("bm25", Bm25Index.build(living).search(query, limit))


def render_recall(result: RecallResult, *, body_chars: int = DEFAULT_BODY_CHARS) -> str:
    """The bounded context block a harness injects (gptme's exact layout).

    Each summary is one line (whitespace runs collapsed) of at most
    ``body_chars`` characters, so the block's size is predictable.
    """
    if body_chars <= 0:
        raise ValueError("body_chars must be positive")
    if not result.hits:
        return ""
    lines = [
        "<memory_relevant_entries>",
        f"## Relevant Memory (backend={result.backend})",
    ]
    for hit in result.hits:
        entry = hit.entry
        lines.append(
            f"- [{entry.type}] {entry.name} "
            f"(score {hit.score:.3f}, scope {entry.scope or 'unknown'})"
        )
        if hit.matched_terms:
            lines.append(f"  Match: {', '.join(hit.matched_terms)}")
        summary = re.sub(r"\s+", " ", entry.body.strip() or entry.description)
        if summary:
            lines.append(f"  {truncate(summary, body_chars)}")
    lines.append("</memory_relevant_entries>")
    return "\n".join(lines)


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, marking the cut with ``...``.

    Below four characters there is no room for a marker, so the cut is plain;
    the bound holds either way (an older gptme exceeded it for tiny limits).
    """
    if len(text) <= limit:
        return text
    if limit <= 3:
        return text[:limit]
    return text[: limit - 3].rstrip() + "..."


def _check_limit(limit: int) -> None:
    if limit <= 0:
        raise ValueError("limit must be positive")
