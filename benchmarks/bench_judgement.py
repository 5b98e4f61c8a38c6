"""How well judgements of a position predict the end: run ``python benchmarks/bench_judgement.py``.

Plays heuristic-against-heuristic base games (game i dealt from seed + i) and, at every
``--every``-th play decision, judges the position from the mover's view (R10) on one deal
sampled from that view: by the heuristic's round chance (its stone chances combined over the
ways the stones can fall, R6.1), by the mean of ``--playouts`` of the search's playouts, and by
one playout (what a search iteration gets). Prints a markdown table of Brier scores (the mean
squared gap between the judgement and the game's result for the mover: 1, 0.5 or 0; lower is
better, a constant 0.5 scores 0.250) by clan cards left in the deck. Options: ``--games N``,
``--every K``, ``--playouts P``, ``--seed S``, ``--jobs J``, ``--short`` (a few games, for CI).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial

from schotten.bots.board import Board
from schotten.bots.heuristic import HeuristicBot, Judge, round_chance
from schotten.bots.mcts import playout
from schotten.bots.sample import Sampler
from schotten.engine import GameState, Phase, Settings
from schotten.engine.view import View, view

STAGES: tuple[tuple[str, int, int], ...] = (
    ("30+", 30, 99),
    ("15-29", 15, 29),
    ("under 15", 0, 14),
    ("all", 0, 99),
)
"""The table's columns: a name and the clan cards left in the deck, least and most."""


@dataclass(frozen=True, slots=True)
class Judged:
    """One position: clan cards left, the judgements (round chance, mean of playouts, one
    playout) and the mover's result."""

    deck: int
    chance: float
    playouts: float
    one: float
    result: float


def judge_position(seen: View, rng: random.Random, playouts: int) -> tuple[float, float, float]:
    """The three judgements of a position for its mover, from the mover's view ``seen`` only."""
    assert seen.seat is not None
    me = seen.seat
    deal = Sampler(seen).sample(rng)
    chance = round_chance(Judge(Board.of(seen)).now)
    results = [playout(deal.copy(), random.Random(rng.getrandbits(32)), me) for _ in range(playouts)]
    return chance, sum(results) / playouts, results[0]


def play_game(seed: int, every: int, playouts: int) -> list[Judged]:
    """One heuristic self-play game from ``seed``, with its judged positions."""
    state = GameState.new(Settings(), seed)
    bots = (HeuristicBot(2 * seed), HeuristicBot(2 * seed + 1))
    rng = random.Random(seed)
    found: list[tuple[int, int, tuple[float, float, float]]] = []
    decisions = 0
    while not state.is_over:
        seen = view(state, state.turn)
        if state.phase == Phase.PLAY:
            if decisions % every == 0:
                found.append((state.turn, seen.clan_deck, judge_position(seen, rng, playouts)))
            decisions += 1
        state.apply(bots[state.turn].choose(seen))
    assert state.outcome is not None
    winner = state.outcome.winner
    return [
        Judged(deck, *judged, 0.5 if winner is None else float(winner == mover))
        for mover, deck, judged in found
    ]


def brier(positions: list[Judged], judgement: str) -> float:
    """The Brier score of one judgement ("chance", "playouts", "one") over ``positions``."""
    return sum((float(getattr(p, judgement)) - p.result) ** 2 for p in positions) / len(positions)


def table(positions: list[Judged], playouts: int) -> list[str]:
    """The markdown table: a row per judgement, a column per stage of the deck."""
    columns = [[p for p in positions if low <= p.deck <= high] for _, low, high in STAGES]
    lines = [
        "| judgement | " + " | ".join(f"{name} clan cards left" for name, _, _ in STAGES[:-1]) + " | all |",
        "|---" * (len(STAGES) + 1) + "|",
        "| positions | " + " | ".join(str(len(c)) for c in columns) + " |",
    ]
    rows = (
        ("the heuristic's round chance", "chance"),
        (f"the mean of {playouts} playouts", "playouts"),
        ("one playout", "one"),
    )
    for name, key in rows:
        cells = [f"{brier(c, key):.3f}" if c else "-" for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    """Parse the options, play the games in parallel and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None, help="games (300; --short: 4)")
    parser.add_argument("--every", type=int, default=4, help="judge every K-th play decision")
    parser.add_argument("--playouts", type=int, default=8, help="playouts averaged per position")
    parser.add_argument("--seed", type=int, default=70000, help="game i is dealt from seed + i")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--short", action="store_true", help="4 games (for CI)")
    options = parser.parse_args()
    games = options.games or (4 if options.short else 300)
    if games < 1 or options.every < 1 or options.playouts < 1 or options.jobs < 1:
        parser.error("--games, --every, --playouts and --jobs must be at least 1")
    start = time.perf_counter()
    work = partial(play_game, every=options.every, playouts=options.playouts)
    seeds = range(options.seed, options.seed + games)
    with ProcessPoolExecutor(options.jobs) as pool:
        positions = [p for game in pool.map(work, seeds) for p in game]
    print(f"{games} heuristic self-play base games (seeds {seeds[0]}..{seeds[-1]}), "
          f"every {options.every}th play decision judged by its mover: Brier scores")
    print("\n".join(table(positions, options.playouts)))
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
