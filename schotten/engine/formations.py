"""Formations (R4) and their strength, with elite troops (R7.3) and combat modes (R7.4, R7.5).

A strength is an ``int``: ``rank * 64 + total``, so that a stronger formation has a
larger number (R4.1-R4.6 before the completion-order tie-break). Blind-man's Bluff
counts totals only: every formation there has rank SUM.

``best_formation`` answers the question behind every claim proof (R5.2): given the
cards already on a side, the elite troops among them (free to take any allowed
value and colour) and a pool of clan cards that could still come, what is the
strongest formation that side can reach, and with which cards?
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations, permutations

from .cards import (
    JOKER,
    NUM_COLOURS,
    NUM_VALUES,
    SHIELD,
    SPY,
    clan,
    colour_of,
    value_of,
)

SUM, RUN, COLOUR, KIND, COLOUR_RUN = range(5)
RANK_SHIFT = 64
FULL_VALUES = (1 << NUM_VALUES) - 1

WILD_VALUES: dict[int, int] = {JOKER: FULL_VALUES, SPY: 1 << 6, SHIELD: 0b111}
WILD_MAX: dict[int, int] = {JOKER: 9, SPY: 7, SHIELD: 3}


def _top_sum_table() -> list[list[int]]:
    table = []
    for mask in range(1 << NUM_VALUES):
        values = [v + 1 for v in range(NUM_VALUES - 1, -1, -1) if mask >> v & 1]
        table.append([sum(values[:k]) if k <= len(values) else -1 for k in range(5)])
    return table


TOP_SUM: list[list[int]] = _top_sum_table()
"""``TOP_SUM[mask][k]``: the sum of the ``k`` highest values in a 9-bit value mask, -1 if fewer."""

RUN_MASKS: dict[int, tuple[tuple[int, int], ...]] = {
    size: tuple(
        (start, ((1 << size) - 1) << (start - 1)) for start in range(NUM_VALUES - size + 1, 0, -1)
    )
    for size in (3, 4)
}
"""For each side size, the runs as ``(lowest value, value mask)``, highest first."""


def strength_of(rank: int, total: int) -> int:
    """The strength number of a formation of ``rank`` and ``total``."""
    return rank * RANK_SHIFT + total


def rank_of(strength: int) -> int:
    """The rank (SUM .. COLOUR_RUN) of a strength number."""
    return strength // RANK_SHIFT


def total_of(strength: int) -> int:
    """The total of values of a strength number."""
    return strength % RANK_SHIFT


@dataclass(frozen=True, slots=True)
class Formation:
    """A reachable formation: its strength, the pool cards it adds and the elite troops' roles.

    ``added`` are clan cards taken from the pool; ``wild_as`` gives, for each elite
    troop in the order given, the clan card (colour and value) it stands for.
    """

    strength: int
    added: tuple[int, ...]
    wild_as: tuple[int, ...]

    @property
    def rank(self) -> int:
        """The formation's rank (SUM .. COLOUR_RUN)."""
        return rank_of(self.strength)

    @property
    def total(self) -> int:
        """The total of the formation's values."""
        return total_of(self.strength)


def pool_by_colour(pool: int) -> list[int]:
    """Split a 54-bit clan-card mask into six 9-bit value masks, one per colour."""
    return [(pool >> (c * NUM_VALUES)) & FULL_VALUES for c in range(NUM_COLOURS)]


def _value_mask(cards: tuple[int, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << (card % NUM_VALUES)
    return mask


def _cover(missing: int, wild: tuple[int, ...], available: int) -> tuple[int, ...] | None:
    """Values for the wild cards so that every missing value not available is covered."""
    must = missing & ~available
    if must.bit_count() > len(wild):
        return None
    if not wild:
        return ()
    if len(wild) == 1:
        allowed = WILD_VALUES[wild[0]] & missing
        if must:
            return ((must & -must).bit_length() - 1,) if allowed & must == must else None
        return (allowed.bit_length() - 1,) if allowed else None
    values = [v for v in range(NUM_VALUES) if missing >> v & 1]
    for chosen in permutations(values, len(wild)):
        covered = 0
        for card, v in zip(wild, chosen, strict=True):
            if not WILD_VALUES[card] >> v & 1:
                break
            covered |= 1 << v
        else:
            if must & ~covered == 0:
                return chosen
    return None


def _colour_run(
    clan_cards: tuple[int, ...], wild: tuple[int, ...], size: int, cols: list[int]
) -> Formation | None:
    colours = {colour_of(c) for c in clan_cards}
    if len(colours) > 1:
        return None
    candidates = list(colours) if colours else list(range(NUM_COLOURS))
    have = _value_mask(clan_cards)
    if have.bit_count() != len(clan_cards):
        return None
    for start, run in RUN_MASKS[size]:
        if have & ~run:
            continue
        missing = run & ~have
        for colour in candidates:
            chosen = _cover(missing, wild, cols[colour])
            if chosen is not None:
                rest = missing & ~sum(1 << v for v in chosen)
                added = tuple(colour * NUM_VALUES + v for v in range(NUM_VALUES) if rest >> v & 1)
                wild_as = tuple(colour * NUM_VALUES + v for v in chosen)
                total = size * start + size * (size - 1) // 2
                return Formation(strength_of(COLOUR_RUN, total), added, wild_as)
    return None


def _kind(
    clan_cards: tuple[int, ...], wild: tuple[int, ...], size: int, need: int, cols: list[int]
) -> Formation | None:
    values = {value_of(c) for c in clan_cards}
    if len(values) > 1:
        return None
    candidates = list(values) if values else list(range(NUM_VALUES, 0, -1))
    for value in candidates:
        if any(not WILD_VALUES[w] >> (value - 1) & 1 for w in wild):
            continue
        spare = [c for c in range(NUM_COLOURS) if cols[c] >> (value - 1) & 1]
        if len(spare) >= need:
            added = tuple(clan(value, c) for c in spare[:need])
            used = {colour_of(c) for c in clan_cards}
            free = [c for c in range(NUM_COLOURS) if c not in used] or [0]
            wild_as = tuple(clan(value, free[i % len(free)]) for i in range(len(wild)))
            return Formation(strength_of(KIND, value * size), added, wild_as)
    return None


def _top_cards(mask: int, colour: int, count: int) -> tuple[int, ...]:
    values = [v for v in range(NUM_VALUES - 1, -1, -1) if mask >> v & 1][:count]
    return tuple(colour * NUM_VALUES + v for v in values)


def _wild_best(wild: tuple[int, ...], colour: int) -> tuple[int, ...]:
    return tuple(clan(WILD_MAX[w], colour) for w in wild)


def _colour(
    clan_cards: tuple[int, ...], wild: tuple[int, ...], need: int, cols: list[int]
) -> Formation | None:
    colours = {colour_of(c) for c in clan_cards}
    if len(colours) > 1:
        return None
    candidates = list(colours) if colours else list(range(NUM_COLOURS))
    base = sum(value_of(c) for c in clan_cards) + sum(WILD_MAX[w] for w in wild)
    best: tuple[int, int] | None = None
    for colour in candidates:
        top = TOP_SUM[cols[colour]][need]
        if top >= 0 and (best is None or top > best[0]):
            best = (top, colour)
    if best is None:
        return None
    top, colour = best
    added = _top_cards(cols[colour], colour, need)
    return Formation(strength_of(COLOUR, base + top), added, _wild_best(wild, colour))


def _run(
    clan_cards: tuple[int, ...], wild: tuple[int, ...], size: int, cols: list[int]
) -> Formation | None:
    have = _value_mask(clan_cards)
    if have.bit_count() != len(clan_cards):
        return None
    anywhere = 0
    for mask in cols:
        anywhere |= mask
    for start, run in RUN_MASKS[size]:
        if have & ~run:
            continue
        missing = run & ~have
        chosen = _cover(missing, wild, anywhere)
        if chosen is not None:
            rest = missing & ~sum(1 << v for v in chosen)
            added = tuple(
                next(c for c in range(NUM_COLOURS) if cols[c] >> v & 1) * NUM_VALUES + v
                for v in range(NUM_VALUES)
                if rest >> v & 1
            )
            wild_as = tuple(v for v in chosen)
            total = size * start + size * (size - 1) // 2
            return Formation(strength_of(RUN, total), added, wild_as)
    return None


def _sum(
    clan_cards: tuple[int, ...], wild: tuple[int, ...], need: int, cols: list[int]
) -> Formation | None:
    added: list[int] = []
    for v in range(NUM_VALUES - 1, -1, -1):
        for colour in range(NUM_COLOURS):
            if len(added) == need:
                break
            if cols[colour] >> v & 1:
                added.append(colour * NUM_VALUES + v)
    if len(added) < need:
        return None
    total = (
        sum(value_of(c) for c in clan_cards)
        + sum(WILD_MAX[w] for w in wild)
        + sum(value_of(c) for c in added)
    )
    return Formation(strength_of(SUM, total), tuple(added), _wild_best(wild, 0))


def best_formation(
    clan_cards: tuple[int, ...],
    wild: tuple[int, ...],
    size: int,
    bluff: bool,
    pool: int,
    floor: int = -1,
) -> Formation | None:
    """The strongest formation a side can reach, or None if none is stronger than ``floor``.

    ``clan_cards`` are the clan cards on the side, ``wild`` its elite troops (R7.3),
    ``size`` 3 or 4 (Mud Fight, R7.5), ``bluff`` whether only totals count (R7.4),
    ``pool`` a mask of the clan cards that may still be added. With ``floor`` set,
    ranks that cannot beat it are not searched.
    """
    need = size - len(clan_cards) - len(wild)
    if need < 0:
        raise ValueError("a side holds more cards than its size")
    cols = pool_by_colour(pool)
    floor_rank = rank_of(floor) if floor >= 0 else SUM
    found: Formation | None = None
    if not bluff:
        found = _colour_run(clan_cards, wild, size, cols)
        if found is None and floor_rank <= KIND:
            found = _kind(clan_cards, wild, size, need, cols)
        if found is None and floor_rank <= COLOUR:
            found = _colour(clan_cards, wild, need, cols)
        if found is None and floor_rank <= RUN:
            found = _run(clan_cards, wild, size, cols)
    if found is None and (bluff or floor_rank <= SUM):
        found = _sum(clan_cards, wild, need, cols)
    if found is None or found.strength <= floor:
        return None
    return found


@lru_cache(maxsize=1 << 16)
def side_strength(cards: tuple[int, ...], size: int, bluff: bool) -> int:
    """The strength of a complete side (clan cards and elite troops), troops at their best."""
    clan_cards = tuple(c for c in cards if c < 54)
    wild = tuple(c for c in cards if c >= 54)
    found = best_formation(clan_cards, wild, size, bluff, 0)
    assert found is not None, "a complete side always forms something"
    return found.strength


def _score_triple(a: int, b: int, c: int) -> int:
    """The strength of three distinct clan cards, without combat modes (R4)."""
    va, vb, vc = sorted((a % NUM_VALUES, b % NUM_VALUES, c % NUM_VALUES))
    total = va + vb + vc + 3
    same_colour = a // NUM_VALUES == b // NUM_VALUES == c // NUM_VALUES
    run = vb == va + 1 and vc == vb + 1
    if same_colour and run:
        return strength_of(COLOUR_RUN, total)
    if va == vc:
        return strength_of(KIND, total)
    if same_colour:
        return strength_of(COLOUR, total)
    return strength_of(RUN if run else SUM, total)


TRIPLE_STRENGTH: dict[tuple[int, int, int], int] = {
    triple: _score_triple(*triple) for triple in combinations(range(NUM_COLOURS * NUM_VALUES), 3)
}
"""The strength of every set of three clan cards (sorted), computed once at import."""


@cache
def _completions(partial: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Every completion of a 3-card side from ``partial``: negated strengths ascending, card masks."""
    rest = [c for c in range(NUM_COLOURS * NUM_VALUES) if c not in partial]
    scored = []
    for combo in combinations(rest, 3 - len(partial)):
        mask = 0
        for card in combo:
            mask |= 1 << card
        key = tuple(sorted(partial + combo))
        scored.append((-TRIPLE_STRENGTH[key], mask))  # type: ignore[index]
    scored.sort()
    return [s for s, _ in scored], [m for _, m in scored]


def warm_tables() -> None:
    """Build every completion table now rather than on first use (for benchmarks and servers)."""
    cards = range(NUM_COLOURS * NUM_VALUES)
    for size in range(3):
        for partial in combinations(cards, size):
            _completions(partial)


def beating_completion(
    clan_cards: tuple[int, ...], wild: tuple[int, ...], size: int, bluff: bool, pool: int, floor: int
) -> int:
    """A mask of pool cards with which a side would beat ``floor``, or -1 if none can (R5.2).

    The common case (clan cards only, three-card side, no Bluff) first reads the
    strongest few completions from the tables; every other case, and a long search,
    asks ``best_formation``, whose cost does not grow with the number of blocked cards.
    """
    if not (wild or size != 3 or bluff):
        negated, masks = _completions(tuple(sorted(clan_cards)))
        cut = bisect_left(negated, -floor)
        blocked = ~pool
        for i in range(min(cut, _TABLE_SCAN)):
            if not masks[i] & blocked:
                return masks[i]
        if cut <= _TABLE_SCAN:
            return -1
    found = best_formation(clan_cards, wild, size, bluff, pool, floor)
    if found is None:
        return -1
    mask = 0
    for card in found.added:
        mask |= 1 << card
    return mask


_TABLE_SCAN = 40
