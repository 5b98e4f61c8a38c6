"""The words the web layer shares, each defined once: table statuses, modes, AI levels, variants.

Statuses and modes are ``StrEnum``s, so they compare equal to (and encode as) the strings the
JSON API and the database hold. AI levels come from ``schotten.bots.registry`` and variants
from the engine: a level or a variant added there is offered here with no other change.
"""

from __future__ import annotations

from enum import StrEnum

from ..bots.registry import DEFAULT_LEVEL, LEVELS
from ..engine import VARIANTS

__all__ = ["DEFAULT_LEVEL", "LEVEL_NAMES", "VARIANTS", "Mode", "Status"]


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


LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)
"""The AI levels offered in the lobby, weakest first (``DEFAULT_LEVEL`` when none is named)."""
