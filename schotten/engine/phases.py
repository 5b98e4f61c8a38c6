"""Phases: which decision the player to move is making (DESIGN 3)."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """Which decision the player to move is making."""

    PLAY = 0
    CLAIM = 1
    DRAW = 2
    STRATEGIST_TAKE = 3
    STRATEGIST_PLACE = 4
    BANSHEE = 5
    TRAITOR_TAKE = 6
    TRAITOR_PLACE = 7
    RECRUIT_DRAW = 8
    RECRUIT_RETURN = 9
    OVER = 10
