"""What the lobby lists, and when a seat of each game last had a socket open (``games.seen``).

| list              | the rows (each list newest first, at most ``limit``)                               |
|-------------------|-------------------------------------------------------------------------------------|
| open challenges   | open tables created since ``open_since`` that a stranger may join: no rematch table |
|                   | (its free seat is kept for the other player of the game before)                     |
| games in progress | being played, someone there since ``present_since`` (``last_present``)              |
| finished games    | over, but not abandoned (nobody played those to their end)                          |

Each process writes ``seen`` for the games whose seats have sockets open to it (``mark_seen``), so
every process reads the same lists from the database, and the conductor finds the games against the
AI that no human is at any more (``left_ai_games``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.orm import Session

from ..core.vocab import Ending, Mode, Status
from .db import GameRow, RematchRow, utc
from .rows import GameInfo, info_of, with_links

_BATCH = 500
"""The most games one ``UPDATE`` marks seen."""


def last_present() -> ColumnElement[datetime]:
    """The last time someone was at a game: a seat's socket seen open, else its last entry, else its
    start."""
    return func.coalesce(GameRow.seen, GameRow.moved, GameRow.created)


def _rematch_table() -> ColumnElement[bool]:
    """Whether the game is a rematch table (its free seat kept for the other player)."""
    return select(RematchRow.rematch_id).where(RematchRow.rematch_id == GameRow.id).exists()


def lobby(session: Session, limit: int, open_since: datetime, present_since: datetime) -> list[GameInfo]:
    """The lobby's three lists (see the module's table): open challenges, games in progress, finished."""
    lists = (
        select(GameRow).where(GameRow.status == Status.OPEN.value, GameRow.created >= utc(open_since),
                              ~_rematch_table()),
        select(GameRow).where(GameRow.status == Status.PLAYING.value, last_present() >= utc(present_since)),
        select(GameRow).where(GameRow.status == Status.OVER.value,
                              or_(GameRow.ended.is_(None), GameRow.ended != Ending.ABANDONED.value)),
    )
    infos: list[GameInfo] = []
    for query in lists:
        query = query.order_by(GameRow.created.desc(), GameRow.id).limit(limit)
        infos += [info_of(row) for row in session.scalars(query)]
    return with_links(session, infos)


def mark_seen(session: Session, game_ids: Sequence[str], now: datetime) -> None:
    """Note that a seat of each of ``game_ids`` has a socket open at ``now`` (in the caller's
    transaction). A game whose row another transaction is writing now is passed over (PostgreSQL's
    SKIP LOCKED): that write shows the game alive (``moved``), and this beat then never waits for a
    lock, so it cannot deadlock with a write of several games; the next beat marks it."""
    ids = sorted(set(game_ids))
    for start in range(0, len(ids), _BATCH):
        free = (select(GameRow.id).where(GameRow.id.in_(ids[start:start + _BATCH])).order_by(GameRow.id)
                .with_for_update(skip_locked=True, key_share=True))
        session.execute(update(GameRow).where(GameRow.id.in_(free.scalar_subquery())).values(seen=utc(now)))


def left_ai_games(session: Session, before: datetime, turn_based_before: datetime,
                  limit: int = 100) -> list[str]:
    """Games against the AI being played that nobody was at since ``before`` (turn-based ones: since
    ``turn_based_before``), oldest first."""
    days = GameRow.clock_days.is_not(None)
    query = (
        select(GameRow.id)
        .where(GameRow.status == Status.PLAYING.value, GameRow.mode == Mode.AI.value,
               or_(and_(~days, last_present() < utc(before)),
                   and_(days, last_present() < utc(turn_based_before))))
        .order_by(last_present(), GameRow.id)
        .limit(limit)
    )
    return list(session.scalars(query))
