"""Several server processes behind nginx: ``python benchmarks/bench_cluster.py [--games N] [--short]``.

For 1, 2 and 3 ``schotten serve`` processes sharing a private PostgreSQL and Redis, and for 1
process without Redis, all behind nginx (tests/web/cluster.py starts them), it opens ``--games``
friend tables and plays them ``--concurrent`` at a time: each seat a WebSocket client through
nginx (so the two seats of a game may be served by different processes) choosing random legal
actions at full speed. It prints, per configuration, the games that finished, stalled (a seat got
no message for ``--stall`` seconds) or failed (an error message or a closed socket), the finished
games and the actions per second, and the round trip of an action (sent, until the acting seat's
socket gets the state with the new version): median and 99th percentile. Games that stall are
counted, not waited for. On one machine every configuration shares its cores with PostgreSQL, Redis, nginx
and these clients: more processes there measure the fan-out's cost, not a gain. Nothing is
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
from cluster import Cluster, missing

CONFIGURATIONS = ((1, True), (2, True), (3, True), (1, False))
"""(server processes, with Redis) of each run."""


class Stalled(Exception):
    """A seat got no message for the stall timeout."""


class Failed(Exception):
    """The server sent an error, or closed the socket before the game was over."""


@dataclass
class Figures:
    """What one configuration's games came to."""

    processes: int
    redis: bool
    games: int = 0
    finished: int = 0
    stalled: int = 0
    failed: int = 0
    actions: int = 0
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)

    def label(self) -> str:
        """``3 processes + Redis``."""
        plural = "es" if self.processes > 1 else ""
        return f"{self.processes} process{plural} " + ("+ Redis" if self.redis else "(no Redis)")


async def next_state(socket: ClientConnection, version: int, stall: float) -> dict[str, Any]:
    """The first state message whose version is at least ``version``; presence and chat are passed over."""
    while True:
        try:
            raw = await asyncio.wait_for(socket.recv(), stall)
        except TimeoutError:
            raise Stalled from None
        except WebSocketException as error:
            raise Failed(f"socket closed: {error}") from None
        message: dict[str, Any] = json.loads(raw)
        if message["type"] == "error":
            raise Failed(f"error {message.get('code')}")
        if message["type"] == "state" and message["version"] >= version:
            return message


async def play_seat(socket: ClientConnection, rng: random.Random, stall: float,
                    latencies: list[float]) -> int:
    """Random legal actions for one seat until the game is over; the actions it played."""
    actions = 0
    state = await next_state(socket, 0, stall)
    while state["status"] != "over":
        legal = state["view"]["legal"]
        if legal and state["status"] == "playing":
            sent = time.perf_counter()
            await socket.send(json.dumps({"type": "action", "action": rng.choice(legal)}))
            state = await next_state(socket, state["version"] + 1, stall)
            latencies.append(time.perf_counter() - sent)
            actions += 1
        else:
            state = await next_state(socket, state["version"] + 1, stall)
    return actions


async def play_game(address: str, table: tuple[str, dict[int, str]], seed: int, stall: float,
                    figures: Figures) -> None:
    """One friend game between two random seats, each on its own socket through nginx; counted in
    ``figures`` as finished, stalled or failed."""
    game_id, tokens = table
    url = f"{address}/ws/games/{game_id}"
    try:
        async with connect(f"{url}?token={tokens[0]}", open_timeout=10) as first, \
                connect(f"{url}?token={tokens[1]}", open_timeout=10) as second:
            seats = (play_seat(socket, random.Random(seed * 2 + n), stall, figures.latencies)
                     for n, socket in enumerate((first, second)))
            counts = await asyncio.gather(*seats)
        figures.finished += 1
        figures.actions += sum(counts)
    except Stalled:
        figures.stalled += 1
    except (Failed, OSError, WebSocketException, TimeoutError) as error:
        figures.failed += 1
        reason = str(error).split(":")[0] or type(error).__name__
        figures.reasons[reason] = figures.reasons.get(reason, 0) + 1


def friend_table(cluster: Cluster) -> tuple[str, dict[int, str]]:
    """A friend table opened and joined through nginx: its id and each seat's token."""
    status, table = cluster.request("POST", "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend",
                                                            "nickname": "A"})
    if status != 200:
        raise SystemExit(f"opening a table through nginx answered {status}: {table}")
    status, guest = cluster.request("POST", f"/api/tables/{table['id']}/join", {"nickname": "B"})
    if status != 200:
        raise SystemExit(f"joining a table through nginx answered {status}: {guest}")
    return table["id"], {table["seat"]: table["token"], guest["seat"]: guest["token"]}


async def play_all(cluster: Cluster, figures: Figures, games: int, concurrent: int, stall: float) -> None:
    """Open the tables, then play them ``concurrent`` at a time; the wall time in ``figures``."""
    tables = [friend_table(cluster) for _ in range(games)]
    gate = asyncio.Semaphore(concurrent)
    address = cluster.url.replace("http://", "ws://")

    async def limited(seed: int) -> None:
        async with gate:
            await play_game(address, tables[seed], seed, stall, figures)

    start = time.perf_counter()
    await asyncio.gather(*(limited(seed) for seed in range(games)))
    figures.wall = time.perf_counter() - start
    figures.games = games


def run(processes: int, redis: bool, args: argparse.Namespace) -> Figures:
    """One configuration on a fresh cluster."""
    figures = Figures(processes, redis)
    with Cluster(redis=redis) as cluster:
        cluster.start(processes)
        try:
            asyncio.run(play_all(cluster, figures, args.games, args.concurrent, args.stall))
        except BaseException:
            for index in range(processes):
                print(f"server {index}'s log ends:\n{cluster.logs(index)[-2000:]}", file=sys.stderr)
            raise
    return figures


def percentile(seconds: list[float], cut: int) -> str:
    """The ``cut``-th percentile in milliseconds, or ``-`` with too few samples."""
    if len(seconds) < 2:
        return "-"
    return f"{statistics.quantiles([s * 1000 for s in seconds], n=100, method='inclusive')[cut - 1]:.1f}"


def show(runs: list[Figures], args: argparse.Namespace) -> None:
    """Print the table of every configuration's figures."""
    print(f"{args.games} base friend games of random WebSocket seats through nginx, {args.concurrent} at a "
          f"time (stalled: no message for {args.stall:g} s):")
    header = ("configuration", "finished", "stalled", "failed", "games/s", "actions/s", "p50 ms", "p99 ms")
    rows = [header]
    for figures in runs:
        wall = max(figures.wall, 1e-9)
        rows.append((figures.label(), f"{figures.finished}/{figures.games}", str(figures.stalled),
                     str(figures.failed), f"{figures.finished / wall:.2f}", f"{figures.actions / wall:.0f}",
                     percentile(figures.latencies, 50), percentile(figures.latencies, 99)))
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    for row in rows:
        print("  " + "  ".join(cell.ljust(width) if column == 0 else cell.rjust(width)
                               for column, (cell, width) in enumerate(zip(row, widths, strict=True))))
    for figures in runs:
        if figures.reasons:
            print(f"  {figures.label()} failures: {figures.reasons}")


def main() -> None:
    """Parse the options, run every configuration and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--concurrent", type=int, default=20, help="games at a time")
    parser.add_argument("--stall", type=float, default=10.0,
                        help="seconds without a message after which a game counts as stalled")
    parser.add_argument("--short", action="store_true", help="a quick run for CI: 8 games, 4 at a time")
    args = parser.parse_args()
    if args.short:
        args.games, args.concurrent, args.stall = 8, 4, 5.0
    reason = missing()
    if reason is not None:
        raise SystemExit(f"bench_cluster: cannot start a cluster: {reason}")
    runs = [run(processes, redis, args) for processes, redis in CONFIGURATIONS]
    show(runs, args)


if __name__ == "__main__":
    main()
