"""Play now: players waiting in a pool (``pool_entries``) and the pairing of two of them into a game.

| what       | rule                                                                                     |
|------------|------------------------------------------------------------------------------------------|
| pool       | a variant, a preset time control (``PRESETS``), rated or casual                          |
| compatible | the same pool, another account and browser; rated: ``|r1 - r2| <= min(reach(e1), reach(e2))`` |
| apart      | never two accounts of which either blocks the other (``ports.Apart``)                    |
| reach      | ``pair_range + pair_widen * seconds waited`` (casual pools ignore ratings)               |
| who        | the longest-waiting compatible entry (then by ticket hash)                               |
| once       | one transaction: the game row inserted, then ``UPDATE pool_entries ... WHERE ticket_hash |
|            | IN (a, b) AND game_id IS NULL AND seen >= cutoff``: two rows, or it is rolled back       |
| stale      | an entry not seen for ``pool_entry_ttl`` is never paired, and dropped (a paired one too) |

The update re-checks both rows: on SQLite one writer at a time, on PostgreSQL a row lock (READ
COMMITTED re-reads a row locked by another pairing once it commits), so an entry is in one game at
most. A waiting ticket becomes its seat's token: the game's token hash of that seat is the entry's
``ticket_hash``. Every method is a blocking call (run it in a worker thread).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import case, delete, or_, select, update
from sqlalchemy.exc import DBAPIError

from ...engine import GameState, Settings
from ..core.clock import Clock, TimeControl
from ..core.vocab import Mode, Status, pool_name
from ..games.ports import Apart, Strangers
from ..players import ratings
from ..storage.db import GameRow, PoolEntryRow, utc
from ..storage.rows import GameInfo, row_of

if TYPE_CHECKING:
    from ..games.authority import Authority

PRESETS: dict[str, TimeControl] = {
    "3+2": TimeControl(180, 2),
    "5+5": TimeControl(300, 5),
    "10+10": TimeControl(600, 10),
    "1d": TimeControl(days=1),
    "3d": TimeControl(days=3),
}
"""The time controls one may wait with (real-time minutes+seconds, turn-based days per move)."""
HAND_OVER_KEPT = 600.0
"""Seconds after its pairing in which a ticket with no entry is still answered with its seat (``handed``)."""
RETRY_CODES = frozenset({"40P01", "40001"})
"""PostgreSQL's deadlock and serialization failures: a pairing that meets one is simply not made."""


def preset_of(control: TimeControl) -> str | None:
    """The name of the preset ``control`` is (``"5+5"``, ``"1d"``), or None."""
    return next((name for name, preset in PRESETS.items() if preset == control), None)


@dataclass(frozen=True, slots=True)
class Waiter:
    """A pool entry as a plain value: who waits, in which pool, since when, and their game once paired."""

    ticket_hash: str
    variant: str
    control: TimeControl
    rated: bool
    account: int | None
    nickname: str
    rating: float | None
    since: datetime
    seen: datetime
    game: str | None = None
    seat: int | None = None
    browser: str | None = None
    salt: str | None = None

    @property
    def pool(self) -> str:
        """The rating pool of the games this entry waits for (``vocab.pool_name``)."""
        return pool_name(self.variant, self.control.turn_based)

    def waited(self, now: datetime) -> float:
        """Seconds waited at ``now``."""
        return max(0.0, (now - self.since).total_seconds())


def waiter_of(row: PoolEntryRow) -> Waiter:
    """The plain value of a ``pool_entries`` row."""
    control = TimeControl(row.clock_initial, row.clock_increment or 0, row.clock_days)
    return Waiter(row.ticket_hash, row.variant, control, bool(row.rated), row.account_id, row.nickname,
                  row.rating, utc(row.since), utc(row.seen), row.game_id, row.seat, row.browser_hash,
                  row.salt)


def reach(pair_range: float, pair_widen: float, waiter: Waiter, now: datetime) -> float:
    """How far from its rating a rated entry accepts an opponent at ``now`` (widening as it waits)."""
    return pair_range + pair_widen * waiter.waited(now)


def compatible(a: Waiter, b: Waiter, now: datetime, pair_range: float, pair_widen: float) -> bool:
    """Whether ``a`` and ``b`` may be paired at ``now`` (see the module's table)."""
    if a.ticket_hash == b.ticket_hash or (a.variant, a.control, a.rated) != (b.variant, b.control, b.rated):
        return False
    if a.browser is not None and a.browser == b.browser:
        return False
    if a.account is not None and a.account == b.account:
        return False
    if not a.rated:
        return True
    gap = abs((a.rating or ratings.DEFAULT.rating) - (b.rating or ratings.DEFAULT.rating))
    return gap <= min(reach(pair_range, pair_widen, a, now), reach(pair_range, pair_widen, b, now))


class _Taken(Exception):
    """One of the two entries was paired (or went stale) meanwhile: the pairing is rolled back."""


class Pairing:
    """The pools of ``authority``'s database; the time is ``authority.now`` (tests inject a clock)."""

    def __init__(self, authority: Authority, apart: Apart | None = None) -> None:
        self.authority = authority
        self.apart: Apart = apart if apart is not None else Strangers()

    def cutoff(self, now: datetime) -> datetime:
        """The last time an entry seen before is stale at ``now``."""
        return utc(now - timedelta(seconds=self.authority.settings.pool_entry_ttl))

    def touch(self, ticket_hash: str) -> Waiter | None:
        """The entry of ``ticket_hash``, seen now; None if there is none (also when another request took
        it away meanwhile), or it was stale (dropped)."""
        now = self.authority.now()
        mine = PoolEntryRow.ticket_hash == ticket_hash
        with self.authority.store.use() as session, session.begin():
            row = session.get(PoolEntryRow, ticket_hash)
            if row is None:
                return None
            found = waiter_of(row)
            if found.game is None and found.seen < self.cutoff(now):
                session.execute(delete(PoolEntryRow).where(mine, PoolEntryRow.game_id.is_(None)))
                return None
            seen = session.execute(update(PoolEntryRow).where(mine).values(seen=utc(now)))
            return replace(found, seen=utc(now)) if seen.rowcount else None  # type: ignore[attr-defined]

    def get(self, ticket_hash: str) -> Waiter | None:
        """The entry of ``ticket_hash`` as stored, or None."""
        with self.authority.store.use() as session:
            row = session.get(PoolEntryRow, ticket_hash)
            return None if row is None else waiter_of(row)

    def pair(self, ticket_hash: str) -> str | None:
        """Pair the waiting entry ``ticket_hash`` with the first compatible one: the id of its game (also
        when another pairing took it meanwhile), or None (nobody compatible; stale; no such entry)."""
        now = self.authority.now()
        me, others = self._candidates(ticket_hash, now)
        if me is None or me.game is not None:
            return None if me is None else me.game
        settings = self.authority.settings
        apart = self.apart.apart(me.account) if me.account is not None else frozenset()
        for other in others:
            if other.account in apart or not compatible(me, other, now, settings.pair_range,
                                                        settings.pair_widen):
                continue
            made = self._pair(me, other, now)
            if made is not None:
                return made
            again = self.get(ticket_hash)
            if again is None or again.game is not None:
                return None if again is None else again.game
        return None

    def _candidates(self, ticket_hash: str, now: datetime) -> tuple[Waiter | None, list[Waiter]]:
        """The entry (None if missing or stale) and the fresh waiting entries of its pool, oldest first."""
        cutoff = self.cutoff(now)
        with self.authority.store.use() as session:
            row = session.get(PoolEntryRow, ticket_hash)
            if row is None or (row.game_id is None and utc(row.seen) < cutoff):
                return None, []
            me = waiter_of(row)
            query = (select(PoolEntryRow)
                     .where(PoolEntryRow.variant == row.variant, PoolEntryRow.rated == row.rated,
                            PoolEntryRow.clock_initial.is_not_distinct_from(row.clock_initial),
                            PoolEntryRow.clock_increment.is_not_distinct_from(row.clock_increment),
                            PoolEntryRow.clock_days.is_not_distinct_from(row.clock_days),
                            PoolEntryRow.game_id.is_(None), PoolEntryRow.seen >= cutoff,
                            PoolEntryRow.ticket_hash != ticket_hash)
                     .order_by(PoolEntryRow.since, PoolEntryRow.ticket_hash))
            return me, [waiter_of(other) for other in session.scalars(query)]

    def _pair(self, a: Waiter, b: Waiter, now: datetime) -> str | None:
        """Make the game of ``a`` and ``b`` and mark both entries paired, in one transaction; the game's
        id, or None if either was taken (or went stale) meanwhile: then nothing is stored."""
        seats = [a, b] if secrets.randbelow(2) == 0 else [b, a]
        info = self._game(seats, now)
        marked = (update(PoolEntryRow)
                  .where(PoolEntryRow.ticket_hash.in_([a.ticket_hash, b.ticket_hash]),
                         PoolEntryRow.game_id.is_(None), PoolEntryRow.seen >= self.cutoff(now))
                  .values(game_id=info.id, seat=case((PoolEntryRow.ticket_hash == seats[0].ticket_hash, 0),
                                                     else_=1)))
        with self.authority.store.use() as session:
            try:
                with session.begin():
                    session.add(row_of(info))
                    session.flush()
                    if session.execute(marked).rowcount != 2:  # type: ignore[attr-defined]
                        raise _Taken()
            except _Taken:
                return None
            except DBAPIError as error:
                if getattr(error.orig, "sqlstate", None) in RETRY_CODES:
                    return None
                raise
        return info.id

    def _game(self, seats: list[Waiter], now: datetime) -> GameInfo:
        """The new game of two entries (seat 0 first): a friend game being played, its clock running."""
        seed = self.authority.new_seed()
        control = seats[0].control
        turn = GameState.new(Settings.of(seats[0].variant, 1), seed).turn
        return GameInfo(
            id=secrets.token_hex(8), variant=seats[0].variant, rounds=1, seed=seed, mode=Mode.FRIEND,
            level=None, ai_seat=None, players=[w.nickname for w in seats],
            token_hashes=[w.ticket_hash for w in seats], status=Status.PLAYING, created=now,
            clock=Clock.new(control).start(turn, now), moved=now,
            accounts=[w.account for w in seats], rated=seats[0].rated,
        )

    def hand_over(self, ticket_hash: str) -> Waiter | None:
        """The paired entry of ``ticket_hash`` (its game has its ticket as seat token), or None if it is
        not paired. The entry is kept until it is stale: a press sent with it at the same moment, or
        its account's from another browser, is answered with its game (``entries``)."""
        found = self.get(ticket_hash)
        return found if found is not None and found.game is not None else None

    def handed(self, ticket_hash: str) -> Waiter | None:
        """The seat a ticket with no entry was handed (its entry deleted by a hand-over whose answer may
        have been lost): the game of the last ``HAND_OVER_KEPT`` seconds whose seat token is the ticket,
        as a paired entry; None if there is none. The ticket's holder holds that seat's token."""
        since = utc(self.authority.now() - timedelta(seconds=HAND_OVER_KEPT))
        seated = or_(GameRow.token_hash0 == ticket_hash, GameRow.token_hash1 == ticket_hash)
        query = select(GameRow).where(GameRow.created >= since, GameRow.mode == Mode.FRIEND, seated)
        with self.authority.store.use() as session:
            row = session.scalars(query.limit(1)).first()
            if row is None:
                return None
            seat = 0 if row.token_hash0 == ticket_hash else 1
            control = TimeControl(row.clock_initial, row.clock_increment or 0, row.clock_days)
            created = utc(row.created)
            return Waiter(ticket_hash, row.variant, control, bool(row.rated), None, "", None, created,
                          created, row.id, seat)

    def cancel(self, ticket_hash: str) -> Waiter | None:
        """Stop waiting: the entry as it was (deleted if it was waiting; a paired one is kept for its
        hand-over), or None if there is none."""
        with self.authority.store.use() as session, session.begin():
            row = session.get(PoolEntryRow, ticket_hash)
            if row is None:
                return None
            found = waiter_of(row)
            if row.game_id is None:
                session.execute(delete(PoolEntryRow).where(PoolEntryRow.ticket_hash == ticket_hash,
                                                           PoolEntryRow.game_id.is_(None)))
            return found


def pool_key(waiter: Waiter) -> dict[str, Any]:
    """The pool of an entry as the API names it."""
    return {"variant": waiter.variant, "preset": preset_of(waiter.control) or "",
            "clock": waiter.control.to_dict(), "rated": waiter.rated}
