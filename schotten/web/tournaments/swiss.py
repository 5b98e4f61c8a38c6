"""A Swiss round's pairing: score groups paired inside themselves, no rematch, one bye, seats.

Scores are counted in half-points (a win 2, a draw 1, a loss 0, a bye 2: a bye scores as a win).
The players present are ranked by score, then rating, then id; whoever is absent is not paired
(the caller withdraws them). A late joiner has no games and so enters with zero.

1. An odd field gives the bye to the lowest-ranked player who has not had one (never twice).
2. Score groups are paired from the top down. Each bracket is the group plus the players that
   floated down from above, paired by a maximum-weight matching (networkx's blossom algorithm)
   over every pair that has not met, with lexicographic weights: as many pairs as possible; the
   lowest-ranked float down when someone must; the smallest score gaps; seat preferences met;
   then each player as close as possible to their Dutch partner (rank ``i`` against ``i + n/2``).
   A bracket larger than ``CHUNK_LIMIT`` is matched in slices that keep Dutch partners together,
   and matched whole when the slices leave more than one player over.
3. When the lowest bracket cannot be closed, the whole field is matched at once with the same
   weights; anyone still without a partner (every opponent already met) is returned ``unpaired``.
4. Seats: a player who has started more games than they played second prefers to play second,
   and the other way round; level players prefer the opposite of their last seat. Preferences
   that differ are both met; otherwise the lower seat balance starts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import networkx as nx  # type: ignore[import-untyped]

CHUNK_LIMIT = 64
_SLICE = 8
WIN, DRAW, BYE = 2, 1, 2


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player present for the round's pairing, with the rating that ranks them in their group."""

    player: int
    rating: int


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game of an earlier round: ``first`` started; ``winner`` is None for a draw."""

    first: int
    second: int
    winner: int | None

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError(f"player {self.first} cannot play against themselves")
        if self.winner is not None and self.winner not in (self.first, self.second):
            raise ValueError(f"the winner {self.winner} did not play in the game {self.first}-{self.second}")

    def points(self, player: int) -> int:
        """The half-points ``player`` scored in this game."""
        if self.winner is None:
            return DRAW
        return WIN if self.winner == player else 0


@dataclass(frozen=True, slots=True)
class SwissPair:
    """Two players paired for a round; ``first`` starts."""

    first: int
    second: int


@dataclass(frozen=True, slots=True)
class SwissRound:
    """A round's pairs (top board first), the bye, and whoever could meet no one new."""

    pairs: tuple[SwissPair, ...]
    bye: int | None
    unpaired: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Player:
    player: int
    rating: int
    score: int
    opponents: frozenset[int]
    balance: int
    last_first: bool | None
    had_bye: bool

    @property
    def preference(self) -> int:
        """+1: wants to start, -1: wants to play second, 0: no preference."""
        if self.balance:
            return -1 if self.balance > 0 else 1
        if self.last_first is None:
            return 0
        return -1 if self.last_first else 1


def scores(games: Sequence[Played], byes: Collection[int]) -> dict[int, int]:
    """Each player's half-points from ``games`` and ``byes`` (a list: one entry per bye)."""
    total: dict[int, int] = defaultdict(int)
    for game in games:
        total[game.first] += game.points(game.first)
        total[game.second] += game.points(game.second)
    for player in byes:
        total[player] += BYE
    return dict(total)


def pair_round(present: Sequence[Entrant], games: Sequence[Played], byes: Collection[int]) -> SwissRound:
    """Pair the next round for the ``present`` players, given every earlier game and bye."""
    players = _players(present, games, byes)
    bye = _bye(players) if len(players) % 2 else None
    field = [p for p in players if p.player != bye]
    pairs, left = _by_groups(field)
    if left:
        pairs, left = _match(field, top_first=False)
    seated = tuple(_seat(a, b, board) for board, (a, b) in enumerate(pairs))
    unpaired = tuple(p.player for p in left)
    if bye is None and len(unpaired) % 2:
        bye, unpaired = _late_bye(players, unpaired)
    return SwissRound(seated, bye, unpaired)


def _players(present: Sequence[Entrant], games: Sequence[Played], byes: Collection[int]) -> list[_Player]:
    ids = [e.player for e in present]
    if len(set(ids)) != len(ids):
        raise ValueError("a player is listed twice for the same round")
    had_bye = set(byes)
    total = scores(games, byes)
    met: dict[int, set[int]] = defaultdict(set)
    balance: dict[int, int] = defaultdict(int)
    last: dict[int, bool] = {}
    for game in games:
        met[game.first].add(game.second)
        met[game.second].add(game.first)
        balance[game.first] += 1
        balance[game.second] -= 1
        last[game.first], last[game.second] = True, False
    players = [
        _Player(e.player, e.rating, total.get(e.player, 0), frozenset(met[e.player]),
                balance[e.player], last.get(e.player), e.player in had_bye)
        for e in present
    ]
    return sorted(players, key=_rank)


def _rank(p: _Player) -> tuple[int, int, int]:
    return (-p.score, -p.rating, p.player)


def _bye(players: Sequence[_Player]) -> int | None:
    """The lowest-ranked player who has not had a bye (None when all have had one)."""
    for p in reversed(players):
        if not p.had_bye:
            return p.player
    return None


def _late_bye(players: Sequence[_Player], unpaired: tuple[int, ...]) -> tuple[int | None, tuple[int, ...]]:
    """With an odd number left unpaired, the lowest-ranked of them without a bye takes it."""
    had = {p.player for p in players if p.had_bye}
    for player in reversed(unpaired):
        if player not in had:
            return player, tuple(u for u in unpaired if u != player)
    return None, unpaired


def _by_groups(field: Sequence[_Player]) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    """Pair score group by score group, from the top; returns the pairs and who is left at the end."""
    groups: dict[int, list[_Player]] = defaultdict(list)
    for p in field:
        groups[p.score].append(p)
    pairs: list[tuple[_Player, _Player]] = []
    carry: list[_Player] = []
    for score in sorted(groups, reverse=True):
        matched, carry = _bracket(carry + groups[score])
        pairs += matched
    return pairs, carry


def _bracket(bracket: list[_Player]) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    if len(bracket) <= CHUNK_LIMIT:
        return _match(bracket, top_first=True)
    pairs, left = _sliced(bracket)
    if len(left) > len(bracket) % 2:
        return _match(bracket, top_first=True)
    return pairs, left


def _sliced(bracket: list[_Player]) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    """Match a large bracket slice by slice: ranks i..i+s of the top half with those of the bottom."""
    half = len(bracket) // 2
    top, bottom = bracket[:half], bracket[half:]
    pairs: list[tuple[_Player, _Player]] = []
    left: list[_Player] = []
    for start in range(0, half, _SLICE):
        end = start + _SLICE if start + 2 * _SLICE <= half else len(bracket)
        part = left + top[start:end] + bottom[start:end]
        matched, left = _match(sorted(part, key=_rank), top_first=True)
        pairs += matched
        if end == len(bracket):
            break
    return pairs, left


def _match(
    players: Sequence[_Player], top_first: bool
) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    """A maximum-cardinality, maximum-weight matching of ``players`` (ranked) with no rematch."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(players)))
    size = len(players)
    gap_cap = max((p.score for p in players), default=0) - min((p.score for p in players), default=0)
    level = 2 * size + gap_cap + 2
    base = size * level + 1
    for i, a in enumerate(players):
        for j in range(i + 1, size):
            b = players[j]
            if b.player in a.opponents:
                continue
            priority = (2 * size - i - j) if top_first else 0
            gap = gap_cap - abs(a.score - b.score)
            seats = 0 if a.preference == b.preference != 0 else 1
            closeness = size - abs(j - i - size // 2)
            weight = ((priority * base + gap) * base + seats) * base + closeness
            graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matching)
    used = {k for pair in pairs for k in pair}
    return [(players[i], players[j]) for i, j in pairs], [p for k, p in enumerate(players) if k not in used]


def _seat(a: _Player, b: _Player, board: int) -> SwissPair:
    """Who starts: differing preferences are met; else the lower balance; else boards alternate."""
    if a.preference != b.preference:
        first = a if a.preference > b.preference else b
    elif a.balance != b.balance:
        first = a if a.balance < b.balance else b
    else:
        first = a if board % 2 == 0 else b
    second = b if first is a else a
    return SwissPair(first.player, second.player)
