"""A tournament game's page leads back to its arena (issue 28): both players and a spectator see
"Tournament: NAME" linking to the tournament; when the game ends, each player's page says "Back to
the tournament in 5 s" (politely, to a screen reader) and the one who waits arrives at the
tournament page by itself, while the one who pressed "Stay here" stays on the game (offered no
rematch: the tournament pairs the next game); the spectator gets no notice. Under reduced motion the
countdown's shrinking bar is not shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer

PASSWORD = "correct horse battery"
ARENA = {"format": "arena", "name": "Evening arena", "variant": "base",
         "clock": {"initial": 600, "increment": 10}, "rated": False, "starts_in": 0, "minutes": 30}
COUNTING = "#tournament-return[data-counting='1']"
PAST_DUE = "() => Date.now() > Number(document.querySelector('#tournament-return').dataset.due) + 1500"


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own (its director looks every second)."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2829) as live:
        yield live


def post(page: Any, path: str, body: dict[str, Any] | None = None) -> Any:
    """POST ``body`` as JSON from the page (its cookies go with it, and come back); the answer's JSON."""
    answer = page.evaluate(
        "([path, body]) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, "
        "body: JSON.stringify(body)}).then(async (r) => ({status: r.status, json: await r.json()}))",
        [path, body or {}])
    assert answer["status"] in (200, 201), answer
    return answer["json"]


def test_the_player_who_waits_goes_back_to_the_arena_and_the_one_who_stays_stays(
        pages: Browser, server: LiveServer) -> None:
    ann, bob, carol = pages.page(), pages.page(reduced_motion="reduce"), pages.page()
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        page.goto(f"{server.url}/tournaments")
        post(page, "/api/accounts", {"username": name, "password": PASSWORD})
    tid = post(ann, "/api/tournaments", ARENA)["id"]
    arena = f"{server.url}/tournaments/{tid}"
    for page in (ann, bob):
        post(page, f"/api/tournaments/{tid}/join")
        page.goto(arena)
    for page in (ann, bob):
        page.wait_for_url("**/game/**", timeout=15_000)
        page.wait_for_selector("#status[data-version]")
    assert ann.url == bob.url
    carol.goto(ann.url)
    for page in (ann, bob, carol):
        link = page.wait_for_selector("#tournament-line:not([hidden]) a")
        assert link.inner_text() == "Tournament: Evening arena"
        assert link.get_attribute("href") == f"/tournaments/{tid}"
        assert "Arena ends in" in page.inner_text("#tournament-line")
    bob.wait_for_selector("#resign:not([hidden])")
    bob.click("#resign")
    bob.click("#confirm-end-yes")
    for page in (ann, bob):
        page.wait_for_selector(COUNTING)
        assert "Back to the tournament in" in page.inner_text("#tournament-return")
    assert ann.inner_text("#tournament-said") == "Back to the tournament in 5 s"
    assert ann.locator(".tournament-return-bar").is_visible()
    assert bob.locator(".tournament-return-bar").is_hidden(), "the shrinking bar is motion"
    bob.click("#stay-here")
    bob.wait_for_selector("#tournament-return[data-counting='0']")
    assert bob.inner_text("#tournament-said") == "You stay on this page."
    assert bob.evaluate("() => document.activeElement.id") == "tournament-return-link"
    ann.wait_for_url(arena, timeout=15_000)
    ann.wait_for_selector("#t-title")
    bob.wait_for_function(PAST_DUE)
    assert "/game/" in bob.url and bob.locator("#stay-here").count() == 0
    assert bob.locator("#result").is_visible() and bob.locator("#play-again").is_hidden(), "no rematch"
    assert bob.get_attribute("#tournament-return-link", "href") == f"/tournaments/{tid}"
    carol.wait_for_selector("#result:not([hidden])")
    assert carol.locator("#tournament-return").is_hidden(), "a spectator is not sent anywhere"
    assert carol.locator("#tournament-line a").is_visible()
