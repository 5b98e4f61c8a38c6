"""The games this process serves, by id: loaded and replayed when asked for, damaged ones remembered."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from typing import NoReturn

from ...engine import GameState, Settings
from ..core.errors import NOT_BEGUN, NOTHING_AT_A_CLOSED_TABLE, NOTHING_YET, GameDamaged, ServiceError
from ..core.vocab import Status
from ..players.seats import MAX_ID
from ..storage.rows import ACTION, UNDO, GameInfo
from .context import Context
from .gamelog import LogError, ending_of, replay
from .live import LiveGame
from .news import News
from .ports import Cluster

logger = logging.getLogger("schotten.web")


class Tables:
    """The served games (``games``) and the damaged ones (``damaged``: their log does not replay)."""

    def __init__(self, context: Context, cluster: Cluster, news: News) -> None:
        self.context = context
        self.cluster = cluster
        self.news = news
        self.games: dict[str, LiveGame] = {}
        self.damaged: set[str] = set()
        self._load_lock = asyncio.Lock()

    async def live(self, game_id: str) -> LiveGame | None:
        """The game being served under ``game_id`` (loaded and replayed if needed), or None.

        A game whose log does not replay is damaged: logged once, then ``GameDamaged`` each time
        it is asked for. ``StoreUnavailable`` if the database cannot be read now."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        if not 1 <= len(game_id) <= MAX_ID:
            return None
        if game_id in self.damaged:
            raise GameDamaged()
        async with self._load_lock:
            game = self.games.get(game_id)
            if game is None:
                game = await self._replayed(game_id)
                if game is None:
                    return None
                self.games[game_id] = game
                self.cluster.holding(game)
        self.news.kick_ai(game)
        return game

    async def game(self, game_id: str) -> LiveGame:
        """The game ``game_id``; 404 if there is none."""
        game = await self.live(game_id)
        if game is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        game.used = time.monotonic()
        return game

    def add(self, info: GameInfo) -> LiveGame:
        """Serve the new table ``info`` (already stored), at its deal."""
        state = GameState.new(Settings.of(info.variant, info.rounds), info.seed)
        game = self.made(info, state, 0)
        self.games[info.id] = game
        return game

    def made(self, info: GameInfo, state: GameState, version: int,
             undos: tuple[int, int] = (0, 0)) -> LiveGame:
        """A served game of ``info`` at ``state`` (not yet in ``games``)."""
        settings = self.context.settings
        return LiveGame(info, state, version, undos, settings.undo_limit, self.context.now,
                        settings.leave_timeout)

    def readmit(self, game: LiveGame) -> None:
        """Serve ``game`` again if it was evicted while a client was joining it and no other copy was
        loaded meanwhile (the copy the client holds is then the one its changes reach)."""
        if self.games.setdefault(game.info.id, game) is game:
            game.used = time.monotonic()

    def expired(self, info: GameInfo) -> bool:
        """Whether ``info`` is an open table nobody joined within ``open_table_ttl`` of its opening."""
        age = (datetime.now(UTC) - info.created).total_seconds()
        return info.status == Status.OPEN and age > self.context.settings.open_table_ttl

    def damage(self, game: LiveGame, error: LogError) -> NoReturn:
        """A log that does not follow: the game is marked damaged (logged once)."""
        self.damaged.add(game.info.id)
        logger.error("game %s is damaged: its log does not follow from entry %d (%s)",
                     game.info.id, error.index, error)
        raise GameDamaged() from None

    async def _replayed(self, game_id: str) -> LiveGame | None:
        try:
            return await self.context.db(self._load, game_id)
        except LogError as error:
            if game_id not in self.damaged:
                self.damaged.add(game_id)
                logger.error("game %s is damaged: its log does not replay from entry %d (%s)",
                             game_id, error.index, error)
            raise GameDamaged() from None

    def _load(self, game_id: str) -> LiveGame | None:
        loaded = self.context.store.load(game_id)
        if loaded is None:
            return None
        info, entries = loaded
        undos = tuple(sum(1 for e in entries if e.kind == UNDO and e.seat == seat) for seat in (0, 1))
        state = replay(info.variant, info.rounds, info.seed, entries)
        game = self.made(info, state, len(entries), (undos[0], undos[1]))
        game.ending = ending_of(entries)
        game.decided = [any(e.kind == ACTION and e.seat == seat for e in entries) for seat in (0, 1)]
        marks = [m for m in (info.moved, info.clock.since if info.clock else None) if m is not None]
        game.mark = max(marks) if marks else info.created
        return game


def check_has_game(info: GameInfo, what: str) -> None:
    """Refuse (409) a request about ``what`` (a key of ``NOTHING_YET``) at the table ``info`` if no
    game was played there: a closed rematch table (its offer was withdrawn or declined before
    anyone played) or one waiting for its second player."""
    if info.status == Status.CLOSED:
        how = info.rematch_closed.state if info.rematch_closed is not None else "withdrawn or declined"
        raise ServiceError(409, f"this table was closed before its game began (the rematch offer was "
                           f"{how}): {NOTHING_AT_A_CLOSED_TABLE[what]}")
    if info.status == Status.OPEN:
        raise ServiceError(409, NOT_BEGUN.format(NOTHING_YET[what]))
