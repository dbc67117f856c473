"""Memory roots: the ordered layers a store reads from, nearest first.

A root is one directory with a scope name. Reads union every root and the
nearest one wins when two define the same entry name, so the order is the
whole point of this module. It is gptme's order, so that gptme, Claude Code
and memls, started in the same workspace, see the same memories:

1. ``explicit`` -- ``MEMLS_MEMORY_DIRS``, else ``GPTME_MEMORY_DIRS``
   (``os.pathsep``-separated). When set it *replaces* every other layer: it is
   how a harness (or a test) pins the store to exactly the directories it
   names, with nothing leaking in from the user's home.
2. ``project`` -- ``<workspace>/memory/``, only when it exists: memory that
   travels with the repository.
3. ``cc`` -- Claude Code's ``~/.claude/projects/<encoded workspace>/memory/``,
   listed even when missing so Claude Code's notes are never invisible and a
   save has somewhere to go in a workspace without ``memory/``.
4. ``agent`` -- ``$GPTME_AGENT_WORKSPACE/memory/`` when set and existing: an
   agent's own brain while it works in someone else's repository.
5. ``user`` -- ``<user config dir>/memory/``, always listed: shared by every
   workspace.

Two scopes naming the same directory (an agent working inside its own brain
has ``project`` equal to ``agent``) are collapsed onto the first, so no file is
read twice under two scopes.

Everything the resolution reads from the environment (variables, home
directory) can be passed in, so callers and tests never mutate ``os.environ``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

if TYPE_CHECKING:
    from .root import MemoryRoot

SCOPES = ("explicit", "project", "cc", "agent", "user")
ENV_MEMLS_DIRS = "MEMLS_MEMORY_DIRS"
ENV_GPTME_DIRS = "GPTME_MEMORY_DIRS"
ENV_WORKSPACE = "GPTME_WORKSPACE"
ENV_AGENT_WORKSPACE = "GPTME_AGENT_WORKSPACE"
# Scopes a save targets when none is named, in preference order.
DEFAULT_WRITE_SCOPES = ("explicit", "project", "cc")
# Claude Code's limit on an encoded project directory name (in UTF-16 units).
CLAUDE_CODE_DIR_NAME_LIMIT = 200
APP_NAME = "gptme"
# Asking git for the top level must never hang a request; a slow git is treated
# as no git at all.
GIT_TIMEOUT_SECONDS = 5.0
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


class Layer(NamedTuple):
    """A root as resolved: its scope and directory (what :class:`MemoryRoot` holds).

    What a replayed command keys its answer by (:mod:`memls.quick`), without
    loading ``dataclasses`` (a tenth of such a command) for the public
    :class:`MemoryRoot`.
    """

    scope: str
    path: Path


def __getattr__(name: str) -> Any:
    # MemoryRoot has always been importable from here; it is loaded on first use.
    if name == "MemoryRoot":
        from .root import MemoryRoot

        return MemoryRoot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve_roots(
    workspace: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    config_dir: Path | None = None,
    home: Path | None = None,
) -> list[MemoryRoot]:
    """The layered roots for ``workspace``, nearest first (see the module docstring).

    ``env`` defaults to ``os.environ``; ``home`` defaults to ``env["HOME"]``
    when ``env`` is given and has one, else the process's home directory;
    ``config_dir`` replaces the user config directory (``user_config_dir``).
    """
    from .root import MemoryRoot

    layers = resolve_layers(workspace, env=env, config_dir=config_dir, home=home)
    return [MemoryRoot(layer.scope, layer.path) for layer in layers]


def resolve_layers(
    workspace: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    config_dir: Path | None = None,
    home: Path | None = None,
) -> list[Layer]:
    """:func:`resolve_roots` as (scope, directory) pairs."""
    env = os.environ if env is None else env
    home = _home(env, home)
    explicit = explicit_memory_dirs(env)
    if explicit is not None:
        return _dedupe(
            Layer("explicit", _expand_user(item, home))
            for item in explicit.split(os.pathsep)
            if item.strip()
        )

    ws = resolve_workspace(workspace, env=env)
    candidates: list[Layer] = []
    project = ws / "memory"
    if project.is_dir():
        candidates.append(Layer("project", project))
    candidates.append(Layer("cc", claude_code_memory_dir(ws, home=home)))
    agent_ws = env.get(ENV_AGENT_WORKSPACE, "").strip()
    if agent_ws:
        agent = _expand_user(agent_ws, home) / "memory"
        if agent.is_dir():
            candidates.append(Layer("agent", agent))
    config = config_dir if config_dir is not None else user_config_dir(env=env, home=home)
    candidates.append(Layer("user", config / "memory"))
    return _dedupe(candidates)


def explicit_memory_dirs(env: Mapping[str, str]) -> str | None:
    """The explicit root list, or None when no explicit list is set.

    ``MEMLS_MEMORY_DIRS`` wins over ``GPTME_MEMORY_DIRS`` so memls can be pinned
    to other directories than a gptme running in the same environment. A blank
    value counts as unset, as in gptme.
    """
    for var in (ENV_MEMLS_DIRS, ENV_GPTME_DIRS):
        value = env.get(var, "").strip()
        if value:
            return value
    return None


def default_write_root(roots: Sequence[MemoryRoot]) -> MemoryRoot:
    """The root a save targets when no scope is named.

    Explicit or project first, because those are the directories the user
    chose; then Claude Code's directory, which is always listed. Existence is
    deliberately not checked (as in gptme): falling back to another layer when
    the chosen one is unwritable would file a memory where nobody looks for it.
    """
    for scope in DEFAULT_WRITE_SCOPES:
        for root in roots:
            if root.scope == scope:
                return root
    if roots:
        return roots[0]
    raise KeyError("no memory roots resolved")


def resolve_workspace(
    workspace: Path | None = None, *, env: Mapping[str, str] | None = None
) -> Path:
    """The workspace whose ``memory/`` and Claude Code directory are layers.

    The argument, else ``GPTME_WORKSPACE`` (blank counts as unset), else the
    git top level -- the super-project when inside a submodule, so every
    submodule of a checkout shares its memory -- else the current directory.
    The result is resolved (absolute, symlinks followed), because Claude Code
    encodes the real path. Like gptme, ``GPTME_WORKSPACE`` is not ``~``-expanded.
    """
    env = os.environ if env is None else env
    if workspace is None:
        from_env = env.get(ENV_WORKSPACE, "").strip()
        if from_env:
            workspace = Path(from_env)
        else:
            workspace = _git_workspace() or Path.cwd()
    return Path(workspace).resolve()


def _git_workspace() -> Path | None:
    top = _git("rev-parse", "--show-toplevel")
    if top is None:
        return None
    top_path = Path(top)
    # A submodule's checkout has a ``.git`` *file* pointing into the parent.
    if (top_path / ".git").is_file():
        parent = _git("rev-parse", "--show-superproject-working-tree")
        if parent:
            return Path(parent)
    return top_path


def _git(*args: str) -> str | None:
    """Run git in the current directory; None when git is absent, slow or fails."""
    import subprocess  # only a workspace without an explicit root list runs git

    try:
        result = subprocess.run(
            ["git", *args],
            check=False,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = result.stdout.strip()
    return out if result.returncode == 0 and out else None


def claude_code_project_dir_name(path: str) -> str:
    """Claude Code's directory name for a project path, reproduced exactly.

    Claude Code (JavaScript) replaces every UTF-16 code unit that is not an
    ASCII letter or digit with ``-``, without collapsing runs
    (``/home/u/my_project`` -> ``-home-u-my-project``). Names longer than 200
    units are cut to 200 and suffixed with ``-`` and the base-36 absolute value
    of a 32-bit signed rolling hash (``h = h*31 + unit``) of the original path,
    so long paths stay distinct. Working in UTF-16 units matters: an emoji is
    two units and so two dashes. The encoding is not injective (``/a_b`` and
    ``/a-b`` collide); that is Claude Code's design, kept so we find its files.
    """
    raw = path.encode("utf-16-le", errors="surrogatepass")
    units = [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]
    encoded = "".join(chr(u) if _is_ascii_alnum(u) else "-" for u in units)
    if len(encoded) <= CLAUDE_CODE_DIR_NAME_LIMIT:
        return encoded
    h = 0
    for unit in units:
        h = (h * 31 + unit) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    return encoded[:CLAUDE_CODE_DIR_NAME_LIMIT] + "-" + _base36(abs(h))


def _is_ascii_alnum(unit: int) -> bool:
    return 48 <= unit <= 57 or 65 <= unit <= 90 or 97 <= unit <= 122


def _base36(n: int) -> str:
    digits = []
    while True:
        n, r = divmod(n, 36)
        digits.append(_BASE36[r])
        if n == 0:
            return "".join(reversed(digits))


def claude_code_memory_dir(workspace: Path, *, home: Path | None = None) -> Path:
    """Where Claude Code keeps auto memory for ``workspace`` (may not exist)."""
    home = Path.home() if home is None else home
    name = claude_code_project_dir_name(str(Path(workspace).resolve()))
    return home / ".claude" / "projects" / name / "memory"


def user_config_dir(
    *, env: Mapping[str, str] | None = None, home: Path | None = None
) -> Path:
    """gptme's user config directory, as platformdirs computes it for gptme.

    memls shares the ``user`` layer with gptme, so it must land in the same
    directory without depending on platformdirs. The rule (platformdirs 4.x,
    ``user_config_dir("gptme")``):

    * Linux and macOS: ``$XDG_CONFIG_HOME/gptme`` when that variable holds an
      absolute path; otherwise ``~/.config/gptme`` on Linux and
      ``~/Library/Application Support/gptme`` on macOS.
    * Windows: ``%LOCALAPPDATA%\\gptme\\gptme`` (app author defaults to the app
      name), falling back to ``~\\AppData\\Local``.
    """
    env = os.environ if env is None else env
    home = _home(env, home)
    if sys.platform == "win32":
        local = env.get("LOCALAPPDATA", "").strip()
        base = Path(local) if local else home / "AppData" / "Local"
        return base / APP_NAME / APP_NAME
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg.startswith("/"):
        return Path(xdg) / APP_NAME
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / APP_NAME
    return home / ".config" / APP_NAME


def _home(env: Mapping[str, str], home: Path | None) -> Path:
    if home is not None:
        return home
    if env is not os.environ and env.get("HOME", "").startswith("/"):
        return Path(env["HOME"])
    return Path.home()


def _expand_user(value: str, home: Path) -> Path:
    """``~`` and ``~/x`` against ``home``; ``~user`` forms via the OS; else as is."""
    if value == "~":
        return home
    if value.startswith("~/") or (os.sep != "/" and value.startswith("~" + os.sep)):
        return home / value[2:]
    return Path(value).expanduser()


R = TypeVar("R", Layer, "MemoryRoot")


def _dedupe(roots: Iterable[R]) -> list[R]:
    """Keep the first root naming each real directory (nearest scope wins)."""
    out: list[R] = []
    seen: set[Path] = set()
    for root in roots:
        key = root.path.resolve()
        if key not in seen:
            seen.add(key)
            out.append(root)
    return out


# -- the language server's view: which directories are memory roots --------

MARKER_FILES = ("MEMORY.md", ".memory-index.json")


def editor_stacks(
    folders: Sequence[Path],
    *,
    extra: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> dict[Path, list[MemoryRoot]]:
    """The existing memory roots of each workspace folder, nearest first.

    Each folder is its own project: its roots are the configured ones
    (nearest), then the layers ``memls``/gptme resolve for that folder as the
    workspace (its ``memory/``, its Claude Code directory, agent, user). Two
    folders share only the roots they both resolve to (the user root, the
    configured ones), never each other's project roots. With no folder open,
    the server's working directory is the one folder.
    """
    from .root import MemoryRoot

    env = os.environ if env is None else env
    stacks: dict[Path, list[MemoryRoot]] = {}
    for folder in folders or [Path.cwd()]:
        candidates = [MemoryRoot("explicit", Path(p)) for p in extra]
        candidates.extend(resolve_roots(folder, env=env, home=home))
        stacks[folder] = [r for r in _dedupe(candidates) if r.exists]
    return stacks


def is_memory_root(directory: Path, *, home: Path | None = None) -> bool:
    """Whether a directory is a memory root by its own look.

    A folder named ``memory`` in a Claude Code project folder
    (``~/.claude/projects/<project>/memory``), or any folder holding a
    ``MEMORY.md`` index or a ``.memory-index.json`` policy.
    """
    home = home or Path.home()
    if directory.name == "memory" and directory.parent.parent == home / ".claude" / "projects":
        return True
    return any((directory / marker).is_file() for marker in MARKER_FILES)
