"""The database tables (SQLAlchemy 2 typed ORM): games, their append-only logs, rematches.

A game row holds what was agreed before play (variant, rounds, mode, AI level and seat),
the seed, the two seats (nickname and the SHA-256 of the seat's secret token, never the
token itself), the status and the winner. Its log holds one row per entry, numbered from
0: ``action`` (a move in notation, by a seat) or ``undo`` (a misclick undo, whose
notation lists the moves taken back, ``; `` between them). The game's state is rebuilt
by replaying the log, so nothing else about play is stored. A rematch row links a
finished friend game to the table its rematch is played at (and says which seat asked
for it) while that rematch is asked for or played. An offer withdrawn by the player who made it,
or declined by the other, moves to ``closed_rematches`` (its table's status becomes ``closed``),
so the finished game may be offered a rematch again. The schema is brought to these tables on
start-up by the Alembic migrations of ``migrations/`` (``migrate.upgrade``); a change here comes with a
new revision, and a test checks that the migrated tables equal these.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    make_url,
)
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.expression import false

from .base import Base as Base
from .tournament_tables import TournamentGameRow as TournamentGameRow
from .tournament_tables import TournamentPlayerRow as TournamentPlayerRow
from .tournament_tables import TournamentRow as TournamentRow


class GameRow(Base):
    """One game: its settings, seed, seats, status and result."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16))
    rounds: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    mode: Mapped[str] = mapped_column(String(8))
    ai_level: Mapped[str | None] = mapped_column(String(16))
    ai_seat: Mapped[int | None] = mapped_column(Integer)
    player0: Mapped[str | None] = mapped_column(String(64))
    player1: Mapped[str | None] = mapped_column(String(64))
    token_hash0: Mapped[str | None] = mapped_column(String(64))
    token_hash1: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(8), index=True)
    winner: Mapped[int | None] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    clock_initial: Mapped[int | None] = mapped_column(Integer)
    """Real-time play: each seat's bank at the start, in seconds (None: not real-time)."""
    clock_increment: Mapped[int | None] = mapped_column(Integer)
    """Real-time play: seconds added to a seat's bank after each of its turns."""
    clock_days: Mapped[int | None] = mapped_column(Integer)
    """Turn-based play: days per move (None: not turn-based)."""
    clock_ms0: Mapped[int | None] = mapped_column(BigInteger)
    """Milliseconds seat 0 had left when its clock last stopped or started running."""
    clock_ms1: Mapped[int | None] = mapped_column(BigInteger)
    clock_seat: Mapped[int | None] = mapped_column(Integer)
    """The seat whose clock is running (None: no clock runs)."""
    clock_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When the running clock started running."""
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    """When the running clock runs out (``clock_since`` + its milliseconds left)."""
    ended: Mapped[str | None] = mapped_column(String(16))
    """How a game that did not end on the board ended: time, resigned, aborted, left, abandoned."""
    moved: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    """When the last log entry was stored (an untimed game with no move for long is abandoned)."""
    account0: Mapped[int | None] = mapped_column(Integer, index=True)
    """The account (``accounts.id``) playing seat 0 (None: a guest, the AI or a free seat). No foreign
    key: adding one would make SQLite copy the games table, which the logs refer to."""
    account1: Mapped[int | None] = mapped_column(Integer, index=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether the game was created rated: it changes both accounts' ratings in its pool when it ends."""
    min_rating: Mapped[int | None] = mapped_column(Integer)
    """An open challenge's rating range: who may take the free seat (None: no bound)."""
    max_rating: Mapped[int | None] = mapped_column(Integer)
    unrated: Mapped[str | None] = mapped_column(String(16), index=True)
    """Why a game created rated changed no rating when it ended (``players.rating_rules``; None: it
    did, or it was not created rated)."""
    seen: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a seat's socket was last open to a process (``listing.mark_seen``; None: never seen)."""
    hints: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Whether the human may ask for hints (a table against the AI created with ``hints``)."""
    hints_used: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """How many hints the human was given in this game."""
    clock_bare: Mapped[int | None] = mapped_column(Integer)
    """The seats with no increment (bit 1: seat 0, bit 2: seat 1; None: none): a berserk seat."""


class LogRow(Base):
    """One entry of a game's append-only log: an action or an undo."""

    __tablename__ = "log_entries"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    index: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(8))
    notation: Mapped[str] = mapped_column(String(400))
    seat: Mapped[int] = mapped_column(Integer)
    time: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    spent_ms: Mapped[int | None] = mapped_column(BigInteger)
    """How long the decision took, from when it became the seat's to this entry (None: not timed)."""


class RematchRow(Base):
    """A finished game's rematch: at most one per game (the key), each table the rematch of one game."""

    __tablename__ = "rematches"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    rematch_id: Mapped[str] = mapped_column(ForeignKey("games.id"), unique=True)
    by_seat: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ClosedRematchRow(Base):
    """A rematch offer that was withdrawn or declined before the other seat sat down: one per
    rematch table (the key); a finished game may have several, one after the other."""

    __tablename__ = "closed_rematches"

    rematch_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    by_seat: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(16))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closed: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReviewRow(Base):
    """A finished game's review (``reviews``): a job of the queue while ``queued`` or ``running`` (held by
    the worker whose ``lease`` it names until ``lease_until``), then ``done`` with its decisions as
    JSON in ``result`` (kept: a finished game's review never changes) or ``failed``."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    status: Mapped[str] = mapped_column(String(8), index=True)
    record: Mapped[str] = mapped_column(Text)
    """The game record reviewed (JSON), stored with the job so a worker needs nothing else."""
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[str | None] = mapped_column(Text)
    lease: Mapped[str | None] = mapped_column(String(32))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    requested_by: Mapped[str] = mapped_column(String(64))
    """Who asked: ``account:<id>`` or ``address:<address>``."""
    requested: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class ChatRow(Base):
    """One chat message of a game: ``room`` is ``players`` or ``spectators``; ``seat`` is the author's
    seat (None: a spectator); ``account_id`` the author's account, if signed in (never sent)."""

    __tablename__ = "chat_messages"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    index: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    room: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(String(400))
    time: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    account_id: Mapped[int | None] = mapped_column(Integer)


class ChatMuteRow(Base):
    """A seat of a game that muted the other player's chat."""

    __tablename__ = "chat_mutes"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)


class AccountRow(Base):
    """A player's account. ``name_key`` is the username folded for comparison (case and look-alike
    characters), unique; a deleted account keeps its row (its games name it) without a password."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(20))
    name_key: Mapped[str] = mapped_column(String(20), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    deleted: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    moderator: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Granted and removed from the command line only (``schotten moderators``)."""
    muted_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """A moderator's site-wide chat mute ends then."""
    banned: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When a moderator banned the account (None: not banned)."""
    email: Mapped[str | None] = mapped_column(String(254), index=True)
    """The account's confirmed e-mail address (``players.recovery``; an address not confirmed is in
    its ``AccountTokenRow``), compared in lower case."""
    email_confirmed: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SessionRow(Base):
    """A logged-in browser: the SHA-256 of the session id its cookie holds, never the id itself."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class RatingRow(Base):
    """An account's Glicko-2 rating in one pool (``vocab.pool_name``: a variant and a speed)."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    pool: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    played: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    """When the account's last rated game of this pool ended."""


class RatingChangeRow(Base):
    """What one rated game did to one seat's rating: at most one per game and seat (the key), so a
    game never changes a rating twice; an account's rows are its rating history."""

    __tablename__ = "rating_changes"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    pool: Mapped[str] = mapped_column(String(32))
    rating_before: Mapped[float] = mapped_column(Float)
    rd_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    rd_after: Mapped[float] = mapped_column(Float)
    time: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class PoolEntryRow(Base):
    """A player waiting in "Play now" (the SHA-256 of their waiting ticket is the key): a variant, a
    time control and rated or casual; ``game_id`` and ``seat`` are set once they are paired. A browser
    and an account each have one entry at most (unique ``browser_hash``, the hash of its browser key,
    and unique ``account_id``; guests have none); the ticket is derived from the key and ``salt``."""

    __tablename__ = "pool_entries"
    __table_args__ = (UniqueConstraint("account_id", name="uq_pool_entries_account"),
                      UniqueConstraint("browser_hash", name="uq_pool_entries_browser"))

    ticket_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16), index=True)
    clock_initial: Mapped[int | None] = mapped_column(Integer)
    clock_increment: Mapped[int | None] = mapped_column(Integer)
    clock_days: Mapped[int | None] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"))
    nickname: Mapped[str] = mapped_column(String(64))
    rating: Mapped[float | None] = mapped_column(Float)
    since: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    """When the waiting player last asked how it goes (an entry not seen for long is dropped)."""
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int | None] = mapped_column(Integer)
    browser_hash: Mapped[str | None] = mapped_column(String(64))
    salt: Mapped[str | None] = mapped_column(String(32))


class ServerBeatRow(Base):
    """When the server was last seen running (one row): on start-up the running clocks are given back
    the time it was down."""

    __tablename__ = "server_beats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TrustedDeviceRow(Base):
    """A browser that logged in to an account (a device cookie, ``players.devices``): the SHA-256 of
    the random token its cookie holds, never the token. Its log-in tries for that account are counted
    apart from strangers'; it grants nothing else."""

    __tablename__ = "trusted_devices"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class BlockRow(Base):
    """A player who blocked another (``community.blocks``): never paired with them, their chat hidden."""

    __tablename__ = "blocks"

    player_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class FollowRow(Base):
    """A player who follows another (``community.follows``): their games in progress are on the home page."""

    __tablename__ = "follows"

    player_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True, index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class HealthWriteRow(Base):
    """The health check's own row (one): ``/healthz`` writes it to prove the database can store."""

    __tablename__ = "health_writes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    written: Mapped[datetime] = mapped_column(DateTime(timezone=True))



class ReportRow(Base):
    """A player's report of another: ``context`` holds, as JSON, the chat lines around it as the
    server stored them; ``closed`` is set once a moderator acted on it or cleared it."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    reason: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    text: Mapped[str | None] = mapped_column(String(500))
    context: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    closed: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)


class ModerationRow(Base):
    """One moderator action, appended and never changed: the moderation log."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    moderator_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))
    hours: Mapped[float | None] = mapped_column(Float)
    note: Mapped[str] = mapped_column(String(500))
    report_id: Mapped[int | None] = mapped_column(ForeignKey("reports.id"))
    time: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime (SQLite gives back naive ones)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def make_engine(url: str, busy_timeout: float = 5.0) -> Engine:
    """A SQLAlchemy engine for ``url``; SQLite gets WAL journaling, foreign keys, thread sharing, a
    busy timeout of ``busy_timeout`` seconds (a locked database is refused after that long) and no
    memory-mapped I/O of the database file.

    An in-memory SQLite database (``sqlite://``) is one connection shared by every thread (the
    store serialises its use). A PostgreSQL URL that names no driver (``postgresql://``) uses
    psycopg 3, the driver of the ``postgres`` extra (SQLAlchemy 2.0 would pick psycopg2); its
    connections wait ``busy_timeout`` seconds at most for a lock (``lock_timeout``).
    """
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(parsed, pool_pre_ping=True)
        event.listen(engine, "connect", partial(_lock_timeout, busy_timeout))
        return engine
    args: dict[str, Any] = {"check_same_thread": False, "timeout": busy_timeout}
    if is_memory(url):
        engine = create_engine(parsed, connect_args=args, poolclass=StaticPool)
        event.listen(engine, "connect", _foreign_keys)
        return engine
    engine = create_engine(parsed, connect_args=args, pool_size=8, max_overflow=24)
    event.listen(engine, "connect", _file_pragmas)
    return engine


def is_memory(url: str) -> bool:
    """Whether ``url`` is an in-memory SQLite database."""
    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


def sqlite_path(url: str) -> str | None:
    """The absolute path of the SQLite file of ``url`` (None: not a SQLite file)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or is_memory(url) or parsed.database is None:
        return None
    return os.path.abspath(parsed.database)


def _lock_timeout(seconds: float, connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute(f"SET lock_timeout = {max(1, round(seconds * 1000))}")
    cursor.close()
    connection.commit()


def _foreign_keys(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _file_pragmas(connection: Any, record: Any) -> None:
    _foreign_keys(connection, record)
    cursor = connection.cursor()
    cursor.execute("PRAGMA mmap_size=0")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()

