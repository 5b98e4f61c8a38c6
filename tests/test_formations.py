"""Formations (R4, R7.3-R7.5): scenarios citing the rules, and properties against a brute force."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schotten.engine.cards import JOKER, NUM_CLAN, SHIELD, SPY, parse_cards
from schotten.engine.formations import (
    COLOUR,
    COLOUR_RUN,
    KIND,
    RUN,
    SUM,
    TRIPLE_STRENGTH,
    Formation,
    beating_completion,
    best_formation,
    rank_of,
    side_strength,
    strength_of,
    total_of,
)
from tests import brute


def strength(text: str, bluff: bool = False) -> int:
    """The engine's strength of a complete side written in notation (any size)."""
    cards = parse_cards(text)
    return side_strength(tuple(sorted(cards)), len(cards), bluff)


def reference(text: str, bluff: bool = False) -> int:
    """The brute-force strength of the same side."""
    return brute.side_value(parse_cards(text), bluff)


def mask(cards: list[int] | tuple[int, ...]) -> int:
    """A pool mask of clan cards."""
    return sum(1 << c for c in cards)


@pytest.mark.parametrize(
    ("text", "rank", "total"),
    [
        ("1r2r3r", COLOUR_RUN, 6),
        ("9k8k7k", COLOUR_RUN, 24),
        ("9g9b9r", KIND, 27),
        ("1r2r4r", COLOUR, 7),
        ("7g8b9r", RUN, 24),
        ("9g9b8r", SUM, 26),
        ("9r1r2r", COLOUR, 12),
        ("9g1b2r", SUM, 12),
        ("8g9b1r", SUM, 18),
    ],
)
def test_r4_ranks_and_totals(text: str, rank: int, total: int) -> None:
    """R4.1-R4.5: each rank is recognised, with its total (R4.6); no wrap-around (R4.1)."""
    found = strength(text)
    assert (rank_of(found), total_of(found)) == (rank, total)
    assert found == reference(text)


def test_r4_rank_order_beats_any_total() -> None:
    """R4.1 > R4.2 > R4.3 > R4.4 > R4.5, whatever the totals: the weakest of a rank beats
    the strongest of the rank below."""
    chain = ["1r2r3r", "9g9b9r", "1g1b1r", "9r8r6r", "1r2r4r", "7g8b9r", "1g2b3r", "9g9b8r"]
    strengths = [strength(t) for t in chain]
    for upper, lower in pairwise(strengths):
        assert upper > lower
    assert [rank_of(s) for s in strengths[::2]] == [COLOUR_RUN, KIND, COLOUR, RUN]


def test_r4_6_colour_beats_run() -> None:
    """R4.6 decision: Colour ranks above Run (against the older seed 001)."""
    assert strength("1r2r4r") > strength("7g8b9r")
    assert reference("1r2r4r") > reference("7g8b9r")


def test_r4_6_same_rank_higher_total_wins_and_equal_totals_tie() -> None:
    """R4.6: within a rank the total decides; equal rank and total are equal strengths."""
    assert strength("7g8g9g") > strength("6b7b8b")
    assert strength("9g9b8r") > strength("9g9b7r")
    assert strength("1r2r3r") == strength("1b2b3b")
    assert strength("9g8b1r") == strength("6b6r6g", bluff=True)


def test_r4_1_no_wrap_around() -> None:
    """R4.1: 9-1-2 is not a run, in one colour or several, nor 8-9-1."""
    assert rank_of(strength("9r1r2r")) == COLOUR
    assert rank_of(strength("9g1b2r")) == SUM
    assert rank_of(strength("8g9b1r")) == SUM
    assert rank_of(strength("8r9r1r2r")) == COLOUR


@pytest.mark.parametrize(
    ("text", "rank", "total"),
    [
        ("1r2r3r4r", COLOUR_RUN, 10),
        ("6b7b8b9b", COLOUR_RUN, 30),
        ("5g5b5r5y", KIND, 20),
        ("2r4r6r8r", COLOUR, 20),
        ("3g4b5r6y", RUN, 18),
        ("1r2r3r5r", COLOUR, 11),
        ("1r2r3r4b", RUN, 10),
        ("9g9b9r8y", SUM, 35),
        ("1r2r3r5b", SUM, 11),
    ],
)
def test_r7_5_mud_fight_four_card_formations(text: str, rank: int, total: int) -> None:
    """R7.5: under Mud Fight a formation is four cards; three of them do not make a rank."""
    found = strength(text)
    assert (rank_of(found), total_of(found)) == (rank, total)
    assert found == reference(text)


def test_r7_4_bluff_counts_totals_only() -> None:
    """R7.4: under Blind-man's Bluff every formation is ranked by its total alone."""
    assert strength("1r2r3r", bluff=True) == strength_of(SUM, 6)
    assert strength("9g8b1r", bluff=True) > strength("1r2r3r", bluff=True)
    assert strength("9g9b9r", bluff=True) == strength_of(SUM, 27)
    assert strength("6b7b8b9b", bluff=True) == strength_of(SUM, 30)
    assert strength("9g9b8r", bluff=True) > strength("7g8b9r", bluff=True)


@pytest.mark.parametrize(
    ("text", "rank", "total"),
    [
        ("8r9rJO", COLOUR_RUN, 24),
        ("1r3rJO", COLOUR_RUN, 6),
        ("5g5bJO", KIND, 15),
        ("2g9bJO", SUM, 20),
        ("8r9rSP", COLOUR_RUN, 24),
        ("6b8bSP", COLOUR_RUN, 21),
        ("7g7bSP", KIND, 21),
        ("1r2rSP", COLOUR, 10),
        ("2r3rSH", COLOUR_RUN, 6),
        ("4r5rSH", COLOUR_RUN, 12),
        ("5r6rSH", COLOUR, 14),
        ("3g3bSH", KIND, 9),
        ("4g5bSH", RUN, 12),
        ("9g9bSH", SUM, 21),
        ("JOSPSH", COLOUR, 19),
        ("5r9rJO", COLOUR, 23),
        ("7rSPSH", COLOUR, 17),
        ("6r8rJOSP", COLOUR_RUN, 30),
    ],
)
def test_r7_3_elite_troops_take_their_best_value_and_colour(text: str, rank: int, total: int) -> None:
    """R7.3: Joker any colour and value, Spy a 7 of any colour, Shield-bearer 1-3 of any colour,
    fixed to their owner's best advantage (even equal to a card elsewhere, or on the side)."""
    cards = parse_cards(text)
    found = side_strength(tuple(sorted(cards)), len(cards), False)
    assert (rank_of(found), total_of(found)) == (rank, total)
    assert found == reference(text)


def test_r7_3_troops_under_bluff() -> None:
    """R7.3 with R7.4: troops take their highest values; only the total counts."""
    assert strength("JOSPSH", bluff=True) == strength_of(SUM, 19)
    assert strength("1r2rSH", bluff=True) == strength_of(SUM, 6)


def test_side_strength_ignores_order() -> None:
    """A side's strength does not depend on the order its cards were played."""
    cards = parse_cards("7bJO9b")
    assert side_strength(tuple(sorted(cards)), 3, False) == side_strength(tuple(cards), 3, False)


def test_best_formation_completes_from_the_pool() -> None:
    """R5.2: the best completion uses only pool cards, troops keep their freedom."""
    found = best_formation(tuple(parse_cards("1b2b")), (), 3, False, mask(parse_cards("3b9g9r")))
    assert found is not None
    assert found.strength == strength_of(COLOUR_RUN, 6)
    assert found.added == tuple(parse_cards("3b"))
    assert best_formation(tuple(parse_cards("1b2b")), (), 3, False, 0) is None
    joker = best_formation(tuple(parse_cards("9r")), (JOKER,), 3, False, mask(parse_cards("7r")))
    assert joker is not None and joker.strength == strength_of(COLOUR_RUN, 24)
    tie, blue = strength_of(COLOUR_RUN, 6), tuple(parse_cards("1b2b"))
    assert best_formation(blue, (), 3, False, mask(parse_cards("3b")), tie) is None
    assert best_formation(blue, (), 3, False, mask(parse_cards("3b")), tie - 1) is not None


# ---------------------------------------------------------------- properties against the brute force

Problem = tuple[tuple[int, ...], tuple[int, ...], int, bool, tuple[int, ...]]
"""A side to complete: clan cards, elite troops, size, bluff, pool cards."""

_NEED_POOL_LIMIT = {0: NUM_CLAN, 1: NUM_CLAN, 2: 40, 3: 18, 4: 11}


def focus() -> st.SearchStrategy[list[int]]:
    """Cards to draw from: all of them, one colour, or three neighbouring values (so that
    colour-runs, same values and colours come up often)."""
    one_colour = st.integers(0, 5).map(lambda c: list(range(c * 9, c * 9 + 9)))
    window = st.integers(0, 6).map(lambda v: [c for c in range(NUM_CLAN) if v <= c % 9 <= v + 2])
    return st.just(list(range(NUM_CLAN))) | one_colour | window


@st.composite
def side_problem(draw: st.DrawFn) -> Problem:
    """A random side: clan cards, elite troops (at most one Joker), size, bluff, pool."""
    size = draw(st.sampled_from((3, 4)))
    troops = draw(st.lists(st.sampled_from((JOKER, SPY, SHIELD)), unique=True, max_size=3))
    troops = draw(st.permutations(troops))
    room = size - len(troops)
    clan = draw(st.lists(st.sampled_from(draw(focus())), unique=True, max_size=room))
    need = room - len(clan)
    rest = [c for c in range(NUM_CLAN) if c not in clan]
    near = [c for c in draw(focus()) if c not in clan]
    limit = _NEED_POOL_LIMIT[need]
    pool = draw(st.lists(st.sampled_from(near) | st.sampled_from(rest), unique=True, max_size=limit))
    return tuple(clan), tuple(troops), size, draw(st.booleans()), tuple(pool)


def check_witness(problem: Problem, found: Formation | None) -> None:
    """The Formation's cards come from the pool and really score its strength."""
    clan, troops, size, bluff, pool = problem
    assert isinstance(found, Formation)
    assert len(found.added) == size - len(clan) - len(troops)
    assert len(set(found.added)) == len(found.added)
    assert set(found.added) <= set(pool)
    assert len(found.wild_as) == len(troops)
    for troop, card in zip(troops, found.wild_as, strict=True):
        assert brute.pair(card) in brute.troop_choices(troop)
    cards = tuple(sorted(brute.pair(c) for c in (*clan, *found.added, *found.wild_as)))
    assert brute.score_pairs(cards, bluff) == found.strength


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=side_problem(), data=st.data())
def test_best_formation_equals_brute_force(problem: Problem, data: st.DataObject) -> None:
    """best_formation finds the brute-force maximum over completions and troop roles (R5.2, R7.3),
    with a witness that scores it; with ``floor`` it answers None exactly when nothing beats it."""
    clan, troops, size, bluff, pool = problem
    expected = brute.best_completion(clan, troops, size, bluff, pool)
    found = best_formation(clan, troops, size, bluff, mask(pool))
    if expected is None:
        assert found is None
    else:
        assert found is not None and found.strength == expected
        check_witness(problem, found)
    near = [] if expected is None else [expected - 1, expected, expected + 1]
    floor = data.draw(st.sampled_from([*near, -1]) | st.integers(-1, 5 * 64))
    floored = best_formation(clan, troops, size, bluff, mask(pool), floor)
    if expected is None or expected <= floor:
        assert floored is None
    else:
        assert floored is not None and floored.strength == expected
        check_witness(problem, floored)


@settings(max_examples=300, deadline=None)
@given(
    size=st.sampled_from((3, 4)),
    troops=st.lists(st.sampled_from((JOKER, SPY, SHIELD)), unique=True, max_size=3),
    bluff=st.booleans(),
    data=st.data(),
)
def test_side_strength_equals_brute_force(
    size: int, troops: list[int], bluff: bool, data: st.DataObject
) -> None:
    """side_strength of any complete side equals the brute-force best over troop roles (R4, R7.3)."""
    troops = troops[:size]
    room = size - len(troops)
    clan = data.draw(st.lists(st.integers(0, NUM_CLAN - 1), unique=True, min_size=room, max_size=room))
    cards = data.draw(st.permutations([*clan, *troops]))
    assert side_strength(tuple(cards), size, bluff) == brute.side_value(cards, bluff)


def test_triple_table_equals_brute_force() -> None:
    """Every set of three clan cards has its R4 strength in the engine's table."""
    assert len(TRIPLE_STRENGTH) == 54 * 53 * 52 // 6
    for triple, found in TRIPLE_STRENGTH.items():
        assert found == brute.score_pairs(tuple(sorted(brute.pair(c) for c in triple)), False), triple


@st.composite
def claim_problem(draw: st.DrawFn) -> tuple[Problem, int]:
    """An opponent's incomplete side, often clan cards only on three cards (the common case), with a
    pool from nearly everything to very little, and the strength it must beat."""
    size = draw(st.sampled_from((3, 3, 3, 4)))
    troops: list[int] = []
    if size == 4 or draw(st.booleans()):
        troops = draw(st.lists(st.sampled_from((JOKER, SPY, SHIELD)), unique=True, max_size=2))
    clan = draw(st.lists(st.integers(0, NUM_CLAN - 1), unique=True, max_size=size - len(troops) - 1))
    need = size - len(troops) - len(clan)
    rest = [c for c in range(NUM_CLAN) if c not in clan]
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    density = draw(st.sampled_from((0.0, 0.1, 0.3, 0.6, 0.9)))
    pool = [c for c in rest if rng.random() >= density]
    if need == 4:
        pool = rng.sample(pool, min(len(pool), 12))
    bluff = draw(st.booleans()) and draw(st.booleans())
    floor = draw(st.integers(-1, 4 * 64 + 30))
    return (tuple(clan), tuple(troops), size, bluff, tuple(pool)), floor


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claim_problem())
def test_beating_completion_equals_brute_force(case: tuple[Problem, int]) -> None:
    """R5.2: beating_completion refutes a claim exactly when some completion from the pool beats the
    floor, and its cards come from the pool and do beat it (troops at their best, R7.3)."""
    (clan, troops, size, bluff, pool), floor = case
    expected = brute.beating_completion(clan, troops, size, bluff, pool, floor)
    found = beating_completion(clan, troops, size, bluff, mask(pool), floor)
    if expected is None:
        assert found == -1
        return
    added = [c for c in range(NUM_CLAN) if found >> c & 1]
    assert found >= 0 and set(added) <= set(pool)
    assert len(added) == size - len(clan) - len(troops)
    assert brute.best_with_troops([*clan, *added], troops, bluff) > floor
