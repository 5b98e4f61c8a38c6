"""What clients are sent, built from parts kept between positions (``outbound.Told``).

A game's ``Told`` keeps what every client of one position is sent alike and each seat's log as
it was last encoded. Whatever came before (moves, undos, rounds ending, the end of the match),
the message it helps build must be exactly the message built from nothing: tested here on
whole random matches in every variant, with misclick undos along the way.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from itertools import pairwise

import pytest
from helpers_web import SEED

from schotten.engine import GameState, Settings
from schotten.web.core.vocab import Mode, Status
from schotten.web.games.gamelog import rebuilt, undo_span
from schotten.web.games.live import LiveGame
from schotten.web.games.outbound import Told, replay_steps, state_text
from schotten.web.storage.rows import GameInfo

SEATS = (0, 1, None)


def _info(variant: str, rounds: int) -> GameInfo:
    return GameInfo(id="told", variant=variant, rounds=rounds, seed=SEED, mode=Mode.FRIEND, level=None,
                    ai_seat=None, players=["Ann", "Bob"], token_hashes=[None, None], status=Status.PLAYING)


def _positions(variant: str, rounds: int, seed: int) -> list[GameState]:
    """Every position of a random match, with a misclick undo (back to the position before the
    seat's last card play) after about one card play in four."""
    rng = random.Random(seed)
    state = GameState.new(Settings.of(variant, rounds), seed)
    positions = [state]
    while not state.is_over:
        state = state.copy()
        state.apply_id(rng.choice(state.legal_action_ids()))
        positions.append(state)
        span = undo_span(state, state.turn)
        if isinstance(span, int) and rng.random() < 0.25:
            state = rebuilt(state, len(state.history) - span)
            positions.append(state)
    return positions


@pytest.mark.parametrize(("variant", "rounds"), [("base", 1), ("tactics", 2), ("expert", 1),
                                                 ("expert-base", 2)])
def test_a_kept_told_says_what_a_fresh_one_says(variant: str, rounds: int) -> None:
    """At every position of a match (undos and new rounds included), each seat's state message
    built with the parts kept from the positions before equals the message built from nothing,
    also for a seat that was not told every position (a client away while a move was taken back
    and another made)."""
    info = _info(variant, rounds)
    positions = _positions(variant, rounds, SEED + rounds)
    rng = random.Random(SEED)
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    kept = LiveGame(info, positions[0], 0, now=lambda: moment)
    assert isinstance(kept.told, Told)
    for version, state in enumerate(positions):
        kept.state, kept.version = state, version
        fresh = LiveGame(info, state, version, now=lambda: moment)
        for seat in SEATS:
            if seat is None or rng.random() < 0.5:
                told = json.loads(state_text(kept, seat))
                assert told == json.loads(state_text(fresh, seat)), (version, seat)
    assert positions[-1].is_over and json.loads(state_text(kept, None))["reveal"] is not None


def test_a_replay_step_names_the_card_a_ruse_puts_down() -> None:
    seen = 0
    for seed in range(40):
        state = GameState.new(Settings.of("tactics"), seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.apply_id(rng.choice(state.legal_action_ids()))
        steps = replay_steps(state)
        for before, step in pairwise(steps[1:]):
            if step["parts"]["kind"] == "place":
                assert before["parts"]["kind"] == "take"  # R7.6, R7.8: a taken card is put down
                assert step["parts"]["card"] == before["parts"]["card"]
                seen += 1
    assert seen
