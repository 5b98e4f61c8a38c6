"""Load on the web app: ``python benchmarks/bench_web.py [--games N] [--concurrent C] [--short]``.

Starts ``schotten serve`` on 127.0.0.1 (a free port, a temporary SQLite file unless
``--database`` says otherwise), creates friend tables and plays ``--games`` whole base
games, ``--concurrent`` at a time, each seat a WebSocket client choosing random legal
actions, with a spectator watching every game. It prints the games and actions per
second the server sustained (its flood limit lifted: these clients act as fast as
they can) and the round-trip latency of an action (sent, until the acting seat's
socket receives the state with the new version): median, 95th and 99th
percentiles and the worst. ``--ai N`` also plays N games against the AI at ``--level``.
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
from schotten.web.authority import LiveGame
from schotten.web.outbound import state_text
from schotten.web.store import GameInfo
from schotten.web.vocab import Mode, Status

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


def start_server(port: int, database: str, log: Path) -> subprocess.Popen[bytes]:
    """``schotten serve`` in a subprocess, once it answers HTTP."""
    command = [sys.executable, "-m", "schotten", "serve", "--port", str(port), "--database", database]
    environment = {**os.environ, "SCHOTTEN_FLOOD_LIMIT": "1000000"}
    process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=environment)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the server did not start; its log: {log}")


def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST JSON to the server, the decoded answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.load(answer)
        return result


async def latest_state(ws: Any, version: int) -> dict[str, Any]:
    """The first state message whose version is at least ``version`` (errors raise)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if message["type"] == "error":
            raise RuntimeError(message["message"])
        if message["version"] >= version:
            return message


async def drain(ws: Any) -> None:
    """Read a spectator's socket until it closes."""
    try:
        async for _ in ws:
            pass
    except websockets.ConnectionClosed:
        pass


async def play_seat(ws: Any, rng: random.Random, latencies: list[float]) -> int:
    """Play one seat's decisions with random legal actions until the game is over; its action count."""
    actions = 0
    state = await latest_state(ws, 0)
    while state["status"] != "over":
        view = state["view"]
        if view["legal"] and state["status"] == "playing":
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "action": rng.choice(view["legal"])}))
            state = await latest_state(ws, state["version"] + 1)
            latencies.append(time.perf_counter() - sent)
            actions += 1
        else:
            state = await latest_state(ws, state["version"] + 1)
    return actions


async def friend_game(port: int, seed: int, latencies: list[float]) -> int:
    """One whole base game between two random clients and a spectator; the actions played."""
    table = post(port, "/api/tables", {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "A"})
    guest = post(port, f"/api/tables/{table['id']}/join", {"nickname": "B"})
    url = f"ws://127.0.0.1:{port}/ws/games/{table['id']}"
    tokens = {table["seat"]: table["token"], guest["seat"]: guest["token"]}
    async with websockets.connect(f"{url}?token={tokens[0]}") as first, \
            websockets.connect(f"{url}?token={tokens[1]}") as second, websockets.connect(url) as watcher:
        spectator = asyncio.create_task(drain(watcher))
        counts = await asyncio.gather(
            play_seat(first, random.Random(seed * 2), latencies),
            play_seat(second, random.Random(seed * 2 + 1), latencies),
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


async def run_all(port: int, games: int, concurrent: int, ai: int, level: str) -> dict[str, Any]:
    """Play the friend games (``concurrent`` at a time), then the AI games; the figures."""
    latencies: list[float] = []
    gate = asyncio.Semaphore(concurrent)

    async def limited(seed: int) -> int:
        async with gate:
            return await friend_game(port, seed, latencies)

    start = time.perf_counter()
    actions = sum(await asyncio.gather(*(limited(seed) for seed in range(games))))
    wall = time.perf_counter() - start
    ai_latencies: list[float] = []
    ai_start = time.perf_counter()
    ai_actions = sum(await asyncio.gather(*(ai_game(port, seed, level, ai_latencies) for seed in range(ai))))
    ai_wall = time.perf_counter() - ai_start
    return {
        "games": games, "concurrent": concurrent, "actions": actions, "wall_seconds": round(wall, 2),
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


def main() -> None:
    """Parse the options, run the load against a fresh server and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--concurrent", type=int, default=10)
    parser.add_argument("--ai", type=int, default=4, help="games against the AI, all at once")
    parser.add_argument("--level", default="medium")
    parser.add_argument("--database", default=None, help="a database URL (default: a temporary SQLite file)")
    parser.add_argument("--short", action="store_true", help="a quick run for CI: 4 games, 2 at a time, 1 AI")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.games, args.concurrent, args.ai = 4, 2, 1
    with tempfile.TemporaryDirectory() as folder:
        database = args.database or f"sqlite:///{os.path.join(folder, 'bench.db')}"
        port = free_port()
        server = start_server(port, database, Path(folder) / "server.log")
        try:
            figures = asyncio.run(run_all(port, args.games, args.concurrent, args.ai, args.level))
        except Exception:
            print((Path(folder) / "server.log").read_text()[-4000:], file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(10)
    figures["state_message"] = message_cost()
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{figures['games']} base games between random WebSocket clients, "
          f"{figures['concurrent']} at a time, with a spectator each ({database.split(':')[0]}):")
    print(f"  {figures['games_per_second']} games/s, {figures['actions_per_second']} actions/s "
          f"({figures['actions']} actions in {figures['wall_seconds']} s)")
    print(f"  action round trip (ms): {figures['latency_ms']}")
    print(f"{figures['ai_games']} games against the AI ({args.level}) at once: "
          f"{figures['ai_wall_seconds']} s; client action round trip (ms): {figures['ai_latency_ms']}")
    cost = figures["state_message"]
    print(f"state message late in a 3-round tactics match ({cost['moves']} moves): "
          f"{cost['per_client_ms']} ms per client per broadcast, {cost['first_ms']} ms in a game just loaded "
          f"(the view alone: {cost['view_ms']} ms)")


if __name__ == "__main__":
    main()
