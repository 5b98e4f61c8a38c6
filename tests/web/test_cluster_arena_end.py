"""Issue 28's "done when", on three processes behind nginx (one PostgreSQL, Redis): twenty players
join an arena, it starts by itself, they play their games through nginx as the page does (waiting on
the tournament's socket, reading ``GET /api/tournaments/{id}``, playing random legal actions on the
game's socket), the process whose director runs it is killed halfway, and the arena ends by itself
(its end moved near, as time is injected elsewhere): every game ends and is counted once, nobody
was in two games at once, and both processes left answer the same standings, which are those the
finished games give."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cluster import Cluster
from sqlalchemy import select
from test_cluster_tournaments import LEASE, state
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from schotten.web.players.accounts import Accounts
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.storage.db import TournamentGameRow, TournamentRow
from schotten.web.storage.store import Store

PLAYERS = 20
MINUTES = 5
HALFWAY = 10.0
"""Seconds of play before the director's process is killed."""
LAST = 12.0
"""Seconds the arena still lasts after the kill (its end is moved to then)."""
SILENCE = 10.0
"""Seconds without a message on a game's socket before the client connects again (its state then)."""
TIMEOUT = 150.0
"""A guard against a hung cluster, not a measurement."""


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """Three servers behind nginx whose directors look often and hold a tournament for ``LEASE`` s."""
    env = {"SCHOTTEN_TOURNAMENT_LEASE": str(LEASE), "SCHOTTEN_TOURNAMENT_EVERY": "0.3"}
    with Cluster(env=env) as started:
        started.start(processes=3)
        yield started


def cookies_of(store: Store) -> list[str]:
    """A session cookie header for each of ``PLAYERS`` new accounts."""
    accounts = Accounts(store, 3600.0)
    made = [accounts.sign_up(f"player{n:02d}", "a long enough password") for n in range(PLAYERS)]
    return [f"{SESSION_COOKIE}={accounts.new_session(account.id)}" for account in made]


def join(cluster: Cluster, tournament: int, cookie: str) -> str:
    """Join through nginx: the browser's ticket (its seat token in the arena's games) from the cookie."""
    request = urllib.request.Request(f"{cluster.url}/api/tournaments/{tournament}/join", data=b"{}",
                                     method="POST", headers={"content-type": "application/json",
                                                             "cookie": cookie})
    with urllib.request.urlopen(request, timeout=10) as answer:
        sent = answer.headers.get_all("set-cookie") or []
    [ticket] = [c.split(";")[0].split("=", 1)[1] for c in sent if c.startswith(f"tournament_{tournament}=")]
    return str(ticket)


def move_start(store: Store, tournament: int, starts_at: datetime) -> None:
    """Set the arena's start (its end follows it by ``MINUTES``): the injected time of this test."""
    with store.use() as session, session.begin():
        row = session.get(TournamentRow, tournament)
        assert row is not None
        row.starts_at = starts_at


class Client:
    """One player's page: waits on the tournament's socket, plays each game it is paired into with
    random legal actions until the game is over (reconnecting through nginx when a process dies)."""

    def __init__(self, cluster: Cluster, tournament: int, cookie: str, ticket: str, seed: int) -> None:
        self.cluster, self.tournament, self.cookie, self.ticket = cluster, tournament, cookie, ticket
        self.rng = random.Random(seed)
        self.ws = cluster.url.replace("http://", "ws://")
        self.played: set[str] = set()
        self.doing = "starting"

    async def run(self, finished: asyncio.Event) -> None:
        """Wait, play, wait again, until the arena is finished and no game of ours runs."""
        while True:
            self.doing = "waiting"
            game, over = await self.next_game(finished)
            if game is None:
                return
            self.played.add(game)
            self.doing = f"playing {game}"
            await self.play(game)
            self.doing = f"played {game}"
            if over:
                return

    async def next_game(self, finished: asyncio.Event) -> tuple[str | None, bool]:
        """A new game of ours (and whether the arena was already over); None once the arena is
        finished with no game of ours to play."""
        while True:
            view = await self.read()
            you = view.get("you") or {}
            game = you.get("game")
            over = view["status"] == "finished"
            if game and game not in self.played:
                return str(game), over
            if over:
                finished.set()
                return None, True
            await self.hear_news(finished)

    async def read(self) -> dict[str, Any]:
        """``GET /api/tournaments/{id}`` through nginx (retried while nginx finds no live process)."""
        while True:
            status, view = await asyncio.to_thread(self.cluster.request, "GET",
                                                   f"/api/tournaments/{self.tournament}",
                                                   headers={"cookie": self.cookie})
            if status == 200:
                return dict(view)
            assert status >= 500, view
            await asyncio.sleep(0.3)

    async def hear_news(self, finished: asyncio.Event) -> None:
        """Until the tournament's socket tells of a change, or 1 s passes (the page's socket may be on
        the killed process: then it reads again after the pause)."""
        try:
            async with connect(f"{self.ws}/ws/tournaments/{self.tournament}", open_timeout=10,
                               additional_headers={"cookie": self.cookie}) as socket:
                await asyncio.wait_for(socket.recv(), 1.0)
        except (TimeoutError, OSError, WebSocketException):
            await asyncio.sleep(0.2 if not finished.is_set() else 0)

    async def play(self, game: str) -> None:
        """Random legal actions until the game is over, reconnecting after a lost or silent socket."""
        while True:
            try:
                url = f"{self.ws}/ws/games/{game}?token={self.ticket}"
                async with connect(url, open_timeout=10) as socket:
                    while True:
                        message = json.loads(await asyncio.wait_for(socket.recv(), SILENCE))
                        if message["type"] != "state":
                            continue
                        if message["status"] == "over":
                            return
                        legal = message["view"]["legal"]
                        if legal and message["status"] == "playing":
                            await socket.send(json.dumps({"type": "action", "action": self.rng.choice(legal),
                                                          "version": message["version"]}))
            except (TimeoutError, OSError, WebSocketException):
                await asyncio.sleep(0.5)


def games_of(store: Store, tournament: int) -> list[TournamentGameRow]:
    """The arena's games as stored."""
    with store.use() as session:
        return list(session.scalars(select(TournamentGameRow)
                                    .where(TournamentGameRow.tournament_id == tournament)))


async def watch_doubles(store: Store, tournament: int, stop: asyncio.Event,
                        doubles: list[int | None]) -> None:
    """Every 0.3 s until ``stop``: the players found in two running games at once."""
    while not stop.is_set():
        busy = Counter(player for game in await asyncio.to_thread(games_of, store, tournament)
                       if game.ended is None for player in (game.account0, game.account1))
        doubles.extend(player for player, count in busy.items() if count > 1)
        await asyncio.sleep(0.3)


def test_twenty_players_an_arena_ends_by_itself_with_its_director_killed_halfway(cluster: Cluster) -> None:
    """The module's scenario: an arena for tonight, joined by twenty, started when its time comes."""
    store = Store(cluster.database_url)
    try:
        cookies = cookies_of(store)
        status, made = cluster.request("POST", "/api/tournaments", {
            "format": "arena", "name": "Tonight", "clock": {"initial": 300, "increment": 2},
            "starts_in": 3 * 3600, "minutes": MINUTES}, headers={"cookie": cookies[0]})
        assert status == 201, made
        tid = made["id"]
        tickets = [join(cluster, tid, cookie) for cookie in cookies]
        assert cluster.request("GET", f"/api/tournaments/{tid}")[1]["status"] == "created"
        move_start(store, tid, datetime.now(UTC))
        clients = [Client(cluster, tid, cookie, ticket, seed)
                   for seed, (cookie, ticket) in enumerate(zip(cookies, tickets, strict=True))]
        try:
            asyncio.run(asyncio.wait_for(play_it_out(cluster, store, tid, clients), TIMEOUT))
        except TimeoutError:
            unended = [game.game_id for game in games_of(store, tid) if game.ended is None]
            doing = [client.doing for client in clients]
            pytest.fail(f"the arena did not end within {TIMEOUT:g} s: the clients {doing}, games not ended "
                        f"{unended}\n{cluster.describe()}")
    finally:
        store.close()


async def play_it_out(cluster: Cluster, store: Store, tid: int, clients: list[Client]) -> None:
    """Run the clients, kill the director's process halfway, move the end near, check the end."""
    finished, stop = asyncio.Event(), asyncio.Event()
    doubles: list[int | None] = []
    watcher = asyncio.create_task(watch_doubles(store, tid, stop, doubles))
    playing = asyncio.gather(*(client.run(finished) for client in clients))
    await asyncio.sleep(HALFWAY)
    holder = state(store, tid)[0]
    assert holder is not None, "nobody directs the arena"
    [killed] = [i for i in range(3) if str(cluster.pid(i)) == holder.split("-")[0]]
    before = len(games_of(store, tid))
    cluster.kill(killed)
    move_start(store, tid, datetime.now(UTC) + timedelta(seconds=LAST) - timedelta(minutes=MINUTES))
    await playing
    stop.set()
    await watcher
    alive = [i for i in range(3) if i != killed]
    games = games_of(store, tid)
    assert before >= PLAYERS // 2 and len(games) > before, "the arena did not go on after the kill"
    assert all(game.ended is not None for game in games)
    assert doubles == []
    views = [cluster.request("GET", f"/api/tournaments/{tid}", server=i)[1] for i in alive]
    assert all(view["status"] == "finished" for view in views)
    standings = [[(row["player"], row["score"], row["games"]) for row in view["standings"]] for view in views]
    assert standings[0] == standings[1]
    counted = Counter(name for game in views[0]["games"] for name in game["players"])
    assert {row["player"]: row["games"] for row in views[0]["standings"]} == counted
    assert len(views[0]["games"]) == len(games) and sum(counted.values()) == 2 * len(games)
    assert sum(row["score"] for row in views[0]["standings"]) >= 2 * sum(
        game["result"] not in (None, "draw", "aborted") for game in views[0]["games"])
