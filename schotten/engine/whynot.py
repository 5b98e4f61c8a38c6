"""Why a seat may not claim a stone now, from that seat's view alone (R10).

``why_not(seen)`` answers, for every unclaimed stone on which the view's seat has a complete
side and which it may not claim now, with the claim proof (``explain.claim_proof``) and, when
the proof holds, the rule of the claim step the seat waits for. It reads only the view: the
board, the discard piles and the card a ruse holds. The unseen clan cards are every clan card
not in sight there, both hands and the decks alike (R5.2), so no answer ever depends on the
opponent's hand or the deck order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import MODE_BLUFF, MODE_MUD, NUM_CLAN, card_str
from .explain import ClaimProof, claim_proof
from .formations import side_strength
from .numeric import NumericView, clan_mask
from .phases import Phase
from .view import View

ALL_CLAN = (1 << NUM_CLAN) - 1


@dataclass(frozen=True, slots=True)
class _Rules:
    expert: bool


@dataclass(frozen=True, slots=True)
class SeenTable:
    """The part of a game a claim proof reads (``explain.Table``), built from one seat's view.

    ``hands`` holds the seat's own hand only (the other is not known: empty here; a claim proof
    never reads a hand). ``first[stone]`` is the seat whose side became complete first (-1: none).
    """

    settings: _Rules
    phase: Phase
    turn: int
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    sides: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    modes: tuple[int, ...]
    owner: tuple[int, ...]
    first: tuple[int, ...]
    pool: int
    tactics_played: tuple[int, int]

    @staticmethod
    def of(seen: View) -> SeenTable:
        """The table ``seen`` shows (a seat's or a spectator's view)."""
        numbers = NumericView.of(seen)
        in_sight = [c for side in numbers.sides for cards in side for c in cards]
        in_sight += [*numbers.discards[0], *numbers.discards[1]]
        if numbers.held >= 0:
            in_sight.append(numbers.held)
        own = numbers.hand if seen.seat is not None else ()
        hands = (own, ()) if seen.seat == 0 else ((), own)
        return SeenTable(
            settings=_Rules(seen.variant.startswith("expert")),
            phase=numbers.phase,
            turn=seen.turn,
            hands=hands,
            sides=numbers.sides,
            modes=numbers.modes,
            owner=tuple(stone.owner for stone in seen.stones),
            first=tuple(stone.first for stone in seen.stones),
            pool=ALL_CLAN & ~clan_mask(in_sight),
            tactics_played=seen.tactics_played,
        )

    def capacity(self, stone: int) -> int:
        """Cards a complete side of ``stone`` holds: 3, or 4 under Mud Fight (R7.5)."""
        return 4 if self.modes[stone] & MODE_MUD else 3

    def is_complete(self, seat: int, stone: int) -> bool:
        """Whether ``seat``'s side of ``stone`` holds all its cards (R4)."""
        return len(self.sides[seat][stone]) == self.capacity(stone)

    def strength(self, seat: int, stone: int) -> int:
        """The strength of a complete side, elite troops at their best (R7.3)."""
        bluff = bool(self.modes[stone] & MODE_BLUFF)
        return side_strength(tuple(sorted(self.sides[seat][stone])), self.capacity(stone), bluff)

    def beats(self, seat: int, stone: int) -> bool:
        """Whether ``seat``'s complete side beats the other complete side (R4.6)."""
        mine, theirs = self.strength(seat, stone), self.strength(1 - seat, stone)
        return mine > theirs if mine != theirs else self.first[stone] == seat


@dataclass(frozen=True, slots=True)
class WhyNot:
    """Why a seat may not claim ``proof.stone`` now: the claim proof (R5) from its view, and
    ``wait``, the rule of the claim step it waits for when the proof holds (R3.3; R8.1 in the
    expert variant), else None."""

    proof: ClaimProof
    wait: str | None = None

    @property
    def text(self) -> str:
        """The answer in English, citing the rules."""
        if self.wait is None:
            return self.proof.text
        stone = self.proof.stone + 1
        return f"you may claim stone {stone} in your next claim step ({self.wait}): {self.proof.text}"

    def to_dict(self) -> dict[str, Any]:
        """JSON data: the proof's (``ClaimProof.to_dict``, ``text`` this answer's) with ``needed`` (the
        unseen cards a stronger completion needs), ``tie`` (both formations are equal: R4.6
        decides) and ``wait``."""
        proof = self.proof
        mine, theirs = proof.mine, proof.theirs
        tie = mine is not None and theirs is not None and mine.strength == theirs.strength
        return proof.to_dict() | {
            "text": self.text,
            "needed": [card_str(c) for c in proof.needed],
            "tie": tie,
            "wait": self.wait,
        }


def why_not(seen: View) -> dict[int, WhyNot]:
    """For each unclaimed stone (0-8) where ``seen``'s seat has a complete side and may not claim now
    (not in ``seen.claimable``), why not; a spectator's view: none."""
    seat = seen.seat
    if seat is None or seen.phase == Phase.OVER.name:
        return {}
    asked = askable(seen)
    if not asked:
        return {}
    table = SeenTable.of(seen)
    wait = "R8.1" if table.settings.expert else "R3.3"
    found: dict[int, WhyNot] = {}
    for stone in asked:
        proof = claim_proof(table, seat, stone)
        found[stone] = WhyNot(proof, wait if proof.holds else None)
    return found


def askable(seen: View) -> list[int]:
    """The stones (0-8) ``why_not(seen)`` answers: unclaimed, with a complete side of ``seen``'s seat,
    not claimable by it now; a spectator's view or a finished game: none. Cheap: read off the view."""
    seat = seen.seat
    if seat is None or seen.phase == Phase.OVER.name:
        return []
    return [s for s, stone in enumerate(seen.stones)
            if stone.owner < 0 and stone.complete[seat] and s not in seen.claimable]

