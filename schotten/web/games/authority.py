"""The authority over the games being served: tables, seats, actions, undo and the AI.

Each game being served is a ``LiveGame``: its row, its state (a cache rebuilt from the log),
its clients and an ``asyncio.Lock``, so one change at a time reaches a game. A change is
checked by the engine (its checked ``apply``, on a copy of the state), written to the log
(with the game's status; ``writer`` stores the entries of many games that arrive together in one
transaction) and only then made the game's state; every
client then gets its own view (R10) on its own queue, never waited on under the lock. Store
calls run in worker threads; AI decisions run in the AI pool (see ``ai``). The ``Authority``
is also the socket transport's host (see ``sockets.Host``): it is handed parsed messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NoReturn, TypeVar

from ...engine import ACTIONS, GameState, IllegalActionError, NotationError, SchottenError, Settings
from ...engine.view import view
from ..cluster.peers import Peers
from ..core import metrics
from ..core.clock import Clock
from ..core.errors import UNAVAILABLE, GameDamaged, LogConflict, ServiceError, StoreUnavailable
from ..core.messages import (
    AbortMessage,
    ActionMessage,
    ChatMessage,
    ClaimVictoryMessage,
    ClientError,
    ClientMessage,
    MuteMessage,
    ResignMessage,
    SyncMessage,
    UndoMessage,
    error_message,
)
from ..core.metrics import REFUSED
from ..core.schemas import CreateTable, SeatGrant
from ..core.settings import WebSettings
from ..core.vocab import Ending, Mode, Status
from ..edge.quotas import UNKNOWN_ADDRESS, Quotas, seconds
from ..players import ratings
from ..players.accounts import AccountRef, Accounts
from ..players.people import pool_of
from ..storage.store import ACTION, END, UNDO, Entry, GameInfo, Store
from ..storage.writer import Writer
from ..talk.chat import Chat, GameChat
from .ai import AiPool, decision_seed
from .following import adopt, committed, follow, heard
from .gamelog import LogError, ending_of, rebuilt, replay, undo_notation, undo_span
from .outbound import Told, state_text, state_texts
from .seats import MAX_ID, grant, new_token, one_seat_taken, seat_of_token, token_hash
from .sockets import Connection
from .timekeeper import Timekeeper

logger = logging.getLogger("schotten.web")

T = TypeVar("T")
NO_FREE_SEAT = "this table has no free seat: you can watch the game instead"
"""The error of a seat asked for at a table with none free."""
Now = Callable[[], datetime]
"""Where the authority reads the time (tests inject a clock they move by hand)."""


def utc_now() -> datetime:
    """The time now, in UTC."""
    return datetime.now(UTC)


class LiveGame:
    """A game being served: its row, its state, its version (log length), clients and lock.

    ``state`` is replaced, never changed in place, so what was derived from one state (``told``)
    holds until the next change.
    """

    def __init__(self, info: GameInfo, state: GameState, version: int, undos: tuple[int, int] = (0, 0),
                 undo_limit: int = WebSettings().undo_limit, now: Now = utc_now,
                 leave_timeout: float = WebSettings().leave_timeout) -> None:
        self.info = info
        self.state = state
        self.version = version
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.ai_task: asyncio.Task[None] | None = None
        self.told = Told()
        self.used = time.monotonic()
        """When the game was last asked for (``time.monotonic``): idle games are evicted."""
        self.ai_decision: tuple[int, str] | None = None
        """The AI's decision at a version, kept while its move cannot be stored (retried)."""
        self.undos = list(undos)
        """The undo entries of each seat in the log (counted when the game is loaded)."""
        self.undo_limit = undo_limit
        self.now = now
        self.leave_timeout = leave_timeout
        self.ending: tuple[Ending, int] | None = None
        """How the game ended off the board and the seat its end entry names (None: it did not)."""
        self.decided = [False, False]
        """Whether each seat has made a decision (an action entry) in this game."""
        self.mark = now()
        """When the decision now waited for became its seat's (a decision's time counts from it)."""
        self.gone_since: list[datetime | None] = [now(), now()]
        """Since when each seat has had no socket connected (None: one is connected)."""
        self.away_timer: asyncio.TimerHandle | None = None
        self.chat = GameChat()
        """The game's chat (see ``chat``), read when a socket first asks for the game."""
        self.remote: dict[str, tuple[tuple[int, int], float]] = {}
        """What other server processes said of this game's seats: per process, how many sockets of each
        seat it serves, until when that holds (``time.monotonic``; see ``peers``)."""

    @property
    def finished(self) -> bool:
        """Whether the game is over, on the board or off it (time, resigned, aborted, ...)."""
        return self.state.is_over or self.info.status == Status.OVER

    @property
    def clock(self) -> Clock | None:
        """The game's clock (None: untimed)."""
        return self.info.clock

    @property
    def leaving_counts(self) -> bool:
        """Whether a seat without a socket for ``leave_timeout`` may be claimed against: a friend game
        being played that is not turn-based."""
        clock = self.info.clock
        return (self.info.mode == Mode.FRIEND and self.info.status == Status.PLAYING and not self.finished
                and not (clock is not None and clock.control.turn_based))

    def connected(self, seat: int) -> bool:
        """Whether a socket of ``seat`` is connected, to this process or (as it last said) another."""
        now = time.monotonic()
        if any(counts[seat] and until > now for counts, until in self.remote.values()):
            return True
        return any(c.seat == seat and not c.closed.is_set() for c in self.connections)

    def local_seats(self) -> list[int]:
        """How many sockets of each seat this process serves."""
        open_ = [c.seat for c in self.connections if not c.closed.is_set()]
        return [open_.count(0), open_.count(1)]

    def connected_seats(self) -> tuple[bool, bool]:
        """Whether each seat is connected anywhere (see ``connected``)."""
        return self.connected(0), self.connected(1)

    def away(self) -> list[int | None]:
        """Per seat: None while it is connected (or leaving does not count), else the milliseconds
        until the other seat may claim the win (0: it may now)."""
        now = self.now()
        found: list[int | None] = [None, None]
        for seat in (0, 1):
            since = self.gone_since[seat]
            if self.leaving_counts and since is not None and seat != self.info.ai_seat:
                wait = self.leave_timeout - (now - since).total_seconds()
                found[seat] = max(0, int(wait * 1000))
        return found

    def can_resign(self, seat: int | None) -> bool:
        """Whether ``seat`` may resign now: the game is being played."""
        return seat is not None and self.info.status == Status.PLAYING and not self.finished

    def can_abort(self, seat: int | None) -> bool:
        """Whether ``seat`` may abort now: the game is being played and a seat has yet to decide."""
        return self.can_resign(seat) and not all(self.decided)

    def can_claim(self, seat: int | None) -> bool:
        """Whether ``seat`` may claim the win: its opponent left (no socket for ``leave_timeout``)."""
        return seat is not None and self.can_resign(seat) and self.away()[1 - seat] == 0

    def clock_seat(self, state: GameState, status: Status) -> int | None:
        """Whose clock should run in ``state``: the seat to decide, while the game is played and timed;
        never the AI, nor the human of an AI game while no socket of theirs is connected (paused)."""
        if self.info.clock is None or status != Status.PLAYING or state.is_over:
            return None
        if self.info.mode == Mode.AI and (state.turn == self.info.ai_seat or not self.connected(state.turn)):
            return None
        return state.turn

    def extras(self, seat: int | None) -> dict[str, Any]:
        """What the state message says of the clock, the ending and the seat's choices (docs/web.md)."""
        clock = self.info.clock
        now = self.now()
        ended = {"reason": str(self.ending[0]), "seat": self.ending[1]} if self.ending else None
        return {
            "clock": clock.control.to_dict() if clock else None,
            "clocks": list(clock.remaining(now)) if clock else None,
            "clock_running": clock.running if clock else None,
            "ended": ended,
            "can_resign": self.can_resign(seat),
            "can_abort": self.can_abort(seat),
            "can_claim_victory": self.can_claim(seat),
            "away": self.away(),
            "chat_muted": self.chat.muted(seat),
        }

    def undos_left(self, seat: int) -> int:
        """How many more undos ``seat`` may ask for in this game."""
        return max(0, self.undo_limit - self.undos[seat])

    @property
    def watched(self) -> bool:
        """Whether a client (a seat or a spectator) is connected."""
        return any(not conn.closed.is_set() for conn in self.connections)

    @property
    def ai_busy(self) -> bool:
        """Whether the game's AI is thinking, waiting for a worker or retrying."""
        return self.ai_task is not None and not self.ai_task.done()

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


class Authority:
    """Every game being served: loading, opening and joining tables, and every change to a game."""

    def __init__(self, settings: WebSettings, store: Store, ai: AiPool, new_seed: Callable[[], int],
                 now: Now = utc_now) -> None:
        self.settings = settings
        self.now = now
        self.store = store
        self.ai = ai
        self.new_seed = new_seed
        self.games: dict[str, LiveGame] = {}
        self.quotas = Quotas(settings)
        self._load_lock = asyncio.Lock()
        self._closing = False
        self._sweeper: asyncio.Task[None] | None = None
        self.writer = Writer(store)
        self.damaged: set[str] = set()
        self.timekeeper: Timekeeper | None = None
        self.accounts = Accounts(store, settings.session_ttl, lambda: self.now())
        self._clock_tasks: set[asyncio.Task[None]] = set()
        self.peers = Peers(self, settings)
        self.conducting = False
        """Whether this process plays the AI and keeps the clocks (alone: always; see ``peers``)."""
        self.chat = Chat(settings, store, self.peers)

    async def db(self, call: Callable[..., T], *args: Any) -> T:
        """Run a blocking store call in a worker thread."""
        return await asyncio.to_thread(call, *args)

    async def start(self) -> None:
        """Hear the other processes (if any) and conduct, alone at once, else once this process holds
        the conductor's lease (``peers``)."""
        await self.peers.start()

    async def conduct(self) -> None:
        """Become the conductor: give the running clocks back the time nobody kept them, keep time
        (``timekeeper``) and play every AI whose turn it is."""
        if self._closing or self.conducting:
            return
        self.conducting = True
        self.timekeeper = Timekeeper(self)
        await self.timekeeper.give_back_downtime()
        await self.resume()

    async def step_down(self) -> None:
        """Stop conducting (the lease was lost): the timekeeper and every AI stop here."""
        self.conducting = False
        if self.timekeeper is not None:
            await self.timekeeper.stop()
            self.timekeeper = None
        await self._cancel(self._ai_tasks())

    def _ai_tasks(self) -> list[asyncio.Task[None]]:
        return [g.ai_task for g in self.games.values() if g.ai_task is not None and not g.ai_task.done()]

    @staticmethod
    async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def drop_sockets(self, code: int) -> None:
        """Close every game socket with ``code`` (their pages reconnect)."""
        for game in self.games.values():
            for conn in list(game.connections):
                conn.drop(code)

    async def stop(self) -> None:
        """Stop the timekeeper, the eviction sweep and every AI (a task still thinking is cancelled)."""
        self._closing = True
        await self.peers.stop()
        if self.timekeeper is not None:
            await self.timekeeper.stop()
        for game in self.games.values():
            if game.away_timer is not None:
                game.away_timer.cancel()
        tasks = self._ai_tasks()
        if self._sweeper is not None:
            tasks.append(self._sweeper)
            self._sweeper = None
        await self._cancel(tasks)

    # ------------------------------------------------------------ tables

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
                self.peers.holding(game)
        self.kick_ai(game)
        return game

    async def _replayed(self, game_id: str) -> LiveGame | None:
        try:
            return await self.db(self._load, game_id)
        except LogError as error:
            if game_id not in self.damaged:
                self.damaged.add(game_id)
                logger.error("game %s is damaged: its log does not replay from entry %d (%s)",
                             game_id, error.index, error)
            raise GameDamaged() from None

    def _load(self, game_id: str) -> LiveGame | None:
        loaded = self.store.load(game_id)
        if loaded is None:
            return None
        info, entries = loaded
        undos = tuple(sum(1 for e in entries if e.kind == UNDO and e.seat == seat) for seat in (0, 1))
        state = replay(info.variant, info.rounds, info.seed, entries)
        game = self._live(info, state, len(entries), (undos[0], undos[1]))
        game.ending = ending_of(entries)
        game.decided = [any(e.kind == ACTION and e.seat == seat for e in entries) for seat in (0, 1)]
        marks = [m for m in (info.moved, info.clock.since if info.clock else None) if m is not None]
        game.mark = max(marks) if marks else info.created
        return game

    def _live(self, info: GameInfo, state: GameState, version: int,
              undos: tuple[int, int] = (0, 0)) -> LiveGame:
        return LiveGame(info, state, version, undos, self.settings.undo_limit, self.now,
                        self.settings.leave_timeout)

    async def resume(self) -> None:
        """Load every game against the AI being played, so each AI whose turn it is plays."""
        for game_id in await self.db(self.store.games_in_play, Mode.AI):
            with contextlib.suppress(GameDamaged):
                game = await self.live(game_id)
                if game is not None:
                    self.kick_ai(game)
                if game is not None and game.info.clock is not None:
                    await self._sync_clock(game)
        if self.timekeeper is not None:
            self.timekeeper.start()

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
        game = self._live(info, state, 0)
        self.games[info.id] = game
        return game

    async def create(self, request: CreateTable, address: str = UNKNOWN_ADDRESS,
                     account: AccountRef | None = None) -> SeatGrant:
        """Open a new table for a client at ``address``, logged in as ``account`` or a guest (429
        beyond its quotas, see ``quotas``); against the AI the game starts at once."""
        _check_rated(request, account)
        nickname = _player_name(request.nickname, account)
        seat = request.seat if request.seat is not None else secrets.randbelow(2)
        players, hashes, token = one_seat_taken(seat, nickname)
        ai = request.mode == Mode.AI
        if ai:
            players[1 - seat] = f"AI ({request.level})"
        accounts: list[int | None] = [None, None]
        accounts[seat] = account.id if account is not None else None
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
            clock=Clock.new(request.clock.control()) if request.clock else None,
            moved=self.now(),
            accounts=accounts,
            rated=request.rated,
            rating_range=(request.min_rating, request.max_rating),
        )
        self.quotas.admit_table(address, info.id, ai, self._ai_in_play)
        try:
            await self.db(self.store.add_game, info)
        except BaseException:
            self.quotas.forget(info.id)
            raise
        game = self.add(info)
        self.peers.changed(game)
        self.kick_ai(game)
        return grant(info.id, seat, token, invite=not ai)

    async def join(self, game_id: str, nickname: str | None, account: AccountRef | None = None) -> SeatGrant:
        """Take the free seat of a table, as ``account`` or a guest; the game starts."""
        game = await self.game(game_id)
        if game.info.status == Status.CLOSED:
            raise ServiceError(409, "this table is closed: its rematch offer was withdrawn or declined")
        if game.info.rematch_of is not None:
            raise ServiceError(409, "this table is a rematch: its free seat is kept for the other player "
                               "of the game before, who takes it from that game's page")
        if self.expired(game.info):
            raise ServiceError(410, f"this table expired: nobody took its free seat within "
                               f"{seconds(self.settings.open_table_ttl)} of its opening; open a new table "
                               "or join another")
        name = _player_name(nickname, account)
        await self._check_joiner(game.info, account)
        async with game.lock:
            free = [s for s in (0, 1) if game.info.token_hashes[s] is None and s != game.info.ai_seat]
            if not free:
                raise ServiceError(409, NO_FREE_SEAT)
            seat = free[0]
            token = await self.sit(game, seat, name, NO_FREE_SEAT, account.id if account else None)
        self.quotas.joined(game_id)
        return grant(game_id, seat, token, invite=False)

    async def _check_joiner(self, info: GameInfo, account: AccountRef | None) -> None:
        """Refuse who may not take the free seat: a guest at a rated table or one with a rating range,
        the table's own creator, or a player rated outside its range."""
        low, high = info.rating_range
        bounded = low is not None or high is not None
        if account is None and (info.rated or bounded):
            why = "is rated" if info.rated else "has a rating range"
            raise ServiceError(403, f"this table {why}: log in (or sign up) to join it")
        if account is not None and account.id in info.accounts:
            raise ServiceError(409, "this is your own table: wait for an opponent to join it")
        if account is not None and bounded:
            rating = await self.db(self.rating_in_pool, account.id, info)
            if (low is not None and rating < low) or (high is not None and rating > high):
                raise ServiceError(403, f"this table is for players rated {low or 0} to {high or '...'} in "
                                   f"its pool; your rating there is {round(rating)}")

    def rating_in_pool(self, account_id: int, info: GameInfo) -> float:
        """The account's rating in the pool of the game ``info`` (blocking: run it with ``db``)."""
        pool = pool_of(info)
        if pool is None:
            return ratings.DEFAULT.rating
        with self.store.use() as session:
            return ratings.current(session, [account_id], pool)[account_id].rating

    async def seat_of_session(self, game: LiveGame, session_id: str) -> int | None:
        """The seat of ``game`` played by the account logged in with ``session_id``, or None."""
        if all(owner is None for owner in game.info.accounts):
            return None
        account = await self.db(self.accounts.of_session, session_id)
        if account is None or account.id not in game.info.accounts:
            return None
        return game.info.accounts.index(account.id)

    def expired(self, info: GameInfo) -> bool:
        """Whether ``info`` is an open table nobody joined within ``open_table_ttl`` of its opening."""
        age = (datetime.now(UTC) - info.created).total_seconds()
        return info.status == Status.OPEN and age > self.settings.open_table_ttl

    def _ai_in_play(self, game_id: str) -> bool | None:
        """For the AI tables quota: True while the game ``game_id`` is played with a client connected or
        its AI thinking, False while it waits for nobody, None once it is over or no longer served."""
        game = self.games.get(game_id)
        if game is None or game.state.is_over or game.info.status != Status.PLAYING:
            return None
        thinking = game.ai_task is not None and not game.ai_task.done()
        return thinking or any(not conn.closed.is_set() for conn in game.connections)

    async def sit(self, game: LiveGame, seat: int, nickname: str, taken: str,
                  account: int | None = None) -> str:
        """Give ``seat`` of an open table to ``nickname`` (``account``: theirs, if logged in) with a new
        token (the game starts); 409 with ``taken`` if the database says the seat is no longer free.
        Called under the game's lock."""
        token = new_token()
        now = self.now()
        clock = game.info.clock.start(game.state.turn, now) if game.info.clock is not None else None
        hashed = token_hash(token)
        if not await self.db(self.store.take_seat, game.info.id, seat, nickname, hashed, clock, now, account):
            self.peers.catch_up(game.info.id)
            raise ServiceError(409, taken)
        game.info.players[seat] = nickname
        game.info.accounts[seat] = account
        game.info.token_hashes[seat] = token_hash(token)
        game.info.status, game.info.clock, game.mark = Status.PLAYING, clock, now
        game.gone_since[seat] = now
        self.broadcast(game)
        if clock is not None:
            self.wake_clocks()
        return token

    # ------------------------------------------------------------ changes

    async def act(self, game: LiveGame, seat: int | None, message: ActionMessage) -> None:
        """A client's action: checked (seat, version, turn, then the engine's checked ``apply`` on a
        copy of the state), logged, made the game's state and sent."""
        if seat is None:
            raise ClientError("spectator", "spectators cannot play: open the game with your seat's link")
        async with game.lock:
            if message.version is not None and message.version != game.version:
                raise ClientError(
                    "stale", f"your state is out of date (version {message.version}, now {game.version})"
                )
            self._check_turn(game, seat)
            await self._check_time(game, seat)
            after = game.state.copy()
            try:
                after.apply(message.action)
            except NotationError as error:
                raise ClientError("unknown_action", str(error)) from None
            except IllegalActionError as error:
                raise ClientError("illegal_action", str(error)) from None
            await self._commit(game, ACTION, str(ACTIONS[after.history[-1]]), seat, after)

    def _check_turn(self, game: LiveGame, seat: int) -> None:
        if game.finished:
            raise ClientError("illegal_action", "the game is over: no action is legal")
        if game.info.status == Status.CLOSED:
            raise ClientError("illegal_action", "this table is closed: its rematch offer was withdrawn or "
                              "declined, so no game is played here")
        if game.info.status == Status.OPEN:
            raise ClientError("not_your_turn", "wait for your opponent to take the other seat")
        if game.state.turn != seat:
            who = "the AI's" if game.info.mode == Mode.AI else "your opponent's"
            raise ClientError("not_your_turn", f"it is {who} turn: wait for your turn")

    async def undo(self, game: LiveGame, seat: int | None) -> None:
        """A seat's misclick undo (see ``gamelog.undo_span``), stored as an undo entry."""
        if seat is None:
            raise ClientError("spectator", "spectators cannot undo moves")
        async with game.lock:
            if game.info.status in (Status.OPEN, Status.CLOSED):
                raise ClientError("cannot_undo", "nothing to take back: the game has not started")
            if game.finished:
                raise ClientError("cannot_undo", "the game is over: nothing can be taken back")
            await self._check_time(game, seat)
            span = undo_span(game.state, seat)
            if isinstance(span, str):
                raise ClientError("cannot_undo", span)
            limit = game.undo_limit
            if not game.undos_left(seat):
                raise ClientError("cannot_undo", f"you have used all {limit} undos of this game: "
                                  f"each player may take back a move at most {limit} times per game")
            after = rebuilt(game.state, len(game.state.history) - span)
            await self._commit(game, UNDO, undo_notation(game.state, span), seat, after)
            game.undos[seat] += 1

    async def _commit(self, game: LiveGame, kind: str, notation: str, seat: int, after: GameState,
                      ended: Ending | None = None) -> None:
        """Write one log entry (group commit, see ``writer``) with the game's clock after it, then make
        ``after`` the game's state and tell every client. ``StoreUnavailable`` (nothing changed) if it
        could not be stored."""
        now = self.now()
        status = Status.OVER if after.is_over or ended is not None else game.info.status
        winner = after.outcome.winner if after.outcome is not None else None
        clock, spent = game.info.clock, None
        if clock is not None:
            spent = None if kind == END else max(0, int((now - game.mark).total_seconds() * 1000))
            clock = clock.after_decision(seat, now, game.clock_seat(after, status))
        entry = Entry(game.version, kind, notation, seat, now, spent)
        try:
            await self.writer.append(game.info.id, entry, status, winner, clock, ended)
        except LogConflict:
            await self._behind(game)
        except StoreUnavailable:
            raise
        except Exception as error:
            metrics.STORE_ERRORS.inc()
            logger.exception("game %s: entry %d could not be stored", game.info.id, entry.index)
            raise StoreUnavailable(f"entry {entry.index} of game {game.info.id} was not stored") from error
        kept = min(len(game.state.history), len(after.history))
        game.state, game.version, game.mark = after, entry.index + 1, now
        game.info.status, game.info.winner, game.info.clock, game.info.moved = status, winner, clock, now
        if kind == ACTION:
            game.decided[seat] = True
        if ended is not None:
            game.info.ended, game.ending = ended, (ended, seat)
        self.tell(game, kept)
        if self.peers.clustered:
            self.peers.changed(game, committed(game, entry))
        self.kick_ai(game)
        if clock is not None:
            self.wake_clocks()

    async def _behind(self, game: LiveGame) -> None:
        """Another process stored this game's next entry first: catch up (under the game's lock), tell
        this process's clients, and refuse the change as ``stale``."""
        await self._refreshed(game)
        raise ClientError("stale", "another move reached the game first: your state is out of date, "
                          "here is the game as it now stands")

    async def catch_up(self, game_id: str) -> None:
        """Bring this process's copy of ``game_id`` up to the database (another process changed it);
        a game not held here is loaded (the conductor loads a game whose AI is to move)."""
        game = self.games.get(game_id)
        if game is None:
            with contextlib.suppress(GameDamaged, StoreUnavailable):
                await self.live(game_id)
            return
        async with game.lock:
            await self._refreshed(game)

    async def _refreshed(self, game: LiveGame) -> None:
        """Under the game's lock: catch up from the database (``_caught_up``) and pass on what changed."""
        kept = await self._caught_up(game)
        if kept is not None:
            self._after_change(game, kept)

    def _after_change(self, game: LiveGame, kept: int) -> None:
        """A change heard from the database: this process's clients get it, the AI and clocks look again."""
        self.tell(game, kept)
        self.kick_ai(game)
        self.wake_clocks()

    async def _caught_up(self, game: LiveGame) -> int | None:
        """Under the game's lock: read what the database holds beyond this copy and make it the game's;
        the first move of the history that changed (None: nothing changed). A log that does not
        follow marks the game damaged."""
        loaded = await self.db(self.store.load_since, game.info.id, game.version)
        if loaded is None:
            return None
        info, entries = loaded
        if not entries and info == game.info:
            return None
        try:
            return adopt(game, entries, info)
        except LogError as error:
            self._damaged(game, error)

    def _damaged(self, game: LiveGame, error: LogError) -> NoReturn:
        """A log that does not follow: the game is marked damaged (logged once)."""
        self.damaged.add(game.info.id)
        logger.error("game %s is damaged: its log does not follow from entry %d (%s)",
                     game.info.id, error.index, error)
        raise GameDamaged() from None

    def heard_deadline(self, event: dict[str, Any]) -> None:
        """The conductor hears of a move stored elsewhere: a clock it sets running that runs out before
        the next deadline the timekeeper knows wakes it (else it would look within ``POLL``)."""
        news = heard(event)
        deadline = news.clock.deadline if news is not None and news.clock is not None else None
        if self.timekeeper is not None and deadline is not None:
            self.timekeeper.expect(deadline)

    async def follow(self, game_id: str, event: dict[str, Any]) -> None:
        """Another process changed ``game_id`` (its ``game`` event): the entry it carries is applied
        when it is this copy's next, one already here is passed over, else the copy catches up from
        the database."""
        game = self.games.get(game_id)
        news = heard(event)
        if game is None or news is None:
            await self.catch_up(game_id)
            return
        async with game.lock:
            if news.entry.index < game.version:
                return
            if news.entry.index > game.version:
                kept = await self._caught_up(game)
            else:
                try:
                    kept = follow(game, news)
                except LogError as error:
                    self._damaged(game, error)
        if kept is not None:
            self._after_change(game, kept)

    # ------------------------------------------------------------ endings: time, resign, abort, leave

    async def _check_time(self, game: LiveGame, seat: int) -> None:
        """Under the game's lock: if ``seat``'s clock has run out, the game ends on time and the
        decision is refused (``time_up``)."""
        clock = game.info.clock
        if clock is not None and clock.running == seat and clock.flagged(self.now()):
            await self._end(game, Ending.TIME, seat)
            raise ClientError("time_up", "your time ran out before this move arrived: the game is lost "
                              "on time")

    async def _end(self, game: LiveGame, ending: Ending, seat: int) -> None:
        """End the game off the board (under its lock): an ``end`` entry against ``seat``; a forfeit
        gives the match to the other seat, an abort or an abandonment to nobody."""
        after = game.state.copy()
        if ending.forfeits:
            after.forfeit(seat, str(ending))
        await self._commit(game, END, str(ending), seat, after, ending)
        logger.info("game %s ended: %s (seat %d)", game.info.id, ending, seat)

    async def resign(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` resigns: the opponent wins the match (reason ``resigned``)."""
        async with game.lock:
            if not game.can_resign(seat) or seat is None:
                raise ClientError("cannot_resign", _why_not(game, seat, "resign"))
            await self._end(game, Ending.RESIGNED, seat)

    async def abort(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` aborts the game before both seats have decided: it ends with no winner."""
        async with game.lock:
            if not game.can_resign(seat) or seat is None:
                raise ClientError("cannot_abort", _why_not(game, seat, "abort"))
            if not game.can_abort(seat):
                raise ClientError("cannot_abort", "both players have made a decision: the game can no "
                                  "longer be aborted (you may resign)")
            await self._end(game, Ending.ABORTED, seat)

    async def claim_victory(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` claims the win over an opponent who left (no socket for ``leave_timeout``)."""
        async with game.lock:
            if not game.can_resign(seat) or seat is None:
                raise ClientError("cannot_claim", _why_not(game, seat, "claim the win"))
            if not game.leaving_counts:
                raise ClientError("cannot_claim", "leaving does not count in this game (turn-based or "
                                  "against the AI): the clock decides")
            wait = game.away()[1 - seat]
            if wait is None:
                raise ClientError("cannot_claim", "your opponent is connected: the win cannot be claimed")
            if wait > 0:
                raise ClientError("cannot_claim", f"your opponent may still come back: you may claim "
                                  f"the win in {wait / 1000:.0f} s")
            await self._end(game, Ending.LEFT, 1 - seat)

    async def flag(self, game_id: str) -> bool:
        """End the game ``game_id`` on time if its running clock has run out; whether it did."""
        game = await self.live(game_id)
        if game is None:
            return False
        async with game.lock:
            clock = game.info.clock
            if (game.finished or game.info.status != Status.PLAYING or clock is None
                    or clock.running is None or not clock.flagged(self.now())):
                return False
            try:
                await self._end(game, Ending.TIME, clock.running)
            except ClientError:
                return False
        return True

    async def abandon(self, game_id: str) -> bool:
        """Close the untimed friend game ``game_id`` as abandoned if nothing was played there for
        ``abandon_after``; whether it was."""
        game = await self.live(game_id)
        if game is None:
            return False
        async with game.lock:
            idle = (self.now() - (game.info.moved or game.info.created)).total_seconds()
            if (game.finished or game.info.status != Status.PLAYING or game.info.clock is not None
                    or game.info.mode != Mode.FRIEND or idle < self.settings.abandon_after):
                return False
            try:
                await self._end(game, Ending.ABANDONED, game.state.turn)
            except ClientError:
                return False
        return True

    def wake_clocks(self) -> None:
        """Tell the timekeeper a deadline may have changed (it looks again at once)."""
        if self.timekeeper is not None:
            self.timekeeper.wake()

    # ------------------------------------------------------------ presence

    def _arrived(self, game: LiveGame, conn: Connection | None) -> None:
        """A seat that was away is back (its state already says so): the others are told."""
        if game.away_timer is not None and not any(game.gone_since):
            game.away_timer.cancel()
        self._presence_changed(game, conn)

    def presence_moved(self, game: LiveGame, before: tuple[bool, bool]) -> None:
        """Another process's sockets of the game's seats changed (``peers``): a seat that came is no
        longer away, one that left everywhere is."""
        if game.info.mode == Mode.AI:
            if self.conducting and game.connected_seats() != before:
                self._presence_changed(game)
            return
        for seat in (0, 1):
            now = game.connected(seat)
            if now and not before[seat] and game.gone_since[seat] is not None:
                game.gone_since[seat] = None
                self._arrived(game, None)
            elif before[seat] and not now:
                self._departed(game, seat)

    def _departed(self, game: LiveGame, seat: int | None) -> None:
        if seat is None or game.connected(seat):
            return
        game.gone_since[seat] = self.now()
        self._presence_changed(game)
        if game.leaving_counts and not self._closing:
            if game.away_timer is not None:
                game.away_timer.cancel()
            delay = self.settings.leave_timeout + 0.05
            game.away_timer = asyncio.get_running_loop().call_later(delay, self.tell_presence, game)

    def _presence_changed(self, game: LiveGame, arrived: Connection | None = None) -> None:
        """A seat came or went: an AI game's clock pauses or resumes; in a friend game every client is
        sent a ``presence`` message (who is away, whether it may claim the win)."""
        if game.info.mode == Mode.AI and game.info.clock is not None and not self._closing:
            task = asyncio.create_task(self._sync_clock(game))
            self._clock_tasks.add(task)
            task.add_done_callback(self._clock_tasks.discard)
        elif game.leaving_counts:
            self.tell_presence(game, arrived)

    def tell_presence(self, game: LiveGame, skip: Connection | None = None) -> None:
        """Send every client of ``game`` (but ``skip``) who is away and whether it may now claim the win."""
        away = game.away()
        for conn in [c for c in game.connections if c is not skip]:
            conn.send({"type": "presence", "away": away, "can_claim_victory": game.can_claim(conn.seat)})

    async def _sync_clock(self, game: LiveGame) -> None:
        """Run the clock of the seat whose clock should run now (an AI game's human pauses it by
        leaving), stored before it is told."""
        async with game.lock:
            clock = game.info.clock
            if clock is None:
                return
            seat, now = game.clock_seat(game.state, game.info.status), self.now()
            if clock.running == seat:
                return
            changed = clock.stop(now) if seat is None else clock.stop(now).start(seat, now)
            try:
                if not await self.db(self.store.set_clock, game.info.id, changed, game.version):
                    await self._refreshed(game)
                    return
            except (StoreUnavailable, GameDamaged):
                return
            game.info.clock = changed
            if seat is not None:
                game.mark = now
        self.broadcast(game)
        self.wake_clocks()

    def broadcast(self, game: LiveGame, log_from: int | None = None) -> None:
        """The game changed here: queue its state for every client (``tell``) and tell the other
        processes (``peers``)."""
        self.tell(game, log_from)
        self.peers.changed(game)

    def tell(self, game: LiveGame, log_from: int | None = None) -> None:
        """Queue the game's state for every client of this process (one message built per seat), with
        the log's entries from ``log_from`` on (the first that changed; default: none changed)."""
        start = len(game.state.history) if log_from is None else log_from
        for conn in [c for c in game.connections if c.closed.is_set()]:
            game.connections.discard(conn)
        texts = state_texts(game, {conn.seat for conn in game.connections}, start)
        for conn in list(game.connections):
            conn.send(texts[conn.seat])
        self.chat.opened(game)

    # ------------------------------------------------------------ the AI

    AI_RETRY_FIRST = 0.25
    """Seconds before the first retry of a failed AI step; each failure doubles it, up to ``AI_RETRY_CAP``."""
    AI_RETRY_CAP = 10.0

    def kick_ai(self, game: LiveGame) -> None:
        """Start the game's AI if the decision is its own and it is not already thinking."""
        if self._closing or not self.conducting or not game.ai_to_move or game.ai_busy:
            return
        game.ai_task = asyncio.create_task(self._run_ai(game))

    async def _run_ai(self, game: LiveGame) -> None:
        """Decide and play, one action at a time, while the decision is the AI's and the game is served;
        a failed step (say, the database briefly unavailable) is retried after a growing wait."""
        delay = self.AI_RETRY_FIRST
        try:
            while not self._closing and self.games.get(game.info.id) is game:
                try:
                    if not await self._ai_step(game):
                        return
                    delay = self.AI_RETRY_FIRST
                except Exception as error:
                    reason = (str(error).splitlines() or [""])[0][:200]
                    logger.error("the AI of game %s failed (%s: %s); it tries again in %.2f s",
                                 game.info.id, type(error).__name__, reason, delay)
                    await asyncio.sleep(delay)
                    delay = min(2 * delay, self.AI_RETRY_CAP)
        finally:
            game.used = time.monotonic()

    async def _ai_step(self, game: LiveGame) -> bool:
        """One AI decision, played if the game has not changed meanwhile; False when it is not the AI's."""
        async with game.lock:
            if not game.ai_to_move or game.info.ai_seat is None or game.info.level is None:
                return False
            seat, level, version = game.info.ai_seat, game.info.level, game.version
            seen = view(game.state, seat)
        if game.ai_decision is not None and game.ai_decision[0] == version:
            text = game.ai_decision[1]
        else:
            text = await self.ai.decide(level, decision_seed(game.info.seed, version), seen,
                                        lambda: game.watched)
            game.ai_decision = (version, text)
        async with game.lock:
            if game.version != version or not game.ai_to_move:
                return True
            after = game.state.copy()
            try:
                after.apply(text)
            except SchottenError:
                logger.error("game %s: the AI chose %s, which is not legal", game.info.id, text)
                after.apply_id(game.state.legal_action_ids()[0])
            with contextlib.suppress(ClientError):
                await self._commit(game, ACTION, str(ACTIONS[after.history[-1]]), seat, after)
        return True

    # ------------------------------------------------------------ eviction

    EVICTION_GRACE = 2.0
    """Seconds after its last use in which a game is never evicted, even over ``game_cache_size``."""
    SWEEP_EVERY = 1.0
    """The longest time between two sweeps, in seconds (a sweep looks at every loaded game once)."""

    def start_sweeping(self) -> None:
        """Start the periodic sweep that evicts idle games (see ``sweep``)."""
        if self._sweeper is None and not self._closing:
            self._sweeper = asyncio.create_task(self._sweep_loop())

    async def _sweep_loop(self) -> None:
        interval = min(max(self.settings.game_idle_eviction / 2, 0.05), self.SWEEP_EVERY)
        while True:
            await asyncio.sleep(interval)
            try:
                self.sweep()
            except Exception:
                logger.exception("the sweep of idle games failed")

    def sweep(self) -> int:
        """Evict idle games (no client, no AI at work, unlocked) unused for ``game_idle_eviction``
        seconds, then the least recently used idle ones beyond ``game_cache_size``; how many went.
        The database keeps them: an evicted game is loaded again when asked for."""
        now = time.monotonic()
        idle = sorted((g for g in self.games.values() if self._idle(g)), key=lambda g: g.used)
        old = sum(1 for g in idle if now - g.used >= self.settings.game_idle_eviction)
        excess = len(self.games) - old - self.settings.game_cache_size
        spare = [g for g in idle[old:] if now - g.used >= self.EVICTION_GRACE]
        gone = idle[:old] + spare[:max(0, excess)]
        for game in gone:
            if self.games.get(game.info.id) is game:
                del self.games[game.info.id]
        return len(gone)

    @staticmethod
    def _idle(game: LiveGame) -> bool:
        return not game.watched and not game.ai_busy and not game.lock.locked()

    # ------------------------------------------------------------ the sockets' host

    async def find(self, game_id: str) -> LiveGame | None:
        """The game a socket asks for (see ``live``), its chat read; ClientError ``damaged`` or
        ``unavailable`` if it cannot be served (also while the other processes cannot be reached).
        With other processes, an open table is caught up first: its other seat may have been taken
        through another process a moment ago, and the client's first state would still say open."""
        if not self.peers.healthy:
            raise ClientError("unavailable", "the server lost its link to its other processes (Redis): "
                              "reconnecting, try again in a moment")
        try:
            game = await self.live(game_id)
            if game is not None:
                if self.peers.clustered and game.info.status == Status.OPEN:
                    await self.catch_up(game_id)
                await self.chat.load(game)
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
        if seat is None and self.peers.clustered:
            await self.catch_up(game.info.id)
            seat = game.seat_of(token)
        return seat

    def enter(self, game: LiveGame, conn: Connection) -> None:
        """A client arrives: it gets the state, its rooms' chat and, from now on, every change; a
        spectator beyond ``spectators_per_game`` is refused (ClientError ``limit``)."""
        if conn.seat is None:
            watching = sum(1 for c in game.connections if c.seat is None and not c.closed.is_set())
            if watching >= self.settings.spectators_per_game:
                REFUSED.labels("spectators").inc()
                raise ClientError("limit", f"this game has as many spectators as it may have "
                                  f"({self.settings.spectators_per_game}): try again later")
        was_away = conn.seat is not None and game.gone_since[conn.seat] is not None
        if conn.seat is not None:
            game.gone_since[conn.seat] = None
        conn.send(state_text(game, conn.seat))
        self.chat.enter(game, conn)
        game.connections.add(conn)
        if conn.seat is not None:
            self.peers.present(game)
        if was_away:
            self._arrived(game, conn)
        self.kick_ai(game)

    async def receive(self, game: LiveGame, conn: Connection, message: ClientMessage) -> None:
        """Handle one client message; a refused one gets an error (and a stale one the state)."""
        try:
            if isinstance(message, ActionMessage):
                await self.act(game, conn.seat, message)
            elif isinstance(message, UndoMessage):
                await self.undo(game, conn.seat)
            elif isinstance(message, ChatMessage):
                await self.chat.say(game, conn, message)
            elif isinstance(message, MuteMessage):
                await self.chat.mute(game, conn, message)
            elif isinstance(message, SyncMessage):
                conn.send(state_text(game, conn.seat))
                self.kick_ai(game)
            elif isinstance(message, ResignMessage):
                await self.resign(game, conn.seat)
            elif isinstance(message, AbortMessage):
                await self.abort(game, conn.seat)
            elif isinstance(message, ClaimVictoryMessage):
                await self.claim_victory(game, conn.seat)
        except ClientError as error:
            conn.send(error_message(error.code, error.message))
            if error.code == "stale":
                conn.send(state_text(game, conn.seat))
        except StoreUnavailable:
            conn.send(error_message("unavailable", UNAVAILABLE))

    def leave(self, game: LiveGame, conn: Connection) -> None:
        """A client left: a finished game with no clients leaves the cache (the database keeps it)."""
        game.connections.discard(conn)
        game.used = time.monotonic()
        if conn.seat is not None:
            self.peers.present(game)
        self._departed(game, conn.seat)
        idle = not game.connections and not game.ai_busy
        done = game.state.is_over or game.info.status == Status.CLOSED
        if idle and done and self.games.get(game.info.id) is game:
            del self.games[game.info.id]


def _player_name(nickname: str | None, account: AccountRef | None) -> str:
    """The name a player sits under: an account's username, else the guest's nickname."""
    if account is not None:
        return account.username
    if nickname is None:
        raise ServiceError(422, 'the body has no "nickname": a guest (not logged in) plays under a nickname')
    return nickname


def _check_rated(request: CreateTable, account: AccountRef | None) -> None:
    """Refuse a rated table that cannot be rated, and a rating range nobody could be in."""
    if request.rated and account is None:
        raise ServiceError(403, "only accounts play rated games: log in (or sign up), or open a casual table")
    if request.rated and request.mode == Mode.AI:
        raise ServiceError(422, "games against the AI are never rated: open a casual table")
    if request.rated and request.clock is None:
        raise ServiceError(422, 'a rated game needs a clock: give "clock" (real-time or days per move)')
    low, high = request.min_rating, request.max_rating
    if low is not None and high is not None and low > high:
        raise ServiceError(422, f"min_rating {low} is above max_rating {high}: no player could join")
    if (low is not None or high is not None) and (request.mode == Mode.AI or request.clock is None):
        raise ServiceError(422, "a rating range needs a table against a person with a clock (ratings are "
                           "kept per variant and speed)")


def _why_not(game: LiveGame, seat: int | None, what: str) -> str:
    """Why ``seat`` may not ``what`` (resign, abort, claim the win) in ``game`` now."""
    if seat is None:
        return f"spectators cannot {what}: open the game with your seat's link"
    if game.finished:
        return f"the game is over: you cannot {what}"
    return f"the game has not started: you cannot {what} before your opponent sits down"
