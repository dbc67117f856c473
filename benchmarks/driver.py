"""Time store operations inside one Python process and print JSON.

Run by ``bench_store.py`` once per implementation, each with its own
interpreter: ``memls`` and ``floor`` with the project's venv, ``gptme`` with
the venv that holds gptme 0.35.1 (and nothing of memls). Timing inside the
process leaves interpreter start-up and imports out of every figure, so the
ratios compare the operations themselves; ``bench_store.py`` times the CLIs
as whole processes separately.

Every figure is in seconds. A figure measured ``repeats`` times reports the
median (``*_s``) and all samples (``samples``).

Usage::

    python driver.py IMPL --root DIR --spec JSON
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SETTLE_SECONDS = 2.1  # store.cache.RACY_WINDOW_NS, and a little more


def timed(fn: Callable[[], Any], repeats: int) -> tuple[dict[str, Any], Any]:
    samples = []
    result = None
    for _ in range(repeats):
        result = None  # the previous result is freed here, not inside the timing
        gc.collect()
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return {"median_s": statistics.median(samples), "samples": samples}, result


def per_call(fn: Callable[[str], Any], args: list[str]) -> dict[str, Any]:
    """Each call timed on its own: median, p95, mean and max per call."""
    samples = []
    for arg in args:
        start = time.perf_counter()
        fn(arg)
        samples.append(time.perf_counter() - start)
    ordered = sorted(samples)
    return {
        "median_s": statistics.median(samples),
        "p95_s": ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))],
        "mean_s": statistics.fmean(samples),
        "max_s": ordered[-1],
        "calls": len(samples),
    }


def settle(root: Path) -> None:
    """Wait until no file of ``root`` is inside memls's racy window.

    The caches never trust a file changed in the last two seconds
    (``memls.store.cache``); a corpus generated just now would otherwise be timed
    as if it were always being edited, which a real root is not.
    """
    newest = max((max(st.st_mtime_ns, st.st_ctime_ns)
                  for st in (p.stat() for p in root.iterdir())), default=0)
    wait = newest / 1e9 + SETTLE_SECONDS - time.time()
    if wait > 0:
        time.sleep(wait)


@contextmanager
def caches_off() -> Iterator[None]:
    """memls's persistent caches off (``MEMLS_NO_CACHE``): a first run ever."""
    os.environ["MEMLS_NO_CACHE"] = "1"
    try:
        yield
    finally:
        del os.environ["MEMLS_NO_CACHE"]


def save_args(i: int) -> tuple[str, str, str, dict[str, Any]]:
    """The i-th benchmark entry to save (the same for both implementations)."""
    name = f"bench-saved-entry-{i:04d}"
    description = f"Benchmark entry {i}: the deploy script needs a restart after migrations"
    body = (f"Saved by the benchmark ({i}). The postgres replica lags during the nightly "
            "deploy; restart the ci runner afterwards.\n\n- check the lag\n- restart\n")
    return name, description, body, {"type": "project", "keywords": ["deploy", "bench"]}


# -- memls --------------------------------------------------------------------


def run_memls(root: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """Store read paths first, in a process holding nothing else (as a CLI call
    would), then the model, the checks and recall."""
    sys.path.insert(0, str(REPO))
    from memls.store.check_cache import check_roots
    from memls.store.checks import CheckContext, check_workspace
    from memls.store.index import index_entries, render_index
    from memls.store.model import Workspace
    from memls.store.recall import Bm25Index, recall, recall_entries
    from memls.store.roots import MemoryRoot
    from memls.store.settings import Settings
    from memls.store.store import MemoryStore

    repeats = spec["repeats"]
    roots = [MemoryRoot("explicit", root)]
    out: dict[str, Any] = {}
    if spec.get("phase") == "save":
        out["save"] = _saves(spec, lambda copy: MemoryStore([MemoryRoot("explicit", copy)]))
        return out
    if spec.get("phase") == "cold":
        # A cold load is a process's first: nothing of memls in memory yet.
        settle(root)
        with caches_off() if spec.get("uncached") else nullcontext():
            start = time.perf_counter()
            ws = Workspace.load(roots)
            loaded = time.perf_counter()
            problems = check_workspace(CheckContext(ws))
            checked = time.perf_counter()
        return {"load_s": loaded - start, "check_s": checked - loaded,
                "load_check_s": checked - start,
                "problems": sum(len(p) for p in problems.values())}

    settle(root)
    store = MemoryStore(roots)
    store.entries()  # the entries cache is current, as after any earlier run
    out["list"], entries = timed(store.entries, repeats)
    out["entries"] = len(entries)
    entries = None
    out["render_root_index"], text = timed(store.render_root_index, repeats)
    out["index_bytes"] = len(text.encode("utf-8"))
    if spec.get("managed_root"):
        settle(Path(spec["managed_root"]))
        managed = MemoryStore([MemoryRoot("explicit", Path(spec["managed_root"]))])
        managed.entries()
        out["render_managed"], _ = timed(managed.render_root_index, repeats)
    name = spec["get_name"]
    out["get"], got = timed(lambda: store.get(name), repeats)
    out["get_found"] = got is not None

    # audit and `memls check` replay the last full check of an unchanged root
    # (store.check_cache): timed once primed, and after one file changed.
    store.audit()
    out["audit"], issues = timed(store.audit, repeats)
    out["audit_issues"] = len(issues)
    out["check_replayed"], run = timed(lambda: check_roots(roots, Settings()), repeats)
    out["check_replayed_is_replay"] = run.workspace is None
    run = None
    touched = next(p for p in sorted(root.iterdir()) if p.suffix == ".md" and p.name != "MEMORY.md")

    def audit_after_change() -> list:
        os.utime(touched)  # same bytes, new identity: that file and its connected entries re-checked
        return store.audit()

    out["audit_after_change"], _ = timed(audit_after_change, repeats)

    # Cold load + check is timed by bench_store.py in fresh processes ("cold").
    ws = Workspace.load(roots)
    state = ws.roots[0]

    def render_model() -> str:
        return render_index(index_entries([d.entry for d in state.entry_documents()], managed=False))

    out["render_model"], model_text = timed(render_model, repeats)
    out["render_model_equal"] = model_text == text

    entries = store.entries()
    queries = spec["queries"]
    living = [e for e in entries if e.is_living]
    out["bm25_build"], index = timed(lambda: Bm25Index.build(living), repeats)
    out["recall_bm25"] = per_call(lambda q: index.search(q, 3), queries)
    out["recall_overlap"] = per_call(
        lambda q: recall_entries(entries, q, limit=3, backend="overlap"), queries)
    out["recall_api"] = per_call(lambda q: recall(store, q, backend="bm25"),
                                 queries[: spec["api_queries"]])

    lookups = 1000
    start = time.perf_counter()
    for _ in range(lookups):
        found = ws.entries_named(name)
    out["get_model_found"] = bool(found)
    out["get_model"] = {"median_s": (time.perf_counter() - start) / lookups, "samples": []}
    return out


# -- gptme --------------------------------------------------------------------


def run_gptme(root: Path, spec: dict[str, Any]) -> dict[str, Any]:
    from gptme.memory.recall import recall
    from gptme.memory.roots import MemoryRoot
    from gptme.memory.store import MemoryStore

    repeats = spec["repeats"]
    store = MemoryStore([MemoryRoot("explicit", root)])
    out: dict[str, Any] = {}
    if spec.get("phase") == "save":
        out["save"] = _saves(spec, lambda copy: MemoryStore([MemoryRoot("explicit", copy)]))
        return out
    out["audit"], issues = timed(store.audit, repeats)
    out["audit_issues"] = len(issues)
    out["list"], entries = timed(store.entries, repeats)
    out["entries"] = len(entries)
    out["render_root_index"], text = timed(store.render_root_index, repeats)
    out["index_bytes"] = len(text.encode("utf-8"))
    if spec.get("managed_root"):
        managed = MemoryStore([MemoryRoot("explicit", Path(spec["managed_root"]))])
        out["render_managed"], _ = timed(managed.render_root_index, repeats)

    queries = spec["queries"]
    gq = queries[: spec["gptme_queries"]]
    out["recall_overlap_api"] = per_call(lambda q: recall(store, q, backend="overlap"), gq)
    living = [e for e in entries if e.is_living]
    # gptme.memory re-exports ``recall`` over its module name; take the module itself.
    scorer = sys.modules["gptme.memory.recall"]._recall_overlap
    out["recall_overlap"] = per_call(lambda q: scorer(living, q, 3), queries)

    name = spec["get_name"]
    out["get"], got = timed(lambda: store.get(name), repeats)
    out["get_found"] = got is not None
    return out


def _saves(spec: dict[str, Any], make_store: Callable[[Path], Any]) -> dict[str, Any]:
    """``saves`` new entries into a fresh copy of the save root, each timed.

    A copy gives every file a new identity, and memls trusts no identity in
    the first two seconds (store.cache's racy rule). A real root was read by
    the previous session, so the copy is left to settle and read once before
    the saves (gptme, with no cache, is timed after the same wait and read).
    """
    copy = Path(spec["save_copy"])
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(spec["save_root"], copy)
    store = make_store(copy)
    settle(copy)
    store.entries()
    samples = []
    try:
        for i in range(spec["saves"]):
            name, description, body, extra = save_args(i)
            start = time.perf_counter()
            store.save(name, description, body, type=extra["type"], keywords=extra["keywords"])
            samples.append(time.perf_counter() - start)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return {"total_s": sum(samples), "median_s": statistics.median(samples),
            "max_s": max(samples), "calls": len(samples)}


# -- the floor ----------------------------------------------------------------


def run_floor(root: Path, spec: dict[str, Any]) -> dict[str, Any]:
    import yaml

    repeats = spec["repeats"]

    def paths() -> list[str]:
        return sorted(e.path for e in os.scandir(root) if e.name.endswith(".md") and e.is_file())

    def read_all() -> int:
        total = 0
        for p in paths():
            with open(p, "rb") as f:
                total += len(f.read())
        return total

    def parse_all() -> int:
        parsed = 0
        for p in paths():
            with open(p, "rb") as f:
                text = f.read().decode("utf-8", "replace")
            if not text.startswith("---\n"):
                continue
            end = text.find("\n---\n", 4)
            if end < 0:
                continue
            try:
                yaml.load(text[4:end + 1], Loader=yaml.CSafeLoader)
                parsed += 1
            except yaml.YAMLError:
                pass
        return parsed

    def stat_all() -> int:
        # What any write that proves no other file takes its name must do.
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            return sum(1 for name in os.listdir(fd) if os.stat(name, dir_fd=fd).st_size)
        finally:
            os.close(fd)

    scratch = root.parent / f"{root.name}-floor-save"

    def save() -> int:
        # The least a save that proves its name costs: the listing and stat of every file, then
        # MEMORY.md read and written with one more line and the entry written, each atomically
        # (a temporary file, fsync, rename), and the directory fsynced. Nothing parsed, locked or
        # read back; written beside the root, never in it.
        stat_all()
        index = root / "MEMORY.md"
        text = (index.read_bytes() if index.exists() else b"") + "- [floor](floor.md) \u2014 A line.\n".encode()
        for name, data in (("MEMORY.md", text), ("floor.md", b"---\nname: floor\ndescription: A line.\n---\n\nBody.\n")):
            temporary = scratch / f".{name}.tmp"
            with open(temporary, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, scratch / name)
        fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return len(text)

    out: dict[str, Any] = {"libyaml": bool(getattr(yaml, "__with_libyaml__", False))}
    out["stat_all"], out["files"] = timed(stat_all, repeats)
    scratch.mkdir(exist_ok=True)
    try:
        out["save"], _ = timed(save, repeats * 5)  # fsyncs vary: more samples than the reads
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out["read_bytes"], out["bytes"] = timed(read_all, repeats)
    out["yaml_parse"], out["parsed"] = timed(parse_all, repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=("memls", "gptme", "floor"))
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--spec", required=True, help="JSON: repeats, queries, get_name, ...")
    parser.add_argument("--profile", help="cProfile this run into the given file (pstats)")
    args = parser.parse_args()
    spec = json.loads(args.spec)
    run = {"memls": run_memls, "gptme": run_gptme, "floor": run_floor}[args.impl]
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        result = profiler.runcall(run, args.root, spec)
        profiler.dump_stats(args.profile)
    else:
        result = run(args.root, spec)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
