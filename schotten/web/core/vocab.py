"""The words the web layer shares, each defined once: table statuses, modes, AI levels, variants.

Statuses and modes are ``StrEnum``s, so they compare equal to (and encode as) the strings the
JSON API and the database hold. AI levels come from ``schotten.bots.registry`` and variants
from the engine: a level or a variant added there is offered here with no other change.
"""

from __future__ import annotations

from enum import StrEnum

from ...bots.registry import DEFAULT_LEVEL, LEVELS
from ...engine import VARIANTS

__all__ = ["DEFAULT_LEVEL", "LEVEL_NAMES", "POOLS", "VARIANTS", "Ending", "Mode", "Room", "Speed", "Status",
           "pool_name"]


class Status(StrEnum):
    """Where a table is: waiting for its second player, being played, finished, or closed (a
    rematch table whose offer was withdrawn or declined: nobody plays there)."""

    OPEN = "open"
    PLAYING = "playing"
    OVER = "over"
    CLOSED = "closed"


class Mode(StrEnum):
    """Who plays the second seat: the AI or a friend."""

    AI = "ai"
    FRIEND = "friend"


class Ending(StrEnum):
    """How a game ended off the board (``games.ended`` and the ``end`` log entry's notation).

    ``time``, ``resigned``, ``left`` and ``banned`` (by a moderator) lose the match for the seat
    named in the entry (the engine's forfeit, with this reason); ``aborted`` and ``abandoned`` end
    it with no winner."""

    TIME = "time"
    RESIGNED = "resigned"
    LEFT = "left"
    ABORTED = "aborted"
    ABANDONED = "abandoned"
    BANNED = "banned"

    @property
    def forfeits(self) -> bool:
        """Whether the seat named loses the match (else the game ends with no winner)."""
        return self in (Ending.TIME, Ending.RESIGNED, Ending.LEFT, Ending.BANNED)


class Room(StrEnum):
    """A game's two chats: its players', and its spectators' (which the players do not see while
    the game is played)."""

    PLAYERS = "players"
    SPECTATORS = "spectators"


LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)
"""The AI levels offered in the lobby, weakest first (``DEFAULT_LEVEL`` when none is named)."""


class Speed(StrEnum):
    """How fast a rated game is played: each speed has its own ratings, as lichess keeps its apart."""

    REALTIME = "realtime"
    TURNBASED = "turnbased"


def pool_name(variant: str, turn_based: bool) -> str:
    """The rating pool of a game of ``variant`` at a speed: ``"base.realtime"``, ``"tactics.turnbased"``."""
    return f"{variant}.{Speed.TURNBASED if turn_based else Speed.REALTIME}"


POOLS: tuple[str, ...] = tuple(pool_name(v, t) for v in VARIANTS for t in (False, True))
"""Every rating pool: each variant, real-time and turn-based apart."""
