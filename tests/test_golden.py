"""Golden records: games from fixed seeds that must replay to their stored results (R2.4).

Each file in ``tests/golden/`` was played by a seeded random policy that always
claims when it can. Loading one replays every action with the checked ``apply``
and compares the stored result, so a change to the rules that alters what is
legal or who wins makes these tests fail. The tests only read the files; after a
deliberate rules change, regenerate them and review the diff. The files are
version 1 records (regenerating writes the current version): they also show that
records of the old version still load and replay exactly::

    python -m tests.test_golden --regenerate
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest

from schotten.engine.actions import CLAIM_BASE, DONE_ID
from schotten.engine.record import VERSION, dumps_record, load_record, record_of
from schotten.engine.state import GameState, Settings

GOLDEN = Path(__file__).resolve().parent / "golden"
PLAYERS = ["random-claimer", "random-claimer"]

GAMES: dict[str, tuple[str, int, int | None, int]] = {
    "base": ("base", 1, None, 992),
    "tactics": ("tactics", 1, None, 929),
    "expert": ("expert", 1, None, 982),
    "expert-base": ("expert-base", 1, 1, 995),
    "tactics-3-rounds": ("tactics", 3, None, 989),
    "base-3-rounds": ("base", 3, 0, 996),
}
"""Each golden game: file stem -> (variant, rounds, first player setting, seed).

The seeds were picked so that the games use every ruse (the Recruiter included) and passes."""


def play_golden(variant: str, rounds: int, first_player: int | None, seed: int) -> GameState:
    """Play a whole game with a random policy seeded by ``seed`` that always claims when it can."""
    state = GameState.new(Settings.of(variant, rounds, first_player), seed)
    rng = random.Random(seed)
    while not state.is_over:
        ids = state.legal_action_ids()
        claims = [i for i in ids if CLAIM_BASE <= i < DONE_ID]
        state.apply_id(claims[0] if claims else rng.choice(ids))
    return state


def regenerate() -> None:
    """Write every golden record again (only after a deliberate rules change)."""
    GOLDEN.mkdir(exist_ok=True)
    for stem, game in GAMES.items():
        path = GOLDEN / f"{stem}.json"
        path.write_text(dumps_record(play_golden(*game), players=PLAYERS) + "\n", encoding="utf-8")
        print(f"wrote {path}")


def test_every_golden_file_is_listed() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(GAMES)


@pytest.mark.parametrize("stem", sorted(GAMES))
def test_golden_record_replays_to_its_result(stem: str) -> None:
    text = (GOLDEN / f"{stem}.json").read_text(encoding="utf-8")
    stored = json.loads(text)
    variant, rounds, first_player, seed = GAMES[stem]
    assert (stored["variant"], stored["rounds"], stored["first_player"], stored["seed"]) == (
        variant, rounds, first_player, seed)
    state = load_record(text)
    assert state.is_over and state.outcome is not None
    assert stored["result"] is not None and len(stored["result"]["rounds"]) == rounds
    assert record_of(state, players=PLAYERS) == {**stored, "version": VERSION}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--regenerate", action="store_true", help="write the golden records again")
    if parser.parse_args().regenerate:
        regenerate()
    else:
        parser.print_help()
