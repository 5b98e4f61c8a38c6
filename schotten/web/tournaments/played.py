"""A player's tournaments, as their profile shows them: the ones they played and their podiums.

| list        | which                                                                          |
|-------------|--------------------------------------------------------------------------------|
| ``played``  | the ``RECENT`` newest started or finished tournaments with a game (or bye) of theirs |
| ``podiums`` | of the ``LOOKED`` newest, the finished ones they ended 1st to 3rd              |

Each is ``id``, ``name``, ``format``, ``variant``, ``starts_at``, ``status``, ``rank``, ``players``.
``rank`` is their place in the standings as ``GET /api/tournaments/{id}`` shows them (level players
share one), ``players`` the field's size. Two queries for every tournament looked at, the standings
counted here (``views.arena_table``, ``views.swiss_table``). A blocking function over a session.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..storage.db import TournamentGameRow, TournamentPlayerRow, TournamentRow, utc
from .records import ARENA, FINISHED, STARTED
from .views import arena_table, swiss_table

RECENT = 20
"""How many tournaments a profile lists."""
LOOKED = 200
"""How many of a player's newest tournaments the podiums are found among."""
PODIUM = 3


def tournaments_of(session: Session, account_id: int) -> dict[str, list[dict[str, Any]]]:
    """The player's tournaments: ``played`` (newest first) and ``podiums`` (see the module's table)."""
    joined = TournamentPlayerRow.tournament_id == TournamentRow.id
    mine = (select(TournamentRow).join(TournamentPlayerRow, joined)
            .where(TournamentPlayerRow.account_id == account_id,
                   TournamentRow.status.in_([STARTED, FINISHED]))
            .order_by(TournamentRow.starts_at.desc(), TournamentRow.id.desc()).limit(LOOKED))
    rows = list(session.scalars(mine))
    ids = [row.id for row in rows]
    players: dict[int, list[TournamentPlayerRow]] = defaultdict(list)
    done: dict[int, list[TournamentGameRow]] = defaultdict(list)
    if ids:
        for player in session.scalars(select(TournamentPlayerRow)
                                      .where(TournamentPlayerRow.tournament_id.in_(ids))
                                      .order_by(TournamentPlayerRow.joined, TournamentPlayerRow.account_id)):
            players[player.tournament_id].append(player)
        for game in session.scalars(select(TournamentGameRow)
                                    .where(TournamentGameRow.tournament_id.in_(ids),
                                           TournamentGameRow.ended.is_not(None))
                                    .order_by(TournamentGameRow.ended, TournamentGameRow.id)):
            done[game.tournament_id].append(game)
    entries = [_entry(row, players[row.id], done[row.id], account_id) for row in rows]
    shown = [entry for entry in entries if entry is not None]
    return {"played": shown[:RECENT],
            "podiums": [e for e in shown if e["status"] == FINISHED and e["rank"] <= PODIUM]}


def _entry(row: TournamentRow, players: list[TournamentPlayerRow], done: list[TournamentGameRow],
           account_id: int) -> dict[str, Any] | None:
    """The tournament as the profile lists it, or None if the player has no game (nor bye) in it."""
    if not any(account_id in (game.account0, game.account1) for game in done):
        return None
    if row.format == ARENA:
        table = [(s.player, s.rank) for s in arena_table([p.account_id for p in players], done)]
    else:
        table = [(s.player, s.rank) for s in swiss_table(players, done)]
    rank = next(place for player, place in table if player == account_id)
    return {"id": row.id, "name": row.name, "format": row.format, "variant": row.variant,
            "starts_at": utc(row.starts_at).isoformat(), "status": row.status, "rank": rank,
            "players": len(table)}
