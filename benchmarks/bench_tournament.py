"""Tournament pairing figures: ``python benchmarks/bench_tournament.py [--short] [--json]``.

Times the pure pairing code of ``schotten.web.tournaments``: a Swiss round of ``--players``
(1,000) in round 1 and in round 5 (after four rounds of seeded random results, so with score
groups), and an arena wave of ``--waiting`` (500) waiting players of random scores, ratings and
last opponents. It prints the median and the slowest wall time of the repeats and the median
CPU time (goals: a Swiss round under 1 s, a wave under 100 ms) and what the pairing made: pairs,
byes, floaters (pairs across score groups) and players left waiting. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from schotten.web.tournaments.arena import Waiting, pairing_wave
from schotten.web.tournaments.swiss import Entrant, Played, SwissRound, pair_round, scores

T = TypeVar("T")
NOW = datetime(2026, 12, 4, 20, 0)


def _timed(work: Callable[[], T], repeats: int) -> tuple[T, dict[str, float]]:
    """The last result of ``work``; the median and slowest wall seconds and the median CPU seconds."""
    wall: list[float] = []
    cpu: list[float] = []
    result = work()
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = work()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return result, {"median_s": statistics.median(wall), "max_s": max(wall), "cpu_s": statistics.median(cpu)}


def _swiss_history(
    entrants: list[Entrant], rounds: int, rng: random.Random
) -> tuple[list[Played], list[int]]:
    """``rounds`` rounds paired by ``pair_round`` with random results (a draw one game in five)."""
    games: list[Played] = []
    byes: list[int] = []
    for _ in range(rounds):
        paired = pair_round(entrants, games, byes)
        for pair in paired.pairs:
            winner = rng.choice([pair.first, pair.second, pair.first, pair.second, None])
            games.append(Played(pair.first, pair.second, winner))
        byes += [] if paired.bye is None else [paired.bye]
    return games, byes


def _floaters(paired: SwissRound, games: list[Played], byes: list[int]) -> int:
    score = scores(games, byes)
    return sum(score.get(p.first, 0) != score.get(p.second, 0) for p in paired.pairs)


def swiss(players: int, before: int, repeats: int, seed: int) -> dict[str, Any]:
    """Figures of pairing round ``before + 1`` of a Swiss event of ``players``."""
    rng = random.Random(seed)
    entrants = [Entrant(p, rng.randint(900, 2400)) for p in range(1, players + 1)]
    games, byes = _swiss_history(entrants, before, rng)
    groups = len(set(scores(games, byes).values()) | ({0} if not games else set()))
    paired, seconds = _timed(lambda: pair_round(entrants, games, byes), repeats)
    return {"players": players, "round": before + 1, "score_groups": groups, **seconds,
            "pairs": len(paired.pairs), "bye": paired.bye is not None,
            "floaters": _floaters(paired, games, byes), "unpaired": len(paired.unpaired)}


def _field(waiting: int, rng: random.Random) -> list[Waiting]:
    ids = list(range(1, waiting + 1))
    return [
        Waiting(p, rng.randint(0, 40), rng.randint(900, 2400), NOW - timedelta(seconds=rng.randint(0, 90)),
                rng.choice(ids), rng.randint(0, 5), rng.randint(5, 10))
        for p in ids
    ]


def arena(waiting: int, repeats: int, seed: int) -> dict[str, Any]:
    """Figures of one pairing wave over ``waiting`` players."""
    field = _field(waiting, random.Random(seed))
    wave, seconds = _timed(lambda: pairing_wave(field, NOW, NOW + timedelta(hours=1)), repeats)
    gaps = [abs(a.score - b.score) for a, b in _pairs_of(wave.pairs, field)]
    return {"waiting": waiting, **seconds, "pairs": len(wave.pairs), "left_waiting": len(wave.waiting),
            "mean_score_gap": statistics.mean(gaps) if gaps else 0.0}


def _pairs_of(pairs: Any, field: list[Waiting]) -> list[tuple[Waiting, Waiting]]:
    by_id = {w.player: w for w in field}
    return [(by_id[p.first], by_id[p.second]) for p in pairs]


def main() -> None:
    """Parse the options, run each figure and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--short", action="store_true", help="one timed run of each figure")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--players", type=int, default=1000, help="players of the Swiss event")
    parser.add_argument("--waiting", type=int, default=500, help="players waiting for the arena wave")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    repeats = 1 if args.short else 5
    figures = {
        "swiss_round_1": swiss(args.players, 0, repeats, args.seed),
        "swiss_round_5": swiss(args.players, 4, repeats, args.seed),
        "arena_wave": arena(args.waiting, 3 if args.short else 20, args.seed),
    }
    if args.json:
        print(json.dumps(figures))
        return
    for name, row in figures.items():
        cells = ", ".join(f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}"
                          for key, value in row.items())
        print(f"{name}: {cells}")


if __name__ == "__main__":
    main()
