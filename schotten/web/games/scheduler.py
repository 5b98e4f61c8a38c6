"""Fair AI scheduling: which waiting AI decision a worker takes next.

Every AI decision runs in a lane: ``cheap`` (levels whose bot does not search: a few
milliseconds) or ``search`` (MCTS levels, up to a second each). A lane has a fixed number of
slots, one per worker, and hands a worker only as many jobs as it has slots, so no job waits
inside the worker pool, behind jobs it cannot see. Each game has at most one decision at a
time (its AI loop waits for it), so a game whose job ends joins the back of the queue: the
games take turns. A waiting job of a game someone watches (a connected socket) goes before
every job of a game nobody watches; among either kind, the one waiting longest goes first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from ...bots.registry import LEVELS
from ..core.metrics import AI_QUEUE, AI_WAIT_SECONDS

CHEAP = "cheap"
SEARCH = "search"
SEARCH_BOTS = frozenset({"mcts"})
"""The bots that search (their decisions are expensive)."""


def lane_of(level: str) -> str:
    """The lane of an AI level's decisions: ``cheap`` or ``search`` (an unknown level searches)."""
    known = LEVELS.get(level)
    return CHEAP if known is not None and known.bot not in SEARCH_BOTS else SEARCH


@dataclass(eq=False)
class _Job:
    """A decision waiting for a slot: whether its game is watched is asked when a slot frees."""

    watched: Callable[[], bool]
    granted: asyncio.Future[None]
    since: float = field(default_factory=time.monotonic)


class Lane:
    """A fixed number of slots and the jobs waiting for one (see the module's docstring)."""

    def __init__(self, name: str, slots: int) -> None:
        self.name = name
        self.slots = max(1, slots)
        self.busy = 0
        self.waiting: list[_Job] = []

    @asynccontextmanager
    async def slot(self, watched: Callable[[], bool]) -> AsyncIterator[None]:
        """Hold one of the lane's slots (waiting for it fairly) for the body of the ``async with``."""
        await self._acquire(watched)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, watched: Callable[[], bool]) -> None:
        if self.busy < self.slots and not self.waiting:
            self.busy += 1
            AI_WAIT_SECONDS.observe(0.0)
            return
        job = _Job(watched, asyncio.get_running_loop().create_future())
        self.waiting.append(job)
        AI_QUEUE.inc()
        try:
            await job.granted
        except asyncio.CancelledError:
            if job in self.waiting:
                self.waiting.remove(job)
                AI_QUEUE.dec()
            elif job.granted.done() and not job.granted.cancelled():
                self._release()
            raise

    def _release(self) -> None:
        self.busy -= 1
        while self.busy < self.slots and self.waiting:
            job = self._next()
            self.waiting.remove(job)
            AI_QUEUE.dec()
            if job.granted.done():
                continue
            self.busy += 1
            AI_WAIT_SECONDS.observe(time.monotonic() - job.since)
            job.granted.set_result(None)

    def _next(self) -> _Job:
        """The job to run next: the longest waiting of a watched game, else the longest waiting."""
        for job in self.waiting:
            if job.watched():
                return job
        return self.waiting[0]
