"""A learned value: the chance of winning the round from one seat's view of a position.

``value(state, seat)`` reads only what ``seat`` may know (R10): the board, the claimed stones,
the cards left in the decks (their number, not their order), its own hand and whose turn it is;
never the other hand. It is a logistic regression over ``features`` with the weights shipped in
``value_weights.json`` (trained by ``python -m schotten.bots.training``), loaded once.

The features, each from ``seat``'s side (most as ``seat``'s figure less the other seat's):
for every open stone both sides' best reachable formation (R4, ``policy._reach``: the other
seat may get any card not on the board and not in ``seat``'s hand) and the gap between them
in ranks; a stone's soft chance ``sigmoid(STONE_SLOPE * gap)`` (1 or 0 once claimed, 0.5 with
tactic cards or a combat mode) and the round's chance from those (``heuristic.round_chance``,
R6.1); claimed stones, three-stone windows still open and windows one stone from complete;
complete sides, cards on the stones, stones a rank or more ahead; the deck's share left and
its products with the gaps; the turn; the hand's values and pairs that fit a formation.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

from ..engine import GameState
from ..engine.cards import NUM_CLAN, NUM_STONES, NUM_VALUES
from ..engine.formations import RANK_SHIFT
from .heuristic import round_chance
from .policy import _reach

WEIGHTS_FILE = Path(__file__).with_name("value_weights.json")
"""The shipped weights: ``{"names": [...], "weights": [...], "bias": b, ...}``."""

STONE_SLOPE = 1.5
"""A stone's soft chance is ``sigmoid(STONE_SLOPE * gap)``, the gap in formation ranks."""

NAMES: tuple[str, ...] = (
    "claimed",
    "threats",
    "open_windows",
    "chance_logit",
    "gap_sum",
    "complete",
    "cards",
    "ahead",
    "deck_gap",
    "deck_chance",
    "to_move",
    "hand_values",
    "hand_pairs",
    "deck",
)
"""The features, in order (see the module docstring)."""

_WINDOWS = [range(i, i + 3) for i in range(NUM_STONES - 2)]
_TOTAL_CLAN = float(NUM_CLAN)


def features(state: GameState, seat: int) -> list[float]:
    """The value's features of ``state`` from ``seat``'s view (see the module docstring)."""
    other = 1 - seat
    owner, modes = state.owner, state.modes
    hand = 0
    values = []
    for card in state.hands[seat]:
        if card < NUM_CLAN:
            hand |= 1 << card
            values.append(card % NUM_VALUES + 1)
    pool, their_pool = state.pool, state.pool & ~hand
    mine, theirs = state.sides[seat], state.sides[other]
    chances: list[float] = []
    gap_sum = complete = cards = ahead = 0.0
    for stone in range(NUM_STONES):
        if owner[stone] >= 0:
            chances.append(1.0 if owner[stone] == seat else 0.0)
            continue
        side, opposite = mine[stone], theirs[stone]
        if modes[stone] or _has_tactic(side) or _has_tactic(opposite):
            chances.append(0.5)
            continue
        gap = (_reach(side, pool) - _reach(opposite, their_pool)) / RANK_SHIFT
        chances.append(1.0 / (1.0 + math.exp(-STONE_SLOPE * max(-8.0, min(8.0, gap)))))
        gap_sum += math.tanh(gap)
        complete += (len(side) == 3) - (len(opposite) == 3)
        cards += len(side) - len(opposite)
        ahead += (gap >= 1.0) - (gap <= -1.0)
    chance = min(max(round_chance(chances), 1e-3), 1 - 1e-3)
    logit = math.log(chance / (1 - chance))
    deck = len(state.clan_deck) / _TOTAL_CLAN
    claimed, threats, windows = _claims(owner, seat)
    return [
        claimed,
        threats,
        windows,
        logit,
        gap_sum,
        complete,
        cards,
        ahead,
        deck * gap_sum,
        deck * logit,
        1.0 if state.turn == seat else -1.0,
        sum(values) / (NUM_VALUES * max(1, len(values))) - 0.5,
        _fitting_pairs(hand),
        deck,
    ]


def _has_tactic(side: list[int]) -> bool:
    return any(c >= NUM_CLAN for c in side)


def _claims(owner: list[int], seat: int) -> tuple[float, float, float]:
    """Claimed stones, windows one stone from complete and windows still open: ``seat``'s less the other's."""
    claimed = sum(1 if o == seat else -1 for o in owner if o >= 0)
    threats = windows = 0
    for window in _WINDOWS:
        owners = [owner[s] for s in window]
        for who, sign in ((seat, 1), (1 - seat, -1)):
            if all(o in (who, -1) for o in owners):
                windows += sign
                threats += sign * (owners.count(who) == 2)
    return float(claimed), float(threats), float(windows)


def _fitting_pairs(hand: int) -> float:
    """Pairs of hand cards of a colour within two values of each other, or of the same value."""
    count = 0
    cards = [c for c in range(NUM_CLAN) if hand >> c & 1]
    for i, x in enumerate(cards):
        for y in cards[i + 1 :]:
            same_colour = x // NUM_VALUES == y // NUM_VALUES and abs(x - y) <= 2
            count += same_colour or x % NUM_VALUES == y % NUM_VALUES
    return count / 3.0


@cache
def weights() -> tuple[tuple[float, ...], float]:
    """The shipped weights and bias (read from ``WEIGHTS_FILE`` once)."""
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    if tuple(data["names"]) != NAMES:
        raise ValueError(f"{WEIGHTS_FILE.name} was trained on other features: retrain it")
    return tuple(float(w) for w in data["weights"]), float(data["bias"])


def predict(feats: list[float], coefs: tuple[float, ...], bias: float) -> float:
    """The logistic model's chance for ``feats``."""
    z = bias + sum(w * f for w, f in zip(coefs, feats, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def value(state: GameState, seat: int) -> float:
    """``seat``'s chance of winning the round in ``state`` by the shipped model, from its view only."""
    coefs, bias = weights()
    return predict(features(state, seat), coefs, bias)
