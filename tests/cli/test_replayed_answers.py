"""The console script's replayed answers equal a computation from scratch, whatever changed.

``memls index|list|audit|show NAME`` replay their whole last answer while no
file of the roots changed (:func:`memls.quick._replayed`). A replay that
misses a change prints a stale answer, so the property below runs random
changes of real files between runs through the console script's entry point
and compares every answer with ``MEMLS_NO_CACHE=1``'s: edits, same-size
rewrites that keep the mtime (what a rewrite within the same second looks
like), touches without a change, new files, deletes, renames, a written
``MEMORY.md``, a root that disappears or turns into a file, and files changed
within the two-second window in which they are not trusted.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memls import quick
from memls.store.store import MemoryStore

FILES = [f"e{k}.md" for k in range(5)]
NAMES = [f"n{k}" for k in range(5)]
LATER_NS = 3600 * 10**9


def entry_text(name: str, description: str, status: str, successor: str) -> str:
    lines = ["---", f"name: {name}", f"description: {description}"]
    if status == "superseded":
        lines += ["status: superseded", f"superseded_by: {successor}"]
    lines += ["metadata:", "  type: feedback", "---", f"body of {name}", ""]
    return "\n".join(lines)


def same_size_variant(data: bytes) -> bytes:
    """Other bytes of the same length: the description's first letter flipped in case."""
    i = data.find(b"description: ") + len(b"description: ")
    if i < len(b"description: "):
        return data
    return data[:i] + data[i:i + 1].swapcase() + data[i + 1:]


entry = st.tuples(st.sampled_from(NAMES), st.sampled_from(["first", "second one", "a third, longer"]),
                  st.sampled_from(["living", "superseded"]), st.sampled_from(NAMES))
change = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(FILES), entry),
    st.tuples(st.just("same-size"), st.sampled_from(FILES)),
    st.tuples(st.sampled_from(["touch", "delete"]), st.sampled_from(FILES)),
    st.tuples(st.just("rename"), st.sampled_from(FILES), st.sampled_from(FILES)),
    st.tuples(st.just("index"), st.sampled_from(["# Memory Index\n", "- [n0](e0.md) — first\n"])),
    st.tuples(st.sampled_from(["root-gone", "root-file", "root-back"])),
)
# Each step: some changes, then every command answered; on a clock either honest (the
# files just changed are too new to trust) or an hour later (every file has settled).
step = st.tuples(st.lists(change, max_size=3), st.booleans())


def apply(root: Path, change: tuple) -> None:
    kind = change[0]
    if kind == "root-gone":
        shutil.rmtree(root, ignore_errors=True)
        if root.is_file():
            root.unlink()
        return
    if kind == "root-file":
        shutil.rmtree(root, ignore_errors=True)
        root.write_text("not a directory\n")
        return
    if root.is_file():
        root.unlink()
    root.mkdir(exist_ok=True)
    if kind == "root-back":
        return
    if kind == "index":
        (root / "MEMORY.md").write_text(change[1], encoding="utf-8")
        return
    path = root / change[1]
    if kind == "write":
        path.write_text(entry_text(*change[2]), encoding="utf-8")
    elif not path.exists():
        return
    elif kind == "same-size":
        before = path.stat()
        path.write_bytes(same_size_variant(path.read_bytes()))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif kind == "touch":
        os.utime(path)
    elif kind == "delete":
        path.unlink()
    elif kind == "rename":
        path.rename(root / change[2])


def answer(args: list[str], *, cached: bool) -> tuple[object, str, str]:
    """What ``memls ARGS`` exits with and prints, through the console script's entry point."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.get("MEMLS_NO_CACHE")
    os.environ["MEMLS_NO_CACHE"] = "0" if cached else "1"
    try:
        with redirect_stdout(out), redirect_stderr(err):
            quick.main(args)
        status: object = None
    except SystemExit as exit_:
        status = exit_.code
    finally:
        if saved is None:
            del os.environ["MEMLS_NO_CACHE"]
        else:
            os.environ["MEMLS_NO_CACHE"] = saved
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=5))
# A same-size rewrite keeping the mtime, after answers were remembered: only ctime and inode tell.
@example(steps=[([], True), ([("same-size", "e0.md")], True)])
@example(steps=[([], True), ([("same-size", "e1.md")], False)])
def test_replayed_answers_equal_answers_computed_from_scratch_after_any_change(
    steps: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = Path(tempfile.mkdtemp(prefix="memls-replayed-"))
    root = base / "memory"
    root.mkdir()
    for i, filename in enumerate(FILES[:3]):
        (root / filename).write_text(entry_text(NAMES[i], "first", "living", NAMES[0]), encoding="utf-8")
    try:
        with monkeypatch.context() as patched:
            patched.setenv("MEMLS_MEMORY_DIRS", str(root))
            patched.setenv("MEMLS_CACHE_DIR", str(base / "cache"))
            computed: list[int] = []

            class CountedStore(MemoryStore):
                def __init__(self, *args: object, **kwargs: object) -> None:
                    computed.append(1)
                    super().__init__(*args, **kwargs)  # type: ignore[arg-type]

            patched.setattr("memls.store.store.MemoryStore", CountedStore)
            for changes, later in steps:
                for one in changes:
                    apply(root, one)
                # Anything changed from here on gets a later ctime than what the views below
                # remember (the clock an hour ahead would otherwise trust a same-tick rewrite).
                time.sleep(0.012)
                offset = LATER_NS if later else 0
                for module in ("replay", "reader", "check_cache"):
                    patched.setattr(f"memls.store.{module}.now_ns", lambda offset=offset: time.time_ns() + offset)
                for args in (["index"], ["list"], ["audit"], *(["show", name] for name in [*NAMES, "missing"])):
                    first = answer(args, cached=True)
                    computed.clear()
                    again = answer(args, cached=True)
                    if later and not first[2].startswith("Error:"):
                        assert not computed, f"{args} not replayed though every file had settled"
                    assert first == again == answer(args, cached=False), args
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_memls(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-c", "from memls.quick import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def test_a_process_never_replays_over_a_same_size_rewrite_within_the_same_second(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "alpha.md").write_text(entry_text("alpha", "first", "living", "alpha"), encoding="utf-8")
    (root / "beta.md").write_text(entry_text("beta", "second", "superseded", "gone"), encoding="utf-8")
    env = {**os.environ, "MEMLS_MEMORY_DIRS": str(root), "MEMLS_CACHE_DIR": str(tmp_path / "cache")}
    commands = (["index"], ["list"], ["audit"], ["show", "alpha"])
    time.sleep(2.1)  # every file has settled: the answers below are remembered
    first = [run_memls(args, env) for args in commands]
    views = sorted((tmp_path / "cache").glob("*.view"))
    assert len(views) >= len(commands)
    assert [run_memls(args, env) for args in commands] == first  # replayed
    assert sorted((tmp_path / "cache").glob("*.view")) == views

    alpha = root / "alpha.md"
    before = alpha.stat()
    alpha.write_bytes(alpha.read_bytes().replace(b"first", b"FIRST"))
    os.utime(alpha, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert alpha.stat().st_size == before.st_size and alpha.stat().st_mtime_ns == before.st_mtime_ns
    after = [run_memls(args, env) for args in commands]
    assert after == [run_memls(args, {**env, "MEMLS_NO_CACHE": "1"}) for args in commands]
    assert "FIRST" in after[3][1] and after[3] != first[3]
