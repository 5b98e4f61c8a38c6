"""Arena scoring (as lichess's arenas score): points, streak and fire from a player's results.

| result | points | on fire (two wins just before) | berserk, at least 7 decisions |
|--------|--------|--------------------------------|-------------------------------|
| win    | 2      | 4                              | +1 (not doubled)              |
| draw   | 1      | 1, and the fire goes out       | no bonus                      |
| loss   | 0      | 0, and the fire goes out       | no bonus                      |
| aborted| 0      | 0; the fire and the streak stay as they were; not counted as a game | no bonus |

A player is on fire after two wins in a row; every further win scores double until a game is not
won. A game aborted before both players decided (as lichess's arenas do) is left out: it scores
nothing for either player and neither breaks nor extends a streak. The results are in the order the
games ended.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

WIN_POINTS = 2
DRAW_POINTS = 1
BERSERK_BONUS = 1
BERSERK_MIN_DECISIONS = 7
FIRE_AFTER_WINS = 2


class Outcome(Enum):
    """A finished game from one player's side."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    ABORTED = "aborted"


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """One finished arena game of a player: how it ended, whether they went berserk, their decisions."""

    outcome: Outcome
    berserk: bool = False
    decisions: int = 0


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """One game's points and marks, as the standings show them."""

    points: int
    doubled: bool
    berserk_bonus: bool


@dataclass(frozen=True, slots=True)
class ArenaScore:
    """A player's arena total: ``points``, the current run of ``streak`` wins and each game's points."""

    points: int
    streak: int
    games: tuple[ScoredGame, ...]

    @property
    def fire(self) -> bool:
        """Whether the player is on fire: their next win scores double."""
        return self.streak >= FIRE_AFTER_WINS


def score_game(result: ArenaResult, streak: int) -> ScoredGame:
    """The points of ``result`` for a player who had won ``streak`` games in a row before it."""
    if result.outcome is Outcome.DRAW:
        return ScoredGame(DRAW_POINTS, doubled=False, berserk_bonus=False)
    if result.outcome in (Outcome.LOSS, Outcome.ABORTED):
        return ScoredGame(0, doubled=False, berserk_bonus=False)
    doubled = streak >= FIRE_AFTER_WINS
    bonus = result.berserk and result.decisions >= BERSERK_MIN_DECISIONS
    points = WIN_POINTS * (2 if doubled else 1) + (BERSERK_BONUS if bonus else 0)
    return ScoredGame(points, doubled=doubled, berserk_bonus=bonus)


def arena_score(results: Iterable[ArenaResult]) -> ArenaScore:
    """The total, the streak (and so the fire) and each game's points from results in order (the
    aborted games left out)."""
    streak = 0
    games: list[ScoredGame] = []
    for result in results:
        if result.outcome is Outcome.ABORTED:
            continue
        games.append(score_game(result, streak))
        streak = streak + 1 if result.outcome is Outcome.WIN else 0
    return ArenaScore(sum(game.points for game in games), streak, tuple(games))


@dataclass(frozen=True, slots=True)
class ArenaStanding:
    """One row of an arena's standings: rank, points, games, fire and the berserk wins that counted."""

    player: int
    rank: int
    points: int
    games: int
    fire: bool
    berserk_wins: int


def arena_standings(results: Mapping[int, Sequence[ArenaResult]]) -> tuple[ArenaStanding, ...]:
    """The standings from each player's results in order: most points first; level players share a rank."""
    scored = {player: arena_score(games) for player, games in results.items()}
    order = sorted(scored, key=lambda p: (-scored[p].points, p))
    rows: list[ArenaStanding] = []
    for index, player in enumerate(order):
        score = scored[player]
        level = bool(rows) and rows[-1].points == score.points
        rows.append(ArenaStanding(
            player, rows[-1].rank if level else index + 1, score.points, len(score.games), score.fire,
            sum(game.berserk_bonus for game in score.games)))
    return tuple(rows)
