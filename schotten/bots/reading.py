"""Reading the opponent: how well a deal of its hidden hand explains its plays this round.

The search deals the cards its seat cannot see uniformly (``sample.Sampler``). A player's
plays say something about the cards it kept: a hand holding a card that fitted the board
far better than the one played is less likely. ``Reader`` turns that into a weight for a
dealt hand, under a model of the opponent's play: at each of its plays this round it chose
among every play of its hand with probability proportional to ``exp(BETA * score)``, the
score being the search's greedy policy (``policy.play_scores``, counting every card not on
the board as still to come, R5.2) on the board as it stood then.

The hand it held at each past play follows from the dealt hand backwards: undo the play
(the card comes back) and, when a card was drawn after it, the drawn card leaves; which of
the hand's cards was the last drawn is chosen at random (any order of draws is as likely
a priori). The weight of a dealt hand is the product over the opponent's plays of
``1 / Z``, ``Z`` summing the model's ``exp(BETA * score)`` over the plays the hand allowed
then (the numerator, the play made, is the same for every deal). One random draw order per
weight makes it an unbiased estimate of the hand's likelihood.

Reading is used only where it is exact to rebuild the past boards from the public history:
games without tactic cards (no card leaves the board or moves) and rounds with no pass.
Elsewhere ``active`` is false and every deal weighs the same.
"""

from __future__ import annotations

import math
import random

from ..engine import Action, GameState, Phase
from ..engine.actions import Kind
from ..engine.cards import NUM_CLAN, NUM_STONES
from ..engine.state import ALL_CLAN
from ..engine.view import View
from .policy import play_scores

BETA = 1 / 30
"""How sharply the opponent model prefers better-scoring plays (the policy's score units)."""


class Reader:
    """Weights for dealt opponent hands from the opponent's plays this round (see the module docstring)."""

    def __init__(self, seen: View, template: GameState) -> None:
        assert seen.seat is not None
        self.opp = 1 - seen.seat
        self._plays: list[tuple[int, bool, list[float]]] = []
        """Per opponent play this round, latest last: its card, whether a draw followed, and
        the model's ``exp`` scores by card on the board before it."""
        plays = _round_plays(seen, template)
        self.active = plays is not None and bool(plays)
        if plays is None or not self.active:
            return
        on_board = sum(len(side) for sides in template.sides for side in sides)
        hands = len(template.hands[0]) + len(template.hands[1])
        draws = on_board + hands - 2 * template.settings.hand_size
        if not 0 <= draws <= len(plays):
            self.active = False
            return
        for k, (card, _, mover, claimed) in enumerate(plays):
            if mover == self.opp:
                board = _board_before(template, plays, k, claimed)
                self._plays.append((card, k < draws, _exp_scores(board, self.opp)))
        self.active = bool(self._plays)

    def log_weight(self, hand: list[int], rng: random.Random) -> float:
        """The log of a dealt opponent ``hand``'s weight (0 when not ``active``); see the module docstring."""
        if not self.active:
            return 0.0
        held = [c for c in hand if c < NUM_CLAN]
        total = 0.0
        for card, drew, scores in reversed(self._plays):
            if drew and held:
                held.pop(rng.randrange(len(held)))
            held.append(card)
            total -= math.log(sum(scores[c] for c in held))
        return total


def _round_plays(seen: View, template: GameState) -> list[tuple[int, int, int, set[int]]] | None:
    """This round's plays in order, each ``(card, stone, mover, stones claimed before it)``; None
    where reading does not apply (tactic cards, a pass, a history that does not match the board)."""
    if seen.tactics:
        return None
    left = sum(len(side) for sides in template.sides for side in sides)
    found: list[tuple[int, int, int, int]] = []
    claims: list[tuple[int, int]] = []
    index = len(seen.history)
    while left and index:
        index -= 1
        action = Action.parse(seen.history[index])
        if action.kind == Kind.PASS:
            return None
        if action.kind == Kind.CLAIM:
            claims.append((index, action.stone))
        elif action.kind == Kind.PLAY:
            mover = seen.movers[index]
            if action.card not in template.sides[mover][action.stone]:
                return None
            found.append((index, action.card, action.stone, mover))
            left -= 1
    if left:
        return None
    return [
        (card, stone, mover, {s for at, s in claims if at < i}) for i, card, stone, mover in reversed(found)
    ]


def _board_before(
    template: GameState, plays: list[tuple[int, int, int, set[int]]], k: int, claimed: set[int]
) -> GameState:
    """The board as it stood before play ``k`` of the round, the mover of that play to move."""
    board = template.copy()
    later = {(mover, stone, card) for card, stone, mover, _ in plays[k:]}
    board.sides = [
        [[c for c in side if (seat, stone, c) not in later] for stone, side in enumerate(board.sides[seat])]
        for seat in (0, 1)
    ]
    board.owner = [board.owner[s] if s in claimed else -1 for s in range(NUM_STONES)]
    on_board = 0
    for sides in board.sides:
        for side in sides:
            for c in side:
                on_board |= 1 << c
    board.pool = ALL_CLAN & ~on_board
    board.turn = plays[k][2]
    board.phase = Phase.PLAY
    return board


def _exp_scores(board: GameState, seat: int) -> list[float]:
    """For every clan card, the model's ``exp(BETA * score)`` summed over the stones open to ``seat``
    on ``board`` (relative to the best play, so the sums stay in range)."""
    stones = [s for s in range(NUM_STONES) if board.owner[s] < 0 and len(board.sides[seat][s]) < 3]
    cards = [c for c in range(NUM_CLAN) if board.pool >> c & 1]
    ids = [card * NUM_STONES + stone for card in cards for stone in stones]
    scores = play_scores(board, ids, lambda: 0.5, aware=False)
    top = max(scores, default=0.0)
    sums = [0.0] * NUM_CLAN
    for action, score in zip(ids, scores, strict=True):
        sums[action // NUM_STONES] += math.exp(BETA * (score - top))
    return sums
