"""Store benchmarks: memls against gptme 0.35.1 and against the floor, per corpus size.

For each size the same generated corpus (see ``corpus.py``) is measured by
three driver processes (``driver.py``): memls in the project venv, gptme in
its own venv, and the floor (read every file; libyaml-parse every
frontmatter). Then the two CLIs are timed as whole processes. Ratios are
gptme/memls: above 1 means memls is faster.

gptme's ``recall()`` re-reads every file on each call, so at large sizes only
the first ``--api-queries`` queries go through the full API (both tools);
the warm scorers run all 20.

Usage::

    python benchmarks/bench_store.py --sizes 1000,10000,50000 [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
from common import (  # noqa: E402
    PROJECT_PYTHON,
    RESULTS,
    WORK,
    clean_env,
    fmt_ratio,
    fmt_seconds,
    gptme_python,
    machine,
    table,
    write_json,
)

DRIVER = Path(__file__).resolve().parent / "driver.py"


def _driver(python: Path, impl: str, root: Path, spec: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [str(python), str(DRIVER), impl, "--root", str(root), "--spec", json.dumps(spec)],
        capture_output=True, text=True, env=clean_env(),
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{impl} driver failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cli(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def _cli_median(argv: list[str], env: dict[str, str], repeats: int) -> float:
    """Median wall time of ``repeats`` runs, after one unmeasured run (caches, bytecode)."""
    _cli(argv, env)
    return statistics.median(_cli(argv, env) for _ in range(max(1, repeats)))


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a measured CLI process.

    Bytecode is written and used, as in any installed package (a test
    runner's PYTHONDONTWRITEBYTECODE would make every run compile every
    module, which no user's process does).
    """
    env = clean_env(**extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def generated_root(work: Path, n: int, seed: int) -> Path:
    """A corpus root whose MEMORY.md is exactly its generated index (the usual case)."""
    root = work / "corpus" / f"generated-{n}-s{seed}"
    corpus.ensure(root, n, seed, defects=0)
    memls = str(PROJECT_PYTHON.parent / "memls")
    subprocess.run([memls, "index", "--write"], check=True, capture_output=True,
                   env=cli_env(MEMLS_MEMORY_DIRS=str(root)))
    return root


def _touch_one(root: Path, i: int) -> None:
    """Change one entry's body (a different file each time), as an agent's edit would."""
    with open(_nth_entry(root, i), "a", encoding="utf-8") as f:
        f.write(f"\nEdited for the benchmark ({i}).\n")


def _describe_one(root: Path, i: int) -> None:
    """Change one entry's description (a different file each time): its MEMORY.md line moves."""
    path = _nth_entry(root, i)
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(?m)^description: .*$", f'description: "Reworded for the benchmark ({i})"', text, count=1),
                    encoding="utf-8")


def _nth_entry(root: Path, i: int) -> Path:
    files = sorted(p for p in root.iterdir() if p.suffix == ".md" and p.name != "MEMORY.md")
    return files[(i * 7919) % len(files)]


def cli_timings(
    root: Path, gptme_py: Path, repeats: int, work: Path, planted: Path | None = None
) -> dict[str, float]:
    """Whole-process wall time of each CLI command (start-up and imports included).

    Measured on ``root``, whose MEMORY.md is its generated index; the floor
    beside them: the interpreter alone, and a process listing and stat-ing
    every file of the root. ``save`` and ``audit`` after one change work on a
    copy per tool. With ``planted`` (the corpus with planted defects),
    ``check`` as text and as JSON on it, unchanged (replayed): the JSON lists
    every problem's fixes, which must not cost the root once per problem.
    """
    memls = str(PROJECT_PYTHON.parent / "memls")
    gptme_util = str(gptme_py.parent / "gptme-util")
    menv = cli_env(MEMLS_MEMORY_DIRS=str(root))
    genv = cli_env(GPTME_MEMORY_DIRS=str(root))
    gptme_repeats = 1 if repeats <= 1 else 2  # seconds per run at 10k
    probe = sorted(p.stem for p in root.iterdir() if p.suffix == ".md" and p.name != "MEMORY.md")[0]
    out = {
        "floor_start": _cli_median([str(PROJECT_PYTHON), "-c", "pass"], menv, repeats * 3),
        "floor_stat": _cli_median([str(PROJECT_PYTHON), "-c", STAT_ALL, str(root)], menv, repeats * 3),
    }
    for name, args in (("audit", ["audit"]), ("list", ["list"]), ("index", ["index"]),
                       ("show", ["show", probe])):
        out[f"memls_{name}"] = _cli_median([memls, *args], menv, repeats * 3)
        out[f"gptme_{name}"] = _cli_median([gptme_util, "memory", *args], genv, gptme_repeats)
    out["memls_check"] = _cli_median([memls, "check", str(root)], menv, repeats)
    if planted is not None:
        penv = cli_env(MEMLS_MEMORY_DIRS=str(planted))
        out["memls_check_planted"] = _cli_median([memls, "check", str(planted)], penv, repeats)
        out["memls_check_json_planted"] = _cli_median(
            [memls, "check", "--format", "json", str(planted)], penv, repeats)
    out["memls_version"] = _cli_median([memls, "--help"], menv, repeats)  # start-up alone
    out["gptme_version"] = _cli_median([gptme_util, "memory", "--help"], genv, gptme_repeats)
    for impl, argv0, var in (("memls", [memls], "MEMLS_MEMORY_DIRS"),
                             ("gptme", [gptme_util, "memory"], "GPTME_MEMORY_DIRS")):
        copy = work / f"cli-copy-{impl}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root, copy)
        env = cli_env(**{var: str(copy)})
        runs = repeats * 3 if impl == "memls" else gptme_repeats
        _cli([*argv0, "audit"], env)  # caches warm, as on the unchanged root
        for key, change in (("audit_after_change", _touch_one), ("audit_after_description_change", _describe_one)):
            changed = []
            for i in range(runs):
                change(copy, i)
                changed.append(_cli([*argv0, "audit"], env))
            out[f"{impl}_{key}"] = statistics.median(changed)
        saves = [_cli([*argv0, "save", f"bench-cli-saved-{i:03d}", "A benchmark entry"], env)
                 for i in range(runs)]
        out[f"{impl}_save"] = statistics.median(saves)
        shutil.rmtree(copy, ignore_errors=True)
    return out


# The floor of a read command: list the root and stat every file (argv[1]).
STAT_ALL = ("import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "[os.stat(n, dir_fd=fd) for n in os.listdir(fd)]")


def bench_size(n: int, args: argparse.Namespace, gptme_py: Path) -> dict[str, Any]:
    legacy = args.work / "corpus" / f"legacy-{n}-s{args.seed}"
    managed = args.work / "corpus" / f"managed-{n}-s{args.seed}"
    started = time.perf_counter()
    manifest = corpus.ensure(legacy, n, args.seed, defects=args.defects)
    corpus.ensure(managed, n, args.seed, defects=args.defects, managed=True)
    generated = time.perf_counter() - started
    big = n > 10_000
    api_queries = args.api_queries
    if api_queries is None:
        api_queries = 3 if n >= 10_000 else len(corpus.QUERIES)
    spec = {
        "repeats": 1 if big else args.repeats,
        "queries": list(corpus.QUERIES),
        "api_queries": api_queries,
        "gptme_queries": api_queries,
        "get_name": manifest["probe_name"],
        "managed_root": str(managed),
    }
    if n == args.save_size or (args.save_size not in args.sizes and n == max(args.sizes)):
        spec.update(save_root=str(legacy), saves=args.saves,
                    save_copy=str(args.work / f"save-copy-{n}"))
    print(f"[{n}] corpus ready ({generated:.1f} s); floor ...", file=sys.stderr, flush=True)
    floor = _driver(PROJECT_PYTHON, "floor", legacy, spec)
    print(f"[{n}] memls ...", file=sys.stderr, flush=True)
    memls = _driver(PROJECT_PYTHON, "memls", legacy, spec)
    memls.update(cold_runs(legacy, spec))
    print(f"[{n}] gptme ...", file=sys.stderr, flush=True)
    gptme = _driver(gptme_py, "gptme", legacy, spec)
    if "save_root" in spec:  # each tool's saves in a process of their own
        print(f"[{n}] saves ...", file=sys.stderr, flush=True)
        for impl, python, out in (("memls", PROJECT_PYTHON, memls), ("gptme", gptme_py, gptme)):
            out.update(_driver(python, impl, legacy, {
                **spec, "phase": "save", "save_copy": spec["save_copy"] + f"-{impl}"}))
    cli = {}
    if not args.no_cli:
        print(f"[{n}] CLI processes ...", file=sys.stderr, flush=True)
        cli = cli_timings(generated_root(args.work, n, args.seed), gptme_py,
                          spec["repeats"], args.work, planted=legacy)
    return {"entries": n, "files": sum(1 for p in legacy.iterdir() if p.suffix == ".md"),
            "spec": {k: v for k, v in spec.items() if k != "queries"},
            "floor": floor, "memls": memls, "gptme": gptme, "cli": cli,
            "figures": figures(memls, gptme, floor, cli)}


def cold_runs(root: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """Load + full check, each run in a fresh process: with the caches, and without."""
    runs = [_driver(PROJECT_PYTHON, "memls", root, {**spec, "phase": "cold"})
            for _ in range(spec["repeats"])]
    first = _driver(PROJECT_PYTHON, "memls", root, {**spec, "phase": "cold", "uncached": True})

    def figure(samples: list[float]) -> dict[str, Any]:
        return {"median_s": statistics.median(samples), "samples": samples}

    return {
        "load_check": figure([r["load_check_s"] for r in runs]),
        "load": figure([r["load_s"] for r in runs]),
        "check_only": figure([r["check_s"] for r in runs]),
        "load_check_uncached": figure([first["load_check_s"]]),
        "problems": runs[0]["problems"],
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def figures(m: dict, g: dict, f: dict, cli: dict) -> dict[str, dict[str, Any]]:
    """The flat figures: name -> {memls, gptme, ratio} (seconds)."""
    out: dict[str, dict[str, Any]] = {}

    def add(name: str, memls: float | None, gptme: float | None = None, **extra: Any) -> None:
        out[name] = {"memls": memls, "gptme": gptme, "ratio": _ratio(gptme, memls), **extra}

    add("load_check", m["load_check"]["median_s"], g["audit"]["median_s"],
        note="memls Workspace.load + check_workspace vs gptme audit")
    add("load", m["load"]["median_s"])
    add("check_only", m["check_only"]["median_s"])
    if "load_check_uncached" in m:
        add("load_check_uncached", m["load_check_uncached"]["median_s"], g["audit"]["median_s"])
    add("audit", m["audit"]["median_s"], g["audit"]["median_s"])
    if "audit_after_change" in m:
        add("audit_after_change", m["audit_after_change"]["median_s"], g["audit"]["median_s"])
        add("check_replayed", m["check_replayed"]["median_s"])
    add("list", m["list"]["median_s"], g["list"]["median_s"])
    add("render_root_index", m["render_root_index"]["median_s"], g["render_root_index"]["median_s"])
    if "render_managed" in m and "render_managed" in g:
        add("render_managed", m["render_managed"]["median_s"], g["render_managed"]["median_s"])
    add("render_model", m["render_model"]["median_s"], g["render_root_index"]["median_s"],
        note="warm model render vs gptme render_root_index")
    add("bm25_build", m["bm25_build"]["median_s"])
    add("recall_bm25", m["recall_bm25"]["median_s"], g["recall_overlap_api"]["median_s"],
        p95=m["recall_bm25"]["p95_s"], note="warm BM25 search vs gptme recall() per query")
    add("recall_overlap", m["recall_overlap"]["median_s"], g["recall_overlap"]["median_s"],
        note="warm overlap scorer vs gptme's scorer over preloaded entries")
    add("recall_api", m["recall_api"]["median_s"], g["recall_overlap_api"]["median_s"],
        note="recall(store, q): both re-read the root per query")
    add("get", m["get"]["median_s"], g["get"]["median_s"])
    add("get_model", m["get_model"]["median_s"], g["get"]["median_s"],
        note="warm model lookup vs gptme get")
    if "save" in m and "save" in g:
        add("save_total", m["save"]["total_s"], g["save"]["total_s"], calls=m["save"]["calls"])
        add("save_each", m["save"]["median_s"], g["save"]["median_s"])
    if "stat_all" in f:
        add("floor_stat_all", f["stat_all"]["median_s"])
    if "save" in f:
        add("floor_save", f["save"]["median_s"])
    add("floor_read_bytes", f["read_bytes"]["median_s"])
    add("floor_yaml_parse", f["yaml_parse"]["median_s"])
    for command in ("index", "audit", "list", "show", "audit_after_change", "audit_after_description_change", "save"):
        if f"memls_{command}" in cli:
            add(f"cli_{command}", cli[f"memls_{command}"], cli[f"gptme_{command}"])
    if "memls_check" in cli:
        add("cli_check", cli["memls_check"])
        add("cli_startup", cli["memls_version"], cli["gptme_version"])
        add("cli_floor_start", cli["floor_start"])
        add("cli_floor_stat", cli["floor_stat"])
    if "memls_check_json_planted" in cli:
        add("cli_check_planted", cli["memls_check_planted"])
        add("cli_check_json_planted", cli["memls_check_json_planted"])
    return out


LABELS = {
    "load_check": "cold load + full check, fresh process (memls) vs audit (gptme)",
    "load": "  of which: load (from the parse cache)",
    "check_only": "  of which: full check",
    "load_check_uncached": "load + full check, no cache (a first run ever)",
    "audit": "audit, unchanged root (replayed check)",
    "audit_after_change": "audit, one file changed (its connected entries re-checked)",
    "check_replayed": "check_roots, unchanged root (replayed check)",
    "list": "list (entries())",
    "render_root_index": "render MEMORY.md (render_root_index)",
    "render_managed": "render MEMORY.md, managed root",
    "render_model": "render MEMORY.md from the warm model",
    "bm25_build": "BM25 index build (once)",
    "recall_bm25": "recall per query: memls BM25 warm vs gptme recall()",
    "recall_overlap": "recall per query: overlap scorer, warm",
    "recall_api": "recall per query: recall(store, q)",
    "get": "get/show one entry",
    "get_model": "get from the warm model",
    "save_total": "save of the new entries (total; 100 in `make bench`)",
    "save_each": "save, per entry",
    "floor_stat_all": "floor: list and stat every file",
    "floor_save": "floor: a save that proves its name (list + stat all, MEMORY.md + entry written atomically)",
    "floor_read_bytes": "floor: read every file",
    "floor_yaml_parse": "floor: libyaml-parse every frontmatter",
    "cli_index": "CLI index, unchanged root (process; its generated MEMORY.md)",
    "cli_audit": "CLI audit, unchanged root (process)",
    "cli_list": "CLI list, unchanged root (process)",
    "cli_show": "CLI show NAME, unchanged root (process)",
    "cli_audit_after_change": "CLI audit, one entry's body changed (process)",
    "cli_audit_after_description_change": "CLI audit, one entry's description changed (process)",
    "cli_save": "CLI save of one new entry (process)",
    "cli_floor_start": "floor: interpreter start (python -c pass)",
    "cli_floor_stat": "floor: process listing and stat-ing every file",
    "cli_check": "CLI memls check (process)",
    "cli_check_planted": "CLI memls check, planted defects, unchanged root (process)",
    "cli_check_json_planted": "CLI memls check --format json, planted defects, unchanged root (process)",
    "cli_startup": "CLI start-up (--help)",
}


def render_table(results: list[dict[str, Any]]) -> str:
    headers = ["figure"]
    for r in results:
        headers += [f"memls {r['entries']}", f"gptme {r['entries']}", f"ratio {r['entries']}"]
    rows = []
    for key, label in LABELS.items():
        if not any(key in r["figures"] for r in results):
            continue
        label = label.replace("100", str(next((r["figures"][key].get("calls") for r in results
                                                if key in r["figures"] and r["figures"][key].get("calls")), 100)))
        row = [label]
        for r in results:
            fig = r["figures"].get(key)
            if fig is None:
                row += ["-", "-", "-"]
            else:
                row += [fmt_seconds(fig["memls"]), fmt_seconds(fig["gptme"]), fmt_ratio(fig["ratio"])]
        rows.append(row)
    return table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--defects", type=float, default=0.02)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--api-queries", type=int,
                        help="queries sent through recall(store, q), which re-reads the root "
                             "each time (default: all 20 below 10k entries, 3 from 10k)")
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--save-size", type=int, default=10_000, help="corpus size saved into")
    parser.add_argument("--gptme-python", type=Path,
                        help="an interpreter with gptme 0.35.1 (default: its own venv, created)")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process CLI timings")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    gptme_py = args.gptme_python or gptme_python(args.work)
    results = [bench_size(n, args, gptme_py) for n in args.sizes]
    growth = {}
    by_size = {r["entries"]: r for r in results}
    if 10_000 in by_size and 50_000 in by_size:
        for key, fig in by_size[50_000]["figures"].items():
            base = by_size[10_000]["figures"].get(key)
            if base and fig["memls"] and base["memls"]:
                growth[key] = fig["memls"] / base["memls"]
    text = render_table(results)
    print(text)
    if growth:
        print("\n50k/10k growth (memls): " + ", ".join(f"{k} {v:.2f}" for k, v in growth.items()))
    out = {"machine": machine(), "command": "python benchmarks/bench_store.py " + " ".join(argv or sys.argv[1:]),
           "results": results, "growth_50k_10k": growth, "table": text}
    write_json(args.results / "store.json", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
