"""The table as a bot reads it: the view's numbers (``engine.numeric``), seat-relative.

``Board.of(seen)`` is what the greedy and the heuristic bots read from a seat's view (R10):
``sides[ME]`` / ``sides[THEM]`` for the bot's and the opponent's sides, owners and the side
completed first as ME, THEM or NOBODY.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.cards import BLUFF, MODE_BLUFF, MODE_MUD, MUD, NUM_STONES
from ..engine.numeric import NumericView, clan_mask
from ..engine.phases import Phase
from ..engine.view import View

ME, THEM, NOBODY = 0, 1, -1
"""Seats relative to the bot, and no seat."""


@dataclass(frozen=True, slots=True)
class Board:
    """The table as a bot reads it from its view: cards as ints, seats relative to the bot.

    ``sides[ME]`` / ``sides[THEM]`` list each stone's cards; ``size`` is each stone's capacity
    and ``bluff`` whether only totals count there; ``owner`` is ME, THEM or NOBODY; ``first``
    is who completed a side first on each stone (NOBODY when no side is complete);
    ``unseen`` is the mask of clan cards the bot cannot see (``NumericView.unseen``);
    ``unseen_tactics`` the tactic cards it cannot see, counting the combat modes on the board
    among them, as the heuristic bot always has; ``their_hand`` the opponent's (clan, tactic)
    card counts; ``held`` the card a Strategist or Traitor has taken (-1: none).
    """

    sides: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    size: tuple[int, ...]
    bluff: tuple[bool, ...]
    owner: tuple[int, ...]
    first: tuple[int, ...]
    hand: tuple[int, ...]
    unseen: int
    unseen_tactics: tuple[int, ...]
    clan_deck: int
    their_hand: tuple[int, int]
    tactics_played: tuple[int, int]
    expert: bool
    held: int
    phase: Phase

    @staticmethod
    def of(seen: View) -> Board:
        """Read a view of seat 0 or 1 (not a spectator's)."""
        assert seen.seat is not None and seen.hand is not None, "a bot plays a seat"
        me, numbers = seen.seat, NumericView.of(seen)
        modes = ((MODE_BLUFF, BLUFF), (MODE_MUD, MUD))
        played = [card for bit, card in modes if any(m & bit for m in numbers.modes)]
        return Board(
            sides=(numbers.sides[me], numbers.sides[1 - me]),
            size=numbers.capacity,
            bluff=numbers.bluff,
            owner=tuple(_relative(stone.owner, me) for stone in seen.stones),
            first=tuple(_relative(stone.first, me) for stone in seen.stones),
            hand=numbers.hand,
            unseen=numbers.unseen,
            unseen_tactics=tuple(sorted((*numbers.unseen_tactics, *played))),
            clan_deck=seen.clan_deck,
            their_hand=seen.hand_sizes[1 - me],
            tactics_played=(seen.tactics_played[me], seen.tactics_played[1 - me]),
            expert=seen.variant.startswith("expert"),
            held=numbers.held,
            phase=numbers.phase,
        )

    @property
    def hand_mask(self) -> int:
        """The clan cards of the bot's own hand, as a mask."""
        return clan_mask(self.hand)

    def open_stones(self) -> list[int]:
        """The unclaimed stones whose side for the bot has room (R3.1)."""
        side = self.sides[ME]
        return [s for s in range(NUM_STONES) if self.owner[s] == NOBODY and len(side[s]) < self.size[s]]

    def unclaimed(self) -> list[int]:
        """The stones nobody has claimed."""
        return [s for s in range(NUM_STONES) if self.owner[s] == NOBODY]


def _relative(seat: int, me: int) -> int:
    if seat < 0:
        return NOBODY
    return ME if seat == me else THEM
