"""A Swiss round's pairing: score groups paired inside themselves, no rematch, one bye, seats.

Scores are counted in half-points (a win 2, a draw 1, a loss 0, a bye 2: a bye scores as a win).
The players present are ranked by score, then rating, then id; whoever is absent is not paired
(the caller withdraws them). A late joiner has no games and so enters with zero.

1. An odd field adds a bye to the lowest bracket, as a partner only for players who have not had
   one (never twice): it goes to the lowest-ranked of them whose bye lets the bracket close.
2. Score groups are paired from the top down. Each bracket is the group plus the players that
   floated down from above, paired by a maximum-weight matching (networkx's blossom algorithm)
   over every pair that has not met, with lexicographic weights: as many pairs as possible; the
   lowest-ranked float down when someone must, and the bye goes to the lowest-ranked who can
   take it; the smallest score gaps; no seat balance taken past ±2; seat preferences met; then
   each player as close as possible to their Dutch partner (rank ``i`` of a group of ``n``
   against ``i + n/2``; a floater against the top of the group below).
   A bracket larger than ``CHUNK_LIMIT`` is matched in slices that keep Dutch partners together,
   and matched whole when the slices leave more than one player over.
3. When the lowest bracket cannot be closed, it is merged with the groups above it, one at a
   time, until it closes; anyone still without a partner (every possible opponent already met)
   is returned ``unpaired``.
4. Seats: a player who has started more games than they played second prefers to play second,
   and the other way round; level players prefer the opposite of their last seat. Preferences
   that differ are both met; otherwise the lower seat balance starts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import networkx as nx  # type: ignore[import-untyped]

CHUNK_LIMIT = 32
_SLICE = 8
WIN, DRAW, BYE = 2, 1, 2


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player present for the round's pairing, with the rating that ranks them in their group."""

    player: int
    rating: int


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game of an earlier round: ``first`` started; ``winner`` is None for a draw (and for
    a game ``aborted`` before both decided, which scores nothing for either)."""

    first: int
    second: int
    winner: int | None
    aborted: bool = False

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError(f"player {self.first} cannot play against themselves")
        if self.winner is not None and self.winner not in (self.first, self.second):
            raise ValueError(f"the winner {self.winner} did not play in the game {self.first}-{self.second}")
        if self.aborted and self.winner is not None:
            raise ValueError(f"the aborted game {self.first}-{self.second} has no winner")

    def points(self, player: int) -> int:
        """The half-points ``player`` scored in this game."""
        if self.aborted:
            return 0
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

    @property
    def strong_preference(self) -> int:
        """The preference when the other seat would take the balance past ±2, else 0."""
        return self.preference if abs(self.balance) >= 2 else 0


_BYE = _Player(player=0, rating=-(10**9), score=-1, opponents=frozenset(), balance=0, last_first=None,
                had_bye=True)


def scores(games: Sequence[Played], byes: Collection[int]) -> dict[int, int]:
    """Each player's half-points from ``games`` and ``byes`` (a list: one entry per bye)."""
    total: dict[int, int] = defaultdict(int)
    for game in games:
        total[game.first] += game.points(game.first)
        total[game.second] += game.points(game.second)
    for player in byes:
        total[player] += BYE
    return dict(total)


def pair_round(present: Sequence[Entrant], games: Sequence[Played], byes: Collection[int],
               apart: Collection[tuple[int, int]] = ()) -> SwissRound:
    """Pair the next round for the ``present`` players, given every earlier game and bye; the pairs of
    ``apart`` (one blocks the other) are never paired, as if they had met."""
    players = _players(present, games, byes, apart)
    pairs, left = _by_groups(players)
    bye = next((_other(a, b).player for a, b in pairs if a is _BYE or b is _BYE), None)
    games_paired = [(a, b) for a, b in pairs if not (a is _BYE or b is _BYE)]
    seated = tuple(_seat(a, b, board) for board, (a, b) in enumerate(games_paired))
    return SwissRound(seated, bye, tuple(p.player for p in left if p is not _BYE))


def _players(present: Sequence[Entrant], games: Sequence[Played], byes: Collection[int],
             apart: Collection[tuple[int, int]] = ()) -> list[_Player]:
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
    for a, b in apart:
        met[a].add(b)
        met[b].add(a)
    players = [
        _Player(e.player, e.rating, total.get(e.player, 0), frozenset(met[e.player]),
                balance[e.player], last.get(e.player), e.player in had_bye)
        for e in present
    ]
    return sorted(players, key=_rank)


def _rank(p: _Player) -> tuple[int, int, int]:
    return (-p.score, -p.rating, p.player)


def _by_groups(field: Sequence[_Player]) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    """Pair score group by score group, from the top; returns the pairs and who is left at the end.

    When the lowest bracket cannot be closed, it is merged with the groups above it, one at a time,
    until the merged bracket closes (the groups above keep their pairs).
    """
    by_score: dict[int, list[_Player]] = defaultdict(list)
    for p in field:
        by_score[p.score].append(p)
    groups = [by_score[score] for score in sorted(by_score, reverse=True)]
    if len(field) % 2:
        groups[-1] = [*groups[-1], _BYE]
    pairs: list[list[tuple[_Player, _Player]]] = []
    carried_in: list[list[_Player]] = []
    carry: list[_Player] = []
    for group in groups:
        carried_in.append(carry)
        matched, carry = _bracket(carry + group)
        pairs.append(matched)
    for start in range(len(groups) - 2, -1, -1):
        if not carry:
            break
        merged = carried_in[start] + [p for group in groups[start:] for p in group]
        matched, carry = _bracket(merged)
        pairs[start:] = [matched]
    return [pair for matched in pairs for pair in matched], carry


def _bracket(bracket: list[_Player]) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    if len(bracket) <= CHUNK_LIMIT:
        return _match(bracket)
    pairs, left = _sliced(bracket)
    if len(left) > len(bracket) % 2:
        return _match(bracket)
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
        matched, left = _match(sorted(part, key=_rank))
        pairs += matched
        if end == len(bracket):
            break
    return pairs, left


def _match(players: Sequence[_Player]) -> tuple[list[tuple[_Player, _Player]], list[_Player]]:
    """A maximum-cardinality, maximum-weight matching of ``players`` (ranked) with no rematch."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(players)))
    size = len(players)
    real = [p.score for p in players if p is not _BYE] or [0]
    low, gap_cap = min(real), max(real) - min(real)
    base = size * (2 * size + gap_cap + 2) + 1
    place, group_size = _places(players)
    for i, a in enumerate(players):
        for j in range(i + 1, size):
            b = players[j]
            if a is _BYE or b is _BYE:
                taker = _other(a, b)
                if taker.had_bye:
                    continue
                terms = (size, gap_cap - (taker.score - low), 1, min(i, j), 1, 0)
            elif b.player in a.opponents:
                continue
            else:
                seats = 0 if a.preference == b.preference != 0 else 1
                strong = 0 if a.strong_preference == b.strong_preference != 0 else 1
                if a.score == b.score:
                    dutch = size - abs(place[j] - place[i] - group_size[i] // 2)
                else:
                    dutch = size - place[j]
                terms = (2 * size - i - j, gap_cap - abs(a.score - b.score), strong, 0, seats, dutch)
            graph.add_edge(i, j, weight=_lexicographic(terms, base))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matching)
    used = {k for pair in pairs for k in pair}
    return [(players[i], players[j]) for i, j in pairs], [p for k, p in enumerate(players) if k not in used]


def _other(a: _Player, b: _Player) -> _Player:
    """Of a pair with the bye, the player."""
    return b if a is _BYE else a


def _places(players: Sequence[_Player]) -> tuple[list[int], list[int]]:
    """Each player's place within their score group in the bracket, and that group's size."""
    count: dict[int, int] = defaultdict(int)
    place = []
    for p in players:
        place.append(count[p.score])
        count[p.score] += 1
    return place, [count[p.score] for p in players]


def _lexicographic(terms: tuple[int, ...], base: int) -> int:
    """One edge weight from terms in falling importance, each smaller than ``base`` over a matching."""
    weight = 0
    for term in terms:
        weight = weight * base + term
    return weight


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
