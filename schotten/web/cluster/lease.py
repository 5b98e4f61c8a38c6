"""A lease: work that must be done by one process at a time (the AI's moves, clock flags and
abandonments) is done by the process holding it, and taken over by another when it dies.

``RedisLease`` holds a Redis key: taken with ``SET key <process> NX PX ttl``, renewed every
``ttl / 3`` by a script that extends it only while this process still holds it, given back on a
clean stop. A process that dies stops renewing: the key expires after ``ttl`` and the next process to
try (every ``ttl / 3``) takes it. A process that cannot reach Redis gives its lease up at once
(``on_lost``), before the key could expire and be taken by another. Whatever the lease guards is
still checked by the database (a log entry is stored once at its index), so two holders for a
moment could not both store a change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

logger = logging.getLogger("schotten.web")

Step = Callable[[], Awaitable[None]]
TTL = 3.0
"""Seconds a lease lasts unless renewed (a dead holder's work is taken over within about this)."""
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class RedisLease:
    """The lease ``key`` in Redis, for the process named ``origin`` (see the module's docstring)."""

    def __init__(self, url: str, key: str, origin: str, ttl: float = TTL) -> None:
        self.key = key
        self.origin = origin
        self.ttl = ttl
        self.held = False
        self._client = aioredis.Redis.from_url(url, socket_connect_timeout=ttl / 3, socket_timeout=ttl / 3)
        self._renew = self._client.register_script(_RENEW)
        self._release = self._client.register_script(_RELEASE)
        self._task: asyncio.Task[None] | None = None

    def start(self, on_gained: Step, on_lost: Step) -> None:
        """Try for the lease now and every ``ttl / 3``; ``on_gained`` when taken, ``on_lost`` when lost."""
        self._task = asyncio.create_task(self._run(on_gained, on_lost))

    async def _run(self, on_gained: Step, on_lost: Step) -> None:
        while True:
            try:
                was = self.held
                self.held = await self._hold()
            except (RedisError, OSError):
                self.held = False
            if self.held and not was:
                logger.warning("lease %s taken by %s", self.key, self.origin)
                await _guarded(on_gained)
            elif was and not self.held:
                logger.warning("lease %s lost by %s", self.key, self.origin)
                await _guarded(on_lost)
            await asyncio.sleep(self.ttl / 3)

    async def _hold(self) -> bool:
        """Take the lease if it is free, or renew it if this process holds it; whether it holds it."""
        ttl_ms = int(self.ttl * 1000)
        if self.held:
            return bool(await self._renew(keys=[self.key], args=[self.origin, ttl_ms]))
        return bool(await self._client.set(self.key, self.origin, nx=True, px=ttl_ms))

    async def stop(self) -> None:
        """Stop trying, and give the lease back if this process holds it (another takes it at once)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.held:
            with contextlib.suppress(RedisError, OSError):
                await self._release(keys=[self.key], args=[self.origin])
            self.held = False
        with contextlib.suppress(Exception):
            await self._client.aclose()


async def _guarded(step: Step) -> None:
    try:
        await step()
    except Exception:
        logger.exception("a lease's step failed")
