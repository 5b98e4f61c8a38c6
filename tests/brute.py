"""A brute-force reference for formations (R4, R7.3-R7.5) and the claim proof (R5).

Written apart from ``schotten.engine.formations`` on purpose: it shares nothing with
it but the card codes of ``schotten.engine.cards``, and it tries every possibility
instead of being clever. Strengths use the engine's encoding so the two can be
compared: ``rank * 64 + total`` with ranks 0 sum, 1 run, 2 colour, 3 same value,
4 colour-run (R4.1-R4.5); under Blind-man's Bluff every formation has rank 0 (R7.4).

The tests at the bottom check the reference itself against the rules text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import combinations, product

from schotten.engine.cards import (
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    NUM_CLAN,
    NUM_COLOURS,
    NUM_STONES,
    NUM_VALUES,
    SHIELD,
    SPY,
)
from schotten.engine.state import GameState

Pair = tuple[int, int]
"""A concrete card as ``(colour, value)``: colour 0-5, value 1-9."""

SUM_RANK, RUN_RANK, COLOUR_RANK, SAME_VALUE_RANK, COLOUR_RUN_RANK = 0, 1, 2, 3, 4


def encode(rank: int, total: int) -> int:
    """A strength in the engine's encoding."""
    return rank * 64 + total


def pair(card: int) -> Pair:
    """The ``(colour, value)`` of a clan card code."""
    assert 0 <= card < NUM_CLAN
    return card // NUM_VALUES, card % NUM_VALUES + 1


def rank_of_pairs(cards: Sequence[Pair]) -> int:
    """The rank of a complete formation of concrete cards (R4.1-R4.5), no wrap-around."""
    colours = {colour for colour, _ in cards}
    values = sorted(value for _, value in cards)
    consecutive = all(values[i + 1] == values[i] + 1 for i in range(len(values) - 1))
    if len(colours) == 1 and consecutive:
        return COLOUR_RUN_RANK
    if len(set(values)) == 1:
        return SAME_VALUE_RANK
    if len(colours) == 1:
        return COLOUR_RANK
    if consecutive:
        return RUN_RANK
    return SUM_RANK


@cache
def score_pairs(cards: tuple[Pair, ...], bluff: bool) -> int:
    """The strength of a complete formation of 3 or 4 concrete cards (R4, R7.4, R7.5)."""
    assert len(cards) in (3, 4)
    total = sum(value for _, value in cards)
    return encode(SUM_RANK if bluff else rank_of_pairs(cards), total)


def troop_choices(troop: int) -> list[Pair]:
    """Every ``(colour, value)`` an elite troop may stand for (R7.3)."""
    values = {JOKER: range(1, 10), SPY: (7,), SHIELD: (1, 2, 3)}[troop]
    return [(colour, value) for colour in range(NUM_COLOURS) for value in values]


def assignments(troops: Sequence[int]) -> Iterator[tuple[Pair, ...]]:
    """Every joint choice of ``(colour, value)`` for the troops, in the troops' order."""
    return product(*(troop_choices(t) for t in troops))


@cache
def _best_sorted(clan: tuple[int, ...], troops: tuple[int, ...], bluff: bool) -> int:
    fixed = tuple(pair(c) for c in clan)
    return max(score_pairs(tuple(sorted(fixed + chosen)), bluff) for chosen in assignments(troops))


def best_with_troops(clan: Iterable[int], troops: Iterable[int], bluff: bool) -> int:
    """The strength of a complete side: clan cards plus elite troops at their best (R7.3)."""
    return _best_sorted(tuple(sorted(clan)), tuple(sorted(troops)), bluff)


def side_value(cards: Iterable[int], bluff: bool) -> int:
    """The strength of a complete side given as card codes (clan cards and elite troops)."""
    cards = list(cards)
    return best_with_troops([c for c in cards if c < NUM_CLAN], [c for c in cards if c >= NUM_CLAN], bluff)


def completions(clan: Sequence[int], troops: Sequence[int], size: int, pool: Iterable[int]) -> Iterator[
    tuple[int, ...]
]:
    """Every choice of pool cards that completes the side to ``size`` cards."""
    need = size - len(clan) - len(troops)
    if need < 0:
        raise ValueError("the side holds more cards than its size")
    return combinations(sorted(pool, reverse=True), need)


def best_completion(
    clan: Sequence[int], troops: Sequence[int], size: int, bluff: bool, pool: Iterable[int]
) -> int | None:
    """The strongest formation any completion from ``pool`` reaches; None if none exists."""
    best: int | None = None
    for added in completions(clan, troops, size, pool):
        value = best_with_troops((*clan, *added), troops, bluff)
        best = value if best is None else max(best, value)
    return best


def beating_completion(
    clan: Sequence[int], troops: Sequence[int], size: int, bluff: bool, pool: Iterable[int], target: int
) -> tuple[int, ...] | None:
    """Pool cards completing the side to a strength above ``target``, or None if none do."""
    for added in completions(clan, troops, size, pool):
        if best_with_troops((*clan, *added), troops, bluff) > target:
            return added
    return None


def mask_cards(mask: int) -> list[int]:
    """The clan cards of a 54-bit mask."""
    return [c for c in range(NUM_CLAN) if mask >> c & 1]


def visible_pool(state: GameState) -> int:
    """R5.2/R7.12: the clan cards on no side, in no discard pile and not held in a ruse."""
    seen = {c for seat in (0, 1) for side in state.sides[seat] for c in side}
    seen |= {c for pile in state.discards for c in pile}
    seen.add(state.held)
    return sum(1 << c for c in range(NUM_CLAN) if c not in seen)


def split(cards: Iterable[int]) -> tuple[list[int], list[int]]:
    """A side's clan cards and elite troops."""
    cards = list(cards)
    return [c for c in cards if c < NUM_CLAN], [c for c in cards if c >= NUM_CLAN]


def brute_can_claim(state: GameState, seat: int, stone: int) -> bool:
    """R5 decided by brute force on ``state.pool`` (R5.1 complete sides, R5.2 otherwise)."""
    if state.owner[stone] >= 0:
        return False
    size = 4 if state.modes[stone] & MODE_MUD else 3
    bluff = bool(state.modes[stone] & MODE_BLUFF)
    mine, theirs = state.sides[seat][stone], state.sides[1 - seat][stone]
    if len(mine) != size:
        return False
    my_value = side_value(mine, bluff)
    if len(theirs) == size:
        their_value = side_value(theirs, bluff)
        if my_value != their_value:
            return my_value > their_value
        return state.stamps[seat][stone] < state.stamps[1 - seat][stone]
    clan, troops = split(theirs)
    return beating_completion(clan, troops, size, bluff, mask_cards(state.pool), my_value) is None


def brute_claimable(state: GameState, seat: int) -> list[int]:
    """Every stone ``seat`` may claim now, by brute force."""
    return [s for s in range(NUM_STONES) if brute_can_claim(state, seat, s)]


def _p(text: str) -> tuple[Pair, ...]:
    letters = "gbrypk"
    return tuple((letters.index(text[i + 1]), int(text[i])) for i in range(0, len(text), 2))


def test_reference_ranks_follow_r4() -> None:
    """R4.1-R4.5 and the R4.6 decision (Colour beats Run), without wrap-around (R4.1)."""
    assert score_pairs(_p("1r2r3r"), False) == encode(COLOUR_RUN_RANK, 6)
    assert score_pairs(_p("9g9b9r"), False) == encode(SAME_VALUE_RANK, 27)
    assert score_pairs(_p("1r2r4r"), False) == encode(COLOUR_RANK, 7)
    assert score_pairs(_p("7g8b9r"), False) == encode(RUN_RANK, 24)
    assert score_pairs(_p("9g9b8r"), False) == encode(SUM_RANK, 26)
    assert score_pairs(_p("9r1r2r"), False) == encode(COLOUR_RANK, 12)
    assert score_pairs(_p("9g1b2r"), False) == encode(SUM_RANK, 12)
    assert score_pairs(_p("2r3r4r5r"), False) == encode(COLOUR_RUN_RANK, 14)
    assert score_pairs(_p("5g5b5r5y"), False) == encode(SAME_VALUE_RANK, 20)
    assert score_pairs(_p("5g5b5r6y"), False) == encode(SUM_RANK, 21)


def test_reference_bluff_and_troops() -> None:
    """R7.4 totals only; R7.3 each troop's freedom."""
    assert score_pairs(_p("1r2r3r"), True) == encode(SUM_RANK, 6)
    assert best_with_troops([], [JOKER, SPY, SHIELD], False) == encode(COLOUR_RANK, 19)
    assert best_with_troops(list(pair_codes("8r9r")), [SPY], False) == encode(COLOUR_RUN_RANK, 24)
    assert best_with_troops(list(pair_codes("4r5r")), [SHIELD], False) == encode(COLOUR_RUN_RANK, 12)
    assert best_with_troops(list(pair_codes("1r3r")), [JOKER], False) == encode(COLOUR_RUN_RANK, 6)
    assert best_completion(list(pair_codes("1r")), [], 3, False, pair_codes("2r3r9g")) == encode(
        COLOUR_RUN_RANK, 6
    )
    assert best_completion(list(pair_codes("1r")), [], 3, False, pair_codes("2r")) is None


def pair_codes(text: str) -> list[int]:
    """Clan card codes from text like ``7b8b``, computed here from ``(colour, value)``."""
    return [colour * NUM_VALUES + value - 1 for colour, value in _p(text)]
