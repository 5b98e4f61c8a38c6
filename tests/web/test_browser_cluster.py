"""A newcomer plays on a site of three server processes behind nginx (issue 16), from two browsers.

Ann opens a friend table from the lobby at nginx's address, Bob joins it with the invite link, and
they play card after card by clicking; each page shows the other's plays, whichever processes their
sockets are on. The process serving Ann's socket is then killed: her page says it is reconnecting,
comes back through nginx on another process, and play goes on. If Bob's socket survived, his
process is killed next, so both pages have lost and found their server. At the end the game's
version through the API equals what both pages show. Which process holds a socket is read from
the servers' logs (uvicorn logs each accepted socket with its path).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import MY_DECISION, Browser, create_table, play_a_card
from cluster import Cluster

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

PROCESSES = 3
TURNS = 3
"""Plays each player makes between two events (the start, each kill)."""
LOG_TIMEOUT = 10.0
"""Seconds a server has to log a socket the page opened."""
BANNERS = """
window.banners = [];
document.addEventListener('DOMContentLoaded', () => {
  const node = document.getElementById('conn');
  if (!node) return;
  const seen = () => { if (!node.hidden && node.textContent) window.banners.push(node.textContent); };
  new MutationObserver(seen).observe(node, {attributes: true, childList: true, characterData: true});
});
"""
"""A page script: every text the connection banner (#conn) shows, in ``window.banners``."""
PAGE_STATE = """() => JSON.stringify({status: {...document.querySelector('#status').dataset},
  log: window.schotten.state.log.map((entry) => entry.action), banners: window.banners,
  message: document.querySelector('#message').innerText})"""
"""A page script: what a page shows, for failure messages."""
LOG_TAIL = 1500
RECONNECTING = "() => window.banners.some((text) => text.includes('reconnecting'))"


@pytest.fixture
def cluster(sync_api: Any) -> Iterator[Cluster]:
    """Three servers on a private PostgreSQL and Redis, nginx before them."""
    with Cluster() as started:
        started.start(processes=PROCESSES)
        yield started


def sockets_accepted(cluster: Cluster, game_id: str) -> list[int]:
    """How many sockets of the game each server has accepted so far (its log, every start)."""
    line = f'"WebSocket /ws/games/{game_id}" [accepted]'
    return [cluster.logs(index).count(line) for index in range(PROCESSES)]


def new_socket(cluster: Cluster, game_id: str, before: list[int]) -> int:
    """The server that accepted the game's one socket opened since the counts ``before``."""
    deadline = time.monotonic() + LOG_TIMEOUT
    while time.monotonic() < deadline:
        grown = [i for i, (now, was) in enumerate(zip(sockets_accepted(cluster, game_id), before,
                                                      strict=True)) if now > was]
        if grown:
            assert len(grown) == 1, f"sockets opened on servers {grown}, one expected\n{cluster.describe()}"
            return grown[0]
        time.sleep(0.05)
    raise AssertionError(f"no server logged the new socket within {LOG_TIMEOUT:g} s\n{cluster.describe()}")


def take_seat(page: Any, game_id: str, nickname: str) -> None:
    """On the invite link's page (its Join form shown): take the free seat with ``nickname``."""
    page.fill("#join-nickname", nickname)
    page.click("#join-button")
    page.wait_for_url(f"**/game/{game_id}")
    page.wait_for_selector('#status[data-status="playing"]')


def version(page: Any) -> int:
    """The game's version the page shows."""
    return int(page.get_attribute("#status", "data-version"))


def move(mover: Any, other: Any) -> None:
    """The mover decides by clicking (the first claim the page offers, else a card, see
    ``play_a_card``); the other page then shows the same version and the move: the card on the
    mover's side of its stone, or the stone as the mover's."""
    mover.wait_for_function(MY_DECISION)
    claim = mover.locator('#prompt [data-action^="claim"]')
    if claim.count():
        before = version(mover)
        claim.first.click()
        mover.wait_for_function(f"() => document.querySelector('#status').dataset.version !== '{before}'")
    else:
        play_a_card(mover)
    now = version(mover)
    action = str(mover.evaluate("() => window.schotten.state.log.at(-1).action"))
    other.wait_for_function(f"() => document.querySelector('#status').dataset.version === '{now}'")
    if action.startswith("claim"):
        other.wait_for_selector(f'.col[data-stone="{action.split()[1]}"].owned-top')
    else:
        card, stone = action.split("@")
        other.wait_for_selector(f'.col[data-stone="{stone}"] .side.top .card[data-card="{card}"]')


def play_turns(players: list[Any], turns: int) -> None:
    """Each player decides ``turns`` times, in turn (see ``move``)."""
    for _ in range(2 * turns):
        mover, other = players if players[0].get_attribute("#status", "data-mine") == "1" else players[::-1]
        move(mover, other)


def kill_and_reconnect(cluster: Cluster, game_id: str, victim: int, losers: list[Any]) -> list[int]:
    """Kill server ``victim``; each page of ``losers`` (its sockets were there) says it is
    reconnecting, then its banner goes; the servers the new sockets are on."""
    before = sockets_accepted(cluster, game_id)
    for page in losers:
        page.evaluate("() => { window.banners = []; }")
    cluster.kill(victim)
    assert cluster.pid(victim) is None
    for page in losers:
        page.wait_for_function(RECONNECTING)
        page.wait_for_selector("#conn", state="hidden")
    deadline = time.monotonic() + LOG_TIMEOUT
    while sum(sockets_accepted(cluster, game_id)) - sum(before) < len(losers):
        assert time.monotonic() < deadline, f"the reconnections were not logged\n{cluster.describe()}"
        time.sleep(0.05)
    now = sockets_accepted(cluster, game_id)
    assert now[victim] == before[victim], "a socket was accepted by the killed server"
    return [i for i in range(PROCESSES) if now[i] > before[i]]


def friend_game(pages: Browser, cluster: Cluster) -> tuple[str, dict[str, Any], dict[str, int]]:
    """Ann opens a friend table from the lobby, Bob joins it with the invite link, each in a
    browser of their own: (game id, their pages by name, the server each page's socket is on)."""
    ann = pages.page()
    ann.add_init_script(BANNERS)
    game_id = create_table(ann, cluster.url, "Ann", "base", mode="friend")
    ann.wait_for_selector("#invite:not([hidden])")
    invite = ann.input_value("#invite-link")
    assert invite == f"{cluster.url}/game/{game_id}?join=1"
    where = {"Ann": new_socket(cluster, game_id, [0] * PROCESSES)}
    bob = pages.page()
    bob.add_init_script(BANNERS)
    alone = sockets_accepted(cluster, game_id)
    bob.goto(invite)
    bob.wait_for_selector("#join:not([hidden])")
    new_socket(cluster, game_id, alone)
    watching = sockets_accepted(cluster, game_id)
    take_seat(bob, game_id, "Bob")
    where["Bob"] = new_socket(cluster, game_id, watching)
    ann.wait_for_selector('#status[data-status="playing"]')
    return game_id, {"Ann": ann, "Bob": bob}, where


@contextlib.contextmanager
def explained(cluster: Cluster, players: dict[str, Any]) -> Iterator[None]:
    """On a failure, add what each page shows and the end of each server's log to the error."""
    try:
        yield
    except BaseException as error:
        for name, page in players.items():
            with contextlib.suppress(Exception):
                error.add_note(f"{name}'s page: {page.evaluate(PAGE_STATE)}")
        error.add_note(cluster.describe())
        for index in range(PROCESSES):
            error.add_note(f"server {index} log ends:\n{cluster.logs(index)[-LOG_TAIL:]}")
        raise


def test_a_newcomer_plays_across_processes_and_survives_a_killed_one(pages: Browser,
                                                                      cluster: Cluster) -> None:
    """Play goes on through nginx while the processes under the pages' sockets are killed."""
    started = time.monotonic()
    players: dict[str, Any] = {}
    with explained(cluster, players):
        game_id, found, where = friend_game(pages, cluster)
        players.update(found)
        both = list(players.values())
        play_turns(both, TURNS)
        first = where["Ann"]
        lost = [name for name in players if where[name] == first]
        landed = kill_and_reconnect(cluster, game_id, first, [players[name] for name in lost])
        play_turns(both, TURNS)
        if "Bob" not in lost:
            second = where["Bob"]
            lost = ["Bob"] if landed != [second] else ["Ann", "Bob"]
            kill_and_reconnect(cluster, game_id, second, [players[name] for name in lost])
            play_turns(both, TURNS)
        status, summary = cluster.request("GET", f"/api/games/{game_id}")
        assert status == 200, summary
        shown = [version(page) for page in both]
        assert shown == [summary["version"]] * 2, f"the API says {summary}, the pages show {shown}"
        assert summary["version"] >= 4 * TURNS
    assert time.monotonic() - started < 60, "the game took longer than a minute"
