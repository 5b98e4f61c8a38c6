"""The engine's eye: a position's chances as the seat to move may estimate them (R10).

``analyse(seen, iterations, seed)`` looks at a ``View`` of the seat to move, never at a
state: the hidden cards (the opponent's hand, the deck order) are dealt at random by the
search's ``Sampler``, as the search bot does. It works in two steps on one budget:

1. The search (``MctsBot``) runs ``SEARCH_SHARE`` of the iterations; its root candidates,
   best first by the search's own ranking, are the moves worth comparing.
2. The best ``SHOWN`` of them (and any move asked for with ``also``) are each played on the
   same sampled deals, followed by the search's playout policy to the end of the round
   (paired comparisons, as the search's root does). A move's ``win`` is the share of those
   rounds the mover won (a drawn round, R6.2, counts half).

The moves are then listed best first by ``win``; the position's ``win`` and each stone's
``chance`` (the share of rounds each seat ended holding it) are those of the best move.
The same view, budget and seed always give the same analysis.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine import Action, GameState
from ..engine.cards import NUM_STONES
from ..engine.numeric import legal_ids
from ..engine.view import View
from .mcts import MctsBot, playout
from .sample import Sampler

DEFAULT_ITERATIONS = 800
"""The budget of an analysis when none is given: about a second on one core of a small machine."""

SEARCH_SHARE = 0.5
"""The share of the iterations the search spends choosing candidates; the rest measures them."""

SHOWN = 3
"""How many of the search's candidates are measured and listed (fewer only when fewer are legal)."""

MIN_PLAYOUTS = 8
"""The fewest playouts a measured move gets, whatever the budget."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A move of the seat to move, in the notation, and the mover's chance of winning the round after it."""

    action: str
    win: float


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the seat to move (``seat``, from 0) may estimate of its position.

    ``win``: each seat's chance of winning the round (with the best move found);
    ``stones``: per stone, each seat's chance of ending the round holding it;
    ``best``: the moves measured, best first; ``playouts``: the deals each was measured on.
    """

    seat: int
    win: tuple[float, float]
    stones: tuple[tuple[float, float], ...]
    best: tuple[Candidate, ...]
    playouts: int

    def win_of(self, action: str) -> float | None:
        """The mover's chance after ``action`` (in the notation) if it was measured, else None."""
        return next((c.win for c in self.best if c.action == action), None)


@dataclass
class _Tally:
    """The results of one move's playouts: round wins (draws half) and stones held, per seat."""

    wins: list[float]
    stones: list[list[int]]
    count: int = 0

    @classmethod
    def new(cls) -> _Tally:
        return cls([0.0, 0.0], [[0, 0] for _ in range(NUM_STONES)])

    def add(self, state: GameState, round_index: int) -> None:
        outcome = state.round_outcomes[round_index]
        if outcome.winner is None:
            self.wins[0] += 0.5
            self.wins[1] += 0.5
        else:
            self.wins[outcome.winner] += 1
        for stone, owner in enumerate(outcome.stones):
            if owner is not None:
                self.stones[stone][owner] += 1
        self.count += 1


def analyse(
    seen: View, iterations: int = DEFAULT_ITERATIONS, seed: int = 0, also: tuple[str, ...] = ()
) -> Analysis:
    """The chances of the seat to move in ``seen`` (see the module docstring); ``also``: moves (in
    the notation) to measure beside the search's candidates."""
    if seen.seat is None or seen.turn != seen.seat or not seen.legal:
        raise ValueError("an analysis needs the view of the seat to move")
    if iterations < 1:
        raise ValueError("the budget is a positive number of iterations")
    moves = _candidates(seen, max(1, int(iterations * SEARCH_SHARE)), seed)
    asked = [Action.parse(text).id for text in also]
    if any(a not in legal_ids(seen) for a in asked):
        raise ValueError("a move asked for is not legal in this view")
    moves += [a for a in dict.fromkeys(asked) if a not in moves]
    playouts = max(MIN_PLAYOUTS, (iterations - int(iterations * SEARCH_SHARE)) // len(moves))
    tallies = _measure(seen, moves, playouts, seed)
    return _summary(seen.seat, moves, tallies)


def _candidates(seen: View, iterations: int, seed: int) -> list[int]:
    """The search's best ``SHOWN`` root moves (every legal move if there are no more)."""
    legal = legal_ids(seen)
    if len(legal) <= SHOWN:
        return list(legal)
    bot = MctsBot(seed, iterations=iterations)
    chosen = bot.search(seen)
    children = bot.root.children
    ranked = sorted(children, key=lambda a: (a != chosen, -children[a].visits, -children[a].mean, a))
    ranked += [a for a in legal if a not in children]
    return ranked[:SHOWN]


def _measure(seen: View, moves: list[int], playouts: int, seed: int) -> list[_Tally]:
    """Each move played on the same ``playouts`` sampled deals, each round played out by the policy."""
    assert seen.seat is not None
    sampler = Sampler(seen)
    rng = random.Random(f"analysis/{seed}/{seen!r}")
    tallies = [_Tally.new() for _ in moves]
    for _ in range(playouts):
        deal = sampler.sample(rng)
        stream = rng.getrandbits(32)
        round_index = len(deal.round_outcomes)
        for move, tally in zip(moves, tallies, strict=True):
            state = deal.copy()
            state.apply_id(move)
            if len(state.round_outcomes) == round_index:
                playout(state, random.Random(stream), seen.seat)
            tally.add(state, round_index)
    return tallies


def _summary(seat: int, moves: list[int], tallies: list[_Tally]) -> Analysis:
    """The analysis of measured moves: listed best first, the position's chances those of the best."""
    order = sorted(range(len(moves)), key=lambda i: -tallies[i].wins[seat])
    best = tallies[order[0]]
    n = best.count
    return Analysis(
        seat=seat,
        win=(best.wins[0] / n, best.wins[1] / n),
        stones=tuple((held[0] / n, held[1] / n) for held in best.stones),
        best=tuple(Candidate(str(Action.from_id(moves[i])), tallies[i].wins[seat] / tallies[i].count)
                   for i in order),
        playouts=n,
    )
