"""Training the learned value (``value.py``) by self-play: ``python -m schotten.bots.training``.

Plays heuristic-against-heuristic base games (game ``i`` dealt from ``seed + i``; a play
decision is random one time in ``1 / EXPLORE``, so that the positions vary as a search's
do) and keeps, at every play decision, the position from both seats' views with the result
of the round for that seat (1, 0.5 or 0). The first ``1 - HELD_OUT`` of the games train a
logistic regression (Newton's method, an L2 penalty ``RIDGE`` on the weights); the rest
measure it. Prints the positions, the held-out log loss, Brier score and accuracy beside a
constant 0.5's and the soft round chance's alone, and writes the weights to
``value.WEIGHTS_FILE`` (``--out`` elsewhere). The same options give the same weights.
Options: ``--games N``, ``--seed S``, ``--jobs J``, ``--out PATH``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..engine import GameState, Phase, Settings
from ..engine.view import view
from .heuristic import HeuristicBot
from .value import NAMES, WEIGHTS_FILE, features, predict

EXPLORE = 0.1
"""The share of play decisions made at random in the training games."""

HELD_OUT = 0.2
"""The share of the games (the last ones) kept out of training to measure the model."""

RIDGE = 1.0
"""The L2 penalty on the weights (not the bias)."""

NEWTON_STEPS = 8
"""Newton iterations of the fit."""

Sample = tuple[list[float], float]
"""A position's features and the round's result for the seat whose view it is."""


def play_game(seed: int) -> list[Sample]:
    """One heuristic self-play base game dealt from ``seed``; its positions from both seats' views."""
    state = GameState.new(Settings(), seed)
    bots = (HeuristicBot(2 * seed), HeuristicBot(2 * seed + 1))
    rng = random.Random(seed)
    found: list[tuple[int, list[float]]] = []
    while not state.is_over:
        seen = view(state, state.turn)
        if state.phase == Phase.PLAY:
            found.extend((seat, features(state, seat)) for seat in (0, 1))
            ids = state.legal_action_ids()
            if len(ids) > 1 and rng.random() < EXPLORE:
                state.apply_id(rng.choice(ids))
                continue
        state.apply(bots[state.turn].choose(seen))
    assert state.outcome is not None
    winner = state.outcome.winner
    return [(feats, 0.5 if winner is None else float(winner == seat)) for seat, feats in found]


def fit(samples: list[Sample], ridge: float = RIDGE, steps: int = NEWTON_STEPS) -> tuple[list[float], float]:
    """Logistic regression by Newton's method: the weights and the bias."""
    size = len(samples[0][0]) + 1
    theta = [0.0] * size
    rows = [([1.0, *feats], label) for feats, label in samples]
    for _ in range(steps):
        grad = [0.0] * size
        hess = [[0.0] * size for _ in range(size)]
        coefs = tuple(theta[1:])
        for x, y in rows:
            p = predict(x[1:], coefs, theta[0])
            err, w = p - y, p * (1 - p)
            for i, xi in enumerate(x):
                grad[i] += err * xi
                wxi = w * xi
                row = hess[i]
                for j in range(i + 1):
                    row[j] += wxi * x[j]
        for i in range(size):
            for j in range(i):
                hess[j][i] = hess[i][j]
            if i:
                grad[i] += ridge * theta[i]
                hess[i][i] += ridge
        step = _solve(hess, grad)
        theta = [t - s for t, s in zip(theta, step, strict=True)]
    return theta[1:], theta[0]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix^-1 vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def measure(chances: list[float], labels: list[float]) -> dict[str, float]:
    """Log loss, Brier score and accuracy (a draw counts half) of ``chances`` against ``labels``."""
    n = len(labels)
    loss = brier = hits = 0.0
    for p, y in zip(chances, labels, strict=True):
        p = min(max(p, 1e-9), 1 - 1e-9)
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        brier += (p - y) ** 2
        hits += 0.5 if y == 0.5 or p == 0.5 else float((p > 0.5) == (y > 0.5))
    return {"log_loss": loss / n, "brier": brier / n, "accuracy": hits / n}


def train(games: int, seed: int, jobs: int) -> dict[str, object]:
    """Play, fit and measure; the weights file's contents (with the figures)."""
    with ProcessPoolExecutor(jobs) as pool:
        played = list(pool.map(play_game, range(seed, seed + games), chunksize=8))
    cut = games - max(1, round(games * HELD_OUT))
    train_set = [s for game in played[:cut] for s in game]
    test_set = [s for game in played[cut:] for s in game]
    coefs, bias = fit(train_set)
    labels = [y for _, y in test_set]
    chance_at = NAMES.index("chance_logit")
    figures = {
        "model": measure([predict(f, tuple(coefs), bias) for f, _ in test_set], labels),
        "constant": measure([0.5] * len(labels), labels),
        "soft_chance": measure([1 / (1 + math.exp(-f[chance_at])) for f, _ in test_set], labels),
    }
    return {
        "names": list(NAMES),
        "weights": [round(w, 6) for w in coefs],
        "bias": round(bias, 6),
        "trained": {"games": games, "seed": seed, "train_positions": len(train_set),
                    "held_out_positions": len(test_set), "held_out_games": games - cut,
                    "figures": {k: {m: round(v, 4) for m, v in f.items()} for k, f in figures.items()}},
    }


def main() -> None:
    """Parse the options, train, print the figures and write the weights."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=2000, help="self-play games (2000)")
    parser.add_argument("--seed", type=int, default=90000, help="game i is dealt from seed + i")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="where to write the weights")
    options = parser.parse_args()
    if options.games < 5 or options.jobs < 1:
        parser.error("--games must be at least 5 and --jobs at least 1")
    start = time.perf_counter()
    result = train(options.games, options.seed, options.jobs)
    trained = result["trained"]
    assert isinstance(trained, dict)
    last = options.seed + options.games - 1
    print(f"{options.games} heuristic self-play base games (seeds {options.seed}..{last}): "
          f"{trained['train_positions']} training positions, {trained['held_out_positions']} held out "
          f"(the last {trained['held_out_games']} games)")
    print("| judgement | log loss | Brier | accuracy |\n|---|---|---|---|")
    for name, figure in trained["figures"].items():
        print(f"| {name} | {figure['log_loss']:.4f} | {figure['brier']:.4f} | {figure['accuracy']:.3f} |")
    options.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"weights written to {options.out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
