"""``schotten serve`` in a subprocess (a crash must not take pytest with it), on 127.0.0.1.

- An in-memory SQLite database (``sqlite://``) serves concurrent games (it crashed with SIGSEGV
  at 10, and failed actions at 2-5).
- A SQLite file made read-only while the server runs: a move is refused with ``unavailable``
  (nothing stored, the server keeps running and logs the path); writable again, play goes on.
- A missing folder, a read-only file or a read-only folder at start: one line naming the path,
  a non-zero status, no traceback, and never "Open ... to play" first.

Read-only files mean nothing to root, so as root the server runs without the capabilities that
let root write anyway (``setpriv``); without setpriv those tests are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from helpers_web import ASIDE
from websockets.asyncio.client import ClientConnection, connect

TIMEOUT = 30.0
"""A guard against a hung server, not a measurement."""
GAMES = 12
MOVES = 24
DROP_POWERS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
ENV = {"SCHOTTEN_AI_WORKERS": "1", "SCHOTTEN_FLOOD_LIMIT": "100000", "SCHOTTEN_ADDRESS_RATE": "100000/second",
       "SCHOTTEN_TABLES_RATE": "100000/minute", "SCHOTTEN_OPEN_TABLES_PER_ADDRESS": "100000",
       "SCHOTTEN_SOCKETS_PER_ADDRESS": "100000", "SCHOTTEN_CONNECTIONS_PER_ADDRESS": "100000"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _powerless() -> list[str]:
    """The command prefix under which read-only files are read-only (empty unless root); skip if none."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None or subprocess.run([*DROP_POWERS, "true"]).returncode != 0:
        pytest.skip("running as root without setpriv: read-only files cannot be tested")
    return DROP_POWERS


def _command(database: str, port: int) -> list[str]:
    return [sys.executable, "-m", "schotten", "serve", "--port", str(port), "--database", database]


class Server:
    """``schotten serve`` in a subprocess of its own session, killed at the end."""

    def __init__(self, database: str, log: Path, prefix: list[str] | None = None) -> None:
        self.port = _free_port()
        self.log = log
        with log.open("ab") as out:
            self.process = subprocess.Popen([*(prefix or []), *_command(database, self.port)], stdout=out,
                                            stderr=subprocess.STDOUT, env=os.environ | ENV,
                                            start_new_session=True, cwd=log.parent)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=TIMEOUT)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the server stopped: {log.read_text()}"
            with contextlib.suppress(httpx.TransportError):
                if self.http.get("/api/tables").status_code == 200:
                    return
            time.sleep(0.05)
        raise AssertionError("the server did not start")

    def table(self) -> tuple[str, list[str]]:
        """A friend table with both seats taken: its id and the seats' tokens."""
        grant = self.http.post("/api/tables", json={"mode": "friend", "nickname": "Ann", "seat": 0}).json()
        guest = self.http.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"}).json()
        return grant["id"], [grant["token"], guest["token"]]

    def url(self, game_id: str, token: str) -> str:
        """The socket address of a seat."""
        return f"ws://127.0.0.1:{self.port}/ws/games/{game_id}?token={token}"

    def stop(self) -> None:
        """Kill the server (and anything it started)."""
        self.http.close()
        if self.process.poll() is None:
            os.killpg(self.process.pid, 9)
        self.process.wait(TIMEOUT)


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """Servers started by a test; each is killed at the end, whatever happens."""
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


async def _message(ws: ClientConnection) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        if message["type"] not in ASIDE:
            return message


class Game:
    """Both seats of a friend game over WebSockets."""

    def __init__(self, sockets: list[ClientConnection], rng: random.Random) -> None:
        self.sockets = sockets
        self.rng = rng
        self.last: list[dict[str, Any]] = []

    async def start(self) -> None:
        """Read each seat's first state."""
        self.last = [await _message(ws) for ws in self.sockets]

    async def move(self) -> dict[str, Any]:
        """The seat to move sends a random legal action: its answer (the new state or an error)."""
        mover = self.last[0]["view"]["turn"]
        version = self.last[mover]["version"]
        action = self.rng.choice(self.last[mover]["view"]["legal"])
        await self.sockets[mover].send(json.dumps({"type": "action", "action": action, "version": version}))
        answer = await _message(self.sockets[mover])
        if answer["type"] == "error":
            return answer
        assert answer["version"] == version + 1
        other = await _message(self.sockets[1 - mover])
        self.last[mover], self.last[1 - mover] = answer, other
        return answer


async def _play(server: Server, seed: int, moves: int) -> int:
    game_id, tokens = await asyncio.to_thread(server.table)
    async with connect(server.url(game_id, tokens[0])) as first, \
            connect(server.url(game_id, tokens[1])) as second:
        game = Game([first, second], random.Random(seed))
        await game.start()
        for _ in range(moves):
            answer = await game.move()
            assert answer["type"] == "state", answer
            if answer["status"] == "over":
                break
        return int(game.last[0]["version"])


def test_in_memory_sqlite_serves_concurrent_games(tmp_path: Path, servers: list[Server]) -> None:
    servers.append(Server("sqlite://", tmp_path / "server.log"))

    async def main() -> list[int]:
        return list(await asyncio.gather(*(_play(servers[0], seed, MOVES) for seed in range(GAMES))))

    versions = asyncio.run(main())
    assert all(v >= min(MOVES, 20) for v in versions), versions
    assert servers[0].process.poll() is None
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def _chmod(folder: Path, mode: int) -> None:
    for path in folder.glob("games.db*"):
        path.chmod(mode)


def test_a_database_file_made_read_only_refuses_moves_and_the_server_lives(
        tmp_path: Path, servers: list[Server]) -> None:
    prefix = _powerless()
    folder = tmp_path / "data"
    folder.mkdir()
    servers.append(Server(f"sqlite:///{folder / 'games.db'}", tmp_path / "server.log", prefix))
    server = servers[0]
    game_id, tokens = server.table()

    async def main() -> None:
        async with connect(server.url(game_id, tokens[0])) as first, \
                connect(server.url(game_id, tokens[1])) as second:
            game = Game([first, second], random.Random(9))
            await game.start()
            for _ in range(4):
                await game.move()
            _chmod(folder, 0o444)
            try:
                for _ in range(3):
                    refused = await game.move()
                    assert refused["type"] == "error" and refused["code"] == "unavailable", refused
                assert server.process.poll() is None
            finally:
                _chmod(folder, 0o644)
            assert (await game.move())["version"] == 5

    asyncio.run(main())
    log = (tmp_path / "server.log").read_text()
    assert str(folder / "games.db") in log and "read-only" in log


def _refused_start(database: str, tmp_path: Path, prefix: list[str]) -> str:
    """Start the server on ``database``: it must exit non-zero without a traceback; its output."""
    done = subprocess.run([*prefix, *_command(database, _free_port())], capture_output=True, text=True,
                          timeout=TIMEOUT, env=os.environ | ENV, cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "Traceback" not in output and "Open " not in output, output
    return output


def test_a_missing_folder_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "games.db"
    output = _refused_start(f"sqlite:///{path}", tmp_path, [])
    assert str(path.parent) in output and "does not exist" in output


def test_a_read_only_file_is_refused_at_start(tmp_path: Path) -> None:
    prefix = _powerless()
    path = tmp_path / "games.db"
    path.write_bytes(b"")
    path.chmod(0o444)
    output = _refused_start(f"sqlite:///{path}", tmp_path, prefix)
    assert str(path) in output and "read-only" in output


def test_a_read_only_folder_is_refused_at_start(tmp_path: Path) -> None:
    prefix = _powerless()
    folder = tmp_path / "data"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        output = _refused_start(f"sqlite:///{folder / 'games.db'}", tmp_path, prefix)
    finally:
        folder.chmod(0o755)
    assert str(folder) in output and "not writable" in output
