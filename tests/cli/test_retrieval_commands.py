"""``recall`` and ``match``: what a hook or an agent gets for a prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .cli_helpers import assert_one_line_error, save_entry

GUARDRAIL_BODY = "Anthropic model requests are blocked by the OpenRouter guardrail."


def tree(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file()}


@pytest.fixture
def guardrail(run):
    save_entry(
        run, "openrouter-guardrail", "OpenRouter blocks Anthropic models.", GUARDRAIL_BODY
    )


@pytest.fixture
def release_rule(run):
    save_entry(
        run, "release-rule", "How to cut releases.", "Tag from main only.",
        "--keyword", "stable release",
    )
    save_entry(run, "no-keywords", "Mentions stable release but has no keywords.")


def hook_output(result) -> dict:
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert list(payload) == ["hookSpecificOutput"]
    return payload["hookSpecificOutput"]


def test_recall_hook_json_from_claude_code_payload(run, guardrail):
    payload = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt":
         "Why are Anthropic model requests blocked by the OpenRouter guardrail?"}
    )
    result = run(
        "recall", "--prompt", "-", "--backend", "overlap", "--format", "hook-json",
        input=payload,
    )
    output = hook_output(result)
    assert output["hookEventName"] == "UserPromptSubmit"
    assert "openrouter-guardrail" in output["additionalContext"]
    assert "backend=overlap" in output["additionalContext"]


def test_recall_json_with_no_matches_is_backend_and_empty_hits(run, guardrail):
    result = run("recall", "completely unrelated words", "--backend", "overlap", "--format", "json")
    assert json.loads(result.stdout) == {"backend": "overlap", "hits": []}


def test_recall_text_prints_backend_name_and_body(run, guardrail):
    result = run("recall", "Anthropic OpenRouter guardrail requests", "-k", "5")
    assert result.exit_code == 0, result.stderr
    assert "backend=bm25" in result.stdout
    assert "openrouter-guardrail" in result.stdout and "blocked by the OpenRouter" in result.stdout


def test_recall_text_with_no_hits_prints_nothing(run, guardrail):
    result = run("recall", "completely unrelated words", "--backend", "overlap")
    assert (result.exit_code, result.stdout) == (0, "")


def test_recall_hook_json_with_no_hits_has_empty_context(run, guardrail):
    result = run("recall", "unrelated words here", "--backend", "overlap", "--format", "hook-json")
    assert hook_output(result) == {"hookEventName": "UserPromptSubmit", "additionalContext": ""}


@pytest.mark.parametrize("backend", ["auto", "bm25", "overlap"])
def test_recall_json_reports_backend_that_ran(run, guardrail, backend):
    result = run(
        "recall", "Anthropic guardrail OpenRouter", "--backend", backend, "--format", "json"
    )
    data = json.loads(result.stdout)
    assert data["backend"] == ("bm25" if backend == "auto" else backend)
    assert [hit["name"] for hit in data["hits"]] == ["openrouter-guardrail"]
    assert data["hits"][0]["body"] == GUARDRAIL_BODY


def test_recall_reads_piped_stdin_when_no_query(run, guardrail):
    result = run("recall", "--backend", "overlap", "--format", "json",
                 input="Anthropic guardrail OpenRouter")
    assert [h["name"] for h in json.loads(result.stdout)["hits"]] == ["openrouter-guardrail"]


def test_recall_query_and_prompt_together_is_usage_error(run, guardrail):
    result = run("recall", "query", "--prompt", "other")
    assert result.exit_code == 2


def test_recall_limit_zero_is_usage_error(run, guardrail):
    assert run("recall", "query words", "-k", "0").exit_code == 2


def test_recall_rejects_unknown_backend(run, guardrail):
    assert run("recall", "query words", "--backend", "vector").exit_code == 2


def test_recall_body_chars_bounds_summary(run, memory_dir):
    save_entry(run, "long", "Long entry about guardrail tokens.", "line one\n" + "x" * 80)
    result = run("recall", "long guardrail tokens", "--backend", "overlap", "--body-chars", "20")
    assert "  line one xxxxxxxx...\n" in result.stdout


def test_match_keyword_hit_json_has_matched_by_and_body(run, release_rule):
    result = run("match", "Cut the STABLE RELEASE", "--format", "json")
    hits = json.loads(result.stdout)["hits"]
    assert [h["name"] for h in hits] == ["release-rule"]
    assert hits[0]["matched_by"] == ["keyword:stable release"]
    assert hits[0]["body"] == "Tag from main only."


def test_match_excludes_superseded_and_shadowed_entries_and_changes_nothing(run, tmp_path):
    near, far = tmp_path / "near", tmp_path / "far"
    run("save", "rule", "Far living rule.", "--keyword", "deploy", dirs=[far])
    run("save", "rule", "Near retired rule.", "--keyword", "deploy", dirs=[near])
    run("historical", "rule", dirs=[near])
    run("save", "old", "Old.", "--keyword", "deploy", dirs=[near])
    run("save", "new", "New.", dirs=[near])
    run("supersede", "old", "new", dirs=[near])
    before = (tree(near), tree(far))
    result = run("match", "deploy now", "--format", "json", dirs=[near, far])
    assert json.loads(result.stdout) == {"hits": []}
    assert (tree(near), tree(far)) == before


def test_match_limit_keeps_best_hits(run):
    save_entry(run, "two", "Two.", "", "--keyword", "time*", "--keyword", "retry")
    save_entry(run, "one", "One.", "", "--keyword", "retry")
    result = run("match", "TIMEOUTS retry", "-k", "1", "--format", "json")
    assert [h["name"] for h in json.loads(result.stdout)["hits"]] == ["two"]


def test_match_user_prompt_payload_echoes_event_and_bounds_body(run, release_rule):
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "stable release"})
    result = run("match", "--prompt", "-", "--format", "hook-json", "--body-chars", "5",
                 input=payload)
    output = hook_output(result)
    assert output["hookEventName"] == "UserPromptSubmit"
    assert "Tag from main only." not in output["additionalContext"]
    assert "Ta..." in output["additionalContext"]


def test_match_pre_tool_payload_reads_tool_input(run, release_rule):
    payload = json.dumps({
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git tag stable release"},
    })
    output = hook_output(run("match", "--prompt", "-", "--format", "hook-json", input=payload))
    assert output["hookEventName"] == "PreToolUse"
    assert "release-rule" in output["additionalContext"]


@pytest.mark.parametrize(
    "payload",
    [
        {"hook_event_name": "Stop", "prompt": "stable release"},
        {"hook_event_name": "PreToolUse", "tool_input": "stable release"},
        {"hook_event_name": "UserPromptSubmit", "prompt": ["stable release"]},
        {"hook_event_name": "PreToolUse", "cwd": "/stable release", "tool_input": {}},
        ["stable release"],
    ],
    ids=["stop", "string-tool-input", "list-prompt", "envelope-only", "json-list"],
)
def test_match_ignores_unrelated_or_invalid_payloads(run, release_rule, payload):
    result = run("match", "--prompt", "-", "--format", "json", input=json.dumps(payload))
    assert json.loads(result.stdout) == {"hits": []}


def test_match_unsupported_event_is_echoed_with_empty_context(run, release_rule):
    payload = json.dumps({"hook_event_name": "Stop", "prompt": "stable release"})
    output = hook_output(run("match", "--prompt", "-", "--format", "hook-json", input=payload))
    assert output == {"hookEventName": "Stop", "additionalContext": ""}


def test_match_plain_text_with_pre_tool_answers_as_pre_tool_use(run, release_rule):
    hit = hook_output(run("match", "stable release", "--pre-tool", "--format", "hook-json"))
    miss = hook_output(run("match", "nothing", "--pre-tool", "--format", "hook-json"))
    assert hit["hookEventName"] == miss["hookEventName"] == "PreToolUse"
    assert hit["additionalContext"] and not miss["additionalContext"]


def test_match_text_prints_triggered_block(run, release_rule):
    result = run("match", "stable release")
    assert result.stdout.startswith("<memory_triggered_entries>")
    assert "### release-rule" in result.stdout


def test_match_query_and_prompt_together_is_usage_error(run, release_rule):
    assert run("match", "a", "--prompt", "b").exit_code == 2


def test_recall_forced_tfidf_unavailable_fails_cleanly(run, guardrail, monkeypatch):
    import importlib

    from memls.store.errors import RecallBackendUnavailable

    def unavailable(*args, **kwargs):
        raise RecallBackendUnavailable("tfidf backend is unavailable")

    # The command imports recall() from its module when it runs.
    monkeypatch.setattr(importlib.import_module("memls.store.recall"), "recall", unavailable)
    assert_one_line_error(
        run("recall", "guardrail words", "--backend", "tfidf"), contains="unavailable"
    )
