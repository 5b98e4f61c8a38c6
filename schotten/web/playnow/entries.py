"""Entering a pool: one entry per browser and per account, held by the database's unique keys.

| a press finds, of its browser (or its cookie's ticket) | answer                                    |
|--------------------------------------------------------|-------------------------------------------|
| an entry waiting in the same pool                      | that entry (the same ticket)              |
| an entry paired, its game being played                 | that entry (its game, to hand over)       |
| an entry waiting in another pool; paired, game over    | replaced by a new one                     |

| a press finds, of its account in another browser       | answer                                    |
|--------------------------------------------------------|-------------------------------------------|
| an entry waiting; paired, its game over                | replaced by a new one                     |
| an entry paired, its game being played                 | that entry (its game, no ticket)          |

A paired entry stays until it is stale (``pool_entry_ttl`` after its last poll). One transaction reads
the rows, deletes those it replaces only if unchanged (a waiting one still waiting: all of them, or it
is tried again) and inserts the new row; a concurrent press that inserted first
breaks the unique ``browser_hash`` or ``account_id`` and this press tries again, finding that row. So
two presses at once, on one process or several, make one entry, never a pairing of a browser with
itself. Every method is a blocking call (run it in a worker thread).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import and_, delete, or_, select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from ..core.clock import TimeControl
from ..core.errors import ServiceError
from ..core.vocab import Status, pool_name
from ..players import ratings
from ..storage.db import GameRow, PoolEntryRow, utc
from .pairing import RETRY_CODES, Pairing, Waiter, waiter_of

if TYPE_CHECKING:
    from ..players.accounts import AccountRef

TRIES = 5
"""How many times a press meeting another at the same moment is tried again."""
BUSY = "Play now is busy with other entries of this browser or account at this very moment: try again"


@dataclass(frozen=True, slots=True)
class Entry:
    """A press of Play now: the new entry's ticket hash and salt, its browser, its pool, who."""

    ticket_hash: str
    salt: str
    browser: str
    variant: str
    control: TimeControl
    rated: bool
    account: AccountRef | None
    nickname: str
    old_ticket_hash: str | None = None
    """The ticket the browser's cookie held (an entry from before a log-in is this browser's too)."""

    def same_pool(self, row: PoolEntryRow) -> bool:
        """Whether ``row`` waits in this entry's pool."""
        control = self.control
        return (row.variant, row.rated, row.clock_initial, row.clock_increment, row.clock_days) == (
            self.variant, self.rated, control.initial, None if control.turn_based else control.increment,
            control.days)


class _Replaced(Exception):
    """An entry to replace was paired meanwhile: the press is tried again."""


class Entries:
    """Entering the pools of ``pairing``'s database."""

    def __init__(self, pairing: Pairing) -> None:
        self.pairing = pairing
        self.authority = pairing.authority

    def enter(self, entry: Entry) -> Waiter:
        """The entry of ``entry``'s browser after the press (see the module's table): the new one, or
        the one it already had; 503 if presses at the same moment kept meeting."""
        self.sweep()
        for _ in range(TRIES):
            try:
                return self._enter(entry)
            except (_Replaced, IntegrityError):
                continue
            except DBAPIError as error:
                if getattr(error.orig, "sqlstate", None) not in RETRY_CODES:
                    raise
        raise ServiceError(503, BUSY)

    def sweep(self) -> None:
        """Drop the entries not seen for ``pool_entry_ttl``."""
        cutoff = self.pairing.cutoff(self.authority.now())
        try:
            with self.authority.store.use() as session, session.begin():
                session.execute(delete(PoolEntryRow).where(PoolEntryRow.seen < cutoff))
        except DBAPIError as error:
            if getattr(error.orig, "sqlstate", None) not in RETRY_CODES:
                raise

    def _enter(self, entry: Entry) -> Waiter:
        now = self.authority.now()
        cutoff = self.pairing.cutoff(now)
        with self.authority.store.use() as session, session.begin():
            mine = self._rows(session, entry)
            for row, status in mine:
                if status == Status.PLAYING or (row.game_id is None and row.browser_hash == entry.browser
                                                and entry.same_pool(row) and utc(row.seen) >= cutoff):
                    return waiter_of(row)
            if mine:
                self._replace(session, [row for row, _ in mine])
            row = self._row(session, entry, now)
            session.add(row)
            session.flush()
            return waiter_of(row)

    @staticmethod
    def _rows(session: Session, entry: Entry) -> list[tuple[PoolEntryRow, str | None]]:
        """The entries of the press's browser, account and cookie's ticket, with their games' status."""
        whose = [PoolEntryRow.browser_hash == entry.browser]
        if entry.account is not None:
            whose.append(PoolEntryRow.account_id == entry.account.id)
        if entry.old_ticket_hash is not None:
            whose.append(PoolEntryRow.ticket_hash == entry.old_ticket_hash)
        query = (select(PoolEntryRow, GameRow.status).outerjoin(GameRow, GameRow.id == PoolEntryRow.game_id)
                 .where(or_(*whose)))
        return [(row, status) for row, status in session.execute(query)]

    @staticmethod
    def _replace(session: Session, rows: list[PoolEntryRow]) -> None:
        """Delete ``rows``: the waiting ones only if still waiting, the paired ones (their games over)
        only if still in that game; else the press is tried again."""
        each = [and_(PoolEntryRow.ticket_hash == row.ticket_hash, PoolEntryRow.game_id.is_(None)
                     if row.game_id is None else PoolEntryRow.game_id == row.game_id) for row in rows]
        gone = session.execute(delete(PoolEntryRow).where(or_(*each)))
        if gone.rowcount != len(rows):  # type: ignore[attr-defined]
            raise _Replaced()

    @staticmethod
    def _row(session: Session, entry: Entry, now: datetime) -> PoolEntryRow:
        account, control = entry.account, entry.control
        rating = None
        if account is not None:
            pool = pool_name(entry.variant, control.turn_based)
            rating = ratings.current(session, [account.id], pool)[account.id].rating
        return PoolEntryRow(ticket_hash=entry.ticket_hash, variant=entry.variant,
                            clock_initial=control.initial,
                            clock_increment=None if control.turn_based else control.increment,
                            clock_days=control.days, rated=entry.rated,
                            account_id=None if account is None else account.id,
                            nickname=entry.nickname if account is None else account.username,
                            rating=rating, since=utc(now), seen=utc(now), browser_hash=entry.browser,
                            salt=entry.salt)
