"""An arena's pairing wave: which of the waiting players play each other now, and who starts.

The waiting players are ranked by score, then rating. A pair costs its score gap first, then its
rating gap; two players whose previous games were against each other are never paired (a player
left alone with their last opponent waits). Among the pairings of players at most ``window`` ranks
apart, the wave takes the one with the most pairs and then the least cost (a dynamic programme
over the ranking, linear in the number of players); then two players it left over are paired
together, or each with one player of a pair (the cheapest such swap), while that adds a pair.
When someone must wait, it is the one who has waited least. Of a pair, the one with the lower
seat balance (games started minus games played second) starts, then the longer waiter. No one is
paired at or after the arena's end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

WINDOW = 4
_RATING_CAP = 10_000
_UNPAIRED = 10**15


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player waiting in the arena: score, rating, since when, last opponent, seats so far."""

    player: int
    score: int
    rating: int
    since: datetime
    last_opponent: int | None = None
    first_seats: int = 0
    games: int = 0
    apart: frozenset[int] = frozenset()
    """Players never to be paired with this one (either blocks the other)."""

    @property
    def seat_balance(self) -> int:
        """Games started minus games played second: who should start next is the lower one."""
        return 2 * self.first_seats - self.games


@dataclass(frozen=True, slots=True)
class ArenaPair:
    """Two players paired by a wave; ``first`` starts the game."""

    first: int
    second: int


@dataclass(frozen=True, slots=True)
class Wave:
    """A wave's pairs, and the players still waiting after it (in ranking order)."""

    pairs: tuple[ArenaPair, ...]
    waiting: tuple[int, ...]


def pairing_wave(
    waiting: Sequence[Waiting], now: datetime, ends_at: datetime, window: int = WINDOW
) -> Wave:
    """Pair the ``waiting`` players at time ``now`` of an arena ending at ``ends_at``."""
    _check(waiting, now, window)
    ranked = sorted(waiting, key=lambda w: (-w.score, -w.rating, w.since, w.player))
    if now >= ends_at:
        return Wave((), tuple(w.player for w in ranked))
    pairs, left = _best_pairs(ranked, now, window)
    while len(left) > 1 and (better := _augmented(pairs, left)) is not None:
        pairs, left = better
    return Wave(tuple(_seat(a, b) for a, b in pairs), tuple(w.player for w in left))


def _check(waiting: Sequence[Waiting], now: datetime, window: int) -> None:
    if window < 1:
        raise ValueError("the pairing window must be at least 1 rank")
    players = [w.player for w in waiting]
    if len(set(players)) != len(players):
        raise ValueError("a player is waiting twice in the same arena")
    for w in waiting:
        if w.since > now:
            raise ValueError(f"player {w.player} is waiting since after the wave's time")
        if w.first_seats < 0 or w.games < 0:
            raise ValueError(f"player {w.player} has a negative number of games")
        if w.first_seats > w.games:
            raise ValueError(f"player {w.player} started more games than they played")


def _allowed(a: Waiting, b: Waiting) -> bool:
    if b.player in a.apart or a.player in b.apart:
        return False
    return a.last_opponent != b.player and b.last_opponent != a.player


def _pair_cost(a: Waiting, b: Waiting) -> int:
    return abs(a.score - b.score) * _RATING_CAP + min(abs(a.rating - b.rating), _RATING_CAP - 1)


def _wait_cost(w: Waiting, now: datetime) -> int:
    return _UNPAIRED + int((now - w.since).total_seconds() * 1000)


def _best_pairs(
    ranked: Sequence[Waiting], now: datetime, window: int
) -> tuple[list[tuple[Waiting, Waiting]], list[Waiting]]:
    """The least-cost pairing of ranks at most ``window`` apart; returns the pairs and the rest."""
    n = len(ranked)
    masks = 1 << window
    cost = [[0] * masks for _ in range(n + 1)]
    choice = [[0] * masks for _ in range(n)]
    for i in range(n - 1, -1, -1):
        for mask in range(masks):
            cost[i][mask], choice[i][mask] = _step(ranked, i, mask, cost[i + 1], now, window)
    return _follow(ranked, choice, window)


def _step(
    ranked: Sequence[Waiting], i: int, mask: int, after: list[int], now: datetime, window: int
) -> tuple[int, int]:
    """Best (cost, partner offset) at rank ``i`` given ``mask`` (bit d: rank i+d already paired)."""
    if mask & 1:
        return after[mask >> 1], -1
    best, offset = _wait_cost(ranked[i], now) + after[mask >> 1], 0
    for d in range(1, window + 1):
        j = i + d
        if j >= len(ranked):
            break
        if mask >> d & 1 or not _allowed(ranked[i], ranked[j]):
            continue
        total = _pair_cost(ranked[i], ranked[j]) + after[(mask | 1 << d) >> 1]
        if total < best:
            best, offset = total, d
    return best, offset


def _follow(
    ranked: Sequence[Waiting], choice: list[list[int]], window: int
) -> tuple[list[tuple[Waiting, Waiting]], list[Waiting]]:
    pairs: list[tuple[Waiting, Waiting]] = []
    left: list[Waiting] = []
    mask = 0
    for i in range(len(ranked)):
        offset = choice[i][mask]
        if offset > 0:
            pairs.append((ranked[i], ranked[i + offset]))
            mask |= 1 << offset
        elif offset == 0:
            left.append(ranked[i])
        mask >>= 1
    return pairs, left


def _augmented(
    pairs: list[tuple[Waiting, Waiting]], left: list[Waiting]
) -> tuple[list[tuple[Waiting, Waiting]], list[Waiting]] | None:
    """One more pair from two waiting players: together, or each with one of a pair (the cheapest)."""
    best: tuple[int, int | None, list[tuple[Waiting, Waiting]]] | None = None
    for x, u in enumerate(left):
        for v in left[x + 1:]:
            for cost, broken, new in _ways_to_seat(u, v, pairs):
                if best is None or cost < best[0]:
                    best = (cost, broken, new)
    if best is None:
        return None
    _, broken, new = best
    kept = [pair for k, pair in enumerate(pairs) if k != broken]
    taken = {w.player for pair in new for w in pair}
    return [*kept, *new], [w for w in left if w.player not in taken]


def _ways_to_seat(
    u: Waiting, v: Waiting, pairs: list[tuple[Waiting, Waiting]]
) -> list[tuple[int, int | None, list[tuple[Waiting, Waiting]]]]:
    """(added cost, index of the pair broken or None, new pairs) for seating both ``u`` and ``v``."""
    if _allowed(u, v):
        return [(_pair_cost(u, v), None, [(u, v)])]
    ways: list[tuple[int, int | None, list[tuple[Waiting, Waiting]]]] = []
    for k, (a, b) in enumerate(pairs):
        for c, d in ((a, b), (b, a)):
            if _allowed(u, c) and _allowed(v, d):
                cost = _pair_cost(u, c) + _pair_cost(v, d) - _pair_cost(a, b)
                ways.append((cost, k, [(u, c), (v, d)]))
    return ways


def _seat(a: Waiting, b: Waiting) -> ArenaPair:
    """Who starts: the lower seat balance, then the longer waiter, then the lower id."""
    first, second = sorted((a, b), key=lambda w: (w.seat_balance, w.since, w.player))
    return ArenaPair(first.player, second.player)
