"""Seeded random games for tests: uniformly random legal moves, every provable claim taken.

``random_game(settings, seed)`` plays a whole game (or ``stop_after`` moves) and
returns the state; ``random_states`` yields the state before the first move and
after every move. The game and the move choices both come from ``seed``, so the
same arguments always give the same game.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from schotten.engine import GameState, Phase, Settings
from schotten.engine.actions import DONE_ID
from schotten.engine.cards import NUM_CLAN

MAX_MOVES_PER_ROUND = 1000
"""No round of a real game comes near this many moves; reaching it means a game that never ends."""

ALL_SETTINGS = (
    Settings.of("base"),
    Settings.of("tactics"),
    Settings.of("expert"),
    Settings.of("expert-base"),
    Settings.of("tactics", rounds=3),
)
"""Every variant, and a 3-round match (R9)."""


def choose(state: GameState, rng: random.Random, claim: bool = True) -> int:
    """A uniformly random legal move id; in the claim step a claim while any is legal (R5.4).

    With ``claim=False`` the claim step always ends at once (``done``): nobody ever
    claims, so rounds run until both players pass and are settled by R6.2.
    """
    ids = state.legal_action_ids()
    if state.phase == Phase.CLAIM:
        claims = [i for i in ids if i != DONE_ID]
        ids = (claims or ids) if claim else [DONE_ID]
    return rng.choice(ids)


def random_states(
    settings: Settings, seed: int, stop_after: int | None = None, claim: bool = True
) -> Iterator[GameState]:
    """Yield the new game, then the same state object after each random move until the end.

    Stops after ``stop_after`` moves if given. The yielded object is mutated by the
    next move: copy it to keep it. Raises AssertionError if the game does not end
    within ``MAX_MOVES_PER_ROUND`` moves per round. ``claim`` as in ``choose``.
    """
    state = GameState.new(settings, seed)
    rng = random.Random(seed)
    yield state
    limit = MAX_MOVES_PER_ROUND * settings.rounds
    while not state.is_over and (stop_after is None or len(state.history) < stop_after):
        assert len(state.history) < limit, f"game {settings.variant} seed {seed} does not end"
        state.apply_id(choose(state, rng, claim))
        yield state


def random_game(
    settings: Settings, seed: int, stop_after: int | None = None, claim: bool = True
) -> GameState:
    """The state after a seeded random game (or its first ``stop_after`` moves)."""
    state = GameState.new(settings, seed)
    for state in random_states(settings, seed, stop_after, claim):  # noqa: B007
        pass
    return state


def redeal_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy in which the opponent's hand and the decks are dealt anew from the same cards (R10.3).

    The opponent's hand keeps its clan and tactic counts; cards ``seat`` put under a deck
    with the Recruiter keep their places (R10.2). ``seat`` cannot tell the copy apart.
    """
    other = state.copy()
    opponent = 1 - seat
    for index, deck in enumerate((other.clan_deck, other.tactic_deck)):
        tactic = index == 1
        known = {i for i, who in enumerate(other.returned_by[index]) if who == seat}
        free = [i for i in range(len(deck)) if i not in known]
        held = [c for c in other.hands[opponent] if (c >= NUM_CLAN) == tactic]
        pool = held + [deck[i] for i in free]
        rng.shuffle(pool)
        kept = [c for c in other.hands[opponent] if (c >= NUM_CLAN) != tactic]
        other.hands[opponent] = kept + pool[: len(held)]
        for i, card in zip(free, pool[len(held) :], strict=True):
            deck[i] = card
    return other
