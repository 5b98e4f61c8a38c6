"""Ratings: one Glicko-2 rating per account and pool, changed once by each rated game that ends.

| rule          | value                                                                           |
|---------------|---------------------------------------------------------------------------------|
| pools         | ``vocab.POOLS``: each variant, real-time and turn-based apart                  |
| a new player  | ``DEFAULT``: 1500, RD 500, volatility 0.06; provisional while RD >= 110          |
| rated game    | over, created rated, both seats accounts (two different ones), a clock, and     |
|               | none of ``rating_rules``'s reasons (aborted, abandoned, too few decisions, too  |
|               | many rated games of the pair in a day), kept on the game's row if one holds     |
| scores        | the match's winner 1, the loser 0 (a forfeit loses); a drawn match 0.5 each     |
| one period    | each game is one rating period: both seats are rated against the other's rating |
|               | before the game (as lichess rates game by game)                                 |
| idle time     | ``RATING_PERIOD`` (a day) since a pool's last rated game is one empty period,    |
|               | counted fractionally: the RD read then is ``glicko2.idle``'s, at most 500       |
| once          | ``rating_changes`` holds one row per game and seat: a game already there is     |
|               | never rated again                                                               |

Every function takes a session and runs in its caller's transaction (``Store.append_many`` rates the
games whose end it stores in the transaction that stores it). Nothing here imports the store.

A ratings row holds the rating as its last game (``played``) left it; every read for ``now``
(``as_of``) grows its RD over the periods since, and so does the next game before it rates, which
stores the result with ``played`` moved on: growth is never written on a read nor counted twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from ..core.vocab import Ending, Status, pool_name
from ..storage.db import AccountRow, GameRow, RatingChangeRow, RatingRow, utc
from . import rating_rules
from .glicko2 import PROVISIONAL_RD, RATING_START, RD_START, VOLATILITY_START, Glicko, idle, rate

__all__ = ["DEFAULT", "RATING_PERIOD", "Glicko", "as_of", "changes_of_game", "current", "leaderboard",
           "pool_of", "profile", "rate_finished", "unrated_of"]

DEFAULT = Glicko(RATING_START, RD_START, VOLATILITY_START)
"""The rating of an account that has played no rated game in a pool."""
UNRATED_ENDINGS = (str(Ending.ABORTED), str(Ending.ABANDONED))
"""Games ended so are never rated (nor counted as played in a profile)."""
HISTORY_LIMIT = 500
"""The most rating changes a profile's history shows per pool (the latest)."""
RATING_PERIOD = timedelta(days=1)
"""The idle time that counts as one empty Glicko-2 rating period (fractions count as fractions)."""


def pool_of(row: GameRow) -> str:
    """The rating pool of a game: its variant and whether its clock is turn-based."""
    return pool_name(row.variant, row.clock_days is not None)


def as_of(row: RatingRow, now: datetime) -> Glicko:
    """The rating a ratings row holds, as of ``now``: its RD grown over the rating periods since its
    last game (none if ``now`` is not later)."""
    periods = (utc(now) - utc(row.played)) / RATING_PERIOD
    return idle(Glicko(row.rating, row.rd, row.volatility), periods)


def current(session: Session, account_ids: Sequence[int], pool: str,
            now: datetime | None = None) -> dict[int, Glicko]:
    """Each account's rating in ``pool`` as of ``now`` (``as_of``; None: as its last game left it, for
    readers of the rating alone, which idle time never changes); ``DEFAULT`` for one with no rated
    game there."""
    wanted = sorted(set(account_ids))
    if not wanted:
        return {}
    query = select(RatingRow).where(RatingRow.account_id.in_(wanted), RatingRow.pool == pool)
    found = {row.account_id: as_of(row, now if now is not None else row.played)
             for row in session.scalars(query)}
    return {account: found.get(account, DEFAULT) for account in wanted}


def rate_finished(session: Session, game_ids: Sequence[str], now: datetime) -> None:
    """Rate each of ``game_ids`` that is a rated game just ended (see the module's table) and was not
    rated nor found unratable yet: both seats' changes are written and their ratings rows updated;
    one the rules do not rate (``rating_rules``) keeps why on its row."""
    ids = list(dict.fromkeys(game_ids))
    if not ids:
        return
    done = set(session.scalars(select(RatingChangeRow.game_id).where(RatingChangeRow.game_id.in_(ids))))
    query = select(GameRow).where(
        GameRow.id.in_(ids), GameRow.status == Status.OVER.value, GameRow.rated.is_(True),
        GameRow.unrated.is_(None), GameRow.account0.is_not(None), GameRow.account1.is_not(None),
        GameRow.account0 != GameRow.account1,
        or_(GameRow.clock_initial.is_not(None), GameRow.clock_days.is_not(None)),
    )
    games = {row.id: row for row in session.scalars(query) if row.id not in done}
    rating_rules.lock_accounts(session, list(games.values()))
    made = rating_rules.decisions(session, list(games))
    for game_id in ids:
        if game_id in games:
            game = games[game_id]
            game.unrated = rating_rules.reason(session, game, made[game_id], now)
            if game.unrated is None:
                _rate_game(session, game, now)
            session.flush()


def _scores(winner: int | None) -> tuple[float, float]:
    if winner is None:
        return 0.5, 0.5
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def _rate_game(session: Session, game: GameRow, now: datetime) -> None:
    """Rate one game: each seat against the other's rating before it (idle time grown in, both)."""
    assert game.account0 is not None and game.account1 is not None
    accounts = (game.account0, game.account1)
    pool = pool_of(game)
    before = current(session, accounts, pool, now)
    scores = _scores(game.winner)
    for seat in (0, 1):
        mine, theirs = before[accounts[seat]], before[accounts[1 - seat]]
        after = rate(mine, [(theirs, scores[seat])])
        session.add(RatingChangeRow(
            game_id=game.id, seat=seat, account_id=accounts[seat], pool=pool, rating_before=mine.rating,
            rd_before=mine.rd, rating_after=after.rating, rd_after=after.rd, time=utc(now)))
        _store(session, accounts[seat], pool, after, scores[seat], now)


def _store(session: Session, account_id: int, pool: str, rating: Glicko, score: float, now: datetime) -> None:
    """Write an account's new rating in ``pool`` and count the game. ``played``, whence idle time
    counts, never moves back: a game whose end is older than the rating's last one grew no RD."""
    row = session.get(RatingRow, (account_id, pool))
    if row is None:
        row = RatingRow(account_id=account_id, pool=pool, games=0, wins=0, losses=0, draws=0, played=utc(now))
        session.add(row)
    row.rating, row.rd, row.volatility = rating.rating, rating.rd, rating.volatility
    row.games += 1
    row.wins += score == 1.0
    row.losses += score == 0.0
    row.draws += score == 0.5
    row.played = max(utc(row.played), utc(now))


def changes_of_game(session: Session, game_id: str) -> list[dict[str, float] | None]:
    """What a game did to each seat's rating, ``[seat 0, seat 1]``, each ``{"before", "after",
    "rd_before", "rd_after"}`` or None; an empty list for a game that changed no rating."""
    rows = session.scalars(select(RatingChangeRow).where(RatingChangeRow.game_id == game_id)).all()
    if not rows:
        return []
    seats: list[dict[str, float] | None] = [None, None]
    for row in rows:
        seats[row.seat] = {"before": round(row.rating_before, 2), "after": round(row.rating_after, 2),
                           "rd_before": round(row.rd_before, 2), "rd_after": round(row.rd_after, 2)}
    return seats


def unrated_of(session: Session, game_id: str) -> str | None:
    """Why the game ``game_id``, created rated, changed no rating (``rating_rules.Unrated``), or None."""
    return session.scalar(select(GameRow.unrated).where(GameRow.id == game_id))


def _rating_json(row: RatingRow, history: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
    glicko = as_of(row, now)
    return {"rating": round(glicko.rating), "rd": round(glicko.rd), "volatility": round(glicko.volatility, 6),
            "games": row.games, "wins": row.wins, "losses": row.losses, "draws": row.draws,
            "provisional": glicko.provisional, "history": history}


def _history(session: Session, account_id: int) -> dict[str, list[dict[str, Any]]]:
    """The account's rating after each of its rated games, per pool, oldest first."""
    query = (select(RatingChangeRow).where(RatingChangeRow.account_id == account_id)
             .order_by(RatingChangeRow.time, RatingChangeRow.game_id))
    found: dict[str, list[dict[str, Any]]] = {}
    for row in session.scalars(query):
        point = {"time": utc(row.time).isoformat(), "rating": round(row.rating_after),
                 "rd": round(row.rd_after), "game": row.game_id}
        found.setdefault(row.pool, []).append(point)
    return {pool: points[-HISTORY_LIMIT:] for pool, points in found.items()}


def _counts(session: Session, account_id: int) -> dict[str, int]:
    """How many games the account finished (aborted and abandoned ones left out), won, lost, drew."""
    counts = {"played": 0, "won": 0, "lost": 0, "drawn": 0}
    for seat, column in ((0, GameRow.account0), (1, GameRow.account1)):
        query = (select(GameRow.winner, func.count()).where(
            column == account_id, GameRow.status == Status.OVER.value,
            or_(GameRow.ended.is_(None), GameRow.ended.not_in(UNRATED_ENDINGS))).group_by(GameRow.winner))
        for winner, number in session.execute(query):
            counts["played"] += number
            key = "drawn" if winner is None else "won" if winner == seat else "lost"
            counts[key] += number
    return counts


def profile(session: Session, account_id: int, now: datetime) -> dict[str, Any]:
    """An account's public profile: its username, when it was created, its ratings in each pool it has
    played (their RDs as of ``now``; the history as each game left them) and its counts of games
    (see docs/web/players.md)."""
    account = session.get(AccountRow, account_id)
    if account is None:
        raise KeyError(account_id)
    history = _history(session, account_id)
    rows = session.scalars(select(RatingRow).where(RatingRow.account_id == account_id, RatingRow.games > 0)
                           .order_by(RatingRow.pool))
    return {"username": account.username, "created": utc(account.created).isoformat(),
            "ratings": {row.pool: _rating_json(row, history.get(row.pool, []), now) for row in rows},
            "games": _counts(session, account_id)}


def _established(pool: str, since: datetime) -> list[Any]:
    """Who may be a leaderboard's player: rated in ``pool``, not provisional as stored, active since
    ``since``, live and not banned (the players are those of them whose RD as of now is not
    provisional either)."""
    return [RatingRow.pool == pool, RatingRow.rd < PROVISIONAL_RD, RatingRow.played >= utc(since),
            AccountRow.deleted.is_(None), AccountRow.banned.is_(None)]


def _entry(rank: int | None, username: str, row: RatingRow | None, now: datetime) -> dict[str, Any]:
    glicko = as_of(row, now) if row is not None else DEFAULT
    return {"rank": rank, "username": username, "rating": round(glicko.rating), "rd": round(glicko.rd),
            "games": row.games if row is not None else 0, "provisional": glicko.provisional}


def leaderboard(session: Session, pool: str, now: datetime, days: float, size: int,
                viewer_id: int | None) -> dict[str, Any]:
    """The ``size`` best established players of ``pool`` (not provisional as of ``now``, a rated game
    there within ``days`` of ``now``, not deleted), and the viewer's own place (``you``: rank None if
    they are not among those players; None for a guest)."""
    since = now - timedelta(days=days)
    query = (select(RatingRow, AccountRow.username).join(AccountRow, AccountRow.id == RatingRow.account_id)
             .where(*_established(pool, since)).order_by(RatingRow.rating.desc(), RatingRow.account_id)
             .execution_options(yield_per=size))
    result = session.execute(query)
    kept = islice(((row, name) for row, name in result if not as_of(row, now).provisional), size)
    players = [_entry(rank, username, row, now) for rank, (row, username) in enumerate(kept, 1)]
    result.close()
    return {"pool": pool, "players": players, "you": _you(session, pool, now, since, viewer_id)}


def _you(session: Session, pool: str, now: datetime, since: datetime,
         viewer_id: int | None) -> dict[str, Any] | None:
    """The viewer's entry: their rank among the leaderboard's players (None if not one of them)."""
    account = session.get(AccountRow, viewer_id) if viewer_id is not None else None
    if account is None:
        return None
    row = session.get(RatingRow, (account.id, pool))
    if (row is None or account.deleted is not None or account.banned is not None
            or as_of(row, now).provisional or utc(row.played) < utc(since)):
        return _entry(None, account.username, row, now)
    ahead = (select(RatingRow).join(AccountRow, AccountRow.id == RatingRow.account_id)
             .where(*_established(pool, since), or_(
                 RatingRow.rating > row.rating,
                 and_(RatingRow.rating == row.rating, RatingRow.account_id < row.account_id)))
             .execution_options(yield_per=500))
    better = sum(not as_of(other, now).provisional for other in session.scalars(ahead))
    return _entry(better + 1, account.username, row, now)
