"""Storage behind a small interface: games and their append-only logs in a SQL database.

``Store(url)`` works with SQLite (the default, a file) or PostgreSQL through SQLAlchemy;
times are stored in UTC and come back as aware UTC datetimes on both. Its methods are plain
blocking calls; the service runs them in a worker thread. Rows are handed out as the plain
values ``GameInfo`` and ``Entry``, so nothing outside this module touches an ORM session. An
entry is written together with the game's new status in one transaction, so a server killed
at any moment leaves a log that replays. A rematch table is stored together with the link
from the finished game to it, in one transaction, so a finished game has one rematch at most
at a time. Closing an offer (withdrawn or declined) closes its table, if its other seat is
still free, and moves its link to the closed offers, in one transaction: an offer is either
accepted or closed, never both.

A call that cannot be done now raises ``StoreUnavailable`` (see ``database``).
``append_many`` writes several games' entries in one transaction (``writer`` uses it).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, or_, select, update
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session

from ..core.clock import Clock
from ..core.errors import LogConflict
from ..core.offer import Offer, OfferState
from ..core.vocab import Ending, Mode, Status
from . import listing, pglock
from .database import Database
from .db import (
    Base,
    ChatMuteRow,
    ChatRow,
    ClosedRematchRow,
    GameRow,
    LogRow,
    RematchRow,
    ServerBeatRow,
    utc,
)
from .rows import (
    Entry,
    GameInfo,
    clock_of,
    clock_values,
    entry_of,
    info_of,
    row_of,
    with_links,
)

logger = logging.getLogger("schotten.web")

Finished = Callable[[Session, list[str], datetime], None]
"""Called in the transaction that stores the end of games: the session, their ids and the time."""


class Store(Database):
    """Games and logs in the database at ``url`` (see ``db.make_engine``)."""

    def __init__(self, url: str, busy_timeout: float = 5.0, shared: bool = False) -> None:
        """``shared``: served by several processes meeting on Redis (``pglock``), else by this one alone."""
        super().__init__(url, busy_timeout, shared)
        self.on_finished: Finished | None = None
        """What else is stored in the transaction that ends games (the ratings: ``players.ratings``)."""

    def add_game(self, info: GameInfo) -> None:
        """Store a new game."""
        with self._use() as session, session.begin():
            session.add(row_of(info))

    def add_rematch(self, game_id: str, by: int, info: GameInfo) -> bool:
        """Store the table ``info`` as the rematch of ``game_id`` asked for by seat ``by``, and the
        link to it, in one transaction; False (nothing stored) if that game already has a rematch."""
        link = RematchRow(game_id=game_id, rematch_id=info.id, by_seat=by, created=utc(info.created))
        try:
            with self._use() as session, session.begin():
                session.add(row_of(info))
                session.flush()
                session.add(link)
        except IntegrityError:
            return False
        return True

    def close_rematch(self, game_id: str, rematch_id: str, how: OfferState) -> Offer | None:
        """Close the open offer ``rematch_id`` of ``game_id`` (``how``: withdrawn or declined), in
        one transaction: its table's status becomes ``closed`` and its link moves to the closed
        offers. None (nothing changed) if that is not the game's rematch or its other seat was taken."""
        with self._use() as session, session.begin():
            link = session.get(RematchRow, game_id)
            if link is None or link.rematch_id != rematch_id:
                return None
            close = (
                update(GameRow)
                .where(GameRow.id == rematch_id, GameRow.status == Status.OPEN.value)
                .values(status=Status.CLOSED.value)
            )
            if not session.execute(close).rowcount:  # type: ignore[attr-defined]
                return None
            session.delete(link)
            session.add(ClosedRematchRow(rematch_id=rematch_id, game_id=game_id, by_seat=link.by_seat,
                                         reason=str(how), created=utc(link.created),
                                         closed=datetime.now(UTC)))
        return Offer(rematch_id, game_id, link.by_seat, OfferState(how))

    def closed_offers(self, game_id: str) -> int:
        """How many rematch offers of ``game_id`` were withdrawn or declined."""
        with self._use() as session:
            query = select(func.count()).where(ClosedRematchRow.game_id == game_id)
            return int(session.scalar(query) or 0)

    def rematch_of(self, game_id: str) -> Offer | None:
        """The rematch of ``game_id`` as stored, or None."""
        with self._use() as session:
            row = session.get(GameRow, game_id)
            return None if row is None else with_links(session, [info_of(row)])[0].rematch

    def load(self, game_id: str) -> tuple[GameInfo, list[Entry]] | None:
        """A game and its whole log in order, or None if there is no such game.

        An id holding a NUL character names no game (PostgreSQL cannot even compare such text).
        """
        return self.load_since(game_id, 0)

    def load_since(self, game_id: str, index: int) -> tuple[GameInfo, list[Entry]] | None:
        """A game's row and the entries of its log from ``index`` on, in order, or None if there is no
        such game (how a process whose copy of a game is behind catches up)."""
        if "\x00" in game_id:
            return None
        with self._use(snapshot=True) as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            query = (select(LogRow).where(LogRow.game_id == game_id, LogRow.index >= index)
                     .order_by(LogRow.index))
            return with_links(session, [info_of(row)])[0], [entry_of(e) for e in session.scalars(query)]

    def recent(self, limit: int) -> list[GameInfo]:
        """The ``limit`` most recently created games, newest first (closed rematch tables left out)."""
        with self._use() as session:
            query = (
                select(GameRow)
                .where(GameRow.status != Status.CLOSED.value)
                .order_by(GameRow.created.desc(), GameRow.id)
                .limit(limit)
            )
            return with_links(session, [info_of(row) for row in session.scalars(query)])

    def infos(self, ids: list[str]) -> list[GameInfo]:
        """The games of these ids that exist, newest first (closed rematch tables left out)."""
        wanted = [i for i in ids if "\x00" not in i]
        if not wanted:
            return []
        with self._use() as session:
            query = (
                select(GameRow)
                .where(GameRow.id.in_(wanted), GameRow.status != Status.CLOSED.value)
                .order_by(GameRow.created.desc(), GameRow.id)
            )
            return with_links(session, [info_of(row) for row in session.scalars(query)])

    def games_in_play(self, mode: Mode | None = None) -> list[str]:
        """The ids of the games being played (of one mode, if given)."""
        query = select(GameRow.id).where(GameRow.status == Status.PLAYING.value)
        if mode is not None:
            query = query.where(GameRow.mode == Mode(mode).value)
        with self._use() as session:
            return list(session.scalars(query))

    def take_seat(self, game_id: str, seat: int, nickname: str, token_hash: str,
                  clock: Clock | None = None, moved: datetime | None = None,
                  account: int | None = None) -> bool:
        """Give the free ``seat`` of an open table to a player (``account``: theirs, if they are logged
        in) and start the game (with ``clock``, its first clock running, if it is timed); False if the
        seat was taken or the table is no longer open (a closed rematch table)."""
        player = GameRow.player0 if seat == 0 else GameRow.player1
        token = GameRow.token_hash0 if seat == 0 else GameRow.token_hash1
        owner = GameRow.account0 if seat == 0 else GameRow.account1
        query = (
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.mode == Mode.FRIEND.value,
                   GameRow.status == Status.OPEN.value, token.is_(None))
            .values({player: nickname, token: token_hash, owner: account,
                     GameRow.status: Status.PLAYING.value, GameRow.moved: utc(moved or datetime.now(UTC))})
        )
        if clock is not None:
            query = query.values(clock_values(clock))
        with self._use() as session, session.begin():
            return bool(session.execute(query).rowcount)  # type: ignore[attr-defined]

    def count_hint(self, game_id: str) -> None:
        """Count one more hint given in game ``game_id`` (``games.hints_used``)."""
        query = update(GameRow).where(GameRow.id == game_id).values(hints_used=GameRow.hints_used + 1)
        with self._use() as session, session.begin():
            session.execute(query)

    def lobby(self, limit: int, open_since: datetime, present_since: datetime) -> list[GameInfo]:
        """The lobby's tables in three bounded lists, each newest first (``listing.lobby``)."""
        with self._use() as session:
            return listing.lobby(session, limit, open_since, present_since)

    def games_of_account(self, account_id: int, limit: int) -> list[GameInfo]:
        """The account's ``limit`` newest tables (open, being played or finished), newest first."""
        query = (select(GameRow).where(or_(GameRow.account0 == account_id, GameRow.account1 == account_id),
                                       GameRow.status != Status.CLOSED.value)
                 .order_by(GameRow.created.desc(), GameRow.id).limit(limit))
        with self._use() as session:
            return with_links(session, [info_of(row) for row in session.scalars(query)])

    def append(self, game_id: str, entry: Entry, status: Status, winner: int | None) -> None:
        """Append ``entry`` to the game's log and set its status and winner, in one transaction."""
        self.append_many([Append(game_id, entry, status, winner)])

    def set_clock(self, game_id: str, clock: Clock, version: int) -> bool:
        """Store a game's clock as it now stands (paused or resumed), if its log still holds ``version``
        entries; False (nothing stored) if another process has stored a later entry."""
        later = select(LogRow.index).where(LogRow.game_id == game_id, LogRow.index >= version).exists()
        query = update(GameRow).where(GameRow.id == game_id, ~later).values(clock_values(clock))
        with self._use() as session, session.begin():
            return bool(session.execute(query).rowcount)  # type: ignore[attr-defined]

    def deadlines(self, now: datetime, limit: int = 100) -> tuple[list[str], datetime | None]:
        """The games being played whose clock ran out by ``now`` (at most ``limit``, earliest first),
        and the next deadline after ``now`` (None: no clock runs)."""
        with self._use() as session:
            base = select(GameRow.id, GameRow.deadline).where(
                GameRow.status == Status.PLAYING.value, GameRow.deadline.is_not(None))
            due = session.execute(base.where(GameRow.deadline <= utc(now))
                                  .order_by(GameRow.deadline).limit(limit)).all()
            later = session.scalar(select(func.min(GameRow.deadline)).where(
                GameRow.status == Status.PLAYING.value, GameRow.deadline > utc(now)))
            return [row[0] for row in due], utc(later) if later is not None else None

    def idle_friend_games(self, before: datetime, limit: int = 100) -> list[str]:
        """Untimed friend games being played whose last entry (or start) is older than ``before``."""
        query = (
            select(GameRow.id)
            .where(GameRow.status == Status.PLAYING.value, GameRow.mode == Mode.FRIEND.value,
                   GameRow.clock_initial.is_(None), GameRow.clock_days.is_(None),
                   func.coalesce(GameRow.moved, GameRow.created) < utc(before))
            .limit(limit)
        )
        with self._use() as session:
            return list(session.scalars(query))

    def beat(self, now: datetime) -> None:
        """Note that the server is running at ``now`` (see ``give_back_downtime``), and on PostgreSQL
        hold its serving lock again if a restart of the database took it (``pglock.renew``)."""
        beat = update(ServerBeatRow).where(ServerBeatRow.id == 1).values(seen=utc(now))
        if self._locked and self._postgres:
            try:
                pglock.renew(self.engine, self.shared, self._shown)
            except (DBAPIError, DisconnectionError, PoolTimeout) as error:
                raise self._unavailable(error) from None
        with self._use() as session, session.begin():
            if session.execute(beat).rowcount:  # type: ignore[attr-defined]
                return
        with contextlib.suppress(IntegrityError), self._use() as session, session.begin():
            session.add(ServerBeatRow(id=1, seen=utc(now)))

    def give_back_downtime(self, now: datetime, at_least: float = 0.0) -> float:
        """Move every running clock on by the time since the server was last seen running, so the
        time it was down costs nobody; the seconds given back (0 the first time, and when it was down
        less than ``at_least`` seconds)."""
        with self._use() as session, session.begin():
            row = session.get(ServerBeatRow, 1)
            if row is None:
                return 0.0
            down = utc(now) - utc(row.seen)
            if down.total_seconds() <= max(0.0, at_least):
                return 0.0
            query = select(GameRow).where(GameRow.status == Status.PLAYING.value,
                                          GameRow.clock_since.is_not(None))
            for game in session.scalars(query):
                clock = clock_of(game)
                if clock is not None:
                    for key, value in clock_values(clock.shifted(down)).items():
                        setattr(game, key, value)
            row.seen = utc(now)
            return down.total_seconds()

    def append_many(self, appends: list[Append]) -> None:
        """Store every append (entries of different games, or later entries of one game after its
        earlier ones), in one transaction: all are stored or none. The rated games they end are rated
        in it too (``on_finished``), so a game's end and its rating changes are stored together. The
        games' rows are updated in the order of their ids, as every other write of several games
        (``listing.mark_seen``): two such transactions cannot wait for each other (a deadlock)."""
        rows = [_log_values(item) for item in appends]
        games = sorted((_game_values(item) for item in appends), key=lambda values: values["game"])
        with self._use() as session, session.begin():
            connection = session.connection()
            try:
                connection.execute(insert(_LOG), rows)
            except IntegrityError:
                raise LogConflict(f"the log of {', '.join(sorted({a.game_id for a in appends}))} already "
                                  "holds an entry at that index") from None
            connection.execute(_SET_STATUS, games)
            ended = [item for item in appends if item.status == Status.OVER]
            if ended and self.on_finished is not None:
                self.on_finished(session, [item.game_id for item in ended],
                                      max(item.entry.time for item in ended))

    def add_chat(self, game_id: str, room: str, seat: int | None, name: str, text: str, time: datetime,
                 tries: int = 3, cap: int | None = None, account: int | None = None) -> int | None:
        """Store a chat message of ``game_id`` under the game's next index (counted from 0: the largest
        stored + 1, read in the same transaction), tried again up to ``tries`` times if another writer
        took that index meanwhile; the index it got, or None (nothing stored) if the game already
        holds ``cap`` messages. ``account``: the author's, if signed in."""

        for attempt in range(tries):
            try:
                with self._use() as session, session.begin():
                    last = session.scalar(select(func.max(ChatRow.index)).where(ChatRow.game_id == game_id))
                    index = 0 if last is None else last + 1
                    if cap is not None and index >= cap:
                        return None
                    session.add(ChatRow(game_id=game_id, index=index, room=room, seat=seat, name=name,
                                        text=text, time=utc(time), account_id=account))
                return index
            except IntegrityError:
                if attempt == tries - 1:
                    raise
        raise ValueError("tries must be at least 1")

    def chat_lines(self, game_id: str, room: str,
                   limit: int) -> list[tuple[int, int | None, str, str, datetime, int | None]]:
        """The last ``limit`` chat messages of a room of ``game_id``, oldest first: (index, seat, name,
        text, time, the author's account) each."""

        query = (
            select(ChatRow.index, ChatRow.seat, ChatRow.name, ChatRow.text, ChatRow.time, ChatRow.account_id)
            .where(ChatRow.game_id == game_id, ChatRow.room == room)
            .order_by(ChatRow.index.desc())
            .limit(limit)
        )
        with self._use() as session:
            rows = [(i, seat, name, text, utc(time), account)
                    for i, seat, name, text, time, account in session.execute(query)]
        return rows[::-1]

    def set_chat_mute(self, game_id: str, seat: int, muted: bool) -> None:
        """Store (``muted``) or remove that ``seat`` of ``game_id`` muted the other player's chat."""

        with self._use() as session, session.begin():
            row = session.get(ChatMuteRow, (game_id, seat))
            if muted and row is None:
                session.add(ChatMuteRow(game_id=game_id, seat=seat))
            elif not muted and row is not None:
                session.delete(row)

    def chat_mutes(self, game_id: str) -> set[int]:
        """The seats of ``game_id`` that muted the other player's chat."""

        with self._use() as session:
            return set(session.scalars(select(ChatMuteRow.seat).where(ChatMuteRow.game_id == game_id)))


@dataclass(frozen=True, slots=True)
class Append:
    """One log entry to store with its game's new status and winner."""

    game_id: str
    entry: Entry
    status: Status
    winner: int | None
    clock: Clock | None = None
    """The game's clock after the entry (None: untimed)."""
    ended: Ending | None = None


_GAMES = Base.metadata.tables[GameRow.__tablename__]
_LOG = Base.metadata.tables[LogRow.__tablename__]
_CHANGED = ("clock_ms0", "clock_ms1", "clock_seat", "clock_since", "deadline", "ended", "moved")
_SET_STATUS = (
    update(_GAMES)
    .where(_GAMES.c.id == bindparam("game"))
    .values(status=bindparam("new_status"), winner=bindparam("new_winner"),
            **{name: bindparam(f"new_{name}") for name in _CHANGED})
)
"""A game's new status, winner, clock, ending and last move, for many games at once (executemany)."""


def _game_values(item: Append) -> dict[str, Any]:
    values = {"game": item.game_id, "new_status": str(item.status), "new_winner": item.winner,
              "new_ended": str(item.ended) if item.ended else None, "new_moved": utc(item.entry.time)}
    values.update({f"new_{key}": value for key, value in clock_values(item.clock).items()})
    return values


def _log_values(item: Append) -> dict[str, Any]:
    entry = item.entry
    return {"game_id": item.game_id, "index": entry.index, "kind": entry.kind, "notation": entry.notation,
            "seat": entry.seat, "time": utc(entry.time), "spent_ms": entry.spent_ms}
