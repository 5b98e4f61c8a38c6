"""Kill the server at any moment, start it again, and every game goes on where it was.

The first test runs the real thing: ``schotten serve`` (uvicorn) in a subprocess on
127.0.0.1 with a temporary SQLite file, a friend game and an AI game played over real
WebSockets, the server killed with SIGKILL, started again, and both games checked to be
exactly where they were (the same version, the same view for each seat) and played to
their end. The other tests restart the app in-process: a game with an undo entry, and an
AI left to move by a dead server (it resumes on start-up, before anyone connects).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from helpers_web import (
    ASIDE,
    GENEROUS_ENV,
    SEED,
    Duel,
    choose,
    free_port,
    log_of,
    receive_state,
    service_of,
    socket_path,
    steady,
    test_settings,
    whole_log,
)
from starlette.testclient import TestClient
from websockets.sync.client import ClientConnection, connect

from schotten.engine import GameState, Settings
from schotten.engine.record import load_record
from schotten.web import create_app
from schotten.web.storage.rows import Entry, GameInfo
from schotten.web.storage.store import Store

TIMEOUT = 60.0
"""A guard against a hung server, not a measurement: every wait ends long before."""


class Server:
    """``schotten serve`` in a subprocess of its own process group (its AI workers included)."""

    def __init__(self, database_url: str, log: Path) -> None:
        self.port = free_port()
        env = os.environ | GENEROUS_ENV | {"SCHOTTEN_AI_WORKERS": "1"}
        command = [sys.executable, "-m", "schotten", "serve", "--port", str(self.port),
                   "--database", database_url]
        self.log = log
        with log.open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                            cwd=log.parent, start_new_session=True)
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=TIMEOUT)
        self._wait_ready()

    def _wait_ready(self) -> None:
        for _ in range(int(TIMEOUT / 0.05)):
            if self.process.poll() is not None:
                raise AssertionError(f"the server stopped: {self.log.read_text()}")
            try:
                if self.http.get("/api/tables").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(0.05)
        raise AssertionError("the server did not start")

    def socket(self, game_id: str, token: str | None) -> ClientConnection:
        """A WebSocket to a game."""
        query = f"?token={token}" if token else ""
        return connect(f"ws://127.0.0.1:{self.port}/ws/games/{game_id}{query}", open_timeout=TIMEOUT)

    def kill(self) -> None:
        """SIGKILL the server and its workers: no chance to tidy up."""
        self.http.close()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(TIMEOUT)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """Servers started by a test; every one is killed at the end, whatever happens."""
    started: list[Server] = []
    yield started
    for server in started:
        server.kill()


def _state(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=TIMEOUT))
    while message["type"] in ASIDE:
        message = json.loads(ws.recv(timeout=TIMEOUT))
    assert message["type"] == "state", message
    return message


def _friend_moves(server: Server, game_id: str, tokens: list[str], rng: random.Random,
                  moves: int | None) -> list[dict[str, Any]]:
    """Play ``moves`` moves (None: to the end) of a friend game; the last state of each seat."""
    with server.socket(game_id, tokens[0]) as first, server.socket(game_id, tokens[1]) as second:
        sockets = [first, second]
        last = [whole_log(None, _state(ws)) for ws in sockets]
        played = 0
        while last[0]["status"] != "over" and (moves is None or played < moves):
            mover = last[0]["view"]["turn"]
            sockets[mover].send(json.dumps({"type": "action", "action": choose(last[mover], rng),
                                            "version": last[mover]["version"]}))
            last = [whole_log(told, _state(ws)) for told, ws in zip(last, sockets, strict=True)]
            played += 1
        return last


def _ai_moves(server: Server, game_id: str, token: str, rng: random.Random, moves: int | None,
              send_last_and_go: bool = False) -> dict[str, Any]:
    """Play ``moves`` of our moves against the AI (None: to the end); our state when it is our turn
    again. With ``send_last_and_go`` the last move is sent and the socket left at once."""
    with server.socket(game_id, token) as ws:
        played = 0
        message = None
        while True:
            message = whole_log(message, _state(ws))
            if message["status"] == "over":
                return message
            if not message["view"]["legal"]:
                continue
            if moves is not None and played == moves:
                return message
            move = choose(message, rng)
            ws.send(json.dumps({"type": "action", "action": move, "version": message["version"]}))
            played += 1
            if send_last_and_go and played == moves:
                return message


def test_kill_and_restart_a_real_server(tmp_path: Path, servers: list[Server]) -> None:
    """SIGKILL mid-game; after the restart the games are exactly where they were and go on to the end.

    Three games: a friend game and an AI game, each left between two moves, and an AI game
    killed right after a move that hands the turn to the AI (the AI has played by then, or
    plays as soon as the server is back).
    """
    database = f"sqlite:///{tmp_path / 'games.db'}"
    servers.append(Server(database, tmp_path / "server.log"))
    first = servers[0]
    assert "Open http://127.0.0.1:" in (tmp_path / "server.log").read_text()
    friend = first.http.post("/api/tables", json={"variant": "tactics", "mode": "friend", "nickname": "Ann",
                                                  "seat": 0}).json()
    friend_tokens = [friend["token"], first.http.post(f"/api/tables/{friend['id']}/join",
                                                      json={"nickname": "Bob"}).json()["token"]]
    ai = first.http.post("/api/tables", json={"variant": "base", "mode": "ai", "level": "easy",
                                              "nickname": "Cy", "seat": 1}).json()
    busy = first.http.post("/api/tables", json={"variant": "tactics", "mode": "ai", "level": "medium",
                                                "nickname": "Di", "seat": 0}).json()
    rng = random.Random(SEED)
    before = _friend_moves(first, friend["id"], friend_tokens, rng, 12)
    ai_before = _ai_moves(first, ai["id"], ai["token"], rng, 4)
    sent = _ai_moves(first, busy["id"], busy["token"], rng, 3, send_last_and_go=True)
    assert before[0]["version"] == 12 and ai_before["version"] >= 8
    first.kill()

    servers.append(Server(database, tmp_path / "server.log"))
    second = servers[1]
    after = _friend_moves(second, friend["id"], friend_tokens, rng, 0)
    assert [steady(m) for m in after] == [steady(m) for m in before]
    assert _ai_moves(second, ai["id"], ai["token"], rng, 0) == ai_before
    resumed = _ai_moves(second, busy["id"], busy["token"], rng, 0)
    assert resumed["version"] >= sent["version"] and resumed["view"]["legal"]
    end = _friend_moves(second, friend["id"], friend_tokens, rng, None)
    assert end[0]["status"] == "over" and end[0]["reveal"] == end[1]["reveal"]
    for game in (ai, busy):
        assert _ai_moves(second, game["id"], game["token"], rng, None)["status"] == "over"
    for game_id in (friend["id"], ai["id"], busy["id"]):
        record = second.http.get(f"/api/games/{game_id}/record").json()
        load_record(json.dumps(record))


def test_restart_keeps_undone_moves_undone(tmp_path: Path) -> None:
    """The log (actions and undo entries) is the truth: a new app replays it to the same states."""
    settings = test_settings(tmp_path)
    rng = random.Random(2)
    with TestClient(create_app(settings)) as client, Duel(client, "tactics", seed=SEED + 34) as duel:
        duel.play_until(lambda state: len(state.history) >= 20 and state.phase.name == "DRAW", rng)
        seat = duel.state.turn
        assert duel.messages[seat][-1]["can_undo"], "choose another seed"
        duel.undo(seat, 1)
        duel.play(choose(duel.messages[seat][-1], rng))
        last = {s: duel.messages[s][-1] for s in (0, 1, None)}
        game_id, tokens = duel.id, duel.tokens
    with TestClient(create_app(settings)) as client:
        for who in (0, 1, None):
            token = None if who is None else tokens[who]
            with client.websocket_connect(socket_path(game_id, token)) as ws:
                assert steady(receive_state(ws)) == steady(last[who])
        assert [e.kind for e in log_of(client, game_id)].count("undo") == 1


def test_an_ai_left_to_move_resumes_on_start_up(tmp_path: Path) -> None:
    """A dead server left the AI to move: the new one plays the AI's turn on start-up, unasked."""
    settings = test_settings(tmp_path)
    store = Store(settings.database_url)
    store.create_schema()
    state = GameState.new(Settings.of("base"), SEED)
    ai_seat = state.turn
    info = GameInfo(id="resume", variant="base", rounds=1, seed=SEED, mode="ai", level="easy",
                    ai_seat=ai_seat, players=[None, None], token_hashes=[None, None], status="playing")
    info.players[ai_seat], info.players[1 - ai_seat] = "AI (easy)", "Ann"
    store.add_game(info)
    store.close()
    with TestClient(create_app(settings)) as client:
        game = service_of(client).games["resume"]
        task = game.ai_task
        assert task is not None and client.portal is not None

        async def finished() -> None:
            await task

        client.portal.call(finished)
        entries = log_of(client, "resume")
        assert entries and all(isinstance(e, Entry) and e.seat == ai_seat for e in entries)
        assert game.state.turn == 1 - ai_seat and game.version == len(entries)
