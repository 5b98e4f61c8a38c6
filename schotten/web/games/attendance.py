"""Attendance: when a seat of each game last had a socket open here, written to the database.

Every ``LOOK_EVERY`` s the games whose seats have a socket open to this process, and that were not
marked for ``SEEN_EVERY`` s, are marked seen at once (``listing.mark_seen``: one transaction). The
lobby lists a game being played only if someone was there within ``PRESENT_FOR`` s; the timekeeper
closes a game against the AI that no human was at for ``ai_leave_after`` (``Endings.abandon_ai``).
Every process marks the games of its own sockets, so the lists and the closing agree across
processes (and survive a restart).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from ..core.errors import StoreUnavailable
from ..storage import listing
from .context import Context
from .tables import Tables

logger = logging.getLogger("schotten.web")


class Attendance:
    """The periodic marking of the games someone is at; owns its task and when it last marked each."""

    LOOK_EVERY = 2.0
    """Seconds between two looks at the games served here."""
    SEEN_EVERY = 15.0
    """Seconds between two marks of a game whose seat stays connected."""
    PRESENT_FOR = 120.0
    """Seconds a game stays in the lobby's games in progress after someone was last seen there."""

    def __init__(self, context: Context, tables: Tables) -> None:
        self.context = context
        self.tables = tables
        self.marked: dict[str, datetime] = {}
        """When each game served here was last marked seen."""
        self.looker: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the periodic marking (see ``mark``)."""
        if self.looker is None and not self.context.closing:
            self.looker = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.LOOK_EVERY)
            try:
                await self.mark()
            except StoreUnavailable:
                pass
            except Exception:
                logger.exception("marking the games someone is at failed")

    async def mark(self) -> int:
        """Mark seen now every game with a seat's socket open here that was not marked for
        ``SEEN_EVERY`` s; how many."""
        now = self.context.now()
        games = self.tables.games
        self.marked = {game_id: when for game_id, when in self.marked.items() if game_id in games}
        due = [game_id for game_id, game in list(games.items())
               if any(game.local_seats()) and self._due(game_id, now)]
        if due:
            await self.context.db(self._write, due, now)
            self.marked.update(dict.fromkeys(due, now))
        return len(due)

    def present_since(self) -> datetime:
        """The lobby lists the games being played that someone was at since this moment."""
        return self.context.now() - timedelta(seconds=self.PRESENT_FOR)

    def _due(self, game_id: str, now: datetime) -> bool:
        last = self.marked.get(game_id)
        return last is None or not 0 <= (now - last).total_seconds() < self.SEEN_EVERY

    def _write(self, game_ids: list[str], now: datetime) -> None:
        with self.context.store.use() as session, session.begin():
            listing.mark_seen(session, game_ids, now)
