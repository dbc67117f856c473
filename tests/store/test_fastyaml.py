"""The flat-frontmatter fast path: exactly the full loader's result, or a decline.

The oracle is ``load_yaml(..., fast=False)`` (PyYAML's SafeLoader +
span computation). Values are compared with their types (``1``, ``1.0`` and
``True`` are equal in Python but not the same YAML), dicts with their key order.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memls.store.entry import MemoryEntry
from memls.store.fastyaml import parse_flat_mapping
from memls.store.frontmatter import load_yaml, normalize_text, split_frontmatter

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import corpus  # noqa: E402


def typed(value: Any) -> Any:
    """A comparable form that keeps types, key order and the sign of zero."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def full(text: str, first_line: int = 1) -> tuple[Any, Any, Any]:
    data, problem, keys, _ = load_yaml(text, first_line, fast=False)
    return typed(data), problem, keys


def fast(text: str, first_line: int = 1) -> tuple[Any, Any, Any] | None:
    result = parse_flat_mapping(text, first_line)
    if result is None:
        return None
    data, keys = result
    return typed(data), None, keys


# --- the grammar of generated frontmatter ------------------------------------

TRICKY = [
    "yes", "No", "ON", "off", "True", "FALSE", "y", "n", "1e3", "1.0e+3", "1.5", "-1.5", "+2.", ".5",
    "-.5", "0x1F", "0o17", "017", "0b11", "1_000", "0", "-0", "+0", "-0.0", "12", "123456789012345678901",
    "12:30:00", "1:30", "2026-01-01", "2026-1-1", "2026-01-01 10:00:00", "2026-01-01T10:00:00Z",
    "null", "Null", "NULL", "~", "", ".inf", "-.Inf", ".NaN", "<<", "=", "!", "&", "*",
    "it's", 'a "b" c', "a: b", "a:b", "a:", "a #b", "a#b", "#c", "-x", "- x", "-", "?x", ":x",
    "[x]", "{x}", "x]", "a,b", "a, b", "*a", "&a", "!t", "!!str x", "%x", "@x", "`x`", "|", ">",
    "x  ", "  x", "a\tb", "\t", "ünïcødé", "日本語", "emoji 🎉", "a\x85b", "a\u2028b", "a\u2029b",
    "a\ufeffb", "a\x07b", "a\x7fb", "\\", "a\\nb", "a\\\\b", 'a\\"b', "a\\x41", "...", "---", "- - x",
    "'", '"', "''", '""', "a'b", 'a"b', "x:y:z", "a ]", "a}", "a, [b]", "http://x.io/a#b", "k: v: w",
]
PLAIN_WORD = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)
SCALAR_TEXT = st.one_of(
    st.sampled_from(TRICKY),
    st.sampled_from(TRICKY),
    PLAIN_WORD,
    # Control characters come from TRICKY, so that most texts here stay loadable.
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8),
)


def double_quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@st.composite
def scalar(draw: st.DrawFn) -> str:
    text = draw(SCALAR_TEXT)
    style = draw(st.sampled_from(["plain", "plain", "plain", "double", "double", "single", "raw-double"]))
    if style == "double":
        return double_quoted(text)
    if style == "single":
        return single_quoted(text)
    if style == "raw-double":  # backslashes left as written: escapes the fast path must decline
        return '"' + text + '"'
    return text


@st.composite
def flow_list(draw: st.DrawFn) -> str:
    items = draw(st.lists(scalar(), max_size=4))
    comma = draw(st.sampled_from([", ", ",", " , "]))
    pad = draw(st.sampled_from(["", " "]))
    return "[" + pad + comma.join(items) + pad + "]"


# Mostly well-formed, with a tail of trouble: the point is accepted texts that
# hold one tricky piece, plus enough declined ones to see where the edge is.
GOOD_KEYS = st.sampled_from(
    ["name", "description", "type", "metadata", "keywords", "a-b", "_x", "x1", "Name"]
)
KEYS = st.one_of(
    *[PLAIN_WORD, GOOD_KEYS] * 4,
    st.sampled_from(["yes", "on", "No", "null", "y", "1", "<<", "x y", "-k", "k:", "~", "ünï", "a_b-c"]),
)
SEP = st.sampled_from([": "] * 24 + [":  ", ":\t", ":", " : "])
TRAIL = st.sampled_from([""] * 24 + ["  ", " # c", "\t"])


@st.composite
def inline_line(draw: st.DrawFn, indent: str) -> str:
    value = draw(st.one_of(scalar(), scalar(), scalar(), flow_list(), st.just("")))
    return indent + draw(KEYS) + draw(SEP) + value + draw(TRAIL)


@st.composite
def block_list(draw: st.DrawFn) -> list[str]:
    indent = " " * draw(st.sampled_from([0, 0, 2, 2, 1, 4]))
    items = draw(st.lists(st.one_of(scalar(), scalar(), scalar(), st.just("")), min_size=1, max_size=4))
    dash = draw(st.sampled_from(["- ", "- ", "- ", "-  ", "-"]))
    return [indent + dash + item + draw(TRAIL) for item in items]


@st.composite
def block_mapping(draw: st.DrawFn) -> list[str]:
    indent = " " * draw(st.sampled_from([2, 2, 2, 1, 4]))
    lines = draw(st.lists(inline_line(indent), min_size=1, max_size=4))
    if draw(st.integers(0, 7)) == 0:
        lines.append(indent + "  deeper: x")  # nested one level too deep
    return lines


@st.composite
def top_entry(draw: st.DrawFn) -> list[str]:
    kinds = ["inline"] * 10 + ["mapping"] * 3 + ["list"] * 3 + ["comment", "blank", "odd"]
    kind = draw(st.sampled_from(kinds))
    if kind == "inline":
        return [draw(inline_line(""))]
    if kind in ("mapping", "list"):
        head = draw(KEYS) + draw(st.sampled_from([":", ":", ":  ", ": # c"]))
        return [head, *draw(block_mapping() if kind == "mapping" else block_list())]
    if kind == "comment":
        return [draw(st.sampled_from(["# note", "  # note", "#"]))]
    if kind == "blank":
        return [draw(st.sampled_from(["", "", "  ", "\t"]))]
    return [draw(st.sampled_from(["---", "...", "- x", "? x", "&a x: 1", "x: *a", "x: !!str 1", "x: |",
                                  "  y", "x: >-", "%YAML 1.1", "x: {a: 1}", "x: [a, [b]]"]))]


@st.composite
def frontmatter_text(draw: st.DrawFn) -> str:
    groups = draw(st.lists(top_entry(), min_size=1, max_size=5))
    text = "\n".join(line for group in groups for line in group)
    return text + draw(st.sampled_from(["", "", "\n", "\n\n"]))


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frontmatter_text(), st.sampled_from([0, 1, 5]))
def test_fast_path_result_equals_full_loader_whenever_it_accepts(text: str, first_line: int) -> None:
    result = fast(text, first_line)
    if result is not None:
        assert result == full(text, first_line)


# --- a grammar the fast path must always accept ------------------------------

CLEAN_TEXT = st.text(
    # U+FFFE and U+FFFF are outside YAML's printable set: PyYAML (and so gptme) refuses them.
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\ufeff\x85\ufffe\uffff"),
    max_size=20,
)


@st.composite
def clean_frontmatter(draw: st.DrawFn, tricky: bool = False) -> str:
    """gptme-shaped frontmatter; with ``tricky``, every value is drawn from the tricky scalars."""
    keys = draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_]{2,10}", fullmatch=True), min_size=1, max_size=6,
                         unique=True))
    lines: list[str] = []
    for key in keys:
        kinds = ["quoted", "single", "slug", "mapping", "list0", "list2", "flow", "empty"]
        kind = draw(st.sampled_from(kinds))
        if tricky and kind in ("quoted", "single", "slug"):
            lines.append(f"{key}: {draw(scalar())}")
        elif tricky and kind in ("mapping", "list0", "list2"):
            lines.append(f"{key}:")
            pad = "" if kind == "list0" else "  "
            head = pad + ("- " if kind != "mapping" else "k: ")
            lines.extend(head + value for value in draw(st.lists(scalar(), min_size=1, max_size=3)))
        elif kind == "quoted":
            lines.append(f"{key}: {double_quoted(draw(CLEAN_TEXT))}")
        elif kind == "single":
            lines.append(f"{key}: {single_quoted(draw(CLEAN_TEXT))}")
        elif kind == "slug":
            lines.append(f"{key}: {draw(PLAIN_WORD)}")
        elif kind == "mapping":
            inner = draw(st.lists(st.from_regex(r"[a-z][a-zA-Z]{2,10}", fullmatch=True), min_size=1,
                                  max_size=3, unique=True))
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {double_quoted(draw(CLEAN_TEXT))}" for k in inner)
        elif kind in ("list0", "list2"):
            pad = "" if kind == "list0" else "  "
            lines.append(f"{key}:")
            lines.extend(f"{pad}- {w}" for w in draw(st.lists(PLAIN_WORD, min_size=1, max_size=4)))
        elif kind == "flow":
            lines.append(f"{key}: [{', '.join(draw(st.lists(PLAIN_WORD, max_size=4)))}]")
        else:
            lines.append(f"{key}:")
    return "\n".join(lines)


@settings(max_examples=400, deadline=None)
@given(clean_frontmatter())
def test_fast_path_accepts_flat_frontmatter_and_matches_full_loader(text: str) -> None:
    result = fast(text)
    assert result is not None
    assert result == full(text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clean_frontmatter(tricky=True))
def test_fast_path_matches_full_loader_on_tricky_values_in_flat_frontmatter(text: str) -> None:
    result = fast(text)
    if result is not None:
        assert result == full(text)


# --- what memls and gptme write ----------------------------------------------

SLUG = st.from_regex(r"[a-z][a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)
WORDS = st.text(st.characters(whitelist_categories=("L", "N", "Zs", "Po")), max_size=40)


@st.composite
def typical_entry(draw: st.DrawFn) -> MemoryEntry:
    metadata: dict[str, Any] = {}
    if draw(st.booleans()):
        metadata["originSessionId"] = draw(st.uuids()).hex
    return MemoryEntry(
        name=draw(SLUG),
        description=draw(WORDS),
        type=draw(st.sampled_from(["user", "feedback", "project", "reference", "general", "runbook"])),
        title=draw(st.one_of(st.none(), WORDS)),
        status=draw(st.sampled_from(["living", "superseded", "historical"])),
        supersedes=draw(st.lists(SLUG, max_size=3)),
        superseded_by=draw(st.one_of(st.none(), SLUG)),
        provenance=draw(st.one_of(st.just({}), st.fixed_dictionaries(
            {"source": st.sampled_from(["session", "review"]), "date": st.just("2025-03-14")}))),
        confidence=draw(st.one_of(st.none(), st.floats(0, 1).map(lambda f: round(f, 2)))),
        keywords=draw(st.lists(SLUG, max_size=4)),
        recheck=draw(st.one_of(st.none(), st.just("2026-09-28"))),
        metadata=metadata,
    )


def test_fast_path_accepts_typical_entries_as_serialized_and_matches_full_loader() -> None:
    entries = typical_entry()
    accepted = 0
    examples = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(entries)
    def collect(entry: MemoryEntry) -> None:
        examples.append(entry.to_markdown())

    collect()
    for markdown in examples:
        frontmatter = split_frontmatter(markdown)
        assert frontmatter is not None
        result = fast(frontmatter.yaml_text)
        if result is not None:
            accepted += 1
            assert result == full(frontmatter.yaml_text)
    assert accepted >= 0.95 * len(examples), f"accepted {accepted} of {len(examples)}"


def test_fast_path_accepts_nine_in_ten_benchmark_corpus_files_with_identical_results(tmp_path: Path) -> None:
    corpus.generate(tmp_path / "root", 2000, seed=1, defects=0.02)
    accepted = total = 0
    for path in sorted((tmp_path / "root").glob("*.md")):
        frontmatter = split_frontmatter(normalize_text(path.read_text(encoding="utf-8")))
        if frontmatter is None:
            continue
        total += 1
        result = fast(frontmatter.yaml_text)
        if result is not None:
            accepted += 1
            assert result == full(frontmatter.yaml_text), path.name
    assert total >= 2000
    assert accepted >= 0.9 * total, f"accepted {accepted} of {total}"


# --- declines the full loader must handle ------------------------------------


def test_load_yaml_falls_back_for_a_date_and_returns_the_date() -> None:
    text = "name: a\nrecheck: 2026-09-28"
    assert parse_flat_mapping(text, 1) is None
    data, problem, _, _ = load_yaml(text, 1)
    assert problem is None and type(data["recheck"]).__name__ == "date"


def test_load_yaml_falls_back_for_a_control_character_and_reports_it() -> None:
    text = "name: a\x07b"
    assert parse_flat_mapping(text, 1) is None
    _, problem, _, _ = load_yaml(text, 1)
    assert problem is not None and "#x0007" in problem.message


def test_load_yaml_falls_back_for_an_unknown_escape_and_decodes_it() -> None:
    text = 'description: "tab\\there"'
    assert parse_flat_mapping(text, 1) is None
    assert load_yaml(text, 1)[0] == {"description": "tab\there"}


def test_load_yaml_fast_and_full_agree_on_a_gptme_entry() -> None:
    entry = MemoryEntry(name="deploy-notes", description='Say "hi" \\ bye', keywords=["ci", "yes"],
                        confidence=0.5, metadata={"originSessionId": "abc"})
    yaml_text = split_frontmatter(entry.to_markdown()).yaml_text
    assert parse_flat_mapping(yaml_text, 1) is not None
    assert typed(load_yaml(yaml_text, 1)[0]) == typed(load_yaml(yaml_text, 1, fast=False)[0])
    assert load_yaml(yaml_text, 1)[2] == load_yaml(yaml_text, 1, fast=False)[2]


def test_fast_path_declines_duplicate_keys_so_the_last_one_wins_as_in_the_full_loader() -> None:
    text = "name: a\nname: b"
    assert parse_flat_mapping(text, 1) is None
    assert load_yaml(text, 1)[0] == {"name": "b"}


def test_random_shuffles_of_corpus_lines_never_disagree() -> None:
    """Reordered and re-indented lines of real entries: accepted ones still agree."""
    rng = random.Random(3)
    base = (
        "name: a-b\ntitle: \"T\"\ndescription: \"d: x\"\nmetadata:\n  type: project\n"
        "  originSessionId: 0123abcd\nconfidence: 0.63\nkeywords:\n- ci\n- 'on'\nsupersedes:\n  - x-y"
    ).split("\n")
    for _ in range(300):
        lines = base[:]
        rng.shuffle(lines)
        if rng.random() < 0.5:
            i = rng.randrange(len(lines))
            lines[i] = rng.choice(["", " ", "  ", "    "]) + lines[i].lstrip(" ")
        text = "\n".join(lines)
        result = fast(text)
        if result is not None:
            assert result == full(text), text


def test_whole_line_comments_are_read_by_the_fast_path_as_the_full_loader_reads_them() -> None:
    text = ("# written by the agent\nname: deploy\n  # indented\nkeywords:\n# between\n- a\n  #\n- b\n"
            "metadata:\n  # inside\n  type: procedure\n# last")
    accepted = fast(text)
    assert accepted is not None
    assert accepted == full(text)


def test_a_key_past_pyyaml_s_1024_character_limit_is_left_to_the_full_loader_which_refuses_it() -> None:
    # PyYAML (and so gptme) stops looking for the ':' 1,024 characters after a key starts.
    import yaml

    for length in (1024, 1025):
        text = f"name: deploy\ndescription: notes\n{'k' * length}: v\n"
        gptme_refuses = False
        try:
            yaml.safe_load(text)
        except yaml.YAMLError:
            gptme_refuses = True
        assert (parse_flat_mapping(text, 1) is None) == gptme_refuses
        assert (load_yaml(text, 1).problem is not None) == gptme_refuses
