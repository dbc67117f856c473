"""The one error the server answers a request with when it cannot carry it out.

LSP reserves ``RequestFailed`` (-32803) for "the request was valid but the
server could not do it": a rename to a reserved name, a fix whose problem
has gone, a command refused because a buffer has unsaved changes. Editors
show its message to the user as it is, so the message is always one line
(:func:`memls.store.text.one_line`) -- a multi-line YAML error would be cut
or shown as a wall of text.

A refusal is an answer, not a failure of the server: pygls logs every error
answer with a traceback at ERROR level, which editors put in their log as a
server error (Neovim's ``lsp.log``). :func:`log_refusals_quietly` makes a
``RequestFailed`` one line at INFO instead, and drops pygls's traceback for
a message body that is not JSON (the protocol answers it with a
``ParseError`` and logs one line); other exceptions keep their tracebacks.
"""

from __future__ import annotations

import json
import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from memls.store.text import one_line


class RequestFailed(JsonRpcException):
    """LSP's ``RequestFailed`` error with a one-line message."""

    CODE = int(types.LSPErrorCodes.RequestFailed)

    def __init__(self, message: str):
        super().__init__(one_line(message), code=self.CODE)


log = logging.getLogger(__name__)
# The pygls logger that reports an exception raised by a request handler.
PYGLS_RPC_LOGGER = "pygls.protocol.json_rpc"
# The pygls logger of the read loop, which reports a body that is not JSON.
PYGLS_SERVER_LOGGER = "pygls.server"


class _RefusalFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, RequestFailed):
            log.info("request refused: %s", exc.message)
            return False
        return not isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError))


def log_refusals_quietly() -> None:
    """Log a request answered with ``RequestFailed`` (or a parse error) as one line, without a traceback."""
    for name in (PYGLS_RPC_LOGGER, PYGLS_SERVER_LOGGER):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _RefusalFilter) for f in logger.filters):
            logger.addFilter(_RefusalFilter())


def reason(exc: BaseException) -> str:
    """What went wrong, in one line: the exception's message, else its type's name.

    ``str(KeyError("x"))`` quotes the key; the sentence a ``KeyError`` was
    raised with is its first argument.
    """
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return one_line(str(text)) or type(exc).__name__
