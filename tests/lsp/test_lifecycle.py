"""Lifecycle: a clean shutdown/exit, and no orphan server when the editor dies.

These speak JSON-RPC over raw pipes: the point is the server process itself
(its exit code, whether it outlives its parent), which the pytest-lsp client
hides.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memls.lsp.convert import path_to_uri

SERVER = [sys.executable, "-m", "memls.lsp"]
ENV = {**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": ""}


def frame(msg_id: int | None, method: str, params: object) -> bytes:
    message: dict = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        message["id"] = msg_id
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def initialize(process_id: int, folder: Path) -> bytes:
    return frame(1, "initialize", {
        "processId": process_id, "rootUri": path_to_uri(folder), "capabilities": {},
        "workspaceFolders": [{"uri": path_to_uri(folder), "name": "w"}],
    }) + frame(None, "initialized", {})


def wait_for(condition, what: str, limit: float = 20.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.05)


def is_gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2:][:1] == b"Z"  # a zombie nobody reaped has exited


def test_shutdown_then_exit_ends_the_server_with_code_zero(tmp_path):
    (tmp_path / "memory").mkdir()
    server = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=ENV)
    out, _ = server.communicate(
        initialize(os.getpid(), tmp_path) + frame(2, "shutdown", None) + frame(None, "exit", None),
        timeout=60)
    assert server.returncode == 0
    assert b'"id": 2' in out or b'"id":2' in out


def test_server_exits_when_the_editor_process_dies(tmp_path):
    (tmp_path / "memory").mkdir()
    out_path = tmp_path / "server.out"
    read_end, write_end = os.pipe()
    # The "editor": starts the server on a pipe this test also holds (so stdin
    # never closes), prints the server's pid, and waits to be killed.
    editor = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        f"server = subprocess.Popen({SERVER!r}, stdin={read_end}, stdout=open({str(out_path)!r}, 'wb'),"
        " stderr=subprocess.DEVNULL)\n"
        "print(server.pid, flush=True)\n"
        "time.sleep(600)\n"
    )], stdout=subprocess.PIPE, pass_fds=(read_end,), env=ENV)
    try:
        os.close(read_end)
        assert editor.stdout is not None
        server_pid = int(editor.stdout.readline())
        os.write(write_end, initialize(editor.pid, tmp_path))
        wait_for(lambda: b'"id": 1' in out_path.read_bytes() or b'"id":1' in out_path.read_bytes(),
                 "the initialize response")
        assert not is_gone(server_pid)
        editor.send_signal(signal.SIGKILL)
        editor.wait()
        wait_for(lambda: is_gone(server_pid), "the server to exit after its editor died")
    finally:
        os.close(write_end)
        if editor.poll() is None:
            editor.kill()
            editor.wait()


# The server's own module replaced by one that reports what the collector sees when it is handed control.
_HANDED_OVER = """
import gc, runpy, sys, types
fake = types.ModuleType("memls.lsp.server")
def main(built=None):
    from lsprotocol.types import Diagnostic
    tracked = {id(o) for o in gc.get_objects()}
    print(gc.get_freeze_count() > 0, id(Diagnostic) in tracked, gc.isenabled())
    server = [object()]  # stands for what memls's imports and the server built
    if built is not None:
        built()
    print(gc.isenabled(), id(server) in {id(o) for o in gc.get_objects()})
fake.main = main
sys.modules["memls.lsp.server"] = fake
runpy.run_module(%r, run_name="__main__")
"""


@pytest.mark.parametrize("entry", ["memls.lsp", "memls"])
def test_a_server_process_starts_with_the_protocol_libraries_out_of_the_collectors_reach(entry):
    """``python -m memls.lsp`` and ``memls serve`` freeze lsprotocol's objects before memls's imports (memls.lsp.boot).

    memls's imports and the server are built with the collector off and
    frozen too; the collector is on again before the server reads a message.
    """
    argv = "\nsys.argv = ['memls', 'serve']" if entry == "memls" else ""
    out = subprocess.run([sys.executable, "-c", (_HANDED_OVER % entry).replace("\nfake =", argv + "\nfake =", 1)],
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False", "True", "False"]


def test_importing_the_server_as_a_library_freezes_nothing():
    probe = "import gc; from memls.lsp.server import create_server; create_server(); print(gc.get_freeze_count())"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"
