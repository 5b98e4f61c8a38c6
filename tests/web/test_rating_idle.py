"""What the pages show of an idle rating: its RD grown by Glicko-2's step for periods without games
(``helpers_ratings.grown``; rating a game after idle time: ``test_ratings``), in a profile, on the
leaderboard and at a table's seats; nothing is written on a read."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from helpers_ratings import POOL, START, add_game, finish, grown, sign_up, stored_rating
from helpers_web import FakeClock, app_at, service_of, test_settings
from starlette.testclient import TestClient

from schotten.web.storage.db import RatingRow
from schotten.web.storage.store import Store


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[TestClient, FakeClock]]:
    """A client of an app whose clock the test moves (starting at ``START``), and that clock."""
    clock = FakeClock()
    clock.moment = START
    with app_at(test_settings(tmp_path, leaderboard_days=90.0), clock) as client:
        yield client, clock


def set_rating(store: Store, account: int, rd: float, played: datetime, rating: float = 1800.0) -> None:
    """Give an account an established rating in ``POOL``, last changed at ``played``."""
    with store.use() as session, session.begin():
        session.merge(RatingRow(account_id=account, pool=POOL, rating=rating, rd=rd, volatility=0.06,
                                games=30, wins=30, losses=0, draws=0, played=played))


def test_a_profile_shows_the_grown_rd(clocked: tuple[TestClient, FakeClock]) -> None:
    """The rating's RD grows; its history keeps the RD each game left."""
    client, clock = clocked
    store = service_of(client).store
    ann, bob = sign_up(store, "Ann", "Bob")
    finish(store, add_game(store, [ann, bob]), 0, at=START)
    after_game = stored_rating(store, ann)
    clock.moment = START + timedelta(days=40)
    shown = client.get("/api/players/Ann").json()["ratings"][POOL]
    assert shown["rd"] == round(grown(after_game.rd, after_game.volatility, 40.0)) > round(after_game.rd)
    assert shown["history"][-1]["rd"] == round(after_game.rd)
    assert stored_rating(store, ann) == after_game


def test_an_idle_rating_becomes_provisional_again(clocked: tuple[TestClient, FakeClock]) -> None:
    """RD 100 a month ago is more than 110 now: provisional in a profile, off the leaderboard (the
    viewer's own entry too); RD 60 then is about 80 now, still listed."""
    client, clock = clocked
    store = service_of(client).store
    idle, steady = sign_up(store, "Idle", "Steady")
    set_rating(store, idle, 100.0, START - timedelta(days=30), rating=1900.0)
    set_rating(store, steady, 60.0, START - timedelta(days=30))
    assert client.get("/api/players/Idle").json()["ratings"][POOL]["provisional"]
    board = client.get("/api/leaderboard").json()
    assert board["players"] == [{"rank": 1, "username": "Steady", "rating": 1800,
                                 "rd": round(grown(60.0, 0.06, 30.0)), "games": 30, "provisional": False}]
    client.cookies.set("session", service_of(client).accounts.new_session(idle))
    you = client.get("/api/leaderboard").json()["you"]
    assert you["rank"] is None and you["provisional"] and you["rd"] == round(grown(100.0, 0.06, 30.0))
    clock.moment = START - timedelta(days=29)
    assert [p["username"] for p in client.get("/api/leaderboard").json()["players"]] == ["Idle", "Steady"]


def test_a_tables_seats_show_whether_the_grown_rating_is_provisional(
        clocked: tuple[TestClient, FakeClock]) -> None:
    client, _ = clocked
    store = service_of(client).store
    idle, steady = sign_up(store, "Idle", "Steady")
    set_rating(store, idle, 100.0, START - timedelta(days=30))
    set_rating(store, steady, 100.0, START - timedelta(days=1))
    game = add_game(store, [idle, steady])
    table = client.get(f"/api/games/{game}").json()
    assert table["ratings"] == [1800, 1800] and table["provisional"] == [True, False]
    assert client.get("/api/tables").json()["tables"][0]["provisional"] == [True, False]
