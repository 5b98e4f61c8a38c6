"""The web app's service: what the routes call, put together from the parts that do the work.

| part                        | job                                                          |
|-----------------------------|--------------------------------------------------------------|
| ``games.authority.Authority`` | the games being served: tables, seats, actions, undo, the AI |
| ``rematch.rematcher.Rematcher`` | rematch offers (their states are in ``core.offer``)      |
| ``games.sockets.SocketServer`` | the WebSocket transport (``games.host`` is its host)      |
| ``talk.chat.Chat``          | each game's chat                                              |
| ``cluster.peers.Peers``     | the other processes (with Redis; alone: ``games.ports.Alone``) |
| ``storage.store.Store``     | the database                                                  |
| ``players.accounts.Accounts`` | accounts, passwords and sessions                            |
| ``reviews.requests.Reviews`` | finished games' reviews: the queue and this process's worker |
| ``analysis.board.AnalysisBoard`` | the analysis board: a pasted position's figures |
| ``analysis.editor.Editor`` | the analysis board's hand editor: one edit of a position |
| ``analysis.live.LiveAnalysis`` | one's own game in play analysed, at a table with hints on |
| ``community.blocks.Blocks``, ``community.follows.Follows`` | blocks and follows between players |
| ``games.channels.Channels`` | each signed-in player's own socket (``/ws/me``), across processes |
| ``games.closing.Closing`` | a banned account's or a logged-out session's sockets closed on every process |
| ``tournaments.running.Tournaments`` | tournaments, their director and sockets (``/ws/tournaments/{id}``) |

``GameService`` starts and stops them and answers the read-only requests (the lobby, a
browser's own tables, a game's summary, record and replay).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket

from ..engine.record import record_of
from .analysis.board import AnalysisBoard
from .analysis.editor import Editor
from .analysis.live import LiveAnalysis
from .community.blocks import Blocks
from .community.follows import Follows
from .core.errors import ServiceError, StoreUnavailable
from .core.schemas import ClosedOffer, CreateTable, GameSummary, SeatGrant, Table
from .core.settings import WebSettings
from .core.vocab import Status
from .edge.quotas import UNKNOWN_ADDRESS
from .games import closing
from .games.ai import AiPool
from .games.authority import Authority
from .games.channels import KIND, Channels
from .games.gamelog import standing
from .games.live import LiveGame
from .games.outbound import replay_steps, table_of
from .games.ports import Alone, Cluster
from .games.sockets import SocketServer
from .games.tables import check_has_game
from .players import ratings
from .players.accounts import AccountRef, Accounts
from .players.people import Seated, seated
from .players.seats import cookie_tokens, seat_of_token
from .rematch.rematcher import Rematcher
from .reviews.queue import ReviewQueue
from .reviews.requests import Reviews
from .reviews.worker import ReviewWorker
from .storage.rows import GameInfo
from .storage.store import Store
from .talk.chat import Chat
from .tournaments.channel import KIND as TOURNAMENT_KIND
from .tournaments.results import both, recording
from .tournaments.running import Tournaments

if TYPE_CHECKING:
    from .cluster.peers import Peers

REPLAY_CACHE = 16
"""How many finished games' replays are kept built."""


class GameService:
    """Every game the server serves, its storage, its AI pool, its sockets and its rematches."""

    def __init__(self, settings: WebSettings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else Store(settings.database_url, settings.db_busy_timeout,
                                                           shared=bool(settings.redis_url))
        self.store.on_finished = both(ratings.rate_finished,
                                      recording(lambda ids: self.tournaments.finished(ids)))
        self.ai = AiPool(settings.ai_workers, settings.ai_processes)
        self.new_seed: Callable[[], int] = lambda: secrets.randbits(63)
        """Where each new game's seed comes from (tests fix it)."""
        peers = _peers(settings)
        self.cluster: Cluster = peers if peers is not None else Alone()
        self.blocks = Blocks(self.store)
        self.follows = Follows(self.store)
        self.chat = Chat(settings, self.store, self.cluster, self.blocks)
        self.authority = Authority(settings, self.store, self.ai, lambda: self.new_seed(), self.chat,
                                   self.cluster)
        self.channels = Channels(settings, self.authority.accounts, self.authority.quotas)
        self.closing = closing.Closing(self.authority.games, self.channels)
        if peers is not None:
            peers.serve(self.authority)
            peers.hear(KIND, self.channels.heard)
            peers.hear(closing.KIND, self.closing.heard)
            self.channels.relay = self.closing.relay = peers.relay
        self.db = self.authority.context.db
        self.games: dict[str, LiveGame] = self.authority.games
        self.rematches = Rematcher(self.authority)
        self.quotas = self.authority.quotas
        self.accounts: Accounts = self.authority.accounts
        self.sockets = SocketServer(settings, self.authority.host, self.quotas)
        queue = ReviewQueue(self.store, settings.review_lease)
        self.reviews = Reviews(self.authority.context, queue, ReviewWorker(queue, settings))
        self.analysis = AnalysisBoard(settings.analysis_iterations, settings.analysis_rate, self.ai)
        self.editor = Editor(settings.analysis_edit_rate)
        self.live_analysis = LiveAnalysis(self.authority, settings.analysis_iterations)
        self.tournaments = Tournaments(self.authority)
        if peers is not None:
            peers.hear(TOURNAMENT_KIND, self.tournaments.channel.heard)
            self.tournaments.channel.relay = peers.relay
        self._replays: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()

    async def start(self) -> None:
        """Check the database (``Store.check``: ``StoreUnavailable`` naming the path or URL if it
        cannot be used), create the tables if needed and resume every AI whose turn it is."""
        await self.db(self.store.check)
        self.tournaments.channel.bind(asyncio.get_running_loop())
        await self.authority.start()
        self.reviews.worker.start()
        if self.settings.tournaments_director:
            self.tournaments.start()

    async def stop(self) -> None:
        """Stop the AI, store the entries still queued and close the database."""
        await self.tournaments.stop()
        await self.authority.stop()
        await asyncio.to_thread(self.reviews.worker.stop)
        await self.authority.writer.stop()
        self.ai.shutdown()
        self.store.close()

    async def serve(self, socket: WebSocket, game_id: str) -> None:
        """Serve one WebSocket client of a game until it leaves (or is dropped)."""
        await self.sockets.serve(socket, game_id)

    # ------------------------------------------------------------ changes (see their parts)

    async def live(self, game_id: str) -> LiveGame | None:
        """The game being served under ``game_id`` (loaded if needed), or None."""
        return await self.authority.tables.live(game_id)

    async def create(self, request: CreateTable, address: str = UNKNOWN_ADDRESS,
                     account: AccountRef | None = None) -> SeatGrant:
        """Open a new table for a client at ``address`` (``Opening.create``)."""
        return await self.authority.opening.create(request, address, account)

    async def join(self, game_id: str, nickname: str | None, account: AccountRef | None = None) -> SeatGrant:
        """Take the free seat of a table (``Opening.join``)."""
        return await self.authority.opening.join(game_id, nickname, account)

    async def rematch(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                      offer: str | None = None, address: str = UNKNOWN_ADDRESS) -> SeatGrant:
        """Ask for a finished game's rematch from ``address``, or accept its offer (``Rematcher.ask``)."""
        return await self.rematches.ask(game_id, token, cookies, offer, address)

    async def withdraw_rematch(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                               offer: str | None = None) -> ClosedOffer:
        """Withdraw one's rematch offer (``Rematcher.withdraw``)."""
        return await self.rematches.withdraw(game_id, token, cookies, offer)

    async def decline_rematch(self, game_id: str, token: str | None, cookies: Mapping[str, str],
                              offer: str | None = None) -> ClosedOffer:
        """Decline the other player's rematch offer (``Rematcher.decline``)."""
        return await self.rematches.decline(game_id, token, cookies, offer)

    # ------------------------------------------------------------ reading

    async def tables(self) -> list[Table]:
        """The lobby: the ``table_limit`` newest open tables not expired, then the ``table_limit``
        newest games in progress someone is at, then the ``table_limit`` newest finished games
        (separate lists, so a flood of open tables cannot push the games being played out;
        ``storage.listing``)."""
        since = datetime.now(UTC) - timedelta(seconds=self.settings.open_table_ttl)
        present = self.authority.attendance.present_since()
        infos = await self.db(self.store.lobby, self.settings.table_limit, since, present)
        seats = await self.db(self._seated, infos)
        return [table_of(info, self._turn(info.id), seats.get(info.id)) for info in infos]

    def _seated(self, infos: list[GameInfo]) -> dict[str, Seated]:
        """The accounts' names and ratings at each of these tables (blocking: ``people.seated``)."""
        with self.store.use() as session:
            return seated(session, infos, self.authority.now())

    def _turn(self, game_id: str) -> int | None:
        """The seat to move in ``game_id`` if it is loaded and being played, else None."""
        game = self.games.get(game_id)
        return None if game is None or game.finished else game.state.turn

    async def _loaded_turn(self, info: GameInfo) -> int | None:
        """The seat to move in the game ``info`` while it is played (loaded to know it), else None."""
        if info.status != Status.PLAYING:
            return None
        with contextlib.suppress(ServiceError, StoreUnavailable):
            await self.authority.tables.live(info.id)
        return self._turn(info.id)

    async def mine(self, cookies: Mapping[str, str], account: AccountRef | None = None) -> list[Table]:
        """The tables whose seat this browser holds (a valid seat cookie) or its account plays, those
        where it is its seat's move first, then newest first, each with ``seat`` and ``your_turn`` set;
        at most ``table_limit`` of them (an open table that expired is left out: it cannot be joined
        any more)."""
        tokens = cookie_tokens(cookies)
        ids = sorted(tokens)[: 4 * self.settings.table_limit]
        infos = {info.id: info for info in await self.db(self.store.infos, ids)}
        if account is not None:
            limit = self.settings.table_limit
            owned = await self.db(self.store.games_of_account, account.id, limit)
            infos.update({info.id: info for info in owned})
        seats = await self.db(self._seated, list(infos.values()))
        found = []
        for info in sorted(infos.values(), key=lambda info: info.created, reverse=True):
            seat = _seat_held(info, tokens.get(info.id), account)
            if seat is not None and not self.authority.tables.expired(info):
                turn = await self._loaded_turn(info)
                table = table_of(info, turn, seats.get(info.id))
                found.append(table.model_copy(update={"seat": seat, "your_turn": turn == seat}))
        found.sort(key=lambda table: not table.your_turn)
        return found[: self.settings.table_limit]

    async def summary(self, game_id: str) -> GameSummary:
        """A game's table and version."""
        game = await self.authority.tables.game(game_id)
        seats = await self.db(self._seated, [game.info])
        return GameSummary(**table_of(game.info, None, seats.get(game_id)).model_dump(), version=game.version)

    async def record(self, game_id: str, what: str = "record") -> dict[str, Any]:
        """The game record of a finished game (409 while it is played: it would reveal hidden cards;
        409 too at a closed rematch table, where no game was played, and at one still waiting for
        its second player; the refusal names ``what`` was asked for)."""
        game = await self._finished(game_id, what)
        names = [p or f"player {i + 1}" for i, p in enumerate(game.info.players)]
        clock = game.info.clock
        decision_ms = None
        if clock is not None:
            loaded = await self.db(self.store.load, game_id)
            decision_ms = [e.spent_ms for e in standing(loaded[1])] if loaded is not None else None
        ending = {"reason": str(game.ending[0]), "seat": game.ending[1]} if game.ending else None
        changes, unrated = await self.db(self._rating_changes, game_id) if game.info.rated else ([], None)
        return record_of(game.state, players=names, created=game.info.created.isoformat(),
                         time_control=clock.control.to_dict() if clock else None,
                         decision_ms=decision_ms, ending=ending, ratings=changes or None, unrated=unrated,
                         hints=game.info.hints_used if game.info.hints else None)

    def _rating_changes(self, game_id: str) -> tuple[list[dict[str, float] | None], str | None]:
        """What the game did to each seat's rating (``ratings.changes_of_game``), and why it changed
        none if it was not rated (``ratings.unrated_of``; blocking)."""
        with self.store.use() as session:
            return ratings.changes_of_game(session, game_id), ratings.unrated_of(session, game_id)

    async def replay(self, game_id: str) -> dict[str, Any]:
        """A finished game step by step, every card shown, and how it ended off the board if it did
        (``ended``: ``{"reason", "seat"}`` or None; 409 while it is played, or at a closed rematch
        table or one waiting for its second player: nothing was played there)."""
        game = await self._finished(game_id, "replay")
        steps = self._replays.get(game_id)
        if steps is None:
            steps = await asyncio.to_thread(replay_steps, game.state)
            self._replays[game_id] = steps
            while len(self._replays) > REPLAY_CACHE:
                self._replays.popitem(last=False)
        self._replays.move_to_end(game_id)
        seats = await self.db(self._seated, [game.info])
        table = table_of(game.info, None, seats.get(game_id))
        ended = {"reason": str(game.ending[0]), "seat": game.ending[1]} if game.ending else None
        return {"table": table.model_dump(mode="json"), "steps": steps, "ended": ended}

    async def _finished(self, game_id: str, what: str) -> LiveGame:
        """The finished game ``game_id``; 409 for a table where no game was played (see
        ``check_has_game``) or a game not over yet (its ``what`` would reveal hidden cards)."""
        game = await self.authority.tables.game(game_id)
        check_has_game(game.info, what)
        if not game.finished:
            raise ServiceError(
                409, f"the game is still being played: its {what} would reveal hidden cards (R10.4)"
            )
        return game


def _peers(settings: WebSettings) -> Peers | None:
    """The other processes over Redis when ``redis_url`` is set (only then is the cluster's code
    loaded); None for a process alone."""
    if not settings.redis_url:
        return None
    from .cluster.peers import Peers

    return Peers(settings)


def _seat_held(info: GameInfo, token: str | None, account: AccountRef | None) -> int | None:
    """The seat of ``info`` this browser holds: by its seat token, else by its account."""
    seat = seat_of_token(info, token) if token else None
    if seat is None and account is not None and account.id in info.accounts:
        seat = info.accounts.index(account.id)
    return seat
