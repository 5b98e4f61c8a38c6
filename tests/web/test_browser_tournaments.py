"""Tournaments in the browser: two players join an arena on its page, the director pairs them, the
tournament's socket tells their pages (the tab title and sound say so) and they go to the table, one
resigns, and the standings show 2 - 0; the creator cancels an event from its page; the create form
makes a Swiss with days per move, a minimum rating and a start at a local time (a refusal shows the
API's sentence); a Swiss's standings show its tiebreaks (issue 28)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from helpers_ratings import sign_up

from schotten.web.storage.db import TournamentGameRow, TournamentPlayerRow, TournamentRow
from schotten.web.storage.store import Store

PASSWORD = "correct horse battery"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own (its director looks every second)."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2828) as live:
        yield live


def signed_up(page: Any, url: str, username: str) -> None:
    """Sign ``username`` up from the page (the session cookie lands in its context)."""
    page.goto(f"{url}/tournaments")
    status = page.evaluate(
        "([name, password]) => fetch('/api/accounts', {method: 'POST', headers: {'Content-Type': "
        "'application/json'}, body: JSON.stringify({username: name, password})}).then((r) => r.status)",
        [username, PASSWORD])
    assert status in (200, 201), status


def test_two_players_join_an_arena_are_paired_and_the_winner_scores_2(pages: Browser,
                                                                       server: LiveServer) -> None:
    ann, bob = pages.page(), pages.page()
    signed_up(ann, server.url, "Ann")
    signed_up(bob, server.url, "Bob")
    ann.goto(f"{server.url}/tournaments")
    ann.wait_for_selector("#create-box:not([hidden])")
    ann.fill("#t-name", "Evening arena")
    ann.fill("#t-starts", "0")
    ann.click("#create button[type=submit]")
    ann.wait_for_url("**/tournaments/*")
    page_url = ann.url
    ann.evaluate("() => window.localStorage.setItem('schotten.sound', '1')")
    for page in (ann, bob):
        page.goto(page_url)
        page.wait_for_selector("#t-join:not([hidden])")
        page.wait_for_function("() => window.schottenTournament && window.schottenTournament.socket")
        page.click("#t-join")
    ann.wait_for_function("() => document.title.startsWith('Paired!')", timeout=10_000)
    assert "turn" in ann.evaluate("() => window.schottenTournament.signals.sounds")
    for page in (ann, bob):
        page.wait_for_url("**/game/**", timeout=15_000)  # the fallback poll is every 30 s: the socket told
        page.wait_for_selector("#status[data-version]")
    assert ann.url == bob.url
    bob.wait_for_selector("#resign:not([hidden])")
    bob.click("#resign")
    bob.click("#confirm-end-yes")
    ann.goto(page_url)
    scores = "[...document.querySelectorAll('#standings .score')].map((c) => c.textContent).join(' - ')"
    ann.wait_for_function(f"() => {scores} === '2 - 0'")
    rows = ann.locator("#standings tr")
    assert rows.nth(0).get_attribute("data-player") == "Ann"
    assert "1-0" in ann.inner_text("#games") or "0-1" in ann.inner_text("#games")
    ann.goto(f"{server.url}/player/Ann")
    ann.wait_for_selector("#tournaments-played li[data-tournament]")
    played = ann.inner_text("#tournaments-played")
    assert "Evening arena" in played and "1 of 2" in played
    assert ann.locator("#podiums-box").is_hidden(), "a running arena is no podium yet"


VIEW = "async () => (await fetch('/api/tournaments/' + location.pathname.split('/').pop())).json()"


def create_on_form(page: Any, url: str, name: str, **fields: str) -> None:
    """Open /tournaments and fill the create form's ``name`` and ``fields`` (element id without its
    ``t-`` prefix: a value; ``format`` and ``clock`` are chosen in their lists); not submitted."""
    page.goto(f"{url}/tournaments")
    page.wait_for_selector("#create-box:not([hidden])")
    page.fill("#t-name", name)
    for field, value in fields.items():
        if field in ("format", "clock"):
            page.select_option(f"#t-{field}", value)
        else:
            page.fill(f"#t-{field}", value)


def test_the_creator_cancels_an_event_from_its_page_after_a_confirmation(pages: Browser,
                                                                         server: LiveServer) -> None:
    ann, bob = pages.page(), pages.page()
    signed_up(ann, server.url, "Ann")
    signed_up(bob, server.url, "Bob")
    create_on_form(ann, server.url, "Cancelled cup", starts="60")
    ann.click("#create button[type=submit]")
    ann.wait_for_url("**/tournaments/*")
    bob.goto(ann.url)
    bob.wait_for_selector("#t-join:not([hidden])")
    assert bob.locator("#t-cancel").is_hidden(), "only the creator may cancel"
    ann.wait_for_selector("#t-cancel:not([hidden])")
    ann.click("#t-cancel")
    ann.wait_for_selector("#confirm-cancel[open]")
    ann.click("#confirm-cancel-no")
    assert ann.evaluate(VIEW)["status"] == "created" and ann.locator("#t-cancel").is_visible()
    ann.click("#t-cancel")
    ann.click("#confirm-cancel-yes")
    ann.wait_for_function("() => document.querySelector('#t-status').textContent === 'Cancelled'")
    assert ann.evaluate(VIEW)["status"] == "cancelled"
    assert ann.locator("#t-cancel").is_hidden() and ann.locator("#t-join").is_hidden()
    bob.reload()
    bob.wait_for_function("() => document.querySelector('#t-status').textContent === 'Cancelled'")
    assert bob.locator("#t-join").is_hidden()


def test_the_form_makes_a_swiss_with_days_per_move_a_minimum_rating_and_a_local_start(
        pages: Browser, server: LiveServer) -> None:
    """Days per move are offered for a Swiss only; a refusal (30 rounds) shows the API's sentence and
    leaves the form; the Swiss made has the clock, rounds and minimum rating chosen, and starts at the
    local time chosen (São Paulo's, sent with its offset); its page says so."""
    ann = pages.page(timezone_id="America/Sao_Paulo")
    signed_up(ann, server.url, "Ann")
    local = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT18:30")
    create_on_form(ann, server.url, "Slow Swiss")
    assert ann.locator("#t-clock option[value='3d']").is_disabled()
    ann.select_option("#t-format", "swiss")
    assert ann.locator("#t-clock option[value='3d']").is_enabled()
    ann.select_option("#t-clock", "custom-days")
    ann.fill("#t-days", "4")
    ann.fill("#t-rounds", "30")
    ann.fill("#t-min-rating", "1200")
    ann.check("#create input[name=t-start][value=at]")
    assert ann.locator("#t-starts").is_hidden()
    ann.fill("#t-starts-at", local)
    ann.click("#create button[type=submit]")
    ann.wait_for_selector("#message:not([hidden])")
    assert "rounds" in ann.inner_text("#message") and ann.url.endswith("/tournaments")
    ann.fill("#t-rounds", "3")
    ann.click("#create button[type=submit]")
    ann.wait_for_url("**/tournaments/*")
    ann.wait_for_selector("#t-title:not(:empty)")
    view = ann.evaluate(VIEW)
    assert (view["format"], view["clock"], view["rounds_total"], view["min_rating"], view["min_games"]) == (
        "swiss", {"days": 4}, 3, 1200, None)
    assert datetime.fromisoformat(view["starts_at"]) == datetime.fromisoformat(f"{local}:00-03:00")
    about = ann.inner_text("#t-about")
    assert "4 days" in about and "3 rounds" in about and "Rating 1200 or more" in about, about


def test_swiss_standings_show_buchholz_and_sonneborn_berger_columns(pages: Browser,
                                                                   server: LiveServer) -> None:
    """A finished Swiss of four over two rounds (Ann beats Bob, Cid beats Dee; Ann and Cid draw, Bob
    beats Dee), written into the database: the page's tiebreak columns are the API's, under headers
    that name them; an arena's standings have no such column."""
    store = Store(f"sqlite:///{server.database}")
    ann, bob, cid, dee = sign_up(store, "Ann", "Bob", "Cid", "Dee")
    now = datetime.now(UTC) - timedelta(days=1)
    with store.use() as session, session.begin():
        event = TournamentRow(format="swiss", name="Tiebreak Swiss", variant="base", clock_initial=600,
                              clock_increment=5, clock_days=None, rated=False, starts_at=now, minutes=None,
                              rounds=2, status="finished", creator_id=ann, round=2, created=now)
        session.add(event)
        session.flush()
        for player in (ann, bob, cid, dee):
            session.add(TournamentPlayerRow(tournament_id=event.id, account_id=player, status="waiting",
                                            score=0, joined=now, since=now))
        for number, first, second, winner in ((1, ann, bob, 0), (1, cid, dee, 0), (2, ann, cid, None),
                                              (2, bob, dee, 0)):
            session.add(TournamentGameRow(tournament_id=event.id, game_id=None, round=number, account0=first,
                                          account1=second, winner=winner, ended=now))
        swiss = event.id
        arena = TournamentRow(format="arena", name="Arena later", variant="base", clock_initial=180,
                              clock_increment=2, clock_days=None, rated=False,
                              starts_at=now + timedelta(days=2), minutes=60, rounds=None, status="created",
                              creator_id=ann, round=0, created=now)
        session.add(arena)
        session.flush()
        session.add(TournamentPlayerRow(tournament_id=arena.id, account_id=bob, status="waiting", score=0,
                                        joined=now, since=now))
        arena_id = arena.id
    store.close()
    page = pages.page()
    page.goto(f"{server.url}/tournaments/{swiss}")
    page.wait_for_selector("#standings tr")
    assert page.locator("#standings-table thead th:visible").count() == 7
    for name, short, said in (("Buchholz", "BH", "the sum of the scores of every opponent met"),
                              ("Sonneborn-Berger", "SB", "times the points taken from them")):
        header = page.get_by_role("columnheader", name=name, exact=True)
        assert header.is_visible() and header.locator("abbr").inner_text() == short
        assert said in (header.locator("abbr").get_attribute("title") or "")
    assert page.locator("#tiebreaks-legend").is_visible()
    shown = page.evaluate("""() => [...document.querySelectorAll('#standings tr')].map((row) => [
      row.dataset.player, row.querySelector('.buchholz').textContent,
      row.querySelector('.sonneborn-berger').textContent])""")
    api = [[row["player"], str(row["tiebreaks"]["buchholz"]), str(row["tiebreaks"]["sonneborn_berger"])]
           for row in page.evaluate(VIEW)["standings"]]
    assert shown == api
    assert shown[0] == ["Ann", "2.5", "1.75"], shown
    page.goto(f"{server.url}/tournaments/{arena_id}")
    page.wait_for_selector("#standings tr[data-player=Bob]")
    assert page.locator("#standings-table thead th:visible").count() == 5
    assert page.locator("#standings tr td").count() == 5 and page.locator("#tiebreaks-legend").is_hidden()
