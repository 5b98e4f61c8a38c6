"""Browser test of issue 29's done-when, "a blind player can play a rated game to its end": Ann, signed
in, hears Bob's rated challenge on the lobby, reaches its Accept button with Tab and takes it with
Enter; at the table she turns the screen-reader mode on with the keyboard and plays the whole game by
typed commands, reading only the text the mode gives (the table in words, the live region). Bob, in a
browser of his own, plays seeded legal moves in the same mode. At the end Ann's page says the result,
and her rating in the pool of the game's clock counts one rated game."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Browser, LiveServer
from helpers_ratings import POOL, sign_up
from test_browser_blind import LIVE, MOVES_LIMIT, ORDERS, READY, SAID, TURN, choose, type_command
from test_browser_challenges import signed_in

from schotten.web.storage.store import Store

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

TAB_LIMIT = 120
"""The most Tab presses a control may take to reach: a guard against a control Tab never reaches."""
ACCEPT_WITHIN = 12
"""The tray of challenges follows the top bar: its Accept is a few Tab presses away, not the whole page."""
CHALLENGE = {"player": "Ann", "variant": "base", "clock": {"initial": 300, "increment": 5}, "rated": True,
             "seat": 1}
"""Bob's challenge: a rated base game at 5+5, Bob in seat 1 (so the game is the same on every run)."""
ENDS = {"You win the match!": "wins", "Bob wins the match.": "losses", "The match is drawn.": "draws"}
"""What Ann's live region says last at the end of the match, and the count of her rating it adds to."""
SEND = ("async (body) => { const answer = await fetch('/api/challenges', { method: 'POST', headers: "
        "{ 'Content-Type': 'application/json' }, body: JSON.stringify(body) }); return answer.status; }")
VERSION = "() => document.querySelector('#status').dataset.version"
SETTLED = ("(version) => document.querySelector('#status').dataset.version === version"
           " && !document.body.classList.contains('pending')")


@pytest.fixture
def server(sync_api: Any, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, its games seeded from 2931."""
    with LiveServer(tmp_path / "games.db", tmp_path / "server.log", seed=2931) as live:
        yield live


@pytest.fixture
def store(server: LiveServer) -> Iterator[Store]:
    """A store on the live server's database file (the server made its tables)."""
    opened = Store(f"sqlite:///{server.database}")
    yield opened
    opened.close()


def tab_to(page: Any, script: str) -> int:
    """Press Tab until the focused element passes ``script`` (a test of ``document.activeElement``):
    the presses it took."""
    focused = f"() => {{ const node = document.activeElement; return Boolean(node && ({script})); }}"
    for presses in range(TAB_LIMIT):
        if page.evaluate(focused):
            return presses
        page.keyboard.press("Tab")
    pytest.fail(f"Tab never reached {script}")


def accept_by_keyboard(ann: Any) -> None:
    """Ann hears the challenge (its tray is a live region), Tabs to its Accept button and presses
    Enter; she lands at the table, seated."""
    ann.wait_for_selector(".challenge")
    assert ann.get_attribute("#challenges", "aria-live") == "polite"
    assert ann.inner_text(".challenge p") == "Bob challenges you: Base game · 5+5 · rated"
    presses = tab_to(ann, "node.classList.contains('challenge-accept')")
    assert presses <= ACCEPT_WITHIN, f"{presses} Tab presses to reach Accept"
    ann.keyboard.press("Enter")
    ann.wait_for_url("**/game/*")
    ann.wait_for_selector("#status[data-version]")


def blind_by_keyboard(page: Any) -> None:
    """Turn the screen-reader mode on with the keyboard: Tab to its button (the first stop), Enter."""
    tab_to(page, "node.id === 'blind-toggle'")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'blind-command'")


def bob_move(orders: list[str], rng: random.Random) -> str:
    """Bob's command: a claim first, else a seeded choice among the orders (in notation)."""
    actions = [order.split(": ", 1)[0] for order in orders]
    claims = [action for action in actions if action.startswith("claim")]
    return claims[0] if claims else rng.choice(actions)


def play_to_the_end(ann: Any, bob: Any) -> int:
    """Ann and Bob play until Ann's page says the game is over: Ann types with the keyboard what she
    reads (``choose``), Bob types his seeded choice; after each command both pages are waited for at
    the state it made. How many commands Ann typed."""
    rng, typed = random.Random(29), 0
    for _ in range(MOVES_LIMIT):
        if ann.evaluate(TURN) == "Game over":
            return typed
        mover = ann if ann.evaluate(ORDERS) else bob
        mover.wait_for_function(READY)
        before, heard = mover.evaluate(VERSION), mover.evaluate(SAID)
        if mover is ann:
            type_command(ann, choose(ann.evaluate(ORDERS), typed))
            typed += 1
        else:
            bob.fill("#blind-command", bob_move(bob.evaluate(ORDERS), rng))
            bob.press("#blind-command", "Enter")
        mover.wait_for_function(f"() => ({SAID})() > {heard} && ({VERSION})() !== {json.dumps(before)}")
        version = mover.evaluate(VERSION)
        for page in (ann, bob):
            page.wait_for_function(SETTLED, arg=version)
    pytest.fail("the game did not end")


def test_a_blind_player_accepts_a_rated_challenge_and_plays_it_to_its_end(pages: Browser, server: LiveServer,
                                                                          store: Store) -> None:
    sign_up(store, "Ann", "Bob")
    ann = signed_in(pages, server, "Ann", "/")
    bob = signed_in(pages, server, "Bob", "/")
    assert bob.evaluate(SEND, CHALLENGE) == 201
    accept_by_keyboard(ann)
    bob.wait_for_url(ann.url)
    bob.wait_for_selector("#status[data-version]")
    blind_by_keyboard(ann)
    bob.focus("#blind-toggle")
    bob.keyboard.press("Enter")
    game = ann.url.split("/game/")[1]
    ann.wait_for_selector("#players-line .tag.rated")
    assert ann.is_visible("#players-line") and ann.inner_text("#players-line").endswith("Rated")
    typed = play_to_the_end(ann, bob)
    assert typed >= 3
    said = ann.evaluate(LIVE)
    assert said[-1] in ENDS, said
    assert ann.evaluate(TURN) == "Game over"
    table = ann.evaluate(f"async () => (await fetch('/api/games/{game}')).json()")
    assert table["rated"] and table["unrated_reason"] is None, table
    ratings = ann.evaluate("async () => (await (await fetch('/api/players/ann')).json()).ratings")
    assert list(ratings) == [POOL], ratings
    rating = ratings[POOL]
    assert rating["games"] == 1 and rating[ENDS[said[-1]]] == 1 and rating["rating"] != 1500, rating
