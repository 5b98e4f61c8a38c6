"""Challenges across processes: the challenged player's socket on one server hears a challenge sent
through another, and the challenger's socket on a third hears it accepted (Redis pub/sub, the
cluster event ``player``). Uses the cluster harness (``cluster.py``): skipped without PostgreSQL,
Redis and nginx."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import Cluster
from websockets.asyncio.client import connect

from schotten.web.players.accounts import Accounts
from schotten.web.storage.store import Store

WAIT = 20.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Three servers behind nginx."""
    with Cluster() as started:
        started.start(processes=3)
        yield started


def session_of(cluster: Cluster, name: str) -> str:
    """A new account called ``name`` and a session of it: the session cookie's value."""
    store = Store(cluster.database_url)
    try:
        accounts = Accounts(store, 3600.0)
        return accounts.new_session(accounts.sign_up(name, "a long password").id)
    finally:
        store.close()


def me_url(cluster: Cluster, server: int) -> str:
    """The player socket of server ``server``."""
    return cluster.server_urls[server].replace("http://", "ws://") + "/ws/me"


async def next_of(socket: Any, kind: str) -> dict[str, Any]:
    """The socket's next message, which must be of ``kind``."""
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
    assert message["type"] == kind, message
    return message


def test_a_challenge_and_its_acceptance_reach_sockets_on_other_processes(cluster: Cluster) -> None:
    ann, bob = session_of(cluster, "Ann"), session_of(cluster, "Bob")

    async def run() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        async with connect(me_url(cluster, 1), additional_headers={"Cookie": f"session={bob}"}) as bobs, \
                connect(me_url(cluster, 2), additional_headers={"Cookie": f"session={ann}"}) as anns:
            await next_of(bobs, "hello")
            await next_of(anns, "hello")
            status, sent = await asyncio.to_thread(
                cluster.request, "POST", "/api/challenges", {"player": "Bob", "clock": {"days": 1}}, 0,
                {"Cookie": f"session={ann}"})
            assert status == 201, sent
            heard = await next_of(bobs, "challenge")
            status, accepted = await asyncio.to_thread(
                cluster.request, "POST", f"/api/challenges/{sent['id']}/accept", {}, 0,
                {"Cookie": f"session={bob}"})
            assert status == 200, accepted
            told = await next_of(anns, "challenge_accepted")
            return heard["challenge"], accepted, told["challenge"]

    heard, accepted, told = asyncio.run(run())
    assert heard["challenger"] == "Ann" and heard["clock"] == {"days": 1}
    assert told["url"] == accepted["url"] == f"/game/{accepted['game']}"
