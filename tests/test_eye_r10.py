"""R10 for the engine's eye and the game review (hypothesis): what the mover could not know never counts.

Random games of every variant are played by random moves from a drawn seed; a decision at or after
a drawn move number is taken, and the hidden cards (the opponent's hand, the decks' order) are dealt
anew as far as the mover's view allows (``tests.randgame.redeal_hidden``). The analysis of both
states must be the same, whole; a review's judgement of a decision must be the analysis of the
mover's view at that moment, whatever the hidden cards and whatever was played after it.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.bots.analysis import Analysis, analyse
from schotten.bots.eye import analysis, chances
from schotten.bots.review import Decision, judge, mark_of, review
from schotten.engine import GameState, Settings
from schotten.engine.cards import NUM_CLAN
from schotten.engine.record import record_of
from schotten.engine.view import view
from tests.randgame import ALL_SETTINGS, random_states, redeal_hidden

BUDGET = 24
"""A small analysis budget: these tests compare analyses, not their accuracy."""

GAMES = st.sampled_from(ALL_SETTINGS)
SEEDS = st.integers(0, 2**32 - 1)
LENGTHS = st.integers(0, 200)
EYE_SEEDS = st.integers(0, 99)

REDEALS = 50
"""Redeals tried for one that changes the opponent's cards (each fails with a chance of at most 1/2)."""


def _hidden(state: GameState, seat: int) -> bool:
    """Whether some card the opponent holds could as well lie in a deck, as far as ``seat`` knows."""
    for index, deck in enumerate((state.clan_deck, state.tactic_deck)):
        held = any((c >= NUM_CLAN) == (index == 1) for c in state.hands[1 - seat])
        if held and len(deck) > state.returned_by[index].count(seat):
            return True
    return False


def game_of(game: Settings, seed: int) -> list[GameState]:
    """Copies of every state of a seeded random game, the new game first."""
    return [state.copy() for state in random_states(game, seed)]


def moment(states: list[GameState], length: int) -> int:
    """The index of the first decision at or after move ``length`` where the mover has a choice and
    the opponent holds cards the mover cannot place (the game's last such decision if none is)."""
    found = [k for k, s in enumerate(states)
             if not s.is_over and len(s.legal_action_ids()) > 1 and _hidden(s, s.turn)]
    assert found, "a new game always has hidden cards"
    return next((k for k in found if k >= length), found[-1])


def redealt(state: GameState, seat: int, shuffle: int) -> GameState:
    """``state`` with the hidden cards dealt anew, the opponent holding other cards than before, and
    ``seat``'s view unchanged."""
    rng = random.Random(shuffle)
    opponent = 1 - seat
    for _ in range(REDEALS):
        other = redeal_hidden(state, seat, rng)
        if sorted(other.hands[opponent]) != sorted(state.hands[opponent]):
            assert view(other, seat) == view(state, seat)
            return other
    raise AssertionError("no redeal changed the opponent's hand")


def as_chances(found: Analysis) -> dict[str, Any]:
    """An analysis as ``eye.chances`` gives it (chances to three decimals)."""
    return {
        "win": [round(w, 3) for w in found.win],
        "best": [{"action": c.action, "win": round(c.win, 3)} for c in found.best],
        "chance": [[round(p, 3) for p in pair] for pair in found.stones],
    }


@settings(max_examples=30, deadline=None)
@given(game=GAMES, seed=SEEDS, length=LENGTHS, shuffle=SEEDS, eye_seed=EYE_SEEDS)
def test_hidden_cards_never_change_the_analysis(
    game: Settings, seed: int, length: int, shuffle: int, eye_seed: int
) -> None:
    """R10: a position and the same with the opponent's hand and the decks redealt get the same
    analysis, whole: the best moves and their values, each seat's and each stone's chances (from
    the view and from the state, ``eye.chances``, which is the analysis of the mover's view) and
    every stone's formations and claim proofs (``eye.analysis``)."""
    states = game_of(game, seed)
    state = states[moment(states, length)]
    seat = state.turn
    other = redealt(state, seat, shuffle)
    found = analyse(view(state, seat), BUDGET, eye_seed)
    assert analyse(view(other, seat), BUDGET, eye_seed) == found
    assert chances(state, BUDGET, eye_seed) == as_chances(found)
    assert chances(other, BUDGET, eye_seed) == as_chances(found)
    assert analysis(other) == analysis(state)


def expected(number: int, state: GameState, played: str, eye_seed: int) -> Decision:
    """The judgement of ``played`` at move ``number`` drawn from the analysis of the mover's view."""
    found = analyse(view(state, state.turn), BUDGET, eye_seed, also=(played,))
    best, after = found.best[0], found.win_of(played)
    assert after is not None
    mark = None if played == best.action else mark_of(best.win - after)
    return Decision(number, state.turn, played, best.action, best.win, after, mark)


@settings(max_examples=25, deadline=None)
@given(game=GAMES, seed=SEEDS, length=LENGTHS, shuffle=SEEDS, eye_seed=EYE_SEEDS)
def test_each_decision_is_judged_from_the_movers_view_at_that_moment(
    game: Settings, seed: int, length: int, shuffle: int, eye_seed: int
) -> None:
    """R10: the review of a decision is the analysis of the mover's view before it, the move played
    measured beside the best: the same whether the record stops after that move or goes on to the
    end, and the same with the hidden cards redealt."""
    states = game_of(game, seed)
    k = moment(states, length)
    state, number = states[k], k + 1
    played = record_of(states[-1])["actions"][k]
    judged = expected(number, state, played, eye_seed)
    for last in (states[number], states[-1]):
        assert review(record_of(last), BUDGET, eye_seed, only={number}) == [judged]
    other = redealt(state, state.turn, shuffle)
    assert judge(view(other, state.turn), played, number, BUDGET, eye_seed) == judged
