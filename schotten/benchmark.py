"""Engine speed figures: random games per second, actions per second and claim-proof times.

A *random game* is a uniformly random legal game in which every provable claim is
taken (R5.4): the engine checks claims after every play, as in real games. A
*claim proof* is the R5.2 question on a real mid-game position: the player to move
has completed a side of an unclaimed stone, the opponent has not, and the proof
asks whether the opponent's side can still beat it. It is timed as the engine runs
it (``can_claim`` with an empty refutation cache) and, for comparison, as the bare
``best_formation`` search with the claimer's strength as floor. Each proof is timed
on its own with ``time.perf_counter_ns``, many times; a position's time is the
median of its repetitions, and the figures summarise the typical, the 99th-percentile
and the slowest position. Everything runs in one process.
"""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from .engine import GameState, Phase, Settings
from .engine.actions import DONE_ID
from .engine.cards import MODE_BLUFF, NUM_CLAN, NUM_STONES
from .engine.formations import best_formation, warm_tables

WARM_UP_GAMES = 30
"""Untimed games played first, so that tables and caches built on first use are not timed."""


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """How much work a benchmark run does."""

    games: int = 1000
    positions: int = 2000
    repeats: int = 15

    @staticmethod
    def short() -> BenchConfig:
        """A run of a couple of seconds, for CI."""
        return BenchConfig(games=150, positions=300, repeats=5)


@dataclass(frozen=True, slots=True)
class BenchResult:
    """The figures of one benchmark run."""

    base_games_per_s: float
    tactics_games_per_s: float
    actions_per_s: float
    claim_proofs_per_s: float
    claim_proof_us_median: float
    claim_proof_us_p99: float
    claim_proof_us_max: float
    best_formation_us_median: float
    best_formation_us_max: float
    positions: int
    games: int

    def as_dict(self) -> dict[str, float | int]:
        """The figures as a flat JSON-ready dictionary."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ProofCase:
    """A position where ``seat`` has a complete side of ``stone`` and the opponent has not."""

    state: GameState
    seat: int
    stone: int


_CLAIM = Phase.CLAIM


def random_game(state: GameState, rng: random.Random) -> int:
    """Play ``state`` to the end with uniformly random legal actions, taking every claim.

    Returns the number of actions played.
    """
    count = 0
    while not state.is_over:
        state.apply_id(random_choice(state, rng))
        count += 1
    return count


def random_choice(state: GameState, rng: random.Random) -> int:
    """A uniformly random legal action id; in the claim step, a claim (R5.4)."""
    ids = state.legal_action_ids()
    if state.phase == _CLAIM:
        return next(i for i in ids if i != DONE_ID)
    return rng.choice(ids)


def time_random_games(variant: str, games: int, seed: int = 0) -> tuple[float, int]:
    """Seconds spent playing ``games`` random games of ``variant``, and the actions played."""
    settings = Settings.of(variant)
    actions = 0
    start = time.perf_counter()
    for game in range(games):
        actions += random_game(GameState.new(settings, seed + game), random.Random(seed + game))
    return time.perf_counter() - start, actions


def proof_cases(count: int, seed: int = 0, variant: str = "tactics") -> list[ProofCase]:
    """Collect ``count`` claim-proof positions from random games (R5.2 cases only)."""
    cases: list[ProofCase] = []
    game = 0
    while len(cases) < count:
        rng = random.Random(seed + 10_000 + game)
        state = GameState.new(Settings.of(variant), seed + 10_000 + game)
        while not state.is_over and len(cases) < count:
            if state.phase == Phase.PLAY:
                cases.extend(_cases_in(state))
            state.apply_id(random_choice(state, rng))
        game += 1
    return cases[:count]


def _cases_in(state: GameState) -> list[ProofCase]:
    seat = state.turn
    return [
        ProofCase(state.copy(), seat, stone)
        for stone in range(NUM_STONES)
        if state.owner[stone] < 0
        and state.is_complete(seat, stone)
        and not state.is_complete(1 - seat, stone)
    ]


def proof_call(case: ProofCase) -> Callable[[], object]:
    """The bare R5.2 proof of a case: best_formation of the opponent's side above our strength."""
    state, stone = case.state, case.stone
    theirs = state.sides[1 - case.seat][stone]
    clan = tuple(c for c in theirs if c < NUM_CLAN)
    wild = tuple(c for c in theirs if c >= NUM_CLAN)
    size = state.capacity(stone)
    bluff = bool(state.modes[stone] & MODE_BLUFF)
    pool = state.pool
    floor = state.strength(case.seat, stone)
    return lambda: best_formation(clan, wild, size, bluff, pool, floor)


def fresh_can_claim(case: ProofCase) -> Callable[[], object]:
    """``can_claim`` on a copy whose refutation cache is empty (no shortcut from earlier proofs)."""
    state = case.state.copy()
    seat, stone = case.seat, case.stone

    def call() -> bool:
        state._refuted = [None] * (2 * NUM_STONES)
        return state.can_claim(seat, stone)

    return call


def time_each(calls: list[Callable[[], object]], repeats: int) -> list[float]:
    """For each call, the median of ``repeats`` individual timings, in microseconds."""
    timer = time.perf_counter_ns
    results = []
    for call in calls:
        samples = []
        for _ in range(repeats):
            start = timer()
            call()
            samples.append(timer() - start)
        results.append(statistics.median(samples) / 1000)
    return results


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))
    return ordered[index]


def run(config: BenchConfig | None = None, seed: int = 0) -> BenchResult:
    """Run every benchmark once and return the figures."""
    config = config or BenchConfig()
    warm_tables()
    for variant in ("base", "tactics"):
        time_random_games(variant, WARM_UP_GAMES, seed + config.games)
    base_s, base_actions = time_random_games("base", config.games, seed)
    tactics_s, tactics_actions = time_random_games("tactics", config.games, seed)
    cases = proof_cases(config.positions, seed)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        proofs = time_each([fresh_can_claim(c) for c in cases], config.repeats)
        searches = time_each([proof_call(c) for c in cases], config.repeats)
    finally:
        if gc_was_enabled:
            gc.enable()
    return BenchResult(
        base_games_per_s=config.games / base_s,
        tactics_games_per_s=config.games / tactics_s,
        actions_per_s=(base_actions + tactics_actions) / (base_s + tactics_s),
        claim_proofs_per_s=1e6 / statistics.fmean(proofs),
        claim_proof_us_median=statistics.median(proofs),
        claim_proof_us_p99=percentile(proofs, 0.99),
        claim_proof_us_max=max(proofs),
        best_formation_us_median=statistics.median(searches),
        best_formation_us_max=max(searches),
        positions=len(cases),
        games=config.games,
    )


LABELS: dict[str, str] = {
    "base_games_per_s": "random games/s (base)",
    "tactics_games_per_s": "random games/s (tactics)",
    "actions_per_s": "actions/s",
    "claim_proofs_per_s": "claim proofs/s",
    "claim_proof_us_median": "claim proof (fresh can_claim), median (µs)",
    "claim_proof_us_p99": "claim proof (fresh can_claim), p99 (µs)",
    "claim_proof_us_max": "claim proof (fresh can_claim), worst (µs)",
    "best_formation_us_median": "best_formation with floor, median (µs)",
    "best_formation_us_max": "best_formation with floor, worst (µs)",
    "positions": "proof positions",
    "games": "games per variant",
}
"""Readable names of the figures, in display order."""


def report_lines(result: BenchResult) -> list[str]:
    """The figures as aligned text lines."""
    figures = result.as_dict()
    width = max(len(label) for label in LABELS.values())
    lines = []
    for key, label in LABELS.items():
        value = figures[key]
        shown = f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"
        lines.append(f"{label:<{width}}  {shown:>12}")
    return lines
