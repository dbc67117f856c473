"""A stateful model of one memory root: every command acts on the entry it names, and keeps user text.

Hypothesis drives a root through memls's commands (save, supersede, rename,
delete, historical, ``check --fix``), a person's hand edits (cross a name
and a file stem, give two names one slug, curate an index line, add
comments and an unknown key, make a description a ``|`` block) and writes
by the real gptme 0.35.1. A plain in-memory model says which entry each
name means and which user text must survive; after every step (issue 11,
"What must hold afterwards"):

* the acted-on entry is the one whose ``name`` equals the argument; a stem
  or slug match only when no entry has that exact name; an ambiguous name is
  refused and changes no byte;
* no file outside the operation's entries changed; comments, unknown keys,
  an explicit status, a ``|`` description's text, and the curated
  ``MEMORY.md`` lines of untouched entries survive;
* a memls write to a generated ``MEMORY.md`` leaves it generated;
* ``check`` and ``index --check`` agree (both through the engine);
* file modes are kept, new files are ``0600``.

Two machines share the rules: one calls the engine in-process, the other
runs memls's commands through the real ``memls`` console script (slow, so
fewer steps). Counts scale with ``MEMLS_STRESS=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from memls.store import MemoryRoot, MemoryStore, slugify
from memls.store.checks import CheckContext, check_workspace
from memls.store.fix_all import fix_all
from memls.store.model import Workspace
from memls.store.parse import parse_document

from .messy_roots import HEADER, INDEX, changed, scaled, snapshot, twin

TODAY = date(2026, 11, 30)
# No "explain" phase: its line tracing makes a failing run many times slower.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
INDEX_CODES = {"index-drift", "index-missing", "index-missing-entry", "index-lists-non-living",
               "index-broken-link"}
NAMES = ("alpha", "beta", "gamma", "api-keys", "Api Keys", "cafe-notes", "café-notes", "delta-2")
MEMLS = str(Path(sys.executable).parent / "memls")


@dataclass
class Entry:
    """What the model knows of one entry file."""

    filename: str
    name: str
    status: str = "living"
    superseded_by: str | None = None
    supersedes: list[str] = field(default_factory=list)
    snippets: list[str] = field(default_factory=list)  # user text that must stay in the file
    mode: int = 0o600

    @property
    def stem(self) -> str:
        return self.filename[: -len(".md")]


class Refuse(Exception):
    """The model expects the command to refuse."""


def resolve(entries: list[Entry], arg: str) -> tuple[Entry | None, bool]:
    """The entry ``arg`` must mean, and whether refusing instead is also correct.

    Raises :class:`Refuse` when the name is ambiguous or unknown.
    """
    exact = [e for e in entries if e.name == arg]
    if len(exact) > 1:
        raise Refuse(f"{arg!r} is the name of {[e.filename for e in exact]}")
    if exact:  # the exact name wins over any other entry's file stem or slug
        return exact[0], False
    wanted = {arg, slugify(arg)}
    fallback = [e for e in entries if e.name in wanted or e.stem in wanted]
    if len(fallback) != 1:
        raise Refuse(f"{arg!r} matches {[e.filename for e in fallback]}")
    return fallback[0], False


class RootModel(RuleBasedStateMachine):
    """One legacy root, the model beside it, and the rules that change both."""

    via_cli = False

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="memls-model-"))
        self.root = self.tmp / "memory"
        self.root.mkdir()
        self.cache = self.tmp / "cache"
        self.entries: list[Entry] = []
        self.curated: dict[str, str] = {}  # filename -> the person's own index line
        self.prose: list[str] = []
        self.index_mode: int | None = None
        self.index_creator: str | None = None  # memls, gptme or person
        # An index that is not memls's rendering for a reason outside the model's curated
        # lines: a save into a root without MEMORY.md (memls's or gptme's, same bytes)
        # writes gptme's header and pointer line, later gptme saves append lines without
        # memls's section headings, and a hand edit of an entry leaves a generated index
        # behind. By the definition (generated = memls's exact rendering) it is curated
        # until something renders it again.
        self.appended_index = False
        self.trace: list[str] = []

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers ---------------------------------------------------------------

    def store(self) -> MemoryStore:
        return MemoryStore([MemoryRoot("explicit", self.root)])

    def by_file(self, filename: str) -> Entry | None:
        return next((e for e in self.entries if e.filename == filename), None)

    def linked(self, e: Entry) -> bool:
        return bool(e.supersedes or e.superseded_by or any(
            e.name in o.supersedes or o.superseded_by == e.name for o in self.entries if o is not e))

    def generated(self) -> bool:
        return (self.root / INDEX).exists() and self.store().check_index()

    def run(self, *args: str) -> None:
        """One memls command: in-process through the engine, or the console script."""
        if self.via_cli:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLS_", "GPTME_"))}
            env.update(MEMLS_MEMORY_DIRS=str(self.root), MEMLS_CACHE_DIR=str(self.cache),
                       HOME=str(self.tmp))
            argv = [MEMLS, *args]
            if args[0] == "check":
                argv.append(str(self.root))
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL, cwd=self.tmp)
            if args[0] == "check":
                assert "Traceback" not in done.stderr, done.stderr
                return
            if done.returncode != 0:
                assert done.stderr.startswith("Error: ") and "Traceback" not in done.stderr, done.stderr
                raise RuntimeError(done.stderr.strip())
            return
        s = self.store()
        command, rest = args[0], args[1:]
        if command == "save":
            s.save(rest[0], rest[1], "Saved body.\n")
        elif command == "supersede":
            s.supersede(*rest)
        elif command == "rename":
            s.rename(*rest)
        elif command == "delete":
            s.delete(*rest)
        elif command == "historical":
            s.set_status(rest[0], "historical")
        elif command == "check":
            fix_all(CheckContext(Workspace.load([MemoryRoot("explicit", self.root)]), today=TODAY))

    def attempt(self, args: tuple[str, ...], expected: Entry | None, may_refuse: bool,
                touched: set[str], *, refuse: str | None = None) -> bool:
        """Run a command and check the outcome the model expects; True when it acted."""
        before = snapshot(self.root)
        self.note_index_creator("memls")
        was_generated = self.generated()
        self.trace.append(" ".join(repr(a) for a in args))
        try:
            self.run(*args)
        except (KeyError, ValueError, OSError, RuntimeError) as exc:
            after = snapshot(self.root)
            assert after == before, f"{args} failed ({exc}) but changed {changed(before, after)}"
            assert refuse is not None or may_refuse, f"{args} refused ({exc}); expected it to act on " + (
                expected.filename if expected else "?")
            return False
        assert refuse is None, f"{args} acted; expected a refusal: {refuse}"
        after = snapshot(self.root)
        stray = changed(before, after) - touched - {INDEX}
        assert not stray, (f"{args} (meaning {expected.filename if expected else '-'}) changed {sorted(stray)}, "
                           f"expected only {sorted(touched)}")
        self.was_generated = was_generated  # for after_write
        return True

    def note_index_creator(self, who: str) -> None:
        """Remember who is about to create MEMORY.md (the mode rule is memls's, not gptme's)."""
        if not (self.root / INDEX).exists():
            self.index_creator = who

    def after_write(self, was_generated: bool, args: tuple[str, ...]) -> None:
        if was_generated and (self.root / INDEX).exists():
            assert self.store().check_index(), (
                f"{args}: MEMORY.md was memls's rendering before and is not after (memls reports drift "
                "on its own write)")

    # -- memls commands --------------------------------------------------------

    @rule(arg=st.sampled_from(NAMES), word=st.sampled_from(["one", "two"]))
    def save(self, arg: str, word: str) -> None:
        description = f"Saved {word} for {arg}"
        exact = [e for e in self.entries if e.name == arg] or [
            e for e in self.entries if e.name == slugify(arg)]
        refuse = None
        target = None
        may_refuse = False
        if len(exact) > 1:
            refuse = f"{arg!r} names {[e.filename for e in exact]}"
        elif exact:
            target = exact[0]
        else:
            holder = self.by_file(f"{slugify(arg)}.md")
            if holder is not None:
                refuse = f"{holder.filename} holds {holder.name!r}"
            else:
                may_refuse = any(slugify(e.name) == slugify(arg) for e in self.entries)
        filename = target.filename if target else f"{slugify(arg)}.md"
        index_existed = (self.root / INDEX).exists()
        if not self.attempt(("save", arg, description), target, may_refuse, {filename}, refuse=refuse):
            return
        if not index_existed:
            self.appended_index = not self.generated()
        if target is None:
            target = Entry(filename, slugify(arg))
            self.entries.append(target)
        # A save replaces the description and the body by request; unknown keys stay.
        target.snippets = [s for s in target.snippets if s.startswith("x-reviewer")]
        self.curated.pop(filename, None)  # the save rewrites its own index line
        self.after_write(self.was_generated, ("save", arg))

    @rule(old=st.sampled_from(NAMES), new=st.sampled_from(NAMES))
    def supersede(self, old: str, new: str) -> None:
        refuse = None
        o = n = None
        either = False
        try:
            o, e1 = resolve(self.entries, old)
            n, e2 = resolve(self.entries, new)
            either = e1 or e2
            if o is n:
                refuse = "an entry cannot supersede itself"
            elif n.status != "living":
                refuse = f"{n.filename} is not living"
            elif o.status != "living" and o.superseded_by != n.name:
                refuse = f"{o.filename} is not living"
        except Refuse as why:
            refuse = str(why)
        touched = {o.filename, n.filename} if o and n else set()
        if not self.attempt(("supersede", old, new), o, either, touched, refuse=refuse):
            return
        o.status, o.superseded_by = "superseded", n.name
        o.snippets = [s for s in o.snippets if not s.startswith("status:")]
        if o.name not in n.supersedes:
            n.supersedes.append(o.name)
        self.curated.pop(o.filename, None)
        self.curated.pop(n.filename, None)
        self.after_write(self.was_generated, ("supersede", old, new))

    @rule(old=st.sampled_from(NAMES), new=st.sampled_from(["omega", "Zeta Notes", "beta", "gamma-2"]))
    def rename(self, old: str, new: str) -> None:
        refuse = None
        target = None
        either = False
        new_file = f"{slugify(new)}.md"
        try:
            target, either = resolve(self.entries, old)
            holder = self.by_file(new_file)
            if holder is not None and holder is not target:
                refuse = f"{new_file} exists"
            elif any(e.name == slugify(new) and e is not target for e in self.entries):
                refuse = f"{slugify(new)!r} is taken"
        except Refuse as why:
            refuse = str(why)
        touched: set[str] = set()
        if target is not None:
            touched = {target.filename, new_file} | {
                e.filename for e in self.entries
                if target.name in e.supersedes or e.superseded_by == target.name}
        if not self.attempt(("rename", old, new), target, either, touched, refuse=refuse):
            return
        old_name, old_file = target.name, target.filename
        for e in self.entries:
            e.supersedes = [slugify(new) if x == old_name else x for x in e.supersedes]
            if e.superseded_by == old_name:
                e.superseded_by = slugify(new)
        target.name, target.filename = slugify(new), new_file
        line = self.curated.pop(old_file, None)
        if line is not None:
            text = line.replace(f"]({old_file})", f"]({new_file})")
            if text.startswith(f"- [{old_name}]("):
                text = f"- [{target.name}](" + text[len(f"- [{old_name}]("):]
            self.curated[new_file] = text
        self.after_write(self.was_generated, ("rename", old, new))

    @rule(arg=st.sampled_from(NAMES))
    def delete(self, arg: str) -> None:
        refuse = None
        target = None
        either = False
        try:
            target, either = resolve(self.entries, arg)
            dependants = [e for e in self.entries if e.superseded_by == target.name and e is not target]
            if dependants:
                refuse = f"{target.filename} is the successor of {[e.filename for e in dependants]}"
        except Refuse as why:
            refuse = str(why)
        touched = {target.filename} | {e.filename for e in self.entries if target.name in e.supersedes} \
            if target else set()
        if not self.attempt(("delete", arg), target, either, touched, refuse=refuse):
            return
        self.entries.remove(target)
        for e in self.entries:
            e.supersedes = [x for x in e.supersedes if x != target.name]
        self.curated.pop(target.filename, None)
        self.after_write(self.was_generated, ("delete", arg))

    @rule(arg=st.sampled_from(NAMES))
    def historical(self, arg: str) -> None:
        refuse = None
        target = None
        either = False
        try:
            target, either = resolve(self.entries, arg)
        except Refuse as why:
            refuse = str(why)
        touched = {target.filename} if target else set()
        if not self.attempt(("historical", arg), target, either, touched, refuse=refuse):
            return
        target.status = "historical"
        target.snippets = [s for s in target.snippets if not s.startswith("status:")]
        self.curated.pop(target.filename, None)
        self.after_write(self.was_generated, ("historical", arg))

    @rule()
    def check_fix(self) -> None:
        self.trace.append("check --fix")
        self.note_index_creator("memls")
        self.run("check", "--fix")
        # Safe fixes fold a | description into one line; everything the model holds must stay.
        second_before = snapshot(self.root)
        report = fix_all(CheckContext(Workspace.load([MemoryRoot("explicit", self.root)]), today=TODAY))
        assert not report.applied, (
            f"a second check --fix applied {[(p.code, f.title) for p, f in report.applied]}")
        assert snapshot(self.root) == second_before, "a second check --fix changed files"

    # -- a person's hand edits -------------------------------------------------

    def edit(self, e: Entry, text: str) -> None:
        path = self.root / e.filename
        path.write_text(text, encoding="utf-8")
        self.trace.append(f"hand edit {e.filename}")
        # A hand edit outside memls (a description changed in another editor) leaves a
        # generated index behind the rendering: by the definition it is curated from
        # then on, and `memls index --write` is how the user makes it generated again.
        if (self.root / INDEX).exists() and not self.generated():
            self.appended_index = True

    def frontmatter_lines(self, e: Entry) -> list[str]:
        return (self.root / e.filename).read_text(encoding="utf-8").split("\n")

    @precondition(lambda self: sum(not self.linked(e) for e in self.entries) >= 2)
    @rule(data=st.data())
    def cross_names(self, data) -> None:
        """``a.md`` now holds ``name: b`` and ``b.md`` holds ``name: a``."""
        free = [e for e in self.entries if not self.linked(e)]
        a, b = data.draw(st.permutations(free))[:2]
        for e, new in ((a, b.name), (b, a.name)):
            lines = self.frontmatter_lines(e)
            i = next(k for k, line in enumerate(lines) if line.startswith("name:"))
            lines[i] = f"name: {new}"
            self.edit(e, "\n".join(lines))
        a.name, b.name = b.name, a.name
        for e in (a, b):
            self.curated.pop(e.filename, None)

    @precondition(lambda self: len(self.entries) >= 2 and any(not self.linked(e) for e in self.entries))
    @rule(data=st.data())
    def share_a_slug(self, data) -> None:
        """Give an unlinked entry a name with another entry's slug (``API Keys`` beside ``api-keys``)."""
        a = data.draw(st.sampled_from([e for e in self.entries if not self.linked(e)]))
        b = data.draw(st.sampled_from([e for e in self.entries if e is not a]))
        new = twin(slugify(b.name))
        if any(e.name == new for e in self.entries):
            return
        lines = self.frontmatter_lines(a)
        i = next(k for k, line in enumerate(lines) if line.startswith("name:"))
        lines[i] = f"name: {new}"
        self.edit(a, "\n".join(lines))
        a.name = new
        self.curated.pop(a.filename, None)

    @precondition(lambda self: any(e.status == "living" for e in self.entries))
    @rule(data=st.data(), prose=st.booleans())
    def curate_index_line(self, data, prose: bool) -> None:
        """Replace an entry's MEMORY.md line with the person's own link text and hook."""
        e = data.draw(st.sampled_from([e for e in self.entries if e.status == "living"]))
        path = self.root / INDEX
        text = path.read_text(encoding="utf-8") if path.exists() else f"{HEADER}\n\n"
        line = f"- [Notes on {e.stem}]({e.filename}) — read when touching {e.stem}"
        lines = text.split("\n")
        hit = [k for k, x in enumerate(lines) if f"]({e.filename})" in x]
        if hit:
            lines[hit[0]] = line
        else:
            lines.insert(len(lines) - 1 if lines[-1] == "" else len(lines), line)
        if prose and not self.prose:
            paragraph = "Read the feedback entries first; the rest on demand."
            lines.insert(1, "")
            lines.insert(2, paragraph)
            self.prose.append(paragraph)
        self.note_index_creator("person")
        existed = path.exists()
        path.write_text("\n".join(lines), encoding="utf-8")
        if not existed:
            os.chmod(path, 0o644)
        self.curated[e.filename] = line
        self.trace.append(f"curate {e.filename}")

    @precondition(lambda self: bool(self.entries))
    @rule(data=st.data())
    def add_comments(self, data) -> None:
        """A comment line, an unknown key and an explicit ``status: living``."""
        e = data.draw(st.sampled_from(self.entries))
        lines = self.frontmatter_lines(e)
        if any(line.startswith("# owner") for line in lines):
            return
        close = lines.index("---", 1)
        added = [f"# owner: team {e.stem}", "x-reviewer: keep-me  # kept"]
        if e.status == "living" and not any(line.startswith("status:") for line in lines[:close]):
            added.append("status: living")
        lines[close:close] = added
        self.edit(e, "\n".join(lines))
        e.snippets += [s.split("  #")[0] for s in added]

    @precondition(lambda self: bool(self.entries))
    @rule(data=st.data())
    def make_description_multiline(self, data) -> None:
        e = data.draw(st.sampled_from(self.entries))
        lines = self.frontmatter_lines(e)
        i = next((k for k, line in enumerate(lines) if line.startswith("description:")), None)
        if i is None or lines[i].strip() == "description: |":
            return
        if not re.match(r"[A-Za-z_][\w-]*:|---$|#", lines[i + 1]):
            return  # the value already runs over several lines (gptme's quoted fold): a person
            # replacing only its first line would break the YAML, which is not this rule's point
        lines[i: i + 1] = ["description: |", "  First part of it", "  second part of it"]
        self.edit(e, "\n".join(lines))
        e.snippets.append("second part of it")

    # -- real gptme beside memls ----------------------------------------------

    def gptme_store(self):
        from gptme.memory import MemoryRoot as GRoot
        from gptme.memory import MemoryStore as GptmeStore

        return GptmeStore([GRoot("explicit", self.root)])

    @rule(arg=st.sampled_from(["alpha", "beta", "gamma", "epsilon"]))
    def gptme_saves(self, arg: str) -> None:
        """gptme saves a canonical name (one whose file, stem and name agree, or a new one)."""
        holder = self.by_file(f"{arg}.md")
        if holder is not None and holder.name != arg:
            return  # gptme would overwrite another entry: its bug, not under test here
        if any(e.name == arg for e in self.entries if e is not holder):
            return
        self.trace.append(f"gptme save {arg!r}")
        self.note_index_creator("gptme")
        self.gptme_store().save(arg, f"gptme wrote {arg}", "From gptme.\n")
        self.appended_index = not self.generated()
        if holder is None:
            self.entries.append(Entry(f"{arg}.md", arg))
        else:
            holder.snippets = []  # gptme rewrites the whole file
        self.curated.pop(f"{arg}.md", None)

    @precondition(lambda self: sum(e.status == "living" for e in self.entries) >= 2)
    @rule(data=st.data())
    def gptme_supersedes(self, data) -> None:
        canonical = [e for e in self.entries if e.status == "living" and e.name == e.stem
                     and sum(slugify(x.name) == e.stem or x.stem == e.name for x in self.entries) == 1]
        if len(canonical) < 2:
            return
        o, n = data.draw(st.permutations(canonical))[:2]
        self.trace.append(f"gptme supersede {o.name!r} {n.name!r}")
        try:
            self.gptme_store().supersede(o.name, n.name)
        except Exception as exc:  # noqa: BLE001 - gptme refusing is gptme's business
            self.trace.append(f"  gptme refused: {exc}")
            return
        o.status, o.superseded_by = "superseded", n.name
        if o.name not in n.supersedes:
            n.supersedes.append(o.name)
        o.snippets, n.snippets = [], []
        # gptme regenerates MEMORY.md: the curated text is gone by gptme's hand.
        self.curated.clear()
        self.prose.clear()
        # gptme's rendering equals memls's except where memls folds a multi-line description.
        self.appended_index = (self.root / INDEX).exists() and not self.generated()

    # -- invariants --------------------------------------------------------------

    @invariant()
    def disk_matches_the_model(self) -> None:
        files = sorted(p.name for p in self.root.glob("*.md") if p.name != INDEX)
        assert files == sorted(e.filename for e in self.entries), (files, self.trace)
        for e in self.entries:
            text = (self.root / e.filename).read_bytes().decode("utf-8")
            entry = parse_document(text, path=self.root / e.filename).entry
            assert entry is not None, f"{e.filename} no longer reads as an entry"
            got = (entry.name, entry.status, entry.superseded_by, list(entry.supersedes))
            want = (e.name, e.status, e.superseded_by, e.supersedes)
            assert got == want, f"{e.filename}: on disk {got}, model {want}\n{self.trace}"
            lost = [s for s in e.snippets if s not in text]
            assert not lost, f"{e.filename} lost {lost}\n{self.trace}"

    @invariant()
    def curated_index_text_survives(self) -> None:
        path = self.root / INDEX
        if not self.curated and not self.prose:
            return
        lines = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
        lost = [x for x in [*self.curated.values(), *self.prose] if x not in lines]
        assert not lost, f"MEMORY.md lost the person's lines {lost}\n{self.trace}"

    @invariant()
    def modes_are_kept_and_new_files_private(self) -> None:
        for e in self.entries:
            path = self.root / e.filename
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == e.mode, f"{e.filename} has mode {oct(mode)}, expected {oct(e.mode)}\n{self.trace}"
        path = self.root / INDEX
        if path.exists():
            mode = stat.S_IMODE(path.stat().st_mode)
            if self.index_mode is None:
                self.index_mode = mode
                if self.index_creator == "memls":
                    assert mode == 0o600, f"MEMORY.md created with mode {oct(mode)}\n{self.trace}"
            assert mode == self.index_mode, f"MEMORY.md mode changed to {oct(mode)}\n{self.trace}"

    @invariant()
    def check_and_index_check_agree(self) -> None:
        if not self.entries and not (self.root / INDEX).exists():
            return
        ws = Workspace.load([MemoryRoot("explicit", self.root)])
        found = {p.code for ps in check_workspace(CheckContext(ws, today=TODAY)).values() for p in ps}
        index_problems = sorted(found & INDEX_CODES)
        up_to_date = self.store().check_index()
        assert not (up_to_date and index_problems), (
            f"index --check: up to date; check: {index_problems}\n{self.trace}")
        if not self.curated and not self.prose and not self.appended_index:
            assert up_to_date or index_problems, (
                f"index --check: DRIFT; check: no index problem\n{self.trace}")


RootModel.TestCase.settings = settings(
    max_examples=scaled(30, 500), stateful_step_count=scaled(15, 50), deadline=None, phases=PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestStoreModel = RootModel.TestCase


class CliRootModel(RootModel):
    """The same rules with memls's commands run through the ``memls`` console script."""

    via_cli = True


# Without shrinking: each step runs a process, and shrinking a failing run through
# the console script takes minutes; the in-process machine shrinks the same rules.
CliRootModel.TestCase.settings = settings(
    max_examples=scaled(2, 40), stateful_step_count=scaled(6, 25), deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestCliModel = CliRootModel.TestCase
