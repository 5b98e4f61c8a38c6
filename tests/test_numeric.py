"""The view as numbers (engine.numeric) agrees with the state it was seen from, and tells no more (R10)."""

from __future__ import annotations

from collections import Counter

import pytest

from schotten.bots.board import ME, NOBODY, THEM, Board
from schotten.engine import ACTIONS, GameState, Kind
from schotten.engine.cards import NUM_CLAN, RECRUITER, TACTIC_DECK
from schotten.engine.numeric import NumericView, clan_mask, legal_ids
from schotten.engine.view import view
from tests.randgame import ALL_SETTINGS, random_states

ALL_CLAN = (1 << NUM_CLAN) - 1


def _own_returns(state: GameState, seat: int) -> list[int]:
    """The cards ``seat`` put back with its Recruiter this round, from the state (R7.7)."""
    if RECRUITER not in state.discards[seat]:
        return []
    start = state.round_starts[-1]
    moves = list(zip(state.history[start:], state.movers[start:], strict=True))
    return [ACTIONS[a].card for a, who in moves if who == seat and ACTIONS[a].kind == Kind.RETURN]


def check(state: GameState, seat: int) -> None:
    numbers = NumericView.of(view(state, seat))
    assert numbers.seat == seat and numbers.phase == state.phase
    assert numbers.sides == tuple(tuple(tuple(side) for side in state.sides[s]) for s in (0, 1))
    assert numbers.modes == tuple(state.modes)
    assert numbers.capacity == tuple(state.capacity(s) for s in range(9))
    assert numbers.hand == tuple(sorted(state.hands[seat]))
    assert numbers.discards == (tuple(state.discards[0]), tuple(state.discards[1]))
    assert numbers.held == state.held
    assert [list(deck) for deck in numbers.under] == state.known_under(seat)
    board = [c for side in state.sides for stone in side for c in stone]
    in_sight = board + state.discards[0] + state.discards[1] + state.hands[seat] + [state.held]
    assert numbers.unseen == ALL_CLAN & ~clan_mask(c for c in in_sight if c >= 0)
    assert numbers.unseen == state.pool & ~clan_mask(state.hands[seat])
    if state.settings.tactics:
        hidden = Counter(c for c in state.hands[1 - seat] + state.tactic_deck if c >= NUM_CLAN)
        assert Counter(numbers.unseen_tactics) == hidden
    else:
        assert numbers.unseen_tactics == ()
    assert [card for _, card in numbers.returns[seat]] == _own_returns(state, seat)
    assert all(card == -1 for _, card in numbers.returns[1 - seat])
    assert [deck for deck, _ in numbers.returns[1 - seat]] == [
        0 if c < NUM_CLAN else 1 for c in _own_returns(state, 1 - seat)]
    mover = seat == state.turn and not state.is_over
    assert numbers.legal == (tuple(state.legal_action_ids()) if mover else ())


@pytest.mark.parametrize("game", ALL_SETTINGS, ids=lambda s: f"{s.variant}-{s.rounds}")
def test_the_numbers_of_a_view_are_the_states_as_far_as_the_seat_may_know(game: object) -> None:
    """R10.1, R10.2: the board, the piles, the own hand and returns; the rest only as unseen."""
    for seed in range(3):
        for state in random_states(game, seed):  # type: ignore[arg-type]
            for seat in (0, 1):
                check(state, seat)


def test_a_spectator_has_no_hand_and_no_legal_action() -> None:
    state = GameState.new(ALL_SETTINGS[1], 4)
    numbers = NumericView.of(view(state, None))
    assert numbers.seat is None and numbers.hand == () and numbers.legal == ()
    assert numbers.unseen == ALL_CLAN and Counter(numbers.unseen_tactics) == Counter(TACTIC_DECK)


def test_legal_ids_are_the_legal_actions() -> None:
    state = GameState.new(ALL_SETTINGS[1], 5)
    assert list(legal_ids(view(state, state.turn))) == state.legal_action_ids()


def test_the_bots_board_is_seat_relative() -> None:
    """R10: the bot's board puts its own side first and names owners ME, THEM or NOBODY."""
    for state in random_states(ALL_SETTINGS[1], 6):
        if any(o >= 0 for o in state.owner) and state.turn == 1 and not state.is_over:
            break
    board = Board.of(view(state, 1))
    assert board.sides[ME] == tuple(tuple(s) for s in state.sides[1])
    assert board.sides[THEM] == tuple(tuple(s) for s in state.sides[0])
    assert board.owner == tuple({-1: NOBODY, 1: ME, 0: THEM}[o] for o in state.owner)
    assert board.their_hand == (sum(c < NUM_CLAN for c in state.hands[0]),
                                sum(c >= NUM_CLAN for c in state.hands[0]))
