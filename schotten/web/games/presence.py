"""Presence: which seats have a socket, how many spectators watch, what their coming and going changes.

In a friend game being played (not turn-based) a seat gone for ``leave_timeout`` may be claimed
against: every client is sent a ``presence`` message when a seat comes or goes and when the wait is
over. In a timed game against the AI the human's clock pauses while no socket of theirs is
connected (``sync_clock``: stored before it is told). When spectators come or go, here or in another
process, every client is told their number (``watching``: the changes of ``WATCHING_DELAY`` seconds
told at once, so a crowd arriving is not told to everyone once per arrival).
"""

from __future__ import annotations

import asyncio

from ..core.errors import GameDamaged, StoreUnavailable
from ..core.vocab import Mode
from .catchup import CatchUp
from .context import Context
from .live import LiveGame
from .news import News
from .sockets import Connection

WATCHING_DELAY = 0.5
"""Seconds a change in the number of spectators waits, so the changes meanwhile are told at once."""


class Presence:
    """Seats arriving and leaving, here or (as they said) in other processes; owns the away timers
    and the clock syncs in flight."""

    def __init__(self, context: Context, news: News, catchup: CatchUp) -> None:
        self.context = context
        self.news = news
        self.catchup = catchup
        self._clock_tasks: set[asyncio.Task[None]] = set()
        self._watching: dict[str, asyncio.TimerHandle] = {}

    def arrived(self, game: LiveGame, conn: Connection | None) -> None:
        """A seat that was away is back (its state already says so): the others are told."""
        if game.away_timer is not None and not any(game.gone_since):
            game.away_timer.cancel()
        self._changed(game, conn)

    def departed(self, game: LiveGame, seat: int | None) -> None:
        """A socket of ``seat`` left: if none of that seat is left anywhere, it is away from now."""
        if seat is None or game.connected(seat):
            return
        game.gone_since[seat] = self.context.now()
        self._changed(game)
        if game.leaving_counts and not self.context.closing:
            if game.away_timer is not None:
                game.away_timer.cancel()
            delay = self.context.settings.leave_timeout + 0.05
            game.away_timer = asyncio.get_running_loop().call_later(delay, self.news.tell_presence, game)

    def moved(self, game: LiveGame, before: tuple[bool, bool]) -> None:
        """Another process's sockets of the game's seats changed: a seat that came is no longer away,
        one that left everywhere is."""
        if game.info.mode == Mode.AI:
            if self.context.conducting and game.connected_seats() != before:
                self._changed(game)
            return
        for seat in (0, 1):
            now = game.connected(seat)
            if now and not before[seat] and game.gone_since[seat] is not None:
                game.gone_since[seat] = None
                self.arrived(game, None)
            elif before[seat] and not now:
                self.departed(game, seat)

    async def sync_clock(self, game: LiveGame) -> None:
        """Run the clock of the seat whose clock should run now (an AI game's human pauses it by
        leaving), stored before it is told."""
        async with game.lock:
            clock = game.info.clock
            if clock is None:
                return
            seat, now = game.clock_seat(game.state, game.info.status), self.context.now()
            if clock.running == seat:
                return
            changed = clock.stop(now) if seat is None else clock.stop(now).start(seat, now)
            try:
                store = self.context.store
                if not await self.context.db(store.set_clock, game.info.id, changed, game.version):
                    await self.catchup.refreshed(game)
                    return
            except (StoreUnavailable, GameDamaged):
                return
            game.info.clock = changed
            if seat is not None:
                game.mark = now
        self.news.broadcast(game)
        self.news.wake_clocks()

    def watching(self, game: LiveGame) -> None:
        """The number of the game's spectators changed: every client is told it soon (once for all the
        changes until then)."""
        if self.context.closing or game.info.id in self._watching:
            return
        loop = asyncio.get_running_loop()
        self._watching[game.info.id] = loop.call_later(WATCHING_DELAY, self._tell_watching, game)

    def _tell_watching(self, game: LiveGame) -> None:
        self._watching.pop(game.info.id, None)
        self.news.tell_presence(game)

    def stop(self, games: list[LiveGame]) -> None:
        """Cancel the away timers of ``games`` and the spectators' counts still to tell."""
        for game in games:
            if game.away_timer is not None:
                game.away_timer.cancel()
        for handle in self._watching.values():
            handle.cancel()
        self._watching.clear()

    def _changed(self, game: LiveGame, arrived: Connection | None = None) -> None:
        """A seat came or went: an AI game's clock pauses or resumes; in a friend game every client is
        sent a ``presence`` message (who is away, whether it may claim the win)."""
        if game.info.mode == Mode.AI and game.info.clock is not None and not self.context.closing:
            task = asyncio.create_task(self.sync_clock(game))
            self._clock_tasks.add(task)
            task.add_done_callback(self._clock_tasks.discard)
        elif game.leaving_counts:
            self.news.tell_presence(game, arrived)
