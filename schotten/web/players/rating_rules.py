"""Which rated games change ratings, and why the others do not (in the spirit of lichess's rules).

| reason (``games.unrated``) | a game created rated, ended ``over``, is not rated when ...              |
|----------------------------|---------------------------------------------------------------------------|
| ``aborted``, ``abandoned`` | it ended so                                                               |
| ``few_decisions``          | a seat made fewer than ``MIN_DECISIONS`` decisions (moves that stand: an   |
|                            | undone one does not count), as lichess rates no game aborted or resigned   |
|                            | before each side moved a few times                                        |
| ``pair_limit``             | its two accounts already had ``PAIR_GAMES`` rated games with each other    |
|                            | ended within ``PAIR_WINDOW`` before it (rolling, any pool)                 |

The reason is stored on the game's row in the transaction that stores its end (``ratings``), so the
game, its record and its replay say why, and moderation can find the pairs of accounts with many
such games later (``suspect_pairs``). The accounts of the games being rated are locked first (on
PostgreSQL), so two processes ending games of one pair at once count each other's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from ..core.errors import say, saying
from ..core.vocab import Ending
from ..storage.db import AccountRow, GameRow, LogRow, RatingChangeRow, utc
from ..storage.rows import ACTION, UNDO, UNDO_SEPARATOR

MIN_DECISIONS = 3
"""The fewest decisions each seat must make for a game to be rated."""
PAIR_GAMES = 3
"""How many rated games two accounts may play with each other within ``PAIR_WINDOW``."""
PAIR_WINDOW = timedelta(hours=24)
"""The rolling window of ``PAIR_GAMES``."""
FARMING = ("few_decisions", "pair_limit")
"""The reasons moderation looks at (``suspect_pairs``)."""


class Unrated(StrEnum):
    """Why a game created rated changed no rating (``games.unrated``)."""

    ABORTED = "aborted"
    ABANDONED = "abandoned"
    FEW_DECISIONS = "few_decisions"
    PAIR_LIMIT = "pair_limit"


SAYINGS = {
    Unrated.ABORTED: saying("Not rated: the game was aborted."),
    Unrated.ABANDONED: saying("Not rated: the game was abandoned."),
    Unrated.FEW_DECISIONS: saying("Not rated: a player made fewer than {n} decisions."),
    Unrated.PAIR_LIMIT: saying("Not rated: these two players had already played {n} rated games with "
                               "each other in the last {hours} hours."),
}
"""What the page says of each reason (``explain``)."""


def explain(reason: str) -> dict[str, Any]:
    """A reason as the API gives it: ``{"code", "message": English, "say": {"text", "params"}}``."""
    code = Unrated(reason)
    params = _params(code)
    said = say(SAYINGS[code], **params)
    return {"code": str(code), "message": said["text"].format(**params), "say": said}


def _params(code: Unrated) -> dict[str, str | int]:
    if code == Unrated.FEW_DECISIONS:
        return {"n": MIN_DECISIONS}
    if code == Unrated.PAIR_LIMIT:
        return {"n": PAIR_GAMES, "hours": round(PAIR_WINDOW / timedelta(hours=1))}
    return {}


def lock_accounts(session: Session, games: Sequence[GameRow]) -> None:
    """Lock the accounts of ``games`` until the transaction ends (in one order: no deadlock), so
    games of one pair ended at once by two processes see each other (SQLite has one writer)."""
    ids = sorted({owner for game in games for owner in (game.account0, game.account1) if owner is not None})
    if ids:
        session.execute(select(AccountRow.id).where(AccountRow.id.in_(ids)).order_by(AccountRow.id)
                        .with_for_update())


def decisions(session: Session, game_ids: Sequence[str]) -> dict[str, Counter[int]]:
    """The decisions each seat of these games made: its actions, less the moves undos took back."""
    made: dict[str, Counter[int]] = {game_id: Counter() for game_id in game_ids}
    query = (select(LogRow.game_id, LogRow.seat, LogRow.kind, LogRow.notation)
             .where(LogRow.game_id.in_(list(game_ids)), LogRow.kind.in_([ACTION, UNDO])))
    for game_id, seat, kind, notation in session.execute(query):
        made[game_id][seat] += 1 if kind == ACTION else -len(notation.split(UNDO_SEPARATOR))
    return made


def reason(session: Session, game: GameRow, made: Counter[int], now: datetime) -> Unrated | None:
    """Why the game ``game``, ended at ``now``, is not rated (None: it is), ``made`` its decisions."""
    if game.ended in (Ending.ABORTED, Ending.ABANDONED):
        return Unrated(game.ended)
    if min(made[0], made[1]) < MIN_DECISIONS:
        return Unrated.FEW_DECISIONS
    assert game.account0 is not None and game.account1 is not None
    if _pair_games(session, game.account0, game.account1, utc(now) - PAIR_WINDOW) >= PAIR_GAMES:
        return Unrated.PAIR_LIMIT
    return None


def _between(first: int, second: int) -> Any:
    """The games of the accounts ``first`` and ``second`` against each other."""
    return or_(and_(GameRow.account0 == first, GameRow.account1 == second),
               and_(GameRow.account0 == second, GameRow.account1 == first))


def _pair_games(session: Session, first: int, second: int, since: datetime) -> int:
    """How many games of the two accounts against each other were rated after ``since``."""
    query = (select(func.count()).select_from(RatingChangeRow)
             .join(GameRow, GameRow.id == RatingChangeRow.game_id)
             .where(RatingChangeRow.seat == 0, RatingChangeRow.time > since, _between(first, second)))
    return int(session.scalar(query) or 0)


def suspect_pairs(session: Session, since: datetime, at_least: int) -> list[tuple[int, int, int]]:
    """The pairs of accounts (lower id first) with at least ``at_least`` games against each other
    ended since ``since`` and not rated for a farming reason (``FARMING``), most first: what
    moderation will be shown, with how many."""
    low = case((GameRow.account0 < GameRow.account1, GameRow.account0), else_=GameRow.account1)
    high = case((GameRow.account0 < GameRow.account1, GameRow.account1), else_=GameRow.account0)
    count = func.count()
    query = (select(low, high, count)
             .where(GameRow.unrated.in_(FARMING), func.coalesce(GameRow.moved, GameRow.created) >= utc(since))
             .group_by(low, high).having(count >= at_least).order_by(count.desc(), low, high))
    return [(int(a), int(b), int(n)) for a, b, n in session.execute(query)]
