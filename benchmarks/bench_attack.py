"""Hostile clients beside real games: ``python benchmarks/bench_attack.py [--short] [--json]``.

Starts ``schotten serve`` on 127.0.0.1 (a free port, a temporary SQLite file, the default
settings and a soft limit of ``--server-fds`` file descriptors, 1024 by default as for most
services), plays one whole game whose replay the replay loop will ask for, then runs each phase:
real players go on playing while one attack runs, and their figures are printed in a table.

Real players: ``games`` friend games at a time (two seats and a spectator, each seat at most one
action per ``THINK`` seconds, as a person clicks, under the flood limit) and ``ai_games`` games
against the easy AI; a finished game is followed by a new one until the phase ends. Every game
comes from addresses of its own in 127.1.0.0/16 (strangers, each within the per-address
limits), the attackers from 127.0.0.2-9 (Linux accepts any 127.0.0.0/8 source address): per-address
limits apply to the attackers, not to the real players. Attacks (each in a process of its own, so
its work does not delay the real players' event loop):

| phase    | attack                                                                          |
|----------|---------------------------------------------------------------------------------|
| baseline | none                                                                            |
| slow     | TCP connections that send nothing, and some that trickle a header line a second |
| flood    | WebSockets (spectators of the attackers' tables) sending ``sync`` just under the flood limit |
| replay   | clients looping on ``/api/games/{id}/replay`` of the finished game               |
| ai       | expert AI tables created in a burst, each played by a random attacker at the flood limit |

For each phase: the real players' actions, actions/s, the action round trip (sent until the
acting seat's socket has the state with the new version: p50, p99, max), failed attempts (a
game that could not be opened or joined, a socket refused or closed, an error message, an
action or an AI reply that did not come within its timeout: each counted once, by kind), the
easy AI's reply (an action sent until the AI has answered it), the server's peak file
descriptors and memory, the error lines of its log, and what the attack achieved (connections
opened, closed by the server, refused). Every loop is bounded in count and time; the benchmark
ends every process it started (by pid, and the server's process group: its AI workers).
Nothing is asserted: the figures are for closing notes, not pass or fail.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path
from typing import Any

import websockets
from bench_web import free_port, summary

from schotten.web.core.settings import WebSettings
from schotten.web.players.seats import seat_cookie

HOST = "127.0.0.1"
THINK = 0.2
"""A real seat's least time between two of its actions (seconds)."""
HTTP_TIMEOUT = 5.0
CONNECT_TIMEOUT = 5.0
ACTION_TIMEOUT = 5.0
"""How long a real player waits for its action's state before it counts a failure."""
AI_GRACE = 20.0
"""How long after a phase a real player still waits for the AI's reply before it counts a failure."""
OPEN_AT_ONCE = 100
"""Connections an attacker opens at the same time."""
WARM_UP = 2.0
"""Seconds of real play before the phases (the AI workers start, the server warms up)."""
ERROR_LINE = re.compile(r"Traceback|ERROR|Error:|Errno")
Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Plan:
    """The size of each phase and of each attack."""

    seconds: float
    ramp: float
    games: int
    ai_games: int
    slow_silent: int
    slow_trickle: int
    flood_sockets: int
    ai_tables: int
    replay_clients: int
    replay_rounds: int
    ai_level: str = "expert"
    attack_addresses: int = 2


FULL = Plan(seconds=15, ramp=10, games=10, ai_games=2, slow_silent=1500, slow_trickle=100,
            flood_sockets=200, ai_tables=60, replay_clients=10, replay_rounds=3)
SHORT = Plan(seconds=4, ramp=3, games=3, ai_games=1, slow_silent=150, slow_trickle=20,
             flood_sockets=30, ai_tables=8, replay_clients=3, replay_rounds=1)
PHASES = ("baseline", "slow", "flood", "replay", "ai")
ATTACKER_BLOCK = {"slow": 2, "flood": 4, "replay": 6, "ai": 8}
"""The first attacker address of each attack: 127.0.0.<n> (then n + 1, ...)."""


def attacker(kind: str, plan: Plan, index: int) -> str:
    """The loopback address the ``index``-th connection of an attack comes from."""
    return f"127.0.0.{ATTACKER_BLOCK[kind] + index % plan.attack_addresses}"


def stranger(number: int) -> str:
    """A real player's own address (a game's creator, guest and spectator each have one)."""
    return f"127.1.{number // 250 % 250}.{number % 250 + 1}"


# ---------------------------------------------------------------------- talking to the server


class Refused(Exception):
    """The server answered with an error (HTTP status, or an error message on the socket)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


async def http(source: str, port: int, method: str, path: str, body: Message | None = None,
               timeout: float = HTTP_TIMEOUT) -> tuple[int, bytes]:
    """One HTTP/1.1 request from ``source`` on a connection of its own; the status and the body."""
    async def exchange() -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
        try:
            data = b"" if body is None else json.dumps(body).encode()
            head = (f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nOrigin: http://{HOST}:{port}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                    "Connection: close\r\n\r\n")
            writer.write(head.encode() + data)
            raw = await reader.read()
        finally:
            writer.close()
        status_line, _, rest = raw.partition(b"\r\n")
        parts = status_line.split(b" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise Refused("no answer", "the connection closed without an HTTP answer")
        return int(parts[1]), rest.partition(b"\r\n\r\n")[2]

    return await asyncio.wait_for(exchange(), timeout)


async def post(source: str, port: int, path: str, body: Message) -> Message:
    """POST JSON; the decoded answer (Refused unless 200)."""
    status, data = await http(source, port, "POST", path, body)
    if status != 200:
        raise Refused(f"HTTP {status}", data.decode(errors="replace")[:200])
    answer: Message = json.loads(data)
    return answer


def connect(port: int, game_id: str, source: str, token: str | None = None) -> Any:
    """A game socket from ``source`` (the seat's cookie when ``token`` is given)."""
    headers = {"Cookie": f"{seat_cookie(game_id)}={token}"} if token else None
    return websockets.connect(
        f"ws://{HOST}:{port}/ws/games/{game_id}", origin=websockets.Origin(f"http://{HOST}:{port}"),
        additional_headers=headers, local_addr=(source, 0), open_timeout=CONNECT_TIMEOUT,
        close_timeout=1, ping_interval=None, max_size=None,
    )


async def next_state(ws: Any, version: int, timeout: float) -> Message:
    """The first state message whose version is at least ``version``; Refused on an error message."""
    end = time.monotonic() + timeout
    while True:
        message: Message = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, end - time.monotonic())))
        if message.get("type") == "error":
            raise Refused(f"error {message.get('code')}", str(message.get("message")))
        if message.get("type") == "state" and message["version"] >= version:
            return message


async def drain(ws: Any) -> int:
    """Read a socket until it closes; the messages read."""
    count = 0
    with contextlib.suppress(websockets.ConnectionClosed):
        async for _ in ws:
            count += 1
    return count


def failure(error: BaseException) -> str:
    """What kind of failure ``error`` is, in a few words."""
    if isinstance(error, BaseExceptionGroup):
        return failure(error.exceptions[0])
    if isinstance(error, Refused):
        return error.kind
    if isinstance(error, TimeoutError):
        return "timeout"
    if isinstance(error, websockets.InvalidStatus):
        return f"socket refused {error.response.status_code}"
    if isinstance(error, websockets.ConnectionClosed):
        code = error.rcvd.code if error.rcvd is not None else "without close frame"
        return f"socket closed {code}"
    if isinstance(error, OSError):
        return f"connection failed ({error.strerror or type(error).__name__})"
    return type(error).__name__


# ---------------------------------------------------------------------- real players


@dataclass
class Players:
    """What the real players saw in one phase."""

    latencies: list[float] = field(default_factory=list)
    ai_replies: list[float] = field(default_factory=list)
    games: int = 0
    failures: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True, slots=True)
class Seat:
    """One real seat's socket, its chooser and its deadlines."""

    ws: Any
    rng: random.Random
    until: float
    think: float
    players: Players
    against_ai: bool = False


async def play_seat(seat: Seat) -> None:
    """Play random legal actions until the game is over or the phase ends."""
    state = await next_state(seat.ws, 0, ACTION_TIMEOUT)
    last = 0.0
    while state["status"] != "over" and time.monotonic() < seat.until:
        if not (state["status"] == "playing" and state["view"]["legal"]):
            after = await other_side(seat, state, time.perf_counter())
            if after is None:
                return
            state = after
            continue
        await asyncio.sleep(max(0.0, last + seat.think - time.monotonic()))
        last = time.monotonic()
        sent, version = time.perf_counter(), state["version"]
        action = seat.rng.choice(state["view"]["legal"])
        await seat.ws.send(json.dumps({"type": "action", "action": action, "version": version}))
        state = await next_state(seat.ws, version + 1, ACTION_TIMEOUT)
        seat.players.latencies.append(time.perf_counter() - sent)
        if seat.against_ai and state["status"] == "playing" and not state["view"]["legal"]:
            after = await other_side(seat, state, sent)
            if after is None:
                return
            state = after


async def other_side(seat: Seat, state: Message, since: float) -> Message | None:
    """The state after the other side's move; None if the phase ended first (a friend game: the
    other seat stopped too). The AI is waited for longer (``AI_GRACE`` after the phase), and not
    getting its reply is a failure; its reply time (from ``since``) is noted."""
    grace = AI_GRACE if seat.against_ai else ACTION_TIMEOUT
    try:
        budget = max(0.0, seat.until - time.monotonic()) + grace
        after = await next_state(seat.ws, state["version"] + 1, budget)
    except TimeoutError:
        if seat.against_ai:
            raise Refused("AI reply timeout", "the AI did not move") from None
        if time.monotonic() >= seat.until:
            return None
        raise
    if seat.against_ai:
        seat.players.ai_replies.append(time.perf_counter() - since)
    return after


async def friend_game(port: int, number: int, until: float, players: Players, think: float = THINK,
                      rounds: int = 1) -> str:
    """A friend game of two random seats and a spectator, each from an address of its own; its id."""
    creator, guest, watcher = (stranger(3 * number + k) for k in range(3))
    table = await post(creator, port, "/api/tables", {"variant": "base", "rounds": rounds, "mode": "friend",
                                                      "nickname": "Ann", "seat": 0})
    joined = await post(guest, port, f"/api/tables/{table['id']}/join", {"nickname": "Bob"})
    async with connect(port, table["id"], creator, table["token"]) as first, \
            connect(port, table["id"], guest, joined["token"]) as second, \
            connect(port, table["id"], watcher) as spectator:
        watching = asyncio.create_task(drain(spectator))
        try:
            await first_to_end(
                play_seat(Seat(first, random.Random(number * 2), until, think, players)),
                play_seat(Seat(second, random.Random(number * 2 + 1), until, think, players)),
            )
        finally:
            watching.cancel()
    return str(table["id"])


async def first_to_end(*plays: Awaitable[Any]) -> None:
    """Run the seats until one ends (the game is over, the phase ended, or it failed); stop the
    other, and raise the failure if there was one."""
    tasks = [asyncio.ensure_future(play) for play in plays]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for task in done:
        task.result()


async def ai_game(port: int, number: int, until: float, players: Players) -> str:
    """A random seat against the easy AI, from an address of its own; the game's id."""
    source = stranger(3 * number)
    table = await post(source, port, "/api/tables", {"variant": "base", "rounds": 1, "mode": "ai",
                                                     "level": "easy", "nickname": "Cy", "seat": None})
    async with connect(port, table["id"], source, table["token"]) as ws:
        await play_seat(Seat(ws, random.Random(number), until, THINK, players, against_ai=True))
    return str(table["id"])


Game = Callable[[int, float, Players], Awaitable[str]]


async def keep_playing(game: Game, numbers: Iterator[int], until: float, players: Players) -> None:
    """Play one game after another until the phase ends; a failed attempt is counted, then retried."""
    while time.monotonic() < until:
        try:
            await asyncio.wait_for(game(next(numbers), until, players),
                                   until - time.monotonic() + AI_GRACE + 4 * ACTION_TIMEOUT)
            players.games += 1
        except Exception as error:
            players.failures[failure(error)] += 1
            await asyncio.sleep(0.5)


async def real_players(port: int, plan: Plan, numbers: Iterator[int]) -> Players:
    """The real players of one phase."""
    players = Players()
    until = time.monotonic() + plan.seconds

    def friend(number: int, end: float, seen: Players) -> Awaitable[str]:
        return friend_game(port, number, end, seen)

    def against_ai(number: int, end: float, seen: Players) -> Awaitable[str]:
        return ai_game(port, number, end, seen)

    await asyncio.gather(*(keep_playing(friend, numbers, until, players) for _ in range(plan.games)),
                         *(keep_playing(against_ai, numbers, until, players) for _ in range(plan.ai_games)))
    return players


# ---------------------------------------------------------------------- attacks (in a child process)


@dataclass(frozen=True, slots=True)
class Target:
    """What an attack needs to know: the server, the plan, the flood limit, the finished game."""

    port: int
    plan: Plan
    flood_limit: int
    flood_window: float
    finished: str | None


Attack = Callable[[Target, Counter[str], asyncio.Event, asyncio.Event], Awaitable[None]]


async def opened_within(ramp_end: float, gate: asyncio.Semaphore, stats: Counter[str],
                        opening: Callable[[], Awaitable[Any]]) -> Any:
    """``opening()``'s result if it succeeds before the ramp ends, else None (counted either way)."""
    async with gate:
        if time.monotonic() > ramp_end:
            stats["not tried (ramp over)"] += 1
            return None
        try:
            result = await asyncio.wait_for(opening(), CONNECT_TIMEOUT)
        except Exception as error:
            stats[f"refused: {failure(error)}"] += 1
            return None
    stats["opened"] += 1
    return result


async def slow_connections(target: Target, stats: Counter[str], ready: asyncio.Event,
                           stop: asyncio.Event) -> None:
    """TCP connections that send nothing, and some that send a request line and then one header
    line a second, never ending the headers."""
    plan, gate = target.plan, asyncio.Semaphore(OPEN_AT_ONCE)
    ramp_end = time.monotonic() + plan.ramp
    total = plan.slow_silent + plan.slow_trickle

    def opening(index: int) -> Callable[[], Awaitable[Any]]:
        source = attacker("slow", plan, index)
        return lambda: asyncio.open_connection(HOST, target.port, local_addr=(source, 0))

    streams = await asyncio.gather(*(opened_within(ramp_end, gate, stats, opening(i)) for i in range(total)))
    ready.set()
    holds = [asyncio.create_task(hold(pair, i < plan.slow_trickle, stop, stats))
             for i, pair in enumerate(streams) if pair is not None]
    await stop.wait()
    for task in holds:
        task.cancel()
    await asyncio.gather(*holds, return_exceptions=True)
    for pair in streams:
        if pair is not None:
            pair[1].transport.abort()


async def hold(pair: tuple[asyncio.StreamReader, asyncio.StreamWriter], trickle: bool, stop: asyncio.Event,
               stats: Counter[str]) -> None:
    """Keep one slow connection open until ``stop``, noting when the server closes it."""
    reader, writer = pair
    if trickle:
        writer.write(f"GET /api/tables HTTP/1.1\r\nHost: {HOST}\r\n".encode())
    while not stop.is_set():
        if trickle:
            writer.write(b"X-Slow: 1\r\n")
        try:
            data = await asyncio.wait_for(reader.read(4096), 1.0)
        except TimeoutError:
            continue
        except OSError:
            data = b""
        if not data:
            stats["closed by the server"] += 1
            return
        stats["answered"] += 1
        return


async def socket_flood(target: Target, stats: Counter[str], ready: asyncio.Event,
                       stop: asyncio.Event) -> None:
    """Sockets, spectators of a table each attacker address opened, each sending ``sync`` just under
    the per-socket flood limit and reading what it is sent."""
    plan, gate = target.plan, asyncio.Semaphore(OPEN_AT_ONCE)
    tables: list[str] = []
    for index in range(plan.attack_addresses):
        try:
            table = await post(attacker("flood", plan, index), target.port, "/api/tables",
                               {"variant": "base", "rounds": 1, "mode": "friend", "nickname": "Flood"})
            tables.append(str(table["id"]))
        except Exception as error:
            stats[f"table refused: {failure(error)}"] += 1
    if not tables:
        ready.set()
        return
    ramp_end = time.monotonic() + plan.ramp
    interval = target.flood_window / max(1, target.flood_limit - 1)

    def opening(index: int) -> Callable[[], Awaitable[Any]]:
        source = attacker("flood", plan, index)
        return lambda: connect(target.port, tables[index % len(tables)], source)

    sockets = await asyncio.gather(*(opened_within(ramp_end, gate, stats, opening(i))
                                     for i in range(plan.flood_sockets)))
    ready.set()
    floods = [asyncio.create_task(flood_one(ws, interval, stop, stats)) for ws in sockets if ws is not None]
    await stop.wait()
    await close_all(floods, [ws for ws in sockets if ws is not None])


async def flood_one(ws: Any, interval: float, stop: asyncio.Event, stats: Counter[str]) -> None:
    """Send ``sync`` every ``interval`` seconds until ``stop`` (or the server closes the socket)."""
    reading = asyncio.create_task(drain(ws))
    await asyncio.sleep(random.random() * interval)
    try:
        while not stop.is_set() and not reading.done():
            await ws.send('{"type":"sync"}')
            stats["messages sent"] += 1
            await asyncio.sleep(interval)
    except websockets.ConnectionClosed:
        pass
    if reading.done():
        stats["closed by the server"] += 1
    reading.cancel()


async def close_all(tasks: list[asyncio.Task[None]], sockets: list[Any]) -> None:
    """Stop an attack's tasks and close its sockets, without waiting long on any."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for ws in sockets:
        ws.transport.abort()


async def replay_loop(target: Target, stats: Counter[str], ready: asyncio.Event, stop: asyncio.Event) -> None:
    """Clients each asking for the finished game's replay again as soon as it comes."""
    ready.set()
    if target.finished is None:
        stats["no finished game to replay"] += 1
        return
    path = f"/api/games/{target.finished}/replay"

    async def client(index: int) -> None:
        source = attacker("replay", target.plan, index)
        while not stop.is_set():
            try:
                status, body = await http(source, target.port, "GET", path)
                stats[f"HTTP {status}"] += 1
                stats["bytes read"] += len(body)
            except Exception as error:
                stats[f"failed: {failure(error)}"] += 1
                await asyncio.sleep(0.2)

    await asyncio.gather(*(client(i) for i in range(target.plan.replay_clients)))


async def ai_flood(target: Target, stats: Counter[str], ready: asyncio.Event, stop: asyncio.Event) -> None:
    """Expert AI tables created in a burst, each then played by a random attacker as fast as the
    flood limit lets it, so every AI turn is an expert decision."""
    plan = target.plan
    body = {"variant": "base", "rounds": 1, "mode": "ai", "level": plan.ai_level, "nickname": "Flood"}
    started = time.monotonic()
    tables = await asyncio.gather(*(post(attacker("ai", plan, i), target.port, "/api/tables", body)
                                    for i in range(plan.ai_tables)), return_exceptions=True)
    stats["burst ms"] = round((time.monotonic() - started) * 1000)
    for table in tables:
        stats["opened" if isinstance(table, dict) else f"refused: {failure(table)}"] += 1
    ready.set()
    until = time.monotonic() + plan.ramp + 4 * plan.seconds
    think = 1.2 * target.flood_window / target.flood_limit

    async def play(index: int, table: Message) -> None:
        players = Players()
        try:
            async with connect(target.port, table["id"], attacker("ai", plan, index), table["token"]) as ws:
                seat = Seat(ws, random.Random(index), until, think, players, against_ai=True)
                await first_to_end(play_seat(seat), stop.wait())
        except Exception as error:
            stats[f"player stopped: {failure(error)}"] += 1
        stats["moves played"] += len(players.latencies)

    await asyncio.gather(*(play(i, t) for i, t in enumerate(tables) if isinstance(t, dict)))


ATTACKS: dict[str, Attack] = {"slow": slow_connections, "flood": socket_flood, "replay": replay_loop,
                              "ai": ai_flood}


def raise_fd_limit() -> None:
    """Let this process open as many files as it is allowed (an attacker needs many sockets)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def attack_process(kind: str, target: Target, pipe: Connection, stop: ProcessEvent) -> None:
    """The attack's process: run it, say when it is ready, stop when told (or at its own deadline)."""
    raise_fd_limit()
    stats = asyncio.run(run_attack(kind, target, pipe, stop))
    pipe.send(dict(stats))


async def run_attack(kind: str, target: Target, pipe: Connection, told: ProcessEvent) -> Counter[str]:
    """Run one attack until ``told`` is set; what it achieved."""
    stats: Counter[str] = Counter()
    ready, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.ensure_future(ATTACKS[kind](target, stats, ready, stop))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ready.wait(), target.plan.ramp + 2 * CONNECT_TIMEOUT)
    pipe.send("ready")
    deadline = target.plan.ramp + 6 * target.plan.seconds + 60
    await asyncio.to_thread(told.wait, deadline)
    stop.set()
    try:
        await asyncio.wait_for(task, 15)
    except TimeoutError:
        stats["stopped by force"] += 1
    except Exception as error:
        stats[f"attack failed: {failure(error)}"] += 1
    return stats


class AttackProcess:
    """An attack run in a child process, started and ended by this one."""

    def __init__(self, kind: str, target: Target) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._stop = context.Event()
        self.process = context.Process(target=attack_process, args=(kind, target, child, self._stop),
                                       daemon=True)
        self.process.start()
        self.wait_ready = target.plan.ramp + 2 * CONNECT_TIMEOUT + 30

    async def ready(self) -> None:
        """Once the attack is under way (or its ramp is over)."""
        if await asyncio.to_thread(self._pipe.poll, self.wait_ready):
            self._pipe.recv()

    async def stop(self) -> dict[str, int]:
        """Tell the attack to stop; what it reports; the process is ended if it does not end itself."""
        self._stop.set()
        reported = await asyncio.to_thread(self._pipe.poll, 30)
        stats: dict[str, int] = self._pipe.recv() if reported else {"did not report": 1}
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        return stats


# ---------------------------------------------------------------------- the server and the phases


class Server:
    """``python -m schotten serve`` in a process group of its own, with ``fds`` file descriptors."""

    def __init__(self, port: int, database: str, log: Path, fds: int) -> None:
        self.port, self.log = port, log
        command = [sys.executable, "-m", "schotten", "serve", "--port", str(port), "--database", database]

        def limit() -> None:
            if fds:
                _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
                resource.setrlimit(resource.RLIMIT_NOFILE, (min(fds, hard), hard))

        self.process = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                                        preexec_fn=limit, start_new_session=True)
        self.peak_fds = self.peak_rss = 0

    async def started(self) -> None:
        """Once it answers HTTP (SystemExit if it does not within 30 s)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.process.poll() is None:
            with contextlib.suppress(Exception):
                status, _ = await http(HOST, self.port, "GET", "/api/tables", timeout=1)
                if status == 200:
                    return
            await asyncio.sleep(0.2)
        self.stop()
        raise SystemExit(f"the server did not start; its log:\n{self.log.read_text()[-3000:]}")

    async def sample(self) -> None:
        """Note its peak file descriptors and resident memory, twice a second, until cancelled."""
        while True:
            with contextlib.suppress(OSError):
                self.peak_fds = max(self.peak_fds, len(os.listdir(f"/proc/{self.process.pid}/fd")))
                status = Path(f"/proc/{self.process.pid}/status").read_text()
                found = re.search(r"VmRSS:\s+(\d+) kB", status)
                if found:
                    self.peak_rss = max(self.peak_rss, int(found.group(1)) // 1024)
            await asyncio.sleep(0.5)

    def log_errors(self, since: int) -> tuple[int, str]:
        """The error lines its log got after byte ``since``: how many, and the first."""
        with self.log.open("rb") as text:
            text.seek(since)
            found = text.read().decode(errors="replace").splitlines()
        lines = [line for line in found if ERROR_LINE.search(line)]
        return len(lines), (lines[0].strip()[:160] if lines else "")

    def stop(self) -> str:
        """End it (SIGTERM, then SIGKILL), then whatever of its process group is left (its AI
        workers); a note if anything outlived it."""
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            left = group_members(self.process.pid)
            if not left:
                return ""
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        named = Counter(left)
        return (f"{len(left)} of the server's processes outlived it by 3 s and were killed: "
                + ", ".join(f"{count} {name}" for name, count in sorted(named.items())))


def group_members(group: int) -> list[str]:
    """The command lines of the processes in process group ``group`` (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if os.getpgid(int(entry.name)) == group:
                command = (entry / "cmdline").read_bytes().decode(errors="replace")
                found.append("AI worker" if "spawn_main" in command else
                             "resource tracker" if "resource_tracker" in command else command[-60:])
    return found


@dataclass
class Row:
    """One phase's line of the table."""

    phase: str
    attack: dict[str, int]
    actions: int
    actions_per_second: float
    latency_ms: dict[str, float] | None
    ai_reply_ms: dict[str, float] | None
    ai_replies: int
    games: int
    failed: int
    failures: dict[str, int]
    peak_fds: int
    peak_rss_mb: int
    log_errors: int
    first_log_error: str


async def run_phase(kind: str, server: Server, target: Target, numbers: Iterator[int]) -> Row:
    """Real players beside one attack (none for the baseline); the phase's figures."""
    attack = AttackProcess(kind, target) if kind in ATTACKS else None
    if attack is not None:
        await attack.ready()
    server.peak_fds = server.peak_rss = 0
    since = server.log.stat().st_size
    sampler = asyncio.create_task(server.sample())
    try:
        players = await real_players(target.port, target.plan, numbers)
    finally:
        stats = await attack.stop() if attack is not None else {}
        sampler.cancel()
    errors, first = server.log_errors(since)
    return Row(
        phase=kind, attack=stats, actions=len(players.latencies),
        actions_per_second=round(len(players.latencies) / target.plan.seconds, 1),
        latency_ms=percentiles(players.latencies), ai_reply_ms=percentiles(players.ai_replies),
        ai_replies=len(players.ai_replies), games=players.games, failed=sum(players.failures.values()),
        failures=dict(players.failures), peak_fds=server.peak_fds, peak_rss_mb=server.peak_rss,
        log_errors=errors, first_log_error=first,
    )


async def finished_game(port: int, plan: Plan, numbers: Iterator[int], flood_limit: int,
                        flood_window: float) -> str | None:
    """Play one whole friend game (``replay_rounds`` rounds) for the replay loop; its id, or None."""
    players = Players()
    think = 1.2 * flood_window / flood_limit
    try:
        until = time.monotonic() + 120
        game = await friend_game(port, next(numbers), until, players, think, plan.replay_rounds)
    except Exception as error:
        print(f"the game to replay could not be played: {failure(error)}", file=sys.stderr)
        return None
    return game


async def run_all(server: Server, plan: Plan, phases: tuple[str, ...]) -> tuple[list[Row], str | None]:
    """Every phase, one after the other, against one server."""
    await server.started()
    settings = WebSettings.from_env()
    numbers = itertools.count()
    finished = None
    if "replay" in phases:
        finished = await finished_game(server.port, plan, numbers, settings.flood_limit,
                                       settings.flood_window)
    await real_players(server.port, replace(plan, seconds=WARM_UP), numbers)
    target = Target(server.port, plan, settings.flood_limit, settings.flood_window, finished)
    rows = []
    for kind in phases:
        rows.append(await run_phase(kind, server, target, numbers))
        await asyncio.sleep(1)
    return rows, finished


# ---------------------------------------------------------------------- printing


def percentiles(seconds: list[float]) -> dict[str, float] | None:
    """``bench_web.summary`` (p50, p95, p99, max in ms); one sample is all of them; none: None."""
    if len(seconds) == 1:
        only = round(seconds[0] * 1000, 1)
        return {"p50": only, "p95": only, "p99": only, "max": only}
    return summary(seconds)


def describe(kind: str, plan: Plan) -> str:
    """An attack in a few words."""
    return {
        "baseline": "none",
        "slow": f"{plan.slow_silent} silent + {plan.slow_trickle} trickling TCP connections",
        "flood": f"{plan.flood_sockets} sockets sending sync just under the flood limit",
        "replay": f"{plan.replay_clients} clients looping on /replay",
        "ai": f"{plan.ai_tables} {plan.ai_level} AI tables in a burst, played fast",
    }[kind]


def cell(figures: dict[str, float] | None, key: str) -> str:
    """One percentile, or a dash."""
    return "-" if figures is None else f"{figures[key]:g}"


def print_table(rows: list[Row], plan: Plan) -> None:
    """The figures as a Markdown table, then each phase's failures and attack results."""
    print("| phase | attack | actions | actions/s | p50 ms | p99 ms | max ms | failed "
          "| easy AI reply p50 / p99 ms | server fds | server MB | log errors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        reply = f"{cell(row.ai_reply_ms, 'p50')} / {cell(row.ai_reply_ms, 'p99')} ({row.ai_replies})"
        latency = " | ".join(cell(row.latency_ms, key) for key in ("p50", "p99", "max"))
        print(f"| {row.phase} | {describe(row.phase, plan)} | {row.actions} | {row.actions_per_second} "
              f"| {latency} | {row.failed} | {reply} | {row.peak_fds} | {row.peak_rss_mb} "
              f"| {row.log_errors} |")
    print()
    for row in rows:
        failures = ", ".join(f"{k} {v}" for k, v in sorted(row.failures.items())) or "none"
        attack = ", ".join(f"{k} {v}" for k, v in sorted(row.attack.items())) or "-"
        print(f"{row.phase}: real players' failures: {failures}; games finished {row.games}; "
              f"attack: {attack}")
        if row.first_log_error:
            print(f"  first error line of the server's log: {row.first_log_error}")


def main() -> None:
    """Parse the options, run the phases against a fresh server and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true",
                        help="a quick run for CI (fewer attackers, shorter phases)")
    parser.add_argument("--phases", default=",".join(PHASES), help=f"a comma-separated subset of {PHASES}")
    parser.add_argument("--seconds", type=float, default=None, help="seconds measured per phase")
    parser.add_argument("--server-fds", type=int, default=1024,
                        help="the server's soft limit of open files (0: this process' own)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    plan = SHORT if args.short else FULL
    if args.seconds:
        plan = replace(plan, seconds=args.seconds)
    phases = tuple(p.strip() for p in args.phases.split(",") if p.strip())
    if unknown := [p for p in phases if p not in PHASES]:
        parser.error(f"unknown phases {unknown}: choose among {', '.join(PHASES)}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = Server(port, f"sqlite:///{os.path.join(folder, 'attack.db')}", Path(folder) / "server.log",
                        args.server_fds)
        raise_fd_limit()
        try:
            rows, finished = asyncio.run(run_all(server, plan, phases))
        finally:
            outlived = server.stop()
    if args.json:
        print(json.dumps({"plan": asdict(plan), "rows": [asdict(r) for r in rows], "outlived": outlived}))
        return
    print(f"bench_attack ({'short' if args.short else 'full'}): {plan.games} friend games and "
          f"{plan.ai_games} easy AI games of real players at a time (a seat acts at most every {THINK:g} s), "
          f"{plan.seconds:g} s per phase, server limited to {args.server_fds or 'our'} open files, SQLite"
          + ("" if finished else "; no finished game for the replay loop"))
    print()
    print_table(rows, plan)
    if outlived:
        print(outlived)
    print(f"\n{time.monotonic() - started:.0f} s in all")


if __name__ == "__main__":
    main()
