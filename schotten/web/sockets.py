"""One WebSocket client: its seat, its outgoing queue and writer, its flood limit.

Nothing ever waits on one client's network: messages are put on the connection's
bounded queue without waiting, and a writer task of its own sends them. A client that
lets the queue fill up (a stalled or vanished browser) is dropped: its writer stops and
the socket is closed, so every other client and the game go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

logger = logging.getLogger("schotten.web")

OVERFLOW_CLOSE = 1013
"""The close code of a client dropped because it did not keep up ("try again later")."""
CLOSE_TIMEOUT = 2.0


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
