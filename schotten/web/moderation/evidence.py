"""The fair-play signal shown to moderators beside a report: how often a player's moves in their
recent reviewed rated games were the AI's best move, next to the same share among players of their
rating band. A figure to look into, never a verdict by itself (shown to moderators only).

| figure | what it counts |
|---|---|
| ``agreement`` | share of the player's moves that were the best move, last ``GAMES`` reviewed rated games |
| ``band`` | the player's rating band (``BAND`` points wide) in the pool they played most in |
| ``band_agreement`` | the same, last ``SAMPLE`` reviewed rated games of the pool, the band's players' seats |
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from ..core.vocab import Speed
from ..storage.db import GameRow, RatingRow, ReviewRow

GAMES = 20
SAMPLE = 500
BAND = 200


def fair_play(session: Session, account_id: int) -> dict[str, Any]:
    """The player's agreement with the AI's best move and their band's (see the module docstring)."""
    mine = _reviewed(session, or_(GameRow.account0 == account_id, GameRow.account1 == account_id), GAMES)
    agree, total = _tally((game, result, seat) for game, result in mine
                          for seat in (0, 1) if (game.account0, game.account1)[seat] == account_id)
    band = _band(session, account_id)
    figures: dict[str, Any] = {"games": len(mine), "decisions": total,
                               "agreement": round(agree / total, 3) if total else None,
                               "band": None, "band_agreement": None, "band_decisions": 0}
    if band is None:
        return figures
    pool, low = band
    ratings = {row.account_id: row.rating for row in session.scalars(select(RatingRow).where(
        RatingRow.pool == pool, RatingRow.rating >= low, RatingRow.rating < low + BAND))}
    sample = _reviewed(session, _in_pool(pool), SAMPLE)
    agree, total = _tally((game, result, seat) for game, result in sample
                          for seat in (0, 1) if (game.account0, game.account1)[seat] in ratings)
    figures.update(band=f"{pool} {low}-{low + BAND - 1}", band_decisions=total,
                   band_agreement=round(agree / total, 3) if total else None)
    return figures


def _reviewed(session: Session, where: Any, limit: int) -> list[tuple[GameRow, list[dict[str, Any]]]]:
    """The last ``limit`` rated games matching ``where`` with a finished review, and its decisions."""
    query = (select(GameRow, ReviewRow.result).join(ReviewRow, ReviewRow.game_id == GameRow.id)
             .where(ReviewRow.status == "done", GameRow.rated.is_(True), where)
             .order_by(GameRow.created.desc()).limit(limit))
    found = []
    for game, result in session.execute(query):
        decisions = json.loads(result) if result else []
        if isinstance(decisions, list):
            found.append((game, decisions))
    return found


def _in_pool(pool: str) -> Any:
    """The SQL condition of a game of ``pool`` (``vocab.pool_name``: its variant, whether turn-based)."""
    variant, speed = pool.split(".")
    turn_based = GameRow.clock_days.is_not(None) if speed == Speed.TURNBASED else GameRow.clock_days.is_(None)
    return and_(GameRow.variant == variant, turn_based)


def _tally(seats: Any) -> tuple[int, int]:
    """(decisions whose move was the best, decisions) over ``(game, decisions, seat)`` triples."""
    agree = total = 0
    for _game, decisions, seat in seats:
        for decision in decisions:
            if isinstance(decision, dict) and decision.get("seat") == seat + 1:
                total += 1
                agree += decision.get("action") == decision.get("best")
    return agree, total


def _band(session: Session, account_id: int) -> tuple[str, int] | None:
    """The pool the player has the most rated games in, and the low end of their band there."""
    rows = session.scalars(select(RatingRow).where(RatingRow.account_id == account_id,
                                                   RatingRow.games > 0)).all()
    if not rows:
        return None
    row = max(rows, key=lambda r: (r.games, r.pool))
    return row.pool, int(row.rating // BAND) * BAND
