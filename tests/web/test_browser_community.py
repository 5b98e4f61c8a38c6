"""Browser tests of follows and blocks: a signed-in player follows another from their profile, and
the home page lists that player's game in progress with a Watch link; a player blocks their opponent
from the profile (in another tab) and the opponent's chat lines are hidden from then on, live and
after a reload. Playwright's sync API drives Debian's Chromium against a live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from helpers_ratings import PASSWORD, add_game, sign_up
from test_browser_chat import lines, say, wait_line

from schotten.web.moderation.roles import set_moderator
from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for the test."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=77) as live:
        yield live


@pytest.fixture
def store(server: LiveServer) -> Iterator[Store]:
    """A store on the live server's database file (the server made its tables)."""
    opened = Store(f"sqlite:///{server.database}")
    yield opened
    opened.close()


TABLE = ("async (body) => { const answer = await fetch(body.path, { method: 'POST', headers: "
         "{ 'Content-Type': 'application/json' }, body: JSON.stringify(body.json) }); "
         "return await answer.json(); }")
LOG_IN = ("async ([username, password]) => { await fetch('/api/session', { method: 'POST', headers: "
          "{ 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) }); }")


def log_in(page: Any, username: str) -> None:
    """Log the page's browser in as ``username`` (the session cookie set by the server's answer)."""
    page.evaluate(LOG_IN, [username, PASSWORD])


def test_follow_from_the_profile_then_watch_from_the_home_page(pages: Browser, server: LiveServer,
                                                               store: Store) -> None:
    _, bob, cid = sign_up(store, "Ann", "Bob", "Cid")
    playing = add_game(store, [bob, cid])
    page = pages.page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#account-bar[data-ready='1']")
    assert page.locator("#followed-box").is_hidden()
    log_in(page, "Ann")
    page.goto(f"{server.url}/player/bob")
    page.wait_for_selector("#relations[data-ready='1']")
    assert page.inner_text("#follow") == "Follow" and page.inner_text("#block") == "Block"
    page.click("#follow")
    page.wait_for_function("() => document.querySelector('#follow').textContent === 'Unfollow'")
    assert "You follow Bob:" in page.inner_text("#message")
    page.goto(f"{server.url}/")
    page.wait_for_selector("#followed-box[data-ready='1']")
    watch = page.locator("#followed-games a.btn")
    assert watch.count() == 1 and watch.get_attribute("href") == f"/game/{playing}"
    assert watch.inner_text() == "Watch"
    page.goto(f"{server.url}/player/Bob")
    page.wait_for_selector("#relations[data-ready='1']")
    assert page.inner_text("#follow") == "Unfollow"
    page.click("#block")
    page.wait_for_function("() => document.querySelector('#block').textContent === 'Unblock'")
    listed = page.evaluate("async () => (await (await fetch('/api/blocks')).json())"
                           ".players.map((p) => p.name)")
    assert listed == ["Bob"]


def test_no_buttons_for_a_guest_nor_on_one_s_own_profile(pages: Browser, server: LiveServer,
                                                          store: Store) -> None:
    sign_up(store, "Ann", "Bob")
    page = pages.page(locale="ca-ES")
    page.goto(f"{server.url}/player/Bob")
    page.wait_for_selector("#account-bar[data-ready='1']")
    page.wait_for_selector("#username:not(:empty)")
    assert page.locator("#relations").is_hidden()
    log_in(page, "Ann")
    page.goto(f"{server.url}/player/Ann")
    page.wait_for_selector("#username:not(:empty)")
    page.wait_for_selector("#account-bar[data-ready='1']")
    assert page.locator("#relations").is_hidden()
    page.goto(f"{server.url}/player/Bob")
    page.wait_for_selector("#relations[data-ready='1']")
    assert page.inner_text("#follow") == "Segueix" and page.inner_text("#block") == "Bloqueja"


def seated(pages: Browser, server: LiveServer, username: str, path: str, body: dict[str, Any]) -> Any:
    """A page of its own browser logged in as ``username`` that opens or joins a table (``path``, with
    ``body``), at that table once its state has arrived."""
    page = pages.page()
    page.goto(f"{server.url}/rules")
    log_in(page, username)
    grant = page.evaluate(TABLE, {"path": path, "json": body})
    page.goto(f"{server.url}{grant['url']}")
    page.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    return page


def test_block_the_opponent_from_their_profile_and_their_chat_is_hidden(pages: Browser, server: LiveServer,
                                                                         store: Store) -> None:
    sign_up(store, "Ann", "Bob")
    ann = seated(pages, server, "Ann", "/api/tables", {"mode": "friend", "seat": 0, "variant": "base"})
    game = ann.url.split("/game/")[1].split("?")[0]
    bob = seated(pages, server, "Bob", f"/api/tables/{game}/join", {})
    say(bob, "hello")
    wait_line(ann, "Bob: hello")
    profile = ann.context.new_page()
    profile.goto(f"{server.url}/player/Bob")
    profile.wait_for_selector("#relations[data-ready='1']")
    profile.click("#block")
    profile.wait_for_function("() => document.querySelector('#block').textContent === 'Unblock'")
    say(bob, "you play badly")
    wait_line(bob, "Bob: you play badly")
    say(ann, "good luck")
    wait_line(ann, "Ann: good luck")
    wait_line(bob, "Ann: good luck")
    assert lines(ann) == ["Bob: hello", "Ann: good luck"]
    assert lines(bob) == ["Bob: hello", "Bob: you play badly", "Ann: good luck"]
    ann.reload()
    wait_line(ann, "Ann: good luck")
    assert lines(ann) == ["Ann: good luck"], "the history Ann loads leaves out every line of Bob's"


GET = "async (path) => await (await fetch(path)).json()"


def test_report_a_chat_line_and_block_its_author_in_two_clicks(pages: Browser, server: LiveServer,
                                                                store: Store) -> None:
    """Carol insults Ann: Report on the line, then Send (with "Also block Carol" checked) files the
    report and blocks Carol; her lines leave Ann's chat at once and no new one comes; Carol sees
    nothing different; a moderator finds the report."""
    sign_up(store, "Ann", "Carol", "Mod")
    ann = seated(pages, server, "Ann", "/api/tables", {"mode": "friend", "seat": 0, "variant": "base"})
    game = ann.url.split("/game/")[1].split("?")[0]
    carol = seated(pages, server, "Carol", f"/api/tables/{game}/join", {})
    say(ann, "good luck")
    say(carol, "you are an idiot")
    wait_line(ann, "Carol: you are an idiot")
    ann.click(".chat-line:not(.own) .chat-report")
    assert ann.is_checked("#report-block")
    assert ann.inner_text("label[for='report-block']") == "Also block Carol"
    ann.click("#report-send")
    ann.wait_for_selector("#message.info:not([hidden])")
    assert ann.inner_text("#message") == ("Thank you: the moderators will look at your report on Carol. "
                                          "You block Carol: their chat is hidden from you and Play now never "
                                          "pairs you.")
    assert lines(ann) == ["Ann: good luck"]
    assert [entry["name"] for entry in ann.evaluate(GET, "/api/blocks")["players"]] == ["Carol"]
    say(carol, "still here")
    wait_line(carol, "Carol: still here")
    say(ann, "bye")
    wait_line(carol, "Ann: bye")
    wait_line(ann, "Ann: bye")
    assert lines(ann) == ["Ann: good luck", "Ann: bye"]
    assert lines(carol) == ["Ann: good luck", "Carol: you are an idiot", "Carol: still here", "Ann: bye"]
    assert carol.is_hidden("#message")
    set_moderator(store, "Mod", True)
    moderator = pages.page()
    moderator.goto(f"{server.url}/rules")
    log_in(moderator, "Mod")
    [report] = moderator.evaluate(GET, "/api/moderation/reports")["reports"]
    assert (report["reporter"], report["player"], report["game"]) == ("Ann", "Carol", game)
    assert [line["text"] for line in report["chat"] if line["reported"]] == ["you are an idiot"]
    assert not pages.errors


def test_a_report_whose_block_fails_says_so(pages: Browser, server: LiveServer, store: Store) -> None:
    """The report is filed but the block cannot reach the server: the page says both plainly, and
    Carol's lines stay."""
    sign_up(store, "Ann", "Carol")
    ann = seated(pages, server, "Ann", "/api/tables", {"mode": "friend", "seat": 0, "variant": "base"})
    game = ann.url.split("/game/")[1].split("?")[0]
    carol = seated(pages, server, "Carol", f"/api/tables/{game}/join", {})
    say(carol, "you are an idiot")
    wait_line(ann, "Carol: you are an idiot")
    ann.route("**/api/blocks/**", lambda route: route.abort())
    ann.click(".chat-line:not(.own) .chat-report")
    ann.click("#report-send")
    ann.wait_for_selector("#message.error:not([hidden])")
    assert ann.inner_text("#message") == ("Your report on Carol was sent, but Carol could not be blocked: "
                                          "The server cannot be reached.")
    assert lines(ann) == ["Carol: you are an idiot"]
    assert ann.evaluate(GET, "/api/blocks")["players"] == []
