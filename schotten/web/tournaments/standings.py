"""Swiss standings: score, Buchholz and Sonneborn-Berger, and the rank they give.

| column           | definition                                                              |
|------------------|--------------------------------------------------------------------------|
| score            | 1 a win, ½ a draw, 0 a loss, 1 a bye                                    |
| buchholz         | the sum of the final scores of every opponent met over the board         |
| sonneborn_berger | the sum over games of the opponent's final score times the points taken |
|                  | from them: the whole score for a win, half of it for a draw, 0 a loss    |

A bye has no opponent, so it adds to the score only: nothing to Buchholz or Sonneborn-Berger.
An opponent who withdrew counts with the score they finished with. Ranks order score, then
Buchholz, then Sonneborn-Berger, all highest first; players level on all three share a rank
(1, 2, 2, 4), listed by id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from schotten.web.tournaments.swiss import Played, scores


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings (points as numbers: halves where there were draws)."""

    player: int
    rank: int
    score: float
    games: int
    buchholz: float
    sonneborn_berger: float
    byes: int
    withdrawn: bool


def standings(
    players: Sequence[int],
    games: Sequence[Played],
    byes: Collection[int],
    withdrawn: Collection[int] = (),
) -> tuple[Standing, ...]:
    """The ranked standings of ``players`` (everyone who took part) after ``games`` and ``byes``."""
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice in the standings")
    half = scores(games, byes)
    buchholz: dict[int, int] = defaultdict(int)
    berger: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    for game in games:
        for me, other in ((game.first, game.second), (game.second, game.first)):
            buchholz[me] += half.get(other, 0)
            berger[me] += half.get(other, 0) * game.points(me)
            played[me] += 1
    bye_count: dict[int, int] = defaultdict(int)
    for player in byes:
        bye_count[player] += 1
    keys = {p: (half.get(p, 0), buchholz[p], berger[p]) for p in players}
    order = sorted(players, key=lambda p: (tuple(-k for k in keys[p]), p))
    rows: list[Standing] = []
    for index, p in enumerate(order):
        rank = rows[-1].rank if rows and keys[rows[-1].player] == keys[p] else index + 1
        score, bh, sb = keys[p]
        rows.append(Standing(p, rank, score / 2, played[p], bh / 2, sb / 4, bye_count[p], p in withdrawn))
    return tuple(rows)
