"""The analysis board's hand editor: one card moved between two places of a position, or the seat to
move switched, then the whole position checked again by the engine (``engine.position``), which
alone says whether a table is possible. The answer lists every place's cards for the page to draw.

A place is written ``hand:1``, ``stone:3:1`` (seat 1's side of stone 3), ``stone:3`` (the stone
itself: its combat modes), ``deck:clan``, ``deck:tactic`` or ``discard:1``; seats and stones are
numbered from 1, as in the analysis's figures. ``Editor`` answers ``POST /api/analysis/edit`` within
``analysis_edit_rate`` per address (429 beyond, with its sentence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...engine import GameState
from ...engine.cards import BLUFF, MODE_BLUFF, MODE_MUD, MUD, NUM_CLAN, NUM_STONES, card_str, parse_card
from ...engine.errors import NotationError
from ...engine.position import format_position, parse_position
from ..core.errors import ServiceError
from ..edge import quotas
from ..edge.quotas import ExactWindow, Rates
from .board import read_position

EDITS = "edits of a position"
"""What ``analysis_edit_rate`` counts, as its 429 says it."""
MAX_PLACE = 20
"""The longest place name read (the longest real one, ``deck:tactic``, has 11 characters)."""
_PLACE = re.compile(r"^(hand|discard):([12])$|^stone:([1-9])(?::([12]))?$|^deck:(clan|tactic)$")
_MODE_BITS = {BLUFF: MODE_BLUFF, MUD: MODE_MUD}
PLACES_HELP = "hand:1, hand:2, stone:N:1, stone:N:2, stone:N (its combat modes), deck:clan, deck:tactic, " \
              "discard:1 or discard:2 (N a stone, 1 to 9)"


@dataclass(frozen=True)
class Place:
    """Where a card lies: ``kind`` hand, discard, side (of a stone), modes (of a stone) or deck."""

    kind: str
    seat: int = -1
    stone: int = -1
    deck: str = ""


def read_place(value: object, what: str) -> Place:
    """The place named by ``value`` (``from`` or ``to``); 400 with the names allowed if it is none."""
    if not isinstance(value, str) or len(value) > MAX_PLACE or not (found := _PLACE.match(value)):
        shown = repr(value)[:MAX_PLACE + 2]
        raise ServiceError(400, f"{what} must be a place: {PLACES_HELP}, not {shown}")
    pile, seat, stone, side, deck = found.groups()
    if pile:
        return Place(pile, seat=int(seat) - 1)
    if stone and side:
        return Place("side", seat=int(side) - 1, stone=int(stone) - 1)
    if stone:
        return Place("modes", stone=int(stone) - 1)
    return Place("deck", deck=deck)


def read_card(value: object) -> int:
    """The card named by ``value`` in the card notation (``7b``, ``JO``); 400 if it is none."""
    if not isinstance(value, str) or len(value) > 2:
        raise ServiceError(400, "card must be a card in the notation such as 7b or JO, not "
                           f"{repr(value)[:12]}")
    try:
        return parse_card(value)
    except NotationError as error:
        raise ServiceError(400, f"card: {error}") from None



class Editor:
    """Answers ``POST /api/analysis/edit``: ``edit_position``, at most ``rate`` per address."""

    def __init__(self, rate: str) -> None:
        self.rates = Rates("analysis_edit_rate", rate, ExactWindow())

    def edit(self, position: object, change: object, address: str) -> dict[str, Any]:
        """``edit_position(position, change)`` counted for ``address``; 429 over the rate (nothing read)."""
        refused = self.rates.hit(f"address:{address}")
        if refused is not None:
            raise quotas.LimitError(quotas.over_rate(refused, EDITS), refused[1],
                                    quotas.over_rate_said(refused, EDITS))
        return edit_position(position, change)


def edit_position(position: object, edit: object) -> dict[str, Any]:
    """The position after ``edit`` and its places (docs/web/analysis.md); no edit: the position as it
    is. 400 with a sentence for a bad edit, or with the engine's sentence for an impossible result."""
    state = read_position(position)
    if edit is None:
        return answer(state)
    if not isinstance(edit, dict):
        raise ServiceError(400, "edit must be an object: {\"card\", \"from\", \"to\"} or {\"to_move\"}")
    if "to_move" in edit:
        _switch(state, edit)
    else:
        _move(state, edit)
    try:
        edited = parse_position(format_position(state))
    except NotationError as error:
        raise ServiceError(400, f"the edited position is impossible: {error}") from None
    return answer(edited)


def _switch(state: GameState, edit: dict[str, Any]) -> None:
    seat = edit["to_move"]
    if len(edit) != 1 or type(seat) is not int or seat not in (1, 2):
        raise ServiceError(400, "to_move must be the seat to move, 1 or 2, and alone in the edit, not "
                           f"{repr(seat)[:12]}")
    state.turn = seat - 1


def _move(state: GameState, edit: dict[str, Any]) -> None:
    if set(edit) != {"card", "from", "to"}:
        raise ServiceError(400, "edit must have exactly card, from and to (or to_move alone), not "
                           + ", ".join(sorted(map(str, edit)))[:80])
    card = read_card(edit["card"])
    source, target = read_place(edit["from"], "from"), read_place(edit["to"], "to")
    if source == target:
        raise ServiceError(400, f"from and to are the same place ({edit['from']})")
    take(state, card, source, edit["from"])
    put(state, card, target)
    if card >= NUM_CLAN:
        _recount(state, source, -1)
        _recount(state, target, +1)
    for place in (source, target):
        if place.stone >= 0:
            _restamp(state, place.stone)


def _cards(state: GameState, place: Place) -> list[int]:
    if place.kind == "hand":
        return state.hands[place.seat]
    if place.kind == "discard":
        return state.discards[place.seat]
    if place.kind == "side":
        return state.sides[place.seat][place.stone]
    return state.clan_deck if place.deck == "clan" else state.tactic_deck


def take(state: GameState, card: int, place: Place, name: str) -> None:
    """Take ``card`` from ``place`` of ``state``; 400 if it is not there."""
    if place.kind == "modes":
        bit = _MODE_BITS.get(card, 0)
        if not bit or not state.modes[place.stone] & bit:
            raise ServiceError(400, f"{card_str(card)} is not on {name}")
        state.modes[place.stone] &= ~bit
        return
    cards = _cards(state, place)
    if card not in cards:
        raise ServiceError(400, f"{card_str(card)} is not in {name}")
    cards.remove(card)


def put(state: GameState, card: int, place: Place) -> None:
    """Put ``card`` on ``place`` of ``state`` (on top of a deck or pile, last on a side or hand); a
    combat mode on a stone is its mode, and only combat modes go there (the notation has no other)."""
    if place.kind == "modes":
        bit = _MODE_BITS.get(card, 0)
        if not bit:
            raise ServiceError(400, f"{card_str(card)} is not a combat mode (BB, MF): only those lie on "
                               "the stone itself; put a card on a side with stone:N:1 or stone:N:2")
        if state.modes[place.stone] & bit:
            raise ServiceError(400, f"{card_str(card)} is on stone {place.stone + 1} already")
        state.modes[place.stone] |= bit
        return
    _cards(state, place).append(card)


def _recount(state: GameState, place: Place, change: int) -> None:
    """Keep the count of tactic cards each seat has played (R7.2) in step with a tactic card put on or
    taken from a seat's side or discard pile; a combat mode on a stone counts for the seat behind
    (taken away: the seat ahead; the seat to move when even). The engine then checks the counts as
    in any position."""
    if place.kind in ("side", "discard"):
        seat = place.seat
    elif place.kind == "modes":
        played = state.tactics_played
        low = 0 if played[0] < played[1] else 1
        seat = state.turn if played[0] == played[1] else low if change > 0 else 1 - low
    else:
        return
    state.tactics_played[seat] += change


def _restamp(state: GameState, stone: int) -> None:
    """A side that is no longer complete loses its completion moment; one just completed gets the
    latest (the order of two complete sides is R4.6's)."""
    latest = max(max(state.stamps[0]), max(state.stamps[1]))
    for seat in (0, 1):
        if not state.is_complete(seat, stone):
            state.stamps[seat][stone] = -1
        elif state.stamps[seat][stone] < 0:
            latest += 1
            state.stamps[seat][stone] = latest


def answer(state: GameState) -> dict[str, Any]:
    """The position's notation and every place's cards (all the notation holds: the client sent
    it)."""
    return {"position": format_position(state), "places": places(state)}


def places(state: GameState) -> dict[str, Any]:
    """Every place's cards in the card notation, keyed as the edit names them (``hand:1``, ...), with
    the seat to move (null when the game is over) and whether the variant has tactic cards."""
    found: dict[str, list[str]] = {}
    for seat in (0, 1):
        found[f"hand:{seat + 1}"] = [card_str(c) for c in state.hands[seat]]
        found[f"discard:{seat + 1}"] = [card_str(c) for c in state.discards[seat]]
        for stone in range(NUM_STONES):
            found[f"stone:{stone + 1}:{seat + 1}"] = [card_str(c) for c in state.sides[seat][stone]]
    for stone in range(NUM_STONES):
        modes = state.modes[stone]
        found[f"stone:{stone + 1}"] = [card_str(c) for c, bit in _MODE_BITS.items() if modes & bit]
    found["deck:clan"] = [card_str(c) for c in state.clan_deck]
    found["deck:tactic"] = [card_str(c) for c in state.tactic_deck]
    return {
        "cards": found,
        "to_move": None if state.is_over else state.turn + 1,
        "owners": [None if o < 0 else o + 1 for o in state.owner],
        "tactics": state.settings.tactics,
    }
