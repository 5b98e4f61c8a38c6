"""Strength table of the built-in bots (``schotten arena``): run ``python benchmarks/bench_strength.py``.

Plays mcts vs random, mcts vs heuristic and heuristic vs random in the base, tactics
and expert variants, and prints a markdown table: A's wins, losses and draws, its
score with the 95% Wilson interval (a draw counts half), the Elo difference, the
forfeits (their reasons are listed below the table), the mean time per decision of
each bot, and the command line that replays each row.
Options: ``--games N``, ``--time S`` (seconds per search decision) or ``--iterations
K``, ``--jobs J``, ``--seed S``, ``--variants base,tactics``, ``--json`` for one JSON
object, ``--short`` for a quick run (a few games at a small iteration budget, for CI).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass

from schotten.arena import ArenaResult, format_elo, play_match, player

PAIRS: tuple[tuple[str, str], ...] = (("mcts", "random"), ("mcts", "heuristic"), ("heuristic", "random"))
"""The matches of the table: (A, B)."""

VARIANTS: tuple[str, ...] = ("base", "tactics", "expert")
"""The variants of the table."""

HEADER = (
    "| variant | A | B | games | A: W-L-D | A's score (95% CI) | Elo A-B (95% CI) "
    "| forfeits A/B | ms/decision A | ms/decision B | command |"
)


@dataclass(frozen=True, slots=True)
class Budget:
    """How much each row plays: games, the search budget, workers, first seed."""

    games: int
    seconds: float | None
    iterations: int | None
    jobs: int
    seed: int


def command_line(a: str, b: str, variant: str, budget: Budget) -> str:
    """The ``schotten arena`` command that plays the same match."""
    words = ["schotten", "arena", a, b, "--variant", variant, "--games", str(budget.games)]
    if budget.seconds is not None:
        words += ["--time", f"{budget.seconds:g}"]
    if budget.iterations is not None:
        words += ["--iterations", str(budget.iterations)]
    return shlex.join([*words, "--seed", str(budget.seed)])


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f}"


def row(result: ArenaResult, command: str) -> str:
    """One markdown table row for a match."""
    low, high = result.ci95
    elo_low, elo_high = result.elo_ci95
    cells = [
        result.variant,
        result.a,
        result.b,
        str(result.n),
        f"{result.wins}-{result.losses}-{result.draws}",
        f"{result.score:.1%} ({low:.1%} .. {high:.1%})",
        f"{format_elo(result.elo)} ({format_elo(elo_low)} .. {format_elo(elo_high)})",
        "{}/{}".format(*result.forfeits),
        _ms(result.move_seconds[0]),
        _ms(result.move_seconds[1]),
        f"`{command}`",
    ]
    return "| " + " | ".join(cells) + " |"


def missing_row(a: str, b: str, variant: str, reason: str) -> str:
    """A row for a match that could not be played (a bot is not available)."""
    return f"| {variant} | {a} | {b} | - | - | - | - | - | - | - | not played: {reason} |"


def run(budget: Budget, variants: tuple[str, ...], as_json: bool) -> None:
    """Play every match of the table and print it, row by row as each match ends."""
    if not as_json:
        print(HEADER)
        print("|" + "---|" * HEADER.count(" | ") + "---|")
    rows = []
    notes: list[str] = []
    start = time.perf_counter()
    for variant in variants:
        for a, b in PAIRS:
            command = command_line(a, b, variant, budget)
            try:
                player(a), player(b)
            except ValueError as error:
                rows.append({"command": command, "error": str(error)})
                if not as_json:
                    print(missing_row(a, b, variant, str(error)), flush=True)
                continue
            print(f"playing: {command}", file=sys.stderr, flush=True)
            result = play_match(a, b, budget.games, variant, seed=budget.seed, seconds=budget.seconds,
                                iterations=budget.iterations, jobs=budget.jobs)
            rows.append({"command": command, **result.as_dict()})
            notes += [f"- `{command}`: {count} x {reason}" for reason, count in result.forfeit_reasons()]
            if not as_json:
                print(row(result, command), flush=True)
    if as_json:
        print(json.dumps({"rows": rows, "wall_seconds": time.perf_counter() - start}))
    else:
        print(f"\n{_budget_text(budget)}; {time.perf_counter() - start:.0f} s in all.")
        if notes:
            print("\nForfeits:\n" + "\n".join(notes))


def _budget_text(budget: Budget) -> str:
    search = f"{budget.seconds:g} s" if budget.seconds is not None else f"{budget.iterations} iterations"
    return (f"{budget.games} games per row (seeds {budget.seed}..{budget.seed + budget.games - 1}, "
            f"A in seat i % 2), search bots at {search} per decision, {budget.jobs} worker(s)")


def main() -> None:
    """Parse the options and print the strength table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None, help="games per match (100; --short: 4)")
    parser.add_argument("--time", type=float, default=None, help="seconds per search decision (default 0.2)")
    parser.add_argument("--iterations", type=int, default=None, help="iterations per search decision")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="game i is dealt from seed + i // 2")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated variants")
    parser.add_argument("--short", action="store_true", help="4 games per match at 20 iterations (for CI)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    iterations = args.iterations if args.iterations is not None else (20 if args.short else None)
    seconds = args.time if args.time is not None or iterations is not None else 0.2
    games = args.games if args.games is not None else (4 if args.short else 100)
    budget = Budget(games, seconds, iterations, args.jobs, args.seed)
    run(budget, tuple(v.strip() for v in args.variants.split(",") if v.strip()), args.json)


if __name__ == "__main__":
    main()
