"""The simple bots: they play only legal actions, read only their view (R10), and greedy beats random."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.bots import GreedyBot, RandomBot, decide, make_bot
from schotten.bots.simple import Bot
from schotten.engine import GameState, Kind, Phase, Settings
from schotten.engine.view import view
from tests.randgame import redeal_hidden

VARIANTS = ("base", "tactics", "expert", "expert-base")


def play_out(state: GameState, bots: tuple[Bot, Bot]) -> GameState:
    """Play to the end, checking that every chosen action is legal."""
    while not state.is_over:
        action = decide(bots[state.turn], state)
        assert action.id in state.legal_action_ids(), f"{bots[state.turn].name} chose illegal {action}"
        state.apply(action)
    return state


@settings(max_examples=12, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 10_000),
    pair=st.sampled_from([("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")]),
)
def test_bots_only_play_legal_actions(variant: str, seed: int, pair: tuple[str, str]) -> None:
    """Whole games in every variant, ruses included (R7), end with only legal choices."""
    state = GameState.new(Settings.of(variant, rounds=2), seed)
    play_out(state, (make_bot(pair[0], seed), make_bot(pair[1], seed + 1)))
    assert state.outcome is not None


def test_greedy_beats_random_clearly() -> None:
    """Over 100 seeded base games, seats alternating, greedy wins well over 60%."""
    wins = 0
    for seed in range(100):
        greedy = seed % 2
        bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
        bots[greedy] = GreedyBot(seed)
        state = play_out(GameState.new(Settings.of("base"), seed), (bots[0], bots[1]))
        assert state.outcome is not None
        wins += state.outcome.winner == greedy
    assert wins > 60


def test_greedy_beats_random_with_tactics() -> None:
    """With tactic cards (R7) too, over 30 seeded games."""
    wins = 0
    for seed in range(30):
        greedy = seed % 2
        bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
        bots[greedy] = GreedyBot(seed)
        state = play_out(GameState.new(Settings.of("tactics"), seed), (bots[0], bots[1]))
        assert state.outcome is not None
        wins += state.outcome.winner == greedy
    assert wins > 18


@pytest.mark.parametrize("variant", ["base", "tactics"])
def test_bots_choose_from_the_view_only(variant: str) -> None:
    """R10: dealing the unseen cards differently, with the same view, gives the same choice."""
    rng = random.Random(5)
    checked = 0
    for seed in range(4):
        state = GameState.new(Settings.of(variant), seed)
        players = (GreedyBot(seed), RandomBot(seed))
        while not state.is_over:
            seat = state.turn
            other = redeal_hidden(state, seat, rng)
            if other.hands[1 - seat] != state.hands[1 - seat] or other.clan_deck != state.clan_deck:
                assert view(other, seat) == view(state, seat)
                for name in ("greedy", "random"):
                    assert decide(make_bot(name, seed), other) == decide(make_bot(name, seed), state)
                checked += 1
            state.apply(decide(players[seat], state))
    assert checked > 50


def test_bots_take_every_claim() -> None:
    """R5.4: in the claim step both bots claim rather than say done."""
    seen_claim_step = 0
    for seed in range(10):
        state = GameState.new(Settings.of("base"), seed)
        bots = (GreedyBot(seed), RandomBot(seed))
        while not state.is_over:
            action = decide(bots[state.turn], state)
            if state.phase == Phase.CLAIM:
                seen_claim_step += 1
                assert action.kind == Kind.CLAIM
            state.apply(action)
    assert seen_claim_step > 0


def test_make_bot_names() -> None:
    """The built-in bots by name; an unknown name is refused with the choices."""
    assert make_bot("greedy", 1).name == "greedy"
    assert make_bot("random", 1).name == "random"
    with pytest.raises(ValueError, match="greedy"):
        make_bot("clever", 1)


def test_random_bot_is_reproducible() -> None:
    """The same seed gives the same game (R2.4)."""
    games = []
    for _ in range(2):
        state = GameState.new(Settings.of("tactics"), 11)
        games.append(play_out(state, (RandomBot(3), RandomBot(4))).history)
    assert games[0] == games[1]
