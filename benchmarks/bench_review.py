"""How long a game review takes on one core. Run ``python benchmarks/bench_review.py``.

Plays a base game between two heuristic bots (seed ``--seed``), keeps its first ``--decisions``
unforced decisions (40 by default; the game is cut after the last of them, which is all a
review replays), reviews them at ``--iterations`` per decision (the review's default budget)
and prints the time, the time per decision and the marks found. ``--short``: 4 decisions at
100 iterations, for CI (a second or two).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from schotten.bots.analysis import DEFAULT_ITERATIONS
from schotten.bots.heuristic import HeuristicBot
from schotten.bots.review import review
from schotten.engine import GameState, Settings
from schotten.engine.record import Record, record_of
from schotten.engine.view import view


def game_record(seed: int, decisions: int) -> Record:
    """A heuristic-against-heuristic base game, stopped after its ``decisions``-th unforced decision."""
    state = GameState.new(Settings.of("base"), seed)
    bots = (HeuristicBot(seed), HeuristicBot(seed + 1))
    found = 0
    while not state.is_over and found < decisions:
        found += len(state.legal_action_ids()) > 1
        state.apply(bots[state.turn].choose(view(state, state.turn)))
    return record_of(state)


def main() -> None:
    """Parse the options, review the game, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.decisions, args.iterations = 4, 100
    record = game_record(args.seed, args.decisions)
    start = time.perf_counter()
    decisions = review(record, args.iterations, args.seed)
    spent = time.perf_counter() - start
    marks = Counter(d.mark for d in decisions if d.mark)
    print(f"review of {len(decisions)} decisions at {args.iterations} iterations: {spent:.1f} s "
          f"({spent / max(1, len(decisions)):.2f} s per decision); marks: {dict(marks) or 'none'}")


if __name__ == "__main__":
    main()
