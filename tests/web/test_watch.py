"""``/healthz`` and ``/metrics`` (docs/web/watching.md): the database and the AI workers
checked, the failing part named; Prometheus text that counts what was played."""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers_web import Duel, choose, service_of, test_settings
from sqlalchemy import create_engine
from starlette.testclient import TestClient

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
