"""Fan-out between server processes that share one database: every change a process stores is
published on Redis, and every other process hears it and catches up from the database.

Events are small JSON objects on one channel (``CHANNEL``): ``{"from": <process>, "kind": ...,
"game": <id>, ...}`` (the kinds are in ``peers``). They say what changed, never a hidden card: a
process that hears one reads the change from the database (the log is the truth) and sends its own
clients their own views. A process ignores its own events.

``LocalBus`` is the bus of a process alone (nothing to tell, nobody to hear). ``RedisBus`` uses
redis-py's asyncio client: events are published from a queue by a task of their own (never waited
on under a game's lock), and heard on a connection of their own, subscribed again after a loss.
``on_lost`` is called once when the link to Redis goes, ``on_back`` once it is back: events
published meanwhile are lost, so every process then catches up every game it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol, cast

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError
from sqlalchemy import make_url

from ..core.errors import StoreUnavailable

logger = logging.getLogger("schotten.web")

CHANNEL = "schotten:events"
Event = dict[str, Any]
Handler = Callable[[Event], None]
Signal = Callable[[], None]
OUTBOX = 10_000
"""Events waiting to be published at most; beyond, an event is dropped (and counted in the log)."""
BATCH = 256
"""Events published in one round trip at most (a pipeline)."""
CONNECT_TIMEOUT = 2.0
RETRY = 0.5
"""Seconds between two attempts to reach Redis again after a loss."""


class Bus(Protocol):
    """Where a process tells the others what it changed and hears what they changed."""

    healthy: bool
    """Whether the other processes hear this one (always, for a process alone)."""

    async def start(self, on_event: Handler, on_lost: Signal, on_back: Signal) -> None:
        """Begin hearing events (``on_event`` for each other process's event)."""

    def tell(self, event: Event) -> None:
        """Publish ``event`` (without waiting)."""

    async def stop(self) -> None:
        """Publish what is queued, stop hearing and close the connections."""


class LocalBus:
    """The bus of a process alone: nobody to tell."""

    healthy = True

    async def start(self, on_event: Handler, on_lost: Signal, on_back: Signal) -> None:
        """Nothing to hear."""

    def tell(self, event: Event) -> None:
        """Nobody to tell."""

    async def stop(self) -> None:
        """Nothing to stop."""


class RedisBus:
    """Events through Redis pub/sub (see the module's docstring)."""

    def __init__(self, url: str, origin: str) -> None:
        self.shown = make_url(url).render_as_string(hide_password=True)
        """The Redis URL as logs and errors show it (its password hidden)."""
        self.origin = origin
        self.healthy = False
        self._publisher = aioredis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT,
                                                  socket_timeout=CONNECT_TIMEOUT)
        self._listener = aioredis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT,
                                                 health_check_interval=2)
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue(OUTBOX)
        self._tasks: list[asyncio.Task[None]] = []
        self._handlers: tuple[Handler, Signal, Signal] | None = None
        self._dropped = 0

    async def start(self, on_event: Handler, on_lost: Signal, on_back: Signal) -> None:
        """Reach Redis (``StoreUnavailable`` naming the URL if it cannot be reached now), then hear
        and publish events in tasks of their own."""
        try:
            await self._publisher.ping()
        except (RedisError, OSError) as error:
            raise StoreUnavailable(f"Redis at {self.shown} cannot be reached: {error}") from None
        self._handlers = (on_event, on_lost, on_back)
        subscribed = asyncio.Event()
        self._tasks = [asyncio.create_task(self._listen(subscribed)), asyncio.create_task(self._publish())]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CONNECT_TIMEOUT):
                await subscribed.wait()

    @property
    def client(self) -> aioredis.Redis:
        """The connection events are published on (for short commands of the same process)."""
        return self._publisher

    def tell(self, event: Event) -> None:
        """Queue ``event`` for publishing; dropped while Redis is unreachable (the others catch up
        from the database when it is back) or when too many wait."""
        if not self.healthy:
            return
        event["from"] = self.origin
        try:
            self._outbox.put_nowait(orjson.dumps(event))
        except asyncio.QueueFull:
            self._dropped += 1
            if self._dropped % 1000 == 1:
                logger.error("fan-out: %d events dropped, Redis does not keep up", self._dropped)

    async def stop(self) -> None:
        """Publish what is queued (briefly), then stop and close."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                while not self._outbox.empty() and self.healthy:
                    await asyncio.sleep(0.01)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for client in (self._publisher, self._listener):
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _publish(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < BATCH:
                batch.append(self._outbox.get_nowait())
            try:
                async with self._publisher.pipeline(transaction=False) as pipe:
                    for data in batch:
                        pipe.publish(CHANNEL, data)
                    await pipe.execute()
            except (RedisError, OSError) as error:
                logger.error("fan-out: %d events not published (%s)", len(batch), error)

    async def _listen(self, subscribed: asyncio.Event) -> None:
        while True:
            pubsub = self._listener.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                self._set_healthy(True)
                subscribed.set()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        self._deliver(message["data"])
            except (RedisError, OSError) as error:
                self._set_healthy(False, error)
            finally:
                with contextlib.suppress(Exception):
                    await cast(Any, pubsub).aclose()  # typed in redis 8.2, untyped before
            await asyncio.sleep(RETRY)

    def _deliver(self, data: bytes) -> None:
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError:
            logger.error("fan-out: an event that is not JSON was dropped")
            return
        if not isinstance(event, dict) or event.get("from") == self.origin or self._handlers is None:
            return
        try:
            self._handlers[0](event)
        except Exception:
            logger.exception("fan-out: an event could not be handled: %s", event.get("kind"))

    def _set_healthy(self, healthy: bool, error: BaseException | None = None) -> None:
        if healthy == self.healthy:
            return
        self.healthy = healthy
        if self._handlers is None:
            return
        if healthy:
            logger.warning("fan-out: Redis at %s is reachable again", self.shown)
            self._handlers[2]()
        else:
            logger.error("fan-out: Redis at %s cannot be reached (%s): the game sockets are closed until "
                         "it is back", self.shown, error)
            self._handlers[1]()
