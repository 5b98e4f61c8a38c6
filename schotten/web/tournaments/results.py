"""Tournament results from the games' own endings: called in the transaction that stores a game's
end (``Store.on_finished``, next to the ratings), never from a page.

A finished tournament game gets its winner (None: a draw, or an aborted game, which is marked
``aborted`` and scores nothing for either player), each seat's decisions and when it ended; its
players wait again (an arena pairs them in its next wave) and their cached score is counted again
from all their results. A player who lost on time (or by
leaving) without a single decision was absent: paused in an arena, withdrawn in a Swiss (``join``
brings them back). A player whose game ended ``banned`` (a moderator banned them) is withdrawn, never
waiting again; the other waits and scores the win.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import event, func, select, update
from sqlalchemy.orm import Session

from ..core.vocab import Ending
from ..storage.db import GameRow, LogRow, TournamentGameRow, TournamentPlayerRow, TournamentRow, utc
from .records import ARENA, PAUSED, PLAYING, WAITING, WITHDRAWN
from .scoring import ArenaResult, Outcome, arena_score
from .swiss import BYE, DRAW, WIN, Played

Finished = Callable[[Session, list[str], datetime], None]
_CHANGED, _LISTENING = "tournaments_changed", "tournaments_listening"
ABSENT_ENDINGS = ("time", "left", "abandoned")
"""Endings that, for a seat with no decision, mean its player was not there."""


def both(*hooks: Finished) -> Finished:
    """One ``on_finished`` hook calling each of ``hooks`` in turn (in the same transaction)."""
    def call(session: Session, game_ids: list[str], now: datetime) -> None:
        for hook in hooks:
            hook(session, game_ids, now)
    return call


def recording(told: Callable[[set[int]], None]) -> Finished:
    """The ``on_finished`` hook ``record_finished``; ``told`` the tournaments it changed once the
    transaction is committed (from the thread that committed it; nothing on a rollback)."""
    def committed(session: Session) -> None:
        changed = session.info.pop(_CHANGED, None)
        if changed:
            told(changed)

    def hook(session: Session, game_ids: list[str], now: datetime) -> None:
        changed = record_finished(session, game_ids, now)
        if not changed:
            return
        if not session.info.get(_LISTENING):
            session.info[_LISTENING] = True
            event.listen(session, "after_commit", committed)
            event.listen(session, "after_rollback", lambda s: s.info.pop(_CHANGED, None))
        session.info.setdefault(_CHANGED, set()).update(changed)
    return hook


def record_finished(session: Session, game_ids: Sequence[str], now: datetime) -> set[int]:
    """Store the result of each of ``game_ids`` that is a tournament game not recorded yet: the
    tournaments whose standings changed."""
    query = select(TournamentGameRow).where(TournamentGameRow.game_id.in_(list(game_ids)),
                                            TournamentGameRow.ended.is_(None))
    changed: set[int] = set()
    for row in session.scalars(query).all():
        game = session.get(GameRow, row.game_id)
        if game is None or game.status != "over":
            continue
        row.winner = game.winner
        row.aborted = game.ended == Ending.ABORTED
        row.decisions0, row.decisions1 = _decisions(session, game.id)
        row.ended = utc(now)
        changed.add(row.tournament_id)
        session.flush()
        players = [row.account0] + ([row.account1] if row.account1 is not None else [])
        fmt = session.scalar(select(TournamentRow.format).where(TournamentRow.id == row.tournament_id))
        gone, banned = absent(row, game.ended), banned_loser(row, game.ended)
        for player in players:
            status = _status_after(player, fmt, gone, banned)
            session.execute(update(TournamentPlayerRow)
                            .where(TournamentPlayerRow.tournament_id == row.tournament_id,
                                   TournamentPlayerRow.account_id == player,
                                   TournamentPlayerRow.status == PLAYING)
                            .values(status=status, since=utc(now)))
            rescore(session, row.tournament_id, player)
    return changed


def absent(row: TournamentGameRow, ending: str | None) -> int | None:
    """The player who lost the game on time (or by leaving it) without a single decision: absent, they
    are paused (arena) or withdrawn after the forfeit (Swiss) until they join again; else None."""
    if ending not in ABSENT_ENDINGS or row.winner is None or row.account1 is None:
        return None
    loser = 1 - row.winner
    made = row.decisions0 if loser == 0 else row.decisions1
    return (row.account0, row.account1)[loser] if made == 0 else None


def _status_after(player: int, fmt: str | None, gone: int | None, banned: int | None) -> str:
    """A player's status once their game is recorded: withdrawn if banned, out if absent, else waiting."""
    if player == banned:
        return WITHDRAWN
    if player == gone:
        return PAUSED if fmt == ARENA else WITHDRAWN
    return WAITING


def banned_loser(row: TournamentGameRow, ending: str | None) -> int | None:
    """The player who lost the game because a moderator banned them (the ending ``banned``), else None."""
    if ending != Ending.BANNED or row.winner is None or row.account1 is None:
        return None
    return (row.account0, row.account1)[1 - row.winner]


def _decisions(session: Session, game_id: str) -> tuple[int, int]:
    """How many actions each seat of the game made."""
    query = (select(LogRow.seat, func.count()).where(LogRow.game_id == game_id, LogRow.kind == "action")
             .group_by(LogRow.seat))
    counted = {seat: count for seat, count in session.execute(query).all()}
    return counted.get(0, 0), counted.get(1, 0)


def finished_games(session: Session, tournament_id: int) -> list[TournamentGameRow]:
    """The tournament's finished games (and byes), in the order they ended."""
    query = (select(TournamentGameRow).where(TournamentGameRow.tournament_id == tournament_id,
                                             TournamentGameRow.ended.is_not(None))
             .order_by(TournamentGameRow.ended, TournamentGameRow.id))
    return list(session.scalars(query))


def arena_result(row: TournamentGameRow, player: int) -> ArenaResult:
    """One finished arena game from ``player``'s side."""
    seat = 0 if row.account0 == player else 1
    outcome = (Outcome.ABORTED if row.aborted else Outcome.DRAW if row.winner is None
               else Outcome.WIN if row.winner == seat else Outcome.LOSS)
    berserk = row.berserk0 if seat == 0 else row.berserk1
    return ArenaResult(outcome, bool(berserk), row.decisions0 if seat == 0 else row.decisions1)


def played_games(done: Sequence[TournamentGameRow]) -> list[Played]:
    """The finished Swiss games over the board (not the byes) as the pairing takes them."""
    return [Played(g.account0, g.account1, None if g.winner is None else (g.account0, g.account1)[g.winner],
                   bool(g.aborted)) for g in done if g.account1 is not None]


def half_points(row: TournamentGameRow, player: int) -> int:
    """A Swiss game's (or bye's) half-points for ``player``."""
    if row.account1 is None:
        return BYE
    if row.aborted:
        return 0
    if row.winner is None:
        return DRAW
    return WIN if (row.account0, row.account1)[row.winner] == player else 0


def rescore(session: Session, tournament_id: int, player: int) -> None:
    """Count the player's cached score again from their finished games."""
    fmt = session.scalar(select(TournamentRow.format).where(TournamentRow.id == tournament_id))
    mine = [row for row in finished_games(session, tournament_id) if player in (row.account0, row.account1)]
    if fmt == ARENA:
        score = arena_score(arena_result(row, player) for row in mine).points
    else:
        score = sum(half_points(row, player) for row in mine)
    session.execute(update(TournamentPlayerRow)
                    .where(TournamentPlayerRow.tournament_id == tournament_id,
                           TournamentPlayerRow.account_id == player).values(score=score))
