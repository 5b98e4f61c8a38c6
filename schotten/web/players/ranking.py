"""How far a rating is from the leaderboard, in the numbers the profile and the leaderboard show.

| field              | value                                                                          |
|--------------------|--------------------------------------------------------------------------------|
| ``provisional_rd`` | ``glicko2.PROVISIONAL_RD`` (110): a rating whose RD is at least this is provisional |
| ``games_to_ranked``| a provisional rating: about how many more rated games bring its RD under that, |
|                    | Glicko-2 played out against an established opponent of the same rating       |
|                    | (RD ``OPPONENT_RD``), each game a draw; an established one with no rated game  |
|                    | within ``leaderboard_days``: 1; else 0                                         |
| ``new_player_games``| ``games_to_ranked`` of a newcomer (1500, RD 500)                              |
| ``days``, ``size`` | the leaderboard's ``leaderboard_days`` and ``leaderboard_size``                |

A profile has each pool's ``games_to_ranked`` and the ``ranking`` rules; the leaderboard has the
rules with the viewer's ``games_to_ranked`` among them (None for a guest, 0 once ranked).
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..storage.db import RatingRow, utc
from .glicko2 import PROVISIONAL_RD, Glicko, rate
from .ratings import DEFAULT, as_of

OPPONENT_RD = 60.0
"""The RD of the established opponent ``games_to_ranked`` plays against."""
MAX_GAMES = 200
"""``games_to_ranked`` counts no further (a rating's RD falls under the threshold long before)."""


def games_to_ranked(rating: Glicko) -> int:
    """About how many more rated games ``rating`` needs until it is no longer provisional (0: it is
    not): each one a draw against an established opponent of its own rating."""
    games = 0
    while rating.provisional and games < MAX_GAMES:
        rating = rate(rating, [(Glicko(rating.rating, OPPONENT_RD, rating.volatility), 0.5)])
        games += 1
    return games


@functools.cache
def new_player_games() -> int:
    """``games_to_ranked`` of a newcomer."""
    return games_to_ranked(DEFAULT)


def to_ranked(row: RatingRow | None, now: datetime, days: float) -> int:
    """How many more rated games the rating ``row`` (None: none yet) needs to be on the leaderboard as
    of ``now``: its provisional games left, else 1 if its last rated game is older than ``days``."""
    if row is None:
        return new_player_games()
    rating = as_of(row, now)
    if rating.provisional:
        return games_to_ranked(rating)
    return 0 if utc(row.played) >= utc(now) - timedelta(days=days) else 1


def rules(days: float, size: int) -> dict[str, Any]:
    """What makes a player ranked, as numbers: ``{"provisional_rd", "new_player_games", "days",
    "size"}``."""
    return {"provisional_rd": round(PROVISIONAL_RD), "new_player_games": new_player_games(),
            "days": days, "size": size}


def explain_profile(session: Session, account_id: int, profile: dict[str, Any], now: datetime,
                    days: float, size: int) -> dict[str, Any]:
    """``profile`` (``ratings.profile``) with each pool's ``games_to_ranked`` and the ``ranking`` rules."""
    rows = session.scalars(select(RatingRow).where(RatingRow.account_id == account_id))
    for row in rows:
        if row.pool in profile["ratings"]:
            profile["ratings"][row.pool]["games_to_ranked"] = to_ranked(row, now, days)
    profile["ranking"] = rules(days, size)
    return profile


def explain_leaderboard(session: Session, board: dict[str, Any], viewer_id: int | None, now: datetime,
                        days: float, size: int) -> dict[str, Any]:
    """``board`` (``ratings.leaderboard``) with the ``ranking`` rules and, in them, the viewer's
    ``games_to_ranked`` (None for a guest; 0 once ranked)."""
    you, left = board.get("you"), None
    if you is not None and viewer_id is not None:
        row = session.get(RatingRow, (viewer_id, board["pool"]))
        left = 0 if you["rank"] is not None else to_ranked(row, now, days)
    board["ranking"] = rules(days, size) | {"games_to_ranked": left}
    return board
