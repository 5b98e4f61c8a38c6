"""Why a seat may not claim a stone (engine.whynot): the claim proof from the seat's view only (R10).

The answer is the engine's own claim proof (R5), read from the view: it equals the proof read
from the whole state, and it is the same whatever the opponent holds and however the decks lie
(R10.3), since both hands and the decks count alike as unseen (R5.2).
"""

from __future__ import annotations

import random

from schotten.engine import GameState
from schotten.engine.cards import NUM_STONES
from schotten.engine.explain import claim_proof
from schotten.engine.view import view
from schotten.engine.whynot import SeenTable, why_not
from tests.randgame import ALL_SETTINGS, random_states, redeal_hidden
from tests.scenario import deal

SEEDS = range(6)


def asked(state: GameState, seat: int) -> list[int]:
    """The stones a seat may ask about: unclaimed, its side complete, not claimable by it now."""
    claimable = view(state, seat).claimable
    return [s for s in range(NUM_STONES)
            if state.owner[s] < 0 and state.is_complete(seat, s) and s not in claimable]


def test_the_answer_is_the_claim_proof_of_the_whole_state_in_random_games() -> None:
    """R5, R10: for every seat and position of random games of every variant, the stones answered
    are exactly those asked about, each with the proof ``claim_proof`` finds on the whole state,
    and the view's unseen cards are the state's pool."""
    answered = holding = 0
    for settings in ALL_SETTINGS:
        for seed in SEEDS:
            for state in random_states(settings, seed, claim=seed % 2 == 0):
                for seat in (0, 1):
                    seen = view(state, seat)
                    if not state.is_over:
                        assert SeenTable.of(seen).pool == state.pool
                    found = why_not(seen)
                    assert sorted(found) == ([] if state.is_over else asked(state, seat))
                    for stone, answer in found.items():
                        assert answer.proof == claim_proof(state, seat, stone)
                        assert (answer.wait is None) == (not answer.proof.holds)
                        holding += answer.proof.holds
                    answered += len(found)
    assert answered > 500 and holding > 20, (answered, holding)


def test_the_answer_is_the_same_whatever_the_opponent_holds() -> None:
    """R10.1-R10.3: the opponent's hand and the decks dealt anew from the same cards (the seat cannot
    tell the two games apart) give the same answers, word for word."""
    rng = random.Random(5)
    compared = 0
    for settings in ALL_SETTINGS:
        for seed in SEEDS:
            for state in random_states(settings, seed, claim=False):
                if state.is_over or len(state.history) % 7:
                    continue
                for seat in (0, 1):
                    other = redeal_hidden(state, seat, rng)
                    assert view(other, seat) == view(state, seat)
                    mine = {s: a.to_dict() for s, a in why_not(view(state, seat)).items()}
                    assert mine == {s: a.to_dict() for s, a in why_not(view(other, seat)).items()}
                    compared += bool(mine) and other.hands[1 - seat] != state.hands[1 - seat]
    assert compared > 50, compared


def test_their_side_can_still_make_a_colour_run() -> None:
    """R5.2: green 5 alone against three 8s: green 6 and green 7 are not on the table, so the stone
    may not be claimed, and the answer names them (the seat's own hand counts as unseen)."""
    state = deal("base", hands=("6g 2r 3r 4b 1y 2y", "1b 2b 3b 1p 2p 3p"),
                 board=({5: "8r 8b 8y"}, {5: "5g"}))
    answer = why_not(view(state, 0))[4]
    assert answer.text == ("their side can still make colour-run green 5-6-7, which beats your three "
                           "of a kind 8-8-8: green 6 and green 7 are not visible yet (R5.2)")
    data = answer.to_dict()
    told = (data["kind"], data["needed"], data["tie"], data["wait"])
    assert told == ("can_lose", ["6g", "7g"], False, None)
    assert data["theirs"]["cards"] == ["5g", "6g", "7g"]
    assert why_not(view(state, 1)) == {} and why_not(view(state, None)) == {}


def test_a_claim_that_holds_waits_for_the_claim_step() -> None:
    """R3.3 (R8.1 in the expert variant): a stone the seat could claim, asked about before its claim
    step, is answered with the rule of the step and the proof."""
    for variant, rule in (("base", "R3.3"), ("expert-base", "R8.1")):
        state = deal(variant, hands=("1r 2r 3r 4b 1y 2y", "1b 2b 3b 1p 2p 3p"),
                     board=({2: "9r 9b 9y"}, {2: "1g 2g 4p"}), first=1)
        answer = why_not(view(state, 0))[1]
        assert answer.wait == rule and answer.proof.kind == "beats"
        assert answer.text == (f"you may claim stone 2 in your next claim step ({rule}): your three of a "
                               "kind 9-9-9 beats their total 7 (1-2-4) (R5.1)")


def test_a_tie_lost_to_the_side_completed_first_says_so() -> None:
    """R4.6: equal formations, the other side completed first: ``tie`` is set for the page's words."""
    state = deal("base", hands=("1r 2r 3r 4b 1y 2y", "1b 2b 3b 1p 2p 3p"),
                 board=({4: "7r 8r 9r"}, {4: "7b 8b 9b"}), first=0)
    first = why_not(view(state, 0))[3]
    assert first.proof.kind == "ties_first" and first.wait == "R3.3" and first.to_dict()["tie"] is True
    answer = why_not(view(state, 1))[3]
    assert answer.proof.kind == "loses" and answer.to_dict()["tie"] is True
    assert answer.text.endswith("but they completed first (R4.6)")
