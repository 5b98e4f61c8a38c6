"""A tournament's rows as plain values, and what players do to them (join, withdraw, pause, cancel).

| change   | allowed                                                                        |
|----------|--------------------------------------------------------------------------------|
| join     | an account, before the end; refused below ``min_rating`` / ``min_games`` rated games |
| withdraw | a player, any time before the end (a game being played goes on)                |
| pause    | an arena player: leaves the waiting list; ``join`` brings them back             |
| cancel   | the creator, before the start                                                  |
| banned   | a moderator's ban: withdrawn from every tournament not over, never paired again |

Every function is blocking and runs in one transaction (run it in a worker thread). Refusals raise
``ServiceError`` with a sentence, and change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ..core.clock import TimeControl
from ..core.errors import ServiceError
from ..core.vocab import pool_name
from ..players import ratings
from ..storage.db import RatingRow, TournamentGameRow, TournamentPlayerRow, TournamentRow, utc

ARENA, SWISS = "arena", "swiss"
CREATED, STARTED, FINISHED, CANCELLED = "created", "started", "finished", "cancelled"
WAITING, PLAYING, PAUSED, WITHDRAWN = "waiting", "playing", "paused", "withdrawn"


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament row as a plain value."""

    id: int
    format: str
    name: str
    variant: str
    control: TimeControl
    rated: bool
    starts_at: datetime
    minutes: int | None
    rounds: int | None
    status: str
    creator: int
    min_rating: int | None
    min_games: int | None
    round: int

    @property
    def ends_at(self) -> datetime | None:
        """When an arena ends (None: a Swiss ends after its rounds)."""
        return None if self.minutes is None else self.starts_at + timedelta(minutes=self.minutes)

    @property
    def pool(self) -> str:
        """The rating pool of its games."""
        return pool_name(self.variant, self.control.turn_based)


def tournament_of(row: TournamentRow) -> Tournament:
    """The plain value of a ``tournaments`` row."""
    control = TimeControl(row.clock_initial, row.clock_increment or 0, row.clock_days)
    return Tournament(row.id, row.format, row.name, row.variant, control, bool(row.rated), utc(row.starts_at),
                      row.minutes, row.rounds, row.status, row.creator_id, row.min_rating, row.min_games,
                      row.round)


def found(session: Session, tournament_id: int, lock: bool = False) -> TournamentRow:
    """The row of ``tournament_id`` (404 if there is none); ``lock``: locked for this transaction."""
    query = select(TournamentRow).where(TournamentRow.id == tournament_id)
    row = session.scalars(query.with_for_update() if lock else query).first()
    if row is None:
        raise ServiceError(404, f"there is no tournament {tournament_id}")
    return row


def over(row: TournamentRow) -> bool:
    """Whether the tournament is finished or cancelled."""
    return row.status in (FINISHED, CANCELLED)


def join(session: Session, tournament_id: int, account_id: int, now: datetime, ticket_hash: str | None = None,
         ) -> str:
    """Join (or come back from a pause or a withdrawal): the player's status. ``ticket_hash``: the
    browser's new ticket (the seat token of the player's next games), kept if given."""
    row = found(session, tournament_id, lock=True)
    if over(row):
        raise ServiceError(409, f"this tournament is {row.status}: it cannot be joined")
    player = session.get(TournamentPlayerRow, (tournament_id, account_id))
    if player is None:
        _check_level(session, tournament_of(row), account_id, now)
        session.add(TournamentPlayerRow(tournament_id=tournament_id, account_id=account_id, status=WAITING,
                                        score=0, joined=utc(now), since=utc(now), ticket_hash=ticket_hash))
        return WAITING
    if ticket_hash is not None:
        player.ticket_hash = ticket_hash
    if player.status in (WAITING, PLAYING):
        return player.status
    player.status = PLAYING if _playing(session, tournament_id, account_id) else WAITING
    player.since = utc(now)
    return player.status


def _check_level(session: Session, tournament: Tournament, account_id: int, now: datetime) -> None:
    """Refuse a player below the tournament's minimum rating or number of rated games."""
    if tournament.min_rating is not None:
        rating = ratings.current(session, [account_id], tournament.pool, now)[account_id].rating
        if rating < tournament.min_rating:
            raise ServiceError(403, f"this tournament is for players rated {tournament.min_rating} or more "
                               f"in {tournament.pool}; your rating there is {round(rating)}")
    if tournament.min_games is not None:
        rated = session.scalar(select(RatingRow.games).where(RatingRow.account_id == account_id,
                                                             RatingRow.pool == tournament.pool)) or 0
        if rated < tournament.min_games:
            raise ServiceError(403, f"this tournament is for players with {tournament.min_games} rated games "
                               f"or more in {tournament.pool}; you have played {rated}")


def _playing(session: Session, tournament_id: int, account_id: int) -> bool:
    """Whether the player has a game of the tournament still being played."""
    seated = (TournamentGameRow.account0 == account_id) | (TournamentGameRow.account1 == account_id)
    query = select(TournamentGameRow.id).where(TournamentGameRow.tournament_id == tournament_id, seated,
                                               TournamentGameRow.ended.is_(None))
    return session.scalars(query.limit(1)).first() is not None


def leave(session: Session, tournament_id: int, account_id: int, status: str) -> str:
    """Withdraw (``WITHDRAWN``) or pause (``PAUSED``, arena only): the player's status."""
    row = found(session, tournament_id, lock=True)
    if over(row):
        raise ServiceError(409, f"this tournament is {row.status}: there is nothing to leave")
    if status == PAUSED and row.format != ARENA:
        raise ServiceError(409, "only an arena can be paused: withdraw from a Swiss tournament instead")
    player = session.get(TournamentPlayerRow, (tournament_id, account_id))
    if player is None:
        raise ServiceError(409, "you have not joined this tournament")
    if row.status == CREATED and status == WITHDRAWN:
        session.delete(player)
        return WITHDRAWN
    if player.status != WITHDRAWN:
        player.status = status
    return player.status


def cancel(session: Session, tournament_id: int, account_id: int) -> None:
    """The creator cancels the tournament before its start."""
    row = found(session, tournament_id, lock=True)
    if row.creator_id != account_id:
        raise ServiceError(403, "only the tournament's creator may cancel it")
    if row.status != CREATED:
        raise ServiceError(409, f"this tournament is {row.status}: only one not started yet can be cancelled")
    cancelled = session.execute(update(TournamentRow).where(TournamentRow.id == tournament_id,
                                                            TournamentRow.status == CREATED)
                                .values(status=CANCELLED))
    if cancelled.rowcount != 1:  # type: ignore[attr-defined]
        raise ServiceError(409, "this tournament has just started: it can no longer be cancelled")


def withdraw_banned(session: Session, account_id: int, now: datetime) -> set[int]:
    """A moderator banned the player: withdrawn from every tournament not finished or cancelled (never
    paired again; a game being played is theirs to lose, their finished results stay in the
    standings), in the caller's transaction. The tournaments whose standings changed."""
    query = (select(TournamentPlayerRow.tournament_id)
             .join(TournamentRow, TournamentRow.id == TournamentPlayerRow.tournament_id)
             .where(TournamentPlayerRow.account_id == account_id, TournamentPlayerRow.status != WITHDRAWN,
                    TournamentRow.status.in_([CREATED, STARTED])))
    changed = set(session.scalars(query))
    if changed:
        session.execute(update(TournamentPlayerRow)
                        .where(TournamentPlayerRow.account_id == account_id,
                               TournamentPlayerRow.tournament_id.in_(sorted(changed)))
                        .values(status=WITHDRAWN, since=utc(now)))
    return changed
