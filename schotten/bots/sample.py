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

import math
import random
from collections import Counter
from collections.abc import Callable

from ..engine import GameState, parse_position
from ..engine.cards import BLUFF, MODE_BLUFF, MODE_MUD, MUD, NUM_CLAN, TACTIC_DECK, cards_str
from ..engine.numeric import NumericView
from ..engine.position import EMPTY, REASON_LETTERS
from ..engine.state import Reason
from ..engine.view import RoundView, StoneView, View

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
        numbers = NumericView.of(seen)
        self._hand = list(numbers.hand)
        visible = _visible(numbers)
        clan_unseen, tactic_unseen = _unseen(seen, visible)
        fixed = [dict(numbers.under[0]), dict(numbers.under[1])]
        self._forced = _forced_in_opponent_hand(numbers, visible, fixed)
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
        self._returned = _returned_by(seen, numbers, fixed)
        self._seen = seen
        self._template = parse_position(self._position(random.Random(0)))

    @property
    def template(self) -> GameState:
        """The fixed part as a state (its hidden cards one deal among many): for reading, not to change."""
        return self._template

    def sample(self, rng: random.Random) -> GameState:
        """A fresh state with the hidden cards dealt at random from ``rng``."""
        return self._state(*self._deal(rng), rng)

    def sample_weighted(
        self, rng: random.Random, log_weight: Callable[[list[int], random.Random], float], tries: int
    ) -> GameState:
        """A state dealt as ``sample`` deals, chosen among ``tries`` deals by their weights
        (``log_weight(opponent_hand, rng)``): sampling-importance-resampling."""
        deals = [self._deal(rng) for _ in range(tries)]
        logs = [log_weight(hand, rng) for hand, _ in deals]
        top = max(logs)
        hand, decks = rng.choices(deals, weights=[math.exp(x - top) for x in logs])[0]
        return self._state(hand, decks, rng)

    def _state(self, hand: list[int], decks: list[list[int]], rng: random.Random) -> GameState:
        state = self._template.copy()
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


def _visible(numbers: NumericView) -> list[int]:
    """Every card in sight: the seat's hand, the sides, the combat modes, the discard piles, the held card."""
    cards = list(numbers.hand)
    cards += [c for side in numbers.sides for stone in side for c in stone]
    cards += [card for bit, card in ((MODE_BLUFF, BLUFF), (MODE_MUD, MUD)) for m in numbers.modes if m & bit]
    cards += [*numbers.discards[0], *numbers.discards[1]]
    return cards + ([numbers.held] if numbers.held >= 0 else [])


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


def _forced_in_opponent_hand(
    numbers: NumericView, visible: list[int], fixed: list[dict[int, int]]
) -> list[int]:
    """The seat's own returns that have left the decks unseen: only the opponent can hold them.

    Of ``g`` returned copies of a card gone from the decks, at most ``v`` (the visible
    copies) are in sight, so at least ``g - v`` are in the opponent's hand (R7.7).
    """
    assert numbers.seat is not None
    gone = Counter(card for _, card in numbers.returns[numbers.seat])
    gone.subtract(c for deck in fixed for c in deck.values())
    shown = Counter(visible)
    return sorted(card for card, g in gone.items() for _ in range(max(0, g - shown[card])))


def _returned_by(seen: View, numbers: NumericView, fixed: list[dict[int, int]]) -> list[list[int]]:
    """For each deck, bottom up, which seat put each bottom card there (R7.7), as far as public."""
    assert seen.seat is not None
    if any(fixed):
        return [[seen.seat] * len(deck) for deck in fixed]
    opp = 1 - seen.seat
    sizes = (seen.clan_deck, seen.tactic_deck)
    counts = [sum(1 for deck, _ in numbers.returns[opp] if deck == d) for d in (0, 1)]
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

