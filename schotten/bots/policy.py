"""The search's greedy policy: a cheap score for every play of a clan card (R4 strengths).

``play_scores(state, ids, rand, aware)`` scores plays for the seat to move: where the strongest
formation a side can still reach suffers least, with bonuses for staying ahead of the other side
and for completing a winning side, and a cost for spending a card another side of ours needs.
The search (``mcts``) plays its playouts and widens its tree with it; the opponent model
(``reading``) turns it into probabilities.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine import GameState
from ..engine.cards import NUM_CLAN, NUM_STONES, NUM_VALUES
from ..engine.formations import COLOUR, COLOUR_RUN, KIND, RUN, TRIPLE_STRENGTH, strength_of

AHEAD_BONUS = 80
"""Policy: bonus for a play after which its side can still beat the best the other side can reach."""

WIN_BONUS = 150
"""Policy: further bonus for completing a side that beats the best the other side can reach."""

TACTIC_SCORE = -40.0
"""Policy: the score of playing a tactic card, or a card on a stone with tactic cards (plus noise)."""

SPARE_SCORE = -1e6
"""Policy: the score of a play on a stone empty on both sides other than the one scored."""


_NUM_PLAYS = NUM_CLAN * NUM_STONES
_EMPTY_REACH = strength_of(COLOUR_RUN, 24)
_TIE_BREAK = [(card % NUM_VALUES) / 100 for card in range(NUM_CLAN)]

Pair = tuple[list[int], list[int], list[int]]
"""A two-card side's completions: strengths (strongest first), card masks per strength, strength by card."""

_PAIRS: list[Pair | None] = [None] * (NUM_CLAN * NUM_CLAN)
_COLUMN = [sum(1 << (colour * NUM_VALUES + v) for colour in range(6)) for v in range(NUM_VALUES)]
"""``_COLUMN[v]``: the mask of the six clan cards of value ``v + 1``."""


def _top_two(mask: int) -> int:
    values = [v + 1 for v in range(NUM_VALUES - 1, -1, -1) if mask >> v & 1]
    return values[0] + values[1] if len(values) >= 2 else -1


_TOP_TWO = [_top_two(mask) for mask in range(1 << NUM_VALUES)]
"""``_TOP_TWO[mask]``: the sum of the two highest values of a 9-bit value mask, -1 with fewer than two."""
_BASE = [strength_of(rank, 0) for rank in range(5)]


def _pair(x: int, y: int) -> Pair:
    """The completions of a side holding the clan cards ``x`` and ``y`` (see ``Pair``)."""
    table = _PAIRS[x * NUM_CLAN + y]
    if table is None:
        groups: dict[int, int] = {}
        by_card = [-1] * NUM_CLAN
        for c in range(NUM_CLAN):
            if c != x and c != y:
                strength = by_card[c] = TRIPLE_STRENGTH[tuple(sorted((x, y, c)))]  # type: ignore[index]
                groups[strength] = groups.get(strength, 0) | (1 << c)
        ordered = sorted(groups.items(), reverse=True)
        table = ([s for s, _ in ordered], [m for _, m in ordered], by_card)
        _PAIRS[x * NUM_CLAN + y] = _PAIRS[y * NUM_CLAN + x] = table
    return table


def _reach_single(card: int, pool: int) -> int:
    """The strongest formation a side holding ``card`` can reach from ``pool`` (-1: none), rank by rank."""
    pool &= ~(1 << card)
    colour, v = divmod(card, NUM_VALUES)
    own = (pool >> (colour * NUM_VALUES)) & 511
    starts = [s for s in (v, v - 1, v - 2) if 0 <= s <= NUM_VALUES - 3]
    for start in starts:
        need = (7 << start) & ~(1 << v)
        if own & need == need:
            return _BASE[COLOUR_RUN] + 3 * start + 6
    if (pool & _COLUMN[v]).bit_count() >= 2:
        return _BASE[KIND] + 3 * (v + 1)
    if _TOP_TWO[own] >= 0:
        return _BASE[COLOUR] + v + 1 + _TOP_TWO[own]
    values = 0
    rest = pool
    while rest:
        values |= rest & 511
        rest >>= NUM_VALUES
    for start in starts:
        need = (7 << start) & ~(1 << v)
        if values & need == need:
            return _BASE[RUN] + 3 * start + 6
    total, count = v + 1, 0
    for w in range(NUM_VALUES - 1, -1, -1):
        take = min(2 - count, (pool & _COLUMN[w]).bit_count())
        total, count = total + take * (w + 1), count + take
        if count == 2:
            return total
    return -1


def _reach_pair(pair: Pair, pool: int, start: int = 0) -> int:
    """The strongest formation a side holding a pair can reach from ``pool`` (-1: none)."""
    strengths, masks, _ = pair
    for i in range(start, len(masks)):
        if masks[i] & pool:
            return strengths[i]
    return -1


def _reach(side: list[int], pool: int) -> int:
    """The strongest three-card formation a side of clan cards can reach from ``pool`` (-1: none)."""
    n = len(side)
    if n == 0:
        return _EMPTY_REACH
    if n == 1:
        return _reach_single(side[0], pool)
    if n == 2:
        return _reach_pair(_pair(side[0], side[1]), pool)
    return TRIPLE_STRENGTH[tuple(sorted(side))]  # type: ignore[index]


_Info = tuple[int, float, int, int, list[int] | None]
"""A stone as the policy sees it: cards on the mover's side, that side's reach (plus a little
noise) and the other side's, the side's card if it holds one, its completions by card if two."""

_SPARE: _Info = (-1, -1.0, -1, -1, None)
"""A stone empty on both sides other than the one scored: a play there is the same."""


def _stone_infos(state: GameState, pools: tuple[int, int], rand: Callable[[], float]) -> list[_Info | None]:
    """Per stone, the policy's view for the seat to move; None for a stone closed to it, or with
    tactic cards or a combat mode. ``pools``: the cards the mover and the other seat may still get."""
    seat, owner, modes = state.turn, state.owner, state.modes
    pool, their_pool = pools
    mine, theirs = state.sides[seat], state.sides[1 - seat]
    tactics = state.settings.tactics
    infos: list[_Info | None] = []
    blank = -1
    for stone in range(NUM_STONES):
        side, other = mine[stone], theirs[stone]
        n = len(side)
        if owner[stone] >= 0 or n >= 3 or modes[stone] or (tactics and _has_tactic(side, other)):
            infos.append(None)
        elif not side and not other:
            if blank < 0 or rand() < 0.5:
                blank = stone
            infos.append(_SPARE)
        else:
            pair = _pair(side[0], side[1]) if n == 2 else None
            before = (_reach_pair(pair, pool) if pair else _reach(side, pool)) - rand() * 0.01
            single = side[0] if n == 1 else -1
            infos.append((n, before, _reach(other, their_pool), single, pair[2] if pair else None))
    if blank >= 0:
        infos[blank] = (0, _EMPTY_REACH, _EMPTY_REACH, -1, None)
    return infos


def _has_tactic(side: list[int], other: list[int]) -> bool:
    return any(c >= NUM_CLAN for c in side) or any(c >= NUM_CLAN for c in other)


def _pools(state: GameState, aware: bool) -> tuple[int, int]:
    """The clan cards the seat to move and the other seat may still get.

    Not ``aware``: every card not on the board (as R5.2 counts them). ``aware`` (a
    deal where both hands are known): not on the board nor in the other seat's hand.
    """
    if not aware:
        return state.pool, state.pool
    hands = [0, 0]
    for seat in (0, 1):
        for card in state.hands[seat]:
            if card < NUM_CLAN:
                hands[seat] |= 1 << card
    seat = state.turn
    return state.pool & ~hands[1 - seat], state.pool & ~hands[seat]


def _needed(state: GameState, pool: int) -> dict[int, list[tuple[int, int]]]:
    """Cards that alone give one of the mover's two-card sides its best formation: card ->
    ``(stone, how much that side's reach drops without the card)``."""
    found: dict[int, list[tuple[int, int]]] = {}
    for stone, side in enumerate(state.sides[state.turn]):
        if len(side) != 2 or state.owner[stone] >= 0 or state.modes[stone] or max(side) >= NUM_CLAN:
            continue
        pair = _pair(side[0], side[1])
        strengths, masks, _ = pair
        for i, m in enumerate(masks):
            avail = m & pool
            if avail:
                if avail & (avail - 1) == 0:
                    drop = strengths[i] - _reach_pair(pair, pool, i + 1)
                    found.setdefault(avail.bit_length() - 1, []).append((stone, drop))
                break
    return found


def play_scores(
    state: GameState, ids: list[int], rand: Callable[[], float], aware: bool = True
) -> list[float]:
    """A greedy score for each play of ``ids`` (R4 strengths), for the seat to move.

    A clan card on a plain stone scores the change in the strongest formation its
    side can still reach, plus ``AHEAD_BONUS`` if that still beats the best the other
    side can reach there and ``WIN_BONUS`` if it completes such a side, minus what
    another two-card side of ours loses if it needed this very card; ties go to
    higher cards, then at random. Tactic cards, and stones with tactic cards or
    combat modes, get ``TACTIC_SCORE`` plus noise. Of the stones empty on both sides
    only a random one is scored, the others get ``SPARE_SCORE`` (a play there is the
    same). ``aware``: see ``_pools``.
    """
    pools = _pools(state, aware)
    pool = pools[0]
    infos = _stone_infos(state, pools, rand)
    needed = _needed(state, pool)
    singles: dict[int, int] = {}
    pairs = _PAIRS
    scores = []
    for a in ids:
        if a >= _NUM_PLAYS:
            scores.append(TACTIC_SCORE + rand() * 40.0)
            continue
        card, stone = divmod(a, NUM_STONES)
        info = infos[stone]
        if info is None:
            scores.append(TACTIC_SCORE + rand() * 40.0)
            continue
        n, before, other, x, by_card = info
        if n < 0:
            scores.append(SPARE_SCORE)
            continue
        if n == 0:
            after = singles.get(card, -2)
            if after == -2:
                after = singles[card] = _reach_single(card, pool)
        elif n == 1:
            after = _reach_pair(pairs[x * NUM_CLAN + card] or _pair(x, card), pool)
        else:
            after = by_card[card]  # type: ignore[index]
        score = after - before + _TIE_BREAK[card]
        if after > other:
            score += AHEAD_BONUS + (WIN_BONUS if n == 2 else 0)
        if card in needed:
            score -= max((drop for s, drop in needed[card] if s != stone), default=0)
        scores.append(score)
    return scores
