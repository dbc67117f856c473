"""The JSON-RPC side of the server: every request gets an answer, the lifecycle is the spec's.

pygls handles the wire; this subclass of its protocol changes what it does
with messages that do not fit, because an editor waits for the answer to
every request it sends and shows nothing while it waits:

* A request whose params do not match the method's type (``hover`` without
  a ``position``, ``line: -1``, ``definition`` with ``null``, ``rename``
  without ``newName``) is answered ``InvalidParams`` (-32602), naming what is
  wrong. pygls logs the converter's traceback and drops such a message, so
  the editor waits forever. A malformed notification has nobody to answer;
  it is logged in one line.
* A second ``initialize`` is answered ``InvalidRequest`` (-32600): the
  session's capabilities are agreed once. A number with a fraction where
  the spec says integer (``line: 1.5``) is invalid params, not rounded.
* After ``shutdown`` every request is answered ``InvalidRequest`` (-32600)
  and notifications other than ``exit`` are ignored (the spec's rule).
  ``exit`` ends the process with 0 after ``shutdown`` and 1 without it;
  the code is kept on the server (:attr:`exit_code`) because pygls's own
  ``sys.exit`` is swallowed by its IO loop.
* ``shutdown`` sent right behind ``initialize`` (a client that does not wait)
  lets ``initialize`` finish and answer first, instead of cancelling it, and
  cancels other requests in flight without changing the table it walks
  (pygls walks it while the cancellations remove their entries).
* ``$/cancelRequest`` for a request already answered is routine (clients
  cancel on every keystroke); it is logged at debug, not as a warning in
  the editor's output.
* Before ``initialize`` every request is answered ``ServerNotInitialized``
  (-32002) and notifications other than ``exit`` are dropped (the spec's
  rule): nothing is set up to answer them yet.
* A body that is not JSON is answered with a ``ParseError`` (-32700, id
  null: the id is unreadable) and the server reads on; one bad message from
  a buggy client must not end the session.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, NamedTuple
from urllib.parse import unquote

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCResponseMessage, RPCRequest
from pygls.protocol.language_server import lsp_method

from memls.store.structs import struct
from memls.store.text import one_line

log = logging.getLogger(__name__)


def _json_dumps() -> Callable[[Any], str]:
    """``json.dumps`` with its defaults, the C encoder under it made once rather than once a call.

    A start publishes hundreds of small notifications at once
    (:meth:`MemlsProtocol.notify_json`), and making the encoder was a third
    of the cost of each. The same text (checked here once); ``json.dumps``
    itself where the C encoder is not there or takes other arguments.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.dumps
    try:
        # No circular check (markers None): a failed call would leave its marks in a shared
        # table; these params are plain values built for the wire, never cyclic.
        encode = make(None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii,
                      None, ": ", ", ", False, False, True)

        def dumps(obj: Any) -> str:
            return "".join(encode(obj, 0))

        sample = {"a": [1, 2.5, None, True, "\u00e9\n"], "b": {"c": -1}}
        if dumps(sample) != json.dumps(sample):
            return json.dumps
    except Exception:  # noqa: BLE001 - another Python's encoder: the public function
        return json.dumps
    return dumps


_dumps = _json_dumps()


@struct(frozen=False)
class MalformedMessage:
    """A message whose params did not convert: answered with ``InvalidParams`` when it is a request."""

    method: str
    id: int | str | None
    reason: str
    jsonrpc: str = "2.0"


class WireResult(NamedTuple):
    """A request's answer already in wire form (plain JSON values): sent as it is.

    pygls hands every answer to its converter, which walks plain values
    one by one too; a 10k-entry ``MEMORY.md`` outline is tens of thousands
    of them, and the walk cost more than building them.
    """

    value: Any


def _camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def describe(exc: BaseException) -> str:
    """What the converter found wrong, in the protocol's names (``$.params.newName``)."""
    try:
        messages = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else [str(exc)]
    except Exception:  # noqa: BLE001 - a description must not fail
        messages = [type(exc).__name__]
    return one_line("; ".join(_camel(m) for m in messages)) or "malformed params"


class MemlsProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shutdown_requested = False
        self._initialize_seen = False
        self._initialize_id: int | str | None = None
        self._shutdown_id: int | str | None = None
        # JSON integers only: cattrs would turn ``line: 1.5`` or ``true`` into 1 and answer for the wrong place.
        self._converter.register_structure_hook(int, _whole_number)
        # ``bool`` is a subclass of ``int``: it keeps the plain conversion.
        self._converter.register_structure_hook(bool, lambda value, _type: bool(value))

    # -- handlers --------------------------------------------------------------------

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """pygls's, but an answer in wire form (:class:`WireResult`) is written without the converter."""
        if error is None and isinstance(result, WireResult):
            self._send_data({"jsonrpc": "2.0", "id": msg_id, "result": result.value})
            return
        super()._send_response(msg_id, result, error)

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: tuple[Any, ...] | None = None, kwargs: dict[str, Any] | None = None) -> None:
        """pygls's, with each handler's future taken out of the table of work in flight once done.

        pygls files the future of every handler it runs in that table, under
        the message's id or, for a notification and for each step of a
        built-in handler that calls ours (``didOpen``, ``didChange``...),
        under a made-up one, and takes out only a request's own. Every other
        stayed: a task and a future per notification, about 2.6 KB a
        keystroke, for as long as the server ran.
        """
        super()._execute_handler(msg_id, handler, callback, args=args, kwargs=kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(partial(self._forget_handler, msg_id))

    @property
    def handlers_in_flight(self) -> int:
        """How many handlers' futures pygls still holds (a count that keeps growing is a leak)."""
        return len(self._request_futures)

    def _forget_handler(self, msg_id: Any, future: Any) -> None:
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    # -- reading ---------------------------------------------------------------------

    def structure_message(self, data: dict[str, Any]):
        if "jsonrpc" not in data or "error" in data:  # inner objects, error responses: as pygls does
            return super().structure_message(data)
        method = data.get("method")
        if not isinstance(method, str):
            return self._structure_response(data)
        message_type = self.get_message_type(method)
        if message_type is None:  # unknown methods: pygls answers MethodNotFound
            return super().structure_message(data)
        try:
            return self._converter.structure(data, message_type)
        except Exception as exc:  # noqa: BLE001 - answered in handle_message
            if "id" not in data and data.get("params") is None:
                # A notification sent without params (``initialized`` from some
                # clients): its params are an empty object.
                try:
                    return self._converter.structure({**data, "params": {}}, message_type)
                except Exception:  # noqa: BLE001 - reported below
                    pass
            return MalformedMessage(method, data.get("id"), describe(exc))

    def _structure_response(self, data: dict[str, Any]):
        """A response to one of our requests; one that does not convert fails its waiter."""
        msg_id = data.get("id")
        response_type = self._result_types.pop(msg_id, None) or JsonRPCResponseMessage  # type: ignore[arg-type]
        try:
            return self._converter.structure(data, response_type)
        except Exception as exc:  # noqa: BLE001 - whoever waits gets the error
            reason = describe(exc)
            future = self._request_futures.pop(msg_id, None)  # type: ignore[arg-type]
            if future is not None and not future.done():
                future.set_exception(JsonRpcInternalError(f"malformed response: {reason}"))
            log.warning("the client's response %r is malformed: %s", msg_id, reason)
            return None

    def handle_message(self, message: Any) -> None:
        if message is None:
            return
        if not self._initialize_seen and self._before_initialize(message):
            return
        if isinstance(message, MalformedMessage):
            self._answer_malformed(message)
            return
        method = getattr(message, "method", None)
        if self._shutdown_requested and method is not None and method != types.EXIT:
            if isinstance(message, RPCRequest):
                self._send_response(message.id, error=types.ResponseError(
                    code=types.ErrorCodes.InvalidRequest,
                    message=f"{method}: the server is shutting down"))
            else:
                log.debug("ignoring %s after shutdown", method)
            return
        if isinstance(message, RPCRequest):
            if method == types.INITIALIZE and self._initialize_id is not None:
                self._send_response(message.id, error=types.ResponseError(
                    code=types.ErrorCodes.InvalidRequest, message="initialize: the server is already initialized"))
                return
            if method == types.SHUTDOWN:
                self._shutdown_requested = True
                self._shutdown_id = message.id
            elif method == types.INITIALIZE:
                self._initialize_id = message.id
        super().handle_message(message)

    def _before_initialize(self, message: Any) -> bool:
        """Answer or drop a message that came before ``initialize``; False lets it through."""
        method = getattr(message, "method", None)
        if method in (types.INITIALIZE, types.EXIT) or method is None:
            self._initialize_seen = method == types.INITIALIZE
            return False
        msg_id = getattr(message, "id", None)
        if msg_id is None:
            log.debug("ignoring %s before initialize", method)
        else:
            self._send_response(msg_id, error=types.ResponseError(
                code=types.ErrorCodes.ServerNotInitialized,
                message=f"{method}: the server is not initialized"))
        return True

    def answer_parse_error(self, exc: ValueError) -> None:
        """A message body that is not JSON: answered with id null, as JSON-RPC says."""
        log.warning("a message is not JSON: %s", one_line(str(exc)))
        # A plain dict: the converter would drop the null id, which JSON-RPC requires.
        self._send_data({"jsonrpc": "2.0", "id": None, "error": {
            "code": types.ErrorCodes.ParseError, "message": f"parse error: {one_line(str(exc))}"}})

    def notify_json(self, method: str, many_params: Iterable[dict[str, Any]]) -> None:
        """Notifications whose params are already in wire form (plain JSON values), written at once.

        What :meth:`notify` sends for each of the LSP objects they were made
        from, without building them for the converter to take apart again,
        and in one write to the client instead of one (and a flush) a message.
        """
        if self.writer is None:
            log.error("unable to send %s: no transport", method)
            return
        parts = []
        for params in many_params:
            body = _dumps({"jsonrpc": "2.0", "method": method, "params": params})
            if self._include_headers:  # as pygls's _send_data writes them
                parts.append(f"Content-Length: {len(body)}\r\n"
                             f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n")
            parts.append(body)
        if not parts:
            return
        try:
            written = self.writer.write("".join(parts).encode(self.CHARSET))
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)
        except BrokenPipeError:
            log.exception("sending %s: the client is gone", method)
            raise
        except Exception as error:  # noqa: BLE001 - as pygls reports a failed send
            log.exception("sending %s failed", method)
            self._server._report_server_error(error, JsonRpcInternalError)

    def _answer_malformed(self, message: MalformedMessage) -> None:
        if message.id is None:
            log.warning("ignoring %s with malformed params: %s", message.method, message.reason)
            return
        if self._shutdown_requested and message.method != types.EXIT:
            code, text = types.ErrorCodes.InvalidRequest, "the server is shutting down"
        else:
            code, text = types.ErrorCodes.InvalidParams, f"invalid params: {message.reason}"
        log.info("answering %s %r: %s", message.method, message.id, text)
        self._send_response(message.id, error=types.ResponseError(code=code, message=f"{message.method}: {text}"))

    def _handle_cancel_notification(self, msg_id):
        if msg_id not in self._request_futures:
            log.debug("cancel for request %r, which is no longer running", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    # -- lifecycle ---------------------------------------------------------------------

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args):
        pending = self._request_futures.get(self._initialize_id) if self._initialize_id is not None else None
        if pending is not None and not pending.done():
            yield _settled, (pending,), None
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != self._shutdown_id and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        """pygls's, but a change to a document that is not open is logged and dropped.

        pygls looks the document up unchecked: a change for a closed file or an
        ``untitled:`` buffer showed the user "Error in server: KeyError" and the
        document's URI, which tells them nothing and needs nothing of them.
        """
        if unquote(params.text_document.uri) not in self.workspace.text_documents:
            log.warning("ignoring a change to %s, which is not open", params.text_document.uri)
            return
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args):
        # ``exit`` right behind ``shutdown``: the shutdown (and the initialize
        # it waits for) answers before the output closes.
        pending = self._request_futures.get(self._shutdown_id) if self._shutdown_id is not None else None
        if pending is not None and not pending.done():
            yield _settled, (pending,), None
        self._server.exit_code = 0 if self._shutdown_requested else 1
        yield from super().lsp_exit(*args)


def _whole_number(value: Any, type_: Any) -> int:
    """An LSP ``integer``/``uinteger`` (or an integer enum): a JSON number without a fraction.

    ``1.0`` from a client whose numbers are all floats passes.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ValueError(f"{value!r} is not an integer")
    return type_(int(value))


async def _settled(future) -> None:
    """Wait for a request to finish, however it ends."""
    try:
        await asyncio.wrap_future(future)
    except BaseException:  # noqa: BLE001 - its own handler answers it
        pass
