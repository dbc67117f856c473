"""memls's MemoryStore against the real gptme 0.35.1: same bytes, same verdicts, no lost writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memls import store

gm = pytest.importorskip("gptme.memory", reason="gptme 0.35.1 (interop extra) is not installed")

BIN = Path(sys.executable).parent
SAVES = [
    dict(name="Prefer Short Answers", description="User prefers short, direct answers.", body="Keep it brief.\n", type="feedback"),
    dict(name="release-process", description='Tag with "vX.Y" then push: CI does the rest', body="1. tag\n2. push", type="project",
         title="Release process", keywords=["cut a release", "stable release"]),
    dict(name="api-docs", description="Docs live at docs.example.com — ask first", type="reference",
         metadata={"originSessionId": "abc-123", "source": {"tool": "chat", "turn": 3}}),
    dict(name="who-am-i", description="Backend engineer; knows Go and Python.", type="user"),
    dict(name="custom-thing", description="A decision: use SQLite", type="decision", body="Because it is simple."),
    dict(name="release-process", description="Updated release notes", body="tag, push, announce"),
    dict(name="plain", description="  padded description  "),
]


def gptme_store(root: Path):
    return gm.MemoryStore([gm.MemoryRoot("explicit", root)])


def memls_store(root: Path):
    return store.MemoryStore([store.MemoryRoot("explicit", root)])


def files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file() and p.name != ".memory.lock"}


def save_all(s, saves=SAVES) -> None:
    for kwargs in saves:
        kwargs = dict(kwargs)
        s.save(kwargs.pop("name"), kwargs.pop("description"), kwargs.pop("body", ""), **kwargs)


def test_same_saves_give_byte_equal_files_in_a_legacy_root(tmp_path):
    save_all(gptme_store(tmp_path / "g"))
    save_all(memls_store(tmp_path / "m"))
    assert files(tmp_path / "m") == files(tmp_path / "g")


def test_same_saves_give_byte_equal_files_in_a_managed_root(tmp_path):
    for side, make in (("g", gptme_store), ("m", memls_store)):
        root = tmp_path / side
        s = make(root)
        save_all(s, SAVES[:3])
        (root / ".memory-index.json").write_text(
            json.dumps({"version": 1, "budget": 2000, "selected": ["prefer-short-answers.md", "api-docs.md"]}),
            encoding="utf-8",
        )
        s.write_index()
        save_all(s, SAVES[3:])
    assert files(tmp_path / "m") == files(tmp_path / "g")


@pytest.mark.parametrize("managed", [False, True])
def test_supersede_on_a_machine_made_index_gives_byte_equal_files(tmp_path, managed):
    for side, make in (("g", gptme_store), ("m", memls_store)):
        root = tmp_path / side
        s = make(root)
        save_all(s)
        s.save("release-v2", "The new release process", type="project")
        if managed:
            (root / ".memory-index.json").write_text(
                json.dumps({"version": 1, "budget": 2000, "selected": ["release-process.md", "plain.md"]}),
                encoding="utf-8",
            )
        s.write_index()
        s.supersede("release-process", "release-v2")
    assert files(tmp_path / "m") == files(tmp_path / "g")


def test_each_tools_audit_is_clean_on_the_others_files(tmp_path):
    g_root, m_root = tmp_path / "g", tmp_path / "m"
    for root, make in ((g_root, gptme_store), (m_root, memls_store)):
        s = make(root)
        save_all(s)
        s.save("release-v2", "new", type="project")
        s.supersede("release-process", "release-v2")
    assert gptme_store(m_root).audit() == []
    assert memls_store(g_root).audit() == []


def test_each_tools_check_index_accepts_the_others_index(tmp_path):
    g_root, m_root = tmp_path / "g", tmp_path / "m"
    save_all(gptme_store(g_root))
    gptme_store(g_root).write_index()
    save_all(memls_store(m_root))
    memls_store(m_root).write_index()
    assert gptme_store(m_root).check_index() is True
    assert memls_store(g_root).check_index() is True


def test_each_tools_check_index_rejects_the_others_stale_index(tmp_path):
    root = tmp_path / "m"
    save_all(memls_store(root))  # legacy upserts: not grouped yet
    assert gptme_store(root).check_index() is False
    assert memls_store(root).check_index() is False


WORKER = """
import os, subprocess, sys
tool, prefix, count, root = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
env = dict(os.environ, GPTME_MEMORY_DIRS=root, MEMLS_MEMORY_DIRS=root)
cmd = [tool, "memory", "save"] if tool.endswith("gptme-util") else [tool, "save"]
for i in range(count):
    name = f"{prefix}-{i:02d}"
    subprocess.run([*cmd, name, f"{prefix} description {i}"], input=f"{prefix} body {i}", text=True,
                   env=env, check=True, capture_output=True)
    print(name, flush=True)
"""


def test_concurrent_saves_from_both_tools_lose_nothing(tmp_path):
    gptme_util, memls = BIN / "gptme-util", BIN / "memls"
    if not gptme_util.exists() or not memls.exists():
        pytest.skip(f"needs {gptme_util} and {memls} (make test installs both)")
    root = tmp_path / "memory"
    count = 15
    workers = [(gptme_util, "gptme-a"), (gptme_util, "gptme-b"), (memls, "memls-a"), (memls, "memls-b")]
    env = {k: v for k, v in os.environ.items() if k not in ("GPTME_MEMORY_DIRS", "MEMLS_MEMORY_DIRS")}
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(tool), prefix, str(count), str(root)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for tool, prefix in workers
    ]
    reported = []
    for proc in procs:
        out, err = proc.communicate(timeout=110)
        assert proc.returncode == 0, err
        reported += out.split()
    assert len(reported) == 4 * count
    s = memls_store(root)
    by_name = {e.name: e for e in s.entries()}
    for name in reported:
        prefix, i = name.rsplit("-", 1)
        entry = by_name[name]
        assert (entry.description, entry.body) == (f"{prefix} description {int(i)}", f"{prefix} body {int(i)}")
    assert s.audit() == [] and gptme_store(root).audit() == []
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    for name in reported:
        if name.startswith("memls"):
            assert by_name[name].index_line() in index.splitlines()
