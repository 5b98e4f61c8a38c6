"""The moderators' page in the browser (issue 29): a player reports another's chat line, a moderator
granted from the command line while the server runs sees the stored line on /moderation and mutes
the offender in one click; the log shows it; a player who is no moderator is told the page is not
theirs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer

PASSWORD = "correct horse battery"
FETCH = """async ([method, path, body]) => {
  const answer = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                     body: body === null ? undefined : JSON.stringify(body)});
  return [answer.status, await answer.json()];
}"""


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2900) as live:
        yield live


def call(page: Any, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A request from the page (its cookies, its origin): (status, JSON answer)."""
    status, answer = page.evaluate(FETCH, [method, path, body])
    return int(status), answer


def signed_up(pages: Browser, server: LiveServer, name: str) -> Any:
    """A page of its own browser, signed up as ``name``."""
    page = pages.page()
    page.goto(f"{server.url}/rules")
    status, answer = call(page, "POST", "/api/accounts", {"username": name, "password": PASSWORD})
    assert status == 201, answer
    return page


def test_a_moderator_mutes_a_reported_player_in_one_click(pages: Browser, server: LiveServer) -> None:
    """Report a chat line, grant the role with ``schotten moderators add``, open /moderation, mute."""
    ann, carol = signed_up(pages, server, "ann"), signed_up(pages, server, "carol")
    signed_up(pages, server, "bob")
    report = {"player": "bob", "reason": "abuse", "text": "insults"}
    status, answer = call(ann, "POST", "/api/reports", report)
    assert status == 201, answer
    granted = subprocess.run([sys.executable, "-m", "schotten", "moderators", "add", "carol", "--database",
                              f"sqlite:///{server.database}"], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    carol.goto(f"{server.url}/moderation")
    card = carol.wait_for_selector("article.report")
    assert "bob" in card.inner_text() and "insults" in card.inner_text()
    carol.click("article.report button[data-action='mute']")
    carol.wait_for_selector("#no-reports:not([hidden])")
    carol.wait_for_function("() => document.querySelectorAll('#log tr').length === 1")
    assert "Mute 24 h" in carol.inner_text("#log")
    ann.goto(f"{server.url}/moderation")
    ann.wait_for_selector("#message:not([hidden])")
    assert "only moderators" in ann.inner_text("#message")
    assert not pages.errors
