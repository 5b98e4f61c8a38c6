"""Scenario helpers: deal a rigged round, then play it in the action notation.

``deal`` builds a game with ``GameState.new`` and overwrites the deal of its first
round with the hands, decks and (optionally) cards already on the board that a test
names; ``rig`` does the same for any round that is just starting (matches, R9).
Cards are written as in ``schotten.engine.cards`` (``7b``, ``JO``), separated by
spaces or back to back. Decks are written top first: the first card named is the
first card drawn.

Every card stays accounted for: clan and tactic cards the test does not name go
under the named deck cards (drawn in ascending code order after them, 1g first),
unless ``rest="out"``: then they are left out of the round altogether, so that the
decks hold exactly the named cards. Cards left out are nowhere on the table, so they
count as unseen for claim proofs (R5.2), as cards in a deck or a hand would.

Tests then play with ``state.apply("7b@3")`` or ``state.play("7b@3", "claim 3")``
and read the legal actions in notation with ``legal(state)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from schotten.engine import GameState, Phase, Settings
from schotten.engine.cards import (
    ELITE_TROOPS,
    MODE_BLUFF,
    MODE_MUD,
    NUM_CLAN,
    NUM_STONES,
    TACTIC_DECK,
    parse_cards,
)

Board = tuple[Mapping[int, str], Mapping[int, str]]
"""Cards already on the board: per seat, stone number (1-9) -> cards in play order."""

MODE_CODES = {"BB": MODE_BLUFF, "MF": MODE_MUD}


def cards(text: str) -> list[int]:
    """The cards named in ``text`` (``"7b 8b"`` or ``"7b8b"``), in order."""
    found: list[int] = []
    for token in text.split():
        found.extend(parse_cards(token))
    return found


def deal(
    variant: str = "base",
    hands: tuple[str, str] = ("", ""),
    clan_deck: str = "",
    tactic_deck: str = "",
    *,
    first: int = 0,
    rounds: int = 1,
    seed: int = 0,
    board: Board | None = None,
    modes: Mapping[int, str] | None = None,
    rest: str = "bottom",
) -> GameState:
    """A new game of ``variant`` whose first round is dealt as named (see the module docstring).

    ``first`` is the first player (R2.3), ``rounds`` the length of the match (R9.1);
    for ``board`` and ``modes`` see ``rig``.
    """
    state = GameState.new(Settings.of(variant, rounds, first_player=first), seed)
    return rig(state, hands, clan_deck, tactic_deck, board=board, modes=modes, rest=rest)


def rig(
    state: GameState,
    hands: tuple[str, str],
    clan_deck: str = "",
    tactic_deck: str = "",
    *,
    board: Board | None = None,
    modes: Mapping[int, str] | None = None,
    rest: str = "bottom",
) -> GameState:
    """Overwrite the deal of the round that is starting in ``state``; return ``state``.

    ``board`` puts cards on the sides before the first move, seat 0's stones then
    seat 1's, in the order given: sides that come out complete are stamped complete
    in that order (R4.7). Elite troops on a seat's sides count as tactic cards that
    seat played (R7.2). ``modes`` puts combat modes on stones (``{4: "MF BB"}``);
    they count for nobody.
    """
    if any(state.sides[s][t] for s in (0, 1) for t in range(NUM_STONES)) or any(state.modes):
        raise ValueError("rig only a round that has not started")
    if rest not in ("bottom", "out"):
        raise ValueError("rest is 'bottom' or 'out'")
    board = board or ({}, {})
    hand_cards = [cards(hands[0]), cards(hands[1])]
    side_cards = [{stone - 1: cards(text) for stone, text in board[seat].items()} for seat in (0, 1)]
    clan_top, tactic_top = cards(clan_deck), cards(tactic_deck)
    named = hand_cards[0] + hand_cards[1] + clan_top + tactic_top
    named += [c for seat in (0, 1) for side in side_cards[seat].values() for c in side]
    _check_counts(state, named, clan_top, tactic_top)
    unnamed = _unnamed(state, named, rest)
    state.hands = hand_cards
    state.clan_deck = [c for c in reversed(unnamed) if c < NUM_CLAN] + clan_top[::-1]
    state.tactic_deck = [c for c in reversed(unnamed) if c >= NUM_CLAN] + tactic_top[::-1]
    for stone, text in (modes or {}).items():
        for code in text.split():
            state.modes[stone - 1] |= MODE_CODES[code.upper()]
    _set_board(state, side_cards)
    _restart_turn(state)
    return state


def _check_counts(state: GameState, named: list[int], clan_top: list[int], tactic_top: list[int]) -> None:
    allowed = Counter(range(NUM_CLAN))
    if state.settings.tactics:
        allowed.update(TACTIC_DECK)
    extra = Counter(named) - allowed
    if extra:
        raise ValueError(f"cards named too often or not in this variant: {sorted(extra)}")
    if any(c >= NUM_CLAN for c in clan_top) or any(c < NUM_CLAN for c in tactic_top):
        raise ValueError("clan cards go in the clan deck, tactic cards in the tactic deck")


def _unnamed(state: GameState, named: list[int], rest: str) -> list[int]:
    if rest == "out":
        return []
    left = Counter(range(NUM_CLAN))
    if state.settings.tactics:
        left.update(TACTIC_DECK)
    left.subtract(named)
    return sorted(left.elements())


def _set_board(state: GameState, side_cards: list[dict[int, list[int]]]) -> None:
    for seat in (0, 1):
        for stone, placed in side_cards[seat].items():
            state.sides[seat][stone] = list(placed)
            for card in placed:
                if card < NUM_CLAN:
                    state.pool &= ~(1 << card)
            if len(placed) == state.capacity(stone):
                state.clock += 1
                state.stamps[seat][stone] = state.clock
        state.tactics_played[seat] = sum(
            1 for side in side_cards[seat].values() for c in side if c in ELITE_TROOPS
        )


def _restart_turn(state: GameState) -> None:
    state.claimable = state.claimable_stones(state.turn) if state.settings.expert else []
    state.phase = Phase.CLAIM if state.claimable else Phase.PLAY


def legal(state: GameState) -> set[str]:
    """The notation of every legal action of the player to move."""
    return {str(action) for action in state.legal_actions()}


def plays(state: GameState) -> set[str]:
    """The legal actions that play a card on a stone (``7b@3``), in notation."""
    return {text for text in legal(state) if "@" in text and " " not in text}


def end_turn(state: GameState, deck: str = "clan") -> GameState:
    """Finish the turn of the player to move: end the claim step, draw from ``deck`` if asked."""
    if state.phase == Phase.CLAIM:
        state.apply("done")
    if state.phase == Phase.DRAW:
        state.apply(f"draw {deck}")
    return state


def turn(state: GameState, action: str, deck: str = "clan") -> GameState:
    """Play ``action`` and finish the turn without claiming (``end_turn``)."""
    state.apply(action)
    return end_turn(state, deck)

