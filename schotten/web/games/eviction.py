"""Eviction: loaded games nobody uses leave the cache (the database keeps them)."""

from __future__ import annotations

import asyncio
import logging
import time

from .context import Context
from .live import LiveGame
from .tables import Tables

logger = logging.getLogger("schotten.web")


class Eviction:
    """The periodic sweep of idle games (no client, no AI at work, unlocked); owns its task."""

    EVICTION_GRACE = 2.0
    """Seconds after its last use in which a game is never evicted, even over ``game_cache_size``."""
    SWEEP_EVERY = 1.0
    """The longest time between two sweeps, in seconds (a sweep looks at every loaded game once)."""

    def __init__(self, context: Context, tables: Tables) -> None:
        self.context = context
        self.tables = tables
        self.sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the periodic sweep (see ``sweep``)."""
        if self.sweeper is None and not self.context.closing:
            self.sweeper = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        interval = min(max(self.context.settings.game_idle_eviction / 2, 0.05), self.SWEEP_EVERY)
        while True:
            await asyncio.sleep(interval)
            try:
                self.sweep()
            except Exception:
                logger.exception("the sweep of idle games failed")

    def sweep(self) -> int:
        """Evict idle games unused for ``game_idle_eviction`` seconds, then the least recently used
        idle ones beyond ``game_cache_size``; how many went. An evicted game is loaded again when
        asked for."""
        settings, games = self.context.settings, self.tables.games
        now = time.monotonic()
        idle = sorted((g for g in games.values() if _idle(g)), key=lambda g: g.used)
        old = sum(1 for g in idle if now - g.used >= settings.game_idle_eviction)
        excess = len(games) - old - settings.game_cache_size
        spare = [g for g in idle[old:] if now - g.used >= self.EVICTION_GRACE]
        gone = idle[:old] + spare[:max(0, excess)]
        for game in gone:
            if games.get(game.info.id) is game:
                del games[game.info.id]
        return len(gone)


def _idle(game: LiveGame) -> bool:
    return not game.watched and not game.ai_busy and not game.lock.locked()
