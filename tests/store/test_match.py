"""Match: keyword triggers, ranking, rendering, and reading hook payloads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memls.store.entry import MemoryEntry
from memls.store.match import (
    MemoryMatch,
    hook_event_text,
    match_entries,
    match_memories,
    recall_prompt_text,
    render_matches,
)


class ListStore:
    """The part of MemoryStore match uses: the layered entries, all statuses."""

    def __init__(self, entries: list[MemoryEntry]):
        self._entries = entries

    def entries(self, status: str | None = None) -> list[MemoryEntry]:
        return [e for e in self._entries if status is None or e.status == status]


def keyworded(name: str, *keywords: str, **fields) -> MemoryEntry:
    return MemoryEntry(
        name, f"{name} description", keywords=list(keywords), path=Path(f"/m/{name}.md"), **fields
    )


SECTION_11 = [
    keyworded("disabled", "", "*", "  "),
    keyworded("one", "retry"),
    keyworded("punctuation", "time*out"),
    keyworded("two", "time*", "retry"),
]


def ranked(matches: list[MemoryMatch]) -> list[tuple[str, float]]:
    return [(m.entry.name, m.score) for m in matches]


# -- keyword semantics ------------------------------------------------------------


def test_wildcard_and_ranking_example_from_the_reference():
    matches = match_entries(SECTION_11, "TIMEOUTS retry time-out")
    assert ranked(matches) == [("two", 2.0), ("one", 1.0), ("punctuation", 1.0)]
    assert matches[0].matched_by == ["keyword:time*", "keyword:retry"]


def test_wildcard_never_spans_punctuation():
    assert match_entries(SECTION_11[2:3], "a time-out happened") == []
    assert ranked(match_entries(SECTION_11[2:3], "a timed out")) == []
    assert ranked(match_entries(SECTION_11[2:3], "timeXYout")) == [("punctuation", 1.0)]


def test_blank_and_lone_star_keywords_never_match():
    assert match_entries(SECTION_11[:1], "anything * at all  ") == []


def test_keywords_match_as_case_insensitive_substrings():
    entry = keyworded("errors", "Err")
    assert ranked(match_entries([entry], "a BERRY")) == [("errors", 1.0)]


def test_keyword_is_trimmed_but_reported_as_stored():
    entry = keyworded("release", "  stable release ")
    match = match_entries([entry], "Cut the STABLE RELEASE")[0]
    assert match.matched_by == ["keyword:  stable release "]


def test_regex_characters_in_keywords_are_literal():
    entry = keyworded("dots", "a.b(c)")
    assert match_entries([entry], "axb(c)") == []
    assert ranked(match_entries([entry], "see a.b(c) now")) == [("dots", 1.0)]


def test_names_descriptions_and_bodies_never_trigger():
    entry = MemoryEntry("retry", "retry things", body="retry", path=Path("/m/r.md"))
    assert match_entries([entry], "retry") == []


def test_limit_cuts_the_ranking():
    assert ranked(match_entries(SECTION_11, "TIMEOUTS retry", limit=1)) == [("two", 2.0)]


def test_blank_text_matches_nothing():
    assert match_entries(SECTION_11, "  \n\t") == []


@pytest.mark.parametrize("limit", [0, -2])
def test_non_positive_limit_is_rejected(limit):
    with pytest.raises(ValueError, match="positive"):
        match_entries(SECTION_11, "retry", limit=limit)
    with pytest.raises(ValueError, match="positive"):
        match_memories(ListStore(SECTION_11), "retry", limit=limit)


def test_equal_scores_are_ordered_by_name_whatever_the_input_order():
    entries = [keyworded(n, "retry") for n in ("zeta", "alpha", "mid")]
    assert [m.entry.name for m in match_entries(entries, "retry")] == [
        "alpha",
        "mid",
        "zeta",
    ]


def test_same_path_listed_twice_counts_once():
    entry = keyworded("one", "retry")
    assert len(match_entries([entry, entry], "retry")) == 1


# -- candidates ------------------------------------------------------------------


def test_superseded_historical_and_keywordless_entries_are_excluded():
    store = ListStore(
        [
            keyworded("old", "deploy", status="superseded", superseded_by="new"),
            keyworded("gone", "deploy", status="historical"),
            MemoryEntry("plain", "deploy", path=Path("/m/plain.md")),
            keyworded("new", "deploy"),
        ]
    )
    assert ranked(match_memories(store, "deploy now")) == [("new", 1.0)]


def test_a_nearer_historical_entry_shadows_a_farther_living_one():
    class ShadowingStore:
        """Like MemoryStore: entries() shadows by name, status= filters after."""

        def entries(self, status: str | None = None) -> list[MemoryEntry]:
            near = keyworded("rule", "deploy", status="historical", scope="project")
            assert status is None, "match must shadow before filtering by status"
            return [near]

    assert match_memories(ShadowingStore(), "deploy") == []


# -- rendering -------------------------------------------------------------------


def test_render_matches_layout_keeps_body_lines():
    entry = keyworded("release", "stable release", title="Release rule", scope="project")
    entry.body = "\nLine one.\n\nLine two.\n"
    bare = keyworded("bare", "retry", scope="user")
    rendered = render_matches(
        [MemoryMatch(entry, 1.0, ["keyword:stable release"]), MemoryMatch(bare, 1.0, [])]
    )
    assert rendered == "\n\n".join(
        [
            "<memory_triggered_entries>",
            "## Triggered Memories",
            "### Release rule",
            "Source: /m/release.md (scope: project)",
            "Line one.\n\nLine two.",
            "### bare",
            "Source: /m/bare.md (scope: user)",
            "bare description",
            "</memory_triggered_entries>",
        ]
    )


def test_render_matches_truncates_the_body():
    entry = keyworded("long", "x", body="line one\n" + "x" * 80)
    rendered = render_matches([MemoryMatch(entry, 1.0, [])], body_chars=20)
    assert "\n\nline one\nxxxxxxxx...\n\n" in rendered


@pytest.mark.parametrize("body_chars", [1, 2, 3])
def test_render_matches_tiny_body_chars_is_a_hard_cut(body_chars):
    entry = keyworded("long", "x", body="abcdefgh")
    rendered = render_matches([MemoryMatch(entry, 1.0, [])], body_chars=body_chars)
    assert rendered.split("\n\n")[4] == "abcdefgh"[:body_chars]


def test_render_matches_with_no_hits_is_empty():
    assert render_matches([]) == ""


def test_render_matches_rejects_a_non_positive_body_chars():
    with pytest.raises(ValueError, match="positive"):
        render_matches([], body_chars=0)


def test_match_dict_has_gptme_key_order():
    keys = list(MemoryMatch(keyworded("a", "k"), 1.0, ["keyword:k"]).to_dict())
    assert keys[-3:] == ["body", "score", "matched_by"]


# -- hook payloads ---------------------------------------------------------------


def payload(**fields) -> str:
    return json.dumps(fields)


def test_user_prompt_submit_payload_gives_its_prompt():
    text = payload(hook_event_name="UserPromptSubmit", prompt="cut the release", cwd="/w")
    assert hook_event_text(text, default_event="PreToolUse") == (
        "cut the release",
        "UserPromptSubmit",
    )


def test_pre_tool_use_payload_gives_every_string_under_tool_input_in_order():
    text = payload(
        hook_event_name="PreToolUse",
        tool_name="Bash",
        cwd="/outer",
        session_id="s1",
        transcript_path="/t.jsonl",
        tool_input={"command": "git push", "opts": [1, {"cwd": "/inner"}, "x"], "n": None},
    )
    assert hook_event_text(text, default_event="UserPromptSubmit") == (
        "git push\n/inner\nx",
        "PreToolUse",
    )


def test_pre_tool_use_reads_strings_from_deeply_nested_tool_input():
    # ~900 levels: about as deep as json.loads itself accepts.
    nested = '{"k": [' * 450 + '"deep deploy"' + "]}" * 450
    text = '{"hook_event_name": "PreToolUse", "tool_input": ' + nested + "}"
    assert hook_event_text(text, default_event="PreToolUse") == ("deep deploy", "PreToolUse")


@pytest.mark.parametrize(
    "text",
    [
        payload(hook_event_name="PreToolUse", tool_input="git push"),
        payload(hook_event_name="PreToolUse", tool_input=["git push"]),
        payload(hook_event_name="PreToolUse", cwd="/deploy", tool_name="deploy"),
    ],
)
def test_pre_tool_use_without_an_object_tool_input_gives_no_text(text):
    assert hook_event_text(text, default_event="UserPromptSubmit") == ("", "PreToolUse")


def test_non_string_prompt_gives_no_text():
    text = payload(hook_event_name="UserPromptSubmit", prompt=["deploy"])
    assert hook_event_text(text, default_event="PreToolUse") == ("", "UserPromptSubmit")


def test_envelope_only_payload_gives_no_text():
    text = payload(cwd="/deploy", session_id="deploy")
    assert hook_event_text(text, default_event="UserPromptSubmit") == ("", "UserPromptSubmit")


def test_unsupported_event_is_echoed_with_no_text():
    text = payload(hook_event_name="Stop", prompt="deploy", tool_input={"c": "deploy"})
    assert hook_event_text(text, default_event="UserPromptSubmit") == ("", "Stop")


def test_missing_event_uses_the_default_event():
    text = payload(tool_input={"command": "deploy"})
    assert hook_event_text(text, default_event="PreToolUse") == ("deploy", "PreToolUse")
    assert hook_event_text(payload(prompt="hi"), default_event="UserPromptSubmit") == (
        "hi",
        "UserPromptSubmit",
    )


def test_non_string_event_name_falls_back_to_the_default():
    text = payload(hook_event_name=None, prompt="hi")
    assert hook_event_text(text, default_event="UserPromptSubmit") == ("hi", "UserPromptSubmit")


@pytest.mark.parametrize("text", ["[1, 2]", '"deploy"', "42", "null"])
def test_json_that_is_not_an_object_gives_no_text(text):
    assert hook_event_text(text, default_event="PreToolUse") == ("", "PreToolUse")


def test_plain_text_is_the_text_itself_with_the_default_event():
    assert hook_event_text("git push --force\n", default_event="PreToolUse") == (
        "git push --force\n",
        "PreToolUse",
    )


def test_json_too_deep_to_parse_gives_no_text():
    deep = "[" * 100_000 + "]" * 100_000
    assert hook_event_text(deep, default_event="PreToolUse") == ("", "PreToolUse")


# -- recall's --prompt - rule ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (payload(prompt="find the guardrail", cwd="/w"), "find the guardrail"),
        (payload(prompt=7), ""),
        (payload(cwd="/w"), ""),
        ("[\"find\"]", ""),
        ('"find"', ""),
        ("find the guardrail\n", "find the guardrail\n"),
        ("{broken", "{broken"),
    ],
)
def test_recall_prompt_text(text, expected):
    assert recall_prompt_text(text) == expected
