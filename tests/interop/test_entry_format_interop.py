"""Entry files: memls and the real gptme write the same bytes and read each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("gptme.memory", reason="gptme is not installed (pip install -e '.[interop]')")

from gptme.memory.schema import MemoryEntry as GptmeEntry  # noqa: E402
from gptme.memory.schema import MemoryParseError as GptmeParseError  # noqa: E402
from gptme.memory.schema import entry_from_text as gptme_entry_from_text  # noqa: E402

from memls.store.entry import STATUSES, MemoryEntry  # noqa: E402
from memls.store.errors import MemoryFrontmatterError, MemoryParseError  # noqa: E402
from memls.store.parse import entry_from_text  # noqa: E402

LINE_TEXT = st.text(
    st.characters(
        blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
        blacklist_characters="\ufffe\uffff",
    ),
    max_size=30,
)
# NEL is excluded: PyYAML's emitter (used by both tools) cannot round-trip it.
ANY_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x85"), max_size=15
)


def reads_back_as_plain_name(name: str) -> bool:
    try:
        return yaml.safe_load(f"name: {name}") == {"name": name}
    except yaml.YAMLError:
        return False


NAME = st.one_of(
    st.from_regex(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", fullmatch=True),
    st.text(st.sampled_from("abcXYZ09 _-.é日!?"), min_size=1, max_size=15).filter(
        reads_back_as_plain_name
    ),
)
YAML_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ANY_TEXT, inner, max_size=3),
    max_leaves=5,
)


@st.composite
def entry_fields(draw: st.DrawFn) -> dict[str, Any]:
    """Constructor arguments for an entry both tools can represent (no memls extras)."""
    return {
        "name": draw(NAME),
        "description": draw(LINE_TEXT.map(str.strip)),
        "type": draw(ANY_TEXT.filter(bool)),
        "body": draw(st.text(max_size=40).map(lambda b: b.replace("\r", "").strip("\n"))),
        "title": draw(st.none() | LINE_TEXT.filter(bool)),
        "status": draw(st.sampled_from(STATUSES)),
        "supersedes": draw(st.lists(ANY_TEXT, max_size=2)),
        "superseded_by": draw(st.none() | ANY_TEXT.filter(bool)),
        "provenance": draw(st.dictionaries(ANY_TEXT, YAML_VALUE, max_size=2)),
        "confidence": draw(st.none() | st.floats(min_value=0, max_value=1)),
        "keywords": draw(st.lists(ANY_TEXT, max_size=2)),
        "recheck": draw(st.none() | ANY_TEXT.filter(bool)),
        "metadata": draw(
            st.dictionaries(ANY_TEXT.filter(lambda k: k != "type"), YAML_VALUE, max_size=2)
        ),
        "path": draw(st.none() | st.just(Path("/root/entry.md"))),
        "scope": draw(st.none() | st.just("project")),
    }


def as_read(entry: Any) -> tuple[dict[str, Any], str]:
    return entry.to_dict(), entry.body


@settings(max_examples=150, deadline=None)
@given(entry_fields())
def test_memls_writes_the_same_bytes_as_gptme(fields: dict[str, Any]):
    assert MemoryEntry(**fields).to_markdown() == GptmeEntry(**fields).to_markdown()


@settings(max_examples=100, deadline=None)
@given(entry_fields())
def test_gptme_reads_memls_output_as_the_same_entry(fields: dict[str, Any]):
    ours = MemoryEntry(**fields)
    read = gptme_entry_from_text(
        ours.to_markdown(), path=ours.path, scope=ours.scope, strict=True
    )
    assert as_read(read) == as_read(ours)


@settings(max_examples=100, deadline=None)
@given(entry_fields())
def test_memls_reads_gptme_output_as_the_same_entry(fields: dict[str, Any]):
    theirs = GptmeEntry(**fields)
    read = entry_from_text(
        theirs.to_markdown(), path=theirs.path, scope=theirs.scope, strict=True
    )
    assert as_read(read) == as_read(theirs)


# Hand-written frontmatter lines, valid and not, to compare both readers on
# files neither tool wrote. Lines starting with "---" are left out: there the
# closing-delimiter rules differ on purpose.
FRONTMATTER_LINES = [
    "name: a",
    "name: 42",
    "name: ''",
    "name: false",
    "name: 'quoted'",
    'description: "d"',
    "description: note: colon",
    "description: 42",
    "description:",
    "title: T",
    "title: 0",
    "type: reference",
    "type: [x]",
    "metadata:",
    "  type: feedback",
    "  originSessionId: abc",
    "  type: ''",
    "metadata: nope",
    "status: superseded",
    "status: bogus",
    "status: false",
    "confidence: 0.5",
    "confidence: '0.5'",
    "confidence: 2",
    "confidence: true",
    "confidence: nope",
    "supersedes: old",
    "supersedes:",
    "- w",
    "- 42",
    "keywords: [a, 42]",
    "superseded_by: ''",
    "superseded_by: 42",
    "recheck: 2026-09-28",
    "provenance: {s: 1}",
    "provenance: nope",
    "owner: me",
    "x: !!python/object:os.system ls",
    "  - nested",
    "# comment",
    "",
    "[unclosed",
]


def outcome(read: Any, text: str, strict: bool) -> Any:
    """What a reader makes of ``text``: the entry's dict form, or its error kind."""
    try:
        entry = read(text, path=Path("/root/stem.md"), strict=strict)
    except (MemoryFrontmatterError, *_frontmatter_errors()) as exc:
        message = str(exc)
        return ("strict", "invalid YAML" if message.startswith("invalid YAML") else message)
    except (MemoryParseError, GptmeParseError) as exc:
        return ("not-entry", str(exc))
    return as_read(entry)


def _frontmatter_errors() -> tuple[type[Exception], ...]:
    from gptme.memory.schema import MemoryFrontmatterError as GptmeFrontmatterError

    return (GptmeFrontmatterError,)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FRONTMATTER_LINES), max_size=8), st.booleans())
def test_both_readers_agree_on_hand_written_frontmatter(lines: list[str], strict: bool):
    text = "---\n" + "\n".join(lines) + "\n---\n\nbody\n"
    assert outcome(entry_from_text, text, strict) == outcome(gptme_entry_from_text, text, strict)
