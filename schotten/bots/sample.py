"""Determinization: a whole game state consistent with what one seat sees (R10).

A search bot sees only a ``View``. To simulate, it needs a full ``GameState``: the
board, discards, counters, match so far and its own hand exactly as the view shows
them, and the cards it cannot see dealt at random into the opponent's hand and the
decks. ``determinize(seen, rng)`` builds one such state; a ``Sampler`` builds the
fixed part once (through the position notation, so ``parse_position`` checks it) and
then re-deals the hidden cards cheaply, as often as a search needs.

What is fixed and what is dealt:

- Unseen cards are every clan card and tactic card not on the board (sides, combat
  modes), not in a discard pile, not in the seat's own hand and not held by a ruse.
- The seat's own Recruiter returns still in a deck stay at their known places from
  the bottom (R10.2). Those already drawn that are nowhere in sight can only be in
  the opponent's hand: they are put there.
- The opponent's hand gets as many clan and tactic cards as the view's hand sizes
  say; the rest fill the decks (clan cards the clan deck, tactic cards the tactic deck).
- If the opponent put cards under a deck with the Recruiter this round, the sampled
  deck records them as theirs (their identity stays unknown, their number is public).
- The seed is random: later rounds' deals are unknown.

The sampled state's history and movers are empty (as for any parsed position), so
its views differ from the real ones in ``history`` and ``movers`` only. Inferences
from the opponent's past choices (a pass proves a hand with no playable card, for
instance) are not used: every deal that fits the cards and counts is equally likely.
"""

from __future__ import annotations

import random
from collections import Counter

from ..engine import GameState, parse_position
from ..engine.cards import NUM_CLAN, TACTIC_DECK, cards_str, parse_card
from ..engine.position import EMPTY, REASON_LETTERS
from ..engine.state import Reason
from ..engine.view import RoundView, StoneView, Under, View

SEED_RANGE = 1 << 31
"""Sampled states get a seed drawn uniformly below this."""


def determinize(seen: View, rng: random.Random) -> GameState:
    """A full state consistent with ``seen`` (a seat's view), hidden cards dealt from ``rng``."""
    return Sampler(seen).sample(rng)


class Sampler:
    """Deals the cards a seat cannot see at random, many times over, for one view.

    Build it once per decision (it parses a position); ``sample(rng)`` then costs a
    state copy and two shuffles.
    """

    def __init__(self, seen: View) -> None:
        if seen.seat is None or seen.hand is None:
            raise ValueError("a determinization needs a seat's view, not a spectator's")
        self.seat = seen.seat
        self.opp = 1 - seen.seat
        self._hand = [parse_card(c) for c in seen.hand]
        visible = _visible(seen, self._hand)
        clan_unseen, tactic_unseen = _unseen(seen, visible)
        fixed = [_fixed(seen.under_clan), _fixed(seen.under_tactic)]
        self._forced = _forced_in_opponent_hand(seen, visible, fixed)
        for card in [c for deck in fixed for c in deck.values()] + self._forced:
            (clan_unseen if card < NUM_CLAN else tactic_unseen).remove(card)
        self._free = (clan_unseen, tactic_unseen)
        in_hand = seen.hand_sizes[self.opp]
        forced = [sum(1 for c in self._forced if (c >= NUM_CLAN) == tactic) for tactic in (False, True)]
        self._opp_counts = (in_hand[0] - forced[0], in_hand[1] - forced[1])
        sizes = (seen.clan_deck, seen.tactic_deck)
        self._deck_base = [[fixed[d].get(i, -1) for i in range(sizes[d])] for d in (0, 1)]
        self._deck_free = [[i for i in range(sizes[d]) if i not in fixed[d]] for d in (0, 1)]
        if any(len(self._free[d]) != self._opp_counts[d] + len(self._deck_free[d]) for d in (0, 1)):
            raise ValueError("the view's card counts do not add up: it cannot be determinized")
        self._returned = _returned_by(seen, fixed)
        self._seen = seen
        self._template = parse_position(self._position(random.Random(0)))

    def sample(self, rng: random.Random) -> GameState:
        """A fresh state with the hidden cards dealt at random from ``rng``."""
        state = self._template.copy()
        hand, decks = self._deal(rng)
        state.hands[self.opp] = hand
        state.clan_deck, state.tactic_deck = decks
        state.seed = rng.randrange(SEED_RANGE)
        return state

    def _deal(self, rng: random.Random) -> tuple[list[int], list[list[int]]]:
        hand = self._forced[:]
        decks: list[list[int]] = []
        for d in (0, 1):
            cards = self._free[d][:]
            rng.shuffle(cards)
            count = self._opp_counts[d]
            hand += cards[:count]
            deck = self._deck_base[d][:]
            for i, card in zip(self._deck_free[d], cards[count:], strict=True):
                deck[i] = card
            decks.append(deck)
        return hand, decks

    def _position(self, rng: random.Random) -> str:
        seen = self._seen
        hand, decks = self._deal(rng)
        hands = [hand, hand]
        hands[self.seat] = self._hand
        fields = [
            seen.variant,
            f"{seen.round + 1}/{seen.rounds}",
            str(seen.first_player),
            "0",
            ",".join(_outcome_text(o) for o in seen.round_outcomes) or EMPTY,
            str(seen.turn),
            _phase_text(seen),
            str(seen.passes),
            f"{seen.tactics_played[0]}:{seen.tactics_played[1]}",
            "/".join(_stone_text(stone) for stone in seen.stones),
            f"{cards_str(hands[0])}:{cards_str(hands[1])}",
            cards_str(decks[0]) or EMPTY,
            cards_str(decks[1]) or EMPTY,
            ":".join("".join(pile) for pile in seen.discards),
            ":".join("".join(str(s) for s in deck) for deck in self._returned),
        ]
        return " ".join(fields)


def _visible(seen: View, hand: list[int]) -> list[int]:
    cards = list(hand)
    for stone in seen.stones:
        cards += [parse_card(c) for side in stone.cards for c in side]
        cards += [parse_card(code) for code in stone.modes]
    cards += [parse_card(c) for pile in seen.discards for c in pile]
    if seen.held is not None:
        cards.append(parse_card(seen.held))
    return cards


def _unseen(seen: View, visible: list[int]) -> tuple[list[int], list[int]]:
    """The clan and tactic cards ``seen`` does not show anywhere, in code order."""
    left = Counter(range(NUM_CLAN))
    if seen.variant in ("tactics", "expert"):
        left.update(TACTIC_DECK)
    left.subtract(visible)
    if any(n < 0 for n in left.values()):
        raise ValueError("the view shows a card more often than it exists")
    cards = sorted(left.elements())
    return [c for c in cards if c < NUM_CLAN], [c for c in cards if c >= NUM_CLAN]


def _fixed(under: tuple[Under, ...]) -> dict[int, int]:
    """The seat's own Recruiter returns in one deck: position from the bottom -> card."""
    return {item.from_bottom: parse_card(item.card) for item in under}


def _returns(seen: View, seat: int) -> list[str]:
    """The notation of the cards ``seat`` returned with the Recruiter this round, as ``seen`` shows them.

    ``return 7b`` reads ``7b``; a return the view redacts reads ``clan`` or ``tactic``.
    """
    if "RE" not in seen.discards[seat]:
        return []
    moves = list(zip(seen.history, seen.movers, strict=True))
    start = max(i for i, (move, who) in enumerate(moves) if move == "RE" and who == seat)
    mine = [move for move, who in moves[start:] if who == seat and move.startswith("return ")]
    return [move.split(" ", 1)[1] for move in mine]


def _forced_in_opponent_hand(seen: View, visible: list[int], fixed: list[dict[int, int]]) -> list[int]:
    """The seat's own returns that have left the decks unseen: only the opponent can hold them.

    Of ``g`` returned copies of a card gone from the decks, at most ``v`` (the visible
    copies) are in sight, so at least ``g - v`` are in the opponent's hand (R7.7).
    """
    assert seen.seat is not None
    gone = Counter(parse_card(text) for text in _returns(seen, seen.seat))
    gone.subtract(c for deck in fixed for c in deck.values())
    shown = Counter(visible)
    return sorted(card for card, g in gone.items() for _ in range(max(0, g - shown[card])))


def _returned_by(seen: View, fixed: list[dict[int, int]]) -> list[list[int]]:
    """For each deck, bottom up, which seat put each bottom card there (R7.7), as far as public."""
    assert seen.seat is not None
    if any(fixed):
        return [[seen.seat] * len(deck) for deck in fixed]
    opp = 1 - seen.seat
    moves = _returns(seen, opp)
    sizes = (seen.clan_deck, seen.tactic_deck)
    counts = [sum(1 for m in moves if m == name) for name in ("clan", "tactic")]
    return [[opp] * min(counts[d], sizes[d]) for d in (0, 1)]


def _outcome_text(outcome: RoundView) -> str:
    winner = "=" if outcome.winner is None else str(outcome.winner)
    stones = "".join("-" if s < 0 else str(s) for s in outcome.stones)
    return f"{winner}{REASON_LETTERS[Reason(outcome.reason)]}.{stones}"


def _phase_text(seen: View) -> str:
    name = seen.phase.lower().replace("_", "-")
    if seen.phase in ("STRATEGIST_PLACE", "TRAITOR_PLACE"):
        return f"{name}:{seen.held}@{seen.held_from + 1}"
    if seen.phase == "RECRUIT_DRAW":
        return f"{name}:{seen.recruit_draws}"
    if seen.phase == "RECRUIT_RETURN":
        return f"{name}:{seen.recruit_returns}"
    return name


def _stone_text(stone: StoneView) -> str:
    sides = ["".join(stone.cards[0]), "".join(stone.cards[1])]
    if all(stone.complete):
        sides[stone.first] += "*"
    text = f"{sides[0]}:{sides[1]}"
    if stone.modes:
        text += "+" + "".join(stone.modes)
    if stone.owner >= 0:
        text += f"#{stone.owner}"
    return text

