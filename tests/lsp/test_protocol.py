"""Every request gets an answer: malformed params, requests after shutdown, exit codes.

Raw JSON-RPC over the server's stdio: the messages here are ones a typed
client (pytest-lsp's included) refuses to build. Each test initializes with
the capabilities of every client profile, as the editors send them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import converters
from pytest_lsp import client_capabilities

from memls.lsp.convert import path_to_uri

from .conftest import PROFILES, entry

SERVER = [sys.executable, "-m", "memls.lsp"]
ENV = {**os.environ, "MEMLS_MEMORY_DIRS": "", "GPTME_MEMORY_DIRS": "", "MEMLS_LOG_LEVEL": "WARNING"}
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600


def frame(method: str, params: object, msg_id: int | None = None) -> bytes:
    message: dict = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        message["id"] = msg_id
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    """A server process and a blocking reader of its answers (server requests are answered null)."""

    def __init__(self, tmp_path: Path):
        self.stderr_path = tmp_path / "server.err"
        self.proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr_path.open("wb"), env=ENV)
        self.answers: dict[int | str, dict] = {}

    def send(self, *frames: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(frames))
        self.proc.stdin.flush()

    def answer(self, msg_id: int) -> dict:
        """Read messages until the answer to ``msg_id`` (a silent server fails the test by timeout)."""
        assert self.proc.stdout is not None
        while msg_id not in self.answers:
            headers = {}
            while (line := self.proc.stdout.readline().strip()):
                name, _, value = line.decode("ascii").partition(":")
                headers[name.lower()] = value.strip()
            assert headers, f"the server closed its output: {self.stderr()}"
            message = json.loads(self.proc.stdout.read(int(headers["content-length"])))
            if "method" in message and "id" in message:  # a request from the server
                self.send(_response(message))
            elif "id" in message:
                self.answers[message["id"]] = message
        return self.answers[msg_id]

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


def _response(request: dict) -> bytes:
    """An editor's answer: no settings for ``workspace/configuration``, null for the rest."""
    result = None
    if request["method"] == "workspace/configuration":
        result = [None for _ in request["params"]["items"]]
    body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def initialize_frame(profile: str, folders: list[Path]) -> bytes:
    caps = converters.get_converter().unstructure(client_capabilities(profile))
    return frame("initialize", {
        "processId": None, "rootUri": path_to_uri(folders[0]), "capabilities": caps,
        "workspaceFolders": [{"uri": path_to_uri(f), "name": f.name} for f in folders],
    }, 1)


@pytest.fixture(params=PROFILES)
def raw(request, tmp_path: Path):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_text(entry("a"), encoding="utf-8")
    client = RawClient(tmp_path)
    client.profile = request.param  # type: ignore[attr-defined]
    client.folder = tmp_path  # type: ignore[attr-defined]
    yield client
    client.close()


def start(raw: RawClient) -> str:
    """Initialize and open ``a.md``; returns its URI."""
    raw.send(initialize_frame(raw.profile, [raw.folder]))  # type: ignore[attr-defined]
    assert "result" in raw.answer(1)
    uri = path_to_uri(raw.folder / "memory" / "a.md")  # type: ignore[attr-defined]
    raw.send(frame("initialized", {}), frame("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": entry("a")}}))
    return uri


@pytest.mark.parametrize(("method", "params", "named"), [
    ("textDocument/hover", {"textDocument": {}}, "position"),
    ("textDocument/hover", {"position": {"line": -1, "character": 0}}, "position"),
    ("textDocument/definition", None, "params"),
    ("textDocument/rename", {"position": {"line": 1, "character": 6}}, "newName"),
])
def test_malformed_request_is_answered_invalid_params_naming_the_field(raw, method, params, named):
    uri = start(raw)
    if isinstance(params, dict):
        params = {**params, "textDocument": {"uri": uri}}
    raw.send(frame(method, params, 2))
    error = raw.answer(2)["error"]
    assert error["code"] == INVALID_PARAMS
    assert named in error["message"] and "\n" not in error["message"]
    # The server still works, and printed no traceback for it.
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 1, "character": 6}}, 3))
    assert "result" in raw.answer(3)
    assert "Traceback" not in raw.stderr()


def test_requests_after_shutdown_are_answered_invalid_request_and_exit_code_is_zero(raw):
    uri = start(raw)
    raw.send(frame("shutdown", None, 2))
    assert raw.answer(2).get("result", "missing") is None
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 1, "character": 6}}, 3))
    assert raw.answer(3)["error"]["code"] == INVALID_REQUEST
    raw.send(frame("textDocument/definition", None, 4))  # malformed, and after shutdown
    assert raw.answer(4)["error"]["code"] == INVALID_REQUEST
    raw.send(frame("exit", None))
    assert raw.proc.wait(timeout=30) == 0


def test_exit_without_shutdown_exits_with_code_one(raw):
    start(raw)
    raw.send(frame("exit", None))
    assert raw.proc.wait(timeout=30) == 1


def test_cancel_for_a_finished_request_is_not_logged_as_a_warning(raw):
    uri = start(raw)
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 1, "character": 6}}, 2))
    raw.answer(2)
    raw.send(frame("$/cancelRequest", {"id": 2}), frame("shutdown", None, 3))
    raw.answer(3)
    assert not [line for line in raw.stderr().splitlines() if "cancel" in line.lower()]


def test_shutdown_right_behind_a_slow_initialize_answers_both(tmp_path):
    """``initialize`` still running when ``shutdown`` arrives is answered, not cancelled.

    Three hundred workspace folders make ``initialize`` take long enough that
    ``shutdown`` (sent without waiting) arrives while it runs.
    """
    folders = []
    for k in range(300):
        (tmp_path / f"f{k}" / "memory").mkdir(parents=True)
        folders.append(tmp_path / f"f{k}")
    raw = RawClient(tmp_path)
    try:
        raw.send(initialize_frame("neovim", folders), frame("shutdown", None, 2))
        assert "capabilities" in raw.answer(1).get("result", {}), raw.answers
        assert raw.answer(2).get("result", "missing") is None, raw.answers
        raw.send(frame("exit", None))
        assert raw.proc.wait(timeout=30) == 0
        assert "Traceback" not in raw.stderr()
    finally:
        raw.close()


def test_initialized_sent_without_params_still_starts_the_server(raw):
    raw.send(initialize_frame(raw.profile, [raw.folder]))  # type: ignore[attr-defined]
    raw.answer(1)
    body = json.dumps({"jsonrpc": "2.0", "method": "initialized"}).encode("utf-8")
    raw.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    deadline = time.monotonic() + 30
    for msg_id in range(2, 10_000):
        raw.send(frame("workspace/executeCommand", {"command": "memls.debugInfo"}, msg_id))
        info = raw.answer(msg_id)["result"]
        if not info["scanning"]:
            break
        assert time.monotonic() < deadline, "the first scan never ran"
        time.sleep(0.05)
    assert info["entries"] == 1


SERVER_NOT_INITIALIZED = -32002
PARSE_ERROR = -32700


def test_requests_before_initialize_are_answered_server_not_initialized(raw):
    uri = path_to_uri(raw.folder / "memory" / "a.md")  # type: ignore[attr-defined]
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 1, "character": 6}}, 7),
             frame("textDocument/definition", None, 8))  # malformed too: still "not initialized"
    assert raw.answer(7)["error"]["code"] == SERVER_NOT_INITIALIZED
    assert raw.answer(8)["error"]["code"] == SERVER_NOT_INITIALIZED
    # A notification before initialize is dropped; initialize then works as usual.
    raw.send(frame("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "markdown", "version": 1, "text": entry("a")}}))
    start(raw)
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 1, "character": 6}}, 9))
    assert "result" in raw.answer(9)


def test_a_body_that_is_not_json_gets_a_parse_error_and_the_server_reads_on(raw):
    uri = start(raw)
    for body in (b'{"jsonrpc": "2.0", "id": 5, "method": ', b"\xff\xfe not utf-8"):
        raw.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        error = raw.answer(None)  # type: ignore[arg-type]
        del raw.answers[None]
        assert error["error"]["code"] == PARSE_ERROR and error["id"] is None
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": 1, "character": 6}}, 2))
    assert "result" in raw.answer(2)
    assert "Traceback" not in raw.stderr()


@pytest.mark.parametrize("line", [1.5, True, "1"])
def test_a_position_that_is_not_an_integer_is_invalid_params_not_rounded(raw, line):
    uri = start(raw)
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}}, 2))
    assert raw.answer(2)["error"]["code"] == INVALID_PARAMS


def test_a_second_initialize_is_an_invalid_request_and_the_session_goes_on(raw):
    uri = start(raw)
    raw.send(initialize_frame(raw.profile, [raw.folder]).replace(b'"id": 1', b'"id": 2'))  # type: ignore[attr-defined]
    assert raw.answer(2)["error"]["code"] == INVALID_REQUEST
    raw.send(frame("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}}, 3))
    assert "result" in raw.answer(3)


@pytest.mark.parametrize("params", [
    {"uri": "file:///tmp/w%C3%B6rk/a.md", "diagnostics": []},
    {"uri": "file:///a.md", "version": 3, "diagnostics": [
        {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}},
         "message": "\u00e9t\u00e9 \U0001F600 \"quoted\"\n\ttab", "severity": 2, "code": "x-y",
         "tags": [2], "data": {"code": "x-y", "span": [0, 4, 0, 9], "ratio": 0.25, "none": None, "yes": True}}]},
])
def test_notifications_sent_in_wire_form_are_the_text_json_dumps_gives(params: dict) -> None:
    """The start's publishes are encoded by an encoder made once (memls.lsp.protocol): the same bytes."""
    from memls.lsp.protocol import _dumps

    message = {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params}
    assert _dumps(message) == json.dumps(message)


def test_handlers_that_ran_are_not_kept_however_many_notifications_came(raw):
    # pygls kept the future of every notification's handler for the server's whole life (a leak per keystroke).
    uri = start(raw)
    changes = [frame("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                "contentChanges": [{"text": entry("a", f"typed {version}")}]})
               for version in range(2, 302)]
    raw.send(*changes, frame("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": {"line": 1, "character": 7}}, 2))
    raw.answer(2)
    raw.send(frame("workspace/executeCommand", {"command": "memls.debugInfo"}, 3))
    held = raw.answer(3)["result"]["handlers_in_flight"]
    assert held <= 5, f"{held} handlers held after 302 notifications"
