"""A ban across processes (``games.closing``, the cluster event ``close``): the banned player's game
socket and player socket on one server are closed when a moderator bans them through another, and
their game in progress ends as a loss by forfeit (ending ``banned``), which their opponent's socket on
a third server hears. Uses the cluster harness (``cluster.py``): skipped without PostgreSQL, Redis and
nginx."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import Cluster
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from schotten.web.games.closing import BANNED_CLOSE
from schotten.web.moderation.roles import set_moderator
from schotten.web.players.accounts import Accounts
from schotten.web.storage.store import Store

WAIT = 20.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Three servers behind nginx."""
    with Cluster() as started:
        started.start(processes=3)
        yield started


def sessions(cluster: Cluster, *names: str) -> dict[str, str]:
    """New accounts called ``names`` and a session of each (the session cookie's value); the last
    one a moderator."""
    store = Store(cluster.database_url)
    try:
        accounts = Accounts(store, 3600.0)
        found = {name: accounts.new_session(accounts.sign_up(name, "a long password").id) for name in names}
        set_moderator(store, names[-1], True)
        return found
    finally:
        store.close()


def cookie(session: str) -> dict[str, str]:
    """The headers of a request of that session."""
    return {"Cookie": f"session={session}"}


def socket_url(cluster: Cluster, server: int, path: str) -> str:
    """The socket ``path`` of server ``server``."""
    return cluster.server_urls[server].replace("http://", "ws://") + path


async def closed_with(socket: Any) -> int:
    """The code the server closes ``socket`` with (the messages before it read and passed over)."""
    try:
        while True:
            await asyncio.wait_for(socket.recv(), WAIT)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "the server did not close the socket"
        return int(closed.rcvd.code)


async def until_over(socket: Any) -> dict[str, Any]:
    """The socket's states until the game is over: the last one."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        if message["type"] == "state" and message["status"] == "over":
            return message


def test_a_ban_on_one_process_closes_the_sockets_on_another_and_the_game_is_forfeited(
        cluster: Cluster) -> None:
    """Bob plays Ann: Bob's sockets are on server 1, Ann's on server 2, the moderator bans Bob on
    server 0. Bob's game socket and player socket close with ``BANNED_CLOSE``; Ann wins by forfeit."""
    who = sessions(cluster, "Ann", "Bob", "Carol")
    status, table = cluster.request("POST", "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend",
                                                            "seat": 0}, 2, cookie(who["Ann"]))
    assert status == 200, table
    status, joined = cluster.request("POST", f"/api/tables/{table['id']}/join", {}, 1, cookie(who["Bob"]))
    assert status == 200, joined
    game = f"/ws/games/{table['id']}"

    async def run() -> tuple[int, int, dict[str, Any]]:
        bob = cookie(who["Bob"])
        async with connect(socket_url(cluster, 1, game), additional_headers=bob) as bobs_game, \
                connect(socket_url(cluster, 1, "/ws/me"), additional_headers=bob) as bobs_own, \
                connect(socket_url(cluster, 2, f"{game}?token={table['token']}")) as anns_game:
            for socket in (bobs_game, anns_game):
                assert json.loads(await asyncio.wait_for(socket.recv(), WAIT))["status"] == "playing"
            assert json.loads(await asyncio.wait_for(bobs_own.recv(), WAIT))["type"] == "hello"
            status, taken = await asyncio.to_thread(
                cluster.request, "POST", "/api/moderation/actions",
                {"player": "Bob", "action": "ban", "note": "cheating"}, 0, cookie(who["Carol"]))
            assert status == 200, taken
            return await asyncio.gather(closed_with(bobs_game), closed_with(bobs_own), until_over(anns_game))

    game_closed, own_closed, last = asyncio.run(run())
    assert game_closed == own_closed == BANNED_CLOSE
    assert last["ended"] == {"reason": "banned", "seat": 1}, last["ended"]
    status, summary = cluster.request("GET", f"/api/games/{table['id']}", server=1)
    assert status == 200 and summary["status"] == "over" and summary["winner"] == 0, summary
