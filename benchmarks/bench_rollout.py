"""Does the heuristic's own play judge moves better than playouts? Run ``python benchmarks/bench_rollout.py``.

Plays a *rollout bot* against the heuristic bot in base games (game i dealt from seed
i // 2, seats swapped every other game, as ``schotten arena`` does) and prints the match
summary. At each decision with a choice, the rollout bot takes the search anchor's
``--plays`` best-scoring actions (the heuristic bot that ``schotten.bots.mcts`` anchors on)
and plays each of them on ``--deals`` deals sampled from its own view (R10; the same deals
for every action), then lets the anchor play both seats to the end of the game; it chooses
the action with the best mean result (the anchor's choice on ties). The rollouts are slow
(tens of milliseconds each), so this measures the judge, not a bot for 0.2 s a move.
Options: ``--games N``, ``--plays K``, ``--deals D``, ``--seed S``, ``--jobs J``, ``--short``
(two games with two plays on one deal, for CI).
"""

from __future__ import annotations

import argparse
import os
import random
from dataclasses import dataclass

from schotten.arena import Player, play_match
from schotten.bots.heuristic import HeuristicBot
from schotten.bots.mcts import ANCHOR_DRAW_SHARE
from schotten.bots.sample import Sampler
from schotten.bots.simple import forced_action, legal_of
from schotten.engine import Action, GameState, Phase
from schotten.engine.actions import CLAIM_BASE
from schotten.engine.view import View, view


class RolloutBot:
    """Chooses among the anchor's best actions by the anchor's own play to the end (module docstring)."""

    def __init__(self, seed: int, plays: int, deals: int) -> None:
        self.name = "rollout"
        self.plays = plays
        self.deals = deals
        self.rng = random.Random(seed)
        self.anchor = HeuristicBot(0, ANCHOR_DRAW_SHARE, exact_weights=True)

    def choose(self, seen: View) -> Action:
        """A claim if any, the only action, else the candidate with the best rollout mean."""
        forced = forced_action(legal_of(seen))
        if forced is not None:
            return forced
        scores = self.anchor.scores(seen)
        candidates = sorted(scores, key=scores.__getitem__, reverse=True)[: self.plays]
        assert seen.seat is not None
        totals = self._totals(Sampler(seen), candidates, seen.seat)
        best = max(candidates, key=lambda a: (totals[a], a == candidates[0]))
        return Action.from_id(best)

    def _totals(self, sampler: Sampler, candidates: list[int], me: int) -> dict[int, float]:
        """Each candidate's summed result over the sampled deals."""
        totals = dict.fromkeys(candidates, 0.0)
        for _ in range(self.deals):
            deal = sampler.sample(self.rng)
            for action in candidates:
                state = deal.copy()
                state.apply_id(action)
                totals[action] += self.rollout(state, me)
        return totals

    def rollout(self, state: GameState, me: int) -> float:
        """Let the anchor play both seats of ``state`` (a whole deal) to the end: 1, 0.5 or 0 for ``me``."""
        while not state.is_over:
            if state.phase == Phase.CLAIM:
                state.apply_id(CLAIM_BASE + state.claimable[0])
                continue
            ids = state.legal_action_ids()
            if len(ids) == 1:
                state.apply_id(ids[0])
                continue
            scores = self.anchor.scores(view(state, state.turn))
            state.apply_id(max(scores, key=scores.__getitem__))
        assert state.outcome is not None
        winner = state.outcome.winner
        return 0.5 if winner is None else float(winner == me)


@dataclass(frozen=True)
class BuildRollout:
    """Builds a rollout bot for a game's seed (picklable, for the arena's worker processes)."""

    plays: int
    deals: int

    def __call__(self, seed: int) -> RolloutBot:
        return RolloutBot(seed, self.plays, self.deals)


def main() -> None:
    """Parse the options, play the match and print its summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None, help="games (100; --short: 2)")
    parser.add_argument("--plays", type=int, default=None, help="the anchor's best actions compared (4)")
    parser.add_argument("--deals", type=int, default=None, help="sampled deals per decision (8)")
    parser.add_argument("--seed", type=int, default=1000, help="game i is dealt from seed + i // 2")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--short", action="store_true", help="2 games, 2 plays, 1 deal (for CI)")
    options = parser.parse_args()
    games = options.games or (2 if options.short else 100)
    plays = options.plays or (2 if options.short else 4)
    deals = options.deals or (1 if options.short else 8)
    if min(games, plays, deals, options.jobs) < 1:
        parser.error("--games, --plays, --deals and --jobs must be at least 1")
    label = f"rollout ({plays} plays, {deals} deal{'s' if deals > 1 else ''})"
    result = play_match(Player(label, BuildRollout(plays, deals)), "heuristic", games=games,
                        seed=options.seed, jobs=options.jobs)
    print("\n".join(result.lines()))


if __name__ == "__main__":
    main()
