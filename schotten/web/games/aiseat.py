"""The AI's seat: it decides (in the AI pool) and plays while the decision is its own.

Only the conductor plays the AI (``Context.conducting``). A failed step (say, the database briefly
unavailable) is tried again after a growing wait; a decision whose move could not be stored is
kept for that version and not asked for again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from ...engine import ACTIONS, SchottenError
from ...engine.view import view
from ..core.messages import ClientError
from ..storage.rows import ACTION
from .ai import AiPool, decision_seed
from .context import Context
from .live import LiveGame
from .play import Play
from .tables import Tables

logger = logging.getLogger("schotten.web")


class AiSeat:
    """The AI of every served game against it: one task per game while it is to move (``ai_task``)."""

    AI_RETRY_FIRST = 0.25
    """Seconds before the first retry of a failed AI step; each failure doubles it, up to ``AI_RETRY_CAP``."""
    AI_RETRY_CAP = 10.0

    def __init__(self, context: Context, tables: Tables, play: Play, ai: AiPool) -> None:
        self.context = context
        self.tables = tables
        self.play = play
        self.ai = ai

    def kick(self, game: LiveGame) -> None:
        """Start the game's AI if the decision is its own and it is not already thinking."""
        context = self.context
        if context.closing or not context.conducting or not game.ai_to_move or game.ai_busy:
            return
        game.ai_task = asyncio.create_task(self._run(game))

    def tasks(self) -> list[asyncio.Task[None]]:
        """The AI tasks still at work."""
        games = self.tables.games.values()
        return [g.ai_task for g in games if g.ai_task is not None and not g.ai_task.done()]

    async def _run(self, game: LiveGame) -> None:
        """Decide and play, one action at a time, while the decision is the AI's and the game is served."""
        delay = self.AI_RETRY_FIRST
        try:
            while not self.context.closing and self.tables.games.get(game.info.id) is game:
                try:
                    if not await self._step(game):
                        return
                    delay = self.AI_RETRY_FIRST
                except Exception as error:
                    reason = (str(error).splitlines() or [""])[0][:200]
                    logger.error("the AI of game %s failed (%s: %s); it tries again in %.2f s",
                                 game.info.id, type(error).__name__, reason, delay)
                    await asyncio.sleep(delay)
                    delay = min(2 * delay, self.AI_RETRY_CAP)
        finally:
            game.used = time.monotonic()

    async def _step(self, game: LiveGame) -> bool:
        """One AI decision, played if the game has not changed meanwhile; False when it is not the AI's."""
        async with game.lock:
            if not game.ai_to_move or game.info.ai_seat is None or game.info.level is None:
                return False
            seat, level, version = game.info.ai_seat, game.info.level, game.version
            seen = view(game.state, seat)
        if game.ai_decision is not None and game.ai_decision[0] == version:
            text = game.ai_decision[1]
        else:
            text = await self.ai.decide(level, decision_seed(game.info.seed, version), seen,
                                        lambda: game.watched)
            game.ai_decision = (version, text)
        async with game.lock:
            if game.version != version or not game.ai_to_move:
                return True
            after = game.state.copy()
            try:
                after.apply(text)
            except SchottenError:
                logger.error("game %s: the AI chose %s, which is not legal", game.info.id, text)
                after.apply_id(game.state.legal_action_ids()[0])
            with contextlib.suppress(ClientError):
                await self.play.commit(game, ACTION, str(ACTIONS[after.history[-1]]), seat, after)
        return True


async def cancelled(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait for each to end."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
