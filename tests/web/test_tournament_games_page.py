"""A tournament game names its tournament to its page (issue 28): the table (``GET /api/games/{id}``)
and every state message, a spectator's too, carry ``tournament`` (id, name, format, an arena's end
and, in a state, the milliseconds left to it); an ordinary game's carry none. SQLite, and PostgreSQL
when ``SCHOTTEN_TEST_POSTGRES_URL`` is set."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers_web import create, receive_state, service_of, socket_path
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)
from test_tournaments import created, log_in, resign, tournament_app

MINUTE_MS = 60_000


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The settings' database: the test's SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return {}
    return {"database_url": request.getfixturevalue("database_url")}


def paired(client: TestClient, **shape: Any) -> tuple[int, str, str]:
    """A tournament (``ARENA`` changed by ``shape``) that Ann and Bob joined, started and paired: its
    id, their game and Bob's ticket (his seat's token)."""
    log_in(client, "Ann")
    tid = created(client, **shape)
    assert client.post(f"/api/tournaments/{tid}/join").status_code == 200
    log_in(client, "Bob")
    assert client.post(f"/api/tournaments/{tid}/join").status_code == 200
    ticket = client.cookies.get(f"tournament_{tid}")
    assert ticket
    director = service_of(client).tournaments.director
    assert director.run_once() == []  # the start
    [game] = director.run_once()
    return tid, game, ticket


def test_an_arena_games_table_and_states_name_the_arena_and_the_time_left(
        tmp_path: Path, database: dict[str, Any]) -> None:
    with tournament_app(tmp_path, **database) as (client, clock):
        started = clock()
        tid, game, ticket = paired(client)
        ends_at = client.get(f"/api/tournaments/{tid}").json()["ends_at"]
        assert ends_at == (started + timedelta(minutes=60)).isoformat()
        named = {"id": tid, "name": "Tonight", "format": "arena", "ends_at": ends_at}
        client.cookies.clear()
        assert client.get(f"/api/games/{game}").json()["tournament"] == named
        clock.advance(90)
        with client.websocket_connect(socket_path(game)) as watcher, \
                client.websocket_connect(socket_path(game, ticket)) as bob:
            watched, seated = receive_state(watcher), receive_state(bob)
            assert watched["seat"] is None and seated["seat"] in (0, 1)
            for state in (watched, seated):
                assert state["tournament"] == named | {"left_ms": 60 * MINUTE_MS - 90_000}
            clock.advance(30)
            resign(client, game, seated["seat"])
            over = receive_state(bob)
            while over["status"] != "over":
                over = receive_state(bob)
            assert over["tournament"] == named | {"left_ms": 60 * MINUTE_MS - 120_000}
            clock.advance(3600)
            bob.send_json({"type": "sync"})
            assert receive_state(bob)["tournament"] == named | {"left_ms": 0}, "the arena has ended"


def test_a_swiss_games_table_and_state_name_the_swiss_with_no_end(
        tmp_path: Path, database: dict[str, Any]) -> None:
    with tournament_app(tmp_path, **database) as (client, _clock):
        tid, game, _ticket = paired(client, format="swiss", minutes=None, rounds=2)
        named = {"id": tid, "name": "Tonight", "format": "swiss", "ends_at": None}
        assert client.get(f"/api/games/{game}").json()["tournament"] == named
        with client.websocket_connect(socket_path(game)) as watcher:
            assert receive_state(watcher)["tournament"] == named | {"left_ms": None}


def test_an_ordinary_games_table_and_state_name_no_tournament(
        tmp_path: Path, database: dict[str, Any]) -> None:
    with tournament_app(tmp_path, **database) as (client, _clock):
        log_in(client, "Ann")
        created(client)  # a tournament exists, but this game is not one of its
        grant = create(client)
        assert client.get(f"/api/games/{grant['id']}").json()["tournament"] is None
        with client.websocket_connect(socket_path(grant["id"], grant["token"])) as ann:
            assert "tournament" not in receive_state(ann)
        lobby = client.get("/api/tables").json()["tables"]
        assert [table["tournament"] for table in lobby if table["id"] == grant["id"]] == [None]
