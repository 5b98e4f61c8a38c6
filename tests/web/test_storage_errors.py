"""A database that cannot be used now, and a game whose log does not replay, in-process.

A locked SQLite file (another connection holds an exclusive lock), or a PostgreSQL table locked
by another connection, refuses a move within the busy timeout (``db_busy_timeout``) with the
socket error ``unavailable``, and a new table with a JSON 503; nothing changes, and the same
move is played once the lock is gone. A SQLite file deleted while the server runs refuses every
move from then on (it would be lost at the next start), with one log line naming the path. A
game whose stored log does not replay is damaged: its HTTP answers are a JSON 409, its socket
gets ``damaged`` and a close frame (4409), it is logged once with its id and the entry, and
every other game goes on.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from pathlib import Path

import pytest
from helpers_web import SEED, Duel, choose, create, receive_error, socket_path, test_settings
from sqlalchemy import text
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_postgres import database_url, server_url  # noqa: F401 (fixtures: skip without PostgreSQL)

from schotten.web import create_app
from schotten.web.core.errors import DAMAGED, UNAVAILABLE
from schotten.web.storage.db import make_engine

BUSY_TIMEOUT = 0.5
WAIT_BOUND = 10.0
"""A guard, far above the busy timeout and far below the 30 s the old server hung for."""


def _move(duel: Duel) -> dict[str, object]:
    seat = duel.state.turn
    return {"type": "action", "action": choose(duel.messages[seat][-1], random.Random(3)),
            "version": duel.version}


def test_a_locked_database_refuses_a_move_within_the_busy_timeout(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, db_busy_timeout=BUSY_TIMEOUT)
    with TestClient(create_app(settings)) as client, Duel(client) as duel:
        duel.play_until(lambda state: len(state.history) >= 4, random.Random(1))
        move = _move(duel)
        locker = sqlite3.connect(tmp_path / "games.db", isolation_level=None)
        try:
            locker.execute("BEGIN EXCLUSIVE")
            started = time.monotonic()
            error = duel.refused(duel.state.turn, move, "unavailable")
            assert time.monotonic() - started < WAIT_BOUND
            assert error["message"] == UNAVAILABLE
            answer = client.post("/api/tables", json={"mode": "friend", "nickname": "Cy"})
            assert answer.status_code == 503 and answer.json() == {"error": UNAVAILABLE}
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        duel.play(str(move["action"]))
        assert duel.version == 5


def test_a_locked_postgresql_table_refuses_a_move_within_the_busy_timeout(
        tmp_path: Path, database_url: str) -> None:  # noqa: F811
    settings = test_settings(tmp_path, database_url=database_url, db_busy_timeout=BUSY_TIMEOUT)
    locker = make_engine(database_url)
    with TestClient(create_app(settings)) as client, Duel(client) as duel:
        duel.play_until(lambda state: len(state.history) >= 4, random.Random(1))
        move = _move(duel)
        with locker.connect() as connection:
            connection.execute(text("LOCK TABLE log_entries IN ACCESS EXCLUSIVE MODE"))
            started = time.monotonic()
            duel.refused(duel.state.turn, move, "unavailable")
            assert time.monotonic() - started < WAIT_BOUND
            connection.rollback()
        duel.play(str(move["action"]))
    locker.dispose()


def test_a_deleted_database_file_refuses_every_move(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as client, Duel(client) as duel:
        duel.play_until(lambda state: len(state.history) >= 3, random.Random(2))
        for name in ("games.db", "games.db-wal", "games.db-shm"):
            (tmp_path / name).unlink(missing_ok=True)
        with caplog.at_level(logging.ERROR, logger="schotten.web"):
            for _ in range(2):
                duel.refused(duel.state.turn, _move(duel), "unavailable")
        assert client.post("/api/tables", json={"mode": "friend", "nickname": "Cy"}).status_code == 503
        lines = [r.getMessage() for r in caplog.records if "deleted" in r.getMessage()]
        assert len(lines) == 1 and str(tmp_path / "games.db") in lines[0]


def _damage(path: Path, game_id: str, index: int) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute('UPDATE log_entries SET notation = ? WHERE game_id = ? AND "index" = ?',
                           ("9z@9", game_id, index))


def test_a_damaged_game_is_refused_clearly_and_the_others_go_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = test_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        with Duel(client) as broken:
            broken.play_until(lambda state: len(state.history) >= 5, random.Random(4))
        with Duel(client, seed=SEED + 1) as healthy:
            healthy.play_until(lambda state: len(state.history) >= 2, random.Random(5))
            broken_id, tokens, healthy_id = broken.id, broken.tokens, healthy.id
    _damage(tmp_path / "games.db", broken_id, 3)
    with caplog.at_level(logging.ERROR, logger="schotten.web"), TestClient(create_app(settings)) as client:
        for path in (f"/api/games/{broken_id}", f"/api/games/{broken_id}/record", f"/game/{broken_id}"):
            answer = client.get(path)
            assert answer.status_code == 409 and answer.json() == {"error": DAMAGED}, path
        with client.websocket_connect(socket_path(broken_id, tokens[0])) as ws:
            assert receive_error(ws, "damaged")["message"] == DAMAGED
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4409
        assert client.get(f"/api/games/{healthy_id}").json()["version"] == 2
        with Duel(client, seed=SEED + 2) as other:
            other.play_until(lambda state: len(state.history) >= 3, random.Random(6))
        assert client.get(f"/api/games/{broken_id}").status_code == 409
    logged = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert len(logged) == 1 and broken_id in logged[0] and "entry 3" in logged[0]


def test_a_table_of_an_unreadable_database_is_a_503_not_a_500(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, db_busy_timeout=BUSY_TIMEOUT)
    with TestClient(create_app(settings)) as client:
        grant = create(client)
        locker = sqlite3.connect(tmp_path / "games.db", isolation_level=None)
        try:
            locker.execute("BEGIN EXCLUSIVE")
            answer = client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"})
            assert answer.status_code == 503 and answer.json() == {"error": UNAVAILABLE}
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        assert client.post(f"/api/tables/{grant['id']}/join", json={"nickname": "Bob"}).status_code == 200
