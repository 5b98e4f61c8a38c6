"""The moderators' page in the browser (issue 29): a player reports another's chat line, a moderator
granted from the command line while the server runs sees the stored line on /moderation and mutes
the offender for the hours typed; the log shows it; a player who is no moderator is told the page is
not theirs. A moderator bans and unbans a player by name from the page."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
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


def grant(server: LiveServer, name: str) -> None:
    """Make ``name`` a moderator with ``schotten moderators add`` while the server runs."""
    granted = subprocess.run([sys.executable, "-m", "schotten", "moderators", "add", name, "--database",
                              f"sqlite:///{server.database}"], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr


def logged(page: Any, rows: int) -> str:
    """The log's text once it has ``rows`` rows."""
    page.wait_for_function(f"() => document.querySelectorAll('#log tr').length === {rows}")
    text: str = page.inner_text("#log")
    return text


def test_a_moderator_mutes_a_reported_player_for_the_hours_typed(pages: Browser, server: LiveServer) -> None:
    """Report a chat line, grant the role with ``schotten moderators add``, open /moderation, mute for
    the 3 hours typed in the report's hours field: the player's mute ends 3 hours from now."""
    ann, carol = signed_up(pages, server, "ann"), signed_up(pages, server, "carol")
    bob = signed_up(pages, server, "bob")
    report = {"player": "bob", "reason": "abuse", "text": "insults"}
    status, answer = call(ann, "POST", "/api/reports", report)
    assert status == 201, answer
    grant(server, "carol")
    carol.goto(f"{server.url}/moderation")
    card = carol.wait_for_selector("article.report")
    assert "bob" in card.inner_text() and "insults" in card.inner_text()
    carol.fill("article.report input.hours", "3")
    before = datetime.now(UTC)
    carol.click("article.report button[data-action='mute']")
    carol.wait_for_selector("#no-reports:not([hidden])")
    assert "Mute for 3 h" in logged(carol, 1)
    status, standing = call(bob, "GET", "/api/account/standing")
    assert status == 200 and standing["note"] == "Abuse", standing
    hours = (datetime.fromisoformat(standing["muted_until"]) - before).total_seconds() / 3600
    assert 2.9 < hours < 3.1, standing
    ann.goto(f"{server.url}/moderation")
    ann.wait_for_selector("#message:not([hidden])")
    assert "only moderators" in ann.inner_text("#message")
    assert not pages.errors


def test_a_moderator_bans_and_unbans_a_player_by_name(pages: Browser, server: LiveServer) -> None:
    """Act on a player: a mute without hours is refused with the server's sentence and logs nothing;
    a ban (no hours: until lifted) refuses bob's log-in; Unban lets him in again."""
    carol, bob = signed_up(pages, server, "carol"), signed_up(pages, server, "bob")
    grant(server, "carol")
    carol.goto(f"{server.url}/moderation")
    carol.wait_for_selector("#act:not([hidden])")
    carol.fill("#act-player", "bob")
    carol.fill("#act-note", "cheating")
    carol.click("#act-form button[data-action='mute']")
    carol.wait_for_selector("#message.error:not([hidden])")
    assert "hours" in carol.inner_text("#message")
    assert logged(carol, 0) == ""
    carol.click("#act-form button[data-action='ban']")
    assert "Ban" in logged(carol, 1)
    status, refused = call(bob, "POST", "/api/session", {"username": "bob", "password": PASSWORD})
    assert status == 403 and "cheating" in refused["error"]
    carol.fill("#act-player", "bob")
    carol.fill("#act-note", "appeal granted")
    carol.click("#act-form button[data-action='unban']")
    assert "Unban" in logged(carol, 2).splitlines()[0]
    carol.wait_for_selector("#message.info:not([hidden])")
    status, answer = call(bob, "POST", "/api/session", {"username": "bob", "password": PASSWORD})
    assert status == 200, answer
    assert not pages.errors


def at_table(pages: Browser, server: LiveServer, name: str, path: str) -> Any:
    """A page signed up as ``name`` that opens (``/api/tables``) or joins a friend table, at its table."""
    page = signed_up(pages, server, name)
    body = {"mode": "friend", "seat": 0, "variant": "base"} if path == "/api/tables" else {}
    status, grant = call(page, "POST", path, body)
    assert status == 200, grant
    page.goto(f"{server.url}{grant['url']}")
    page.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    return page


def test_a_chat_line_and_a_profile_are_reported_in_two_clicks(pages: Browser, server: LiveServer) -> None:
    """At the table a flag on the opponent's chat line opens the report dialog: the moderators get
    the line as stored; the profile's Report button reports too; a guest sees neither button."""
    ann = at_table(pages, server, "ann", "/api/tables")
    game = ann.url.split("/game/")[1].split("?")[0]
    bob = at_table(pages, server, "bob", f"/api/tables/{game}/join")
    bob.fill("#chat-input", "you are an idiot")
    bob.press("#chat-input", "Enter")
    ann.wait_for_selector(".chat-line:not(.own) .chat-report")
    assert bob.query_selector(".chat-line.own .chat-report") is None
    assert not ann.is_hidden("#report-opponent")
    ann.click(".chat-line:not(.own) .chat-report")
    ann.select_option("#report-reason", "abuse")
    ann.click("#report-send")
    ann.wait_for_selector("#message:not([hidden])")
    assert "bob" in ann.inner_text("#message")
    ann.goto(f"{server.url}/player/bob")
    ann.wait_for_selector("#relations[data-ready='1']")
    ann.click("#report")
    ann.select_option("#report-reason", "cheating")
    ann.fill("#report-text", "too strong")
    ann.click("#report-send")
    ann.wait_for_selector("#message:not([hidden])")
    grant(server, "ann")
    status, queue = call(ann, "GET", "/api/moderation/reports")
    assert status == 200
    chat, profile = queue["reports"]
    assert chat["reason"] == "abuse" and chat["game"] == game
    assert [line["text"] for line in chat["chat"] if line["reported"]] == ["you are an idiot"]
    assert profile["reason"] == "cheating" and profile["text"] == "too strong" and profile["game"] is None
    guest = pages.page()
    guest.goto(f"{server.url}/game/{game}")
    guest.wait_for_selector("#status[data-version]")
    assert guest.query_selector(".chat-report") is None and guest.is_hidden("#report-opponent")
    assert not pages.errors
