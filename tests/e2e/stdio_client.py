"""A few lines of JSON-RPC over a server process's stdio, for the packaging tests.

The wheel and the ``.vsix`` tests start ``memls serve`` from what they built,
with no test client library in that environment, and need only to send a
message and read the response to one request.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


def send(proc: subprocess.Popen, message: dict) -> None:
    body = json.dumps(message).encode("utf-8")
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive_response(proc: subprocess.Popen, request_id: int) -> dict:
    """Read messages until the response to ``request_id`` (notifications are skipped)."""
    while True:
        headers = {}
        while line := proc.stdout.readline().strip():
            name, _, value = line.decode("ascii").partition(":")
            headers[name.lower()] = value.strip()
        assert headers, f"server closed its output: {proc.stderr.read().decode(errors='replace')}"
        message = json.loads(proc.stdout.read(int(headers["content-length"])))
        if message.get("id") == request_id and "method" not in message:
            return message


def request(proc: subprocess.Popen, request_id: int, method: str, params: object) -> dict:
    send(proc, {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    return receive_response(proc, request_id)


def notify(proc: subprocess.Popen, method: str, params: object) -> None:
    send(proc, {"jsonrpc": "2.0", "method": method, "params": params})


@contextmanager
def server_process(command: Sequence[str], *, cwd: Path, env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """A server on pipes; killed if still running when the block ends, its pipes closed."""
    proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
