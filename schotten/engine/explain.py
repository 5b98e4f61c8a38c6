"""Explanations: the claim proof in words (R5) and why an action is not legal now.

Everything here reads only what both players may know (R10.1): the board, the
discard piles and the mask of unseen clan cards. An explanation never says where
an unseen card is (a hand or the deck), so it is safe to show either player.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, Kind
from .cards import (
    BLUFF,
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
    value_of,
)
from .formations import Formation, best_formation, describe, rank_of, total_of
from .state import GameState, Phase

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


def _side_cards(state: GameState, seat: int, stone: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    side = state.sides[seat][stone]
    return tuple(c for c in side if c < NUM_CLAN), tuple(c for c in side if c >= NUM_CLAN)


def _formation_text(state: GameState, stone: int, clan: tuple[int, ...], found: Formation,
                    wild: tuple[int, ...]) -> str:
    bluff = bool(state.modes[stone] & MODE_BLUFF)
    cards = clan + found.added + found.wild_as
    text = describe(found.strength, cards, bluff)
    roles = [f"{TACTIC_NAMES[w]} as {card_name(c)}" for w, c in zip(wild, found.wild_as, strict=True)]
    return text + (f" ({', '.join(roles)})" if roles else "")


def _side_text(state: GameState, seat: int, stone: int) -> str:
    clan, wild = _side_cards(state, seat, stone)
    found = best_formation(clan, wild, state.capacity(stone), bool(state.modes[stone] & MODE_BLUFF), 0)
    assert found is not None
    return _formation_text(state, stone, clan, found, wild)


def prove(state: GameState, seat: int, stone: int) -> Proof:
    """Whether ``seat`` may claim ``stone`` now (R5), with the reason in words."""
    name = f"stone {stone + 1}"
    if not 0 <= stone < NUM_STONES:
        return Proof(stone, seat, False, f"there is no stone {stone + 1}: stones are 1 to 9")
    if state.owner[stone] >= 0:
        who = "you" if state.owner[stone] == seat else "your opponent"
        return Proof(stone, seat, False, f"{name} is already claimed by {who} (R5.3)")
    size = state.capacity(stone)
    held = len(state.sides[seat][stone])
    if held < size:
        return Proof(stone, seat, False, f"your side of {name} holds {held} of {size} cards (R5)")
    mine = _side_text(state, seat, stone)
    if state.is_complete(1 - seat, stone):
        return _compare(state, seat, stone, mine)
    return _prove_incomplete(state, seat, stone, mine)


def _compare(state: GameState, seat: int, stone: int, mine: str) -> Proof:
    theirs = _side_text(state, 1 - seat, stone)
    if state.beats(seat, stone):
        if state.strength(seat, stone) == state.strength(1 - seat, stone):
            why = f"your {mine} ties their {theirs} and you completed first (R4.6)"
        else:
            why = f"your {mine} beats their {theirs} (R5.1)"
        return Proof(stone, seat, True, why)
    if state.strength(seat, stone) == state.strength(1 - seat, stone):
        why = f"your {mine} ties their {theirs} but they completed first (R4.6)"
    else:
        why = f"their {theirs} beats your {mine} (R4)"
    return Proof(stone, seat, False, why)


def _prove_incomplete(state: GameState, seat: int, stone: int, mine: str) -> Proof:
    clan, wild = _side_cards(state, 1 - seat, stone)
    size, bluff = state.capacity(stone), bool(state.modes[stone] & MODE_BLUFF)
    found = best_formation(clan, wild, size, bluff, state.pool, state.strength(seat, stone))
    if found is not None:
        text = _formation_text(state, stone, clan, found, wild)
        missing = " and ".join(card_name(c) for c in found.added)
        seen = "are" if len(found.added) > 1 else "is"
        why = f"their side can still make {text}, which beats your {mine}"
        if missing:
            why += f": {missing} {seen} not visible yet (R5.2)"
        return Proof(stone, seat, False, why + ("" if missing else " (R5.2)"), found.added)
    best = best_formation(clan, wild, size, bluff, state.pool)
    if best is None:
        why = (f"your {mine} wins: their side cannot be completed, too few clan cards "
               f"remain unseen (R5.2)")
    else:
        text = _formation_text(state, stone, clan, best, wild)
        why = (f"your {mine} cannot be beaten: the best their side can still make is "
               f"{text} (R5.2)")
    return Proof(stone, seat, True, why)


RANK_KEYS = ("sum", "run", "colour", "three-of-a-kind", "colour-run")
"""The formation ranks (SUM .. COLOUR_RUN) as keys for a page to translate."""

CLAIM_KINDS = ("beats", "ties_first", "unbeatable", "incompletable")
"""Why a claim holds: R5.1 beats, R4.6 tie completed first, R5.2 cannot be beaten or completed."""


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

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``{"rank", "total", "cards", "troops": [{"card", "as"}], "bluff"}``."""
        return {
            "rank": self.rank,
            "total": self.total,
            "cards": list(self.cards),
            "troops": [{"card": card, "as": role} for card, role in self.troops],
            "bluff": self.bluff,
        }


@dataclass(frozen=True, slots=True)
class ClaimProof:
    """The claim proof as data: whether it holds, its kind, both formations and ``prove``'s words.

    ``kind`` is one of CLAIM_KINDS when the claim holds; otherwise ``closed`` (no such stone
    or already claimed), ``incomplete`` (the seat's side is not full), ``loses`` (the other
    complete side wins) or ``can_lose`` (the other side can still make ``theirs``, stronger).
    ``theirs`` is the other complete side, or the best it can still make; None when it
    cannot be completed.
    """

    stone: int
    seat: int
    holds: bool
    kind: str
    text: str
    mine: Shown | None = None
    theirs: Shown | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON data: ``{"text", "kind", "mine", "theirs"}`` (formations as ``Shown.to_dict``)."""
        return {
            "text": self.text,
            "kind": self.kind,
            "mine": self.mine.to_dict() if self.mine else None,
            "theirs": self.theirs.to_dict() if self.theirs else None,
        }


def _shown(state: GameState, stone: int, clan: tuple[int, ...], wild: tuple[int, ...],
           found: Formation) -> Shown:
    return _shown_as(clan, wild, found, bool(state.modes[stone] & MODE_BLUFF))


def _shown_as(clan: tuple[int, ...], wild: tuple[int, ...], found: Formation, bluff: bool) -> Shown:
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
    clan = tuple(c for c in cards if c < NUM_CLAN)
    wild = tuple(c for c in cards if c >= NUM_CLAN)
    bluff = bool(modes & MODE_BLUFF)
    found = best_formation(clan, wild, size, bluff, 0)
    assert found is not None, "a complete side always forms something"
    return _shown_as(clan, wild, found, bluff)


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


def formations(state: GameState) -> list[list[dict[str, Any] | None]]:
    """Every stone's formations now, both sides (see ``board_formations``): public (R10.1)."""
    sides = [(state.sides[0][s], state.sides[1][s]) for s in range(NUM_STONES)]
    return board_formations(sides, state.modes)


def _complete_shown(state: GameState, seat: int, stone: int) -> Shown:
    clan, wild = _side_cards(state, seat, stone)
    found = best_formation(clan, wild, state.capacity(stone), bool(state.modes[stone] & MODE_BLUFF), 0)
    assert found is not None
    return _shown(state, stone, clan, wild, found)


def claim_proof(state: GameState, seat: int, stone: int) -> ClaimProof:
    """``prove`` as data: whether ``seat`` may claim ``stone`` now (R5), why, and with which formations.

    ``text`` is ``prove(state, seat, stone).reason``; the rest lets a page say it in any language.
    """
    text = prove(state, seat, stone).reason
    if not 0 <= stone < NUM_STONES or state.owner[stone] >= 0:
        return ClaimProof(stone, seat, False, "closed", text)
    if not state.is_complete(seat, stone):
        return ClaimProof(stone, seat, False, "incomplete", text)
    mine = _complete_shown(state, seat, stone)
    if not state.is_complete(1 - seat, stone):
        return _open_claim(state, seat, stone, text, mine)
    theirs = _complete_shown(state, 1 - seat, stone)
    if not state.beats(seat, stone):
        return ClaimProof(stone, seat, False, "loses", text, mine, theirs)
    tie = state.strength(seat, stone) == state.strength(1 - seat, stone)
    return ClaimProof(stone, seat, True, "ties_first" if tie else "beats", text, mine, theirs)


def _open_claim(state: GameState, seat: int, stone: int, text: str, mine: Shown) -> ClaimProof:
    """R5.2: the other side is not complete; what can it still make from the unseen cards?"""
    clan, wild = _side_cards(state, 1 - seat, stone)
    size, bluff = state.capacity(stone), bool(state.modes[stone] & MODE_BLUFF)
    beating = best_formation(clan, wild, size, bluff, state.pool, state.strength(seat, stone))
    if beating is not None:
        theirs = _shown(state, stone, clan, wild, beating)
        return ClaimProof(stone, seat, False, "can_lose", text, mine, theirs)
    best = best_formation(clan, wild, size, bluff, state.pool)
    if best is None:
        return ClaimProof(stone, seat, True, "incompletable", text, mine)
    return ClaimProof(stone, seat, True, "unbeatable", text, mine, _shown(state, stone, clan, wild, best))


def why_illegal(state: GameState, action: Action) -> str:
    """A sentence saying why ``action`` is not legal now, naming the rule where one applies."""
    if state.phase == Phase.OVER:
        return "the game is over: no action is legal"
    task = PHASE_TASKS[state.phase]
    if action.kind == Kind.CLAIM and state.phase in (Phase.PLAY, Phase.CLAIM):
        return _why_not_claim(state, action.stone)
    if action.kind in (Kind.PLAY, Kind.RUSE) and state.phase == Phase.PLAY:
        return _why_not_play(state, action.card, action.stone)
    if action.kind == Kind.PASS and state.phase == Phase.PLAY:
        return "you may not pass while you can play a card (R3.2)"
    if action.kind == Kind.RETURN and state.phase == Phase.RECRUIT_RETURN:
        return f"you have no {card_str(action.card)} in your hand"
    if action.kind in (Kind.TAKE, Kind.BANISH, Kind.PLACE):
        return f"{action} is not a legal choice now: you must {task}"
    return f"{action} is not legal now: you must {task}"


def _why_not_claim(state: GameState, stone: int) -> str:
    if state.settings.expert and state.phase == Phase.PLAY:
        return "in the expert variant stones are claimed only at the start of your turn (R8.1)"
    if state.phase == Phase.PLAY:
        return "claim after playing a card: play (or pass) first (R3.3)"
    return f"you cannot claim stone {stone + 1}: {prove(state, state.turn, stone).reason}"


def _why_not_play(state: GameState, card: int, stone: int) -> str:
    seat = state.turn
    if card not in state.hands[seat]:
        return f"you have no {card_str(card)} in your hand"
    if card >= NUM_CLAN and state.tactics_played[seat] > state.tactics_played[1 - seat]:
        return ("you have played one tactic card more than your opponent: wait until they "
                "play one (R7.2)")
    if card in RUSES:
        return f"the {TACTIC_NAMES[card]} has nothing to act on now (R7.11)"
    where = f"stone {stone + 1}"
    if state.owner[stone] >= 0:
        return f"{where} is claimed: no card may be played on it (R5.3)"
    if card == JOKER and any(JOKER in side for side in state.sides[seat]):
        return "you already have a Joker on your side of the border (R7.3)"
    if card >= BLUFF:
        assert card <= MUD
        return f"{where} already has {TACTIC_NAMES[card]}"
    return f"your side of {where} is full ({state.capacity(stone)} cards) (R3.1)"
