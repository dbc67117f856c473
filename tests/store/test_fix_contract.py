"""The fix-and-format contract, over generated messy roots.

What must hold (issue 11, "Safe fixes are safe" and "Formatting is
whitespace and order only"):

* every fix the catalogue marks safe, applied alone, keeps what the user
  wrote -- comments, unknown keys, an explicit status, a ``|`` description's
  text, a CRLF body, the curated ``MEMORY.md`` lines of entries it does not
  name -- and changes only files its title names (the problem's own file, or
  a file or entry named in the title);
* Format Document keeps comments, explicit values and the body's bytes, and
  never adds a top-level key;
* ``fix_all`` (``memls check --fix``) reaches a fixpoint: a second run applies
  nothing and changes no byte, and afterwards ``check`` and ``index --check``
  agree: an index ``index --check`` accepts has no index problem in
  ``check``, and an index no person curated that ``check`` accepts is one
  ``index --check`` accepts. (A hand-curated index is by design never equal
  to the rendering, so only the first direction applies to it.)

Roots come from :mod:`tests.store.messy_roots`. Counts are bounded for
``make test``; ``MEMLS_STRESS=1`` raises them.
"""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

import yaml
from hypothesis import HealthCheck, Phase, given, settings

from memls.store import MemoryRoot, MemoryStore
from memls.store.apply import apply_fixes
from memls.store.checks import CheckContext, check_workspace, fixes_for
from memls.store.fix_all import fix_all
from memls.store.formatting import formatted_document
from memls.store.model import Workspace

from .messy_roots import INDEX, RootSpec, changed, messy_roots, scaled, snapshot, write_root

TODAY = date(2026, 11, 30)
# No "explain" phase: its line tracing makes a failing run many times slower.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
INDEX_CODES = {"index-drift", "index-missing", "index-missing-entry", "index-lists-non-living",
               "index-broken-link"}
SETTINGS = settings(max_examples=scaled(40, 600), deadline=None, phases=PHASES,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def context(root: Path) -> CheckContext:
    return CheckContext(Workspace.load([MemoryRoot("explicit", root)]), today=TODAY)


def problems(root: Path) -> list:
    return [p for ps in check_workspace(context(root)).values() for p in ps]


def fresh_root(tmp_path: Path, spec: RootSpec) -> Path:
    root = tmp_path / f"root-{len(list(tmp_path.iterdir()))}"
    write_root(root, spec)
    return root


def restore(root: Path, files: dict[str, bytes], file_modes: dict[str, int]) -> None:
    shutil.rmtree(root)
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
        os.chmod(root / name, file_modes[name])


def lost_user_text(root: Path, spec: RootSpec, *, spared: set[str] = frozenset()) -> list[str]:
    """Protected text of ``spec`` missing from ``root``.

    ``spared``: entry files whose ``MEMORY.md`` line the operation may change
    (the entries it names). Text inside entry files is never spared.
    """
    missing = []
    for e in spec.entries:
        path = root / e.filename
        if not path.exists():
            continue
        text = path.read_bytes().decode("utf-8")
        missing += [f"{e.filename}: {s!r}" for s in e.protected() if s not in text]
    index = root / INDEX
    if index.exists():
        text = index.read_text(encoding="utf-8")
        for line in spec.protected_index_lines():
            owner = line.split("](", 1)[-1].split(")", 1)[0]
            if owner not in spared and line not in text.splitlines():
                missing.append(f"{INDEX}: {line!r}")
    return missing


def named_in(title: str, filename: str, spec: RootSpec, problem_path: Path) -> bool:
    """Whether a fix title names the file (its file name, stem or entry name)."""
    if filename == problem_path.name:
        return True
    words = {filename, filename[: -len(".md")]}
    words |= {e.name for e in spec.entries if e.filename == filename}
    return any(w in title for w in words)


def disagreement(root: Path, spec: RootSpec) -> str | None:
    """Why ``check`` and ``index --check`` disagree on ``root``, or None."""
    up_to_date = MemoryStore([MemoryRoot("explicit", root)]).check_index()
    index_problems = sorted({p.code for p in problems(root) if p.code in INDEX_CODES})
    if up_to_date and index_problems:
        return f"index --check says up to date but check reports {index_problems}"
    # gptme's saves append pointer lines without memls's section headings: by the
    # definition (generated = memls's exact rendering) that index is curated too.
    curated = spec.index.startswith("curated") or spec.index == "appended"
    if not up_to_date and not index_problems and not curated:
        return "check reports no index problem but index --check says DRIFT"
    return None


@SETTINGS
@given(spec=messy_roots())
def test_every_safe_fix_keeps_user_text_and_touches_only_what_its_title_names(tmp_path, spec):
    root = fresh_root(tmp_path, spec)
    files, file_modes = snapshot(root), {p.name: os.stat(p).st_mode & 0o777 for p in root.iterdir()}
    ctx = context(root)
    found = [p for ps in check_workspace(ctx).values() for p in ps]
    failures = []
    for problem in found:
        for fix in fixes_for(ctx, problem):
            if not fix.safe:
                continue
            texts = {p: d.text for p in fix.paths if (d := ctx.workspace.document(p)) is not None}
            apply_fixes([fix], texts, root=root)
            touched = changed(files, snapshot(root))
            unnamed = sorted(f for f in touched if not named_in(fix.title, f, spec, problem.path))
            if unnamed:
                failures.append(f"{problem.code} fix {fix.title!r} also changed {unnamed}")
            spared = {e.filename for e in spec.entries if named_in(fix.title, e.filename, spec, problem.path)}
            lost = lost_user_text(root, spec, spared=spared)
            if lost:
                failures.append(f"{problem.code} fix {fix.title!r} lost {lost}")
            restore(root, files, file_modes)
    assert not failures, "\n".join(failures)


def _frontmatter_keys(text: str) -> set[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    end = lines.index("---", 1)
    data = yaml.safe_load("\n".join(lines[1:end])) or {}
    return set(data)


def _body(text: str) -> str:
    lines = text.split("\n")
    end = next(i for i, line in enumerate(lines[1:], 1) if line.rstrip("\r") == "---")
    return "\n".join(lines[end + 1:]).lstrip("\r\n")


@SETTINGS
@given(spec=messy_roots())
def test_format_document_changes_only_whitespace_and_order(tmp_path, spec):
    root = fresh_root(tmp_path, spec)
    ws = Workspace.load([MemoryRoot("explicit", root)])
    failures = []
    by_file = {e.filename: e for e in spec.entries}
    for doc in list(ws.documents()):
        # An editor formats its buffer, whose text is the file's own (CRLF kept),
        # not the disk read's normalised text.
        ws.update(doc.path, doc.path.read_bytes().decode("utf-8"))
        doc = ws.document(doc.path)
        new = formatted_document(doc)
        if new is None or new == doc.text:
            continue
        name = doc.path.name
        if name == INDEX:
            gone = [line for line in spec.protected_index_lines() if line not in new.splitlines()]
            if gone:
                failures.append(f"formatting {INDEX} drops curated lines {gone}")
            continue
        e = by_file.get(name)
        if e is None:
            continue
        gone = [s for s in e.protected() if s not in new]
        if gone:
            failures.append(f"formatting {name} drops {gone}")
        added = _frontmatter_keys(new) - _frontmatter_keys(doc.text)
        if added:
            failures.append(f"formatting {name} adds keys {sorted(added)}")
        if _body(new) != _body(doc.text):
            failures.append(f"formatting {name} changes the body {_body(doc.text)!r} -> {_body(new)!r}")
    assert not failures, "\n".join(failures)


@SETTINGS
@given(spec=messy_roots())
def test_fix_all_reaches_a_fixpoint_keeping_user_text_and_check_agrees_with_index_check(tmp_path, spec):
    root = fresh_root(tmp_path, spec)
    existed = set(snapshot(root))
    fix_all(context(root))
    after_first = snapshot(root)
    lost = lost_user_text(root, spec)
    assert not lost, f"check --fix lost user text: {lost}"
    second = fix_all(context(root))
    assert not second.applied, f"a second --fix applied {[(p.code, f.title) for p, f in second.applied]}"
    assert snapshot(root) == after_first, f"a second --fix changed {changed(after_first, snapshot(root))}"
    why = disagreement(root, spec)
    assert why is None, why
    new_files = set(after_first) - existed
    for name in new_files:
        mode = os.stat(root / name).st_mode & 0o777
        assert mode == 0o600, f"check --fix created {name} with mode {oct(mode)}"
