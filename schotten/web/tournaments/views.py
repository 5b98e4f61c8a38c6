"""What the API shows of tournaments: the list, one tournament with its standings, games and rounds'
pairings, and a participant's own place (``you``). Blocking functions over a session (run them in a
thread).

Only what every player may know is shown: names, scores and results, never a game's cards (R10).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..storage.db import AccountRow, TournamentGameRow, TournamentPlayerRow, TournamentRow
from .records import ARENA, PLAYING, WITHDRAWN, Tournament, found, tournament_of
from .results import arena_result, finished_games, played_games
from .scoring import ArenaResult, ArenaStanding, arena_score, arena_standings
from .standings import Standing, standings

LISTED = 50
"""How many tournaments of each status the list shows (the newest)."""


def summary(tournament: Tournament, players: int) -> dict[str, Any]:
    """A tournament's settings and schedule as the API writes them."""
    ends_at = tournament.ends_at
    return {"id": tournament.id, "format": tournament.format, "name": tournament.name,
            "variant": tournament.variant, "clock": tournament.control.to_dict(), "rated": tournament.rated,
            "starts_at": tournament.starts_at.isoformat(),
            "ends_at": None if ends_at is None else ends_at.isoformat(), "minutes": tournament.minutes,
            "rounds": tournament.rounds, "rounds_total": tournament.rounds, "round": tournament.round,
            "status": tournament.status,
            "creator": tournament.creator, "min_rating": tournament.min_rating,
            "min_games": tournament.min_games, "players": players}


def listing(session: Session) -> list[dict[str, Any]]:
    """The newest ``LISTED`` tournaments of each status, soonest start first."""
    rows: list[TournamentRow] = []
    for status in ("created", "started", "finished", "cancelled"):
        query = (select(TournamentRow).where(TournamentRow.status == status)
                 .order_by(TournamentRow.starts_at.desc()).limit(LISTED))
        rows += list(session.scalars(query))
    counts: dict[int, int] = defaultdict(int)
    if rows:
        joined = select(TournamentPlayerRow.tournament_id).where(
            TournamentPlayerRow.tournament_id.in_([row.id for row in rows]))
        for tournament_id in session.scalars(joined):
            counts[tournament_id] += 1
    return [summary(tournament_of(row), counts[row.id]) for row in sorted(rows, key=lambda r: r.starts_at)]


def detail(session: Session, tournament_id: int, account_id: int | None) -> dict[str, Any]:
    """One tournament: settings (``rounds_total``: how many rounds a Swiss has), standings, games, each
    round's pairings (``rounds``, Swiss, as the API has always named them), ``you`` for a participant and
    ``created_by_you`` (whether ``account_id`` created it: the creator may cancel it before the start)."""
    tournament = tournament_of(found(session, tournament_id))
    players = list(session.scalars(select(TournamentPlayerRow)
                                   .where(TournamentPlayerRow.tournament_id == tournament_id)
                                   .order_by(TournamentPlayerRow.joined, TournamentPlayerRow.account_id)))
    games = list(session.scalars(select(TournamentGameRow)
                                 .where(TournamentGameRow.tournament_id == tournament_id)
                                 .order_by(TournamentGameRow.id)))
    ids = {p.account_id for p in players} | {g.account0 for g in games} | {
        g.account1 for g in games if g.account1 is not None}
    names = dict(session.execute(select(AccountRow.id, AccountRow.username)
                                 .where(AccountRow.id.in_(ids))).all()) if ids else {}
    done = finished_games(session, tournament_id)
    view = summary(tournament, len(players))
    if tournament.format == ARENA:
        view["standings"] = _arena_standings(players, done, names)
    else:
        view["standings"] = _swiss_standings(players, done, names)
        view["rounds"] = _rounds(games, names)
    view["games"] = [_game(g, names) for g in games if g.game_id is not None]
    mine = next((p for p in players if p.account_id == account_id), None)
    view["you"] = None if mine is None else _you(mine, games)
    view["created_by_you"] = account_id is not None and account_id == tournament.creator
    return view


def arena_table(players: list[int], done: list[TournamentGameRow]) -> tuple[ArenaStanding, ...]:
    """An arena's standings: ``players`` (and anyone of ``done``) from its finished games in order."""
    results: dict[int, list[ArenaResult]] = {p: [] for p in players}
    for game in done:
        for player in (game.account0, game.account1):
            if player is not None:
                results.setdefault(player, []).append(arena_result(game, player))
    return arena_standings(results)


def swiss_table(players: list[TournamentPlayerRow], done: list[TournamentGameRow]) -> list[Standing]:
    """A Swiss's standings: its players (and anyone of ``done``) from its finished games and byes."""
    played = played_games(done)
    byes = [g.account0 for g in done if g.account1 is None]
    everyone = list(dict.fromkeys([p.account_id for p in players] + [g.account0 for g in done]
                                  + [g.account1 for g in done if g.account1 is not None]))
    withdrawn = {p.account_id for p in players if p.status == WITHDRAWN}
    return list(standings(everyone, played, byes, withdrawn))


def _arena_standings(players: list[TournamentPlayerRow], done: list[TournamentGameRow],
                     names: dict[int, str]) -> list[dict[str, Any]]:
    results: dict[int, list[ArenaResult]] = {}
    for game in done:
        for player in (game.account0, game.account1):
            if player is not None:
                results.setdefault(player, []).append(arena_result(game, player))
    rows = []
    status = {p.account_id: p.status for p in players}
    for row in arena_table([p.account_id for p in players], done):
        score = arena_score(results.get(row.player, []))
        rows.append({"player": names.get(row.player, ""), "id": row.player, "rank": row.rank,
                     "score": row.points, "games": row.games, "fire": row.fire,
                     "berserk_wins": row.berserk_wins,
                     "points": [game.points for game in score.games], "status": status.get(row.player)})
    return rows


def _swiss_standings(players: list[TournamentPlayerRow], done: list[TournamentGameRow],
                     names: dict[int, str]) -> list[dict[str, Any]]:
    return [{"player": names.get(row.player, ""), "id": row.player, "rank": row.rank, "score": row.score,
             "games": row.games, "byes": row.byes, "withdrawn": row.withdrawn,
             "tiebreaks": {"buchholz": row.buchholz, "sonneborn_berger": row.sonneborn_berger}}
            for row in swiss_table(players, done)]


def _result(game: TournamentGameRow) -> str | None:
    if game.ended is None:
        return None
    if game.account1 is None:
        return "bye"
    if game.aborted:
        return "aborted"
    return {None: "1/2-1/2", 0: "1-0", 1: "0-1"}.get(game.winner, "1/2-1/2")


def _game(game: TournamentGameRow, names: dict[int, str]) -> dict[str, Any]:
    return {"id": game.game_id, "round": game.round, "players": [names.get(game.account0, ""),
            names.get(game.account1, "") if game.account1 is not None else None],
            "berserk": [bool(game.berserk0), bool(game.berserk1)], "result": _result(game)}


def _rounds(games: list[TournamentGameRow], names: dict[int, str]) -> list[dict[str, Any]]:
    by_round: dict[int, list[TournamentGameRow]] = defaultdict(list)
    for game in games:
        by_round[game.round].append(game)
    return [{"round": number,
             "pairings": [_game(g, names) for g in by_round[number] if g.account1 is not None],
             "bye": next((names.get(g.account0, "") for g in by_round[number] if g.account1 is None), None)}
            for number in sorted(by_round)]


def _you(player: TournamentPlayerRow, games: list[TournamentGameRow]) -> dict[str, Any]:
    you: dict[str, Any] = {"status": player.status}
    running = next((g for g in reversed(games) if g.ended is None and g.game_id is not None
                    and player.account_id in (g.account0, g.account1)), None)
    if player.status == PLAYING and running is not None:
        seat = 0 if running.account0 == player.account_id else 1
        you.update(game=running.game_id, seat=seat, url=f"/game/{running.game_id}",
                   berserk=bool(running.berserk0 if seat == 0 else running.berserk1))
    return you

