"""Properties of every save and rename: success is a round trip, failure leaves nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.entry import CLAUDE_CODE_TYPES
from memls.store.index import parse_index_lines
from memls.store.recall import bm25_words, entry_text, recall

from .store_test_helpers import snapshot, store_for

# Text that stresses every layer: unicode, control characters, line breaks,
# quotes, YAML indicators, the index's ``]`` and the reserved ``memory`` prefix.
TRICKY = st.sampled_from(
    ["memory", "MEMORY ", "]", "[", "\n", "\r\n", "\r", "\x1b", "\x00", "\t", '"', "'", ": ", "- ",
     "#", "---", "\u2028", "\x85", "\ud800", "\uffff", "日本語", "é", "true", "42", " ", "\\", "{", "&a", "*", "!"]
)
TEXT = st.lists(st.one_of(TRICKY, st.text(max_size=6)), max_size=5).map("".join)
NAMES = st.one_of(TEXT, st.from_regex(r"[a-z][a-z0-9 -]{0,12}", fullmatch=True))
TYPES = st.one_of(st.none(), st.sampled_from([*CLAUDE_CODE_TYPES, "general", "decision"]), TEXT)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    name=NAMES, description=TEXT, body=TEXT, title=st.one_of(st.none(), TEXT), type_=TYPES,
    keywords=st.one_of(st.none(), st.lists(TEXT, max_size=3)), existing=st.booleans(),
)
def test_save_is_seen_by_every_reader_or_changes_nothing(name, description, body, title, type_, keywords, existing):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        s = store_for(root)
        if existing:
            s.save("neighbour", "already here")
        before = snapshot(root, with_lock=True)
        try:
            path = s.save(name, description, body, type=type_, title=title, keywords=keywords)
        except (ValueError, OSError):
            assert snapshot(root, with_lock=True) == before
            return
        entry = s.get(name)
        assert entry is not None and entry.path == path
        assert entry.name in {e.name for e in s.entries()}
        assert len(entry.description.splitlines()) <= 1
        assert "".join(entry.description.split()) == "".join(description.split())
        words = bm25_words(entry_text(entry))
        if words:
            hits = recall(s, " ".join(words), limit=50, backend="bm25").hits
            assert path in [h.entry.path for h in hits]
        links = [link for link in parse_index_lines((root / "MEMORY.md").read_text(encoding="utf-8"))
                 if link.target == path.name]
        assert [(link.title, link.description) for link in links] == [(entry.index_title, entry.description)]
        assert s.audit() == []
        rendered = s.render_root_index().split("\n")
        assert rendered[-1] == "" and all(
            line in ("", "# Persistent Memory") or line.startswith("## ") or parse_index_lines(line)
            for line in rendered
        )
        assert sum(line.startswith("## ") for line in rendered) == len({e.type for e in s.entries()})


@SETTINGS
@given(new_name=NAMES, target=st.sampled_from(["a", "b", "c"]))
def test_rename_keeps_the_link_graph(new_name, target):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        s = store_for(root)
        for name in ("a", "b", "c"):
            s.save(name, f"{name} desc")
        s.write_index()  # generated, so every write below keeps it generated
        s.supersede("a", "b")
        s.supersede("b", "c")
        before = snapshot(root, with_lock=True)
        try:
            renamed = s.rename(target, new_name)
        except (ValueError, OSError):
            assert snapshot(root, with_lock=True) == before
            return
        new = renamed.name
        mapping = {n: (new if n == target else n) for n in ("a", "b", "c")}
        by_name = {e.name: e for e in s.entries()}
        assert set(by_name) == set(mapping.values())
        assert by_name[mapping["a"]].superseded_by == mapping["b"]
        assert by_name[mapping["b"]].supersedes == [mapping["a"]]
        assert by_name[mapping["b"]].superseded_by == mapping["c"]
        assert by_name[mapping["c"]].supersedes == [mapping["b"]]
        assert s.audit() == []
        assert s.check_index()
