"""A game ended off the board: resigned, aborted, claimed over a player who left, on time, abandoned
(an untimed friend game with no move for long, a game against the AI its human left)."""

from __future__ import annotations

from ..core.messages import ClientError
from ..core.vocab import Ending, Mode, Status
from .context import Context
from .live import LiveGame
from .play import Play
from .tables import Tables


class Endings:
    """What a seat may ask to end a game, and what the timekeeper ends (each checked under the lock)."""

    def __init__(self, context: Context, tables: Tables, play: Play) -> None:
        self.context = context
        self.tables = tables
        self.play = play

    async def resign(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` resigns: the opponent wins the match (reason ``resigned``)."""
        async with game.lock:
            if not game.can_resign(seat) or seat is None:
                raise ClientError("cannot_resign", _why_not(game, seat, "resign"))
            await self.play.end(game, Ending.RESIGNED, seat)

    async def abort(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` aborts the game before both seats have decided: it ends with no winner."""
        async with game.lock:
            if not game.can_resign(seat) or seat is None:
                raise ClientError("cannot_abort", _why_not(game, seat, "abort"))
            if not game.can_abort(seat):
                raise ClientError("cannot_abort", "both players have made a decision: the game can no "
                                  "longer be aborted (you may resign)")
            await self.play.end(game, Ending.ABORTED, seat)

    async def claim_victory(self, game: LiveGame, seat: int | None) -> None:
        """``seat`` claims the win over an opponent who left (no socket for ``leave_timeout``)."""
        async with game.lock:
            if not game.can_resign(seat) or seat is None:
                raise ClientError("cannot_claim", _why_not(game, seat, "claim the win"))
            if not game.leaving_counts:
                raise ClientError("cannot_claim", "leaving does not count in this game (turn-based or "
                                  "against the AI): the clock decides")
            wait = game.away()[1 - seat]
            if wait is None:
                raise ClientError("cannot_claim", "your opponent is connected: the win cannot be claimed")
            if wait > 0:
                raise ClientError("cannot_claim", f"your opponent may still come back: you may claim "
                                  f"the win in {wait / 1000:.0f} s")
            await self.play.end(game, Ending.LEFT, 1 - seat)

    async def flag(self, game_id: str) -> bool:
        """End the game ``game_id`` on time if its running clock has run out; whether it did."""
        game = await self.tables.live(game_id)
        if game is None:
            return False
        async with game.lock:
            clock = game.info.clock
            if (game.finished or game.info.status != Status.PLAYING or clock is None
                    or clock.running is None or not clock.flagged(self.context.now())):
                return False
            try:
                await self.play.end(game, Ending.TIME, clock.running)
            except ClientError:
                return False
        return True

    async def abandon(self, game_id: str) -> bool:
        """Close the untimed friend game ``game_id`` as abandoned if nothing was played there for
        ``abandon_after``; whether it was."""
        game = await self.tables.live(game_id)
        if game is None:
            return False
        async with game.lock:
            idle = (self.context.now() - (game.info.moved or game.info.created)).total_seconds()
            if (game.finished or game.info.status != Status.PLAYING or game.info.clock is not None
                    or game.info.mode != Mode.FRIEND or idle < self.context.settings.abandon_after):
                return False
            try:
                await self.play.end(game, Ending.ABANDONED, game.state.turn)
            except ClientError:
                return False
        return True

    async def abandon_ai(self, game_id: str) -> bool:
        """Close the game against the AI ``game_id`` as abandoned if no socket of its human is connected
        (the database says nobody was there for ``ai_leave_after``); whether it was."""
        game = await self.tables.live(game_id)
        if game is None:
            return False
        async with game.lock:
            human = None if game.info.ai_seat is None else 1 - game.info.ai_seat
            if (game.finished or game.info.status != Status.PLAYING or game.info.mode != Mode.AI
                    or human is None or game.connected(human)):
                return False
            try:
                await self.play.end(game, Ending.ABANDONED, game.state.turn)
            except ClientError:
                return False
        return True


def _why_not(game: LiveGame, seat: int | None, what: str) -> str:
    """Why ``seat`` may not ``what`` (resign, abort, claim the win) in ``game`` now."""
    if seat is None:
        return f"spectators cannot {what}: open the game with your seat's link"
    if game.finished:
        return f"the game is over: you cannot {what}"
    return f"the game has not started: you cannot {what} before your opponent sits down"
