"""Hints in the browser (issue 27): a table against the computer created with "Allow hints" shows a
Hint button at the player's decision; pressing it highlights the move the engine would play and says
why in the prompt area, in the page's language (from the server's data). The lobby tags the game.
Playwright's sync API drives Debian's Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, hints at a small budget."""
    env = {"SCHOTTEN_HINT_ITERATIONS": "40"}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=27, env=env) as live:
        yield live


def _create_with_hints(page: Any, url: str) -> str:
    page.goto(f"{url}/")
    page.fill("#nickname", "Ann")
    page.select_option("#variant", "base")
    page.check('input[name="mode"][value="ai"]')
    page.select_option("#level", "easy")
    page.check("#hints")
    page.click("#create")
    page.wait_for_url("**/game/**")
    page.wait_for_selector("#status[data-version]")
    return str(page.url.split("/game/")[1].split("?")[0])


def test_the_hint_button_highlights_the_move_and_says_why(pages: Browser, server: LiveServer) -> None:
    """Hint at the seat's decision: the reason is shown and a legal move lit; the lobby's row and,
    once the game is over, the replay's players line carry the "hints" tag with the count used."""
    page = pages.page()
    game_id = _create_with_hints(page, server.url)
    page.wait_for_selector("#hint:not([hidden])")
    page.click("#hint")
    box = page.wait_for_selector("#hint-box:not([hidden])")
    assert "You win about" in box.inner_text()
    action = box.get_attribute("data-action")
    legal = page.evaluate("() => window.schotten.state.legal.map((part) => part.action)")
    assert action in legal
    assert page.locator(".hinted").count() >= 1
    page.goto(f"{server.url}/")
    tag = page.wait_for_selector(f'li[data-table="{game_id}"] .hints-tag')
    assert tag.inner_text() == "hints"
    assert tag.get_attribute("title") == "1 hint used"
    page.goto(f"{server.url}/game/{game_id}")
    page.wait_for_selector("#resign:not([hidden])")
    page.click("#resign")
    page.click("#confirm-end-yes")
    page.wait_for_selector('#status[data-status="over"]')
    page.goto(f"{server.url}/replay/{game_id}")
    tag = page.wait_for_selector("#players-line:not([hidden]) .hints-tag")
    assert tag.get_attribute("title") == "1 hint used"


def test_the_form_offers_hints_only_against_the_computer(pages: Browser, server: LiveServer) -> None:
    """The "Allow hints" box is offered only when the opponent is the computer."""
    page = pages.page()
    page.goto(f"{server.url}/")
    page.check('input[name="mode"][value="ai"]')
    assert page.is_visible("#hints")
    page.check('input[name="mode"][value="friend"]')
    assert not page.is_visible("#hints")
