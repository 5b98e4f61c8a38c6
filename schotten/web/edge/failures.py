"""Unexpected errors: every HTTP request that raises is answered 500 ``{"error", "id", "say"}`` (the
JSON of every refusal, docs/web.md), never Starlette's or uvicorn's text/plain.

``Failures`` is the outermost ASGI middleware, so an error in a route, a feature, the store or
another middleware is caught. It logs one line at ERROR, ``unexpected error <id> answering GET
/path: <type>``, with the traceback; the same id is in the answer, so a player's report finds the
line. The line names the method and the path only, no query and no header; in the traceback, every
value of the request's cookies, query and ``Authorization`` header reads ``[hidden]`` (and any
``token=``, ``server.redact``). An error after the answer began cannot change its status: it is
logged and the connection closed (uvicorn does it).
"""

from __future__ import annotations

import json
import logging
import secrets
import traceback
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..core.errors import say, saying
from .security import POLICY, with_headers
from .server import redact

logger = logging.getLogger("schotten.web")

FAILED = saying("The server failed on this request (error {id}): try again; if it fails again, "
                "report this id.")
"""What the page says of an unexpected error."""
MIN_SECRET = 6
"""Shorter cookie and query values are left in the log (hiding them would hide common words)."""


def failure_body(error_id: str) -> bytes:
    """The JSON answer of the unexpected error ``error_id``."""
    message = (f"the server failed on this request (error {error_id}): it is logged under that id; "
               "try again, and if it fails again, report the id")
    return json.dumps({"error": message, "id": error_id, "say": say(FAILED, id=error_id)}).encode()


class Failures:
    """Pure ASGI middleware: answers any exception of an HTTP request with a JSON 500 and logs it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve ``scope``; an exception raised while doing so is logged and answered."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as error:
            error_id = secrets.token_hex(6)
            _log(error_id, scope, error)
            if not started:
                await _answer(send, error_id)


def _log(error_id: str, scope: Scope, error: Exception) -> None:
    """One line naming the error's id, the request's method and path, and the traceback."""
    where = f"{scope.get('method', '?')} {scope.get('path', '?')}"
    trace = redact("".join(traceback.format_exception(error)).rstrip())
    for secret in _secrets(scope):
        trace = trace.replace(secret, "[hidden]")
    logger.error("unexpected error %s answering %s: %s\n%s", error_id, where, type(error).__name__, trace)


def _secrets(scope: Scope) -> list[str]:
    """The values of the request's cookies, query parameters and ``Authorization`` header, longest
    first (any of them may be a session id, a seat token or a ticket)."""
    found = [value for _, value in parse_qsl(scope.get("query_string", b"").decode("latin-1"))]
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            found += [part.partition("=")[2].strip() for part in value.decode("latin-1").split(";")]
        elif name == b"authorization":
            found.append(value.decode("latin-1"))
    return sorted({value for value in found if len(value) >= MIN_SECRET}, key=len, reverse=True)


async def _answer(send: Send, error_id: str) -> None:
    body = failure_body(error_id)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    start: Message = {"type": "http.response.start", "status": 500, "headers": headers}
    await send(with_headers(start, POLICY))
    await send({"type": "http.response.body", "body": body})
