"""Explanations: the claim proof (R5) as data and in words, formations as data, and why an
action is not legal now.

The claim proof is computed once, as data (``claim_proof``: its kind and both formations);
``proof_words`` writes the English sentence from that data and ``prove`` gives both. A page
can put the same data in any language.

Everything here reads only what both players may know (R10.1): the board, the discard
piles and the mask of unseen clan cards, and for ``why_illegal`` the mover's own hand. An
explanation never says where an unseen card is (a hand or the deck), so it is safe to show
either player. It reads a game through ``Table``, the part of ``GameState`` it needs, so
that ``state`` can import this module and not the other way round.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from .actions import Action, Kind
from .cards import (
    BLUFF,
    COLOURS,
    JOKER,
    MODE_BLUFF,
    MODE_MUD,
    MUD,
    NUM_CLAN,
    NUM_STONES,
    RUSES,
    TACTIC_NAMES,
    card_name,
    card_str,
    colour_of,
    parse_card,
    value_of,
)
from .formations import RANK_SHIFT, Formation, best_formation, rank_of, total_of
from .phases import Phase


class _Rules(Protocol):
    @property
    def expert(self) -> bool: ...


class Table(Protocol):
    """What an explanation reads of a game (``GameState`` has it all): see ``GameState``."""

    @property
    def settings(self) -> _Rules: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def turn(self) -> int: ...
    @property
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    def sides(self) -> Sequence[Sequence[Sequence[int]]]: ...
    @property
    def modes(self) -> Sequence[int]: ...
    @property
    def owner(self) -> Sequence[int]: ...
    @property
    def pool(self) -> int: ...
    @property
    def tactics_played(self) -> Sequence[int]: ...
    def capacity(self, stone: int) -> int: ...
    def is_complete(self, seat: int, stone: int) -> bool: ...
    def strength(self, seat: int, stone: int) -> int: ...
    def beats(self, seat: int, stone: int) -> bool: ...


PHASE_TASKS: dict[Phase, str] = {
    Phase.PLAY: "play a card (or pass if none can be played)",
    Phase.CLAIM: "claim stones or say done",
    Phase.DRAW: "draw from the clan or the tactic deck",
    Phase.STRATEGIST_TAKE: "take one of your cards from an unclaimed stone (Strategist)",
    Phase.STRATEGIST_PLACE: "put the taken card on another stone or discard it (Strategist)",
    Phase.BANSHEE: "banish one of your opponent's cards from an unclaimed stone (Banshee)",
    Phase.TRAITOR_TAKE: "take one of your opponent's clan cards from an unclaimed stone (Traitor)",
    Phase.TRAITOR_PLACE: "put the taken card on your side of a stone (Traitor)",
    Phase.RECRUIT_DRAW: "draw from the clan or the tactic deck (Recruiter)",
    Phase.RECRUIT_RETURN: "put a card from your hand under its deck (Recruiter)",
    Phase.OVER: "nothing: the game is over",
}

RANK_KEYS = ("sum", "run", "colour", "three-of-a-kind", "colour-run")
"""The formation ranks (SUM .. COLOUR_RUN) as keys for a page to translate."""

_RANK_WORDS = ("total", "run", "colour", "three of a kind", "colour-run")


class ClaimKind(StrEnum):
    """Why a claim holds (the first four) or why it does not (R5)."""

    BEATS = "beats"
    """R5.1: both sides complete, and the seat's is stronger."""
    TIES_FIRST = "ties_first"
    """R4.6: both sides complete, equal, and the seat's was completed first."""
    UNBEATABLE = "unbeatable"
    """R5.2: no completion of the other side from the unseen cards beats the seat's."""
    INCOMPLETABLE = "incompletable"
    """R5.2: too few clan cards remain unseen to complete the other side."""
    CLOSED = "closed"
    """R5.3: no such stone, or it is claimed already."""
    INCOMPLETE = "incomplete"
    """R5: the seat's side is not complete."""
    LOSES = "loses"
    """R4: the other complete side wins (stronger, or equal and completed first)."""
    CAN_LOSE = "can_lose"
    """R5.2: the other side can still make a stronger formation."""


CLAIM_KINDS = (ClaimKind.BEATS, ClaimKind.TIES_FIRST, ClaimKind.UNBEATABLE, ClaimKind.INCOMPLETABLE)
"""Why a claim holds: R5.1 beats, R4.6 tie completed first, R5.2 cannot be beaten or completed."""


# ---------------------------------------------------------------- formations as data


@dataclass(frozen=True, slots=True)
class Shown:
    """A formation as data a page can put in words: rank key, total, cards (notation).

    ``cards`` are sorted by value, each elite troop as the clan card it stands for;
    ``troops`` pairs each elite troop with that card; ``bluff``: Blind-man's Bluff (totals only).
    """

    rank: str
    total: int
    cards: tuple[str, ...]
    troops: tuple[tuple[str, str], ...] = ()
    bluff: bool = False

    @property
    def strength(self) -> int:
        """The formation's strength number (``formations.strength_of``)."""
        return RANK_KEYS.index(self.rank) * RANK_SHIFT + self.total

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``{"rank", "total", "cards", "troops": [{"card", "as"}], "bluff"}``."""
        return {
            "rank": self.rank,
            "total": self.total,
            "cards": list(self.cards),
            "troops": [{"card": card, "as": role} for card, role in self.troops],
            "bluff": self.bluff,
        }


def formation_words(shown: Shown) -> str:
    """A formation in English: ``colour-run blue 7-8-9``, ``total 17 (4-6-7)``, ``four of a kind
    2-2-2-2`` (Mud Fight, R7.5), with each elite troop's role: ``(Joker as red 9)``."""
    cards = [parse_card(c) for c in shown.cards]
    values = "-".join(str(value_of(c)) for c in cards)
    rank = RANK_KEYS.index(shown.rank)
    if shown.bluff or rank == 0:
        text = f"total {shown.total} ({values})"
    elif rank in (2, 4):
        text = f"{_RANK_WORDS[rank]} {COLOURS[colour_of(cards[0])]} {values}"
    elif rank == 3 and len(cards) == 4:
        text = f"four of a kind {values}"
    else:
        text = f"{_RANK_WORDS[rank]} {values}"
    roles = [f"{TACTIC_NAMES[parse_card(w)]} as {card_name(parse_card(c))}" for w, c in shown.troops]
    return text + (f" ({', '.join(roles)})" if roles else "")


def _split(cards: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A side's clan cards and its elite troops, each in play order."""
    return tuple(c for c in cards if c < NUM_CLAN), tuple(c for c in cards if c >= NUM_CLAN)


def _shown(clan: tuple[int, ...], wild: tuple[int, ...], found: Formation, bluff: bool) -> Shown:
    cards = sorted(clan + found.added + found.wild_as, key=lambda c: (value_of(c), colour_of(c)))
    troops = tuple((card_str(w), card_str(c)) for w, c in zip(wild, found.wild_as, strict=True))
    rank = RANK_KEYS[rank_of(found.strength)]
    return Shown(rank, total_of(found.strength), tuple(card_str(c) for c in cards), troops, bluff)


def side_formation(cards: Sequence[int], modes: int) -> Shown | None:
    """The formation a complete side makes (elite troops at their best, R7.3) on a stone with
    the combat-mode bits ``modes``; None while the side is not complete (R4)."""
    size = 4 if modes & MODE_MUD else 3
    if len(cards) < size:
        return None
    return _complete_formation(tuple(cards), modes, size)


@functools.lru_cache(maxsize=4096)
def _complete_formation(cards: tuple[int, ...], modes: int, size: int) -> Shown:
    """``side_formation`` of a complete side, remembered: the same cards on the same stone make the
    same formation, and a board repeats its sides from one position to the next."""
    clan, wild = _split(cards)
    bluff = bool(modes & MODE_BLUFF)
    found = best_formation(clan, wild, size, bluff, 0)
    assert found is not None, "a complete side always forms something"
    return _shown(clan, wild, found, bluff)


def reachable(table: Table, seat: int, stone: int) -> tuple[Shown, tuple[int, ...]] | None:
    """The strongest formation ``seat``'s side of ``stone`` can still reach from the unseen clan
    cards (R5.2; a complete side: the one it makes), with the unseen cards it adds; None if
    too few remain to complete it."""
    pool = 0 if table.is_complete(seat, stone) else table.pool
    clan, wild = _split(table.sides[seat][stone])
    bluff = bool(table.modes[stone] & MODE_BLUFF)
    found = best_formation(clan, wild, table.capacity(stone), bluff, pool)
    return None if found is None else (_shown(clan, wild, found, bluff), found.added)


def board_formations(
    sides: Sequence[Sequence[Sequence[int]]], modes: Sequence[int]
) -> list[list[dict[str, Any] | None]]:
    """For each stone, both sides' formations as ``Shown.to_dict`` data (None: not complete);
    ``sides[stone][seat]`` are the cards, ``modes[stone]`` the combat-mode bits."""
    result: list[list[dict[str, Any] | None]] = []
    for stone, pair in enumerate(sides):
        shown = [side_formation(cards, modes[stone]) for cards in pair]
        result.append([None if s is None else s.to_dict() for s in shown])
    return result


def formations(table: Table) -> list[list[dict[str, Any] | None]]:
    """Every stone's formations now, both sides (see ``board_formations``): public (R10.1)."""
    sides = [(table.sides[0][s], table.sides[1][s]) for s in range(NUM_STONES)]
    return board_formations(sides, table.modes)


# ---------------------------------------------------------------- the claim proof


@dataclass(frozen=True, slots=True)
class ClaimProof:
    """The claim proof as data: whether ``seat`` may claim ``stone`` (R5), why, with which formations.

    ``kind`` is one of ``ClaimKind``. ``mine`` is the seat's complete side; ``theirs`` the
    other complete side, or the best it can still make (stronger than ``mine`` for
    ``can_lose``, with the unseen clan cards it needs in ``needed``), None when it cannot be
    completed. ``claimed_by`` is the seat holding a closed stone (-1: no such stone); ``held``
    and ``size`` are the cards on the seat's side and the stone's capacity. ``text`` is the
    English sentence (``proof_words``).
    """

    stone: int
    seat: int
    holds: bool
    kind: ClaimKind
    mine: Shown | None = None
    theirs: Shown | None = None
    needed: tuple[int, ...] = ()
    claimed_by: int = -1
    held: int = 0
    size: int = 3

    @property
    def text(self) -> str:
        """The proof in English, citing the rule (``proof_words``)."""
        return proof_words(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``{"text", "kind", "mine", "theirs"}`` (formations as ``Shown.to_dict``)."""
        return {
            "text": self.text,
            "kind": self.kind.value,
            "mine": self.mine.to_dict() if self.mine else None,
            "theirs": self.theirs.to_dict() if self.theirs else None,
        }


def claim_proof(table: Table, seat: int, stone: int) -> ClaimProof:
    """Whether ``seat`` may claim ``stone`` now (R5), why, and with which formations."""
    if not 0 <= stone < NUM_STONES:
        return ClaimProof(stone, seat, False, ClaimKind.CLOSED)
    size, held = table.capacity(stone), len(table.sides[seat][stone])
    if table.owner[stone] >= 0:
        return ClaimProof(stone, seat, False, ClaimKind.CLOSED, claimed_by=table.owner[stone], size=size)
    if held < size:
        return ClaimProof(stone, seat, False, ClaimKind.INCOMPLETE, held=held, size=size)
    mine = side_formation(table.sides[seat][stone], table.modes[stone])
    assert mine is not None
    if not table.is_complete(1 - seat, stone):
        return _open_claim(table, seat, stone, mine)
    theirs = side_formation(table.sides[1 - seat][stone], table.modes[stone])
    if not table.beats(seat, stone):
        return ClaimProof(stone, seat, False, ClaimKind.LOSES, mine, theirs, held=held, size=size)
    tie = table.strength(seat, stone) == table.strength(1 - seat, stone)
    kind = ClaimKind.TIES_FIRST if tie else ClaimKind.BEATS
    return ClaimProof(stone, seat, True, kind, mine, theirs, held=held, size=size)


def _open_claim(table: Table, seat: int, stone: int, mine: Shown) -> ClaimProof:
    """R5.2: the other side is not complete; what can it still make from the unseen cards?"""
    clan, wild = _split(table.sides[1 - seat][stone])
    size, bluff = table.capacity(stone), bool(table.modes[stone] & MODE_BLUFF)
    beating = best_formation(clan, wild, size, bluff, table.pool, table.strength(seat, stone))
    if beating is not None:
        theirs = _shown(clan, wild, beating, bluff)
        return ClaimProof(stone, seat, False, ClaimKind.CAN_LOSE, mine, theirs, beating.added,
                          held=size, size=size)
    best = best_formation(clan, wild, size, bluff, table.pool)
    if best is None:
        return ClaimProof(stone, seat, True, ClaimKind.INCOMPLETABLE, mine, held=size, size=size)
    theirs = _shown(clan, wild, best, bluff)
    return ClaimProof(stone, seat, True, ClaimKind.UNBEATABLE, mine, theirs, held=size, size=size)


def proof_words(proof: ClaimProof) -> str:
    """The claim proof in English, from its data, citing the rule it rests on."""
    name = f"stone {proof.stone + 1}"
    if proof.kind == ClaimKind.CLOSED:
        if proof.claimed_by < 0:
            return f"there is no stone {proof.stone + 1}: stones are 1 to 9"
        who = "you" if proof.claimed_by == proof.seat else "your opponent"
        return f"{name} is already claimed by {who} (R5.3)"
    if proof.kind == ClaimKind.INCOMPLETE:
        return f"your side of {name} holds {proof.held} of {proof.size} cards (R5)"
    assert proof.mine is not None
    mine = formation_words(proof.mine)
    if proof.kind == ClaimKind.INCOMPLETABLE:
        return f"your {mine} wins: their side cannot be completed, too few clan cards remain unseen (R5.2)"
    assert proof.theirs is not None
    theirs = formation_words(proof.theirs)
    tie = proof.mine.strength == proof.theirs.strength
    if proof.kind == ClaimKind.BEATS:
        return f"your {mine} beats their {theirs} (R5.1)"
    if proof.kind == ClaimKind.TIES_FIRST:
        return f"your {mine} ties their {theirs} and you completed first (R4.6)"
    if proof.kind == ClaimKind.LOSES:
        if tie:
            return f"your {mine} ties their {theirs} but they completed first (R4.6)"
        return f"their {theirs} beats your {mine} (R4)"
    if proof.kind == ClaimKind.UNBEATABLE:
        return f"your {mine} cannot be beaten: the best their side can still make is {theirs} (R5.2)"
    why = f"their side can still make {theirs}, which beats your {mine}"
    if not proof.needed:
        return why + " (R5.2)"
    missing = " and ".join(card_name(c) for c in proof.needed)
    return f"{why}: {missing} {'are' if len(proof.needed) > 1 else 'is'} not visible yet (R5.2)"


@dataclass(frozen=True, slots=True)
class Proof:
    """The claim proof for one seat and stone: whether it holds and why, in words.

    ``needed`` lists the unseen clan cards a refuting completion would need.
    """

    stone: int
    seat: int
    holds: bool
    reason: str
    needed: tuple[int, ...] = ()


def prove(table: Table, seat: int, stone: int) -> Proof:
    """Whether ``seat`` may claim ``stone`` now (R5), with the reason in words (``claim_proof``)."""
    found = claim_proof(table, seat, stone)
    return Proof(stone, seat, found.holds, found.text, found.needed)


# ---------------------------------------------------------------- illegal actions


def why_illegal(table: Table, action: Action) -> str:
    """A sentence saying why ``action`` is not legal now, naming the rule where one applies."""
    if table.phase == Phase.OVER:
        return "the game is over: no action is legal"
    task = PHASE_TASKS[table.phase]
    if action.kind == Kind.CLAIM and table.phase in (Phase.PLAY, Phase.CLAIM):
        return _why_not_claim(table, action.stone)
    if action.kind in (Kind.PLAY, Kind.RUSE) and table.phase == Phase.PLAY:
        return _why_not_play(table, action.card, action.stone)
    if action.kind == Kind.PASS and table.phase == Phase.PLAY:
        return "you may not pass while you can play a card (R3.2)"
    if action.kind == Kind.RETURN and table.phase == Phase.RECRUIT_RETURN:
        return f"you have no {card_str(action.card)} in your hand"
    if action.kind in (Kind.TAKE, Kind.BANISH, Kind.PLACE):
        return f"{action} is not a legal choice now: you must {task}"
    return f"{action} is not legal now: you must {task}"


def _why_not_claim(table: Table, stone: int) -> str:
    if table.settings.expert and table.phase == Phase.PLAY:
        return "in the expert variant stones are claimed only at the start of your turn (R8.1)"
    if table.phase == Phase.PLAY:
        return "claim after playing a card: play (or pass) first (R3.3)"
    return f"you cannot claim stone {stone + 1}: {claim_proof(table, table.turn, stone).text}"


def _why_not_play(table: Table, card: int, stone: int) -> str:
    seat = table.turn
    if card not in table.hands[seat]:
        return f"you have no {card_str(card)} in your hand"
    if card >= NUM_CLAN and table.tactics_played[seat] > table.tactics_played[1 - seat]:
        return ("you have played one tactic card more than your opponent: wait until they "
                "play one (R7.2)")
    if card in RUSES:
        return f"the {TACTIC_NAMES[card]} has nothing to act on now (R7.11)"
    where = f"stone {stone + 1}"
    if table.owner[stone] >= 0:
        return f"{where} is claimed: no card may be played on it (R5.3)"
    if card == JOKER and any(JOKER in side for side in table.sides[seat]):
        return "you already have a Joker on your side of the border (R7.3)"
    if card >= BLUFF:
        assert card <= MUD
        return f"{where} already has {TACTIC_NAMES[card]}"
    return f"your side of {where} is full ({table.capacity(stone)} cards) (R3.1)"
