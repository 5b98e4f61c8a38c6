"""Sockets closed by a log-out and a ban in one process (``games.closing``): a log-out closes that
session's game socket and player socket (``/ws/me``), and no other session's; a ban closes every
socket of the account. Across processes: test_cluster_closing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_community import app_on, player
from helpers_web import service_of, socket_path
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from schotten.web.games.closing import BANNED_CLOSE, LOGGED_OUT_CLOSE
from schotten.web.moderation.roles import set_moderator
from schotten.web.players.identity import SESSION_COOKIE

WAIT = 10.0


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TestClient]:
    """An app on SQLite (a guest's browser)."""
    with app_on(tmp_path, f"sqlite:///{tmp_path / 'games.db'}") as client:
        yield client


def second_session(app: TestClient, browser: TestClient, name: str) -> TestClient:
    """Another browser logged in to the account ``name`` (a session of its own)."""
    other = TestClient(app.app, base_url=str(app.base_url))
    other.portal = browser.portal
    accounts = service_of(app).accounts
    account = accounts.by_name(name)
    assert account is not None
    other.cookies.set(SESSION_COOKIE, accounts.new_session(account.id))
    return other


def game_between(first: TestClient, second: TestClient) -> str:
    """A friend table opened by ``first`` (seat 0) and joined by ``second``: its id."""
    opened = first.post("/api/tables", json={"variant": "base", "rounds": 1, "mode": "friend", "seat": 0})
    assert opened.status_code == 200, opened.text
    joined = second.post(f"/api/tables/{opened.json()['id']}/join", json={})
    assert joined.status_code == 200, joined.text
    found: str = opened.json()["id"]
    return found


def sockets_of(app: TestClient, account: int) -> int:
    """How many sockets the account has open in the app: game sockets and player sockets."""
    service = service_of(app)
    games = sum(conn.reader == account for game in service.games.values() for conn in game.connections)
    return games + service.channels.open_count(account)


def until(check: Any) -> None:
    """Wait (bounded) until ``check()`` holds."""
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, "the sockets were not closed in time"
        time.sleep(0.02)


def close_code(ws: WebSocketTestSession) -> int:
    """The code the server closed ``ws`` with (after the messages still queued)."""
    for _ in range(100):
        try:
            ws.receive_json()
        except WebSocketDisconnect as closed:
            return int(closed.code)
    raise AssertionError("the socket was not closed")


def account_of(app: TestClient, name: str) -> int:
    """The id of the account ``name``."""
    found = service_of(app).accounts.by_name(name)
    assert found is not None
    return found.id


def test_a_log_out_closes_that_sessions_sockets_only(app: TestClient) -> None:
    """Ann's game socket and player socket close with ``LOGGED_OUT_CLOSE`` when she logs out; her
    other session's player socket, and Bob's sockets, stay open."""
    ann, bob = player(app, "Ann"), player(app, "Bob")
    elsewhere = second_session(app, ann, "Ann")
    game_id = game_between(ann, bob)
    ann_id, bob_id = account_of(app, "Ann"), account_of(app, "Bob")
    with ann.websocket_connect(socket_path(game_id)) as game, ann.websocket_connect("/ws/me") as mine, \
            elsewhere.websocket_connect("/ws/me") as other, \
            bob.websocket_connect(socket_path(game_id)) as bobs:
        assert game.receive_json()["type"] == "state" and bobs.receive_json()["type"] == "state"
        assert mine.receive_json()["type"] == other.receive_json()["type"] == "hello"
        assert sockets_of(app, ann_id) == 3
        assert ann.delete("/api/session").status_code == 204
        until(lambda: sockets_of(app, ann_id) == 1)
        assert close_code(game) == close_code(mine) == LOGGED_OUT_CLOSE
        assert service_of(app).channels.open_count(ann_id) == 1 and sockets_of(app, bob_id) == 1
    assert elsewhere.get("/api/session").json()["username"] == "Ann"


def test_a_ban_closes_every_socket_of_the_player(app: TestClient) -> None:
    """A moderator's ban closes the banned player's game socket and both their sessions' player
    sockets with ``BANNED_CLOSE``, and their game ends."""
    ann, bob, carol = player(app, "Ann"), player(app, "Bob"), player(app, "Carol")
    set_moderator(service_of(app).store, "Carol", True)
    elsewhere = second_session(app, bob, "Bob")
    game_id = game_between(ann, bob)
    bob_id = account_of(app, "Bob")
    with bob.websocket_connect(socket_path(game_id)) as game, bob.websocket_connect("/ws/me") as mine, \
            elsewhere.websocket_connect("/ws/me") as other:
        assert game.receive_json()["type"] == "state"
        assert mine.receive_json()["type"] == other.receive_json()["type"] == "hello"
        ban = carol.post("/api/moderation/actions", json={"player": "Bob", "action": "ban", "note": "abuse"})
        assert ban.status_code == 200, ban.text
        until(lambda: sockets_of(app, bob_id) == 0)
        assert close_code(game) == close_code(mine) == close_code(other) == BANNED_CLOSE
    ended = app.get(f"/api/games/{game_id}").json()
    assert ended["status"] == "over" and ended["winner"] == 0
