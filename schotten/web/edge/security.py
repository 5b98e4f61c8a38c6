"""Origins and security headers: a pure ASGI middleware in front of the app.

A browser request from a page of another origin that could change something (POST, PUT,
PATCH, DELETE) is refused with 403 and changes nothing; a WebSocket opened from another origin
is told ``forbidden_origin`` and closed (``FORBIDDEN_ORIGIN_CLOSE``) before anything else is
sent. The origins allowed are the server's own (the scheme and ``Host`` the request arrived
with; ``https`` when the ``https`` setting is on or a proxy says so in ``X-Forwarded-Proto``)
and ``settings.allowed_origins``. A request without an ``Origin`` header (curl, scripts; a
browser always sends one with these) is let through.

Every HTTP answer gets ``HEADERS`` and a Content-Security-Policy: ``POLICY`` (no inline script
or style), or for the API's docs page, whose Swagger UI comes from a CDN with one inline
script, ``DOCS_POLICY`` with that script's hash.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI

from ..core.messages import error_message
from ..core.settings import WebSettings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

FORBIDDEN_ORIGIN_CLOSE = 4003
"""The close code of a WebSocket opened from a page of a foreign origin."""
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
          "object-src 'none'")
"""The Content-Security-Policy of every answer: scripts, styles and sockets of this origin only."""
DOCS_CDN = "https://cdn.jsdelivr.net"
DOCS_POLICY = ("default-src 'self'; script-src 'self' " + DOCS_CDN + "{hashes}; style-src 'self' " + DOCS_CDN
               + " 'unsafe-inline'; img-src 'self' data: https://fastapi.tiangolo.com; connect-src 'self'; "
                 "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'")
"""The policy of the docs page (``/api/docs``): Swagger UI's files from its CDN, its inline
script by hash, and the inline styles Swagger UI writes."""
HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
"""Headers every HTTP answer carries (besides the Content-Security-Policy)."""
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def install(app: FastAPI, settings: WebSettings) -> None:
    """Add origin checks and security headers to ``app``."""
    app.add_middleware(SecurityMiddleware, settings=settings, docs_path=app.docs_url)


def normal_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, without the scheme's default port."""
    scheme, _, rest = origin.strip().lower().rstrip("/").partition("://")
    host, _, port = rest.rpartition(":") if rest.rpartition(":")[2].isdigit() else (rest, "", "")
    if port and port != _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}:{port}"
    return f"{scheme}://{host}"


def own_origins(scope: Scope, settings: WebSettings) -> set[str]:
    """The origins of the server itself, as this request reached it."""
    headers = _headers(scope)
    host = headers.get("host", "")
    if not host:
        return set()
    arrived = "https" if scope.get("scheme") in ("https", "wss") else "http"
    forwarded = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    if settings.https:
        schemes = {"https"}
    else:
        schemes = {arrived} | ({forwarded} if forwarded in _DEFAULT_PORTS else set())
    return {normal_origin(f"{scheme}://{host}") for scheme in schemes}


def refusal(origin: str, scope: Scope, settings: WebSettings) -> str | None:
    """Why a request from a page at ``origin`` is refused, or None if that origin is allowed."""
    allowed = own_origins(scope, settings) | {normal_origin(o) for o in settings.allowed_origins}
    if normal_origin(origin) in allowed:
        return None
    mine = " or ".join(sorted(own_origins(scope, settings))) or "this server"
    what, outcome = (("game socket was opened", "it is closed") if scope["type"] == "websocket"
                     else ("request came", "nothing was changed"))
    return (f"refused: this {what} from a page at {origin!r}, which is neither this server ({mine}) "
            f"nor one of its allowed origins (SCHOTTEN_ALLOWED_ORIGINS): {outcome}")


class SecurityMiddleware:
    """Origin checks on the socket and on state-changing requests; security headers on every answer."""

    def __init__(self, app: ASGIApp, settings: WebSettings, docs_path: str | None = None) -> None:
        self.app = app
        self.settings = settings
        self.docs_path = docs_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the origin, then pass the request on with the headers added to its answer."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        origin = _headers(scope).get("origin")
        checked = scope["type"] == "websocket" or scope.get("method", "GET").upper() in UNSAFE_METHODS
        why = refusal(origin, scope, self.settings) if origin is not None and checked else None
        if why is not None and scope["type"] == "websocket":
            await _refuse_socket(receive, send, why)
        elif why is not None:
            await _refuse_request(send, why)
        elif scope["type"] == "websocket":
            await self.app(scope, receive, send)
        elif scope.get("path") == self.docs_path:
            await self.app(scope, receive, _docs_sender(send))
        else:
            await self.app(scope, receive, _header_sender(send, POLICY))


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", ())}


def with_headers(message: Message, policy: str) -> Message:
    """An ``http.response.start`` message with ``HEADERS`` and the policy added (those it lacks)."""
    names = {name.lower() for name, _ in message.get("headers", ())}
    added = [(name.encode(), value.encode()) for name, value in HEADERS.items() if name.encode() not in names]
    if b"content-security-policy" not in names:
        added.append((b"content-security-policy", policy.encode()))
    message["headers"] = [*message.get("headers", ()), *added]
    return message


def _header_sender(send: Send, policy: str) -> Send:
    async def sender(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = with_headers(message, policy)
        await send(message)

    return sender


def _docs_sender(send: Send) -> Send:
    """Holds back the docs page (a small HTML page) until its inline scripts are known and hashed."""
    held: list[Message] = []
    body = bytearray()

    async def sender(message: Message) -> None:
        if message["type"] == "http.response.start":
            held.append(message)
            return
        if message["type"] != "http.response.body" or not held:
            await send(message)
            return
        body.extend(message.get("body", b""))
        if message.get("more_body", False):
            return
        await send(with_headers(held.pop(), docs_policy(bytes(body))))
        await send({"type": "http.response.body", "body": bytes(body)})

    return sender


def docs_policy(page: bytes) -> str:
    """``DOCS_POLICY`` allowing the inline scripts of ``page`` by their SHA-256."""
    hashes = "".join(f" 'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
                     for script in _INLINE_SCRIPT.findall(page))
    return DOCS_POLICY.format(hashes=hashes)


async def _refuse_request(send: Send, why: str) -> None:
    body = json.dumps({"error": why}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send(with_headers({"type": "http.response.start", "status": 403, "headers": headers}, POLICY))
    await send({"type": "http.response.body", "body": body})


async def _refuse_socket(receive: Receive, send: Send, why: str) -> None:
    """Accept the socket only to say why it is refused, then close it: nothing else is sent."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps(error_message("forbidden_origin", why))})
    await send({"type": "websocket.close", "code": FORBIDDEN_ORIGIN_CLOSE, "reason": "forbidden origin"})
