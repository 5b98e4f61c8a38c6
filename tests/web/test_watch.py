"""``/healthz`` and ``/metrics`` (docs/web/watching.md): the database and the AI workers
checked, the failing part named; Prometheus text that counts what was played."""

from __future__ import annotations

import random
import re
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from helpers_web import Duel, choose, service_of, test_settings
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from test_postgres import database_url, server_url  # noqa: F401  (fixtures)
from test_storage_files import TIMEOUT, Server, _chmod, _powerless, servers  # noqa: F401  (fixture)

from schotten.web import create_app
from schotten.web.routes import watch

METRICS = ("schotten_log_entries_total", "schotten_commit_seconds_bucket", "schotten_store_errors_total",
           "schotten_ai_queue", "schotten_ai_wait_seconds_count", "schotten_games_loaded",
           "schotten_games_in_play", "schotten_games_watched", "schotten_ai_thinking", "schotten_sockets",
           "process_open_fds")


def sample(text: str, name: str, labels: str = "") -> float:
    """The value of one sample in Prometheus text (``labels`` as written: ``{role="player"}``)."""
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.MULTILINE)
    assert found, f"no sample {name}{labels} in:\n{text}"
    return float(found.group(1))


def test_a_healthy_server_says_so(client: TestClient) -> None:
    """Database reachable, AI workers alive (none started yet): 200."""
    answer = client.get("/healthz")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"status": "ok", "database": "ok", "ai": "ok"}


def test_an_unreachable_database_is_named(client: TestClient, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A store whose database cannot be opened: 503, the error names the database, not the AI;
    no detail of the failure (a path, a driver message) is shown to the client."""
    engine = create_engine(f"sqlite:///{tmp_path / 'no such folder' / 'games.db'}")
    monkeypatch.setattr(service_of(client).store, "engine", engine)
    answer = client.get("/healthz")
    assert answer.status_code == 503, answer.text
    body = answer.json()
    assert body["database"] != "ok" and body["ai"] == "ok"
    assert body["error"].startswith("database: the database is not reachable"), body
    assert "no such folder" not in answer.text
    engine.dispose()


def test_a_deleted_database_file_is_named(client: TestClient, settings: Any) -> None:
    """The SQLite file removed under a running server: 503 naming the database."""
    Path(settings.database_url.removeprefix("sqlite:///")).unlink()
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.json()["error"].startswith("database:"), answer.text


def test_a_database_that_does_not_answer_is_named(client: TestClient,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A query that hangs: 503 after the timeout, and checks meanwhile share the one hung query."""
    release, calls = threading.Event(), []

    def hung(_engine: Any) -> None:
        calls.append(1)
        release.wait(10)

    monkeypatch.setattr(watch, "ping", hung)
    monkeypatch.setattr(watch, "HEALTH_TIMEOUT", 0.2)
    try:
        for _ in range(3):
            answer = client.get("/healthz")
            assert answer.status_code == 503
            assert answer.json()["database"] == "the database did not answer within 0.2 s"
        assert len(calls) == 1
    finally:
        release.set()


def test_dead_ai_workers_are_named(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """AI workers that are not alive: 503 naming the AI."""
    monkeypatch.setattr(service_of(client).ai, "healthy", lambda: False)
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json() == {"status": "unavailable", "error": "ai: the AI workers are not running",
                             "database": "ok", "ai": "the AI workers are not running"}


def test_neither_route_is_in_the_api_schema(client: TestClient) -> None:
    """The schema lists the game API, not the operator's routes (which answer)."""
    assert client.get("/healthz").status_code == 200 and client.get("/metrics").status_code == 200
    paths = client.get("/api/openapi.json").json()["paths"]
    assert "/healthz" not in paths and "/metrics" not in paths


def test_metrics_count_games_sockets_and_actions(client: TestClient) -> None:
    """Prometheus text with every metric; a friend game with two seats and a spectator in play,
    and one more log entry once an action is played."""
    with Duel(client) as duel:
        before = client.get("/metrics")
        assert before.status_code == 200
        assert before.headers["content-type"].startswith("text/plain")
        for name in METRICS:
            assert re.search(rf"^{name}[{{ ]", before.text, re.MULTILINE), name
        assert sample(before.text, "schotten_games_in_play") == 1
        assert sample(before.text, "schotten_sockets", '{role="player"}') == 2
        assert sample(before.text, "schotten_sockets", '{role="spectator"}') == 1
        duel.play(choose(duel.messages[duel.state.turn][-1], random.Random(1)))
        after = client.get("/metrics").text
        entries = "schotten_log_entries_total"
        assert sample(after, entries) == sample(before.text, entries) + 1
    assert sample(client.get("/metrics").text, "schotten_sockets", '{role="player"}') == 0


def test_two_apps_in_one_process_each_count_their_own(tmp_path: Path) -> None:
    """Each app's gauges are its own service's (nothing registered twice in a shared registry)."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with TestClient(create_app(test_settings(first))) as one, \
            TestClient(create_app(test_settings(second))) as two, Duel(one):
        assert sample(one.get("/metrics").text, "schotten_games_loaded") == 1
        assert sample(two.get("/metrics").text, "schotten_games_loaded") == 0


CANNOT_STORE = {"status": "unavailable", "error": f"database: {watch.CANNOT_STORE}",
                "database": watch.CANNOT_STORE, "ai": "ok"}
"""The answer of a server whose database answers queries but stores nothing."""


class Ticks:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_database_that_cannot_store_is_named_until_it_can_again(tmp_path: Path) -> None:
    """Another writer holding the SQLite file's lock (a write waits ``db_busy_timeout``, then fails): 503
    with the sentence, though reads work; once it lets go, ok again. Checks within ``WRITE_EVERY`` of
    the last reuse its finding: polling costs one write a second."""
    settings = test_settings(tmp_path, db_busy_timeout=0.2)
    with TestClient(create_app(settings)) as client, \
            closing(sqlite3.connect(settings.database_url.removeprefix("sqlite:///"))) as other:
        ticks = Ticks()
        client.app.state.health_check.clock = ticks  # type: ignore[attr-defined]
        assert client.get("/healthz").status_code == 200
        other.execute("BEGIN IMMEDIATE")
        assert client.get("/healthz").json()["status"] == "ok"
        ticks.now += watch.WRITE_EVERY
        answer = client.get("/healthz")
        assert (answer.status_code, answer.json()) == (503, CANNOT_STORE)
        other.rollback()
        assert client.get("/healthz").status_code == 503
        ticks.now += watch.WRITE_EVERY
        assert client.get("/healthz").json() == {"status": "ok", "database": "ok", "ai": "ok"}


def _health(server: Server, status: int) -> dict[str, Any]:
    """Poll ``/healthz`` until it answers ``status`` (at most ``TIMEOUT``, a guard); its body."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        answer = server.http.get("/healthz")
        if answer.status_code == status or time.monotonic() > deadline:
            assert answer.status_code == status, answer.text
            found: dict[str, Any] = answer.json()
            return found
        time.sleep(0.05)


def test_a_sqlite_file_made_read_only_is_unhealthy_until_writable(
        tmp_path: Path, servers: list[Server]) -> None:  # noqa: F811
    """``schotten serve`` whose SQLite file is made read-only (issue 26: it said ok): 503 saying nothing
    can be stored; writable again, ok."""
    prefix = _powerless()
    folder = tmp_path / "data"
    folder.mkdir()
    servers.append(Server(f"sqlite:///{folder / 'games.db'}", tmp_path / "server.log", prefix))
    assert _health(servers[0], 200)["database"] == "ok"
    _chmod(folder, 0o444)
    try:
        assert _health(servers[0], 503) == CANNOT_STORE
    finally:
        _chmod(folder, 0o644)
    assert _health(servers[0], 200)["database"] == "ok"


def test_postgres_that_cannot_store_is_named(tmp_path: Path, database_url: str) -> None:  # noqa: F811
    """PostgreSQL refusing the health check's write (its privilege revoked): 503; granted again, ok."""
    settings = test_settings(tmp_path, database_url=database_url)
    with TestClient(create_app(settings)) as client:
        client.app.state.health_check.clock = ticks = Ticks()  # type: ignore[attr-defined]
        assert client.get("/healthz").status_code == 200
        engine = service_of(client).store.engine
        with engine.begin() as connection:
            connection.execute(text("REVOKE INSERT, UPDATE ON health_writes FROM CURRENT_USER"))
        ticks.now += watch.WRITE_EVERY
        answer = client.get("/healthz")
        assert (answer.status_code, answer.json()) == (503, CANNOT_STORE)
        with engine.begin() as connection:
            connection.execute(text("GRANT INSERT, UPDATE ON health_writes TO CURRENT_USER"))
        ticks.now += watch.WRITE_EVERY
        assert client.get("/healthz").status_code == 200
