"""The server's authority over games: tables, seats, actions, undo, the AI and the sockets.

``GameService`` keeps each game being served as a ``LiveGame``: its row, its state (a
cache rebuilt from the log), its clients and an ``asyncio.Lock``, so one change at a
time reaches a game. A change is checked against the engine, written to the log (with
the game's status, in one transaction) and only then applied to the cache; every client
then gets its own view (R10) on its own queue, never waited on under the lock.
Store calls run in worker threads; AI decisions run in the AI pool (see ``ai``). A
finished friend game's rematch is opened, its seats taken, and its offer withdrawn or
declined, under the finished game's lock (see ``GameService.rematch`` and
``GameService.withdraw_rematch``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from starlette.websockets import WebSocket

from ..engine import ACTIONS, Action, GameState, NotationError, Settings, parse_action
from ..engine.actions import action_parts
from ..engine.explain import claim_proof, formations
from ..engine.record import record_of
from ..engine.view import public_log, reveal, round_board, view
from .ai import AiPool, decision_seed
from .gamelog import LogError, rebuilt, replay, undo_notation, undo_span
from .messages import (
    ActionMessage,
    ClientError,
    ErrorCode,
    SyncMessage,
    UndoMessage,
    error_message,
    parse_client_message,
)
from .schemas import ClosedOffer, CreateTable, GameSummary, SeatGrant, Table
from .settings import WebSettings
from .sockets import CLOSE_TIMEOUT, Connection, RateLimit
from .store import (
    ACTION,
    DECLINED,
    UNDO,
    WITHDRAWN,
    ClosedRematch,
    Entry,
    GameInfo,
    Rematch,
    Store,
)
from .vocab import Mode, Status

logger = logging.getLogger("schotten.web")

T = TypeVar("T")
REPLAY_CACHE = 16
SEED_RANGE = 2**63
"""Seeds are 63-bit numbers (a signed 64-bit column holds them)."""
SEED_STEPS = 256
"""How many seeds a rematch tries to find one its other seat begins (see ``seed_begun_by``)."""
NO_FREE_SEAT = "this table has no free seat: you can watch the game instead"
"""The error of a seat asked for at a table with none free."""
TOO_LATE = "too late: the other player took the seat, the rematch has started"
"""The error of an offer withdrawn or declined after it was accepted."""
MAX_REMATCH_OFFERS = 5
"""How many rematch offers a finished game may have in all: after that many were withdrawn or
declined, asking again is refused (429), so nobody is pestered with offer after offer."""
NOTHING_AT_A_CLOSED_TABLE = {
    "record": "there is no game record to download",
    "replay": "there is nothing to replay",
    "rematch": "there is no game here to have a rematch of: answer or ask from the page of the game before",
}
"""What each request needing a game is told at a closed rematch table (see ``closed_table_error``)."""
NOTHING_YET = {
    "record": "there is no game record to download yet",
    "replay": "there is nothing to replay yet",
    "rematch": "there is no game to have a rematch of yet: a rematch can be asked for once a game "
               "here is over",
}
"""What each request needing a game is told at a table waiting for its second player (see
``check_has_game``)."""
NOT_BEGUN = "the game has not begun yet: this table is waiting for its second player, so {}"
"""The refusal (409) of a request needing a game at an open table, filled in from ``NOTHING_YET``."""


class ServiceError(Exception):
    """A refused API request: the HTTP status and a clear English message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def token_hash(token: str) -> str:
    """What is stored of a seat token (tokens are long random strings, so SHA-256 is enough)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A new secret seat token."""
    return secrets.token_urlsafe(24)


SEAT_COOKIE = "seat_"
"""The prefix of the cookie holding a seat's token (``seat_{game id}``)."""


def seat_of_token(info: GameInfo, token: str) -> int | None:
    """The seat of the game ``info`` whose token this is, or None (compared in constant time)."""
    digest = token_hash(token)
    found = None
    for seat, stored in enumerate(info.token_hashes):
        if stored is not None and hmac.compare_digest(stored, digest):
            found = seat
    return found


class LiveGame:
    """A game being served: its row, its state, its version (log length), clients and lock."""

    def __init__(self, info: GameInfo, state: GameState, version: int) -> None:
        self.info = info
        self.state = state
        self.version = version
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.ai_task: asyncio.Task[None] | None = None

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is, or None (compared in constant time)."""
        return seat_of_token(self.info, token)

    @property
    def ai_to_move(self) -> bool:
        """Whether the decision now belongs to this game's AI."""
        info = self.info
        return (
            info.mode == Mode.AI
            and info.ai_seat is not None
            and info.status == Status.PLAYING
            and not self.state.is_over
            and self.state.turn == info.ai_seat
        )


def seed_begun_by(seed: int, settings: Settings, first: int) -> int:
    """The first seed from ``seed`` on (``seed``, ``seed + 1``, ...) whose match seat ``first`` begins.

    Who begins comes from the seed (R2.3), so this keeps the seed as random as ``seed`` except
    for who begins; half the seeds qualify (after ``SEED_STEPS`` misses, all but impossible,
    ``seed`` itself is kept).
    """
    for step in range(SEED_STEPS):
        candidate = (seed + step) % SEED_RANGE
        if GameState.new(settings, candidate).first == first:
            return candidate
    return seed


def rematch_of(info: GameInfo) -> dict[str, Any] | None:
    """A finished game's rematch as the state message tells it: its id, who asked, whether it was accepted."""
    link = info.rematch
    return None if link is None else {"id": link.id, "by": link.by, "accepted": link.accepted}


def closed_offer_of(info: GameInfo) -> dict[str, Any] | None:
    """The closed rematch offer the state message tells of: its table, who asked, why it was closed."""
    closed = info.rematch_closed
    return None if closed is None else _told_offer(closed)


def _told_offer(closed: ClosedRematch) -> dict[str, Any]:
    """A closed offer as clients are told it (state messages, answers to withdraw and decline)."""
    return {"id": closed.id, "by": closed.by, "reason": closed.reason}


def table_of(info: GameInfo) -> Table:
    """A game row as the lobby shows it."""
    return Table(
        id=info.id,
        variant=info.variant,
        rounds=info.rounds,
        mode=info.mode,
        level=info.level,
        players=list(info.players),
        status=info.status,
        created=info.created.isoformat(),
        winner=info.winner,
        rematch=info.rematch.id if info.rematch is not None else None,
        rematch_of=info.rematch_of,
    )


def replay_steps(state: GameState) -> list[dict[str, Any]]:
    """Step 0 (the deal) and the position after every move of a finished game, everything shown."""
    step = GameState.new(state.settings, state.seed)
    steps: list[dict[str, Any]] = [{"action": None, "mover": None, "state": reveal(step, finished=True)}]
    for action_id, mover in zip(state.history, state.movers, strict=True):
        step.apply_id(action_id)
        shown = reveal(step, finished=True)
        steps.append({"action": str(ACTIONS[action_id]), "mover": mover, "state": shown})
    return steps


def state_message(game: LiveGame, seat: int | None) -> dict[str, Any]:
    """The state message for one client of ``game``: ``seat``'s view (R10) and what goes with it."""
    state = game.state
    seen = view(state, seat)
    last = {"action": seen.history[-1], "mover": seen.movers[-1]} if seen.history else None
    claims = {str(s + 1): claim_proof(state, state.turn, s).to_dict() for s in seen.claimable}
    can_undo = (
        seat is not None and game.info.status == Status.PLAYING and isinstance(undo_span(state, seat), int)
    )
    return {
        "type": "state",
        "version": game.version,
        "seat": seat,
        "players": list(game.info.players),
        "view": seen.to_dict(),
        "last": last,
        "can_undo": can_undo,
        "claims": claims,
        "legal": _legal(game, seat),
        "auto_draw": seat == state.turn and state.draw_is_forced,
        "formations": formations(state),
        "log": public_log(state, seat),
        "round_end": round_board(state, len(state.round_outcomes) - 1),
        "status": game.info.status,
        "reveal": reveal(state) if state.is_over else None,
        "rematch": rematch_of(game.info),
        "rematch_of": game.info.rematch_of,
        "rematch_closed": closed_offer_of(game.info),
    }


def _legal(game: LiveGame, seat: int | None) -> list[dict[str, Any]]:
    """The seat's legal actions as data (``action_parts``) while its game is played, else none."""
    state = game.state
    if seat is None or seat != state.turn or state.is_over or game.info.status != Status.PLAYING:
        return []
    return [action_parts(i) for i in state.legal_action_ids()]


class GameService:
    """Every game the server serves, its storage, and its AI pool."""

    def __init__(self, settings: WebSettings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else Store(settings.database_url)
        self.ai = AiPool(settings.ai_workers, settings.ai_processes)
        self.games: dict[str, LiveGame] = {}
        self._load_lock = asyncio.Lock()
        self._replays: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._closing = False
        self.new_seed: Callable[[], int] = lambda: secrets.randbits(63)
        """Where each new game's seed comes from (tests fix it)."""

    async def _db(self, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(call, *args)

    # ------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Create the tables if needed and resume every AI whose turn it is."""
        await self._db(self.store.create_schema)
        for game_id in await self._db(self.store.games_in_play, Mode.AI):
            try:
                await self.live(game_id)
            except LogError:
                logger.exception("game %s cannot be resumed", game_id)

    async def stop(self) -> None:
        """Stop the AI and close the database."""
        self._closing = True
        tasks = [g.ai_task for g in self.games.values() if g.ai_task is not None and not g.ai_task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.ai.shutdown()
        self.store.close()

    # ------------------------------------------------------------ games

    async def live(self, game_id: str) -> LiveGame | None:
        """The game being served under ``game_id`` (loaded and replayed if needed), or None."""
        game = self.games.get(game_id)
        if game is not None:
            return game
        if not 1 <= len(game_id) <= 32:
            return None
        async with self._load_lock:
            game = self.games.get(game_id)
            if game is None:
                game = await self._db(self._load, game_id)
                if game is None:
                    return None
                self.games[game_id] = game
        self.kick_ai(game)
        return game

    def _load(self, game_id: str) -> LiveGame | None:
        loaded = self.store.load(game_id)
        if loaded is None:
            return None
        info, entries = loaded
        state = replay(info.variant, info.rounds, info.seed, entries)
        return LiveGame(info, state, len(entries))

    async def _game(self, game_id: str) -> LiveGame:
        game = await self.live(game_id)
        if game is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        return game

    async def tables(self) -> list[Table]:
        """The most recent tables: open ones, games in progress and finished games."""
        return [table_of(info) for info in await self._db(self.store.recent, self.settings.table_limit)]

    async def mine(self, cookies: Mapping[str, str]) -> list[Table]:
        """The tables whose seat this browser holds (a valid ``seat_{id}`` cookie), newest first,
        each with ``seat`` set; at most ``table_limit`` of them."""
        tokens = {name[len(SEAT_COOKIE):]: value for name, value in cookies.items()
                  if name.startswith(SEAT_COOKIE) and 1 <= len(name) - len(SEAT_COOKIE) <= 32}
        ids = sorted(tokens)[: 4 * self.settings.table_limit]
        found = []
        for info in await self._db(self.store.infos, ids):
            seat = seat_of_token(info, tokens[info.id])
            if seat is not None:
                found.append(table_of(info).model_copy(update={"seat": seat}))
        return found[: self.settings.table_limit]

    async def summary(self, game_id: str) -> GameSummary:
        """A game's table and version."""
        game = await self._game(game_id)
        return GameSummary(**table_of(game.info).model_dump(), version=game.version)

    async def create(self, request: CreateTable) -> SeatGrant:
        """Open a new table; against the AI the game starts at once."""
        seat = request.seat if request.seat is not None else secrets.randbelow(2)
        token = new_token()
        players: list[str | None] = [None, None]
        hashes: list[str | None] = [None, None]
        players[seat], hashes[seat] = request.nickname, token_hash(token)
        ai = request.mode == Mode.AI
        if ai:
            players[1 - seat] = f"AI ({request.level})"
        info = GameInfo(
            id=secrets.token_hex(8),
            variant=request.variant,
            rounds=request.rounds,
            seed=self.new_seed(),
            mode=request.mode,
            level=request.level if ai else None,
            ai_seat=1 - seat if ai else None,
            players=players,
            token_hashes=hashes,
            status=Status.PLAYING if ai else Status.OPEN,
        )
        await self._db(self.store.add_game, info)
        game = LiveGame(info, GameState.new(Settings.of(info.variant, info.rounds), info.seed), 0)
        self.games[info.id] = game
        self.kick_ai(game)
        return _grant(info.id, seat, token, invite=not ai)

    async def join(self, game_id: str, nickname: str) -> SeatGrant:
        """Take the free seat of a table; the game starts."""
        game = await self._game(game_id)
        if game.info.status == Status.CLOSED:
            raise ServiceError(409, "this table is closed: its rematch offer was withdrawn or declined")
        if game.info.rematch_of is not None:
            raise ServiceError(409, "this table is a rematch: its free seat is kept for the other player "
                               "of the game before, who takes it from that game's page")
        async with game.lock:
            free = [s for s in (0, 1) if game.info.token_hashes[s] is None and s != game.info.ai_seat]
            if not free:
                raise ServiceError(409, NO_FREE_SEAT)
            seat = free[0]
            token = await self._sit(game, seat, nickname, NO_FREE_SEAT)
        return _grant(game_id, seat, token, invite=False)

    # ------------------------------------------------------------ rematches

    async def rematch(
        self, game_id: str, token: str | None, cookies: Mapping[str, str], offer: str | None = None
    ) -> SeatGrant:
        """A player of a finished friend game asks for a rematch (``token`` is their seat's).

        The first to ask opens the rematch table (same variant and rounds, same seats; the
        seat that did not begin the match begins it) and sits down; the other player's clients
        are told. The other player asking takes the seat kept for them, with a token of their
        own. Asking again never opens a second table: a seat already taken is given back only
        to the browser holding its cookie ``seat_{rematch id}`` (in ``cookies``).

        An offer that was withdrawn or declined is over: asking again makes a new offer, at a
        new table, whichever player asks, up to ``MAX_REMATCH_OFFERS`` offers in all (then 429).
        ``offer`` names the rematch table a click answers (Accept the rematch): if that offer was
        closed meanwhile, the request is refused (410) and changes nothing, rather than making a
        new offer nobody meant.
        """
        game = await self._game(game_id)
        seat = _rematch_seat(game, token)
        async with game.lock:
            if offer is not None:
                await self._check_offer(game, offer)
            if game.info.rematch is None:
                await self._check_offers_left(game)
                grant = await self._open_rematch(game, seat)
                if grant is not None:
                    return grant
            return await self._take_rematch_seat(game, seat, cookies)

    async def _open_rematch(self, game: LiveGame, seat: int) -> SeatGrant | None:
        """Open the rematch table with ``seat`` taken; None if the database already holds a rematch."""
        old = game.info
        settings = Settings.of(old.variant, old.rounds)
        token = new_token()
        players: list[str | None] = [None, None]
        hashes: list[str | None] = [None, None]
        players[seat], hashes[seat] = old.players[seat], token_hash(token)
        info = GameInfo(
            id=secrets.token_hex(8),
            variant=old.variant,
            rounds=old.rounds,
            seed=seed_begun_by(self.new_seed(), settings, 1 - game.state.first),
            mode=Mode.FRIEND,
            level=None,
            ai_seat=None,
            players=players,
            token_hashes=hashes,
            status=Status.OPEN,
            rematch_of=old.id,
        )
        if not await self._db(self.store.add_rematch, old.id, seat, info):
            old.rematch = await self._db(self.store.rematch_of, old.id)
            return None
        self.games[info.id] = LiveGame(info, GameState.new(settings, info.seed), 0)
        old.rematch, old.rematch_closed = Rematch(info.id, seat), None
        self._broadcast(game)
        return _grant(info.id, seat, token, invite=False)

    async def _check_offers_left(self, game: LiveGame) -> None:
        """Refuse a new offer once ``MAX_REMATCH_OFFERS`` offers of ``game`` were closed."""
        if await self._db(self.store.closed_offers, game.info.id) >= MAX_REMATCH_OFFERS:
            raise ServiceError(
                429,
                f"this game has had {MAX_REMATCH_OFFERS} rematch offers, all withdrawn or declined: "
                "no more can be made, but a new table can be opened from the lobby",
            )

    async def _check_offer(self, game: LiveGame, offer: str) -> None:
        """Refuse a request about the rematch table ``offer`` unless it is ``game``'s current rematch."""
        link = game.info.rematch
        if link is not None and link.id == offer:
            return
        if await self._offer_table(game, offer) is None:
            raise ServiceError(404, f"there is no rematch {offer!r} of this game")
        raise ServiceError(410, "this rematch offer was withdrawn or declined: ask for a new one instead")

    async def _offer_table(self, game: LiveGame, offer: str | None) -> LiveGame | None:
        """The rematch table ``offer`` of ``game`` (by default its current or last closed offer), or None."""
        link, closed = game.info.rematch, game.info.rematch_closed
        wanted = offer or (link.id if link is not None else closed.id if closed is not None else None)
        if wanted is None:
            return None
        table = await self.live(wanted)
        return table if table is not None and table.info.rematch_of == game.info.id else None

    async def withdraw_rematch(
        self, game_id: str, token: str | None, cookies: Mapping[str, str], offer: str | None = None
    ) -> ClosedOffer:
        """The player who asked for a finished game's rematch withdraws the offer, while the other
        seat is still free.

        The credential is that player's seat token of the finished game or of the rematch table
        (``token``, else the cookie ``seat_{id}`` of either, in ``cookies``). The rematch table is
        closed (never joinable, left out of the lobby) and every client of both tables is told;
        either player may then ask for a rematch again, which makes a new offer. ``offer`` names
        the rematch table meant (default: the current offer). Withdrawing an offer already
        closed changes nothing and answers how it was closed (a double click, or a decline that
        came first); after the other player sat down it is too late (409).
        """
        return await self._close_offer(game_id, token, cookies, offer, WITHDRAWN)

    async def decline_rematch(
        self, game_id: str, token: str | None, cookies: Mapping[str, str], offer: str | None = None
    ) -> ClosedOffer:
        """The other player of a finished game declines its rematch offer: as ``withdraw_rematch``,
        with the credential of the seat that did not ask; the asker's pages say it was declined,
        and either player may ask again later (a new offer)."""
        return await self._close_offer(game_id, token, cookies, offer, DECLINED)

    async def _close_offer(
        self, game_id: str, token: str | None, cookies: Mapping[str, str], offer: str | None, reason: str
    ) -> ClosedOffer:
        game = await self._game(game_id)
        async with game.lock:
            table = await self._offer_table(game, offer)
            seat = _answering_seat(game, table, token, cookies)
            if table is None:
                if offer is not None:
                    raise ServiceError(404, f"there is no rematch {offer!r} of this game")
                raise ServiceError(409, "there is no rematch offer to answer: nobody asked for one")
            closed = await self._close(game, table, seat, reason)
        return ClosedOffer.model_validate(_told_offer(closed))

    async def _close(self, game: LiveGame, table: LiveGame, seat: int, reason: str) -> ClosedRematch:
        """Close the offer of ``table`` for ``seat``, or tell how it was closed (under ``game``'s lock)."""
        closed = table.info.rematch_closed
        if table.info.status == Status.CLOSED and closed is not None:
            _check_role(seat, closed.by, reason)
            return closed
        link = game.info.rematch
        if link is None or link.id != table.info.id:
            raise ServiceError(409, "this rematch offer is no longer the game's: reload the page")
        _check_role(seat, link.by, reason)
        if link.accepted or table.info.status != Status.OPEN:
            raise ServiceError(409, TOO_LATE)
        return await self._shut(game, table, reason)

    async def _shut(self, game: LiveGame, table: LiveGame, reason: str) -> ClosedRematch:
        """Close the open rematch ``table`` of ``game`` in the database, then in memory; tell every client."""
        async with table.lock:
            done = await self._db(self.store.close_rematch, game.info.id, table.info.id, reason)
            if done is None:
                raise ServiceError(409, TOO_LATE)
            table.info.status, table.info.rematch_closed = Status.CLOSED, done
            self._broadcast(table)
        game.info.rematch, game.info.rematch_closed = None, done
        self._broadcast(game)
        return done

    async def _take_rematch_seat(self, game: LiveGame, seat: int, cookies: Mapping[str, str]) -> SeatGrant:
        """Seat ``seat`` at the rematch table (or give back its seat to the browser that holds it)."""
        link = game.info.rematch
        if link is None:
            raise ServiceError(409, "the rematch could not be opened: please try again")
        table = await self._game(link.id)
        async with table.lock:
            if table.info.token_hashes[seat] is None:
                name = game.info.players[seat] or f"player {seat + 1}"
                token = await self._sit(table, seat, name, "that seat of the rematch was just taken")
            else:
                token = cookies.get(f"seat_{link.id}") or ""
                if not token or table.seat_of(token) != seat:
                    raise ServiceError(409, "you already took your seat in the rematch: open it with "
                                       "the link you were given there, or from the browser you took it in")
        if seat != link.by and not link.accepted:
            link.accepted = True
            self._broadcast(game)
        return _grant(link.id, seat, token, invite=False)

    async def _sit(self, game: LiveGame, seat: int, nickname: str, taken: str) -> str:
        """Give ``seat`` of an open table to ``nickname`` with a new token (the game starts); 409
        with ``taken`` if the database says the seat is no longer free. Called under the game's lock."""
        token = new_token()
        if not await self._db(self.store.take_seat, game.info.id, seat, nickname, token_hash(token)):
            raise ServiceError(409, taken)
        game.info.players[seat] = nickname
        game.info.token_hashes[seat] = token_hash(token)
        game.info.status = Status.PLAYING
        self._broadcast(game)
        return token

    async def record(self, game_id: str) -> dict[str, Any]:
        """The game record of a finished game (409 while it is played: it would reveal hidden cards;
        409 too at a closed rematch table, where no game was played, and at one still waiting for
        its second player)."""
        game = await self._finished(game_id, "record")
        names = [p or f"player {i + 1}" for i, p in enumerate(game.info.players)]
        return record_of(game.state, players=names, created=game.info.created.isoformat())

    async def replay(self, game_id: str) -> dict[str, Any]:
        """A finished game step by step, every card shown (409 while it is played, or at a closed
        rematch table or one waiting for its second player: nothing was played there)."""
        game = await self._finished(game_id, "replay")
        steps = self._replays.get(game_id)
        if steps is None:
            steps = await asyncio.to_thread(replay_steps, game.state)
            self._replays[game_id] = steps
            while len(self._replays) > REPLAY_CACHE:
                self._replays.popitem(last=False)
        self._replays.move_to_end(game_id)
        return {"table": table_of(game.info).model_dump(), "steps": steps}

    async def _finished(self, game_id: str, what: str) -> LiveGame:
        """The finished game ``game_id``; 409 for a closed rematch table (no game was played there),
        a table waiting for its second player (its game has not begun) or a game not over yet (its
        ``what`` would reveal hidden cards)."""
        game = await self._game(game_id)
        check_has_game(game.info, what)
        if not game.state.is_over:
            raise ServiceError(
                409, f"the game is still being played: its {what} would reveal hidden cards (R10.4)"
            )
        return game

    # ------------------------------------------------------------ changes

    async def _commit(self, game: LiveGame, kind: str, notation: str, seat: int, after: GameState) -> None:
        """Write one log entry, then make ``after`` the game's state and tell every client."""
        status = Status.OVER if after.is_over else game.info.status
        winner = after.outcome.winner if after.outcome is not None else None
        entry = Entry(game.version, kind, notation, seat)
        await self._db(self.store.append, game.info.id, entry, status, winner)
        game.state, game.version = after, entry.index + 1
        game.info.status, game.info.winner = status, winner
        self._broadcast(game)
        self.kick_ai(game)

    async def _play(self, game: LiveGame, seat: int, action: Action) -> None:
        after = game.state.copy()
        after.apply_id(action.id)
        await self._commit(game, ACTION, str(action), seat, after)

    def _check_turn(self, game: LiveGame, seat: int) -> None:
        if game.state.is_over:
            raise ClientError("illegal_action", "the game is over: no action is legal")
        if game.info.status == Status.CLOSED:
            raise ClientError("illegal_action", "this table is closed: its rematch offer was withdrawn or "
                              "declined, so no game is played here")
        if game.info.status == Status.OPEN:
            raise ClientError("not_your_turn", "wait for your opponent to take the other seat")
        if game.state.turn != seat:
            who = "the AI's" if game.info.mode == Mode.AI else "your opponent's"
            raise ClientError("not_your_turn", f"it is {who} turn: wait for your turn")

    async def act(self, game: LiveGame, seat: int | None, message: ActionMessage) -> None:
        """A client's action: checked (version, notation, turn, legality), logged, applied, sent."""
        if seat is None:
            raise ClientError("spectator", "spectators cannot play: open the game with your seat's link")
        async with game.lock:
            if message.version is not None and message.version != game.version:
                raise ClientError(
                    "stale", f"your state is out of date (version {message.version}, now {game.version})"
                )
            try:
                action = parse_action(message.action)
            except NotationError as error:
                raise ClientError("unknown_action", str(error)) from None
            self._check_turn(game, seat)
            if action.id not in game.state.legal_action_ids():
                raise ClientError("illegal_action", game.state.why_illegal(action))
            await self._play(game, seat, action)

    async def undo(self, game: LiveGame, seat: int | None) -> None:
        """A seat's misclick undo (see ``gamelog.undo_span``), stored as an undo entry."""
        if seat is None:
            raise ClientError("spectator", "spectators cannot undo moves")
        async with game.lock:
            if game.info.status in (Status.OPEN, Status.CLOSED):
                raise ClientError("cannot_undo", "nothing to take back: the game has not started")
            span = undo_span(game.state, seat)
            if isinstance(span, str):
                raise ClientError("cannot_undo", span)
            after = rebuilt(game.state, len(game.state.history) - span)
            await self._commit(game, UNDO, undo_notation(game.state, span), seat, after)

    def _broadcast(self, game: LiveGame) -> None:
        texts: dict[int | None, str] = {}
        for conn in list(game.connections):
            if conn.closed.is_set():
                game.connections.discard(conn)
                continue
            if conn.seat not in texts:
                texts[conn.seat] = json.dumps(state_message(game, conn.seat), separators=(",", ":"))
            conn.send(texts[conn.seat])

    # ------------------------------------------------------------ the AI

    def kick_ai(self, game: LiveGame) -> None:
        """Start the game's AI if the decision is its own and it is not already thinking."""
        if self._closing or not game.ai_to_move:
            return
        if game.ai_task is not None and not game.ai_task.done():
            return
        game.ai_task = asyncio.create_task(self._run_ai(game))

    async def _run_ai(self, game: LiveGame) -> None:
        """Decide and play, one action at a time, while the decision is the AI's."""
        try:
            while await self._ai_step(game):
                pass
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("the AI of game %s stopped", game.info.id)

    async def _ai_step(self, game: LiveGame) -> bool:
        async with game.lock:
            if not game.ai_to_move or game.info.ai_seat is None or game.info.level is None:
                return False
            seat, level, version = game.info.ai_seat, game.info.level, game.version
            seen = view(game.state, seat)
        text = await self.ai.decide(level, decision_seed(game.info.seed, version), seen)
        async with game.lock:
            if game.version != version or not game.ai_to_move:
                return True
            action = parse_action(text)
            if action.id not in game.state.legal_action_ids():
                logger.error("game %s: the AI chose %s, which is not legal", game.info.id, text)
                action = game.state.legal_actions()[0]
            await self._play(game, seat, action)
        return True

    # ------------------------------------------------------------ sockets

    async def serve(self, socket: WebSocket, game_id: str) -> None:
        """Serve one WebSocket client of a game until it leaves (or is dropped)."""
        await socket.accept()
        game = await self.live(game_id)
        if game is None:
            await _refuse(socket, "not_found", f"there is no game {game_id!r}", 4404)
            return
        token = socket.query_params.get("token") or socket.cookies.get(f"seat_{game_id}") or ""
        seat = game.seat_of(token) if token else None
        if token and seat is None:
            await _refuse(socket, "bad_token", "this seat token is not valid for this game: use the link "
                          "you were given, or watch without a token", 4403)
            return
        limit = RateLimit(self.settings.flood_limit, self.settings.flood_window)
        conn = Connection(socket, seat, self.settings.send_queue, limit)
        conn.start()
        conn.send(state_message(game, seat))
        game.connections.add(conn)
        self.kick_ai(game)
        left = False
        try:
            left = await self._read(game, conn, socket)
        finally:
            game.connections.discard(conn)
            await conn.stop(close=not left)
            self._forget_if_idle(game)

    async def _read(self, game: LiveGame, conn: Connection, socket: WebSocket) -> bool:
        """Handle the client's messages; True when the client went away, False when it was dropped."""
        while True:
            message = await _receive(socket, conn)
            if message is None:
                return False
            if message["type"] == "websocket.disconnect":
                return True
            try:
                await self._on_frame(game, conn, message)
            except ClientError as error:
                conn.send(error_message(error.code, error.message))
                if error.code == "stale":
                    conn.send(state_message(game, conn.seat))

    async def _on_frame(self, game: LiveGame, conn: Connection, frame: dict[str, Any]) -> None:
        settings = self.settings
        if not conn.limit.allow():
            raise ClientError("flood", f"more than {settings.flood_limit} messages in "
                              f"{settings.flood_window:g} s: this message was dropped")
        text, data = frame.get("text"), frame.get("bytes")
        size = len(text.encode("utf-8")) if text is not None else len(data or b"")
        if size > settings.max_message_bytes:
            raise ClientError("too_large", f"a message may hold {settings.max_message_bytes} bytes; "
                              f"this one holds {size}")
        if text is None:
            raise ClientError("bad_message", "send JSON text messages, not binary ones")
        message = parse_client_message(text)
        if isinstance(message, ActionMessage):
            await self.act(game, conn.seat, message)
        elif isinstance(message, UndoMessage):
            await self.undo(game, conn.seat)
        elif isinstance(message, SyncMessage):
            conn.send(state_message(game, conn.seat))
            self.kick_ai(game)

    def _forget_if_idle(self, game: LiveGame) -> None:
        """Let a finished game with no clients leave the cache (the database keeps it)."""
        idle = not game.connections and (game.ai_task is None or game.ai_task.done())
        done = game.state.is_over or game.info.status == Status.CLOSED
        if idle and done and self.games.get(game.info.id) is game:
            del self.games[game.info.id]


def _rematch_seat(game: LiveGame, token: str | None) -> int:
    """The seat of a finished friend game asking for its rematch; refused (403, 409) otherwise."""
    if not token:
        raise ServiceError(403, "spectators cannot ask for a rematch: open the game with your seat's link")
    seat = game.seat_of(token)
    if seat is None:
        raise ServiceError(403, "this seat token is not valid for this game: use the link you were given")
    _check_rematch_game(game)
    return seat


def _check_rematch_game(game: LiveGame) -> None:
    """Refuse (409) a rematch of a game that is not a finished friend game."""
    if game.info.mode != Mode.FRIEND:
        raise ServiceError(409, "a rematch is for games between two people: against the AI, open a new table")
    check_has_game(game.info, "rematch")
    if not game.state.is_over:
        raise ServiceError(409, "the game is still being played: a rematch can be asked for once it is over")


def _answering_seat(
    game: LiveGame, table: LiveGame | None, token: str | None, cookies: Mapping[str, str]
) -> int:
    """The seat of ``game`` answering its rematch offer: ``token`` (else a seat cookie) of the finished
    game or of the rematch ``table`` (same seats); refused (403, 409) otherwise."""
    ids = [game.info.id] + ([table.info.id] if table is not None else [])
    given = [token] if token else [c for c in (cookies.get(f"seat_{i}") for i in ids) if c]
    if not given:
        raise ServiceError(403, "spectators cannot answer a rematch offer: open the game with your "
                           "seat's link")
    for candidate in given:
        seat = game.seat_of(candidate)
        if seat is None and table is not None:
            seat = table.seat_of(candidate)
        if seat is not None:
            _check_rematch_game(game)
            return seat
    raise ServiceError(403, "this seat token is not valid for this game: use the link you were given")


def check_has_game(info: GameInfo, what: str) -> None:
    """Refuse (409) a request about ``what`` at the table ``info`` if no game was played there: a
    closed rematch table (see ``closed_table_error``) or one waiting for its second player."""
    if info.status == Status.CLOSED:
        raise closed_table_error(info, what)
    if info.status == Status.OPEN:
        raise ServiceError(409, NOT_BEGUN.format(NOTHING_YET[what]))


def closed_table_error(info: GameInfo, what: str) -> ServiceError:
    """The refusal (409) of a request about ``what`` (a key of ``NOTHING_AT_A_CLOSED_TABLE``) at
    the closed rematch table ``info``: its offer was withdrawn or declined before anyone played."""
    how = info.rematch_closed.reason if info.rematch_closed is not None else "withdrawn or declined"
    return ServiceError(409, f"this table was closed before its game began (the rematch offer was {how}): "
                        f"{NOTHING_AT_A_CLOSED_TABLE[what]}")


def _check_role(seat: int, by: int, reason: str) -> None:
    """Only the seat that asked withdraws an offer; only the other seat declines it (409 otherwise)."""
    if reason == WITHDRAWN and seat != by:
        raise ServiceError(409, "only the player who asked for the rematch can withdraw it: "
                           "decline it instead")
    if reason == DECLINED and seat == by:
        raise ServiceError(409, "you asked for this rematch: withdraw the offer instead of declining it")


def _grant(game_id: str, seat: int, token: str, invite: bool) -> SeatGrant:
    return SeatGrant(
        id=game_id,
        seat=seat,
        token=token,
        url=f"/game/{game_id}?token={token}",
        invite=f"/game/{game_id}?join=1" if invite else None,
    )


async def _refuse(socket: WebSocket, code: ErrorCode, message: str, close_code: int) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.send_text(json.dumps(error_message(code, message))), CLOSE_TIMEOUT)
        await asyncio.wait_for(socket.close(close_code), CLOSE_TIMEOUT)


async def _receive(socket: WebSocket, conn: Connection) -> dict[str, Any] | None:
    """The client's next frame, or None as soon as the connection is dropped."""
    receive = asyncio.ensure_future(socket.receive())
    dropped = asyncio.ensure_future(conn.closed.wait())
    try:
        done, _ = await asyncio.wait({receive, dropped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        dropped.cancel()
        if not receive.done():
            receive.cancel()
    return dict(receive.result()) if receive in done else None
