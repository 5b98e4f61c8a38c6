"""Scenario tests of the tactics variant, R7 of docs/rules.md (and R4.7, R5.2, R5.3 where tactics touch them).

Positions are dealt with ``tests.scenario.deal``; seat 0 moves first unless a test
says otherwise. Both decks usually hold cards, so a turn ends with a draw choice;
``turn`` and ``end_turn`` take a clan card then.
"""

from __future__ import annotations

import pytest

from schotten.engine import GameState, IllegalActionError, Phase, prove
from schotten.engine.cards import MODE_BLUFF, MODE_MUD, parse_card
from tests.scenario import cards, deal, end_turn, legal, plays, turn

SEVEN_P = "1p 2p 3p 4p 5p 6p 7p"


def card(text: str) -> int:
    """One card's code."""
    return parse_card(text)


def in_pool(state: GameState, text: str) -> bool:
    """Whether the clan card counts as unseen (R5.2)."""
    return bool(state.pool >> card(text) & 1)


# ---------------------------------------------------------------- R7.1 hand size


def test_r7_1_hand_refills_to_seven() -> None:
    """R7.1, R3.4: with tactics the hand is refilled to 7 cards after each play."""
    state = deal("tactics", hands=("1y 2y 3y 4y 5y 6y 7y", SEVEN_P), clan_deck="9k")
    turn(state, "1y@1")
    assert len(state.hands[0]) == 7
    assert state.hands[0][-1] == card("9k")


# ---------------------------------------------------------------- R7.2 tactic limit


def test_r7_2_one_tactic_ahead_but_never_two() -> None:
    """R7.2: a player may be one tactic card ahead of the opponent, never two."""
    state = deal("tactics", hands=("JO SP 1y 2y 3y 4y 5y", "BB 1p 2p 3p 4p 5p 6p"))
    turn(state, "JO@1")
    turn(state, "1p@1")
    assert state.tactics_played == [1, 0]
    assert not any(text.startswith("SP@") for text in plays(state))
    with pytest.raises(IllegalActionError, match=r"one tactic card more than your opponent.*R7\.2"):
        state.apply("SP@2")
    turn(state, "1y@2")
    turn(state, "BB@3")
    assert {f"SP@{n}" for n in range(1, 10)} <= plays(state)


def test_r7_2_every_tactic_played_counts_whatever_became_of_it() -> None:
    """R7.2: a ruse counts, and a Joker sent to the discard pile still counts for its player."""
    state = deal("tactics", hands=("BA 1y 2y 3y 4y 5y 6y", "JO SP SH 1p 2p 3p 4p"))
    turn(state, "1y@1")
    turn(state, "JO@2")
    state.play("BA", "banish JO@2")
    end_turn(state)
    assert state.tactics_played == [1, 1]
    assert all(card("JO") not in side for side in state.sides[1])
    turn(state, "SP@3")
    turn(state, "2y@1")
    assert state.tactics_played == [1, 2]
    assert not any(text.startswith(("SH@", "SP@", "JO@")) for text in plays(state))
    assert "2p@1" in plays(state)


def test_r7_2_a_hand_of_unplayable_tactic_cards_passes() -> None:
    """R7.2, R3.2: holding only tactic cards one may not play, the player passes."""
    state = deal("tactics", hands=("SP SH", "1p BB"), board=({1: "JO"}, {}), rest="out")
    assert state.tactics_played == [1, 0]
    assert legal(state) == {"pass"}
    state.apply("pass")
    state.apply("BB@5")
    assert {"SP@2", "SH@2"} <= plays(state)
    assert "pass" not in legal(state)


# ---------------------------------------------------------------- R7.3 elite troops


def test_r7_3_never_two_jokers_on_ones_side_claimed_stones_included() -> None:
    """R7.3: with a Joker on one's side, even on a claimed stone, the second Joker stays in hand."""
    state = deal("tactics", hands=("JO 1k 2k", SEVEN_P), board=({1: "JO 8g 9g"}, {2: "SP"}))
    assert state.tactics_played == [1, 1]
    assert not any(text.startswith("JO@") for text in plays(state))
    with pytest.raises(IllegalActionError, match=r"already have a Joker.*R7\.3"):
        state.apply("JO@3")
    state.play("1k@9", "claim 1")
    end_turn(state)
    turn(state, "1p@3")
    assert state.owner[0] == 0
    assert not any(text.startswith("JO@") for text in plays(state))
    assert card("JO") in state.hands[0]


def test_r7_3_second_joker_playable_once_the_first_is_gone() -> None:
    """R7.3: the limit is 'at once': after the first Joker is banished the second may be played."""
    state = deal("tactics", hands=("JO 1y 2y", "BA " + SEVEN_P[:17]), board=({1: "JO"}, {}), first=1)
    state.play("BA", "banish JO@1")
    end_turn(state)
    assert {f"JO@{n}" for n in range(1, 10)} <= plays(state)


ELITE_PAIRS = [
    ("Spy is a 7 of any colour: colour-run 5-6-7", "SP 5g 6g", "4y 5y 6y"),
    ("Spy is only a 7: 1-2-Spy is no colour-run", "1b 1r 1y", "SP 1g 2g"),
    ("Shield as 3 makes colour-run 3-4-5", "SH 4g 5g", "9b 9r 9y"),
    ("Shield is at most 3: Shield-5-6 is no run", "2b 2r 2y", "SH 5g 6g"),
    ("Shield as a 2 in three of a kind", "SH 2b 2r", "9g 8b 6r"),
    ("Shield counts 3 in a colour", "SH 5g 6g", "8b 4b 1b"),
    ("Spy counts 7 in a sum", "SP 9g 1b", "8r 7y 1p"),
    ("Joker takes any value and colour", "JO 4k 6k", "3b 4b 5b"),
]


@pytest.mark.parametrize(("rule", "strong", "weak"), ELITE_PAIRS, ids=[p[0] for p in ELITE_PAIRS])
@pytest.mark.parametrize("strong_seat", [0, 1])
def test_r7_3_elite_troops_take_their_best_value(rule: str, strong: str, weak: str,
                                                 strong_seat: int) -> None:
    """R7.3, R5.1: elite troops count at their best allowed value and colour when sides are compared."""
    sides: tuple[dict[int, str], dict[int, str]] = ({1: weak}, {1: weak})
    sides[strong_seat][1] = strong
    state = deal("tactics", hands=("1k", "2k"), board=sides, rest="out")
    assert state.can_claim(strong_seat, 0)
    assert not state.can_claim(1 - strong_seat, 0)
    state.apply("1k@9")
    assert ("claim 1" in legal(state)) == (strong_seat == 0)


def test_r7_3_joker_may_equal_a_card_elsewhere_on_the_table() -> None:
    """R7.3: 8g 9g with a Joker is colour-run 7-8-9 green though the green 7 lies on stone 2."""
    state = deal("tactics", hands=("1k", "2k"),
                 board=({1: "6b 7b 8b", 2: "7g"}, {1: "8g 9g JO"}), rest="out")
    assert not state.can_claim(0, 0)
    assert state.can_claim(1, 0)
    assert "colour-run" in prove(state, 1, 0).reason


@pytest.mark.parametrize(("troop", "holds"), [("JO", False), ("SH", True)])
def test_r5_2_elite_troops_on_the_opponents_side_keep_their_freedom(troop: str, holds: bool) -> None:
    """R5.2, R7.3: a Joker beside 7y may still become 8y (colour-run); a Shield-bearer cannot."""
    state = deal("tactics", hands=("1k", "2k"), board=({1: "6g 6b 6r"}, {1: f"{troop} 7y"}))
    state.apply("1k@9")
    assert ("claim 1" in legal(state)) == holds
    assert prove(state, 0, 0).holds == holds


def test_r5_2_tactic_cards_not_yet_played_are_not_considered() -> None:
    """R5.2: the Joker in the opponent's hand would make three 7s, but unplayed tactics do not count."""
    state = deal("tactics", hands=("1k", "JO 2k"),
                 board=({1: "6g 6b 6r", 2: "7g 7b 7r", 3: "7k"}, {1: "7y 7p"}))
    state.apply("1k@9")
    assert "claim 1" in legal(state)


# ---------------------------------------------------------------- R7.4 Blind-man's Bluff


def test_r7_4_bluff_only_the_total_counts() -> None:
    """R7.4: played on a stone, Blind-man's Bluff turns the comparison into totals only."""
    state = deal("tactics", hands=("BB 1k", "2k"), board=({1: "9b 8r 6y"}, {1: "1g 2g 3g"}))
    assert state.can_claim(1, 0) and not state.can_claim(0, 0)
    state.apply("BB@1")
    assert state.modes[0] == MODE_BLUFF
    assert card("BB") not in state.hands[0]
    assert all(card("BB") not in side[0] for side in state.sides)
    assert state.tactics_played == [1, 0]
    assert legal(state) == {"claim 1", "done"}


@pytest.mark.parametrize(("modes", "holds"), [({}, False), ({1: "BB"}, True)])
def test_r7_4_bluff_in_claim_proofs(modes: dict[int, str], holds: bool) -> None:
    """R7.4, R5.2: 1y 2y could still become a colour-run, but under Bluff its best total, 12, loses to 26."""
    state = deal("tactics", hands=("1k", "2k"), board=({1: "9g 9b 8r"}, {1: "1y 2y"}), modes=modes)
    state.apply("1k@9")
    assert ("claim 1" in legal(state)) == holds


def test_r7_4_bluff_ties_go_to_the_first_completed() -> None:
    """R7.4, R4.6: under Bluff equal totals are decided by completion order."""
    state = deal("tactics", hands=("1k", "2k"), board=({1: "9g 1b 2r"}, {1: "5g 5b 2y"}),
                 modes={1: "BB"}, rest="out")
    assert state.can_claim(0, 0) and not state.can_claim(1, 0)


def test_r7_4_combat_modes_only_on_unclaimed_stones_without_them() -> None:
    """R7.4, R7.5, R5.3: a combat mode goes on an unclaimed stone that does not have it yet."""
    state = deal("tactics", hands=("BB MF 1k", SEVEN_P), board=({1: "7g 8g 9g"}, {}),
                 modes={2: "BB", 3: "MF"})
    state.play("1k@9", "claim 1")
    end_turn(state)
    turn(state, "1p@4")
    modes = {text for text in plays(state) if text[:2] in ("BB", "MF")}
    assert modes == {f"BB@{n}" for n in (3, 4, 5, 6, 7, 8, 9)} | {f"MF@{n}" for n in (2, 4, 5, 6, 7, 8, 9)}


# ---------------------------------------------------------------- R7.5 Mud Fight


def test_r7_5_mud_fight_makes_complete_sides_incomplete_and_resets_the_order() -> None:
    """R7.5, R4.7: Mud Fight makes 3-card sides incomplete; who completes 4 first wins a tie."""
    state = deal("tactics", hands=("1k 2k 5p 3k", "MF 5y 6y 7y"),
                 board=({1: "1g 2b 4r"}, {1: "1b 2r 4g"}))
    state.apply("1k@9")
    assert "claim 1" in legal(state)
    end_turn(state)
    turn(state, "MF@1")
    assert state.modes[0] == MODE_MUD
    assert state.stamps[0][0] == state.stamps[1][0] == -1
    assert not state.is_complete(0, 0) and state.capacity(0) == 4
    turn(state, "2k@9")
    assert "claim 1" not in legal(state)
    turn(state, "5y@1")
    state.apply("5p@1")
    assert state.phase != Phase.CLAIM
    end_turn(state)
    assert "they completed first" in prove(state, 0, 0).reason
    state.apply("6y@8")
    assert "claim 1" in legal(state)


def test_r7_5_at_most_four_cards_a_side() -> None:
    """R7.5: under Mud Fight the 4th card may be played, a 5th may not."""
    state = deal("tactics", hands=("5y 6y 1k", SEVEN_P), board=({1: "1g 2b 4r"}, {}), modes={1: "MF"})
    assert "5y@1" in plays(state)
    turn(state, "5y@1")
    turn(state, "1p@2")
    assert not any(text.endswith("@1") for text in plays(state))
    with pytest.raises(IllegalActionError, match=r"full \(4 cards\)"):
        state.apply("6y@1")


MUD_PAIRS = [
    ("four of a kind beats colour", "5g 5b 5r 5y", "9p 8p 7p 5p"),
    ("three of a kind and one is only a sum", "1p 2b 3y 4g", "5g 5b 5r 9y"),
    ("colour-run of four beats four of a kind", "1p 2p 3p 4p", "9g 9b 9r 9y"),
]


@pytest.mark.parametrize(("rule", "strong", "weak"), MUD_PAIRS, ids=[p[0] for p in MUD_PAIRS])
def test_r7_5_four_card_formations(rule: str, strong: str, weak: str) -> None:
    """R7.5, R4: formations of four cards on a Mud Fight stone."""
    state = deal("tactics", hands=("1k", "2k"), board=({1: strong}, {1: weak}), modes={1: "MF"},
                 rest="out")
    assert state.can_claim(0, 0) and not state.can_claim(1, 0)


def test_r7_5_both_combat_modes_on_one_stone() -> None:
    """R7.5: Bluff and Mud Fight may lie on the same stone: four cards, only the total counts."""
    state = deal("tactics", hands=("BB 1k", "MF 2k"))
    turn(state, "BB@1")
    turn(state, "MF@1")
    assert state.modes[0] == MODE_BLUFF | MODE_MUD
    both = deal("tactics", hands=("1k", "2k"), board=({1: "1g 2g 3g 4g"}, {1: "9b 9r 8y 7p"}),
                modes={1: "BB MF"}, rest="out")
    assert both.can_claim(1, 0) and not both.can_claim(0, 0)


# ---------------------------------------------------------------- R7.6-R7.10 ruses


def strategist_position() -> GameState:
    """Seat 0 has claimed stone 4, has a full side on stone 2, and holds the Strategist."""
    state = deal("tactics", hands=("ST 1y 2y 3y 4y 5y 6y", SEVEN_P),
                 board=({1: "5g 6g", 2: "1b 2b 4r", 4: "7r 8r 9r"}, {}))
    state.play("1y@9", "claim 4")
    end_turn(state)
    turn(state, "1p@1")
    return state


def test_r7_8_strategist_takes_from_unclaimed_stones_only() -> None:
    """R7.8, R5.3: the Strategist takes one of one's own cards from an unclaimed stone."""
    state = strategist_position()
    state.apply("ST")
    assert state.phase == Phase.STRATEGIST_TAKE
    assert legal(state) == {"take 5g@1", "take 6g@1", "take 1b@2", "take 2b@2", "take 4r@2", "take 1y@9"}


def test_r7_8_strategist_moves_to_another_open_stone() -> None:
    """R7.8, R7.6: not back to the same stone, not onto a full or claimed stone; the ruse is discarded."""
    state = strategist_position()
    state.play("ST", "take 5g@1")
    assert legal(state) == {"to 3", "to 5", "to 6", "to 7", "to 8", "to 9", "discard"}
    state.apply("to 3")
    end_turn(state)
    assert state.sides[0][0] == cards("6g")
    assert state.sides[0][2] == cards("5g")
    assert state.discards[0] == cards("ST")
    assert state.tactics_played == [1, 0]
    assert state.turn == 1


def test_r7_8_strategist_may_discard_the_card() -> None:
    """R7.8, R7.6, R7.12: the taken card may be discarded; it stays visible in the discard pile."""
    state = strategist_position()
    state.play("ST", "take 4r@2", "discard")
    assert state.discards[0] == cards("ST 4r")
    assert state.sides[0][1] == cards("1b 2b")
    assert not in_pool(state, "4r")


def test_r7_8_claims_follow_the_strategist() -> None:
    """R7.8, R3.3: a side completed by the Strategist's move may be claimed in the same turn."""
    state = deal("tactics", hands=("ST 1y", SEVEN_P), board=({1: "7g 8g", 2: "9g"}, {}))
    state.play("ST", "take 9g@2", "to 1")
    assert legal(state) == {"claim 1", "done"}


def test_r7_10_claims_follow_the_traitor() -> None:
    """R7.10, R3.3: a side completed by the Traitor's card may be claimed in the same turn."""
    state = deal("tactics", hands=("TR 1y", SEVEN_P), board=({1: "7g 8g"}, {2: "9g"}))
    state.play("TR", "take 9g@2", "to 1")
    assert legal(state) == {"claim 1", "done"}


def test_r7_8_strategist_moves_an_elite_troop() -> None:
    """R7.8: the Strategist may move an elite troop; moving one's only Joker is no second Joker."""
    state = deal("tactics", hands=("ST 1y", "1p 2p"), board=({1: "JO 5g"}, {2: "SP"}))
    state.apply("ST")
    assert "take JO@1" in legal(state)
    state.play("take JO@1", "to 3")
    assert state.sides[0][2] == cards("JO")


def test_r4_7_side_completed_again_after_a_strategist_move_gets_a_new_moment() -> None:
    """R4.7: a side that lost a card to the Strategist is incomplete; completed again, its moment is new."""
    state = deal("tactics", hands=("ST 3k 4k", "5p 6p 7p"),
                 board=({1: "1g 2b 4r", 2: "1y"}, {1: "1b 2r 4g"}))
    first_moment = state.stamps[0][0]
    assert first_moment < state.stamps[1][0]
    state.play("ST", "take 4r@1", "to 2")
    end_turn(state)
    assert state.stamps[0][0] == -1
    turn(state, "5p@5")
    state.apply("4k@1")
    assert state.stamps[0][0] > state.stamps[1][0]
    assert state.phase != Phase.CLAIM
    end_turn(state)
    state.apply("6p@5")
    assert "claim 1" in legal(state)


def banshee_position() -> GameState:
    """Seat 1 (first to move) claims stone 7, then seat 0 holds the Banshee."""
    state = deal("tactics", hands=("BA 1y 2y 3y 4y 5y 6y", "1p 2p 3p 4p 5p 6p SH"),
                 board=({}, {3: "JO 5r", 6: "9y", 7: "7k 8k 9k"}), first=1)
    state.play("1p@1", "claim 7")
    end_turn(state)
    return state


def test_r7_9_banshee_discards_an_opponents_card_from_an_unclaimed_stone() -> None:
    """R7.9, R5.3: the Banshee may hit any card of the opponent's on an unclaimed stone."""
    state = banshee_position()
    state.apply("BA")
    assert state.phase == Phase.BANSHEE
    assert legal(state) == {"banish JO@3", "banish 5r@3", "banish 9y@6", "banish 1p@1"}


def test_r7_9_banished_tactic_card_goes_to_its_owners_discard_pile() -> None:
    """R7.9, R7.6: a banished Joker goes to its owner's discard pile, the Banshee to its player's."""
    state = banshee_position()
    state.play("BA", "banish JO@3")
    assert state.discards == [cards("BA"), cards("JO")]
    assert state.sides[1][2] == cards("5r")
    assert state.tactics_played == [1, 1]


def test_r7_9_banished_clan_card_stays_visible() -> None:
    """R7.9, R7.12: a banished clan card lies in the discard pile and stays out of the unseen pool."""
    state = banshee_position()
    state.play("BA", "banish 5r@3")
    assert state.discards[1] == cards("5r")
    assert not in_pool(state, "5r")


def test_r7_12_discarded_cards_count_as_visible_for_proofs() -> None:
    """R7.12, R5.2: after the Banshee discards 7k, nothing can beat three 6s: the claim is offered."""
    state = deal("tactics", hands=("BA 1k", "2k"),
                 board=({1: "6g 6b 6r", 2: "7g 7b 7r"}, {1: "7y 7p", 4: "7k"}))
    assert state.can_claim(0, 0)
    state.play("BA", "banish 7k@4")
    assert legal(state) == {"claim 1", "done"}


def traitor_position() -> GameState:
    """Seat 1 has a Joker and clan cards out; seat 0's side of stone 5 is full; seat 0 holds the Traitor."""
    return deal("tactics", hands=("TR 1y", "1p 2p"),
                board=({3: "1g 2g", 5: "1b 2b 3b"}, {3: "JO 5r", 6: "9k"}))


def test_r7_10_traitor_takes_clan_cards_only() -> None:
    """R7.10: the Traitor takes a clan card, never a tactic card, from the opponent's side."""
    state = traitor_position()
    state.apply("TR")
    assert legal(state) == {"take 5r@3", "take 9k@6"}


@pytest.mark.parametrize("target", [3, 6])
def test_r7_10_traitor_places_on_any_open_stone_including_the_same(target: int) -> None:
    """R7.10: the card goes to one's own side of any unclaimed stone with room, even the same stone."""
    state = traitor_position()
    state.play("TR", "take 9k@6")
    assert legal(state) == {f"to {n}" for n in (1, 2, 3, 4, 6, 7, 8, 9)}
    state.apply(f"to {target}")
    assert state.sides[0][target - 1][-1] == card("9k")
    assert state.sides[1][5] == []
    assert state.discards[0] == cards("TR")


def test_r7_10_traitor_completes_a_side() -> None:
    """R7.10, R4.7: a card put there by the Traitor completes the side at that moment."""
    state = traitor_position()
    state.play("TR", "take 5r@3", "to 3")
    assert state.sides[0][2] == cards("1g 2g 5r")
    assert state.stamps[0][2] > 0


def test_r4_7_side_that_lost_a_card_to_the_banshee_is_completed_anew() -> None:
    """R4.7: seat 0 completed first; the Banshee strips it; completed again later, it now loses the tie."""
    state = deal("tactics", hands=("2g 3b 5r 5y 1k 2k 3k", "2b 3r 5g BA 6p 7p 8p"))
    for mine, theirs in (("2g", "2b"), ("3b", "3r"), ("5r", "5g")):
        turn(state, f"{mine}@1")
        turn(state, f"{theirs}@1")
    state.apply("1k@9")
    assert "claim 1" in legal(state)
    end_turn(state)
    state.play("BA", "banish 5r@1")
    end_turn(state)
    assert state.stamps[0][0] == -1
    state.apply("5y@1")
    assert state.strength(0, 0) == state.strength(1, 0)
    assert state.phase != Phase.CLAIM
    end_turn(state)
    state.apply("6p@8")
    assert "claim 1" in legal(state)


def test_r7_7_recruiter_draws_three_choosing_and_returns_two() -> None:
    """R7.7, R7.6: three draws, each from a deck of one's choice; two cards back under their decks."""
    state = deal("tactics", hands=("RE 1y 2y 3y 4y 5y 6y", SEVEN_P), clan_deck="9k 8k",
                 tactic_deck="JO SP")
    state.apply("RE")
    assert state.phase == Phase.RECRUIT_DRAW
    for deck in ("clan", "tactic", "clan"):
        assert legal(state) == {"draw clan", "draw tactic"}
        state.apply(f"draw {deck}")
    assert Phase(state.phase) == Phase.RECRUIT_RETURN
    assert state.hands[0] == cards("1y 2y 3y 4y 5y 6y 9k JO 8k")
    assert legal(state) == {f"return {c}" for c in ("1y", "2y", "3y", "4y", "5y", "6y", "9k", "JO", "8k")}
    state.play("return 1y", "return JO")
    assert state.clan_deck[0] == card("1y")
    assert state.tactic_deck[0] == card("JO")
    assert state.bottom_known[0] == cards("1y JO")
    assert state.discards[0] == cards("RE")
    assert len(state.hands[0]) == 7
    assert state.turn == 1 and Phase(state.phase) == Phase.PLAY


def test_r7_7_recruiter_draws_are_forced_from_the_only_deck() -> None:
    """R7.7: with the tactic deck empty, the three draws come from the clan deck without a choice."""
    state = deal("tactics", hands=("RE 1y", "1p"), clan_deck="9k 8k 7k 6k", rest="out")
    state.apply("RE")
    assert state.phase == Phase.RECRUIT_RETURN
    assert state.hands[0] == cards("1y 9k 8k 7k")
    assert state.clan_deck == cards("6k")
    state.play("return 9k", "return 1y")
    assert state.clan_deck[:2] == cards("1y 9k")


def test_r7_7_recruiter_choice_ends_when_a_deck_runs_out() -> None:
    """R7.7: the first draw is a choice; once the clan deck is empty the rest come from the tactic deck."""
    state = deal("tactics", hands=("RE 1y", "1p"), clan_deck="9k", tactic_deck="JO SP MF", rest="out")
    state.apply("RE")
    assert legal(state) == {"draw clan", "draw tactic"}
    state.apply("draw clan")
    assert state.phase == Phase.RECRUIT_RETURN
    assert state.hands[0] == cards("1y 9k JO SP")
    state.play("return SP", "return 9k")
    assert state.tactic_deck == cards("SP MF")
    assert state.bottom_known[0] == cards("9k SP")


def test_r7_7_recruiter_draws_as_far_as_the_decks_hold() -> None:
    """R7.7, R3.4: with one card left the Recruiter draws one, returns two, then the turn's draw follows."""
    state = deal("tactics", hands=("RE 1y 2y 3y 4y 5y 6y", "1p"), clan_deck="9k", rest="out")
    state.apply("RE")
    assert state.hands[0] == cards("1y 2y 3y 4y 5y 6y 9k")
    state.play("return 1y", "return 2y")
    assert state.turn == 1
    assert state.hands[0] == cards("3y 4y 5y 6y 9k 1y")
    assert state.clan_deck == cards("2y")


# ---------------------------------------------------------------- R7.11 ruses without a target


@pytest.mark.parametrize(
    ("ruse", "hand", "board", "rest"),
    [
        ("BA", "BA 1y", ({}, {}), "bottom"),
        ("TR", "TR 1y", ({}, {2: "JO SP"}), "bottom"),
        ("ST", "ST 1y", ({}, {2: "5r"}), "bottom"),
        ("RE", "RE 1y", ({}, {}), "out"),
    ],
)
def test_r7_11_ruse_without_a_target_is_not_offered(ruse: str, hand: str,
                                                    board: tuple[dict[int, str], dict[int, str]],
                                                    rest: str) -> None:
    """R7.11: Banshee/Traitor need an opponent's card (a clan card for the Traitor), the Strategist
    one's own card, the Recruiter a card in the decks."""
    state = deal("tactics", hands=(hand, "1p"), board=board, rest=rest)
    assert ruse not in legal(state)
    assert "1y@1" in legal(state)
    with pytest.raises(IllegalActionError, match=r"nothing to act on.*R7\.11"):
        state.apply(ruse)


def test_r7_11_banshee_and_traitor_ignore_claimed_stones() -> None:
    """R7.11, R5.3: the opponent's cards lie only on a claimed stone: no Banshee, no Traitor."""
    state = deal("tactics", hands=("BA TR 1k", ""), board=({}, {2: "7b 8b 9b"}), first=1, rest="out")
    state.play("pass", "claim 2")
    assert state.turn == 0
    assert legal(state) == {f"1k@{n}" for n in (1, 3, 4, 5, 6, 7, 8, 9)}
    with pytest.raises(IllegalActionError, match=r"Banshee has nothing to act on.*R7\.11"):
        state.apply("BA")


def test_r7_11_strategist_ignores_claimed_stones() -> None:
    """R7.11, R5.3: one's own cards lie only on a claimed stone: no Strategist."""
    state = deal("tactics", hands=("ST", "BB"), board=({1: "7g 8g JO"}, {}), rest="out")
    assert legal(state) == {"pass"}
    state.play("pass", "claim 1", "BB@5")
    assert state.tactics_played == [1, 1]
    assert legal(state) == {"pass"}


def test_r7_11_only_ruses_without_targets_means_pass() -> None:
    """R7.11, R3.2: a hand of ruses none of which has a target: the player passes."""
    state = deal("tactics", hands=("BA TR", "1p"), rest="out")
    assert legal(state) == {"pass"}


# ---------------------------------------------------------------- R6.2 with tactics


def test_r6_2_a_draw_between_two_passes_keeps_play_going() -> None:
    """R6.2: seat 1 passes after seat 0 passed, but seat 0 drew a card in between (from cards the
    Recruiter put back): play is not over."""
    values = [f"{v}{c}" for v in range(1, 10) for c in "gbrp"][:27]
    full = {n: " ".join(values[3 * (n - 1): 3 * n]) for n in range(1, 10)}
    state = deal("tactics", hands=("", "RE 5k 6k"), board=({}, full), clan_deck="9k", first=1, rest="out")
    state.apply("RE")
    state.play("return 5k", "return 6k")
    end_turn(state)
    assert state.hands[1] == cards("9k 5k")
    assert state.clan_deck == cards("6k")
    state.apply("pass")
    end_turn(state)
    assert state.hands[0] == cards("6k")
    assert legal(state) == {"pass"}
    state.apply("pass")
    end_turn(state)
    assert not state.is_over
    assert state.turn == 0 and "6k@1" in legal(state)
