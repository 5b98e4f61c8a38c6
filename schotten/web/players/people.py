"""Who sits at each table: the seats' usernames (for accounts) and their ratings in the table's pool,
and why a finished rated game was not rated, as the lobby, "My games" and a table's summary show them
(read fresh: ratings change as games end).
A deleted account has no username here (its seats show the anonymous name the games hold)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..core.vocab import Status, pool_name
from ..storage.db import AccountRow, GameRow, RatingRow
from ..storage.rows import GameInfo
from .ratings import DEFAULT, Glicko, as_of


@dataclass(slots=True)
class Seated:
    """A table's two seats: each one's username if an account plays it, its rating and whether that
    rating is provisional (None and False for a guest, the AI or a free seat)."""

    usernames: list[str | None] = field(default_factory=lambda: [None, None])
    ratings: list[int | None] = field(default_factory=lambda: [None, None])
    provisional: list[bool] = field(default_factory=lambda: [False, False])
    unrated: str | None = None
    """Why the game, created rated, changed no rating when it ended (``rating_rules``), if it did not."""


def pool_of(info: GameInfo) -> str | None:
    """The rating pool of a game (None: untimed, so never rated)."""
    if info.clock is None:
        return None
    return pool_name(info.variant, info.clock.control.turn_based)


def seated(session: Session, infos: Sequence[GameInfo], now: datetime) -> dict[str, Seated]:
    """Each game's ``Seated``, by id (two queries for all of them), the ratings as of ``now``."""
    ids = {owner for info in infos for owner in info.accounts if owner is not None}
    if not ids:
        return {}
    live = (select(AccountRow.id, AccountRow.username)
            .where(AccountRow.id.in_(ids), AccountRow.deleted.is_(None)))
    names: dict[int, str] = {row[0]: row[1] for row in session.execute(live)}
    rows = session.scalars(select(RatingRow).where(RatingRow.account_id.in_(ids)))
    ratings = {(row.account_id, row.pool): as_of(row, now) for row in rows}
    unrated = _unrated(session, [info.id for info in infos if info.rated and info.status == Status.OVER])
    found: dict[str, Seated] = {}
    for info in infos:
        if any(owner is not None for owner in info.accounts):
            found[info.id] = _seats(info, names, ratings)
            found[info.id].unrated = unrated.get(info.id)
    return found


def _unrated(session: Session, ids: list[str]) -> dict[str, str]:
    """Why each of these finished rated games changed no rating, for those that changed none."""
    if not ids:
        return {}
    query = select(GameRow.id, GameRow.unrated).where(GameRow.id.in_(ids), GameRow.unrated.is_not(None))
    return {game_id: reason for game_id, reason in session.execute(query) if reason is not None}


def _seats(info: GameInfo, names: dict[int, str],
           ratings: dict[tuple[int, str], Glicko]) -> Seated:
    seats = Seated()
    pool = pool_of(info)
    for seat, owner in enumerate(info.accounts):
        if owner is None:
            continue
        seats.usernames[seat] = names.get(owner)
        if pool is not None:
            rating = ratings.get((owner, pool), DEFAULT)
            seats.ratings[seat], seats.provisional[seat] = round(rating.rating), rating.provisional
    return seats
