"""How many wait in each pool, and the pool offered to a player who waits alone. Counts only: never
who waits.

| what  | rule                                                                                          |
|-------|-----------------------------------------------------------------------------------------------|
| count | per pool, the entries still waiting and seen within ``pool_entry_ttl``, read from the database |
|       | (so every process counts the same)                                                            |
| offer | to an entry alone in its pool: the pool of the same variant, rated or casual, and speed       |
|       | (real-time or turn-based) where someone waits; the most waiting, then the first preset        |
"""

from __future__ import annotations

from sqlalchemy import func, select

from ..core.clock import TimeControl
from ..storage.db import PoolEntryRow
from .pairing import PRESETS, Pairing, Waiter, preset_of

Pool = tuple[str, TimeControl, bool]
"""A pool: its variant, its time control, rated or not."""


def counts(pairing: Pairing) -> dict[Pool, int]:
    """How many wait in each pool someone waits in (a blocking call)."""
    cutoff = pairing.cutoff(pairing.authority.now())
    columns = (PoolEntryRow.variant, PoolEntryRow.clock_initial, PoolEntryRow.clock_increment,
               PoolEntryRow.clock_days, PoolEntryRow.rated)
    query = (select(*columns, func.count()).where(PoolEntryRow.game_id.is_(None), PoolEntryRow.seen >= cutoff)
             .group_by(*columns))
    with pairing.authority.store.use() as session:
        rows = session.execute(query).all()
    found = {(variant, TimeControl(initial, increment or 0, days), bool(rated)): count
             for variant, initial, increment, days, rated, count in rows}
    return dict(sorted(found.items(), key=lambda item: (item[0][0], _order(item[0]), item[0][2])))


def _order(pool: Pool) -> int:
    preset = preset_of(pool[1])
    return list(PRESETS).index(preset) if preset is not None else len(PRESETS)


def offer(waiting: dict[Pool, int], waiter: Waiter) -> tuple[Pool, int] | None:
    """The pool offered to ``waiter`` and how many wait there (see the module's table), or None."""
    mine: Pool = (waiter.variant, waiter.control, waiter.rated)
    if waiting.get(mine, 0) > 1:
        return None
    others = [(pool, count) for pool, count in waiting.items()
              if pool != mine and count > 0 and pool[0] == waiter.variant and pool[2] == waiter.rated
              and pool[1].turn_based == waiter.control.turn_based]
    return min(others, key=lambda found: (-found[1], _order(found[0])), default=None)
