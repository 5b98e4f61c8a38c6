"""The edge of the server: limits on connections, requests and frames, and logs without seat tokens.

Two layers (docs/web/limits.md, "Limits at the edge"); the second needs uvicorn to be given the protocols,
which ``schotten serve`` does and the documented ``uvicorn`` command says (without them the server warns):

* ``BodyLimit`` (ASGI, installed by ``install``): request bodies over ``max_body_bytes``
  get 413 before they are read (Content-Length first, chunked bodies counted as they arrive).
* ``HttpProtocol`` and ``WebSocketProtocol`` (uvicorn's httptools and websockets protocols with
  limits; ``protocols(settings)`` binds them to settings, else they read the environment):
  headers over ``max_header_bytes`` get 431, a request not received within
  ``handshake_timeout`` is closed, idle keep-alive connections after ``idle_timeout``,
  frames over ``ws_max_bytes`` are refused by the WebSocket library before they are
  buffered, and an address holding ``connections_per_address`` open connections (HTTP and
  WebSocket) has its next ones refused, with one log line per address and minute.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import logging
import re
import time
import weakref
from collections import Counter
from typing import Any, ClassVar

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import get_remote_addr
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from ..core.metrics import REFUSED
from ..core.settings import WebSettings

LOG = logging.getLogger("schotten.web.edge.server")
REFUSAL_LOG_PERIOD = 60.0
"""Refused connections are logged at most once per address in this many seconds."""
TOKEN_LOGGERS = ("uvicorn.access", "uvicorn.error")
UNPROTECTED = (
    "The server runs without schotten's uvicorn protocols: headers, WebSocket frames, handshake and idle "
    "time and connections per address are not limited as configured. Start it with `schotten serve`, "
    "or give uvicorn --http schotten.web.edge.server:HttpProtocol "
    "--ws schotten.web.edge.server:WebSocketProtocol "
    "(docs/web.md)."
)
_TOKEN = re.compile(r"((?:^|[?&;\s])token=)[^&;\s\"']+", re.IGNORECASE)


# ------------------------------------------------------------------ logs without tokens


def redact(text: str) -> str:
    """``text`` with the value of every ``token=`` query parameter replaced by ``[hidden]``."""
    return _TOKEN.sub(r"\1[hidden]", text) if "token=" in text.lower() else text


class TokenFilter(logging.Filter):
    """Hides seat tokens in a log record's message and arguments (uvicorn logs request paths)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact ``record`` in place; never drops it."""
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: redact(v) if isinstance(v, str) else v for key, v in record.args.items()}
        return True


def hide_tokens() -> None:
    """Put a ``TokenFilter`` on uvicorn's access and error loggers (once; their dictConfig keeps it)."""
    for name in TOKEN_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(item, TokenFilter) for item in logger.filters):
            logger.addFilter(TokenFilter())


# ------------------------------------------------------------------ the ASGI layer


def install(app: FastAPI, settings: WebSettings) -> None:
    """Add the edge's limit on request bodies to ``app``, and hide tokens in uvicorn's logs."""
    hide_tokens()
    app.add_middleware(BodyLimit, max_body_bytes=settings.max_body_bytes)


def _error_response(status: int, message: str) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    body = json.dumps({"error": message}).encode()
    return body, [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                  (b"connection", b"close")]


def body_too_large(limit: int) -> str:
    """The sentence of a 413."""
    return f"The request body is larger than this server accepts ({limit} bytes at most)."


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimit:
    """Refuses request bodies over ``max_body_bytes`` with 413 before the app reads them, and warns once
    when the server runs without the edge's protocols."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve ``scope`` within the limits."""
        if not _SEEN.protocols and not _SEEN.warned and scope["type"] in ("http", "websocket"):
            _SEEN.warned = True
            LOG.warning(UNPROTECTED)
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = _content_length(scope)
        if length is not None and length > self.max_body_bytes:
            REFUSED.labels(limit="body").inc()
            await _send_error(send, 413, body_too_large(self.max_body_bytes))
            return
        await _LimitedBody(self.max_body_bytes, receive, send).run(self.app, scope)


async def _send_error(send: Send, status: int, message: str) -> None:
    body, headers = _error_response(status, message)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _LimitedBody:
    """One request whose body is counted as it arrives; past the limit the client gets 413 and the app
    a disconnect (whatever the app sends afterwards is dropped)."""

    def __init__(self, limit: int, receive: Receive, send: Send) -> None:
        self.limit = limit
        self.received = 0
        self.started = False
        self.refused = False
        self._receive = receive
        self._send = send

    async def run(self, app: ASGIApp, scope: Scope) -> None:
        await app(scope, self.receive, self.send)

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request" and not self.refused:
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.refused = True
                REFUSED.labels(limit="body").inc()
                if not self.started:
                    self.started = True
                    await _send_error(self._send, 413, body_too_large(self.limit))
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


# ------------------------------------------------------------------ the connection layer


class _Peers:
    """Open connections per client address of one server, and when each refusal was last logged."""

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()
        self.logged: dict[str, float] = {}

    def acquire(self, address: str, limit: int) -> bool:
        """Count a new connection from ``address``; False (and nothing counted) if it holds ``limit``."""
        if 0 < limit <= self.open[address]:
            self._refused(address, limit)
            return False
        self.open[address] += 1
        return True

    def add(self, address: str) -> None:
        """Count a connection from ``address`` whatever the limit (one handed over by another protocol)."""
        self.open[address] += 1

    def release(self, address: str) -> None:
        """Forget one connection from ``address``."""
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def _refused(self, address: str, limit: int) -> None:
        REFUSED.labels(limit="connections").inc()
        now = time.monotonic()
        if now - self.logged.get(address, -REFUSAL_LOG_PERIOD) >= REFUSAL_LOG_PERIOD:
            self.logged = {a: t for a, t in self.logged.items() if now - t < REFUSAL_LOG_PERIOD}
            self.logged[address] = now
            LOG.warning("Refusing connections from %s: it has %d open, the limit (SCHOTTEN_CONNECTIONS_"
                        "PER_ADDRESS); logged once a minute per address.", address, limit)


class _Seen:
    """Whether this process has served a connection with the edge's protocols, and warned it had not."""

    protocols = False
    warned = False


_SEEN = _Seen()
_PEERS: weakref.WeakKeyDictionary[ServerState, _Peers] = weakref.WeakKeyDictionary()
_CONFIGS: weakref.WeakKeyDictionary[Config, Config] = weakref.WeakKeyDictionary()
_OURS: weakref.WeakSet[Config] = weakref.WeakSet()


def _peers(state: ServerState) -> _Peers:
    peers = _PEERS.get(state)
    if peers is None:
        peers = _PEERS[state] = _Peers()
    return peers


def _edge_config(config: Config, settings: WebSettings) -> Config:
    """A copy of uvicorn's ``config`` with the WebSocket size, compression and keep-alive limits of
    ``settings``."""
    if config in _OURS:
        return config
    ours = _CONFIGS.get(config)
    if ours is None:
        ours = copy.copy(config)
        ours.ws_max_size = settings.ws_max_bytes
        ours.ws_per_message_deflate = settings.ws_deflate
        ours.timeout_keep_alive = settings.idle_timeout  # type: ignore[assignment]
        _CONFIGS[config] = ours
        _OURS.add(ours)
    return ours


@functools.cache
def _from_env() -> WebSettings:
    return WebSettings.from_env()


def _host(transport: asyncio.BaseTransport) -> str | None:
    """The client's IP address (None on a Unix socket: such connections are not counted)."""
    address = get_remote_addr(transport)  # type: ignore[arg-type]
    return address[0] if address else None


def _raw_response(status: int, reason: str, message: str) -> bytes:
    body, headers = _error_response(status, message)
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return f"HTTP/1.1 {status} {reason}\r\n".encode() + head + b"\r\n" + body


class _HeadersTooLarge(Exception):
    """Raised in a parser callback to stop parsing a request whose headers are too large."""


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the edge's limits (``--http schotten.web.edge.server:HttpProtocol``).

    Its settings are ``limits`` when a subclass sets it (``protocols``), else the environment's.
    """

    limits: ClassVar[WebSettings | None] = None

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.edge = self.limits or _from_env()
        _SEEN.protocols = True
        super().__init__(_edge_config(config, self.edge), server_state, app_state, _loop)
        self.peers = _peers(server_state)
        self.address: str | None = None
        self.refused = False
        self.deadline: asyncio.TimerHandle | None = None
        self.in_head = False
        self.head_bytes = 0
        self.raw_head_bytes = 0
        self.head_too_large = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Refuse the connection if its address holds too many, else serve it (and start its clock)."""
        address = _host(transport)
        if address is not None and not self.peers.acquire(address, self.edge.connections_per_address):
            self.refused = True
            message = (f"Too many connections from your address ({self.edge.connections_per_address} "
                       "at most): close some and try again.")
            transport.write(_raw_response(429, "Too Many Requests", message))  # type: ignore[attr-defined]
            transport.close()
            return
        self.address = address
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection (a refused one was never served)."""
        if self.refused:
            return
        self._disarm()
        if self.address is not None:
            self.peers.release(self.address)
            self.address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Feed the parser, refusing headers that grow past ``max_header_bytes`` before they end."""
        super().data_received(data)
        if self.in_head and not self.transport.is_closing():
            self.raw_head_bytes += len(data)
            if self.raw_head_bytes > self.edge.max_header_bytes:
                self._headers_too_large()

    def on_message_begin(self) -> None:
        """A request starts: count its headers, and give it ``handshake_timeout`` to arrive."""
        super().on_message_begin()
        self.in_head = True
        self.head_bytes = self.raw_head_bytes = 0
        self._arm()

    def on_url(self, url: bytes) -> None:
        """Count the URL as part of the headers."""
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        """Count one header."""
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The headers are in."""
        self.in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The whole request is in: stop its clock."""
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        """Hand the connection (and its place in the count) to the WebSocket protocol."""
        self._disarm()
        if self.address is not None:
            self.peers.release(self.address)
            self.address = None
        super().handle_websocket_upgrade()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a bad request, or 431 when the headers were too large."""
        if self.head_too_large:
            self._headers_too_large()
        else:
            super().send_400_response(msg)

    def _count(self, size: int) -> None:
        self.head_bytes += size
        if self.head_bytes > self.edge.max_header_bytes:
            self.head_too_large = True
            raise _HeadersTooLarge

    def _headers_too_large(self) -> None:
        REFUSED.labels(limit="headers").inc()
        limit = self.edge.max_header_bytes
        message = f"The request headers are larger than this server accepts ({limit} bytes at most)."
        self.transport.write(_raw_response(431, "Request Header Fields Too Large", message))
        self.transport.close()

    def _arm(self) -> None:
        if self.deadline is None:
            self.deadline = self.loop.call_later(self.edge.handshake_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _too_slow(self) -> None:
        self.deadline = None
        if self.transport.is_closing():
            return
        REFUSED.labels(limit="handshake").inc()
        if self.in_head or (self.cycle is not None and not self.cycle.response_started):
            message = f"The request did not arrive within {self.edge.handshake_timeout:g} seconds."
            self.transport.write(_raw_response(408, "Request Timeout", message))
        self.transport.close()


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets protocol with the edge's limits
    (``--ws schotten.web.edge.server:WebSocketProtocol``): frames over ``ws_max_bytes`` are refused (1009),
    and the connection counts for its address while open."""

    limits: ClassVar[WebSettings | None] = None

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(_edge_config(config, self.limits or _from_env()), server_state, app_state, _loop)
        self.peers = _peers(server_state)
        self.address: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Count the (upgraded) connection for its address."""
        super().connection_made(transport)
        self.address = _host(transport)
        if self.address is not None:
            self.peers.add(self.address)

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection."""
        if self.address is not None:
            self.peers.release(self.address)
            self.address = None
        super().connection_lost(exc)


def protocols(settings: WebSettings) -> tuple[type[HttpProtocol], type[WebSocketProtocol]]:
    """The HTTP and WebSocket protocol classes for uvicorn with the limits of ``settings``."""

    class BoundHttp(HttpProtocol):
        limits = settings

    class BoundWebSocket(WebSocketProtocol):
        limits = settings

    return BoundHttp, BoundWebSocket
