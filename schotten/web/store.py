"""Storage behind a small interface: games and their append-only logs in a SQL database.

``Store(url)`` works with SQLite (the default, a file) or PostgreSQL through SQLAlchemy;
times are stored in UTC and come back as aware UTC datetimes on both. Its methods are plain
blocking calls; the service runs them in a worker thread. Rows are handed out as the plain
values ``GameInfo`` and ``Entry``, so nothing outside this module touches an ORM session. An
entry is written together with the game's new status in one transaction, so a server killed
at any moment leaves a log that replays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import sessionmaker

from .db import Base, GameRow, LogRow, make_engine, utc

ACTION = "action"
UNDO = "undo"


@dataclass(slots=True)
class GameInfo:
    """A game's row: settings, seed, seats (nicknames, token hashes), status and winner."""

    id: str
    variant: str
    rounds: int
    seed: int
    mode: str
    level: str | None
    ai_seat: int | None
    players: list[str | None]
    token_hashes: list[str | None]
    status: str
    winner: int | None = None
    created: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry: ``kind`` is ``action`` or ``undo``; ``index`` counts from 0."""

    index: int
    kind: str
    notation: str
    seat: int
    time: datetime = field(default_factory=lambda: datetime.now(UTC))


def _info(row: GameRow) -> GameInfo:
    return GameInfo(
        id=row.id,
        variant=row.variant,
        rounds=row.rounds,
        seed=row.seed,
        mode=row.mode,
        level=row.ai_level,
        ai_seat=row.ai_seat,
        players=[row.player0, row.player1],
        token_hashes=[row.token_hash0, row.token_hash1],
        status=row.status,
        winner=row.winner,
        created=utc(row.created),
    )


def _entry(row: LogRow) -> Entry:
    return Entry(row.index, row.kind, row.notation, row.seat, utc(row.time))


class Store:
    """Games and logs in the database at ``url`` (see ``db.make_engine``)."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self._session = sessionmaker(self.engine, expire_on_commit=False)

    def create_schema(self) -> None:
        """Create the tables that do not exist yet."""
        Base.metadata.create_all(self.engine)

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def add_game(self, info: GameInfo) -> None:
        """Store a new game."""
        row = GameRow(
            id=info.id,
            variant=info.variant,
            rounds=info.rounds,
            seed=info.seed,
            mode=info.mode,
            ai_level=info.level,
            ai_seat=info.ai_seat,
            player0=info.players[0],
            player1=info.players[1],
            token_hash0=info.token_hashes[0],
            token_hash1=info.token_hashes[1],
            status=info.status,
            winner=info.winner,
            created=utc(info.created),
        )
        with self._session() as session, session.begin():
            session.add(row)

    def load(self, game_id: str) -> tuple[GameInfo, list[Entry]] | None:
        """A game and its whole log in order, or None if there is no such game.

        An id holding a NUL character names no game (PostgreSQL cannot even compare such text).
        """
        if "\x00" in game_id:
            return None
        with self._session() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            query = select(LogRow).where(LogRow.game_id == game_id).order_by(LogRow.index)
            return _info(row), [_entry(e) for e in session.scalars(query)]

    def recent(self, limit: int) -> list[GameInfo]:
        """The ``limit`` most recently created games, newest first."""
        with self._session() as session:
            query = select(GameRow).order_by(GameRow.created.desc(), GameRow.id).limit(limit)
            return [_info(row) for row in session.scalars(query)]

    def games_in_play(self, mode: str | None = None) -> list[str]:
        """The ids of the games being played (of one mode, if given)."""
        query = select(GameRow.id).where(GameRow.status == "playing")
        if mode is not None:
            query = query.where(GameRow.mode == mode)
        with self._session() as session:
            return list(session.scalars(query))

    def take_seat(self, game_id: str, seat: int, nickname: str, token_hash: str) -> bool:
        """Give the free ``seat`` to a player and start the game; False if the seat was taken."""
        player = GameRow.player0 if seat == 0 else GameRow.player1
        token = GameRow.token_hash0 if seat == 0 else GameRow.token_hash1
        query = (
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.mode == "friend", token.is_(None))
            .values({player: nickname, token: token_hash, GameRow.status: "playing"})
        )
        with self._session() as session, session.begin():
            return bool(session.execute(query).rowcount)  # type: ignore[attr-defined]

    def append(self, game_id: str, entry: Entry, status: str, winner: int | None) -> None:
        """Append ``entry`` to the game's log and set its status and winner, in one transaction."""
        row = LogRow(
            game_id=game_id,
            index=entry.index,
            kind=entry.kind,
            notation=entry.notation,
            seat=entry.seat,
            time=utc(entry.time),
        )
        with self._session() as session, session.begin():
            session.add(row)
            session.execute(update(GameRow).where(GameRow.id == game_id).values(status=status, winner=winner))
