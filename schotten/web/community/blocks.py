"""Blocking: a player's list of blocked players, and what a block does.

| effect    | rule                                                                                 |
|-----------|--------------------------------------------------------------------------------------|
| Play now  | two entries are never paired when either player blocks the other (``either_blocks``) |
| chat      | a blocked player's lines (as a seat of any game) are not sent to the blocker, live or |
|           | in the history a page loads, as a player or as a spectator                           |
| silence   | the blocked player is told nothing and sees nothing different                        |

``Blocks`` is the ``games.ports.Apart`` of the server. Whom each reader blocks is read when their
socket enters a game (``know``) and kept for ``CACHED`` readers at most; a block or an unblock made
through this process changes it at once, one made through another process within ``REFRESH``
seconds (a line for a reader known longer ago reads their blocks again, in the background).
Challenges and tournaments ask ``either_blocks``.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict
from datetime import datetime

from sqlalchemy import and_, or_, select

from ..core.errors import StoreUnavailable
from ..players.accounts import AccountRef
from ..storage.db import BlockRow
from ..storage.store import Store
from .relations import Listed, Relations, Wording

MAX_BLOCKS = 500
"""How many players one may block."""
CACHED = 10_000
"""How many readers' blocks are kept in memory (the least recently known are forgotten first)."""
REFRESH = 30.0
"""Seconds after which a reader's blocks are read again (made through another process meanwhile)."""


class Blocks:
    """The blocks in the store's database, and the blocks of the readers of this process's sockets."""

    def __init__(self, store: Store, limit: int = MAX_BLOCKS, cached: int = CACHED,
                 refresh: float = REFRESH) -> None:
        self.store = store
        self.relations = Relations(store, BlockRow, limit, Wording("block", "blocked"))
        self.cached = cached
        self.refresh = refresh
        self._known: OrderedDict[int, frozenset[int]] = OrderedDict()
        self._read: dict[int, float] = {}
        self._reading: dict[int, asyncio.Task[None]] = {}

    # ------------------------------------------------------------ the list

    async def block(self, player: AccountRef, name: str, now: datetime) -> bool:
        """Block the player called ``name``: whether they were newly blocked (see ``relations``)."""
        other, added = await asyncio.to_thread(self.relations.add, player, name, now)
        self._change(player.id, other, True)
        return added

    async def unblock(self, player: AccountRef, name: str) -> None:
        """Unblock the player called ``name`` (nothing if they were not blocked)."""
        other = await asyncio.to_thread(self.relations.remove, player, name)
        self._change(player.id, other, False)

    def listed(self, player_id: int) -> list[Listed]:
        """The players ``player_id`` blocks, by name (a blocking call)."""
        return self.relations.listed(player_id)

    def either_blocks(self, a: int | None, b: int | None) -> bool:
        """Whether account ``a`` blocks ``b`` or ``b`` blocks ``a`` (guests block nobody; a blocking call)."""
        return a is not None and b is not None and either_blocks(self.store, a, b)

    # ------------------------------------------------------------ games.ports.Apart

    async def know(self, reader: int) -> None:
        """Read whom ``reader`` blocks and keep it (``hides``)."""
        read = time.monotonic()
        self._remember(reader, await asyncio.to_thread(self.relations.ids, reader), read)

    def hides(self, reader: int | None, author: int | None) -> bool:
        """Whether ``reader`` blocks ``author`` (as known here; known too long ago: read again for the
        next line, in the background)."""
        if reader is None or author is None:
            return False
        if time.monotonic() - self._read.get(reader, -math.inf) > self.refresh:
            self._read_again(reader)
        return author in self._known.get(reader, frozenset())

    def _read_again(self, reader: int) -> None:
        if reader in self._reading:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._reading[reader] = loop.create_task(self._again(reader))

    async def _again(self, reader: int) -> None:
        try:
            await self.know(reader)
        except StoreUnavailable:
            pass
        finally:
            self._reading.pop(reader, None)

    def apart(self, account: int) -> frozenset[int]:
        """The accounts that block ``account`` or that it blocks (a blocking call)."""
        query = select(BlockRow.player_id, BlockRow.other_id).where(
            or_(BlockRow.player_id == account, BlockRow.other_id == account))
        with self.store.use() as session:
            rows = session.execute(query).all()
        return frozenset(int(other if player == account else player) for player, other in rows)

    def _remember(self, reader: int, blocked: frozenset[int], read: float) -> None:
        self._known[reader] = blocked
        self._read[reader] = read
        self._known.move_to_end(reader)
        while len(self._known) > self.cached:
            forgotten, _ = self._known.popitem(last=False)
            self._read.pop(forgotten, None)

    def _change(self, reader: int, other: int, blocked: bool) -> None:
        """Keep a block (or unblock) of a reader already known."""
        known = self._known.get(reader)
        if known is not None:
            self._known[reader] = known | {other} if blocked else known - {other}


def either_blocks(store: Store, a: int, b: int) -> bool:
    """Whether account ``a`` blocks ``b`` or ``b`` blocks ``a`` (a blocking call): what challenges and
    tournaments ask before they pair two players."""
    query = select(BlockRow.player_id).where(or_(and_(BlockRow.player_id == a, BlockRow.other_id == b),
                                                 and_(BlockRow.player_id == b, BlockRow.other_id == a)))
    with store.use() as session:
        return session.scalars(query.limit(1)).first() is not None
