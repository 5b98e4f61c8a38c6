"""The lobby's lists (issue 26): a game in progress is listed only while someone is at it, a game
against the AI that no human is at any more is closed after ``ai_leave_after``, the open challenges
hold only tables a stranger may join (no rematch table: its seat is kept), and the finished games
no abandoned one. On SQLite and PostgreSQL, with an injected clock (never by sleeping); the lists
come from the database, so another process (another ``Store`` on it) reads the same."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from helpers_web import (
    FakeClock,
    Message,
    app_at,
    create,
    join,
    receive_state,
    service_of,
    socket_path,
    test_settings,
    until,
)
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401 (fixtures: skip without PostgreSQL)
from test_rematch import ask, finished_game, granted

from schotten.web.games.attendance import Attendance
from schotten.web.storage.store import Store

LEAVE = 600.0
"""The tests' ``ai_leave_after``: ten minutes."""
PRESENT_FOR = Attendance.PRESENT_FOR


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The test's database (PostgreSQL: skipped without a server)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    found: str = request.getfixturevalue("database_url")
    return found


@pytest.fixture
def fake() -> FakeClock:
    """The test's clock, starting now (a table's creation time is the real one)."""
    clock = FakeClock()
    clock.moment = datetime.now(UTC)
    return clock


@pytest.fixture
def client(url: str, tmp_path: Path, fake: FakeClock) -> Iterator[TestClient]:
    with app_at(test_settings(tmp_path, database_url=url, ai_leave_after=LEAVE), fake) as test_client:
        yield test_client


def listed(client: TestClient, status: str | None = None) -> list[str]:
    """The ids the lobby lists (of one status, if given)."""
    tables: list[dict[str, Any]] = client.get("/api/tables").json()["tables"]
    return [table["id"] for table in tables if status is None or table["status"] == status]


def close_left(client: TestClient) -> int:
    """Have the timekeeper close the games left alone now; how many it closed."""
    keeper = service_of(client).authority.timekeeper
    assert keeper is not None and client.portal is not None
    closed: int = client.portal.call(keeper.abandon_idle)
    return closed


def mark(client: TestClient) -> int:
    """Have this process mark the games someone is at now; how many."""
    assert client.portal is not None
    marked: int = client.portal.call(service_of(client).authority.attendance.mark)
    return marked


def ai_table(client: TestClient) -> Message:
    return create(client, mode="ai", level="easy", seat=0)


def gone(client: TestClient, game_id: str) -> None:
    """Wait (bounded) until the server has seen the game's sockets close."""
    game = service_of(client).games.get(game_id)
    until(lambda: game is None or not any(game.local_seats()), "the sockets to close")


def test_an_ai_table_left_alone_is_closed_and_no_longer_listed(client: TestClient, fake: FakeClock) -> None:
    """Opened and left: listed while just opened, not once nobody was there for ``PRESENT_FOR``;
    closed as abandoned (no winner) after ``ai_leave_after``, then in no list at all."""
    table = ai_table(client)
    assert table["id"] in listed(client, "playing")
    fake.advance(PRESENT_FOR + 1)
    assert table["id"] not in listed(client), "nobody at it: not among the games in progress"
    fake.advance(LEAVE - PRESENT_FOR - 11)
    assert close_left(client) == 0
    fake.advance(20)
    assert close_left(client) == 1
    summary = client.get(f"/api/games/{table['id']}").json()
    assert (summary["status"], summary["winner"], summary["ended"]) == ("over", None, "abandoned")
    assert table["id"] not in listed(client), "an abandoned game is no finished game to show"
    assert close_left(client) == 0


def test_an_ai_game_with_its_human_there_is_listed_and_kept(client: TestClient, fake: FakeClock,
                                                           url: str) -> None:
    """Connected for an hour: marked seen every ``SEEN_EVERY`` s, listed (also by another process
    reading the database), never closed; once the human left, out of the list after ``PRESENT_FOR``
    and closed ``ai_leave_after`` after they were last seen."""
    table = ai_table(client)
    with client.websocket_connect(socket_path(table["id"], table["token"])) as ws:
        receive_state(ws)
        fake.advance(3600)
        assert mark(client) == 1
        assert close_left(client) == 0
        assert table["id"] in listed(client, "playing")
        other = Store(url)
        try:
            present = service_of(client).authority.attendance.present_since()
            lists = other.lobby(50, datetime.now(UTC), present)
            assert table["id"] in [info.id for info in lists]
        finally:
            other.close()
        fake.advance(Attendance.SEEN_EVERY - 1)
        assert mark(client) == 0, "marked a moment ago"
        fake.advance(1)
        assert mark(client) == 1
    gone(client, table["id"])
    assert mark(client) == 0
    fake.advance(PRESENT_FOR + 1)
    assert table["id"] not in listed(client)
    assert close_left(client) == 0
    fake.advance(LEAVE - PRESENT_FOR)
    assert close_left(client) == 1


def test_a_friend_game_is_listed_while_someone_is_there(client: TestClient, fake: FakeClock) -> None:
    """Listed once joined; not while nobody was there for ``PRESENT_FOR``; again once a player is
    back; never closed for being left (untimed friend games have ``abandon_after``)."""
    table = create(client)
    bob = join(client, table["id"])
    assert table["id"] in listed(client, "playing")
    fake.advance(PRESENT_FOR + 1)
    assert table["id"] not in listed(client)
    with client.websocket_connect(socket_path(table["id"], bob["token"])) as ws:
        receive_state(ws)
        assert mark(client) == 1
        assert table["id"] in listed(client, "playing")
    fake.advance(LEAVE * 10)
    assert close_left(client) == 0


def test_a_rematch_waiting_for_its_player_is_no_open_challenge(client: TestClient) -> None:
    """The rematch table keeps its free seat for the other player: not offered to strangers; a new
    friend table is."""
    duel = finished_game(client)
    rematch = granted(ask(client, duel.id, duel.tokens[0]))
    assert client.get(f"/api/games/{rematch['id']}").json()["status"] == "open"
    challenge = create(client)
    assert listed(client, "open") == [challenge["id"]]
    assert duel.id in listed(client, "over")
