"""Profiles (``GET /api/players/{name}``, ``/player/{name}``) and the leaderboard (``GET
/api/leaderboard``, ``/leaderboard``): ratings per pool with their history, counts of games, games as
tables only (R10), established active live players only, and the viewer's own rank."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_ratings import SERIES_EVERY, START, add_game, finish, play_series, sign_up
from helpers_web import FakeClock, app_at, service_of, test_settings
from sqlalchemy import update
from starlette.testclient import TestClient

from schotten.web.core.schemas import Table
from schotten.web.core.settings import WebSettings
from schotten.web.core.vocab import POOLS, Ending
from schotten.web.players.accounts import DELETED_NAME
from schotten.web.storage.db import AccountRow, RatingRow
from schotten.web.storage.store import Store

STATIC = WebSettings().static_dir


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app whose clock stands a day after the test games (``START``), size 3: an RD
    shown has grown for that day (60 then reads 61, 109 reads 109.5)."""
    clock = FakeClock()
    clock.moment = START + timedelta(days=1)
    with app_at(test_settings(tmp_path, static_dir=STATIC, leaderboard_size=3, leaderboard_days=30.0),
                clock) as test_client:
        yield test_client


def store_of(client: TestClient) -> Store:
    return service_of(client).store


def set_rating(store: Store, account: int, rating: float, rd: float = 60.0, played: datetime = START,
               pool: str = "base.realtime", games: int = 30) -> None:
    """Give an account a rating row as if it had played ``games`` games."""
    with store.use() as session, session.begin():
        session.merge(RatingRow(account_id=account, pool=pool, rating=rating, rd=rd, volatility=0.06,
                                games=games, wins=games, losses=0, draws=0, played=played))


def delete(store: Store, account: int) -> None:
    """Delete an account as the accounts' deletion does: its row stays, nameless and without password."""
    with store.use() as session, session.begin():
        session.execute(update(AccountRow).where(AccountRow.id == account)
                        .values(deleted=START, password_hash=None, username=DELETED_NAME))


def log_in(client: TestClient, account: int) -> None:
    client.cookies.set("session", service_of(client).accounts.new_session(account))


def board(client: TestClient, pool: str | None = None) -> dict[str, Any]:
    response = client.get("/api/leaderboard", params={"pool": pool} if pool else None)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


# ---------------------------------------------------------------------- profiles


def test_a_profile_after_a_win(client: TestClient) -> None:
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    won = add_game(store, [ann, bob])
    finish(store, won, 0, Ending.RESIGNED)
    playing = add_game(store, [bob, ann], created=START + timedelta(hours=1))
    profile = client.get("/api/players/Ann").json()
    assert profile["username"] == "Ann" and profile["created"].startswith(str(START.year))
    assert list(profile["ratings"]) == ["base.realtime"]
    rating = profile["ratings"]["base.realtime"]
    assert rating["rating"] > 1500 and rating["rd"] < 500 and rating["provisional"]
    assert (rating["games"], rating["wins"], rating["losses"], rating["draws"]) == (1, 1, 0, 0)
    assert rating["volatility"] == pytest.approx(0.06, abs=1e-3)
    assert rating["history"] == [{"time": START.isoformat(), "rating": rating["rating"], "rd": rating["rd"],
                                  "game": won}]
    assert profile["games"] == {"played": 1, "won": 1, "lost": 0, "drawn": 0}
    assert [t["id"] for t in profile["current"]] == [playing]
    assert [t["id"] for t in profile["recent"]] == [won]
    bob_profile = client.get("/api/players/bob").json()
    assert bob_profile["ratings"]["base.realtime"]["rating"] < 1500
    assert bob_profile["games"] == {"played": 1, "won": 0, "lost": 1, "drawn": 0}


def test_a_profile_shows_tables_only(client: TestClient) -> None:
    """A game in a profile is what the lobby shows of it: no state, seed or token (R10)."""
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    add_game(store, [ann, bob], tokens=("secret-one" * 4, "secret-two" * 4), seed=987_654_321)
    text = client.get("/api/players/Ann").text
    profile = client.get("/api/players/Ann").json()
    assert set(profile["current"][0]) == set(Table.model_fields)
    assert "secret" not in text and "987654321" not in text and "token" not in text


def test_counts_take_every_finished_game_but_aborted_ones(client: TestClient) -> None:
    """Casual games count as played (not in a rating); aborted and abandoned ones do not count."""
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    finish(store, add_game(store, [ann, bob], rated=False), 1)
    finish(store, add_game(store, [ann, None], control=None), None)
    finish(store, add_game(store, [ann, bob]), None, Ending.ABORTED)
    finish(store, add_game(store, [bob, ann], rated=False, control=None), None, Ending.ABANDONED)
    profile = client.get("/api/players/ann").json()
    assert profile["ratings"] == {}
    assert profile["games"] == {"played": 2, "won": 0, "lost": 1, "drawn": 1}
    assert len(profile["recent"]) == 4


def test_recent_games_come_newest_ended_first(client: TestClient) -> None:
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    games = [add_game(store, [ann, bob], created=START + timedelta(minutes=n)) for n in range(3)]
    for number, game in enumerate(reversed(games)):
        finish(store, game, 0, at=START + timedelta(hours=1, minutes=number))
    assert [t["id"] for t in client.get("/api/players/Ann").json()["recent"]] == games


def test_a_rating_history_per_pool(client: TestClient) -> None:
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    play_series(store, ann, bob, 3)
    finish(store, add_game(store, [ann, bob], variant="tactics"), 1, at=START + 3 * SERIES_EVERY)
    ratings = client.get("/api/players/Ann").json()["ratings"]
    assert list(ratings) == ["base.realtime", "tactics.realtime"]
    history = ratings["base.realtime"]["history"]
    assert [point["rating"] for point in history] == sorted(point["rating"] for point in history)
    assert len(history) == 3 and history[-1]["rating"] == ratings["base.realtime"]["rating"]
    assert ratings["tactics.realtime"]["losses"] == 1


def test_unknown_and_deleted_players_are_not_found(client: TestClient) -> None:
    store = store_of(client)
    (ann,) = sign_up(store, "Ann")
    for name in ("nobody", "x" * 300, "Ann%00"):
        response = client.get(f"/api/players/{name}")
        assert response.status_code == 404 and "there is no player called" in response.json()["error"]
    assert client.get("/player/nobody").status_code == 404
    delete(store, ann)
    assert client.get("/api/players/Ann").status_code == 404
    page = client.get("/player/Ann")
    assert page.status_code == 404 and "No such player" in page.text


def test_the_pages_are_served(client: TestClient) -> None:
    sign_up(store_of(client), "Ann")
    for path in ("/player/Ann", "/player/ann", "/leaderboard"):
        page = client.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "<script>" not in page.text and "style=" not in page.text


# ---------------------------------------------------------------------- the leaderboard


def test_the_leaderboard_lists_established_active_live_players(client: TestClient) -> None:
    store = store_of(client)
    top, second, new, idle, gone, other_pool = sign_up(store, "Top", "Second", "New", "Idle", "Gone", "Else")
    set_rating(store, top, 1900.0)
    set_rating(store, second, 1700.0, rd=109.0)
    set_rating(store, new, 2100.0, rd=110.0)
    set_rating(store, idle, 2000.0, played=START - timedelta(days=40))
    set_rating(store, gone, 1950.0)
    delete(store, gone)
    set_rating(store, other_pool, 2200.0, pool="tactics.realtime")
    found = board(client)
    assert found["pool"] == "base.realtime" and found["you"] is None
    assert found["players"] == [
        {"rank": 1, "username": "Top", "rating": 1900, "rd": 61, "games": 30, "provisional": False},
        {"rank": 2, "username": "Second", "rating": 1700, "rd": 109, "games": 30, "provisional": False},
    ]
    assert [p["username"] for p in board(client, "tactics.realtime")["players"]] == ["Else"]
    assert board(client, "expert.turnbased")["players"] == []


def test_the_leaderboard_is_bounded_and_says_your_rank(client: TestClient) -> None:
    store = store_of(client)
    names = [f"Player{n}" for n in range(1, 6)]
    ids = sign_up(store, *names)
    for number, account in enumerate(ids):
        set_rating(store, account, 2000.0 - 10 * number)
    assert [p["rank"] for p in board(client)["players"]] == [1, 2, 3]
    log_in(client, ids[4])
    you = board(client)["you"]
    assert you == {"rank": 5, "username": "Player5", "rating": 1960, "rd": 61, "games": 30,
                   "provisional": False}
    (fresh,) = sign_up(store, "Fresh")
    log_in(client, fresh)
    assert board(client)["you"] == {"rank": None, "username": "Fresh", "rating": 1500, "rd": 500, "games": 0,
                                    "provisional": True}


def test_a_provisional_or_idle_viewer_has_a_rating_but_no_rank(client: TestClient) -> None:
    store = store_of(client)
    unsure, idle = sign_up(store, "Unsure", "Idle")
    set_rating(store, unsure, 1600.0, rd=200.0, games=3)
    set_rating(store, idle, 1800.0, played=START - timedelta(days=31))
    log_in(client, unsure)
    assert board(client)["you"] | {"rating": 0} == {"rank": None, "username": "Unsure", "rating": 0,
                                                   "rd": 200, "games": 3, "provisional": True}
    log_in(client, idle)
    assert board(client)["you"]["rank"] is None and board(client)["you"]["rating"] == 1800


def test_rated_games_bring_a_player_onto_the_leaderboard(client: TestClient) -> None:
    """Enough games to be established (RD under 110): both appear, the winner first."""
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    play_series(store, ann, bob, 12, lose_every=3)
    assert board(client)["players"] == []
    play_series(store, ann, bob, 12, lose_every=3, at=START + 12 * SERIES_EVERY)
    players = board(client)["players"]
    assert [p["username"] for p in players] == ["Ann", "Bob"]
    assert players[0]["rating"] > 1500 > players[1]["rating"] and players[0]["games"] == 24


def test_an_unknown_pool_is_refused(client: TestClient) -> None:
    response = client.get("/api/leaderboard", params={"pool": "chess.bullet"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert "chess.bullet" in error and all(pool in error for pool in POOLS)
