"""An arena of fast bots on one process and on three: ``python benchmarks/bench_arena.py [--short]``.

For 1 and 3 ``schotten serve`` processes behind nginx (one PostgreSQL, one Redis; tests/web/cluster.py
starts them), ``--players`` accounts (200) join a 5-minute arena. Each player is a client through
nginx that does what the tournament page does: while it waits it keeps the tournament's socket
open and reads ``GET /api/tournaments/{id}`` on opening and after each event (one read at a time),
and once paired plays its game on the game's WebSocket with random legal actions at full speed,
then comes back to the tournament. After ``--seconds`` of the arena (120)
the clients stop and the figures are taken: games paired and finished, actions per second, the
round trip of an action (sent, until the acting seat's socket gets the state with the new
version) and of the tournament read (median and 99th percentile), the wait between the end of a
player's game and their next pairing as the client sees it, players found in two running games at
once (must be 0) and whether every process answers the same standings. On one machine every
configuration shares its 2 cores with PostgreSQL, Redis, nginx and the clients. Nothing is
asserted: the figures are for docs and closing notes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
from cluster import Cluster, missing

from schotten.web.players.accounts import Accounts
from schotten.web.players.identity import SESSION_COOKIE
from schotten.web.storage.db import TournamentRow
from schotten.web.storage.store import Store

PROCESSES = (1, 3)
STALL = 15.0
"""Seconds without a message after which a game's client gives up on it."""


@dataclass
class Figures:
    """What one configuration's arena came to."""

    processes: int
    players: int
    seconds: float
    finished: int = 0
    given_up: int = 0
    actions: int = 0
    action_latencies: list[float] = field(default_factory=list)
    poll_latencies: list[float] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    paired: int = 0
    doubled: int = 0
    same_standings: bool = False
    errors: Counter[str] = field(default_factory=Counter)
    store_errors: Counter[str] = field(default_factory=Counter)


class Http:
    """Blocking HTTP through nginx (or to one server) in a pool of threads, with cookies given."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.pool = ThreadPoolExecutor(max_workers=32)

    def call(self, method: str, url: str, cookies: dict[str, str],
             body: Any = None) -> tuple[int, Any, dict[str, str]]:
        """Status, decoded JSON body and the cookies the answer sets."""
        headers = {"content-type": "application/json",
                   "cookie": "; ".join(f"{name}={value}" for name, value in cookies.items())}
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, raw, sent = int(answer.status), answer.read(), answer.headers.get_all("set-cookie")
        except urllib.error.HTTPError as error:
            status, raw, sent = int(error.code), error.read(), error.headers.get_all("set-cookie")
        made = dict(cookie.split(";", 1)[0].split("=", 1) for cookie in sent or [])
        return status, json.loads(raw or b"null"), made

    async def __call__(self, method: str, path: str, cookies: dict[str, str],
                       body: Any = None) -> tuple[int, Any, dict[str, str]]:
        """``call`` through nginx, in the pool."""
        return await asyncio.get_running_loop().run_in_executor(
            self.pool, self.call, method, f"{self.base}{path}", cookies, body)


class Player:
    """One account's client: waits, plays its games, waits again, until ``stop``."""

    def __init__(self, http: Http, ws_base: str, tournament: int, cookies: dict[str, str],
                 seed: int, figures: Figures) -> None:
        self.http, self.ws_base, self.tournament = http, ws_base, tournament
        self.cookies, self.rng, self.figures = cookies, random.Random(seed), figures
        self.ticket = next(value for name, value in cookies.items() if f"tournament_{tournament}" in name)

    async def run(self, stop: float) -> None:
        """Wait on the tournament page, play when paired, come back to the page; until ``stop``."""
        ended: float | None = None
        played: set[str] = set()
        while time.monotonic() < stop:
            game = await self.wait(played, stop)
            if game is None:
                return
            played.add(game)
            self.figures.paired += 1
            if ended is not None:
                self.figures.waits.append(time.monotonic() - ended)
            await self.play(game, stop)
            ended = time.monotonic()

    async def wait(self, played: set[str], stop: float) -> str | None:
        """What the tournament page does: its socket open, the tournament read on opening and after
        each event (one read at a time, one more if events came meanwhile), until ``you`` shows a new
        game; None at ``stop``."""
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        url = f"{self.ws_base}/ws/tournaments/{self.tournament}"
        news = asyncio.Event()
        news.set()
        try:
            async with connect(url, open_timeout=10, additional_headers={"cookie": cookie}) as socket:
                listening = asyncio.create_task(self.listen(socket, news))
                try:
                    return await self.read_until_paired(news, played, stop)
                finally:
                    listening.cancel()
        except (TimeoutError, OSError, WebSocketException) as error:
            self.figures.errors[f"tournament socket: {type(error).__name__}"] += 1
            await asyncio.sleep(1)
            return None if time.monotonic() >= stop else await self.wait(played, stop)

    async def listen(self, socket: ClientConnection, news: asyncio.Event) -> None:
        """Set ``news`` at each ``standings`` or ``paired`` event."""
        async for raw in socket:
            if json.loads(raw).get("type") in ("standings", "paired"):
                news.set()

    async def read_until_paired(self, news: asyncio.Event, played: set[str], stop: float) -> str | None:
        while True:
            try:
                await asyncio.wait_for(news.wait(), max(stop - time.monotonic(), 0.01))
            except TimeoutError:
                return None
            news.clear()
            sent = time.perf_counter()
            status, view, _ = await self.http("GET", f"/api/tournaments/{self.tournament}", self.cookies)
            self.figures.poll_latencies.append(time.perf_counter() - sent)
            if status != 200:
                self.figures.errors[f"tournament read {status}"] += 1
                continue
            game = (view.get("you") or {}).get("game")
            if game and game not in played:
                return str(game)

    async def play(self, game: str, stop: float) -> None:
        """Random legal actions on the game's socket until it is over (or the run's end)."""
        try:
            url = f"{self.ws_base}/ws/games/{game}?token={self.ticket}"
            async with connect(url, open_timeout=10) as socket:
                state = await self.next_state(socket, 0, stop)
                while state is not None and state["status"] != "over":
                    legal = state["view"]["legal"]
                    if legal and state["status"] == "playing":
                        sent = time.perf_counter()
                        await socket.send(json.dumps({"type": "action", "action": self.rng.choice(legal)}))
                        state = await self.next_state(socket, state["version"] + 1, stop)
                        if state is not None:
                            self.figures.action_latencies.append(time.perf_counter() - sent)
                            self.figures.actions += 1
                    else:
                        state = await self.next_state(socket, state["version"] + 1, stop)
                self.figures.finished += state is not None
        except KeyError as error:
            self.figures.given_up += 1
            self.figures.errors[str(error.args[0])] += 1
        except (TimeoutError, OSError, WebSocketException) as error:
            self.figures.given_up += 1
            self.figures.errors[f"socket: {type(error).__name__}"] += 1

    @staticmethod
    async def next_state(socket: ClientConnection, version: int, stop: float) -> dict[str, Any] | None:
        """The first state message whose version is at least ``version``; None once the run is over.
        A game silent for ``STALL`` seconds before that raises KeyError."""
        while True:
            left = stop - time.monotonic()
            if left <= 0:
                return None
            try:
                raw = await asyncio.wait_for(socket.recv(), min(STALL, left))
            except TimeoutError:
                if time.monotonic() >= stop:
                    return None
                raise KeyError(f"no message for {STALL:g} s") from None
            message: dict[str, Any] = json.loads(raw)
            if message["type"] == "error":
                raise KeyError(f"{message.get('code')}: {str(message.get('message'))[:90]}")
            if message["type"] == "state" and message["version"] >= version:
                return message


def sign_up(store: Store, count: int) -> list[dict[str, str]]:
    """``count`` new accounts' session cookies."""
    accounts = Accounts(store, 3600.0)
    made = [accounts.sign_up(f"arena{n:03d}", "a long enough password") for n in range(count)]
    return [{SESSION_COOKIE: accounts.new_session(account.id)} for account in made]


async def arena(cluster: Cluster, figures: Figures, args: argparse.Namespace) -> None:
    """Create the arena, join every player, let it start and run the clients for ``args.seconds``."""
    http = Http(cluster.url)
    store = Store(cluster.database_url)
    try:
        cookies = sign_up(store, args.players)
    finally:
        store.close()
    status, made, _ = await http("POST", "/api/tournaments", cookies[0], {
        "format": "arena", "name": "Benchmark arena", "clock": {"initial": 120, "increment": 2},
        "starts_in": 3600, "minutes": 5})
    if status != 201:
        raise SystemExit(f"creating the arena answered {status}: {made}")
    tid = made["id"]
    for jar in cookies:
        status, body, set_cookies = await http("POST", f"/api/tournaments/{tid}/join", jar)
        if status != 200:
            raise SystemExit(f"joining answered {status}: {body}")
        jar.update(set_cookies)
    start_now(cluster, tid)
    stop = time.monotonic() + args.seconds
    players = [Player(http, cluster.url.replace("http://", "ws://"), tid, jar, n, figures)
               for n, jar in enumerate(cookies)]
    await asyncio.gather(*(player.run(stop) for player in players))
    figures.doubled, figures.same_standings = await check(cluster, http, tid, cookies[0])
    http.pool.shutdown()


def start_now(cluster: Cluster, tournament: int) -> None:
    """Move the arena's start to now, so the joins above do not race its first wave."""
    store = Store(cluster.database_url)
    try:
        with store.use() as session, session.begin():
            row = session.get(TournamentRow, tournament)
            assert row is not None
            row.starts_at = datetime.now(UTC)
    finally:
        store.close()


async def check(cluster: Cluster, http: Http, tournament: int, jar: dict[str, str]) -> tuple[int, bool]:
    """Players in two running games at once, and whether every process shows the same standings."""
    views = [await asyncio.get_running_loop().run_in_executor(
        http.pool, http.call, "GET", f"{url}/api/tournaments/{tournament}", jar, None)
        for url in cluster.server_urls]
    running: Counter[str] = Counter()
    for game in views[0][1]["games"]:
        if game["result"] is None:
            running.update(game["players"])
    standings = [[(row["player"], row["score"], row["games"]) for row in view[1]["standings"]]
                 for view in views]
    return sum(count > 1 for count in running.values()), all(s == standings[0] for s in standings)


def run(processes: int, args: argparse.Namespace) -> Figures:
    """One configuration on a fresh cluster."""
    figures = Figures(processes, args.players, args.seconds)
    env = {"SCHOTTEN_TOURNAMENT_EVERY": "0.5"}
    with Cluster(env=env) as cluster:
        cluster.start(processes)
        try:
            asyncio.run(arena(cluster, figures, args))
        except BaseException:
            for index in range(processes):
                print(f"server {index}'s log ends:\n{cluster.logs(index)[-2000:]}", file=sys.stderr)
            raise
        for index in range(processes):
            lines = cluster.logs(index).splitlines()
            figures.store_errors.update(line.split("store error: ", 1)[1][:160]
                                        for line in lines if "store error: " in line)
    return figures


def spread(values: list[float], scale: float = 1000.0, digits: int = 0) -> str:
    """``median / 99th percentile`` of ``values`` times ``scale``, or ``-`` with too few samples."""
    if len(values) < 2:
        return "-"
    cuts = statistics.quantiles([v * scale for v in values], n=100, method="inclusive")
    return f"{statistics.median(values) * scale:.{digits}f} / {cuts[98]:.{digits}f}"


def show(runs: list[Figures], args: argparse.Namespace) -> None:
    """Print the table of every configuration's figures."""
    print(f"a 5-minute arena of {args.players} random-move players through nginx, {args.seconds:g} s of it "
          "measured; a waiting player reads the tournament when its socket says so:")
    header = ("processes", "paired", "finished", "given up", "actions/s", "action p50/p99 ms",
              "tournament read p50/p99 ms", "re-pairing wait p50/p99 s", "doubled", "same standings")
    rows = [header]
    for f in runs:
        rows.append((str(f.processes), str(f.paired), str(f.finished), str(f.given_up),
                     f"{f.actions / f.seconds:.0f}",
                     spread(f.action_latencies), spread(f.poll_latencies), spread(f.waits, 1.0, 1),
                     str(f.doubled), "yes" if f.same_standings else "NO"))
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    for row in rows:
        print("  " + "  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
    for f in runs:
        if f.errors:
            print(f"  {f.processes} process(es): {dict(f.errors)}")
        for text, count in f.store_errors.most_common(3):
            print(f"  {f.processes} process(es), {count} x store error: {text}")


def main() -> None:
    """Parse the options, run both configurations and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=120.0, help="seconds of the arena measured")
    parser.add_argument("--processes", type=int, nargs="+", default=list(PROCESSES))
    parser.add_argument("--short", action="store_true", help="a quick run for CI: 20 players, 20 s")
    args = parser.parse_args()
    if args.short:
        args.players, args.seconds = 20, 20.0
    reason = missing()
    if reason is not None:
        raise SystemExit(f"bench_arena: cannot start a cluster: {reason}")
    show([run(processes, args) for processes in args.processes], args)


if __name__ == "__main__":
    main()
