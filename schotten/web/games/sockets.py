"""The WebSocket transport: accepting a client, its seat, reading and checking its frames, and
its outgoing queue. It knows nothing of games: its ``Host`` (the game authority) does.

``SocketServer.serve`` accepts a socket, asks the host for its game (refused with
``not_found`` if there is none), reads the seat from the ``token`` query parameter or the
seat cookie (refused with ``bad_token`` if it is no seat's; no token: a spectator), and then
reads frames. Each frame is checked (flood limit, size, text) and parsed
(``messages.parse_client_message``) before the host is handed the message, so a new kind of
message is a new model in ``messages`` and a new branch in the host, with nothing here.

Nothing ever waits on one client's network: messages are put on the connection's bounded
queue without waiting, and a writer task of its own sends them. A client that lets the queue
fill up (a stalled or vanished browser) is dropped: its writer stops and the socket is
closed, so every other client and the game go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from starlette.websockets import WebSocket

from ..core.errors import Say, say, saying
from ..core.messages import ClientError, ClientMessage, ErrorCode, error_message, parse_client_message
from ..core.settings import WebSettings
from ..edge.quotas import Quotas, address_of, over_rate, over_rate_said
from ..players.accounts import session_hash
from ..players.identity import SESSION_COOKIE
from ..players.seats import cookie_name, cookie_token

logger = logging.getLogger("schotten.web")

OVERFLOW_CLOSE = 1013
"""The close code of a client dropped because it did not keep up ("try again later")."""
CLOSE_TIMEOUT = 2.0
NOT_FOUND_CLOSE = 4404
BAD_TOKEN_CLOSE = 4403
LIMIT_CLOSE = 4429
"""The close code of a socket refused by a limit (sockets per address, spectators, the address rate)."""
DAMAGED_CLOSE = 4409
"""The close code of a socket to a game whose stored log does not replay (after an error ``damaged``)."""
G = TypeVar("G")
SOCKETS = saying("Your address already has {limit} game sockets open, the most it may have: close a "
                 "game's tab and try again.")


class Socket(Protocol):
    """What a connection needs of a WebSocket (Starlette's WebSocket has it)."""

    async def send_text(self, data: str) -> None:
        """Send one text frame."""
        ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the socket."""
        ...


class RateLimit:
    """At most ``limit`` events per sliding ``window`` seconds."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._times: deque[float] = deque()

    def allow(self) -> bool:
        """Count one event if it is within the limit; False (not counted) if it is not."""
        now = self._clock()
        while self._times and self._times[0] <= now - self.window:
            self._times.popleft()
        if len(self._times) >= self.limit:
            return False
        self._times.append(now)
        return True


class Connection:
    """A client of one game: ``seat`` is 0, 1 or None (a spectator)."""

    def __init__(self, socket: Socket, seat: int | None, queue_size: int, limit: RateLimit) -> None:
        self.socket = socket
        self.seat = seat
        self.reader: int | None = None
        """The account of who reads through this socket (its seat's, else its session's), if any."""
        self.session: str | None = None
        """The hash of the session cookie the socket was opened with (``accounts.session_hash``), if any."""
        self.limit = limit
        self.closed = asyncio.Event()
        self.close_code = 1000
        self._queue: asyncio.Queue[str] = asyncio.Queue(queue_size)
        self._writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writer task."""
        self._writer = asyncio.create_task(self._write())

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict or JSON text) without waiting; drop the client if its queue is full."""
        if self.closed.is_set():
            return
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            logger.info("dropping a client that does not keep up (seat %s)", self.seat)
            self.drop(OVERFLOW_CLOSE)

    def drop(self, code: int) -> None:
        """Stop sending to this client; its socket is closed with ``code`` by ``stop``."""
        if not self.closed.is_set():
            self.close_code = code
            self.closed.set()
            if self._writer is not None:
                self._writer.cancel()

    async def _write(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                await self.socket.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:
            self.drop(1000)

    async def stop(self, close: bool) -> None:
        """Stop the writer; with ``close`` also close the socket (never waiting long on it)."""
        dropped = self.closed.is_set() and self.close_code != 1000
        self.drop(1000)
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer
        if close or dropped:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.socket.close(self.close_code), CLOSE_TIMEOUT)


class Host(Protocol[G]):
    """What the transport needs of the games it serves sockets for (``G`` is a game)."""

    async def find(self, game_id: str) -> G | None:
        """The game ``game_id``, or None if there is none; ClientError if it cannot be served."""
        ...

    async def seat_of(self, game: G, token: str) -> int | None:
        """The seat of ``game`` whose token this is, or None."""
        ...

    async def seat_of_session(self, game: G, session_id: str) -> int | None:
        """The seat of ``game`` played by the account logged in with this session, or None."""
        ...

    async def identify(self, game: G, conn: Connection, session_id: str | None) -> None:
        """Set who reads through ``conn`` (``Connection.reader``), before it enters; a ClientError
        refuses it (as ``enter``'s)."""
        ...

    def enter(self, game: G, conn: Connection) -> None:
        """A client of ``game`` was accepted (send it the state, and every change from now on); a
        ClientError refuses it (the socket is sent the error and closed with ``LIMIT_CLOSE``)."""
        ...

    async def receive(self, game: G, conn: Connection, message: ClientMessage) -> None:
        """A client's checked and parsed message (the host answers refusals itself)."""
        ...

    def leave(self, game: G, conn: Connection) -> None:
        """The client went away or was dropped: send it nothing more."""
        ...


class SocketServer(Generic[G]):
    """Serves each game socket for the ``host``, within the limits of ``settings``."""

    def __init__(self, settings: WebSettings, host: Host[G], quotas: Quotas | None = None) -> None:
        self.settings = settings
        self.host = host
        self.quotas = quotas if quotas is not None else Quotas(settings)

    async def serve(self, socket: WebSocket, game_id: str) -> None:
        """Serve one WebSocket client of a game until it leaves (or is dropped); its address may hold
        ``sockets_per_address`` sockets, and its opening is charged to the address rate."""
        await socket.accept()
        address = address_of(socket.client)
        if not self.quotas.open_socket(address):
            most = self.settings.sockets_per_address
            await _refuse(socket, "limit", f"your address already has {most} game sockets open, the most it "
                          "may have: close a game's tab and try again", LIMIT_CLOSE, say(SOCKETS, limit=most))
            return
        try:
            refused = self.quotas.charge(address)
            if refused is not None:
                await _refuse(socket, "limit", over_rate(refused, "messages and requests", "this socket"),
                              LIMIT_CLOSE, over_rate_said(refused, "messages and requests", "this socket"))
                return
            await self._serve(socket, game_id, address)
        finally:
            self.quotas.close_socket(address)

    async def _serve(self, socket: WebSocket, game_id: str, address: str) -> None:
        try:
            game = await self.host.find(game_id)
        except ClientError as error:
            close = DAMAGED_CLOSE if error.code == "damaged" else OVERFLOW_CLOSE
            await _refuse(socket, error.code, error.message, close, error.say)
            return
        if game is None:
            await _refuse(socket, "not_found", f"there is no game {game_id!r}", NOT_FOUND_CLOSE)
            return
        token = socket.query_params.get("token") or cookie_token(socket.cookies, game_id, self.settings.https)
        seat = await self.host.seat_of(game, token) if token else None
        if token and seat is None:
            await _refuse(socket, "bad_token", "this seat token is not valid for this game: use the link "
                          "you were given, or watch without a token", BAD_TOKEN_CLOSE)
            return
        session = socket.cookies.get(cookie_name(SESSION_COOKIE, self.settings.https))
        if seat is None and session:
            seat = await self.host.seat_of_session(game, session)
        limit = RateLimit(self.settings.flood_limit, self.settings.flood_window)
        conn = Connection(socket, seat, self.settings.send_queue, limit)
        conn.session = session_hash(session) if session else None
        try:
            await self.host.identify(game, conn, session)
            self.host.enter(game, conn)
        except ClientError as error:
            close = OVERFLOW_CLOSE if error.code == "unavailable" else LIMIT_CLOSE
            await _refuse(socket, error.code, error.message, close)
            return
        conn.start()
        left = False
        try:
            left = await self._read(game, conn, socket, address)
        finally:
            self.host.leave(game, conn)
            await conn.stop(close=not left)

    async def _read(self, game: G, conn: Connection, socket: WebSocket, address: str) -> bool:
        """Hand the client's messages to the host; True when the client went away, False when it
        was dropped."""
        while True:
            frame = await _receive(socket, conn)
            if frame is None:
                return False
            if frame["type"] == "websocket.disconnect":
                return True
            try:
                message = self._message(conn, frame, address)
            except ClientError as error:
                conn.send(error_message(error.code, error.message, error.say))
                continue
            await self.host.receive(game, conn, message)

    def _message(self, conn: Connection, frame: dict[str, Any], address: str) -> ClientMessage:
        """The message of one frame, if it is within the limits (this socket's, then its address's
        rate); ClientError if not."""
        settings = self.settings
        if not conn.limit.allow():
            raise ClientError("flood", f"more than {settings.flood_limit} messages in "
                              f"{settings.flood_window:g} s: this message was dropped")
        refused = self.quotas.charge(address)
        if refused is not None:
            raise ClientError("limit", over_rate(refused, "messages and requests", "this message"),
                              over_rate_said(refused, "messages and requests", "this message"))
        text, data = frame.get("text"), frame.get("bytes")
        size = len(text.encode("utf-8")) if text is not None else len(data or b"")
        if size > settings.max_message_bytes:
            raise ClientError("too_large", f"a message may hold {settings.max_message_bytes} bytes; "
                              f"this one holds {size}")
        if text is None:
            raise ClientError("bad_message", "send JSON text messages, not binary ones")
        return parse_client_message(text)


async def _refuse(socket: WebSocket, code: ErrorCode, message: str, close_code: int,
                  said: Say | None = None) -> None:
    with contextlib.suppress(Exception):
        text = json.dumps(error_message(code, message, said))
        await asyncio.wait_for(socket.send_text(text), CLOSE_TIMEOUT)
        await asyncio.wait_for(socket.close(close_code), CLOSE_TIMEOUT)


async def _receive(socket: WebSocket, conn: Connection) -> dict[str, Any] | None:
    """The client's next frame, or None as soon as the connection is dropped."""
    receive = asyncio.ensure_future(socket.receive())
    dropped = asyncio.ensure_future(conn.closed.wait())
    try:
        done, _ = await asyncio.wait({receive, dropped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        dropped.cancel()
        if not receive.done():
            receive.cancel()
    return dict(receive.result()) if receive in done else None
