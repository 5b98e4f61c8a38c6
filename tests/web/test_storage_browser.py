"""The page when a move cannot be stored: a locked database (another connection holds an exclusive
lock on the server's SQLite file, past ``db_busy_timeout``) refuses the card play with
``unavailable``; the page says so in its words, the card is back in the hand and the table
unchanged; once the lock is gone the same card is played. Chromium under Playwright, the
server ``python -m schotten serve`` on 127.0.0.1 (see browser_helpers).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer, create_table
from test_browser import MY_DECISION_OR_OVER, check_targets, hand_of

UNAVAILABLE_TEXT = ("The server could not store your move: nothing changed and your card is still in "
                    "your hand.")
REFUSED = "() => document.querySelector('#message').textContent.includes('could not store')"


@pytest.fixture
def locked_server(sync_api: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A server that waits half a second at most for a lock on its database."""
    monkeypatch.setenv("SCHOTTEN_DB_BUSY_TIMEOUT", "0.5")
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log") as live:
        yield live


def _play(page: Any, card: str) -> str:
    page.click(f'#hand .card.playable[data-card="{card}"]')
    action = check_targets(page, card)[0]
    page.click(f'.col[data-action="{action}"]')
    return action


def test_a_move_the_server_cannot_store_is_refused_and_the_card_stays(
        pages: Browser, locked_server: LiveServer, tmp_path: Path) -> None:
    page = pages.page()
    create_table(page, locked_server.url, "Ann", "base")
    page.wait_for_function(MY_DECISION_OR_OVER)
    page.uncheck("#confirm-plays")
    version = page.get_attribute("#status", "data-version")
    hand = hand_of(page)
    card = str(page.eval_on_selector("#hand .card.playable", "n => n.dataset.card"))
    locker = sqlite3.connect(tmp_path / "games.db", isolation_level=None)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        _play(page, card)
        page.wait_for_function(REFUSED)
        assert UNAVAILABLE_TEXT in page.inner_text("#message")
        page.wait_for_selector(f'#hand .card.playable[data-card="{card}"]')
        assert hand_of(page) == hand and page.locator(".provisional").count() == 0
        assert page.get_attribute("#status", "data-version") == version
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    _play(page, card)
    page.wait_for_function(f"() => document.querySelector('#status').dataset.version !== '{version}'")
    assert card not in hand_of(page) or hand.count(card) > 1
