"""Browser test of challenges by name: Ann challenges Bob from his profile; Bob, on another page of his
own browser, sees the challenge appear without a reload, accepts it, and both land at the new table,
each seated (not a spectator). Playwright's sync API drives Debian's Chromium against a live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from helpers_ratings import sign_up
from test_browser_community import log_in

from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

SEATED = ("() => document.querySelector('#status[data-version]') !== null"
          " && !document.body.classList.contains('spectator')")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for the test."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=78) as live:
        yield live


@pytest.fixture
def store(server: LiveServer) -> Iterator[Store]:
    """A store on the live server's database file (the server made its tables)."""
    opened = Store(f"sqlite:///{server.database}")
    yield opened
    opened.close()


def signed_in(pages: Browser, server: LiveServer, name: str, path: str) -> Any:
    """A page of its own browser, logged in as ``name``, open at ``path`` with its account bar drawn."""
    page = pages.page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#account-bar[data-ready='1']")
    log_in(page, name)
    page.goto(f"{server.url}{path}")
    page.wait_for_selector(f"#account-bar[data-user='{name}']")
    return page


def test_a_challenge_from_a_profile_is_accepted_and_both_land_at_the_table(pages: Browser, server: LiveServer,
                                                                          store: Store) -> None:
    sign_up(store, "Ann", "Bob")
    bob = signed_in(pages, server, "Bob", "/leaderboard")
    ann = signed_in(pages, server, "Ann", "/player/Bob")
    ann.wait_for_selector("#relations[data-ready='1']")
    assert ann.inner_text("#challenge") == "Challenge"
    ann.click("#challenge")
    ann.select_option("#challenge-clock", "3+2")
    ann.check("#challenge-rated")
    ann.click("#challenge-send")
    ann.wait_for_function("() => document.querySelector('#message').textContent"
                          ".includes('Challenge sent to Bob')")
    bob.wait_for_selector(".challenge")
    shown = bob.inner_text(".challenge")
    assert "Ann challenges you" in shown and "3+2" in shown and "rated" in shown
    assert bob.url.endswith("/leaderboard")
    bob.click(".challenge-accept")
    bob.wait_for_url("**/game/*")
    ann.wait_for_url("**/game/*")
    assert ann.url == bob.url
    for page in (ann, bob):
        page.wait_for_function(SEATED)
    listed = ann.evaluate("async () => (await (await fetch('/api/challenges')).json()).outgoing")
    assert [c["state"] for c in listed] == ["accepted"] and ann.url.endswith(listed[0]["url"])
    assert not pages.errors


def test_a_declined_challenge_tells_the_challenger_why(pages: Browser, server: LiveServer,
                                                       store: Store) -> None:
    sign_up(store, "Ann", "Bob")
    bob = signed_in(pages, server, "Bob", "/")
    ann = signed_in(pages, server, "Ann", "/player/Bob")
    ann.wait_for_selector("#relations[data-ready='1']")
    ann.click("#challenge")
    ann.click("#challenge-send")
    bob.wait_for_selector(".challenge")
    bob.select_option(".challenge select", "too_fast")
    bob.click(".challenge-decline")
    bob.wait_for_function("() => document.querySelector('.challenge') === null")
    ann.wait_for_function("() => document.querySelector('#message').textContent.includes('Bob declined')")
    assert "too fast" in ann.inner_text("#message")
    assert not pages.errors
