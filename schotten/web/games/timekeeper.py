"""The timekeeper: games lost on time at their deadline, idle games closed as abandoned, and the
server's heartbeat, whether or not anyone is connected.

Deadlines live in the database (``games.deadline``), so the timekeeper asks the database, not the
games in memory: a game nobody has loaded since a restart still loses on time. It wakes at the next
deadline (at most ``POLL`` seconds later, or at once when a clock changes: ``wake``), ends every
game whose clock ran out (``Endings.flag`` checks again under the game's lock), closes the untimed
friend games with no move for ``abandon_after`` and the games against the AI no human is at
(``attendance``) every ``ABANDON_EVERY`` seconds, and notes every
``BEAT_EVERY`` seconds that the server runs (``Store.beat``): on start-up the time since the last
beat is given back to every running clock (``Store.give_back_downtime``), so the time the server was
down costs no one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from ..core.errors import GameDamaged, StoreUnavailable
from ..storage import listing
from .context import Context
from .endings import Endings
from .ports import Cluster

logger = logging.getLogger("schotten.web")


class Timekeeper:
    """Flags, abandonment and heartbeats (see the module's docstring)."""

    POLL = 1.0
    """The longest sleep between two looks at the deadlines, in seconds."""
    BEAT_EVERY = 5.0
    ABANDON_EVERY = 60.0

    def __init__(self, context: Context, endings: Endings, cluster: Cluster) -> None:
        self.context = context
        self.endings = endings
        self.cluster = cluster
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_beat = 0.0
        self._last_abandon = float("-inf")
        self.next_deadline: datetime | None = None
        """The earliest deadline after the last look (None: no clock ran then)."""

    async def give_back_downtime(self) -> float:
        """At start-up: give every running clock the time since the server last ran; the seconds. Of
        several processes (each beats while it serves), only a time when none served counts (more than
        two beats), and the others' copies of the clocks then catch up."""
        context = self.context
        at_least = 2 * self.BEAT_EVERY if self.cluster.clustered else 0.0
        down = await context.db(context.store.give_back_downtime, context.now(), at_least)
        if down > 0:
            logger.info("the server was down %.1f s: every running clock is given that time back", down)
            self.cluster.clocks_moved()
        return down

    def start(self) -> None:
        """Start the loop."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        """Stop the loop and note the moment the server stopped (the next start gives it back)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        with contextlib.suppress(StoreUnavailable):
            await self.context.db(self.context.store.beat, self.context.now())

    def wake(self) -> None:
        """Look at the deadlines again now (a clock started, stopped or changed)."""
        self._wake.set()

    def expect(self, deadline: datetime) -> None:
        """Another process set a clock running out at ``deadline``: look again now if it comes first."""
        if self.next_deadline is None or deadline < self.next_deadline:
            self.wake()

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            delay = self.POLL
            try:
                delay = await self.check()
                if loop.time() - self._last_beat >= self.BEAT_EVERY:
                    await self.context.db(self.context.store.beat, self.context.now())
                    self._last_beat = loop.time()
            except StoreUnavailable:
                pass
            except Exception:
                logger.exception("the timekeeper failed; it tries again")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, min(delay, self.POLL))):
                    await self._wake.wait()

    async def check(self) -> float:
        """End every game whose clock ran out (and, now and then, the abandoned ones); the seconds
        until the next deadline."""
        context = self.context
        now = context.now()
        due, later = await context.db(context.store.deadlines, now)
        self.next_deadline = later
        for game_id in due:
            with contextlib.suppress(GameDamaged):
                await self.endings.flag(game_id)
        await self._abandon()
        if due:
            return 0.0
        return self.POLL if later is None else (later - context.now()).total_seconds()

    async def _abandon(self) -> int:
        loop = asyncio.get_running_loop()
        if loop.time() - self._last_abandon < self.ABANDON_EVERY:
            return 0
        self._last_abandon = loop.time()
        return await self.abandon_idle()

    async def abandon_idle(self) -> int:
        """Close as abandoned every untimed friend game with no move for ``abandon_after``, and every
        game against the AI that no human was at for ``ai_leave_after`` (a turn-based one: for
        ``abandon_after``); how many."""
        context = self.context
        now, settings = context.now(), context.settings
        before = now - timedelta(seconds=settings.abandon_after)
        ids = await context.db(context.store.idle_friend_games, before)
        left = await context.db(self._left_ai, now - timedelta(seconds=settings.ai_leave_after), before)
        closed = 0
        for game_id in ids:
            with contextlib.suppress(GameDamaged):
                closed += await self.endings.abandon(game_id)
        for game_id in left:
            with contextlib.suppress(GameDamaged):
                closed += await self.endings.abandon_ai(game_id)
        return closed

    def _left_ai(self, before: datetime, turn_based_before: datetime) -> list[str]:
        with self.context.store.use() as session:
            return listing.left_ai_games(session, before, turn_based_before)
