"""Position notation: a whole table as one line of text, like FEN in chess.

``format_position(state)`` writes everything needed to go on playing exactly as the
state would: the settings and match so far, whose decision it is, every stone,
both hands, both decks in order, the discard piles and the counters of R6.2, R7.2
and the ruses. ``parse_position(text)`` reads it back, checks that it describes a
table the rules can reach (every card exactly once, R1; sides within their
capacity, R3.1 and R7.5; at most one Joker per side of the border, R7.3; hands of the
sizes the turns leave, R3.4 and R7.7; discard piles holding what the ruses put there,
R7.6-R7.9; ...) and raises NotationError naming the field and what is wrong. The 15 fields, separated
by spaces, are described in ``docs/notation.md``::

    variant round first seed results turn phase passes tactics board hands
    clan-deck tactic-deck discards bottom

Derived values (the pool of unseen clan cards, the claimable stones, caches) are
recomputed; completion moments (R4.6, R4.7) are kept only as the order of two
complete sides on a stone; the parsed state has an empty history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .cards import (
    BANSHEE,
    BLUFF,
    COMBAT_MODES,
    ELITE_TROOPS,
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CLAN,
    NUM_STONES,
    RECRUITER,
    RUSES,
    STRATEGIST,
    TACTIC_CODES,
    TRAITOR,
    card_str,
    cards_str,
    parse_card,
    parse_cards,
)
from .errors import NotationError, quoted
from .phases import Phase
from .state import SEED_DIGITS, VARIANTS, GameState, MatchResult, Outcome, Reason, Settings

T = TypeVar("T")

FIELDS: tuple[str, ...] = (
    "variant",
    "round",
    "first",
    "seed",
    "results",
    "turn",
    "phase",
    "passes",
    "tactics",
    "board",
    "hands",
    "clan-deck",
    "tactic-deck",
    "discards",
    "bottom",
)
"""The names of the fields of a position, in order."""

EMPTY = "-"
"""How a field with nothing in it is written (no results, an empty deck)."""

REASON_LETTERS: dict[Reason, str] = {
    Reason.ADJACENT: "a",
    Reason.FIVE: "f",
    Reason.MORE_STONES: "m",
    Reason.EQUAL_STONES: "e",
    Reason.FORFEIT: "x",
}
"""The letter of each reason a round ended in the results field (R6)."""
_REASON_BY_LETTER = {letter: reason for reason, letter in REASON_LETTERS.items()}
_RUSE_OF_PHASE: dict[Phase, int] = {
    Phase.STRATEGIST_TAKE: STRATEGIST,
    Phase.STRATEGIST_PLACE: STRATEGIST,
    Phase.BANSHEE: BANSHEE,
    Phase.TRAITOR_TAKE: TRAITOR,
    Phase.TRAITOR_PLACE: TRAITOR,
    Phase.RECRUIT_DRAW: RECRUITER,
    Phase.RECRUIT_RETURN: RECRUITER,
}
_HOLDING = (Phase.STRATEGIST_PLACE, Phase.TRAITOR_PLACE)
_RECRUITING = (Phase.RECRUIT_DRAW, Phase.RECRUIT_RETURN)


def phase_name(phase: Phase) -> str:
    """The notation of a phase: ``play``, ``strategist-take``, ..."""
    return phase.name.lower().replace("_", "-")


_PHASE_BY_NAME = {phase_name(p): p for p in Phase}


# ---------------------------------------------------------------------- writing


def format_position(state: GameState) -> str:
    """The position notation of ``state``: one line, 15 space-separated fields."""
    fields = [
        state.settings.variant,
        f"{state.round + 1}/{state.settings.rounds}",
        str(state.first),
        str(state.seed),
        ",".join(_format_outcome(o) for o in state.round_outcomes) or EMPTY,
        str(state.turn),
        _format_phase(state),
        str(state.passes),
        f"{state.tactics_played[0]}:{state.tactics_played[1]}",
        "/".join(_format_stone(state, stone) for stone in range(NUM_STONES)),
        _format_pair(state.hands),
        cards_str(state.clan_deck) or EMPTY,
        cards_str(state.tactic_deck) or EMPTY,
        _format_pair(state.discards),
        ":".join("".join(str(seat) for seat in deck) for deck in state.returned_by),
    ]
    return " ".join(fields)


def _format_outcome(outcome: Outcome) -> str:
    winner = "=" if outcome.winner is None else str(outcome.winner)
    stones = "".join("-" if s is None else str(s) for s in outcome.stones)
    return f"{winner}{REASON_LETTERS[outcome.reason]}.{stones}"


def _format_phase(state: GameState) -> str:
    name = phase_name(state.phase)
    if state.phase in _HOLDING:
        return f"{name}:{card_str(state.held)}@{state.held_from + 1}"
    if state.phase == Phase.RECRUIT_DRAW:
        return f"{name}:{state.recruit_draws}"
    if state.phase == Phase.RECRUIT_RETURN:
        return f"{name}:{state.recruit_returns}"
    return name


def _format_stone(state: GameState, stone: int) -> str:
    sides = [cards_str(state.sides[seat][stone]) for seat in (0, 1)]
    if state.is_complete(0, stone) and state.is_complete(1, stone):
        first = 0 if state.stamps[0][stone] < state.stamps[1][stone] else 1
        sides[first] += "*"
    text = f"{sides[0]}:{sides[1]}"
    modes = state.modes[stone]
    if modes:
        text += "+" + ("BB" if modes & MODE_BLUFF else "") + ("MF" if modes & MODE_MUD else "")
    if state.owner[stone] >= 0:
        text += f"#{state.owner[stone]}"
    return text


def _format_pair(pair: list[list[int]]) -> str:
    return f"{cards_str(pair[0])}:{cards_str(pair[1])}"


# ---------------------------------------------------------------------- reading


@dataclass
class _Stone:
    sides: tuple[list[int], list[int]]
    marked: tuple[bool, bool]
    modes: int = 0
    owner: int = -1


@dataclass
class _Fields:
    settings: Settings
    round: int
    first: int
    seed: int
    outcomes: list[Outcome]
    turn: int
    phase: Phase
    held: int
    held_from: int
    counter: int
    passes: int
    tactics_played: list[int]
    stones: list[_Stone]
    hands: list[list[int]]
    clan_deck: list[int]
    tactic_deck: list[int]
    discards: list[list[int]]
    returned_by: list[list[int]]


def parse_position(text: str) -> GameState:
    """Read a position written by ``format_position``; raise NotationError naming what is wrong."""
    if not isinstance(text, str):
        raise NotationError(f"a position is text, not {type(text).__name__}")
    tokens = text.split()
    if len(tokens) != len(FIELDS):
        raise NotationError(
            f"a position has {len(FIELDS)} space-separated fields ({' '.join(FIELDS)}), "
            f"not {len(tokens)}"
        )
    fields = _read_fields(tokens)
    _check(fields)
    state = _build(fields)
    _check_playable(state)
    return state


def _field(index: int, parse: Callable[[str], T], token: str) -> T:
    try:
        return parse(token)
    except NotationError as error:
        raise NotationError(f"field {index + 1} ({FIELDS[index]}): {error}") from None


def _read_fields(tokens: list[str]) -> _Fields:
    variant = _field(0, _variant, tokens[0])
    round_index, rounds = _field(1, _round, tokens[1])
    first = _field(2, lambda t: _seat(t, "the first player"), tokens[2])
    seed = _field(3, _integer, tokens[3])
    outcomes = _field(4, _outcomes, tokens[4])
    turn = _field(5, lambda t: _seat(t, "the turn"), tokens[5])
    phase, held, held_from, counter = _field(6, _phase, tokens[6])
    passes = _field(7, _passes, tokens[7])
    tactics_played = _field(8, _tactics_played, tokens[8])
    stones = _field(9, _board, tokens[9])
    hands = _field(10, _pair, tokens[10])
    clan_deck = _field(11, lambda t: _deck(t, tactic=False), tokens[11])
    tactics = variant in ("tactics", "expert")
    tactic_deck = _field(12, lambda t: _deck(t, tactic=True) if tactics else _no_tactic_deck(t), tokens[12])
    return _Fields(
        Settings.of(variant, rounds, first), round_index, first, seed, outcomes, turn, phase, held,
        held_from, counter, passes, tactics_played, stones, hands, clan_deck, tactic_deck,
        discards=_field(13, _discards, tokens[13]),
        returned_by=_field(14, _returned_by, tokens[14]),
    )


def _variant(token: str) -> str:
    if token not in VARIANTS:
        raise NotationError(f"unknown variant {quoted(token)}: choose one of {', '.join(VARIANTS)}")
    return token


def _integer(token: str) -> int:
    digits = token[1:] if token.startswith("-") else token
    if not digits.isdigit() or not digits.isascii():
        raise NotationError(f"{quoted(token)} is not a whole number")
    if len(digits) > SEED_DIGITS:
        raise NotationError(f"a number of {len(digits)} digits is too long: at most {SEED_DIGITS}")
    return int(token)


def _seat(token: str, what: str) -> int:
    if token not in ("0", "1"):
        raise NotationError(f"{what} is seat 0 or 1, not {quoted(token)}")
    return int(token)


def _round(token: str) -> tuple[int, int]:
    current, slash, total = token.partition("/")
    if not slash:
        raise NotationError(f"{quoted(token)}: write the round and the number of rounds like 1/3")
    index, rounds = _integer(current), _integer(total)
    if not 1 <= rounds <= 99:
        raise NotationError(f"a match has 1 to 99 rounds, not {rounds}")
    if not 1 <= index <= rounds:
        raise NotationError(f"round {index} is not one of the {rounds} rounds")
    return index - 1, rounds


def _outcomes(token: str) -> list[Outcome]:
    if token == EMPTY:
        return []
    return [_outcome(part, number) for number, part in enumerate(token.split(","), start=1)]


def _outcome(token: str, number: int) -> Outcome:
    where = f"result of round {number} {quoted(token)}"
    head, dot, marks = token.partition(".")
    if not dot or len(head) != 2 or len(marks) != NUM_STONES:
        raise NotationError(f"{where}: write the winner (0, 1 or =), the reason (a, f, m or e), "
                            f"a dot and the 9 stones' owners (0, 1 or -), like 0a.000------")
    if head[0] not in "01=" or head[1] not in _REASON_BY_LETTER or any(m not in "01-" for m in marks):
        raise NotationError(f"{where}: winner is 0, 1 or =; reason a, f, m or e; owners 0, 1 or -")
    winner = None if head[0] == "=" else int(head[0])
    stones = tuple(None if m == "-" else int(m) for m in marks)
    reason = _REASON_BY_LETTER[head[1]]
    problem = _outcome_problem(winner, reason, stones)
    if problem:
        raise NotationError(f"{where}: {problem}")
    points = [stones.count(0), stones.count(1)]
    if winner is not None:
        points[winner] = 5
    return Outcome(winner, reason, stones, (points[0], points[1]))


def _outcome_problem(winner: int | None, reason: Reason, stones: tuple[int | None, ...]) -> str:
    counts = (stones.count(0), stones.count(1))
    if reason == Reason.EQUAL_STONES:
        ok = winner is None and counts[0] == counts[1]
        return "" if ok else "a round ends 'e' (equal stones) only as a draw (=) with equal stones"
    if winner is None:
        return "a drawn round (=) has reason e (equal stones)"
    if reason == Reason.MORE_STONES and counts[winner] <= counts[1 - winner]:
        return f"seat {winner} won on more stones (m) but holds {counts[winner]} to {counts[1 - winner]}"
    if reason == Reason.FIVE and counts[winner] < 5:
        return f"seat {winner} won on five stones (f) but holds {counts[winner]}"
    if reason == Reason.ADJACENT and not _has_adjacent(stones, winner):
        return f"seat {winner} won on three adjacent stones (a) but holds no three adjacent"
    return ""


def _has_adjacent(owners: tuple[int | None, ...] | list[int], seat: int) -> bool:
    return any(all(owners[s + i] == seat for i in range(3)) for s in range(NUM_STONES - 2))


def _phase(token: str) -> tuple[Phase, int, int, int]:
    name, colon, extra = token.partition(":")
    phase = _PHASE_BY_NAME.get(name.lower())
    if phase is None:
        raise NotationError(f"unknown phase {quoted(name)}: one of {', '.join(_PHASE_BY_NAME)}")
    if phase in _HOLDING:
        if not colon:
            raise NotationError(f"{name} needs the held card and its stone, like {name}:7b@3")
        held, held_from = _held(extra)
        return phase, held, held_from, 0
    if phase in _RECRUITING:
        what = "draws" if phase == Phase.RECRUIT_DRAW else "returns"
        most = 3 if phase == Phase.RECRUIT_DRAW else 2
        if not colon or extra not in [str(n) for n in range(1, most + 1)]:
            raise NotationError(f"{name} needs the {what} left (1 to {most}), like {name}:1")
        return phase, -1, -1, int(extra)
    if colon:
        raise NotationError(f"phase {name} takes nothing after ':' (found {quoted(extra)})")
    return phase, -1, -1, 0


def _held(text: str) -> tuple[int, int]:
    card_text, at, stone_text = text.partition("@")
    if not at:
        raise NotationError(f"{quoted(text)}: write the held card and the stone it came from, like 7b@3")
    card = parse_card(card_text)
    if not (card < NUM_CLAN or card in ELITE_TROOPS):
        raise NotationError(f"the held card {card_str(card)} is not a clan card or an elite troop")
    return card, _stone_number(stone_text)


def _stone_number(text: str) -> int:
    if len(text) != 1 or text not in "123456789":
        raise NotationError(f"{quoted(text)} is not a stone: stones are numbered 1 to 9")
    return int(text) - 1


def _passes(token: str) -> int:
    if token not in ("0", "1", "2"):
        raise NotationError(f"passes in succession are 0, 1 or 2 (R6.2), not {quoted(token)}")
    return int(token)


def _tactics_played(token: str) -> list[int]:
    left, colon, right = token.partition(":")
    if not colon:
        raise NotationError(f"{quoted(token)}: write the tactic cards each seat played like 1:0")
    counts = [_integer(left), _integer(right)]
    if min(counts) < 0 or max(counts) > 10:
        raise NotationError(f"{quoted(token)}: each seat has played 0 to 10 tactic cards")
    if abs(counts[0] - counts[1]) > 1:
        raise NotationError(f"{quoted(token)}: a seat may be at most one tactic card ahead (R7.2)")
    return counts


def _cards(text: str) -> list[int]:
    return [] if text == EMPTY else parse_cards(text)


def _pair(token: str) -> list[list[int]]:
    if token.count(":") != 1:
        raise NotationError(f"{quoted(token)}: write seat 0's cards, ':', seat 1's cards")
    left, right = token.split(":")
    return [_cards(left), _cards(right)]


def _returned_by(token: str) -> list[list[int]]:
    if token.count(":") != 1 or any(ch not in "01:" for ch in token):
        raise NotationError(
            f"{quoted(token)}: write, for the clan deck then the tactic deck, which seat (0 or 1) put each "
            "bottom card there with the Recruiter, bottom first, separated by ':' (e.g. '01:')"
        )
    clan, tactic = token.split(":")
    return [[int(ch) for ch in clan], [int(ch) for ch in tactic]]


def _deck(token: str, tactic: bool) -> list[int]:
    cards = _cards(token)
    for card in cards:
        if (card >= NUM_CLAN) != tactic:
            kind = "tactic" if card >= NUM_CLAN else "clan"
            raise NotationError(f"{card_str(card)} is a {kind} card: it belongs in the {kind} deck")
    return cards


def _no_tactic_deck(token: str) -> list[int]:
    if token != EMPTY:
        raise NotationError(f"a game without tactic cards has no tactic deck: write {EMPTY}")
    return []


def _discards(token: str) -> list[list[int]]:
    piles = _pair(token)
    for seat, pile in enumerate(piles):
        for card in pile:
            if card in COMBAT_MODES:
                raise NotationError(
                    f"{card_str(card)} in seat {seat}'s discard pile: combat modes stay on their stone"
                )
    return piles


def _board(token: str) -> list[_Stone]:
    parts = token.split("/")
    if len(parts) != NUM_STONES:
        raise NotationError(f"the board has 9 stones separated by '/', not {len(parts)}")
    stones = []
    for stone, part in enumerate(parts):
        try:
            stones.append(_stone(part))
        except NotationError as error:
            raise NotationError(f"stone {stone + 1} {quoted(part)}: {error}") from None
    return stones


def _stone(text: str) -> _Stone:
    body, hash_, owner_text = text.partition("#")
    owner = _seat(owner_text, "the owner (after #)") if hash_ else -1
    body, plus, mode_text = body.partition("+")
    modes = _modes(mode_text) if plus else 0
    if body.count(":") != 1:
        raise NotationError("write seat 0's side, ':', seat 1's side (then +modes, then #owner)")
    left, right = body.split(":")
    sides: list[list[int]] = []
    marks: list[bool] = []
    for seat, side_text in enumerate((left, right)):
        marked = side_text.endswith("*")
        cards = _cards(side_text[:-1] if marked else side_text)
        for card in cards:
            _check_on_side(card, seat)
        sides.append(cards)
        marks.append(marked)
    return _Stone((sides[0], sides[1]), (marks[0], marks[1]), modes, owner)


def _modes(text: str) -> int:
    modes = 0
    for card in parse_cards(text):
        if card not in COMBAT_MODES:
            raise NotationError(f"only combat modes (BB, MF) go after '+', not {card_str(card)}")
        bit = MODE_BLUFF if card == BLUFF else MODE_MUD
        if modes & bit:
            raise NotationError(f"{card_str(card)} written twice")
        modes |= bit
    return modes


def _check_on_side(card: int, seat: int) -> None:
    if card in COMBAT_MODES:
        raise NotationError(
            f"{card_str(card)} on seat {seat}'s side: a combat mode lies on the stone, write it after '+'"
        )
    if card in RUSES:
        raise NotationError(f"{card_str(card)} on seat {seat}'s side: a ruse goes to its discard pile")


# ---------------------------------------------------------------------- consistency


def _check(f: _Fields) -> None:
    _check_cards(f)
    _check_stones(f)
    _check_match(f)
    _check_tactics(f)
    _check_discards(f)
    _check_hands(f)
    _check_phase(f)


def _locate(f: _Fields) -> dict[int, list[str]]:
    places: dict[int, list[str]] = {}

    def put(cards: list[int], where: str) -> None:
        for card in cards:
            places.setdefault(card, []).append(where)

    for seat in (0, 1):
        put(f.hands[seat], f"seat {seat}'s hand")
        put(f.discards[seat], f"seat {seat}'s discard pile")
        for stone, info in enumerate(f.stones):
            put(info.sides[seat], f"stone {stone + 1} (seat {seat}'s side)")
    for stone, info in enumerate(f.stones):
        put([BLUFF] if info.modes & MODE_BLUFF else [], f"stone {stone + 1} (combat mode)")
        put([MUD] if info.modes & MODE_MUD else [], f"stone {stone + 1} (combat mode)")
    put(f.clan_deck, "the clan deck")
    put(f.tactic_deck, "the tactic deck")
    put([f.held] if f.held >= 0 else [], "the held card")
    return places


def _check_cards(f: _Fields) -> None:
    """R1: every clan card, and with tactics every tactic card, is somewhere exactly once."""
    places = _locate(f)
    tactics = f.settings.tactics
    for card in sorted(places):
        where = places[card]
        if card >= NUM_CLAN and not tactics:
            raise NotationError(
                f"{card_str(card)} ({where[0]}) is a tactic card, not part of a {f.settings.variant} game"
            )
        copies = 2 if card == JOKER else 1
        if len(where) > copies:
            times = "twice" if len(where) == 2 else f"{len(where)} times"
            limit = "there are two Jokers" if card == JOKER else "there is one of each card"
            raise NotationError(f"{card_str(card)} appears {times} ({', '.join(where)}): {limit}")
    expected = list(range(NUM_CLAN)) + ([JOKER, *sorted(TACTIC_CODES)] if tactics else [])
    missing = [c for c in expected if len(places.get(c, [])) < (2 if c == JOKER else 1)]
    if missing:
        names = ", ".join(card_str(c) for c in missing)
        raise NotationError(f"missing cards: {names} (every card must be somewhere exactly once, R1)")


def _check_stones(f: _Fields) -> None:
    for seat in (0, 1):
        jokers = sum(info.sides[seat].count(JOKER) for info in f.stones)
        if f.held == JOKER and f.phase == Phase.STRATEGIST_PLACE and seat == f.turn:
            jokers += 1
        if jokers > 1:
            raise NotationError(f"seat {seat} has two Jokers on their side of the border (R7.3)")
    for stone, info in enumerate(f.stones):
        _check_stone(stone, info)


def _check_stone(stone: int, info: _Stone) -> None:
    name = f"board: stone {stone + 1}"
    size = 4 if info.modes & MODE_MUD else 3
    complete = [len(info.sides[seat]) == size for seat in (0, 1)]
    for seat in (0, 1):
        if len(info.sides[seat]) > size:
            raise NotationError(
                f"{name}: seat {seat}'s side holds {len(info.sides[seat])} cards, more than {size} "
                f"(R3.1{', R7.5' if size == 4 else ''})"
            )
        if info.marked[seat] and not all(complete):
            raise NotationError(
                f"{name}: '*' marks the side completed first when both sides are complete (R4.6)"
            )
    if all(complete) and info.marked[0] == info.marked[1]:
        raise NotationError(f"{name}: both sides are complete: mark the one completed first with '*' (R4.6)")
    if info.owner >= 0 and not complete[info.owner]:
        raise NotationError(f"{name}: claimed by seat {info.owner} whose side is not complete (R5)")


def _check_match(f: _Fields) -> None:
    done = len(f.outcomes)
    rounds = f.settings.rounds
    owners = [info.owner for info in f.stones]
    if f.phase == Phase.OVER:
        if f.round != rounds - 1 or done != rounds:
            raise NotationError(f"phase over: the game ends after the last round, with all {rounds} "
                                f"results written (found round {f.round + 1} and {done} results)")
        last = tuple(None if o < 0 else o for o in owners)
        if f.outcomes[-1].stones != last:
            raise NotationError("phase over: the last round's result must match the stones' owners")
        return
    if done != f.round:
        raise NotationError(f"round {f.round + 1} follows {f.round} finished rounds, but {done} results are "
                            "written")
    for seat in (0, 1):
        if _has_adjacent(owners, seat) or owners.count(seat) >= 5:
            raise NotationError(f"board: seat {seat} holds enough stones to have won the round (R6.1), "
                                "but the phase is not over")


def _check_tactics(f: _Fields) -> None:
    """R7.2: the tactic cards played add up with those out of the hands and decks."""
    own = [0, 0]
    for seat in (0, 1):
        own[seat] += sum(1 for c in f.discards[seat] if c >= NUM_CLAN)
        own[seat] += sum(1 for info in f.stones for c in info.sides[seat] if c >= NUM_CLAN)
    if f.held >= NUM_CLAN:
        own[f.turn] += 1
    modes = sum(bin(info.modes).count("1") for info in f.stones)
    played = f.tactics_played
    for seat in (0, 1):
        if played[seat] < own[seat]:
            raise NotationError(
                f"tactics: seat {seat} has played {played[seat]} tactic cards, but {own[seat]} of theirs "
                "are on their side, in their discard pile or held"
            )
    if sum(played) - sum(own) != modes:
        raise NotationError(
            f"tactics: {played[0]}:{played[1]} tactic cards played, but {sum(own) + modes} are on the "
            "board, in discard piles or held"
        )
    returned = f.returned_by[0] + f.returned_by[1]
    for seat in (0, 1):
        if seat in returned and RECRUITER not in f.discards[seat]:
            raise NotationError(
                f"bottom: seat {seat} put cards under the decks without having played the Recruiter (R7.7)"
            )
    if len(returned) > 2:
        raise NotationError("bottom: the Recruiter puts back two cards, not " + str(len(returned)))
    decks = (f.clan_deck, f.tactic_deck)
    for name, deck, seats in zip(("clan", "tactic"), decks, f.returned_by, strict=True):
        if len(seats) > len(deck):
            raise NotationError(f"bottom: {len(seats)} cards under the {name} deck, which holds {len(deck)}")


_AFTER_THE_CARD = (Phase.DRAW, Phase.STRATEGIST_TAKE, Phase.STRATEGIST_PLACE, Phase.BANSHEE,
                   Phase.TRAITOR_TAKE, Phase.TRAITOR_PLACE)
"""Phases of a turn in which the card of the turn has left the mover's hand and no card is drawn yet."""


def _hand_limits(f: _Fields, seat: int) -> tuple[int, int]:
    """The fewest and the most cards ``seat``'s hand may hold here (docs/notation.md, Hands)."""
    size, decks = f.settings.hand_size, len(f.clan_deck) + len(f.tactic_deck)
    mover = seat == f.turn
    if mover and f.phase == Phase.RECRUIT_DRAW:
        return size + 2 - f.counter, size + 2 - f.counter
    if mover and f.phase == Phase.RECRUIT_RETURN:
        most = size + f.counter
        return (most - 2 if decks == 2 - f.counter else most), most
    after = mover and (f.phase in _AFTER_THE_CARD or f.phase == Phase.OVER
                       or (f.phase == Phase.CLAIM and not f.settings.expert))
    forfeited = bool(f.outcomes) and f.outcomes[-1].reason == Reason.FORFEIT
    if mover and f.phase == Phase.OVER and forfeited:
        most = size + 2
    else:
        most = size - (mover and f.phase in _AFTER_THE_CARD)
    if not decks:
        return 0, most
    return size - (RECRUITER in f.discards[seat]) - after, most


def _check_hands(f: _Fields) -> None:
    """R3.4, R7.7: a hand is full after each turn while the decks hold cards (docs/notation.md)."""
    size = f.settings.hand_size
    if f.phase == Phase.DRAW and len(f.hands[f.turn]) >= size:
        raise NotationError(f"phase draw: seat {f.turn}'s hand is full ({size} cards, R3.4)")
    decks = len(f.clan_deck) + len(f.tactic_deck)
    for seat in (0, 1):
        held = len(f.hands[seat])
        least, most = _hand_limits(f, seat)
        if held > most:
            raise NotationError(f"hands: seat {seat} holds {held} cards, more than {most} (phase "
                                f"{phase_name(f.phase)}, R3.4)")
        if held < least:
            raise NotationError(
                f"hands: seat {seat} holds {held} cards, fewer than {least}: with {decks} cards in the "
                f"decks every turn ends with a full hand of {size} (phase {phase_name(f.phase)}, R3.4, R7.7)"
            )


def _check_discards(f: _Fields) -> None:
    """R7.6-R7.9: besides ruses, a discard pile holds only what its seat's Strategist discarded and
    what the other seat's Banshee banished (none in a game without tactic cards)."""
    for seat in (0, 1):
        pile, other = f.discards[seat], f.discards[1 - seat]
        put = [c for c in pile if c not in RUSES]
        room = (STRATEGIST in pile) + (BANSHEE in other)
        if seat == f.turn and f.phase in (Phase.STRATEGIST_TAKE, Phase.STRATEGIST_PLACE):
            room -= STRATEGIST in pile
        if seat != f.turn and f.phase == Phase.BANSHEE:
            room -= BANSHEE in other
        if len(put) > room:
            raise NotationError(
                f"discards: seat {seat}'s pile holds {cards_str(put)}, {len(put)} cards besides ruses, but "
                f"only its Strategist (R7.8) and the other seat's Banshee (R7.9) put cards there "
                f"({room} here)"
            )


def _check_phase(f: _Fields) -> None:
    name = f"phase {phase_name(f.phase)}"
    ruse = _RUSE_OF_PHASE.get(f.phase)
    if ruse is not None and ruse not in f.discards[f.turn]:
        raise NotationError(f"{name}: {card_str(ruse)} is not in seat {f.turn}'s discard pile (R7.6)")
    if f.phase in (Phase.DRAW, Phase.RECRUIT_DRAW) and not (f.clan_deck and f.tactic_deck):
        raise NotationError(f"{name}: a choice of deck needs both decks to hold cards (R3.4)")
    if f.phase in _HOLDING:
        if f.stones[f.held_from].owner >= 0:
            raise NotationError(f"{name}: the held card came from stone {f.held_from + 1}, which is claimed")
        if f.phase == Phase.TRAITOR_PLACE and f.held >= NUM_CLAN:
            raise NotationError(f"{name}: the Traitor takes only clan cards (R7.10)")


def _build(f: _Fields) -> GameState:
    state = GameState.__new__(GameState)
    state.settings = f.settings
    state.seed = f.seed
    state.round = f.round
    state.first = f.first
    state.turn = f.turn
    state.phase = f.phase
    state.hands = f.hands
    state.sides = [[info.sides[seat] for info in f.stones] for seat in (0, 1)]
    state.modes = [info.modes for info in f.stones]
    state.owner = [info.owner for info in f.stones]
    state.stamps = [[-1] * NUM_STONES for _ in (0, 1)]
    for stone, info in enumerate(f.stones):
        for seat in (0, 1):
            if len(info.sides[seat]) == state.capacity(stone):
                state.stamps[seat][stone] = 1 if info.marked[seat] or not info.marked[1 - seat] else 2
    state.clock = 2
    state.clan_deck = f.clan_deck
    state.tactic_deck = f.tactic_deck
    state.discards = f.discards
    state.tactics_played = f.tactics_played
    state.passes = f.passes
    state.pool = _pool(f)
    state.held, state.held_from = f.held, f.held_from
    state.recruit_draws = f.counter if f.phase == Phase.RECRUIT_DRAW else 0
    state.recruit_returns = f.counter if f.phase == Phase.RECRUIT_RETURN else 0
    state.returned_by = f.returned_by
    state.forfeited = None
    state.history = []
    state.movers = []
    state.last_draw = -1
    state.round_boards = []
    state.round_starts = [0] * (len(f.outcomes) + 1)
    state._versions = [0] * NUM_STONES
    state._refuted = [None] * (2 * NUM_STONES)
    _build_match(state, f.outcomes)
    state.claimable = state.claimable_stones(state.turn) if state.phase == Phase.CLAIM else []
    return state


def _pool(f: _Fields) -> int:
    """The clan cards not on the board nor discarded: those in the hands and the clan deck."""
    pool = 0
    for card in f.hands[0] + f.hands[1] + f.clan_deck:
        if card < NUM_CLAN:
            pool |= 1 << card
    return pool


def _build_match(state: GameState, outcomes: list[Outcome]) -> None:
    state.round_outcomes = outcomes
    state.scores = [sum(o.points[seat] for o in outcomes) for seat in (0, 1)]
    state.rounds_won = [sum(1 for o in outcomes if o.winner == seat) for seat in (0, 1)]
    state.outcome = None
    if state.phase == Phase.OVER:
        state.outcome = MatchResult(
            state._match_winner(), (state.scores[0], state.scores[1]), tuple(outcomes)
        )


def _check_playable(state: GameState) -> None:
    phase = phase_name(state.phase)
    if state.phase == Phase.CLAIM and not state.claimable:
        raise NotationError(f"phase claim: seat {state.turn} has no stone to claim (R5)")
    if state.phase != Phase.OVER and not state.legal_action_ids():
        raise NotationError(f"phase {phase}: seat {state.turn} has no legal action in this position")

