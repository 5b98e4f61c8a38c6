"""Determinization (R10): sampled states agree with the view, play on legally and ignore hidden cards."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from schotten.bots.sample import Sampler, determinize
from schotten.engine import GameState, Settings, format_position
from schotten.engine.cards import NUM_CLAN, parse_card
from schotten.engine.view import View, view
from tests.randgame import ALL_SETTINGS, choose, random_states, redeal_hidden


def public(seen: View) -> View:
    """The view without the move history, which a sampled state does not rebuild."""
    return dataclasses.replace(seen, history=(), movers=())


def sampled_positions(seeds: range, every: int = 3) -> list[tuple[GameState, int]]:
    """States of seeded random games in every variant, with the seat to look from."""
    found = []
    for settings in ALL_SETTINGS:
        for seed in seeds:
            for index, state in enumerate(random_states(settings, seed)):
                if state.is_over:
                    break
                if index % every == 0:
                    found.append((state.copy(), index % 2))
    return found


POSITIONS = sampled_positions(range(3))


def test_sample_shows_the_same_view() -> None:
    """Board, discards, counters, match, own hand, hand sizes, decks, under_*, legal actions agree."""
    rng = random.Random(1)
    for state, seat in POSITIONS:
        for looker in (seat, 1 - seat):
            seen = view(state, looker)
            sample = determinize(seen, rng)
            assert public(view(sample, looker)) == public(seen), format_position(state)
            assert sample.legal_action_ids() == state.legal_action_ids() or looker != state.turn


def test_sample_history_is_empty() -> None:
    """The sampled state starts a fresh history (documented): views differ there only."""
    state, seat = POSITIONS[40]
    sample = determinize(view(state, seat), random.Random(0))
    assert sample.history == [] and sample.movers == []
    assert view(state, seat).history


def test_sample_deals_only_unseen_cards() -> None:
    """The opponent's hand and the decks hold exactly the cards the view does not show (R1, R10)."""
    rng = random.Random(2)
    for state, seat in POSITIONS[::5]:
        sample = determinize(view(state, seat), rng)
        opp = 1 - seat
        truth = Counter(state.hands[opp] + state.clan_deck + state.tactic_deck)
        dealt = Counter(sample.hands[opp] + sample.clan_deck + sample.tactic_deck)
        assert dealt == truth
        assert Counter(sample.hands[seat]) == Counter(state.hands[seat])
        assert [len(d) for d in (sample.clan_deck, sample.tactic_deck)] == [
            len(d) for d in (state.clan_deck, state.tactic_deck)
        ]
        for tactic in (False, True):
            count = sum(1 for c in sample.hands[opp] if (c >= NUM_CLAN) == tactic)
            assert count == sum(1 for c in state.hands[opp] if (c >= NUM_CLAN) == tactic)


def test_own_recruiter_returns_keep_their_places() -> None:
    """R10.2: cards this seat put under a deck are where it put them in every sample."""
    checked = 0
    rng = random.Random(3)
    for seed in range(100):
        for state in random_states(Settings.of("tactics"), seed):
            seat = next((s for s in (0, 1) if any(state.known_under(s))), None)
            if state.is_over or seat is None:
                continue
            sample = determinize(view(state, seat), rng)
            assert sample.known_under(seat) == state.known_under(seat)
            checked += 1
        if checked >= 30:
            break
    assert checked >= 30


def _forced_cases(limit: int) -> list[tuple[GameState, int]]:
    cases = []
    for seed in range(200):
        for state in random_states(Settings.of("tactics"), seed):
            if state.is_over:
                break
            for seat in (0, 1):
                if Sampler(view(state, seat))._forced:
                    cases.append((state.copy(), seat))
                    break
            if len(cases) >= limit:
                return cases
    return cases


def test_returned_cards_drawn_unseen_are_in_the_opponents_hand() -> None:
    """A card this seat returned that left the deck and is nowhere in sight: the opponent holds it."""
    cases = _forced_cases(8)
    assert len(cases) >= 8
    rng = random.Random(4)
    for state, seat in cases:
        forced = Sampler(view(state, seat))._forced
        assert not Counter(forced) - Counter(state.hands[1 - seat])
        for _ in range(5):
            sample = determinize(view(state, seat), rng)
            assert not Counter(forced) - Counter(sample.hands[1 - seat])


@pytest.mark.parametrize("settings", ALL_SETTINGS, ids=lambda s: f"{s.variant}-{s.rounds}")
def test_sample_plays_on_legally_to_the_end(settings: Settings) -> None:
    """A sampled state is a real game: checked random moves take it to the end."""
    rng = random.Random(5)
    for seed in range(4):
        for index, state in enumerate(random_states(settings, seed)):
            if state.is_over or index % 7 != 3:
                continue
            sample = determinize(view(state, state.turn), rng)
            moves = 0
            while not sample.is_over:
                sample.apply(sample.legal_actions()[0] if moves % 5 == 0 else _random_action(sample, rng))
                moves += 1
            assert sample.outcome is not None


def _random_action(state: GameState, rng: random.Random) -> str:
    return str(state.legal_actions()[state.legal_action_ids().index(choose(state, rng))])


def test_sampling_never_reads_hidden_cards() -> None:
    """Two states that differ only in hidden cards give the very same samples for the same rng seed."""
    rng = random.Random(6)
    differing = 0
    for state, seat in POSITIONS[::2]:
        other = redeal_hidden(state, seat, rng)
        if other.hands[1 - seat] != state.hands[1 - seat] or other.clan_deck != state.clan_deck:
            differing += 1
        assert view(other, seat) == view(state, seat)
        for seed in range(2):
            a = determinize(view(state, seat), random.Random(seed))
            b = determinize(view(other, seat), random.Random(seed))
            assert format_position(a) == format_position(b)
    assert differing > 20


def test_samples_vary_and_cover_the_unseen_cards() -> None:
    """Each unseen clan card reaches the opponent's hand in some samples; seen cards never do."""
    state = next(s for s, _ in POSITIONS if s.settings.variant == "base" and len(s.history) >= 12)
    seat = state.turn
    seen = view(state, seat)
    sampler = Sampler(seen)
    rng = random.Random(7)
    in_hand: Counter[int] = Counter()
    for _ in range(400):
        in_hand.update(sampler.sample(rng).hands[1 - seat])
    unseen = set(state.hands[1 - seat] + state.clan_deck)
    assert set(in_hand) == unseen
    assert not set(in_hand) & {parse_card(c) for c in seen.hand or ()}
    share = len(state.hands[1 - seat]) / len(unseen)
    assert all(0.3 * share * 400 < n < 3 * share * 400 for n in in_hand.values())


def test_sampler_is_reproducible_and_refuses_spectators() -> None:
    """The same rng seed gives the same sample; a spectator's view cannot be determinized."""
    state, seat = POSITIONS[25]
    seen = view(state, seat)
    first = format_position(determinize(seen, random.Random(9)))
    assert format_position(determinize(seen, random.Random(9))) == first
    with pytest.raises(ValueError, match="spectator"):
        determinize(view(state, None), random.Random(0))
