"""Browser tests of the table's chat (issue 14): two players exchange messages, one of them
looking like HTML (shown as text, never as markup), and a quick message each page words in its
own language; spectators chat in their own room that the players do not see until the game is
over; a player mutes the other; a flood is refused and said in the chat; the human at an AI
table has no chat input."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer, open_friend_table, post_json, seated_pages

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

HTML_LOOKING = '<b>bold</b> <img src=x onerror="window.pwned = 1"> & <script>window.pwned = 2</script>'
LINES = """room => [...document.querySelectorAll(`#chat-rooms .chat-list[data-room="${room}"] .chat-line`)]
  .map((n) => n.textContent)"""


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2323) as live:
        yield live


def lines(page: Any, room: str = "players") -> list[str]:
    """The chat lines the page shows in ``room`` ("Name: text")."""
    return [str(line) for line in page.evaluate(LINES, room)]


def wait_line(page: Any, text: str, room: str = "players") -> None:
    """Wait until the chat of ``room`` shows the line ``text``."""
    page.wait_for_function(f"() => ({LINES})({json.dumps(room)}).includes({json.dumps(text)})")


def say(page: Any, text: str) -> None:
    """Type ``text`` in the chat and send it with Enter."""
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")


def test_a_chat_exchange_between_two_players(pages: Browser, server: LiveServer) -> None:
    """Ann writes something that looks like HTML: both pages show it as text, no element made of
    it, no script run. Bob (in Catalan) sends a quick message: "Bona sort!" for him, "Good luck!"
    for Ann. The room is "Players" (the input keeps 300 characters at most)."""
    _, links = open_friend_table(server.url)
    ann = seated_pages(pages, server.url, links[:1])[0]
    bob = seated_pages(pages, server.url, links[1:], locale="ca-ES")[0]
    for page in (ann, bob):
        page.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    assert ann.inner_text(".chat-room h3") == "Players" and bob.inner_text(".chat-room h3") == "Jugadors"
    assert ann.get_attribute("#chat-input", "maxlength") == "300"
    say(ann, HTML_LOOKING)
    for page in (ann, bob):
        wait_line(page, f"Ann: {HTML_LOOKING}")
        assert page.locator("#chat-rooms b, #chat-rooms img, #chat-rooms script").count() == 0
        assert page.evaluate("() => window.pwned") is None
    assert ann.input_value("#chat-input") == "", "the input is emptied once sent"
    bob.click('#chat-quick [data-quick="good_luck"]')
    wait_line(bob, "Bob: Bona sort!")
    wait_line(ann, "Bob: Good luck!")
    assert lines(ann) == [f"Ann: {HTML_LOOKING}", "Bob: Good luck!"]
    bob.reload()
    bob.wait_for_selector("#status[data-version]")
    wait_line(bob, f"Ann: {HTML_LOOKING}")
    assert lines(bob) == [f"Ann: {HTML_LOOKING}", "Bob: Bona sort!"], "the history comes back"


def test_spectators_mutes_and_limits(pages: Browser, server: LiveServer) -> None:
    """A spectator's room is its own while the game is played, both rooms are shown once it is
    over; muting hides the other player's messages until unmuted; a flood is said in the chat."""
    grant, links = open_friend_table(server.url)
    ann, bob = seated_pages(pages, server.url, links)
    watcher = pages.page()
    watcher.add_init_script("localStorage.setItem('schotten.nickname', 'Cy');")
    watcher.goto(f"{server.url}/game/{grant['id']}")
    watcher.wait_for_selector("#chat:not([hidden])")
    assert watcher.inner_text(".chat-room h3") == "Spectators"
    assert watcher.locator("#chat-mute").is_hidden(), "spectators cannot mute"
    say(watcher, "hi from the stands")
    wait_line(watcher, "Cy: hi from the stands", "spectators")
    say(ann, "hello Bob")
    wait_line(bob, "Ann: hello Bob")
    assert lines(watcher, "players") == [] and lines(ann, "spectators") == []

    assert bob.inner_text("#chat-mute") == "Mute Ann"
    bob.click("#chat-mute")
    bob.wait_for_selector('#chat-mute[aria-pressed="true"]')
    assert bob.inner_text("#chat-mute") == "Unmute Ann"
    bob.wait_for_function(f"() => ({LINES})('players').length === 0")  # the history without Ann's
    say(ann, "are you there?")
    wait_line(ann, "Ann: are you there?")
    say(bob, "ping")
    wait_line(ann, "Bob: ping")
    assert "Ann: are you there?" not in lines(bob)
    bob.click("#chat-mute")
    wait_line(bob, "Ann: are you there?")
    assert lines(bob) == ["Ann: hello Bob", "Ann: are you there?", "Bob: ping"]

    for _ in range(6):
        ann.click('#chat-quick [data-quick="oops"]')
    ann.wait_for_selector("#chat-error:not([hidden])")
    assert ann.inner_text("#chat-error").startswith("Not sent: you are writing too fast")

    ann.click("#resign")
    ann.click("#confirm-end-yes")
    for page in (ann, bob, watcher):
        page.wait_for_selector("#result:not([hidden])")
        page.wait_for_selector('.chat-room[data-room="spectators"]')
        page.wait_for_selector('.chat-room[data-room="players"]')
    wait_line(ann, "Cy: hi from the stands", "spectators")
    wait_line(watcher, "Ann: hello Bob")


def test_no_chat_input_for_the_player_at_an_ai_table(pages: Browser, server: LiveServer) -> None:
    """The server refuses the human's chat at an AI table: the page offers none, once it knows the
    table's mode; its spectators chat among themselves."""
    body = {"mode": "ai", "level": "easy", "nickname": "Di", "seat": 0}
    grant = post_json(f"{server.url}/api/tables", body)
    page = seated_pages(pages, server.url, [grant["url"]])[0]
    page.wait_for_function("() => window.schotten.mode === 'ai'")
    assert page.locator("#chat").is_hidden()
    assert page.locator("#chat-form").is_hidden() and page.locator("#chat-mute").is_hidden()
    watcher = pages.page()
    watcher.goto(f"{server.url}/game/{grant['id']}")
    watcher.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    say(watcher, "go Di")
    wait_line(watcher, "spectator: go Di", "spectators")
