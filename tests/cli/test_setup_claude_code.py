"""``memls setup claude-code``: memls's hooks merged into Claude Code's settings.json.

The installed ``memls`` runs in real processes with a workspace and a home of
the test's own; the hook commands are then taken from the written settings and
run the way Claude Code runs them (through the shell, the payload on stdin).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.editor_helpers import README, documented_block

BIN = Path(sys.executable).parent
MEMLS = BIN / "memls"

pytestmark = pytest.mark.skipif(
    not MEMLS.exists(), reason=f"console script not installed at {MEMLS} (run make install)"
)

RECALL = "memls recall --prompt - --format hook-json"
MATCH = "memls match --prompt - --format hook-json"

# Settings as a user has them: other keys, a hook of another tool on both events.
OTHER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": []},
    "env": {"FOO": "bär"},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit-bash.sh"}]}
        ],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "date"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


@pytest.fixture
def env(tmp_path: Path, workspace: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    variables = {k: v for k, v in os.environ.items() if k not in ("GPTME_MEMORY_DIRS",)}
    variables.update(
        HOME=str(home),
        GPTME_WORKSPACE=str(workspace),
        MEMLS_MEMORY_DIRS=str(workspace / "memory"),
        MEMLS_NO_CACHE="1",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return variables


def setup(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MEMLS), "setup", "claude-code", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )


def commands(settings: dict, event: str) -> list[str]:
    return [h["command"] for g in settings.get("hooks", {}).get(event, []) for h in g["hooks"]]


def test_project_setup_writes_both_hooks_into_the_workspace_settings(env, workspace):
    result = setup(env, workspace)
    assert result.returncode == 0, result.stderr
    path = workspace / ".claude" / "settings.json"
    assert result.stdout == f"Added memls hooks to {path}\n"
    settings = json.loads(path.read_text())
    assert settings == {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": RECALL}]}],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": MATCH}]}],
        }
    }
    assert path.read_text() == documented_block("claude-code-settings", "json", README), (
        "the README shows the settings.json a fresh project gets")


def test_user_scope_writes_the_home_settings_and_not_the_project(env, workspace):
    result = setup(env, workspace, "--scope", "user")
    assert result.returncode == 0, result.stderr
    assert commands(json.loads((Path(env["HOME"]) / ".claude/settings.json").read_text()),
                    "PreToolUse") == [MATCH]
    assert not (workspace / ".claude").exists()


def test_installed_hooks_answer_real_claude_code_payloads_with_hook_json(env, workspace):
    memory = workspace / "memory"
    memory.mkdir()
    (memory / "deploy-freeze.md").write_text(
        "---\nname: deploy-freeze\ndescription: No deploys on Fridays.\nkeywords:\n- kubectl apply\n"
        "metadata:\n  type: feedback\n---\n\nProduction deploys stop Friday noon.\n"
    )
    assert setup(env, workspace).returncode == 0
    settings = json.loads((workspace / ".claude/settings.json").read_text())
    common = {
        "session_id": "abc123",
        "transcript_path": str(workspace / "transcript.jsonl"),
        "cwd": str(workspace),
    }
    payloads = {
        "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit",
                             "prompt": "can we deploy on friday?"},
        "PreToolUse": {**common, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": "kubectl apply -f prod.yaml",
                                      "description": "Deploy"}},
    }
    for event, payload in payloads.items():
        [command] = commands(settings, event)
        # Claude Code runs a command hook through the shell, in the project directory.
        answer = subprocess.run(["bash", "-c", command], cwd=workspace, env=env, input=json.dumps(payload),
                                capture_output=True, text=True, timeout=60)
        assert answer.returncode == 0, answer.stderr
        output = json.loads(answer.stdout)
        assert output["hookSpecificOutput"]["hookEventName"] == event
        assert "deploy-freeze" in output["hookSpecificOutput"]["additionalContext"]
        assert "Production deploys stop Friday noon." in output["hookSpecificOutput"]["additionalContext"]


def test_setup_keeps_every_other_key_hook_and_matcher_and_adds_memls_after_them(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_SETTINGS, indent=4, ensure_ascii=False) + "\n")
    result = setup(env, workspace)
    assert result.returncode == 0, result.stderr
    settings = json.loads(path.read_text())
    assert settings["permissions"] == OTHER_SETTINGS["permissions"]
    assert settings["env"] == {"FOO": "bär"}
    assert settings["hooks"]["Stop"] == OTHER_SETTINGS["hooks"]["Stop"]
    assert settings["hooks"]["PreToolUse"][0] == OTHER_SETTINGS["hooks"]["PreToolUse"][0]
    assert commands(settings, "PreToolUse") == ["./audit-bash.sh", MATCH]
    assert commands(settings, "UserPromptSubmit") == ["date", RECALL]
    assert list(settings) == ["permissions", "env", "hooks"]
    assert path.read_text().startswith('{\n    "permissions"'), "four-space indentation kept"
    assert '"bär"' in path.read_text()


def test_setup_twice_changes_nothing_the_second_time(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_SETTINGS, indent=2))
    assert setup(env, workspace).returncode == 0
    first = path.read_bytes()
    again = setup(env, workspace)
    assert again.returncode == 0
    assert again.stdout == f"{path} already has memls's hooks; nothing changed\n"
    assert path.read_bytes() == first


def test_a_tuned_memls_command_under_another_matcher_counts_as_installed(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    tuned = {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [
        {"type": "command", "command": "/opt/bin/memls match --prompt - --format hook-json -k 2"}]}]}}
    path.write_text(json.dumps(tuned))
    assert setup(env, workspace).returncode == 0
    settings = json.loads(path.read_text())
    assert settings["hooks"]["PreToolUse"] == tuned["hooks"]["PreToolUse"]
    assert commands(settings, "UserPromptSubmit") == [RECALL]


def test_remove_takes_out_only_memls_hooks_and_restores_the_other_settings(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_SETTINGS, indent=2, ensure_ascii=False) + "\n")
    original = path.read_text()
    assert setup(env, workspace).returncode == 0
    removed = setup(env, workspace, "--remove")
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout == f"Removed memls hooks from {path}\n"
    assert path.read_text() == original


def test_remove_drops_the_groups_only_memls_filled_leaves_the_file_and_keeps_a_users_empty_list(
    env, workspace
):
    assert setup(env, workspace).returncode == 0
    path = workspace / ".claude" / "settings.json"
    assert setup(env, workspace, "--remove").returncode == 0
    assert path.read_text() == "{}\n", "the file is never deleted: the set-up cannot know it made it"

    path.write_text(json.dumps({"hooks": {"PreToolUse": [], "UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "date"}]}]}}))
    assert setup(env, workspace).returncode == 0
    assert setup(env, workspace, "--remove").returncode == 0
    assert json.loads(path.read_text()) == {"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "date"}]}]}}


def test_remove_shares_a_group_with_a_users_hook_and_keeps_that_hook(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    shared = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "./log-tool.sh"},
        {"type": "command", "command": MATCH},
    ]}]}}
    path.write_text(json.dumps(shared))
    assert setup(env, workspace, "--remove").returncode == 0
    assert json.loads(path.read_text())["hooks"]["PreToolUse"] == [
        {"matcher": "*", "hooks": [{"type": "command", "command": "./log-tool.sh"}]}
    ]


def test_dry_run_prints_a_diff_and_touches_nothing(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_SETTINGS, indent=2) + "\n")
    before = path.read_bytes()
    stat = path.stat()
    result = setup(env, workspace, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"--- {path}\n+++ {path}\n@@")
    assert f'+            "command": "{RECALL}"' in result.stdout.splitlines()
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stat.st_mtime_ns

    fresh = setup(env, workspace, "--dry-run", "--scope", "user")
    assert fresh.stdout.startswith("--- /dev/null\n")
    assert not (Path(env["HOME"]) / ".claude").exists()


@pytest.mark.parametrize(
    "text, says",
    [
        ('{"hooks": {"PreToolUse": [}', "is not valid JSON (line 1 column 27"),
        ('{\n  // comment\n  "model": "opus"\n}\n', "is not valid JSON (line 2"),
        ('["not", "an", "object"]', "is not a JSON object"),
        ('{"hooks": {"PreToolUse": {"matcher": "*"}}}', '"hooks.PreToolUse" is not a list'),
        ('{"model": "opus", "model": "sonnet"}', "duplicate key 'model'"),
        ('{"hooks": null}', '"hooks" is not an object'),
        ('{"hooks": {"UserPromptSubmit": null}}', '"hooks.UserPromptSubmit" is not a list'),
    ],
)
def test_settings_memls_cannot_read_are_left_untouched_with_one_error_line(env, workspace, text, says):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    for args in ((), ("--remove",), ("--dry-run",)):
        result = setup(env, workspace, *args)
        assert result.returncode == 1
        assert result.stdout == ""
        assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
        assert says in result.stderr
        assert "Traceback" not in result.stderr
        assert path.read_text() == text


def test_a_symlinked_settings_file_is_updated_through_its_link(env, workspace, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}\n')
    home_settings = Path(env["HOME"]) / ".claude" / "settings.json"
    home_settings.parent.mkdir()
    home_settings.symlink_to(dotfiles)
    assert setup(env, workspace, "--scope", "user").returncode == 0
    assert home_settings.is_symlink()
    assert commands(json.loads(dotfiles.read_text()), "UserPromptSubmit") == [RECALL]
    assert json.loads(dotfiles.read_text())["model"] == "opus"


def test_remove_without_a_settings_file_creates_nothing(env, workspace):
    result = setup(env, workspace, "--remove")
    assert result.returncode == 0
    assert "has no memls hooks" in result.stdout
    assert not (workspace / ".claude").exists()


def test_remove_keeps_a_memls_hook_the_user_wrote_and_setup_counts_it_as_installed(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    own = {"type": "command", "timeout": 10,
           "command": "/opt/venv/bin/memls recall -k 3 --backend overlap --prompt - --format hook-json"}
    path.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [own]}]}}) + "\n")
    assert setup(env, workspace).returncode == 0
    assert commands(json.loads(path.read_text()), "UserPromptSubmit") == [own["command"]]
    assert setup(env, workspace, "--remove").returncode == 0
    assert json.loads(path.read_text()) == {"hooks": {"UserPromptSubmit": [{"hooks": [own]}]}}


def test_python_dash_m_memls_counts_as_installed(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    mine = {"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "/usr/bin/python3 -m memls recall --prompt - --format hook-json"}]}]}}
    path.write_text(json.dumps(mine))
    assert setup(env, workspace).returncode == 0
    settings = json.loads(path.read_text())
    assert settings["hooks"]["UserPromptSubmit"] == mine["hooks"]["UserPromptSubmit"]
    assert commands(settings, "PreToolUse") == [MATCH]


def test_remove_through_a_symlink_keeps_the_link_and_its_target(env, workspace, tmp_path):
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text("{}\n")
    link = workspace / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    assert setup(env, workspace).returncode == 0
    assert setup(env, workspace, "--remove").returncode == 0
    assert link.is_symlink() and target.read_text() == "{}\n"


def test_only_the_hooks_member_changes_and_remove_gives_back_the_bytes(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    original = '{\n  "env": {"D": 1e5, "N": 1.50},\n  "permissions": {"allow": ["Bash(ls:*)"]}\n}\n'
    path.write_text(original)
    assert setup(env, workspace).returncode == 0
    written = path.read_text()
    assert written.startswith('{\n  "env": {"D": 1e5, "N": 1.50},\n  "permissions": {"allow": ["Bash(ls:*)"]},\n')
    assert commands(json.loads(written), "UserPromptSubmit") == [RECALL]
    assert setup(env, workspace, "--remove").returncode == 0
    assert path.read_text() == original


def test_numbers_inside_hooks_keep_their_text(env, workspace):
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e1}]}]}}')
    assert setup(env, workspace).returncode == 0
    assert '"timeout": 1e1' in path.read_text()
