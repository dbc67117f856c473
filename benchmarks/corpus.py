"""A deterministic memory corpus for the benchmarks: N entries in one root.

The same seed always gives the same bytes, so a figure measured today and
one measured after a change are measured on the same files, and memls and
gptme read exactly the same corpus in one run.

What a corpus holds, and why:

* realistic entries: the four Claude Code types (``user``, ``feedback``,
  ``project``, ``reference``) plus ``general`` and custom types, titles,
  keywords, provenance, confidence, recheck dates, and Markdown bodies of a
  few hundred bytes to a couple of kilobytes drawn from a technical
  vocabulary (so BM25 and the overlap scorer see a real term distribution);
* supersession chains (superseded entries pointing at their replacement,
  replacements listing what they supersede) and historical entries, so the
  index and the supersession checks have work to do;
* an index: a legacy root gets a generated ``MEMORY.md``; a managed root
  (``--managed``) gets a ``.memory-index.json`` selecting a few dozen living
  entries within a budget, and the ``MEMORY.md`` that policy renders;
* optionally (``--defects F``) about ``F * N`` planted defects, spread over
  every check family: invalid YAML, files without frontmatter, duplicate
  names, slug collisions, reserved ``memory*`` files, dangling, asymmetric,
  self and cyclic supersession links, bad fields, unknown statuses, missing
  descriptions, and index drift (missing lines, broken links, non-living
  entries listed).

Entry files are serialized by :meth:`memls.store.entry.MemoryEntry.to_markdown`,
which is byte-compatible with gptme's writer. A manifest
(``.corpus-manifest.json``, a dot-file no reader treats as a memory) records
the parameters, a few well-known entry names the benchmarks use, and the
planted defects.

CLI::

    python benchmarks/corpus.py --entries 10000 --seed 1 --out DIR [--defects 0.02] [--managed]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from memls.store.entry import MemoryEntry  # noqa: E402
from memls.store.index import INDEX_FILENAME, POLICY_FILENAME, IndexPolicy, render_index, render_policy_view  # noqa: E402

MANIFEST = ".corpus-manifest.json"
CORPUS_VERSION = 1

TYPES = (
    ("project", 30), ("feedback", 22), ("user", 14), ("reference", 14),
    ("general", 8), ("decision", 5), ("runbook", 4), ("incident", 3),
)
SUBJECTS = (
    "auth service", "billing pipeline", "ci runner", "deploy script", "postgres replica",
    "redis cache", "feature flags", "search indexer", "payment webhook", "mobile build",
    "terraform state", "kubernetes ingress", "log shipper", "metrics dashboard", "api gateway",
    "rate limiter", "email queue", "image resizer", "session store", "dns records",
    "vpn config", "backup job", "data warehouse", "etl loader", "websocket relay",
    "pdf renderer", "translation memory", "oauth client", "sso bridge", "docs site",
    "release notes", "changelog bot", "dependency bot", "lint config", "test fixtures",
    "load balancer", "cdn purge", "cron scheduler", "secret rotation", "audit trail",
)
VERBS = (
    "breaks when", "needs a restart after", "must be pinned before", "times out during",
    "is flaky under", "was migrated ahead of", "depends on", "blocks", "is rate limited by",
    "should be rebuilt after", "leaks memory during", "is documented next to",
    "caches stale data after", "retries forever on", "ignores", "duplicates events from",
)
OBJECTS = (
    "the nightly deploy", "a schema migration", "the staging rollout", "peak traffic",
    "a cold start", "the weekly report", "a certificate renewal", "the holiday freeze",
    "a partial outage", "the quarterly audit", "a failover drill", "the code freeze",
    "large uploads", "concurrent writes", "unicode filenames", "daylight saving changes",
)
PREFERENCES = (
    "prefers small pull requests with one concern each",
    "wants tests written before the fix lands",
    "asks for terse commit messages in the imperative mood",
    "dislikes mocks for database code and prefers a real test container",
    "reviews on Tuesday and Thursday mornings",
    "wants every flag documented in the runbook",
    "prefers tabs in Makefiles and spaces everywhere else",
    "expects benchmark numbers with every performance change",
)
WORDS = (
    "latency throughput retry backoff idempotent schema index shard replica quorum lease "
    "timeout deadline budget queue worker batch stream snapshot checkpoint rollback canary "
    "rollout migration fixture container image registry manifest secret token certificate "
    "webhook callback handler middleware adapter parser serializer encoder cursor pagination "
    "tenant account invoice ledger refund dispute chargeback report export import sync "
    "mirror cache eviction warmup prefetch compaction vacuum analyze explain deadlock "
    "contention mutex semaphore channel goroutine thread process fork signal pipe socket"
).split()
KEYWORDS = (
    "deploy", "postgres", "redis", "ci", "flaky", "billing", "auth", "oauth", "terraform",
    "k8s", "ingress", "cdn", "dns", "backup", "etl", "warehouse", "webhook", "release",
    "lint", "tests", "benchmark", "outage", "migration", "secrets", "cron", "search",
)
# Twenty fixed queries: a mix of one-word, multi-word and phrase-like queries.
QUERIES = (
    "postgres replica lag",
    "flaky ci runner",
    "deploy script restart",
    "redis cache eviction",
    "billing pipeline refund ledger",
    "oauth client token certificate",
    "terraform state migration",
    "kubernetes ingress timeout",
    "search indexer batch compaction",
    "payment webhook retries",
    "feature flags rollout canary",
    "backup job snapshot checkpoint",
    "rate limiter peak traffic",
    "secret rotation certificate renewal",
    "small pull requests tests",
    "log shipper throughput",
    "dns records cdn purge",
    "data warehouse etl loader schema",
    "session store deadlock contention",
    "release notes changelog bot",
)
DEFECT_KINDS = (
    "invalid-yaml", "invalid-entry", "duplicate-name", "slug-collision", "reserved-name",
    "dangling-superseded-by", "dangling-supersedes", "asymmetric-supersession",
    "self-supersession", "supersession-cycle", "unknown-status", "missing-description",
    "invalid-field", "superseded-without-successor", "index-missing-entry",
    "index-broken-link", "index-lists-non-living",
)


@dataclass
class Corpus:
    """What was generated, for the benchmarks and the manifest."""

    root: Path
    entries: int
    seed: int
    managed: bool
    defects: dict[str, list[str]] = field(default_factory=dict)
    # Well-known names: a living entry to get/show, and a chain member to edit.
    probe_name: str = ""
    chain_names: list[str] = field(default_factory=list)
    living_names: list[str] = field(default_factory=list)

    def manifest(self) -> dict:
        return {
            "version": CORPUS_VERSION,
            "entries": self.entries,
            "seed": self.seed,
            "managed": self.managed,
            "probe_name": self.probe_name,
            "chain_names": self.chain_names,
            "sample_living_names": self.living_names[:50],
            "defects": self.defects,
            "queries": list(QUERIES),
        }


def _weighted(rng: random.Random, table: tuple[tuple[str, int], ...]) -> str:
    total = sum(w for _, w in table)
    pick = rng.uniform(0, total)
    for value, weight in table:
        pick -= weight
        if pick <= 0:
            return value
    return table[-1][0]


def _sentence(rng: random.Random) -> str:
    subject = rng.choice(SUBJECTS)
    extra = " ".join(rng.sample(WORDS, rng.randint(2, 6)))
    return f"The {subject} {rng.choice(VERBS)} {rng.choice(OBJECTS)} ({extra})."


def _body(rng: random.Random, kind: str) -> str:
    parts = []
    if kind == "user":
        parts.append(f"The user {rng.choice(PREFERENCES)}.")
    elif kind == "feedback":
        parts.append(f"Feedback: {rng.choice(PREFERENCES)}.")
        parts.append("**Why:** " + _sentence(rng))
        parts.append("**How to apply:** " + _sentence(rng))
    for _ in range(rng.randint(1, 4)):
        parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(1, 4))))
    if rng.random() < 0.4:
        parts.append("\n".join(f"- {_sentence(rng)}" for _ in range(rng.randint(2, 5))))
    if rng.random() < 0.15:
        cmd = rng.choice(("make deploy ENV=staging", "kubectl rollout restart deploy/api",
                          "psql -c 'select 1'", "terraform plan -out plan.bin"))
        parts.append(f"```sh\n{cmd}\n```")
    return "\n\n".join(parts)


def _name(rng: random.Random, i: int) -> str:
    words = rng.choice(SUBJECTS).split() + [rng.choice(WORDS)]
    return "-".join(words) + f"-{i:05d}"


def _entry(rng: random.Random, i: int, root: Path) -> MemoryEntry:
    kind = _weighted(rng, TYPES)
    name = _name(rng, i)
    subject = name.rsplit("-", 1)[0].replace("-", " ")
    entry = MemoryEntry(
        name=name,
        description=f"{subject.capitalize()}: {rng.choice(VERBS)} {rng.choice(OBJECTS)}",
        type=kind,
        body=_body(rng, kind),
        path=root / f"{name}.md",
    )
    if rng.random() < 0.4:
        entry.title = subject.title() + f" note {i}"
    if rng.random() < 0.6:
        entry.keywords = sorted(rng.sample(KEYWORDS, rng.randint(1, 4)))
    if rng.random() < 0.2:
        entry.provenance = {"source": rng.choice(("session", "review", "incident")),
                            "date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"}
    if rng.random() < 0.2:
        entry.confidence = round(rng.uniform(0.3, 1.0), 2)
    if rng.random() < 0.05:
        entry.recheck = f"20{rng.randint(24, 27)}-{rng.randint(1, 12):02d}-01"
    if rng.random() < 0.05:
        entry.metadata = {"originSessionId": f"{rng.getrandbits(64):016x}"}
    return entry


def generate(out: Path, entries: int, seed: int = 1, *, defects: float = 0.0,
             managed: bool = False) -> Corpus:
    """Write a corpus of ``entries`` entries into ``out`` (emptied first)."""
    if entries < 20:
        raise ValueError("a corpus needs at least 20 entries")
    if not 0.0 <= defects <= 0.5:
        raise ValueError("defects is a fraction between 0 and 0.5")
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    corpus = Corpus(root=out, entries=entries, seed=seed, managed=managed)
    made = [_entry(rng, i, out) for i in range(entries)]

    # Supersession chains over ~15% of the entries, a few historical ones.
    i = 0
    order = list(range(entries))
    rng.shuffle(order)
    chained = int(entries * 0.15)
    while i < chained:
        length = rng.randint(2, 4)
        chain = [made[j] for j in order[i:i + length]]
        for old, new in zip(chain, chain[1:]):
            old.status = "superseded"
            old.superseded_by = new.name
            new.supersedes = [*new.supersedes, old.name]
        if not corpus.chain_names and len(chain) >= 3:
            corpus.chain_names = [e.name for e in chain]
        i += length
    for j in order[chained:chained + entries // 33]:
        made[j].status = "historical"

    texts: dict[str, str] = {e.filename: e.to_markdown() for e in made}
    planted: dict[str, list[str]] = {kind: [] for kind in DEFECT_KINDS}
    # Defects go onto untouched living entries, never onto the probe or chains.
    pool = [e for e in (made[j] for j in order[chained + entries // 33:]) if e.is_living]
    corpus.probe_name = pool.pop().name
    index_defects = _plant(rng, made, texts, planted, pool, round(defects * entries), out)

    for filename, text in texts.items():
        (out / filename).write_text(text, encoding="utf-8")
    entries_for_index = [e for e in made if e.filename in texts and e.path is not None]
    living = sorted(e.name for e in made if e.is_living)
    corpus.living_names = living
    _write_index(rng, out, entries_for_index, managed, index_defects, planted)
    corpus.defects = {k: v for k, v in planted.items() if v}
    (out / MANIFEST).write_text(json.dumps(corpus.manifest(), indent=1) + "\n", encoding="utf-8")
    return corpus


def _plant(rng: random.Random, made: list[MemoryEntry], texts: dict[str, str],
           planted: dict[str, list[str]], pool: list[MemoryEntry], count: int,
           out: Path) -> dict[str, list[MemoryEntry]]:
    """Damage ``count`` living entries, one defect kind after another."""
    index_defects: dict[str, list[MemoryEntry]] = {}
    for n in range(count):
        if len(pool) < 3:
            break
        kind = DEFECT_KINDS[n % len(DEFECT_KINDS)]
        e = pool.pop()
        fn = e.filename
        planted[kind].append(fn)
        if kind == "invalid-yaml":
            texts[fn] = texts[fn].replace("description: ", "description: [unclosed, ", 1)
        elif kind == "invalid-entry":
            texts[fn] = f"# {e.name}\n\nNo frontmatter here.\n\n{e.body}\n"
        elif kind == "duplicate-name":
            texts[f"{e.name}-copy.md"] = texts[fn]
        elif kind == "slug-collision":
            other = e.name.replace("-", "_").upper()
            texts[f"{other}.md"] = texts[fn].replace(f"name: {e.name}", f"name: {other}", 1)
        elif kind == "reserved-name":
            texts[f"memory-{e.name}.md"] = texts[fn]
        elif kind == "dangling-superseded-by":
            e.status, e.superseded_by = "superseded", f"no-such-entry-{n}"
            texts[fn] = e.to_markdown()
        elif kind == "dangling-supersedes":
            e.supersedes = [f"gone-entry-{n}"]
            texts[fn] = e.to_markdown()
        elif kind == "asymmetric-supersession":
            new = pool.pop()
            e.status, e.superseded_by = "superseded", new.name  # new does not point back
            texts[fn] = e.to_markdown()
        elif kind == "self-supersession":
            e.supersedes = [e.name]
            texts[fn] = e.to_markdown()
        elif kind == "supersession-cycle":
            other = pool.pop()
            e.status, e.superseded_by, e.supersedes = "superseded", other.name, [other.name]
            other.status, other.superseded_by, other.supersedes = "superseded", e.name, [e.name]
            texts[fn] = e.to_markdown()
            texts[other.filename] = other.to_markdown()
        elif kind == "unknown-status":
            texts[fn] = texts[fn].replace("\n---\n", "\nstatus: archived\n---\n", 1)
            e.status = "archived"
        elif kind == "missing-description":
            e.description = ""
            texts[fn] = e.to_markdown()
        elif kind == "invalid-field":
            texts[fn] = texts[fn].replace("\n---\n", "\nconfidence: 7\n---\n", 1)
        elif kind == "superseded-without-successor":
            e.status = "superseded"
            texts[fn] = e.to_markdown()
        else:  # index defects are applied when MEMORY.md is written
            index_defects.setdefault(kind, []).append(e)
    return index_defects


def _write_index(rng: random.Random, out: Path, entries: list[MemoryEntry], managed: bool,
                 index_defects: dict[str, list[MemoryEntry]],
                 planted: dict[str, list[str]]) -> None:
    if managed:
        living = [e for e in entries if e.is_living]
        chosen = sorted(rng.sample(living, min(40, len(living))), key=lambda e: e.name)
        size = len(render_index(chosen).encode("utf-8"))
        policy = IndexPolicy(version=1, budget=max(size + 512, 4096),
                             selected=tuple(e.filename for e in chosen))
        (out / POLICY_FILENAME).write_text(policy.dumps(), encoding="utf-8")
        text = render_policy_view(entries, policy)
    else:
        text = render_index(entries)
    lines = text.splitlines()
    for e in index_defects.get("index-missing-entry", ()):
        lines = [line for line in lines if f"]({e.filename})" not in line]
    for n, _e in enumerate(index_defects.get("index-broken-link", ())):
        lines.append(f"- [vanished {n}](vanished-entry-{n}.md) \u2014 a file that is gone")
    for e in index_defects.get("index-lists-non-living", ()):
        lines.append(e.index_line())
        e.status = "historical"
        (out / e.filename).write_text(e.to_markdown(), encoding="utf-8")
    if managed:
        for kind in ("index-missing-entry", "index-broken-link", "index-lists-non-living"):
            planted[kind] = [e.filename for e in index_defects.get(kind, ())]
    (out / INDEX_FILENAME).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_manifest(root: Path) -> dict | None:
    try:
        return json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def ensure(out: Path, entries: int, seed: int = 1, *, defects: float = 0.0,
           managed: bool = False) -> dict:
    """The manifest of a corpus at ``out``, generated unless an identical one is there."""
    manifest = read_manifest(out)
    wanted = {"version": CORPUS_VERSION, "entries": entries, "seed": seed, "managed": managed}
    if manifest is not None and all(manifest.get(k) == v for k, v in wanted.items()) \
            and manifest.get("defect_fraction") == defects:
        return manifest
    generate(out, entries, seed, defects=defects, managed=managed)
    manifest = read_manifest(out) or {}
    manifest["defect_fraction"] = defects
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the memory root to (re)create")
    parser.add_argument("--defects", type=float, default=0.0, help="fraction of entries damaged")
    parser.add_argument("--managed", action="store_true", help="write a .memory-index.json policy")
    args = parser.parse_args(argv)
    try:
        manifest = ensure(args.out, args.entries, args.seed, defects=args.defects,
                          managed=args.managed)
    except ValueError as exc:
        print(f"corpus: {exc}", file=sys.stderr)
        return 2
    planted = sum(len(v) for v in manifest.get("defects", {}).values())
    print(f"{args.out}: {args.entries} entries, seed {args.seed}, "
          f"{'managed' if args.managed else 'legacy'} index, {planted} planted defects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
