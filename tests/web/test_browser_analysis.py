"""Browser test of the analysis board (issue 27): from a finished game's replay, at a move the review
marked, "Analyse from here" opens /analysis on that step's position, which shows the table, the
chances and the best moves; a position the engine refuses shows its sentence. Playwright's sync API
drives Debian's Chromium against a live server (``browser_helpers.LiveServer``), small budgets."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from browser_helpers import Browser, LiveServer, finished_friend_game

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, reviewing and analysing with small budgets."""
    env = {"SCHOTTEN_REVIEW_ITERATIONS": "16", "SCHOTTEN_REVIEW_WORKERS": "1",
           "SCHOTTEN_ANALYSIS_ITERATIONS": "40"}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2727, env=env) as live:
        yield live


def test_analyse_from_a_marked_move_of_the_replay(pages: Browser, server: LiveServer) -> None:
    """Review a finished game, step to a marked move, Analyse from here: the position is in the
    editor and the page shows each seat's chance, the best moves and a row per stone."""
    game_id, _ = finished_friend_game(server.url, seed=7)
    page = pages.page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_selector("#review-start:not([hidden])")
    page.click("#review-start")
    page.wait_for_selector("#review-moves li", timeout=120_000)
    marked = page.locator("#review-moves li.mark button").first
    move = marked.get_attribute("data-move")
    marked.click()
    assert page.get_attribute("#step", "data-index") == move
    # the position before the marked move: the decision the review judged
    page.click("#prev")
    position = parse_qs(urlparse(page.get_attribute("#analyse-here", "href") or "").query)["position"][0]
    page.click("#analyse-here")
    page.wait_for_selector("#best-moves li", timeout=60_000)
    assert page.input_value("#position") == position
    assert "Chance of winning the round" in page.inner_text("#analysis-win")
    assert page.locator("#best-moves li").count() >= 1 and "%" in page.inner_text("#best-moves li >> nth=0")
    assert page.locator("#analysis-stones tr[data-stone]").count() == 9
    assert page.locator("#board .stone, #board > *").count() >= 9


def test_an_invalid_position_shows_the_engines_sentence(pages: Browser, server: LiveServer) -> None:
    """An invalid position is answered with the engine's sentence, no figures, and kept in the URL."""
    page = pages.page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/analysis")
    page.fill("#position", "chess 1/1 0 7 - 0 play 0 0:0")
    page.click("#analyse")
    page.wait_for_function(
        "() => document.getElementById('analysis-status').textContent.includes('not a valid')")
    assert page.locator("#analysis-result").is_hidden()
    assert "position=chess" in page.url
