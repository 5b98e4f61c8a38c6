"""The routes' work: create a tournament, join, withdraw, pause, berserk, cancel, and read them.

A signed-in account only may create or take part (401 for a guest). The director of this process
(``director.Director``) runs in the background once ``start`` is called.
"""

from __future__ import annotations

import hmac
from dataclasses import replace
from datetime import timedelta
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ..core.errors import ServiceError
from ..core.schemas import ClockSpec, Variant
from ..games.authority import Authority
from ..players.accounts import AccountRef
from ..players.seats import token_hash
from ..storage.db import GameRow, TournamentGameRow, TournamentPlayerRow, TournamentRow, utc
from ..storage.rows import bare_value, clock_values
from . import records, views
from .channel import TournamentChannel
from .director import Director
from .records import ARENA, CREATED, PAUSED, STARTED, WITHDRAWN

MAX_START_DAYS = 60
"""How far ahead a tournament may be set to start."""
MAX_UPCOMING = 5
"""How many tournaments not started yet one account may have created."""


class CreateTournament(BaseModel):
    """A new tournament: ``format``, ``name``, ``variant``, ``clock`` (as tables take it), ``rated``,
    ``starts_at`` (ISO time) or ``starts_in`` (seconds), ``minutes`` (arena) or ``rounds`` (Swiss),
    and an optional ``min_rating`` / ``min_games`` (rated games in the pool) to join."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["arena", "swiss"]
    name: str = Field(min_length=1, max_length=80)
    variant: Variant = "base"
    clock: ClockSpec
    rated: bool = Field(False, strict=True)
    starts_at: AwareDatetime | None = None
    starts_in: int | None = Field(None, ge=0, le=MAX_START_DAYS * 86400)
    minutes: int | None = Field(None, ge=5, le=24 * 60)
    rounds: int | None = Field(None, ge=1, le=20)
    min_rating: int | None = Field(None, ge=0, le=4000)
    min_games: int | None = Field(None, ge=0, le=10_000)

    @model_validator(mode="after")
    def _consistent(self) -> CreateTournament:
        if (self.starts_at is None) == (self.starts_in is None):
            raise ValueError('give the start as "starts_at" (an ISO time) or "starts_in" (seconds): one')
        if self.format == ARENA and (self.minutes is None or self.rounds is not None):
            raise ValueError('an arena lasts "minutes" (5 to 1440) and has no "rounds"')
        if self.format != ARENA and (self.rounds is None or self.minutes is not None):
            raise ValueError('a Swiss tournament has "rounds" (1 to 20) and no "minutes"')
        if self.format == ARENA and self.clock.days is not None:
            raise ValueError("an arena is played with a real-time clock: turn-based clocks are for Swiss")
        if not self.name.strip():
            raise ValueError("a tournament needs a name that is not only spaces")
        return self


class Tournaments:
    """Tournaments over ``authority``'s database and time; ``director`` runs them from this process."""

    def __init__(self, authority: Authority) -> None:
        self.authority = authority
        self.db = authority.context.db
        settings = authority.settings
        self.channel = TournamentChannel(settings, authority.accounts, authority.quotas, self.exists)
        """The tournaments' sockets (``/ws/tournaments/{id}``)."""
        self.director = Director(authority.store, lambda: authority.now(), lambda: authority.new_seed(),
                                 settings.tournament_lease, self._stepped)
        self.every = settings.tournament_every

    def _stepped(self, tournament_id: int, pairs: list[tuple[int, str]]) -> None:
        """A director's step was stored: the standings changed, and each paired player is told."""
        self.channel.changed(tournament_id)
        for player, game in pairs:
            self.channel.paired(tournament_id, player, game)

    def finished(self, tournaments: set[int]) -> None:
        """Games of ``tournaments`` ended (their results stored): their standings changed."""
        for tournament_id in sorted(tournaments):
            self.channel.changed(tournament_id)

    async def exists(self, tournament_id: int) -> bool:
        """Whether there is a tournament ``tournament_id``."""
        return bool(await self.db(self._read, lambda s: s.get(TournamentRow, tournament_id) is not None))

    def start(self) -> None:
        """Start this process's director (its games' clocks are told to the timekeeper); must be called
        on the event loop."""
        self.director.start(lambda _games: self.authority.wake_clocks(), self.every)

    async def stop(self) -> None:
        """Stop this process's director."""
        await self.director.stop()

    async def create(self, body: CreateTournament, account: AccountRef | None) -> int:
        """Store a new tournament (401 a guest; 400 a start in the past or too far ahead): its id."""
        who = _signed_in(account, "create a tournament")
        now = self.authority.now()
        later = now + timedelta(seconds=body.starts_in or 0)
        starts = body.starts_at if body.starts_at is not None else later
        if starts < now - timedelta(minutes=1):
            raise ServiceError(400, "the start is in the past: give a time from now on")
        if starts > now + timedelta(days=MAX_START_DAYS):
            raise ServiceError(400, f"a tournament starts within {MAX_START_DAYS} days")
        control = body.clock.control()
        row = TournamentRow(format=body.format, name=body.name.strip(), variant=body.variant,
                            clock_initial=control.initial,
                            clock_increment=None if control.turn_based else control.increment,
                            clock_days=control.days, rated=body.rated, starts_at=utc(starts),
                            minutes=body.minutes, rounds=body.rounds, status=CREATED, creator_id=who.id,
                            min_rating=body.min_rating, min_games=body.min_games, round=0, created=utc(now))

        def store() -> int:
            with self.authority.store.use() as session, session.begin():
                upcoming = session.scalar(select(func.count()).select_from(TournamentRow).where(
                    TournamentRow.creator_id == who.id, TournamentRow.status == CREATED)) or 0
                if upcoming >= MAX_UPCOMING:
                    raise ServiceError(409, f"you have {upcoming} tournaments not started yet, the most "
                                       "one may have: cancel one or wait for one to start")
                session.add(row)
                session.flush()
                return row.id
        return await self.db(store)

    async def listing(self) -> list[dict[str, Any]]:
        """Every tournament listed (``views.listing``)."""
        return await self.db(self._read, views.listing)

    async def detail(self, tournament_id: int, account: AccountRef | None) -> dict[str, Any]:
        """One tournament (``views.detail``), with ``you`` for a participant."""
        return await self.db(self._read, lambda s: views.detail(s, tournament_id, None if account is None
                                                                 else account.id))

    def _read(self, read: Any) -> Any:
        with self.authority.store.use() as session:
            return read(session)

    def _change(self, change: Any) -> Any:
        with self.authority.store.use() as session, session.begin():
            return change(session)

    async def join(self, tournament_id: int, account: AccountRef | None, ticket: str | None = None) -> str:
        """Join or come back (``records.join``): the player's status. ``ticket``: the browser's new
        ticket, the seat token of the player's next games (its hash is stored)."""
        who = _signed_in(account, "join a tournament")
        now = self.authority.now()
        hashed = None if ticket is None else token_hash(ticket)
        status = str(await self.db(self._change,
                                   lambda s: records.join(s, tournament_id, who.id, now, hashed)))
        self.channel.changed(tournament_id)
        return status

    async def ticket_holds(self, tournament_id: int, account: AccountRef, ticket: str) -> bool:
        """Whether ``ticket`` is the account's ticket of the tournament (compared in constant time)."""
        def stored(session: Session) -> str | None:
            row = session.get(TournamentPlayerRow, (tournament_id, account.id))
            return None if row is None else row.ticket_hash
        found = await self.db(self._read, stored)
        return found is not None and hmac.compare_digest(found, token_hash(ticket))

    async def leave(self, tournament_id: int, account: AccountRef | None, status: str) -> str:
        """Withdraw or pause (``records.leave``): the player's status."""
        who = _signed_in(account, "leave a tournament")
        left = str(await self.db(self._change, lambda s: records.leave(s, tournament_id, who.id, status)))
        self.channel.changed(tournament_id)
        return left

    async def withdraw(self, tournament_id: int, account: AccountRef | None) -> str:
        """Withdraw from the tournament."""
        return await self.leave(tournament_id, account, WITHDRAWN)

    async def pause(self, tournament_id: int, account: AccountRef | None) -> str:
        """Pause in an arena (not paired again until one joins again)."""
        return await self.leave(tournament_id, account, PAUSED)

    async def cancel(self, tournament_id: int, account: AccountRef | None) -> None:
        """The creator cancels before the start (``records.cancel``)."""
        who = _signed_in(account, "cancel a tournament")
        await self.db(self._change, lambda s: records.cancel(s, tournament_id, who.id))
        self.channel.changed(tournament_id)

    async def berserk(self, tournament_id: int, account: AccountRef | None) -> str:
        """Go berserk in one's arena game before one's first move: half one's clock and no increment
        (``broadcast``: the other processes holding the game read it again); the game's id."""
        who = _signed_in(account, "go berserk")
        entry = await self.db(self._read, lambda s: _running_game(s, tournament_id, who.id))
        game = await self.authority.tables.live(entry[0])
        if game is None:
            raise ServiceError(409, "your tournament game is not being played")
        seat = entry[1]
        async with game.lock:
            clock = game.info.clock
            if game.finished or clock is None or game.decided[seat]:
                raise ServiceError(409, "berserk is only possible before your first move")
            left = list(clock.left)
            left[seat] //= 2
            halved = replace(clock, left=(left[0], left[1])).without_increment(seat)
            await self.db(self._change, lambda s: _store_berserk(s, entry[2], game.info.id, seat, halved))
            game.info.clock = halved
            self.authority.news.broadcast(game)
        self.authority.wake_clocks()
        self.channel.changed(tournament_id)
        return game.info.id


def _signed_in(account: AccountRef | None, what: str) -> AccountRef:
    if account is None:
        raise ServiceError(401, f"log in (or sign up) to {what}")
    return account


def _running_game(session: Session, tournament_id: int, account_id: int) -> tuple[str, int, int]:
    """The player's game being played in the arena: (game id, seat, row id); 409 if there is none."""
    row = records.found(session, tournament_id)
    if row.format != ARENA or row.status != STARTED:
        raise ServiceError(409, "berserk is for a game of an arena being played")
    seated = (TournamentGameRow.account0 == account_id) | (TournamentGameRow.account1 == account_id)
    query = select(TournamentGameRow).where(TournamentGameRow.tournament_id == tournament_id, seated,
                                            TournamentGameRow.ended.is_(None),
                                            TournamentGameRow.game_id.is_not(None))
    game = session.scalars(query.order_by(TournamentGameRow.id.desc()).limit(1)).first()
    if game is None or game.game_id is None:
        raise ServiceError(409, "you have no game being played in this tournament")
    already = game.berserk0 if game.account0 == account_id else game.berserk1
    if already:
        raise ServiceError(409, "you have already gone berserk in this game")
    return game.game_id, 0 if game.account0 == account_id else 1, game.id


def _store_berserk(session: Session, row_id: int, game_id: str, seat: int, clock: Any) -> None:
    """Mark the seat berserk (409 if it already is: nothing changed) and store the halved clock
    without the seat's increment."""
    flag = TournamentGameRow.berserk0 if seat == 0 else TournamentGameRow.berserk1
    marked = session.execute(update(TournamentGameRow).where(TournamentGameRow.id == row_id, flag.is_(False))
                             .values({flag: True}))
    if marked.rowcount != 1:  # type: ignore[attr-defined]
        raise ServiceError(409, "you have already gone berserk in this game")
    session.execute(update(GameRow).where(GameRow.id == game_id)
                    .values(clock_bare=bare_value(clock), **clock_values(clock)))
