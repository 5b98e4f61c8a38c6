"""Browser tests of accessibility (issue 29, "a board every player can use"): axe-core
(``axe-playwright-python``) finds no serious or critical violation on any page (the lobby, a game,
a replay, the rules, the account page, the analysis board, the leaderboard, a player's profile,
the moderators' page, the password reset page, the tournaments, an upcoming arena's page and a
finished Swiss's with its standings; the lobby, the account page, the moderators' page and the
tournaments' form also as a signed-in moderator sees them, and an event's page as its creator sees
it, with its Cancel confirmation open) in the light and the dark theme (the system's, then the
switch's) and in a phone's viewport (the game page also in its screen-reader mode); the theme switch
is kept and drawn from the first frame; the hand is a listbox and the board a grid; under
``prefers-reduced-motion`` nothing moves."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from browser_helpers import DESKTOP, Browser, LiveServer, create_table, finished_friend_game
from helpers_ratings import PASSWORD, SERIES_EVERY, play_series, sign_up

from schotten.web.core.settings import WebSettings
from schotten.web.players import ratings
from schotten.web.storage.db import TournamentGameRow, TournamentPlayerRow, TournamentRow
from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

PHONE = {"width": 375, "height": 667}
MODERATORS = itertools.count(1)
BLOCKING = ("serious", "critical")
FETCH = """async ([path, body]) => {
  const answer = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify(body)});
  return answer.status;
}"""
READY = {
    "/": "#create",
    "/rules": "main",
    "/account": "main",
    "/analysis": "main",
    "/leaderboard": "main",
    "/player/ann": "#username",
    "/moderation": "main",
    "/tournaments": "#upcoming li",
    "/reset": "body[data-ready]",
    "/reset?link=1": "body[data-ready]",
}


@pytest.fixture(scope="module")
def server(sync_api: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the module, with two rated players (Ann and Bob), a finished game, an upcoming
    arena and a finished Swiss (``TOURNAMENTS``)."""
    where = tmp_path_factory.mktemp("a11y")
    with LiveServer(where / "games.db", where / "server.log", seed=2929) as live:
        store = Store(f"sqlite:///{live.database}")
        store.on_finished = ratings.rate_finished
        ann, bob = sign_up(store, "Ann", "Bob")
        play_series(store, ann, bob, 3, lose_every=3, at=datetime.now(UTC) - 3 * SERIES_EVERY)
        TOURNAMENTS.extend(tournaments(store, ann, bob))
        store.close()
        yield live


TOURNAMENTS: list[int] = []
"""The upcoming arena and the finished Swiss of the module's server."""


def tournaments(store: Store, ann: int, bob: int) -> list[int]:
    """An arena starting tomorrow that Bob joined, and a Swiss of Ann and Bob finished yesterday (Ann
    won their game): their ids."""
    now = datetime.now(UTC)
    with store.use() as session, session.begin():
        arena = TournamentRow(format="arena", name="Axe arena", variant="base", clock_initial=180,
                              clock_increment=2, clock_days=None, rated=True,
                              starts_at=now + timedelta(days=1), minutes=60, rounds=None, status="created",
                              creator_id=ann, round=0, created=now, min_rating=1000)
        swiss = TournamentRow(format="swiss", name="Axe Swiss", variant="tactics", clock_initial=None,
                              clock_increment=None, clock_days=3, rated=False,
                              starts_at=now - timedelta(days=1), minutes=None, rounds=1, status="finished",
                              creator_id=ann, round=1, created=now - timedelta(days=2))
        session.add_all([arena, swiss])
        session.flush()
        session.add(TournamentPlayerRow(tournament_id=arena.id, account_id=bob, status="waiting", score=0,
                                        joined=now, since=now))
        for player in (ann, bob):
            session.add(TournamentPlayerRow(tournament_id=swiss.id, account_id=player, status="waiting",
                                            score=0, joined=now, since=now))
        session.add(TournamentGameRow(tournament_id=swiss.id, game_id=None, round=1, account0=ann,
                                      account1=bob, winner=0, ended=now - timedelta(hours=20)))
        return [arena.id, swiss.id]


@pytest.fixture(scope="module")
def replay_id(server: LiveServer) -> str:
    """The id of a game played to its end."""
    return finished_friend_game(server.url)[0]


def blocking(page: Any) -> list[str]:
    """The serious and critical violations axe finds on ``page``, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{page.url} [{v['impact']}] {v['id']}: {v['help']} — {where(v['nodes'])}"
            for v in found if v["impact"] in BLOCKING]


def where(nodes: list[dict[str, Any]]) -> str:
    """The first few elements of a violation, and how many there are."""
    return "; ".join(str(node["target"]) for node in nodes[:3]) + f" ({len(nodes)} in all)"


def check_pages(page: Any, server: LiveServer, replay_id: str) -> list[str]:
    """Open every page on ``page`` and collect what axe finds."""
    problems: list[str] = []
    events = {f"/tournaments/{number}": "#standings tr" for number in TOURNAMENTS}
    for path, selector in (READY | events).items():
        page.goto(f"{server.url}{path}")
        page.wait_for_selector(selector)
        page.wait_for_load_state("networkidle")
        problems += blocking(page)
    page.goto(f"{server.url}/replay/{replay_id}")
    page.wait_for_selector("#board .col")
    problems += blocking(page)
    create_table(page, server.url, "Axe", "tactics")
    page.wait_for_function("() => document.querySelector('#status').dataset.mine === '1'")
    problems += blocking(page)
    page.focus("#blind-toggle")
    page.keyboard.press("Enter")
    page.wait_for_selector("#blind-table h3")
    problems += blocking(page)
    page.click("#blind-toggle")
    return problems + as_moderator(page, server)


def as_moderator(page: Any, server: LiveServer) -> list[str]:
    """Sign up on ``page``, report Ann, become a moderator, and check the queue, the account page
    and the lobby as they are shown to a signed-in moderator."""
    name = f"moderator{next(MODERATORS)}"
    assert page.evaluate(FETCH, ["/api/accounts", {"username": name, "password": PASSWORD}]) == 201
    report = {"player": "Ann", "reason": "other", "text": "a test"}
    assert page.evaluate(FETCH, ["/api/reports", report]) == 201
    granted = subprocess.run([sys.executable, "-m", "schotten", "moderators", "add", name, "--database",
                              f"sqlite:///{server.database}"], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    problems: list[str] = []
    for path, selector in (("/moderation", "article.report"), ("/account", "main"), ("/", "#create"),
                           ("/tournaments", "#create-box:not([hidden])")):
        page.goto(f"{server.url}{path}")
        page.wait_for_selector(selector)
        page.wait_for_load_state("networkidle")
        problems += blocking(page)
    return problems + as_creator(page)


def as_creator(page: Any) -> list[str]:
    """On the tournaments' page of a signed-in player, create a Swiss with days per move starting at a
    chosen time, and check its page (with Cancel) and its Cancel confirmation."""
    page.select_option("#t-format", "swiss")
    page.select_option("#t-clock", "custom-days")
    page.check("#create input[name=t-start][value=at]")
    page.fill("#t-name", "Axe cup")
    problems = blocking(page)
    page.click("#create button[type=submit]")
    page.wait_for_selector("#t-cancel:not([hidden])")
    page.wait_for_load_state("networkidle")
    problems += blocking(page)
    page.click("#t-cancel")
    page.wait_for_selector("#confirm-cancel[open]")
    problems += blocking(page)
    page.keyboard.press("Escape")
    return problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_axe_finds_nothing_serious_on_any_page(pages: Browser, server: LiveServer, replay_id: str,
                                               scheme: str, viewport: dict[str, int]) -> None:
    page = pages.page(viewport=viewport, color_scheme=scheme)
    problems = check_pages(page, server, replay_id)
    assert not problems, "\n".join(problems)


def test_nothing_moves_under_reduced_motion(pages: Browser, server: LiveServer) -> None:
    page = pages.page(reduced_motion="reduce")
    create_table(page, server.url, "Still", "base")
    page.wait_for_function("() => document.querySelector('#status').dataset.mine === '1'")
    moving = page.evaluate("""() => [...document.querySelectorAll('*')].filter((n) => {
      const style = getComputedStyle(n);
      return style.animationName !== 'none' || !['0s', ''].includes(style.transitionDuration);
    }).map((n) => n.className).slice(0, 5)""")
    assert moving == []
    page.emulate_media(reduced_motion="no-preference")
    duration = "() => getComputedStyle(document.querySelector('#hand .card')).transitionDuration"
    assert page.evaluate(duration) != "0s"


ROLES = """() => ({
  cells: document.querySelectorAll('.board-grid[role=grid] > #board[role=row] > .col[role=gridcell]').length,
  listbox: document.querySelector('#hand').getAttribute('role'),
  options: document.querySelectorAll('#hand > .card[role=option]').length,
  cards: document.querySelectorAll('#hand .card').length,
  selected: [...document.querySelectorAll('#hand [aria-selected=true]')].map((n) => n.dataset.card),
})"""
WHERE = """() => {
  const node = document.activeElement;
  if (!node || node === document.body) return 'body';
  const area = node.closest('#hand, #board');
  return area ? area.id : node.id || node.tagName;
}"""
STONE = "() => document.activeElement.dataset.stone"


def tab_stops(page: Any, start: str, most: int = 120) -> list[str]:
    """Where each Tab press puts the focus, from ``start`` until the focus comes back to it."""
    page.focus(start)
    first = page.evaluate(WHERE)
    stops: list[str] = []
    for _ in range(most):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(WHERE))
        if stops[-1] in (first, "body"):
            return stops
    raise AssertionError(f"Tab never came back to {start}: {stops}")


def test_the_hand_is_a_listbox_and_the_board_a_grid_each_one_tab_stop(pages: Browser,
                                                                      server: LiveServer) -> None:
    """The hand is a listbox of options (the chosen card selected), the board a grid of one row with a
    cell per stone; Tab enters each once; the arrow keys, Home and End move inside without wrapping;
    axe still finds nothing serious once a card is chosen."""
    page = pages.page()
    create_table(page, server.url, "Keys", "base")
    page.wait_for_function("() => document.querySelector('#status').dataset.mine === '1'")
    roles = page.evaluate(ROLES)
    assert roles == {**roles, "cells": 9, "listbox": "listbox", "options": roles["cards"], "selected": []}
    page.focus("#hand .card[tabindex='0']")
    page.keyboard.press("ArrowLeft")
    first = page.evaluate("() => document.activeElement.dataset.card")
    page.keyboard.press("End")
    last = page.evaluate("() => document.activeElement.dataset.card")
    assert last != first and page.evaluate("() => document.activeElement.matches('#hand .card:last-child')")
    page.keyboard.press("Enter")
    page.wait_for_selector("#board .col.target")
    assert page.evaluate(ROLES)["selected"] == [last]
    stops = tab_stops(page, "#blind-toggle")
    assert stops.count("hand") == 1 and stops.count("board") == 1, stops
    page.keyboard.press("4")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(STONE) == "4"
    page.keyboard.press("End")
    assert page.evaluate(STONE) == "9"
    page.keyboard.press("ArrowRight")
    assert page.evaluate(STONE) == "9"
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(STONE) == "1"
    problems = blocking(page)
    assert not problems, "\n".join(problems)


FIRST_FRAME = """requestAnimationFrame(() => {
  window.firstFrameTheme = document.documentElement.dataset.theme || null;
});"""
THEME = "() => document.documentElement.dataset.theme"
BACKGROUND = "() => getComputedStyle(document.documentElement).backgroundColor"


def test_every_page_sets_its_theme_before_it_is_drawn() -> None:
    """Each page runs theme-boot.js as a classic script in its head, before any stylesheet, and has the
    switch with its three choices in the top bar."""
    pages = sorted(WebSettings().static_dir.glob("*.html"))
    assert len(pages) >= 12
    for page in pages:
        html = page.read_text()
        head = html.split("</head>", 1)[0]
        boot = head.find('<script src="/static/js/theme-boot.js"></script>')
        assert 0 <= boot < head.find('rel="stylesheet"'), page.name
        assert '<script type="module" src="/static/js/theme.js"></script>' in head, page.name
        topbar = html.split('<header class="topbar">', 1)[1].split("</header>", 1)[0]
        choices = re.findall(r'<option value="(\w+)"', topbar.split('id="theme"', 1)[1])
        assert choices == ["system", "light", "dark"], page.name


def test_the_theme_switch_is_kept_and_drawn_from_the_first_frame(pages: Browser, server: LiveServer) -> None:
    """System dark: dark. Light chosen: light at once, on a reload from the first frame, on another
    page; System again follows the system as it changes; Dark chosen over a light system: axe finds
    nothing serious on the lobby."""
    page = pages.page(color_scheme="dark")
    page.add_init_script(FIRST_FRAME)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#create")
    assert page.evaluate(THEME) == "dark"
    dark = page.evaluate(BACKGROUND)
    page.select_option("#theme", "light")
    assert page.evaluate(THEME) == "light" and page.evaluate(BACKGROUND) != dark
    page.reload()
    page.wait_for_function("() => window.firstFrameTheme !== undefined")
    assert page.evaluate("() => window.firstFrameTheme") == "light"
    page.goto(f"{server.url}/rules")
    page.wait_for_selector("main")
    assert page.evaluate(THEME) == "light" and page.input_value("#theme") == "light"
    page.select_option("#theme", "system")
    assert page.evaluate(THEME) == "dark"
    page.emulate_media(color_scheme="light")
    page.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
    page.select_option("#theme", "dark")
    page.goto(f"{server.url}/")
    page.wait_for_selector("#create")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("() => window.firstFrameTheme") == "dark"
    problems = blocking(page)
    assert not problems, "\n".join(problems)
