"""Catching up: this process's copy of a game brought up to what the database holds.

Another process may have stored a game's next entries (several processes), or a seat or clock
changed under this copy; the copy then reads what the database holds beyond it (``adopt`` of
``Store.load_since``), the engine checking every move again (``gamelog.advanced``).
"""

from __future__ import annotations

import contextlib

from ..core.errors import GameDamaged, StoreUnavailable
from ..storage.rows import ACTION, UNDO, Entry, GameInfo
from .context import Context
from .gamelog import LogError, advanced, ending_of
from .live import LiveGame
from .news import News
from .tables import Tables


def adopt(game: LiveGame, entries: list[Entry], info: GameInfo) -> int:
    """Make ``entries`` (those after the copy's) and the row ``info`` the game's (under its lock); the
    first move of the history that changed. ``LogError`` if the entries do not follow."""
    state = advanced(game.state, entries)
    kept = min(len(game.state.history), len(state.history))
    while kept and game.state.history[kept - 1] != state.history[kept - 1]:
        kept -= 1
    for entry in entries:
        if entry.kind == UNDO:
            game.undos[entry.seat] += 1
        elif entry.kind == ACTION:
            game.decided[entry.seat] = True
    game.ending = ending_of(entries) or game.ending
    game.state, game.version, game.info = state, game.version + len(entries), info
    marks = [m for m in (info.moved, info.clock.since if info.clock else None) if m is not None]
    game.mark = max(marks) if marks else info.created
    return kept


class CatchUp:
    """Brings served games up to the database and passes on what changed (``News.changed``)."""

    def __init__(self, context: Context, tables: Tables, news: News) -> None:
        self.context = context
        self.tables = tables
        self.news = news

    async def catch_up(self, game_id: str) -> None:
        """Bring this process's copy of ``game_id`` up to the database (another process changed it);
        a game not held here is loaded (the conductor loads a game whose AI is to move)."""
        game = self.tables.games.get(game_id)
        if game is None:
            with contextlib.suppress(GameDamaged, StoreUnavailable):
                await self.tables.live(game_id)
            return
        async with game.lock:
            await self.refreshed(game)

    async def refreshed(self, game: LiveGame) -> None:
        """Under the game's lock: catch up from the database (``caught_up``) and pass on what changed."""
        kept = await self.caught_up(game)
        if kept is not None:
            self.news.changed(game, kept)

    async def caught_up(self, game: LiveGame) -> int | None:
        """Under the game's lock: read what the database holds beyond this copy and make it the game's;
        the first move of the history that changed (None: nothing changed). A log that does not
        follow marks the game damaged."""
        loaded = await self.context.db(self.context.store.load_since, game.info.id, game.version)
        if loaded is None:
            return None
        info, entries = loaded
        if not entries and info == game.info:
            return None
        try:
            return adopt(game, entries, info)
        except LogError as error:
            self.tables.damage(game, error)
