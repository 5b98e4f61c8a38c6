"""The claim proof (R5, R7.3-R7.5, R7.12) checked against a brute force, in random games and scenarios."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.engine import VARIANTS, GameState, Phase, Settings, prove
from schotten.engine.actions import DONE_ID
from schotten.engine.cards import (
    MODE_BLUFF,
    MODE_MUD,
    NUM_CLAN,
    NUM_STONES,
    card_name,
    card_str,
    parse_card,
    parse_cards,
)
from tests import brute

# ---------------------------------------------------------------- random games


def check_position(state: GameState) -> None:
    """Every seat and stone: can_claim, prove and the claim step agree with the brute force."""
    assert state.pool == brute.visible_pool(state)
    for seat in (0, 1):
        for stone in range(NUM_STONES):
            expected = brute.brute_can_claim(state, seat, stone)
            assert state.can_claim(seat, stone) == expected, (seat, stone)
            proof = prove(state, seat, stone)
            assert proof.holds == expected, (seat, stone, proof.reason)
            check_proof_reason(state, seat, stone, proof.holds, proof.reason, proof.needed)
    if state.phase == Phase.CLAIM:
        assert sorted(state.claimable) == brute.brute_claimable(state, state.turn)


def check_proof_reason(
    state: GameState, seat: int, stone: int, holds: bool, reason: str, needed: tuple[int, ...]
) -> None:
    """An allowed claim says why, citing the rule; a refusal against an incomplete side names
    pool cards that really complete it above mine (R5.2)."""
    size = 4 if state.modes[stone] & MODE_MUD else 3
    bluff = bool(state.modes[stone] & MODE_BLUFF)
    mine, theirs = state.sides[seat][stone], state.sides[1 - seat][stone]
    open_stone = state.owner[stone] < 0 and len(mine) == size
    assert reason.strip()
    if holds and len(theirs) == size:
        assert needed == ()
        assert ("beats" in reason and "R5.1" in reason) or ("completed first" in reason and "R4.6" in reason)
    elif holds:
        assert needed == ()
        assert "cannot be" in reason and "R5.2" in reason
    elif open_stone and len(theirs) < size:
        clan, troops = brute.split(theirs)
        assert len(needed) == size - len(theirs)
        assert all(state.pool >> c & 1 for c in needed)
        assert brute.best_with_troops([*clan, *needed], troops, bluff) > brute.side_value(mine, bluff)
        assert "R5.2" in reason and all(card_name(c) in reason for c in needed)
    else:
        assert needed == ()


def play_random_game(variant: str, seed: int, choices: int, patience: float) -> int:
    """Play a random legal match of two rounds, checking every position; return how many.

    In a claim step the player says ``done`` with probability ``patience``, so that
    complete sides also stay unclaimed for a while."""
    state = GameState.new(Settings.of(variant, rounds=2), seed)
    rng = random.Random(choices)
    checked = 0
    while not state.is_over:
        check_position(state)
        checked += 1
        if state.phase == Phase.CLAIM and rng.random() < patience:
            state.apply_id(DONE_ID)
        else:
            state.apply_id(rng.choice(state.legal_action_ids()))
        assert checked < 5000
    return checked


@settings(max_examples=150, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    choices=st.integers(0, 2**32 - 1),
    patience=st.floats(0, 1),
)
def test_claim_proof_equals_brute_force_in_random_games(
    variant: str, seed: int, choices: int, patience: float
) -> None:
    """R5.1/R5.2 with R7.3-R7.5, R7.12: the engine's proof is the brute force's in every position
    of random games of every variant (can_claim, prove, the offered claims)."""
    assert play_random_game(variant, seed, choices, patience) > 0


# ---------------------------------------------------------------- scenarios


def table(
    sides: dict[tuple[int, int], str],
    modes: dict[int, int] | None = None,
    discards: tuple[str, str] = ("", ""),
    hands: tuple[str, str] = ("", ""),
    variant: str = "tactics",
) -> GameState:
    """A position set up by hand: ``sides[(seat, stone 1-9)]`` in notation, listed in the order the
    sides were completed; the pool is every clan card on no side and in no discard pile."""
    state = GameState.new(Settings.of(variant, first_player=0), seed=0)
    state.sides = [[[] for _ in range(NUM_STONES)] for _ in range(2)]
    state.stamps = [[-1] * NUM_STONES for _ in range(2)]
    state.modes = [0] * NUM_STONES
    for stone, mode in (modes or {}).items():
        state.modes[stone - 1] = mode
    state.clock = 0
    for (seat, stone), text in sides.items():
        state.sides[seat][stone - 1] = parse_cards(text)
        if len(state.sides[seat][stone - 1]) == state.capacity(stone - 1):
            state.clock += 1
            state.stamps[seat][stone - 1] = state.clock
    state.discards = [parse_cards(discards[0]), parse_cards(discards[1])]
    state.hands = [parse_cards(hands[0]), parse_cards(hands[1])]
    seen = [c for seat in (0, 1) for side in state.sides[seat] for c in side]
    seen += [c for pile in state.discards for c in pile]
    clan_seen = [c for c in seen if c < NUM_CLAN]
    assert len(clan_seen) == len(set(clan_seen))
    state.pool = sum(1 << c for c in range(NUM_CLAN) if c not in seen)
    in_hands = [c for hand in state.hands for c in hand]
    assert all(state.pool >> c & 1 for c in in_hands if c < NUM_CLAN)
    state.clan_deck = [c for c in range(NUM_CLAN) if state.pool >> c & 1 and c not in in_hands]
    state.phase, state.turn, state.claimable = Phase.PLAY, 0, []
    assert state.pool == brute.visible_pool(state)
    return state


def claim(state: GameState, seat: int = 0, stone: int = 1) -> tuple[bool, str, tuple[int, ...]]:
    """The engine's verdict for ``seat`` claiming ``stone`` (1-9), checked against the brute force."""
    proof = prove(state, seat, stone - 1)
    assert state.can_claim(seat, stone - 1) == proof.holds == brute.brute_can_claim(state, seat, stone - 1)
    check_proof_reason(state, seat, stone - 1, proof.holds, proof.reason, proof.needed)
    return proof.holds, proof.reason, proof.needed


def test_rules_example_blue_three_on_the_board_makes_the_claim_provable() -> None:
    """R5.2 example: my red 1-2-3 against their blue 1 and 2 while my blue 3 lies on the board."""
    holds, reason, _ = claim(table({(0, 1): "1r2r3r", (1, 1): "1b2b", (0, 2): "3b"}))
    assert holds
    assert "cannot be beaten" in reason and "colour blue" in reason and "R5.2" in reason


def test_rules_example_in_notation() -> None:
    """The same example played out: completing the colour-run offers the claim (R3.3, R5.4)."""
    state = table({(0, 1): "1r2r", (1, 1): "1b2b", (0, 2): "3b"}, hands=("3r9g", "9b"), variant="base")
    state.apply("3r@1")
    assert state.phase == Phase.CLAIM and state.claimable == [0]
    state.apply("claim 1")
    assert state.owner[0] == 0


def test_an_exact_tie_from_the_pool_is_mine() -> None:
    """R5.2: they could only equal my red 1-2-3 with blue 1-2-3; I completed first, so it is mine."""
    holds, reason, _ = claim(table({(0, 1): "1r2r3r", (1, 1): "1b2b"}))
    assert holds and "cannot be beaten" in reason


def test_refused_claim_names_the_missing_card() -> None:
    """R5.2/R5.4: blue 4 unseen lets their blue 2-3 become a higher colour-run; the reason says so."""
    holds, reason, needed = claim(table({(0, 1): "1r2r3r", (1, 1): "2b3b"}))
    assert not holds
    assert needed == (parse_card("4b"),)
    assert "blue 4" in reason and "R5.2" in reason


def test_incomplete_or_claimed_stone_is_refused() -> None:
    """R5: my side must be complete; R5.3: a claimed stone is not claimed again."""
    holds, reason, _ = claim(table({(0, 1): "1r2r", (1, 1): "1b"}))
    assert not holds and "2 of 3" in reason
    state = table({(0, 1): "9r8r7r", (1, 1): "1b"})
    state.owner[0] = 1
    holds, reason, _ = claim(state)
    assert not holds and "R5.3" in reason


def test_complete_sides_compare_and_ties_go_to_the_first_completed() -> None:
    """R5.1 with R4.6: the stronger side wins; equal strengths go to the side completed first."""
    holds, reason, _ = claim(table({(0, 1): "1r2r4r", (1, 1): "7g8b9r"}))
    assert holds and "R5.1" in reason
    assert not claim(table({(0, 1): "1r2r4r", (1, 1): "7g8b9r"}), seat=1)[0]
    first = table({(0, 1): "1r2r3r", (1, 1): "1b2b3b"})
    holds, reason, _ = claim(first)
    assert holds and "completed first" in reason
    holds, reason, _ = claim(first, seat=1)
    assert not holds and "they completed first" in reason


def test_r7_5_mud_fight_needs_four_cards() -> None:
    """R7.5: under Mud Fight three cards are not complete, on either side."""
    mud = {1: MODE_MUD}
    holds, reason, _ = claim(table({(0, 1): "6r7r8r", (1, 1): "1b"}, modes=mud))
    assert not holds and "3 of 4" in reason
    assert claim(table({(0, 1): "6r7r8r9r", (1, 1): "1b2b3b"}, modes=mud))[0]
    holds, _, needed = claim(table({(0, 1): "2g3g4g5g", (1, 1): "7b8b9b"}, modes=mud))
    assert not holds and needed == (parse_card("6b"),)
    assert claim(table({(0, 1): "2g3g4g5g", (1, 1): "7b8b9b", (0, 2): "6b"}, modes=mud))[0]


def test_r7_4_blind_mans_bluff_counts_totals_only() -> None:
    """R7.4: only totals count, with the R4.6 tie going to me as the first complete."""
    bluff = {1: MODE_BLUFF}
    assert not claim(table({(0, 1): "1r2r3r", (1, 1): "1g"}, modes=bluff))[0]
    holds, _, needed = claim(table({(0, 1): "9g9b8r", (1, 1): "9r9y"}, modes=bluff))
    assert not holds and needed in ((parse_card("9p"),), (parse_card("9k"),))
    assert claim(table({(0, 1): "9g9b8r", (1, 1): "9r9y", (0, 2): "9p9k"}, modes=bluff))[0]
    assert claim(table({(0, 1): "9g9b8r", (1, 1): "7y8y"}, modes=bluff))[0]
    assert not claim(table({(0, 1): "9g9b8r", (1, 1): "7y8y"}))[0]


def test_opponent_joker_keeps_its_freedom() -> None:
    """R5.2/R7.3: their Joker may stand for red 8 although red 8 is on the board."""
    holds, _, needed = claim(table({(0, 1): "6g7g8g", (1, 1): "JO9r", (0, 2): "8r"}))
    assert not holds and needed == (parse_card("7r"),)
    assert claim(table({(0, 1): "6g7g8g", (1, 1): "JO9r", (0, 2): "8r7r"}))[0]


def test_opponent_spy_keeps_its_freedom() -> None:
    """R5.2/R7.3: their Spy may be the red 7 though red 7 is on the board; it is never an 8."""
    holds, _, needed = claim(table({(0, 1): "6g7g8g", (1, 1): "SP8r", (0, 2): "7r"}))
    assert not holds and needed == (parse_card("9r"),)
    assert claim(table({(0, 1): "6g7g8g", (1, 1): "SP8r", (0, 2): "7r9r"}))[0]
    assert claim(table({(0, 1): "7g8g9g", (1, 1): "SP9r"}))[0]


def test_opponent_shield_bearer_keeps_its_freedom() -> None:
    """R5.2/R7.3: their Shield-bearer may be a red 3 (on the board or not), never more than 3."""
    holds, _, needed = claim(table({(0, 1): "2g3g4g", (1, 1): "SH4r", (0, 2): "3r"}))
    assert not holds and needed == (parse_card("5r"),)
    assert claim(table({(0, 1): "2g3g4g", (1, 1): "SH9r"}))[0]


def test_opponent_joker_and_spy_under_mud_fight() -> None:
    """R7.3 with R7.5: Joker and Spy together fill a four-card colour-run around a pool card."""
    mud = {1: MODE_MUD}
    sides = {(0, 1): "2g3g4g5g", (1, 1): "JOSP"}
    holds, _, needed = claim(table(sides, modes=mud))
    assert not holds and len(needed) == 2
    assert claim(table({(0, 1): "6g7g8g9g", (1, 1): "JOSP"}, modes=mud))[0]


def test_r7_12_discarded_cards_count_as_visible() -> None:
    """R7.12: a clan card in a discard pile cannot complete their side."""
    assert not claim(table({(0, 1): "1r2r3r", (1, 1): "2b3b"}))[0]
    for pile in (("4b", ""), ("", "4b")):
        state = table({(0, 1): "1r2r3r", (1, 1): "2b3b"}, discards=pile)
        assert not state.pool >> parse_card("4b") & 1
        assert claim(state)[0]


def test_r5_2_both_hands_count_as_unseen() -> None:
    """R5.2: a card in my own hand or theirs still counts as one they could get."""
    for hands in (("4b", ""), ("", "4b")):
        holds, reason, needed = claim(table({(0, 1): "1r2r3r", (1, 1): "2b3b"}, hands=hands))
        assert not holds and needed == (parse_card("4b"),)
        assert "blue 4" in reason


def test_bluff_and_mud_on_the_same_stone() -> None:
    """R7.4 with R7.5: four cards each, totals only; a 9 and an 8 still unseen would beat my 34."""
    both = {1: MODE_BLUFF | MODE_MUD}
    holds, _, needed = claim(table({(0, 1): "9g9b8r8y", (1, 1): "9y9p"}, modes=both))
    assert not holds and {parse_card("9k"), parse_card("9r")} & set(needed)
    assert claim(table({(0, 1): "9g9b8r8y", (1, 1): "9y9p", (0, 2): "9k9r"}, modes=both))[0]


@st.composite
def random_table(draw: st.DrawFn) -> GameState:
    """One contested stone set up at random: combat modes, elite troops on either side, my side
    often a colour-run, cards elsewhere on the board and in the discard piles, either completion
    order. Seat 0's side of stone 1 is complete."""
    modes = draw(st.sampled_from((0, MODE_BLUFF, MODE_MUD, MODE_BLUFF | MODE_MUD)))
    size = 4 if modes & MODE_MUD else 3
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    deck = rng.sample(range(NUM_CLAN), NUM_CLAN)
    lengths = (size, draw(st.integers(max(0, size - 3), size - 1)) if draw(st.booleans()) else size)
    texts = []
    for seat in (0, 1):
        troops = [t for t in ("JO", "SP", "SH") if rng.random() < 0.2][: max(0, lengths[seat] - 1)]
        count = lengths[seat] - len(troops)
        start, colour = rng.randint(1, 10 - count), rng.randrange(6)
        run = [colour * 9 + start - 1 + i for i in range(count)]
        clan = run if seat == 0 and draw(st.booleans()) else deck[-count:] if count else []
        deck = [c for c in deck if c not in clan]
        texts.append("".join(troops) + "".join(card_str(c) for c in clan))
    sides = {(seat, 1): texts[seat] for seat in draw(st.permutations((0, 1)))}
    elsewhere = [deck.pop() for _ in range(draw(st.integers(0, 24)))]
    for i in range(0, len(elsewhere), 3):
        sides[(i // 3 % 2, 2 + i // 6)] = "".join(card_str(c) for c in elsewhere[i : i + 3])
    piles = "".join(card_str(deck.pop()) for _ in range(draw(st.integers(0, 4))))
    return table(sides, modes={1: modes}, discards=(piles[:4], piles[4:]))


@settings(max_examples=150, deadline=None)
@given(random_table())
def test_claim_proof_equals_brute_force_on_random_tables(state: GameState) -> None:
    """R5.1/R5.2 with R7.3-R7.5, R7.12 on hand-built positions that random games rarely reach."""
    check_position(state)
