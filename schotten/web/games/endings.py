"""A game ended off the board: resigned, aborted, claimed over a player who left, on time, abandoned
(an untimed friend game with no move for long, a game against the AI its human left)."""

from __future__ import annotations

from collections.abc import Callable

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
        def flagged(game: LiveGame) -> int | None:
            clock = game.info.clock
            if clock is None or clock.running is None or not clock.flagged(self.context.now()):
                return None
            return clock.running
        return await self._end_if(game_id, Ending.TIME, flagged)

    async def abandon(self, game_id: str) -> bool:
        """Close the untimed friend game ``game_id`` as abandoned if nothing was played there for
        ``abandon_after``; whether it was."""
        def idle(game: LiveGame) -> int | None:
            quiet = (self.context.now() - (game.info.moved or game.info.created)).total_seconds()
            if (game.info.clock is not None or game.info.mode != Mode.FRIEND
                    or quiet < self.context.settings.abandon_after):
                return None
            return game.state.turn
        return await self._end_if(game_id, Ending.ABANDONED, idle)

    async def abandon_ai(self, game_id: str) -> bool:
        """Close the game against the AI ``game_id`` as abandoned if no socket of its human is connected
        (the database says nobody was there for ``ai_leave_after``); whether it was."""
        def left(game: LiveGame) -> int | None:
            human = None if game.info.ai_seat is None else 1 - game.info.ai_seat
            if game.info.mode != Mode.AI or human is None or game.connected(human):
                return None
            return game.state.turn
        return await self._end_if(game_id, Ending.ABANDONED, left)

    async def forfeit_banned(self, game_id: str, seat: int) -> bool:
        """A moderator banned the player of ``seat``: the game ``game_id``, if still being played, is
        lost by that seat (``banned``); whether it ended."""
        return await self._end_if(game_id, Ending.BANNED, lambda _game: seat)

    async def _end_if(self, game_id: str, ending: Ending, seat_of: Callable[[LiveGame], int | None]) -> bool:
        """End the live game ``game_id`` with ``ending`` for the seat ``seat_of(game)`` names, read under
        the game's lock, unless the game is no longer being played or it names none; whether it did."""
        game = await self.tables.live(game_id)
        if game is None:
            return False
        async with game.lock:
            seat = None if game.finished or game.info.status != Status.PLAYING else seat_of(game)
            if seat is None:
                return False
            try:
                await self.play.end(game, ending, seat)
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
