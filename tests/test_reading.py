"""Reading the opponent (bots/reading.py): weights from public plays only (R10), and they carry signal."""

from __future__ import annotations

import random
from collections.abc import Iterator

from schotten.bots.heuristic import HeuristicBot
from schotten.bots.mcts import MctsBot
from schotten.bots.reading import Reader
from schotten.bots.registry import make_bot
from schotten.bots.sample import Sampler
from schotten.engine import GameState, Phase, Settings
from schotten.engine.view import view
from tests.randgame import redeal_hidden


def heuristic_positions(settings: Settings, seeds: range, at: tuple[int, ...]) -> Iterator[GameState]:
    """States of heuristic-against-heuristic games after ``at`` moves, in a play step."""
    for seed in seeds:
        state = GameState.new(settings, seed)
        bots = [HeuristicBot(seed), HeuristicBot(seed + 1000)]
        for index in range(max(at) + 1):
            if state.phase == Phase.OVER:
                break
            if index in at and state.phase == Phase.PLAY:
                yield state.copy()
            state.apply_id(bots[state.turn].choose(view(state, state.turn)).id)


def reader_of(state: GameState) -> tuple[Reader, Sampler]:
    """The reader and the sampler of the seat to move."""
    seen = view(state, state.turn)
    sampler = Sampler(seen)
    return Reader(seen, sampler.template), sampler


def test_the_weights_do_not_depend_on_hidden_cards() -> None:
    """Two states that differ only in the opponent's hand and deck order weigh every deal alike (R10)."""
    rng = random.Random(4)
    checked = 0
    for state in heuristic_positions(Settings(), range(6), (12, 20, 28)):
        reader, sampler = reader_of(state)
        other, _ = reader_of(redeal_hidden(state, state.turn, rng))
        assert reader.active and other.active
        for _ in range(5):
            hand = sampler.sample(rng).hands[1 - state.turn]
            seed = rng.random()
            assert reader.log_weight(hand, random.Random(seed)) == other.log_weight(hand, random.Random(seed))
        checked += 1
    assert checked >= 12


def test_the_real_hand_weighs_more_than_a_uniform_deal() -> None:
    """Against the heuristic bot, the hand it really holds ranks above most uniform deals of the same cards.

    Measured: the real hand lies at the 60th percentile on average (82 positions); a reader
    that read nothing would give 50%.
    """
    percentiles: list[float] = []
    for state in heuristic_positions(Settings(), range(30), (14, 22, 30)):
        reader, sampler = reader_of(state)
        rng = random.Random(len(percentiles))
        real = reader.log_weight(list(state.hands[1 - state.turn]), rng)
        dealt = [reader.log_weight(sampler.sample(rng).hands[1 - state.turn], rng) for _ in range(100)]
        percentiles.append(sum(w < real for w in dealt) / len(dealt))
    assert len(percentiles) >= 60
    assert sum(percentiles) / len(percentiles) > 0.55


def test_reading_is_off_with_tactic_cards() -> None:
    """With tactic cards the past boards cannot be rebuilt from the history: every deal weighs the same."""
    for state in heuristic_positions(Settings(tactics=True), range(3), (10, 20)):
        reader, sampler = reader_of(state)
        assert not reader.active
        hand = sampler.sample(random.Random(1)).hands[1 - state.turn]
        assert reader.log_weight(hand, random.Random(2)) == 0.0


def test_reading_is_off_before_the_opponent_has_played() -> None:
    """The first decision of a round has nothing to read."""
    state = GameState.new(Settings(), 3)
    reader, _ = reader_of(state)
    assert not reader.active


def test_mcts_read_plays_legal_reproducible_moves() -> None:
    """``mcts-read`` is a search bot like ``mcts``: legal moves, the same move for the same seed and view."""
    bot = make_bot("mcts-read", 7, iterations=30)
    assert isinstance(bot, MctsBot) and bot.read and bot.name == "mcts-read"
    for state in heuristic_positions(Settings(), range(2), (9, 17)):
        seen = view(state, state.turn)
        action = bot.choose(seen)
        assert action.id in state.legal_action_ids()
        assert MctsBot(7, iterations=30, read=True).choose(seen) == action
