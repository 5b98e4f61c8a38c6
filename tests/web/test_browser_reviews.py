"""Browser test of a finished game's review on the replay page (issue 27): the Review button, then
each reviewed move listed with its mark and, for the step shown, the best move and the chances.
Playwright's sync API drives Debian's Chromium against a live server (``browser_helpers.LiveServer``)
with a small review budget; the game and the review are seeded, so the marks are the same every run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer, finished_friend_game

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

MARKS = {"inaccuracy", "mistake", "blunder"}


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, reviewing with a small budget."""
    env = {"SCHOTTEN_REVIEW_ITERATIONS": "16", "SCHOTTEN_REVIEW_WORKERS": "1"}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2727, env=env) as live:
        yield live


def test_review_shows_each_move_s_mark_and_the_best_move(pages: Browser, server: LiveServer) -> None:
    """A randomly played game reviewed: every unforced move listed, some marked; at a marked move's
    step the page says its mark, the best move found and the chances."""
    game_id, _ = finished_friend_game(server.url, seed=7)
    page = pages.page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_selector("#review-start:not([hidden])")
    page.click("#review-start")
    page.wait_for_selector("#review-moves li", timeout=120_000)
    marks = page.eval_on_selector_all("#review-moves button", "(nodes) => nodes.map((n) => n.dataset.mark)")
    assert marks and set(marks) <= MARKS | {""} and MARKS & set(marks), marks
    assert page.locator("#review-chart svg polyline").count() == 2
    marked = page.locator("#review-moves li.mark button").first
    move = marked.get_attribute("data-move")
    mark = marked.get_attribute("data-mark")
    marked.click()
    assert page.get_attribute("#step", "data-index") == move
    said = page.inner_text("#review-step")
    assert said.startswith(mark or "?") and "Best was " in said and "% to win the round" in said
    assert page.locator(f"#review-moves button[data-move='{move}']").get_attribute("class").endswith("active")
    page.reload()
    page.wait_for_selector("#review-moves li")
    assert page.locator("#review-start").is_hidden()
