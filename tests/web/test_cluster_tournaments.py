"""A tournament on three processes behind nginx (one PostgreSQL, Redis): the process whose director
runs an arena is killed mid-event, and another process's director takes it over within the lease,
pairing the players who wait, none of them twice at once (issue 28); the tournament's socket on one
process hears the events made on another (Redis pub/sub, the cluster event ``tournament``)."""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from cluster import Cluster
from helpers_web import choose
from sqlalchemy import select
from websockets.asyncio.client import connect

from schotten.web.players.accounts import Accounts
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.storage.db import TournamentGameRow, TournamentRow
from schotten.web.storage.store import Store

LEASE = 2.0


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """Three servers behind nginx whose directors look often and hold a tournament for ``LEASE`` s."""
    env = {"SCHOTTEN_TOURNAMENT_LEASE": str(LEASE), "SCHOTTEN_TOURNAMENT_EVERY": "0.3"}
    with Cluster(env=env) as started:
        started.start(processes=3)
        yield started


def sessions(store: Store, names: list[str]) -> list[dict[str, str]]:
    """A session cookie header for each new account of ``names``."""
    accounts = Accounts(store, 3600.0)
    made = [accounts.sign_up(name, "a long enough password") for name in names]
    return [{"cookie": f"{SESSION_COOKIE}={accounts.new_session(account.id)}"} for account in made]


def state(store: Store, tournament_id: int) -> tuple[str | None, int, list[TournamentGameRow]]:
    """The lease holder, the waves made and the games of the tournament."""
    with store.use() as session:
        row = session.get(TournamentRow, tournament_id)
        assert row is not None
        games = list(session.scalars(select(TournamentGameRow)
                                     .where(TournamentGameRow.tournament_id == tournament_id)))
        return row.lease, row.round, games


def wait_for(store: Store, tournament_id: int, games: int, timeout: float = 20.0) -> None:
    """Until the tournament has ``games`` games."""
    deadline = time.monotonic() + timeout
    while len(state(store, tournament_id)[2]) < games:
        assert time.monotonic() < deadline, f"the arena did not reach {games} games"
        time.sleep(0.2)


def check_once(store: Store, tournament_id: int) -> None:
    """No player in two games at once; each wave stored once."""
    _, waves, games = state(store, tournament_id)
    busy: dict[int, int] = defaultdict(int)
    for game in games:
        for player in (game.account0, game.account1):
            busy[player or 0] += game.ended is None
    assert max(busy.values()) == 1
    assert waves == len({game.round for game in games})


def test_the_arena_goes_on_when_its_director_is_killed(cluster: Cluster) -> None:
    store = Store(cluster.database_url)
    try:
        first = sessions(store, [f"early{i}" for i in range(5)])
        status, made = cluster.request("POST", "/api/tournaments", {
            "format": "arena", "name": "Killed halfway", "clock": {"initial": 600, "increment": 5},
            "starts_in": 0, "minutes": 30}, headers=first[0])
        assert status == 201, made
        tid = made["id"]
        for headers in first:
            assert cluster.request("POST", f"/api/tournaments/{tid}/join", headers=headers)[0] == 200
        wait_for(store, tid, 2)
        check_once(store, tid)
        holder = state(store, tid)[0]
        assert holder is not None
        [killed] = [i for i in range(3) if str(cluster.pid(i)) == holder.split("-")[0]]
        cluster.kill(killed)
        late = sessions(store, [f"late{i}" for i in range(3)])
        alive = next(i for i in range(3) if i != killed)
        for headers in late:
            joined = cluster.request("POST", f"/api/tournaments/{tid}/join", headers=headers, server=alive)
            assert joined[0] == 200, joined
        started = time.monotonic()
        wait_for(store, tid, 4, timeout=LEASE * 5)
        assert time.monotonic() - started < LEASE * 5
        check_once(store, tid)
        after = state(store, tid)[0]
        assert after is not None and after != holder
        status, view = cluster.request("GET", f"/api/tournaments/{tid}", server=alive)
        assert status == 200 and view["status"] == "started" and len(view["games"]) == 4
    finally:
        store.close()


async def next_of(socket: Any, kind: str, timeout: float = 20.0) -> dict[str, Any]:
    """The socket's next message, which must be of ``kind``."""
    message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), timeout))
    assert message["type"] == kind, message
    return message


async def until_paired(socket: Any, timeout: float = 20.0) -> list[dict[str, Any]]:
    """The socket's messages up to its ``paired`` and the ``standings`` after it (told at most once a
    second, so a standings change close to the pairing may come just after it)."""
    got: list[dict[str, Any]] = []
    while not any(m["type"] == "paired" for m in got):
        got.append(json.loads(await asyncio.wait_for(socket.recv(), timeout)))
    return got + await quiet(socket)


async def quiet(socket: Any, silence: float = 2.5, timeout: float = 20.0) -> list[dict[str, Any]]:
    """The socket's messages until none came for ``silence`` seconds."""
    got: list[dict[str, Any]] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        try:
            got.append(json.loads(await asyncio.wait_for(socket.recv(), silence)))
        except TimeoutError:
            break
    return got


def test_the_tournament_socket_hears_events_made_on_other_processes(cluster: Cluster) -> None:
    """Joins made through server 0 reach a guest's socket on server 2 and Ann's on server 1; the wave
    some process's director pairs reaches Ann's socket as ``paired`` with her table, the guest's only as
    ``standings``."""
    store = Store(cluster.database_url)
    try:
        ann, bob = sessions(store, ["Ann", "Bob"])
        status, made = cluster.request("POST", "/api/tournaments", {
            "format": "arena", "name": "Heard everywhere", "clock": {"initial": 600, "increment": 5},
            "starts_in": 3, "minutes": 30}, headers=ann)
        assert status == 201, made
        tid = made["id"]

        def url(server: int) -> str:
            return cluster.server_urls[server].replace("http://", "ws://") + f"/ws/tournaments/{tid}"

        async def run() -> dict[str, Any]:
            async with connect(url(2)) as guest, connect(url(1), additional_headers=ann) as anns:
                assert (await next_of(guest, "hello"))["player"] is None
                assert (await next_of(anns, "hello"))["player"] == "Ann"
                for headers in (ann, bob):
                    joined = await asyncio.to_thread(cluster.request, "POST", f"/api/tournaments/{tid}/join",
                                                     None, 0, headers)
                    assert joined[0] == 200, joined
                heard = await until_paired(anns)
                assert {m["type"] for m in heard} == {"standings", "paired"}, heard
                assert all(m["tournament"] == tid for m in heard)
                seen = await quiet(guest)
                assert seen and {m["type"] for m in seen} == {"standings"}, seen
                return next(m for m in heard if m["type"] == "paired")

        paired = asyncio.run(run())
        assert paired["url"] == f"/game/{paired['game']}"
        games = state(store, tid)[2]
        assert [g.game_id for g in games] == [paired["game"]]
    finally:
        store.close()


def joined_ticket(cluster: Cluster, tid: int, headers: dict[str, str], server: int) -> str:
    """Join the tournament through ``server``: the browser's ticket (its seat token) from the cookie."""
    request = urllib.request.Request(f"{cluster.server_urls[server]}/api/tournaments/{tid}/join", data=b"{}",
                                     method="POST", headers={"content-type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=10) as answer:
        cookies = answer.headers.get_all("set-cookie") or []
    [ticket] = [c.split(";")[0].split("=", 1)[1] for c in cookies if c.startswith(f"tournament_{tid}=")]
    return ticket


async def next_state(socket: Any) -> dict[str, Any]:
    """The socket's next state message (presence and chat passed over)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 20.0))
        if message["type"] == "state":
            return message
        assert message["type"] in ("presence", "chat"), message


async def pass_turn(socket: Any, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """Make ``seat``'s decisions (a random legal one each) until the other seat is to decide."""
    rng = random.Random(seat)
    while state["clock_running"] == seat:
        await socket.send(json.dumps({"type": "action", "action": choose(state, rng),
                                      "version": state["version"]}))
        state = await next_state(socket)
    return state


def test_a_berserk_through_one_process_holds_on_the_processes_serving_the_seats(cluster: Cluster) -> None:
    """The seats' sockets are on servers 1 and 2, the berserk goes through server 0: both copies read
    the halved clock, the berserk seat's turn (made on its process) gains no increment, the other's
    gains its 5 s."""
    store = Store(cluster.database_url)
    try:
        heads = sessions(store, ["Ann", "Bob"])
        status, made = cluster.request("POST", "/api/tournaments", {
            "format": "arena", "name": "Berserk", "clock": {"initial": 600, "increment": 5},
            "starts_in": 0, "minutes": 30}, headers=heads[0])
        assert status == 201, made
        tid = made["id"]
        tickets = [joined_ticket(cluster, tid, headers, 0) for headers in heads]
        wait_for(store, tid, 1)
        [row] = state(store, tid)[2]
        assert row.game_id is not None
        game_id = row.game_id

        def url(server: int, player: int) -> str:
            base = cluster.server_urls[server].replace("http://", "ws://")
            return f"{base}/ws/games/{game_id}?token={tickets[player]}"

        ann = Accounts(store, 3600.0).by_name("Ann")
        assert ann is not None
        ann_seat = 0 if row.account0 == ann.id else 1

        async def run() -> int:
            async with connect(url(1, 0)) as on1, connect(url(2, 1)) as on2:
                sockets = {ann_seat: on1, 1 - ann_seat: on2}
                states = {seat: await next_state(socket) for seat, socket in sockets.items()}
                mover = states[ann_seat]["clock_running"]
                answer = await asyncio.to_thread(cluster.request, "POST", f"/api/tournaments/{tid}/berserk",
                                                 None, 0, heads[0] if mover == ann_seat else heads[1])
                assert answer[0] == 200, answer
                for seat, socket in sockets.items():
                    states[seat] = await next_state(socket)
                    assert states[seat]["clocks"][mover] <= 300_000, "a copy kept the whole clock"
                await pass_turn(sockets[mover], states[mover], mover)
                other = await next_state(sockets[1 - mover])
                while other["clock_running"] != 1 - mover:
                    other = await next_state(sockets[1 - mover])
                await pass_turn(sockets[1 - mover], other, 1 - mover)
                return mover

        mover = asyncio.run(run())
        loaded = store.load(game_id)
        assert loaded is not None and loaded[0].clock is not None
        info, entries = loaded
        spent = [sum(e.spent_ms or 0 for e in entries if e.seat == seat) for seat in (0, 1)]
        assert info.clock is not None and info.clock.no_increment[mover]
        assert abs(info.clock.left[mover] - (300_000 - spent[mover])) <= 2, ("gained", info.clock)
        assert abs(info.clock.left[1 - mover] - (600_000 - spent[1 - mover] + 5_000)) <= 2, info.clock
    finally:
        store.close()
