"""Play now in the browser: two strangers press Play now and meet at one game; waiting, cancelling,
and the game against the AI offered meanwhile (issue 15, "Play now")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, offering the AI after one second alone in a pool."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=1515,
                    env={"SCHOTTEN_POOL_AI_OFFER": "1"}) as live:
        yield live


def press_play_now(page: Any, url: str, nickname: str, preset: str = "10+10") -> None:
    """Open the lobby as a guest and press Play now (casual) with ``preset``."""
    page.goto(f"{url}/")
    page.wait_for_selector("#play-now[data-ready]")
    page.fill("#pn-nickname", nickname)
    page.check(f'input[name="pn-clock"][value="{preset}"]')
    page.click("#pn-play")


def seated(page: Any) -> str:
    """Wait for the game page with a seat of this browser's; the game's id."""
    page.wait_for_url("**/game/**")
    page.wait_for_selector("#status[data-version]")
    assert page.evaluate("document.body.classList.contains('spectator')") is False
    return str(page.url.split("/game/")[1].split("?")[0])


def test_two_guests_press_play_now_and_land_on_one_game_as_its_players(pages: Browser,
                                                                       server: LiveServer) -> None:
    """The first waits (the time waited shown), the second is paired at once: both pages go to the same
    game, each holding its own seat."""
    ann, bob = pages.page(), pages.page()
    press_play_now(ann, server.url, "Ann")
    ann.wait_for_selector("#pn-waiting:not([hidden])")
    assert "Looking for an opponent" in ann.inner_text("#pn-waited")
    press_play_now(bob, server.url, "Bob")
    game = seated(bob)
    assert seated(ann) == game
    assert ann.locator(".pname", has_text="Ann (you)").count() == 1
    assert bob.locator(".pname", has_text="Bob (you)").count() == 1


def test_a_guest_may_not_choose_rated_and_may_cancel(pages: Browser, server: LiveServer) -> None:
    """Rated is disabled with a hint for a guest; Cancel brings the form back and leaves the pool."""
    page = pages.page()
    press_play_now(page, server.url, "Ann")
    page.wait_for_selector("#pn-waiting:not([hidden])")
    page.click("#pn-cancel")
    page.wait_for_selector("#pn-form:not([hidden])")
    assert page.is_disabled("#pn-rated") and page.is_visible("#pn-rated-hint")
    answer = page.evaluate("fetch('/api/play-now').then((r) => r.json())")
    assert answer == {**answer, "status": "none"}


def test_the_ai_is_offered_meanwhile_and_the_lobby_still_finds_an_opponent(pages: Browser,
                                                                          server: LiveServer) -> None:
    """Alone past pool_ai_offer, "Play the AI while you wait" opens an AI game in a new tab; the lobby
    keeps waiting, and goes to the game when a stranger comes."""
    ann = pages.page()
    press_play_now(ann, server.url, "Ann", "3+2")
    ann.wait_for_selector("#pn-ai:not([hidden])")
    with ann.context.expect_page() as opened:
        ann.click("#pn-ai")
    ai_tab = opened.value
    seated(ai_tab)
    assert ai_tab.locator(".pname", has_text="AI").count() >= 1
    assert ann.is_visible("#pn-waiting")
    bob = pages.page()
    press_play_now(bob, server.url, "Bob", "3+2")
    game = seated(bob)
    assert seated(ann) == game


def test_pool_buttons_count_who_waits_and_a_lone_waiter_is_offered_another_pool(pages: Browser,
                                                                               server: LiveServer) -> None:
    """Bob waits in 5+5: an open lobby comes to show "1 waiting" on the 5+5 button, nothing on 3+2. Ann
    then waits alone in 3+2: her page offers 5+5 (a count, never who); she takes it and both land on
    one game."""
    visitor = pages.page()
    visitor.goto(f"{server.url}/")
    visitor.wait_for_selector("#play-now[data-ready]")
    bob = pages.page()
    press_play_now(bob, server.url, "Bob", "5+5")
    bob.wait_for_selector("#pn-waiting:not([hidden])")
    badge = 'input[name="pn-clock"][value="{}"] ~ .pn-count'
    visitor.wait_for_function("(selector) => document.querySelector(selector).textContent === '1 waiting'",
                              arg=badge.format("5+5"))
    assert visitor.inner_text(badge.format("3+2")) == ""
    ann = pages.page()
    press_play_now(ann, server.url, "Ann", "3+2")
    ann.wait_for_selector("#pn-offer:not([hidden])")
    assert ann.inner_text("#pn-offer-text") == "1 player waits in 5+5 — play that instead?"
    assert "Bob" not in ann.inner_text("#pn-waiting")
    ann.click("#pn-switch")
    game = seated(ann)
    assert seated(bob) == game
