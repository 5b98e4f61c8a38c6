"""Several server processes on one PostgreSQL and one Redis, behind nginx (tests/web/cluster.py): a
game whose seats and spectator sit on three processes, two processes taking the same decision at
once, the conductor killed in the middle of an AI game, Redis and PostgreSQL stopped and started.

Every socket's state messages are checked against what one process would have sent: for each
version, the seat's view of the game the stored log leads to (R10), its legal actions, and the
public log put together from the messages' ``log_from`` and ``log``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from cluster import Cluster, free_port
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from sqlalchemy import text
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from schotten.engine.view import public_log, view
from schotten.web.cluster.peers import CONDUCTOR, REDIS_LOST_CLOSE
from schotten.web.edge.quotas import Rates, shared_limiter
from schotten.web.games.gamelog import replay
from schotten.web.games.outbound import encode, wire_view
from schotten.web.storage.pglock import SERVING
from schotten.web.storage.rows import Entry
from schotten.web.storage.store import Store

WAIT = float(__import__("os").environ.get("T_WAIT", "20"))
"""Seconds a socket may wait for its next message before the test fails."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Three servers behind nginx, for the whole module (each test puts back what it broke)."""
    with Cluster() as started:
        started.start(processes=3)
        yield started


@pytest.fixture(autouse=True)
def server_errors(cluster: Cluster) -> Iterator[None]:
    """A failing test shows what the servers logged beyond their access lines."""
    marks = [len(cluster.logs(i)) for i in range(3)]
    try:
        yield
    except BaseException:
        raise
    finally:
        for index, mark in enumerate(marks):
            lines = [line for line in cluster.logs(index)[mark:].splitlines() if "INFO:" not in line]
            if lines:
                print(f"--- server {index}:", *lines[-40:], sep="\n")


@pytest.fixture(scope="module")
def store(cluster: Cluster) -> Iterator[Store]:
    """The cluster's database, read by the tests."""
    opened = Store(cluster.database_url)
    yield opened
    opened.close()


@dataclass
class Client:
    """One socket of a game: its seat (None: a spectator) and every state message it got."""

    socket: ClientConnection
    seat: int | None
    states: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)

    async def next_state(self, version: int = 0) -> dict[str, Any]:
        """The newest state message if it is of at least ``version``, else the next such one (errors
        kept, chat and presence passed over)."""
        while not self.states or self.states[-1]["version"] < version:
            self.take(await self.receive())
        return self.states[-1]

    async def receive(self) -> dict[str, Any]:
        """The socket's next message."""
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.socket.recv(), WAIT))
        return message

    def take(self, message: dict[str, Any]) -> None:
        """Keep a state message (its log too) or an error."""
        if message["type"] == "error":
            self.errors.append(message)
        elif message["type"] == "state":
            self.states.append(message)
            self.log = self.log[:message["log_from"]] + message["log"]

    async def error(self) -> dict[str, Any]:
        """The next error message."""
        count = len(self.errors)
        while len(self.errors) == count:
            self.take(await self.receive())
        return self.errors[-1]


def ws_url(base: str, game_id: str, token: str | None = None) -> str:
    """The game socket's address at ``base`` (a server or nginx), with a seat's token."""
    url = f"{base.replace('http://', 'ws://')}/ws/games/{game_id}"
    return url if token is None else f"{url}?token={token}"


def friend_table(cluster: Cluster, server: int | None = None,
                 joiner: int | None = None) -> tuple[str, list[str]]:
    """A friend table opened through ``server`` (None: nginx) and joined through ``joiner``: its id and
    the tokens of seats 0 and 1."""
    status, table = cluster.request("POST", "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend",
                                                            "nickname": "Ann"}, server=server)
    assert status == 200, table
    status, guest = cluster.request("POST", f"/api/tables/{table['id']}/join", {"nickname": "Bob"},
                                    server=joiner)
    assert status == 200, guest
    tokens = {table["seat"]: table["token"], guest["seat"]: guest["token"]}
    return table["id"], [tokens[0], tokens[1]]


def entries_of(store: Store, game_id: str) -> tuple[Any, list[Entry]]:
    """The game's row and its whole log, checked to have no gap and no double."""
    loaded = store.load(game_id)
    assert loaded is not None
    info, entries = loaded
    assert [entry.index for entry in entries] == list(range(len(entries)))
    return info, entries


def check_as_one_process(client: Client, info: Any, entries: list[Entry]) -> None:
    """Each state message the client got holds, for its version, the view (R10) and the legal actions
    one process would have sent, in order; its log, put together, is the game's public log."""
    versions = [state["version"] for state in client.states]
    assert versions == sorted(versions), versions
    assert versions[-1] == len(entries)
    for state in client.states:
        at = replay(info.variant, info.rounds, info.seed, entries[: state["version"]])
        seen = view(at, client.seat)
        assert state["view"] == json.loads(encode(wire_view(seen))), state["version"]
    final = replay(info.variant, info.rounds, info.seed, entries)
    assert client.log == json.loads(encode(public_log(final, client.seat)))


async def play(client: Client, rng: random.Random, state: dict[str, Any]) -> None:
    """Random legal actions for the client's seat until the game is over."""
    while state["status"] != "over":
        legal = state["view"]["legal"]
        if legal and state["status"] == "playing":
            await client.socket.send(json.dumps({"type": "action", "action": rng.choice(legal),
                                                 "version": state["version"]}))
        state = await client.next_state(state["version"] + 1)


async def until_over(client: Client) -> dict[str, Any]:
    """The client's messages until the game is over: its last state."""
    state = await client.next_state()
    while state["status"] != "over":
        state = await client.next_state(state["version"] + 1)
    return state


async def watch(client: Client) -> None:
    """A spectator's messages until the game is over."""
    await until_over(client)


def test_a_game_with_its_seats_and_spectator_on_three_processes(cluster: Cluster, store: Store) -> None:
    """Seat 0 on process 0, seat 1 on process 1, a spectator on process 2: the game is played to its
    end, and every socket got what one process would have sent."""
    game_id, tokens = friend_table(cluster, server=0, joiner=1)

    async def run() -> list[Client]:
        async with connect(ws_url(cluster.server_urls[0], game_id, tokens[0])) as first, \
                connect(ws_url(cluster.server_urls[1], game_id, tokens[1])) as second, \
                connect(ws_url(cluster.server_urls[2], game_id)) as third:
            clients = [Client(first, 0), Client(second, 1), Client(third, None)]
            starts = [await clients[seat].next_state() for seat in (0, 1)]
            assert [start["status"] for start in starts] == ["playing", "playing"], \
                "a seat's first state must know of the join made through another process"
            await asyncio.gather(play(clients[0], random.Random(1), starts[0]),
                                 play(clients[1], random.Random(2), starts[1]), watch(clients[2]))
            return clients

    clients = asyncio.run(run())
    info, entries = entries_of(store, game_id)
    assert info.status == "over" and len(entries) > 20
    for client in clients:
        assert not client.errors, client.errors
        check_as_one_process(client, info, entries)


def test_one_decision_sent_to_two_processes_at_once_is_taken_once(cluster: Cluster, store: Store) -> None:
    """Seat 0 holds a socket on process 0 and one on process 1 and sends a different legal action on
    each at the same moment, again and again: each time exactly one is taken, the other is answered
    ``stale`` (with the state), and the log has no gap and no double."""
    game_id, tokens = friend_table(cluster)

    async def run() -> int:
        async with connect(ws_url(cluster.server_urls[0], game_id, tokens[0])) as a, \
                connect(ws_url(cluster.server_urls[1], game_id, tokens[0])) as b, \
                connect(ws_url(cluster.server_urls[2], game_id, tokens[1])) as other:
            twins, opponent = [Client(a, 0), Client(b, 0)], Client(other, 1)
            races = 0
            state = await twins[0].next_state()
            await twins[1].next_state()
            rng = random.Random(7)
            while state["status"] != "over" and races < 12:
                version = state["version"]
                legal = state["view"]["legal"]
                if state["view"]["turn"] == 0 and len(legal) >= 2:
                    picks = rng.sample(legal, 2)
                    await asyncio.gather(*(twin.socket.send(json.dumps(
                        {"type": "action", "action": pick, "version": version}))
                        for twin, pick in zip(twins, picks, strict=True)))
                    answers = await asyncio.gather(*(first_answer(twin, version) for twin in twins))
                    assert sorted(answers) == ["stale", "taken"], answers
                    races += 1
                elif state["view"]["turn"] == 0:
                    await twins[0].socket.send(json.dumps({"type": "action", "action": legal[0]}))
                else:
                    mine = await opponent.next_state(version)
                    await opponent.socket.send(json.dumps({"type": "action",
                                                           "action": rng.choice(mine["view"]["legal"])}))
                state = await twins[0].next_state(version + 1)
                await twins[1].next_state(version + 1)
            return races

    races = asyncio.run(run())
    assert races >= 3
    _, entries = entries_of(store, game_id)
    assert len(entries) >= races


async def first_answer(client: Client, version: int) -> str:
    """``stale`` if the client's action at ``version`` was refused so (an error, before or just after
    the state of its rival's move), else ``taken``."""
    errors = len(client.errors)
    await client.next_state(version + 1)
    try:
        async with asyncio.timeout(0.5):
            while len(client.errors) == errors:
                client.take(await client.receive())
    except TimeoutError:
        return "taken"
    return str(client.errors[-1]["code"])


def conductor(cluster: Cluster) -> int:
    """The index of the server holding the conductor's lease (it plays the AI)."""
    deadline = time.monotonic() + WAIT
    client = redis.Redis.from_url(cluster.redis_url)
    try:
        while time.monotonic() < deadline:
            holder = client.get(CONDUCTOR)
            if holder is not None:
                pid = int(holder.decode().split(":")[1])
                for index in range(len(cluster.server_urls)):
                    if cluster.pid(index) == pid:
                        return index
            time.sleep(0.1)
    finally:
        client.close()
    raise AssertionError(f"no server holds the conductor's lease: {cluster.describe()}")


def test_the_ai_game_goes_on_when_the_conductor_is_killed(cluster: Cluster, store: Store) -> None:
    """A game against the AI whose human sits on another process than the conductor: the conductor is
    killed (SIGKILL) just after the human's move, another process takes the lease and the AI plays on,
    until the game's end."""
    held = conductor(cluster)
    human = (held + 1) % 3
    status, grant = cluster.request("POST", "/api/tables", {"variant": "base", "rounds": 1, "mode": "ai",
                                                            "level": "easy", "nickname": "Ann", "seat": 0},
                                    server=human)
    assert status == 200, grant
    game_id = grant["id"]

    async def run() -> Client:
        async with connect(ws_url(cluster.server_urls[human], game_id, grant["token"])) as socket:
            client = Client(socket, 0)
            state = await client.next_state()
            rng, killed = random.Random(3), False
            while state["status"] != "over":
                legal = state["view"]["legal"]
                if legal:
                    await socket.send(json.dumps({"type": "action", "action": rng.choice(legal)}))
                    if not killed and state["version"] >= 6:
                        cluster.kill(held)
                        killed = True
                state = await client.next_state(state["version"] + 1)
            assert killed
            return client

    try:
        client = asyncio.run(run())
    finally:
        cluster.start_server(held)
    info, entries = entries_of(store, game_id)
    assert info.status == "over"
    assert {entry.seat for entry in entries} == {0, 1}
    check_as_one_process(client, info, entries)


def test_redis_stopped_then_started(cluster: Cluster, store: Store) -> None:
    """Redis stops in the middle of a game whose seats sit on two processes: their sockets are closed
    (the pages show "reconnecting"), a new socket is refused while it is down; once it is back the
    seats reconnect and finish the game, and every move a seat saw acknowledged is in the log."""
    game_id, tokens = friend_table(cluster, server=0, joiner=1)
    seen: list[int] = []

    async def half(moves: int) -> list[int]:
        async with connect(ws_url(cluster.server_urls[0], game_id, tokens[0])) as first, \
                connect(ws_url(cluster.server_urls[1], game_id, tokens[1])) as second:
            clients = [Client(first, 0), Client(second, 1)]
            states = [await client.next_state() for client in clients]
            rng = random.Random(len(seen))
            while states[0]["status"] != "over" and moves:
                turn = states[0]["view"]["turn"]
                version = states[0]["version"]
                mine = await clients[turn].next_state(version)
                await clients[turn].socket.send(json.dumps({"type": "action",
                                                            "action": rng.choice(mine["view"]["legal"])}))
                states = [await client.next_state(version + 1) for client in clients]
                seen.append(states[0]["version"])
                moves -= 1
            if moves == 0:
                cluster.stop_redis()
                codes = [await closed_with(client) for client in clients]
                assert codes == [REDIS_LOST_CLOSE] * 2, codes
            return [state["version"] for state in states]

    asyncio.run(half(10))
    assert asyncio.run(refused_socket(ws_url(cluster.server_urls[2], game_id))) == "unavailable"
    status, health = cluster.request("GET", "/healthz", server=2)
    assert status == 503 and health["redis"] != "ok", health
    cluster.start_redis()
    wait_until_sockets_open(cluster, game_id)
    wait_for_one_conductor(cluster)
    asyncio.run(half(10_000))
    info, entries = entries_of(store, game_id)
    assert info.status == "over" and seen[-1] == len(entries)


async def closed_with(client: Client) -> int | None:
    """The close code the client's socket gets."""
    try:
        while True:
            await asyncio.wait_for(client.socket.recv(), WAIT)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None


async def refused_socket(url: str) -> str | None:
    """The error code a new socket to ``url`` gets before it is closed."""
    async with connect(url) as socket:
        message = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        return str(message.get("code")) if message["type"] == "error" else None


def wait_until_sockets_open(cluster: Cluster, game_id: str) -> None:
    """Wait until every server serves the game's socket again (Redis reached once more)."""
    deadline = time.monotonic() + WAIT
    for base in cluster.server_urls:
        while asyncio.run(refused_socket(ws_url(base, game_id))) is not None:
            assert time.monotonic() < deadline, cluster.describe()
            time.sleep(0.2)


def wait_for_one_conductor(cluster: Cluster) -> None:
    """Wait until exactly one server says (``/healthz``) it is the conductor."""
    deadline = time.monotonic() + WAIT
    while True:
        answers = [cluster.request("GET", "/healthz", server=i)[1] for i in range(len(cluster.server_urls))]
        if sum(bool(answer.get("conductor")) for answer in answers) == 1:
            return
        assert time.monotonic() < deadline, answers
        time.sleep(0.2)


def test_postgresql_restarted(cluster: Cluster, store: Store) -> None:
    """PostgreSQL restarts in the middle of a game: a move sent meanwhile is refused ``unavailable``
    (nothing stored), and once it is back the same sockets finish the game with no entry lost."""
    game_id, tokens = friend_table(cluster, server=1, joiner=2)

    async def run() -> tuple[int, list[str]]:
        async with connect(ws_url(cluster.server_urls[1], game_id, tokens[0])) as first, \
                connect(ws_url(cluster.server_urls[2], game_id, tokens[1])) as second:
            clients = [Client(first, 0), Client(second, 1)]
            states = [await client.next_state() for client in clients]
            rng, restarted, refusals = random.Random(5), False, []
            while states[0]["status"] != "over":
                turn, version = states[0]["view"]["turn"], states[0]["version"]
                mine = await clients[turn].next_state(version)
                if not restarted and version >= 8:
                    marks = [cluster.logs(i).count("store error") for i in range(3)]
                    cluster.stop_postgres()
                    await clients[turn].socket.send(json.dumps({"type": "action",
                                                                "action": mine["view"]["legal"][0]}))
                    refusals.append(str((await clients[turn].error())["code"]))
                    await every_server_failed_a_call(cluster, marks)
                    cluster.start_postgres()
                    restarted = True
                action = rng.choice(mine["view"]["legal"])
                while True:
                    await clients[turn].socket.send(json.dumps({"type": "action", "action": action,
                                                                "version": version}))
                    answer = await first_answer_or_state(clients[turn], version)
                    if answer == "taken":
                        break
                    refusals.append(answer)
                    await asyncio.sleep(0.3)
                states = [await client.next_state(version + 1) for client in clients]
            return states[0]["version"], refusals

    final, refusals = asyncio.run(run())
    assert refusals and set(refusals) == {"unavailable"}, refusals
    info, entries = entries_of(store, game_id)
    assert info.status == "over" and final == len(entries)


async def every_server_failed_a_call(cluster: Cluster, marks: list[int]) -> None:
    """Wait until every server logged a failed database call since ``marks`` (its beat, at the latest:
    so each tried to renew its serving lock while PostgreSQL was down)."""
    deadline = time.monotonic() + WAIT
    while any(cluster.logs(i).count("store error") <= mark for i, mark in enumerate(marks)):
        assert time.monotonic() < deadline, cluster.describe()
        await asyncio.sleep(0.2)


async def first_answer_or_state(client: Client, version: int) -> str:
    """``taken`` once the client's state passes ``version``, else the code of the error it gets."""
    errors = len(client.errors)
    while len(client.errors) == errors:
        if client.states and client.states[-1]["version"] > version:
            return "taken"
        client.take(await client.receive())
    return str(client.errors[-1]["code"])


def test_a_seat_on_another_process_is_present_and_counted_online(cluster: Cluster) -> None:
    """Seat 0 on process 0 learns when seat 1 comes and goes on process 1 (``presence``: never
    "away" while it is connected there), and "players online" counts it from every process."""
    game_id, tokens = friend_table(cluster)

    async def presence(client: Client) -> list[int | None]:
        while True:
            message = await client.receive()
            if message["type"] == "presence":
                away: list[int | None] = message["away"]
                return away
            client.take(message)

    async def run() -> tuple[list[int | None], list[int | None]]:
        async with connect(ws_url(cluster.server_urls[0], game_id, tokens[0])) as first:
            client = Client(first, 0)
            state = await client.next_state()
            assert state["away"][1] is not None
            async with connect(ws_url(cluster.server_urls[1], game_id, tokens[1])) as second:
                await Client(second, 1).next_state()
                there = await presence(client)
                wait_for_online(cluster, server=2, at_least=2)
            gone = await presence(client)
            return there, gone

    there, gone = asyncio.run(run())
    assert there == [None, None]
    assert gone[0] is None and isinstance(gone[1], int) and gone[1] > 0


def test_spectators_on_other_processes_are_counted_for_everyone(cluster: Cluster) -> None:
    """Two spectators on processes 1 and 2: seat 0 on process 0 is told that 1, then 2 watch, and
    the count falls as they leave (each process says how many spectators it serves: ``presence``)."""
    game_id, tokens = friend_table(cluster)

    async def told(client: Client, count: int) -> None:
        while True:
            message = await client.receive()
            if message["type"] == "presence" and message["spectators"] == count:
                return
            client.take(message)

    async def run() -> None:
        async with connect(ws_url(cluster.server_urls[0], game_id, tokens[0])) as first:
            seat = Client(first, 0)
            await seat.next_state()
            async with connect(ws_url(cluster.server_urls[1], game_id)) as one:
                await Client(one, None).next_state()
                await told(seat, 1)
                async with connect(ws_url(cluster.server_urls[2], game_id)) as two:
                    watcher = Client(two, None)
                    await watcher.next_state()
                    await told(seat, 2)
                    await told(watcher, 2)
                await told(seat, 1)
            await told(seat, 0)

    asyncio.run(run())


def wait_for_online(cluster: Cluster, server: int, at_least: int) -> None:
    """Wait until server ``server`` counts ``at_least`` players online (``/api/play-now/pools``)."""
    deadline = time.monotonic() + WAIT
    while True:
        status, pools = cluster.request("GET", "/api/play-now/pools", server=server)
        assert status == 200, pools
        if pools["online"] >= at_least:
            return
        assert time.monotonic() < deadline, pools
        time.sleep(0.5)


def serve(database_url: str, redis_url: str = "") -> subprocess.CompletedProcess[str]:
    """``schotten serve`` on ``database_url`` (and ``redis_url``), expected to stop at once."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SCHOTTEN_")}
    command = [sys.executable, "-m", "schotten", "serve", "--port", str(free_port()),
               "--database", database_url]
    if redis_url:
        command += ["--redis", redis_url]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, env=env, check=False)


def serving_locks(store: Store) -> int:
    """How many connections hold the serving lock (``pglock.SERVING``) of the cluster's database."""
    with store.use() as session:
        query = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = :key "
                     "AND granted")
        return int(session.scalar(query, {"key": SERVING}) or 0)


def test_a_server_without_redis_is_refused_beside_the_cluster(cluster: Cluster, store: Store) -> None:
    """A server started without --redis on the cluster's database would serve it alone (its games cached,
    its changes told to nobody): it stops at start, saying why (the servers hold the lock again within
    a beat after PostgreSQL restarted)."""
    deadline = time.monotonic() + WAIT
    while serving_locks(store) < len(cluster.server_urls):
        assert time.monotonic() < deadline, serving_locks(store)
        time.sleep(0.5)
    done = serve(cluster.database_url)
    assert done.returncode == 1, done.stderr
    assert "a server without --redis serves its database alone" in done.stderr


def test_beside_a_server_without_redis_every_other_is_refused() -> None:
    """A server without --redis serves its PostgreSQL database alone: a second one stops at start, and so
    does one with --redis, each saying why; --redis on SQLite is refused too."""
    with Cluster(redis=False) as alone:
        alone.start(1)
        second = serve(alone.database_url)
        assert second.returncode == 1 and "served by another schotten server already" in second.stderr
        clustered = serve(alone.database_url, "redis://127.0.0.1:1/0")
        assert clustered.returncode == 1 and "started without --redis" in clustered.stderr
    sqlite = serve("sqlite:////tmp/schotten-never-made.db", "redis://127.0.0.1:1/0")
    assert sqlite.returncode == 1 and "--redis is for several processes" in sqlite.stderr


def test_chat_reaches_every_process(cluster: Cluster) -> None:
    """A seat's line on process 0 reaches the other seat on process 1 (not the spectator on process 2:
    rooms), the spectator's line reaches another spectator on process 0, and a mute on process 1
    holds for that seat's socket on process 2."""
    game_id, tokens = friend_table(cluster)

    async def chat(client: Client) -> dict[str, Any]:
        while True:
            message = await client.receive()
            if message["type"] == "chat" and not message["full"]:
                return message
            client.take(message)

    async def run() -> None:
        urls = cluster.server_urls
        async with connect(ws_url(urls[0], game_id, tokens[0])) as a, \
                connect(ws_url(urls[1], game_id, tokens[1])) as b, \
                connect(ws_url(urls[2], game_id, tokens[1])) as b_again, \
                connect(ws_url(urls[2], game_id)) as watcher, connect(ws_url(urls[0], game_id)) as other:
            seat0, seat1, seat1_again = Client(a, 0), Client(b, 1), Client(b_again, 1)
            spectators = [Client(watcher, None), Client(other, None)]
            for client in (seat0, seat1, seat1_again, *spectators):
                await client.next_state()
            await a.send(json.dumps({"type": "chat", "text": "hello from process 0"}))
            heard = await chat(seat1)
            assert heard["room"] == "players" and heard["messages"][0]["text"] == "hello from process 0"
            await watcher.send(json.dumps({"type": "chat", "text": "a spectator", "name": "Eve"}))
            heard = await chat(spectators[1])
            assert heard["room"] == "spectators" and heard["messages"][0]["name"] == "Eve"
            assert all(m["type"] != "chat" or m["room"] != "players" for m in await drain(spectators[0]))
            await b.send(json.dumps({"type": "mute", "muted": True}))
            while True:
                message = await seat1_again.receive()
                if message["type"] == "state" and message["chat_muted"]:
                    break
            await a.send(json.dumps({"type": "chat", "quick": "hello"}))
            lines = [line for m in await drain(seat1_again) if m["type"] == "chat" for line in m["messages"]]
            assert all(line["seat"] != 0 for line in lines), lines

    asyncio.run(run())


async def drain(client: Client, quiet: float = 0.7) -> list[dict[str, Any]]:
    """Every message the client gets until none comes for ``quiet`` seconds."""
    found = []
    try:
        while True:
            found.append(json.loads(await asyncio.wait_for(client.socket.recv(), quiet)))
    except TimeoutError:
        return found


def test_log_in_rates_count_over_every_process(cluster: Cluster) -> None:
    """The rates of log-ins and sign-ups count in Redis: what two processes count adds up (the third
    attempt of "2/minute" is refused whichever counts it); with Redis down each counts alone."""
    name = f"rate-{random.randrange(10**9)}"
    first, second = (Rates("login_rate", "2/minute", SlidingWindowCounterRateLimiter(MemoryStorage()),
                           shared_limiter(cluster.redis_url)) for _ in range(2))
    assert first.hit(name) is None and second.hit(name) is None
    refused = first.hit(name)
    assert refused is not None and refused[0] == "2 per 1 minute"
    cluster.stop_redis()
    try:
        assert second.hit(name) is None
    finally:
        cluster.start_redis()
        wait_until_sockets_open(cluster, friend_table(cluster)[0])


def test_a_clock_set_on_one_process_is_flagged_by_the_conductor(cluster: Cluster) -> None:
    """A 5-second game whose seats sit on two processes other than the conductor's: seat 0 moves, seat
    1 does not; the conductor ends it on time, and both seats are told (ended ``time``, against seat 1)."""
    held = conductor(cluster)
    first, second = (held + 1) % 3, (held + 2) % 3
    status, table = cluster.request("POST", "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend",
                                                            "nickname": "Ann", "seat": 0,
                                                            "clock": {"initial": 5, "increment": 0}},
                                    server=first)
    assert status == 200, table
    status, guest = cluster.request("POST", f"/api/tables/{table['id']}/join", {"nickname": "Bob"},
                                    server=second)
    assert status == 200, guest

    async def run() -> list[dict[str, Any]]:
        async with connect(ws_url(cluster.server_urls[first], table["id"], table["token"])) as a, \
                connect(ws_url(cluster.server_urls[second], table["id"], guest["token"])) as b:
            clients = [Client(a, 0), Client(b, 1)]
            state = await clients[0].next_state()
            while state["view"]["turn"] == 0:
                await a.send(json.dumps({"type": "action", "action": state["view"]["legal"][0]}))
                state = await clients[0].next_state(state["version"] + 1)
            return [await until_over(client) for client in clients]

    ends = asyncio.run(run())
    assert all(end["ended"] == {"reason": "time", "seat": 1} for end in ends), ends
