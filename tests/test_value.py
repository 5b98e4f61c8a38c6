"""The learned value (bots/value.py): from the seat's view only (R10), the shipped weights load, and
``mcts-value`` plays legal moves to a game's end in every variant."""

from __future__ import annotations

import json
import random

import pytest

from schotten.bots import RandomBot, decide, make_bot
from schotten.bots.mcts import MctsBot
from schotten.bots.simple import Bot
from schotten.bots.training import fit, measure, play_game
from schotten.bots.value import NAMES, WEIGHTS_FILE, features, value, weights
from schotten.engine import GameState, Settings
from tests.randgame import random_states, redeal_hidden

VARIANTS = ("base", "tactics", "expert", "expert-base")


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_value_reads_only_the_view(variant: str) -> None:
    """Two states that differ only in the opponent's hand and the deck order get the same value (R10)."""
    rng = random.Random(5)
    checked = 0
    for seed in range(3):
        for index, state in enumerate(random_states(Settings.of(variant), seed)):
            if state.is_over or index % 3:
                continue
            for seat in (0, 1):
                other = redeal_hidden(state, seat, rng)
                if other.hands[1 - seat] != state.hands[1 - seat]:
                    checked += 1
                assert features(other, seat) == features(state, seat)
                assert value(other, seat) == value(state, seat)
    assert checked >= 20


def test_the_shipped_weights_load_and_give_a_chance() -> None:
    """The weights file is small, names the features the code computes, and values lie in [0, 1]."""
    assert WEIGHTS_FILE.stat().st_size < 8000
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert tuple(data["names"]) == NAMES
    coefs, _ = weights()
    assert len(coefs) == len(NAMES)
    for state in random_states(Settings.of("base"), 9):
        if not state.is_over:
            assert 0.0 <= value(state, 0) <= 1.0 and 0.0 <= value(state, 1) <= 1.0


def test_a_claimed_lead_is_worth_more() -> None:
    """The seat holding more claimed stones is valued above the other."""
    state = GameState.new(Settings(), 2)
    state.owner = [0, -1, 0, -1, 1, -1, 0, -1, -1]
    assert value(state, 0) > 0.5 > value(state, 1)


def test_training_fits_what_it_plays() -> None:
    """A few self-play games give positions from both seats, and the fit beats a constant on them."""
    samples = [s for seed in range(3) for s in play_game(seed)]
    assert samples and all(len(f) == len(NAMES) and y in (0.0, 0.5, 1.0) for f, y in samples)
    coefs, bias = fit(samples, steps=4)
    from schotten.bots.value import predict

    fitted = measure([predict(f, tuple(coefs), bias) for f, _ in samples], [y for _, y in samples])
    assert fitted["log_loss"] < 0.69


@pytest.mark.parametrize("variant", VARIANTS)
def test_mcts_value_plays_whole_games_legally(variant: str) -> None:
    """``mcts-value`` plays legal moves to the end of a two-round game, seated either side."""
    for seed in range(2):
        state = GameState.new(Settings.of(variant, rounds=2), seed)
        bot = make_bot("mcts-value", seed, iterations=12)
        assert isinstance(bot, MctsBot) and bot.cut is not None and bot.name == "mcts-value"
        bots: tuple[Bot, Bot] = (bot, RandomBot(seed)) if seed % 2 == 0 else (RandomBot(seed), bot)
        while not state.is_over:
            action = decide(bots[state.turn], state)
            assert action.id in state.legal_action_ids()
            state.apply(action)
        assert state.outcome is not None


def test_mcts_value_is_reproducible_and_blind() -> None:
    """The same seed and view give the same move, whatever the hidden cards are (R10)."""
    rng = random.Random(3)
    for index, state in enumerate(random_states(Settings.of("base"), 6)):
        if state.is_over or index % 6 or len(state.legal_action_ids()) < 2:
            continue
        other = redeal_hidden(state, state.turn, rng)
        assert decide(MctsBot(2, iterations=20, valued=True), other) == decide(
            MctsBot(2, iterations=20, valued=True), state
        )
