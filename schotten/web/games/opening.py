"""Tables opened and joined: a new table's row, a free seat taken, who may take it.

A seat is a token (its hash stored, the token given once: ``seats``); a logged-in player's seat
also names the account. A table against the AI starts at once; one against a person when its
other seat is taken (``sit``, also used by rematches and Play now).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from ..core.clock import Clock
from ..core.errors import ServiceError, say, saying
from ..core.schemas import CreateTable, SeatGrant
from ..core.vocab import Mode, Status
from ..edge.quotas import UNKNOWN_ADDRESS, Quotas, seconds
from ..players import ratings
from ..players.accounts import AccountRef, Accounts
from ..players.people import pool_of
from ..players.seats import grant, new_token, one_seat_taken, token_hash
from ..storage.rows import GameInfo, finished
from .context import Context
from .live import LiveGame
from .news import News
from .ports import Cluster
from .tables import Tables

EXPIRED = saying("This table expired: nobody took its free seat within {wait} of its opening. Open a new "
                 "table or join another.")
NO_FREE_SEAT = "this table has no free seat: you can watch the game instead"
"""The error of a seat asked for at a table with none free."""


class Opening:
    """Opens tables (within the ``quotas``) and seats players at them."""

    def __init__(self, context: Context, tables: Tables, news: News, cluster: Cluster, quotas: Quotas,
                 accounts: Accounts, new_seed: Callable[[], int]) -> None:
        self.context = context
        self.tables = tables
        self.news = news
        self.cluster = cluster
        self.quotas = quotas
        self.accounts = accounts
        self.new_seed = new_seed

    async def create(self, request: CreateTable, address: str = UNKNOWN_ADDRESS,
                     account: AccountRef | None = None) -> SeatGrant:
        """Open a new table for a client at ``address``, logged in as ``account`` or a guest (429
        beyond its quotas, see ``quotas``); against the AI the game starts at once."""
        _check_rated(request, account)
        seat = request.seat if request.seat is not None else secrets.randbelow(2)
        info, token = self._new_table(request, seat, _player_name(request.nickname, account), account)
        ai = request.mode == Mode.AI
        await self.admit(address, info.id, ai)
        try:
            await self.context.db(self.context.store.add_game, info)
        except BaseException:
            self.quotas.forget(info.id)
            raise
        game = self.tables.add(info)
        self.cluster.changed(game)
        self.news.kick_ai(game)
        return grant(info.id, seat, token, invite=not ai)

    async def admit(self, address: str, game_id: str, ai: bool) -> None:
        """Count the new table ``game_id`` of ``address`` within its quotas (``Quotas.admit_table``; 429
        beyond them), telling them which of its AI tables the database says are finished or closed (a
        game out of memory, or ended by another process, counts as it is stored; one still being
        stored counts: a table never stored is forgotten by its own request)."""
        held = self.quotas.ai_tables_to_check(address)
        done = await self.context.db(self._finished, held) if held else set()
        self.quotas.admit_table(address, game_id, ai, done)

    def _finished(self, ids: list[str]) -> set[str]:
        """Those of ``ids`` finished or closed (``rows.finished``; blocking: run it with ``db``)."""
        with self.context.store.use() as session:
            return finished(session, ids)

    def _new_table(self, request: CreateTable, seat: int, nickname: str,
                   account: AccountRef | None) -> tuple[GameInfo, str]:
        """The row of a new table with ``seat`` taken by ``nickname``, and that seat's token."""
        players, hashes, token = one_seat_taken(seat, nickname)
        ai = request.mode == Mode.AI
        if ai:
            players[1 - seat] = f"AI ({request.level})"
        accounts: list[int | None] = [None, None]
        accounts[seat] = account.id if account is not None else None
        info = GameInfo(
            id=secrets.token_hex(8), variant=request.variant, rounds=request.rounds, seed=self.new_seed(),
            mode=request.mode, level=request.level if ai else None, ai_seat=1 - seat if ai else None,
            players=players, token_hashes=hashes, status=Status.PLAYING if ai else Status.OPEN,
            clock=Clock.new(request.clock.control()) if request.clock else None, moved=self.context.now(),
            accounts=accounts, rated=request.rated, rating_range=(request.min_rating, request.max_rating),
            hints=request.hints and ai,
        )
        return info, token

    async def join(self, game_id: str, nickname: str | None, account: AccountRef | None = None) -> SeatGrant:
        """Take the free seat of a table, as ``account`` or a guest; the game starts."""
        game = await self.tables.game(game_id)
        if game.info.status == Status.CLOSED:
            raise ServiceError(409, "this table is closed: its rematch offer was withdrawn or declined")
        if game.info.rematch_of is not None:
            raise ServiceError(409, "this table is a rematch: its free seat is kept for the other player "
                               "of the game before, who takes it from that game's page")
        if self.tables.expired(game.info):
            wait = seconds(self.context.settings.open_table_ttl)
            raise ServiceError(410, f"this table expired: nobody took its free seat within {wait} of its "
                               "opening; open a new table or join another", say(EXPIRED, wait=wait))
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

    async def sit(self, game: LiveGame, seat: int, nickname: str, taken: str,
                  account: int | None = None) -> str:
        """Give ``seat`` of an open table to ``nickname`` (``account``: theirs, if logged in) with a new
        token (the game starts); 409 with ``taken`` if the database says the seat is no longer free.
        Called under the game's lock."""
        token = new_token()
        now = self.context.now()
        clock = game.info.clock.start(game.state.turn, now) if game.info.clock is not None else None
        hashed = token_hash(token)
        taking = (game.info.id, seat, nickname, hashed, clock, now, account)
        if not await self.context.db(self.context.store.take_seat, *taking):
            self.cluster.catch_up(game.info.id)
            raise ServiceError(409, taken)
        game.info.players[seat] = nickname
        game.info.accounts[seat] = account
        game.info.token_hashes[seat] = hashed
        game.info.status, game.info.clock, game.mark = Status.PLAYING, clock, now
        game.gone_since[seat] = now
        self.news.broadcast(game)
        if clock is not None:
            self.news.wake_clocks()
        return token

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
            rating = await self.context.db(self.rating_in_pool, account.id, info)
            if (low is not None and rating < low) or (high is not None and rating > high):
                raise ServiceError(403, f"this table is for players rated {low or 0} to {high or '...'} in "
                                   f"its pool; your rating there is {round(rating)}")

    def rating_in_pool(self, account_id: int, info: GameInfo) -> float:
        """The account's rating in the pool of the game ``info`` (blocking: run it with ``db``)."""
        pool = pool_of(info)
        if pool is None:
            return ratings.DEFAULT.rating
        with self.context.store.use() as session:
            return ratings.current(session, [account_id], pool)[account_id].rating

    async def seat_of_session(self, game: LiveGame, session_id: str) -> int | None:
        """The seat of ``game`` played by the account logged in with ``session_id``, or None."""
        if all(owner is None for owner in game.info.accounts):
            return None
        account = await self.context.db(self.accounts.of_session, session_id)
        if account is None or account.id not in game.info.accounts:
            return None
        return game.info.accounts.index(account.id)


def _player_name(nickname: str | None, account: AccountRef | None) -> str:
    """The name a player sits under: an account's username, else the guest's nickname."""
    if account is not None:
        return account.username
    if nickname is None:
        raise ServiceError(422, 'the body has no "nickname": a guest (not logged in) plays under a nickname')
    return nickname


def _check_rated(request: CreateTable, account: AccountRef | None) -> None:
    """Refuse hints away from the AI, a rated table that cannot be rated, and a rating range nobody
    could be in."""
    if request.hints and (request.mode != Mode.AI or request.rated):
        raise ServiceError(400, "hints are only for tables against the AI, which are never rated: a "
                           "game against a person (casual or rated) has none")
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
