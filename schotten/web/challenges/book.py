"""The ``challenges`` table (every function is a blocking call: run it with ``db``).

| what     | rule                                                                                    |
|----------|-----------------------------------------------------------------------------------------|
| pending  | ``status = "pending"`` and ``expires > now``; a pending one past ``expires`` is expired |
| limit    | at most ``most`` pending sent by one player, counted under a lock of their account row   |
| once     | a challenge is closed (accepted, declined, cancelled) by one ``UPDATE ... WHERE pending`` |
| accepted | its game row is inserted in the same transaction as it is closed, or neither is stored   |
| banned   | a ban cancels every pending challenge sent by or to the account, in the ban's transaction |
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import Update, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from ..core.clock import TimeControl
from ..storage.challenge_rows import ChallengeRow
from ..storage.db import AccountRow, utc
from ..storage.rows import GameInfo, row_of
from ..storage.store import Store
from .models import ChallengeView, Reason, State

PENDING = "pending"


class _Gone(Exception):
    """The challenge was no longer pending: its acceptance is rolled back."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A stored challenge with its two players' names."""

    id: str
    challenger_id: int
    challenger: str
    player_id: int
    player: str
    variant: str
    control: TimeControl | None
    rated: bool
    seat: int | None
    hidden: bool
    status: str
    reason: str | None
    game: str | None
    created: datetime
    expires: datetime

    def state(self, now: datetime) -> State:
        """Its state at ``now`` (a pending one past its time is expired)."""
        if self.status == PENDING:
            return "expired" if self.expires <= utc(now) else "pending"
        state: State = self.status  # type: ignore[assignment]
        return state

    def view(self, now: datetime) -> ChallengeView:
        """It as the API shows it."""
        state = self.state(now)
        left = int((self.expires - utc(now)).total_seconds() * 1000) if state == "pending" else 0
        reason: Reason | None = self.reason  # type: ignore[assignment]
        return ChallengeView(id=self.id, challenger=self.challenger, player=self.player, variant=self.variant,
                             clock=None if self.control is None else self.control.to_dict(), rated=self.rated,
                             seat=self.seat, state=state, reason=reason, game=self.game,
                             url=None if self.game is None else f"/game/{self.game}",
                             created=self.created.isoformat(), expires=self.expires.isoformat(),
                             expires_in=max(0, left))


_CHALLENGER, _PLAYER = aliased(AccountRow), aliased(AccountRow)
_QUERY = (select(ChallengeRow, _CHALLENGER.username, _PLAYER.username)
          .join(_CHALLENGER, _CHALLENGER.id == ChallengeRow.challenger_id)
          .join(_PLAYER, _PLAYER.id == ChallengeRow.player_id))


def _challenge(row: ChallengeRow, challenger: str, player: str) -> Challenge:
    control = (None if row.clock_initial is None and row.clock_days is None
               else TimeControl(row.clock_initial, row.clock_increment or 0, row.clock_days))
    return Challenge(row.id, row.challenger_id, challenger, row.player_id, player, row.variant, control,
                     bool(row.rated), row.seat, bool(row.hidden), row.status, row.reason, row.game_id,
                     utc(row.created), utc(row.expires))


def row_for(challenge_id: str, challenger: int, player: int, variant: str, control: TimeControl | None,
            rated: bool, seat: int | None, hidden: bool, now: datetime, ttl: float) -> ChallengeRow:
    """The row of a new pending challenge, expiring ``ttl`` seconds after ``now``."""
    return ChallengeRow(id=challenge_id, challenger_id=challenger, player_id=player, variant=variant,
                        clock_initial=None if control is None else control.initial,
                        clock_increment=None if control is None or control.days else control.increment,
                        clock_days=None if control is None else control.days, rated=rated, seat=seat,
                        hidden=hidden, status=PENDING, reason=None, game_id=None, created=utc(now),
                        expires=utc(now + timedelta(seconds=ttl)))


def _closing(challenge_id: str, now: datetime) -> Update:
    """The ``UPDATE`` that closes the challenge if it is still pending (its ``values`` to be set)."""
    return update(ChallengeRow).where(ChallengeRow.id == challenge_id, ChallengeRow.status == PENDING,
                                      ChallengeRow.expires > utc(now))


def cancel_banned(session: Session, account_id: int, now: datetime) -> list[Challenge]:
    """Cancel every pending challenge sent by or to ``account_id`` (a moderator banned them), in the
    caller's transaction: those challenges, cancelled."""
    mine = or_(ChallengeRow.challenger_id == account_id, ChallengeRow.player_id == account_id)
    query = _QUERY.where(mine, ChallengeRow.status == PENDING, ChallengeRow.expires > utc(now))
    cancelled = []
    for found in session.execute(query).all():
        challenge = _challenge(*found)
        done = session.execute(_closing(challenge.id, now).values(status="cancelled"),
                               execution_options={"synchronize_session": False})
        if done.rowcount:  # type: ignore[attr-defined]
            cancelled.append(replace(challenge, status="cancelled"))
    return cancelled


class Book:
    """The challenges of ``store``."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(self, row: ChallengeRow, most: int) -> bool:
        """Store ``row`` unless its challenger already has ``most`` pending: whether it was stored."""
        with self.store.use() as session, session.begin():
            session.execute(select(AccountRow.id).where(AccountRow.id == row.challenger_id).with_for_update())
            pending = session.scalar(select(func.count()).select_from(ChallengeRow).where(
                ChallengeRow.challenger_id == row.challenger_id, ChallengeRow.status == PENDING,
                ChallengeRow.expires > row.created))
            if int(pending or 0) >= most:
                return False
            session.add(row)
        return True

    def get(self, challenge_id: str) -> Challenge | None:
        """The challenge ``challenge_id``, or None."""
        with self.store.use() as session:
            found = session.execute(_QUERY.where(ChallengeRow.id == challenge_id)).first()
        return None if found is None else _challenge(*found)

    def recent(self, player: int, since: datetime) -> list[Challenge]:
        """The challenges sent by or to ``player`` since ``since``, newest first (hidden ones sent to
        ``player`` left out)."""
        mine = or_(ChallengeRow.challenger_id == player,
                   (ChallengeRow.player_id == player) & ChallengeRow.hidden.is_(False))
        query = _QUERY.where(mine, ChallengeRow.created >= utc(since)).order_by(ChallengeRow.created.desc())
        with self.store.use() as session:
            return [_challenge(*found) for found in session.execute(query.limit(50)).all()]

    def banned(self, *account_ids: int) -> bool:
        """Whether a moderator banned any of ``account_ids``."""
        with self.store.use() as session:
            return session.scalars(select(AccountRow.id).where(
                AccountRow.id.in_(account_ids), AccountRow.banned.is_not(None)).limit(1)).first() is not None

    def close(self, challenge_id: str, status: str, now: datetime, reason: str | None = None) -> bool:
        """Close a pending challenge as ``status``: whether it was pending (and is closed now)."""
        with self.store.use() as session, session.begin():
            done = session.execute(_closing(challenge_id, now).values(status=status, reason=reason))
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def accept(self, challenge_id: str, info: GameInfo, now: datetime) -> bool:
        """Insert the game ``info`` and close the challenge as accepted with it, in one transaction:
        whether it was still pending (if not, nothing is stored)."""
        closing = _closing(challenge_id, now).values(status="accepted", game_id=info.id)
        with self.store.use() as session:
            try:
                with session.begin():
                    session.add(row_of(info))
                    session.flush()
                    if not session.execute(closing).rowcount:  # type: ignore[attr-defined]
                        raise _Gone()
            except _Gone:
                return False
        return True
