"""Actions: every decision a player makes, with a text notation and a fixed integer id.

Each action is a small frozen value. ``str(action)`` gives its notation and
``Action.parse(text)`` reads it back; ``action.id`` is its place in a fixed
bijection with ``0 .. NUM_ACTIONS - 1`` (for masks and bots). All actions exist
once, built at import: ``ACTIONS[i]`` is the action of id ``i``.

Notation (stones are numbered 1-9, R1.3; cards as in ``cards``)::

    7b@3          play the blue 7 (or an elite troop, or a combat mode) on stone 3
    ST BA TR RE   play a ruse: Strategist, Banshee, Traitor, Recruiter
    pass          no card can be played (R3.2)
    claim 3       claim stone 3 (R5)
    done          end the claim step
    draw clan     draw from the clan deck (also: draw tactic)
    take 7b@3     Strategist / Traitor: take that card from stone 3
    to 5          put the taken card on stone 5
    discard       Strategist: discard the taken card
    banish 7b@3   Banshee: discard that card of the opponent's from stone 3
    return 7b     Recruiter: put that card from your hand under its deck
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum

from .cards import MUD, NUM_CARD_CODES, NUM_CLAN, NUM_STONES, RUSES, SHIELD, card_str, parse_card
from .errors import NotationError, quoted


class Kind(IntEnum):
    """The kinds of action."""

    PLAY = 0
    RUSE = 1
    PASS = 2
    CLAIM = 3
    DONE = 4
    DRAW = 5
    TAKE = 6
    PLACE = 7
    DISCARD = 8
    BANISH = 9
    RETURN = 10


CLAN_DECK = 0
TACTIC_DECK = 1
DECK_NAMES = ("clan", "tactic")

_PLAYABLE_ON_STONE = MUD + 1
_ON_SIDE = SHIELD + 1
_RUSE_CODES = sorted(RUSES)

PLAY_BASE = 0
RUSE_BASE = PLAY_BASE + _PLAYABLE_ON_STONE * NUM_STONES
PASS_ID = RUSE_BASE + len(_RUSE_CODES)
CLAIM_BASE = PASS_ID + 1
DONE_ID = CLAIM_BASE + NUM_STONES
DRAW_BASE = DONE_ID + 1
TAKE_BASE = DRAW_BASE + 2
PLACE_BASE = TAKE_BASE + _ON_SIDE * NUM_STONES
DISCARD_ID = PLACE_BASE + NUM_STONES
BANISH_BASE = DISCARD_ID + 1
RETURN_BASE = BANISH_BASE + _ON_SIDE * NUM_STONES
NUM_ACTIONS = RETURN_BASE + MUD + 1 + len(_RUSE_CODES)


@dataclass(frozen=True, slots=True)
class Action:
    """One decision: its kind, the card and the stone (0-8) or deck it concerns (-1 if none).

    ``Action(Kind.PLAY, 15, 2)`` is the same value as ``ACTIONS[137]`` and ``parse_action("7b@3")``:
    the id follows from the fields (see ``id_of``), and fields that make no action raise
    NotationError.
    """

    kind: Kind
    card: int = -1
    stone: int = -1
    id: int = field(init=False)

    def __post_init__(self) -> None:
        kind = _kind(self.kind)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "id", id_of(kind, self.card, self.stone))

    def __str__(self) -> str:
        return _TEXT[self.id]

    def __repr__(self) -> str:
        return f"Action({_TEXT[self.id]!r})"

    @staticmethod
    def parse(text: str) -> Action:
        """Read an action from its notation; raise NotationError naming what is wrong."""
        return parse_action(text)

    @staticmethod
    def from_id(action_id: int) -> Action:
        """The action of the given integer id."""
        if not 0 <= action_id < NUM_ACTIONS:
            raise NotationError(f"{action_id} is not an action id (0..{NUM_ACTIONS - 1})")
        return ACTIONS[action_id]


_CARD_AT_BASES: dict[Kind, tuple[int, int]] = {
    Kind.PLAY: (PLAY_BASE, _PLAYABLE_ON_STONE),
    Kind.TAKE: (TAKE_BASE, _ON_SIDE),
    Kind.BANISH: (BANISH_BASE, _ON_SIDE),
}
"""The kinds naming a card on a stone: their first id and how many card codes they take."""
_STONE_BASES: dict[Kind, int] = {Kind.CLAIM: CLAIM_BASE, Kind.PLACE: PLACE_BASE}
_LONE_IDS: dict[Kind, int] = {Kind.PASS: PASS_ID, Kind.DONE: DONE_ID, Kind.DISCARD: DISCARD_ID}
_FIELDS_HELP: dict[Kind, str] = {
    Kind.PLAY: "a card 0-58 (clan card, elite troop or combat mode) and a stone 0-8",
    Kind.TAKE: "a card 0-56 (clan card or elite troop) and a stone 0-8",
    Kind.BANISH: "a card 0-56 (clan card or elite troop) and a stone 0-8",
    Kind.CLAIM: "a stone 0-8 and no card (-1)",
    Kind.PLACE: "a stone 0-8 and no card (-1)",
    Kind.RUSE: "a ruse's card (59-62) and no stone (-1)",
    Kind.DRAW: "a deck as its card (0 clan, 1 tactic) and no stone (-1)",
    Kind.RETURN: "a card 0-62 and no stone (-1)",
}


def _kind(kind: object) -> Kind:
    if isinstance(kind, Kind):
        return kind
    if isinstance(kind, int) and not isinstance(kind, bool) and kind in Kind._value2member_map_:
        return Kind(kind)
    raise NotationError(f"{quoted(kind)} is not a kind of action: one of {', '.join(k.name for k in Kind)}")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def id_of(kind: Kind, card: int = -1, stone: int = -1) -> int:
    """The id of the action of these fields; NotationError if they make no action."""
    if _whole(card) and _whole(stone):
        if kind in _CARD_AT_BASES:
            base, codes = _CARD_AT_BASES[kind]
            if 0 <= card < codes and 0 <= stone < NUM_STONES:
                return base + card * NUM_STONES + stone
        elif kind in _STONE_BASES:
            if card == -1 and 0 <= stone < NUM_STONES:
                return _STONE_BASES[kind] + stone
        elif stone == -1:
            if kind == Kind.RUSE and card in RUSES:
                return RUSE_BASE + _RUSE_CODES.index(card)
            if kind == Kind.DRAW and card in (CLAN_DECK, TACTIC_DECK):
                return DRAW_BASE + card
            if kind == Kind.RETURN and 0 <= card < NUM_CARD_CODES:
                return RETURN_BASE + card
            if kind in _LONE_IDS and card == -1:
                return _LONE_IDS[kind]
    takes = _FIELDS_HELP.get(kind, "no card and no stone (-1 for both)")
    name = kind.name.lower()
    raise NotationError(f"{name} with card {quoted(card)} and stone {quoted(stone)} is not an action: "
                        f"{name} takes {takes}")


def play_id(card: int, stone: int) -> int:
    """Id of playing ``card`` (clan, elite troop or combat mode) on ``stone``."""
    return PLAY_BASE + card * NUM_STONES + stone


def ruse_id(card: int) -> int:
    """Id of playing the ruse ``card``."""
    return RUSE_BASE + _RUSE_CODES.index(card)


def claim_id(stone: int) -> int:
    """Id of claiming ``stone``."""
    return CLAIM_BASE + stone


def draw_id(deck: int) -> int:
    """Id of drawing from ``deck`` (CLAN_DECK or TACTIC_DECK)."""
    return DRAW_BASE + deck


def take_id(card: int, stone: int) -> int:
    """Id of taking ``card`` from ``stone`` (Strategist, Traitor)."""
    return TAKE_BASE + card * NUM_STONES + stone


def place_id(stone: int) -> int:
    """Id of putting the taken card on ``stone``."""
    return PLACE_BASE + stone


def banish_id(card: int, stone: int) -> int:
    """Id of the Banshee discarding ``card`` from ``stone``."""
    return BANISH_BASE + card * NUM_STONES + stone


def return_id(card: int) -> int:
    """Id of the Recruiter putting ``card`` back under its deck."""
    return RETURN_BASE + card


def _text(action: Action) -> str:
    kind, card, stone = action.kind, action.card, action.stone
    where = f"{card_str(card)}@{stone + 1}" if card >= 0 and stone >= 0 else ""
    match kind:
        case Kind.PLAY:
            return where
        case Kind.RUSE:
            return card_str(card)
        case Kind.CLAIM:
            return f"claim {stone + 1}"
        case Kind.DRAW:
            return f"draw {DECK_NAMES[card]}"
        case Kind.TAKE:
            return f"take {where}"
        case Kind.PLACE:
            return f"to {stone + 1}"
        case Kind.BANISH:
            return f"banish {where}"
        case Kind.RETURN:
            return f"return {card_str(card)}"
    return kind.name.lower()


def _build() -> list[Action]:
    actions: list[Action | None] = [None] * NUM_ACTIONS

    def add(number: int, kind: Kind, card: int = -1, stone: int = -1) -> None:
        actions[number] = Action(kind, card, stone)
        assert actions[number].id == number  # type: ignore[union-attr]

    for stone in range(NUM_STONES):
        for card in range(_PLAYABLE_ON_STONE):
            add(play_id(card, stone), Kind.PLAY, card, stone)
        for card in range(_ON_SIDE):
            add(take_id(card, stone), Kind.TAKE, card, stone)
            add(banish_id(card, stone), Kind.BANISH, card, stone)
        add(claim_id(stone), Kind.CLAIM, -1, stone)
        add(place_id(stone), Kind.PLACE, -1, stone)
    for card in _RUSE_CODES:
        add(ruse_id(card), Kind.RUSE, card)
    for card in range(MUD + 1 + len(_RUSE_CODES)):
        add(return_id(card), Kind.RETURN, card)
    add(PASS_ID, Kind.PASS)
    add(DONE_ID, Kind.DONE)
    add(DISCARD_ID, Kind.DISCARD)
    for deck in (CLAN_DECK, TACTIC_DECK):
        add(draw_id(deck), Kind.DRAW, deck)
    assert all(a is not None for a in actions)
    return [a for a in actions if a is not None]


ACTIONS: list[Action] = _build()
"""Every action, indexed by id."""

_TEXT: list[str] = [_text(a) for a in ACTIONS]
_BY_TEXT: dict[str, Action] = {t.lower(): a for t, a in zip(_TEXT, ACTIONS, strict=True)}



def _parts(action: Action) -> dict[str, str | int | None]:
    kind, card, stone = action.kind, action.card, action.stone
    deck = None
    if kind == Kind.DRAW:
        deck, card = DECK_NAMES[card], -1
    elif kind == Kind.RETURN:
        deck = DECK_NAMES[0 if card < NUM_CLAN else 1]
    return {
        "action": _TEXT[action.id],
        "kind": kind.name.lower(),
        "card": card_str(card) if card >= 0 else None,
        "stone": stone if stone >= 0 else None,
        "deck": deck,
    }


_PARTS: list[dict[str, str | int | None]] = [_parts(a) for a in ACTIONS]


def action_parts(action_id: int) -> dict[str, str | int | None]:
    """The action of this id as data: its notation (``action``), its ``kind`` (the Kind's name in
    lower case: play, ruse, pass, claim, done, draw, take, place, discard, banish, return), its
    ``card`` (notation, or None), its ``stone`` (0-8, or None) and its ``deck`` ("clan" or
    "tactic" for a draw, and for a return the deck the card goes under; else None)."""
    return dict(_PARTS[action_id])


_SPACES = re.compile(r"\s+")
_CARD_AT = re.compile(r"^(\S{2})\s*@\s*(\S+)$")

HELP = (
    "write one of: 7b@3 (a card on a stone), ST/BA/TR/RE (a ruse), pass, claim 3, done, "
    "draw clan, draw tactic, take 7b@3, to 5, discard, banish 7b@3, return 7b"
)


def _stone(text: str) -> int:
    if len(text) == 1 and text in "123456789":
        return int(text) - 1
    raise NotationError(f"{quoted(text)} is not a stone: stones are numbered 1 to 9")


def _card_at(text: str, kind: Kind, base: int, limit: int, what: str) -> Action:
    found = _CARD_AT.match(text)
    if not found:
        raise NotationError(f"{quoted(text)}: expected a card and a stone like 7b@3")
    card, stone = parse_card(found.group(1)), _stone(found.group(2))
    if card >= limit:
        raise NotationError(f"{card_str(card)} cannot be {what}")
    return ACTIONS[base + card * NUM_STONES + stone]


def parse_action(text: str) -> Action:
    """Read an action from its notation (case and spacing are free); raise NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"an action is text, not {type(text).__name__}")
    clean = _SPACES.sub(" ", text.strip()).lower()
    if not clean:
        raise NotationError(f"empty action: {HELP}")
    known = _BY_TEXT.get(clean)
    if known is not None:
        return known
    word, _, rest = clean.partition(" ")
    rest = rest.strip()
    if word == "claim":
        return ACTIONS[claim_id(_stone(rest))]
    if word == "to":
        return ACTIONS[place_id(_stone(rest))]
    if word == "draw":
        raise NotationError(f"{quoted(text)}: draw from 'clan' or 'tactic'")
    if word == "take":
        return _card_at(rest, Kind.TAKE, TAKE_BASE, _ON_SIDE, "taken from a stone")
    if word == "banish":
        return _card_at(rest, Kind.BANISH, BANISH_BASE, _ON_SIDE, "banished from a stone")
    if word == "return":
        return ACTIONS[return_id(parse_card(rest))]
    if "@" in clean:
        return _card_at(clean, Kind.PLAY, PLAY_BASE, _PLAYABLE_ON_STONE, "played on a stone")
    if len(clean) == 2:
        card = parse_card(clean)
        if card in RUSES:
            return ACTIONS[ruse_id(card)]
        raise NotationError(f"{quoted(text)}: say where to play it, like {card_str(card)}@3")
    raise NotationError(f"{quoted(text)} is not an action: {HELP}")

