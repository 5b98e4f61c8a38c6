"""Ratings explained (issue 26): what "provisional" means and how far a player is from the
leaderboard, as numbers the server computes (``players.ranking``) and the profile and the
leaderboard send; a profile's games name the accounts at them, so the page links the opponent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from helpers_ratings import START, add_game, finish, grown, play_series, sign_up
from helpers_web import FakeClock, app_at, test_settings
from starlette.testclient import TestClient
from test_profiles import STATIC, board, log_in, set_rating, store_of

from schotten.web.core.vocab import Ending
from schotten.web.players.glicko2 import PROVISIONAL_RD, Glicko, rate
from schotten.web.players.ranking import OPPONENT_RD, games_to_ranked, new_player_games
from schotten.web.players.ratings import DEFAULT

RULES = {"provisional_rd": 110, "days": 30.0, "size": 3}
"""The rules as the fixture's app has them (``leaderboard_days`` 30, ``leaderboard_size`` 3)."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An app whose clock stands a day after the test games (``START``), as test_profiles' does."""
    clock = FakeClock()
    clock.moment = START + timedelta(days=1)
    settings = test_settings(tmp_path, static_dir=STATIC, leaderboard_size=3, leaderboard_days=30.0)
    with app_at(settings, clock) as test_client:
        yield test_client


def played_out(rating: Glicko, games: int) -> Glicko:
    """``rating`` after ``games`` draws against an established opponent of its own rating."""
    for _ in range(games):
        rating = rate(rating, [(Glicko(rating.rating, OPPONENT_RD, rating.volatility), 0.5)])
    return rating


@pytest.mark.parametrize("rating", [DEFAULT, Glicko(1741.5, 396.7, 0.06), Glicko(1400.0, 200.0, 0.09),
                                    Glicko(1500.0, 110.0, 0.06)])
def test_games_to_ranked_is_when_the_rd_falls_under_the_threshold(rating: Glicko) -> None:
    """N more games bring the RD under 110 (Glicko-2 played out), N - 1 do not."""
    games = games_to_ranked(rating)
    assert games >= 1
    assert played_out(rating, games).rd < PROVISIONAL_RD <= played_out(rating, games - 1).rd


def test_an_established_rating_needs_no_game_and_a_newcomer_about_eleven() -> None:
    assert games_to_ranked(Glicko(1500.0, 109.9, 0.06)) == 0
    assert new_player_games() == games_to_ranked(DEFAULT) == 11


def test_the_profile_says_how_far_each_rating_is_from_ranked(client: TestClient) -> None:
    """One win: provisional, its games left counted from its RD; the rules (threshold, a newcomer's
    games, the leaderboard's days and size) come with the profile."""
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    finish(store, add_game(store, [ann, bob]), 0, Ending.RESIGNED)
    profile = client.get("/api/players/Ann").json()
    rating = profile["ratings"]["base.realtime"]
    assert rating["provisional"]
    left = games_to_ranked(Glicko(rating["rating"], rating["rd"], rating["volatility"]))
    assert rating["games_to_ranked"] == left and 1 <= left < new_player_games()
    assert profile["ranking"] == RULES | {"new_player_games": new_player_games()}


def test_the_leaderboard_says_what_it_takes_and_how_far_you_are(client: TestClient) -> None:
    """A guest: the rules, no count of their own; a newcomer: a newcomer's count; a provisional
    player: theirs; an established idle one: one rated game; a ranked one: none."""
    store = store_of(client)
    fresh, unsure, idle, ranked = sign_up(store, "Fresh", "Unsure", "Idle", "Ranked")
    set_rating(store, unsure, 1600.0, rd=200.0, games=3)
    set_rating(store, idle, 1800.0, played=START - timedelta(days=31))
    set_rating(store, ranked, 1700.0)
    guest = board(client)
    assert guest["ranking"] == RULES | {"new_player_games": 11, "games_to_ranked": None}
    unsure_now = Glicko(1600.0, grown(200.0, 0.06, 1), 0.06)
    expected = {fresh: 11, unsure: games_to_ranked(unsure_now), idle: 1, ranked: 0}
    for account, left in expected.items():
        log_in(client, account)
        found = board(client)
        assert found["ranking"]["games_to_ranked"] == left, account
    assert found["you"]["rank"] == 1


def test_the_idle_growth_of_an_rd_counts_in_the_games_left(client: TestClient) -> None:
    """A rating just under the threshold when its last game ended, read a day later (its RD grown
    past 110): provisional again, one game or more to go."""
    store = store_of(client)
    (near,) = sign_up(store, "Near")
    set_rating(store, near, 1600.0, rd=109.8)
    rating = client.get("/api/players/Near").json()["ratings"]["base.realtime"]
    assert rating["provisional"] and rating["games_to_ranked"] >= 1


def test_a_profile_s_games_name_the_accounts_at_them(client: TestClient) -> None:
    """Recent and current games carry each account seat's username (the page links them to
    /player/{name}); a guest's seat has none."""
    store = store_of(client)
    ann, bob = sign_up(store, "Ann", "Bob")
    play_series(store, ann, bob, 2)
    add_game(store, [ann, None], rated=False, created=START + timedelta(hours=1))
    profile = client.get("/api/players/Ann").json()
    assert [t["accounts"] for t in profile["recent"]] == [["Bob", "Ann"], ["Ann", "Bob"]]
    assert profile["current"][0]["accounts"] == ["Ann", None]
