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

Every call that cannot be done now raises ``errors.StoreUnavailable`` with a sentence naming
the cause (a locked database after the busy timeout, a full disk, a read-only file, a server
down) and counts in ``metrics.STORE_ERRORS``. A SQLite file is checked at each call: deleted or
replaced since the store first saw it (its device and inode), or made read-only, nothing is
stored any more. An in-memory SQLite database is one connection: its calls run one at a time.
``append_many`` writes several games' entries in one transaction (``writer`` uses it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, false, func, insert, make_url, or_, select, update
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

from ..core import metrics
from ..core.clock import Clock, TimeControl
from ..core.errors import LogConflict, StoreUnavailable
from ..core.offer import Offer, OfferState
from ..core.vocab import Ending, Mode, Status
from ..players import ratings
from . import dblock, pglock
from .db import (
    Base,
    ChatMuteRow,
    ChatRow,
    ClosedRematchRow,
    GameRow,
    LogRow,
    RematchRow,
    ServerBeatRow,
    is_memory,
    make_engine,
    sqlite_path,
    utc,
)
from .migrate import UnknownRevision, upgrade

logger = logging.getLogger("schotten.web")

ACTION = "action"
UNDO = "undo"
END = "end"
"""The kind of the entry that ends a game off the board (its notation: an ``Ending``)."""


@dataclass(slots=True)
class GameInfo:
    """A game's row: settings, seed, seats (nicknames, token hashes), status and winner.

    ``rematch`` is this game's rematch offer while it is open or accepted, ``rematch_of`` the game
    this table is the rematch of. ``rematch_closed`` is, for a finished game with no rematch,
    its last offer that was withdrawn or declined (if any); for a closed rematch table, its own.
    ``clock`` is the game's clock (None: untimed), ``ended`` how it ended off the board (None: it
    did not), ``moved`` when its last entry was stored.
    """

    id: str
    variant: str
    rounds: int
    seed: int
    mode: Mode
    level: str | None
    ai_seat: int | None
    players: list[str | None]
    token_hashes: list[str | None]
    status: Status
    winner: int | None = None
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    rematch: Offer | None = None
    rematch_of: str | None = None
    rematch_closed: Offer | None = None
    clock: Clock | None = None
    ended: Ending | None = None
    moved: datetime | None = None
    accounts: list[int | None] = field(default_factory=lambda: [None, None])
    """The account of each seat (None: a guest, the AI or a free seat)."""
    rated: bool = False
    rating_range: tuple[int | None, int | None] = (None, None)
    """An open challenge's bounds on the rating of who may take its free seat."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry: ``kind`` is ``action``, ``undo`` or ``end``; ``index`` counts from 0;
    ``spent_ms`` is how long the decision took (None: untimed)."""

    index: int
    kind: str
    notation: str
    seat: int
    time: datetime = field(default_factory=lambda: datetime.now(UTC))
    spent_ms: int | None = None


def info_of(row: GameRow) -> GameInfo:
    """The game of a ``games`` row (without its rematch links: see ``with_links``)."""
    return GameInfo(
        id=row.id,
        variant=row.variant,
        rounds=row.rounds,
        seed=row.seed,
        mode=Mode(row.mode),
        level=row.ai_level,
        ai_seat=row.ai_seat,
        players=[row.player0, row.player1],
        token_hashes=[row.token_hash0, row.token_hash1],
        status=Status(row.status),
        winner=row.winner,
        created=utc(row.created),
        clock=_clock_of(row),
        ended=Ending(row.ended) if row.ended else None,
        moved=utc(row.moved) if row.moved is not None else None,
        accounts=[row.account0, row.account1],
        rated=bool(row.rated),
        rating_range=(row.min_rating, row.max_rating),
    )


def _clock_of(row: GameRow) -> Clock | None:
    """The game's clock from its columns (None: untimed)."""
    if row.clock_initial is None and row.clock_days is None:
        return None
    control = TimeControl(row.clock_initial, row.clock_increment or 0, row.clock_days)
    left = (control.allowance_ms if row.clock_ms0 is None else row.clock_ms0,
            control.allowance_ms if row.clock_ms1 is None else row.clock_ms1)
    since = utc(row.clock_since) if row.clock_since is not None else None
    return Clock(control, left, row.clock_seat if since is not None else None, since)


def clock_values(clock: Clock | None) -> dict[str, Any]:
    """The games columns that hold what changes of a clock (all None for an untimed game)."""
    if clock is None:
        return {"clock_ms0": None, "clock_ms1": None, "clock_seat": None, "clock_since": None,
                "deadline": None}
    return {"clock_ms0": clock.left[0], "clock_ms1": clock.left[1], "clock_seat": clock.running,
            "clock_since": utc(clock.since) if clock.since else None,
            "deadline": utc(clock.deadline) if clock.deadline else None}


def row_of(info: GameInfo) -> GameRow:
    """The ``games`` row of a new game (pairing inserts one in its own transaction)."""
    control = info.clock.control if info.clock is not None else None
    return GameRow(
        clock_initial=control.initial if control else None,
        clock_increment=control.increment if control and not control.turn_based else None,
        clock_days=control.days if control else None,
        ended=str(info.ended) if info.ended else None,
        moved=utc(info.moved) if info.moved else None,
        **clock_values(info.clock),
        id=info.id,
        variant=info.variant,
        rounds=info.rounds,
        seed=info.seed,
        mode=str(info.mode),
        ai_level=info.level,
        ai_seat=info.ai_seat,
        player0=info.players[0],
        player1=info.players[1],
        token_hash0=info.token_hashes[0],
        token_hash1=info.token_hashes[1],
        status=str(info.status),
        winner=info.winner,
        created=utc(info.created),
        account0=info.accounts[0],
        account1=info.accounts[1],
        rated=info.rated,
        min_rating=info.rating_range[0],
        max_rating=info.rating_range[1],
    )


def with_links(session: Session, infos: list[GameInfo]) -> list[GameInfo]:
    """Fill in each game's rematch, its closed offer and the game it is the rematch of (two queries)."""
    ids = [info.id for info in infos]
    if not ids:
        return infos
    query = (
        select(RematchRow, GameRow.token_hash0, GameRow.token_hash1)
        .join(GameRow, GameRow.id == RematchRow.rematch_id)
        .where(or_(RematchRow.game_id.in_(ids), RematchRow.rematch_id.in_(ids)))
    )
    rematches: dict[str, Offer] = {}
    origins: dict[str, str] = {}
    for link, hash0, hash1 in session.execute(query):
        other = hash1 if link.by_seat == 0 else hash0
        state = OfferState.OPEN if other is None else OfferState.ACCEPTED
        rematches[link.game_id] = Offer(link.rematch_id, link.game_id, link.by_seat, state)
        origins[link.rematch_id] = link.game_id
    closed = _closed_links(session, ids)
    for info in infos:
        info.rematch, info.rematch_of = rematches.get(info.id), origins.get(info.id)
        own = closed.get(info.id)
        if own is not None and own.id == info.id:
            info.rematch_of = own.game
        info.rematch_closed = own if info.rematch is None else None
    return infos


def _closed_links(session: Session, ids: list[str]) -> dict[str, Offer]:
    """For each of ``ids``: its own closed offer (a closed rematch table), else its latest one (a game)."""
    query = (
        select(ClosedRematchRow)
        .where(or_(ClosedRematchRow.game_id.in_(ids), ClosedRematchRow.rematch_id.in_(ids)))
        .order_by(ClosedRematchRow.closed, ClosedRematchRow.rematch_id)
    )
    found: dict[str, Offer] = {}
    for row in session.scalars(query):
        offer = Offer(row.rematch_id, row.game_id, row.by_seat, OfferState(row.reason))
        found[row.game_id] = offer
        found[row.rematch_id] = offer
    return found


def _entry(row: LogRow) -> Entry:
    return Entry(row.index, row.kind, row.notation, row.seat, utc(row.time), row.spent_ms)


class Store:
    """Games and logs in the database at ``url`` (see ``db.make_engine``)."""

    def __init__(self, url: str, busy_timeout: float = 5.0, shared: bool = False) -> None:
        """``shared``: served by several processes meeting on Redis (``pglock``), else by this one alone."""
        self.engine = make_engine(url, busy_timeout)
        self.shared = shared
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        self._shown = make_url(url).render_as_string(hide_password=True)
        self._path = sqlite_path(url)
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.RLock() if is_memory(url) else contextlib.nullcontext()
        )
        self._identity: tuple[int, int] | None = None
        self._gone: str | None = None
        self._read_only = False
        self._starting = False
        self._locked = False

    @contextlib.contextmanager
    def _use(self, snapshot: bool = False) -> Iterator[Session]:
        """A session, after the file checks; database errors become ``StoreUnavailable``. With
        ``snapshot`` its reads see one moment of the database (PostgreSQL's REPEATABLE READ: a game's
        row and its log read together agree even while another process appends)."""
        with self._serial:
            self._check_file()
            try:
                with self._session() as session:
                    if snapshot and self.engine.dialect.name == "postgresql":
                        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
                    yield session
            except IntegrityError:
                raise
            except (DBAPIError, DisconnectionError, PoolTimeout) as error:
                raise self._unavailable(error) from None
            self._check_file()

    def use(self) -> contextlib.AbstractContextManager[Session]:
        """A session for the modules that keep their own tables (accounts, ratings, pairing): the same
        file checks, and database errors become ``StoreUnavailable``."""
        return self._use()

    def _unavailable(self, error: SQLAlchemyError) -> StoreUnavailable:
        """The refusal for a failed database call (logged, counted)."""
        metrics.STORE_ERRORS.inc()
        cause = str(getattr(error, "orig", None) or error).splitlines()[0]
        where = self._path or self._shown
        lowered = cause.lower()
        if self._starting:
            return StoreUnavailable(f"the database {where} cannot be used: {cause}")
        if "locked" in lowered or "busy" in lowered:
            text = f"the database {where} is locked by another writer: nothing was stored, try again"
        elif "readonly" in lowered or "read-only" in lowered:
            text = f"the database file {where} is read-only: nothing can be stored"
        elif "full" in lowered:
            text = f"the disk of the database {where} is full: nothing was stored"
        else:
            text = f"the database {where} cannot be used now ({cause}): nothing was stored, try again"
        logger.error("store error: %s", text)
        return StoreUnavailable(text)

    def _check_file(self) -> None:
        """Refuse if the SQLite file was deleted or replaced since it was first seen, or is read-only."""
        if self._path is None:
            return
        if self._gone is not None:
            raise StoreUnavailable(self._gone)
        try:
            found = os.stat(self._path)
        except FileNotFoundError:
            found = None
        except OSError as error:
            metrics.STORE_ERRORS.inc()
            text = f"the database file {self._path} cannot be reached: {error.strerror}"
            raise StoreUnavailable(text) from None
        if self._identity is None:
            if found is not None:
                self._identity = (found.st_dev, found.st_ino)
            return
        if found is None or (found.st_dev, found.st_ino) != self._identity:
            how = "deleted" if found is None else "replaced"
            self._gone = (f"the database file {self._path} was {how} while the server runs: nothing "
                          f"can be stored any more (restore the file and restart the server)")
            metrics.STORE_ERRORS.inc()
            logger.error("store error: %s", self._gone)
            raise StoreUnavailable(self._gone)
        if not os.access(self._path, os.W_OK):
            text = f"the database file {self._path} is read-only: nothing can be stored"
            metrics.STORE_ERRORS.inc()
            if not self._read_only:
                logger.error("store error: %s", text)
            self._read_only = True
            raise StoreUnavailable(text)
        self._read_only = False

    def create_schema(self) -> None:
        """Bring the tables to the newest schema (``migrate.upgrade``: an empty database is created,
        an older one migrated, in one transaction where the database allows)."""
        with self._use() as session, session.begin():
            if self._postgres:
                session.execute(select(func.pg_advisory_xact_lock(pglock.MIGRATING)))
            try:
                upgrade(session.connection())
            except UnknownRevision as error:
                metrics.STORE_ERRORS.inc()
                where = self._path or self._shown
                raise StoreUnavailable(f"the database {where} cannot be used: {error}") from None

    def check(self) -> None:
        """Make sure the database can be used before serving: its folder exists and is writable (a
        SQLite file), the tables exist and a write transaction can begin. ``StoreUnavailable``
        with a sentence naming the path (or the URL, password hidden) if not."""
        if self._path is not None:
            _check_folder(self._path)
            if not self._locked:
                dblock.acquire(self._path)
                self._locked = True
        if self.shared and not self._postgres:
            where = self._path or self._shown
            raise StoreUnavailable(f"the database {where} is SQLite, served by one process: --redis is "
                                   "for several processes on one PostgreSQL database (drop it, or use "
                                   "PostgreSQL)")
        self._starting = True
        try:
            if self._postgres and not self._locked:
                try:
                    pglock.acquire(self.engine, self.shared, self._shown)
                except (DBAPIError, DisconnectionError, PoolTimeout) as error:
                    raise self._unavailable(error) from None
                self._locked = True
            self.create_schema()
            with self._use() as session, session.begin():
                session.execute(update(GameRow).where(false()).values(status=GameRow.status))
        finally:
            self._starting = False

    def close(self) -> None:
        """Close every pooled connection (and let go of the SQLite file's lock, see ``dblock``, or of
        PostgreSQL's serving lock, see ``pglock``)."""
        if self._locked and self._postgres:
            pglock.release(self.engine)
        self.engine.dispose()
        if self._locked and self._path is not None:
            dblock.release(self._path)
        self._locked = False

    @property
    def _postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"

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
            return with_links(session, [info_of(row)])[0], [_entry(e) for e in session.scalars(query)]

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

    def lobby(self, limit: int, open_since: datetime) -> list[GameInfo]:
        """The lobby's tables in three bounded lists, each newest first: at most ``limit`` open tables
        created since ``open_since`` (older ones expired), then ``limit`` games being played, then
        ``limit`` finished games."""
        infos: list[GameInfo] = []
        with self._use() as session:
            for status in (Status.OPEN, Status.PLAYING, Status.OVER):
                query = select(GameRow).where(GameRow.status == status.value)
                if status == Status.OPEN:
                    query = query.where(GameRow.created >= utc(open_since))
                query = query.order_by(GameRow.created.desc(), GameRow.id).limit(limit)
                infos += [info_of(row) for row in session.scalars(query)]
            return with_links(session, infos)

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
                clock = _clock_of(game)
                if clock is not None:
                    for key, value in clock_values(clock.shifted(down)).items():
                        setattr(game, key, value)
            row.seen = utc(now)
            return down.total_seconds()

    def append_many(self, appends: list[Append]) -> None:
        """Store every append (entries of different games, or later entries of one game after its
        earlier ones), in one transaction: all are stored or none. The rated games they end are rated
        in it too (``ratings.rate_finished``), so a game's end and its rating changes are stored together."""
        rows = [_log_values(item) for item in appends]
        games = [_game_values(item) for item in appends]
        with self._use() as session, session.begin():
            connection = session.connection()
            try:
                connection.execute(insert(_LOG), rows)
            except IntegrityError:
                raise LogConflict(f"the log of {', '.join(sorted({a.game_id for a in appends}))} already "
                                  "holds an entry at that index") from None
            connection.execute(_SET_STATUS, games)
            ended = [item for item in appends if item.status == Status.OVER]
            if ended:
                ratings.rate_finished(session, [item.game_id for item in ended],
                                      max(item.entry.time for item in ended))

    def add_chat(self, game_id: str, room: str, seat: int | None, name: str, text: str, time: datetime,
                 tries: int = 3) -> int:
        """Store a chat message of ``game_id`` under the game's next index (counted from 0: the largest
        stored + 1, read in the same transaction), tried again up to ``tries`` times if another writer
        took that index meanwhile; the index it got."""

        for attempt in range(tries):
            try:
                with self._use() as session, session.begin():
                    last = session.scalar(select(func.max(ChatRow.index)).where(ChatRow.game_id == game_id))
                    index = 0 if last is None else last + 1
                    session.add(ChatRow(game_id=game_id, index=index, room=room, seat=seat, name=name,
                                        text=text, time=utc(time)))
                return index
            except IntegrityError:
                if attempt == tries - 1:
                    raise
        raise ValueError("tries must be at least 1")

    def chat_lines(self, game_id: str, room: str,
                   limit: int) -> list[tuple[int, int | None, str, str, datetime]]:
        """The last ``limit`` chat messages of a room of ``game_id``, oldest first: (index, seat, name,
        text, time) each."""

        query = (
            select(ChatRow.index, ChatRow.seat, ChatRow.name, ChatRow.text, ChatRow.time)
            .where(ChatRow.game_id == game_id, ChatRow.room == room)
            .order_by(ChatRow.index.desc())
            .limit(limit)
        )
        with self._use() as session:
            rows = [(i, seat, name, text, utc(time)) for i, seat, name, text, time in session.execute(query)]
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


def _check_folder(path: str) -> None:
    """Refuse a SQLite file whose folder is missing or not writable, or that is read-only."""
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise StoreUnavailable(f"the folder {folder} of the database {path} does not exist: create it "
                               f"or choose another database")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise StoreUnavailable(f"the database file {path} is read-only: the server could store no move")
    if not os.access(folder, os.W_OK):
        raise StoreUnavailable(f"the folder {folder} of the database {path} is not writable: SQLite "
                               f"writes its journal (-wal, -shm) beside the file")
