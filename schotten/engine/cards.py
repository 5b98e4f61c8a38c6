"""Cards (R1): 54 clan cards and 10 tactic cards, as small integers with a text form.

A card is an ``int``. Clan cards are ``colour * 9 + value - 1`` (0..53); tactic
cards are 54..62, one code per kind (the two Jokers share code 54). The text form
of a clan card is its value then its colour letter (``7b`` is the blue 7); a
tactic card is a two-letter code (``JO`` is a Joker).
"""

from __future__ import annotations

from .errors import NotationError, quoted

COLOURS: tuple[str, ...] = ("green", "blue", "red", "yellow", "purple", "pink")
COLOUR_LETTERS: str = "gbrypk"
NUM_COLOURS = 6
NUM_VALUES = 9
NUM_CLAN = 54
NUM_STONES = 9

JOKER = 54
SPY = 55
SHIELD = 56
BLUFF = 57
MUD = 58
STRATEGIST = 59
BANSHEE = 60
TRAITOR = 61
RECRUITER = 62
NUM_CARD_CODES = 63

ELITE_TROOPS: frozenset[int] = frozenset({JOKER, SPY, SHIELD})
COMBAT_MODES: frozenset[int] = frozenset({BLUFF, MUD})
RUSES: frozenset[int] = frozenset({STRATEGIST, BANSHEE, TRAITOR, RECRUITER})
TACTIC_DECK: tuple[int, ...] = (
    JOKER, JOKER, SPY, SHIELD, BLUFF, MUD, STRATEGIST, BANSHEE, TRAITOR, RECRUITER,
)

TACTIC_CODES: dict[int, str] = {
    JOKER: "JO",
    SPY: "SP",
    SHIELD: "SH",
    BLUFF: "BB",
    MUD: "MF",
    STRATEGIST: "ST",
    BANSHEE: "BA",
    TRAITOR: "TR",
    RECRUITER: "RE",
}
TACTIC_NAMES: dict[int, str] = {
    JOKER: "Joker",
    SPY: "Spy",
    SHIELD: "Shield-bearer",
    BLUFF: "Blind-man's Bluff",
    MUD: "Mud Fight",
    STRATEGIST: "Strategist",
    BANSHEE: "Banshee",
    TRAITOR: "Traitor",
    RECRUITER: "Recruiter",
}
_TACTIC_BY_CODE = {code: card for card, code in TACTIC_CODES.items()}

MODE_BLUFF = 1
MODE_MUD = 2


def clan(value: int, colour: int) -> int:
    """The clan card of ``value`` (1-9) and ``colour`` (0-5)."""
    return colour * NUM_VALUES + value - 1


def value_of(card: int) -> int:
    """The value (1-9) of a clan card."""
    return card % NUM_VALUES + 1


def colour_of(card: int) -> int:
    """The colour index (0-5) of a clan card."""
    return card // NUM_VALUES


def is_clan(card: int) -> bool:
    """Whether ``card`` is one of the 54 clan cards."""
    return 0 <= card < NUM_CLAN


def is_tactic(card: int) -> bool:
    """Whether ``card`` is a tactic card code."""
    return NUM_CLAN <= card < NUM_CARD_CODES


def card_str(card: int) -> str:
    """The text form of a card: ``7b`` for the blue 7, ``JO`` for a Joker."""
    if is_clan(card):
        return f"{value_of(card)}{COLOUR_LETTERS[colour_of(card)]}"
    return TACTIC_CODES[card]


def card_name(card: int) -> str:
    """A readable name: ``blue 7``, ``Joker``."""
    if is_clan(card):
        return f"{COLOURS[colour_of(card)]} {value_of(card)}"
    return TACTIC_NAMES[card]


def parse_card(text: str) -> int:
    """Read a card from its text form (case-insensitive); raise NotationError if malformed."""
    token = text.strip()
    upper = token.upper()
    if upper in _TACTIC_BY_CODE:
        return _TACTIC_BY_CODE[upper]
    if len(token) == 2 and token[0] in "123456789" and token[1].lower() in COLOUR_LETTERS:
        return clan(int(token[0]), COLOUR_LETTERS.index(token[1].lower()))
    raise NotationError(
        f"{quoted(text)} is not a card: write a value 1-9 and a colour letter "
        f"({', '.join(f'{c}={n}' for c, n in zip(COLOUR_LETTERS, COLOURS, strict=True))}), "
        f"e.g. 7b, or a tactic code ({', '.join(TACTIC_CODES.values())})"
    )


def cards_str(cards: list[int] | tuple[int, ...]) -> str:
    """The cards' text forms joined without separators (``7b8b9b``)."""
    return "".join(card_str(c) for c in cards)


def parse_cards(text: str) -> list[int]:
    """Read a run of cards written back to back (``7b8bJO``); the empty string is no cards."""
    cards = []
    token = text.strip()
    for i in range(0, len(token), 2):
        cards.append(parse_card(token[i : i + 2]))
    if len(token) % 2:
        raise NotationError(f"{quoted(text)} is not a list of cards: each card takes two characters")
    return cards
