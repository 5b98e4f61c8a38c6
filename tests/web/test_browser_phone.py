"""Browser tests of the table on a phone, and of its sounds (issue 26, item 13): a message from
the other player while the chat is below the fold gives a sign beside the hand, which goes once
the chat is in view (none for one's own lines, none while the chat is in sight); the result box
is scrolled into view when the game ends, the round's end box when a round ends (smoothly, or at
once under reduced motion); the other player's last turn is not hidden behind the docked hand;
the sound chosen for each moment (a claim, the turn, the other's move) as the page reports it."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    DESKTOP,
    Browser,
    LiveServer,
    create_table,
    open_friend_table,
    play_a_card,
    play_friend_game,
    seated_pages,
)

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

PHONE = {"width": 375, "height": 667}
PHONE_OPTIONS: dict[str, Any] = {"viewport": PHONE, "is_mobile": True, "has_touch": True}
SOUND_ON = "localStorage.setItem('schotten.sound', '1');"
LINES = "() => [...document.querySelectorAll('#chat-rooms .chat-line')].map((n) => n.textContent)"
WRAPS = "(selector) => { const n = document.querySelector(selector); return n.scrollWidth <= n.clientWidth; }"
# Whether every corner of the node's box is on the screen and shows the node itself (not an
# element drawn over it).
UNCOVERED = """(selector) => {
  const node = document.querySelector(selector);
  const box = node.getBoundingClientRect();
  const inside = box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
  const points = [[box.left + 2, box.top + 2], [box.right - 2, box.top + 2], [box.left + 2, box.bottom - 2],
    [box.right - 2, box.bottom - 2]];
  return inside && box.height > 0 && points.every(([x, y]) => node.contains(document.elementFromPoint(x, y)));
}"""


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test, its games seeded from 2626."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2626) as live:
        yield live


@contextlib.contextmanager
def socket_of(server: LiveServer, grant: dict[str, Any], seat: int) -> Iterator[Any]:
    """A WebSocket of ``seat`` at ``grant``'s table (its first message read)."""
    from websockets.sync.client import connect

    where = server.url.replace("http://", "ws://") + f"/ws/games/{grant['id']}?token={grant['tokens'][seat]}"
    with connect(where) as ws:
        ws.recv(timeout=10)
        yield ws


def wait_line(page: Any, text: str) -> None:
    """Wait until the page's chat shows the line ``text``."""
    page.wait_for_function(f"() => ({LINES})().includes({json.dumps(text)})")


def news(page: Any) -> str | None:
    """The chat news beside the hand, or None when it is hidden."""
    return None if page.locator("#chat-news").is_hidden() else str(page.inner_text("#chat-news"))


def wait_chat_seen(page: Any, seen: bool) -> None:
    """Wait until the page knows whether its chat's messages are in view."""
    page.wait_for_selector(f'#chat-news[data-chat-in-view="{int(seen)}"]', state="attached")


# ---------------------------------------------------------------------- chat news


def test_a_message_below_the_fold_is_announced_beside_the_hand(pages: Browser, server: LiveServer) -> None:
    """On a phone the chat is below the fold: Bob's message gives "New message from Bob" beside
    Ann's hand, a second one "2 new messages"; Ann's own line adds nothing. The button scrolls
    to the chat and the sign goes; a message while the chat is in view gives none."""
    grant, links = open_friend_table(server.url)
    ann = seated_pages(pages, server.url, links[:1], **PHONE_OPTIONS)[0]
    ann.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    wait_chat_seen(ann, False)
    assert news(ann) is None
    with socket_of(server, grant, 1) as bob_ws, socket_of(server, grant, 0) as ann_ws:
        bob_ws.send(json.dumps({"type": "chat", "text": "Hello Ann"}))
        wait_line(ann, "Bob: Hello Ann")
        assert news(ann) == "New message from Bob"
        assert ann.locator("#dock #chat-news").count() == 1, "beside the hand"
        ann_ws.send(json.dumps({"type": "chat", "text": "my own line"}))
        wait_line(ann, "Ann: my own line")
        assert news(ann) == "New message from Bob", "one's own line is no news"
        bob_ws.send(json.dumps({"type": "chat", "quick": "good_luck"}))
        wait_line(ann, "Bob: Good luck!")
        assert news(ann) == "2 new messages"
        ann.click("#chat-news")
        ann.wait_for_selector("#chat-news", state="hidden")
        wait_chat_seen(ann, True)
        bob_ws.send(json.dumps({"type": "chat", "text": "in sight"}))
        wait_line(ann, "Bob: in sight")
        assert news(ann) is None, "no sign while the chat is in view"


def test_no_news_in_sight_nor_of_a_spectators_own_line(pages: Browser, server: LiveServer) -> None:
    """On a desktop the chat is beside the board: Bob's message gives no sign. A spectator on a
    phone: another spectator's message is news, its own message (sent from the page) is not."""
    grant, links = open_friend_table(server.url)
    ann = seated_pages(pages, server.url, links[:1], viewport=DESKTOP)[0]
    wait_chat_seen(ann, True)
    watcher = pages.page(**PHONE_OPTIONS)
    watcher.goto(f"{server.url}/game/{grant['id']}")
    watcher.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    with socket_of(server, grant, 1) as bob_ws:
        bob_ws.send(json.dumps({"type": "chat", "text": "Hi there"}))
        wait_line(ann, "Bob: Hi there")
        assert news(ann) is None
    watcher.fill("#chat-input", "from the stands")
    watcher.evaluate("() => window.scrollTo(0, 0)")
    wait_chat_seen(watcher, False)
    watcher.evaluate("() => document.querySelector('#chat-form').requestSubmit()")
    wait_line(watcher, "spectator: from the stands")
    assert news(watcher) is None, "its own line"
    other = pages.page()
    other.goto(f"{server.url}/game/{grant['id']}")
    other.wait_for_selector("#chat:not([hidden]) #chat-form:not([hidden])")
    other.fill("#chat-input", "hello stands")
    other.press("#chat-input", "Enter")
    wait_line(watcher, "spectator: hello stands")
    assert news(watcher) == "New message from spectator"


# ---------------------------------------------------------------------- boxes scrolled into view


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_result_is_scrolled_into_view_when_the_game_ends(
        pages: Browser, server: LiveServer, sync_api: Any, motion: str) -> None:
    """Ann watches her phone at the top of the page while the game is played to its end: the
    result box, below the screen, comes into view (smoothly, or at once under reduced motion)."""
    grant, links = open_friend_table(server.url)
    ann = seated_pages(pages, server.url, links[:1], reduced_motion=motion, **PHONE_OPTIONS)[0]
    assert ann.evaluate("() => window.scrollY") == 0
    play_friend_game(server.url, grant, 3, lambda state: False)
    ann.wait_for_selector('#status[data-status="over"]')
    sync_api.expect(ann.locator("#result")).to_be_in_viewport(ratio=0.95)
    assert ann.get_attribute("#result", "data-revealed") == ("auto" if motion == "reduce" else "smooth")


def test_the_round_end_box_is_scrolled_into_view(pages: Browser, server: LiveServer, sync_api: Any) -> None:
    """A screen too short for the board and the prompt: when the first round of two ends, the
    prompt saying so (with Continue) comes into view."""
    grant, links = open_friend_table(server.url, rounds=2)
    ann = seated_pages(pages, server.url, links[:1], viewport={"width": 800, "height": 480},
                       reduced_motion="reduce")[0]
    play_friend_game(server.url, grant, 4, lambda state: state["round_end"] is not None)
    ann.wait_for_selector("#prompt .round-over")
    sync_api.expect(ann.locator("#continue")).to_be_in_viewport(ratio=1)
    assert ann.get_attribute("#prompt", "data-revealed") == "auto"


# ---------------------------------------------------------------------- the last turn


@pytest.mark.parametrize("viewport", [PHONE, {"width": 390, "height": 844}])
def test_the_last_turn_line_is_not_hidden_on_a_phone(
        pages: Browser, server: LiveServer, viewport: dict[str, int]) -> None:
    """After the AI's turns, the line naming its last turn wraps within its box and is on the
    screen, drawn over by nothing, wherever the page is scrolled (it was behind the docked hand)."""
    page = pages.page(viewport=viewport, is_mobile=True, has_touch=True, reduced_motion="reduce")
    create_table(page, server.url, "Pia", "base")
    for _ in range(6):
        play_a_card(page)
    page.wait_for_function("() => document.querySelector('#status').dataset.mine === '1'")
    assert page.inner_text("#last-turn").startswith("AI (easy)'s last turn: played ")
    assert page.evaluate(WRAPS, "#last-turn")
    for where in ("0", "document.querySelector('#board').getBoundingClientRect().top + window.scrollY",
                  "document.body.scrollHeight"):
        page.evaluate(f"() => window.scrollTo(0, {where})")
        assert page.evaluate(UNCOVERED, "#last-turn"), where


# ---------------------------------------------------------------------- sounds


def mine(state: dict[str, Any]) -> bool:
    """Whether the decision is the seat's in its state message."""
    return state["status"] == "playing" and bool(state["legal"])


class SoundOracle:
    """After each move of ``play_friend_game`` (called with Ann's state): the sounds each page
    must have chosen by now, checked once the page has drawn that state. Ann (seat 0): a claim,
    else the turn becoming hers, else a move of Bob's; a spectator: a claim, else a move."""

    def __init__(self, ann: Any, watcher: Any) -> None:
        self.pages = {"ann": ann, "watcher": watcher}
        self.before: dict[str, Any] | None = None
        self.expected: dict[str, list[str]] = {"ann": [], "watcher": []}
        self.moments = 0

    def __call__(self, state: dict[str, Any]) -> bool:
        if self.before is None:
            self.expected["ann"] = ["turn"] if mine(state) else []
        else:
            self._expect(self.before, state)
        for name, page in self.pages.items():
            page.wait_for_selector(f'#status[data-version="{state["version"]}"]', state="attached")
            sounds = page.evaluate("() => window.schotten.signals.sounds")
            told = state["log"][len(self.before["log"]):] if self.before else []
            assert sounds == self.expected[name], (name, told)
        self.before = state
        return False

    def _expect(self, before: dict[str, Any], state: dict[str, Any]) -> None:
        fresh = state["log"][len(before["log"]):]
        claim = any(move["kind"] == "claim" for move in fresh)
        turn = mine(state) and not mine(before)
        bobs = any(move["mover"] == 1 for move in fresh)
        ann = "claim" if claim else "turn" if turn else "move" if bobs else None
        if ann:
            self.expected["ann"].append(ann)
        self.expected["watcher"].append("claim" if claim else "move")
        self.moments += 1


def test_each_moment_gets_its_own_sound(pages: Browser, server: LiveServer) -> None:
    """A whole game, move by move: with the sound on, Ann's page chooses the claim sound for a
    claim (hers too), the turn sound when the decision becomes hers, the move sound for Bob's
    other moves, none for her own; a spectator's page a claim or a move sound for every move. A
    page whose sound is off (the default) chooses none."""
    grant, links = open_friend_table(server.url)
    ann = seated_pages(pages, server.url, links[:1], init_script=SOUND_ON)[0]
    watcher, quiet = pages.page(), pages.page()
    watcher.add_init_script(SOUND_ON)
    for page in (watcher, quiet):
        page.goto(f"{server.url}/game/{grant['id']}")
        page.wait_for_selector("#status[data-version]")
    oracle = SoundOracle(ann, watcher)
    play_friend_game(server.url, grant, 6, oracle)
    assert {"claim", "turn", "move"} <= set(oracle.expected["ann"]), oracle.expected["ann"]
    assert oracle.moments > 20
    quiet.wait_for_selector('#status[data-status="over"]', state="attached")
    assert quiet.evaluate("() => window.schotten.signals.sounds") == []
    assert quiet.get_attribute("#sound", "aria-pressed") == "false"
