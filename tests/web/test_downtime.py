"""The time the site was down is given back to running clocks (``Store.give_back_downtime``); of
several processes, only a time longer than ``at_least`` (when none of them served) is."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from helpers_ratings import BLITZ, START

from schotten.web.core.clock import Clock
from schotten.web.core.vocab import Mode, Status
from schotten.web.storage.rows import GameInfo
from schotten.web.storage.store import Store


def running_game(store: Store) -> None:
    """A friend game whose seat 0's clock runs since ``START``."""
    store.add_game(GameInfo(
        id="g", variant="base", rounds=1, seed=1, mode=Mode.FRIEND, level=None, ai_seat=None,
        players=["Ann", "Bob"], token_hashes=["h0" * 32, "h1" * 32], status=Status.PLAYING, created=START,
        clock=Clock.new(BLITZ).start(0, START)))


def since(store: Store) -> object:
    """When the running clock of the game started, as stored."""
    loaded = store.load("g")
    assert loaded is not None and loaded[0].clock is not None
    return loaded[0].clock.since


def test_a_short_gap_is_not_given_back_a_long_one_is(tmp_path: Path) -> None:
    """Down 8 s with at_least 10: nothing given back; down 30 s: the 30 s are."""
    store = Store(f"sqlite:///{tmp_path / 'games.db'}")
    store.check()
    try:
        running_game(store)
        store.beat(START)
        assert store.give_back_downtime(START + timedelta(seconds=8), at_least=10.0) == 0.0
        assert since(store) == START
        assert store.give_back_downtime(START + timedelta(seconds=30), at_least=10.0) == 30.0
        assert since(store) == START + timedelta(seconds=30)
    finally:
        store.close()
