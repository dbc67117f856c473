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
under another matcher, with other flags or as ``python -m memls``, so running
the set-up twice, or after editing the command, adds nothing). Removal takes
out only the hooks the set-up writes -- known by their exact command, since a
hook the user wrote that runs memls is the user's -- and the groups, event
lists and ``hooks`` object that held nothing else. The file itself is never
deleted (emptied, it is ``{}``): the set-up cannot know whether it created
it, and a symlinked file's target is someone else's.

The file is edited, not rewritten: only the ``hooks`` member's text changes
(added after the last member, or its value replaced, or taken out), so the
layout, inline arrays and numbers of every other member stay byte for byte.

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
from pathlib import Path
from typing import Any

from memls.store.files import atomic_write
from memls.store.structs import struct

SCOPES = ("project", "user")
SETTINGS_DIR = ".claude"
SETTINGS_FILE = "settings.json"


@struct
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
        settings = json.loads(
            text, object_pairs_hook=unique_keys, parse_float=_number, parse_int=_number
        )
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{where} is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg}); "
            "fix it first, nothing was changed"
        ) from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{where} is not a JSON object; nothing was changed")
    return settings


# A number is kept as the text it was written as (``1e5`` stays ``1e5``, not
# ``100000.0``): parsed into this marked string and put back when written.
_NUMBER_MARK = "\x00memls-number:"
_NUMBER_WRITTEN = re.compile(r'"\\u0000memls-number:([^"\\]*)"')


def _number(text: str) -> str:
    return f"{_NUMBER_MARK}{text}"


def _dumps(value: Any, indent: str | None) -> str:
    separators = None if indent is not None else (", ", ": ")
    text = json.dumps(value, indent=indent, ensure_ascii=False, separators=separators)
    return _NUMBER_WRITTEN.sub(r"\1", text)


def _event_groups(settings: dict[str, Any], event: str, where: str) -> list[Any] | None:
    """The matcher groups of ``event``, checked for the shape Claude Code reads.

    A ``null`` is refused like any other wrong shape: replacing a value the
    user wrote is not the set-up's to decide.
    """
    if "hooks" not in settings:
        return None
    hooks = settings["hooks"]
    if not isinstance(hooks, dict):
        raise SettingsError(f"{where}: \"hooks\" is not an object; nothing was changed")
    if event not in hooks:
        return None
    groups = hooks[event]
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
    """Whether ``handler`` runs memls's command for ``hook``'s event (memls is installed).

    Recognised by what it runs (``memls`` by any path, or ``python -m memls``,
    then the subcommand), not by the exact text, so a command the user tuned
    (``-k 5``) counts and the set-up does not add a second one.
    """
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        argv = shlex.split(handler["command"])
    except ValueError:
        return False
    program = os.path.basename(argv[0]) if argv else ""
    if program.startswith("python") and argv[1:3] == ["-m", "memls"]:
        argv = argv[2:]
    elif program != "memls":
        return False
    return len(argv) >= 2 and argv[1] == hook.subcommand


def is_setup_hook(hook: MemlsHook, handler: Any) -> bool:
    """Whether ``handler`` is the one the set-up writes: its exact command.

    Removal takes only these. A memls hook the user wrote (another path, other
    flags, a timeout) is theirs, and ``--remove`` is not asked to undo their work.
    """
    return isinstance(handler, dict) and handler.get("command") == hook.command


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
            kept = [h for h in handlers if not is_setup_hook(hook, h)]
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
    text = _dumps(settings, indent)
    if like is None or like.endswith("\n") or not like.strip():
        text += "\n"
    return text


def edit_hooks(text: str, settings: dict[str, Any]) -> str:
    """``text`` with only its top-level ``hooks`` member changed to ``settings["hooks"]``.

    Added after the last member when missing, its value replaced when there,
    taken out (with its comma) when ``settings`` has none; every other byte
    stays. A file with no members is written whole, as there is nothing to keep.
    """
    members, close = _top_level_members(text)
    found = next((m for m in members if m[0] == "hooks"), None)
    indent = indent_of(text)
    if "hooks" not in settings:
        if found is None:
            return text
        at = members.index(found)
        if len(members) == 1:
            return _empty_object(text, found, close)
        if at > 0:
            return text[: members[at - 1][3]] + text[found[3] :]
        return text[: found[1]] + text[members[1][1] :]
    if found is None and not members:
        return render_settings(settings, text)
    line_start = text.rfind("\n", 0, (found or members[-1])[1]) + 1
    margin = ""
    if "\n" in text.strip():
        margin = text[line_start : (found or members[-1])[1]]
        margin = margin[: len(margin) - len(margin.lstrip(" \t"))]
    value = _dumps(settings["hooks"], indent).replace("\n", "\n" + margin)
    if found is not None:
        return text[: found[2]] + value + text[found[3] :]
    last_end = members[-1][3]
    gap = ",\n" + margin if "\n" in text.strip() else ", "
    return text[:last_end] + gap + '"hooks": ' + value + text[last_end:]


def _empty_object(text: str, only: tuple[str, int, int, int], close: int) -> str:
    """The text with its one member gone: ``{}`` where the object was."""
    open_at = text.rfind("{", 0, only[1])
    return text[:open_at] + "{}" + text[close + 1 :]


_DECODER = json.JSONDecoder()


def _skip_space(text: str, at: int) -> int:
    """The first index at or after ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _top_level_members(text: str) -> tuple[list[tuple[str, int, int, int]], int]:
    """Each member of the top-level object: (key, key start, value start, value end); and where ``}`` is.

    Only called on text :func:`parse_settings` accepted, so it is a JSON object.
    """
    at = _skip_space(text, 0)
    assert text[at] == "{"
    at = _skip_space(text, at + 1)
    members = []
    while text[at] != "}":
        key, end = _DECODER.raw_decode(text, at)
        value_start = _skip_space(text, _skip_space(text, end) + 1)
        _, value_end = _DECODER.raw_decode(text, value_start)
        members.append((key, at, value_start, value_end))
        at = _skip_space(text, value_end)
        if text[at] == ",":
            at = _skip_space(text, at + 1)
    return members, at


# --------------------------------------------------------------------------
# A planned change to one file


@struct
class SettingsChange:
    """What the set-up would do to one settings file.

    ``after`` None leaves the file as it is.
    """

    path: Path
    before: str | None  # None: the file does not exist
    after: str | None

    @property
    def changed(self) -> bool:
        return self.after is not None and self.after != self.before

    def diff(self) -> str:
        """The change as a unified diff (empty when nothing changes)."""
        if not self.changed:
            return ""
        before = [] if self.before is None else self.before.splitlines(keepends=True)
        after = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            before,
            after,
            fromfile="/dev/null" if self.before is None else str(self.path),
            tofile=str(self.path),
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def write(self) -> None:
        """Apply the change atomically; through a symlink to its target, mode kept."""
        if not self.changed:
            return
        target = self.path.resolve() if self.path.is_symlink() else self.path
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
    if before is None or not before.strip():
        return SettingsChange(path, before, render_settings(changed, before))
    return SettingsChange(path, before, edit_hooks(before, changed))
