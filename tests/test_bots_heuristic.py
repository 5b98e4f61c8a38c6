"""The heuristic bot: legal, reproducible, blind to hidden cards (R10), sensible in set positions, strong.

Scenario positions are dealt with ``tests.scenario.deal``; seat 0 (the bot) moves first.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.bots import RandomBot, decide, make_bot
from schotten.bots.heuristic import HeuristicBot, round_chance, win_sensitivity
from schotten.bots.simple import Bot
from schotten.engine import Action, GameState, Kind, Phase, Settings
from schotten.engine.cards import NUM_CLAN
from schotten.engine.view import view
from tests.randgame import redeal_hidden
from tests.scenario import deal

VARIANTS = ("base", "tactics", "expert", "expert-base")


def play_out(state: GameState, bots: tuple[Bot, Bot]) -> GameState:
    """Play to the end, checking that every chosen action is legal."""
    while not state.is_over:
        action = decide(bots[state.turn], state)
        assert action.id in state.legal_action_ids(), f"{bots[state.turn].name} chose illegal {action}"
        state.apply(action)
    return state


def choice(state: GameState, seed: int = 0) -> str:
    """The heuristic bot's choice for the seat to move, in notation."""
    return str(decide(HeuristicBot(seed), state))


# ---------------------------------------------------------------- whole games


@settings(max_examples=10, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 10_000),
    opponent=st.sampled_from(["random", "greedy", "heuristic"]),
)
def test_plays_only_legal_actions(variant: str, seed: int, opponent: str) -> None:
    """Whole games in every variant, ruses and combat modes included (R7, R8), end with legal choices."""
    state = GameState.new(Settings.of(variant, rounds=2), seed)
    bots: tuple[Bot, Bot] = (HeuristicBot(seed), make_bot(opponent, seed + 1))
    if seed % 2:
        bots = bots[::-1]
    play_out(state, bots)
    assert state.outcome is not None


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_same_seed_same_game(variant: str) -> None:
    """Deterministic for a seed: the same game twice gives the same moves."""
    games = []
    for _ in range(2):
        state = GameState.new(Settings.of(variant), 21)
        games.append(play_out(state, (HeuristicBot(3), RandomBot(4))).history)
    assert games[0] == games[1]


def test_registry_builds_it() -> None:
    """``make_bot("heuristic")`` and the medium level give this bot."""
    assert isinstance(make_bot("heuristic", 1), HeuristicBot)
    assert make_bot("medium", 1).name == "heuristic"


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_decides_from_the_view_only(variant: str) -> None:
    """R10: with the unseen cards dealt differently and the same view, the choice is the same."""
    rng = random.Random(8)
    checked = 0
    for seed in range(2):
        state = GameState.new(Settings.of(variant), seed)
        players: tuple[Bot, Bot] = (HeuristicBot(seed), RandomBot(seed))
        while not state.is_over:
            seat = state.turn
            if seat == 0:
                other = redeal_hidden(state, seat, rng)
                if other.hands[1] != state.hands[1] or other.clan_deck != state.clan_deck:
                    assert view(other, seat) == view(state, seat)
                    assert choice(other, seed) == choice(state, seed)
                    checked += 1
            state.apply(decide(players[seat], state))
    assert checked > 20


@pytest.mark.parametrize("variant", ["base", "expert-base"])
def test_takes_every_claim(variant: str) -> None:
    """R5.4, R8.1: in a claim step the bot claims while it can, never ending the step early."""
    claim_steps = 0
    for seed in range(6):
        state = GameState.new(Settings.of(variant), seed)
        bots: tuple[Bot, Bot] = (HeuristicBot(seed), RandomBot(seed))
        while not state.is_over:
            action = decide(bots[state.turn], state)
            if state.turn == 0 and state.phase == Phase.CLAIM:
                claim_steps += 1
                assert action.kind == Kind.CLAIM
            state.apply(action)
    assert claim_steps > 0


def test_beats_random_clearly() -> None:
    """Over 60 seeded base games, seats alternating, the bot wins at least 85%."""
    wins = 0
    for seed in range(60):
        seat = seed % 2
        bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
        bots[seat] = HeuristicBot(seed)
        state = play_out(GameState.new(Settings.of("base"), seed), (bots[0], bots[1]))
        assert state.outcome is not None
        wins += state.outcome.winner == seat
    assert wins >= 51


# ---------------------------------------------------------------- sense in set positions


def test_completes_a_colour_run() -> None:
    """With 7r 8r on a stone and 9r in hand, it completes the colour-run (R4.1), a provable win (R5.2)."""
    state = deal("base", hands=("9r 1g 2b 3y 4p 2k", "1b 2g 3p 4y 5b 6g"), board=({1: "7r 8r"}, {1: "9g 9b"}))
    assert choice(state) == "9r@1"
    state.apply("9r@1")
    assert state.claimable == [0]


def test_does_not_hand_the_opponent_a_stone() -> None:
    """It does not complete a side that loses to the opponent's complete side while other plays exist."""
    board = ({1: "6k 7k"}, {1: "5g 5b 5r"})
    state = deal("base", hands=("2y 1g 3b 4p 9r 2g", "1b 2p 3p 4y 5y 6g"), board=board)
    assert Action.parse(choice(state)).stone != 0
    for seed in range(5):
        assert not choice(state, seed).endswith("@1")


def test_keeps_the_winning_card_for_the_stone() -> None:
    """The card that beats the opponent's complete side (5k: colour-run 5-6-7 over three 5s) goes there."""
    board = ({1: "6k 7k"}, {1: "5g 5b 5r"})
    state = deal("base", hands=("2y 1g 3b 4p 5k 2g", "1b 2p 3p 4y 5y 6g"), board=board)
    assert choice(state) == "5k@1"


def test_blocks_the_opponents_colour_run_when_it_costs_nothing() -> None:
    """Of two cards that complete the same three 7s, it plays 7b, the card the opponent's 8b 9b needs."""
    state = deal(
        "base",
        hands=("7b 7y 1g 2p 3k 4r", "1b 2y 3p 4y 5y 6g"),
        board=({5: "7g 7r"}, {5: "1k 2g", 3: "8b 9b"}),
    )
    assert choice(state) == "7b@5"


def test_uses_a_joker_to_win_a_stone() -> None:
    """R7.3: with 8r 9r against three 6s and the 7r out of reach, the Joker makes the winning colour-run."""
    state = deal(
        "tactics",
        hands=("JO 1g 2b 3y 4p 2k 3g", "1b 2p 3p 4y 5y 6k 6r"),
        board=({4: "8r 9r"}, {4: "6g 6b 6y", 2: "7r"}),
    )
    assert choice(state) == "JO@4"
    state.apply("JO@4")
    assert state.claimable == [3]


def test_keeps_the_joker_without_a_good_use() -> None:
    """R7.2: on an open board with an ordinary hand it plays a clan card and keeps its Joker."""
    state = deal("tactics", hands=("JO 8g 9g 5b 3y 4p 2k", "1b 2p 3p 4y 5y 6k 6r"))
    assert Action.parse(choice(state)).card < NUM_CLAN


def test_banshee_breaks_a_winning_formation() -> None:
    """R7.9: against a colour-run beating its complete side, it banishes a card and can then claim (R5.2)."""
    state = deal(
        "tactics",
        hands=("BA 1g 2b 3y 4p 2k 3g", "1b 2p 3p 4y 5y 6k 6r"),
        board=({5: "4g 5g 6g"}, {5: "7y 8y 9y"}),
    )
    assert choice(state) == "BA"
    state.apply("BA")
    assert choice(state) in {"banish 7y@5", "banish 8y@5"}
    state.apply(choice(state))
    assert state.claimable == [4]


def test_recruiter_returns_weak_cards() -> None:
    """R7.7: after the Recruiter's draws it puts back cards its formations do not need."""
    state = deal(
        "tactics",
        hands=("RE 8r 1g 2b 3y 2k 3p", "1b 2p 5p 4y 5y 6k 6r"),
        board=({1: "7r 9r"}, {}),
        clan_deck="4p 1y 2y",
        tactic_deck="SH",
    )
    state.apply("RE")
    while state.phase == Phase.RECRUIT_DRAW:
        state.apply("draw clan")
    returned = []
    while state.phase == Phase.RECRUIT_RETURN:
        action = choice(state)
        returned.append(action)
        state.apply(action)
    assert len(returned) == 2
    assert "return 8r" not in returned


def test_draw_share_is_a_setting_that_changes_choices() -> None:
    """Counting on more of its draws (the search's anchor) changes some choices, all of them legal."""
    differ = 0
    for seed in range(4):
        state = GameState.new(Settings.of("base"), seed)
        bots = (HeuristicBot(seed, draw_share=0.9), HeuristicBot(seed))
        while not state.is_over:
            seen = view(state, state.turn)
            tuned, default = HeuristicBot(0, draw_share=0.9).choose(seen), HeuristicBot(0).choose(seen)
            assert tuned.id in state.legal_action_ids()
            differ += tuned != default
            state.apply(decide(bots[state.turn], state))
    assert differ > 0


# ---------------------------------------------------------------- exact stone weights


def _round_chance(chances: list[float]) -> float:
    """The bot's chance of winning the round (R6.1) with stones won independently, by enumeration."""
    total = 0.0
    for outcome in range(1 << 9):
        mine = [outcome >> s & 1 == 1 for s in range(9)]
        chance = 1.0
        for won, p in zip(mine, chances, strict=True):
            chance *= p if won else 1 - p
        triples = [mine[i : i + 3] for i in range(7)]
        my_three, their_three = any(all(t) for t in triples), any(not any(t) for t in triples)
        if my_three and their_three:
            total += chance / 2
        elif my_three or their_three:
            total += chance * my_three
        else:
            total += chance * (sum(mine) >= 5)
    return total


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.8, 1.0]), min_size=9, max_size=9))
def test_win_sensitivity_is_the_swing_of_each_stone(chances: list[float]) -> None:
    """R6.1: a stone's weight is the round's chance with the stone won less with it lost."""
    found = win_sensitivity(chances)
    for stone in range(9):
        won = _round_chance([*chances[:stone], 1.0, *chances[stone + 1 :]])
        lost = _round_chance([*chances[:stone], 0.0, *chances[stone + 1 :]])
        assert found[stone] == pytest.approx(won - lost, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=9, max_size=9))
def test_round_chance_is_the_enumerated_chance(chances: list[float]) -> None:
    """R6.1: the round's chance combines the stones' chances as enumerating every outcome does."""
    assert round_chance(chances) == pytest.approx(_round_chance(chances), abs=1e-9)


def test_round_chance_of_certain_stones() -> None:
    """R6.1: three adjacent stones win, five scattered ones too, and both sides holding three
    adjacent stones counts half."""
    assert round_chance([1.0] * 9) == 1.0 and round_chance([0.0] * 9) == 0.0
    assert round_chance([1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]) == 1.0
    assert round_chance([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]) == 1.0
    assert round_chance([1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0]) == 0.5
    assert round_chance([0.5] * 9) == pytest.approx(0.5)


def test_win_sensitivity_of_decided_rounds_and_key_stones() -> None:
    """R6.1: no open stone matters once the round is won (stones 1-3, 5 and 8); the stone that
    completes a triple of two won ones matters most."""
    weights = win_sensitivity([1.0, 1.0, 1.0, 0.5, 1.0, 0.5, 0.5, 1.0, 0.5])
    assert [weights[s] for s in (3, 5, 6, 8)] == pytest.approx([0.0] * 4)
    weights = win_sensitivity([1.0, 1.0] + [0.5] * 7)
    assert max(range(9), key=weights.__getitem__) == 2


def test_exact_weights_change_some_choices_and_stay_legal() -> None:
    """The anchor's exact stone weights change some choices of the heuristic, all of them legal."""
    differ = 0
    for seed in range(3):
        state = GameState.new(Settings.of("tactics"), seed)
        while not state.is_over:
            seen = view(state, state.turn)
            exact = HeuristicBot(0, exact_weights=True).choose(seen)
            assert exact.id in state.legal_action_ids()
            differ += exact != HeuristicBot(0).choose(seen)
            state.apply(exact)
    assert differ > 0
