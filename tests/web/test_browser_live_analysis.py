"""Browser tests of issue 27's analysis in play and of a failed review: at a table against the computer
with hints, "Analyse" opens the analysis board on the position of the player's decision (the
opponent's hand and the decks dealt anew: the address holds no secret) and counts as a hint; a failed
review says why on the replay page and "Try again" has it made. Playwright's sync API drives Debian's
Chromium against a live server (``browser_helpers.LiveServer``), small budgets."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from browser_helpers import Browser, LiveServer, finished_friend_game

from schotten.engine.cards import card_str
from schotten.engine.position import parse_position
from schotten.web.reviews.queue import ATTEMPTS, FAILED
from schotten.web.storage.db import ReviewRow
from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, analysing and reviewing with small budgets."""
    env = {"SCHOTTEN_ANALYSIS_ITERATIONS": "40", "SCHOTTEN_HINT_ITERATIONS": "40",
           "SCHOTTEN_REVIEW_ITERATIONS": "16", "SCHOTTEN_REVIEW_WORKERS": "1"}
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2728, env=env) as live:
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


def test_analyse_at_a_hints_table_shows_the_best_moves(pages: Browser, server: LiveServer) -> None:
    """At the player's decision, Analyse opens /analysis on a position holding the player's own hand
    and the board as they are; the board page shows the chances and the best moves; the lobby then
    counts one hint used."""
    page = pages.page()
    game_id = _create_with_hints(page, server.url)
    page.wait_for_selector("#analyse:not([hidden])")
    seat, hand = page.evaluate("() => [window.schotten.state.seat, window.schotten.state.view.hand]")
    page.click("#analyse")
    page.wait_for_url("**/analysis?position=**")
    page.wait_for_selector("#best-moves li", timeout=60_000)
    assert "Chance of winning the round" in page.inner_text("#analysis-win")
    assert "%" in page.inner_text("#best-moves li >> nth=0")
    address = urlparse(page.url)
    assert set(parse_qs(address.query)) == {"position"} and "token" not in page.url
    position = parse_qs(address.query)["position"][0]
    assert sorted(card_str(c) for c in parse_position(position).hands[seat]) == sorted(hand)
    page.goto(f"{server.url}/")
    tag = page.wait_for_selector(f'li[data-table="{game_id}"] .hints-tag')
    assert tag.get_attribute("title") == "1 hint used"


def test_a_failed_review_says_why_and_try_again_makes_it(pages: Browser, server: LiveServer) -> None:
    """A review failed after its attempts: the replay's review panel says so with the count and offers
    Try again, which queues it anew; the worker then makes it and the reviewed moves are listed."""
    game_id, _ = finished_friend_game(server.url, seed=3)
    store = Store(f"sqlite:///{server.database}")
    with store.use() as session, session.begin():
        session.add(ReviewRow(game_id=game_id, status=FAILED, record="{}", done=0, total=0,
                              result=json.dumps({"attempts": ATTEMPTS}), requested_by="address:test",
                              requested=datetime.now(UTC)))
    store.close()
    page = pages.page()
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_selector("#review-retry:not([hidden])")
    assert page.locator("#review-start").is_hidden()
    assert f"could not be made ({ATTEMPTS} attempts failed)" in page.inner_text("#review-status")
    page.click("#review-retry")
    page.wait_for_selector("#review-moves li", timeout=120_000)
    assert page.locator("#review-retry").is_hidden()
