"""memls as git's merge driver for ``MEMORY.md``: put in, and taken out again.

Git picks a file's merge driver by its ``merge`` attribute and runs the
command configured under ``merge.<driver>.driver``. Two places say so:

* ``.gitattributes`` at the top of the repository gets ``MEMORY.md merge=memls``
  (a pattern without a slash matches ``MEMORY.md`` in every directory). The
  file is committed, so everyone who clones gets the attribute;
* the repository's own git config (``.git/config``) gets ``merge.memls.name``
  and ``merge.memls.driver``. Git never takes a command from the repository's
  content (that would run strangers' programs), so each clone runs
  ``memls setup git`` once; until then git merges ``MEMORY.md`` line-wise as
  before, which is safe.

Why the driver runs memls by absolute path rather than ``memls`` on PATH:
git runs drivers from wherever git runs -- IDEs, GUI clients, hooks -- often
without the virtual environment that has memls on PATH, and a driver that is
not found turns every merge of ``MEMORY.md`` into a conflict. The config is
local to this clone and machine, so a machine-specific path is the right
kind of value there; after moving or reinstalling memls, run the set-up
again (it updates the path). (Claude Code's hooks are different: they live
in a committed settings file shared between machines, so they say ``memls``.)

A third, ``.gitignore``, gets ``.memory.lock``: every writer (memls, gptme,
the pre-commit hooks) locks a memory root through that empty file, so it
appears untracked in every clone; it is committed for the same reason as the
attribute (one line serves the whole team). Its name is gptme's and stays.

Every change is made once: each line is added only when missing and every
other line is kept; the config is written only when it differs. ``--remove``
takes out exactly the attribute line and the ``merge.memls`` section; the
ignore line stays, since the lock file keeps appearing without the driver
and the line may well be the user's own.
"""

from __future__ import annotations

import difflib
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from memls.store.files import LOCK_FILENAME, FileDelete, atomic_write, commit
from memls.store.structs import struct

DRIVER = "memls"
ATTRIBUTES_FILE = ".gitattributes"
ATTRIBUTE_LINE = f"MEMORY.md merge={DRIVER}"
IGNORE_FILE = ".gitignore"
# A pattern without a slash: the lock of a memory root in any directory.
IGNORE_LINE = LOCK_FILENAME
DRIVER_NAME = "memls: merge MEMORY.md by entry"
# git's placeholders: the marker size, the labels of base, ours and theirs (git 2.44
# and later; an older git passes them unexpanded and the driver uses its own),
# base, ours (the result goes here), theirs, the path.
DRIVER_ARGUMENTS = (
    "merge-index --marker-size %L --base-label %S --ours-label %X --theirs-label %Y %O %A %B %P"
)


class GitSetupError(ValueError):
    """Not a repository, or git is missing: nothing was changed."""


def repository_root(cwd: Path) -> Path:
    """The top of the working tree holding ``cwd``; a one-line error outside one."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=cwd, capture_output=True, text=True, check=False,
        )
    except FileNotFoundError as exc:
        raise GitSetupError("git is not installed (setup git configures a git repository)") from exc
    if done.returncode != 0 or not done.stdout.strip():
        raise GitSetupError(f"{cwd} is not inside a git repository (run it in your repository)")
    return Path(done.stdout.strip())


def memls_command() -> str:
    """The shell words that run this very memls, whatever PATH git will have.

    The console script when memls runs as one (its absolute path, not
    resolved, so a link that an installer keeps current stays the link);
    otherwise (``python -m memls``, a test runner) the interpreter running
    now, which can import this memls.
    """
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name.startswith("memls") and script.is_file():
        return shlex.quote(str(script.absolute()))
    return f"{shlex.quote(sys.executable)} -m memls"


def driver_command(memls: str) -> str:
    return f"{memls} {DRIVER_ARGUMENTS}"


# -- .gitattributes ----------------------------------------------------------------


def _is_memls_line(line: str) -> bool:
    return line.split() == ATTRIBUTE_LINE.split()


def attributes_with_driver(text: str | None) -> str:
    """``.gitattributes`` with memls's line, added at the end only when missing."""
    return _with_line(text, ATTRIBUTE_LINE, _is_memls_line)


def _ignores_lock(line: str) -> bool:
    pattern = line.strip()
    return pattern in (LOCK_FILENAME, f"/{LOCK_FILENAME}", f"**/{LOCK_FILENAME}", "*.lock") or (
        pattern.endswith(f"/{LOCK_FILENAME}")
    )


def ignore_with_lock(text: str | None) -> str:
    """``.gitignore`` ignoring the roots' lock file; a line added at the end only when none does."""
    return _with_line(text, IGNORE_LINE, _ignores_lock)


def _with_line(text: str | None, line: str, present: Callable[[str], bool]) -> str:
    text = text or ""
    if any(present(existing) for existing in text.splitlines()):
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    return text + line + "\n"


def attributes_without_driver(text: str | None) -> str | None:
    """``.gitattributes`` without memls's line; None when nothing else was in it."""
    if text is None:
        return None
    kept = [line for line in text.splitlines(keepends=True) if not _is_memls_line(line)]
    rest = "".join(kept)
    return rest if rest.strip() else None


# -- the plan ------------------------------------------------------------------------


@struct
class GitSetup:
    """What ``setup git`` changes in one repository, worked out before anything is written."""

    repo: Path
    attributes_before: str | None
    attributes_after: str | None  # None: the file is (or becomes) absent
    config_before: dict[str, str]
    config_after: dict[str, str]  # empty: the merge.memls section goes
    ignore_before: str | None = None
    ignore_after: str | None = None  # same as before: .gitignore is left alone

    @property
    def attributes_path(self) -> Path:
        return self.repo / ATTRIBUTES_FILE

    @property
    def ignore_path(self) -> Path:
        return self.repo / IGNORE_FILE

    @property
    def changed(self) -> bool:
        return (
            self.attributes_before != self.attributes_after
            or self.config_before != self.config_after
            or self.ignore_before != self.ignore_after
        )

    def describe(self) -> str:
        """The change as a diff of ``.gitattributes`` and ``.gitignore``, and the git config lines."""
        out: list[str] = []
        for name, before, after in (
            (ATTRIBUTES_FILE, self.attributes_before, self.attributes_after),
            (IGNORE_FILE, self.ignore_before, self.ignore_after),
        ):
            if before == after:
                continue
            out += difflib.unified_diff(
                (before or "").splitlines(keepends=True),
                (after or "").splitlines(keepends=True),
                f"a/{name}" if before is not None else "/dev/null",
                f"b/{name}" if after is not None else "/dev/null",
            )
        if self.config_before and not self.config_after:
            return "".join([*out, f"git config --local --remove-section merge.{DRIVER}\n"])
        for key in sorted({*self.config_before, *self.config_after}):
            before, after = self.config_before.get(key), self.config_after.get(key)
            if before == after:
                continue
            if after is not None:
                out.append(f"git config --local {key} {shlex.quote(after)}\n")
        return "".join(out)

    def apply(self) -> None:
        """Write the attribute and ignore files, then the config (each only if it changes)."""
        if self.ignore_after is not None and self.ignore_before != self.ignore_after:
            atomic_write(self.ignore_path, self.ignore_after.encode("utf-8"))
        if self.attributes_before != self.attributes_after:
            if self.attributes_after is None:
                commit([FileDelete(self.attributes_path)])
            else:
                atomic_write(self.attributes_path, self.attributes_after.encode("utf-8"))
        if self.config_before == self.config_after:
            return
        if not self.config_after:
            _git(self.repo, "config", "--local", "--remove-section", f"merge.{DRIVER}")
            return
        for key, value in self.config_after.items():
            if self.config_before.get(key) != value:
                _git(self.repo, "config", "--local", key, value)


def plan(cwd: Path, *, remove: bool = False, memls: str | None = None) -> GitSetup:
    """The set-up (or its removal) for the repository holding ``cwd``."""
    repo = repository_root(cwd)
    before = _read_text(repo / ATTRIBUTES_FILE)
    ignore = _read_text(repo / IGNORE_FILE)
    config = _driver_config(repo)
    if remove:
        return GitSetup(repo, before, attributes_without_driver(before), config, {}, ignore, ignore)
    wanted = {
        f"merge.{DRIVER}.driver": driver_command(memls or memls_command()),
        f"merge.{DRIVER}.name": DRIVER_NAME,
    }
    # Keys of the section memls did not write (someone set ``recursive``) stay.
    return GitSetup(
        repo, before, attributes_with_driver(before), config, {**config, **wanted},
        ignore, ignore_with_lock(ignore),
    )


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise GitSetupError(f"cannot read {path}: {exc}") from exc


def _driver_config(repo: Path) -> dict[str, str]:
    done = subprocess.run(
        ["git", "config", "--local", "--get-regexp", rf"^merge\.{DRIVER}\."],
        cwd=repo, capture_output=True, text=True, check=False,
    )
    found: dict[str, str] = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        found[key] = value
    return found


def _git(repo: Path, *args: str) -> None:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise GitSetupError(f"git {' '.join(args[:3])} failed: {message[0]}")
