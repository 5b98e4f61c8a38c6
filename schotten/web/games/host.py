"""The sockets' host (``sockets.Host``): the games a client asks for, its seat, its messages."""

from __future__ import annotations

import time

from ..core.errors import UNAVAILABLE, GameDamaged, StoreUnavailable, say, saying
from ..core.messages import (
    AbortMessage,
    ActionMessage,
    ChatMessage,
    ClaimVictoryMessage,
    ClientError,
    ClientMessage,
    HintMessage,
    MuteMessage,
    ResignMessage,
    SyncMessage,
    UndoMessage,
    WhyNotMessage,
    error_message,
)
from ..core.metrics import REFUSED
from ..core.vocab import Status
from .catchup import CatchUp
from .context import Context
from .endings import Endings
from .hints import Hints
from .live import LiveGame
from .news import News, presence_of
from .opening import Opening
from .outbound import state_text, why_not_text
from .play import Play
from .ports import Cluster, Talk
from .presence import Presence
from .sockets import Connection
from .tables import Tables

SPECTATORS = saying("This game has as many spectators as it may have ({limit}): try again later.")


class SocketHost:
    """Serves the game sockets: finds their game, seats them, hands each message to its part."""

    def __init__(self, context: Context, tables: Tables, news: News, cluster: Cluster, talk: Talk,
                 catchup: CatchUp, play: Play, endings: Endings, presence: Presence,
                 opening: Opening, hints: Hints) -> None:
        self.context = context
        self.tables = tables
        self.news = news
        self.cluster = cluster
        self.talk = talk
        self.catchup = catchup
        self.play = play
        self.endings = endings
        self.presence = presence
        self.opening = opening
        self.hints = hints

    async def find(self, game_id: str) -> LiveGame | None:
        """The game a socket asks for (see ``Tables.live``), its chat read; ClientError ``damaged`` or
        ``unavailable`` if it cannot be served (also while the other processes cannot be reached).
        With other processes, an open table is caught up first: its other seat may have been taken
        through another process a moment ago, and the client's first state would still say open."""
        if not self.cluster.healthy:
            raise ClientError("unavailable", "the server lost its link to its other processes (Redis): "
                              "reconnecting, try again in a moment")
        try:
            game = await self.tables.live(game_id)
            if game is not None:
                game.used = time.monotonic()
                if self.cluster.clustered and game.info.status == Status.OPEN:
                    await self.catchup.catch_up(game_id)
                await self.talk.load(game)
        except GameDamaged as error:
            raise ClientError("damaged", error.message) from None
        except StoreUnavailable:
            raise ClientError("unavailable", UNAVAILABLE) from None
        if game is not None:
            game.used = time.monotonic()
        return game

    async def seat_of(self, game: LiveGame, token: str) -> int | None:
        """The seat of ``game`` whose token this is, or None (with other processes, only once this copy
        of the game has caught up: the seat may have been taken through another process just now)."""
        seat = game.seat_of(token)
        if seat is None and self.cluster.clustered:
            await self.catchup.catch_up(game.info.id)
            seat = game.seat_of(token)
        return seat

    async def seat_of_session(self, game: LiveGame, session_id: str) -> int | None:
        """The seat of ``game`` played by the account logged in with ``session_id``, or None."""
        return await self.opening.seat_of_session(game, session_id)

    async def identify(self, game: LiveGame, conn: Connection, session_id: str | None) -> None:
        """Who reads through ``conn``: its seat's account, else its session's (None: a guest); the chat
        learns whose lines it hides from them (ClientError ``unavailable`` if the database cannot
        say now)."""
        reader = game.info.accounts[conn.seat] if conn.seat is not None else None
        try:
            if reader is None and conn.seat is None and session_id:
                account = await self.context.db(self.opening.accounts.of_session, session_id)
                reader = None if account is None else account.id
            conn.reader = reader
            if reader is not None:
                await self.talk.know(conn)
        except StoreUnavailable:
            raise ClientError("unavailable", UNAVAILABLE) from None

    def enter(self, game: LiveGame, conn: Connection) -> None:
        """A client arrives: it gets the state, its rooms' chat and, from now on, every change; a
        spectator beyond ``spectators_per_game`` is refused (ClientError ``limit``). A game evicted
        while the client was being seated is served again."""
        limit = self.context.settings.spectators_per_game
        if conn.seat is None and game.local_spectators() >= limit:
            REFUSED.labels("spectators").inc()
            raise ClientError("limit", f"this game has as many spectators as it may have ({limit}): "
                              "try again later", say(SPECTATORS, limit=limit))
        self.tables.readmit(game)
        was_away = conn.seat is not None and game.gone_since[conn.seat] is not None
        if conn.seat is not None:
            game.gone_since[conn.seat] = None
        conn.send(state_text(game, conn.seat))
        self.talk.enter(game, conn)
        game.connections.add(conn)
        self.cluster.present(game)
        if was_away:
            self.presence.arrived(game, conn)
        if conn.seat is None:
            self.presence.watching(game)
        elif game.spectators():
            conn.send(presence_of(game, conn.seat))
        self.news.kick_ai(game)

    async def receive(self, game: LiveGame, conn: Connection, message: ClientMessage) -> None:
        """Handle one client message; a refused one gets an error (and a stale one the state)."""
        try:
            if isinstance(message, ActionMessage):
                await self.play.act(game, conn.seat, message)
            elif isinstance(message, UndoMessage):
                await self.play.undo(game, conn.seat)
            elif isinstance(message, ChatMessage):
                await self.talk.say(game, conn, message)
            elif isinstance(message, MuteMessage):
                await self.talk.mute(game, conn, message)
            elif isinstance(message, SyncMessage):
                conn.send(state_text(game, conn.seat))
                self.news.kick_ai(game)
            elif isinstance(message, ResignMessage):
                await self.endings.resign(game, conn.seat)
            elif isinstance(message, AbortMessage):
                await self.endings.abort(game, conn.seat)
            elif isinstance(message, ClaimVictoryMessage):
                await self.endings.claim_victory(game, conn.seat)
            elif isinstance(message, WhyNotMessage):
                conn.send(why_not_text(game, conn.seat, message.stone))
            elif isinstance(message, HintMessage):
                conn.send(await self.hints.hint(game, conn.seat))
        except ClientError as error:
            conn.send(error_message(error.code, error.message, error.say))
            if error.code == "stale":
                conn.send(state_text(game, conn.seat))
        except StoreUnavailable:
            conn.send(error_message("unavailable", UNAVAILABLE))

    def leave(self, game: LiveGame, conn: Connection) -> None:
        """A client left: a finished game with no clients leaves the cache (the database keeps it)."""
        game.connections.discard(conn)
        game.used = time.monotonic()
        self.cluster.present(game)
        self.presence.departed(game, conn.seat)
        if conn.seat is None:
            self.presence.watching(game)
        idle = not game.connections and not game.ai_busy
        done = game.state.is_over or game.info.status == Status.CLOSED
        games = self.tables.games
        if idle and done and games.get(game.info.id) is game:
            del games[game.info.id]

    def drop_sockets(self, code: int) -> None:
        """Close every game socket with ``code`` (their pages reconnect)."""
        for game in self.tables.games.values():
            for conn in list(game.connections):
                conn.drop(code)
