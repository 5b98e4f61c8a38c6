"""Scenario tests of the base game rules R1-R6 (docs/rules.md), written in the action notation.

Each test names the rule it checks. Positions are dealt with ``tests.scenario.deal``;
seat 0 moves first unless a test says otherwise.
"""

from __future__ import annotations

from collections import Counter

import pytest

from schotten.engine import ACTIONS, GameState, IllegalActionError, Phase, Reason, Settings, prove
from schotten.engine.cards import (
    COLOUR_LETTERS,
    NUM_CLAN,
    NUM_STONES,
    TACTIC_DECK,
    card_str,
    parse_card,
)
from tests.scenario import cards, deal, end_turn, legal, plays, rig, turn

# ---------------------------------------------------------------- R1 components


def test_r1_1_one_clan_card_per_value_and_colour() -> None:
    """R1.1: 54 clan cards, values 1-9 in six colours, each (value, colour) exactly once."""
    names = [f"{value}{colour}" for value in range(1, 10) for colour in COLOUR_LETTERS]
    codes = [parse_card(name) for name in names]
    assert len(COLOUR_LETTERS) == 6
    assert sorted(codes) == list(range(NUM_CLAN))
    assert [card_str(code) for code in codes] == names


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_r1_1_a_new_round_holds_each_clan_card_once(variant: str) -> None:
    """R1.1, R2.1: the hands and the clan deck of a fresh round are the 54 clan cards, once each."""
    state = GameState.new(Settings.of(variant), seed=11)
    held = state.hands[0] + state.hands[1] + state.clan_deck
    assert sorted(c for c in held if c < NUM_CLAN) == list(range(NUM_CLAN))


def test_r1_2_ten_tactic_cards() -> None:
    """R1.2: the tactic deck is 10 cards: Joker x2, Spy, Shield, Bluff, Mud, and the four ruses."""
    state = GameState.new(Settings.of("tactics"), seed=5)
    assert len(state.tactic_deck) == 10
    assert Counter(state.tactic_deck) == Counter(cards("JO JO SP SH BB MF ST BA TR RE"))
    assert Counter(TACTIC_DECK) == Counter(state.tactic_deck)


def test_r1_2_no_tactic_cards_in_the_base_game() -> None:
    """R1.2, R7: the base game has no tactic deck and no tactic card in any hand."""
    state = GameState.new(Settings.of("base"), seed=5)
    assert state.tactic_deck == []
    assert all(c < NUM_CLAN for hand in state.hands for c in hand)


def test_r1_3_nine_stones_numbered_1_to_9() -> None:
    """R1.3: nine stones, numbered 1-9 in notation; there is no stone 0 or 10."""
    state = deal(hands=("5g", "5b"))
    assert plays(state) == {f"5g@{n}" for n in range(1, 10)}
    assert len(state.sides[0]) == len(state.sides[1]) == len(state.owner) == NUM_STONES


# ---------------------------------------------------------------- R2 setup


@pytest.mark.parametrize(
    ("variant", "hand", "clan", "tactic"),
    [("base", 6, 42, 0), ("expert-base", 6, 42, 0), ("tactics", 7, 40, 10), ("expert", 7, 40, 10)],
)
def test_r2_1_hand_sizes(variant: str, hand: int, clan: int, tactic: int) -> None:
    """R2.1, R2.2, R7.1: 6 clan cards each (7 with tactics); the tactic deck stays whole."""
    state = GameState.new(Settings.of(variant), seed=3)
    assert [len(h) for h in state.hands] == [hand, hand]
    assert len(state.clan_deck) == clan
    assert len(state.tactic_deck) == tactic


def test_r2_2_tactic_deck_is_shuffled_with_the_seed() -> None:
    """R2.2, R2.4: the tactic deck is shuffled, the same way for the same seed."""
    orders = {tuple(GameState.new(Settings.of("tactics"), seed).tactic_deck) for seed in range(8)}
    assert len(orders) > 1
    again = GameState.new(Settings.of("tactics"), 4).tactic_deck
    assert again == GameState.new(Settings.of("tactics"), 4).tactic_deck


def test_r2_3_first_player_from_the_seed_is_reproducible() -> None:
    """R2.3: without a setting the first player comes from the seed: the same seed, the same player."""
    firsts = [GameState.new(Settings.of("base"), seed).first for seed in range(20)]
    assert firsts == [GameState.new(Settings.of("base"), seed).first for seed in range(20)]
    assert set(firsts) == {0, 1}
    for seed in range(20):
        state = GameState.new(Settings.of("base"), seed)
        assert state.turn == state.first


@pytest.mark.parametrize("first", [0, 1])
def test_r2_3_first_player_setting(first: int) -> None:
    """R2.3: the first player may be set; that seat moves first."""
    state = GameState.new(Settings.of("base", first_player=first), seed=9)
    assert state.turn == state.first == first


@pytest.mark.parametrize(("first", "seed"), [(0, 2), (1, 2), (None, 0), (None, 1), (None, 5)])
def test_r2_3_first_player_alternates_between_rounds(first: int | None, seed: int) -> None:
    """R2.3, R9: in a match the first player (set, or drawn from the seed) alternates round by round."""
    state = GameState.new(Settings.of("base", rounds=4, first_player=first), seed=seed)
    first = state.first
    starters = []
    for _ in range(4):
        starters.append(state.turn)
        deal_empty_round(state)
        state.play("pass", "pass")
    assert starters == [first, 1 - first, first, 1 - first]
    assert state.is_over


def deal_empty_round(state: GameState) -> None:
    """Empty the hands and decks of the round that is starting, so both players must pass."""
    rig(state, ("", ""), rest="out")


def test_r2_4_same_seed_and_actions_replay_the_same_game() -> None:
    """R2.4: a game is (settings, seed, actions): replaying them reaches the same state."""
    settings = Settings.of("tactics", rounds=2)
    one = GameState.new(settings, seed=77)
    for step in range(60):
        if one.is_over:
            break
        ids = one.legal_action_ids()
        one.apply_id(ids[step % len(ids)])
    two = GameState.new(settings, seed=77)
    for action_id in one.history:
        two.apply(str(ACTIONS[action_id]))
    for field in ("hands", "sides", "clan_deck", "tactic_deck", "discards", "owner", "turn", "phase"):
        assert getattr(one, field) == getattr(two, field), field


# ---------------------------------------------------------------- R3 a turn


def claimed_stone_five() -> GameState:
    """Seat 0 has just claimed stone 5 (7-8-9 green) and seat 0's side of stone 2 is full."""
    state = deal(
        hands=("9g 1y 2y 3y 4y 5y", "1p 2p 3p 4p 5p 6p"),
        board=({2: "1b 2b 4r", 5: "7g 8g"}, {}),
        clan_deck="9k 8k 7k",
    )
    state.play("9g@5", "claim 5")
    assert state.turn == 1, "the claim step ends by itself when nothing is left to claim"
    return state


def test_r3_1_plays_only_on_unclaimed_stones_with_room() -> None:
    """R3.1: a card goes on one's own side of an unclaimed stone whose side has room."""
    state = claimed_stone_five()
    assert state.owner[4] == 0
    assert state.turn == 1
    assert plays(state) == {f"{v}p@{n}" for v in range(1, 7) for n in (1, 2, 3, 4, 6, 7, 8, 9)}
    turn(state, "1p@2")
    hand = ("1y", "2y", "3y", "4y", "5y", "9k")
    assert plays(state) == {f"{c}@{n}" for c in hand for n in (1, 3, 4, 6, 7, 8, 9)}


def test_r3_1_play_on_full_or_claimed_stone_is_refused() -> None:
    """R3.1, R5.3: playing on a full side or a claimed stone raises IllegalActionError."""
    state = claimed_stone_five()
    turn(state, "1p@1")
    with pytest.raises(IllegalActionError, match=r"stone 5 is claimed.*R5\.3"):
        state.apply("2y@5")
    with pytest.raises(IllegalActionError, match=r"side of stone 2 is full.*R3\.1"):
        state.apply("2y@2")
    with pytest.raises(IllegalActionError, match="no 6y in your hand"):
        state.apply("6y@3")


def test_r3_1_a_card_leaves_the_hand_for_the_side() -> None:
    """R3.1: exactly one card moves from the hand to one's own side of the stone."""
    state = deal(hands=("1y 2y 3y 4y 5y 6y", "1p 2p 3p 4p 5p 6p"))
    state.apply("4y@7")
    assert state.sides[0][6] == cards("4y")
    assert state.sides[1][6] == []
    assert cards("4y")[0] not in state.hands[0]


def test_r3_2_pass_only_when_nothing_can_be_played() -> None:
    """R3.2: a player with no legal play passes; one who can play may not pass."""
    state = deal(hands=("", "5r"), rest="out")
    assert legal(state) == {"pass"}
    state.apply("pass")
    assert "pass" not in legal(state)
    with pytest.raises(IllegalActionError, match=r"may not pass.*R3\.2"):
        state.apply("pass")


def test_r3_2_pass_when_every_side_is_full() -> None:
    """R3.2: cards in hand but every own side full or claimed: the only action is to pass."""
    full = {n: " ".join(f"{n}{c}" for c in "gbr") for n in range(1, 10)}
    state = deal(hands=("1y 2y", "3y 4y"), board=(full, {}), rest="out")
    assert legal(state) == {"pass"}
    state.apply("pass")
    assert state.hands[0] == cards("1y 2y")


def test_r3_3_claim_only_after_playing() -> None:
    """R3.3: stones are claimed after playing (or passing), not before."""
    state = deal(hands=("1k 2k", "1p"), board=({1: "7g 8g 9g"}, {}))
    assert "claim 1" not in legal(state)
    with pytest.raises(IllegalActionError, match=r"play \(or pass\) first.*R3\.3"):
        state.apply("claim 1")
    state.apply("1k@9")
    assert state.phase == Phase.CLAIM
    assert legal(state) == {"claim 1", "done"}


def test_r3_3_claim_after_passing() -> None:
    """R3.3: a player who passes may still claim."""
    state = deal(hands=("", "1p"), board=({1: "7g 8g 9g"}, {}), rest="out")
    state.apply("pass")
    assert legal(state) == {"claim 1", "done"}
    state.apply("claim 1")
    assert state.owner[0] == 0


def three_runs_and_one() -> GameState:
    """Seat 0 can claim stones 1, 2, 5 and, once 9r is played, stone 3 (7-8-9 colour-runs)."""
    return deal(
        hands=("9r 1k 2k 3k 4k 5k", "1p 2p 3p 4p 5p 6p"),
        board=({1: "7g 8g 9g", 2: "7b 8b 9b", 3: "7r 8r", 5: "7y 8y 9y"}, {}),
    )


def test_r3_3_several_claims_in_any_order_and_the_winning_claim_ends_the_game() -> None:
    """R3.3, R6.1: any number of claims in any order; the claim making 3 adjacent stones wins."""
    state = three_runs_and_one()
    state.apply("9r@3")
    assert legal(state) == {"claim 1", "claim 2", "claim 3", "claim 5", "done"}
    state.play("claim 5", "claim 3", "claim 1")
    assert not state.is_over
    assert legal(state) == {"claim 2", "done"}
    state.apply("claim 2")
    assert state.is_over
    assert state.outcome is not None
    assert state.round_outcomes[0].winner == 0
    assert state.round_outcomes[0].reason == Reason.ADJACENT
    assert state.round_outcomes[0].stones == (0, 0, 0, None, 0, None, None, None, None)
    assert state.hands[0] == cards("1k 2k 3k 4k 5k")


def test_r3_3_done_leaves_claimable_stones_open() -> None:
    """R3.3: claiming is a choice; after 'done' the stones stay unclaimed and the turn goes on."""
    state = three_runs_and_one()
    state.play("9r@3", "claim 1", "done")
    assert state.owner[:5] == [0, -1, -1, -1, -1]
    assert state.turn == 1
    assert len(state.hands[0]) == 6


def test_r3_4_base_draws_the_top_clan_card() -> None:
    """R3.4: below the hand size the player draws the top clan card (no choice in the base game)."""
    state = deal(hands=("1y 2y 3y 4y 5y 6y", "1p 2p 3p 4p 5p 6p"), clan_deck="9k 8k")
    state.apply("1y@1")
    assert state.turn == 1
    assert state.hands[0] == cards("2y 3y 4y 5y 6y 9k")
    state.apply("1p@1")
    assert state.hands[1][-1] == parse_card("8k")


def test_r3_4_empty_deck_is_not_drawn_from() -> None:
    """R3.4: with the clan deck empty there is no draw and play goes on."""
    state = deal(hands=("1y 2y", "1p 2p"), rest="out")
    state.apply("1y@1")
    assert state.hands[0] == cards("2y")
    assert state.turn == 1 and state.phase == Phase.PLAY
    state.apply("1p@1")
    assert state.turn == 0 and not state.is_over


def test_r3_4_tactics_choose_the_deck() -> None:
    """R3.4: with tactics the player chooses either non-empty deck."""
    state = deal("tactics", hands=("1y 2y 3y 4y 5y 6y 7y", "1p 2p 3p 4p 5p 6p 7p"),
                 clan_deck="9k", tactic_deck="BB")
    state.apply("1y@1")
    assert state.phase == Phase.DRAW
    assert legal(state) == {"draw clan", "draw tactic"}
    state.apply("draw tactic")
    assert state.hands[0][-1] == parse_card("BB")
    state.apply("1p@1")
    state.apply("draw clan")
    assert state.hands[1][-1] == parse_card("9k")


@pytest.mark.parametrize(("clan_deck", "tactic_deck", "drawn"), [("9k", "", "9k"), ("", "BB", "BB")])
def test_r3_4_tactics_forced_draw_when_one_deck_is_empty(clan_deck: str, tactic_deck: str,
                                                         drawn: str) -> None:
    """R3.4: with one deck empty the draw comes from the other, without a choice."""
    state = deal("tactics", hands=("1y 2y 3y 4y 5y 6y 7y", "1p"),
                 clan_deck=clan_deck, tactic_deck=tactic_deck, rest="out")
    state.apply("1y@1")
    assert state.turn == 1 and state.phase == Phase.PLAY
    assert state.hands[0][-1] == parse_card(drawn)
    assert state.clan_deck == [] and state.tactic_deck == []


def test_r3_4_no_draw_with_a_full_hand() -> None:
    """R3.4: a player who passed keeps a full hand and does not draw."""
    full = {n: " ".join(f"{n}{c}" for c in "gbr") for n in range(1, 10)}
    state = deal(hands=("1y 2y 3y 4y 5y 6y", "1p"), board=(full, {}), clan_deck="9k")
    state.apply("pass")
    end_turn(state)
    assert len(state.hands[0]) == 6 and parse_card("9k") not in state.hands[0]


def test_r3_5_players_alternate() -> None:
    """R3.5: turns alternate between the two players."""
    state = deal(hands=("1y 2y 3y 4y 5y 6y", "1p 2p 3p 4p 5p 6p"), first=1)
    seen = []
    for n in range(1, 5):
        seen.append(state.turn)
        state.apply(f"{n}{'yp'[state.turn]}@{n}")
    assert seen == [1, 0, 1, 0]


# ---------------------------------------------------------------- R4 formations (via R5.1 claims)

STRONGER_WEAKER = [
    ("R4.1 colour-run beats three of a kind", "1g 2g 3g", "9b 9r 9y"),
    ("R4.1 no wrap-around: 9-1-2 is a colour, not a colour-run", "5b 5r 5y", "9g 1g 2g"),
    ("R4.1 no wrap-around: 9-1-2 is no run", "1g 2b 3r", "9b 1r 2y"),
    ("R4.2 three of a kind beats colour", "2b 2r 2y", "9g 8g 6g"),
    ("R4.3 colour beats run (decision)", "1g 2g 4g", "7b 8r 9y"),
    ("R4.4 run beats sum", "1g 2b 3r", "9b 9r 8y"),
    ("R4.6 sum: higher total", "9b 9r 7y", "9y 8p 6g"),
    ("R4.6 colour-run: higher total", "7b 8b 9b", "6r 7r 8r"),
    ("R4.6 three of a kind: higher total", "8g 8b 8r", "7g 7b 7r"),
    ("R4.6 colour: higher total", "9g 7g 5g", "9b 7b 4b"),
    ("R4.6 run: higher total", "4g 5b 6r", "3b 4r 5y"),
]


@pytest.mark.parametrize(("rule", "strong", "weak"), STRONGER_WEAKER, ids=[r[0] for r in STRONGER_WEAKER])
@pytest.mark.parametrize("strong_seat", [0, 1])
def test_r4_ranks_decide_claims(rule: str, strong: str, weak: str, strong_seat: int) -> None:
    """R4.1-R4.6 via R5.1: with both sides complete only the stronger one may claim."""
    sides: tuple[dict[int, str], dict[int, str]] = ({1: weak}, {1: weak})
    sides[strong_seat][1] = strong
    state = deal(hands=("1k", "2k"), board=sides, rest="out")
    assert state.can_claim(strong_seat, 0)
    assert not state.can_claim(1 - strong_seat, 0)
    state.apply("1k@9")
    assert ("claim 1" in legal(state)) == (strong_seat == 0)
    end_turn(state)
    state.apply("2k@9")
    assert ("claim 1" in legal(state)) == (strong_seat == 1)
    assert "beats their" in prove(state, strong_seat, 0).reason
    assert "beats your" in prove(state, 1 - strong_seat, 0).reason


def race(first_seat_cards: str, second_seat_cards: str) -> GameState:
    """Both seats build stone 1 card by card, seat 0 first, in the base game.

    Only ``apply`` is used: had either player been offered a claim on the way, the
    next play would have been refused in the claim step.
    """
    state = deal(hands=(first_seat_cards + " 4y 5y 6y", second_seat_cards + " 4p 5p 6p"))
    for mine, theirs in zip(cards(first_seat_cards), cards(second_seat_cards), strict=True):
        state.apply(f"{card_str(mine)}@1")
        state.apply(f"{card_str(theirs)}@1")
    return state


def test_r4_6_same_rank_and_total_first_completed_wins() -> None:
    """R4.6, R4.7: same rank and total: the side completed first wins, in a real game."""
    state = race("2g 3b 5r", "2b 3r 5g")
    assert 0 < state.stamps[0][0] < state.stamps[1][0]
    assert state.strength(0, 0) == state.strength(1, 0)
    assert state.owner[0] == -1 and state.turn == 0
    state.apply("4y@2")
    assert legal(state) == {"claim 1", "done"}
    assert not state.can_claim(1, 0)
    assert "they completed first" in prove(state, 1, 0).reason
    assert "you completed first" in prove(state, 0, 0).reason


# ---------------------------------------------------------------- R5 claiming


def sixes_against_sevens(where: str) -> GameState:
    """Seat 0: three 6s on stone 1; seat 1: 7y 7p there; 7g 7b 7r visible; 7k lies ``where``."""
    hands = {"own hand": ("7k 1k", "2k"), "their hand": ("1k", "7k 2k"), "deck": ("1k", "2k")}[where]
    deck = "7k" if where == "deck" else ""
    return deal(hands=hands, board=({1: "6g 6b 6r", 2: "7g 7b 7r"}, {1: "7y 7p"}), clan_deck=deck)


@pytest.mark.parametrize("where", ["own hand", "their hand", "deck"])
def test_r5_2_every_hidden_card_counts_as_theirs_to_come(where: str) -> None:
    """R5.2: the deck and BOTH hands, the claimer's own included, count as cards still to come."""
    state = sixes_against_sevens(where)
    state.apply("1k@9")
    assert "claim 1" not in legal(state)
    proof = prove(state, 0, 0)
    assert not proof.holds
    assert "pink 7 is not visible" in proof.reason
    assert proof.needed == (parse_card("7k"),)


def test_r5_2_claim_proven_once_the_card_is_on_the_board() -> None:
    """R5.2: once the last card that could beat the side is visible, the claim is offered."""
    state = sixes_against_sevens("own hand")
    state.apply("7k@9")
    assert legal(state) == {"claim 1", "done"}
    state.apply("claim 1")
    assert state.owner[0] == 0


def test_r5_2_an_exact_tie_is_the_claimers() -> None:
    """R5.2: the opponent's best completion only ties: the claimer completed first, so it holds."""
    state = deal(hands=("1k", "2k"), board=({1: "6g 6b 6r"}, {1: "6y 6p"}))
    state.apply("1k@9")
    assert legal(state) == {"claim 1", "done"}
    assert prove(state, 0, 0).holds


def test_r5_2_a_stronger_completion_still_possible_refutes() -> None:
    """R5.2: one possible completion that beats the side is enough to refuse the claim."""
    state = deal(hands=("1k", "2k"), board=({1: "6g 6b 6r"}, {1: "6y 7y"}))
    state.apply("1k@9")
    assert "claim 1" not in legal(state)
    assert "colour-run" in prove(state, 0, 0).reason


def test_r5_3_claimed_stone_is_closed() -> None:
    """R5.3: no card may be played on a claimed stone, by either player, nor claimed again."""
    state = claimed_stone_five()
    assert not any(text.endswith("@5") for text in legal(state))
    turn(state, "1p@1")
    assert not any(text.endswith("@5") for text in legal(state))
    state.apply("1y@1")
    assert "claim 5" not in legal(state)
    assert not state.can_claim(0, 4) and not state.can_claim(1, 4)
    assert state.owner[4] == 0


def refusals() -> GameState:
    """Seat 0 in its claim step (stone 5 is claimable by a tie won by completing first)."""
    state = deal(
        hands=("1k", "7k 2k"),
        board=(
            {1: "6g 6b 6r", 2: "7g 7b 7r", 3: "4g 4b", 4: "8g 8b 8r", 5: "2b 3r 5y"},
            {1: "7y 7p", 4: "9b 9r 9y", 5: "2r 3y 5b"},
        ),
    )
    state.apply("1k@9")
    assert legal(state) == {"claim 5", "done"}
    return state


@pytest.mark.parametrize(
    ("stone", "reason"),
    [
        (1, r"cannot claim stone 1: their side can still make three of a kind .*pink 7 is not visible"),
        (3, r"cannot claim stone 3: your side of stone 3 holds 2 of 3 cards"),
        (4, r"cannot claim stone 4: their three of a kind 9-9-9 beats your three of a kind 8-8-8"),
        (9, r"cannot claim stone 9: your side of stone 9 holds 1 of 3 cards"),
        (6, r"cannot claim stone 6: your side of stone 6 holds 0 of 3 cards"),
    ],
)
def test_r5_4_claim_refused_with_a_reason(stone: int, reason: str) -> None:
    """R5.4: a claim that does not hold raises IllegalActionError naming why; nothing changes."""
    state = refusals()
    before = (state.phase, list(state.owner), len(state.history), state.turn)
    with pytest.raises(IllegalActionError, match=reason):
        state.apply(f"claim {stone}")
    assert (state.phase, state.owner, len(state.history), state.turn) == before


def test_r5_4_claim_of_a_claimed_stone_refused() -> None:
    """R5.3, R5.4: a stone already claimed cannot be claimed again."""
    state = refusals()
    state.apply("claim 5")
    state.apply("2k@8")
    assert legal(state) == {"claim 4", "done"}
    with pytest.raises(IllegalActionError, match=r"stone 5 is already claimed by your opponent \(R5\.3\)"):
        state.apply("claim 5")


# ---------------------------------------------------------------- R6 end of a round


def test_r6_1_five_stones_win_without_three_adjacent() -> None:
    """R6.1: four scattered stones are not enough; the fifth wins the round at once."""
    state = deal(
        hands=("9p 1k", "1p"),
        board=({1: "7g 8g 9g", 3: "7b 8b 9b", 5: "7r 8r 9r", 7: "7y 8y 9y", 9: "7p 8p"}, {}),
    )
    state.apply("9p@9")
    assert legal(state) == {"claim 1", "claim 3", "claim 5", "claim 7", "claim 9", "done"}
    state.play("claim 7", "claim 1", "claim 9", "claim 3")
    assert not state.is_over
    state.apply("claim 5")
    assert state.is_over
    assert state.round_outcomes[0].winner == 0
    assert state.round_outcomes[0].reason == Reason.FIVE


def test_r6_1_three_stones_must_be_adjacent() -> None:
    """R6.1: stones 1, 2 and 4 are three stones but not three adjacent ones."""
    state = deal(
        hands=("9r 1k", "1p"),
        board=({1: "7g 8g 9g", 2: "7b 8b 9b", 4: "7r 8r", 3: "7y 8y 9y"}, {}),
    )
    state.play("9r@4", "claim 1", "claim 2", "claim 4")
    assert not state.is_over
    state.apply("claim 3")
    assert state.is_over and state.round_outcomes[0].reason == Reason.ADJACENT


def both_pass(state: GameState) -> GameState:
    """Both players pass in succession, saying 'done' to any claim offered on the way (R3.3)."""
    for _ in range(2):
        assert not state.is_over
        state.apply("pass")
        end_turn(state)
    return state


def test_r6_2_settlement_of_each_kind_of_stone() -> None:
    """R6.2: complete beats incomplete; two complete sides compare by R4 (ties by completion order);
    two incomplete sides, or none, leave the stone unclaimed; more stones win the round."""
    state = deal(
        hands=("", ""),
        board=(
            {1: "1g 2g 4b", 2: "5g 5b 5r", 3: "2b 3r 6y", 4: "9g 9b"},
            {1: "9r", 2: "1y 2y 3y", 3: "2r 3g 6b", 4: "8g"},
        ),
        rest="out",
    )
    both_pass(state)
    assert state.is_over
    outcome = state.round_outcomes[0]
    assert outcome.stones == (0, 1, 0, None, None, None, None, None, None)
    assert (outcome.winner, outcome.reason, outcome.points) == (0, Reason.MORE_STONES, (5, 1))


def test_r6_2_settlement_keeps_the_real_completion_order() -> None:
    """R6.2, R4.6: at settlement a tie goes to the side completed first in play (here seat 1)."""
    state = deal(hands=("2g 3b 5r", "2b 3r 5g"), first=1, rest="out")
    for card in ("2b", "2g", "3r", "3b", "5g", "5r"):
        state.apply(f"{card}@1")
    assert state.stamps[1][0] < state.stamps[0][0]
    assert legal(state) == {"pass"}
    state.apply("pass")
    assert legal(state) == {"claim 1", "done"}
    state.apply("done")
    state.apply("pass")
    assert state.is_over
    assert state.round_outcomes[0].stones[0] == 1
    assert (state.round_outcomes[0].winner, state.round_outcomes[0].points) == (1, (0, 5))


def test_r6_2_equal_stones_is_a_drawn_round() -> None:
    """R6.2: equal stones after settlement make the round a draw; each scores its stones (R9.2)."""
    state = deal(hands=("", ""), board=({1: "1g 2g 4b"}, {2: "1b 2b 4r"}), rest="out")
    both_pass(state)
    outcome = state.round_outcomes[0]
    assert (outcome.winner, outcome.reason, outcome.points) == (None, Reason.EQUAL_STONES, (1, 1))
    assert state.outcome is not None and state.outcome.winner is None


def test_r6_2_nothing_on_the_board_is_a_drawn_round() -> None:
    """R6.2: with no stone settled at all the round is a draw with no points."""
    state = both_pass(deal(hands=("", ""), rest="out"))
    outcome = state.round_outcomes[0]
    assert (outcome.winner, outcome.points, outcome.stones) == (None, (0, 0), (None,) * 9)


def test_r6_2_three_adjacent_at_settlement_beat_more_stones() -> None:
    """R6.2, R6.1: settlement gives seat 0 three adjacent stones, seat 1 four scattered: seat 0 wins."""
    state = deal(
        hands=("", ""),
        board=(
            {1: "1g 2g 4g", 2: "1b 2b 4b", 3: "1r 2r 4r"},
            {5: "1y 2y 4y", 6: "1p 2p 4p", 8: "1k 2k 4k", 9: "5g 6b 8r"},
        ),
        rest="out",
    )
    both_pass(state)
    outcome = state.round_outcomes[0]
    assert outcome.stones == (0, 0, 0, None, 1, 1, None, 1, 1)
    assert (outcome.winner, outcome.reason, outcome.points) == (0, Reason.ADJACENT, (5, 4))


def test_r6_2_a_pass_then_a_play_does_not_end_the_round() -> None:
    """R6.2: only two passes in succession end play; a play in between starts the count again."""
    state = deal(hands=("", "5r 6r"), board=({1: "1g 2g 4b"}, {}), rest="out")
    state.apply("pass")
    end_turn(state)
    state.apply("5r@2")
    state.apply("pass")
    end_turn(state)
    assert not state.is_over
    state.apply("6r@2")
    assert not state.is_over
    both_pass(state)
    assert state.round_outcomes[0].stones[:2] == (0, None)
    assert state.round_outcomes[0].winner == 0
