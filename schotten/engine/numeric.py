"""A view as numbers: ``NumericView.of(seen)`` reads the cards and actions of a ``view.View``
once, as card codes, masks and action ids, for bots and encoders.

It reads nothing but the view, so it holds exactly what that seat may know (R10). Seats are
the view's (0 and 1; a bot's seat-relative reading is its own business). What the view
already holds as numbers (owners, counts, scores) is read from the view itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .actions import ACTIONS, DECK_NAMES, parse_action
from .cards import (
    BLUFF,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CARD_CODES,
    NUM_CLAN,
    RECRUITER,
    TACTIC_DECK,
    card_str,
    parse_card,
)
from .phases import Phase
from .view import Under, View

_CODES: dict[str, int] = {card_str(c): c for c in range(NUM_CARD_CODES)}
_MODE_BITS: dict[str, int] = {card_str(BLUFF): MODE_BLUFF, card_str(MUD): MODE_MUD}
_RETURN = "return "
_IDS: dict[str, int] = {str(action): action.id for action in ACTIONS}
_ALL_CLAN = (1 << NUM_CLAN) - 1

Sides = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
"""Cards on the board: ``sides[seat][stone]``, each side in play order."""
Pair = tuple[tuple[int, ...], tuple[int, ...]]
"""One tuple of cards per seat (or per deck)."""


@dataclass(frozen=True, slots=True)
class NumericView:
    """A view's cards as card codes (``engine.cards``) and its legal actions as ids.

    ``sides[seat][stone]`` lists a side's cards in play order; ``modes[stone]`` holds
    MODE_BLUFF / MODE_MUD bits and ``capacity[stone]`` is 3, or 4 under Mud Fight (R7.5).
    ``hand`` is the seat's own hand as the view sorts it (empty for a spectator) and
    ``held`` the card a Strategist or Traitor has taken (-1: none). ``under[deck]`` lists
    ``(position from the bottom, card)`` of the seat's own Recruiter returns still in that
    deck (R10.2); ``returns[seat]`` the ``(deck, card)`` of each card that seat put back with
    the Recruiter this round, ``card`` -1 where the view hides it. ``unseen`` is the mask of
    clan cards not in sight (on no side, in no discard pile, not in the seat's hand, not
    held): the other hand's and the decks', the seat's own returns included;
    ``unseen_tactics`` the tactic cards not in sight likewise (combat modes on a stone are in
    sight), in code order.
    """

    seat: int | None
    phase: Phase
    sides: Sides
    modes: tuple[int, ...]
    capacity: tuple[int, ...]
    hand: tuple[int, ...]
    discards: Pair
    held: int
    under: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
    returns: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
    unseen: int
    unseen_tactics: tuple[int, ...]
    legal: tuple[int, ...]

    @staticmethod
    def of(seen: View) -> NumericView:
        """Read ``seen`` (a seat's or a spectator's view)."""
        sides = tuple(tuple([_cards(stone.cards[seat]) for stone in seen.stones]) for seat in (0, 1))
        modes = tuple([sum(_MODE_BITS[code] for code in stone.modes) if stone.modes else 0
                       for stone in seen.stones])
        hand = _cards(seen.hand or ())
        discards = (_cards(seen.discards[0]), _cards(seen.discards[1]))
        held = -1 if seen.held is None else _code(seen.held)
        in_sight = [c for side in sides for cards in side for c in cards]
        in_sight += [*discards[0], *discards[1], *hand] + ([held] if held >= 0 else [])
        return NumericView(
            seat=seen.seat,
            phase=Phase[seen.phase],
            sides=(sides[0], sides[1]),
            modes=modes,
            capacity=tuple(4 if m & MODE_MUD else 3 for m in modes),
            hand=hand,
            discards=discards,
            held=held,
            under=(_under(seen.under_clan), _under(seen.under_tactic)),
            returns=(_returns(seen, 0), _returns(seen, 1)),
            unseen=_ALL_CLAN & ~clan_mask(in_sight),
            unseen_tactics=_unseen_tactics(seen, in_sight, modes),
            legal=legal_ids(seen),
        )

    @property
    def bluff(self) -> tuple[bool, ...]:
        """For each stone, whether Blind-man's Bluff lies on it (R7.4)."""
        return tuple(bool(m & MODE_BLUFF) for m in self.modes)

    @property
    def hand_mask(self) -> int:
        """The clan cards of the seat's own hand, as a mask."""
        return clan_mask(self.hand)


def legal_ids(seen: View) -> tuple[int, ...]:
    """The ids of a view's legal actions, in the view's order."""
    return tuple(_IDS[text] if text in _IDS else parse_action(text).id for text in seen.legal)


def clan_mask(cards: Iterable[int]) -> int:
    """The mask of the clan cards among ``cards`` (bit ``c`` for card ``c``)."""
    mask = 0
    for card in cards:
        if card < NUM_CLAN:
            mask |= 1 << card
    return mask


def _cards(texts: tuple[str, ...]) -> tuple[int, ...]:
    """Card codes of texts in the view's (canonical) notation; NotationError for a text that is no card."""
    try:
        return tuple(map(_CODES.__getitem__, texts))
    except KeyError:
        return tuple(parse_card(text) for text in texts)


def _code(text: str) -> int:
    return _CODES[text] if text in _CODES else parse_card(text)


def _under(items: tuple[Under, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((item.from_bottom, _code(item.card)) for item in items)


def _returns(seen: View, seat: int) -> tuple[tuple[int, int], ...]:
    """``seat``'s Recruiter returns this round as ``seen`` shows them (R10.2): ``(deck, card)``."""
    if card_str(RECRUITER) not in seen.discards[seat]:
        return ()
    moves = list(zip(seen.history, seen.movers, strict=True))
    start = max(i for i, (move, who) in enumerate(moves) if move == card_str(RECRUITER) and who == seat)
    found = []
    for move, who in moves[start:]:
        if who == seat and move.startswith(_RETURN):
            what = move[len(_RETURN):]
            if what in DECK_NAMES:
                found.append((DECK_NAMES.index(what), -1))
            else:
                card = _code(what)
                found.append((0 if card < NUM_CLAN else 1, card))
    return tuple(found)


def _unseen_tactics(seen: View, in_sight: list[int], modes: tuple[int, ...]) -> tuple[int, ...]:
    if seen.variant not in ("tactics", "expert"):
        return ()
    left = list(TACTIC_DECK)
    shown = [c for c in in_sight if c >= NUM_CLAN]
    shown += [card for bit, card in ((MODE_BLUFF, BLUFF), (MODE_MUD, MUD)) for m in modes if m & bit]
    for card in shown:
        if card in left:
            left.remove(card)
    return tuple(left)

