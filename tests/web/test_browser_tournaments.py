"""Tournaments in the browser: two players join an arena on its page, the director pairs them, the
tournament's socket tells their pages (the tab title and sound say so) and they go to the table, one
resigns, and the standings show 2 - 0 (issue 28)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer

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
