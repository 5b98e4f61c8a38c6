"""Browser test of follows and blocks: a signed-in player follows another from their profile, and
the home page lists that player's game in progress with a Watch link; then blocks them. Playwright's
sync API drives Debian's Chromium against a live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from helpers_ratings import PASSWORD, add_game, sign_up

from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for the test."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=77) as live:
        yield live


@pytest.fixture
def store(server: LiveServer) -> Iterator[Store]:
    """A store on the live server's database file (the server made its tables)."""
    opened = Store(f"sqlite:///{server.database}")
    yield opened
    opened.close()


LOG_IN = ("async ([username, password]) => { await fetch('/api/session', { method: 'POST', headers: "
          "{ 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) }); }")


def log_in(page: Any, username: str) -> None:
    """Log the page's browser in as ``username`` (the session cookie set by the server's answer)."""
    page.evaluate(LOG_IN, [username, PASSWORD])


def test_follow_from_the_profile_then_watch_from_the_home_page(pages: Browser, server: LiveServer,
                                                               store: Store) -> None:
    _, bob, cid = sign_up(store, "Ann", "Bob", "Cid")
    playing = add_game(store, [bob, cid])
    page = pages.page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#account-bar[data-ready='1']")
    assert page.locator("#followed-box").is_hidden()
    log_in(page, "Ann")
    page.goto(f"{server.url}/player/bob")
    page.wait_for_selector("#relations[data-ready='1']")
    assert page.inner_text("#follow") == "Follow" and page.inner_text("#block") == "Block"
    page.click("#follow")
    page.wait_for_function("() => document.querySelector('#follow').textContent === 'Unfollow'")
    assert "You follow Bob:" in page.inner_text("#message")
    page.goto(f"{server.url}/")
    page.wait_for_selector("#followed-box[data-ready='1']")
    watch = page.locator("#followed-games a.btn")
    assert watch.count() == 1 and watch.get_attribute("href") == f"/game/{playing}"
    assert watch.inner_text() == "Watch"
    page.goto(f"{server.url}/player/Bob")
    page.wait_for_selector("#relations[data-ready='1']")
    assert page.inner_text("#follow") == "Unfollow"
    page.click("#block")
    page.wait_for_function("() => document.querySelector('#block').textContent === 'Unblock'")
    listed = page.evaluate("async () => (await (await fetch('/api/blocks')).json())"
                           ".players.map((p) => p.name)")
    assert listed == ["Bob"]


def test_no_buttons_for_a_guest_nor_on_one_s_own_profile(pages: Browser, server: LiveServer,
                                                          store: Store) -> None:
    sign_up(store, "Ann", "Bob")
    page = pages.page(locale="ca-ES")
    page.goto(f"{server.url}/player/Bob")
    page.wait_for_selector("#account-bar[data-ready='1']")
    page.wait_for_selector("#username:not(:empty)")
    assert page.locator("#relations").is_hidden()
    log_in(page, "Ann")
    page.goto(f"{server.url}/player/Ann")
    page.wait_for_selector("#username:not(:empty)")
    page.wait_for_selector("#account-bar[data-ready='1']")
    assert page.locator("#relations").is_hidden()
    page.goto(f"{server.url}/player/Bob")
    page.wait_for_selector("#relations[data-ready='1']")
    assert page.inner_text("#follow") == "Segueix" and page.inner_text("#block") == "Bloqueja"
