"""Scenario tests of the expert variant (R8.1), matches (R9) and the two kinds of bad input.

Positions are dealt with ``tests.scenario.deal`` (and ``rig`` for later rounds);
seat 0 moves first unless a test says otherwise.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.engine import (
    GameState,
    IllegalActionError,
    NotationError,
    Outcome,
    Phase,
    Reason,
    SchottenError,
    Settings,
    parse_action,
)
from schotten.engine.cards import (
    BLUFF,
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CLAN,
    NUM_STONES,
    TACTIC_DECK,
    card_str,
    parse_card,
)
from tests.scenario import deal, end_turn, legal, rig, turn

SIX_P = "1p 2p 3p 4p 5p 6p"
SEVEN_P = "1p 2p 3p 4p 5p 6p 7p"

# ---------------------------------------------------------------- R8.1 expert claims


def test_r8_1_claims_only_at_the_start_of_ones_turn() -> None:
    """R8.1: no claim after playing; the stone is offered at the start of the player's next turn."""
    state = deal("expert-base", hands=("9g 1y 2y 3y 4y 5y", SIX_P), board=({1: "7g 8g"}, {}))
    assert state.phase == Phase.PLAY
    with pytest.raises(IllegalActionError, match=r"only at the start of your turn \(R8\.1\)"):
        state.apply("claim 1")
    state.apply("9g@1")
    assert state.turn == 1 and state.phase == Phase.PLAY
    assert state.can_claim(0, 0)
    state.apply("1p@2")
    assert state.turn == 0 and Phase(state.phase) == Phase.CLAIM
    assert legal(state) == {"claim 1", "done"}
    state.apply("claim 1")
    assert state.owner[0] == 0
    assert state.phase == Phase.PLAY and state.turn == 0
    state.apply("1y@3")
    assert state.turn == 1


def test_r8_1_done_then_no_claim_until_the_next_turn() -> None:
    """R8.1: a player who declines at the start of the turn cannot claim after playing."""
    state = deal("expert-base", hands=("6y 1y 2y 3y 4y 5y", SIX_P), board=({1: "7g 8g 9g"}, {}), first=1)
    state.apply("1p@2")
    assert legal(state) == {"claim 1", "done"}
    state.apply("done")
    assert state.phase == Phase.PLAY
    with pytest.raises(IllegalActionError, match=r"R8\.1"):
        state.apply("claim 1")
    state.apply("1y@3")
    assert state.turn == 1 and state.owner[0] == -1


@pytest.mark.parametrize(("variant", "claimed"), [("tactics", True), ("expert", False)])
def test_r8_1_opponent_may_spoil_a_waiting_claim(variant: str, claimed: bool) -> None:
    """R8.1: with tactics the claim follows the play at once; in the expert game it waits, and the
    opponent's Banshee in between makes it fail."""
    state = deal(variant, hands=("9g 1y 2y 3y 4y 5y 6y", "BA " + SIX_P), board=({1: "7g 8g"}, {}))
    state.apply("9g@1")
    assert ("claim 1" in legal(state)) == claimed
    if claimed:
        return
    end_turn(state)
    state.play("BA", "banish 9g@1")
    end_turn(state)
    assert state.turn == 0 and state.phase == Phase.PLAY
    assert "claim 1" not in legal(state)


def test_r8_1_winning_claim_at_the_start_of_a_turn_ends_the_game() -> None:
    """R8.1, R6.1: claims at the start of the turn may win the round before any card is played."""
    state = deal("expert", hands=("9r 1y 2y 3y 4y 5y 6y", SEVEN_P),
                 board=({1: "7g 8g 9g", 2: "7b 8b 9b", 3: "7r 8r"}, {}))
    assert legal(state) == {"claim 1", "claim 2", "done"}
    state.play("claim 1", "claim 2")
    turn(state, "9r@3")
    turn(state, "1p@5")
    assert legal(state) == {"claim 3", "done"}
    state.apply("claim 3")
    assert state.is_over
    assert state.round_outcomes[0].reason == Reason.ADJACENT
    assert len(state.hands[0]) == 7


def test_r8_1_expert_games_end_by_settlement_too() -> None:
    """R8.1, R6.2: in the expert game two passes in succession also end play."""
    state = deal("expert-base", hands=("", ""), board=({1: "1g 2g 4b"}, {}), rest="out")
    state.play("pass", "pass")
    assert state.is_over
    assert state.round_outcomes[0].winner == 0


# ---------------------------------------------------------------- R9 matches


def settle_round(state: GameState, stones: tuple[str, str]) -> GameState:
    """Deal the starting round so each seat has complete sides on its stones and nothing to play;
    both pass and settlement (R6.2) gives each seat those stones."""
    names = iter(card_str(c) for c in range(NUM_CLAN))
    board = tuple({int(n): " ".join(next(names) for _ in range(3)) for n in plan.split()} for plan in stones)
    rig(state, ("", ""), board=(board[0], board[1]), rest="out")
    start = state.round
    for _ in range(2):
        state.apply("pass")
        end_turn(state)
    assert state.round != start or state.is_over
    return state


def test_r9_1_the_match_lasts_the_agreed_rounds() -> None:
    """R9.1: a match of 3 rounds deals a new round after each of the first two, then ends."""
    state = GameState.new(Settings.of("base", rounds=3), seed=1)
    for played in range(3):
        assert state.round == played and not state.is_over
        assert [len(h) for h in state.hands] == [6, 6]
        settle_round(state, ("1", "2 3"))
    assert state.is_over
    assert state.outcome is not None and len(state.outcome.rounds) == 3


@pytest.mark.parametrize("rounds", [0, 100])
def test_r9_1_rounds_must_be_sensible(rounds: int) -> None:
    """R9.1: a match has at least one round."""
    with pytest.raises(ValueError, match="rounds"):
        Settings.of("base", rounds=rounds)


def test_r9_2_round_won_by_a_claim_scores_5_and_the_losers_stones() -> None:
    """R9.2: the winner scores 5, the loser 1 per stone it claimed; then the next round is dealt."""
    state = deal(
        hands=("1k 9r 2k 3k 4k 5k", "1p 2p 3p 4p 5p 6p"),
        board=({1: "7g 8g 9g", 2: "7b 8b 9b", 3: "7r 8r"}, {5: "7y 8y 9y"}),
        rounds=2,
    )
    state.play("1k@9", "claim 1", "done")
    state.play("1p@6", "claim 5")
    state.play("9r@3", "claim 3")
    assert not state.is_over
    state.apply("claim 2")
    outcome = state.round_outcomes[0]
    assert (outcome.winner, outcome.reason, outcome.points) == (0, Reason.ADJACENT, (5, 1))
    assert state.scores == [5, 1] and state.rounds_won == [1, 0]
    assert not state.is_over
    assert state.round == 1 and state.turn == 1 and state.phase == Phase.PLAY
    assert [len(h) for h in state.hands] == [6, 6]
    assert all(not side for seat in (0, 1) for side in state.sides[seat])
    assert state.owner == [-1] * 9


def test_r9_2_scores_add_up_over_rounds() -> None:
    """R9.2: won rounds score 5 and 1 per stone for the loser; a drawn round 1 per stone each."""
    state = GameState.new(Settings.of("base", rounds=3), seed=4)
    settle_round(state, ("1 2 3", "5 7"))
    assert state.scores == [5, 2]
    settle_round(state, ("4 6", "1 8"))
    assert state.round_outcomes[1].winner is None
    assert state.scores == [7, 4]
    settle_round(state, ("5", "7 8 9"))
    assert state.scores == [8, 9]
    assert state.rounds_won == [1, 1]
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.scores) == (1, (8, 9))
    assert [r.points for r in state.outcome.rounds] == [(5, 2), (2, 2), (1, 5)]


def test_r9_3_most_points_win_even_with_fewer_rounds_won() -> None:
    """R9.3: points decide first: one round won and big losses beat two rounds won."""
    state = GameState.new(Settings.of("base", rounds=3), seed=4)
    settle_round(state, ("1 2 3", ""))
    settle_round(state, ("1 2 4 5", "7 8 9"))
    settle_round(state, ("1 2 5 6", "7 8 9"))
    assert state.rounds_won == [1, 2]
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.scores) == (0, (13, 10))


def test_r9_3_equal_points_more_rounds_won() -> None:
    """R9.3: equal points: the player who won more rounds wins the match."""
    state = GameState.new(Settings.of("base", rounds=3), seed=4)
    settle_round(state, ("1 2 3", "5 7 9"))
    settle_round(state, ("1 2 3", "5 7"))
    settle_round(state, ("", "1 2 3"))
    assert state.scores == [10, 10] and state.rounds_won == [2, 1]
    assert state.outcome is not None and state.outcome.winner == 0


def test_r9_3_equal_points_and_rounds_is_a_drawn_match() -> None:
    """R9.3: equal points and equal rounds won: the match is drawn."""
    state = GameState.new(Settings.of("base", rounds=2), seed=4)
    settle_round(state, ("1 2 3", "5 7"))
    settle_round(state, ("5 7", "1 2 3"))
    assert state.scores == [7, 7] and state.rounds_won == [1, 1]
    assert state.outcome is not None and state.outcome.winner is None


# ---------------------------------------------------------------- bad input


def snapshot(state: GameState) -> tuple[object, ...]:
    """Everything an action could change."""
    return (
        [h[:] for h in state.hands], [[s[:] for s in seat] for seat in state.sides],
        state.clan_deck[:], state.tactic_deck[:], state.owner[:], state.modes[:],
        [s[:] for s in state.stamps], [d[:] for d in state.discards], state.tactics_played[:],
        state.phase, state.turn, state.passes, state.clock, state.pool, state.held,
        state.history[:], state.claimable[:], state.scores[:],
    )


def test_notation_and_illegal_errors_are_distinct_types() -> None:
    """Malformed text and illegal actions are different errors, both engine errors."""
    assert not issubclass(NotationError, IllegalActionError)
    assert not issubclass(IllegalActionError, NotationError)
    assert issubclass(NotationError, SchottenError) and issubclass(IllegalActionError, SchottenError)


@pytest.mark.parametrize("text", ["7x@3", "claim 0", "claim 10", "fly", "", "draw", "7b@", "XX@1",
                                  "ST@3", "JO", "take JO@0", "return"])
def test_malformed_text_raises_notation_error_and_changes_nothing(text: str) -> None:
    """A malformed action raises NotationError (not IllegalActionError); the state is unchanged."""
    state = deal("tactics", hands=("JO ST 1y 2y 3y 4y 5y", SEVEN_P))
    before = snapshot(state)
    with pytest.raises(NotationError):
        state.apply(text)
    assert snapshot(state) == before


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("9k@1", "no 9k in your hand"),
        ("pass", r"R3\.2"),
        ("claim 1", r"R3\.3"),
        ("draw clan", "you must play a card"),
        ("take 1y@1", "not a legal choice now"),
        ("banish 1y@1", "not a legal choice now"),
        ("return 1y", "not legal now"),
        ("done", "not legal now"),
        ("BA", "has nothing to act on"),
    ],
)
def test_illegal_action_raises_illegal_action_error_and_changes_nothing(text: str, reason: str) -> None:
    """A well-formed action the rules forbid now raises IllegalActionError naming why; nothing changes."""
    state = deal("tactics", hands=("BA 1y 2y 3y 4y 5y 6y", SEVEN_P))
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=reason):
        state.apply(text)
    assert snapshot(state) == before
    with pytest.raises(IllegalActionError):
        state.apply(parse_action(text))
    assert snapshot(state) == before


def test_no_action_once_the_game_is_over() -> None:
    """After the last round every action is refused as illegal."""
    state = deal(hands=("", ""), rest="out")
    state.play("pass", "pass")
    assert state.is_over and state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply("pass")


def test_apply_rejects_what_is_not_an_action() -> None:
    """Something that is neither an Action nor text is a NotationError."""
    state = deal(hands=("1y", "1p"))
    with pytest.raises(NotationError):
        state.apply(7)  # type: ignore[arg-type]


# ---------------------------------------------------------------- invariants over random games


def _all_cards(state: GameState) -> Counter[int]:
    found: Counter[int] = Counter(state.clan_deck + state.tactic_deck)
    for seat in (0, 1):
        found.update(state.hands[seat] + state.discards[seat])
        for side in state.sides[seat]:
            found.update(side)
    for mode in state.modes:
        found.update(code for code, bit in ((BLUFF, MODE_BLUFF), (MUD, MODE_MUD)) if mode & bit)
    if state.held >= 0:
        found[state.held] += 1
    return found


def _check_invariants(state: GameState, frozen: dict[tuple[int, int], list[int]]) -> None:
    expected: Counter[int] = Counter(range(NUM_CLAN))
    if state.settings.tactics:
        expected.update(TACTIC_DECK)
    assert _all_cards(state) == expected, "R1.1, R1.2: every card is somewhere, once"
    unseen = sum(1 << c for c in state.hands[0] + state.hands[1] + state.clan_deck if c < NUM_CLAN)
    assert state.pool == unseen, "R5.2: the unseen cards are exactly the hands and the deck"
    for seat in (0, 1):
        assert state.tactics_played[seat] <= state.tactics_played[1 - seat] + 1, "R7.2"
        assert sum(side.count(JOKER) for side in state.sides[seat]) <= 1, "R7.3"
        for stone in range(NUM_STONES):
            side = state.sides[seat][stone]
            assert len(side) <= state.capacity(stone), "R3.1, R7.5"
            assert (state.stamps[seat][stone] > 0) == state.is_complete(seat, stone), "R4.7"
            if state.owner[stone] >= 0:
                assert frozen.setdefault((seat, stone), side[:]) == side, "R5.3"
        if state.owner.count(seat):
            assert all(state.is_complete(o, s) for s, o in enumerate(state.owner) if o >= 0), "R5"


def _check_outcome(outcome: Outcome) -> None:
    counts = [outcome.stones.count(seat) for seat in (0, 1)]
    if outcome.winner is None:
        assert counts[0] == counts[1] and outcome.points == (counts[0], counts[1]), "R6.2, R9.2"
    else:
        expected = [counts[0], counts[1]]
        expected[outcome.winner] = 5
        assert outcome.points == tuple(expected), "R9.2"


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(["base", "tactics", "expert", "expert-base"]),
       seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 10_000), min_size=400, max_size=400))
def test_random_games_keep_the_rules_invariants(variant: str, seed: int, picks: list[int]) -> None:
    """R1-R9 invariants hold after every action of random games: cards conserved, pool exact, tactic
    and Joker limits, side sizes, completion stamps, claimed stones frozen, round scores."""
    state = GameState.new(Settings.of(variant, rounds=2), seed)
    frozen: dict[tuple[int, int], list[int]] = {}
    for pick in picks:
        if state.is_over:
            break
        ids = state.legal_action_ids()
        assert ids, "a game in progress always has a legal action"
        rounds_before = len(state.round_outcomes)
        state.apply_id(ids[pick % len(ids)])
        if len(state.round_outcomes) > rounds_before:
            _check_outcome(state.round_outcomes[-1])
            frozen = {}
        if not state.is_over:
            _check_invariants(state, frozen)
    if state.outcome is not None:
        assert list(state.outcome.scores) == [sum(r.points[s] for r in state.outcome.rounds) for s in (0, 1)]


def test_scenario_deal_accounts_for_every_card() -> None:
    """The test helper keeps R1.1/R1.2 and the pool true: named cards where asked, decks read top first."""
    state = deal("tactics", hands=("JO 1y", "2y"), clan_deck="9k 8k", tactic_deck="MF",
                 board=({1: "7g 8g"}, {2: "SP 5r"}))
    expected: Counter[int] = Counter(range(NUM_CLAN))
    expected.update(TACTIC_DECK)
    assert _all_cards(state) == expected
    assert state.clan_deck[-2:] == [parse_card("8k"), parse_card("9k")]
    assert state.tactic_deck[-1] == parse_card("MF")
    hidden = state.hands[0] + state.hands[1] + state.clan_deck
    assert state.pool == sum(1 << c for c in hidden if c < NUM_CLAN)
    assert state.tactics_played == [0, 1]
