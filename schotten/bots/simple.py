"""Simple built-in bots: a random player and a greedy one, both choosing from a view (R10).

A bot sees only ``view(state, seat)``: the board, the discard piles, its own hand,
the counts of everything else and its legal actions in notation. It never reads the
opponent's hand or the order of the decks. ``decide(bot, state)`` builds the view
for the seat to move and asks the bot.

The greedy bot claims every stone it can (R5.4) and scores each other choice by the
strongest formation each side could still reach on the stones it touches, over the
clan cards it cannot see (``formations.best_formation``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from ..engine import Action, GameState, Kind, parse_action, parse_card
from ..engine.cards import COMBAT_MODES, ELITE_TROOPS, NUM_CLAN, value_of
from ..engine.formations import best_formation
from ..engine.view import View, view

ALL_CLAN = (1 << NUM_CLAN) - 1


class Bot(Protocol):
    """A player that picks one of the legal actions of a view."""

    name: str

    def choose(self, seen: View) -> Action:
        """One of ``seen.legal``, as an Action."""
        ...


def decide(bot: Bot, state: GameState) -> Action:
    """Ask ``bot`` for the move of the seat to play, showing it only that seat's view."""
    return bot.choose(view(state, state.turn))


def legal_of(seen: View) -> list[Action]:
    """The legal actions of a view, as Actions."""
    return [parse_action(text) for text in seen.legal]


def _first_claim(actions: list[Action]) -> Action | None:
    return next((a for a in actions if a.kind == Kind.CLAIM), None)


def forced_action(actions: list[Action]) -> Action | None:
    """The action a thoughtful bot takes without weighing: a claim when one is legal (R5 proofs are
    final), or the only legal action; None when there is a choice to make."""
    claim = _first_claim(actions)
    if claim is not None or len(actions) != 1:
        return claim
    return actions[0]


class RandomBot:
    """Plays a uniformly random legal action; with ``claims`` (the default) it takes every claim."""

    def __init__(self, seed: int | None = None, claims: bool = True) -> None:
        self.name = "random"
        self.claims = claims
        self._rng = random.Random(seed)

    def choose(self, seen: View) -> Action:
        """A random legal action (a claim first, in the claim step, if ``claims``)."""
        actions = legal_of(seen)
        claim = _first_claim(actions) if self.claims else None
        return claim or self._rng.choice(actions)


@dataclass(frozen=True, slots=True)
class Table:
    """The board as the greedy bot reads it from a view: cards as ints, seat-relative."""

    mine: tuple[tuple[int, ...], ...]
    theirs: tuple[tuple[int, ...], ...]
    size: tuple[int, ...]
    bluff: tuple[bool, ...]
    hand: tuple[int, ...]
    unseen: int
    held: int

    @staticmethod
    def of(seen: View) -> Table:
        """Read a view of seat 0 or 1 (not a spectator's)."""
        assert seen.seat is not None and seen.hand is not None, "a bot plays a seat"
        me = seen.seat
        sides = [[tuple(parse_card(c) for c in stone.cards[s]) for stone in seen.stones] for s in (0, 1)]
        hand = tuple(parse_card(c) for c in seen.hand)
        visible = [c for side in sides for cards in side for c in cards]
        visible += [parse_card(c) for pile in seen.discards for c in pile] + list(hand)
        unseen = ALL_CLAN
        for card in visible:
            if card < NUM_CLAN:
                unseen &= ~(1 << card)
        return Table(
            mine=tuple(sides[me]),
            theirs=tuple(sides[1 - me]),
            size=tuple(4 if "MF" in stone.modes else 3 for stone in seen.stones),
            bluff=tuple("BB" in stone.modes for stone in seen.stones),
            hand=hand,
            unseen=unseen,
            held=-1 if seen.held is None else parse_card(seen.held),
        )

    @property
    def hand_mask(self) -> int:
        """The clan cards of the bot's own hand, as a mask."""
        mask = 0
        for card in self.hand:
            if card < NUM_CLAN:
                mask |= 1 << card
        return mask

    def reach(self, cards: tuple[int, ...], stone: int, pool: int, floor: int = -1) -> int:
        """The strength of the best formation ``cards`` can reach on ``stone`` from ``pool``, or -1."""
        if len(cards) > self.size[stone]:
            return -1
        clan = tuple(c for c in cards if c < NUM_CLAN)
        wild = tuple(c for c in cards if c >= NUM_CLAN)
        found = best_formation(clan, wild, self.size[stone], self.bluff[stone], pool, floor)
        return -1 if found is None else found.strength


CLAIMABLE_BONUS = 150
AHEAD_BONUS = 40
MODE_SCORE = -300
RUSE_SCORE = -250
DISCARD_SCORE = -100
PASS_SCORE = -1000


class GreedyBot:
    """Claims whatever it can, else makes the play that keeps its formations strongest.

    A play's score is how much it lowers the best formation still reachable on that
    side (over the cards the bot holds or cannot see), plus a bonus when that side
    would still beat the best the opponent can reach there, and a larger one when it
    completes a side that can be claimed at once (R5). Combat modes and ruses are
    played only when nothing else is reasonable.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.name = "greedy"
        self._rng = random.Random(seed)

    def choose(self, seen: View) -> Action:
        """The best-scoring legal action of the view (ties broken at random)."""
        actions = legal_of(seen)
        forced = forced_action(actions)
        if forced is not None:
            return forced
        scorer = _Scorer(Table.of(seen), seen)
        return max(actions, key=lambda a: (scorer.score(a), self._rng.random()))


class _Scorer:
    def __init__(self, table: Table, seen: View) -> None:
        self.t = table
        self.seen = seen
        self.my_pool = table.unseen | table.hand_mask
        self._before: dict[int, int] = {}
        self._opp: dict[int, int] = {}

    def before(self, stone: int) -> int:
        if stone not in self._before:
            self._before[stone] = self.t.reach(self.t.mine[stone], stone, self.my_pool)
        return self._before[stone]

    def opp(self, stone: int) -> int:
        if stone not in self._opp:
            self._opp[stone] = self.t.reach(self.t.theirs[stone], stone, self.t.unseen)
        return self._opp[stone]

    def score(self, action: Action) -> float:
        kind = action.kind
        if kind == Kind.PLAY:
            if action.card in COMBAT_MODES:
                return MODE_SCORE
            return self.gain(action.card, action.stone)
        if kind == Kind.PLACE:
            return self.gain(self.t.held, action.stone)
        if kind == Kind.DRAW:
            return self.draw_score(action.card)
        if kind == Kind.TAKE:
            return self.take_score(action.card, action.stone)
        if kind == Kind.BANISH:
            return self.hurt(action.card, action.stone)
        if kind == Kind.RETURN:
            return self.keep_score(action.card)
        return {Kind.RUSE: RUSE_SCORE, Kind.DISCARD: DISCARD_SCORE, Kind.PASS: PASS_SCORE}.get(kind, 0)

    def gain(self, card: int, stone: int) -> float:
        """How good putting ``card`` on our side of ``stone`` is (higher clan cards first on ties)."""
        cards = (*self.t.mine[stone], card)
        pool = self.my_pool & ~(1 << card) if card < NUM_CLAN else self.my_pool
        after = self.t.reach(cards, stone, pool)
        score: float = after - self.before(stone)
        if after > self.opp(stone):
            score += AHEAD_BONUS
        if len(cards) == self.t.size[stone] and self._claimable(cards, stone, pool, after):
            score += CLAIMABLE_BONUS
        if card < NUM_CLAN:
            score += value_of(card) / 100
        return score

    def _claimable(self, cards: tuple[int, ...], stone: int, pool: int, strength: int) -> bool:
        theirs = self.t.theirs[stone]
        if len(theirs) == self.t.size[stone]:
            return strength > self.opp(stone)
        return self.t.reach(theirs, stone, pool, strength) < 0

    def hurt(self, card: int, stone: int) -> float:
        """How much removing ``card`` from the opponent's side of ``stone`` weakens it."""
        rest = list(self.t.theirs[stone])
        rest.remove(card)
        return self.opp(stone) - self.t.reach(tuple(rest), stone, self.t.unseen)

    def take_score(self, card: int, stone: int) -> float:
        """Strategist takes from our side where we are furthest behind; Traitor hurts most."""
        if self.seen.phase == "TRAITOR_TAKE":
            return self.hurt(card, stone)
        return self.opp(stone) - self.before(stone)

    def draw_score(self, deck: int) -> float:
        """Prefer the clan deck, unless the hand holds no tactic card."""
        has_tactic = any(c >= NUM_CLAN for c in self.t.hand)
        return 1 if deck == 1 and not has_tactic else (0 if deck == 0 else -1)

    def keep_score(self, card: int) -> float:
        """Recruiter returns: low clan cards and unused tactics go back first."""
        if card < NUM_CLAN:
            return -value_of(card)
        return -20 if card in ELITE_TROOPS else 0
