"""memls's hooks in Claude Code's ``settings.json``: put in, and taken out again.

Claude Code runs a command hook for each event listed under ``hooks`` in its
settings (``{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command",
"command": ...}]}]}}``) and adds the ``additionalContext`` of the JSON the
command prints to the turn. memls answers two events:

* ``UserPromptSubmit``: ``memls recall --prompt - --format hook-json`` -- the
  living entries ranked for the prompt (the event takes no matcher);
* ``PreToolUse``: ``memls match --prompt - --format hook-json`` for every tool
  (matcher ``*``) -- the entries whose keywords occur in the tool call.

The settings file belongs to the user and to Claude Code, so this module
changes nothing it did not put there: every other key, event, matcher group
and hook stays as it was and in its place; memls's hook is added once (a hook
that already runs ``memls recall``/``memls match`` for the event counts, even
under another matcher or with other flags, so running the set-up twice, or
after editing the command, adds nothing); removal takes out only memls's hooks
and the groups, event lists and ``hooks`` object that held nothing else (a
file left with no settings at all is deleted).

Why a file that does not load is refused rather than repaired: Claude Code
ignores such a file, so overwriting it with a repaired version would throw the
user's half-edited settings away; a duplicate key is refused too, because JSON
readers keep only one of the two values and the rewrite would drop the other.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memls.store.files import FileDelete, atomic_write, commit

SCOPES = ("project", "user")
SETTINGS_DIR = ".claude"
SETTINGS_FILE = "settings.json"


@dataclass(frozen=True)
class MemlsHook:
    """One event memls answers: the command it runs and the matcher group it goes in."""

    event: str
    subcommand: str  # recall / match: what identifies memls's hook for the event
    command: str
    matcher: str | None  # None: the event takes no matcher, the key is left out

    def group(self) -> dict[str, Any]:
        """The matcher group memls adds for this event."""
        group: dict[str, Any] = {} if self.matcher is None else {"matcher": self.matcher}
        group["hooks"] = [{"type": "command", "command": self.command}]
        return group


MEMLS_HOOKS = (
    MemlsHook(
        "UserPromptSubmit", "recall", "memls recall --prompt - --format hook-json", None
    ),
    MemlsHook("PreToolUse", "match", "memls match --prompt - --format hook-json", "*"),
)


class SettingsError(ValueError):
    """The existing settings cannot be changed safely; nothing was written."""


def settings_path(scope: str, *, workspace: Path, home: Path) -> Path:
    """Claude Code's settings file for ``scope``: the project's, or the user's."""
    if scope == "project":
        return workspace / SETTINGS_DIR / SETTINGS_FILE
    if scope == "user":
        return home / SETTINGS_DIR / SETTINGS_FILE
    raise ValueError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")


# --------------------------------------------------------------------------
# The settings as data


def parse_settings(text: str, where: str) -> dict[str, Any]:
    """The settings object in ``text``; ``SettingsError`` unless it is one, keys unique."""

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise SettingsError(f"{where}: duplicate key {key!r}; fix the file first")
            result[key] = value
        return result

    if not text.strip():
        return {}
    try:
        settings = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{where} is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg}); "
            "fix it first, nothing was changed"
        ) from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{where} is not a JSON object; nothing was changed")
    return settings


def _event_groups(settings: dict[str, Any], event: str, where: str) -> list[Any] | None:
    """The matcher groups of ``event``, checked for the shape Claude Code reads."""
    hooks = settings.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise SettingsError(f"{where}: \"hooks\" is not an object; nothing was changed")
    groups = hooks.get(event)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise SettingsError(f"{where}: \"hooks.{event}\" is not a list; nothing was changed")
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
            raise SettingsError(
                f"{where}: an entry of \"hooks.{event}\" is not a matcher group "
                "({\"matcher\": ..., \"hooks\": [...]}); nothing was changed"
            )
    return groups


def is_memls_hook(hook: MemlsHook, handler: Any) -> bool:
    """Whether ``handler`` runs memls's command for ``hook``'s event.

    Recognised by what it runs (``memls`` by any path, then the subcommand),
    not by the exact text, so a command the user tuned (``-k 5``) is still
    memls's and is neither doubled nor left behind.
    """
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        argv = shlex.split(handler["command"])
    except ValueError:
        return False
    return len(argv) >= 2 and os.path.basename(argv[0]) == "memls" and argv[1] == hook.subcommand


def _handlers(group: dict[str, Any]) -> Iterator[Any]:
    yield from group.get("hooks", [])


def has_memls_hook(settings: dict[str, Any], hook: MemlsHook, where: str = "settings") -> bool:
    """Whether any matcher group of the event already runs memls's command."""
    groups = _event_groups(settings, hook.event, where) or []
    return any(is_memls_hook(hook, h) for group in groups for h in _handlers(group))


def add_memls_hooks(settings: dict[str, Any], where: str = "settings") -> dict[str, Any]:
    """A copy of ``settings`` with memls's hooks added where they are missing."""
    result = copy.deepcopy(settings)
    for hook in MEMLS_HOOKS:
        if has_memls_hook(result, hook, where):
            continue
        hooks = result.setdefault("hooks", {})
        hooks.setdefault(hook.event, []).append(hook.group())
    return result


def remove_memls_hooks(settings: dict[str, Any], where: str = "settings") -> dict[str, Any]:
    """A copy of ``settings`` without memls's hooks, nor the containers only they filled.

    A matcher group, an event's list or the ``hooks`` object is dropped only
    when taking memls's hooks out emptied it: an empty one the user wrote stays.
    """
    result = copy.deepcopy(settings)
    for hook in MEMLS_HOOKS:
        groups = _event_groups(result, hook.event, where)
        if not groups:
            continue
        kept_groups = []
        removed = False
        for group in groups:
            handlers = list(_handlers(group))
            kept = [h for h in handlers if not is_memls_hook(hook, h)]
            removed = removed or len(kept) < len(handlers)
            if len(kept) == len(handlers):
                kept_groups.append(group)
            elif kept:
                kept_groups.append({**group, "hooks": kept})
        if not removed:
            continue
        hooks = result["hooks"]
        if kept_groups:
            hooks[hook.event] = kept_groups
        else:
            del hooks[hook.event]
            if not hooks:
                del result["hooks"]
    return result


# --------------------------------------------------------------------------
# The settings as text: keep the file's layout


_INDENT = re.compile(r"^[ \t]+(?=\S)", re.MULTILINE)


def indent_of(text: str | None) -> str | None:
    """The indentation unit of a JSON text: its first indented line's; None for one line.

    A file memls creates gets two spaces, the layout Claude Code writes.
    """
    if text is None or not text.strip():
        return "  "
    found = _INDENT.search(text)
    if found is None:
        return None if "\n" not in text.strip() else "  "
    return found.group(0)


def render_settings(settings: dict[str, Any], like: str | None) -> str:
    """``settings`` as JSON text laid out like the text ``like`` (indent, final newline).

    Non-ASCII text is written as itself, as Claude Code writes it.
    """
    indent = indent_of(like)
    text = json.dumps(settings, indent=indent, ensure_ascii=False)
    if like is None or like.endswith("\n") or not like.strip():
        text += "\n"
    return text


# --------------------------------------------------------------------------
# A planned change to one file


@dataclass(frozen=True)
class SettingsChange:
    """What the set-up would do to one settings file.

    ``after`` None leaves the file as it is; ``delete`` removes a file that
    held nothing but memls's hooks (an empty settings file means no settings).
    """

    path: Path
    before: str | None  # None: the file does not exist
    after: str | None
    delete: bool = False

    @property
    def changed(self) -> bool:
        return self.delete or (self.after is not None and self.after != self.before)

    def diff(self) -> str:
        """The change as a unified diff (empty when nothing changes)."""
        if not self.changed:
            return ""
        before = [] if self.before is None else self.before.splitlines(keepends=True)
        after = [] if self.delete else (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            before,
            after,
            fromfile="/dev/null" if self.before is None else str(self.path),
            tofile="/dev/null" if self.delete else str(self.path),
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def write(self) -> None:
        """Apply the change atomically; through a symlink to its target, mode kept."""
        if not self.changed:
            return
        target = self.path.resolve() if self.path.is_symlink() else self.path
        if self.delete:
            commit([FileDelete(target)])
            return
        assert self.after is not None
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, self.after.encode("utf-8"))


def read_settings_text(path: Path) -> str | None:
    """The file's text, None when there is none; a one-line ``SettingsError`` otherwise."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsError(f"{path} is not UTF-8 text; nothing was changed") from None


def plan(path: Path, *, remove: bool = False) -> SettingsChange:
    """The change that installs (or with ``remove``, takes out) memls's hooks at ``path``."""
    before = read_settings_text(path)
    if before is None and remove:
        return SettingsChange(path, None, None)
    settings = parse_settings(before or "", str(path))
    changed = remove_memls_hooks(settings, str(path)) if remove else add_memls_hooks(settings, str(path))
    if changed == settings and before is not None:
        return SettingsChange(path, before, None)
    if remove and not changed:
        return SettingsChange(path, before, None, delete=True)
    return SettingsChange(path, before, render_settings(changed, before))
