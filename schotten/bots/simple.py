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
from typing import Protocol

from ..engine import ACTIONS, Action, GameState, Kind, Phase
from ..engine.cards import COMBAT_MODES, ELITE_TROOPS, NUM_CLAN, value_of
from ..engine.formations import best_formation
from ..engine.numeric import clan_mask, legal_ids
from ..engine.view import View, view
from .board import ME, THEM, Board


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
    return [ACTIONS[i] for i in legal_ids(seen)]


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


def reach(board: Board, cards: tuple[int, ...], stone: int, pool: int, floor: int = -1) -> int:
    """The strength of the best formation ``cards`` can reach on ``stone`` from ``pool``, or -1."""
    if len(cards) > board.size[stone]:
        return -1
    clan = tuple(c for c in cards if c < NUM_CLAN)
    wild = tuple(c for c in cards if c >= NUM_CLAN)
    found = best_formation(clan, wild, board.size[stone], board.bluff[stone], pool, floor)
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
        scorer = _Scorer(Board.of(seen))
        return max(actions, key=lambda a: (scorer.score(a), self._rng.random()))


class _Scorer:
    """The greedy bot's scores. The card a Strategist or Traitor holds counts among the unseen
    cards the opponent may still get, as the greedy bot has always read its view."""

    def __init__(self, board: Board) -> None:
        self.b = board
        self.unseen = board.unseen | clan_mask([board.held] if board.held >= 0 else [])
        self.mine, self.theirs = board.sides[ME], board.sides[THEM]
        self.my_pool = self.unseen | board.hand_mask
        self._before: dict[int, int] = {}
        self._opp: dict[int, int] = {}

    def before(self, stone: int) -> int:
        if stone not in self._before:
            self._before[stone] = reach(self.b, self.mine[stone], stone, self.my_pool)
        return self._before[stone]

    def opp(self, stone: int) -> int:
        if stone not in self._opp:
            self._opp[stone] = reach(self.b, self.theirs[stone], stone, self.unseen)
        return self._opp[stone]

    def score(self, action: Action) -> float:
        kind = action.kind
        if kind == Kind.PLAY:
            if action.card in COMBAT_MODES:
                return MODE_SCORE
            return self.gain(action.card, action.stone)
        if kind == Kind.PLACE:
            return self.gain(self.b.held, action.stone)
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
        cards = (*self.mine[stone], card)
        pool = self.my_pool & ~(1 << card) if card < NUM_CLAN else self.my_pool
        after = reach(self.b, cards, stone, pool)
        score: float = after - self.before(stone)
        if after > self.opp(stone):
            score += AHEAD_BONUS
        if len(cards) == self.b.size[stone] and self._claimable(cards, stone, pool, after):
            score += CLAIMABLE_BONUS
        if card < NUM_CLAN:
            score += value_of(card) / 100
        return score

    def _claimable(self, cards: tuple[int, ...], stone: int, pool: int, strength: int) -> bool:
        theirs = self.theirs[stone]
        if len(theirs) == self.b.size[stone]:
            return strength > self.opp(stone)
        return reach(self.b, theirs, stone, pool, strength) < 0

    def hurt(self, card: int, stone: int) -> float:
        """How much removing ``card`` from the opponent's side of ``stone`` weakens it."""
        rest = list(self.theirs[stone])
        rest.remove(card)
        return self.opp(stone) - reach(self.b, tuple(rest), stone, self.unseen)

    def take_score(self, card: int, stone: int) -> float:
        """Strategist takes from our side where we are furthest behind; Traitor hurts most."""
        if self.b.phase == Phase.TRAITOR_TAKE:
            return self.hurt(card, stone)
        return self.opp(stone) - self.before(stone)

    def draw_score(self, deck: int) -> float:
        """Prefer the clan deck, unless the hand holds no tactic card."""
        has_tactic = any(c >= NUM_CLAN for c in self.b.hand)
        return 1 if deck == 1 and not has_tactic else (0 if deck == 0 else -1)

    def keep_score(self, card: int) -> float:
        """Recruiter returns: low clan cards and unused tactics go back first."""
        if card < NUM_CLAN:
            return -value_of(card)
        return -20 if card in ELITE_TROOPS else 0
