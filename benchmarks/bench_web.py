"""Load on the web app: ``python benchmarks/bench_web.py [--games N] [--concurrent C] [--short]``.

Starts ``schotten serve`` on 127.0.0.1 (a free port, a temporary SQLite file unless
``--database`` says otherwise), creates friend tables and plays ``--games`` whole base
games, ``--concurrent`` at a time (default: all at once), each seat a WebSocket client
choosing random legal actions, with a spectator watching every game. It prints the games and
actions per second the server sustained (its flood and per-address limits lifted: these clients
act as fast as they can, all from 127.0.0.1) and the round-trip latency of an action (sent,
until the acting seat's socket receives the state with the new version): median, 95th and
99th percentiles and the worst. ``--ai N`` also plays N games against the AI at ``--level``.
At full speed every game has one action in flight, so the round trip is about the number of
games divided by the actions per second the machine sustains (CPU-bound here: state messages,
WebSockets, these clients); ``--think`` gives players a pace. Before the server starts, the
store alone is loaded: ``--games`` games append ``--entries``
entries each, all at once, with a commit per entry (as before group commit) and through
``writer`` (group commit): entries per second and each append's wait.
Without ``--database`` the load runs on SQLite, then again on PostgreSQL if
``SCHOTTEN_TEST_POSTGRES_URL`` is set (in a schema of its own, dropped at the end).
It also times, in this process, what one broadcast costs per client late in a long match (a
3-round tactics match of random moves, its last decision after a card play): building and
encoding the state message for two seats and a spectator, divided by three, against the view
alone.
Nothing is asserted: the figures are for docs and closing notes, not pass or fail.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import websockets

from schotten.engine import ACTIONS, GameState, Kind, Settings
from schotten.engine.view import view
from schotten.web.core.vocab import Mode, Status
from schotten.web.games.live import LiveGame
from schotten.web.games.outbound import state_text
from schotten.web.storage.rows import Entry, GameInfo
from schotten.web.storage.store import Store
from schotten.web.storage.writer import Writer

MESSAGE_SEED = 11
"""The seed of the long match whose state messages are timed."""
MESSAGE_REPEATS = 200
MESSAGE_BATCHES = 5
CARD_PLAYS = (Kind.PLAY, Kind.RUSE)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


UNLIMITED = {
    "SCHOTTEN_FLOOD_LIMIT": "1000000",
    "SCHOTTEN_ADDRESS_RATE": "100000/second",
    "SCHOTTEN_TABLES_RATE": "100000/minute",
    "SCHOTTEN_OPEN_TABLES_PER_ADDRESS": "100000",
    "SCHOTTEN_AI_TABLES_PER_ADDRESS": "100000",
    "SCHOTTEN_SOCKETS_PER_ADDRESS": "100000",
    "SCHOTTEN_CONNECTIONS_PER_ADDRESS": "100000",
}
"""The server's limits, lifted: every benchmark client comes from 127.0.0.1 and acts at full speed."""
POSTGRES_VARIABLE = "SCHOTTEN_TEST_POSTGRES_URL"


def start_server(port: int, database: str, log: Path) -> subprocess.Popen[bytes]:
    """``schotten serve`` in a subprocess (a session of its own, its AI workers included) with the
    limits lifted (``UNLIMITED``), once it answers HTTP."""
    command = [sys.executable, "-m", "schotten", "serve", "--port", str(port), "--database", database]
    environment = {**os.environ, **UNLIMITED}
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=environment,
                               start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the server did not start; its log: {log}")


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds a process has used so far (Linux's /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST JSON to the server, the decoded answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        result: dict[str, Any] = json.load(answer)
        return result


async def latest_state(ws: Any, version: int) -> dict[str, Any]:
    """The first state message whose version is at least ``version`` (errors raise; presence and chat
    messages are passed over)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if message["type"] == "error":
            raise RuntimeError(message["message"])
        if message["type"] == "state" and message["version"] >= version:
            return message


async def drain(ws: Any) -> None:
    """Read a spectator's socket until it closes."""
    try:
        async for _ in ws:
            pass
    except websockets.ConnectionClosed:
        pass


async def play_seat(ws: Any, rng: random.Random, latencies: list[float], think: float = 0.0) -> int:
    """Play one seat's decisions with random legal actions until the game is over, pausing a random
    0 to ``2 * think`` seconds before each (0: at full speed); its action count."""
    actions = 0
    state = await latest_state(ws, 0)
    while state["status"] != "over":
        view = state["view"]
        if view["legal"] and state["status"] == "playing":
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "action": rng.choice(view["legal"])}))
            state = await latest_state(ws, state["version"] + 1)
            latencies.append(time.perf_counter() - sent)
            actions += 1
        else:
            state = await latest_state(ws, state["version"] + 1)
    return actions


def friend_table(port: int) -> tuple[str, dict[int, str]]:
    """A friend table with both seats taken: its id and each seat's token."""
    table = post(port, "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "A"})
    guest = post(port, f"/api/tables/{table['id']}/join", {"nickname": "B"})
    return table["id"], {table["seat"]: table["token"], guest["seat"]: guest["token"]}


async def friend_game(port: int, table: tuple[str, dict[int, str]], seed: int, latencies: list[float],
                      think: float) -> int:
    """One whole base game between two random clients and a spectator; the actions played."""
    url = f"ws://127.0.0.1:{port}/ws/games/{table[0]}"
    tokens = table[1]
    async with websockets.connect(f"{url}?token={tokens[0]}") as first, \
            websockets.connect(f"{url}?token={tokens[1]}") as second, websockets.connect(url) as watcher:
        spectator = asyncio.create_task(drain(watcher))
        counts = await asyncio.gather(
            play_seat(first, random.Random(seed * 2), latencies, think),
            play_seat(second, random.Random(seed * 2 + 1), latencies, think),
        )
        spectator.cancel()
        return sum(counts)


async def ai_game(port: int, seed: int, level: str, latencies: list[float]) -> int:
    """One whole base game of a random client against the AI; the client's actions."""
    table = post(port, "/api/tables", {"variant": "base", "rounds": 1, "mode": "ai", "level": level,
                                       "nickname": "A", "seat": seed % 2})
    url = f"ws://127.0.0.1:{port}/ws/games/{table['id']}?token={table['token']}"
    async with websockets.connect(url) as ws:
        return await play_seat(ws, random.Random(seed), latencies)


async def run_all(port: int, games: int, concurrent: int, ai: int, level: str,
                  think: float = 0.0) -> dict[str, Any]:
    """Play the friend games (``concurrent`` at a time), then the AI games; the figures."""
    latencies: list[float] = []
    gate = asyncio.Semaphore(concurrent)
    tables = [friend_table(port) for _ in range(games)]

    async def limited(seed: int) -> int:
        async with gate:
            return await friend_game(port, tables[seed], seed, latencies, think)

    start = time.perf_counter()
    actions = sum(await asyncio.gather(*(limited(seed) for seed in range(games))))
    wall = time.perf_counter() - start
    ai_latencies: list[float] = []
    ai_start = time.perf_counter()
    ai_actions = sum(await asyncio.gather(*(ai_game(port, seed, level, ai_latencies) for seed in range(ai))))
    ai_wall = time.perf_counter() - ai_start
    return {
        "games": games, "concurrent": concurrent, "think": think, "actions": actions,
        "wall_seconds": round(wall, 2),
        "games_per_second": round(games / wall, 2), "actions_per_second": round(actions / wall, 1),
        "latency_ms": summary(latencies),
        "ai_games": ai, "ai_level": level, "ai_wall_seconds": round(ai_wall, 2),
        "ai_client_actions": ai_actions, "ai_latency_ms": summary(ai_latencies),
    }


def long_match(seed: int = MESSAGE_SEED) -> tuple[GameState, GameState]:
    """A 3-round tactics match of random legal moves at its last decision that follows a card
    play by the seat to move (so the misclick-undo check has a play to look at), and the
    position one move before it."""
    rng = random.Random(seed)
    state = GameState.new(Settings.of("tactics", 3), seed)
    found = (state, state)
    while not state.is_over:
        before = state.copy()
        state.apply_id(rng.choice(state.legal_action_ids()))
        if state.movers[-1] == state.turn and ACTIONS[state.history[-1]].kind in CARD_PLAYS:
            found = (before, state.copy())
    return found


def message_cost(repeats: int = MESSAGE_REPEATS) -> dict[str, float]:
    """Milliseconds per client of one broadcast at the last decision of ``long_match`` (two seats
    and a spectator, each state message built and encoded as JSON), right after the broadcast
    of the move before (``per_client_ms``: the log's new entries only) and as the first
    messages of a game just loaded (``first_ms``: the whole log), and of the view alone: CPU
    time of this thread (the machine may be busy with other work), the best of a few batches."""
    before, state = long_match()
    info = GameInfo(id="bench", variant="tactics", rounds=3, seed=MESSAGE_SEED, mode=Mode.FRIEND, level=None,
                    ai_seat=None, players=["A", "B"], token_hashes=[None, None], status=Status.PLAYING)
    seats = (0, 1, None)

    def broadcast(warm: bool) -> float:
        game = LiveGame(info, before if warm else state, len(state.history) - warm)
        if warm:
            for seat in seats:
                state_text(game, seat)
            game.state, game.version = state, len(state.history)
        told_from = len(before.history) if warm else 0
        start = time.thread_time()
        for seat in seats:
            state_text(game, seat, told_from)
        return time.thread_time() - start

    def views() -> float:
        start = time.thread_time()
        for seat in seats:
            view(state, seat)
        return time.thread_time() - start

    per_client, first, alone = (
        best_ms(call, repeats) / len(seats)
        for call in (lambda: broadcast(True), lambda: broadcast(False), views)
    )
    return {"moves": len(state.history), "per_client_ms": round(per_client, 3), "first_ms": round(first, 3),
            "view_ms": round(alone, 3)}


def best_ms(timed: Callable[[], float], repeats: int, batches: int = MESSAGE_BATCHES) -> float:
    """The mean of what ``timed`` measured (seconds), in milliseconds, over ``repeats`` calls: the
    best of ``batches``."""
    size = repeats // batches
    return min(sum(timed() for _ in range(size)) / size for _ in range(batches)) * 1000


def summary(seconds: list[float]) -> dict[str, float] | None:
    """Median, 95th and 99th percentiles and the worst, in milliseconds."""
    if len(seconds) < 2:
        return None
    cuts = statistics.quantiles([s * 1000 for s in seconds], n=100, method="inclusive")
    return {"p50": round(cuts[49], 1), "p95": round(cuts[94], 1), "p99": round(cuts[98], 1),
            "max": round(max(seconds) * 1000, 1)}


async def store_load(url: str, games: int, entries: int, grouped: bool) -> dict[str, Any]:
    """The store alone: ``games`` games appending ``entries`` entries each, all at once, through the
    group-committing writer (``grouped``) or one commit per entry in worker threads (as before
    ``writer`` existed); entries per second and each append's wait."""
    store = Store(url)
    store.check()
    tag = f"{'g' if grouped else 's'}{random.randrange(1 << 30):x}"
    ids = [f"{tag}-{n}" for n in range(games)]
    for game_id in ids:
        store.add_game(GameInfo(id=game_id, variant="base", rounds=1, seed=1, mode=Mode.FRIEND, level=None,
                                ai_seat=None, players=["A", "B"], token_hashes=[None, None],
                                status=Status.PLAYING))
    writer = Writer(store)
    waits: list[float] = []

    async def one_game(game_id: str) -> None:
        for index in range(entries):
            entry = Entry(index, "action", "1b@1", index % 2)
            start = time.perf_counter()
            if grouped:
                await writer.append(game_id, entry, Status.PLAYING, None)
            else:
                await asyncio.to_thread(store.append, game_id, entry, Status.PLAYING, None)
            waits.append(time.perf_counter() - start)

    start = time.perf_counter()
    await asyncio.gather(*(one_game(game_id) for game_id in ids))
    wall = time.perf_counter() - start
    await writer.stop()
    store.close()
    return {"grouped": grouped, "entries_per_second": round(games * entries / wall, 1),
            "wait_ms": summary(waits)}


def postgres_schema(url: str) -> tuple[str, Callable[[], None]]:
    """A URL whose tables live in a fresh schema of their own, and what drops that schema."""
    from sqlalchemy import create_engine, make_url, text

    from schotten.web.core.settings import normalise_url

    schema = f"bench_web_{os.getpid()}_{random.randrange(1 << 30):x}"
    parsed = make_url(normalise_url(url))
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    admin = create_engine(parsed)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))

    def drop() -> None:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    scoped = parsed.update_query_dict({"options": f"-csearch_path={schema}"})
    return scoped.render_as_string(hide_password=False), drop


def bench(database: str, args: argparse.Namespace) -> dict[str, Any]:
    """The load against a fresh server on ``database``; its figures."""
    with tempfile.TemporaryDirectory() as folder:
        database = database.replace("{folder}", folder)
        commits = [asyncio.run(store_load(database, args.games, args.entries, grouped))
                   for grouped in (False, True)]
        port = free_port()
        server = start_server(port, database, Path(folder) / "server.log")
        try:
            before = cpu_seconds(server.pid)
            figures = asyncio.run(run_all(port, args.games, args.concurrent, args.ai, args.level, args.think))
            after = cpu_seconds(server.pid)
        except Exception:
            print((Path(folder) / "server.log").read_text()[-4000:], file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(10)
    figures["database"] = database.split(":")[0]
    played = max(1, figures["actions"] + figures["ai_client_actions"])
    used = None if before is None or after is None else (after - before) * 1000 / played
    figures["server_cpu_ms_per_action"] = None if used is None else round(used, 3)
    figures["store_alone"] = commits
    return figures


def show(figures: dict[str, Any], level: str) -> None:
    """Print one run's figures."""
    pace = f"pausing {figures['think']:g} s on average" if figures["think"] else "at full speed"
    print(f"{figures['games']} base games between random WebSocket clients ({pace}), "
          f"{figures['concurrent']} at a time, with a spectator each ({figures['database']}):")
    print(f"  {figures['games_per_second']} games/s, {figures['actions_per_second']} actions/s "
          f"({figures['actions']} actions in {figures['wall_seconds']} s)")
    print(f"  action round trip (ms): {figures['latency_ms']}; server CPU per client action: "
          f"{figures['server_cpu_ms_per_action']} ms")
    for commit in figures["store_alone"]:
        how = "group commit" if commit["grouped"] else "a commit per entry"
        print(f"  the store alone, {figures['games']} games appending at once ({how}): "
              f"{commit['entries_per_second']} entries/s, wait (ms): {commit['wait_ms']}")
    if figures["ai_games"]:
        print(f"{figures['ai_games']} games against the AI ({level}) at once: "
              f"{figures['ai_wall_seconds']} s; client action round trip (ms): {figures['ai_latency_ms']}")


def main() -> None:
    """Parse the options, run the load against a fresh server (per database) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--concurrent", type=int, default=None, help="games at a time (default: all)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a seat pauses before each action (default 0: full speed)")
    parser.add_argument("--entries", type=int, default=20, help="entries per game of the store-alone load")
    parser.add_argument("--ai", type=int, default=4, help="games against the AI, all at once")
    parser.add_argument("--level", default="medium")
    parser.add_argument("--database", default=None, help="a database URL (default: a temporary SQLite file, "
                        f"then PostgreSQL if {POSTGRES_VARIABLE} is set)")
    parser.add_argument("--short", action="store_true", help="a quick run for CI: 4 games, 2 at a time, 1 AI")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.games, args.concurrent, args.ai, args.entries = 4, 2, 1, 5
    args.concurrent = args.concurrent or args.games
    runs = []
    if args.database:
        runs.append(bench(args.database, args))
    else:
        runs.append(bench("sqlite:///{folder}/bench.db", args))
        if os.environ.get(POSTGRES_VARIABLE):
            url, drop = postgres_schema(os.environ[POSTGRES_VARIABLE])
            try:
                runs.append(bench(url, args))
            finally:
                drop()
    cost = message_cost()
    if args.json:
        print(json.dumps({"runs": runs, "state_message": cost}))
        return
    for figures in runs:
        show(figures, args.level)
    print(f"state message late in a 3-round tactics match ({cost['moves']} moves): "
          f"{cost['per_client_ms']} ms per client per broadcast, {cost['first_ms']} ms in a game just loaded "
          f"(the view alone: {cost['view_ms']} ms)")


if __name__ == "__main__":
    main()
