"""The edge of a real server: body, header and frame sizes, timeouts, connections per address, and logs
without tokens.

Each test talks over raw sockets (or a WebSocket client) to a server in a subprocess on 127.0.0.1,
started the two documented ways: ``schotten serve`` and ``uvicorn --factory
schotten.web.app:app_from_env --http ... --ws ...`` (docs/web.md, "Running it"; the limits are in
docs/web/limits.md). A source address of 127.0.0.2 stands for a second client (loopback is the whole
127.0.0.0/8). Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from helpers_web import free_port
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from schotten.web.edge.server import redact

TIMEOUT = 20.0
"""A guard against a hung server, not a measurement."""
DOCS = Path(__file__).resolve().parents[2] / "docs" / "web.md"


def _documented_uvicorn() -> list[str]:
    """The ``uvicorn`` command of docs/web.md, without its ``--port``."""
    lines = DOCS.read_text().replace("\\\n", " ").splitlines()
    words = shlex.split(next(line for line in lines if line.startswith("uvicorn ")), comments=True)
    at = words.index("--port")
    return [sys.executable, "-m", *words[:at], *words[at + 2:]]


COMMANDS = {
    "serve": [sys.executable, "-m", "schotten", "serve"],
    "uvicorn": _documented_uvicorn(),
    "plain-uvicorn": [sys.executable, "-m", "uvicorn", "--factory", "schotten.web.app:app_from_env"],
}
"""The documented commands (docs/web.md) and uvicorn without the edge's protocols."""
BOTH = ["serve", "uvicorn"]
QUICK = {"SCHOTTEN_HANDSHAKE_TIMEOUT": "1", "SCHOTTEN_IDLE_TIMEOUT": "1"}
CROWD = {"SCHOTTEN_CONNECTIONS_PER_ADDRESS": "8", "SCHOTTEN_HANDSHAKE_TIMEOUT": "60"}
MAX_BODY = 64 * 1024
MAX_HEADERS = 16 * 1024


class Server:
    """A server started by one of ``COMMANDS`` with ``env``, its output in ``log``."""

    def __init__(self, how: str, directory: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.log = directory / f"{how}.log"
        environment = os.environ | env | {
            "SCHOTTEN_DATABASE_URL": f"sqlite:///{directory / (how + '.db')}",
            "SCHOTTEN_AI_PROCESSES": "false", "SCHOTTEN_AI_WORKERS": "1", "SCHOTTEN_PORT": str(self.port)}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen([*COMMANDS[how], "--port", str(self.port)], stdout=out,
                                            stderr=subprocess.STDOUT, env=environment, cwd=directory,
                                            start_new_session=True)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server stopped: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.origin}/api/tables", timeout=TIMEOUT).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("the server did not start")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it lingers)."""
        self.process.terminate()
        try:
            self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(TIMEOUT)

    def table(self) -> tuple[str, str]:
        """A new friend table: its id and the creator's seat token."""
        answer = httpx.post(f"{self.origin}/api/tables", json={"mode": "friend", "nickname": "Ada"},
                            headers={"Origin": self.origin}, timeout=TIMEOUT)
        assert answer.status_code == 200, answer.text
        grant = answer.json()
        return grant["id"], grant["token"]

    def websocket(self, path: str) -> ClientConnection:
        """A WebSocket client on ``path``."""
        return connect(f"ws://127.0.0.1:{self.port}{path}", origin=Origin(self.origin), max_size=None,
                       open_timeout=TIMEOUT, close_timeout=2)

    def raw(self, source: str = "127.0.0.1") -> socket.socket:
        """A TCP connection from ``source``."""
        return socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT, source_address=(source, 0))


@contextlib.contextmanager
def _start(how: str, directory: Path, env: dict[str, str]) -> Iterator[Server]:
    server = Server(how, directory, env)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module", params=BOTH)
def quick(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with handshake and idle timeouts of 1 s, started each documented way."""
    with _start(request.param, tmp_path_factory.mktemp("quick"), QUICK) as server:
        yield server


@pytest.fixture(scope="module")
def crowd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A ``schotten serve`` allowing 8 connections per address, with a long handshake timeout."""
    with _start("serve", tmp_path_factory.mktemp("crowd"), CROWD) as server:
        yield server


def _read_all(sock: socket.socket, limit: float = 5.0) -> bytes:
    """What the server sends until it closes the connection (at most ``limit`` seconds)."""
    sock.settimeout(limit)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer.split(b" ", 2)[1])


def _error(answer: bytes) -> str:
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert set(body) == {"error"}, body
    message: str = body["error"]
    return message


def _send_until_answered(sock: socket.socket, head: bytes, pieces: Iterator[bytes]) -> tuple[int, bytes]:
    """Send ``head``, then ``pieces`` one by one until the server answers: the bytes sent after the head
    and the answer."""
    sock.sendall(head)
    sent = 0
    for piece in pieces:
        readable, _, _ = select.select([sock], [], [], 0.02)
        if readable:
            break
        try:
            sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            break
        sent += len(piece)
    return sent, _read_all(sock)


def _request(path: str, *lines: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *lines, "", ""]).encode()


# ------------------------------------------------------------------ bodies and headers


def test_a_body_announced_too_large_is_refused_before_it_is_sent(quick: Server) -> None:
    head = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n")
    with quick.raw() as sock:
        sock.sendall(head)
        answer = _read_all(sock)
    assert _status(answer) == 413
    assert "larger than this server accepts" in _error(answer)


def test_a_chunked_body_is_refused_once_it_grows_past_the_limit(quick: Server) -> None:
    head = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    piece = b"2000\r\n" + b" " * 0x2000 + b"\r\n"
    with quick.raw() as sock:
        sent, answer = _send_until_answered(sock, head, iter([piece] * 128))
    assert _status(answer) == 413, answer[:300]
    assert sent <= MAX_BODY + 4 * len(piece), f"{sent} bytes were read before the refusal"


def test_headers_that_never_end_are_refused(quick: Server) -> None:
    head = _request("/api/tables").removesuffix(b"\r\n") + b"X-Padding: "
    with quick.raw() as sock:
        sent, answer = _send_until_answered(sock, head, iter([b"a" * 4096] * 256))
    assert _status(answer) == 431, answer[:300]
    assert "headers are larger" in _error(answer)
    assert sent <= MAX_HEADERS + 64 * 1024


def test_many_headers_in_one_piece_are_refused(quick: Server) -> None:
    lines = [f"X-Padding-{n}: {'a' * 1000}" for n in range(40)]
    with quick.raw() as sock:
        sock.sendall(_request("/api/tables", *lines, "Connection: close"))
        answer = _read_all(sock)
    assert _status(answer) == 431, answer[:300]


def test_a_request_within_the_limits_is_served(quick: Server) -> None:
    with quick.raw() as sock:
        sock.sendall(_request("/api/tables", "X-Padding: " + "a" * 8000, "Connection: close"))
        assert _status(_read_all(sock)) == 200


# ------------------------------------------------------------------ WebSocket frames


@pytest.mark.parametrize("how", BOTH)
def test_a_megabyte_frame_closes_the_socket_with_1009(how: str, tmp_path: Path) -> None:
    with _start(how, tmp_path, {}) as server:
        game_id, token = server.table()
        with server.websocket(f"/ws/games/{game_id}?token={token}") as ws:
            ws.recv(timeout=TIMEOUT)
            with pytest.raises(ConnectionClosed) as closed:
                ws.send("x" * 2**20)
                for _ in range(10):
                    ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert "runs without schotten's uvicorn protocols" not in server.log.read_text()


def test_uvicorn_without_the_edge_protocols_warns(tmp_path: Path) -> None:
    with _start("plain-uvicorn", tmp_path, {}) as server:
        server.table()
    assert server.log.read_text().count("runs without schotten's uvicorn protocols") == 1


# ------------------------------------------------------------------ timeouts


def test_a_silent_connection_is_closed_after_the_handshake_timeout(quick: Server) -> None:
    with quick.raw() as sock:
        started = time.monotonic()
        assert _read_all(sock, limit=4) == b""
        assert time.monotonic() - started < 4


def test_a_trickled_request_is_closed_after_the_handshake_timeout(quick: Server) -> None:
    with quick.raw() as sock:
        sent, answer = _send_until_answered(sock, b"GET /api/tables HTTP/1.1\r\n",
                                            _slowly(b"X-Slow: abc\r\n", 0.2, 40))
    assert _status(answer) == 408, answer
    assert sent < 40 * 13


def _slowly(piece: bytes, pause: float, count: int) -> Iterator[bytes]:
    for _ in range(count):
        time.sleep(pause)
        yield piece


def test_an_idle_keep_alive_connection_is_closed(quick: Server) -> None:
    with quick.raw() as sock:
        sock.sendall(_request("/api/tables"))
        started = time.monotonic()
        answer = _read_all(sock, limit=4)
        assert _status(answer) == 200
        assert time.monotonic() - started < 4


def test_a_spectator_who_only_watches_stays_connected(quick: Server) -> None:
    game_id, _token = quick.table()
    with quick.websocket(f"/ws/games/{game_id}") as ws:
        ws.recv(timeout=TIMEOUT)
        time.sleep(2.5)
        ws.ping().wait(timeout=TIMEOUT)


# ------------------------------------------------------------------ connections per address


def test_connections_beyond_the_limit_are_refused_while_another_address_gets_in(crowd: Server) -> None:
    held = [crowd.raw() for _ in range(8)]
    try:
        for _ in range(50):
            with crowd.raw() as extra:
                answer = _read_all(extra)
            assert _status(answer) == 429, answer
            assert "Too many connections" in _error(answer)
        with crowd.raw("127.0.0.2") as other:
            other.sendall(_request("/api/tables", "Connection: close"))
            assert _status(_read_all(other)) == 200
    finally:
        for sock in held:
            sock.close()
    _wait_served(crowd)
    assert crowd.log.read_text().count("Refusing connections from 127.0.0.1") == 1


def test_a_websocket_counts_for_its_address_while_open(crowd: Server) -> None:
    game_id, _token = crowd.table()
    _wait_served(crowd)
    with crowd.websocket(f"/ws/games/{game_id}") as ws:
        ws.recv(timeout=TIMEOUT)
        held = [crowd.raw() for _ in range(7)]
        try:
            with crowd.raw() as extra:
                assert _status(_read_all(extra)) == 429
        finally:
            for sock in held:
                sock.close()
    _wait_served(crowd)


def _wait_served(server: Server) -> None:
    """Wait until 127.0.0.1 is served again (its closed connections forgotten)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        with server.raw() as sock:
            sock.sendall(_request("/api/tables", "Connection: close"))
            if _status(_read_all(sock)) == 200:
                return
        time.sleep(0.05)
    raise AssertionError("127.0.0.1 is still refused")


# ------------------------------------------------------------------ tokens in logs


def test_a_token_in_a_url_never_reaches_the_log(quick: Server) -> None:
    game_id, token = quick.table()
    with quick.raw() as sock:
        sock.sendall(_request(f"/game/{game_id}?token={token}", "Connection: close"))
        _read_all(sock)
    with quick.websocket(f"/ws/games/{game_id}?token={token}") as ws:
        ws.recv(timeout=TIMEOUT)
    deadline = time.monotonic() + TIMEOUT
    while "WebSocket /ws/games/" not in quick.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = quick.log.read_text()
    assert f"/game/{game_id}?token=[hidden]" in log
    assert token not in log


@pytest.mark.parametrize(("line", "shown"), [
    ('"GET /game/ab12?token=s3cr3t HTTP/1.1" 200', '"GET /game/ab12?token=[hidden] HTTP/1.1" 200'),
    ("/ws/games/ab12?lang=de&TOKEN=s3cr3t&x=1", "/ws/games/ab12?lang=de&TOKEN=[hidden]&x=1"),
    ("/api/tables?mytoken=kept", "/api/tables?mytoken=kept"),
])
def test_redact_hides_token_values_only(line: str, shown: str) -> None:
    assert redact(line) == shown


def test_a_trickled_body_is_closed_after_the_handshake_timeout(quick: Server) -> None:
    head = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n")
    with quick.raw() as sock:
        sent, answer = _send_until_answered(sock, head, _slowly(b" ", 0.2, 40))
    assert _status(answer) == 408, answer
    assert sent < 40


def _extensions(server: Server, game_id: str) -> str:
    """The WebSocket extensions the server agreed to for a client that offers permessage-deflate."""
    with server.websocket(f"/ws/games/{game_id}") as ws:
        assert ws.response is not None
        return ws.response.headers.get("Sec-WebSocket-Extensions", "")


@pytest.mark.parametrize("how", BOTH)
def test_messages_are_not_compressed_unless_asked(how: str, tmp_path: Path) -> None:
    """Compressing every state message cost a sixth of the server's CPU: ``ws_deflate`` is off by
    default under both start commands, and on when set."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "deflate").mkdir()
    with _start(how, tmp_path / "plain", {}) as server:
        assert "permessage-deflate" not in _extensions(server, server.table()[0])
    with _start(how, tmp_path / "deflate", {"SCHOTTEN_WS_DEFLATE": "1"}) as server:
        assert "permessage-deflate" in _extensions(server, server.table()[0])
