"""Browser tests of the profile page (``/player/{name}``: ratings, their chart, counts, games with
links) and the leaderboard page (``/leaderboard``: a pool's players, the pool selector, your rank).
The games are written straight into the live server's SQLite file (``helpers_ratings``); Playwright's
sync API drives Debian's Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from helpers_ratings import SERIES_EVERY, add_game, finish, play_series, sign_up

from schotten.web.core.vocab import Ending
from schotten.web.players import ratings
from schotten.web.players.accounts import Accounts
from schotten.web.storage.db import RatingRow, TournamentGameRow, TournamentPlayerRow, TournamentRow
from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=77) as live:
        yield live


@pytest.fixture
def store(server: LiveServer) -> Iterator[Store]:
    """A store on the live server's database file (the server made its tables) that rates the games it
    ends, as the server's does."""
    opened = Store(f"sqlite:///{server.database}")
    opened.on_finished = ratings.rate_finished
    yield opened
    opened.close()


def test_the_profile_shows_ratings_a_chart_counts_and_games(pages: Browser, server: LiveServer,
                                                            store: Store) -> None:
    ann, bob = sign_up(store, "Ann", "Bob")
    now = datetime.now(UTC) - 3 * SERIES_EVERY
    play_series(store, ann, bob, 3, lose_every=3, at=now)
    finish(store, add_game(store, [ann, bob], variant="tactics"), 0, Ending.RESIGNED,
           at=datetime.now(UTC) - timedelta(minutes=1))
    playing = add_game(store, [bob, ann], created=now)
    page = pages.page()
    page.goto(f"{server.url}/player/ann")
    page.wait_for_selector(".rating-pool")
    assert page.inner_text("#username") == "Ann"
    assert page.inner_text("#counts") == "4 games played · won 3, lost 1, drawn 0"
    base = page.locator('.rating-pool[data-pool="base.realtime"]')
    api = page.evaluate("async () => (await (await fetch('/api/players/Ann')).json()).ratings")
    assert base.locator(".value").inner_text() == f"{api['base.realtime']['rating']}?"
    assert base.locator("h3").inner_text() == "Base game, real-time"
    assert "3 rated: 2 won, 1 lost, 0 drawn" in base.locator(".details").inner_text()
    assert base.locator("svg.rating-chart polyline").count() == 1
    assert base.locator("svg.rating-chart circle").count() == 3
    points = base.locator("svg.rating-chart polyline").get_attribute("points")
    assert points is not None and len(points.split()) == 4
    assert page.locator('.rating-pool[data-pool="tactics.realtime"] svg circle').count() == 1
    assert page.locator("#current-games a.btn").get_attribute("href") == f"/game/{playing}"
    recent = page.locator("#recent-games a.btn")
    assert recent.count() == 4 and all((recent.nth(i).get_attribute("href") or "").startswith("/replay/")
                                       for i in range(4))


def test_the_profile_in_catalan_and_of_a_stranger(pages: Browser, server: LiveServer, store: Store) -> None:
    sign_up(store, "Quiet")
    page = pages.page(locale="ca-ES")
    page.goto(f"{server.url}/player/Quiet")
    page.wait_for_function("() => document.documentElement.lang === 'ca'")
    page.wait_for_selector("#ratings p")
    assert page.inner_text("#ratings") == "Encara cap partida puntuada."
    assert page.inner_text("#counts").startswith("0 partides jugades")
    missing = page.goto(f"{server.url}/player/Nobody")
    assert missing is not None and missing.status == 404


def _rate(store: Store, account: int, rating: float, rd: float = 60.0, pool: str = "base.realtime") -> None:
    with store.use() as session, session.begin():
        session.add(RatingRow(account_id=account, pool=pool, rating=rating, rd=rd, volatility=0.06, games=40,
                              wins=20, losses=20, draws=0, played=datetime.now(UTC)))


def test_the_leaderboard_page_with_its_pools_and_your_rank(pages: Browser, server: LiveServer,
                                                           store: Store) -> None:
    top, you, unsure = sign_up(store, "Top", "You", "Unsure")
    _rate(store, top, 2010.0)
    _rate(store, you, 1890.0)
    _rate(store, unsure, 2300.0, rd=200.0)
    _rate(store, top, 1600.0, pool="tactics.turnbased")
    page = pages.page()
    page.context.add_cookies([{"name": "session", "value": Accounts(store, 3600.0).new_session(you),
                               "url": server.url}])
    page.goto(f"{server.url}/leaderboard")
    page.wait_for_selector("#players tr")
    rows = page.locator("#players tr")
    assert [rows.nth(i).inner_text().split("\t") for i in range(rows.count())] == [
        ["1", "Top", "2010", "60", "40"], ["2", "You", "1890", "60", "40"]]
    assert page.inner_text("#you") == "Your rank: 2 (rating 1890)"
    assert page.locator("#players a").first.get_attribute("href") == "/player/Top"
    page.select_option("#pool", "tactics.turnbased")
    page.wait_for_function("() => document.querySelectorAll('#players tr').length === 1")
    assert page.url.endswith("/leaderboard?pool=tactics.turnbased")
    assert "1500?" in page.inner_text("#you")
    page.select_option("#pool", "expert.realtime")
    page.wait_for_selector("#empty:not([hidden])")
    guest = pages.page()
    guest.goto(f"{server.url}/")
    guest.click("text=Leaderboard")
    guest.wait_for_selector("#players tr")
    assert guest.inner_text("#you") == "Log in and play rated games to get a rank."


@pytest.mark.parametrize("path", ["/player/Ann", "/leaderboard"])
def test_the_pages_fit_a_phone(pages: Browser, server: LiveServer, store: Store, path: str) -> None:
    """On a 320-pixel screen the profile (its charts) and the leaderboard need no sideways scrolling."""
    ann, bob = sign_up(store, "Ann", "Bob")
    play_series(store, ann, bob, 2, at=datetime.now(UTC))
    _rate(store, bob, 1700.0, pool="base.turnbased")
    page = pages.page(viewport={"width": 320, "height": 700}, locale="pt-BR")
    page.goto(f"{server.url}{path}")
    page.wait_for_function("() => document.documentElement.lang === 'pt'")
    page.wait_for_selector(".rating-pool, #you:not(:empty)")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 320, f"{path} is {width}px wide"


def test_a_game_not_rated_says_why_on_the_profile_and_the_replay(pages: Browser, server: LiveServer,
                                                               store: Store) -> None:
    """A rated game Bob resigned after one decision each (issue 26): the profile's row and the replay's
    last step say it was not rated and why, in the reader's language."""
    ann, bob = sign_up(store, "Ann", "Bob")
    game = add_game(store, [ann, bob], decided=1)
    finish(store, game, 0, Ending.RESIGNED, at=datetime.now(UTC))
    page = pages.page()
    page.goto(f"{server.url}/player/Ann")
    page.wait_for_selector("#recent-games .unrated")
    assert page.inner_text("#recent-games .unrated") == "Not rated: a player made fewer than 3 decisions."
    page = pages.page(locale="pt-BR")
    page.goto(f"{server.url}/replay/{game}")
    page.wait_for_selector("#step[data-index='0']")
    assert "ranqueada" not in page.inner_text("#outcome")
    page.click("#last")
    assert page.inner_text("#outcome").endswith("Não ranqueada: um jogador tomou menos de 3 decisões.")


def test_the_profile_shows_the_tournaments_played_and_the_podiums(pages: Browser, server: LiveServer,
                                                                  store: Store) -> None:
    """A finished Swiss of four written into the database (Ann and Cid win their games, level first;
    Bob and Dee third): Ann's profile shows its gold medal and "1 of 4", Bob's its bronze."""
    ann, bob, cid, dee = sign_up(store, "Ann", "Bob", "Cid", "Dee")
    now = datetime.now(UTC) - timedelta(days=1)
    with store.use() as session, session.begin():
        event = TournamentRow(format="swiss", name="Autumn Swiss", variant="base", clock_initial=600,
                              clock_increment=5, clock_days=None, rated=False, starts_at=now, minutes=None,
                              rounds=1, status="finished", creator_id=ann, round=1, created=now)
        session.add(event)
        session.flush()
        for player in (ann, bob, cid, dee):
            session.add(TournamentPlayerRow(tournament_id=event.id, account_id=player, status="waiting",
                                            score=0, joined=now, since=now))
        for first, second in ((ann, bob), (cid, dee)):
            session.add(TournamentGameRow(tournament_id=event.id, game_id=None, round=1, account0=first,
                                          account1=second, winner=0, ended=now))
    page = pages.page()
    page.goto(f"{server.url}/player/ann")
    page.wait_for_selector("#tournaments-played li[data-tournament]")
    assert "Autumn Swiss" in page.inner_text("#tournaments-played")
    assert "1 of 4" in page.inner_text("#tournaments-played")
    assert page.inner_text("#podiums").startswith("🥇") and "Autumn Swiss" in page.inner_text("#podiums")
    page.goto(f"{server.url}/player/bob")
    page.wait_for_selector("#podiums-box:not([hidden])")
    assert page.inner_text("#podiums").startswith("🥉")
    assert "3 of 4" in page.inner_text("#tournaments-played")
