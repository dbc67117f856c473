"""Language-server benchmarks through a real stdio client.

The client is a minimal asyncio JSON-RPC client written here (no editor, no
pytest-lsp), so every timestamp is taken the moment a message is written or
read. It declares what VS Code declares for the parts measured: push
diagnostics with versions, work-done progress, dynamically registered file
watching (so the server starts no polling watcher) and ``didSave`` with text.

Figures (seconds unless said otherwise):

* ``first_diagnostics_s``: ``didOpen`` of a document (with one problem: push
  mode publishes nothing for a clean document never published) sent right
  after the scan's progress ``begin`` -> the first ``publishDiagnostics`` for it;
* ``initial_scan_s``: ``initialized`` -> the progress ``end`` notification;
* ``initial_diagnostics_s``: ``initialized`` -> the last ``publishDiagnostics``
  of the flood that follows the scan (the publishes of every document with
  planted invalid YAML, which only the full check reports, then 1 s of
  silence, end it: the opened document's own check may publish ``MEMORY.md``
  first, and the full check of 50k entries is then silent for more than 1 s);
* ``keystroke_p50_s`` / ``keystroke_p95_s``: ``didChange`` -> the
  ``publishDiagnostics`` carrying that version. Push mode publishes only when
  a document's diagnostics change, so the edits alternate between the clean
  text and a defect (an emptied description, invalid YAML, an unknown status,
  a dangling ``supersedes``, and supersession links to a real chain that do
  not point back) -- every edit changes what is published;
* ``save_p50_s`` / ``save_max_s``: ``didSave`` (after writing the file, as an
  editor does) -> ``MEMORY.md`` on disk holds the new description;
* ``cold_start_s`` / ``restart_recache_s`` / ``warm_restart_s``: process spawn
  -> scan ``end``, for the first start and two restarts after
  ``shutdown``/``exit`` (the parse cache skips files changed in the last two
  seconds, so the first restart re-parses the just-copied files; the second
  restarts warm from the cache);
* ``warm_restart_initialize_s`` / ``warm_restart_scan_s``: the warm restart
  split at ``initialize``: interpreter, imports and handshake, then memls's
  own scan;
* ``floor_pygls_initialize_s``: spawn -> ``initialize`` result of an empty
  pygls 2 server (Python start-up and the pygls/lsprotocol imports): what any
  restart of a pygls server costs before it does anything;
* ``peak_rss_mb``: ``VmHWM`` of the server process from ``/proc``;
* ``initial_scan_cpu_s`` / ``initial_diagnostics_cpu_s``: the CPU time
  (user + system, from ``/proc``) the server process spent over the same
  spans as ``initial_scan_s`` and ``initial_diagnostics_s``. The wall figures
  include waiting for a core: on a machine whose cores other work shares,
  the two sizes are measured minutes apart under different loads (compare
  ``floor_pygls_initialize_s``, the same work at both sizes), and only the
  CPU figures say how the server's own work grows;
* ``initial_scan_user_cpu_s`` / ``initial_scan_system_cpu_s`` /
  ``initial_scan_page_faults``: the scan's CPU split into user and kernel
  time, and its minor page faults. Most of the kernel's share is faulting
  in the memory the model is built in, whose cost per fault depends on the
  machine: on this benchmark's VM, memory the guest has not touched lately
  costs several times more to fault in than memory it has, so a run that
  builds 500 MB (50k entries) pays more per fault than one that builds
  100 MB (10k), and the kernel time grows faster than the user time.

Then a second server on the same corpus without planted defects, whose
``MEMORY.md`` is exactly the generated index (the usual root):

* ``field_<field>_p95_s`` (``generated``), ``curated_field_<field>_p95_s``
  (the generated index with a hand-written line added) and
  ``trimmed_field_<field>_p95_s`` (a curated index trimmed to its first
  ``TRIMMED_LINES`` lines, as a person fitting Claude Code's 200-line limit
  keeps it: every other living entry lacks a line, a problem each): typing into one
  field -- ``name``, ``description``, ``status``, ``supersedes``,
  ``superseded_by``, ``metadata.type``, ``keywords`` -- or the body, one
  character more (or less) per keystroke, ``didChange`` -> the
  ``publishDiagnostics`` of that version. Push mode publishes only changed
  diagnostics, so every keystroke also flips ``confidence`` between a valid
  and an out-of-range value (one character), which changes the probe's own
  diagnostics whatever the field did; ``keystroke_worst_field_p95_s`` is the
  worst field of the three indexes (``keystroke_worst_field`` names it);
* ``burst_s``: 100 ``didChange`` sent back to back -> the
  ``publishDiagnostics`` of the last version;
* ``hover_while_typing_p95_s``: a ``hover`` sent right after each keystroke
  -> its answer;
* ``warm_first_diagnostics_s``: a warm restart (parse cache filled), spawn ->
  the first diagnostics of a document opened right after ``initialized`` as it
  is saved (a restored session); ``warm_own_share_s`` is that restart's spawn ->
  scan end less the spawn -> ``initialize`` of an empty pygls server started
  right before it (what memls itself adds). Each is the median of
  ``RESTART_RUNS`` such pairs: single restarts on 2 shared cores spread by
  hundreds of milliseconds. ``warm_unsaved_*``: the same with the document
  reopened with unsaved changes, whose problems involving other memories are
  checked before the scan ends: the worst of three edits (in the body, in the
  description, a status retired), each also under ``warm_unsaved_<field>_*``;
  ``warm_unsaved_field`` names the edit whose own share is the worst.
  ``warm_trimmed_own_share_s``: the saved restart's own share once the index
  is the trimmed one.

Usage::

    python benchmarks/bench_server.py --entries 10000 [--edits 200] [--saves 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
from common import (  # noqa: E402
    PROJECT_PYTHON,
    REPO,
    RESULTS,
    WORK,
    clean_env,
    fmt_seconds,
    machine,
    percentile,
    table,
    write_json,
)

QUIET_SECONDS = 1.0
RESTART_RUNS = 5
"""How many times each warm restart of the fields' root is measured (the median is reported)."""
# The lines a trimmed curated MEMORY.md keeps (Claude Code loads the first 200).
TRIMMED_LINES = 200
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CPU_SAMPLE_SECONDS = 0.002
TIMEOUT = 600.0


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


class Client:
    """Just enough of an LSP client: requests, notifications, server requests answered."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.pending: dict[int, asyncio.Future] = {}
        self.diagnostics: list[tuple[float, str, int | None, int]] = []  # (t, uri, version, count)
        self.waiters: list[tuple[Any, asyncio.Future]] = []
        self.progress_begin: float | None = None
        self.progress_end: float | None = None
        self.initialized_at: float | None = None
        # The server's CPU seconds at the scan's end and at the latest publish (``cpu_seconds``).
        self.cpu_at_end: float | None = None
        self.times_at_end: tuple[float, float, int] | None = None
        self.cpu_at_publish: float | None = None
        self._cpu_sampled = 0.0
        self.last_message = time.perf_counter()
        self.reader = asyncio.ensure_future(self._read_loop())

    # -- wire ---------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self._send({"id": self.next_id, "method": method, "params": params})
        await self.proc.stdin.drain()  # type: ignore[union-attr]
        return await asyncio.wait_for(future, TIMEOUT)

    def notify(self, method: str, params: Any) -> float:
        self._send({"method": method, "params": params})
        return time.perf_counter()

    async def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            length = None
            while True:
                line = await stdout.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length is None:
                continue
            message = json.loads(await stdout.readexactly(length))
            now = time.perf_counter()
            self.last_message = now
            self._dispatch(message, now)

    def _dispatch(self, message: dict[str, Any], now: float) -> None:
        method = message.get("method")
        if method is None:  # a response
            future = self.pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                if "error" in message:
                    future.set_exception(RuntimeError(str(message["error"])))
                else:
                    future.set_result(message.get("result"))
            return
        params = message.get("params") or {}
        if "id" in message:  # a request from the server
            result: Any = None
            if method == "workspace/applyEdit":
                result = {"applied": True}
            elif method == "workspace/configuration":
                result = [None for _ in params.get("items", [])]
            self._send({"id": message["id"], "result": result})
            return
        if method == "textDocument/publishDiagnostics":
            record = (now, params["uri"], params.get("version"), len(params.get("diagnostics", [])))
            if now - self._cpu_sampled >= CPU_SAMPLE_SECONDS:  # a flood is sampled, not read per message
                self.cpu_at_publish = cpu_seconds(self.proc.pid)
                self._cpu_sampled = now
            self.diagnostics.append(record)
            for predicate, future in list(self.waiters):
                if not future.done() and predicate(record):
                    future.set_result(record)
        elif method == "$/progress":
            kind = (params.get("value") or {}).get("kind")
            if kind == "begin" and self.progress_begin is None:
                self.progress_begin = now
                self._wake("begin")
            elif kind == "end" and self.progress_end is None:
                self.progress_end = now
                self.times_at_end = process_times(self.proc.pid)
                self.cpu_at_end = None if self.times_at_end is None else sum(self.times_at_end[:2])
                self._wake("end")

    def _wake(self, event: str) -> None:
        for predicate, future in list(self.waiters):
            if not future.done() and predicate(event):
                future.set_result(time.perf_counter())

    async def wait_for(self, predicate: Any, timeout: float = TIMEOUT) -> Any:
        future = asyncio.get_running_loop().create_future()
        self.waiters.append((predicate, future))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self.waiters.remove((predicate, future))

    async def wait_progress(self, kind: str) -> float:
        stamp = self.progress_begin if kind == "begin" else self.progress_end
        if stamp is not None:
            return stamp
        await self.wait_for(lambda event: event == kind)
        return self.progress_begin if kind == "begin" else self.progress_end  # type: ignore[return-value]

    async def quiet(self, seconds: float = QUIET_SECONDS, limit: float = TIMEOUT) -> None:
        deadline = time.perf_counter() + limit
        while time.perf_counter() < deadline:
            idle = time.perf_counter() - self.last_message
            if idle >= seconds:
                return
            await asyncio.sleep(seconds - idle)

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.request("shutdown", None), 30)
            self.notify("exit", None)
            await self.proc.stdin.drain()  # type: ignore[union-attr]
            await asyncio.wait_for(self.proc.wait(), 30)
        except (asyncio.TimeoutError, RuntimeError, ConnectionError):
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()


CAPABILITIES = {
    "textDocument": {
        "synchronization": {"didSave": True, "willSave": False, "dynamicRegistration": False},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True,
                               "tagSupport": {"valueSet": [1, 2]}},
    },
    "workspace": {
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "applyEdit": True,
        "workspaceEdit": {"documentChanges": True},
        "configuration": False,
        "workspaceFolders": True,
    },
    "window": {"workDoneProgress": True},
    "general": {"positionEncodings": ["utf-16"]},
}


# The least any pygls 2 server costs: an empty one, spawned and initialized.
BARE_PYGLS_SERVER = (
    "from pygls.lsp.server import LanguageServer; LanguageServer('floor', '0').start_io()"
)


async def start(folder: Path, home: Path, log, *, command: tuple[str, ...] = ("-m", "memls.lsp"),
                ) -> tuple[Client, float]:
    """Spawn a server and send ``initialize``; returns the client and the spawn time.

    ``client.initialized_at`` is when the ``initialize`` result arrived.
    """
    env = clean_env(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                    MEMLS_MEMORY_DIRS="", GPTME_MEMORY_DIRS="")
    # Bytecode is written and used, as by any installed server (and by the empty
    # pygls server, whose packages were compiled at install): a test runner's
    # PYTHONDONTWRITEBYTECODE would make every start compile every memls module.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    spawned = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        str(PROJECT_PYTHON), *command, cwd=str(REPO),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log,
        env=env, limit=1 << 24,
    )
    client = Client(proc)
    await client.request("initialize", {
        "processId": os.getpid(),
        "rootUri": uri_of(folder),
        "workspaceFolders": [{"uri": uri_of(folder), "name": folder.name}],
        "capabilities": CAPABILITIES,
        "initializationOptions": {"settings": {}},
    })
    client.initialized_at = time.perf_counter()
    return client, spawned


async def bare_pygls_start(folder: Path, home: Path, log, runs: int = 3) -> float:
    """Median spawn -> ``initialize`` result of an empty pygls server (the floor)."""
    samples = []
    for _ in range(runs):
        client, spawned = await start(folder, home, log, command=("-c", BARE_PYGLS_SERVER))
        samples.append(client.initialized_at - spawned)
        await client.stop()
    return percentile(samples, 50)


def process_times(pid: int) -> tuple[float, float, int] | None:
    """User and system CPU seconds of process ``pid`` so far, and its minor page faults (``/proc``); None: gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS, int(fields[7])


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` so far (``/proc``), or None."""
    times = process_times(pid)
    return None if times is None else times[0] + times[1]


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def edit_variants(base: str, probe: str, chain: list[str]) -> list[str]:
    """Texts that each differ from ``base`` in what the checks report."""
    close = base.index("\n---\n")
    head, tail = base[:close], base[close:]
    variants = [
        head.replace("description: ", "description: [unclosed, ", 1) + tail,
        head + "\nstatus: archived" + tail,
        head + "\nsupersedes:\n- ghost-entry-of-the-benchmark" + tail,
    ]
    if chain:
        variants.append(head + f"\nsupersedes:\n- {chain[0]}" + tail)
        variants.append(head + f"\nstatus: superseded\nsuperseded_by: {chain[-1]}" + tail)
    lines = head.split("\n")
    variants.append("\n".join(line if not line.startswith("description:") else 'description: ""'
                              for line in lines) + tail)
    return variants


def fresh_root(args: argparse.Namespace, corpus_name: str, prefix: str,
               defects: float) -> tuple[dict[str, Any], Path, Path, Path]:
    """A fresh copy of a generated corpus as ``<prefix>-N/memory``, and an empty home for the server."""
    n = args.entries
    source = args.work / "corpus" / corpus_name
    manifest = corpus.ensure(source, n, args.seed, defects=defects)
    folder = args.work / f"{prefix}-{n}"
    root = folder / "memory"
    home = args.work / f"{prefix}-home-{n}"
    for d in (folder, home):
        if d.exists():
            shutil.rmtree(d)
    home.mkdir(parents=True)
    shutil.copytree(source, root)
    return manifest, folder, root, home


async def run(args: argparse.Namespace) -> dict[str, Any]:
    n = args.entries
    manifest, folder, root, home = fresh_root(args, f"legacy-{n}-s{args.seed}", "server", args.defects)
    probe = root / f"{manifest['probe_name']}.md"
    probe_uri = uri_of(probe)
    index = root / "MEMORY.md"
    base = probe.read_text(encoding="utf-8")
    out: dict[str, Any] = {"entries": n}

    with open(args.work / f"server-{n}.log", "wb") as log:
        client, spawned = await start(folder, home, log)
        times_initialized = process_times(client.proc.pid)
        cpu_initialized = None if times_initialized is None else sum(times_initialized[:2])
        initialized = client.notify("initialized", {})
        await client.proc.stdin.drain()  # type: ignore[union-attr]
        await asyncio.wait_for(client.wait_progress("begin"), TIMEOUT)
        # Push mode never publishes an empty list for a document never published,
        # so the document is opened with a problem (an emptied description).
        variants = edit_variants(base, manifest["probe_name"], manifest.get("chain_names", []))
        opened = client.notify("textDocument/didOpen", {"textDocument": {
            "uri": probe_uri, "languageId": "markdown", "version": 1, "text": variants[-1]}})
        first = await client.wait_for(lambda r: isinstance(r, tuple) and r[1] == probe_uri)
        out["first_diagnostics_s"] = first[0] - opened
        end = await client.wait_progress("end")
        out["first_diagnostics_before_scan_end"] = first[0] < end
        out["initial_scan_s"] = end - initialized
        out["cold_start_s"] = end - spawned
        # The scan's end follows the full check's problems (published before it);
        # wait until the documents only the full check reports were published
        # (a start that ended otherwise still gets them), then for the flood to end.
        unseen = {uri_of(root / name) for name in manifest.get("defects", {}).get("invalid-yaml", [])}
        unseen -= {r[1] for r in client.diagnostics if isinstance(r, tuple)}

        def flood_reached(record: Any) -> bool:
            if isinstance(record, tuple):
                unseen.discard(record[1])
            return not unseen

        if unseen:
            await client.wait_for(flood_reached)
        await client.quiet()
        out["initial_diagnostics_s"] = max(r[0] for r in client.diagnostics) - initialized
        out["initial_publishes"] = len(client.diagnostics)
        if cpu_initialized is not None and client.cpu_at_end is not None and client.cpu_at_publish is not None:
            out["initial_scan_cpu_s"] = client.cpu_at_end - cpu_initialized
            out["initial_diagnostics_cpu_s"] = client.cpu_at_publish - cpu_initialized
        if times_initialized is not None and client.times_at_end is not None:
            user, system, faults = (end - start for end, start in zip(client.times_at_end, times_initialized))
            out["initial_scan_user_cpu_s"], out["initial_scan_system_cpu_s"] = user, system
            out["initial_scan_page_faults"] = faults

        # Keystrokes: alternate the clean text and one defect, waiting for each publish.
        latencies, link_latencies = [], []
        version = 1
        for i in range(args.edits):
            version += 1
            kind = (i // 2) % len(variants)
            text = base if i % 2 else variants[kind]
            v = version
            waiter = asyncio.ensure_future(client.wait_for(
                lambda r, v=v: isinstance(r, tuple) and r[1] == probe_uri and r[2] == v, 30))
            await asyncio.sleep(0)
            sent = client.notify("textDocument/didChange", {
                "textDocument": {"uri": probe_uri, "version": v},
                "contentChanges": [{"text": text}]})
            record = await waiter
            latencies.append(record[0] - sent)
            if "supersede" in text[: text.index("\n---\n")] and i % 2 == 0:
                link_latencies.append(record[0] - sent)
        out["keystroke_edits"] = len(latencies)
        out["keystroke_p50_s"] = percentile(latencies, 50)
        out["keystroke_p95_s"] = percentile(latencies, 95)
        out["keystroke_max_s"] = max(latencies)
        if link_latencies:
            out["keystroke_link_p95_s"] = percentile(link_latencies, 95)
        await client.quiet(0.3)

        # Saves: the editor writes the file, then sends didSave; MEMORY.md must follow.
        saves = []
        for k in range(args.saves):
            description = f"Benchmark save {k}: the deploy script needs a restart"
            text = "\n".join(f'description: "{description}"' if line.startswith("description:")
                             else line for line in base.split("\n"))
            version += 1
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": probe_uri, "version": version},
                "contentChanges": [{"text": text}]})
            probe.write_text(text, encoding="utf-8")
            sent = client.notify("textDocument/didSave", {
                "textDocument": {"uri": probe_uri}, "text": text})
            await client.proc.stdin.drain()  # type: ignore[union-attr]
            deadline = sent + 30
            # Read only when the file's stamp moved: at 50k entries MEMORY.md is
            # 5.5 MB, and reading it every 2 ms kept most of a core busy in this
            # process while the server worked on the other (at 10k a third).
            # The server replaces the file (a new inode), so no write goes unseen.
            read_at = None
            while True:
                try:
                    st = os.stat(index)
                    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
                    if stamp != read_at:
                        read_at = stamp
                        if description in index.read_text(encoding="utf-8"):
                            saves.append(time.perf_counter() - sent)
                            break
                except (OSError, UnicodeDecodeError):
                    read_at = None
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"MEMORY.md never showed save {k}")
                await asyncio.sleep(0.002)
        if saves:
            out["save_p50_s"] = percentile(saves, 50)
            out["save_max_s"] = max(saves)
            out["saves"] = len(saves)
        out["peak_rss_mb"] = peak_rss_mb(client.proc.pid)
        await client.stop()

        # Restarts. The parse cache skips files changed in the last two seconds
        # (they may change again unseen), and the corpus was copied just before
        # the first start, so the first restart parses most files again and
        # caches them; the second is the warm restart an editor sees.
        for key in ("restart_recache_s", "warm_restart_s"):
            client, spawned = await start(folder, home, log)
            initialized = client.notify("initialized", {})
            end = await asyncio.wait_for(client.wait_progress("end"), TIMEOUT)
            out[key] = end - spawned
            out[key.replace("_s", "_scan_s")] = end - initialized
            out[key.replace("_s", "_initialize_s")] = client.initialized_at - spawned
            await client.quiet()
            out["peak_rss_after_restart_mb"] = peak_rss_mb(client.proc.pid)
            await client.stop()
        out["floor_pygls_initialize_s"] = await bare_pygls_start(folder, home, log)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    out.update(await run_fields(args))
    # Reopened unsaved: the worst of the fields edited.
    fields = ("body", "description", "status")
    for figure in ("first_diagnostics_s", "restart_s", "own_share_s"):
        out[f"warm_unsaved_{figure}"] = max(out[f"warm_unsaved_{field}_{figure}"] for field in fields)
    out["warm_unsaved_field"] = max(fields, key=lambda field: out[f"warm_unsaved_{field}_own_share_s"])
    return out


FIELDS = ("name", "description", "status", "supersedes", "superseded_by", "metadata.type",
          "keywords", "body")
BURST = 100


def typed(base: str, field: str, k: int, chain: list[str]) -> str:
    """``base`` with ``k`` keystrokes typed into ``field`` (a prefix of a word, one more char each)."""
    close = base.index("\n---\n")
    head, tail = base[:close], base[close:]
    lines = head.split("\n")

    def prefix(word: str) -> str:
        return word[: 1 + k % len(word)]

    if field == "name":
        lines = [f"{line}{prefix('-renamed')}" if line.startswith("name:") else line for line in lines]
    elif field == "description":
        lines = [f'{line[:-1]}{prefix(" while the cache warms")}"' if line.startswith("description:")
                 else line for line in lines]
    elif field == "status":
        lines.append(f"status: {prefix('historical')}")
    elif field == "supersedes":
        lines += ["supersedes:", f"- {prefix(chain[0] if chain else 'ghost-entry')}"]
    elif field == "superseded_by":
        lines.append(f"superseded_by: {prefix(chain[-1] if chain else 'ghost-entry')}")
    elif field == "metadata.type":
        lines = [f"  type: {prefix('reference')}" if line.startswith("  type:") else line for line in lines]
    elif field == "keywords":
        lines = [f"- {prefix('benchmarking')}" if line == "- benchmark" else line for line in lines]
    text = "\n".join(lines) + tail
    if field == "body":
        text += prefix(" and the cache is warm")
    return text


def flipped(text: str, version: int) -> str:
    """``text`` with ``confidence`` out of range on odd versions."""
    return text.replace("confidence: 0.", "confidence: 7.", 1) if version % 2 else text


async def _keystrokes(client: Client, uri: str, texts: list[str], version: int,
                      hover_at: dict | None = None) -> tuple[list[float], list[float], int]:
    """Send each text as one ``didChange`` and wait for its publish; returns latencies, hover times, version.

    Every keystroke also flips ``confidence`` between a valid and an
    out-of-range value (one character), so push mode has a change to publish
    whatever the field's edit did to the diagnostics.
    """
    latencies, hovers = [], []
    for text in texts:
        version += 1
        text = flipped(text, version)
        v = version
        waiter = asyncio.ensure_future(client.wait_for(
            lambda r, v=v: isinstance(r, tuple) and r[1] == uri and r[2] == v, 30))
        await asyncio.sleep(0)
        sent = client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": text}]})
        if hover_at is not None:
            asked = time.perf_counter()
            await client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": hover_at})
            hovers.append(time.perf_counter() - asked)
        record = await waiter
        latencies.append(record[0] - sent)
    return latencies, hovers, version


async def run_fields(args: argparse.Namespace) -> dict[str, Any]:
    """Per-field keystrokes, a burst, hover while typing, and a warm start: generated and curated index."""
    n = args.entries
    manifest, folder, root, home = fresh_root(args, f"legacy-{n}-s{args.seed}-clean", "server-fields", 0.0)
    probe = root / f"{manifest['probe_name']}.md"
    uri = uri_of(probe)
    index = root / "MEMORY.md"
    chain = manifest.get("chain_names", [])
    base = probe.read_text(encoding="utf-8")
    if "confidence: 0." not in base:  # the keystrokes flip it (see ``typed``)
        base = base.replace("\n---\n", "\nconfidence: 0.5\n---\n", 1)
    out: dict[str, Any] = {}
    per_key = max(5, args.edits // 5)

    with open(args.work / f"server-fields-{n}.log", "wb") as log:
        client, _ = await start(folder, home, log)
        client.notify("initialized", {})
        await asyncio.wait_for(client.wait_progress("end"), TIMEOUT)
        await client.quiet()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 1, "text": flipped(typed(base, "body", 0, chain), 1)}})
        await client.wait_for(lambda r: isinstance(r, tuple) and r[1] == uri)
        version = 1
        worst: tuple[float, str] = (-1.0, "")
        generated = index.read_text(encoding="utf-8")
        curated = generated + "Read the runbooks before deploying.\n"  # a person added a line
        for label, prefix in (("generated", "field_"), ("curated", "curated_field_"),
                              ("trimmed", "trimmed_field_")):
            if label != "generated":
                index.write_text(curated if label == "curated" else trimmed(generated, probe.name), encoding="utf-8")
                client.notify("workspace/didChangeWatchedFiles",
                              {"changes": [{"uri": uri_of(index), "type": 2}]})
                await client.quiet(0.5)
            for field in FIELDS:
                texts = [typed(base, field, k, chain) for k in range(per_key)] + [base]
                latencies, _, version = await _keystrokes(client, uri, texts, version)
                p95 = percentile(latencies, 95)
                out[f"{prefix}{field}_p95_s"] = p95
                worst = max(worst, (p95, f"{field} ({label})"))
        out["keystroke_worst_field_p95_s"], out["keystroke_worst_field"] = worst
        # The burst and the hovers below are timed with the curated index (one line added), as before.
        index.write_text(curated, encoding="utf-8")
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(index), "type": 2}]})
        await client.quiet(0.5)

        # A burst: every keystroke of a description sent at once; only the last one counts.
        # The last one adds a problem no earlier text had, so it is published whatever was skipped.
        texts = [typed(base, "description", k, chain) for k in range(BURST)]
        texts[-1] = texts[-1].replace("\n---\n", "\nstatus: end-of-burst\n---\n", 1)
        final = version + BURST
        waiter = asyncio.ensure_future(client.wait_for(
            lambda r: isinstance(r, tuple) and r[1] == uri and r[2] == final, 60))
        await asyncio.sleep(0)
        sent = time.perf_counter()
        for text in texts:
            version += 1
            text = flipped(text, version)
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
        await client.proc.stdin.drain()  # type: ignore[union-attr]
        record = await waiter
        out["burst_s"] = record[0] - sent
        out["burst_publishes"] = sum(1 for r in client.diagnostics if r[1] == uri and r[0] >= sent)
        await client.quiet(0.3)

        # Hover while typing: the answer must not wait behind the checks of the keystrokes.
        line = next(i for i, text in enumerate(base.split("\n")) if text.startswith("name:"))
        texts = [typed(base, "description", k, chain) for k in range(per_key)]
        _, hovers, version = await _keystrokes(client, uri, texts, version,
                                               hover_at={"line": line, "character": 8})
        out["hover_while_typing_p95_s"] = percentile(hovers, 95)
        out["fields_peak_rss_mb"] = peak_rss_mb(client.proc.pid)
        await client.stop()

        # Warm start: the first run filled the parse cache (files older than 2 s);
        # one more start caches what was too fresh, the next two are measured: the
        # editor reopening the document as saved (a restored session), then with
        # unsaved changes (hot exit), whose problems involving other memories must
        # be checked before the scan ends.
        # The probe is saved with a problem of its own, so its first diagnostics are published.
        saved = flipped(typed(base, "body", 0, chain), 1)
        probe.write_text(saved, encoding="utf-8")
        # Unsaved in the body, in the field users type into (its MEMORY.md line moves), and a status
        # retired (its line now lists a non-living entry: the index is judged again).
        unsaved = {field: typed(saved, field, k, chain)
                   for field, k in (("body", 1), ("description", 3), ("status", len("historical") - 1))}
        await asyncio.sleep(2.1)
        restarts = [("", saved), ("warm_fields_", saved)]
        restarts += [(f"warm_unsaved_{field}_", text) for field, text in unsaved.items()]
        restarts += [("trimmed", saved), ("warm_trimmed_", saved)]  # the first keeps its check for the next
        for prefix, text in restarts:
            if prefix == "trimmed":
                index.write_text(trimmed(generated, probe.name), encoding="utf-8")
                await asyncio.sleep(2.1)
            # Each measured restart is taken RESTART_RUNS times, each right after an empty pygls
            # server's start: the own share is the median of those pairs' differences, so a
            # core taken by other work for a moment weighs on both halves of a pair, or on one sample.
            samples = []
            for _ in range(RESTART_RUNS if prefix.startswith("warm") else 1):
                floor = await bare_pygls_start(folder, home, log, runs=1)
                client, spawned = await start(folder, home, log)
                client.notify("initialized", {})
                opened = client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri, "languageId": "markdown", "version": 1, "text": text}})
                first = await client.wait_for(lambda r: isinstance(r, tuple) and r[1] == uri)
                end = await asyncio.wait_for(client.wait_progress("end"), TIMEOUT)
                samples.append((first[0] - spawned, first[0] - opened, end - spawned, end - spawned - floor))
                await client.quiet()
                await client.stop()
            first_s, after_open_s, restart_s, own_share_s = (percentile(list(column), 50) for column in zip(*samples))
            if prefix == "warm_fields_":
                out["warm_first_diagnostics_s"] = first_s
                out["warm_first_diagnostics_after_open_s"] = after_open_s
                out["warm_fields_restart_s"] = restart_s
                out["warm_own_share_s"] = own_share_s
            elif prefix == "warm_trimmed_":
                out["warm_trimmed_own_share_s"] = own_share_s
            elif prefix.startswith("warm"):
                out[f"{prefix}first_diagnostics_s"] = first_s
                out[f"{prefix}restart_s"] = restart_s
                out[f"{prefix}own_share_s"] = own_share_s
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    return out


def trimmed(generated: str, keep: str) -> str:
    """A curated ``MEMORY.md`` a person trimmed to ``TRIMMED_LINES`` lines, keeping the line of file ``keep``."""
    lines = generated.split("\n")
    head = [line for line in lines[:TRIMMED_LINES - 2] if f"({keep})" not in line]
    kept = [line for line in lines if f"({keep})" in line]
    return "\n".join(["# What I keep in view", ""] + head + kept) + "\n"


LABELS = {
    "first_diagnostics_s": "first diagnostics, document opened during the scan",
    "initial_scan_s": "initial scan (initialized -> progress end)",
    "initial_diagnostics_s": "initial diagnostics published (initialized -> last)",
    "initial_scan_user_cpu_s": "  initial scan: server CPU in user mode",
    "initial_scan_system_cpu_s": "  initial scan: server CPU in the kernel",
    "initial_scan_page_faults": "  initial scan: server's minor page faults",
    "keystroke_p50_s": "keystroke -> publishDiagnostics p50",
    "keystroke_p95_s": "keystroke -> publishDiagnostics p95",
    "keystroke_link_p95_s": "  supersession-link edits p95",
    "save_p50_s": "save -> MEMORY.md written p50",
    "save_max_s": "save -> MEMORY.md written max",
    "cold_start_s": "first start (spawn -> scan end)",
    "restart_recache_s": "restart (spawn -> scan end), files just copied: re-parsed",
    "warm_restart_s": "warm restart from the parse cache (spawn -> scan end)",
    "warm_restart_initialize_s": "  of which: spawn -> initialize result",
    "warm_restart_scan_s": "  of which: initialized -> scan end",
    "floor_pygls_initialize_s": "floor: empty pygls 2 server, spawn -> initialize result",
    "peak_rss_mb": "peak RSS (VmHWM)",
    **{f"field_{f}_p95_s": f"keystroke p95, generated MEMORY.md: {f}" for f in FIELDS},
    **{f"curated_field_{f}_p95_s": f"keystroke p95, curated MEMORY.md: {f}" for f in FIELDS},
    **{f"trimmed_field_{f}_p95_s": f"keystroke p95, curated MEMORY.md trimmed to 200 lines: {f}" for f in FIELDS},
    "warm_trimmed_own_share_s": "warm restart, MEMORY.md trimmed to 200 lines: memls's own share",
    "keystroke_worst_field_p95_s": "keystroke p95, worst field (named below)",
    "burst_s": f"burst of {BURST} didChange -> last version's diagnostics",
    "hover_while_typing_p95_s": "hover while typing p95",
    "warm_first_diagnostics_s": "warm restart: spawn -> first diagnostics of an opened document",
    "warm_unsaved_first_diagnostics_s": "warm restart, document reopened unsaved: spawn -> its first diagnostics",
    "warm_unsaved_restart_s": "warm restart, document reopened unsaved: spawn -> scan end",
    "warm_unsaved_own_share_s": "warm restart, document reopened unsaved: memls's own share",
    "warm_unsaved_body_own_share_s": "  the same, unsaved in the body",
    "warm_unsaved_description_own_share_s": "  the same, unsaved in the description",
    "warm_unsaved_status_own_share_s": "  the same, a status retired unsaved",
    "warm_own_share_s": "warm restart: memls's own share (spawn -> scan end - empty pygls)",
}


def render_table(results: list[dict[str, Any]]) -> str:
    headers = ["figure", *(f"{r['entries']} entries" for r in results)]
    rows = []
    for key, label in LABELS.items():
        cells = []
        for r in results:
            value = r.get(key)
            if value is None:
                cells.append("-")
            elif key.endswith("_mb"):
                cells.append(f"{value:.0f} MB")
            elif key.endswith("_faults"):
                cells.append(f"{value:,}")
            elif key == "keystroke_worst_field_p95_s":
                cells.append(f"{fmt_seconds(value)} ({r.get('keystroke_worst_field')})")
            else:
                cells.append(fmt_seconds(value))
        rows.append([label, *cells])
    return table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", default="10000", help="comma-separated corpus sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--defects", type=float, default=0.02)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    results = []
    for n in [int(s) for s in args.entries.split(",") if s.strip()]:
        print(f"[server {n}] ...", file=sys.stderr, flush=True)
        results.append(asyncio.run(run(argparse.Namespace(**{**vars(args), "entries": n}))))
    text = render_table(results)
    print(text)
    write_json(args.results / "server.json", {
        "machine": machine(),
        "command": "python benchmarks/bench_server.py " + " ".join(argv or sys.argv[1:]),
        "results": results, "table": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
