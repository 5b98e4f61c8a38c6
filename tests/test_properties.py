"""Properties of random games in every variant (hypothesis): invariants checked after every move."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schotten.engine import (
    ACTIONS,
    NUM_ACTIONS,
    GameState,
    IllegalActionError,
    NotationError,
    Phase,
    Reason,
    Settings,
    parse_action,
)
from schotten.engine.actions import PASS_ID, Kind
from schotten.engine.cards import (
    BLUFF,
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CLAN,
    NUM_STONES,
    TACTIC_DECK,
)

from .randgame import ALL_SETTINGS, MAX_MOVES_PER_ROUND, random_game, random_states

GAMES = st.sampled_from(ALL_SETTINGS)
SEEDS = st.integers(0, 2**32 - 1)
CLAIM = st.sampled_from((True, True, False))
"""Mostly games where every provable claim is taken; some where nobody claims (settled by R6.2)."""
MAIN_KINDS = (Kind.PLAY, Kind.PASS, Kind.RUSE)


def every_card(state: GameState) -> Counter[int]:
    """Each card wherever it lies: hands, sides, combat modes on stones, decks, discards, held card."""
    found: Counter[int] = Counter()
    for seat in (0, 1):
        found.update(state.hands[seat])
        found.update(state.discards[seat])
        for side in state.sides[seat]:
            found.update(side)
    for mode_bit, card in ((MODE_BLUFF, BLUFF), (MODE_MUD, MUD)):
        found[card] += sum(1 for m in state.modes if m & mode_bit)
    found.update(state.clan_deck)
    found.update(state.tactic_deck)
    if state.held >= 0:
        found[state.held] += 1
    return found


def check_cards(state: GameState) -> None:
    """R1.1, R1.2: all 54 clan cards and (with tactics) the 10 tactic cards, each exactly once."""
    expected = Counter(range(NUM_CLAN))
    if state.settings.tactics:
        expected.update(TACTIC_DECK)
    assert every_card(state) == expected
    on_board = {c for side in state.sides for stone in side for c in stone if c < NUM_CLAN}
    discarded = {c for pile in state.discards for c in pile if c < NUM_CLAN}
    if state.held >= 0 and state.held < NUM_CLAN:
        on_board.add(state.held)
    unseen = set(range(NUM_CLAN)) - on_board - discarded
    assert state.pool == sum(1 << c for c in unseen), "R5.2: the unseen clan cards"


def check_table(state: GameState) -> None:
    """R3.1/R7.5 capacity, R7.2 tactic count, R7.3 one Joker per side of the border."""
    for seat in (0, 1):
        for stone in range(NUM_STONES):
            assert len(state.sides[seat][stone]) <= (4 if state.modes[stone] & MODE_MUD else 3)
        assert sum(side.count(JOKER) for side in state.sides[seat]) <= 1
    assert abs(state.tactics_played[0] - state.tactics_played[1]) <= 1


def can_play_something(state: GameState) -> bool:
    """R3.2 told apart from the engine: a clan card or an elite troop has a stone with room."""
    seat = state.turn
    rooms = [
        s for s in range(NUM_STONES) if state.owner[s] < 0 and len(state.sides[seat][s]) < state.capacity(s)
    ]
    hand = state.hands[seat]
    if rooms and any(c < NUM_CLAN for c in hand):
        return True
    may_tactic = state.tactics_played[seat] <= state.tactics_played[1 - seat]
    joker_out = any(JOKER in side for side in state.sides[seat])
    troops = [c for c in hand if NUM_CLAN <= c < BLUFF and not (c == JOKER and joker_out)]
    return bool(may_tactic and rooms and troops)


def check_legal(state: GameState, rng: random.Random) -> None:
    """Legal ids are distinct and round-trip through notation; pass only when nothing else (R3.2)."""
    ids = state.legal_action_ids()
    assert len(ids) == len(set(ids))
    if state.is_over:
        assert ids == []
        return
    assert ids
    for i in ids:
        assert parse_action(str(ACTIONS[i])).id == i
        assert ACTIONS[i].id == i
    if PASS_ID in ids:
        assert ids == [PASS_ID]
        assert not can_play_something(state)
    elif state.phase == Phase.PLAY:
        assert any(ACTIONS[i].kind in (Kind.PLAY, Kind.RUSE) for i in ids)


def snapshot(state: GameState) -> dict[str, object]:
    """A deep copy of every field of the state (the claim-proof memo ``_refuted`` aside)."""
    return {name: copy.deepcopy(getattr(state, name)) for name in GameState.__slots__ if name != "_refuted"}


def check_refusals(state: GameState, rng: random.Random) -> None:
    """Illegal actions raise IllegalActionError, bad text NotationError; the state is unchanged."""
    legal = set(state.legal_action_ids())
    before = snapshot(state)
    illegal = [i for i in rng.sample(range(NUM_ACTIONS), 12) if i not in legal][:3]
    for i in illegal:
        with pytest.raises(IllegalActionError):
            state.apply(ACTIONS[i])
        with pytest.raises(IllegalActionError):
            state.apply(str(ACTIONS[i]))
    with pytest.raises(NotationError):
        state.apply("8z@10")
    assert snapshot(state) == before


def check_game(game: Settings, seed: int, claim: bool) -> GameState:
    """Play a random game checking every per-move property; return the final state."""
    rng = random.Random(seed ^ 0x5EED)
    owners: list[int] = []
    round_index = -1
    moves = 0
    for state in random_states(game, seed, claim=claim):
        moves += 1
        check_cards(state)
        check_table(state)
        check_legal(state, rng)
        if rng.random() < 0.25:
            check_refusals(state, rng)
        if state.round == round_index:
            assert all(o < 0 or o == state.owner[s] for s, o in enumerate(owners)), "R5.3"
        round_index, owners = state.round, state.owner[:]
    assert state.is_over
    assert moves <= MAX_MOVES_PER_ROUND * game.rounds
    return state


@settings(max_examples=150, deadline=None)
@given(game=GAMES, seed=SEEDS, claim=CLAIM)
def test_invariants_after_every_move(game: Settings, seed: int, claim: bool) -> None:
    """Cards, capacities, tactic and Joker limits, claims, legal actions and refusals, move by move."""
    check_game(game, seed, claim)


def check_scores(state: GameState) -> None:
    """R6.1, R9.2, R9.3: each round's points and reason, the totals and the match winner."""
    assert state.outcome is not None
    totals = [0, 0]
    wins = [0, 0]
    for out in state.round_outcomes:
        counts = [sum(1 for s in out.stones if s == seat) for seat in (0, 1)]
        points = list(counts)
        if out.winner is not None:
            points[out.winner] = 5
            wins[out.winner] += 1
            owned = [s == out.winner for s in out.stones]
            adjacent = any(all(owned[s : s + 3]) for s in range(NUM_STONES - 2))
            if out.reason == Reason.ADJACENT:
                assert adjacent
            elif out.reason == Reason.FIVE:
                assert sum(owned) >= 5
            else:
                assert out.reason == Reason.MORE_STONES and counts[out.winner] > counts[1 - out.winner]
        else:
            assert out.reason == Reason.EQUAL_STONES and counts[0] == counts[1]
        assert list(out.points) == points
        totals = [totals[0] + points[0], totals[1] + points[1]]
    assert len(state.round_outcomes) == state.settings.rounds
    assert list(state.scores) == totals == list(state.outcome.scores)
    assert list(state.rounds_won) == wins
    ranking = [(totals[seat], wins[seat]) for seat in (0, 1)]
    expected = None if ranking[0] == ranking[1] else (0 if ranking[0] > ranking[1] else 1)
    assert state.outcome.winner == expected
    assert state.outcome.rounds == tuple(state.round_outcomes)


def check_claim_timing(game: Settings, seed: int, claim: bool, history: list[int]) -> None:
    """R8.1: in expert games claims come first in a turn; otherwise after the card (R3.3)."""
    made = [(state.round, state.turn) for state in random_states(game, seed, claim=claim)]
    for i, a in enumerate(history):
        if ACTIONS[a].kind != Kind.CLAIM:
            continue
        start = i
        while start > 0 and made[start - 1] == made[i]:
            start -= 1
        kinds = [ACTIONS[b].kind for b in history[start:i]]
        if game.expert:
            assert all(k == Kind.CLAIM for k in kinds), "R8.1: claims only before playing"
        else:
            assert any(k in MAIN_KINDS for k in kinds), "R3.3: claims after playing"


def replay_checked(game: Settings, seed: int, history: list[int]) -> GameState:
    """The game replayed from (settings, seed, moves) through the checked ``apply`` (R2.4)."""
    state = GameState.new(game, seed)
    for a in history:
        state.apply(ACTIONS[a])
    return state


@settings(max_examples=150, deadline=None)
@given(game=GAMES, seed=SEEDS, claim=CLAIM)
def test_replay_scores_and_claim_timing(game: Settings, seed: int, claim: bool) -> None:
    """R2.4 replay through checked apply, R9.2 scores, R8.1 claim timing."""
    final = random_game(game, seed, claim=claim)
    assert final.is_over
    again = replay_checked(game, seed, final.history)
    assert snapshot(again) == snapshot(final)
    assert again.outcome == final.outcome
    check_scores(final)
    check_claim_timing(game, seed, claim, final.history)


@pytest.mark.parametrize(
    "game", [Settings.of("base"), Settings.of("expert-base")], ids=["base", "expert-base"]
)
def test_no_tactic_card_in_base_games(game: Settings) -> None:
    """R2.1: without tactics, no tactic card is ever dealt or offered."""
    for seed in range(5):
        for state in random_states(game, seed):
            assert not state.tactic_deck and all(c < NUM_CLAN for h in state.hands for c in h)
            assert all(
                ACTIONS[i].card < NUM_CLAN for i in state.legal_action_ids() if ACTIONS[i].kind == Kind.PLAY
            )
