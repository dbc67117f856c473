"""Hostile files and names: nothing is written outside a root, nothing is executed,
and oversized or explosive YAML is bounded in time and memory.

Decision on a symlinked ROOT (the root directory itself is a symlink): it is
a root like any other. Reads follow it, and writes land in the directory it
points to, because the user configured that path as their memory; the
symlink itself is never replaced. A symlinked ENTRY is different: it is a
file inside the root pointing elsewhere, and a write through it would change
a file outside every root, so every write to it is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memls.store import MemoryRoot, MemoryStore

from .reliability_helpers import MEMLS, entry_text, memls, root_env, snapshot

RSS_CAP_KB = 500 * 1024


def test_save_over_a_symlinked_entry_is_refused_and_its_target_untouched(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir(), outside.mkdir()
    target = outside / "victim.md"
    target.write_text(entry_text("victim", "outside every root"), encoding="utf-8")
    (root / "victim.md").symlink_to(target)
    before = snapshot(outside)
    result = memls(root, "save", "victim", "overwritten")
    assert result.returncode == 1 and result.stderr.startswith("Error: ") and "symlink" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    with pytest.raises(OSError):
        MemoryStore([MemoryRoot("explicit", root)]).save("victim", "overwritten")
    assert snapshot(outside) == before and (root / "victim.md").is_symlink()


def test_rename_and_supersede_never_write_through_a_symlinked_entry(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir(), outside.mkdir()
    (outside / "linked.md").write_text(entry_text("linked", "outside"), encoding="utf-8")
    (root / "linked.md").symlink_to(outside / "linked.md")
    (root / "local.md").write_text(entry_text("local", "inside"), encoding="utf-8")
    before = snapshot(outside)
    for args in (["supersede", "linked", "local"], ["supersede", "local", "linked"],
                 ["rename", "linked", "moved"], ["delete", "linked"], ["historical", "linked"]):
        result = memls(root, *args)
        assert result.returncode == 1 and len(result.stderr.splitlines()) == 1, (args, result.stderr)
    assert snapshot(outside) == before


def test_a_symlinked_root_is_read_and_written_in_the_directory_it_points_to(tmp_path):
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    link.symlink_to(real, target_is_directory=True)
    (real / "kept.md").write_text(entry_text("kept", "already there"), encoding="utf-8")
    assert memls(link, "save", "added", "through the link").returncode == 0
    assert memls(link, "supersede", "kept", "added").returncode == 0
    assert link.is_symlink() and (real / "added.md").is_file() and (real / "MEMORY.md").is_file()
    listed = memls(link, "list", "--json")
    assert {e["name"] for e in json.loads(listed.stdout)} >= {"kept", "added"}


@pytest.mark.parametrize("name", [
    "../../escaped", "a/../../b", "/etc/passwd-x", "sub/dir/name", "..", "./x", "nul\x00byte",
    "ctl\x01\x1b[2Jname", "new\nline", "tab\tname", "back\\slash\\..\\..\\x", "ünïcode/../é",
])
def test_hostile_names_cannot_escape_the_root(name, tmp_path):
    root = tmp_path / "nest" / "root"
    root.mkdir(parents=True)
    store = MemoryStore([MemoryRoot("explicit", root)])
    try:
        path = store.save(name, "hostile name")
    except ValueError:
        path = None  # refused: equally safe
    if path is not None:
        assert Path(path).parent == root and Path(path).is_file()
    outside = [p for p in tmp_path.rglob("*") if root not in (p, *p.parents) and p.is_file()]
    assert outside == []
    assert {p.parent for p in root.rglob("*")} <= {root}


def test_python_object_tag_is_reported_as_invalid_yaml_and_never_executed(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    marker = tmp_path / "pwned"
    payload = (f"---\nname: evil\ndescription: !!python/object/apply:os.system [\"touch {marker}\"]\n"
               "metadata:\n  type: project\n---\n\nbody\n")
    (root / "evil.md").write_text(payload, encoding="utf-8")
    (root / "tagged.md").write_text(
        "---\nname: tagged\ndescription: !!python/name:os.system ''\n---\n", encoding="utf-8")
    checked = memls(root, "check", "--format", "json", str(root))
    codes = {(Path(p["path"]).name, p["code"]) for p in json.loads(checked.stdout)}
    assert ("evil.md", "invalid-yaml") in codes and ("tagged.md", "invalid-yaml") in codes
    audit = memls(root, "audit")
    assert audit.returncode == 1 and "invalid-yaml: " in audit.stdout
    MemoryStore([MemoryRoot("explicit", root)]).entries()
    gptme = subprocess.run([str(Path(MEMLS).with_name("gptme-util")), "memory", "audit"],
                           env=root_env(root), capture_output=True, text=True, timeout=120)
    assert "Traceback" not in gptme.stderr
    assert not marker.exists()


# Linux reports a child's peak RSS as at least its parent's peak at the fork
# (the high-water mark is copied with the address space), so a large test
# process (a long fuzz run before this one) would be blamed on memls. A small
# Python process in between forks memls and reports memls's own figure.
_MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
with open(os.environ["MEMLS_TEST_RSS_FILE"], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def run_bounded(root: Path, *args: str, timeout: float = 120) -> tuple[int, str, int]:
    """Run memls; return (exit status, stdout, peak RSS in KiB of memls alone)."""
    out = root.parent / "out.txt"
    rss_file = root.parent / "rss.txt"
    with out.open("w") as stdout:
        proc = subprocess.Popen([sys.executable, "-c", _MEASURE, MEMLS, *args],
                                env={**root_env(root), "MEMLS_TEST_RSS_FILE": str(rss_file)},
                                stdout=stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait()
        raise AssertionError(f"memls {' '.join(args)} was killed after {timeout}s") from None
    return proc.returncode, out.read_text(), int(rss_file.read_text())


def test_a_50_megabyte_file_is_reported_too_large_within_bounded_memory(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with (root / "huge.md").open("w") as f:
        f.write("---\nname: huge\ndescription: \"x\"\n---\n")
        chunk = "y" * (1 << 20)
        for _ in range(50):
            f.write(chunk)
    (root / "fine.md").write_text(entry_text("fine"), encoding="utf-8")
    status, output, rss = run_bounded(root, "check", str(root))
    assert "file-too-large" in output and "huge.md" in output
    assert status in (0, 1) and rss < RSS_CAP_KB, f"peak RSS {rss} KiB"
    status, output, rss = run_bounded(root, "list")
    assert "fine" in output and rss < RSS_CAP_KB


def billion_laughs(levels: int = 12, width: int = 10) -> str:
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels):
        refs = ", ".join(f"*a{i - 1}" for _ in range(width))
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "---\nname: bomb\ndescription: boom\n" + "\n".join(lines) + f"\nbomb: *a{levels - 1}\n---\n\nbody\n"


def test_a_yaml_alias_bomb_is_bounded_in_time_and_memory(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "bomb.md").write_text(billion_laughs(), encoding="utf-8")
    (root / "meta.md").write_text(billion_laughs().replace("bomb: *a11", "metadata:\n  nested: *a11")
                                  .replace("name: bomb", "name: meta"), encoding="utf-8")
    for args in (["check", str(root)], ["check", "--format", "json", str(root)], ["list"], ["audit"],
                 ["index"], ["recall", "lol"]):
        status, output, rss = run_bounded(root, *args)
        assert "Traceback" not in output, (args, output[-2000:])
        assert rss < RSS_CAP_KB, (args, rss)


JSON_OUTPUTS = [
    ("list", "--json"), ("show", "meta", "--json"), ("search", "laughs", "--json"),
    ("recall", "laughs", "--format", "json"), ("match", "laughs", "--format", "json"),
]


@pytest.fixture
def bomb_root(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "meta.md").write_text(
        billion_laughs().replace("bomb: *a11", "metadata:\n  type: project\n  nested: *a11\nkeywords: [laughs]")
        .replace("name: bomb", "name: meta").replace("body", "laughs"), encoding="utf-8")
    (root / "loop.md").write_text("---\nname: loop\ndescription: laughs\nself: &s [*s]\n---\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("args", JSON_OUTPUTS, ids=lambda a: " ".join(a))
def test_every_json_output_of_an_alias_bomb_is_small_and_leaves_the_bomb_out(bomb_root, args):
    status, output, rss = run_bounded(bomb_root, *args)
    assert status == 0 and rss < RSS_CAP_KB, (status, rss, output[-2000:])
    assert len(output) < 100_000 and "Traceback" not in output
    data = json.loads(output)
    text = json.dumps(data)
    assert '"meta"' in text and '"nested"' not in text and '"self"' not in text


def test_check_reports_the_alias_bomb_within_bounded_memory(bomb_root):
    status, output, rss = run_bounded(bomb_root, "check", str(bomb_root))
    assert status == 1 and rss < RSS_CAP_KB, (rss, output[-2000:])
    assert "meta.md:18:3: error alias-expansion-too-large metadata.nested" in output
    assert "loop.md:4:1: error alias-expansion-too-large self contains itself" in output
