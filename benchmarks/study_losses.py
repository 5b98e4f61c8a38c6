"""How a bot's games end, its wins beside its losses: ``python benchmarks/study_losses.py FOLDER NAME``.

Reads the records an arena saved (``schotten arena A B --save FOLDER``) and, from the seat of the
bot called ``NAME``, averages over its wins and over its losses: the clan cards left in the deck at
the end and how often it ran dry, the cards left in each hand, the stones with a lone card of a
seat at each of that seat's plays (how far it spreads), the passes with cards in hand (R3.2), the
stones each seat took, the plays made once the deck was empty, how the round ended (R6.1, R6.2),
and the stones claimed by the number of cards the loser of the stone had on it (a stone proved
against an incomplete side, R5.2, or beaten complete, R5.1). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from schotten.engine.actions import ACTIONS
from schotten.engine.record import load_game, states_of
from schotten.engine.state import GameState

FIGURES = {
    "clan cards left in the deck": "deck",
    "games whose deck ran dry": "dry",
    "cards in its hand at the end": "hand",
    "cards in the other's hand at the end": "other_hand",
    "stones with a lone card of its own, at each of its plays": "lone",
    "the same for the other, at each of the other's plays": "other_lone",
    "passes with cards in hand": "passes",
    "the other's passes with cards in hand": "other_passes",
    "stones it took": "stones",
    "stones the other took": "other_stones",
    "plays after the deck ran dry": "dry_plays",
}


@dataclass
class Game:
    """The figures of one game from the studied seat."""

    won: bool
    reason: str
    figures: dict[str, float]
    taken: Counter[int] = field(default_factory=Counter)
    """Stones the studied seat claimed, by the other's cards on them then."""
    lost: Counter[int] = field(default_factory=Counter)
    """Stones the other claimed, by the studied seat's cards on them then."""


def lone(state: GameState, seat: int) -> int:
    """Unclaimed stones where ``seat`` has exactly one card."""
    return sum(1 for stone in range(9) if state.owner[stone] < 0 and len(state.sides[seat][stone]) == 1)


def study(path: Path, name: str) -> Game:
    """The figures of the record at ``path`` from the seat of the player whose name starts with ``name``."""
    text = path.read_text(encoding="utf-8")
    players = load_game(text).players or ("", "")
    seat = 0 if players[0].startswith(name) else 1
    states = list(states_of(text))
    plays, spread, passes = [0, 0], [0, 0], [0, 0]
    dry_at: int | None = None
    game = Game(False, "", {})
    for before, after in pairwise(states):
        action, mover = str(ACTIONS[after.history[-1]]), after.movers[-1]
        if "@" in action:
            plays[mover] += 1
            spread[mover] += lone(before, mover)
        elif action == "pass":
            passes[mover] += bool(before.hands[mover])
        elif action.startswith("claim"):
            stone = int(action.split()[1]) - 1
            (game.taken if mover == seat else game.lost)[len(before.sides[1 - mover][stone])] += 1
        if dry_at is None and not after.clan_deck:
            dry_at = len(after.history)
    final = states[-1]
    outcome = final.round_outcomes[-1]
    game.won, game.reason = outcome.winner == seat, str(outcome.reason)
    other = 1 - seat
    game.figures = {
        "deck": len(final.clan_deck), "dry": float(not final.clan_deck),
        "hand": len(final.hands[seat]), "other_hand": len(final.hands[other]),
        "lone": spread[seat] / max(1, plays[seat]), "other_lone": spread[other] / max(1, plays[other]),
        "passes": passes[seat], "other_passes": passes[other],
        "stones": final.owner.count(seat), "other_stones": final.owner.count(other),
        "dry_plays": 0 if dry_at is None else len(final.history) - dry_at,
    }
    return game


def show(label: str, games: list[Game]) -> None:
    """Print the means of ``games``."""
    print(f"{label}: {len(games)}")
    if not games:
        return
    for words, key in FIGURES.items():
        print(f"  {words:58} {statistics.mean(game.figures[key] for game in games):6.2f}")
    print("  how the round ended:", dict(Counter(game.reason for game in games)))
    taken, lost = Counter[int](), Counter[int]()
    for game in games:
        taken.update(game.taken)
        lost.update(game.lost)
    print("  stones it claimed, by the other's cards on them:", dict(sorted(taken.items())))
    print("  stones the other claimed, by its cards on them:", dict(sorted(lost.items())))


def main() -> None:
    """Parse the arguments, study every record of the folder, print wins and losses."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("name", help="the studied bot's name as the records give it (e.g. mcts)")
    args = parser.parse_args()
    games = [study(path, args.name) for path in sorted(args.folder.glob("*.json"))]
    show("wins", [game for game in games if game.won])
    show("losses", [game for game in games if not game.won])


if __name__ == "__main__":
    main()
