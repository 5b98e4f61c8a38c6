"""The conductor: the one process that plays the AI and keeps the clocks (alone: this one, always).

With several processes the cluster's lease decides who conducts (``conduct``, ``step_down``). On
becoming the conductor the running clocks get back the time nobody kept them, the timekeeper starts,
and every game against the AI being played is loaded so each AI whose turn it is plays.
"""

from __future__ import annotations

import contextlib
from datetime import datetime

from ..core.errors import GameDamaged
from ..core.vocab import Mode
from .aiseat import AiSeat, cancelled
from .context import Context
from .endings import Endings
from .ports import Cluster
from .presence import Presence
from .tables import Tables
from .timekeeper import Timekeeper


class Conductor:
    """Whether this process conducts (``Context.conducting``) and its timekeeper while it does."""

    def __init__(self, context: Context, tables: Tables, aiseat: AiSeat, presence: Presence,
                 endings: Endings, cluster: Cluster) -> None:
        self.context = context
        self.tables = tables
        self.aiseat = aiseat
        self.presence = presence
        self.endings = endings
        self.cluster = cluster
        self.timekeeper: Timekeeper | None = None

    async def conduct(self) -> None:
        """Become the conductor: give the running clocks back the time nobody kept them, keep time
        and play every AI whose turn it is."""
        if self.context.closing or self.context.conducting:
            return
        self.context.conducting = True
        self.timekeeper = Timekeeper(self.context, self.endings, self.cluster)
        await self.timekeeper.give_back_downtime()
        await self.resume()

    async def step_down(self) -> None:
        """Stop conducting (the lease was lost): the timekeeper and every AI stop here."""
        self.context.conducting = False
        await self.stop()
        self.timekeeper = None
        await cancelled(self.aiseat.tasks())

    async def stop(self) -> None:
        """Stop the timekeeper (it notes when the server stopped)."""
        if self.timekeeper is not None:
            await self.timekeeper.stop()

    async def resume(self) -> None:
        """Load every game against the AI being played, so each AI whose turn it is plays."""
        for game_id in await self.context.db(self.context.store.games_in_play, Mode.AI):
            with contextlib.suppress(GameDamaged):
                game = await self.tables.live(game_id)
                if game is not None:
                    self.aiseat.kick(game)
                if game is not None and game.info.clock is not None:
                    await self.presence.sync_clock(game)
        if self.timekeeper is not None:
            self.timekeeper.start()

    def wake_clocks(self) -> None:
        """Tell the timekeeper a deadline may have changed (it looks again at once)."""
        if self.timekeeper is not None:
            self.timekeeper.wake()

    def expect(self, deadline: datetime) -> None:
        """Another process set a clock running out at ``deadline``: the timekeeper looks again if it
        comes before the next one it knows."""
        if self.timekeeper is not None:
            self.timekeeper.expect(deadline)
